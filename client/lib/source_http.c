/* The HTTP source (kix/source.h): a log read as C2SP tlog-tiles from any
 * web server, CDN or `kixd serve --http` (proto/PROTOCOL.md §3). It fetches
 * files and computes proofs from them; like every source it trusts none of
 * them (kix_client and its callers verify). Proofs come from the hash
 * tiles (kix_tiles_* over the tiles fetched, each completed in memory with
 * the rows above its bottom one), entries from the entry bundles, objects
 * from objects/<digest>, index proofs from the index's tiles
 * (source_http_index.c), a run's resolution from its view document runs/<runId>.json (which
 * names the entries; everything in it is proven again here or by
 * kix_resolution_verify) and queries from the index's records
 * (source_http_query.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_cache.h"
#include "http_get.h"
#include "kix/clock.h"
#include "kix/encoding.h"
#include "kix/merkle.h"
#include "kix/note.h"
#include "kix/object_pack.h"
#include "kix/source.h"
#include "kix/tlog_path.h"
#include "source_http_internal.h"

/* bounds on what is read (PROTOCOL.md §3) */
#define CHECKPOINT_MAX (64u * 1024u)
#define TILE_MAX       (KIX_TLOG_WIDTH * KIX_HASH_LEN)
#define BUNDLE_MAX     (KIX_TLOG_WIDTH * (2u + 65535u))

struct http_source *http_of(struct kix_source *s)
{
    return (struct http_source *)s;
}

static void http_close(struct kix_source *s)
{
    struct http_source *h = http_of(s);

    http_get_close(h->get);
    kix_buf_release(&h->latest);
    for (size_t i = 0; i < HTTP_TILE_CACHE; i++)
        free(h->tiles[i].rec);
    free(h->bundle.ptr);
    http_index_clear(h);
    kix_buf_release(&h->note);
    http_blobs_clear(&h->objects);
    http_blobs_clear(&h->records);
    http_cache_clear(h);
    http_cache_close(h->cache);
    free(h);
}

/* The signed text of a note: up to and including the newline before the
 * blank line. */
static int note_text(const uint8_t *note, size_t len, size_t *text_len)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (note[i] == '\n' && note[i + 1] == '\n') {
            *text_len = i + 1;
            return KIX_OK;
        }
    return KIX_EPROTO;
}

uint64_t http_latest_age_ms(const struct http_source *h)
{
    return h->have_latest ? kix_clock_ms() - h->latest_ms : UINT64_MAX;
}

