/* The verifiable index as files (kix/vindex.h, proto/PROTOCOL.md §3.2): what
 * kixd --http serves and an export writes under index/, so that a reader of
 * a static copy proves any index record at the copy's checkpoint itself.
 * Tiles and values are named by their content (a tile by the hash of the
 * subtree at its top, a value by its hash), so every file is immutable and
 * a reader racing an export never sees two trees mixed; only the notes are
 * new per size. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_internal.h"
#include "kix/encoding.h"
#include "kix/file.h"
#include "kix/vindex.h"

int kix_index_tile(struct kix_log_reader *r, const uint8_t *key, size_t klen, struct kix_buf *out,
                   struct kix_err *err)
{
    struct kix_smt_tiles tiles;
    struct kix_bytes v;
    int rc;

    kix__smt_tiles(&tiles, kix_log_reader_txn(r));
    rc = tiles.get(tiles.ctx, key, klen, &v, err);
    if (rc == KIX_OK && kix_buf_add(out, v.ptr, v.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_smt_tiles_release(&tiles);
    return rc;
}

int kix_index_value(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                    struct kix_err *err)
{
    return kix__vindex_value(kix_log_reader_txn(r), key, len, out, err);
}

int kix_index_file_tile_path(const uint8_t *key, size_t klen, const struct kix_hash *top, char *out,
                             size_t cap)
{
    char hk[2 * KIX_SMT_TILE_KEY_MAX + 1], hh[2 * KIX_HASH_LEN + 1];

    if (klen > KIX_SMT_TILE_KEY_MAX)
        return KIX_EINVAL;
    kix_hex_encode(key, klen, hk);
    kix_hex_encode(top->b, KIX_HASH_LEN, hh);
    return (size_t)snprintf(out, cap, "index/tile/%s/%s", hk, hh) < cap ? KIX_OK : KIX_ELIMIT;
}

int kix_index_file_value_path(const char *key, size_t len, const struct kix_hash *value_hash,
                              char *out, size_t cap)
{
    char hh[2 * KIX_HASH_LEN + 1];

    kix_hex_encode(value_hash->b, KIX_HASH_LEN, hh);
    return (size_t)snprintf(out, cap, "index/value/%.*s@%s", (int)len, key, hh) < cap ? KIX_OK
                                                                                      : KIX_ELIMIT;
}

/* ---- packs (PROTOCOL.md §3.2, "Index packs") ------------------------------------- */

size_t kix_index_tile_len(const uint8_t *v, size_t len)
{
    unsigned bits = len >= 2 ? (unsigned)v[0] << 8 | v[1] : 0, n = 0;
    size_t tlen;

    for (unsigned i = 0; i < 16; i++)
        n += (bits >> i) & 1u;
    tlen = 2 + (size_t)n * KIX_SMT_RECORD_LEN;
    if (!bits || tlen > len || (len - tlen) % KIX_INDEX_LOC_LEN != 0)
        return 0;
    return tlen;
}

int kix_index_tile_locator(const uint8_t *v, size_t len, unsigned what, struct kix_index_ref *ref)
{
    size_t tlen = kix_index_tile_len(v, len);

    if (!tlen)
        return KIX_EINVAL;
    for (const uint8_t *l = v + tlen; l < v + len; l += KIX_INDEX_LOC_LEN) {
        if (l[0] != what)
            continue;
        ref->size = kix_u64be_get(l + 1);
        ref->chunk = (uint32_t)kix_u32be_get(l + 9);
        return KIX_OK;
    }
    return KIX_ENOTFOUND;
}

int kix_index_file_pack_path(const struct kix_index_ref *ref, char *out, size_t cap)
{
    return (size_t)snprintf(out, cap, "index/pack/%llu.%lu", (unsigned long long)ref->size,
                            (unsigned long)ref->chunk) < cap
               ? KIX_OK
               : KIX_ELIMIT;
}

/* Each item of a pack in turn: kind, body and its length; 0 at the end,
 * -1 for a malformed pack. */
