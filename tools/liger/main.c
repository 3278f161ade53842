/* kix-import SOURCE: publishes a source's benchmark results to a kix log;
 * kix-import-liger is kix-import liger (this file built with
 * KIX_IMPORT_FIXED_SOURCE).
 *
 * Each source is one entry of `sources`: a reader that turns its files
 * into rows, each a run (its five manifests), a skipped entry (with the
 * reason) or an invalid row (with the file and where in it). Everything
 * else is shared. Two passes over the files: the first validates every row (and that no two
 * rows make the same run), the second builds each row's manifests, signs a
 * publication for it and submits them in batches, one group commit each.
 * Run ids and manifests come from the row (the row's time is the run's
 * observedAt); publishedAt is the time of publication. Importing the same
 * rows again finds each manifest already published as its run (proven by
 * the log's signed index) and appends nothing.
 *
 * The log is verified as kix verifies it (kix/trust.h): the log key is
 * found as kix finds it, the server's checkpoint must be consistent with
 * the one remembered before anything is submitted, every receipt must
 * prove the envelope submitted, and the final checkpoint is checked again.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kix/client.h"
#include "kix/csv.h"
#include "kix/entries.h"
#include "kix/file.h"
#include "kix/kernelbench.h"
#include "kix/liger.h"
#include "kix/note.h"
#include "kix/progress.h"
#include "kix/receipt.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/trust.h"
#include "kix/vindex.h"
#include "kix/version.h"

#ifdef KIX_IMPORT_FIXED_SOURCE
#define PROG "kix-import-liger"
#else
#define PROG "kix-import"
#endif
#define BATCH_DEFAULT 256
#define BATCH_MAX     4096
#define SHOW_MAX      20 /* problems listed one by one before "... and N more" */
#define FILE_MAX      ((size_t)1 << 30)

static const char help[] =
#ifdef KIX_IMPORT_FIXED_SOURCE
    "usage: " PROG " --key KEY [--server ADDR | --store DIR] [--log-key KEY]\n"
    "                        [--receipts DIR] [--map FILE] [--batch N] [--skip-bad]\n"
    "                        [--json] [--dry-run] CSV\n"
    "\n"
    "kix-import liger CSV, under its old name (kix-import --help has the other\n"
    "sources).\n"
#else
    "usage: " PROG " SOURCE --key KEY [--server ADDR | --store DIR] [--log-key KEY]\n"
    "                  [--receipts DIR] [--map FILE] [--batch N] [--skip-bad]\n"
    "                  [--problems DIR|FILE] [--save-problems FILE] [--json] [--dry-run]\n"
    "                  PATH...\n"
    "\n"
    "Publishes a source's benchmark results to a kix log. SOURCE is one of:\n"
    "  liger        Liger-Kernel's benchmark CSV (benchmark/data/all_benchmark_data.csv):\n"
    "               every data row is one run\n"
    "  kernelbench  KernelBench's baseline timing JSON (results/timing/<GPU>_<host>/\n"
    "               baseline_time_<config>.json, any number of them): every timed\n"
    "               problem is one run (mean primary, with std, min and max); a null\n"
    "               entry (the problem did not run) is skipped and reported\n"
    "\n"
    "  --problems DIR|FILE  kernelbench: KernelBench's KernelBench/ directory (level<N>/\n"
    "                  <N>_<Name>.py), read as data: each file is hashed and its\n"
    "                  module-level sizes read, never copied; or an index of them\n"
    "                  saved with --save-problems (required)\n"
    "  --save-problems FILE  write the digests and sizes of --problems DIR to FILE\n"
    "                  (JSON), so that a sample can carry them without the files\n"
#endif
    "\n"
    "Every run is signed with KEY (which needs the publish role). Each run is a BenchmarkRun "
    "manifest that references, by\n"
    "digest, its BenchmarkProtocol, Workload, ExecutionEnvironment and\n"
    "Implementation (apiVersion kernelindex.dev/v1alpha1).\n"
    "\n"
    "Every file is validated first: if any row is invalid, nothing is\n"
    "published and each bad row is reported with its file and line number (or\n"
    "JSON pointer), unless --skip-bad is given. Run ids derive from the row\n"
    "(its external id), so importing the same files again adds nothing (each\n"
    "run found published, proven by the log's signed index): an interrupted\n"
    "import is resumed by running it again, and a newer file adds only new\n"
    "rows. A Liger row's timestamp is the run's observedAt; the publication's\n"
    "publishedAt is the time it is published.\n"
    "A row whose run id is already published with different figures is\n"
    "refused by the log and reported. A row an earlier kix-import-liger\n"
    "published (the sweep in its workload, not in the run) counts as\n"
    "published: its run and group are kept as they are.\n"
    "\n"
    "The log is verified as kix verifies it: before anything is submitted, the\n"
    "log's latest checkpoint must be signed by the log key and consistent with\n"
    "the one this client remembers (a fork or a rollback stops the import);\n"
    "every receipt the log answers must prove the entry submitted; and the\n"
    "final checkpoint is checked again and remembered.\n"
    "\n"
    "  --key KEY       the publisher's private key file (from kix keygen)\n"
    "  --server ADDR   a kixd, tcp://HOST:PORT or unix:///PATH (default $KIX_SERVER,\n"
    "                  then " KIX_DEFAULT_SERVER "), or a static copy of the log,\n"
    "                  https://HOST/PREFIX/ (CAs: the system's or $KIX_CACERT): a\n"
    "                  copy takes no submissions, so there an import checks that\n"
    "                  every row is published, each proven by the signed index,\n"
    "                  and fails (exit 1) on a batch with a row that is not\n"
    "  --store DIR     a log on this machine instead of a server\n"
    "  --log-key KEY   the log's verifier key, a file or the key text (default\n"
    "                  $KIX_LOG_KEY, then 'log-key = KEY' in ~/.config/kix/config,\n"
    "                  then, with --store, the store's own key)\n"
    "  --receipts DIR  save each new entry's receipt as DIR/<runId>.tlog-proof\n"
    "                  (kix verify FILE checks one offline)\n"
    "  --map FILE      write one JSON line per data row: {\"file\", \"row\", the row's\n"
    "                  identity (liger: \"line\"; kernelbench: \"level\", \"problem\",\n"
    "                  \"pointer\"), \"status\", \"runId\", \"digest\", \"externalId\",\n"
    "                  \"permalink\", \"index\"} (row 1 is the file's first data row;\n"
    "                  status new, duplicate,\n"
    "                  refused, skipped, checked on a dry run, or invalid when\n"
    "                  the file was refused)\n"
    "  --batch N       runs per submission (one group commit), 1.."
    "4096, default 256\n"
    "  --skip-bad      publish the valid rows of a file with invalid ones, and\n"
    "                  report what was skipped\n"
    "  --json          print the summary as one JSON object: runs, new, duplicates,\n"
    "                  skipped and skippedRows (file, row, reason), ...\n"
    "  --dry-run       validate and build the manifests, publish nothing (no key\n"
    "                  or log needed)\n"
    "  --version       print the version and exit\n"
    "\n"
    "A progress bar (the same as kix audit's) is drawn on stderr when stdout\n"
    "and stderr are both terminals.\n"
    "\n"
    "exit status: 0 ok, 1 invalid rows (nothing published) or rows refused by\n"
    "the log, or a receipt that does not verify, 2 usage (e.g. no log key), 3 I/O\n"
    "or internal error, 4 the log is inconsistent with the checkpoint remembered\n"
    "(a fork proven), 5 the log is behind the checkpoint remembered (a stale\n"
    "copy or a rollback; nothing published)\n";

