/* Layout 4: the log's data file (db.h, KIX__SEGMENT_FILE).
 *
 * Each leaf's envelope bytes and each blob's canonical bytes are appended
 * once to one file; T_LEAVES and T_BLOBS keep a 12-byte locator (u64be
 * offset ‖ u32be length) under their sequential keys. Layout 3 put the
 * bytes themselves in those tables, where LMDB wrote them in 4 KiB pages
 * with slack, their branch pages and free-list pages at every
 * commit (about 2.5 KB an entry more than the 1.7 KB of data).
 *
 * Durability: the writer appends (pwrite) during its transaction and
 * fdatasyncs the file before data.mdb commits (db.c, write_commit), so
 * every byte a committed locator names is on disk when the commit is.
 * The file's valid length is what data.mdb's committed locators reach
 * (the larger end of the last leaf and the last blob: both tables are
 * appended); bytes past it (a transaction that did not commit, a crash
 * between the fdatasync and the commit) are never named, and a writable
 * open cuts them off, holding the write lock (another process's writer
 * appends only under it).
 *
 * Several processes may write one store (kix publish --store beside kixd
 * serve): each appends at the committed end it reads under the write lock
 * when another process committed since its own last commit (db.c,
 * write_reload; kix__seg_reload), never at an end it kept.
 *
 * Readers map the file read-only. A mapping is never unmapped before the
 * store closes: when the file outgrows it, a larger one is made beside it,
 * so a pointer a reader got stays valid as long as the store is open
 * (longer than an LMDB value pointer, which lives as long as its
 * transaction). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/file.h"

#define MAP_FIRST ((uint64_t)64 << 20)

struct kix__seg_map {
    const uint8_t *base;
    uint64_t len;
    struct kix__seg_map *older; /* kept mapped until the store closes */
};

static void path_of(const struct kix_store *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s/" KIX__SEGMENT_FILE, s->dir);
}

/* A mapping of at least `need` bytes (doubling), published for readers.
 * Called with seg_mu held. */
static int map_cover(struct kix_store *s, uint64_t need)
{
    struct kix__seg_map *cur = atomic_load(&s->seg_map), *m;
    uint64_t len = cur ? cur->len : MAP_FIRST;
    void *p;

    if (cur && cur->len >= need)
        return KIX_OK;
    while (len < need)
        len *= 2;
    m = malloc(sizeof(*m));
    if (!m)
        return KIX_ENOMEM;
    /* past the file's end a mapping is only address space: pages there
     * are never touched (a locator names written bytes only) */
    p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED | MAP_NORESERVE, s->seg_fd, 0);
    if (p == MAP_FAILED) {
        free(m);
        return errno == ENOMEM ? KIX_ENOMEM : KIX_EIO;
    }
    if (s->large_pages)
        kix__map_large_pages(p, (size_t)len);
    m->base = p;
    m->len = len;
    m->older = cur;
    atomic_store(&s->seg_map, m);
    return KIX_OK;
}

/* The writer's bytes not yet in the file: chunks filled in order, each
 * record whole in one, never moved (a view of one stays valid until the
 * transaction ends, as a view of an LMDB page the transaction made dirty
 * does); written before the fdatasync, one pwrite a chunk (a commit's
 * bytes fit one) instead of one a record. Chunks past n keep their memory
 * for the next transaction. */
#define CHUNK_MIN ((size_t)1 << 20)

struct kix__seg_chunk {
    uint8_t *mem;
    size_t len, cap;
};

struct kix__seg_pending {
    struct kix__seg_chunk *c;
    size_t n, max;
};

/* A chunk of at least need bytes at the end of p's used ones. */
static struct kix__seg_chunk *chunk_next(struct kix__seg_pending *p, size_t need)
{
    struct kix__seg_chunk *c;

    if (p->n == p->max) {
        size_t max = p->max ? p->max * 2 : 8;
        struct kix__seg_chunk *grown = realloc(p->c, max * sizeof(*grown));
        if (!grown)
            return NULL;
        memset(grown + p->max, 0, (max - p->max) * sizeof(*grown));
        p->c = grown;
        p->max = max;
    }
    c = &p->c[p->n];
    if (c->cap < need) {
        size_t cap = need > CHUNK_MIN ? need : CHUNK_MIN;
        uint8_t *mem = malloc(cap);
        if (!mem)
            return NULL;
        free(c->mem);
        c->mem = mem;
        c->cap = cap;
    }
    c->len = 0;
    p->n++;
    return c;
}

