/* kix audit, third part, for a static copy (http(s)://): every file the
 * copy serves to others, against the log the audit replayed.
 *
 * The replay reads what it needs to rebuild the log (entry bundles, each
 * checked into the tree; object packs, whose wrong objects it fetches
 * again by digest) and the proofs ask only the tiles they need, often
 * folding upper nodes from lower tiles. Readers of the copy (browsers,
 * other tlog-tiles clients, mirrors) read the other files too, so an
 * auditor of a copy fetches every hash tile of every level (full and the
 * right edge's partial one), every object pack and every index tile and
 * record (where the copy's tiles locate them: its own packs, which differ
 * from any one export's), and compares each byte for byte with what the
 * replica makes of them (the log's own bytes: kix/tlog_tiles.h,
 * kix/vindex.h). A difference names the file. The right edge's narrower tiles and bundles, which
 * readers at older checkpoints read, are compared where the copy serves
 * them. Every audit checks them all again: a copy's files may change
 * after an audit saw them. */
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

/* The index (PROTOCOL.md §3.2, "Index packs"): every tile and record of
 * the replica's tree at this size, each read from the copy as its readers
 * read it (the root tile by name, the rest where the tile above locates
 * it: a pack, or by name) and compared with the replica's. The copy's
 * packs differ from any one export's (each export packs what it added),
 * so the tree is compared, not the files. */
#define IPACKS 64
struct index_audit {
    struct kix_client *c;
    struct kix_log_reader *r;
    uint64_t *files;
    struct {
        char name[96];
        struct kix_buf bytes;
    } pack[IPACKS];
    unsigned next;
    struct keyed *keys; /* every key by path: a record is read by its key */
    size_t nkeys, capkeys;
    struct kix_buf want, copy;
    struct kix_err *err;
};

struct keyed {
    struct kix_hash path;
    char *key;
    size_t len;
};

static int by_path(const void *a, const void *b)
{
    return memcmp(a, b, KIX_HASH_LEN);
}

static int collect_key(void *ctx, const char *key, size_t len, const struct kix_hash *value_hash)
{
    struct index_audit *x = ctx;
    struct keyed *k;

    (void)value_hash;
    k = kix_array_grow(x->keys, &x->capkeys, x->nkeys, 1024, sizeof(*k));
    if (!k)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    x->keys = k;
    kix_smt_path(key, len, &x->keys[x->nkeys].path);
    if (!(x->keys[x->nkeys].key = malloc(len + 1)))
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    memcpy(x->keys[x->nkeys].key, key, len);
    x->keys[x->nkeys].key[len] = 0;
    x->keys[x->nkeys++].len = len;
    return 0;
}

/* The copy's pack `name` (kept: a subtree's tiles are mostly in one). */
static int audit_pack(struct index_audit *x, const char *name, const struct kix_buf **out)
{
    struct kix_err gerr = {0};
    int rc;

    for (unsigned i = 0; i < IPACKS; i++)
        if (x->pack[i].bytes.len && strcmp(x->pack[i].name, name) == 0) {
            *out = &x->pack[i].bytes;
            return KIX_OK;
        }
    unsigned at = x->next++ % IPACKS;
    kix_buf_reset(&x->pack[at].bytes);
    snprintf(x->pack[at].name, sizeof(x->pack[at].name), "%s", name);
    rc = kix_client_file(x->c, name, KIX_INDEX_PACK_MAX, &x->pack[at].bytes, &gerr);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(x->err, KIX_EVERIFY,
                           "%s serves no %s, which its index tiles name: readers of the copy "
                           "cannot verify against it",
                           kix_client_where(x->c), name);
    if (rc) {
        kix_buf_reset(&x->pack[at].bytes);
        *x->err = gerr;
        return rc;
    }
    *out = &x->pack[at].bytes;
    return KIX_OK;
}

/* What the copy holds where a locator (or, without one, the name) says:
 * the tile (with its locators) or the record, into x->copy. */
