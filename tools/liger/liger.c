/* Liger-Kernel CSV rows → kix manifests (see kix/liger.h). */
#include "kix/liger.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/canon.h"
#include "kix/vocabulary.h"

#define DOT        " \xc2\xb7 " /* " · " */
#define LIGER_REPO "https://github.com/linkedin/Liger-Kernel"
#define NAME_MAX_  100 /* metadata.name length, as on the example pages */
#define PARAM_MAX  64  /* bytes of one parameter name in the slug */

static const char *const column_names[KIX_LIGER_NCOLUMNS] = {
    "kernel_name", "kernel_provider", "kernel_operation_mode",
    "metric_name", "metric_unit",     "x_name",
    "x_label",     "x_value",         "y_value_50",
    "y_value_20",  "y_value_80",      "extra_benchmark_config_str",
    "gpu_name",    "timestamp",       "liger_version"};

/* ---- what the importer knows about Liger's vocabulary ------------------- */

static const struct {
    const char *provider, *name, *project, *repository, *notes;
} providers[] = {
    {"liger", "Liger", "Liger-Kernel", LIGER_REPO, NULL},
    {"liger_tiled", "Liger tiled MLP", "Liger-Kernel", LIGER_REPO, NULL},
    {"liger_fused_add_rms_norm", "Liger fused add + RMSNorm", "Liger-Kernel", LIGER_REPO, NULL},
    {"liger_rms_norm", "Liger RMSNorm", "Liger-Kernel", LIGER_REPO, NULL},
    {"liger_in_place", "Liger (in place)", "Liger-Kernel", LIGER_REPO, NULL},
    {"torch", "PyTorch", "PyTorch", "https://github.com/pytorch/pytorch", NULL},
    {"torch_compile", "PyTorch (torch.compile)", "PyTorch", "https://github.com/pytorch/pytorch",
     NULL},
    {"huggingface", "Transformers", "Hugging Face Transformers",
     "https://github.com/huggingface/transformers", NULL},
    {"deepspeed_tiled", "DeepSpeed TiledMLP", "DeepSpeed",
     "https://github.com/deepspeedai/DeepSpeed",
     "DeepSpeed's TiledMLP algorithm (v0.18.2, runtime/sequence_parallel/ulysses_sp.py) as "
     "re-implemented in Liger-Kernel's benchmark script around a Hugging Face LlamaMLP"},
    {"megatron", "Megatron-LM", "Megatron-LM", "https://github.com/NVIDIA/Megatron-LM", NULL},
    {"megatron-fused", "Megatron-LM (fused)", "Megatron-LM",
     "https://github.com/NVIDIA/Megatron-LM", NULL},
    {"megatron-unfused", "Megatron-LM (unfused)", "Megatron-LM",
     "https://github.com/NVIDIA/Megatron-LM", NULL},
};

/* Passes: how Liger's scripts time or measure each kernel_operation_mode. */
static const struct {
    const char *mode, *timed, *measured;
} passes[] = {
    {"forward", "the module forward pass", "the module forward pass"},
    {"backward", "the backward pass alone, replayed on the graph of one untimed forward pass",
     "the backward pass alone, after one unmeasured forward pass"},
    {"full", "the forward pass plus the backward pass", "the forward pass plus the backward pass"},
    {"no-grad-forward", "the module forward pass under torch.no_grad()",
     "the module forward pass under torch.no_grad()"},
};

/* Short parameter names of the external id (first match wins). */
static const struct {
    const char *from, *to;
} x_label_names[] =
    {
        {"sequence length", "seq"},   {"hidden size", "hidden"},   {"vocab size", "vocab"},
        {"num_tokens", "tokens"},     {"B x T", "tokens"},         {"total tokens", "tokens"},
        {"num_experts", "experts"},   {"Batch Size (B)", "batch"}, {"num_channels", "channels"},
        {"feature size", "features"},
},
  param_names[] = {
      {"seq_len", "seq"},
      {"hidden_size", "hidden"},
      {"intermediate_size", "intermediate"},
      {"num_q_heads", "q_heads"},
      {"num_kv_heads", "kv_heads"},
      {"bsz", "batch"},
      {"batch_size", "batch"},
      {"num_heads", "heads"},
      {"vocab_size", "vocab"},
      {"B", "batch"},
      {"T", "seq"},
      {"H", "hidden"},
      {"V", "vocab"},
      {"E", "experts"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Config keys that describe the implementation, not the workload. */
static int slug_skips(const char *key)
{
    return strcmp(key, "num_shards") == 0;
}

/* Config keys that say how the row was produced, not what it measured:
 * the sweep it belongs to (fused_moe's sweep_dim), the harness's own mode
 * (the pass is kernel_operation_mode's). Kept in the run's sourceNative
 * with the rest of the config, never in the workload. */
static int not_workload(const char *key)
{
    return strcmp(key, "sweep_dim") == 0 || strcmp(key, "mode") == 0;
}

const char *kix_liger_column_name(int column)
{
    return column >= 0 && column < KIX_LIGER_NCOLUMNS ? column_names[column] : NULL;
}

/* ---- small helpers --------------------------------------------------------- */

static int oom(struct kix_err *err)
{
    return kix_err_set(err, KIX_ENOMEM, "out of memory");
}

static int is_ident(const char *s, const char *extra)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr(extra, c)))
            return 0;
    }
    return 1;
}

/* 1 when s is valid UTF-8 without control characters. */
static int is_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p, n, cp;
        if (c < 0x20 || c == 0x7f)
            return 0;
        if (c < 0x80) {
            p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            n = 1, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            n = 2, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            n = 3, cp = c & 0x07;
        else
            return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        p += n + 1;
    }
    return 1;
}

/* A plain decimal number: digits, optional sign, point and exponent. */
static int parse_number(const char *s, double *out)
{
    char *end;
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
        return 0;
    errno = 0;
    *out = strtod(s, &end);
    return *end == '\0' && errno == 0 && isfinite(*out);
}

