/* kix audit, third part, for a static copy (http(s)://): every file the
 * copy serves to others, against the log the audit replayed.
 *
 * The replay reads what it needs to rebuild the log (entry bundles, each
 * checked into the tree; object packs, whose wrong objects it fetches
 * again by digest) and the proofs ask only the tiles they need, often
 * folding upper nodes from lower tiles. Readers of the copy (browsers,
 * other tlog-tiles clients, mirrors) read the other files too, so an
 * auditor of a copy fetches every hash tile of every level (full and the
 * right edge's partial one), every object pack and every index file, and
 * compares each byte for byte with what the replica makes of them (the
 * log's own bytes: kix/tlog_tiles.h, kix_index_export). A difference
 * names the file. The right edge's narrower tiles and bundles, which
 * readers at older checkpoints read, are compared where the copy serves
 * them. Every audit checks them all again: a copy's files may change
 * after an audit saw them. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/file.h"
#include "kix/log.h"
#include "kix/object_pack.h"
#include "kix/tlog_tiles.h"
#include "kix/vindex.h"

/* Judges the copy's answer for `path` (rc, got; gerr its error) against
 * `want`: KIX_EVERIFY naming the file when it differs; a file it does not
 * serve is KIX_EVERIFY too unless `optional` has bit 1; bit 2 takes a
 * longer file that starts with `want` (a wider partial tile or bundle
 * for a narrower one). *files counts those equal. */
static int compare_got(struct kix_client *c, const char *path, int rc, const struct kix_buf *got,
                       const struct kix_err *gerr, const struct kix_buf *want, int optional,
                       uint64_t *files, struct kix_err *err)
{
    size_t at = 0;

    if (rc == KIX_ENOTFOUND && optional)
        return KIX_OK;
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EVERIFY,
                           "%s serves no %s, a file of the log at this size: readers of the copy "
                           "cannot verify against it",
                           kix_client_where(c), path);
    if (rc == KIX_ELIMIT)
        return kix_err_set(err, KIX_EVERIFY, "%s serves %s longer than the log's %zu bytes",
                           kix_client_where(c), path, want->len);
    if (rc) {
        if (err && gerr)
            *err = *gerr;
        return rc;
    }
    if (got->len == want->len && (!want->len || memcmp(got->ptr, want->ptr, want->len) == 0)) {
        ++*files;
        return KIX_OK;
    }
    /* a narrower partial tile or bundle answered with a wider one (as a
     * server may): right when it starts with the log's bytes */
    if ((optional & 2) && got->len > want->len && memcmp(got->ptr, want->ptr, want->len) == 0) {
        ++*files;
        return KIX_OK;
    }
    while (at < got->len && at < want->len &&
           ((const uint8_t *)got->ptr)[at] == ((const uint8_t *)want->ptr)[at])
        at++;
    rc = kix_err_set(err, KIX_EVERIFY,
                     "%s serves a %s that is not the log's: %zu bytes where the replayed log has "
                     "%zu, the first difference at byte %zu",
                     kix_client_where(c), path, got->len, want->len, at);
    int hash_tile = strncmp(path, "tile/", 5) == 0 && strncmp(path, "tile/entries/", 13) != 0;

    if (hash_tile && err) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof(err->msg) - n, " (hash %zu of the tile)", at / 32);
    }
    return rc;
}

static int compare_file(struct kix_client *c, const char *path, const struct kix_buf *want,
                        int optional, uint64_t *files, struct kix_err *err)
{
    struct kix_buf got = KIX_BUF_INIT;
    struct kix_err gerr = {0};
    /* an optional (narrower) file may come wider: room for a full tile */
    int rc = kix_client_file(c, path, (optional & 2) ? want->len + (1u << 24) : want->len + 1, &got,
                             &gerr);

    rc = compare_got(c, path, rc, &got, &gerr, want, optional, files, err);
    kix_buf_release(&got);
    return rc;
}

/* Every hash tile of every level at `size` that holds a node over an
 * entry at or after `first`. */