/* ---- a set of digests (open addressing) ------------------------------------- */

struct dset {
    struct kix_digest *keys;
    size_t *vals; /* value + 1; 0 = empty slot */
    size_t cap, n;
};

static size_t dset_slot(const struct dset *s, const struct kix_digest *d)
{
    size_t h;
    memcpy(&h, d->b, sizeof(h));
    h &= s->cap - 1;
    while (s->vals[h] && memcmp(s->keys[h].b, d->b, KIX_DIGEST_LEN) != 0)
        h = (h + 1) & (s->cap - 1);
    return h;
}

/* Inserts d with value v; returns 1 (and *old) when d was there already,
 * 0 when added, KIX_ENOMEM. */
static int dset_put(struct dset *s, const struct kix_digest *d, size_t v, size_t *old)
{
    size_t h;
    if (2 * (s->n + 1) > s->cap) {
        struct dset g = {NULL, NULL, s->cap ? s->cap * 2 : 64, 0};
        g.keys = malloc(g.cap * sizeof(*g.keys));
        g.vals = calloc(g.cap, sizeof(*g.vals));
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return KIX_ENOMEM;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->vals[i]) {
                h = dset_slot(&g, &s->keys[i]);
                g.keys[h] = s->keys[i];
                g.vals[h] = s->vals[i];
                g.n++;
            }
        free(s->keys);
        free(s->vals);
        *s = g;
    }
    h = dset_slot(s, d);
    if (s->vals[h]) {
        if (old)
            *old = s->vals[h] - 1;
        return 1;
    }
    s->keys[h] = *d;
    s->vals[h] = v + 1;
    s->n++;
    return 0;
}

static int dset_has(const struct dset *s, const struct kix_digest *d)
{
    return s->cap && s->vals[dset_slot(s, d)] != 0;
}

static void dset_free(struct dset *s)
{
    free(s->keys);
    free(s->vals);
    memset(s, 0, sizeof(*s));
}

/* ---- state ---------------------------------------------------------------------- */

/* A row not published: invalid (skipped only with --skip-bad) or skipped
 * by its source (a null KernelBench entry), with the reason. */
struct bad_row {
    size_t seq, row, line; /* seq: across every file, 1-based; row: in its file */
    size_t file;
    int skip;   /* skipped by the source, not invalid */
    char *msg;  /* the reason, naming the line or JSON pointer */
    json_t *id; /* the source's identity of the row (map, --json) */
};

struct item {
    size_t seq, row, file;
    json_t *id;
    struct kix_liger_run run;
    struct kix_buf envelope;
    struct kix_bytes objects[KIX_LIGER_NOBJECTS];
    int published;        /* its manifest is already published as this run */
    uint64_t publication; /* at this log index (proven by the signed index) */
    int earlier;          /* ... in an earlier importer's form (find_earlier) */
};

struct input {
    const char *path; /* as given */
    char *data;
    size_t len;
};

struct import;

/* A file being read by its source: one row at a time. */
struct cursor {
    struct import *im;
    size_t file;
    /* liger */
    struct kix_csv csv;
    struct kix_liger_header header;
    /* kernelbench */
    struct kix_kb_file *kb;
    size_t next;
};

enum { ROW_END, ROW_RUN, ROW_SKIP, ROW_BAD };

/* A source: how its files become rows. next() returns ROW_RUN with *run
 * built (build: 0 leaves the run manifest out, for pass 1), ROW_SKIP or
 * ROW_BAD with err saying why, ROW_END, or a negative KIX_E* (fatal); *id
 * (owned by the caller) is the row's identity for the map. */
struct source {
    const char *name, *source, *license, *what;
    int (*open)(struct cursor *c, struct kix_err *err);
    int (*next)(struct cursor *c, int build, struct kix_liger_run *run, size_t *line, json_t **id,
                struct kix_err *err);
    void (*close)(struct cursor *c);
};

struct import {
    const struct source *src;
    const char *path; /* the file being read */
    struct input *inputs;
    size_t ninputs;
    struct kix_liger_cache *cache;
    struct kix_kb_problems *problems;
    int skip_bad, json, dry_run, progress;
    struct kix_progress bar; /* the phase's bar (kix/progress.h) */
    size_t batch;
    FILE *map;

    size_t rows;
    struct bad_row *bad;
    size_t nbad, nskip, bad_cap;

    struct kix_client *client;
    struct kix_signer *key;
    struct kix_verifier log_key;
    const char *receipts;   /* --receipts DIR, or NULL */
    struct kix_buf checked; /* the last checkpoint note kix_trust_check()ed */
    size_t verified;        /* receipts verified */
    char origin[KIX_NOTE_NAME_MAX + 1];
    uint64_t size_before, size_after;

    struct dset stored;                    /* shared objects the log holds */
    struct dset kinds[KIX_LIGER_NOBJECTS]; /* distinct objects per kind */
    struct item *items;
    struct kix_bundle *bundles;
    struct kix_submit_result *results;
    size_t nitems, next_bad;

    size_t done, fresh, dups, refused, shown_refused, earlier;
    struct timespec t0;
};

/* ---- the sources ----------------------------------------------------------------- */

static int liger_open(struct cursor *c, struct kix_err *err)
{
    const struct input *in = &c->im->inputs[c->file];
    struct kix_csv_record rec;
    int rc;

    kix_csv_init(&c->csv, in->data, in->len);
    rc = kix_csv_next(&c->csv, &rec, err);
    if (rc == 0)
        return kix_err_set(err, KIX_EINVAL, "%s is empty; expected a header line", in->path);
    if (rc >= 0)
        rc = kix_liger_header_parse(&rec, &c->header, err);
    if (rc)
        kix_err_wrap(err, "%s", in->path);
    return rc;
}

static int liger_next(struct cursor *c, int build, struct kix_liger_run *run, size_t *line,
                      json_t **id, struct kix_err *err)
{
    struct kix_csv_record rec;
    int r = kix_csv_next(&c->csv, &rec, err);

    if (r == 0)
        return ROW_END;
    *line = rec.line;
    *id = json_pack("{s:I}", "line", (json_int_t)rec.line);
    if (!*id)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (r == KIX_ENOMEM)
        return r;
    if (r < 0)
        return ROW_BAD;
    r = build ? kix_liger_build(c->im->cache, &c->header, &rec, run, err)
              : kix_liger_check(c->im->cache, &c->header, &rec, run, err);
    if (r == KIX_EINVAL)
        return ROW_BAD;
    return r ? r : ROW_RUN;
}

