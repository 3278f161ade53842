/* KernelBench baseline timing JSON → kix manifests (see kix/kernelbench.h). */
#include "kix/kernelbench.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kix/canon.h"
#include "kix/vocabulary.h"

#define DOT       " \xc2\xb7 " /* " · " */
#define KB_REPO   "https://github.com/ScalingIntelligence/KernelBench"
#define KB_COMMIT "7dd9cfa0c02e8340c9bc9a919d3f19777a8f2eb2"
#define KB_TORCH  "2.5.0+cu124"
#define KB_CUDA   "12.4"
#define KB_WARMUP 3
#define PY_MAX    ((size_t)4 << 20) /* a problem file larger than this is no problem file */
#define VALUE_MAX 64                /* bytes of a size's text kept as a string */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int oom(struct kix_err *err)
{
    return kix_err_set(err, KIX_ENOMEM, "out of memory");
}

/* ---- problems ----------------------------------------------------------------- */

struct kix_kb_problems {
    json_t *index; /* {"level1/1_X.py": {"sha256": "...", "parameters": {...}}} */
};

size_t kix_kb_problems_count(const struct kix_kb_problems *p)
{
    return p ? json_object_size(p->index) : 0;
}

void kix_kb_problems_free(struct kix_kb_problems *p)
{
    if (p)
        json_decref(p->index);
    free(p);
}

/* A size's value as the file writes it: an integer, a real, True/False, or
 * else the expression's text ("(3, 5)", "in_channels"), comment cut. */
static json_t *py_value(const char *s, size_t n)
{
    char text[VALUE_MAX + 1], *end;
    const char *hash = memchr(s, '#', n);
    long long i;
    double d;

    if (hash)
        n = (size_t)(hash - s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    if (!n || n > VALUE_MAX)
        return NULL;
    memcpy(text, s, n);
    text[n] = '\0';
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)text[k] < 0x20 || (unsigned char)text[k] >= 0x7f)
            return NULL;
    if (strcmp(text, "True") == 0 || strcmp(text, "False") == 0)
        return json_boolean(text[0] == 'T');
    errno = 0;
    i = strtoll(text, &end, 10);
    if (!*end && !errno && (i < 0 ? -i : i) <= 9007199254740992LL)
        return json_integer(i);
    errno = 0;
    d = strtod(text, &end);
    if (!*end && !errno && isfinite(d) && strspn(text, "0123456789+-.eE") == n)
        return json_real(d);
    return json_string(text);
}

/* The module-level assignments "name = value" (column 0): the problem's
 * sizes. A later assignment wins, as in Python. */
static json_t *py_sizes(const char *data, size_t len)
{
    json_t *params = json_object();
    const char *p = data, *end = data + len;

    while (params && p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *eq;
        if (!eol)
            eol = end;
        while (q < eol && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                           (q > p && *q >= '0' && *q <= '9')))
            q++;
        eq = q;
        while (eq < eol && *eq == ' ')
            eq++;
        if (q > p && q - p <= 64 && eq < eol && *eq == '=' && eq + 1 < eol && eq[1] != '=') {
            char name[65];
            json_t *v = py_value(eq + 1, (size_t)(eol - eq - 1));
            snprintf(name, sizeof(name), "%.*s", (int)(q - p), p);
            if (v && json_object_set_new(params, name, v) != 0) {
                json_decref(params);
                return NULL;
            }
        }
        p = eol + 1;
    }
    return params;
}

static int read_all(const char *path, char **data, size_t *len, size_t max, struct kix_err *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;

    *data = NULL;
    if (!f)
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "cannot open %s: %s",
                           path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || (size_t)st.st_size > max) {
        fclose(f);
        return kix_err_set(err, KIX_ELIMIT, "%s: larger than %zu bytes", path, max);
    }
    *data = malloc((size_t)st.st_size + 1);
    if (!*data) {
        fclose(f);
        return oom(err);
    }
    *len = fread(*data, 1, (size_t)st.st_size, f);
    if (ferror(f) || *len != (size_t)st.st_size) {
        fclose(f);
        free(*data);
        *data = NULL;
        return kix_err_set(err, KIX_EIO, "reading %s: %s", path, strerror(errno));
    }
    (*data)[*len] = '\0';
    fclose(f);
    return KIX_OK;
}

