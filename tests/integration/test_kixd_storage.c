/* Storage faults against a real kixd: the store's map reaching its
 * ceiling (--map-max) and the disk filling up (a small tmpfs the test
 * mounts; skipped with a message, exit 77, where it cannot mount one).
 *
 * In both: submits fail with EFULL and a message saying what to do, kixd
 * stays up, reads keep working (info, resolve, entries, receipts), every
 * acknowledged entry is still there byte for byte, and once space returns
 * (a higher --map-max after a restart; the tmpfs grown while kixd runs)
 * submits succeed again with no repair, and `kixd check` passes. */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "kixd_calls.h"

struct acked {
    struct kix_buf env;
    uint64_t index;
    struct kix_buf receipt;
};

struct filler {
    struct fx *f;
    struct acked *a;
    size_t n, cap;
    int tag;
    int last_code;
    char last_msg[KIX_ERR_MSG_MAX];
};

/* Submits one request of `batch` new publications; records what was
 * acknowledged. Returns the request's code (or the first bundle's). */
static int submit_batch(struct filler *fl, int batch);

/* Single entries until three in a row are refused. A refusal writes
 * nothing (KIX_ECORRUPT if one was counted anyway); between refusals one
 * may still fit, as LMDB reuses the pages a commit freed once no reader
 * needs them. */
static int until_full(struct filler *fl)
{
    int refused = 0, rc = KIX_OK;

    for (int i = 0; i < 200 && refused < 3; i++) {
        size_t before = fl->n;
        rc = submit_batch(fl, 1);
        if (rc == KIX_EFULL && fl->n != before)
            return KIX_ECORRUPT;
        if (rc != KIX_OK && rc != KIX_EFULL)
            return rc;
        refused = rc == KIX_EFULL ? refused + 1 : 0;
    }
    return refused == 3 ? KIX_EFULL : rc;
}

static int submit_batch(struct filler *fl, int batch)
{
    struct kix_client *c = fx_client(fl->f);
    struct kix_buf *envs = calloc((size_t)batch, sizeof(*envs));
    char(*mf)[512] = calloc((size_t)batch, sizeof(*mf));
    struct kix_bundle *b = calloc((size_t)batch, sizeof(*b));
    struct kix_bytes *objs = calloc((size_t)batch * 2, sizeof(*objs));
    struct kix_submit_result *res = calloc((size_t)batch, sizeof(*res));
    struct kix_err err = {0};
    int rc = c && envs && mf && b && objs && res ? KIX_OK : KIX_ENOMEM;

    for (int i = 0; rc == KIX_OK && i < batch; i++) {
        char run[64];
        snprintf(run, sizeof(run), "fill-%d", fl->tag);
        rc = fx_publication(fl->f, run, fl->tag++, &envs[i], mf[i]);
        objs[2 * i].ptr = (const uint8_t *)mf[i];
        objs[2 * i].len = strlen(mf[i]);
        objs[2 * i + 1].ptr = (const uint8_t *)fx_workload;
        objs[2 * i + 1].len = strlen(fx_workload);
        b[i].envelope = kix_buf_bytes(&envs[i]);
        b[i].objects = &objs[2 * i];
        b[i].nobjects = 2;
    }
    if (rc == KIX_OK)
        rc = kix_client_submit(c, b, (size_t)batch, res, &err);
    fl->last_code = rc;
    snprintf(fl->last_msg, sizeof(fl->last_msg), "%s", err.msg);
    for (int i = 0; rc == KIX_OK && i < batch; i++) {
        struct acked *a;
        if (res[i].code) {
            rc = fl->last_code = res[i].code;
            snprintf(fl->last_msg, sizeof(fl->last_msg), "%s", res[i].message);
            break;
        }
        if (fl->n == fl->cap) {
            fl->cap = fl->cap ? 2 * fl->cap : 256;
            fl->a = realloc(fl->a, fl->cap * sizeof(*fl->a));
        }
        a = &fl->a[fl->n++];
        memset(a, 0, sizeof(*a));
        a->env = envs[i];
        kix_buf_init(&envs[i]);
        a->index = res[i].index;
        a->receipt = res[i].receipt;
        kix_buf_init(&res[i].receipt);
    }
    for (int i = 0; res && i < batch; i++)
        kix_submit_result_release(&res[i]);
    for (int i = 0; envs && i < batch; i++)
        kix_buf_release(&envs[i]);
    kix_client_close(c);
    free(envs);
    free(mf);
    free(b);
    free(objs);
    free(res);
    return rc;
}

/* Publishes in submits of 25 until one fails, then one at a time until
 * one fails (max_batches of 25 at most); returns the failure's code. */
