/* kix_client_query_verify: a query's rows proven against objects and the
 * signed index. A real log of Liger rows; the server's rows are then edited
 * as a lying server would send them (rank, group size, value, words,
 * manifest, group), and each edit must be refused with the run named. */
#include "fixture.h"
#include "kix/client.h"
#include "kix/encoding.h"
#include "kix/selection.h"
#include "kix/smt.h"
#include "liger_sample.h"

#define ROWS 40

/* Commits one row to the fixture's log. */
static int commit_row(void *ctx, size_t row, const char *run_id, const struct kix_buf *envelope,
                      const struct kix_bytes *objects)
{
    struct fixture *f = ctx;
    struct kix_submission sub = {kix_buf_bytes(envelope), objects, KIX_LIGER_NOBJECTS};
    struct kix_prepared *p = NULL;
    struct kix_append_result res;
    struct kix_err err = {0};

    (void)run_id;
    if (kix_log_prepare(f->log, &sub, &p, &err) ||
        kix_log_commit(f->log, &p, 1, &res, NULL, &err) || res.code) {
        fprintf(stderr, "publishing row %zu: %s %s\n", row, err.msg, res.message);
        abort();
    }
    kix_prepared_free(p);
    return 0;
}

static void publish_liger_rows(struct fixture *f, size_t n)
{
    if (liger_sample_publish(f->publisher, n, commit_row, f))
        abort();
}

struct rows {
    struct kix_query_row row[ROWS];
    size_t n;
};

static int keep(void *ctx, const struct kix_query_row *row)
{
    struct rows *r = ctx;
    if (r->n < ROWS)
        r->row[r->n++] = *row;
    return 0;
}

/* The first two rows of one group, best first. */
static void two_of_a_group(const struct rows *r, size_t *a, size_t *b)
{
    for (size_t i = 0; i + 1 < r->n; i++)
        if (memcmp(r->row[i].group.b, r->row[i + 1].group.b, 32) == 0 && r->row[i].rank == 1) {
            *a = i;
            *b = i + 1;
            return;
        }
    abort();
}

static int verify(struct kix_client *c, const struct fixture *f, struct rows *r,
                  struct kix_err *err)
{
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    int rc = kix_client_query_verify(c, &f->vkey, r->row, r->n, NULL, NULL, &proof, err);
    kix_buf_release(&proof.checkpoint);
    return rc;
}

/* A read-only cursor on a table of the closed store at dir; closed by
 * table_cursor_close. */
static MDB_cursor *table_cursor(const char *dir, const char *table, MDB_env **env)
{
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;

    if (test_env_open(dir, table, MDB_RDONLY, env) || mdb_txn_begin(*env, NULL, MDB_RDONLY, &txn) ||
        mdb_dbi_open(txn, table, 0, &dbi) || mdb_cursor_open(txn, dbi, &cur))
        abort();
    return cur;
}

static void table_cursor_close(MDB_cursor *cur, MDB_env *env)
{
    MDB_txn *txn = mdb_cursor_txn(cur);

    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    mdb_env_close(env);
}

/* ---- an index.mdb of kix-index/6 (main before the packed layout) ---------- */

/* A run record as kix-index/6 stored it: fixed, 202 bytes. */
static void fixed_run_record(const struct kix_run_info *r, uint8_t out[202])
{
    uint8_t *p = out + 64;

    memcpy(out, r->manifest.b, 32);
    memcpy(out + 32, r->publisher, 32);
    kix_u64be_put(p, r->publication_index);
    kix_u64be_put(p + 8, r->superseded_by_index);
    kix_u64be_put(p + 16, r->supersedes_index);
    kix_u64be_put(p + 24, r->evidence_index);
    kix_u64be_put(p + 32, r->attestations);
    kix_u64be_put(p + 40, r->reruns);
    kix_u64be_put(p + 48, r->entries);
    p[56] = (uint8_t)r->evidence;
    memcpy(p + 57, r->comparison_key.b, 32);
    kix_u64be_put(p + 89, r->value);
    p[97] = (uint8_t)r->grouped;
    memcpy(p + 98, r->entries_chain.b, 32);
    kix_u64be_put(p + 130, r->withdrawn_index);
}

/* The same run as kix-index/7 and /8 stored it: manifest ‖ publisher ‖
 * flags ‖ evidence ‖ nine uvarints ‖ [comparison key] ‖ entries chain. */
