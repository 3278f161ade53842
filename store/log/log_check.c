/* kix_log_check: the stored log recomputed against itself (kix/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"

#define ULL            unsigned long long
#define TILE_LEVELS    8 /* tile levels of a tree of up to 2^64 leaves */
#define PROGRESS_EVERY 4096
#define DEFAULT_TAIL   1024
#define DEFAULT_ISSUES 100
#define HASH_HEX       64 /* hex digits of a hash */

struct tile_view {
    int loaded, bad;
    uint64_t index;
    unsigned w;
    const uint8_t *rec; /* a view valid during the read transaction */
};

struct node {
    struct kix_hash h;
    unsigned level;
    uint64_t index;
};

struct check {
    struct kix_log *log;
    struct kix_store *s;
    MDB_txn *txn;  /* data.mdb's */
    MDB_txn *itxn; /* the index's (layout 3: index.mdb; else txn) */
    struct kix_check_opts o;
    struct kix_check_stats *st;
    int stop;
    char first[KIX_ERR_MSG_MAX + 136];
    uint64_t size, start;
    uint64_t isize; /* the size the index reflects */
    struct kix__tile_ctx tctx;
    struct kix_tile_io io;
    struct tile_view tv[TILE_LEVELS];
    struct node stack[66];
    size_t depth;
    uint64_t pos; /* leaves folded into the stack */
    /* the next checkpoint to compare: its size and root (have_root 0 when
     * its note did not verify: already reported) */
    MDB_cursor *cps;
    int cp_valid, cp_have_root;
    uint64_t cp_size;
    struct kix_hash cp_root;
    struct kix_note note; /* scratch for kix_checkpoint_open */
};

/* ---- reporting ------------------------------------------------------------------ */

static void hash_hex(const uint8_t *h, char out[HASH_HEX + 1])
{
    kix_hex_encode(h, 32, out);
}

static void issue(struct check *c, const char *table, uint64_t index, const char *where,
                  const char *fmt, ...) KIX_PRINTF(5, 6);

static void issue(struct check *c, const char *table, uint64_t index, const char *where,
                  const char *fmt, ...)
{
    struct kix_check_issue is;
    va_list ap;

    if (c->stop)
        return;
    memset(&is, 0, sizeof(is));
    is.table = table;
    is.index = index;
    snprintf(is.where, sizeof(is.where), "%s", where);
    va_start(ap, fmt);
    vsnprintf(is.message, sizeof(is.message), fmt, ap);
    va_end(ap);
    c->st->issues++;
    if (c->st->issues == 1)
        snprintf(c->first, sizeof(c->first), "%s: %s", is.where, is.message);
    if (c->o.issue && c->o.issue(c->o.issue_ctx, &is) != 0)
        c->stop = 1;
    if (c->st->issues >= c->o.max_issues)
        c->stop = 1;
}

static void where_u64(char *out, size_t cap, const char *table, uint64_t k)
{
    snprintf(out, cap, "%s u64:%llu", table, (ULL)k);
}

static void where_tile(char *out, size_t cap, unsigned L, uint64_t N)
{
    snprintf(out, cap, "tiles %02x%016llx (tile %u/%llu)", L, (ULL)N, L, (ULL)N);
}

/* The first entry under tile (L, N) (0 past the top). */
static uint64_t tile_first_entry(unsigned L, uint64_t N)
{
    return 8 * L + 8 >= 64 ? 0 : N << (8 * L + 8);
}

static void progress(struct check *c, const char *phase, uint64_t done, uint64_t total)
{
    if (c->o.progress)
        c->o.progress(c->o.progress_ctx, phase, done, total);
}

/* ---- tiles ------------------------------------------------------------------------ */

static size_t packed_off(unsigned w, unsigned r)
{
    size_t off = 0;
    for (unsigned k = 0; k < r; k++)
        off += w >> k;
    return off;
}

/* The width tile (L, N) must have in the tree of c->size leaves (0: none). */
static unsigned tile_width(const struct check *c, unsigned L, uint64_t N)
{
    uint64_t nodes = c->size >> (8 * L);
    if (nodes / 256 < N || nodes - 256 * N == 0)
        return 0;
    return nodes - 256 * N >= 256 ? 256 : (unsigned)(nodes - 256 * N);
}

static int get_tile(struct check *c, unsigned L, uint64_t N, MDB_val *val)
{
    uint8_t k[9];
    MDB_val key = {9, k};
    k[0] = (uint8_t)L;
    kix_u64be_put(k + 1, N);
    return mdb_get(c->txn, c->s->dbi[T_TILES], &key, val);
}