static int fill(struct filler *fl, int max_batches)
{
    int rc = KIX_OK;
    for (int i = 0; rc == KIX_OK && i < max_batches; i++)
        rc = submit_batch(fl, 25);
    for (int i = 0; rc != KIX_OK && rc == KIX_EFULL && i < 100; i++) {
        int one = submit_batch(fl, 1);
        if (one != KIX_OK)
            return one;
    }
    return rc;
}

static int entry_matches(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct acked *a = ctx;
    (void)index;
    if (a->env.len != len || memcmp(a->env.ptr, leaf, len) != 0)
        return KIX_EVERIFY;
    return KIX_OK;
}

/* Every acknowledged entry: its receipt verifies and it is in the log. */
static int all_acked_present(struct filler *fl)
{
    struct kix_client *c = fx_client(fl->f);
    struct kix_err err = {0};
    int rc = c ? KIX_OK : KIX_EUNAVAIL;

    for (size_t i = 0; rc == KIX_OK && i < fl->n; i++) {
        struct acked *a = &fl->a[i];
        struct kix_receipt r;
        uint64_t got = 0;
        kix_receipt_init(&r);
        rc = kix_receipt_verify((const char *)a->receipt.ptr, a->receipt.len, &fl->f->log_key,
                                a->env.ptr, a->env.len, &r, NULL, &err);
        kix_receipt_release(&r);
        if (rc == KIX_OK)
            rc = kix_client_entries(c, a->index, 1, entry_matches, a, &got, &err);
        if (rc == KIX_OK && got != 1)
            rc = KIX_ENOTFOUND;
        if (rc)
            fprintf(stderr, "acknowledged entry %llu: %s\n", (unsigned long long)a->index,
                    kix_err_text(&err, rc));
    }
    kix_client_close(c);
    return rc;
}

/* Reads still work: info, the latest checkpoint, resolve of a run. */
static int reads_work(struct filler *fl)
{
    struct kix_client *c = fx_client(fl->f);
    struct kix_client_info info;
    struct kix_resolution res;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_err err = {0};
    int rc = c ? kix_client_info(c, &info, &err) : KIX_EUNAVAIL;

    if (rc == KIX_OK)
        rc = kix_client_checkpoint(c, KIX_NO_INDEX, &note, &err);
    kix_resolution_init(&res);
    if (rc == KIX_OK)
        rc = kix_client_resolve(c, "fill-0", &res, &err);
    if (rc == KIX_OK)
        rc = kix_resolution_verify(&res, &fl->f->log_key, NULL, &err);
    if (rc)
        fprintf(stderr, "read: %s\n", kix_err_text(&err, rc));
    kix_resolution_release(&res);
    kix_buf_release(&note);
    kix_client_close(c);
    return rc;
}

static int kixd_check_passes(const struct fx *f)
{
    return fx_kixd_check(f->dir) == 0;
}

static void release_filler(struct filler *fl)
{
    for (size_t i = 0; i < fl->n; i++) {
        kix_buf_release(&fl->a[i].env);
        kix_buf_release(&fl->a[i].receipt);
    }
    free(fl->a);
}

KIX_TEST(map_ceiling)
{
    static const char *const extra[] = {"--map-max", "1M", NULL};
    struct fx f;
    struct filler fl;
    size_t before;
    int rc;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    memset(&fl, 0, sizeof(fl));
    fl.f = &f;
    rc = fill(&fl, 400);
    fprintf(stderr, "map of 1 MiB full after %zu entries: %s\n", fl.n, fl.last_msg);
    ASSERT_EQ_INT(KIX_EFULL, rc);
    ASSERT_TRUE(fl.n > 100);
    ASSERT_CONTAINS(fl.last_msg, "the store reached its map ceiling of 1048576 bytes");
    ASSERT_CONTAINS(fl.last_msg, "nothing was written");
    ASSERT_CONTAINS(fl.last_msg, "--map-max");
    /* it stays full, stays up, and answers reads */
    /* a batch that did not fit may leave room for a smaller one: fill up
     * with single entries until three in a row are refused */
    before = fl.n;
    ASSERT_EQ_INT(KIX_EFULL, until_full(&fl));
    ASSERT_TRUE(fl.n >= before);
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_EQ_INT(KIX_OK, reads_work(&fl));
    ASSERT_EQ_INT(KIX_OK, all_acked_present(&fl));
    /* more room: restart with a higher ceiling; nothing to repair */
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    ASSERT_TRUE(kixd_check_passes(&f));
    fx_add_arg(&f, "--map-max");
    fx_add_arg(&f, "64M");
    ASSERT_EQ_INT(0, fx_serve(&f));
    ASSERT_EQ_INT(KIX_OK, fill(&fl, 4));
    ASSERT_EQ_INT(KIX_OK, all_acked_present(&fl));
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    ASSERT_TRUE(kixd_check_passes(&f));
    release_filler(&fl);
    fx_cleanup(&f);
}

