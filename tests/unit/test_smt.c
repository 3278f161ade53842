/* Sparse Merkle tree (kix/smt.h): roots against a naive recursive reference,
 * batches against one-by-one updates, membership and absence proofs and
 * their tampering, the proof parser, storage errors, and how reads, hashes
 * and proof bytes grow with the tree. */
#include "harness.h"

#include <sodium.h>

#include "kix/smt.h"

#define HL KIX_HASH_LEN

/* ---- An in-memory record map behind struct kix_smt_io ------------------ *
 * Each write frees the old record and stores a fresh copy (ASan catches a
 * view used after a write). Each API call runs in its own generation; a
 * record written twice in one generation counts as a duplicate. */

struct ent {
    int used;
    unsigned depth;
    uint8_t prefix[HL];
    uint8_t *data;
    size_t len;
    uint64_t write_gen;
};

struct nmap {
    struct ent *e;
    size_t cap, n;
    uint64_t gen, dup_writes;
    int fail_read, fail_write; /* inject these codes when nonzero */
    struct kix_smt_io io;
};

static size_t slot_of(const struct nmap *m, unsigned depth, const uint8_t *prefix)
{
    uint64_t h = depth * 0x9e3779b97f4a7c15ull;
    size_t i;

    for (int k = 0; k < HL; k++)
        h = (h ^ prefix[k]) * 0x100000001b3ull;
    i = (size_t)(h >> 17) & (m->cap - 1);
    while (m->e[i].used && (m->e[i].depth != depth || memcmp(m->e[i].prefix, prefix, HL) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void nmap_grow(struct nmap *m)
{
    struct ent *old = m->e;
    size_t oldcap = m->cap;

    m->cap = oldcap ? oldcap * 2 : 64;
    m->e = calloc(m->cap, sizeof(*m->e));
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            m->e[slot_of(m, old[i].depth, old[i].prefix)] = old[i];
    free(old);
}

static struct ent *nmap_find(struct nmap *m, unsigned depth, const uint8_t *prefix)
{
    struct ent *e;

    if (!m->cap)
        return NULL;
    e = &m->e[slot_of(m, depth, prefix)];
    return e->used ? e : NULL;
}

static int map_read(void *ctx, unsigned depth, const uint8_t prefix[HL], struct kix_bytes *out,
                    struct kix_err *err)
{
    struct nmap *m = ctx;
    struct ent *e;

    if (m->fail_read)
        return m->fail_read == KIX_EIO ? kix_err_set(err, KIX_EIO, "disk on fire") : m->fail_read;
    e = nmap_find(m, depth, prefix);
    if (!e)
        return KIX_ENOTFOUND;
    out->ptr = e->data;
    out->len = e->len;
    return KIX_OK;
}

static int map_write(void *ctx, unsigned depth, const uint8_t prefix[HL], const uint8_t *data,
                     size_t len, struct kix_err *err)
{
    struct nmap *m = ctx;
    struct ent *e;

    (void)err;
    if (m->fail_write)
        return m->fail_write;
    if (2 * (m->n + 1) > m->cap)
        nmap_grow(m);
    e = &m->e[slot_of(m, depth, prefix)];
    if (!e->used) {
        e->used = 1;
        e->depth = depth;
        memcpy(e->prefix, prefix, HL);
        m->n++;
    }
    m->dup_writes += e->write_gen == m->gen;
    e->write_gen = m->gen;
    free(e->data);
    e->data = malloc(len);
    memcpy(e->data, data, len);
    e->len = len;
    return KIX_OK;
}

static void nmap_init(struct nmap *m)
{
    memset(m, 0, sizeof(*m));
    m->gen = 1;
    m->io.read = map_read;
    m->io.write = map_write;
    m->io.ctx = m;
}

static void nmap_release(struct nmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->e[i].data);
    free(m->e);
}

/* Same records, byte for byte? */
static int nmap_equal(struct nmap *a, struct nmap *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->cap; i++) {
        struct ent *x = &a->e[i], *y;
        if (!x->used)
            continue;
        y = nmap_find(b, x->depth, x->prefix);
        if (!y || y->len != x->len || memcmp(y->data, x->data, x->len) != 0)
            return 0;
    }
    return 1;
}

/* ---- Keys, values and the naive reference ------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Key i is "key-i"; its value in version v is "value-i-v". */
static void kv(uint64_t i, unsigned v, struct kix_smt_update *u)
{
    char key[40], val[60];
    int kl = snprintf(key, sizeof(key), "key-%" PRIu64, i);
    int vl = snprintf(val, sizeof(val), "value-%" PRIu64 "-%u", i, v);

    crypto_hash_sha256(u->path.b, (const uint8_t *)key, (size_t)kl);
    crypto_hash_sha256(u->value_hash.b, (const uint8_t *)val, (size_t)vl);
}

static int cmp_upd(const void *a, const void *b)
{
    return memcmp(((const struct kix_smt_update *)a)->path.b,
                  ((const struct kix_smt_update *)b)->path.b, HL);
}

static void sort_upd(struct kix_smt_update *u, size_t n)
{
    qsort(u, n, sizeof(*u), cmp_upd);
}

static int rbit(const uint8_t *p, unsigned i)
{
    return (p[i / 8] >> (7 - i % 8)) & 1;
}

static void sha3(uint8_t tag, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    uint8_t buf[1 + 2 * HL];

    buf[0] = tag;
    memcpy(buf + 1, a, HL);
    memcpy(buf + 1 + HL, b, HL);
    crypto_hash_sha256(out, buf, sizeof(buf));
}

/* The definition, literally: over sorted leaves l[0..n) at `depth`. */
static void ref_hash(const struct kix_smt_update *l, size_t n, unsigned depth, uint8_t *out)
{
    uint8_t left[HL], right[HL];
    size_t s = 0;

    if (n == 0) {
        memset(out, 0, HL);
        return;
    }
    if (n == 1) {
        sha3(0x02, l[0].path.b, l[0].value_hash.b, out);
        return;
    }
    while (s < n && !rbit(l[s].path.b, depth))
        s++;
    ref_hash(l, s, depth + 1, left);
    ref_hash(l + s, n - s, depth + 1, right);
    sha3(0x03, left, right, out);
}

/* A set of leaves, kept sorted, last version wins. */
struct set {
    struct kix_smt_update *l;
    size_t n;
};

static void set_put(struct set *s, const struct kix_smt_update *u, size_t k)
{
    s->l = realloc(s->l, (s->n + k + 1) * sizeof(*s->l));
    for (size_t i = 0; i < k; i++) {
        size_t j;
        for (j = 0; j < s->n; j++)
            if (memcmp(s->l[j].path.b, u[i].path.b, HL) == 0)
                break;
        s->l[j] = u[i];
        if (j == s->n)
            s->n++;
    }
    sort_upd(s->l, s->n);
}

/* set_put for many fresh keys (no replacement check). */
static void set_add_fresh(struct set *s, const struct kix_smt_update *u, size_t k)
{
    s->l = realloc(s->l, (s->n + k + 1) * sizeof(*s->l));
    memcpy(s->l + s->n, u, k * sizeof(*u));
    s->n += k;
    sort_upd(s->l, s->n);
}

static int apply(struct nmap *m, struct kix_smt_update *u, size_t k, struct kix_hash *root)
{
    struct kix_err err;
    int rc;

    sort_upd(u, k);
    m->gen++;
    rc = kix_smt_apply(&m->io, u, k, root, &err);
    if (rc)
        fprintf(stderr, "apply: %s\n", err.msg);
    return rc;
}

static void shuffle(uint64_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd() % i;
        uint64_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* ---- Roots ---------------------------------------------------------------- */

KIX_TEST(hashing_rules)
{
    struct kix_hash p, v, l, r, got;
    uint8_t want[HL];
    const char *key = "runs/abc";

    kix_smt_path(key, strlen(key), &p);
    crypto_hash_sha256(want, (const uint8_t *)key, strlen(key));
    ASSERT_TRUE(memcmp(p.b, want, HL) == 0);
    kix_smt_value_hash("x", 1, &v);
    crypto_hash_sha256(want, (const uint8_t *)"x", 1);
    ASSERT_TRUE(memcmp(v.b, want, HL) == 0);
    kix_smt_leaf_hash(&p, &v, &l);
    sha3(0x02, p.b, v.b, want);
    ASSERT_TRUE(memcmp(l.b, want, HL) == 0);
    memset(r.b, 0, HL);
    kix_smt_node_hash(&l, &r, &got);
    sha3(0x03, l.b, r.b, want);
    ASSERT_TRUE(memcmp(got.b, want, HL) == 0);
    kix_smt_node_hash(&l, &r, &l); /* aliasing */
    ASSERT_TRUE(memcmp(l.b, want, HL) == 0);
}

KIX_TEST(empty_tree)
{
    struct nmap m;
    struct kix_hash root, path, zero = {{0}};
    struct kix_buf proof = KIX_BUF_INIT;
    int present = 1;

    nmap_init(&m);
    ASSERT_EQ_INT(KIX_OK, kix_smt_root(&m.io, &root, NULL));
    ASSERT_TRUE(memcmp(root.b, zero.b, HL) == 0);
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&m.io, NULL, 0, &root, NULL));
    ASSERT_TRUE(memcmp(root.b, zero.b, HL) == 0);
    ASSERT_EQ_U64(0, m.io.writes);
    kix_smt_path("k", 1, &path);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_smt_get(&m.io, &path, &root, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_smt_prove(&m.io, &path, &proof, &present, NULL, NULL));
    ASSERT_EQ_INT(0, present);
    ASSERT_EQ_MEM("\0\0\0", 3, proof.ptr, proof.len);
    ASSERT_EQ_INT(KIX_OK, kix_smt_verify(&zero, &path, NULL, proof.ptr, proof.len, NULL));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&zero, &path, &path, proof.ptr, proof.len, NULL));
    kix_buf_release(&proof);
    nmap_release(&m);
}

