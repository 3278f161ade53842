/* Run records: their fixed binary layout, their writes, and the readers
 * that find a run by id or manifest digest and list its entries. */
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/merkle.h"
#include "kix/vindex.h"

/* The variable layout (kix-index/7): manifest(32) ‖ publisher(32) ‖ flags
 * (bit 0 grouped, bit 1 a comparison key follows the numbers) ‖ evidence ‖
 * uvarints: publication index, superseded by + 1, supersedes + 1,
 * withdrawn + 1, evidence index + 1 (KIX_NO_INDEX + 1 wraps to 0, one
 * byte), attestations, reruns, entries, value ‖ [comparison key(32)] ‖
 * entries chain(32), then one 0 byte where the length would be a fixed
 * layout's. ~140 bytes, not 202: a run's indexes are mostly absent, its
 * counts small. */
#define FLAG_GROUPED 1u
#define FLAG_KEYED   2u
#define RUN_NUMBERS  9

static int fixed_len(size_t len)
{
    return len == RUN_RECORD_LEN_V1 || len == RUN_RECORD_LEN_V2 || len == RUN_RECORD_LEN_V3;
}

static int no_key(const struct kix_digest *d)
{
    static const struct kix_digest zero;
    return memcmp(d->b, zero.b, 32) == 0;
}

/* The nine uvarints of the variable layouts, and back. */
static void numbers_of(const struct kix_run_info *r, uint64_t out[RUN_NUMBERS])
{
    const uint64_t x[RUN_NUMBERS] = {r->publication_index,
                                     r->superseded_by_index + 1,
                                     r->supersedes_index + 1,
                                     r->withdrawn_index + 1,
                                     r->evidence_index + 1,
                                     r->attestations,
                                     r->reruns,
                                     r->entries,
                                     r->value};
    memcpy(out, x, sizeof(x));
}

static void take_numbers(struct kix_run_info *r, const uint64_t x[RUN_NUMBERS])
{
    r->publication_index = x[0];
    r->superseded_by_index = x[1] - 1;
    r->supersedes_index = x[2] - 1;
    r->withdrawn_index = x[3] - 1;
    r->evidence_index = x[4] - 1;
    r->attestations = x[5];
    r->reruns = x[6];
    r->entries = x[7];
    r->value = x[8];
}

size_t kix__run_record_encode(const struct kix_run_info *r, uint8_t out[RUN_RECORD_MAX])
{
    uint64_t numbers[RUN_NUMBERS];
    size_t n = 66;

    numbers_of(r, numbers);
    memcpy(out, r->manifest.b, 32);
    memcpy(out + 32, r->publisher, 32);
    out[64] =
        (uint8_t)((r->grouped ? FLAG_GROUPED : 0) | (no_key(&r->comparison_key) ? 0 : FLAG_KEYED));
    out[65] = (uint8_t)r->evidence;
    for (int i = 0; i < RUN_NUMBERS; i++)
        n += kix_uvarint_put(out + n, numbers[i]);
    if (out[64] & FLAG_KEYED) {
        memcpy(out + n, r->comparison_key.b, 32);
        n += 32;
    }
    memcpy(out + n, r->entries_chain.b, 32);
    n += 32;
    if (fixed_len(n))
        out[n++] = 0;
    return n;
}

/* The fixed layouts of kix-index/6 and older (read-only opens of an old
 * store; a writable open rebuilds the index). */
static void decode_fixed(const uint8_t *data, size_t len, struct kix_run_info *r)
{
    const uint8_t *p = data + 64;

    r->publication_index = kix_u64be_get(p);
    r->superseded_by_index = kix_u64be_get(p + 8);
    r->supersedes_index = kix_u64be_get(p + 16);
    r->evidence_index = kix_u64be_get(p + 24);
    r->attestations = kix_u64be_get(p + 32);
    r->reruns = kix_u64be_get(p + 40);
    r->evidence = p[56];
    memcpy(r->comparison_key.b, p + 57, 32);
    r->value = kix_u64be_get(p + 89);
    r->grouped = p[97];
    /* V1: before the verifiable index */
    r->entries = len != RUN_RECORD_LEN_V1 ? kix_u64be_get(p + 48) : 0;
    memset(r->entries_chain.b, 0, 32);
    if (len != RUN_RECORD_LEN_V1)
        memcpy(r->entries_chain.b, p + 98, 32);
    /* before kix-index/5 no run was withdrawn */
    r->withdrawn_index = len == RUN_RECORD_LEN_V3 ? kix_u64be_get(p + 130) : KIX_NO_INDEX;
}

