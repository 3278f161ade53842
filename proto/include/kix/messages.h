/* kix/messages.h — the one definition of the messages of every kix method.
 *
 * proto/PROTOCOL.md section 2 is the spec; this module is its code. For each
 * method that kixd and its clients share there is a plain C struct for its
 * params and one for its result, its fields declared once in the message
 * table (below, and proto/src/message_table.c), and a pair of functions
 * for each, the one codec over that table: the sender's kix_msg_put_* and
 * the receiver's kix_msg_get_*. kixd decodes
 * params and encodes results with them, the client library encodes params
 * and decodes results with them, and the worked examples of PROTOCOL.md are
 * produced by them (tests/unit/test_protocol_examples.c). No other place in
 * kix spells a field name of these messages.
 *
 * Types. Structs hold only uint64_t, bool, int64_t (an error code),
 * struct kix_bytes, fixed uint8_t[32] arrays (hashes, digests, key ids),
 * counts and arrays of such. Digests travel as the str
 * "sha256:<64 lowercase hex>" and key ids as 64 lowercase hex; the codec
 * converts them to and from 32 raw bytes. Richer types (kix_digest,
 * kix_hash, enums) are converted by the caller.
 *
 * Absent optional fields: a uint64_t holds KIX_MSG_ABSENT, a kix_bytes has
 * ptr NULL, a block of fields has its `has_*` flag false. Encoders leave
 * absent fields out of the map; decoders set them so. (An encoder given a
 * zero-length kix_bytes that must be present gives it a non-NULL ptr.)
 *
 * Writing. kix_msg_put_* writes one value (the params map or the result
 * map) with a struct kix_proto_writer the caller has begun
 * (kix_proto_begin_request / _response / _notification) and ends itself
 * (kix_proto_writer_end). They return the writer's sticky error, which
 * kix_proto_writer_end reports again. Nothing is allocated.
 *
 * Reading. kix_msg_get_*_params take the params map of a request;
 * kix_msg_get_*_result take the result value of a response. Every kix_bytes
 * in the output borrows from the decoded message and lives until its
 * kix_proto_msg_release. Arrays are allocated by the decoder in one block
 * kept in `owned`: release it with kix_msg_free(out->owned) (also after a
 * failure; out->owned is NULL when nothing was allocated). Every count
 * from the network is bounded (by the caller's `max` or a KIX_MSG_* bound
 * below) before memory is sized from it, and unknown fields are ignored.
 *
 * Errors. Params decoders (the server's side) return what the server
 * answers: KIX_EINVAL for a missing field ("missing field \"digest\""), a
 * field of the wrong type ("field \"size\": expected int, got str") or a
 * malformed value, KIX_ELIMIT for a count over the caller's limit, naming
 * the field. Result decoders (the client's side) return KIX_EPROTO for any
 * such fault of the answer, with the same messages. Both: KIX_ENOMEM.
 */
#ifndef KIX_MESSAGES_H
#define KIX_MESSAGES_H

#include "kix/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/proto.h"

/* An optional uint64_t field that is absent. */
#define KIX_MSG_ABSENT UINT64_MAX
/* Hashes in one Merkle proof (the store's KIX_MERKLE_MAX_PROOF). */
#define KIX_MSG_MAX_PROOF 65
/* Bytes of a resolve reference. */
#define KIX_MSG_REF_MAX 1024
/* Bounds of query's text filters, in bytes (kernel, gpu, provider; mode,
 * metric). */
#define KIX_MSG_QUERY_TEXT_MAX  63
#define KIX_MSG_QUERY_SHORT_MAX 15

/* Frees what a decoder allocated (the `owned` member); NULL is fine. */
KIX_API void kix_msg_free(void *owned);
/* n zeroed elements of size kept in *owned (an encoder's arrays, freed
 * with it by kix_msg_free), or NULL when out of memory. */
KIX_API void *kix_msg_alloc(void **owned, size_t n, size_t size);

/* ---- info: params {} ------------------------------------------------------ */

/* What a client must know to size its requests. A field the server did not
 * report is KIX_MSG_ABSENT (an older kixd); a reported one is at least 1. */
