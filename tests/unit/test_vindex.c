/* The verifiable index (kix/vindex.h): strict record and note codecs, proofs
 * of membership and absence from a real log, the root binding to the
 * checkpoint, and a store whose index is rebuilt from its entries reaching
 * the same signed notes byte for byte. */
#include <jansson.h>
#include <sodium.h>

#include "fixture.h"
#include "kix/encoding.h"
#include "kix/resolve.h"
#include "kix/selection.h"
#include "kix/sha256.h"
#include "kix/vindex.h"

static void sample_run(struct kix_vindex_run *r)
{
    memset(r, 0, sizeof(*r));
    memset(r->info.manifest.b, 0x11, 32);
    memset(r->info.publisher, 0x22, 32);
    r->info.publication_index = 4;
    r->info.evidence = KIX_EVIDENCE_REPRODUCED;
    r->info.evidence_index = 9;
    r->info.attestations = 2;
    r->info.reruns = 1;
    r->info.supersedes_index = KIX_NO_INDEX;
    r->info.superseded_by_index = 12;
    snprintf(r->successor, sizeof(r->successor), "run-2");
    r->info.grouped = 0;
    r->info.entries = 5;
    memset(r->info.entries_chain.b, 0x33, 32);
}

KIX_TEST(run_record_round_trips_and_is_strict)
{
    struct kix_vindex_run r, back;
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_err err = {0};

    sample_run(&r);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_run_encode(&r, &b));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_run_decode(b.ptr, b.len, "run-1", &back, &err));
    ASSERT_EQ_U64(12, back.info.superseded_by_index);
    ASSERT_EQ_STR("run-2", back.successor);
    ASSERT_EQ_STR("", back.predecessor);
    ASSERT_EQ_U64(5, back.info.entries);
    ASSERT_EQ_INT(KIX_EVIDENCE_REPRODUCED, back.info.evidence);
    /* every byte matters to the verifier: a short, long or tagless record,
     * an unknown evidence level, a successor link without its id */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_run_decode(b.ptr, b.len - 1, "run-1", &back, &err));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&b, 0));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_run_decode(b.ptr, b.len, "run-1", &back, &err));
    b.len--;
    b.ptr[0] = KIX_VINDEX_GROUP;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_run_decode(b.ptr, b.len, "run-1", &back, &err));
    b.ptr[0] = KIX_VINDEX_RUN;
    b.ptr[1 + 32 + 32 + 8] = 7; /* evidence */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_run_decode(b.ptr, b.len, "run-1", &back, &err));
    ASSERT_CONTAINS(err.msg, "malformed run record");
    kix_buf_reset(&b);
    r.successor[0] = '\0';
    ASSERT_EQ_INT(KIX_OK, kix_vindex_run_encode(&r, &b));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_run_decode(b.ptr, b.len, "run-1", &back, &err));
    kix_buf_release(&b);
}

/* A run id "<prefix><n>" that starts a page (want 1) or does not (0). */
static void id_that(const char *prefix, int want, char out[32])
{
    for (int n = 0;; n++) {
        snprintf(out, 32, "%s%d", prefix, n);
        if (kix_vindex_page_starts(out, strlen(out)) == want)
            return;
    }
}

KIX_TEST(group_records_rank_and_refuse_disorder)
{
    struct kix_digest g, other;
    struct kix_buf dir = KIX_BUF_INIT, p0 = KIX_BUF_INIT, p1 = KIX_BUF_INIT;
    struct kix_rank rank;
    struct kix_err err = {0};
    char a[32], ab[40], b[32], start[32], c[32], id[KIX_RUN_ID_MAX + 1];

    memset(g.b, 0x44, 32);
    memset(other.b, 0x45, 32);
    id_that("a", 0, a);
    snprintf(ab, sizeof(ab), "%sb", a); /* a prefix of it sorts first on a tie */
    if (kix_vindex_page_starts(ab, strlen(ab)))
        id_that("ab", 0, ab); /* not a prefix then: still a tie broken by bytes */
    id_that("b", 0, b);
    id_that("s", 1, start);
    id_that("t", 0, c);
    /* the first page (b 100, a 200, ab 200), then one starting at `start` */
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, "", 3, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(b, 100, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(a, 200, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(ab, 200, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, start, 2, &p1));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(start, 300, &p1));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(c, 400, &p1));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_begin(&g, 5, 2, &dir));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_page_add(3, b, 100, &dir));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_page_add(2, start, 300, &dir));
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &g, ab, &rank, &err));
    ASSERT_EQ_U64(3, rank.rank);
    ASSERT_EQ_U64(5, rank.group_size);
    ASSERT_EQ_STR(b, rank.best);
    ASSERT_EQ_U64(100, rank.best_value);
    /* the rank on a later page counts the pages before it */
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_group_rank(dir.ptr, dir.len, p1.ptr, p1.len, &g, c, &rank, &err));
    ASSERT_EQ_U64(5, rank.rank);
    ASSERT_EQ_STR(b, rank.best);
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_group_rank(dir.ptr, dir.len, p1.ptr, p1.len, &g, "zz", &rank, &err));
    ASSERT_EQ_U64(0, rank.rank);
    /* another group's key, a count that lies (in the directory or a page) */
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &other, a, &rank, &err));
    dir.ptr[1 + 32 + 7] = 6;
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &g, a, &rank, &err));
    dir.ptr[1 + 32 + 7] = 5;
    p0.ptr[1 + 32 + 1 + 7] = 2;
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &g, a, &rank, &err));
    /* members out of order, repeated, or a second run that starts a page */
    kix_buf_reset(&p0);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, "", 2, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(a, 200, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(b, 100, &p0));
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_page_decode(p0.ptr, p0.len, &g, NULL, id, NULL, NULL, &err));
    kix_buf_reset(&p0);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, "", 2, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(a, 200, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(a, 200, &p0));
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_page_decode(p0.ptr, p0.len, &g, NULL, id, NULL, NULL, &err));
    kix_buf_reset(&p0);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, "", 2, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(a, 200, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(start, 300, &p0));
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_page_decode(p0.ptr, p0.len, &g, NULL, id, NULL, NULL, &err));
    /* a page not listed by the directory (its id is another run) */
    kix_buf_reset(&p0);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, c, 1, &p0));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_add(c, 400, &p0));
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &g, c, &rank, &err));
    /* a group all of whose runs left: no member, one empty first page */
    kix_buf_reset(&dir);
    kix_buf_reset(&p0);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_begin(&g, 0, 1, &dir));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_group_page_add(0, "", 0, &dir));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_page_begin(&g, "", 0, &p0));
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_group_rank(dir.ptr, dir.len, p0.ptr, p0.len, &g, a, &rank, &err));
    ASSERT_EQ_U64(0, rank.group_size);
    ASSERT_EQ_U64(0, rank.rank);
    kix_buf_release(&dir);
    kix_buf_release(&p0);
    kix_buf_release(&p1);
}

