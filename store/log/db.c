/* The LMDB environment: open, tables, map growth, the write retry loop. */
#include "db.h"

#include "kix/assert.h"
#include "kix/encoding.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const table_names[T_COUNT] = {
    "meta",         "blobs",
    "objects",      "leaves",
    "leaf_index",   "tiles",
    "checkpoints",  "keys",
    "subjects",     "signers",
    "cosignatures", "statements",
    "index_notes",  "index_cosignatures",
};

#define DEFAULT_MAP_INITIAL ((size_t)64 << 20)
#define DEFAULT_MAP_MAX     ((size_t)1 << 40)
#define LOW_SPACE           (4ull << 20) /* free bytes under which a failed write means full */

int kix__db_get_u64(struct kix_store *s, MDB_txn *txn, int table, uint64_t k, struct kix_bytes *out)
{
    uint8_t kb[8];
    MDB_val key = {8, kb}, val;
    int rc;

    kix_u64be_put(kb, k);
    rc = mdb_get(txn, s->dbi[table], &key, &val);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc)
        return kix__db_error(rc, NULL, "reading the log");
    if ((table == T_LEAVES || table == T_BLOBS) && (rc = kix__seg_view(s, &val)) != KIX_OK)
        return rc;
    out->ptr = val.mv_data;
    out->len = val.mv_size;
    return KIX_OK;
}

/* Whether this thread's write transaction met MDB_MAP_FULL. After a failed
 * put LMDB fails every later call of the transaction, so a layer above that
 * drops a put's code (a cache write) or reports the next read's failure
 * instead still has the transaction retried in a bigger map. */
static _Thread_local int write_map_full;

/* The store whose write transaction this thread runs (kix__db_write), so
 * that every put can assert it is made under the write lock. */
static _Thread_local const struct kix_store *writing;

int kix__db_writing(const struct kix_store *s)
{
    return writing == s;
}

int kix__db_error(int rc, struct kix_err *err, const char *what)
{
    switch (rc) {
    case 0:
        return KIX_OK;
    case MDB_NOTFOUND:
        return kix_err_set(err, KIX_ENOTFOUND, "%s: not found", what);
    case MDB_MAP_FULL:
        /* Never leaves the store: kix__db_write grows the map and retries. */
        write_map_full = 1;
        return kix_err_set(err, KIX__EMAPFULL, "%s: map full", what);
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
        return kix_err_set(err, KIX_ECORRUPT,
                           "%s: %s; run kixd check --store DIR and restore from a mirror", what,
                           mdb_strerror(rc));
    case ENOSPC:
        return kix_err_set(err, KIX_EFULL,
                           "%s: no space left on the device holding the store; nothing was "
                           "written (reads go on): free disk space, then submit again",
                           what);
    case ENOMEM:
        return kix_err_set(err, KIX_ENOMEM, "%s: out of memory", what);
    default:
        return kix_err_set(err, KIX_EIO, "%s: %s", what, mdb_strerror(rc));
    }
}

/* The layer above's tables: a read-only open of a store without one notes
 * it absent (log.c decides whether that may be). */
int kix__open_layer_tables(struct kix_store *s, MDB_txn *txn,
                           const struct kix_log_table_spec *tables, struct kix_err *err)
{
    for (size_t i = 0; i < s->ntables; i++) {
        int rc = mdb_dbi_open(txn, tables[i].name, s->read_only ? 0 : MDB_CREATE, &s->table_dbi[i]);
        s->table_flags[i] = tables[i].flags;
        if (rc == MDB_NOTFOUND && s->read_only) {
            s->table_absent[i] = 1;
            continue;
        }
        if (rc)
            return kix__db_error(rc, err, "opening a table");
    }
    return KIX_OK;
}

/* The layout the store was written in (db.h). A store with no entry yet
 * opened to write takes today's; one with entries and no mark is layout 1,
 * which kix_log_open converts. */