/* Inserts n fresh keys in random batch splits, checking the root against
 * the reference after each batch (and at the end for large n). */
static void roots_for(size_t n)
{
    struct nmap m;
    struct set s = {NULL, 0};
    struct kix_smt_update *u = malloc((n + 1) * sizeof(*u));
    uint64_t *order = malloc((n + 1) * sizeof(*order));
    struct kix_hash root;
    uint8_t want[HL];
    size_t done = 0;

    nmap_init(&m);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n);
    while (done < n) {
        size_t k = 1 + rnd() % (n - done < 8 ? n - done : (n - done) / 2);
        for (size_t i = 0; i < k; i++)
            kv(order[done + i], 0, &u[i]);
        ASSERT_EQ_INT(KIX_OK, apply(&m, u, k, &root));
        ASSERT_EQ_U64(0, m.dup_writes);
        set_add_fresh(&s, u, k);
        done += k;
        if (n <= 1000 || done == n) {
            ref_hash(s.l, s.n, 0, want);
            if (memcmp(want, root.b, HL) != 0)
                KIX_FAIL_AT("root differs from the reference at %zu of %zu keys", done, n);
        }
    }
    ASSERT_EQ_INT(KIX_OK, kix_smt_root(&m.io, &root, NULL));
    ref_hash(s.l, s.n, 0, want);
    ASSERT_TRUE(memcmp(want, root.b, HL) == 0);
    free(s.l);
    free(u);
    free(order);
    nmap_release(&m);
}

KIX_TEST(roots_match_reference)
{
    static const size_t sizes[] = {0, 1, 2, 3, 100, 10000};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        roots_for(sizes[i]);
        if (kix_test_failed)
            KIX_FAIL_AT("at size %zu", sizes[i]);
    }
}

KIX_TEST(replace_values)
{
    struct nmap m;
    struct set s = {NULL, 0};
    struct kix_smt_update u[64];
    struct kix_hash root, got;
    uint8_t want[HL];

    nmap_init(&m);
    for (unsigned round = 0; round < 40; round++) {
        size_t k = 1 + rnd() % 64, n = 0;
        /* keys 0..199, each at most once per batch, random versions */
        uint64_t base = rnd() % 200;
        for (size_t i = 0; i < k && base + i < 200; i++, n++)
            kv(base + i, (unsigned)(rnd() % 5), &u[n]);
        ASSERT_EQ_INT(KIX_OK, apply(&m, u, n, &root));
        ASSERT_EQ_U64(0, m.dup_writes);
        set_put(&s, u, n);
        ref_hash(s.l, s.n, 0, want);
        ASSERT_TRUE(memcmp(want, root.b, HL) == 0);
    }
    for (size_t i = 0; i < s.n; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_smt_get(&m.io, &s.l[i].path, &got, NULL));
        ASSERT_TRUE(memcmp(got.b, s.l[i].value_hash.b, HL) == 0);
    }
    /* the same value again changes nothing */
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&m.io, s.l, 1, &got, NULL));
    ASSERT_TRUE(memcmp(got.b, root.b, HL) == 0);
    free(s.l);
    nmap_release(&m);
}

KIX_TEST(batch_equals_one_by_one)
{
    struct nmap a, b;
    struct kix_smt_update u[500];
    struct kix_hash ra, rb;

    nmap_init(&a);
    nmap_init(&b);
    for (uint64_t i = 0; i < 500; i++)
        kv(i, 1, &u[i]);
    ASSERT_EQ_INT(KIX_OK, apply(&a, u, 500, &ra));
    for (uint64_t i = 0; i < 500; i++) {
        struct kix_smt_update one;
        kv(499 - i, 1, &one);
        ASSERT_EQ_INT(KIX_OK, apply(&b, &one, 1, &rb));
    }
    ASSERT_TRUE(memcmp(ra.b, rb.b, HL) == 0);
    ASSERT_TRUE(nmap_equal(&a, &b));
    /* replacing half of them, in one batch or one by one */
    for (uint64_t i = 0; i < 250; i++)
        kv(2 * i, 2, &u[i]);
    ASSERT_EQ_INT(KIX_OK, apply(&a, u, 250, &ra));
    for (uint64_t i = 0; i < 250; i++)
        ASSERT_EQ_INT(KIX_OK, apply(&b, &u[i], 1, &rb));
    ASSERT_TRUE(memcmp(ra.b, rb.b, HL) == 0);
    ASSERT_TRUE(nmap_equal(&a, &b));
    nmap_release(&a);
    nmap_release(&b);
}

KIX_TEST(unsorted_refused)
{
    struct nmap m;
    struct kix_smt_update u[3];
    struct kix_hash root;
    struct kix_err err;

    nmap_init(&m);
    for (uint64_t i = 0; i < 3; i++)
        kv(i, 0, &u[i]);
    sort_upd(u, 3);
    u[2] = u[1]; /* a path twice */
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_apply(&m.io, u, 3, &root, &err));
    ASSERT_CONTAINS(err.msg, "strictly increasing");
    u[2] = u[0]; /* out of order */
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_apply(&m.io, u, 3, &root, &err));
    ASSERT_EQ_U64(0, m.io.reads);
    ASSERT_EQ_U64(0, m.io.writes);
    nmap_release(&m);
}

/* ---- Proofs ---------------------------------------------------------------- */

static int prove(struct nmap *m, const struct kix_hash *path, struct kix_buf *proof, int *present)
{
    struct kix_err err;
    int rc;

    kix_buf_reset(proof);
    rc = kix_smt_prove(&m->io, path, proof, present, NULL, &err);
    if (rc)
        fprintf(stderr, "prove: %s\n", err.msg);
    return rc;
}

KIX_TEST(proofs_verify)
{
    static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 5000};
    struct kix_buf proof = KIX_BUF_INIT;
    size_t kinds[3] = {0, 0, 0};

    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        struct nmap m;
        struct kix_smt_update *u = malloc(n * sizeof(*u)), other;
        struct kix_hash root, vh;
        struct kix_err err;
        int present;

        nmap_init(&m);
        for (size_t i = 0; i < n; i++)
            kv(i, 3, &u[i]);
        ASSERT_EQ_INT(KIX_OK, apply(&m, u, n, &root));
        kv(n + 1, 3, &other);
        for (size_t i = 0; i < n; i++) {
            ASSERT_EQ_INT(KIX_OK, prove(&m, &u[i].path, &proof, &present));
            ASSERT_EQ_INT(1, present);
            ASSERT_EQ_INT(KIX_SMT_MEMBER, proof.ptr[0]);
            kinds[KIX_SMT_MEMBER]++;
            ASSERT_EQ_INT(KIX_OK, kix_smt_verify(&root, &u[i].path, &u[i].value_hash, proof.ptr,
                                                 proof.len, &err));
            /* a wrong value, absence, another key */
            ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&root, &u[i].path, &other.value_hash,
                                                      proof.ptr, proof.len, &err));
            ASSERT_CONTAINS(err.msg, "does not lead to the root");
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_smt_verify(&root, &u[i].path, NULL, proof.ptr, proof.len, &err));
            ASSERT_CONTAINS(err.msg, "present, not absent");
            ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&root, &other.path, &u[i].value_hash,
                                                      proof.ptr, proof.len, &err));
            if (i % 7 == 0) {
                ASSERT_EQ_INT(KIX_OK, kix_smt_get(&m.io, &u[i].path, &vh, NULL));
                ASSERT_TRUE(memcmp(vh.b, u[i].value_hash.b, HL) == 0);
            }
        }
        for (size_t j = 0; j < (n < 200 ? 200 : n); j++) {
            struct kix_smt_update a;
            kv(1000000 + j, 0, &a);
            ASSERT_EQ_INT(KIX_OK, prove(&m, &a.path, &proof, &present));
            ASSERT_EQ_INT(0, present);
            kinds[proof.ptr[0]]++;
            ASSERT_EQ_INT(KIX_OK, kix_smt_verify(&root, &a.path, NULL, proof.ptr, proof.len, &err));
            ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&root, &a.path, &a.value_hash, proof.ptr,
                                                      proof.len, &err));
            ASSERT_CONTAINS(err.msg, "absent");
            ASSERT_EQ_INT(KIX_ENOTFOUND, kix_smt_get(&m.io, &a.path, &vh, NULL));
            /* an absence proof for one key says nothing about another */
            if (proof.ptr[0] == KIX_SMT_EMPTY && n > 1)
                ASSERT_EQ_INT(KIX_EVERIFY,
                              kix_smt_verify(&root, &u[0].path, NULL, proof.ptr, proof.len, NULL));
        }
        free(u);
        nmap_release(&m);
    }
    /* both kinds of absence occurred */
    ASSERT_TRUE(kinds[KIX_SMT_EMPTY] > 0);
    ASSERT_TRUE(kinds[KIX_SMT_OTHER] > 0);
    kix_buf_release(&proof);
}

