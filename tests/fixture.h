/* tests/fixture.h — a real log in a temp directory with registered keys,
 * for tests of the log, sync and clients (static inline helpers, one copy per test). */
#ifndef KIX_TEST_FIXTURE_H
#define KIX_TEST_FIXTURE_H

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data_file.h"
#include "harness.h"
#include "kix/canon.h"
#include "kix/dsse.h"
#include "kix/entries.h"
#include "kix/file.h"
#include "kix/index.h"

#define ORIGIN "kix.test/log"

struct fixture {
    char *dir;
    struct kix_log *log;
    struct kix_signer *admin, *publisher, *attester, *rerunner, *stranger;
    struct kix_verifier vkey;
};

static inline char *temp_dir(void)
{
    char *d = strdup("/tmp/kix-test-log-XXXXXX");
    return mkdtemp(d);
}

static inline void remove_dir(char *d)
{
    struct kix_err err = {0};
    if (kix_dir_remove_tree(d, &err) != KIX_OK)
        fprintf(stderr, "%s\n", err.msg);
    free(d);
}

static inline struct kix_signer *new_key(const char *name)
{
    struct kix_signer *s = NULL;
    if (kix_signer_generate(name, KIX_NOTE_ALG_ED25519, &s, NULL) != KIX_OK)
        abort();
    return s;
}

/* Submits one envelope with objects; returns the result code. */
static inline int submit(struct fixture *f, const struct kix_buf *env, const char *const *objects,
                         size_t nobjects, struct kix_append_result *res, struct kix_err *err)
{
    struct kix_bytes objs[8];
    struct kix_submission sub;
    struct kix_prepared *p = NULL;
    int rc;

    for (size_t i = 0; i < nobjects; i++) {
        objs[i].ptr = (const uint8_t *)objects[i];
        objs[i].len = strlen(objects[i]);
    }
    sub.envelope = kix_buf_bytes(env);
    sub.objects = objs;
    sub.nobjects = nobjects;
    rc = kix_log_prepare(f->log, &sub, &p, err);
    if (rc)
        return rc;
    rc = kix_log_commit(f->log, &p, 1, res, NULL, err);
    kix_prepared_free(p);
    if (rc)
        return rc;
    if (res->code && err)
        kix_err_set(err, res->code, "%s", res->message);
    return res->code;
}

static inline int add_key(struct fixture *f, struct kix_signer *by, struct kix_signer *key,
                          unsigned roles, int revoke)
{
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    int rc = kix_entry_key(by, revoke, kix_signer_public_key(key), roles, &env, &err);
    if (rc == KIX_OK)
        rc = submit(f, &env, NULL, 0, &res, &err);
    if (rc)
        fprintf(stderr, "add_key: %s\n", err.msg);
    kix_buf_release(&env);
    return rc;
}

static inline void digest_of_json(const char *json, struct kix_digest *d)
{
    struct kix_buf canon = KIX_BUF_INIT;
    if (kix_canon((const uint8_t *)json, strlen(json), NULL, &canon, NULL) != KIX_OK)
        abort();
    kix_digest_of(canon.ptr, canon.len, d);
    kix_buf_release(&canon);
}

/* A temp dir and the fixture's keys, no log yet. */
static inline void setup_keys(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    f->dir = temp_dir();
    f->admin = new_key("admin");
    f->publisher = new_key("publisher");
    f->attester = new_key("attester");
    f->rerunner = new_key("rerunner");
    f->stranger = new_key("stranger");
}

static inline void setup(struct fixture *f)
{
    struct kix_buf vkey = KIX_BUF_INIT;
    setup_keys(f);
    if (kix_index_create(f->dir, ORIGIN, kix_signer_public_key(f->admin), NULL, &vkey, NULL) ||
        kix_verifier_parse((const char *)vkey.ptr, vkey.len, &f->vkey, NULL) ||
        kix_index_open(f->dir, NULL, &f->log, NULL))
        abort();
    kix_buf_release(&vkey);
    if (add_key(f, f->admin, f->publisher, KIX_ROLE_PUBLISH, 0) ||
        add_key(f, f->admin, f->attester, KIX_ROLE_ATTEST, 0) ||
        add_key(f, f->admin, f->rerunner, KIX_ROLE_RERUN, 0))
        abort();
}

