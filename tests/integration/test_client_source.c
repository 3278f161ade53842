/* kix/source.h: the client's verification does not depend on its source.
 *
 * One verification path (verify_log below: the signed checkpoint, every
 * entry's inclusion proof, a consistency proof, a run's resolution, an
 * index proof, an object by digest, a query's rows) runs over a real kixd
 * (kix_source_connect) and then over the same store opened directly
 * (kix_source_open_store) and must reach the same verified result.
 *
 * Then a source wrapping each real one changes one thing in what it
 * passes on (a checkpoint, entries, a proof, an object, an index record,
 * a resolution), as a lying server or a corrupt cache would: the real
 * bytes with one byte changed. Each must be refused with KIX_EVERIFY at
 * the step that checks it. The source interface carries no trust. */
#include "kixd_fixture.h"
#include "liger_sample.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/vindex.h"

#define RUNS     6
#define MAX_SIZE 64
#define ROWS_MAX 32

static char victim[KIX_RUN_ID_MAX + 1]; /* the run resolved and proven */

/* ---- what the client verified ---------------------------------------------- */

struct verified {
    uint64_t size;
    uint8_t root[32];
    size_t proofs, leaves_given; /* inclusion proofs checked; leaf hashes compared */
    uint64_t older_size;         /* the checkpoint proven consistent with the latest */
    int evidence;
    uint64_t rank, group_size, entries, reruns, attestations;
    struct kix_digest manifest;
    int present;
    size_t record_len, object_len;
    uint64_t matched, rows_size;
    size_t rows, groups;
};

struct leaves {
    struct kix_hash h[MAX_SIZE];
    uint64_t n;
};

static int keep_leaf(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct leaves *l = ctx;
    if (index != l->n || l->n >= MAX_SIZE)
        return KIX_EPROTO;
    kix_merkle_leaf_hash(leaf, len, &l->h[l->n++]);
    return KIX_OK;
}

struct proving {
    const struct leaves *leaves;
    struct verified *v;
    struct kix_hash root;
    struct kix_err *err;
};

static int check_inclusion(void *ctx, uint64_t index, const struct kix_hash *leaf,
                           const struct kix_hash *proof, size_t n)
{
    struct proving *p = ctx;
    int rc;

    if (index >= p->leaves->n)
        return kix_err_set(p->err, KIX_EVERIFY, "a proof for entry %llu, not fetched",
                           (unsigned long long)index);
    if (leaf) {
        if (memcmp(leaf->b, p->leaves->h[index].b, 32) != 0)
            return kix_err_set(p->err, KIX_EVERIFY, "entry %llu does not hash to its leaf",
                               (unsigned long long)index);
        p->v->leaves_given++;
    }
    rc = kix_merkle_verify_inclusion(index, p->v->size, &p->leaves->h[index], proof, n, &p->root,
                                     p->err);
    if (rc == KIX_OK)
        p->v->proofs++;
    return rc;
}

struct first_older {
    uint64_t latest;
    struct kix_buf note;
};

static int keep_older(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                      const uint8_t *index_note, size_t index_len)
{
    struct first_older *o = ctx;
    (void)index_note;
    (void)index_len;
    if (size == 0 || size >= o->latest || o->note.len)
        return KIX_OK;
    return kix_buf_add(&o->note, note, len);
}

struct rows {
    struct kix_query_row row[ROWS_MAX];
    size_t n;
};

static int keep_row(void *ctx, const struct kix_query_row *row)
{
    struct rows *r = ctx;
    if (r->n < ROWS_MAX)
        r->row[r->n++] = *row;
    return KIX_OK;
}

/* The steps of verify_log, named for where a lie was caught. */
static int checkpoint_step(struct kix_client *c, const struct kix_verifier *key, struct verified *v,
                           struct kix_hash *root, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp;
    int rc = kix_client_checkpoint(c, KIX_NO_INDEX, &note, err);

    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)note.ptr, note.len, key, 1, key->name, &opened, &cp,
                                 err);
    if (rc == KIX_OK) {
        v->size = cp.size;
        memcpy(v->root, cp.root, 32);
        memcpy(root->b, cp.root, 32);
    }
    kix_buf_release(&note);
    return rc;
}