static long dir_kib(const char *dir)
{
    char *argv[] = {"du", "-sk", (char *)dir, NULL};
    long kib = -1;
    pid_t pid;
    FILE *p = kix_test_pipe_open(argv, &pid);
    if (p && fscanf(p, "%ld", &kib) != 1)
        kib = -1;
    if (p && kix_test_pipe_close(p, pid) != 0)
        kib = -1;
    return kib;
}

static char mounted[64]; /* unmounted at exit, also when a check failed */

static void unmount_at_exit(void)
{
    if (mounted[0])
        umount2(mounted, MNT_DETACH);
}

KIX_TEST(disk_full)
{
    struct fx f;
    struct filler fl;
    char disk[64], store[80], opts[64], home[sizeof(f.dir)];
    long used;
    size_t before;
    int rc;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    /* move the store onto a small tmpfs: its size now + 512 KiB */
    /* beside the store: f.dir is /tmp/kixd-test-XXXXXX/log */
    snprintf(disk, sizeof(disk), "%.40s/disk", f.dir);
    *strrchr(disk, '/') = '\0';
    *strrchr(disk, '/') = '\0';
    snprintf(disk + strlen(disk), sizeof(disk) - strlen(disk), "/disk");
    ASSERT_EQ_INT(0, mkdir(disk, 0700));
    used = dir_kib(f.dir);
    snprintf(opts, sizeof(opts), "size=%ldk,mode=0700", used + 512);
    if (mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) {
        fprintf(stderr,
                "SKIP disk_full: cannot mount a tmpfs here (%s; it needs root or "
                "CAP_SYS_ADMIN). The map-ceiling case covers EFULL from the store's side.\n",
                strerror(errno));
        fx_cleanup(&f);
        exit(77);
    }
    snprintf(mounted, sizeof(mounted), "%s", disk);
    atexit(unmount_at_exit);
    snprintf(home, sizeof(home), "%s", f.dir);
    snprintf(store, sizeof(store), "%s/log", disk);
    {
        char *argv[] = {"cp", "-a", f.dir, store, NULL};
        pid_t pid;
        FILE *p = kix_test_pipe_open(argv, &pid);
        ASSERT_TRUE(p != NULL);
        ASSERT_EQ_INT(0, kix_test_pipe_close(p, pid));
    }
    snprintf(f.dir, sizeof(f.dir), "%s", store);
    ASSERT_EQ_INT(0, fx_serve(&f));
    fprintf(stderr, "store on a tmpfs of %ld KiB (%ld used)\n", used + 512, used);

    memset(&fl, 0, sizeof(fl));
    fl.f = &f;
    rc = fill(&fl, 400);
    fprintf(stderr, "tmpfs full after %zu entries: %s %s\n", fl.n, kix_err_name(rc), fl.last_msg);
    ASSERT_EQ_INT(KIX_EFULL, rc);
    ASSERT_TRUE(fl.n > 50);
    ASSERT_CONTAINS(fl.last_msg, "no space left on the device");
    ASSERT_CONTAINS(fl.last_msg, "free disk space");
    ASSERT_CONTAINS(fl.last_msg, "nothing was written");
    /* a batch that did not fit may leave room for a smaller one: fill up
     * with single entries until three in a row are refused */
    ASSERT_EQ_INT(KIX_EFULL, until_full(&fl));
    before = fl.n;
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_EQ_INT(KIX_OK, reads_work(&fl));
    ASSERT_EQ_INT(KIX_OK, all_acked_present(&fl));
    /* space returns while kixd runs: it goes on, nothing to repair */
    ASSERT_EQ_INT(
        0, mount("tmpfs", disk, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, "size=64m,mode=0700"));
    ASSERT_EQ_INT(KIX_OK, fill(&fl, 4));
    ASSERT_EQ_INT(before + 100, fl.n);
    ASSERT_EQ_INT(KIX_OK, all_acked_present(&fl));
    ASSERT_TRUE(kixd_check_passes(&f)); /* read-only, beside the running kixd */
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    ASSERT_TRUE(kixd_check_passes(&f));
    ASSERT_EQ_INT(0, umount2(disk, MNT_DETACH));
    mounted[0] = '\0';
    snprintf(f.dir, sizeof(f.dir), "%s", home);
    release_filler(&fl);
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
