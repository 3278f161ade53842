/* tools/bench/bench_http.c — kix-bench's HTTP part: kixd --http against
 * nginx serving `kixd export` of the same log.
 *
 * In one run: GETs of every kind of resource a static copy holds (full
 * tiles, full entry bundles, the checkpoint, run JSON, objects by digest)
 * from each server at the same concurrency with the same client
 * (bench_load.c); an audit and a mirror catch-up from nginx over HTTP
 * against the same from kixd over msgpack; the requests, bytes and time of
 * `kix show` and `kix verify-citation` of one run over HTTPS with an empty
 * and a warm client state and disk cache; and the export's size and time at the scale
 * log (bench_export_scale).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "kix/client.h"
#include "kix/file.h"
#include "kix/source.h"

#define HTTP_PATHS 64  /* distinct files of a kind asked for, at most */
#define REQ_MAX    192 /* a request line and its Host header */

struct http_ctx {
    char (*reqs)[REQ_MAX]; /* fixed request strings */
    long n;
    unsigned seed;
};

static int req_http(void *arg, int conn, long k, struct kix_buf *out, uint32_t *id)
{
    struct http_ctx *h = arg;
    (void)conn;
    (void)k;
    *id = 0;
    return kix_buf_adds(out, h->reqs[(unsigned long)rand_r(&h->seed) % (unsigned long)h->n]) ==
           KIX_OK;
}

/* The C2SP tlog-tiles spelling of an index: 3-digit groups, all but the last "x"-prefixed. */
static void tlog_index(char *out, size_t cap, uint64_t n)
{
    char groups[8][5];
    int k = 0;
    size_t len = 0;
    do {
        snprintf(groups[k++], sizeof(groups[0]), "%03u", (unsigned)(n % 1000));
        n /= 1000;
    } while (n && k < 8);
    out[0] = '\0';
    while (k-- > 0)
        len +=
            (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", k ? "x" : "", groups[k]);
}

/* Requests for `what` ("tile/0" or "tile/entries") of full tiles 0..full-1, or the checkpoint. */
static long http_requests(char (*reqs)[REQ_MAX], const char *what, uint64_t full)
{
    long n = 0;
    char idx[40];
    if (!what) {
        snprintf(reqs[0], sizeof(reqs[0]), "GET /checkpoint HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        return 1;
    }
    for (uint64_t i = 0; i < full && n < HTTP_PATHS; i++, n++) {
        tlog_index(idx, sizeof(idx), i);
        snprintf(reqs[n], sizeof(reqs[0]), "GET /%s/%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", what,
                 idx);
    }
    return n;
}

/* access: a file that gets each answer's body bytes, one a line, or NULL;
 * tls: the PEM certificate and key nginx answers TLS with (tls[0] and
 * tls[1]), or NULL for plain HTTP */
static int write_nginx_conf(const char *path, const char *dir, const char *root, int port,
                            int workers, const char *access, const char *const *tls)
{
    char listen[PATH_MAX * 2 + 128];
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    if (tls)
        snprintf(listen, sizeof(listen),
                 "127.0.0.1:%d ssl;\n    ssl_certificate %s;\n    ssl_certificate_key %s", port,
                 tls[0], tls[1]);
    else
        snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
    /* as tests/integration/tlog_lib.sh and README.md: immutable full tiles and bundles */
    fprintf(f,
            "daemon off;\n"
            "%s"
            "worker_processes %d;\n"
            "pid %s/nginx.pid;\n"
            "error_log %s/error.log warn;\n"
            "events { worker_connections 1024; }\n"
            "http {\n"
            "  log_format bytes '$body_bytes_sent';\n"
            "  access_log %s%s;\n"
            "  sendfile on;\n"
            "  keepalive_requests 1000000;\n"
            "  client_body_temp_path %s/tmp;\n"
            "  proxy_temp_path %s/tmp;\n"
            "  fastcgi_temp_path %s/tmp;\n"
            "  uwsgi_temp_path %s/tmp;\n"
            "  scgi_temp_path %s/tmp;\n"
            "  default_type application/octet-stream;\n"
            "  server {\n"
            "    listen %s;\n"
            "    root %s;\n"
            "    location = /checkpoint {\n"
            "      default_type \"text/plain; charset=utf-8\";\n"
            "      add_header Cache-Control \"public, max-age=5\";\n"
            "    }\n"
            "    location /tile/ { add_header Cache-Control \"public, max-age=31536000, "
            "immutable\"; }\n"
            "    location /objects/ { add_header Cache-Control \"public, max-age=31536000, "
            "immutable\"; }\n"
            "    location /index/pack/ { add_header Cache-Control \"public, max-age=31536000, "
            "immutable\"; }\n"
            "  }\n"
            "}\n",
            /* as root, workers would run as nobody and not reach a 0700 scratch directory */
            geteuid() == 0 ? "user root;\n" : "", workers, dir, dir, access ? access : "off",
            access ? " bytes" : "", dir, dir, dir, dir, dir, listen, root);
    return fclose(f) == 0 ? 0 : -1;
}

static double tree_bytes, tree_disk, tree_files, tree_inodes;
/* tree_add counts only files changed at or after this time (0: every file) */
static struct timespec tree_since;

/* A file with n names (a hard link: runs/<id>.html) counts 1/n at each,
 * so its bytes count once when all its names are in the tree. */
static int tree_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    double names = st->st_nlink > 1 ? (double)st->st_nlink : 1;

    (void)path;
    (void)ftw;
    if (type == FTW_F &&
        (st->st_ctim.tv_sec < tree_since.tv_sec ||
         (st->st_ctim.tv_sec == tree_since.tv_sec && st->st_ctim.tv_nsec < tree_since.tv_nsec)))
        return 0; /* not written by the export measured */
    if (type == FTW_F) {
        tree_bytes += (double)st->st_size / names;
        tree_disk += (double)st->st_blocks * 512 / names;
        tree_files += 1;
        tree_inodes += 1 / names;
    }
    if (type == FTW_D)
        tree_disk += (double)st->st_blocks * 512;
    return 0;
}

/* The bytes of the files under dir (each file once, whatever its names),
 * the disk space they and the directories take (du), and the names. */
static void tree_size_on_disk(const char *dir, double *bytes, double *disk, double *files)
{
    tree_bytes = tree_disk = tree_files = tree_inodes = 0;
    nftw(dir, tree_add, 16, FTW_PHYS);
    *bytes = tree_bytes;
    *disk = tree_disk;
    *files = tree_files;
}

static void tree_size(const char *dir, double *bytes, double *files)
{
    double disk;
    tree_size_on_disk(dir, bytes, &disk, files);
}

/* The CPU seconds (user, system) of the children reaped so far: taken
 * around one bench_run, the CPU of that child alone, which a loaded
 * machine's wall time does not show. */
static void children_cpu(double *user, double *sys)
{
    struct rusage ru;

    *user = *sys = 0;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
        *user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
        *sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    }
}

