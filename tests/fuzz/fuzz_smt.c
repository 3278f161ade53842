/* Sparse Merkle proofs (kix/smt.h). Input: a mode byte, root, path and
 * value hash (32 bytes each), then proof bytes. A proof that parses must
 * encode back to exactly its bytes; one that verifies must not also verify
 * the opposite claim (present vs absent). With mode bit 1, the proof bytes
 * instead name up to 16 one-byte keys of a real tree, whose proof for the
 * path must verify and fail once one bit of it is flipped. */
#include "fuzz.h"
#include "kix/smt.h"

#define HL   KIX_HASH_LEN
#define HEAD (1 + 3 * HL)

/* A tiny record store: linear search over at most 256 records (paths that
 * share long prefixes need more: apply then fails with KIX_EFULL, and the
 * input is skipped). */
struct tiny {
    unsigned n, depth[256];
    uint8_t prefix[256][HL], rec[256][KIX_SMT_RECORD_LEN];
};

static int find(struct tiny *t, unsigned depth, const uint8_t *prefix)
{
    for (unsigned i = 0; i < t->n; i++)
        if (t->depth[i] == depth && memcmp(t->prefix[i], prefix, HL) == 0)
            return (int)i;
    return -1;
}

static int tiny_read(void *ctx, unsigned depth, const uint8_t prefix[HL], struct kix_bytes *out,
                     struct kix_err *err)
{
    int i = find(ctx, depth, prefix);
    (void)err;
    if (i < 0)
        return KIX_ENOTFOUND;
    out->ptr = ((struct tiny *)ctx)->rec[i];
    out->len = KIX_SMT_RECORD_LEN;
    return KIX_OK;
}

static int tiny_write(void *ctx, unsigned depth, const uint8_t prefix[HL], const uint8_t *rec,
                      size_t len, struct kix_err *err)
{
    struct tiny *t = ctx;
    int i = find(t, depth, prefix);
    (void)err;
    if (i < 0 && t->n == 256)
        return KIX_EFULL;
    if (i < 0) {
        i = (int)t->n++;
        t->depth[i] = depth;
        memcpy(t->prefix[i], prefix, HL);
    }
    memcpy(t->rec[i], rec, len);
    return KIX_OK;
}

static int cmp_upd(const void *a, const void *b)
{
    return memcmp(a, b, HL); /* path is the first member */
}

static void reference(const struct kix_hash *path, const uint8_t *keys, size_t n, unsigned flip)
{
    static struct tiny t;
    struct kix_smt_io io = {tiny_read, tiny_write, &t, 0, 0, 0};
    struct kix_smt_update u[16];
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root, vh;
    size_t k = 0;
    int present, rc;

    t.n = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= keys[j] == keys[i];
        if (dup)
            continue;
        kix_smt_path(&keys[i], 1, &u[k].path);
        kix_smt_value_hash(&i, sizeof(i), &u[k].value_hash);
        k++;
    }
    qsort(u, k, sizeof(u[0]), cmp_upd);
    rc = kix_smt_apply(&io, u, k, &root, NULL);
    if (rc == KIX_EFULL)
        return;
    if (rc || kix_smt_prove(&io, path, &proof, &present, &vh, NULL) ||
        kix_smt_verify(&root, path, present ? &vh : NULL, proof.ptr, proof.len, NULL))
        abort();
    proof.ptr[flip / 8 % proof.len] ^= (uint8_t)(1u << flip % 8);
    if (kix_smt_verify(&root, path, present ? &vh : NULL, proof.ptr, proof.len, NULL) == KIX_OK)
        abort();
    kix_buf_release(&proof);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t head[HEAD] = {0};
    size_t n = size > HEAD ? size - HEAD : 0;
    struct kix_hash root, path, vh;
    struct kix_buf enc = KIX_BUF_INIT;
    struct kix_smt_proof p;
    uint8_t *proof;
    int ok_present, ok_absent, parsed;

    memcpy(head, data, size < HEAD ? size : HEAD);
    memcpy(root.b, head + 1, HL);
    memcpy(path.b, head + 1 + HL, HL);
    memcpy(vh.b, head + 1 + 2 * HL, HL);
    proof = malloc(n + 1); /* exact size: ASan sees overreads */
    if (!proof)
        return 0;
    if (n)
        memcpy(proof, data + HEAD, n);
    if (head[0] & 2) {
        reference(&path, proof, n, (unsigned)root.b[0] << 8 | root.b[1]);
        goto out;
    }
    parsed = kix_smt_proof_parse(proof, n, &p, NULL) == KIX_OK;
    if (parsed && (kix_smt_proof_encode(&p, &enc, NULL) != KIX_OK || enc.len != n ||
                   memcmp(enc.ptr, proof, n) != 0))
        abort();
    ok_present = kix_smt_verify(&root, &path, &vh, proof, n, NULL) == KIX_OK;
    ok_absent = kix_smt_verify(&root, &path, NULL, proof, n, NULL) == KIX_OK;
    if ((ok_present || ok_absent) && (!parsed || (ok_present && ok_absent)))
        abort();
out:
    kix_buf_release(&enc);
    free(proof);
    return 0;
}
