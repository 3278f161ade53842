/* Crash safety of the replica path: `kix audit` (kix_sync into a local
 * replica kept with no_sync) is killed with SIGKILL at random moments
 * while it catches up with a kixd, and started again, until it finishes.
 * Each restart must resume where the replica stopped (its size never goes
 * back), and at the end the replica must be identical to the origin:
 * every entry byte for byte, every checkpoint note, every object an entry
 * needs; `kixd check` must pass on it, and one more audit finds nothing
 * left to do.
 *
 * Knobs: KIX_CRASH_AUDIT_ENTRIES (default 2400), KIX_CRASH_SEED,
 * KIX_CRASH_KILL_MS (the longest run before a kill, default 150). */
#include <glob.h>
#include <sys/stat.h>

#include "crash_common.h"
#include "kixd_fixture.h"

/* Starts `kix audit --batch 40` with its own state directory. */
static pid_t spawn_audit(const struct fx *f, const char *state, const char *vkey, const char *out)
{
    char kix[1024];
    const char *bin = getenv("KIX_BIN");
    pid_t pid;

    snprintf(kix, sizeof(kix), "%s/kix", bin && *bin ? bin : KIX_BIN_DIR);
    pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        setenv("KIX_STATE_DIR", state, 1);
        execl(kix, "kix", "audit", "--server", f->addr, "--log-key", vkey, "--batch", "40",
              "--json", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* The replica directory kix audit made under state (0 until then). The
 * one it is making (audit-<hex>.new, renamed into place when made) is not
 * it: a kill while it is made leaves that behind for the next run. */
static int replica_dir(const char *state, char *out, size_t cap)
{
    char pattern[512];
    glob_t g;
    int found = 0;

    snprintf(pattern, sizeof(pattern), "%s/logs/*/audit-*", state);
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) {
            size_t n = strlen(g.gl_pathv[i]);
            if (n > 4 && strcmp(g.gl_pathv[i] + n - 4, ".new") == 0)
                continue;
            snprintf(out, cap, "%s", g.gl_pathv[i]);
            found++;
        }
    globfree(&g);
    if (found != 1)
        out[0] = '\0';
    return found == 1;
}

static int open_replica(const char *dir, struct kix_log **out)
{
    struct kix_log_opts o;
    memset(&o, 0, sizeof(o));
    o.replica = 1;
    o.store.read_only = 1;
    return kix_index_open(dir, &o, out, NULL);
}

static uint64_t replica_size(const char *dir)
{
    struct kix_log *l = NULL;
    struct kix_log_reader *r = NULL;
    uint64_t n = 0;
    if (open_replica(dir, &l) != KIX_OK)
        return 0;
    if (kix_log_read_begin(l, &r) == KIX_OK) {
        n = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    kix_log_close(l);
    return n;
}

/* ---- comparing the replica with the origin ------------------------------------- */

struct cmp {
    struct kix_log_reader *r;
    struct kix_client *c;
    uint64_t entries, objects, checkpoints;
    char why[512];
};

/* An object the entry needs, and (refs) the objects it references. */
static int cmp_object(struct cmp *k, const struct kix_digest *d, uint64_t index, int refs)
{
    struct kix_bytes obj;
    struct kix_buf theirs = KIX_BUF_INIT;
    struct kix_digest *more = NULL;
    size_t nmore = 0;
    int rc = kix_log_reader_object(k->r, d, &obj);

    if (rc == KIX_OK)
        rc = kix_client_get_object(k->c, d, &theirs, NULL);
    if (rc == KIX_OK && (theirs.len != obj.len || memcmp(theirs.ptr, obj.ptr, obj.len) != 0))
        rc = KIX_EVERIFY;
    if (rc)
        snprintf(k->why, sizeof(k->why), "an object of entry %llu differs or is missing",
                 (unsigned long long)index);
    kix_buf_release(&theirs);
    k->objects++;
    if (rc == KIX_OK && refs)
        rc = kix_refs_extract(obj.ptr, obj.len, &more, &nmore, NULL);
    for (size_t i = 0; rc == KIX_OK && i < nmore; i++)
        rc = cmp_object(k, &more[i], index, 0);
    free(more);
    return rc;
}

static int cmp_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct cmp *k = ctx;
    struct kix_bytes mine;
    struct kix_digest *needs = NULL;
    size_t n = 0;
    int rc;

    if (kix_log_reader_entry(k->r, index, &mine) != KIX_OK || mine.len != len ||
        memcmp(mine.ptr, leaf, len) != 0) {
        snprintf(k->why, sizeof(k->why), "entry %llu differs", (unsigned long long)index);
        return KIX_EVERIFY;
    }
    k->entries++;
    rc = kix_entry_needs(leaf, len, &needs, &n, NULL);
    for (size_t i = 0; rc == KIX_OK && i < n; i++)
        rc = cmp_object(k, &needs[i], index, 1);
    free(needs);
    return rc;
}

static int cmp_checkpoint(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                          const uint8_t *index_note, size_t index_len)
{
    (void)index_note;
    (void)index_len;
    struct cmp *k = ctx;
    struct kix_buf theirs = KIX_BUF_INIT;
    int rc = kix_client_checkpoint(k->c, size, &theirs, NULL);
    if (rc == KIX_OK && (theirs.len != len || memcmp(theirs.ptr, note, len) != 0))
        rc = KIX_EVERIFY;
    if (rc)
        snprintf(k->why, sizeof(k->why), "the checkpoint at size %llu differs",
                 (unsigned long long)size);
    kix_buf_release(&theirs);
    k->checkpoints++;
    return rc;
}

static int count_checkpoint(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                            const uint8_t *index_note, size_t index_len)
{
    (void)index_note;
    (void)index_len;
    (void)size;
    (void)note;
    (void)len;
    ++*(uint64_t *)ctx;
    return 0;
}

KIX_TEST(audit)
{
    static struct fx f;
    struct kix_client *c;
    struct kix_client_info info;
    struct kix_log *replica = NULL;
    struct kix_err err = {0};
    struct cmp k;
    uint64_t entries = crash_env("KIX_CRASH_AUDIT_ENTRIES", 2400);
    uint64_t kill_max = crash_env("KIX_CRASH_KILL_MS", 150), seed = crash_seed(), rnd = seed;
    uint64_t last = 0, size, origin_cps = 0;
    unsigned kills = 0, mid = 0, runs = 0;
    char state[256], out[256], dir[512] = "", cmd[2000];
    int status = -1;
    int64_t t0 = fx_now_ms();

    fprintf(stderr, "crash.audit: %llu entries, kill within %llu ms, seed %llu\n",
            (unsigned long long)entries, (unsigned long long)kill_max, (unsigned long long)seed);
    crash_reap_at_exit(&f.pid);
    ASSERT_EQ_INT(0, fx_start(&f));
    /* many small group commits: a checkpoint every 20 entries */
    for (uint64_t i = 0; i < entries; i += 20) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "a%llu", (unsigned long long)i);
        ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, prefix, 20, (int)i));
    }
    c = fx_client(&f);
    ASSERT_TRUE(c != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_client_info(c, &info, &err));
    size = info.size;
    snprintf(state, sizeof(state), "%s/../state", f.dir);
    snprintf(out, sizeof(out), "%s/../audit.out", f.dir);

    /* kill it at random moments until a run finishes on its own */
    while (status != 0) {
        /* after 200 kills, let it finish (it must, killed or not) */
        uint64_t wait = runs < 200 ? crash_between(&rnd, 5, kill_max) : 120000, now;
        pid_t pid = spawn_audit(&f, state, info.log_key, out);
        runs++;
        status = fx_wait(pid, (int)wait);
        if (status < 0) {
            kill(pid, SIGKILL);
            status = fx_wait(pid, 10000);
            /* it may have finished on its own just before the signal */
            ASSERT_TRUE(status == 128 + SIGKILL || status == 0);
            kills += status != 0;
        } else if (status != 0) {
            fx_show_file(out, 4096);
            KIX_FAIL_AT("kix audit exited %d after %u kills", status, kills);
        }
        now = dir[0] || replica_dir(state, dir, sizeof(dir)) ? replica_size(dir) : 0;
        if (now < last)
            KIX_FAIL_AT("the replica went back from %llu to %llu entries after a kill",
                        (unsigned long long)last, (unsigned long long)now);
        if (status != 0 && now > 0 && now < size)
            mid++;
        fprintf(stderr, "run %u: %s after %llu ms, replica at %llu of %llu\n", runs,
                status == 0 ? "finished" : "killed", (unsigned long long)wait,
                (unsigned long long)now, (unsigned long long)size);
        /* a machine that starts kix audit slower than the window: ten
         * kills in a row before its first commit widen it (to 5 s at most),
         * so that kills still land mid-sync */
        if (status != 0 && now == 0 && runs % 10 == 0 && mid == 0 && kill_max < 5000)
            kill_max *= 2;
        last = now;
        if (status != 0 && runs > 200) /* (run 201 is let finish: only not finishing fails) */
            KIX_FAIL_AT("kix audit did not finish within two minutes");
    }
    ASSERT_TRUE(dir[0] != '\0');
    ASSERT_EQ_U64(size, replica_size(dir));
    /* identical to the origin */
    ASSERT_EQ_INT(KIX_OK, open_replica(dir, &replica));
    memset(&k, 0, sizeof(k));
    k.c = c;
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(replica, &k.r));
    for (uint64_t at = 0; at < size;) {
        uint64_t got = 0, n = size - at > 1000 ? 1000 : size - at;
        if (kix_client_entries(c, at, n, cmp_entry, &k, &got, &err) != KIX_OK || got == 0)
            KIX_FAIL_AT("%s", k.why[0] ? k.why : err.msg);
        at += got;
    }
    if (kix_log_reader_checkpoints(k.r, 0, SIZE_MAX, cmp_checkpoint, &k) != KIX_OK)
        KIX_FAIL_AT("%s", k.why);
    kix_log_read_end(k.r);
    kix_log_close(replica);
    ASSERT_EQ_INT(KIX_OK,
                  kix_client_checkpoints(c, 0, SIZE_MAX, count_checkpoint, &origin_cps, &err));
    ASSERT_EQ_U64(origin_cps, k.checkpoints);
    ASSERT_EQ_U64(size, k.entries);
    kix_client_close(c);
    ASSERT_EQ_INT(0, fx_kixd_check(dir));
    /* one more audit: nothing left to check */
    ASSERT_EQ_INT(0, fx_wait(spawn_audit(&f, state, info.log_key, out), 60000));
    snprintf(cmd, sizeof(cmd), "\"passed\":true,\"from\":%llu,\"to\":%llu",
             (unsigned long long)size, (unsigned long long)size);
    ASSERT_TRUE(fx_file_contains(out, cmd));

    printf("crash.audit: %u runs, %u killed (%u mid-sync), replica of %llu entries, %llu "
           "checkpoints and %llu objects (with references) identical to the origin; seed %llu, "
           "%.1f s\n",
           runs, kills, mid, (unsigned long long)size, (unsigned long long)k.checkpoints,
           (unsigned long long)k.objects, (unsigned long long)seed,
           (double)(fx_now_ms() - t0) / 1000.0);
    ASSERT_TRUE(mid >= 3);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
