/* The Liger-Kernel importer's pure parts: the RFC 4180 reader (kix/csv.h)
 * and rows → manifests (kix/liger.h), checked against the example pages. */
#include <jansson.h>

#include "harness.h"
#include "kix/canon.h"
#include "kix/csv.h"
#include "kix/liger.h"

#define HEADER                                                                                     \
    "kernel_name,kernel_provider,kernel_operation_mode,metric_name,metric_unit,x_name,x_label,"    \
    "x_value,y_value_50,y_value_20,y_value_80,extra_benchmark_config_str,gpu_name,timestamp,"      \
    "liger_version"

/* Upstream lines 332 and 1643 (tests/data/liger/README.md, spot checks a and b). */
#define ROPE_ROW                                                                                   \
    "rope,liger,forward,speed,ms,H,hidden size,512,0.011359999887645245,0.01033599954098463,"      \
    "0.011455999687314034,\"{\"\"dtype\"\": \"\"torch.bfloat16\"\", \"\"seq_len\"\": 2048, "       \
    "\"\"num_q_heads\"\": 32, \"\"num_kv_heads\"\": 8}\",NVIDIA A100-SXM4-80GB,2024-09-03 "        \
    "15:39:55,0.2.1"
#define GEGLU_ROW                                                                                  \
    "tiled_geglu,deepspeed_tiled,full,speed,ms,T,sequence length,16384,49.46227264404297,"         \
    "49.46227264404297,49.46227264404297,\"{\"\"bsz\"\": 2, \"\"hidden_size\"\": 2048, "           \
    "\"\"intermediate_size\"\": 4096, \"\"hidden_act\"\": \"\"gelu_pytorch_tanh\"\", "             \
    "\"\"activation_type\"\": \"\"geglu\"\", \"\"num_shards\"\": 4, \"\"dtype\"\": "               \
    "\"\"torch.bfloat16\"\"}\",NVIDIA GeForce RTX 4090,2025-11-11 06:22:51,0.6.3"
/* Upstream line 350: the memory row of the rope config above (full pass). */
#define ROPE_MEMORY_ROW                                                                            \
    "rope,liger,full,memory,MB,H,hidden size,512,13.26611328125,13.26611328125,13.26611328125,"    \
    "\"{\"\"dtype\"\": \"\"torch.bfloat16\"\", \"\"seq_len\"\": 2048, \"\"num_q_heads\"\": 32, "   \
    "\"\"num_kv_heads\"\": 8}\",NVIDIA A100-SXM4-80GB,2024-09-03 15:40:01,0.2.1"
#define ROPE_EXTERNAL_ID                                                                           \
    "rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-kv_heads8-q_heads32-seq2048-bf16/"         \
    "2024-09-03-15-39-55"

/* ---- helpers ---------------------------------------------------------------- */

static const char *field(const struct kix_csv_record *r, size_t i)
{
    return i < r->nfields ? r->fields[i] : "(missing)";
}

/* Builds the run of `row` (one data line after HEADER, on file line 2). */
static int build_row(const char *row, struct kix_liger_cache *cache, struct kix_liger_run *run,
                     struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_csv csv;
    struct kix_csv_record rec;
    struct kix_liger_header h;
    int rc = kix_buf_addf(&text, "%s\r\n%s\r\n", HEADER, row);

    if (rc)
        return rc;
    kix_csv_init(&csv, (const char *)text.ptr, text.len);
    rc = kix_csv_next(&csv, &rec, err) == 1 ? kix_liger_header_parse(&rec, &h, err) : KIX_EINVAL;
    if (rc == KIX_OK)
        rc = kix_csv_next(&csv, &rec, err) == 1 ? KIX_OK : KIX_EINVAL;
    if (rc == KIX_OK)
        rc = kix_liger_build(cache, &h, &rec, run, err);
    kix_csv_release(&csv);
    kix_buf_release(&text);
    return rc;
}

/* Canonical bytes of a jansson value. */
static int canon_of(json_t *v, struct kix_buf *out)
{
    char *text = json_dumps(v, JSON_COMPACT);
    int rc = text ? kix_canon((const uint8_t *)text, strlen(text), NULL, out, NULL) : KIX_ENOMEM;
    free(text);
    return rc;
}