static int pack_next(const uint8_t *p, size_t len, size_t *off, unsigned *kind,
                     const uint8_t **body, size_t *blen)
{
    uint32_t n;

    if (*off == len)
        return 0;
    if (len - *off < 5)
        return -1;
    n = (uint32_t)kix_u32be_get(p + *off + 1);
    if (len - *off - 5 < n)
        return -1;
    *kind = p[*off];
    *body = p + *off + 5;
    *blen = n;
    *off += 5 + (size_t)n;
    return 1;
}

/* Whether slot i of a tile holds an interior record a lean tile leaves to
 * be derived: one in the top three levels, whose two hashes are those of
 * the records in slots 2i + 1 and 2i + 2 of the same tile (zeros where a
 * slot is empty: an empty subtree). */
static int lean_derived(unsigned slot, uint8_t type)
{
    return slot < 7 && type == 0x03;
}

/* The lean form of a stored tile (KIX_INDEX_PACK_TILE_LEAN): its bitmap,
 * then each set slot's record type and, unless lean_derived, the 64 bytes
 * after it. Appended to out. */
static int tile_lean(const uint8_t *v, size_t tlen, struct kix_buf *out)
{
    unsigned bits = (unsigned)v[0] << 8 | v[1], n = 0;
    int rc = kix_buf_add(out, v, 2);

    for (unsigned i = 0; rc == KIX_OK && i < KIX_SMT_TILE_SLOTS; i++) {
        const uint8_t *rec = v + 2 + (size_t)n * KIX_SMT_RECORD_LEN;
        if (!(bits & (0x8000u >> i)))
            continue;
        n++;
        if (2 + (size_t)n * KIX_SMT_RECORD_LEN > tlen)
            return KIX_ECORRUPT;
        rc = kix_buf_add(out, rec, lean_derived(i, rec[0]) ? 1 : KIX_SMT_RECORD_LEN);
    }
    return rc;
}

/* The stored tile (and its locators) of a lean tile's body b, appended to
 * out: every derived record is computed from the records below it, from
 * the bottom up. KIX_ECORRUPT when b is not a lean tile. */
static int tile_unlean(const uint8_t *b, size_t blen, struct kix_buf *out)
{
    uint8_t recs[KIX_SMT_TILE_SLOTS][KIX_SMT_RECORD_LEN];
    unsigned bits = blen >= 2 ? (unsigned)b[0] << 8 | b[1] : 0, derive = 0;
    size_t at = 2;
    int rc;

    if (!bits || (bits & 1u))
        return KIX_ECORRUPT;
    for (unsigned i = 0; i < KIX_SMT_TILE_SLOTS; i++) {
        if (!(bits & (0x8000u >> i)))
            continue;
        if (at >= blen)
            return KIX_ECORRUPT;
        size_t n = lean_derived(i, b[at]) ? 1 : KIX_SMT_RECORD_LEN;
        if (blen - at < n)
            return KIX_ECORRUPT;
        memcpy(recs[i], b + at, n);
        if (lean_derived(i, b[at]))
            derive |= 0x8000u >> i;
        at += n;
    }
    kix_smt_tile_derive(recs, bits, derive);
    rc = kix_buf_add(out, b, 2);
    for (unsigned i = 0; rc == KIX_OK && i < KIX_SMT_TILE_SLOTS; i++)
        if (bits & (0x8000u >> i))
            rc = kix_buf_add(out, recs[i], KIX_SMT_RECORD_LEN);
    if (rc == KIX_OK) /* its locators */
        rc = kix_buf_add(out, b + at, blen - at);
    return rc == KIX_OK ? KIX_OK : KIX_ENOMEM;
}

