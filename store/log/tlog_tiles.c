/* The log as a C2SP tlog-tiles tree: resources read from a snapshot, and
 * the static export (kix/tlog_tiles.h). */
#include "kix/tlog_tiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kix/entry.h"
#include "kix/file.h"
#include "kix/object_pack.h"
#include "log_internal.h"

#define ULL unsigned long long

int kix_log_reader_tlog_tile(struct kix_log_reader *r, uint32_t level, uint64_t index,
                             unsigned width, struct kix_buf *out, struct kix_err *err)
{
    struct kix_log_txn *t = kix_log_reader_txn(r);
    struct kix__tile_ctx ctx = {t->store, t->txn, 1, 0}; /* a reader's snapshot */
    struct kix_tile_io io;
    struct kix_bytes rec;
    unsigned have = kix_tlog_tile_width(kix_log_reader_size(r), level, index), stored;
    int rc;

    if (width < 1 || width > KIX_TLOG_WIDTH || width > have)
        return kix_err_set(err, KIX_ENOTFOUND, "tile %u/%llu of width %u is not in the tree", level,
                           (ULL)index, width);
    kix__tile_io_init(&io, &ctx);
    rc = io.read(io.ctx, level, index, &rec, err);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_ECORRUPT, "tile %u/%llu is missing from the store at size %llu",
                           level, (ULL)index, (ULL)kix_log_reader_size(r));
    if (rc)
        return rc;
    stored = rec.len >= 2 ? ((unsigned)rec.ptr[0] << 8 | rec.ptr[1]) : 0;
    if (stored < have || rec.len < 2 + (size_t)KIX_HASH_LEN * stored)
        return kix_err_set(err, KIX_ECORRUPT,
                           "tile %u/%llu in the store has width %u, the tree needs %u", level,
                           (ULL)index, stored, have);
    rc = kix_buf_add(out, rec.ptr + 2, (size_t)KIX_HASH_LEN * width);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

int kix_log_reader_tlog_bundle(struct kix_log_reader *r, uint64_t index, unsigned width,
                               struct kix_buf *out, struct kix_err *err)
{
    unsigned have = kix_tlog_tile_width(kix_log_reader_size(r), 0, index);
    int rc;

    if (width < 1 || width > KIX_TLOG_WIDTH || width > have)
        return kix_err_set(err, KIX_ENOTFOUND, "entry bundle %llu of width %u is not in the log",
                           (ULL)index, width);
    for (unsigned i = 0; i < width; i++) {
        uint64_t e = index * KIX_TLOG_WIDTH + i;
        struct kix_bytes leaf;
        uint8_t len[2];

        rc = kix_log_reader_entry(r, e, &leaf);
        if (rc)
            return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                               "entry %llu cannot be read: %s", (ULL)e, kix_strerror(rc));
        if (leaf.len > 0xffff)
            return kix_err_set(err, KIX_ECORRUPT,
                               "entry %llu is %zu bytes, more than an entry bundle holds", (ULL)e,
                               leaf.len);
        len[0] = (uint8_t)(leaf.len >> 8);
        len[1] = (uint8_t)leaf.len;
        rc = kix_buf_add(out, len, 2);
        if (rc == KIX_OK)
            rc = kix_buf_add(out, leaf.ptr, leaf.len);
        if (rc)
            return kix_err_set(err, rc, "out of memory");
    }
    return KIX_OK;
}

int kix_log_reader_tlog(struct kix_log_reader *r, const struct kix_tlog_path *p,
                        struct kix_buf *out, struct kix_err *err)
{
    switch (p->kind) {
    case KIX_TLOG_CHECKPOINT:
        return kix_log_reader_checkpoint_cosigned(r, KIX_NO_INDEX, out, err);
    case KIX_TLOG_TILE:
        return kix_log_reader_tlog_tile(r, p->level, p->index, p->width, out, err);
    case KIX_TLOG_ENTRIES:
        return kix_log_reader_tlog_bundle(r, p->index, p->width, out, err);
    }
    return kix_err_set(err, KIX_EINVAL, "not a tlog-tiles resource");
}

/* ---- export ------------------------------------------------------------------------ */