static void set_digest(json_t *spec, const char *key, const struct kix_digest *d)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];
    kix_digest_format(d, text);
    json_object_set_new(spec, key, json_string(text));
}

/* Compares a built run with tools/samples/examples/NAME.manifest.json:
 * the run manifest must be the example's byte for byte once the example's
 * four digests (made by another system) are replaced by ours and its
 * sourceNative carries the row's sweep and config as ours does (kix keeps
 * them there, out of the workload: issue 37.5; the rope test checks
 * them); the
 * environment must be the example's exactly; the protocol the example's
 * plus measurement.metric and measurement.pass. */
static void check_example(const char *name, const struct kix_liger_run *run, const char *pass)
{
    char path[256];
    char *text;
    json_t *ex, *spec, *measurement;
    struct kix_buf want = KIX_BUF_INIT;

    snprintf(path, sizeof(path), "../tools/samples/examples/%s.manifest.json", name);
    text = kix_test_read_file(path, NULL);
    ASSERT_TRUE(text != NULL);
    ex = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    ASSERT_TRUE(ex != NULL);

    spec = json_object_get(json_object_get(ex, "run"), "spec");
    set_digest(spec, "protocolDigest", &run->digest[KIX_LIGER_PROTOCOL]);
    set_digest(spec, "workloadDigest", &run->digest[KIX_LIGER_WORKLOAD]);
    set_digest(spec, "environmentDigest", &run->digest[KIX_LIGER_ENVIRONMENT]);
    set_digest(spec, "implementationDigest", &run->digest[KIX_LIGER_IMPLEMENTATION]);
    {
        json_t *ours = json_loadb((const char *)run->canon[KIX_LIGER_RUN].ptr,
                                  run->canon[KIX_LIGER_RUN].len, 0, NULL);
        json_t *native = json_object_get(json_object_get(ours, "spec"), "sourceNative");
        json_t *theirs = json_object_get(spec, "sourceNative");
        ASSERT_TRUE(json_object_get(native, "x") != NULL);
        json_object_set(theirs, "x", json_object_get(native, "x"));
        if (json_object_get(native, "config"))
            json_object_set(theirs, "config", json_object_get(native, "config"));
        json_decref(ours);
    }
    ASSERT_EQ_INT(KIX_OK, canon_of(json_object_get(ex, "run"), &want));
    ASSERT_EQ_MEM(want.ptr, want.len, run->canon[KIX_LIGER_RUN].ptr, run->canon[KIX_LIGER_RUN].len);

    kix_buf_reset(&want);
    ASSERT_EQ_INT(KIX_OK, canon_of(json_object_get(ex, "environment"), &want));
    ASSERT_EQ_MEM(want.ptr, want.len, run->canon[KIX_LIGER_ENVIRONMENT].ptr,
                  run->canon[KIX_LIGER_ENVIRONMENT].len);

    measurement =
        json_object_get(json_object_get(json_object_get(ex, "protocol"), "spec"), "measurement");
    json_object_set_new(measurement, "metric", json_string("latency"));
    json_object_set_new(measurement, "pass", json_string(pass));
    kix_buf_reset(&want);
    ASSERT_EQ_INT(KIX_OK, canon_of(json_object_get(ex, "protocol"), &want));
    ASSERT_EQ_MEM(want.ptr, want.len, run->canon[KIX_LIGER_PROTOCOL].ptr,
                  run->canon[KIX_LIGER_PROTOCOL].len);
    kix_buf_release(&want);
    json_decref(ex);
}

/* A top-level string member of a canonical object, or "". */
static const char *member(const struct kix_buf *canon, const char *path0, const char *path1,
                          char *out, size_t outlen)
{
    json_t *o = json_loadb((const char *)canon->ptr, canon->len, 0, NULL);
    json_t *v = json_object_get(o, path0);
    if (path1)
        v = json_object_get(v, path1);
    snprintf(out, outlen, "%s", json_is_string(v) ? json_string_value(v) : "");
    json_decref(o);
    return out;
}

/* ---- the CSV reader ------------------------------------------------------------ */

