/* Layout 3, "durable log, derived index": the index environment beside
 * data.mdb (db.h, KIX__INDEX_FILE).
 *
 * Every group commit commits data.mdb first with fsync (what makes an
 * acknowledgement durable), then index.mdb without: the index's random-key
 * pages (digests, subject and statement records, signers, and every
 * table of the indexer above) stay dirty in the page cache and reach the
 * disk about once per writeback window, not once per commit.
 *
 * What survives what:
 * - the process dies (kill -9): every committed index transaction is in
 *   the page cache, which the kernel still writes back. The marker
 *   (KIX__MARKER_FILE) names this boot; the next open, in the same boot,
 *   trusts the index and catches it up from the log where it is behind
 *   (the process may die between the two commits).
 * - the machine stops (power cut, kernel panic): unsynced index pages may
 *   be lost or written in part, so the index cannot be read. The marker's
 *   boot id is not this boot's: the next open drops the index and derives
 *   it again from the log (kix_log_open).
 * - a clean close syncs the index, then removes the marker: no marker, the
 *   index is whole.
 *
 * index.mdb is opened with MDB_NOSYNC but not MDB_WRITEMAP: with a
 * writable map LMDB writes through memory, which no system call shows, so
 * the crash-state explorer (tests/crash) could not see (nor drop) what
 * the index wrote; pwrite of the dirty pages costs a copy, which the
 * commit of data.mdb pays already. */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "log_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/file.h"

#define STATE_SIZE  "size"
#define STATE_BLOBS "blobs"

void kix__boot_id(char out[64])
{
    /* test hook (docs/REFERENCE.md): a test that simulates an OS crash
     * names another boot */
    const char *test = getenv("KIX_TEST_BOOT_ID");
    FILE *f;
    size_t n = 0;

    if (test && *test) {
        snprintf(out, 64, "%s", test);
        return;
    }
    out[0] = '\0';
    f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (f) {
        n = fread(out, 1, 63, f);
        fclose(f);
    }
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    out[n] = '\0';
    if (n == 0) /* no /proc: every open after a crash rebuilds */
        snprintf(out, 64, "unknown");
}

static int mdb_env_get_fd_or(MDB_env *env)
{
    mdb_filehandle_t fd = -1;
    return mdb_env_get_fd(env, &fd) == 0 ? fd : -1;
}

static void path_of(const struct kix_store *s, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", s->dir, name);
}

/* The marker's boot id: 1 read, 0 no marker. */
static int read_marker(const struct kix_store *s, char boot[64])
{
    char path[4200];
    FILE *f;
    size_t n;

    path_of(s, KIX__MARKER_FILE, path, sizeof(path));
    f = fopen(path, "re");
    if (!f)
        return 0;
    n = fread(boot, 1, 63, f);
    fclose(f);
    while (n > 0 && boot[n - 1] == '\n')
        n--;
    boot[n] = '\0';
    return 1;
}

int kix__split_mark(struct kix_store *s, struct kix_err *err)
{
    char path[4200], boot[64], line[80];
    size_t len;
    int rc;

    /* written whole under another name, then renamed, file and directory
     * synced: a process killed while writing it leaves no marker of no
     * boot (an empty one would read as another boot's, and cost a
     * rebuild) */
    path_of(s, KIX__MARKER_FILE, path, sizeof(path));
    kix__boot_id(boot);
    len = (size_t)snprintf(line, sizeof(line), "%s\n", boot);
    rc = kix_file_write_atomic(path, line, len, 0600, err);
    if (rc == KIX_OK)
        s->marked = 1;
    return rc;
}

void kix__split_close(struct kix_store *s, int alone)
{
    char path[4200];

    path_of(s, KIX__MARKER_FILE, path, sizeof(path));
    /* alone, a marker another process left goes too: the sync below
     * writes its commits as well (one file) */
    if (s->read_only || (!s->marked && !(alone && access(path, F_OK) == 0)))
        return;
    /* the marker goes only once the index is on disk: a crash before
     * leaves it, and the next boot rebuilds. Another process holding the
     * store may commit unsynced after this sync: the marker stays for it
     * (the last to close removes it) */
    if (mdb_env_sync(s->ienv, 1) != 0 || !alone)
        return;
    if (unlink(path) == 0)
        kix__sync_path(s->dir, O_DIRECTORY);
    s->marked = 0;
}

