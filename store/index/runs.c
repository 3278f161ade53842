/* Run records: their fixed binary layout, their writes, and the readers
 * that find a run by id or manifest digest and list its entries. */
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"

void kix__run_record_encode(const struct kix_run_info *r, uint8_t out[RUN_RECORD_LEN])
{
    uint8_t *p = out;
    memcpy(p, r->manifest.b, 32);
    memcpy(p + 32, r->publisher, 32);
    p += 64;
    kix_u64be_put(p, r->publication_index);
    kix_u64be_put(p + 8, r->superseded_by_index);
    kix_u64be_put(p + 16, r->supersedes_index);
    kix_u64be_put(p + 24, r->evidence_index);
    kix_u64be_put(p + 32, r->attestations);
    kix_u64be_put(p + 40, r->reruns);
    kix_u64be_put(p + 48, r->entries);
    p[56] = (uint8_t)r->evidence;
    memcpy(p + 57, r->comparison_key.b, 32);
    kix_u64be_put(p + 89, r->value);
    p[97] = (uint8_t)r->grouped;
    memcpy(p + 98, r->entries_chain.b, 32);
    kix_u64be_put(p + 130, r->withdrawn_index);
}

int kix__run_record_decode(const uint8_t *data, size_t len, struct kix_run_info *r)
{
    const uint8_t *p = data + 64;
    /* RUN_RECORD_LEN_V1: before the verifiable index (read-only opens of
     * an old store; a writable open rebuilds the index) */
    if (len != RUN_RECORD_LEN && len != RUN_RECORD_LEN_V2 && len != RUN_RECORD_LEN_V1)
        return KIX_ECORRUPT;
    memcpy(r->manifest.b, data, 32);
    memcpy(r->publisher, data + 32, 32);
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
    r->entries = len != RUN_RECORD_LEN_V1 ? kix_u64be_get(p + 48) : 0;
    memset(r->entries_chain.b, 0, 32);
    if (len != RUN_RECORD_LEN_V1)
        memcpy(r->entries_chain.b, p + 98, 32);
    /* before kix-index/5 no run was withdrawn */
    r->withdrawn_index = len == RUN_RECORD_LEN ? kix_u64be_get(p + 130) : KIX_NO_INDEX;
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
    uint8_t rec[RUN_RECORD_LEN];

    /* the record every verifier decodes (C, kix-verify.js, vindex_verify.py)
     * refuses these; the indexer must never write one */
    KIX_ASSERT(r->run_id[0] != '\0' && strlen(r->run_id) <= KIX_RUN_ID_MAX);
    KIX_ASSERT(!r->grouped ||
               (r->withdrawn_index == KIX_NO_INDEX && r->superseded_by_index == KIX_NO_INDEX));
    KIX_ASSERT(r->evidence_index == KIX_NO_INDEX || r->reruns > 0); /* only a rerun sets it */
    KIX_ASSERT(r->attestations + r->reruns <= r->entries);          /* each is an entry */
    kix__run_record_encode(r, rec);
    return kix_log_txn_put(t, KIX_TABLE_RUNS, r->run_id, strlen(r->run_id), rec, sizeof(rec), err);
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
