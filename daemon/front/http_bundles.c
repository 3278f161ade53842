/* daemon/front/http_bundles.c — full entry bundles and their object packs as
 * files in the store (http_bundles.h). */
#include "http_bundles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "kix/merkle.h"
#include "kix/object_pack.h"
#include "kix/tlog_tiles.h"

#define TMP_PREFIX  "tmp."
#define PACK_PREFIX "objects." /* objects.<N>: bundle N's object pack */

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
static int store_file(struct kixd_worker *w, const char *path, enum kixd_kept_file kind,
                      uint64_t index, const struct kix_buf *bytes)
{
    char tmp[sizeof(w->srv->bundle_dir) + 64];
    size_t done = 0;
    int fd, saved;

    snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%u.%s%llu", w->srv->bundle_dir, w->id,
             kind == KIXD_KEPT_PACK ? PACK_PREFIX : "", (unsigned long long)index);
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

/* Forgets the open file of slot k (closes it). */
static void slot_drop(struct kixd_worker *w, unsigned k)
{
    if (w->bundle_fds[k].used)
        close(w->bundle_fds[k].fd);
    w->bundle_fds[k].used = 0;
}

void kixd_bundles_free(struct kixd_worker *w)
{
    for (unsigned k = 0; k < KIXD_BUNDLE_FDS; k++)
        slot_drop(w, k);
    free(w->bundle_checked);
    w->bundle_checked = NULL;
    w->bundle_checked_len = 0;
}

/* Files are told apart by a key: a bundle's is 2N, its pack's 2N + 1. */
static uint64_t key_of(enum kixd_kept_file kind, uint64_t index)
{
    return index * 2 + (kind == KIXD_KEPT_PACK);
}

static int checked(const struct kixd_worker *w, uint64_t key)
{
    return key / 8 < w->bundle_checked_len && (w->bundle_checked[key / 8] >> (key % 8)) & 1;
}

/* Remembers that the file of key was checked (forgotten when out of
 * memory: checked again). */
static void set_checked(struct kixd_worker *w, uint64_t key)
{
    if (key / 8 >= w->bundle_checked_len) {
        size_t len = (size_t)(key / 8) * 2 + 64;
        uint8_t *b = realloc(w->bundle_checked, len);
        if (!b)
            return;
        memset(b + w->bundle_checked_len, 0, len - w->bundle_checked_len);
        w->bundle_checked = b;
        w->bundle_checked_len = len;
    }
    w->bundle_checked[key / 8] |= (uint8_t)(1u << (key % 8));
}

