/* The record schemas (proto/schema) and their validator (kix/schema.h):
 * every shipped example and every imported Liger run validates; the bad
 * manifests of issue 16 are named by their JSON pointer; a schema using a
 * keyword the validator does not implement is refused. */
#include <jansson.h>
#include <time.h>

#include "harness.h"
#include "kix/canon.h"
#include "kix/encoding.h"
#include "kix/note.h"
#include "kix/csv.h"
#include "kix/entries.h"
#include "kix/liger.h"
#include "kix/record_rules.h"
#include "kix/schema.h"

/* Validates a record given as text: KIX_OK or KIX_EINVAL, pointer and
 * message into res (refs released). */
static int validate_text(const char *text, struct kix_schema_result *res, struct kix_err *err)
{
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    int rc;

    if (!doc)
        return -100;
    rc = kix_record_validate(doc, res, err);
    kix_schema_result_release(res);
    json_decref(doc);
    return rc;
}

static const char *const kinds[] = {"BenchmarkRun", "BenchmarkProtocol", "Workload",
                                    "ExecutionEnvironment", "Implementation"};
static const char *const predicates[] = {"publication", "attestation", "rerun", "supersession",
                                         "key"};

KIX_TEST(builtin_schemas_compile)
{
    const struct kix_schema *s;
    struct kix_err err = {0};
    size_t n = 0;

    for (size_t i = 0; i < 5; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_schema_builtin(kinds[i], &s, &err));
        ASSERT_EQ_STR(kinds[i], kix_schema_name(s));
    }
    for (size_t i = 0; i < 5; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_schema_builtin(predicates[i], &s, &err));
        if (strcmp(predicates[i], "key") == 0)
            ASSERT_TRUE(kix_schema_subject_kind(s) == NULL);
        else
            ASSERT_EQ_STR("BenchmarkRun", kix_schema_subject_kind(s));
    }
    while (kix_schema_builtin_at(n))
        n++;
    ASSERT_EQ_U64(13, n);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_schema_builtin("Benchmark", &s, &err));
}

/* The files in the source tree are the ones compiled in, byte for byte. */
KIX_TEST(builtin_schemas_are_the_files)
{
    const char *name, *text;
    size_t len, i = 0, flen = 0;

    while ((name = kix_schema_builtin_file(i++, &text, &len)) != NULL) {
        char path[256];
        char *file;
        snprintf(path, sizeof(path), "../proto/schema/%s.schema.json", name);
        file = kix_test_read_file(path, &flen);
        ASSERT_TRUE(file != NULL);
        ASSERT_EQ_MEM(file, flen, text, len);
        free(file);
    }
    ASSERT_EQ_U64(14, i);
}

/* Each keyword the validator does not implement is refused by name, so a
 * schema file cannot say more than kix enforces. */
KIX_TEST(unknown_keyword_refused)
{
    static const char *const cases[][2] = {
        {"{\"type\":\"object\",\"oneOf\":[{}]}", "keyword oneOf"},
        {"{\"type\":\"array\",\"uniqueItems\":true}", "keyword uniqueItems"},
        {"{\"properties\":{\"a\":{\"exclusiveMinimum\":0}}}",
         "/properties/a: keyword exclusiveMinimum"},
        {"{\"type\":\"string\",\"format\":\"email\"}", "only format implemented is date-time"},
        {"{\"$ref\":\"#/$defs/missing\"}", "names no entry of $defs"},
        {"{\"$ref\":\"other.json\"}", "$ref must be"},
        {"{\"type\":\"text\"}", "unknown type text"},
        {"{\"pattern\":\"([a-z\"}", "not a POSIX extended regular expression"},
        {"{\"properties\":{\"d\":{\"x-kix-kind\":\"Blob\"}}}",
         "x-kix-kind must name a record kind"},
        {"{\"if\":{},\"then\":{}}", "keyword if"},
        {"{\"x-kix-subject-kind\":\"Run\"}", "x-kix-subject-kind must name a record kind"},
    };
    char text[512];
    struct kix_schema *s = NULL;
    struct kix_err err = {0};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(text, sizeof(text),
                 "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",%s",
                 cases[i][0] + 1);
        ASSERT_EQ_INT(KIX_EINVAL, kix_schema_compile(text, strlen(text), &s, &err));
        ASSERT_TRUE(s == NULL);
        ASSERT_CONTAINS(err.msg, cases[i][1]);
    }
    /* another draft is refused too */
    snprintf(text, sizeof(text), "{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
    ASSERT_EQ_INT(KIX_EINVAL, kix_schema_compile(text, strlen(text), &s, &err));
    ASSERT_CONTAINS(err.msg, "2020-12");
    snprintf(text, sizeof(text),
             "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
             "\"required\":[\"a\"]}");
    ASSERT_EQ_INT(KIX_OK, kix_schema_compile(text, strlen(text), &s, &err));
    kix_schema_free(s);
}

