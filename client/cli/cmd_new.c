/* kix new run: a complete bundle skeleton a publisher edits and publishes
 * (run, protocol, workload, environment, implementation, and a README that
 * explains each field). No log is read or written. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "kix/entries.h"
#include "kix/file.h"
#include "kix/record_rules.h"
#include "kix/vocabulary.h"
#include "new_like.h"
#include "new_near.h"
#include "vocab_check.h"

#define API_VERSION "kernelindex.dev/v1alpha1"
#define MAX_PARAMS  32

static const struct kix_opt new_opts[] = {
    KIX_NOTE("\n"
             "With --like RUN (a run id or permalink) or --group KEY (a comparison key,\n"
             "sha256:HEX, as kix show and kix query --json print it), the bundle joins that\n"
             "run's comparison group: run.json reuses the group's workload, protocol and\n"
             "environment by digest, its benchmark and metric, read from a run the log\n"
             "resolves and kix verifies (as kix show does); only implementation.json and\n"
             "the figures are left to fill in. kix publish then ranks it in that group.\n"
             "\n"
             "Writes a complete run bundle into DIR for you to edit and publish: run.json\n"
             "(the measurement: median, p20 and p80 in nanoseconds, status, observedAt),\n"
             "workload.json (the kernel, dtype and parameters), protocol.json (how it was\n"
             "timed), environment.json (GPU, driver, CUDA/ROCm, framework versions),\n"
             "implementation.json (whose code, which revision), and README.md, which says\n"
             "what each field means. run.json names the other four by file; kix publish\n"
             "fills in their digests itself, so after editing the figures, kix publish\n"
             "with your key and DIR/run.json publishes the bundle. The figures are 0\n"
             "until you write yours in, and the log refuses the template as it is: its\n"
             "0 figures, its marker (the label kix-template in run.json) and its\n"
             "placeholder texts (protocol.json's harness name and notes) must go.\n"
             "\n"
             "Such a bundle makes new protocol and environment objects, so it joins no\n"
             "existing comparison group: it ranks 1 of 1. When a log is named (--store,\n"
             "--server, $KIX_SERVER), kix new run reads the log's ranked latency runs of\n"
             "the kernel (proven as kix query proves them) and names, on stderr, the\n"
             "closest groups (with --json: closeGroups), each with what differs (a\n"
             "parameter's name or value, the dtype, the pass, the GPU) and the kix new\n"
             "run --group command that writes a bundle joining it instead.\n"
             "\n"),
    KIX_ID("kernel", "K", 'k', "the kernel measured, e.g. rope, geglu (required)"),
    KIX_ID("gpu", "G", 'g',
           "the GPU as the driver names it, e.g. \"NVIDIA A100-SXM4-80GB\"\n"
           "(required); a GPU of the vocabulary is written as its product,\n"
           "form factor and architecture (\"NVIDIA A100\", SXM4-80GB, sm_80)"),
    KIX_ID("provider", "P", 'p', "whose implementation, e.g. liger, torch (default: unknown)"),
    {.kind = KIX_OPT_ID,
     .name = "pass",
     .arg = "P",
     .id = 'P',
     .complete = "forward backward full",
     .help = "the pass timed: forward, backward or full (default forward)"},
    KIX_ID("dtype", "T", 'd',
           "the data type, e.g. bf16, fp32 (default bf16; bfloat16,\n"
           "torch.float32 and the like are written the vocabulary's way)"),
    KIX_ID("family", "F", 'F',
           "the protocol family, spec.comparability.family (default:\n"
           "the provider), e.g. liger_kernel_bench"),
    KIX_ID("param", "N=V", 'x', "a workload parameter (repeatable); numbers stay numbers"),
    KIX_ID("repository", "URL", 'r', "the implementation's source repository"),
    KIX_ID("revision", "REV", 'R', "the implementation's revision (a commit or release)"),
    KIX_ID("source", "TEXT", 's',
           "who measured it, for sourceNative.source (default: the provider)"),
    KIX_ID("like", "RUN", 'L',
           "join RUN's comparison group (needs the log: --server,\n"
           "--store, $KIX_SERVER; and its key: --log-key, $KIX_LOG_KEY)"),
    KIX_ID("group", "KEY", 'G', "join the comparison group KEY (the same)"),
    KIX_ID("median", "NS", 'm',
           "the median latency in ns (bytes for a peak-memory group):\n"
           "the figures are written in and the label kix-template left out"),
    KIX_ID("p20", "NS", '2', "the 20th percentile (with --median and --p80)"),
    KIX_ID("p80", "NS", '8', "the 80th percentile (with --median and --p20)"),
    KIX_ID("force", NULL, 'f', "overwrite the files of an existing bundle in DIR"),
    CLI_COMMON_OPTS, /* the log --like and --group read, and --json */
    KIX_NOTE("\n"
             "exit status: 0 written, 1 DIR already holds a bundle (see --force), 2 usage,\n"
             "3 I/O error\n"),
};
static const struct kix_cmd new_cmd = {
    .prog = "kix new",
    .usage = "run --kernel K --gpu G [--provider P] [--pass forward|backward|full]\n"
             "[--dtype T] [--param NAME=VALUE...] [--repository URL]\n"
             "[--revision REV] [--source TEXT] [--median NS [--p20 NS --p80 NS]]\n"
             "[--force] [options] DIR\n"
             "kix new run --like RUN | --group KEY [--provider P] [--repository URL]\n"
             "[--revision REV] [--source TEXT] [--median NS [--p20 NS --p80 NS]]\n"
             "[--force] [options] DIR",
    KIX_CMD_OPTS(new_opts),
    .column = 19};