/* An export's CPU an entry, as "<pre>user_ms_per_entry" and
 * "<pre>sys_ms_per_entry", from children_cpu before (u0, s0) and after. */
static void export_cpu_figs(const char *pre, double u0, double s0, double entries,
                            struct bench_report *rep)
{
    char key[64];
    double u1, s1;

    children_cpu(&u1, &s1);
    if (entries <= 0)
        return;
    snprintf(key, sizeof(key), "%suser_ms_per_entry", pre);
    bench_fig(rep, key, 1e3 * (u1 - u0) / entries, "ms", "  user CPU an entry (kixd export)");
    snprintf(key, sizeof(key), "%ssys_ms_per_entry", pre);
    bench_fig(rep, key, 1e3 * (s1 - s0) / entries, "ms", "  system CPU an entry");
}

/* What `kixd export --json` said last in log: the files (names) and
 * bytes it wrote, its run pages and the sizes it went from and to. */
struct export_said {
    double files, bytes, runs, size, from;
};

static double said_number(const char *text, const char *key)
{
    const char *at = strstr(text, key);
    return at ? strtod(at + strlen(key), NULL) : -1;
}

static void export_said(const char *log, struct export_said *s)
{
    struct kix_buf b = KIX_BUF_INIT;
    const char *last = NULL;

    if (kix_file_read(log, 1 << 24, &b, NULL) != KIX_OK || kix_buf_addc(&b, 0) != KIX_OK)
        bench_die("cannot read %s", log);
    for (const char *p = (const char *)b.ptr; (p = strstr(p, "{\"ok\":true")) != NULL; p++)
        last = p;
    if (!last)
        bench_die("kixd export --json said no summary (see %s)", log);
    s->files = said_number(last, "\"files\":");
    s->bytes = said_number(last, "\"bytes\":");
    s->runs = said_number(last, "\"runPages\":");
    s->size = said_number(last, "\"size\":");
    s->from = said_number(last, "\"fromSize\":");
    kix_buf_release(&b);
}

/* The static copy in dir, written whole by one export that said s:
 * "<pre>bytes_per_run" (every byte of the copy, a hard-linked file's
 * once, over the run pages), "<pre>files_per_run" (files counted as
 * inodes: a page's extensionless hard link is no second file) and
 * "<pre>names_per_run" (directory entries), each part's bytes a run,
 * and "<pre>summary_ok": 1 when the export's own summary counts exactly
 * the names and bytes the tree holds. */
static void static_copy_figs(const char *pre, const char *dir, const struct export_said *s,
                             struct bench_report *rep)
{
    static const char *const parts[] = {"runs",  "groups",  "kernels", "sweeps", "home",
                                        "index", "objects", "tile",    "search"};
    double bytes, disk, names, inodes, runs = s->runs > 0 ? s->runs : 1;
    char key[64], label[96];