/* The latest checkpoint and index note of the fixture's log. */
static void latest_notes(struct fixture *f, struct kix_buf *cp, struct kix_buf *note)
{
    struct kix_log_reader *r;
    struct kix_bytes v;
    if (kix_log_read_begin(f->log, &r) || kix_log_reader_checkpoint(r, KIX_NO_INDEX, &v) ||
        kix_buf_add(cp, v.ptr, v.len) || kix_log_reader_index_note(r, KIX_NO_INDEX, &v) ||
        kix_buf_add(note, v.ptr, v.len))
        abort();
    kix_log_read_end(r);
}

KIX_TEST(index_note_binds_the_checkpoint_and_is_strict)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf cpb = KIX_BUF_INIT, nb = KIX_BUF_INIT, text = KIX_BUF_INIT,
                   forged = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp, other;
    struct kix_vindex_note n;
    struct kix_signer *mallory = new_key(ORIGIN);

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    latest_notes(&f, &cpb, &nb);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)cpb.ptr, cpb.len, &f.vkey, 1, ORIGIN,
                                              &opened, &cp, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, &cp, &n, &err));
    ASSERT_EQ_U64(cp.size, n.size);
    ASSERT_EQ_STR(ORIGIN, n.origin);
    /* the second line is no number: never a checkpoint */
    ASSERT_TRUE(kix_checkpoint_open((const char *)nb.ptr, nb.len, &f.vkey, 1, NULL, &opened, &other,
                                    &err) != KIX_OK);
    /* another checkpoint's size or root is refused */
    other = cp;
    other.size++;
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, &other, &n, &err));
    other = cp;
    other.root[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, &other, &n, &err));
    /* another key's signature over the same text is refused */
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, NULL, &n, &err));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_note_text(&n, &text));
    ASSERT_EQ_INT(KIX_OK,
                  kix_note_sign((const char *)text.ptr, text.len, &mallory, 1, &forged, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_note_open((const char *)forged.ptr, forged.len, &f.vkey,
                                                    NULL, &n, &err));
    /* a second spelling of the same facts (leading zero) is refused even
     * when signed by the log key: one text per index */
    kix_buf_reset(&forged);
    {
        char bad[512];
        const char *size_line = strstr((const char *)text.ptr, "size ");
        int k = (int)(size_line - (const char *)text.ptr) + 5;
        snprintf(bad, sizeof(bad), "%.*s0%s", k, (const char *)text.ptr,
                 (const char *)text.ptr + k);
        struct kix_signer *log_key = NULL;
        char path[4096];
        snprintf(path, sizeof(path), "%s/log.key", f.dir);
        ASSERT_EQ_INT(KIX_OK, kix_keyfile_read(path, &log_key, &err));
        ASSERT_EQ_INT(KIX_OK, kix_note_sign(bad, strlen(bad), &log_key, 1, &forged, &err));
        ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_note_open((const char *)forged.ptr, forged.len,
                                                        &f.vkey, NULL, &n, &err));
        ASSERT_CONTAINS(err.msg, "malformed index note");
        kix_signer_free(log_key);
    }
    kix_buf_release(&cpb);
    kix_buf_release(&nb);
    kix_buf_release(&text);
    kix_buf_release(&forged);
    kix_signer_free(mallory);
    teardown(&f);
}

static void prove(struct fixture *f, const char *key, struct kix_buf *value, struct kix_buf *proof,
                  int *present)
{
    struct kix_log_reader *r;
    struct kix_err err = {0};
    if (kix_log_read_begin(f->log, &r) ||
        kix_index_prove(r, key, strlen(key), value, proof, present, &err))
        abort();
    kix_log_read_end(r);
}

