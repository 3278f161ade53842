/* The record schemas' validator: an interpreter of exactly the JSON Schema
 * keywords proto/schema/ uses (kix/schema.h). */
#include "kix/schema.h"

#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/pattern.h"

/* generated from proto/schema/ at build time (kix_schemas.c) */
struct kix__schema_file {
    const char *name;
    const char *text;
    size_t len;
};
extern const struct kix__schema_file kix__schema_files[];
extern const size_t kix__schema_nfiles;

struct pattern {
    const json_t *node;       /* the "pattern" string of one schema node */
    struct kix_pattern *fast; /* the matcher (kix/pattern.h), when the pattern is in its subset */
    regex_t re;               /* else POSIX regex (compiled only then) */
};

struct snode;

/* One entry of "properties", in strcmp order of its name. */
struct sprop {
    const char *name;
    const struct snode *node;
};

/* One schema object, its keywords looked up once at compile time. */
struct snode {
    const json_t *json;
    const json_t *ref; /* the $defs entry its $ref names, or NULL */
    const json_t *type, *cnst, *enm, *min, *max, *minl, *maxl, *pattern, *format, *desc, *required,
        *props, *extra, *items, *minitems, *maxitems, *any, *kind;
    const struct pattern *re;
    unsigned types; /* TYPE_* bits of "type"; 0 when it has none */
    int nonneg;     /* "type": "integer" with "minimum": 0 */
    /* "properties" sorted by name, so that an object's members (sorted
     * too, as canonical JSON has them) meet theirs in one merge instead of
     * a hash lookup each; and each name of "required" as its index there
     * (NO_PROP: a name "properties" lacks) */
    struct sprop *sprops;
    size_t nsprops;
    size_t *required_at;
};

#define NO_PROP ((size_t)-1)

struct kix_schema {
    json_t *root;
    char name[64];
    const char *subject_kind;
    struct pattern *patterns;
    size_t npatterns, cap;
    struct snode *nodes; /* every schema object, found by its json_t (slots) */
    size_t nnodes, ncap;
    size_t *slots; /* node index + 1; 0 = empty */
    size_t nslots; /* a power of two */
};

/* ---- compiling -------------------------------------------------------------- */

static const char *const annotations[] = {
    "$schema",    "$id",        "$comment",           "title", "description",
    "x-kix-unit", "x-kix-kind", "x-kix-subject-kind", "$defs"};
static const char *const keywords[] = {
    "type",      "properties", "required", "additionalProperties",
    "enum",      "const",      "minimum",  "maximum",
    "minLength", "maxLength",  "pattern",  "format",
    "items",     "minItems",   "maxItems", "anyOf",
    "$ref"};
static const char *const types[] = {"object",  "array",   "string", "number",
                                    "integer", "boolean", "null"};

static int in_list(const char *k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k, list[i]) == 0)
            return 1;
    return 0;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int bad(struct kix_err *err, const char *where, const char *fmt, ...) KIX_PRINTF(3, 4);
static int bad(struct kix_err *err, const char *where, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return kix_err_set(err, KIX_EINVAL, "schema %s: %s", where[0] ? where : "(root)", msg);
}