int http_latest(struct http_source *h, int refresh, struct kix_err *err)
{
    struct kix_checkpoint cp;
    size_t n;
    int rc;

    if (h->have_latest && !refresh)
        return KIX_OK;
    kix_buf_reset(&h->latest);
    h->have_latest = 0;
    rc = http_get(h->get, "checkpoint", CHECKPOINT_MAX, &h->latest, err);
    if (rc)
        return rc;
    /* unverified: only to know which tiles to read; the caller verifies */
    if (note_text(h->latest.ptr, h->latest.len, &n) != KIX_OK ||
        kix_checkpoint_parse((const char *)h->latest.ptr, n, &cp, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EPROTO, "%s: its checkpoint is not a checkpoint note",
                           h->base.where);
    h->latest_size = cp.size;
    snprintf(h->origin, sizeof(h->origin), "%s", cp.origin);
    h->have_latest = 1;
    h->latest_ms = kix_clock_ms();
    return KIX_OK;
}

static int http_info(struct kix_source *s, struct kix_client_info *out, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    int rc = http_latest(h, 1, err);

    if (rc)
        return rc;
    memset(out, 0, sizeof(*out));
    snprintf(out->origin, sizeof(out->origin), "%s", h->origin);
    snprintf(out->version, sizeof(out->version), "tlog-tiles");
    out->size = h->latest_size;
    out->mirror = 1; /* read-only */
    return KIX_OK;
}

static int http_checkpoint(struct kix_source *s, uint64_t size, struct kix_buf *note,
                           struct kix_err *err)
{
    struct http_source *h = http_of(s);
    int rc = http_latest(h, 1, err);

    if (rc)
        return rc;
    if (size != KIX_NO_INDEX && size != h->latest_size)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "%s serves only its latest checkpoint (size %llu), not size %llu",
                           s->where, (unsigned long long)h->latest_size, (unsigned long long)size);
    rc = kix_buf_add(note, h->latest.ptr, h->latest.len);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* A static copy signs one checkpoint at a time: the latest, with the index
 * note of its size when the copy has index files. A mirror or an audit
 * replays up to it in one step. */
static int http_checkpoints(struct kix_source *s, uint64_t after, size_t limit,
                            kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    struct kix_buf note = KIX_BUF_INIT;
    int rc = http_latest(h, 1, err);

    if (rc || h->latest_size <= after || limit == 0)
        return rc;
    rc = http_index_note(h, &note, err);
    if (rc == KIX_ENOTSUP) {
        kix_buf_reset(&note);
        rc = KIX_OK;
    }
    if (rc == KIX_OK)
        rc = fn(ctx, h->latest_size, h->latest.ptr, h->latest.len, note.ptr, note.len);
    kix_buf_release(&note);
    return rc;
}

/* ---- tiles ------------------------------------------------------------------ */

static int fetch_resource(struct http_source *h, enum kix_tlog_kind kind, uint32_t level,
                          uint64_t index, unsigned width, size_t max, struct kix_buf *out,
                          struct kix_err *err)
{
    struct kix_tlog_path p = {kind, level, index, width};
    char path[KIX_TLOG_PATH_MAX + 1];

    if (kix_tlog_path_format(&p, path, sizeof(path)) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "no tile %u/%llu of width %u", level,
                           (unsigned long long)index, width);
    return http_cache_fetch(h, &p, path, max, out, err);
}

/* kix/merkle.h's tile record from a tlog-tiles tile: the width, the bottom
 * row as fetched, and each complete row above it hashed from the one below. */
static int complete_tile(const uint8_t *row0, unsigned width, uint8_t **rec, size_t *len)
{
    size_t hashes = 0, off;
    uint8_t *r;

    for (unsigned w = width, k = 0; k < KIX_TILE_HEIGHT; k++, w /= 2)
        hashes += w;
    r = malloc(2 + hashes * KIX_HASH_LEN);
    if (!r)
        return KIX_ENOMEM;
    r[0] = (uint8_t)(width >> 8);
    r[1] = (uint8_t)width;
    memcpy(r + 2, row0, (size_t)width * KIX_HASH_LEN);
    off = 2;
    for (unsigned w = width, k = 1; k < KIX_TILE_HEIGHT; k++) {
        const uint8_t *below = r + off;
        uint8_t *row = r + off + (size_t)w * KIX_HASH_LEN;
        for (unsigned i = 0; i < w / 2; i++)
            kix_merkle_node_hash((const struct kix_hash *)(below + 2 * i * KIX_HASH_LEN),
                                 (const struct kix_hash *)(below + (2 * i + 1) * KIX_HASH_LEN),
                                 (struct kix_hash *)(row + i * KIX_HASH_LEN));
        off += (size_t)w * KIX_HASH_LEN;
        w /= 2;
    }
    *rec = r;
    *len = 2 + hashes * KIX_HASH_LEN;
    return KIX_OK;
}

/* kix_tile_io.read over fetched tiles, at the width h->io_size gives. */
static int tile_read(void *ctx, uint32_t level, uint64_t index, struct kix_bytes *out,
                     struct kix_err *err)
{
    struct http_source *h = ctx;
    unsigned width = kix_tlog_tile_width(h->io_size, level, index);
    struct http_tile *t;
    struct kix_buf row = KIX_BUF_INIT;
    int rc;

    if (width == 0)
        return KIX_ENOTFOUND;
    for (size_t i = 0; i < HTTP_TILE_CACHE; i++) {
        t = &h->tiles[i];
        if (t->rec && t->level == level && t->index == index && t->width >= width) {
            out->ptr = t->rec;
            out->len = t->len;
            http_cache_capture(h, level, index, out);
            return KIX_OK;
        }
    }
    rc = fetch_resource(h, KIX_TLOG_TILE, level, index, width, TILE_MAX, &row, err);
    if (rc == KIX_OK && row.len != (size_t)width * KIX_HASH_LEN)
        rc = kix_err_set(err, KIX_EPROTO, "%s: tile %u/%llu has %zu bytes, not %u hashes",
                         h->base.where, level, (unsigned long long)index, row.len, width);
    t = &h->tiles[h->next_tile]; /* after the fetch: checking a kept tile reads others */
    if (rc == KIX_OK) {
        free(t->rec);
        t->rec = NULL;
        rc = complete_tile(row.ptr, width, &t->rec, &t->len);
        if (rc)
            kix_err_set(err, rc, "out of memory");
    }
    kix_buf_release(&row);
    if (rc)
        return rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc;
    t->level = level;
    t->index = index;
    t->width = width;
    h->next_tile = (h->next_tile + 1) % HTTP_TILE_CACHE;
    out->ptr = t->rec;
    out->len = t->len;
    http_cache_capture(h, level, index, out);
    return KIX_OK;
}

static int tile_write(void *ctx, uint32_t level, uint64_t index, const uint8_t *data, size_t len,
                      struct kix_err *err)
{
    (void)ctx, (void)level, (void)index, (void)data, (void)len;
    return kix_err_set(err, KIX_EREADONLY, "the HTTP source writes no tiles");
}

struct kix_tile_io http_tile_io(struct http_source *h, uint64_t size)
{
    struct kix_tile_io io = {tile_read, tile_write, h, 0};
    h->io_size = size;
    return io;
}

static int sized(struct http_source *h, uint64_t *size, struct kix_err *err)
{
    int rc;

    if (*size != KIX_NO_INDEX)
        return KIX_OK;
    rc = http_latest(h, 0, err);
    if (rc == KIX_OK)
        *size = h->latest_size;
    return rc;
}

int http_inclusion_at(struct http_source *h, uint64_t index, uint64_t size,
                      struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n, struct kix_err *err)
{
    struct kix_tile_io io;
    int rc = sized(h, &size, err);

    if (rc)
        return rc;
    if (index >= size)
        return kix_err_set(err, KIX_ENOTFOUND, "entry %llu is past the tree of size %llu",
                           (unsigned long long)index, (unsigned long long)size);
    io = http_tile_io(h, size);
    return kix_tiles_inclusion_proof(&io, index, size, proof, n, err);
}

static int http_inclusion(struct kix_source *s, uint64_t index, uint64_t size,
                          struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                          struct kix_err *err)
{
    return http_inclusion_at(http_of(s), index, size, proof, n, err);
}

static int http_consistency(struct kix_source *s, uint64_t size1, uint64_t size2,
                            struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                            struct kix_err *err)
{
    struct http_source *h = http_of(s);
    struct kix_tile_io io;
    int rc = sized(h, &size2, err);

    if (rc)
        return rc;
    if (size1 > size2)
        return kix_err_set(err, KIX_EINVAL, "no consistency proof from size %llu to %llu",
                           (unsigned long long)size1, (unsigned long long)size2);
    *n = 0;
    if (size1 == 0 || size1 == size2)
        return KIX_OK;
    io = http_tile_io(h, size2);
    return kix_tiles_consistency_proof(&io, size1, size2, proof, n, err);
}

/* ---- entries ------------------------------------------------------------------ */

/* Makes b, fetched as bundle n of width leaves, the bundle kept (taking
 * b's memory) when it holds exactly that many leaves. */
static int bundle_load(struct http_source *h, uint64_t n, unsigned width, struct kix_buf *b,
                       struct kix_err *err)
{
    size_t off = 0, count = 0;

    /* each leaf a 2-byte length and its bytes: exactly width of them */
    for (off = 0; off + 2 <= b->len && count < width; count++) {
        size_t len = ((size_t)b->ptr[off] << 8) | b->ptr[off + 1];
        if (off + 2 + len > b->len)
            break;
        h->bundle_off[count] = off + 2;
        h->bundle_len[count] = len;
        off += 2 + len;
    }
    if (count != width || off != b->len) {
        /* the offsets above belong to no bundle now */
        free(h->bundle.ptr);
        h->bundle = (struct kix_buf)KIX_BUF_INIT;
        return kix_err_set(err, KIX_EPROTO, "%s: entry bundle %llu does not hold %u entries",
                           h->base.where, (unsigned long long)n, width);
    }
    free(h->bundle.ptr);
    h->bundle = *b;
    *b = (struct kix_buf)KIX_BUF_INIT;
    h->bundle_index = n;
    h->bundle_width = width;
    return KIX_OK;
}

/* 1 when the bundle kept is bundle n of the tree of size (or a wider
 * copy of it). */
static int bundle_kept(const struct http_source *h, uint64_t n, uint64_t size)
{
    return h->bundle.ptr && h->bundle_index == n &&
           h->bundle_width >= kix_tlog_tile_width(size, 0, n);
}

/* The bundle holding entry index at size, kept until another is asked for. */
int http_bundle(struct http_source *h, uint64_t index, uint64_t size, struct kix_err *err)
{
    uint64_t n = index / KIX_TLOG_WIDTH;
    unsigned width = kix_tlog_tile_width(size, 0, n);
    struct kix_buf b = KIX_BUF_INIT;
    int rc;

    if (width == 0)
        return kix_err_set(err, KIX_ENOTFOUND, "entry %llu is past the tree of size %llu",
                           (unsigned long long)index, (unsigned long long)size);
    if (bundle_kept(h, n, size))
        return KIX_OK;
    rc = fetch_resource(h, KIX_TLOG_ENTRIES, 0, n, width, BUNDLE_MAX, &b, err);
    if (rc == KIX_OK)
        rc = bundle_load(h, n, width, &b, err);
    kix_buf_release(&b);
    return rc;
}

void http_bundle_leaf(const struct http_source *h, uint64_t index, struct kix_bytes *leaf)
{
    size_t i = (size_t)(index % KIX_TLOG_WIDTH);
    leaf->ptr = h->bundle.ptr + h->bundle_off[i];
    leaf->len = h->bundle_len[i];
}

/* Entries [start, end) of the tree of size, handed to fn from the bundles
 * that hold them: one bundle as http_bundle reads it (the disk cache
 * first), more (an audit's, a mirror's) fetched as one batch
 * (http_get_many). */
struct entry_range {
    struct http_source *h;
    uint64_t size, start, end;
    uint64_t first; /* the first bundle of the batch */
    kix_entry_fn fn;
    void *ctx;
    uint64_t got;
};

/* Hands fn the range's entries in the bundle kept. */
static int range_leaves(struct entry_range *r)
{
    uint64_t lo = r->h->bundle_index * KIX_TLOG_WIDTH, hi = lo + r->h->bundle_width;
    int rc = KIX_OK;

    for (uint64_t i = lo > r->start ? lo : r->start; rc == KIX_OK && i < hi && i < r->end; i++) {
        struct kix_bytes leaf;
        http_bundle_leaf(r->h, i, &leaf);
        rc = r->fn(r->ctx, i, leaf.ptr, leaf.len);
        r->got += rc == KIX_OK;
    }
    return rc;
}

static int range_bundle_path(void *arg, size_t i, char *path, size_t cap)
{
    struct entry_range *r = arg;
    struct kix_tlog_path p = {KIX_TLOG_ENTRIES, 0, r->first + i, 0};

    p.width = kix_tlog_tile_width(r->size, 0, r->first + i);
    return kix_tlog_path_format(&p, path, cap);
}

static int range_bundle(void *arg, size_t i, int rc, struct kix_buf *body, struct kix_err *err)
{
    struct entry_range *r = arg;
    uint64_t n = r->first + i;

    if (rc == KIX_OK)
        rc = bundle_load(r->h, n, kix_tlog_tile_width(r->size, 0, n), body, err);
    return rc ? rc : range_leaves(r);
}

static int http_entries(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn,
                        void *ctx, uint64_t *got, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    struct entry_range r = {h, KIX_NO_INDEX, start, start, 0, fn, ctx, 0};
    uint64_t last;
    int rc = sized(h, &r.size, err);

    if (rc == KIX_OK && start < r.size) {
        r.end = count < r.size - start ? start + count : r.size;
        r.first = start / KIX_TLOG_WIDTH;
        last = (r.end - 1) / KIX_TLOG_WIDTH;
        /* the bundle kept, and a last one alone (a reader's entries), as
         * http_bundle reads them: from memory, else the disk cache first */
        while (rc == KIX_OK && r.end > start && r.first <= last &&
               (r.first == last || bundle_kept(h, r.first, r.size))) {
            rc = http_bundle(h, r.first * KIX_TLOG_WIDTH, r.size, err);
            if (rc == KIX_OK)
                rc = range_leaves(&r);
            r.first++;
        }
        if (rc == KIX_OK && r.end > start && r.first <= last)
            rc = http_get_many(h->get, (size_t)(last - r.first + 1), BUNDLE_MAX, range_bundle_path,
                               range_bundle, &r, err);
    }
    if (got)
        *got = r.got;
    return rc;
}

/* ---- files named by their content ----------------------------------------------- */

static size_t blob_bucket(const uint8_t name[32])
{
    return ((size_t)name[0] | (size_t)name[1] << 8 | (size_t)name[2] << 16) &
           (HTTP_BLOB_BUCKETS - 1);
}

int http_blobs_get(const struct http_blobs *c, const uint8_t name[32], struct kix_buf *out)
{
    for (unsigned i = c->bucket[blob_bucket(name)]; i; i = c->slot[i - 1].chain) {
        const struct http_blob *b = &c->slot[i - 1];
        if (memcmp(b->name, name, 32) == 0)
            return kix_buf_add(out, b->bytes, b->len);
    }
    return KIX_ENOTFOUND;
}

/* Takes slot i out of its bucket's chain. */
static void blob_unlink(struct http_blobs *c, size_t i)
{
    uint16_t *link = &c->bucket[blob_bucket(c->slot[i].name)];

    while (*link && *link != i + 1)
        link = &c->slot[*link - 1].chain;
    if (*link)
        *link = c->slot[i].chain;
}

void http_blobs_put(struct http_blobs *c, const uint8_t name[32], const uint8_t *bytes, size_t len)
{
    size_t i = c->next, k = blob_bucket(name);
    struct http_blob *b = &c->slot[i];
    uint8_t *copy;

    if (len > HTTP_BLOB_MAX || !(copy = malloc(len ? len : 1)))
        return; /* not kept: read again when asked again */
    memcpy(copy, bytes, len);
    if (b->bytes)
        blob_unlink(c, i);
    free(b->bytes);
    memcpy(b->name, name, 32);
    b->bytes = copy;
    b->len = len;
    b->chain = c->bucket[k];
    c->bucket[k] = (uint16_t)(i + 1);
    c->next = (i + 1) % HTTP_BLOB_CACHE;
}

void http_blobs_clear(struct http_blobs *c)
{
    for (size_t i = 0; i < HTTP_BLOB_CACHE; i++)
        free(c->slot[i].bytes);
    memset(c, 0, sizeof(*c));
}

/* ---- objects -------------------------------------------------------------------- */

static void object_path(const struct kix_digest *d, char *path, size_t cap)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(d, text);
    snprintf(path, cap, "objects/%s", text);
}