int kix__log_extent(struct kix_store *s, MDB_txn *txn, uint64_t *size, uint64_t *blobs)
{
    int rc = kix__log_size(s, txn, size);

    if (rc == KIX_OK)
        rc = kix__next_blob_seq(s, txn, blobs);
    return rc;
}

static int state_get(struct kix_store *s, MDB_txn *itxn, const char *name, uint64_t *out)
{
    MDB_val k = {strlen(name), (void *)name}, v;
    int rc = mdb_get(itxn, s->istate, &k, &v);

    *out = 0;
    if (rc == MDB_NOTFOUND)
        return KIX_OK;
    if (rc)
        return kix__db_error(rc, NULL, "reading the index state");
    if (v.mv_size != 8)
        return KIX_ECORRUPT;
    *out = kix_u64be_get(v.mv_data);
    return KIX_OK;
}

static int state_put(struct kix_store *s, MDB_txn *itxn, const char *name, uint64_t value,
                     struct kix_err *err)
{
    uint8_t b[8];
    MDB_val k = {strlen(name), (void *)name}, v = {8, b};
    int rc;

    kix_u64be_put(b, value);
    rc = mdb_put(itxn, s->istate, &k, &v, 0);
    return rc ? kix__db_error(rc, err, "writing the index state") : KIX_OK;
}

int kix__split_state_put(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, struct kix_err *err)
{
    uint64_t size, blobs;
    int rc;

    if (!s->index_in_step)
        return KIX_OK; /* behind the log: kix_log_open's catch-up moves it */
    rc = kix__log_extent(s, txn, &size, &blobs);
    if (rc)
        return kix_err_set(err, rc, "reading the log's size: %s", kix_strerror(rc));
    /* unchanged (most writes change both, a store_put only blobs): the
     * page is dirty already */
    if (size != s->index_size)
        rc = state_put(s, itxn, STATE_SIZE, size, err);
    if (rc == KIX_OK && blobs != s->index_blobs)
        rc = state_put(s, itxn, STATE_BLOBS, blobs, err);
    if (rc == KIX_OK) {
        /* taken by kix__split_committed once the index's commit holds */
        s->pending_size = size;
        s->pending_blobs = blobs;
    }
    return rc;
}

int kix__split_reload(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn)
{
    uint64_t size, blobs;
    int rc = kix__log_extent(s, txn, &size, &blobs);

    if (rc == KIX_OK)
        rc = state_get(s, itxn, STATE_SIZE, &s->index_size);
    if (rc == KIX_OK)
        rc = state_get(s, itxn, STATE_BLOBS, &s->index_blobs);
    if (rc)
        return rc;
    /* behind: another process died between its two commits, or its
     * index commit failed (kix__db_write catches it up) */
    s->index_in_step = !s->index_lost && s->index_size == size && s->index_blobs == blobs;
    return KIX_OK;
}

int kix__split_state_set(struct kix_store *s, MDB_txn *itxn, uint64_t size, uint64_t blobs,
                         struct kix_err *err)
{
    int rc = state_put(s, itxn, STATE_SIZE, size, err);

    if (rc == KIX_OK)
        rc = state_put(s, itxn, STATE_BLOBS, blobs, err);
    if (rc == KIX_OK) {
        s->pending_size = size;
        s->pending_blobs = blobs;
        s->pending_chunk = 1;
    }
    return rc;
}

void kix__split_committed(struct kix_store *s, uint64_t last_pgno_before)
{
    MDB_envinfo info;

    if (s->index_in_step || s->pending_chunk) {
        s->index_size = s->pending_size;
        s->index_blobs = s->pending_blobs;
    }
    if (s->pending_chunk)
        s->index_lost = 0; /* what it derived so far holds: go on from there */
    s->pending_chunk = 0;
    if (mdb_env_info(s->ienv, &info) == 0 && info.me_last_pgno > last_pgno_before &&
        info.me_last_pgno - last_pgno_before > s->igrowth)
        s->igrowth = info.me_last_pgno - last_pgno_before;
}