static int is_count(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

static int compile_node(struct kix_schema *s, const json_t *node, const char *where, int depth,
                        struct kix_err *err);

static int compile_child(struct kix_schema *s, const json_t *node, const char *where,
                         const char *key, int depth, struct kix_err *err)
{
    char sub[KIX_SCHEMA_POINTER_MAX];
    int n = snprintf(sub, sizeof(sub), "%s/%s", where, key);
    if (n < 0 || (size_t)n >= sizeof(sub))
        return kix_err_set(err, KIX_EINVAL, "schema: the path %.64s.../%.64s is too deep", where,
                           key);
    return compile_node(s, node, sub, depth + 1, err);
}

static int add_pattern(struct kix_schema *s, const json_t *p, const char *where,
                       struct kix_err *err)
{
    struct pattern *np;
    int rc;

    if (s->npatterns == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        np = realloc(s->patterns, cap * sizeof(*np));
        if (!np)
            return kix_err_set(err, KIX_ENOMEM, "compiling a schema: out of memory");
        s->patterns = np;
        s->cap = cap;
    }
    /* regcomp's memory grows exponentially with stacked or nested repeats */
    if (!kix_pattern_regex_tame(json_string_value(p)))
        return bad(err, where,
                   "pattern %.64s is too complex (stacked or nested repetitions, a bound over "
                   "255, or over 4096 atoms when expanded): write it more simply",
                   json_string_value(p));
    /* the matcher's subset is POSIX extended syntax decided alike (the
     * differential tests hold it to that): regcomp only for the rest */
    rc = kix_pattern_compile(json_string_value(p), &s->patterns[s->npatterns].fast);
    if (rc == KIX_ENOMEM)
        return kix_err_set(err, KIX_ENOMEM, "compiling a schema: out of memory");
    if (rc != KIX_OK &&
        regcomp(&s->patterns[s->npatterns].re, json_string_value(p), REG_EXTENDED | REG_NOSUB))
        return bad(err, where, "pattern %s is not a POSIX extended regular expression",
                   json_string_value(p));
    s->patterns[s->npatterns++].node = p;
    return KIX_OK;
}

static int compile_ref(const struct kix_schema *s, const json_t *v, const char *where,
                       struct kix_err *err)
{
    const char *ref = json_string_value(v);
    if (!ref || strncmp(ref, "#/$defs/", 8) != 0)
        return bad(err, where, "$ref must be \"#/$defs/NAME\"");
    if (!json_is_object(json_object_get(json_object_get(s->root, "$defs"), ref + 8)))
        return bad(err, where, "$ref %s names no entry of $defs", ref);
    return KIX_OK;
}

static int compile_type(const json_t *v, const char *where, struct kix_err *err)
{
    size_t i;
    const json_t *t;

    if (json_is_string(v))
        return in_list(json_string_value(v), types, COUNT(types))
                   ? KIX_OK
                   : bad(err, where, "unknown type %s", json_string_value(v));
    if (!json_is_array(v) || !json_array_size(v))
        return bad(err, where, "type must be a type name or a non-empty array of them");
    json_array_foreach(v, i, t)
    {
        if (!json_is_string(t) || !in_list(json_string_value(t), types, COUNT(types)))
            return bad(err, where, "type names an unknown type");
    }
    return KIX_OK;
}

static int compile_keyword(struct kix_schema *s, const char *k, const json_t *v, const char *where,
                           int depth, struct kix_err *err)
{
    const char *key;
    const json_t *sub;
    size_t i;
    int rc = KIX_OK;

    if (strcmp(k, "type") == 0)
        return compile_type(v, where, err);
    if (strcmp(k, "properties") == 0 || strcmp(k, "$defs") == 0) {
        if (!json_is_object(v))
            return bad(err, where, "%s must be an object of schemas", k);
        json_object_foreach((json_t *)v, key, sub)
        {
            char sub_where[KIX_SCHEMA_POINTER_MAX];
            snprintf(sub_where, sizeof(sub_where), "%s/%s", where, k);
            rc = compile_child(s, sub, sub_where, key, depth, err);
            if (rc)
                return rc;
        }
        return KIX_OK;
    }
    if (strcmp(k, "required") == 0) {
        if (!json_is_array(v))
            return bad(err, where, "required must be an array of names");
        json_array_foreach(v, i, sub)
        {
            if (!json_is_string(sub))
                return bad(err, where, "required must be an array of names");
        }
        return KIX_OK;
    }
    if (strcmp(k, "additionalProperties") == 0)
        return json_is_boolean(v) ? KIX_OK : compile_child(s, v, where, k, depth, err);
    if (strcmp(k, "items") == 0)
        return compile_child(s, v, where, k, depth, err);
    if (strcmp(k, "enum") == 0)
        return json_is_array(v) && json_array_size(v)
                   ? KIX_OK
                   : bad(err, where, "enum must be a non-empty array");
    if (strcmp(k, "const") == 0)
        return KIX_OK;
    if (strcmp(k, "minimum") == 0 || strcmp(k, "maximum") == 0)
        return json_is_number(v) ? KIX_OK : bad(err, where, "%s must be a number", k);
    if (strcmp(k, "minLength") == 0 || strcmp(k, "maxLength") == 0 || strcmp(k, "minItems") == 0 ||
        strcmp(k, "maxItems") == 0)
        return is_count(v) ? KIX_OK : bad(err, where, "%s must be a non-negative integer", k);
    if (strcmp(k, "pattern") == 0)
        return json_is_string(v) ? add_pattern(s, v, where, err)
                                 : bad(err, where, "pattern must be a string");
    if (strcmp(k, "format") == 0)
        return json_is_string(v) && strcmp(json_string_value(v), "date-time") == 0
                   ? KIX_OK
                   : bad(err, where, "the only format implemented is date-time");
    if (strcmp(k, "anyOf") == 0) {
        if (!json_is_array(v) || !json_array_size(v))
            return bad(err, where, "anyOf must be a non-empty array of schemas");
        json_array_foreach(v, i, sub)
        {
            char idx[32];
            snprintf(idx, sizeof(idx), "anyOf/%zu", i);
            rc = compile_child(s, sub, where, idx, depth, err);
            if (rc)
                return rc;
        }
        return KIX_OK;
    }
    if (strcmp(k, "$ref") == 0)
        return compile_ref(s, v, where, err);
    return bad(err, where, "keyword %s is not implemented by the kix validator", k);
}

static int compile_node(struct kix_schema *s, const json_t *node, const char *where, int depth,
                        struct kix_err *err)
{
    const char *k;
    const json_t *v;

    if (depth > 32)
        return bad(err, where, "nested more than 32 deep");
    if (!json_is_object(node))
        return bad(err, where, "a schema must be an object");
    json_object_foreach((json_t *)node, k, v)
    {
        int rc;
        if (strcmp(k, "$defs") != 0 && in_list(k, annotations, COUNT(annotations))) {
            if ((strcmp(k, "x-kix-kind") == 0 || strcmp(k, "x-kix-subject-kind") == 0) &&
                !kix_record_kind_known(json_string_value(v)))
                return bad(err, where, "%s must name a record kind", k);
            continue;
        }
        if (!in_list(k, keywords, COUNT(keywords)) && strcmp(k, "$defs") != 0)
            return bad(err, where, "keyword %s is not implemented by the kix validator", k);
        rc = compile_keyword(s, k, v, where, depth, err);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

void kix_schema_free(struct kix_schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->npatterns; i++) {
        if (s->patterns[i].fast)
            kix_pattern_free(s->patterns[i].fast);
        else
            regfree(&s->patterns[i].re);
    }
    free(s->patterns);
    for (size_t i = 0; s->nodes && i < s->nnodes; i++) {
        free(s->nodes[i].sprops);
        free(s->nodes[i].required_at);
    }
    free(s->nodes);
    free(s->slots);
    json_decref(s->root);
    free(s);
}

/* ---- the node index (built once the schema compiled) -------------------------- */

enum {
    TYPE_OBJECT = 1,
    TYPE_ARRAY = 2,
    TYPE_STRING = 4,
    TYPE_NUMBER = 8,
    TYPE_INTEGER = 16,
    TYPE_BOOLEAN = 32,
    TYPE_NULL = 64
};

static unsigned type_bit(const char *t)
{
    for (size_t i = 0; i < COUNT(types); i++)
        if (strcmp(t, types[i]) == 0)
            return 1u << i;
    return 0;
}

static size_t slot_of(const struct kix_schema *s, const json_t *j)
{
    uint64_t h = (uint64_t)(uintptr_t)j * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 32) & (s->nslots - 1);
    while (s->slots[i] && s->nodes[s->slots[i] - 1].json != j)
        i = (i + 1) & (s->nslots - 1);
    return i;
}

static const struct snode *node_of(const struct kix_schema *s, const json_t *j)
{
    size_t i = slot_of(s, j);
    return s->slots[i] ? &s->nodes[s->slots[i] - 1] : NULL;
}

static const struct pattern *pattern_of(const struct kix_schema *s, const json_t *p);

/* Adds j and the schemas under it (calls itself; depth is bounded by
 * compile_node). Counts only when s->nodes is NULL. */
static int index_node(struct kix_schema *s, const json_t *j)
{
    const char *const subs[] = {"properties", "$defs"};
    const json_t *v, *t;
    const char *k;
    size_t i;

    if (s->nodes) {
        struct snode *n;
        i = slot_of(s, j);
        if (s->slots[i])
            return KIX_OK;
        if (s->nnodes == s->ncap)
            return KIX_ENOMEM; /* (the count pass sized it) */
        n = &s->nodes[s->nnodes++];
        s->slots[i] = s->nnodes;
        memset(n, 0, sizeof(*n));
        n->json = j;
        if ((v = json_object_get(j, "$ref")) != NULL)
            n->ref = json_object_get(json_object_get(s->root, "$defs"), json_string_value(v) + 8);
        n->type = json_object_get(j, "type");
        n->cnst = json_object_get(j, "const");
        n->enm = json_object_get(j, "enum");
        n->min = json_object_get(j, "minimum");
        n->max = json_object_get(j, "maximum");
        n->minl = json_object_get(j, "minLength");
        n->maxl = json_object_get(j, "maxLength");
        n->pattern = json_object_get(j, "pattern");
        n->format = json_object_get(j, "format");
        n->desc = json_object_get(j, "description");
        n->required = json_object_get(j, "required");
        n->props = json_object_get(j, "properties");
        n->extra = json_object_get(j, "additionalProperties");
        n->items = json_object_get(j, "items");
        n->minitems = json_object_get(j, "minItems");
        n->maxitems = json_object_get(j, "maxItems");
        n->any = json_object_get(j, "anyOf");
        n->kind = json_object_get(j, "x-kix-kind");
        n->re = n->pattern ? pattern_of(s, n->pattern) : NULL;
        if (json_is_string(n->type))
            n->types = type_bit(json_string_value(n->type));
        json_array_foreach(n->type, i, t) n->types |= type_bit(json_string_value(t));
        n->nonneg = n->types == TYPE_INTEGER && n->min && json_number_value(n->min) == 0;
    } else {
        s->ncap++;
    }
    for (size_t w = 0; w < COUNT(subs); w++)
        json_object_foreach(json_object_get(j, subs[w]), k, v)
        {
            if (index_node(s, v) != KIX_OK)
                return KIX_ENOMEM;
        }
    if (json_is_object(v = json_object_get(j, "additionalProperties")) && index_node(s, v))
        return KIX_ENOMEM;
    if ((v = json_object_get(j, "items")) != NULL && index_node(s, v))
        return KIX_ENOMEM;
    json_array_foreach(json_object_get(j, "anyOf"), i, t)
    {
        if (index_node(s, t) != KIX_OK)
            return KIX_ENOMEM;
    }
    return KIX_OK;
}

static int sprop_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sprop *)a)->name, ((const struct sprop *)b)->name);
}