struct exporter {
    struct kix_log *l;
    struct kix_log_reader *r;
    uint64_t size;
    struct kix_buf body;
    struct kix_tlog_export_stats *st;
    /* the partial tile last written per level (index 64: bundles) */
    uint64_t last_index[KIX_TLOG_MAX_LEVEL + 2];
    unsigned last_width[KIX_TLOG_MAX_LEVEL + 2];
    struct kix_file_tree tree; /* the export directory, where tiles and bundles go */
    /* an export's objects were cut short (OBJECTS_EXPORTING was left): an
     * object file that exists proves neither its bytes nor what it names */
    int distrust_objects;
    /* the store's full bundles and packs as files (kix_log_export_tlog_linked),
     * or NULL */
    const char *link_dir;
    struct kix_err *err;
    /* the objects this export has walked (open addressing on the digest's
     * first bytes, cap a power of 2): an object many runs share (a
     * workload, a protocol) is looked up once an export, not once a run
     * (5 stat calls an entry were 40% of them repeats) */
    uint8_t (*seen)[32];
    size_t nseen, capseen;
    /* the objects a layer above keeps in files of its own
     * (kix_log_export_tlog_linked), or NULL */
    kix_tlog_object_elsewhere elsewhere;
    void *elsewhere_ctx; /* the hook's */
    /* whether the pack of bundle pack_bundle is in the copy (pack_bundle
     * UINT64_MAX: none looked at yet) */
    uint64_t pack_bundle;
    int pack_there;
};

/* 1 when d was walked already this export; else 0 (and with `add`, it
 * is now). */
static int seen_object(struct exporter *x, const struct kix_digest *d, int add)
{
    uint64_t h;
    size_t i;
    static const uint8_t empty[32];

    if (!x->capseen && !add)
        return 0;
    if (add && (x->nseen + 1) * 2 > x->capseen) {
        size_t cap = x->capseen ? x->capseen * 2 : 1024;
        uint8_t(*t)[32] = calloc(cap, 32), (*old)[32] = x->seen;
        size_t oldcap = x->capseen;
        if (!t)
            return 0; /* no memo: the walk looks the object up again */
        x->seen = t;
        x->capseen = cap;
        x->nseen = 0;
        for (size_t k = 0; k < oldcap; k++)
            if (memcmp(old[k], empty, 32) != 0) {
                memcpy(&h, old[k], sizeof(h));
                for (i = h & (cap - 1); memcmp(t[i], empty, 32) != 0; i = (i + 1) & (cap - 1))
                    ;
                memcpy(t[i], old[k], 32);
                x->nseen++;
            }
        free(old);
    }
    memcpy(&h, d->b, sizeof(h));
    for (i = h & (x->capseen - 1); memcmp(x->seen[i], empty, 32) != 0;
         i = (i + 1) & (x->capseen - 1))
        if (memcmp(x->seen[i], d->b, 32) == 0)
            return 1;
    if (add && memcmp(d->b, empty, 32) != 0) {
        memcpy(x->seen[i], d->b, 32);
        x->nseen++;
    }
    return 0;
}

/* Puts rel, the body just made, in the copy as a hard link to file `name`
 * of x->link_dir when that file holds exactly these bytes (the store's
 * cache is trusted for nothing else: a damaged file is written over, never
 * linked); 1 when linked. */
static int link_body(struct exporter *x, const char *rel, const char *name)
{
    char src[4200];

    if (!x->link_dir ||
        (size_t)snprintf(src, sizeof(src), "%s/%s", x->link_dir, name) >= sizeof(src) ||
        !kix_file_tree_link(&x->tree, rel, src, x->body.ptr, x->body.len))
        return 0;
    x->st->linked++;
    return 1;
}

/* Marks an export writing objects: made durable before the first object
 * file, removed once they are synced (as index/exporting, vindex_files.c).
 * Object files are named by digest, so no object has this name. */
#define OBJECTS_EXPORTING "objects/exporting"

#define BUNDLES (KIX_TLOG_MAX_LEVEL + 1)

static int write_resource(struct exporter *x, const struct kix_tlog_path *p)
{
    char rel[KIX_TLOG_PATH_MAX + 1];
    int rc;

    kix_buf_reset(&x->body);
    rc = kix_tlog_path_format(p, rel, sizeof(rel));
    if (rc)
        return kix_err_set(x->err, KIX_EINVAL, "cannot name a tile: %s", kix_strerror(rc));
    rc = kix_log_reader_tlog(x->r, p, &x->body, x->err);
    if (rc)
        return rc;
    /* tiles and bundles are new files, synced together before the
     * checkpoint that names them (kix_log_export_tlog); a full bundle the
     * store keeps as a file is linked, not written again */
    if (p->kind == KIX_TLOG_ENTRIES && p->width == KIX_TLOG_WIDTH) {
        char name[32];
        snprintf(name, sizeof(name), "%llu", (ULL)p->index);
        if (link_body(x, rel, name))
            goto counted;
    }
    rc = kix_file_tree_write(&x->tree, rel, x->body.ptr, x->body.len,
                             p->kind == KIX_TLOG_CHECKPOINT, x->err);
    if (rc)
        return rc;
counted:
    x->st->files++;
    x->st->bytes += x->body.len;
    return KIX_OK;
}

