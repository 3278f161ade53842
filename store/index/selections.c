/* Selection records (kix/selection.h, PROTOCOL.md §4.2): what the index
 * appends for each publication of a ranked run, once through the writer's
 * table (KIX_TABLE_SELECTIONS: the records by their index key, and a mark
 * per group already listed) and once in memory by the index check
 * (index_check.c), from one rule, kix__sel_publication. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/selection.h"

/* ---- the rule ---------------------------------------------------------------------- */

/* Appends item to the list of (dim, value), and the value to its
 * dimension's list when it is the value's first item. */
static int add(const struct kix__sel_sink *s, int dim, const char *value, const uint8_t *item,
               size_t len, struct kix_err *err)
{
    int created = 0;
    int rc = s->append(s->ctx, dim, value, item, len, &created, err);
    if (rc == KIX_OK && created)
        rc = s->append(s->ctx, dim, NULL, (const uint8_t *)value, strlen(value), &created, err);
    return rc;
}

static void dtype_of(const struct kix_bytes *workload, char *out, size_t cap)
{
    json_t *doc =
        workload->ptr ? json_loadb((const char *)workload->ptr, workload->len, 0, NULL) : NULL;
    const char *t = json_string_value(json_object_get(json_object_get(doc, "spec"), "dtype"));
    snprintf(out, cap, "%s", t ? t : "");
    json_decref(doc);
}

int kix__sel_publication(const struct kix__sel_sink *s, const struct kix_run_info *run,
                         const struct kix_bytes *manifest, kix__sel_object_fn object, void *octx,
                         struct kix_err *err)
{
    static const struct kix_digest none;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_bytes objs[KIX_QUERY_NREFS];
    struct kix_query_row row;
    char gpu[KIX_SEL_VALUE_MAX + 1], dtype[64];
    uint8_t item[32 + KIX_RUN_ID_MAX];
    size_t idlen = strlen(run->run_id);
    int is_new = 0, rc;

    if (!run->grouped)
        return KIX_OK;
    kix_query_row_refs(manifest->ptr, manifest->len, refs);
    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        if (memcmp(&refs[i], &none, sizeof(none)) == 0 || object(octx, &refs[i], &objs[i]))
            objs[i] = (struct kix_bytes){NULL, 0};
    memset(&row, 0, sizeof(row));
    kix_query_row_describe(manifest->ptr, manifest->len, objs, &row, gpu, sizeof(gpu));
    dtype_of(&objs[KIX_QUERY_WORKLOAD], dtype, sizeof(dtype));
    rc = s->new_group(s->ctx, &run->comparison_key, &is_new, err);
    if (rc == KIX_OK && is_new) {
        /* what the group holds constant: listed once, when it forms */
        const char *v[KIX_SEL_DIMS] = {row.kernel, gpu, NULL, row.mode, row.metric, dtype};
        for (int d = 0; rc == KIX_OK && d < KIX_SEL_DIMS; d++)
            if (v[d])
                rc = add(s, d, v[d], run->comparison_key.b, 32, err);
    }
    memcpy(item, run->comparison_key.b, 32);
    memcpy(item + 32, run->run_id, idlen);
    return rc ? rc : add(s, KIX_SEL_PROVIDER, row.provider, item, 32 + idlen, err);
}

/* ---- the writer: records in KIX_TABLE_SELECTIONS ---------------------------------- */

struct table_sink {
    struct kix_log_txn *t;
    struct kix_buf page;
};

static int table_new_group(void *ctx, const struct kix_digest *g, int *is_new, struct kix_err *err)
{
    struct table_sink *s = ctx;
    uint8_t mark[1 + 32] = {'g'};
    struct kix_bytes v;

    memcpy(mark + 1, g->b, 32);
    *is_new = kix_log_txn_get(s->t, KIX_TABLE_SELECTIONS, mark, sizeof(mark), &v) == KIX_ENOTFOUND;
    return *is_new ? kix_log_txn_put(s->t, KIX_TABLE_SELECTIONS, mark, sizeof(mark), "", 0, err)
                   : KIX_OK;
}

static int put_touch(struct kix_log_txn *t, const char *key, size_t n, const struct kix_buf *v,
                     struct kix_err *err)
{
    int rc = kix_log_txn_put(t, KIX_TABLE_SELECTIONS, key, n, v->ptr, v->len, err);
    return rc ? rc : kix__vindex_touch(t, key, n, NULL, 0, err);
}

