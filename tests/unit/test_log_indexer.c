/* The log's side of struct kix_log_indexer (kix/log_txn.h), through an
 * indexer of the test's own that knows nothing of runs: the log opens the
 * tables it names and no others, hands each object's memo from prepare to
 * check and apply, and refuses a submission whose memo prepare refused.
 * And the index's tables in a store that lacks some (kixd's own indexer). */
#include <string.h>

#include "fixture.h"
#include "harness.h"
#include "kix/encoding.h"
#include "kix/log_txn.h"

enum { TOY_SEEN, TOY_SEALED, TOY_TABLES };

static const struct kix_log_table_spec toy_tables[TOY_TABLES] = {
    [TOY_SEEN] = {"toy_seen", 0},
    [TOY_SEALED] = {"toy_sealed", KIX_LOG_TABLE_SEALED},
};

/* What the toy's prepare keeps of an object. */
struct toy_memo {
    uint64_t canon_len;
    int parsed;
    int sent_canonical;
};

/* what the callbacks saw (one process a case: the harness forks) */
static struct {
    int memos_checked, memos_applied, memo_mismatch, applied;
    struct toy_memo last;
    int unnamed_put;
    int refuse;   /* prepare refuses every object */
    int careless; /* apply also writes a large cache value and ignores how that went */
    /* the transaction's memo (kix_log_txn_memo) as each apply found it,
     * before adding 1 to it; clear: the next apply sets it, clears a
     * table and reads it again (after_clear) */
    unsigned memos[8], after_clear;
    int nmemos, clear;
} seen;

static int toy_prepare(const struct kix_log_object *o, void *memo, struct kix_err *err)
{
    struct toy_memo m = {o->canon.len, o->tree != NULL, o->sent_canonical};

    if (seen.refuse)
        return kix_err_set(err, KIX_EINVAL, "the toy refuses this object");
    memcpy(memo, &m, sizeof(m));
    return KIX_OK;
}

/* The subject's memo, when sent, describes the subject's stored bytes. */
static int subject_memo(struct kix_log_txn *t, const struct kix_log_item *item,
                        struct toy_memo *out)
{
    const void *memo = kix_log_item_memo(item, &item->entry->subject);
    struct kix_bytes b;

    if (!memo)
        return 0;
    memcpy(out, memo, sizeof(*out));
    if (kix_log_item_object(t, item, &item->entry->subject, &b) != KIX_OK ||
        b.len != out->canon_len)
        seen.memo_mismatch++;
    return 1;
}

static int toy_check(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err)
{
    (void)err;
    if (subject_memo(t, item, &seen.last))
        seen.memos_checked++;
    return KIX_OK;
}

static int toy_apply(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err)
{
    struct toy_memo m;
    uint8_t k[8];
    uint64_t len = 0;

    if (subject_memo(t, item, &m)) {
        seen.memos_applied++;
        len = m.canon_len;
    }
    if (seen.nmemos < 8)
        seen.memos[seen.nmemos++] = kix_log_txn_memo(t);
    kix_log_txn_set_memo(t, kix_log_txn_memo(t) + 1);
    if (seen.clear) {
        int rc;
        seen.clear = 0;
        kix_log_txn_set_memo(t, 7);
        rc = kix_log_txn_clear(t, TOY_SEALED, err);
        if (rc)
            return rc;
        seen.after_clear = kix_log_txn_memo(t);
    }
    if (seen.applied++ == 0)
        seen.unnamed_put = kix_log_txn_put(t, TOY_TABLES, "x", 1, "y", 1, NULL);
    kix_u64be_put(k, item->index);
    if (seen.careless) {
        /* as a cache write may: its code dropped, the next read's returned
         * (after a failed put LMDB fails the rest of the transaction) */
        static uint8_t big[48 << 10];
        struct kix_bytes v;
        int rc;
        memset(big, (int)item->index, sizeof(big));
        rc = kix_log_txn_put(t, TOY_SEALED, k, 8, big, sizeof(big), NULL);
        (void)rc;
        rc = kix_log_txn_get(t, TOY_SEALED, k, 8, &v);
        if (rc)
            return kix_err_set(err, rc, "reading back the cache");
    }
    return kix_log_txn_put(t, TOY_SEEN, k, 8, &len, sizeof(len), err);
}