/* Every single-bit flip, truncation and extension of `p` must be refused
 * for (root, path, vh); so must a wrong root. */
static void tamper(const struct kix_hash *root, const struct kix_hash *path,
                   const struct kix_hash *vh, const uint8_t *p, size_t len)
{
    uint8_t *q = malloc(len + HL + 1);
    struct kix_hash bad = *root;

    ASSERT_EQ_INT(KIX_OK, kix_smt_verify(root, path, vh, p, len, NULL));
    for (size_t i = 0; i < len * 8; i++) {
        memcpy(q, p, len);
        q[i / 8] ^= (uint8_t)(1u << (i % 8));
        if (kix_smt_verify(root, path, vh, q, len, NULL) != KIX_EVERIFY)
            KIX_FAIL_AT("flipping bit %zu of a %zu-byte proof was accepted", i, len);
    }
    memcpy(q, p, len);
    for (size_t l = 0; l < len; l++)
        if (kix_smt_verify(root, path, vh, q, l, NULL) != KIX_EVERIFY)
            KIX_FAIL_AT("a proof truncated to %zu of %zu bytes was accepted", l, len);
    memset(q + len, 0x5a, HL + 1);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(root, path, vh, q, len + 1, NULL));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(root, path, vh, q, len + HL, NULL));
    bad.b[31] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&bad, path, vh, p, len, NULL));
    free(q);
}

KIX_TEST(proof_tamper)
{
    struct nmap m;
    struct kix_smt_update u[300];
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root;
    int present, seen[3] = {0, 0, 0};

    nmap_init(&m);
    for (uint64_t i = 0; i < 300; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, apply(&m, u, 300, &root));
    for (uint64_t i = 0; i < 10; i++) {
        ASSERT_EQ_INT(KIX_OK, prove(&m, &u[i].path, &proof, &present));
        tamper(&root, &u[i].path, &u[i].value_hash, proof.ptr, proof.len);
    }
    for (uint64_t j = 0; j < 200 && (seen[KIX_SMT_EMPTY] < 5 || seen[KIX_SMT_OTHER] < 5); j++) {
        struct kix_smt_update a;
        kv(5000 + j, 0, &a);
        ASSERT_EQ_INT(KIX_OK, prove(&m, &a.path, &proof, &present));
        if (seen[proof.ptr[0]]++ >= 5)
            continue;
        tamper(&root, &a.path, NULL, proof.ptr, proof.len);
    }
    ASSERT_TRUE(seen[KIX_SMT_EMPTY] >= 5 && seen[KIX_SMT_OTHER] >= 5);
    /* one-key tree: depth-0 proofs */
    {
        struct nmap one;
        nmap_init(&one);
        ASSERT_EQ_INT(KIX_OK, apply(&one, u, 1, &root));
        ASSERT_EQ_INT(KIX_OK, prove(&one, &u[0].path, &proof, &present));
        ASSERT_EQ_INT(3, proof.len);
        tamper(&root, &u[0].path, &u[0].value_hash, proof.ptr, proof.len);
        ASSERT_EQ_INT(KIX_OK, prove(&one, &u[1].path, &proof, &present));
        ASSERT_EQ_INT(3 + 2 * HL, proof.len);
        tamper(&root, &u[1].path, NULL, proof.ptr, proof.len);
        nmap_release(&one);
    }
    kix_buf_release(&proof);
    nmap_release(&m);
}

KIX_TEST(parse_canonical)
{
    struct nmap m;
    struct kix_smt_update u[50];
    struct kix_buf proof = KIX_BUF_INIT, again = KIX_BUF_INIT;
    struct kix_smt_proof p;
    struct kix_hash root;
    struct kix_err err;
    uint8_t bad[3 + 1 + HL];
    int present;

    nmap_init(&m);
    for (uint64_t i = 0; i < 50; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, apply(&m, u, 50, &root));
    for (uint64_t i = 0; i < 100; i++) {
        struct kix_smt_update a;
        kv(i, 0, &a);
        ASSERT_EQ_INT(KIX_OK, prove(&m, &a.path, &proof, &present));
        ASSERT_EQ_INT(KIX_OK, kix_smt_proof_parse(proof.ptr, proof.len, &p, &err));
        kix_buf_reset(&again);
        ASSERT_EQ_INT(KIX_OK, kix_smt_proof_encode(&p, &again, NULL));
        ASSERT_EQ_MEM(proof.ptr, proof.len, again.ptr, again.len);
        ASSERT_TRUE(p.depth <= 32 && p.nsiblings <= p.depth);
    }
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse((const uint8_t *)"\x03\0\0", 3, &p, &err));
    ASSERT_CONTAINS(err.msg, "unknown kind");
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse((const uint8_t *)"\x00\x01\x01", 3, &p, &err));
    ASSERT_CONTAINS(err.msg, "past 256");
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse((const uint8_t *)"\x00\0", 2, &p, &err));
    /* depth 1, padding bit set */
    memset(bad, 0x11, sizeof(bad));
    bad[0] = 0;
    bad[1] = 0;
    bad[2] = 1;
    bad[3] = 0xc0;
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse(bad, sizeof(bad), &p, &err));
    ASSERT_CONTAINS(err.msg, "past depth");
    bad[3] = 0x80;
    ASSERT_EQ_INT(KIX_OK, kix_smt_proof_parse(bad, sizeof(bad), &p, &err));
    memset(bad + 4, 0, HL); /* a non-empty sibling that is the empty hash */
    ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse(bad, sizeof(bad), &p, &err));
    ASSERT_CONTAINS(err.msg, "empty hash");
    /* depth 256 with every sibling: the longest proof, exactly */
    {
        uint8_t *big = malloc(KIX_SMT_PROOF_MAX);
        memset(big, 0xff, KIX_SMT_PROOF_MAX);
        big[0] = KIX_SMT_OTHER;
        big[1] = 1;
        big[2] = 0;
        ASSERT_EQ_INT(KIX_OK, kix_smt_proof_parse(big, KIX_SMT_PROOF_MAX, &p, &err));
        ASSERT_EQ_U64(256, p.nsiblings);
        ASSERT_EQ_INT(KIX_EINVAL, kix_smt_proof_parse(big, KIX_SMT_PROOF_MAX - 1, &p, &err));
        free(big);
    }
    kix_buf_release(&proof);
    kix_buf_release(&again);
    nmap_release(&m);
}

KIX_TEST(noncanonical_shape_refused)
{
    /* A one-key tree proven as if the leaf sat one level down next to an
     * empty sibling: refused for its shape before any root comparison. */
    struct kix_smt_update a;
    struct kix_hash root, h;
    uint8_t p[4] = {KIX_SMT_MEMBER, 0, 1, 0};
    struct kix_err err;

    kv(1, 0, &a);
    kix_smt_leaf_hash(&a.path, &a.value_hash, &h);
    memset(root.b, 0, HL);
    if (rbit(a.path.b, 0))
        kix_smt_node_hash(&root, &h, &root);
    else
        kix_smt_node_hash(&h, &root, &root);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_smt_verify(&root, &a.path, &a.value_hash, p, 4, &err));
    ASSERT_CONTAINS(err.msg, "non-canonical");
}

/* ---- Storage ---------------------------------------------------------------- */

KIX_TEST(pos_key)
{
    uint8_t prefix[HL], key[KIX_SMT_POS_KEY_MAX];

    memset(prefix, 0xff, HL);
    ASSERT_EQ_INT(2, kix_smt_pos_key(0, prefix, key));
    ASSERT_EQ_MEM("\0\0", 2, key, 2);
    ASSERT_EQ_INT(3, kix_smt_pos_key(3, prefix, key));
    ASSERT_EQ_MEM("\0\x03\xe0", 3, key, 3);
    ASSERT_EQ_INT(34, kix_smt_pos_key(256, prefix, key));
    ASSERT_EQ_INT(1, key[0]);
    ASSERT_EQ_INT(0, key[1]);
}

