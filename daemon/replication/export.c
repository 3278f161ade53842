/* kixd serve --export DIR: a thread keeping a tlog-tiles directory current,
 * and the one-shot `kixd export` (export.h). */
#include "export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "kixd_options.h"
#include "replicas.h"
#include "kix/doc.h"
#include "kix/json.h"
#include "kix/index.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/tlog_tiles.h"
#include "kix/vindex.h"
#include "metrics.h"

struct kixd_export {
    struct kixd_server *srv;
    char dir[4096];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pending, stop;
};

/* One export's layers above the tiles, from the tiles' snapshot: the
 * verifiable index's files (kix/vindex.h) and the pages, rendered from
 * src (a source on that snapshot) on `threads` threads, each extra one
 * with a source from more(log) (none with more NULL). */
struct export_job {
    struct kix_log *log;
    struct kix_source *src;
    kix_pages_source_fn more;
    int threads;
    struct kix_index_export_stats is;
    struct kix_pages_export_stats ps;
};

/* The tlog export's hook: the index's files and the pages, before the
 * directory sync and the checkpoint, so that a reader of the new
 * checkpoint finds every page (and the manifest a page holds for a run
 * of a partial bundle, which has no objects/ file: manifest_in_page). */
static int export_layers(void *ctx, struct kix_log_reader *r, const char *dir, struct kix_err *err)
{
    struct export_job *j = ctx;
    int rc = kix_index_export(r, dir, &j->is, err);

    if (rc == KIX_OK)
        rc = kix_pages_export_threads(j->src, j->more, j->log, j->threads, dir, &j->ps, err);
    return rc;
}

/* The tlog export's `elsewhere`: a run's manifest is in its page, exactly
 * when the snapshot's index names it as the run's. */
static int manifest_in_page(void *ctx, uint64_t index, const uint8_t *leaf, size_t len,
                            struct kix_digest *manifest)
{
    struct export_job *j = ctx;

    (void)index;
    return kix_pages_manifest_in_page(j->src, leaf, len, manifest);
}

/* Exports log into dir from the snapshot `given` (NULL: one of the
 * log's own) with j's layers; j->more and j->threads set by the caller. */
static int export_all(struct kix_log *log, struct kix_log_reader *given, const char *dir,
                      const char *bundles, struct export_job *j, struct kix_tlog_export_stats *st,
                      struct kix_err *err)
{
    struct kix_log_reader *r = given;
    int rc = KIX_OK;

    j->log = log;
    if (!r && (rc = kix_log_read_begin(log, &r)) != KIX_OK)
        return kix_err_set(err, rc, "cannot read the log: %s", kix_strerror(rc));
    rc = kix_source_open_snapshot(log, r, &j->src, err);
    if (rc == KIX_OK)
        rc = kix_log_export_tlog_linked(log, r, dir, bundles, manifest_in_page, export_layers, j,
                                        st, err);
    kix_source_close(j->src);
    j->src = NULL;
    if (!given)
        kix_log_read_end(r);
    return rc;
}

/* STORE/bundles (KIXD_BUNDLE_DIR, http_bundles.c) into path: the full bundles and packs
 * kixd --http keeps as files, which the export hard-links when their bytes
 * are the ones it makes. NULL when the name does not fit. */
static const char *store_bundles(const char *store, char *path, size_t cap)
{
    return (size_t)snprintf(path, cap, "%s/" KIXD_BUNDLE_DIR, store) < cap ? path : NULL;
}

/* Another read snapshot of the log for one page-rendering thread
 * (kix_pages_export_threads refuses it when the log grew meanwhile). */
static int more_source(void *ctx, struct kix_source **out, struct kix_err *err)
{
    return kix_source_open_snapshot(ctx, NULL, out, err);
}

/* The page-rendering threads: KIXD_EXPORT_THREADS (1 to 64), else the
 * online CPUs up to 8; -1 when the variable is not a number in range. */
