/* Tree hashes stored as tiles of height 8 (format in kix/merkle.h): append
 * and proofs at any size up to the current one, through read/write
 * callbacks. */
#include "kix/merkle.h"

#include <stdlib.h>
#include <string.h>

#define TH   KIX_TILE_HEIGHT
#define TW   KIX_TILE_WIDTH
#define HL   KIX_HASH_LEN
#define HDR  2                  /* the big-endian width */
#define ROOT 510                /* slot of the tile root in the fixed layout */
#define ULL  unsigned long long /* for printing */

/* ---- Record layout ----------------------------------------------------- */

/* Index of the first hash of row r in a record of width w (rows packed). */
static size_t packed_off(unsigned w, unsigned r)
{
    size_t off = 0;

    for (unsigned k = 0; k < r; k++)
        off += w >> k;
    return off;
}

/* Row r in the fixed layout used while building: rows at the offsets of a
 * full tile (0, 256, 384, ... 508), and the root at 510. */
static size_t fixed_off(unsigned r)
{
    return 512 - (512u >> r);
}

static void node_hash(const uint8_t *l, const uint8_t *r, uint8_t *out)
{
    struct kix_hash a, b, c;

    /* Tile bytes are plain uint8_t arrays; copy through struct kix_hash
     * rather than cast, so no pointer is read as a type it is not. */
    memcpy(a.b, l, HL);
    memcpy(b.b, r, HL);
    kix_merkle_node_hash(&a, &b, &c);
    memcpy(out, c.b, HL);
}

/* Checks a record's header and length; sets *w. */
static int parse_record(struct kix_bytes rec, uint32_t level, uint64_t index, unsigned *w,
                        struct kix_err *err)
{
    unsigned width = rec.len >= HDR ? ((unsigned)rec.ptr[0] << 8 | rec.ptr[1]) : 0;

    if (width < 1 || width > TW || rec.len != HDR + HL * packed_off(width, TH))
        return kix_err_set(err, KIX_ECORRUPT,
                           "tile %u/%llu is malformed (%zu bytes, width %u): the tree hash store "
                           "is damaged; rebuild it from the leaves",
                           level, (ULL)index, rec.len, width);
    *w = width;
    return KIX_OK;
}

/* Reads one tile through the callback, turning its failures into ours. */
static int read_tile(struct kix_tile_io *io, uint32_t level, uint64_t index, struct kix_bytes *out,
                     unsigned *w, struct kix_err *err)
{
    int rc;

    kix_err_clear(err);
    io->reads++;
    rc = io->read(io->ctx, level, index, out, err);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_ECORRUPT,
                           "tile %u/%llu is missing: the size asked for is larger than the tree, "
                           "or the tree hash store is damaged",
                           level, (ULL)index);
    if (rc != KIX_OK) {
        if (!err || !err->msg[0])
            return kix_err_set(err, rc, "reading tile %u/%llu failed: %s", level, (ULL)index,
                               kix_strerror(rc));
        err->code = rc;
        return kix_err_wrap(err, "reading tile %u/%llu", level, (ULL)index);
    }
    return parse_record(*out, level, index, w, err);
}

static int write_tile(struct kix_tile_io *io, uint32_t level, uint64_t index, const uint8_t *data,
                      size_t len, struct kix_err *err)
{
    int rc;

    kix_err_clear(err);
    rc = io->write(io->ctx, level, index, data, len, err);
    if (rc == KIX_OK)
        return KIX_OK;
    if (!err || !err->msg[0])
        return kix_err_set(err, rc, "writing tile %u/%llu failed: %s", level, (ULL)index,
                           kix_strerror(rc));
    err->code = rc;
    return kix_err_wrap(err, "writing tile %u/%llu", level, (ULL)index);
}

/* ---- Reading ----------------------------------------------------------- */

/* A proof touches at most two tiles per tile level (the path of one node and
 * the right edge of the tree) and there are at most 8 tile levels. */
#define CACHE_MAX 24

struct reader {
    struct kix_tile_io *io;
    struct kix_tile_edge *edge; /* NULL, or the right edge of the size proven */
    unsigned n;
    struct {
        uint32_t level;
        uint64_t index;
        const uint8_t *rec;
        unsigned w;
    } c[CACHE_MAX];
};

static void reader_init(struct reader *rd, struct kix_tile_io *io)
{
    rd->io = io;
    rd->edge = NULL;
    rd->n = 0;
}

/* Returns the cached view of tile (L, N), reading it on first use. Views
 * stay valid: nothing writes during a read call. */
