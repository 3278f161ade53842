/* What a query's filters select, read from the index's selection records
 * (kix/selection.h, PROTOCOL.md §4.7): each asked dimension's values are
 * matched against the filter here, the lists of those that match are read
 * and intersected. One reader for the two that need it: the completeness
 * proof (query_select.c, over proven records) and a source that answers
 * queries from the index's records (source_http_query.c). See
 * query_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/selection.h"
#include "query_internal.h"

int kix__pair_order(const void *a, const void *b)
{
    const struct kix__pair *x = a, *y = b;
    int d = memcmp(x->group, y->group, 32);
    return d ? d : strcmp(x->run_id, y->run_id);
}

struct reader {
    kix__record_fn read;
    void *ctx;
    struct kix_buf record;
    struct kix_err *err;
};

/* Every item of the list of (dim, value) (value NULL: dim's values), page
 * by page; a list the index holds no head of is empty. */
static int read_list(struct reader *r, int dim, const char *value, kix_sel_item_fn fn, void *ctx)
{
    char ikey[KIX_SEL_KEY_MAX + 1];
    size_t vlen = value ? strlen(value) : 0;
    uint64_t items = 0;
    int present = 0, rc;

    kix_sel_key(dim, value, vlen, UINT64_MAX, ikey);
    kix_buf_reset(&r->record);
    rc = r->read(r->ctx, ikey, &present, &r->record, r->err);
    if (rc == KIX_OK && present)
        rc = kix_sel_head_decode(r->record.ptr, r->record.len, &items, r->err);
    for (uint64_t page = 0; rc == KIX_OK && page * KIX_SEL_PAGE < items; page++) {
        kix_sel_key(dim, value, vlen, page, ikey);
        kix_buf_reset(&r->record);
        rc = r->read(r->ctx, ikey, &present, &r->record, r->err);
        if (rc == KIX_OK && !present)
            rc = kix_err_set(r->err, KIX_EVERIFY,
                             "the log's index lists %llu items under %s but proves its page %llu "
                             "absent",
                             (unsigned long long)items, ikey, (unsigned long long)page);
        else if (rc == KIX_OK)
            rc = kix_sel_page_decode(r->record.ptr, r->record.len, page, items, fn, ctx, r->err);
    }
    return rc;
}

/* What one dimension's filter selects. */
struct picked {
    struct reader *r;
    int dim;
    const char *query; /* NULL: every value */
    struct kix_sel_keys groups;
    struct kix__pair *pairs; /* provider */
    size_t npairs, cap;
};

static int pick_item(void *ctx, uint64_t pos, const uint8_t *item, size_t len)
{
    struct picked *s = ctx;

    (void)pos;
    if (s->dim != KIX_SEL_PROVIDER) {
        if (len != 32)
            return kix_err_set(s->r->err, KIX_EVERIFY,
                               "a %s selection lists an item that is not a group key",
                               kix_sel_dim_name(s->dim));
        return kix_sel_keys_add(&s->groups, item)
                   ? kix_err_set(s->r->err, KIX_ENOMEM, "out of memory")
                   : KIX_OK;
    }
    if (len <= 32 || len - 32 > KIX_RUN_ID_MAX)
        return kix_err_set(s->r->err, KIX_EVERIFY,
                           "a provider selection lists an item that is not a group and a run");
    if (s->npairs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct kix__pair *grown = realloc(s->pairs, cap * sizeof(*grown));
        if (!grown)
            return kix_err_set(s->r->err, KIX_ENOMEM, "out of memory");
        s->pairs = grown;
        s->cap = cap;
    }
    memcpy(s->pairs[s->npairs].group, item, 32);
    memcpy(s->pairs[s->npairs].run_id, item + 32, len - 32);
    s->pairs[s->npairs++].run_id[len - 32] = '\0';
    return KIX_OK;
}