/* The example pages' manifests (tools/samples/examples, copied from
 * ../shared/examples with their README): each object validates. */
KIX_TEST(examples_validate)
{
    static const char *const names[] = {"rope-liger-a100", "geglu-deepspeed-tiled-rtx4090"};
    struct kix_schema_result res;
    struct kix_err err = {0};

    for (size_t i = 0; i < 2; i++) {
        char path[256];
        char *text;
        json_t *ex, *v;
        const char *key;
        size_t n = 0;
        snprintf(path, sizeof(path), "../tools/samples/examples/%s.manifest.json", names[i]);
        text = kix_test_read_file(path, NULL);
        ASSERT_TRUE(text != NULL);
        ex = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        free(text);
        ASSERT_TRUE(ex != NULL);
        json_object_foreach(ex, key, v)
        {
            int rc = kix_record_validate(v, &res, &err);
            if (rc)
                fprintf(stderr, "%s %s: %s\n", names[i], key, err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
            if (strcmp(key, "run") == 0)
                ASSERT_EQ_U64(4, res.nrefs);
            rc = kix_record_rules_check(v, (int64_t)time(NULL), &err); /* sane, as on submit */
            if (rc)
                fprintf(stderr, "%s %s: %s\n", names[i], key, err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
            kix_schema_result_release(&res);
            n++;
        }
        ASSERT_EQ_U64(3, n);
        json_decref(ex);
    }
}

/* Every row of Liger-Kernel's published CSV (and of the sample) imports as
 * five valid records whose digest fields name records of the right kinds. */
static void liger_file_validates(const char *rel, size_t want_rows)
{
    static const char *const kind_of[KIX_LIGER_NOBJECTS] = {
        "BenchmarkProtocol", "Workload", "ExecutionEnvironment", "Implementation", "BenchmarkRun"};
    size_t len = 0, rows = 0;
    char *text = kix_test_read_file(rel, &len);
    struct kix_csv c;
    struct kix_csv_record rec;
    struct kix_liger_header h;
    struct kix_liger_cache *cache = NULL;
    struct kix_liger_run run;
    struct kix_schema_result res;
    struct kix_err err = {0};
    int rc;

    ASSERT_TRUE(text != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_liger_cache_new(&cache));
    kix_liger_run_init(&run);
    kix_csv_init(&c, text, len);
    ASSERT_EQ_INT(1, kix_csv_next(&c, &rec, &err));
    ASSERT_EQ_INT(KIX_OK, kix_liger_header_parse(&rec, &h, &err));
    while ((rc = kix_csv_next(&c, &rec, &err)) == 1) {
        rows++;
        ASSERT_EQ_INT(KIX_OK, kix_liger_build(cache, &h, &rec, &run, &err));
        for (int k = 0; k < KIX_LIGER_NOBJECTS; k++) {
            json_t *doc = json_loadb((const char *)run.canon[k].ptr, run.canon[k].len, 0, NULL);
            rc = kix_record_validate(doc, &res, &err);
            if (rc)
                fprintf(stderr, "line %zu %s: %s\n", run.line, kind_of[k], err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
            rc = kix_record_rules_check(doc, (int64_t)time(NULL), &err); /* sane, as on submit */
            if (rc)
                fprintf(stderr, "line %zu %s: %s\n", run.line, kind_of[k], err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
            ASSERT_EQ_STR(kind_of[k], json_string_value(json_object_get(doc, "kind")));
            /* the run's four digests name the row's four objects, each of the kind
             * its field requires */
            ASSERT_EQ_U64(k == KIX_LIGER_RUN ? 4 : 0, res.nrefs);
            for (size_t r = 0; r < res.nrefs; r++) {
                int found = -1;
                for (int o = 0; o < 4; o++)
                    if (memcmp(run.digest[o].b, res.refs[r].digest.b, 32) == 0)
                        found = o;
                ASSERT_TRUE(found >= 0);
                ASSERT_EQ_STR(kind_of[found], res.refs[r].kind);
            }
            kix_schema_result_release(&res);
            json_decref(doc);
        }
    }
    ASSERT_EQ_INT(0, rc);
    ASSERT_EQ_U64(want_rows, rows);
    kix_liger_run_release(&run);
    kix_liger_cache_free(cache);
    kix_csv_release(&c);
    free(text);
}

KIX_TEST(liger_full_csv_validates)
{
    liger_file_validates("data/liger/all_benchmark_data.csv", 2448);
}

KIX_TEST(liger_sample_validates)
{
    liger_file_validates("../tools/samples/liger/sample.csv", 388);
}

/* A valid run manifest with one member replaced (JSON text at `spec`). */
#define DIGEST_A "\"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""
#define RUN_HEAD                                                                                   \
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"        \
    "\"name\":\"r\"},\"spec\":{\"protocolDigest\":" DIGEST_A ",\"workloadDigest\":" DIGEST_A       \
    ",\"environmentDigest\":" DIGEST_A ",\"implementationDigest\":" DIGEST_A

/* The bad manifests of issue 16, and more, each named by its pointer. */
KIX_TEST(bad_manifests_named_by_pointer)
{
    static const char *const cases[][3] = {
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":-5}}}}",
         "/spec/timing/latencyNs/median", "must be a non-negative integer"},
        {RUN_HEAD ",\"status\":\"exploded\",\"timing\":{\"latencyNs\":{\"median\":5}}}}",
         "/spec/status", "must be one of"},
        {"{\"kernel\":\"rope\",\"gpu\":\"A100\",\"median_ms\":0.0113}", "/kind", "must be one of"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5.5}}}}",
         "/spec/timing/latencyNs/median", "must be a non-negative integer"},
        {RUN_HEAD ",\"status\":\"passed\"}}", "/spec", "must have one of: timing, memory"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},"
                  "\"observedAt\":\"2024-02-30T00:00:00Z\"}}",
         "/spec/observedAt", "must be an RFC 3339 UTC time"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},"
                  "\"observedAt\":\"2024-02-03T00:00:00+01:00\"}}",
         "/spec/observedAt", "must be an RFC 3339 UTC time"},
        /* issue 42: a valid date that is no date; every timestamp, not only observedAt */
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},"
                  "\"observedAt\":\"0000-01-01T00:00:00Z\"}}",
         "/spec/observedAt", "0000-01-01T00:00:00Z is before 2000-01-01T00:00:00Z"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},"
                  "\"observedAt\":\"1999-12-31T23:59:59.999Z\"}}",
         "/spec/observedAt", "1999-12-31T23:59:59.999Z is before 2000-01-01T00:00:00Z"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},\"gpu\":1}}",
         "/spec/gpu", "is not a known field here"},
        {RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":5}},"
                  "\"measurements\":[{\"unit\":\"ns\",\"value\":1,\"metric\":\"latency\","
                  "\"statistic\":\"p42\"}]}}",
         "/spec/measurements/0/statistic", "must be one of"},
        {"{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
         "\"name\":\"r\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":"
         "5}},\"protocolDigest\":\"sha256:00\",\"workloadDigest\":" DIGEST_A
         ",\"environmentDigest\":" DIGEST_A ",\"implementationDigest\":" DIGEST_A "}}",
         "/spec/protocolDigest", "must be at least 71 characters (a digest: sha256: and 64"},
        {"{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{"
         "\"name\":\"w\"},\"spec\":{}}",
         "/spec/kernel", "is required"},
    };
    struct kix_schema_result res;
    struct kix_err err = {0};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char want[600];
        ASSERT_EQ_INT(KIX_EINVAL, validate_text(cases[i][0], &res, &err));
        ASSERT_EQ_STR(cases[i][1], res.pointer);
        ASSERT_CONTAINS(res.message, cases[i][2]);
        snprintf(want, sizeof(want), "%s: %s", cases[i][1], cases[i][2]);
        ASSERT_CONTAINS(err.msg, want);
    }
    /* the first instant allowed is allowed */
    ASSERT_EQ_INT(KIX_OK,
                  validate_text(RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
                                         "\"median\":5}},\"observedAt\":"
                                         "\"2000-01-01T00:00:00Z\"}}",
                                &res, &err));
    /* the same run, valid, has its four kinds of digest to check */
    ASSERT_EQ_INT(KIX_OK,
                  validate_text(RUN_HEAD ",\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
                                         "\"median\":5.0}},\"observedAt\":"
                                         "\"2024-02-29T23:59:59.123Z\"}}",
                                &res, &err));
}

