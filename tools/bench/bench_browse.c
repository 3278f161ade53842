/* kix-bench: the browsing pages at 10^5 comparison groups. A log of one run
 * per group (50 kernels, 4 GPUs, 2 timed passes, 4 implementations, 2
 * dtypes, a swept size and a batch: every group its own workload), built
 * once through the append path and kept in the cache directory; then kixd
 * --http serves the home pages, the search index and its shards, and the
 * kernel pages, each under load (4 connections x 1), and their latency is
 * read: the target is a p99 under 50 ms for home and search. The
 * first home page after kixd starts reads every group (the home view, built
 * once per log state): that cold answer is a figure of its own. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kix/canon.h"
#include "kix/entries.h"
#include "kix/file.h"
#include "kix/source.h"
#include "kix/view.h"

#define ORIGIN        "bench.kix/browse"
#define BROWSE_FORMAT "browse-1" /* bump when the log below changes */
#define KERNELS       50
#define GPUS          4
#define IMPLS         4
#define CHUNK         4096
#define CONNS         4

static const char *const gpus[GPUS][2] = {{"NVIDIA A100", "SXM4-80GB"},
                                          {"NVIDIA H100", "SXM5-80GB"},
                                          {"NVIDIA GeForce RTX 4090", "PCIe"},
                                          {"AMD Instinct MI300X", "OAM"}};
static const char *const impls[IMPLS][2] = {
    {"liger", "Liger"}, {"torch", "PyTorch"}, {"triton", "Triton"}, {"cutlass", "CUTLASS"}};
static const char *const passes[2] = {"forward", "backward"};

/* The shared objects: protocols (one a pass), environments, implementations. */
enum { NSHARED = 2 + GPUS + IMPLS };

struct browse_build {
    struct kix_buf shared[NSHARED];
    char digest[NSHARED][KIX_DIGEST_TEXT_LEN + 1];
    struct kix_signer *publisher;
};

static int canon_object(const char *json, struct kix_buf *out, char digest[KIX_DIGEST_TEXT_LEN + 1],
                        struct kix_err *err)
{
    struct kix_digest d;
    int rc = kix_canon((const uint8_t *)json, strlen(json), NULL, out, err);

    if (rc == KIX_OK) {
        kix_digest_of(out->ptr, out->len, &d);
        kix_digest_format(&d, digest);
    }
    return rc;
}

static int shared_objects(struct browse_build *b, struct kix_err *err)
{
    char json[768];
    int rc = KIX_OK;

    for (int i = 0; rc == KIX_OK && i < NSHARED; i++) {
        if (i < 2)
            snprintf(json, sizeof(json),
                     "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkProtocol\","
                     "\"metadata\":{\"name\":\"browse-%s\"},\"spec\":{\"harness\":{\"name\":"
                     "\"kix-bench\"},\"measurement\":{\"primaryStatistic\":\"median\"}}}",
                     passes[i]);
        else if (i < 2 + GPUS)
            snprintf(json, sizeof(json),
                     "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":"
                     "\"ExecutionEnvironment\",\"metadata\":{\"name\":\"browse-gpu-%d\"},\"spec\":"
                     "{\"hardware\":{\"product\":\"%s\",\"formFactor\":\"%s\"}}}",
                     i - 2, gpus[i - 2][0], gpus[i - 2][1]);
        else
            snprintf(json, sizeof(json),
                     "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Implementation\","
                     "\"metadata\":{\"name\":\"browse-%s\"},\"spec\":{\"provider\":\"%s\","
                     "\"name\":\"%s\"}}",
                     impls[i - 2 - GPUS][0], impls[i - 2 - GPUS][0], impls[i - 2 - GPUS][1]);
        rc = canon_object(json, &b->shared[i], b->digest[i], err);
    }
    return rc;
}

/* Group i: its workload (unique: kernel, a swept size, a batch, dtype),
 * its pass, GPU and implementation, and its one run. */
