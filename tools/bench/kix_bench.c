/* kix-bench — kix's performance, each figure against a limit measured in the
 * same run.
 *
 *   kix-bench [--quick] [--json] [options]
 *
 * One process tree: this process drives the load; kixd, the echo server
 * (kix-bench --echo-server) and, when installed, redis-server and nginx run
 * as its children on loopback ports. See tools/bench/RESULTS.md for what each
 * figure and ratio means; --help lists the options.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "bench.h"
#include "kix/client.h"
#include "kix/file.h"
#include "kix/proto.h"
#include "kix/sync.h"
#include "kix/version.h"

#define CACHE_FORMAT "v1" /* bump when the store layout or the workload changes */

struct opts {
    int quick, json, keep, no_redis, no_nginx, clients, depth, verify_threads;
    long appends, big, small;
    double seconds, limit_seconds;
    const char *work, *cache, *only, *bin_dir;
    char bin[PATH_MAX], self[PATH_MAX];
};

/* ---- requests ---------------------------------------------------------------- */

struct req_ctx {
    struct bench_item *items;
    long n;
    long next; /* submit: next item */
    uint32_t next_id;
    unsigned seed;
    const char *method; /* "submit", "get_object", "resolve" */
    char redis_get[128];
};

static int req_kix(void *arg, int conn, long k, struct kix_buf *out, uint32_t *id)
{
    struct req_ctx *c = arg;
    struct kix_proto_writer pw;
    const struct bench_item *it;

    (void)conn;
    (void)k;
    *id = c->next_id++;
    kix_proto_writer_init(&pw, out);
    if (strcmp(c->method, "submit") == 0) {
        if (c->next >= c->n)
            return 0;
        it = &c->items[c->next++];
        kix_proto_begin_request(&pw, *id, "submit");
        kix_proto_put_map(&pw, 1);
        kix_proto_put_key(&pw, "bundles");
        kix_proto_put_array(&pw, 1);
        kix_proto_put_map(&pw, 2);
        kix_proto_put_key(&pw, "envelope");
        kix_proto_put_bin(&pw, it->env.ptr, it->env.len);
        kix_proto_put_key(&pw, "objects");
        kix_proto_put_array(&pw, 1);
        kix_proto_put_bin(&pw, it->manifest.ptr, it->manifest.len);
    } else {
        it = &c->items[(unsigned long)rand_r(&c->seed) % (unsigned long)c->n];
        kix_proto_begin_request(&pw, *id, c->method);
        kix_proto_put_map(&pw, 1);
        if (strcmp(c->method, "resolve") == 0) {
            kix_proto_put_key(&pw, "ref");
            kix_proto_put_cstr(&pw, it->run_id);
        } else {
            kix_proto_put_key(&pw, "digest");
            kix_proto_put_cstr(&pw, it->digest);
        }
    }
    return kix_proto_writer_end(&pw, NULL) == KIX_OK;
}

static int req_redis(void *arg, int conn, long k, struct kix_buf *out, uint32_t *id)
{
    struct req_ctx *c = arg;
    (void)conn;
    (void)k;
    *id = 0;
    return kix_buf_adds(out, c->redis_get) == KIX_OK;
}

/* A load window with no answer in it (a short --seconds on a slow build,
 * an ASan kixd rendering a page) is run again twice as long, up to this:
 * a rate is answers over the time they took, however long the window. */
#define LOAD_MAX_SECONDS 5.0

/* Runs one load; dies on connection errors; *errors gets refused requests. */
static void load(const char *what, int port, enum bench_proto proto, int conns, int depth,
                 double warmup, double seconds, long total, bench_request_fn fn, void *ctx,
                 int check_submit, struct bench_load *ld)
{
again:
    memset(ld, 0, sizeof(*ld));
    ld->host = "127.0.0.1";
    ld->port = port;
    ld->proto = proto;
    ld->conns = conns;
    ld->depth = depth;
    ld->warmup = warmup;
    ld->seconds = seconds;
    ld->total = total;
    ld->request = fn;
    ld->ctx = ctx;
    ld->check_submit = check_submit;
    if (bench_load_run(ld) != 0)
        bench_die("%s: %s", what, ld->first_error);
    if (ld->errors)
        bench_die("%s: %ld requests failed, the first: %s", what, ld->errors, ld->first_error);
    if (ld->done == 0 && total == 0 && seconds * 2 <= LOAD_MAX_SECONDS) {
        bench_lat_release(&ld->lat);
        seconds *= 2;
        goto again;
    }
    if (ld->done == 0)
        bench_die("%s: no answers in %.2f s", what, seconds);
}

/* Rate and latency of a read load as figures "<key>", "<key>_p50_us", "<key>_p99_us". */
static void read_figs(struct bench_report *rep, const char *key, const char *label,
                      struct bench_load *ld)
{
    char k[64], l[96];
    bench_fig(rep, key, (double)ld->done / ld->elapsed, "/s", label);
    snprintf(k, sizeof(k), "%s_p50_us", key);
    snprintf(l, sizeof(l), "  p50 latency");
    bench_fig(rep, k, bench_lat_quantile(&ld->lat, 0.5) / 1e3, "us", l);
    snprintf(k, sizeof(k), "%s_p99_us", key);
    snprintf(l, sizeof(l), "  p99 latency");
    bench_fig(rep, k, bench_lat_quantile(&ld->lat, 0.99) / 1e3, "us", l);
    bench_lat_release(&ld->lat);
}

/* load and read_figs for the other files of kix-bench (bench.h) */
void bench_load_or_die(const char *what, int port, enum bench_proto proto, int conns, int depth,
                       double warmup, double seconds, bench_request_fn fn, void *ctx,
                       struct bench_load *ld)
{
    load(what, port, proto, conns, depth, warmup, seconds, 0, fn, ctx, 0, ld);
}

void bench_read_figs(struct bench_report *rep, const char *key, const char *label,
                     struct bench_load *ld)
{
    read_figs(rep, key, label, ld);
}

/* ---- limits ----------------------------------------------------------------------- */

static int have_program(const char *name, char *path, size_t cap)
{
    const char *p = getenv("PATH");
    char dir[PATH_MAX];
    while (p && *p) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, p, name);
        if (access(dir, X_OK) == 0) {
            snprintf(path, cap, "%s", dir);
            return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

/* The reference servers, kept up through the kix phases so that each kix
 * figure can be bracketed by its limit (measured just before and after). */
struct servers {
    int echo_port, redis_port;
    pid_t echo_pid, redis_pid;
    struct req_ctx *echo_reads; /* get_object requests for the echo server */
    struct req_ctx redis_reads;
};

static double rate(struct bench_load *ld)
{
    double r = (double)ld->done / ld->elapsed;
    bench_lat_release(&ld->lat);
    return r;
}

/* A short 16x16 load on the echo server (or Redis): the limit right now. */
static double echo_now(const struct opts *o, struct servers *sv)
{
    struct bench_load ld;
    double t = o->limit_seconds / 2;
    load("echo 16x16", sv->echo_port, BENCH_MSGPACK, 16, 16, t / 4, t, 0, req_kix, sv->echo_reads,
         0, &ld);
    return rate(&ld);
}

static double redis_now(const struct opts *o, struct servers *sv)
{
    struct bench_load ld;
    double t = o->limit_seconds / 2;
    if (!sv->redis_pid)
        return NAN;
    load("redis 16x16", sv->redis_port, BENCH_RESP, 16, 16, t / 4, t, 0, req_redis,
         &sv->redis_reads, 0, &ld);
    return rate(&ld);
}

static double verify_now(const struct opts *o)
{
    return bench_ed25519_verify(o->verify_threads, o->limit_seconds / 2, 700, NULL);
}

/* ---- kixd's per-phase CPU of appends (serve --phase-stats, read from /metrics) ---- */

#define NPHASES 8
static const char *const phase_names[NPHASES] = {"receive", "canonical", "hash",   "verify",
                                                 "policy",  "index",     "commit", "answer"};

struct phase_sample {
    double seconds[NPHASES];
    double committed;
    double batch_entries, batches; /* kix_batch_entries_sum and _count */
};

/* GET /metrics from kixd's HTTP listener on 127.0.0.1:port (one request,
 * Connection: close, at most 1 MiB read) and the phase counters in it.
 * 0 when every counter was found. */
static int phase_scrape(int port, struct phase_sample *out)
{
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n";
    struct sockaddr_in sa;
    size_t cap = (size_t)1 << 20, len = 0;
    char *buf = malloc(cap + 1), *line;
    int fd = socket(AF_INET, SOCK_STREAM, 0), found = 0;
    ssize_t n;

    memset(out, 0, sizeof(*out));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1)) {
        if (fd >= 0)
            close(fd);
        free(buf);
        return -1;
    }
    while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = '\0';
    for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char name[32];
        double v;
        if (sscanf(line, "kixd_append_cpu_seconds_total{phase=\"%31[a-z]\"} %lf", name, &v) == 2) {
            for (int i = 0; i < NPHASES; i++)
                if (strcmp(name, phase_names[i]) == 0) {
                    out->seconds[i] = v;
                    found |= 1 << i;
                }
        } else if (sscanf(line, "kixd_append_phase_entries_total{step=\"committed\"} %lf", &v) ==
                   1) {
            out->committed = v;
            found |= 1 << NPHASES;
        } else if (sscanf(line, "kix_batch_entries_sum %lf", &v) == 1) {
            out->batch_entries = v;
        } else if (sscanf(line, "kix_batch_entries_count %lf", &v) == 1) {
            out->batches = v;
        }
    }
    free(buf);
    return found == (1 << (NPHASES + 1)) - 1 ? 0 : -1;
}

/* The figures append.phase_<name>_us: kixd's CPU per appended entry in each
 * phase between two scrapes, and their sum. */
