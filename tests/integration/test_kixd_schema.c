/* The record schemas enforced on submit through a real kixd (issue 16):
 * each bad manifest is refused with the JSON pointer of the offending
 * field, and nothing is stored (the log's size and the objects unchanged);
 * the same bundle made right is accepted. So are the record rules (issue
 * 27, kix/record_rules.h), submitted raw through the client library with no
 * CLI in the way, and on the liar's detours: the manifest sent canonical
 * (the other prepare path) or slipped in as an attestation's evidence. */
#include "harness.h"
#include "kix/canon.h"
#include "kix/entry.h"
#include "kixd_fixture.h"

#define API "\"apiVersion\":\"kernelindex.dev/v1alpha1\""

static const char implementation[] = "{" API ",\"kind\":\"Implementation\",\"metadata\":{\"name\":"
                                     "\"liger\"},\"spec\":{\"provider\":\"liger\"}}";

static void digest_text(const char *json, char out[KIX_DIGEST_TEXT_LEN + 1])
{
    struct kix_digest d;
    fx_digest_of_json(json, &d);
    kix_digest_format(&d, out);
}

/* A run manifest: `status`, latency `median` (JSON text), and the
 * workload and implementation digests (swapped when asked). */
static void run_manifest_extra(char *out, size_t cap, const char *status, const char *median,
                               int swapped, const char *extra);
static void run_manifest_of(char *out, size_t cap, const char *status, const char *median,
                            int swapped)
{
    run_manifest_extra(out, cap, status, median, swapped, "");
}

/* The same, with `extra` (",\"member\":..." text) at the end of the spec. */
static void run_manifest_extra(char *out, size_t cap, const char *status, const char *median,
                               int swapped, const char *extra)
{
    char w[KIX_DIGEST_TEXT_LEN + 1], i[KIX_DIGEST_TEXT_LEN + 1];
    digest_text(fx_workload, w);
    digest_text(implementation, i);
    snprintf(
        out, cap,
        "{" API ",\"kind\":\"BenchmarkRun\",\"metadata\":{\"name\":\"rope-a100\"},\"spec\":{"
        "\"status\":\"%s\",\"timing\":{\"latencyNs\":{\"median\":%s}},\"workloadDigest\":\"%s\","
        "\"implementationDigest\":\"%s\"%s}}",
        status, median, swapped ? i : w, swapped ? w : i, extra);
}

static uint64_t log_size(const struct fx *f)
{
    struct kix_client *c = fx_client(f);
    struct kix_client_info info;
    struct kix_err err = {0};
    uint64_t n = 0;
    if (c && kix_client_info(c, &info, &err) == KIX_OK)
        n = info.size;
    kix_client_close(c);
    return n;
}

static int stored(const struct fx *f, const char *json)
{
    struct kix_client *c = fx_client(f);
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_digest d;
    struct kix_err err = {0};
    int rc;
    fx_digest_of_json(json, &d);
    rc = c ? kix_client_get_object(c, &d, &out, &err) : KIX_EUNAVAIL;
    kix_buf_release(&out);
    kix_client_close(c);
    return rc == KIX_OK;
}

/* Submits run-1's publication of `manifest` (objects: it, the workload,
 * the implementation), published at `at` (NULL: no publishedAt); returns
 * the submit's code. Signing is the client's, which checks nothing here. */
static int submit_run(struct fx *f, const char *manifest, const char *at,
                      struct kix_submit_result *res)
{
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    const char *objs[3] = {manifest, fx_workload, implementation};
    int rc;

    fx_digest_of_json(manifest, &d);
    if (kix_entry_publication(f->publisher, "run-1", &d, at, NULL, NULL, &env, NULL) != KIX_OK)
        abort();
    rc = fx_submit(f, &env, objs, 3, res);
    kix_buf_release(&env);
    return rc;
}

/* Publishes `manifest` and expects refusal `code` with `want` in the
 * message, nothing stored. */
static void refused(const char *manifest, int code, const char *want)
{
    struct fx f;
    struct kix_submit_result res;
    uint64_t size;

    ASSERT_EQ_INT(0, fx_start(&f));
    size = log_size(&f);
    ASSERT_EQ_U64(2, size);
    ASSERT_EQ_INT(code, submit_run(&f, manifest, NULL, &res));
    ASSERT_CONTAINS(res.message, want);
    ASSERT_EQ_U64(size, log_size(&f));
    ASSERT_TRUE(!stored(&f, manifest));
    ASSERT_TRUE(!stored(&f, fx_workload));
    kix_submit_result_release(&res);
    fx_cleanup(&f);
}

KIX_TEST(negative_median_refused)
{
    char m[1024];
    run_manifest_of(m, sizeof(m), "passed", "-5", 0);
    refused(m, KIX_EINVAL, "/spec/timing/latencyNs/median: must be a non-negative integer");
}

KIX_TEST(exploded_status_refused)
{
    char m[1024];
    run_manifest_of(m, sizeof(m), "exploded", "11360", 0);
    refused(m, KIX_EINVAL, "/spec/status: must be one of [\"passed\",\"failed\",\"error\"");
}