static int check_tiles(struct kix_client *c, struct kix_log_reader *r, uint64_t first,
                       uint64_t size, uint64_t *files, struct kix_err *err)
{
    struct kix_buf want = KIX_BUF_INIT;
    int rc = KIX_OK;

    for (uint32_t level = 0; rc == KIX_OK && level <= KIX_TLOG_MAX_LEVEL; level++) {
        /* entries under one tile of this level: 256^(level+1), capped */
        unsigned shift = 8u * (level + 1);
        uint64_t k = shift >= 64 ? 0 : first >> shift;
        unsigned width;

        if (kix_tlog_tile_width(size, level, 0) == 0)
            break;
        for (; rc == KIX_OK && (width = kix_tlog_tile_width(size, level, k)) != 0; k++) {
            struct kix_tlog_path p = {KIX_TLOG_TILE, level, k, width};
            char path[KIX_TLOG_PATH_MAX + 1];
            kix_buf_reset(&want);
            rc = kix_tlog_path_format(&p, path, sizeof(path));
            if (rc)
                rc = kix_err_set(err, rc, "tile %u/%llu: no path", level, (unsigned long long)k);
            if (rc == KIX_OK)
                rc = kix_log_reader_tlog_tile(r, level, k, width, &want, err);
            if (rc == KIX_OK)
                rc = compare_file(c, path, &want, 0, files, err);
            /* the narrower widths of a partial tile (and, at level 0, of
             * its bundle), which older checkpoints name: served or not */
            for (unsigned w = 1; rc == KIX_OK && width < KIX_TLOG_WIDTH && w < width; w++) {
                for (int bundle = 0; rc == KIX_OK && bundle <= (level == 0); bundle++) {
                    struct kix_tlog_path q = {bundle ? KIX_TLOG_ENTRIES : KIX_TLOG_TILE, level, k,
                                              w};
                    kix_buf_reset(&want);
                    rc = kix_tlog_path_format(&q, path, sizeof(path));
                    if (rc)
                        rc = kix_err_set(err, rc, "tile %u/%llu: no path", level,
                                         (unsigned long long)k);
                    if (rc == KIX_OK)
                        rc = bundle ? kix_log_reader_tlog_bundle(r, k, w, &want, err)
                                    : kix_log_reader_tlog_tile(r, level, k, w, &want, err);
                    if (rc == KIX_OK) /* may be missing, or wider */
                        rc = compare_file(c, path, &want, 3, files, err);
                }
            }
        }
    }
    kix_buf_release(&want);
    return rc;
}

/* The object pack of each full entry bundle from `first` on (a copy
 * without packs, as older exports are, serves none: that is allowed). */
static int check_packs(struct kix_client *c, struct kix_log_reader *r, uint64_t first,
                       uint64_t size, uint64_t *files, struct kix_err *err)
{
    struct kix_buf want = KIX_BUF_INIT;
    int rc = KIX_OK;

    for (uint64_t k = first / KIX_TLOG_WIDTH; rc == KIX_OK && k < size / KIX_TLOG_WIDTH; k++) {
        char path[KIX_OBJECT_PACK_PATH_MAX + 1];
        kix_buf_reset(&want);
        rc = kix_object_pack_path(k, path, sizeof(path));
        if (rc)
            rc = kix_err_set(err, rc, "pack %llu: no path", (unsigned long long)k);
        if (rc == KIX_OK) {
            rc = kix_log_reader_object_pack(r, k, &want, err);
            if (rc == KIX_ELIMIT || rc == KIX_ENOTFOUND) { /* the log makes none */
                rc = KIX_OK;
                continue;
            }
        }
        if (rc == KIX_OK)
            rc = compare_file(c, path, &want, 1, files, err);
    }
    kix_buf_release(&want);
    return rc;
}

/* The index files the replica's export makes (paths relative to the
 * scratch directory), then each against the copy's, fetched in batches. */
static struct {
    size_t root_len;
    char **paths;
    size_t n, cap;
    int rc;
} walk;