static const struct kix_log_indexer toy = {
    .name = "toy/1",
    .tables = toy_tables,
    .ntables = TOY_TABLES,
    .prepare = toy_prepare,
    .check = toy_check,
    .apply = toy_apply,
};

static void toy_setup(struct fixture *f)
{
    struct kix_log_opts opts;
    struct kix_buf vkey = KIX_BUF_INIT;

    setup_keys(f);
    memset(&opts, 0, sizeof(opts));
    memset(&seen, 0, sizeof(seen));
    opts.indexer = &toy;
    if (kix_log_create(f->dir, ORIGIN, kix_signer_public_key(f->admin), &opts, &vkey, NULL) ||
        kix_log_open(f->dir, &opts, &f->log, NULL) ||
        add_key(f, f->admin, f->publisher, KIX_ROLE_PUBLISH, 0))
        abort();
    kix_buf_release(&vkey);
}

static int toy_open(struct fixture *f, int read_only, struct kix_err *err)
{
    struct kix_log_opts opts;

    memset(&opts, 0, sizeof(opts));
    opts.indexer = &toy;
    opts.store.read_only = read_only;
    kix_log_close(f->log);
    f->log = NULL;
    return kix_log_open(f->dir, &opts, &f->log, err);
}

/* Whether the closed store holds a table of that name; drop: delete it. */
static int store_table(const char *dir, const char *name, int drop)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    int rc;

    if (test_env_open(dir, name, 0, &env) || mdb_txn_begin(env, NULL, 0, &txn))
        abort();
    rc = mdb_dbi_open(txn, name, 0, &dbi);
    if (rc == 0 && drop && mdb_drop(txn, dbi, 1))
        abort();
    if (mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    return rc == 0;
}

/* The log opens the tables the indexer names, under those names, and no
 * other: a log that knows no runs makes no table for them. */
KIX_TEST(the_log_keeps_the_tables_its_indexer_names)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_bytes v;
    uint8_t k[8];

    toy_setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "r-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    for (uint64_t i = 0; i < 3; i++) {
        kix_u64be_put(k, i);
        ASSERT_EQ_INT(KIX_OK, kix_log_txn_get(kix_log_reader_txn(r), TOY_SEEN, k, 8, &v));
        ASSERT_EQ_U64(sizeof(uint64_t), v.len);
    }
    /* a table no indexer named reads as empty, and takes no writes */
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_txn_get(kix_log_reader_txn(r), TOY_TABLES, k, 8, &v));
    kix_log_read_end(r);
    ASSERT_EQ_INT(KIX_EINVAL, seen.unnamed_put);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "toy_seen", 0));
    ASSERT_TRUE(store_table(f.dir, "toy_sealed", 0));
    ASSERT_TRUE(!store_table(f.dir, "runs", 0));
    ASSERT_TRUE(!store_table(f.dir, "groups", 0));
    teardown(&f);
}

/* What prepare read of the subject reaches check and apply, for an object
 * sent canonical and for one prepare canonicalized; none for a key entry. */
