/* The record rules on submit (kix/record_rules.h, PROTOCOL.md §5.3): each
 * rule refuses what it should, names the JSON pointer and the reason, and
 * lets a sane run through; every violation is reported, not only the
 * first; kix_schema_validate_all reports every schema violation too. */
#include <jansson.h>

#include "harness.h"
#include "kix/record_rules.h"
#include "kix/schema.h"

#define NOW 1796126400 /* 2026-12-01T12:00:00Z */
#define D   "\"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""
/* a sane run: median 11360 between p20 10336 and p80 11456, observed before NOW */
#define RUN(median, p20, p80, observed, labels)                                                    \
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"        \
    "\"name\":\"r\"" labels "},\"spec\":{\"status\":\"passed\",\"observedAt\":\"" observed         \
    "\",\"timing\":{\"latencyNs\":{\"median\":" median "}},\"measurements\":[{\"metric\":"         \
    "\"latency\",\"statistic\":\"p20\",\"unit\":\"ns\",\"value\":" p20 "},{\"metric\":"            \
    "\"latency\",\"statistic\":\"p80\",\"unit\":\"ns\",\"value\":" p80 "}],\"workloadDigest\":" D  \
    "}}"

/* every case is valid against its schema: the rules go further */
static void schema_valid(const json_t *doc)
{
    const struct kix_schema *s;
    struct kix_schema_result res;

    ASSERT_TRUE(doc != NULL);
    ASSERT_EQ_INT(KIX_OK,
                  kix_schema_builtin(json_string_value(json_object_get(doc, "kind")), &s, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, doc, &res));
    ASSERT_TRUE(res.valid);
    kix_schema_result_release(&res);
}

static size_t rules(const char *text, struct kix_schema_violation *v, size_t cap)
{
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    size_t n = 99;

    schema_valid(doc);
    if (doc)
        kix_record_rules(doc, NOW, v, cap, &n);
    json_decref(doc);
    return n;
}

static void refused(const char *text, const char *pointer, const char *reason)
{
    struct kix_schema_violation v[8];
    struct kix_err err = {0};
    json_t *doc = json_loads(text, 0, NULL);
    size_t n = rules(text, v, 8);

    ASSERT_EQ_U64(1, n);
    ASSERT_EQ_STR(pointer, v[0].pointer);
    if (!strstr(v[0].message, reason))
        fprintf(stderr, "message: %s\n", v[0].message);
    ASSERT_TRUE(strstr(v[0].message, reason) != NULL);
    ASSERT_EQ_INT(KIX_EPOLICY, kix_record_rules_check(doc, NOW, &err));
    ASSERT_TRUE(strncmp(err.msg, pointer, strlen(pointer)) == 0);
    json_decref(doc);
}

KIX_TEST(sane_run_passes)
{
    struct kix_schema_violation v[4];
    ASSERT_EQ_U64(0, rules(RUN("11360", "10336", "11456", "2024-09-03T15:39:55Z", ""), v, 4));
    /* equal quantiles are in order; NOW plus the skew is not the future */
    ASSERT_EQ_U64(0, rules(RUN("11360", "11360", "11360", "2026-12-01T12:10:00Z", ""), v, 4));
}

KIX_TEST(median_above_zero)
{
    refused(RUN("0", "0", "0", "2024-09-03T15:39:55Z", ""), "/spec/timing/latencyNs/median",
            "must be above 0");
    refused("{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
            "{\"name\":\"m\"},\"spec\":{\"status\":\"passed\",\"memory\":{\"peakBytes\":{"
            "\"median\":0}},\"workloadDigest\":" D "}}",
            "/spec/memory/peakBytes/median", "must be above 0");
}

KIX_TEST(quantiles_in_order)
{
    struct kix_schema_violation v[4];
    /* issue 27: p20 20000 > median 11360 > p80 100: both steps named */
    ASSERT_EQ_U64(2, rules(RUN("11360", "20000", "100", "2024-09-03T15:39:55Z", ""), v, 4));
    ASSERT_EQ_STR("/spec/measurements/0/value", v[0].pointer);
    ASSERT_TRUE(strstr(v[0].message, "p20 20000 is above median 11360") != NULL);
    ASSERT_EQ_STR("/spec/measurements/1/value", v[1].pointer);
    ASSERT_TRUE(strstr(v[1].message, "median 11360 is above p80 100") != NULL);
    refused(RUN("11360", "10336", "11000", "2024-09-03T15:39:55Z", ""),
            "/spec/measurements/1/value", "quantiles must be in order");
    /* min ... max inside latencyNs */
    refused("{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
            "{\"name\":\"m\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
            "\"median\":10,\"min\":5,\"max\":4}},\"workloadDigest\":" D "}}",
            "/spec/timing/latencyNs/max", "median 10 is above max 4");
}

