/* kix_log_check: a clean store passes; each altered record is reported
 * once, in its table, at its key, with the entry it concerns. */
#include <lmdb.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kix/encoding.h"
#include "fixture.h"
#include "harness.h"
#include "kix/entries.h"
#include "kix/index.h"

/* Publishes runs run-<from>..run-<from+n-1> in commits of `group`. */
static void publish_groups(struct fixture *f, int from, int n, int group)
{
    struct kix_prepared **items = calloc((size_t)group, sizeof(*items));
    struct kix_append_result *res = calloc((size_t)group, sizeof(*res));

    for (int i = 0; i < n; i += group) {
        int k = n - i < group ? n - i : group;
        for (int j = 0; j < k; j++) {
            char manifest[512], run[32];
            struct kix_digest d;
            struct kix_buf env = KIX_BUF_INIT;
            struct kix_bytes objs[2];
            struct kix_submission sub;
            snprintf(run, sizeof(run), "run-%d", from + i + j);
            run_manifest(manifest, sizeof(manifest), from + i + j);
            digest_of_json(manifest, &d);
            if (kix_entry_publication(f->publisher, run, &d, "2026-11-29T00:00:00Z", "test", "MIT",
                                      &env, NULL))
                abort();
            objs[0].ptr = (const uint8_t *)manifest;
            objs[0].len = strlen(manifest);
            objs[1].ptr = (const uint8_t *)workload;
            objs[1].len = strlen(workload);
            sub.envelope = kix_buf_bytes(&env);
            sub.objects = objs;
            sub.nobjects = 2;
            if (kix_log_prepare(f->log, &sub, &items[j], NULL))
                abort();
            kix_buf_release(&env);
        }
        if (kix_log_commit(f->log, items, (size_t)k, res, NULL, NULL))
            abort();
        for (int j = 0; j < k; j++) {
            if (res[j].code)
                abort();
            kix_prepared_free(items[j]);
        }
    }
    free(items);
    free(res);
}

struct collected {
    int n;
    struct kix_check_issue first, last;
};

static int collect(void *ctx, const struct kix_check_issue *is)
{
    struct collected *c = ctx;
    if (c->n++ == 0)
        c->first = *is;
    c->last = *is;
    fprintf(stderr, "issue: [%s] %s: %s\n", is->table, is->where, is->message);
    return 0;
}

static int run_check(struct fixture *f, int quick, uint64_t tail, struct collected *got,
                     struct kix_check_stats *st, struct kix_err *err)
{
    struct kix_check_opts o;
    memset(&o, 0, sizeof(o));
    memset(got, 0, sizeof(*got));
    o.quick = quick;
    o.tail = tail;
    o.issue = collect;
    o.issue_ctx = got;
    return kix_log_check(f->log, &o, st, err);
}

/* A log of 4 + 600 entries: tiles 0/0 and 0/1 full, 0/2 partial (W = 92),
 * 1/0 with width 2. */
static void setup_big(struct fixture *f)
{
    setup(f);
    publish_groups(f, 0, 600, 50);
    ASSERT_EQ_U64(604, log_size(f));
}

/* Reopens the log after an outside write to its files. */
static void reopen(struct fixture *f)
{
    kix_log_close(f->log);
    if (kix_index_open(f->dir, NULL, &f->log, NULL))
        abort();
}

static void tamper_u64(struct fixture *f, const char *table, uint64_t k, size_t off)
{
    uint8_t key[8];
    kix_u64be_put(key, k);
    tamper(f->dir, table, key, 8, off);
    reopen(f);
}

static void tamper_tile(struct fixture *f, unsigned level, uint64_t index, size_t off)
{
    uint8_t key[9];
    key[0] = (uint8_t)level;
    kix_u64be_put(key + 1, index);
    tamper(f->dir, "tiles", key, 9, off);
    reopen(f);
}

/* The offset in entry i's leaf of a character of its signature (base64)
 * that stays base64 with its lowest bit flipped (tamper's change). */
static void sig_byte(struct fixture *f, uint64_t i, size_t *out)
{
    static const char ok[] = "bcdefghijklmnopqrstuvwxyBCDEFGHIJKLMNOPQRSTUVWXY0123456789";
    struct kix_log_reader *r;
    struct kix_bytes leaf;
    size_t off = 0;

    *out = 0;
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f->log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(r, i, &leaf));
    while (off + 7 < leaf.len && memcmp(leaf.ptr + off, "\"sig\":\"", 7) != 0)
        off++;
    off += 7;
    while (off < leaf.len && !strchr(ok, leaf.ptr[off]))
        off++;
    kix_log_read_end(r);
    ASSERT_TRUE(off + 4 < leaf.len);
    *out = off;
}