/* n's sprops and required_at, once every node is indexed (the nodes of
 * its properties with it). */
static int sort_props(struct kix_schema *s, struct snode *n)
{
    const char *k;
    const json_t *v;
    size_t i = 0;

    if (json_object_size(n->props)) {
        n->sprops = calloc(json_object_size(n->props), sizeof(*n->sprops));
        if (!n->sprops)
            return KIX_ENOMEM;
        json_object_foreach((json_t *)n->props, k, v)
        {
            n->sprops[i].name = k;
            n->sprops[i++].node = node_of(s, v);
        }
        n->nsprops = i;
        qsort(n->sprops, n->nsprops, sizeof(*n->sprops), sprop_cmp);
    }
    if (json_array_size(n->required)) {
        n->required_at = calloc(json_array_size(n->required), sizeof(*n->required_at));
        if (!n->required_at)
            return KIX_ENOMEM;
        json_array_foreach(n->required, i, v)
        {
            n->required_at[i] = NO_PROP;
            for (size_t j = 0; j < n->nsprops; j++)
                if (strcmp(n->sprops[j].name, json_string_value(v)) == 0)
                    n->required_at[i] = j;
        }
    }
    return KIX_OK;
}

static int build_index(struct kix_schema *s, struct kix_err *err)
{
    int rc = index_node(s, s->root); /* the count */

    s->nslots = 8;
    while (s->nslots < 2 * s->ncap)
        s->nslots *= 2;
    s->nodes = calloc(s->ncap, sizeof(*s->nodes));
    s->slots = calloc(s->nslots, sizeof(*s->slots));
    if (rc == KIX_OK && s->nodes && s->slots)
        rc = index_node(s, s->root);
    else
        rc = KIX_ENOMEM;
    for (size_t i = 0; rc == KIX_OK && i < s->nnodes; i++)
        rc = sort_props(s, &s->nodes[i]);
    return rc ? kix_err_set(err, rc, "compiling a schema: out of memory") : KIX_OK;
}

