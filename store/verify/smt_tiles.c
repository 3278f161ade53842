/* The sparse Merkle tree's records kept in tiles of four levels (format in
 * kix/smt.h): a struct kix_smt_io over get/put callbacks of whole tiles,
 * with a write-back cache of the tiles one walk or one batch touches. */
#include "kix/smt.h"

#include <assert.h>
#include "kix/sha256.h"
#include <stdlib.h>
#include <string.h>

#define HL     KIX_HASH_LEN
#define REC    KIX_SMT_RECORD_LEN
#define LEVELS KIX_SMT_TILE_LEVELS
#define SLOTS  KIX_SMT_TILE_SLOTS
#define STRATA (KIX_SMT_DEPTH / LEVELS) /* the last stratum: depth 256 alone */
#define T_NODE 0x03

/* One tile in memory. `present`, `stored_nodes` and `written` have bit i
 * (1 << i) for slot i; stored_nodes are the slots that held an interior
 * record in the store when the tile was read (0 for a tile not in the
 * store), kept as read whatever is written since: what a write-miss below
 * may rely on. `written`: the slots the tree code wrote since the last
 * flush (its own records); `vouched`: the slots whose hash in their
 * parent the get vouched for (kix_smt_tile_vouch), as read: see
 * trusted_children. */
struct kix__smt_tile {
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    uint8_t klen, dirty;
    uint16_t present, stored_nodes, written, vouched;
    uint8_t rec[SLOTS][REC];
};

size_t kix_smt_tile_key(unsigned stratum, const uint8_t prefix[KIX_HASH_LEN],
                        uint8_t out[KIX_SMT_TILE_KEY_MAX])
{
    size_t nb = (stratum + 1) / 2; /* ceil(4 x stratum / 8) */

    assert(stratum <= STRATA);
    out[0] = (uint8_t)stratum;
    memcpy(out + 1, prefix, nb);
    if (stratum % 2)
        out[nb] &= 0xf0;
    return 1 + nb;
}

/* The slot of the record at `depth` (in stratum depth / 4) on prefix. */
static unsigned slot_of(unsigned depth, const uint8_t *prefix)
{
    unsigned s = depth / LEVELS, l = depth % LEVELS, nibble;

    if (l == 0)
        return 0; /* also depth 256, whose nibble would be past the prefix */
    nibble = s % 2 ? prefix[s / 2] & 0x0fu : prefix[s / 2] >> 4;
    return (1u << l) - 1 + (nibble >> (LEVELS - l));
}

/* The wire bitmap's mask of slot i (bit i, most significant first). */
static unsigned wire_bit(unsigned i)
{
    return 0x8000u >> i;
}

/* ---- Hashes this process computed ---------------------------------------- */

/* The tile value last vouched for in this thread (kix_smt_tile_vouch):
 * its bytes, by address and length, and the slots (wire bits) whose
 * SHA-256 its parent record holds as this process computed it. */
static _Thread_local struct {
    const uint8_t *v;
    size_t len;
    unsigned children;
} vouch;

void kix_smt_tile_vouch(const uint8_t *v, size_t len, unsigned children)
{
    vouch.v = v;
    vouch.len = len;
    vouch.children = v ? children & 0x7ffeu : 0; /* slots 1..14 */
}

unsigned kix_smt_tile_vouched(const uint8_t *v, size_t len)
{
    return v && v == vouch.v && len == vouch.len ? vouch.children : 0;
}

/* The children (wire bits) of the interior records of levels 0 to 2 in
 * `parents` (wire bits) that `present` (wire bits) holds. */
static unsigned children_of(unsigned parents, unsigned present)
{
    unsigned out = 0;

    for (unsigned i = 0; i < SLOTS / 2; i++)
        if (parents & wire_bit(i))
            out |= wire_bit(2 * i + 1) | wire_bit(2 * i + 2);
    return out & present;
}

/* ---- The cache ------------------------------------------------------------ */

static size_t key_hash(const uint8_t *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < len; i++)
        h = (h ^ key[i]) * 0x100000001b3ull;
    /* FNV-1a mixes its last bytes into few bits: finish as MurmurHash3 */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return (size_t)(h ^ h >> 33);
}