static size_t variable_run_record(const struct kix_run_info *r, uint8_t out[256])
{
    static const uint8_t zero[32];
    const uint64_t x[9] = {r->publication_index,
                           r->superseded_by_index + 1,
                           r->supersedes_index + 1,
                           r->withdrawn_index + 1,
                           r->evidence_index + 1,
                           r->attestations,
                           r->reruns,
                           r->entries,
                           r->value};
    int keyed = memcmp(r->comparison_key.b, zero, 32) != 0;
    size_t n = 66;

    memcpy(out, r->manifest.b, 32);
    memcpy(out + 32, r->publisher, 32);
    out[64] = (uint8_t)((r->grouped ? 1 : 0) | (keyed ? 2 : 0));
    out[65] = (uint8_t)r->evidence;
    for (int i = 0; i < 9; i++)
        n += kix_uvarint_put(out + n, x[i]);
    if (keyed) {
        memcpy(out + n, r->comparison_key.b, 32);
        n += 32;
    }
    memcpy(out + n, r->entries_chain.b, 32);
    n += 32;
    if (n == 162 || n == 194 || n == 202)
        out[n++] = 0;
    return n;
}

static void put_or_abort(MDB_txn *txn, MDB_dbi dbi, const void *k, size_t kl, const void *v,
                         size_t vl)
{
    MDB_val key = {kl, (void *)k}, val = {vl, (void *)v};
    if (mdb_put(txn, dbi, &key, &val, 0))
        abort();
}

/* Rewrites the closed store's index.mdb as kix-index/6 laid it out: tiles
 * whole, run records fixed (no numbers), selection items under 'i' ‖ list key ‖ 0 ‖
 * position; the runs given (with the records a reader gave) are rewritten. */
