/* The KernelBench reader (kix/kernelbench.h): the bundled sample's rows
 * become runs every record check accepts; a null entry is skipped with its
 * reason; each malformed row is refused with its JSON pointer while the
 * file's other rows still build; the GPU is the row's; the workload is
 * bound to its problem file by digest, with the file's sizes; and a timing
 * whose primary statistic is the mean is ranked by its mean. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kix/kernelbench.h"
#include "kix/manifest.h"
#include "kix/record_rules.h"
#include "kix/schema.h"

#define SAMPLE KIX_TEST_DATA "/../tools/samples/kernelbench"

/* A whole file (an absolute path) as a NUL-terminated string, or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)n + 1)) != NULL) {
        if (fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        } else {
            data[n] = '\0';
            if (len)
                *len = (size_t)n;
        }
    }
    fclose(f);
    return data;
}

static struct kix_kb_problems *sample_problems(void)
{
    struct kix_kb_problems *p = NULL;
    struct kix_err err = {0};
    if (kix_kb_problems_load(SAMPLE "/problems.json", &p, &err) != KIX_OK)
        fprintf(stderr, "problems: %s\n", err.msg);
    return p;
}

static json_t *canon_json(const struct kix_liger_run *run, int which)
{
    return json_loadb((const char *)run->canon[which].ptr, run->canon[which].len, 0, NULL);
}

/* Every object of a built run passes the schemas and the record rules. */
static int records_valid(const struct kix_liger_run *run)
{
    for (int k = 0; k < KIX_LIGER_NOBJECTS; k++) {
        struct kix_err err = {0};
        json_t *o = canon_json(run, k);
        int rc = o ? kix_record_validate(o, NULL, &err) : KIX_EINVAL;
        if (rc == KIX_OK)
            rc = kix_record_rules_check(o, (int64_t)time(NULL), &err);
        if (rc)
            fprintf(stderr, "object %d of %s: %s\n", k, run->external_id, err.msg);
        json_decref(o);
        if (rc)
            return 0;
    }
    return 1;
}

/* Opens a timing file's text under a path naming its directory. */
static struct kix_kb_file *open_text(const char *path, const char *text,
                                     const struct kix_kb_problems *p)
{
    struct kix_kb_file *f = NULL;
    struct kix_err err = {0};
    if (kix_kb_open(path, text, strlen(text), p, &f, &err) != KIX_OK)
        fprintf(stderr, "open %s: %s\n", path, err.msg);
    return f;
}

KIX_TEST(sample_rows_are_valid_runs)
{
    static const char *const files[] = {
        "H100_together/baseline_time_torch.json",
        "H100_together/baseline_time_torch_compile_cudagraphs.json",
        "H100_together/baseline_time_torch_compile_inductor_default.json",
        "H100_together/baseline_time_torch_compile_inductor_max-autotune-no-cudagraphs.json",
        "H100_together/baseline_time_torch_compile_inductor_max-autotune.json",
        "H100_together/baseline_time_torch_compile_inductor_reduce-overhead.json",
        "A10G_modal/baseline_time_torch.json",
        "A10G_modal/baseline_time_torch_compile_inductor_default.json",
        "L40S_matx3/baseline_time_torch.json",
        "L40S_modal/baseline_time_torch.json"};
    struct kix_kb_problems *p = sample_problems();
    struct kix_liger_run run;
    size_t runs = 0, skipped = 0;

    ASSERT_TRUE(p != NULL);
    ASSERT_EQ_U64(5, kix_kb_problems_count(p));
    kix_liger_run_init(&run);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[512];
        char *text;
        struct kix_kb_file *f;
        snprintf(path, sizeof(path), SAMPLE "/results/timing/%s", files[i]);
        text = slurp(path, NULL);
        ASSERT_TRUE(text != NULL);
        f = open_text(path, text, p);
        ASSERT_TRUE(f != NULL);
        for (size_t r = 0; r < kix_kb_rows(f); r++) {
            struct kix_kb_row row;
            struct kix_err err = {0};
            int rc = kix_kb_row(f, r, 1, &run, &row, &err);
            if (rc == KIX_KB_SKIP) {
                /* the two nulls: VanillaRNN under max-autotune and reduce-overhead */
                ASSERT_EQ_STR("/level3/33_VanillaRNN.py", row.pointer);
                ASSERT_TRUE(strstr(err.msg, "null") != NULL);
                skipped++;
                continue;
            }
            if (rc)
                fprintf(stderr, "%s %s: %s\n", files[i], row.pointer, err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
            ASSERT_TRUE(records_valid(&run));
            runs++;
        }
        kix_kb_close(f);
        free(text);
    }
    ASSERT_EQ_U64(48, runs);
    ASSERT_EQ_U64(2, skipped);
    kix_liger_run_release(&run);
    kix_kb_problems_free(p);
}