static int is_integer_text(const char *s)
{
    const char *d = *s == '-' ? s + 1 : s;
    return *d && strspn(d, "0123456789") == strlen(d) && strlen(d) <= 16;
}

/* lowercase; runs of anything but [a-z0-9] become one '-'; trimmed. */
static int add_slug(struct kix_buf *b, const char *s)
{
    int dash = b->len > 0 && b->ptr[b->len - 1] != '-';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash == 2 && kix_buf_addc(b, '-'))
                return KIX_ENOMEM;
            if (kix_buf_addc(b, c))
                return KIX_ENOMEM;
            dash = 1;
        } else if (dash == 1) {
            dash = 2;
        }
    }
    return KIX_OK;
}

/* "liger-" + slug of text, cut to NAME_MAX_ bytes without a trailing '-'. */
static json_t *meta_name(const char *prefix, const char *text)
{
    struct kix_buf b = KIX_BUF_INIT;
    json_t *s = NULL;
    if (kix_buf_adds(&b, prefix) == KIX_OK && add_slug(&b, text) == KIX_OK) {
        if (b.len > NAME_MAX_)
            b.len = NAME_MAX_;
        while (b.len && b.ptr[b.len - 1] == '-')
            b.len--;
        s = json_stringn((const char *)b.ptr, b.len);
    }
    kix_buf_release(&b);
    return s;
}

/* ---- the header ------------------------------------------------------------- */

int kix_liger_header_parse(const struct kix_csv_record *rec, struct kix_liger_header *h,
                           struct kix_err *err)
{
    size_t none = (size_t)-1;
    for (int c = 0; c < KIX_LIGER_NCOLUMNS; c++)
        h->index[c] = none;
    h->nfields = rec->nfields;
    for (size_t i = 0; i < rec->nfields; i++) {
        int c = 0;
        while (c < KIX_LIGER_NCOLUMNS && strcmp(rec->fields[i], column_names[c]) != 0)
            c++;
        if (c == KIX_LIGER_NCOLUMNS)
            return kix_err_set(err, KIX_EINVAL,
                               "line %zu: header column %zu is '%.64s', which is not a column of "
                               "Liger-Kernel's all_benchmark_data.csv (kernel_name, "
                               "kernel_provider, ... liger_version); is this the right file?",
                               rec->line, i + 1, rec->fields[i]);
        if (h->index[c] != none)
            return kix_err_set(err, KIX_EINVAL, "line %zu: header names column '%s' twice",
                               rec->line, column_names[c]);
        h->index[c] = i;
    }
    for (int c = 0; c < KIX_LIGER_NCOLUMNS; c++)
        if (h->index[c] == none)
            return kix_err_set(err, KIX_EINVAL,
                               "line %zu: header lacks column '%s'; a Liger-Kernel benchmark CSV "
                               "has %d columns",
                               rec->line, column_names[c], KIX_LIGER_NCOLUMNS);
    return KIX_OK;
}

/* ---- one row ------------------------------------------------------------------ */

struct param {
    char name[PARAM_MAX + 1];      /* in the workload */
    char slug_name[PARAM_MAX + 1]; /* in the slug, as before issue 37.5 */
    json_t *value;                 /* borrowed */
    int slug;                      /* named in the slug (and so the external id) */
};

struct row {
    size_t line;
    const char *f[KIX_LIGER_NCOLUMNS];
    const char *kernel_title;
    int pass;
    int memory;
    double y[3]; /* 50, 20, 80 */
    json_t *x;   /* owned */
    json_t *config;
    char dtype[32]; /* "" when the config has none */
    struct param *params;
    size_t nparams;
    struct kix_buf slug;
    char ts_slug[64], observed[80];
};

static void row_release(struct row *r)
{
    json_decref(r->x);
    json_decref(r->config);
    free(r->params);
    kix_buf_release(&r->slug);
}

#define BAD(r, ...) row_error((r), err, __VA_ARGS__)
static int row_error(const struct row *r, struct kix_err *err, const char *fmt, ...)
    KIX_PRINTF(3, 4);