/* The table slot holding key, or the empty slot where it would go. */
static size_t find_slot(const struct kix_smt_tiles *t, const uint8_t *key, size_t len)
{
    size_t i = key_hash(key, len) & (t->cap - 1);

    while (t->table[i] && (t->table[i]->klen != len || memcmp(t->table[i]->key, key, len) != 0))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static struct kix__smt_tile *lookup(const struct kix_smt_tiles *t, const uint8_t *key, size_t len)
{
    return t->cap ? t->table[find_slot(t, key, len)] : NULL;
}

/* Adds a tile known not to be in the table (which stays at most half full,
 * so a probe always ends). */
static int insert(struct kix_smt_tiles *t, struct kix__smt_tile *tile)
{
    if (2 * (t->count + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct kix__smt_tile **old = t->table, **table = calloc(cap, sizeof(*table));
        size_t oldcap = t->cap;

        if (!table)
            return KIX_ENOMEM;
        t->table = table;
        t->cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i])
                t->table[find_slot(t, old[i]->key, old[i]->klen)] = old[i];
        free(old);
    }
    t->table[find_slot(t, tile->key, tile->klen)] = tile;
    t->count++;
    return KIX_OK;
}

/* ---- Reading a stored tile ------------------------------------------------ */

static unsigned popcount16(unsigned v)
{
    unsigned n = 0;

    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Fills tile from a stored value, checking it strictly (kix/smt.h). */
static int decode(struct kix__smt_tile *tile, unsigned stratum, struct kix_bytes v,
                  struct kix_err *err)
{
    unsigned allowed = stratum == STRATA ? wire_bit(0) : 0xfffeu; /* 15 slots, or 1 */
    unsigned bits = v.len >= 2 ? (unsigned)v.ptr[0] << 8 | v.ptr[1] : 0;
    const uint8_t *p = v.ptr + 2;

    if (bits == 0 || (bits & ~allowed) || v.len != 2 + (size_t)REC * popcount16(bits))
        return kix_err_set(err, KIX_ECORRUPT,
                           "sparse Merkle tile at stratum %u is malformed (%zu bytes, bitmap "
                           "%04x): the index store is damaged; rebuild it from the log",
                           stratum, v.len, bits);
    for (unsigned i = 0; i < SLOTS; i++) {
        if (!(bits & wire_bit(i)))
            continue;
        memcpy(tile->rec[i], p, REC);
        tile->present = (uint16_t)(tile->present | 1u << i);
        if (p[0] == T_NODE)
            tile->stored_nodes = (uint16_t)(tile->stored_nodes | 1u << i);
        p += REC;
    }
    return KIX_OK;
}

/* Is the tile of stratum s on prefix out of reach of the stored root, as
 * the nearest tile above it in memory shows? Its route leaves that tile at
 * the slot of depth 4a + 3; only below a stored interior record there can
 * anything below be reached (a walk stops at a leaf and at an empty
 * position). Nothing in memory above: unknown, so no. */
static int unreachable(const struct kix_smt_tiles *t, unsigned s, const uint8_t *prefix)
{
    uint8_t key[KIX_SMT_TILE_KEY_MAX];

    while (s-- > 0) {
        size_t len = kix_smt_tile_key(s, prefix, key);
        const struct kix__smt_tile *above = lookup(t, key, len);
        if (above)
            return !(above->stored_nodes & 1u << slot_of(LEVELS * s + LEVELS - 1, prefix));
    }
    return 0;
}

/* The tile holding the record at `depth` on prefix, from memory or else
 * from the store (read, unless `writing` and the tile is out of reach;
 * absent: an empty tile), kept in memory from then on. */
static int tile_at(struct kix_smt_tiles *t, unsigned depth, const uint8_t *prefix, int writing,
                   struct kix__smt_tile **out, struct kix_err *err)
{
    unsigned s = depth / LEVELS;
    struct kix__smt_tile *tile;
    struct kix_bytes v = {NULL, 0};
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    size_t len;
    int rc = KIX_OK;

    *out = NULL;
    if (depth > KIX_SMT_DEPTH)
        return kix_err_set(err, KIX_EINVAL, "sparse Merkle depth %u is past %u", depth,
                           KIX_SMT_DEPTH);
    len = kix_smt_tile_key(s, prefix, key);
    if ((*out = lookup(t, key, len)))
        return KIX_OK;
    tile = malloc(sizeof(*tile));
    if (!tile)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    memcpy(tile->key, key, len);
    tile->klen = (uint8_t)len;
    tile->dirty = 0;
    tile->present = tile->stored_nodes = tile->written = tile->vouched = 0;
    if (!(writing && unreachable(t, s, prefix))) {
        t->gets++;
        kix_smt_tile_vouch(NULL, 0, 0); /* only this get's vouch counts */
        rc = t->get(t->ctx, key, len, &v, err);
        if (rc == KIX_OK)
            rc = decode(tile, s, v, err);
        else if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
        if (rc == KIX_OK && v.ptr) {
            unsigned w = kix_smt_tile_vouched(v.ptr, v.len);
            for (unsigned i = 1; i < SLOTS; i++)
                if (w & wire_bit(i))
                    tile->vouched = (uint16_t)(tile->vouched | 1u << i);
        }
        kix_smt_tile_vouch(NULL, 0, 0);
    }
    if (rc == KIX_OK && (rc = insert(t, tile)) != KIX_OK)
        kix_err_set(err, rc, "out of memory");
    if (rc) {
        free(tile);
        return rc;
    }
    *out = tile;
    return KIX_OK;
}

/* ---- struct kix_smt_io ---------------------------------------------------- */

static int tiles_read(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                      struct kix_bytes *out, struct kix_err *err)
{
    struct kix__smt_tile *tile;
    unsigned slot;
    int rc = tile_at(ctx, depth, prefix, 0, &tile, err);

    if (rc)
        return rc;
    slot = slot_of(depth, prefix);
    if (!(tile->present & 1u << slot))
        return KIX_ENOTFOUND;
    out->ptr = tile->rec[slot];
    out->len = REC;
    return KIX_OK;
}

static int tiles_write(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                       const uint8_t *rec, size_t len, struct kix_err *err)
{
    struct kix__smt_tile *tile;
    unsigned slot;
    int rc;

    if (len != REC)
        return kix_err_set(err, KIX_EINVAL, "a sparse Merkle record of %zu bytes (not %d)", len,
                           REC);
    if ((rc = tile_at(ctx, depth, prefix, 1, &tile, err)))
        return rc;
    slot = slot_of(depth, prefix);
    tile->written = (uint16_t)(tile->written | 1u << slot);
    /* the same bytes again change nothing the store has to see */
    if ((tile->present & 1u << slot) && memcmp(tile->rec[slot], rec, REC) == 0)
        return KIX_OK;
    memcpy(tile->rec[slot], rec, REC);
    tile->present = (uint16_t)(tile->present | 1u << slot);
    tile->dirty = 1;
    return KIX_OK;
}

void kix_smt_tiles_init(struct kix_smt_tiles *t, kix_smt_tile_get_fn get, kix_smt_tile_put_fn put,
                        void *ctx)
{
    memset(t, 0, sizeof(*t));
    t->io.read = tiles_read;
    t->io.write = tiles_write;
    t->io.ctx = t;
    t->get = get;
    t->put = put;
    t->ctx = ctx;
}

/* ---- Flush, reset ----------------------------------------------------------- */

static int by_key(const void *a, const void *b)
{
    const struct kix__smt_tile *x = *(struct kix__smt_tile *const *)a;
    const struct kix__smt_tile *y = *(struct kix__smt_tile *const *)b;
    int c = memcmp(x->key, y->key, x->klen < y->klen ? x->klen : y->klen);

    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

/* The stored value of a tile (at least one slot present). */
static size_t encode(const struct kix__smt_tile *tile, uint8_t out[KIX_SMT_TILE_MAX])
{
    unsigned bits = 0;
    size_t off = 2;

    for (unsigned i = 0; i < SLOTS; i++) {
        if (!(tile->present & 1u << i))
            continue;
        bits |= wire_bit(i);
        memcpy(out + off, tile->rec[i], REC);
        off += REC;
    }
    out[0] = (uint8_t)(bits >> 8);
    out[1] = (uint8_t)bits;
    return off;
}

/* The slots (wire bits) of a tile's levels 1 to 3 whose hash in their
 * parent this process computed, which the flush vouches for to its put
 * (kix_smt_tile_pack need not hash them again):
 * - a child the tree code wrote since the last flush, under a parent it
 *   wrote too: it writes a record's children before it, hashing each
 *   child it wrote into it (kix_smt_apply), and a parent it writes again
 *   keeps the half of a child it did not visit as it was;
 * - a child it did not write whose hash the get vouched for: its parent,
 *   written or not, holds that half as it was read.
 * Any other child (read from the store as it is) is hashed and checked. */
static unsigned trusted_children(const struct kix__smt_tile *tile)
{
    unsigned out = 0;

    for (unsigned c = 1; c < SLOTS; c++) {
        unsigned parent = (c - 1) / 2;
        int trusted =
            tile->written & 1u << c ? (tile->written >> parent) & 1 : (tile->vouched >> c) & 1;
        if (trusted)
            out |= wire_bit(c);
    }
    return out;
}

int kix_smt_tiles_flush(struct kix_smt_tiles *t, struct kix_err *err)
{
    uint8_t val[KIX_SMT_TILE_MAX];
    size_t ndirty = 0;
    int rc = KIX_OK;

    /* The table is dropped after: gather the changed tiles at its front
     * (freeing the others) and store them in key order, which is the order
     * an ordered store inserts cheapest. */
    for (size_t i = 0; i < t->cap; i++) {
        struct kix__smt_tile *tile = t->table[i];
        t->table[i] = NULL;
        if (tile && tile->dirty)
            t->table[ndirty++] = tile;
        else
            free(tile);
    }
    if (ndirty > 1)
        qsort(t->table, ndirty, sizeof(*t->table), by_key);
    for (size_t i = 0; i < ndirty; i++) {
        struct kix__smt_tile *tile = t->table[i];
        t->table[i] = NULL;
        if (rc == KIX_OK) {
            assert(tile->present != 0);
            kix_err_clear(err);
            t->puts++;
            size_t len = encode(tile, val);
            kix_smt_tile_vouch(val, len, trusted_children(tile));
            rc = t->put(t->ctx, tile->key, tile->klen, val, len, err);
            kix_smt_tile_vouch(NULL, 0, 0);
            if (rc && err && err->msg[0]) {
                err->code = rc;
                kix_err_wrap(err, "storing a sparse Merkle tile at stratum %u", tile->key[0]);
            } else if (rc) {
                kix_err_set(err, rc, "storing a sparse Merkle tile at stratum %u failed: %s",
                            tile->key[0], kix_strerror(rc));
            }
        }
        free(tile);
    }
    t->count = 0;
    return rc;
}

void kix_smt_tiles_reset(struct kix_smt_tiles *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->table[i]);
        t->table[i] = NULL;
    }
    t->count = 0;
}

