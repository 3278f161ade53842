/* The verifiable index kept beside the index tables (kix/vindex.h). Each
 * entry's apply notes the keys it changed (KIX_TABLE_SMT_DIRTY); at every
 * checkpoint seal derives their records from the tables, writes them into
 * the sparse Merkle tree (KIX_TABLE_SMT) as one sorted batch — O(k log n)
 * for k changed keys — and returns the note text binding the new root to
 * the checkpoint. Readers derive the same records from their snapshot and
 * prove them from the same tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/selection.h"
#include "kix/encoding.h"
#include "kix/vindex.h"

/* ---- the tree's storage ------------------------------------------------------ */

size_t kix_index_smt_store_key(const uint8_t *key, size_t klen, uint8_t out[KIX_SMT_TILE_KEY_MAX])
{
    /* a tile's key is stratum ‖ prefix (kix_smt_tile_key, the name readers
     * fetch); stored as prefix ‖ stratum, every subtree's tiles are one key
     * range, so the tiles one route changes share B-tree pages */
    if (klen == 0 || klen > KIX_SMT_TILE_KEY_MAX)
        return 0;
    memcpy(out, key + 1, klen - 1);
    out[klen - 1] = key[0];
    return klen;
}

/* The tree is kept in tiles of four levels (kix_smt_tiles, kix/smt.h): one
 * table record and one B-tree lookup per four levels of a route, under
 * kix_index_smt_store_key (kix-index/6), each packed (kix_smt_tile_pack,
 * kix-index/7, level 2 too since kix-index/8: the interior records a
 * tile's own records give are not stored). A get gives the tile value
 * unpacked, in
 * this thread's buffer: the callers copy it before their next get. */
static int tile_get(void *arg, const uint8_t *key, size_t klen, struct kix_bytes *out,
                    struct kix_err *err)
{
    static _Thread_local uint8_t unpacked[KIX_SMT_TILE_MAX];
    uint8_t sk[KIX_SMT_TILE_KEY_MAX];
    size_t sklen = kix_index_smt_store_key(key, klen, sk), len = 0;
    struct kix_bytes packed;
    unsigned vouched = 0;
    const uint8_t *kept = sklen ? kix__tile_keep_get(arg, sk, sklen, &len, &vouched) : NULL;
    int rc;

    if (kept) { /* the writer's, as an earlier transaction left it */
        out->ptr = kept;
        out->len = len;
        kix_smt_tile_vouch(kept, len, vouched); /* what this process computed */
        return KIX_OK;
    }
    rc = sklen ? kix_log_txn_get(arg, KIX_TABLE_SMT, sk, sklen, &packed) : KIX_ENOTFOUND;
    if (rc && rc != KIX_ENOTFOUND)
        return kix_err_set(err, rc, "reading the index tree: %s", kix_strerror(rc));
    if (rc == KIX_OK && !kix_smt_tile_packed(packed.ptr, packed.len)) {
        *out = packed; /* stored as it is */
    } else if (rc == KIX_OK) {
        if (kix_smt_tile_unpack(packed.ptr, packed.len, unpacked, &len) != KIX_OK)
            return kix_err_set(err, KIX_ECORRUPT,
                               "a packed sparse Merkle tile at stratum %u is malformed (%zu "
                               "bytes): the index store is damaged; rebuild it from the log",
                               klen ? key[0] : 0u, packed.len);
        out->ptr = unpacked;
        out->len = len;
        /* the records unpack derived: their children's hashes */
        kix_smt_tile_vouch(unpacked, len, kix_smt_tile_derived(packed.ptr, packed.len));
    }
    if (rc == KIX_OK)
        kix__tile_keep_put(arg, sk, sklen, out->ptr, out->len,
                           kix_smt_tile_vouched(out->ptr, out->len));
    return rc;
}

static int tile_put(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                    struct kix_err *err)
{
    uint8_t sk[KIX_SMT_TILE_KEY_MAX], packed[KIX_SMT_TILE_MAX];
    size_t sklen = kix_index_smt_store_key(key, klen, sk);
    int rc;

    if (!sklen || vlen > KIX_SMT_TILE_MAX)
        return kix_err_set(err, KIX_EINVAL, "a sparse Merkle tile of %zu bytes, key %zu", vlen,
                           klen);
    rc = kix_log_txn_put(arg, KIX_TABLE_SMT, sk, sklen, packed,
                         kix_smt_tile_pack(val, vlen, packed), err);
    if (rc == KIX_OK) /* what a get of it gives back: the value unpacked */
        kix__tile_keep_put(arg, sk, sklen, val, vlen, kix_smt_tile_vouched(val, vlen));
    return rc;
}