KIX_TEST(storage_errors)
{
    struct nmap m;
    struct kix_smt_update u[20], extra;
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root;
    struct kix_err err;
    int present;

    nmap_init(&m);
    for (uint64_t i = 0; i < 20; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, apply(&m, u, 20, &root));
    kv(99, 0, &extra);
    m.fail_read = KIX_EIO;
    ASSERT_EQ_INT(KIX_EIO, kix_smt_apply(&m.io, &extra, 1, &root, &err));
    ASSERT_CONTAINS(err.msg, "disk on fire");
    ASSERT_EQ_INT(KIX_EIO, kix_smt_prove(&m.io, &extra.path, &proof, &present, NULL, &err));
    m.fail_read = 0;
    m.fail_write = KIX_EFULL;
    ASSERT_EQ_INT(KIX_EFULL, kix_smt_apply(&m.io, &extra, 1, &root, &err));
    ASSERT_CONTAINS(err.msg, "writing sparse Merkle node");
    m.fail_write = 0;
    /* damage: a truncated root record, then a missing child */
    {
        uint8_t zero[HL] = {0};
        struct ent *e = nmap_find(&m, 0, zero);
        ASSERT_TRUE(e != NULL);
        e->len = 10;
        ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_root(&m.io, &root, &err));
        ASSERT_CONTAINS(err.msg, "malformed");
        e->len = KIX_SMT_RECORD_LEN;
        e = nmap_find(&m, 1, zero);
        ASSERT_TRUE(e != NULL);
        e->used = 0; /* no probe chain crosses it in a map this sparse */
        kv(0, 0, &extra);
        if (rbit(extra.path.b, 0)) /* the one in the left half */
            for (uint64_t i = 1; i < 20 && rbit(extra.path.b, 0); i++)
                extra = u[i];
        ASSERT_EQ_INT(KIX_ECORRUPT,
                      kix_smt_prove(&m.io, &extra.path, &proof, &present, NULL, &err));
        ASSERT_CONTAINS(err.msg, "missing");
        e->used = 1;
    }
    kix_buf_release(&proof);
    nmap_release(&m);
}

/* ---- Tiled storage (kix_smt_tiles) ------------------------------------------ *
 * The same tree kept in tiles of four levels: a raw map of tile records by
 * key bytes behind the adapter's get/put. A get's view is a fresh copy that
 * the next call frees (ASan catches a view kept past it, as LMDB's past a
 * put); each flush is a generation, a tile put twice in one counts. */

struct tent {
    int used;
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    size_t klen;
    uint8_t *val;
    size_t vlen;
    uint64_t put_gen;
};

struct tmap {
    struct tent *e;
    size_t cap, n;
    uint64_t gen, dup_puts;
    uint8_t *view; /* the last get's copy */
    int fail_get, fail_put;
    struct kix_smt_tiles tiles;
};

static size_t tslot(const struct tmap *m, const uint8_t *key, size_t klen)
{
    uint64_t h = klen * 0x9e3779b97f4a7c15ull;
    size_t i;

    for (size_t k = 0; k < klen; k++)
        h = (h ^ key[k]) * 0x100000001b3ull;
    h ^= h >> 33; /* keys are short: mix the last bytes in */
    h *= 0xff51afd7ed558ccdull;
    i = (size_t)(h >> 33) & (m->cap - 1);
    while (m->e[i].used && (m->e[i].klen != klen || memcmp(m->e[i].key, key, klen) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static struct tent *tmap_find(struct tmap *m, const uint8_t *key, size_t klen)
{
    struct tent *e;

    if (!m->cap)
        return NULL;
    e = &m->e[tslot(m, key, klen)];
    return e->used ? e : NULL;
}

static int tmap_get(void *ctx, const uint8_t *key, size_t klen, struct kix_bytes *out,
                    struct kix_err *err)
{
    struct tmap *m = ctx;
    struct tent *e;

    free(m->view);
    m->view = NULL;
    if (m->fail_get)
        return m->fail_get == KIX_EIO ? kix_err_set(err, KIX_EIO, "disk on fire") : m->fail_get;
    e = tmap_find(m, key, klen);
    if (!e)
        return KIX_ENOTFOUND;
    m->view = malloc(e->vlen + 1);
    memcpy(m->view, e->val, e->vlen);
    out->ptr = m->view;
    out->len = e->vlen;
    return KIX_OK;
}

/* Stores a raw tile record (also used to plant damage). */
static void tmap_set(struct tmap *m, const uint8_t *key, size_t klen, const uint8_t *val,
                     size_t vlen)
{
    struct tent *e;

    if (2 * (m->n + 1) > m->cap) {
        struct tent *old = m->e;
        size_t oldcap = m->cap;
        m->cap = oldcap ? oldcap * 2 : 64;
        m->e = calloc(m->cap, sizeof(*m->e));
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].used)
                m->e[tslot(m, old[i].key, old[i].klen)] = old[i];
        free(old);
    }
    e = &m->e[tslot(m, key, klen)];
    if (!e->used) {
        e->used = 1;
        memcpy(e->key, key, klen);
        e->klen = klen;
        m->n++;
    }
    free(e->val);
    e->val = malloc(vlen + 1);
    memcpy(e->val, val, vlen);
    e->vlen = vlen;
}

static int tmap_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                    struct kix_err *err)
{
    struct tmap *m = ctx;
    struct tent *e;

    (void)err;
    free(m->view);
    m->view = NULL;
    if (m->fail_put)
        return m->fail_put;
    if (klen < 1 || klen > KIX_SMT_TILE_KEY_MAX || vlen > KIX_SMT_TILE_MAX)
        return KIX_EINVAL;
    tmap_set(m, key, klen, val, vlen);
    e = tmap_find(m, key, klen);
    m->dup_puts += e->put_gen == m->gen;
    e->put_gen = m->gen;
    return KIX_OK;
}

static void tmap_init(struct tmap *m)
{
    memset(m, 0, sizeof(*m));
    m->gen = 1;
    kix_smt_tiles_init(&m->tiles, tmap_get, tmap_put, m);
}

static void tmap_release(struct tmap *m)
{
    kix_smt_tiles_release(&m->tiles);
    for (size_t i = 0; i < m->cap; i++)
        free(m->e[i].val);
    free(m->e);
    free(m->view);
}

/* A batch through the tiles, flushed as a writer does. */
static int tapply(struct tmap *m, struct kix_smt_update *u, size_t k, struct kix_hash *root)
{
    struct kix_err err;
    int rc;

    sort_upd(u, k);
    m->gen++;
    rc = kix_smt_apply(&m->tiles.io, u, k, root, &err);
    if (rc == KIX_OK)
        rc = kix_smt_tiles_flush(&m->tiles, &err);
    if (rc)
        fprintf(stderr, "tiled apply: %s\n", err.msg);
    return rc;
}