/* A row of each fault, and one good row, in one file. */
static const char malformed[] =
    "{\"level1\": {"
    "\"1_Square_matrix_multiplication_.py\": {\"std\": 0.1, \"min\": 1.0, \"max\": 2.0, "
    "\"num_trials\": 100, \"hardware\": \"NVIDIA H100 80GB HBM3\", \"device\": \"cuda:0\"},"
    "\"2_Standard_matrix_multiplication_.py\": {\"mean\": \"0.39\", \"std\": 0.1, \"min\": 0.3, "
    "\"max\": 0.5, \"num_trials\": 100, \"hardware\": \"NVIDIA H100 80GB HBM3\", \"device\": "
    "\"cuda:0\"},"
    "\"23_Softmax.py\": {\"mean\": -0.5, \"std\": 0.1, \"min\": -1, \"max\": 0.5, "
    "\"num_trials\": 100, \"hardware\": \"NVIDIA H100 80GB HBM3\", \"device\": \"cuda:0\"},"
    "\"40_LayerNorm.py\": {\"mean\": 0.5, \"std\": 0.1, \"min\": 0.4, \"max\": 0.6, "
    "\"num_trials\": 0, \"hardware\": \"NVIDIA H100 80GB HBM3\", \"device\": \"cuda:0\"}},"
    "\"level3\": {\"33_VanillaRNN.py\": {\"mean\": 0.25, \"std\": 0.01, \"min\": 0.2, \"max\": "
    "0.3, \"num_trials\": 100, \"hardware\": \"NVIDIA H100 80GB HBM3\", \"device\": "
    "\"cuda:0\"}}}";

KIX_TEST(malformed_rows_named_by_pointer)
{
    static const char *const want[] = {
        "/level1/1_Square_matrix_multiplication_.py/mean: missing",
        "/level1/2_Standard_matrix_multiplication_.py/mean: must be a number of milliseconds, "
        "not a string",
        "/level1/23_Softmax.py/mean: -0.5 is negative",
        "/level1/40_LayerNorm.py/num_trials: must be a whole number of trials, 1 or more",
    };
    struct kix_kb_problems *p = sample_problems();
    struct kix_kb_file *f = open_text("x/H100_together/baseline_time_torch.json", malformed, p);
    struct kix_liger_run run;
    struct kix_kb_row row;
    struct kix_err err = {0};

    ASSERT_TRUE(f != NULL);
    ASSERT_EQ_U64(5, kix_kb_rows(f));
    kix_liger_run_init(&run);
    for (size_t i = 0; i < 4; i++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(KIX_EINVAL, kix_kb_row(f, i, 1, &run, &row, &err));
        if (strncmp(err.msg, want[i], strlen(want[i])) != 0)
            fprintf(stderr, "row %zu: %s\n", i, err.msg);
        ASSERT_TRUE(strncmp(err.msg, want[i], strlen(want[i])) == 0);
    }
    /* the file's other row still builds */
    ASSERT_EQ_INT(KIX_OK, kix_kb_row(f, 4, 1, &run, &row, &err));
    ASSERT_EQ_STR("/level3/33_VanillaRNN.py", row.pointer);
    ASSERT_EQ_INT(3, row.level);
    ASSERT_EQ_INT(33, row.number);
    ASSERT_TRUE(records_valid(&run));
    kix_liger_run_release(&run);
    kix_kb_close(f);
    kix_kb_problems_free(p);
}

