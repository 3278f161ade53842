/* Run records: their fixed binary layout, their writes, and the readers
 * that find a run by id or manifest digest and list its entries. */
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"

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

size_t kix__run_record_encode(const struct kix_run_info *r, uint8_t out[RUN_RECORD_MAX])
{
    const uint64_t numbers[RUN_NUMBERS] = {r->publication_index,
                                           r->superseded_by_index + 1,
                                           r->supersedes_index + 1,
                                           r->withdrawn_index + 1,
                                           r->evidence_index + 1,
                                           r->attestations,
                                           r->reruns,
                                           r->entries,
                                           r->value};
    size_t n = 66;

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

int kix__run_record_decode(const uint8_t *data, size_t len, struct kix_run_info *r)
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
    r->publication_index = x[0];
    r->superseded_by_index = x[1] - 1;
    r->supersedes_index = x[2] - 1;
    r->withdrawn_index = x[3] - 1;
    r->evidence_index = x[4] - 1;
    r->attestations = x[5];
    r->reruns = x[6];
    r->entries = x[7];
    r->value = x[8];
    return KIX_OK;
}

int kix__run_get(struct kix_log_txn *t, const char *run_id, size_t len, struct kix_run_info *r)
{
    struct kix_bytes val;
    int rc;

    if (!kix_run_id_valid(run_id, len))
        return KIX_ENOTFOUND;
    rc = kix_log_txn_get(t, KIX_TABLE_RUNS, run_id, len, &val);
    if (rc)
        return rc;
    rc = kix__run_record_decode(val.ptr, val.len, r);
    if (rc == KIX_OK) {
        memcpy(r->run_id, run_id, len);
        r->run_id[len] = '\0';
    }
    return rc;
}

int kix__run_put(struct kix_log_txn *t, const struct kix_run_info *r, struct kix_err *err)
{
    uint8_t rec[RUN_RECORD_MAX];
    size_t n;

    /* the record every verifier decodes (C, kix-verify.js, vindex_verify.py)
     * refuses these; the indexer must never write one */
    KIX_ASSERT(r->run_id[0] != '\0' && strlen(r->run_id) <= KIX_RUN_ID_MAX);
    KIX_ASSERT(!r->grouped ||
               (r->withdrawn_index == KIX_NO_INDEX && r->superseded_by_index == KIX_NO_INDEX));
    KIX_ASSERT(r->evidence_index == KIX_NO_INDEX || r->reruns > 0); /* only a rerun sets it */
    KIX_ASSERT(r->attestations + r->reruns <= r->entries);          /* each is an entry */
    n = kix__run_record_encode(r, rec);
    return kix_log_txn_put(t, KIX_TABLE_RUNS, r->run_id, strlen(r->run_id), rec, n, err);
}

int kix__run_entry_put(struct kix_log_txn *t, const char *run_id, size_t len, uint64_t index,
                       int type, struct kix_err *err)
{
    uint8_t k[KIX_RUN_ID_MAX + 9], v = (uint8_t)type;

    KIX_ASSERT(len > 0 && len <= KIX_RUN_ID_MAX);
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

static int entries_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct entries_ctx *c = arg;
    uint64_t index;

    if (key->len != c->prefix_len + 8 || memcmp(key->ptr, c->prefix, c->prefix_len) != 0)
        return 1;
    index = kix_u64be_get(key->ptr + c->prefix_len);
    if (index >= c->size)
        return 0; /* after this snapshot's checkpoint */
    struct kix_run_entry *nl = kix_array_grow(c->list, &c->cap, c->count, 8, sizeof(*nl));
    if (!nl)
        return KIX_ENOMEM;
    c->list = nl;
    c->list[c->count].index = index;
    c->list[c->count].type = val->len ? val->ptr[0] : 0;
    c->count++;
    return 0;
}

int kix_index_run_entries(struct kix_log_reader *r, const char *run_id, size_t len,
                          struct kix_run_entry **out, size_t *n)
{
    uint8_t k[KIX_RUN_ID_MAX + 1];
    struct entries_ctx c = {k, len + 1, kix_log_reader_size(r), NULL, 0, 0};
    int rc;

    *out = NULL;
    *n = 0;
    if (!kix_run_id_valid(run_id, len))
        return KIX_ENOTFOUND;
    memcpy(k, run_id, len);
    k[len] = 0;
    rc = kix_log_txn_scan(kix_log_reader_txn(r), KIX_TABLE_RUNS, k, len + 1, entries_step, &c);
    if (rc) {
        free(c.list);
        return rc;
    }
    *out = c.list;
    *n = c.count;
    return KIX_OK;
}
