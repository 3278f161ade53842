/* smt_mem.h — test-only: a sparse Merkle tree's tiles (kix_smt_tiles,
 * kix/smt.h) kept in an in-memory hash map, so a test tool builds and proves
 * a tree as kixd stores it, with no LMDB. Used by tests/tools/kix-smt-dump.c
 * and tests/tools/kix-js-vectors.c. The map owns its entries; free(m.e). */
#ifndef KIX_TESTS_SMT_MEM_H
#define KIX_TESTS_SMT_MEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kix/smt.h"

/* The stored tiles (kix_smt_tiles over a hash map of key bytes): the tree
 * is kept as kixd keeps it. */
struct ent {
    size_t klen; /* 0: unused slot */
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    size_t vlen;
    uint8_t val[KIX_SMT_TILE_MAX];
};

struct map {
    struct ent *e;
    size_t cap, n;
};

static struct ent *smt_map_slot(struct map *m, const uint8_t *key, size_t klen)
{
    uint64_t h = klen * 0x9e3779b97f4a7c15ull;
    size_t i;

    for (size_t k = 0; k < klen; k++)
        h = (h ^ key[k]) * 0x100000001b3ull;
    h ^= h >> 33; /* keys are short: mix the last bytes in */
    h *= 0xff51afd7ed558ccdull;
    i = (size_t)(h >> 33) & (m->cap - 1);
    while (m->e[i].klen && (m->e[i].klen != klen || memcmp(m->e[i].key, key, klen)))
        i = (i + 1) & (m->cap - 1);
    return &m->e[i];
}

static int smt_map_get(void *ctx, const uint8_t *key, size_t klen, struct kix_bytes *out,
                       struct kix_err *err)
{
    struct ent *e = smt_map_slot(ctx, key, klen);

    (void)err;
    if (!e->klen)
        return KIX_ENOTFOUND;
    out->ptr = e->val;
    out->len = e->vlen;
    return KIX_OK;
}

static int smt_map_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                       struct kix_err *err)
{
    struct map *m = ctx;
    struct ent *e;

    if (klen == 0 || klen > KIX_SMT_TILE_KEY_MAX || vlen > KIX_SMT_TILE_MAX)
        return kix_err_set(err, KIX_EINVAL, "tile of %zu bytes at a key of %zu", vlen, klen);
    if (2 * (m->n + 1) > m->cap) {
        struct map bigger = {calloc(m->cap * 2, sizeof(struct ent)), m->cap * 2, m->n};
        if (!bigger.e)
            return KIX_ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].klen)
                *smt_map_slot(&bigger, m->e[i].key, m->e[i].klen) = m->e[i];
        free(m->e);
        *m = bigger;
    }
    e = smt_map_slot(m, key, klen);
    if (!e->klen) {
        e->klen = klen;
        memcpy(e->key, key, klen);
        m->n++;
    }
    memcpy(e->val, val, vlen);
    e->vlen = vlen;
    return KIX_OK;
}

#endif