static int audit_fetch(struct index_audit *x, const char *byname, const char *packname,
                       const uint8_t *key, size_t klen, const struct kix_hash *top,
                       const struct kix_hash *vh)
{
    const struct kix_buf *p = NULL;
    struct kix_bytes got;
    struct kix_err gerr = {0};
    int rc;

    kix_buf_reset(&x->copy);
    if (!packname[0]) {
        rc = kix_client_file(x->c, byname, KIX_INDEX_PACK_MAX, &x->copy, &gerr);
        return rc ? compare_got(x->c, byname, rc, &x->copy, &gerr, &x->want, 0, x->files, x->err)
                  : KIX_OK;
    }
    rc = audit_pack(x, packname, &p);
    if (rc)
        return rc;
    rc = top ? kix_index_pack_tile(p->ptr, p->len, key, klen, top, &x->copy)
             : kix_index_pack_value(p->ptr, p->len, vh, &got);
    if (rc == KIX_ENOMEM)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    if (rc)
        return kix_err_set(x->err, KIX_EVERIFY,
                           "%s serves a %s that is not the log's: it holds no %s its index tiles "
                           "locate there",
                           kix_client_where(x->c), packname, byname);
    return top || kix_buf_add(&x->copy, got.ptr, got.len) == KIX_OK
               ? KIX_OK
               : kix_err_set(x->err, KIX_ENOMEM, "out of memory");
}

static int audit_same(struct index_audit *x, const char *what, const char *where, size_t len)
{
    if (len == x->want.len && memcmp(x->copy.ptr, x->want.ptr, len) == 0)
        return KIX_OK;
    return kix_err_set(x->err, KIX_EVERIFY,
                       "%s serves a %s that is not the log's: its %s differs from the replayed "
                       "log's",
                       kix_client_where(x->c), where, what);
}