KIX_TEST(csv_plain_records)
{
    const char *text = "a,b,c\r\n1,,3\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(1, r.line);
    ASSERT_EQ_U64(3, r.nfields);
    ASSERT_EQ_STR("a", field(&r, 0));
    ASSERT_EQ_STR("c", field(&r, 2));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(2, r.line);
    ASSERT_EQ_U64(3, r.nfields);
    ASSERT_EQ_STR("", field(&r, 1));
    ASSERT_EQ_U64(0, r.lens[1]);
    ASSERT_EQ_STR("3", field(&r, 2));
    ASSERT_EQ_INT(0, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(0, kix_csv_next(&c, &r, &err));
    kix_csv_release(&c);
}

KIX_TEST(csv_quoting)
{
    /* doubled quotes, a comma, a CRLF and an LF inside quotes; the JSON of the
     * config column; an empty quoted field; LF endings; no final newline */
    const char *text = "\"say \"\"hi\"\", then go\",\"two\r\nlines\",x\n"
                       "\"{\"\"B\"\": 8, \"\"T\"\": 2048}\",\"\",\"a\nb\"\n"
                       "last,row";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(1, r.line);
    ASSERT_EQ_U64(3, r.nfields);
    ASSERT_EQ_STR("say \"hi\", then go", field(&r, 0));
    ASSERT_EQ_STR("two\r\nlines", field(&r, 1));
    ASSERT_EQ_STR("x", field(&r, 2));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(3, r.line); /* the record before spans lines 1-2 */
    ASSERT_EQ_STR("{\"B\": 8, \"T\": 2048}", field(&r, 0));
    ASSERT_EQ_STR("", field(&r, 1));
    ASSERT_EQ_STR("a\nb", field(&r, 2));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(5, r.line);
    ASSERT_EQ_U64(2, r.nfields);
    ASSERT_EQ_STR("row", field(&r, 1));
    ASSERT_EQ_INT(0, kix_csv_next(&c, &r, &err));
    kix_csv_release(&c);
}

KIX_TEST(csv_bom_and_nul)
{
    const char text[] = "\xEF\xBB\xBFh1,h2\r\na\0b,c\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, sizeof(text) - 1);
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_STR("h1", field(&r, 0));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(3, r.lens[0]); /* the NUL is data; the length says so */
    ASSERT_EQ_MEM("a\0b", 3, r.fields[0], r.lens[0]);
    kix_csv_release(&c);
}

KIX_TEST(csv_quote_inside_unquoted_field)
{
    const char *text = "a,b\r\nx,y\"z\r\nok,1\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(KIX_EINVAL, err.code);
    ASSERT_CONTAINS(err.msg, "line 2:");
    ASSERT_CONTAINS(err.msg, "field 2");
    ASSERT_CONTAINS(err.msg, "quote inside an unquoted field");
    /* the reader goes on at the next line */
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_U64(3, r.line);
    ASSERT_EQ_STR("ok", field(&r, 0));
    kix_csv_release(&c);
}

KIX_TEST(csv_text_after_closing_quote)
{
    const char *text = "h\r\n\"ab\"c,d\r\nnext\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_csv_next(&c, &r, &err));
    ASSERT_CONTAINS(err.msg, "line 2:");
    ASSERT_CONTAINS(err.msg, "field 1 has 'c' after its closing quote");
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_STR("next", field(&r, 0));
    kix_csv_release(&c);
}

KIX_TEST(csv_unterminated_quote)
{
    const char *text = "h1,h2\r\n1,2\r\n3,\"open\r\nstill open,\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_csv_next(&c, &r, &err));
    ASSERT_CONTAINS(err.msg, "line 3:"); /* where the quote opened */
    ASSERT_CONTAINS(err.msg, "field 2 opens a quote that is never closed");
    ASSERT_EQ_INT(0, kix_csv_next(&c, &r, &err));
    kix_csv_release(&c);
}

KIX_TEST(csv_bare_carriage_return)
{
    const char *text = "a,b\rc\r\n";
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    kix_csv_init(&c, text, strlen(text));
    ASSERT_EQ_INT(KIX_EINVAL, kix_csv_next(&c, &r, &err));
    ASSERT_CONTAINS(err.msg, "line 1:");
    ASSERT_CONTAINS(err.msg, "carriage return");
    kix_csv_release(&c);
}

KIX_TEST(csv_too_many_fields)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_csv c;
    struct kix_csv_record r;
    struct kix_err err = {0};

    for (int i = 0; i <= KIX_CSV_MAX_FIELDS; i++)
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&text, i ? ",x" : "x"));
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&text, "\r\nnext\r\n"));
    kix_csv_init(&c, (const char *)text.ptr, text.len);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_csv_next(&c, &r, &err));
    ASSERT_CONTAINS(err.msg, "more than 1024 fields");
    ASSERT_EQ_INT(1, kix_csv_next(&c, &r, &err));
    ASSERT_EQ_STR("next", field(&r, 0));
    kix_csv_release(&c);
    kix_buf_release(&text);
}