static inline void teardown(struct fixture *f)
{
    kix_log_close(f->log);
    kix_signer_free(f->admin);
    kix_signer_free(f->publisher);
    kix_signer_free(f->attester);
    kix_signer_free(f->rerunner);
    kix_signer_free(f->stranger);
    remove_dir(f->dir);
}

/* An empty replica of f's log in a new temp dir (*dir, caller removes). */
static inline struct kix_log *new_replica(const struct fixture *f, char **dir)
{
    struct kix_log_opts opts;
    struct kix_log *r = NULL;

    *dir = temp_dir();
    rmdir(*dir);
    memset(&opts, 0, sizeof(opts));
    opts.replica = 1;
    if (kix_index_create_replica(*dir, &f->vkey, &opts, NULL) ||
        kix_index_open(*dir, &opts, &r, NULL))
        abort();
    return r;
}

/* The log's check and the index's pass on f's log. */
static inline void checks_pass(struct fixture *f)
{
    struct kix_err err = {0};
    int rc = kix_log_check(f->log, NULL, NULL, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
    rc = kix_index_check(f->log, NULL, NULL, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
}

static inline uint64_t log_size(struct fixture *f)
{
    struct kix_log_reader *r;
    uint64_t n;
    if (kix_log_read_begin(f->log, &r))
        abort();
    n = kix_log_reader_size(r);
    kix_log_read_end(r);
    return n;
}

static const char *workload =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{\"name\":"
    "\"rope\"},\"spec\":{\"kernel\":\"rope\"}}";

/* A run manifest referencing the workload; `tag` makes it unique;
 * `metadata` more members of its metadata ("" or ",\"runId\":...") . */
static inline void run_manifest_with(char *out, size_t cap, int tag, const char *metadata)
{
    struct kix_digest w;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    digest_of_json(workload, &w);
    kix_digest_format(&w, text);
    snprintf(out, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
             "\"name\":\"run\"%s},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":%d}},\"workloadDigest\":\"%s\"}}",
             metadata, 1000 + tag, text);
}

static inline void run_manifest(char *out, size_t cap, int tag)
{
    run_manifest_with(out, cap, tag, "");
}

/* A BenchmarkProtocol and an ExecutionEnvironment record, distinct per tag. */
static inline void protocol_record(char *out, size_t cap, int tag)
{
    snprintf(out, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkProtocol\","
             "\"metadata\":{\"name\":\"p%d\"},\"spec\":{\"harness\":{\"name\":\"test\"},"
             "\"measurement\":{\"primaryStatistic\":\"median\"}}}",
             tag);
}

static inline void environment_record(char *out, size_t cap, int tag)
{
    snprintf(out, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"ExecutionEnvironment\","
             "\"metadata\":{\"name\":\"e%d\"},\"spec\":{\"hardware\":{\"product\":\"GPU %d\"}}}",
             tag, tag);
}

static inline void digest_text_of_json(const char *json, char out[KIX_DIGEST_TEXT_LEN + 1])
{
    struct kix_digest d;
    digest_of_json(json, &d);
    kix_digest_format(&d, out);
}

static inline int publish(struct fixture *f, struct kix_signer *key, const char *run_id, int tag,
                          struct kix_append_result *res, struct kix_err *err)
{
    char manifest[512];
    struct kix_digest d;
    struct kix_buf env = KIX_BUF_INIT;
    const char *objects[2];
    int rc;

    run_manifest(manifest, sizeof(manifest), tag);
    digest_of_json(manifest, &d);
    rc = kix_entry_publication(key, run_id, &d, "2026-11-29T00:00:00Z", "test", "BSD-2-Clause",
                               &env, err);
    objects[0] = manifest;
    objects[1] = workload;
    if (rc == KIX_OK)
        rc = submit(f, &env, objects, 2, res, err);
    kix_buf_release(&env);
    return rc;
}

/* A controlled rerun of the run published with tag, "reproduced", signed
 * by key: its evidence is run tag 100 + tag's manifest, logged with it. */
static inline int rerun_reproduced(struct fixture *f, struct kix_signer *key, const char *run_id,
                                   int tag)
{
    char manifest[512];
    struct kix_digest d, rd;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    const char *objs[1];
    int rc;

    run_manifest(manifest, sizeof(manifest), tag);
    digest_of_json(manifest, &d);
    run_manifest(manifest, sizeof(manifest), 100 + tag);
    digest_of_json(manifest, &rd);
    objs[0] = manifest;
    rc = kix_entry_rerun(key, run_id, &d, "reproduced", &rd, NULL, &env, &err);
    if (rc == KIX_OK)
        rc = submit(f, &env, objs, 1, &res, &err);
    if (rc)
        fprintf(stderr, "rerun: %s\n", err.msg);
    kix_buf_release(&env);
    return rc;
}

/* Layout 3 (proto/PROTOCOL.md, "Store files"): the log's own tables are
 * in DIR/data.mdb, every table derived from them (objects, signers, the
 * index's) in DIR/index.mdb, one file. */
static inline int test_log_table(const char *name)
{
    static const char *const log[] = {
        "meta", "blobs",    "leaves",       "leaf_index", "tiles",       "checkpoints",
        "keys", "subjects", "cosignatures", "statements", "index_notes", "index_cosignatures"};
    for (size_t i = 0; i < sizeof(log) / sizeof(log[0]); i++)
        if (strcmp(name, log[i]) == 0)
            return 1;
    return 0;
}

/* Opens the environment of the store at dir that holds `table`. */
static inline int test_env_open(const char *dir, const char *table, unsigned flags, MDB_env **env)
{
    char path[4200];
    int rc = mdb_env_create(env);

    if (rc == 0)
        rc = mdb_env_set_maxdbs(*env, 32);
    if (rc)
        return rc;
    snprintf(path, sizeof(path), "%s/index.mdb", dir);
    if (!test_log_table(table) && access(path, F_OK) == 0)
        return mdb_env_open(*env, path, flags | MDB_NOSUBDIR, 0600);
    return mdb_env_open(*env, dir, flags, 0600);
}

/* The closed store at dir as layout 3 wrote it: the leaves' and blobs'
 * bytes back in data.mdb from log.dat (layout 4's data file), which goes,
 * and the mark set. For tests that make an older store by editing a newer
 * one. */
static inline void as_layout_3(const char *dir)
{
    char path[4200];
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi meta;
    MDB_val mk = {6, (void *)"layout"}, mv = {1, (void *)"3"};

    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 32) ||
        mdb_env_set_mapsize(env, 1ull << 32) || mdb_env_open(env, dir, 0, 0600) ||
        mdb_txn_begin(env, NULL, 0, &txn) || test_data_file_inline(dir, txn) ||
        mdb_dbi_open(txn, "meta", 0, &meta) || mdb_put(txn, meta, &mk, &mv, 0) ||
        mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    snprintf(path, sizeof(path), "%s/log.dat", dir);
    unlink(path);
}