/* The proof of path through both stores: the same bytes, the same answer. */
static void same_proof(struct nmap *m, struct tmap *t, const struct kix_hash *path)
{
    struct kix_buf a = KIX_BUF_INIT, b = KIX_BUF_INIT;
    struct kix_hash va, vb;
    int pa = -1, pb = -2;

    ASSERT_EQ_INT(KIX_OK, kix_smt_prove(&m->io, path, &a, &pa, &va, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_smt_prove(&t->tiles.io, path, &b, &pb, &vb, NULL));
    ASSERT_EQ_INT(pa, pb);
    ASSERT_EQ_MEM(a.ptr, a.len, b.ptr, b.len);
    if (pa)
        ASSERT_EQ_MEM(va.b, HL, vb.b, HL);
    kix_buf_release(&a);
    kix_buf_release(&b);
}

/* Random batches of new keys and new values of present ones, through the
 * per-node map and through tiles: the same root after every batch, the
 * same proof bytes for present and absent keys, and in the end the same
 * records (each node's, read back through tiles; as many as the tiles'
 * bitmaps count); every flush stores each changed tile once. */
KIX_TEST(tiles_match_per_node)
{
    enum { KEYS = 6000, BATCHES = 90 };
    struct nmap m;
    struct tmap t;
    struct kix_smt_update *u = malloc(400 * sizeof(*u));
    unsigned *version = calloc(KEYS, sizeof(*version));
    struct kix_hash ra, rb;
    uint64_t next = 0, reads = 0, gets = 0, writes = 0, puts = 0, slots = 0;

    nmap_init(&m);
    tmap_init(&t);
    for (unsigned batch = 0; batch < BATCHES; batch++) {
        size_t k = 0, want = batch % 9 == 8 ? 0 : 1 + rnd() % 250;
        uint64_t r0 = t.tiles.io.reads, g0 = t.tiles.gets, w0 = t.tiles.io.writes,
                 p0 = t.tiles.puts;
        /* fresh keys, then (once there are some) new values of old ones,
         * each key at most once in a batch */
        while (k < want - want / 4 && next < KEYS) {
            kv(next, version[next], &u[k++]);
            next++;
        }
        for (size_t i = 0; next > 0 && k < want && i < want; i++) {
            uint64_t j = rnd() % next;
            int dup = 0;
            kv(j, version[j] + 1, &u[k]);
            for (size_t q = 0; q < k; q++)
                dup |= memcmp(u[q].path.b, u[k].path.b, HL) == 0;
            if (!dup) {
                version[j]++;
                k++;
            }
        }
        ASSERT_EQ_INT(KIX_OK, apply(&m, u, k, &ra));
        ASSERT_EQ_INT(KIX_OK, tapply(&t, u, k, &rb));
        ASSERT_EQ_MEM(ra.b, HL, rb.b, HL);
        ASSERT_EQ_U64(0, t.dup_puts);
        ASSERT_EQ_U64(0, t.tiles.count); /* flushed: nothing kept */
        reads += t.tiles.io.reads - r0;
        gets += t.tiles.gets - g0;
        writes += t.tiles.io.writes - w0;
        puts += t.tiles.puts - p0;
        if (batch % 10 == 9 || batch == BATCHES - 1) {
            for (unsigned i = 0; i < 150; i++) {
                struct kix_smt_update a;
                kv(rnd() % next, 0, &a);
                same_proof(&m, &t, &a.path);
                kv(KEYS + rnd() % 100000, 0, &a);
                same_proof(&m, &t, &a.path);
                if (kix_test_failed)
                    KIX_FAIL_AT("proofs differ after batch %u", batch);
            }
            kix_smt_tiles_reset(&t.tiles);
        }
    }
    ASSERT_EQ_U64(KEYS, next);
    /* the same records, node for node */
    for (size_t i = 0; i < m.cap; i++) {
        struct ent *e = &m.e[i];
        struct kix_bytes v;
        if (!e->used)
            continue;
        ASSERT_EQ_INT(KIX_OK, t.tiles.io.read(t.tiles.io.ctx, e->depth, e->prefix, &v, NULL));
        ASSERT_EQ_MEM(e->data, e->len, v.ptr, v.len);
    }
    for (size_t i = 0; i < t.cap; i++) {
        struct tent *e = &t.e[i];
        if (!e->used)
            continue;
        ASSERT_TRUE(e->vlen >= 2 + KIX_SMT_RECORD_LEN && e->vlen <= KIX_SMT_TILE_MAX);
        for (unsigned b = 0; b < 16; b++)
            slots += (e->val[b / 8] >> (7 - b % 8)) & 1;
    }
    ASSERT_EQ_U64(m.n, slots);
    fprintf(stderr,
            "%zu nodes in %zu tiles; per batch %.1f node reads -> %.1f tile gets, %.1f node "
            "writes -> %.1f tile puts\n",
            m.n, t.n, (double)reads / BATCHES, (double)gets / BATCHES, (double)writes / BATCHES,
            (double)puts / BATCHES);
    ASSERT_TRUE(gets < reads && puts < writes);
    free(u);
    free(version);
    nmap_release(&m);
    tmap_release(&t);
}

/* The root tile stored as val: refused as damage by a root read and a proof. */
static void tile_refused(struct tmap *t, const uint8_t *key, size_t klen, const uint8_t *val,
                         size_t len, const struct kix_hash *path)
{
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root;
    struct kix_err err;
    int present;

    tmap_set(t, key, klen, val, len);
    kix_smt_tiles_reset(&t->tiles);
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_root(&t->tiles.io, &root, &err));
    ASSERT_CONTAINS(err.msg, "tile at stratum 0 is malformed");
    ASSERT_CONTAINS(err.msg, "the index store is damaged; rebuild it from the log");
    kix_smt_tiles_reset(&t->tiles);
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_prove(&t->tiles.io, path, &proof, &present, NULL, &err));
    kix_buf_release(&proof);
}

/* A stored tile that is not exactly what its bitmap says is refused as
 * damage, wherever a walk meets it. */
KIX_TEST(tiles_malformed_refused)
{
    struct tmap t;
    struct kix_smt_update u[100];
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root;
    struct kix_bytes v;
    struct kix_err err;
    uint8_t prefix[HL] = {0}, key[KIX_SMT_TILE_KEY_MAX], good[KIX_SMT_TILE_MAX], bad[1100];
    size_t klen, glen;
    struct tent *e;
    int present;

    tmap_init(&t);
    for (uint64_t i = 0; i < 100; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, 100, &root));
    klen = kix_smt_tile_key(0, prefix, key);
    ASSERT_EQ_INT(1, klen);
    e = tmap_find(&t, key, klen);
    ASSERT_TRUE(e != NULL);
    ASSERT_EQ_U64(2 + 15 * KIX_SMT_RECORD_LEN, e->vlen); /* 100 keys fill the top tile */
    glen = e->vlen;
    memcpy(good, e->val, glen);
    /* bit 15 set (with the length of 16 records); one byte short; one
     * record more than the bitmap says; no bit set; no bitmap */
    memcpy(bad, good, glen);
    memset(bad + glen, 0x03, KIX_SMT_RECORD_LEN);
    bad[1] |= 0x01;
    tile_refused(&t, key, klen, bad, glen + KIX_SMT_RECORD_LEN, &u[0].path);
    tile_refused(&t, key, klen, good, glen - 1, &u[0].path);
    bad[1] = good[1];
    tile_refused(&t, key, klen, bad, glen + KIX_SMT_RECORD_LEN, &u[0].path);
    bad[0] = bad[1] = 0;
    tile_refused(&t, key, klen, bad, 2, &u[0].path);
    tile_refused(&t, key, klen, good, 1, &u[0].path);
    if (kix_test_failed)
        return;
    tmap_set(&t, key, klen, good, glen);
    kix_smt_tiles_reset(&t.tiles);
    ASSERT_EQ_INT(KIX_OK, kix_smt_root(&t.tiles.io, &root, &err));
    /* a tile further down: the one under key 0's route at stratum 1 */
    klen = kix_smt_tile_key(1, u[0].path.b, key);
    e = tmap_find(&t, key, klen);
    ASSERT_TRUE(e != NULL);
    e->vlen--;
    kix_smt_tiles_reset(&t.tiles);
    ASSERT_EQ_INT(KIX_ECORRUPT,
                  kix_smt_prove(&t.tiles.io, &u[0].path, &proof, &present, NULL, &err));
    ASSERT_CONTAINS(err.msg, "tile at stratum 1 is malformed");
    e->vlen++;
    /* stratum 64 holds depth 256 alone: slot 0, no other bit */
    memset(prefix, 0xa5, HL);
    klen = kix_smt_tile_key(64, prefix, key);
    ASSERT_EQ_INT(33, klen);
    memset(bad, 0x02, sizeof(bad));
    bad[0] = 0xc0;
    bad[1] = 0;
    tmap_set(&t, key, klen, bad, 2 + 2 * KIX_SMT_RECORD_LEN);
    kix_smt_tiles_reset(&t.tiles);
    ASSERT_EQ_INT(KIX_ECORRUPT, t.tiles.io.read(t.tiles.io.ctx, 256, prefix, &v, &err));
    ASSERT_CONTAINS(err.msg, "tile at stratum 64 is malformed");
    bad[0] = 0x80;
    tmap_set(&t, key, klen, bad, 2 + KIX_SMT_RECORD_LEN);
    kix_smt_tiles_reset(&t.tiles);
    ASSERT_EQ_INT(KIX_OK, t.tiles.io.read(t.tiles.io.ctx, 256, prefix, &v, &err));
    ASSERT_EQ_MEM(bad + 2, KIX_SMT_RECORD_LEN, v.ptr, v.len);
    ASSERT_EQ_INT(KIX_EINVAL, t.tiles.io.read(t.tiles.io.ctx, 257, prefix, &v, &err));
    kix_buf_release(&proof);
    tmap_release(&t);
}

/* Tile keys: the stratum, then the first 4 x stratum bits, the rest zero. */
KIX_TEST(tiles_key)
{
    uint8_t prefix[HL], key[KIX_SMT_TILE_KEY_MAX];

    memset(prefix, 0xff, HL);
    ASSERT_EQ_INT(1, kix_smt_tile_key(0, prefix, key));
    ASSERT_EQ_INT(0, key[0]);
    ASSERT_EQ_INT(2, kix_smt_tile_key(1, prefix, key));
    ASSERT_EQ_MEM("\x01\xf0", 2, key, 2);
    ASSERT_EQ_INT(2, kix_smt_tile_key(2, prefix, key));
    ASSERT_EQ_MEM("\x02\xff", 2, key, 2);
    ASSERT_EQ_INT(3, kix_smt_tile_key(3, prefix, key));
    ASSERT_EQ_MEM("\x03\xff\xf0", 3, key, 3);
    ASSERT_EQ_INT(33, kix_smt_tile_key(64, prefix, key));
    ASSERT_EQ_INT(64, key[0]);
    ASSERT_EQ_INT(0xff, key[32]);
}

