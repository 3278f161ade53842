/* kix/client.h — one interface to a kix log, whatever its source.
 *
 * A struct kix_client reads and writes a log through one source
 * (kix/source.h): a store directory on this machine (kix_client_open_store:
 * the log's own files, as kixd would), a kixd over TCP or a Unix socket
 * (kix_client_connect: "tcp://host:port", "unix:///path"), or any other
 * source (kix_client_open_source). The calls are the same; commands are
 * written once. An operation the source does not offer is KIX_ENOTSUP,
 * its message naming both.
 *
 * Nothing a client returns about the log is trusted by this layer: callers
 * verify checkpoints, proofs and digests against the log key (kix/receipt.h,
 * kix/resolve.h, kix/merkle.h) — except kix_client_get_object, which checks
 * the digest of what it returns itself.
 *
 * Memory: outputs are appended to caller-owned buffers or delivered through
 * callbacks whose views live only during the call. Errors: the KIX_E* code
 * and message the log or server gave; KIX_EUNAVAIL when a server cannot be
 * reached (the message names the address tried), KIX_EPROTO when it answers
 * nonsense.
 */
#ifndef KIX_CLIENT_H
#define KIX_CLIENT_H

#include "kix/api.h"

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/error.h"
#include "kix/index.h"
#include "kix/merkle.h"
#include "kix/resolve.h"
#include "kix/vindex.h"

#define KIX_DEFAULT_SERVER "tcp://127.0.0.1:7420"

struct kix_client;

struct kix_client_opts {
    int timeout_ms; /* per request; 0 = 30 s */
};