static void liger_close(struct cursor *c)
{
    kix_csv_release(&c->csv);
}

static int kb_open(struct cursor *c, struct kix_err *err)
{
    const struct input *in = &c->im->inputs[c->file];
    c->next = 0;
    return kix_kb_open(in->path, in->data, in->len, c->im->problems, &c->kb, err);
}

static int kb_next(struct cursor *c, int build, struct kix_liger_run *run, size_t *line,
                   json_t **id, struct kix_err *err)
{
    struct kix_kb_row row;
    int r;

    if (c->next >= kix_kb_rows(c->kb))
        return ROW_END;
    r = kix_kb_row(c->kb, c->next++, build, run, &row, err);
    *line = 0;
    *id = json_pack("{s:i, s:s, s:s}", "level", row.level, "problem", row.problem, "pointer",
                    row.pointer);
    if (!*id || r == KIX_ENOMEM)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (r == KIX_KB_SKIP)
        return ROW_SKIP;
    if (r == KIX_EINVAL)
        return ROW_BAD;
    return r ? r : ROW_RUN;
}

static void kb_close(struct cursor *c)
{
    kix_kb_close(c->kb);
    c->kb = NULL;
}

static const struct source sources[] = {
    {"liger", KIX_LIGER_SOURCE, KIX_LIGER_LICENSE, "Liger-Kernel's benchmark CSV", liger_open,
     liger_next, liger_close},
    {"kernelbench", KIX_KB_SOURCE, KIX_KB_LICENSE, "KernelBench's baseline timing JSON", kb_open,
     kb_next, kb_close},
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --json anywhere before "--": errors are one JSON object on stdout too,
 * in kix's shape (README.md, "Output for scripts"): {"error":{"code",
 * "exitCode","command","message","cause",...}}, the sentence for people
 * staying on stderr. */
static int json_errors;

/* The error object for --json (members: more members, or NULL). */
static void json_error(const char *code, int status, const char *message, const char *cause,
                       json_t *members)
{
    json_t *e = json_pack("{s:s, s:i, s:s, s:s}", "code", code, "exitCode", status, "command", PROG,
                          "message", message);
    char *text;

    if (e && cause)
        json_object_set_new(e, "cause", json_string(cause));
    if (e && members)
        json_object_update(e, members);
    json_decref(members);
    e = e ? json_pack("{s:o}", "error", e) : NULL;
    text = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    if (text) {
        fflush(stdout);
        printf("%s\n", text);
        fflush(stdout);
    }
    free(text);
}

static int fail(int code, const struct kix_err *err)
{
    int status = kix_err_exit_status(code);

    fprintf(stderr, PROG ": %s\n", kix_err_text(err, code));
    if (json_errors)
        json_error(kix_err_word(code), status, kix_err_text(err, code), kix_strerror(code), NULL);
    return status;
}

static int read_file(struct input *in, struct kix_err *err)
{
    FILE *f = strcmp(in->path, "-") == 0 ? stdin : fopen(in->path, "rb");
    size_t cap = 1 << 20, n;

    if (!f)
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "cannot open %s: %s",
                           in->path, strerror(errno));
    in->data = malloc(cap);
    while (in->data && (n = fread(in->data + in->len, 1, cap - in->len, f)) > 0) {
        in->len += n;
        if (in->len == cap) {
            char *p = cap < FILE_MAX ? realloc(in->data, cap * 2) : NULL;
            if (!p) {
                if (f != stdin)
                    fclose(f);
                return kix_err_set(err, KIX_ELIMIT, "%s is larger than %zu bytes", in->path,
                                   FILE_MAX);
            }
            in->data = p;
            cap *= 2;
        }
    }
    if (!in->data || ferror(f)) {
        int e = errno;
        if (f != stdin)
            fclose(f);
        return in->data ? kix_err_set(err, KIX_EIO, "reading %s: %s", in->path, strerror(e))
                        : kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    if (f != stdin)
        fclose(f);
    return KIX_OK;
}

/* Records a row not published; takes id. */
static int add_bad(struct import *im, size_t seq, size_t file, size_t row, size_t line, int skip,
                   const char *msg, json_t *id)
{
    struct bad_row *b = kix_array_grow(im->bad, &im->bad_cap, im->nbad, 16, sizeof(*b));
    if (!b) {
        json_decref(id);
        return KIX_ENOMEM;
    }
    im->bad = b;
    b = &im->bad[im->nbad];
    b->seq = seq;
    b->file = file;
    b->row = row;
    b->line = line;
    b->skip = skip;
    b->id = id;
    b->msg = strdup(msg);
    if (!b->msg) {
        json_decref(id);
        return KIX_ENOMEM;
    }
    im->nbad++;
    im->nskip += skip != 0;
    return KIX_OK;
}

/* Opens file i with the source (cursor fields zeroed first). */
static int cursor_open(struct import *im, size_t i, struct cursor *c, struct kix_err *err)
{
    memset(c, 0, sizeof(*c));
    c->im = im;
    c->file = i;
    im->path = im->inputs[i].path;
    return im->src->open(c, err);
}

/* ---- progress ------------------------------------------------------------------- */

static void progress(struct import *im, const char *what, size_t n, size_t total, const char *unit)
{
    char line[KIX_PROGRESS_LINE_MAX];
    size_t len;

    if (im->bar.what != what) /* a new phase: its own bar and rate */
        kix_progress_init(&im->bar, what, unit, im->progress, 0);
    len = kix_progress_line(&im->bar, n, total, line, sizeof(line));
    if (len) {
        fwrite(line, 1, len, stderr);
        fflush(stderr);
    }
}

static void progress_end(struct import *im)
{
    fputs(kix_progress_clear(&im->bar), stderr);
    im->bar.drawn = 0;
}

/* ---- pass 1: validation ------------------------------------------------------ */

