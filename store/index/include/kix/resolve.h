/* kix/resolve.h — everything the log says about one run, with proofs.
 *
 * kix_index_resolve() gathers, from one read snapshot: the run's manifest and
 * the objects it references, every entry about the run (publication,
 * attestations, reruns, supersessions) each with its inclusion proof
 * against the latest checkpoint, and that signed checkpoint. The same
 * struct comes back from a kixd (client side), where nothing in it is
 * trusted until kix_resolution_verify() has checked it against the log's
 * key: the checkpoint signature, each entry's inclusion proof, the digest of
 * the manifest and of every object, that every object is one the manifest
 * references (and each it names by a field of kix_run_object_fields is
 * there), and that every entry is about this run.
 * The evidence level is then derived from the verified entries, never taken
 * from the server.
 *
 * References accepted: a permalink https://<origin>/runs/<runId> or
 * https://<origin>/objects/sha256:<hex>, a bare run id, or a manifest digest.
 *
 * Memory: all views (kix_bytes) borrow from the reader (local) or from the
 * decoded answer (remote) that `backing` keeps alive; kix_resolution_release
 * frees the entry list and the backing.
 */
#ifndef KIX_RESOLVE_H
#define KIX_RESOLVE_H

#include "kix/api.h"

#include "kix/index.h"
#include "kix/vindex.h"

#define KIX_RESOLVE_MAX_OBJECTS 64u
#define KIX_RESOLVE_MAX_ENTRIES 4096u

struct kix_resolution_entry {
    uint64_t index;
    int type; /* enum kix_entry_type */
    struct kix_bytes leaf;
    size_t nproof;
    struct kix_hash *proof; /* nproof hashes, malloc'ed (kix_resolution_release
                               frees them): a run may have 100,000 entries */
};

/* Sets e's inclusion proof to a malloc'ed copy of n hashes. KIX_ENOMEM. */
KIX_API int kix_resolution_entry_set_proof(struct kix_resolution_entry *e,
                                           const struct kix_hash *proof, size_t n) KIX_MUST_CHECK;

/* The fields of a run manifest's spec that name an object, and the kind of
 * record each must name: the "x-kix-kind" digest fields of
 * proto/schema/benchmark-run.schema.json (tests/unit/test_resolve_objects.c
 * holds the two together). Readers pick an object by the digest its field
 * holds, never by its kind alone. */
struct kix_run_object_field {
    const char *field; /* under spec: "workloadDigest" */
    const char *kind;  /* "Workload" */
};
#define KIX_RUN_OBJECT_FIELDS 4u
KIX_API extern const struct kix_run_object_field kix_run_object_fields[KIX_RUN_OBJECT_FIELDS];

struct kix_resolution_object {
    struct kix_digest digest;
    struct kix_bytes bytes;
};

struct kix_resolution {
    struct kix_run_info run;              /* run_id, manifest digest, indexes, evidence */
    char successor[KIX_RUN_ID_MAX + 1];   /* run that superseded this one, or "" */
    char predecessor[KIX_RUN_ID_MAX + 1]; /* run this one superseded, or "" */
    struct kix_bytes manifest;
    size_t nobjects; /* objects the manifest references, each once: all of
                        them up to the maximum, those its object fields name
                        (kix_run_object_fields) always among them */
    struct kix_resolution_object objects[KIX_RESOLVE_MAX_OBJECTS];
    size_t nentries;
    struct kix_resolution_entry *entries; /* malloc'ed */
    struct kix_rank rank;                 /* in its comparison group: the server's
                                             word until verified, then computed from
                                             the proven group record */
    struct kix_bytes checkpoint;          /* signed note */
    uint64_t size;                        /* the checkpoint's tree size */
    /* The verifiable index (kix/vindex.h): the index note signed at size,
     * the run's record with its proof, and the group's when ranked. The
     * entries are those at positions entries_from.. of the run's list, in
     * pages of at most KIX_RESOLVE_MAX_ENTRIES (kix_index_resolve_from). */
    struct kix_bytes index_note, run_record, run_proof, group_record, group_proof;
    /* a ranked run's page of its group (group_record is the directory) */
    struct kix_bytes group_page, group_page_proof;
    uint64_t entries_from;
    /* Set by kix_resolution_verify: */
    struct kix_vindex_run record; /* the proven record */
    int complete;                 /* all entries seen, chaining to the record */
    struct kix_hash chain;        /* over the entries seen so far */
    uint64_t chained;             /* how many */
    int published;
    void *backing;
    void (*backing_free)(void *backing);
    /* further pages merged in (kix_resolution_merge) */
    void **pages;
    size_t npages;
};

KIX_API void kix_resolution_init(struct kix_resolution *res);
KIX_API void kix_resolution_release(struct kix_resolution *res);

/* Splits a reference: *run_id set for a run permalink or bare run id,
 * *digest for an object permalink or bare digest. KIX_EINVAL otherwise.
 * origin (may be NULL) must match a permalink's host part. */
KIX_API int kix_ref_parse(const char *ref, size_t len, const char *origin,
                          char run_id[KIX_RUN_ID_MAX + 1], int *is_digest,
                          struct kix_digest *digest, struct kix_err *err) KIX_MUST_CHECK;

/* Writes "https://<origin>/runs/<runId>". */
KIX_API int kix_permalink(const char *origin, const char *run_id,
                          struct kix_buf *out) KIX_MUST_CHECK;

/* Local resolution from one snapshot (views borrow from r, except the
 * checkpoint when it carries witness cosignatures: then it lives in
 * `backing`). */
KIX_API int kix_index_resolve(struct kix_log_reader *r, const char *ref, size_t len,
                              struct kix_resolution *out, struct kix_err *err) KIX_MUST_CHECK;
/* The same from position `from` of the run's entry list, at most `limit`
 * entries (0: KIX_RESOLVE_MAX_ENTRIES). */
KIX_API int kix_index_resolve_from(struct kix_log_reader *r, const char *ref, size_t len,
                                   uint64_t from, size_t limit, struct kix_resolution *out,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* Verifies a resolution against the log key (see above) and recomputes
 * run.evidence, run.reruns, run.attestations and the supersession links from
 * the verified entries. With the verifiable index it also proves the run's
 * record against the signed index root, and the group record, from which
 * it computes res->rank; when the entries are complete (res->complete) they
 * must chain to the record and agree with it field by field. An answer
 * without the index proofs is refused. cp (may be NULL) receives the
 * checkpoint. A page after the first (entries_from > 0) continues from the
 * tally of the pages merged before it (kix_resolution_merge). */
KIX_API int kix_resolution_verify(struct kix_resolution *res, const struct kix_verifier *log_key,
                                  struct kix_checkpoint *cp, struct kix_err *err) KIX_MUST_CHECK;

/* Verifies `page` (the next page of res's entries, at res->chained) as a
 * continuation of res, then moves its entries and backing into res, whose
 * checkpoint, record and rank become the page's. page is left empty. */
KIX_API int kix_resolution_merge(struct kix_resolution *res, struct kix_resolution *page,
                                 const struct kix_verifier *log_key, struct kix_checkpoint *cp,
                                 struct kix_err *err) KIX_MUST_CHECK;

#endif
