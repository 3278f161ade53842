/* Sparse Merkle tree with single-leaf collapse (format in kix/smt.h):
 * hashing, the proof encoding and its verification, and batched updates and
 * proofs over records reached through struct kix_smt_io. */
#include "kix/smt.h"

#include <assert.h>
#include <string.h>

#include "kix/sha256.h"

#define HL     KIX_HASH_LEN
#define DEPTH  KIX_SMT_DEPTH
#define REC    KIX_SMT_RECORD_LEN
#define T_LEAF 0x02
#define T_NODE 0x03

static const uint8_t zero[HL];

static int bit(const uint8_t *p, unsigned i)
{
    return (p[i / 8] >> (7 - i % 8)) & 1;
}

static void set_bit(uint8_t *p, unsigned i, int v)
{
    uint8_t m = (uint8_t)(0x80u >> (i % 8));

    p[i / 8] = v ? (uint8_t)(p[i / 8] | m) : (uint8_t)(p[i / 8] & ~m);
}

static int is_zero(const uint8_t *h)
{
    return memcmp(h, zero, HL) == 0;
}

/* Do a and b agree on their first n bits? */
static int same_prefix(const uint8_t *a, const uint8_t *b, unsigned n)
{
    unsigned full = n / 8;

    if (memcmp(a, b, full) != 0)
        return 0;
    if (n % 8 == 0)
        return 1;
    return ((a[full] ^ b[full]) & (uint8_t)(0xff00u >> (n % 8))) == 0;
}

static void hash3(uint8_t tag, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    struct kix_sha256 st;

    kix_sha256_init(&st);
    kix_sha256_update(&st, &tag, 1);
    kix_sha256_update(&st, a, HL);
    kix_sha256_update(&st, b, HL);
    kix_sha256_final(&st, out);
}

void kix_smt_path(const void *key, size_t len, struct kix_hash *out)
{
    kix_sha256(key, len, out->b);
}

void kix_smt_value_hash(const void *value, size_t len, struct kix_hash *out)
{
    kix_sha256(value, len, out->b);
}

void kix_smt_leaf_hash(const struct kix_hash *path, const struct kix_hash *value_hash,
                       struct kix_hash *out)
{
    hash3(T_LEAF, path->b, value_hash->b, out->b);
}

void kix_smt_node_hash(const struct kix_hash *left, const struct kix_hash *right,
                       struct kix_hash *out)
{
    hash3(T_NODE, left->b, right->b, out->b);
}

/* ---- Proof encoding ---------------------------------------------------- */

static size_t popcount(const uint8_t *bitmap, size_t nbytes)
{
    size_t n = 0;

    for (size_t i = 0; i < nbytes; i++)
        for (uint8_t b = bitmap[i]; b; b &= (uint8_t)(b - 1))
            n++;
    return n;
}

int kix_smt_proof_parse(const uint8_t *data, size_t len, struct kix_smt_proof *out,
                        struct kix_err *err)
{
    size_t nb, off, want;
    unsigned depth;

    memset(out, 0, sizeof(*out));
    if (len < 3)
        return kix_err_set(err, KIX_EINVAL, "sparse Merkle proof too short (%zu bytes, need 3)",
                           len);
    if (data[0] > KIX_SMT_OTHER)
        return kix_err_set(err, KIX_EINVAL, "sparse Merkle proof has unknown kind 0x%02x", data[0]);
    depth = (unsigned)data[1] << 8 | data[2];
    if (depth > DEPTH)
        return kix_err_set(err, KIX_EINVAL, "sparse Merkle proof depth %u is past %u", depth,
                           DEPTH);
    nb = (depth + 7) / 8;
    if (len < 3 + nb)
        return kix_err_set(err, KIX_EINVAL,
                           "sparse Merkle proof truncated in its bitmap (%zu bytes)", len);
    memcpy(out->bitmap, data + 3, nb);
    if (depth % 8 && (out->bitmap[nb - 1] & (0xffu >> (depth % 8))))
        return kix_err_set(err, KIX_EINVAL, "sparse Merkle proof has bitmap bits set past depth %u",
                           depth);
    out->kind = data[0];
    out->depth = depth;
    out->nsiblings = popcount(out->bitmap, nb);
    off = 3 + nb;
    /* Bounded: nsiblings <= 256, so want <= KIX_SMT_PROOF_MAX. */
    want = off + (out->kind == KIX_SMT_OTHER ? 2 * HL : 0) + out->nsiblings * HL;
    if (len != want)
        return kix_err_set(err, KIX_EINVAL,
                           "sparse Merkle proof is %zu bytes where its header implies %zu", len,
                           want);
    if (out->kind == KIX_SMT_OTHER) {
        memcpy(out->leaf_path.b, data + off, HL);
        memcpy(out->leaf_value_hash.b, data + off + HL, HL);
        off += 2 * HL;
    }
    out->siblings = data + off;
    for (size_t i = 0; i < out->nsiblings; i++)
        if (is_zero(out->siblings + i * HL))
            return kix_err_set(err, KIX_EINVAL,
                               "sparse Merkle proof sibling %zu is marked non-empty but is the "
                               "empty hash",
                               i);
    assert(off + out->nsiblings * HL == len);
    return KIX_OK;
}

