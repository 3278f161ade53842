/* Two processes writing one store (kix publish --store beside kixd serve):
 * LMDB's write lock orders their data.mdb transactions, and the store
 * keeps what lies outside it right: each append goes at the committed end
 * read under the lock (not one the handle kept), a writable open cuts
 * log.dat only under the lock, and a close compacts the index only when
 * no other process holds the store (store/log/db.c, segment.c, split.c).
 * Real processes (fork), real LMDB. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "fixture.h"

/* One byte each way between the test and its child. */
struct channel {
    int to_child[2], to_parent[2];
};

static void channel_open(struct channel *c)
{
    if (pipe(c->to_child) != 0 || pipe(c->to_parent) != 0)
        abort();
}

static void say(int fd, char what)
{
    if (write(fd, &what, 1) != 1)
        abort();
}

/* After the fork: each side keeps its own ends, so that either one's exit
 * is the other's end of file (a failed test never leaves its child
 * waiting). */
static void channel_side(struct channel *c, pid_t pid)
{
    close(pid == 0 ? c->to_child[1] : c->to_child[0]);
    close(pid == 0 ? c->to_parent[0] : c->to_parent[1]);
}

/* A new store (the fixture's, closed) and a child process with a channel
 * to it: the child's side gets 0, the test's the child's pid. */
static pid_t setup_with_child(struct fixture *f, struct channel *c)
{
    pid_t pid;

    setup(f);
    kix_log_close(f->log);
    f->log = NULL;
    channel_open(c);
    pid = fork();
    if (pid < 0)
        abort();
    channel_side(c, pid);
    return pid;
}

/* The next byte, or 0 at the end. */
static char hear(int fd)
{
    char what = 0;
    ssize_t n;
    while ((n = read(fd, &what, 1)) < 0 && errno == EINTR)
        ;
    return n == 1 ? what : 0;
}

static void path_in(const struct fixture *f, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", f->dir, name);
}

static int publish_run(struct fixture *f, const char *who, int tag, uint64_t *index)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    char run[32];
    int rc;

    snprintf(run, sizeof(run), "%s-%d", who, tag);
    rc = publish(f, f->publisher, run, tag, &res, &err);
    if (rc)
        fprintf(stderr, "publishing %s: %s\n", run, err.msg);
    else if (index)
        *index = res.index;
    return rc;
}

static void is_duplicate(struct fixture *f, const char *who, int tag, uint64_t index)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    char run[32];

    snprintf(run, sizeof(run), "%s-%d", who, tag);
    ASSERT_EQ_INT(KIX_OK, publish(f, f->publisher, run, tag, &res, &err));
    ASSERT_EQ_INT(1, res.duplicate);
    ASSERT_EQ_U64(index, res.index);
}

static void child_done(pid_t pid)
{
    int status = 0;
    ASSERT_EQ_INT(pid, waitpid(pid, &status, 0));
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ_INT(0, WEXITSTATUS(status));
}

#define ROUNDS 24

/* The child's side of the turn-taking tests: its own handle on the store
 * ('o' once open), then on each 'g' one run published (child-<tag>, tags
 * from first_tag on) and its index sent back. */
static void child_publishes_on_cue(struct fixture *f, struct channel *c, int first_tag)
{
    int bad = kix_index_open(f->dir, NULL, &f->log, NULL) != KIX_OK;

    say(c->to_parent[1], 'o');
    for (int i = 0; i < ROUNDS && !bad; i++) {
        uint64_t ix = 0;
        if (hear(c->to_child[0]) != 'g')
            _exit(2);
        bad = publish_run(f, "child", first_tag + i, &ix) != KIX_OK;
        if (write(c->to_parent[1], &ix, sizeof(ix)) != sizeof(ix))
            _exit(3);
    }
    kix_log_close(f->log);
    _exit(bad);
}

/* The test's side: the child publishes one run; its index in *ix. */
static void child_publishes_one(struct channel *c, uint64_t *ix)
{
    say(c->to_child[1], 'g');
    ASSERT_EQ_INT((int)sizeof(*ix), (int)read(c->to_parent[0], ix, sizeof(*ix)));
}