void kix__smt_tiles(struct kix_smt_tiles *tiles, struct kix_log_txn *t)
{
    kix_smt_tiles_init(tiles, tile_get, tile_put, t);
}

/* ---- records derived from the tables ------------------------------------------ */

/* The keys a batch changed, in the writer's scratch buffer, repeats
 * allowed: each as a 1-byte key length, the key (keys are under 256 bytes),
 * a 1-byte record length and the record (0: seal derives it). */
int kix__vindex_touch(struct kix_log_txn *t, const char *key, size_t len, const uint8_t *record,
                      size_t record_len, struct kix_err *err)
{
    struct kix_buf *b = kix_log_txn_scratch(t);
    int rc;

    if (!record)
        record_len = 0;
    if (!b || len > 255 || record_len > 255)
        return kix_err_set(err, KIX_EINVAL, "index key %.*s cannot be noted", (int)len, key);
    rc = kix_buf_addc(b, (uint8_t)len);
    if (rc == KIX_OK)
        rc = kix_buf_add(b, key, len);
    if (rc == KIX_OK)
        rc = kix_buf_addc(b, (uint8_t)record_len);
    if (rc == KIX_OK && record_len)
        rc = kix_buf_add(b, record, record_len);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* The size of one noted key in scratch (see kix__vindex_touch). */
static size_t touched_len(const uint8_t *p)
{
    return 1 + (size_t)p[0] + 1 + (size_t)p[1 + p[0]];
}

/* The run at the other end of a supersession entry. */
static void linked_run(struct kix_log_txn *t, uint64_t index, int successor,
                       char out[KIX_RUN_ID_MAX + 1])
{
    struct kix_bytes leaf;
    struct kix_entry e;

    out[0] = '\0';
    if (index == KIX_NO_INDEX || kix_log_txn_entry(t, index, &leaf) != KIX_OK ||
        kix_entry_parse_leaf(leaf.ptr, leaf.len, &e, NULL) != KIX_OK)
        return;
    memcpy(out, successor ? e.new_run_id : e.run_id, KIX_RUN_ID_MAX + 1);
    kix_entry_release(&e);
}

int kix__vindex_run_record(struct kix_log_txn *t, const struct kix_run_info *run,
                           struct kix_buf *out, struct kix_err *err)
{
    struct kix_vindex_run v;
    int rc;

    memset(&v, 0, sizeof(v));
    v.info = *run;
    linked_run(t, run->supersedes_index, 0, v.predecessor);
    linked_run(t, run->superseded_by_index, 1, v.successor);
    if ((run->supersedes_index != KIX_NO_INDEX && !v.predecessor[0]) ||
        (run->superseded_by_index != KIX_NO_INDEX && !v.successor[0]))
        return kix_err_set(err, KIX_ECORRUPT, "run %s names a supersession that does not parse",
                           run->run_id);
    rc = kix_vindex_run_encode(&v, out);
    return rc ? kix_err_set(err, rc, "encoding the record of run %s", run->run_id) : KIX_OK;
}

struct first_pub {
    struct kix_log_txn *t;
    char run_id[KIX_RUN_ID_MAX + 1];
    uint64_t index;
};

static int first_pub(void *arg, uint64_t index, int type)
{
    struct first_pub *f = arg;
    struct kix_bytes leaf;
    struct kix_entry_summary e;

    if (type != KIX_ENTRY_PUBLICATION)
        return 0;
    /* described, not parsed: an export asks for each manifest's record
     * twice (its file and its proof), and a thread's memo (kix/json.h)
     * keeps the summary of the leaf */
    if (kix_log_txn_entry(f->t, index, &leaf) == KIX_OK &&
        kix_entry_describe(leaf.ptr, leaf.len, &e, NULL) == KIX_OK) {
        memcpy(f->run_id, e.run_id, sizeof(f->run_id));
        f->index = index;
    }
    return 1;
}

/* The 64 hex digits after a key's prefix, as 32 bytes. */
static int hex_tail(const char *key, size_t len, size_t prefix, uint8_t out[32])
{
    return len == prefix + 64 && kix_hex_decode(key + prefix, 64, out, 32) == KIX_OK;
}

int kix__vindex_value(struct kix_log_txn *t, const char *key, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_digest d;
    int rc;

    if (len > 4 && memcmp(key, "run/", 4) == 0) {
        struct kix_run_info run;
        rc = kix__run_get(t, key + 4, len - 4, &run);
        if (rc)
            return rc == KIX_ENOTFOUND
                       ? rc
                       : kix_err_set(err, rc, "reading a run: %s", kix_strerror(rc));
        return kix__vindex_run_record(t, &run, out, err);
    }
    /* a group is in the tree once a run joined it (only a join or a leave
     * touches it), so also when its runs have all left: a record with no
     * member; whether a memberless group ever formed, only the tree says */
    if (len > 6 && memcmp(key, "group/", 6) == 0 && hex_tail(key, len, 6, d.b))
        return kix__group_directory(t, &d, out, err);
    if (len >= 6 + 64 + 1 && memcmp(key, "group/", 6) == 0 && key[70] == '/' &&
        len - 71 <= KIX_RUN_ID_MAX && hex_tail(key, 70, 6, d.b))
        return kix__group_page(t, &d, key + 71, len - 71, out, err);
    if (len > 4 && memcmp(key, "key/", 4) == 0 && hex_tail(key, len, 4, d.b)) {
        struct kix_key_info k;
        rc = kix_log_txn_key(t, d.b, &k);
        if (rc)
            return rc == KIX_ENOTFOUND
                       ? rc
                       : kix_err_set(err, rc, "reading a key: %s", kix_strerror(rc));
        rc = kix_vindex_key_encode(d.b, &k, out);
        return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
    }
    if (len > 9 && memcmp(key, "manifest/", 9) == 0 && hex_tail(key, len, 9, d.b)) {
        struct first_pub f = {t, "", KIX_NO_INDEX};
        rc = kix_log_txn_subject_entries(t, &d, first_pub, &f);
        if (rc)
            return kix_err_set(err, rc, "reading the subject index: %s", kix_strerror(rc));
        if (f.index == KIX_NO_INDEX)
            return KIX_ENOTFOUND;
        rc = kix_vindex_manifest_encode(&d, f.run_id, f.index, out);
        return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
    }
    if (len > 4 && memcmp(key, "sel/", 4) == 0)
        return kix__sel_value(t, key, len, out, err);
    if (len > 10 && memcmp(key, "withdrawn/", 10) == 0 && hex_tail(key, len, 10, d.b))
        return kix__withdrawn_record(t, &d, out, err);
    return KIX_ENOTFOUND; /* not a key of the index: never in the tree */
}

/* ---- sealing a checkpoint ---------------------------------------------------------- */

/* A key the batch touched: its path, and where its bytes are in scratch. */
struct touched_key {
    struct kix_hash path;
    size_t off;
};

/* The scratch buffer qsort's comparison reads the keys from (by_key). */
static _Thread_local const uint8_t *sorting;

/* By key, then by place in the batch: a key's last note ends its run. */
static int by_key(const void *a, const void *b)
{
    size_t x = ((const struct touched_key *)a)->off, y = ((const struct touched_key *)b)->off;
    const uint8_t *kx = sorting + x, *ky = sorting + y;
    int c = memcmp(kx + 1, ky + 1, kx[0] < ky[0] ? kx[0] : ky[0]);

    if (c == 0)
        c = (kx[0] > ky[0]) - (kx[0] < ky[0]);
    return c ? c : (x > y) - (x < y);
}

static int by_path(const void *a, const void *b)
{
    return memcmp(((const struct touched_key *)a)->path.b, ((const struct touched_key *)b)->path.b,
                  KIX_HASH_LEN);
}

/* The tiles a replay's seals keep (kix_log_txn_set_seal_state). */
static void free_kept_tiles(void *p)
{
    kix_smt_tiles_release(p);
    free(p);
}

int kix__vindex_seal(struct kix_log_txn *t, const char *origin, uint64_t size,
                     const struct kix_hash *log_root, struct kix_buf *note, struct kix_err *err)
{
    struct kix_buf *touched = kix_log_txn_scratch(t);
    struct touched_key *keys = NULL;
    struct kix_smt_update *up = NULL;
    struct kix_buf value = KIX_BUF_INIT;
    struct kix_smt_tiles local, *tiles = kix_log_txn_seal_state(t);
    struct kix_vindex_note n;
    size_t nup = 0, count = 0, k = 0;
    int more = kix_log_txn_seal_more(t), rc = KIX_OK;

    /* A replay seals at each upstream checkpoint of a batch: the tiles stay
     * in memory from one seal to the next (the top ones are read once, not
     * once a checkpoint) and are written at the batch's last seal. Every
     * seal still computes its root, for its own note. */
    if (!tiles && more) {
        tiles = malloc(sizeof(*tiles));
        if (tiles) {
            kix__smt_tiles(tiles, t);
            if (kix_log_txn_set_seal_state(t, tiles, free_kept_tiles) != KIX_OK) {
                free(tiles);
                tiles = NULL;
            }
        }
    }
    if (!tiles) {
        tiles = &local;
        kix__smt_tiles(tiles, t);
    }
    tiles->ctx = t; /* this seal's view of the same transaction */

    for (size_t off = 0; touched && off < touched->len; off += touched_len(touched->ptr + off))
        count++;
    up = malloc((count ? count : 1) * sizeof(*up));
    keys = malloc((count ? count : 1) * sizeof(*keys));
    if (!up || !keys) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    /* each key once, its record as the batch left it (its last note), and
     * hashed to its path once: a batch notes its groups and keys again
     * for every entry about them, ~2.5 notes a key at 8x16 */
    for (size_t off = 0, i = 0; i < count; off += touched_len(touched->ptr + off))
        keys[i++].off = off;
    sorting = count ? touched->ptr : NULL;
    qsort(keys, count, sizeof(*keys), by_key);
    for (size_t i = 0; i < count; i++) {
        const uint8_t *key = touched->ptr + keys[i].off;
        const uint8_t *next = i + 1 < count ? touched->ptr + keys[i + 1].off : NULL;
        if (next && next[0] == key[0] && memcmp(next + 1, key + 1, key[0]) == 0)
            continue; /* a later note of the same key follows */
        kix_smt_path(key + 1, key[0], &keys[nup].path);
        keys[nup++].off = keys[i].off;
    }
    qsort(keys, nup, sizeof(*keys), by_path);
    for (size_t i = 0; i < nup; i++) {
        size_t off = keys[i].off;
        if (k > 0 && memcmp(up[k - 1].path.b, keys[i].path.b, KIX_HASH_LEN) == 0)
            continue;
        const uint8_t *rec = touched->ptr + off + 1 + touched->ptr[off];
        up[k].path = keys[i].path;
        if (rec[0]) {
            kix_smt_value_hash(rec + 1, rec[0], &up[k++].value_hash);
            continue;
        }
        kix_buf_reset(&value);
        rc = kix__vindex_value(t, (const char *)touched->ptr + off + 1, touched->ptr[off], &value,
                               err);
        if (rc)
            goto out;
        kix_smt_value_hash(value.ptr, value.len, &up[k].value_hash);
        k++;
    }
    memset(&n, 0, sizeof(n));
    rc = kix_smt_apply(&tiles->io, up, k, &n.index_root, err);
    /* the changed tiles, each once, in this transaction: an error aborts it */
    if (rc == KIX_OK && (tiles == &local || !more))
        rc = kix_smt_tiles_flush(tiles, err);
    if (touched)
        kix_buf_reset(touched);
    if (rc)
        goto out;
    snprintf(n.origin, sizeof(n.origin), "%s", origin);
    n.size = size;
    n.log_root = *log_root;
    rc = kix_vindex_note_text(&n, note);
    if (rc)
        kix_err_set(err, rc, "out of memory");
out:
    if (tiles == &local)
        kix_smt_tiles_release(&local); /* a kept cache: the log frees it */
    kix_buf_release(&value);
    free(keys);
    free(up);
    return rc;
}

int kix__vindex_reset(struct kix_log_txn *t, struct kix_err *err)
{
    static const enum kix__index_table tables[] = {
        KIX_TABLE_RUNS,         KIX_TABLE_RUN_ENTRIES, KIX_TABLE_GROUPS,    KIX_TABLE_SMT,
        KIX_TABLE_GROUP_STARTS, KIX_TABLE_SELECTIONS,  KIX_TABLE_WITHDRAWN, KIX_TABLE_FINDINGS};
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < sizeof(tables) / sizeof(tables[0]); i++)
        rc = kix_log_txn_clear(t, tables[i], err);
    return rc;
}