static int read_layout(struct kix_store *s, MDB_txn *txn, struct kix_err *err)
{
    static const char name[] = "layout";
    MDB_val key = {sizeof(name) - 1, (void *)name}, val;
    MDB_stat st;
    char text[8];
    int rc = mdb_get(txn, s->dbi[T_META], &key, &val);

    if (rc == 0) {
        if (val.mv_size == 0 || val.mv_size >= sizeof(text))
            return kix_err_set(err, KIX_ECORRUPT,
                               "store metadata layout is malformed; run kixd check --store DIR");
        memcpy(text, val.mv_data, val.mv_size);
        text[val.mv_size] = '\0';
        s->layout = atoi(text);
        if (s->layout > KIX__LAYOUT)
            return kix_err_set(err, KIX_EINVAL,
                               "the store is in layout %d, written by a newer kix than this one "
                               "(layout %d): run a newer kixd",
                               s->layout, KIX__LAYOUT);
        if (s->layout < 1)
            return kix_err_set(err, KIX_ECORRUPT,
                               "store metadata layout is malformed; run kixd check --store DIR");
        return KIX_OK;
    }
    if (rc != MDB_NOTFOUND)
        return kix__db_error(rc, err, "reading store metadata");
    rc = mdb_stat(txn, s->dbi[T_LEAVES], &st);
    if (rc)
        return kix__db_error(rc, err, "reading the log");
    s->layout = st.ms_entries > 0 || s->read_only ? 1 : KIX__LAYOUT;
    if (s->layout == 1)
        return KIX_OK;
    snprintf(text, sizeof(text), "%d", KIX__LAYOUT);
    val.mv_size = strlen(text);
    val.mv_data = text;
    rc = mdb_put(txn, s->dbi[T_META], &key, &val, 0);
    return rc ? kix__db_error(rc, err, "writing store metadata") : KIX_OK;
}

void kix__subject_key(uint8_t k[KIX__SUBJECT_KEY_LEN], const uint8_t subject[32], uint64_t index)
{
    memcpy(k, subject, 32);
    kix_u64be_put(k + 32, index);
}

void kix__statement_key(uint8_t k[KIX__STATEMENT_KEY_LEN], const uint8_t subject[32],
                        const uint8_t statement_hash[32])
{
    /* after every subject record of the digest (their index's top byte is
     * 0 below 2^56 entries), so a scan of those stops at the first */
    memcpy(k, subject, 32);
    k[32] = KIX__STATEMENT_TAG;
    memcpy(k + 33, statement_hash, 32);
}

void kix__statement_val(uint8_t v[KIX__STATEMENT_VAL_LEN], uint64_t index,
                        const struct kix_hash *leaf_hash)
{
    kix_u64be_put(v, index);
    memcpy(v + 8, leaf_hash->b, 32);
}

MDB_dbi kix__subjects_dbi(const struct kix_store *s)
{
    return s->layout >= 2 ? kix__dbi(s, T_OBJECTS) : s->dbi[T_SUBJECTS];
}

MDB_txn *kix__witxn(const struct kix_store *s)
{
    KIX_ASSERT(writing == s && s->w_itxn);
    return s->w_itxn;
}

static int open_tables(struct kix_store *s, const struct kix_log_table_spec *tables,
                       struct kix_err *err)
{
    MDB_txn *txn = NULL;
    unsigned flags = s->read_only ? MDB_RDONLY : 0;
    int rc = mdb_txn_begin(s->env, NULL, flags, &txn);

    if (rc)
        return kix__db_error(rc, err, "opening the store's tables");
    for (int t = 0; t < T_COUNT; t++) {
        rc = mdb_dbi_open(txn, table_names[t], s->read_only ? 0 : MDB_CREATE, &s->dbi[t]);
        if (rc == MDB_NOTFOUND && t >= T_COSIGS) {
            /* added later than the others: an older store has none yet */
            if (t == T_COSIGS)
                s->no_cosigs = 1;
            else if (t == T_STATEMENTS)
                s->no_statements = 1;
            else if (t == T_INDEX_COSIGS)
                s->no_index_cosigs = 1;
            else
                s->no_index_notes = 1;
            continue;
        }
        if (rc) {
            mdb_txn_abort(txn);
            if (rc == MDB_NOTFOUND)
                return kix_err_set(err, KIX_ECORRUPT,
                                   "table %s is missing; this is not a kix store (run kixd init)",
                                   table_names[t]);
            return kix__db_error(rc, err, "opening a table");
        }
    }
    rc = read_layout(s, txn, err);
    /* layout 3 keeps them in the index environment (kix__split_open) */
    if (rc == KIX_OK && s->layout < 3)
        rc = kix__open_layer_tables(s, txn, tables, err);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    rc = mdb_txn_commit(txn);
    return kix__db_error(rc, err, "opening the store's tables");
}