/* An object's members meet their "properties" in one merge of two sorted
 * lists: the violations named, and their order (members by name, strcmp's
 * order, which UTF-16's canonical order differs from past U+FFFF), are
 * those the lookups named, whatever the order the members were written or
 * built in; a "required" name the properties lack is still looked up. */
KIX_TEST(members_meet_their_properties_in_name_order)
{
    static const char schema[] =
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
        "\"type\":\"object\",\"required\":[\"a\",\"z\"],\"additionalProperties\":false,"
        "\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"type\":\"integer\"},"
        "\"\xf0\x9f\x98\x80\":{\"type\":\"integer\"},\"\xef\xbf\xbd\":{\"type\":\"integer\"},"
        "\"c\":{\"type\":\"object\",\"required\":[\"x\"]}}}";
    static const struct {
        const char *doc;
        const char *want; /* every violation, "pointer message|" each */
    } cases[] = {
        {"{\"a\":1,\"z\":0}", "/z is not a known field here|"},
        {"{\"z\":0}", "/a is required|/z is not a known field here|"},
        {"{\"b\":2,\"a\":\"x\"}", "/z is required|/a must be an integer|/b must be a string|"},
        /* written in UTF-16 order (as canonical JSON is): U+1F600 first */
        {"{\"\xf0\x9f\x98\x80\":\"s\",\"\xef\xbf\xbd\":\"t\",\"a\":1,\"c\":{}}",
         "/z is required|/c/x is required|/\xef\xbf\xbd must be an integer|"
         "/\xf0\x9f\x98\x80 must be an integer|"},
        {"{\"y\":1,\"c\":{\"x\":1},\"a\":2,\"z\":3,\"b\":\"s\"}",
         "/y is not a known field here|/z is not a known field here|"},
    };
    struct kix_schema *sc = NULL;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_schema_compile(schema, strlen(schema), &sc, &err));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *doc = json_loads(cases[i].doc, JSON_REJECT_DUPLICATES, NULL);
        json_t *rev = json_object();
        void *it;
        struct kix_schema_violation v[8];
        struct kix_schema_result res, res2;
        char got[1024] = "", got2[1024] = "";
        size_t n = 0, len = 0;
        const char *k;
        json_t *x;

        fprintf(stderr, "case %zu: %s\n", i, cases[i].doc);
        ASSERT_TRUE(doc != NULL);
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate_all(sc, doc, &res, v, 8, &n));
        for (size_t j = 0; j < n && j < 8; j++) {
            char *cut = strstr(v[j].message, " (known:");
            if (cut)
                *cut = '\0';
            len += (size_t)snprintf(got + len, sizeof(got) - len, "%s %s|", v[j].pointer,
                                    v[j].message);
        }
        ASSERT_EQ_STR(cases[i].want, got);
        ASSERT_EQ_INT(n == 0, res.valid);
        /* the same members inserted in the reverse order */
        for (it = json_object_iter(doc); it; it = json_object_iter_next(doc, it)) {
            json_t *tmp = json_object();
            k = json_object_iter_key(it);
            ASSERT_EQ_INT(0, json_object_set(tmp, k, json_object_iter_value(it)));
            json_object_foreach(rev, k, x) ASSERT_EQ_INT(0, json_object_set(tmp, k, x));
            json_decref(rev);
            rev = tmp;
        }
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate_all(sc, rev, &res2, v, 8, &n));
        len = 0;
        for (size_t j = 0; j < n && j < 8; j++) {
            char *cut = strstr(v[j].message, " (known:");
            if (cut)
                *cut = '\0';
            len += (size_t)snprintf(got2 + len, sizeof(got2) - len, "%s %s|", v[j].pointer,
                                    v[j].message);
        }
        ASSERT_EQ_STR(got, got2);
        ASSERT_EQ_STR(res.pointer, res2.pointer);
        ASSERT_EQ_STR(res.message, res2.message);
        kix_schema_result_release(&res);
        kix_schema_result_release(&res2);
        json_decref(rev);
        json_decref(doc);
    }
    kix_schema_free(sc);
}