KIX_TEST(file_shape_refused)
{
    struct kix_kb_problems *p = sample_problems();
    struct kix_kb_file *f = NULL;
    struct kix_err err = {0};
    const char *ok = "{}";

    ASSERT_EQ_INT(KIX_EINVAL, kix_kb_open("baseline_time_torch.json", ok, 2, p, &f, &err));
    ASSERT_TRUE(strstr(err.msg, "<GPU>_<host>") != NULL);
    ASSERT_EQ_INT(KIX_EINVAL,
                  kix_kb_open("H100_together/baseline_time_jax.json", ok, 2, p, &f, &err));
    ASSERT_TRUE(strstr(err.msg, "unknown configuration 'jax'") != NULL);
    ASSERT_EQ_INT(KIX_EINVAL,
                  kix_kb_open("H100_together/baseline_time_torch.json", "[1]", 3, p, &f, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_kb_open("H100_together/baseline_time_torch.json",
                                          "{\"level1\": [", 12, p, &f, &err));
    ASSERT_TRUE(strstr(err.msg, "not JSON") != NULL);
    kix_kb_problems_free(p);
}

static json_t *row_object(const char *dir, const char *config, const char *problem, int which)
{
    struct kix_kb_problems *p = sample_problems();
    char path[256], *text;
    struct kix_kb_file *f;
    struct kix_liger_run run;
    struct kix_kb_row row;
    struct kix_err err = {0};
    json_t *o = NULL;

    snprintf(path, sizeof(path), SAMPLE "/results/timing/%s/baseline_time_%s.json", dir, config);
    text = slurp(path, NULL);
    f = text ? open_text(path, text, p) : NULL;
    kix_liger_run_init(&run);
    for (size_t i = 0; f && i < kix_kb_rows(f); i++)
        if (kix_kb_row(f, i, 1, &run, &row, &err) == KIX_OK && strcmp(row.problem, problem) == 0)
            o = canon_json(&run, which);
    kix_liger_run_release(&run);
    kix_kb_close(f);
    free(text);
    kix_kb_problems_free(p);
    return o;
}

static const char *str_at(json_t *o, const char *ptr)
{
    json_t *v = o;
    char part[128];
    while (v && *ptr == '/') {
        size_t n = strcspn(ptr + 1, "/");
        snprintf(part, sizeof(part), "%.*s", (int)n, ptr + 1);
        v = json_object_get(v, part);
        ptr += n + 1;
    }
    return json_string_value(v);
}

KIX_TEST(gpu_is_the_rows)
{
    /* under A10G_modal: problem 1 ran on an A10G (a 300 W limit in the
     * table), problem 2 on an A10, which stays an A10 */
    json_t *a10g = row_object("A10G_modal", "torch", "1_Square_matrix_multiplication_.py",
                              KIX_LIGER_ENVIRONMENT);
    json_t *a10 = row_object("A10G_modal", "torch", "2_Standard_matrix_multiplication_.py",
                             KIX_LIGER_ENVIRONMENT);
    json_t *matx3 = row_object("L40S_matx3", "torch", "23_Softmax.py", KIX_LIGER_ENVIRONMENT);
    json_t *modal = row_object("L40S_modal", "torch", "23_Softmax.py", KIX_LIGER_ENVIRONMENT);

    ASSERT_TRUE(a10g && a10 && matx3 && modal);
    ASSERT_EQ_STR("NVIDIA A10G", str_at(a10g, "/spec/hardware/product"));
    ASSERT_EQ_STR("300 W", str_at(a10g, "/metadata/labels/powerLimit"));
    ASSERT_EQ_STR("NVIDIA A10", str_at(a10, "/spec/hardware/product"));
    ASSERT_TRUE(str_at(a10, "/metadata/labels/powerLimit") == NULL);
    ASSERT_EQ_STR("Modal", str_at(a10, "/metadata/labels/host"));
    /* one GPU on two hosts: two environments (300 W and 350 W) */
    ASSERT_EQ_STR("Stanford matx3", str_at(matx3, "/metadata/labels/host"));
    ASSERT_EQ_STR("300 W", str_at(matx3, "/metadata/labels/powerLimit"));
    ASSERT_EQ_STR("350 W", str_at(modal, "/metadata/labels/powerLimit"));
    ASSERT_EQ_STR("12.4", str_at(modal, "/spec/software/cudaVersion"));
    ASSERT_EQ_STR("2.5.0+cu124", str_at(modal, "/spec/software/frameworks/torch"));
    json_decref(a10g);
    json_decref(a10);
    json_decref(matx3);
    json_decref(modal);
}

KIX_TEST(workload_protocol_run)
{
    json_t *w = row_object("H100_together", "torch", "23_Softmax.py", KIX_LIGER_WORKLOAD);
    json_t *p = row_object("H100_together", "torch", "23_Softmax.py", KIX_LIGER_PROTOCOL);
    json_t *i = row_object("H100_together", "torch_compile_inductor_max-autotune", "23_Softmax.py",
                           KIX_LIGER_IMPLEMENTATION);
    json_t *r = row_object("H100_together", "torch", "23_Softmax.py", KIX_LIGER_RUN);

    ASSERT_TRUE(w && p && i && r);
    /* the kernel the index names (its page joins Liger's softmax), bound to
     * the problem file by the file's SHA-256, with the file's sizes */
    ASSERT_EQ_STR("softmax", str_at(w, "/spec/kernel"));
    ASSERT_EQ_STR("34ba0b50b1b42a5ecbb00ef04cf1f67f31f3b1fbf84c24aa8b00678d91aa0d5c",
                  str_at(w, "/spec/config/sha256"));
    ASSERT_EQ_STR("Softmax", str_at(w, "/spec/config/name"));
    ASSERT_EQ_INT(16,
                  (int)json_integer_value(json_object_get(
                      json_object_get(json_object_get(w, "spec"), "parameters"), "batch_size")));
    ASSERT_EQ_INT(16384, (int)json_integer_value(json_object_get(
                             json_object_get(json_object_get(w, "spec"), "parameters"), "dim")));
    ASSERT_EQ_STR("mean", str_at(p, "/spec/measurement/primaryStatistic"));
    ASSERT_EQ_STR("kernelbench_baseline", str_at(p, "/spec/comparability/family"));
    ASSERT_EQ_STR("torch.compile (inductor, max-autotune)", str_at(i, "/spec/name"));
    ASSERT_EQ_STR("mean", str_at(r, "/spec/timing/primaryStatistic"));
    ASSERT_EQ_STR("softmax/forward", str_at(r, "/spec/sourceNative/benchmark"));
    ASSERT_EQ_STR(KIX_KB_SOURCE, str_at(r, "/spec/sourceNative/source"));
    ASSERT_EQ_STR("kernelbench/H100_together/torch/level1/23_Softmax",
                  str_at(r, "/spec/sourceNative/externalId"));
    /* 0.0134 ms → 13400 ns */
    ASSERT_EQ_INT(13400, (int)json_integer_value(json_object_get(
                             json_object_get(json_object_get(json_object_get(r, "spec"), "timing"),
                                             "latencyNs"),
                             "mean")));
    json_decref(w);
    json_decref(p);
    json_decref(i);
    json_decref(r);
}

KIX_TEST(mean_primary_ranked_by_mean)
{
    json_t *r = row_object("H100_together", "torch", "23_Softmax.py", KIX_LIGER_RUN);
    struct kix_digest k1, k2;
    uint64_t v1 = 0, v2 = 0;
    char m1[16], m2[16], *text;
    struct kix_err err = {0};
    json_t *timing;

    ASSERT_TRUE(r != NULL);
    text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    ASSERT_TRUE(text != NULL);
    ASSERT_EQ_INT(KIX_OK,
                  kix_run_comparison_key((const uint8_t *)text, strlen(text), &k1, &v1, m1));
    ASSERT_EQ_INT(KIX_OK, kix_run_comparison_key_canonical((const uint8_t *)text, strlen(text), &k2,
                                                           &v2, m2));
    free(text);
    ASSERT_EQ_U64(13400, v1);
    ASSERT_EQ_U64(13400, v2);
    ASSERT_TRUE(memcmp(k1.b, k2.b, sizeof(k1.b)) == 0);
    ASSERT_EQ_STR("latency", m1);
    /* a timing that names the mean must hold it */
    timing = json_object_get(json_object_get(json_object_get(r, "spec"), "timing"), "latencyNs");
    json_object_del(timing, "mean");
    ASSERT_TRUE(kix_record_rules_check(r, (int64_t)time(NULL), &err) != KIX_OK);
    ASSERT_TRUE(strstr(err.msg, "/spec/timing/latencyNs/mean: is missing") != NULL);
    json_decref(r);
}

/* A file's shared objects come from its cache after the first row: the
 * same bytes as a fresh build. */
KIX_TEST(cached_objects_are_the_same_bytes)
{
    struct kix_kb_problems *p = sample_problems();
    char path[512], *text;
    struct kix_kb_file *f, *g;
    struct kix_liger_run a, b;
    struct kix_kb_row row;
    struct kix_err err = {0};

    snprintf(path, sizeof(path), SAMPLE "/results/timing/A10G_modal/baseline_time_torch.json");
    text = slurp(path, NULL);
    ASSERT_TRUE(text != NULL);
    f = open_text(path, text, p);
    ASSERT_TRUE(f != NULL && kix_kb_rows(f) == 5);
    kix_liger_run_init(&a);
    kix_liger_run_init(&b);
    for (size_t i = 0; i < kix_kb_rows(f); i++) /* fills the cache (A10 and A10G) */
        ASSERT_EQ_INT(KIX_OK, kix_kb_row(f, i, 1, &a, &row, &err));
    for (size_t i = 0; i < kix_kb_rows(f); i++) {
        g = open_text(path, text, p); /* a fresh cache */
        ASSERT_EQ_INT(KIX_OK, kix_kb_row(f, i, 1, &a, &row, &err));
        ASSERT_EQ_INT(KIX_OK, kix_kb_row(g, i, 1, &b, &row, &err));
        for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
            ASSERT_EQ_MEM(b.canon[k].ptr, b.canon[k].len, a.canon[k].ptr, a.canon[k].len);
        kix_kb_close(g);
    }
    kix_liger_run_release(&a);
    kix_liger_run_release(&b);
    kix_kb_close(f);
    free(text);
    kix_kb_problems_free(p);
}

KIX_TEST(problem_sizes_read)
{
    char dir[] = "/tmp/kix-kb-XXXXXX", path[256];
    struct kix_kb_problems *p = NULL;
    struct kix_err err = {0};
    FILE *f;
    char *text;
    json_t *idx, *params;

    ASSERT_TRUE(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/level2", dir);
    ASSERT_EQ_INT(0, mkdir(path, 0755));
    snprintf(path, sizeof(path), "%s/level2/7_Conv.py", dir);
    f = fopen(path, "w");
    ASSERT_TRUE(f != NULL);
    fputs("import torch\nclass Model:\n    inner = 5\nbatch_size = 16\nscale = 0.5  # s\n"
          "kernel_size = (3, 5)  # Asymmetric kernel\nbias = False\nbatch_size = 32\n"
          "x == 3\n",
          f);
    fclose(f);
    ASSERT_EQ_INT(KIX_OK, kix_kb_problems_load(dir, &p, &err));
    snprintf(path, sizeof(path), "%s/index.json", dir);
    ASSERT_EQ_INT(KIX_OK, kix_kb_problems_save(p, path, &err));
    text = slurp(path, NULL);
    ASSERT_TRUE(text != NULL);
    idx = json_loads(text, 0, NULL);
    params = json_object_get(json_object_get(idx, "level2/7_Conv.py"), "parameters");
    ASSERT_EQ_INT(32, (int)json_integer_value(json_object_get(params, "batch_size")));
    ASSERT_TRUE(json_real_value(json_object_get(params, "scale")) == 0.5);
    ASSERT_EQ_STR("(3, 5)", json_string_value(json_object_get(params, "kernel_size")));
    ASSERT_TRUE(json_is_false(json_object_get(params, "bias")));
    ASSERT_TRUE(json_object_get(params, "inner") == NULL);
    ASSERT_EQ_U64(4, json_object_size(params));
    json_decref(idx);
    free(text);
    kix_kb_problems_free(p);
    unlink(path);
    snprintf(path, sizeof(path), "%s/level2/7_Conv.py", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/level2", dir);
    rmdir(path);
    rmdir(dir);
}

KIX_TEST_MAIN()
