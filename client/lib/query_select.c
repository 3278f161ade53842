/* kix_client_query_complete: which runs match a query is proven, not told.
 * The signed index lists, per dimension, its values and what each value
 * selects (kix/selection.h): comparison groups for what a group holds
 * constant, runs (with their group) for the provider. The client matches
 * the query against every value itself, reads the lists of the values that
 * match, intersects them, then reads every selected group's record: its
 * members, less those of other providers, are all the matches. See
 * kix/client.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/client.h"
#include "kix/selection.h"
#include "kix/vindex.h"
#include "query_internal.h"

struct pair {
    uint8_t group[32];
    char run_id[KIX_RUN_ID_MAX + 1];
};

struct keys {
    uint8_t (*k)[32];
    size_t n, cap;
};

struct prover {
    struct kix_client *c;
    const struct kix_verifier *key;
    struct kix_query_proof *proof;
    struct kix_err *err;
};

/* One index proof, at the size the rows were proven at (or the first). */
static int prove(struct prover *p, const char *ikey, struct kix_index_answer *a)
{
    int rc = kix_client_index_proof(p->c, p->key, ikey, a, p->err);

    if (rc)
        return rc;
    if (p->proof->size == 0) {
        p->proof->size = a->cp.size;
        kix_buf_reset(&p->proof->checkpoint);
        rc = kix_buf_add(&p->proof->checkpoint, a->checkpoint.ptr, a->checkpoint.len);
        if (rc)
            rc = kix_err_set(p->err, rc, "out of memory");
    } else if (a->cp.size != p->proof->size) {
        rc = kix_err_set(p->err, KIX_EUNAVAIL,
                         "the log grew from size %llu to %llu while the query's selection was "
                         "proven; try again",
                         (unsigned long long)p->proof->size, (unsigned long long)a->cp.size);
    }
    if (rc)
        kix_index_answer_release(a);
    return rc;
}

/* Every item of the list of (dim, value) (value NULL: dim's values), page
 * by page; a list the index proves absent is empty. */
static int read_list(struct prover *p, int dim, const char *value, kix_sel_item_fn fn, void *ctx)
{
    char ikey[KIX_SEL_KEY_MAX + 1];
    size_t vlen = value ? strlen(value) : 0;
    struct kix_index_answer a;
    uint64_t items = 0;
    int rc;

    kix_sel_key(dim, value, vlen, UINT64_MAX, ikey);
    if ((rc = prove(p, ikey, &a)))
        return rc;
    p->proof->selections++;
    if (a.present)
        rc = kix_sel_head_decode(a.record.ptr, a.record.len, &items, p->err);
    kix_index_answer_release(&a);
    for (uint64_t page = 0; rc == KIX_OK && page * KIX_SEL_PAGE < items; page++) {
        kix_sel_key(dim, value, vlen, page, ikey);
        if ((rc = prove(p, ikey, &a)))
            break;
        p->proof->selections++;
        if (!a.present)
            rc = kix_err_set(p->err, KIX_EVERIFY,
                             "the log's signed index at size %llu lists %llu items under %s "
                             "but proves its page %llu absent",
                             (unsigned long long)a.cp.size, (unsigned long long)items, ikey,
                             (unsigned long long)page);
        else
            rc = kix_sel_page_decode(a.record.ptr, a.record.len, page, items, fn, ctx, p->err);
        kix_index_answer_release(&a);
    }
    return rc;
}

static int by_key(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static int by_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    int d = memcmp(x->group, y->group, 32);
    return d ? d : strcmp(x->run_id, y->run_id);
}

static int keys_add(struct keys *s, const uint8_t k[32])
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint8_t(*grown)[32] = realloc(s->k, cap * 32);
        if (!grown)
            return KIX_ENOMEM;
        s->k = grown;
        s->cap = cap;
    }
    memcpy(s->k[s->n++], k, 32);
    return KIX_OK;
}

