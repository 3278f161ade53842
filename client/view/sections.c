/* A run's sections in words (kix/view.h, struct kix_view_section): every
 * value a reader is shown below the header, flattened from the manifest and
 * the objects it names, each row saying which field it was read from. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/canon.h"
#include "kix/view.h"
#include "view_internal.h"

enum { IDENTITY, CORRECTNESS, WORKLOAD, MEASUREMENTS, PROTOCOL, ENVIRONMENT, ARTIFACTS };

static const char *const titles[KIX_VIEW_SECTIONS] = {
    "Identity", "Correctness", "Workload", "Measurements", "Protocol", "Environment", "Artifacts"};
static const char *const empties[KIX_VIEW_SECTIONS] = {"Nothing recorded.",
                                                       "Nothing recorded.",
                                                       "No workload recorded.",
                                                       "No measurements.",
                                                       "No protocol recorded.",
                                                       "No environment recorded.",
                                                       "No artifacts published with this run."};

json_t *kix__json_pointer(json_t *doc, const char *ptr)
{
    char key[256];

    while (doc && *ptr == '/') {
        size_t n = 0;
        for (ptr++; *ptr && *ptr != '/' && n + 1 < sizeof(key); ptr++)
            if (*ptr == '~' && (ptr[1] == '0' || ptr[1] == '1'))
                key[n++] = *++ptr == '0' ? '~' : '/';
            else
                key[n++] = *ptr;
        key[n] = '\0';
        if (json_is_array(doc)) {
            char *end;
            unsigned long i = strtoul(key, &end, 10);
            doc = *key && !*end ? json_array_get(doc, i) : NULL;
        } else {
            doc = json_object_get(doc, key);
        }
    }
    return *ptr ? NULL : doc;
}

json_t *kix__view_object(const struct kix_run_view *v, const char *field)
{
    const char *digest =
        json_string_value(json_object_get(json_object_get(v->manifest, "spec"), field));

    for (size_t i = 0; digest && i < v->nobjects; i++)
        if (v->objects[i].json && strcmp(v->objects[i].digest, digest) == 0)
            return v->objects[i].json;
    return NULL;
}

static struct kix_view_row *add_row(struct kix_view_section *s, const char *label,
                                    const char *object, const char *ptr, const char *fmt)
{
    struct kix_view_row *r;

    r = kix_array_grow(s->rows, &s->cap, s->nrows, 16, sizeof(*r));
    if (!r)
        return NULL;
    s->rows = r;
    r = &s->rows[s->nrows++];
    memset(r, 0, sizeof(*r));
    snprintf(r->label, sizeof(r->label), "%s", label);
    kix__utf8_trim(r->label);
    r->object = object ? object : "";
    snprintf(r->ptr, sizeof(r->ptr), "%s", ptr ? ptr : "");
    r->fmt = fmt;
    r->words = "";
    return r;
}

/* A computed row (no single field): value in words; kind names how the
 * page's verifier computes it again (kix_view_row.words). */
static int words_row(struct kix_view_section *s, const char *label, const char *kind,
                     const char *value)
{
    struct kix_view_row *r = add_row(s, label, "", "", "text");

    if (!r)
        return KIX_ENOMEM;
    r->words = kind;
    snprintf(r->value, sizeof(r->value), "%s", value);
    kix__utf8_trim(r->value);
    return KIX_OK;
}

/* A scalar as text: strings as they are, numbers in their shortest exact
 * form, booleans as true/false. 0 when v is no scalar. */
static int scalar_text(json_t *v, char *out, size_t cap)
{
    struct kix_buf num = KIX_BUF_INIT;

    if (json_is_string(v))
        snprintf(out, cap, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v) && kix_canon_number(json_real_value(v), &num) == KIX_OK)
        snprintf(out, cap, "%.*s", (int)num.len, (const char *)num.ptr);
    else if (json_is_boolean(v))
        snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
    else {
        kix_buf_release(&num);
        return 0;
    }
    kix_buf_release(&num);
    return 1;
}