static int load(struct reader *rd, uint32_t L, uint64_t N, unsigned *i, struct kix_err *err)
{
    struct kix_bytes v;
    unsigned k;
    int rc;

    for (k = 0; k < rd->n; k++) {
        if (rd->c[k].level == L && rd->c[k].index == N) {
            *i = k;
            return KIX_OK;
        }
    }
    /* Cannot fill up (see CACHE_MAX); if it ever did, reuse the last slot
     * and pay a second read rather than fail. */
    k = rd->n < CACHE_MAX ? rd->n++ : CACHE_MAX - 1;
    rc = read_tile(rd->io, L, N, &v, &rd->c[k].w, err);
    if (rc) {
        rd->n = k;
        return rc;
    }
    rd->c[k].level = L;
    rd->c[k].index = N;
    rd->c[k].rec = v.ptr;
    *i = k;
    return KIX_OK;
}

/* The hash of complete node (level, index), from the tile that holds it. */
static int get_node(struct reader *rd, unsigned level, uint64_t index, uint8_t *out,
                    struct kix_err *err)
{
    unsigned L = level / TH, r = level % TH, i, w;
    uint64_t N = index >> (TH - r);
    unsigned pos = (unsigned)(index & ((TW >> r) - 1));
    int rc = load(rd, L, N, &i, err);

    if (rc)
        return rc;
    w = rd->c[i].w;
    if (pos >= w >> r)
        return kix_err_set(err, KIX_ECORRUPT,
                           "tile %u/%llu (width %u) lacks node %u/%llu: the size asked for is "
                           "larger than the tree, or the tree hash store is damaged",
                           L, (ULL)N, w, level, (ULL)index);
    memcpy(out, rd->c[i].rec + HDR + HL * (packed_off(w, r) + pos), HL);
    return KIX_OK;
}

/* A root folds the right edge of its tree: the complete nodes that the set
 * bits of the size (or of b - a, for a right-edge subtree [a, b)) give,
 * from the lowest level up, each new node on the left. */
struct edge {
    uint8_t acc[HL];
    int have;
};

static void edge_add(struct edge *e, const uint8_t *node)
{
    if (e->have)
        node_hash(node, e->acc, e->acc);
    else
        memcpy(e->acc, node, HL);
    e->have = 1;
}

/* MTH of leaves [a, b), b > a, where a is a multiple of the largest power of
 * two not above b - a (true of [0, n) and of every right-edge subtree). */
static int range_hash(struct reader *rd, uint64_t a, uint64_t b, uint8_t *out, struct kix_err *err)
{
    struct edge e = {.have = 0};
    uint8_t node[HL];
    uint64_t end = b;
    int rc;

    for (uint64_t d = b - a; d; d &= d - 1) {
        unsigned l = (unsigned)__builtin_ctzll(d);
        end -= (uint64_t)1 << l;
        rc = get_node(rd, l, end >> l, node, err);
        if (rc)
            return rc;
        edge_add(&e, node);
    }
    memcpy(out, e.acc, HL);
    return KIX_OK;
}

/* The sibling of node (i, anc) in the tree of `size`, if it has one: a left
 * sibling is complete; a right one may be cut by the edge of the tree. */
static int sibling(struct reader *rd, unsigned i, uint64_t anc, uint64_t size, uint8_t *out,
                   int *present, struct kix_err *err)
{
    uint64_t sib = anc ^ 1, s = sib << i;
    int rc;

    *present = s < size;
    if (!*present)
        return KIX_OK; /* the node is promoted unchanged: no hash */
    if (sib < anc || size - s >= (uint64_t)1 << i)
        return get_node(rd, i, sib, out, err);
    /* cut by the edge of the tree: the partial node of level i */
    if (rd->edge && (rd->edge->have >> i & 1)) {
        memcpy(out, rd->edge->node[i], HL);
        return KIX_OK;
    }
    rc = range_hash(rd, s, size, out, err);
    if (rc == KIX_OK && rd->edge) {
        memcpy(rd->edge->node[i], out, HL);
        rd->edge->have |= (uint64_t)1 << i;
    }
    return rc;
}

/* Appends to proof the path from complete node (level, index) up to the root
 * of the tree of `size`: one sibling per level that has one. */
static int node_path(struct reader *rd, unsigned level, uint64_t index, uint64_t size,
                     struct kix_hash *proof, size_t *len, struct kix_err *err)
{
    uint64_t first = index << level;
    int present, rc;

    for (unsigned i = level; i < 64 && ((size - 1) >> i) != 0; i++) {
        rc = sibling(rd, i, first >> i, size, proof[*len].b, &present, err);
        if (rc)
            return rc;
        *len += (size_t)present;
    }
    return KIX_OK;
}

/* ---- Append ------------------------------------------------------------ */

/* One tile being built, in the fixed layout; packed in place just before it
 * is written. 16 KiB: lives in the caller's frame, once per append. */
struct tile {
    unsigned w;
    uint8_t rec[HDR + HL * (ROOT + 1)];
};