int kix__split_reserve(struct kix_store *s, uint64_t *last_pgno, struct kix_err *err)
{
    MDB_envinfo info;
    MDB_stat st;
    uint64_t need;
    int rc = mdb_env_info(s->ienv, &info);

    if (rc == 0)
        rc = mdb_env_stat(s->ienv, &st);
    if (rc)
        return kix__db_error(rc, err, "reading the index's size");
    *last_pgno = info.me_last_pgno;
    /* the pages a commit adds past the last one, as the largest yet (two
     * times over, 16 at least): the index commits after the log, so what
     * it cannot fit must be known before the log commits */
    need = ((uint64_t)info.me_last_pgno + 1 + (s->igrowth * 2 > 16 ? s->igrowth * 2 : 16)) *
           st.ms_psize;
    if (need > info.me_mapsize)
        return kix__db_error(MDB_MAP_FULL, err, "writing the index"); /* grown, then again */
    if (need > s->ireserved) {
        /* the disk blocks, held (not written: no page becomes dirty), an
         * eighth ahead so that a growing index asks the file system
         * seldom; exactly what is needed when that much is not free */
        uint64_t ahead = need + need / 8;
        int fd = mdb_env_get_fd_or(s->ienv), r;
        r = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)ahead);
        if (r != 0 && errno == ENOSPC) {
            ahead = need;
            r = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)ahead);
        }
        if (r != 0) {
            if (errno == ENOSPC)
                return kix__db_error(ENOSPC, err, "writing the index");
            if (errno != EOPNOTSUPP && errno != ENOSYS)
                return kix__db_error(errno, err, "writing the index");
        }
        s->ireserved = ahead;
    }
    return KIX_OK;
}

/* The index environment's tables: the derived tables of the log, the
 * state, the layer's. */
static int open_index_tables(struct kix_store *s, MDB_txn *itxn, struct kix_err *err)
{
    static const char *const names[] = {"objects", "signers"};
    static const int ids[] = {T_OBJECTS, T_SIGNERS};
    unsigned flags = s->read_only ? 0 : MDB_CREATE;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < 2; i++)
        rc = mdb_dbi_open(itxn, names[i], flags, &s->idbi[ids[i]]);
    if (rc == 0)
        rc = mdb_dbi_open(itxn, "index_state", flags, &s->istate);
    if (rc == MDB_NOTFOUND)
        return kix_err_set(err, KIX_ECORRUPT,
                           "%s/" KIX__INDEX_FILE " lacks its tables; start kixd on the store "
                           "once (it rebuilds the index from the log)",
                           s->dir);
    if (rc)
        return kix__db_error(rc, err, "opening the index's tables");
    return kix__open_layer_tables(s, itxn, s->table_specs, err);
}

static int env_new(struct kix_store *s, MDB_env **out, struct kix_err *err)
{
    int rc = mdb_env_create(out);

    if (rc == 0)
        rc = mdb_env_set_maxdbs(*out, KIX_LOG_TABLES_MAX + 4);
    if (rc == 0)
        rc = mdb_env_set_maxreaders(*out, 1024);
    if (rc == 0)
        rc = mdb_env_set_mapsize(*out, s->map_size);
    if (rc) {
        if (*out)
            mdb_env_close(*out);
        *out = NULL;
        return kix__db_error(rc, err, "creating the index's LMDB environment");
    }
    return KIX_OK;
}

static void remove_index_files(const struct kix_store *s)
{
    char path[4200];

    path_of(s, KIX__INDEX_FILE, path, sizeof(path));
    unlink(path);
    path_of(s, KIX__INDEX_FILE "-lock", path, sizeof(path));
    unlink(path);
}

static int lost_read_only(const struct kix_store *s, const char *why, struct kix_err *err)
{
    return kix_err_set(err, KIX_ECORRUPT,
                       "%s/" KIX__INDEX_FILE " %s, so it cannot be read; start kixd on the store "
                       "once (it rebuilds the index from the log, which holds every entry)",
                       s->dir, why);
}

/* Opens s->ienv over path: a corrupt file of a writable store is removed
 * and made again empty (index_lost). */
