/* Store layout 3, "durable log, derived index" (store/log/split.c): the
 * index (index.mdb) is committed after the log (data.mdb) without fsync.
 * What a process death and a machine stop leave, and what readers see
 * while the writer commits. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fixture.h"
#include "kix/note.h"
#include "kix/vindex.h"

static uint64_t reader_size(struct kix_log *l)
{
    struct kix_log_reader *r;
    uint64_t n;
    if (kix_log_read_begin(l, &r))
        abort();
    n = kix_log_reader_size(r);
    kix_log_read_end(r);
    return n;
}

static void path_in(const struct fixture *f, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", f->dir, name);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;

    if (!out)
        abort();
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            abort();
    if (ferror(in) || fclose(out) != 0)
        abort();
    fclose(in);
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
        abort();
}

/* The same statement again: answered as the duplicate it is, which only
 * the index's statement records can tell. */
static void republish_is_duplicate(struct fixture *f, const char *run, int tag, uint64_t index)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_OK, publish(f, f->publisher, run, tag, &res, &err));
    ASSERT_EQ_INT(1, res.duplicate);
    ASSERT_EQ_U64(index, res.index);
}

/* Publishes run-i (tagged i) for i from `from` below `to`; index[i - from]
 * is where each landed. */
static void publish_runs(struct fixture *f, int from, int to, uint64_t *index)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    for (int i = from; i < to; i++) {
        char run[16];
        snprintf(run, sizeof(run), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(f, f->publisher, run, i, &res, &err));
        index[i - from] = res.index;
    }
}

/* Each of publish_runs' runs again: every one a duplicate at its index. */
static void republish_runs(struct fixture *f, int from, int to, const uint64_t *index)
{
    for (int i = from; i < to; i++) {
        char run[16];
        snprintf(run, sizeof(run), "run-%d", i);
        republish_is_duplicate(f, run, i, index[i - from]);
    }
}

/* A process that dies between the log's commit and the index's leaves the
 * index behind the log, in the page cache of the same boot (the marker
 * names it): the next open catches the index up from the log, and every
 * entry counts (duplicates found, checks pass, notes unchanged). Made
 * exactly: the index file of an earlier size put back under a longer log. */
KIX_TEST(an_index_behind_the_log_is_caught_up)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    char idx[4200], saved[4200], marker[4200], boot[80];
    uint64_t first[4];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-0", 0, &res, &err));
    kix_log_close(f.log);
    f.log = NULL;
    path_in(&f, "index.mdb", idx, sizeof(idx));
    path_in(&f, "index.mdb.saved", saved, sizeof(saved));
    path_in(&f, "index.unsynced", marker, sizeof(marker));
    copy_file(idx, saved); /* the index at this size */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    publish_runs(&f, 1, 5, first);
    all_index_notes(f.log, &before);
    kix_log_close(f.log);
    f.log = NULL;
    copy_file(saved, idx);
    snprintf(boot, sizeof(boot), "%s\n", getenv("KIX_TEST_BOOT_ID"));
    write_text(marker, boot); /* this boot's: the page cache held it */
    /* read-only: served at the index's size, the log's longer tail unseen */
    {
        struct kix_log_opts ro;
        memset(&ro, 0, sizeof(ro));
        ro.store.read_only = 1;
        ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
        ASSERT_EQ_U64(first[0], reader_size(f.log));
        kix_log_close(f.log);
        f.log = NULL;
    }
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_U64(first[3] + 1, reader_size(f.log));
    all_index_notes(f.log, &after);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    republish_runs(&f, 1, 5, first);
    checks_pass(&f);
    kix_buf_release(&before);
    kix_buf_release(&after);
    teardown(&f);
}

/* kill -9 of a writer in the middle of its appends: every append it
 * acknowledged is in the log after a reopen, the index holds it (checks
 * pass, the statement is a duplicate), and the next append goes on. */