static const char readme[] =
    "# A kix run bundle\n"
    "\n"
    "Written by `kix new run`. Edit the figures and the descriptions, remove\n"
    "the label `kix-template` from `run.json` (the log refuses the template as\n"
    "it is: a median of 0, quantiles out of order, an `observedAt` in the\n"
    "future and the placeholder texts are refused too), then\n"
    "\n"
    "    kix publish --key YOUR.key run.json\n"
    "\n"
    "`run.json` names the other files in its `spec.*Digest` fields\n"
    "(`\"workloadDigest\": \"workload.json\"`); `kix publish` reads each, sends it\n"
    "with the run and writes its `sha256:` digest in its place. You never compute\n"
    "a digest by hand. Every duration is an integer number of nanoseconds and\n"
    "every size an integer number of bytes; timestamps are RFC 3339 in UTC\n"
    "(`2026-11-30T12:00:00Z`). The full field list is in `proto/schema/` and\n"
    "`proto/PROTOCOL.md` (section 5) of kix.\n"
    "\n"
    "## run.json (kind BenchmarkRun): the measurement\n"
    "\n"
    "- `spec.status`: `passed` when the kernel's output was checked and correct,\n"
    "  `failed` when not.\n"
    "- `spec.observedAt`: when you measured (not when you publish; the\n"
    "  publication records that itself).\n"
    "- `spec.timing.latencyNs.median`: the median latency in nanoseconds: the\n"
    "  figure the run is ranked by (lower is better). For a memory run use\n"
    "  `spec.memory.peakBytes.median` (bytes) instead of `spec.timing`.\n"
    "- `spec.timing.primaryStatistic`: `median`.\n"
    "- `spec.measurements`: further statistics, each `{metric, statistic, unit,\n"
    "  value}`: here p20 and p80 of the latency, in `ns`.\n"
    "- `spec.sourceNative`: what your own harness calls it: `source` (who\n"
    "  measured), `benchmark` (`<kernel>/<pass>`: runs are compared only with\n"
    "  runs of the same benchmark), optionally `externalId` (your own id for the\n"
    "  row) and `metrics` (your raw figures, in your units).\n"
    "- `spec.workloadDigest`, `spec.protocolDigest`, `spec.environmentDigest`,\n"
    "  `spec.implementationDigest`: the files below (or `sha256:` digests of\n"
    "  objects already in the log).\n"
    "- `metadata.name`, `metadata.title`: a short id and a title for people.\n"
    "\n"
    "Runs are ranked against runs with the same benchmark, workload, protocol,\n"
    "environment and metric: their comparison group.\n"
    "\n"
    "## workload.json (kind Workload): what was computed\n"
    "\n"
    "- `spec.kernel`: the kernel (`rope`, `geglu`, ...).\n"
    "- `spec.dtype`: the data type.\n"
    "- `spec.parameters`: every size that defines the problem (sequence length,\n"
    "  hidden size, heads, batch): two runs compare only on equal parameters.\n"
    "- `spec.tensors` (optional): the input tensors, `{name: {dtype, shape}}`.\n"
    "\n"
    "## protocol.json (kind BenchmarkProtocol): how it was measured\n"
    "\n"
    "- `spec.harness`: the benchmark script or tool (`name`, `repository`).\n"
    "- `spec.measurement`: `timer` (`cuda_events`, `cupti`, `wall_clock`), the\n"
    "  `primaryStatistic` (`median`), the `metric` (`latency` or `peak_memory`)\n"
    "  and the `pass` timed (`forward`, `backward`, `full`).\n"
    "- `spec.comparability`: a `family` name shared by runs timed the same way,\n"
    "  and `notes` on what was and was not timed (warm-up, iterations, syncs).\n"
    "\n"
    "## environment.json (kind ExecutionEnvironment): where it ran\n"
    "\n"
    "- `spec.hardware`: `vendor` (`nvidia`, `amd`, `intel`), `product` (the GPU\n"
    "  as the driver names it), optionally `architecture` (`sm_80`) and\n"
    "  `formFactor` (`SXM4-80GB`).\n"
    "- `spec.software`: what you know of `driver`, `cuda` or `rocm`, `torch`,\n"
    "  `triton` and other framework versions, as strings.\n"
    "\n"
    "## implementation.json (kind Implementation): whose code\n"
    "\n"
    "- `spec.provider`: the implementation's short name (`liger`, `torch`).\n"
    "- `spec.name`, `spec.project`: its name and the project it belongs to.\n"
    "- `spec.repository`, `spec.revision`: where its source is and which\n"
    "  commit or release was measured.\n"
    "\n"
    "## After publishing\n"
    "\n"
    "`kix publish` prints the run's permalink and digest and saves the receipt.\n"
    "A manifest is published once; a new measurement is a new `run.json` (a new\n"
    "`observedAt`, new figures), or, when every figure is the same, `kix publish\n"
    "--new-run`. A controlled rerun of someone's run is `kix rerun`, with a\n"
    "run.json of the same workload, protocol and implementation.\n";

