/* kix/view.h — what a reader is shown about a run, a comparison group and
 * the log: one view model, built once from a resolution (verified by the
 * client, or the store's own), and its one JSON document (the "view",
 * proto/PROTOCOL.md §"Run pages"), which `kix show --json`, the pages'
 * /runs/<id>.json and the #kix-view element of every page print byte for
 * byte. The text of `kix show` (kix/view_text.h) and the HTML pages
 * (kix/web.h) are renderers over these structs; what a figure is, which
 * statistic is primary and how a number is written for people are decided
 * here and nowhere else.
 *
 * Storage: a view reads nothing but a struct kix_source (kix/source.h):
 * a client's verified resolution read through one, or, for a server's
 * pages (the *_from_source builders), its own store read as one
 * (kix_source_open_snapshot: one read snapshot for a page). The two build
 * a run's view the same way, kix_run_view_build over a resolution.
 *
 * Memory: a view borrows the resolution it was built from (checkpoint,
 * entries, index proofs): keep that alive until kix_*_view_release. The
 * rest is owned by the view. JSON goes into a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such run or group), KIX_EINVAL (a malformed
 * run id or group key), KIX_ECORRUPT (a stored manifest does not parse),
 * KIX_ENOMEM, KIX_ENOTSUP naming the source when it lacks an operation a
 * view needs (a group's or the home page's from a kixd or a static copy),
 * and whatever the object getter or the source returns.
 */
#ifndef KIX_VIEW_H
#define KIX_VIEW_H

#include "kix/api.h"

#include <jansson.h>

#include "kix/doc.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/tlog_path.h"

#define KIX_VIEW_RUN        "kix.run/1"   /* the run document's "view" */
#define KIX_VIEW_GROUP      "kix.group/1" /* the group document's */
#define KIX_VIEW_RERUNS_MAX 256u          /* reruns listed one by one */
#define KIX_VIEW_GROUP_MAX  100u          /* members a group view lists: one page */
#define KIX_VIEW_ORIGIN_MAX 256u

/* A run manifest's primary statistic: latency (ns) when it has
 * spec.timing.latencyNs.median, else peak memory (bytes). A negative or
 * non-integer median is no figure (have = 0); negative p20/p80 are left
 * out. The one place that decides it (the index ranks by the same). */
struct kix_figures {
    int have;                  /* a median */
    int bytes;                 /* peak_memory in bytes, else latency in ns */
    uint64_t median, p20, p80; /* median: the primary statistic's value (a mean when
                                  statistic says so) */
    const char *statistic;     /* "median" or "mean": which figure median holds */
    int have_p20, have_p80;
};
KIX_API void kix_figures_of(json_t *manifest, struct kix_figures *out);
KIX_API const char *kix_figures_metric(const struct kix_figures *f); /* "latency" | "peak_memory" */
KIX_API const char *kix_figures_unit(const struct kix_figures *f);   /* "ns" | "bytes" */

/* A value for people: 11360 ns → "11.4 µs", 1610612736 bytes → "1.50 GiB".
 * Three significant figures from the unit up, whole numbers in the base unit;
 * the largest units are s and TiB; a negative value keeps its sign
 * ("-1.50 µs"). cap >= KIX_HUMAN_MAX. */
#define KIX_HUMAN_MAX 48
KIX_API void kix_human(int64_t v, int bytes, char *out, size_t cap);

/* A Workload object's spec in one short line: its parameters as
 * name=value (the swept x first), its dtype; never the kernel. "" when
 * bytes is NULL or not a Workload. */
KIX_API void kix_view_workload_words(const uint8_t *bytes, size_t len, char *out, size_t cap);

/* Gets the stored object `d` (the client checks its digest). */
typedef int (*kix_view_get_object_fn)(void *ctx, const struct kix_digest *d, struct kix_buf *out,
                                      struct kix_err *err);