KIX_TEST(a_killed_writer_loses_no_acknowledged_entry)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    int fds[2];
    pid_t pid;
    uint64_t acked[4096];
    size_t nacked = 0;
    ssize_t got;
    unsigned char buf[64];
    size_t have = 0;

    setup(&f);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(0, pipe(fds));
    pid = fork();
    ASSERT_TRUE(pid >= 0);
    if (pid == 0) {
        struct kix_log *l = NULL;
        struct fixture c = f;
        close(fds[0]);
        if (kix_index_open(f.dir, NULL, &l, NULL))
            _exit(3);
        c.log = l;
        for (int i = 0;; i++) {
            char run[16];
            uint64_t ix;
            snprintf(run, sizeof(run), "run-%d", i);
            if (publish(&c, c.publisher, run, i, &res, NULL))
                _exit(4);
            ix = res.index;
            /* the acknowledgement: the tag and the index it got */
            if (write(fds[1], &i, sizeof(i)) != sizeof(i) ||
                write(fds[1], &ix, sizeof(ix)) != sizeof(ix))
                _exit(5);
        }
    }
    close(fds[1]);
    /* kill once some have been acknowledged, mid-stream */
    while (nacked < 12 && (got = read(fds[0], buf + have, sizeof(buf) - have)) > 0) {
        have += (size_t)got;
        while (have >= 12) {
            memcpy(&acked[nacked++], buf + 4, 8);
            memmove(buf, buf + 12, have - 12);
            have -= 12;
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    while ((got = read(fds[0], buf + have, sizeof(buf) - have)) > 0) {
        have += (size_t)got;
        while (have >= 12 && nacked < 4096) {
            memcpy(&acked[nacked++], buf + 4, 8);
            memmove(buf, buf + 12, have - 12);
            have -= 12;
        }
    }
    close(fds[0]);
    ASSERT_TRUE(nacked >= 12);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_TRUE(reader_size(f.log) > acked[nacked - 1]);
    republish_runs(&f, 0, (int)nacked, acked);
    checks_pass(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "after", 999, &res, &err));
    ASSERT_EQ_INT(0, res.duplicate);
    teardown(&f);
}

/* The machine stopped with index pages unsynced: the marker names another
 * boot, and the file may be garbage. A read-only open refuses it, naming
 * the fix; a writable open derives the index again from the log, with the
 * same index notes byte for byte and the same checkpoints. */
KIX_TEST(an_index_from_before_a_machine_stop_is_rebuilt)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    struct kix_log_opts ro;
    char idx[4200], marker[4200];
    uint64_t first[6];
    int fd;

    setup(&f);
    publish_runs(&f, 0, 6, first);
    all_index_notes(f.log, &before);
    kix_log_close(f.log);
    f.log = NULL;
    path_in(&f, "index.mdb", idx, sizeof(idx));
    path_in(&f, "index.unsynced", marker, sizeof(marker));
    write_text(marker, "a-boot-before-the-power-cut\n");
    /* torn: its second half zeroed */
    {
        struct stat st;
        static const char zero[4096];
        ASSERT_EQ_INT(0, stat(idx, &st));
        fd = open(idx, O_WRONLY);
        ASSERT_TRUE(fd >= 0);
        for (off_t o = st.st_size / 2 / 4096 * 4096; o < st.st_size; o += 4096)
            ASSERT_EQ_INT(4096, (int)pwrite(fd, zero, sizeof(zero), o));
        close(fd);
    }
    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_TRUE(strstr(err.msg, "not synced before the machine restarted") != NULL);
    ASSERT_TRUE(strstr(err.msg, "start kixd") != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    all_index_notes(f.log, &after);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    republish_runs(&f, 0, 6, first);
    checks_pass(&f);
    /* a clean close synced it and took the marker away */
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(access(marker, F_OK) != 0);
    /* and a missing index is derived again the same way, here in parts
     * of two entries (each to the next checkpoint, committed with the
     * state it reached) */
    ASSERT_EQ_INT(0, unlink(idx));
    setenv("KIX_TEST_DERIVE_PART", "2", 1);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    unsetenv("KIX_TEST_DERIVE_PART");
    kix_buf_reset(&after);
    all_index_notes(f.log, &after);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    republish_runs(&f, 0, 6, first);
    checks_pass(&f);
    kix_buf_release(&before);
    kix_buf_release(&after);
    teardown(&f);
}

/* A store whose index must be derived again still has its log read and
 * copied (kixd migrate's backup, cmd_migrate.c): opened read-only and
 * log_only, index.mdb is not opened, so the marker of another boot does
 * not refuse it; kix_store_copy then copies data.mdb and log.dat, no
 * index, and the copy's first writable open derives the same index notes.
 * The store itself is left as it was (its marker stays), and log_only is
 * refused to a writer, which keeps the index in step. */