KIX_TEST(the_memo_prepare_wrote_reaches_check_and_apply)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    char manifest[512], spaced[520];
    const char *objects[2];

    toy_setup(&f);
    ASSERT_EQ_INT(0, seen.memos_checked); /* the key entry carried no object */
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "r-1", 1, &res, &err));
    ASSERT_EQ_INT(1, seen.memos_checked);
    ASSERT_EQ_INT(1, seen.memos_applied);
    ASSERT_EQ_INT(1, seen.last.sent_canonical);
    ASSERT_EQ_INT(1, seen.last.parsed); /* a record: prepare parsed it for its schema */
    /* the same kind of manifest, not canonical: canonicalized by prepare */
    run_manifest(manifest, sizeof(manifest), 2);
    snprintf(spaced, sizeof(spaced), " %s", manifest);
    digest_of_json(manifest, &d);
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.publisher, "r-2", &d, "2026-11-29T00:00:00Z",
                                                "test", "BSD-2-Clause", &env, &err));
    objects[0] = spaced;
    objects[1] = workload;
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objects, 2, &res, &err));
    ASSERT_EQ_INT(2, seen.memos_checked);
    ASSERT_EQ_INT(0, seen.last.sent_canonical);
    ASSERT_EQ_INT(1, seen.last.parsed);
    ASSERT_EQ_U64(strlen(manifest), seen.last.canon_len);
    ASSERT_EQ_INT(0, seen.memo_mismatch);
    kix_buf_release(&env);
    teardown(&f);
}

/* A "map full" grows the map and the append is retried even when the
 * layer above drops the write's code and returns another: LMDB fails the
 * whole transaction after a failed put, so what the indexer returns is not
 * what tells the log the map was full. */
KIX_TEST(a_full_map_grows_even_when_the_indexer_drops_the_code)
{
    struct fixture f;
    struct kix_log_opts opts;
    struct kix_buf vkey = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_bytes v;
    char run_id[16];
    uint8_t k[8];

    setup_keys(&f);
    memset(&opts, 0, sizeof(opts));
    memset(&seen, 0, sizeof(seen));
    opts.indexer = &toy;
    opts.store.map_initial = 1 << 20; /* room for about 20 of the toy's values */
    ASSERT_EQ_INT(
        KIX_OK, kix_log_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), &opts, &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f.dir, &opts, &f.log, &err));
    ASSERT_EQ_INT(0, add_key(&f, f.admin, f.publisher, KIX_ROLE_PUBLISH, 0));
    seen.careless = 1;
    for (int i = 0; i < 80; i++) {
        snprintf(run_id, sizeof(run_id), "r-%d", i);
        int rc = publish(&f, f.publisher, run_id, i, &res, &err);
        if (rc != KIX_OK)
            fprintf(stderr, "publication %d: %s\n", i, err.msg);
        ASSERT_EQ_INT(KIX_OK, rc);
    }
    ASSERT_TRUE(kix_store_map_size(kix_log_store(f.log)) > (size_t)(4 << 20));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    kix_u64be_put(k, 81); /* the last publication's index (after the two key entries) */
    ASSERT_EQ_INT(KIX_OK, kix_log_txn_get(kix_log_reader_txn(r), TOY_SEALED, k, 8, &v));
    ASSERT_EQ_U64(48 << 10, v.len);
    kix_log_read_end(r);
    kix_buf_release(&vkey);
    teardown(&f);
}

/* An error from the indexer's prepare refuses the submission. */
KIX_TEST(a_prepare_error_refuses_the_submission)
{
    struct fixture f;
    struct kix_submission sub;
    struct kix_prepared *p = NULL;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_bytes obj;
    struct kix_digest d;
    char manifest[512];

    toy_setup(&f);
    seen.refuse = 1;
    run_manifest(manifest, sizeof(manifest), 1);
    digest_of_json(manifest, &d);
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.publisher, "r-1", &d, "2026-11-29T00:00:00Z",
                                                "test", "BSD-2-Clause", &env, &err));
    obj.ptr = (const uint8_t *)manifest;
    obj.len = strlen(manifest);
    sub.envelope = kix_buf_bytes(&env);
    sub.objects = &obj;
    sub.nobjects = 1;
    ASSERT_EQ_INT(KIX_EINVAL, kix_log_prepare(f.log, &sub, &p, &err));
    ASSERT_CONTAINS(err.msg, "the toy refuses this object");
    ASSERT_TRUE(p == NULL);
    kix_buf_release(&env);
    teardown(&f);
}

/* Opened read-only, a store without a sealed table reads it as empty; one
 * without any other of its indexer's tables is damaged. A writable open
 * makes them. */
