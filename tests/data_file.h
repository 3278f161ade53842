/* Store layout 4's data file (DIR/log.dat) for tests and test tools that
 * edit a store as an attacker with the disk, or make an older layout of a
 * newer store: "leaves" and "blobs" there hold a 12-byte locator (u64be
 * offset ‖ u32be length) into the file, not the bytes. */
#ifndef KIX_TEST_DATA_FILE_H
#define KIX_TEST_DATA_FILE_H

#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int test_data_table(const char *table)
{
    return strcmp(table, "leaves") == 0 || strcmp(table, "blobs") == 0;
}

static inline void test_locator(const MDB_val *v, uint64_t *off, uint64_t *len)
{
    const uint8_t *p = v->mv_data;
    *off = *len = 0;
    for (int i = 0; i < 8; i++)
        *off = *off << 8 | p[i];
    for (int i = 8; i < 12; i++)
        *len = *len << 8 | p[i];
}

/* Flips the lowest bit of byte byte_offset (modulo its length) of the
 * record whose value v is, in the data file when v is a locator there:
 * 1 done there, 0 v holds the bytes itself (an older layout), -1 failed. */
static inline int test_data_file_flip(const char *dir, const char *table, const MDB_val *v,
                                      size_t byte_offset)
{
    char path[4200];
    uint64_t off, len;
    unsigned char c;
    FILE *f;
    int ok;

    snprintf(path, sizeof(path), "%s/log.dat", dir);
    if (!test_data_table(table) || v->mv_size != 12 || access(path, F_OK) != 0)
        return 0;
    test_locator(v, &off, &len);
    if (len == 0 || !(f = fopen(path, "r+b")))
        return -1;
    off += byte_offset % len;
    ok = fseek(f, (long)off, SEEK_SET) == 0 && fread(&c, 1, 1, f) == 1;
    c ^= 0x01;
    ok = ok && fseek(f, (long)off, SEEK_SET) == 0 && fwrite(&c, 1, 1, f) == 1;
    return fclose(f) == 0 && ok ? 1 : -1;
}

/* The layout-4 store's tables "leaves" and "blobs" given their bytes
 * again (in txn of its data.mdb), log.dat read whole; 0, or -1. The caller
 * sets the layout mark and removes log.dat after its commit. */
static inline int test_data_file_inline(const char *dir, MDB_txn *txn)
{
    static const char *const tables[] = {"leaves", "blobs"};
    char path[4200];
    FILE *f;
    long size;
    unsigned char *all;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/log.dat", dir);
    f = fopen(path, "rb");
    if (!f)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(all = malloc((size_t)size + 1)) || fread(all, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        return -1;
    }
    fclose(f);
    for (size_t t = 0; rc == 0 && t < 2; t++) {
        MDB_dbi dbi;
        MDB_cursor *cur;
        MDB_val k, v;
        uint8_t(*recs)[20] = NULL; /* key(8) ‖ locator(12), read before any put */
        size_t n = 0, cap = 0;
        rc = mdb_dbi_open(txn, tables[t], 0, &dbi) || mdb_cursor_open(txn, dbi, &cur) ? -1 : 0;
        for (int r = rc ? 1 : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && r == 0;
             r = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
            if (k.mv_size != 8 || v.mv_size != 12) {
                rc = -1;
                break;
            }
            if (n == cap) {
                void *p = realloc(recs, (cap = cap ? cap * 2 : 256) * sizeof(*recs));
                if (!p) {
                    rc = -1;
                    break;
                }
                recs = p;
            }
            memcpy(recs[n], k.mv_data, 8);
            memcpy(recs[n++] + 8, v.mv_data, 12);
        }
        if (rc == 0)
            mdb_cursor_close(cur);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            MDB_val lv = {12, recs[i] + 8}, nk = {8, recs[i]}, bytes;
            uint64_t off, len;
            test_locator(&lv, &off, &len);
            bytes.mv_size = (size_t)len;
            bytes.mv_data = all + off;
            rc = off + len > (uint64_t)size || mdb_put(txn, dbi, &nk, &bytes, 0) ? -1 : 0;
        }
        free(recs);
    }
    free(all);
    return rc;
}

#endif
