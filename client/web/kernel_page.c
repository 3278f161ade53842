/* A kernel's page (kix/pages.h): where it was measured, a chart of each
 * sweep (kix/view.h), and its groups by GPU. The charts are SVG written
 * by templates/kernel.html; this file computes only their coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/pages.h"
#include "kix/sha256.h"
#include "web_internal.h"

extern const unsigned char kix__kernel_html[];
extern const size_t kix__kernel_html_len;
extern const unsigned char kix__sweep_html[];
extern const size_t kix__sweep_html_len;

/* The chart's frame, in SVG user units. */
enum {
    CHART_W = 640,
    CHART_H = 320,
    PLOT_LEFT = 78,
    PLOT_RIGHT = 620,
    PLOT_TOP = 16,
    PLOT_BOTTOM = 256,
};

/* Okabe and Ito's colours, told apart by colour-blind readers too. */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#999999"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

struct axis {
    double lo, hi;
    int log; /* log2 of the value */
};

static double axis_pos(const struct axis *a, double v, double from, double to)
{
    double x = a->log ? log2(v) : v, lo = a->log ? log2(a->lo) : a->lo,
           hi = a->log ? log2(a->hi) : a->hi;

    if (hi <= lo)
        return (from + to) / 2;
    return from + (x - lo) / (hi - lo) * (to - from);
}

/* A round step (1, 2 or 5 times a power of ten) near span / n. */
static double nice_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;

    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static int setd(struct kix_tpl *t, const char *name, double v)
{
    return kix_tpl_setf(t, name, "%.1f", v);
}

static int frame_slots(struct kix_tpl *t)
{
    int rc;

    if ((rc = kix_tpl_setf(t, "width", "%d", CHART_W)) ||
        (rc = kix_tpl_setf(t, "height", "%d", CHART_H)) ||
        (rc = kix_tpl_setf(t, "left", "%d", PLOT_LEFT)) ||
        (rc = kix_tpl_setf(t, "right", "%d", PLOT_RIGHT)) ||
        (rc = kix_tpl_setf(t, "top", "%d", PLOT_TOP)) ||
        (rc = kix_tpl_setf(t, "bottom", "%d", PLOT_BOTTOM)) ||
        (rc = kix_tpl_setf(t, "tickEnd", "%d", PLOT_BOTTOM + 5)) ||
        (rc = kix_tpl_setf(t, "labelX", "%d", PLOT_LEFT - 6)) ||
        (rc = kix_tpl_setf(t, "labelY", "%d", PLOT_BOTTOM + 19)) ||
        (rc = kix_tpl_setf(t, "xTitleX", "%d", (PLOT_LEFT + PLOT_RIGHT) / 2)) ||
        (rc = kix_tpl_setf(t, "xTitleY", "%d", CHART_H - 14)) ||
        (rc = kix_tpl_setf(t, "yTitleX", "%d", 16)) ||
        (rc = kix_tpl_setf(t, "yTitleY", "%d", (PLOT_TOP + PLOT_BOTTOM) / 2)))
        return rc;
    return KIX_OK;
}

static const struct kix_kernel_point *point(const struct kix_kernel_view *v,
                                            const struct kix_kernel_line *l, size_t i)
{
    return &v->points[l->first_point + i];
}

/* The y axis from 0 to a round value above the largest median, with its
 * ticks written as kix_human writes values. */
static int y_axis(struct kix_tpl *t, const struct kix_kernel_view *v,
                  const struct kix_kernel_sweep *s, struct axis *y)
{
    double top = 0, step;
    int rc = kix_tpl_section(t, "yticks");

    for (size_t l = 0; l < s->nlines; l++)
        for (size_t i = 0; i < v->lines[s->first_line + l].npoints; i++)
            if ((double)point(v, &v->lines[s->first_line + l], i)->value > top)
                top = (double)point(v, &v->lines[s->first_line + l], i)->value;
    if (top < 1)
        top = 1;
    step = nice_step(top, 4);
    if (step < 1)
        step = 1;
    y->lo = 0;
    y->hi = ceil(top / step) * step;
    y->log = 0;
    for (double tick = 0; rc == KIX_OK && tick <= y->hi + step / 2; tick += step) {
        struct kix_tpl *row = kix_tpl_row(t, "yticks");
        char label[KIX_HUMAN_MAX];
        kix_human((int64_t)tick, s->bytes, label, sizeof(label));
        if (!row)
            return KIX_ENOMEM;
        if ((rc = setd(row, "y", axis_pos(y, tick, PLOT_BOTTOM, PLOT_TOP))) == KIX_OK)
            rc = kix_tpl_set(row, "label", tick == 0 ? "0" : label);
    }
    return rc;
}

