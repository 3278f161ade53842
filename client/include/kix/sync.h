/* kix/sync.h — copying a log into a local replica, verifying everything.
 *
 * kix_sync() is what an auditor (kix audit) and a mirror (kixd
 * --mirror-of) both run: it fetches the upstream's entries, the objects
 * each entry needs and the upstream's signed checkpoints, and replays them
 * into a replica (kix_log_replay): every signature against the key
 * registry as it stood at that index, every policy rule, every object's
 * digest and references, and the recomputed root at each checkpoint. Whole
 * upstream batches commit together with their checkpoint, so a replica is
 * always a verified prefix. It never trusts the upstream.
 *
 * Errors: the first violation, with its index and reason (KIX_EVERIFY,
 * KIX_EPOLICY, KIX_EINVAL); KIX_EUNAVAIL and the like from the upstream.
 */
#ifndef KIX_SYNC_H
#define KIX_SYNC_H

#include "kix/api.h"

#include "kix/client.h"

typedef void (*kix_sync_progress_fn)(void *ctx, uint64_t size, uint64_t target);

/* What a kix_sync did (kix_sync_opts.stats; filled also on failure). */
struct kix_sync_stats {
    uint64_t batches;    /* upstream batches replayed (replica transactions) */
    uint64_t overlapped; /* of them, fetched and prepared while the one before replayed */
    uint64_t entries;    /* entries replayed */
    /* of them, whose signature was verified before the replay, on the
     * pipeline's threads (the others the single replay thread verified) */
    uint64_t verified_ahead;
    /* upstream checkpoints replayed whose notes (the checkpoint and its
     * index note) were verified before the replay, on the pipeline's
     * threads (the others the replay thread verified) */
    uint64_t checkpoints_ahead;
    /* entries of the first batch and of the last one: nothing overlaps
     * the first's fetch nor the last's replay (kix_sync keeps them short) */
    uint64_t first_batch, last_batch;
    /* threads that prepared a batch, each of its steps (parsing the
     * leaves, preparing the objects) on that many at least: the most
     * over the batches */
    unsigned threads;
    /* objects looked up in the replica (whether it holds one an entry
     * needs): each at most once a batch */
    uint64_t replica_reads;
};

struct kix_sync_opts {
    size_t max_batch;              /* entries per replica transaction; 0 = 1024 */
    unsigned threads;              /* signature-verifying threads; 0 = one per CPU */
    kix_sync_progress_fn progress; /* called after each committed batch */
    void *progress_ctx;
    /* asked before each batch (with progress_ctx); nonzero stops kix_sync,
     * which returns KIX_OK with *synced short of the target */
    int (*cancel)(void *ctx);
    struct kix_sync_stats *stats; /* NULL, or zeroed and filled */
};

/* Syncs `replica` from `up` up to size `target` (KIX_NO_INDEX: the
 * upstream's latest checkpoint). *synced (may be NULL) gets the replica's
 * size afterwards, also on failure (what was verified before it). */
KIX_API int kix_sync(struct kix_client *up, struct kix_log *replica, uint64_t target,
                     const struct kix_sync_opts *opts, uint64_t *synced,
                     struct kix_err *err) KIX_MUST_CHECK;

#endif