struct new_args {
    const char *kernel, *gpu, *provider, *pass, *dtype, *repository, *revision, *source, *dir;
    const char *family;   /* spec.comparability.family (default: the provider's slug) */
    char dtype_short[32]; /* dtype as the vocabulary writes it */
    const char *like, *group;
    const struct new_like *joined; /* --like/--group: the group to join */
    const struct new_near *near;   /* else, with a log: the groups it comes close to */
    const struct cli_common *common;
    const char *param[MAX_PARAMS];
    size_t nparams;
    int force, json;
    uint64_t median, p20, p80; /* --median, --p20, --p80 (0: not given) */
};

/* "x y/z" → "x-y-z", lowercase: for metadata.name. */
static void slug(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    int dash = 0;

    for (; *in && n + 1 < cap; in++) {
        char c = *in;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n && n + 2 < cap)
                out[n++] = '-';
            out[n++] = c;
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
}

/* "1024" → 1024, "0.5" → 0.5, else the text. */
static json_t *param_value(const char *v)
{
    char *end;
    long long i;
    double d;

    errno = 0;
    i = strtoll(v, &end, 10);
    if (*v && !*end && errno == 0 && i > -9007199254740992LL && i < 9007199254740992LL)
        return json_integer(i);
    d = strtod(v, &end);
    if (*v && !*end && errno == 0)
        return json_real(d);
    return json_string(v);
}

/* workload.json's spec.parameters, from --param */
static json_t *params_object(const struct new_args *a)
{
    json_t *params = json_object();

    for (size_t i = 0; params && i < a->nparams; i++) {
        const char *eq = strchr(a->param[i], '=');
        char key[128];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - a->param[i]), a->param[i]);
        json_object_set_new(params, key, param_value(eq + 1));
    }
    return params;
}

static json_t *object(const char *kind, json_t *metadata, json_t *spec)
{
    return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", API_VERSION, "kind", kind, "metadata",
                     metadata, "spec", spec);
}

static json_t *measurement(const char *statistic, uint64_t value)
{
    return json_pack("{s:s, s:s, s:s, s:I}", "metric", "latency", "statistic", statistic, "unit",
                     "ns", "value", (json_int_t)value);
}

/* run.json's metadata: the template's label, unless --median gave the
 * figures (the run is then complete as far as its figures go) */
static json_t *run_metadata(const struct new_args *a, const char *name, json_t *title)
{
    json_t *m = json_pack("{s:s, s:o}", "name", name, "title", title);

    if (m && !a->median)
        json_object_set_new(m, "labels",
                            json_pack("{s:s}", KIX_TEMPLATE_LABEL,
                                      "remove this label once the figures are yours: the log "
                                      "refuses it"));
    return m;
}