/* ---- the header ---------------------------------------------------------------- */

static int header_of(const char *line, struct kix_liger_header *h, struct kix_err *err)
{
    struct kix_csv c;
    struct kix_csv_record r;
    int rc;
    kix_csv_init(&c, line, strlen(line));
    rc = kix_csv_next(&c, &r, err) == 1 ? kix_liger_header_parse(&r, h, err) : KIX_EINVAL;
    kix_csv_release(&c);
    return rc;
}

KIX_TEST(header_checked)
{
    struct kix_liger_header h;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, header_of(HEADER "\r\n", &h, &err));
    ASSERT_EQ_U64(15, h.nfields);
    ASSERT_EQ_U64(11, h.index[KIX_LIGER_EXTRA_BENCHMARK_CONFIG_STR]);
    /* any order */
    ASSERT_EQ_INT(KIX_OK,
                  header_of("liger_version,kernel_provider,kernel_operation_mode,metric_name,"
                            "metric_unit,x_name,x_label,x_value,y_value_50,y_value_20,y_value_80,"
                            "extra_benchmark_config_str,gpu_name,timestamp,kernel_name\n",
                            &h, &err));
    ASSERT_EQ_U64(14, h.index[KIX_LIGER_KERNEL_NAME]);
    ASSERT_EQ_U64(0, h.index[KIX_LIGER_LIGER_VERSION]);

    ASSERT_EQ_INT(KIX_EINVAL, header_of("kernel_name,kernel_provider\n", &h, &err));
    ASSERT_CONTAINS(err.msg, "line 1: header lacks column 'kernel_operation_mode'");
    ASSERT_EQ_INT(KIX_EINVAL, header_of(HEADER ",comment\n", &h, &err));
    ASSERT_CONTAINS(err.msg, "header column 16 is 'comment'");
    ASSERT_EQ_INT(KIX_EINVAL, header_of(HEADER ",gpu_name\n", &h, &err));
    ASSERT_CONTAINS(err.msg, "names column 'gpu_name' twice");
}

/* ---- rows → manifests ------------------------------------------------------------ */

KIX_TEST(rope_example_row)
{
    struct kix_liger_run run;
    struct kix_err err = {0};
    char buf[256];

    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_OK, build_row(ROPE_ROW, NULL, &run, &err));
    ASSERT_EQ_STR(ROPE_EXTERNAL_ID, run.external_id);
    ASSERT_EQ_U64(11360, (uint64_t)run.median);
    ASSERT_EQ_U64(10336, (uint64_t)run.p20);
    ASSERT_EQ_U64(11456, (uint64_t)run.p80);
    ASSERT_EQ_INT(0, run.memory);
    ASSERT_EQ_U64(2, run.line);
    /* UUIDv8 of SHA-256("kix-import-liger/v1\n" || external id), see kix/liger.h */
    ASSERT_EQ_STR("f1ba391b-0611-85e9-aa7c-9b289f26dadd", run.run_id);
    check_example("rope-liger-a100", &run, "forward");
    ASSERT_EQ_STR("rope",
                  member(&run.canon[KIX_LIGER_WORKLOAD], "spec", "kernel", buf, sizeof(buf)));
    ASSERT_EQ_STR("Rotary position embedding \xc2\xb7 hidden = 512 \xc2\xb7 kv_heads = 8 \xc2\xb7 "
                  "q_heads = 32 \xc2\xb7 seq = 2048 \xc2\xb7 bf16",
                  member(&run.canon[KIX_LIGER_WORKLOAD], "metadata", "title", buf, sizeof(buf)));
    ASSERT_EQ_STR("Liger",
                  member(&run.canon[KIX_LIGER_IMPLEMENTATION], "spec", "name", buf, sizeof(buf)));
    ASSERT_EQ_STR("Liger-Kernel", member(&run.canon[KIX_LIGER_IMPLEMENTATION], "spec", "project",
                                         buf, sizeof(buf)));
    kix_liger_run_release(&run);
}