KIX_TEST(observed_not_in_the_future)
{
    refused(RUN("11360", "10336", "11456", "2031-01-01T00:00:00Z", ""), "/spec/observedAt",
            "is in the future");
    refused(RUN("11360", "10336", "11456", "2026-12-01T12:10:01Z", ""), "/spec/observedAt",
            "600 s of skew");
}

KIX_TEST(template_marker_and_placeholders)
{
    refused(RUN("11360", "10336", "11456", "2024-09-03T15:39:55Z",
                ",\"labels\":{\"" KIX_TEMPLATE_LABEL "\":\"remove me\"}"),
            "/metadata/labels/kix-template", "template's marker");
    refused("{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkProtocol\","
            "\"metadata\":{\"name\":\"p\"},\"spec\":{\"harness\":{\"name\":"
            "\"describe your benchmark script or tool\"},\"measurement\":{\"timer\":"
            "\"cuda_events\",\"primaryStatistic\":\"median\",\"metric\":\"latency\","
            "\"pass\":\"forward\"},\"comparability\":{\"family\":\"f\",\"notes\":\"n\"}}}",
            "/spec/harness/name", "placeholder");
}

/* a placeholder is found at any depth, under escaped names and in arrays,
 * its pointer written out only then (the walk keeps the path, not a
 * pointer for every member) */
KIX_TEST(placeholders_named_by_pointer_at_any_depth)
{
    struct kix_schema_violation v[4];
    json_t *doc = json_loads(
        "{\"kind\":\"Workload\",\"a/b\":{\"l~\":[1,{},\"describe your benchmark script or tool\"]},"
        "\"z\":[[\"what was timed and how: warm-up, iterations, synchronisation\"]]}",
        0, NULL);
    size_t n = 0;

    ASSERT_TRUE(doc != NULL);
    kix_record_rules(doc, NOW, v, 4, &n);
    ASSERT_EQ_U64(2, n);
    ASSERT_EQ_STR("/a~1b/l~0/2", v[0].pointer);
    ASSERT_TRUE(strstr(v[0].message, "describe your benchmark") != NULL);
    ASSERT_EQ_STR("/z/0/0", v[1].pointer);
    json_decref(doc);
}

/* the unedited template: every violation, in one report */
KIX_TEST(every_violation_reported)
{
    struct kix_schema_violation v[8];
    ASSERT_EQ_U64(3, rules(RUN("0", "0", "0", "2031-01-01T00:00:00Z",
                               ",\"labels\":{\"" KIX_TEMPLATE_LABEL "\":\"x\"}"),
                           v, 8));
    ASSERT_EQ_STR("/metadata/labels/kix-template", v[0].pointer);
    ASSERT_EQ_STR("/spec/timing/latencyNs/median", v[1].pointer);
    ASSERT_EQ_STR("/spec/observedAt", v[2].pointer);
}

/* kix_schema_validate_all: a negative median does not hide behind a
 * file-named reference (issue 27 point 4) */
KIX_TEST(schema_reports_every_violation)
{
    const char *text =
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
        "\"name\":\"r\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":"
        "-5}},\"workloadDigest\":\"workload.json\",\"bogus\":1}}";
    json_t *doc = json_loads(text, 0, NULL);
    const struct kix_schema *s;
    struct kix_schema_result res;
    struct kix_schema_violation v[8];
    size_t n = 0;

    ASSERT_EQ_INT(KIX_OK, kix_schema_builtin("BenchmarkRun", &s, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_schema_validate_all(s, doc, &res, v, 8, &n));
    ASSERT_TRUE(!res.valid);
    ASSERT_EQ_U64(3, n);
    ASSERT_EQ_STR("/spec/bogus", v[0].pointer);
    ASSERT_EQ_STR("/spec/timing/latencyNs/median", v[1].pointer);
    ASSERT_EQ_STR("/spec/workloadDigest", v[2].pointer);
    /* the first is what kix_schema_validate reports alone */
    ASSERT_EQ_STR(v[0].pointer, res.pointer);
    ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, doc, &res));
    ASSERT_EQ_STR(v[0].pointer, res.pointer);
    json_decref(doc);
}

KIX_TEST_MAIN()