/* kix-index/7 and /8 (read-only opens of such a store) and the fixed
 * layouts before them. */
static int decode_v7(const uint8_t *data, size_t len, struct kix_run_info *r)
{
    const uint8_t *p = data + 66, *end = data + len;
    uint64_t x[RUN_NUMBERS];

    if (len < 66 + RUN_NUMBERS + 32)
        return KIX_ECORRUPT;
    memcpy(r->manifest.b, data, 32);
    memcpy(r->publisher, data + 32, 32);
    if (fixed_len(len)) {
        decode_fixed(data, len, r);
        return KIX_OK;
    }
    if (data[64] & ~(FLAG_GROUPED | FLAG_KEYED))
        return KIX_ECORRUPT;
    for (int i = 0; i < RUN_NUMBERS; i++)
        if (kix_uvarint_get(&p, end, &x[i]) != KIX_OK)
            return KIX_ECORRUPT;
    memset(r->comparison_key.b, 0, 32);
    if (data[64] & FLAG_KEYED) {
        if ((size_t)(end - p) < 32)
            return KIX_ECORRUPT;
        memcpy(r->comparison_key.b, p, 32);
        p += 32;
    }
    if ((size_t)(end - p) < 32)
        return KIX_ECORRUPT;
    memcpy(r->entries_chain.b, p, 32);
    p += 32;
    /* nothing after, but the 0 that keeps the length off the fixed ones */
    if (p != end && !(p + 1 == end && *p == 0 && fixed_len(len - 1)))
        return KIX_ECORRUPT;
    r->grouped = (data[64] & FLAG_GROUPED) != 0;
    r->evidence = data[65];
    take_numbers(r, x);
    return KIX_OK;
}

/* kix-index/9: manifest(32) ‖ flags (bit 0 grouped, bit 1 in a
 * comparison group, bit 2 the chain follows) ‖ evidence ‖ uvarints: the
 * publisher key's number, the comparison group's number (bit 1), then
 * kix-index/7's nine ‖ [entries chain(32)]. The keys are numbered in
 * the runs table (numbers.c); the chain of a run whose one entry is its
 * publication is not stored but computed from that entry's leaf, and the
 * publication has no entry record (kix__run_entry_put): ~50 bytes a run
 * with one entry, not ~140 and a 25-byte entry record. */
#define FLAG_CHAIN    4u
#define V9_NUMBERS    (2 + RUN_NUMBERS)
#define V9_RECORD_MAX (32 + 2 + V9_NUMBERS * KIX_UVARINT_MAX + 32)

/* The chain of a run whose only entry is its publication at index. */
static int chain_of_publication(struct kix_log_txn *t, uint64_t index, struct kix_hash *chain)
{
    static const struct kix_hash none;
    struct kix_bytes leaf;
    struct kix_hash lh;
    int rc = kix_log_txn_entry(t, index, &leaf);

    if (rc)
        return rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc;
    kix_merkle_leaf_hash(leaf.ptr, leaf.len, &lh);
    kix_vindex_chain(&none, index, &lh, chain);
    return KIX_OK;
}

/* whole 0: the numbers only, not the keys and chain (which cost reads) */
static int decode_v9(struct kix_log_txn *t, const uint8_t *data, size_t len, struct kix_run_info *r,
                     int whole)
{
    const uint8_t *p = data + 34, *end = data + len;
    uint64_t x[V9_NUMBERS] = {0};
    uint8_t flags;
    int rc;

    if (len < 34 + V9_NUMBERS - 1)
        return KIX_ECORRUPT;
    flags = data[32];
    if (flags & ~(FLAG_GROUPED | FLAG_KEYED | FLAG_CHAIN))
        return KIX_ECORRUPT;
    for (int i = 0; i < V9_NUMBERS; i++)
        if ((i != 1 || (flags & FLAG_KEYED)) && kix_uvarint_get(&p, end, &x[i]) != KIX_OK)
            return KIX_ECORRUPT;
    if ((size_t)(end - p) != ((flags & FLAG_CHAIN) ? 32u : 0u))
        return KIX_ECORRUPT;
    memcpy(r->manifest.b, data, 32);
    r->grouped = (flags & FLAG_GROUPED) != 0;
    r->evidence = data[33];
    take_numbers(r, x + 2);
    memset(r->comparison_key.b, 0, 32);
    if (!whole)
        return KIX_OK;
    rc = kix__number_name(t, KIX__NUMBER_PUBLISHER, x[0], r->publisher);
    if (rc == KIX_OK && (flags & FLAG_KEYED))
        rc = kix__number_name(t, KIX__NUMBER_GROUP, x[1], r->comparison_key.b);
    if (rc == KIX_OK && (flags & FLAG_CHAIN))
        memcpy(r->entries_chain.b, p, 32);
    else if (rc == KIX_OK)
        rc = r->entries == 1 ? chain_of_publication(t, r->publication_index, &r->entries_chain)
                             : KIX_ECORRUPT;
    return rc;
}

