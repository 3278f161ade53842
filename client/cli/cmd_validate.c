/* kix validate: the log's record checks (kix/schema.h), offline; and the
 * bundle check behind kix publish --dry-run. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "kix/canon.h"
#include "kix/client.h"
#include "kix/dsse.h"
#include "kix/entry.h"
#include "kix/json.h"
#include "kix/record_rules.h"
#include "kix/schema.h"
#include "vocab_check.h"

#define VALIDATE_MAX_FILES  4096
#define VALIDATE_MAX_ERRORS 64 /* per file */

static const struct kix_opt validate_opts[] = {
    KIX_NOTE("\n"
             "Checks each FILE as the log checks it on submit: against the record\n"
             "schemas (proto/schema/ in the source, compiled into kix): a record by its\n"
             "\"kind\" (BenchmarkRun, BenchmarkProtocol, Workload, ExecutionEnvironment,\n"
             "Implementation), an in-toto statement or DSSE envelope by its predicate\n"
             "type; and a record against the log's record rules (PROTOCOL.md 5.3): a\n"
             "median above 0, quantiles in order, an observedAt no later than this\n"
             "machine's clock plus 600 s, none of kix new run's placeholders. Every\n"
             "violation is reported, each named by the JSON pointer of the offending field:\n"
             "\n"
             "  run.json: invalid: /spec/timing/latencyNs/median: must be a non-negative integer\n"
             "\n"
             "A digest field must name an object of the right kind (spec.workloadDigest\n"
             "a Workload, ...): checked among the files given, and with --server or\n"
             "--store in that log, where a digest that names no stored object is an error\n"
             "(\"resolves to nothing\"); without a log, a digest of an object not given is\n"
             "not checked here (the log checks it on submit). A run's reference that names\n"
             "a file (kix new run's \"workloadDigest\": \"workload.json\") is resolved as\n"
             "kix publish resolves it: the file beside the run is read, checked too, and its\n"
             "digest stands in the run. Nothing is sent. A FILE that is not there is a\n"
             "not-found error (code notFound), not a verdict.\n"
             "A kernel, dtype, GPU or protocol family spelled otherwise than the shared\n"
             "vocabulary (docs/VOCABULARY.md) is a warning with a \"did you mean\".\n"
             "\n"),
    KIX_ID("kind", "NAME", 'k',
           "validate every FILE against this schema: a record kind, or\n"
           "publication, attestation, rerun, supersession, withdrawal,\n"
           "reinstatement, key for a bare predicate"),
    KIX_ID("schema-only", NULL, 'S', "the schemas alone, without the record rules or warnings"),
    KIX_NOTE("\n"
             "exit status: 0 every FILE valid, 1 some invalid or unreadable, 2 usage\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd validate_cmd = {.prog = "kix validate",
                                            .usage = "[--kind NAME] [--schema-only] [options]\n"
                                                     "[--json] FILE...",
                                            KIX_CMD_OPTS(validate_opts),
                                            .column = 17};

struct vfile {
    const char *path;
    const struct kix_bytes *data; /* the bytes, or NULL: read path */
    json_t *doc;
    struct kix_digest digest;
    int have_digest;
    char schema[KIX_SCHEMA_KIND_MAX];
    int valid;
    struct kix_schema_violation errors[VALIDATE_MAX_ERRORS]; /* every violation, in order */
    size_t nerrors;
    struct kix_schema_violation warnings[8]; /* the vocabulary's (vocab_check.h): not errors */
    size_t nwarnings;
    struct kix_schema_ref *refs;
    size_t nrefs;
    unsigned char *checked; /* per ref: 1 when its object was among the files */
    char *owned_path;       /* path, when a run's reference named this file (malloc'ed) */
};

/* a ‖ b into out, cut to fit (pointers and messages are shown, not parsed) */
static void join(char *out, size_t cap, const char *a, const char *b)
{
    size_t na = strnlen(a, cap - 1), nb = strnlen(b, cap - 1 - na);
    memmove(out, a, na);
    memmove(out + na, b, nb);
    out[na + nb] = '\0';
}

/* One more violation of f (past VALIDATE_MAX_ERRORS, the last one says so). */
static void invalid(struct vfile *f, const char *pointer, const char *fmt, ...) KIX_PRINTF(3, 4);
static void invalid(struct vfile *f, const char *pointer, const char *fmt, ...)
{
    struct kix_schema_violation *e;
    va_list ap;

    f->valid = 0;
    if (f->nerrors == VALIDATE_MAX_ERRORS) {
        snprintf(f->errors[VALIDATE_MAX_ERRORS - 1].message,
                 sizeof(f->errors[VALIDATE_MAX_ERRORS - 1].message), "and more violations");
        return;
    }
    e = &f->errors[f->nerrors++];
    snprintf(e->pointer, sizeof(e->pointer), "%s", pointer);
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
}

/* The schema a document is checked against and the value checked: a
 * record itself, or a statement's (an envelope's statement's) predicate. */
static const char *pick(struct vfile *f, json_t **value, json_t **owned, const char **prefix)
{
    const char *ptype, *kind;
    json_t *payload = json_object_get(f->doc, "payload");

    *value = f->doc;
    *owned = NULL;
    *prefix = "";
    if (json_is_string(payload) && json_object_get(f->doc, "payloadType")) {
        struct kix_buf text = KIX_BUF_INIT;
        struct kix_dsse_envelope env;
        kix_dsse_envelope_init(&env);
        if (kix_doc_dumps(f->doc, 0, &text, NULL) == KIX_OK &&
            kix_dsse_parse(text.ptr, text.len, &env, NULL) == KIX_OK)
            *owned = json_loadb((const char *)env.payload.ptr, env.payload.len, 0, NULL);
        kix_dsse_envelope_release(&env);
        kix_buf_release(&text);
        if (!*owned)
            return NULL;
        *value = *owned;
    }
    ptype = json_string_value(json_object_get(*value, "predicateType"));
    if (ptype) {
        static char name[KIX_SCHEMA_KIND_MAX];
        size_t plen = strlen(KIX_PREDICATE_PREFIX), n = strlen(ptype);
        if (n <= plen + 3 || strncmp(ptype, KIX_PREDICATE_PREFIX, plen) != 0 ||
            strcmp(ptype + n - 3, "/v1") != 0 || n - plen - 3 >= sizeof(name))
            return NULL;
        memcpy(name, ptype + plen, n - plen - 3);
        name[n - plen - 3] = '\0';
        *value = json_object_get(*value, "predicate");
        *prefix = "/predicate";
        return name;
    }
    kind = json_string_value(json_object_get(*value, "kind"));
    return kix_record_kind_known(kind) ? kind : NULL;
}

static int schema_only; /* kix validate --schema-only */

static void validate_one(struct vfile *f, const char *force, int bundle)
{
    struct kix_schema_result res;
    const struct kix_schema *s = NULL;
    json_t *value = NULL, *owned = NULL;
    const char *prefix = "", *name = force;

    if (!name)
        name = pick(f, &value, &owned, &prefix);
    else
        value = f->doc;
    if (!name && bundle && !json_object_get(f->doc, "kind") &&
        !json_object_get(f->doc, "predicateType") && !json_object_get(f->doc, "payloadType")) {
        /* the log keeps an object without a kind as it is (opaque) */
        f->valid = 1;
        f->checked = calloc(1, 1);
        goto out;
    }
    if (!name) {
        if (json_object_get(f->doc, "payloadType") || json_object_get(f->doc, "predicateType"))
            invalid(f, "/predicateType",
                    "must be " KIX_PREDICATE_PREFIX
                    "{publication,attestation,rerun,supersession,withdrawal,reinstatement,"
                    "key}/v1");
        else
            invalid(f, "/kind",
                    "must be one of BenchmarkRun, BenchmarkProtocol, Workload, "
                    "ExecutionEnvironment, Implementation");
        goto out;
    }
    snprintf(f->schema, sizeof(f->schema), "%s", name);
    if (kix_schema_builtin(name, &s, NULL) != KIX_OK) {
        invalid(f, "", "no schema named %s", name);
        goto out;
    }
    if (!value) {
        invalid(f, "/predicate", "is required");
        goto out;
    }
    {
        struct kix_schema_violation v[VALIDATE_MAX_ERRORS];
        size_t nv = 0;
        if (kix_schema_validate_all(s, value, &res, v, VALIDATE_MAX_ERRORS, &nv) != KIX_OK) {
            invalid(f, "", "out of memory");
            goto out;
        }
        for (size_t i = 0; i < nv && i < VALIDATE_MAX_ERRORS; i++) {
            char p[KIX_SCHEMA_POINTER_MAX];
            size_t pl = strlen(v[i].pointer);
            /* kix new run's bundles name their files where digests go */
            int file_named = pl > 6 && strcmp(v[i].pointer + pl - 6, "Digest") == 0 &&
                             strstr(v[i].message, "^sha256:") != NULL;
            join(p, sizeof(p), prefix, v[i].pointer);
            invalid(f, p, "%s%s", v[i].message,
                    file_named ? "; a file named here is filled in by kix publish: check the "
                                 "bundle with kix publish --dry-run"
                               : "");
        }
        /* the log's record rules on submit, all of them too */
        if (!*prefix && kix_record_kind_known(name) && !schema_only) {
            nv = 0;
            kix_record_rules(value, (int64_t)time(NULL), v, VALIDATE_MAX_ERRORS, &nv);
            for (size_t i = 0; i < nv && i < VALIDATE_MAX_ERRORS; i++)
                invalid(f, v[i].pointer, "%s", v[i].message);
            cli_vocab_warnings(value, f->warnings, 8, &f->nwarnings);
            if (f->nwarnings > 8)
                f->nwarnings = 8;
        }
    }
    if (!res.valid) { /* (valid against its schema, a record keeps its refs to check) */
        kix_schema_result_release(&res);
        goto out;
    }
    f->refs = res.refs;
    f->nrefs = res.nrefs;
    f->checked = calloc(f->nrefs ? f->nrefs : 1, 1);
    for (size_t i = 0; i < f->nrefs; i++) {
        char p[KIX_SCHEMA_POINTER_MAX];
        join(p, sizeof(p), prefix, f->refs[i].pointer);
        join(f->refs[i].pointer, sizeof(f->refs[i].pointer), p, "");
    }
out:
    json_decref(owned);
}

static void read_one(struct vfile *f)
{
    struct kix_buf raw = KIX_BUF_INIT, canon = KIX_BUF_INIT;
    struct kix_err err = {0};
    int rc = f->data ? kix_buf_add(&raw, f->data->ptr, f->data->len)
                     : kix_file_read(f->path, KIX_CANON_DEFAULT_MAX_BYTES, &raw, &err);

    if (rc == KIX_OK)
        rc = kix_canon_parse_tree(raw.ptr ? raw.ptr : (const uint8_t *)"", raw.len, NULL, &f->doc,
                                  &err);
    if (rc == KIX_OK)
        rc = kix_canon_write_tree(f->doc, &canon);
    if (rc == KIX_OK) {
        kix_digest_of(canon.ptr, canon.len, &f->digest);
        f->have_digest = 1;
    } else {
        invalid(f, "", "%s", err.msg[0] ? err.msg : kix_strerror(rc));
    }
    kix_buf_release(&raw);
    kix_buf_release(&canon);
}

/* The path of `name` relative to the directory of `base` (as kix publish
 * reads a bundle's files). */
static char *beside(const char *base, const char *name)
{
    const char *slash = strrchr(base, '/');
    size_t dir = slash && name[0] != '/' ? (size_t)(slash - base + 1) : 0;
    char *out = malloc(dir + strlen(name) + 1);

    if (out) {
        memcpy(out, base, dir);
        strcpy(out + dir, name);
    }
    return out;
}

/* A run's references given by file name (kix new run writes
 * "workloadDigest": "workload.json"), resolved as kix publish resolves
 * them: the file beside the run is read and checked as one of the files,
 * and its digest stands in the run. Files are appended to *files (grown);
 * returns KIX_OK or KIX_ENOMEM. */
static int resolve_file_refs(struct vfile **files, size_t *n, size_t *cap, size_t i)
{
    json_t *spec = json_object_get((*files)[i].doc, "spec"), *v;
    const char *k, *kind = json_string_value(json_object_get((*files)[i].doc, "kind"));
    int changed = 0;

    if (!kind || strcmp(kind, "BenchmarkRun") != 0 || !json_is_object(spec))
        return KIX_OK;
    json_object_foreach(spec, k, v)
    {
        size_t klen = strlen(k), at;
        const char *name = json_string_value(v);
        char pointer[KIX_SCHEMA_POINTER_MAX], text[KIX_DIGEST_TEXT_LEN + 1], *path;
        struct vfile *f;

        if (klen < 7 || strcmp(k + klen - 6, "Digest") != 0 || !name ||
            strncmp(name, "sha256:", 7) == 0)
            continue;
        snprintf(pointer, sizeof(pointer), "/spec/%s", k);
        if (!*name) {
            invalid(&(*files)[i], pointer,
                    "is empty: give the file it refers to (a path relative to %s) or its "
                    "sha256: digest",
                    (*files)[i].path);
            continue;
        }
        if (*n == *cap) {
            struct vfile *grown = realloc(*files, (*cap * 2) * sizeof(**files));
            if (!grown)
                return KIX_ENOMEM;
            memset(grown + *cap, 0, *cap * sizeof(**files));
            *files = grown;
            *cap *= 2;
        }
        if (!(path = beside((*files)[i].path, name)))
            return KIX_ENOMEM;
        f = &(*files)[*n];
        memset(f, 0, sizeof(*f));
        f->path = f->owned_path = path;
        f->valid = 1;
        read_one(f);
        if (!f->have_digest) {
            invalid(&(*files)[i], pointer,
                    "names the file %s, which could not be read as JSON (%s); fix the name or "
                    "give the object's sha256: digest",
                    path, f->nerrors ? f->errors[0].message : "unreadable");
            json_decref(f->doc);
            free(path);
            memset(f, 0, sizeof(*f));
            continue;
        }
        for (at = 0; at < *n; at++)
            if ((*files)[at].have_digest && memcmp((*files)[at].digest.b, f->digest.b, 32) == 0)
                break;
        kix_digest_format(&f->digest, text);
        if (at < *n) { /* given already: checked once */
            json_decref(f->doc);
            free(path);
            memset(f, 0, sizeof(*f));
        } else {
            (*n)++;
        }
        if (json_object_set_new(spec, k, json_string(text)))
            return KIX_ENOMEM;
        changed = 1;
    }
    if (changed) { /* the run as kix publish would send it */
        struct kix_buf canon = KIX_BUF_INIT;
        if (kix_canon_write_tree((*files)[i].doc, &canon) != KIX_OK) {
            kix_buf_release(&canon);
            return KIX_ENOMEM;
        }
        kix_digest_of(canon.ptr, canon.len, &(*files)[i].digest);
        kix_buf_release(&canon);
    }
    return KIX_OK;
}

static const char *article(const char *kind)
{
    return strchr("AEIOU", kind[0]) ? "an" : "a";
}

/* The kinds digest fields require, among the files. */
static void check_kinds(struct vfile *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < files[i].nrefs; r++) {
            const struct kix_schema_ref *ref = &files[i].refs[r];
            for (size_t j = 0; j < n; j++) {
                if (!files[j].have_digest || memcmp(files[j].digest.b, ref->digest.b, 32) != 0)
                    continue;
                files[i].checked[r] = 1;
                if (strcmp(files[j].schema, ref->kind) != 0) {
                    invalid(&files[i], ref->pointer, "must name %s %s, but %s is %s%s%s",
                            article(ref->kind), ref->kind, files[j].path,
                            files[j].schema[0] ? article(files[j].schema) : "not a record",
                            files[j].schema[0] ? " " : "", files[j].schema);
                    break;
                }
            }
        }
}

