/* A comparison group's page (kix/pages.h): one page of KIX_VIEW_GROUP_MAX
 * rows of the group view (kix/view.h), as its JSON document or through
 * templates/group.html, with a chart of the rows' medians and spreads
 * whose SVG is the template's; this file only computes its numbers. */
#include <stdio.h>
#include <string.h>

#include "kix/entry.h"
#include "kix/view.h"
#include "pages_internal.h"
#include "web_internal.h"

extern const unsigned char kix__group_html[];
extern const size_t kix__group_html_len;

/* The chart: one bar a row, as wide as its median, a line over its
 * p20-p80 spread, on one scale from 0 to the page's widest figure. */
#define CHART_WIDTH 640.0
#define BAR_PITCH   10
#define BAR_HEIGHT  7

static uint64_t widest(const struct kix_group_view *v)
{
    uint64_t m = 1;
    for (size_t i = 0; i < v->nrows; i++) {
        const struct kix_group_row *r = &v->rows[i];
        uint64_t top = r->have_p80 && r->p80 > r->value ? r->p80 : r->value;
        m = top > m ? top : m;
    }
    return m;
}

static int chart(struct kix_tpl *t, const struct kix_group_view *v)
{
    double scale = CHART_WIDTH / (double)widest(v);
    int rc = kix_tpl_setf(t, "chartWidth", "%.0f", CHART_WIDTH);

    if (rc == KIX_OK)
        rc = kix_tpl_setf(t, "chartHeight", "%zu", v->nrows * BAR_PITCH + 4);
    if (rc == KIX_OK)
        rc = kix_tpl_section(t, "bars");
    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++) {
        const struct kix_group_row *r = &v->rows[i];
        struct kix_tpl *bar = kix_tpl_row(t, "bars");
        int spread = r->have_p20 && r->have_p80;
        char median[KIX_HUMAN_MAX];

        if (!bar)
            return KIX_ENOMEM;
        kix_human((int64_t)r->value, v->bytes, median, sizeof(median));
        if ((rc = kix_tpl_setf(bar, "rank", "%llu", (unsigned long long)r->rank)) ||
            (rc = kix_tpl_set(bar, "runId", r->run_id)) ||
            (rc = kix_tpl_setf(bar, "y", "%zu", i * BAR_PITCH + 2)) ||
            (rc = kix_tpl_setf(bar, "ym", "%.1f", i * BAR_PITCH + 2 + BAR_HEIGHT / 2.0)) ||
            (rc = kix_tpl_setf(bar, "h", "%d", BAR_HEIGHT)) ||
            (rc = kix_tpl_setf(bar, "w", "%.1f", (double)r->value * scale)) ||
            (rc = kix_tpl_set(bar, "label", median)) ||
            (rc = kix_tpl_set(bar, "spread", spread ? "yes" : "")) ||
            (rc = kix_tpl_setf(bar, "x20", "%.1f", spread ? (double)r->p20 * scale : 0)) ||
            (rc = kix_tpl_setf(bar, "x80", "%.1f", spread ? (double)r->p80 * scale : 0)))
            return rc;
    }
    return rc;
}

/* KernelBench's groups rank PyTorch configurations: each row's speed-up
 * over the eager one (provider torch) of the page, as KernelBench reports
 * speed-ups; 0 when the group has none (or is another source's). */
#define KERNELBENCH_SOURCE "kernelbench-baseline-time"

static uint64_t eager_value(const struct kix_group_view *v)
{
    for (size_t i = 0; i < v->nrows; i++)
        if (strcmp(v->rows[i].source, KERNELBENCH_SOURCE) == 0 &&
            strcmp(v->rows[i].provider, "torch") == 0)
            return v->rows[i].value;
    return 0;
}