/* One item onto the list's last page: only that page and the head change. */
static int table_append(void *ctx, int dim, const char *value, const uint8_t *item, size_t len,
                        int *created, struct kix_err *err)
{
    struct table_sink *s = ctx;
    char key[KIX_SEL_KEY_MAX + 1];
    size_t vlen = value ? strlen(value) : 0, n = kix_sel_key(dim, value, vlen, UINT64_MAX, key);
    struct kix_buf items = KIX_BUF_INIT;
    struct kix_bytes v;
    uint64_t count = 0, page;
    int rc = kix_log_txn_get(s->t, KIX_TABLE_SELECTIONS, key, n, &v);

    if (rc == KIX_OK)
        rc = kix_sel_head_decode(v.ptr, v.len, &count, err);
    else if (rc == KIX_ENOTFOUND)
        rc = KIX_OK;
    *created = count == 0;
    page = count / KIX_SEL_PAGE;
    kix_buf_reset(&s->page);
    if (rc == KIX_OK)
        rc = kix_sel_head_encode(count + 1, &s->page);
    if (rc == KIX_OK)
        rc = put_touch(s->t, key, n, &s->page, err);
    n = kix_sel_key(dim, value, vlen, page, key);
    if (rc == KIX_OK && count % KIX_SEL_PAGE &&
        (rc = kix_log_txn_get(s->t, KIX_TABLE_SELECTIONS, key, n, &v)) == KIX_OK && v.len >= 17)
        rc = kix_buf_add(&items, v.ptr + 17, v.len - 17);
    if (rc == KIX_OK)
        rc = kix_sel_item_add(&items, item, len);
    kix_buf_reset(&s->page);
    if (rc == KIX_OK)
        rc = kix_sel_page_encode(page, count % KIX_SEL_PAGE + 1, items.ptr, items.len, &s->page);
    if (rc == KIX_OK)
        rc = put_touch(s->t, key, n, &s->page, err);
    kix_buf_release(&items);
    return rc && (!err || !err->code)
               ? kix_err_set(err, rc, "writing a selection list: %s", kix_strerror(rc))
               : rc;
}

static int item_object(void *ctx, const struct kix_digest *d, struct kix_bytes *out)
{
    const struct kix_log_item *item = ((void **)ctx)[1];
    return kix_log_item_object(((void **)ctx)[0], item, d, out);
}

int kix__sel_apply(struct kix_log_txn *t, const struct kix_log_item *item,
                   const struct kix_run_info *run, struct kix_err *err)
{
    struct table_sink ts = {t, KIX_BUF_INIT};
    struct kix__sel_sink s = {table_new_group, table_append, &ts};
    void *octx[2] = {t, (void *)item};
    struct kix_bytes m;
    int rc;

    if (!run->grouped)
        return KIX_OK;
    rc = kix_log_item_object(t, item, &run->manifest, &m);
    if (rc)
        return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                           "reading the run manifest");
    rc = kix__sel_publication(&s, run, &m, item_object, octx, err);
    kix_buf_release(&ts.page);
    return rc;
}

int kix__sel_value(struct kix_log_txn *t, const char *key, size_t len, struct kix_buf *out,
                   struct kix_err *err)
{
    struct kix_bytes v;
    int rc = kix_log_txn_get(t, KIX_TABLE_SELECTIONS, key, len, &v);

    if (rc == KIX_OK && (rc = kix_buf_add(out, v.ptr, v.len)) != KIX_OK)
        return kix_err_set(err, rc, "out of memory");
    return rc;
}

/* ---- the check: lists in memory ---------------------------------------------------- */

struct sel_list {
    char key[KIX_SEL_KEY_MAX + 1];
    size_t key_len;
    uint64_t n;
    struct kix_buf items;
};

struct kix__sel_memory {
    struct sel_list *lists;
    size_t nlists, cap;
    uint8_t *groups; /* 32 bytes each, open addressing; all zero: empty */
    size_t ngroups, gcap;
};

struct kix__sel_memory *kix__sel_memory_new(void)
{
    return calloc(1, sizeof(struct kix__sel_memory));
}

void kix__sel_memory_free(struct kix__sel_memory *m)
{
    for (size_t i = 0; m && i < m->nlists; i++)
        kix_buf_release(&m->lists[i].items);
    if (m) {
        free(m->lists);
        free(m->groups);
    }
    free(m);
}

static uint8_t *group_slot(struct kix__sel_memory *m, const uint8_t g[32])
{
    static const uint8_t zero[32];
    uint64_t h;
    size_t i;

    memcpy(&h, g, sizeof(h));
    for (i = (size_t)(h % m->gcap);; i = (i + 1) % m->gcap) {
        uint8_t *s = m->groups + 32 * i;
        if (memcmp(s, zero, 32) == 0 || memcmp(s, g, 32) == 0)
            return s;
    }
}

