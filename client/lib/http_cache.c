/* The HTTP source's disk cache (http_cache.h): files under their tlog-tiles
 * paths, each its bytes then their SHA-256, pruned oldest first. */
#define _XOPEN_SOURCE 700
#include "http_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kix/file.h"
#include "kix/sha256.h"

#define PATH_CAP       4200
#define DEFAULT_MAX_MB 256u
#define TRAILER        32u

struct http_cache {
    char root[PATH_CAP];
    char dir[PATH_CAP]; /* root/logs/<log name> */
    int wrote;
};

int http_cache_open(const char *root, const char *log_name, struct http_cache **out,
                    struct kix_err *err)
{
    const char *env = getenv("KIX_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    struct http_cache *c;
    int n;

    *out = NULL;
    c = calloc(1, sizeof(*c));
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (root && *root)
        n = snprintf(c->root, sizeof(c->root), "%s", root);
    else if (env && *env)
        n = snprintf(c->root, sizeof(c->root), "%s", env);
    else if (xdg && *xdg)
        n = snprintf(c->root, sizeof(c->root), "%s/kix", xdg);
    else
        n = snprintf(c->root, sizeof(c->root), "%s/.cache/kix", home && *home ? home : ".");
    if (n < 0 || (size_t)n >= sizeof(c->root) ||
        (n = snprintf(c->dir, sizeof(c->dir), "%s/logs/%s", c->root, log_name)) < 0 ||
        (size_t)n >= sizeof(c->dir)) {
        free(c);
        return kix_err_set(err, KIX_EINVAL, "cache directory path is too long");
    }
    *out = c;
    return KIX_OK;
}

/* rel under the log's directory: no absolute path and no ".." component
 * (an index key is part of its file's name), else KIX_EINVAL. */
static int file_path(const struct http_cache *c, const char *rel, char *out, size_t cap)
{
    int n;

    if (rel[0] == '/' || !rel[0])
        return KIX_EINVAL;
    for (const char *p = rel;; p++) { /* p: the start of each component */
        if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
            return KIX_EINVAL;
        if (!(p = strchr(p, '/')))
            break;
    }
    n = snprintf(out, cap, "%s/%s", c->dir, rel);
    return n < 0 || (size_t)n >= cap ? KIX_EINVAL : KIX_OK;
}

int http_cache_get(struct http_cache *c, const char *rel, size_t max, struct kix_buf *out)
{
    char path[PATH_CAP];
    struct kix_buf b = KIX_BUF_INIT;
    uint8_t sum[32];
    int rc;

    if (file_path(c, rel, path, sizeof(path)) != KIX_OK)
        return KIX_ENOTFOUND;
    rc = kix_file_read(path, max + TRAILER, &b, NULL);
    if (rc == KIX_OK && b.len >= TRAILER) {
        kix_sha256(b.ptr, b.len - TRAILER, sum);
        if (memcmp(sum, b.ptr + b.len - TRAILER, TRAILER) != 0)
            rc = KIX_ECORRUPT;
    } else if (rc == KIX_OK) {
        rc = KIX_ECORRUPT;
    }
    if (rc == KIX_OK)
        rc = kix_buf_add(out, b.ptr, b.len - TRAILER);
    if (rc == KIX_OK)
        utimensat(AT_FDCWD, path, NULL, 0); /* recently used: pruned last */
    else if (rc != KIX_ENOTFOUND && rc != KIX_ENOMEM)
        unlink(path); /* short, damaged or too large: read again from the network */
    kix_buf_release(&b);
    return rc == KIX_OK ? KIX_OK : KIX_ENOTFOUND;
}

int http_cache_has(struct http_cache *c, const char *rel)
{
    char path[PATH_CAP];
    return file_path(c, rel, path, sizeof(path)) == KIX_OK && access(path, F_OK) == 0;
}

void http_cache_put(struct http_cache *c, const char *rel, const uint8_t *bytes, size_t len)
{
    struct kix_file_tree tree = {c->dir, 0600, ""};
    struct kix_buf b = KIX_BUF_INIT;
    char path[PATH_CAP];
    uint8_t sum[32];

    if (file_path(c, rel, path, sizeof(path)) != KIX_OK)
        return;
    kix_sha256(bytes, len, sum);
    if (kix_buf_add(&b, bytes, len) == KIX_OK && kix_buf_add(&b, sum, sizeof(sum)) == KIX_OK &&
        kix_dir_make(c->dir, 0700, NULL) == KIX_OK &&
        kix_file_tree_write(&tree, rel, b.ptr, b.len, 0, NULL) == KIX_OK)
        c->wrote = 1;
    kix_buf_release(&b);
}

void http_cache_drop(struct http_cache *c, const char *rel)
{
    char path[PATH_CAP];
    if (file_path(c, rel, path, sizeof(path)) == KIX_OK)
        unlink(path);
}

/* ---- the bound ------------------------------------------------------------------ */

struct cached_file {
    char *path;
    time_t used;
    off_t size;
};

/* nftw's callback takes no context: one walk at a time in a process */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct cached_file *files;
    size_t n, cap;
    unsigned long long total;
} walk;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    struct cached_file *f;

    (void)ftw;
    if (type != FTW_F)
        return 0;
    f = kix_array_grow(walk.files, &walk.cap, walk.n, 256, sizeof(*f));
    if (!f)
        return 1;
    walk.files = f;
    if (!(walk.files[walk.n].path = strdup(path)))
        return 1;
    walk.files[walk.n].used = st->st_mtime;
    walk.files[walk.n].size = st->st_size;
    walk.total += (unsigned long long)st->st_size;
    walk.n++;
    return 0;
}

static int oldest_first(const void *a, const void *b)
{
    const struct cached_file *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* Removes the least recently used files of root until it holds at most
 * three quarters of the bound, when it holds more than the bound. */
static void prune(const char *root)
{
    const char *env = getenv("KIX_CACHE_MAX_MB");
    unsigned long long max = (env && *env ? strtoull(env, NULL, 10) : DEFAULT_MAX_MB) << 20;

    pthread_mutex_lock(&walk_lock);
    memset(&walk, 0, sizeof(walk));
    if (nftw(root, collect, 16, FTW_PHYS) == 0 && walk.total > max) {
        qsort(walk.files, walk.n, sizeof(*walk.files), oldest_first);
        for (size_t i = 0; i < walk.n && walk.total > max / 4 * 3; i++)
            if (unlink(walk.files[i].path) == 0 || errno == ENOENT)
                walk.total -= (unsigned long long)walk.files[i].size;
    }
    for (size_t i = 0; i < walk.n; i++)
        free(walk.files[i].path);
    free(walk.files);
    memset(&walk, 0, sizeof(walk));
    pthread_mutex_unlock(&walk_lock);
}

void http_cache_close(struct http_cache *c)
{
    if (!c)
        return;
    if (c->wrote)
        prune(c->root);
    free(c);
}