/* The stored record of r, its keys numbered (made when new). */
static int encode_v9(struct kix_log_txn *t, const struct kix_run_info *r,
                     uint8_t out[V9_RECORD_MAX], size_t *len, struct kix_err *err)
{
    uint32_t publisher = 0, group = 0;
    int keyed = !no_key(&r->comparison_key), chain = r->entries != 1;
    int rc = kix__name_number(t, KIX__NUMBER_PUBLISHER, r->publisher, 1, &publisher, err);
    uint64_t numbers[RUN_NUMBERS];
    size_t n = 34;

    if (rc == KIX_OK && keyed)
        rc = kix__name_number(t, KIX__NUMBER_GROUP, r->comparison_key.b, 1, &group, err);
    if (rc)
        return rc;
    numbers_of(r, numbers);
    memcpy(out, r->manifest.b, 32);
    out[32] = (uint8_t)((r->grouped ? FLAG_GROUPED : 0) | (keyed ? FLAG_KEYED : 0) |
                        (chain ? FLAG_CHAIN : 0));
    out[33] = (uint8_t)r->evidence;
    n += kix_uvarint_put(out + n, publisher);
    if (keyed)
        n += kix_uvarint_put(out + n, group);
    for (int i = 0; i < RUN_NUMBERS; i++)
        n += kix_uvarint_put(out + n, numbers[i]);
    if (chain) {
        memcpy(out + n, r->entries_chain.b, 32);
        n += 32;
    }
    *len = n;
    return KIX_OK;
}

int kix__run_record_decode(struct kix_log_txn *t, const uint8_t *data, size_t len,
                           struct kix_run_info *r)
{
    return kix__numbers_kept(t) ? decode_v9(t, data, len, r, 1) : decode_v7(data, len, r);
}

static int run_read(struct kix_log_txn *t, const char *run_id, size_t len, struct kix_run_info *r,
                    int whole)
{
    struct kix_bytes val;
    int rc;

    if (!kix_run_id_valid(run_id, len))
        return KIX_ENOTFOUND;
    rc = kix_log_txn_get(t, KIX_TABLE_RUNS, run_id, len, &val);
    if (rc)
        return rc;
    rc = kix__numbers_kept(t) ? decode_v9(t, val.ptr, val.len, r, whole)
                              : decode_v7(val.ptr, val.len, r);
    if (rc == KIX_OK) {
        memcpy(r->run_id, run_id, len);
        r->run_id[len] = '\0';
    }
    return rc;
}

int kix__run_get(struct kix_log_txn *t, const char *run_id, size_t len, struct kix_run_info *r)
{
    return run_read(t, run_id, len, r, 1);
}

int kix__run_put(struct kix_log_txn *t, const struct kix_run_info *r, struct kix_err *err)
{
    uint8_t rec[V9_RECORD_MAX];
    size_t n = 0;
    int rc;

    /* the record every verifier decodes (C, kix-verify.js, vindex_verify.py)
     * refuses these; the indexer must never write one */
    KIX_ASSERT(r->run_id[0] != '\0' && strlen(r->run_id) <= KIX_RUN_ID_MAX);
    KIX_ASSERT(!r->grouped ||
               (r->withdrawn_index == KIX_NO_INDEX && r->superseded_by_index == KIX_NO_INDEX));
    KIX_ASSERT(r->evidence_index == KIX_NO_INDEX || r->reruns > 0); /* only a rerun sets it */
    KIX_ASSERT(r->attestations + r->reruns <= r->entries);          /* each is an entry */
    KIX_ASSERT(r->entries >= 1);                                    /* its publication */
    rc = encode_v9(t, r, rec, &n, err);
    return rc ? rc : kix_log_txn_put(t, KIX_TABLE_RUNS, r->run_id, strlen(r->run_id), rec, n, err);
}