/* Reads file fd (size bytes, at most max) into bytes: 0, or -1. */
static int read_whole(int fd, uint64_t size, uint64_t max, struct kix_buf *bytes)
{
    kix_buf_reset(bytes);
    if (size > max || kix_buf_grow(bytes, (size_t)size))
        return -1;
    while (bytes->len < size) {
        ssize_t n =
            pread(fd, bytes->ptr + bytes->len, (size_t)size - bytes->len, (off_t)bytes->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        bytes->len += (size_t)n;
    }
    return 0;
}

/* 1 when bytes are bundle `index` of r's log: 256 entries, each a 2-byte
 * length and a leaf whose hash is the level-0 tile's. */
static int is_bundle(struct kix_log_reader *r, uint64_t index, const struct kix_buf *bytes)
{
    struct kix_buf tile = KIX_BUF_INIT;
    struct kix_err err = {0};
    size_t off = 0;
    int ok = 0;

    if (kix_log_reader_tlog_tile(r, 0, index, KIX_TLOG_WIDTH, &tile, &err) != KIX_OK)
        goto out;
    for (unsigned i = 0; i < KIX_TLOG_WIDTH; i++) {
        struct kix_hash h;
        size_t len;
        if (bytes->len - off < 2)
            goto out;
        len = (size_t)bytes->ptr[off] << 8 | bytes->ptr[off + 1];
        off += 2;
        if (bytes->len - off < len)
            goto out;
        kix_merkle_leaf_hash(bytes->ptr + off, len, &h);
        if (memcmp(h.b, tile.ptr + (size_t)i * KIX_HASH_LEN, KIX_HASH_LEN) != 0)
            goto out;
        off += len;
    }
    ok = off == bytes->len;
out:
    kix_buf_release(&tile);
    return ok;
}

/* 1 when bytes are bundle index's object pack as r's log makes it: a pack
 * has no hash to check it by, so it is made again and compared. */
static int is_pack(struct kix_log_reader *r, uint64_t index, const struct kix_buf *bytes)
{
    struct kix_buf pack = KIX_BUF_INIT;
    struct kix_err err = {0};
    int ok = kix_log_reader_object_pack(r, index, &pack, &err) == KIX_OK &&
             pack.len == bytes->len && memcmp(pack.ptr, bytes->ptr, pack.len) == 0;

    kix_buf_release(&pack);
    return ok;
}

/* 1 when file fd (size bytes) holds what kind and index name in r's log,
 * read into `bytes` (emptied after). 0 for anything else, an I/O error too. */
static int file_holds(struct kix_log_reader *r, enum kixd_kept_file kind, uint64_t index, int fd,
                      uint64_t size, struct kix_buf *bytes)
{
    int ok = kind == KIXD_KEPT_PACK
                 ? read_whole(fd, size, KIX_OBJECT_PACK_MAX, bytes) == 0 && is_pack(r, index, bytes)
                 : read_whole(fd, size, (uint64_t)KIX_TLOG_WIDTH * (2 + 0xffff), bytes) == 0 &&
                       is_bundle(r, index, bytes);

    kix_buf_reset(bytes);
    return ok;
}

/* Keeps fd open in slot k as the file of key, in place of another. */
static void keep_open(struct kixd_worker *w, unsigned k, uint64_t key, int fd)
{
    slot_drop(w, k);
    w->bundle_fds[k].index = key;
    w->bundle_fds[k].fd = fd;
    w->bundle_fds[k].used = 1;
}

static int build(struct kix_log_reader *r, enum kixd_kept_file kind, uint64_t index,
                 struct kix_buf *out, struct kix_err *err)
{
    return kind == KIXD_KEPT_PACK ? kix_log_reader_object_pack(r, index, out, err)
                                  : kix_log_reader_tlog_bundle(r, index, KIX_TLOG_WIDTH, out, err);
}

int kixd_bundle_open(struct kixd_worker *w, struct kix_log_reader *r, enum kixd_kept_file kind,
                     uint64_t index, int *fd, uint64_t *size, struct kix_buf *built,
                     struct kix_err *err)
{
    const char *dir = w->srv->bundle_dir;
    const char *what = kind == KIXD_KEPT_PACK ? "the object pack of entry bundle" : "entry bundle";
    char path[sizeof(w->srv->bundle_dir) + 32];
    uint64_t key = key_of(kind, index);
    unsigned slot = (unsigned)(key % KIXD_BUNDLE_FDS);
    struct stat st;
    int rc;

    *fd = -1;
    *size = 0;
    if (dir[0] && w->bundle_fds[slot].used && w->bundle_fds[slot].index == key) {
        /* kept open: served while it is still the file under its name, not
         * removed (its links gone) nor emptied; else made again below */
        if (fstat(w->bundle_fds[slot].fd, &st) == 0 && st.st_nlink > 0 && st.st_size > 0) {
            *fd = w->bundle_fds[slot].fd;
            *size = (uint64_t)st.st_size;
            return KIX_OK;
        }
        slot_drop(w, slot);
    }
    if (dir[0]) {
        snprintf(path, sizeof(path), "%s/%s%llu", dir, kind == KIXD_KEPT_PACK ? PACK_PREFIX : "",
                 (unsigned long long)index);
        *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        /* a file is checked against the log once per worker and run: one
         * left by another log (a store restored over this one) or damaged
         * is written again */
        if (*fd >= 0 && fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            (checked(w, key) || file_holds(r, kind, index, *fd, (uint64_t)st.st_size, built))) {
            set_checked(w, key);
            *size = (uint64_t)st.st_size;
            keep_open(w, slot, key, *fd);
            return KIX_OK;
        }
        if (*fd >= 0) {
            kixd_log(KIXD_WARN, "%s is not %s %llu of this log: written again", path, what,
                     (unsigned long long)index);
            close(*fd);
        }
        *fd = -1;
    }
    rc = build(r, kind, index, built, err);
    /* an empty pack (entries that need no object) is not kept: an empty
     * file reads as one a crash emptied */
    if (rc || !dir[0] || built->len == 0)
        return rc;
    *fd = store_file(w, path, kind, index, built);
    if (*fd >= 0) {
        set_checked(w, key);
        *size = built->len;
        keep_open(w, slot, key, *fd);
        return KIX_OK;
    }
    kixd_log(w->bundle_warned ? KIXD_DEBUG : KIXD_WARN,
             "cannot write %s (%s): full entry bundles and object packs are assembled in memory "
             "until it can be written",
             path, strerror(errno));
    w->bundle_warned = 1;
    return KIX_OK;
}