static int consistency_step(struct kix_client *c, const struct kix_verifier *key,
                            struct verified *v, const struct kix_hash *root, struct kix_err *err)
{
    struct first_older o = {v->size, KIX_BUF_INIT};
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], older;
    struct kix_note opened;
    struct kix_checkpoint cp;
    size_t n = 0;
    int rc = kix_client_checkpoints(c, 0, 256, keep_older, &o, err);

    if (rc == KIX_OK && o.note.len == 0)
        rc = kix_err_set(err, KIX_ENOTFOUND, "no checkpoint older than the latest");
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)o.note.ptr, o.note.len, key, 1, key->name, &opened,
                                 &cp, err);
    if (rc == KIX_OK)
        rc = kix_client_consistency(c, cp.size, v->size, proof, &n, err);
    if (rc == KIX_OK) {
        memcpy(older.b, cp.root, 32);
        rc = kix_merkle_verify_consistency(cp.size, v->size, &older, root, proof, n, err);
    }
    if (rc == KIX_OK)
        v->older_size = cp.size;
    kix_buf_release(&o.note);
    return rc;
}

static int resolve_step(struct kix_client *c, const struct kix_verifier *key, struct verified *v,
                        struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_checkpoint cp;
    int rc = kix_client_resolve(c, victim, &res, err);

    if (rc == KIX_OK)
        rc = kix_resolution_verify(&res, key, &cp, err);
    if (rc == KIX_OK) {
        v->evidence = res.run.evidence;
        v->rank = res.rank.rank;
        v->group_size = res.rank.group_size;
        v->entries = res.nentries;
        v->reruns = res.run.reruns;
        v->attestations = res.run.attestations;
        v->manifest = res.run.manifest;
    }
    kix_resolution_release(&res);
    return rc;
}

static int index_step(struct kix_client *c, const struct kix_verifier *key, struct verified *v,
                      struct kix_err *err)
{
    char ikey[KIX_VINDEX_KEY_MAX + 1];
    struct kix_index_answer a;
    int rc;

    kix_vindex_key_run(victim, strlen(victim), ikey);
    rc = kix_client_index_proof(c, key, ikey, &a, err);
    if (rc == KIX_OK) {
        v->present = a.present;
        v->record_len = a.record.len;
        kix_index_answer_release(&a);
    }
    return rc;
}

static int object_step(struct kix_client *c, struct verified *v, struct kix_err *err)
{
    struct kix_buf obj = KIX_BUF_INIT;
    int rc = kix_client_get_object(c, &v->manifest, &obj, err);

    v->object_len = obj.len;
    kix_buf_release(&obj);
    return rc;
}

static int query_step(struct kix_client *c, const struct kix_verifier *key, struct verified *v,
                      struct kix_err *err)
{
    static struct rows rows;
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    struct kix_query q;
    int rc;

    memset(&q, 0, sizeof(q));
    q.limit = ROWS_MAX;
    rows.n = 0;
    rc = kix_client_query(c, &q, keep_row, &rows, &v->matched, err);
    if (rc == KIX_OK)
        rc = kix_client_query_verify(c, key, rows.row, rows.n, NULL, NULL, &proof, err);
    v->rows = rows.n;
    v->groups = proof.groups;
    v->rows_size = proof.size;
    kix_buf_release(&proof.checkpoint);
    return rc;
}

/* Everything a client checks, through whatever source c has. *step names
 * the step that failed. */
static int verify_log(struct kix_client *c, const struct kix_verifier *key, struct verified *v,
                      const char **step, struct kix_err *err)
{
    static struct leaves leaves;
    struct proving p = {&leaves, v, {{0}}, err};
    int rc;

    memset(v, 0, sizeof(*v));
    leaves.n = 0;
    *step = "checkpoint";
    rc = checkpoint_step(c, key, v, &p.root, err);
    if (rc)
        return rc;
    *step = "entries";
    rc = kix_client_entries(c, 0, v->size, keep_leaf, &leaves, NULL, err);
    if (rc == KIX_OK && leaves.n != v->size)
        rc = kix_err_set(err, KIX_EVERIFY, "%llu entries for size %llu",
                         (unsigned long long)leaves.n, (unsigned long long)v->size);
    if (rc)
        return rc;
    *step = "inclusion";
    rc = kix_client_inclusion_proofs(c, 0, v->size, v->size, check_inclusion, &p, err);
    if (rc)
        return rc;
    *step = "consistency";
    rc = consistency_step(c, key, v, &p.root, err);
    if (rc)
        return rc;
    *step = "resolve";
    rc = resolve_step(c, key, v, err);
    if (rc)
        return rc;
    *step = "index";
    rc = index_step(c, key, v, err);
    if (rc)
        return rc;
    *step = "object";
    rc = object_step(c, v, err);
    if (rc)
        return rc;
    *step = "query";
    return query_step(c, key, v, err);
}