static int group_objects(const struct browse_build *b, long i, struct kix_buf *workload,
                         struct kix_buf *manifest, struct kix_buf *env, struct kix_err *err)
{
    long kernel = i % KERNELS, rest = i / KERNELS, size = 256L << (rest % 8);
    long pass = (rest / 8) % 2, gpu = (rest / 16) % GPUS, impl = (rest / 64) % IMPLS;
    long batch = rest / 16, median = 5000 + (i * 7919) % 900000;
    const char *dtype = rest % 3 ? "bf16" : "fp32";
    char json[1536], wd[KIX_DIGEST_TEXT_LEN + 1], md[KIX_DIGEST_TEXT_LEN + 1], run_id[64];
    struct kix_digest d;
    int rc;

    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":"
             "{\"name\":\"browse-w-%ld\"},\"spec\":{\"kernel\":\"kernel_%02ld\",\"x\":{\"name\":"
             "\"N\",\"label\":\"size\",\"value\":%ld},\"parameters\":{\"batch\":%ld,\"size\":%ld},"
             "\"dtype\":\"%s\"}}",
             i, kernel, size, batch, size, dtype);
    rc = canon_object(json, workload, wd, err);
    if (rc)
        return rc;
    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
             "{\"name\":\"browse-%ld\"},\"spec\":{\"status\":\"passed\",\"observedAt\":"
             "\"2026-01-01T00:00:00.000Z\",\"timing\":{\"latencyNs\":{\"median\":%ld},"
             "\"primaryStatistic\":\"median\"},\"sourceNative\":{\"source\":\"kix-bench\","
             "\"benchmark\":\"kernel_%02ld/%s\",\"externalId\":\"browse-%ld\"},"
             "\"protocolDigest\":\"%s\",\"workloadDigest\":\"%s\",\"environmentDigest\":\"%s\","
             "\"implementationDigest\":\"%s\"}}",
             i, median, kernel, passes[pass], i, b->digest[pass], wd, b->digest[2 + gpu],
             b->digest[2 + GPUS + impl]);
    rc = canon_object(json, manifest, md, err);
    if (rc)
        return rc;
    snprintf(run_id, sizeof(run_id), "browse-%ld", i);
    if (kix_digest_parse(md, strlen(md), &d, err) != KIX_OK)
        return KIX_EINVAL;
    return kix_entry_publication(b->publisher, run_id, &d, "2026-01-01T00:00:00Z", "kix-bench",
                                 "CC-BY-4.0", env, err);
}

static int commit_all(struct kix_log *log, struct kix_prepared **p, size_t n,
                      struct kix_append_result *res, struct kix_err *err)
{
    int rc = kix_log_commit(log, p, n, res, NULL, err);

    for (size_t k = 0; rc == KIX_OK && k < n; k++)
        if (res[k].code)
            rc = kix_err_set(err, res[k].code, "item %zu of %zu refused (%s): %s", k, n,
                             kix_strerror(res[k].code), res[k].message);
    for (size_t k = 0; k < n; k++) {
        kix_prepared_free(p[k]);
        p[k] = NULL;
    }
    return rc;
}