static int load_tile(struct check *c, unsigned L, uint64_t N)
{
    struct tile_view *t = &c->tv[L];
    unsigned w = tile_width(c, L, N), got;
    char where[128];
    MDB_val v;
    int rc;

    t->loaded = 1;
    t->bad = 1;
    t->index = N;
    where_tile(where, sizeof(where), L, N);
    rc = get_tile(c, L, N, &v);
    if (rc == MDB_NOTFOUND) {
        issue(c, "tiles", tile_first_entry(L, N), where,
              "tile %u/%llu is missing; the tree of %llu entries needs it (width %u)", L, (ULL)N,
              (ULL)c->size, w);
        return KIX_OK;
    }
    if (rc)
        return kix__db_error(rc, NULL, "reading a tile");
    c->st->tiles++;
    got =
        v.mv_size >= 2 ? ((unsigned)((uint8_t *)v.mv_data)[0] << 8 | ((uint8_t *)v.mv_data)[1]) : 0;
    if (got != w || v.mv_size != 2 + KIX_HASH_LEN * packed_off(w, 8)) {
        issue(c, "tiles", tile_first_entry(L, N), where,
              "tile %u/%llu is malformed: %zu bytes of width %u, but at size %llu it has width %u "
              "(%zu bytes): the tile was altered",
              L, (ULL)N, v.mv_size, got, (ULL)c->size, w, 2 + KIX_HASH_LEN * packed_off(w, 8));
        return KIX_OK;
    }
    t->bad = 0;
    t->w = w;
    t->rec = v.mv_data;
    return KIX_OK;
}

/* The stored hash of complete node (level, index), or NULL when its tile is
 * missing or malformed (reported once). */
static int stored_node(struct check *c, unsigned level, uint64_t index, const uint8_t **out)
{
    unsigned L = level / 8, r = level % 8;
    uint64_t N = index >> (8 - r), pos = index & ((1u << (8 - r)) - 1);
    struct tile_view *t = &c->tv[L];
    int rc;

    *out = NULL;
    if (!t->loaded || t->index != N) {
        rc = load_tile(c, L, N);
        if (rc)
            return rc;
    }
    if (!t->bad)
        *out = t->rec + 2 + KIX_HASH_LEN * (packed_off(t->w, r) + pos);
    return KIX_OK;
}

static int check_node(struct check *c, const struct node *nd)
{
    const uint8_t *h = NULL;
    char where[128], want[HASH_HEX + 1], got[HASH_HEX + 1];
    unsigned L = nd->level / 8;
    uint64_t N = nd->index >> (8 - nd->level % 8);
    int rc = stored_node(c, nd->level, nd->index, &h);

    if (rc || !h)
        return rc;
    c->st->nodes++;
    if (memcmp(h, nd->h.b, 32) == 0)
        return KIX_OK;
    where_tile(where, sizeof(where), L, N);
    hash_hex(h, got);
    hash_hex(nd->h.b, want);
    issue(c, "tiles", nd->index << nd->level, where,
          "tile %u/%llu holds %s for node (level %u, index %llu), but entries %llu to %llu hash "
          "to %s: the tile was altered",
          L, (ULL)N, got, nd->level, (ULL)nd->index, (ULL)(nd->index << nd->level),
          (ULL)(((nd->index + 1) << nd->level) - 1), want);
    return KIX_OK;
}

/* ---- the recomputed tree: a compact range over [0, pos) ---------------------------- */

static int push(struct check *c, const struct kix_hash *h, unsigned level, uint64_t index,
                int compare)
{
    int rc = KIX_OK;

    c->stack[c->depth].h = *h;
    c->stack[c->depth].level = level;
    c->stack[c->depth].index = index;
    c->depth++;
    while (rc == KIX_OK && c->depth >= 2 &&
           c->stack[c->depth - 2].level == c->stack[c->depth - 1].level) {
        struct node *l = &c->stack[c->depth - 2], *r = &c->stack[c->depth - 1];
        kix_merkle_node_hash(&l->h, &r->h, &l->h);
        l->level++;
        l->index >>= 1;
        c->depth--;
        if (compare)
            rc = check_node(c, l);
    }
    return rc;
}

static void fold_root(const struct check *c, struct kix_hash *root)
{
    if (c->depth == 0) {
        kix_merkle_empty_root(root);
        return;
    }
    *root = c->stack[c->depth - 1].h;
    for (size_t k = c->depth - 1; k-- > 0;)
        kix_merkle_node_hash(&c->stack[k].h, root, root);
}

/* ---- checkpoints ------------------------------------------------------------------- */

/* Verifies one stored checkpoint; *root_ok says whether *root can be used. */
static void verify_checkpoint(struct check *c, const MDB_val *k, const MDB_val *v, uint64_t *size,
                              struct kix_hash *root, int *root_ok)
{
    struct kix_checkpoint cp;
    struct kix_err e = {0};
    char where[128];