/* An object already read, by this command or (checked against its name)
 * by an earlier one from the disk cache (appended to out): KIX_OK, or
 * KIX_ENOTFOUND. */
static int object_known(struct http_source *h, const struct kix_digest *d, struct kix_buf *out)
{
    char path[KIX_DIGEST_TEXT_LEN + 16];

    if (http_blobs_get(&h->objects, d->b, out) == KIX_OK)
        return KIX_OK;
    object_path(d, path, sizeof(path));
    return http_cache_named_get(h, path, d->b, HTTP_NAMED_SHA256, HTTP_OBJECT_MAX, out);
}

/* Keeps an object read, in memory and in the disk cache, only when it is
 * the object named (the client checks anyway). */
static void object_keep(struct http_source *h, const struct kix_digest *d, const uint8_t *bytes,
                        size_t len)
{
    char path[KIX_DIGEST_TEXT_LEN + 16];
    struct kix_digest got;

    kix_digest_of(bytes, len, &got);
    if (memcmp(got.b, d->b, 32) != 0)
        return;
    http_blobs_put(&h->objects, d->b, bytes, len);
    object_path(d, path, sizeof(path));
    http_cache_named_put(h, path, d->b, HTTP_NAMED_SHA256, bytes, len);
}

static int http_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                       struct kix_err *err)
{
    struct http_source *h = http_of(s);
    char path[KIX_DIGEST_TEXT_LEN + 16];
    size_t at = out->len;
    int rc;

    if (object_known(h, d, out) == KIX_OK)
        return KIX_OK;
    object_path(d, path, sizeof(path));
    rc = http_get(h->get, path, HTTP_OBJECT_MAX, out, err);
    if (rc == KIX_ENOTFOUND) /* a run's manifest: in its page */
        rc = http_manifest_in_page(h, d, out, err);
    if (rc == KIX_OK)
        object_keep(h, d, out->ptr + at, out->len - at);
    return rc;
}

