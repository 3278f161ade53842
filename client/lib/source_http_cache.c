/* What the HTTP source keeps on disk between runs (http_cache.h), and why
 * what it reads back can be believed no more than what the network sends.
 *
 * Nothing is kept or used before the client has verified a checkpoint of
 * the log (kix_client_cache_verified: signature, witnesses, consistency
 * with the one it remembered); the cache then belongs to that log
 * (origin + key hash). Files named by their SHA-256 (objects, index
 * records) are kept and used only when their bytes hash to their name. A
 * full hash tile or entry bundle is kept and used only when it is part of
 * the verified tree, as Go's tlog.TileHashReader checks it: the tree's
 * root is computed from the tiles on its right edge (kix_tiles_root, which
 * reads those edge tiles from the network: they are partial, never kept)
 * and must be the checkpoint's; a full tile's root (its 256 hashes' Merkle
 * root) must be the hash its parent tile holds for it, up to an edge tile
 * the root check read; a bundle's entries must hash to the leaf hashes of
 * its full tile, checked so. A file that fails is removed and read from
 * the network once, in the same call: a damaged or poisoned cache costs a
 * fetch, never a false proof or an alarm. */
#include <stdlib.h>
#include <string.h>

#include "http_cache.h"
#include "kix/digest.h"
#include "kix/merkle.h"
#include "kix/note.h"
#include "kix/sha256.h"
#include "kix/tlog_path.h"
#include "kix/trust.h"
#include "source_http_internal.h"

#define ROW_BYTES ((size_t)KIX_TLOG_WIDTH * KIX_HASH_LEN)

void http_cache_clear(struct http_source *h)
{
    for (size_t i = 0; i < h->nedge; i++)
        free(h->edge[i].rec);
    h->nedge = 0;
    h->root_state = 0;
}

void http_cache_capture(struct http_source *h, uint32_t level, uint64_t index,
                        const struct kix_bytes *rec)
{
    struct http_edge *e;

    if (!h->checking_root || h->nedge == HTTP_EDGE_MAX)
        return;
    e = &h->edge[h->nedge];
    if (!(e->rec = malloc(rec->len ? rec->len : 1)))
        return; /* not captured: the tiles above it are not believed */
    memcpy(e->rec, rec->ptr, rec->len);
    e->len = rec->len;
    e->level = level;
    e->index = index;
    h->nedge++;
}

/* 1 when the tiles on the verified tree's right edge hash to its root
 * (checked once per verified tree; the edge tiles are kept in h->edge). */
static int root_checked(struct http_source *h)
{
    struct kix_tile_io io;
    struct kix_hash root;
    uint64_t saved = h->io_size;
    int rc;

    if (h->root_state)
        return h->root_state > 0;
    http_cache_clear(h);
    h->checking_root = 1;
    io = http_tile_io(h, h->vsize);
    rc = kix_tiles_root(&io, h->vsize, &root, NULL);
    h->checking_root = 0;
    h->io_size = saved;
    h->root_state = rc == KIX_OK && memcmp(root.b, h->vroot, 32) == 0 ? 1 : -1;
    return h->root_state > 0;
}

static void row_root(const uint8_t *row, struct kix_hash *out)
{
    kix_merkle_root((const struct kix_hash *)row, KIX_TLOG_WIDTH, out);
}

/* 1 when row (the 256 hashes of full tile (level, index)) is part of the
 * verified tree. */