static void phase_figs(struct bench_report *rep, const struct phase_sample *a,
                       const struct phase_sample *b)
{
    double entries = b->committed - a->committed, sum = 0;
    char key[64], label[96];

    if (entries <= 0)
        bench_die("appends: kixd counted no committed entry in its phase stats");
    for (int i = 0; i < NPHASES; i++) {
        double us = (b->seconds[i] - a->seconds[i]) * 1e6 / entries;
        snprintf(key, sizeof(key), "append.phase_%s_us", phase_names[i]);
        snprintf(label, sizeof(label), "    %s", phase_names[i]);
        bench_fig(rep, key, us, "us", i == 0 ? "  kixd CPU per entry by phase: receive" : label);
        sum += us;
    }
    bench_fig(rep, "append.phase_sum_us", sum, "us", "    sum of the phases");
    if (b->batches > a->batches)
        bench_fig(rep, "append.entries_per_commit",
                  (b->batch_entries - a->batch_entries) / (b->batches - a->batches), "",
                  "  entries a group commit (one fdatasync)");
}

/* What a child has written, from /proc/PID/io: write_bytes, the bytes of
 * the pages it made dirty (what reaches the device, once per writeback of
 * a page: a page dirtied again before the kernel wrote it back counts
 * once), and wchar, the bytes it passed to write(2) and its kin (LMDB's
 * pwrite of each dirty page at commit, and the answers on its sockets).
 * Issue 38 judges write_bytes; wchar is the work of the system calls. -1
 * each when the kernel does not say. */
struct io_counts {
    double write_bytes, wchar;
};

static struct io_counts io_written(pid_t pid)
{
    char path[64], line[128];
    unsigned long long v;
    struct io_counts out = {-1, -1};
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
    f = fopen(path, "r");
    if (!f)
        return out;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "wchar: %llu", &v) == 1)
            out.wchar = (double)v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            out.write_bytes = (double)v;
    }
    fclose(f);
    return out;
}