/* implementation.json: --provider, --repository, --revision */
static json_t *implementation(const struct new_args *a, const char *pslug)
{
    json_t *impl = json_pack("{s:s, s:s, s:s}", "provider", a->provider, "name", a->provider,
                             "project", a->provider);
    if (impl && a->repository)
        json_object_set_new(impl, "repository", json_string(a->repository));
    if (impl && a->revision)
        json_object_set_new(impl, "revision", json_string(a->revision));
    return object("Implementation", json_pack("{s:s, s:s}", "name", pslug, "title", a->provider),
                  impl);
}

static int build(const struct new_args *a, json_t *files[5])
{
    char kslug[64], gslug[96], pslug[64], name[256], now[32];
    const char *vendor = strncmp(a->gpu, "NVIDIA", 6) == 0  ? "nvidia"
                         : strncmp(a->gpu, "AMD", 3) == 0   ? "amd"
                         : strncmp(a->gpu, "Intel", 5) == 0 ? "intel"
                                                            : "unknown";
    const struct kix_vocab_gpu *known = kix_vocab_gpu(a->gpu);
    json_t *params = params_object(a), *hw;

    kix_now_rfc3339(now);
    slug(a->kernel, kslug, sizeof(kslug));
    slug(a->gpu, gslug, sizeof(gslug));
    slug(a->provider, pslug, sizeof(pslug));
    snprintf(name, sizeof(name), "%s-%s-%s-%s", kslug, pslug, a->pass, gslug);
    files[0] = object(
        "BenchmarkRun",
        run_metadata(
            a, name,
            json_pack("s++++++", a->kernel, " · ", a->provider, " · ", a->pass, " · ", a->gpu)),
        json_pack("{s:s, s:s, s:{s:{s:I}, s:s}, s:[o, o], s:{s:s, s:s++}, s:s, s:s, s:s, s:s}",
                  "status", "passed", "observedAt", now, "timing", "latencyNs", "median",
                  (json_int_t)a->median, "primaryStatistic", "median", "measurements",
                  measurement("p20", a->p20), measurement("p80", a->p80), "sourceNative", "source",
                  a->source ? a->source : a->provider, "benchmark", a->kernel, "/", a->pass,
                  "workloadDigest", "workload.json", "protocolDigest", "protocol.json",
                  "environmentDigest", "environment.json", "implementationDigest",
                  "implementation.json"));
    files[1] =
        object("Workload", json_pack("{s:s+, s:s}", "name", kslug, "-workload", "title", a->kernel),
               json_pack("{s:s, s:s, s:o}", "kernel", a->kernel, "dtype", a->dtype_short,
                         "parameters", params));
    files[2] =
        object("BenchmarkProtocol",
               json_pack("{s:s++, s:s++}", "name", pslug, "-bench-", a->pass, "title",
                         "benchmark harness · ", a->pass, " pass"),
               json_pack("{s:{s:s}, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s}}", "harness", "name",
                         kix_template_placeholders[0], "measurement", "timer", "cuda_events",
                         "primaryStatistic", "median", "metric", "latency", "pass", a->pass,
                         "comparability", "family", a->family ? a->family : pslug, "notes",
                         kix_template_placeholders[1]));
    hw = json_pack("{s:s, s:s}", "vendor", known ? known->vendor : vendor, "product",
                   known ? known->product : a->gpu);
    if (hw && known && known->form_factor)
        json_object_set_new(hw, "formFactor", json_string(known->form_factor));
    if (hw && known)
        json_object_set_new(hw, "architecture", json_string(known->arch));
    files[3] =
        object("ExecutionEnvironment", json_pack("{s:s, s:s}", "name", gslug, "title", a->gpu),
               json_pack("{s:o, s:{}}", "hardware", hw, "software"));
    if (files[0] && a->median && !a->p20) /* --median alone: no quantiles to write */
        json_object_del(json_object_get(files[0], "spec"), "measurements");
    files[4] = implementation(a, pslug);
    for (int i = 0; i < 5; i++)
        if (!files[i])
            return KIX_ENOMEM;
    return KIX_OK;
}

static const char like_readme_head[] =
    "# A kix run bundle that joins a comparison group\n"
    "\n"
    "Written by `kix new run --like`/`--group`. `run.json` reuses the group's\n"
    "workload, protocol and environment by digest (`spec.workloadDigest`,\n"
    "`spec.protocolDigest`, `spec.environmentDigest`: objects already in the\n"
    "log) and its `spec.sourceNative.benchmark`, so that kix publish ranks it in\n"
    "that group. Leave those as they are. Fill in `implementation.json` (whose\n"
    "code, which revision) and the figures in `run.json`, remove its label\n"
    "`kix-template`, then `kix publish --key YOUR.key run.json`.\n"
    "\n";