/* Objects not read before, fetched as one batch (http_get_many): each is
 * handed to fn in order, as the serial reads did. */
struct object_batch {
    struct http_source *h;
    const struct kix_digest *digests; /* the batch's first */
    size_t first;                     /* its index in the caller's list */
    kix_object_fn fn;
    void *ctx;
};

static int object_batch_path(void *arg, size_t i, char *path, size_t cap)
{
    struct object_batch *b = arg;

    if (cap < KIX_DIGEST_TEXT_LEN + 16)
        return KIX_EINVAL;
    object_path(&b->digests[i], path, cap);
    return KIX_OK;
}

static int object_batch_item(void *arg, size_t i, int rc, struct kix_buf *body, struct kix_err *err)
{
    struct object_batch *b = arg;

    if (rc == KIX_ENOTFOUND) { /* a run's manifest: in its page */
        struct kix_err ignored = {0};
        kix_buf_reset(body);
        rc = http_manifest_in_page(b->h, &b->digests[i], body, &ignored);
        if (rc == KIX_EVERIFY && err)
            *err = ignored;
        if (rc != KIX_OK && rc != KIX_ENOTFOUND)
            return rc;
    }
    if (rc == KIX_ENOTFOUND)
        return b->fn(b->ctx, b->first + i, NULL, 0);
    if (rc)
        return rc;
    object_keep(b->h, &b->digests[i], body->ptr ? body->ptr : (const uint8_t *)"", body->len);
    return b->fn(b->ctx, b->first + i, body->ptr ? body->ptr : (const uint8_t *)"", body->len);
}