KIX_TEST(clean_log_passes_full_and_quick)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};

    setup_big(&f);
    ASSERT_EQ_INT(KIX_OK, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(0, got.n);
    ASSERT_EQ_U64(604, st.size);
    ASSERT_EQ_U64(604, st.entries);
    /* entry 0, three keys, twelve groups of 50 */
    ASSERT_EQ_U64(16, st.checkpoints);
    ASSERT_EQ_U64(16, st.roots);
    /* 604 leaf hashes, 302 + 151 + 75 + 37 + 18 + 9 + 4 + 2 + 1 interior nodes */
    ASSERT_EQ_U64(604 + 599, st.nodes);
    ASSERT_EQ_U64(4, st.tiles);     /* 0/0 0/1 0/2 1/0, each read once */
    ASSERT_EQ_U64(601, st.objects); /* 600 manifests and the workload */
    ASSERT_EQ_U64(0, st.issues);

    ASSERT_EQ_INT(KIX_OK, run_check(&f, 1, 0, &got, &st, &err));
    ASSERT_EQ_U64(604, st.entries); /* the default tail (1024) covers it all */
    ASSERT_EQ_U64(1, st.checkpoints);
    ASSERT_EQ_U64(1, st.roots);
    /* a tail of 100 starts at entry 256 (504 rounded down to a tile) */
    ASSERT_EQ_INT(KIX_OK, run_check(&f, 1, 100, &got, &st, &err));
    ASSERT_EQ_U64(604 - 256, st.entries);
    ASSERT_EQ_U64(1, st.roots);
    teardown(&f);
}

KIX_TEST(altered_leaf_is_named_once)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};
    size_t off;

    setup_big(&f);
    tamper_u64(&f, "leaves", 300, 100);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("leaves", got.first.table);
    ASSERT_EQ_U64(300, got.first.index);
    ASSERT_EQ_STR("leaves u64:300", got.first.where);
    ASSERT_CONTAINS(got.first.message, "entry 300 hashes to");
    /* its statement altered: nothing but the tree says what it was */
    ASSERT_CONTAINS(got.first.message, "but the tree holds ");
    ASSERT_CONTAINS(got.first.message, "the entry was altered");
    ASSERT_CONTAINS(err.msg, "1 problem found in store");
    ASSERT_CONTAINS(err.msg, "leaves u64:300");
    /* the checkpoints after it still verify: the tree's hash was used */
    ASSERT_EQ_U64(16, st.roots);
    /* quick: inside the tail it is found, before it not */
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 100, &got, &st, &err));
    ASSERT_EQ_U64(300, got.first.index);
    ASSERT_EQ_INT(KIX_OK, run_check(&f, 1, 50, &got, &st, &err));
    teardown(&f);

    /* its signature altered, its statement not: the statement record kept
     * the leaf hash of the append, and backs the tree */
    setup_big(&f);
    sig_byte(&f, 300, &off);
    ASSERT_TRUE(off > 0);
    tamper_u64(&f, "leaves", 300, off);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("leaves u64:300", got.first.where);
    ASSERT_CONTAINS(got.first.message, "the tree and the statement index hold ");
    ASSERT_CONTAINS(got.first.message, "the entry was altered");
    teardown(&f);
}

KIX_TEST(altered_leaf_hash_in_a_tile_is_named)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};

    setup_big(&f);
    /* tile 0/1, row 0, slot 5: the leaf hash of entry 261 */
    tamper_tile(&f, 0, 1, 2 + 32 * 5 + 3);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("tiles", got.first.table);
    ASSERT_EQ_U64(261, got.first.index);
    ASSERT_EQ_STR("tiles 000000000000000001 (tile 0/1)", got.first.where);
    ASSERT_CONTAINS(got.first.message, "as the leaf hash of entry 261");
    ASSERT_CONTAINS(got.first.message, "the tile was altered");
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 0, &got, &st, &err));
    ASSERT_EQ_U64(261, got.first.index);
    teardown(&f);
}