void kix_smt_tiles_release(struct kix_smt_tiles *t)
{
    kix_smt_tiles_reset(t);
    free(t->table);
    t->table = NULL;
    t->cap = 0;
}

/* ---- Tiles read as files ------------------------------------------------- */

/* The record in slot `slot` of a stored tile value, or NULL. */
static const uint8_t *stored_record(const uint8_t *v, size_t len, unsigned slot)
{
    unsigned bits = len >= 2 ? (unsigned)v[0] << 8 | v[1] : 0;
    const uint8_t *p = v + 2;

    if (bits == 0 || len != 2 + (size_t)REC * popcount16(bits) || !(bits & wire_bit(slot)))
        return NULL;
    for (unsigned i = 0; i < slot; i++)
        if (bits & wire_bit(i))
            p += REC;
    return p;
}

int kix_smt_tile_top_hash(const uint8_t *v, size_t len, struct kix_hash *out)
{
    const uint8_t *rec = stored_record(v, len, 0);

    if (!rec)
        return KIX_EINVAL;
    kix_sha256(rec, REC, out->b);
    return KIX_OK;
}

int kix_smt_tile_child_hash(const uint8_t *v, size_t len, unsigned stratum,
                            const uint8_t prefix[KIX_HASH_LEN], struct kix_hash *out)
{
    unsigned depth = LEVELS * stratum + LEVELS - 1, bit = depth;
    const uint8_t *rec;

    if (stratum >= STRATA)
        return KIX_EINVAL;
    rec = stored_record(v, len, slot_of(depth, prefix));
    if (!rec || rec[0] != T_NODE)
        return KIX_ENOTFOUND;
    /* the child across path bit `depth`: left (bit 0) or right (bit 1) */
    memcpy(out->b, rec + 1 + (prefix[bit / 8] & (0x80u >> bit % 8) ? HL : 0), HL);
    for (unsigned i = 0; i < HL; i++)
        if (out->b[i])
            return KIX_OK;
    return KIX_ENOTFOUND; /* an empty child */
}

