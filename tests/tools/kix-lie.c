/* kix-lie — what a log operator who holds the log key can do to its own
 * index: change what a comparison group says, then recompute the index
 * tree over the lie and sign a new index note for the latest checkpoint,
 * so that every proof the server sends verifies against a signed root.
 *
 *   kix-lie STORE_DIR drop GROUP_HEX RUN_ID [--no-sign | --table-only]
 *       removes RUN_ID from its comparison group (the groups table), then
 *       rewrites the group's directory and pages in the tree; with --no-sign the signed
 *       index note is left as it was (the tree then disagrees with it);
 *       with --table-only the tree is left as well (the server's query
 *       answers then disagree with its honest signed index)
 *   kix-lie STORE_DIR withhold RUN_ID INDEX
 *       removes entry INDEX from RUN_ID's entry list (its records beside the
 *       run's in runs, store layout 2): the server then leaves it out of
 *       every answer
 *
 * Only a client that recomputes (kix audit, a mirror, kixd check) can catch
 * the signed lie; a client catches the unsigned one and the withheld entry
 * on the spot. Tests use it to play a lying server. Not installed. */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/note.h"
#include "kix/smt.h"
#include "kix/vindex.h"

/* Layout 3: the index's tables (groups, runs, smt) are in STORE/index.mdb
 * (env, txn), the signed index notes in STORE/data.mdb (log_env,
 * log_txn). */
static MDB_env *env, *log_env;
static MDB_txn *txn, *log_txn;

static MDB_dbi table_in(MDB_txn *t, const char *name)
{
    MDB_dbi dbi;
    if (mdb_dbi_open(t, name, 0, &dbi)) {
        fprintf(stderr, "kix-lie: no table %s\n", name);
        exit(1);
    }
    return dbi;
}

static MDB_dbi table(const char *name)
{
    return table_in(txn, name);
}

/* The tree's tiles (kix_smt_tiles) in the smt table, under the keys the
 * index stores them at (kix_index_smt_store_key), packed as it packs them
 * (kix_smt_tile_pack, kix-index/7). */
static int tile_get(void *ctx, const uint8_t *k, size_t klen, struct kix_bytes *out,
                    struct kix_err *err)
{
    static uint8_t unpacked[KIX_SMT_TILE_MAX];
    uint8_t sk[KIX_SMT_TILE_KEY_MAX];
    MDB_val key = {kix_index_smt_store_key(k, klen, sk), sk}, val;
    int rc = mdb_get(txn, *(MDB_dbi *)ctx, &key, &val);
    size_t len = 0;
    (void)err;
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc || kix_smt_tile_unpack(val.mv_data, val.mv_size, unpacked, &len))
        return KIX_EIO;
    out->ptr = unpacked;
    out->len = len;
    return KIX_OK;
}

static int tile_put(void *ctx, const uint8_t *k, size_t klen, const uint8_t *v, size_t vlen,
                    struct kix_err *err)
{
    uint8_t sk[KIX_SMT_TILE_KEY_MAX], packed[KIX_SMT_TILE_MAX];
    MDB_val key = {kix_index_smt_store_key(k, klen, sk), sk}, val = {0, packed};
    (void)err;
    if (vlen > KIX_SMT_TILE_MAX)
        return KIX_EINVAL;
    val.mv_size = kix_smt_tile_pack(v, vlen, packed);
    return mdb_put(txn, *(MDB_dbi *)ctx, &key, &val, 0) ? KIX_EIO : KIX_OK;
}

/* One record of the tree to rewrite. */
static void put_update(struct kix_smt_update *ups, size_t *n, const char *key, size_t klen,
                       const struct kix_buf *rec)
{
    kix_smt_path(key, klen, &ups[*n].path);
    kix_smt_value_hash(rec->ptr, rec->len, &ups[*n].value_hash);
    (*n)++;
}

static void close_page(const struct kix_digest *g, const char *page_id, uint64_t count,
                       struct kix_buf *members, struct kix_buf *dir, const char *first_id,
                       uint64_t first_value, struct kix_smt_update *ups, size_t *n)
{
    struct kix_buf rec = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];

    if (kix_vindex_page_begin(g, page_id, count, &rec) ||
        kix_buf_add(&rec, members->ptr, members->len) ||
        kix_vindex_group_page_add(count, count ? first_id : "", count ? first_value : 0, dir))
        exit(1);
    put_update(ups, n, key, kix_vindex_key_group_page(g, page_id, key), &rec);
    kix_buf_release(&rec);
    kix_buf_reset(members);
}

/* The group's prefix in the groups table: its number, which the runs
 * table keeps under 0 ‖ 'g' ‖ key (store/index/numbers.c, kix-index/9). */
#define PREFIX 4
static void group_prefix(const struct kix_digest *g, uint8_t out[PREFIX])
{
    uint8_t nk[2 + 32] = {0, 'g'};
    MDB_val k = {sizeof(nk), nk}, v;

    memcpy(nk + 2, g->b, 32);
    if (mdb_get(txn, table("runs"), &k, &v) || v.mv_size != PREFIX) {
        fprintf(stderr, "kix-lie: no such group\n");
        exit(1);
    }
    memcpy(out, v.mv_data, PREFIX);
}

