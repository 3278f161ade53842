/* The publishing rules on top of the record schemas (kix/record_rules.h). */
#include "kix/record_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const kix_template_placeholders[] = {
    "describe your benchmark script or tool",
    "what was timed and how: warm-up, iterations, synchronisation",
    NULL,
};

struct issues {
    struct kix_schema_violation *v;
    size_t cap, n;
};

static void add(struct issues *is, const char *pointer, const char *fmt, ...) KIX_PRINTF(3, 4);
static void add(struct issues *is, const char *pointer, const char *fmt, ...)
{
    va_list ap;

    if (is->n < is->cap) {
        struct kix_schema_violation *i = &is->v[is->n];
        snprintf(i->pointer, sizeof(i->pointer), "%s", pointer);
        va_start(ap, fmt);
        vsnprintf(i->message, sizeof(i->message), fmt, ap);
        va_end(ap);
    }
    is->n++;
}

/* The order quantiles must keep; median and p50 are one point. */
static const struct {
    const char *name;
    int rank;
} quantile_order[] = {
    {"min", 0}, {"p5", 1},  {"p10", 2}, {"p20", 3}, {"p25", 4},  {"median", 5}, {"p50", 5},
    {"p75", 6}, {"p80", 7}, {"p90", 8}, {"p95", 9}, {"p99", 10}, {"max", 11},
};
#define NQUANTILES (sizeof(quantile_order) / sizeof(quantile_order[0]))
#define MAX_POINTS 96

struct point {
    int rank;
    const char *name;
    json_int_t value;
    char pointer[KIX_SCHEMA_POINTER_MAX];
    int primary; /* the primary median, which the other points are blamed before */
};

static int quantile_rank(const char *name)
{
    for (size_t i = 0; name && i < NQUANTILES; i++)
        if (strcmp(quantile_order[i].name, name) == 0)
            return quantile_order[i].rank;
    return -1;
}

static void add_point(struct point *pts, size_t *n, const char *name, const json_t *value,
                      const char *pointer, int primary)
{
    int rank = quantile_rank(name);

    if (rank < 0 || !json_is_integer(value) || *n == MAX_POINTS)
        return;
    pts[*n].rank = rank;
    pts[*n].name = name;
    pts[*n].value = json_integer_value(value);
    pts[*n].primary = primary;
    snprintf(pts[*n].pointer, sizeof(pts[*n].pointer), "%s", pointer);
    (*n)++;
}

/* One metric's quantiles, from its statistics object (latencyNs,
 * peakBytes) and the measurements of that metric, in order. */
static void check_order(const json_t *stats, const char *stats_ptr, const json_t *measurements,
                        const char *metric, struct issues *is)
{
    struct point pts[MAX_POINTS], tmp;
    size_t n = 0, i;
    const char *key;
    json_t *v;
    char ptr[KIX_SCHEMA_POINTER_MAX];

    json_object_foreach((json_t *)stats, key, v)
    {
        snprintf(ptr, sizeof(ptr), "%s/%s", stats_ptr, key);
        add_point(pts, &n, key, v, ptr, strcmp(key, "median") == 0);
    }
    json_array_foreach(measurements, i, v)
    {
        if (!json_is_string(json_object_get(v, "metric")) ||
            strcmp(json_string_value(json_object_get(v, "metric")), metric) != 0)
            continue;
        snprintf(ptr, sizeof(ptr), "/spec/measurements/%zu/value", i);
        add_point(pts, &n, json_string_value(json_object_get(v, "statistic")),
                  json_object_get(v, "value"), ptr, 0);
    }
    for (size_t a = 1; a < n; a++) /* insertion sort, stable: a handful of points */
        for (size_t b = a; b > 0 && pts[b - 1].rank > pts[b].rank; b--) {
            tmp = pts[b - 1];
            pts[b - 1] = pts[b];
            pts[b] = tmp;
        }
    for (size_t a = 1; a < n; a++) {
        const struct point *lo = &pts[a - 1], *hi = &pts[a];
        if (lo->value <= hi->value)
            continue;
        add(is, lo->primary ? hi->pointer : lo->pointer,
            "%s %lld is above %s %lld: quantiles must be in order (%s <= %s)", lo->name,
            (long long)lo->value, hi->name, (long long)hi->value, lo->name, hi->name);
    }
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* "2026-12-01T12:00:00Z" (the schema's UTC form) in seconds; -1 if not. */
static int64_t utc_seconds(const char *s)
{
    int y, mo, d, h, mi, se, used = 0;

    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &used) != 6 ||
        used != 19 || mo < 1 || mo > 12 || d < 1 || d > 31)
        return -1;
    return days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
}

static void check_observed(const json_t *spec, int64_t now, struct issues *is)
{
    const char *at = json_string_value(json_object_get(spec, "observedAt"));
    int64_t t = utc_seconds(at);

    if (t >= 0 && t > now + KIX_RECORD_CLOCK_SKEW)
        add(is, "/spec/observedAt",
            "%s is in the future: a run is published after it is measured (the log's clock "
            "allows %d s of skew)",
            at, KIX_RECORD_CLOCK_SKEW);
}