KIX_TEST(rope_workload_exact)
{
    static const char want[] =
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{"
        "\"name\":\"liger-rope-hidden512-kv-heads8-q-heads32-seq2048-bf16\",\"title\":\"Rotary "
        "position embedding \xc2\xb7 hidden = 512 \xc2\xb7 kv_heads = 8 \xc2\xb7 q_heads = 32 "
        "\xc2\xb7 seq = 2048 \xc2\xb7 bf16\"},\"spec\":{\"dtype\":\"bf16\",\"kernel\":"
        "\"rope\",\"parameters\":{\"hidden\":512,\"kv_heads\":8,\"q_heads\":32,\"seq\":2048},"
        /* the shapes the example page shows: q and k [1, heads, seq, hidden / q_heads] */
        "\"tensors\":[{\"dtype\":\"bf16\",\"name\":\"k\",\"shape\":[1,8,2048,16]},"
        "{\"dtype\":\"bf16\",\"name\":\"q\",\"shape\":[1,32,2048,16]}]}}";
    /* the sweep the row came from and its config: the run's provenance */
    static const char native[] = "\"x\":{\"label\":\"hidden size\",\"name\":\"H\",\"value\":512}";
    static const char config[] = "\"config\":{\"dtype\":\"torch.bfloat16\",\"num_kv_heads\":8,"
                                 "\"num_q_heads\":32,\"seq_len\":2048}";
    struct kix_liger_run run;
    struct kix_err err = {0};

    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_OK, build_row(ROPE_ROW, NULL, &run, &err));
    ASSERT_EQ_MEM(want, strlen(want), run.canon[KIX_LIGER_WORKLOAD].ptr,
                  run.canon[KIX_LIGER_WORKLOAD].len);
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_RUN].ptr, native) != NULL);
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_RUN].ptr, config) != NULL);
    kix_liger_run_release(&run);
}

KIX_TEST(geglu_example_row)
{
    struct kix_liger_run run;
    struct kix_err err = {0};
    char buf[512];

    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_OK, build_row(GEGLU_ROW, NULL, &run, &err));
    ASSERT_EQ_STR("tiled_geglu/full/deepspeed_tiled/nvidia-geforce-rtx-4090/"
                  "batch2-hidden2048-intermediate4096-seq16384-bf16/2025-11-11-06-22-51",
                  run.external_id);
    ASSERT_EQ_U64(49462273, (uint64_t)run.median);
    ASSERT_EQ_U64(49462273, (uint64_t)run.p20);
    ASSERT_EQ_U64(49462273, (uint64_t)run.p80);
    check_example("geglu-deepspeed-tiled-rtx4090", &run, "full");
    /* a text setting the slug leaves out is a workload parameter; the
     * implementation's num_shards is in the run's config only */
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_WORKLOAD].ptr,
                       "\"hidden_act\":\"gelu_pytorch_tanh\"") != NULL);
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_WORKLOAD].ptr, "num_shards") == NULL);
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_RUN].ptr, "\"num_shards\":4") != NULL);
    /* the example page's shapes: x [batch, seq, hidden], the projections' weights */
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_WORKLOAD].ptr,
                       "\"tensors\":[{\"dtype\":\"bf16\",\"name\":\"x\",\"shape\":[2,16384,2048]},"
                       "{\"dtype\":\"bf16\",\"name\":\"w_gate\",\"shape\":[4096,2048]},"
                       "{\"dtype\":\"bf16\",\"name\":\"w_up\",\"shape\":[4096,2048]},"
                       "{\"dtype\":\"bf16\",\"name\":\"w_down\",\"shape\":[2048,4096]}]") != NULL);
    ASSERT_EQ_STR("DeepSpeed", member(&run.canon[KIX_LIGER_IMPLEMENTATION], "spec", "project", buf,
                                      sizeof(buf)));
    kix_liger_run_release(&run);
}

