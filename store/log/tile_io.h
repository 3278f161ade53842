/* Internal to kix_log: the Merkle code's tile storage (struct kix_tile_io,
 * kix/merkle.h) in the store's tiles table, for the writer, readers and
 * the offline check. */
#ifndef KIX_TILE_IO_H
#define KIX_TILE_IO_H

#include "db.h"
#include "kix/merkle.h"

struct kix__tile_ctx {
    struct kix_store *store;
    MDB_txn *txn;
    /* a committed snapshot (a reader): full upper tiles may come from and
     * go to the store's tile cache. Never a write transaction, which may
     * abort, nor the check, which reads the stored bytes themselves. */
    int snapshot;
    uint64_t cached; /* reads answered from the cache */
};
void kix__tile_io_init(struct kix_tile_io *io, struct kix__tile_ctx *ctx);

#endif