int kix_index_pack_tile(const uint8_t *pack, size_t len, const uint8_t *key, size_t klen,
                        const struct kix_hash *top, struct kix_buf *out)
{
    struct kix_buf lean = KIX_BUF_INIT;
    const uint8_t *b;
    size_t off = 0, blen;
    unsigned kind;
    int more = 0, rc = KIX_ENOTFOUND;

    while (rc == KIX_ENOTFOUND && (more = pack_next(pack, len, &off, &kind, &b, &blen)) == 1) {
        struct kix_hash got;
        const uint8_t *t;
        size_t tlen, n;
        if ((kind != KIX_INDEX_PACK_TILE && kind != KIX_INDEX_PACK_TILE_LEAN) || blen < 1 ||
            blen < 1 + (size_t)b[0] || b[0] != klen || memcmp(b + 1, key, klen) != 0)
            continue;
        t = b + 1 + klen;
        n = blen - 1 - klen;
        kix_buf_reset(&lean);
        if (kind == KIX_INDEX_PACK_TILE_LEAN) {
            int made = tile_unlean(t, n, &lean);
            if (made == KIX_ENOMEM)
                rc = made;
            if (made != KIX_OK) /* not a lean tile: not the one asked for */
                continue;
            t = lean.ptr;
            n = lean.len;
        }
        tlen = kix_index_tile_len(t, n);
        if (tlen && kix_smt_tile_top_hash(t, tlen, &got) == KIX_OK &&
            memcmp(got.b, top->b, KIX_HASH_LEN) == 0)
            rc = kix_buf_add(out, t, n) == KIX_OK ? KIX_OK : KIX_ENOMEM;
    }
    kix_buf_release(&lean);
    return rc == KIX_ENOTFOUND && more < 0 ? KIX_ECORRUPT : rc;
}

int kix_index_pack_value(const uint8_t *pack, size_t len, const struct kix_hash *vh,
                         struct kix_bytes *out)
{
    const uint8_t *b;
    size_t off = 0, blen;
    unsigned kind;
    int more;

    while ((more = pack_next(pack, len, &off, &kind, &b, &blen)) == 1)
        if (kind == KIX_INDEX_PACK_VALUE && blen >= KIX_HASH_LEN &&
            memcmp(b, vh->b, KIX_HASH_LEN) == 0) {
            out->ptr = b + KIX_HASH_LEN;
            out->len = blen - KIX_HASH_LEN;
            return KIX_OK;
        }
    return more < 0 ? KIX_ECORRUPT : KIX_ENOTFOUND;
}

int kix_index_tile_leaf_slot(const uint8_t *v, size_t len, const struct kix_hash *path)
{
    unsigned bits = len >= 2 ? (unsigned)v[0] << 8 | v[1] : 0, n = 0;

    for (unsigned i = 0; i < KIX_SMT_TILE_SLOTS; i++) {
        const uint8_t *rec = v + 2 + (size_t)n * KIX_SMT_RECORD_LEN;
        if (!(bits & (0x8000u >> i)))
            continue;
        n++;
        if ((size_t)(rec - v) + KIX_SMT_RECORD_LEN > len)
            return -1;
        if (rec[0] == 0x02 && memcmp(rec + 1, path->b, KIX_HASH_LEN) == 0)
            return (int)i;
    }
    return -1;
}

/* ---- export ------------------------------------------------------------------------ */

/* A leaf of a new tile whose record this export writes: found by path in
 * the pass over every key, its key kept to read the record when its tile
 * is written (the record goes just before its tile, in the same pack
 * when it fits). */
struct wanted {
    struct kix_hash path, value_hash;
    char *key;
    size_t klen;
    int written;
    struct kix_index_ref ref;
};

/* The chunks of the previous export read back (its tiles' locators name
 * where their children and records are): the last few kept. */
#define OLD_CHUNKS 8
struct old_chunk {
    struct kix_index_ref ref;
    struct kix_buf bytes;
};

struct index_export {
    struct kix_log_reader *r;
    struct kix_smt_tiles tiles;
    struct kix_file_tree tree; /* the export directory (synced by the caller) */
    struct kix_index_export_stats *st;
    struct wanted *want; /* leaves of the new tiles, whose records to write */
    size_t nwant, capwant;
    int emit;            /* 0: the first walk (what is wanted); 1: writing */
    uint64_t size;       /* this export's, which names its packs */
    struct kix_buf pack; /* the pack being filled */
    uint32_t chunk;      /* its number */
    struct old_chunk old[OLD_CHUNKS];
    unsigned old_next;
    struct kix_buf value, item;
    struct kix_err *err;
};

/* Where an export in progress is marked (export_marker_path()). */
#define EXPORTING "index/exporting"

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int write_file(struct index_export *x, const char *rel, const void *data, size_t len)
{
    int rc = kix_file_tree_write(&x->tree, rel, data, len, 0, x->err);

    if (rc == KIX_OK) {
        x->st->files++;
        x->st->bytes += len;
    }
    return rc;
}