/* Every open holds a shared flock on data.mdb (LMDB's own descriptor: its
 * locks are fcntl's, which flock's do not meet) until it closes; a writable
 * one that could take it exclusively found no other process holding the
 * store (alone_at_open). Taken before index.mdb is opened, so an open waits
 * while another process's close installs a compacted index (which it does
 * only holding the lock exclusively: kix__store_alone). */
static int store_lock(struct kix_store *s, struct kix_err *err)
{
    mdb_filehandle_t fd = -1;
    int rc = mdb_env_get_fd(s->env, &fd);

    if (rc)
        return kix__db_error(rc, err, "locking the store");
    if (!s->read_only && flock(fd, LOCK_EX | LOCK_NB) == 0)
        s->alone_at_open = 1;
    while ((rc = flock(fd, LOCK_SH)) != 0 && errno == EINTR)
        ;
    /* a file system without flock (some network ones) opens the store
     * unlocked: such a process never counts itself alone, so it never
     * compacts at close or converts a layout, which is what the lock is
     * for */
    if (rc && (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS))
        return KIX_OK;
    if (rc)
        return kix_err_set(err, KIX_EIO, "locking %s/data.mdb: %s", s->dir, strerror(errno));
    return KIX_OK;
}

int kix__store_alone(const struct kix_store *s)
{
    mdb_filehandle_t fd = -1;

    /* a failed attempt gives the shared lock up too (flock converts by
     * unlocking first): only at close, when nothing is written after */
    return !s->read_only && s->env && mdb_env_get_fd(s->env, &fd) == 0 && fd >= 0 &&
           flock(fd, LOCK_EX | LOCK_NB) == 0;
}

int kix_store_open(const char *dir, const struct kix_store_opts *opts, struct kix_store **out,
                   struct kix_err *err)
{
    return kix__store_open(dir, opts, NULL, 0, out, err);
}

int kix__store_open(const char *dir, const struct kix_store_opts *opts,
                    const struct kix_log_table_spec *tables, size_t ntables, struct kix_store **out,
                    struct kix_err *err)
{
    struct kix_store *s;
    unsigned flags = MDB_NOTLS;
    MDB_envinfo info;
    int rc;