/* A value of the dimension: its list read when the query matches it. */
static int pick_value(void *ctx, uint64_t pos, const uint8_t *item, size_t len)
{
    struct picked *s = ctx;
    char value[KIX_SEL_VALUE_MAX + 1];

    (void)pos;
    if (len > KIX_SEL_VALUE_MAX || memchr(item, 0, len))
        return kix_err_set(s->r->err, KIX_EVERIFY, "a %s value in the index is not a name",
                           kix_sel_dim_name(s->dim));
    memcpy(value, item, len);
    value[len] = '\0';
    if (s->query && !kix_sel_matches(s->dim, value, s->query))
        return KIX_OK;
    {
        /* the value list's reader buffer is in use: a second one for this list */
        struct reader inner = {s->r->read, s->r->ctx, KIX_BUF_INIT, s->r->err};
        int rc = read_list(&inner, s->dim, value, pick_item, s);
        kix_buf_release(&inner.record);
        return rc;
    }
}

static int pick(struct reader *r, int dim, const char *query, struct picked *out)
{
    int rc;

    memset(out, 0, sizeof(*out));
    out->r = r;
    out->dim = dim;
    out->query = query;
    rc = read_list(r, dim, NULL, pick_value, out);
    kix_sel_keys_settle(&out->groups, NULL);
    if (out->npairs)
        qsort(out->pairs, out->npairs, sizeof(*out->pairs), kix__pair_order);
    return rc;
}

int kix__selection_read(const struct kix_query *q, kix__record_fn read, void *ctx,
                        struct kix__selection *out, struct kix_err *err)
{
    const char *asked[KIX_SEL_DIMS] = {q->kernel, q->gpu,    q->provider,
                                       q->mode,   q->metric, q->dtype};
    struct reader r = {read, ctx, KIX_BUF_INIT, err};
    struct kix_sel_keys *groups = &out->groups;
    int any = 0, rc = KIX_OK;

    memset(out, 0, sizeof(*out));
    for (int d = 0; rc == KIX_OK && d < KIX_SEL_DIMS; d++) {
        struct picked p;
        if (!asked[d])
            continue;
        rc = pick(&r, d, asked[d], &p);
        if (d == KIX_SEL_PROVIDER) {
            out->provider = 1;
            out->pairs = p.pairs;
            out->npairs = p.npairs;
            free(p.groups.k);
            continue;
        }
        /* the groups every filter selects */
        if (!any) {
            for (size_t i = 0; rc == KIX_OK && i < p.groups.n; i++)
                if (kix_sel_keys_add(groups, p.groups.k[i]))
                    rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        } else {
            size_t k = 0;
            for (size_t i = 0; i < groups->n; i++)
                if (kix_sel_keys_has(&p.groups, groups->k[i]))
                    memmove(groups->k[k++], groups->k[i], 32);
            groups->n = k;
        }
        free(p.groups.k);
        free(p.pairs);
        any = 1;
    }
    if (rc == KIX_OK && !any && out->provider) {
        for (size_t i = 0; rc == KIX_OK && i < out->npairs; i++)
            if (kix_sel_keys_add(groups, out->pairs[i].group))
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        any = 1;
    }
    if (rc == KIX_OK && !any) { /* no filter: every group has a metric */
        struct picked p;
        rc = pick(&r, KIX_SEL_METRIC, NULL, &p);
        for (size_t i = 0; rc == KIX_OK && i < p.groups.n; i++)
            if (kix_sel_keys_add(groups, p.groups.k[i]))
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        free(p.groups.k);
        free(p.pairs);
    }
    kix_sel_keys_settle(groups, NULL);
    if (rc == KIX_OK && q->group) {
        int in = kix_sel_keys_has(groups, q->group->b);
        groups->n = 0;
        if (in && kix_sel_keys_add(groups, q->group->b))
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    kix_buf_release(&r.record);
    return rc;
}

int kix__selection_has_run(const struct kix__selection *s, const uint8_t group[32],
                           const char *run_id)
{
    struct kix__pair key;

    if (!s->provider)
        return 1;
    memcpy(key.group, group, 32);
    snprintf(key.run_id, sizeof(key.run_id), "%s", run_id);
    return s->npairs && bsearch(&key, s->pairs, s->npairs, sizeof(key), kix__pair_order) != NULL;
}

void kix__selection_release(struct kix__selection *s)
{
    free(s->groups.k);
    free(s->pairs);
    memset(s, 0, sizeof(*s));
}