KIX_TEST(a_lost_index_leaves_the_log_readable_and_copied_alone)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    struct kix_log_opts ro;
    struct kix_log *copy = NULL;
    char marker[4200], dest[4200], path[4300];
    uint64_t first[3];

    setup(&f);
    publish_runs(&f, 0, 3, first);
    all_index_notes(f.log, &before);
    kix_log_close(f.log);
    f.log = NULL;
    path_in(&f, "index.unsynced", marker, sizeof(marker));
    write_text(marker, "a-boot-before-the-power-cut\n");
    memset(&ro, 0, sizeof(ro));
    ro.store.log_only = 1;
    ASSERT_EQ_INT(KIX_EINVAL, kix_index_open(f.dir, &ro, &f.log, &err));
    ro.store.read_only = 1;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_STORE_LAYOUT, kix_store_layout(kix_log_store(f.log)));
    snprintf(dest, sizeof(dest), "%s/copy", f.dir);
    ASSERT_EQ_INT(0, mkdir(dest, 0700));
    ASSERT_EQ_INT(KIX_OK, kix_store_copy(kix_log_store(f.log), dest, &err));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(0, access(marker, F_OK));
    snprintf(path, sizeof(path), "%s/index.mdb", dest);
    ASSERT_TRUE(access(path, F_OK) != 0);
    snprintf(path, sizeof(path), "%s/log.dat", dest);
    ASSERT_EQ_INT(0, access(path, F_OK));
    /* the log key stays beside the store: a copy holds none */
    snprintf(path, sizeof(path), "%s/log.key", f.dir);
    memset(&ro, 0, sizeof(ro));
    ro.log_key_file = path;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(dest, &ro, &copy, &err));
    all_index_notes(copy, &after);
    kix_log_close(copy);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    kix_buf_release(&before);
    kix_buf_release(&after);
    teardown(&f);
}

/* data.mdb keeps no derived record (layout 3 on). */
static void no_derived_record_in_the_log(const struct fixture *f)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_stat st;

    ASSERT_EQ_INT(0, mdb_env_create(&env));
    ASSERT_EQ_INT(0, mdb_env_set_maxdbs(env, 32));
    ASSERT_EQ_INT(0, mdb_env_open(env, f->dir, MDB_RDONLY, 0600));
    ASSERT_EQ_INT(0, mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "objects", 0, &dbi));
    ASSERT_EQ_INT(0, mdb_stat(txn, dbi, &st));
    ASSERT_EQ_U64(0, st.ms_entries);
    ASSERT_EQ_INT(MDB_NOTFOUND, mdb_dbi_open(txn, "runs", 0, &dbi));
    mdb_txn_abort(txn);
    mdb_env_close(env);
}

/* Three runs published, the store closed, made older by as_older twice;
 * each time opened to write: converted to today's layout, every
 * checkpoint and index note as it was, duplicates found, checks pass.
 * The second time, the file the conversion makes (`left`) is there
 * already, as a conversion cut short leaves it: done again. The store is
 * left closed. */
static void converts_twice(struct fixture *f, void (*as_older)(const char *), const char *left)
{
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    char path[4200];
    uint64_t first[3];

    publish_runs(f, 0, 3, first);
    all_index_notes(f->log, &before);
    kix_log_close(f->log);
    f->log = NULL;
    path_in(f, left, path, sizeof(path));
    for (int round = 0; round < 2; round++) {
        as_older(f->dir);
        ASSERT_TRUE(access(path, F_OK) != 0);
        if (round == 1)
            write_text(path, "what a conversion cut short left"); /* no marker: not trusted */
        ASSERT_EQ_INT(KIX_OK, open_converting(f->dir, &f->log, &err));
        ASSERT_EQ_INT(KIX_STORE_LAYOUT, kix_store_layout(kix_log_store(f->log)));
        ASSERT_EQ_INT(4, kix_store_layout(kix_log_store(f->log)));
        kix_buf_reset(&after);
        all_index_notes(f->log, &after);
        ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
        republish_runs(f, 0, 3, first);
        checks_pass(f);
        kix_log_close(f->log);
        f->log = NULL;
        no_derived_record_in_the_log(f);
    }
    kix_buf_release(&before);
    kix_buf_release(&after);
}