    *root_ok = 0;
    *size = k->mv_size == 8 ? kix_u64be_get(k->mv_data) : KIX_NO_INDEX;
    where_u64(where, sizeof(where), "checkpoints", *size);
    if (k->mv_size != 8) {
        issue(c, "checkpoints", KIX_NO_INDEX, "checkpoints",
              "a checkpoint is stored under a %zu-byte key, not a tree size", k->mv_size);
        return;
    }
    c->st->checkpoints++;
    if (kix_checkpoint_open(v->mv_data, v->mv_size, &c->log->verifier, 1, c->log->origin, &c->note,
                            &cp, &e) != KIX_OK) {
        issue(c, "checkpoints", *size, where,
              "the checkpoint at size %llu does not verify with the log key: %s", (ULL)*size,
              e.msg);
        return;
    }
    if (cp.size != *size) {
        issue(c, "checkpoints", *size, where,
              "the checkpoint stored for size %llu is signed for size %llu", (ULL)*size,
              (ULL)cp.size);
        return;
    }
    memcpy(root->b, cp.root, 32);
    *root_ok = 1;
}

static int next_checkpoint(struct check *c, MDB_cursor_op op)
{
    MDB_val k, v;
    int rc = mdb_cursor_get(c->cps, &k, &v, op);

    c->cp_valid = 0;
    if (rc == MDB_NOTFOUND)
        return KIX_OK;
    if (rc)
        return kix__db_error(rc, NULL, "reading checkpoints");
    verify_checkpoint(c, &k, &v, &c->cp_size, &c->cp_root, &c->cp_have_root);
    c->cp_valid = c->cp_size != KIX_NO_INDEX;
    return KIX_OK;
}

/* Compares every checkpoint due at c->pos with the recomputed root. */
static int compare_checkpoints(struct check *c)
{
    struct kix_hash root;
    char where[128], want[HASH_HEX + 1], got[HASH_HEX + 1];
    int rc = KIX_OK;

    while (rc == KIX_OK && c->cp_valid && c->cp_size <= c->pos && !c->stop) {
        if (c->cp_size == c->pos && c->cp_have_root) {
            fold_root(c, &root);
            c->st->roots++;
            if (memcmp(root.b, c->cp_root.b, 32) != 0) {
                where_u64(where, sizeof(where), "checkpoints", c->cp_size);
                hash_hex(c->cp_root.b, got);
                hash_hex(root.b, want);
                issue(c, "checkpoints", c->cp_size, where,
                      "the checkpoint at size %llu signs root %s, but the stored entries%s "
                      "hash to %s",
                      (ULL)c->cp_size, got, c->start ? " (and the tiles before the tail)" : "",
                      want);
            }
        }
        if (c->o.quick)
            c->cp_valid = 0; /* only the latest */
        else
            rc = next_checkpoint(c, MDB_NEXT);
    }
    return rc;
}

/* ---- objects -------------------------------------------------------------------------- */

/* The first entry whose subject is d (a run's publication), or KIX_NO_INDEX. */
static uint64_t subject_entry(struct check *c, const struct kix_digest *d)
{
    MDB_cursor *cur;
    uint8_t k[40];
    MDB_val key = {40, k}, v;
    uint64_t at = KIX_NO_INDEX;

    memcpy(k, d->b, 32);
    memset(k + 32, 0, 8);
    if (mdb_cursor_open(c->itxn, kix__subjects_dbi(c->s), &cur) != 0)
        return at;
    if (mdb_cursor_get(cur, &key, &v, MDB_SET_RANGE) == 0 && key.mv_size == 40 &&
        memcmp(key.mv_data, d->b, 32) == 0)
        at = kix_u64be_get((uint8_t *)key.mv_data + 32);
    mdb_cursor_close(cur);
    return at;
}

/* Looks up an object an entry needs: present, and (check_digest) intact.
 * entry KIX_NO_INDEX: met in the scan of all objects. */
static int check_object(struct check *c, const struct kix_digest *d, uint64_t entry,
                        int check_digest)
{
    MDB_val key = {32, (void *)d->b}, seq, blob;
    char text[KIX_DIGEST_TEXT_LEN + 1], where[128], hex[65];
    struct kix_digest got;
    int rc = mdb_get(c->itxn, kix__dbi(c->s, T_OBJECTS), &key, &seq);

    kix_digest_format(d, text);
    kix_hex_encode(d->b, 32, hex);
    snprintf(where, sizeof(where), "objects %s", hex);
    if (rc == MDB_NOTFOUND) {
        issue(c, "objects", entry, where, "entry %llu needs object %s, which is not stored",
              (ULL)entry, text);
        return KIX_OK;
    }
    if (rc)
        return kix__db_error(rc, NULL, "reading an object");
    if (!check_digest)
        return KIX_OK;
    if (seq.mv_size != 8) {
        issue(c, "objects", entry, where, "object %s has a malformed blob number (%zu bytes)", text,
              seq.mv_size);
        return KIX_OK;
    }
    rc = mdb_get(c->txn, c->s->dbi[T_BLOBS], &seq, &blob);
    where_u64(where, sizeof(where), "blobs", kix_u64be_get(seq.mv_data));
    if (rc == MDB_NOTFOUND) {
        issue(c, "blobs", entry, where, "object %s points at blob %llu, which is missing", text,
              (ULL)kix_u64be_get(seq.mv_data));
        return KIX_OK;
    }
    if (rc)
        return kix__db_error(rc, NULL, "reading an object");
    if (kix__seg_view(c->s, &blob) != KIX_OK) {
        issue(c, "blobs", entry, where,
              "object %s's blob %llu names bytes the data file " KIX__SEGMENT_FILE " lacks", text,
              (ULL)kix_u64be_get(seq.mv_data));
        return KIX_OK;
    }
    c->st->objects++;
    kix_digest_of(blob.mv_data, blob.mv_size, &got);
    if (memcmp(got.b, d->b, 32) != 0) {
        char gtext[KIX_DIGEST_TEXT_LEN + 1], subj[64] = "";
        if (entry == KIX_NO_INDEX) {
            entry = subject_entry(c, d);
            if (entry != KIX_NO_INDEX)
                snprintf(subj, sizeof(subj), ", the subject of entry %llu", (ULL)entry);
        }
        kix_digest_format(&got, gtext);
        issue(c, "blobs", entry, where,
              "object %s (blob %llu%s): the stored bytes hash to %s: the object was altered", text,
              (ULL)kix_u64be_get(seq.mv_data), subj, gtext);
    }
    return KIX_OK;
}