KIX_TEST(records_and_absences_are_proven)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf cpb = KIX_BUF_INIT, nb = KIX_BUF_INIT, v = KIX_BUF_INIT, p = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp;
    struct kix_vindex_note n;
    struct kix_vindex_run run;
    char key[KIX_VINDEX_KEY_MAX + 1];
    int present = 0;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    latest_notes(&f, &cpb, &nb);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)cpb.ptr, cpb.len, &f.vkey, 1, ORIGIN,
                                              &opened, &cp, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, &cp, &n, &err));
    /* a run: present, its record decodes, one entry chained */
    prove(&f, "run/run-1", &v, &p, &present);
    ASSERT_EQ_INT(1, present);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_verify(&n, "run/run-1", 9, v.ptr, v.len, p.ptr, p.len, &err));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_run_decode(v.ptr, v.len, "run-1", &run, &err));
    ASSERT_EQ_U64(1, run.info.entries);
    /* the same proof for another record, or as an absence, fails */
    v.ptr[v.len - 1] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY,
                  kix_vindex_verify(&n, "run/run-1", 9, v.ptr, v.len, p.ptr, p.len, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_verify(&n, "run/run-1", 9, NULL, 0, p.ptr, p.len, &err));
    /* the registry key and the manifest are in the index too */
    kix_buf_reset(&v);
    kix_buf_reset(&p);
    {
        uint8_t id[32];
        struct kix_key_info k;
        crypto_hash_sha256(id, kix_signer_public_key(f.publisher), 32);
        kix_vindex_key_key(id, key);
        prove(&f, key, &v, &p, &present);
        ASSERT_EQ_INT(1, present);
        ASSERT_EQ_INT(KIX_OK,
                      kix_vindex_verify(&n, key, strlen(key), v.ptr, v.len, p.ptr, p.len, &err));
        ASSERT_EQ_INT(KIX_OK, kix_vindex_key_decode(v.ptr, v.len, id, &k, &err));
        ASSERT_EQ_INT(KIX_ROLE_PUBLISH, (int)k.roles);
        ASSERT_EQ_U64(KIX_NO_INDEX, k.revoked_index);
    }
    kix_buf_reset(&v);
    kix_buf_reset(&p);
    kix_vindex_key_manifest(&run.info.manifest, key);
    prove(&f, key, &v, &p, &present);
    ASSERT_EQ_INT(1, present);
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_verify(&n, key, strlen(key), v.ptr, v.len, p.ptr, p.len, &err));
    /* absent: a run, a group no run joined; absence proofs do not prove
     * presence */
    const char *absent[] = {
        "run/run-3", "group/0000000000000000000000000000000000000000000000000000000000000000",
        "nonsense"};
    for (size_t i = 0; i < 3; i++) {
        kix_buf_reset(&v);
        kix_buf_reset(&p);
        prove(&f, absent[i], &v, &p, &present);
        ASSERT_EQ_INT(0, present);
        ASSERT_EQ_U64(0, v.len);
        ASSERT_EQ_INT(KIX_OK, kix_vindex_verify(&n, absent[i], strlen(absent[i]), NULL, 0, p.ptr,
                                                p.len, &err));
        ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_verify(&n, absent[i], strlen(absent[i]),
                                                     (const uint8_t *)"x", 1, p.ptr, p.len, &err));
    }
    kix_buf_release(&cpb);
    kix_buf_release(&nb);
    kix_buf_release(&v);
    kix_buf_release(&p);
    teardown(&f);
}

/* A store whose index was written in another format (or lost) gets it
 * rebuilt from its entries when opened to write: every checkpoint's index
 * note comes back byte for byte (Ed25519 signatures are deterministic). */
KIX_TEST(index_rebuilt_from_the_entries_is_the_same)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi meta, smt, notes;
    MDB_val k = {5, (void *)"index"}, v = {11, (void *)"kix-index/1"};

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    all_index_notes(f.log, &before);
    kix_log_close(f.log);
    f.log = NULL;
    /* an old store: another format name, no tree, no notes */
    as_layout_2(f.dir);
    ASSERT_EQ_INT(0, mdb_env_create(&env));
    ASSERT_EQ_INT(0, mdb_env_set_maxdbs(env, 32));
    ASSERT_EQ_INT(0, mdb_env_open(env, f.dir, 0, 0600));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, 0, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "meta", 0, &meta));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "smt", 0, &smt));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "index_notes", 0, &notes));
    ASSERT_EQ_INT(0, mdb_put(txn, meta, &k, &v, 0));
    ASSERT_EQ_INT(0, mdb_drop(txn, smt, 0));
    ASSERT_EQ_INT(0, mdb_drop(txn, notes, 0));
    ASSERT_EQ_INT(0, mdb_txn_commit(txn));
    mdb_env_close(env);
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    all_index_notes(f.log, &after);
    ASSERT_TRUE(before.len > 0);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    /* and kixd check agrees with it */
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    kix_buf_release(&before);
    kix_buf_release(&after);
    teardown(&f);
}

/* The tree as kix-index/2 stored it: one record per node in the smt table,
 * at kix_smt_pos_key. */
struct old_tree {
    MDB_txn *txn;
    MDB_dbi dbi;
    struct kix_smt_update *up;
    size_t n;
};

static int old_read(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                    struct kix_bytes *out, struct kix_err *err)
{
    struct old_tree *o = ctx;
    uint8_t k[KIX_SMT_POS_KEY_MAX];
    MDB_val key = {kix_smt_pos_key(depth, prefix, k), k}, val;
    int rc = mdb_get(o->txn, o->dbi, &key, &val);
    (void)err;
    if (rc)
        return rc == MDB_NOTFOUND ? KIX_ENOTFOUND : KIX_EIO;
    out->ptr = val.mv_data;
    out->len = val.mv_size;
    return KIX_OK;
}