static int dbl_order(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The x axis: log2 when every x is a positive number and they span a
 * factor of 16 or more (sizes that double), else linear; a tick at each
 * distinct x, thinned to at most 10. */
static int x_axis(struct kix_tpl *t, const struct kix_kernel_view *v,
                  const struct kix_kernel_sweep *s, struct axis *x)
{
    size_t n = 0, count = 0, stride;
    double *xs;
    int rc = kix_tpl_section(t, "xticks");

    for (size_t l = 0; l < s->nlines; l++)
        count += v->lines[s->first_line + l].npoints;
    if (rc || !(xs = malloc((count ? count : 1) * sizeof(*xs))))
        return rc ? rc : KIX_ENOMEM;
    for (size_t l = 0; l < s->nlines; l++)
        for (size_t i = 0; i < v->lines[s->first_line + l].npoints; i++)
            xs[n++] = point(v, &v->lines[s->first_line + l], i)->x;
    qsort(xs, n, sizeof(*xs), dbl_order);
    count = 0;
    for (size_t i = 0; i < n; i++)
        if (count == 0 || xs[count - 1] != xs[i])
            xs[count++] = xs[i];
    x->lo = count ? xs[0] : 0;
    x->hi = count ? xs[count - 1] : 1;
    x->log = s->numeric_x && x->lo > 0 && x->hi / x->lo >= 16;
    stride = count > 10 ? (count + 9) / 10 : 1;
    for (size_t i = 0; rc == KIX_OK && i < count; i += stride) {
        struct kix_tpl *row = kix_tpl_row(t, "xticks");
        char label[40] = "";
        if (!row) {
            rc = KIX_ENOMEM;
            break;
        }
        /* the tick's label is the x text of a point at that x */
        for (size_t l = 0; !*label && l < s->nlines; l++)
            for (size_t k = 0; !*label && k < v->lines[s->first_line + l].npoints; k++)
                if (point(v, &v->lines[s->first_line + l], k)->x == xs[i])
                    snprintf(label, sizeof(label), "%s",
                             point(v, &v->lines[s->first_line + l], k)->x_text);
        if ((rc = setd(row, "x", axis_pos(x, xs[i], PLOT_LEFT + 12, PLOT_RIGHT - 12))) == KIX_OK)
            rc = kix_tpl_set(row, "label", label);
    }
    free(xs);
    return rc;
}

static int line_slots(struct kix_tpl *t, const struct kix_kernel_view *v,
                      const struct kix_kernel_sweep *s, const struct axis *x, const struct axis *y)
{
    int rc = kix_tpl_section(t, "lines");

    for (size_t l = 0; rc == KIX_OK && l < s->nlines; l++) {
        const struct kix_kernel_line *line = &v->lines[s->first_line + l];
        struct kix_tpl *row = kix_tpl_row(t, "lines");
        struct kix_buf poly = KIX_BUF_INIT;
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(row, "implementation", line->implementation)) ||
            (rc = kix_tpl_set(row, "provider", line->provider)) ||
            (rc = kix_tpl_set(row, "color", palette[l % NCOLORS])) ||
            (rc = kix_tpl_section(row, "points")))
            return rc;
        for (size_t i = 0; rc == KIX_OK && i < line->npoints; i++) {
            const struct kix_kernel_point *p = point(v, line, i);
            double cx = axis_pos(x, p->x, PLOT_LEFT + 12, PLOT_RIGHT - 12),
                   cy = axis_pos(y, (double)p->value, PLOT_BOTTOM, PLOT_TOP);
            struct kix_tpl *pt = kix_tpl_row(row, "points");
            char human[KIX_HUMAN_MAX];
            kix_human((int64_t)p->value, s->bytes, human, sizeof(human));
            rc = !pt ? KIX_ENOMEM : kix_buf_addf(&poly, "%s%.1f,%.1f", i ? " " : "", cx, cy);
            if (rc == KIX_OK &&
                ((rc = setd(pt, "cx", cx)) || (rc = setd(pt, "cy", cy)) ||
                 (rc = kix_tpl_set(pt, "x", p->x_text)) || (rc = kix_tpl_set(pt, "median", human))))
                break;
            if (rc == KIX_OK)
                rc = kix_tpl_set(pt, "runId", p->run_id);
            if (rc == KIX_OK)
                rc = kix__tpl_run_href(pt, "runHref", p->run_id);
        }
        if (rc == KIX_OK)
            rc = kix_tpl_setn(row, "polyline", poly.len ? (const char *)poly.ptr : "", poly.len);
        kix_buf_release(&poly);
    }
    return rc;
}