static int build(const char *dir, long groups, struct kix_err *err)
{
    struct kix_signer *admin = NULL;
    struct kix_log *log = NULL;
    struct browse_build b;
    struct kix_buf env = KIX_BUF_INIT, workload = KIX_BUF_INIT, manifest = KIX_BUF_INIT;
    struct kix_prepared **prep = calloc(CHUNK, sizeof(*prep));
    struct kix_append_result *res = calloc(CHUNK, sizeof(*res));
    size_t n = 0;
    double t0 = bench_now();
    int rc = prep && res ? KIX_OK : KIX_ENOMEM, sent[NSHARED] = {0}, stored[NSHARED] = {0};

    memset(&b, 0, sizeof(b));
    if (rc == KIX_OK)
        rc = kix_signer_generate("bench-admin", KIX_NOTE_ALG_ED25519, &admin, err);
    if (rc == KIX_OK)
        rc = kix_signer_generate("bench-publisher", KIX_NOTE_ALG_ED25519, &b.publisher, err);
    if (rc == KIX_OK)
        rc = kix_index_create(dir, ORIGIN, kix_signer_public_key(admin), NULL, NULL, err);
    if (rc == KIX_OK)
        rc = kix_index_open(dir, NULL, &log, err);
    if (rc == KIX_OK)
        rc = shared_objects(&b, err);
    if (rc == KIX_OK)
        rc = kix_entry_key(admin, 0, kix_signer_public_key(b.publisher), KIX_ROLE_PUBLISH, &env,
                           err);
    if (rc == KIX_OK) {
        struct kix_submission sub = {kix_buf_bytes(&env), NULL, 0};
        rc = kix_log_prepare(log, &sub, &prep[n++], err);
    }
    for (long i = 0; rc == KIX_OK && i < groups; i++) {
        struct kix_bytes objs[2 + NSHARED];
        struct kix_submission sub;
        size_t k = 0;
        kix_buf_reset(&env);
        kix_buf_reset(&workload);
        kix_buf_reset(&manifest);
        if ((rc = group_objects(&b, i, &workload, &manifest, &env, err)) != KIX_OK)
            break;
        objs[k++] = kix_buf_bytes(&manifest);
        objs[k++] = kix_buf_bytes(&workload);
        /* a shared object rides with every run that names it until a batch
         * holding it is committed (a bundle may carry only what it needs) */
        for (int s = 0; s < NSHARED; s++)
            if (!stored[s] &&
                memmem(manifest.ptr, manifest.len, b.digest[s], KIX_DIGEST_TEXT_LEN)) {
                objs[k++] = kix_buf_bytes(&b.shared[s]);
                sent[s] = 1;
            }
        sub = (struct kix_submission){kix_buf_bytes(&env), objs, k};
        rc = kix_log_prepare(log, &sub, &prep[n++], err);
        if (rc == KIX_OK && (n == CHUNK || i + 1 == groups)) {
            rc = commit_all(log, prep, n, res, err);
            n = 0;
            for (int s = 0; s < NSHARED; s++)
                stored[s] |= sent[s];
            if ((i + 1) % (CHUNK * 8) < CHUNK || i + 1 == groups)
                bench_say("  browse: %ld/%ld groups (%.0f s)", i + 1, groups, bench_now() - t0);
        }
    }
    if (rc == KIX_OK && n)
        rc = commit_all(log, prep, n, res, err);
    for (size_t k = 0; prep && k < CHUNK; k++)
        kix_prepared_free(prep[k]);
    free(prep);
    free(res);
    for (int s = 0; s < NSHARED; s++)
        kix_buf_release(&b.shared[s]);
    kix_buf_release(&env);
    kix_buf_release(&workload);
    kix_buf_release(&manifest);
    kix_signer_free(b.publisher);
    kix_signer_free(admin);
    kix_log_close(log);
    return rc;
}

/* ---- reading it through kixd --------------------------------------------------------------- */

struct paths {
    char (*req)[256];
    long n;
    unsigned seed;
};

static int request(void *arg, int conn, long k, struct kix_buf *out, uint32_t *id)
{
    struct paths *p = arg;

    (void)conn;
    (void)k;
    *id = 0;
    return kix_buf_adds(out, p->req[(unsigned long)rand_r(&p->seed) % (unsigned long)p->n]) ==
           KIX_OK;
}

static void add_path(struct paths *p, const char *fmt, const char *v)
{
    char path[128];

    snprintf(path, sizeof(path), fmt, v);
    snprintf(p->req[p->n++], sizeof(p->req[0]), "GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
             path);
}