static int compile_named(const char *text, size_t len, const char *file, struct kix_schema **out,
                         struct kix_err *err)
{
    struct kix_schema *s = calloc(1, sizeof(*s));
    json_error_t jerr;
    const char *kind, *uri;
    int rc;

    *out = NULL;
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "compiling a schema: out of memory");
    s->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!s->root) {
        rc = kix_err_set(err, KIX_EINVAL, "schema: invalid JSON at line %d: %s", jerr.line,
                         jerr.text);
        goto out;
    }
    uri = json_string_value(json_object_get(s->root, "$schema"));
    if (!uri || strcmp(uri, "https://json-schema.org/draft/2020-12/schema") != 0) {
        rc = bad(err, "", "$schema must be https://json-schema.org/draft/2020-12/schema");
        goto out;
    }
    rc = compile_node(s, s->root, "", 0, err);
    if (rc == KIX_OK)
        rc = build_index(s, err);
    if (rc)
        goto out;
    kind = json_string_value(
        json_object_get(json_object_get(json_object_get(s->root, "properties"), "kind"), "const"));
    snprintf(s->name, sizeof(s->name), "%s", kind ? kind : file ? file : "");
    s->subject_kind = json_string_value(json_object_get(s->root, "x-kix-subject-kind"));
    *out = s;
    s = NULL;
out:
    kix_schema_free(s);
    return rc;
}

int kix_schema_compile(const char *text, size_t len, struct kix_schema **out, struct kix_err *err)
{
    return compile_named(text, len, NULL, out, err);
}

const char *kix_schema_name(const struct kix_schema *s)
{
    return s->name;
}

const char *kix_schema_subject_kind(const struct kix_schema *s)
{
    return s->subject_kind;
}

/* ---- the built-in schemas --------------------------------------------------- */

#define BUILTIN_MAX 16

/* The built-in schemas, each compiled on first use (a process that checks
 * publications never compiles the key schema); the names are known
 * without compiling: the kind a record schema's file is named for. */
static const struct {
    const char *file, *name;
} builtin_names[] = {
    {"benchmark-run", "BenchmarkRun"},
    {"benchmark-protocol", "BenchmarkProtocol"},
    {"workload", "Workload"},
    {"execution-environment", "ExecutionEnvironment"},
    {"implementation", "Implementation"},
};

static pthread_mutex_t builtin_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kix_schema *builtin[BUILTIN_MAX];

static const char *file_name(const char *file)
{
    for (size_t i = 0; i < COUNT(builtin_names); i++)
        if (strcmp(builtin_names[i].file, file) == 0)
            return builtin_names[i].name;
    return file;
}

/* The i-th built-in schema, compiled once. */
static int builtin_get(size_t i, const struct kix_schema **out, struct kix_err *err)
{
    const struct kix__schema_file *f = &kix__schema_files[i];
    struct kix_schema *s = __atomic_load_n(&builtin[i], __ATOMIC_ACQUIRE);
    int rc = KIX_OK;

    if (s) { /* compiled before: no lock on the submit path */
        *out = s;
        return KIX_OK;
    }
    pthread_mutex_lock(&builtin_lock);
    if (!builtin[i]) {
        struct kix_err e = {0};
        rc = compile_named(f->text, f->len, file_name(f->name), &s, &e);
        if (rc == KIX_OK && strcmp(s->name, file_name(f->name)) != 0) {
            rc = kix_err_set(&e, KIX_EINVAL, "its kind is %s", s->name);
            kix_schema_free(s);
            s = NULL;
        }
        if (rc == KIX_OK)
            __atomic_store_n(&builtin[i], s, __ATOMIC_RELEASE);
        if (rc)
            rc =
                kix_err_set(err, KIX_ECORRUPT,
                            "the built-in record schema %.40s.schema.json does not compile: %.200s",
                            f->name, e.msg);
    }
    *out = builtin[i];
    pthread_mutex_unlock(&builtin_lock);
    return rc;
}