/* ---- readers ------------------------------------------------------------------------ */

/* A group directory or page record with no member. */
static int memberless(const uint8_t *v, size_t len)
{
    if (len >= 1 + 32 + 8 && v[0] == KIX_VINDEX_GROUP)
        return kix_u64be_get(v + 33) == 0;
    if (len >= 1 + 32 + 1 && v[0] == KIX_VINDEX_GROUP_PAGE && len == (size_t)1 + 32 + 1 + v[33] + 8)
        return kix_u64be_get(v + 34 + v[33]) == 0;
    if (len == 1 + 32 + 8 && v[0] == KIX_VINDEX_WITHDRAWN)
        return kix_u64be_get(v + 33) == 0;
    return 0;
}

int kix_index_prove(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *value,
                    struct kix_buf *proof, int *present, struct kix_err *err)
{
    struct kix_log_txn *t = kix_log_reader_txn(r);
    struct kix_smt_tiles tiles;
    struct kix_hash path;
    size_t before = value->len;
    int rc = kix__vindex_value(t, key, len, value, err), in_tree;

    if (rc && rc != KIX_ENOTFOUND)
        return rc;
    *present = rc == KIX_OK;
    kix__smt_tiles(&tiles, t);
    kix_smt_path(key, len, &path);
    rc = kix_smt_prove(&tiles.io, &path, proof, &in_tree, NULL, err);
    kix_smt_tiles_release(&tiles);
    if (rc)
        return rc;
    /* a group whose runs all left, or a page whose first run left, is in
     * the tree only if it ever held one */
    if (*present && !in_tree && memberless(value->ptr + before, value->len - before)) {
        *present = 0;
        value->len = before;
    }
    /* The record comes from the tables, the proof from the tree; both are
     * written in one transaction, so they agree unless the store was
     * altered, which the client then sees (the proof does not verify) and
     * kixd check names. The server does not vouch for its own disk. */
    return KIX_OK;
}

