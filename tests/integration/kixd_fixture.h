/* tests/integration/kixd_fixture.h — a real kixd for integration tests.
 *
 * fx_start() creates a log with `kixd init` in a fresh temporary directory
 * and serves it with `kixd serve` on a Unix socket in that directory (and a
 * TCP port when asked), stderr to DIR/kixd.log. fx_stop() signals it and
 * returns its exit status. The kixd binary is $KIXD, else $KIX_BIN/kixd,
 * else KIX_BIN_DIR/kixd (set by tests/CMakeLists.txt).
 *
 * Signing: the admin key is DIR/admin.key, beside the store DIR/log (made
 * by kixd init --admin-key); fx_start()
 * registers a second key with roles publish, attest and rerun through
 * kixd itself, so f->publisher can sign publications.
 */
#ifndef KIXD_FIXTURE_H
#define KIXD_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "kix/canon.h"
#include "kix/file.h"
#include "kix/client.h"
#include "kix/entries.h"
#include "kix/receipt.h"
#include "kix/rpc.h"

#define FX_ORIGIN "kix.test/log"

struct fx {
    char dir[128];
    char sock_path[192];
    char addr[200]; /* unix:///DIR/sock */
    char tcp[64];   /* tcp://127.0.0.1:PORT when asked for */
    char log[192];
    pid_t pid;
    struct kix_signer *admin, *publisher;
    struct kix_verifier log_key;
    char extra[16][64]; /* extra serve arguments */
    int nextra;
};

static inline int64_t fx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void fx_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline const char *fx_kixd(void)
{
    static char path[1024];
    const char *e = getenv("KIXD"), *bin = getenv("KIX_BIN");
    if (e && *e)
        return e;
    snprintf(path, sizeof(path), "%s/kixd", bin && *bin ? bin : KIX_BIN_DIR);
    return path;
}

/* Runs kixd with args, stderr to `log` (appended); returns the pid. */
static inline pid_t fx_spawn(const char *const *args, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        int null = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        if (null >= 0)
            dup2(null, 1);
        execv(fx_kixd(), (char *const *)args);
        _exit(127);
    }
    return pid;
}

/* Waits for pid's exit (up to ms); returns its exit status, 128+signal, or -1. */
static inline int fx_wait(pid_t pid, int ms)
{
    int64_t end = fx_now_ms() + ms;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0 || fx_now_ms() > end)
            return -1;
        fx_sleep_ms(5);
    }
}

/* `kixd check --store dir`, its report on our stderr; its exit status. */
static inline int fx_kixd_check(const char *dir)
{
    const char *args[] = {fx_kixd(), "check", "--store", dir, NULL};
    return fx_wait(fx_spawn(args, "/dev/stderr"), 600000);
}

/* Copies the last `tail` bytes of a file to stderr (for a failure report). */
static inline void fx_show_file(const char *path, size_t tail)
{
    struct kix_buf b = KIX_BUF_INIT;
    if (kix_file_read(path, (size_t)1 << 30, &b, NULL) != KIX_OK || b.len == 0)
        fprintf(stderr, "(%s is empty or unreadable)\n", path);
    else
        fwrite(b.ptr + (b.len > tail ? b.len - tail : 0), 1, b.len > tail ? tail : b.len, stderr);
    kix_buf_release(&b);
}

/* 1 when the file holds needle. */
static inline int fx_file_contains(const char *path, const char *needle)
{
    struct kix_buf b = KIX_BUF_INIT;
    int found = kix_file_read(path, (size_t)1 << 30, &b, NULL) == KIX_OK && b.ptr &&
                strstr((const char *)b.ptr, needle) != NULL;
    kix_buf_release(&b);
    return found;
}

