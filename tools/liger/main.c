/* kix-import-liger: publishes Liger-Kernel's benchmark CSV to a kix log.
 *
 * Two passes over the file: the first validates every row (and that no two
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
#include "kix/liger.h"
#include "kix/note.h"
#include "kix/progress.h"
#include "kix/receipt.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/trust.h"
#include "kix/vindex.h"
#include "kix/version.h"

#define PROG          "kix-import-liger"
#define BATCH_DEFAULT 256
#define BATCH_MAX     4096
#define SHOW_MAX      20 /* problems listed one by one before "... and N more" */
#define FILE_MAX      ((size_t)1 << 30)

static const char help[] =
    "usage: " PROG " --key KEY [--server ADDR | --store DIR] [--log-key KEY]\n"
    "                        [--receipts DIR] [--map FILE] [--batch N] [--skip-bad]\n"
    "                        [--json] [--dry-run] CSV\n"
    "\n"
    "Publishes Liger-Kernel's benchmark CSV (benchmark/data/all_benchmark_data.csv)\n"
    "to a kix log: every data row becomes one run, signed with KEY (which needs\n"
    "the publish role). Each run is a BenchmarkRun manifest that references, by\n"
    "digest, its BenchmarkProtocol, Workload, ExecutionEnvironment and\n"
    "Implementation (apiVersion kernelindex.dev/v1alpha1).\n"
    "\n"
    "The whole file is validated first: if any row is invalid, nothing is\n"
    "published and each bad row is reported with its line number, unless\n"
    "--skip-bad is given. Run ids derive from the row (its external id), so\n"
    "importing the same file again adds nothing (each run found published,\n"
    "proven by the log's signed index) and a newer file adds only new rows.\n"
    "The row's timestamp is the run's observedAt; the publication's\n"
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
    "  --map FILE      write one JSON line per data row: {\"row\", \"line\", \"status\",\n"
    "                  \"runId\", \"digest\", \"externalId\", \"permalink\", \"index\"}\n"
    "                  (row 1 is the first data line; status new, duplicate,\n"
    "                  refused, skipped, checked on a dry run, or invalid when\n"
    "                  the file was refused)\n"
    "  --batch N       runs per submission (one group commit), 1.."
    "4096, default 256\n"
    "  --skip-bad      publish the valid rows of a file with invalid ones, and\n"
    "                  report what was skipped\n"
    "  --json          print the summary as one JSON object\n"
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
    "(a fork or a rollback)\n";

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

struct bad_row {
    size_t row, line;
    char *msg;
};

struct item {
    size_t row;
    struct kix_liger_run run;
    struct kix_buf envelope;
    struct kix_bytes objects[KIX_LIGER_NOBJECTS];
    int published;        /* its manifest is already published as this run */
    uint64_t publication; /* at this log index (proven by the signed index) */
    int earlier;          /* ... in an earlier importer's form (find_earlier) */
};

struct import {
    const char *path;
    char *data;
    size_t len;
    struct kix_liger_header header;
    struct kix_liger_cache *cache;
    int skip_bad, json, dry_run, progress;
    struct kix_progress bar; /* the phase's bar (kix/progress.h) */
    size_t batch;
    FILE *map;

    size_t rows;
    struct bad_row *bad;
    size_t nbad, bad_cap;

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
    size_t nitems, next_map_row, next_bad;

    size_t done, fresh, dups, refused, shown_refused, earlier;
    struct timespec t0;
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

static const char *code_word(int code)
{
    switch (code) {
    case KIX_ENOMEM:
        return "outOfMemory";
    case KIX_EINVAL:
        return "invalidInput";
    case KIX_EIO:
        return "io";
    case KIX_ENOTFOUND:
        return "notFound";
    case KIX_EFULL:
        return "storeFull";
    case KIX_ECORRUPT:
        return "storeCorrupt";
    case KIX_EVERIFY:
        return "verificationFailed";
    case KIX_EPOLICY:
        return "refusedByPolicy";
    case KIX_ELIMIT:
        return "limitExceeded";
    case KIX_EPROTO:
        return "protocol";
    case KIX_EUSAGE:
        return "usage";
    case KIX_EUNAVAIL:
        return "unavailable";
    case KIX_EREADONLY:
        return "readOnly";
    case KIX_EFORK:
        return "inconsistentLog";
    case KIX_EEXIST:
        return "alreadyExists";
    case KIX_ENOTSUP:
        return "notSupported";
    }
    return "internal";
}

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
        json_error(code_word(code), status, kix_err_text(err, code), kix_strerror(code), NULL);
    return status;
}