/* ---- every key, for comparisons ---------------------------------------------------- */

struct each {
    struct kix_log_txn *t;
    kix_vindex_key_fn fn;
    void *ctx;
    struct kix_err *err;
    struct kix_buf value;
    uint8_t last_group[32];
    int have_group, stopped, rc;
};

/* The record of one key through e->fn; 1 when the walk is to stop. */
static int each_one(struct each *e, const char *key, size_t len)
{
    struct kix_hash vh;
    int rc;

    kix_buf_reset(&e->value);
    rc = kix__vindex_value(e->t, key, len, &e->value, e->err);
    if (rc == KIX_ENOTFOUND)
        return 0;
    if (rc) {
        e->rc = rc;
        return 1;
    }
    kix_smt_value_hash(e->value.ptr, e->value.len, &vh);
    rc = e->fn(e->ctx, key, len, &vh);
    if (rc < 0)
        e->rc = rc;
    e->stopped = rc != 0;
    return rc != 0;
}

static int each_run(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct each *e = arg;
    struct kix_run_info run;
    char key[KIX_VINDEX_KEY_MAX + 1];

    if (k->len == 0 || k->len > KIX_RUN_ID_MAX || memchr(k->ptr, 0, k->len) ||
        kix__run_record_decode(e->t, v->ptr, v->len, &run))
        return 0;
    if (each_one(e, key, kix_vindex_key_run((const char *)k->ptr, k->len, key)))
        return 1;
    return each_one(e, key, kix_vindex_key_manifest(&run.manifest, key));
}