static int validate(struct import *im, struct kix_err *err)
{
    struct kix_liger_run run;
    struct dset ids = {0};
    size_t total = 0, offset = 0;
    int rc = KIX_OK;

    kix_liger_run_init(&run);
    for (size_t i = 0; i < im->ninputs; i++)
        total += im->inputs[i].len;
    for (size_t i = 0; rc == KIX_OK && i < im->ninputs; i++) {
        struct cursor c;
        size_t row = 0;
        rc = cursor_open(im, i, &c, err);
        while (rc == KIX_OK) {
            struct kix_err rerr = {0};
            struct kix_digest id;
            json_t *ident = NULL;
            size_t first, line = 0;
            int r = im->src->next(&c, 0, &run, &line, &ident, &rerr);

            if (r == ROW_END)
                break;
            if (r < 0) {
                json_decref(ident);
                rc = kix_err_set(err, r, "%s: %s", im->path, rerr.msg[0] ? rerr.msg : "failed");
                break;
            }
            im->rows++;
            row++;
            if (r == ROW_BAD || r == ROW_SKIP) {
                rc = add_bad(im, im->rows, i, row, line, r == ROW_SKIP, rerr.msg, ident);
                continue;
            }
            kix_digest_of(run.external_id, strlen(run.external_id), &id);
            r = dset_put(&ids, &id, im->rows, &first);
            if (r == 1) {
                char msg[KIX_ERR_MSG_MAX];
                snprintf(msg, sizeof(msg),
                         "makes the same run as row %zu of the files (external id %.300s); two "
                         "rows for one run",
                         first, run.external_id);
                rc = add_bad(im, im->rows, i, row, line, 0, msg, ident);
            } else {
                json_decref(ident);
                if (r < 0)
                    rc = kix_err_set(err, r, "out of memory");
            }
            if ((im->rows & 255) == 0)
                progress(im, "checking", offset + (c.kb ? 0 : kix_csv_offset(&c.csv)), total,
                         "bytes");
        }
        im->src->close(&c);
        offset += im->inputs[i].len;
    }
    if (rc == KIX_ENOMEM && err && !err->msg[0])
        kix_err_set(err, rc, "out of memory");
    kix_liger_run_release(&run);
    dset_free(&ids);
    progress_end(im);
    return rc;
}

static void report_bad(const struct import *im, const char *intro)
{
    size_t shown = 0, invalid = im->nbad - im->nskip;
    if (invalid)
        fprintf(stderr, PROG ": %zu of %zu rows are invalid; %s\n", invalid, im->rows, intro);
    for (size_t i = 0; i < im->nbad && shown < SHOW_MAX; i++)
        if (!im->bad[i].skip) {
            fprintf(stderr, "  %s, row %zu, %s\n", im->inputs[im->bad[i].file].path, im->bad[i].row,
                    im->bad[i].msg);
            shown++;
        }
    if (invalid > SHOW_MAX)
        fprintf(stderr, "  ... and %zu more (--map FILE lists every one)\n", invalid - SHOW_MAX);
}

/* ---- the map ---------------------------------------------------------------------- */

static int map_line(struct import *im, json_t *obj)
{
    char *text;
    int rc = KIX_OK;
    if (!obj)
        return KIX_ENOMEM;
    text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!text)
        return KIX_ENOMEM;
    if (fprintf(im->map, "%s\n", text) < 0)
        rc = KIX_EIO;
    free(text);
    return rc;
}

/* Map lines for rows not published before `seq`. */
static int map_skipped_until(struct import *im, size_t seq)
{
    int rc = KIX_OK;
    while (rc == KIX_OK && im->next_bad < im->nbad && im->bad[im->next_bad].seq < seq) {
        const struct bad_row *b = &im->bad[im->next_bad++];
        json_t *o;
        if (!im->map)
            continue;
        /* the row's identity first, as the lines of runs */
        o = json_pack("{s:I}", "row", (json_int_t)b->row);
        if (o && b->id)
            json_object_update(o, b->id);
        if (o)
            json_object_set_new(o, "status",
                                json_string(b->skip || im->skip_bad ? "skipped" : "invalid"));
        if (o)
            json_object_set_new(o, "error", json_string(b->msg));
        if (o) /* last: the members before it are kix-import-liger's, in its order */
            json_object_set_new(o, "file", json_string(im->inputs[b->file].path));
        rc = map_line(im, o);
    }
    return rc;
}

static int map_item(struct import *im, const struct item *it, const char *status,
                    const struct kix_submit_result *res)
{
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_buf link = KIX_BUF_INIT;
    json_t *o;
    int rc = map_skipped_until(im, it->seq);

    if (rc || !im->map)
        return rc;
    kix_digest_format(&it->run.digest[KIX_LIGER_RUN], digest);
    o = json_pack("{s:I}", "row", (json_int_t)it->row);
    if (o && it->id)
        json_object_update(o, it->id);
    if (o)
        json_object_update_new(o, json_pack("{s:s, s:s, s:s, s:s}", "status", status, "runId",
                                            it->run.run_id, "digest", digest, "externalId",
                                            it->run.external_id));
    if (o && im->origin[0]) {
        if (kix_permalink(im->origin, it->run.run_id, &link) == KIX_OK)
            json_object_set_new(o, "permalink", json_string((const char *)link.ptr));
        kix_buf_release(&link);
    }
    if (o && res && res->code == KIX_OK)
        json_object_set_new(o, "index", json_integer((json_int_t)res->index));
    if (o && res && res->code != KIX_OK)
        json_object_set_new(o, "error", json_string(res->message));
    if (o) /* last: the members before it are kix-import-liger's, in its order */
        json_object_set_new(o, "file", json_string(im->inputs[it->file].path));
    return map_line(im, o);
}

/* ---- pass 2: publishing --------------------------------------------------------- */

/* Where a row is, for messages: "row 9, line 10" (a CSV) or the file and
 * the source's JSON pointer. */
static const char *row_where(const struct import *im, const struct item *it, char *buf, size_t cap)
{
    const char *ptr = json_string_value(json_object_get(it->id, "pointer"));
    if (ptr)
        snprintf(buf, cap, "%s %s (row %zu)", im->inputs[it->file].path, ptr, it->row);
    else
        snprintf(buf, cap, "row %zu, line %zu", it->row, it->run.line);
    return buf;
}

/* Checks a checkpoint note against the log key and the remembered one
 * (kix_trust_check), once per distinct note. */
static int check_checkpoint(struct import *im, const char *note, size_t len, struct kix_err *err)
{
    int rc;

    if (im->checked.len == len && memcmp(im->checked.ptr, note, len) == 0)
        return KIX_OK;
    rc = kix_trust_check(im->client, &im->log_key, note, len, NULL, err);
    if (rc)
        return rc;
    kix_buf_reset(&im->checked);
    return kix_buf_add(&im->checked, note, len);
}

/* The receipt of an accepted bundle must prove its envelope, at the index
 * the log answered, under a checkpoint consistent with the remembered one;
 * a new entry's receipt is then saved when --receipts asks. */
static int check_receipt(struct import *im, const struct item *it, const struct kix_bundle *b,
                         const struct kix_submit_result *res, struct kix_err *err)
{
    struct kix_receipt receipt;
    char path[4400];
    int rc;

    kix_receipt_init(&receipt);
    rc = kix_receipt_verify((const char *)res->receipt.ptr, res->receipt.len, &im->log_key,
                            b->envelope.ptr, b->envelope.len, &receipt, NULL, err);
    if (rc == KIX_OK && receipt.index != res->index)
        rc = kix_err_set(err, KIX_EVERIFY, "the receipt is for entry %llu, not %llu",
                         (unsigned long long)receipt.index, (unsigned long long)res->index);
    if (rc == KIX_OK)
        rc =
            check_checkpoint(im, (const char *)receipt.checkpoint.ptr, receipt.checkpoint.len, err);
    if (rc) {
        char at[600];
        kix_err_wrap(err, "%s (run %s): the receipt from %s does not verify",
                     row_where(im, it, at, sizeof(at)), it->run.run_id,
                     kix_client_where(im->client));
        goto out;
    }
    im->verified++;
    if (im->receipts && !res->duplicate) {
        snprintf(path, sizeof(path), "%s/%s.tlog-proof", im->receipts, it->run.run_id);
        rc = kix_file_write_atomic(path, res->receipt.ptr, res->receipt.len, 0644, err);
        if (rc)
            kix_err_wrap(err, "saving the receipt of row %zu", it->row);
    }
out:
    kix_receipt_release(&receipt);
    return rc;
}

