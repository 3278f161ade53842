/* A manifest's primary statistic and the one number formatter (kix/view.h). */
#include <stdio.h>
#include <string.h>

#include "kix/view.h"

static json_t *field(json_t *o, const char *a, const char *b, const char *c, const char *d)
{
    json_t *v = json_object_get(json_object_get(json_object_get(o, a), b), c);
    return d ? json_object_get(v, d) : v;
}

void kix_figures_of(json_t *manifest, struct kix_figures *out)
{
    /* the primary statistic, as the index ranks by it (kix/manifest.h) */
    const char *ps = json_string_value(field(manifest, "spec", "timing", "primaryStatistic", NULL));
    int mean = ps && strcmp(ps, "mean") == 0;
    json_t *t = field(manifest, "spec", "timing", "latencyNs", mean ? "mean" : "median");
    json_t *m = field(manifest, "spec", "memory", "peakBytes", "median");
    json_t *median = t ? t : m, *x;
    size_t i;

    memset(out, 0, sizeof(*out));
    out->bytes = !t && m;
    out->statistic = t && mean ? "mean" : "median";
    if (!json_is_integer(median) || json_integer_value(median) < 0)
        return;
    out->have = 1;
    out->median = (uint64_t)json_integer_value(median);
    json_array_foreach(json_object_get(json_object_get(manifest, "spec"), "measurements"), i, x)
    {
        const char *metric = json_string_value(json_object_get(x, "metric"));
        const char *stat = json_string_value(json_object_get(x, "statistic"));
        json_t *v = json_object_get(x, "value");
        if (!metric || !stat || strcmp(metric, kix_figures_metric(out)) != 0 ||
            !json_is_integer(v) || json_integer_value(v) < 0)
            continue;
        if (strcmp(stat, "p20") == 0) {
            out->p20 = (uint64_t)json_integer_value(v);
            out->have_p20 = 1;
        } else if (strcmp(stat, "p80") == 0) {
            out->p80 = (uint64_t)json_integer_value(v);
            out->have_p80 = 1;
        }
    }
}

const char *kix_figures_metric(const struct kix_figures *f)
{
    return f->bytes ? "peak_memory" : "latency";
}

const char *kix_figures_unit(const struct kix_figures *f)
{
    return f->bytes ? "bytes" : "ns";
}

void kix_human(int64_t v, int bytes, char *out, size_t cap)
{
    static const char *const time_units[] = {"ns", "\xc2\xb5s", "ms", "s"};
    static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    /* magnitude in double: -INT64_MIN does not fit an int64 */
    double x = v < 0 ? -(double)v : (double)v, step = bytes ? 1024 : 1000;
    int u = 0, max = bytes ? 4 : 3;

    while (x >= step && u < max) {
        x /= step;
        u++;
    }
    snprintf(out, cap,
             x >= 100 || u == 0 ? "%s%.0f %s"
             : x >= 10          ? "%s%.1f %s"
                                : "%s%.2f %s",
             v < 0 ? "-" : "", x, bytes ? byte_units[u] : time_units[u]);
}