static int row_slots(struct kix_tpl *row, const struct kix_group_view *v,
                     const struct kix_group_row *r, uint64_t eager)
{
    char median[KIX_HUMAN_MAX], p20[KIX_HUMAN_MAX] = "", p80[KIX_HUMAN_MAX] = "";
    int rc;

    kix_human((int64_t)r->value, v->bytes, median, sizeof(median));
    if (r->have_p20 && r->have_p80) {
        kix_human((int64_t)r->p20, v->bytes, p20, sizeof(p20));
        kix_human((int64_t)r->p80, v->bytes, p80, sizeof(p80));
    }
    if ((rc = kix_tpl_setf(row, "rank", "%llu", (unsigned long long)r->rank)) ||
        (rc = kix_tpl_set(row, "runId", r->run_id)) ||
        (rc = kix__tpl_run_href(row, "runHref", r->run_id)) ||
        (rc = kix_tpl_setf(row, "value", "%llu", (unsigned long long)r->value)) ||
        (rc = kix_tpl_set(row, "median", median)) ||
        (rc = kix_tpl_set(row, "spread", p20[0] ? p20 : "")) ||
        (rc = kix_tpl_set(row, "p80", p80)) ||
        (rc = kix_tpl_set(row, "implementation", r->implementation_name)) ||
        (rc = kix_tpl_set(row, "provider", r->provider)) ||
        (rc = kix_tpl_set(row, "evidence", kix_words_evidence(r->evidence))) ||
        (rc = kix_tpl_set(row, "observed", r->observed)))
        return rc;
    rc = eager && r->value
             ? kix_tpl_setf(row, "eager", "%.2f\u00d7", (double)eager / (double)r->value)
             : kix_tpl_set(row, "eager", "");
    if (rc)
        return rc;
    /* how much slower than #1 (lower is better): best / this */
    return r->value ? kix_tpl_setf(row, "speedup", "%.2f\u00d7",
                                   (double)v->best_value / (double)r->value)
                    : kix_tpl_set(row, "speedup", "");
}

/* The address of page n of the group, relative to the group's page. */
static int page_link(struct kix_tpl *t, const char *name, const struct kix_group_view *v,
                     uint64_t n, unsigned flags)
{
    if (!(flags & KIX_PAGE_EXPORTED))
        return kix_tpl_setf(t, name, "?page=%llu", (unsigned long long)n);
    /* "./": a key ("sha256:…") alone would read as a URL scheme; ".html":
     * the name any static server types as a page */
    return n == 1 ? kix_tpl_setf(t, name, "./%s.html", v->group)
                  : kix_tpl_setf(t, name, "./%s-%llu.html", v->group, (unsigned long long)n);
}

static int group_slots(struct kix_tpl *t, const struct kix_group_view *v, const struct kix_buf *doc,
                       unsigned flags)
{
    uint64_t page = v->offset / KIX_VIEW_GROUP_MAX + 1;
    uint64_t pages = (v->size + KIX_VIEW_GROUP_MAX - 1) / KIX_VIEW_GROUP_MAX;
    int rc;

    if ((rc = kix_tpl_set(t, "group", v->group)) || (rc = kix_tpl_set(t, "origin", v->origin)) ||
        (rc = kix_tpl_set(t, "groupKey", v->group_key)) ||
        (rc = kix_tpl_set(t, "kernel", v->kernel)) ||
        (rc = kix_tpl_set(t, "workload", v->workload)) || (rc = kix_tpl_set(t, "pass", v->mode)) ||
        (rc = kix_tpl_set(t, "gpu", v->gpu)) ||
        (rc = kix_tpl_setf(t, "size", "%llu", (unsigned long long)v->size)) ||
        (rc = kix_tpl_setf(t, "first", "%llu", (unsigned long long)v->offset + 1)) ||
        (rc = kix_tpl_setf(t, "last", "%llu", (unsigned long long)(v->offset + v->nrows))) ||
        (rc = kix_tpl_set(t, "unit",
                          v->bytes                            ? "peak memory"
                          : strcmp(v->statistic, "mean") == 0 ? "mean latency"
                                                              : "median latency")) ||
        (rc = kix_tpl_set(t, "source", *v->source ? v->source : "not named")) ||
        (rc = kix_tpl_set(t, "eagerCol", eager_value(v) ? "yes" : "")) ||
        (rc = kix_tpl_setn(t, "logKey", (const char *)v->log_key.ptr, v->log_key.len)) ||
        (rc = kix__page_pin(t, v->checkpoint.ptr, v->checkpoint.len)) ||
        (rc = kix_tpl_setn(t, "view", (const char *)doc->ptr, doc->len)))
        return rc;
    if ((rc = page > 1 ? page_link(t, "prev", v, page - 1, flags) : kix_tpl_set(t, "prev", "")) ||
        (rc = page < pages ? page_link(t, "next", v, page + 1, flags) : kix_tpl_set(t, "next", "")))
        return rc;
    if ((rc = kix_tpl_set(t, "hasWithdrawn", v->nwithdrawn ? "yes" : "")) ||
        (rc = kix_tpl_set(t, "allWithdrawn", v->nwithdrawn && !v->size ? "yes" : "")) ||
        (rc = kix_tpl_section(t, "withdrawn")))
        return rc;
    for (size_t i = 0; i < v->nwithdrawn; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "withdrawn");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(row, "runId", v->withdrawn[i].run_id)) ||
            (rc = kix__tpl_run_href(row, "runHref", v->withdrawn[i].run_id)) ||
            (rc = kix_tpl_setf(row, "entry", "%llu", (unsigned long long)v->withdrawn[i].index)) ||
            (rc = kix_tpl_set(row, "reason", v->withdrawn[i].reason)))
            return rc;
    }
    if ((rc = kix_tpl_section(t, "rows")))
        return rc;
    for (size_t i = 0; i < v->nrows; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "rows");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = row_slots(row, v, &v->rows[i], eager_value(v))))
            return rc;
    }
    return chart(t, v);
}