/* ---- Tiles packed for a store on disk ----------------------------------- */

#define PACKED_MARK 0x0001u /* bit 15: never set in a tile value */
#define T_LEAF      0x02
/* the interior records of levels 0 to 2 (slots 0..6) are computed from the
 * records below them, at most 14 SHA-256 a tile read (a partial tile: full
 * ones, which every proof reads, are kept whole); level 3's children are
 * in the tiles below, so it is kept. Tiles packed before kix-index/8 kept
 * level 2 (slots 0..2 derived) and have no LEVEL2_MARK in their leaf
 * marks; they are read as they are. */
#define UPPER_SLOTS    7
#define UPPER_SLOTS_V7 3
#define LEVEL2_MARK    0x0001u /* bit 15 of the leaf marks: no slot */

void kix_smt_tile_derive(uint8_t recs[SLOTS][REC], unsigned bits, unsigned derive)
{
    for (unsigned i = SLOTS / 2; i-- > 0;) {
        if (!(derive & wire_bit(i)))
            continue;
        recs[i][0] = T_NODE;
        for (unsigned c = 0; c < 2; c++) {
            unsigned child = 2 * i + 1 + c;
            if (bits & wire_bit(child))
                kix_sha256(recs[child], REC, recs[i] + 1 + c * HL);
            else
                memset(recs[i] + 1 + c * HL, 0, HL);
        }
    }
}