static int old_write(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                     const uint8_t *rec, size_t len, struct kix_err *err)
{
    struct old_tree *o = ctx;
    uint8_t k[KIX_SMT_POS_KEY_MAX];
    MDB_val key = {kix_smt_pos_key(depth, prefix, k), k}, val = {len, (void *)rec};
    (void)err;
    return mdb_put(o->txn, o->dbi, &key, &val, 0) ? KIX_EIO : KIX_OK;
}

static int collect_key(void *ctx, const char *key, size_t len, const struct kix_hash *value_hash)
{
    struct old_tree *o = ctx;
    o->up = realloc(o->up, (o->n + 1) * sizeof(*o->up));
    kix_smt_path(key, len, &o->up[o->n].path);
    o->up[o->n++].value_hash = *value_hash;
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return memcmp(a, b, KIX_HASH_LEN); /* the path comes first */
}

/* A store of the previous format, kix-index/2 (its tree one record per
 * node, its index notes kept), is not misread when opened read-only (no
 * index then) and is rebuilt on its first writable open: the old records
 * are gone, only tiles are left, the notes come back byte for byte, proofs
 * verify and kixd check agrees. */
KIX_TEST(index_of_the_previous_format_is_rebuilt_in_tiles)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT, cpb = KIX_BUF_INIT,
                   nb = KIX_BUF_INIT, v = KIX_BUF_INIT, p = KIX_BUF_INIT;
    struct old_tree old = {NULL, 0, NULL, 0};
    struct kix_smt_io io = {old_read, old_write, &old, 0, 0, 0};
    struct kix_log_reader *r;
    struct kix_log_opts ro;
    struct kix_bytes b;
    struct kix_hash root;
    struct kix_note opened;
    struct kix_checkpoint cp;
    struct kix_vindex_note n;
    MDB_env *env;
    MDB_dbi meta;
    MDB_cursor *cur;
    MDB_stat st;
    MDB_val k = {5, (void *)"index"}, val = {11, (void *)"kix-index/2"};
    size_t nodes = 0, tiles = 0, packed_tiles = 0;
    int present = 0, mrc;

    setup(&f);
    for (int i = 0; i < 12; i++) {
        char id[16];
        snprintf(id, sizeof(id), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, id, i + 1, &res, &err));
    }
    all_index_notes(f.log, &before);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_each_key(kix_log_reader_txn(r), collect_key, &old, &err));
    kix_log_read_end(r);
    ASSERT_TRUE(old.n > 20);
    qsort(old.up, old.n, sizeof(*old.up), by_path);
    kix_log_close(f.log);
    f.log = NULL;
    /* the same tree laid out as kix-index/2 did, under its name */
    as_layout_2(f.dir);
    ASSERT_EQ_INT(0, mdb_env_create(&env));
    ASSERT_EQ_INT(0, mdb_env_set_maxdbs(env, 32));
    ASSERT_EQ_INT(0, mdb_env_open(env, f.dir, 0, 0600));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, 0, &old.txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(old.txn, "meta", 0, &meta));
    ASSERT_EQ_INT(0, mdb_dbi_open(old.txn, "smt", 0, &old.dbi));
    ASSERT_EQ_INT(0, mdb_put(old.txn, meta, &k, &val, 0));
    ASSERT_EQ_INT(0, mdb_drop(old.txn, old.dbi, 0));
    ASSERT_EQ_INT(KIX_OK, kix_smt_apply(&io, old.up, old.n, &root, &err));
    ASSERT_EQ_INT(0, mdb_stat(old.txn, old.dbi, &st));
    ASSERT_EQ_U64(io.writes, st.ms_entries); /* one record per node */
    ASSERT_EQ_INT(0, mdb_txn_commit(old.txn));
    mdb_env_close(env);
    /* read-only: the old tree is not taken for tiles, there is no index */
    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_index_note(r, KIX_NO_INDEX, &b));
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    /* writable: rebuilt, in tiles */
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    all_index_notes(f.log, &after);
    ASSERT_TRUE(before.len > 0);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    latest_notes(&f, &cpb, &nb);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)cpb.ptr, cpb.len, &f.vkey, 1, ORIGIN,
                                              &opened, &cp, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_vindex_note_open((const char *)nb.ptr, nb.len, &f.vkey, &cp, &n, &err));
    ASSERT_EQ_MEM(root.b, KIX_HASH_LEN, n.index_root.b, KIX_HASH_LEN);
    prove(&f, "run/run-7", &v, &p, &present);
    ASSERT_EQ_INT(1, present);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_verify(&n, "run/run-7", 9, v.ptr, v.len, p.ptr, p.len, &err));
    kix_log_close(f.log);
    f.log = NULL;
    /* nothing of the old layout is left: every record is a tile */
    ASSERT_EQ_INT(0, test_env_open(f.dir, "smt", MDB_RDONLY, &env));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, MDB_RDONLY, &old.txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(old.txn, "smt", 0, &old.dbi));
    ASSERT_EQ_INT(0, mdb_cursor_open(old.txn, old.dbi, &cur));
    for (mrc = mdb_cursor_get(cur, &k, &val, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &val, MDB_NEXT)) {
        const uint8_t *key = k.mv_data, *packed = val.mv_data;
        uint8_t tile[KIX_SMT_TILE_MAX];
        size_t tlen = 0;
        unsigned bits = 0, count = 0;
        /* stored as prefix ‖ stratum (kix_index_smt_store_key, kix-index/6) */
        unsigned stratum = k.mv_size >= 1 ? key[k.mv_size - 1] : 255;
        ASSERT_TRUE(stratum <= 64 && k.mv_size == 1 + (stratum + 1u) / 2u);
        /* packed (kix_smt_tile_pack, kix-index/7) when that is shorter */
        ASSERT_EQ_INT(KIX_OK, kix_smt_tile_unpack(packed, val.mv_size, tile, &tlen));
        ASSERT_TRUE((packed[1] & 1) ? tlen > val.mv_size : tlen == val.mv_size);
        packed_tiles += (packed[1] & 1) != 0;
        bits = (unsigned)tile[0] << 8 | tile[1];
        for (unsigned x = bits; x; x &= x - 1)
            count++;
        ASSERT_TRUE(bits != 0 && !(bits & 1));
        ASSERT_EQ_U64(2 + 65 * (uint64_t)count, tlen);
        nodes += count;
        tiles++;
    }
    ASSERT_EQ_INT(MDB_NOTFOUND, mrc);
    mdb_cursor_close(cur);
    mdb_txn_abort(old.txn);
    mdb_env_close(env);
    ASSERT_EQ_U64(st.ms_entries, nodes); /* the same nodes */
    ASSERT_TRUE(tiles > 1 && tiles < nodes && packed_tiles > 0);
    free(old.up);
    kix_buf_release(&before);
    kix_buf_release(&after);
    kix_buf_release(&cpb);
    kix_buf_release(&nb);
    kix_buf_release(&v);
    kix_buf_release(&p);
    teardown(&f);
}

