/* kix_client_group_page_verify: a group's page is exactly the members of
 * the group's proven record at the ranks asked for, and the match count is
 * the record's count. kix_client_query_verify proves what each row says;
 * this proves that no row is missing, added, repeated or moved, and that
 * the page is the one asked for. See kix/client.h. */
#include <stdlib.h>
#include <string.h>

#include "kix/client.h"
#include "query_internal.h"
#include "kix/vindex.h"

/* ---- a group's members, proven page by page -------------------------------------- */

/* The log's size every proof of one answer must be at. */
static int same_size(struct kix_query_proof *proof, const struct kix_index_answer *a,
                     struct kix_err *err)
{
    if (proof->size && a->cp.size != proof->size)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "the log grew from size %llu to %llu while the answer was proven; "
                           "try again",
                           (unsigned long long)proof->size, (unsigned long long)a->cp.size);
    if (proof->size)
        return KIX_OK;
    kix_buf_reset(&proof->checkpoint);
    proof->size = a->cp.size;
    return kix_buf_add(&proof->checkpoint, a->checkpoint.ptr, a->checkpoint.len) == KIX_OK
               ? KIX_OK
               : kix_err_set(err, KIX_ENOMEM, "out of memory");
}

int kix__read_proven(void *ctx, const char *ikey, int *present, struct kix_buf *record,
                     struct kix_err *err)
{
    struct kix__prover *p = ctx;
    struct kix_index_answer a;
    int rc = kix_client_index_proof(p->c, p->key, ikey, &a, err);

    if (rc)
        return rc;
    rc = same_size(p->proof, &a, err);
    if (rc == KIX_OK && p->count)
        (*p->count)++;
    *present = a.present;
    if (rc == KIX_OK && a.present && kix_buf_add(record, a.record.ptr, a.record.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_index_answer_release(&a);
    return rc;
}

struct wanted {
    uint64_t first, last; /* ranks, inclusive */
    struct kix_vindex_page *pages;
    size_t n;
};

static int want_page(void *ctx, const struct kix_vindex_page *p)
{
    struct wanted *w = ctx;
    if (p->members && p->first_rank <= w->last && p->first_rank + p->members > w->first)
        w->pages[w->n++] = *p;
    return 0;
}

struct in_range {
    uint64_t first, last;
    kix_vindex_member_fn fn;
    void *ctx;
};

static int member_in_range(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct in_range *r = ctx;
    if (rank < r->first || rank > r->last)
        return 0;
    return r->fn ? r->fn(r->ctx, rank, run_id, value) : 0;
}

int kix__group_read(kix__record_fn read, void *read_ctx, const struct kix_digest *group,
                    uint64_t first, uint64_t n, kix_vindex_member_fn fn, void *ctx,
                    struct kix_group_members *out, struct kix_err *err)
{
    char ikey[KIX_VINDEX_KEY_MAX + 1];
    struct kix_buf record = KIX_BUF_INIT;
    struct wanted w = {first, n ? first + n - 1 : 0, NULL, 0};
    struct in_range range = {w.first, w.last, fn, ctx};
    struct kix_vindex_dir dir;
    int present = 0, rc;

    memset(out, 0, sizeof(*out));
    kix_vindex_key_group(group, ikey);
    rc = read(read_ctx, ikey, &present, &record, err);
    if (rc == KIX_OK && present)
        rc = kix_vindex_group_decode(record.ptr, record.len, group, &dir, NULL, NULL, err);
    if (rc == KIX_OK && present) {
        out->present = 1;
        out->count = dir.count;
        w.pages = calloc(dir.pages ? dir.pages : 1, sizeof(*w.pages));
        if (!w.pages)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        if (rc == KIX_OK && n && first >= 1)
            rc = kix_vindex_group_decode(record.ptr, record.len, group, &dir, want_page, &w, err);
    }
    for (size_t i = 0; rc == KIX_OK && i < w.n; i++) {
        char page_id[KIX_RUN_ID_MAX + 1];
        kix_vindex_key_group_page(group, w.pages[i].index ? w.pages[i].first_run : "", ikey);
        kix_buf_reset(&record);
        rc = read(read_ctx, ikey, &present, &record, err);
        if (rc == KIX_OK && !present)
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the log's index lists page %s of a group but proves it absent", ikey);
        if (rc == KIX_OK)
            rc = kix_vindex_page_decode(record.ptr, record.len, group, &w.pages[i], page_id,
                                        member_in_range, &range, err);
        if (rc == KIX_OK)
            out->pages++;
    }
    kix_buf_release(&record);
    free(w.pages);
    return rc;
}

int kix_client_group_members(struct kix_client *c, const struct kix_verifier *key,
                             const struct kix_digest *group, uint64_t first, uint64_t n,
                             kix_vindex_member_fn fn, void *ctx, struct kix_query_proof *proof,
                             struct kix_group_members *out, struct kix_err *err)
{
    struct kix__prover p = {c, key, proof, NULL};
    return kix__group_read(kix__read_proven, &p, group, first, n, fn, ctx, out, err);
}

/* ---- a page of a group, as a query answered it ----------------------------------------- */

struct page {
    const struct kix_query_row *rows;
    size_t n;
    uint64_t offset;
    const struct kix_digest *group;
    const char *wrong; /* the first row that is not the member at its place */
    size_t seen;       /* members of the page compared */
};

static int member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct page *p = ctx;
    const struct kix_query_row *row;

    if (rank <= p->offset || rank - p->offset > p->n)
        return 0;
    row = &p->rows[rank - p->offset - 1];
    if (row->rank != rank || strcmp(row->run_id, run_id) != 0 || row->value != value ||
        memcmp(row->group.b, p->group->b, 32) != 0) {
        p->wrong = row->run_id;
        return 1;
    }
    p->seen++;
    return 0;
}

int kix_client_group_page_verify(struct kix_client *c, const struct kix_verifier *key,
                                 const struct kix_digest *group, uint64_t offset, uint64_t limit,
                                 const struct kix_query_row *rows, size_t n, uint64_t matched,
                                 struct kix_query_proof *proof, struct kix_err *err)
{
    struct page p = {rows, n, offset, group, NULL, 0};
    struct kix_group_members g;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    uint64_t want;
    int rc = kix_client_group_members(c, key, group, offset + 1, limit, member, &p, proof, &g, err);

    if (rc)
        return rc;
    kix_digest_format(group, text);
    want = kix__page_size(g.count, offset, limit);
    for (size_t i = 0; !p.wrong && i < n; i++)
        if (rows[i].group_size != g.count)
            p.wrong = rows[i].run_id;
    if (p.wrong)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server's page of group %s from rank %llu shows run %s where the "
                           "log's signed index at size %llu has another run",
                           text, (unsigned long long)offset + 1, p.wrong,
                           (unsigned long long)proof->size);
    if (n != want || p.seen != want)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server answers %zu runs of group %s from rank %llu; the log's "
                           "signed index at size %llu ranks %llu runs there, so that page holds "
                           "%llu",
                           n, text, (unsigned long long)offset + 1, (unsigned long long)proof->size,
                           (unsigned long long)g.count, (unsigned long long)want);
    if (matched != g.count)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server says %llu runs match in group %s; the log's signed index "
                           "at size %llu ranks %llu",
                           (unsigned long long)matched, text, (unsigned long long)proof->size,
                           (unsigned long long)g.count);
    return KIX_OK;
}