static int open_index_env(struct kix_store *s, const char *path, struct kix_err *err)
{
    unsigned flags = MDB_NOSUBDIR | MDB_NOTLS | MDB_NOSYNC | (s->read_only ? MDB_RDONLY : 0);
    MDB_envinfo info;
    int rc;

    for (int attempt = 0;; attempt++) {
        rc = env_new(s, &s->ienv, err);
        if (rc)
            return rc;
        rc = mdb_env_open(s->ienv, path, flags, 0600);
        if (rc == 0)
            break;
        mdb_env_close(s->ienv);
        s->ienv = NULL;
        if (s->read_only)
            return rc == ENOENT ? lost_read_only(s, "is missing", err)
                                : kix__db_error(rc, err, "opening the index");
        if (attempt > 0 || rc == ENOMEM || rc == EACCES || rc == ENOSPC)
            return kix__db_error(rc, err, "opening the index");
        remove_index_files(s); /* unreadable: derived again */
        s->index_lost = 1;
    }
    if (mdb_env_info(s->ienv, &info) == 0 && info.me_mapsize > s->map_size) {
        s->map_size = info.me_mapsize;
        mdb_env_set_mapsize(s->env, s->map_size);
    } else {
        mdb_env_set_mapsize(s->ienv, s->map_size);
    }
    return KIX_OK;
}

/* Empties every table of the index (writable, before a rebuild). */
static int clear_index(struct kix_store *s, MDB_txn *itxn, struct kix_err *err)
{
    int rc = mdb_drop(itxn, s->idbi[T_OBJECTS], 0);

    if (rc == 0)
        rc = mdb_drop(itxn, s->idbi[T_SIGNERS], 0);
    if (rc == 0)
        rc = mdb_drop(itxn, s->istate, 0);
    for (size_t i = 0; rc == 0 && i < s->ntables; i++)
        rc = mdb_drop(itxn, s->table_dbi[i], 0);
    return rc ? kix__db_error(rc, err, "emptying the index") : KIX_OK;
}

int kix__split_open(struct kix_store *s, struct kix_err *err)
{
    char path[4200], boot[64], mboot[64];
    MDB_txn *txn = NULL, *itxn = NULL;
    uint64_t size = 0, blobs = 0;
    int rc;

    path_of(s, KIX__INDEX_FILE, path, sizeof(path));
    kix__boot_id(boot);
    if (!s->read_only)
        kix__compact_remove_leftover(s); /* a copy a crash cut short (compact.c) */
    if (read_marker(s, mboot) && strcmp(mboot, boot) != 0) {
        /* written without sync before the machine stopped: pages may be
         * lost or torn */
        if (s->read_only)
            return lost_read_only(s, "was not synced before the machine restarted", err);
        remove_index_files(s);
        s->index_lost = 1;
    }
    if (access(path, F_OK) != 0) {
        if (s->read_only)
            return lost_read_only(s, "is missing", err);
        s->index_lost = 1;
    }
    rc = open_index_env(s, path, err);
    if (rc)
        return rc;
    rc = mdb_txn_begin(s->ienv, NULL, s->read_only ? MDB_RDONLY : 0, &itxn);
    if (rc == 0)
        rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) {
        rc = kix__db_error(rc, err, "opening the index");
        goto out;
    }
    rc = open_index_tables(s, itxn, err);
    if (rc == KIX_OK)
        rc = kix__log_extent(s, txn, &size, &blobs);
    if (rc == KIX_OK && !s->index_lost) {
        rc = state_get(s, itxn, STATE_SIZE, &s->index_size);
        if (rc == KIX_OK)
            rc = state_get(s, itxn, STATE_BLOBS, &s->index_blobs);
        if (rc == KIX_ECORRUPT || s->index_size > size || s->index_blobs > blobs) {
            /* ahead of the log, or its state unreadable: not this log's */
            if (s->read_only) {
                rc = lost_read_only(s, "does not match the log", err);
                goto out;
            }
            s->index_lost = 1;
            rc = KIX_OK;
        }
        if (rc)
            kix_err_set(err, rc, "reading the index state: %s", kix_strerror(rc));
    }
    if (rc == KIX_OK && s->index_lost) {
        s->index_size = s->index_blobs = 0;
        rc = clear_index(s, itxn, err);
        if (rc == KIX_OK && size == 0)
            s->index_lost = 0; /* no entry to derive anything from */
    }
    if (rc == KIX_OK && !s->read_only && s->index_size == size && s->index_blobs < blobs) {
        /* objects stored beyond the index, no entry: the store's own to
         * catch up (entries need the log's, kix_log_open) */
        rc = kix__split_blobs(s, txn, itxn, s->index_blobs, err);
        if (rc == KIX_OK)
            rc = state_put(s, itxn, STATE_BLOBS, blobs, err);
        if (rc == KIX_OK)
            s->index_blobs = blobs;
    }
    if (rc)
        goto out;
    s->index_in_step = !s->index_lost && s->index_size == size && s->index_blobs == blobs;
    if (!s->index_lost) {
        MDB_envinfo info;
        if (mdb_env_info(s->ienv, &info) == 0)
            s->ipages_at_open = info.me_last_pgno + 1;
    }
    mdb_txn_abort(txn);
    txn = NULL;
    /* this commit (tables made, emptied, blobs indexed) is unsynced like
     * any other until the sync below: the marker first (a power cut in
     * between may leave the meta page without the pages it names, which
     * LMDB would read past the file's end) */
    if (!s->read_only) {
        rc = kix__split_mark(s, err);
        if (rc)
            goto out;
    }
    rc = mdb_txn_commit(itxn);
    itxn = NULL;
    if (rc == 0 && !s->read_only)
        rc = mdb_env_sync(s->ienv, 1);
    if (rc == 0 && !s->read_only && s->alone_at_open) {
        /* synced whole: the marker (this open's, or a dead process's) no
         * longer says anything, and a machine stop now would cost a
         * needless rebuild. Not alone, it stays: another process may
         * hold commits it has not synced */
        char marker[4200];
        path_of(s, KIX__MARKER_FILE, marker, sizeof(marker));
        unlink(marker);
        s->marked = 0;
        rc = kix__sync_path(s->dir, O_DIRECTORY);
    }
    rc = kix__db_error(rc, err, "opening the index");