struct stored_ctx {
    struct import *im;
};

static int note_stored(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct stored_ctx *s = ctx;
    (void)len;
    s->im->items[i].published = bytes != NULL;
    return 0;
}

/* Which runs of the batch are published already: a stored run manifest is
 * then proven, by the log's signed index (manifest/<hex>), to be the
 * manifest of this very run; one published under another run id is the
 * log's to refuse as usual. */
static int find_published(struct import *im, struct kix_err *err)
{
    struct kix_digest digests[BATCH_MAX];
    struct stored_ctx ctx = {im};
    int rc;

    for (size_t i = 0; i < im->nitems; i++) {
        digests[i] = im->items[i].run.digest[KIX_LIGER_RUN];
        im->items[i].published = 0;
    }
    rc = kix_client_get_objects(im->client, digests, im->nitems, note_stored, &ctx, err);
    for (size_t i = 0; rc == KIX_OK && i < im->nitems; i++) {
        struct item *it = &im->items[i];
        struct kix_index_answer a;
        char key[KIX_VINDEX_KEY_MAX + 1], run_id[KIX_RUN_ID_MAX + 1];
        uint64_t index = 0;

        if (!it->published)
            continue;
        kix_vindex_key_manifest(&it->run.digest[KIX_LIGER_RUN], key);
        memset(&a, 0, sizeof(a));
        rc = kix_client_index_proof(im->client, &im->log_key, key, &a, err);
        if (rc == KIX_OK)
            rc = check_checkpoint(im, (const char *)a.checkpoint.ptr, a.checkpoint.len, err);
        if (rc == KIX_OK && a.present)
            rc = kix_vindex_manifest_decode(a.record.ptr, a.record.len,
                                            &it->run.digest[KIX_LIGER_RUN], run_id, &index, err);
        it->published = rc == KIX_OK && a.present && strcmp(run_id, it->run.run_id) == 0;
        it->publication = index;
        kix_index_answer_release(&a);
        if (rc) {
            char at[600];
            kix_err_wrap(err, "%s (run %s): proving its manifest's publication",
                         row_where(im, it, at, sizeof(at)), it->run.run_id);
        }
    }
    return rc;
}

/* Whether stored manifest `old` is the row's run as an importer before
 * issue 37.5 wrote it: the same external id and figures, and the sweep in
 * its workload (no sourceNative.x). Its run id is the row's already. */
/* Member k of a and of b: both absent, or equal (json_equal is 0 on NULL). */
static int same_member(json_t *a, json_t *b, const char *k)
{
    json_t *x = json_object_get(a, k), *y = json_object_get(b, k);
    return (!x && !y) || json_equal(x, y);
}

static int earlier_form(const struct item *it, const uint8_t *old, size_t len)
{
    json_t *a = json_loadb((const char *)old, len, 0, NULL);
    json_t *b = json_loadb((const char *)it->run.canon[KIX_LIGER_RUN].ptr,
                           it->run.canon[KIX_LIGER_RUN].len, 0, NULL);
    json_t *as = json_object_get(a, "spec"), *bs = json_object_get(b, "spec");
    json_t *an = json_object_get(as, "sourceNative"), *bn = json_object_get(bs, "sourceNative");
    int same = an && bn && !json_object_get(an, "x") && json_object_get(bn, "externalId") &&
               same_member(an, bn, "externalId") && same_member(an, bn, "metrics") &&
               same_member(as, bs, "timing") && same_member(as, bs, "memory") &&
               same_member(as, bs, "measurements") && same_member(as, bs, "observedAt");
    json_decref(a);
    json_decref(b);
    return same;
}

struct earlier_ctx {
    struct import *im;
    size_t *which; /* item of each digest asked for */
};

static int note_earlier(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct earlier_ctx *e = ctx;
    struct item *it = &e->im->items[e->which[i]];
    if (bytes && earlier_form(it, bytes, len))
        it->published = it->earlier = 1;
    return 0;
}

/* Rows whose run id is published already with another manifest: when that
 * manifest is this row's as an earlier kix-import-liger wrote it (the
 * sweep in the workload), the row is published, its run kept as it is
 * (PROTOCOL.md §5.6); anything else is submitted, for the log to refuse
 * as a run id published with other figures. The run record is proven by
 * the signed index, the manifest by its digest. */
static int find_earlier(struct import *im, struct kix_err *err)
{
    struct kix_digest digests[BATCH_MAX];
    size_t which[BATCH_MAX], n = 0;
    struct earlier_ctx ctx = {im, which};
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < im->nitems; i++) {
        struct item *it = &im->items[i];
        struct kix_index_answer a;
        struct kix_vindex_run run;
        char key[KIX_VINDEX_KEY_MAX + 1];

        if (it->published)
            continue;
        kix_vindex_key_run(it->run.run_id, strlen(it->run.run_id), key);
        memset(&a, 0, sizeof(a));
        rc = kix_client_index_proof(im->client, &im->log_key, key, &a, err);
        if (rc == KIX_OK)
            rc = check_checkpoint(im, (const char *)a.checkpoint.ptr, a.checkpoint.len, err);
        if (rc == KIX_OK && a.present &&
            (rc = kix_vindex_run_decode(a.record.ptr, a.record.len, it->run.run_id, &run, err)) ==
                KIX_OK) {
            digests[n] = run.info.manifest;
            which[n++] = i;
            it->publication = run.info.publication_index;
        }
        kix_index_answer_release(&a);
        if (rc)
            kix_err_wrap(err, "row %zu, line %zu (run %s): proving its run's record", it->row,
                         it->run.line, it->run.run_id);
    }
    if (rc == KIX_OK && n)
        rc = kix_client_get_objects(im->client, digests, n, note_earlier, &ctx, err);
    return rc;
}