static int pack_flush(struct index_export *x)
{
    struct kix_index_ref ref = {x->size, x->chunk};
    char rel[96];
    int rc;

    if (!x->pack.len)
        return KIX_OK;
    if (kix_index_file_pack_path(&ref, rel, sizeof(rel)) != KIX_OK)
        return kix_err_set(x->err, KIX_EINVAL, "a pack name is too long");
    rc = write_file(x, rel, x->pack.ptr, x->pack.len);
    if (rc == KIX_OK)
        x->st->packs++;
    kix_buf_reset(&x->pack);
    x->chunk++;
    return rc;
}

/* Appends one item to the pack being filled (a new pack first when it
 * would pass KIX_INDEX_PACK_CHUNK) and says where it went. */
static int pack_add(struct index_export *x, unsigned kind, const void *a, size_t alen,
                    const void *b, size_t blen, struct kix_index_ref *ref)
{
    uint8_t head[5];
    int rc = KIX_OK;

    if (x->pack.len && x->pack.len + 5 + alen + blen > KIX_INDEX_PACK_CHUNK)
        rc = pack_flush(x);
    head[0] = (uint8_t)kind;
    kix_u32be_put(head + 1, (uint32_t)(alen + blen));
    if (rc == KIX_OK && (kix_buf_add(&x->pack, head, 5) || kix_buf_add(&x->pack, a, alen) ||
                         kix_buf_add(&x->pack, b, blen)))
        rc = kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    ref->size = x->size;
    ref->chunk = x->chunk;
    return rc;
}

static int by_leaf(const void *a, const void *b)
{
    const struct wanted *p = a, *q = b;
    int c = memcmp(p->path.b, q->path.b, KIX_HASH_LEN);
    return c ? c : memcmp(p->value_hash.b, q->value_hash.b, KIX_HASH_LEN);
}

static struct wanted *find_want(struct index_export *x, const uint8_t *rec)
{
    struct wanted w;

    memcpy(w.path.b, rec + 1, KIX_HASH_LEN);
    memcpy(w.value_hash.b, rec + 1 + KIX_HASH_LEN, KIX_HASH_LEN);
    return x->nwant ? bsearch(&w, x->want, x->nwant, sizeof(w), by_leaf) : NULL;
}

static int add_want(struct index_export *x, const uint8_t *rec)
{
    struct wanted *w = kix_array_grow(x->want, &x->capwant, x->nwant, 256, sizeof(*w));

    if (!w)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    x->want = w;
    memset(&x->want[x->nwant], 0, sizeof(x->want[0]));
    memcpy(x->want[x->nwant].path.b, rec + 1, KIX_HASH_LEN);
    memcpy(x->want[x->nwant++].value_hash.b, rec + 1 + KIX_HASH_LEN, KIX_HASH_LEN);
    return KIX_OK;
}

/* A tile of the previous export (its stored bytes and locators), copied
 * into out: from the pack ref names, or from its own file (the root, and
 * every tile of an export made before packs). KIX_ENOTFOUND when it is
 * not there: its subtree is then written whole. */
static int old_tile(struct index_export *x, const uint8_t *key, size_t klen,
                    const struct kix_hash *top, const struct kix_index_ref *ref,
                    struct kix_buf *out)
{
    char rel[256], path[4400];
    struct old_chunk *c = NULL;
    int rc;