/* Sorted, each once. */
static void keys_settle(struct keys *s)
{
    size_t k = 0;
    if (s->n)
        qsort(s->k, s->n, 32, by_key);
    for (size_t i = 0; i < s->n; i++)
        if (k == 0 || memcmp(s->k[k - 1], s->k[i], 32) != 0)
            memmove(s->k[k++], s->k[i], 32);
    s->n = k;
}

static int keys_has(const struct keys *s, const uint8_t k[32])
{
    return s->n && bsearch(k, s->k, s->n, 32, by_key) != NULL;
}

/* What one dimension's filter selects. */
struct picked {
    struct prover *p;
    int dim;
    const char *query; /* NULL: every value */
    struct keys groups;
    struct pair *pairs; /* provider */
    size_t npairs, cap;
};

static int pick_item(void *ctx, uint64_t pos, const uint8_t *item, size_t len)
{
    struct picked *s = ctx;

    (void)pos;
    if (s->dim != KIX_SEL_PROVIDER) {
        if (len != 32)
            return kix_err_set(s->p->err, KIX_EVERIFY,
                               "a %s selection lists an item that is not a group key",
                               kix_sel_dim_name(s->dim));
        return keys_add(&s->groups, item) ? kix_err_set(s->p->err, KIX_ENOMEM, "out of memory")
                                          : KIX_OK;
    }
    if (len <= 32 || len - 32 > KIX_RUN_ID_MAX)
        return kix_err_set(s->p->err, KIX_EVERIFY,
                           "a provider selection lists an item that is not a group and a run");
    if (s->npairs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct pair *grown = realloc(s->pairs, cap * sizeof(*grown));
        if (!grown)
            return kix_err_set(s->p->err, KIX_ENOMEM, "out of memory");
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
        return kix_err_set(s->p->err, KIX_EVERIFY, "a %s value in the index is not a name",
                           kix_sel_dim_name(s->dim));
    memcpy(value, item, len);
    value[len] = '\0';
    if (s->query && !kix_sel_matches(s->dim, value, s->query))
        return KIX_OK;
    return read_list(s->p, s->dim, value, pick_item, s);
}

static int pick(struct prover *p, int dim, const char *query, struct picked *out)
{
    int rc;

    memset(out, 0, sizeof(*out));
    out->p = p;
    out->dim = dim;
    out->query = query;
    rc = read_list(p, dim, NULL, pick_value, out);
    keys_settle(&out->groups);
    if (out->npairs)
        qsort(out->pairs, out->npairs, sizeof(*out->pairs), by_pair);
    return rc;
}

static void picked_release(struct picked *s)
{
    free(s->groups.k);
    free(s->pairs);
}

/* The members of one selected group that match, checked against the rows. */
struct tally {
    const struct picked *provider; /* NULL: every member matches */
    const struct kix_query_row *rows;
    const struct kix_query_row **by_run; /* the rows sorted by group and run id */
    size_t n;
    const uint8_t *group;
    uint64_t matches;     /* matching members so far */
    uint64_t first, last; /* positions among them of the group's first and last row */
    size_t first_row, last_row, shown;
};

static int row_cmp(const struct kix_query_row *r, const uint8_t *group, const char *run_id)
{
    int d = memcmp(r->group.b, group, 32);
    return d ? d : strcmp(r->run_id, run_id);
}

static int by_row(const void *a, const void *b)
{
    const struct kix_query_row *x = *(const struct kix_query_row *const *)a;
    const struct kix_query_row *y = *(const struct kix_query_row *const *)b;
    return row_cmp(x, y->group.b, y->run_id);
}

/* The row of (group, run_id), or n. */
static size_t row_of(const struct tally *t, const char *run_id)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = row_cmp(t->by_run[mid], t->group, run_id);
        if (d == 0)
            return (size_t)(t->by_run[mid] - t->rows);
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return t->n;
}

