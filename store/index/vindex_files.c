/* The verifiable index as files (kix/vindex.h, proto/PROTOCOL.md §3.2): what
 * kixd --http serves and an export writes under index/, so that a reader of
 * a static copy proves any index record at the copy's checkpoint itself.
 * Tiles and values are named by their content (a tile by the hash of the
 * subtree at its top, a value by its hash), so every file is immutable and
 * a reader racing an export never sees two trees mixed; only the notes are
 * new per size. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_internal.h"
#include "kix/encoding.h"
#include "kix/file.h"
#include "kix/vindex.h"

int kix_index_tile(struct kix_log_reader *r, const uint8_t *key, size_t klen, struct kix_buf *out,
                   struct kix_err *err)
{
    struct kix_smt_tiles tiles;
    struct kix_bytes v;
    int rc;

    kix__smt_tiles(&tiles, kix_log_reader_txn(r));
    rc = tiles.get(tiles.ctx, key, klen, &v, err);
    if (rc == KIX_OK && kix_buf_add(out, v.ptr, v.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_smt_tiles_release(&tiles);
    return rc;
}

int kix_index_value(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                    struct kix_err *err)
{
    return kix__vindex_value(kix_log_reader_txn(r), key, len, out, err);
}

int kix_index_file_tile_path(const uint8_t *key, size_t klen, const struct kix_hash *top, char *out,
                             size_t cap)
{
    char hk[2 * KIX_SMT_TILE_KEY_MAX + 1], hh[2 * KIX_HASH_LEN + 1];

    if (klen > KIX_SMT_TILE_KEY_MAX)
        return KIX_EINVAL;
    kix_hex_encode(key, klen, hk);
    kix_hex_encode(top->b, KIX_HASH_LEN, hh);
    return (size_t)snprintf(out, cap, "index/tile/%s/%s", hk, hh) < cap ? KIX_OK : KIX_ELIMIT;
}

int kix_index_file_value_path(const char *key, size_t len, const struct kix_hash *value_hash,
                              char *out, size_t cap)
{
    char hh[2 * KIX_HASH_LEN + 1];

    kix_hex_encode(value_hash->b, KIX_HASH_LEN, hh);
    return (size_t)snprintf(out, cap, "index/value/%.*s@%s", (int)len, key, hh) < cap ? KIX_OK
                                                                                      : KIX_ELIMIT;
}

/* ---- export ------------------------------------------------------------------------ */

struct wanted {
    struct kix_hash path, value_hash;
};

struct index_export {
    struct kix_log_reader *r;
    struct kix_smt_tiles tiles;
    struct kix_file_tree tree; /* the export directory (synced by the caller) */
    struct kix_index_export_stats *st;
    struct wanted *want; /* leaves of the tiles written, whose values to write */
    size_t nwant, capwant;
    struct kix_buf value;
    int distrust; /* an export was cut short: a file that exists proves nothing */
    struct kix_err *err;
};

/* Where an export in progress is marked (export_marker_path()). */
#define EXPORTING "index/exporting"

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Writes rel; once an export was cut short, a file already holding the
 * bytes is left as it is. */
static int write_file(struct index_export *x, const char *rel, const void *data, size_t len)
{
    char path[4200];
    int rc;

    if (x->distrust &&
        (size_t)snprintf(path, sizeof(path), "%s/%s", x->tree.dir, rel) < sizeof(path) &&
        kix_file_holds(path, data, len))
        return KIX_OK;
    rc = kix_file_tree_write(&x->tree, rel, data, len, 0, x->err);
    if (rc == KIX_OK) {
        x->st->files++;
        x->st->bytes += len;
    }
    return rc;
}

static int want_leaves(struct index_export *x, const uint8_t *v, size_t len)
{
    for (size_t off = 2; off + KIX_SMT_RECORD_LEN <= len; off += KIX_SMT_RECORD_LEN) {
        if (v[off] != 0x02)
            continue;
        if (x->nwant == x->capwant) {
            size_t cap = x->capwant ? 2 * x->capwant : 256;
            struct wanted *w = realloc(x->want, cap * sizeof(*w));
            if (!w)
                return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
            x->want = w;
            x->capwant = cap;
        }
        memcpy(x->want[x->nwant].path.b, v + off + 1, KIX_HASH_LEN);
        memcpy(x->want[x->nwant++].value_hash.b, v + off + 1 + KIX_HASH_LEN, KIX_HASH_LEN);
    }
    return KIX_OK;
}

/* The tile of stratum s on prefix and, first, every child tile not
 * exported yet: after an export that finished, a tile's file exists only
 * once all below it do, so an existing file ends the walk (same name,
 * same subtree). Not after one cut short (a power cut may keep a tile
 * and lose a child written beside it, unsynced): then the whole tree is
 * walked and every file compared. */