static inline int fx_free_port(void)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
        port = ntohs(sin.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static inline void fx_print_log(const struct fx *f)
{
    fx_show_file(f->log, 4096);
}

/* Serves f->dir (again); waits until the socket answers. 0 on success. */
static inline int fx_serve(struct fx *f)
{
    const char *args[48];
    int n = 0;
    int64_t end = fx_now_ms() + 15000;

    args[n++] = "kixd";
    args[n++] = "serve";
    args[n++] = "--store";
    args[n++] = f->dir;
    args[n++] = "--listen";
    args[n++] = f->addr;
    if (f->tcp[0]) {
        args[n++] = "--listen";
        args[n++] = f->tcp;
    }
    args[n++] = "--log-level";
    args[n++] = "debug";
    for (int i = 0; i < f->nextra; i++)
        args[n++] = f->extra[i];
    args[n] = NULL;
    f->pid = fx_spawn(args, f->log);
    while (fx_now_ms() < end) {
        struct kix_rpc *c = NULL;
        struct kix_rpc_opts o = {1000, 0};
        struct kix_err err;
        if (kix_rpc_connect(f->addr, &o, &c, &err) == KIX_OK) {
            kix_rpc_close(c);
            return 0;
        }
        if (waitpid(f->pid, NULL, WNOHANG) == f->pid) {
            f->pid = 0;
            fx_print_log(f);
            return -1;
        }
        fx_sleep_ms(10);
    }
    fx_print_log(f);
    return -1;
}

/* Signals kixd and returns its exit status (-1 if it did not stop in 20 s). */
static inline int fx_stop(struct fx *f, int sig)
{
    int st;
    if (f->pid <= 0)
        return -1;
    kill(f->pid, sig);
    st = fx_wait(f->pid, 20000);
    if (st < 0) {
        kill(f->pid, SIGKILL);
        fx_wait(f->pid, 5000);
    }
    if (st != 0 && sig != SIGKILL)
        fx_print_log(f);
    f->pid = 0;
    return st;
}

static inline void fx_add_arg(struct fx *f, const char *a)
{
    /* a test's own argument: one that does not fit is the test's bug */
    if ((size_t)snprintf(f->extra[f->nextra++], sizeof(f->extra[0]), "%s", a) >=
        sizeof(f->extra[0]))
        abort();
}

static inline struct kix_rpc *fx_rpc(const struct fx *f)
{
    struct kix_rpc *c = NULL;
    struct kix_rpc_opts o = {20000, 0};
    struct kix_err err;
    if (kix_rpc_connect(f->addr, &o, &c, &err) != KIX_OK) {
        fprintf(stderr, "connect %s: %s\n", f->addr, err.msg);
        return NULL;
    }
    return c;
}

static inline struct kix_client *fx_client(const struct fx *f)
{
    struct kix_client *c = NULL;
    struct kix_err err;
    if (kix_client_connect(f->addr, NULL, &c, &err) != KIX_OK) {
        fprintf(stderr, "connect %s: %s\n", f->addr, err.msg);
        return NULL;
    }
    return c;
}

/* Submits one envelope with objects through kix_client; returns the code. */
static inline int fx_submit(const struct fx *f, const struct kix_buf *env, const char *const *objs,
                            size_t nobjs, struct kix_submit_result *res)
{
    struct kix_client *c = fx_client(f);
    struct kix_bytes ob[8];
    struct kix_bundle b;
    struct kix_err err = {0};
    int rc;

    memset(res, 0, sizeof(*res));
    if (!c)
        return KIX_EUNAVAIL;
    for (size_t i = 0; i < nobjs; i++) {
        ob[i].ptr = (const uint8_t *)objs[i];
        ob[i].len = strlen(objs[i]);
    }
    b.envelope = kix_buf_bytes(env);
    b.objects = ob;
    b.nobjects = nobjs;
    rc = kix_client_submit(c, &b, 1, res, &err);
    if (rc)
        fprintf(stderr, "submit: %s\n", err.msg);
    else if (res->code)
        fprintf(stderr, "submit refused: %s\n", res->message);
    kix_client_close(c);
    return rc ? rc : res->code;
}

static inline void fx_digest_of_json(const char *json, struct kix_digest *d)
{
    struct kix_buf canon = KIX_BUF_INIT;
    if (kix_canon((const uint8_t *)json, strlen(json), NULL, &canon, NULL) != KIX_OK)
        abort();
    kix_digest_of(canon.ptr, canon.len, d);
    kix_buf_release(&canon);
}

static const char fx_workload[] =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{\"name\":"
    "\"rope\"},\"spec\":{\"kernel\":\"rope\"}}";

/* A run manifest referencing the workload; `tag` makes it unique. */
static inline void fx_manifest(char *out, size_t cap, int tag)
{
    struct kix_digest w;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    fx_digest_of_json(fx_workload, &w);
    kix_digest_format(&w, text);
    snprintf(out, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
             "\"name\":\"run\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":%d}},\"workloadDigest\":\"%s\"}}",
             1000 + tag, text);
}

/* A signed publication of run `run_id` (manifest by tag) into env; the
 * manifest text into manifest (cap 512). */