/* The closed store at dir as layout 2 wrote it (one data.mdb): the index
 * environment's tables copied back, its files removed, the mark set. For
 * tests that make an older store by editing a newer one. */
static inline void as_layout_2(const char *dir)
{
    char path[4200];
    MDB_env *env, *ienv;
    MDB_txn *txn, *itxn;
    MDB_dbi main, src, dst;
    MDB_cursor *names, *cur;
    MDB_val name, k, v, mk = {6, (void *)"layout"}, mv = {1, (void *)"2"};
    int rc;

    as_layout_3(dir);
    snprintf(path, sizeof(path), "%s/index.mdb", dir);
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 32) || mdb_env_open(env, dir, 0, 0600) ||
        mdb_txn_begin(env, NULL, 0, &txn) || mdb_env_create(&ienv) ||
        mdb_env_set_maxdbs(ienv, 32) || mdb_env_open(ienv, path, MDB_NOSUBDIR | MDB_RDONLY, 0600) ||
        mdb_txn_begin(ienv, NULL, MDB_RDONLY, &itxn) || mdb_dbi_open(itxn, NULL, 0, &main) ||
        mdb_cursor_open(itxn, main, &names))
        abort();
    for (rc = mdb_cursor_get(names, &name, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(names, &name, &v, MDB_NEXT)) {
        char n[64];
        if (name.mv_size >= sizeof(n))
            abort();
        memcpy(n, name.mv_data, name.mv_size);
        n[name.mv_size] = '\0';
        if (strcmp(n, "index_state") == 0)
            continue;
        if (mdb_dbi_open(itxn, n, 0, &src) || mdb_dbi_open(txn, n, MDB_CREATE, &dst) ||
            mdb_cursor_open(itxn, src, &cur))
            abort();
        for (int r2 = mdb_cursor_get(cur, &k, &v, MDB_FIRST); r2 == 0;
             r2 = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
            if (mdb_put(txn, dst, &k, &v, 0))
                abort();
        mdb_cursor_close(cur);
    }
    mdb_cursor_close(names);
    mdb_txn_abort(itxn);
    mdb_env_close(ienv);
    if (mdb_dbi_open(txn, "meta", 0, &dst) || mdb_put(txn, dst, &mk, &mv, 0) || mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    unlink(path);
    snprintf(path, sizeof(path), "%s/index.mdb-lock", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/index.unsynced", dir);
    unlink(path);
}

/* Writes a raw value into a table, as an attacker with the disk could. */
static inline void tamper(const char *dir, const char *table, const void *key, size_t klen,
                          size_t byte_offset)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k = {klen, (void *)key}, v;
    uint8_t *copy;

    if (test_env_open(dir, table, 0, &env) || mdb_txn_begin(env, NULL, 0, &txn) ||
        mdb_dbi_open(txn, table, 0, &dbi) || mdb_get(txn, dbi, &k, &v))
        abort();
    switch (test_data_file_flip(dir, table, &v, byte_offset)) {
    case 1: /* the bytes are in layout 4's data file */
        mdb_txn_abort(txn);
        mdb_env_close(env);
        return;
    case -1:
        abort();
    }
    copy = malloc(v.mv_size);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[byte_offset % v.mv_size] ^= 0x01;
    v.mv_data = copy;
    if (mdb_put(txn, dbi, &k, &v, 0) || mdb_txn_commit(txn))
        abort();
    free(copy);
    mdb_env_close(env);
}

/* What a store an older index wrote looks like before its first writable
 * open: the index's tables there, under no index name of today's. Made of
 * a log-only store by writing LMDB directly, as a test may (tamper, above,
 * does too): its "plain" mark goes, the index's tables come. */
static inline void as_written_by_an_older_index(const char *dir)
{
    static const char *const tables[] = {"runs", "run_entries", "groups"};
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k = {5, (void *)"plain"};

    as_layout_2(dir);
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 32) || mdb_env_open(env, dir, 0, 0600) ||
        mdb_txn_begin(env, NULL, 0, &txn) || mdb_dbi_open(txn, "meta", 0, &dbi) ||
        mdb_del(txn, dbi, &k, NULL))
        abort();
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        if (mdb_dbi_open(txn, tables[i], MDB_CREATE, &dbi))
            abort();
    if (mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
}

/* Opens a store that as_layout_2, as_layout_3 or as_written_by_an_older_index
 * made older, converting it to today's layout as kixd migrate and kixd serve
 * do (kix_store_opts.convert; any other writable open refuses it). */
static inline int open_converting(const char *dir, struct kix_log **out, struct kix_err *err)
{
    struct kix_log_opts o;

    memset(&o, 0, sizeof(o));
    o.store.convert = 1;
    return kix_index_open(dir, &o, out, err);
}

static inline int keep_index_note(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                                  const uint8_t *index_note, size_t index_len)
{
    struct kix_buf *all = ctx;
    (void)note;
    (void)len;
    return kix_buf_addf(all, "%llu:", (unsigned long long)size) ||
                   kix_buf_add(all, index_note ? index_note : (const uint8_t *)"-",
                               index_note ? index_len : 1)
               ? KIX_ENOMEM
               : 0;
}

/* Every checkpoint's size and index note ("-" where none), in order: what
 * two stores must agree on byte for byte after a rebuild or a replay. */
static inline void all_index_notes(struct kix_log *l, struct kix_buf *out)
{
    struct kix_log_reader *r;
    if (kix_log_read_begin(l, &r) || kix_log_reader_checkpoints(r, 0, 100000, keep_index_note, out))
        abort();
    kix_log_read_end(r);
}

#endif