/* A proof reads one stored tile per stratum its route crosses: at most
 * ceil(depth / 4) + 1 for a route ending at `depth`, at 10^5 keys; and an
 * insert stores about as many tiles. */
KIX_TEST(tiles_reads_per_proof)
{
    enum { N = 100000 };
    struct tmap t;
    struct kix_smt_update *u = malloc(1000 * sizeof(*u));
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_smt_proof p;
    struct kix_hash root;
    uint64_t gets = 0, reads = 0, g0, p0, w0;
    int present;

    tmap_init(&t);
    for (size_t done = 0; done < N; done += 1000) {
        for (size_t i = 0; i < 1000; i++)
            kv(done + i, 0, &u[i]);
        ASSERT_EQ_INT(KIX_OK, tapply(&t, u, 1000, &root));
    }
    for (size_t i = 0; i < 512; i++) {
        uint64_t r0 = t.tiles.io.reads;
        kv(i < 256 ? i * (N / 256) : 50000000 + i, 0, &u[0]);
        g0 = t.tiles.gets;
        kix_buf_reset(&proof);
        ASSERT_EQ_INT(KIX_OK, kix_smt_prove(&t.tiles.io, &u[0].path, &proof, &present, NULL, NULL));
        ASSERT_EQ_INT(i < 256, present);
        ASSERT_EQ_INT(KIX_OK, kix_smt_proof_parse(proof.ptr, proof.len, &p, NULL));
        if (t.tiles.gets - g0 > (p.depth + 3) / 4 + 1)
            KIX_FAIL_AT("a proof ending at depth %u read %llu tiles", p.depth,
                        (unsigned long long)(t.tiles.gets - g0));
        gets += t.tiles.gets - g0;
        reads += t.tiles.io.reads - r0;
        kix_smt_tiles_reset(&t.tiles); /* every proof from a cold cache */
    }
    fprintf(stderr, "n=%d: a proof reads %.1f nodes in %.1f stored tiles\n", N, (double)reads / 512,
            (double)gets / 512);
    /* one-key batches: tiles read and stored per insert */
    g0 = t.tiles.gets;
    p0 = t.tiles.puts;
    w0 = t.tiles.io.writes;
    for (size_t i = 0; i < 256; i++) {
        kv(10000000 + i, 0, &u[0]);
        ASSERT_EQ_INT(KIX_OK, tapply(&t, u, 1, &root));
    }
    fprintf(stderr, "n=%d: an insert writes %.1f nodes in %.1f stored tiles, reading %.1f\n", N,
            (double)(t.tiles.io.writes - w0) / 256, (double)(t.tiles.puts - p0) / 256,
            (double)(t.tiles.gets - g0) / 256);
    ASSERT_TRUE((double)(t.tiles.gets - g0) / 256 < 7 && (double)(t.tiles.puts - p0) / 256 < 7);
    kix_buf_release(&proof);
    free(u);
    tmap_release(&t);
}

/* Storage errors come back with their code; a failed flush and a reset
 * drop what was not stored; reads see the batch's writes before the flush;
 * a record other than 65 bytes is refused. */
KIX_TEST(tiles_storage_errors)
{
    struct tmap t;
    struct kix_smt_update u[20], extra;
    struct kix_hash root, before, vh;
    struct kix_err err;
    uint8_t prefix[HL] = {0}, rec[KIX_SMT_RECORD_LEN] = {0x02};
    uint64_t g0;

    tmap_init(&t);
    for (uint64_t i = 0; i < 20; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, 20, &before));
    kv(99, 0, &extra);
    t.fail_get = KIX_EIO;
    ASSERT_EQ_INT(KIX_EIO, kix_smt_apply(&t.tiles.io, &extra, 1, &root, &err));
    ASSERT_CONTAINS(err.msg, "disk on fire");
    kix_smt_tiles_reset(&t.tiles);
    t.fail_get = 0;
    /* written, not yet stored: visible through the tiles, not in the store */
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&t.tiles.io, &extra, 1, &root, &err));
    g0 = t.tiles.gets;
    ASSERT_EQ_INT(KIX_OK, kix_smt_get(&t.tiles.io, &extra.path, &vh, &err));
    ASSERT_EQ_MEM(extra.value_hash.b, HL, vh.b, HL);
    ASSERT_EQ_U64(g0, t.tiles.gets);
    t.fail_put = KIX_EFULL;
    ASSERT_EQ_INT(KIX_EFULL, kix_smt_tiles_flush(&t.tiles, &err));
    ASSERT_CONTAINS(err.msg, "storing a sparse Merkle tile");
    ASSERT_EQ_U64(0, t.tiles.count);
    t.fail_put = 0;
    ASSERT_EQ_INT(KIX_OK, kix_smt_root(&t.tiles.io, &root, &err));
    ASSERT_EQ_MEM(before.b, HL, root.b, HL);
    /* reset drops a batch that was not flushed */
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&t.tiles.io, &extra, 1, &root, &err));
    kix_smt_tiles_reset(&t.tiles);
    ASSERT_EQ_INT(KIX_OK, kix_smt_root(&t.tiles.io, &root, &err));
    ASSERT_EQ_MEM(before.b, HL, root.b, HL);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_smt_get(&t.tiles.io, &extra.path, &vh, NULL));
    ASSERT_EQ_INT(KIX_EINVAL, t.tiles.io.write(t.tiles.io.ctx, 3, prefix, rec, 64, &err));
    ASSERT_EQ_INT(KIX_EINVAL, t.tiles.io.write(t.tiles.io.ctx, 300, prefix, rec, 65, &err));
    /* the same record again is no change: nothing to store */
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&t.tiles.io, u, 1, &root, &err));
    ASSERT_EQ_MEM(before.b, HL, root.b, HL);
    g0 = t.tiles.puts;
    ASSERT_EQ_INT(KIX_OK, kix_smt_tiles_flush(&t.tiles, &err));
    ASSERT_EQ_U64(g0, t.tiles.puts);
    tmap_release(&t);
}

/* A tile that only a new subtree reaches is written without being read:
 * below a stored leaf nothing stored counts, even a damaged tile left
 * there, which the flush replaces. Paths here are made up, not hashes. */
KIX_TEST(tiles_unreachable_not_read)
{
    struct tmap t;
    struct nmap m;
    struct kix_smt_update a, b;
    struct kix_hash ra, rb;
    uint8_t key[KIX_SMT_TILE_KEY_MAX], junk[7] = {0xff, 0xff, 1, 2, 3, 4, 5};
    size_t klen;
    uint64_t g0, p0;

    tmap_init(&t);
    nmap_init(&m);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    b.path.b[1] = 0x01; /* a and b part at bit 15: a leaf pair at depth 16 */
    a.value_hash.b[0] = 1;
    b.value_hash.b[0] = 2;
    ASSERT_EQ_INT(KIX_OK, tapply(&t, &a, 1, &ra)); /* the root tile: one leaf */
    ASSERT_EQ_INT(KIX_OK, apply(&m, &a, 1, &rb));
    klen = kix_smt_tile_key(2, a.path.b, key);
    tmap_set(&t, key, klen, junk, sizeof(junk));
    g0 = t.tiles.gets;
    p0 = t.tiles.puts;
    ASSERT_EQ_INT(KIX_OK, tapply(&t, &b, 1, &ra));
    ASSERT_EQ_INT(KIX_OK, apply(&m, &b, 1, &rb));
    ASSERT_EQ_MEM(rb.b, HL, ra.b, HL);
    ASSERT_EQ_U64(g0 + 1, t.tiles.gets); /* the root tile alone */
    ASSERT_EQ_U64(p0 + 6, t.tiles.puts); /* strata 0..3, and one tile for each leaf */
    same_proof(&m, &t, &a.path);
    same_proof(&m, &t, &b.path);
    ASSERT_TRUE(tmap_find(&t, key, klen)->vlen > sizeof(junk));
    tmap_release(&t);
    nmap_release(&m);
}

/* ---- Cost ---------------------------------------------------------------- */

struct cost {
    double reads, writes, hashes, proof_bytes, batch_reads;
};

/* Builds a tree of n keys, then measures 256 single-key inserts (each its
 * own batch), 256 membership proofs, and one batch of 1000 inserts. */