    if (!ref) {
        struct kix_buf file = KIX_BUF_INIT;
        struct kix_hash h;
        size_t tlen;
        int rc = KIX_ENOTFOUND;
        if (kix_index_file_tile_path(key, klen, top, rel, sizeof(rel)) != KIX_OK)
            return KIX_ENOTFOUND;
        snprintf(path, sizeof(path), "%s/%s", x->tree.dir, rel);
        if (kix_file_read(path, 1u << 20, &file, NULL) == KIX_OK &&
            (tlen = kix_index_tile_len(file.ptr, file.len)) != 0 &&
            kix_smt_tile_top_hash(file.ptr, tlen, &h) == KIX_OK &&
            memcmp(h.b, top->b, KIX_HASH_LEN) == 0)
            rc = kix_buf_add(out, file.ptr, file.len) == KIX_OK
                     ? KIX_OK
                     : kix_err_set(x->err, KIX_ENOMEM, "out of memory");
        kix_buf_release(&file);
        return rc;
    }
    for (unsigned i = 0; i < OLD_CHUNKS; i++)
        if (x->old[i].bytes.len && x->old[i].ref.size == ref->size &&
            x->old[i].ref.chunk == ref->chunk)
            c = &x->old[i];
    if (!c) {
        c = &x->old[x->old_next++ % OLD_CHUNKS];
        kix_buf_reset(&c->bytes);
        c->ref = *ref;
        if (kix_index_file_pack_path(ref, rel, sizeof(rel)) != KIX_OK)
            return KIX_ENOTFOUND;
        snprintf(path, sizeof(path), "%s/%s", x->tree.dir, rel);
        if (kix_file_read(path, 64u << 20, &c->bytes, NULL) != KIX_OK) {
            kix_buf_reset(&c->bytes);
            return KIX_ENOTFOUND;
        }
    }
    rc = kix_index_pack_tile(c->bytes.ptr, c->bytes.len, key, klen, top, out);
    if (rc == KIX_ENOMEM)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    return rc ? KIX_ENOTFOUND : KIX_OK;
}

static const uint8_t *slot_record(const uint8_t *v, size_t tlen, int slot)
{
    unsigned bits = (unsigned)v[0] << 8 | v[1], n = 0;

    if (slot < 0 || !(bits & (0x8000u >> slot)))
        return NULL;
    for (int i = 0; i < slot; i++)
        n += (bits >> (15 - i)) & 1u;
    return 2 + (size_t)(n + 1) * KIX_SMT_RECORD_LEN <= tlen ? v + 2 + n * KIX_SMT_RECORD_LEN : NULL;
}

static int add_loc(uint8_t *locs, size_t *n, unsigned what, const struct kix_index_ref *ref)
{
    uint8_t *l = locs + *n * KIX_INDEX_LOC_LEN;

    l[0] = (uint8_t)what;
    kix_u64be_put(l + 1, ref->size);
    kix_u32be_put(l + 9, ref->chunk);
    (*n)++;
    return KIX_OK;
}

/* The tile of stratum s on prefix, and first each child tile that changed
 * since the previous export (old: the previous export's tile at this
 * place, with its locators, or NULL). A child or a record the old tile
 * already locates is located there again; the rest is written, each
 * subtree's new tiles after those below them and each new record just
 * before its tile. The first walk (x->emit 0) writes nothing: it lists
 * the records the second must write, which the pass over every key finds
 * by their keys in between. *ref: the pack the tile went to. */