int kix_smt_tile_packed(const uint8_t *p, size_t plen)
{
    return plen >= 2 && (p[1] & PACKED_MARK);
}

size_t kix_smt_tile_pack(const uint8_t *v, size_t len, uint8_t out[KIX_SMT_TILE_MAX])
{
    unsigned bits = len >= 2 ? (unsigned)v[0] << 8 | v[1] : 0, leaves = 0;
    /* the children whose hashes this process computed (a flush's own
     * value, its put packing it) */
    int ours = v && v == vouch.v && len == vouch.len;
    unsigned trusted = kix_smt_tile_vouched(v, len), parents = 0;
    const uint8_t *rec[SLOTS] = {0};
    const uint8_t *p = v + 2;
    size_t off = 4;

    /* a full tile (every slot: the tree's top strata, which every proof
     * reads) would cost every reader 6 hashes; kept whole, a few per mille */
    if (bits == 0 || bits == 0xfffeu || (bits & PACKED_MARK) ||
        len != 2 + (size_t)REC * popcount16(bits))
        goto as_is;
    for (unsigned i = 0; i < SLOTS; i++)
        if (bits & wire_bit(i)) {
            rec[i] = p;
            p += REC;
        }
    /* only what unpack would compute again is dropped: every interior
     * record of levels 0 to 2 must be its children's hashes */
    for (unsigned i = 0; i < SLOTS; i++) {
        if (!rec[i])
            continue;
        if (rec[i][0] == T_LEAF) {
            leaves |= wire_bit(i);
        } else if (rec[i][0] != T_NODE) {
            goto as_is;
        } else if (i < UPPER_SLOTS) {
            parents |= wire_bit(i);
            for (unsigned c = 0; c < 2; c++) {
                const uint8_t *child = rec[2 * i + 1 + c], *half = rec[i] + 1 + c * HL;
                uint8_t h[HL] = {0};
                if (child && (trusted & wire_bit(2 * i + 1 + c)))
                    continue;
                if (child)
                    kix_sha256(child, REC, h);
                if (memcmp(h, half, HL) != 0)
                    goto as_is;
            }
        }
    }
    for (unsigned i = 0; i < SLOTS; i++)
        if (rec[i] && (rec[i][0] == T_LEAF || i >= UPPER_SLOTS)) {
            off += REC - 1;
            if (off >= len) /* one record: its tag is less than the leaf marks */
                goto as_is;
            memcpy(out + off - (REC - 1), rec[i] + 1, REC - 1);
        }
    /* every upper record of a vouched value (a flush's, while its put
     * runs) is its children's hashes now: the put may keep that with v
     * (the index's tile cache) and vouch for them when it gives v back */
    if (ours)
        kix_smt_tile_vouch(v, len, children_of(parents, bits));
    bits |= PACKED_MARK;
    leaves |= LEVEL2_MARK;
    out[0] = (uint8_t)(bits >> 8);
    out[1] = (uint8_t)bits;
    out[2] = (uint8_t)(leaves >> 8);
    out[3] = (uint8_t)leaves;
    return off;
as_is:
    memcpy(out, v, len);
    return len;
}

