/* kix_client_group_page_verify: a group's page is exactly the members of
 * the group's proven record at the ranks asked for, and the match count is
 * the record's count. kix_client_query_verify proves what each row says;
 * this proves that no row is missing, added, repeated or moved, and that
 * the page is the one asked for. See kix/client.h. */
#include <string.h>

#include "kix/client.h"
#include "kix/vindex.h"

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

static uint64_t page_size(uint64_t count, uint64_t offset, uint64_t limit)
{
    if (offset >= count)
        return 0;
    return count - offset < limit ? count - offset : limit;
}

static int check_page(const struct kix_index_answer *a, const struct kix_digest *group,
                      uint64_t offset, uint64_t limit, const struct kix_query_row *rows, size_t n,
                      uint64_t matched, struct kix_err *err)
{
    struct page p = {rows, n, offset, group, NULL, 0};
    char text[KIX_DIGEST_TEXT_LEN + 1];
    uint64_t count = 0, want;
    int rc;

    kix_digest_format(group, text);
    if (a->present) {
        rc = kix_vindex_group_decode(a->record.ptr, a->record.len, group, &count, member, &p, err);
        if (rc)
            return rc;
    }
    want = page_size(count, offset, limit);
    for (size_t i = 0; !p.wrong && i < n; i++)
        if (rows[i].group_size != count)
            p.wrong = rows[i].run_id;
    if (p.wrong)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server's page of group %s from rank %llu shows run %s where the "
                           "log's signed index at size %llu has another run",
                           text, (unsigned long long)offset + 1, p.wrong,
                           (unsigned long long)a->cp.size);
    if (n != want || p.seen != want)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server answers %zu runs of group %s from rank %llu; the log's "
                           "signed index at size %llu ranks %llu runs there, so that page holds "
                           "%llu",
                           n, text, (unsigned long long)offset + 1, (unsigned long long)a->cp.size,
                           (unsigned long long)count, (unsigned long long)want);
    if (matched != count)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server says %llu runs match in group %s; the log's signed index "
                           "at size %llu ranks %llu",
                           (unsigned long long)matched, text, (unsigned long long)a->cp.size,
                           (unsigned long long)count);
    return KIX_OK;
}

int kix_client_group_page_verify(struct kix_client *c, const struct kix_verifier *key,
                                 const struct kix_digest *group, uint64_t offset, uint64_t limit,
                                 const struct kix_query_row *rows, size_t n, uint64_t matched,
                                 struct kix_query_proof *proof, struct kix_err *err)
{
    char ikey[KIX_VINDEX_KEY_MAX + 1];
    struct kix_index_answer a;
    int rc;

    kix_vindex_key_group(group, ikey);
    rc = kix_client_index_proof(c, key, ikey, &a, err);
    if (rc)
        return rc;
    if (proof->size && a.cp.size != proof->size)
        rc = kix_err_set(err, KIX_EUNAVAIL,
                         "the log grew from size %llu to %llu while the group was proven; "
                         "try again",
                         (unsigned long long)proof->size, (unsigned long long)a.cp.size);
    if (rc == KIX_OK && !proof->size) {
        kix_buf_reset(&proof->checkpoint);
        proof->size = a.cp.size;
        rc = kix_buf_add(&proof->checkpoint, a.checkpoint.ptr, a.checkpoint.len);
    }
    if (rc == KIX_OK)
        rc = check_page(&a, group, offset, limit, rows, n, matched, err);
    kix_index_answer_release(&a);
    return rc;
}
