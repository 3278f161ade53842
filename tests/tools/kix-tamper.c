/* kix-tamper — what an attacker with write access to a store's disk can do:
 * flip one byte of one record in one table, recomputing nothing.
 *
 *   kix-tamper STORE_DIR TABLE KEY_HEX|u64:N BYTE_OFFSET
 *
 * Tests use it to play a lying server. Not installed; not for users. */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data_file.h"

/* Layout 3: the log's own tables are in STORE/data.mdb, every derived
 * one (objects, signers, the index's) in STORE/index.mdb. */
static int open_env_of(MDB_env *env, const char *dir, const char *table)
{
    static const char *const log[] = {
        "meta", "blobs",    "leaves",       "leaf_index", "tiles",       "checkpoints",
        "keys", "subjects", "cosignatures", "statements", "index_notes", "index_cosignatures"};
    char path[4200];
    int in_log = 0;

    for (size_t i = 0; i < sizeof(log) / sizeof(log[0]); i++)
        in_log |= strcmp(table, log[i]) == 0;
    snprintf(path, sizeof(path), "%s/index.mdb", dir);
    if (!in_log && access(path, F_OK) == 0)
        return mdb_env_open(env, path, MDB_NOSUBDIR, 0600);
    return mdb_env_open(env, dir, 0, 0600);
}

static int parse_key(const char *text, unsigned char *out, size_t *len)
{
    if (strncmp(text, "u64:", 4) == 0) {
        unsigned long long v = strtoull(text + 4, NULL, 10);
        for (int i = 7; i >= 0; i--, v >>= 8)
            out[i] = (unsigned char)v;
        *len = 8;
        return 0;
    }
    *len = strlen(text) / 2;
    for (size_t i = 0; i < *len; i++)
        if (sscanf(text + 2 * i, "%2hhx", &out[i]) != 1)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k, v;
    unsigned char key[512], *copy;
    size_t klen, off;

    if (argc != 5 || parse_key(argv[3], key, &klen)) {
        fprintf(stderr, "usage: kix-tamper STORE_DIR TABLE KEY_HEX|u64:N BYTE_OFFSET\n");
        return 2;
    }
    off = strtoull(argv[4], NULL, 10);
    k.mv_data = key;
    k.mv_size = klen;
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 32) ||
        mdb_env_set_mapsize(env, 1ull << 36) || open_env_of(env, argv[1], argv[2]) ||
        mdb_txn_begin(env, NULL, 0, &txn) || mdb_dbi_open(txn, argv[2], 0, &dbi) ||
        mdb_get(txn, dbi, &k, &v)) {
        fprintf(stderr, "kix-tamper: cannot find that record\n");
        return 1;
    }
    switch (test_data_file_flip(argv[1], argv[2], &v, off)) {
    case 1: /* the bytes are in layout 4's data file */
        mdb_txn_abort(txn);
        mdb_env_close(env);
        return 0;
    case -1:
        fprintf(stderr, "kix-tamper: cannot write the data file\n");
        return 1;
    }
    copy = malloc(v.mv_size);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[off % v.mv_size] ^= 0x01;
    v.mv_data = copy;
    if (mdb_put(txn, dbi, &k, &v, 0) || mdb_txn_commit(txn)) {
        fprintf(stderr, "kix-tamper: write failed\n");
        return 1;
    }
    free(copy);
    mdb_env_close(env);
    return 0;
}