static uint8_t *slot(struct tile *t, size_t i)
{
    return t->rec + HDR + HL * i;
}

/* Copies a stored record (packed) into t's fixed layout: the copy also
 * frees us from the view, which the next write invalidates. */
static void unpack(struct tile *t, const uint8_t *rec, unsigned w)
{
    t->w = w;
    for (unsigned r = 0; r < TH; r++)
        memcpy(slot(t, fixed_off(r)), rec + HDR + HL * packed_off(w, r), HL * (size_t)(w >> r));
}

/* Adds n bottom-row hashes and computes only the nodes they complete, so each
 * node of the tree is hashed once, when it becomes complete. */
static void grow(struct tile *t, const uint8_t *hashes, unsigned n)
{
    unsigned old = t->w, neu = t->w + n;

    memcpy(slot(t, old), hashes, HL * (size_t)n);
    for (unsigned r = 1; r <= TH; r++) {
        size_t below = fixed_off(r - 1), here = fixed_off(r);
        for (unsigned j = old >> r; j < neu >> r; j++)
            node_hash(slot(t, below + 2 * j), slot(t, below + 2 * j + 1), slot(t, here + j));
    }
    t->w = neu;
}

/* Packs rows 1..7 down to their offsets for width w and sets the header.
 * Moving rows in increasing order never overwrites a row not yet moved:
 * packed offsets are at most the fixed ones. Returns the record length. */
static size_t pack(struct tile *t)
{
    for (unsigned r = 1; r < TH; r++)
        memmove(slot(t, packed_off(t->w, r)), slot(t, fixed_off(r)), HL * (size_t)(t->w >> r));
    t->rec[0] = (uint8_t)(t->w >> 8);
    t->rec[1] = (uint8_t)t->w;
    return HDR + HL * packed_off(t->w, TH);
}

/* Loads the partial tile that new nodes at position lo of level 8L extend,
 * or starts an empty one when lo begins a tile. */
static int start_tile(struct kix_tile_io *io, uint32_t L, uint64_t lo, struct tile *t,
                      struct kix_err *err)
{
    struct kix_bytes v;
    unsigned w;
    int rc;

    t->w = 0;
    if (lo % TW == 0)
        return KIX_OK;
    rc = read_tile(io, L, lo / TW, &v, &w, err);
    if (rc)
        return rc;
    if (w != lo % TW)
        return kix_err_set(err, KIX_ECORRUPT,
                           "tile %u/%llu has width %u but the tree size implies %u: the tree "
                           "hash store does not match the log size",
                           L, (ULL)(lo / TW), w, (unsigned)(lo % TW));
    unpack(t, v.ptr, w);
    return KIX_OK;
}

/* Adds the right-edge nodes of the tree's last tile at this level: row r
 * holds one when bit r of the width is set, the last node of that row. */
static void tile_edge(struct tile *t, struct edge *e)
{
    for (unsigned r = 0; r < TH; r++)
        if ((t->w >> r) & 1)
            edge_add(e, slot(t, fixed_off(r) + (t->w >> r) - 1));
}

/* Appends n new level-8L nodes (first at position lo of that level) to tile
 * level L. The roots of tiles this fills are the new level-8L+8 nodes: they
 * go to up[0..*nup). up may alias in: a root is stored only after its tile
 * consumed its inputs, and always at an earlier position. */
static int append_level(struct kix_tile_io *io, uint32_t L, uint64_t lo, const uint8_t *in,
                        size_t n, struct tile *t, uint8_t *up, size_t *nup, struct edge *e,
                        struct kix_err *err)
{
    uint64_t index = lo / TW;
    size_t done = 0;
    int rc = start_tile(io, L, lo, t, err);

    *nup = 0;
    while (rc == KIX_OK && done < n) {
        unsigned take = (unsigned)(n - done < TW - t->w ? n - done : TW - t->w);
        grow(t, in + HL * done, take);
        done += take;
        if (t->w == TW)
            memcpy(up + HL * (*nup)++, slot(t, ROOT), HL);
        if (done == n)
            tile_edge(t, e);
        rc = write_tile(io, L, index++, t->rec, pack(t), err);
        t->w = 0;
    }
    return rc;
}

/* Finishes the new root: the edge nodes above the levels append touched
 * come from tiles it did not read (unchanged ones), so none is read twice. */
static int finish_root(struct kix_tile_io *io, uint64_t size, unsigned from, struct edge *e,
                       struct kix_hash *root, struct kix_err *err)
{
    struct reader rd;
    uint8_t node[HL];
    int rc;

    reader_init(&rd, io);
    for (unsigned l = from; l < 64; l++) {
        if (!((size >> l) & 1))
            continue;
        rc = get_node(&rd, l, (size >> l) - 1, node, err);
        if (rc)
            return rc;
        edge_add(e, node);
    }
    if (e->have)
        memcpy(root->b, e->acc, HL);
    else
        kix_merkle_empty_root(root);
    return KIX_OK;
}