static int load_dir(const char *dir, json_t *index, struct kix_err *err)
{
    for (int level = 1; level <= 9; level++) {
        char path[4096];
        struct dirent *e;
        DIR *d;
        snprintf(path, sizeof(path), "%s/level%d", dir, level);
        if (!(d = opendir(path)))
            continue;
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            char *data, key[300], digest[KIX_DIGEST_TEXT_LEN + 1];
            struct kix_digest dg;
            size_t len = 0;
            json_t *sizes;
            int rc;
            if (n < 4 || strcmp(e->d_name + n - 3, ".py") != 0 || n > 250 || e->d_name[0] < '0' ||
                e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof(path), "%s/level%d/%s", dir, level, e->d_name);
            if ((rc = read_all(path, &data, &len, PY_MAX, err)) != KIX_OK) {
                closedir(d);
                return rc;
            }
            kix_digest_of(data, len, &dg);
            kix_digest_format(&dg, digest);
            sizes = py_sizes(data, len);
            free(data);
            snprintf(key, sizeof(key), "level%d/%s", level, e->d_name);
            if (!sizes || json_object_set_new(index, key,
                                              json_pack("{s:s, s:o}", "sha256", digest + 7,
                                                        "parameters", sizes)) != 0) {
                closedir(d);
                return oom(err);
            }
        }
        closedir(d);
    }
    if (json_object_size(index) == 0)
        return kix_err_set(
            err, KIX_ENOTFOUND,
            "--problems %s holds no level<N>/<N>_<Name>.py files (give KernelBench's "
            "KernelBench/ directory, or an index saved with --save-problems)",
            dir);
    return KIX_OK;
}

int kix_kb_problems_load(const char *path, struct kix_kb_problems **out, struct kix_err *err)
{
    struct kix_kb_problems *p = calloc(1, sizeof(*p));
    struct stat st;
    int rc = KIX_OK;

    *out = NULL;
    if (!p)
        return oom(err);
    if (stat(path, &st) != 0) {
        free(p);
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "--problems %s: %s",
                           path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        p->index = json_object();
        rc = p->index ? load_dir(path, p->index, err) : oom(err);
    } else {
        json_error_t jerr;
        const char *key;
        json_t *v;
        p->index = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
        if (!p->index || !json_is_object(p->index))
            rc = kix_err_set(err, KIX_EINVAL,
                             "--problems %s: not a JSON object of problems (line %d: %s)", path,
                             jerr.line, p->index ? "not an object" : jerr.text);
        json_object_foreach(rc ? NULL : p->index, key, v)
        {
            const char *h = json_string_value(json_object_get(v, "sha256"));
            if (!h || strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64 ||
                !json_is_object(json_object_get(v, "parameters"))) {
                rc = kix_err_set(err, KIX_EINVAL,
                                 "--problems %s: %s needs \"sha256\" (64 lowercase hex) and "
                                 "\"parameters\" (an object)",
                                 path, key);
                break;
            }
        }
    }
    if (rc) {
        kix_kb_problems_free(p);
        return rc;
    }
    *out = p;
    return KIX_OK;
}