/* Writes tile or bundle (level; BUNDLES for bundles) `index` at `width`,
 * unless it is the partial written last at that level. */
static int export_tile(struct exporter *x, uint32_t level, uint64_t index, unsigned width)
{
    struct kix_tlog_path p;
    int rc;

    if (width < KIX_TLOG_WIDTH && x->last_width[level] == width && x->last_index[level] == index)
        return KIX_OK;
    memset(&p, 0, sizeof(p));
    p.kind = level == BUNDLES ? KIX_TLOG_ENTRIES : KIX_TLOG_TILE;
    p.level = level == BUNDLES ? 0 : level;
    p.index = index;
    p.width = width;
    rc = write_resource(x, &p);
    if (rc == KIX_OK && width < KIX_TLOG_WIDTH) {
        x->last_width[level] = width;
        x->last_index[level] = index;
    }
    return rc;
}

static int object_elsewhere(struct exporter *x, uint64_t i, const struct kix_bytes *leaf,
                            struct kix_digest *object);
static int drop_kept_elsewhere(struct exporter *x, uint64_t bundle);

/* objects/entries/<N>, bundle N's object pack, written once it is full.
 * One over its bound is not written: a reader fetches those objects one
 * by one, as it does a partial bundle's. */
static int export_pack(struct exporter *x, uint64_t index)
{
    char rel[KIX_OBJECT_PACK_PATH_MAX], name[40];
    struct kix_err ignored = {0};
    int rc;

    kix_buf_reset(&x->body);
    rc = kix_log_reader_object_pack(x->r, index, &x->body, &ignored);
    if (rc == KIX_ELIMIT)
        return KIX_OK;
    if (rc)
        return kix_err_set(x->err, rc, "%s", ignored.msg[0] ? ignored.msg : kix_strerror(rc));
    if (kix_object_pack_path(index, rel, sizeof(rel)) != KIX_OK)
        return kix_err_set(x->err, KIX_EINVAL, "cannot name the pack of bundle %llu", (ULL)index);
    snprintf(name, sizeof(name), "objects.%llu", (ULL)index);
    rc = x->body.len > 0 && link_body(x, rel, name)
             ? KIX_OK
             : kix_file_tree_write(&x->tree, rel, x->body.ptr, x->body.len, 0, x->err);
    if (rc == KIX_OK) {
        x->st->files++;
        x->st->bytes += x->body.len;
        rc = drop_kept_elsewhere(x, index);
    }
    return rc;
}

/* Every tile and bundle that the growth from `old` to x->size changed. */
static int export_growth(struct exporter *x, uint64_t old)
{
    for (uint32_t L = 0; L <= KIX_TLOG_MAX_LEVEL && 8u * L < 64u; L++) {
        uint64_t n_new = x->size >> (8u * L), n_old = old >> (8u * L);
        if (n_new == 0)
            break;
        if (n_new == n_old)
            continue;
        for (uint64_t N = n_old >> 8; N <= (n_new - 1) >> 8; N++) {
            unsigned w = kix_tlog_tile_width(x->size, L, N);
            int rc = export_tile(x, L, N, w);
            if (rc == KIX_OK && L == 0)
                rc = export_tile(x, BUNDLES, N, w);
            if (rc == KIX_OK && L == 0 && w == KIX_TLOG_WIDTH)
                rc = export_pack(x, N);
            if (rc)
                return rc;
        }
    }
    return KIX_OK;
}

/* The partial tiles and bundles of an older checkpoint at size s whose
 * full tile the export does not have. */
