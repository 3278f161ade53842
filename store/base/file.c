/* Crash-safe file writes, whole-file reads and directory trees
 * (kix/file.h). */
#define _GNU_SOURCE /* nftw, syncfs */
#include "kix/file.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_CAP 4200

/* The rename of path into its directory made durable: 0, or the errno of
 * the directory's open or fsync (EINVAL, a file system that cannot sync a
 * directory, counts as done: there is nothing more to do there). */
static int fsync_parent(const char *path)
{
    char dir[PATH_CAP];
    char *slash;
    int fd, e = 0;

    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    if (fsync(fd) != 0 && errno != EINVAL)
        e = errno;
    close(fd);
    return e;
}

/* Numbers each write's temporary file, which is named after the process
 * and this number: two threads writing one path at once must not write
 * into one temporary file. */
static atomic_ulong tmp_serial;

static int write_file(const char *path, const void *data, size_t len, int mode, int sync,
                      struct kix_err *err)
{
    char tmp[PATH_CAP];
    const char *p = data;
    size_t done = 0;
    unsigned long serial = atomic_fetch_add(&tmp_serial, 1);
    int fd, e, rc = KIX_OK;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%lu", path, (long)getpid(), serial) >=
        sizeof(tmp))
        return kix_err_set(err, KIX_EINVAL, "path %.200s... is too long", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return kix_err_set(err, KIX_EIO, "cannot write %s: %s", tmp, strerror(errno));
    while (rc == KIX_OK && done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = kix_err_set(err, KIX_EIO, "cannot write %s: %s", tmp, strerror(errno));
        else
            done += (size_t)n;
    }
    if (rc == KIX_OK && sync && fsync(fd) != 0)
        rc = kix_err_set(err, KIX_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && rc == KIX_OK)
        rc = kix_err_set(err, KIX_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == KIX_OK && rename(tmp, path) != 0)
        rc = kix_err_set(err, KIX_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc) {
        unlink(tmp);
        return rc;
    }
    if (sync && (e = fsync_parent(path)) != 0)
        return kix_err_set(err, KIX_EIO, "cannot sync the directory of %s: %s", path, strerror(e));
    return KIX_OK;
}

int kix_file_write_atomic(const char *path, const void *data, size_t len, int mode,
                          struct kix_err *err)
{
    return write_file(path, data, len, mode, 1, err);
}

int kix_file_write_batched(const char *path, const void *data, size_t len, int mode,
                           struct kix_err *err)
{
    /* a file that exists is replaced durably at once: a power cut must
     * leave its old bytes, never an empty file */
    return write_file(path, data, len, mode, access(path, F_OK) == 0, err);
}

static int dir_make(const char *path, int mode, int sync, struct kix_err *err);

int kix_file_tree_write(struct kix_file_tree *t, const char *rel, const void *data, size_t len,
                        int atomic, struct kix_err *err)
{
    char path[PATH_CAP], *slash;
    int rc;

    if ((size_t)snprintf(path, sizeof(path), "%s/%s", t->dir, rel) >= sizeof(path))
        return kix_err_set(err, KIX_EINVAL, "export path %.200s... is too long", t->dir);
    slash = strrchr(path, '/');
    *slash = '\0';
    if (strcmp(path, t->made) != 0) {
        /* a batched file's new directories are made durable with it, by
         * the caller's kix_dir_sync before the file that names them */
        rc = dir_make(path, 0755, atomic, err);
        if (rc)
            return rc;
        snprintf(t->made, sizeof(t->made), "%s", path);
    }
    *slash = '/';
    if (atomic)
        return kix_file_write_atomic(path, data, len, t->mode, err);
    return kix_file_write_batched(path, data, len, t->mode, err);
}

int kix_dir_sync(const char *dir, struct kix_err *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

    if (fd < 0)
        return kix_err_set(err, KIX_EIO, "cannot open %s: %s", dir, strerror(errno));
    rc = syncfs(fd);
    close(fd);
    if (rc != 0)
        return kix_err_set(err, KIX_EIO, "cannot sync the file system of %s: %s", dir,
                           strerror(errno));
    return KIX_OK;
}

