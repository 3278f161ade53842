/* Index proofs over HTTP (source_http_internal.h): the index note at the
 * copy's checkpoint (index/notes/<size>), then the proof of a key computed
 * here, by kix_smt_prove, over the tree's tiles fetched by name
 * (index/tile/<key>/<hash of the subtree at its top>: the root tile's hash
 * is the note's index root, each other's is in the tile above it), and the
 * record by its hash (index/value/<key>/<hash>). Nothing is believed here:
 * kix_client_index_proof verifies the note and the proof against the log
 * key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/sha256.h"
#include "kix/smt.h"
#include "kix/vindex.h"
#include "source_http_internal.h"

#define NOTE_MAX   (64u * 1024u)
#define RECORD_MAX (16u * 1024u * 1024u)

void http_index_clear(struct http_source *h)
{
    for (unsigned i = 0; i < HTTP_IPACK_CACHE; i++)
        kix_buf_release(&h->ipack[i].bytes);
    for (size_t i = 0; i < h->nitiles; i++)
        free(h->itiles[i].val);
    h->nitiles = 0;
}

static const struct http_itile *find_tile(const struct http_source *h, const uint8_t *key,
                                          size_t klen)
{
    for (size_t i = 0; i < h->nitiles; i++)
        if (h->itiles[i].klen == klen && memcmp(h->itiles[i].key, key, klen) == 0)
            return &h->itiles[i];
    return NULL;
}

int http_itile_named(const uint8_t *v, size_t len, const uint8_t name[32])
{
    const uint8_t *rec[KIX_SMT_TILE_SLOTS] = {0};
    int reached[KIX_SMT_TILE_SLOTS] = {1};
    static const uint8_t empty[KIX_HASH_LEN];
    unsigned bits = len >= 2 ? (unsigned)v[0] << 8 | v[1] : 0;
    size_t n = 0;
    uint8_t sum[32];

    len = kix_index_tile_len(v, len); /* the locators after it are checked by their use */

    for (unsigned i = 0; i < KIX_SMT_TILE_SLOTS; i++)
        if (bits & (0x8000u >> i)) {
            if (2 + (n + 1) * KIX_SMT_RECORD_LEN > len)
                return 0;
            rec[i] = v + 2 + n++ * KIX_SMT_RECORD_LEN;
        }
    if ((bits & 1u) || len != 2 + n * KIX_SMT_RECORD_LEN || !rec[0])
        return 0;
    kix_sha256(rec[0], KIX_SMT_RECORD_LEN, sum);
    if (memcmp(sum, name, 32) != 0)
        return 0;
    /* slot j's children are slots 2j+1 and 2j+2; those of the bottom row
     * (7..14) are in the tiles below, checked by their own names */
    for (unsigned i = 0; i < KIX_SMT_TILE_SLOTS; i++) {
        if (!rec[i])
            continue;
        if (!reached[i] || (rec[i][0] != 0x02 && rec[i][0] != 0x03))
            return 0;
        for (unsigned c = 0; i < KIX_SMT_TILE_SLOTS / 2 && c < 2; c++) {
            unsigned child = 2 * i + 1 + c;
            const uint8_t *hash = rec[i] + 1 + c * KIX_HASH_LEN;
            if (rec[i][0] == 0x02 || memcmp(hash, empty, KIX_HASH_LEN) == 0) {
                if (rec[child]) /* under a leaf or an empty subtree: nothing */
                    return 0;
                continue;
            }
            if (!rec[child])
                return 0;
            kix_sha256(rec[child], KIX_SMT_RECORD_LEN, sum);
            if (memcmp(sum, hash, KIX_HASH_LEN) != 0)
                return 0;
            reached[child] = 1;
        }
    }
    return 1;
}

/* The index pack ref names, *out its bytes (the last HTTP_IPACK_CACHE
 * read are kept). */