/* --like/--group: run.json naming the group's objects by digest, and
 * implementation.json; files[1..3] stay NULL (the log has them). */
static int build_like(const struct new_args *a, json_t *files[5])
{
    const struct new_like *j = a->joined;
    char pslug[64], bslug[128], name[256], now[32];
    int latency = strcmp(j->metric, "latency") == 0;
    json_t *spec, *refs;

    kix_now_rfc3339(now);
    slug(a->provider, pslug, sizeof(pslug));
    slug(j->benchmark, bslug, sizeof(bslug));
    snprintf(name, sizeof(name), "%s-%s", bslug, pslug);
    spec = json_pack("{s:s, s:s}", "status", "passed", "observedAt", now);
    if (spec && latency) {
        json_object_set_new(spec, "timing",
                            json_pack("{s:{s:I}, s:s}", "latencyNs", "median",
                                      (json_int_t)a->median, "primaryStatistic", "median"));
        if (!a->median || a->p20)
            json_object_set_new(
                spec, "measurements",
                json_pack("[o, o]", measurement("p20", a->p20), measurement("p80", a->p80)));
    } else if (spec) {
        json_object_set_new(spec, "memory",
                            json_pack("{s:{s:I}, s:s}", "peakBytes", "median",
                                      (json_int_t)a->median, "primaryStatistic", "median"));
    }
    refs =
        json_pack("{s:{s:s, s:s}, s:s, s:s, s:s, s:s}", "sourceNative", "source",
                  a->source ? a->source : a->provider, "benchmark", j->benchmark, "workloadDigest",
                  j->workload, "protocolDigest", j->protocol, "environmentDigest", j->environment,
                  "implementationDigest", "implementation.json");
    if (spec && refs)
        json_object_update(spec, refs);
    json_decref(refs);
    files[0] =
        object("BenchmarkRun",
               run_metadata(a, name, json_pack("s++", j->benchmark, " · ", a->provider)), spec);
    files[4] = implementation(a, pslug);
    return files[0] && files[4] ? KIX_OK : KIX_ENOMEM;
}

/* word, quoted for a shell when it needs it */
static void shell_word(FILE *f, const char *word)
{
    if (*word && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "@%+=:,./-_") == strlen(word)) {
        fputs(word, f);
        return;
    }
    fputc('\'', f);
    for (; *word; word++)
        if (*word == '\'')
            fputs("'\\''", f);
        else
            fputc(*word, f);
    fputc('\'', f);
}

/* The command that writes a bundle joining group into DIR (replacing the
 * one just written): the log options given, the provider. */
static void join_command(FILE *f, const struct new_args *a, const char *group)
{
    fprintf(f, "kix new run --group %s --provider ", group);
    shell_word(f, a->provider);
    if (a->common->store) {
        fputs(" --store ", f);
        shell_word(f, a->common->store);
    } else if (a->common->server) {
        fputs(" --server ", f);
        shell_word(f, a->common->server);
    }
    fputs(" --force ", f);
    shell_word(f, a->dir);
}

/* What kix new run found in the log: the groups of the same kernel it comes
 * close to joining and why it joins none (stderr), or as members of doc. */