static int row_error(const struct row *r, struct kix_err *err, const char *fmt, ...)
{
    char msg[KIX_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    kix_err_set(err, KIX_EINVAL, "line %zu: %s", r->line, msg);
    return kix_err_cause(err, KIX_CAUSE_LINE, r->line, 0);
}

static int days_in(int y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d[m - 1] + (m == 2 && leap);
}

static int check_timestamp(struct row *r, struct kix_err *err)
{
    const char *t = r->f[KIX_LIGER_TIMESTAMP];
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    int y, mo, d, h, mi, s;
    size_t i;

    for (i = 0; shape[i] && t[i]; i++)
        if (shape[i] == 'd' ? !(t[i] >= '0' && t[i] <= '9') : t[i] != shape[i])
            break;
    if (shape[i] || t[i] || sscanf(t, "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6 ||
        mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo) || h > 23 || mi > 59 || s > 59)
        return BAD(r, "timestamp '%.40s' is not a time 'YYYY-MM-DD HH:MM:SS'", t);
    snprintf(r->ts_slug, sizeof(r->ts_slug), "%04d-%02d-%02d-%02d-%02d-%02d", y, mo, d, h, mi, s);
    snprintf(r->observed, sizeof(r->observed), "%04d-%02d-%02dT%02d:%02d:%02d.000Z", y, mo, d, h,
             mi, s);
    return KIX_OK;
}

static int check_fields(struct row *r, struct kix_err *err)
{
    static const char *ys[3] = {"y_value_50", "y_value_20", "y_value_80"};
    const char *kernel = r->f[KIX_LIGER_KERNEL_NAME];
    const char *metric = r->f[KIX_LIGER_METRIC_NAME], *unit = r->f[KIX_LIGER_METRIC_UNIT];
    const char *xv = r->f[KIX_LIGER_X_VALUE];
    double v;

    if (!is_ident(kernel, "_.+-"))
        return BAD(r, "kernel_name '%.64s' must be letters, digits, '_', '.', '+' or '-'", kernel);
    if (!is_ident(r->f[KIX_LIGER_KERNEL_PROVIDER], "_.+-"))
        return BAD(r, "kernel_provider '%.64s' must be letters, digits, '_', '.', '+' or '-'",
                   r->f[KIX_LIGER_KERNEL_PROVIDER]);
    r->pass = -1;
    for (size_t i = 0; i < COUNT(passes); i++)
        if (strcmp(r->f[KIX_LIGER_KERNEL_OPERATION_MODE], passes[i].mode) == 0)
            r->pass = (int)i;
    if (r->pass < 0)
        return BAD(r,
                   "kernel_operation_mode '%.64s' is not one this importer knows (forward, "
                   "backward, full, no-grad-forward)",
                   r->f[KIX_LIGER_KERNEL_OPERATION_MODE]);
    if (strcmp(metric, "speed") == 0 && strcmp(unit, "ms") == 0)
        r->memory = 0;
    else if (strcmp(metric, "memory") == 0 && strcmp(unit, "MB") == 0)
        r->memory = 1;
    else
        return BAD(r,
                   "metric '%.32s' in '%.32s' is not supported; this importer knows speed in ms "
                   "and memory in MB",
                   metric, unit);
    if (!is_ident(r->f[KIX_LIGER_X_NAME], "_"))
        return BAD(r, "x_name '%.64s' must be letters, digits or '_'", r->f[KIX_LIGER_X_NAME]);
    if (strlen(r->f[KIX_LIGER_X_NAME]) > PARAM_MAX)
        return BAD(r, "x_name is longer than %d bytes", PARAM_MAX);
    if (!is_text(r->f[KIX_LIGER_X_LABEL]))
        return BAD(r, "x_label is not valid UTF-8 text");
    if (is_integer_text(xv) && parse_number(xv, &v) && fabs(v) <= 9007199254740992.0)
        r->x = json_integer((json_int_t)v);
    else if (parse_number(xv, &v))
        r->x = json_real(v);
    else if (is_ident(xv, "_.-") && strlen(xv) <= PARAM_MAX)
        r->x = json_string(xv);
    else
        return BAD(r, "x_value '%.64s' is neither a number nor a short name", xv);
    if (!r->x)
        return oom(err);
    for (int i = 0; i < 3; i++) {
        const char *t = r->f[KIX_LIGER_Y_VALUE_50 + i];
        if (!parse_number(t, &r->y[i]) || r->y[i] < 0)
            return BAD(r, "%s '%.64s' is not a number >= 0", ys[i], t);
        /* ns or bytes must stay integers a double holds exactly */
        if (r->y[i] * (r->memory ? 1048576.0 : 1e6) > 9007199254740992.0)
            return BAD(r, "%s '%.64s' is too large", ys[i], t);
    }
    if (!is_text(r->f[KIX_LIGER_GPU_NAME]) || !r->f[KIX_LIGER_GPU_NAME][0])
        return BAD(r, "gpu_name must be non-empty UTF-8 text");
    if (!is_ident(r->f[KIX_LIGER_LIGER_VERSION], "_.+-"))
        return BAD(r, "liger_version '%.64s' must be letters, digits, '_', '.', '+' or '-'",
                   r->f[KIX_LIGER_LIGER_VERSION]);
    r->kernel_title = kernel;
    if (kix_vocab_kernel(kernel))
        r->kernel_title = kix_vocab_kernel(kernel)->title;
    return check_timestamp(r, err);
}

/* "torch.bfloat16" → "bf16", "torch.float32" → "fp32" (kix/vocabulary.h). */
static int short_dtype(const char *t, char out[32])
{
    (void)kix_vocab_dtype(t, out, 32); /* a dtype the vocabulary lacks is kept */
    return strlen(t) < 30 && is_ident(out, "_");
}

static int name_taken(const struct row *r, const char *name)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, name) == 0)
            return 1;
    return 0;
}

/* A config key one kernel means otherwise than param_names says: the name
 * its sweep over the key gives it (fused_moe's T is its token count, its
 * T sweep's label "num_tokens"), so that its E sweep's fixed T and its T
 * sweep's x name one parameter and one shape is one workload (issue
 * 37.5). The slug keeps the general name, so external ids stay. */
static const struct {
    const char *kernel, *key, *name;
} kernel_param_names[] = {
    {"fused_moe", "T", "tokens"},
};

static const char *kernel_name_of(const struct row *r, const char *raw)
{
    for (size_t i = 0; i < COUNT(kernel_param_names); i++)
        if (strcmp(r->f[KIX_LIGER_KERNEL_NAME], kernel_param_names[i].kernel) == 0 &&
            strcmp(raw, kernel_param_names[i].key) == 0)
            return kernel_param_names[i].name;
    return NULL;
}

static const char *short_name(const char *raw, const char *label)
{
    if (label)
        for (size_t i = 0; i < COUNT(x_label_names); i++)
            if (strcmp(label, x_label_names[i].from) == 0)
                return x_label_names[i].to;
    for (size_t i = 0; i < COUNT(param_names); i++)
        if (strcmp(raw, param_names[i].from) == 0)
            return param_names[i].to;
    return raw;
}

/* Adds a slug parameter under its short name (or, when that is taken, its raw name). */
static int add_param(struct row *r, const char *raw, const char *label, json_t *value,
                     struct kix_err *err)
{
    const char *name = short_name(raw, label);
    if (name_taken(r, name))
        name = raw;
    if (strlen(name) > PARAM_MAX || !is_ident(name, "_."))
        return BAD(r, "config key '%.64s' must be at most %d letters, digits, '_' or '.'", raw,
                   PARAM_MAX);
    if (name_taken(r, name))
        return BAD(r, "config key '%.64s' and another parameter both name '%s'", raw, name);
    snprintf(r->params[r->nparams].slug_name, PARAM_MAX + 1, "%s", name);
    if (!label && kernel_name_of(r, raw) && !name_taken(r, kernel_name_of(r, raw)))
        name = kernel_name_of(r, raw);
    snprintf(r->params[r->nparams].name, PARAM_MAX + 1, "%s", name);
    r->params[r->nparams].slug = 1;
    r->params[r->nparams++].value = value;
    return KIX_OK;
}