/* A sweep's slots (its figure: caption, axes, lines and values) into t,
 * a row of the kernel page's sweeps or a sweep page. */
static int one_sweep_slots(struct kix_tpl *t, const struct kix_kernel_view *v,
                           const struct kix_kernel_sweep *s, size_t index)
{
    struct axis x, y;
    int rc;

    if ((rc = kix_tpl_setf(t, "index", "%zu", index)) || (rc = frame_slots(t)) ||
        (rc = kix_tpl_set(t, "gpu", s->gpu)) || (rc = kix_tpl_set(t, "pass", s->mode)) ||
        (rc = kix_tpl_set(t, "dtype", s->dtype)) || (rc = kix_tpl_set(t, "fixed", s->fixed)) ||
        (rc = kix_tpl_set(t, "xName", s->x_name)) ||
        (rc = *s->x_label ? kix_tpl_setf(t, "xTitle", "%s (%s)", s->x_label, s->x_name)
                          : kix_tpl_set(t, "xTitle", s->x_name)) ||
        (rc = kix_tpl_set(t, "metricWords", s->bytes ? "Median peak memory" : "Median latency")) ||
        (rc = kix_tpl_set(t, "metricShort", s->bytes ? "median peak memory" : "median latency")) ||
        /* each tick names its unit (kix_human), so the title names
         * only the quantity */
        (rc = kix_tpl_set(t, "yTitle", s->bytes ? "median peak memory" : "median latency")) ||
        (rc = kix_tpl_setf(t, "lineCount", "%zu", s->nlines)) || (rc = y_axis(t, v, s, &y)) ||
        (rc = x_axis(t, v, s, &x)) || (rc = kix_tpl_set(t, "logX", x.log ? "1" : "")))
        return rc;
    return line_slots(t, v, s, &x, &y);
}

/* A sweep's name in a static copy, sweeps/<id>.html: the first 16 bytes
 * of SHA-256 over what makes it one sweep (kernel, GPU, pass, metric,
 * dtype, the fixed parameters, the swept one), in hex, so that it keeps
 * its name as runs and groups come and go and is written again only when
 * its own points change. */
static int sweep_id(const struct kix_kernel_view *v, const struct kix_kernel_sweep *s, char out[33])
{
    struct kix_buf key = KIX_BUF_INIT;
    uint8_t h[KIX_SHA256_LEN];
    int rc = kix_buf_addf(&key, "%s\n%s\n%s\n%s\n%s\n%s\n%s", v->kernel, s->gpu, s->mode, s->metric,
                          s->dtype, s->fixed, s->x_name);

    if (rc == KIX_OK) {
        kix_sha256(key.ptr, key.len, h);
        kix_hex_encode(h, 16, out);
        out[32] = '\0';
    }
    kix_buf_release(&key);
    return rc;
}

/* The sweeps' figures (exported: each a link to its own page,
 * sweeps/<id>.html, instead). */
static int sweep_slots(struct kix_tpl *t, const struct kix_kernel_view *v, int exported)
{
    int rc = kix_tpl_section(t, "sweeps");
    size_t index = 0;

    for (size_t i = 0; rc == KIX_OK && i < v->nsweeps; i++) {
        const struct kix_kernel_sweep *s = &v->sweeps[i];
        struct kix_tpl *row;
        char id[33];
        if (!s->nlines)
            continue;
        if (!(row = kix_tpl_row(t, "sweeps")))
            return KIX_ENOMEM;
        rc = one_sweep_slots(row, v, s, ++index);
        if (rc == KIX_OK && exported && (rc = sweep_id(v, s, id)) == KIX_OK &&
            (rc = kix_tpl_set(row, "linked", "1")) == KIX_OK)
            rc = kix_tpl_setf(row, "sweepHref", "../sweeps/%s.html", id);
        else if (rc == KIX_OK && !exported)
            rc = kix_tpl_set(row, "linked", "");
    }
    if (rc == KIX_OK)
        rc = kix_tpl_set(t, "sweepCountS", index == 1 ? "" : "s");
    return rc ? rc : kix_tpl_setf(t, "sweepCount", "%zu", index);
}