static int memory_new_group(void *ctx, const struct kix_digest *g, int *is_new, struct kix_err *err)
{
    struct kix__sel_memory *m = ctx;
    uint8_t *s;

    if (2 * (m->ngroups + 1) > m->gcap) {
        struct kix__sel_memory grown = *m;
        grown.gcap = m->gcap ? 2 * m->gcap : 1024;
        if (!(grown.groups = calloc(grown.gcap, 32)))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        for (size_t i = 0; i < m->gcap; i++)
            for (int k = 0; k < 32; k++)
                if (m->groups[32 * i + k]) {
                    memcpy(group_slot(&grown, m->groups + 32 * i), m->groups + 32 * i, 32);
                    break;
                }
        free(m->groups);
        m->groups = grown.groups;
        m->gcap = grown.gcap;
    }
    s = group_slot(m, g->b);
    *is_new = memcmp(s, g->b, 32) != 0;
    if (*is_new) {
        memcpy(s, g->b, 32);
        m->ngroups++;
    }
    return KIX_OK;
}

static int memory_append(void *ctx, int dim, const char *value, const uint8_t *item, size_t len,
                         int *created, struct kix_err *err)
{
    struct kix__sel_memory *m = ctx;
    char key[KIX_SEL_KEY_MAX + 1];
    size_t n = kix_sel_key(dim, value, value ? strlen(value) : 0, UINT64_MAX, key), i;

    for (i = 0; i < m->nlists; i++)
        if (m->lists[i].key_len == n && memcmp(m->lists[i].key, key, n) == 0)
            break;
    if (i == m->nlists) {
        if (m->nlists == m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 64;
            struct sel_list *grown = realloc(m->lists, cap * sizeof(*grown));
            if (!grown)
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
            m->lists = grown;
            m->cap = cap;
        }
        memset(&m->lists[i], 0, sizeof(m->lists[i]));
        memcpy(m->lists[i].key, key, n + 1);
        m->lists[i].key_len = n;
        kix_buf_init(&m->lists[i].items);
        m->nlists++;
    }
    *created = m->lists[i].n == 0;
    m->lists[i].n++;
    return kix_sel_item_add(&m->lists[i].items, item, len)
               ? kix_err_set(err, KIX_ENOMEM, "out of memory")
               : KIX_OK;
}

static int reader_object(void *ctx, const struct kix_digest *d, struct kix_bytes *out)
{
    return kix_log_reader_object(ctx, d, out);
}

int kix__sel_memory_add(struct kix__sel_memory *m, struct kix_log_reader *r,
                        const struct kix_run_info *run, struct kix_err *err)
{
    struct kix__sel_sink s = {memory_new_group, memory_append, m};
    struct kix_bytes man;

    if (!run->grouped || kix_log_reader_object(r, &run->manifest, &man) != KIX_OK)
        return KIX_OK;
    return kix__sel_publication(&s, run, &man, reader_object, r, err);
}

/* Each list's head, then its pages, through fn. */
int kix__sel_memory_each(struct kix__sel_memory *m, kix__sel_record_fn fn, void *ctx)
{
    struct kix_buf rec = KIX_BUF_INIT;
    char key[KIX_SEL_KEY_MAX + 1];
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < m->nlists; i++) {
        const struct sel_list *l = &m->lists[i];
        const uint8_t *p = l->items.ptr;
        size_t at = 0;

        kix_buf_reset(&rec);
        rc = kix_sel_head_encode(l->n, &rec);
        if (rc == KIX_OK)
            rc = fn(ctx, l->key, l->key_len, &rec);
        for (uint64_t page = 0; rc == KIX_OK && page * KIX_SEL_PAGE < l->n; page++) {
            uint64_t k = l->n - page * KIX_SEL_PAGE < KIX_SEL_PAGE ? l->n - page * KIX_SEL_PAGE
                                                                   : KIX_SEL_PAGE;
            size_t start = at;
            for (uint64_t j = 0; j < k; j++)
                at += 2 + ((size_t)p[at] << 8 | p[at + 1]);
            kix_buf_reset(&rec);
            rc = kix_sel_page_encode(page, k, p + start, at - start, &rec);
            if (rc == KIX_OK) {
                size_t n =
                    (size_t)snprintf(key, sizeof(key), "%s/%llu", l->key, (unsigned long long)page);
                rc = fn(ctx, key, n, &rec);
            }
        }
    }
    kix_buf_release(&rec);
    return rc;
}
