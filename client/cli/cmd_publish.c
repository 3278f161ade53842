/* kix publish, attest, rerun, supersede, withdraw, reinstate, key: signed
 * entries, submitted and proven by their receipts. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kix/submit_body.h"
#include "cli.h"
#include "cli_log.h"
#include "kix/entries.h"
#include "kix/file.h"
#include "kix/json.h"
#include "kix/record_rules.h"
#include "kix/schema.h"
#include "kix/sha256.h"

#define MAX_FILES 64

/* What every write command parses. */
struct write_args {
    struct cli_common common;
    const char *key_path, *receipt, *run_id, *note, *outcome, *reason, *roles, *source, *license;
    const char *evidence[32];
    size_t nevidence;
    char **rest;
    int nrest;
    /* kix key */
    int key_revoke, key_roles;
    struct kix_verifier key_subject;
    int new_run;   /* publish --new-run */
    int dry_run;   /* kix publish --dry-run */
    int sign_only; /* print the signed body (kix/submit_body.h), submit nothing */
    /* kix attest --open [--work BITS] */
    int open_note;
    long work;
    /* kix policy --open-notes on|off [--note-work BITS] */
    const char *open_notes;
    const char *queue; /* kix key approve --queue */
    long note_work;
};

/* Manifests read from files: canonical bytes and digests; [0] is the run
 * manifest (publish, rerun, supersede) and the files it names follow the
 * files given. */
struct manifests {
    struct kix_buf canon[MAX_FILES];
    struct kix_digest digest[MAX_FILES];
    struct kix_bytes view[MAX_FILES];
    char *path[MAX_FILES]; /* the file each came from (malloc'ed) */
    size_t n;
    char observed_at[40]; /* the run manifest's spec.observedAt, or "" */
};

static void manifests_release(struct manifests *m)
{
    for (size_t i = 0; i < m->n; i++) {
        kix_buf_release(&m->canon[i]);
        free(m->path[i]);
    }
    m->n = 0;
}

static int manifests_find(const struct manifests *m, const struct kix_digest *d)
{
    for (size_t i = 0; i < m->n; i++)
        if (memcmp(m->digest[i].b, d->b, sizeof(d->b)) == 0)
            return (int)i;
    return -1;
}

/* Reads one file as canonical JSON into slot m->n. */
static int read_one(const char *cmd, const char *path, struct manifests *m)
{
    size_t i = m->n;
    int status;

    if (i == MAX_FILES)
        return cli_usage_error(cmd, "at most %d files per entry", MAX_FILES);
    kix_buf_init(&m->canon[i]);
    m->path[i] = strdup(path);
    m->n++;
    if (!m->path[i]) {
        fprintf(stderr, "kix %s: out of memory\n", cmd);
        return EXIT_INTERNAL;
    }
    status = cli_read_json_object(cmd, path, &m->canon[i], &m->digest[i]);
    if (status == 0)
        m->view[i] = kix_buf_bytes(&m->canon[i]);
    return status;
}

/* The path of `name` relative to the directory of `base`. */
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

/* A run manifest's references given by file name: every spec.*Digest that
 * is not a sha256: digest names a file beside the run manifest, which is
 * read, sent with the entry and referenced by its digest (a publisher never
 * computes a digest by hand). */
static int fill_digests(const char *cmd, json_t *run, struct manifests *m)
{
    json_t *spec = json_object_get(run, "spec"), *v;
    const char *k;
    void *it;

    json_object_foreach_safe(spec, it, k, v)
    {
        size_t klen = strlen(k);
        const char *name = json_string_value(v);
        char text[KIX_DIGEST_TEXT_LEN + 1], *path;
        size_t before = m->n;
        int status, at;

        if (klen < 7 || strcmp(k + klen - 6, "Digest") != 0 || !name ||
            strncmp(name, "sha256:", 7) == 0)
            continue;
        if (!*name) {
            fprintf(stderr,
                    "kix %s: %s: spec.%s is empty; give the file it refers to (a path "
                    "relative to %s) or its sha256: digest\n",
                    cmd, m->path[0], k, m->path[0]);
            return EXIT_REJECTED;
        }
        path = beside(m->path[0], name);
        if (!path) {
            fprintf(stderr, "kix %s: out of memory\n", cmd);
            return EXIT_INTERNAL;
        }
        status = read_one(cmd, path, m);
        if (status) {
            fprintf(stderr,
                    "kix %s: %s: spec.%s names the file %s, which could not be read as a "
                    "JSON object (above); fix the name or give the object's sha256: digest\n",
                    cmd, m->path[0], k, path);
            free(path);
            return status;
        }
        free(path);
        at = manifests_find(m, &m->digest[before]);
        if (at >= 0 && (size_t)at < before) { /* given already: send it once */
            kix_buf_release(&m->canon[before]);
            free(m->path[before]);
            m->n = before;
        }
        kix_digest_format(&m->digest[at >= 0 ? (size_t)at : before], text);
        if (json_object_set_new(spec, k, json_string(text))) {
            fprintf(stderr, "kix %s: out of memory\n", cmd);
            return EXIT_INTERNAL;
        }
    }
    return 0;
}

/* Reads the files of an entry. With `run` set, files[0] is a run manifest:
 * its file-named references are filled in (fill_digests), and `new_run_id`
 * (--new-run) is written into its metadata.runId. */
static int read_manifests(const char *cmd, char **files, size_t n, int run, const char *new_run_id,
                          struct manifests *m)
{
    struct kix_buf raw = KIX_BUF_INIT;
    struct kix_err err = {0};
    json_t *tree = NULL;
    int status = 0, rc;