/* s into b as a URL query's value (RFC 3986 unreserved kept). */
static int query_value(struct kix_buf *b, const char *s)
{
    int rc = KIX_OK;

    for (; rc == KIX_OK && *s; s++) {
        unsigned char c = (unsigned char)*s;
        rc = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~'
                 ? kix_buf_addc(b, (char)c)
                 : kix_buf_addf(b, "%%%02X", c);
    }
    return rc;
}

/* A GPU's groups in a static copy: the index's rows (home pages, search
 * shards) filtered to the kernel and GPU by kix-search.js, a link that
 * does not move when other kernels' groups come or go, so the page is
 * rewritten only when its own groups change. */
static int home_rows_slots(struct kix_tpl *row, const char *kernel, const char *gpu, size_t n)
{
    struct kix_buf href = KIX_BUF_INIT;
    int rc = kix_buf_addf(&href, "../index.html?kernel=");

    if (rc == KIX_OK)
        rc = query_value(&href, kernel);
    if (rc == KIX_OK)
        rc = kix_buf_addf(&href, "&gpu=");
    if (rc == KIX_OK)
        rc = query_value(&href, gpu);
    if (rc == KIX_OK)
        rc = kix_buf_addf(&href, "#groups");
    if (rc == KIX_OK && !(rc = kix_tpl_set(row, "homeRows", "1")) &&
        !(rc = kix_tpl_set(row, "nGroupsS", n == 1 ? "" : "s")))
        rc = kix_tpl_setn(row, "searchHref", (const char *)href.ptr, href.len);
    kix_buf_release(&href);
    return rc;
}

/* The GPUs the kernel was measured on, each with its passes and groups
 * (exported: a link to the home pages' rows instead of the groups). */
static int gpu_slots(struct kix_tpl *t, const struct kix_kernel_view *v, int exported)
{
    const struct kix_home_view *h = v->home;
    const struct kix_home_count *k = NULL;
    int rc = kix_tpl_section(t, "gpus");

    for (size_t i = 0; !k && i < h->nkernels; i++)
        if (strcmp(h->kernels[i].name, v->kernel) == 0)
            k = &h->kernels[i];
    for (size_t g = 0; k && rc == KIX_OK && g < k->ngpus; g++) {
        const struct kix_home_count *c = &h->gpus[k->first_gpu + g];
        struct kix_tpl *row = kix_tpl_row(t, "gpus");
        struct kix_buf passes = KIX_BUF_INIT;
        if (!row)
            return KIX_ENOMEM;
        for (size_t i = c->first_row; rc == KIX_OK && i < c->first_row + c->groups; i++)
            if (i == c->first_row || strcmp(h->rows[i].mode, h->rows[i - 1].mode) != 0)
                rc = kix_buf_addf(&passes, "%s%s", passes.len ? ", " : "",
                                  *h->rows[i].mode ? h->rows[i].mode : "unnamed");
        if (rc == KIX_OK &&
            ((rc = kix_tpl_set(row, "gpu", c->name)) ||
             (rc = kix_tpl_setf(row, "gpuIndex", "%zu", g + 1)) ||
             (rc = kix_tpl_setn(row, "passes", (const char *)passes.ptr, passes.len)) ||
             (rc = kix_tpl_setf(row, "nGroups", "%llu", (unsigned long long)c->groups)) ||
             (rc = kix_tpl_setf(row, "runs", "%llu", (unsigned long long)c->runs)) ||
             (rc = exported && c->groups ? home_rows_slots(row, v->kernel, c->name, c->groups)
                                         : kix_tpl_set(row, "homeRows", "")) ||
             (rc = kix_tpl_section(row, "groups"))) == KIX_OK)
            for (size_t i = c->first_row; rc == KIX_OK && !exported && i < c->first_row + c->groups;
                 i++) {
                struct kix_tpl *x = kix_tpl_row(row, "groups");
                rc = x ? kix__group_row_slots(x, &h->rows[i]) : KIX_ENOMEM;
            }
        kix_buf_release(&passes);
    }
    return rc;
}

