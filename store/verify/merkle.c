/* RFC 9162 Merkle hashing, the in-memory reference proofs and the proof
 * verifiers (after transparency-dev/merkle proof/verify.go). */
#include "kix/merkle.h"

#include <string.h>

#include "kix/sha256.h"

void kix_merkle_leaf_hash(const void *data, size_t len, struct kix_hash *out)
{
    static const uint8_t prefix = 0x00;
    struct kix_sha256 st;

    /* Streaming, so a leaf of any size is hashed without a copy. */
    kix_sha256_init(&st);
    kix_sha256_update(&st, &prefix, 1);
    kix_sha256_update(&st, data, len);
    kix_sha256_final(&st, out->b);
}

void kix_merkle_node_hash(const struct kix_hash *left, const struct kix_hash *right,
                          struct kix_hash *out)
{
    uint8_t in[1 + 2 * KIX_HASH_LEN];

    /* One 65-byte buffer and one call: cheaper than init/update/final for
     * the hash the tree computes most, and lets out alias an input. */
    in[0] = 0x01;
    memcpy(in + 1, left->b, KIX_HASH_LEN);
    memcpy(in + 1 + KIX_HASH_LEN, right->b, KIX_HASH_LEN);
    kix_sha256(in, sizeof(in), out->b);
}

void kix_merkle_empty_root(struct kix_hash *out)
{
    kix_sha256((const uint8_t *)"", 0, out->b);
}

/* ---- Reference implementation: the RFC's recursion, literally ---------- */

/* The largest power of two smaller than n (n >= 2): the RFC's split k. */
static uint64_t split(uint64_t n)
{
    return (uint64_t)1 << (63 - __builtin_clzll(n - 1));
}

/* MTH(D[0:n]) for n >= 1. */
static void mth(const struct kix_hash *d, uint64_t n, struct kix_hash *out)
{
    struct kix_hash l, r;
    uint64_t k;

    if (n == 1) {
        *out = d[0];
        return;
    }
    k = split(n);
    mth(d, k, &l);
    mth(d + k, n - k, &r);
    kix_merkle_node_hash(&l, &r, out);
}

void kix_merkle_root(const struct kix_hash *leaves, uint64_t size, struct kix_hash *out)
{
    if (size == 0)
        kix_merkle_empty_root(out);
    else
        mth(leaves, size, out);
}

/* PATH(m, D[0:n]), appended to proof[*len..]. */
static void path(uint64_t m, const struct kix_hash *d, uint64_t n, struct kix_hash *proof,
                 size_t *len)
{
    uint64_t k;

    if (n <= 1)
        return;
    k = split(n);
    if (m < k) {
        path(m, d, k, proof, len);
        mth(d + k, n - k, &proof[(*len)++]);
    } else {
        path(m - k, d + k, n - k, proof, len);
        mth(d, k, &proof[(*len)++]);
    }
}

int kix_merkle_inclusion_proof(const struct kix_hash *leaves, uint64_t size, uint64_t index,
                               struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                               struct kix_err *err)
{
    *len = 0;
    if (index >= size)
        return kix_err_set(err, KIX_EINVAL,
                           "no inclusion proof for leaf %llu in a tree of size %llu: the index "
                           "must be below the size",
                           (unsigned long long)index, (unsigned long long)size);
    path(index, leaves, size, proof, len);
    return KIX_OK;
}

/* SUBPROOF(m, D[0:n], b), appended to proof[*len..]. */
static void subproof(uint64_t m, const struct kix_hash *d, uint64_t n, int b,
                     struct kix_hash *proof, size_t *len)
{
    uint64_t k;

    if (m == n) {
        if (!b)
            mth(d, n, &proof[(*len)++]);
        return;
    }
    k = split(n);
    if (m <= k) {
        subproof(m, d, k, b, proof, len);
        mth(d + k, n - k, &proof[(*len)++]);
    } else {
        subproof(m - k, d + k, n - k, 0, proof, len);
        mth(d, k, &proof[(*len)++]);
    }
}