static void measure(size_t n, struct cost *c)
{
    struct nmap m;
    struct kix_smt_update *u = malloc(1000 * sizeof(*u));
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash root;
    uint64_t r0, w0, h0, bytes = 0;
    int present;

    nmap_init(&m);
    for (size_t done = 0; done < n; done += 1000) {
        size_t k = n - done < 1000 ? n - done : 1000;
        for (size_t i = 0; i < k; i++)
            kv(done + i, 0, &u[i]);
        if (apply(&m, u, k, &root))
            abort();
    }
    r0 = m.io.reads;
    w0 = m.io.writes;
    h0 = m.io.hashes;
    for (size_t i = 0; i < 256; i++) {
        kv(10000000 + i, 0, &u[0]);
        if (apply(&m, u, 1, &root))
            abort();
    }
    c->reads = (double)(m.io.reads - r0) / 256;
    c->writes = (double)(m.io.writes - w0) / 256;
    c->hashes = (double)(m.io.hashes - h0) / 256;
    for (size_t i = 0; i < 256; i++) {
        kv(i * (n / 256), 0, &u[0]);
        if (prove(&m, &u[0].path, &proof, &present) || !present)
            abort();
        bytes += proof.len;
    }
    c->proof_bytes = (double)bytes / 256;
    for (size_t i = 0; i < 1000; i++)
        kv(20000000 + i, 0, &u[i]);
    r0 = m.io.reads;
    if (apply(&m, u, 1000, &root))
        abort();
    c->batch_reads = (double)(m.io.reads - r0) / 1000;
    fprintf(stderr,
            "n=%zu: per insert %.1f reads %.1f writes %.1f hashes; membership proof %.0f bytes; "
            "batch of 1000: %.1f reads per key\n",
            n, c->reads, c->writes, c->hashes, c->proof_bytes, c->batch_reads);
    kix_buf_release(&proof);
    free(u);
    nmap_release(&m);
}

/* Packed for the index's store (kix_smt_tile_pack): every tile of a tree
 * comes back byte for byte, a quarter smaller or better; damage is refused,
 * and a tile that is not a consistent subtree is kept as it is. */
KIX_TEST(tiles_pack_round_trips)
{
    enum { N = 3000 };
    struct tmap t;
    struct kix_smt_update *u = calloc(N, sizeof(*u));
    struct kix_hash root;
    uint8_t packed[KIX_SMT_TILE_MAX], back[KIX_SMT_TILE_MAX], bad[KIX_SMT_TILE_MAX];
    size_t plen, blen, full = 0, small = 0;
    struct tent *top = NULL;

    ASSERT_TRUE(u != NULL);
    tmap_init(&t);
    for (uint64_t i = 0; i < N; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, N, &root));
    for (size_t i = 0; i < t.cap; i++) {
        struct tent *e = &t.e[i];
        if (!e->used)
            continue;
        if (e->klen == 1)
            top = e;
        plen = kix_smt_tile_pack(e->val, e->vlen, packed);
        ASSERT_TRUE(plen < e->vlen ? (packed[1] & 1) : plen == e->vlen && !(packed[1] & 1));
        ASSERT_EQ_INT(KIX_OK, kix_smt_tile_unpack(packed, plen, back, &blen));
        ASSERT_EQ_MEM(e->val, e->vlen, back, blen);
        full += e->vlen;
        small += plen;
    }
    ASSERT_TRUE(top != NULL && small * 4 < full * 3); /* a quarter smaller or better */
    if (kix_test_failed)
        goto done;
    /* the top tile is full: kept whole (every proof reads it) */
    ASSERT_EQ_U64(top->vlen, kix_smt_tile_pack(top->val, top->vlen, packed));
    ASSERT_EQ_MEM(top->val, top->vlen, packed, top->vlen);
    /* without one of its last-level records, the top tile packs: the 7
     * records of level 3 kept, the 7 above them computed (kix-index/8) */
    memcpy(bad, top->val, top->vlen);
    bad[1] &= (uint8_t)~0x02;                 /* slot 14 */
    memset(bad + 2 + 6 * 65 + 1 + 32, 0, 32); /* its parent, slot 6: no right child */
    crypto_hash_sha256(bad + 2 + 2 * 65 + 1 + 32, bad + 2 + 6 * 65, 65); /* slot 2 */
    crypto_hash_sha256(bad + 2 + 1 + 32, bad + 2 + 2 * 65, 65);          /* slot 0 */
    plen = kix_smt_tile_pack(bad, top->vlen - 65, packed);
    ASSERT_EQ_U64(4 + 7 * 64, plen);
    ASSERT_EQ_INT(KIX_OK, kix_smt_tile_unpack(packed, plen, back, &blen));
    ASSERT_EQ_MEM(bad, top->vlen - 65, back, blen);
    {
        /* as kix-index/7 packed it (level 2 kept, no mark in the leaf
         * marks' last bit): read the same */
        uint8_t v7[KIX_SMT_TILE_MAX];
        v7[0] = bad[0], v7[1] = (uint8_t)(bad[1] | 1), v7[2] = v7[3] = 0;
        for (unsigned slot = 3; slot < 14; slot++)
            memcpy(v7 + 4 + (slot - 3) * 64, bad + 2 + slot * 65 + 1, 64);
        ASSERT_EQ_INT(KIX_OK, kix_smt_tile_unpack(v7, 4 + 11 * 64, back, &blen));
        ASSERT_EQ_MEM(bad, top->vlen - 65, back, blen);
    }
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_tile_unpack(packed, plen - 1, back, &blen));
    memcpy(bad, packed, plen);
    bad[2] = 0, bad[3] = 0x03; /* a leaf where no record is */
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_tile_unpack(bad, plen, back, &blen));
    bad[0] = 0x80, bad[1] = 0x01, bad[2] = bad[3] = 0; /* an interior top, no child */
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_smt_tile_unpack(bad, 4, back, &blen));
    /* a top record that is not its children's hashes: kept whole */
    memcpy(bad, top->val, top->vlen);
    bad[2 + 1] ^= 1;
    ASSERT_EQ_U64(top->vlen, kix_smt_tile_pack(bad, top->vlen, packed));
    ASSERT_EQ_MEM(bad, top->vlen, packed, top->vlen);
    ASSERT_EQ_INT(KIX_OK, kix_smt_tile_unpack(packed, top->vlen, back, &blen));
    ASSERT_EQ_MEM(bad, top->vlen, back, blen);
done:
    tmap_release(&t);
    free(u);
}

/* A put that packs as the index does (vindex_build.c's tile_put) and
 * counts what kix_smt_tile_pack got wrong: the flush's value must pack to
 * the bytes a copy of it packs to (the copy is checked whole, nothing
 * trusted), and unpack back to itself. */
static size_t pack_wrong, pack_packed;

static int pack_checked_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val,
                            size_t vlen, struct kix_err *err)
{
    uint8_t packed[KIX_SMT_TILE_MAX], copy[KIX_SMT_TILE_MAX], whole[KIX_SMT_TILE_MAX];
    uint8_t back[KIX_SMT_TILE_MAX];
    size_t plen = kix_smt_tile_pack(val, vlen, packed), wlen, blen = 0;

    memcpy(copy, val, vlen);
    wlen = kix_smt_tile_pack(copy, vlen, whole);
    if (plen != wlen || memcmp(packed, whole, plen) != 0 ||
        kix_smt_tile_unpack(packed, plen, back, &blen) != KIX_OK || blen != vlen ||
        memcmp(back, val, vlen) != 0)
        pack_wrong++;
    pack_packed += kix_smt_tile_packed(packed, plen);
    return tmap_put(ctx, key, klen, val, vlen, err);
}

/* The flush tells kix_smt_tile_pack which records' hashes the tree code
 * computed (kix_smt_tiles_flush): a parent's hash of a child it wrote is
 * not computed again, but a child it did not write (read from the store)
 * is hashed and checked, so a stored tile whose record does not hash to
 * its parent's half is still kept as it is, not packed into one that
 * unpacks differently. */
KIX_TEST(tiles_pack_trusts_only_the_records_the_tree_wrote)
{
    enum { N = 2000 };
    struct tmap t;
    struct kix_smt_update *u = calloc(N, sizeof(*u)), two[2];
    struct kix_hash root;
    struct tent *top;
    uint64_t other = 1, left;

    ASSERT_TRUE(u != NULL);
    pack_wrong = pack_packed = 0;
    tmap_init(&t);
    t.tiles.put = pack_checked_put;
    /* honest batches: inserts, then new values for every third key */
    for (uint64_t i = 0; i < N; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, N / 2, &root));
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u + N / 2, N / 2, &root));
    for (unsigned round = 1; round < 4; round++) {
        size_t k = 0;
        for (uint64_t i = round; i < N; i += 3)
            kv(i, round, &u[k++]);
        ASSERT_EQ_INT(KIX_OK, tapply(&t, u, k, &root));
    }
    ASSERT_EQ_U64(0, pack_wrong);
    ASSERT_TRUE(pack_packed > N / 4);
    tmap_release(&t);

    /* two leaves under the root: the top tile holds slots 0, 1 and 2 */
    kv(0, 0, &two[0]);
    do
        kv(other++, 0, &two[1]);
    while ((two[0].path.b[0] ^ two[1].path.b[0]) < 0x80);
    left = two[0].path.b[0] & 0x80 ? other - 1 : 0; /* path bit 0 clear */
    tmap_init(&t);
    t.tiles.put = pack_checked_put;
    ASSERT_EQ_INT(KIX_OK, tapply(&t, two, 2, &root));
    top = tmap_find(&t, (const uint8_t *)"\0", 1);
    ASSERT_TRUE(top != NULL && top->vlen == 2 + 3 * 65);
    if (kix_test_failed)
        goto done;
    /* the store's top record names another right child than the one stored */
    top->val[2 + 1 + 32] ^= 1;
    /* a new value for the left leaf: the top record is written again, its
     * right half as the store had it */
    kv(left, 1, &two[0]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, two, 1, &root));
    ASSERT_EQ_U64(0, pack_wrong);