/* KernelBench's groups of the kernel compared across GPUs: one bar per
 * group (one GPU on one host, one workload), its best configuration's
 * mean, on one scale from 0, fastest first. Only that source's groups: its
 * figures are comparable with each other in kind (one protocol), never
 * with another source's. */
#define GPU_CHART_SOURCE "kernelbench-baseline-time"
#define GPU_BAR_LEFT     300.0
#define GPU_BAR_WIDTH    420.0
#define GPU_BAR_STEP     24.0

static int by_value(const void *a, const void *b)
{
    const struct kix_home_row *x = *(const struct kix_home_row *const *)a;
    const struct kix_home_row *y = *(const struct kix_home_row *const *)b;
    return x->value < y->value ? -1 : x->value > y->value ? 1 : strcmp(x->group, y->group);
}

/* "NVIDIA L40S (Modal)": the GPU and, when its environment names one, the
 * host, so that one GPU on two hosts is two labels */
static void gpu_label(const struct kix_home_row *x, char *out, size_t cap)
{
    snprintf(out, cap, *x->host ? "%s (%s)" : "%s", x->gpu, x->host);
}

static int gpu_chart_slots(struct kix_tpl *t, const struct kix_kernel_view *v)
{
    const struct kix_home_row **rows = calloc(v->nrows ? v->nrows : 1, sizeof(*rows));
    uint64_t max = 0;
    size_t n = 0;
    int rc = rows ? kix_tpl_section(t, "gpuBars") : KIX_ENOMEM;

    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++) {
        const struct kix_home_row *x = &v->home->rows[v->first_row + i];
        if (strcmp(x->source, GPU_CHART_SOURCE) != 0 || x->bytes)
            continue;
        rows[n++] = x;
        max = x->value > max ? x->value : max;
    }
    if (n)
        qsort(rows, n, sizeof(*rows), by_value);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        struct kix_tpl *bar = kix_tpl_row(t, "gpuBars");
        char human[KIX_HUMAN_MAX], label[sizeof(rows[i]->gpu) + sizeof(rows[i]->host) + 4];
        double w = max ? GPU_BAR_WIDTH * (double)rows[i]->value / (double)max : 0;

        kix_human((int64_t)rows[i]->value, 0, human, sizeof(human));
        gpu_label(rows[i], label, sizeof(label));
        if (!bar) {
            rc = KIX_ENOMEM;
            break;
        }
        if ((rc = kix_tpl_set(bar, "gpu", label)) ||
            (rc = kix_tpl_set(bar, "workload", rows[i]->workload)) ||
            (rc = kix_tpl_set(bar, "group", rows[i]->group)) ||
            (rc = kix_tpl_set(bar, "implementation", rows[i]->implementation)) ||
            (rc = kix_tpl_set(bar, "mean", human)) || (rc = setd(bar, "x", GPU_BAR_LEFT)) ||
            (rc = setd(bar, "w", w < 1 ? 1 : w)) ||
            (rc = setd(bar, "y", 8 + GPU_BAR_STEP * (double)i)) ||
            (rc = setd(bar, "labelX", GPU_BAR_LEFT - 8)) ||
            (rc = setd(bar, "textY", 8 + GPU_BAR_STEP * (double)i + 12)))
            break;
        rc = setd(bar, "valueX", GPU_BAR_LEFT + (w < 1 ? 1 : w) + 6);
    }
    if (rc == KIX_OK)
        rc = setd(t, "gpuChartHeight", 16 + GPU_BAR_STEP * (double)n);
    free(rows);
    return rc;
}

/* A KernelBench problem's configurations on each GPU: every KernelBench
 * group of the kernel (one GPU on one host), its runs ranked by mean, each
 * with the speed-up over the eager one (provider torch), as KernelBench
 * reports speed-ups; read from the group's view, as its own page is. */