static int tile_in_tree(struct http_source *h, uint32_t level, uint64_t index, const uint8_t *row)
{
    struct kix_tile_io io;
    struct kix_hash node;
    uint64_t saved = h->io_size;
    int ok = 0;

    if (!root_checked(h))
        return 0;
    row_root(row, &node);
    io = http_tile_io(h, h->vsize);
    for (;;) {
        unsigned pos = (unsigned)(index % KIX_TLOG_WIDTH), width;
        struct kix_bytes rec;
        const struct http_edge *edge = NULL;

        level++;
        index /= KIX_TLOG_WIDTH;
        width = kix_tlog_tile_width(h->vsize, level, index);
        for (size_t i = 0; i < h->nedge; i++)
            if (h->edge[i].level == level && h->edge[i].index == index)
                edge = &h->edge[i];
        if (width <= pos)
            break;
        if (width < KIX_TLOG_WIDTH) { /* the edge: believed only as the root check read it */
            ok = edge && edge->len >= 2 + (size_t)(pos + 1) * KIX_HASH_LEN &&
                 memcmp(edge->rec + 2 + (size_t)pos * KIX_HASH_LEN, node.b, KIX_HASH_LEN) == 0;
            break;
        }
        if (io.read(io.ctx, level, index, &rec, NULL) != KIX_OK || rec.len < 2 + ROW_BYTES ||
            memcmp(rec.ptr + 2 + (size_t)pos * KIX_HASH_LEN, node.b, KIX_HASH_LEN) != 0)
            break;
        row_root(rec.ptr + 2, &node); /* this full tile in turn, by its parent */
    }
    h->io_size = saved;
    return ok;
}

/* 1 when bundle (full entry bundle index) holds the leaves of the verified tree. */
static int bundle_in_tree(struct http_source *h, uint64_t index, const uint8_t *b, size_t len)
{
    struct kix_tile_io io = http_tile_io(h, h->vsize);
    struct kix_bytes rec;
    uint8_t *row = malloc(ROW_BYTES);
    uint64_t saved = h->io_size;
    size_t off = 0, i = 0;
    int ok = 0;

    if (row && io.read(io.ctx, 0, index, &rec, NULL) == KIX_OK && rec.len >= 2 + ROW_BYTES) {
        memcpy(row, rec.ptr + 2, ROW_BYTES);
        for (; i < KIX_TLOG_WIDTH && off + 2 <= len; i++) {
            size_t n = ((size_t)b[off] << 8) | b[off + 1];
            struct kix_hash leaf;
            if (off + 2 + n > len)
                break;
            kix_merkle_leaf_hash(b + off + 2, n, &leaf);
            if (memcmp(leaf.b, row + i * KIX_HASH_LEN, KIX_HASH_LEN) != 0)
                break;
            off += 2 + n;
        }
        ok = i == KIX_TLOG_WIDTH && off == len && tile_in_tree(h, 0, index, row);
    }
    h->io_size = saved;
    free(row);
    return ok;
}

static int in_tree(struct http_source *h, const struct kix_tlog_path *p, const uint8_t *b,
                   size_t len)
{
    if (p->kind == KIX_TLOG_ENTRIES)
        return bundle_in_tree(h, p->index, b, len);
    return len == ROW_BYTES && tile_in_tree(h, p->level, p->index, b);
}

/* A full tile or bundle the verified tree holds whole (the others change). */
static int keepable(const struct http_source *h, const struct kix_tlog_path *p)
{
    return h->cache && !h->checking_root && h->root_state >= 0 && p->width == KIX_TLOG_WIDTH &&
           kix_tlog_tile_width(h->vsize, p->kind == KIX_TLOG_ENTRIES ? 0 : p->level, p->index) ==
               KIX_TLOG_WIDTH;
}

int http_cache_fetch(struct http_source *h, const struct kix_tlog_path *p, const char *path,
                     size_t max, struct kix_buf *out, struct kix_err *err)
{
    size_t at = out->len;
    int rc;

    if (!keepable(h, p))
        return http_get(h->get, path, max, out, err);
    if (http_cache_get(h->cache, path, max, out) == KIX_OK) {
        if (in_tree(h, p, out->ptr + at, out->len - at))
            return KIX_OK;
        out->len = at;
        http_cache_drop(h->cache, path); /* damaged or false: read again, once */
    }
    rc = http_get(h->get, path, max, out, err);
    if (rc == KIX_OK && in_tree(h, p, out->ptr + at, out->len - at))
        http_cache_put(h->cache, path, out->ptr + at, out->len - at);
    return rc;
}

/* 1 when bytes are exactly the file named name: their SHA-256 (objects,
 * index records), or for an index tile (http_itile_named) its records. */