static int export_tile(struct index_export *x, unsigned s, uint8_t prefix[KIX_HASH_LEN])
{
    uint8_t key[KIX_SMT_TILE_KEY_MAX], *copy = NULL;
    char rel[256], path[4200];
    struct kix_hash top, child;
    struct kix_bytes v;
    size_t klen = kix_smt_tile_key(s, prefix, key);
    int rc = x->tiles.get(x->tiles.ctx, key, klen, &v, x->err);

    if (rc == KIX_ENOTFOUND && s == 0)
        return KIX_OK; /* an empty tree */
    if (rc)
        return rc;
    if (kix_smt_tile_top_hash(v.ptr, v.len, &top) != KIX_OK ||
        kix_index_file_tile_path(key, klen, &top, rel, sizeof(rel)) != KIX_OK)
        return kix_err_set(x->err, KIX_ECORRUPT, "a tile of the index tree is malformed");
    snprintf(path, sizeof(path), "%s/%s", x->tree.dir, rel);
    if (!x->distrust && exists(path))
        return KIX_OK;
    copy = malloc(v.len);
    if (!copy)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    memcpy(copy, v.ptr, v.len);
    rc = want_leaves(x, copy, v.len);
    for (unsigned b = 0; rc == KIX_OK && s + 1 < KIX_SMT_DEPTH / KIX_SMT_TILE_LEVELS + 1 && b < 16;
         b++) {
        uint8_t saved = prefix[s / 2];
        prefix[s / 2] = (uint8_t)(s % 2 ? (saved & 0xf0) | b : (saved & 0x0f) | b << 4);
        rc = kix_smt_tile_child_hash(copy, v.len, s, prefix, &child);
        if (rc == KIX_ENOTFOUND || rc == KIX_EINVAL)
            rc = KIX_OK; /* no tile below there */
        else if (rc == KIX_OK)
            rc = export_tile(x, s + 1, prefix);
        prefix[s / 2] = saved;
    }
    if (rc == KIX_OK)
        rc = write_file(x, rel, copy, v.len);
    if (rc == KIX_OK)
        x->st->tiles++;
    free(copy);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct wanted));
}

/* Each key whose leaf a new tile holds: its value, named by its hash. */
static int export_value(void *ctx, const char *key, size_t len, const struct kix_hash *value_hash)
{
    struct index_export *x = ctx;
    struct wanted w;
    char rel[512];
    int rc;

    kix_smt_path(key, len, &w.path);
    w.value_hash = *value_hash;
    if (!bsearch(&w, x->want, x->nwant, sizeof(w), by_path))
        return 0;
    if (kix_index_file_value_path(key, len, value_hash, rel, sizeof(rel)) != KIX_OK)
        return 0; /* a key too long to be a file name: its proof still works by kixd */
    kix_buf_reset(&x->value);
    rc = kix_index_value(x->r, key, len, &x->value, x->err);
    if (rc == KIX_OK)
        rc = write_file(x, rel, x->value.ptr, x->value.len);
    if (rc == KIX_OK)
        x->st->values++;
    return rc;
}

int kix_index_export(struct kix_log_reader *r, const char *dir, struct kix_index_export_stats *st,
                     struct kix_err *err)
{
    struct kix_index_export_stats local;
    struct index_export x;
    struct kix_buf note = KIX_BUF_INIT;
    uint8_t prefix[KIX_HASH_LEN] = {0};
    uint64_t size = kix_log_reader_size(r);
    char rel[64], path[4200], marker[4200];
    int rc;

    memset(&x, 0, sizeof(x));
    x.st = st ? st : &local;
    memset(x.st, 0, sizeof(*x.st));
    x.r = r;
    x.tree.dir = dir;
    x.tree.mode = 0644;
    x.err = err;
    kix_buf_init(&x.value);
    rc = kix_log_reader_index_note_cosigned(r, size, &note, NULL);
    if (rc == KIX_ENOTFOUND || size == 0)
        goto done; /* no index (a plain log): nothing to export */
    snprintf(rel, sizeof(rel), "index/notes/%llu", (unsigned long long)size);
    if ((size_t)snprintf(marker, sizeof(marker), "%s/%s", dir, EXPORTING) >= sizeof(marker) ||
        (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path)) {
        rc = kix_err_set(err, KIX_EINVAL, "export path %.200s... is too long", dir);
        goto done;
    }
    x.distrust = exists(marker);
    if (!x.distrust && exists(path))
        goto done; /* exported at this size already */
    /* the mark is durable before the first file, and goes only once all
     * are synced: while it is there, no file written since proves its
     * subtree */
    if (!x.distrust) {
        rc = kix_file_tree_write(&x.tree, EXPORTING, "", 0, 1, err);
        if (rc)
            goto done;
    }
    kix__smt_tiles(&x.tiles, kix_log_reader_txn(r));
    rc = export_tile(&x, 0, prefix);
    kix_smt_tiles_release(&x.tiles);
    if (rc == KIX_OK && x.nwant) {
        qsort(x.want, x.nwant, sizeof(*x.want), by_path);
        rc = kix_index_each_key(kix_log_reader_txn(r), export_value, &x, err);
    }
    /* last: the note names a root whose tiles are all there */
    if (rc == KIX_OK)
        rc = write_file(&x, rel, note.ptr, note.len);
    if (rc == KIX_OK)
        rc = kix_dir_sync(dir, err);
    if (rc == KIX_OK && unlink(marker) != 0)
        rc = kix_err_set(err, KIX_EIO, "removing %s: %s", marker, strerror(errno));
done:
    x.st->size = size;
    kix_buf_release(&note);
    kix_buf_release(&x.value);
    free(x.want);
    return rc;
}