static int check_config(struct row *r, struct kix_err *err)
{
    const char *text = r->f[KIX_LIGER_EXTRA_BENCHMARK_CONFIG_STR];
    const char *key;
    json_error_t jerr;
    json_t *v;
    int rc;

    if (*text && strcmp(text, "null") != 0) {
        r->config = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
        if (!r->config)
            return BAD(r, "extra_benchmark_config_str is not JSON (%s at character %d)", jerr.text,
                       jerr.position);
        if (!json_is_object(r->config))
            return BAD(r, "extra_benchmark_config_str is JSON but not an object");
    }
    r->params = calloc(1 + (r->config ? json_object_size(r->config) : 0), sizeof(*r->params));
    if (!r->params)
        return oom(err);
    rc = add_param(r, r->f[KIX_LIGER_X_NAME], r->f[KIX_LIGER_X_LABEL], r->x, err);
    json_object_foreach(r->config, key, v)
    {
        if (rc)
            return rc;
        if (strcmp(key, "dtype") == 0) {
            if (!json_is_string(v) || !short_dtype(json_string_value(v), r->dtype))
                return BAD(r, "config dtype must be a name such as \"torch.bfloat16\"");
            continue;
        }
        if (strcmp(key, r->f[KIX_LIGER_X_NAME]) == 0 || slug_skips(key))
            continue; /* the x value stands for it (upstream writes null there) */
        if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v))
            rc = add_param(r, key, NULL, v, err);
        /* a text setting (geglu's hidden_act) is part of what was measured:
         * a workload parameter, out of the slug so that external ids stay
         * as they were */
        else if (json_is_string(v) && !not_workload(key) &&
                 (rc = add_param(r, key, NULL, v, err)) == KIX_OK)
            r->params[r->nparams - 1].slug = 0;
    }
    return rc;
}

/* pointers to params, by their workload names */
static int cmp_param_name(const void *a, const void *b)
{
    return strcmp((*(const struct param *const *)a)->name, (*(const struct param *const *)b)->name);
}

/* by the slug's names, so that the slug is as it was */
static int cmp_param(const void *a, const void *b)
{
    return strcmp(((const struct param *)a)->slug_name, ((const struct param *)b)->slug_name);
}

static int add_value(struct kix_buf *b, json_t *v)
{
    if (json_is_integer(v))
        return kix_buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    if (json_is_real(v))
        return kix_canon_number(json_real_value(v), b);
    if (json_is_string(v))
        return kix_buf_adds(b, json_string_value(v));
    return kix_buf_adds(b, json_is_true(v) ? "true" : "false");
}

/* "hidden512-kv_heads8-q_heads32-seq2048-bf16" */
static int build_slug(struct row *r)
{
    int rc = KIX_OK;
    qsort(r->params, r->nparams, sizeof(*r->params), cmp_param);
    for (size_t i = 0, n = 0; rc == KIX_OK && i < r->nparams; i++) {
        if (!r->params[i].slug)
            continue;
        if (n++)
            rc = kix_buf_addc(&r->slug, '-');
        if (rc == KIX_OK)
            rc = kix_buf_adds(&r->slug, r->params[i].slug_name);
        if (rc == KIX_OK)
            rc = add_value(&r->slug, r->params[i].value);
    }
    if (rc == KIX_OK && r->dtype[0])
        rc = kix_buf_addf(&r->slug, "-%s", r->dtype);
    return rc;
}

/* ---- manifests ---------------------------------------------------------------- */

int kix_liger_run_object(json_t *obj, struct kix_liger_run *out, int which, struct kix_err *err)
{
    char *text;
    int rc;

    if (!obj)
        return oom(err);
    text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!text)
        return oom(err);
    kix_buf_reset(&out->canon[which]);
    rc = kix_canon((const uint8_t *)text, strlen(text), NULL, &out->canon[which], err);
    free(text);
    if (rc)
        return rc;
    kix_digest_of(out->canon[which].ptr, out->canon[which].len, &out->digest[which]);
    return KIX_OK;
}

static json_t *object(const char *kind, json_t *name, json_t *title, json_t *spec)
{
    return json_pack("{s:s, s:s, s:{s:o, s:o}, s:o}", "apiVersion", KIX_LIGER_API_VERSION, "kind",
                     kind, "metadata", "name", name, "title", title, "spec", spec);
}

static json_t *textf(const char *fmt, ...) KIX_PRINTF(1, 2);
static json_t *textf(const char *fmt, ...)
{
    char small[256], *big = NULL;
    json_t *s;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    if ((size_t)n < sizeof(small))
        return json_string(small);
    big = malloc((size_t)n + 1);
    if (!big)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s = json_string(big);
    free(big);
    return s;
}

static int build_protocol(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    static const char tail[] =
        "The upstream CSV records no CUDA, driver, or torch version; the Liger release rides "
        "each run's labels. Comparable only within one kernel, workload, %s pass, and GPU.";
    const char *mode = passes[r->pass].mode;
    char notes[1024], end[256];
    json_t *measurement, *name, *title;

    if (!r->memory) {
        snprintf(end, sizeof(end), tail, "timed");
        snprintf(notes, sizeof(notes),
                 "Timed: %s, via triton.testing.do_bench with quantiles 0.5/0.2/0.8 (median with "
                 "p20/p80 spread). %s",
                 passes[r->pass].timed, end);
        measurement = json_pack("{s:s, s:s, s:s, s:s}", "timer", "cuda_events", "primaryStatistic",
                                "median", "metric", "latency", "pass", mode);
        name = textf("liger-bench-do-bench-%s", mode);
        title = textf("Liger benchmark harness" DOT "%s pass", mode);
    } else {
        snprintf(end, sizeof(end), tail, "measured");
        snprintf(notes, sizeof(notes),
                 "Measured: peak memory allocated through PyTorch "
                 "(torch.cuda.max_memory_allocated after reset_peak_memory_stats) over 10 calls of "
                 "%s, with quantiles 0.5/0.2/0.8 (median with p20/p80 spread); the CSV's MB are "
                 "bytes / 2^20. %s",
                 passes[r->pass].measured, end);
        measurement =
            json_pack("{s:s, s:s, s:s, s:s}", "tool", "torch.cuda.max_memory_allocated",
                      "primaryStatistic", "median", "metric", "peak_memory", "pass", mode);
        name = textf("liger-bench-memory-%s", mode);
        title = textf("Liger benchmark harness" DOT "%s pass" DOT "peak memory", mode);
    }
    return kix_liger_run_object(
        object("BenchmarkProtocol", name, title,
               json_pack("{s:{s:s, s:s}, s:o, s:{s:s, s:s}}", "harness", "name",
                         "Liger-Kernel benchmark scripts", "repository", LIGER_REPO, "measurement",
                         measurement, "comparability", "notes", notes, "family",
                         "liger_kernel_bench")),
        out, KIX_LIGER_PROTOCOL, err);
}