KIX_API int kix_client_open_store(const char *dir, struct kix_client **out,
                                  struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_client_connect(const char *addr, const struct kix_client_opts *opts,
                               struct kix_client **out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_client_close(struct kix_client *c);
/* "store DIR" or the server address, for messages. */
KIX_API const char *kix_client_where(const struct kix_client *c);

struct kix_client_info {
    char origin[KIX_NOTE_NAME_MAX + 1];
    char log_key[1024]; /* verifier key text */
    uint64_t size;
    char version[32];
    int mirror;             /* 1 for a read-only mirror */
    char upstream[256];     /* mirror: the upstream address */
    uint64_t upstream_size; /* mirror: upstream size last seen */
    double lag_seconds;     /* mirror: age of the last successful sync */
    char last_error[KIX_ERR_MSG_MAX];
    uint64_t lag_entries; /* mirror: upstream_size - size (0 when current) */
    /* mirror: it found the upstream inconsistent with what it verified (a
     * fork or a rollback) and stopped following it */
    int fork;
    uint64_t fork_size;                /* the size at which they differ */
    char fork_reason[KIX_ERR_MSG_MAX]; /* what was found */
    char fork_evidence[512];           /* where both signed checkpoints are kept */
    /* an origin with --ack-replicas: what it committed, past `size` (what
     * its mirrors hold and readers are shown); 0 when it reported none. A
     * mirror replicates to it */
    uint64_t committed;
    /* a server's limits as its info reported them, 0 for one it did not
     * report (and all 0 for a local store): the kixd source sizes its
     * requests by them (see proto/PROTOCOL.md, info) */
    struct {
        uint64_t max_message, max_in_flight, max_batch, max_entries, max_objects, max_checkpoints,
            max_runs;
    } limits;
};

KIX_API int kix_client_info(struct kix_client *c, struct kix_client_info *out,
                            struct kix_err *err) KIX_MUST_CHECK;

/* The log's verifier key text as the server publishes it (info's log_key;
 * a static copy's log.vkey), unchecked, into out (KIX_ELIMIT when it does
 * not fit cap; KIX_ENOTFOUND when the copy publishes none). */
KIX_API int kix_client_log_key(struct kix_client *c, char *out, size_t cap,
                               struct kix_err *err) KIX_MUST_CHECK;

/* The bytes of a file a static copy serves at `path` (relative to its
 * root), at most max, appended to out UNCHECKED: KIX_ENOTFOUND when it
 * serves none, KIX_ENOTSUP for a source that serves no files (a kixd's
 * RPC, a store). For kix audit, which compares them with the log. */
KIX_API int kix_client_file(struct kix_client *c, const char *path, size_t max, struct kix_buf *out,
                            struct kix_err *err) KIX_MUST_CHECK;
/* One of kix_client_files' answers: rc (KIX_OK with body, or the error
 * kix_client_file would give, described in err). Not KIX_OK stops. */
typedef int (*kix_file_fn)(void *ctx, size_t i, int rc, struct kix_buf *body, struct kix_err *err);
/* kix_client_file for n paths, fn called for each in order (an HTTP copy
 * is asked several at once). */
KIX_API int kix_client_files(struct kix_client *c, const char *const *paths, size_t n, size_t max,
                             kix_file_fn fn, void *ctx, struct kix_err *err) KIX_MUST_CHECK;

/* The signed checkpoint at `size` (KIX_NO_INDEX: the latest), appended,
 * with the witness cosignatures the log holds for it (extra signature lines). */
KIX_API int kix_client_checkpoint(struct kix_client *c, uint64_t size, struct kix_buf *note,
                                  struct kix_err *err) KIX_MUST_CHECK;

/* Entries [start, start + count) that exist, in order, through fn (a nonzero
 * return from fn stops and is returned). *got (may be NULL) counts them. */
typedef int (*kix_entry_fn)(void *ctx, uint64_t index, const uint8_t *leaf, size_t len);
KIX_API int kix_client_entries(struct kix_client *c, uint64_t start, uint64_t count,
                               kix_entry_fn fn, void *ctx, uint64_t *got,
                               struct kix_err *err) KIX_MUST_CHECK;

/* The stored checkpoints with size > after (at most limit), by growing size. */
KIX_API int kix_client_checkpoints(struct kix_client *c, uint64_t after, size_t limit,
                                   kix_checkpoint_fn fn, void *ctx,
                                   struct kix_err *err) KIX_MUST_CHECK;

KIX_API int kix_client_inclusion(struct kix_client *c, uint64_t index, uint64_t size,
                                 struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                                 struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_client_consistency(struct kix_client *c, uint64_t size1, uint64_t size2,
                                   struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                                   struct kix_err *err) KIX_MUST_CHECK;
/* The inclusion proofs of entries [from, to) at size, as the log answers
 * them, through fn in any order (a kixd's are pipelined): `leaf` is the leaf
 * hash the log holds for the entry, NULL when it does not say. Unverified:
 * kix audit compares them with its replica's own tree. A refused entry is
 * the call's error with err's cause KIX_CAUSE_ENTRY naming it. */
typedef int (*kix_inclusion_fn)(void *ctx, uint64_t index, const struct kix_hash *leaf,
                                const struct kix_hash *proof, size_t n);
KIX_API int kix_client_inclusion_proofs(struct kix_client *c, uint64_t from, uint64_t to,
                                        uint64_t size, kix_inclusion_fn fn, void *ctx,
                                        struct kix_err *err) KIX_MUST_CHECK;
/* A tlog-proof receipt for entry `index` at `size` (KIX_NO_INDEX: latest). */
KIX_API int kix_client_receipt(struct kix_client *c, uint64_t index, uint64_t size,
                               struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* The object's canonical bytes, appended; the digest is checked here
 * (KIX_EVERIFY when the bytes do not match). */
KIX_API int kix_client_get_object(struct kix_client *c, const struct kix_digest *d,
                                  struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* Several objects in one round trip: fn(ctx, i, bytes, len) for each digest
 * in order, bytes NULL when the log does not have it. Digests ARE checked
 * (KIX_EVERIFY stops the call). At most 1024 digests per call. */
typedef int (*kix_object_fn)(void *ctx, size_t i, const uint8_t *bytes, size_t len);
KIX_API int kix_client_get_objects(struct kix_client *c, const struct kix_digest *digests, size_t n,
                                   kix_object_fn fn, void *ctx, struct kix_err *err) KIX_MUST_CHECK;

/* The objects of full entry bundle `bundle`'s object pack
 * (kix/object_pack.h), when the source serves packs (a static copy, kixd
 * --http): fn(ctx, digest, bytes, len) for each, the digest computed here
 * from the bytes. Which objects a pack holds is NOT checked: take only
 * those whose digest you want, and ask kix_client_get_objects for the
 * rest. KIX_ENOTSUP (the source has no packs: kixd's msgpack-RPC, a
 * store), KIX_ENOTFOUND (no pack for that bundle), KIX_EPROTO (a pack that
 * does not parse: fn saw the objects before the flaw), or fn's nonzero
 * return. */
typedef int (*kix_pack_fn)(void *ctx, const struct kix_digest *d, const uint8_t *bytes, size_t len);
KIX_API int kix_client_object_pack(struct kix_client *c, uint64_t bundle, kix_pack_fn fn, void *ctx,
                                   struct kix_err *err) KIX_MUST_CHECK;
/* 1 when c's source may serve object packs (kix_client_object_pack does
 * not answer KIX_ENOTSUP at once), else 0. */
KIX_API int kix_client_has_object_packs(const struct kix_client *c);

struct kix_bundle {
    struct kix_bytes envelope;
    const struct kix_bytes *objects;
    size_t nobjects;
};

struct kix_submit_result {
    int code; /* KIX_OK, or why this bundle was refused */
    char message[KIX_ERR_MSG_MAX];
    uint64_t index;
    int duplicate;
    struct kix_buf receipt; /* tlog-proof text (owned; release with the result) */
};

KIX_API void kix_submit_result_release(struct kix_submit_result *r);

/* Submits bundles in one call; results[i] answers bundles[i] once durable. */
KIX_API int kix_client_submit(struct kix_client *c, const struct kix_bundle *bundles, size_t n,
                              struct kix_submit_result *results,
                              struct kix_err *err) KIX_MUST_CHECK;

/* Ranked runs (see kix_index_query in kix/log.h): as the log computed them,
 * unverified (kix audit recomputes every rank from the log). */
KIX_API int kix_client_query(struct kix_client *c, const struct kix_query *q, kix_query_fn fn,
                             void *ctx, uint64_t *matched, struct kix_err *err) KIX_MUST_CHECK;

/* Tells the source that cp, a checkpoint of the log of key, is verified
 * (signature, witnesses, consistency with the one remembered): an HTTP
 * source then keeps the immutable files it reads of that log on disk
 * (cache_root, NULL: $KIX_CACHE_DIR, else $XDG_CACHE_HOME/kix, else
 * ~/.cache/kix; client/lib/http_cache.h) and reads back what it kept,
 * each file checked against its name or cp's tree. Call it after each
 * checkpoint verified (the largest counts); other sources ignore it. */
KIX_API int kix_client_cache_verified(struct kix_client *c, const char *cache_root,
                                      const struct kix_verifier *key,
                                      const struct kix_checkpoint *cp,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* Hands a witness cosignature to a kixd (method add_cosignature):
 * `checkpoint` is the signed note cosigned, `line` the cosignature line
 * (kix_cosign). The server checks it against the witness keys it accepts.
 * KIX_ENOTSUP for a local store (witness keys are a server's configuration). */
KIX_API int kix_client_add_cosignature(struct kix_client *c, const char *checkpoint, size_t len,
                                       const char *line, size_t line_len,
                                       struct kix_err *err) KIX_MUST_CHECK;

/* An unverified resolution (see kix/resolve.h); release it when done. */
KIX_API int kix_client_resolve(struct kix_client *c, const char *ref, struct kix_resolution *out,
                               struct kix_err *err) KIX_MUST_CHECK;
/* The page of entries from position `from` (kix_resolution_merge). */
KIX_API int kix_client_resolve_from(struct kix_client *c, const char *ref, uint64_t from,
                                    struct kix_resolution *out, struct kix_err *err) KIX_MUST_CHECK;

/* One key of the verifiable index (kix/vindex.h) at the server's latest
 * checkpoint, verified against key (the log key): the checkpoint, the index
 * note signed beside it, and the proof of the record or of the key's
 * absence. Check the checkpoint against the remembered one (kix/trust.h)
 * before believing an absence. With witnesses required
 * (kix_client_require_witnesses), the index note must carry enough of their
 * cosignatures too (kix_witness_check_index; the checkpoint's are the
 * caller's to count, with the rest of kix/trust.h). Release the answer when
 * done. */
struct kix_index_answer {
    int present;
    struct kix_buf record, proof;          /* record empty when absent */
    struct kix_buf checkpoint, index_note; /* the signed notes */
    struct kix_checkpoint cp;              /* parsed (views into checkpoint) */
    struct kix_vindex_note note;
};
KIX_API void kix_index_answer_release(struct kix_index_answer *a);
struct kix_witness_policy;
/* The witnesses every index note this client verifies must be cosigned by
 * (kix/trust.h; NULL: none). The policy is the caller's and must outlive
 * the client's use of it. */
KIX_API void kix_client_require_witnesses(struct kix_client *c,
                                          const struct kix_witness_policy *policy);
KIX_API int kix_client_index_proof(struct kix_client *c, const struct kix_verifier *key,
                                   const char *ikey, struct kix_index_answer *out,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* Proves what query rows (kix_client_query) say, against key (the log
 * key): each row's kernel, GPU, provider and timed pass are recomputed from
 * its manifest and the objects it names (all fetched and checked by
 * digest), its group, value and metric from its manifest, its rank and
 * group size from its group's record in the signed index (one index proof
 * per group), and its manifest, group, value and evidence from its run's
 * record there (one index proof per row), all at one checkpoint, returned
 * in out->checkpoint for the caller to check against the remembered one.
 * Which runs match is the server's choice (see kix_client_group_page_verify
 * for a whole group); what it says of each is proven. workload_fn (may be
 * NULL) is handed each row's verified Workload object; each row's source
 * and statistic (which the server does not send) are filled in from its
 * verified manifest. KIX_EVERIFY with the
 * run and what differs; KIX_EUNAVAIL when the log grew between two group
 * proofs (query again). out->size is the size of the first group proof
 * made, also when a check then failed (0 when none was made): a mismatch
 * at a size the rows were not computed at may be the log's growth, not a
 * lie; one at the same size twice is a lie. out->checkpoint is the
 * caller's: init it with KIX_BUF_INIT, release it when done. */
struct kix_query_proof {
    uint64_t size; /* the checkpoint the ranks are proven at */
    size_t groups; /* group records proven */
    struct kix_buf checkpoint;
    size_t selections; /* selection records proven (kix_client_query_complete) */
};
KIX_API int kix_client_query_verify(struct kix_client *c, const struct kix_verifier *key,
                                    struct kix_query_row *rows, size_t n, kix_object_fn workload_fn,
                                    void *ctx, struct kix_query_proof *out,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* The members of group at ranks [first, first + n) (1-based) as the log's
 * signed index holds them: its directory and the pages that hold those
 * ranks (kix/vindex.h), each proven, all at proof->size (set with
 * proof->checkpoint when 0; KIX_EUNAVAIL when the log grew: ask again).
 * fn (may be NULL) sees each member in the range with its rank, in rank
 * order; non-zero stops it. out: whether the group is in the index (the
 * index proves it absent otherwise: no member), its size, pages proven.
 * The one reader of group records on the client. */
struct kix_group_members {
    int present;
    uint64_t count;
    size_t pages;
};
KIX_API int kix_client_group_members(struct kix_client *c, const struct kix_verifier *key,
                                     const struct kix_digest *group, uint64_t first, uint64_t n,
                                     kix_vindex_member_fn fn, void *ctx,
                                     struct kix_query_proof *proof, struct kix_group_members *out,
                                     struct kix_err *err) KIX_MUST_CHECK;

/* Proves that rows (already proven by kix_client_query_verify into proof,
 * or none) are exactly the page [offset, offset + limit) of group's record
 * in the signed index, in rank order, and that matched is the record's
 * count (0, with no rows, for a group the index proves absent): a missing,
 * added, repeated or reordered row, or another page, is KIX_EVERIFY. The
 * group is proven at proof->size (KIX_EUNAVAIL when the log grew: query
 * again); when proof->size is 0 it is set, with proof->checkpoint, for the
 * caller to check against the remembered one. */
KIX_API int kix_client_group_page_verify(struct kix_client *c, const struct kix_verifier *key,
                                         const struct kix_digest *group, uint64_t offset,
                                         uint64_t limit, const struct kix_query_row *rows, size_t n,
                                         uint64_t matched, struct kix_query_proof *proof,
                                         struct kix_err *err) KIX_MUST_CHECK;

/* Proves that rows (already proven by kix_client_query_verify into proof)
 * are all the matches of q on page [q->offset, q->offset + q->limit), and
 * matched their count, from the selection records of the signed index
 * (kix/selection.h; PROTOCOL.md §4): for each filter, the dimension's
 * values, the lists of the values it matches, and the intersection of
 * those; then every selected group's record. A missing, added, repeated
 * or misplaced row, a row outside the selection or another count is
 * KIX_EVERIFY; KIX_EUNAVAIL when the log grew between proofs (query
 * again). Proofs made add to proof->groups and proof->selections. */
KIX_API int kix_client_query_complete(struct kix_client *c, const struct kix_verifier *key,
                                      const struct kix_query *q, const struct kix_query_row *rows,
                                      size_t n, uint64_t matched, struct kix_query_proof *proof,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* A query's page computed by the client, never taken from the server's
 * answer (PROTOCOL.md §4.7): the selection records say which groups and
 * runs match q's filters, every selected group's record its members; one
 * member of each group, proven by its run record, manifest and objects,
 * describes the group, and workload_fn (may be NULL) sees the group's
 * Workload object (bytes NULL when the log lacks it) to set *keep (0
 * drops the group's runs from the answer: a filter of the caller's) and
 * write its words (what groups of one kernel are ordered by). The
 * client orders the groups by kernel, workload words, GPU, pass and
 * metric (text as people read it: 8192 after 1024), then group key, runs
 * by rank, and cuts [q->offset, q->offset + q->limit) from that order
 * itself, so no server can shift, repeat or skip rows between pages;
 * each row on the page is proven like kix_client_query_verify's (run
 * record: manifest, group, value, evidence; manifest and objects: its
 * words). All at one checkpoint, proof->size and proof->checkpoint, for
 * the caller to check against the remembered one. KIX_EVERIFY when a
 * record contradicts another; KIX_EUNAVAIL when the log grew between
 * proofs (ask again). Release the page with kix_query_page_release. */
#define KIX_QUERY_WORDS_MAX 160
typedef int (*kix_query_workload_fn)(void *ctx, const uint8_t *bytes, size_t len, int *keep,
                                     char *words, size_t cap);
struct kix_query_page {
    struct kix_query_row *rows;
    char (*words)[KIX_QUERY_WORDS_MAX]; /* each row's group's words */
    size_t n;
    uint64_t matched; /* all the matches the caller kept, also beyond the page */
};
KIX_API int kix_client_query_page(struct kix_client *c, const struct kix_verifier *key,
                                  const struct kix_query *q, kix_query_workload_fn workload_fn,
                                  void *ctx, struct kix_query_page *out,
                                  struct kix_query_proof *proof,
                                  struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_query_page_release(struct kix_query_page *p);

#endif