    tree_size_on_disk(dir, &bytes, &disk, &names);
    inodes = tree_inodes;
    snprintf(key, sizeof(key), "%sruns", pre);
    bench_fig(rep, key, s->runs, "", "static copy: run pages");
    snprintf(key, sizeof(key), "%sbytes_per_run", pre);
    bench_fig(rep, key, bytes / runs, "bytes", "  bytes a run (every file's, a hard link's once)");
    bench_fig_note(rep, "%.0f bytes, %.1f MB on disk", bytes, disk / 1e6);
    snprintf(key, sizeof(key), "%sfiles_per_run", pre);
    bench_fig(rep, key, inodes / runs, "", "  files a run (inodes: a hard link is no file)");
    snprintf(key, sizeof(key), "%snames_per_run", pre);
    bench_fig(rep, key, names / runs, "", "  names a run (directory entries)");
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        char sub[PATH_MAX];
        double b, d, n;
        bench_path(sub, sizeof(sub), "%s/%s", dir, parts[i]);
        tree_size_on_disk(sub, &b, &d, &n);
        snprintf(key, sizeof(key), "%s%s_bytes_per_run", pre, parts[i]);
        snprintf(label, sizeof(label), "    of them under %s/", parts[i]);
        bench_fig(rep, key, b / runs, "bytes", label);
        bench_fig_note(rep, "%.0f inodes, %.0f names", tree_inodes, n);
    }
    snprintf(key, sizeof(key), "%ssummary_ok", pre);
    bench_fig(rep, key, s->files == names && s->bytes > bytes - 0.5 && s->bytes < bytes + 0.5, "",
              "  the export's summary counts the files and bytes the copy holds");
    bench_fig_note(rep, "it said %.0f files, %.0f bytes; the copy holds %.0f names, %.0f bytes",
                   s->files, s->bytes, names, bytes);
}

/* Requests for up to HTTP_PATHS files of export/<sub> whose names end in
 * suffix, sorted by name (the same set for both servers); *first gets the
 * first name without the suffix (a run id, for the verification). */
static long export_requests(char (*reqs)[REQ_MAX], const char *export, const char *sub,
                            const char *suffix, char *first, size_t first_cap)
{
    char dir[PATH_MAX];
    struct dirent **names = NULL;
    size_t sl = strlen(suffix);
    long n = 0;
    int k;

    bench_path(dir, sizeof(dir), "%s/%s", export, sub);
    k = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        const char *f = names[i]->d_name;
        size_t fl = strlen(f);
        if (n < HTTP_PATHS && f[0] != '.' && names[i]->d_type != DT_DIR && fl > sl &&
            strcmp(f + fl - sl, suffix) == 0 && !strstr(f, ".tmp.")) {
            int w = snprintf(reqs[n], REQ_MAX, "GET /%s/%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                             sub, f);
            if (w > 0 && w < REQ_MAX) {
                if (n == 0 && first)
                    snprintf(first, first_cap, "%.*s", (int)(fl - sl), f);
                n++;
            }
        }
        free(names[i]);
    }
    free(names);
    return n;
}

static pid_t start_nginx(const char *work, const char *name, const char *root, int workers,
                         const char *access, const char *const *tls, int *port)
{
    char ndir[PATH_MAX], conf[PATH_MAX], tmp[PATH_MAX], log[PATH_MAX];
    pid_t pid;

    bench_path(ndir, sizeof(ndir), "%s/%s", work, name);
    bench_path(conf, sizeof(conf), "%s/nginx.conf", ndir);
    bench_path(tmp, sizeof(tmp), "%s/tmp", ndir);
    bench_path(log, sizeof(log), "%s/nginx.log", ndir);
    if (bench_mkdirs(tmp) != 0)
        bench_die("cannot create %s", tmp);
    *port = bench_free_port();
    if (write_nginx_conf(conf, ndir, root, *port, workers, access, tls) != 0)
        bench_die("cannot write %s", conf);
    {
        char *argv[] = {BENCH_NGINX, "-c", conf, "-p", ndir, NULL};
        pid = bench_spawn(argv, log);
    }
    if (pid < 0 || bench_wait_port(*port, pid, 10) != 0) {
        bench_say("http: nginx did not start (see %s and %s/error.log); skipping", log, ndir);
        bench_stop(pid > 0 ? pid : 0);
        return -1;
    }
    return pid;
}

/* Lines and the sum of the numbers of an access log (requests, body bytes). */
static void access_totals(const char *path, double *requests, double *bytes)
{
    FILE *f = fopen(path, "r");
    char line[64];

    *requests = *bytes = 0;
    while (f && fgets(line, sizeof(line), f)) {
        *requests += 1;
        *bytes += atof(line);
    }
    if (f)
        fclose(f);
}

/* An audit (no fsync) and a mirror catch-up (fsync) of the whole log,
 * each over msgpack from kixd and over HTTP from nginx serving the export,
 * into fresh replicas: "sync.*". A catch-up of the quick log takes a third
 * of a second, less than the machine's drift from one second to the next,
 * so the four run in rounds, msgpack and HTTP one after the other, until
 * each has run `seconds` in all (at most SYNC_ROUNDS_MAX rounds), and each
 * figure is the median of its rounds. */