/* Since kix-index/7 a run's stored record is variable (runs.c): its
 * numbers as LEB128 uvarints, which have one spelling each; the record
 * reads back as the run, well under the 202 bytes of the fixed layout.
 * Since kix-index/9 it names its publisher key (and its comparison group)
 * by number, a run whose one entry is its publication keeps no entries
 * chain and no entry record, and the runs table holds under 80 bytes of
 * keys and values a run (kix-index/8: ~160). */
KIX_TEST(stored_run_records_are_compact)
{
    static const uint64_t values[] = {0,         1, 127, 128, 300, 16383, 16384, UINT64_MAX - 1,
                                      UINT64_MAX};
    static const uint8_t longer[] = {0x80, 0x00},
                         past[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_run_info run;
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k = {5, (void *)"run-3"}, v;
    MDB_cursor *cur;
    size_t bytes = 0;
    uint8_t b[KIX_UVARINT_MAX];
    const uint8_t *p;
    uint64_t x;

    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        size_t n = kix_uvarint_put(b, values[i]);
        p = b;
        ASSERT_TRUE(n >= 1 && n <= KIX_UVARINT_MAX);
        ASSERT_EQ_INT(KIX_OK, kix_uvarint_get(&p, b + n, &x));
        ASSERT_EQ_U64(values[i], x);
        ASSERT_TRUE(p == b + n);
        p = b;
        ASSERT_EQ_INT(KIX_ECORRUPT, kix_uvarint_get(&p, b + n - 1, &x)); /* cut short */
    }
    p = longer;
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_uvarint_get(&p, longer + sizeof(longer), &x));
    p = past;
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_uvarint_get(&p, past + sizeof(past), &x));

    setup(&f);
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof(id), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, id, i + 1, &res, &err));
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-3", 5, &run));
    kix_log_read_end(r);
    ASSERT_EQ_U64(KIX_NO_INDEX, run.superseded_by_index);
    ASSERT_EQ_U64(KIX_NO_INDEX, run.withdrawn_index);
    ASSERT_EQ_U64(1, run.entries);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(0, test_env_open(f.dir, "runs", MDB_RDONLY, &env));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "runs", 0, &dbi));
    ASSERT_EQ_INT(0, mdb_get(txn, dbi, &k, &v));
    /* manifest, flags, evidence, the publisher's number, 9 short numbers,
     * the group's number at most: no key and no chain */
    ASSERT_TRUE(v.mv_size >= 34 + 10 && v.mv_size <= 34 + 11 * 3);
    ASSERT_EQ_INT(0, mdb_cursor_open(txn, dbi, &cur));
    for (int mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        const char *key = k.mv_data;
        /* the publication is the run's record's: no entry record */
        ASSERT_TRUE(!(k.mv_size == 5 + 9 && memcmp(key, "run-", 4) == 0 && key[5] == 0));
        bytes += k.mv_size + v.mv_size;
    }
    mdb_cursor_close(cur);
    ASSERT_TRUE(bytes < 5 * 80);
    mdb_txn_abort(txn);
    mdb_env_close(env);
    teardown(&f);
}

/* ---- whether run records are kix-index/9's, read once a transaction ---------- */

/* A run record is decoded as kix-index/9's when the store numbers its
 * keys (store/index/numbers.c), as kix-index/7's (a read-only open of an
 * older store) when not; the answer is read once a transaction. The
 * probe wraps today's indexer (same name, same tables: no rebuild) and
 * looks at the runs through the writer's transaction with
 * kix_index_each_key, which decodes every record and names the runs
 * whose record decoded. */
static struct {
    int armed;                   /* the next publication is probed */
    int fake_before, run_after;  /* apply: names run/fake, then the new run */
    int runs_before, fake_after; /* reset: names the runs, then run/fake */
    int resets, rc;
} probe;

struct seek {
    const char *key;
    int found;
};

static int seek_key(void *ctx, const char *key, size_t len, const struct kix_hash *value_hash)
{
    struct seek *s = ctx;
    (void)value_hash;
    if (len == strlen(s->key) && memcmp(key, s->key, len) == 0)
        s->found = 1;
    return 0;
}