static int64_t param_int(const struct row *r, const char *name)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, name) == 0 && json_is_integer(r->params[i].value))
            return json_integer_value(r->params[i].value);
    return -1;
}

static int add_tensor(json_t *list, const struct row *r, const char *name, int n,
                      const int64_t *dims)
{
    json_t *shape = json_array(), *t;

    for (int i = 0; shape && i < n; i++)
        if (dims[i] < 0 || json_array_append_new(shape, json_integer(dims[i])))
            goto bad;
    t = json_pack("{s:s, s:o}", "name", name, "shape", shape);
    shape = NULL;
    if (t && r->dtype[0])
        json_object_set_new(t, "dtype", json_string(r->dtype));
    return t && json_array_append_new(list, t) == 0 ? 0 : -1;
bad:
    json_decref(shape);
    return -1;
}

/* The input tensors of the kernels whose shapes follow from their
 * parameters, as Liger-Kernel's benchmark scripts make them
 * (benchmark/scripts/benchmark_<kernel>.py): rope's q and k
 * ([1, heads, seq, hidden / q_heads], after the scripts' transpose), and the
 * GeGLU and SwiGLU MLPs' input x [batch, seq, hidden] with their
 * projection weights (gate and up [intermediate, hidden], down [hidden,
 * intermediate]). NULL for every other kernel, or when a parameter is
 * missing: no shape is better than a guessed one. */