KIX_TEST(bare_manifest_refused)
{
    /* no kind: not a record at all, so not a run manifest */
    struct fx f;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result res;
    struct kix_digest d;
    const char *bare = "{\"gpu\":\"A100\",\"kernel\":\"rope\",\"median_ms\":0.0113}";
    const char *objs[1] = {bare};

    ASSERT_EQ_INT(0, fx_start(&f));
    fx_digest_of_json(bare, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, NULL));
    ASSERT_EQ_INT(KIX_EPOLICY, fx_submit(&f, &env, objs, 1, &res));
    ASSERT_CONTAINS(res.message,
                    "publication entry: /subject/0/digest/sha256: must name a BenchmarkRun");
    ASSERT_CONTAINS(res.message, "is not a record");
    ASSERT_EQ_U64(2, log_size(&f));
    ASSERT_TRUE(!stored(&f, bare));
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    fx_cleanup(&f);
}

KIX_TEST(workload_published_as_run_refused)
{
    struct fx f;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result res;
    struct kix_digest d;
    const char *objs[1] = {fx_workload};

    ASSERT_EQ_INT(0, fx_start(&f));
    fx_digest_of_json(fx_workload, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, NULL));
    ASSERT_EQ_INT(KIX_EPOLICY, fx_submit(&f, &env, objs, 1, &res));
    ASSERT_CONTAINS(res.message, "/subject/0/digest/sha256: must name a BenchmarkRun, but sha256:");
    ASSERT_CONTAINS(res.message, "is a Workload");
    ASSERT_EQ_U64(2, log_size(&f));
    ASSERT_TRUE(!stored(&f, fx_workload));
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    fx_cleanup(&f);
}

KIX_TEST(swapped_digests_refused)
{
    char m[1024];
    run_manifest_of(m, sizeof(m), "passed", "11360", 1);
    refused(m, KIX_EPOLICY,
            ": /spec/implementationDigest: must name an Implementation, but sha256:");
}

/* A digest field naming a stored object of the wrong kind is refused too
 * (the kind is read from the store, not only from the bundle). */
KIX_TEST(stored_object_of_the_wrong_kind_refused)
{
    struct fx f;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result res;
    struct kix_digest d;
    char good[1024], bad[1024];
    const char *objs[3] = {good, fx_workload, implementation};

    ASSERT_EQ_INT(0, fx_start(&f));
    run_manifest_of(good, sizeof(good), "passed", "11360", 0);
    fx_digest_of_json(good, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, objs, 3, &res));
    kix_submit_result_release(&res);
    ASSERT_EQ_U64(3, log_size(&f));
    /* both objects are stored now; a second run names them the wrong way round */
    run_manifest_of(bad, sizeof(bad), "passed", "11361", 1);
    fx_digest_of_json(bad, &d);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-2", &d, NULL, NULL, NULL, &env, NULL));
    objs[0] = bad;
    ASSERT_EQ_INT(KIX_EPOLICY, fx_submit(&f, &env, objs, 1, &res));
    ASSERT_CONTAINS(res.message,
                    "/spec/implementationDigest: must name an Implementation, but sha256:");
    ASSERT_EQ_U64(3, log_size(&f));
    ASSERT_TRUE(!stored(&f, bad));
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    fx_cleanup(&f);
}

/* The same bundle made right is accepted: the refusals above are the
 * schema's, not the bundle's shape. */
KIX_TEST(valid_run_accepted)
{
    struct fx f;
    struct kix_submit_result res;
    char m[1024];

    ASSERT_EQ_INT(0, fx_start(&f));
    run_manifest_of(m, sizeof(m), "passed", "11360", 0);
    ASSERT_EQ_INT(KIX_OK, submit_run(&f, m, NULL, &res));
    ASSERT_EQ_U64(3, log_size(&f));
    ASSERT_TRUE(stored(&f, m));
    ASSERT_TRUE(stored(&f, implementation));
    kix_submit_result_release(&res);
    fx_cleanup(&f);
}

/* A predicate is checked against its schema too, by pointer. */
KIX_TEST(bad_predicate_refused)
{
    struct fx f;
    struct kix_submit_result res;
    char m[1024];

    ASSERT_EQ_INT(0, fx_start(&f));
    run_manifest_of(m, sizeof(m), "passed", "11360", 0);
    ASSERT_EQ_INT(KIX_EINVAL, submit_run(&f, m, "2024-09-03 15:39:55", &res));
    ASSERT_CONTAINS(res.message, "publication entry: /predicate/publishedAt: must be an RFC 3339");
    ASSERT_EQ_U64(2, log_size(&f));
    kix_submit_result_release(&res);
    fx_cleanup(&f);
}

/* issue 27: the unedited template's median of 0 */
KIX_TEST(zero_median_refused)
{
    char m[1024];
    run_manifest_of(m, sizeof(m), "passed", "0", 0);
    refused(m, KIX_EPOLICY, "/spec/timing/latencyNs/median: must be above 0");
}