int kix_kb_problems_save(const struct kix_kb_problems *p, const char *path, struct kix_err *err)
{
    if (json_dump_file(p->index, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0)
        return kix_err_set(err, KIX_EIO, "cannot write %s: %s", path, strerror(errno));
    return KIX_OK;
}

/* ---- what the importer knows about KernelBench ---------------------------- */

/* The configurations: the file name's tail, and who they are for people. */
static const struct {
    const char *config, *name;
} configs[] = {
    {"torch", "PyTorch eager"},
    {"torch_compile_inductor_default", "torch.compile (inductor, default)"},
    {"torch_compile_inductor_reduce-overhead", "torch.compile (inductor, reduce-overhead)"},
    {"torch_compile_inductor_max-autotune", "torch.compile (inductor, max-autotune)"},
    {"torch_compile_inductor_max-autotune-no-cudagraphs",
     "torch.compile (inductor, max-autotune-no-cudagraphs)"},
    {"torch_compile_cudagraphs", "torch.compile (cudagraphs backend)"},
};

/* Hosts: the directory name's tail. */
static const struct {
    const char *tag, *host;
} hosts[] = {{"modal", "Modal"}, {"together", "Together.ai"}, {"matx3", "Stanford matx3"}};

/* Power limits from KernelBench's results/timing/README.md hardware table,
 * by host and the GPU the row names; a pair the table lacks (an A10 or an
 * 80 GB A100 on Modal, a B200) states none. */
static const struct {
    const char *host, *gpu;
    int watts;
} powers[] = {
    {"Stanford matx3", "NVIDIA L40S", 300},
    {"Together.ai", "NVIDIA H100 80GB HBM3", 700},
    {"Modal", "NVIDIA L40S", 350},
    {"Modal", "NVIDIA H100 80GB HBM3", 700},
    {"Modal", "NVIDIA A100-SXM4-40GB", 400},
    {"Modal", "NVIDIA L4", 72},
    {"Modal", "Tesla T4", 70},
    {"Modal", "NVIDIA A10G", 300},
};

/* Problems that are a kernel the index already names (kix/vocabulary.h), so
 * that both sources' groups meet on that kernel's page (never in one group:
 * their protocols differ). */
static const struct {
    const char *problem, *kernel;
} aliases[] = {
    {"level1/23_Softmax.py", "softmax"},
    {"level1/40_LayerNorm.py", "layer_norm"},
    {"level1/36_RMSNorm_.py", "rms_norm"},
    {"level1/35_GroupNorm_.py", "group_norm"},
    {"level1/95_CrossEntropyLoss.py", "cross_entropy"},
    {"level1/98_KLDivLoss.py", "kl_div"},
};

/* ---- a timing file ------------------------------------------------------------- */

struct kb_entry {
    int level, number;
    const char *level_key, *problem; /* borrowed from doc */
    json_t *value;
};

/* A file's shared objects already built (its protocol, implementation and
 * environments repeat row after row): by kind and the inputs they are made
 * of, so that a row does not canonicalize them again. */
#define KB_CACHE_MAX 16

struct kb_cached {
    int which;
    char key[160];
    struct kix_buf canon;
    struct kix_digest digest;
};

struct kix_kb_file {
    json_t *doc;
    struct kb_cached cache[KB_CACHE_MAX];
    size_t ncache;
    const struct kix_kb_problems *problems;
    char dir[128], config[128], host[32], tag[32], rel[300];
    size_t config_index;
    struct kb_entry *entries;
    size_t n;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct kb_entry *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return strcmp(x->problem, y->problem);
}

/* "23_Softmax.py" → 23; -1 when the name is not <N>_<Name>.py. */
static int problem_number(const char *name)
{
    size_t n = strlen(name), d = strspn(name, "0123456789");
    if (d == 0 || d > 6 || name[d] != '_' || n < d + 5 || strcmp(name + n - 3, ".py") != 0)
        return -1;
    for (const char *p = name + d + 1; p < name + n - 3; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return -1;
    return atoi(name);
}

/* Directory and configuration from the path's last two components. */
static int parse_path(struct kix_kb_file *f, const char *path, struct kix_err *err)
{
    const char *base = strrchr(path, '/'), *dir;
    const char *pre = "baseline_time_";
    size_t dlen, blen;

    base = base ? base + 1 : path;
    for (dir = base > path + 1 ? base - 2 : path; dir > path && dir[-1] != '/'; dir--)
        ;
    dlen = base > path ? (size_t)(base - 1 - dir) : 0;
    blen = strlen(base);
    if (strncmp(base, pre, strlen(pre)) != 0 || blen < strlen(pre) + 6 ||
        strcmp(base + blen - 5, ".json") != 0 || dlen == 0 || dlen >= sizeof(f->dir))
        return kix_err_set(err, KIX_EINVAL,
                           "%s: expected KernelBench's results/timing/<GPU>_<host>/"
                           "baseline_time_<config>.json (the directory names the host, the file "
                           "the configuration)",
                           path);
    snprintf(f->dir, sizeof(f->dir), "%.*s", (int)dlen, dir);
    snprintf(f->config, sizeof(f->config), "%.*s", (int)(blen - strlen(pre) - 5),
             base + strlen(pre));
    snprintf(f->rel, sizeof(f->rel), "results/timing/%s/%s", f->dir, base);
    for (f->config_index = 0; f->config_index < COUNT(configs); f->config_index++)
        if (strcmp(configs[f->config_index].config, f->config) == 0)
            break;
    if (f->config_index == COUNT(configs))
        return kix_err_set(err, KIX_EINVAL,
                           "%s: unknown configuration '%s' (known: torch, torch_compile_inductor_"
                           "default, ..._reduce-overhead, ..._max-autotune, ..._max-autotune-no-"
                           "cudagraphs, torch_compile_cudagraphs)",
                           path, f->config);
    for (size_t i = 0; i < COUNT(hosts); i++) {
        size_t tl = strlen(hosts[i].tag);
        if (dlen > tl + 1 && f->dir[dlen - tl - 1] == '_' &&
            strcmp(f->dir + dlen - tl, hosts[i].tag) == 0) {
            snprintf(f->host, sizeof(f->host), "%s", hosts[i].host);
            snprintf(f->tag, sizeof(f->tag), "%s", hosts[i].tag);
        }
    }
    if (!f->host[0])
        return kix_err_set(err, KIX_EINVAL,
                           "%s: directory '%s' names no known host (<GPU>_modal, _together or "
                           "_matx3)",
                           path, f->dir);
    return KIX_OK;
}

int kix_kb_open(const char *path, const char *data, size_t len, const struct kix_kb_problems *p,
                struct kix_kb_file **out, struct kix_err *err)
{
    struct kix_kb_file *f = calloc(1, sizeof(*f));
    json_error_t jerr;
    const char *lk, *pk;
    json_t *lv, *pv;
    size_t cap = 0;
    int rc;

    *out = NULL;
    if (!f)
        return oom(err);
    f->problems = p;
    if ((rc = parse_path(f, path, err)) != KIX_OK)
        goto fail;
    f->doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!f->doc) {
        rc = kix_err_set(err, KIX_EINVAL, "%s: not JSON (line %d, column %d: %s)", path, jerr.line,
                         jerr.column, jerr.text);
        goto fail;
    }
    if (!json_is_object(f->doc)) {
        rc = kix_err_set(err, KIX_EINVAL, "%s: expected an object of levels (\"level1\": ...)",
                         path);
        goto fail;
    }
    json_object_foreach(f->doc, lk, lv)
    {
        int level = strncmp(lk, "level", 5) == 0 && strlen(lk) == 6 && lk[5] >= '1' && lk[5] <= '9'
                        ? lk[5] - '0'
                        : -1;
        if (level < 0 || !json_is_object(lv)) {
            rc = kix_err_set(err, KIX_EINVAL,
                             "%s: /%s: expected \"level<N>\" holding an object of problems", path,
                             lk);
            goto fail;
        }
        json_object_foreach(lv, pk, pv)
        {
            struct kb_entry *e = kix_array_grow(f->entries, &cap, f->n, 64, sizeof(*e));
            if (!e) {
                rc = oom(err);
                goto fail;
            }
            f->entries = e;
            e = &f->entries[f->n++];
            e->level = level;
            e->number = problem_number(pk);
            e->level_key = lk;
            e->problem = pk;
            e->value = pv;
        }
    }
    qsort(f->entries, f->n, sizeof(*f->entries), cmp_entry);
    *out = f;
    return KIX_OK;
fail:
    kix_kb_close(f);
    return rc;
}

void kix_kb_close(struct kix_kb_file *f)
{
    if (!f)
        return;
    json_decref(f->doc);
    for (size_t i = 0; i < f->ncache; i++)
        kix_buf_release(&f->cache[i].canon);
    free(f->entries);
    free(f);
}

size_t kix_kb_rows(const struct kix_kb_file *f)
{
    return f ? f->n : 0;
}

/* ---- one row ---------------------------------------------------------------------- */

struct kb_row {
    struct kix_kb_file *f;
    const struct kb_entry *e;
    struct kix_kb_row *id;
    double ms[4]; /* mean, std, min, max */
    int64_t ns[4];
    json_int_t trials;
    const char *hardware, *device;
    char name[200];   /* "Softmax" */
    char kernel[200]; /* "softmax" */
    char key[300];    /* "level1/23_Softmax.py" */
    const json_t *problem;
};

static const char *const stats[4] = {"mean", "std", "min", "max"};

static int bad(struct kb_row *r, struct kix_err *err, const char *member, const char *fmt, ...)
    KIX_PRINTF(4, 5);
static int bad(struct kb_row *r, struct kix_err *err, const char *member, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return kix_err_set(err, KIX_EINVAL, "%s%s%s: %s", r->id->pointer, member ? "/" : "",
                       member ? member : "", msg);
}

static int check_row(struct kb_row *r, struct kix_err *err)
{
    const json_t *v = r->e->value, *x;

    if (r->e->number < 0)
        return bad(r, err, NULL, "a problem is named <N>_<Name>.py");
    if (!json_is_object(v))
        return bad(r, err, NULL,
                   "expected an object {mean, std, min, max, num_trials, "
                   "hardware, device} or null");
    for (int i = 0; i < 4; i++) {
        x = json_object_get(v, stats[i]);
        if (!x)
            return bad(r, err, stats[i], "missing: every row has mean, std, min and max (ms)");
        if (!json_is_number(x))
            return bad(r, err, stats[i], "must be a number of milliseconds, not %s",
                       json_is_string(x) ? "a string" : "another JSON type");
        r->ms[i] = json_number_value(x);
        if (!isfinite(r->ms[i]) || r->ms[i] < 0)
            return bad(r, err, stats[i], "%g is negative: a time is 0 or more", r->ms[i]);
        if (r->ms[i] * 1e6 > 9007199254740992.0)
            return bad(r, err, stats[i], "%g ms is too large", r->ms[i]);
        r->ns[i] = (int64_t)llround(r->ms[i] * 1e6);
    }
    if (r->ns[0] <= 0)
        return bad(r, err, "mean", "%g ms rounds to 0 ns: no measurement", r->ms[0]);
    if (!(r->ms[2] <= r->ms[0] && r->ms[0] <= r->ms[3]))
        return bad(r, err, "mean", "%g ms is not between min %g and max %g", r->ms[0], r->ms[2],
                   r->ms[3]);
    x = json_object_get(v, "num_trials");
    if (!x)
        return bad(r, err, "num_trials", "missing");
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 100000000)
        return bad(r, err, "num_trials", "must be a whole number of trials, 1 or more");
    r->trials = json_integer_value(x);
    r->hardware = json_string_value(json_object_get(v, "hardware"));
    if (!r->hardware || !r->hardware[0] || strlen(r->hardware) > 128)
        return bad(r, err, "hardware", "must be the GPU's name (torch.cuda.get_device_name())");
    for (const char *p = r->hardware; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            return bad(r, err, "hardware", "must be printable ASCII");
    r->device = json_string_value(json_object_get(v, "device"));
    if (json_object_get(v, "device") && (!r->device || strlen(r->device) > 64))
        return bad(r, err, "device", "must be a short string (\"cuda:0\")");
    snprintf(r->key, sizeof(r->key), "%s/%s", r->e->level_key, r->e->problem);
    r->problem = json_object_get(r->f->problems->index, r->key);
    if (!r->problem)
        return bad(r, err, NULL,
                   "no problem file %s under --problems (the run's workload is bound to it by "
                   "digest)",
                   r->key);
    /* "23_Softmax.py" → name "Softmax", kernel "softmax" (or the alias) */
    {
        const char *after = strchr(r->e->problem, '_') + 1; /* problem_number checked the form */
        snprintf(r->name, sizeof(r->name), "%.*s", (int)(strlen(after) - 3), after);
    }
    {
        size_t k = 0;
        for (const char *p = r->name; *p && k + 1 < sizeof(r->kernel); p++)
            r->kernel[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p == '-' ? '_' : *p);
        while (k && r->kernel[k - 1] == '_')
            k--;
        r->kernel[k] = '\0';
    }
    for (size_t i = 0; i < COUNT(aliases); i++)
        if (strcmp(aliases[i].problem, r->key) == 0)
            snprintf(r->kernel, sizeof(r->kernel), "%s", aliases[i].kernel);
    return KIX_OK;
}

static json_t *object(const char *kind, const char *name, json_t *title, json_t *spec)
{
    return json_pack("{s:s, s:s, s:{s:s, s:o}, s:o}", "apiVersion", KIX_LIGER_API_VERSION, "kind",
                     kind, "metadata", "name", name, "title", title, "spec", spec);
}

/* lowercase; runs of anything but [a-z0-9] become one '-'; trimmed. */
static void slug(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    int dash = 0;
    for (; *s && n + 2 < cap; s++) {
        char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n)
                out[n++] = '-';
            out[n++] = c;
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
}

static int build_protocol(struct kb_row *r, struct kix_liger_run *out, struct kix_err *err)
{
    char name[64], notes[1024];
    snprintf(name, sizeof(name), "kernelbench-baseline-timing-%lld", (long long)r->trials);
    snprintf(notes, sizeof(notes),
             "KernelBench's baseline timing (results/timing/README.md at %s): the wall clock of "
             "each call of the reference Model's forward, %lld trials after %d warm-ups, the "
             "mean with std, min and max, in ms; PyTorch %s, CUDA %s. There is no median: the "
             "mean is the primary statistic. Comparable only within one problem and one GPU on "
             "one host; never with another source's runs, even of a kernel of the same name.",
             KB_COMMIT, (long long)r->trials, KB_WARMUP, KB_TORCH, KB_CUDA);
    return kix_liger_run_object(
        object("BenchmarkProtocol", name,
               json_pack("s", "KernelBench baseline timing" DOT "wall clock, mean"),
               json_pack("{s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:i, s:I}, s:{s:s, s:s}}",
                         "harness", "name", "KernelBench scripts/generate_baseline_time.py",
                         "repository", KB_REPO, "version", KB_COMMIT, "measurement", "timer",
                         "wall_clock", "primaryStatistic", "mean", "metric", "latency", "pass",
                         "forward", "warmupIterations", KB_WARMUP, "iterations", r->trials,
                         "comparability", "notes", notes, "family", "kernelbench_baseline")),
        out, KIX_LIGER_PROTOCOL, err);
}

static int build_workload(struct kb_row *r, struct kix_liger_run *out, struct kix_err *err)
{
    const char *sha = json_string_value(json_object_get(r->problem, "sha256"));
    json_t *params = json_object_get(r->problem, "parameters");
    char name[128], s[200], ref[512];

    char title[256];
    slug(s, sizeof(s), r->name);
    snprintf(name, sizeof(name), "kernelbench-l%d-%d-%.90s", r->e->level, r->e->number, s);
    snprintf(title, sizeof(title), "KernelBench level %d" DOT "%d %s", r->e->level, r->e->number,
             r->name);
    snprintf(ref, sizeof(ref), "KernelBench/%s sha256:%s", r->key, sha);
    return kix_liger_run_object(
        object("Workload", name, json_string(title),
               json_pack("{s:s, s:O, s:{s:i, s:i, s:s, s:s, s:s, s:s}, s:{s:s, s:s}}", "kernel",
                         r->kernel, "parameters", params, "config", "level", r->e->level, "problem",
                         r->e->number, "name", r->name, "file", r->key, "sha256", sha, "repository",
                         KB_REPO, "definition", "name",
                         "the reference PyTorch Model of the problem file", "reference", ref)),
        out, KIX_LIGER_WORKLOAD, err);
}

static int build_environment(struct kb_row *r, struct kix_liger_run *out, struct kix_err *err)
{
    const struct kix_vocab_gpu *known = kix_vocab_gpu(r->hardware);
    const char *shown = r->hardware;
    json_t *hw = json_object(), *labels, *env;
    char name[200], s[160], power[32] = "";

    if (known && strcmp(known->name, r->hardware) == 0) {
        json_object_set_new(hw, "vendor", json_string(known->vendor));
        json_object_set_new(hw, "product", json_string(known->product));
        if (known->form_factor)
            json_object_set_new(hw, "formFactor", json_string(known->form_factor));
        json_object_set_new(hw, "architecture", json_string(known->arch));
    } else {
        /* the name as the row reports it: an A10 stays an A10 */
        if (strncmp(r->hardware, "NVIDIA ", 7) == 0 || strncmp(r->hardware, "Tesla ", 6) == 0)
            json_object_set_new(hw, "vendor", json_string("nvidia"));
        json_object_set_new(hw, "product", json_string(r->hardware));
    }
    for (size_t i = 0; i < COUNT(powers); i++)
        if (strcmp(powers[i].host, r->f->host) == 0 && strcmp(powers[i].gpu, r->hardware) == 0)
            snprintf(power, sizeof(power), "%d W", powers[i].watts);
    labels = json_pack("{s:s}", "host", r->f->host);
    if (labels && power[0])
        json_object_set_new(labels, "powerLimit", json_string(power));
    if (strncmp(shown, "NVIDIA ", 7) == 0)
        shown += 7;
    slug(s, sizeof(s), r->hardware);
    snprintf(name, sizeof(name), "kernelbench-%.30s-%.100s%s%s", r->f->tag, s, power[0] ? "-" : "",
             power[0] ? power : "");
    slug(name + 12, sizeof(name) - 12, name + 12);
    snprintf(s, sizeof(s), "KernelBench host" DOT "%s" DOT "%s%s%s", r->f->host, shown,
             power[0] ? DOT : "", power);
    env = json_pack("{s:s, s:s, s:{s:s, s:o, s:s}, s:{s:o, s:{s:s, s:{s:s}}, s:s}}", "apiVersion",
                    KIX_LIGER_API_VERSION, "kind", "ExecutionEnvironment", "metadata", "name", name,
                    "labels", labels, "title", s, "spec", "hardware", hw, "software", "cudaVersion",
                    KB_CUDA, "frameworks", "torch", KB_TORCH, "notes",
                    power[0] ? "host and power limit from KernelBench's hardware table "
                               "(results/timing/README.md); the GPU as the row names it"
                             : "host from the results directory; KernelBench's hardware table "
                               "gives no power limit for this GPU on this host; the GPU as the "
                               "row names it");
    return kix_liger_run_object(env, out, KIX_LIGER_ENVIRONMENT, err);
}

static int build_implementation(struct kb_row *r, struct kix_liger_run *out, struct kix_err *err)
{
    char name[160];
    snprintf(name, sizeof(name), "kernelbench-impl-%s", r->f->config);
    slug(name + 17, sizeof(name) - 17, r->f->config);
    return kix_liger_run_object(
        object("Implementation", name,
               json_pack("s+", configs[r->f->config_index].name, DOT "PyTorch " KB_TORCH),
               json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "provider", r->f->config, "name",
                         configs[r->f->config_index].name, "project", "PyTorch", "repository",
                         "https://github.com/pytorch/pytorch", "revision", KB_TORCH, "notes",
                         "the problem's reference Model, run by KernelBench's baseline "
                         "script in this PyTorch configuration")),
        out, KIX_LIGER_IMPLEMENTATION, err);
}