static void near_report(const struct new_args *a, json_t *doc)
{
    const struct new_near *n = a->near;

    if (a->json) {
        json_t *close = json_array(), *g_json, *diffs;
        for (size_t i = 0; close && i < n->n; i++) {
            const struct new_near_group *g = &n->g[i];
            char *cmd = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&cmd, &len);
            if (m) {
                join_command(m, a, g->group);
                fclose(m);
            }
            diffs = json_array();
            for (size_t d = 0; diffs && d < g->ndiff && d < NEW_NEAR_DIFF; d++)
                json_array_append_new(diffs, json_pack("{s:s,s:o}", "kind", g->diff_kind[d], "text",
                                                       cli_jstr(g->diff[d], strlen(g->diff[d]))));
            g_json = json_pack("{s:s,s:I,s:o,s:o,s:o,s:I,s:o,s:o}", "group", g->group, "groupSize",
                               (json_int_t)g->size, "runId", cli_jstr(g->run_id, strlen(g->run_id)),
                               "gpu", cli_jstr(g->gpu, strlen(g->gpu)), "mode",
                               cli_jstr(g->mode, strlen(g->mode)), "differenceCount",
                               (json_int_t)g->ndiff, "differences", diffs, "join",
                               cli_jstr(cmd, cmd ? strlen(cmd) : 0));
            json_array_append_new(close, g_json);
            free(cmd);
        }
        json_object_set_new(doc, "closeGroups", close);
        json_object_set_new(doc, "kernelGroups", json_integer((json_int_t)n->groups));
        return;
    }
    if (!n->n) {
        fprintf(stderr,
                "kix new: the log ranks no latency run of kernel %s: this run will start a "
                "comparison group of its own\n",
                a->kernel);
        return;
    }
    fprintf(stderr,
            "kix new: warning: this bundle joins none of the log's %zu comparison group%s of %s "
            "latency runs, and will rank 1 of 1: its protocol.json and environment.json are new "
            "objects (only --like or --group reuse a group's), and the closest group%s "
            "differ%s as follows\n",
            n->groups, n->groups == 1 ? "" : "s", a->kernel, n->n == 1 ? "" : "s",
            n->n == 1 ? "s" : "");
    for (size_t i = 0; i < n->n; i++) {
        const struct new_near_group *g = &n->g[i];
        fprintf(stderr, "  group %s (%llu run%s; best %s, %s, %s): %s%zu difference%s\n", g->group,
                (unsigned long long)g->size, g->size == 1 ? "" : "s", g->provider, g->gpu, g->mode,
                g->ndiff ? "" : "the same workload, pass and GPU; ", g->ndiff,
                g->ndiff == 1 ? "" : "s");
        for (size_t d = 0; d < g->ndiff && d < NEW_NEAR_DIFF; d++)
            fprintf(stderr, "    - %s\n", g->diff[d]);
        if (g->ndiff > NEW_NEAR_DIFF)
            fprintf(stderr, "    - and %zu more\n", g->ndiff - NEW_NEAR_DIFF);
        fprintf(stderr, "    to join it: ");
        join_command(stderr, a, g->group);
        fputc('\n', stderr);
    }
}

static int write_bundle(const struct new_args *a)
{
    static const char *const names[5] = {"run.json", "workload.json", "protocol.json",
                                         "environment.json", "implementation.json"};
    json_t *files[5] = {NULL, NULL, NULL, NULL, NULL};
    char path[4096];
    struct kix_err err = {0};
    int status = 0, rc;
    struct stat st;

    if (mkdir(a->dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "kix new: creating %s: %s\n", a->dir, strerror(errno));
        return EXIT_INTERNAL;
    }
    for (int i = 0; i < 5 && !a->force; i++) {
        if (a->joined && i >= 1 && i <= 3)
            continue; /* not written */
        snprintf(path, sizeof(path), "%s/%s", a->dir, names[i]);
        if (stat(path, &st) == 0) {
            fprintf(stderr,
                    "kix new: %s already exists: DIR holds a bundle; pick another directory, or "
                    "--force to overwrite it\n",
                    path);
            return EXIT_REJECTED;
        }
    }
    if ((a->joined ? build_like(a, files) : build(a, files)) != KIX_OK) {
        fprintf(stderr, "kix new: out of memory\n");
        status = EXIT_INTERNAL;
        goto out;
    }
    for (int i = 0; i < 6 && status == 0; i++) {
        if (i < 5 && !files[i])
            continue; /* --like: the log holds it */
        snprintf(path, sizeof(path), "%s/%s", a->dir, i < 5 ? names[i] : "README.md");
        if (i < 5) {
            /* a record to fill in: indented, its members in the order built */
            struct kix_buf b = KIX_BUF_INIT;
            rc = kix_doc_dumps(files[i], KIX_DOC_INDENT, &b, NULL);
            if (rc == KIX_OK)
                rc = kix_buf_addc(&b, '\n');
            if (rc == KIX_OK)
                rc = kix_file_write_atomic(path, b.ptr, b.len, 0644, &err);
            else
                kix_err_set(&err, rc, "out of memory");
            kix_buf_release(&b);
        } else {
            struct kix_buf b = KIX_BUF_INIT;
            rc = a->joined ? kix_buf_adds(&b, like_readme_head) : KIX_OK;
            if (rc == KIX_OK)
                rc = kix_buf_adds(&b, readme);
            if (rc == KIX_OK)
                rc = kix_file_write_atomic(path, b.ptr, b.len, 0644, &err);
            else
                kix_err_set(&err, rc, "out of memory");
            kix_buf_release(&b);
        }
        if (rc)
            status = cli_fail("new", rc, &err);
    }
    if (status == 0 && a->json && a->joined) {
        status = cli_doc("new",
                         json_pack("{s:o,s:[s,s,s],s:s,s:I,s:o}", "dir",
                                   cli_jstr(a->dir, strlen(a->dir)), "files", "run.json",
                                   "implementation.json", "README.md", "group", a->joined->group,
                                   "groupSize", (json_int_t)a->joined->group_size, "like",
                                   cli_jstr(a->joined->run_id, strlen(a->joined->run_id))),
                         1, NULL);
    } else if (status == 0 && a->json) {
        json_t *doc = json_pack("{s:o,s:[s,s,s,s,s,s]}", "dir", cli_jstr(a->dir, strlen(a->dir)),
                                "files", "run.json", "workload.json", "protocol.json",
                                "environment.json", "implementation.json", "README.md");
        if (doc && a->near && a->near->checked)
            near_report(a, doc);
        status = cli_doc("new", doc, 1, NULL);
    } else if (status == 0 && a->joined) {
        printf("wrote %s/run.json, implementation.json and README.md: joins the comparison group "
               "%s\n(%llu runs now, read from run %s)\n"
               "%s %s/implementation.json%s, then:\n  kix publish --key KEY %s/run.json\n",
               a->dir, a->joined->group, (unsigned long long)a->joined->group_size,
               a->joined->run_id, a->median ? "check" : "fill in", a->dir,
               a->median ? "" : " and the figures in run.json, remove its label kix-template",
               a->dir);
    } else if (status == 0) {
        printf("wrote %s/{run,workload,protocol,environment,implementation}.json and README.md\n"
               "edit the figures in %s/run.json (spec.timing.latencyNs.median, "
               "spec.measurements), then:\n  kix publish --key KEY %s/run.json\n",
               a->dir, a->dir, a->dir);
        if (a->near && a->near->checked)
            near_report(a, NULL);
    }
out:
    for (int i = 0; i < 5; i++)
        json_decref(files[i]);
    return status;
}

