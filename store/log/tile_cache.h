/* Internal to kix_log: the store's cache of full Merkle tiles above level
 * 0, as read from committed snapshots. A full tile never changes (the log
 * only grows), so a copy taken from a committed snapshot stays true; the
 * tiles cached lie on nearly every proof's path, so a proof reads one
 * stored tile (its leaf's) where it read several. Thread-safe: slots are
 * filled once (compare-and-swap) and freed with the cache. No LMDB here:
 * tile_io.c reads through it. */
#ifndef KIX_TILE_CACHE_H
#define KIX_TILE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"

struct kix__tile_cache;

/* NULL when out of memory. */
struct kix__tile_cache *kix__tile_cache_new(void);
void kix__tile_cache_free(struct kix__tile_cache *c);

/* The cached tile at level/index (a view until the cache is freed), or 0
 * when it is not cached. */
int kix__tile_cache_get(struct kix__tile_cache *c, uint32_t level, uint64_t index,
                        struct kix_bytes *out);
/* Offers the bytes of a tile just read from a committed snapshot: kept
 * when the cache holds tiles of that place and the tile is full. */
void kix__tile_cache_offer(struct kix__tile_cache *c, uint32_t level, uint64_t index,
                           const uint8_t *tile, size_t len);

#endif