static int export_threads(void)
{
    const char *v = getenv("KIXD_EXPORT_THREADS");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    char *end;
    long n;

    if (!v || !*v)
        return cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
    n = strtol(v, &end, 10);
    return *end || n < 1 || n > 64 ? -1 : (int)n;
}

/* What one export wrote, every layer: tiles, bundles, objects, packs and
 * the checkpoint, the index's files, the pages. */
static void export_totals(const struct kix_tlog_export_stats *st,
                          const struct kix_index_export_stats *is,
                          const struct kix_pages_export_stats *ps, unsigned long long *files,
                          unsigned long long *bytes)
{
    *files = st->files + is->files + ps->files;
    *bytes = st->bytes + is->bytes + ps->bytes;
}

/* The warnings of an export's pages, for the log or stderr. */
static void export_warnings(const char *dir, const struct kix_pages_export_stats *ps, int to_stderr)
{
    if (ps->escaped && to_stderr)
        fprintf(stderr, "kixd: export: warning: %llu run(s) written under escaped names; %s\n",
                (unsigned long long)ps->escaped, ps->escaped_example);
    else if (ps->escaped)
        kixd_log(KIXD_WARN, "export to %s: %llu run(s) written under escaped names; %s", dir,
                 (unsigned long long)ps->escaped, ps->escaped_example);
    if (ps->skipped && to_stderr)
        fprintf(stderr, "kixd: export: skipped %llu run page(s): %s\n",
                (unsigned long long)ps->skipped, ps->skipped_reason);
    else if (ps->skipped)
        kixd_log(KIXD_WARN, "export to %s: skipped %llu run page(s): %s", dir,
                 (unsigned long long)ps->skipped, ps->skipped_reason);
}

static void export_once(struct kixd_export *e)
{
    struct kix_tlog_export_stats st;
    struct export_job j;
    struct kix_err err = {0};
    double t0 = kixd_now_ms(), ms;
    struct kix_log_reader *view = NULL;
    unsigned long long files, bytes;
    char bundles[4200];
    int rc;

    /* with --ack-replicas, a copy of what the mirrors hold (replicas.h):
     * nothing new until they hold more (the view's advance kicks us) */
    if (kixd_replicas_export_snapshot(e->srv, &view) && !view)
        return;
    memset(&st, 0, sizeof(st));
    memset(&j, 0, sizeof(j));
    /* threads only on the store's own snapshots: view is a mirror's */
    j.more = view ? NULL : more_source;
    j.threads = export_threads();
    if (j.threads < 0) /* a bad KIXD_EXPORT_THREADS: serve's start refused it */
        j.threads = 1;
    /* the index's and the pages' parses of one leaf or manifest shared
     * (kix/json.h), for this export only */
    kix_json_memo_begin(0);
    rc = export_all(e->srv->log, view, e->dir,
                    store_bundles(e->srv->cfg->store, bundles, sizeof(bundles)), &j, &st, &err);
    kix_json_memo_end();
    if (view)
        kix_log_read_end(view);

    ms = kixd_now_ms() - t0;
    kixd_metrics_exported(e->srv, rc == KIX_OK, st.size, ms);
    export_totals(&st, &j.is, &j.ps, &files, &bytes);
    if (rc) {
        kixd_log(KIXD_ERROR, "export to %s failed: %s", e->dir, kix_err_text(&err, rc));
        return;
    }
    export_warnings(e->dir, &j.ps, 0);
    if (files)
        kixd_log(KIXD_DEBUG,
                 "exported %s: size %llu -> %llu, %llu files (%llu linked from the store), %llu "
                 "bytes, %.1f ms",
                 e->dir, (unsigned long long)st.from_size, (unsigned long long)st.size, files,
                 (unsigned long long)st.linked, bytes, ms);
}

static void *export_main(void *arg)
{
    struct kixd_export *e = arg;

    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->pending && !e->stop)
            pthread_cond_wait(&e->cv, &e->mu);
        if (!e->pending)
            break;
        e->pending = 0;
        pthread_mutex_unlock(&e->mu);
        export_once(e);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

