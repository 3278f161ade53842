/* kix_client_query_complete: which runs match a query is proven, not told.
 * The signed index lists, per dimension, its values and what each value
 * selects (kix/selection.h): comparison groups for what a group holds
 * constant, runs (with their group) for the provider. The client matches
 * the query against every value itself, reads the lists of the values that
 * match, intersects them, then reads every selected group's record: its
 * members, less those of other providers, are all the matches
 * (query_selection.c reads the selection, group_page_verify.c the groups). See
 * kix/client.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/client.h"
#include "kix/selection.h"
#include "kix/vindex.h"
#include "query_internal.h"

struct prover {
    struct kix_client *c;
    const struct kix_verifier *key;
    struct kix_query_proof *proof;
    struct kix_err *err;
};

/* The members of one selected group that match, checked against the rows. */
struct tally {
    const struct kix__selection *sel;
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
    size_t row;

    (void)rank;
    (void)value;
    if (!kix__selection_has_run(t->sel, t->group, run_id))
        return 0;
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
static int check_rows(struct prover *p, const struct kix__selection *sel,
                      const struct kix_query_row *rows, size_t n,
                      const struct kix_query_row **by_run)
{
    for (size_t i = 1; i < n; i++)
        if (row_cmp(by_run[i - 1], by_run[i]->group.b, by_run[i]->run_id) == 0)
            return kix_err_set(p->err, KIX_EVERIFY, "the server lists run %s twice",
                               by_run[i]->run_id);
    for (size_t i = 0; i < n; i++) {
        const struct kix_query_row *r = &rows[i];
        char text[KIX_DIGEST_TEXT_LEN + 1];

        kix_digest_format(&r->group, text);
        if (i && kix_query_row_order(&rows[i - 1], r) >= 0)
            return kix_err_set(p->err, KIX_EVERIFY,
                               "the server lists run %s out of the query's order", r->run_id);
        if (!kix_sel_keys_has(&sel->groups, r->group.b))
            return kix_err_set(p->err, KIX_EVERIFY,
                               "the server lists run %s of group %s, which the log's signed "
                               "index at size %llu does not select for this query",
                               r->run_id, text, (unsigned long long)p->proof->size);
        if (!kix__selection_has_run(sel, r->group.b, r->run_id))
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
static int check_groups(struct prover *p, const struct kix__selection *sel,
                        const struct kix_query_row *rows, size_t n,
                        const struct kix_query_row **by_run, uint64_t *total)
{
    int rc = KIX_OK;

    *total = 0;
    for (size_t g = 0; rc == KIX_OK && g < sel->groups.n; g++) {
        struct tally t = {sel, rows, by_run, n, sel->groups.k[g], 0, 0, 0, 0, 0, 0};
        char ikey[KIX_VINDEX_KEY_MAX + 1];
        struct kix_digest gd;

        memcpy(gd.b, sel->groups.k[g], 32);
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
    struct prover p = {c, key, proof, err};
    struct kix__prover reader = {c, key, proof, &proof->selections};
    struct kix__selection sel;
    const struct kix_query_row **by_run = NULL;
    uint64_t total = 0, want;
    int rc = kix__selection_read(q, kix__read_proven, &reader, &sel, err);

    if (rc == KIX_OK && !(by_run = malloc((n ? n : 1) * sizeof(*by_run))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK) {
        for (size_t i = 0; i < n; i++)
            by_run[i] = &rows[i];
        if (n > 1)
            qsort(by_run, n, sizeof(*by_run), by_row);
        rc = check_rows(&p, &sel, rows, n, by_run);
    }
    if (rc == KIX_OK)
        rc = check_groups(&p, &sel, rows, n, by_run, &total);
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
    kix__selection_release(&sel);
    free(by_run);
    return rc;
}