static int build_run(struct kb_row *r, struct kix_liger_run *out, struct kix_err *err)
{
    char digests[4][KIX_DIGEST_TEXT_LEN + 1], bench[300], level[8], number[16], title[400], s[300];
    json_t *native, *spec;

    for (int i = 0; i < 4; i++)
        kix_digest_format(&out->digest[i], digests[i]);
    snprintf(bench, sizeof(bench), "%s/forward", r->kernel);
    native = json_pack("{s:s, s:s, s:s, s:{s:f, s:f, s:f, s:f, s:I}, s:s, s:s, s:i, s:s, s:s}",
                       "source", KIX_KB_SOURCE, "benchmark", bench, "externalId", out->external_id,
                       "metrics", "mean_ms", r->ms[0], "std_ms", r->ms[1], "min_ms", r->ms[2],
                       "max_ms", r->ms[3], "num_trials", r->trials, "hardware", r->hardware, "file",
                       r->f->rel, "level", r->e->level, "problem", r->e->problem, "url",
                       KB_REPO "/tree/" KB_COMMIT "/results/timing");
    if (native && r->device)
        json_object_set_new(native, "device", json_string(r->device));
    spec = json_pack("{s:s, s:{s:{s:I, s:I, s:I, s:I}, s:s}, s:o, s:s, s:s, s:s, s:s}", "status",
                     "passed", "timing", "latencyNs", "mean", (json_int_t)r->ns[0], "stddev",
                     (json_int_t)r->ns[1], "min", (json_int_t)r->ns[2], "max", (json_int_t)r->ns[3],
                     "primaryStatistic", "mean", "sourceNative", native, "protocolDigest",
                     digests[KIX_LIGER_PROTOCOL], "workloadDigest", digests[KIX_LIGER_WORKLOAD],
                     "environmentDigest", digests[KIX_LIGER_ENVIRONMENT], "implementationDigest",
                     digests[KIX_LIGER_IMPLEMENTATION]);
    snprintf(level, sizeof(level), "%d", r->e->level);
    snprintf(number, sizeof(number), "%d", r->e->number);
    snprintf(title, sizeof(title), "KernelBench L%d %d %s" DOT "%s" DOT "%s", r->e->level,
             r->e->number, r->name, configs[r->f->config_index].name, r->hardware);
    slug(s, sizeof(s), out->external_id);
    return kix_liger_run_object(
        json_pack("{s:s, s:s, s:{s:s#, s:s, s:{s:s, s:s, s:s, s:s}}, s:o}", "apiVersion",
                  KIX_LIGER_API_VERSION, "kind", "BenchmarkRun", "metadata", "name", s,
                  strlen(s) > 200 ? (size_t)200 : strlen(s), "title", title, "labels",
                  "kernelbench_level", level, "kernelbench_problem", number,
                  "kernelbench_directory", r->f->dir, "kernelbench_config", r->f->config, "spec",
                  spec),
        out, KIX_LIGER_RUN, err);
}