/* GETs of paths under load; the figures "browse.<key>_p50_us" and _p99_us. */
static void measure(struct bench_report *rep, int port, double seconds, const char *key,
                    const char *label, struct paths *p)
{
    struct bench_load ld;
    char k[64], l[128];

    memset(&ld, 0, sizeof(ld));
    ld.host = "127.0.0.1";
    ld.port = port;
    ld.proto = BENCH_HTTP;
    ld.conns = CONNS;
    ld.depth = 1;
    ld.warmup = seconds / 4;
    ld.seconds = seconds;
    ld.request = request;
    ld.ctx = p;
    if (bench_load_run(&ld) != 0 || ld.errors || ld.done == 0)
        bench_die("browse: %s: %ld answers, %ld errors (%s)", label, ld.done, ld.errors,
                  ld.first_error);
    snprintf(k, sizeof(k), "browse.%s", key);
    snprintf(l, sizeof(l), "GET %s, %d conns x 1", label, CONNS);
    bench_fig(rep, k, (double)ld.done / ld.elapsed, "/s", l);
    snprintf(k, sizeof(k), "browse.%s_p50_us", key);
    bench_fig(rep, k, bench_lat_quantile(&ld.lat, 0.5) / 1e3, "us", "  p50 latency");
    snprintf(k, sizeof(k), "browse.%s_p99_us", key);
    bench_fig(rep, k, bench_lat_quantile(&ld.lat, 0.99) / 1e3, "us", "  p99 latency");
    bench_lat_release(&ld.lat);
}

/* The home view in process, as kixd builds it: from nothing (its first
 * request), and from the view of the state before (after a commit that
 * changed few groups; here none, so every row is taken as it was and what
 * remains is reading each group's best run from the index). */
static void view_build(const char *dir, struct bench_report *rep, char (**names)[65],
                       size_t *npages)
{
    struct kix_log_opts opts;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_source *src = NULL;
    struct kix_home_view cold, warm;
    struct kix_err err = {0};
    double t0, t1, t2;

    memset(&opts, 0, sizeof(opts));
    opts.store.read_only = 1;
    if (kix_index_open_any(dir, &opts, &log, &err) != KIX_OK || kix_log_read_begin(log, &r) ||
        kix_source_open_snapshot(log, r, &src, &err) != KIX_OK)
        bench_die("browse: reading %s: %s", dir, err.msg);
    t0 = bench_now();
    if (kix_home_view_from_source(src, &cold, &err) != KIX_OK)
        bench_die("browse: the home view: %s", err.msg);
    t1 = bench_now();
    if (kix_home_view_update(src, &cold, &warm, &err) != KIX_OK)
        bench_die("browse: the home view: %s", err.msg);
    t2 = bench_now();
    bench_fig(rep, "browse.view_cold_ms", (t1 - t0) * 1e3, "ms",
              "home view in process, from nothing");
    bench_fig(rep, "browse.view_update_ms", (t2 - t1) * 1e3, "ms",
              "home view in process, from the previous state's");
    /* the pages' names (kix_home_view_page_name), which kixd answers and
     * the pages link */
    *npages = kix_home_view_pages(&warm);
    if (!(*names = calloc(*npages, sizeof(**names))))
        bench_die("out of memory");
    for (size_t i = 0; i < *npages; i++)
        snprintf((*names)[i], sizeof((*names)[i]), "%s", kix_home_view_page_name(&warm, i + 1));
    kix_home_view_release(&cold);
    kix_home_view_release(&warm);
    kix_source_close(src);
    kix_log_read_end(r);
    kix_log_close(log);
}