struct kix_msg_limits {
    uint64_t max_message;     /* maxMessage: bytes of one message */
    uint64_t max_in_flight;   /* maxInFlight: requests in flight per connection */
    uint64_t max_batch;       /* maxBatch: bundles per submit */
    uint64_t max_entries;     /* maxEntries: entries per get_entries (and follow notification) */
    uint64_t max_objects;     /* maxObjects: digests per get_objects */
    uint64_t max_checkpoints; /* maxCheckpoints: limit of checkpoints */
    uint64_t max_runs;        /* maxRuns: limit of query */
};

/* Sets every limit KIX_MSG_ABSENT. */
KIX_API void kix_msg_limits_init(struct kix_msg_limits *l);

struct kix_msg_info {
    struct kix_bytes origin;  /* required */
    struct kix_bytes log_key; /* required */
    uint64_t size;
    struct kix_bytes version; /* optional */
    bool mirror;              /* absent reads as false; always written */
    bool has_limits;
    struct kix_msg_limits limits;
    /* a mirror's state, each optional */
    struct kix_bytes upstream;
    uint64_t upstream_size, lag_entries, lag_seconds;
    struct kix_bytes last_error;
    bool has_fork;
    uint64_t fork_size;
    struct kix_bytes fork_reason, fork_evidence;
    /* optional: an origin with --ack-replicas whose committed size is past
     * `size` (what its mirrors hold): the size a mirror replicates to */
    uint64_t committed;
};