    if (n > MAX_FILES)
        return cli_usage_error(cmd, "at most %d files per entry", MAX_FILES);
    for (size_t i = 0; status == 0 && i < n; i++)
        status = read_one(cmd, files[i], m);
    if (status || !run || n == 0)
        return status;
    /* the run manifest once more, as a tree, to fill in what publish fills */
    rc = kix_file_read(files[0], KIX_CANON_DEFAULT_MAX_BYTES, &raw, &err);
    if (rc == KIX_OK)
        rc = kix_canon_parse_tree(raw.ptr, raw.len, NULL, &tree, &err);
    kix_buf_release(&raw);
    if (rc) {
        kix_err_wrap(&err, "%s", files[0]);
        return cli_fail(cmd, rc, &err);
    }
    if (!json_is_object(json_object_get(tree, "spec"))) {
        fprintf(stderr,
                "kix %s: %s: a run manifest needs a \"spec\" object (kix new run writes a "
                "complete one)\n",
                cmd, files[0]);
        status = EXIT_REJECTED;
        goto out;
    }
    snprintf(m->observed_at, sizeof(m->observed_at), "%s",
             json_string_value(json_object_get(json_object_get(tree, "spec"), "observedAt"))
                 ? json_string_value(json_object_get(json_object_get(tree, "spec"), "observedAt"))
                 : "");
    status = fill_digests(cmd, tree, m);
    if (status == 0 && new_run_id) {
        json_t *meta = json_object_get(tree, "metadata");
        if (!json_is_object(meta)) {
            meta = json_object();
            json_object_set_new(tree, "metadata", meta);
        }
        if (!meta || json_object_set_new(meta, "runId", json_string(new_run_id))) {
            fprintf(stderr, "kix %s: out of memory\n", cmd);
            status = EXIT_INTERNAL;
        }
    }
    if (status)
        goto out;
    kix_buf_reset(&m->canon[0]);
    if (kix_canon_write_tree(tree, &m->canon[0]) != KIX_OK) {
        fprintf(stderr, "kix %s: out of memory\n", cmd);
        status = EXIT_INTERNAL;
        goto out;
    }
    kix_digest_of(m->canon[0].ptr, m->canon[0].len, &m->digest[0]);
    m->view[0] = kix_buf_bytes(&m->canon[0]);
out:
    json_decref(tree);
    return status;
}

/* Where in a document a digest is referenced: "spec.workloadDigest". */
static int ref_path(const json_t *v, const char *text, char *path, size_t cap, size_t at)
{
    const char *k;
    json_t *x;
    size_t i;

    if (json_is_string(v))
        return strcmp(json_string_value(v), text) == 0;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, x)
        {
            int n = snprintf(path + at, cap - at, "%s%s", at ? "." : "", k);
            if (n < 0 || (size_t)n >= cap - at)
                continue;
            if (ref_path(x, text, path, cap, at + (size_t)n))
                return 1;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x)
        {
            int n = snprintf(path + at, cap - at, "[%zu]", i);
            if (n < 0 || (size_t)n >= cap - at)
                continue;
            if (ref_path(x, text, path, cap, at + (size_t)n))
                return 1;
        }
    }
    path[at] = '\0';
    return 0;
}

struct have_ctx {
    int *have;
};

static int note_have(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct have_ctx *h = ctx;
    (void)len;
    h->have[i] = bytes != NULL;
    return 0;
}

/* Every reference of the files sent must be among them or stored in the
 * log; otherwise the field and the file are named before anything is
 * signed. */
static int check_references(const char *cmd, struct kix_client *c, const struct manifests *m)
{
    int status = 0;

    for (size_t f = 0; status == 0 && f < m->n; f++) {
        struct kix_digest *refs = NULL, missing[MAX_FILES];
        int have[MAX_FILES];
        struct have_ctx h = {have};
        struct kix_err err = {0};
        size_t nrefs = 0, nmissing = 0;
        int rc = kix_refs_extract(m->canon[f].ptr, m->canon[f].len, &refs, &nrefs, &err);

        if (rc)
            return cli_fail(cmd, rc, &err);
        for (size_t i = 0; i < nrefs && nmissing < MAX_FILES; i++)
            if (manifests_find(m, &refs[i]) < 0)
                missing[nmissing++] = refs[i];
        free(refs);
        if (nmissing == 0)
            continue;
        rc = kix_client_get_objects(c, missing, nmissing, note_have, &h, &err);
        if (rc)
            return cli_fail(cmd, rc, &err);
        for (size_t i = 0; i < nmissing; i++) {
            char text[KIX_DIGEST_TEXT_LEN + 1], path[256] = "";
            json_t *doc;
            if (have[i])
                continue;
            kix_digest_format(&missing[i], text);
            doc = json_loadb((const char *)m->canon[f].ptr, m->canon[f].len, 0, NULL);
            ref_path(doc, text, path, sizeof(path), 0);
            json_decref(doc);
            fprintf(stderr,
                    "kix %s: %s: %s references %s, which is neither among the files given nor "
                    "stored in the log; give the file it names (as a path in place of the "
                    "digest, or as one more file)\n",
                    cmd, m->path[f], path[0] ? path : "a field", text);
            status = EXIT_REJECTED;
        }
    }
    return status;
}

static int parse_write_args(const char *cmd, const struct kix_cmd *table, int argc, char **argv,
                            struct write_args *a)
{
    struct cli_opts o;
    int c;

    memset(a, 0, sizeof(*a));
    cli_start(&o, table, argc, argv, &a->common);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 'k':
            a->key_path = optarg;
            break;
        case 'r':
            a->receipt = optarg;
            break;
        case 'i':
            a->run_id = optarg;
            break;
        case 'n':
            a->note = optarg;
            break;
        case 'e':
            if (a->nevidence == 32)
                return cli_usage_error(cmd, "at most 32 --evidence files");
            a->evidence[a->nevidence++] = optarg;
            break;
        case 'o':
            a->outcome = optarg;
            break;
        case 'R':
            a->reason = optarg;
            break;
        case 'l':
            a->roles = optarg;
            break;
        case 's':
            a->source = optarg;
            break;
        case 'L':
            a->license = optarg;
            break;
        case 'N':
            a->new_run = 1;
            break;
        case 'D':
            a->dry_run = 1;
            break;
        case 'S':
            a->sign_only = 1;
            break;
        case 'O':
            a->open_note = 1;
            break;
        case 'W':
        case 'w': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 0 || v > KIX_NOTE_WORK_MAX)
                return cli_usage_error(cmd, "--%s takes a number of bits from 0 to %u",
                                       c == 'W' ? "work" : "note-work", KIX_NOTE_WORK_MAX);
            *(c == 'W' ? &a->work : &a->note_work) = v;
            break;
        }
        case 'P':
            a->open_notes = optarg;
            break;
        case 'q':
            a->queue = optarg;
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    a->rest = argv + optind;
    a->nrest = argc - optind;
    return -1;
}

