/* The index tree's tiles as the writer last read or wrote them, kept from
 * one write transaction to the next (kix_log_txn_writer_state): each
 * commit's seal walks the routes of its changed keys from the root, and
 * without them every commit read the same upper tiles again from LMDB and
 * unpacked them (up to six SHA-256 a tile). A tile is kept as tile_get
 * returns it (unpacked), so what is kept is what the store gives back. The
 * log drops the whole cache when a write transaction does not commit or
 * another writer committed between, so it never holds what the store does
 * not. Direct-mapped: a bounded size, and the upper tiles, read by every
 * seal, come back after a collision evicts one. */
#include <string.h>
#include <sys/mman.h>

#include "index_internal.h"

#define KEEP_SLOTS 8192 /* ~8 MB when full, mapped lazily */

struct kept_tile {
    uint8_t klen; /* 0: empty (a store key has at least its stratum byte) */
    uint16_t len, vouched;
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    uint8_t val[KIX_SMT_TILE_MAX];
};

struct tile_keep {
    struct kept_tile slot[KEEP_SLOTS];
};

/* Mapped, not calloc'ed: with the heaps' 32 MiB top pad
 * (kix_parallel_heap_pad) glibc served the table from the heap and zeroed
 * all 8 MB by hand, ~2,000 page faults and 1.4% of an audit's CPU; a
 * mapping's pages are zero and faulted in only for the slots used. */
static struct tile_keep *keep_new(void)
{
    void *k = mmap(NULL, sizeof(struct tile_keep), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return k == MAP_FAILED ? NULL : k;
}

static void keep_free(void *k)
{
    if (k)
        munmap(k, sizeof(struct tile_keep));
}

static struct kept_tile *slot_for(struct tile_keep *k, const uint8_t *key, size_t klen)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (size_t i = 0; i < klen; i++)
        h = (h ^ key[i]) * 16777619u;
    return &k->slot[h & (KEEP_SLOTS - 1)];
}

const uint8_t *kix__tile_keep_get(struct kix_log_txn *t, const uint8_t *key, size_t klen,
                                  size_t *len, unsigned *vouched)
{
    struct tile_keep *k = kix_log_txn_writer_state(t);
    struct kept_tile *s;

    if (!k)
        return NULL;
    s = slot_for(k, key, klen);
    if (s->klen != klen || memcmp(s->key, key, klen) != 0)
        return NULL;
    *len = s->len;
    *vouched = s->vouched;
    return s->val;
}

void kix__tile_keep_put(struct kix_log_txn *t, const uint8_t *key, size_t klen, const uint8_t *val,
                        size_t len, unsigned vouched)
{
    struct tile_keep *k = kix_log_txn_writer_state(t);
    struct kept_tile *s;

    /* only the writer's transaction keeps tiles (a reader has no scratch) */
    if (klen == 0 || klen > KIX_SMT_TILE_KEY_MAX || len > KIX_SMT_TILE_MAX ||
        !kix_log_txn_scratch(t))
        return;
    if (!k) {
        /* without memory nothing is kept, and tiles are read as before */
        k = keep_new();
        if (!k || kix_log_txn_set_writer_state(t, k, keep_free) != KIX_OK) {
            keep_free(k);
            return;
        }
    }
    s = slot_for(k, key, klen);
    s->klen = (uint8_t)klen;
    s->len = (uint16_t)len;
    s->vouched = (uint16_t)vouched;
    memcpy(s->key, key, klen);
    memmove(s->val, val, len); /* val may be this slot's own bytes */
}
