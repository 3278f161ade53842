/* kix/resolve.h — everything the log says about one run, with proofs.
 *
 * kix_index_resolve() gathers, from one read snapshot: the run's manifest and
 * the objects it references, every entry about the run (publication,
 * attestations, reruns, supersessions) each with its inclusion proof
 * against the latest checkpoint, and that signed checkpoint. The same
 * struct comes back from a kixd (client side), where nothing in it is
 * trusted until kix_resolution_verify() has checked it against the log's
 * key: the checkpoint signature, each entry's inclusion proof, the digest of
 * the manifest and of every object, and that every entry is about this run.
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

#include "kix/index.h"

#define KIX_RESOLVE_MAX_OBJECTS 64u
#define KIX_RESOLVE_MAX_ENTRIES 4096u

struct kix_resolution_entry {
    uint64_t index;
    int type; /* enum kix_entry_type */
    struct kix_bytes leaf;
    size_t nproof;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
};

struct kix_resolution_object {
    struct kix_digest digest;
    struct kix_bytes bytes;
};

struct kix_resolution {
    struct kix_run_info run;              /* run_id, manifest digest, indexes, evidence */
    char successor[KIX_RUN_ID_MAX + 1];   /* run that superseded this one, or "" */
    char predecessor[KIX_RUN_ID_MAX + 1]; /* run this one superseded, or "" */
    struct kix_bytes manifest;
    size_t nobjects;
    struct kix_resolution_object objects[KIX_RESOLVE_MAX_OBJECTS];
    size_t nentries;
    struct kix_resolution_entry *entries; /* malloc'ed */
    struct kix_rank rank;                 /* in its comparison group, as the server
                                             computed it (audit recomputes it) */
    struct kix_bytes checkpoint;          /* signed note */
    uint64_t size;                        /* the checkpoint's tree size */
    void *backing;
    void (*backing_free)(void *backing);
};

void kix_resolution_init(struct kix_resolution *res);
void kix_resolution_release(struct kix_resolution *res);

/* Splits a reference: *run_id set for a run permalink or bare run id,
 * *digest for an object permalink or bare digest. KIX_EINVAL otherwise.
 * origin (may be NULL) must match a permalink's host part. */
int kix_ref_parse(const char *ref, size_t len, const char *origin, char run_id[KIX_RUN_ID_MAX + 1],
                  int *is_digest, struct kix_digest *digest, struct kix_err *err) KIX_MUST_CHECK;

/* Writes "https://<origin>/runs/<runId>". */
int kix_permalink(const char *origin, const char *run_id, struct kix_buf *out) KIX_MUST_CHECK;

/* Local resolution from one snapshot (views borrow from r, except the
 * checkpoint when it carries witness cosignatures: then it lives in
 * `backing`). */
int kix_index_resolve(struct kix_log_reader *r, const char *ref, size_t len,
                      struct kix_resolution *out, struct kix_err *err) KIX_MUST_CHECK;

/* Verifies a resolution against the log key (see above) and recomputes
 * run.evidence, run.reruns, run.attestations and the supersession links from
 * the verified entries. cp (may be NULL) receives the checkpoint. */
int kix_resolution_verify(struct kix_resolution *res, const struct kix_verifier *log_key,
                          struct kix_checkpoint *cp, struct kix_err *err) KIX_MUST_CHECK;

#endif