int kix_tiles_append(struct kix_tile_io *io, uint64_t old_size, const struct kix_hash *leaf_hashes,
                     size_t count, struct kix_hash *new_root, struct kix_err *err)
{
    uint8_t small[HL * 8], *up = small;
    const uint8_t *in = (const uint8_t *)leaf_hashes;
    struct edge e = {.have = 0};
    struct tile t;
    uint32_t L = 0;
    size_t n = count, cap = count / TW + 2; /* level-8 nodes this batch can complete */
    int rc = KIX_OK;

    if (count > UINT64_MAX - old_size)
        return kix_err_set(err, KIX_ELIMIT,
                           "cannot append %zu leaves to a tree of %llu: the size would pass "
                           "2^64-1",
                           count, (ULL)old_size);
    if (cap > sizeof(small) / HL && !(up = malloc(HL * cap)))
        return kix_err_set(err, KIX_ENOMEM, "out of memory appending %zu leaf hashes", count);
    /* Level by level: each level's filled tiles give the next level's new
     * bottom-row nodes, so every tile is written once, after all its input
     * is known. */
    for (; rc == KIX_OK && n > 0; L++) {
        rc = append_level(io, L, old_size >> (TH * L), in, n, &t, up, &n, &e, err);
        in = up;
    }
    if (up != small)
        free(up);
    if (rc == KIX_OK)
        rc = finish_root(io, old_size + count, TH * L, &e, new_root, err);
    return rc;
}

int kix_tiles_hash(struct kix_tile_io *io, uint64_t size, uint32_t level, uint64_t index,
                   struct kix_hash *out, struct kix_err *err)
{
    struct reader rd;

    if (level >= 64 || index >= (size >> level))
        return kix_err_set(err, KIX_EINVAL,
                           "node %u/%llu is not a complete subtree of the tree of size %llu", level,
                           (ULL)index, (ULL)size);
    reader_init(&rd, io);
    return get_node(&rd, level, index, out->b, err);
}

int kix_tiles_leaf_hash(struct kix_tile_io *io, uint64_t index, struct kix_hash *out,
                        struct kix_err *err)
{
    struct reader rd;

    reader_init(&rd, io);
    return get_node(&rd, 0, index, out->b, err);
}

int kix_tiles_root(struct kix_tile_io *io, uint64_t size, struct kix_hash *out, struct kix_err *err)
{
    struct reader rd;

    if (size == 0) {
        kix_merkle_empty_root(out);
        return KIX_OK;
    }
    reader_init(&rd, io);
    return range_hash(&rd, 0, size, out->b, err);
}

int kix_tiles_inclusion_proof(struct kix_tile_io *io, uint64_t index, uint64_t size,
                              struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                              struct kix_err *err)
{
    return kix_tiles_inclusion_proof_edge(io, NULL, index, size, proof, len, err);
}

int kix_tiles_inclusion_proof_edge(struct kix_tile_io *io, struct kix_tile_edge *edge,
                                   uint64_t index, uint64_t size,
                                   struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                   struct kix_err *err)
{
    struct reader rd;

    *len = 0;
    if (index >= size)
        return kix_err_set(err, KIX_EINVAL,
                           "no inclusion proof for leaf %llu in a tree of size %llu: the index "
                           "must be below the size",
                           (ULL)index, (ULL)size);
    if (edge && edge->size != size) {
        edge->size = size;
        edge->have = 0;
    }
    reader_init(&rd, io);
    rd.edge = edge;
    return node_path(&rd, 0, index, size, proof, len, err);
}

int kix_tiles_consistency_proof(struct kix_tile_io *io, uint64_t size1, uint64_t size2,
                                struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                struct kix_err *err)
{
    struct reader rd;
    unsigned level;
    uint64_t index;
    int rc;

    *len = 0;
    if (size1 == 0 || size1 > size2)
        return kix_err_set(err, KIX_EINVAL,
                           "no consistency proof from size %llu to size %llu: need 0 < size1 <= "
                           "size2",
                           (ULL)size1, (ULL)size2);
    if (size1 == size2)
        return KIX_OK;
    /* The biggest complete subtree ending at size1 (the seed), then its path
     * in the tree of size2. The seed is left out when size1 is a power of
     * two: it is then root1, which the verifier already has. */
    level = (unsigned)__builtin_ctzll(size1);
    index = (size1 - 1) >> level;
    reader_init(&rd, io);
    if (index != 0) {
        rc = get_node(&rd, level, index, proof[0].b, err);
        if (rc)
            return rc;
        *len = 1;
    }
    return node_path(&rd, level, index, size2, proof, len, err);
}