/* A packed value's bitmap and leaf marks (p holds at least 4 bytes), and
 * the slots below which its interior records are left out. */
static unsigned packed_marks(const uint8_t *p, unsigned *leaves, unsigned *upper)
{
    *leaves = (unsigned)p[2] << 8 | p[3];
    *upper = *leaves & LEVEL2_MARK ? UPPER_SLOTS : UPPER_SLOTS_V7;
    *leaves &= ~LEVEL2_MARK;
    return ((unsigned)p[0] << 8 | p[1]) & ~PACKED_MARK;
}

int kix_smt_tile_unpack(const uint8_t *p, size_t plen, uint8_t out[KIX_SMT_TILE_MAX], size_t *len)
{
    unsigned bits, leaves, kept = 0, derive = 0, upper;
    uint8_t rec[SLOTS][REC];
    const uint8_t *q = p + 4;
    size_t off = 2;

    if (!kix_smt_tile_packed(p, plen)) {
        if (plen > KIX_SMT_TILE_MAX)
            return KIX_ECORRUPT;
        memcpy(out, p, plen);
        *len = plen;
        return KIX_OK;
    }
    if (plen < 4)
        return KIX_ECORRUPT;
    bits = packed_marks(p, &leaves, &upper);
    if (bits == 0 || (leaves & ~bits))
        return KIX_ECORRUPT;
    for (unsigned i = 0; i < SLOTS; i++)
        if ((bits & wire_bit(i)) && ((leaves & wire_bit(i)) || i >= upper))
            kept++;
    if (plen != 4 + (size_t)(REC - 1) * kept)
        return KIX_ECORRUPT;
    for (unsigned i = 0; i < SLOTS; i++)
        if ((bits & wire_bit(i)) && ((leaves & wire_bit(i)) || i >= upper)) {
            rec[i][0] = leaves & wire_bit(i) ? T_LEAF : T_NODE;
            memcpy(rec[i] + 1, q, REC - 1);
            q += REC - 1;
        }
    /* the upper interior records, each from its children below it */
    for (unsigned i = 0; i < upper; i++) {
        if (!(bits & wire_bit(i)) || (leaves & wire_bit(i)))
            continue;
        if (!(bits & (wire_bit(2 * i + 1) | wire_bit(2 * i + 2))))
            return KIX_ECORRUPT;
        derive |= wire_bit(i);
    }
    kix_smt_tile_derive(rec, bits, derive);
    for (unsigned i = 0; i < SLOTS; i++)
        if (bits & wire_bit(i)) {
            memcpy(out + off, rec[i], REC);
            off += REC;
        }
    out[0] = (uint8_t)(bits >> 8);
    out[1] = (uint8_t)bits;
    *len = off;
    return KIX_OK;
}

unsigned kix_smt_tile_derived(const uint8_t *p, size_t plen)
{
    unsigned leaves, upper, bits, derive = 0;

    if (!kix_smt_tile_packed(p, plen) || plen < 4)
        return 0;
    bits = packed_marks(p, &leaves, &upper);
    for (unsigned i = 0; i < upper; i++) /* as unpack derives them */
        if ((bits & wire_bit(i)) && !(leaves & wire_bit(i)))
            derive |= wire_bit(i);
    return children_of(derive, bits);
}