static int walk(struct index_export *x, unsigned s, uint8_t prefix[KIX_HASH_LEN],
                const uint8_t *old, size_t oldlen, struct kix_index_ref *ref)
{
    uint8_t key[KIX_SMT_TILE_KEY_MAX], *v = NULL;
    uint8_t locs[(16 + KIX_SMT_TILE_SLOTS) * KIX_INDEX_LOC_LEN];
    size_t klen = kix_smt_tile_key(s, prefix, key), nloc = 0, tlen, otlen = 0;
    struct kix_bytes got;
    struct kix_buf oldchild = KIX_BUF_INIT;
    int rc = x->tiles.get(x->tiles.ctx, key, klen, &got, x->err);

    if (rc)
        return rc == KIX_ENOTFOUND
                   ? kix_err_set(x->err, KIX_ECORRUPT, "a tile of the index tree is missing")
                   : rc;
    tlen = got.len;
    if (!(v = malloc(tlen)))
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    memcpy(v, got.ptr, tlen);
    if (old && !(otlen = kix_index_tile_len(old, oldlen)))
        old = NULL;
    for (unsigned b = 0; rc == KIX_OK && s + 1 < KIX_SMT_DEPTH / KIX_SMT_TILE_LEVELS + 1 && b < 16;
         b++) {
        uint8_t saved = prefix[s / 2], ckey[KIX_SMT_TILE_KEY_MAX];
        struct kix_hash child, was;
        struct kix_index_ref oref, cref;
        int had, located;
        prefix[s / 2] = (uint8_t)(s % 2 ? (saved & 0xf0) | b : (saved & 0x0f) | b << 4);
        rc = kix_smt_tile_child_hash(v, tlen, s, prefix, &child);
        if (rc == KIX_ENOTFOUND || rc == KIX_EINVAL) {
            rc = KIX_OK; /* no tile below there */
            prefix[s / 2] = saved;
            continue;
        }
        had = old && kix_smt_tile_child_hash(old, otlen, s, prefix, &was) == KIX_OK;
        located = had && kix_index_tile_locator(old, oldlen, b, &oref) == KIX_OK;
        if (rc == KIX_OK && had && memcmp(was.b, child.b, KIX_HASH_LEN) == 0) {
            /* the same subtree: where the old tile says (or, for a copy
             * made before packs, in its own file) */
            if (located)
                add_loc(locs, &nloc, b, &oref);
        } else if (rc == KIX_OK) {
            size_t cklen = kix_smt_tile_key(s + 1, prefix, ckey);
            kix_buf_reset(&oldchild);
            rc = had ? old_tile(x, ckey, cklen, &was, located ? &oref : NULL, &oldchild)
                     : KIX_ENOTFOUND;
            if (rc == KIX_ENOTFOUND)
                rc = KIX_OK, kix_buf_reset(&oldchild);
            if (rc == KIX_OK)
                rc =
                    walk(x, s + 1, prefix, oldchild.len ? oldchild.ptr : NULL, oldchild.len, &cref);
            if (rc == KIX_OK && x->emit)
                add_loc(locs, &nloc, b, &cref);
        }
        prefix[s / 2] = saved;
    }
    for (int i = 0; rc == KIX_OK && i < KIX_SMT_TILE_SLOTS; i++) {
        const uint8_t *rec = slot_record(v, tlen, i), *orec;
        struct kix_hash path;
        struct kix_index_ref oref;
        struct wanted *w;
        int oslot;
        if (!rec || rec[0] != 0x02)
            continue;
        memcpy(path.b, rec + 1, KIX_HASH_LEN);
        oslot = old ? kix_index_tile_leaf_slot(old, otlen, &path) : -1;
        orec = old ? slot_record(old, otlen, oslot) : NULL;
        if (orec && memcmp(orec, rec, KIX_SMT_RECORD_LEN) == 0) {
            if (kix_index_tile_locator(old, oldlen, 0x10u + (unsigned)oslot, &oref) == KIX_OK)
                add_loc(locs, &nloc, 0x10u + (unsigned)i, &oref);
            continue; /* the same record: where it was */
        }
        if (!x->emit) {
            rc = add_want(x, rec);
            continue;
        }
        if (!(w = find_want(x, rec)) || !w->key) /* a key too long to name: kixd proves it */
            continue;
        if (!w->written) {
            kix_buf_reset(&x->value);
            rc = kix_index_value(x->r, w->key, w->klen, &x->value, x->err);
            if (rc == KIX_OK)
                rc = pack_add(x, KIX_INDEX_PACK_VALUE, w->value_hash.b, KIX_HASH_LEN, x->value.ptr,
                              x->value.len, &w->ref);
            if (rc == KIX_OK) {
                w->written = 1;
                x->st->values++;
            }
        }
        if (rc == KIX_OK)
            add_loc(locs, &nloc, 0x10u + (unsigned)i, &w->ref);
    }
    if (rc == KIX_OK && x->emit) {
        uint8_t kl = (uint8_t)klen;
        int lean = s != 0; /* the root is a file of its own, whole */
        kix_buf_reset(&x->item);
        rc = lean ? tile_lean(v, tlen, &x->item) : kix_buf_add(&x->item, v, tlen);
        if (rc == KIX_ECORRUPT)
            rc = kix_err_set(x->err, rc, "a tile of the index tree is malformed");
        else if (rc != KIX_OK)
            rc = kix_err_set(x->err, KIX_ENOMEM, "out of memory");
        if (rc == KIX_OK && kix_buf_add(&x->item, locs, nloc * KIX_INDEX_LOC_LEN))
            rc = kix_err_set(x->err, KIX_ENOMEM, "out of memory");
        if (rc == KIX_OK && s == 0) { /* the root: its own file, which the note names */
            struct kix_hash top;
            char rel[256];
            if (kix_smt_tile_top_hash(v, tlen, &top) != KIX_OK ||
                kix_index_file_tile_path(key, klen, &top, rel, sizeof(rel)) != KIX_OK)
                rc = kix_err_set(x->err, KIX_ECORRUPT, "a tile of the index tree is malformed");
            else
                rc = write_file(x, rel, x->item.ptr, x->item.len);
        } else if (rc == KIX_OK) {
            uint8_t *item = malloc(1 + klen);
            if (!item)
                rc = kix_err_set(x->err, KIX_ENOMEM, "out of memory");
            else {
                item[0] = kl;
                memcpy(item + 1, key, klen);
                rc = pack_add(x, KIX_INDEX_PACK_TILE_LEAN, item, 1 + klen, x->item.ptr, x->item.len,
                              ref);
                free(item);
            }
        }
        if (rc == KIX_OK)
            x->st->tiles++;
    }
    kix_buf_release(&oldchild);
    free(v);
    return rc;
}