/* CPU seconds of this process (all threads) and of a child. */
static double cpu_self(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* User + system CPU seconds of a child; *sys (may be NULL) the system part. */
static double cpu_child_split(pid_t pid, double *sys);

static double cpu_child(pid_t pid)
{
    return cpu_child_split(pid, NULL);
}

static double cpu_child_split(pid_t pid, double *sys)
{
    char path[64], buf[1024], *p;
    unsigned long long ut = 0, st = 0;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command may hold spaces */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return 0;
    if (sys)
        *sys = (double)st / (double)sysconf(_SC_CLK_TCK);
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void run_limits(const struct opts *o, const char *work, struct bench_report *rep,
                       struct servers *sv)
{
    char log[PATH_MAX], dir[PATH_MAX], port_s[16], threads_s[16], self[PATH_MAX];
    int cpus = o->verify_threads;
    double t = o->limit_seconds, cpu_us = 0;
    struct bench_load ld;

    bench_say("limits: Ed25519, SHA-256, LMDB");
    bench_fig(rep, "limits.ed25519_verify_1core", bench_ed25519_verify(1, t, 700, &cpu_us), "/s",
              "Ed25519 verify (libsodium), 1 core");
    bench_fig(rep, "limits.ed25519_verify_cpu_us", cpu_us, "us", "  CPU time of one verify");
    bench_fig(rep, "limits.ed25519_verify_all", bench_ed25519_verify(cpus, t, 700, NULL), "/s",
              "Ed25519 verify, all cores");
    bench_fig_note(rep, "%d threads", cpus);
    bench_fig(rep, "limits.sha256_node", bench_sha256_node(BENCH_SHA256_KIX, t), "/s",
              "SHA-256 of a 65-byte Merkle node (kix/sha256.h)");
    bench_fig(rep, "limits.sha256_node_evp", bench_sha256_node(BENCH_SHA256_EVP, t), "/s",
              "  the same through EVP, one reused context");
    bench_fig(rep, "limits.sha256_node_sodium", bench_sha256_node(BENCH_SHA256_SODIUM, t), "/s",
              "  the same by libsodium");
    bench_path(dir, sizeof(dir), "%s/lmdb-limit", work);
    bench_fig(rep, "limits.lmdb_batched_puts", bench_lmdb_batched(dir, t, 100, 1024), "/s",
              "LMDB durable puts, 100 x 1 KiB per commit");

    /* the echo server */
    bench_say("limits: libuv msgpack echo server");
    sv->echo_port = bench_free_port();
    snprintf(port_s, sizeof(port_s), "%d", sv->echo_port);
    snprintf(threads_s, sizeof(threads_s), "%d", bench_cpus());
    snprintf(self, sizeof(self), "%s", o->self);
    bench_path(log, sizeof(log), "%s/echo.log", work);
    {
        char *argv[] = {self, "--echo-server", port_s, threads_s, NULL};
        sv->echo_pid = bench_spawn(argv, log);
    }
    if (sv->echo_pid < 0 || bench_wait_port(sv->echo_port, sv->echo_pid, 10) != 0)
        bench_die("the echo server did not start (see %s)", log);
    sv->echo_reads->method = "get_object";
    load("echo 1x1", sv->echo_port, BENCH_MSGPACK, 1, 1, t / 4, t, 0, req_kix, sv->echo_reads, 0,
         &ld);
    read_figs(rep, "limits.echo_1x1", "libuv msgpack echo, 1 conn x 1", &ld);
    load("echo 16x16", sv->echo_port, BENCH_MSGPACK, 16, 16, t / 4, t, 0, req_kix, sv->echo_reads,
         0, &ld);
    read_figs(rep, "limits.echo_16x16", "libuv msgpack echo, 16 conns x 16", &ld);
}

/* SETs the 1 KiB value every GET reads: one blocking request. */
static int redis_set(int port)
{
    char cmd[1200], reply[64];
    struct sockaddr_in sa;
    size_t len;
    ssize_t n;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok = 0;

    len = (size_t)snprintf(cmd, sizeof(cmd), "*3\r\n$3\r\nSET\r\n$9\r\nkix:bench\r\n$1024\r\n");
    memset(cmd + len, 'x', 1024);
    len += 1024;
    memcpy(cmd + len, "\r\n", 2);
    len += 2;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        write(fd, cmd, len) == (ssize_t)len && (n = read(fd, reply, sizeof(reply) - 1)) > 0) {
        reply[n] = '\0';
        ok = strncmp(reply, "+OK", 3) == 0;
    }
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

static int run_redis(const struct opts *o, const char *work, struct bench_report *rep,
                     struct servers *sv)
{
    char server[PATH_MAX], tool[PATH_MAX], log[PATH_MAX], port_s[16];
    double t = o->limit_seconds;
    struct bench_load ld;
    struct req_ctx c;
    int port;
    pid_t pid;

    if (o->no_redis || !have_program("redis-server", server, sizeof(server))) {
        bench_say("limits: no redis-server on PATH; get_object is compared with the echo server");
        return 0;
    }
    bench_say("limits: Redis GET of 1 KiB");
    port = bench_free_port();
    snprintf(port_s, sizeof(port_s), "%d", port);
    bench_path(log, sizeof(log), "%s/redis.log", work);
    {
        char *argv[] = {server, "--port",       port_s, "--bind",      "127.0.0.1", "--save",
                        "",     "--appendonly", "no",   "--daemonize", "no",        NULL};
        pid = bench_spawn(argv, log);
    }
    if (pid < 0 || bench_wait_port(port, pid, 10) != 0 || redis_set(port) != 0) {
        bench_say("redis-server did not start or refused SET (see %s); skipping Redis", log);
        bench_stop(pid);
        return 0;
    }
    memset(&c, 0, sizeof(c));
    snprintf(c.redis_get, sizeof(c.redis_get), "*2\r\n$3\r\nGET\r\n$9\r\nkix:bench\r\n");
    load("redis 1x1", port, BENCH_RESP, 1, 1, t / 4, t, 0, req_redis, &c, 0, &ld);
    read_figs(rep, "limits.redis_get_1x1", "Redis GET 1 KiB, 1 conn x 1", &ld);
    load("redis 16x16", port, BENCH_RESP, 16, 16, t / 4, t, 0, req_redis, &c, 0, &ld);
    read_figs(rep, "limits.redis_get_16x16", "Redis GET 1 KiB, 16 conns x 16", &ld);
    if (have_program("redis-benchmark", tool, sizeof(tool))) {
        char out[PATH_MAX], port_arg[16], n_arg[16];
        struct kix_buf csv = KIX_BUF_INIT;
        const char *line;
        double got = 0;
        char *argv[] = {tool, "-h",   "127.0.0.1", "-p",  port_arg, "-c",      "16",    "-P", "16",
                        "-d", "1024", "-n",        n_arg, "-t",     "set,get", "--csv", NULL};
        snprintf(port_arg, sizeof(port_arg), "%d", port);
        snprintf(n_arg, sizeof(n_arg), "%d", o->quick ? 100000 : 1000000);
        bench_path(out, sizeof(out), "%s/redis-benchmark.csv", work);
        unlink(out);
        if (bench_run(argv, out) == 0 && kix_file_read(out, 1 << 20, &csv, NULL) == KIX_OK &&
            csv.ptr && (line = strstr((const char *)csv.ptr, "\"GET\",\"")) != NULL)
            got = strtod(line + 7, NULL);
        kix_buf_release(&csv);
        if (got > 0) {
            bench_fig(rep, "limits.redis_benchmark_get_16x16", got, "/s",
                      "redis-benchmark GET 1 KiB, -c 16 -P 16");
            bench_fig_note(rep, "its own client");
        }
    }
    sv->redis_pid = pid;
    sv->redis_port = port;
    sv->redis_reads = c;
    return 1;
}

/* ---- kix: appends, reads, audit, mirror ------------------------------------------- */

static int submit_one(struct kix_client *c, const struct kix_buf *env, const struct kix_bytes *objs,
                      size_t nobjs, struct kix_err *err)
{
    struct kix_bundle b;
    struct kix_submit_result res;
    int rc;

    memset(&res, 0, sizeof(res));
    b.envelope = kix_buf_bytes(env);
    b.objects = objs;
    b.nobjects = nobjs;
    rc = kix_client_submit(c, &b, 1, &res, err);
    if (rc == KIX_OK && res.code)
        rc = kix_err_set(err, res.code, "%s", res.message);
    kix_submit_result_release(&res);
    return rc;
}

int bench_sync_into(struct kix_client *up, const char *log_key, const char *dir, int durable,
                    uint64_t *entries, double *secs, struct kix_err *err)
{
    struct kix_client_info info;
    struct kix_verifier key;
    struct kix_log_opts opts;
    struct kix_log *replica = NULL;
    double t0;
    int rc;

    memset(&opts, 0, sizeof(opts));
    opts.replica = 1;
    opts.store.no_sync = !durable;
    rc = log_key ? KIX_OK : kix_client_info(up, &info, err);
    if (rc == KIX_OK)
        rc = log_key ? kix_verifier_parse(log_key, strlen(log_key), &key, err)
                     : kix_verifier_parse(info.log_key, strlen(info.log_key), &key, err);
    if (rc == KIX_OK)
        rc = kix_index_create_replica(dir, &key, &opts, err);
    if (rc == KIX_OK)
        rc = kix_index_open(dir, &opts, &replica, err);
    if (rc)
        return rc;
    t0 = bench_now();
    rc = kix_sync(up, replica, KIX_NO_INDEX, NULL, entries, err);
    *secs = bench_now() - t0;
    kix_log_close(replica);
    return rc;
}

static void store_disk(const char *dir, uint64_t objects, struct bench_report *rep, const char *key,
                       const char *label)
{
    struct kix_log_opts opts;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_err err;
    uint64_t leaves = 0, disk;
    char k[64];

    memset(&opts, 0, sizeof(opts));
    opts.store.read_only = 1;
    if (kix_index_open(dir, &opts, &log, &err) != KIX_OK || kix_log_read_begin(log, &r) != KIX_OK)
        bench_die("reading %s: %s", dir, err.msg);
    for (uint64_t i = 0; i < kix_log_reader_size(r); i++) {
        struct kix_bytes leaf;
        if (kix_log_reader_entry(r, i, &leaf) == KIX_OK)
            leaves += leaf.len;
    }
    kix_log_read_end(r);
    kix_log_close(log);
    disk = bench_store_bytes(dir);
    snprintf(k, sizeof(k), "%s_bytes", key);
    bench_fig(rep, k, (double)disk, "B", label);
    snprintf(k, sizeof(k), "%s_canonical_bytes", key);
    bench_fig(rep, k, (double)(leaves + objects), "B", "  canonical bytes (leaves + objects)");
    snprintf(k, sizeof(k), "%s_vs_canonical", key);
    bench_fig(rep, k, (double)disk / (double)(leaves + objects), "x",
              "  the store's files / canonical");
}

/* kixd serve on the append run's store (with --phase-stats when phases),
 * once both its ports answer. */
static pid_t start_kixd(char *kixd, char *store, char *listen, int port, char *http, int hport,
                        int phases, const char *log)
{
    char *argv[] = {kixd,          "serve", "--store", store, "--listen",       listen,
                    "--log-level", "warn",  "--http",  http,  "--http-metrics", "--phase-stats",
                    NULL};
    pid_t pid;

    if (!phases)
        argv[11] = NULL;
    pid = bench_spawn(argv, log);
    if (pid < 0 || bench_wait_port(port, pid, 30) != 0 || bench_wait_port(hport, pid, 30) != 0)
        bench_die("kixd did not start (see %s)", log);
    return pid;
}

/* kix query --kernel kix-bench as a reader runs it: every run of the log
 * matches (one kernel, every group of 16), the first page of 50 shown;
 * proven row by row (what main proved), then also proven complete. */
static void run_query(struct bench_report *rep, struct kix_client *c)
{
    struct kix_query q;
    struct bench_query_figs rows, all;
    struct kix_err err = {0};

    bench_say("reads: kix query --kernel kix-bench, with its proofs");
    memset(&q, 0, sizeof(q));
    q.kernel = "kix-bench";
    q.limit = BENCH_QUERY_LIMIT;
    if (bench_query(c, &q, 0, 5, &rows, &err) || bench_query(c, &q, 1, 5, &all, &err))
        bench_die("query: %s", err.msg);
    bench_fig(rep, "read.query_rows_p50_ms", rows.p50_ms, "ms",
              "kix query, first 50 of every run, rows proven, p50");
    bench_fig(rep, "read.query_rows_proofs", (double)rows.proofs, "", "  index proofs");
    bench_fig(rep, "read.query_complete_p50_ms", all.p50_ms, "ms",
              "  the page computed from the index, as kix query does, p50");
    bench_fig(rep, "read.query_complete_proofs", (double)all.proofs, "",
              "  index proofs (about: runs, groups and their describing runs, selections)");
    bench_fig(rep, "read.query_matched", (double)all.matched, "", "  runs matched");
}

/* Issue 38's append figures at three depths in one run: clients x 1, x 4
 * and x 16 in flight against the same kixd, log and clients. The main
 * run's depth (16 unless --depth) is the main run itself; each other one
 * is m more durable appends, read against the all-cores verify measured
 * just before (v0) and after them. */
#define NDEPTHS 3
static const int append_depth[NDEPTHS] = {1, 4, 16};

static void append_depths(const struct opts *o, int port, struct bench_item *items, long m,
                          double v0, struct bench_report *rep)
{
    struct req_ctx rq;
    struct bench_load ld;
    double rate[NDEPTHS] = {0}, p99[NDEPTHS] = {0}, v1 = v0;
    char key[64], label[96];

    for (int i = 0; i < NDEPTHS; i++) {
        if (append_depth[i] == o->depth)
            continue;
        memset(&rq, 0, sizeof(rq));
        rq.items = items;
        rq.n = m;
        rq.method = "submit";
        rq.next_id = 1;
        items += m;
        bench_say("appends: %ld more, %d clients x %d in flight", m, o->clients, append_depth[i]);
        load("submit", port, BENCH_MSGPACK, o->clients, append_depth[i], 0, 0, m, req_kix, &rq, 1,
             &ld);
        rate[i] = (double)ld.done / ld.elapsed;
        p99[i] = bench_lat_quantile(&ld.lat, 0.99) / 1e6;
        bench_lat_release(&ld.lat);
    }
    v1 = verify_now(o); /* at least two of the depths were measured here */
    for (int i = 0; i < NDEPTHS; i++) {
        int main_run = append_depth[i] == o->depth;
        snprintf(key, sizeof(key), "append.d%d_entries_per_s", append_depth[i]);
        snprintf(label, sizeof(label), "durable appends, %d clients x %d in flight", o->clients,
                 append_depth[i]);
        bench_fig(rep, key, main_run ? bench_get(rep, "append.entries_per_s") : rate[i], "/s",
                  label);
        if (main_run)
            bench_fig_note(rep, "the main run");
        else
            bench_fig_note(rep, "%ld entries", m);
        snprintf(key, sizeof(key), "append.d%d_ack_p99_ms", append_depth[i]);
        bench_fig(rep, key, main_run ? bench_get(rep, "append.ack_p99_ms") : p99[i], "ms",
                  "  ack latency p99");
        snprintf(key, sizeof(key), "append.d%d_verify_all_around", append_depth[i]);
        bench_fig(rep, key, main_run ? bench_get(rep, "append.verify_all_around") : (v0 + v1) / 2,
                  "/s", "  Ed25519 verify all cores, just before/after");
    }
}

static void run_kix(const struct opts *o, const char *work, struct bench_report *rep,
                    struct servers *sv)
{
    char store[PATH_MAX], addr[64], listen[64], log[PATH_MAX], path[PATH_MAX], kixd[PATH_MAX];
    char tag[24], label[96];
    struct kix_signer *admin = NULL;
    struct kix_client *c = NULL, *local = NULL;
    struct bench_workload w;
    struct bench_item first, *items;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_bytes objs[1 + BENCH_NSHARED];
    struct kix_err err = {0};
    struct req_ctx rq;
    struct bench_load ld;
    uint64_t synced = 0;
    double t0, secs, t = o->seconds, v0, v1, e0, e1, r0, r1, cpu0, cpu1, kcpu0, kcpu1, ksys0 = 0,
                     ksys1 = 0;
    struct io_counts io0, io1;
    /* m appends for each depth of issue 38's figures other than the main run's */
    long n = o->appends, m = n / 10 < 200 ? 200 : n / 10 > 2000 ? 2000 : n / 10, more = 0;
    int port = bench_free_port(), hport = bench_free_port();
    char http[64];
    struct phase_sample ph0, ph1;
    pid_t pid;
    uint8_t rnd[4];

    bench_path(kixd, sizeof(kixd), "%s/kixd", o->bin);
    bench_path(store, sizeof(store), "%s/log", work);
    bench_path(log, sizeof(log), "%s/kixd.log", work);
    bench_path(path, sizeof(path), "%s/admin.key", work);
    {
        char *argv[] = {kixd,          "init", "--store", store, "--origin", "bench.kix/log",
                        "--admin-key", path,   NULL};
        if (bench_run(argv, log) != 0)
            bench_die("kixd init failed (see %s)", log);
    }
    snprintf(listen, sizeof(listen), "tcp://127.0.0.1:%d", port);
    snprintf(addr, sizeof(addr), "tcp://127.0.0.1:%d", port);
    snprintf(http, sizeof(http), "tcp://127.0.0.1:%d", hport);
    /* --phase-stats: the CPU of each phase of an append, from /metrics */
    pid = start_kixd(kixd, store, listen, port, http, hport, 1, log);

    /* the publisher, the shared objects (with publication 0), pre-signed runs */
    randombytes_buf(rnd, sizeof(rnd));
    snprintf(tag, sizeof(tag), "%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
    memset(&first, 0, sizeof(first)); /* the admin key is at path, beside the store */
    if (kix_keyfile_read(path, &admin, &err) || bench_workload_init(&w, tag, &err) ||
        kix_client_connect(addr, NULL, &c, &err) ||
        bench_workload_key_entry(&w, admin, &env, &err) || submit_one(c, &env, NULL, 0, &err) ||
        bench_workload_make(&w, 0, &first, 1, 1, &err))
        bench_die("setting up the log: %s", err.msg);
    objs[0] = kix_buf_bytes(&first.manifest);
    for (int s = 0; s < BENCH_NSHARED; s++)
        objs[1 + s] = kix_buf_bytes(&w.shared[s]);
    if (submit_one(c, &first.env, objs, 1 + BENCH_NSHARED, &err))
        bench_die("publishing the shared objects: %s", err.msg);
    /* n for the main run, then m for each depth of issue 38's ack figures */
    for (int i = 0; i < NDEPTHS; i++)
        more += append_depth[i] == o->depth ? 0 : m;
    items = calloc((size_t)(n + more), sizeof(*items));
    if (!items)
        bench_die("out of memory");
    bench_say("appends: pre-signing %ld publications", n + more);
    t0 = bench_now();
    if (bench_workload_make(&w, 1, items, n + more, bench_cpus(), &err))
        bench_die("signing: %s", err.msg);
    secs = bench_now() - t0;

    bench_say("appends: %ld publications, %d clients x %d in flight, fsync on", n, o->clients,
              o->depth);
    memset(&rq, 0, sizeof(rq));
    rq.items = items;
    rq.n = n;
    rq.method = "submit";
    rq.next_id = 1;
    v0 = verify_now(o);
    if (phase_scrape(hport, &ph0) != 0)
        bench_die("appends: no phase counters in kixd's /metrics (see %s)", log);
    kcpu0 = cpu_child_split(pid, &ksys0);
    io0 = io_written(pid);
    cpu0 = cpu_self() + kcpu0;
    load("submit", port, BENCH_MSGPACK, o->clients, o->depth, 0, 0, n, req_kix, &rq, 1, &ld);
    io1 = io_written(pid);
    kcpu1 = cpu_child_split(pid, &ksys1);
    cpu1 = cpu_self() + kcpu1;
    if (phase_scrape(hport, &ph1) != 0)
        bench_die("appends: no phase counters in kixd's /metrics (see %s)", log);
    v1 = verify_now(o);
    snprintf(label, sizeof(label), "durable appends, %d clients x %d in flight", o->clients,
             o->depth);
    bench_fig(rep, "append.entries_per_s", (double)ld.done / ld.elapsed, "/s", label);
    bench_fig(rep, "append.ack_p50_ms", bench_lat_quantile(&ld.lat, 0.5) / 1e6, "ms",
              "  ack latency p50");
    bench_fig(rep, "append.ack_p99_ms", bench_lat_quantile(&ld.lat, 0.99) / 1e6, "ms",
              "  ack latency p99");
    bench_fig(rep, "append.ack_max_ms", bench_lat_max(&ld.lat) / 1e6, "ms", "  ack latency max");
    bench_fig(rep, "append.entries", (double)n, "", "  entries appended (each 1 KiB manifest)");
    bench_fig(rep, "append.cpu_us_per_entry", (cpu1 - cpu0) * 1e6 / (double)ld.done, "us",
              "  CPU per entry (kixd + load client)");
    bench_fig(rep, "append.kixd_cpu_us_per_entry", (kcpu1 - kcpu0) * 1e6 / (double)ld.done, "us",
              "  CPU per entry, kixd alone");
    bench_fig(rep, "append.kixd_sys_cpu_us_per_entry", (ksys1 - ksys0) * 1e6 / (double)ld.done,
              "us", "    of which in the kernel");
    phase_figs(rep, &ph0, &ph1);
    if (io0.write_bytes >= 0 && io1.write_bytes >= io0.write_bytes)
        bench_fig(rep, "append.kixd_write_bytes_per_entry",
                  (io1.write_bytes - io0.write_bytes) / (double)ld.done, "bytes",
                  "  bytes kixd dirtied an entry (write_bytes: what reaches the disk)");
    if (io0.wchar >= 0 && io1.wchar >= io0.wchar)
        bench_fig(rep, "append.kixd_wchar_per_entry", (io1.wchar - io0.wchar) / (double)ld.done,
                  "bytes", "  bytes kixd passed to write(2) an entry (wchar: LMDB pages, answers)");
    bench_fig(rep, "append.verify_all_around", (v0 + v1) / 2, "/s",
              "  Ed25519 verify all cores, just before/after");
    bench_fig(rep, "append.presign_per_s", (double)(n + more) / secs, "/s",
              "  pre-signing (off the clock)");
    bench_lat_release(&ld.lat);
    append_depths(o, port, items + n, m, v1, rep);

    /* the rest against kixd as it runs by default: the phase clocks cost
     * two thread-CPU clock reads a request, ~10% of a get_object */
    kix_client_close(c);
    bench_stop(pid);
    pid = start_kixd(kixd, store, listen, port, http, hport, 0, log);
    if (kix_client_connect(addr, NULL, &c, &err))
        bench_die("reconnecting to kixd: %s", err.msg);

    /* reads of what was appended; the echo server (and Redis) just before and after */
    bench_say("reads: get_object and resolve, 1x1 and 16x16");
    e0 = echo_now(o, sv);
    r0 = redis_now(o, sv);
    rq.method = "get_object";
    load("get_object 1x1", port, BENCH_MSGPACK, 1, 1, t / 4, t, 0, req_kix, &rq, 0, &ld);
    read_figs(rep, "read.get_1x1", "get_object 1 KiB, 1 conn x 1", &ld);
    load("get_object 16x16", port, BENCH_MSGPACK, 16, 16, t / 4, t, 0, req_kix, &rq, 0, &ld);
    read_figs(rep, "read.get_16x16", "get_object 1 KiB, 16 conns x 16", &ld);
    rq.method = "resolve";
    load("resolve 1x1", port, BENCH_MSGPACK, 1, 1, t / 4, t, 0, req_kix, &rq, 0, &ld);
    read_figs(rep, "read.resolve_1x1", "resolve with proofs, 1 conn x 1", &ld);
    load("resolve 16x16", port, BENCH_MSGPACK, 16, 16, t / 4, t, 0, req_kix, &rq, 0, &ld);
    read_figs(rep, "read.resolve_16x16", "resolve with proofs, 16 conns x 16", &ld);
    e1 = echo_now(o, sv);
    r1 = redis_now(o, sv);
    run_query(rep, c);
    bench_fig(rep, "read.echo_16x16_around", (e0 + e1) / 2, "/s",
              "  echo 16x16, just before/after");
    if (sv->redis_pid)
        bench_fig(rep, "read.redis_16x16_around", (r0 + r1) / 2, "/s",
                  "  Redis GET 16x16, just before/after");

    /* audit: the store itself as upstream, a replica without fsync (as kix audit) */
    bench_say("audit: kix_sync of the whole log into a fresh local replica");
    bench_path(path, sizeof(path), "%s/audit", work);
    v0 = verify_now(o);
    cpu0 = cpu_self();
    if (kix_client_open_store(store, &local, &err) ||
        bench_sync_into(local, NULL, path, 0, &synced, &secs, &err))
        bench_die("audit: %s", err.msg);
    cpu1 = cpu_self();
    kix_client_close(local);
    v1 = verify_now(o);
    bench_fig(rep, "audit.entries_per_s", (double)synced / secs, "/s",
              "kix audit (kix_sync from the store, all cores)");
    bench_fig(rep, "audit.entries", (double)synced, "", "  entries verified");
    bench_fig(rep, "audit.cpu_us_per_entry", (cpu1 - cpu0) * 1e6 / (double)synced, "us",
              "  CPU per entry");
    bench_fig(rep, "audit.verify_all_around", (v0 + v1) / 2, "/s",
              "  Ed25519 verify all cores, just before/after");

    /* mirror: a durable replica caught up from kixd over TCP */
    bench_say("mirror: kix_sync from kixd over TCP into a fresh durable replica");
    bench_path(path, sizeof(path), "%s/mirror", work);
    v0 = v1;
    cpu0 = cpu_self() + cpu_child(pid);
    if (bench_sync_into(c, NULL, path, 1, &synced, &secs, &err))
        bench_die("mirror: %s", err.msg);
    cpu1 = cpu_self() + cpu_child(pid);
    v1 = verify_now(o);
    bench_fig(rep, "mirror.entries_per_s", (double)synced / secs, "/s",
              "mirror catch-up from kixd over TCP, fsync on");
    bench_fig(rep, "mirror.entries", (double)synced, "", "  entries verified");
    bench_fig(rep, "mirror.cpu_us_per_entry", (cpu1 - cpu0) * 1e6 / (double)synced, "us",
              "  CPU per entry (replica + kixd)");
    bench_fig(rep, "mirror.verify_all_around", (v0 + v1) / 2, "/s",
              "  Ed25519 verify all cores, just before/after");

    kix_client_close(c);
    bench_stop(pid);
    store_disk(store,
               (uint64_t)(n + 1) * BENCH_MANIFEST_LEN + w.shared[0].len + w.shared[1].len +
                   w.shared[2].len + w.shared[3].len,
               rep, "disk.append", "the store's files of the append run's log");
    bench_items_release(items, n + more);
    bench_items_release(&first, 1);
    free(items);
    kix_buf_release(&env);
    kix_signer_free(admin);
    bench_workload_release(&w);
}

/* ---- scale --------------------------------------------------------------------------- */

static void run_scale(const struct opts *o, const char *work, const char *cache,
                      struct bench_report *rep)
{
    struct bench_scale_point small, big;
    char kixd[PATH_MAX], label[96];
    int samples = o->quick ? 300 : 2000;
    double wire = o->quick ? 0.5 : 2;

    bench_path(kixd, sizeof(kixd), "%s/kixd", o->bin);
    bench_say("scale: logs of %ld and %ld entries (cache %s)", o->small, o->big, cache);
    if (bench_scale_point(cache, o->small, samples, &small) != 0 ||
        bench_scale_point(cache, o->big, samples, &big) != 0 ||
        bench_scale_wire(cache, work, kixd, wire, &small, &big) != 0)
        bench_die("scale: failed (see above)");
    {
        struct kix_hash h, l;
        double t0 = bench_now(), end = t0 + o->limit_seconds / 2;
        long k = 0;
        memset(l.b, 0x5a, sizeof(l.b));
        memset(h.b, 0xa5, sizeof(h.b));
        do {
            for (int i = 0; i < 256; i++, k++)
                kix_merkle_node_hash(&h, &l, &h);
        } while (bench_now() < end);
        bench_fig(rep, "scale.merkle_node_hash_per_s", (double)k / (bench_now() - t0), "/s",
                  "kix_merkle_node_hash");
        bench_fig_note(rep, "%.2f x libsodium's",
                       (double)k / (bench_now() - t0) /
                           bench_get(rep, "limits.sha256_node_sodium"));
    }
    bench_fig(rep, "scale.small_entries", (double)small.entries, "", "small log (entries)");
    bench_fig(rep, "scale.big_entries", (double)big.entries, "", "big log (entries)");
    if (o->big < 1000000)
        bench_fig_note(rep, "not 10^6: %s", o->quick ? "--quick" : "--big");
    snprintf(label, sizeof(label), "inclusion proof p50, %ld entries", small.entries);
    bench_fig(rep, "scale.proof_small_p50_us", small.proof_p50_us, "us", label);
    snprintf(label, sizeof(label), "inclusion proof p50, %ld entries", big.entries);
    bench_fig(rep, "scale.proof_big_p50_us", big.proof_p50_us, "us", label);
    bench_fig(rep, "scale.proof_big_p99_us", big.proof_p99_us, "us", "  p99");
    bench_fig(rep, "scale.proof_small_tiles", small.proof_tiles, "", "  tiles a proof, small log");
    bench_fig(rep, "scale.proof_small_stored_tiles", small.proof_stored_tiles, "",
              "    of them read from LMDB (the rest cached)");
    bench_fig(rep, "scale.proof_big_tiles", big.proof_tiles, "", "  tiles a proof, big log");
    bench_fig(rep, "scale.proof_big_stored_tiles", big.proof_stored_tiles, "",
              "    of them read from LMDB (the rest cached)");
    snprintf(label, sizeof(label), "resolve p50, %ld entries", small.entries);
    bench_fig(rep, "scale.resolve_small_p50_us", small.resolve_p50_us, "us", label);
    snprintf(label, sizeof(label), "resolve p50, %ld entries", big.entries);
    bench_fig(rep, "scale.resolve_big_p50_us", big.resolve_p50_us, "us", label);
    bench_fig(rep, "scale.resolve_big_p99_us", big.resolve_p99_us, "us", "  p99");
    snprintf(label, sizeof(label), "verifiable index update, %ld entries (µs/entry)",
             small.entries);
    bench_fig(rep, "scale.index_update_small_us", small.index_update_us_per_entry, "us", label);
    snprintf(label, sizeof(label), "verifiable index update, %ld entries (µs/entry)", big.entries);
    bench_fig(rep, "scale.index_update_big_us", big.index_update_us_per_entry, "us", label);
    snprintf(label, sizeof(label), "run record proof, %ld entries", small.entries);
    bench_fig(rep, "scale.run_proof_small_bytes", small.run_proof_bytes, "bytes", label);
    snprintf(label, sizeof(label), "run record proof, %ld entries", big.entries);
    bench_fig(rep, "scale.run_proof_big_bytes", big.run_proof_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group directory and page proofs (a rank), %ld entries",
             small.entries);
    bench_fig(rep, "scale.group_proof_small_bytes", small.group_proof_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group directory and page proofs (a rank), %ld entries",
             big.entries);
    bench_fig(rep, "scale.group_proof_big_bytes", big.group_proof_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group directory and page records (a rank), %ld entries",
             small.entries);
    bench_fig(rep, "scale.group_record_small_bytes", small.group_record_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group directory and page records (a rank), %ld entries",
             big.entries);
    bench_fig(rep, "scale.group_record_big_bytes", big.group_record_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group page of 100 rows, records and proofs, %ld entries",
             small.entries);
    bench_fig(rep, "scale.group_page_small_bytes", small.group_page_bytes, "bytes", label);
    snprintf(label, sizeof(label), "group page of 100 rows, records and proofs, %ld entries",
             big.entries);
    bench_fig(rep, "scale.group_page_big_bytes", big.group_page_bytes, "bytes", label);
    snprintf(label, sizeof(label), "client verify of a resolution, %ld entries", small.entries);
    bench_fig(rep, "scale.verify_small_p50_us", small.verify_p50_us, "us", label);
    snprintf(label, sizeof(label), "client verify of a resolution, %ld entries", big.entries);
    bench_fig(rep, "scale.verify_big_p50_us", big.verify_p50_us, "us", label);
    snprintf(label, sizeof(label), "kixd inclusion_proof 1x1 p50, %ld entries", small.entries);
    bench_fig(rep, "scale.wire_proof_small_p50_us", small.wire_proof_p50_us, "us", label);
    snprintf(label, sizeof(label), "kixd inclusion_proof 1x1 p50, %ld entries", big.entries);
    bench_fig(rep, "scale.wire_proof_big_p50_us", big.wire_proof_p50_us, "us", label);
    snprintf(label, sizeof(label), "kixd resolve 1x1 p50 in its first %g s, %ld entries",
             wire * 1.2, small.entries);
    bench_fig(rep, "scale.wire_resolve_small_start_p50_us", small.wire_resolve_start_p50_us, "us",
              label);
    snprintf(label, sizeof(label), "kixd resolve 1x1 p50 in its first %g s, %ld entries",
             wire * 1.2, big.entries);
    bench_fig(rep, "scale.wire_resolve_big_start_p50_us", big.wire_resolve_start_p50_us, "us",
              label);
    snprintf(label, sizeof(label), "kixd resolve 1x1 p50 after %g s of service, %ld entries",
             small.wire_served_s, small.entries);
    bench_fig(rep, "scale.wire_resolve_small_p50_us", small.wire_resolve_p50_us, "us", label);
    snprintf(label, sizeof(label), "kixd resolve 1x1 p50 after %g s of service, %ld entries",
             big.wire_served_s, big.entries);
    bench_fig(rep, "scale.wire_resolve_big_p50_us", big.wire_resolve_p50_us, "us", label);
    bench_fig(rep, "scale.wire_resolve_big_p99_us", big.wire_resolve_p99_us, "us", "  p99");
    if (!big.cached) {
        snprintf(label, sizeof(label), "  building the %ld-entry log (cached now)", big.entries);
        bench_fig(rep, "scale.big_build_s", big.build_s, "s", label);
        bench_fig(rep, "scale.big_build_entries_per_s", (double)big.entries / big.build_s, "/s",
                  "  bulk append (sign + prepare + commit)");
    }
    snprintf(label, sizeof(label), "the store's files of the %ld-entry log", big.entries);
    bench_fig(rep, "disk.big_bytes", (double)big.disk_bytes, "B", label);
    bench_fig(rep, "disk.big_canonical_bytes", (double)big.canon_bytes, "B",
              "  canonical bytes (leaves + objects)");
    bench_fig(rep, "disk.big_vs_canonical", (double)big.disk_bytes / (double)big.canon_bytes, "x",
              "  the store's files / canonical");
}

/* ---- ratios, targets, output ------------------------------------------------------------- */

struct target {
    const char *ratio;
    int at_most; /* 1: value <= bound, 0: value >= bound */
    double bound;
    const char *what;
};

static void ratio(struct bench_report *rep, const char *key, double num, double den,
                  const char *label)
{
    if (isnan(num) || isnan(den) || den == 0)
        return;
    bench_fig(rep, key, num / den, "x", label);
}

static void add_ratios(struct bench_report *rep, int redis)
{
    /* the resources bench_http.c reads from both servers */
    static const char *const http_kinds[][2] = {
        {"tile", "full tile"},    {"bundle", "full bundle"}, {"checkpoint", "checkpoint"},
        {"run_json", "run JSON"}, {"object", "object"},      {"pack", "object pack"}};

    ratio(rep, "ratios.append_vs_verify_all", bench_get(rep, "append.entries_per_s"),
          bench_get(rep, "append.verify_all_around"), "durable appends / Ed25519 verify all cores");
    bench_fig(rep, "ratios.append_ack_p99_ms", bench_get(rep, "append.ack_p99_ms"), "ms",
              "append ack p99");
    ratio(rep, "ratios.append_cpu_vs_verify", bench_get(rep, "limits.ed25519_verify_cpu_us"),
          bench_get(rep, "append.cpu_us_per_entry"), "CPU: one verify / one append");
    ratio(rep, "ratios.audit_vs_verify_all", bench_get(rep, "audit.entries_per_s"),
          bench_get(rep, "audit.verify_all_around"), "audit / Ed25519 verify all cores");
    ratio(rep, "ratios.audit_cpu_vs_verify", bench_get(rep, "limits.ed25519_verify_cpu_us"),
          bench_get(rep, "audit.cpu_us_per_entry"), "CPU: one verify / one audited entry");
    ratio(rep, "ratios.mirror_vs_verify_all", bench_get(rep, "mirror.entries_per_s"),
          bench_get(rep, "mirror.verify_all_around"), "mirror / Ed25519 verify all cores");
    if (redis)
        ratio(rep, "ratios.get_vs_redis", bench_get(rep, "read.get_16x16"),
              bench_get(rep, "read.redis_16x16_around"), "get_object 16x16 / Redis GET 16x16");
    ratio(rep, "ratios.get_vs_echo", bench_get(rep, "read.get_16x16"),
          bench_get(rep, "read.echo_16x16_around"), "get_object 16x16 / echo 16x16");
    ratio(rep, "ratios.get_1x1_vs_echo_1x1", bench_get(rep, "read.get_1x1"),
          bench_get(rep, "limits.echo_1x1"), "get_object 1x1 / echo 1x1");
    ratio(rep, "ratios.resolve_vs_get", bench_get(rep, "read.resolve_16x16"),
          bench_get(rep, "read.get_16x16"), "resolve 16x16 / get_object 16x16");
    ratio(rep, "ratios.proof_1e6_vs_1e3", bench_get(rep, "scale.proof_big_p50_us"),
          bench_get(rep, "scale.proof_small_p50_us"), "proof p50: big log / small log");
    ratio(rep, "ratios.proof_1e6_vs_1e3_served", bench_get(rep, "scale.wire_proof_big_p50_us"),
          bench_get(rep, "scale.wire_proof_small_p50_us"),
          "proof p50 served by kixd 1x1: big log / small log");
    ratio(rep, "ratios.resolve_1e6_vs_1e3", bench_get(rep, "scale.resolve_big_p50_us"),
          bench_get(rep, "scale.resolve_small_p50_us"), "resolve p50: big log / small log");
    ratio(rep, "ratios.disk_vs_canonical", bench_get(rep, "disk.big_bytes"),
          bench_get(rep, "disk.big_canonical_bytes"), "data.mdb / canonical bytes (big log)");
    for (size_t i = 0; i < sizeof(http_kinds) / sizeof(http_kinds[0]); i++) {
        char key[64], kixd[64], nginx[64], label[96];
        snprintf(key, sizeof(key), "ratios.http_%s_kixd_vs_nginx", http_kinds[i][0]);
        snprintf(kixd, sizeof(kixd), "http.kixd_%s_16x1", http_kinds[i][0]);
        snprintf(nginx, sizeof(nginx), "http.nginx_%s_16x1", http_kinds[i][0]);
        snprintf(label, sizeof(label), "GET %s 16x1: kixd --http / nginx", http_kinds[i][1]);
        ratio(rep, key, bench_get(rep, kixd), bench_get(rep, nginx), label);
    }
    ratio(rep, "ratios.audit_http_vs_rpc", bench_get(rep, "sync.audit_http_per_s"),
          bench_get(rep, "sync.audit_rpc_per_s"), "audit: HTTP from nginx / msgpack from kixd");
    ratio(rep, "ratios.mirror_http_vs_rpc", bench_get(rep, "sync.mirror_http_per_s"),
          bench_get(rep, "sync.mirror_rpc_per_s"), "mirror: HTTP from nginx / msgpack from kixd");
    ratio(rep, "ratios.audit_http_vs_verify_all", bench_get(rep, "sync.audit_http_per_s"),
          bench_get(rep, "limits.ed25519_verify_all"),
          "audit over HTTP / Ed25519 verify all cores");
    ratio(rep, "ratios.mirror_http_vs_verify_all", bench_get(rep, "sync.mirror_http_per_s"),
          bench_get(rep, "limits.ed25519_verify_all"),
          "mirror over HTTP / Ed25519 verify all cores");
    for (int i = 0; i < NDEPTHS; i++) {
        char key[64], fig[64], verify[64], label[96];
        snprintf(verify, sizeof(verify), "append.d%d_verify_all_around", append_depth[i]);
        snprintf(key, sizeof(key), "ratios.append_d%d_vs_verify_all", append_depth[i]);
        snprintf(fig, sizeof(fig), "append.d%d_entries_per_s", append_depth[i]);
        snprintf(label, sizeof(label), "durable appends x %d in flight / Ed25519 verify all cores",
                 append_depth[i]);
        ratio(rep, key, bench_get(rep, fig), bench_get(rep, verify), label);
    }
    ratio(rep, "ratios.wire_resolve_1e6_vs_1e3", bench_get(rep, "scale.wire_resolve_big_p50_us"),
          bench_get(rep, "scale.wire_resolve_small_p50_us"),
          "resolve p50 through kixd in service: big log / small log");
    ratio(rep, "ratios.wire_resolve_start_1e6_vs_1e3",
          bench_get(rep, "scale.wire_resolve_big_start_p50_us"),
          bench_get(rep, "scale.wire_resolve_small_start_p50_us"),
          "resolve p50 through kixd just started: big log / small log");
    /* the export's time for 10^6 entries: the big log's export when it ran
     * (10^6 in a full run), else the append log's, scaled linearly */
    if (!isnan(bench_get(rep, "export.s")))
        ratio(rep, "ratios.export_s_per_1e6", bench_get(rep, "export.s") * 1e6,
              bench_get(rep, "export.entries"), "export time for 10^6 entries (s)");
    else
        ratio(rep, "ratios.export_s_per_1e6", bench_get(rep, "http.export_s") * 1e6,
              bench_get(rep, "static.runs"),
              "export time for 10^6 entries (s, the append log's scaled)");
    if (bench_get(rep, "export.entries") == bench_get(rep, "scale.big_entries"))
        ratio(rep, "ratios.export_vs_canonical", bench_get(rep, "export.bytes"),
              bench_get(rep, "disk.big_canonical_bytes"),
              "export's files / canonical bytes (big log)");
}

/* issue 17's targets (speed, round two), then issue 28's */
static const struct target targets[] = {
    {"append_vs_verify_all", 0, 0.8, "durable appends >= 0.8 x all-cores verify"},
    {"append_ack_p99_ms", 1, 20, "append ack p99 < 20 ms"},
    {"audit_vs_verify_all", 0, 0.9, "audit >= 0.9 x all-cores verify"},
    {"mirror_vs_verify_all", 0, 0.8, "mirror catch-up >= 0.8 x all-cores verify"},
    {"get_vs_redis", 0, 0.8, "get_object 16x16 >= 0.8 x Redis GET"},
    {"get_vs_echo", 0, 0.5, "get_object 16x16 >= 0.5 x echo (no Redis)"},
    {"resolve_vs_get", 0, 0.4, "resolve 16x16 >= 0.4 x get_object"},
    {"proof_1e6_vs_1e3", 1, 1.3, "proof latency at the big log <= 1.3 x at 10^3"},
    {"proof_1e6_vs_1e3_served", 1, 1.3, "the same, proofs served by kixd (what clients see)"},
    {"disk_vs_canonical", 1, 1.3, "store files <= 1.3 x canonical bytes"},
    /* issue 28's: reads from static copies */
    {"http_tile_kixd_vs_nginx", 0, 1.0, "kixd --http full tiles >= 1.0 x nginx"},
    {"http_bundle_kixd_vs_nginx", 0, 1.0, "kixd --http full bundles >= 1.0 x nginx"},
    {"http_object_kixd_vs_nginx", 0, 1.0, "kixd --http objects >= 1.0 x nginx"},
    {"http_pack_kixd_vs_nginx", 0, 1.0, "kixd --http object packs >= 1.0 x nginx"},
    {"audit_http_vs_rpc", 0, 0.8, "audit over HTTP (nginx) >= 0.8 x over msgpack"},
    {"mirror_http_vs_rpc", 0, 0.8, "mirror over HTTP (nginx) >= 0.8 x over msgpack"},
};

/* Issue 38's targets (round three: each byte written about once), each
 * judged on the first of its figures that was measured: the big log's
 * export when it ran, else the append log's (kix-bench --quick). */
struct issue38 {
    const char *name;
    const char *figs[2];
    int at_most;
    double bound;
    const char *target;
    /* the figure grows with the log (pages, shards and index levels to
     * rewrite; a resolve's cold pages): --quick's small logs cannot judge
     * it. At 3,603 entries exporting again wrote 11.8 KB a new entry, at
     * 64,003 entries 31 KB (tools/bench/RESULTS.md, seventh part). */
    int scaled;
};

static const struct issue38 issue38[] = {
    {"write_bytes_per_entry", {"append.kixd_write_bytes_per_entry"}, 1, 8000, "<= 8 KB", 0},
    {"disk_vs_canonical",
     {"ratios.disk_vs_canonical", "disk.append_vs_canonical"},
     1,
     1.5,
     "<= 1.5",
     1},
    {"static_bytes_per_run",
     {"export.static_bytes_per_run", "static.bytes_per_run"},
     1,
     12000,
     "<= 12 KB",
     0},
    {"static_files_per_run",
     {"export.static_files_per_run", "static.files_per_run"},
     1,
     2,
     "<= 2",
     0},
    /* exporting again is O(N): a new entry costs no more than a run's budget */
    {"export_again_bytes_per_entry", {"static.grow_bytes_per_entry"}, 1, 12000, "<= 12 KB", 1},
    {"export_again_files_per_entry", {"static.grow_files_per_entry"}, 1, 2, "<= 2", 1},
    {"export_s_per_1e6", {"ratios.export_s_per_1e6"}, 1, 300, "<= 300 s", 1},
    {"export_summary_ok", {"export.static_summary_ok", "static.summary_ok"}, 0, 1, "= 1", 0},
    {"append_d1_vs_verify_all", {"ratios.append_d1_vs_verify_all"}, 0, 0.4, ">= 0.4", 0},
    {"append_d4_vs_verify_all", {"ratios.append_d4_vs_verify_all"}, 0, 0.4, ">= 0.4", 0},
    {"append_d16_vs_verify_all", {"ratios.append_d16_vs_verify_all"}, 0, 0.4, ">= 0.4", 0},
    {"ack_p99_ms_d1", {"append.d1_ack_p99_ms"}, 1, 20, "<= 20 ms", 0},
    {"ack_p99_ms_d4", {"append.d4_ack_p99_ms"}, 1, 20, "<= 20 ms", 0},
    {"ack_p99_ms_d16", {"append.d16_ack_p99_ms"}, 1, 20, "<= 20 ms", 0},
    {"audit_vs_verify_all", {"ratios.audit_vs_verify_all"}, 0, 0.5, ">= 0.5", 0},
    {"mirror_vs_verify_all", {"ratios.mirror_vs_verify_all"}, 0, 0.5, ">= 0.5", 0},
    {"wire_resolve_1e6_vs_1e3", {"ratios.wire_resolve_1e6_vs_1e3"}, 1, 1.5, "<= 1.5", 1},
};

/* The figure row r is judged on, and its value; NULL when none was measured. */
static const char *issue38_fig(const struct bench_report *rep, const struct issue38 *r, double *v)
{
    for (size_t i = 0; i < 2 && r->figs[i]; i++) {
        *v = bench_get(rep, r->figs[i]);
        if (!isnan(*v))
            return r->figs[i];
    }
    return NULL;
}

static int issue38_met(const struct issue38 *r, double v)
{
    return r->at_most ? v <= r->bound : v >= r->bound;
}

static int target_applies(const struct target *t, int redis)
{
    if (strcmp(t->ratio, "get_vs_echo") == 0)
        return !redis;
    if (strcmp(t->ratio, "get_vs_redis") == 0)
        return redis;
    return 1;
}

static int target_met(const struct target *t, double v)
{
    return t->at_most ? (t->bound == 20 ? v < t->bound : v <= t->bound) : v >= t->bound;
}

static void fmt_value(const struct bench_fig *f, char *out, size_t cap)
{
    if (strcmp(f->unit, "/s") == 0) {
        char digits[24], grouped[40];
        size_t n, k = 0;
        snprintf(digits, sizeof(digits), "%.0f", f->value);
        n = strlen(digits);
        for (size_t i = 0; i < n; i++) {
            if (i && (n - i) % 3 == 0)
                grouped[k++] = ',';
            grouped[k++] = digits[i];
        }
        grouped[k] = '\0';
        snprintf(out, cap, "%.40s/s", grouped);
    } else if (strcmp(f->unit, "us") == 0) {
        snprintf(out, cap, "%.1f us", f->value);
    } else if (strcmp(f->unit, "ms") == 0) {
        snprintf(out, cap, "%.2f ms", f->value);
    } else if (strcmp(f->unit, "s") == 0) {
        snprintf(out, cap, "%.1f s", f->value);
    } else if (strcmp(f->unit, "x") == 0) {
        snprintf(out, cap, "%.2f x", f->value);
    } else if (strcmp(f->unit, "B") == 0) {
        snprintf(out, cap, "%.1f MB", f->value / 1e6);
    } else if (strcmp(f->unit, "bytes") == 0) {
        snprintf(out, cap, "%.0f bytes", f->value);
    } else {
        snprintf(out, cap, "%.0f", f->value);
    }
}

struct machine {
    int cpus;
    double load_start, load_end;
    char cpu[128], kernel[128];
    int redis, nginx, quick;
};

static size_t section_len(const char *key);

static void print_table(FILE *out, const struct bench_report *rep, const struct machine *m)
{
    char value[48];

    fprintf(out, "kix-bench%s: %d CPUs (%s), Linux %s, load average %.2f at start, %.2f at end\n",
            m->quick ? " --quick" : "", m->cpus, m->cpu, m->kernel, m->load_start, m->load_end);
    fprintf(out, "%-8s %-46s %16s  %s\n", "", "figure", "value", "note");
    for (size_t i = 0; i < rep->n; i++) {
        const char *key = rep->figs[i].key;
        size_t sl = section_len(key);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = section_len(rep->figs[j].key) == sl && strncmp(rep->figs[j].key, key, sl) == 0;
        if (seen)
            continue;
        fprintf(out, "%.*s\n", (int)sl, key);
        for (size_t j = i; j < rep->n; j++) {
            const struct bench_fig *f = &rep->figs[j];
            if (section_len(f->key) != sl || strncmp(f->key, key, sl) != 0)
                continue;
            fmt_value(f, value, sizeof(value));
            fprintf(out, "%-8s %-46s %16s  %s\n", "", f->label, value, f->limit);
        }
    }
    fprintf(out, "targets\n");
    for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
        char key[80];
        double v;
        if (!target_applies(&targets[t], m->redis))
            continue;
        snprintf(key, sizeof(key), "ratios.%s", targets[t].ratio);
        v = bench_get(rep, key);
        if (isnan(v))
            continue;
        fprintf(out, "%-8s %-46s %16.2f  %s\n", "", targets[t].what, v,
                target_met(&targets[t], v) ? "met" : "MISSED");
    }
    fprintf(out, "Issue 38 targets%s\n",
            m->quick ? " (--quick: the big log is 10^4 entries, not 10^6)" : "");
    fprintf(out, "%-8s %-46s %16s  %-10s %s\n", "", "figure", "value", "target", "");
    for (size_t i = 0; i < sizeof(issue38) / sizeof(issue38[0]); i++) {
        double v;
        const char *fig = issue38_fig(rep, &issue38[i], &v);
        if (fig)
            fprintf(out, "%-8s %-46s %16.2f  %-10s %s%s\n", "", fig, v, issue38[i].target,
                    issue38_met(&issue38[i], v) ? "met" : "MISSED",
                    m->quick && issue38[i].scaled ? " (quick)" : "");
    }
    if (m->quick)
        fprintf(out, "%-8s (quick): the figure grows with the log; only a full run judges it\n",
                "");
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static size_t section_len(const char *key)
{
    const char *dot = strchr(key, '.');
    return dot ? (size_t)(dot - key) : 0;
}

static void print_json(FILE *out, const struct bench_report *rep, const struct machine *m)
{
    fprintf(out, "{\n  \"machine\": {\"cpus\": %d, \"cpu\": ", m->cpus);
    json_str(out, m->cpu);
    fprintf(out, ", \"kernel\": ");
    json_str(out, m->kernel);
    fprintf(out,
            ", \"load_start\": %.2f, \"load_end\": %.2f, \"redis\": %s, \"nginx\": %s, "
            "\"quick\": %s},\n",
            m->load_start, m->load_end, m->redis ? "true" : "false", m->nginx ? "true" : "false",
            m->quick ? "true" : "false");
    /* sections in order of first appearance, each with all its figures */
    for (size_t i = 0; i < rep->n; i++) {
        const char *key = rep->figs[i].key;
        size_t sl = section_len(key), first = 1;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = section_len(rep->figs[j].key) == sl && strncmp(rep->figs[j].key, key, sl) == 0;
        if (seen)
            continue;
        fprintf(out, "  \"%.*s\": {", (int)sl, key);
        for (size_t j = i; j < rep->n; j++) {
            const struct bench_fig *f = &rep->figs[j];
            if (section_len(f->key) != sl || strncmp(f->key, key, sl) != 0)
                continue;
            /* JSON has no NaN: a figure not measured is null */
            if (isnan(f->value))
                fprintf(out, "%s\"%s\": null", first ? "" : ", ", f->key + sl + 1);
            else
                fprintf(out, "%s\"%s\": %.6g", first ? "" : ", ", f->key + sl + 1, f->value);
            first = 0;
        }
        fprintf(out, "},\n");
    }
    fprintf(out, "  \"targets\": {");
    for (size_t t = 0, first = 1; t < sizeof(targets) / sizeof(targets[0]); t++) {
        char key[80];
        double v;
        if (!target_applies(&targets[t], m->redis))
            continue;
        snprintf(key, sizeof(key), "ratios.%s", targets[t].ratio);
        v = bench_get(rep, key);
        if (isnan(v))
            continue;
        fprintf(out, "%s\"%s\": {\"value\": %.6g, \"bound\": %g, \"at_most\": %s, \"met\": %s}",
                first ? "" : ", ", targets[t].ratio, v, targets[t].bound,
                targets[t].at_most ? "true" : "false",
                target_met(&targets[t], v) ? "true" : "false");
        first = 0;
    }
    fprintf(out, "},\n  \"issue38\": {");
    for (size_t i = 0, first = 1; i < sizeof(issue38) / sizeof(issue38[0]); i++) {
        double v;
        const char *fig = issue38_fig(rep, &issue38[i], &v);
        if (!fig)
            continue;
        fprintf(out,
                "%s\"%s\": {\"figure\": \"%s\", \"value\": %.6g, \"bound\": %g, "
                "\"at_most\": %s, \"met\": %s, \"judged\": %s}",
                first ? "" : ", ", issue38[i].name, fig, v, issue38[i].bound,
                issue38[i].at_most ? "true" : "false",
                issue38_met(&issue38[i], v) ? "true" : "false",
                m->quick && issue38[i].scaled ? "false" : "true");
        first = 0;
    }
    fprintf(out, "}\n}\n");
}

static void machine_info(struct machine *m)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    struct utsname u;
    double la[1];

    m->cpus = bench_cpus();
    snprintf(m->cpu, sizeof(m->cpu), "unknown CPU");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p += 2;
                p[strcspn(p, "\n")] = '\0';
                snprintf(m->cpu, sizeof(m->cpu), "%s", p);
            }
            break;
        }
    if (f)
        fclose(f);
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
    m->load_start = getloadavg(la, 1) == 1 ? la[0] : 0;
}