int kix_schema_builtin(const char *name, const struct kix_schema **out, struct kix_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < kix__schema_nfiles && i < BUILTIN_MAX; i++)
        if (strcmp(file_name(kix__schema_files[i].name), name) == 0)
            return builtin_get(i, out, err);
    return kix_err_set(err, KIX_ENOTFOUND, "no schema named %s", name);
}

const struct kix_schema *kix_schema_builtin_at(size_t i)
{
    const struct kix_schema *s = NULL;
    if (i >= kix__schema_nfiles || i >= BUILTIN_MAX || builtin_get(i, &s, NULL) != KIX_OK)
        return NULL;
    return s;
}

const char *kix_schema_builtin_file(size_t i, const char **text, size_t *len)
{
    if (i >= kix__schema_nfiles)
        return NULL;
    *text = kix__schema_files[i].text;
    *len = kix__schema_files[i].len;
    return kix__schema_files[i].name;
}

static const char *const record_kinds[] = {"BenchmarkRun", "BenchmarkProtocol", "Workload",
                                           "ExecutionEnvironment", "Implementation"};

int kix_record_kind_known(const char *kind)
{
    return kind && in_list(kind, record_kinds, COUNT(record_kinds));
}

/* ---- RFC 3339 --------------------------------------------------------------- */

static int digits(const char *s, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

int kix_rfc3339_valid(const char *s, size_t len)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, sec, oh, om, leap;
    size_t i = 19;

    if (len < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
        s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec))
        return 0;
    leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 ||
        sec > 59)
        return 0;
    if (s[i] == '.') {
        size_t start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    if (i + 1 == len && (s[i] == 'Z' || s[i] == 'z'))
        return 1;
    if (i + 6 != len || (s[i] != '+' && s[i] != '-') || !digits(s + i + 1, 2, &oh) ||
        s[i + 3] != ':' || !digits(s + i + 4, 2, &om))
        return 0;
    return oh <= 23 && om <= 59;
}

/* ---- validating ------------------------------------------------------------- */

struct run {
    const struct kix_schema *s;
    struct kix_schema_result *res;
    int collect; /* refs are collected outside anyOf branches only */
    int oom;
    /* kix_schema_validate_all: every violation, not only the first */
    struct kix_schema_violation *every;
    size_t cap, count;
};

/* Where a value is: written out as a JSON pointer only when a violation or
 * a reference names it, not for every member of every record (callgrind of
 * an audit: the pointers joined at each member were ~6k instructions a
 * manifest). */
struct path {
    const struct path *up; /* NULL: the root, "" */
    const char *key;       /* a member's name; NULL: item `index` of an array */
    size_t index;
};

static void pointer_index(char *out, size_t cap, const char *base, size_t i);

/* The pointer joined from the root as the walk would have joined it, each
 * step cut at cap alike. */
static void path_write(const struct path *at, char *out, size_t cap)
{
    if (!at->up) {
        out[0] = '\0';
        return;
    }
    path_write(at->up, out, cap);
    if (at->key)
        kix_schema_pointer_join(out, cap, out, at->key);
    else
        pointer_index(out, cap, out, at->index);
}

static int fail(struct run *r, const struct path *at, const char *fmt, ...) KIX_PRINTF(3, 4);
static int fail(struct run *r, const struct path *at, const char *fmt, ...)
{
    char ptr[KIX_SCHEMA_POINTER_MAX];
    va_list ap;

    if ((r->every && r->count < r->cap) || r->res->valid)
        path_write(at, ptr, sizeof(ptr));
    if (r->every && r->count < r->cap) {
        struct kix_schema_violation *v = &r->every[r->count];
        snprintf(v->pointer, sizeof(v->pointer), "%s", ptr);
        va_start(ap, fmt);
        vsnprintf(v->message, sizeof(v->message), fmt, ap);
        va_end(ap);
    }
    if (r->every)
        r->count++;
    if (!r->res->valid)
        return 0; /* the first violation is the one reported */
    r->res->valid = 0;
    snprintf(r->res->pointer, sizeof(r->res->pointer), "%s", ptr);
    va_start(ap, fmt);
    vsnprintf(r->res->message, sizeof(r->res->message), fmt, ap);
    va_end(ap);
    return 0;
}

/* RFC 6901: "~" → "~0", "/" → "~1". */
void kix_schema_pointer_join(char *out, size_t cap, const char *base, const char *key)
{
    size_t n = strlen(base);

    if (n + 2 > cap)
        n = cap - 2;
    memmove(out, base, n);
    out[n++] = '/';
    for (; *key && n + 3 < cap; key++) {
        if (*key == '~' || *key == '/') {
            out[n++] = '~';
            out[n++] = *key == '~' ? '0' : '1';
        } else {
            out[n++] = *key;
        }
    }
    out[n] = '\0';
}

static void pointer_index(char *out, size_t cap, const char *base, size_t i)
{
    char digits[24];
    size_t k = sizeof(digits);

    digits[--k] = '\0';
    do
        digits[--k] = (char)('0' + i % 10);
    while ((i /= 10) && k);
    kix_schema_pointer_join(out, cap, base, digits + k);
}