int bench_browse(const char *cache_dir, const char *work_dir, const char *kixd, long groups,
                 double seconds, struct bench_report *rep)
{
    char dir[4096], mark[4200], log[4200], listen[4300], http[64], threads[16];
    struct paths p = {NULL, 0, 7};
    char(*names)[65] = NULL;
    size_t pages = 0;
    int hport = bench_free_port();
    struct kix_buf got = KIX_BUF_INIT;
    double t0;
    pid_t pid;
    FILE *f;

    bench_path(dir, sizeof(dir), "%s/browse-%ld", cache_dir, groups);
    bench_path(mark, sizeof(mark), "%s/bench-browse", dir);
    if (kix_file_read(mark, 64, &got, NULL) != KIX_OK || got.len != strlen(BROWSE_FORMAT) + 1 ||
        memcmp(got.ptr, BROWSE_FORMAT "\n", got.len) != 0) {
        struct kix_err err = {0};
        bench_rmrf(dir);
        if (bench_mkdirs(cache_dir) != 0)
            bench_die("cannot create %s", cache_dir);
        bench_say("browse: building a log of %ld groups in %s (cached for later runs)", groups,
                  dir);
        t0 = bench_now();
        int rc = build(dir, groups, &err);
        if (rc != KIX_OK)
            bench_die("browse: building the log: %s (%s)", err.msg, kix_strerror(rc));
        bench_fig(rep, "browse.build_s", bench_now() - t0, "s", "building the log (once)");
        if (!(f = fopen(mark, "w")) || fprintf(f, "%s\n", BROWSE_FORMAT) < 0)
            bench_die("cannot write %s", mark);
        fclose(f);
    }
    kix_buf_release(&got);
    bench_fig(rep, "browse.groups", (double)groups, "", "comparison groups (one run each)");
    view_build(dir, rep, &names, &pages);
    bench_path(log, sizeof(log), "%s/kixd-browse.log", work_dir);
    bench_path(listen, sizeof(listen), "unix://%s/browse.sock", work_dir);
    snprintf(http, sizeof(http), "tcp://127.0.0.1:%d", hport);
    snprintf(threads, sizeof(threads), "%d", bench_cpus());
    {
        char *argv[] = {(char *)kixd,  "serve",  "--store", dir,         "--listen",
                        listen,        "--http", http,      "--threads", threads,
                        "--log-level", "warn",   NULL};
        pid = bench_spawn(argv, log);
    }
    if (bench_wait_port(hport, pid, 60) != 0)
        bench_die("browse: kixd --http did not start (see %s)", log);
    if (!(p.req = calloc(4096, sizeof(*p.req))))
        bench_die("out of memory");

    /* the first home page reads every group: once per log state */
    add_path(&p, "%s", "");
    {
        struct bench_load ld;
        memset(&ld, 0, sizeof(ld));
        ld.host = "127.0.0.1";
        ld.port = hport;
        ld.proto = BENCH_HTTP;
        ld.conns = 1;
        ld.depth = 1;
        ld.total = 1;
        ld.request = request;
        ld.ctx = &p;
        t0 = bench_now();
        if (bench_load_run(&ld) != 0 || ld.errors || ld.done != 1)
            bench_die("browse: the first home page: %s", ld.first_error);
        bench_fig(rep, "browse.home_cold_ms", (bench_now() - t0) * 1e3, "ms",
                  "the first home page (builds the home view)");
        bench_lat_release(&ld.lat);
    }
    measure(rep, hport, seconds, "home", "/ (home page 1)", &p);
    p.n = 0;
    for (size_t i = 0; pages > 1 && i < 512; i++)
        add_path(&p, "home/%s.html", names[1 + (i * 2654435761u) % (pages - 1)]);
    if (p.n)
        measure(rep, hport, seconds, "home_pages", "home/<name> (any page)", &p);
    p.n = 0;
    add_path(&p, "%s", "search/index.json");
    measure(rep, hport, seconds, "search_index", "search/index.json", &p);
    p.n = 0;
    add_path(&p, "%s", "search/pages.json");
    measure(rep, hport, seconds, "search_pages", "search/pages.json", &p);
    p.n = 0;
    for (size_t i = 0; i < pages && i < 4096; i++)
        add_path(&p, "search/%s.json", names[i]);
    measure(rep, hport, seconds, "search_shard", "search/<name>.json (a page's groups)", &p);
    p.n = 0;
    for (long i = 0; i < KERNELS; i++) {
        char kernel[32];
        snprintf(kernel, sizeof(kernel), "kernel_%02ld", i);
        add_path(&p, "kernels/%s", kernel);
    }
    measure(rep, hport, seconds, "kernel", "kernels/<kernel> (2000 groups, their sweeps)", &p);
    bench_stop(pid);
    free(p.req);
    free(names);
    return 0;
}