/* Appends len bytes at the writer's end; *off where they went. */
static int append(struct kix_store *s, const uint8_t *data, size_t len, uint64_t *off,
                  struct kix_err *err)
{
    struct kix__seg_pending *p = s->seg_pending;
    struct kix__seg_chunk *c;

    if (len > UINT32_MAX)
        return kix_err_set(err, KIX_EINVAL, "a record of %zu bytes is over the 4 GiB a store keeps",
                           len);
    if (s->seg_end + len > s->map_max)
        return kix_err_set(err, KIX_EFULL,
                           "the store's data file reached its ceiling of %zu bytes; nothing was "
                           "written (reads go on): restart kixd with a higher --map-max",
                           s->map_max);
    if (!p && !(p = s->seg_pending = calloc(1, sizeof(*p))))
        return kix_err_set(err, KIX_ENOMEM, "writing the log: out of memory");
    c = p->n ? &p->c[p->n - 1] : NULL;
    if (!c || c->cap - c->len < len)
        c = chunk_next(p, len);
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "writing the log: out of memory");
    memcpy(c->mem + c->len, data, len);
    c->len += len;
    *off = s->seg_end;
    s->seg_end += len;
    return KIX_OK;
}

/* The writer's view of bytes it appended and has not flushed: 1 found. */
static int pending_view(const struct kix_store *s, uint64_t off, uint64_t len, MDB_val *v)
{
    const struct kix__seg_pending *p = s->seg_pending;
    uint64_t at = atomic_load(&s->seg_flushed);

    for (size_t i = 0; p && i < p->n; at += p->c[i].len, i++)
        if (off >= at && off + len <= at + p->c[i].len) {
            v->mv_data = p->c[i].mem + (off - at);
            v->mv_size = (size_t)len;
            return 1;
        }
    return 0;
}

/* Writes the pending bytes to the file and maps them: 0 or errno. */
static int flush(struct kix_store *s)
{
    struct kix__seg_pending *p = s->seg_pending;
    uint64_t at = atomic_load(&s->seg_flushed);
    int rc;

    for (size_t i = 0; p && i < p->n; i++) {
        size_t done = 0;
        while (done < p->c[i].len) {
            ssize_t n = pwrite(s->seg_fd, p->c[i].mem + done, p->c[i].len - done, (off_t)at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return n < 0 ? errno : EIO;
            done += (size_t)n;
            at += (uint64_t)n;
        }
    }
    KIX_ASSERT(at == s->seg_end);
    pthread_mutex_lock(&s->seg_mu);
    rc = map_cover(s, at); /* readers of the commit find it mapped */
    pthread_mutex_unlock(&s->seg_mu);
    if (rc)
        return rc == KIX_ENOMEM ? ENOMEM : EIO;
    atomic_store(&s->seg_flushed, at);
    if (atomic_load(&s->seg_known) < at)
        atomic_store(&s->seg_known, at);
    if (p)
        p->n = 0;
    return 0;
}

static void pending_free(struct kix_store *s)
{
    struct kix__seg_pending *p = s->seg_pending;

    for (size_t i = 0; p && i < p->max; i++)
        free(p->c[i].mem);
    if (p)
        free(p->c);
    free(p);
    s->seg_pending = NULL;
}

int kix__seg_view(struct kix_store *s, MDB_val *v)
{
    struct kix__seg_map *m;
    uint64_t off, len;
    int rc = KIX_OK;

    if (s->layout < 4)
        return KIX_OK; /* the value is the bytes (and during the conversion) */
    if (v->mv_size != KIX__LOCATOR_LEN)
        return KIX_ECORRUPT;
    off = kix_u64be_get(v->mv_data);
    len = kix_u32be_get((const uint8_t *)v->mv_data + 8);
    if (off > UINT64_MAX - len)
        return KIX_ECORRUPT;
    /* the writer's own appends of this transaction, not yet in the file */
    if (off + len > atomic_load(&s->seg_flushed) && kix__db_writing(s) &&
        pending_view(s, off, len, v))
        return KIX_OK;
    if (atomic_load(&s->seg_known) < off + len) {
        struct stat st;
        pthread_mutex_lock(&s->seg_mu);
        /* another process's appends (or ours, before this reader's map):
         * the file must hold them, or the locator is corrupt */
        if (fstat(s->seg_fd, &st) != 0 || (uint64_t)st.st_size < off + len)
            rc = KIX_ECORRUPT;
        else
            rc = map_cover(s, off + len);
        if (rc == KIX_OK && atomic_load(&s->seg_known) < (uint64_t)st.st_size)
            atomic_store(&s->seg_known, (uint64_t)st.st_size);
        pthread_mutex_unlock(&s->seg_mu);
        if (rc)
            return rc;
    }
    m = atomic_load(&s->seg_map);
    KIX_ASSERT(m && m->len >= off + len);
    v->mv_data = (void *)(m->base + off);
    v->mv_size = (size_t)len;
    return KIX_OK;
}

/* The end of the last locator of table t in txn (0: none). */
static int last_end(struct kix_store *s, MDB_txn *txn, int t, uint64_t *end)
{
    MDB_cursor *cur;
    MDB_val k, v;
    int rc = mdb_cursor_open(txn, s->dbi[t], &cur);

    *end = 0;
    if (rc)
        return kix__db_error(rc, NULL, "reading the log");
    /* a malformed record names no bytes (kixd check names it) */
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_LAST); rc == 0 && v.mv_size != KIX__LOCATOR_LEN;
         rc = mdb_cursor_get(cur, &k, &v, MDB_PREV))
        ;
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND)
        return KIX_OK;
    if (rc)
        return kix__db_error(rc, NULL, "reading the log");
    *end = kix_u64be_get(v.mv_data) + kix_u32be_get((const uint8_t *)v.mv_data + 8);
    return KIX_OK;
}