/* ---- a source that changes one byte of what it passes on -------------------- */

enum lie {
    LIE_CHECKPOINT,
    LIE_ENTRY,
    LIE_PROOF,
    LIE_CONSISTENCY,
    LIE_RESOLVE,
    LIE_INDEX,
    LIE_OBJECT,
    LIES
};

static const char *const caught_at[LIES] = {"checkpoint", "inclusion", "inclusion", "consistency",
                                            "resolve",    "index",     "object"};

struct liar {
    struct kix_source base;
    struct kix_source *inner;
    enum lie lie;
};

static struct liar *liar_of(struct kix_source *s)
{
    return (struct liar *)s;
}

static void liar_close(struct kix_source *s)
{
    kix_source_close(liar_of(s)->inner);
    free(s);
}

static int liar_info(struct kix_source *s, struct kix_client_info *out, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    return in->ops->info(in, out, err);
}

/* Another base64 letter at the first letter of the root line. */
static int liar_checkpoint(struct kix_source *s, uint64_t size, struct kix_buf *note,
                           struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    size_t start = note->len;
    int rc = in->ops->checkpoint(in, size, note, err);

    if (rc == KIX_OK && liar_of(s)->lie == LIE_CHECKPOINT) {
        char *text = (char *)note->ptr + start, *line = memchr(text, '\n', note->len - start);
        line = line ? memchr(line + 1, '\n', note->len - start - (size_t)(line + 1 - text)) : NULL;
        if (!line)
            return KIX_EPROTO;
        line[1] = line[1] == 'A' ? 'B' : 'A';
    }
    return rc;
}

struct lying_entries {
    kix_entry_fn fn;
    void *ctx;
};

static int flip_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct lying_entries *l = ctx;
    uint8_t *copy = malloc(len ? len : 1);
    int rc;

    if (!copy)
        return KIX_ENOMEM;
    memcpy(copy, leaf, len);
    if (len)
        copy[len / 2] ^= 0x01;
    rc = l->fn(l->ctx, index, copy, len);
    free(copy);
    return rc;
}

static int liar_entries(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn,
                        void *ctx, uint64_t *got, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    struct lying_entries l = {fn, ctx};

    if (liar_of(s)->lie != LIE_ENTRY)
        return in->ops->entries(in, start, count, fn, ctx, got, err);
    return in->ops->entries(in, start, count, flip_entry, &l, got, err);
}

static int liar_inclusion(struct kix_source *s, uint64_t index, uint64_t size,
                          struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                          struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    int rc = in->ops->inclusion(in, index, size, proof, n, err);

    if (rc == KIX_OK && liar_of(s)->lie == LIE_PROOF && *n > 0)
        proof[*n - 1].b[7] ^= 0x01;
    return rc;
}

static int liar_consistency(struct kix_source *s, uint64_t size1, uint64_t size2,
                            struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                            struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    int rc = in->ops->consistency(in, size1, size2, proof, n, err);

    if (rc == KIX_OK && liar_of(s)->lie == LIE_CONSISTENCY && *n > 0)
        proof[0].b[0] ^= 0x01;
    return rc;
}

static int liar_checkpoints(struct kix_source *s, uint64_t after, size_t limit,
                            kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    return in->ops->checkpoints(in, after, limit, fn, ctx, err);
}

struct lying_objects {
    kix_object_fn fn;
    void *ctx;
};

static int flip_object(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct lying_objects *l = ctx;
    uint8_t *copy;
    int rc;

    if (!bytes || !len)
        return l->fn(l->ctx, i, bytes, len);
    copy = malloc(len);
    if (!copy)
        return KIX_ENOMEM;
    memcpy(copy, bytes, len);
    copy[len / 2] ^= 0x01;
    rc = l->fn(l->ctx, i, copy, len);
    free(copy);
    return rc;
}

static int liar_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                        kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    struct lying_objects l = {fn, ctx};

    if (liar_of(s)->lie != LIE_OBJECT)
        return in->ops->objects(in, digests, n, fn, ctx, err);
    return in->ops->objects(in, digests, n, flip_object, &l, err);
}

static int liar_index_proof(struct kix_source *s, const char *key, struct kix_index_answer *out,
                            struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    int rc = in->ops->index_proof(in, key, out, err);

    if (rc == KIX_OK && liar_of(s)->lie == LIE_INDEX) {
        struct kix_buf *b = out->record.len ? &out->record : &out->proof;
        if (!b->len)
            return KIX_EPROTO;
        b->ptr[b->len - 1] ^= 0x01;
    }
    return rc;
}