/* Predicates as the builders of kix/entries.h write them validate. */
KIX_TEST(built_predicates_validate)
{
    uint8_t seed[32] = {7};
    struct kix_signer *key = NULL;
    struct kix_digest d;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed("test", KIX_NOTE_ALG_ED25519, seed, &key, &err));
    memset(d.b, 1, 32);
    for (int which = 0; which < 5; which++) {
        const struct kix_schema *s = NULL;
        struct kix_schema_result res;
        json_t *e, *st, *pred;
        size_t n;
        uint8_t payload[4096];
        kix_buf_reset(&env);
        switch (which) {
        case 0:
            ASSERT_EQ_INT(KIX_OK,
                          kix_entry_publication(key, "run-1", &d, NULL, "src", "MIT", &env, &err));
            break;
        case 1:
            ASSERT_EQ_INT(KIX_OK,
                          kix_entry_attestation(key, "run-1", &d, "seen it", &d, 1, &env, &err));
            break;
        case 2:
            ASSERT_EQ_INT(KIX_OK,
                          kix_entry_rerun(key, "run-1", &d, "reproduced", &d, NULL, &env, &err));
            break;
        case 3:
            ASSERT_EQ_INT(KIX_OK,
                          kix_entry_supersession(key, "run-1", &d, "run-2", "typo", &env, &err));
            break;
        default:
            ASSERT_EQ_INT(KIX_OK, kix_entry_key(key, 0, seed, KIX_ROLE_PUBLISH | KIX_ROLE_ATTEST,
                                                &env, &err));
        }
        e = json_loadb((const char *)env.ptr, env.len, 0, NULL);
        ASSERT_TRUE(e != NULL);
        ASSERT_EQ_INT(0, kix_base64_decode_std(json_string_value(json_object_get(e, "payload")),
                                               json_string_length(json_object_get(e, "payload")),
                                               payload, sizeof(payload), &n));
        st = json_loadb((const char *)payload, n, 0, NULL);
        pred = json_object_get(st, "predicate");
        ASSERT_EQ_INT(KIX_OK, kix_schema_builtin(predicates[which], &s, &err));
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, pred, &res));
        if (!res.valid)
            fprintf(stderr, "%s: %s: %s\n", predicates[which], res.pointer, res.message);
        ASSERT_TRUE(res.valid);
        ASSERT_EQ_U64(which == 2 ? 1 : 0, res.nrefs);
        kix_schema_result_release(&res);
        json_decref(st);
        json_decref(e);
    }
    kix_buf_release(&env);
    kix_signer_free(key);
}