/* Page `page` (1-based) starts at rank (page - 1) * KIX_VIEW_GROUP_MAX + 1. */
static uint64_t offset_of(uint64_t page)
{
    return page > 1 ? (page - 1) * KIX_VIEW_GROUP_MAX : 0;
}

int kix_page_group_json_at(struct kix_source *r, const char *key, size_t len, uint64_t page,
                           struct kix_buf *out, struct kix_err *err)
{
    struct kix_group_view v;
    int rc = kix_group_view_from_source(r, key, len, offset_of(page), &v, err);

    if (rc == KIX_OK)
        rc = kix_group_view_json(&v, 0, out, err);
    kix_group_view_release(&v);
    return rc;
}

/* The HTML of the built view v, whose document for the page is doc (an
 * empty one leaves #kix-view out; flags: kix_page_group_html_at's). */
static int group_html_of(const struct kix_group_view *v, const struct kix_buf *doc, unsigned flags,
                         struct kix_buf *out, struct kix_err *err)
{
    struct kix_tpl *t = kix_tpl_new();
    int rc = t ? group_slots(t, v, doc, flags) : KIX_ENOMEM;

    if (rc != KIX_OK)
        rc = kix_err_set(err, rc, "out of memory");
    else
        rc = kix__page_render(kix__group_html, kix__group_html_len, t, out, err);
    kix_tpl_free(t);
    return rc;
}

int kix_page_group_html_at(struct kix_source *r, const char *key, size_t len, uint64_t page,
                           unsigned flags, struct kix_buf *out, struct kix_err *err)
{
    struct kix_group_view v;
    struct kix_buf doc = KIX_BUF_INIT;
    int rc = kix_group_view_from_source(r, key, len, offset_of(page), &v, err);

    if (rc == KIX_OK)
        rc = kix_group_view_json(&v, KIX_VIEW_JSON_HTML, &doc, err);
    if (rc == KIX_OK)
        rc = group_html_of(&v, &doc, flags, out, err);
    kix_buf_release(&doc);
    kix_group_view_release(&v);
    return rc;
}

int kix__page_group_both(struct kix_source *r, const char *key, size_t len, uint64_t page,
                         unsigned flags, struct kix_buf *html, struct kix_buf *json,
                         struct kix_err *err)
{
    struct kix_group_view v;
    const struct kix_buf bare = KIX_BUF_INIT; /* no #kix-view: it is the JSON */
    int rc = kix_group_view_from_source(r, key, len, offset_of(page), &v, err);

    if (rc == KIX_OK)
        rc = kix_group_view_json(&v, KIX_VIEW_JSON_EXPORT, json, err);
    if (rc == KIX_OK)
        rc = group_html_of(&v, &bare, flags, html, err);
    kix_group_view_release(&v);
    return rc;
}

int kix_page_group_json(struct kix_source *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    return kix_page_group_json_at(r, key, len, 1, out, err);
}

int kix_page_group_html(struct kix_source *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    return kix_page_group_html_at(r, key, len, 1, KIX_PAGE_EXPORTED, out, err);
}