static int liar_resolve(struct kix_source *s, const char *ref, uint64_t from,
                        struct kix_resolution *out, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    int rc = in->ops->resolve(in, ref, from, out, err);

    if (rc == KIX_OK && liar_of(s)->lie == LIE_RESOLVE) {
        if (out->nentries == 0 || out->entries[0].nproof == 0)
            return KIX_EPROTO;
        out->entries[0].proof[0].b[31] ^= 0x01;
    }
    return rc;
}

static int liar_query(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
                      uint64_t *matched, struct kix_err *err)
{
    struct kix_source *in = liar_of(s)->inner;
    return in->ops->query(in, q, fn, ctx, matched, err);
}

/* No inclusion_proofs, object, receipt, submit or add_cosignature: the
 * client's fallbacks and KIX_ENOTSUP answers are exercised too. */
static const struct kix_source_ops liar_ops = {
    .close = liar_close,
    .info = liar_info,
    .checkpoint = liar_checkpoint,
    .entries = liar_entries,
    .inclusion = liar_inclusion,
    .consistency = liar_consistency,
    .checkpoints = liar_checkpoints,
    .objects = liar_objects,
    .index_proof = liar_index_proof,
    .resolve = liar_resolve,
    .query = liar_query,
};

static struct kix_client *liar_client(struct kix_source *inner, enum lie lie)
{
    struct liar *l = calloc(1, sizeof(*l));
    struct kix_client *c = NULL;

    if (!l)
        abort();
    l->base.ops = &liar_ops;
    l->inner = inner;
    l->lie = lie;
    snprintf(l->base.where, sizeof(l->base.where), "a lying copy of %.200s", inner->where);
    if (kix_client_open_source(&l->base, &c, NULL) != KIX_OK)
        abort();
    return c;
}

/* ---- the tests -------------------------------------------------------------- */

/* Submits one row through kixd; the first is the run the tests prove. */
static int submit_row(void *ctx, size_t row, const char *run_id, const struct kix_buf *envelope,
                      const struct kix_bytes *objects)
{
    struct kix_client *c = ctx;
    struct kix_bundle b = {kix_buf_bytes(envelope), objects, KIX_LIGER_NOBJECTS};
    struct kix_submit_result res = {0};
    struct kix_err err = {0};
    int rc = kix_client_submit(c, &b, 1, &res, &err);

    if (rc || res.code)
        fprintf(stderr, "publishing row %zu: %s %s\n", row, err.msg, res.message);
    if (row == 0)
        snprintf(victim, sizeof(victim), "%s", run_id);
    kix_submit_result_release(&res);
    return rc ? rc : res.code;
}

/* RUNS rows of the Liger sample, published through kixd: ranked runs in
 * comparison groups, so that queries have rows to prove. */
static void start_with_runs(struct fx *f)
{
    struct kix_client *c;

    if (fx_start(f) != 0 || !(c = fx_client(f)) ||
        liger_sample_publish(f->publisher, RUNS, submit_row, c))
        abort();
    kix_client_close(c);
}

static int verify_print(struct kix_client *c, const struct kix_verifier *key, struct verified *v)
{
    struct kix_err err = {0};
    const char *step = "";
    int rc = verify_log(c, key, v, &step, &err);

    if (rc)
        fprintf(stderr, "%s: %s: %s\n", kix_client_where(c), step, kix_err_text(&err, rc));
    return rc;
}

static void assert_same(const struct verified *a, const struct verified *b)
{
    ASSERT_TRUE(a->size >= RUNS + 2);
    ASSERT_EQ_U64(a->size, a->proofs);
    ASSERT_TRUE(a->older_size > 0);
    ASSERT_TRUE(a->present);
    ASSERT_TRUE(a->object_len > 0);
    ASSERT_TRUE(a->rank > 0);
    ASSERT_EQ_U64(RUNS, a->rows);
    ASSERT_TRUE(a->groups > 0);
    ASSERT_EQ_U64(a->size, b->size);
    ASSERT_EQ_MEM(a->root, 32, b->root, 32);
    ASSERT_EQ_U64(a->proofs, b->proofs);
    ASSERT_EQ_U64(a->older_size, b->older_size);
    ASSERT_EQ_INT(a->evidence, b->evidence);
    ASSERT_EQ_U64(a->rank, b->rank);
    ASSERT_EQ_U64(a->group_size, b->group_size);
    ASSERT_EQ_U64(a->entries, b->entries);
    ASSERT_EQ_U64(a->reruns, b->reruns);
    ASSERT_EQ_U64(a->attestations, b->attestations);
    ASSERT_EQ_MEM(a->manifest.b, 32, b->manifest.b, 32);
    ASSERT_EQ_INT(a->present, b->present);
    ASSERT_EQ_U64(a->record_len, b->record_len);
    ASSERT_EQ_U64(a->object_len, b->object_len);
    ASSERT_EQ_U64(a->matched, b->matched);
    ASSERT_EQ_U64(a->rows, b->rows);
    ASSERT_EQ_U64(a->groups, b->groups);
    ASSERT_EQ_U64(a->rows_size, b->rows_size);
}