static int part(const struct opts *o, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = o->only; p && *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return !o->only;
}

/* ---- main ------------------------------------------------------------------------------ */

static const char usage[] =
    "usage: kix-bench [--quick] [--json] [options]\n"
    "\n"
    "Measures kix (durable appends, reads, audit, mirror catch-up, proofs at scale,\n"
    "bytes on disk) and, in the same run, the limits it is held to: Ed25519 verify,\n"
    "SHA-256, LMDB durable commits, a libuv msgpack echo server, Redis (when\n"
    "redis-server is on PATH) and nginx (" BENCH_NGINX ") for kixd --http.\n"
    "Prints a table ending with issue 38's targets, or JSON with --json.\n"
    "\n"
    "  --quick            small sizes, under a minute; the big log has 10^4 entries\n"
    "  --json             JSON on stdout (the table goes to stderr)\n"
    "  --clients N        append clients (default 8)\n"
    "  --depth D          submits in flight per append client (default 16); the\n"
    "                     other depths of 1, 4 and 16 get a tenth as many appends\n"
    "  --appends N        publications appended (default 60000, quick 3000)\n"
    "  --seconds S        each read load (default 4, quick 0.6)\n"
    "  --big N            entries of the big log (default 1000000, quick 10000)\n"
    "  --cache DIR        where built logs are kept (default $KIX_BENCH_CACHE,\n"
    "                     $XDG_CACHE_HOME/kix-bench, else <build>/bench-cache)\n"
    "  --work DIR         scratch directory (default a new /tmp/kix-bench-XXXXXX)\n"
    "  --keep             keep the scratch directory\n"
    "  --no-redis         do not run Redis even when installed\n"
    "  --no-nginx         do not run nginx even when installed\n"
    "  --bin DIR          where kixd is (default: next to kix-bench)\n"
    "  --only LIST        run only these parts (comma-separated: limits, kix,\n"
    "                     http, scale, browse, ack, import, pages), e.g. to profile\n"
    "                     one of them (pages: one group of ground ids, only when\n"
    "                     named);\n"
    "                     scale exports its big log too (not with --quick)\n"
    "  --version          print the version and exit\n";

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"quick", no_argument, NULL, 'q'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"clients", required_argument, NULL, 'c'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"appends", required_argument, NULL, 'n'},
                                             {"seconds", required_argument, NULL, 't'},
                                             {"big", required_argument, NULL, 'b'},
                                             {"cache", required_argument, NULL, 'C'},
                                             {"work", required_argument, NULL, 'w'},
                                             {"keep", no_argument, NULL, 'k'},
                                             {"no-redis", no_argument, NULL, 'R'},
                                             {"only", required_argument, NULL, 'O'},
                                             {"no-nginx", no_argument, NULL, 'N'},
                                             {"bin", required_argument, NULL, 'B'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    struct opts o;
    struct bench_report rep = {NULL, 0, 0};
    struct machine m;
    struct req_ctx echo_reads;
    struct servers sv;
    struct bench_item probe;
    struct bench_workload w;
    struct kix_err err;
    char work[PATH_MAX], cache[PATH_MAX], exe[PATH_MAX];
    double la[1], t_start = bench_now();
    int ch, redis;
    ssize_t n;

    if (argc == 4 && strcmp(argv[1], "--echo-server") == 0)
        return bench_echo_server_main(atoi(argv[2]), atoi(argv[3]), BENCH_MANIFEST_LEN);
    if (sodium_init() < 0)
        bench_die("libsodium failed to initialise");
    memset(&o, 0, sizeof(o));
    o.clients = 8;
    o.depth = 16;
    o.small = 1000;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'q':
            o.quick = 1;
            break;
        case 'j':
            o.json = 1;
            break;
        case 'c':
            o.clients = atoi(optarg);
            break;
        case 'd':
            o.depth = atoi(optarg);
            break;
        case 'n':
            o.appends = atol(optarg);
            break;
        case 't':
            o.seconds = atof(optarg);
            break;
        case 'b':
            o.big = atol(optarg);
            break;
        case 'C':
            o.cache = optarg;
            break;
        case 'w':
            o.work = optarg;
            break;
        case 'k':
            o.keep = 1;
            break;
        case 'R':
            o.no_redis = 1;
            break;
        case 'N':
            o.no_nginx = 1;
            break;
        case 'O':
            o.only = optarg;
            break;
        case 'B':
            o.bin_dir = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'V':
            puts("kix-bench " KIX_VERSION_STRING);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind != argc || o.clients < 1 || o.clients > 1024 || o.depth < 1 || o.depth > 256) {
        fputs(usage, stderr);
        return 2;
    }
    if (!o.appends)
        o.appends = o.quick ? 3000 : 60000;
    if (!o.seconds)
        o.seconds = o.quick ? 0.6 : 4;
    if (!o.big)
        o.big = o.quick ? 10000 : 1000000;
    if (o.appends < 100 || o.big < o.small)
        bench_die("--appends must be at least 100 and --big at least %ld", o.small);
    o.limit_seconds = o.quick ? 0.5 : 2;
    o.verify_threads = bench_cpus();
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        bench_die("cannot find my own binary");
    exe[n] = '\0';
    snprintf(o.self, sizeof(o.self), "%s", exe);
    *strrchr(exe, '/') = '\0';
    snprintf(o.bin, sizeof(o.bin), "%s", o.bin_dir ? o.bin_dir : exe);
    if (o.cache)
        bench_path(cache, sizeof(cache), "%s/%s", o.cache, CACHE_FORMAT);
    else if (getenv("KIX_BENCH_CACHE"))
        bench_path(cache, sizeof(cache), "%s/%s", getenv("KIX_BENCH_CACHE"), CACHE_FORMAT);
    else if (getenv("XDG_CACHE_HOME"))
        bench_path(cache, sizeof(cache), "%s/kix-bench/%s", getenv("XDG_CACHE_HOME"), CACHE_FORMAT);
    else
        bench_path(cache, sizeof(cache), "%s/../bench-cache/%s", o.bin, CACHE_FORMAT);
    if (o.work) {
        snprintf(work, sizeof(work), "%s", o.work);
        if (bench_mkdirs(work) != 0)
            bench_die("cannot create %s", work);
    } else {
        snprintf(work, sizeof(work), "/tmp/kix-bench-XXXXXX");
        if (!mkdtemp(work))
            bench_die("cannot create a scratch directory in /tmp");
    }
    atexit(bench_stop_all);
    memset(&m, 0, sizeof(m));
    machine_info(&m);
    m.quick = o.quick;
    bench_say("scratch %s; %d CPUs, load average %.2f", work, m.cpus, m.load_start);

    /* requests for the echo server: get_object of real digests */
    if (bench_workload_init(&w, "echo", &err) || bench_workload_make(&w, 0, &probe, 1, 1, &err))
        bench_die("workload: %s", err.msg);
    memset(&echo_reads, 0, sizeof(echo_reads));
    echo_reads.items = &probe;
    echo_reads.n = 1;
    echo_reads.next_id = 1;
    redis = 0;
    memset(&sv, 0, sizeof(sv));
    sv.echo_reads = &echo_reads;
    if (part(&o, "limits")) {
        run_limits(&o, work, &rep, &sv);
        redis = run_redis(&o, work, &rep, &sv);
    }
    m.redis = redis;
    if (part(&o, "kix") && !part(&o, "limits"))
        bench_die("--only kix needs limits too (its figures are read against them)");
    if (part(&o, "kix"))
        run_kix(&o, work, &rep, &sv);
    if (part(&o, "http") && !part(&o, "kix"))
        bench_die("--only http needs kix too (it reads the log kix appends)");
    bench_stop(sv.echo_pid);
    bench_stop(sv.redis_pid);
    bench_items_release(&probe, 1);
    bench_workload_release(&w);
    if (part(&o, "http"))
        m.nginx = bench_http(o.bin, work, o.seconds, o.quick, o.no_nginx, &rep);
    if (part(&o, "scale")) {
        char kixd[PATH_MAX];
        run_scale(&o, work, cache, &rep);
        /* the big log exported (with --quick, the http part's export of
         * the append log stands in: the export of the small one would add
         * ~15 s on a loaded machine) */
        bench_path(kixd, sizeof(kixd), "%s/kixd", o.bin);
        if (!o.quick)
            bench_export_scale(cache, work, kixd, o.big, &rep);
    }
    /* one group of ground ids (issue 42.6): only when asked for */
    if (o.only && part(&o, "pages") && bench_pages(work, o.quick ? 2000 : 10000, &rep) != 0)
        bench_die("pages: failed (see above)");
    if (part(&o, "browse")) { /* home and search at 10^5 groups (10^4 quick) */
        char kixd[PATH_MAX];
        bench_path(kixd, sizeof(kixd), "%s/kixd", o.bin);
        bench_browse(cache, work, kixd, o.quick ? 10000 : 100000, o.seconds, &rep);
    }
    if (part(&o, "ack")) { /* --ack-replicas 0 and 1 with one mirror */
        char kixd[PATH_MAX];
        bench_path(kixd, sizeof(kixd), "%s/kixd", o.bin);
        bench_ack(work, kixd, o.quick ? 200 : 2000, &rep);
    }
    if (part(&o, "import")) /* kix-import of each source's bundled sample */
        bench_import(o.bin, KIX_SOURCE_DIR, work, &rep);
    add_ratios(&rep, redis);
    m.load_end = getloadavg(la, 1) == 1 ? la[0] : 0;
    bench_say("done in %.0f s", bench_now() - t_start);
    print_table(o.json ? stderr : stdout, &rep, &m);
    if (o.json)
        print_json(stdout, &rep, &m);
    if (!o.keep)
        bench_rmrf(work);
    free(rep.figs);
    return 0;
}