struct each_member {
    struct each *e;
    const uint8_t *prefix;
    struct kix_digest g;
    int first;
};

static int each_member(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct each_member *m = arg;
    char key[KIX_VINDEX_KEY_MAX + 1];

    if (k->len <= KIX__GROUP_ID_AT || k->len - KIX__GROUP_ID_AT > KIX_RUN_ID_MAX ||
        memcmp(k->ptr, m->prefix, KIX__GROUP_PREFIX) != 0)
        return 1; /* past the group */
    if (m->first) {
        m->first = 0;
        if (each_one(m->e, key, kix_vindex_key_group(&m->g, key)) ||
            each_one(m->e, key, kix_vindex_key_group_page(&m->g, "", key)))
            return 1;
    }
    /* the pages of runs that start one (those of runs that left are not
     * listed: a comparison of two indexes finds them by the directory) */
    if (v->len > 0 && v->ptr[0] == 1) {
        char id[KIX_RUN_ID_MAX + 1];
        memcpy(id, k->ptr + KIX__GROUP_ID_AT, k->len - KIX__GROUP_ID_AT);
        id[k->len - KIX__GROUP_ID_AT] = '\0';
        return each_one(m->e, key, kix_vindex_key_group_page(&m->g, id, key));
    }
    return 0;
}