static int ipack_get(struct http_source *h, const struct kix_index_ref *ref,
                     const struct kix_buf **out, struct kix_err *err)
{
    char path[96];
    unsigned at;
    int rc;

    for (unsigned i = 0; i < HTTP_IPACK_CACHE; i++)
        if (h->ipack[i].bytes.len && h->ipack[i].ref.size == ref->size &&
            h->ipack[i].ref.chunk == ref->chunk) {
            *out = &h->ipack[i].bytes;
            return KIX_OK;
        }
    if (kix_index_file_pack_path(ref, path, sizeof(path)) != KIX_OK)
        return kix_err_set(err, KIX_EPROTO, "%s: an index tile locates a pack past any size",
                           h->base.where);
    at = h->ipack_next++ % HTTP_IPACK_CACHE;
    kix_buf_reset(&h->ipack[at].bytes);
    rc = http_get(h->get, path, KIX_INDEX_PACK_MAX, &h->ipack[at].bytes, err);
    if (rc == KIX_ENOTFOUND)
        rc = kix_err_set(err, KIX_EUNAVAIL,
                         "%s holds no index pack %s (the copy changed while it was read: read "
                         "again)",
                         h->base.where, path);
    if (rc) {
        kix_buf_reset(&h->ipack[at].bytes);
        return rc;
    }
    h->ipack[at].ref = *ref;
    *out = &h->ipack[at].bytes;
    return KIX_OK;
}

/* kix_smt_tiles' get: the tile at key, by the name the tile above gives. */
static int itile_get(void *ctx, const uint8_t *key, size_t klen, struct kix_bytes *out,
                     struct kix_err *err)
{
    struct http_source *h = ctx;
    const struct http_itile *have = find_tile(h, key, klen), *above;
    uint8_t prefix[KIX_HASH_LEN] = {0}, pkey[KIX_SMT_TILE_KEY_MAX];
    struct kix_hash name;
    struct kix_buf body = KIX_BUF_INIT;
    struct kix_index_ref ref;
    char path[256];
    unsigned s = klen ? key[0] : 0;
    struct http_itile *t;
    int rc, packed = 0;

    if (have) {
        out->ptr = have->val;
        out->len = have->len;
        return KIX_OK;
    }
    if (klen < 1 || klen > KIX_SMT_TILE_KEY_MAX)
        return kix_err_set(err, KIX_EINVAL, "bad tile key");
    memcpy(prefix, key + 1, klen - 1);
    if (s == 0) {
        static const struct kix_hash empty;
        if (memcmp(h->iroot.b, empty.b, 32) == 0)
            return KIX_ENOTFOUND;
        name = h->iroot;
    } else {
        above = find_tile(h, pkey, kix_smt_tile_key(s - 1, prefix, pkey));
        if (!above)
            return kix_err_set(err, KIX_EPROTO, "a tile of the index was asked before its parent");
        rc = kix_smt_tile_child_hash(above->val, above->len, s - 1, prefix, &name);
        if (rc == KIX_ENOTFOUND)
            return rc;
        if (rc)
            return kix_err_set(err, KIX_EPROTO, "%s: a tile of the index is malformed",
                               h->base.where);
        /* the nibble of the path below the tile above: its locator */
        packed = kix_index_tile_locator(above->val, above->full,
                                        (s - 1) % 2 ? prefix[(s - 1) / 2] & 0x0fu
                                                    : prefix[(s - 1) / 2] >> 4,
                                        &ref) == KIX_OK;
    }
    if (h->nitiles == HTTP_ITILE_CACHE)
        return kix_err_set(err, KIX_ELIMIT, "too many index tiles in one proof");
    if (kix_index_file_tile_path(key, klen, &name, path, sizeof(path)) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "bad tile key");
    /* kept on disk under its own name, wherever it was read from */
    if (!h->itile_nocache && http_cache_named_get(h, path, name.b, HTTP_NAMED_ITILE,
                                                  KIX_SMT_TILE_ITEM_MAX, &body) == KIX_OK) {
        rc = KIX_OK;
        h->itile_cached = 1;
    } else if (packed) {
        const struct kix_buf *pack = NULL;
        rc = ipack_get(h, &ref, &pack, err);
        if (rc == KIX_OK) { /* a lean tile comes out whole (kix/vindex.h) */
            rc = kix_index_pack_tile(pack->ptr, pack->len, key, klen, &name, &body);
            if (rc == KIX_ENOMEM)
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
            else if (rc != KIX_OK || !http_itile_named(body.ptr, body.len, name.b))
                rc = kix_err_set(err, KIX_EVERIFY,
                                 "%s: index pack %llu.%lu does not hold the tile %s its locator "
                                 "names (altered, or of another index)",
                                 h->base.where, (unsigned long long)ref.size,
                                 (unsigned long)ref.chunk, path);
        }
        if (rc == KIX_OK)
            http_cache_named_put(h, path, name.b, HTTP_NAMED_ITILE, body.ptr, body.len);
    } else {
        rc = http_get(h->get, path, KIX_SMT_TILE_ITEM_MAX, &body, err);
        if (rc == KIX_OK)
            http_cache_named_put(h, path, name.b, HTTP_NAMED_ITILE, body.ptr, body.len);
    }
    if (rc == KIX_ENOTFOUND)
        rc = kix_err_set(err, KIX_EUNAVAIL,
                         "%s holds no index tile %s (the copy changed while it was read: read "
                         "again)",
                         h->base.where, path);
    if (rc) {
        kix_buf_release(&body);
        return rc;
    }
    t = &h->itiles[h->nitiles++];
    memcpy(t->key, key, klen);
    t->klen = klen;
    t->val = body.ptr; /* taken */
    t->full = body.len;
    t->len = kix_index_tile_len(body.ptr, body.len);
    if (!t->len) { /* not a tile: the proof fails on it */
        t->len = body.len;
        t->full = body.len;
    }
    out->ptr = t->val;
    out->len = t->len;
    return KIX_OK;
}