static json_t *tensors_of(const struct row *r)
{
    const char *k = r->f[KIX_LIGER_KERNEL_NAME];
    int64_t seq = param_int(r, "seq"), hidden = param_int(r, "hidden");
    json_t *list = json_array();
    int bad = !list;

    if (strcmp(k, "rope") == 0) {
        int64_t q = param_int(r, "q_heads"), kv = param_int(r, "kv_heads");
        int64_t head = q > 0 && hidden > 0 && hidden % q == 0 ? hidden / q : -1;
        int64_t kd[] = {1, kv, seq, head}, qd[] = {1, q, seq, head};
        bad |= add_tensor(list, r, "k", 4, kd) || add_tensor(list, r, "q", 4, qd);
    } else if (strcmp(k, "geglu") == 0 || strcmp(k, "swiglu") == 0 ||
               strcmp(k, "tiled_geglu") == 0 || strcmp(k, "tiled_swiglu") == 0) {
        int64_t inter = param_int(r, "intermediate");
        int64_t x[] = {param_int(r, "batch"), seq, hidden}, up[] = {inter, hidden},
                down[] = {hidden, inter};
        bad |= add_tensor(list, r, "x", 3, x) || add_tensor(list, r, "w_gate", 2, up) ||
               add_tensor(list, r, "w_up", 2, up) || add_tensor(list, r, "w_down", 2, down);
    } else {
        bad = 1;
    }
    if (bad) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static int build_workload(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    struct kix_buf title = KIX_BUF_INIT, id = KIX_BUF_INIT;
    json_t *params = json_object(), *spec, *name = NULL;
    int rc = kix_buf_adds(&title, r->kernel_title);

    for (size_t i = 0; params && rc == KIX_OK && i < r->nparams; i++) {
        rc = kix_buf_addf(&title, DOT "%s = ", r->params[i].name);
        if (rc == KIX_OK)
            rc = add_value(&title, r->params[i].value);
        if (json_object_set(params, r->params[i].name, r->params[i].value))
            rc = KIX_ENOMEM;
    }
    if (rc == KIX_OK && r->dtype[0])
        rc = kix_buf_addf(&title, DOT "%s", r->dtype);
    /* the workload's name: its parameters by their workload names (the
     * slug's may differ, kernel_param_names), numbers only as in the slug */
    if (rc == KIX_OK)
        rc = kix_buf_adds(&id, r->f[KIX_LIGER_KERNEL_NAME]);
    if (rc == KIX_OK) {
        const struct param **order = calloc(r->nparams ? r->nparams : 1, sizeof(*order));
        size_t n = 0;
        if (!order)
            rc = KIX_ENOMEM;
        for (size_t i = 0; order && i < r->nparams; i++)
            if (r->params[i].slug)
                order[n++] = &r->params[i];
        if (order && n > 1)
            qsort(order, n, sizeof(*order), cmp_param_name);
        for (size_t i = 0; rc == KIX_OK && i < n; i++) {
            rc = kix_buf_addf(&id, "-%s", order[i]->name);
            if (rc == KIX_OK)
                rc = add_value(&id, order[i]->value);
        }
        if (rc == KIX_OK && r->dtype[0])
            rc = kix_buf_addf(&id, "-%s", r->dtype);
        free(order);
    }
    /* what was measured, never the sweep the row came from: the sweep
     * (x) and the config that named the other parameters go in the run's
     * sourceNative, so that one shape measured in two sweeps is one
     * workload and one group (issue 37.5) */
    spec = json_pack("{s:s, s:o}", "kernel", r->f[KIX_LIGER_KERNEL_NAME], "parameters", params);
    if (spec && r->dtype[0])
        json_object_set_new(spec, "dtype", json_string(r->dtype));
    if (spec) {
        json_t *tensors = tensors_of(r);
        if (tensors)
            json_object_set_new(spec, "tensors", tensors);
    }
    if (rc == KIX_OK)
        name = meta_name("liger-", (const char *)id.ptr);
    kix_buf_release(&id);
    if (rc) {
        json_decref(spec);
        kix_buf_release(&title);
        return oom(err);
    }
    rc = kix_liger_run_object(object("Workload", name, json_string((const char *)title.ptr), spec),
                              out, KIX_LIGER_WORKLOAD, err);
    kix_buf_release(&title);
    return rc;
}

static int build_environment(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    const char *gpu = r->f[KIX_LIGER_GPU_NAME], *shown = gpu;
    const struct kix_vocab_gpu *known = kix_vocab_gpu(gpu);
    json_t *hw = json_object();

    if (known && strcmp(known->name, gpu) == 0) {
        json_object_set_new(hw, "vendor", json_string(known->vendor));
        json_object_set_new(hw, "product", json_string(known->product));
        if (known->form_factor)
            json_object_set_new(hw, "formFactor", json_string(known->form_factor));
        json_object_set_new(hw, "architecture", json_string(known->arch));
    } else {
        /* unknown GPU: the name as reported, the vendor when the name says it */
        if (strncmp(gpu, "NVIDIA ", 7) == 0)
            json_object_set_new(hw, "vendor", json_string("nvidia"));
        else if (strncmp(gpu, "AMD ", 4) == 0)
            json_object_set_new(hw, "vendor", json_string("amd"));
        else if (strncmp(gpu, "Intel", 5) == 0)
            json_object_set_new(hw, "vendor", json_string("intel"));
        json_object_set_new(hw, "product", json_string(gpu));
    }
    if (strncmp(shown, "NVIDIA ", 7) == 0)
        shown += 7;
    return kix_liger_run_object(object("ExecutionEnvironment", meta_name("liger-bench-", gpu),
                                       textf("Liger benchmark host" DOT "%s", shown),
                                       json_pack("{s:o, s:{}}", "hardware", hw, "software")),
                                out, KIX_LIGER_ENVIRONMENT, err);
}

static int build_implementation(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    const char *provider = r->f[KIX_LIGER_KERNEL_PROVIDER];
    json_t *spec = json_pack("{s:s}", "provider", provider), *title;
    size_t i = 0;

    while (i < COUNT(providers) && strcmp(providers[i].provider, provider) != 0)
        i++;
    if (i < COUNT(providers) && spec) {
        json_object_set_new(spec, "name", json_string(providers[i].name));
        json_object_set_new(spec, "project", json_string(providers[i].project));
        json_object_set_new(spec, "repository", json_string(providers[i].repository));
        if (providers[i].notes)
            json_object_set_new(spec, "notes", json_string(providers[i].notes));
        title = textf("%s" DOT "%s", providers[i].name, providers[i].project);
    } else {
        title = json_string(provider);
    }
    return kix_liger_run_object(
        object("Implementation", meta_name("liger-impl-", provider), title, spec), out,
        KIX_LIGER_IMPLEMENTATION, err);
}

static json_t *measurement(const char *metric, const char *statistic, const char *unit,
                           int64_t value)
{
    return json_pack("{s:s, s:I, s:s, s:s}", "unit", unit, "value", (json_int_t)value, "metric",
                     metric, "statistic", statistic);
}

static int build_run(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    const char *unit = r->f[KIX_LIGER_METRIC_UNIT], *metric = r->memory ? "peak_memory" : "latency";
    const char *nu = r->memory ? "B" : "ns";
    char k20[48], k50[48], k80[48], bench[KIX_LIGER_EXTERNAL_ID_MAX + 32],
        digests[4][KIX_DIGEST_TEXT_LEN + 1];
    json_t *spec, *primary, *title;

    for (int i = 0; i < 4; i++)
        kix_digest_format(&out->digest[i], digests[i]);
    snprintf(k20, sizeof(k20), "%s_20", unit);
    snprintf(k50, sizeof(k50), "%s_50", unit);
    snprintf(k80, sizeof(k80), "%s_80", unit);
    if (!r->memory)
        primary = json_pack("{s:{s:I}, s:s}", "latencyNs", "median", (json_int_t)out->median,
                            "primaryStatistic", "median");
    else
        primary = json_pack("{s:{s:I}, s:s, s:s, s:i}", "peakBytes", "median",
                            (json_int_t)out->median, "primaryStatistic", "median", "sourceUnit",
                            unit, "bytesPerSourceUnit", 1048576);
    snprintf(bench, sizeof(bench), r->memory ? "%s/%s/memory" : "%s/%s",
             r->f[KIX_LIGER_KERNEL_NAME], passes[r->pass].mode);
    spec = json_pack(
        "{s:s, s:o, s:s, s:[o, o], s:{s:s, s:{s:f, s:f, s:f}, s:s, s:s}, s:s, s:s, s:s, s:s}",
        "status", "passed", r->memory ? "memory" : "timing", primary, "observedAt", r->observed,
        "measurements", measurement(metric, "p20", nu, out->p20),
        measurement(metric, "p80", nu, out->p80), "sourceNative", "source", KIX_LIGER_SOURCE,
        "metrics", k20, r->y[1], k50, r->y[0], k80, r->y[2], "benchmark", bench, "externalId",
        out->external_id, "protocolDigest", digests[KIX_LIGER_PROTOCOL], "workloadDigest",
        digests[KIX_LIGER_WORKLOAD], "environmentDigest", digests[KIX_LIGER_ENVIRONMENT],
        "implementationDigest", digests[KIX_LIGER_IMPLEMENTATION]);
    if (spec) {
        /* the row's provenance: the sweep it came from, the config as given
         * (read here when the workload came from the cache, which checked it) */
        json_t *native = json_object_get(spec, "sourceNative");
        const char *text = r->f[KIX_LIGER_EXTRA_BENCHMARK_CONFIG_STR];
        if (!r->config && *text && strcmp(text, "null") != 0)
            r->config = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        if (json_object_set_new(native, "x",
                                json_pack("{s:s, s:s, s:O}", "name", r->f[KIX_LIGER_X_NAME],
                                          "label", r->f[KIX_LIGER_X_LABEL], "value", r->x)) ||
            (r->config && json_object_set(native, "config", r->config))) {
            json_decref(spec);
            spec = NULL;
        }
    }
    if (!spec)
        return oom(err);
    title = textf(r->memory ? "%s" DOT "%s" DOT "%s" DOT "peak memory" : "%s" DOT "%s" DOT "%s",
                  r->kernel_title, r->f[KIX_LIGER_KERNEL_PROVIDER], passes[r->pass].mode);
    return kix_liger_run_object(json_pack("{s:s, s:s, s:{s:o, s:o, s:{s:s}}, s:o}", "apiVersion",
                                          KIX_LIGER_API_VERSION, "kind", "BenchmarkRun", "metadata",
                                          "name", meta_name("liger-", out->external_id), "title",
                                          title, "labels", "liger_version",
                                          r->f[KIX_LIGER_LIGER_VERSION], "spec", spec),
                                out, KIX_LIGER_RUN, err);
}

void kix_liger_run_id_in(const char *ns, const char *external_id, char out[37])
{
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_digest d;
    uint8_t *u = d.b;

    /* a failed allocation hashes the namespace alone: never for a real id */
    if (kix_buf_adds(&b, ns) == KIX_OK && kix_buf_adds(&b, external_id) == KIX_OK)
        kix_digest_of(b.ptr, b.len, &d);
    else
        kix_digest_of(ns, strlen(ns), &d);
    kix_buf_release(&b);
    u[6] = (uint8_t)(0x80 | (u[6] & 0x0f)); /* version 8 */
    u[8] = (uint8_t)(0x80 | (u[8] & 0x3f)); /* variant 10 */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
}

void kix_liger_run_id(const char *external_id, char out[37])
{
    kix_liger_run_id_in("kix-import-liger/v1\n", external_id, out);
}

void kix_liger_run_init(struct kix_liger_run *r)
{
    memset(r, 0, sizeof(*r));
}

void kix_liger_run_release(struct kix_liger_run *r)
{
    for (int i = 0; i < KIX_LIGER_NOBJECTS; i++)
        kix_buf_release(&r->canon[i]);
    kix_liger_run_init(r);
}

/* ---- the cache of shared objects ------------------------------------------- */

#define CACHE_MAX 65536 /* entries; beyond it objects are simply rebuilt */

struct cache_entry {
    struct kix_digest key; /* SHA-256 of the inputs the object is made from */
    struct kix_buf canon;
    struct kix_digest digest;
    struct kix_buf slug; /* workloads: the config slug */
};

struct kix_liger_cache {
    struct cache_entry *entries;
    size_t n, cap;
    size_t *slots; /* entry index + 1; 0 = empty */
    size_t nslots;
};

int kix_liger_cache_new(struct kix_liger_cache **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? KIX_OK : KIX_ENOMEM;
}

void kix_liger_cache_free(struct kix_liger_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        kix_buf_release(&c->entries[i].canon);
        kix_buf_release(&c->entries[i].slug);
    }
    free(c->entries);
    free(c->slots);
    free(c);
}