/* A group (numbered: in the comparison keys' order) that ranks a run. */
static int each_group(void *arg, const uint8_t name[32], uint32_t num)
{
    struct each *e = arg;
    uint8_t prefix[KIX__GROUP_PREFIX];
    struct each_member m = {e, prefix, {{0}}, 1};
    int rc;

    kix_u32be_put(prefix, num);
    memcpy(m.g.b, name, 32);
    rc = kix_log_txn_scan(e->t, KIX_TABLE_GROUPS, prefix, sizeof(prefix), each_member, &m);
    if (rc)
        e->rc = rc;
    return rc || e->stopped || e->rc;
}

/* A selection list's head (stored) and its pages (made from its items). */
static int each_selection(void *arg, const char *list, size_t n, uint64_t items)
{
    char key[KIX_SEL_KEY_MAX + 1];

    if (n < 4 || each_one(arg, list, n))
        return n < 4 ? 0 : 1;
    for (uint64_t pg = 0; pg * KIX_SEL_PAGE < items; pg++) {
        int w = snprintf(key, sizeof(key), "%.*s/%llu", (int)n, list, (unsigned long long)pg);
        if (w > 0 && (size_t)w < sizeof(key) && each_one(arg, key, (size_t)w))
            return 1;
    }
    return 0;
}

static int each_withdrawn(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct each *e = arg;
    struct kix_digest g;
    uint8_t prefix[KIX__GROUP_PREFIX];
    char key[KIX_VINDEX_KEY_MAX + 1];
    int ranks = 0, rc;

    (void)v;
    if (k->len <= 32 || (e->have_group && memcmp(e->last_group, k->ptr, 32) == 0))
        return 0;
    memcpy(e->last_group, k->ptr, 32);
    e->have_group = 1;
    memcpy(g.b, k->ptr, 32);
    /* a group whose every run is withdrawn ranks none, so the groups
     * table (each_group) does not name it, but its directory and first
     * page stay in the tree (empty): they are named here */
    rc = kix__group_prefix(e->t, &g, 0, prefix, NULL);
    if (rc == KIX_OK)
        rc = kix__group_ranks(e->t, prefix, &ranks);
    if (rc && rc != KIX_ENOTFOUND) {
        e->rc = rc;
        return 1;
    }
    if (!ranks && (each_one(e, key, kix_vindex_key_group(&g, key)) ||
                   each_one(e, key, kix_vindex_key_group_page(&g, "", key))))
        return 1;
    return each_one(e, key, kix_vindex_key_withdrawn(&g, key));
}

static int each_registry_key(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct each *e = arg;
    char key[KIX_VINDEX_KEY_MAX + 1];

    (void)v;
    if (k->len != 32)
        return 0;
    return each_one(e, key, kix_vindex_key_key(k->ptr, key));
}

int kix_index_each_key(struct kix_log_txn *t, kix_vindex_key_fn fn, void *ctx, struct kix_err *err)
{
    struct each e;
    int rc;

    memset(&e, 0, sizeof(e));
    e.t = t;
    e.fn = fn;
    e.ctx = ctx;
    e.err = err;
    kix_buf_init(&e.value);
    rc = kix_log_txn_scan(t, KIX_TABLE_RUNS, NULL, 0, each_run, &e);
    if (rc == KIX_OK && !e.stopped)
        rc = kix__numbers_each(t, KIX__NUMBER_GROUP, each_group, &e);
    if (rc == KIX_OK && !e.stopped)
        rc = kix__sel_each_list(t, each_selection, &e);
    if (rc == KIX_OK && !e.stopped) {
        e.have_group = 0; /* the groups with a withdrawn run now (as groups: those ranked) */
        rc = kix_log_txn_scan(t, KIX_TABLE_WITHDRAWN, NULL, 0, each_withdrawn, &e);
    }
    if (rc == KIX_OK && !e.stopped)
        rc = kix_log_txn_scan_keys(t, each_registry_key, &e);
    kix_buf_release(&e.value);
    if (rc == KIX_OK)
        rc = e.rc;
    return rc;
}
