/* kix/index.h — the benchmark index: runs, evidence, comparison groups,
 * ranks and queries, derived from the log's entries.
 *
 * The index lives in the log's own store and follows it entry by entry
 * (struct kix_log_indexer, kix/log_txn.h): a publication makes a run, a
 * rerun sets its evidence, an attestation counts, a supersession retires a
 * run from its ranking and points at its successor, a withdrawal takes it
 * out of its ranking until a reinstatement, and a comparable run
 * (kix/manifest.h) enters its comparison group. Its rules refuse an entry
 * with KIX_EPOLICY (a run id published twice, an attestation of an unknown
 * run, a supersession by another publisher...). Open a log through
 * kix_index_open / kix_index_create so that its index is always kept.
 *
 * Reading: every kix_index_* call reads one struct kix_log_reader snapshot,
 * so runs, ranks and entries agree with one tree size.
 *
 * Memory: outputs are caller-owned structs; kix_index_run_entries returns
 * a malloc'ed array (the caller frees). Errors: KIX_ENOTFOUND (no such run
 * or group), KIX_EPOLICY (an entry refused), KIX_ECORRUPT (a record does
 * not decode), KIX_EIO, KIX_ENOMEM.
 */
#ifndef KIX_INDEX_H
#define KIX_INDEX_H

#include "kix/api.h"

#include "kix/log.h"
#include "kix/log_txn.h"
#include "kix/manifest.h"

/* The indexer to put in struct kix_log_opts (the _open/_create calls below
 * do it for you). */
KIX_API const struct kix_log_indexer *kix_index_indexer(void);

/* Whether log's index is in this indexer's format (or the log keeps none):
 * 1, or 0 when another kix wrote it (format gets that format's name, e.g.
 * "kix-index/7"). A writable open rebuilds such an index from the log; a
 * read-only open reads it as none (no runs, no index notes), so a reader
 * that needs it should refuse and name kixd migrate. An unreadable format
 * record answers 1: the index's own reads say what is wrong. */
KIX_API int kix_index_current(struct kix_log *log, char *format, size_t cap);

/* Run manifests the indexer's writer (check and apply, as the origin
 * appends or a replica replays) parsed itself, in this process, because
 * prepare left it no memo of them (a manifest stored before, or a rebuild
 * from the stored log): a diagnostic, and what tests read to see that the
 * single-threaded writer parses no manifest that prepare parsed already. */
KIX_API uint64_t kix_index_writer_manifest_parses(void);

/* Times this process read whether a store's run records are kix-index/9's
 * (whether it numbers their keys), which it does once a transaction, not
 * once a record: a diagnostic, and what tests read to see that. */
KIX_API uint64_t kix_index_numbers_reads(void);

/* kix_log_create, kix_log_create_replica and kix_log_open with the index
 * (opts may be NULL: defaults). */
