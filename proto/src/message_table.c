/* The fields of every message of PROTOCOL.md section 2, each declared
 * once: wire name, kind, optional or not, bounds, and its member in the
 * struct of kix/messages.h. msg_codec.c reads these tables both ways;
 * tests/unit/test_proto_table.c checks them against PROTOCOL.md. A field
 * is added with one line here, in wire order (the order fields are
 * written in). */
#include <stddef.h>

#include "kix/messages.h"

/* One line per field; T is the struct of the table being declared. */
#define NOAUX KIX_MSG_NO_AUX
#define F(n, k, m, ...)                                                                            \
    {                                                                                              \
        .name = n, .kind = KIX_MSG_##k, .off = offsetof(T, m), __VA_ARGS__                         \
    }
#define REQ(n, k, m) F(n, k, m, .aux = NOAUX)
#define OPT(n, k, m) F(n, k, m, .flags = KIX_MSG_OPT, .aux = NOAUX)
/* an optional digest, or a map, with its bool h */
#define OPT_HAS(n, k, m, h) F(n, k, m, .flags = KIX_MSG_OPT, .aux = offsetof(T, h))
/* a string or bin of lo … hi bytes */
#define SIZED(n, k, m, fl, lo, hi) F(n, k, m, .flags = (fl), .aux = NOAUX, .min = (lo), .max = (hi))
/* written and read only when the guard g says so (IF_BOOL, IF_PTR, IF_OK) */
#define GUARDED(n, k, m, fl, g) F(n, k, m, .flags = (fl), .aux = NOAUX, g)
/* an array and its count cnt, at most hi elements (0: unbounded) or the
 * decoder's bound number arg (1-based) */
#define ARRAY(n, k, m, cnt, fl, hi, arg, ...)                                                      \
    F(n, k, m, .flags = (fl), .aux = offsetof(T, cnt), .max = (hi), .max_arg = (arg), __VA_ARGS__)
/* a map whose fields are members of T itself, with its bool h or none */
#define MAP_IN(n, h, table)                                                                        \
    {                                                                                              \
        .name = n, .kind = KIX_MSG_MAP, .flags = KIX_MSG_OPT, .off = 0, .aux = (h),                \
        .sub = &(table)                                                                            \
    }
#define IF_BOOL(g) .when = KIX_MSG_WHEN_BOOL, .when_off = offsetof(T, g)
#define IF_PTR(g)  .when = KIX_MSG_WHEN_PTR, .when_off = offsetof(T, g)
#define IF_OK(g)   .when = KIX_MSG_WHEN_ZERO, .when_off = offsetof(T, g)

