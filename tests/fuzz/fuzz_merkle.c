/* RFC 9162 proof verification. Input: mode byte, two big-endian u64 (index
 * and size, or size1 and size2), two hashes (leaf and root, or root1 and
 * root2), then proof hashes. The verifiers must agree with each other and
 * with the proof lengths; with mode bit 1, proofs the reference code makes
 * for a small tree must verify, and fail once one bit of them is flipped. */
#include "fuzz.h"
#include "kix/merkle.h"

#define HEAD 81 /* 1 + 8 + 8 + 32 + 32 */

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void flip_bit(struct kix_hash *proof, size_t len, unsigned at)
{
    proof[at / 256 % len].b[at / 8 % KIX_HASH_LEN] ^= (uint8_t)(1u << at % 8);
}

/* Reference proofs over the tree of leaves 0..size2-1 (leaf i = the byte i). */
static void reference(uint64_t size1, uint64_t size2, uint64_t index, unsigned flip)
{
    struct kix_hash leaves[64], root1, root2, proof[KIX_MERKLE_MAX_PROOF];
    size_t len;

    for (uint64_t i = 0; i < size2; i++) {
        uint8_t byte = (uint8_t)i;
        kix_merkle_leaf_hash(&byte, 1, &leaves[i]);
    }
    kix_merkle_root(leaves, size1, &root1);
    kix_merkle_root(leaves, size2, &root2);
    if (kix_merkle_inclusion_proof(leaves, size2, index, proof, &len, NULL) ||
        kix_merkle_verify_inclusion(index, size2, &leaves[index], proof, len, &root2, NULL))
        abort();
    if (len) {
        flip_bit(proof, len, flip);
        if (!kix_merkle_verify_inclusion(index, size2, &leaves[index], proof, len, &root2, NULL))
            abort();
    }
    if (kix_merkle_consistency_proof(leaves, size1, size2, proof, &len, NULL) ||
        kix_merkle_verify_consistency(size1, size2, &root1, &root2, proof, len, NULL))
        abort();
    if (len) {
        flip_bit(proof, len, flip);
        if (!kix_merkle_verify_consistency(size1, size2, &root1, &root2, proof, len, NULL))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t head[HEAD] = {0};
    size_t n = size > HEAD ? (size - HEAD) / KIX_HASH_LEN : 0;
    struct kix_hash h1, h2, got, *proof;
    uint64_t a, b;

    memcpy(head, data, size < HEAD ? size : HEAD);
    if (n > KIX_MERKLE_MAX_PROOF + 1)
        n = KIX_MERKLE_MAX_PROOF + 1;       /* one too many is still worth trying */
    proof = malloc(n * sizeof(*proof) + 1); /* exact size: ASan sees overreads */
    if (!proof)
        return 0;
    if (n)
        memcpy(proof, data + HEAD, n * sizeof(*proof));
    a = be64(head + 1);
    b = be64(head + 9);
    memcpy(h1.b, head + 17, KIX_HASH_LEN);
    memcpy(h2.b, head + 49, KIX_HASH_LEN);
    if (head[0] & 1) {
        if (kix_merkle_verify_consistency(a, b, &h1, &h2, proof, n, NULL) == KIX_OK &&
            !(a == b ? n == 0 && memcmp(h1.b, h2.b, KIX_HASH_LEN) == 0
                     : n == kix_merkle_consistency_len(a, b)))
            abort();
    } else {
        if (kix_merkle_root_from_inclusion(a, b, &h1, proof, n, &got, NULL) == KIX_OK &&
            (n != kix_merkle_inclusion_len(a, b) ||
             kix_merkle_verify_inclusion(a, b, &h1, proof, n, &got, NULL) != KIX_OK))
            abort();
        if (kix_merkle_verify_inclusion(a, b, &h1, proof, n, &h2, NULL) == KIX_OK &&
            memcmp(got.b, h2.b, KIX_HASH_LEN) != 0)
            abort();
    }
    if (head[0] & 2) {
        uint64_t size2 = 1 + b % 64, size1 = 1 + a % size2;
        reference(size1, size2, be64(head + 17) % size2, (unsigned)be64(head + 25));
    }
    free(proof);
    return 0;
}