static int index_file(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
    const char *rel = fpath + walk.root_len + 1;

    (void)sb;
    (void)ftw;
    /* the note carries the cosignatures the copy was given: its checkpoint
     * is verified as every reader verifies it; "exporting" is a mark */
    if (type != FTW_F || strncmp(rel, "index/notes/", 12) == 0 ||
        strcmp(rel, "index/exporting") == 0)
        return 0;
    if (walk.n == walk.cap) {
        size_t cap = walk.cap ? 2 * walk.cap : 256;
        char **p = realloc(walk.paths, cap * sizeof(*p));
        if (!p)
            return walk.rc = KIX_ENOMEM, 1;
        walk.paths = p;
        walk.cap = cap;
    }
    if (!(walk.paths[walk.n] = strdup(rel)))
        return walk.rc = KIX_ENOMEM, 1;
    walk.n++;
    return 0;
}

struct index_cmp {
    struct kix_client *c;
    const char *scratch;
    uint64_t *files;
};

static int index_item(void *ctx, size_t i, int rc, struct kix_buf *got, struct kix_err *err)
{
    struct index_cmp *x = ctx;
    struct kix_buf want = KIX_BUF_INIT;
    struct kix_err gerr = *err;
    char path[4400];

    snprintf(path, sizeof(path), "%s/%s", x->scratch, walk.paths[i]);
    if (kix_file_read(path, 64u << 20, &want, err) != KIX_OK)
        rc = err->code ? err->code : KIX_EIO;
    else
        rc = compare_got(x->c, walk.paths[i], rc, got, &gerr, &want, 0, x->files, err);
    kix_buf_release(&want);
    return rc;
}

static int check_index(struct kix_client *c, struct kix_log_reader *r, const char *scratch,
                       uint64_t size, uint64_t *files, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    char path[4400], name[64];
    int rc;

    /* a copy without index files (an export by an older kixd) serves none
     * to check: its readers fall back to the entries */
    snprintf(name, sizeof(name), "index/notes/%llu", (unsigned long long)size);
    rc = kix_client_file(c, name, 1u << 20, &note, NULL);
    kix_buf_release(&note);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    rc = kix_dir_remove_tree(scratch, err);
    if (rc == KIX_OK)
        rc = kix_dir_make(scratch, 0700, err);
    if (rc == KIX_OK)
        rc = kix_index_export(r, scratch, NULL, err);
    if (rc == KIX_OK) {
        struct index_cmp x = {c, scratch, files};
        snprintf(path, sizeof(path), "%s/index", scratch);
        memset(&walk, 0, sizeof(walk));
        walk.root_len = strlen(scratch);
        if (access(path, F_OK) == 0 && nftw(path, index_file, 16, FTW_PHYS) != 0)
            rc = kix_err_set(err, walk.rc ? walk.rc : KIX_EIO, "cannot list %s", path);
        if (rc == KIX_OK && walk.n)
            rc = kix_client_files(c, (const char *const *)walk.paths, walk.n, 64u << 20, index_item,
                                  &x, err);
        for (size_t i = 0; i < walk.n; i++)
            free(walk.paths[i]);
        free(walk.paths);
        memset(&walk, 0, sizeof(walk));
    }
    {
        struct kix_err ignore = {0};
        if (kix_dir_remove_tree(scratch, &ignore) != KIX_OK)
            rc = rc ? rc : KIX_OK; /* a scratch left behind is removed next time */
    }
    return rc;
}

int audit_files(struct kix_client *c, struct kix_log *replica, const char *scratch, uint64_t first,
                uint64_t size, uint64_t *files, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    struct kix_buf probe = KIX_BUF_INIT;
    int rc = kix_client_file(c, "checkpoint", 1u << 20, &probe, NULL);

    kix_buf_release(&probe);
    *files = 0;
    if (rc == KIX_ENOTSUP)
        return KIX_OK; /* a kixd's RPC or a store: no files of its own */
    rc = kix_log_read_begin(replica, &r);
    if (rc)
        return kix_err_set(err, rc, "cannot read the replica: %s", kix_strerror(rc));
    if (kix_log_reader_size(r) != size)
        rc = kix_err_set(err, KIX_EIO, "the replica holds %llu entries, not %llu",
                         (unsigned long long)kix_log_reader_size(r), (unsigned long long)size);
    if (rc == KIX_OK)
        rc = check_tiles(c, r, first, size, files, err);
    if (rc == KIX_OK)
        rc = check_packs(c, r, first, size, files, err);
    if (rc == KIX_OK)
        rc = check_index(c, r, scratch, size, files, err);
    kix_log_read_end(r);
    return rc;
}