/* Connects, reads the log key and the signing key, and checks the
 * server's latest checkpoint against the one this client verified before:
 * a forked log is exit 4, and a server behind it (a copy that lags, or an
 * origin rolled back) exit 5, before anything is signed or sent (a write's
 * receipt would show it only after the server stored it, and a write there
 * would fork the log). */
static int open_all(const char *cmd, struct write_args *a, struct kix_client **c,
                    struct kix_verifier *key, struct kix_signer **signer)
{
    int status = cli_signer(cmd, a->key_path, signer);
    if (status == 0)
        status = cli_connect(cmd, &a->common, c);
    if (status == 0)
        status = cli_contact(cmd, &a->common, *c, key, CLI_CONTACT_READ, NULL);
    if (status == 0)
        status = cli_stale_refuse(cmd);
    return status;
}

static void print_written(const struct write_args *a, const char *what, const char *origin,
                          const char *run_id, const struct kix_digest *d,
                          const struct cli_submitted *s)
{
    char text[KIX_DIGEST_TEXT_LEN + 1] = "";
    struct kix_buf link = KIX_BUF_INIT;

    if (d)
        kix_digest_format(d, text);
    if (run_id && kix_permalink(origin, run_id, &link) != KIX_OK)
        kix_buf_reset(&link);
    if (a->common.json) {
        json_t *o = json_pack("{s:s,s:I,s:b,s:I}", "entry", what, "index", (json_int_t)s->index,
                              "duplicate", s->duplicate, "size", (json_int_t)s->size);
        if (o && run_id)
            json_object_update_new(o, json_pack("{s:s,s:s%}", "runId", run_id, "permalink",
                                                link.ptr ? (const char *)link.ptr : "", link.len));
        if (o && d)
            json_object_set_new(o, "digest", json_string(text));
        if (o)
            json_object_set_new(o, "receipt", json_string(s->receipt_path));
        (void)cli_doc(what, o, 1, NULL);
    } else {
        if (run_id)
            printf("%s\n", (const char *)link.ptr);
        if (d)
            printf("digest   %s\n", text);
        printf("%s at log index %llu%s (log size %llu), receipt verified\nreceipt  %s\n", what,
               (unsigned long long)s->index, s->duplicate ? " (already logged)" : "",
               (unsigned long long)s->size, s->receipt_path);
    }
    kix_buf_release(&link);
}