static int check_needs(struct check *c, uint64_t i, const uint8_t *leaf, size_t len)
{
    struct kix_digest *needs = NULL;
    struct kix_err e = {0};
    char where[128];
    size_t n = 0;
    int rc = kix_entry_needs(leaf, len, &needs, &n, &e);

    if (rc == KIX_ENOMEM)
        return rc;
    if (rc) {
        where_u64(where, sizeof(where), "leaves", i);
        issue(c, "leaves", i, where, "entry %llu is logged but does not parse: %s", (ULL)i, e.msg);
        return KIX_OK;
    }
    for (size_t k = 0; rc == KIX_OK && k < n; k++)
        rc = check_object(c, &needs[k], i, c->o.quick);
    free(needs);
    return rc;
}

/* Every object: its blob exists and hashes to its digest (full check). */
static int scan_objects(struct check *c)
{
    MDB_cursor *cur;
    MDB_val k, v;
    MDB_stat so, sb;
    uint64_t done = 0;
    uint64_t nrecords = 0;
    int krc = KIX_OK, rc = mdb_stat(c->itxn, kix__dbi(c->s, T_OBJECTS), &so);

    if (rc == 0)
        rc = mdb_stat(c->txn, c->s->dbi[T_BLOBS], &sb);
    if (rc == 0)
        rc = mdb_cursor_open(c->itxn, kix__dbi(c->s, T_OBJECTS), &cur);
    if (rc)
        return kix__db_error(rc, NULL, "reading objects");
    rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    while (rc == 0 && !c->stop) {
        struct kix_digest d;
        if (c->s->layout >= 2 && (k.mv_size == KIX__SUBJECT_KEY_LEN ||
                                  (k.mv_size == KIX__STATEMENT_KEY_LEN &&
                                   ((uint8_t *)k.mv_data)[32] == KIX__STATEMENT_TAG))) {
            /* a subject or statement record beside the objects (db.h) */
            nrecords++;
            if (k.mv_size == KIX__STATEMENT_KEY_LEN) {
                uint64_t at =
                    v.mv_size == KIX__STATEMENT_VAL_LEN ? kix_u64be_get(v.mv_data) : KIX_NO_INDEX;
                if (at >= c->size) {
                    char where[200], hex[2 * KIX__STATEMENT_KEY_LEN + 1];
                    kix_hex_encode(k.mv_data, k.mv_size, hex);
                    snprintf(where, sizeof(where), "objects %s", hex);
                    if (at == KIX_NO_INDEX)
                        issue(c, "objects", KIX_NO_INDEX, where,
                              "a statement record is malformed (%zu bytes)", v.mv_size);
                    else
                        issue(c, "objects", at, where,
                              "a statement record maps to entry %llu, beyond the tree of %llu "
                              "entries",
                              (ULL)at, (ULL)c->size);
                }
            }
        } else if (k.mv_size != 32) {
            issue(c, "objects", KIX_NO_INDEX, "objects",
                  "an object is stored under a %zu-byte key, not a digest", k.mv_size);
        } else {
            memcpy(d.b, k.mv_data, 32);
            krc = check_object(c, &d, KIX_NO_INDEX, 1);
            if (krc)
                break;
        }
        if (++done % PROGRESS_EVERY == 0)
            progress(c, "objects", done, so.ms_entries);
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    if (krc)
        return krc;
    if (rc && rc != MDB_NOTFOUND)
        return kix__db_error(rc, NULL, "reading objects");
    progress(c, "objects", done, so.ms_entries);
    so.ms_entries -= nrecords;
    {
        /* the blobs the index has got to (layout 3: a copy taken under a
         * writer may hold blobs its index has not) */
        uint64_t indexed;
        if (kix__reader_blobs(c->s, c->itxn, &indexed) == KIX_OK && indexed < sb.ms_entries)
            sb.ms_entries = indexed;
    }
    if (sb.ms_entries != so.ms_entries)
        issue(c, "blobs", KIX_NO_INDEX, "blobs",
              "%llu blobs are stored for %llu object digests: %s", (ULL)sb.ms_entries,
              (ULL)so.ms_entries,
              sb.ms_entries > so.ms_entries ? "some blobs belong to no digest"
                                            : "some digests share a blob");
    return KIX_OK;
}

/* ---- entries -------------------------------------------------------------------------- */

static int leaf_index_of(struct check *c, const uint8_t *h, uint64_t *index)
{
    MDB_val key = {32, (void *)h}, v;
    int rc = mdb_get(c->txn, c->s->dbi[T_LEAF_INDEX], &key, &v);
    if (rc == MDB_NOTFOUND || (rc == 0 && v.mv_size != 8)) {
        *index = KIX_NO_INDEX;
        return KIX_OK;
    }
    if (rc)
        return kix__db_error(rc, NULL, "reading the leaf index");
    *index = kix_u64be_get(v.mv_data);
    return KIX_OK;
}

/* What the store recorded of entry i's leaf hash at its append, besides
 * the tree: layout 2's statement record of the leaf's statement (db.h: the
 * entry's index and its leaf hash), layout 1's leaf index. at is
 * KIX_NO_INDEX when there is none (or the leaf does not parse). */
struct evidence {
    uint64_t at;
    struct kix_hash hash;
    const char *table, *name; /* "objects", "statement index" */
    char where[200];
};

static int leaf_evidence(struct check *c, const uint8_t *leaf, size_t len, const struct kix_hash *h,
                         struct evidence *ev)
{
    struct kix_dsse_envelope env;
    struct kix_entry e;
    struct kix_hash sh;
    uint8_t k[KIX__STATEMENT_KEY_LEN];
    char hex[2 * KIX__STATEMENT_KEY_LEN + 1];
    MDB_val key = {sizeof(k), k}, v;
    int rc;

    ev->at = KIX_NO_INDEX;
    ev->hash = *h;
    if (c->s->layout < 2) {
        ev->table = "leaf_index";
        ev->name = "leaf index";
        kix_hex_encode(h->b, 32, hex);
        snprintf(ev->where, sizeof(ev->where), "leaf_index %s", hex);
        return leaf_index_of(c, h->b, &ev->at);
    }
    ev->table = "objects";
    ev->name = "statement index";
    snprintf(ev->where, sizeof(ev->where), "objects");
    memset(&e, 0, sizeof(e));
    kix_dsse_envelope_init(&env);
    rc = kix_dsse_parse(leaf, len, &env, NULL);
    if (rc == KIX_OK)
        rc = kix__statement_hash(&env, &sh);
    if (rc == KIX_OK)
        rc = kix_entry_parse_statement(&e, env.payload.ptr, env.payload.len, NULL);
    kix_dsse_envelope_release(&env);
    kix_entry_release(&e);
    if (rc == KIX_ENOMEM)
        return rc;
    if (rc)
        return KIX_OK; /* an altered leaf: the tree is the evidence */
    kix__statement_key(k, e.subject.b, sh.b);
    kix_hex_encode(k, sizeof(k), hex);
    snprintf(ev->where, sizeof(ev->where), "objects %s", hex);
    rc = mdb_get(c->itxn, kix__dbi(c->s, T_OBJECTS), &key, &v);
    if (rc == MDB_NOTFOUND || (rc == 0 && v.mv_size != KIX__STATEMENT_VAL_LEN))
        return KIX_OK;
    if (rc)
        return kix__db_error(rc, NULL, "reading the statement index");
    ev->at = kix_u64be_get(v.mv_data);
    memcpy(ev->hash.b, (uint8_t *)v.mv_data + 8, 32);
    return KIX_OK;
}

/* Entry i's bytes cannot be read (why says how): named once, and the
 * tree's own hash folded in its place, so the tree's check goes on. */
static int entry_unreadable(struct check *c, uint64_t i, const char *why)
{
    struct kix_hash use;
    const uint8_t *stored = NULL;
    char where[128];
    int rc = stored_node(c, 0, i, &stored);

    if (rc)
        return rc;
    memset(&use, 0, sizeof(use));
    if (stored)
        memcpy(use.b, stored, 32);
    where_u64(where, sizeof(where), "leaves", i);
    issue(c, "leaves", i, where, "entry %llu %s", (ULL)i, why);
    return push(c, &use, 0, i, 1);
}

/* One entry: leaf bytes (NULL when missing) against the tree and what the
 * store recorded at its append (leaf_evidence); folds the hash the
 * evidence supports into the tree. */
static int check_entry(struct check *c, uint64_t i, const uint8_t *leaf, size_t len)
{
    struct kix_hash h, use;
    struct evidence ev;
    const uint8_t *stored = NULL;
    char where[128], hs[HASH_HEX + 1], ts[HASH_HEX + 1];
    int rc, intact = 0, agree, backs_tree;

    if (!leaf) {
        char why[64];
        snprintf(why, sizeof(why), "is missing (the log has %llu entries)", (ULL)c->size);
        return entry_unreadable(c, i, why);
    }
    rc = stored_node(c, 0, i, &stored);
    if (rc)
        return rc;
    memset(&use, 0, sizeof(use));
    if (stored)
        memcpy(use.b, stored, 32);
    c->st->entries++;
    c->st->nodes += stored != NULL;
    kix_merkle_leaf_hash(leaf, len, &h);
    rc = leaf_evidence(c, leaf, len, &h, &ev);
    if (rc)
        return rc;
    agree = ev.at == i && memcmp(ev.hash.b, h.b, 32) == 0;
    hash_hex(h.b, hs);
    if (stored && memcmp(stored, h.b, 32) == 0) {
        intact = 1;
        use = h;
        if (!agree && i < c->isize) { /* beyond, the index has not got to it yet */
            if (ev.at == KIX_NO_INDEX)
                issue(c, ev.table, i, ev.where, "the %s has no record of entry %llu (leaf hash %s)",
                      ev.name, (ULL)i, hs);
            else
                issue(c, ev.table, i, ev.where,
                      "the %s maps the statement of entry %llu (leaf hash %s) to entry %llu",
                      ev.name, (ULL)i, hs, (ULL)ev.at);
        }
    } else if (agree || !stored) {
        /* the entry and the store's record of it agree: the tile is what changed */
        use = h;
        intact = 1;
        if (stored) {
            where_tile(where, sizeof(where), 0, i >> 8);
            hash_hex(stored, ts);
            issue(c, "tiles", i, where,
                  "tile 0/%llu holds %s as the leaf hash of entry %llu, but the entry hashes to "
                  "%s (as the %s says): the tile was altered",
                  (ULL)(i >> 8), ts, (ULL)i, hs, ev.name);
        }
    } else {
        if (c->s->layout < 2) {
            uint64_t at_stored = KIX_NO_INDEX;
            rc = leaf_index_of(c, stored, &at_stored);
            if (rc)
                return rc;
            backs_tree = at_stored == i;
        } else {
            /* the statement is intact, the rest of the leaf not */
            backs_tree = ev.at == i && memcmp(ev.hash.b, stored, 32) == 0;
        }
        hash_hex(stored, ts);
        where_u64(where, sizeof(where), "leaves", i);
        issue(c, "leaves", i, where,
              "entry %llu hashes to %s, but the tree%s%s hold%s %s: the entry was altered "
              "after it was logged",
              (ULL)i, hs, backs_tree ? " and the " : "", backs_tree ? ev.name : "",
              backs_tree ? "" : "s", ts);
    }
    rc = push(c, &use, 0, i, 1);
    if (rc == KIX_OK && intact && i < c->isize) /* its objects are indexed */
        rc = check_needs(c, i, leaf, len);
    return rc;
}

static int scan_entries(struct check *c)
{
    MDB_cursor *cur;
    MDB_val k, v;
    uint8_t kb[8];
    uint64_t i = c->start;
    int rc = mdb_cursor_open(c->txn, c->s->dbi[T_LEAVES], &cur), have;

    if (rc)
        return kix__db_error(rc, NULL, "reading entries");
    kix_u64be_put(kb, c->start);
    k.mv_size = 8;
    k.mv_data = kb;
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    have = rc == 0;
    if (rc && rc != MDB_NOTFOUND) {
        mdb_cursor_close(cur);
        return kix__db_error(rc, NULL, "reading entries");
    }
    rc = KIX_OK;
    while (i < c->size && !c->stop) {
        uint64_t key = have && k.mv_size == 8 ? kix_u64be_get(k.mv_data) : KIX_NO_INDEX;
        if (have && key == i) {
            /* the record holds a locator: an entry whose bytes the data
             * file lacks is reported, and the scan goes on */
            if (kix__seg_view(c->s, &v) != KIX_OK)
                rc =
                    entry_unreadable(c, i, "names bytes the data file " KIX__SEGMENT_FILE " lacks");
            else
                rc = check_entry(c, i, v.mv_data, v.mv_size);
            if (rc == KIX_OK) {
                rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
                have = rc == 0;
                rc = have || rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, NULL, "entries");
            }
        } else if (have && k.mv_size != 8) {
            issue(c, "leaves", KIX_NO_INDEX, "leaves",
                  "an entry is stored under a %zu-byte key, not an index", k.mv_size);
            rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
            have = rc == 0;
            rc = KIX_OK;
            continue;
        } else {
            rc = check_entry(c, i, NULL, 0);
        }
        if (rc == KIX_OK) {
            c->pos = ++i;
            rc = compare_checkpoints(c);
        }
        if (rc)
            break;
        if ((i - c->start) % PROGRESS_EVERY == 0)
            progress(c, "entries", i - c->start, c->size - c->start);
    }
    /* nothing beyond the latest checkpoint (its commit would have written both) */
    while (rc == KIX_OK && have && !c->stop && !c->o.quick) {
        uint64_t key = k.mv_size == 8 ? kix_u64be_get(k.mv_data) : KIX_NO_INDEX;
        char where[128];
        where_u64(where, sizeof(where), "leaves", key);
        issue(c, "leaves", key, where,
              "entry %llu is stored beyond the latest signed checkpoint (size %llu)", (ULL)key,
              (ULL)c->size);
        have = mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0;
    }
    mdb_cursor_close(cur);
    if (rc == KIX_OK)
        progress(c, "entries", i - c->start, c->size - c->start);
    return rc;
}