static int is_integer(const json_t *v)
{
    double d;
    if (json_is_integer(v))
        return 1;
    if (!json_is_real(v))
        return 0;
    d = json_real_value(v);
    return isfinite(d) && floor(d) == d;
}

static const char *article(const char *t)
{
    return t[0] == 'a' || t[0] == 'i' || t[0] == 'o' ? "an" : "a";
}

/* JSON Schema equality: numbers by value, whatever their spelling. */
static int json_same(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal((json_t *)a, (json_t *)b);
}

static void describe_value(const json_t *v, char *out, size_t cap)
{
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(out, cap, "%s", text ? text : "?");
    free(text);
}

static size_t code_points(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

static const struct pattern *pattern_of(const struct kix_schema *s, const json_t *p)
{
    for (size_t i = 0; i < s->npatterns; i++)
        if (s->patterns[i].node == p)
            return &s->patterns[i];
    return NULL;
}

/* A string with a NUL never matches: regexec would stop at it. */
static int pattern_matches(const struct pattern *p, const char *s, size_t len)
{
    if (!p)
        return 0;
    if (p->fast)
        return kix_pattern_match(p->fast, s, len);
    return strlen(s) == len && regexec(&p->re, s, 0, NULL, 0) == 0;
}

static int check(struct run *r, const struct snode *n, const json_t *v, const struct path *at);

static unsigned value_types(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return TYPE_OBJECT;
    case JSON_ARRAY:
        return TYPE_ARRAY;
    case JSON_STRING:
        return TYPE_STRING;
    case JSON_INTEGER:
        return TYPE_NUMBER | TYPE_INTEGER;
    case JSON_REAL:
        return TYPE_NUMBER | (is_integer(v) ? TYPE_INTEGER : 0);
    case JSON_TRUE:
    case JSON_FALSE:
        return TYPE_BOOLEAN;
    default:
        return TYPE_NULL;
    }
}

static int check_type(struct run *r, const struct snode *n, const json_t *v, const struct path *at)
{
    if (!n->types || (n->types & value_types(v)))
        return 1;
    if (n->nonneg)
        return fail(r, at, "must be a non-negative integer");
    if (json_is_string(n->type))
        return fail(r, at, "must be %s %s", article(json_string_value(n->type)),
                    json_string_value(n->type));
    {
        char *names = json_dumps(n->type, JSON_COMPACT);
        fail(r, at, "must be of type %s", names ? names : "?");
        free(names);
    }
    return 0;
}

static int check_values(struct run *r, const struct snode *n, const json_t *v,
                        const struct path *at)
{
    const json_t *x;
    char text[200];
    size_t i;

    if (n->cnst && !json_same(n->cnst, v)) {
        describe_value(n->cnst, text, sizeof(text));
        return fail(r, at, "must be %s", text);
    }
    if (n->enm) {
        int found = 0;
        json_array_foreach(n->enm, i, x) found |= json_same(x, v);
        if (!found) {
            describe_value(n->enm, text, sizeof(text));
            return fail(r, at, "must be one of %s", text);
        }
    }
    if (json_is_number(v) && n->min && json_number_value(v) < json_number_value(n->min)) {
        if (n->nonneg)
            return fail(r, at, "must be a non-negative integer");
        return fail(r, at, "must be at least %g", json_number_value(n->min));
    }
    if (json_is_number(v) && n->max && json_number_value(v) > json_number_value(n->max))
        return fail(r, at, "must be at most %g", json_number_value(n->max));
    return 1;
}

static int check_string(struct run *r, const struct snode *n, const json_t *v,
                        const struct path *at)
{
    const char *s = json_string_value(v), *what = json_string_value(n->desc);
    const char *open = what ? " (" : "", *close = what ? ")" : "";
    size_t len = json_string_length(v), cp;

    if (!what)
        what = "";
    if (n->format && !kix_rfc3339_valid(s, len))
        return fail(r, at, "must be an RFC 3339 UTC time such as 2024-09-03T15:39:55Z");
    /* A valid date can still be no date at all: 0000-01-01 is what a
     * zeroed struct or an unset field prints as. No GPU kernel was
     * measured, attested or published before 2000, so every timestamp
     * a record or statement carries starts there (issue 42). The first
     * four characters are the year: kix_rfc3339_valid checked them. */
    if (n->format && strncmp(s, KIX_TIMESTAMP_MIN, 4) < 0)
        return fail(r, at,
                    "%.*s is before " KIX_TIMESTAMP_MIN
                    ": no run was measured, attested or published then (an unset or "
                    "zeroed date?); write the real UTC time",
                    (int)(len > 40 ? 40 : len), s);
    if (n->pattern && !pattern_matches(n->re, s, len)) {
        if (n->format)
            return fail(r, at, "must be an RFC 3339 UTC time such as 2024-09-03T15:39:55Z");
        return fail(r, at, "must match %s%s%s%s", json_string_value(n->pattern), open, what, close);
    }
    if (!n->minl && !n->maxl)
        return 1;
    cp = code_points(s, len);
    if (n->minl && cp < (size_t)json_integer_value(n->minl))
        return cp == 0 ? fail(r, at, "must not be empty%s%s%s", open, what, close)
                       : fail(r, at, "must be at least %lld characters%s%s%s",
                              (long long)json_integer_value(n->minl), open, what, close);
    if (n->maxl && cp > (size_t)json_integer_value(n->maxl))
        return fail(r, at, "must be at most %lld characters%s%s%s",
                    (long long)json_integer_value(n->maxl), open, what, close);
    return 1;
}