KIX_TEST(altered_interior_node_and_header_are_named)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};

    setup_big(&f);
    /* tile 0/0 row 3 (level 3) starts after 256 + 128 + 64 hashes; slot 2
     * is node (3, 2) over entries 16..23 */
    tamper_tile(&f, 0, 0, 2 + 32 * (256 + 128 + 64 + 2) + 31);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("tiles 000000000000000000 (tile 0/0)", got.first.where);
    ASSERT_EQ_U64(16, got.first.index);
    ASSERT_CONTAINS(got.first.message, "node (level 3, index 2), but entries 16 to 23 hash to");
    teardown(&f);

    setup_big(&f);
    /* the width of tile 0/2: 92 becomes 93 */
    tamper_tile(&f, 0, 2, 1);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(2, got.n);
    /* the right edge: the latest root no longer folds from the tiles */
    ASSERT_CONTAINS(got.first.message, "cannot give the root at size 604");
    ASSERT_CONTAINS(got.first.message, "tile 0/2 is malformed");
    ASSERT_EQ_STR("tiles 000000000000000002 (tile 0/2)", got.last.where);
    ASSERT_CONTAINS(got.last.message, "tile 0/2 is malformed");
    ASSERT_CONTAINS(got.last.message, "width 93");
    ASSERT_CONTAINS(got.last.message, "it has width 92");
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 0, &got, &st, &err));
    teardown(&f);
}

KIX_TEST(altered_right_edge_fails_the_root_from_tiles)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};

    setup_big(&f);
    /* tile 1/0 row 1 (after its 2 level-8 hashes): node (9, 0) over entries
     * 0..511, the left part of the root of 604 */
    tamper_tile(&f, 1, 0, 2 + 32 * 2 + 7);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 16, &got, &st, &err));
    ASSERT_EQ_STR("tiles", got.first.table);
    ASSERT_EQ_STR("checkpoints u64:604", got.first.where);
    ASSERT_CONTAINS(got.first.message, "the latest checkpoint (size 604) signs root");
    ASSERT_CONTAINS(got.first.message, "but the stored tiles fold to");
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(2, got.n);
    ASSERT_EQ_STR("tiles 010000000000000000 (tile 1/0)", got.last.where);
    ASSERT_CONTAINS(got.last.message, "node (level 9, index 0), but entries 0 to 511");
    teardown(&f);
}

KIX_TEST(altered_object_blob_is_named)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};
    char manifest[512], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_digest d;

    setup_big(&f);
    /* blob 0 is the first manifest (run-0's), blob 1 the workload */
    tamper_u64(&f, "blobs", 0, 10);
    run_manifest(manifest, sizeof(manifest), 0);
    digest_of_json(manifest, &d);
    kix_digest_format(&d, text);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("blobs", got.first.table);
    ASSERT_EQ_STR("blobs u64:0", got.first.where);
    ASSERT_CONTAINS(got.first.message, text);
    ASSERT_CONTAINS(got.first.message,
                    "(blob 0, the subject of entry 4): the stored bytes hash to sha256:");
    ASSERT_EQ_U64(4, got.first.index);
    ASSERT_CONTAINS(got.first.message, "the object was altered");
    /* quick checks the objects the tail needs: run-0 is entry 4 */
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 0, &got, &st, &err));
    ASSERT_EQ_U64(4, got.first.index);
    ASSERT_EQ_INT(KIX_OK, run_check(&f, 1, 100, &got, &st, &err));
    teardown(&f);
}

/* A leaf's locator (layout 4) moved past the end of log.dat, where the
 * data file's mapping is only address space: reading it is a corrupt
 * store, said, not a SIGBUS (a reader that touched that page would die). */
KIX_TEST(locator_past_the_data_file_is_named_not_read)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_bytes leaf;
    char path[4200];
    struct stat sb;
    uint8_t key[8], loc[12];
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k = {8, key}, v = {12, loc};

    setup_big(&f);
    snprintf(path, sizeof(path), "%s/log.dat", f.dir);
    ASSERT_EQ_INT(0, stat(path, &sb));
    kix_u64be_put(key, 300);
    kix_u64be_put(loc, (uint64_t)sb.st_size + 8192); /* inside the first 64 MiB mapped */
    loc[8] = loc[9] = loc[10] = 0;
    loc[11] = 200;
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(0, test_env_open(f.dir, "leaves", 0, &env));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, 0, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "leaves", 0, &dbi));
    ASSERT_EQ_INT(0, mdb_put(txn, dbi, &k, &v, 0));
    ASSERT_EQ_INT(0, mdb_txn_commit(txn));
    mdb_env_close(env);
    reopen(&f);

    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_log_reader_entry(r, 300, &leaf));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(r, 299, &leaf));
    kix_log_read_end(r);
    /* named once, where it is; the tree's check goes on past it */
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("leaves u64:300", got.first.where);
    ASSERT_CONTAINS(got.first.message, "entry 300 names bytes the data file log.dat lacks");
    ASSERT_EQ_U64(16, st.roots);
    teardown(&f);
}