static int export_partials(void *ctx, uint64_t s, const uint8_t *note, size_t len,
                           const uint8_t *index_note, size_t index_len)
{
    struct exporter *x = ctx;
    (void)note;
    (void)index_note;
    (void)index_len;
    (void)len;
    if (s >= x->size)
        return KIX_OK;
    for (uint32_t L = 0; L <= KIX_TLOG_MAX_LEVEL && 8u * L < 64u; L++) {
        uint64_t n = s >> (8u * L), N = n >> 8;
        unsigned w = kix_tlog_tile_width(s, L, N);
        int rc;
        if (n == 0)
            break;
        /* the tile at this export's own width is there already (written by
         * export_growth, or by the export that reached this size at this
         * level): another checkpoint with that width would write it again */
        if (w == 0 || w == KIX_TLOG_WIDTH || kix_tlog_tile_width(x->size, L, N) == KIX_TLOG_WIDTH ||
            kix_tlog_tile_width(x->size, L, N) == w)
            continue;
        rc = export_tile(x, L, N, w);
        if (rc == KIX_OK && L == 0)
            rc = export_tile(x, BUNDLES, N, w);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

/* objects/<digest> for d and, first, every object it references, unless
 * there already (elsewhere: d's own file is not written, what it references
 * is; see object_elsewhere): after an export that finished, a file exists only once
 * all it references do, so an existing one ends the walk (immutable: the
 * digest names the bytes). After one cut short, the walk goes on and a
 * file is written unless it holds the object's bytes. An object the log
 * does not hold (what a key entry names) is skipped. */
static int export_object(struct exporter *x, const struct kix_digest *d, unsigned depth,
                         int elsewhere)
{
    char path[4200], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_digest *refs = NULL;
    struct kix_bytes v;
    struct stat sb;
    size_t n = 0;
    int rc;

    if (seen_object(x, d, 0))
        return KIX_OK;
    kix_digest_format(d, text);
    snprintf(path, sizeof(path), "%s/objects/%s", x->tree.dir, text);
    if (!x->distrust_objects && stat(path, &sb) == 0) {
        seen_object(x, d, 1);
        return KIX_OK;
    }
    rc = kix_log_reader_object(x->r, d, &v);
    if (rc == KIX_ENOTFOUND) {
        seen_object(x, d, 1);
        return KIX_OK;
    }
    if (rc)
        return kix_err_set(x->err, rc, "reading object %s: %s", text, kix_strerror(rc));
    /* the log holds canonical objects (as bundle_pack.c reads them): their
     * references found by a scan of the bytes, not a parse */
    if (depth < 16 && kix_refs_canonical(v.ptr, v.len, &refs, &n) != KIX_OK)
        n = 0;
    for (size_t i = 0; rc == KIX_OK && depth < 16 && i < n; i++)
        rc = export_object(x, &refs[i], depth + 1, 0);
    free(refs);
    if (rc == KIX_OK && elsewhere)
        return KIX_OK; /* not marked seen: another entry may want its file */
    if (rc == KIX_OK && x->distrust_objects && kix_file_holds(path, v.ptr, v.len)) {
        seen_object(x, d, 1);
        return KIX_OK;
    }
    if (rc == KIX_OK)
        rc = kix_file_write_batched(path, v.ptr, v.len, 0644, x->err);
    if (rc == KIX_OK) {
        x->st->files++;
        x->st->bytes += v.len;
        seen_object(x, d, 1);
    }
    return rc;
}

/* Whether the object of entry i that x->elsewhere names is one the copy
 * holds without a file of its own: in the caller's file, exactly (where
 * elsewhere says), or maybe there and surely in the pack of the entry's
 * bundle, full at this export and its pack written. Then
 * objects/<object> is not written: a reader takes it from either, checked
 * against the digest that names it. An object some other entry needs
 * still gets its file. */
static int object_elsewhere(struct exporter *x, uint64_t i, const struct kix_bytes *leaf,
                            struct kix_digest *object)
{
    uint64_t bundle = i / KIX_TLOG_WIDTH;
    char rel[KIX_OBJECT_PACK_PATH_MAX], path[4400];
    struct stat sb;
    int kept;

    if (!x->elsewhere)
        return 0;
    kept = x->elsewhere(x->elsewhere_ctx, i, leaf->ptr, leaf->len, object);
    if (kept == KIX_TLOG_KEPT_EXACTLY)
        return 1;
    if (kept != KIX_TLOG_KEPT_MAYBE || bundle >= x->size / KIX_TLOG_WIDTH)
        return 0;
    if (x->pack_bundle != bundle) {
        x->pack_bundle = bundle;
        x->pack_there =
            kix_object_pack_path(bundle, rel, sizeof(rel)) == KIX_OK &&
            (size_t)snprintf(path, sizeof(path), "%s/%s", x->tree.dir, rel) < sizeof(path) &&
            stat(path, &sb) == 0 && sb.st_size > 0;
    }
    return x->pack_there;
}

/* Bundle `bundle` became full and its pack is written: the objects/ files
 * an earlier export wrote for the objects its entries keep elsewhere (the
 * bundle partial then) go, as object_elsewhere would not have written
 * them. A reader that asks for one meanwhile finds it where it is kept; a
 * later entry that needs one writes it again (export_objects runs
 * after). */
static int drop_kept_elsewhere(struct exporter *x, uint64_t bundle)
{
    char path[4200], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_digest m;
    struct kix_bytes leaf;

    for (uint64_t i = bundle * KIX_TLOG_WIDTH; i < (bundle + 1) * KIX_TLOG_WIDTH; i++) {
        if (kix_log_reader_entry(x->r, i, &leaf) != KIX_OK)
            return kix_err_set(x->err, KIX_ECORRUPT, "entry %llu is missing", (ULL)i);
        if (!object_elsewhere(x, i, &leaf, &m))
            continue;
        kix_digest_format(&m, text);
        snprintf(path, sizeof(path), "%s/objects/%s", x->tree.dir, text);
        if (unlink(path) != 0 && errno != ENOENT)
            return kix_err_set(x->err, KIX_EIO, "removing %s: %s", path, strerror(errno));
    }
    return KIX_OK;
}

/* The objects the entries [old, size) need, with what those reference;
 * OBJECTS_EXPORTING is made first (the caller removes it once they are
 * synced), or, when an export left it, every file on the way is checked. */
static int export_objects(struct exporter *x, uint64_t old)
{
    char path[4200], marker[4200];
    struct stat sb;
    int rc = KIX_OK;

    if ((size_t)snprintf(path, sizeof(path), "%s/objects", x->tree.dir) >= sizeof(path) ||
        (size_t)snprintf(marker, sizeof(marker), "%s/" OBJECTS_EXPORTING, x->tree.dir) >=
            sizeof(marker))
        return kix_err_set(x->err, KIX_EINVAL, "export path %.200s... is too long", x->tree.dir);
    x->distrust_objects = stat(marker, &sb) == 0;
    if (old < x->size && !x->distrust_objects)
        rc = kix_file_tree_write(&x->tree, OBJECTS_EXPORTING, "", 0, 1, x->err);
    for (uint64_t i = old; rc == KIX_OK && i < x->size; i++) {
        struct kix_digest *needs = NULL;
        struct kix_digest kept;
        struct kix_bytes leaf;
        size_t n = 0;
        int elsewhere;

        if (kix_log_reader_entry(x->r, i, &leaf) != KIX_OK)
            return kix_err_set(x->err, KIX_ECORRUPT, "entry %llu is missing", (ULL)i);
        /* what the entry needs, from its leaf alone: a logged leaf was
         * verified when it was appended, and preparing it again (its
         * canonical form, hashes and predicate checks) was 5% of an
         * export's CPU */
        rc = kix_entry_needs(leaf.ptr, leaf.len, &needs, &n, x->err);
        elsewhere = rc == KIX_OK && n > 0 && object_elsewhere(x, i, &leaf, &kept);
        for (size_t k = 0; rc == KIX_OK && k < n; k++)
            rc = export_object(x, &needs[k], 0, elsewhere && memcmp(needs[k].b, kept.b, 32) == 0);
        free(needs);
    }
    return rc;
}

/* The objects written are synced: an export cut short from here on leaves
 * no object file that is not whole. */
static int objects_done(struct exporter *x)
{
    char marker[4200];

    snprintf(marker, sizeof(marker), "%s/" OBJECTS_EXPORTING, x->tree.dir);
    if (unlink(marker) != 0 && errno != ENOENT)
        return kix_err_set(x->err, KIX_EIO, "removing %s: %s", marker, strerror(errno));
    return KIX_OK;
}

/* The size of the checkpoint in dir when it is this log's, else 0. */
static uint64_t exported_size(struct exporter *x)
{
    struct kix_buf have = KIX_BUF_INIT;
    struct kix_err ignored = {0};
    char path[4200];
    uint64_t size = 0, s = 0;
    const char *p, *e;
    struct kix_bytes note;

    snprintf(path, sizeof(path), "%s/checkpoint", x->tree.dir);
    if (kix_file_read(path, 1 << 20, &have, &ignored) != KIX_OK)
        goto out;
    /* the size is the second line; the stored note at it must be a prefix */
    p = memchr(have.ptr, '\n', have.len);
    if (!p)
        goto out;
    for (e = ++p; e < (const char *)have.ptr + have.len && *e >= '0' && *e <= '9'; e++) {
        if (s > (UINT64_MAX - 9) / 10)
            goto out;
        s = s * 10 + (uint64_t)(*e - '0');
    }
    if (e == p || e >= (const char *)have.ptr + have.len || *e != '\n' || s > x->size)
        goto out;
    if (kix_log_reader_checkpoint(x->r, s, &note) != KIX_OK || note.len > have.len ||
        memcmp(note.ptr, have.ptr, note.len) != 0)
        goto out;
    size = s;
out:
    kix_buf_release(&have);
    return size;
}

int kix_log_export_tlog(struct kix_log *l, const char *dir, struct kix_tlog_export_stats *stats,
                        struct kix_err *err)
{
    return kix_log_export_tlog_with(l, dir, NULL, NULL, stats, err);
}

int kix_log_export_tlog_with(struct kix_log *l, const char *dir, kix_tlog_export_hook hook,
                             void *ctx, struct kix_tlog_export_stats *stats, struct kix_err *err)
{
    return kix_log_export_tlog_from(l, NULL, dir, hook, ctx, stats, err);
}

int kix_log_export_tlog_from(struct kix_log *l, struct kix_log_reader *given, const char *dir,
                             kix_tlog_export_hook hook, void *ctx,
                             struct kix_tlog_export_stats *stats, struct kix_err *err)
{
    return kix_log_export_tlog_linked(l, given, dir, NULL, NULL, hook, ctx, stats, err);
}

int kix_log_export_tlog_linked(struct kix_log *l, struct kix_log_reader *given, const char *dir,
                               const char *link_dir, kix_tlog_object_elsewhere elsewhere,
                               kix_tlog_export_hook hook, void *ctx,
                               struct kix_tlog_export_stats *stats, struct kix_err *err)
{
    struct kix_tlog_export_stats local;
    struct exporter x;
    struct kix_tlog_path cp = {KIX_TLOG_CHECKPOINT, 0, 0, 0};
    uint64_t old;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(&local, 0, sizeof(local));
    x.st = stats ? stats : &local;
    memset(x.st, 0, sizeof(*x.st));
    x.l = l;
    x.tree.dir = dir;
    x.tree.mode = 0644;
    x.link_dir = link_dir;
    x.pack_bundle = UINT64_MAX;
    x.elsewhere = elsewhere;
    x.elsewhere_ctx = ctx;
    x.err = err;
    kix_buf_init(&x.body);
    rc = kix_dir_make(dir, 0755, err);
    if (rc)
        return rc;
    if (given) {
        x.r = given;
    } else {
        rc = kix_log_read_begin(l, &x.r);
        if (rc)
            return kix_err_set(err, rc, "cannot read the log: %s", kix_strerror(rc));
    }
    x.size = kix_log_reader_size(x.r);
    old = exported_size(&x);
    x.st->from_size = old;
    x.st->size = x.size;
    if (old == x.size) {
        /* up to date (cosignatures added since are not rewritten); the
         * hook may still owe files of this size */
        if (hook)
            rc = hook(ctx, x.r, dir, err);
        if (rc == KIX_OK && hook)
            rc = kix_dir_sync(dir, err);
        goto out;
    }
    rc = export_growth(&x, old);
    if (rc == KIX_OK)
        rc = kix_log_reader_checkpoints(x.r, old, (size_t)-1, export_partials, &x);
    if (rc == KIX_OK)
        rc = export_objects(&x, old);
    if (rc == KIX_OK && hook)
        rc = hook(ctx, x.r, dir, err);
    if (rc == KIX_OK)
        rc = kix_dir_sync(dir, err); /* everything the checkpoint names, durable */
    if (rc == KIX_OK)
        rc = objects_done(&x);
    if (rc == KIX_OK)
        rc = write_resource(&x, &cp); /* last: it names only what is there */
out:
    if (rc && err && !err->msg[0])
        kix_err_set(err, rc, "exporting the log to %s failed: %s", dir, kix_strerror(rc));
    if (!given)
        kix_log_read_end(x.r);
    kix_buf_release(&x.body);
    free(x.seen);
    return rc;
}