static void as_kix_index_6(const char *dir, const struct kix_run_info *runs, size_t nruns)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi smt, rdb, sel, meta;
    MDB_cursor *cur;
    MDB_val k, v, name = {5, (void *)"index"}, six = {11, (void *)"kix-index/6"};
    struct kix_buf names = KIX_BUF_INIT, moved = KIX_BUF_INIT;
    int mrc;

    if (test_env_open(dir, "smt", 0, &env) || mdb_txn_begin(env, NULL, 0, &txn) ||
        mdb_dbi_open(txn, "smt", 0, &smt) || mdb_dbi_open(txn, "runs", 0, &rdb) ||
        mdb_dbi_open(txn, "selections", 0, &sel) || mdb_cursor_open(txn, smt, &cur))
        abort();
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint8_t tile[KIX_SMT_TILE_MAX];
        size_t tlen;
        MDB_val whole = {0, tile};
        if (kix_smt_tile_unpack(v.mv_data, v.mv_size, tile, &tlen))
            abort();
        whole.mv_size = tlen;
        if (mdb_cursor_put(cur, &k, &whole, MDB_CURRENT))
            abort();
    }
    mdb_cursor_close(cur);
    for (size_t i = 0; i < nruns; i++) {
        uint8_t rec[256];
        size_t n = 202;
        /* the second as kix-index/7 and /8 stored it */
        if (i == 1)
            n = variable_run_record(&runs[i], rec);
        else
            fixed_run_record(&runs[i], rec);
        put_or_abort(txn, rdb, runs[i].run_id, strlen(runs[i].run_id), rec, n);
    }
    /* no numbers under 0 (kix-index/9's: publisher keys, groups) */
    if (mdb_cursor_open(txn, rdb, &cur))
        abort();
    while (mdb_cursor_get(cur, &k, &v, MDB_FIRST) == 0 && ((const uint8_t *)k.mv_data)[0] == 0)
        if (mdb_cursor_del(cur, 0))
            abort();
    mdb_cursor_close(cur);
    /* each list's number and key; the items by number, then moved */
    if (mdb_cursor_open(txn, sel, &cur))
        abort();
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        const uint8_t *kp = k.mv_data;
        uint8_t len = (uint8_t)(k.mv_size - 1), vlen = (uint8_t)v.mv_size;
        if (kp[0] == 'n' && (v.mv_size != 4 || kix_buf_add(&names, v.mv_data, 4) ||
                             kix_buf_add(&names, &len, 1) || kix_buf_add(&names, kp + 1, len)))
            abort();
        if (kp[0] == 'i' && (k.mv_size != 13 || v.mv_size > 255 || kix_buf_add(&moved, kp, 13) ||
                             kix_buf_add(&moved, &vlen, 1) || kix_buf_add(&moved, v.mv_data, vlen)))
            abort();
    }
    mdb_cursor_close(cur);
    for (size_t at = 0; at < moved.len; at += 14 + moved.ptr[at + 13]) {
        uint8_t old[1 + 255 + 1 + 8] = {'i'};
        MDB_val item = {13, moved.ptr + at};
        size_t n = 0, klen = 0;
        for (; n < names.len; n += 5 + names.ptr[n + 4])
            if (memcmp(names.ptr + n, moved.ptr + at + 1, 4) == 0)
                break;
        if (n == names.len || mdb_del(txn, sel, &item, NULL))
            abort();
        klen = names.ptr[n + 4];
        memcpy(old + 1, names.ptr + n + 5, klen);
        memcpy(old + 2 + klen, moved.ptr + at + 5, 8);
        put_or_abort(txn, sel, old, 2 + klen + 8, moved.ptr + at + 14, moved.ptr[at + 13]);
    }
    for (size_t n = 0; n < names.len; n += 5 + names.ptr[n + 4]) {
        uint8_t nk[1 + 255] = {'n'};
        MDB_val key = {1 + names.ptr[n + 4], nk};
        memcpy(nk + 1, names.ptr + n + 5, names.ptr[n + 4]);
        if (mdb_del(txn, sel, &key, NULL))
            abort();
    }
    k.mv_size = 1;
    k.mv_data = (void *)"c";
    if (mdb_del(txn, sel, &k, NULL))
        abort();
    if (mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    if (test_env_open(dir, "meta", 0, &env) || mdb_txn_begin(env, NULL, 0, &txn) ||
        mdb_dbi_open(txn, "meta", 0, &meta) || mdb_put(txn, meta, &name, &six, 0) ||
        mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    kix_buf_release(&names);
    kix_buf_release(&moved);
}

KIX_TEST(index_of_kix_index_6_is_rebuilt_compact)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_log_opts ro;
    struct kix_bytes b;
    struct kix_buf note = KIX_BUF_INIT;
    static struct kix_run_info runs[ROWS], back;
    char id[KIX_RUN_ID_MAX + 1];
    size_t nruns = 0, isel = 0, named = 0, fixed = 0;
    MDB_env *env;
    MDB_cursor *cur;
    MDB_val k, v;
    int mrc;

    setup(&f);
    publish_liger_rows(&f, ROWS);
    kix_log_close(f.log);
    f.log = NULL;
    /* the runs' ids (records, not their entry records: no 0 byte) */
    cur = table_cursor(f.dir, "runs", &env);
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0 && nruns < ROWS;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        if (!memchr(k.mv_data, 0, k.mv_size) && k.mv_size < sizeof(runs[0].run_id)) {
            memcpy(runs[nruns].run_id, k.mv_data, k.mv_size);
            runs[nruns++].run_id[k.mv_size] = '\0';
        }
    table_cursor_close(cur, env);
    ASSERT_TRUE(nruns > 0);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_index_note(r, KIX_NO_INDEX, &b));
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&note, b.ptr, b.len));
    for (size_t i = 0; i < nruns; i++) {
        memcpy(id, runs[i].run_id, sizeof(id));
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, id, strlen(id), &runs[i]));
    }
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    as_kix_index_6(f.dir, runs, nruns);
    /* read-only: the fixed and the variable run records read as they were
     * written (no numbers: not kix-index/9's layout) */
    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    ASSERT_TRUE(nruns > 1);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    for (size_t i = 0; i < 2; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, runs[i].run_id, strlen(runs[i].run_id), &back));
        ASSERT_EQ_MEM(&runs[i], sizeof(back), &back, sizeof(back));
    }
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    /* writable: rebuilt, the same signed notes, the compact layout */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_index_note(r, KIX_NO_INDEX, &b));
    ASSERT_EQ_MEM(note.ptr, note.len, b.ptr, b.len);
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    cur = table_cursor(f.dir, "selections", &env);
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        isel += k.mv_size > 4 && memcmp(k.mv_data, "isel", 4) == 0;
        named += ((const char *)k.mv_data)[0] == 'n';
    }
    table_cursor_close(cur, env);
    cur = table_cursor(f.dir, "runs", &env);
    for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        /* a run record (no 0 in its key) of an older layout: 107 bytes at least */
        fixed += !memchr(k.mv_data, 0, k.mv_size) && v.mv_size >= 66 + 9 + 32;
    table_cursor_close(cur, env);
    ASSERT_EQ_U64(0, isel);
    ASSERT_TRUE(named > 0);
    ASSERT_EQ_U64(0, fixed);
    kix_buf_release(&note);
    teardown(&f);
}