KIX_API int kix_index_create(const char *dir, const char *origin, const uint8_t admin_pub[32],
                             const struct kix_log_opts *opts, struct kix_buf *log_vkey,
                             struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_index_create_replica(const char *dir, const struct kix_verifier *log_key,
                                     const struct kix_log_opts *opts,
                                     struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_index_open(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                           struct kix_err *err) KIX_MUST_CHECK;
/* kix_index_open of the origin when DIR/log.key exists, else of a replica
 * (a mirror's store, which has no log key). */
KIX_API int kix_index_open_any(const char *dir, const struct kix_log_opts *opts,
                               struct kix_log **out, struct kix_err *err) KIX_MUST_CHECK;

struct kix_run_info {
    char run_id[KIX_RUN_ID_MAX + 1];
    struct kix_digest manifest;
    uint8_t publisher[32]; /* key id of the publisher */
    uint64_t publication_index;
    uint64_t superseded_by_index; /* KIX_NO_INDEX when not superseded */
    uint64_t supersedes_index;    /* the supersession that made this run a successor */
    /* the withdrawal in force (none since, or reinstated since: KIX_NO_INDEX);
     * a withdrawn run is in no comparison group's ranks */
    uint64_t withdrawn_index;
    int evidence;            /* enum kix_evidence */
    uint64_t evidence_index; /* the rerun that set it, KIX_NO_INDEX if none */
    uint64_t attestations;
    uint64_t reruns;
    /* comparison group (see kix_index_rank); grouped = 0 when the
     * manifest is not a comparable BenchmarkRun or the run was superseded
     * or is withdrawn */
    int grouped;
    struct kix_digest comparison_key;
    uint64_t value; /* the primary statistic: latency ns or peak bytes; lower is better */
    /* every entry about the run, committed (kix/vindex.h): how many, and
     * the chain hash over their indexes and leaf hashes in log order */
    uint64_t entries;
    struct kix_hash entries_chain;
};

/* By run id, or by the digest of its manifest. KIX_ENOTFOUND when unknown. */
KIX_API int kix_index_run(struct kix_log_reader *r, const char *run_id, size_t len,
                          struct kix_run_info *out);
KIX_API int kix_index_run_by_digest(struct kix_log_reader *r, const struct kix_digest *d,
                                    struct kix_run_info *out);

struct kix_rank {
    uint64_t rank;       /* 0 when the run is not ranked */
    uint64_t group_size; /* runs ranked in the group */
    char best[KIX_RUN_ID_MAX + 1];
    uint64_t best_value;
};

KIX_API int kix_index_rank(struct kix_log_reader *r, const struct kix_run_info *run,
                           struct kix_rank *out) KIX_MUST_CHECK;

/* The runs of a group, best first, from position `offset` (0-based), at
 * most `limit`, through fn; *size gets the group's size. */
typedef int (*kix_group_fn)(void *ctx, uint64_t rank, const char *run_id, uint64_t value);
KIX_API int kix_index_group(struct kix_log_reader *r, const struct kix_digest *key, uint64_t offset,
                            uint64_t limit, kix_group_fn fn, void *ctx,
                            uint64_t *size) KIX_MUST_CHECK;

/* Every ranked group's key in key order from `after` (NULL: the first). */
typedef int (*kix_groups_fn)(void *ctx, const struct kix_digest *key);
KIX_API int kix_index_groups(struct kix_log_reader *r, kix_groups_fn fn, void *ctx) KIX_MUST_CHECK;

/* Ranked runs filtered by kernel (K: K and its family, K followed by one
 * of "_-./"; "K*": prefix), GPU (the query's words, cut at anything not a
 * letter or digit, equal words of the product name and form factor in
 * order; vendor words optional), provider, timed pass, metric and dtype
 * (each NULL: any; case-insensitive), or one group. A query with filters
 * is answered from the selection records (kix/selection.h). Groups are ordered by
 * kernel, GPU, timed pass, metric, then group key; runs best first within
 * a group; `offset`/`limit` page through the matches in that order. */
struct kix_query {
    const char *kernel, *gpu, *provider, *mode, *metric; /* metric: latency | peak_memory */
    const char *dtype; /* the Workload's spec.dtype, e.g. bfloat16 (selection records only) */
    const struct kix_digest *group;
    uint64_t offset, limit;
};

struct kix_query_row {
    char run_id[KIX_RUN_ID_MAX + 1];
    struct kix_digest manifest;
    struct kix_digest group;
    uint64_t rank, group_size, value;
    int evidence;
    char kernel[64], gpu[64], provider[64], mode[16], metric[16];
    /* the manifest's sourceNative.source (the group's source: groups never
     * mix sources, their protocols differ), and the primary statistic the
     * value is ("median", or "mean" when the timing says so) */
    char source[64], statistic[8];
};

/* What a row says besides its rank is derived from objects: its manifest,
 * and the Workload, ExecutionEnvironment and Implementation the manifest
 * names. A client recomputes it from objects it verified by digest. */
enum { KIX_QUERY_WORKLOAD, KIX_QUERY_ENVIRONMENT, KIX_QUERY_IMPLEMENTATION, KIX_QUERY_NREFS };
/* The digests of those objects (all zero where the manifest names none). */
KIX_API void kix_query_row_refs(const uint8_t *manifest, size_t len,
                                struct kix_digest refs[KIX_QUERY_NREFS]);
/* Fills row's kernel, gpu, provider, mode and metric, and gpu_full (what
 * --gpu matches), from the manifest and objs (ptr NULL: the object is
 * missing, its fields empty). */
KIX_API void kix_query_row_describe(const uint8_t *manifest, size_t len,
                                    const struct kix_bytes objs[KIX_QUERY_NREFS],
                                    struct kix_query_row *row, char *gpu_full, size_t gpu_cap);

/* The order of a query's rows (qsort's comparator over struct
 * kix_query_row): by kernel, GPU, timed pass, metric (case-insensitive),
 * group key, then rank. */
KIX_API int kix_query_row_order(const void *a, const void *b);

typedef int (*kix_query_fn)(void *ctx, const struct kix_query_row *row);
/* *matched (may be NULL) counts every match, also beyond the page. */
KIX_API int kix_index_query(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn,
                            void *ctx, uint64_t *matched) KIX_MUST_CHECK;

struct kix_run_entry {
    uint64_t index;
    int type; /* enum kix_entry_type */
};

/* Every entry about a run, in log order, into a malloc'ed array. */
KIX_API int kix_index_run_entries(struct kix_log_reader *r, const char *run_id, size_t len,
                                  struct kix_run_entry **out, size_t *n) KIX_MUST_CHECK;

/* ---- findings: what an older origin logged against today's rules ---------
 *
 * An origin refuses, on submission, entries its rules forbid; a replica
 * (a mirror, kix audit's) and a rebuilt index take what the upstream
 * logged under the rules of its time, and the index derives evidence by
 * today's rules all the same (a rerun signed by the run's own publisher is
 * never evidence). Each replayed entry that today's origin rules would
 * refuse is a finding, kept by the index in log order. */
enum kix_finding_rule {
    KIX_FINDING_RUN_ID = 1,    /* a publication's run id outside the grammar (PROTOCOL.md §5.3) */
    KIX_FINDING_SELF_RERUN = 2 /* a controlled rerun signed by the run's own publisher */
};

struct kix_finding {
    uint64_t index;   /* the entry's log index */
    int rule;         /* enum kix_finding_rule */
    const char *name; /* the rule's name: "run-id", "self-rerun" */
    const char *text; /* what the entry does and why the rule refuses it */
};

/* The findings at log indexes >= from, in log order, through fn (return
 * non-zero to stop: 1 with KIX_OK, a negative KIX_E* code with it); *n
 * (may be NULL) counts those seen. */
typedef int (*kix_finding_fn)(void *ctx, const struct kix_finding *f);
KIX_API int kix_index_findings(struct kix_log_reader *r, uint64_t from, kix_finding_fn fn,
                               void *ctx, uint64_t *n) KIX_MUST_CHECK;
KIX_API const char *kix_finding_rule_name(int rule);

/* ---- checking the index against the log ----------------------------------
 *
 * kix_index_check() recomputes, from the entries of one snapshot, every
 * run's record (evidence, counts, supersession, comparison group and
 * value) and entry list, and compares them with the stored index, and
 * every group record with the ranked runs: an edited record, entry list or
 * group (a rank that is only the server's word) is reported through
 * opts->issue as kix_log_check reports (tables "runs", "run_entries",
 * "groups"). The recomputed runs are held in memory (about 300 bytes a run).
 * KIX_OK, KIX_ECORRUPT when problems were found (err: how many and the
 * first), or the code that stopped the check. */
struct kix_index_check_stats {
    uint64_t entries; /* entries replayed */
    uint64_t runs;    /* run records recomputed and compared */
    uint64_t ranked;  /* runs in a comparison group */
    uint64_t issues;
    uint64_t findings; /* entries today's origin rules refuse (opts->finding) */
};

KIX_API int kix_index_check(struct kix_log *l, const struct kix_check_opts *opts,
                            struct kix_index_check_stats *stats,
                            struct kix_err *err) KIX_MUST_CHECK;

#endif