/* The pass over every key: the key of each record the first walk wants. */
static int find_key(void *ctx, const char *key, size_t len, const struct kix_hash *value_hash)
{
    struct index_export *x = ctx;
    struct wanted w, *at;

    kix_smt_path(key, len, &w.path);
    w.value_hash = *value_hash;
    at = bsearch(&w, x->want, x->nwant, sizeof(w), by_leaf);
    if (!at || at->key)
        return 0;
    if (!(at->key = malloc(len + 1)))
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    memcpy(at->key, key, len);
    at->key[len] = 0;
    at->klen = len;
    return 0;
}

int kix_vindex_note_root(const void *note, size_t len, struct kix_hash *root)
{
    const char *text = note, *end = text + len;
    size_t n = 0;

    for (const char *p = text; p + 7 < end; p++)
        if (memcmp(p, "\nindex ", 7) == 0) {
            const char *b = p + 7, *e = memchr(b, '\n', (size_t)(end - b));
            return e && kix_base64_decode(b, (size_t)(e - b), root->b, 32, &n) == KIX_OK && n == 32
                       ? KIX_OK
                       : KIX_EPROTO;
        }
    return KIX_EPROTO;
}

/* The root tile of the latest export before this one (size below `size`),
 * with its locators: what this export locates its unchanged subtrees by. */
static int previous_root(struct index_export *x, uint64_t size, struct kix_buf *out)
{
    char path[4400];
    unsigned long long best = 0;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_hash root;
    uint8_t key[KIX_SMT_TILE_KEY_MAX], prefix[KIX_HASH_LEN] = {0};
    DIR *d;
    struct dirent *e;
    int rc = KIX_ENOTFOUND;

    snprintf(path, sizeof(path), "%s/index/notes", x->tree.dir);
    if (!(d = opendir(path)))
        return KIX_ENOTFOUND;
    while ((e = readdir(d)) != NULL) {
        char *end;
        unsigned long long n = strtoull(e->d_name, &end, 10);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end && n < size && n > best)
            best = n;
    }
    closedir(d);
    if (!best)
        return KIX_ENOTFOUND;
    snprintf(path, sizeof(path), "%s/index/notes/%llu", x->tree.dir, best);
    if (kix_file_read(path, 64u << 10, &note, NULL) == KIX_OK &&
        kix_vindex_note_root(note.ptr, note.len, &root) == KIX_OK)
        rc = old_tile(x, key, kix_smt_tile_key(0, prefix, key), &root, NULL, out);
    kix_buf_release(&note);
    return rc;
}

int kix_index_export(struct kix_log_reader *r, const char *dir, struct kix_index_export_stats *st,
                     struct kix_err *err)
{
    struct kix_index_export_stats local;
    struct index_export x;
    struct kix_buf note = KIX_BUF_INIT, old = KIX_BUF_INIT;
    uint8_t prefix[KIX_HASH_LEN] = {0};
    uint64_t size = kix_log_reader_size(r);
    struct kix_index_ref ref;
    char rel[64], path[4200], marker[4200];
    int rc, distrust;

