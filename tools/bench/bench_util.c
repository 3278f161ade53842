/* kix-bench: clock, statistics, child processes, files, the report. */
#define _GNU_SOURCE /* syncfs */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_settle(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        syncfs(fd);
        close(fd);
    }
}

static void vsay(const char *fmt, va_list ap)
{
    fputs("kix-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void bench_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    bench_stop_all();
    exit(1);
}

/* ---- latency ---------------------------------------------------------------- */

void bench_lat_add(struct bench_lat *l, uint64_t ns)
{
    uint64_t *p = kix_array_grow(l->ns, &l->cap, l->n, 4096, sizeof(*p));
    if (!p)
        bench_die("out of memory");
    l->ns = p;
    l->ns[l->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

double bench_lat_quantile(struct bench_lat *l, double q)
{
    size_t i;
    if (!l->n)
        return 0;
    qsort(l->ns, l->n, sizeof(*l->ns), cmp_u64); /* cheap when already sorted */
    i = (size_t)(q * (double)(l->n - 1) + 0.5);
    return (double)l->ns[i < l->n ? i : l->n - 1];
}

double bench_lat_max(const struct bench_lat *l)
{
    uint64_t m = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->ns[i] > m)
            m = l->ns[i];
    return (double)m;
}

double bench_lat_mean(const struct bench_lat *l)
{
    double s = 0;
    for (size_t i = 0; i < l->n; i++)
        s += (double)l->ns[i];
    return l->n ? s / (double)l->n : 0;
}

void bench_lat_release(struct bench_lat *l)
{
    free(l->ns);
    memset(l, 0, sizeof(*l));
}

/* ---- children ------------------------------------------------------------------ */

#define MAX_CHILDREN 32
static pid_t children[MAX_CHILDREN];

pid_t bench_spawn(char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        bench_say("cannot start %s: %s", argv[0], strerror(rc));
        return -1;
    }
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (!children[i]) {
            children[i] = pid;
            break;
        }
    return pid;
}

void bench_stop(pid_t pid)
{
    int status;
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 1000; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            goto reaped;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
reaped:
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            children[i] = 0;
}

void bench_stop_all(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i])
            bench_stop(children[i]);
}

int bench_run(char *const argv[], const char *log)
{
    int status;
    pid_t pid = bench_spawn(argv, log);
    if (pid < 0)
        return -1;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            children[i] = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int bench_free_port(void)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int port = -1, fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

int bench_wait_port(int port, pid_t child, double timeout_s)
{
    double end = bench_now() + timeout_s;
    struct sockaddr_in sa;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    while (bench_now() < end) {
        int status, fd = socket(AF_INET, SOCK_STREAM, 0);
        int ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        if (fd >= 0)
            close(fd);
        if (ok)
            return 0;
        if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
            for (int i = 0; i < MAX_CHILDREN; i++)
                if (children[i] == child)
                    children[i] = 0;
            return -1;
        }
        usleep(20000);
    }
    return -1;
}

/* ---- files -------------------------------------------------------------------- */

uint64_t bench_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

uint64_t bench_store_bytes(const char *dir)
{
    static const char *const files[] = {"data.mdb", "index.mdb", "log.dat"};
    char path[4200];
    uint64_t bytes = 0;

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        bench_path(path, sizeof(path), "%s/%s", dir, files[i]);
        bytes += bench_file_size(path);
    }
    return bytes;
}

void bench_rmrf(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;

    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char child[4096];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (bench_path(child, sizeof(child), "%s/%s", path, e->d_name) == 0)
                bench_rmrf(child);
        }
        closedir(d);
        rmdir(path);
        return;
    }
    unlink(path);
}

int bench_path(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap)
        bench_die("path too long: %.80s...", out);
    return 0;
}

int bench_mkdirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);

    if (len >= sizeof(buf))
        return -1;
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    return 0;
}

int bench_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

/* ---- report -------------------------------------------------------------------- */

void bench_fig(struct bench_report *r, const char *key, double value, const char *unit,
               const char *label)
{
    struct bench_fig *f;
    struct bench_fig *p = kix_array_grow(r->figs, &r->cap, r->n, 64, sizeof(*p));
    if (!p)
        bench_die("out of memory");
    r->figs = p;
    f = &r->figs[r->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->key, sizeof(f->key), "%s", key);
    f->value = value;
    snprintf(f->unit, sizeof(f->unit), "%s", unit);
    snprintf(f->label, sizeof(f->label), "%s", label);
}

void bench_fig_note(struct bench_report *r, const char *fmt, ...)
{
    va_list ap;
    if (!r->n)
        return;
    va_start(ap, fmt);
    vsnprintf(r->figs[r->n - 1].limit, sizeof(r->figs[r->n - 1].limit), fmt, ap);
    va_end(ap);
}

double bench_get(const struct bench_report *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->figs[i].key, key) == 0)
            return r->figs[i].value;
    return NAN;
}