/* snprintf(out, cap, "%s", text) without the format's cost: every
 * reference of every record passes here. */
static void copy_text(char *out, size_t cap, const char *text)
{
    size_t n = strlen(text);

    if (n >= cap)
        n = cap - 1;
    memcpy(out, text, n);
    out[n] = '\0';
}

static int add_ref(struct run *r, const struct snode *n, const json_t *v, const struct path *at)
{
    const char *kind = json_string_value(n->kind);
    struct kix_schema_result *res = r->res;
    struct kix_schema_ref *refs, *ref;

    if (!kind || !r->collect || !json_is_string(v))
        return 1;
    refs = realloc(res->refs, (res->nrefs + 1) * sizeof(*refs));
    if (!refs) {
        r->oom = 1;
        return 0;
    }
    res->refs = refs;
    ref = &refs[res->nrefs];
    memset(ref, 0, sizeof(*ref));
    if (kix_digest_parse(json_string_value(v), json_string_length(v), &ref->digest, NULL) != KIX_OK)
        return fail(r, at, "must be a sha256: digest");
    path_write(at, ref->pointer, sizeof(ref->pointer));
    copy_text(ref->kind, sizeof(ref->kind), kind);
    res->nrefs++;
    return 1;
}

/* One member of an object being checked. */
struct member {
    const char *key;
    const json_t *value;
    size_t prop; /* its "properties" entry, or NO_PROP */
};

static int member_cmp(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

#define SMALL_OBJECT 32

/* v's members in sorted order into *out: `small` when they fit, else
 * malloc'ed. Canonical JSON has them sorted already (but for names past
 * U+FFFF, which UTF-16 sorts otherwise): then no sort runs. */
static int sort_members(const json_t *v, struct member *small, struct member **out, size_t *n)
{
    const char *key;
    const json_t *x;
    size_t i = 0;
    int sorted = 1;

    *n = json_object_size(v);
    *out = *n <= SMALL_OBJECT ? small : malloc(*n * sizeof(**out));
    if (!*out)
        return KIX_ENOMEM;
    json_object_foreach((json_t *)v, key, x)
    {
        (*out)[i].key = key;
        (*out)[i].value = x;
        if (i && sorted && strcmp((*out)[i - 1].key, key) > 0)
            sorted = 0;
        i++;
    }
    if (!sorted)
        qsort(*out, *n, sizeof(**out), member_cmp);
    return KIX_OK;
}

static void unknown_field(struct run *r, const struct snode *n, const struct path *sub)
{
    char names[160] = "";
    const char *k;
    const json_t *unused;
    size_t len = 0;

    json_object_foreach((json_t *)n->props, k, unused)
    {
        len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0, "%s%s",
                                len ? ", " : "", k);
        if (len >= sizeof(names))
            break;
    }
    if (len >= sizeof(names))
        memcpy(names + sizeof(names) - 4, "...", 4);
    fail(r, sub, "is not a known field here (known: %s)", names);
}

static int check_object(struct run *r, const struct snode *n, const json_t *v,
                        const struct path *at)
{
    struct member small[SMALL_OBJECT], *members = NULL;
    unsigned char seen_small[SMALL_OBJECT], *seen = seen_small;
    const struct snode *extra = json_is_object(n->extra) ? node_of(r->s, n->extra) : NULL;
    size_t nmembers = 0, i, j = 0;
    const json_t *x;
    int ok = 1;

    /* members in sorted order (as canonical JSON has them), so the first
     * violation named is the same however the object was spelled; each
     * meets its "properties" entry in one merge of the two sorted lists */
    if (sort_members(v, small, &members, &nmembers) != KIX_OK ||
        (n->nsprops > SMALL_OBJECT && !(seen = malloc(n->nsprops)))) {
        if (members != small)
            free(members);
        r->oom = 1;
        return 0;
    }
    memset(seen, 0, n->nsprops);
    for (i = 0; i < nmembers; i++) {
        int c = 1;
        while (j < n->nsprops && (c = strcmp(n->sprops[j].name, members[i].key)) < 0)
            j++;
        members[i].prop = j < n->nsprops && c == 0 ? j : NO_PROP;
        if (members[i].prop != NO_PROP)
            seen[j] = 1;
    }
    json_array_foreach(n->required, i, x)
    {
        size_t prop = n->required_at[i];
        if (prop != NO_PROP ? !seen[prop] : !json_object_get(v, json_string_value(x))) {
            struct path sub = {at, json_string_value(x), 0};
            ok = fail(r, &sub, "is required");
            if (!r->every)
                goto out;
        }
    }
    if (!n->props && !n->extra)
        goto out;
    for (i = 0; i < nmembers && !r->oom; i++) {
        struct path sub = {at, members[i].key, 0};
        int good = 1;
        x = members[i].value;
        if (members[i].prop != NO_PROP) { /* met in the merge above */
            good = check(r, n->sprops[members[i].prop].node, x, &sub);
        } else if (json_is_false(n->extra)) {
            unknown_field(r, n, &sub);
            good = 0;
        } else if (extra) {
            good = check(r, extra, x, &sub);
        }
        ok &= good;
        if (!good && !r->every)
            break;
    }
out:
    if (members != small)
        free(members);
    if (seen != seen_small)
        free(seen);
    return ok;
}