static int named(const uint8_t *bytes, size_t len, const uint8_t name[32], enum http_named kind)
{
    uint8_t sum[32];

    if (kind == HTTP_NAMED_ITILE)
        return http_itile_named(bytes, len, name);
    kix_sha256(bytes, len, sum);
    return memcmp(sum, name, 32) == 0;
}

int http_cache_named_get(struct http_source *h, const char *path, const uint8_t name[32],
                         enum http_named kind, size_t max, struct kix_buf *out)
{
    size_t at = out->len;

    if (!h->cache || http_cache_get(h->cache, path, max, out) != KIX_OK)
        return KIX_ENOTFOUND;
    if (named(out->ptr + at, out->len - at, name, kind))
        return KIX_OK;
    out->len = at;
    http_cache_drop(h->cache, path); /* damaged or false: read again, once */
    return KIX_ENOTFOUND;
}

void http_cache_named_put(struct http_source *h, const char *path, const uint8_t name[32],
                          enum http_named kind, const uint8_t *bytes, size_t len)
{
    if (h->cache && named(bytes, len, name, kind))
        http_cache_put(h->cache, path, bytes, len);
}

/* Keeps the full tiles and the bundle read before the tree was verified
 * (the consistency proof's): later reads find them in memory, not here. */
static void keep_read(struct http_source *h)
{
    char path[KIX_TLOG_PATH_MAX + 1];
    uint8_t *row = malloc(ROW_BYTES);

    for (size_t i = 0; row && i < HTTP_TILE_CACHE; i++) {
        const struct http_tile *t = &h->tiles[i];
        struct kix_tlog_path p = {KIX_TLOG_TILE, t->level, t->index, KIX_TLOG_WIDTH};
        if (!t->rec || t->width != KIX_TLOG_WIDTH || !keepable(h, &p) ||
            kix_tlog_path_format(&p, path, sizeof(path)) != KIX_OK ||
            http_cache_has(h->cache, path))
            continue;
        memcpy(row, t->rec + 2, ROW_BYTES); /* checking reads tiles: the slot may move */
        if (tile_in_tree(h, p.level, p.index, row))
            http_cache_put(h->cache, path, row, ROW_BYTES);
    }
    free(row);
    if (h->bundle.ptr && h->bundle_width == KIX_TLOG_WIDTH) {
        struct kix_tlog_path p = {KIX_TLOG_ENTRIES, 0, h->bundle_index, KIX_TLOG_WIDTH};
        struct kix_buf copy = KIX_BUF_INIT;
        if (keepable(h, &p) && kix_tlog_path_format(&p, path, sizeof(path)) == KIX_OK &&
            !http_cache_has(h->cache, path) &&
            kix_buf_add(&copy, h->bundle.ptr, h->bundle.len) == KIX_OK &&
            bundle_in_tree(h, p.index, copy.ptr, copy.len))
            http_cache_put(h->cache, path, copy.ptr, copy.len);
        kix_buf_release(&copy);
    }
}

int http_cache_verified(struct kix_source *s, const char *cache_root,
                        const struct kix_verifier *key, const struct kix_checkpoint *cp,
                        struct kix_err *err)
{
    struct http_source *h = http_of(s);
    char name[KIX_NOTE_NAME_MAX + 16];
    int rc;

    if (strcmp(key->name, cp->origin) != 0)
        return KIX_OK; /* not this log's checkpoint: nothing learnt */
    if (!h->cache) {
        if (kix_trust_log_name(key, name, sizeof(name)) != KIX_OK)
            return KIX_OK;
        rc = http_cache_open(cache_root, name, &h->cache, err);
        if (rc)
            return rc;
        h->cache_key_hash = key->key_hash;
    } else if (h->cache_key_hash != key->key_hash) {
        return KIX_OK; /* one log per cache */
    }
    if (cp->size <= h->vsize)
        return KIX_OK;
    h->vsize = cp->size;
    memcpy(h->vroot, cp->root, 32);
    http_cache_clear(h);
    keep_read(h);
    return KIX_OK;
}