done:
    tmap_release(&t);
    free(u);
}

/* The store keeps tiles packed, as the index does: a get unpacks them and
 * vouches for the hashes unpack derived (kix_smt_tile_derived), a put
 * packs them. */
static int packed_get(void *ctx, const uint8_t *key, size_t klen, struct kix_bytes *out,
                      struct kix_err *err)
{
    static uint8_t unpacked[KIX_SMT_TILE_MAX];
    struct kix_bytes v;
    size_t len = 0;
    int rc = tmap_get(ctx, key, klen, &v, err);

    if (rc == KIX_OK && kix_smt_tile_unpack(v.ptr, v.len, unpacked, &len) != KIX_OK)
        rc = KIX_ECORRUPT;
    if (rc == KIX_OK)
        kix_smt_tile_vouch(unpacked, len, kix_smt_tile_derived(v.ptr, v.len));
    out->ptr = unpacked;
    out->len = len;
    return rc;
}

static int packed_put(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                      struct kix_err *err)
{
    uint8_t packed[KIX_SMT_TILE_MAX];
    size_t plen;
    int rc = pack_checked_put(ctx, key, klen, val, vlen, err); /* counts, stores as is */

    plen = kix_smt_tile_pack(val, vlen, packed);
    if (rc == KIX_OK)
        tmap_set(ctx, key, klen, packed, plen);
    return rc;
}

/* A tile packed by kix-index/7 keeps its level-2 interior records: read
 * from the store, not derived, so kix_smt_tile_derived names only the
 * children of levels 0 and 1, and a level-2 record whose half is not its child's hash
 * is caught when its other child is written, the tile kept as it is. */
KIX_TEST(tiles_pack_checks_what_unpack_did_not_derive)
{
    enum { N = 2000 };
    struct tmap t;
    struct kix_smt_update *u = calloc(N, sizeof(*u));
    struct kix_hash root;
    uint8_t recs[KIX_SMT_TILE_SLOTS][KIX_SMT_RECORD_LEN], v7[KIX_SMT_TILE_MAX];
    uint8_t val[KIX_SMT_TILE_MAX], tkey[KIX_SMT_TILE_KEY_MAX];
    struct tent *tile = NULL;
    unsigned bits = 0, leaves = 0, stratum = 0;
    size_t vlen = 0, off = 4, under = N;

    ASSERT_TRUE(u != NULL);
    pack_wrong = pack_packed = 0;
    tmap_init(&t);
    t.tiles.get = packed_get;
    t.tiles.put = packed_put;
    for (uint64_t i = 0; i < N; i++)
        kv(i, 0, &u[i]);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, N, &root));
    ASSERT_EQ_U64(0, pack_wrong);
    /* a packed tile whose slot 3 is an interior record over slots 7 and 8 */
    for (size_t i = 0; i < t.cap && !tile; i++) {
        struct tent *e = &t.e[i];
        if (!e->used || !kix_smt_tile_packed(e->val, e->vlen) ||
            kix_smt_tile_unpack(e->val, e->vlen, val, &vlen) != KIX_OK)
            continue;
        bits = (unsigned)val[0] << 8 | val[1];
        if ((bits & 0x1180u) == 0x1180u &&
            val[2 + 65 * (unsigned)__builtin_popcount(bits & 0xe000u)] == 3)
            tile = e;
    }
    ASSERT_TRUE(tile != NULL);
    if (kix_test_failed)
        goto done;
    for (unsigned i = 0, k = 0; i < KIX_SMT_TILE_SLOTS; i++)
        if (bits & 0x8000u >> i)
            memcpy(recs[i], val + 2 + 65 * k++, 65);
    recs[3][1] ^= 1; /* its hash of slot 7, wrong */
    /* as kix-index/7 packed it: slots 0..2 left out, the rest kept */
    for (unsigned i = 0; i < KIX_SMT_TILE_SLOTS; i++) {
        if (!(bits & 0x8000u >> i))
            continue;
        if (recs[i][0] == 2)
            leaves |= 0x8000u >> i;
        if (recs[i][0] == 2 || i >= 3) {
            memcpy(v7 + off, recs[i] + 1, 64);
            off += 64;
        }
    }
    v7[0] = (uint8_t)(bits >> 8), v7[1] = (uint8_t)(bits | 1);
    v7[2] = (uint8_t)(leaves >> 8), v7[3] = (uint8_t)leaves;
    memcpy(tkey, tile->key, tile->klen);
    stratum = tkey[0];
    tmap_set(&t, tkey, tile->klen, v7, off);
    /* a key under slot 8: its nibble at this stratum starts 001 */
    for (size_t i = 0; i < N && under == N; i++) {
        uint8_t k[KIX_SMT_TILE_KEY_MAX];
        unsigned nib = stratum % 2 ? u[i].path.b[stratum / 2] & 15 : u[i].path.b[stratum / 2] >> 4;
        if (kix_smt_tile_key(stratum, u[i].path.b, k) == tile->klen &&
            memcmp(k, tkey, tile->klen) == 0 && nib >> 1 == 1)
            under = i;
    }
    ASSERT_TRUE(under < N);
    if (kix_test_failed)
        goto done;
    u[0].path = u[under].path;
    crypto_hash_sha256(u[0].value_hash.b, (const uint8_t *)"another value", 13);
    ASSERT_EQ_INT(KIX_OK, tapply(&t, u, 1, &root));
    ASSERT_EQ_U64(0, pack_wrong);
    tile = tmap_find(&t, tkey, tile->klen);
    ASSERT_TRUE(tile != NULL && !kix_smt_tile_packed(tile->val, tile->vlen));
done:
    tmap_release(&t);
    free(u);
}

/* Packing a caller's own buffer vouches for nothing: packed once whole,
 * then changed so that a level-2 record is not its child's hash, the same
 * buffer at the same length is checked again and kept as it is. */
KIX_TEST(tiles_pack_leaves_no_vouch_behind)
{
    uint8_t recs[KIX_SMT_TILE_SLOTS][KIX_SMT_RECORD_LEN], v[KIX_SMT_TILE_MAX];
    uint8_t packed[KIX_SMT_TILE_MAX];
    size_t len = 2 + 6 * 65, plen;

    /* slots 0, 1, 3, 4, 7, 8: leaves at 4, 7 and 8, interior above them */
    memset(recs, 0, sizeof(recs));
    for (unsigned i = 4; i <= 8; i++) {
        recs[i][0] = 2;
        memset(recs[i] + 1, (int)i, 64);
    }
    kix_smt_tile_derive(recs, 0xd980u, 0xd000u); /* slots 0, 1, 3 */
    v[0] = 0xd9, v[1] = 0x80;
    for (unsigned i = 0, k = 0; i < KIX_SMT_TILE_SLOTS; i++)
        if (0xd980u & 0x8000u >> i)
            memcpy(v + 2 + 65 * k++, recs[i], 65);
    plen = kix_smt_tile_pack(v, len, packed);
    ASSERT_TRUE(kix_smt_tile_packed(packed, plen));
    v[2 + 2 * 65 + 1] ^= 1; /* slot 3's hash of slot 7 */
    plen = kix_smt_tile_pack(v, len, packed);
    ASSERT_EQ_U64(len, plen);
    ASSERT_EQ_MEM(v, len, packed, len);
}

KIX_TEST(cost_grows_like_log)
{
    struct cost small, big;
    /* log2(1e5) / log2(1e3) = 5/3 */
    double lo = 1.2, hi = 2.5;

    measure(1000, &small);
    measure(100000, &big);
    /* absolute: about log2 n + a few, generously */
    ASSERT_TRUE(small.reads < 2 * 10 + 6 && big.reads < 2 * 17 + 6);
    ASSERT_TRUE(small.hashes < 2 * 10 + 6 && big.hashes < 2 * 17 + 6);
    ASSERT_TRUE(big.proof_bytes < 3 + 3 + 32 * (2 * 17 + 6));
    /* growth like log n, not like n (100x more keys) */
    ASSERT_TRUE(big.reads / small.reads > lo && big.reads / small.reads < hi);
    ASSERT_TRUE(big.hashes / small.hashes > lo && big.hashes / small.hashes < hi);
    ASSERT_TRUE(big.writes / small.writes > lo && big.writes / small.writes < hi);
    ASSERT_TRUE(big.proof_bytes / small.proof_bytes > lo &&
                big.proof_bytes / small.proof_bytes < hi);
    /* a batch shares the top of the tree: no more per key than one by one */
    ASSERT_TRUE(big.batch_reads <= big.reads);
}

KIX_TEST_MAIN()