int kix__run_entry_put(struct kix_log_txn *t, const char *run_id, size_t len, uint64_t index,
                       int type, struct kix_err *err)
{
    uint8_t k[KIX_RUN_ID_MAX + 9], v = (uint8_t)type;

    KIX_ASSERT(len > 0 && len <= KIX_RUN_ID_MAX);
    if (type == KIX_ENTRY_PUBLICATION)
        return KIX_OK; /* the run's record holds its index */
    memcpy(k, run_id, len);
    k[len] = 0;
    kix_u64be_put(k + len + 1, index);
    /* beside the run's record in the runs table (kix-index/6): the page
     * the entry rewrites for the record takes this too */
    return kix_log_txn_put(t, KIX_TABLE_RUNS, k, len + 9, &v, 1, err);
}

int kix_index_run(struct kix_log_reader *r, const char *run_id, size_t len,
                  struct kix_run_info *out)
{
    return kix__run_get(kix_log_reader_txn(r), run_id, len, out);
}

struct publication_ctx {
    struct kix_log_txn *t;
    struct kix_run_info *out;
    int rc;
};

/* The publication among the entries whose subject is d names the run. */
static int publication_step(void *arg, uint64_t index, int type)
{
    struct publication_ctx *c = arg;
    struct kix_bytes leaf = {NULL, 0};
    struct kix_entry e;

    if (type != KIX_ENTRY_PUBLICATION)
        return 0;
    c->rc = kix_log_txn_entry(c->t, index, &leaf);
    if (c->rc) {
        c->rc = c->rc == KIX_ENOTFOUND ? KIX_ECORRUPT : c->rc;
        return 1;
    }
    c->rc = kix_entry_parse_leaf(leaf.ptr, leaf.len, &e, NULL);
    kix_entry_release(&e);
    if (c->rc) {
        c->rc = KIX_ECORRUPT;
        return 1;
    }
    c->rc = kix__run_get(c->t, e.run_id, e.run_id_len, c->out);
    return 1;
}

int kix_index_run_by_digest(struct kix_log_reader *r, const struct kix_digest *d,
                            struct kix_run_info *out)
{
    struct publication_ctx c = {kix_log_reader_txn(r), out, KIX_ENOTFOUND};
    int rc = kix_log_txn_subject_entries(c.t, d, publication_step, &c);
    return rc ? rc : c.rc;
}

struct entries_ctx {
    const uint8_t *prefix;
    size_t prefix_len;
    uint64_t size;
    struct kix_run_entry *list;
    size_t count, cap;
};

static int entries_add(struct entries_ctx *c, uint64_t index, int type)
{
    struct kix_run_entry *nl = kix_array_grow(c->list, &c->cap, c->count, 8, sizeof(*nl));
    if (!nl)
        return KIX_ENOMEM;
    c->list = nl;
    c->list[c->count].index = index;
    c->list[c->count].type = type;
    c->count++;
    return KIX_OK;
}

static int entries_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct entries_ctx *c = arg;
    uint64_t index;

    if (key->len != c->prefix_len + 8 || memcmp(key->ptr, c->prefix, c->prefix_len) != 0)
        return 1;
    index = kix_u64be_get(key->ptr + c->prefix_len);
    if (index >= c->size)
        return 0; /* after this snapshot's checkpoint */
    /* an index older than kix-index/9 stored the publication's record too */
    if (c->count == 1 && c->list[0].index == index)
        return 0;
    return entries_add(c, index, val->len ? val->ptr[0] : 0);
}

int kix_index_run_entries(struct kix_log_reader *r, const char *run_id, size_t len,
                          struct kix_run_entry **out, size_t *n)
{
    uint8_t k[KIX_RUN_ID_MAX + 1];
    struct entries_ctx c = {k, len + 1, kix_log_reader_size(r), NULL, 0, 0};
    struct kix_run_info run;
    int rc;

    *out = NULL;
    *n = 0;
    if (!kix_run_id_valid(run_id, len))
        return KIX_ENOTFOUND;
    memcpy(k, run_id, len);
    k[len] = 0;
    rc = run_read(kix_log_reader_txn(r), run_id, len, &run, 0); /* its publication index */
    if (rc == KIX_ENOTFOUND) /* no record: no entries (and none stored) */
        rc = KIX_OK;
    else if (rc == KIX_OK && run.publication_index < c.size)
        rc = entries_add(&c, run.publication_index, KIX_ENTRY_PUBLICATION);
    if (rc == KIX_OK)
        rc = kix_log_txn_scan(kix_log_reader_txn(r), KIX_TABLE_RUNS, k, len + 1, entries_step, &c);
    if (rc) {
        free(c.list);
        return rc;
    }
    *out = c.list;
    *n = c.count;
    return KIX_OK;
}