struct kix_rerun_view {
    uint64_t index;    /* its log entry */
    int outcome;       /* enum kix_evidence */
    char observed[40]; /* its manifest's spec.observedAt, else the entry's time */
    char status[32];
    char manifest_digest[KIX_DIGEST_TEXT_LEN + 1];
    uint8_t signer[32]; /* who reran: the key id of the rerun entry's signer */
    int self;           /* 1: the key that published the run signed it too */
    struct kix_figures figures;
    /* the rerun's own manifest as stored (its canonical bytes, whose digest
     * the signed rerun entry names): what a page's verifier proves the
     * figures from; owned by the view */
    struct kix_buf manifest;
};

/* An attestation about the run, as its verified entry gives it. */
struct kix_attestation_view {
    uint64_t index; /* its log entry */
    char date[40];  /* attestedAt */
    uint8_t signer[32];
    char text[256]; /* the attestation's note (cut at 255 bytes by kix_entry_describe) */
    int open_note;  /* from a key no registration names (PROTOCOL.md §5.4) */
};

/* One end of a supersession: the other run, the entry, its reason. */
struct kix_supersession_view {
    char run_id[KIX_RUN_ID_MAX + 1]; /* "" when none */
    uint64_t index;                  /* the supersession entry */
    char date[40];
    uint8_t signer[32];
    char reason[256];
};

/* The withdrawal in force (kix withdraw): the run is out of its group's
 * ranks until a reinstatement. index KIX_NO_INDEX: not withdrawn. */
struct kix_withdrawal_view {
    uint64_t index;     /* the withdrawal entry */
    const char *reason; /* invalid-timing, incorrect-result, duplicate, other */
    char date[40];
    uint8_t signer[32];
    int by_publisher; /* signed by the run's publisher, else by a curator */
    char note[256];
    char evidence[KIX_DIGEST_TEXT_LEN + 1]; /* "" when none */
};

/* A run's page in sections of rows in words (Identity, Correctness,
 * Workload, Measurements, Protocol, Environment, Artifacts): built once
 * (client/view/sections.c) and printed by kix show, the page and the JSON
 * alike. A value is never JSON: nested values are flattened into rows; the
 * one bracketed form is a tensor's shape ("bf16 [1, 32, 2048, 16]").
 * A row read from one field names it (object: "manifest" or the manifest's
 * object field such as "workloadDigest"; ptr: a JSON pointer in that
 * object; fmt: how the value was written from it, PROTOCOL.md "The view
 * documents"), so a verifier can recompute it; a row put together from
 * several fields has object "" and ptr "". */
#define KIX_VIEW_SECTIONS 7
struct kix_view_row {
    char label[96];
    char value[1024];
    const char *object; /* "manifest", "<field>Digest" or "" */
    char ptr[192];
    const char *fmt; /* text|count|ns|bytes|list|shape|gpu|date */
    /* a computed row's kind, which the page's verifier recomputes
     * (revision, observed, comparison-key, source, digest, swept,
     * software; PROTOCOL.md "The pages' verifier"); "" for a field row */
    const char *words;
};
struct kix_view_section {
    const char *title;
    char note[256];    /* a sentence before the rows, or "" */
    const char *empty; /* what to say when there are no rows and no note */
    struct kix_view_row *rows;
    size_t nrows, cap;
};

struct kix_view_object {
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    const char *kind; /* borrows json; "" when none */
    json_t *json;     /* NULL when it does not parse */
};