int kixd_export_start(struct kixd_server *srv, const char *dir, struct kixd_export **out,
                      struct kix_err *err)
{
    struct kixd_export *e = calloc(1, sizeof(*e));

    *out = NULL;
    if (!e)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    e->srv = srv;
    snprintf(e->dir, sizeof(e->dir), "%s", dir);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->pending = 1; /* bring the directory up to date at once */
    if (pthread_create(&e->thread, NULL, export_main, e) != 0) {
        pthread_cond_destroy(&e->cv);
        pthread_mutex_destroy(&e->mu);
        free(e);
        return kix_err_set(err, KIX_EUNAVAIL, "cannot start the export thread");
    }
    kixd_log(KIXD_INFO, "exporting the log as C2SP tlog-tiles into %s", dir);
    *out = e;
    return KIX_OK;
}

void kixd_export_kick(struct kixd_export *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->pending = 1;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

void kixd_export_stop(struct kixd_export *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
    pthread_join(e->thread, NULL);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

/* ---- kixd export ------------------------------------------------------------------------ */

static const char export_about[] =
    "Writes the log in DIR (an origin or a mirror's replica) into OUTDIR as a C2SP\n"
    "tlog-tiles tree: checkpoint, tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>],\n"
    "with the pages: runs/<runId>.html (the page; also runs/<runId>, the\n"
    "permalink), runs/<runId>.json (the view its verifier reads),\n"
    "groups/<key>[.html|.json], kernels/<kernel>[.html|.json], home/<k>[.html|.json],\n"
    "index.html, kix-verify.js and style.css. Every page links to .html names,\n"
    "so a server that types files by extension alone serves every link as HTML.\n"
    "The summary counts every file and byte written (a hard link is a file of\n"
    "no bytes). A full bundle or pack that kixd's HTTP listener keeps in\n"
    "STORE/bundles with exactly the export's bytes is hard-linked into OUTDIR\n"
    "on the same file system (counted as a file of its bytes, which the copy\n"
    "holds).\n"
    "Any static web server, object store or CDN can then serve it. Only what\n"
    "changed since OUTDIR's checkpoint is written; every file atomically, the\n"
    "checkpoint last. The store may be served by kixd meanwhile.\n"
    "Run and group pages are rendered on KIXD_EXPORT_THREADS threads (1 to 64;\n"
    "default: the online CPUs, at most 8); the copy is the same bytes whatever\n"
    "the number.\n";

/* kixd export --json: what the summary line says, and the warnings. */
static void export_json(const char *store, const char *dir, int rc, const char *error,
                        const struct kix_tlog_export_stats *st,
                        const struct kix_pages_export_stats *ps, unsigned long long files,
                        unsigned long long bytes)
{
    json_t *o = json_pack("{s:b,s:o,s:o}", "ok", rc == KIX_OK, "store", kixd_jstr(store), "dir",
                          kixd_jstr(dir));

    if (o && rc != KIX_OK)
        json_object_set_new(o, "error", kixd_jstr(error));
    else if (o)
        json_object_update_new(
            o,
            json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I,s:o}", "size",
                      (json_int_t)st->size, "fromSize", (json_int_t)st->from_size, "files",
                      (json_int_t)files, "bytes", (json_int_t)bytes, "linked",
                      (json_int_t)st->linked, "runPages", (json_int_t)ps->runs, "groupPages",
                      (json_int_t)ps->groups, "kernelPages", (json_int_t)ps->kernels, "homePages",
                      (json_int_t)ps->home_pages, "escaped", (json_int_t)ps->escaped,
                      "escapedExample", kixd_jstr(ps->escaped_example), "skipped",
                      (json_int_t)ps->skipped, "skippedReason", kixd_jstr(ps->skipped_reason)));
    if (kix_doc_print(o, 0, stdout) != KIX_OK)
        fprintf(stderr, "kixd export: out of memory writing the --json summary\n");
    json_decref(o);
}