static int check_array(struct run *r, const struct snode *n, const json_t *v, const struct path *at)
{
    const struct snode *items = n->items ? node_of(r->s, n->items) : NULL;
    size_t i, len = json_array_size(v);
    const json_t *x;
    int ok = 1;

    if (n->minitems && len < (size_t)json_integer_value(n->minitems))
        return fail(r, at, "must have at least %lld items",
                    (long long)json_integer_value(n->minitems));
    if (n->maxitems && len > (size_t)json_integer_value(n->maxitems))
        return fail(r, at, "must have at most %lld items",
                    (long long)json_integer_value(n->maxitems));
    if (!items)
        return 1;
    json_array_foreach(v, i, x)
    {
        struct path sub = {at, NULL, i};
        if (!check(r, items, x, &sub)) {
            ok = 0;
            if (!r->every || r->oom)
                return 0;
        }
    }
    return ok;
}

/* anyOf: valid when one branch is. Reported as the names a branch of
 * plain `required` lists, else as "no allowed shape". */
static int check_any_of(struct run *r, const struct snode *n, const json_t *v,
                        const struct path *at)
{
    struct kix_schema_result scratch = {0};
    struct run sub = {r->s, &scratch, 0, 0, NULL, 0, 0};
    char names[200] = "";
    size_t i, len = 0;
    const json_t *branch;
    int plain = 1;

    json_array_foreach(n->any, i, branch)
    {
        const json_t *req = json_object_get(branch, "required");
        scratch.valid = 1;
        if (check(&sub, node_of(r->s, branch), v, at) && scratch.valid)
            return 1;
        if (json_object_size(branch) != 1 || json_array_size(req) != 1)
            plain = 0;
        else if (len < sizeof(names))
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
                                    json_string_value(json_array_get(req, 0)));
    }
    if (plain)
        return fail(r, at, "must have one of: %s", names);
    return fail(r, at, "matches none of the allowed shapes");
}

static int check(struct run *r, const struct snode *n, const json_t *v, const struct path *at)
{
    if (!n)
        return 1; /* (every schema object is indexed: not reached) */
    if (n->ref && !check(r, node_of(r->s, n->ref), v, at))
        return 0;
    if (!check_type(r, n, v, at) || !check_values(r, n, v, at))
        return 0;
    if (json_is_string(v) && !check_string(r, n, v, at))
        return 0;
    if (json_is_object(v) && !check_object(r, n, v, at))
        return 0;
    if (json_is_array(v) && !check_array(r, n, v, at))
        return 0;
    if (n->any && !check_any_of(r, n, v, at))
        return 0;
    return add_ref(r, n, v, at);
}

void kix_schema_result_release(struct kix_schema_result *r)
{
    if (!r)
        return;
    free(r->refs);
    r->refs = NULL;
    r->nrefs = 0;
}

int kix_schema_validate(const struct kix_schema *s, const json_t *doc,
                        struct kix_schema_result *res)
{
    size_t n;
    return kix_schema_validate_all(s, doc, res, NULL, 0, &n);
}

/* out NULL: stop at the first violation (kix_schema_validate) */
int kix_schema_validate_all(const struct kix_schema *s, const json_t *doc,
                            struct kix_schema_result *res, struct kix_schema_violation *out,
                            size_t cap, size_t *n)
{
    struct run r = {s, res, 1, 0, out, cap, 0};
    struct path root = {NULL, NULL, 0};

    memset(res, 0, sizeof(*res));
    res->valid = 1;
    check(&r, node_of(s, s->root), doc, &root);
    *n = r.count;
    if (r.oom || !res->valid)
        kix_schema_result_release(res);
    return r.oom ? KIX_ENOMEM : KIX_OK;
}

int kix_record_validate(const json_t *doc, struct kix_schema_result *res, struct kix_err *err)
{
    struct kix_schema_result local;
    const struct kix_schema *s = NULL;
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    int rc;

    if (!res)
        res = &local;
    memset(res, 0, sizeof(*res));
    if (!json_is_object(doc)) {
        snprintf(res->message, sizeof(res->message), "must be a JSON object");
        return kix_err_set(err, KIX_EINVAL, ": must be a JSON object (a record)");
    }
    if (!kix_record_kind_known(kind)) {
        snprintf(res->pointer, sizeof(res->pointer), "/kind");
        snprintf(res->message, sizeof(res->message),
                 "must be one of BenchmarkRun, BenchmarkProtocol, Workload, "
                 "ExecutionEnvironment, Implementation");
        return kix_err_set(err, KIX_EINVAL, "/kind: %s", res->message);
    }
    rc = kix_schema_builtin(kind, &s, err);
    if (rc == KIX_OK)
        rc = kix_schema_validate(s, doc, res);
    if (rc == KIX_ENOMEM)
        return kix_err_set(err, rc, "validating a %s: out of memory", kind);
    if (rc == KIX_OK && !res->valid)
        rc = kix_err_set(err, KIX_EINVAL, "%s: %s", res->pointer, res->message);
    if (res == &local)
        kix_schema_result_release(&local);
    return rc;
}
