/* Crash safety of a mirror: `kixd serve --mirror-of ORIGIN --upstream-key
 * VKEY` is killed with SIGKILL at random moments while it catches up with
 * an origin kixd (which keeps growing meanwhile), and restarted each time.
 * Its store must only ever grow, it must come back every time (its own
 * start-up check passes), and once caught up it must serve exactly the
 * origin's log: the same latest checkpoint, every entry byte for byte,
 * every stored checkpoint note; `kixd check` must pass on its store.
 *
 * The upstream key is given as a file holding the verifier key text.
 * Skipped (exit 77, reported by CTest as skipped) when this kixd has no
 * --mirror-of: mirror mode is built on another branch; this test runs as
 * soon as it lands. If the mirror wants its store made first, the test
 * makes an empty replica (kix_log_create_replica) and starts it again.
 *
 * Knobs: KIX_CRASH_MIRROR_ENTRIES (default 2400), KIX_CRASH_SEED,
 * KIX_CRASH_KILL_MS (default 300). */
#include <sys/stat.h>

#include "crash_common.h"
#include "kixd_fixture.h"

/* Small batches give many kills mid-catch-up. */
static pid_t spawn_mirror(const char *store, const char *origin, const char *vkey,
                          const char *listen, const char *log)
{
    const char *args[] = {"kixd",           "serve", "--store",  store,  "--mirror-of", origin,
                          "--upstream-key", vkey,    "--listen", listen, "--log-level", "info",
                          "--mirror-batch", "40",    NULL};
    return fx_spawn(args, log);
}

static uint64_t store_size(const char *dir)
{
    struct kix_log_opts o;
    struct kix_log *l = NULL;
    struct kix_log_reader *r = NULL;
    uint64_t n = 0;
    struct stat st;
    char path[600];

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    if (stat(path, &st) != 0)
        return 0;
    memset(&o, 0, sizeof(o));
    o.replica = 1;
    o.store.read_only = 1;
    if (kix_index_open(dir, &o, &l, NULL) != KIX_OK)
        return 0;
    if (kix_log_read_begin(l, &r) == KIX_OK) {
        n = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    kix_log_close(l);
    return n;
}

/* The size the mirror serves, or UINT64_MAX when it does not answer. */
static uint64_t served_size(const char *addr, struct kix_client_info *info)
{
    struct kix_client *c = NULL;
    struct kix_client_opts o = {2000};
    uint64_t n = UINT64_MAX;
    if (kix_client_connect(addr, &o, &c, NULL) != KIX_OK)
        return n;
    if (kix_client_info(c, info, NULL) == KIX_OK)
        n = info->size;
    kix_client_close(c);
    return n;
}

struct leaves {
    struct kix_buf bytes;
    size_t *ends;
    uint64_t n, cap;
};

static int keep_leaf(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct leaves *l = ctx;
    (void)index;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->ends = realloc(l->ends, l->cap * sizeof(*l->ends));
        if (!l->ends)
            return KIX_ENOMEM;
    }
    if (kix_buf_add(&l->bytes, leaf, len))
        return KIX_ENOMEM;
    l->ends[l->n++] = l->bytes.len;
    return KIX_OK;
}

static int all_entries(struct kix_client *c, uint64_t size, struct leaves *out)
{
    memset(out, 0, sizeof(*out));
    for (uint64_t at = 0; at < size;) {
        uint64_t got = 0, n = size - at > 1000 ? 1000 : size - at;
        int rc = kix_client_entries(c, at, n, keep_leaf, out, &got, NULL);
        if (rc || got == 0)
            return rc ? rc : KIX_ENOTFOUND;
        at += got;
    }
    return KIX_OK;
}

static int keep_note(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                     const uint8_t *index_note, size_t index_len)
{
    (void)index_note;
    (void)index_len;
    struct kix_buf *b = ctx;
    if (kix_buf_addf(b, "%llu\n", (unsigned long long)size) || kix_buf_add(b, note, len))
        return KIX_ENOMEM;
    return KIX_OK;
}