static int itile_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                     struct kix_err *err)
{
    (void)ctx, (void)key, (void)klen, (void)val, (void)vlen;
    return kix_err_set(err, KIX_EREADONLY, "the HTTP source writes no index tiles");
}

int http_index_note(struct http_source *h, struct kix_buf *note, struct kix_err *err)
{
    char path[64];
    struct kix_hash root;
    int rc;

    if (h->note.len && h->note_size == h->latest_size) /* the one read for this size */
        return kix_buf_add(note, h->note.ptr, h->note.len) == KIX_OK
                   ? KIX_OK
                   : kix_err_set(err, KIX_ENOMEM, "out of memory");
    snprintf(path, sizeof(path), "index/notes/%llu", (unsigned long long)h->latest_size);
    rc = http_get(h->get, path, NOTE_MAX, note, err);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_ENOTSUP,
                           "%s holds no index note for its checkpoint (size %llu): an export "
                           "without index files, or one being written",
                           h->base.where, (unsigned long long)h->latest_size);
    if (rc)
        return rc;
    /* unverified: it only picks the tiles */
    if (kix_vindex_note_root(note->ptr, note->len, &root) != KIX_OK)
        return kix_err_set(err, KIX_EPROTO, "%s: %s is not an index note", h->base.where, path);
    if (memcmp(root.b, h->iroot.b, 32) != 0) {
        http_index_clear(h);
        h->iroot = root;
    }
    kix_buf_reset(&h->note);
    h->note_size = h->latest_size;
    return kix_buf_add(&h->note, note->ptr, note->len) == KIX_OK
               ? KIX_OK
               : kix_err_set(err, KIX_ENOMEM, "out of memory");
}

static int prove_once(struct http_source *h, const char *key, struct kix_index_answer *a,
                      struct kix_err *err)
{
    struct kix_smt_tiles tiles;
    struct kix_hash path, vh, got;
    char rel[512];
    int present = 0, rc;