static int read_file(struct import *im, struct kix_err *err)
{
    FILE *f = strcmp(im->path, "-") == 0 ? stdin : fopen(im->path, "rb");
    size_t cap = 1 << 20, n;

    if (!f)
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "cannot open %s: %s",
                           im->path, strerror(errno));
    im->data = malloc(cap);
    while (im->data && (n = fread(im->data + im->len, 1, cap - im->len, f)) > 0) {
        im->len += n;
        if (im->len == cap) {
            char *p = cap < FILE_MAX ? realloc(im->data, cap * 2) : NULL;
            if (!p) {
                if (f != stdin)
                    fclose(f);
                return kix_err_set(err, KIX_ELIMIT, "%s is larger than %zu bytes", im->path,
                                   FILE_MAX);
            }
            im->data = p;
            cap *= 2;
        }
    }
    if (!im->data || ferror(f)) {
        int e = errno;
        if (f != stdin)
            fclose(f);
        return im->data ? kix_err_set(err, KIX_EIO, "reading %s: %s", im->path, strerror(e))
                        : kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    if (f != stdin)
        fclose(f);
    return KIX_OK;
}

static int add_bad(struct import *im, size_t row, size_t line, const char *msg)
{
    struct bad_row *b = kix_array_grow(im->bad, &im->bad_cap, im->nbad, 16, sizeof(*b));
    if (!b)
        return KIX_ENOMEM;
    im->bad = b;
    im->bad[im->nbad].row = row;
    im->bad[im->nbad].line = line;
    im->bad[im->nbad].msg = strdup(msg);
    if (!im->bad[im->nbad].msg)
        return KIX_ENOMEM;
    im->nbad++;
    return KIX_OK;
}

/* Opens the CSV and checks its header. */
static int open_csv(struct import *im, struct kix_csv *csv, struct kix_err *err)
{
    struct kix_csv_record rec;
    int rc;

    kix_csv_init(csv, im->data, im->len);
    rc = kix_csv_next(csv, &rec, err);
    if (rc == 0)
        return kix_err_set(err, KIX_EINVAL, "%s is empty; expected a header line", im->path);
    if (rc >= 0)
        rc = kix_liger_header_parse(&rec, &im->header, err);
    if (rc)
        kix_err_wrap(err, "%s", im->path);
    return rc;
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
    struct kix_csv csv;
    struct kix_csv_record rec;
    struct kix_liger_run run;
    struct dset ids = {0};
    int rc = open_csv(im, &csv, err), r;

    kix_liger_run_init(&run);
    while (rc == KIX_OK) {
        struct kix_err rerr = {0};
        struct kix_digest id;
        size_t first;

        r = kix_csv_next(&csv, &rec, &rerr);
        if (r == 0)
            break;
        im->rows++;
        if (r < 0) {
            if (r == KIX_ENOMEM)
                rc = kix_err_set(err, r, "out of memory");
            else
                rc = add_bad(im, im->rows, rec.line, rerr.msg);
            continue;
        }
        r = kix_liger_check(im->cache, &im->header, &rec, &run, &rerr);
        if (r == KIX_ENOMEM) {
            rc = kix_err_set(err, r, "out of memory");
            break;
        }
        if (r) {
            rc = add_bad(im, im->rows, rec.line, rerr.msg);
            continue;
        }
        kix_digest_of(run.external_id, strlen(run.external_id), &id);
        r = dset_put(&ids, &id, rec.line, &first);
        if (r == 1) {
            char msg[KIX_ERR_MSG_MAX];
            snprintf(msg, sizeof(msg),
                     "line %zu: makes the same run as line %zu (external id %.300s); the file "
                     "has two rows for one run",
                     rec.line, first, run.external_id);
            rc = add_bad(im, im->rows, rec.line, msg);
        } else if (r < 0) {
            rc = kix_err_set(err, r, "out of memory");
        }
        if ((im->rows & 255) == 0)
            progress(im, "checking", kix_csv_offset(&csv), im->len, "bytes");
    }
    if (rc == KIX_ENOMEM && err && !err->msg[0])
        kix_err_set(err, rc, "out of memory");
    kix_liger_run_release(&run);
    kix_csv_release(&csv);
    dset_free(&ids);
    progress_end(im);
    return rc;
}

