/* The Merkle code's tile storage (struct kix_tile_io, kix/merkle.h) in the
 * store's tiles table, through the tile cache for committed snapshots. */
#include "tile_io.h"

#include "kix/assert.h"
#include "kix/encoding.h"

static void tile_key(uint8_t key[9], uint32_t level, uint64_t index)
{
    key[0] = (uint8_t)level;
    kix_u64be_put(key + 1, index);
}

static int tile_read(void *arg, uint32_t level, uint64_t index, struct kix_bytes *out,
                     struct kix_err *err)
{
    struct kix__tile_ctx *c = arg;
    uint8_t k[9];
    MDB_val key = {9, k}, val;
    int rc;

    if (c->snapshot && kix__tile_cache_get(c->store->tile_cache, level, index, out)) {
        c->cached++;
        return KIX_OK;
    }
    tile_key(k, level, index);
    rc = mdb_get(c->txn, c->store->dbi[T_TILES], &key, &val);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc)
        return kix__db_error(rc, err, "reading a tree tile");
    if (c->snapshot)
        /* the cache never sees a write transaction's tiles, which may abort */
        kix__tile_cache_offer(c->store->tile_cache, level, index, val.mv_data, val.mv_size);
    out->ptr = val.mv_data;
    out->len = val.mv_size;
    return KIX_OK;
}

static int tile_write(void *arg, uint32_t level, uint64_t index, const uint8_t *data, size_t len,
                      struct kix_err *err)
{
    struct kix__tile_ctx *c = arg;
    uint8_t k[9];
    MDB_val key = {9, k}, val = {len, (void *)data};
    int rc;

    /* a snapshot is read-only and the cache holds only committed tiles */
    KIX_ASSERT(!c->snapshot && kix__db_writing(c->store));
    KIX_ASSERT(len >= 2 && len <= 2u + KIX_HASH_LEN * (2u * KIX_TILE_WIDTH - 2u));
    tile_key(k, level, index);
    rc = mdb_put(c->txn, c->store->dbi[T_TILES], &key, &val, 0);
    return rc ? kix__db_error(rc, err, "writing a tree tile") : KIX_OK;
}

void kix__tile_io_init(struct kix_tile_io *io, struct kix__tile_ctx *ctx)
{
    io->read = tile_read;
    io->write = tile_write;
    io->ctx = ctx;
    io->reads = 0;
}