/* A kernel, GPU or protocol family near a known one: "did you mean" on
 * stderr; the bundle is written as asked (new names are welcome). */
static void vocab_notes(const struct new_args *a)
{
    char pslug[64];
    const char *near, *family = a->family;

    if ((near =
             cli_vocab_near(a->kernel, kix_vocab_kernel_name, kix_vocab_kernel(a->kernel) != NULL)))
        fprintf(stderr,
                "kix new: warning: --kernel %s is no kernel of the vocabulary: did you "
                "mean %s?\n",
                a->kernel, near);
    if (!kix_vocab_gpu(a->gpu) && (near = kix_vocab_suggest(a->gpu, kix_vocab_gpu_name)))
        fprintf(stderr,
                "kix new: warning: --gpu %s is no GPU of the vocabulary: did you mean "
                "%s?\n",
                a->gpu, near);
    if (!family) {
        slug(a->provider, pslug, sizeof(pslug));
        family = pslug;
    }
    if ((near = cli_vocab_near(family, kix_vocab_family_name, kix_vocab_family(family) != NULL)))
        fprintf(stderr,
                "kix new: warning: protocol family %s is no family of the vocabulary: did you "
                "mean %s? (--family; runs compare only under one protocol: to join an existing "
                "comparison, use --like RUN)\n",
                family, near);
}