void kix_view_format(json_t *v, const char *fmt, char *out, size_t cap)
{
    size_t i, n = 0;
    json_t *x;

    out[0] = '\0';
    if (strcmp(fmt, "ns") == 0 || strcmp(fmt, "bytes") == 0) {
        if (json_is_integer(v))
            kix_human(json_integer_value(v), fmt[0] == 'b', out, cap);
        return;
    }
    if (strcmp(fmt, "date") == 0) {
        snprintf(out, cap, "%.10s", json_is_string(v) ? json_string_value(v) : "");
        return;
    }
    if (strcmp(fmt, "gpu") == 0) {
        const char *product = json_string_value(json_object_get(v, "product"));
        const char *arch = json_string_value(json_object_get(v, "architecture"));
        snprintf(out, cap, "%s%s%s%s", product ? product : "", arch ? " (" : "", arch ? arch : "",
                 arch ? ")" : "");
        return;
    }
    if (strcmp(fmt, "shape") == 0) {
        const char *dtype = json_string_value(json_object_get(v, "dtype"));
        n = (size_t)snprintf(out, cap, "%s%s[", dtype ? dtype : "", dtype ? " " : "");
        json_array_foreach(json_object_get(v, "shape"), i, x)
        {
            if (n < cap)
                n += (size_t)snprintf(out + n, cap - n, "%s%" JSON_INTEGER_FORMAT, i ? ", " : "",
                                      json_integer_value(x));
        }
        if (n < cap)
            snprintf(out + n, cap - n, "]");
        return;
    }
    if (strcmp(fmt, "list") == 0) {
        json_array_foreach(v, i, x)
        {
            char item[256];
            if (n < cap && scalar_text(x, item, sizeof(item)))
                n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", item);
        }
        return;
    }
    scalar_text(v, out, cap); /* text, count */
}

/* A row read from one field: its value written by fmt. */
static int field_row(struct kix_view_section *s, const char *label, const char *object, json_t *doc,
                     const char *ptr, const char *fmt)
{
    json_t *v = kix__json_pointer(doc, ptr);
    struct kix_view_row *r;

    if (!v || json_is_null(v))
        return KIX_OK;
    if (!(r = add_row(s, label, object, ptr, fmt)))
        return KIX_ENOMEM;
    kix_view_format(v, fmt, r->value, sizeof(r->value));
    kix__utf8_trim(r->value);
    return KIX_OK;
}

/* "primaryStatistic" → "primary statistic"; snake_case stays as it is. */
static void words(const char *key, char *out, size_t cap)
{
    size_t n = 0;

    for (; *key && n + 2 < cap; key++) {
        if (isupper((unsigned char)*key) && n && !isupper((unsigned char)key[-1]))
            out[n++] = ' ';
        out[n++] = isupper((unsigned char)*key) && !isupper((unsigned char)key[1]) && key[1]
                       ? (char)tolower((unsigned char)*key)
                       : *key;
    }
    out[n] = '\0';
}