    *out = NULL;
    if (ntables > KIX_LOG_TABLES_MAX)
        return kix_err_set(err, KIX_EINVAL,
                           "opening store %s: %zu index tables, over the %u a "
                           "store keeps",
                           dir, ntables, KIX_LOG_TABLES_MAX);
    s = calloc(1, sizeof(*s));
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "opening store %s: out of memory", dir);
    s->map_size = opts && opts->map_initial ? opts->map_initial : DEFAULT_MAP_INITIAL;
    s->map_max = opts && opts->map_max ? opts->map_max : DEFAULT_MAP_MAX;
    if (s->map_size > s->map_max)
        s->map_size = s->map_max;
    s->read_only = opts ? opts->read_only : 0;
    s->compact = opts ? opts->compact : 0;
    s->log_only = opts ? opts->log_only : 0;
    s->large_pages = opts ? opts->large_pages : 0;
    s->ntables = ntables;
    s->table_specs = tables;
    if (opts)
        s->canon = opts->canon;
    pthread_rwlock_init(&s->resize_lock, NULL);
    pthread_mutex_init(&s->write_lock, NULL);
    pthread_mutex_init(&s->seg_mu, NULL);
    s->seg_fd = -1;
    s->dir = strdup(dir);
    s->tile_cache = kix__tile_cache_new();
    if (!s->dir || !s->tile_cache) {
        rc = kix_err_set(err, KIX_ENOMEM, "opening store %s: out of memory", dir);
        goto fail;
    }
    if (s->log_only && !s->read_only) {
        /* a writer keeps the index in step with every commit */
        rc = kix_err_set(err, KIX_EINVAL, "opening store %s: log_only needs read_only", dir);
        goto fail;
    }
    if (!s->read_only && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rc =
            kix_err_set(err, KIX_EIO, "cannot create store directory %s: %s", dir, strerror(errno));
        goto fail;
    }
    rc = mdb_env_create(&s->env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(s->env, T_COUNT + KIX_LOG_TABLES_MAX + 2);
    if (rc == 0)
        rc = mdb_env_set_maxreaders(s->env, 1024);
    if (rc == 0)
        rc = mdb_env_set_mapsize(s->env, s->map_size);
    if (rc) {
        rc = kix__db_error(rc, err, "creating the LMDB environment");
        goto fail;
    }
    if (s->read_only)
        flags |= MDB_RDONLY;
    if (opts && opts->no_sync)
        flags |= MDB_NOSYNC;
    rc = mdb_env_open(s->env, dir, flags, 0600);
    if (rc) {
        if (rc == ENOENT)
            rc = kix_err_set(err, KIX_ENOTFOUND, "no store at %s (create it with kixd init)", dir);
        else
            rc = kix__db_error(rc, err, "opening the store");
        kix_err_wrap(err, "%s", dir);
        goto fail;
    }
    /* An existing store may already be bigger than the initial size. */
    if (mdb_env_info(s->env, &info) == 0 && info.me_mapsize > s->map_size)
        s->map_size = info.me_mapsize;
    rc = store_lock(s, err);
    if (rc == KIX_OK)
        rc = open_tables(s, tables, err);
    /* log_only: the index is not opened, so one that is lost is not read
     * (nor judged) */
    if (rc == KIX_OK && s->layout >= 3 && !s->log_only)
        rc = kix__split_open(s, err);
    if (rc == KIX_OK && s->layout >= 4)
        rc = kix__seg_open(s, err);
    if (rc)
        goto fail;
    kix__store_large_pages(s);
    s->opened = 1;
    *out = s;
    return KIX_OK;
fail:
    kix_store_close(s);
    return rc;
}

void kix__writer_keep_drop(struct kix_store *s)
{
    if (s->writer_keep.state && s->writer_keep.free_fn)
        s->writer_keep.free_fn(s->writer_keep.state);
    s->writer_keep.state = NULL;
    s->writer_keep.free_fn = NULL;
}

int kix__store_close(struct kix_store *s, struct kix_err *err)
{
    int rc = KIX_OK;

    if (!s)
        return KIX_OK;
    kix__writer_keep_drop(s);
    if (s->ienv) {
        /* a failed copy leaves the index as it is (it only saves pages):
         * the store closes all the same, and the error is the caller's.
         * Only a process alone with the store compacts it: the copy is
         * renamed over index.mdb, and another process that has the old
         * file open would go on writing into a file nobody reads. */
        int alone = kix__store_alone(s), compact = alone && kix__compact_worth(s);
        kix__split_close(s, alone); /* synced before the marker goes */
        if (compact)
            rc = kix__compact_prepare(s, err);
        else if (s->compact && !s->read_only)
            rc = kix_err_set(err, KIX_EEXIST,
                             "another process has %s open, so its index was not compacted: "
                             "stop it, then compact again",
                             s->dir);
        mdb_env_close(s->ienv);
        if (compact && rc == KIX_OK)
            rc = kix__compact_install(s, err);
    }
    if (s->env)
        mdb_env_close(s->env);
    kix__seg_close(s);
    pthread_rwlock_destroy(&s->resize_lock);
    pthread_mutex_destroy(&s->write_lock);
    pthread_mutex_destroy(&s->seg_mu);
    kix__tile_cache_free(s->tile_cache);
    free(s->dir);
    free(s);
    return rc;
}

void kix_store_close(struct kix_store *s)
{
    struct kix_err ignored = {0};

    (void)kix__store_close(s, &ignored);
}

