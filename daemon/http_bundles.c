/* daemon/http_bundles.c — full entry bundles as files in the store
 * (http_bundles.h). */
#include "http_bundles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "kix/tlog_tiles.h"

#define TMP_PREFIX "tmp."

void kixd_bundles_prepare(struct kixd_server *srv)
{
    char *dir = srv->bundle_dir;
    struct dirent *e;
    DIR *d;

    if ((size_t)snprintf(dir, sizeof(srv->bundle_dir), "%s/" KIXD_BUNDLE_DIR, srv->cfg->store) >=
        sizeof(srv->bundle_dir)) {
        dir[0] = '\0';
        return;
    }
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || !(d = opendir(dir))) {
        kixd_log(KIXD_WARN, "cannot use %s (%s): full entry bundles are assembled for each request",
                 dir, strerror(errno));
        dir[0] = '\0';
        return;
    }
    /* only this kixd writes here (it holds the store's lock): a temporary
     * file is a crash's */
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0 &&
            unlinkat(dirfd(d), e->d_name, 0) != 0)
            kixd_log(KIXD_WARN, "cannot remove %s/%s: %s", dir, e->d_name, strerror(errno));
    closedir(d);
}

/* Writes `bytes` as the file `path`, through a temporary name unique to
 * the worker, durable before it is renamed; the file open for reading, or
 * -1 with errno set. */
static int store_file(struct kixd_worker *w, const char *path, uint64_t index,
                      const struct kix_buf *bytes)
{
    char tmp[sizeof(w->srv->bundle_dir) + 64];
    size_t done = 0;
    int fd, saved;

    snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%u.%llu", w->srv->bundle_dir, w->id,
             (unsigned long long)index);
    fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ENOENT && mkdir(w->srv->bundle_dir, 0755) == 0) /* deleted meanwhile */
        fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -1;
    while (done < bytes->len) {
        ssize_t n = write(fd, bytes->ptr + done, bytes->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            goto fail;
        }
        done += (size_t)n;
    }
    /* the bytes reach the disk before the name does: a power cut leaves no
     * file, or the whole one, under `path` */
    if (fdatasync(fd) != 0 || rename(tmp, path) != 0)
        goto fail;
    return fd;
fail:
    saved = errno;
    close(fd);
    unlink(tmp);
    errno = saved;
    return -1;
}

int kixd_bundle_open(struct kixd_worker *w, struct kix_log_reader *r, uint64_t index, int *fd,
                     uint64_t *size, struct kix_buf *built, struct kix_err *err)
{
    const char *dir = w->srv->bundle_dir;
    char path[sizeof(w->srv->bundle_dir) + 32];
    struct stat st;
    int rc;

    *fd = -1;
    *size = 0;
    if (dir[0]) {
        snprintf(path, sizeof(path), "%s/%llu", dir, (unsigned long long)index);
        *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        /* an empty file is never one kixd wrote (a bundle has 256 entries
         * of 2 bytes or more): assembled again */
        if (*fd >= 0 && fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            *size = (uint64_t)st.st_size;
            return KIX_OK;
        }
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
    }
    rc = kix_log_reader_tlog_bundle(r, index, KIX_TLOG_WIDTH, built, err);
    if (rc || !dir[0])
        return rc;
    *fd = store_file(w, path, index, built);
    if (*fd >= 0) {
        *size = built->len;
        return KIX_OK;
    }
    kixd_log(w->bundle_warned ? KIXD_DEBUG : KIXD_WARN,
             "cannot write %s (%s): full entry bundles are assembled in memory until it can be "
             "written",
             path, strerror(errno));
    w->bundle_warned = 1;
    return KIX_OK;
}