/* Everything absent or zero. */
KIX_API void kix_msg_info_init(struct kix_msg_info *m);
KIX_API int kix_msg_put_info_result(struct kix_proto_writer *w, const struct kix_msg_info *m);
KIX_API int kix_msg_get_info_result(const struct kix_proto_value *v, struct kix_msg_info *out,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* ---- submit --------------------------------------------------------------- */

struct kix_msg_bundle {
    struct kix_bytes envelope;
    size_t nobjects; /* "objects" is left out when 0 */
    const struct kix_bytes *objects;
};

struct kix_msg_submit_params {
    size_t nbundles;
    const struct kix_msg_bundle *bundles;
    void *owned;
};

/* One bundle's answer: code 0 with index … receipt, or code < 0 and
 * message (the {"error": {code, message}} form). */
struct kix_msg_submit_item {
    int64_t code;
    struct kix_bytes message;
    uint64_t index;
    uint8_t leaf_hash[32];
    bool duplicate;
    struct kix_bytes receipt;
};

struct kix_msg_submit_result {
    size_t nresults;
    const struct kix_msg_submit_item *results;
    uint64_t size;
    void *owned;
};

KIX_API int kix_msg_put_submit_params(struct kix_proto_writer *w,
                                      const struct kix_msg_submit_params *p);
/* 1 … max bundles: none is KIX_EINVAL ("field \"bundles\" is empty"), more
 * KIX_ELIMIT ("1025 bundles in one submit, over the limit of 1024"). */
KIX_API int kix_msg_get_submit_params(const struct kix_proto_map *m, size_t max,
                                      struct kix_msg_submit_params *out,
                                      struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_submit_result(struct kix_proto_writer *w,
                                      const struct kix_msg_submit_result *r);
/* At most max results. */
KIX_API int kix_msg_get_submit_result(const struct kix_proto_value *v, size_t max,
                                      struct kix_msg_submit_result *out,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* ---- get_object ------------------------------------------------------------ */

struct kix_msg_get_object_params {
    uint8_t digest[32];
};

struct kix_msg_get_object_result {
    struct kix_bytes object;
};

KIX_API int kix_msg_put_get_object_params(struct kix_proto_writer *w,
                                          const struct kix_msg_get_object_params *p);
KIX_API int kix_msg_get_get_object_params(const struct kix_proto_map *m,
                                          struct kix_msg_get_object_params *out,
                                          struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_get_object_result(struct kix_proto_writer *w,
                                          const struct kix_msg_get_object_result *r);
KIX_API int kix_msg_get_get_object_result(const struct kix_proto_value *v,
                                          struct kix_msg_get_object_result *out,
                                          struct kix_err *err) KIX_MUST_CHECK;

/* ---- get_objects ------------------------------------------------------------ */

struct kix_msg_get_objects_params {
    size_t ndigests;
    const uint8_t (*digests)[32];
    void *owned;
};

/* objects[i] answers digests[i]; ptr NULL: the server does not have it (nil). */
struct kix_msg_get_objects_result {
    size_t nobjects;
    const struct kix_bytes *objects;
    void *owned;
};

KIX_API int kix_msg_put_get_objects_params(struct kix_proto_writer *w,
                                           const struct kix_msg_get_objects_params *p);
/* At most max digests (KIX_ELIMIT "1025 digests asked for, …"). */
KIX_API int kix_msg_get_get_objects_params(const struct kix_proto_map *m, size_t max,
                                           struct kix_msg_get_objects_params *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_get_objects_result(struct kix_proto_writer *w,
                                           const struct kix_msg_get_objects_result *r);
/* At most max objects. */
KIX_API int kix_msg_get_get_objects_result(const struct kix_proto_value *v, size_t max,
                                           struct kix_msg_get_objects_result *out,
                                           struct kix_err *err) KIX_MUST_CHECK;

/* ---- get_entries, and follow's "entries" notification ------------------------- */

struct kix_msg_get_entries_params {
    uint64_t start, count;
};

struct kix_msg_entries {
    uint64_t start;
    size_t nentries;
    const struct kix_bytes *entries;
    struct kix_bytes checkpoint; /* notification only, optional */
    void *owned;
};

KIX_API int kix_msg_put_get_entries_params(struct kix_proto_writer *w,
                                           const struct kix_msg_get_entries_params *p);
KIX_API int kix_msg_get_get_entries_params(const struct kix_proto_map *m,
                                           struct kix_msg_get_entries_params *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
/* {start, entries}: checkpoint is not written. */
KIX_API int kix_msg_put_get_entries_result(struct kix_proto_writer *w,
                                           const struct kix_msg_entries *r);
/* At most max entries. */
KIX_API int kix_msg_get_get_entries_result(const struct kix_proto_value *v, size_t max,
                                           struct kix_msg_entries *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
/* The params map of the notification [2, "entries", [{start, entries,
 * checkpoint?}]]; the decoder takes the notification's params, at most max
 * entries, and fails KIX_EPROTO. */
KIX_API int kix_msg_put_entries_notification(struct kix_proto_writer *w,
                                             const struct kix_msg_entries *n);
KIX_API int kix_msg_get_entries_notification(const struct kix_proto_map *m, size_t max,
                                             struct kix_msg_entries *out,
                                             struct kix_err *err) KIX_MUST_CHECK;

/* ---- checkpoint --------------------------------------------------------------- */

struct kix_msg_checkpoint_params {
    uint64_t size; /* optional: the latest */
};

struct kix_msg_checkpoint_result {
    struct kix_bytes checkpoint;
    uint64_t size;
};

KIX_API int kix_msg_put_checkpoint_params(struct kix_proto_writer *w,
                                          const struct kix_msg_checkpoint_params *p);
KIX_API int kix_msg_get_checkpoint_params(const struct kix_proto_map *m,
                                          struct kix_msg_checkpoint_params *out,
                                          struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_checkpoint_result(struct kix_proto_writer *w,
                                          const struct kix_msg_checkpoint_result *r);
KIX_API int kix_msg_get_checkpoint_result(const struct kix_proto_value *v,
                                          struct kix_msg_checkpoint_result *out,
                                          struct kix_err *err) KIX_MUST_CHECK;

/* ---- inclusion_proof, consistency_proof, receipt --------------------------------- */

/* inclusion_proof and receipt: index, size? */
struct kix_msg_index_params {
    uint64_t index;
    uint64_t size; /* optional: the latest */
};

struct kix_msg_inclusion_result {
    uint64_t index, size;
    uint8_t leaf_hash[32];
    size_t nproof;
    uint8_t proof[KIX_MSG_MAX_PROOF][32];
};

struct kix_msg_consistency_params {
    uint64_t size1;
    uint64_t size2; /* optional: the latest */
};

struct kix_msg_consistency_result {
    uint64_t size1, size2;
    size_t nproof;
    uint8_t proof[KIX_MSG_MAX_PROOF][32];
};

struct kix_msg_receipt_result {
    struct kix_bytes receipt;
};

KIX_API int kix_msg_put_index_params(struct kix_proto_writer *w,
                                     const struct kix_msg_index_params *p);
KIX_API int kix_msg_get_index_params(const struct kix_proto_map *m,
                                     struct kix_msg_index_params *out,
                                     struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_inclusion_result(struct kix_proto_writer *w,
                                         const struct kix_msg_inclusion_result *r);
KIX_API int kix_msg_get_inclusion_result(const struct kix_proto_value *v,
                                         struct kix_msg_inclusion_result *out,
                                         struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_consistency_params(struct kix_proto_writer *w,
                                           const struct kix_msg_consistency_params *p);
KIX_API int kix_msg_get_consistency_params(const struct kix_proto_map *m,
                                           struct kix_msg_consistency_params *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_consistency_result(struct kix_proto_writer *w,
                                           const struct kix_msg_consistency_result *r);
KIX_API int kix_msg_get_consistency_result(const struct kix_proto_value *v,
                                           struct kix_msg_consistency_result *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_receipt_result(struct kix_proto_writer *w,
                                       const struct kix_msg_receipt_result *r);
KIX_API int kix_msg_get_receipt_result(const struct kix_proto_value *v,
                                       struct kix_msg_receipt_result *out,
                                       struct kix_err *err) KIX_MUST_CHECK;

/* ---- resolve -------------------------------------------------------------------- */

struct kix_msg_resolve_params {
    struct kix_bytes ref; /* 1 … KIX_MSG_REF_MAX bytes */
    uint64_t from;        /* optional: position of the first entry to send (paging) */
};

struct kix_msg_resolve_object {
    uint8_t digest[32];
    struct kix_bytes object;
};

struct kix_msg_resolve_entry {
    uint64_t index;
    struct kix_bytes type; /* entry type name, e.g. "publication" */
    struct kix_bytes leaf;
    size_t nproof;
    uint8_t proof[KIX_MSG_MAX_PROOF][32];
};

struct kix_msg_resolve_result {
    struct kix_bytes run_id;
    uint8_t digest[32]; /* the manifest's */
    struct kix_bytes permalink;
    struct kix_bytes evidence;                      /* level name, e.g. "reported" */
    uint64_t evidence_index;                        /* optional */
    struct kix_bytes successor, predecessor;        /* optional */
    uint64_t superseded_by_index, supersedes_index; /* optional */
    bool ranked;                                    /* comparisonKey, rank, groupSize, best */
    uint8_t comparison_key[32];
    uint64_t rank, group_size;
    struct kix_bytes best;
    uint8_t publisher[32]; /* key id */
    uint64_t publication_index, attestations, reruns;
    struct kix_bytes manifest;
    size_t nobjects;
    const struct kix_msg_resolve_object *objects;
    size_t nentries;
    const struct kix_msg_resolve_entry *entries;
    struct kix_bytes checkpoint;
    uint64_t size;
    /* the verifiable index (optional, together): the index note at size,
     * the run's record and its proof, the group's record and proof when
     * ranked, and where the entries of this answer sit in the run's list */
    struct kix_bytes index_note, run_record, run_proof, group_record, group_proof;
    struct kix_bytes group_page, group_page_proof; /* with group_record */
    uint64_t entries_from;
    void *owned;
};

KIX_API int kix_msg_put_resolve_params(struct kix_proto_writer *w,
                                       const struct kix_msg_resolve_params *p);
/* KIX_EINVAL for a ref of 0 or over KIX_MSG_REF_MAX bytes. */
KIX_API int kix_msg_get_resolve_params(const struct kix_proto_map *m,
                                       struct kix_msg_resolve_params *out,
                                       struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_resolve_result(struct kix_proto_writer *w,
                                       const struct kix_msg_resolve_result *r);
/* At most max_objects objects and max_entries entries. */
KIX_API int kix_msg_get_resolve_result(const struct kix_proto_value *v, size_t max_objects,
                                       size_t max_entries, struct kix_msg_resolve_result *out,
                                       struct kix_err *err) KIX_MUST_CHECK;

/* ---- index_proof: one key of the verifiable index, proven ---------------------- */

struct kix_msg_vindex_params {
    struct kix_bytes key; /* 1 … KIX_MSG_REF_MAX bytes (kix/vindex.h keys) */
};

struct kix_msg_vindex_result {
    struct kix_bytes key;
    bool present;
    struct kix_bytes record; /* present only */
    struct kix_bytes proof;
    struct kix_bytes checkpoint, index_note;
    uint64_t size;
};

KIX_API int kix_msg_put_vindex_params(struct kix_proto_writer *w,
                                      const struct kix_msg_vindex_params *p);
KIX_API int kix_msg_get_vindex_params(const struct kix_proto_map *m,
                                      struct kix_msg_vindex_params *out,
                                      struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_vindex_result(struct kix_proto_writer *w,
                                      const struct kix_msg_vindex_result *r);
KIX_API int kix_msg_get_vindex_result(const struct kix_proto_value *v,
                                      struct kix_msg_vindex_result *out,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* ---- checkpoints ------------------------------------------------------------------ */

struct kix_msg_checkpoints_params {
    uint64_t after;
    uint64_t limit; /* optional: 100 */
};

struct kix_msg_checkpoint_item {
    uint64_t size;
    struct kix_bytes checkpoint;
    struct kix_bytes index_note; /* optional: the index note at that size */
};

struct kix_msg_checkpoints_result {
    size_t ncheckpoints;
    const struct kix_msg_checkpoint_item *checkpoints;
    void *owned;
};

KIX_API int kix_msg_put_checkpoints_params(struct kix_proto_writer *w,
                                           const struct kix_msg_checkpoints_params *p);
KIX_API int kix_msg_get_checkpoints_params(const struct kix_proto_map *m,
                                           struct kix_msg_checkpoints_params *out,
                                           struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_checkpoints_result(struct kix_proto_writer *w,
                                           const struct kix_msg_checkpoints_result *r);
/* At most max checkpoints. */
KIX_API int kix_msg_get_checkpoints_result(const struct kix_proto_value *v, size_t max,
                                           struct kix_msg_checkpoints_result *out,
                                           struct kix_err *err) KIX_MUST_CHECK;

/* ---- query ----------------------------------------------------------------------- */

struct kix_msg_query_params {
    /* optional text filters: kernel, gpu, provider under
     * KIX_MSG_QUERY_TEXT_MAX + 1 bytes, mode, metric under
     * KIX_MSG_QUERY_SHORT_MAX + 1, dtype under KIX_MSG_QUERY_TEXT_MAX + 1,
     * none holding a NUL byte */
    struct kix_bytes kernel, gpu, provider, mode, metric, dtype;
    bool has_group;
    uint8_t group[32];
    uint64_t offset, limit; /* optional: 0, 100 */
};

struct kix_msg_query_run {
    struct kix_bytes run_id;
    uint8_t digest[32], group[32];
    uint64_t rank, group_size, value;
    struct kix_bytes evidence, kernel, gpu, provider, mode, metric;
};

struct kix_msg_query_result {
    uint64_t matched;
    size_t nruns;
    const struct kix_msg_query_run *runs;
    void *owned;
};

/* Every optional field absent. */
KIX_API void kix_msg_query_params_init(struct kix_msg_query_params *p);
KIX_API int kix_msg_put_query_params(struct kix_proto_writer *w,
                                     const struct kix_msg_query_params *p);
KIX_API int kix_msg_get_query_params(const struct kix_proto_map *m,
                                     struct kix_msg_query_params *out,
                                     struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_query_result(struct kix_proto_writer *w,
                                     const struct kix_msg_query_result *r);
/* At most max runs. */
KIX_API int kix_msg_get_query_result(const struct kix_proto_value *v, size_t max,
                                     struct kix_msg_query_result *out,
                                     struct kix_err *err) KIX_MUST_CHECK;

/* ---- follow ------------------------------------------------------------------------ */

struct kix_msg_follow_params {
    uint64_t from;
    /* optional (absent: false): a mirror's stream, fed up to what the origin
     * committed; a reader's stops at what its --ack-replicas mirrors hold */
    bool replica;
};

/* Also the result of add_cosignature (with stored). */
struct kix_msg_size_result {
    uint64_t size;
};

KIX_API int kix_msg_put_follow_params(struct kix_proto_writer *w,
                                      const struct kix_msg_follow_params *p);
KIX_API int kix_msg_get_follow_params(const struct kix_proto_map *m,
                                      struct kix_msg_follow_params *out,
                                      struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_follow_result(struct kix_proto_writer *w,
                                      const struct kix_msg_size_result *r);
KIX_API int kix_msg_get_follow_result(const struct kix_proto_value *v,
                                      struct kix_msg_size_result *out,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* ---- replicated (a mirror, on its follow stream, to an origin with --ack-replicas) ---- */

/* The longest tlog-cosignature/v1 line: "— " (4 bytes), a key name (at
 * most 255), a space, base64 of 76 bytes (104), a final "\n" (optional). */
#define KIX_MSG_COSIGNATURE_MAX 365

struct kix_msg_replicated_params {
    uint64_t size;           /* the tree size the mirror holds durably */
    uint8_t root[32];        /* its root at that size (the origin compares it with its own) */
    struct kix_bytes mirror; /* the mirror's id (DIR/mirror.id), at most 64 bytes */
    /* optional (ptr NULL: absent): a cosignature line, as older mirrors
     * sent; parsed so that the origin can say why it does not count it
     * (a witness cosignature is no statement of holding), at most
     * KIX_MSG_COSIGNATURE_MAX bytes */
    struct kix_bytes cosignature;
    /* optional (ptr NULL: absent): the mirror's held statement of the
     * origin's checkpoint at `size` (kix_mirror_held_sign), same bound */
    struct kix_bytes held;
};

KIX_API int kix_msg_put_replicated_params(struct kix_proto_writer *w,
                                          const struct kix_msg_replicated_params *p);
KIX_API int kix_msg_get_replicated_params(const struct kix_proto_map *m,
                                          struct kix_msg_replicated_params *out,
                                          struct kix_err *err) KIX_MUST_CHECK;
/* The result is a kix_msg_size_result: the size the origin's quorum of
 * --ack-replicas mirrors holds (kix_msg_put_follow_result writes it). */

/* ---- add_cosignature ---------------------------------------------------------------- */

struct kix_msg_add_cosignature_params {
    struct kix_bytes checkpoint, cosignature;
};

struct kix_msg_add_cosignature_result {
    uint64_t size;
    bool stored;
};

KIX_API int kix_msg_put_add_cosignature_params(struct kix_proto_writer *w,
                                               const struct kix_msg_add_cosignature_params *p);
KIX_API int kix_msg_get_add_cosignature_params(const struct kix_proto_map *m,
                                               struct kix_msg_add_cosignature_params *out,
                                               struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_msg_put_add_cosignature_result(struct kix_proto_writer *w,
                                               const struct kix_msg_add_cosignature_result *r);
KIX_API int kix_msg_get_add_cosignature_result(const struct kix_proto_value *v,
                                               struct kix_msg_add_cosignature_result *out,
                                               struct kix_err *err) KIX_MUST_CHECK;

/* ---- the message table ---------------------------------------------------------------
 *
 * Every field of every message above is declared once, in
 * proto/src/message_table.c: its wire name, its kind, whether it is
 * optional, its bounds, and where it sits in the struct. One encoder and
 * one decoder (kix_msg_encode, kix_msg_decode) read that table for both
 * directions; the kix_msg_put_* and kix_msg_get_* functions above are
 * those two over one table each. tests/unit/test_proto_table.c checks the
 * tables against PROTOCOL.md section 2 and every message's bytes. Adding a
 * field to a message is one line there (and its member in the struct). */

enum kix_msg_kind {
    KIX_MSG_U64,     /* uint64_t; optional: KIX_MSG_ABSENT when absent */
    KIX_MSG_I64,     /* int64_t (an error code) */
    KIX_MSG_BOOL,    /* bool; optional: false when absent, written only when true */
    KIX_MSG_FLAG,    /* no value of its own: a bool set when the field is present */
    KIX_MSG_STR,     /* struct kix_bytes as str; optional: ptr NULL when absent */
    KIX_MSG_BIN,     /* struct kix_bytes as bin */
    KIX_MSG_HASH,    /* uint8_t[32] as a bin of 32 bytes */
    KIX_MSG_DIGEST,  /* uint8_t[32] as the str "sha256:<64 hex>" */
    KIX_MSG_KEYID,   /* uint8_t[32] as the str of 64 hex */
    KIX_MSG_PROOF,   /* uint8_t[KIX_MSG_MAX_PROOF][32] and its size_t count at aux */
    KIX_MSG_BINS,    /* array of bin: const struct kix_bytes * and its size_t count at aux */
    KIX_MSG_DIGESTS, /* array of digests: const uint8_t (*)[32] and its count at aux */
    KIX_MSG_LIST,    /* array of maps, each a `sub` struct: pointer and its count at aux */
    KIX_MSG_MAP,     /* a map of `sub`'s fields at off (its own struct, or this one's) */
};

/* flags */
#define KIX_MSG_OPT    0x01u /* may be absent (the field's name ends in ? in PROTOCOL.md) */
#define KIX_MSG_ALWAYS 0x02u /* optional to read, always written (a bool) */
#define KIX_MSG_ZERO   0x04u /* a u64 that reads 0 when absent and is not written when 0 */
#define KIX_MSG_NIL    0x08u /* BINS: an element may be nil (ptr NULL) */
#define KIX_MSG_TEXT   0x10u /* STR: shorter than max + 1 bytes and without a NUL byte */
#define KIX_MSG_NEG    0x20u /* I64: a negative error code */
#define KIX_MSG_LIMIT  0x40u /* arrays: over the bound is KIX_ELIMIT (a server's limit) */

/* when: the field is written, and read, only when this holds of the
 * message (a group of fields that come together) */
enum kix_msg_when {
    KIX_MSG_ALWAYS_THERE, /* no condition */
    KIX_MSG_WHEN_BOOL,    /* the bool at when_off is true */
    KIX_MSG_WHEN_PTR,     /* the struct kix_bytes at when_off is present */
    KIX_MSG_WHEN_ZERO,    /* the int64_t at when_off is 0 (not an error) */
};

struct kix_msg_table;

struct kix_msg_field {
    const char *name; /* the wire name */
    uint8_t kind;     /* enum kix_msg_kind */
    uint8_t flags;    /* KIX_MSG_OPT, … */
    uint8_t when;     /* enum kix_msg_when */
    uint8_t max_arg;  /* arrays: 1 + which of the decoder's bounds applies; 0: max */
    uint32_t off;     /* the value in the struct */
    uint32_t aux;     /* the count of an array; an optional MAP's or HASH/DIGEST's bool */
    uint32_t when_off;
    uint64_t min, max; /* STR/BIN bytes, U64 value, arrays elements; max 0: no bound */
    const char *noun;  /* KIX_MSG_LIMIT arrays: "bundles in one submit" */
    const struct kix_msg_table *sub; /* LIST, MAP */
};

#define KIX_MSG_NO_AUX UINT32_MAX

struct kix_msg_table {
    const char *name;
    size_t size;    /* of the struct (a LIST's element); 0 for a MAP in its parent's */
    uint32_t owned; /* offset of `void *owned`, or KIX_MSG_NO_AUX */
    size_t nfields;
    const struct kix_msg_field *fields; /* in wire order */
};

/* One method: its params and its result (NULL: a bare {size}). */
struct kix_msg_method {
    const char *name;
    const struct kix_msg_table *params, *result;
};

/* Every method of PROTOCOL.md section 2, in its order, and the follow
 * stream's notification. */
KIX_API extern const struct kix_msg_method kix_msg_methods[];
extern const size_t kix_msg_nmethods;
extern const struct kix_msg_table kix_msg_entries_notification_table;

/* Writes the map of in's fields (a writer begun by the caller). */
KIX_API int kix_msg_encode(struct kix_proto_writer *w, const struct kix_msg_table *t,
                           const void *in);
/* Reads m into out (cleared first: absent fields as the kinds say); max
 * are the caller's bounds of the arrays whose max_arg names them. Errors
 * as the params decoders above (KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM);
 * out's `owned`, if any, holds the arrays (kix_msg_free). */
KIX_API int kix_msg_decode(const struct kix_proto_map *m, const struct kix_msg_table *t,
                           const size_t *max, void *out, struct kix_err *err) KIX_MUST_CHECK;
/* The same for a result value, whose faults are KIX_EPROTO. */
KIX_API int kix_msg_decode_result(const struct kix_proto_value *v, const struct kix_msg_table *t,
                                  const size_t *max, void *out, struct kix_err *err) KIX_MUST_CHECK;
/* The method named name[0, len), or NULL. */
KIX_API const struct kix_msg_method *kix_msg_method_find(const char *name, size_t len);

#endif