    kix_smt_path(key, strlen(key), &path);
    /* room for one more route (a tile per stratum) */
    if (h->nitiles + KIX_SMT_DEPTH / KIX_SMT_TILE_LEVELS + 1 > HTTP_ITILE_CACHE)
        http_index_clear(h);
    kix_smt_tiles_init(&tiles, itile_get, itile_put, h);
    rc = kix_smt_prove(&tiles.io, &path, &a->proof, &present, &vh, err);
    kix_smt_tiles_release(&tiles);
    if (rc)
        return rc;
    a->present = present;
    if (!present)
        return KIX_OK;
    if (http_blobs_get(&h->records, vh.b, &a->record) == KIX_OK)
        return KIX_OK;
    if (kix_index_file_value_path(key, strlen(key), &vh, rel, sizeof(rel)) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "index key %.80s is too long", key);
    if (http_cache_named_get(h, rel, vh.b, HTTP_NAMED_SHA256, RECORD_MAX, &a->record) == KIX_OK)
        return KIX_OK;
    {
        /* the leaf's tile (the last of the route) may locate the record in a pack */
        unsigned depth = a->proof.len >= 3 ? (unsigned)a->proof.ptr[1] << 8 | a->proof.ptr[2] : 0;
        uint8_t tkey[KIX_SMT_TILE_KEY_MAX];
        const struct http_itile *leaf =
            find_tile(h, tkey, kix_smt_tile_key(depth / KIX_SMT_TILE_LEVELS, path.b, tkey));
        int slot = leaf ? kix_index_tile_leaf_slot(leaf->val, leaf->len, &path) : -1;
        struct kix_index_ref ref;
        struct kix_bytes got;
        if (slot >= 0 &&
            kix_index_tile_locator(leaf->val, leaf->full, 0x10u + (unsigned)slot, &ref) == KIX_OK) {
            const struct kix_buf *pack = NULL;
            rc = ipack_get(h, &ref, &pack, err);
            if (rc)
                return rc;
            if (kix_index_pack_value(pack->ptr, pack->len, &vh, &got) != KIX_OK)
                return kix_err_set(err, KIX_EVERIFY,
                                   "%s: index pack %llu.%lu does not hold the record of %.80s "
                                   "its locator names",
                                   h->base.where, (unsigned long long)ref.size,
                                   (unsigned long)ref.chunk, key);
            rc = kix_buf_add(&a->record, got.ptr, got.len) == KIX_OK
                     ? KIX_OK
                     : kix_err_set(err, KIX_ENOMEM, "out of memory");
            /* named in what is said of it: the pack, and the record's key */
            snprintf(rel, sizeof(rel), "index/pack/%llu.%lu (the record of %.300s)",
                     (unsigned long long)ref.size, (unsigned long)ref.chunk, key);
            goto check;
        }
    }
    rc = http_get(h->get, rel, RECORD_MAX, &a->record, err);
    if (rc == KIX_ENOTFOUND)
        rc = kix_err_set(err, KIX_EUNAVAIL, "%s holds no record %s", h->base.where, rel);
check:
    if (rc)
        return rc;
    /* a record not under its own name is a false copy: said here, as
     * kix_client_get_object says it of an object, so that what is read to
     * answer a query (source_http_query.c) fails as a lie, not as I/O */
    kix_smt_value_hash(a->record.ptr, a->record.len, &got);
    if (memcmp(got.b, vh.b, 32) != 0)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "%s serves %s with bytes that do not hash to its name (a changed "
                         "index record)",
                         h->base.where, rel);
    else {
        http_blobs_put(&h->records, vh.b, a->record.ptr, a->record.len);
        /* kept on disk under its own name, wherever it was read from */
        if (kix_index_file_value_path(key, strlen(key), &vh, rel, sizeof(rel)) == KIX_OK)
            http_cache_named_put(h, rel, vh.b, HTTP_NAMED_SHA256, a->record.ptr, a->record.len);
    }
    return rc;
}

int http_index_prove(struct http_source *h, const char *key, struct kix_index_answer *a,
                     struct kix_err *err)
{
    int rc;

    h->itile_cached = 0;
    rc = prove_once(h, key, a, err);
    /* a file by name missing where a tile from the disk cache led: that
     * tile may be another server's (kixd --http serves none with
     * locators; a copy keeps no tile but the root by name), so the route
     * is read again from this server alone */
    if (rc == KIX_EUNAVAIL && h->itile_cached && !h->itile_nocache) {
        h->itile_nocache = 1;
        http_index_clear(h);
        kix_buf_reset(&a->proof);
        kix_buf_reset(&a->record);
        a->present = 0;
        memset(err, 0, sizeof(*err));
        rc = prove_once(h, key, a, err);
    }
    return rc;
}

int http_index_proof(struct kix_source *s, const char *key, struct kix_index_answer *a,
                     struct kix_err *err)
{
    struct http_source *h = http_of(s);
    /* the latest checkpoint, read again unless it was read within the
     * second: the proofs of one answer (a query's are hundreds) then share
     * it, as a CDN that caches it 5 s (max-age) would have them */
    int rc = http_latest(h, http_latest_age_ms(h) >= 1000, err);

    if (rc == KIX_OK)
        rc = http_index_note(h, &a->index_note, err);
    if (rc == KIX_OK && kix_buf_add(&a->checkpoint, h->latest.ptr, h->latest.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = http_index_prove(h, key, a, err);
    return rc;
}