int kixd_export_main(int argc, char **argv)
{
    const char *store = NULL;
    struct kix_log_opts lo;
    struct kix_log *log = NULL;
    struct kix_tlog_export_stats st;
    struct export_job j;
    struct kix_err err = {0};
    char path[4200], bundles[4200], format[64];
    struct stat sb;
    unsigned long long files, bytes;
    int rc, json = 0, threads = export_threads();
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &store, "the store to export (an origin or a mirror's replica)"),
        KIX_FLAG("json", &json,
                 "one JSON object on stdout instead of the summary line: ok, store,\n"
                 "dir, size, fromSize, files, bytes, linked (full bundles and\n"
                 "packs hard-linked from the store's), runPages, groupPages,\n"
                 "kernelPages, homePages, escaped, escapedExample, skipped,\n"
                 "skippedReason (and error when ok is false)"),
    };
    const struct kix_cmd cmd = {.prog = "kixd export",
                                .usage = "--store DIR [--json] OUTDIR",
                                .about = export_about,
                                KIX_CMD_OPTS(options),
                                .tail =
                                    "\nexit status: 0 done, 2 usage, 3 cannot read the store or "
                                    "write OUTDIR\n",
                                .column = 14};

    memset(&st, 0, sizeof(st));
    memset(&j, 0, sizeof(j));
    if ((rc = kixd_options(&cmd, argc, argv, NULL, NULL)) >= 0)
        return rc;
    if (!store || optind != argc - 1)
        return kixd_usage(&cmd, "--store DIR and one OUTDIR are required");
    if (threads < 0)
        return kixd_usage(&cmd, "KIXD_EXPORT_THREADS must be a number from 1 to 64 (unset it for "
                                "the online CPUs)");
    snprintf(path, sizeof(path), "%s/data.mdb", store);
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "kixd: no kix store in %s (create one with kixd init)\n", store);
        return 3;
    }
    memset(&lo, 0, sizeof(lo));
    lo.store.read_only = 1;
    if ((rc = kix_index_open_any(store, &lo, &log, &err)))
        goto out;
    /* read-only, an index of another format reads as none: the pages and
     * index files would be missing, so say why instead */
    if (!kix_index_current(log, format, sizeof(format))) {
        rc = kix_err_set(&err, KIX_EINVAL,
                         "the store's index is in the format %s, which this kixd does not read "
                         "(it writes %s); rebuild it with kixd migrate --store %s (kixd serve "
                         "does on start), then export again",
                         format, kix_index_indexer()->name, store);
        goto out;
    }
    /* the index's and the pages' parses of one leaf or manifest shared
     * (kix/json.h) */
    kix_json_memo_begin(0);
    j.more = more_source;
    j.threads = threads;
    rc = export_all(log, NULL, argv[optind], store_bundles(store, bundles, sizeof(bundles)), &j,
                    &st, &err);
out:
    kix_json_memo_end();
    kix_log_close(log);
    export_totals(&st, &j.is, &j.ps, &files, &bytes);
    if (json)
        export_json(store, argv[optind], rc, rc ? kix_err_text(&err, rc) : "", &st, &j.ps, files,
                    bytes);
    if (rc) {
        fprintf(stderr, "kixd: export: %s\n", kix_err_text(&err, rc));
        return rc == KIX_EUSAGE ? 2 : 3;
    }
    export_warnings(argv[optind], &j.ps, 1);
    if (json)
        return 0;
    /* every file this export wrote, of every layer (a page's .html hard
     * link is a file of no new bytes) */
    printf("exported %s to %s: size %llu (from %llu), %llu files, %llu bytes; %llu run and %llu "
           "group pages\n",
           store, argv[optind], (unsigned long long)st.size, (unsigned long long)st.from_size,
           files, bytes, (unsigned long long)j.ps.runs, (unsigned long long)j.ps.groups);
    return 0;
}