int kix_store_layout(const struct kix_store *s)
{
    return s->layout;
}

size_t kix_store_map_size(const struct kix_store *s)
{
    return s->map_size;
}

uint64_t kix_store_commit_mark(struct kix_store *s)
{
    MDB_envinfo info;
    uint64_t mark = 0;

    /* the meta pages lie in the map, which a resize replaces */
    pthread_rwlock_rdlock(&s->resize_lock);
    if (mdb_env_info(s->env, &info) == 0)
        mark += info.me_last_txnid;
    /* the index commits after the log: a mark read between the two moves
     * again at the index's commit */
    if (s->ienv && mdb_env_info(s->ienv, &info) == 0)
        mark += info.me_last_txnid;
    pthread_rwlock_unlock(&s->resize_lock);
    return mark;
}

/* Doubles the map (to the ceiling). Called with no transaction of ours
 * alive: the exclusive lock waits for readers to finish theirs. */
static int grow_map(struct kix_store *s, struct kix_err *err)
{
    size_t next;
    int rc;

    if (s->map_size >= s->map_max)
        return kix_err_set(err, KIX_EFULL,
                           "the store reached its map ceiling of %zu bytes; nothing was "
                           "written (reads go on): restart kixd with a higher --map-max, or "
                           "freeze this log and start a new one",
                           s->map_max);
    next = s->map_size > s->map_max / 2 ? s->map_max : s->map_size * 2;
    pthread_rwlock_wrlock(&s->resize_lock);
    KIX_ASSERT(next > s->map_size && next <= s->map_max);
    rc = mdb_env_set_mapsize(s->env, next);
    /* one size for both environments: a full map in either grows both */
    if (rc == 0 && s->ienv)
        rc = mdb_env_set_mapsize(s->ienv, next);
    pthread_rwlock_unlock(&s->resize_lock);
    if (rc)
        return kix__db_error(rc, err, "growing the store's map");
    s->map_size = next;
    kix__store_large_pages(s); /* LMDB mapped the files anew */
    return KIX_OK;
}

/* LMDB reports a write that ran out of space as ENOSPC, or as EIO when the
 * write came up short: the filesystem's free space tells them apart. */
static int out_of_space(const struct kix_store *s)
{
    struct statvfs vfs;
    unsigned long long bytes;

    if (statvfs(s->dir, &vfs) != 0)
        return 0;
    bytes = (unsigned long long)(geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) * vfs.f_frsize;
    return bytes < LOW_SPACE;
}

/* Begins the writer's transactions: the index's (layout 3) and the log's.
 * MDB_MAP_RESIZED: another process grew a map; adopt its size. */
static int write_begin(struct kix_store *s, MDB_txn **txn, MDB_txn **itxn)
{
    int rc;

    *txn = *itxn = NULL;
    for (int tries = 0; tries < 4; tries++) {
        rc = s->ienv ? mdb_txn_begin(s->ienv, NULL, 0, itxn) : 0;
        if (rc == 0) {
            rc = mdb_txn_begin(s->env, NULL, 0, txn);
            if (rc && *itxn) {
                mdb_txn_abort(*itxn);
                *itxn = NULL;
            }
        }
        if (rc != MDB_MAP_RESIZED)
            break;
        rc = mdb_env_set_mapsize(s->env, 0);
        if (rc == 0 && s->ienv)
            rc = mdb_env_set_mapsize(s->ienv, 0);
        if (rc)
            break;
        kix__store_large_pages(s);
    }
    if (rc == 0 && !s->ienv)
        *itxn = *txn;
    return rc;
}

/* T_META's record of the last write that appended nothing to log.dat
 * (write_commit): its transaction id. */
#define LAST_WRITE_META "last-write"

/* Commits a write: the log's transaction first, durably (fsync: this is
 * what makes an acknowledgement hold through a power cut), then the
 * index's without fsync (layout 3): what it derived is derived again from
 * the log if the page cache is lost (split.c). */
static int write_commit(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, int *log_rc,
                        struct kix_err *err)
{
    size_t txn_id = mdb_txn_id(txn), itxn_id = mdb_txn_id(itxn);
    int mrc, rc;

