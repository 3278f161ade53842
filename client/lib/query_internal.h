/* Internal to the client's query proofs: the one place a group record is
 * read (client/lib/query_verify.c), for the completeness proof
 * (client/lib/query_select.c); and the one reader of what a query's
 * filters select (client/lib/query_selection.c), for that proof and for a
 * source that answers queries from the index's records
 * (client/lib/source_http_query.c). */
#ifndef KIX_QUERY_INTERNAL_H
#define KIX_QUERY_INTERNAL_H

#include "kix/client.h"
#include "kix/selection.h"
#include "kix/vindex.h"

/* Every row of `group` is the member at its rank in the group's proven
 * records (its directory and every page: kix_client_group_members, at
 * out->size), with the directory's count as its group size; each (may be
 * NULL) sees every member, in rank order. KIX_EVERIFY otherwise; a group
 * the index proves absent is KIX_EVERIFY too. */
int kix__query_check_group(struct kix_client *c, const struct kix_verifier *key,
                           const struct kix_digest *group, const struct kix_query_row *rows,
                           size_t n, kix_vindex_member_fn each, void *each_ctx,
                           struct kix_query_proof *out, struct kix_err *err);

/* KIX_EINVAL naming the first text filter of q that is not UTF-8
 * (client.c): checked before any source is asked. */
int kix__query_filters_check(const struct kix_query *q, struct kix_err *err);

/* How many rows a page from `offset` (0-based) of at most `limit` holds
 * in a list of `count`: what a proven page must hold (kix group, kix
 * query). */
static inline uint64_t kix__page_size(uint64_t count, uint64_t offset, uint64_t limit)
{
    if (offset >= count)
        return 0;
    return count - offset < limit ? count - offset : limit;
}

/* ---- what a query's filters select (query_selection.c) ---------------------------- */

/* One index record by its key: *present, and the record appended to
 * `record` when present. The completeness proof reads proven records
 * (kix_client_index_proof); a source reads them as it reads everything,
 * unverified. */
typedef int (*kix__record_fn)(void *ctx, const char *ikey, int *present, struct kix_buf *record,
                              struct kix_err *err);

/* kix__record_fn over proven records (group_page_verify.c): ctx a struct
 * kix__prover; each record proven by kix_client_index_proof at proof's
 * size (the first sets it, with its checkpoint; another is KIX_EUNAVAIL:
 * the log grew), counted in *count (may be NULL). */
struct kix__prover {
    struct kix_client *c;
    const struct kix_verifier *key;
    struct kix_query_proof *proof;
    size_t *count;
};
int kix__read_proven(void *ctx, const char *ikey, int *present, struct kix_buf *record,
                     struct kix_err *err);

/* A group's members at ranks [first, first + n) through fn, from its
 * directory and the pages that hold them, read by `read`
 * (kix_client_group_members reads proven records; a source its own). */
int kix__group_read(kix__record_fn read, void *read_ctx, const struct kix_digest *group,
                    uint64_t first, uint64_t n, kix_vindex_member_fn fn, void *ctx,
                    struct kix_group_members *out, struct kix_err *err);

/* A run a provider selects, with its group; ordered by kix__pair_order. */
struct kix__pair {
    uint8_t group[32];
    char run_id[KIX_RUN_ID_MAX + 1];
};
int kix__pair_order(const void *a, const void *b);

/* What q's filters select (PROTOCOL.md §4.7): the groups every filter
 * that a group holds constant selects (settled; every group, by its
 * metric, without such a filter; only q->group's when given), and with a
 * provider filter the runs it selects (sorted). Caller releases. */
struct kix__selection {
    struct kix_sel_keys groups;
    int provider; /* a provider filter was asked: only pairs' runs match */
    struct kix__pair *pairs;
    size_t npairs;
};
int kix__selection_read(const struct kix_query *q, kix__record_fn read, void *ctx,
                        struct kix__selection *out, struct kix_err *err);
/* 1 when the member run_id of group matches (always without a provider). */
int kix__selection_has_run(const struct kix__selection *s, const uint8_t group[32],
                           const char *run_id);
void kix__selection_release(struct kix__selection *s);

#endif
