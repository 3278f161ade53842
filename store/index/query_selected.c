/* kix_index_query for a query with filters: the groups and runs the
 * selection records (selections.c) list for the values the filters match,
 * as a client proves them (client/lib/query_select.c); then only a run a
 * group for its words and the page's rows are described. */
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"

/* A provider's runs: comparison key ‖ run id, sorted. */
struct runset {
    struct kix_buf items; /* each u16 length, then the item */
    const uint8_t **at;
    size_t n;
};

struct pick {
    struct kix_log_txn *t;
    int dim;
    const char *query; /* NULL: every value */
    struct kix_sel_keys groups;
    struct kix_buf pairs; /* provider: u16 length ‖ item, as listed */
    size_t npairs;
    int rc;
};

static int pick_item(void *ctx, uint64_t pos, const uint8_t *item, size_t len)
{
    struct pick *p = ctx;

    (void)pos;
    if (len < 32)
        return KIX_ECORRUPT;
    if (p->dim != KIX_SEL_PROVIDER)
        return kix_sel_keys_add(&p->groups, item);
    p->npairs++;
    return kix_sel_item_add(&p->pairs, item, len);
}

static int pick_value(void *ctx, uint64_t pos, const uint8_t *item, size_t len)
{
    struct pick *p = ctx;
    char value[KIX_SEL_VALUE_MAX + 1];

    (void)pos;
    if (len > KIX_SEL_VALUE_MAX)
        return KIX_ECORRUPT;
    memcpy(value, item, len);
    value[len] = '\0';
    if (p->query && !kix_sel_matches(p->dim, value, p->query))
        return 0;
    return kix__sel_items(p->t, p->dim, value, pick_item, p);
}

static int pair_cmp(const void *a, const void *b)
{
    const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;
    size_t nx = (size_t)x[0] << 8 | x[1], ny = (size_t)y[0] << 8 | y[1];
    int d = memcmp(x + 2, y + 2, nx < ny ? nx : ny);
    return d ? d : (nx > ny) - (nx < ny);
}

static int runset_of(struct pick *p, struct runset *out)
{
    size_t at = 0;

    out->n = p->npairs;
    out->at = malloc((out->n ? out->n : 1) * sizeof(*out->at));
    if (!out->at)
        return KIX_ENOMEM;
    for (size_t i = 0; i < out->n; i++) {
        out->at[i] = p->pairs.ptr + at;
        at += 2 + ((size_t)p->pairs.ptr[at] << 8 | p->pairs.ptr[at + 1]);
    }
    if (out->n > 1)
        qsort(out->at, out->n, sizeof(*out->at), pair_cmp);
    return KIX_OK;
}

struct walk {
    struct kix_log_reader *r;
    const struct runset *provider; /* NULL: every member matches */
    const uint8_t *group;
    struct kix_query_row *rows;
    size_t nrows, cap, first; /* first: this group's first row */
    int rc;
};

static int member(void *arg, uint64_t rank, const char *run_id, uint64_t value)
{
    struct walk *w = arg;
    size_t idlen = strlen(run_id);
    struct kix_query_row *row;

    if (w->provider) {
        uint8_t want[2 + 32 + KIX_RUN_ID_MAX];
        const uint8_t *key = want;
        want[0] = (uint8_t)((32 + idlen) >> 8);
        want[1] = (uint8_t)(32 + idlen);
        memcpy(want + 2, w->group, 32);
        memcpy(want + 34, run_id, idlen);
        if (!w->provider->n ||
            !bsearch(&key, w->provider->at, w->provider->n, sizeof(key), pair_cmp))
            return 0;
    }
    struct kix_query_row *grown = kix_array_grow(w->rows, &w->cap, w->nrows, 64, sizeof(*grown));
    if (!grown) {
        w->rc = KIX_ENOMEM;
        return -1;
    }
    w->rows = grown;
    row = &w->rows[w->nrows++];
    memset(row, 0, sizeof(*row));
    memcpy(row->run_id, run_id, idlen + 1);
    memcpy(row->group.b, w->group, 32);
    row->rank = rank;
    row->value = value;
    return 0;
}

/* A row made whole: its run's record and words, its group's size. */
static int complete_row(struct kix_log_reader *r, struct kix_query_row *row, uint64_t size)
{
    struct kix_run_info run;
    char gpu_full[KIX_SEL_VALUE_MAX + 1];
    int rc = kix_index_run(r, row->run_id, strlen(row->run_id), &run);

    if (rc == KIX_OK)
        rc = kix__query_describe(r, &run, row, gpu_full, sizeof(gpu_full));
    row->manifest = run.manifest;
    row->evidence = run.evidence;
    row->group_size = size;
    return rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc;
}