/* A store of layout 2 (one data.mdb) converts to layout 3 on its first
 * writable open, then to 4: its derived tables copied into index.mdb,
 * emptied in data.mdb, the mark set; every checkpoint and index note as it
 * was. A conversion cut short (index.mdb there, data.mdb still layout 2)
 * is done again from the start. */
KIX_TEST(layout_2_converts_and_a_cut_conversion_is_redone)
{
    struct fixture f;
    struct kix_err err = {0};

    setup(&f);
    converts_twice(&f, as_layout_2, "index.mdb");
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    teardown(&f);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* An open whose index at least doubled (here: from a new store) closes by
 * writing the index again in key order (store/log/compact.c): its
 * random-key pages full, no free pages, so the file shrinks; the index
 * reads the same (notes, duplicates, checks), and the next open, which
 * adds little, leaves it. A copy a crash left beside it is removed by a
 * writable open. */
KIX_TEST(a_grown_index_is_compacted_at_close)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_buf before = KIX_BUF_INIT, after = KIX_BUF_INIT;
    char idx[4200], copy[4200];
    uint64_t index[200];
    long open_size, closed_size;

    setup(&f);
    publish_runs(&f, 0, 200, index);
    all_index_notes(f.log, &before);
    path_in(&f, "index.mdb", idx, sizeof(idx));
    path_in(&f, "index.mdb.compact", copy, sizeof(copy));
    open_size = file_size(idx);
    kix_log_close(f.log);
    f.log = NULL;
    closed_size = file_size(idx);
    fprintf(stderr, "index.mdb: %ld bytes open, %ld closed\n", open_size, closed_size);
    ASSERT_TRUE(closed_size > 0 && closed_size * 4 < open_size * 3);
    ASSERT_EQ_INT(-1, (int)file_size(copy));
    write_text(copy, "cut short"); /* a crash before the rename */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(-1, (int)file_size(copy));
    all_index_notes(f.log, &after);
    ASSERT_EQ_MEM(before.ptr, before.len, after.ptr, after.len);
    republish_runs(&f, 0, 200, index);
    checks_pass(&f);
    publish_runs(&f, 200, 201, index);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_TRUE(file_size(idx) >= closed_size); /* grown a little: left as it is */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    checks_pass(&f);
    kix_buf_release(&before);
    kix_buf_release(&after);
    teardown(&f);
}

/* A writable open without kix_store_opts.convert (kix publish --store, kix
 * audit's replica, the importers) refuses a store of an older layout,
 * naming kixd migrate, and leaves it as it was: only who copies the store
 * first converts it. Read-only opens read it as ever. */
KIX_TEST(an_older_layout_is_converted_only_when_asked)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_log_opts ro = {.store.read_only = 1};
    uint64_t first[1];

    setup(&f);
    publish_runs(&f, 0, 1, first);
    kix_log_close(f.log);
    f.log = NULL;
    as_layout_3(f.dir);
    ASSERT_EQ_INT(KIX_ENOTSUP, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_CONTAINS(err.msg, "written by an older kix (store layout 3");
    ASSERT_CONTAINS(err.msg, "kixd migrate --store");
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(3, kix_store_layout(kix_log_store(f.log)));
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    ASSERT_EQ_INT(4, kix_store_layout(kix_log_store(f.log)));
    checks_pass(&f);
    teardown(&f);
}

/* A store of layout 3 (the leaves' and blobs' bytes in data.mdb) converts
 * to layout 4 on its first writable open: the bytes moved to log.dat,
 * locators left; every checkpoint and index note as it was. A conversion
 * cut short (a log.dat there, data.mdb still layout 3) is done again; bytes
 * past what data.mdb names (a commit cut short) are cut off on open. */
KIX_TEST(layout_3_converts_to_4_and_a_cut_conversion_is_redone)
{
    struct fixture f;
    struct kix_err err = {0};
    char dat[4200];
    struct stat st;
    off_t size;

    setup(&f);
    converts_twice(&f, as_layout_3, "log.dat");
    path_in(&f, "log.dat", dat, sizeof(dat));
    /* bytes a commit that never happened left past the end */
    ASSERT_EQ_INT(0, stat(dat, &st));
    size = st.st_size;
    {
        FILE *fp = fopen(dat, "ab");
        ASSERT_TRUE(fp != NULL);
        fputs("not committed", fp);
        fclose(fp);
    }
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(0, stat(dat, &st));
    ASSERT_EQ_U64((uint64_t)size, (uint64_t)st.st_size);
    checks_pass(&f);
    teardown(&f);
}