static void run_id(const char *external_id, char out[37])
{
    kix_liger_run_id_in("kix-import-kernelbench/v1\n", external_id, out);
}

/* build(r) through the file's cache: the same inputs give the same bytes.
 * The key holds every input the builders read (the file's host and
 * configuration are the file's own). */
static int cached(struct kb_row *r, int which,
                  int (*make)(struct kb_row *, struct kix_liger_run *, struct kix_err *),
                  struct kix_liger_run *out, struct kix_err *err)
{
    struct kix_kb_file *f = r->f;
    char key[160];
    int rc;

    if (which == KIX_LIGER_PROTOCOL)
        snprintf(key, sizeof(key), "%lld", (long long)r->trials);
    else if (which == KIX_LIGER_ENVIRONMENT)
        snprintf(key, sizeof(key), "%s", r->hardware);
    else
        key[0] = '\0';
    for (size_t i = 0; i < f->ncache; i++)
        if (f->cache[i].which == which && strcmp(f->cache[i].key, key) == 0) {
            kix_buf_reset(&out->canon[which]);
            if (kix_buf_add(&out->canon[which], f->cache[i].canon.ptr, f->cache[i].canon.len))
                return oom(err);
            out->digest[which] = f->cache[i].digest;
            return KIX_OK;
        }
    rc = make(r, out, err);
    if (rc == KIX_OK && f->ncache < KB_CACHE_MAX && strlen(r->hardware) < sizeof(key)) {
        struct kb_cached *c = &f->cache[f->ncache];
        memset(c, 0, sizeof(*c));
        if (kix_buf_add(&c->canon, out->canon[which].ptr, out->canon[which].len) == KIX_OK) {
            c->which = which;
            snprintf(c->key, sizeof(c->key), "%s", key);
            c->digest = out->digest[which];
            f->ncache++;
        } else {
            kix_buf_release(&c->canon);
        }
    }
    return rc;
}

