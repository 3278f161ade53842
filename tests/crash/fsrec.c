/* tests/crash/fsrec.c — an LD_PRELOAD recorder of the file-system
 * operations a workload makes under one directory (tests only; the
 * crash-state explorer crash_states.c reads its trace).
 *
 * KIX_FSREC_ROOT names the directory (absolute, no trailing slash);
 * KIX_FSREC_TRACE the trace file, appended to with one write per line so
 * that several processes share it. Paths are written relative to the
 * root; operations elsewhere are not recorded. One line per operation,
 * fields separated by tabs, after it succeeded:
 *
 *   c PATH            a file created (open with O_CREAT that made it)
 *   w PATH OFF HEX    bytes written at OFF (write, pwrite, writev)
 *   t PATH LEN        truncated to LEN (ftruncate, O_TRUNC)
 *   d PATH            a directory made
 *   u PATH            a name removed (unlink, rmdir)
 *   r OLD NEW         renamed
 *   l OLD NEW         hard link made
 *   s PATH            fsync or fdatasync of a file or directory, and after
 *                     a write through an O_DSYNC or O_SYNC descriptor
 *   S                 syncfs or sync: everything so far is durable
 *   m PATH            msync (recorded; the explorer's workloads map nothing
 *                     they write under the root but LMDB's lock file)
 *
 * One mutex orders each operation with its line, so the trace's order is
 * the order the operations took effect in this process. What libc does
 * inside itself (stdio's writes) is not seen: kix and LMDB write files
 * with the calls above. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static int trace_fd = -2;
static char root[PATH_MAX];
static size_t root_len;
static __thread int inside; /* our own calls are not recorded */

#define REAL(ret, name, ...)                                                                       \
    static ret (*real_##name)(__VA_ARGS__);                                                        \
    if (!real_##name)                                                                              \
        real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name);

static int ready(void)
{
    if (trace_fd == -2) {
        const char *r = getenv("KIX_FSREC_ROOT"), *t = getenv("KIX_FSREC_TRACE");
        static int (*real_open)(const char *, int, ...);
        if (!real_open)
            real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
        trace_fd = -1;
        if (r && t && strlen(r) < sizeof(root)) {
            snprintf(root, sizeof(root), "%s", r);
            root_len = strlen(root);
            trace_fd = real_open(t, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        }
    }
    return trace_fd >= 0 && !inside;
}

/* The absolute path of (dirfd, path), or of fd when path is NULL. */
static int resolve(int dirfd, const char *path, char *out, size_t cap)
{
    char link[64], base[PATH_MAX];
    ssize_t n;

    if (path && path[0] == '/') {
        snprintf(out, cap, "%s", path);
        return 0;
    }
    if (path && dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof(base)))
            return -1;
    } else {
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        n = readlink(link, base, sizeof(base) - 1);
        if (n <= 0)
            return -1;
        base[n] = '\0';
    }
    /* a path too long for the trace is not traced */
    if ((size_t)snprintf(out, cap, path ? "%s/%s" : "%s", base, path ? path : "") >= cap)
        return -1;
    return 0;
}

/* The part under the root ("" for the root itself), or NULL. */
static const char *under_root(const char *abs)
{
    if (strncmp(abs, root, root_len) != 0)
        return NULL;
    if (abs[root_len] == '\0')
        return ".";
    if (abs[root_len] != '/')
        return NULL;
    return abs + root_len + 1;
}