KIX_TEST(altered_checkpoint_is_named)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};

    setup_big(&f);
    tamper_u64(&f, "checkpoints", 304, 20);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(1, got.n);
    ASSERT_EQ_STR("checkpoints u64:304", got.first.where);
    ASSERT_EQ_U64(304, got.first.index);
    ASSERT_CONTAINS(got.first.message,
                    "the checkpoint at size 304 does not verify with the log key");
    ASSERT_EQ_U64(15, st.roots);
    teardown(&f);

    setup_big(&f);
    tamper_u64(&f, "checkpoints", 604, 20);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 1, 0, &got, &st, &err));
    ASSERT_EQ_STR("checkpoints u64:604", got.first.where);
    teardown(&f);
}

KIX_TEST(missing_and_extra_records_are_named)
{
    struct fixture f;
    struct collected got;
    struct kix_check_stats st;
    struct kix_err err = {0};
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    uint8_t k[8];
    MDB_val key = {8, k}, val = {3, "abc"};

    setup_big(&f);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(0, mdb_env_create(&env));
    ASSERT_EQ_INT(0, mdb_env_set_maxdbs(env, 32));
    ASSERT_EQ_INT(0, mdb_env_open(env, f.dir, 0, 0600));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, 0, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "leaves", 0, &dbi));
    kix_u64be_put(k, 10);
    ASSERT_EQ_INT(0, mdb_del(txn, dbi, &key, NULL));
    kix_u64be_put(k, 700);
    ASSERT_EQ_INT(0, mdb_put(txn, dbi, &key, &val, 0));
    ASSERT_EQ_INT(0, mdb_txn_commit(txn));
    mdb_env_close(env);
    reopen(&f);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, &st, &err));
    ASSERT_EQ_INT(2, got.n);
    ASSERT_EQ_STR("leaves u64:10", got.first.where);
    ASSERT_CONTAINS(got.first.message, "entry 10 is missing");
    ASSERT_EQ_STR("leaves u64:700", got.last.where);
    ASSERT_CONTAINS(got.last.message, "beyond the latest signed checkpoint (size 604)");
    teardown(&f);
}

static int stop_at_first(void *ctx, const struct kix_check_issue *is)
{
    (void)is;
    ++*(int *)ctx;
    return 1;
}

KIX_TEST(issue_limit_and_callback_stop)
{
    struct fixture f;
    struct collected got;
    struct kix_check_opts o;
    struct kix_err err = {0};
    int calls = 0;

    setup_big(&f);
    tamper_u64(&f, "leaves", 100, 100);
    tamper_u64(&f, "leaves", 200, 100);
    ASSERT_EQ_INT(KIX_ECORRUPT, run_check(&f, 0, 0, &got, NULL, &err));
    ASSERT_EQ_INT(2, got.n);
    ASSERT_CONTAINS(err.msg, "2 problems found");
    memset(&o, 0, sizeof(o));
    o.max_issues = 1;
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_log_check(f.log, &o, NULL, &err));
    ASSERT_CONTAINS(err.msg, "1 problem found");
    ASSERT_CONTAINS(err.msg, "(stopped there)");
    ASSERT_CONTAINS(err.msg, "leaves u64:100");
    o.max_issues = 0;
    o.issue = stop_at_first;
    o.issue_ctx = &calls;
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_log_check(f.log, &o, NULL, &err));
    ASSERT_EQ_INT(1, calls);
    teardown(&f);
}

KIX_TEST(empty_replica_passes)
{
    char *top = temp_dir(), dir[256];
    struct kix_signer *k = new_key("kix.test/log");
    struct kix_verifier v;
    struct kix_log_opts o;
    struct kix_log *l = NULL;
    struct kix_check_stats st;
    struct kix_err err = {0};

    memset(&o, 0, sizeof(o));
    o.replica = 1;
    snprintf(dir, sizeof(dir), "%s/r", top);
    kix_verifier_from_signer(k, &v);
    ASSERT_EQ_INT(KIX_OK, kix_index_create_replica(dir, &v, &o, &err));
    ASSERT_EQ_INT(KIX_OK, kix_index_open(dir, &o, &l, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_check(l, NULL, &st, &err));
    ASSERT_EQ_U64(0, st.size);
    kix_log_close(l);
    kix_signer_free(k);
    remove_dir(top);
}

KIX_TEST_MAIN()