/* Two writers take turns, each with its store open all along: every
 * entry either appended holds its bytes (the log's check hashes each one
 * from log.dat), the index holds it (a duplicate at its index) and the
 * checks pass. Appending at the end its handle kept, each writer
 * overwrote the other's committed bytes. */
KIX_TEST(two_processes_append_in_turn_and_lose_nothing)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    uint64_t mine[ROUNDS], theirs[ROUNDS];
    pid_t pid;

    pid = setup_with_child(&f, &c);
    if (pid == 0)
        child_publishes_on_cue(&f, &c, 1000);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT('o', hear(c.to_parent[0]));
    for (int i = 0; i < ROUNDS; i++) {
        ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", i, &mine[i]));
        child_publishes_one(&c, &theirs[i]);
    }
    child_done(pid);
    /* the parent's handle goes on after the child's last commit */
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", ROUNDS, NULL));
    checks_pass(&f);
    kix_log_close(f.log);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    checks_pass(&f);
    for (int i = 0; i < ROUNDS; i++) {
        is_duplicate(&f, "parent", i, mine[i]);
        is_duplicate(&f, "child", 1000 + i, theirs[i]);
    }
    ASSERT_EQ_U64(mine[0] + 2 * ROUNDS + 1, log_size(&f));
    teardown(&f);
}

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Another process's writer holds LMDB's write lock and has appended to
 * log.dat bytes its transaction will name (here: a raw LMDB transaction
 * and 4 KiB appended by hand, as kix__seg_sync writes them before the
 * commit). A writable open meanwhile must not cut them off: it waits for
 * the lock. The child holds the index's write lock first, so that the
 * open is past data.mdb's tables when the child takes data.mdb's. */
KIX_TEST(a_writable_open_leaves_another_writers_appends)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    char dat[4200];
    off_t committed;
    pid_t pid;

    pid = setup_with_child(&f, &c);
    path_in(&f, "log.dat", dat, sizeof(dat));
    committed = size_of(dat);
    if (pid == 0) {
        MDB_env *env = NULL, *ienv = NULL;
        MDB_txn *txn = NULL, *itxn = NULL;
        char junk[4096];
        int fd, cut = 0;
        if (test_env_open(f.dir, "runs", 0, &ienv) || mdb_txn_begin(ienv, NULL, 0, &itxn))
            _exit(2);
        say(c.to_parent[1], 'i'); /* the open goes on to wait for the index */
        sleep_ms(300);
        if (test_env_open(f.dir, "leaves", 0, &env) || mdb_txn_begin(env, NULL, 0, &txn))
            _exit(3);
        memset(junk, 'x', sizeof(junk));
        fd = open(dat, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0 || write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
            _exit(4);
        close(fd);
        mdb_txn_abort(itxn); /* the open goes on, to log.dat */
        for (int i = 0; i < 30 && !cut; i++) {
            sleep_ms(50);
            cut = size_of(dat) != committed + (off_t)sizeof(junk);
        }
        mdb_txn_abort(txn); /* not committed: the bytes are no one's now */
        mdb_env_close(env);
        mdb_env_close(ienv);
        _exit(cut ? 5 : 0);
    }
    ASSERT_TRUE(committed > 0);
    ASSERT_EQ_INT('i', hear(c.to_parent[0]));
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    child_done(pid);
    /* cut once the child's transaction ended */
    ASSERT_EQ_U64((uint64_t)committed, (uint64_t)size_of(dat));
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 0, NULL));
    checks_pass(&f);
    teardown(&f);
}

static ino_t inode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A close whose open at least doubled the index compacts it (a copy
 * renamed over index.mdb), but only when no other process holds the
 * store: one that does would write its later commits into the file
 * renamed away, and a reader opening after would not see them. A
 * compaction asked for (kixd compact) says why it did not happen; once
 * the other process has closed, it does. */