/* The group's directory and every page as its (edited) table now says,
 * into ups (room for one more than the group's members, plus one). */
static void group_records(const struct kix_digest *g, struct kix_smt_update *ups, size_t *nups)
{
    MDB_dbi groups = table("groups");
    MDB_cursor *cur;
    uint8_t prefix[PREFIX];
    MDB_val k = {PREFIX, prefix}, v;
    struct kix_buf members = KIX_BUF_INIT, dir = KIX_BUF_INIT, rec = KIX_BUF_INIT;
    char page_id[KIX_RUN_ID_MAX + 1] = "", first_id[KIX_RUN_ID_MAX + 1] = "";
    char key[KIX_VINDEX_KEY_MAX + 1];
    uint64_t n = 0, in_page = 0, pages = 1, first_value = 0;

    group_prefix(g, prefix);
    mdb_cursor_open(txn, groups, &cur);
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
         rc == 0 && k.mv_size > PREFIX + 8 && memcmp(k.mv_data, prefix, PREFIX) == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        char id[KIX_RUN_ID_MAX + 1];
        size_t len = k.mv_size - PREFIX - 8;
        uint64_t value = kix_u64be_get((const uint8_t *)k.mv_data + PREFIX);
        memcpy(id, (const uint8_t *)k.mv_data + PREFIX + 8, len);
        id[len] = '\0';
        if (v.mv_size == 1 && ((const uint8_t *)v.mv_data)[0] == 1) {
            close_page(g, page_id, in_page, &members, &dir, first_id, first_value, ups, nups);
            memcpy(page_id, id, sizeof(id));
            in_page = 0;
            pages++;
        }
        if (in_page++ == 0) {
            memcpy(first_id, id, sizeof(id));
            first_value = value;
        }
        if (kix_vindex_group_add(id, value, &members))
            exit(1);
        n++;
    }
    mdb_cursor_close(cur);
    close_page(g, page_id, in_page, &members, &dir, first_id, first_value, ups, nups);
    if (kix_vindex_group_begin(g, n, pages, &rec) || kix_buf_add(&rec, dir.ptr, dir.len))
        exit(1);
    put_update(ups, nups, key, kix_vindex_key_group(g, key), &rec);
    kix_buf_release(&members);
    kix_buf_release(&dir);
    kix_buf_release(&rec);
}

static int by_path(const void *a, const void *b)
{
    return memcmp(((const struct kix_smt_update *)a)->path.b,
                  ((const struct kix_smt_update *)b)->path.b, 32);
}

/* Signs a new index note with `root` for the latest checkpoint. */
static void resign(const char *dir, const struct kix_hash *root)
{
    MDB_dbi notes = table_in(log_txn, "index_notes");
    MDB_cursor *cur;
    MDB_val k, v;
    struct kix_signer *signer;
    struct kix_verifier vk;
    struct kix_vindex_note n;
    struct kix_buf text = KIX_BUF_INIT, note = KIX_BUF_INIT;
    struct kix_err err = {0};
    char path[4096];

    snprintf(path, sizeof(path), "%s/log.key", dir);
    if (kix_keyfile_read(path, &signer, &err)) {
        fprintf(stderr, "kix-lie: %s\n", err.msg);
        exit(1);
    }
    kix_verifier_from_signer(signer, &vk);
    mdb_cursor_open(log_txn, notes, &cur);
    if (mdb_cursor_get(cur, &k, &v, MDB_LAST) ||
        kix_vindex_note_open(v.mv_data, v.mv_size, &vk, NULL, &n, &err)) {
        fprintf(stderr, "kix-lie: no index note to replace: %s\n", err.msg);
        exit(1);
    }
    n.index_root = *root;
    if (kix_vindex_note_text(&n, &text) ||
        kix_note_sign((const char *)text.ptr, text.len, &signer, 1, &note, &err)) {
        fprintf(stderr, "kix-lie: signing: %s\n", err.msg);
        exit(1);
    }
    v.mv_data = note.ptr;
    v.mv_size = note.len;
    if (mdb_cursor_put(cur, &k, &v, MDB_CURRENT))
        exit(1);
    mdb_cursor_close(cur);
    kix_buf_release(&text);
    kix_buf_release(&note);
    kix_signer_free(signer);
}

enum lie { SIGNED, UNSIGNED, TABLE_ONLY };