#define TABLE(id, st, own, ...)                                                                    \
    static const struct kix_msg_field id##_fields[] = {__VA_ARGS__};                               \
    const struct kix_msg_table id = {#id, sizeof(st), own,                                         \
                                     sizeof(id##_fields) / sizeof(id##_fields[0]), id##_fields}
#define OWNED(st) offsetof(st, owned)
#define NONE      KIX_MSG_NO_AUX

#include "message_table.h"

/* one line per field, as written: */
/* clang-format off */

/* ---- info ------------------------------------------------------------------------------ */

#define T struct kix_msg_limits
TABLE(kix_msg_limits_table, T, NONE,
      F("maxMessage", U64, max_message, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxInFlight", U64, max_in_flight, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxBatch", U64, max_batch, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxEntries", U64, max_entries, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxObjects", U64, max_objects, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxCheckpoints", U64, max_checkpoints, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1),
      F("maxRuns", U64, max_runs, .flags = KIX_MSG_OPT, .aux = NOAUX, .min = 1));
#undef T

/* fork's fields are members of struct kix_msg_info itself */
#define T struct kix_msg_info
TABLE(kix_msg_fork_table, T, NONE,
      REQ("size", U64, fork_size),
      REQ("reason", STR, fork_reason),
      REQ("evidence", STR, fork_evidence));

TABLE(kix_msg_info_table, T, NONE,
      REQ("origin", STR, origin),
      REQ("logKey", STR, log_key),
      REQ("size", U64, size),
      OPT("version", STR, version),
      F("mirror", BOOL, mirror, .flags = KIX_MSG_OPT | KIX_MSG_ALWAYS, .aux = NOAUX),
      F("limits", MAP, limits, .flags = KIX_MSG_OPT, .aux = offsetof(T, has_limits), .sub = &kix_msg_limits_table),
      OPT("upstream", STR, upstream),
      OPT("upstreamSize", U64, upstream_size),
      OPT("lagEntries", U64, lag_entries),
      OPT("lagSeconds", U64, lag_seconds),
      OPT("lastError", STR, last_error),
      MAP_IN("fork", offsetof(T, has_fork), kix_msg_fork_table),
      OPT("committed", U64, committed));
#undef T

/* ---- submit ------------------------------------------------------------------------------ */

#define T struct kix_msg_bundle
TABLE(kix_msg_bundle_table, T, NONE,
      REQ("envelope", BIN, envelope),
      ARRAY("objects", BINS, objects, nobjects, KIX_MSG_OPT, 0, 0));
#undef T

#define T struct kix_msg_submit_params
TABLE(kix_msg_submit_params_table, T, OWNED(T),
      ARRAY("bundles", LIST, bundles, nbundles, KIX_MSG_LIMIT, 0, 1, .min = 1, .noun = "bundles in one submit", .sub = &kix_msg_bundle_table));
#undef T

/* an item is {error: {code, message}} or the four fields of an entry */
#define T struct kix_msg_submit_item
TABLE(kix_msg_submit_error_table, T, NONE,
      F("code", I64, code, .flags = KIX_MSG_NEG, .aux = NOAUX),
      REQ("message", STR, message));
TABLE(kix_msg_submit_item_table, T, NONE,
      MAP_IN("error", NOAUX, kix_msg_submit_error_table),
      GUARDED("index", U64, index, 0, IF_OK(code)),
      GUARDED("leafHash", HASH, leaf_hash, 0, IF_OK(code)),
      GUARDED("duplicate", BOOL, duplicate, 0, IF_OK(code)),
      GUARDED("receipt", STR, receipt, 0, IF_OK(code)));
#undef T

#define T struct kix_msg_submit_result
TABLE(kix_msg_submit_result_table, T, OWNED(T),
      ARRAY("results", LIST, results, nresults, 0, 0, 1, .sub = &kix_msg_submit_item_table),
      REQ("size", U64, size));
#undef T

/* ---- objects ------------------------------------------------------------------------------ */

#define T struct kix_msg_get_object_params
TABLE(kix_msg_get_object_params_table, T, NONE,
      REQ("digest", DIGEST, digest));
#undef T
#define T struct kix_msg_get_object_result
TABLE(kix_msg_get_object_result_table, T, NONE,
      REQ("object", BIN, object));
#undef T

#define T struct kix_msg_get_objects_params
TABLE(kix_msg_get_objects_params_table, T, OWNED(T),
      ARRAY("digests", DIGESTS, digests, ndigests, KIX_MSG_LIMIT, 0, 1, .noun = "digests asked for"));
#undef T
#define T struct kix_msg_get_objects_result
TABLE(kix_msg_get_objects_result_table, T, OWNED(T),
      ARRAY("objects", BINS, objects, nobjects, KIX_MSG_NIL, 0, 1));
#undef T

/* ---- entries ------------------------------------------------------------------------------ */

#define T struct kix_msg_get_entries_params
TABLE(kix_msg_get_entries_params_table, T, NONE,
      REQ("start", U64, start),
      REQ("count", U64, count));
#undef T

#define T struct kix_msg_entries
TABLE(kix_msg_entries_table, T, OWNED(T),
      REQ("start", U64, start),
      ARRAY("entries", BINS, entries, nentries, 0, 0, 1));
TABLE(kix_msg_entries_notification_table, T, OWNED(T),
      REQ("start", U64, start),
      ARRAY("entries", BINS, entries, nentries, 0, 0, 1),
      OPT("checkpoint", STR, checkpoint));
#undef T

/* ---- checkpoint, proofs, receipt ------------------------------------------------------------ */

#define T struct kix_msg_checkpoint_params
TABLE(kix_msg_checkpoint_params_table, T, NONE,
      OPT("size", U64, size));
#undef T
#define T struct kix_msg_checkpoint_result
TABLE(kix_msg_checkpoint_result_table, T, NONE,
      REQ("checkpoint", STR, checkpoint),
      REQ("size", U64, size));
#undef T

#define T struct kix_msg_index_params
TABLE(kix_msg_index_params_table, T, NONE,
      REQ("index", U64, index),
      OPT("size", U64, size));
#undef T
#define T struct kix_msg_inclusion_result
TABLE(kix_msg_inclusion_result_table, T, NONE,
      REQ("index", U64, index),
      REQ("size", U64, size),
      REQ("leafHash", HASH, leaf_hash),
      ARRAY("proof", PROOF, proof, nproof, 0, KIX_MSG_MAX_PROOF, 0));
#undef T

#define T struct kix_msg_consistency_params
TABLE(kix_msg_consistency_params_table, T, NONE,
      REQ("size1", U64, size1),
      OPT("size2", U64, size2));
#undef T
#define T struct kix_msg_consistency_result
TABLE(kix_msg_consistency_result_table, T, NONE,
      REQ("size1", U64, size1),
      REQ("size2", U64, size2),
      ARRAY("proof", PROOF, proof, nproof, 0, KIX_MSG_MAX_PROOF, 0));
#undef T

#define T struct kix_msg_receipt_result
TABLE(kix_msg_receipt_result_table, T, NONE,
      REQ("receipt", STR, receipt));
#undef T

/* ---- resolve -------------------------------------------------------------------------------- */

#define T struct kix_msg_resolve_params
TABLE(kix_msg_resolve_params_table, T, NONE,
      SIZED("ref", STR, ref, 0, 1, KIX_MSG_REF_MAX),
      F("from", U64, from, .flags = KIX_MSG_OPT | KIX_MSG_ZERO, .aux = NOAUX));
#undef T

#define T struct kix_msg_resolve_object
TABLE(kix_msg_resolve_object_table, T, NONE,
      REQ("digest", DIGEST, digest),
      REQ("object", BIN, object));
#undef T
#define T struct kix_msg_resolve_entry
TABLE(kix_msg_resolve_entry_table, T, NONE,
      REQ("index", U64, index),
      REQ("type", STR, type),
      REQ("leaf", BIN, leaf),
      ARRAY("proof", PROOF, proof, nproof, 0, KIX_MSG_MAX_PROOF, 0));
#undef T

/* a ranked run's four fields come together (read when "rank" is there);
 * the index's come with indexNote, the group's with groupRecord */
#define T struct kix_msg_resolve_result
TABLE(kix_msg_resolve_result_table, T, OWNED(T),
      REQ("runId", STR, run_id),
      REQ("digest", DIGEST, digest),
      REQ("permalink", STR, permalink),
      REQ("evidence", STR, evidence),
      OPT("evidenceIndex", U64, evidence_index),
      OPT("successor", STR, successor),
      OPT("predecessor", STR, predecessor),
      OPT("supersededByIndex", U64, superseded_by_index),
      OPT("supersedesIndex", U64, supersedes_index),
      REQ("rank", FLAG, ranked),
      GUARDED("comparisonKey", DIGEST, comparison_key, 0, IF_BOOL(ranked)),
      GUARDED("rank", U64, rank, 0, IF_BOOL(ranked)),
      GUARDED("groupSize", U64, group_size, 0, IF_BOOL(ranked)),
      GUARDED("best", STR, best, 0, IF_BOOL(ranked)),
      REQ("publisher", KEYID, publisher),
      REQ("publicationIndex", U64, publication_index),
      REQ("attestations", U64, attestations),
      REQ("reruns", U64, reruns),
      REQ("manifest", BIN, manifest),
      ARRAY("objects", LIST, objects, nobjects, 0, 0, 1, .sub = &kix_msg_resolve_object_table),
      ARRAY("entries", LIST, entries, nentries, 0, 0, 2, .sub = &kix_msg_resolve_entry_table),
      REQ("checkpoint", STR, checkpoint),
      OPT("indexNote", STR, index_note),
      GUARDED("runRecord", BIN, run_record, 0, IF_PTR(index_note)),
      GUARDED("runProof", BIN, run_proof, 0, IF_PTR(index_note)),
      GUARDED("entriesFrom", U64, entries_from, 0, IF_PTR(index_note)),
      GUARDED("groupRecord", BIN, group_record, KIX_MSG_OPT, IF_PTR(index_note)),
      GUARDED("groupProof", BIN, group_proof, 0, IF_PTR(group_record)),
      GUARDED("groupPage", BIN, group_page, 0, IF_PTR(group_record)),
      GUARDED("groupPageProof", BIN, group_page_proof, 0, IF_PTR(group_record)),
      REQ("size", U64, size));
#undef T

/* ---- index_proof ------------------------------------------------------------------------------
 */

#define T struct kix_msg_vindex_params
TABLE(kix_msg_vindex_params_table, T, NONE,
      SIZED("key", STR, key, 0, 1, KIX_MSG_REF_MAX));
#undef T
#define T struct kix_msg_vindex_result
TABLE(kix_msg_vindex_result_table, T, NONE,
      REQ("key", STR, key),
      REQ("present", BOOL, present),
      GUARDED("record", BIN, record, 0, IF_BOOL(present)),
      REQ("proof", BIN, proof),
      REQ("checkpoint", STR, checkpoint),
      REQ("indexNote", STR, index_note),
      REQ("size", U64, size));
#undef T

/* ---- checkpoints ------------------------------------------------------------------------------
 */

#define T struct kix_msg_checkpoints_params
TABLE(kix_msg_checkpoints_params_table, T, NONE,
      REQ("after", U64, after),
      OPT("limit", U64, limit));
#undef T
#define T struct kix_msg_checkpoint_item
TABLE(kix_msg_checkpoint_item_table, T, NONE,
      REQ("size", U64, size),
      REQ("checkpoint", STR, checkpoint),
      OPT("indexNote", STR, index_note));
#undef T
#define T struct kix_msg_checkpoints_result
TABLE(kix_msg_checkpoints_result_table, T, OWNED(T),
      ARRAY("checkpoints", LIST, checkpoints, ncheckpoints, 0, 0, 1, .sub = &kix_msg_checkpoint_item_table));
#undef T

/* ---- query ------------------------------------------------------------------------------------
 */

#define T struct kix_msg_query_params
TABLE(kix_msg_query_params_table, T, NONE,
      SIZED("kernel", STR, kernel, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_TEXT_MAX),
      SIZED("gpu", STR, gpu, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_TEXT_MAX),
      SIZED("provider", STR, provider, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_TEXT_MAX),
      SIZED("mode", STR, mode, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_SHORT_MAX),
      SIZED("metric", STR, metric, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_SHORT_MAX),
      SIZED("dtype", STR, dtype, KIX_MSG_OPT | KIX_MSG_TEXT, 0, KIX_MSG_QUERY_TEXT_MAX),
      OPT_HAS("group", DIGEST, group, has_group),
      OPT("offset", U64, offset),
      OPT("limit", U64, limit));
#undef T
#define T struct kix_msg_query_run
TABLE(kix_msg_query_run_table, T, NONE,
      REQ("runId", STR, run_id),
      REQ("digest", DIGEST, digest),
      REQ("group", DIGEST, group),
      REQ("rank", U64, rank),
      REQ("groupSize", U64, group_size),
      REQ("value", U64, value),
      REQ("evidence", STR, evidence),
      REQ("kernel", STR, kernel),
      REQ("gpu", STR, gpu),
      REQ("provider", STR, provider),
      REQ("mode", STR, mode),
      REQ("metric", STR, metric));
#undef T
#define T struct kix_msg_query_result
TABLE(kix_msg_query_result_table, T, OWNED(T),
      REQ("matched", U64, matched),
      ARRAY("runs", LIST, runs, nruns, 0, 0, 1, .sub = &kix_msg_query_run_table));
#undef T

/* ---- follow, replicated, add_cosignature --------------------------------------------------------
 */

#define T struct kix_msg_follow_params
TABLE(kix_msg_follow_params_table, T, NONE,
      REQ("from", U64, from),
      OPT("replica", BOOL, replica));
#undef T
#define T struct kix_msg_size_result
TABLE(kix_msg_size_result_table, T, NONE,
      REQ("size", U64, size));
#undef T

#define T struct kix_msg_replicated_params
TABLE(kix_msg_replicated_params_table, T, NONE,
      REQ("size", U64, size),
      REQ("root", HASH, root),
      SIZED("mirror", STR, mirror, 0, 1, 64),
      SIZED("cosignature", STR, cosignature, KIX_MSG_OPT, 1, KIX_MSG_COSIGNATURE_MAX),
      SIZED("held", STR, held, KIX_MSG_OPT, 1, KIX_MSG_COSIGNATURE_MAX));
#undef T

#define T struct kix_msg_add_cosignature_params
TABLE(kix_msg_add_cosignature_params_table, T, NONE,
      REQ("checkpoint", STR, checkpoint),
      REQ("cosignature", STR, cosignature));
#undef T
#define T struct kix_msg_add_cosignature_result
TABLE(kix_msg_add_cosignature_result_table, T, NONE,
      REQ("size", U64, size),
      REQ("stored", BOOL, stored));
#undef T

/* clang-format on */

/* info takes no params: an empty map */
static const struct kix_msg_table no_params = {"kix_msg_no_params", 0, NONE, 0, NULL};

const struct kix_msg_method kix_msg_methods[] = {
    {"info", &no_params, &kix_msg_info_table},
    {"submit", &kix_msg_submit_params_table, &kix_msg_submit_result_table},
    {"get_object", &kix_msg_get_object_params_table, &kix_msg_get_object_result_table},
    {"get_objects", &kix_msg_get_objects_params_table, &kix_msg_get_objects_result_table},
    {"get_entries", &kix_msg_get_entries_params_table, &kix_msg_entries_table},
    {"checkpoint", &kix_msg_checkpoint_params_table, &kix_msg_checkpoint_result_table},
    {"inclusion_proof", &kix_msg_index_params_table, &kix_msg_inclusion_result_table},
    {"consistency_proof", &kix_msg_consistency_params_table, &kix_msg_consistency_result_table},
    {"receipt", &kix_msg_index_params_table, &kix_msg_receipt_result_table},
    {"resolve", &kix_msg_resolve_params_table, &kix_msg_resolve_result_table},
    {"follow", &kix_msg_follow_params_table, &kix_msg_size_result_table},
    {"replicated", &kix_msg_replicated_params_table, &kix_msg_size_result_table},
    {"checkpoints", &kix_msg_checkpoints_params_table, &kix_msg_checkpoints_result_table},
    {"query", &kix_msg_query_params_table, &kix_msg_query_result_table},
    {"add_cosignature", &kix_msg_add_cosignature_params_table,
     &kix_msg_add_cosignature_result_table},
    {"index_proof", &kix_msg_vindex_params_table, &kix_msg_vindex_result_table},
};
const size_t kix_msg_nmethods = sizeof(kix_msg_methods) / sizeof(kix_msg_methods[0]);