KIX_TEST(query_rows_are_proven_and_lies_refused)
{
    struct fixture f;
    struct kix_client *c = NULL;
    struct kix_query q;
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    struct kix_err err = {0};
    static struct rows honest, r;
    uint64_t matched = 0;
    size_t a = 0, b = 0;

    setup(&f);
    publish_liger_rows(&f, ROWS);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &c, &err));
    memset(&q, 0, sizeof(q));
    q.limit = ROWS;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep, &honest, &matched, &err));
    ASSERT_TRUE(honest.n >= 2);
    two_of_a_group(&honest, &a, &b);

    /* the honest page is proven: every group, at the log's size */
    ASSERT_EQ_INT(KIX_OK, kix_client_query_verify(c, &f.vkey, honest.row, honest.n, NULL, NULL,
                                                  &proof, &err));
    ASSERT_TRUE(proof.groups >= 1);
    ASSERT_EQ_U64(4 + ROWS, proof.size); /* entry 0, three keys, then the rows */
    ASSERT_TRUE(proof.checkpoint.len > 0);
    kix_buf_release(&proof.checkpoint);

    /* two runs of a group with their ranks swapped */
    r = honest;
    r.row[a].rank = 2;
    r.row[b].rank = 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "are not the log's signed index");
    /* a group said to be larger */
    r = honest;
    r.row[a].group_size++;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, r.row[a].run_id);
    /* the second run said to be the first, with the first's value */
    r = honest;
    snprintf(r.row[a].run_id, sizeof(r.row[a].run_id), "%s", honest.row[b].run_id);
    r.row[a].manifest = honest.row[b].manifest;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* a better median than the manifest's */
    r = honest;
    r.row[b].value /= 2;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "its manifest puts it in group");
    /* another kernel or GPU than the objects say */
    r = honest;
    snprintf(r.row[b].gpu, sizeof(r.row[b].gpu), "NVIDIA H100");
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "its objects say");
    /* the manifests of the two runs swapped */
    r = honest;
    r.row[a].manifest = honest.row[b].manifest;
    r.row[b].manifest = honest.row[a].manifest;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* a manifest the server does not hold */
    r = honest;
    r.row[a].manifest.b[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "which it does not hold");
    /* a group that does not exist, with the manifest's other fields */
    r = honest;
    r.row[a].group.b[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* and the honest page still verifies */
    ASSERT_EQ_INT(KIX_OK, verify(c, &f, &honest, &err));
    kix_client_close(c);
    teardown(&f);
}

/* The first row of the largest group of the page, and its size. */
static size_t largest_group(const struct rows *r, uint64_t *size)
{
    size_t best = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->row[i].group_size > r->row[best].group_size)
            best = i;
    *size = r->row[best].group_size;
    return best;
}

static int page_verify(struct kix_client *c, const struct fixture *f, const struct kix_digest *g,
                       uint64_t offset, uint64_t limit, const struct rows *r, uint64_t matched,
                       struct kix_err *err)
{
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    int rc = kix_client_group_page_verify(c, &f->vkey, g, offset, limit, r->row, r->n, matched,
                                          &proof, err);
    kix_buf_release(&proof.checkpoint);
    return rc;
}

static void drop_row(struct rows *r, size_t i)
{
    memmove(&r->row[i], &r->row[i + 1], (r->n - i - 1) * sizeof(r->row[0]));
    r->n--;
}

/* A server answering a group's page: every row must be the record's member
 * at its place, the page the one asked for, the count the record's. */