/* issue 27: p20 20000 > median 11360 > p80 100 */
KIX_TEST(quantiles_out_of_order_refused)
{
    char m[1024];
    run_manifest_extra(m, sizeof(m), "passed", "11360", 0,
                       ",\"measurements\":[{\"metric\":\"latency\",\"statistic\":\"p20\","
                       "\"unit\":\"ns\",\"value\":20000},{\"metric\":\"latency\",\"statistic\":"
                       "\"p80\",\"unit\":\"ns\",\"value\":100}]");
    refused(m, KIX_EPOLICY,
            "/spec/measurements/0/value: p20 20000 is above median 11360: quantiles must be in "
            "order");
}

/* issue 27: an observedAt in 2031 */
KIX_TEST(observed_in_the_future_refused)
{
    char m[1024];
    run_manifest_extra(m, sizeof(m), "passed", "11360", 0,
                       ",\"observedAt\":\"2031-01-01T00:00:00Z\"");
    refused(m, KIX_EPOLICY, "/spec/observedAt: 2031-01-01T00:00:00Z is in the future");
}

/* issue 42: 0000-01-01 is a valid date and no date: refused with its pointer */
KIX_TEST(observed_before_2000_refused)
{
    char m[1024];
    run_manifest_extra(m, sizeof(m), "passed", "11360", 0,
                       ",\"observedAt\":\"0000-01-01T00:00:00Z\"");
    refused(m, KIX_EINVAL, "/spec/observedAt: 0000-01-01T00:00:00Z is before 2000-01-01T00:00:00Z");
}

/* issue 27: kix new run's marker left in */
KIX_TEST(template_marker_refused)
{
    char m[1024], w[KIX_DIGEST_TEXT_LEN + 1];
    digest_text(fx_workload, w);
    snprintf(m, sizeof(m),
             "{" API ",\"kind\":\"BenchmarkRun\",\"metadata\":{\"name\":\"r\",\"labels\":{"
             "\"kix-template\":\"remove me\"}},\"spec\":{\"status\":\"passed\",\"timing\":{"
             "\"latencyNs\":{\"median\":11360}},\"workloadDigest\":\"%s\"}}",
             w);
    {
        struct fx f;
        struct kix_submit_result res;
        struct kix_buf env = KIX_BUF_INIT;
        struct kix_digest d;
        const char *objs[2] = {m, fx_workload};
        ASSERT_EQ_INT(0, fx_start(&f));
        fx_digest_of_json(m, &d);
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, NULL));
        ASSERT_EQ_INT(KIX_EPOLICY, fx_submit(&f, &env, objs, 2, &res));
        ASSERT_CONTAINS(res.message,
                        "/metadata/labels/kix-template: is the kix new run template's");
        ASSERT_EQ_U64(2, log_size(&f));
        kix_submit_result_release(&res);
        kix_buf_release(&env);
        fx_cleanup(&f);
    }
}

/* The liar sends the manifest as canonical bytes, which kixd keeps as they
 * came (a path of its own through prepare): refused all the same. */
KIX_TEST(canonical_zero_median_refused)
{
    char m[1024];
    struct kix_buf canon = KIX_BUF_INIT;
    run_manifest_of(m, sizeof(m), "passed", "0", 0);
    ASSERT_EQ_INT(KIX_OK, kix_canon((const uint8_t *)m, strlen(m), NULL, &canon, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&canon, '\0'));
    refused((const char *)canon.ptr, KIX_EPOLICY, "/spec/timing/latencyNs/median: must be above 0");
    kix_buf_release(&canon);
}

/* The liar stores the bad manifest first as an attestation's evidence, to
 * publish it later as an object "already stored": the evidence is a record
 * too, and refused when sent. */
KIX_TEST(bad_run_as_evidence_refused)
{
    struct fx f;
    struct kix_submit_result res;
    struct kix_signer *attester = NULL;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest good_d, bad_d;
    char good[1024], bad[1024];
    const char *objs[1];

    ASSERT_EQ_INT(0, fx_start(&f));
    run_manifest_of(good, sizeof(good), "passed", "11360", 0);
    ASSERT_EQ_INT(KIX_OK, submit_run(&f, good, NULL, &res));
    kix_submit_result_release(&res);
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("attester", KIX_NOTE_ALG_ED25519, &attester, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_entry_key(f.admin, 0, kix_signer_public_key(attester),
                                        KIX_ROLE_ATTEST, &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, NULL, 0, &res));
    kix_submit_result_release(&res);
    kix_buf_reset(&env);
    run_manifest_of(bad, sizeof(bad), "passed", "0", 0);
    fx_digest_of_json(good, &good_d);
    fx_digest_of_json(bad, &bad_d);
    ASSERT_EQ_INT(KIX_OK, kix_entry_attestation(attester, "run-1", &good_d, "see the evidence",
                                                &bad_d, 1, &env, NULL));
    objs[0] = bad;
    ASSERT_EQ_INT(KIX_EPOLICY, fx_submit(&f, &env, objs, 1, &res));
    ASSERT_CONTAINS(res.message, "/spec/timing/latencyNs/median: must be above 0");
    ASSERT_TRUE(!stored(&f, bad));
    ASSERT_EQ_U64(4, log_size(&f));
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    kix_signer_free(attester);
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