KIX_TEST(a_close_compacts_only_when_no_other_process_holds_the_store)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    struct kix_log_opts ro;
    char idx[4200];
    uint64_t index, size;
    ino_t before;
    pid_t pid;

    pid = setup_with_child(&f, &c);
    if (pid == 0) {
        int bad;
        if (hear(c.to_child[0]) != 'o')
            _exit(2);
        bad = kix_index_open(f.dir, NULL, &f.log, NULL) != KIX_OK;
        say(c.to_parent[1], 'o');
        if (!bad && hear(c.to_child[0]) == 'p')
            bad = publish_run(&f, "child", 5000, NULL) != KIX_OK;
        say(c.to_parent[1], 'p');
        hear(c.to_child[0]);
        kix_log_close(f.log);
        _exit(bad);
    }
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    for (int i = 0; i < 200; i++)
        ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", i, &index));
    say(c.to_child[1], 'o');
    ASSERT_EQ_INT('o', hear(c.to_parent[0]));
    path_in(&f, "index.mdb", idx, sizeof(idx));
    before = inode_of(idx);
    kix_log_close(f.log); /* doubled, but the child holds the store */
    f.log = NULL;
    ASSERT_TRUE(before == inode_of(idx));
    say(c.to_child[1], 'p');
    ASSERT_EQ_INT('p', hear(c.to_parent[0]));
    /* a reader opening now sees the child's entry in the index */
    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    size = log_size(&f);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_U64(index + 2, size);
    memset(&ro, 0, sizeof(ro));
    ro.store.compact = 1;
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_EEXIST, kix_log_close_checked(f.log, &err));
    f.log = NULL;
    ASSERT_CONTAINS(err.msg, "another process");
    ASSERT_TRUE(before == inode_of(idx));
    say(c.to_child[1], 'q');
    child_done(pid);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, &ro, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_close_checked(f.log, &err));
    ASSERT_TRUE(before != inode_of(idx));
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    checks_pass(&f);
    is_duplicate(&f, "child", 5000, index + 1);
    teardown(&f);
}

/* What a process that died between its two commits leaves: the log holds
 * its entries, the index does not (here: another process's runs, then
 * index.mdb's bytes from before them put back in place, as if their index
 * commits had never reached it). The process that still holds the store
 * catches the index up before its next write, instead of putting a state
 * that claims entries the index lacks. */
KIX_TEST(an_index_left_behind_by_another_process_is_caught_up)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    struct kix_buf saved = KIX_BUF_INIT;
    char idx[4200];
    uint64_t theirs[3], mine;
    FILE *fp;
    pid_t pid;

    pid = setup_with_child(&f, &c);
    if (pid == 0) {
        int bad = hear(c.to_child[0]) != 'p' || kix_index_open(f.dir, NULL, &f.log, NULL);
        for (int i = 0; i < 3 && !bad; i++)
            bad = publish_run(&f, "child", 7000 + i, &theirs[i]) != KIX_OK ||
                  write(c.to_parent[1], &theirs[i], sizeof(theirs[i])) != sizeof(theirs[i]);
        kix_log_close(f.log);
        _exit(bad);
    }
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 0, NULL));
    path_in(&f, "index.mdb", idx, sizeof(idx));
    ASSERT_EQ_INT(KIX_OK, kix_file_read(idx, (size_t)1 << 30, &saved, &err));
    say(c.to_child[1], 'p');
    for (int i = 0; i < 3; i++)
        ASSERT_EQ_INT((int)sizeof(theirs[i]),
                      (int)read(c.to_parent[0], &theirs[i], sizeof(theirs[i])));
    child_done(pid);
    /* in place: this process has the file mapped */
    fp = fopen(idx, "r+b");
    ASSERT_TRUE(fp != NULL);
    ASSERT_EQ_INT(1, (int)fwrite(saved.ptr, saved.len, 1, fp));
    ASSERT_EQ_INT(0, fclose(fp));
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 1, &mine));
    ASSERT_EQ_U64(theirs[2] + 1, mine);
    checks_pass(&f);
    for (int i = 0; i < 3; i++)
        is_duplicate(&f, "child", 7000 + i, theirs[i]);
    kix_buf_release(&saved);
    teardown(&f);
}

/* A writable open converts an older layout, which rewrites what another
 * process holding the store reads in it (log.dat made afresh, locators
 * for bytes): only a process alone with the store does; otherwise the
 * open is refused, saying why, and the store is left as it was. */