static inline int fx_publication(const struct fx *f, const char *run_id, int tag,
                                 struct kix_buf *env, char *manifest)
{
    struct kix_digest d;
    fx_manifest(manifest, 512, tag);
    fx_digest_of_json(manifest, &d);
    return kix_entry_publication(f->publisher, run_id, &d, "2026-11-29T00:00:00Z", "test",
                                 "BSD-2-Clause", env, NULL);
}

/* Publishes run `run_id` through kixd; *index gets its index. */
static inline int fx_publish(const struct fx *f, const char *run_id, int tag, uint64_t *index)
{
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result res;
    char manifest[512];
    const char *objs[2] = {manifest, fx_workload};
    int rc = fx_publication(f, run_id, tag, &env, manifest);

    if (rc == KIX_OK)
        rc = fx_submit(f, &env, objs, 2, &res);
    if (index)
        *index = res.index;
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    return rc;
}

/* Publishes n runs <prefix>-<i> (manifest tags tag0 + i) in submits of up
 * to 250 bundles. Returns the first error. */
static inline int fx_publish_many(const struct fx *f, const char *prefix, int n, int tag0)
{
    struct kix_client *c = fx_client(f);
    struct kix_buf *envs = calloc((size_t)n, sizeof(*envs));
    char *mf = malloc((size_t)n * 512);
    struct kix_bundle *b = calloc((size_t)n, sizeof(*b));
    struct kix_bytes *objs = calloc((size_t)n * 2, sizeof(*objs));
    struct kix_submit_result *res = calloc((size_t)n, sizeof(*res));
    struct kix_err err = {0};
    int rc = c && envs && mf && b && objs && res ? KIX_OK : KIX_ENOMEM;

    for (int i = 0; rc == KIX_OK && i < n; i++) {
        char run[64], *m = mf + (size_t)i * 512;
        snprintf(run, sizeof(run), "%s-%d", prefix, i);
        rc = fx_publication(f, run, tag0 + i, &envs[i], m);
        objs[2 * i].ptr = (const uint8_t *)m;
        objs[2 * i].len = strlen(m);
        objs[2 * i + 1].ptr = (const uint8_t *)fx_workload;
        objs[2 * i + 1].len = strlen(fx_workload);
        b[i].envelope = kix_buf_bytes(&envs[i]);
        b[i].objects = &objs[2 * i];
        b[i].nobjects = 2;
    }
    for (int i = 0; rc == KIX_OK && i < n; i += 250) {
        size_t k = n - i < 250 ? (size_t)(n - i) : 250;
        rc = kix_client_submit(c, b + i, k, res + i, &err);
        for (size_t j = 0; j < k; j++) {
            if (rc == KIX_OK && res[i + j].code)
                rc = res[i + j].code;
            kix_submit_result_release(&res[i + j]);
        }
    }
    if (rc)
        fprintf(stderr, "publish many: %s\n", kix_err_text(&err, rc));
    for (int i = 0; envs && i < n; i++)
        kix_buf_release(&envs[i]);
    kix_client_close(c);
    free(envs);
    free(mf);
    free(b);
    free(objs);
    free(res);
    return rc;
}

/* Creates a log and serves it. extra: NULL-terminated serve arguments. */
static inline int fx_start_opts(struct fx *f, int with_tcp, const char *const *extra)
{
    const char *init[] = {"kixd",    "init",        "--store", NULL, "--origin",
                          FX_ORIGIN, "--admin-key", NULL,      NULL};
    struct kix_client *c;
    struct kix_client_info info;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result res;
    struct kix_err err = {0};
    char admin[300];
    pid_t pid;

    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/kixd-test-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->sock_path, sizeof(f->sock_path), "%s/sock", f->dir);
    snprintf(f->addr, sizeof(f->addr), "unix://%s", f->sock_path);
    snprintf(f->log, sizeof(f->log), "%s/kixd.log", f->dir);
    if (with_tcp)
        snprintf(f->tcp, sizeof(f->tcp), "tcp://127.0.0.1:%d", fx_free_port());
    for (; extra && *extra; extra++)
        fx_add_arg(f, *extra);
    /* the store is DIR/log; the socket, kixd.log and the admin key sit
     * beside it */
    snprintf(admin, sizeof(admin), "%s/admin.key", f->dir);
    snprintf(f->dir + strlen(f->dir), sizeof(f->dir) - strlen(f->dir), "/log");
    init[3] = f->dir;
    init[7] = admin;
    pid = fx_spawn(init, f->log);
    if (fx_wait(pid, 20000) != 0) {
        fx_print_log(f);
        return -1;
    }
    if (kix_keyfile_read(admin, &f->admin, &err) != KIX_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    if (kix_signer_generate("publisher", KIX_NOTE_ALG_ED25519, &f->publisher, NULL) != KIX_OK)
        return -1;
    if (fx_serve(f) != 0)
        return -1;
    c = fx_client(f);
    if (!c || kix_client_info(c, &info, &err) != KIX_OK ||
        kix_verifier_parse(info.log_key, strlen(info.log_key), &f->log_key, &err) != KIX_OK) {
        fprintf(stderr, "info: %s\n", err.msg);
        kix_client_close(c);
        return -1;
    }
    kix_client_close(c);
    if (kix_entry_key(f->admin, 0, kix_signer_public_key(f->publisher),
                      KIX_ROLE_PUBLISH | KIX_ROLE_ATTEST | KIX_ROLE_RERUN, &env, &err) != KIX_OK ||
        fx_submit(f, &env, NULL, 0, &res) != KIX_OK) {
        kix_buf_release(&env);
        return -1;
    }
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    return 0;
}