/* --sign-only: the JSON body POST /submit and kix submit take (one line). */
static int print_body(const char *cmd, const struct kix_bundle *bundles, size_t n)
{
    struct kix_bytes envelopes[2];
    const struct kix_bytes *objects[2];
    size_t nobjects[2];
    struct kix_buf body = KIX_BUF_INIT;
    struct kix_err err = {0};
    int rc;

    for (size_t i = 0; i < n && i < 2; i++) {
        envelopes[i] = bundles[i].envelope;
        objects[i] = bundles[i].objects;
        nobjects[i] = bundles[i].nobjects;
    }
    rc = kix_submit_body_write(envelopes, objects, nobjects, n, &body, &err);
    if (rc == KIX_OK) {
        fwrite(body.ptr, 1, body.len, stdout);
        putchar('\n');
    }
    kix_buf_release(&body);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

/* What one write command signs: a filled-in job after the shared steps
 * (read the manifests, connect, read keys, resolve the run it is about). */
struct write_job {
    struct write_args *a;
    struct kix_signer *signer;
    struct kix_resolution res; /* the run the entry is about (when needs_run) */
    struct manifests m;        /* files sent with the entry */
    struct kix_buf env[2];     /* the envelopes to submit, in order */
    size_t nenv;
    const char *run_id;              /* shown as the permalink */
    const struct kix_digest *digest; /* shown as the digest */
    const struct kix_verifier *log_key;
};

typedef int (*sign_fn)(struct write_job *j, struct kix_err *err);

/* The log's checks of each record sent (its schema, then the record rules
 * of PROTOCOL.md 5.3), made here first so that the error names the file
 * and the JSON pointer (under --json: "file" and "pointer" members), which
 * the log's refusal of a whole bundle cannot. Returns an exit status. */
static int check_records(const char *cmd, const struct manifests *m)
{
    for (size_t i = 0; i < m->n; i++) {
        struct kix_schema_violation v[1];
        struct kix_schema_result res;
        const struct kix_schema *s;
        struct kix_err err = {0};
        json_t *doc = json_loadb((const char *)m->view[i].ptr, m->view[i].len, 0, NULL);
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        json_t *members;
        size_t nv = 0;
        int code = KIX_EINVAL, status = 0;

        if (kix_record_kind_known(kind) && kix_schema_builtin(kind, &s, NULL) == KIX_OK &&
            kix_schema_validate_all(s, doc, &res, v, 1, &nv) == KIX_OK)
            kix_schema_result_release(&res);
        if (!nv && kix_record_kind_known(kind)) {
            kix_record_rules(doc, (int64_t)time(NULL), v, 1, &nv);
            code = KIX_EPOLICY;
        }
        json_decref(doc);
        if (!nv)
            continue;
        kix_err_set(&err, code, "%s: %s: %s", m->path[i], v[0].pointer, v[0].message);
        /* the error object's file and pointer */
        members = json_pack("{s:s, s:s}", "file", m->path[i], "pointer", v[0].pointer);
        if (members)
            status = cli_fail_with(cmd, code, &err,
                                   "fix it; kix validate (or kix publish --dry-run) lists every "
                                   "error at once",
                                   members);
        else
            status = cli_fail(cmd, code, &err);
        json_decref(members);
        return status;
    }
    return 0;
}

/* The steps every write command shares; `files` are the manifests to send
 * (with `is_run`, files[0] is a run manifest), `ref` the run the entry is
 * about (NULL for none). */
static int run_write(const char *cmd, const char *what, struct write_args *a, char **files,
                     size_t nfiles, int is_run, const char *ref, sign_fn sign)
{
    struct write_job j;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_checkpoint cp;
    struct kix_bundle bundles[2];
    struct cli_submitted out;
    struct kix_err err = {0};
    int rc, status;

    if (a->dry_run)
        return cli_usage_error(cmd, "--dry-run is an option of kix publish");
    memset(&j, 0, sizeof(j));
    j.a = a;
    kix_resolution_init(&j.res);
    kix_buf_init(&j.env[0]);
    kix_buf_init(&j.env[1]);
    status = read_manifests(cmd, files, nfiles, is_run, a->new_run ? a->run_id : NULL, &j.m);
    if (status == 0)
        status = check_records(cmd, &j.m);
    if (status == 0)
        status = open_all(cmd, a, &c, &key, &j.signer);
    if (status == 0)
        status = check_references(cmd, c, &j.m);
    if (status == 0 && ref)
        status = cli_resolve_verified(cmd, c, &key, ref, &j.res, &cp);
    if (status)
        goto out;
    j.log_key = &key;
    rc = sign(&j, &err);
    if (rc) {
        status = cli_fail(cmd, rc, &err);
        goto out;
    }
    for (size_t i = 0; i < j.nenv; i++) {
        bundles[i].envelope = kix_buf_bytes(&j.env[i]);
        /* the files travel with the first envelope */
        bundles[i].objects = i == 0 ? j.m.view : NULL;
        bundles[i].nobjects = i == 0 ? j.m.n : 0;
    }
    if (a->sign_only) {
        status = print_body(cmd, bundles, j.nenv);
        goto out;
    }
    status = cli_submit(cmd, c, &key, bundles, j.nenv, a->receipt, &out);
    if (status == 0)
        print_written(a, what, key.name, j.run_id, j.digest, &out);
out:
    kix_resolution_release(&j.res);
    kix_buf_release(&j.env[0]);
    kix_buf_release(&j.env[1]);
    manifests_release(&j.m);
    kix_signer_free(j.signer);
    kix_client_close(c);
    return status;
}

/* --run-id follows the run-id grammar (PROTOCOL.md §5.3), checked before
 * anything is read, signed or sent: -1 when it does, else the exit status. */
static int check_new_run_id(const char *cmd, const struct write_args *a)
{
    struct kix_err err = {0};

    if (kix_run_id_check(a->run_id, strlen(a->run_id), &err) == KIX_OK)
        return -1;
    return cli_fail(cmd, KIX_EINVAL, &err);
}

#define SIGN_ONLY_OPT                                                                              \
    KIX_ID("sign-only", NULL, 'S',                                                                 \
           "sign, then print the JSON body that POST /submit and kix\n"                            \
           "submit take (one line) instead of submitting it")

static const struct kix_opt publish_opts[] = {
    KIX_NOTE("\n"
             "Publishes a benchmark run: canonicalizes the manifests, signs a publication\n"
             "statement for RUN.json (DSSE, in-toto) with KEY, submits it with every file\n"
             "given (the objects RUN.json references by digest, unless already logged),\n"
             "verifies the receipt against the log key, saves it and prints the permalink.\n"
             "\n"
             "A reference in RUN.json's spec (workloadDigest, protocolDigest, ...) may name\n"
             "a file instead of a digest (\"workloadDigest\": \"workload.json\", relative to\n"
             "RUN.json): publish reads it, sends it and writes its digest in (kix new run\n"
             "writes such a bundle). A reference that is neither a file given nor stored in\n"
             "the log is refused before anything is signed, naming the field and the file.\n"
             "\n"
             "A manifest is published once. A new measurement whose figures (and every\n"
             "other field) equal a published run's is a run of its own with --new-run: the\n"
             "new run id is written into the manifest as metadata.runId, so its digest,\n"
             "and so its identity, is its own.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k', "your private key file (kix keygen), registered with role publish"),
    KIX_ID("run-id", "ID", 'i', "the run id (default: a fresh UUIDv7)"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt (default: the state directory)"),
    SIGN_ONLY_OPT,
    KIX_ID("source", "TEXT", 's', "the publication's source, e.g. \"Liger-Kernel benchmarks\""),
    KIX_ID("license", "TEXT", 'L', "the data's license, e.g. BSD-2-Clause"),
    KIX_ID("new-run", NULL, 'N',
           "a new measurement with the same figures as a published\n"
           "run: record the run id in the manifest (metadata.runId)"),
    KIX_ID("dry-run", NULL, 'D',
           "check the bundle offline as the log would (kix validate's\n"
           "checks: RUN.json a valid BenchmarkRun, every file valid and\n"
           "referenced, digest fields naming the right kinds, the\n"
           "record rules); needs no key; with --server, --store or\n"
           "$KIX_SERVER, every reference not in the bundle must name\n"
           "an object stored in that log; signs and sends nothing"),
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 published, 1 refused or unverifiable, or a file or key not\n"
             "found, 2 usage, 3 I/O or server error, 4 the log contradicts what this client\n"
             "verified before (checked before anything is signed or sent; evidence kept),\n"
             "5 the log is behind what this client verified (stale; nothing signed or sent)\n"),
};
static const struct kix_cmd publish_cmd = {
    .prog = "kix publish",
    .usage = "--key KEY [--run-id ID] [--new-run] [--dry-run | --sign-only]\n"
             "[--receipt FILE] RUN.json\n"
             "[REFERENCED.json...]",
    KIX_CMD_OPTS(publish_opts),
    .column = 19};

static int sign_publication(struct write_job *j, struct kix_err *err)
{
    j->run_id = j->a->run_id;
    j->nenv = 1;
    j->digest = &j->m.digest[0];
    return kix_entry_publication(j->signer, j->run_id, j->digest, NULL, j->a->source, j->a->license,
                                 &j->env[0], err);
}

int cmd_publish(int argc, char **argv)
{
    struct write_args a;
    char uuid[37];
    int status = parse_write_args("publish", &publish_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest < 1)
        return cli_usage_error("publish", "expected RUN.json [REFERENCED.json...]");
    if (!a.run_id)
        kix_uuid7(uuid);
    a.run_id = a.run_id ? a.run_id : uuid;
    if ((status = check_new_run_id("publish", &a)) >= 0)
        return status;
    if (a.dry_run) {
        /* the bundle as publish would send it: file-named references filled
         * in, --new-run's metadata.runId written */
        struct manifests m;
        memset(&m, 0, sizeof(m));
        status =
            read_manifests("publish", a.rest, (size_t)a.nrest, 1, a.new_run ? a.run_id : NULL, &m);
        if (status == 0)
            /* references not in the bundle: against the log, when one is named */
            status = cli_validate_files(
                "publish", m.path, m.view, m.n, NULL, a.common.json, 1,
                a.common.store || a.common.server || getenv("KIX_SERVER") ? &a.common : NULL);
        manifests_release(&m);
        return status;
    }
    return run_write("publish", "publication", &a, a.rest, (size_t)a.nrest, 1, NULL,
                     sign_publication);
}

static const struct kix_opt attest_opts[] = {
    KIX_NOTE("\n"
             "Adds a community attestation (a reproduction or a note) about RUN (a\n"
             "permalink, run id or manifest digest). Attestations never change a run's\n"
             "evidence level; only a controlled rerun does.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k',
           "your private key file, registered with role attest (or,\nwith --open, any key)"),
    KIX_ID("open", NULL, 'O',
           "an open note from a key no registration names: it carries\n"
           "the key's public half, and a log takes it only when its\n"
           "policy allows open notes (kix policy); shown everywhere as\n"
           "\"community, unregistered key\""),
    KIX_ID("work", "BITS", 'W',
           "with --open: the proof of work the log's policy asks (about\n"
           "2^BITS hashes; its refusal names the figure)"),
    KIX_ID("note", "TEXT", 'n', "what you observed"),
    KIX_ID("evidence", "FILE", 'e',
           "a JSON manifest backing the note (repeatable), logged with it"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
};
static const struct kix_cmd attest_cmd = {
    .prog = "kix attest",
    .usage = "--key KEY --note TEXT [--evidence FILE...] [--open [--work BITS]] RUN",
    KIX_CMD_OPTS(attest_opts),
    .column = 19};

static int sign_attestation(struct write_job *j, struct kix_err *err)
{
    j->run_id = j->res.run.run_id;
    j->nenv = 1;
    if (j->a->open_note)
        return kix_entry_open_note(j->signer, j->log_key->name, j->res.run.run_id,
                                   &j->res.run.manifest, j->a->note, j->m.digest, j->m.n, NULL,
                                   (unsigned)j->a->work, &j->env[0], err);
    return kix_entry_attestation(j->signer, j->res.run.run_id, &j->res.run.manifest, j->a->note,
                                 j->m.digest, j->m.n, &j->env[0], err);
}

int cmd_attest(int argc, char **argv)
{
    struct write_args a;
    int status = parse_write_args("attest", &attest_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest != 1 || !a.note)
        return cli_usage_error("attest", "expected --note TEXT and one RUN");
    if (a.work && !a.open_note)
        return cli_usage_error("attest", "--work is for an open note (--open)");
    return run_write("attest", "attestation", &a, (char **)a.evidence, a.nevidence, 0, a.rest[0],
                     sign_attestation);
}

static const struct kix_opt rerun_opts[] = {
    KIX_NOTE("\n"
             "Records a controlled rerun of RUN: its outcome and the rerun's own run\n"
             "manifest (logged with the files it references; references may name files,\n"
             "as with kix publish). The rerun is dated by its manifest's spec.observedAt\n"
             "(now when it has none). This is the only entry that changes a run's\n"
             "evidence level.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k', "your private key file, registered with role rerun"),
    {.kind = KIX_OPT_ID,
     .name = "outcome",
     .arg = "O",
     .id = 'o',
     .complete = "reproduced not_reproduced failed",
     .help = "reproduced, not_reproduced or failed"},
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
};
static const struct kix_cmd rerun_cmd = {
    .prog = "kix rerun",
    .usage = "--key KEY --outcome reproduced|not_reproduced|failed RUN RERUN.json\n"
             "[REFERENCED.json...]",
    KIX_CMD_OPTS(rerun_opts),
    .column = 19};

static int sign_rerun(struct write_job *j, struct kix_err *err)
{
    j->run_id = j->res.run.run_id;
    j->digest = &j->m.digest[0];
    j->nenv = 1;
    /* the rerun was observed when its own manifest says (else now) */
    return kix_entry_rerun(j->signer, j->res.run.run_id, &j->res.run.manifest, j->a->outcome,
                           j->digest, j->m.observed_at[0] ? j->m.observed_at : NULL, &j->env[0],
                           err);
}

int cmd_rerun(int argc, char **argv)
{
    struct write_args a;
    int status = parse_write_args("rerun", &rerun_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest < 2 || !a.outcome)
        return cli_usage_error("rerun", "expected --outcome O, RUN and RERUN.json");
    if (kix_evidence_parse(a.outcome, strlen(a.outcome)) <= KIX_EVIDENCE_REPORTED)
        return cli_usage_error("rerun", "--outcome must be reproduced, not_reproduced or failed");
    return run_write("rerun", "rerun", &a, a.rest + 1, (size_t)a.nrest - 1, 1, a.rest[0],
                     sign_rerun);
}

static const struct kix_opt supersede_opts[] = {
    KIX_NOTE("\n"
             "Publishes a corrected run and points OLD_RUN at it, in one submission. The\n"
             "old run stays resolvable; readers are told it was superseded. Only the key\n"
             "that published OLD_RUN may supersede it.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k', "the publisher's private key file"),
    KIX_ID("run-id", "ID", 'i', "the new run's id (default: a fresh UUIDv7)"),
    KIX_ID("reason", "TEXT", 'R', "why the old run was corrected"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
};
static const struct kix_cmd supersede_cmd = {
    .prog = "kix supersede",
    .usage = "--key KEY [--run-id NEW_ID] [--reason TEXT] OLD_RUN NEW_RUN.json\n"
             "[REFERENCED.json...]",
    KIX_CMD_OPTS(supersede_opts),
    .column = 19};

/* Publishes the successor and points the old run at it: two envelopes,
 * one submission, in that order. */
static int sign_supersession(struct write_job *j, struct kix_err *err)
{
    int rc = kix_entry_publication(j->signer, j->a->run_id, &j->m.digest[0], NULL, j->a->source,
                                   j->a->license, &j->env[0], err);
    if (rc == KIX_OK)
        rc = kix_entry_supersession(j->signer, j->res.run.run_id, &j->res.run.manifest,
                                    j->a->run_id, j->a->reason, &j->env[1], err);
    j->run_id = j->a->run_id;
    j->digest = &j->m.digest[0];
    j->nenv = 2;
    return rc;
}

int cmd_supersede(int argc, char **argv)
{
    struct write_args a;
    char uuid[37];
    int status = parse_write_args("supersede", &supersede_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest < 2)
        return cli_usage_error("supersede", "expected OLD_RUN and NEW_RUN.json");
    if (!a.run_id)
        kix_uuid7(uuid);
    a.run_id = a.run_id ? a.run_id : uuid;
    if ((status = check_new_run_id("supersede", &a)) >= 0)
        return status;
    return run_write("supersede", "supersession", &a, a.rest + 1, (size_t)a.nrest - 1, 1, a.rest[0],
                     sign_supersession);
}

static const struct kix_opt withdraw_opts[] = {
    KIX_NOTE("\n"
             "Withdraws RUN (a permalink, run id or manifest digest) from ranking, in the\n"
             "open: a signed entry with a reason, a note and optionally the evidence. The\n"
             "run leaves its comparison group's ranks and every query (the runs after it\n"
             "close up); its page stays, marked withdrawn, with the reason and the entry.\n"
             "Nothing is deleted: kix reinstate undoes it. A key with role curate may\n"
             "withdraw any run; the key that published a run may withdraw its own.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k', "your private key file (role curate, or RUN's publisher)"),
    {.kind = KIX_OPT_ID,
     .name = "reason",
     .arg = "R",
     .id = 'R',
     .complete = "invalid-timing incorrect-result duplicate other",
     .help = "invalid-timing, incorrect-result, duplicate or other"},
    KIX_ID("note", "TEXT", 'n', "what is wrong with the run (at most 4096 characters)"),
    KIX_ID("evidence", "FILE", 'e', "a JSON object backing the withdrawal, logged with it"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 withdrawn, 1 refused (not a curator nor the publisher, the run\n"
             "already withdrawn) or unverifiable, 2 usage, 3 I/O or server error, 4 the log\n"
             "contradicts what this client verified before\n"),
};
static const struct kix_cmd withdraw_cmd = {
    .prog = "kix withdraw",
    .usage = "--key KEY --reason R --note TEXT [--evidence FILE] RUN",
    KIX_CMD_OPTS(withdraw_opts),
    .column = 19};

static int sign_withdrawal(struct write_job *j, struct kix_err *err)
{
    j->run_id = j->res.run.run_id;
    j->nenv = 1;
    return kix_entry_withdrawal(j->signer, j->res.run.run_id, &j->res.run.manifest,
                                kix_withdraw_reason_parse(j->a->reason, strlen(j->a->reason)),
                                j->a->note, j->m.n ? &j->m.digest[0] : NULL, NULL, &j->env[0], err);
}

/* The note of a withdrawal or reinstatement: bounded as the schema says
 * (characters, counted as UTF-8 lead bytes), checked before anything is
 * signed. */
static int check_moderation_note(const char *cmd, const char *note)
{
    size_t chars = 0;

    for (const char *p = note; p && *p; p++)
        chars += ((unsigned char)*p & 0xc0) != 0x80;
    if (chars > KIX_WITHDRAW_NOTE_MAX)
        return cli_usage_error(cmd, "--note is %zu characters; at most %u", chars,
                               KIX_WITHDRAW_NOTE_MAX);
    return -1;
}

int cmd_withdraw(int argc, char **argv)
{
    struct write_args a;
    int status = parse_write_args("withdraw", &withdraw_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest != 1 || !a.reason || !a.note)
        return cli_usage_error("withdraw", "expected --reason R, --note TEXT and one RUN");
    if (!kix_withdraw_reason_parse(a.reason, strlen(a.reason)))
        return cli_usage_error("withdraw", "--reason must be one of " KIX_WITHDRAW_REASONS);
    if (a.nevidence > 1)
        return cli_usage_error("withdraw", "at most one --evidence FILE");
    if ((status = check_moderation_note("withdraw", a.note)) >= 0)
        return status;
    return run_write("withdraw", "withdrawal", &a, (char **)a.evidence, a.nevidence, 0, a.rest[0],
                     sign_withdrawal);
}

static const struct kix_opt reinstate_opts[] = {
    KIX_NOTE("\n"
             "Undoes RUN's withdrawal (kix withdraw) with a later signed entry: the run is\n"
             "ranked in its comparison group again. The withdrawal stays in the log. A key\n"
             "with role curate may reinstate any run; a publisher only a run it withdrew\n"
             "itself.\n"
             "\n"),
    KIX_ID("key", "KEY", 'k', "your private key file (role curate, or RUN's publisher)"),
    KIX_ID("note", "TEXT", 'n', "why (at most 4096 characters)"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 reinstated, 1 refused (not withdrawn, or withdrawn by a curator\n"
             "and signed by the publisher) or unverifiable, 2 usage, 3 I/O or server error,\n"
             "4 the log contradicts what this client verified before\n"),
};
static const struct kix_cmd reinstate_cmd = {.prog = "kix reinstate",
                                             .usage = "--key KEY [--note TEXT] RUN",
                                             KIX_CMD_OPTS(reinstate_opts),
                                             .column = 19};

static int sign_reinstatement(struct write_job *j, struct kix_err *err)
{
    j->run_id = j->res.run.run_id;
    j->nenv = 1;
    return kix_entry_reinstatement(j->signer, j->res.run.run_id, &j->res.run.manifest, j->a->note,
                                   NULL, &j->env[0], err);
}

int cmd_reinstate(int argc, char **argv)
{
    struct write_args a;
    int status = parse_write_args("reinstate", &reinstate_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest != 1)
        return cli_usage_error("reinstate", "expected one RUN");
    if ((status = check_moderation_note("reinstate", a.note)) >= 0)
        return status;
    return run_write("reinstate", "reinstatement", &a, NULL, 0, 0, a.rest[0], sign_reinstatement);
}

static const struct kix_opt key_opts[] = {
    KIX_NOTE("\n"
             "Registers a key with roles (admin, publish, attest, rerun, curate), or\n"
             "revokes one from the next log index on. Signed with an admin key. PUBFILE is the\n"
             "verifier key file that kix keygen wrote (PREFIX.pub). Adding a live key\n"
             "again with other roles changes its roles: the new roles replace the old\n"
             "from that log index on. A revoked key stays revoked. approve registers a\n"
             "key that asked over kixd's POST /enroll (the request in --queue DIR, kixd\n"
             "serve's enroll-dir) with the roles it asked for, or --role: the same key entry\n"
             "as kix key add, after which the request leaves the queue.\n"
             "\n"),
    KIX_ID("key", "ADMIN_KEY", 'k', "the admin's private key file (kix keygen)"),
    {.kind = KIX_OPT_ID,
     .name = "role",
     .arg = "ROLE[,ROLE...]",
     .id = 'l',
     .complete = "admin publish attest rerun curate",
     .help = "kix key add: the roles, from admin, publish, attest, rerun, curate"},
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    KIX_ID("queue", "DIR", 'q', "the enrolment queue (approve)"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
};
static const struct kix_cmd key_cmd = {
    .prog = "kix key",
    .usage = "add --key ADMIN_KEY --role ROLE[,ROLE...] PUBFILE\n"
             "kix key revoke --key ADMIN_KEY PUBFILE\n"
             "kix key approve --queue DIR --key ADMIN_KEY [--role ROLE[,ROLE...]] KEYID\n"
             "kix key list [PUBFILE...]   (kix key list --help)\n"
             "kix key pending|reject --queue DIR ...   (kix key pending --help)",
    KIX_CMD_OPTS(key_opts)};

static int sign_key(struct write_job *j, struct kix_err *err)
{
    j->nenv = 1;
    return kix_entry_key(j->signer, j->a->key_revoke, j->a->key_subject.pub,
                         (unsigned)j->a->key_roles, &j->env[0], err);
}

/* kix key approve: kix key add of a request in the enrolment queue, then
 * the request leaves it. */
static int key_approve(int argc, char **argv)
{
    struct write_args a;
    struct kix_err err = {0};
    char base[4200], path[4300];
    json_t *req;
    int status, rc;

    status = parse_write_args("key approve", &key_cmd, argc, argv, &a);
    if (status >= 0)
        return status;
    if (!a.queue)
        return cli_usage_error("key approve",
                               "give --queue DIR (kixd serve --enroll-dir, default STORE/enroll)");
    if (a.nrest != 1)
        return cli_usage_error("key approve", "expected one KEYID (kix key pending lists them)");
    rc = cli_enroll_find(a.queue, a.rest[0], base, sizeof(base), &err);
    snprintf(path, sizeof(path), "%s.json", base);
    req = rc ? NULL : json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (!rc && !req)
        rc = kix_err_set(&err, KIX_EINVAL, "%s is no enrolment request (not JSON)", path);
    if (!rc && !a.roles)
        a.roles = json_string_value(json_object_get(req, "roles"));
    a.key_roles = a.roles ? kix_roles_parse(a.roles, strlen(a.roles)) : -1;
    if (!rc && a.key_roles <= 0)
        rc = kix_err_set(&err, KIX_EINVAL, "%s asks for no known roles; give --role", path);
    snprintf(path, sizeof(path), "%s.pub", base);
    if (!rc)
        rc = kix_pubfile_read(path, &a.key_subject, &err);
    if (rc) {
        json_decref(req);
        return cli_fail("key approve", rc, &err);
    }
    status = run_write("key approve", "key registration", &a, NULL, 0, 0, NULL, sign_key);
    if (status == 0 && !a.sign_only) { /* logged: the request is done */
        unlink(path);
        snprintf(path, sizeof(path), "%s.json", base);
        unlink(path);
    }
    json_decref(req);
    return status;
}

int cmd_key(int argc, char **argv)
{
    struct write_args a;
    struct kix_err err = {0};
    int revoke, status, rc;

    if (argc >= 2 && strcmp(argv[1], "list") == 0)
        return cmd_key_list(argc - 1, argv + 1);
    if (cli_dump_requested(argc, argv)) {
        kix_cmdline_dump(stdout, &key_cmd);
        cmd_key_pending(argc, argv);
        return cmd_key_list(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "pending") == 0)
        return cmd_key_pending(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "reject") == 0)
        return cmd_key_reject(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "approve") == 0)
        return key_approve(argc - 1, argv + 1);
    if (argc < 2 || cli_wants_help(argc, argv)) {
        cli_help(argc < 2 ? stderr : stdout, &key_cmd);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    static const char *const subcommands[] = {"add",     "revoke",  "list",
                                              "pending", "approve", "reject"};
    revoke = strcmp(argv[1], "revoke") == 0;
    if (!revoke && strcmp(argv[1], "add") != 0)
        return cli_unknown("key", CLI_UNKNOWN_SUBCOMMAND, argv[1], strlen(argv[1]), subcommands, 6);
    status = parse_write_args("key", &key_cmd, argc - 1, argv + 1, &a);
    if (status >= 0)
        return status;
    if (a.queue)
        return cli_usage_error("key", "--queue is an option of kix key approve");
    if (a.nrest != 1)
        return cli_usage_error("key", "expected one PUBFILE");
    a.key_revoke = revoke;
    if (!revoke) {
        a.key_roles = a.roles ? kix_roles_parse(a.roles, strlen(a.roles)) : -1;
        if (a.key_roles <= 0)
            return cli_usage_error("key",
                                   "--role needs roles from admin,publish,attest,rerun,curate");
    }
    rc = kix_pubfile_read(a.rest[0], &a.key_subject, &err);
    if (rc)
        return cli_fail("key", rc, &err);
    return run_write("key", revoke ? "key revocation" : "key registration", &a, NULL, 0, 0, NULL,
                     sign_key);
}

static const struct kix_opt policy_opts[] = {
    KIX_NOTE("\n"
             "Sets the log's admission policy with a signed policy entry (an admin's):\n"
             "whether a note (attestation) may come from a key no registration names (an\n"
             "open note: kix attest --help), and how many bits of proof of work each such\n"
             "note needs. The policy is in the log, so every mirror and kix audit replays\n"
             "the same decision for every entry. Before any policy entry, a log takes notes\n"
             "from registered keys only. Controlled reruns, publications, withdrawals and\n"
             "key changes always need a registered key.\n"
             "\n"),
    KIX_ID("key", "ADMIN_KEY", 'k', "a private key registered with role admin"),
    {.kind = KIX_OPT_ID,
     .name = "open-notes",
     .arg = "on|off",
     .id = 'P',
     .complete = "on off",
     .help = "allow open notes from now on, or stop taking them"},
    KIX_ID("note-work", "BITS", 'w',
           "leading zero bits an open note's statement hash needs\n"
           "(0 to 32, default 0: none)"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt"),
    SIGN_ONLY_OPT,
    CLI_COMMON_OPTS,
};
static const struct kix_cmd policy_cmd = {
    .prog = "kix policy",
    .usage = "--key ADMIN_KEY --open-notes on|off [--note-work BITS]\n"
             "[--sign-only] [--receipt FILE]",
    KIX_CMD_OPTS(policy_opts),
    .column = 22};

static int sign_policy(struct write_job *j, struct kix_err *err)
{
    uint8_t id[32];

    j->nenv = 1;
    kix_sha256(j->log_key->pub, 32, id);
    return kix_entry_policy(j->signer, id, strcmp(j->a->open_notes, "on") == 0,
                            (unsigned)j->a->note_work, NULL, &j->env[0], err);
}

int cmd_policy(int argc, char **argv)
{
    struct write_args a;
    int status = parse_write_args("policy", &policy_cmd, argc, argv, &a);

    if (status >= 0)
        return status;
    if (a.nrest != 0 || !a.open_notes ||
        (strcmp(a.open_notes, "on") != 0 && strcmp(a.open_notes, "off") != 0))
        return cli_usage_error("policy", "expected --open-notes on|off");
    if (a.note_work && strcmp(a.open_notes, "on") != 0)
        return cli_usage_error("policy", "--note-work is for --open-notes on");
    return run_write("policy", "policy", &a, NULL, 0, 0, NULL, sign_policy);
}

static const struct kix_opt submit_opts[] = {
    KIX_NOTE("\n"
             "Submits a body signed before: what kix publish, attest, rerun, supersede,\n"
             "withdraw, reinstate or key print with their sign-only option, or what a\n"
             "browser signed; the JSON that POST /submit takes ({envelope, objects}, or\n"
             "{bundles: [...]}; '-' reads standard input). As the command that signed it\n"
             "would have: the receipt is verified against the log key, saved, and the\n"
             "entry printed.\n"
             "\n"),
    KIX_ID("receipt", "FILE", 'r', "where to save the receipt (default: the state directory)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd submit_cmd = {.prog = "kix submit",
                                          .usage = "[--receipt FILE] BODY.json",
                                          KIX_CMD_OPTS(submit_opts),
                                          .column = 19};

int cmd_submit(int argc, char **argv)
{
    struct write_args a;
    struct kix_submit_body body;
    struct kix_bundle bundles[16];
    struct kix_bytes objects[16][KIX_SUBMIT_MAX_OBJECTS];
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_entry_summary s;
    struct cli_submitted out;
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_err err = {0};
    int status = parse_write_args("submit", &submit_cmd, argc, argv, &a), rc;

    if (status >= 0)
        return status;
    if (a.nrest != 1)
        return cli_usage_error("submit", "expected one BODY.json (or - for standard input)");
    kix_submit_body_init(&body);
    rc = kix_file_read(a.rest[0], 64u << 20, &text, &err); /* "-": standard input */
    if (rc == KIX_OK)
        rc = kix_submit_body_parse(text.ptr, text.len, 16, &body, &err);
    if (rc) {
        kix_err_wrap(&err, "%s", a.rest[0]);
        status = cli_fail("submit", rc, &err);
        goto out;
    }
    for (size_t i = 0; i < body.n; i++) {
        for (size_t j = 0; j < body.bundles[i].nobjects; j++)
            objects[i][j] = kix_buf_bytes(&body.bundles[i].objects[j]);
        bundles[i].envelope = kix_buf_bytes(&body.bundles[i].envelope);
        bundles[i].objects = objects[i];
        bundles[i].nobjects = body.bundles[i].nobjects;
    }
    status = cli_connect("submit", &a.common, &c);
    if (status == 0)
        status = cli_contact("submit", &a.common, c, &key, CLI_CONTACT_READ, NULL);
    if (status == 0)
        status = cli_submit("submit", c, &key, bundles, body.n, a.receipt, &out);
    if (status == 0) {
        const struct kix_bytes *last = &bundles[body.n - 1].envelope;
        int known = kix_entry_describe(last->ptr, last->len, &s, NULL) == KIX_OK;
        print_written(&a, known ? kix_words_entry_type(s.type) : "entry", key.name,
                      known && s.run_id[0] ? s.run_id : NULL,
                      known && s.type == KIX_ENTRY_PUBLICATION ? &s.subject : NULL, &out);
    }
out:
    kix_submit_body_release(&body);
    kix_buf_release(&text);
    kix_client_close(c);
    return status;
}