KIX_TEST(an_older_layout_is_converted_only_alone)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    struct kix_log_opts ro;
    pid_t pid;

    memset(&ro, 0, sizeof(ro));
    ro.store.read_only = 1;
    pid = setup_with_child(&f, &c);
    if (pid == 0) {
        int bad = hear(c.to_child[0]) != 'o' || kix_index_open(f.dir, &ro, &f.log, NULL);
        say(c.to_parent[1], 'o');
        hear(c.to_child[0]);
        kix_log_close(f.log);
        _exit(bad);
    }
    as_layout_3(f.dir);
    say(c.to_child[1], 'o');
    ASSERT_EQ_INT('o', hear(c.to_parent[0]));
    ASSERT_EQ_INT(KIX_EEXIST, open_converting(f.dir, &f.log, &err));
    ASSERT_CONTAINS(err.msg, "another process has it open");
    say(c.to_child[1], 'q');
    child_done(pid);
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    ASSERT_EQ_INT(4, kix_store_layout(kix_log_store(f.log)));
    checks_pass(&f);
    teardown(&f);
}

/* A write that changes nothing (a duplicate publication) commits no
 * transaction in LMDB and uses up no transaction id. Counting it as its
 * own commit, a handle took the next process's commit, which got that
 * id, for its own, and appended at the end it kept: over the bytes the
 * other had committed. */
KIX_TEST(a_write_that_changed_nothing_does_not_hide_the_next_commit)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    uint64_t first = 0, theirs[ROUNDS], mine[ROUNDS];
    pid_t pid;

    pid = setup_with_child(&f, &c);
    if (pid == 0)
        child_publishes_on_cue(&f, &c, 2000);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT('o', hear(c.to_parent[0]));
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 0, &first));
    for (int i = 0; i < ROUNDS; i++) {
        is_duplicate(&f, "parent", 0, first); /* a write of nothing */
        child_publishes_one(&c, &theirs[i]);
        ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 1 + i, &mine[i]));
    }
    child_done(pid);
    checks_pass(&f);
    kix_log_close(f.log);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    checks_pass(&f);
    for (int i = 0; i < ROUNDS; i++) {
        is_duplicate(&f, "parent", 1 + i, mine[i]);
        is_duplicate(&f, "child", 2000 + i, theirs[i]);
    }
    teardown(&f);
}

/* The store's commit mark (kix_store_commit_mark), by which an idle kixd
 * notices another process's commit (daemon/writer/writer.c, watch): it
 * stays while nobody commits, and moves at each commit of the other
 * process, when this process's fresh reader sees the entry, and at each
 * of its own, a write of nothing (a duplicate) included. */
KIX_TEST(the_commit_mark_moves_at_every_commit_of_either_process)
{
    struct fixture f;
    struct channel c;
    struct kix_err err = {0};
    struct kix_store *s;
    uint64_t first = 0, ix = 0, mark, size;
    pid_t pid;

    pid = setup_with_child(&f, &c);
    if (pid == 0)
        child_publishes_on_cue(&f, &c, 3000);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT('o', hear(c.to_parent[0]));
    s = kix_log_store(f.log);
    ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 0, &first));
    for (int i = 0; i < ROUNDS; i++) {
        mark = kix_store_commit_mark(s);
        size = log_size(&f);
        ASSERT_EQ_U64(mark, kix_store_commit_mark(s)); /* nobody committed */
        child_publishes_one(&c, &ix);
        ASSERT_EQ_U64(size, ix);
        ASSERT_TRUE(kix_store_commit_mark(s) != mark);
        ASSERT_EQ_U64(size + 1, log_size(&f));
        mark = kix_store_commit_mark(s);
        is_duplicate(&f, "parent", 0, first);
        ASSERT_TRUE(kix_store_commit_mark(s) != mark);
        mark = kix_store_commit_mark(s);
        ASSERT_EQ_INT(KIX_OK, publish_run(&f, "parent", 1 + i, NULL));
        ASSERT_TRUE(kix_store_commit_mark(s) != mark);
    }
    child_done(pid);
    checks_pass(&f);
    teardown(&f);
}

KIX_TEST_MAIN()