struct found_kind {
    int *found;
    char (*kind)[KIX_SCHEMA_KIND_MAX];
};

static int note_object(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct found_kind *f = ctx;
    json_t *doc = bytes ? json_loadb((const char *)bytes, len, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    f->found[i] = bytes != NULL;
    snprintf(f->kind[i], KIX_SCHEMA_KIND_MAX, "%s", kix_record_kind_known(kind) ? kind : "");
    json_decref(doc);
    return 0;
}

/* The references not among the files, looked up in the log (c) when there
 * is one: each must name a stored object of the kind its field requires.
 * Without a log, a bundle's (publish --dry-run) are named as unchecked. */
static int check_log_refs(const char *cmd, struct vfile *files, size_t n, struct kix_client *c,
                          int bundle)
{
    for (size_t i = 0; i < n; i++) {
        struct vfile *f = &files[i];
        struct kix_digest want[VALIDATE_MAX_ERRORS];
        size_t at[VALIDATE_MAX_ERRORS], nwant = 0;
        int found[VALIDATE_MAX_ERRORS];
        char kinds[VALIDATE_MAX_ERRORS][KIX_SCHEMA_KIND_MAX];
        struct found_kind ctx = {found, kinds};
        struct kix_err err = {0};
        int rc;

        for (size_t r = 0; r < f->nrefs && nwant < VALIDATE_MAX_ERRORS; r++)
            if (!f->checked[r]) {
                at[nwant] = r;
                want[nwant++] = f->refs[r].digest;
            }
        if (!nwant)
            continue;
        if (!c) {
            for (size_t k = 0; bundle && k < nwant && f->nwarnings < 8; k++) {
                struct kix_schema_violation *w = &f->warnings[f->nwarnings++];
                snprintf(w->pointer, sizeof(w->pointer), "%s", f->refs[at[k]].pointer);
                snprintf(w->message, sizeof(w->message),
                         "names no file of the bundle; not checked against a log (give --server "
                         "or --store to check that it is stored)");
            }
            continue;
        }
        rc = kix_client_get_objects(c, want, nwant, note_object, &ctx, &err);
        if (rc)
            return cli_fail(cmd, rc, &err);
        for (size_t k = 0; k < nwant; k++) {
            const struct kix_schema_ref *ref = &f->refs[at[k]];
            char text[KIX_DIGEST_TEXT_LEN + 1];
            kix_digest_format(&ref->digest, text);
            f->checked[at[k]] = 1;
            if (!found[k])
                invalid(f, ref->pointer,
                        "%s resolves to nothing: neither a file given nor an object stored in "
                        "%s",
                        text, kix_client_where(c));
            else if (strcmp(kinds[k], ref->kind) != 0)
                invalid(f, ref->pointer, "must name %s %s, but the log's %s is %s%s%s",
                        article(ref->kind), ref->kind, text,
                        kinds[k][0] ? article(kinds[k]) : "not a record", kinds[k][0] ? " " : "",
                        kinds[k]);
        }
    }
    return 0;
}

/* kix publish --dry-run: RUN.json is a BenchmarkRun and every other file
 * is one it (or another file) references, as the log requires. */
static void check_bundle(struct vfile *files, size_t n)
{
    if (n && files[0].valid && strcmp(files[0].schema, "BenchmarkRun") != 0)
        invalid(&files[0], "/kind", "must be \"BenchmarkRun\": a publication publishes a run");
    for (size_t i = 1; i < n; i++) {
        struct kix_digest *refs = NULL;
        size_t nrefs = 0;
        int wanted = 0;
        if (!files[i].have_digest)
            continue;
        for (size_t j = 0; !wanted && j < n; j++) {
            if (j == i || !files[j].doc)
                continue;
            if (kix_refs_collect_tree(files[j].doc, &refs, &nrefs) == KIX_OK)
                for (size_t k = 0; k < nrefs; k++)
                    wanted |= memcmp(refs[k].b, files[i].digest.b, 32) == 0;
            free(refs);
            refs = NULL;
        }
        if (!wanted && files[i].valid)
            invalid(&files[i], "",
                    "no other file of the bundle references it; send only what the run needs");
    }
}

static void print_text(const struct vfile *f)
{
    char d[KIX_DIGEST_TEXT_LEN + 1] = "";
    if (f->have_digest)
        kix_digest_format(&f->digest, d);
    if (f->valid && !f->schema[0])
        printf("%s: valid object without a kind (kept as it is) %s\n", f->path, d);
    else if (f->valid)
        printf("%s: valid %s %s\n", f->path, f->schema, d);
    for (size_t i = 0; i < f->nwarnings; i++)
        printf("%s: warning: %s: %s\n", f->path, f->warnings[i].pointer, f->warnings[i].message);
    for (size_t i = 0; i < f->nerrors; i++)
        if (f->errors[i].pointer[0])
            printf("%s: invalid: %s: %s\n", f->path, f->errors[i].pointer, f->errors[i].message);
        else
            printf("%s: invalid: %s\n", f->path, f->errors[i].message);
}

/* {pointer, message} for each of n problems. */
static json_t *problems_json(const struct kix_schema_violation *p, size_t n)
{
    json_t *list = json_array();

    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(
            list, json_pack("{s:o,s:o}", "pointer", cli_jstr(p[i].pointer, strlen(p[i].pointer)),
                            "message", cli_jstr(p[i].message, strlen(p[i].message))));
    return list;
}

static int print_json(const char *cmd, const struct vfile *files, size_t n, int all_valid)
{
    json_t *list = json_array(), *x, *refs;

    for (size_t i = 0; list && i < n; i++) {
        const struct vfile *f = &files[i];
        char d[KIX_DIGEST_TEXT_LEN + 1];
        if (f->have_digest)
            kix_digest_format(&f->digest, d);
        x = json_pack("{s:o,s:b,s:o,s:o}", "file", cli_jstr(f->path, strlen(f->path)), "valid",
                      f->valid, "schema",
                      f->schema[0] ? cli_jstr(f->schema, strlen(f->schema)) : json_null(), "digest",
                      f->have_digest ? json_string(d) : json_null());
        if (x && !f->valid && f->nerrors) /* the first, and every one */
            json_object_update_new(
                x,
                json_pack("{s:o,s:o,s:o}", "pointer",
                          cli_jstr(f->errors[0].pointer, strlen(f->errors[0].pointer)), "message",
                          cli_jstr(f->errors[0].message, strlen(f->errors[0].message)), "errors",
                          problems_json(f->errors, f->nerrors)));
        if (x)
            json_object_set_new(x, "warnings", problems_json(f->warnings, f->nwarnings));
        refs = json_array();
        for (size_t r = 0; refs && f->valid && r < f->nrefs; r++) {
            kix_digest_format(&f->refs[r].digest, d);
            json_array_append_new(
                refs, json_pack("{s:o,s:s,s:s,s:b}", "pointer",
                                cli_jstr(f->refs[r].pointer, strlen(f->refs[r].pointer)), "digest",
                                d, "kind", f->refs[r].kind, "checked", f->checked[r]));
        }
        if (x)
            json_object_set_new(x, "refs", refs);
        else
            json_decref(refs);
        json_array_append_new(list, x);
    }
    return cli_doc(cmd, json_pack("{s:b,s:o}", "valid", all_valid, "files", list), 1, NULL);
}

int cli_validate_files(const char *cmd, char **paths, const struct kix_bytes *data, size_t n,
                       const char *force, int json, int bundle, const struct cli_common *log)
{
    struct vfile *files;
    struct kix_client *c = NULL;
    struct kix_err err = {0};
    size_t given = n, cap = n;
    int all_valid = 1, status;

    if (!n)
        return cli_usage_error(cmd, "expected FILE...");
    if (n > VALIDATE_MAX_FILES)
        return cli_usage_error(cmd, "at most %d files", VALIDATE_MAX_FILES);
    /* a file that is not there is no verdict but an error, as a record or
     * key not found is */
    for (size_t i = 0; !data && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 && errno == ENOENT) {
            kix_err_set(&err, KIX_ENOTFOUND, "%s: no such file", paths[i]);
            return cli_fail_with(cmd, KIX_ENOTFOUND, &err,
                                 "check the path (kix new run writes DIR/run.json)", NULL);
        }
    }
    files = calloc(n, sizeof(*files));
    if (!files)
        return cli_fail(cmd, kix_err_set(&err, KIX_ENOMEM, "out of memory"), &err);
    for (size_t i = 0; i < given; i++) {
        files[i].path = paths[i];
        files[i].data = data ? &data[i] : NULL;
        files[i].valid = 1;
        read_one(&files[i]);
    }
    /* kix validate DIR/run.json of a kix new run bundle: its references by
     * file name, resolved as kix publish does (publish --dry-run resolved
     * them already) */
    for (size_t i = 0; !data && i < given; i++)
        if (files[i].valid && resolve_file_refs(&files, &n, &cap, i) != KIX_OK) {
            status = cli_fail(cmd, kix_err_set(&err, KIX_ENOMEM, "out of memory"), &err);
            goto out;
        }
    for (size_t i = 0; i < n; i++)
        if (files[i].valid)
            validate_one(&files[i], force, bundle);
    check_kinds(files, n);
    if (bundle)
        check_bundle(files, n);
    if (log && (status = cli_connect(cmd, log, &c)) != 0)
        goto out;
    if ((status = check_log_refs(cmd, files, n, c, bundle)) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        all_valid &= files[i].valid;
    if (json && (status = print_json(cmd, files, n, all_valid)) != 0)
        goto out;
    if (!json)
        for (size_t i = 0; i < n; i++)
            print_text(&files[i]);
    status = fflush(stdout) ? EXIT_INTERNAL : all_valid ? 0 : EXIT_REJECTED;
out:
    kix_client_close(c);
    for (size_t i = 0; i < n; i++) {
        json_decref(files[i].doc);
        free(files[i].refs);
        free(files[i].checked);
        free(files[i].owned_path);
    }
    free(files);
    return status;
}

int cmd_validate(int argc, char **argv)
{
    struct cli_opts o;
    const struct kix_schema *s;
    const char *force = NULL;
    struct cli_common common;
    int c;

    cli_start(&o, &validate_cmd, argc, argv, &common);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 'k':
            force = optarg;
            break;
        case 'S':
            schema_only = 1;
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (force && kix_schema_builtin(force, &s, NULL) != KIX_OK)
        return cli_usage_error("validate",
                               "--kind must be a record kind (BenchmarkRun, BenchmarkProtocol, "
                               "Workload, ExecutionEnvironment, Implementation) or a predicate "
                               "(publication, attestation, rerun, supersession, withdrawal, "
                               "reinstatement, key)");
    return cli_validate_files("validate", argv + optind, NULL, (size_t)(argc - optind), force,
                              common.json, 0, common.store || common.server ? &common : NULL);
}
