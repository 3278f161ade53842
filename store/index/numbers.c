/* Numbers for names the index would otherwise repeat in many records: a
 * name gets the next number the first time it is stored (a counter record
 * holds the next one), and the records say the number instead. Local to
 * one store: a rebuild may number otherwise, and no number is ever served
 * or signed (the records the verifiable index commits name the keys). */
#include <stdatomic.h>
#include <string.h>

#include "index_internal.h"
#include "kix/encoding.h"

int kix__number_of(struct kix_log_txn *t, unsigned table, const void *name_key, size_t nlen,
                   const void *count_key, size_t clen, const char *what, int make, uint32_t *num,
                   int *made, struct kix_err *err)
{
    uint8_t no[4];
    struct kix_bytes v;
    int rc = kix_log_txn_get(t, table, name_key, nlen, &v);

    *made = 0;
    if (rc == KIX_OK && v.len != 4)
        rc = KIX_ECORRUPT;
    if (rc == KIX_OK)
        *num = kix_u32be_get(v.ptr);
    if (rc != KIX_ENOTFOUND || !make)
        return rc && rc != KIX_ENOTFOUND
                   ? kix_err_set(err, rc, "reading %s's number: %s", what, kix_strerror(rc))
                   : rc;
    rc = kix_log_txn_get(t, table, count_key, clen, &v);
    if (rc == KIX_ENOTFOUND) {
        *num = 0;
        rc = KIX_OK;
    } else if (rc == KIX_OK) {
        rc = v.len == 4 && kix_u32be_get(v.ptr) < UINT32_MAX ? KIX_OK : KIX_ECORRUPT;
        *num = rc ? 0 : kix_u32be_get(v.ptr);
    }
    if (rc)
        return kix_err_set(err, rc, "reading the next number for %s: %s", what, kix_strerror(rc));
    kix_u32be_put(no, *num + 1);
    rc = kix_log_txn_put(t, table, count_key, clen, no, 4, err);
    kix_u32be_put(no, *num);
    if (rc == KIX_OK)
        rc = kix_log_txn_put(t, table, name_key, nlen, no, 4, err);
    *made = rc == KIX_OK;
    return rc;
}

/* In KIX_TABLE_RUNS (kix-index/9), under a 0 byte, which no run id or
 * entry record key begins with (an id is never empty and holds no 0):
 * 0 ‖ kind → the next number, 0 ‖ kind ‖ name(32) → u32be number, 0 ‖
 * kind ‖ u32be number → name. In the runs table, not a table of their
 * own, so that they go with the records that name them: a rebuild by any
 * format's indexer clears them together, and a store of an older format
 * opened read-only has none. */
#define NAME_KEY_LEN  (2 + 32)
#define BACK_KEY_LEN  (2 + 4)
#define COUNT_KEY_LEN 2

int kix__name_number(struct kix_log_txn *t, int kind, const uint8_t name[32], int make,
                     uint32_t *num, struct kix_err *err)
{
    uint8_t nk[NAME_KEY_LEN] = {0, (uint8_t)kind}, back[BACK_KEY_LEN] = {0, (uint8_t)kind};
    const uint8_t count[COUNT_KEY_LEN] = {0, (uint8_t)kind};
    int made = 0, rc;

    memcpy(nk + 2, name, 32);
    rc = kix__number_of(t, KIX_TABLE_RUNS, nk, sizeof(nk), count, sizeof(count),
                        kind == KIX__NUMBER_GROUP ? "a comparison group" : "a publisher key", make,
                        num, &made, err);
    if (rc == KIX_OK && made) {
        kix_u32be_put(back + 2, *num);
        rc = kix_log_txn_put(t, KIX_TABLE_RUNS, back, sizeof(back), name, 32, err);
    }
    return rc;
}

int kix__number_name(struct kix_log_txn *t, int kind, uint64_t num, uint8_t name[32])
{
    uint8_t back[BACK_KEY_LEN] = {0, (uint8_t)kind};
    struct kix_bytes v;
    int rc;

    if (num > UINT32_MAX)
        return KIX_ECORRUPT;
    kix_u32be_put(back + 2, (uint32_t)num);
    rc = kix_log_txn_get(t, KIX_TABLE_RUNS, back, sizeof(back), &v);
    if (rc == KIX_ENOTFOUND || (rc == KIX_OK && v.len != 32))
        return KIX_ECORRUPT; /* a record names a number never given */
    if (rc == KIX_OK)
        memcpy(name, v.ptr, 32);
    return rc;
}

static atomic_uint_fast64_t kept_reads;

/* Asked at every run record decoded (runs.c), answered from the store once
 * a transaction (kix_log_txn_memo). A reader's snapshot keeps its answer.
 * The writer's transaction keeps a yes only: it may make the first number
 * after a no (when no run record is kix-index/9's yet, so a no read again
 * is as right), and only a rebuild's clearing the runs table, which makes
 * the log forget the memo, takes the numbers away. */
int kix__numbers_kept(struct kix_log_txn *t)
{
    const uint8_t count[COUNT_KEY_LEN] = {0, KIX__NUMBER_PUBLISHER};
    unsigned memo = kix_log_txn_memo(t);
    struct kix_bytes v;
    int kept;

    if (memo & KIX__MEMO_NUMBERS_KNOWN)
        return (memo & KIX__MEMO_NUMBERS_KEPT) != 0;
    atomic_fetch_add_explicit(&kept_reads, 1, memory_order_relaxed);
    kept = kix_log_txn_get(t, KIX_TABLE_RUNS, count, sizeof(count), &v) == KIX_OK;
    if (kept || !kix_log_txn_scratch(t)) /* a yes, or a reader's (which has no scratch) */
        kix_log_txn_set_memo(t,
                             memo | KIX__MEMO_NUMBERS_KNOWN | (kept ? KIX__MEMO_NUMBERS_KEPT : 0u));
    return kept;
}

uint64_t kix_index_numbers_reads(void)
{
    return (uint64_t)atomic_load_explicit(&kept_reads, memory_order_relaxed);
}

struct each_name {
    int kind;
    kix__number_fn fn;
    void *ctx;
};

static int each_name_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct each_name *w = arg;

    if (key->len < COUNT_KEY_LEN || key->ptr[0] != 0 || key->ptr[1] != (uint8_t)w->kind)
        return 1; /* past the kind's records */
    if (key->len != NAME_KEY_LEN || val->len != 4)
        return 0; /* the count, or a number's name */
    return w->fn(w->ctx, key->ptr + 2, kix_u32be_get(val->ptr));
}

int kix__numbers_each(struct kix_log_txn *t, int kind, kix__number_fn fn, void *ctx)
{
    const uint8_t from[COUNT_KEY_LEN] = {0, (uint8_t)kind};
    struct each_name w = {kind, fn, ctx};

    return kix_log_txn_scan(t, KIX_TABLE_RUNS, from, sizeof(from), each_name_step, &w);
}