static int flush(struct import *im, struct kix_err *err)
{
    size_t nsubmit = 0;
    int rc, vrc = KIX_OK;

    if (im->nitems == 0)
        return KIX_OK;
    if (im->dry_run) {
        for (size_t i = 0; i < im->nitems; i++) {
            rc = map_item(im, &im->items[i], "checked", NULL);
            if (rc)
                return kix_err_set(err, rc, "writing the map: %s", kix_strerror(rc));
            for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
                if (dset_put(&im->kinds[k], &im->items[i].run.digest[k], 0, NULL) < 0)
                    return kix_err_set(err, KIX_ENOMEM, "out of memory");
        }
        im->done += im->nitems;
        im->nitems = 0;
        return KIX_OK;
    }
    rc = find_published(im, err);
    if (rc == KIX_OK)
        rc = find_earlier(im, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < im->nitems; i++) {
        struct item *it = &im->items[i];
        struct kix_bundle *b = &im->bundles[nsubmit];
        size_t n = 0;
        if (it->published)
            continue;
        for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
            if (k == KIX_LIGER_RUN || !dset_has(&im->stored, &it->run.digest[k]))
                it->objects[n++] = kix_buf_bytes(&it->run.canon[k]);
        b->envelope = kix_buf_bytes(&it->envelope);
        b->objects = it->objects;
        b->nobjects = n;
        nsubmit++;
    }
    rc = nsubmit ? kix_client_submit(im->client, im->bundles, nsubmit, im->results, err) : KIX_OK;
    if (rc) {
        kix_err_wrap(err, "submitting to %s", kix_client_where(im->client));
        return rc;
    }
    for (size_t i = 0, j = 0; i < im->nitems; i++) {
        struct item *it = &im->items[i];
        struct kix_submit_result published, *res = &published;
        const char *status = "refused";
        memset(&published, 0, sizeof(published));
        if (it->published) { /* proven above: as a duplicate of its publication */
            published.index = it->publication;
            published.duplicate = 1;
        } else {
            res = &im->results[j];
            if (vrc == KIX_OK && res->code == KIX_OK)
                vrc = check_receipt(im, it, &im->bundles[j], res, err);
            j++;
        }
        if (vrc) { /* stop: what follows is not reported as published */
            kix_submit_result_release(res);
            continue;
        }
        if (res->code == KIX_OK) {
            status = res->duplicate ? "duplicate" : "new";
            res->duplicate ? im->dups++ : im->fresh++;
            im->earlier += (size_t)it->earlier;
            /* an earlier form's objects are not these: none of them counted */
            for (int k = 0; !it->earlier && k < KIX_LIGER_NOBJECTS; k++) {
                if (k != KIX_LIGER_RUN && dset_put(&im->stored, &it->run.digest[k], 0, NULL) < 0)
                    rc = KIX_ENOMEM;
                if (dset_put(&im->kinds[k], &it->run.digest[k], 0, NULL) < 0)
                    rc = KIX_ENOMEM;
            }
        } else {
            im->refused++;
            char at[600];
            if (im->shown_refused++ < SHOW_MAX)
                fprintf(stderr, "%s" PROG ": %s (run %s): refused: %s\n",
                        kix_progress_clear(&im->bar), row_where(im, it, at, sizeof(at)),
                        it->run.run_id, res->message);
        }
        if (rc == KIX_OK)
            rc = map_item(im, it, status, res);
        kix_submit_result_release(res);
    }
    if (vrc)
        return vrc;
    if (rc)
        return kix_err_set(err, rc, "%s",
                           rc == KIX_EIO ? "writing the map failed" : "out of memory");
    im->done += im->nitems;
    im->nitems = 0;
    return KIX_OK;
}

static int publish(struct import *im, struct kix_err *err)
{
    size_t seq = 0, bad = 0;
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < im->ninputs; i++) {
        struct cursor c;
        size_t row = 0;
        rc = cursor_open(im, i, &c, err);
        while (rc == KIX_OK) {
            struct item *it = &im->items[im->nitems];
            json_t *ident = NULL;
            size_t line = 0;
            int r = im->src->next(&c, 1, &it->run, &line, &ident, err);

            if (r == ROW_END)
                break;
            seq++;
            row++;
            if (bad < im->nbad && im->bad[bad].seq == seq) {
                bad++;
                json_decref(ident);
                continue; /* reported in pass 1 */
            }
            if (r != ROW_RUN) {
                json_decref(ident);
                kix_err_wrap(err, "%s changed while it was read", im->path);
                rc = r < 0 ? r : KIX_EIO;
                break;
            }
            json_decref(it->id);
            it->id = ident;
            it->seq = seq;
            it->row = row;
            it->file = i;
            if (!im->dry_run) {
                kix_buf_reset(&it->envelope);
                /* publishedAt: now, when the log publishes it (the row's
                 * time, when it has one, is the run's spec.observedAt) */
                rc = kix_entry_publication(im->key, it->run.run_id, &it->run.digest[KIX_LIGER_RUN],
                                           NULL, im->src->source, im->src->license, &it->envelope,
                                           err);
            }
            if (rc)
                break;
            if (++im->nitems == im->batch) {
                rc = flush(im, err);
                progress(im, im->dry_run ? "building" : "importing", seq, im->rows, "rows");
            }
        }
        im->src->close(&c);
    }
    if (rc == KIX_OK)
        rc = flush(im, err);
    if (rc == KIX_OK && im->map) {
        rc = map_skipped_until(im, (size_t)-1);
        if (rc == KIX_OK && fflush(im->map) != 0)
            rc = KIX_EIO;
        if (rc)
            kix_err_set(err, rc, "writing the map: %s", kix_strerror(rc));
    }
    progress_end(im);
    return rc;
}

/* ---- summary ---------------------------------------------------------------------- */