KIX_TEST(group_page_is_exactly_the_records)
{
    struct fixture f;
    struct kix_client *c = NULL;
    struct kix_query q;
    struct kix_err err = {0};
    static struct rows all, honest, r, second;
    struct kix_digest g, other;
    uint64_t matched = 0, size = 0, m = 0;
    size_t first;

    setup(&f);
    publish_liger_rows(&f, ROWS);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &c, &err));
    memset(&q, 0, sizeof(q));
    q.limit = ROWS;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep, &all, &matched, &err));
    first = largest_group(&all, &size);
    ASSERT_TRUE(size >= 2); /* the Liger sample ranks two providers per group */
    g = all.row[first].group;
    other = g;
    for (size_t i = 0; i < all.n; i++)
        if (memcmp(all.row[i].group.b, g.b, 32) != 0)
            other = all.row[i].group;
    q.group = &g;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep, &honest, &matched, &err));
    ASSERT_EQ_U64(size, matched);
    ASSERT_EQ_U64(size, honest.n);
    ASSERT_TRUE(honest.n < ROWS && memcmp(other.b, g.b, 32) != 0);

    /* the honest page verifies, its rows and its selection */
    ASSERT_EQ_INT(KIX_OK, verify(c, &f, &honest, &err));
    ASSERT_EQ_INT(KIX_OK, page_verify(c, &f, &g, 0, ROWS, &honest, matched, &err));
    /* the best run dropped; a later one dropped */
    r = honest;
    drop_row(&r, 0);
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
    ASSERT_CONTAINS(err.msg, "has another run");
    r = honest;
    drop_row(&r, 1);
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
    /* ... and the count lowered to match */
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched - 1, &err));
    /* a row twice: added, or in place of another */
    r = honest;
    r.row[r.n++] = honest.row[0];
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
    r = honest;
    r.row[1] = honest.row[0];
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
    /* the rows reversed */
    r = honest;
    for (size_t i = 0; i < r.n; i++)
        r.row[i] = honest.row[r.n - 1 - i];
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
    /* another group's row mixed in, in place or added */
    for (size_t i = 0; i < all.n; i++)
        if (memcmp(all.row[i].group.b, other.b, 32) == 0 && all.row[i].rank == 1) {
            r = honest;
            r.row[r.n - 1] = all.row[i];
            ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
            r = honest;
            r.row[r.n++] = all.row[i];
            ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &r, matched, &err));
        }
    /* the first page again when the second was asked for */
    r = honest;
    r.n = 1;
    ASSERT_EQ_INT(KIX_OK, page_verify(c, &f, &g, 0, 1, &r, matched, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 1, 1, &r, matched, &err));
    ASSERT_CONTAINS(err.msg, "has another run");
    q.offset = 1;
    q.limit = 1;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep, &second, &m, &err));
    ASSERT_EQ_INT(KIX_OK, page_verify(c, &f, &g, 1, 1, &second, m, &err));
    /* a page past the end holds nothing, and says nothing */
    r.n = 0;
    ASSERT_EQ_INT(KIX_OK, page_verify(c, &f, &g, size, 10, &r, matched, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, size, 10, &second, matched, &err));
    /* the count alone wrong */
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &honest, matched + 1, &err));
    ASSERT_CONTAINS(err.msg, "runs match in group");
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &g, 0, ROWS, &honest, 7, &err));
    /* a group the index does not hold: nothing matches */
    other = g;
    other.b[0] ^= 1;
    r.n = 0;
    ASSERT_EQ_INT(KIX_OK, page_verify(c, &f, &other, 0, 10, &r, 0, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, page_verify(c, &f, &other, 0, 10, &r, 1, &err));
    /* the evidence column is the run record's */
    r = honest;
    r.row[1].evidence = KIX_EVIDENCE_REPRODUCED;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "says reported");
    kix_client_close(c);
    teardown(&f);
}

KIX_TEST_MAIN()

#define MANY 1100

struct many_rows {
    struct kix_query_row row[KIX_SEL_PAGE * 4];
    size_t n;
};

static int keep_many(void *ctx, const struct kix_query_row *row)
{
    struct many_rows *r = ctx;
    if (r->n < sizeof(r->row) / sizeof(r->row[0]))
        r->row[r->n++] = *row;
    return 0;
}

static int complete(struct kix_client *c, const struct fixture *f, const struct kix_query *q,
                    struct many_rows *r, uint64_t matched, size_t *selections, struct kix_err *err)
{
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    int rc = kix_client_query_verify(c, &f->vkey, r->row, r->n, NULL, NULL, &proof, err);
    if (rc == KIX_OK)
        rc = kix_client_query_complete(c, &f->vkey, q, r->row, r->n, matched, &proof, err);
    if (selections)
        *selections = proof.selections;
    kix_buf_release(&proof.checkpoint);
    return rc;
}

/* Which runs match is proven from the selection records, over lists of
 * more than one page: the index check recomputes them alike, an honest
 * answer passes, and a dropped or added match, a duplicate or another
 * count is refused. */