static int names_key(struct kix_log_txn *t, const char *key)
{
    struct seek s = {key, 0};
    int rc = kix_index_each_key(t, seek_key, &s, NULL);
    if (rc && !probe.rc)
        probe.rc = rc;
    return s.found;
}

/* A record as kix-index/7 and /8 wrote it (manifest ‖ publisher ‖ flags ‖
 * evidence ‖ nine uvarints ‖ chain): kix-index/9's decoder refuses it
 * (flag bits it has not), as kix-index/7's refuses a kix-index/9 record
 * (too short). Its publication is entry 1, its one entry. */
static int put_fake_v7(struct kix_log_txn *t)
{
    uint8_t rec[66 + 9 + 32];
    const uint8_t numbers[9] = {1, 0, 0, 0, 0, 0, 0, 1, 0};

    memset(rec, 0x44, 32);
    memset(rec + 32, 0x55, 32);
    rec[64] = 0;
    rec[65] = 0;
    memcpy(rec + 66, numbers, 9);
    memset(rec + 75, 0x66, 32);
    return kix_log_txn_put(t, 0 /* the runs table */, "fake", 4, rec, sizeof(rec), NULL);
}

static int probe_apply(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err)
{
    int armed = probe.armed && item->entry->type == KIX_ENTRY_PUBLICATION, rc;
    char key[4 + KIX_RUN_ID_MAX + 1];

    if (armed) {
        /* before this transaction makes the store's first number */
        probe.armed = 0;
        rc = put_fake_v7(t);
        if (rc)
            return rc;
        probe.fake_before = names_key(t, "run/fake");
        rc = kix_log_txn_del(t, 0, "fake", 4, err);
        if (rc)
            return rc;
    }
    rc = kix_index_indexer()->apply(t, item, err);
    if (rc == KIX_OK && armed) {
        snprintf(key, sizeof(key), "run/%.*s", (int)item->entry->run_id_len, item->entry->run_id);
        probe.run_after = names_key(t, key);
    }
    return rc;
}

static int probe_reset(struct kix_log_txn *t, struct kix_err *err)
{
    int rc;

    probe.resets++;
    probe.runs_before = names_key(t, "run/run-1"); /* a kix-index/9 record */
    rc = kix_index_indexer()->reset(t, err);       /* empties the runs table */
    if (rc == KIX_OK)
        rc = put_fake_v7(t);
    if (rc == KIX_OK)
        probe.fake_after = names_key(t, "run/fake");
    if (rc == KIX_OK)
        rc = kix_log_txn_del(t, 0, "fake", 4, err);
    return rc;
}

static void probe_open(struct fixture *f)
{
    static struct kix_log_indexer wrap;
    struct kix_log_opts o;
    struct kix_err err = {0};

    wrap = *kix_index_indexer();
    wrap.apply = probe_apply;
    wrap.reset = probe_reset;
    memset(&o, 0, sizeof(o));
    o.indexer = &wrap;
    kix_log_close(f->log);
    f->log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f->dir, &o, &f->log, &err));
}

/* In one write transaction a record of the old layout is read before the
 * store's first number (kix-index/7's decoder), then the transaction's
 * first publication makes it and its run is read (kix-index/9's): an
 * answer kept from before the number would misread the run. */
KIX_TEST(run_records_read_as_their_format_before_and_after_the_first_number)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};

    setup(&f);
    memset(&probe, 0, sizeof(probe));
    probe_open(&f);
    probe.armed = 1;
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, probe.rc);
    ASSERT_EQ_INT(0, probe.armed);
    ASSERT_EQ_INT(1, probe.fake_before);
    ASSERT_EQ_INT(1, probe.run_after);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    teardown(&f);
}

/* A rebuild reads the kix-index/9 records, then empties the runs table
 * in the same write transaction (the indexer's reset): the answer kept
 * from before must not outlive the numbers, or a record of the old
 * layout written after is misread. */
KIX_TEST(run_records_read_as_their_format_after_the_runs_table_is_emptied)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi meta;
    MDB_val name = {5, (void *)"index"}, other = {11, (void *)"kix-index/8"};

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    kix_log_close(f.log);
    f.log = NULL;
    /* another format's name: the next writable open rebuilds the index */
    ASSERT_EQ_INT(0, test_env_open(f.dir, "meta", 0, &env));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, 0, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "meta", 0, &meta));
    ASSERT_EQ_INT(0, mdb_put(txn, meta, &name, &other, 0));
    ASSERT_EQ_INT(0, mdb_txn_commit(txn));
    mdb_env_close(env);
    memset(&probe, 0, sizeof(probe));
    probe_open(&f);
    ASSERT_EQ_INT(1, probe.resets);
    ASSERT_EQ_INT(KIX_OK, probe.rc);
    ASSERT_EQ_INT(1, probe.runs_before);
    ASSERT_EQ_INT(1, probe.fake_after);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, NULL, &err));
    teardown(&f);
}

/* The answer is read once a transaction, not once a record: a reader's
 * snapshot reads it once however many records it decodes (a resolve
 * decodes the run's record twice, and more runs here), and each write
 * transaction at most once. */