size_t kix_liger_cache_size(const struct kix_liger_cache *c)
{
    return c ? c->n : 0;
}

static size_t cache_slot(const struct kix_liger_cache *c, const struct kix_digest *key)
{
    size_t h;
    memcpy(&h, key->b, sizeof(h));
    h &= c->nslots - 1;
    while (c->slots[h] && memcmp(c->entries[c->slots[h] - 1].key.b, key->b, KIX_DIGEST_LEN) != 0)
        h = (h + 1) & (c->nslots - 1);
    return h;
}

static struct cache_entry *cache_get(struct kix_liger_cache *c, const struct kix_digest *key)
{
    size_t h;
    if (!c || !c->nslots)
        return NULL;
    h = cache_slot(c, key);
    return c->slots[h] ? &c->entries[c->slots[h] - 1] : NULL;
}

/* Remembers an object (best effort: a full cache or no memory just skips). */
static void cache_put(struct kix_liger_cache *c, const struct kix_digest *key,
                      const struct kix_buf *canon, const struct kix_digest *digest,
                      const struct kix_buf *slug)
{
    struct cache_entry *e;
    if (!c || c->n >= CACHE_MAX)
        return;
    if (2 * (c->n + 1) > c->nslots) {
        size_t nslots = c->nslots ? c->nslots * 2 : 64;
        size_t *slots = calloc(nslots, sizeof(*slots));
        if (!slots)
            return;
        free(c->slots);
        c->slots = slots;
        c->nslots = nslots;
        for (size_t i = 0; i < c->n; i++)
            c->slots[cache_slot(c, &c->entries[i].key)] = i + 1;
    }
    struct cache_entry *p = kix_array_grow(c->entries, &c->cap, c->n, 32, sizeof(*p));
    if (!p)
        return;
    c->entries = p;
    e = &c->entries[c->n];
    memset(e, 0, sizeof(*e));
    if (kix_buf_add(&e->canon, canon->ptr, canon->len) ||
        (slug && kix_buf_add(&e->slug, slug->ptr, slug->len))) {
        kix_buf_release(&e->canon);
        kix_buf_release(&e->slug);
        return;
    }
    e->key = *key;
    e->digest = *digest;
    c->slots[cache_slot(c, key)] = ++c->n;
}