KIX_TEST(memory_row)
{
    struct kix_liger_run run, speed;
    struct kix_err err = {0};
    json_t *o, *spec;

    kix_liger_run_init(&run);
    kix_liger_run_init(&speed);
    ASSERT_EQ_INT(KIX_OK, build_row(ROPE_MEMORY_ROW, NULL, &run, &err));
    ASSERT_EQ_INT(KIX_OK, build_row(ROPE_ROW, NULL, &speed, &err));
    ASSERT_EQ_INT(1, run.memory);
    ASSERT_EQ_STR("rope/full/liger/nvidia-a100-sxm4-80gb/hidden512-kv_heads8-q_heads32-seq2048-"
                  "bf16/2024-09-03-15-40-01/memory",
                  run.external_id);
    /* 13.26611328125 MB = 13910528 bytes exactly (Liger's MB are bytes / 2^20) */
    ASSERT_EQ_U64(13910528, (uint64_t)run.median);
    ASSERT_EQ_U64(13910528, (uint64_t)run.p20);
    o = json_loadb((const char *)run.canon[KIX_LIGER_RUN].ptr, run.canon[KIX_LIGER_RUN].len, 0,
                   NULL);
    spec = json_object_get(o, "spec");
    ASSERT_EQ_U64(13910528,
                  (uint64_t)json_integer_value(json_object_get(
                      json_object_get(json_object_get(spec, "memory"), "peakBytes"), "median")));
    ASSERT_EQ_STR(
        "MB", json_string_value(json_object_get(json_object_get(spec, "memory"), "sourceUnit")));
    ASSERT_TRUE(json_real_value(json_object_get(
                    json_object_get(json_object_get(spec, "sourceNative"), "metrics"), "MB_50")) ==
                13.26611328125);
    ASSERT_EQ_STR("B", json_string_value(json_object_get(
                           json_array_get(json_object_get(spec, "measurements"), 0), "unit")));
    ASSERT_TRUE(json_object_get(spec, "timing") == NULL);
    json_decref(o);
    /* same workload, environment, implementation; another protocol */
    ASSERT_EQ_MEM(speed.digest[KIX_LIGER_WORKLOAD].b, 32, run.digest[KIX_LIGER_WORKLOAD].b, 32);
    ASSERT_EQ_MEM(speed.digest[KIX_LIGER_ENVIRONMENT].b, 32, run.digest[KIX_LIGER_ENVIRONMENT].b,
                  32);
    ASSERT_TRUE(memcmp(speed.digest[KIX_LIGER_PROTOCOL].b, run.digest[KIX_LIGER_PROTOCOL].b, 32));
    ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_PROTOCOL].ptr,
                       "\"name\":\"liger-bench-memory-full\"") != NULL);
    kix_liger_run_release(&run);
    kix_liger_run_release(&speed);
}

KIX_TEST(cache_gives_same_bytes)
{
    struct kix_liger_cache *cache = NULL;
    struct kix_liger_run a, b;
    struct kix_err err = {0};

    kix_liger_run_init(&a);
    kix_liger_run_init(&b);
    ASSERT_EQ_INT(KIX_OK, kix_liger_cache_new(&cache));
    ASSERT_EQ_INT(KIX_OK, build_row(GEGLU_ROW, NULL, &a, &err));
    for (int round = 0; round < 2; round++) {
        ASSERT_EQ_INT(KIX_OK, build_row(GEGLU_ROW, cache, &b, &err));
        ASSERT_EQ_STR(a.external_id, b.external_id);
        ASSERT_EQ_STR(a.run_id, b.run_id);
        for (int k = 0; k < KIX_LIGER_NOBJECTS; k++) {
            ASSERT_EQ_MEM(a.canon[k].ptr, a.canon[k].len, b.canon[k].ptr, b.canon[k].len);
            ASSERT_EQ_MEM(a.digest[k].b, 32, b.digest[k].b, 32);
        }
    }
    ASSERT_EQ_U64(4, kix_liger_cache_size(cache));
    kix_liger_cache_free(cache);
    kix_liger_run_release(&a);
    kix_liger_run_release(&b);
}

/* One bad row: code, line and cause in the message. */
static void expect_bad(const char *row, const char *cause)
{
    struct kix_liger_run run;
    struct kix_err err = {0};
    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_EINVAL, build_row(row, NULL, &run, &err));
    ASSERT_EQ_INT(KIX_EINVAL, err.code);
    ASSERT_CONTAINS(err.msg, "line 2: ");
    ASSERT_CONTAINS(err.msg, cause);
    kix_liger_run_release(&run);
}