int kix__seg_committed_end(struct kix_store *s, MDB_txn *txn, uint64_t *end)
{
    uint64_t a, b;
    int rc = last_end(s, txn, T_LEAVES, &a);

    if (rc == KIX_OK)
        rc = last_end(s, txn, T_BLOBS, &b);
    *end = rc == KIX_OK ? (a > b ? a : b) : 0;
    return rc;
}

/* kix__seg_open's file at path: opened (made when a new store has none),
 * checked to hold the end bytes the log names, cut to them when writable
 * (the caller holds the write lock). */
static int open_cut(struct kix_store *s, const char *path, uint64_t end, struct kix_err *err)
{
    struct stat st;
    int rc, made = 0;

    s->seg_fd = open(path, (s->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (s->seg_fd < 0 && errno == ENOENT && !s->read_only && end == 0) {
        s->seg_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        made = s->seg_fd >= 0;
    }
    if (s->seg_fd < 0) {
        rc = errno;
        return kix_err_set(err, rc == ENOENT ? KIX_ECORRUPT : KIX_EIO,
                           "opening %s: %s (the store's entries and objects are in it: restore "
                           "the store from a backup or a mirror)",
                           path, strerror(rc));
    }
    /* its name on disk before any commit names its bytes */
    if (made && (rc = kix__sync_path(s->dir, O_DIRECTORY)) != 0)
        return kix_err_set(err, KIX_EIO, "syncing %s: %s", s->dir, strerror(rc));
    if (fstat(s->seg_fd, &st) != 0)
        return kix_err_set(err, KIX_EIO, "reading %s: %s", path, strerror(errno));
    if ((uint64_t)st.st_size < end)
        return kix_err_set(err, KIX_ECORRUPT,
                           "%s holds %llu bytes, but the log names %llu: it was cut short; "
                           "restore the store from a backup or a mirror",
                           path, (unsigned long long)st.st_size, (unsigned long long)end);
    /* what a transaction wrote that never committed: never named */
    if (!s->read_only && (uint64_t)st.st_size > end && ftruncate(s->seg_fd, (off_t)end) != 0)
        return kix_err_set(err, KIX_EIO, "cutting %s to its committed %llu bytes: %s", path,
                           (unsigned long long)end, strerror(errno));
    return KIX_OK;
}

int kix__seg_open(struct kix_store *s, struct kix_err *err)
{
    char path[4200];
    MDB_txn *txn = NULL;
    uint64_t end = 0;
    int rc;

    path_of(s, path, sizeof(path));
    /* writable: a write transaction (never committed) for LMDB's write
     * lock, held until the file is cut: what lies past the committed end
     * is then no other process's append in progress */
    rc = mdb_txn_begin(s->env, NULL, s->read_only ? MDB_RDONLY : 0, &txn);
    if (rc)
        return kix__db_error(rc, err, "opening the log's data file");
    rc = kix__seg_committed_end(s, txn, &end);
    if (rc == KIX_OK)
        rc = open_cut(s, path, end, err);
    else
        kix_err_set(err, rc, "%s: the log's locators are malformed; run kixd check", s->dir);
    mdb_txn_abort(txn);
    if (rc)
        return rc;
    s->seg_end = s->seg_committed = s->seg_synced = end;
    atomic_store(&s->seg_flushed, end);
    atomic_store(&s->seg_known, end);
    rc = map_cover(s, end > MAP_FIRST ? end : MAP_FIRST);
    return rc ? kix_err_set(err, rc, "mapping %s: %s", path, kix_strerror(rc)) : KIX_OK;
}

void kix__seg_close(struct kix_store *s)
{
    struct kix__seg_map *m = atomic_load(&s->seg_map);

    while (m) {
        struct kix__seg_map *older = m->older;
        munmap((void *)m->base, (size_t)m->len);
        free(m);
        m = older;
    }
    atomic_store(&s->seg_map, NULL);
    pending_free(s);
    if (s->seg_fd >= 0)
        close(s->seg_fd);
    s->seg_fd = -1;
}

int kix__seg_put(struct kix_store *s, MDB_txn *txn, int table, const uint8_t key[8],
                 const uint8_t *data, size_t len, struct kix_err *err)
{
    uint8_t loc[KIX__LOCATOR_LEN];
    MDB_val k = {8, (void *)key}, v = {len, (void *)data};
    uint64_t off;
    int rc;

    KIX_ASSERT(kix__db_writing(s) && (table == T_LEAVES || table == T_BLOBS));
    if (s->layout >= 4) {
        rc = append(s, data, len, &off, err);
        if (rc)
            return rc;
        kix_u64be_put(loc, off);
        kix_u32be_put(loc + 8, (uint32_t)len);
        v.mv_size = sizeof(loc);
        v.mv_data = loc;
    }
    rc = mdb_put(txn, s->dbi[table], &k, &v, MDB_APPEND);
    return rc ? kix__db_error(rc, err, "writing the log") : KIX_OK;
}

int kix__seg_sync(struct kix_store *s)
{
    int e;

    if (s->seg_fd < 0 || s->seg_synced >= s->seg_end)
        return 0;
    if ((e = flush(s)) != 0)
        return e;
    if (fdatasync(s->seg_fd) != 0)
        return errno;
    s->seg_synced = s->seg_end;
    return 0;
}

void kix__seg_begin(struct kix_store *s)
{
    /* a transaction that did not commit: its bytes are overwritten */
    s->seg_end = s->seg_committed;
    atomic_store(&s->seg_flushed, s->seg_committed);
    if (s->seg_pending)
        s->seg_pending->n = 0;
    if (s->seg_synced > s->seg_end)
        s->seg_synced = s->seg_end;
}

void kix__seg_committed(struct kix_store *s)
{
    s->seg_committed = s->seg_end;
}

int kix__seg_reload(struct kix_store *s, MDB_txn *txn)
{
    uint64_t end;
    int rc;

    if (s->layout < 4 || s->seg_fd < 0)
        return KIX_OK;
    rc = kix__seg_committed_end(s, txn, &end);
    if (rc)
        return rc;
    /* the other process synced its bytes before its commit named them */
    s->seg_committed = s->seg_synced = end;
    return KIX_OK;
}

#define CONVERT_FLUSH ((uint64_t)64 << 20)

struct convert_ctx {
    uint8_t *locs; /* the new values, KIX__LOCATOR_LEN each */
    size_t cap;
};

/* One table's values moved into the data file, and the table made again
 * of their locators (appended: pages filled whole). */
static int convert_table(struct kix_store *s, MDB_txn *txn, int t, struct convert_ctx *c,
                         struct kix_err *err)
{
    MDB_cursor *cur;
    MDB_val k, v;
    size_t n = 0;
    uint64_t first = 0;
    int rc = mdb_cursor_open(txn, s->dbi[t], &cur);

    if (rc)
        return kix__db_error(rc, err, "converting the store to layout 4");
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint64_t off, key;
        if (k.mv_size != 8 || v.mv_size == 0) {
            rc = kix_err_set(err, KIX_ECORRUPT,
                             "converting the store to layout 4: a malformed record in the log; "
                             "run kixd check --store DIR");
            break;
        }
        key = kix_u64be_get(k.mv_data);
        if (n == 0)
            first = key;
        else if (key != first + n) {
            rc = kix_err_set(err, KIX_ECORRUPT,
                             "converting the store to layout 4: the log's keys have a gap at "
                             "%llu; run kixd check --store DIR",
                             (unsigned long long)key);
            break;
        }
        if ((n + 1) * KIX__LOCATOR_LEN > c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 4096 * KIX__LOCATOR_LEN;
            uint8_t *p = realloc(c->locs, cap);
            if (!p) {
                rc = kix_err_set(err, KIX_ENOMEM, "converting the store: out of memory");
                break;
            }
            c->locs = p;
            c->cap = cap;
        }
        rc = append(s, v.mv_data, v.mv_size, &off, err);
        /* a store's worth of bytes is not held in memory: this write holds
         * no view of them */
        if (rc == KIX_OK && s->seg_end - atomic_load(&s->seg_flushed) > CONVERT_FLUSH) {
            int e = flush(s);
            if (e)
                rc = kix__db_error(e, err, "converting the store to layout 4");
        }
        if (rc)
            break;
        kix_u64be_put(c->locs + n * KIX__LOCATOR_LEN, off);
        kix_u32be_put(c->locs + n * KIX__LOCATOR_LEN + 8, (uint32_t)v.mv_size);
        n++;
    }
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND)
        rc = KIX_OK;
    else if (rc > 0)
        rc = kix__db_error(rc, err, "converting the store to layout 4");
    if (rc == KIX_OK && (rc = mdb_drop(txn, s->dbi[t], 0)) != 0)
        rc = kix__db_error(rc, err, "converting the store to layout 4");
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        uint8_t kb[8];
        MDB_val nk = {8, kb}, nv = {KIX__LOCATOR_LEN, c->locs + i * KIX__LOCATOR_LEN};
        kix_u64be_put(kb, first + i);
        rc = mdb_put(txn, s->dbi[t], &nk, &nv, MDB_APPEND);
        if (rc)
            rc = kix__db_error(rc, err, "converting the store to layout 4");
    }
    return rc;
}