out:
    if (txn)
        mdb_txn_abort(txn);
    if (itxn)
        mdb_txn_abort(itxn);
    return rc;
}

static int copy_table(MDB_txn *from, MDB_dbi src, MDB_txn *to, MDB_dbi dst, struct kix_err *err)
{
    int rc = kix__copy_table_sorted(from, src, to, dst);

    return rc ? kix__db_error(rc, err, "converting the store to layout 3") : KIX_OK;
}

struct drop_ctx {
    MDB_dbi objects, signers;
    MDB_dbi layer[KIX_LOG_TABLES_MAX];
    size_t nlayer;
};

/* data.mdb's half of the conversion, one durable transaction: the derived
 * tables emptied (the layer's deleted) and the mark set. */
static int drop_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    static const char mark[] = "layout";
    struct drop_ctx *c = arg;
    char text[8];
    MDB_val mk = {sizeof(mark) - 1, (void *)mark}, mv;
    int rc = mdb_drop(txn, c->objects, 0);

    if (rc == 0)
        rc = mdb_drop(txn, c->signers, 0);
    for (size_t i = 0; rc == 0 && i < c->nlayer; i++)
        rc = mdb_drop(txn, c->layer[i], 1);
    snprintf(text, sizeof(text), "%d", 3);
    mv.mv_size = strlen(text);
    mv.mv_data = text;
    if (rc == 0)
        rc = mdb_put(txn, s->dbi[T_META], &mk, &mv, 0);
    return rc ? kix__db_error(rc, err, "converting the store to layout 3") : KIX_OK;
}

