/* The index written again in key order (layout 3's index.mdb, split.c).
 *
 * Most of the index's tables take random keys (digests, subjects, the
 * layer's keys), so LMDB splits their pages in the middle and
 * they stay ~60% full; a bulk commit (a derivation, a migration, a batch
 * build) also leaves every page it rewrote on the free list. Written
 * again table by table in key order with MDB_APPEND, each page is filled
 * whole before the next and no page is free: a 10^4-entry log's index
 * falls from 5,075 pages to 2,274 (tools/bench/RESULTS.md).
 *
 * kix_store_close does it when the index at least doubled since the open
 * (a derivation from scratch, a bulk build): its cost, one read and one
 * write of the index, is then at most what the open wrote already. The
 * copy is made under another name, synced, and renamed over index.mdb
 * after the environment closed (the directory synced): a crash leaves
 * either index whole, and a writable open removes a leftover copy. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log_internal.h"

#define COMPACT_SUFFIX ".compact"
/* smaller indexes are left as they are: the gain is a few pages */
#define COMPACT_MIN_PAGES 16

static void compact_path(const struct kix_store *s, const char *suffix, char *out, size_t cap)
{
    snprintf(out, cap, "%s/" KIX__INDEX_FILE COMPACT_SUFFIX "%s", s->dir, suffix);
}

void kix__compact_remove_leftover(const struct kix_store *s)
{
    char path[4200];

    compact_path(s, "", path, sizeof(path));
    unlink(path);
    compact_path(s, "-lock", path, sizeof(path));
    unlink(path);
}

int kix__copy_table_sorted(MDB_txn *from, MDB_dbi src, MDB_txn *to, MDB_dbi dst)
{
    MDB_cursor *cur;
    MDB_val k, v;
    int rc = mdb_cursor_open(from, src, &cur);

    if (rc)
        return rc;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        rc = mdb_put(to, dst, &k, &v, MDB_APPEND); /* in key order: each page filled whole */
        if (rc)
            break; /* not the next get's: a failed put (a full map) must stop the copy */
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* Every named table of from (its main table's keys), made in to and
 * copied in key order: 0 or an LMDB error. */
static int copy_sorted_tables(MDB_txn *from, MDB_txn *to)
{
    MDB_cursor *names;
    MDB_val k, v;
    MDB_dbi main_dbi;
    int rc = mdb_dbi_open(from, NULL, 0, &main_dbi);

    if (rc == 0)
        rc = mdb_cursor_open(from, main_dbi, &names);
    if (rc)
        return rc;
    for (rc = mdb_cursor_get(names, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(names, &k, &v, MDB_NEXT)) {
        char name[256];
        MDB_dbi src, dst;
        unsigned flags;
        if (k.mv_size == 0 || k.mv_size >= sizeof(name) || memchr(k.mv_data, 0, k.mv_size)) {
            rc = MDB_INCOMPATIBLE; /* not a table's name: the main table holds only those */
            break;
        }
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        rc = mdb_dbi_open(from, name, 0, &src);
        if (rc == 0)
            rc = mdb_dbi_flags(from, src, &flags);
        if (rc == 0)
            rc = mdb_dbi_open(to, name, MDB_CREATE | (flags & ~MDB_CREATE), &dst);
        if (rc == 0 && !(flags & MDB_DUPSORT)) /* the index has none; a copy must not reorder */
            rc = kix__copy_table_sorted(from, src, to, dst);
        else if (rc == 0)
            rc = MDB_INCOMPATIBLE;
        if (rc)
            break;
    }
    mdb_cursor_close(names);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* Writes the snapshot of s->ienv that a read transaction sees to path
 * (MDB_NOSUBDIR), its tables in key order, and syncs it. */
int kix__index_copy_sorted(struct kix_store *s, const char *path, struct kix_err *err)
{
    MDB_env *env = NULL;
    MDB_txn *from = NULL, *to = NULL;
    char lock[4300];
    int rc = mdb_env_create(&env);

    unlink(path);
    snprintf(lock, sizeof(lock), "%s-lock", path);
    unlink(lock);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, KIX_LOG_TABLES_MAX + 4);
    if (rc == 0)
        rc = mdb_env_set_mapsize(env, s->map_size);
    if (rc == 0)
        rc = mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOTLS | MDB_NOSYNC, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(s->ienv, NULL, MDB_RDONLY, &from);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &to);
    if (rc == 0)
        rc = copy_sorted_tables(from, to);
    if (rc == 0) {
        rc = mdb_txn_commit(to); /* frees to, committed or not */
        to = NULL;
    }
    /* an empty commit after it: both meta pages name the copy, whichever
     * one a reader's lock file points it to */
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &to);
    if (rc == 0) {
        rc = mdb_txn_commit(to);
        to = NULL;
    }
    if (rc == 0)
        rc = mdb_env_sync(env, 1);
    if (to)
        mdb_txn_abort(to);
    if (from)
        mdb_txn_abort(from);
    if (env)
        mdb_env_close(env);
    unlink(lock);
    if (rc) {
        unlink(path);
        return kix__db_error(rc, err, "copying the index");
    }
    return KIX_OK;
}

int kix__compact_worth(const struct kix_store *s)
{
    MDB_envinfo info;

    if (s->read_only || !s->opened || !s->ienv || mdb_env_info(s->ienv, &info) != 0)
        return 0;
    return s->compact || (info.me_last_pgno + 1 >= COMPACT_MIN_PAGES &&
                          info.me_last_pgno + 1 >= 2 * s->ipages_at_open);
}

int kix__compact_prepare(struct kix_store *s, struct kix_err *err)
{
    char path[4200];

    compact_path(s, "", path, sizeof(path));
    return kix__index_copy_sorted(s, path, err);
}

int kix__compact_install(struct kix_store *s, struct kix_err *err)
{
    char from[4200], to[4200];
    int e = 0;

    compact_path(s, "", from, sizeof(from));
    snprintf(to, sizeof(to), "%s/" KIX__INDEX_FILE, s->dir);
    /* the lock file stays: a reader in another process that opened the old
     * file keeps its slot in it, which a writer of the copy then sees (it
     * reads a file nobody writes any more); one that opens the copy with
     * it finds the copy under either meta page */
    if (rename(from, to) != 0)
        e = errno;
    if (e == 0)
        e = kix__sync_path(s->dir, O_DIRECTORY);
    if (e) {
        unlink(from);
        return kix_err_set(err, KIX_EIO, "installing the compacted index: %s", strerror(e));
    }
    return KIX_OK;
}