static int http_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                        kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    struct kix_buf b = KIX_BUF_INIT;
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < n;) {
        struct object_batch ob = {h, &digests[i], i, fn, ctx};
        size_t end = i;
        kix_buf_reset(&b);
        if (object_known(h, &digests[i], &b) == KIX_OK) {
            rc = fn(ctx, i, b.ptr ? b.ptr : (const uint8_t *)"", b.len);
            i++;
            continue;
        }
        /* the run of objects up to the next one already read */
        for (end = i + 1; end < n; end++) {
            kix_buf_reset(&b);
            if (object_known(h, &digests[end], &b) == KIX_OK)
                break;
        }
        rc = http_get_many(h->get, end - i, HTTP_OBJECT_MAX, object_batch_path, object_batch_item,
                           &ob, err);
        i = end;
    }
    kix_buf_release(&b);
    return rc;
}

/* Not kept in memory or on disk: a replay reads a pack once, and takes
 * from it only the objects it wants. */
static int http_object_pack(struct kix_source *s, uint64_t bundle, struct kix_buf *out,
                            struct kix_err *err)
{
    char path[KIX_OBJECT_PACK_PATH_MAX];

    if (kix_object_pack_path(bundle, path, sizeof(path)) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "no entry bundle %llu", (unsigned long long)bundle);
    return http_get(http_of(s)->get, path, KIX_OBJECT_PACK_MAX, out, err);
}

