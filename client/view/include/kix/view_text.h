/* kix/view_text.h — the run view (kix/view.h) as the text `kix show`
 * prints. What the view does not hold comes from the caller: the client's
 * checkpoint it cites and the staleness it computed at its clock. */
#ifndef KIX_VIEW_TEXT_H
#define KIX_VIEW_TEXT_H

#include "kix/api.h"

#include <stdio.h>

#include "kix/view.h"

struct kix_run_text {
    long stale_days, age_days; /* "Not re-observed in N days" when age > stale */
    const char *cite_origin;   /* the checkpoint the reader verified */
    uint64_t cite_size;
    const char *today; /* YYYY-MM-DD, the citation's access date */
};

KIX_API void kix_run_view_text(const struct kix_run_view *v, const struct kix_run_text *t,
                               FILE *out);

#endif