static void check_run(const json_t *spec, int64_t now, struct issues *is)
{
    const json_t *timing = json_object_get(json_object_get(spec, "timing"), "latencyNs");
    const json_t *memory = json_object_get(json_object_get(spec, "memory"), "peakBytes");
    const json_t *measurements = json_object_get(spec, "measurements");
    const json_t *median;

    if (timing) {
        /* the primary statistic is the median unless the timing names the
         * mean (KernelBench publishes no median); the run is ranked by it,
         * so it must be there */
        const char *ps =
            json_string_value(json_object_get(json_object_get(spec, "timing"), "primaryStatistic"));
        int mean = ps && strcmp(ps, "mean") == 0;
        median = json_object_get(timing, mean ? "mean" : "median");
        if (!median && json_is_object(timing))
            add(is, mean ? "/spec/timing/latencyNs/mean" : "/spec/timing/latencyNs/median",
                mean ? "is missing: the timing's primaryStatistic is the mean, and the run is "
                       "ranked by it"
                     : "is missing: the run is ranked by its median (or write "
                       "\"primaryStatistic\": \"mean\" in spec.timing to rank it by a mean)");
        if (json_is_integer(median) && json_integer_value(median) <= 0)
            add(is, mean ? "/spec/timing/latencyNs/mean" : "/spec/timing/latencyNs/median",
                "must be above 0: a latency of 0 ns is no measurement (the template's "
                "placeholder?)");
        check_order(timing, "/spec/timing/latencyNs", measurements, "latency", is);
    } else if (json_is_array(measurements)) {
        check_order(NULL, "", measurements, "latency", is);
    }
    if (memory) {
        median = json_object_get(memory, "median");
        if (json_is_integer(median) && json_integer_value(median) <= 0 && !timing)
            add(is, "/spec/memory/peakBytes/median",
                "must be above 0: a peak of 0 bytes is no measurement");
        check_order(memory, "/spec/memory/peakBytes", measurements, "peak_memory", is);
    } else if (json_is_array(measurements)) {
        check_order(NULL, "", measurements, "peak_memory", is);
    }
    check_observed(spec, now, is);
}

/* One step of the path from the document's root to a value: a member's
 * name or an item's index. The JSON pointer is written out only for a
 * value that is reported, not for every member walked (that was most of
 * this walk's cost: kixd checks every record it takes). */
struct step {
    const struct step *up;
    const char *key; /* NULL: index */
    size_t index;
};

/* The pointer of `at` into ptr, joined step by step from the root exactly
 * as one buffer extended and cut back along the walk would hold it. */
static void pointer_of(const struct step *at, char *ptr, size_t cap)
{
    size_t len;

    if (!at) {
        ptr[0] = '\0';
        return;
    }
    pointer_of(at->up, ptr, cap);
    len = strlen(ptr);
    if (at->key)
        kix_schema_pointer_join(ptr, cap, ptr, at->key);
    else
        snprintf(ptr + len, cap - len, "/%zu", at->index);
}

static void check_placeholders(const json_t *v, const struct step *at, int depth, struct issues *is)
{
    const char *key;
    json_t *m;
    size_t i;

    if (depth > 64)
        return;
    if (json_is_string(v)) {
        for (i = 0; kix_template_placeholders[i]; i++)
            if (strcmp(json_string_value(v), kix_template_placeholders[i]) == 0) {
                char ptr[KIX_SCHEMA_POINTER_MAX];
                pointer_of(at, ptr, sizeof(ptr));
                add(is, ptr, "is the kix new run template's placeholder \"%s\": write your own",
                    kix_template_placeholders[i]);
            }
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, m)
        {
            struct step next = {at, key, 0};
            check_placeholders(m, &next, depth + 1, is);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, m)
        {
            struct step next = {at, NULL, i};
            check_placeholders(m, &next, depth + 1, is);
        }
    }
}

void kix_record_rules(const json_t *doc, int64_t now, struct kix_schema_violation *issues,
                      size_t cap, size_t *n)
{
    struct issues is = {issues, cap, 0};
    const json_t *labels = json_object_get(json_object_get(doc, "metadata"), "labels");
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    if (json_object_get(labels, KIX_TEMPLATE_LABEL))
        add(&is, "/metadata/labels/" KIX_TEMPLATE_LABEL,
            "is the kix new run template's marker: fill in your figures, then remove it");
    if (kind && strcmp(kind, "BenchmarkRun") == 0 && json_is_object(json_object_get(doc, "spec")))
        check_run(json_object_get(doc, "spec"), now, &is);
    check_placeholders(doc, NULL, 0, &is);
    *n = is.n;
}

int kix_record_rules_check(const json_t *doc, int64_t now, struct kix_err *err)
{
    struct kix_schema_violation first;
    size_t n = 0;

    kix_record_rules(doc, now, &first, 1, &n);
    if (!n)
        return KIX_OK;
    return kix_err_set(err, KIX_EPOLICY, "%s: %s%s", first.pointer, first.message,
                       n > 1 ? " (and more: kix validate lists them all)" : "");
}