static void summary(struct import *im, double secs)
{
    char what[512];
    size_t objs = 0;
    double rate = secs > 0 ? (double)im->done / secs : 0;
    for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
        objs += im->kinds[k].n;
    if (im->json) {
        json_t *o = json_pack(
            "{s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:f, "
            "s:f}",
            "file", im->inputs[0].path, "log", im->client ? kix_client_where(im->client) : "",
            "dryRun", im->dry_run, "rows", (json_int_t)im->rows, "skipped", (json_int_t)im->nbad,
            "runs", (json_int_t)(im->fresh + im->dups), "newEntries", (json_int_t)im->fresh,
            "duplicates", (json_int_t)im->dups, "refused", (json_int_t)im->refused, "objects",
            (json_int_t)objs, "objectsByKind", "runs", (json_int_t)im->kinds[KIX_LIGER_RUN].n,
            "protocols", (json_int_t)im->kinds[KIX_LIGER_PROTOCOL].n, "workloads",
            (json_int_t)im->kinds[KIX_LIGER_WORKLOAD].n, "environments",
            (json_int_t)im->kinds[KIX_LIGER_ENVIRONMENT].n, "implementations",
            (json_int_t)im->kinds[KIX_LIGER_IMPLEMENTATION].n, "seconds", secs, "runsPerSecond",
            rate);
        if (o) {
            json_t *files = json_array(), *skipped = json_array();
            for (size_t i = 0; files && i < im->ninputs; i++)
                json_array_append_new(files, json_string(im->inputs[i].path));
            for (size_t i = 0; skipped && i < im->nbad; i++) {
                const struct bad_row *b = &im->bad[i];
                json_t *r = json_pack("{s:s, s:I, s:s, s:s}", "file", im->inputs[b->file].path,
                                      "row", (json_int_t)b->row, "status",
                                      b->skip ? "skipped" : "invalid", "reason", b->msg);
                if (r && b->id)
                    json_object_update(r, b->id);
                json_array_append_new(skipped, r);
            }
            json_object_set_new(o, "source", json_string(im->src->name));
            json_object_set_new(o, "files", files ? files : json_array());
            json_object_set_new(o, "new", json_integer((json_int_t)im->fresh));
            json_object_set_new(o, "skippedRows", skipped ? skipped : json_array());
        }
        if (o && im->client) {
            json_object_set_new(o, "earlierForm", json_integer((json_int_t)im->earlier));
            json_object_set_new(o, "logSizeBefore", json_integer((json_int_t)im->size_before));
            json_object_set_new(o, "logSize", json_integer((json_int_t)im->size_after));
            json_object_set_new(o, "receiptsVerified", json_integer((json_int_t)im->verified));
        }
        char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(o);
        return;
    }
    if (im->ninputs > 1)
        snprintf(what, sizeof(what), "%zu files of %s", im->ninputs, im->src->what);
    else
        snprintf(what, sizeof(what), "%s", im->inputs[0].path);
    if (im->dry_run)
        printf("checked %s (nothing published)\n", what);
    else
        printf("imported %s into %s\n", what, kix_client_where(im->client));
    if (im->nskip)
        printf("  rows     %zu (%zu skipped as invalid, %zu skipped by the source)\n", im->rows,
               im->nbad - im->nskip, im->nskip);
    else
        printf("  rows     %zu (%zu skipped as invalid)\n", im->rows, im->nbad);
    if (!im->dry_run)
        printf("  runs     %zu: %zu new entries, %zu duplicates, %zu refused\n",
               im->fresh + im->dups, im->fresh, im->dups, im->refused);
    if (!im->dry_run && im->earlier)
        printf("  earlier  %zu of the duplicates published by an earlier kix-import-liger, the "
               "sweep in their workload: kept as they are (PROTOCOL.md 5.6)\n",
               im->earlier);
    printf("  objects  %zu (%zu runs, %zu protocols, %zu workloads, %zu environments, %zu "
           "implementations)\n",
           objs, im->kinds[KIX_LIGER_RUN].n, im->kinds[KIX_LIGER_PROTOCOL].n,
           im->kinds[KIX_LIGER_WORKLOAD].n, im->kinds[KIX_LIGER_ENVIRONMENT].n,
           im->kinds[KIX_LIGER_IMPLEMENTATION].n);
    if (!im->dry_run)
        printf("  log      %llu entries (was %llu); %zu receipts verified, checkpoint "
               "consistent\n",
               (unsigned long long)im->size_after, (unsigned long long)im->size_before,
               im->verified);
    printf("  time     %.2f s, %.0f runs/s\n", secs, rate);
    for (size_t i = 0, shown = 0; i < im->nbad; i++)
        if (im->bad[i].skip && shown++ < SHOW_MAX)
            printf("  skipped  %s: %s\n", im->inputs[im->bad[i].file].path, im->bad[i].msg);
}

/* ---- main ---------------------------------------------------------------------------- */

static int usage(const char *msg)
{
    fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n", msg);
    if (json_errors)
        json_error("usage", 2, msg, kix_strerror(KIX_EUSAGE), NULL);
    return 2;
}

static int setup(struct import *im, const char *key, const char *server, const char *store,
                 const char *log_key, struct kix_err *err)
{
    struct kix_client_info info;
    struct kix_buf note = KIX_BUF_INIT;
    int rc;

    im->items = calloc(im->batch, sizeof(*im->items));
    im->bundles = calloc(im->batch, sizeof(*im->bundles));
    im->results = calloc(im->batch, sizeof(*im->results));
    if (!im->items || !im->bundles || !im->results)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; i < im->batch; i++)
        kix_liger_run_init(&im->items[i].run);
    if (im->dry_run)
        return KIX_OK;
    rc = kix_keyfile_read(key, &im->key, err);
    if (rc) {
        kix_err_wrap(err, "reading the key %s", key);
        goto out;
    }
    /* a server's key is found before connecting; a store may hold its own */
    if (!store && (rc = kix_trust_log_key(log_key, NULL, &im->log_key, err)))
        goto out;
    rc = store ? kix_client_open_store(store, &im->client, err)
               : kix_client_open_addr(server, NULL, NULL, &im->client, err);
    if (rc)
        goto out;
    if (store && (rc = kix_trust_log_key(log_key, im->client, &im->log_key, err)))
        goto out;
    rc = kix_client_info(im->client, &info, err);
    if (rc) {
        kix_err_wrap(err, "asking %s for its origin", kix_client_where(im->client));
        goto out;
    }
    snprintf(im->origin, sizeof(im->origin), "%s", info.origin);
    /* nothing is submitted to a log inconsistent with what we verified */
    rc = kix_trust_latest(im->client, &im->log_key, &note, NULL, err);
    if (rc) {
        kix_err_wrap(err,
                     "checking %s against the log key and the remembered checkpoint; "
                     "nothing was published",
                     kix_client_where(im->client));
        goto out;
    }
    rc = kix_buf_add(&im->checked, note.ptr, note.len);
    if (rc)
        goto out;
    im->size_before = info.size;
    if (im->receipts && (rc = kix_dir_make(im->receipts, 0755, err)))
        kix_err_wrap(err, "--receipts %s", im->receipts);
out:
    kix_buf_release(&note);
    return rc;
}

/* The final checkpoint: consistent with the remembered one (kix_trust_check
 * remembers it when newer). */
static int finish(struct import *im, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    int rc = kix_trust_latest(im->client, &im->log_key, &note, &cp, err);

    if (rc)
        kix_err_wrap(err, "checking the final checkpoint of %s", kix_client_where(im->client));
    else
        im->size_after = cp.size;
    kix_buf_release(&note);
    return rc;
}

static void cleanup(struct import *im)
{
    for (size_t i = 0; im->items && i < im->batch; i++) {
        kix_liger_run_release(&im->items[i].run);
        kix_buf_release(&im->items[i].envelope);
        json_decref(im->items[i].id);
    }
    free(im->items);
    free(im->bundles);
    free(im->results);
    for (size_t i = 0; i < im->nbad; i++) {
        free(im->bad[i].msg);
        json_decref(im->bad[i].id);
    }
    free(im->bad);
    dset_free(&im->stored);
    for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
        dset_free(&im->kinds[k]);
    kix_buf_release(&im->checked);
    kix_client_close(im->client);
    kix_signer_free(im->key);
    kix_liger_cache_free(im->cache);
    kix_kb_problems_free(im->problems);
    for (size_t i = 0; i < im->ninputs; i++)
        free(im->inputs[i].data);
    free(im->inputs);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"key", required_argument, NULL, 'k'},
                                             {"server", required_argument, NULL, 's'},
                                             {"store", required_argument, NULL, 'S'},
                                             {"log-key", required_argument, NULL, 'L'},
                                             {"receipts", required_argument, NULL, 'R'},
                                             {"map", required_argument, NULL, 'm'},
                                             {"batch", required_argument, NULL, 'b'},
                                             {"skip-bad", no_argument, NULL, 'x'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"dry-run", no_argument, NULL, 'n'},