static void emit(const char *line, size_t len)
{
    size_t done = 0;
    inside = 1;
    while (done < len) {
        ssize_t n = write(trace_fd, line + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    inside = 0;
}

static void record(char op, int dirfd, const char *path, int dirfd2, const char *path2)
{
    char a[PATH_MAX], b[PATH_MAX], line[3 * PATH_MAX];
    const char *ra, *rb = NULL;
    int n;

    if (resolve(dirfd, path, a, sizeof(a)) != 0 || !(ra = under_root(a)))
        return;
    if (path2 && (resolve(dirfd2, path2, b, sizeof(b)) != 0 || !(rb = under_root(b))))
        return;
    n = rb ? snprintf(line, sizeof(line), "%c\t%s\t%s\n", op, ra, rb)
           : snprintf(line, sizeof(line), "%c\t%s\n", op, ra);
    if (n > 0 && (size_t)n < sizeof(line))
        emit(line, (size_t)n);
}

static void record_fd(char op, int fd, long long num)
{
    char a[PATH_MAX], line[PATH_MAX + 64];
    const char *ra;
    int n;

    if (resolve(fd, NULL, a, sizeof(a)) != 0 || !(ra = under_root(a)) || strstr(ra, " (deleted)"))
        return;
    n = num >= 0 ? snprintf(line, sizeof(line), "%c\t%s\t%lld\n", op, ra, num)
                 : snprintf(line, sizeof(line), "%c\t%s\n", op, ra);
    if (n > 0 && (size_t)n < sizeof(line))
        emit(line, (size_t)n);
}

static void record_write(int fd, long long off, const struct iovec *iov, int iovcnt, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    char a[PATH_MAX], *line, *p;
    const char *ra;
    size_t left = len;

    if (resolve(fd, NULL, a, sizeof(a)) != 0 || !(ra = under_root(a)) || strstr(ra, " (deleted)"))
        return;
    line = malloc(strlen(ra) + 2 * len + 64);
    if (!line)
        return;
    p = line + sprintf(line, "w\t%s\t%lld\t", ra, off);
    for (int i = 0; i < iovcnt && left; i++) {
        const unsigned char *d = iov[i].iov_base;
        size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
        for (size_t j = 0; j < k; j++) {
            *p++ = hex[d[j] >> 4];
            *p++ = hex[d[j] & 15];
        }
        left -= k;
    }
    *p++ = '\n';
    emit(line, (size_t)(p - line));
    /* a write through an O_DSYNC or O_SYNC descriptor (LMDB's meta page)
     * is durable when it returns */
    if (fcntl(fd, F_GETFL) & (O_DSYNC | O_SYNC))
        emit(line, (size_t)sprintf(line, "s\t%s\n", ra));
    free(line);
}

static int exists_at(int dirfd, const char *path)
{
    struct stat st;
    return fstatat(dirfd, path, &st, 0) == 0;
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode)
{
    REAL(int, openat, int, const char *, int, ...)
    int rec = ready() && (flags & (O_CREAT | O_TRUNC)), existed = 0, fd;

    if (!rec)
        return real_openat(dirfd, path, flags, mode);
    pthread_mutex_lock(&rec_mu);
    existed = exists_at(dirfd, path);
    fd = real_openat(dirfd, path, flags, mode);
    if (fd >= 0 && !existed)
        record('c', dirfd, path, 0, NULL);
    else if (fd >= 0 && (flags & O_TRUNC))
        record_fd('t', fd, 0);
    pthread_mutex_unlock(&rec_mu);
    return fd;
}

/* The mode argument of open and openat: there only when a file may be
 * created (a macro: va_start needs the wrapper's own argument list). */
#define CREATE_MODE(flags, mode)                                                                   \
    do {                                                                                           \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                                     \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = va_arg(ap, mode_t);                                                             \
            va_end(ap);                                                                            \
        }                                                                                          \
    } while (0)

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    CREATE_MODE(flags, mode);
    return do_openat(AT_FDCWD, path, flags, mode);
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    CREATE_MODE(flags, mode);
    return do_openat(dirfd, path, flags, mode);
}
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int creat(const char *path, mode_t mode)
{
    return do_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* write and writev at the descriptor's offset (the file's end with
 * O_APPEND), pwrite and pwritev at off (-1: the descriptor's): each done
 * with the real writev or pwritev, and recorded. */
static ssize_t recorded_write(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
    REAL(ssize_t, writev, int, const struct iovec *, int)
    REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
    off_t at = off;
    ssize_t got;

    if (!ready())
        return off < 0 ? real_writev(fd, iov, iovcnt) : real_pwritev(fd, iov, iovcnt, off);
    pthread_mutex_lock(&rec_mu);
    if (off < 0)
        at = (fcntl(fd, F_GETFL) & O_APPEND) ? lseek(fd, 0, SEEK_END) : lseek(fd, 0, SEEK_CUR);
    got = off < 0 ? real_writev(fd, iov, iovcnt) : real_pwritev(fd, iov, iovcnt, off);
    if (got > 0 && at >= 0)
        record_write(fd, (long long)at, iov, iovcnt, (size_t)got);
    pthread_mutex_unlock(&rec_mu);
    return got;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    struct iovec v = {(void *)buf, n};
    return recorded_write(fd, &v, 1, -1);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    struct iovec v = {(void *)buf, n};
    return recorded_write(fd, &v, 1, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    return recorded_write(fd, iov, iovcnt, -1);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
    return recorded_write(fd, iov, iovcnt, off);
}

#define SYNC_FD(name)                                                                              \
    int name(int fd)                                                                               \
    {                                                                                              \
        REAL(int, name, int)                                                                       \
        int rc;                                                                                    \
        if (!ready())                                                                              \
            return real_##name(fd);                                                                \
        pthread_mutex_lock(&rec_mu);                                                               \
        rc = real_##name(fd);                                                                      \
        if (rc == 0)                                                                               \
            record_fd('s', fd, -1);                                                                \
        pthread_mutex_unlock(&rec_mu);                                                             \
        return rc;                                                                                 \
    }
SYNC_FD(fsync)
SYNC_FD(fdatasync)

int syncfs(int fd)
{
    REAL(int, syncfs, int)
    int rc;
    if (!ready())
        return real_syncfs(fd);
    pthread_mutex_lock(&rec_mu);
    rc = real_syncfs(fd);
    if (rc == 0)
        emit("S\n", 2);
    pthread_mutex_unlock(&rec_mu);
    return rc;
}

void sync(void)
{
    REAL(void, sync, void)
    if (!ready()) {
        real_sync();
        return;
    }
    pthread_mutex_lock(&rec_mu);
    real_sync();
    emit("S\n", 2);
    pthread_mutex_unlock(&rec_mu);
}

int msync(void *addr, size_t len, int flags)
{
    REAL(int, msync, void *, size_t, int)
    int rc = real_msync(addr, len, flags);
    if (rc == 0 && ready())
        emit("m\t?\n", 4);
    return rc;
}

int ftruncate(int fd, off_t len)
{
    REAL(int, ftruncate, int, off_t)
    int rc;
    if (!ready())
        return real_ftruncate(fd, len);
    pthread_mutex_lock(&rec_mu);
    rc = real_ftruncate(fd, len);
    if (rc == 0)
        record_fd('t', fd, (long long)len);
    pthread_mutex_unlock(&rec_mu);
    return rc;
}
int ftruncate64(int fd, off_t len) __attribute__((alias("ftruncate")));

#define PATH_OP(decl, call, op, dirfd, path, dirfd2, path2)                                        \
    decl                                                                                           \
    {                                                                                              \
        int rc;                                                                                    \
        if (!ready())                                                                              \
            return call;                                                                           \
        pthread_mutex_lock(&rec_mu);                                                               \
        rc = call;                                                                                 \
        if (rc == 0)                                                                               \
            record(op, dirfd, path, dirfd2, path2);                                                \
        pthread_mutex_unlock(&rec_mu);                                                             \
        return rc;                                                                                 \
    }

static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_rmdir)(const char *);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_mkdirat)(int, const char *, mode_t);