KIX_TEST(a_missing_table_is_empty_only_when_sealed)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_bytes v;

    toy_setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "r-1", 1, &res, &err));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "toy_sealed", 1));
    ASSERT_EQ_INT(KIX_OK, toy_open(&f, 1, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_txn_get(kix_log_reader_txn(r), TOY_SEALED, "k", 1, &v));
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "toy_seen", 1));
    ASSERT_EQ_INT(KIX_ECORRUPT, toy_open(&f, 1, &err));
    ASSERT_CONTAINS(err.msg, "table toy_seen is missing");
    ASSERT_EQ_INT(KIX_OK, toy_open(&f, 0, &err));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "toy_seen", 0));
    ASSERT_TRUE(store_table(f.dir, "toy_sealed", 0));
    teardown(&f);
}

/* kixd's index in a store made before the verifiable index (no smt, no
 * index notes): read-only, its runs read and it has no index note; a
 * store that lost its groups table is damaged. */
KIX_TEST(an_index_store_without_its_tree_opens_read_only)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_opts ro;
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_bytes note;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "smt", 1));
    ASSERT_TRUE(store_table(f.dir, "index_notes", 1));
    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_index_note(r, KIX_NO_INDEX, &note));
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(store_table(f.dir, "groups", 1));
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_CONTAINS(err.msg, "table groups is missing");
    teardown(&f);
}

/* What the layer above notes in the transaction's memo (kix_log_txn_memo)
 * lasts the transaction: from one entry's apply to the next in a batch,
 * not into the next write, and not past a table's clearing; a reader's
 * snapshot has its own. */
KIX_TEST(the_memo_lasts_one_transaction)
{
    struct fixture f;
    struct kix_append_result res[2];
    struct kix_err err = {0};
    struct kix_prepared *items[2];
    struct kix_signer *keys[2];
    struct kix_log_reader *r, *r2;

    toy_setup(&f);
    keys[0] = f.attester;
    keys[1] = f.rerunner;
    seen.nmemos = 0;
    for (int i = 0; i < 2; i++) {
        struct kix_buf env = KIX_BUF_INIT;
        struct kix_submission sub = {{NULL, 0}, NULL, 0};
        ASSERT_EQ_INT(KIX_OK, kix_entry_key(f.admin, 0, kix_signer_public_key(keys[i]),
                                            KIX_ROLE_ATTEST, &env, &err));
        sub.envelope = kix_buf_bytes(&env);
        ASSERT_EQ_INT(KIX_OK, kix_log_prepare(f.log, &sub, &items[i], &err));
        kix_buf_release(&env);
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_commit(f.log, items, 2, res, NULL, &err));
    kix_prepared_free(items[0]);
    kix_prepared_free(items[1]);
    ASSERT_EQ_INT(KIX_OK, res[0].code);
    ASSERT_EQ_INT(KIX_OK, res[1].code);
    ASSERT_EQ_INT(2, seen.nmemos);
    ASSERT_EQ_U64(0, seen.memos[0]); /* a write begins with none */
    ASSERT_EQ_U64(1, seen.memos[1]); /* the batch's first apply's */
    seen.clear = 1;
    ASSERT_EQ_INT(0, add_key(&f, f.admin, f.stranger, KIX_ROLE_PUBLISH, 0));
    ASSERT_EQ_INT(3, seen.nmemos);
    ASSERT_EQ_U64(0, seen.memos[2]); /* not the last write's */
    ASSERT_EQ_U64(0, seen.after_clear);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r2));
    ASSERT_EQ_U64(0, kix_log_txn_memo(kix_log_reader_txn(r)));
    kix_log_txn_set_memo(kix_log_reader_txn(r), 9);
    ASSERT_EQ_U64(9, kix_log_txn_memo(kix_log_reader_txn(r)));
    ASSERT_EQ_U64(0, kix_log_txn_memo(kix_log_reader_txn(r2)));
    kix_log_read_end(r2);
    kix_log_read_end(r);
    teardown(&f);
}

KIX_TEST_MAIN()