KIX_TEST(mirror)
{
    static struct fx f;
    static pid_t pid;
    struct kix_client *oc = NULL, *mc = NULL;
    struct kix_client_info oinfo, minfo;
    struct kix_err err = {0};
    struct leaves lo, lm;
    struct kix_buf on = KIX_BUF_INIT, mn = KIX_BUF_INIT, ocp = KIX_BUF_INIT, mcp = KIX_BUF_INIT;
    uint64_t entries = crash_env("KIX_CRASH_MIRROR_ENTRIES", 2400);
    uint64_t kill_max = crash_env("KIX_CRASH_KILL_MS", 300), seed = crash_seed(), rnd = seed;
    uint64_t last = 0, target, window = kill_max;
    unsigned runs = 0, kills = 0, mid = 0, grown = 0;
    char mdir[256], msock[256], maddr[300], mlog[256], vkey[256];
    int made_store = 0;
    int64_t t0 = fx_now_ms();

    fprintf(stderr, "crash.mirror: %llu entries, kill within %llu ms, seed %llu\n",
            (unsigned long long)entries, (unsigned long long)kill_max, (unsigned long long)seed);
    crash_reap_at_exit(&f.pid);
    crash_reap_at_exit(&pid);
    ASSERT_EQ_INT(0, fx_start(&f));
    for (uint64_t i = 0; i < entries; i += 20) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "m%llu", (unsigned long long)i);
        ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, prefix, 20, (int)i));
    }
    oc = fx_client(&f);
    ASSERT_TRUE(oc != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_client_info(oc, &oinfo, &err));
    snprintf(mdir, sizeof(mdir), "%s/../mirror", f.dir);
    snprintf(msock, sizeof(msock), "%s/../mirror.sock", f.dir);
    snprintf(maddr, sizeof(maddr), "unix://%s", msock);
    snprintf(mlog, sizeof(mlog), "%s/../mirror.log", f.dir);
    snprintf(vkey, sizeof(vkey), "%s/../log.vkey", f.dir);
    {
        FILE *vf = fopen(vkey, "w");
        ASSERT_TRUE(vf != NULL);
        fprintf(vf, "%s\n", oinfo.log_key);
        fclose(vf);
    }

    for (;;) {
        /* the window grows while the mirror makes no progress between
         * kills (start-up and a first verified batch take a while) */
        uint64_t wait = crash_between(&rnd, 20, window), now, served;
        int st;
        pid = spawn_mirror(mdir, f.addr, vkey, maddr, mlog);
        runs++;
        st = fx_wait(pid, (int)wait);
        if (st >= 0) {
            pid = 0;
            /* it stopped by itself: it may want its store made first */
            if (!made_store && store_size(mdir) == 0) {
                struct kix_log_opts o;
                memset(&o, 0, sizeof(o));
                o.replica = 1;
                ASSERT_EQ_INT(KIX_OK, kix_dir_remove_tree(mdir, NULL));
                ASSERT_EQ_INT(KIX_OK, kix_index_create_replica(mdir, &f.log_key, &o, &err));
                made_store = 1;
                continue;
            }
            fx_show_file(mlog, 4096);
            KIX_FAIL_AT("the mirror exited with %d on run %u", st, runs);
        }
        served = served_size(maddr, &minfo);
        if (served != UINT64_MAX && served >= oinfo.size && grown) {
            /* caught up with everything: leave it running */
            break;
        }
        kill(pid, SIGKILL);
        st = fx_wait(pid, 10000);
        pid = 0;
        ASSERT_EQ_INT(128 + SIGKILL, st);
        kills++;
        now = store_size(mdir);
        if (now < last)
            KIX_FAIL_AT("the mirror's store went back from %llu to %llu entries after a kill",
                        (unsigned long long)last, (unsigned long long)now);
        mid += now > 0 && now < oinfo.size;
        if (now == last && window < 8000)
            window += window / 2;
        /* and shrinks while one run takes more than a quarter of the log:
         * a faster catch-up must still be killed mid-way a few times */
        else if (now - last > oinfo.size / 4 && window > 40)
            window /= 2;
        fprintf(stderr, "run %u: killed after %llu ms, mirror store at %llu of %llu\n", runs,
                (unsigned long long)wait, (unsigned long long)now, (unsigned long long)oinfo.size);
        last = now;
        if (kills >= 10 && !grown) {
            /* the origin grows while the mirror is down */
            ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, "late", 200, 100000));
            ASSERT_EQ_INT(KIX_OK, kix_client_info(oc, &oinfo, &err));
            grown = 1;
        }
        if (runs > 300)
            KIX_FAIL_AT("the mirror did not catch up in 300 runs");
    }
    /* wait until it serves the origin's latest */
    target = oinfo.size;
    for (int i = 0; i < 600 && served_size(maddr, &minfo) < target; i++)
        fx_sleep_ms(100);
    ASSERT_EQ_U64(target, minfo.size);
    ASSERT_TRUE(minfo.mirror);
    mc = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_connect(maddr, NULL, &mc, &err));
    /* the same latest checkpoint, entries and checkpoint notes */
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoint(oc, target, &ocp, &err));
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoint(mc, target, &mcp, &err));
    ASSERT_EQ_MEM(ocp.ptr, ocp.len, mcp.ptr, mcp.len);
    ASSERT_EQ_INT(KIX_OK, all_entries(oc, target, &lo));
    ASSERT_EQ_INT(KIX_OK, all_entries(mc, target, &lm));
    ASSERT_EQ_U64(lo.n, lm.n);
    ASSERT_TRUE(memcmp(lo.ends, lm.ends, lo.n * sizeof(*lo.ends)) == 0);
    ASSERT_TRUE(lo.bytes.len == lm.bytes.len &&
                memcmp(lo.bytes.ptr, lm.bytes.ptr, lo.bytes.len) == 0);
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoints(oc, 0, SIZE_MAX, keep_note, &on, &err));
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoints(mc, 0, SIZE_MAX, keep_note, &mn, &err));
    ASSERT_TRUE(on.len == mn.len && memcmp(on.ptr, mn.ptr, on.len) == 0);
    kix_client_close(mc);
    kill(pid, SIGTERM);
    {
        int st = fx_wait(pid, 30000);
        pid = 0;
        ASSERT_EQ_INT(0, st);
    }
    ASSERT_EQ_INT(0, fx_kixd_check(mdir));
    printf("crash.mirror: %u runs, %u killed (%u mid-catch-up), mirror of %llu entries "
           "identical to the origin; seed %llu, %.1f s\n",
           runs, kills, mid, (unsigned long long)target, (unsigned long long)seed,
           (double)(fx_now_ms() - t0) / 1000.0);
    ASSERT_TRUE(mid >= 3);
    kix_client_close(oc);
    kix_buf_release(&lo.bytes);
    kix_buf_release(&lm.bytes);
    free(lo.ends);
    free(lm.ends);
    kix_buf_release(&on);
    kix_buf_release(&mn);
    kix_buf_release(&ocp);
    kix_buf_release(&mcp);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