KIX_TEST(run_records_format_is_read_once_a_transaction)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_resolution rs;
    struct kix_run_info run;
    uint64_t before;

    setup(&f);
    before = kix_index_numbers_reads();
    for (int i = 1; i <= 4; i++) {
        char id[16];
        snprintf(id, sizeof(id), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, id, i, &res, &err));
    }
    ASSERT_EQ_INT(KIX_OK, rerun_reproduced(&f, f.rerunner, "run-2", 2));
    /* five writes (and the first numbers nothing: no record to read) */
    ASSERT_TRUE(kix_index_numbers_reads() - before <= 5);
    for (int pass = 0; pass < 2; pass++) {
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
        before = kix_index_numbers_reads();
        ASSERT_EQ_INT(KIX_OK, kix_index_resolve(r, "run-2", 5, &rs, &err));
        kix_resolution_release(&rs);
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-4", 5, &run));
        ASSERT_EQ_U64(1, kix_index_numbers_reads() - before);
        kix_log_read_end(r);
    }
    teardown(&f);
}

/* ---- PROTOCOL.md §4.6: the worked example is what this code verifies ---------- */

static json_t *doc_example(struct kix_verifier *vkey)
{
    char *doc = kix_test_read_file("../proto/PROTOCOL.md", NULL), *p, *end, *line;
    json_t *j = NULL;

    if (!doc)
        return NULL;
    p = strstr(doc, "<!-- example vindex.vkey -->");
    line = p ? strstr(p, "\n    ") : NULL;
    if (line && (end = strchr(line + 5, '\n')) &&
        kix_verifier_parse(line + 5, (size_t)(end - line - 5), vkey, NULL) == KIX_OK &&
        (p = strstr(doc, "<!-- example vindex -->\n```json\n")) && (end = strstr(p, "\n```\n"))) {
        p += strlen("<!-- example vindex -->\n```json\n");
        j = json_loadb(p, (size_t)(end - p), 0, NULL);
    }
    free(doc);
    return j;
}

static void hex_field(json_t *a, const char *name, struct kix_buf *out)
{
    const char *h = json_string_value(json_object_get(a, name));
    ASSERT_TRUE(h != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_buf_grow(out, strlen(h) / 2));
    ASSERT_EQ_INT(KIX_OK, kix_hex_decode(h, strlen(h), out->ptr, strlen(h) / 2));
    out->len = strlen(h) / 2;
}

KIX_TEST(protocol_worked_example_verifies)
{
    struct kix_verifier vkey;
    json_t *ex = doc_example(&vkey), *answers;
    struct kix_vindex_run run;
    struct kix_rank rank;
    struct kix_digest group;
    struct kix_err err = {0};
    struct kix_buf dir = KIX_BUF_INIT;
    const char *run_key = NULL;

    ASSERT_TRUE(ex != NULL);
    answers = json_object_get(ex, "answers");
    ASSERT_EQ_U64(3, json_array_size(answers));
    for (size_t i = 0; i < 3; i++) {
        json_t *a = json_array_get(answers, i);
        const char *key = json_string_value(json_object_get(a, "key"));
        const char *cp_text = json_string_value(json_object_get(a, "checkpoint"));
        const char *note = json_string_value(json_object_get(a, "indexNote"));
        struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
        struct kix_note opened;
        struct kix_checkpoint cp;
        struct kix_vindex_note n;

        ASSERT_TRUE(key && cp_text && note);
        ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open(cp_text, strlen(cp_text), &vkey, 1, "log.example",
                                                  &opened, &cp, &err));
        ASSERT_EQ_INT(KIX_OK, kix_vindex_note_open(note, strlen(note), &vkey, &cp, &n, &err));
        hex_field(a, "record", &record);
        hex_field(a, "proof", &proof);
        ASSERT_EQ_INT(KIX_OK, kix_vindex_verify(&n, key, strlen(key), record.ptr, record.len,
                                                proof.ptr, proof.len, &err));
        /* one changed byte of the record is refused */
        record.ptr[record.len - 1] ^= 1;
        ASSERT_EQ_INT(KIX_EVERIFY, kix_vindex_verify(&n, key, strlen(key), record.ptr, record.len,
                                                     proof.ptr, proof.len, &err));
        record.ptr[record.len - 1] ^= 1;
        if (strncmp(key, "run/", 4) == 0) {
            run_key = key + 4;
            ASSERT_EQ_INT(KIX_OK,
                          kix_vindex_run_decode(record.ptr, record.len, run_key, &run, &err));
            ASSERT_EQ_U64(13, run.info.publication_index);
            ASSERT_EQ_U64(1, run.info.attestations);
            ASSERT_EQ_U64(2, run.info.entries);
            ASSERT_EQ_U64(10615104, run.info.value);
        } else if (strlen(key) == 70) { /* the group's directory */
            ASSERT_TRUE(run_key != NULL);
            ASSERT_EQ_INT(KIX_OK, kix_hex_decode(key + 6, 64, group.b, 32));
            ASSERT_EQ_MEM(group.b, 32, run.info.comparison_key.b, 32);
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&dir, record.ptr, record.len));
        } else { /* the page that holds the run */
            ASSERT_TRUE(dir.len > 0);
            ASSERT_EQ_INT(KIX_OK, kix_vindex_group_rank(dir.ptr, dir.len, record.ptr, record.len,
                                                        &group, run_key, &rank, &err));
            ASSERT_EQ_U64(2, rank.rank);
            ASSERT_EQ_U64(2, rank.group_size);
            ASSERT_EQ_STR("173d8b38-3c61-8b39-b0aa-e0e7b621b514", rank.best);
        }
        kix_buf_release(&record);
        kix_buf_release(&proof);
    }
    kix_buf_release(&dir);
    json_decref(ex);
}