static int config_slots(struct kix_tpl *t, struct kix_source *r, const struct kix_kernel_view *v,
                        struct kix_err *err)
{
    int rc = kix_tpl_section(t, "problemGpus");

    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++) {
        const struct kix_home_row *x = &v->home->rows[v->first_row + i];
        struct kix_group_view g;
        struct kix_tpl *gpu;
        uint64_t eager = 0;
        char label[sizeof(x->gpu) + sizeof(x->host) + 4];

        if (strcmp(x->source, GPU_CHART_SOURCE) != 0 || x->bytes)
            continue;
        memset(&g, 0, sizeof(g));
        rc = kix_group_view_from_source(r, x->group, strlen(x->group), 0, &g, err);
        gpu = rc == KIX_OK ? kix_tpl_row(t, "problemGpus") : NULL;
        if (rc == KIX_OK && !gpu)
            rc = KIX_ENOMEM;
        for (size_t j = 0; rc == KIX_OK && j < g.nrows; j++)
            if (strcmp(g.rows[j].provider, "torch") == 0)
                eager = g.rows[j].value;
        if (rc == KIX_OK && (gpu_label(x, label, sizeof(label)),
                             (rc = kix_tpl_set(gpu, "gpu", label)) ||
                                 (rc = kix_tpl_set(gpu, "workload", x->workload)) ||
                                 (rc = kix_tpl_set(gpu, "group", x->group)) ||
                                 (rc = kix_tpl_section(gpu, "configs"))))
            rc = KIX_ENOMEM;
        for (size_t j = 0; rc == KIX_OK && j < g.nrows; j++) {
            const struct kix_group_row *row = &g.rows[j];
            struct kix_tpl *c = kix_tpl_row(gpu, "configs");
            char mean[KIX_HUMAN_MAX];

            kix_human((int64_t)row->value, 0, mean, sizeof(mean));
            if (!c || kix_tpl_setf(c, "rank", "%llu", (unsigned long long)row->rank) ||
                kix_tpl_set(c, "implementation", row->implementation_name) ||
                kix__tpl_run_href(c, "runHref", row->run_id) || kix_tpl_set(c, "mean", mean) ||
                (eager && row->value
                     ? kix_tpl_setf(c, "vsEager", "%.2f\u00d7", (double)eager / (double)row->value)
                     : kix_tpl_set(c, "vsEager", "")))
                rc = KIX_ENOMEM;
        }
        kix_group_view_release(&g);
    }
    return rc;
}

typedef int (*kernel_render_fn)(struct kix_source *r, const struct kix_kernel_view *v,
                                struct kix_buf *out, struct kix_err *err);

static int kernel_json(struct kix_source *r, const struct kix_kernel_view *v, struct kix_buf *out,
                       struct kix_err *err)
{
    (void)r;
    return kix_kernel_view_json(v, 0, out, err);
}

/* exported: without the view, the GPUs' groups a link to the home pages
 * (kix__kernel_page_exported) */
static int kernel_html_as(struct kix_source *r, const struct kix_kernel_view *v, int exported,
                          struct kix_buf *out, struct kix_err *err)
{
    struct kix_buf doc = KIX_BUF_INIT;
    struct kix_tpl *t = kix_tpl_new();
    int rc = !t         ? KIX_ENOMEM
             : exported ? KIX_OK
                        : kix_kernel_view_json(v, KIX_VIEW_JSON_HTML, &doc, err);

    if (rc == KIX_OK && ((rc = kix_tpl_set(t, "kernel", v->kernel)) ||
                         (rc = kix_tpl_set(t, "origin", v->home->origin)) ||
                         (rc = kix_tpl_setf(t, "groupCount", "%zu", v->nrows)) ||
                         (rc = kix_tpl_set(t, "groupCountS", v->nrows == 1 ? "" : "s")) ||
                         (rc = kix_tpl_setf(t, "runs", "%llu", (unsigned long long)v->runs)) ||
                         (rc = kix_tpl_set(t, "runsS", v->runs == 1 ? "" : "s")) ||
                         (rc = kix_tpl_setn(t, "view", (const char *)doc.ptr, doc.len)) ||
                         (rc = gpu_slots(t, v, exported)) || (rc = sweep_slots(t, v, exported)) ||
                         (rc = gpu_chart_slots(t, v))))
        rc = kix_err_set(err, rc, "out of memory");
    if (rc == KIX_OK)
        rc = config_slots(t, r, v, err);
    if (rc == KIX_OK)
        rc = kix_tpl_render((const char *)kix__kernel_html, kix__kernel_html_len, t, out, err);
    kix_tpl_free(t);
    kix_buf_release(&doc);
    return rc;
}

static int kernel_html(struct kix_source *r, const struct kix_kernel_view *v, struct kix_buf *out,
                       struct kix_err *err)
{
    return kernel_html_as(r, v, 0, out, err);
}

