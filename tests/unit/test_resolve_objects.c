/* A resolution's objects are bound to its manifest (kix_resolution_verify):
 * an object the manifest does not reference, one sent twice, one swapped
 * for another of the same kind, or one a field names but the answer
 * withholds, is a verification failure; kix_run_object_fields follows the
 * schema's x-kix-kind fields. */
#include "fixture.h"
#include "harness.h"
#include "kix/resolve.h"
#include "kix/schema.h"

static const char *other_workload =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{\"name\":"
    "\"rope\"},\"spec\":{\"kernel\":\"rope\",\"seq\":4096}}";

/* Resolves run-1 of a fresh log holding it, reader kept open in *r. */
static void resolve_run(struct fixture *f, struct kix_log_reader **r, struct kix_resolution *res)
{
    struct kix_append_result ar;
    struct kix_err err = {0};

    setup(f);
    if (publish(f, f->publisher, "run-1", 1, &ar, &err) || kix_log_read_begin(f->log, r) ||
        kix_index_resolve(*r, "run-1", 5, res, &err)) {
        fprintf(stderr, "resolve_run: %s\n", err.msg);
        abort();
    }
}

static void set_object(struct kix_resolution_object *o, const char *json)
{
    o->bytes.ptr = (const uint8_t *)json;
    o->bytes.len = strlen(json);
    digest_of_json(json, &o->digest);
}

KIX_TEST(honest_resolution_carries_the_referenced_objects)
{
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_resolution res;
    struct kix_err err = {0};
    struct kix_digest w;

    resolve_run(&f, &r, &res);
    ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.vkey, NULL, &err));
    digest_of_json(workload, &w);
    ASSERT_EQ_U64(1, res.nobjects);
    ASSERT_EQ_MEM(w.b, 32, res.objects[0].digest.b, 32);
    kix_resolution_release(&res);
    kix_log_read_end(r);
    teardown(&f);
}

enum lie { ADD_UNREFERENCED, SWAP_SAME_KIND, SEND_TWICE, WITHHOLD };

/* Resolves run-1 of a fresh log, tells `lie` in the answer, and expects
 * kix_resolution_verify to refuse it, naming `cause`. */
static void expect_refused(enum lie lie, const char *cause)
{
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_resolution res;
    struct kix_err err = {0};
    char env[512];

    resolve_run(&f, &r, &res);
    switch (lie) {
    case ADD_UNREFERENCED: /* an object of a referenced kind, its digest true */
        environment_record(env, sizeof(env), 7);
        set_object(&res.objects[res.nobjects++], env);
        break;
    case SWAP_SAME_KIND:
        set_object(&res.objects[0], other_workload);
        break;
    case SEND_TWICE:
        res.objects[res.nobjects++] = res.objects[0];
        break;
    case WITHHOLD:
        res.nobjects = 0;
        break;
    }
    ASSERT_EQ_INT(KIX_EVERIFY, kix_resolution_verify(&res, &f.vkey, NULL, &err));
    ASSERT_CONTAINS(err.msg, cause);
    kix_resolution_release(&res);
    kix_log_read_end(r);
    teardown(&f);
}

KIX_TEST(unreferenced_object_is_refused)
{
    expect_refused(ADD_UNREFERENCED,
                   "(ExecutionEnvironment), which the manifest of run run-1 does not reference");
}

KIX_TEST(swapped_object_of_the_same_kind_is_refused)
{
    expect_refused(SWAP_SAME_KIND,
                   "(Workload), which the manifest of run run-1 does not reference");
}

KIX_TEST(object_sent_twice_is_refused)
{
    expect_refused(SEND_TWICE, "twice");
}

KIX_TEST(withheld_field_object_is_refused)
{
    expect_refused(WITHHOLD, "withholds the Workload that the manifest of run run-1 names at "
                             "spec.workloadDigest");
}

/* The table names exactly the digest fields the BenchmarkRun schema
 * annotates with x-kix-kind, each with its kind. */
KIX_TEST(object_fields_follow_the_schema)
{
    char d[KIX_DIGEST_TEXT_LEN + 1], doc[1024], pointer[64];
    struct kix_schema_result res = {0};
    struct kix_err err = {0};
    json_t *j;

    digest_text_of_json(workload, d);
    snprintf(doc, sizeof(doc),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
             "\"name\":\"run\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":1}},\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\","
             "\"environmentDigest\":\"%s\",\"implementationDigest\":\"%s\"}}",
             d, d, d, d);
    j = json_loads(doc, 0, NULL);
    ASSERT_TRUE(j != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_record_validate(j, &res, &err));
    ASSERT_EQ_U64(KIX_RUN_OBJECT_FIELDS, res.nrefs);
    for (size_t i = 0; i < KIX_RUN_OBJECT_FIELDS; i++) {
        size_t k = 0;
        snprintf(pointer, sizeof(pointer), "/spec/%s", kix_run_object_fields[i].field);
        while (k < res.nrefs && strcmp(res.refs[k].pointer, pointer) != 0)
            k++;
        ASSERT_TRUE(k < res.nrefs);
        ASSERT_EQ_STR(kix_run_object_fields[i].kind, res.refs[k].kind);
    }
    kix_schema_result_release(&res);
    json_decref(j);
}

KIX_TEST_MAIN()