__attribute__((constructor)) static void fsrec_init(void)
{
    real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    real_renameat = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    real_unlink = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    real_unlinkat = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
    real_rmdir = (int (*)(const char *))dlsym(RTLD_NEXT, "rmdir");
    real_link = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    real_linkat = (int (*)(int, const char *, int, const char *, int))dlsym(RTLD_NEXT, "linkat");
    real_mkdir = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
    real_mkdirat = (int (*)(int, const char *, mode_t))dlsym(RTLD_NEXT, "mkdirat");
}

PATH_OP(int rename(const char *a, const char *b), real_rename(a, b), 'r', AT_FDCWD, a, AT_FDCWD, b)
PATH_OP(int renameat(int da, const char *a, int db, const char *b), real_renameat(da, a, db, b),
        'r', da, a, db, b)
PATH_OP(int unlink(const char *a), real_unlink(a), 'u', AT_FDCWD, a, 0, NULL)
PATH_OP(int unlinkat(int da, const char *a, int fl), real_unlinkat(da, a, fl), 'u', da, a, 0, NULL)
PATH_OP(int rmdir(const char *a), real_rmdir(a), 'u', AT_FDCWD, a, 0, NULL)
PATH_OP(int link(const char *a, const char *b), real_link(a, b), 'l', AT_FDCWD, a, AT_FDCWD, b)
PATH_OP(int linkat(int da, const char *a, int db, const char *b, int fl),
        real_linkat(da, a, db, b, fl), 'l', da, a, db, b)
PATH_OP(int mkdir(const char *a, mode_t m), real_mkdir(a, m), 'd', AT_FDCWD, a, 0, NULL)
PATH_OP(int mkdirat(int da, const char *a, mode_t m), real_mkdirat(da, a, m), 'd', da, a, 0, NULL)
