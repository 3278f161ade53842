/* Internal to the client's query proofs: the one place a group record is
 * read (client/lib/query_verify.c), for the completeness proof
 * (client/lib/query_select.c). */
#ifndef KIX_QUERY_INTERNAL_H
#define KIX_QUERY_INTERNAL_H

#include "kix/client.h"
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

/* How many rows a page from `offset` (0-based) of at most `limit` holds
 * in a list of `count`: what a proven page must hold (kix group, kix
 * query). */
static inline uint64_t kix__page_size(uint64_t count, uint64_t offset, uint64_t limit)
{
    if (offset >= count)
        return 0;
    return count - offset < limit ? count - offset : limit;
}

#endif