/* Keys that say little alone: labelled with their parent's words. */
static int vague(const char *key)
{
    static const char *const keys[] = {"name",       "notes",   "family", "version",
                                       "repository", "command", "source", "url",
                                       "label",      "value",   "kind",   "digest"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

/* ptr + "/" + key escaped (RFC 6901). A pointer that does not fit becomes
 * "?", which names nothing (kix__json_pointer: NULL), so a field too deep
 * for a row is left out rather than shown under another field's name. */
static void ptr_append(char *ptr, size_t cap, const char *key)
{
    size_t n = strlen(ptr);

    if (ptr[0] == '?' || n + 2 > cap)
        goto too_long;
    ptr[n++] = '/';
    for (; *key; key++) {
        if (n + 3 > cap)
            goto too_long;
        if (*key == '~' || *key == '/') {
            ptr[n++] = '~';
            ptr[n++] = *key == '~' ? '0' : '1';
        } else {
            ptr[n++] = *key;
        }
    }
    ptr[n] = '\0';
    return;
too_long:
    snprintf(ptr, cap, "?");
}

/* Every scalar under v (at ptr) as its own row. prefix: the label's start
 * (may be ""); parent: the words of the key holding v, for vague keys. */
static int flatten(struct kix_view_section *s, const char *object, json_t *doc, json_t *v,
                   const char *ptr, const char *prefix, const char *parent)
{
    char label[96], sub[192], kw[64];
    const char *key;
    json_t *x;
    size_t i;
    int rc = KIX_OK;

    if (json_is_object(v)) {
        json_object_foreach(v, key, x)
        {
            snprintf(sub, sizeof(sub), "%s", ptr);
            ptr_append(sub, sizeof(sub), key);
            words(key, kw, sizeof(kw));
            if (json_is_object(x) && strcmp(key, "measurement") == 0) {
                rc = flatten(s, object, doc, x, sub, prefix, kw); /* timer, pass: words enough */
            } else if (json_is_object(x)) {
                snprintf(label, sizeof(label), "%s%s ", prefix, kw);
                rc = flatten(s, object, doc, x, sub, label, kw);
            } else if (json_is_array(x)) {
                snprintf(label, sizeof(label), "%s%s", prefix, kw);
                rc = flatten(s, object, doc, x, sub, label, kw);
            } else {
                const char *fmt = json_is_integer(x) ? "count" : "text";
                size_t kl = strlen(kw);
                if (json_is_integer(x) && strcmp(kw, "bytes") == 0) {
                    snprintf(kw, sizeof(kw), "size"); /* an artifact's size */
                    fmt = "bytes";
                } else if (json_is_integer(x) && kl > 6 && strcmp(kw + kl - 6, " bytes") == 0) {
                    kw[kl - 6] = '\0';
                    fmt = "bytes";
                } else if (json_is_integer(x) && kl > 3 && strcmp(kw + kl - 3, " ns") == 0) {
                    kw[kl - 3] = '\0';
                    fmt = "ns";
                }
                if (vague(key) && *parent && !*prefix)
                    snprintf(label, sizeof(label), "%s %s", parent, kw);
                else if (strcmp(key, "name") == 0 && *prefix)
                    snprintf(label, sizeof(label), "%.*s", (int)strlen(prefix) - 1, prefix);
                else
                    snprintf(label, sizeof(label), "%s%s", prefix, kw);
                rc = field_row(s, label, object, doc, sub, fmt);
            }
            if (rc)
                return rc;
        }
        return KIX_OK;
    }
    if (!json_is_array(v))
        return KIX_OK;
    {
        int scalars = 1;
        json_array_foreach(v, i, x) scalars &= !json_is_object(x) && !json_is_array(x);
        if (scalars)
            return json_array_size(v) ? field_row(s, prefix, object, doc, ptr, "list") : KIX_OK;
    }
    json_array_foreach(v, i, x)
    {
        if ((size_t)snprintf(sub, sizeof(sub), "%s/%zu", ptr, i) >= sizeof(sub) || *ptr == '?')
            snprintf(sub, sizeof(sub), "?");
        snprintf(label, sizeof(label), "%s %zu ", prefix, i + 1);
        if ((rc = flatten(s, object, doc, x, sub, label, "")))
            return rc;
    }
    return KIX_OK;
}

/* "x (swept)  H (hidden size) = 512": the sweep a source's row came
 * from, the object at ptr in doc (name, label, value). */
static int swept_row(struct kix_view_section *s, json_t *doc, const char *ptr, const char *kind)
{
    char name[256] = "", label[256] = "", value[256] = "", text[800], p[64];

    snprintf(p, sizeof(p), "%s/name", ptr);
    scalar_text(kix__json_pointer(doc, p), name, sizeof(name));
    snprintf(p, sizeof(p), "%s/label", ptr);
    scalar_text(kix__json_pointer(doc, p), label, sizeof(label));
    snprintf(p, sizeof(p), "%s/value", ptr);
    scalar_text(kix__json_pointer(doc, p), value, sizeof(value));
    snprintf(text, sizeof(text), "%s%s%s%s%s%s", name, *label ? " (" : "", label, *label ? ")" : "",
             *value ? " = " : "", value);
    return words_row(s, "x (swept)", kind, text);
}

static int identity(struct kix_run_view *v, struct kix_view_section *s)
{
    json_t *impl = kix__view_object(v, "implementationDigest");
    json_t *work = kix__view_object(v, "workloadDigest");
    const char *k;
    json_t *x;
    char label[96];
    int rc = KIX_OK;

    if (impl) {
        rc = field_row(s, "implementation", "implementationDigest", impl, "/spec/name", "text");
        json_object_foreach(json_object_get(impl, "spec"), k, x)
        {
            char ptr[192] = "/spec", kw[64];
            if (rc || strcmp(k, "name") == 0)
                continue;
            ptr_append(ptr, sizeof(ptr), k);
            words(k, kw, sizeof(kw));
            snprintf(label, sizeof(label), "%s%s", vague(k) ? "implementation " : "", kw);
            if (strcmp(k, "repository") == 0)
                snprintf(label, sizeof(label), "repository");
            rc = field_row(s, label, "implementationDigest", impl, ptr, "text");
        }
        if (rc == KIX_OK && !json_object_get(json_object_get(impl, "spec"), "revision"))
            rc = words_row(s, "revision", "revision", "unknown");
    }
    if (rc == KIX_OK && work)
        rc = field_row(s, "workload", "workloadDigest", work, "/metadata/title", "text");
    json_object_foreach(json_object_get(json_object_get(v->manifest, "metadata"), "labels"), k, x)
    {
        char ptr[192] = "/metadata/labels";
        if (rc)
            break;
        ptr_append(ptr, sizeof(ptr), k);
        snprintf(label, sizeof(label), "label %s", k);
        rc = field_row(s, label, "manifest", v->manifest, ptr, "text");
    }
    if (rc == KIX_OK)
        rc = *v->observed
                 ? field_row(s, "observed at", "manifest", v->manifest, "/spec/observedAt", "text")
                 : words_row(s, "observed at", "observed", "not recorded");
    if (rc == KIX_OK)
        rc = field_row(s, "benchmark", "manifest", v->manifest, "/spec/sourceNative/benchmark",
                       "text");
    if (rc == KIX_OK)
        rc = words_row(s, "comparison key", "comparison-key",
                       v->res->rank.group_size ? v->group : "(not ranked)");
    if (rc == KIX_OK && v->source[0])
        rc = words_row(s, "source", "source", v->source);
    if (rc == KIX_OK)
        rc = field_row(s, "source url", "manifest", v->manifest, "/spec/sourceNative/url", "text");
    if (rc == KIX_OK)
        rc = field_row(s, "external id", "manifest", v->manifest, "/spec/sourceNative/externalId",
                       "text");
    /* the row's provenance (a Liger import since issue 37.5): the sweep it
     * came from and the source's config, the run's and not the workload's */
    if (rc == KIX_OK && json_is_object(kix__json_pointer(v->manifest, "/spec/sourceNative/x")))
        rc = swept_row(s, v->manifest, "/spec/sourceNative/x", "swept-run");
    if (rc == KIX_OK)
        rc = flatten(s, "manifest", v->manifest,
                     kix__json_pointer(v->manifest, "/spec/sourceNative/config"),
                     "/spec/sourceNative/config", "config ", "config");
    if (rc == KIX_OK)
        rc = words_row(s, "digest", "digest", v->manifest_digest);
    return rc;
}

static int correctness(struct kix_run_view *v, struct kix_view_section *s)
{
    const char *status = json_string_value(kix__json_pointer(v->manifest, "/spec/status"));
    json_t *c = kix__json_pointer(v->manifest, "/spec/correctness");

    snprintf(s->note, sizeof(s->note), "Marked %s by the source; %s", status ? status : "unknown",
             json_object_get(c, "policy") ? "its correctness policy is below."
                                          : "the correctness policy was not published.");
    return flatten(s, "manifest", v->manifest, c, "/spec/correctness", "", "correctness");
}

static int workload(struct kix_run_view *v, struct kix_view_section *s)
{
    json_t *w = kix__view_object(v, "workloadDigest"), *spec = json_object_get(w, "spec"), *x;
    const char *k;
    size_t i;
    int rc = field_row(s, "kernel", "workloadDigest", w, "/spec/kernel", "text");

    json_object_foreach(json_object_get(spec, "parameters"), k, x)
    {
        char ptr[192] = "/spec/parameters";
        if (rc)
            return rc;
        ptr_append(ptr, sizeof(ptr), k);
        rc = field_row(s, k, "workloadDigest", w, ptr, json_is_integer(x) ? "count" : "text");
    }
    /* an older Liger import's workload names the sweep its row came from */
    if (rc == KIX_OK && json_object_get(spec, "x"))
        rc = swept_row(s, w, "/spec/x", "swept");
    if (rc == KIX_OK)
        rc = field_row(s, "dtype", "workloadDigest", w, "/spec/dtype", "text");
    json_array_foreach(json_object_get(spec, "tensors"), i, x)
    {
        char ptr[192];
        const char *name = json_string_value(json_object_get(x, "name"));
        if (rc)
            return rc;
        snprintf(ptr, sizeof(ptr), "/spec/tensors/%zu", i);
        rc = field_row(s, name ? name : "tensor", "workloadDigest", w, ptr, "shape");
    }
    if (rc == KIX_OK)
        rc = flatten(s, "workloadDigest", w, json_object_get(spec, "definition"),
                     "/spec/definition", "definition ", "definition");
    if (rc == KIX_OK)
        rc = flatten(s, "workloadDigest", w, json_object_get(spec, "config"), "/spec/config",
                     "config ", "config");
    return rc;
}

static int measurements(struct kix_run_view *v, struct kix_view_section *s)
{
    const struct kix_figures *f = &v->primary;
    const char *unit_fmt = f->bytes ? "bytes" : "ns";
    char label[96];
    json_t *m;
    const char *k;
    size_t i;
    int rc = KIX_OK;

    if (f->have) {
        char ptr[64];
        snprintf(label, sizeof(label), "%s \xc2\xb7 %s", kix_figures_metric(f), f->statistic);
        snprintf(ptr, sizeof(ptr), "%s/%s",
                 f->bytes ? "/spec/memory/peakBytes" : "/spec/timing/latencyNs", f->statistic);
        rc = field_row(s, label, "manifest", v->manifest, ptr, unit_fmt);
    }
    json_array_foreach(kix__json_pointer(v->manifest, "/spec/measurements"), i, m)
    {
        const char *unit = json_string_value(json_object_get(m, "unit"));
        const char *fmt = unit && strcmp(unit, "ns") == 0                                  ? "ns"
                          : unit && (strcmp(unit, "B") == 0 || strcmp(unit, "bytes") == 0) ? "bytes"
                                                                                           : "text";
        char ptr[64];
        struct kix_view_row *r;
        if (rc)
            return rc;
        snprintf(label, sizeof(label), "%s \xc2\xb7 %s",
                 json_string_value(json_object_get(m, "metric"))
                     ? json_string_value(json_object_get(m, "metric"))
                     : "measurement",
                 json_string_value(json_object_get(m, "statistic"))
                     ? json_string_value(json_object_get(m, "statistic"))
                     : "value");
        snprintf(ptr, sizeof(ptr), "/spec/measurements/%zu/value", i);
        rc = field_row(s, label, "manifest", v->manifest, ptr, fmt);
        if (rc == KIX_OK && strcmp(fmt, "text") == 0 && unit && s->nrows &&
            strcmp(s->rows[s->nrows - 1].ptr, ptr) == 0) {
            r = &s->rows[s->nrows - 1]; /* a unit kix has no words for: said after the value */
            snprintf(r->value + strlen(r->value), sizeof(r->value) - strlen(r->value), " %s", unit);
            r->object = "";
            r->ptr[0] = '\0';
        }
    }
    json_object_foreach(kix__json_pointer(v->manifest, "/spec/sourceNative/metrics"), k, m)
    {
        char ptr[192] = "/spec/sourceNative/metrics";
        if (rc)
            return rc;
        ptr_append(ptr, sizeof(ptr), k);
        snprintf(label, sizeof(label), "source %s", k);
        rc = field_row(s, label, "manifest", v->manifest, ptr, "text");
    }
    return rc;
}

static int environment(struct kix_run_view *v, struct kix_view_section *s)
{
    json_t *env = kix__view_object(v, "environmentDigest");
    json_t *hw = kix__json_pointer(env, "/spec/hardware"),
           *sw = kix__json_pointer(env, "/spec/software");
    const char *k;
    json_t *x;
    int rc = KIX_OK;

    if (!env)
        return KIX_OK;
    /* one field row (fmt "gpu": product and architecture), so that the
     * page's verifier writes the GPU's name from the proven object too */
    if (*v->gpu)
        rc = field_row(s, "gpu", "environmentDigest", env, "/spec/hardware", "gpu");
    json_object_foreach(hw, k, x)
    {
        char ptr[192] = "/spec/hardware", kw[64];
        if (rc)
            return rc;
        if (strcmp(k, "product") == 0 || strcmp(k, "architecture") == 0)
            continue;
        ptr_append(ptr, sizeof(ptr), k);
        words(k, kw, sizeof(kw));
        if (json_is_object(x) || json_is_array(x)) {
            char prefix[96];
            snprintf(prefix, sizeof(prefix), "%s ", kw);
            rc = flatten(s, "environmentDigest", env, x, ptr, prefix, kw);
        } else if (strcmp(k, "memoryBytes") == 0) {
            rc = field_row(s, "memory", "environmentDigest", env, ptr, "bytes");
        } else {
            rc = field_row(s, kw, "environmentDigest", env, ptr,
                           json_is_integer(x) ? "count" : "text");
        }
    }
    if (rc == KIX_OK && json_object_size(sw))
        rc = flatten(s, "environmentDigest", env, sw, "/spec/software", "", "software");
    else if (rc == KIX_OK)
        rc = words_row(s, "software", "software", "not recorded");
    if (rc == KIX_OK)
        rc = field_row(s, "notes", "environmentDigest", env, "/spec/notes", "text");
    return rc;
}

int kix_run_view_sections(struct kix_run_view *v, struct kix_err *err)
{
    json_t *protocol = kix__view_object(v, "protocolDigest");
    int rc;

    for (int i = 0; i < KIX_VIEW_SECTIONS; i++) {
        v->sections[i].title = titles[i];
        v->sections[i].empty = empties[i];
    }
    if ((rc = identity(v, &v->sections[IDENTITY])) ||
        (rc = correctness(v, &v->sections[CORRECTNESS])) ||
        (rc = workload(v, &v->sections[WORKLOAD])) ||
        (rc = measurements(v, &v->sections[MEASUREMENTS])) ||
        (rc = flatten(&v->sections[PROTOCOL], "protocolDigest", protocol,
                      json_object_get(protocol, "spec"), "/spec", "", "")) ||
        (rc = environment(v, &v->sections[ENVIRONMENT])) ||
        (rc = flatten(&v->sections[ARTIFACTS], "manifest", v->manifest,
                      kix__json_pointer(v->manifest, "/spec/artifacts"), "/spec/artifacts",
                      "artifact", "artifact")))
        return kix_err_set(err, rc, "out of memory");
    return KIX_OK;
}

void kix__view_sections_release(struct kix_run_view *v)
{
    for (int i = 0; i < KIX_VIEW_SECTIONS; i++)
        free(v->sections[i].rows);
}
