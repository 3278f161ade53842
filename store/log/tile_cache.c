/* The tile cache (tile_cache.h). */
#include "tile_cache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kix/assert.h"
#include "kix/merkle.h"

/* Full tiles of levels 1 to CACHE_LEVELS, the first CACHE_SLOTS of each:
 * at most 256 x 16 KiB a level, and level 1 alone covers 2^24 entries. */
#define CACHE_LEVELS 7u
#define CACHE_SLOTS  256u
/* a full tile's record: its width, then rows of 256, 128, ... 2 hashes (kix/merkle.h) */
#define FULL_TILE (2u + KIX_HASH_LEN * (2u * KIX_TILE_WIDTH - 2u))

struct kix__tile_cache {
    _Atomic(uint8_t *) slot[CACHE_LEVELS][CACHE_SLOTS];
};

struct kix__tile_cache *kix__tile_cache_new(void)
{
    return calloc(1, sizeof(struct kix__tile_cache));
}

void kix__tile_cache_free(struct kix__tile_cache *c)
{
    if (!c)
        return;
    for (unsigned l = 0; l < CACHE_LEVELS; l++)
        for (unsigned i = 0; i < CACHE_SLOTS; i++)
            free(atomic_load(&c->slot[l][i]));
    free(c);
}

static _Atomic(uint8_t *) *slot_of(struct kix__tile_cache *c, uint32_t level, uint64_t index)
{
    if (level < 1 || level > CACHE_LEVELS || index >= CACHE_SLOTS)
        return NULL;
    return &c->slot[level - 1][index];
}

int kix__tile_cache_get(struct kix__tile_cache *c, uint32_t level, uint64_t index,
                        struct kix_bytes *out)
{
    _Atomic(uint8_t *) *slot = slot_of(c, level, index);
    uint8_t *cached = slot ? atomic_load(slot) : NULL;

    if (!cached)
        return 0;
    KIX_ASSERT(((unsigned)cached[0] << 8 | cached[1]) == KIX_TILE_WIDTH); /* only full tiles */
    out->ptr = cached;
    out->len = FULL_TILE;
    return 1;
}

void kix__tile_cache_offer(struct kix__tile_cache *c, uint32_t level, uint64_t index,
                           const uint8_t *tile, size_t len)
{
    _Atomic(uint8_t *) *slot = slot_of(c, level, index);
    uint8_t *copy, *none = NULL;

    if (!slot || len != FULL_TILE || ((unsigned)tile[0] << 8 | tile[1]) != KIX_TILE_WIDTH)
        return;
    copy = malloc(FULL_TILE);
    if (!copy)
        return; /* a cache: the next read tries again */
    memcpy(copy, tile, FULL_TILE);
    if (!atomic_compare_exchange_strong(slot, &none, copy)) {
        /* another reader filled it first: a full tile never changes, so
         * two committed snapshots must agree on its bytes */
        KIX_ASSERT(memcmp(none, copy, FULL_TILE) == 0);
        free(copy);
    }
}