/* Full check: no tile beyond the tree, and no leaf index record beyond it. */
static int scan_extras(struct check *c)
{
    MDB_cursor *cur;
    MDB_val k, v;
    MDB_stat st;
    char where[128];
    int rc = mdb_cursor_open(c->txn, c->s->dbi[T_TILES], &cur);

    if (rc)
        return kix__db_error(rc, NULL, "reading tiles");
    rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    while (rc == 0 && !c->stop) {
        unsigned L = k.mv_size == 9 ? ((uint8_t *)k.mv_data)[0] : 255;
        uint64_t N = k.mv_size == 9 ? kix_u64be_get((uint8_t *)k.mv_data + 1) : 0;
        if (L >= TILE_LEVELS) {
            issue(c, "tiles", KIX_NO_INDEX, "tiles", "a tile is stored under a malformed key");
        } else if (tile_width(c, L, N) == 0) {
            where_tile(where, sizeof(where), L, N);
            issue(c, "tiles", KIX_NO_INDEX, where,
                  "tile %u/%llu lies beyond the tree of %llu entries", L, (ULL)N, (ULL)c->size);
        }
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    if (rc && rc != MDB_NOTFOUND)
        return kix__db_error(rc, NULL, "reading tiles");
    if (c->s->layout >= 2)
        return KIX_OK; /* statement records beyond the tree: scan_objects */
    rc = mdb_stat(c->txn, c->s->dbi[T_LEAF_INDEX], &st);
    if (rc)
        return kix__db_error(rc, NULL, "reading the leaf index");
    if (st.ms_entries <= c->size || c->stop)
        return KIX_OK;
    /* name the records that point nowhere */
    rc = mdb_cursor_open(c->txn, c->s->dbi[T_LEAF_INDEX], &cur);
    if (rc)
        return kix__db_error(rc, NULL, "reading the leaf index");
    rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    while (rc == 0 && !c->stop) {
        uint64_t at = v.mv_size == 8 ? kix_u64be_get(v.mv_data) : KIX_NO_INDEX;
        struct kix_hash h;
        struct kix_err e;
        char hex[65];
        int bad = at >= c->size || k.mv_size != 32;
        if (!bad) {
            bad = kix_tiles_leaf_hash(&c->io, at, &h, &e) == KIX_OK &&
                  memcmp(h.b, k.mv_data, 32) != 0;
        }
        if (bad) {
            snprintf(hex, sizeof(hex), "?");
            if (k.mv_size == 32)
                kix_hex_encode(k.mv_data, 32, hex);
            snprintf(where, sizeof(where), "leaf_index %s", hex);
            issue(c, "leaf_index", at, where,
                  "the leaf index maps a hash to entry %llu, which does not have it", (ULL)at);
        }
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    return rc && rc != MDB_NOTFOUND ? kix__db_error(rc, NULL, "reading the leaf index") : KIX_OK;
}

/* ---- the whole check ------------------------------------------------------------------ */

/* The latest checkpoint and the root folded from the stored tiles. */
static int check_latest(struct check *c)
{
    MDB_val k, v;
    struct kix_hash tiles_root;
    struct kix_checkpoint cp;
    struct kix_err e = {0};
    char where[128], a[HASH_HEX + 1], b[HASH_HEX + 1];
    uint64_t size;
    int rc = mdb_cursor_get(c->cps, &k, &v, MDB_LAST);

    if (rc == MDB_NOTFOUND)
        return KIX_OK; /* an empty replica */
    if (rc)
        return kix__db_error(rc, NULL, "reading checkpoints");
    /* a bad note is reported by the scan */
    if (k.mv_size != 8 || kix_checkpoint_open(v.mv_data, v.mv_size, &c->log->verifier, 1,
                                              c->log->origin, &c->note, &cp, &e) != KIX_OK)
        return KIX_OK;
    size = kix_u64be_get(k.mv_data);
    where_u64(where, sizeof(where), "checkpoints", size);
    rc = kix_tiles_root(&c->io, size, &tiles_root, &e);
    if (rc == KIX_ECORRUPT) {
        issue(c, "tiles", KIX_NO_INDEX, "tiles",
              "the stored tiles cannot give the root at size %llu: %s", (ULL)size, e.msg);
        return KIX_OK;
    }
    if (rc)
        return rc;
    if (memcmp(tiles_root.b, cp.root, 32) != 0) {
        hash_hex(cp.root, a);
        hash_hex(tiles_root.b, b);
        issue(c, "tiles", KIX_NO_INDEX, where,
              "the latest checkpoint (size %llu) signs root %s, but the stored tiles fold to "
              "%s: the tree's tiles were altered",
              (ULL)size, a, b);
    }
    return KIX_OK;
}

/* Quick mode: the complete nodes covering [0, start), from the tiles. */
static int seed_prefix(struct check *c)
{
    uint64_t off = 0;
    struct kix_err e = {0};

    for (int l = 63; l >= 0; l--) {
        struct kix_hash h;
        int rc;
        if (!(c->start & ((uint64_t)1 << l)))
            continue;
        rc = kix_tiles_hash(&c->io, c->size, (uint32_t)l, off >> l, &h, &e);
        if (rc == KIX_ECORRUPT) {
            issue(c, "tiles", off, "tiles",
                  "the stored tiles do not hold node (level %d, index %llu): %s", l,
                  (ULL)(off >> l), e.msg);
            c->stop = 1;
            return KIX_OK;
        }
        if (rc)
            return rc;
        rc = push(c, &h, (unsigned)l, off >> l, 0);
        if (rc)
            return rc;
        off += (uint64_t)1 << l;
    }
    c->pos = c->start;
    return KIX_OK;
}

static int run_check(struct check *c)
{
    /* the log at its own size; what the index derived, at the index's
     * (layout 3: at or below the log's, after a process died between the
     * two commits of a write, or in a backup taken under a writer) */
    int rc = kix__log_size(c->s, c->txn, &c->size);

    if (rc == KIX_OK)
        rc = kix__reader_size(c->s, c->txn, c->itxn, &c->isize);
    if (rc)
        return rc;
    c->st->size = c->size;
    if (c->o.quick) {
        uint64_t tail = c->o.tail ? c->o.tail : DEFAULT_TAIL;
        c->start = c->size > tail ? (c->size - tail) & ~(uint64_t)255 : 0;
    }
    rc = mdb_cursor_open(c->txn, c->s->dbi[T_CHECKPOINTS], &c->cps);
    if (rc)
        return kix__db_error(rc, NULL, "reading checkpoints");
    rc = check_latest(c);
    if (rc == KIX_OK && !c->stop)
        rc = seed_prefix(c);
    if (rc == KIX_OK && !c->stop)
        rc = next_checkpoint(c, c->o.quick ? MDB_LAST : MDB_FIRST);
    if (rc == KIX_OK && !c->stop)
        rc = compare_checkpoints(c); /* a checkpoint at size 0, if any */
    if (rc == KIX_OK && !c->stop)
        rc = scan_entries(c);
    mdb_cursor_close(c->cps);
    if (rc == KIX_OK && !c->stop && !c->o.quick)
        rc = scan_extras(c);
    if (rc == KIX_OK && !c->stop && !c->o.quick)
        rc = scan_objects(c);
    return rc;
}

int kix_log_check(struct kix_log *l, const struct kix_check_opts *opts,
                  struct kix_check_stats *stats, struct kix_err *err)
{
    struct kix_check_stats local;
    struct kix_reader *r = NULL;
    struct check *c = calloc(1, sizeof(*c));
    int rc;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof(*stats));
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "out of memory checking the log");
    if (opts)
        c->o = *opts;
    if (!c->o.max_issues)
        c->o.max_issues = DEFAULT_ISSUES;
    c->log = l;
    c->s = l->store;
    c->st = stats;
    rc = kix_store_read_begin(c->s, &r);
    if (rc) {
        free(c);
        return kix_err_set(err, rc, "checking store %s: cannot read it: %s", l->store->dir,
                           kix_strerror(rc));
    }
    c->txn = r->txn;
    c->itxn = r->itxn;
    c->tctx.store = c->s;
    c->tctx.txn = r->txn;
    c->tctx.snapshot = 0; /* the stored tiles themselves are checked */
    kix__tile_io_init(&c->io, &c->tctx);
    rc = run_check(c);
    kix_store_read_end(r);
    if (rc)
        rc = kix_err_set(err, rc, "checking store %s failed: %s", l->store->dir, kix_strerror(rc));
    else if (stats->issues)
        rc = kix_err_set(err, KIX_ECORRUPT, "%llu problem%s found in store %s%s; the first: %s",
                         (ULL)stats->issues, stats->issues == 1 ? "" : "s", l->store->dir,
                         c->stop && stats->issues >= c->o.max_issues ? " (stopped there)" : "",
                         c->first);
    free(c);
    return rc;
}