int kix_smt_proof_encode(const struct kix_smt_proof *p, struct kix_buf *out, struct kix_err *err)
{
    uint8_t head[3];
    size_t nb;
    int rc;

    nb = (p->depth + 7) / 8;
    if (p->kind < KIX_SMT_EMPTY || p->kind > KIX_SMT_OTHER || p->depth > DEPTH ||
        (p->depth % 8 && (p->bitmap[nb - 1] & (0xffu >> (p->depth % 8)))) ||
        popcount(p->bitmap, nb) != p->nsiblings || (p->nsiblings && !p->siblings))
        return kix_err_set(err, KIX_EINVAL, "inconsistent sparse Merkle proof struct");
    head[0] = (uint8_t)p->kind;
    head[1] = (uint8_t)(p->depth >> 8);
    head[2] = (uint8_t)p->depth;
    if ((rc = kix_buf_add(out, head, 3)) || (rc = kix_buf_add(out, p->bitmap, nb)))
        goto out;
    if (p->kind == KIX_SMT_OTHER && ((rc = kix_buf_add(out, p->leaf_path.b, HL)) ||
                                     (rc = kix_buf_add(out, p->leaf_value_hash.b, HL))))
        goto out;
    if (p->nsiblings)
        rc = kix_buf_add(out, p->siblings, p->nsiblings * HL);
out:
    if (rc)
        return kix_err_set(err, rc, "encoding a sparse Merkle proof: %s", kix_strerror(rc));
    return KIX_OK;
}

static int refuse(struct kix_err *err, const char *what)
{
    return kix_err_set(err, KIX_EVERIFY, "sparse Merkle proof refused: %s", what);
}

int kix_smt_verify(const struct kix_hash *root, const struct kix_hash *path,
                   const struct kix_hash *value_hash, const uint8_t *data, size_t len,
                   struct kix_err *err)
{
    struct kix_smt_proof p;
    uint8_t h[HL];
    size_t next;
    int rc;

    rc = kix_smt_proof_parse(data, len, &p, err);
    if (rc) {
        kix_err_wrap(err, "sparse Merkle proof refused");
        return KIX_EVERIFY;
    }
    switch (p.kind) {
    case KIX_SMT_MEMBER:
        if (!value_hash)
            return refuse(err, "it proves the key present, not absent");
        hash3(T_LEAF, path->b, value_hash->b, h);
        break;
    case KIX_SMT_OTHER:
        if (value_hash)
            return refuse(err, "it proves the key absent (its route ends in another key's leaf)");
        if (memcmp(p.leaf_path.b, path->b, HL) == 0)
            return refuse(err, "the other leaf it ends in has the path asked about");
        if (!same_prefix(p.leaf_path.b, path->b, p.depth))
            return refuse(err, "the other leaf it ends in is not on the route of the path");
        hash3(T_LEAF, p.leaf_path.b, p.leaf_value_hash.b, h);
        break;
    default:
        assert(p.kind == KIX_SMT_EMPTY);
        if (value_hash)
            return refuse(err, "it proves the key absent (its route ends in an empty subtree)");
        memset(h, 0, HL);
        break;
    }
    /* The node ending the route is not collapsed away: its sibling holds a
     * leaf at least (for an empty end, two). */
    if (p.depth > 0 && !bit(p.bitmap, p.depth - 1))
        return refuse(err, "non-canonical: the route ends next to an empty sibling");
    next = p.nsiblings;
    for (unsigned i = p.depth; i-- > 0;) {
        const uint8_t *s = zero;

        if (bit(p.bitmap, i)) {
            assert(next > 0);
            s = p.siblings + --next * HL;
        }
        if (bit(path->b, i))
            hash3(T_NODE, s, h, h);
        else
            hash3(T_NODE, h, s, h);
    }
    assert(next == 0);
    if (!kix_bytes_equal_ct(h, root->b, HL))
        return refuse(err, value_hash ? "it does not lead to the root with this value hash"
                                      : "it does not lead to the root");
    return KIX_OK;
}

