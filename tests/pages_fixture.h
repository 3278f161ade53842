/* tests/pages_fixture.h — the store as the pages read it, for the tests of
 * the views and pages (static inline helpers, one copy per test). */
#ifndef KIX_TEST_PAGES_FIXTURE_H
#define KIX_TEST_PAGES_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "kix/pages.h"
#include "kix/source.h"

/* One snapshot of l as a source (r, or one of its own when NULL). */
static inline struct kix_source *as_source(struct kix_log *l, struct kix_log_reader *r)
{
    struct kix_source *src = NULL;
    struct kix_err err = {0};

    if (kix_source_open_snapshot(l, r, &src, &err) != KIX_OK) {
        fprintf(stderr, "as_source: %s\n", err.msg);
        abort();
    }
    return src;
}

/* kixd export's pages of l's latest snapshot into dir. */
static inline int export_pages(struct kix_log *l, const char *dir,
                               struct kix_pages_export_stats *st, struct kix_err *err)
{
    struct kix_source *src = as_source(l, NULL);
    int rc = kix_pages_export(src, dir, st, err);

    kix_source_close(src);
    return rc;
}

#endif