    memset(&x, 0, sizeof(x));
    x.st = st ? st : &local;
    memset(x.st, 0, sizeof(*x.st));
    x.r = r;
    x.size = size;
    x.tree.dir = dir;
    x.tree.mode = 0644;
    x.err = err;
    kix_buf_init(&x.value);
    kix_buf_init(&x.item);
    kix_buf_init(&x.pack);
    rc = kix_log_reader_index_note_cosigned(r, size, &note, NULL);
    if (rc == KIX_ENOTFOUND || size == 0)
        goto done; /* no index (a plain log): nothing to export */
    if (rc)
        goto done;
    snprintf(rel, sizeof(rel), "index/notes/%llu", (unsigned long long)size);
    if ((size_t)snprintf(marker, sizeof(marker), "%s/%s", dir, EXPORTING) >= sizeof(marker) ||
        (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path)) {
        rc = kix_err_set(err, KIX_EINVAL, "export path %.200s... is too long", dir);
        goto done;
    }
    distrust = exists(marker);
    if (!distrust && exists(path))
        goto done; /* exported at this size already */
    /* the mark is durable before the first file, and goes only once all
     * are synced: while it is there, nothing an unfinished export wrote is
     * located by the next, which writes the whole tree again */
    if (!distrust) {
        rc = kix_file_tree_write(&x.tree, EXPORTING, "", 0, 1, err);
        if (rc)
            goto done;
        if (previous_root(&x, size, &old) != KIX_OK)
            kix_buf_reset(&old);
    }
    kix__smt_tiles(&x.tiles, kix_log_reader_txn(r));
    {
        struct kix_bytes top;
        uint8_t key[KIX_SMT_TILE_KEY_MAX];
        size_t klen = kix_smt_tile_key(0, prefix, key);
        struct kix_hash now, was;
        size_t otlen = old.len ? kix_index_tile_len(old.ptr, old.len) : 0;
        rc = x.tiles.get(x.tiles.ctx, key, klen, &top, err);
        if (rc == KIX_ENOTFOUND) { /* an empty tree */
            rc = KIX_OK;
            goto note;
        }
        if (rc == KIX_OK && otlen && kix_smt_tile_top_hash(top.ptr, top.len, &now) == KIX_OK &&
            kix_smt_tile_top_hash(old.ptr, otlen, &was) == KIX_OK &&
            memcmp(now.b, was.b, KIX_HASH_LEN) == 0)
            goto note; /* the same tree: its root file is there */
    }
    if (rc == KIX_OK)
        rc = walk(&x, 0, prefix, old.len ? old.ptr : NULL, old.len, &ref);
    if (rc == KIX_OK && x.nwant) {
        qsort(x.want, x.nwant, sizeof(*x.want), by_leaf);
        rc = kix_index_each_key(kix_log_reader_txn(r), find_key, &x, err);
    }
    if (rc == KIX_OK) {
        kix_smt_tiles_reset(&x.tiles);
        x.emit = 1;
        rc = walk(&x, 0, prefix, old.len ? old.ptr : NULL, old.len, &ref);
    }
    if (rc == KIX_OK)
        rc = pack_flush(&x);
note:
    kix_smt_tiles_release(&x.tiles);
    /* last: the note names a root whose tiles are all there */
    if (rc == KIX_OK)
        rc = write_file(&x, rel, note.ptr, note.len);
    if (rc == KIX_OK)
        rc = kix_dir_sync(dir, err);
    if (rc == KIX_OK && unlink(marker) != 0)
        rc = kix_err_set(err, KIX_EIO, "removing %s: %s", marker, strerror(errno));
done:
    x.st->size = size;
    kix_buf_release(&note);
    kix_buf_release(&old);
    kix_buf_release(&x.value);
    kix_buf_release(&x.item);
    kix_buf_release(&x.pack);
    for (unsigned i = 0; i < OLD_CHUNKS; i++)
        kix_buf_release(&x.old[i].bytes);
    for (size_t i = 0; i < x.nwant; i++)
        free(x.want[i].key);
    free(x.want);
    return rc;
}