struct kix_run_view {
    const struct kix_resolution *res; /* borrowed */
    char origin[KIX_VIEW_ORIGIN_MAX];
    struct kix_buf permalink;
    struct kix_buf log_key; /* C2SP vkey text; len 0: absent from the document */
    char manifest_digest[KIX_DIGEST_TEXT_LEN + 1];
    json_t *manifest;
    const char *observed; /* the manifest's spec.observedAt (borrows manifest), or "" */
    struct kix_figures primary;
    int ranked;
    char group[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_rerun_view *reruns; /* the first KIX_VIEW_RERUNS_MAX */
    size_t nreruns;
    char reobserved[40]; /* the latest rerun's observation, or "" */
    size_t nobjects;
    struct kix_view_object objects[KIX_RESOLVE_MAX_OBJECTS];
    /* the publication entry, for the text page (not in the document) */
    char published[40], source[128], license[64];
    /* the header in words: implementation · kernel · workload · pass · GPU
     * · dtype (each "" when the records do not say), and all of them */
    char implementation[128], kernel[128], workload[512], pass[32], gpu[160], dtype[32];
    char title[1024];
    /* the evidence in words ("Reproduced by a controlled rerun on 2026-10-01"),
     * the date it rests on (the latest observation: rerun or the run's own) */
    char evidence_text[160];
    char last_observed[40];
    struct kix_attestation_view *attestations; /* the first KIX_VIEW_RERUNS_MAX */
    size_t nattestations;
    struct kix_supersession_view superseded_by, supersedes;
    struct kix_withdrawal_view withdrawn;
    struct kix_view_section sections[KIX_VIEW_SECTIONS];
};

/* Builds *v from res (kept borrowed). log_key (may be NULL) is put in the
 * document; get reads each rerun's own manifest. */
KIX_API int kix_run_view_build(struct kix_run_view *v, const struct kix_resolution *res,
                               const struct kix_verifier *log_key, kix_view_get_object_fn get,
                               void *ctx, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_run_view_release(struct kix_run_view *v);

/* "Not re-observed in 120 days." when the last observation is older than
 * stale_days at now (seconds since the epoch), else "" (out: cap >= 64). */
KIX_API void kix_run_view_staleness(const struct kix_run_view *v, long stale_days, int64_t now,
                                    char *out, size_t cap);

/* A field's value written as a section row writes it: fmt is one of
 * text, count, ns, bytes, list, shape, gpu, date (PROTOCOL.md "The view
 * documents"); "" when v does not fit it. */
KIX_API void kix_view_format(json_t *v, const char *fmt, char *out, size_t cap);

/* The sections of v (kept in v->sections; kix_run_view_build calls it). */
KIX_API int kix_run_view_sections(struct kix_run_view *v, struct kix_err *err) KIX_MUST_CHECK;

/* A server's view of a run (its pages), its store read as the source
 * src: validates run_id (len bytes), resolves it into *res through src
 * (res initialised by the caller and released by it after the view; the
 * store's own, not verified again) and builds *v with src's log key. */
KIX_API int kix_run_view_from_source(struct kix_source *src, const char *run_id, size_t len,
                                     struct kix_resolution *res, struct kix_run_view *v,
                                     struct kix_err *err) KIX_MUST_CHECK;

/* The view as JSON: compact, keys sorted. KIX_VIEW_JSON_HTML escapes '/'
 * as "\/" so the text can sit in a <script> element. KIX_VIEW_JSON_EXPORT
 * is a static copy's view, embedded in runs/<name>.html (PROTOCOL.md §3,
 * "The static copy's layout"): without what a reader derives from the
 * rest or reads from the copy's own files, so that the copy holds each
 * byte about once: no `manifest` (manifestCanonical parsed), no
 * `sections` (the page shows them), no `objects` (objects/<digest>) and
 * no `index` proofs (computed from index/notes/<treeSize> and the index
 * tiles). */
#define KIX_VIEW_JSON_HTML   1u
#define KIX_VIEW_JSON_EXPORT 2u
KIX_API int kix_run_view_json(const struct kix_run_view *v, unsigned flags, struct kix_buf *out,
                              struct kix_err *err) KIX_MUST_CHECK;

/* The tlog-tiles paths of entry `index`'s level-0 tile and entry bundle
 * at tree size `size` ("" when they do not format). */
KIX_API void kix_view_entry_paths(uint64_t index, uint64_t size, char tile[KIX_TLOG_PATH_MAX + 1],
                                  char bundle[KIX_TLOG_PATH_MAX + 1]);

struct kix_group_row {
    uint64_t rank, value;
    char run_id[KIX_RUN_ID_MAX + 1];
    /* from its manifest and objects */
    char implementation_name[128], provider[64], observed[40];
    char source[64]; /* sourceNative.source */
    int evidence;    /* enum kix_evidence */
    int have_p20, have_p80;
    uint64_t p20, p80;
    /* what proves them (malloc'ed, NULL where the store has none): the
     * run's index record and its proof (hex; only with an index), its
     * canonical manifest and the Implementation object the manifest
     * names (their stored canonical bytes, NUL-terminated) */
    char *run_record, *run_proof, *manifest, *implementation;
};

struct kix_group_view {
    struct kix_digest key;
    char group[KIX_DIGEST_TEXT_LEN + 1];
    char origin[KIX_VIEW_ORIGIN_MAX];
    uint64_t tree_size, size;
    struct kix_buf checkpoint, log_key, index_note; /* index_note.len 0: no index */
    char group_key[KIX_VINDEX_KEY_MAX + 1];
    char *group_record, *group_proof; /* hex, malloc'ed; NULL without an index */
    int bytes;                        /* the members' unit: bytes, else ns */
    uint64_t offset;                  /* rows are the ranks offset + 1 on */
    /* the group in words, from its best run: kernel, workload (its
     * parameters and dtype), timed pass, GPU */
    char kernel[64], workload[160], mode[16], gpu[64];
    /* what proves those words: the group's Workload and
     * ExecutionEnvironment objects (canonical, NUL-terminated, malloc'ed;
     * NULL where the store has none), the ones every member's manifest
     * names (the comparison key holds their digests) */
    char *workload_canonical, *environment_canonical;
    /* its source (sourceNative.source) and the statistic it ranks by
     * ("median", or "mean") */
    char source[64], statistic[8];
    uint64_t best_value;        /* rank 1's, for speed-ups */
    struct kix_group_row *rows; /* best first, at most KIX_VIEW_GROUP_MAX */
    size_t nrows;
    /* the index's pages (kix/vindex.h) that hold the rows, with proofs */
    struct kix_group_view_page {
        char key[KIX_VINDEX_KEY_MAX + 1];
        char *record, *proof; /* hex, malloc'ed */
    } * pages;
    size_t npages;
    /* the group's withdrawn runs (withdrawn/<hex>), by run id, with the
     * record (hex, malloc'ed; NULL when the index holds none) and its
     * proof, of membership or absence (NULL without an index) */
    struct kix_group_withdrawn {
        char run_id[KIX_RUN_ID_MAX + 1];
        uint64_t index;
        const char *reason;
    } * withdrawn;
    size_t nwithdrawn;
    char withdrawn_key[KIX_VINDEX_KEY_MAX + 1];
    char *withdrawn_record, *withdrawn_proof;
};

/* The view of the group whose key is the digest text `key`, from a
 * store read as the source src: the page of KIX_VIEW_GROUP_MAX rows from
 * rank offset + 1 (KIX_ENOTFOUND for no such group; an offset past the
 * group gives no row). */
KIX_API int kix_group_view_from_source(struct kix_source *src, const char *key, size_t len,
                                       uint64_t offset, struct kix_group_view *v,
                                       struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_group_view_release(struct kix_group_view *v);
/* The group view as JSON (flags: kix_run_view_json's). KIX_VIEW_JSON_EXPORT
 * is a static copy's groups/<key>.json: rows with the run and what the
 * table shows only (no manifest, Implementation object, run record or
 * proof) and no `index` proofs, which readers compute from the copy's
 * objects/ and index/ files. */
KIX_API int kix_group_view_json(const struct kix_group_view *v, unsigned flags, struct kix_buf *out,
                                struct kix_err *err) KIX_MUST_CHECK;

/* The home page: one row per ranked group, ordered by kernel, GPU, timed
 * pass, metric, dtype, workload, then group key, with its size and best
 * run from the index; only the best run's manifest and objects are read,
 * to name the kernel, GPU, pass, dtype, workload and implementation (the
 * rest of the group is counted by the index, never read). Kernels and
 * their GPUs are counted.
 *
 * The rows are cut into pages by their content, not their position: a
 * group whose digest's last 8 hex digits, as a number, are a multiple of
 * KIX_HOME_PAGE_EVERY is a mark; a row starts a page when it is a mark
 * and none of the KIX_HOME_PAGE_GAP - 1 rows before it is, or when its
 * page holds KIX_HOME_PAGE_MAX rows; the first row starts page 1. A page
 * is named by its first row's group digest (its 64 hex digits:
 * kix_home_view_page_name). Whether a row starts a page depends on the
 * rows just before it, not on where the page before began, so a new group
 * changes its own page alone (and, when it starts one or unmarks the
 * rows after it, the page beside it): pages cut every n rows would all
 * move after it, and a static copy would write them all again. About 40
 * rows a page, most between 16 and 80 (the gap keeps pages from being
 * small, and a page that a new row rewrites from being much longer than
 * the mean: tools/bench/RESULTS.md). */
#define KIX_VIEW_HOME       "kix.home/2"
#define KIX_HOME_PAGE_EVERY 16u
#define KIX_HOME_PAGE_GAP   16u
#define KIX_HOME_PAGE_MAX   256u
struct kix_home_row {
    char kernel[64], gpu[64], provider[64], implementation[64];
    char mode[16], metric[16], dtype[32];
    char workload[160]; /* the parameters in one line, kix__workload_words */
    char group[KIX_DIGEST_TEXT_LEN + 1];
    char best[KIX_RUN_ID_MAX + 1];
    uint64_t group_size, value; /* value: the best run's primary statistic */
    int bytes;                  /* value's unit: bytes, else ns */
    /* the best run's sourceNative.source: the group's (a group never mixes
     * sources: each source's protocols are its own), and which statistic
     * value is ("median", or "mean") */
    char source[64], statistic[8];
    /* the environment's metadata.labels.host ("" for none): two groups of
     * one GPU on two hosts (KernelBench's L40S) are told apart by it */
    char host[64];
};

/* A kernel, or a GPU under a kernel, with what is measured there. */
struct kix_home_count {
    char name[64];
    uint64_t groups, runs;
    size_t first_row;        /* its first row in the view's rows */
    size_t first_gpu, ngpus; /* a kernel's GPUs in the view's gpus */
};

struct kix_home_view {
    char origin[KIX_VIEW_ORIGIN_MAX];
    uint64_t tree_size, ranked_runs;
    struct kix_buf checkpoint; /* the signed checkpoint the view was read at */
    struct kix_home_row *rows;
    size_t nrows;
    struct kix_home_count *kernels, *gpus; /* gpus: by kernel, in row order */
    size_t nkernels, ngpus;
    size_t *page_first; /* each page's first row, in order; npages >= 1 */
    size_t npages;
};

KIX_API int kix_home_view_from_source(struct kix_source *src, struct kix_home_view *v,
                                      struct kix_err *err) KIX_MUST_CHECK;
/* The same, taking each row of `prev` (an earlier view of the same log;
 * may be NULL) whose group still has the same best run as it was: only
 * the changed groups' objects are read. */
KIX_API int kix_home_view_update(struct kix_source *src, const struct kix_home_view *prev,
                                 struct kix_home_view *v, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_home_view_release(struct kix_home_view *v);
/* Cuts v's rows (in home order) into pages as above, again: the view's
 * builders do; a caller that changed the rows does too. KIX_ENOMEM. */
KIX_API int kix_home_view_cut(struct kix_home_view *v) KIX_MUST_CHECK;
/* Its pages, at least 1 (an empty view has one, without rows). */
KIX_API size_t kix_home_view_pages(const struct kix_home_view *v);
/* Page `page`'s rows (1-based; page <= kix_home_view_pages): [*first, *last). */
KIX_API void kix_home_view_page_rows(const struct kix_home_view *v, size_t page, size_t *first,
                                     size_t *last);
/* Page `page`'s name: its first row's group digest in hex (64 digits,
 * without "sha256:"), pointing into the view; "" for an empty view's. */
KIX_API const char *kix_home_view_page_name(const struct kix_home_view *v, size_t page);
/* The page named `name` (len bytes), 1-based; 0 when no page has it. */
KIX_API size_t kix_home_view_page_named(const struct kix_home_view *v, const char *name,
                                        size_t len);
/* Every kernel's counts and its GPUs' ("kernels" of the home view): a new
 * JSON array, or NULL when out of memory. */
KIX_API json_t *kix_home_view_kernels_json(const struct kix_home_view *v);
/* The document of page `page` (1-based; KIX_ENOTFOUND past the last):
 * the counts of every kernel and GPU, and that page's rows (kixd's; a
 * static copy has no home view: its search shards hold the rows). */
KIX_API int kix_home_view_json(const struct kix_home_view *v, size_t page, unsigned flags,
                               struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* A kernel's page: the GPUs and passes it was measured on, its groups (in
 * home order), and its sweeps: runs that share pass, GPU, dtype, metric and
 * every workload parameter but the swept x (spec.x), one line per
 * implementation with its best run at each x (points by x, numbers first
 * by value, then text). Built from the home view (which names the
 * kernel's groups) and each of those groups' runs. */
#define KIX_VIEW_KERNEL "kix.kernel/1"
struct kix_kernel_point {
    double x; /* numeric x, else its position among the sweep's x texts */
    char x_text[32];
    uint64_t value;
    char run_id[KIX_RUN_ID_MAX + 1];
};

struct kix_kernel_line {
    char implementation[64], provider[64];
    size_t first_point, npoints; /* in the view's points */
};

struct kix_kernel_sweep {
    char gpu[64], mode[16], metric[16], dtype[32];
    char fixed[160]; /* the other parameters, in one line */
    char x_name[64], x_label[96];
    int bytes, numeric_x;      /* numeric_x: every x a number */
    size_t first_line, nlines; /* in the view's lines */
};

struct kix_kernel_view {
    char kernel[64];
    const struct kix_home_view *home; /* borrowed: the groups are its rows */
    size_t first_row, nrows;          /* the kernel's rows in home->rows */
    uint64_t runs;
    struct kix_kernel_sweep *sweeps;
    struct kix_kernel_line *lines;
    struct kix_kernel_point *points;
    size_t nsweeps, nlines, npoints;
};

/* KIX_ENOTFOUND when `home` ranks no run of kernel `kernel` (len bytes). */
KIX_API int kix_kernel_view_build(struct kix_source *src, const struct kix_home_view *home,
                                  const char *kernel, size_t len, struct kix_kernel_view *v,
                                  struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_kernel_view_release(struct kix_kernel_view *v);
KIX_API int kix_kernel_view_json(const struct kix_kernel_view *v, unsigned flags,
                                 struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* ---- what the pages of a log are written from (client/web) ---- */

/* The log's size and its latest checkpoint as signed (appended), the state
 * a server's pages are written at; src is a store read as a source. */
KIX_API int kix_view_log_state(struct kix_source *src, uint64_t *size, struct kix_buf *checkpoint,
                               struct kix_err *err) KIX_MUST_CHECK;
/* The log's verifier key text, appended (a static copy's log.vkey). */
KIX_API int kix_view_log_key(struct kix_source *src, struct kix_buf *out,
                             struct kix_err *err) KIX_MUST_CHECK;
/* The entries [start, start + count) through fn, to find what they are
 * about (kix_entry_describe): the pages an export rewrites. */
KIX_API int kix_view_entries(struct kix_source *src, uint64_t start, uint64_t count,
                             kix_entry_fn fn, void *ctx, struct kix_err *err) KIX_MUST_CHECK;
/* A run's index record (KIX_ENOTFOUND: the index holds no such run). */
KIX_API int kix_view_run(struct kix_source *src, const char *run_id,
                         struct kix_run_info *out) KIX_MUST_CHECK;
/* A group's ranked runs (fn may be NULL), best first; *size its size. */
KIX_API int kix_view_group_runs(struct kix_source *src, const struct kix_digest *key,
                                uint64_t offset, uint64_t limit, kix_group_fn fn, void *ctx,
                                uint64_t *size) KIX_MUST_CHECK;

#endif