int kix__split_convert(struct kix_store *s, struct kix_err *err)
{
    char path[4200];
    struct drop_ctx dc;
    MDB_txn *txn = NULL, *itxn = NULL;
    uint64_t size = 0, blobs = 0;
    int rc;

    KIX_ASSERT(!s->read_only && !s->ienv && s->layout == 2); /* then 3 to 4 (segment.c) */
    memset(&dc, 0, sizeof(dc));
    dc.objects = s->dbi[T_OBJECTS];
    dc.signers = s->dbi[T_SIGNERS];
    dc.nlayer = s->ntables;
    for (size_t i = 0; i < s->ntables; i++) {
        if (s->table_absent[i])
            return kix_err_set(err, KIX_ECORRUPT, "converting the store: table %s is missing",
                               s->table_specs[i].name);
        dc.layer[i] = s->table_dbi[i];
    }
    /* what an interrupted conversion left: layout 2 is still the truth */
    remove_index_files(s);
    path_of(s, KIX__MARKER_FILE, path, sizeof(path));
    unlink(path);
    path_of(s, KIX__INDEX_FILE, path, sizeof(path));
    rc = open_index_env(s, path, err);
    if (rc)
        return rc;
    rc = mdb_txn_begin(s->ienv, NULL, 0, &itxn);
    if (rc == 0)
        rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) {
        rc = kix__db_error(rc, err, "converting the store to layout 3");
        goto fail;
    }
    rc = open_index_tables(s, itxn, err); /* table_dbi now the index's */
    if (rc == KIX_OK)
        rc = copy_table(txn, dc.objects, itxn, s->idbi[T_OBJECTS], err);
    if (rc == KIX_OK)
        rc = copy_table(txn, dc.signers, itxn, s->idbi[T_SIGNERS], err);
    for (size_t i = 0; rc == KIX_OK && i < dc.nlayer; i++)
        rc = copy_table(txn, dc.layer[i], itxn, s->table_dbi[i], err);
    if (rc == KIX_OK)
        rc = kix__log_extent(s, txn, &size, &blobs);
    if (rc == KIX_OK)
        rc = state_put(s, itxn, STATE_SIZE, size, err);
    if (rc == KIX_OK)
        rc = state_put(s, itxn, STATE_BLOBS, blobs, err);
    mdb_txn_abort(txn);
    txn = NULL;
    if (rc)
        goto fail;
    rc = mdb_txn_commit(itxn);
    itxn = NULL;
    /* on disk, with its name, before data.mdb says layout 3 */
    if (rc == 0)
        rc = mdb_env_sync(s->ienv, 1);
    if (rc == 0)
        rc = kix__sync_path(s->dir, O_DIRECTORY);
    if (rc) {
        rc = kix__db_error(rc, err, "writing the index of layout 3");
        goto fail;
    }
    {
        /* data.mdb's write: its derived tables are still its own */
        MDB_env *ienv = s->ienv;
        s->ienv = NULL;
        rc = kix__db_write(s, drop_fn, &dc, err);
        s->ienv = ienv;
    }
    if (rc)
        goto fail;
    s->layout = 3;
    s->index_size = size;
    s->index_blobs = blobs;
    s->index_in_step = 1;
    return KIX_OK;
fail:
    if (txn)
        mdb_txn_abort(txn);
    if (itxn)
        mdb_txn_abort(itxn);
    mdb_env_close(s->ienv);
    s->ienv = NULL;
    remove_index_files(s);
    return rc;
}

int kix__split_blobs(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, uint64_t from,
                     struct kix_err *err)
{
    MDB_cursor *cur;
    uint8_t kb[8];
    MDB_val k = {8, kb}, v;
    int rc = mdb_cursor_open(txn, s->dbi[T_BLOBS], &cur);

    if (rc)
        return kix__db_error(rc, err, "reading the objects");
    kix_u64be_put(kb, from);
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        struct kix_digest d;
        MDB_val dk = {32, d.b}, bytes = v;
        if ((rc = kix__seg_view(s, &bytes)) != KIX_OK) {
            mdb_cursor_close(cur);
            return kix_err_set(err, rc, "reading blob %llu: %s",
                               (unsigned long long)kix_u64be_get(k.mv_data), kix_strerror(rc));
        }
        /* what kix__object_put wrote: the first blob of a digest wins */
        kix_digest_of(bytes.mv_data, bytes.mv_size, &d);
        rc = mdb_put(itxn, kix__dbi(s, T_OBJECTS), &dk, &k, MDB_NOOVERWRITE);
        if (rc && rc != MDB_KEYEXIST)
            break;
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, err, "indexing the objects");
}

int kix__reader_blobs(struct kix_store *s, MDB_txn *itxn, uint64_t *blobs)
{
    return s->ienv ? state_get(s, itxn, STATE_BLOBS, blobs) : KIX_ENOTFOUND;
}

int kix__reader_size(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, uint64_t *size)
{
    if (!s->ienv)
        return kix__log_size(s, txn, size);
    /* the index's size, at or below the log's (the writer commits the log
     * first, and readers begin the index's snapshot first): the log's
     * checkpoint at that size is the one a reader serves */
    return state_get(s, itxn, STATE_SIZE, size);
}