/* log.vkey: the key the copy says its log is signed with (kixd export and
 * kixd --http write it; kix trust shows it for the user to pin). */
static int http_log_key(struct kix_source *s, struct kix_buf *out, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    int rc = http_get(h->get, "log.vkey", 4096, out, err);

    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "%s publishes no log key (log.vkey; an export by a kixd before "
                           "2026-12-06): ask the log's operators for the key, or run kix trust "
                           "against the log's own kixd",
                           s->where);
    return rc;
}

/* Any file of the copy, raw (kix audit compares it with the log). */
static int http_file(struct kix_source *s, const char *path, size_t max, struct kix_buf *out,
                     struct kix_err *err)
{
    return http_get(http_of(s)->get, path, max, out, err);
}

struct files_batch {
    const char *const *paths;
    kix_file_fn fn;
    void *ctx;
};

static int files_path(void *ctx, size_t i, char *path, size_t cap)
{
    const struct files_batch *b = ctx;
    return (size_t)snprintf(path, cap, "%s", b->paths[i]) < cap ? KIX_OK : KIX_ELIMIT;
}

static int files_item(void *ctx, size_t i, int rc, struct kix_buf *body, struct kix_err *err)
{
    const struct files_batch *b = ctx;
    return b->fn(b->ctx, i, rc, body, err);
}