    *log_rc = 0;
    uint64_t last_pgno = 0;

    /* LMDB commits a write transaction that changed nothing without using
     * up its id, and the handle would then count the next process's
     * commit, which gets that id, as its own (next_txnid): its appends
     * unseen, this handle's next append would overwrite them. A write
     * that appended nothing to log.dat (a duplicate, a catch-up; every
     * write of an older layout) may have changed nothing, and notes its
     * id so that it commits one. Appends change data.mdb anyway. */
    if (s->seg_end == s->seg_committed) {
        uint8_t id[8];
        MDB_val k = {sizeof(LAST_WRITE_META) - 1, (void *)LAST_WRITE_META}, v = {8, id};
        kix_u64be_put(id, txn_id);
        rc = kix__db_error(mdb_put(txn, s->dbi[T_META], &k, &v, 0), err, "writing the store");
        if (rc) {
            if (s->ienv)
                mdb_txn_abort(itxn);
            mdb_txn_abort(txn);
            return rc;
        }
    }
    if (s->ienv) {
        rc = kix__split_state_put(s, txn, itxn, err);
        if (rc == KIX_OK)
            rc = kix__split_reserve(s, &last_pgno, err);
        if (rc == KIX_OK && !s->marked)
            rc = kix__split_mark(s, err);
        if (rc) {
            mdb_txn_abort(itxn);
            mdb_txn_abort(txn);
            return rc;
        }
    }
    /* layout 4: the bytes the commit's locators name, on disk before it */
    mrc = kix__seg_sync(s);
    if (mrc) {
        if (s->ienv)
            mdb_txn_abort(itxn);
        mdb_txn_abort(txn);
        if (mrc == ENOSPC || (mrc == EIO && out_of_space(s)))
            return kix__db_error(ENOSPC, err, "syncing the log's data file");
        return kix_err_set(err, KIX_EIO, "syncing the log's data file: %s", strerror(mrc));
    }
    mrc = mdb_txn_commit(txn);
    if (mrc) {
        if (s->ienv)
            mdb_txn_abort(itxn);
        *log_rc = mrc; /* for the caller to grow the map or translate */
        return KIX_EIO;
    }
    kix__seg_committed(s);
    s->next_txnid = txn_id + 1;
    if (!s->ienv) {
        s->next_itxnid = s->next_txnid; /* itxn is txn */
        return KIX_OK;
    }
    mrc = mdb_txn_commit(itxn);
    if (mrc == 0) {
        kix__split_committed(s, last_pgno);
        s->next_itxnid = itxn_id + 1;
        return KIX_OK;
    }
    /* the entries are in the log, durably; the index lacks them until it
     * is caught up from the log, before the next write (kix__db_write) */
    s->index_failed = 1;
    s->index_in_step = 0;
    if (mrc == EIO && out_of_space(s))
        mrc = ENOSPC;
    rc = kix__db_error(mrc == MDB_MAP_FULL ? EIO : mrc, err, "committing the index");
    kix_err_wrap(err, "the entries are in the log, but not yet in its index, which the next "
                      "write (or a restart) catches up from the log; submit them again to get "
                      "their receipts");
    return rc;
}

/* Another process committed since this handle's last commit (or this is
 * its first write): what the handle keeps of the committed state is read
 * again in this transaction, which holds the write lock, before fn appends
 * anything. The data file's committed end (appended at the old one, the
 * write would overwrite bytes the other's locators name), the index's
 * state (size and blobs: a state put from the old ones would claim entries
 * the index lacks), and the layer's kept tiles (dropped). KIX__EBEHIND:
 * the index is behind the log (the other process died between its two
 * commits, or its index commit failed), to be caught up before fn. */
static int write_reload(struct kix_store *s, kix__write_fn fn, MDB_txn *txn, MDB_txn *itxn,
                        struct kix_err *err)
{
    int rc;