int kix_file_read(const char *path, size_t max, struct kix_buf *out, struct kix_err *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    const char *name = f == stdin ? "standard input" : path;
    int rc = KIX_OK;

    if (!f)
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "cannot open %s: %s",
                           path, strerror(errno));
    for (;;) {
        size_t n;
        rc = kix_buf_grow(out, 65536);
        if (rc) {
            kix_err_set(err, rc, "reading %s: out of memory", name);
            break;
        }
        n = fread(out->ptr + out->len, 1, 65536, f);
        out->len += n;
        out->ptr[out->len] = '\0';
        if (out->len > max) {
            rc =
                kix_err_set(err, KIX_ELIMIT, "%s is larger than the limit of %zu bytes", name, max);
            break;
        }
        if (n < 65536) {
            if (ferror(f))
                rc = kix_err_set(err, KIX_EIO, "reading %s: %s", name, strerror(errno));
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    return rc;
}

/* mkdir, and when it made the directory, an fsync of its parent: a new
 * directory's name is durable only then, and without it a power cut can
 * take the directory and every file synced into it (a client's remembered
 * checkpoint: crash.states_client found it). 0, or -1 with errno. */
static int make_one_dir(const char *path, int mode, int sync)
{
    if (mkdir(path, (mode_t)mode) == 0) {
        if (sync)
            fsync_parent(path);
    } else if (errno != EEXIST)
        return -1;
    return 0;
}

/* kix_dir_make; `sync` 0 leaves new directories' names to a later
 * kix_dir_sync (an export's batch: one syncfs instead of an fsync per
 * directory made). */
static int dir_make(const char *path, int mode, int sync, struct kix_err *err)
{
    char p[PATH_CAP];

    if ((size_t)snprintf(p, sizeof(p), "%s", path) >= sizeof(p))
        return kix_err_set(err, KIX_EINVAL, "path %.200s... is too long", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (make_one_dir(p, mode, sync) != 0)
            return kix_err_set(err, KIX_EIO, "cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    if (make_one_dir(p, mode, sync) != 0)
        return kix_err_set(err, KIX_EIO, "cannot create %s: %s", p, strerror(errno));
    return KIX_OK;
}

int kix_dir_make(const char *path, int mode, struct kix_err *err)
{
    return dir_make(path, mode, 1, err);
}

/* nftw gives no context pointer; the first failure is kept here (a
 * process removes one tree at a time). */
static _Thread_local int remove_errno;
static _Thread_local char remove_failed[PATH_CAP];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT) {
        remove_errno = errno;
        snprintf(remove_failed, sizeof(remove_failed), "%s", path);
        return 1;
    }
    return 0;
}

int kix_dir_remove_tree(const char *path, struct kix_err *err)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return errno == ENOENT
                   ? KIX_OK
                   : kix_err_set(err, KIX_EIO, "cannot remove %s: %s", path, strerror(errno));
    remove_errno = 0;
    if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return kix_err_set(err, KIX_EIO, "cannot remove %s: %s",
                           remove_errno ? remove_failed : path,
                           strerror(remove_errno ? remove_errno : errno));
    return KIX_OK;
}

int kix_file_holds(const char *path, const void *data, size_t len)
{
    struct kix_buf have = KIX_BUF_INIT;
    int same = kix_file_read(path, len + 1, &have, NULL) == KIX_OK && have.len == len &&
               memcmp(have.ptr, data, len) == 0;

    kix_buf_release(&have);
    return same;
}

/* 1 when fd (st) is a regular file of exactly the len bytes at data. */
static int fd_holds(int fd, const struct stat *st, const void *data, size_t len)
{
    uint8_t buf[65536];
    size_t done = 0;

    if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size != (uint64_t)len)
        return 0;
    while (done < len) {
        size_t want = len - done < sizeof(buf) ? len - done : sizeof(buf);
        ssize_t n = pread(fd, buf, want, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || memcmp(buf, (const uint8_t *)data + done, (size_t)n) != 0)
            return 0;
        done += (size_t)n;
    }
    /* nothing past len either (the file grew since the fstat) */
    return pread(fd, buf, 1, (off_t)len) == 0;
}

int kix_file_tree_link(struct kix_file_tree *t, const char *rel, const char *src, const void *data,
                       size_t len)
{
    char path[PATH_CAP], tmp[PATH_CAP], *slash;
    struct stat st, linked;
    int fd, ok = 0;

    if ((size_t)snprintf(path, sizeof(path), "%s/%s", t->dir, rel) >= sizeof(path) ||
        (size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%lu", path, (long)getpid(),
                         atomic_fetch_add(&tmp_serial, 1)) >= sizeof(tmp))
        return 0;
    fd = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !fd_holds(fd, &st, data, len))
        goto out;
    slash = strrchr(path, '/');
    *slash = '\0';
    if (strcmp(path, t->made) != 0) {
        if (dir_make(path, 0755, 0, NULL) != KIX_OK)
            goto out;
        snprintf(t->made, sizeof(t->made), "%s", path);
    }
    *slash = '/';
    if (link(src, tmp) != 0) /* EXDEV: another file system; the caller writes */
        goto out;
    /* the name may have been replaced since the bytes were compared: only
     * the inode that was read goes into the tree */
    if (lstat(tmp, &linked) != 0 || linked.st_dev != st.st_dev || linked.st_ino != st.st_ino ||
        rename(tmp, path) != 0) {
        unlink(tmp);
        goto out;
    }
    /* rename between two names of one inode does nothing: tmp may remain */
    unlink(tmp);
    ok = 1;
out:
    close(fd);
    return ok;
}
