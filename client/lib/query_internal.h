/* Internal to the client's query proofs: the one place a group record is
 * read (client/lib/query_verify.c), for the completeness proof
 * (client/lib/query_select.c). */
#ifndef KIX_QUERY_INTERNAL_H
#define KIX_QUERY_INTERNAL_H

#include "kix/client.h"
#include "kix/vindex.h"

/* Every row of `group` is the member at its rank in a's proven group
 * record, with the record's count as its group size; each (may be NULL)
 * sees every member, in rank order. KIX_EVERIFY otherwise. */
int kix__query_check_group(const struct kix_index_answer *a, const struct kix_digest *group,
                           const struct kix_query_row *rows, size_t n, kix_vindex_member_fn each,
                           void *each_ctx, struct kix_err *err);

#endif