int cmd_new(int argc, char **argv)
{
    struct cli_opts o;
    struct new_args a;
    struct cli_common common;
    struct new_like joined;
    struct new_near near;
    int c, status;

    if (cli_dump_requested(argc, argv)) {
        kix_cmdline_dump(stdout, &new_cmd);
        return 0;
    }
    if (argc < 2 || cli_wants_help(argc, argv)) {
        cli_help(argc < 2 ? stderr : stdout, &new_cmd);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    static const char *const kinds[] = {"run"};
    if (strcmp(argv[1], "run") != 0)
        return cli_unknown("new", CLI_UNKNOWN_SUBCOMMAND, argv[1], strlen(argv[1]), kinds, 1);
    memset(&a, 0, sizeof(a));
    a.provider = "unknown";
    a.pass = "forward";
    a.dtype = "bf16";
    argc--;
    argv++;
    cli_start(&o, &new_cmd, argc, argv, &common);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 'L':
            a.like = optarg;
            break;
        case 'F':
            a.family = optarg;
            break;
        case 'G':
            a.group = optarg;
            break;
        case 'k':
            a.kernel = optarg;
            break;
        case 'g':
            a.gpu = optarg;
            break;
        case 'p':
            a.provider = optarg;
            break;
        case 'P':
            a.pass = optarg;
            break;
        case 'd':
            a.dtype = optarg;
            break;
        case 'x':
            if (a.nparams == MAX_PARAMS)
                return cli_usage_error("new", "at most %d --param", MAX_PARAMS);
            if (!strchr(optarg, '=') || optarg[0] == '=' || strchr(optarg, '=') - optarg >= 128)
                return cli_usage_error("new", "--param takes NAME=VALUE, not '%s'", optarg);
            a.param[a.nparams++] = optarg;
            break;
        case 'r':
            a.repository = optarg;
            break;
        case 'R':
            a.revision = optarg;
            break;
        case 's':
            a.source = optarg;
            break;
        case 'f':
            a.force = 1;
            break;
        case 'm':
        case '2':
        case '8':
            if (cli_parse_u64(optarg, c == 'm'   ? &a.median
                                      : c == '2' ? &a.p20
                                                 : &a.p80) ||
                !(c == 'm'   ? a.median
                  : c == '2' ? a.p20
                             : a.p80))
                return cli_usage_error("new",
                                       "--%s takes a whole number of nanoseconds above 0 (bytes "
                                       "for a peak-memory group), not '%s'",
                                       c == 'm'   ? "median"
                                       : c == '2' ? "p20"
                                                  : "p80",
                                       optarg);
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    a.json = common.json;
    if (argc - optind != 1)
        return cli_usage_error("new", "expected one DIR to write the bundle into");
    if ((a.p20 || a.p80) && !a.median)
        return cli_usage_error("new", "--p20 and --p80 go with --median");
    if (a.like && a.group)
        return cli_usage_error("new", "--like and --group both name the group to join: give one");
    if ((a.like || a.group) &&
        (a.kernel || a.gpu || a.nparams || strcmp(a.dtype, "bf16") || strcmp(a.pass, "forward")))
        return cli_usage_error("new",
                               "--%s takes the workload, protocol and environment from the "
                               "group it joins: --kernel, --gpu, --dtype, --param and "
                               "--pass are not used with it",
                               a.like ? "like" : "group");
    if (a.like || a.group) {
        a.dir = argv[optind];
        status = cli_new_like("new", &common, a.like, a.group, &joined);
        if (status)
            return status;
        a.joined = &joined;
        return write_bundle(&a);
    }
    if (!a.kernel || !*a.kernel || !a.gpu || !*a.gpu)
        return cli_usage_error("new", "--kernel and --gpu are required");
    if (strcmp(a.pass, "forward") != 0 && strcmp(a.pass, "backward") != 0 &&
        strcmp(a.pass, "full") != 0)
        return cli_usage_error("new", "--pass is forward, backward or full");
    if (!kix_vocab_dtype(a.dtype, a.dtype_short, sizeof(a.dtype_short))) {
        const char *near = kix_vocab_suggest(a.dtype_short, kix_vocab_dtype_at);
        return cli_usage_error("new",
                               "--dtype %s is no dtype of the vocabulary "
                               "(docs/VOCABULARY.md)%s%s%s",
                               a.dtype, near ? ": did you mean " : "", near ? near : "",
                               near ? "?" : "");
    }
    vocab_notes(&a);
    a.dir = argv[optind];
    a.common = &common;
    if (common.store || common.server || (getenv("KIX_SERVER") && *getenv("KIX_SERVER"))) {
        /* a log is named: say which of its groups this run comes close to
         * joining (advice: the bundle is written whatever it finds) */
        const struct kix_vocab_gpu *known = kix_vocab_gpu(a.gpu);
        struct cli_common quiet = common;
        struct new_near_run want = {a.kernel, known ? known->product : a.gpu, a.pass, a.dtype_short,
                                    NULL};
        json_t *params = params_object(&a);

        quiet.json = 0; /* stdout holds the bundle's JSON; a failure here is a note */
        want.params = params;
        if (params && cli_new_near("new", &quiet, &want, &near) == 0)
            a.near = &near;
        else
            fprintf(stderr, "kix new: note: the bundle is written, but not compared with the "
                            "log's comparison groups (the reason is above)\n");
        json_decref(params);
    }
    return write_bundle(&a);
}