    kix__writer_keep_drop(s);
    rc = kix__seg_reload(s, txn);
    if (rc == KIX_OK && s->ienv)
        rc = kix__split_reload(s, txn, itxn);
    if (rc)
        return kix_err_set(err, rc, "%s: reading the store's committed state: %s; run kixd check",
                           s->dir, kix_strerror(rc));
    if (s->ienv && !s->index_in_step && !s->index_lost && s->catch_up && fn != s->catch_up)
        return KIX__EBEHIND;
    return KIX_OK;
}

static int write_once(struct kix_store *s, kix__write_fn fn, void *ctx, struct kix_err *err);

int kix__db_write(struct kix_store *s, kix__write_fn fn, void *ctx, struct kix_err *err)
{
    int rc;

    if (s->read_only)
        return kix_err_set(err, KIX_EREADONLY, "the store is open read-only");
    while ((rc = write_once(s, fn, ctx, err)) == KIX__EBEHIND)
        s->index_failed = 1; /* write_once catches the index up first */
    return rc;
}

static int write_once(struct kix_store *s, kix__write_fn fn, void *ctx, struct kix_err *err)
{
    int rc, outer_map_full = write_map_full; /* a write of another store around this one */
    const struct kix_store *outer_writing = writing;

    if (s->index_failed) {
        /* before anything else: a write checks duplicates in the index */
        if (!s->catch_up)
            return kix_err_set(err, KIX_EIO,
                               "an earlier write could not update the index (the log holds "
                               "it); reopen the store, which catches the index up from the log");
        s->index_failed = 0;
        do { /* in parts (log.c, derive_fn), each one further */
            uint64_t before = s->index_size;
            rc = kix__db_write(s, s->catch_up, s->catch_up_ctx, err);
            if (rc == KIX_OK && !s->index_in_step && s->index_size == before)
                rc = kix_err_set(err, KIX_EIO, "catching the index up stopped at size %llu",
                                 (unsigned long long)before);
        } while (rc == KIX_OK && !s->index_in_step);
        if (rc) {
            s->index_failed = 1;
            return rc;
        }
    }
    /* LMDB allows one write transaction per environment: a second one
     * begun by the thread holding the first would deadlock on its mutex */
    KIX_ASSERT(writing != s);
    pthread_mutex_lock(&s->write_lock);
    writing = s;
    for (;;) {
        MDB_txn *txn = NULL, *itxn = NULL;
        pthread_rwlock_rdlock(&s->resize_lock);
        rc = write_begin(s, &txn, &itxn);
        if (rc) {
            pthread_rwlock_unlock(&s->resize_lock);
            rc = kix__db_error(rc, err, "starting a write");
            break;
        }
        s->w_itxn = itxn;
        s->w_memo = 0; /* nothing known of this transaction's tables yet */
        write_map_full = 0;
        rc = KIX_OK;
        if (mdb_txn_id(txn) != s->next_txnid || mdb_txn_id(itxn) != s->next_itxnid)
            rc = write_reload(s, fn, txn, itxn, err);
        kix__seg_begin(s);
        if (rc == KIX_OK)
            rc = fn(s, txn, ctx, err);
        KIX_ASSERT(writing == s); /* fn returned with the write it was given */
        if (rc != KIX_OK && write_map_full)
            rc = KIX__EMAPFULL;
        if (rc == KIX_OK) {
            int mrc;
            rc = write_commit(s, txn, itxn, &mrc, err);
            s->w_itxn = NULL;
            pthread_rwlock_unlock(&s->resize_lock);
            if (rc != KIX_OK)
                kix__writer_keep_drop(s); /* what it kept is not stored */
            if (mrc == 0) {
                if (rc == KIX__EMAPFULL) { /* the index state's put, before any commit */
                    kix_err_clear(err);
                    rc = grow_map(s, err);
                    if (rc == KIX_OK)
                        continue;
                }
                break;
            }
            if (mrc == MDB_MAP_FULL || write_map_full) {
                kix_err_clear(err);
                rc = grow_map(s, err);
                if (rc == KIX_OK)
                    continue;
                break;
            }
            if (mrc == EIO && out_of_space(s))
                mrc = ENOSPC;
            rc = kix__db_error(mrc, err, "committing a write");
            break;
        }
        if (itxn && itxn != txn)
            mdb_txn_abort(itxn);
        mdb_txn_abort(txn);
        s->w_itxn = NULL;
        kix__writer_keep_drop(s);
        pthread_rwlock_unlock(&s->resize_lock);
        if (rc == KIX__EMAPFULL) {
            /* fn hit MDB_MAP_FULL on a put: grow and run it again. */
            kix_err_clear(err);
            rc = grow_map(s, err);
            if (rc == KIX_OK)
                continue;
        }
        break;
    }
    writing = outer_writing;
    pthread_mutex_unlock(&s->write_lock);
    write_map_full = outer_map_full;
    return rc;
}

