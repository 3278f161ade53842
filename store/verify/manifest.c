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
        const json_t *v = json_object_get(
            json_object_get(json_object_get(spec, primaries[i].group), primaries[i].stat),
            "median");
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

int kix_run_comparison_key(const uint8_t *manifest, size_t len, struct kix_digest *key,
                           uint64_t *value, char metric[16])
{
    json_t *doc = json_loadb((const char *)manifest, len, 0, NULL);
    int rc = doc ? kix_run_comparison_key_tree(doc, key, value, metric) : KIX_ENOTFOUND;

    json_decref(doc);
    return rc;
}