static int tally_member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct tally *t = ctx;
    struct pair key;
    size_t row;

    (void)rank;
    (void)value;
    if (t->provider) {
        memcpy(key.group, t->group, 32);
        snprintf(key.run_id, sizeof(key.run_id), "%s", run_id);
        if (!t->provider->npairs ||
            !bsearch(&key, t->provider->pairs, t->provider->npairs, sizeof(key), by_pair))
            return 0;
    }
    row = row_of(t, run_id);
    if (row < t->n) {
        if (t->shown == 0 || row < t->first_row) {
            t->first_row = row;
            t->first = t->matches;
        }
        if (t->shown == 0 || row > t->last_row) {
            t->last_row = row;
            t->last = t->matches;
        }
        t->shown++;
    }
    t->matches++;
    return 0;
}

/* The page's own shape: rows in the query's order, each run once, each
 * row inside the selection. */
static int check_rows(struct prover *p, const struct keys *groups, const struct picked *provider,
                      const struct kix_query_row *rows, size_t n,
                      const struct kix_query_row **by_run)
{
    for (size_t i = 1; i < n; i++)
        if (row_cmp(by_run[i - 1], by_run[i]->group.b, by_run[i]->run_id) == 0)
            return kix_err_set(p->err, KIX_EVERIFY, "the server lists run %s twice",
                               by_run[i]->run_id);
    for (size_t i = 0; i < n; i++) {
        const struct kix_query_row *r = &rows[i];
        struct pair key;
        char text[KIX_DIGEST_TEXT_LEN + 1];

        kix_digest_format(&r->group, text);
        if (i && kix_query_row_order(&rows[i - 1], r) >= 0)
            return kix_err_set(p->err, KIX_EVERIFY,
                               "the server lists run %s out of the query's order", r->run_id);
        if (!keys_has(groups, r->group.b))
            return kix_err_set(p->err, KIX_EVERIFY,
                               "the server lists run %s of group %s, which the log's signed "
                               "index at size %llu does not select for this query",
                               r->run_id, text, (unsigned long long)p->proof->size);
        memcpy(key.group, r->group.b, 32);
        memcpy(key.run_id, r->run_id, sizeof(key.run_id));
        if (provider && (!provider->npairs ||
                         !bsearch(&key, provider->pairs, provider->npairs, sizeof(key), by_pair)))
            return kix_err_set(p->err, KIX_EVERIFY,
                               "the server lists run %s, which the log's signed index at size "
                               "%llu does not list under the provider asked for",
                               r->run_id, (unsigned long long)p->proof->size);
    }
    return KIX_OK;
}

/* Each selected group's matching members from its proven record: every
 * row at its rank, the groups' matches summed, and a group shown in part
 * only at the page's edges. */
static int check_groups(struct prover *p, const struct keys *groups, const struct picked *provider,
                        const struct kix_query_row *rows, size_t n,
                        const struct kix_query_row **by_run, uint64_t *total)
{
    int rc = KIX_OK;

    *total = 0;
    for (size_t g = 0; rc == KIX_OK && g < groups->n; g++) {
        struct tally t = {provider, rows, by_run, n, groups->k[g], 0, 0, 0, 0, 0, 0};
        char ikey[KIX_VINDEX_KEY_MAX + 1];
        struct kix_digest gd;

        memcpy(gd.b, groups->k[g], 32);
        kix_vindex_key_group(&gd, ikey);
        rc = kix__query_check_group(p->c, p->key, &gd, rows, n, tally_member, &t, p->proof, p->err);
        if (rc == KIX_OK)
            p->proof->groups++;
        if (rc == KIX_OK && t.shown &&
            ((t.first != 0 && t.first_row != 0) ||
             (t.last + 1 != t.matches && t.last_row + 1 != n) || t.last - t.first + 1 != t.shown))
            rc = kix_err_set(p->err, KIX_EVERIFY,
                             "the server shows %zu of the %llu matching runs of group %s, with "
                             "runs missing between or around them",
                             t.shown, (unsigned long long)t.matches, ikey);
        *total += t.matches;
    }
    return rc;
}