static void report_bad(const struct import *im, const char *intro)
{
    fprintf(stderr, PROG ": %s: %zu of %zu rows are invalid; %s\n", im->path, im->nbad, im->rows,
            intro);
    for (size_t i = 0; i < im->nbad && i < SHOW_MAX; i++)
        fprintf(stderr, "  row %zu, %s\n", im->bad[i].row, im->bad[i].msg);
    if (im->nbad > SHOW_MAX)
        fprintf(stderr, "  ... and %zu more (--map FILE lists every one)\n", im->nbad - SHOW_MAX);
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

/* Map lines for skipped rows before `row`. */
static int map_skipped_until(struct import *im, size_t row)
{
    int rc = KIX_OK;
    while (rc == KIX_OK && im->next_bad < im->nbad && im->bad[im->next_bad].row < row) {
        const struct bad_row *b = &im->bad[im->next_bad++];
        if (im->map)
            rc = map_line(im, json_pack("{s:I, s:I, s:s, s:s}", "row", (json_int_t)b->row, "line",
                                        (json_int_t)b->line, "status",
                                        im->skip_bad ? "skipped" : "invalid", "error", b->msg));
    }
    return rc;
}

static int map_item(struct import *im, const struct item *it, const char *status,
                    const struct kix_submit_result *res)
{
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_buf link = KIX_BUF_INIT;
    json_t *o;
    int rc = map_skipped_until(im, it->row);

    if (rc || !im->map)
        return rc;
    kix_digest_format(&it->run.digest[KIX_LIGER_RUN], digest);
    o = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s}", "row", (json_int_t)it->row, "line",
                  (json_int_t)it->run.line, "status", status, "runId", it->run.run_id, "digest",
                  digest, "externalId", it->run.external_id);
    if (o && im->origin[0]) {
        if (kix_permalink(im->origin, it->run.run_id, &link) == KIX_OK)
            json_object_set_new(o, "permalink", json_string((const char *)link.ptr));
        kix_buf_release(&link);
    }
    if (o && res && res->code == KIX_OK)
        json_object_set_new(o, "index", json_integer((json_int_t)res->index));
    if (o && res && res->code != KIX_OK)
        json_object_set_new(o, "error", json_string(res->message));
    return map_line(im, o);
}

/* ---- pass 2: publishing --------------------------------------------------------- */

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
        kix_err_wrap(err, "row %zu, line %zu (run %s): the receipt from %s does not verify",
                     it->row, it->run.line, it->run.run_id, kix_client_where(im->client));
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
        if (rc)
            kix_err_wrap(err, "row %zu, line %zu (run %s): proving its manifest's publication",
                         it->row, it->run.line, it->run.run_id);
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
            if (im->shown_refused++ < SHOW_MAX)
                fprintf(stderr, "%s" PROG ": row %zu, line %zu (run %s): refused: %s\n",
                        kix_progress_clear(&im->bar), it->row, it->run.line, it->run.run_id,
                        res->message);
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
    struct kix_csv csv;
    struct kix_csv_record rec;
    size_t row = 0, bad = 0;
    int rc = open_csv(im, &csv, err), r;

    while (rc == KIX_OK) {
        struct item *it;
        r = kix_csv_next(&csv, &rec, err);
        if (r == 0)
            break;
        row++;
        if (bad < im->nbad && im->bad[bad].row == row) {
            bad++;
            continue; /* reported in pass 1 */
        }
        if (r < 0) {
            kix_err_wrap(err, "%s changed while it was read", im->path);
            rc = r;
            break;
        }
        it = &im->items[im->nitems];
        it->row = row;
        rc = kix_liger_build(im->cache, &im->header, &rec, &it->run, err);
        if (rc == KIX_OK && !im->dry_run) {
            kix_buf_reset(&it->envelope);
            /* publishedAt: now, when the log publishes it (the row's
             * time is the run's spec.observedAt) */
            rc =
                kix_entry_publication(im->key, it->run.run_id, &it->run.digest[KIX_LIGER_RUN], NULL,
                                      KIX_LIGER_SOURCE, KIX_LIGER_LICENSE, &it->envelope, err);
        }
        if (rc)
            break;
        if (++im->nitems == im->batch) {
            rc = flush(im, err);
            progress(im, im->dry_run ? "building" : "importing", row, im->rows, "rows");
        }
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
    kix_csv_release(&csv);
    return rc;
}