static inline int fx_start(struct fx *f)
{
    return fx_start_opts(f, 0, NULL);
}

/* Stops kixd if running and removes the directory. */
static inline void fx_cleanup(struct fx *f)
{
    char *slash;
    if (f->pid > 0)
        fx_stop(f, SIGKILL);
    kix_signer_free(f->admin);
    kix_signer_free(f->publisher);
    f->admin = f->publisher = NULL;
    slash = strrchr(f->dir, '/');
    if (slash && strcmp(slash, "/log") == 0)
        *slash = '\0';
    if (getenv("KIX_KEEP_TEST_DIRS"))
        return;
    if (f->dir[0] && kix_dir_remove_tree(f->dir, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", f->dir);
}

/* VmRSS of a process in KiB, or -1. */
static inline long fx_rss_kb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    FILE *fp;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    fp = fopen(path, "r");
    if (!fp)
        return -1;
    while (fgets(line, sizeof(line), fp))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(fp);
    return kb;
}

/* ---- raw sockets for hostile clients -------------------------------------------- */

static inline int fx_raw_connect(const struct fx *f)
{
    struct sockaddr_un sun;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    if (strlen(f->sock_path) >= sizeof(sun.sun_path))
        return -1;
    memcpy(sun.sun_path, f->sock_path, strlen(f->sock_path));
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends all bytes, giving up when the peer stops reading for ms. Returns
 * the bytes sent. */
static inline size_t fx_raw_send(int fd, const void *data, size_t len, int ms)
{
    size_t off = 0;
    while (off < len) {
        struct pollfd p = {fd, POLLOUT, 0};
        ssize_t n;
        if (poll(&p, 1, ms) <= 0)
            break;
        n = send(fd, (const char *)data + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    return off;
}

/* Waits until the server closes fd (reading and dropping what it sends);
 * 1 if closed within ms, 0 otherwise. */
static inline int fx_raw_wait_closed(int fd, int ms)
{
    int64_t end = fx_now_ms() + ms;
    char buf[65536];
    while (fx_now_ms() < end) {
        struct pollfd p = {fd, POLLIN, 0};
        ssize_t n;
        if (poll(&p, 1, 50) <= 0)
            continue;
        n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return 1;
    }
    return 0;
}

/* Waits until the server closes fd without reading anything from it (a
 * client that never reads); 1 if closed within ms. */
static inline int fx_raw_wait_hup(int fd, int ms)
{
    int64_t end = fx_now_ms() + ms;
    while (fx_now_ms() < end) {
        struct pollfd p = {fd, 0, 0};
        if (poll(&p, 1, 50) > 0 && (p.revents & (POLLHUP | POLLERR)))
            return 1;
    }
    return 0;
}

/* One info call on a fresh connection: the daemon still answers. */
static inline int fx_alive(const struct fx *f)
{
    struct kix_rpc *c = fx_rpc(f);
    struct kix_proto_msg m;
    struct kix_err err;
    int rc;
    if (!c)
        return 0;
    rc = kix_rpc_call(c, "info", NULL, NULL, &m, &err);
    if (rc == KIX_OK)
        kix_proto_msg_release(&m);
    else
        fprintf(stderr, "info: %s\n", err.msg);
    kix_rpc_close(c);
    return rc == KIX_OK;
}

#endif