static int http_files(struct kix_source *s, const char *const *paths, size_t n, size_t max,
                      kix_file_fn fn, void *ctx, struct kix_err *err)
{
    struct files_batch b = {paths, fn, ctx};
    return http_get_many(http_of(s)->get, n, max, files_path, files_item, &b, err);
}

static const struct kix_source_ops http_ops = {
    .close = http_close,
    .info = http_info,
    .checkpoint = http_checkpoint,
    .entries = http_entries,
    .inclusion = http_inclusion,
    .consistency = http_consistency,
    .checkpoints = http_checkpoints,
    .objects = http_objects,
    .object = http_object,
    .object_pack = http_object_pack,
    .index_proof = http_index_proof,
    .resolve = http_resolve,
    .query = http_query,
    .verified = http_cache_verified,
    .log_key = http_log_key,
    .file = http_file,
    .files = http_files,
};

int kix_source_is_http(const char *addr)
{
    return strncmp(addr, "http://", 7) == 0 || strncmp(addr, "https://", 8) == 0;
}

int kix_source_open_http(const char *url, const struct kix_http_opts *opts, struct kix_source **out,
                         struct kix_err *err)
{
    struct http_get_opts go = {NULL, 0, 0, -1};
    struct http_source *h;
    int rc;

    *out = NULL;
    if (!kix_source_is_http(url))
        return kix_err_set(err, KIX_EINVAL, "bad server address %s: expected http(s)://HOST/PATH",
                           url);
    if (opts) {
        go.cacert = opts->cacert;
        go.connect_timeout_ms = opts->connect_timeout_ms;
        go.timeout_ms = opts->timeout_ms;
        go.retries = opts->retries;
    }
    h = calloc(1, sizeof(*h));
    if (!h)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = http_get_open(url, &go, &h->get, err);
    if (rc) {
        free(h);
        return rc;
    }
    h->base.ops = &http_ops;
    snprintf(h->base.where, sizeof(h->base.where), "%s", url);
    *out = &h->base;
    return KIX_OK;
}