/* The page, rendered once per log state (the home view's memo). */
static int kernel_page(struct kix_source *r, const char *kernel, size_t len,
                       kernel_render_fn render, struct kix_buf *out, struct kix_err *err)
{
    struct kix__home_model *m;
    struct kix_kernel_view v;
    struct kix_buf bytes = KIX_BUF_INIT;
    size_t slot;
    int rc = kix__home_acquire(r, &m, err);

    memset(&v, 0, sizeof(v));
    if (rc)
        return rc;
    slot = kix__memo_kernel_slot(m, kernel, len, render == kernel_json);
    if (kix__memo_get(m, slot, out, &rc)) {
        if (rc)
            kix_err_set(err, rc, "out of memory");
        goto out;
    }
    rc = kix_kernel_view_build(r, &m->view, kernel, len, &v, err);
    if (rc == KIX_OK)
        rc = render(r, &v, &bytes, err);
    if (rc == KIX_OK && (rc = kix_buf_add(out, bytes.ptr, bytes.len)) != KIX_OK)
        kix_err_set(err, rc, "out of memory");
    if (rc == KIX_OK)
        kix__memo_put(m, slot, &bytes);
out:
    kix_buf_release(&bytes);
    kix_kernel_view_release(&v);
    kix__home_put(m);
    return rc;
}

int kix_page_kernel_json(struct kix_source *r, const char *kernel, size_t len, struct kix_buf *out,
                         struct kix_err *err)
{
    return kernel_page(r, kernel, len, kernel_json, out, err);
}

int kix_page_kernel_html(struct kix_source *r, const char *kernel, size_t len, struct kix_buf *out,
                         struct kix_err *err)
{
    return kernel_page(r, kernel, len, kernel_html, out, err);
}

/* A static copy's page embeds no view (kernels/<name>.json beside it is
 * its document) and lists no groups, nor does that document: they are the
 * home pages' rows, which the page links (PROTOCOL.md §3, the kernel
 * view). Both were O(groups of the kernel) and every new run of the
 * kernel rewrote them; now they are O(GPUs and sweeps). Rendered once an
 * export: no memo slot. */
int kix__kernel_page_exported(struct kix_source *r, const char *kernel, size_t len,
                              struct kix_buf *html, struct kix_buf *json, struct kix_err *err)
{
    struct kix__home_model *m;
    struct kix_kernel_view v;
    int rc = kix__home_acquire(r, &m, err);

    memset(&v, 0, sizeof(v));
    if (rc)
        return rc;
    rc = kix_kernel_view_build(r, &m->view, kernel, len, &v, err);
    if (rc == KIX_OK)
        rc = kernel_html_as(r, &v, 1, html, err);
    if (rc == KIX_OK)
        rc = kix_kernel_view_json(&v, KIX_VIEW_JSON_EXPORT, json, err);
    kix_kernel_view_release(&v);
    kix__home_put(m);
    return rc;
}

int kix__kernel_sweep_pages(struct kix_source *r, const char *kernel, size_t len,
                            kix__sweep_page_fn fn, void *ctx, struct kix_err *err)
{
    struct kix__home_model *m;
    struct kix_kernel_view v;
    struct kix_buf out = KIX_BUF_INIT;
    int rc = kix__home_acquire(r, &m, err);

    memset(&v, 0, sizeof(v));
    if (rc)
        return rc;
    rc = kix_kernel_view_build(r, &m->view, kernel, len, &v, err);
    for (size_t i = 0; rc == KIX_OK && i < v.nsweeps; i++) {
        const struct kix_kernel_sweep *s = &v.sweeps[i];
        struct kix_tpl *t;
        char id[33];
        if (!s->nlines)
            continue;
        if (!(t = kix_tpl_new()))
            rc = KIX_ENOMEM;
        if (rc == KIX_OK && ((rc = kix_tpl_set(t, "kernel", v.kernel)) ||
                             (rc = kix_tpl_set(t, "origin", m->view.origin)) ||
                             (rc = one_sweep_slots(t, &v, s, 1)) || (rc = sweep_id(&v, s, id))))
            rc = kix_err_set(err, rc, "out of memory");
        kix_buf_reset(&out);
        if (rc == KIX_OK)
            rc = kix_tpl_render((const char *)kix__sweep_html, kix__sweep_html_len, t, &out, err);
        kix_tpl_free(t);
        if (rc == KIX_OK)
            rc = fn(ctx, id, &out);
    }
    kix_buf_release(&out);
    kix_kernel_view_release(&v);
    kix__home_put(m);
    return rc;
}