/* Readers take the index's snapshot first and serve the log at the
 * index's size: under a writer committing all along, the index note a
 * reader serves at its size proves the newest run of that size present
 * and the next one absent, from the reader's own index tables. */
struct race {
    struct fixture *f;
    atomic_int done;
    atomic_int checked;
    uint64_t base; /* the index of run-0 */
    int failed;
    char why[1200];
};

static void *race_reader(void *arg)
{
    struct race *x = arg;
    struct kix_err err = {0};

    while (!atomic_load(&x->done) && !x->failed) {
        struct kix_log_reader *r;
        struct kix_bytes cpb, nb;
        struct kix_note opened;
        struct kix_checkpoint cp;
        struct kix_vindex_note n;
        struct kix_buf v = KIX_BUF_INIT, p = KIX_BUF_INIT;
        char key[64];
        int present = -1;
        uint64_t size;

        if (kix_log_read_begin(x->f->log, &r))
            abort();
        size = kix_log_reader_size(r);
        if (size <= x->base) {
            kix_log_read_end(r);
            continue;
        }
        if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cpb) ||
            kix_log_reader_index_note(r, KIX_NO_INDEX, &nb) ||
            kix_checkpoint_open((const char *)cpb.ptr, cpb.len, &x->f->vkey, 1, ORIGIN, &opened,
                                &cp, &err) ||
            kix_vindex_note_open((const char *)nb.ptr, nb.len, &x->f->vkey, &cp, &n, &err)) {
            snprintf(x->why, sizeof(x->why), "size %llu: notes: %s", (unsigned long long)size,
                     err.msg);
            x->failed = 1;
        }
        if (!x->failed && cp.size != size) {
            snprintf(x->why, sizeof(x->why), "a reader at size %llu serves a checkpoint of %llu",
                     (unsigned long long)size, (unsigned long long)cp.size);
            x->failed = 1;
        }
        for (int k = 0; k < 2 && !x->failed; k++) {
            /* run-(size-1-base) is the newest; the next is not in yet */
            snprintf(key, sizeof(key), "run/run-%llu",
                     (unsigned long long)(size - 1 - x->base + (uint64_t)k));
            kix_buf_reset(&v);
            kix_buf_reset(&p);
            if (kix_index_prove(r, key, strlen(key), &v, &p, &present, &err) || present != !k ||
                kix_vindex_verify(&n, key, strlen(key), k ? NULL : v.ptr, k ? 0 : v.len, p.ptr,
                                  p.len, &err)) {
                snprintf(x->why, sizeof(x->why),
                         "size %llu: %s is %s in the index, or its proof fails against the "
                         "index note of that size: %s",
                         (unsigned long long)size, key, present ? "present" : "absent", err.msg);
                x->failed = 1;
            }
        }
        kix_buf_release(&v);
        kix_buf_release(&p);
        kix_log_read_end(r);
        atomic_fetch_add(&x->checked, 1);
    }
    return NULL;
}

KIX_TEST(a_reader_never_pairs_an_index_with_another_checkpoint)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct race x;
    pthread_t t[2];

    setup(&f);
    memset(&x, 0, sizeof(x));
    x.f = &f;
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-0", 0, &res, &err));
    x.base = res.index;
    for (int i = 0; i < 2; i++)
        ASSERT_EQ_INT(0, pthread_create(&t[i], NULL, race_reader, &x));
    for (int i = 1; i < 120 && !x.failed; i++) {
        char run[16];
        snprintf(run, sizeof(run), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, run, i, &res, &err));
    }
    atomic_store(&x.done, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (x.failed)
        fprintf(stderr, "%s\n", x.why);
    ASSERT_EQ_INT(0, x.failed);
    fprintf(stderr, "%d snapshots checked under the writer\n", atomic_load(&x.checked));
    ASSERT_TRUE(atomic_load(&x.checked) > 20);
    teardown(&f);
}

/* this boot, as the store's marker records it (the test hook of
 * store/log/split.c, docs/REFERENCE.md) */
__attribute__((constructor)) static void this_boot(void)
{
    setenv("KIX_TEST_BOOT_ID", "unit-test-boot", 1);
}

KIX_TEST_MAIN()
