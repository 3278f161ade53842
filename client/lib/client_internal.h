/* Internal to kix_client: the two transports behind struct kix_client.
 * A local store is used directly through the store layers (client.c);
 * remote.c implements kix__remote_* over kixd. client.c picks. */
#ifndef KIX_CLIENT_INTERNAL_H
#define KIX_CLIENT_INTERNAL_H

#include "kix/client.h"

struct kix__remote; /* remote.c: the connection to a kixd */

struct kix_client {
    struct kix_log *log;        /* local store, or NULL */
    struct kix__remote *remote; /* kixd connection, or NULL */
    char where[4200];
};

int kix__remote_connect(const char *addr, const struct kix_client_opts *opts,
                        struct kix__remote **out, struct kix_err *err);
void kix__remote_close(struct kix__remote *r);
int kix__remote_info(struct kix__remote *r, struct kix_client_info *out, struct kix_err *err);
int kix__remote_checkpoint(struct kix__remote *r, uint64_t size, struct kix_buf *note,
                           struct kix_err *err);
int kix__remote_entries(struct kix__remote *r, uint64_t start, uint64_t count, kix_entry_fn fn,
                        void *ctx, uint64_t *got, struct kix_err *err);
int kix__remote_checkpoints(struct kix__remote *r, uint64_t after, size_t limit,
                            kix_checkpoint_fn fn, void *ctx, struct kix_err *err);
/* fn gets the bytes the server returned, unchecked (the caller checks). */
int kix__remote_get_objects(struct kix__remote *r, const struct kix_digest *digests, size_t n,
                            kix_object_fn fn, void *ctx, struct kix_err *err);
int kix__remote_query(struct kix__remote *r, const struct kix_query *q, kix_query_fn fn, void *ctx,
                      uint64_t *matched, struct kix_err *err);
int kix__remote_inclusion(struct kix__remote *r, uint64_t index, uint64_t size,
                          struct kix_hash *proof, size_t *n, struct kix_err *err);
int kix__remote_consistency(struct kix__remote *r, uint64_t size1, uint64_t size2,
                            struct kix_hash *proof, size_t *n, struct kix_err *err);
int kix__remote_receipt(struct kix__remote *r, uint64_t index, uint64_t size, struct kix_buf *out,
                        struct kix_err *err);
/* Appends the bytes the server returned (the caller checks the digest). */
int kix__remote_get_object(struct kix__remote *r, const struct kix_digest *d, struct kix_buf *out,
                           struct kix_err *err);
int kix__remote_submit(struct kix__remote *r, const struct kix_bundle *bundles, size_t n,
                       struct kix_submit_result *results, struct kix_err *err);
int kix__remote_add_cosignature(struct kix__remote *r, const char *checkpoint, size_t len,
                                const char *line, size_t line_len, struct kix_err *err);
/* The index_proof method: bytes appended to the caller's buffers. */
int kix__remote_index_proof(struct kix__remote *r, const char *key, struct kix_buf *record,
                            int *present, struct kix_buf *proof, struct kix_buf *checkpoint,
                            struct kix_buf *index_note, struct kix_err *err);
int kix__remote_resolve(struct kix__remote *r, const char *ref, uint64_t from,
                        struct kix_resolution *out, struct kix_err *err);

#endif