#ifndef KIX_IMPORT_FIXED_SOURCE
                                             {"problems", required_argument, NULL, 'P'},
                                             {"save-problems", required_argument, NULL, 'W'},
#endif
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    struct import im;
    struct kix_err err = {0};
    const char *key = NULL, *server = NULL, *store = NULL, *map = NULL, *log_key = NULL;
    const char *problems = NULL, *save_problems = NULL;
    char *end;
    int c, rc = KIX_OK, status = 0;

    memset(&im, 0, sizeof(im));
    im.batch = BATCH_DEFAULT;
    /* known before any option is read: a usage error is JSON too */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        json_errors |= strcmp(argv[i], "--json") == 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            key = optarg;
            break;
        case 's':
            server = optarg;
            break;
        case 'S':
            store = optarg;
            break;
        case 'm':
            map = optarg;
            break;
        case 'L':
            log_key = optarg;
            break;
        case 'R':
            im.receipts = optarg;
            break;
        case 'P':
            problems = optarg;
            break;
        case 'W':
            save_problems = optarg;
            break;
        case 'b':
            errno = 0;
            im.batch = strtoul(optarg, &end, 10);
            if (errno || *end || !*optarg || im.batch < 1 || im.batch > BATCH_MAX)
                return usage("--batch takes a number from 1 to 4096");
            break;
        case 'x':
            im.skip_bad = 1;
            break;
        case 'j':
            im.json = 1;
            break;
        case 'n':
            im.dry_run = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return 0;
        case 'V':
            puts(PROG " " KIX_VERSION_STRING);
            return 0;
        default:
            return usage("unknown option");
        }
    }
#ifdef KIX_IMPORT_FIXED_SOURCE
    im.src = &sources[0];
    if (optind + 1 != argc)
        return usage(optind == argc ? "name the CSV file to import" : "one CSV file at a time");
#else
    if (optind == argc)
        return usage("name the SOURCE (liger or kernelbench) and the files to import");
    for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
        if (strcmp(argv[optind], sources[i].name) == 0)
            im.src = &sources[i];
    if (!im.src)
        return usage("unknown SOURCE: liger (Liger-Kernel's benchmark CSV) or kernelbench "
                     "(KernelBench's baseline timing JSON)");
    optind++;
    if (im.src == &sources[1] && !problems)
        return usage("kernelbench needs --problems DIR (KernelBench's KernelBench/ directory of "
                     "level<N>/*.py, or an index saved with --save-problems): each run's "
                     "workload is bound to its problem file by digest");
    if (im.src != &sources[1] && (problems || save_problems))
        return usage("--problems and --save-problems are for the kernelbench source");
    if (save_problems && !problems)
        return usage("--save-problems FILE writes the index of --problems DIR");
    if (optind == argc && !save_problems)
        return usage(im.src == &sources[0] ? "name the CSV file(s) to import"
                                           : "name the timing JSON file(s) to import");
#endif
    if (server && store)
        return usage("--server and --store exclude each other");
    if (!key && !im.dry_run && optind < argc)
        return usage("--key KEY is required (the publisher's private key)");
    if (im.receipts && im.dry_run)
        return usage("--receipts has nothing to save on a --dry-run");
    if (!server && !store) /* as kix: $KIX_SERVER, then the default */
        server = getenv("KIX_SERVER") && *getenv("KIX_SERVER") ? getenv("KIX_SERVER")
                                                               : KIX_DEFAULT_SERVER;
    im.progress = kix_progress_wanted();
    clock_gettime(CLOCK_MONOTONIC, &im.t0);

    if (problems) {
        rc = kix_kb_problems_load(problems, &im.problems, &err);
        if (rc == KIX_OK && save_problems)
            rc = kix_kb_problems_save(im.problems, save_problems, &err);
        if (rc == KIX_OK && optind == argc) { /* --save-problems alone */
            if (im.json)
                printf("{\"problems\":%zu,\"saved\":\"%s\"}\n", kix_kb_problems_count(im.problems),
                       save_problems);
            else
                printf("saved the digests and sizes of %zu problems to %s\n",
                       kix_kb_problems_count(im.problems), save_problems);
            goto out;
        }
    }
    im.ninputs = (size_t)(argc - optind);
    im.inputs = calloc(im.ninputs ? im.ninputs : 1, sizeof(*im.inputs));
    if (!im.inputs)
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KIX_OK && i < im.ninputs; i++) {
        im.inputs[i].path = argv[optind + (int)i];
        rc = read_file(&im.inputs[i], &err);
    }
    im.path = im.ninputs ? im.inputs[0].path : "";
    if (rc == KIX_OK && kix_liger_cache_new(&im.cache))
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = setup(&im, key, server, store, log_key, &err);
    if (rc == KIX_OK)
        rc = validate(&im, &err);
    if (rc)
        goto out;
    if (im.nbad > im.nskip && !im.skip_bad) {
        report_bad(&im, "nothing was published (fix them, or pass --skip-bad to publish the rest)");
        status = 1;
        if (json_errors) {
            char msg[256];
            json_t *rows = json_array();
            for (size_t i = 0; rows && i < im.nbad; i++) {
                json_t *r;
                if (im.bad[i].skip)
                    continue;
                r = json_pack("{s:s, s:I, s:s}", "file", im.inputs[im.bad[i].file].path, "row",
                              (json_int_t)im.bad[i].row, "message", im.bad[i].msg);
                if (r && im.bad[i].id)
                    json_object_update(r, im.bad[i].id);
                json_array_append_new(rows, r);
            }
            snprintf(msg, sizeof(msg),
                     "%s: %zu of %zu rows are invalid; nothing was published (fix them, or pass "
                     "--skip-bad to publish the rest)",
                     im.ninputs > 1 ? "the files" : im.path, im.nbad - im.nskip, im.rows);
            json_error("invalidInput", 1, msg, kix_strerror(KIX_EINVAL),
                       json_pack("{s:o}", "invalidRows", rows ? rows : json_array()));
        }
        if (map && (im.map = fopen(map, "w")) != NULL)
            rc = map_skipped_until(&im, (size_t)-1); /* the rows not published only */
        if (rc)
            kix_err_set(&err, rc, "writing %s: %s", map, kix_strerror(rc));
        goto out;
    }
    if (im.nbad > im.nskip)
        report_bad(&im, "skipping them");
    if (map && !(im.map = fopen(map, "w")))
        rc = kix_err_set(&err, KIX_EIO, "cannot write %s: %s", map, strerror(errno));
    if (rc == KIX_OK)
        rc = publish(&im, &err);
    if (rc == KIX_OK && im.client)
        rc = finish(&im, &err);
    if (rc == KIX_OK) {
        summary(&im, since(&im.t0));
        if (im.refused)
            status = 1;
    }
out:
    if (im.map && fclose(im.map) != 0 && rc == KIX_OK) {
        rc = kix_err_set(&err, KIX_EIO, "writing %s: %s", map, strerror(errno));
    }
    if (rc)
        status = fail(rc, &err);
    cleanup(&im);
    return status;
}