#define ROW_HEAD "rope,liger,forward,speed,ms,H,hidden size,512,"
#define ROW_Y    "0.01136,0.01033,0.01145,"
#define ROW_CFG  "\"{\"\"dtype\"\": \"\"torch.bfloat16\"\", \"\"seq_len\"\": 2048}\","
#define ROW_TAIL "NVIDIA A100-SXM4-80GB,2024-09-03 15:39:55,0.2.1"

KIX_TEST(good_row_template)
{
    struct kix_liger_run run;
    struct kix_err err = {0};
    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_OK, build_row(ROW_HEAD ROW_Y ROW_CFG ROW_TAIL, NULL, &run, &err));
    ASSERT_EQ_STR("rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-seq2048-bf16/"
                  "2024-09-03-15-39-55",
                  run.external_id);
    kix_liger_run_release(&run);
}

KIX_TEST(bad_rows_named_with_line)
{
    expect_bad(ROW_HEAD ROW_Y ROW_CFG "NVIDIA A100-SXM4-80GB,2024-09-03 15:39:55",
               "14 fields, but the header has 15");
    expect_bad(ROW_HEAD "abc,0.01,0.01," ROW_CFG ROW_TAIL, "y_value_50 'abc' is not a number");
    expect_bad(ROW_HEAD "0.01,-1,0.01," ROW_CFG ROW_TAIL, "y_value_20 '-1' is not a number >= 0");
    expect_bad(ROW_HEAD "0.01,0.01,nan," ROW_CFG ROW_TAIL, "y_value_80 'nan'");
    expect_bad(ROW_HEAD ROW_Y "\"{\"\"B\"\": 8,}\"," ROW_TAIL,
               "extra_benchmark_config_str is not JSON");
    expect_bad(ROW_HEAD ROW_Y "\"{\"\"B\"\": 8, \"\"B\"\": 9}\"," ROW_TAIL,
               "extra_benchmark_config_str is not JSON");
    expect_bad(ROW_HEAD ROW_Y "\"[1, 2]\"," ROW_TAIL, "is JSON but not an object");
    expect_bad(ROW_HEAD ROW_Y "\"{\"\"B\"\": 9007199254740993}\"," ROW_TAIL, "2^53");
    expect_bad(ROW_HEAD ROW_Y ROW_CFG "NVIDIA A100-SXM4-80GB,2024-02-30 15:39:55,0.2.1",
               "timestamp '2024-02-30 15:39:55' is not a time");
    expect_bad(ROW_HEAD ROW_Y ROW_CFG "NVIDIA A100-SXM4-80GB,2024-09-03T15:39:55,0.2.1",
               "timestamp");
    expect_bad("rope,liger,sideways,speed,ms,H,hidden size,512," ROW_Y ROW_CFG ROW_TAIL,
               "kernel_operation_mode 'sideways'");
    expect_bad("rope,liger,forward,speed,s,H,hidden size,512," ROW_Y ROW_CFG ROW_TAIL,
               "metric 'speed' in 's' is not supported");
    expect_bad("rope/x,liger,forward,speed,ms,H,hidden size,512," ROW_Y ROW_CFG ROW_TAIL,
               "kernel_name 'rope/x'");
    expect_bad("rope,liger,forward,speed,ms,H,hidden size,5 12," ROW_Y ROW_CFG ROW_TAIL,
               "x_value '5 12'");
    expect_bad(ROW_HEAD ROW_Y "\"{\"\"dtype\"\": 16}\"," ROW_TAIL, "config dtype");
    expect_bad(ROW_HEAD ROW_Y ROW_CFG ",2024-09-03 15:39:55,0.2.1", "gpu_name");
    expect_bad(ROW_HEAD ROW_Y ROW_CFG "NVIDIA A100-SXM4-80GB,2024-09-03 15:39:55,0.2 1",
               "liger_version");
}