#define SYNC_ROUNDS_MAX 5
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double least(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static void sync_figs(const char *work, const char *rpc, const char *http, const char *log_key,
                      double seconds, struct bench_report *rep)
{
    static const struct {
        const char *key, *label;
        int durable, over_http;
    } runs[] = {
        {"audit_rpc", "audit over msgpack from kixd", 0, 0},
        {"audit_http", "audit over HTTP from nginx (the export)", 0, 1},
        {"mirror_rpc", "mirror catch-up over msgpack from kixd, fsync", 1, 0},
        {"mirror_http", "mirror catch-up over HTTP from nginx, fsync", 1, 1},
    };
    enum { NRUNS = sizeof(runs) / sizeof(runs[0]) };
    double rate[NRUNS][SYNC_ROUNDS_MAX], spent[NRUNS] = {0};
    char dir[PATH_MAX], key[64];
    struct kix_err err = {0};
    uint64_t entries = 0;
    int rounds = 0;

    for (; rounds < SYNC_ROUNDS_MAX && (rounds == 0 || least(spent, NRUNS) < seconds); rounds++) {
        for (size_t i = 0; i < NRUNS; i++) {
            struct kix_client *c = NULL;
            double secs = 0;
            bench_path(dir, sizeof(dir), "%s/sync-%s", work, runs[i].key);
            if (kix_client_open_addr(runs[i].over_http ? http : rpc, NULL, NULL, &c, &err) ||
                bench_sync_into(c, runs[i].over_http ? log_key : NULL, dir, runs[i].durable,
                                &entries, &secs, &err))
                bench_die("http: %s: %s", runs[i].label, err.msg);
            kix_client_close(c);
            bench_rmrf(dir);
            rate[i][rounds] = (double)entries / secs;
            spent[i] += secs;
        }
    }
    for (size_t i = 0; i < NRUNS; i++) {
        snprintf(key, sizeof(key), "sync.%s_per_s", runs[i].key);
        bench_fig(rep, key, median(rate[i], rounds), "/s", runs[i].label);
        if (i == 0) {
            bench_fig(rep, "sync.entries", (double)entries, "", "  entries each verified");
            bench_fig(rep, "sync.rounds", rounds, "",
                      "  rounds of the four, each figure their median");
        }
    }
}

/* kix (the CLI) with KIX_STATE_DIR=state and KIX_CACHE_DIR=state/cache
 * (its disk cache of what it read over HTTP); its output into out; seconds. */
static double kix_timed(char *const argv[], const char *state, const char *out)
{
    char cache[PATH_MAX];
    double t0;
    int rc;

    unlink(out);
    bench_path(cache, sizeof(cache), "%s/cache", state);
    setenv("KIX_STATE_DIR", state, 1);
    setenv("KIX_CACHE_DIR", cache, 1);
    t0 = bench_now();
    rc = bench_run(argv, out);
    t0 = bench_now() - t0;
    unsetenv("KIX_STATE_DIR");
    unsetenv("KIX_CACHE_DIR");
    if (rc != 0)
        bench_die("http: %s %s failed (see %s)", argv[0], argv[1], out);
    return t0;
}

/* Appends n publications of a new publisher (registered by the admin key
 * the append run left beside the store) to the store, then exports it
 * again into export: the log a warm reader comes back to. */
#define GROW 100
static void grow_log(const char *bin, const char *work, const char *store, const char *export,
                     long n, struct bench_report *rep)
{
    struct export_said said;
    char path[PATH_MAX], log[PATH_MAX], kixd[PATH_MAX];
    struct kix_signer *admin = NULL;
    struct kix_client *c = NULL;
    struct bench_workload w;
    struct kix_buf env = KIX_BUF_INIT;
    struct bench_item *items = calloc((size_t)n, sizeof(*items));
    struct kix_bundle *b = calloc((size_t)n, sizeof(*b));
    struct kix_submit_result *res = calloc((size_t)n, sizeof(*res));
    struct kix_bytes *objs = calloc((size_t)n + BENCH_NSHARED, sizeof(*objs));
    struct kix_err err = {0};
    int rc;

    memset(&w, 0, sizeof(w));
    bench_path(path, sizeof(path), "%s/admin.key", work);
    if (!items || !b || !res || !objs)
        bench_die("out of memory");
    rc = kix_keyfile_read(path, &admin, &err);
    if (rc == KIX_OK)
        rc = bench_workload_init(&w, "grown", &err);
    if (rc == KIX_OK)
        rc = bench_workload_key_entry(&w, admin, &env, &err);
    if (rc == KIX_OK)
        rc = bench_workload_make(&w, 0, items, n, bench_cpus(), &err);
    if (rc == KIX_OK)
        rc = kix_client_open_store(store, &c, &err);
    if (rc == KIX_OK) { /* the key first, then every publication in one commit */
        b[0].envelope = kix_buf_bytes(&env);
        rc = kix_client_submit(c, b, 1, res, &err);
        if (rc == KIX_OK && res[0].code)
            rc = kix_err_set(&err, res[0].code, "%s", res[0].message);
        kix_submit_result_release(&res[0]);
    }
    /* publication 0 carries its manifest and the shared objects the others
     * reference (objs[0..NSHARED]); publication i its manifest, objs[NSHARED + i] */
    for (int i = 0; i < BENCH_NSHARED; i++)
        objs[1 + i] = kix_buf_bytes(&w.shared[i]);
    for (long i = 0; i < n; i++) {
        long at = i ? BENCH_NSHARED + i : 0;
        objs[at] = kix_buf_bytes(&items[i].manifest);
        b[i].envelope = kix_buf_bytes(&items[i].env);
        b[i].objects = &objs[at];
        b[i].nobjects = i ? 1 : 1 + BENCH_NSHARED;
    }
    if (rc == KIX_OK)
        rc = kix_client_submit(c, b, (size_t)n, res, &err);
    for (long i = 0; i < n; i++) {
        if (rc == KIX_OK && res[i].code)
            rc = kix_err_set(&err, res[i].code, "publication %ld: %s", i, res[i].message);
        kix_submit_result_release(&res[i]);
    }
    kix_client_close(c);
    if (rc)
        bench_die("http: growing the log: %s", err.msg);
    bench_path(kixd, sizeof(kixd), "%s/kixd", bin);
    bench_path(log, sizeof(log), "%s/kixd-grow.log", work);
    {
        char *argv[] = {kixd, "export", "--json", "--store", (char *)store, (char *)export, NULL};
        double t0, bytes, disk, names;
        /* the files it wrote are counted as inodes, from the tree: a file
         * written (created, or renamed into place) has a new ctime, and a
         * page's .html twin is the same inode as the page */
        clock_gettime(CLOCK_REALTIME, &tree_since);
        /* less a tick: the file system stamps times from a coarser clock */
        tree_since.tv_nsec -= 50000000;
        if (tree_since.tv_nsec < 0)
            tree_since.tv_sec--, tree_since.tv_nsec += 1000000000;
        t0 = bench_now();
        if (bench_run(argv, log) != 0)
            bench_die("kixd export of the grown log failed (see %s)", log);
        t0 = bench_now() - t0;
        /* exporting again after n new entries: what it wrote an entry */
        export_said(log, &said);
        tree_size_on_disk(export, &bytes, &disk, &names);
        memset(&tree_since, 0, sizeof(tree_since));
        if (said.size > said.from) {
            double k = said.size - said.from;
            bench_fig(rep, "static.grow_entries", k, "", "static copy exported again: new entries");
            bench_fig_note(rep, "from size %.0f", said.from);
            bench_fig(rep, "static.grow_files_per_entry", tree_inodes / k, "",
                      "  files it wrote a new entry (inodes)");
            bench_fig(rep, "static.grow_names_per_entry", said.files / k, "",
                      "  names it wrote a new entry (what it said)");
            bench_fig(rep, "static.grow_bytes_per_entry", said.bytes / k, "bytes",
                      "  bytes it wrote a new entry");
            bench_fig(rep, "static.grow_s", t0, "s", "  time");
        }
    }
    bench_items_release(items, n);
    bench_workload_release(&w);
    kix_signer_free(admin);
    kix_buf_release(&env);
    free(items);
    free(b);
    free(res);
    free(objs);
}

/* `kix show` and `kix verify-citation` of one run against nginx serving
 * the export, first with an empty client state and disk cache, then with
 * the state and cache the first left (its pinned checkpoint; the full
 * tiles, bundles, objects and index files it verified), then with those
 * after the log grew by GROW publications (exported again):
 * "verify.<cmd>_{cold,warm,grown}_*", requests and body bytes from nginx's
 * access log. */
static void verify_figs(const char *bin, const char *work, const char *store, const char *export,
                        const char *run, const char *vkey, int workers, struct bench_report *rep)
{
    static const char *const phase[] = {"cold", "warm", "grown"};
    static const char *const said[] = {"empty state and cache", "warm state and cache",
                                       "warm, after the log grew by 100"};
    char kix[PATH_MAX], url[64], state[PATH_MAX], access[PATH_MAX], out[PATH_MAX], cite[PATH_MAX];
    char key[64], label[96], pem[PATH_MAX], tls_key[PATH_MAX], log[PATH_MAX];
    const char *const tls[] = {pem, tls_key};
    double r0, b0, r1, b1, secs;
    int port;
    pid_t pid;

    bench_path(access, sizeof(access), "%s/nginx-verify/access.log", work);
    /* over HTTPS, as a reader meets a copy: a certificate of a CA of our own */
    bench_path(pem, sizeof(pem), "%s/tls.pem", work);
    bench_path(tls_key, sizeof(tls_key), "%s/tls.key", work);
    bench_path(log, sizeof(log), "%s/openssl.log", work);
    {
        char *argv[] = {BENCH_OPENSSL,
                        "req",
                        "-x509",
                        "-newkey",
                        "ec",
                        "-pkeyopt",
                        "ec_paramgen_curve:prime256v1",
                        "-nodes",
                        "-days",
                        "2",
                        "-subj",
                        "/CN=127.0.0.1",
                        "-addext",
                        "subjectAltName=IP:127.0.0.1",
                        "-keyout",
                        tls_key,
                        "-out",
                        pem,
                        NULL};
        if (bench_run(argv, log) != 0) {
            bench_say("http: openssl req failed (see %s); skipping the HTTPS verification", log);
            return;
        }
    }
    pid = start_nginx(work, "nginx-verify", export, workers, access, tls, &port);
    if (pid < 0)
        return;
    bench_path(kix, sizeof(kix), "%s/kix", bin);
    snprintf(url, sizeof(url), "https://127.0.0.1:%d/", port);
    bench_path(out, sizeof(out), "%s/kix-verify.out", work);
    bench_path(cite, sizeof(cite), "%s/citation.json", work);
    {
        /* the citation a reader holds (written with a state of its own) */
        char *argv[] = {kix,         "cite",       (char *)run, "--json", "--server", url,
                        "--log-key", (char *)vkey, "--cacert",  pem,      NULL};
        bench_path(state, sizeof(state), "%s/state-cite", work);
        kix_timed(argv, state, cite);
    }
    for (int p = 0; p < 3; p++) {
        if (p == 2)
            grow_log(bin, work, store, export, GROW, rep);
        for (int k = 0; k < 2; k++) {
            const char *cmd = k ? "verify_citation" : "show";
            char *show[] = {kix,         "show",       (char *)run, "--json", "--server", url,
                            "--log-key", (char *)vkey, "--cacert",  pem,      NULL};
            char *check[] = {kix,         "verify-citation", cite,       "--server", url,
                             "--log-key", (char *)vkey,      "--cacert", pem,        NULL};
            bench_path(state, sizeof(state), "%s/state-%s", work, cmd);
            access_totals(access, &r0, &b0);
            secs = kix_timed(k ? check : show, state, out);
            /* nginx writes its access log line after the answer: let it */
            usleep(100000);
            access_totals(access, &r1, &b1);
            snprintf(key, sizeof(key), "verify.%s_%s_requests", cmd, phase[p]);
            snprintf(label, sizeof(label), "%s, %s: requests",
                     k ? "kix verify-citation over HTTPS" : "kix show RUN over HTTPS", said[p]);
            bench_fig(rep, key, r1 - r0, "", label);
            snprintf(key, sizeof(key), "verify.%s_%s_bytes", cmd, phase[p]);
            bench_fig(rep, key, b1 - b0, "bytes", "  body bytes fetched");
            snprintf(key, sizeof(key), "verify.%s_%s_ms", cmd, phase[p]);
            bench_fig(rep, key, secs * 1e3, "ms", "  time (the kix process, start to end)");
        }
    }
    bench_stop(pid);
}

/* GETs of h's requests from kixd and from nginx in ROUNDS short loads
 * each, alternately (the same requests in the same order each round), so
 * that a machine whose speed drifts slows both alike: "http.<who>_<key>_16x1".
 * A first round of each is not counted: the files served as they are at
 * rest, not the first reads (kixd writes its bundle files then, and
 * checks them once; nginx's files are in the page cache since the export). */
#define ROUNDS 3
static void alternate(const char *key, const char *what, int kport, int nport, int conns,
                      double seconds, struct http_ctx *h, struct bench_report *rep)
{
    struct bench_load sum[2], ld;
    char k[64], label[128];

    memset(sum, 0, sizeof(sum));
    for (int r = -1; r < ROUNDS; r++)
        for (int who = 0; who < 2; who++) {
            h->seed = 1 + (unsigned)(r < 0 ? 0 : r);
            snprintf(label, sizeof(label), "%s GET %s", who ? "nginx" : "kixd --http", what);
            bench_load_or_die(label, who ? nport : kport, BENCH_HTTP, conns, 1,
                              seconds / ROUNDS / 4, seconds / ROUNDS, req_http, h, &ld);
            if (r < 0) { /* the first reads: not counted */
                bench_lat_release(&ld.lat);
                continue;
            }
            sum[who].done += ld.done;
            sum[who].elapsed += ld.elapsed;
            for (size_t j = 0; j < ld.lat.n; j++)
                bench_lat_add(&sum[who].lat, ld.lat.ns[j]);
            bench_lat_release(&ld.lat);
        }
    for (int who = 0; who < 2; who++) {
        snprintf(k, sizeof(k), "http.%s_%s_16x1", who ? "nginx" : "kixd", key);
        snprintf(label, sizeof(label), "%s GET %s, %d conns x 1", who ? "nginx" : "kixd --http",
                 what, conns);
        bench_read_figs(rep, k, label, &sum[who]);
    }
}

int bench_http(const char *bin, const char *work, double seconds, int quick, int no_nginx,
               struct bench_report *rep)
{
    static const struct {
        const char *what, *key, *label;
    } kinds[] = {
        {"tile/0", "tile", "full tile"},           {"tile/entries", "bundle", "full bundle"},
        {NULL, "checkpoint", "checkpoint"},        {"runs", "run_json", "run JSON"},
        {"objects", "object", "object by digest"}, {"objects/entries", "pack", "object pack"},
    };
    char kixd[PATH_MAX], store[PATH_MAX], export[PATH_MAX], log[PATH_MAX], vkey[PATH_MAX];
    char http[64], listen[64], rpc[64], nurl[64], threads[16], run[128] = "";
    char(*reqs)[REQ_MAX];
    struct http_ctx h;
    struct kix_client *c = NULL;
    struct kix_client_info info;
    struct kix_err err = {0};
    uint64_t size, full;
    double t = seconds;
    int kport = bench_free_port(), rport = bench_free_port(), nport, conns = 16,
        workers = bench_cpus();
    pid_t kpid, npid;
    FILE *f;

    (void)quick;
    if (no_nginx || access(BENCH_NGINX, X_OK) != 0) {
        bench_say("http: no %s (Debian nginx-light); skipping the HTTP reads", BENCH_NGINX);
        return 0;
    }
    bench_path(kixd, sizeof(kixd), "%s/kixd", bin);
    bench_path(store, sizeof(store), "%s/log", work);
    bench_path(export, sizeof(export), "%s/export", work);
    bench_path(log, sizeof(log), "%s/kixd-http.log", work);
    bench_path(vkey, sizeof(vkey), "%s/log.pub", work);

    bench_say("http: kixd export, then kixd --http and nginx, GETs %d conns x 1", conns);
    {
        char *argv[] = {kixd, "export", "--json", "--store", store, export, NULL};
        struct export_said said;
        double t0, u0, s0;
        bench_settle(work);
        children_cpu(&u0, &s0);
        t0 = bench_now();
        if (bench_run(argv, log) != 0)
            bench_die("kixd export failed (see %s)", log);
        t0 = bench_now() - t0;
        export_said(log, &said);
        export_cpu_figs("http.export_", u0, s0, (double)said.size, rep);
        double bytes, files;
        tree_size(export, &bytes, &files);
        bench_fig(rep, "http.export_s", t0, "s", "kixd export of the append log");
        bench_fig(rep, "http.export_bytes", bytes, "B", "  bytes of the export's files");
        bench_fig_note(rep, "%.0f files", files);
        static_copy_figs("static.", export, &said, rep);
    }
    snprintf(http, sizeof(http), "tcp://127.0.0.1:%d", kport);
    snprintf(listen, sizeof(listen), "tcp://127.0.0.1:%d", rport);
    snprintf(rpc, sizeof(rpc), "tcp://127.0.0.1:%d", rport);
    snprintf(threads, sizeof(threads), "%d", workers);
    {
        char *argv[] = {kixd, "serve",     "--store", store,         "--listen", listen, "--http",
                        http, "--threads", threads,   "--log-level", "warn",     NULL};
        kpid = bench_spawn(argv, log);
    }
    if (kpid < 0 || bench_wait_port(kport, kpid, 30) != 0)
        bench_die("kixd --http did not start (see %s)", log);
    if (kix_client_connect(rpc, NULL, &c, &err) || kix_client_info(c, &info, &err))
        bench_die("http: kixd: %s", err.msg);
    kix_client_close(c);
    size = info.size;
    bench_fig(rep, "http.export_entries_per_s", (double)size / bench_get(rep, "http.export_s"),
              "/s", "  entries exported (tiles, bundles, objects, pages)");
    full = size / 256;
    if (full == 0)
        bench_die("http: the log has no full tile (%llu entries)", (unsigned long long)size);
    if (!(f = fopen(vkey, "w")) || fputs(info.log_key, f) < 0 || fclose(f) != 0)
        bench_die("cannot write %s", vkey);
    npid = start_nginx(work, "nginx", export, workers, NULL, NULL, &nport);
    if (npid < 0) {
        bench_stop(kpid);
        return 0;
    }
    snprintf(nurl, sizeof(nurl), "http://127.0.0.1:%d/", nport);

    reqs = calloc(HTTP_PATHS, sizeof(*reqs));
    if (!reqs)
        bench_die("out of memory");
    bench_fig(rep, "http.full_tiles", (double)full, "", "full tiles (= bundles) asked for");
    bench_fig_note(rep, "nginx %d workers, kixd %d threads", workers, workers);
    bench_path(log, sizeof(log), "%s/tile/entries/000", export);
    bench_fig(rep, "http.bundle_bytes", (double)bench_file_size(log), "",
              "  bytes of full bundle 000 (a tile: 8192)");
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        /* kixd and nginx alternately, the same requests in the same order */
        memset(&h, 0, sizeof(h));
        h.reqs = reqs;
        if (i == 3)
            /* a run's one file in a static copy (layout 4): its page, the view embedded */
            h.n = export_requests(reqs, export, "runs", ".html", run, sizeof(run));
        else if (i == 4)
            h.n = export_requests(reqs, export, "objects", "", NULL, 0);
        else
            h.n = http_requests(reqs, kinds[i].what, full);
        if (h.n == 0)
            bench_die("http: the export has no %s", kinds[i].label);
        alternate(kinds[i].key, kinds[i].label, kport, nport, conns, t, &h, rep);
    }
    free(reqs);

    bench_say("http: audit and mirror catch-up, msgpack from kixd and HTTP from nginx");
    sync_figs(work, rpc, nurl, info.log_key, seconds, rep);
    bench_stop(npid);
    bench_stop(kpid);

    bench_say("http: kix show and kix verify-citation of %s, empty and warm state and cache", run);
    verify_figs(bin, work, store, export, run, vkey, 1, rep);
    return 1;
}