static int audit_tile(struct index_audit *x, unsigned s, uint8_t prefix[KIX_HASH_LEN],
                      const uint8_t *parent, size_t plen)
{
    uint8_t key[KIX_SMT_TILE_KEY_MAX], *mine = NULL;
    size_t klen = kix_smt_tile_key(s, prefix, key), tlen, mlen;
    struct kix_hash top;
    struct kix_index_ref ref;
    char name[256], packname[96] = "";
    int rc;

    kix_buf_reset(&x->want);
    rc = kix_index_tile(x->r, key, klen, &x->want, x->err);
    if (rc)
        return rc == KIX_ENOTFOUND ? KIX_OK : rc;
    if (kix_smt_tile_top_hash(x->want.ptr, x->want.len, &top) != KIX_OK ||
        kix_index_file_tile_path(key, klen, &top, name, sizeof(name)) != KIX_OK)
        return kix_err_set(x->err, KIX_ECORRUPT, "a tile of the replica's index is malformed");
    if (parent) {
        unsigned nib = (s - 1) % 2 ? prefix[(s - 1) / 2] & 0x0fu : prefix[(s - 1) / 2] >> 4;
        if (kix_index_tile_locator(parent, plen, nib, &ref) == KIX_OK &&
            kix_index_file_pack_path(&ref, packname, sizeof(packname)) != KIX_OK)
            packname[0] = 0;
    }
    rc = audit_fetch(x, name, packname, key, klen, &top, NULL);
    if (rc)
        return rc;
    tlen = kix_index_tile_len(x->copy.ptr, x->copy.len);
    if (!tlen)
        return kix_err_set(x->err, KIX_EVERIFY, "%s serves a %s that is not the log's: not a tile",
                           kix_client_where(x->c), packname[0] ? packname : name);
    if ((rc = audit_same(x, name, packname[0] ? packname : name, tlen)) != KIX_OK)
        return rc;
    ++*x->files;
    mlen = x->copy.len;
    if (!(mine = malloc(mlen)))
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    memcpy(mine, x->copy.ptr, mlen);
    /* the records of its leaves */
    for (int slot = 0; rc == KIX_OK && slot < KIX_SMT_TILE_SLOTS; slot++) {
        unsigned bits = (unsigned)mine[0] << 8 | mine[1], n = 0;
        const uint8_t *rec;
        struct keyed want, *k;
        struct kix_hash vh;
        char vname[1200];
        if (!(bits & (0x8000u >> slot)))
            continue;
        for (int i = 0; i < slot; i++)
            n += (bits >> (15 - i)) & 1u;
        rec = mine + 2 + n * KIX_SMT_RECORD_LEN;
        if (rec[0] != 0x02)
            continue;
        memcpy(want.path.b, rec + 1, KIX_HASH_LEN);
        memcpy(vh.b, rec + 1 + KIX_HASH_LEN, KIX_HASH_LEN);
        k = bsearch(&want, x->keys, x->nkeys, sizeof(want), by_path);
        if (!k || kix_index_file_value_path(k->key, k->len, &vh, vname, sizeof(vname)) != KIX_OK)
            continue; /* a key too long to name a file: no reader reads it from a copy */
        packname[0] = 0;
        if (kix_index_tile_locator(mine, mlen, 0x10u + (unsigned)slot, &ref) == KIX_OK &&
            kix_index_file_pack_path(&ref, packname, sizeof(packname)) != KIX_OK)
            packname[0] = 0;
        kix_buf_reset(&x->want);
        rc = kix_index_value(x->r, k->key, k->len, &x->want, x->err);
        if (rc == KIX_OK)
            rc = audit_fetch(x, vname, packname, NULL, 0, NULL, &vh);
        if (rc == KIX_OK)
            rc = audit_same(x, vname, packname[0] ? packname : vname, x->copy.len);
        if (rc == KIX_OK)
            ++*x->files;
    }
    for (unsigned b = 0; rc == KIX_OK && s + 1 < KIX_SMT_DEPTH / KIX_SMT_TILE_LEVELS + 1 && b < 16;
         b++) {
        uint8_t saved = prefix[s / 2];
        struct kix_hash child;
        prefix[s / 2] = (uint8_t)(s % 2 ? (saved & 0xf0) | b : (saved & 0x0f) | b << 4);
        if (kix_smt_tile_child_hash(mine, kix_index_tile_len(mine, mlen), s, prefix, &child) ==
            KIX_OK)
            rc = audit_tile(x, s + 1, prefix, mine, mlen);
        prefix[s / 2] = saved;
    }
    free(mine);
    return rc;
}

static int check_index(struct kix_client *c, struct kix_log_reader *r, const char *scratch,
                       uint64_t size, uint64_t *files, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct index_audit x;
    uint8_t prefix[KIX_HASH_LEN] = {0};
    char name[64];
    int rc;

    (void)scratch;
    /* a copy without index files (an export by an older kixd) serves none
     * to check: its readers fall back to the entries */
    snprintf(name, sizeof(name), "index/notes/%llu", (unsigned long long)size);
    rc = kix_client_file(c, name, 1u << 20, &note, NULL);
    kix_buf_release(&note);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    memset(&x, 0, sizeof(x));
    x.c = c;
    x.r = r;
    x.files = files;
    x.err = err;
    rc = kix_index_each_key(kix_log_reader_txn(r), collect_key, &x, err);
    if (rc == KIX_OK) {
        qsort(x.keys, x.nkeys, sizeof(*x.keys), by_path);
        rc = audit_tile(&x, 0, prefix, NULL, 0);
    }
    for (size_t i = 0; i < x.nkeys; i++)
        free(x.keys[i].key);
    free(x.keys);
    for (unsigned i = 0; i < IPACKS; i++)
        kix_buf_release(&x.pack[i].bytes);
    kix_buf_release(&x.want);
    kix_buf_release(&x.copy);
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