/* issue 42: the statements' timestamps (publishedAt, attestedAt, the
 * rerun's observedAt, supersededAt) are held to the same floor. */
KIX_TEST(statement_times_before_2000_refused)
{
    static const char *const cases[][3] = {
        {"publication", "{\"runId\":\"r\",\"publishedAt\":\"0000-01-01T00:00:00Z\"}",
         "/publishedAt"},
        {"supersession",
         "{\"runId\":\"r\",\"newRunId\":\"s\",\"supersededAt\":\"1970-01-01T00:00:00Z\"}",
         "/supersededAt"},
    };
    struct kix_err err = {0};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct kix_schema *s = NULL;
        struct kix_schema_result res;
        json_t *pred = json_loads(cases[i][1], 0, NULL);
        ASSERT_TRUE(pred != NULL);
        ASSERT_EQ_INT(KIX_OK, kix_schema_builtin(cases[i][0], &s, &err));
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, pred, &res));
        ASSERT_TRUE(!res.valid);
        ASSERT_EQ_STR(cases[i][2], res.pointer);
        ASSERT_CONTAINS(res.message, "is before 2000-01-01T00:00:00Z");
        kix_schema_result_release(&res);
        json_decref(pred);
    }
}

KIX_TEST(rfc3339_strict)
{
    static const char *const good[] = {"2024-09-03T15:39:55Z", "2024-09-03T15:39:55.000Z",
                                       "2024-02-29T00:00:00Z", "2000-02-29T23:59:59.5+01:00"};
    static const char *const bad[] = {"2024-09-03 15:39:55Z",  "2023-02-29T00:00:00Z",
                                      "1900-02-29T00:00:00Z",  "2024-13-01T00:00:00Z",
                                      "2024-09-03T24:00:00Z",  "2024-09-03T15:39:55",
                                      "2024-09-03T15:39:55.Z", "2024-9-03T15:39:55Z",
                                      "2024-09-31T00:00:00Z",  "2024-09-03T15:39:60Z"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ASSERT_TRUE(kix_rfc3339_valid(good[i], strlen(good[i])));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ASSERT_TRUE(!kix_rfc3339_valid(bad[i], strlen(bad[i])));
}

/* A violation's and a reference's pointer is written only when one is
 * reported, from the path the walk took: the same text as joining it at
 * every step, "~" and "/" escaped, items by index, and cut alike at
 * KIX_SCHEMA_POINTER_MAX however deep (each step below joined as the
 * validator joined them before). */
KIX_TEST(pointers_written_from_the_path_at_any_depth)
{
    static const char schema[] =
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$defs\":{\"node\":{"
        "\"type\":\"object\",\"properties\":{\"d\":{\"x-kix-kind\":\"BenchmarkRun\"},"
        "\"n\":{\"type\":\"integer\"}},\"additionalProperties\":{\"type\":\"array\",\"items\":"
        "{\"$ref\":\"#/$defs/node\"}}}},\"$ref\":\"#/$defs/node\"}";
    static const char digest[] =
        "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    struct kix_schema *s = NULL;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_schema_compile(schema, strlen(schema), &s, &err));
    for (int depth = 1; depth <= 40; depth += 13) {
        json_t *doc = json_object(), *at = doc;
        char want[KIX_SCHEMA_POINTER_MAX] = "", key[40];
        struct kix_schema_result res;
        for (int k = 0; k < depth; k++) {
            json_t *arr = json_array(), *child = json_object();
            snprintf(key, sizeof(key), "level~%d/of/%d", k, depth);
            json_object_set_new(at, key, arr);
            json_array_append_new(arr, json_object());
            json_array_append_new(arr, child);
            kix_schema_pointer_join(want, sizeof(want), want, key);
            kix_schema_pointer_join(want, sizeof(want), want, "1");
            at = child;
        }
        /* a reference at the bottom: its pointer is kept */
        json_object_set_new(at, "d", json_string(digest));
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, doc, &res));
        ASSERT_TRUE(res.valid);
        ASSERT_EQ_INT(1, (int)res.nrefs);
        {
            char ref[KIX_SCHEMA_POINTER_MAX];
            memcpy(ref, want, sizeof(ref));
            kix_schema_pointer_join(ref, sizeof(ref), ref, "d");
            ASSERT_EQ_STR(ref, res.refs[0].pointer);
        }
        kix_schema_result_release(&res);
        /* a violation at the bottom: named by the same path */
        json_object_set_new(at, "n", json_string("not a number"));
        kix_schema_pointer_join(want, sizeof(want), want, "n");
        ASSERT_EQ_INT(KIX_OK, kix_schema_validate(s, doc, &res));
        ASSERT_TRUE(!res.valid);
        ASSERT_EQ_STR(want, res.pointer);
        ASSERT_CONTAINS(res.message, "must be an integer");
        if (depth > 20)
            ASSERT_EQ_INT(KIX_SCHEMA_POINTER_MAX - 1, (int)strlen(res.pointer)); /* cut */
        else
            ASSERT_CONTAINS(res.pointer, "level~0");
        kix_schema_result_release(&res);
        json_decref(doc);
    }
    kix_schema_free(s);
}

KIX_TEST_MAIN()