static int convert_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    static const char mark[] = "layout";
    MDB_val mk = {sizeof(mark) - 1, (void *)mark}, mv = {1, "4"};
    int rc = convert_table(s, txn, T_BLOBS, arg, err);

    if (rc == KIX_OK)
        rc = convert_table(s, txn, T_LEAVES, arg, err);
    if (rc == KIX_OK && (rc = mdb_put(txn, s->dbi[T_META], &mk, &mv, 0)) != 0)
        rc = kix__db_error(rc, err, "converting the store to layout 4");
    return rc;
}

int kix__seg_convert(struct kix_store *s, struct kix_err *err)
{
    char path[4200];
    struct convert_ctx c = {NULL, 0};
    int rc, e;

    KIX_ASSERT(!s->read_only && s->layout == 3 && s->seg_fd < 0);
    /* what an interrupted conversion wrote: layout 3 is still the truth */
    path_of(s, path, sizeof(path));
    s->seg_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (s->seg_fd < 0)
        return kix_err_set(err, KIX_EIO, "creating %s: %s", path, strerror(errno));
    s->seg_end = s->seg_committed = s->seg_synced = 0;
    atomic_store(&s->seg_flushed, 0);
    atomic_store(&s->seg_known, 0);
    if ((e = kix__sync_path(s->dir, O_DIRECTORY)) != 0) {
        rc = kix_err_set(err, KIX_EIO, "syncing %s: %s", s->dir, strerror(e));
        goto fail;
    }
    rc = map_cover(s, MAP_FIRST);
    if (rc) {
        kix_err_set(err, rc, "mapping %s: %s", path, kix_strerror(rc));
        goto fail;
    }
    /* s->layout stays 3 (the assert above): the values are read as bytes
     * until the mark is committed */
    rc = kix__db_write(s, convert_fn, &c, err);
    if (rc)
        goto fail;
    free(c.locs);
    s->layout = 4;
    return KIX_OK;
fail:
    free(c.locs);
    kix__seg_close(s);
    unlink(path);
    return rc;
}

int kix__seg_copy(struct kix_store *s, const char *dir, struct kix_err *err)
{
    char path[4200];
    struct stat st;
    uint64_t size;
    int rc;

    if (s->layout < 4)
        return KIX_OK;
    /* after data.mdb's copy: the file only grows, so it holds every byte
     * the copied locators name (what it holds beyond, the copy's first
     * writable open cuts off) */
    if (fstat(s->seg_fd, &st) != 0)
        return kix_err_set(err, KIX_EIO, "reading the log's data file: %s", strerror(errno));
    size = (uint64_t)st.st_size;
    pthread_mutex_lock(&s->seg_mu);
    rc = map_cover(s, size);
    pthread_mutex_unlock(&s->seg_mu);
    if (rc)
        return kix_err_set(err, rc, "mapping the log's data file: %s", kix_strerror(rc));
    snprintf(path, sizeof(path), "%s/" KIX__SEGMENT_FILE, dir);
    return kix_file_write_atomic(path, atomic_load(&s->seg_map)->base, (size_t)size, 0600, err);
}