KIX_TEST(same_verified_result_from_kixd_and_store)
{
    static struct fx f;
    struct kix_client *remote = NULL, *local = NULL;
    struct verified over_rpc, over_store;
    struct kix_err err = {0};

    start_with_runs(&f);
    remote = fx_client(&f);
    ASSERT_TRUE(remote != NULL);
    ASSERT_EQ_INT(KIX_OK, verify_print(remote, &f.log_key, &over_rpc));
    /* a kixd gives each entry's leaf hash with its proof, and they match */
    ASSERT_EQ_U64(over_rpc.size, over_rpc.leaves_given);
    kix_client_close(remote);

    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &local, &err));
    ASSERT_EQ_INT(KIX_OK, verify_print(local, &f.log_key, &over_store));
    assert_same(&over_rpc, &over_store);
    assert_same(&over_store, &over_rpc);
    /* a store takes no cosignatures: the operation is not offered */
    ASSERT_EQ_INT(KIX_ENOTSUP, kix_client_add_cosignature(local, "x", 1, "y", 1, &err));
    ASSERT_CONTAINS(err.msg, kix_client_where(local));
    kix_client_close(local);
    fx_cleanup(&f);
}

/* Each lie over a source, caught where it is checked. */
static void each_lie_is_caught(struct kix_source *(*open)(const struct fx *), const struct fx *f)
{
    for (int lie = 0; lie < LIES; lie++) {
        struct kix_client *c = liar_client(open(f), (enum lie)lie);
        struct verified v;
        struct kix_err err = {0};
        const char *step = "";
        int rc = verify_log(c, &f->log_key, &v, &step, &err);

        fprintf(stderr, "lie %d over %s: %s: %s\n", lie, kix_client_where(c), step,
                kix_err_text(&err, rc));
        ASSERT_EQ_INT(KIX_EVERIFY, rc);
        ASSERT_EQ_STR(caught_at[lie], step);
        kix_client_close(c);
    }
}

static struct kix_source *open_rpc(const struct fx *f)
{
    struct kix_source *s = NULL;
    if (kix_source_connect(f->addr, NULL, &s, NULL) != KIX_OK)
        abort();
    return s;
}

static struct kix_source *open_store(const struct fx *f)
{
    struct kix_source *s = NULL;
    if (kix_source_open_store(f->dir, &s, NULL) != KIX_OK)
        abort();
    return s;
}

KIX_TEST(a_source_changing_one_byte_is_caught)
{
    static struct fx f;
    struct kix_client *c;
    struct verified v;
    struct kix_bundle b;
    struct kix_submit_result res;
    struct kix_buf receipt = KIX_BUF_INIT;
    struct kix_err err = {0};

    start_with_runs(&f);
    /* the wrapper passing everything on unchanged verifies: the client's
     * fallbacks (one inclusion proof at a time, an object through
     * objects()) give the same result */
    c = liar_client(open_rpc(&f), LIES);
    ASSERT_EQ_INT(KIX_OK, verify_print(c, &f.log_key, &v));
    ASSERT_EQ_U64(v.size, v.proofs);
    ASSERT_EQ_U64(0, v.leaves_given);
    /* and what it leaves out is refused by name, not attempted */
    memset(&b, 0, sizeof(b));
    ASSERT_EQ_INT(KIX_ENOTSUP, kix_client_submit(c, &b, 1, &res, &err));
    ASSERT_CONTAINS(err.msg, "a lying copy of");
    ASSERT_EQ_INT(KIX_ENOTSUP, kix_client_receipt(c, 0, KIX_NO_INDEX, &receipt, &err));
    kix_client_close(c);

    each_lie_is_caught(open_rpc, &f);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    each_lie_is_caught(open_store, &f);
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