static void drop(const char *dir, const char *group_hex, const char *run_id, enum lie how)
{
    MDB_dbi groups = table("groups"), smt = table("smt");
    MDB_cursor *cur;
    MDB_val k, v;
    struct kix_digest g;
    uint8_t prefix[PREFIX];
    struct kix_smt_tiles tiles;
    struct kix_smt_update *ups;
    struct kix_buf rec = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];
    struct kix_hash root;
    size_t idlen = strlen(run_id), nups = 0, members = 0;
    int found = 0, started = 0;

    if (kix_hex_decode(group_hex, strlen(group_hex), g.b, 32)) {
        fprintf(stderr, "kix-lie: GROUP_HEX must be 64 hex digits\n");
        exit(2);
    }
    group_prefix(&g, prefix);
    k.mv_size = PREFIX;
    k.mv_data = prefix;
    mdb_cursor_open(txn, groups, &cur);
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
         rc == 0 && k.mv_size >= PREFIX && memcmp(k.mv_data, prefix, PREFIX) == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        members++;
        if (k.mv_size == PREFIX + 8 + idlen &&
            memcmp((const uint8_t *)k.mv_data + PREFIX + 8, run_id, idlen) == 0) {
            started = v.mv_size == 1 && ((const uint8_t *)v.mv_data)[0] == 1;
            found = mdb_cursor_del(cur, 0) == 0;
        }
    }
    mdb_cursor_close(cur);
    if (!found) {
        fprintf(stderr, "kix-lie: run %s is not in that group\n", run_id);
        exit(1);
    }
    if (how == TABLE_ONLY)
        return;
    /* room for a page per member, the first page, the directory, the run's */
    ups = calloc(members + 4, sizeof(*ups));
    if (!ups)
        exit(1);
    group_records(&g, ups, &nups);
    if (started) { /* its page stays in the tree, with no member */
        if (kix_vindex_page_begin(&g, run_id, 0, &rec))
            exit(1);
        put_update(ups, &nups, key, kix_vindex_key_group_page(&g, run_id, key), &rec);
    }
    qsort(ups, nups, sizeof(*ups), by_path);
    kix_smt_tiles_init(&tiles, tile_get, tile_put, &smt);
    if (kix_smt_apply(&tiles.io, ups, nups, &root, NULL) || kix_smt_tiles_flush(&tiles, NULL)) {
        fprintf(stderr, "kix-lie: rewriting the tree failed\n");
        exit(1);
    }
    kix_smt_tiles_release(&tiles);
    if (how == SIGNED)
        resign(dir, &root);
    free(ups);
    kix_buf_release(&rec);
}

static void withhold(const char *run_id, unsigned long long index)
{
    MDB_dbi entries = table("runs"); /* run id ‖ 00 ‖ index (PROTOCOL.md §7) */
    uint8_t k[KIX_RUN_ID_MAX + 9];
    size_t n = strlen(run_id);
    MDB_val key = {n + 9, k};

    memcpy(k, run_id, n);
    k[n] = 0;
    kix_u64be_put(k + n + 1, index);
    if (mdb_del(txn, entries, &key, NULL)) {
        fprintf(stderr, "kix-lie: run %s lists no entry %llu\n", run_id, index);
        exit(1);
    }
}

static int open_env(MDB_env **e, MDB_txn **t, const char *path, unsigned flags)
{
    return mdb_env_create(e) || mdb_env_set_maxdbs(*e, 32) || mdb_env_set_mapsize(*e, 1ull << 36) ||
           mdb_env_open(*e, path, flags, 0600) || mdb_txn_begin(*e, NULL, 0, t);
}

int main(int argc, char **argv)
{
    char index_path[4200];

    if (argc < 4) {
        fprintf(stderr,
                "usage: kix-lie STORE_DIR drop GROUP_HEX RUN_ID [--no-sign | --table-only]\n"
                "       kix-lie STORE_DIR withhold RUN_ID INDEX\n");
        return 2;
    }
    snprintf(index_path, sizeof(index_path), "%s/index.mdb", argv[1]);
    if (open_env(&log_env, &log_txn, argv[1], 0) ||
        open_env(&env, &txn, index_path, MDB_NOSUBDIR)) {
        fprintf(stderr, "kix-lie: cannot open %s\n", argv[1]);
        return 1;
    }
    if (strcmp(argv[2], "drop") == 0 && argc == 5)
        drop(argv[1], argv[3], argv[4], SIGNED);
    else if (strcmp(argv[2], "drop") == 0 && argc == 6 && strcmp(argv[5], "--no-sign") == 0)
        drop(argv[1], argv[3], argv[4], UNSIGNED);
    else if (strcmp(argv[2], "drop") == 0 && argc == 6 && strcmp(argv[5], "--table-only") == 0)
        drop(argv[1], argv[3], argv[4], TABLE_ONLY);
    else if (strcmp(argv[2], "withhold") == 0 && argc == 5)
        withhold(argv[3], strtoull(argv[4], NULL, 10));
    else
        return 2;
    /* the index first, as kixd commits: it is synced here, as a clean
     * close syncs it */
    if (mdb_txn_commit(txn) || mdb_env_sync(env, 1) || mdb_txn_commit(log_txn)) {
        fprintf(stderr, "kix-lie: commit failed\n");
        return 1;
    }
    mdb_env_close(env);
    mdb_env_close(log_env);
    return 0;
}