/* ---- Records ------------------------------------------------------------ */

size_t kix_smt_pos_key(unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                       uint8_t out[KIX_SMT_POS_KEY_MAX])
{
    size_t nb = (depth + 7) / 8;

    assert(depth <= DEPTH);
    out[0] = (uint8_t)(depth >> 8);
    out[1] = (uint8_t)depth;
    memcpy(out + 2, prefix, nb);
    if (depth % 8)
        out[1 + nb] &= (uint8_t)(0xff00u >> (depth % 8));
    return 2 + nb;
}

/* A walk over the stored tree: the io, and the position being visited
 * (prefix bits past the depth kept zero). */
struct walk {
    struct kix_smt_io *io;
    uint8_t pos[HL];
};

static void rec_hash(struct walk *w, const uint8_t *rec, uint8_t *out)
{
    w->io->hashes++;
    kix_sha256(rec, REC, out);
}

/* Reads the record at (depth, w->pos) into rec (a copy); *found 0 when none. */
static int read_rec(struct walk *w, unsigned depth, uint8_t rec[REC], int *found,
                    struct kix_err *err)
{
    struct kix_bytes v = {NULL, 0};
    int rc;

    kix_err_clear(err);
    w->io->reads++;
    *found = 0;
    rc = w->io->read(w->io->ctx, depth, w->pos, &v, err);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc != KIX_OK) {
        if (!err || !err->msg[0])
            return kix_err_set(err, rc, "reading sparse Merkle node at depth %u failed: %s", depth,
                               kix_strerror(rc));
        err->code = rc;
        kix_err_wrap(err, "reading sparse Merkle node at depth %u", depth);
        return rc;
    }
    if (v.len != REC || (v.ptr[0] != T_LEAF && v.ptr[0] != T_NODE) ||
        (v.ptr[0] == T_LEAF && !same_prefix(v.ptr + 1, w->pos, depth)) ||
        (v.ptr[0] == T_NODE && is_zero(v.ptr + 1) && is_zero(v.ptr + 1 + HL)))
        return kix_err_set(err, KIX_ECORRUPT,
                           "sparse Merkle node at depth %u is malformed (%zu bytes): the index "
                           "store is damaged; rebuild it from the log",
                           depth, v.len);
    memcpy(rec, v.ptr, REC);
    *found = 1;
    return KIX_OK;
}

static int write_rec(struct walk *w, unsigned depth, const uint8_t rec[REC], struct kix_err *err)
{
    int rc;

    kix_err_clear(err);
    w->io->writes++;
    rc = w->io->write(w->io->ctx, depth, w->pos, rec, REC, err);
    if (rc == KIX_OK)
        return KIX_OK;
    if (!err || !err->msg[0])
        return kix_err_set(err, rc, "writing sparse Merkle node at depth %u failed: %s", depth,
                           kix_strerror(rc));
    err->code = rc;
    kix_err_wrap(err, "writing sparse Merkle node at depth %u", depth);
    return rc;
}

static int missing(unsigned depth, struct kix_err *err)
{
    return kix_err_set(err, KIX_ECORRUPT,
                       "sparse Merkle node at depth %u is missing though its parent holds its "
                       "hash: the index store is damaged; rebuild it from the log",
                       depth);
}

int kix_smt_root(struct kix_smt_io *io, struct kix_hash *root, struct kix_err *err)
{
    struct walk w = {io, {0}};
    uint8_t rec[REC];
    int found, rc;

    memset(root->b, 0, HL);
    rc = read_rec(&w, 0, rec, &found, err);
    if (rc == KIX_OK && found)
        rec_hash(&w, rec, root->b);
    return rc;
}

/* ---- Batch update ------------------------------------------------------- */

/* First index in u[0..k) whose path has bit `depth` set (u is sorted). */
static size_t split_at(const struct kix_smt_update *u, size_t k, unsigned depth)
{
    size_t lo = 0, hi = k;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bit(u[mid].path.b, depth))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Builds, at (depth, w->pos), the subtree of u[0..k) plus `extra` (a leaf
 * that was stored here, or NULL), over positions whose records are all
 * absent or about to be replaced: nothing below is read. An update with
 * extra's path replaces it. Sets out to the subtree hash. */