KIX_TEST(query_matches_are_proven_from_paged_selections)
{
    struct fixture f;
    struct kix_client *c = NULL;
    struct kix_query q;
    struct kix_err err = {0};
    struct kix_index_check_stats st;
    struct kix_index_answer a;
    static struct many_rows all, r;
    char key[KIX_SEL_KEY_MAX + 1];
    uint64_t matched = 0, items = 0;
    size_t selections = 0;

    setup(&f);
    publish_liger_rows(&f, MANY);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, &st, &err));
    ASSERT_EQ_U64(0, st.issues);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &c, &err));
    /* a list of more than one page: every run of Liger's own kernels */
    kix_sel_key(KIX_SEL_PROVIDER, "liger", 5, UINT64_MAX, key);
    ASSERT_EQ_INT(KIX_OK, kix_client_index_proof(c, &f.vkey, key, &a, &err));
    ASSERT_TRUE(a.present);
    ASSERT_EQ_INT(KIX_OK, kix_sel_head_decode(a.record.ptr, a.record.len, &items, &err));
    kix_index_answer_release(&a);
    ASSERT_TRUE(items > KIX_SEL_PAGE);

    memset(&q, 0, sizeof(q));
    q.provider = "liger";
    q.limit = 1000;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep_many, &all, &matched, &err));
    ASSERT_TRUE(matched > KIX_SEL_PAGE && matched <= 1000 && all.n == matched);
    ASSERT_EQ_INT(KIX_OK, complete(c, &f, &q, &all, matched, &selections, &err));
    ASSERT_TRUE(selections >= 4); /* the dimension, the value's head and two pages */

    /* a match dropped from the middle, the count made to agree */
    r = all;
    memmove(&r.row[100], &r.row[101], (r.n - 101) * sizeof(r.row[0]));
    r.n--;
    ASSERT_EQ_INT(KIX_EVERIFY, complete(c, &f, &q, &r, matched - 1, NULL, &err));
    /* the count alone */
    ASSERT_EQ_INT(KIX_EVERIFY, complete(c, &f, &q, &all, matched + 1, NULL, &err));
    ASSERT_CONTAINS(err.msg, "runs match; the log's signed index");
    /* a row twice in place of its neighbour */
    r = all;
    r.row[101] = r.row[100];
    ASSERT_EQ_INT(KIX_EVERIFY, complete(c, &f, &q, &r, matched, NULL, &err));
    ASSERT_CONTAINS(err.msg, "twice");

    /* another provider's row in the answer: outside the selection */
    {
        static struct many_rows mem;
        struct kix_query qm = q;
        uint64_t mm = 0;
        qm.provider = "huggingface";
        ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &qm, keep_many, &mem, &mm, &err));
        ASSERT_TRUE(mem.n > 0);
        ASSERT_EQ_INT(KIX_OK, complete(c, &f, &qm, &mem, mm, NULL, &err));
        r = all;
        r.row[r.n++] = mem.row[0];
        ASSERT_EQ_INT(KIX_EVERIFY, complete(c, &f, &q, &r, matched + 1, NULL, &err));
    }

    /* a page in the middle, proven; the same page one row short */
    q.offset = 300;
    q.limit = 50;
    memset(&r, 0, sizeof(r));
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep_many, &r, &matched, &err));
    ASSERT_EQ_INT(KIX_OK, complete(c, &f, &q, &r, matched, NULL, &err));
    r.n--;
    ASSERT_EQ_INT(KIX_EVERIFY, complete(c, &f, &q, &r, matched, NULL, &err));
    ASSERT_CONTAINS(err.msg, "that page holds");
    kix_client_close(c);
    /* stored by list number (kix-index/7): an item's key is 'i' ‖ u32be
     * list ‖ u64be position, whatever the list's index key */
    {
        MDB_env *env;
        MDB_cursor *cur = table_cursor(f.dir, "selections", &env);
        MDB_val k, v;
        size_t listed = 0, named = 0;
        int mrc;
        for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
             mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
            const char *kp = k.mv_data;
            if (kp[0] == 'i')
                ASSERT_EQ_U64(13, k.mv_size);
            listed += kp[0] == 'i';
            named += kp[0] == 'n';
        }
        ASSERT_EQ_INT(MDB_NOTFOUND, mrc);
        table_cursor_close(cur, env);
        ASSERT_TRUE(named > 1 && listed > MANY);
    }
    teardown(&f);
}