/* A selection page is bounded like a group page (issue 42.6): one item
 * of 65,535 bytes makes a record no index writes (its largest item is 160
 * bytes), and the client's decoder refuses it, naming the bound. */
KIX_TEST(selection_page_over_the_bound_is_refused)
{
    struct kix_buf items = KIX_BUF_INIT, page = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t *big = calloc(1, 0xffff);

    ASSERT_TRUE(big != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_sel_item_add(&items, big, 160));
    ASSERT_EQ_INT(KIX_OK, kix_sel_page_encode(0, 1, items.ptr, items.len, &page));
    ASSERT_EQ_INT(KIX_OK, kix_sel_page_decode(page.ptr, page.len, 0, 1, NULL, NULL, &err));
    kix_buf_reset(&items);
    kix_buf_reset(&page);
    ASSERT_EQ_INT(KIX_OK, kix_sel_item_add(&items, big, 0xffff));
    ASSERT_EQ_INT(KIX_OK, kix_sel_page_encode(0, 1, items.ptr, items.len, &page));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_sel_page_decode(page.ptr, page.len, 0, 1, NULL, NULL, &err));
    ASSERT_TRUE(strstr(err.msg, "65536-byte bound") != NULL);
    free(big);
    kix_buf_release(&items);
    kix_buf_release(&page);
}

/* A lean tile in an index pack (PROTOCOL.md §3.2, pack item kind 3): the
 * top record said by its type byte alone comes out whole, the hashes of
 * the two records below it, with its locator; a changed record below it,
 * or a lean tile cut short, is no tile of that top. */
static size_t lean_pack(uint8_t *pack, const uint8_t *lean, size_t n)
{
    pack[0] = KIX_INDEX_PACK_TILE_LEAN;
    pack[1] = 0, pack[2] = 0, pack[3] = (uint8_t)((n + 3) >> 8), pack[4] = (uint8_t)(n + 3);
    pack[5] = 2, pack[6] = 1, pack[7] = 0x50; /* the key: stratum 1, nibble 5 */
    memcpy(pack + 8, lean, n);
    return 8 + n;
}

KIX_TEST(lean_tile_in_a_pack_comes_out_whole)
{
    uint8_t whole[2 + 3 * KIX_SMT_RECORD_LEN + KIX_INDEX_LOC_LEN], lean[2 + 1 + 2 * 65 + 13];
    uint8_t pack[8 + sizeof(lean)], key[2] = {1, 0x50};
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_hash top;

    memset(whole, 0, sizeof(whole));
    whole[0] = 0xe0; /* slots 0, 1 and 2 */
    for (int i = 1; i <= 2; i++) {
        uint8_t *leaf = whole + 2 + (size_t)i * KIX_SMT_RECORD_LEN;
        leaf[0] = 0x02;
        memset(leaf + 1, 0x10 * i, 64);
        kix_sha256(leaf, KIX_SMT_RECORD_LEN, whole + 2 + 1 + 32 * (size_t)(i - 1));
    }
    whole[2] = 0x03;
    memset(whole + 2 + 3 * KIX_SMT_RECORD_LEN, 0x07, KIX_INDEX_LOC_LEN); /* a locator */
    kix_sha256(whole + 2, KIX_SMT_RECORD_LEN, top.b);
    /* lean: the bitmap, slot 0's type, slots 1 and 2 whole, the locator */
    memcpy(lean, whole, 2);
    lean[2] = 0x03;
    memcpy(lean + 3, whole + 2 + KIX_SMT_RECORD_LEN, sizeof(lean) - 3);

    size_t n = lean_pack(pack, lean, sizeof(lean));
    ASSERT_EQ_INT(KIX_OK, kix_index_pack_tile(pack, n, key, 2, &top, &out));
    ASSERT_EQ_U64(sizeof(whole), out.len);
    ASSERT_TRUE(memcmp(out.ptr, whole, sizeof(whole)) == 0);
    pack[8 + 3 + 40] ^= 1; /* slot 1's record */
    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_index_pack_tile(pack, n, key, 2, &top, &out));
    n = lean_pack(pack, lean, sizeof(lean) - 14); /* cut inside slot 2's record */
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_index_pack_tile(pack, n, key, 2, &top, &out));
    ASSERT_EQ_U64(0, out.len);
    kix_buf_release(&out);
}

static uint64_t sealed_reads(struct kix_log *l)
{
    struct kix_log_seal_stats st;
    kix_log_seal_stats(l, &st);
    return st.sealed_reads;
}

/* The writer keeps the tree's tiles from one commit to the next
 * (store/index/tile_keep.c). Without them each commit reads every tile on
 * its keys' routes again, the root tile at least, so the commits after the
 * first read at least one tile each. With them a commit reads only what
 * no commit before it read or wrote: a tile not made yet, when a new key
 * is the first below it (random keys: a few in a dozen commits). */
#define KEPT_TILE_COMMITS 12
KIX_TEST(writer_keeps_the_tree_tiles_between_commits)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    uint64_t first = 0, last;
    char run[32];

    setup(&f);
    for (int i = 1; i <= KEPT_TILE_COMMITS; i++) {
        snprintf(run, sizeof(run), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, run, i, &res, &err));
        if (i == 1)
            first = sealed_reads(f.log);
    }
    last = sealed_reads(f.log);
    ASSERT_TRUE(first > 0);
    ASSERT_TRUE(last - first < KEPT_TILE_COMMITS - 1);

    teardown(&f);
}

KIX_TEST_MAIN()