static int build(struct walk *w, unsigned depth, const struct kix_smt_update *u, size_t k,
                 const struct kix_smt_update *extra, uint8_t out[HL], struct kix_err *err)
{
    uint8_t rec[REC];
    size_t s;
    int rc;

    assert(k > 0 || extra);
    if (k + (extra != NULL) == 1 || (k == 1 && memcmp(u[0].path.b, extra->path.b, HL) == 0)) {
        const struct kix_smt_update *one = k ? &u[0] : extra;

        rec[0] = T_LEAF;
        memcpy(rec + 1, one->path.b, HL);
        memcpy(rec + 1 + HL, one->value_hash.b, HL);
        goto write;
    }
    /* Two distinct paths or more: they differ before bit 256. */
    assert(depth < DEPTH);
    s = split_at(u, k, depth);
    rec[0] = T_NODE;
    for (int side = 0; side < 2; side++) {
        const struct kix_smt_update *su = side ? u + s : u;
        size_t sk = side ? k - s : s;
        const struct kix_smt_update *se = extra && bit(extra->path.b, depth) == side ? extra : NULL;

        memset(rec + 1 + side * HL, 0, HL);
        if (!sk && !se)
            continue;
        set_bit(w->pos, depth, side);
        rc = build(w, depth + 1, su, sk, se, rec + 1 + side * HL, err);
        set_bit(w->pos, depth, 0);
        if (rc)
            return rc;
    }
write:
    if ((rc = write_rec(w, depth, rec, err)))
        return rc;
    rec_hash(w, rec, out);
    return KIX_OK;
}

/* Applies u[0..k) (k > 0) to the subtree at (depth, w->pos) whose record,
 * already read, is rec (found) or absent. */
static int update(struct walk *w, unsigned depth, const uint8_t rec[REC], int found,
                  const struct kix_smt_update *u, size_t k, uint8_t out[HL], struct kix_err *err)
{
    uint8_t next[REC], child[REC];
    struct kix_smt_update old;
    size_t s;
    int rc;

    assert(k > 0);
    if (!found)
        return build(w, depth, u, k, NULL, out, err);
    if (rec[0] == T_LEAF) {
        memcpy(old.path.b, rec + 1, HL);
        memcpy(old.value_hash.b, rec + 1 + HL, HL);
        return build(w, depth, u, k, &old, out, err);
    }
    assert(rec[0] == T_NODE && depth < DEPTH);
    memcpy(next, rec, REC);
    s = split_at(u, k, depth);
    for (int side = 0; side < 2; side++) {
        const struct kix_smt_update *su = side ? u + s : u;
        size_t sk = side ? k - s : s;
        uint8_t *h = next + 1 + side * HL;
        int cfound = 0;

        if (!sk)
            continue;
        set_bit(w->pos, depth, side);
        rc = KIX_OK;
        if (!is_zero(h)) {
            rc = read_rec(w, depth + 1, child, &cfound, err);
            if (rc == KIX_OK && !cfound)
                rc = missing(depth + 1, err);
        }
        if (rc == KIX_OK)
            rc = update(w, depth + 1, child, cfound, su, sk, h, err);
        set_bit(w->pos, depth, 0);
        if (rc)
            return rc;
    }
    if ((rc = write_rec(w, depth, next, err)))
        return rc;
    rec_hash(w, next, out);
    return KIX_OK;
}

int kix_smt_apply(struct kix_smt_io *io, const struct kix_smt_update *updates, size_t count,
                  struct kix_hash *new_root, struct kix_err *err)
{
    struct walk w = {io, {0}};
    uint8_t rec[REC];
    int found, rc;

    for (size_t i = 1; i < count; i++)
        if (memcmp(updates[i - 1].path.b, updates[i].path.b, HL) >= 0)
            return kix_err_set(err, KIX_EINVAL,
                               "sparse Merkle updates %zu and %zu are not in strictly increasing "
                               "path order: sort them and keep one per path",
                               i - 1, i);
    if (count == 0)
        return kix_smt_root(io, new_root, err);
    memset(new_root->b, 0, HL);
    rc = read_rec(&w, 0, rec, &found, err);
    if (rc == KIX_OK)
        rc = update(&w, 0, rec, found, updates, count, new_root->b, err);
    if (rc)
        memset(new_root->b, 0, HL);
    return rc;
}