int kix_merkle_consistency_proof(const struct kix_hash *leaves, uint64_t size1, uint64_t size2,
                                 struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                 struct kix_err *err)
{
    *len = 0;
    if (size1 == 0 || size1 > size2)
        return kix_err_set(err, KIX_EINVAL,
                           "no consistency proof from size %llu to size %llu: need 0 < size1 <= "
                           "size2",
                           (unsigned long long)size1, (unsigned long long)size2);
    subproof(size1, leaves, size2, 1, proof, len);
    return KIX_OK;
}

/* ---- Verification ------------------------------------------------------ *
 * An inclusion proof for (index, size) splits into `inner` hashes below the
 * level where the paths to index and to size-1 meet (their order given by
 * the index bits), then `border` left siblings on the tree's right edge. */

static unsigned bit_len(uint64_t x)
{
    return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

static void decomp(uint64_t index, uint64_t size, unsigned *inner, unsigned *border)
{
    *inner = bit_len(index ^ (size - 1));
    *border = *inner < 64 ? (unsigned)__builtin_popcountll(index >> *inner) : 0;
}

size_t kix_merkle_inclusion_len(uint64_t index, uint64_t size)
{
    unsigned inner, border;

    if (index >= size)
        return 0;
    decomp(index, size, &inner, &border);
    return inner + border;
}

size_t kix_merkle_consistency_len(uint64_t size1, uint64_t size2)
{
    unsigned inner, border, shift;

    if (size1 == 0 || size1 >= size2)
        return 0;
    decomp(size1 - 1, size2, &inner, &border);
    shift = (unsigned)__builtin_ctzll(size1);
    /* The seed node is sent unless size1 is a power of two (then it is root1). */
    return (size1 >> shift == 1 ? 0 : 1) + (inner - shift) + border;
}

/* Folds inner proof hashes: bit i of index says whether the running hash is
 * a right child (1) or a left child (0) at level i. */
static void chain_inner(struct kix_hash *seed, const struct kix_hash *proof, size_t n,
                        uint64_t index)
{
    for (size_t i = 0; i < n; i++) {
        if ((index >> i) & 1)
            kix_merkle_node_hash(&proof[i], seed, seed);
        else
            kix_merkle_node_hash(seed, &proof[i], seed);
    }
}

/* As chain_inner but skipping right siblings: the hashes that make up the
 * old tree in a consistency proof. */
static void chain_inner_right(struct kix_hash *seed, const struct kix_hash *proof, size_t n,
                              uint64_t index)
{
    for (size_t i = 0; i < n; i++)
        if ((index >> i) & 1)
            kix_merkle_node_hash(&proof[i], seed, seed);
}

/* Border hashes are always left siblings. */
static void chain_border(struct kix_hash *seed, const struct kix_hash *proof, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kix_merkle_node_hash(&proof[i], seed, seed);
}

static int hash_eq(const struct kix_hash *a, const struct kix_hash *b)
{
    return memcmp(a->b, b->b, KIX_HASH_LEN) == 0;
}

int kix_merkle_root_from_inclusion(uint64_t index, uint64_t size, const struct kix_hash *leaf,
                                   const struct kix_hash *proof, size_t proof_len,
                                   struct kix_hash *root, struct kix_err *err)
{
    unsigned inner, border;

    memset(root, 0, sizeof(*root));
    if (index >= size)
        return kix_err_set(err, KIX_EVERIFY,
                           "inclusion proof rejected: leaf index %llu is not below tree size %llu",
                           (unsigned long long)index, (unsigned long long)size);
    decomp(index, size, &inner, &border);
    if (proof_len != (size_t)inner + border)
        return kix_err_set(err, KIX_EVERIFY,
                           "inclusion proof rejected: it has %zu hashes but leaf %llu in a tree "
                           "of size %llu needs exactly %u",
                           proof_len, (unsigned long long)index, (unsigned long long)size,
                           inner + border);
    *root = *leaf;
    chain_inner(root, proof, inner, index);
    chain_border(root, proof + inner, border);
    return KIX_OK;
}

int kix_merkle_verify_inclusion(uint64_t index, uint64_t size, const struct kix_hash *leaf,
                                const struct kix_hash *proof, size_t proof_len,
                                const struct kix_hash *root, struct kix_err *err)
{
    struct kix_hash got;
    int rc = kix_merkle_root_from_inclusion(index, size, leaf, proof, proof_len, &got, err);

    if (rc)
        return rc;
    if (!hash_eq(&got, root))
        return kix_err_set(err, KIX_EVERIFY,
                           "inclusion proof rejected: leaf %llu and the proof give a root that "
                           "differs from the root of size %llu (wrong leaf, proof or root)",
                           (unsigned long long)index, (unsigned long long)size);
    return KIX_OK;
}

/* The cases decided before any hashing; returns 1 with *rc set when decided. */
static int consistency_trivial(uint64_t size1, uint64_t size2, const struct kix_hash *root1,
                               const struct kix_hash *root2, size_t proof_len, int *rc,
                               struct kix_err *err)
{
    unsigned long long s1 = size1, s2 = size2;

    *rc = KIX_EVERIFY;
    if (size1 > size2)
        kix_err_set(err, *rc, "consistency proof rejected: size1 %llu is larger than size2 %llu",
                    s1, s2);
    else if (size1 == 0)
        kix_err_set(err, *rc,
                    "consistency proof rejected: size1 is 0; a proof from the empty tree proves "
                    "nothing, so it is never accepted");
    else if (size1 == size2 && proof_len != 0)
        kix_err_set(err, *rc,
                    "consistency proof rejected: sizes are equal (%llu) so the proof must be "
                    "empty, but it has %zu hashes",
                    s1, proof_len);
    else if (size1 == size2 && !hash_eq(root1, root2))
        kix_err_set(err, *rc,
                    "consistency proof rejected: the two roots of size %llu differ (the log "
                    "forked or a root is wrong)",
                    s1);
    else if (size1 == size2)
        *rc = KIX_OK;
    else
        return 0;
    return 1;
}

int kix_merkle_verify_consistency(uint64_t size1, uint64_t size2, const struct kix_hash *root1,
                                  const struct kix_hash *root2, const struct kix_hash *proof,
                                  size_t proof_len, struct kix_err *err)
{
    unsigned inner, border, shift;
    struct kix_hash seed, h1, h2;
    size_t start, want;
    uint64_t mask;
    int rc;

    if (consistency_trivial(size1, size2, root1, root2, proof_len, &rc, err))
        return rc;
    want = kix_merkle_consistency_len(size1, size2);
    if (proof_len != want)
        return kix_err_set(err, KIX_EVERIFY,
                           "consistency proof rejected: it has %zu hashes but sizes %llu to %llu "
                           "need exactly %zu",
                           proof_len, (unsigned long long)size1, (unsigned long long)size2, want);
    decomp(size1 - 1, size2, &inner, &border);
    shift = (unsigned)__builtin_ctzll(size1);
    inner -= shift; /* the proof starts at the level of the seed node */
    /* The seed is the biggest complete subtree ending at size1: sent in the
     * proof, unless size1 is a power of two and the seed is root1 itself. */
    start = want - inner - border;
    seed = start ? proof[0] : *root1;
    mask = (size1 - 1) >> shift;
    h1 = seed;
    chain_inner_right(&h1, proof + start, inner, mask);
    chain_border(&h1, proof + start + inner, border);
    if (!hash_eq(&h1, root1))
        return kix_err_set(err, KIX_EVERIFY,
                           "consistency proof rejected: it does not lead to root1 of size %llu "
                           "(wrong proof or root1)",
                           (unsigned long long)size1);
    h2 = seed;
    chain_inner(&h2, proof + start, inner, mask);
    chain_border(&h2, proof + start + inner, border);
    if (!hash_eq(&h2, root2))
        return kix_err_set(err, KIX_EVERIFY,
                           "consistency proof rejected: it does not lead to root2 of size %llu "
                           "(wrong proof or root2, or the log forked)",
                           (unsigned long long)size2);
    return KIX_OK;
}
