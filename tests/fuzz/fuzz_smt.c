/* Sparse Merkle proofs (kix/smt.h). Input: a mode byte, root, path and
 * value hash (32 bytes each), then proof bytes. A proof that parses must
 * encode back to exactly its bytes; one that verifies must not also verify
 * the opposite claim (present vs absent). With mode bit 1, the proof bytes
 * instead name up to 16 one-byte keys of a real tree, whose proof for the
 * path must verify and fail once one bit of it is flipped; the same tree
 * kept in tiles (kix_smt_tiles), in one batch or two, must have the same
 * root and give the same proof bytes. With mode bit 2 (and not 1), the
 * proof bytes are the stored root tile instead: the tiles accept exactly a
 * well-formed one, and a walk over it fails cleanly if at all. */
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

/* The same for tiles: at most 64 (one-byte keys reach no deeper than
 * a few strata; more fail with KIX_EFULL, skipped as above). */
struct tiny_tiles {
    unsigned n;
    size_t klen[64], vlen[64];
    uint8_t key[64][KIX_SMT_TILE_KEY_MAX], val[64][KIX_SMT_TILE_MAX];
};

static int tile_find(struct tiny_tiles *t, const uint8_t *key, size_t klen)
{
    for (unsigned i = 0; i < t->n; i++)
        if (t->klen[i] == klen && memcmp(t->key[i], key, klen) == 0)
            return (int)i;
    return -1;
}

static int tile_get(void *ctx, const uint8_t *key, size_t klen, struct kix_bytes *out,
                    struct kix_err *err)
{
    struct tiny_tiles *t = ctx;
    int i = tile_find(t, key, klen);
    (void)err;
    if (i < 0)
        return KIX_ENOTFOUND;
    out->ptr = t->val[i];
    out->len = t->vlen[i];
    return KIX_OK;
}

static int tile_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                    struct kix_err *err)
{
    struct tiny_tiles *t = ctx;
    int i = tile_find(t, key, klen);
    (void)err;
    if (klen > KIX_SMT_TILE_KEY_MAX || vlen > KIX_SMT_TILE_MAX)
        abort(); /* the tiles never store more */
    if (i < 0 && t->n == 64)
        return KIX_EFULL;
    if (i < 0) {
        i = (int)t->n++;
        t->klen[i] = klen;
        memcpy(t->key[i], key, klen);
    }
    memcpy(t->val[i], val, vlen);
    t->vlen[i] = vlen;
    return KIX_OK;
}

static int cmp_upd(const void *a, const void *b)
{
    return memcmp(a, b, HL); /* path is the first member */
}

/* The tree of u[0..k) in tiles, applied as u[0..split) then the rest,
 * must have `root` and give `proof` (and `present`) for path. */
static void tiled(const struct kix_smt_update *u, size_t k, size_t split,
                  const struct kix_hash *path, const struct kix_hash *root,
                  const struct kix_buf *proof, int present)
{
    static struct tiny_tiles t;
    struct kix_smt_tiles tiles;
    struct kix_buf again = KIX_BUF_INIT;
    struct kix_hash troot;
    int tpresent, rc;

    t.n = 0;
    kix_smt_tiles_init(&tiles, tile_get, tile_put, &t);
    rc = kix_smt_apply(&tiles.io, u, split, &troot, NULL);
    if (rc == KIX_OK)
        rc = kix_smt_tiles_flush(&tiles, NULL);
    if (rc == KIX_OK)
        rc = kix_smt_apply(&tiles.io, u + split, k - split, &troot, NULL);
    if (rc == KIX_OK)
        rc = kix_smt_tiles_flush(&tiles, NULL);
    if (rc == KIX_EFULL)
        goto out;
    if (rc || memcmp(troot.b, root->b, KIX_HASH_LEN) != 0)
        abort();
    /* from the store alone, as a reader sees it */
    kix_smt_tiles_reset(&tiles);
    if (kix_smt_prove(&tiles.io, path, &again, &tpresent, NULL, NULL) || tpresent != present ||
        again.len != proof->len || memcmp(again.ptr, proof->ptr, proof->len) != 0)
        abort();
out:
    kix_smt_tiles_release(&tiles);
    kix_buf_release(&again);
}

/* The index's packing (kix_smt_tile_pack): a well-formed tile comes back
 * byte for byte, never longer packed; any bytes read as packed unpack to
 * a tile value or are refused. */
static void packed_tile(const uint8_t *tile, size_t len, int ok)
{
    uint8_t packed[KIX_SMT_TILE_MAX], back[KIX_SMT_TILE_MAX];
    size_t plen, blen = 0;

    if (ok) {
        plen = kix_smt_tile_pack(tile, len, packed);
        if (plen > len || kix_smt_tile_unpack(packed, plen, back, &blen) != KIX_OK || blen != len ||
            memcmp(back, tile, len) != 0)
            abort();
    }
    if (kix_smt_tile_unpack(tile, len, back, &blen) == KIX_OK && blen > KIX_SMT_TILE_MAX)
        abort();
}

/* `tile` stored as the root tile: read exactly when well formed (kix/smt.h),
 * and a walk from it ends in a result or a clean refusal. */
static void root_tile(const uint8_t *tile, size_t len, const struct kix_hash *path)
{
    static struct tiny_tiles t;
    struct kix_smt_tiles tiles;
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_bytes v;
    struct kix_hash root;
    unsigned bits = len >= 2 ? (unsigned)tile[0] << 8 | tile[1] : 0, count = 0;
    uint8_t prefix[KIX_HASH_LEN] = {0};
    int ok, rc, present;

    if (len > KIX_SMT_TILE_MAX)
        return; /* never well formed; the tiny store holds no more */
    for (unsigned b = bits; b; b &= b - 1)
        count++;
    ok = bits != 0 && !(bits & 1) && len == 2 + (size_t)KIX_SMT_RECORD_LEN * count;
    t.n = 1;
    t.klen[0] = kix_smt_tile_key(0, prefix, t.key[0]);
    t.vlen[0] = len;
    memcpy(t.val[0], tile, len);
    kix_smt_tiles_init(&tiles, tile_get, tile_put, &t);
    rc = tiles.io.read(tiles.io.ctx, 0, prefix, &v, NULL);
    if (ok ? rc != (bits & 0x8000 ? KIX_OK : KIX_ENOTFOUND) : rc != KIX_ECORRUPT)
        abort();
    packed_tile(tile, len, ok);
    kix_smt_tiles_reset(&tiles);
    rc = kix_smt_root(&tiles.io, &root, NULL);
    if (rc != KIX_OK && rc != KIX_ECORRUPT)
        abort();
    rc = kix_smt_prove(&tiles.io, path, &proof, &present, NULL, NULL);
    if (rc != KIX_OK && rc != KIX_ECORRUPT)
        abort();
    kix_smt_tiles_release(&tiles);
    kix_buf_release(&proof);
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
    /* the split: a batch, then the rest on top (flip picks where) */
    tiled(u, k, k ? flip % (k + 1) : 0, path, &root, &proof, present);
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
    if (head[0] & 4) {
        root_tile(proof, n, &path);
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