/* what kixd export wrote an entry at 10^6 entries, one publication a run
 * (RESULTS.md, "Exporting again at scale": 9.2 KB in 1.18 files with copy
 * layout 7, 34.5 KB in 7.6 files before layout 4), rounded up: most files
 * are small, so the disk space depends on the file system's block size
 * (~15 KB an entry with 4 KB blocks) */
#define EXPORT_BYTES_AN_ENTRY 10e3
#define EXPORT_FILES_AN_ENTRY 1.3

void bench_export_scale(const char *cache_dir, const char *work, const char *kixd, long entries,
                        struct bench_report *rep)
{
    static const char *const parts[] = {"tile",   "objects", "index",   "runs",
                                        "groups", "home",    "kernels", "search"};
    char store[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
    double t0, bytes, disk, files, u0, s0;

    struct statvfs fs;
    double need = 0;

    bench_path(store, sizeof(store), "%s/log-%ld", cache_dir, entries);
    bench_path(out, sizeof(out), "%s/export-%ld", work, entries);
    bench_path(log, sizeof(log), "%s/kixd-export-%ld.log", work, entries);
    if (statvfs(work, &fs) == 0)
        need = 1.1 * (double)entries *
               (EXPORT_BYTES_AN_ENTRY + EXPORT_FILES_AN_ENTRY * (double)fs.f_frsize);
    if (statvfs(work, &fs) == 0 && (double)fs.f_bavail * (double)fs.f_frsize < need) {
        /* ~17 GB at 10^6 with 4 KB blocks: not on a disk that would fill up */
        bench_say("export: skipped, %s has %.1f GB free and the export of %ld entries needs ~%.1f",
                  work, (double)fs.f_bavail * (double)fs.f_frsize / 1e9, entries, need / 1e9);
        return;
    }
    bench_say("export: kixd export of the %ld-entry log", entries);
    {
        char *argv[] = {(char *)kixd, "export", "--json", "--store", store, out, NULL};
        bench_settle(work);
        children_cpu(&u0, &s0);
        t0 = bench_now();
        if (bench_run(argv, log) != 0)
            bench_die("kixd export failed (see %s)", log);
        t0 = bench_now() - t0;
    }
    bench_fig(rep, "export.entries", (double)entries, "", "kixd export of the scale log: entries");
    bench_fig(rep, "export.s", t0, "s", "  time");
    bench_fig(rep, "export.entries_per_s", (double)entries / t0, "/s", "  entries a second");
    export_cpu_figs("export.", u0, s0, (double)entries, rep);
    tree_size_on_disk(out, &bytes, &disk, &files);
    bench_fig(rep, "export.bytes", bytes, "B", "  bytes of its files (a hard link's once)");
    bench_fig(rep, "export.disk_bytes", disk, "B", "  disk space it takes (du)");
    bench_fig(rep, "export.files", files, "", "  files (names)");
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        char dir[PATH_MAX], key[64], label[96];
        double b, d, n;
        bench_path(dir, sizeof(dir), "%s/%s", out, parts[i]);
        tree_size_on_disk(dir, &b, &d, &n);
        snprintf(key, sizeof(key), "export.%s_bytes", parts[i]);
        snprintf(label, sizeof(label), "    of them under %s/", parts[i]);
        bench_fig(rep, key, b, "B", label);
        bench_fig_note(rep, "%.0f files, %.1f MB on disk", n, d / 1e6);
    }
    bench_fig(rep, "export.bytes_per_entry", bytes / (double)entries, "bytes",
              "  bytes an entry (all files / entries)");
    {
        struct export_said said;
        export_said(log, &said);
        static_copy_figs("export.static_", out, &said, rep);
    }
    bench_rmrf(out);
}
