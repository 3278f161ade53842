/* What a benchmark run manifest means for ranking: its comparison group
 * and primary statistic (kix/manifest.h). Pure: no database. */
#include "kix/manifest.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "kix/json.h"

static int primary_value(const json_t *spec, uint64_t *value, char metric[16])
{
    static const struct {
        const char *group, *stat, *metric;
    } primaries[] = {
        {"timing", "latencyNs", "latency"},
        {"memory", "peakBytes", "peak_memory"},
    };
    for (size_t i = 0; i < sizeof(primaries) / sizeof(primaries[0]); i++) {
        const json_t *g = json_object_get(spec, primaries[i].group);
        const char *ps = json_string_value(json_object_get(g, "primaryStatistic"));
        /* a timing that names the mean as its primary statistic (a source
         * such as KernelBench publishes no median) is ranked by its mean */
        const json_t *v =
            json_object_get(json_object_get(g, primaries[i].stat),
                            i == 0 && ps && strcmp(ps, "mean") == 0 ? "mean" : "median");
        double r = json_is_real(v) ? json_real_value(v) : -1.0;
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            *value = (uint64_t)json_integer_value(v);
        } else if (r >= 0.0 && r <= 9007199254740992.0 && r == (double)(uint64_t)r) {
            /* 15000.0 or 1.5e4 in a submitted manifest: its canonical text
             * (what is stored and what replicas group by) says 15000 */
            *value = (uint64_t)r;
        } else {
            continue;
        }
        snprintf(metric, 16, "%s", primaries[i].metric);
        return KIX_OK;
    }
    return KIX_ENOTFOUND;
}

int kix_run_comparison_key_tree(const json_t *doc, struct kix_digest *key, uint64_t *value,
                                char metric[16])
{
    struct kix_buf canon = KIX_BUF_INIT;
    const json_t *spec = json_object_get(doc, "spec");
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    /* the members of the key, in canonical (sorted) order */
    const json_t *members[5] = {
        json_object_get(json_object_get(spec, "sourceNative"), "benchmark"),
        json_object_get(spec, "environmentDigest"),
        NULL,
        json_object_get(spec, "protocolDigest"),
        json_object_get(spec, "workloadDigest"),
    };
    static const char *const names[5] = {
        "{\"benchmark\":", ",\"environmentDigest\":", ",\"metric\":", ",\"protocolDigest\":",
        ",\"workloadDigest\":"};
    int rc = KIX_OK;

    if (!kind || strcmp(kind, "BenchmarkRun") != 0 || primary_value(spec, value, metric) != KIX_OK)
        return KIX_ENOTFOUND;
    for (size_t i = 0; i < 5; i++)
        if (i != 2 && !json_is_string(members[i]))
            return KIX_ENOTFOUND;
    /* written as canonical JSON directly: what kix_canon of the object
     * {benchmark, environmentDigest, metric, protocolDigest, workloadDigest}
     * gives, without building and sorting it */
    for (size_t i = 0; rc == KIX_OK && i < 5; i++) {
        rc = kix_buf_adds(&canon, names[i]);
        if (rc == KIX_OK && i == 2)
            rc = kix_canon_string(metric, strlen(metric), &canon);
        else if (rc == KIX_OK)
            rc = kix_canon_string(json_string_value(members[i]), json_string_length(members[i]),
                                  &canon);
    }
    if (rc == KIX_OK)
        rc = kix_buf_addc(&canon, '}');
    if (rc == KIX_OK)
        kix_digest_of(canon.ptr, canon.len, key);
    kix_buf_release(&canon);
    return rc;
}

/* ---- the same over canonical bytes, without a parse ----------------------- */

/* One past the canonical value starting at p (before end): after a
 * string's closing quote or a container's closing bracket, at the byte
 * that ends a number or literal; end when the bytes stop first. */
static const uint8_t *skip_value(const uint8_t *p, const uint8_t *end)
{
    unsigned depth = 0;

    while (p < end) {
        uint8_t c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\' && p + 1 < end)
                    p++;
            if (p < end)
                p++;
            if (depth == 0)
                return p;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if ((c == ',' || c == ':') && depth == 0) {
            return p;
        }
        p++;
    }
    return end;
}

/* Member `name` (plain ASCII, no escapes) of the canonical object at
 * [p, end): its value's span, or 0. */
/* Members names[0..n) of the canonical object at [p, end), in one walk:
 * v[i], ve[i] the span of names[i]'s value, or NULL when it is absent. */
static void members(const uint8_t *p, const uint8_t *end, const char *const *names, size_t n,
                    const uint8_t **v, const uint8_t **ve)
{
    size_t left = n;

    for (size_t i = 0; i < n; i++)
        v[i] = ve[i] = NULL;
    if (!p || p >= end || *p != '{')
        return;
    p++;
    while (left && p < end && *p == '"') {
        const uint8_t *k = p + 1, *ke = skip_value(p, end), *e;
        if (ke >= end || *ke != ':')
            return;
        p = ke + 1;
        e = skip_value(p, end);
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(names[i]);
            if (!v[i] && (size_t)(ke - k) == len + 1 && memcmp(k, names[i], len) == 0) {
                v[i] = p;
                ve[i] = e;
                left--;
                break;
            }
        }
        if (e >= end || *e != ',')
            return;
        p = e + 1;
    }
}

