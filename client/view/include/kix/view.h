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
 * Memory: a view borrows the resolution it was built from (checkpoint,
 * entries, index proofs): keep that alive until kix_*_view_release. The
 * rest is owned by the view. JSON goes into a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such run or group), KIX_EINVAL (a malformed
 * run id or group key), KIX_ECORRUPT (a stored manifest does not parse),
 * KIX_ENOMEM, and whatever the object getter returns.
 */
#ifndef KIX_VIEW_H
#define KIX_VIEW_H

#include <jansson.h>

#include "kix/resolve.h"
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
    int have;  /* a median */
    int bytes; /* peak_memory in bytes, else latency in ns */
    uint64_t median, p20, p80;
    int have_p20, have_p80;
};
void kix_figures_of(json_t *manifest, struct kix_figures *out);
const char *kix_figures_metric(const struct kix_figures *f); /* "latency" | "peak_memory" */
const char *kix_figures_unit(const struct kix_figures *f);   /* "ns" | "bytes" */

/* A value for people: 11360 ns → "11.4 µs", 1610612736 bytes → "1.50 GiB".
 * Three significant figures from the unit up, whole numbers in the base unit;
 * the largest units are s and TiB; a negative value keeps its sign
 * ("-1.50 µs"). cap >= KIX_HUMAN_MAX. */
#define KIX_HUMAN_MAX 48
void kix_human(int64_t v, int bytes, char *out, size_t cap);

/* A Workload object's spec in one short line: its parameters as
 * name=value (the swept x first), its dtype; never the kernel. "" when
 * bytes is NULL or not a Workload. */
void kix_view_workload_words(const uint8_t *bytes, size_t len, char *out, size_t cap);

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
};

/* Builds *v from res (kept borrowed). log_key (may be NULL) is put in the
 * document; get reads each rerun's own manifest. */
int kix_run_view_build(struct kix_run_view *v, const struct kix_resolution *res,
                       const struct kix_verifier *log_key, kix_view_get_object_fn get, void *ctx,
                       struct kix_err *err) KIX_MUST_CHECK;
void kix_run_view_release(struct kix_run_view *v);

/* The store's own view of a run (kixd's pages): validates run_id (len
 * bytes), resolves it into *res from r (res initialised by the caller and
 * released by it after the view) and builds *v with r's log key. */
int kix_run_view_from_store(struct kix_log_reader *r, const char *run_id, size_t len,
                            struct kix_resolution *res, struct kix_run_view *v,
                            struct kix_err *err) KIX_MUST_CHECK;

/* The view as JSON: compact, keys sorted. KIX_VIEW_JSON_HTML escapes '/'
 * as "\/" so the text can sit in a <script> element. */
#define KIX_VIEW_JSON_HTML 1u
int kix_run_view_json(const struct kix_run_view *v, unsigned flags, struct kix_buf *out,
                      struct kix_err *err) KIX_MUST_CHECK;

/* The tlog-tiles paths of entry `index`'s level-0 tile and entry bundle
 * at tree size `size` ("" when they do not format). */
void kix_view_entry_paths(uint64_t index, uint64_t size, char tile[KIX_TLOG_PATH_MAX + 1],
                          char bundle[KIX_TLOG_PATH_MAX + 1]);

struct kix_group_row {
    uint64_t rank, value;
    char run_id[KIX_RUN_ID_MAX + 1];
    /* from its manifest and objects (the server's word: the page proves
     * rank, run and value) */
    char provider[64], observed[40];
    int evidence; /* enum kix_evidence */
    int have_p20, have_p80;
    uint64_t p20, p80;
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
    uint64_t best_value;        /* rank 1's, for speed-ups */
    struct kix_group_row *rows; /* best first, at most KIX_VIEW_GROUP_MAX */
    size_t nrows;
    /* the index's pages (kix/vindex.h) that hold the rows, with proofs */
    struct kix_group_view_page {
        char key[KIX_VINDEX_KEY_MAX + 1];
        char *record, *proof; /* hex, malloc'ed */
    } * pages;
    size_t npages;
};

/* The store's view of the group whose key is the digest text `key`: the
 * page of KIX_VIEW_GROUP_MAX rows from rank offset + 1 (KIX_ENOTFOUND for
 * no such group; an offset past the group gives no row). */
int kix_group_view_from_store(struct kix_log_reader *r, const char *key, size_t len,
                              uint64_t offset, struct kix_group_view *v,
                              struct kix_err *err) KIX_MUST_CHECK;
void kix_group_view_release(struct kix_group_view *v);
int kix_group_view_json(const struct kix_group_view *v, unsigned flags, struct kix_buf *out,
                        struct kix_err *err) KIX_MUST_CHECK;

/* The home page: one row per ranked group, in the order of kix query
 * (kernel, GPU, timed pass, metric, group key), with its size and best run
 * from the index; only the best run's manifest and objects are read, to
 * name the kernel, GPU and provider (the old page described every ranked
 * run, five JSON parses each). */
struct kix_home_row {
    char kernel[128], gpu[128], provider[128];
    char group[KIX_DIGEST_TEXT_LEN + 1];
    char best[KIX_RUN_ID_MAX + 1];
    uint64_t group_size;
};

struct kix_home_view {
    char origin[KIX_VIEW_ORIGIN_MAX];
    uint64_t tree_size, ranked_runs;
    struct kix_home_row *rows;
    size_t nrows;
};

int kix_home_view_from_store(struct kix_log_reader *r, struct kix_home_view *v,
                             struct kix_err *err) KIX_MUST_CHECK;
void kix_home_view_release(struct kix_home_view *v);

#endif