int kix_store_read_begin(struct kix_store *s, struct kix_reader **out)
{
    struct kix_reader *r = malloc(sizeof(*r));
    int rc;

    *out = NULL;
    if (!r)
        return KIX_ENOMEM;
    r->store = s;
    r->itxn = NULL;
    pthread_rwlock_rdlock(&s->resize_lock);
    /* the index's snapshot first, then the log's: the writer commits the
     * log before the index, so the log read holds at least every entry the
     * index read reflects (readers serve the index's size, log_read.c) */
    for (int tries = 0; tries < 4; tries++) {
        rc = s->ienv ? mdb_txn_begin(s->ienv, NULL, MDB_RDONLY, &r->itxn) : 0;
        if (rc == 0) {
            rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &r->txn);
            if (rc && r->itxn) {
                mdb_txn_abort(r->itxn);
                r->itxn = NULL;
            }
        }
        if (rc != MDB_MAP_RESIZED)
            break;
        mdb_env_set_mapsize(s->env, 0);
        if (s->ienv)
            mdb_env_set_mapsize(s->ienv, 0);
    }
    if (rc) {
        pthread_rwlock_unlock(&s->resize_lock);
        free(r);
        return kix__db_error(rc, NULL, "starting a read");
    }
    if (!s->ienv)
        r->itxn = r->txn;
    *out = r;
    return KIX_OK;
}

void kix_store_read_end(struct kix_reader *r)
{
    if (!r)
        return;
    mdb_txn_abort(r->txn);
    if (r->itxn != r->txn)
        mdb_txn_abort(r->itxn);
    pthread_rwlock_unlock(&r->store->resize_lock);
    free(r);
}

int kix__sync_path(const char *path, int flags)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | flags), e = 0;
    if (fd < 0)
        return errno;
    if (fsync(fd) != 0)
        e = errno;
    close(fd);
    return e;
}

int kix_store_copy(struct kix_store *s, const char *dir, struct kix_err *err)
{
    char path[4200];
    int rc, e;

    pthread_rwlock_rdlock(&s->resize_lock);
    /* the index first, then the log (as readers read them): the copy's
     * index is at or behind its log, which an open catches up; no marker
     * is copied, the copy is synced below */
    rc = KIX_OK;
    if (s->ienv) {
        /* its tables written again in key order (compact.c): pages full,
         * synced */
        snprintf(path, sizeof(path), "%s/" KIX__INDEX_FILE, dir);
        rc = kix__index_copy_sorted(s, path, err);
    }
    /* compacted: free pages left out, pages renumbered, so the copy is as
     * small as the data; MDB_CP_COMPACT reads one snapshot */
    if (rc == KIX_OK && (e = mdb_env_copy2(s->env, dir, MDB_CP_COMPACT)) != 0)
        rc = kix__db_error(e, err, "copying the store");
    pthread_rwlock_unlock(&s->resize_lock);
    if (rc)
        return rc;
    rc = kix__seg_copy(s, dir, err);
    if (rc)
        return rc;
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    /* synced here, whatever LMDB did: a backup counts only once on disk */
    if (chmod(path, 0600) != 0) /* as the store's own, whatever the umask */
        e = errno;
    else if ((e = kix__sync_path(path, 0)) == 0)
        e = kix__sync_path(dir, O_DIRECTORY);
    if (e)
        return kix_err_set(err, KIX_EIO, "syncing the copy %s: %s", path, strerror(e));
    return KIX_OK;
}