int kix_kb_row(struct kix_kb_file *f, size_t i, int build, struct kix_liger_run *out,
               struct kix_kb_row *row, struct kix_err *err)
{
    struct kb_row r;
    int rc;

    memset(&r, 0, sizeof(r));
    memset(row, 0, sizeof(*row));
    r.f = f;
    r.e = &f->entries[i];
    r.id = row;
    row->level = r.e->level;
    row->number = r.e->number;
    snprintf(row->problem, sizeof(row->problem), "%s", r.e->problem);
    /* RFC 6901: '~' and '/' escaped (a problem name holds neither, but a
     * malformed file may) */
    {
        size_t n = (size_t)snprintf(row->pointer, sizeof(row->pointer), "/%s/", r.e->level_key);
        for (const char *p = r.e->problem; *p && n + 3 < sizeof(row->pointer); p++) {
            if (*p == '~' || *p == '/') {
                row->pointer[n++] = '~';
                row->pointer[n++] = *p == '~' ? '0' : '1';
            } else {
                row->pointer[n++] = *p;
            }
        }
        row->pointer[n] = '\0';
    }
    if (json_is_null(r.e->value)) {
        kix_err_set(err, KIX_EINVAL,
                    "%s: null: KernelBench recorded no timing for this problem in this "
                    "configuration (it did not run)",
                    row->pointer);
        return KIX_KB_SKIP;
    }
    if ((rc = check_row(&r, err)) != KIX_OK)
        return rc;
    snprintf(out->external_id, sizeof(out->external_id), "kernelbench/%s/%s/level%d/%.*s", f->dir,
             f->config, r.e->level, (int)(strlen(r.e->problem) - 3), r.e->problem);
    run_id(out->external_id, out->run_id);
    out->line = i + 1;
    out->memory = 0;
    out->median = r.ns[0];
    out->p20 = r.ns[2];
    out->p80 = r.ns[3];
    rc = cached(&r, KIX_LIGER_PROTOCOL, build_protocol, out, err);
    if (rc == KIX_OK)
        rc = build_workload(&r, out, err);
    if (rc == KIX_OK)
        rc = cached(&r, KIX_LIGER_ENVIRONMENT, build_environment, out, err);
    if (rc == KIX_OK)
        rc = cached(&r, KIX_LIGER_IMPLEMENTATION, build_implementation, out, err);
    if (rc == KIX_OK && build)
        rc = build_run(&r, out, err);
    else if (rc == KIX_OK)
        kix_buf_reset(&out->canon[KIX_LIGER_RUN]);
    return rc;
}