/* ---- summary ---------------------------------------------------------------------- */

static void summary(struct import *im, double secs)
{
    size_t objs = 0;
    double rate = secs > 0 ? (double)im->done / secs : 0;
    for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
        objs += im->kinds[k].n;
    if (im->json) {
        json_t *o = json_pack(
            "{s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:f, "
            "s:f}",
            "file", im->path, "log", im->client ? kix_client_where(im->client) : "", "dryRun",
            im->dry_run, "rows", (json_int_t)im->rows, "skipped", (json_int_t)im->nbad, "runs",
            (json_int_t)(im->fresh + im->dups), "newEntries", (json_int_t)im->fresh, "duplicates",
            (json_int_t)im->dups, "refused", (json_int_t)im->refused, "objects", (json_int_t)objs,
            "objectsByKind", "runs", (json_int_t)im->kinds[KIX_LIGER_RUN].n, "protocols",
            (json_int_t)im->kinds[KIX_LIGER_PROTOCOL].n, "workloads",
            (json_int_t)im->kinds[KIX_LIGER_WORKLOAD].n, "environments",
            (json_int_t)im->kinds[KIX_LIGER_ENVIRONMENT].n, "implementations",
            (json_int_t)im->kinds[KIX_LIGER_IMPLEMENTATION].n, "seconds", secs, "runsPerSecond",
            rate);
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
    if (im->dry_run)
        printf("checked %s (nothing published)\n", im->path);
    else
        printf("imported %s into %s\n", im->path, kix_client_where(im->client));
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
    }
    free(im->items);
    free(im->bundles);
    free(im->results);
    for (size_t i = 0; i < im->nbad; i++)
        free(im->bad[i].msg);
    free(im->bad);
    dset_free(&im->stored);
    for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
        dset_free(&im->kinds[k]);
    kix_buf_release(&im->checked);
    kix_client_close(im->client);
    kix_signer_free(im->key);
    kix_liger_cache_free(im->cache);
    free(im->data);
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
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    struct import im;
    struct kix_err err = {0};
    const char *key = NULL, *server = NULL, *store = NULL, *map = NULL, *log_key = NULL;
    char *end;
    int c, rc, status = 0;

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
    if (optind + 1 != argc)
        return usage(optind == argc ? "name the CSV file to import" : "one CSV file at a time");
    if (server && store)
        return usage("--server and --store exclude each other");
    if (!key && !im.dry_run)
        return usage("--key KEY is required (the publisher's private key)");
    if (im.receipts && im.dry_run)
        return usage("--receipts has nothing to save on a --dry-run");
    if (!server && !store) /* as kix: $KIX_SERVER, then the default */
        server = getenv("KIX_SERVER") && *getenv("KIX_SERVER") ? getenv("KIX_SERVER")
                                                               : KIX_DEFAULT_SERVER;
    im.path = argv[optind];
    im.progress = kix_progress_wanted();
    clock_gettime(CLOCK_MONOTONIC, &im.t0);

    rc = read_file(&im, &err);
    if (rc == KIX_OK && kix_liger_cache_new(&im.cache))
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = setup(&im, key, server, store, log_key, &err);
    if (rc == KIX_OK)
        rc = validate(&im, &err);
    if (rc)
        goto out;
    if (im.nbad && !im.skip_bad) {
        report_bad(&im, "nothing was published (fix them, or pass --skip-bad to publish the rest)");
        status = 1;
        if (json_errors) {
            char msg[256];
            json_t *rows = json_array();
            for (size_t i = 0; rows && i < im.nbad; i++)
                json_array_append_new(rows,
                                      json_pack("{s:I, s:s}", "row", (json_int_t)im.bad[i].row,
                                                "message", im.bad[i].msg));
            snprintf(msg, sizeof(msg),
                     "%s: %zu of %zu rows are invalid; nothing was published (fix them, or pass "
                     "--skip-bad to publish the rest)",
                     im.path, im.nbad, im.rows);
            json_error("invalidInput", 1, msg, kix_strerror(KIX_EINVAL),
                       json_pack("{s:o}", "invalidRows", rows ? rows : json_array()));
        }
        if (map && (im.map = fopen(map, "w")) != NULL)
            rc = map_skipped_until(&im, (size_t)-1); /* the invalid rows only */
        if (rc)
            kix_err_set(&err, rc, "writing %s: %s", map, kix_strerror(rc));
        goto out;
    }
    if (im.nbad)
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