int kix_client_query_complete(struct kix_client *c, const struct kix_verifier *key,
                              const struct kix_query *q, const struct kix_query_row *rows, size_t n,
                              uint64_t matched, struct kix_query_proof *proof, struct kix_err *err)
{
    const char *asked[KIX_SEL_DIMS] = {q->kernel, q->gpu,    q->provider,
                                       q->mode,   q->metric, q->dtype};
    struct prover p = {c, key, proof, err};
    struct picked dims[KIX_SEL_DIMS];
    struct keys groups = {NULL, 0, 0};
    const struct picked *provider = NULL;
    const struct kix_query_row **by_run = NULL;
    uint64_t total = 0, want;
    int any = 0, rc = KIX_OK;

    memset(dims, 0, sizeof(dims));
    for (int d = 0; rc == KIX_OK && d < KIX_SEL_DIMS; d++) {
        if (!asked[d])
            continue;
        rc = pick(&p, d, asked[d], &dims[d]);
        if (d == KIX_SEL_PROVIDER) {
            provider = &dims[d];
            continue;
        }
        /* the groups every filter selects */
        if (!any) {
            for (size_t i = 0; rc == KIX_OK && i < dims[d].groups.n; i++)
                rc = keys_add(&groups, dims[d].groups.k[i]);
        } else {
            size_t k = 0;
            for (size_t i = 0; i < groups.n; i++)
                if (keys_has(&dims[d].groups, groups.k[i]))
                    memmove(groups.k[k++], groups.k[i], 32);
            groups.n = k;
        }
        any = 1;
    }
    if (rc == KIX_OK && !any && provider) {
        for (size_t i = 0; rc == KIX_OK && i < provider->npairs; i++)
            rc = keys_add(&groups, provider->pairs[i].group);
        any = 1;
    }
    if (rc == KIX_OK && !any) { /* no filter: every group has a metric */
        rc = pick(&p, KIX_SEL_METRIC, NULL, &dims[KIX_SEL_METRIC]);
        for (size_t i = 0; rc == KIX_OK && i < dims[KIX_SEL_METRIC].groups.n; i++)
            rc = keys_add(&groups, dims[KIX_SEL_METRIC].groups.k[i]);
    }
    keys_settle(&groups);
    if (rc == KIX_OK && q->group) {
        int in = keys_has(&groups, q->group->b);
        groups.n = 0;
        if (in)
            rc = keys_add(&groups, q->group->b);
    }
    if (rc == KIX_OK && !(by_run = malloc((n ? n : 1) * sizeof(*by_run))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK) {
        for (size_t i = 0; i < n; i++)
            by_run[i] = &rows[i];
        if (n > 1)
            qsort(by_run, n, sizeof(*by_run), by_row);
        rc = check_rows(&p, &groups, provider, rows, n, by_run);
    }
    if (rc == KIX_OK)
        rc = check_groups(&p, &groups, provider, rows, n, by_run, &total);
    want = kix__page_size(total, q->offset, q->limit);
    if (rc == KIX_OK && matched != total)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the server says %llu runs match; the log's signed index at size %llu "
                         "selects %llu",
                         (unsigned long long)matched, (unsigned long long)proof->size,
                         (unsigned long long)total);
    if (rc == KIX_OK && n != want)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the server answers %zu runs from match %llu; of the %llu matches the "
                         "log's signed index at size %llu selects, that page holds %llu",
                         n, (unsigned long long)q->offset + 1, (unsigned long long)total,
                         (unsigned long long)proof->size, (unsigned long long)want);
    for (int d = 0; d < KIX_SEL_DIMS; d++)
        picked_release(&dims[d]);
    free(groups.k);
    free(by_run);
    return rc;
}