KIX_TEST(unknown_gpu_and_provider)
{
    static const char want[] =
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"ExecutionEnvironment\","
        "\"metadata\":{\"name\":\"liger-bench-amd-instinct-mi300x\",\"title\":\"Liger "
        "benchmark host \xc2\xb7 AMD Instinct MI300X\"},\"spec\":{\"hardware\":{"
        "\"product\":\"AMD Instinct MI300X\",\"vendor\":\"amd\"},\"software\":{}}}";
    struct kix_liger_run run;
    struct kix_err err = {0};
    kix_liger_run_init(&run);
    ASSERT_EQ_INT(KIX_OK, build_row("rope,newlib,forward,speed,ms,H,hidden size,512," ROW_Y ROW_CFG
                                    "AMD Instinct MI300X,2026-01-02 03:04:05,0.9.0",
                                    NULL, &run, &err));
    ASSERT_EQ_STR("rope/forward/newlib/amd-instinct-mi300x/hidden512-seq2048-bf16/"
                  "2026-01-02-03-04-05",
                  run.external_id);
    ASSERT_EQ_MEM(want, strlen(want), run.canon[KIX_LIGER_ENVIRONMENT].ptr,
                  run.canon[KIX_LIGER_ENVIRONMENT].len);
    kix_liger_run_release(&run);
}

/* The whole upstream file: every row builds, external and run ids are
 * unique, shared objects collapse to the expected counts, and every GPU
 * gets an architecture. */
KIX_TEST(full_csv_builds)
{
    size_t len = 0, rows = 0;
    char *text = kix_test_read_file("data/liger/all_benchmark_data.csv", &len);
    struct kix_csv c;
    struct kix_csv_record rec;
    struct kix_liger_header h;
    struct kix_liger_cache *cache = NULL;
    struct kix_liger_run run;
    struct kix_err err = {0};
    json_t *ids = json_object(), *runids = json_object(), *kinds[4];
    int rc;

    ASSERT_TRUE(text != NULL);
    ASSERT_EQ_U64(646261, len);
    for (int k = 0; k < 4; k++)
        kinds[k] = json_object();
    ASSERT_EQ_INT(KIX_OK, kix_liger_cache_new(&cache));
    kix_liger_run_init(&run);
    kix_csv_init(&c, text, len);
    ASSERT_EQ_INT(1, kix_csv_next(&c, &rec, &err));
    ASSERT_EQ_INT(KIX_OK, kix_liger_header_parse(&rec, &h, &err));
    while ((rc = kix_csv_next(&c, &rec, &err)) == 1) {
        char d[KIX_DIGEST_TEXT_LEN + 1];
        rows++;
        rc = kix_liger_build(cache, &h, &rec, &run, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        ASSERT_EQ_INT(KIX_OK, rc);
        ASSERT_TRUE(json_object_get(ids, run.external_id) == NULL);
        ASSERT_TRUE(json_object_get(runids, run.run_id) == NULL);
        json_object_set_new(ids, run.external_id, json_true());
        json_object_set_new(runids, run.run_id, json_true());
        for (int k = 0; k < 4; k++) {
            kix_digest_format(&run.digest[k], d);
            json_object_set_new(kinds[k], d, json_true());
        }
        ASSERT_TRUE(strstr((const char *)run.canon[KIX_LIGER_ENVIRONMENT].ptr,
                           "\"architecture\":\"sm_") != NULL);
    }
    ASSERT_EQ_INT(0, rc);
    ASSERT_EQ_U64(2448, rows);
    ASSERT_EQ_U64(2448, json_object_size(ids));
    ASSERT_EQ_U64(6, json_object_size(kinds[KIX_LIGER_PROTOCOL]));
    /* 244 row shapes, 241 workloads: three shapes are measured in two
     * sweeps each, one workload each since the sweep is the run's, not the
     * workload's (issue 37.5): rope's and llama4_rope's hidden = 8192,
     * seq = 2048 (their H and T sweeps) and fused_moe's experts = 128,
     * tokens = 8192 (its E and T sweeps) */
    ASSERT_EQ_U64(241, json_object_size(kinds[KIX_LIGER_WORKLOAD]));
    ASSERT_EQ_U64(6, json_object_size(kinds[KIX_LIGER_ENVIRONMENT]));
    ASSERT_EQ_U64(12, json_object_size(kinds[KIX_LIGER_IMPLEMENTATION]));
    ASSERT_EQ_U64(6 + 244 + 6 + 12, kix_liger_cache_size(cache));
    for (int k = 0; k < 4; k++)
        json_decref(kinds[k]);
    json_decref(ids);
    json_decref(runids);
    kix_liger_run_release(&run);
    kix_liger_cache_free(cache);
    kix_csv_release(&c);
    free(text);
}

KIX_TEST_MAIN()