/* What a shared object is made of: its kind and the fields it reads. */
static int cache_key(const struct row *r, int which, struct kix_digest *key)
{
    static const int inputs[][6] = {
        [KIX_LIGER_PROTOCOL] = {KIX_LIGER_METRIC_NAME, KIX_LIGER_METRIC_UNIT,
                                KIX_LIGER_KERNEL_OPERATION_MODE, -1},
        [KIX_LIGER_WORKLOAD] = {KIX_LIGER_KERNEL_NAME, KIX_LIGER_X_NAME, KIX_LIGER_X_LABEL,
                                KIX_LIGER_X_VALUE, KIX_LIGER_EXTRA_BENCHMARK_CONFIG_STR, -1},
        [KIX_LIGER_ENVIRONMENT] = {KIX_LIGER_GPU_NAME, -1},
        [KIX_LIGER_IMPLEMENTATION] = {KIX_LIGER_KERNEL_PROVIDER, -1},
    };
    struct kix_buf b = KIX_BUF_INIT;
    int rc = kix_buf_addc(&b, (uint8_t)which);
    for (int i = 0; rc == KIX_OK && inputs[which][i] >= 0; i++)
        rc = kix_buf_add(&b, r->f[inputs[which][i]], strlen(r->f[inputs[which][i]]) + 1);
    if (rc == KIX_OK)
        kix_digest_of(b.ptr, b.len, key);
    kix_buf_release(&b);
    return rc;
}

/* Workload and config slug from the row's x and config. */
static int make_workload(struct row *r, struct kix_liger_run *out, struct kix_err *err)
{
    int rc = check_config(r, err);
    if (rc == KIX_OK && build_slug(r))
        rc = oom(err);
    return rc ? rc : build_workload(r, out, err);
}

typedef int (*builder_fn)(struct row *r, struct kix_liger_run *out, struct kix_err *err);

/* Builds shared object `which` (or takes it from the cache). */
static int shared(struct kix_liger_cache *c, struct row *r, int which, builder_fn build,
                  struct kix_liger_run *out, struct kix_err *err)
{
    struct kix_digest key;
    struct cache_entry *e = NULL;
    int rc;

    if (c && cache_key(r, which, &key))
        return oom(err);
    if (c)
        e = cache_get(c, &key);
    if (e) {
        kix_buf_reset(&out->canon[which]);
        if (kix_buf_add(&out->canon[which], e->canon.ptr, e->canon.len) ||
            (which == KIX_LIGER_WORKLOAD && kix_buf_add(&r->slug, e->slug.ptr, e->slug.len)))
            return oom(err);
        out->digest[which] = e->digest;
        return KIX_OK;
    }
    rc = build(r, out, err);
    if (rc == KIX_OK && c)
        cache_put(c, &key, &out->canon[which], &out->digest[which],
                  which == KIX_LIGER_WORKLOAD ? &r->slug : NULL);
    return rc;
}

static int build(struct kix_liger_cache *cache, const struct kix_liger_header *h,
                 const struct kix_csv_record *rec, int with_run, struct kix_liger_run *out,
                 struct kix_err *err)
{
    struct row r;
    struct kix_buf gpu = KIX_BUF_INIT;
    double scale;
    int rc, n;

    memset(&r, 0, sizeof(r));
    r.line = rec->line;
    out->line = rec->line;
    if (rec->nfields != h->nfields) {
        rc = BAD(&r, "%zu fields, but the header has %zu (a field holding a comma must be quoted)",
                 rec->nfields, h->nfields);
        goto out;
    }
    for (int c = 0; c < KIX_LIGER_NCOLUMNS; c++) {
        size_t i = h->index[c];
        r.f[c] = rec->fields[i];
        if (strlen(rec->fields[i]) != rec->lens[i]) {
            rc = BAD(&r, "%s holds a NUL byte", column_names[c]);
            goto out;
        }
    }
    rc = check_fields(&r, err);
    if (rc == KIX_OK)
        rc = shared(cache, &r, KIX_LIGER_WORKLOAD, make_workload, out, err);
    if (rc == KIX_OK && add_slug(&gpu, r.f[KIX_LIGER_GPU_NAME]))
        rc = oom(err);
    if (rc)
        goto out;
    n = snprintf(out->external_id, sizeof(out->external_id), "%s/%s/%s/%s/%s/%s%s",
                 r.f[KIX_LIGER_KERNEL_NAME], passes[r.pass].mode, r.f[KIX_LIGER_KERNEL_PROVIDER],
                 gpu.len ? (const char *)gpu.ptr : "gpu", (const char *)r.slug.ptr, r.ts_slug,
                 r.memory ? "/memory" : "");
    if (n < 0 || (size_t)n >= sizeof(out->external_id)) {
        rc = BAD(&r, "the external id would be longer than %d bytes", KIX_LIGER_EXTERNAL_ID_MAX);
        goto out;
    }
    kix_liger_run_id(out->external_id, out->run_id);
    out->memory = r.memory;
    scale = r.memory ? 1048576.0 : 1e6;
    out->median = llround(r.y[0] * scale);
    out->p20 = llround(r.y[1] * scale);
    out->p80 = llround(r.y[2] * scale);
    rc = shared(cache, &r, KIX_LIGER_PROTOCOL, build_protocol, out, err);
    if (rc == KIX_OK)
        rc = shared(cache, &r, KIX_LIGER_ENVIRONMENT, build_environment, out, err);
    if (rc == KIX_OK)
        rc = shared(cache, &r, KIX_LIGER_IMPLEMENTATION, build_implementation, out, err);
    kix_buf_reset(&out->canon[KIX_LIGER_RUN]);
    memset(&out->digest[KIX_LIGER_RUN], 0, sizeof(out->digest[KIX_LIGER_RUN]));
    if (rc == KIX_OK && with_run)
        rc = build_run(&r, out, err);
out:
    if (rc && rc != KIX_ENOMEM && err && err->cause != KIX_CAUSE_LINE) {
        kix_err_wrap(err, "line %zu", r.line);
        kix_err_cause(err, KIX_CAUSE_LINE, r.line, 0);
    }
    row_release(&r);
    kix_buf_release(&gpu);
    return rc;
}

int kix_liger_build(struct kix_liger_cache *cache, const struct kix_liger_header *h,
                    const struct kix_csv_record *rec, struct kix_liger_run *out,
                    struct kix_err *err)
{
    return build(cache, h, rec, 1, out, err);
}

int kix_liger_check(struct kix_liger_cache *cache, const struct kix_liger_header *h,
                    const struct kix_csv_record *rec, struct kix_liger_run *out,
                    struct kix_err *err)
{
    return build(cache, h, rec, 0, out, err);
}