/* Each selected group's matching members; the group's words (what the
 * order reads) from its first, copied to the rest. */
static int walk_groups(struct walk *w, const struct kix_sel_keys *groups)
{
    int rc = KIX_OK;

    for (size_t g = 0; rc == KIX_OK && g < groups->n; g++) {
        struct kix_digest key;
        uint64_t size = 0;

        memcpy(key.b, groups->k[g], 32);
        w->group = groups->k[g];
        w->first = w->nrows;
        rc = kix_index_group(w->r, &key, 0, UINT64_MAX, member, w, &size);
        if (rc == KIX_OK)
            rc = w->rc;
        if (rc == KIX_OK && w->nrows > w->first)
            rc = complete_row(w->r, &w->rows[w->first], size);
        for (size_t i = w->first + 1; rc == KIX_OK && i < w->nrows; i++) {
            struct kix_query_row *row = &w->rows[i];
            memcpy(row->kernel, w->rows[w->first].kernel, sizeof(row->kernel));
            memcpy(row->gpu, w->rows[w->first].gpu, sizeof(row->gpu));
            memcpy(row->mode, w->rows[w->first].mode, sizeof(row->mode));
            memcpy(row->metric, w->rows[w->first].metric, sizeof(row->metric));
            row->group_size = size;
        }
    }
    return rc;
}

int kix__query_selected(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn,
                        void *ctx, uint64_t *matched)
{
    const char *asked[KIX_SEL_DIMS] = {q->kernel, q->gpu,    q->provider,
                                       q->mode,   q->metric, q->dtype};
    struct kix_log_txn *t = kix_log_reader_txn(r);
    struct kix_sel_keys groups = {NULL, 0, 0};
    struct runset provider = {KIX_BUF_INIT, NULL, 0};
    struct walk w;
    int any = 0, have_provider = 0, rc = KIX_OK;

    memset(&w, 0, sizeof(w));
    w.r = r;
    for (int d = 0; rc == KIX_OK && d < KIX_SEL_DIMS; d++) {
        struct pick p;
        if (!asked[d])
            continue;
        memset(&p, 0, sizeof(p));
        p.t = t;
        p.dim = d;
        p.query = asked[d];
        kix_buf_init(&p.pairs);
        rc = kix__sel_items(t, d, NULL, pick_value, &p);
        if (rc == KIX_OK && d == KIX_SEL_PROVIDER) {
            rc = runset_of(&p, &provider);
            provider.items = p.pairs; /* the runset points into it */
            kix_buf_init(&p.pairs);
            have_provider = 1;
            for (size_t i = 0; rc == KIX_OK && !any && i < provider.n; i++)
                rc = kix_sel_keys_add(&p.groups, provider.at[i] + 2);
        }
        if (rc == KIX_OK && (d != KIX_SEL_PROVIDER || !any)) {
            kix_sel_keys_settle(&p.groups, NULL);
            if (any) {
                kix_sel_keys_settle(&groups, &p.groups);
                free(p.groups.k);
            } else {
                free(groups.k);
                groups = p.groups;
            }
            any = 1;
        } else {
            free(p.groups.k);
        }
        kix_buf_release(&p.pairs);
    }
    if (rc == KIX_OK && q->group) {
        struct kix_sel_keys one = {NULL, 0, 0};
        rc = kix_sel_keys_add(&one, q->group->b);
        kix_sel_keys_settle(&groups, &one);
        free(one.k);
    }
    w.provider = have_provider ? &provider : NULL;
    if (rc == KIX_OK)
        rc = walk_groups(&w, &groups);
    if (rc == KIX_OK && w.nrows > 1)
        qsort(w.rows, w.nrows, sizeof(*w.rows), kix_query_row_order);
    for (uint64_t i = q->offset; rc == KIX_OK && i < w.nrows && i - q->offset < q->limit; i++) {
        rc = complete_row(r, &w.rows[i], w.rows[i].group_size);
        if (rc == KIX_OK && fn(ctx, &w.rows[i]))
            break;
    }
    if (matched)
        *matched = w.nrows;
    free(w.rows);
    free(groups.k);
    free(provider.at);
    kix_buf_release(&provider.items);
    return rc;
}