/* ---- Lookups and proofs ------------------------------------------------- */

/* Follows the route of path from the root: sets *depth, *kind and (kind
 * MEMBER/OTHER) the leaf record, and collects the non-empty siblings and
 * bitmap into p/sib. */
static int descend(struct kix_smt_io *io, const struct kix_hash *path, struct kix_smt_proof *p,
                   uint8_t sib[DEPTH][HL], uint8_t leaf[REC], struct kix_err *err)
{
    struct walk w = {io, {0}};
    uint8_t rec[REC];
    unsigned depth = 0;
    int found, rc;

    memset(p, 0, sizeof(*p));
    if ((rc = read_rec(&w, 0, rec, &found, err)))
        return rc;
    while (found && rec[0] == T_NODE) {
        int b = bit(path->b, depth);
        const uint8_t *mine = rec + 1 + b * HL, *other = rec + 1 + (1 - b) * HL;

        assert(depth < DEPTH);
        if (!is_zero(other)) {
            set_bit(p->bitmap, depth, 1);
            if (sib)
                memcpy(sib[p->nsiblings], other, HL);
            p->nsiblings++;
        }
        set_bit(w.pos, depth, b);
        depth++;
        if (is_zero(mine)) {
            found = 0;
            break;
        }
        if ((rc = read_rec(&w, depth, rec, &found, err)))
            return rc;
        if (!found)
            return missing(depth, err);
    }
    p->depth = depth;
    if (!found) {
        p->kind = KIX_SMT_EMPTY;
        return KIX_OK;
    }
    memcpy(leaf, rec, REC);
    if (memcmp(rec + 1, path->b, HL) == 0) {
        p->kind = KIX_SMT_MEMBER;
    } else {
        p->kind = KIX_SMT_OTHER;
        memcpy(p->leaf_path.b, rec + 1, HL);
        memcpy(p->leaf_value_hash.b, rec + 1 + HL, HL);
    }
    return KIX_OK;
}

static void root_of(const struct kix_smt_update *u, size_t n, unsigned depth, struct kix_hash *out)
{
    struct kix_hash left, right;
    size_t k;

    if (n == 0) {
        memset(out->b, 0, HL);
        return;
    }
    if (n == 1) {
        kix_smt_leaf_hash(&u[0].path, &u[0].value_hash, out);
        return;
    }
    k = split_at(u, n, depth);
    root_of(u, k, depth + 1, &left);
    root_of(u + k, n - k, depth + 1, &right);
    kix_smt_node_hash(&left, &right, out);
}

int kix_smt_root_of(const struct kix_smt_update *updates, size_t count, struct kix_hash *root,
                    struct kix_err *err)
{
    for (size_t i = 1; i < count; i++)
        if (memcmp(updates[i - 1].path.b, updates[i].path.b, HL) >= 0)
            return kix_err_set(err, KIX_EINVAL, "SMT keys must be strictly sorted by path");
    root_of(updates, count, 0, root);
    return KIX_OK;
}

int kix_smt_get(struct kix_smt_io *io, const struct kix_hash *path, struct kix_hash *value_hash,
                struct kix_err *err)
{
    struct kix_smt_proof p;
    uint8_t leaf[REC];
    int rc;

    if ((rc = descend(io, path, &p, NULL, leaf, err)))
        return rc;
    if (p.kind != KIX_SMT_MEMBER)
        return kix_err_set(err, KIX_ENOTFOUND, "no such key in the sparse Merkle tree");
    memcpy(value_hash->b, leaf + 1 + HL, HL);
    return KIX_OK;
}

int kix_smt_prove(struct kix_smt_io *io, const struct kix_hash *path, struct kix_buf *proof,
                  int *present, struct kix_hash *value_hash, struct kix_err *err)
{
    uint8_t sib[DEPTH][HL]; /* 8 KiB */
    struct kix_smt_proof p;
    uint8_t leaf[REC];
    int rc;

    *present = 0;
    if ((rc = descend(io, path, &p, sib, leaf, err)))
        return rc;
    p.siblings = &sib[0][0];
    if ((rc = kix_smt_proof_encode(&p, proof, err)))
        return rc;
    *present = p.kind == KIX_SMT_MEMBER;
    if (*present && value_hash)
        memcpy(value_hash->b, leaf + 1 + HL, HL);
    return KIX_OK;
}