static int member(const uint8_t *p, const uint8_t *end, const char *name, const uint8_t **v,
                  const uint8_t **vend)
{
    members(p, end, &name, 1, v, vend);
    return *v != NULL;
}

/* A value that is a JSON string: its canonical text, as is. */
static int is_string(const uint8_t *v, const uint8_t *e)
{
    return e - v >= 2 && v[0] == '"' && e[-1] == '"';
}

int kix_run_comparison_key_canonical(const uint8_t *canon, size_t len, struct kix_digest *key,
                                     uint64_t *value, char metric[16])
{
    static const char *const groups[2][3] = {{"timing", "latencyNs", "latency"},
                                             {"memory", "peakBytes", "peak_memory"}};
    static const char *const names[5] = {
        "{\"benchmark\":", ",\"environmentDigest\":", ",\"metric\":", ",\"protocolDigest\":",
        ",\"workloadDigest\":"};
    static const char *const top_names[2] = {"kind", "spec"};
    /* the members of spec read here, and where each lands in sv/sve */
    static const char *const spec_names[6] = {"sourceNative",   "environmentDigest", "timing",
                                              "protocolDigest", "workloadDigest",    "memory"};
    const uint8_t *end = canon + len, *spec, *spec_end, *v, *ve, *m[5], *me[5];
    const uint8_t *top[2], *top_end[2], *sv[6], *sve[6];
    struct kix_buf buf = KIX_BUF_INIT;
    int found = 0, rc = KIX_OK;

    members(canon, end, top_names, 2, top, top_end);
    v = top[0];
    ve = top_end[0];
    if (!v || ve - v != 14 || memcmp(v, "\"BenchmarkRun\"", 14) || !top[1])
        return KIX_ENOTFOUND;
    spec = top[1];
    spec_end = top_end[1];
    members(spec, spec_end, spec_names, 6, sv, sve);
    /* the primary statistic: a whole number >= 0 that an int64 holds is, in
     * canonical form, digits alone (19 or more digits read as a real, past 2^53) */
    for (int i = 0; i < 2 && !found; i++) {
        static const char *const timing_names[2] = {"latencyNs", "primaryStatistic"};
        const uint8_t *g, *ge, *s, *se, *tv[2], *tve[2];
        const char *stat = "median";
        uint64_t x = 0;
        g = sv[i == 0 ? 2 : 5]; /* timing, memory */
        ge = sve[i == 0 ? 2 : 5];
        if (!g)
            continue;
        if (i == 0) { /* as primary_value: a timing may name the mean */
            members(g, ge, timing_names, 2, tv, tve);
            s = tv[0];
            se = tve[0];
            if (tv[1] && tve[1] - tv[1] == 6 && memcmp(tv[1], "\"mean\"", 6) == 0)
                stat = "mean";
        } else if (!member(g, ge, groups[i][1], &s, &se)) {
            continue;
        }
        if (!s || !member(s, se, stat, &v, &ve) || ve - v < 1 || ve - v > 18)
            continue;
        found = 1;
        for (const uint8_t *d = v; found && d < ve; d++) {
            found = *d >= '0' && *d <= '9';
            x = x * 10 + (uint64_t)(*d - '0');
        }
        if (found) {
            *value = x;
            snprintf(metric, 16, "%s", groups[i][2]);
        }
    }
    if (!found)
        return KIX_ENOTFOUND;
    m[1] = sv[1];
    me[1] = sve[1];
    m[3] = sv[3];
    me[3] = sve[3];
    m[4] = sv[4];
    me[4] = sve[4];
    if (!sv[0] || !member(sv[0], sve[0], "benchmark", &m[0], &me[0]) || !m[1] || !m[3] || !m[4])
        return KIX_ENOTFOUND;
    for (int i = 0; i < 5; i++)
        if (i != 2 && !is_string(m[i], me[i]))
            return KIX_ENOTFOUND;
    /* as kix_run_comparison_key_tree writes it: the members' canonical text */
    for (int i = 0; rc == KIX_OK && i < 5; i++) {
        rc = kix_buf_adds(&buf, names[i]);
        if (rc == KIX_OK && i == 2)
            rc = kix_canon_string(metric, strlen(metric), &buf);
        else if (rc == KIX_OK)
            rc = kix_buf_add(&buf, m[i], (size_t)(me[i] - m[i]));
    }
    if (rc == KIX_OK)
        rc = kix_buf_addc(&buf, '}');
    if (rc == KIX_OK)
        kix_digest_of(buf.ptr, buf.len, key);
    kix_buf_release(&buf);
    return rc;
}

int kix_run_comparison_key(const uint8_t *manifest, size_t len, struct kix_digest *key,
                           uint64_t *value, char metric[16])
{
    json_t *doc = json_loadb((const char *)manifest, len, 0, NULL);
    int rc = doc ? kix_run_comparison_key_tree(doc, key, value, metric) : KIX_ENOTFOUND;

    json_decref(doc);
    return rc;
}
