/* The remote transport of kix_client: each call is one request to a kixd
 * (proto/PROTOCOL.md section 2) over a blocking kix_rpc connection. Nothing
 * here trusts the answers beyond their shape; callers verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "kix/rpc.h"

#define ENTRIES_PAGE 1000u /* the server's maxEntries */
#define SUBMIT_BATCH 1024u /* the server's maxBatch */

struct kix__remote {
    struct kix_rpc *rpc;
};

int kix__remote_connect(const char *addr, const struct kix_client_opts *opts,
                        struct kix__remote **out, struct kix_err *err)
{
    struct kix_rpc_opts ro = {opts ? opts->timeout_ms : 0, 0};
    struct kix__remote *r = calloc(1, sizeof(*r));
    int rc;

    *out = NULL;
    if (!r)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_rpc_connect(addr, &ro, &r->rpc, err);
    if (rc) {
        free(r);
        return rc;
    }
    *out = r;
    return KIX_OK;
}

void kix__remote_close(struct kix__remote *r)
{
    if (!r)
        return;
    kix_rpc_close(r->rpc);
    free(r);
}

/* ---- building params ------------------------------------------------------ */

/* Up to three named u64 fields; a field whose value is KIX_NO_INDEX is left out. */
struct u64_params {
    const char *names[3];
    uint64_t values[3];
};

static int put_u64_params(void *ctx, struct kix_proto_writer *w)
{
    const struct u64_params *p = ctx;
    size_t n = 0;

    for (size_t i = 0; i < 3; i++)
        if (p->names[i] && p->values[i] != KIX_NO_INDEX)
            n++;
    kix_proto_put_map(w, n);
    for (size_t i = 0; i < 3; i++) {
        if (!p->names[i] || p->values[i] == KIX_NO_INDEX)
            continue;
        kix_proto_put_key(w, p->names[i]);
        kix_proto_put_u64(w, p->values[i]);
    }
    return KIX_OK;
}

struct str_param {
    const char *name;
    const char *value;
};

static int put_str_param(void *ctx, struct kix_proto_writer *w)
{
    const struct str_param *p = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, p->name);
    return kix_proto_put_cstr(w, p->value);
}

/* ---- reading results ------------------------------------------------------ */

/* Wraps a shape error of the answer as KIX_EPROTO naming the method. */
static int bad_answer(struct kix__remote *r, const char *method, int rc, struct kix_err *err)
{
    (void)rc;
    kix_err_wrap(err, "%s answered %s with an unexpected shape", kix_rpc_addr(r->rpc), method);
    if (err)
        err->code = KIX_EPROTO;
    return KIX_EPROTO;
}

/* Sends one request and returns the result map of its response. */
static int call(struct kix__remote *r, const char *method, kix_rpc_params_fn fn, void *ctx,
                struct kix_proto_msg *resp, const struct kix_proto_map **result,
                struct kix_err *err)
{
    int rc = kix_rpc_call(r->rpc, method, fn, ctx, resp, err);
    if (rc)
        return rc;
    rc = kix_proto_value_map(resp->result, result, err);
    if (rc) {
        kix_proto_msg_release(resp);
        return bad_answer(r, method, rc, err);
    }
    return KIX_OK;
}

/* Copies a str field into a fixed buffer; too long is a shape error. */
static int get_text(const struct kix_proto_map *m, const char *name, char *out, size_t cap,
                    int optional, struct kix_err *err)
{
    struct kix_bytes v;
    int rc = kix_proto_map_get_str(m, name, &v, err);

    if (rc == KIX_ENOTFOUND && optional) {
        out[0] = '\0';
        return KIX_OK;
    }
    if (rc)
        return rc;
    if (v.len >= cap)
        return kix_err_set(err, KIX_EINVAL, "field \"%s\" is %zu bytes, over %zu", name, v.len,
                           cap - 1);
    memcpy(out, v.ptr, v.len);
    out[v.len] = '\0';
    return KIX_OK;
}

static int get_hash(const struct kix_proto_value *v, struct kix_hash *out, struct kix_err *err)
{
    struct kix_bytes b;
    int rc = kix_proto_value_bin(v, &b, err);
    if (rc)
        return rc;
    if (b.len != 32)
        return kix_err_set(err, KIX_EINVAL, "a hash of %zu bytes, not 32", b.len);
    memcpy(out->b, b.ptr, 32);
    return KIX_OK;
}

/* A proof: an array of 32-byte bin hashes, at most KIX_MERKLE_MAX_PROOF. */
static int get_proof(const struct kix_proto_map *m, const char *name, struct kix_hash *proof,
                     size_t *n, struct kix_err *err)
{
    const struct kix_proto_array *a;
    size_t count;
    int rc = kix_proto_map_get_array(m, name, &a, &count, err);

    if (rc)
        return rc;
    if (count > KIX_MERKLE_MAX_PROOF)
        return kix_err_set(err, KIX_EINVAL, "a proof of %zu hashes, over %d", count,
                           KIX_MERKLE_MAX_PROOF);
    for (size_t i = 0; i < count; i++) {
        rc = get_hash(kix_proto_array_at(a, i), &proof[i], err);
        if (rc)
            return kix_err_wrap(err, "%s[%zu]", name, i);
    }
    *n = count;
    return KIX_OK;
}

/* An optional uint field: *out stays 0 when absent. */
static int opt_count(const struct kix_proto_map *m, const char *name, uint64_t *out,
                     struct kix_err *err)
{
    int rc = kix_proto_map_get_u64(m, name, out, err);
    return rc == KIX_ENOTFOUND ? KIX_OK : rc;
}

/* info's optional fork map: {size, reason, evidence}. */
static int get_fork(const struct kix_proto_map *m, struct kix_client_info *out, struct kix_err *err)
{
    const struct kix_proto_map *f;
    int rc = kix_proto_map_get_map(m, "fork", &f, err);

    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc)
        return rc;
    out->fork = 1;
    rc = opt_count(f, "size", &out->fork_size, err);
    if (rc == KIX_OK)
        rc = get_text(f, "reason", out->fork_reason, sizeof(out->fork_reason), 1, err);
    if (rc == KIX_OK)
        rc = get_text(f, "evidence", out->fork_evidence, sizeof(out->fork_evidence), 1, err);
    return rc;
}

/* ---- the calls -------------------------------------------------------------- */

int kix__remote_info(struct kix__remote *r, struct kix_client_info *out, struct kix_err *err)
{
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    bool mirror = false;
    int rc = call(r, "info", NULL, NULL, &resp, &m, err);

    if (rc)
        return rc;
    memset(out, 0, sizeof(*out));
    rc = get_text(m, "origin", out->origin, sizeof(out->origin), 0, err);
    if (rc == KIX_OK)
        rc = get_text(m, "logKey", out->log_key, sizeof(out->log_key), 0, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = get_text(m, "version", out->version, sizeof(out->version), 1, err);
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_bool(m, "mirror", &mirror, err);
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
        out->mirror = mirror;
    }
    if (rc == KIX_OK)
        rc = get_text(m, "upstream", out->upstream, sizeof(out->upstream), 1, err);
    if (rc == KIX_OK)
        rc = opt_count(m, "upstreamSize", &out->upstream_size, err);
    if (rc == KIX_OK)
        rc = opt_count(m, "lagEntries", &out->lag_entries, err);
    if (rc == KIX_OK) {
        uint64_t secs = 0;
        rc = opt_count(m, "lagSeconds", &secs, err);
        out->lag_seconds = (double)secs;
    }
    if (rc == KIX_OK)
        rc = get_text(m, "lastError", out->last_error, sizeof(out->last_error), 1, err);
    if (rc == KIX_OK)
        rc = get_fork(m, out, err);
    kix_proto_msg_release(&resp);
    return rc ? bad_answer(r, "info", rc, err) : KIX_OK;
}

int kix__remote_checkpoint(struct kix__remote *r, uint64_t size, struct kix_buf *note,
                           struct kix_err *err)
{
    struct u64_params p = {{"size"}, {size}};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    struct kix_bytes text;
    int rc = call(r, "checkpoint", put_u64_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    rc = kix_proto_map_get_str(m, "checkpoint", &text, err);
    if (rc == KIX_OK)
        rc = kix_buf_add(note, text.ptr, text.len);
    kix_proto_msg_release(&resp);
    if (rc == KIX_ENOMEM)
        return kix_err_set(err, rc, "out of memory");
    return rc ? bad_answer(r, "checkpoint", rc, err) : KIX_OK;
}

int kix__remote_entries(struct kix__remote *r, uint64_t start, uint64_t count, kix_entry_fn fn,
                        void *ctx, uint64_t *got, struct kix_err *err)
{
    uint64_t n = 0;
    int rc = KIX_OK;

    while (n < count) {
        uint64_t want = count - n > ENTRIES_PAGE ? ENTRIES_PAGE : count - n, first;
        struct u64_params p = {{"start", "count"}, {start + n, want}};
        struct kix_proto_msg resp;
        const struct kix_proto_map *m;
        const struct kix_proto_array *a;
        size_t k;

        if (start + n < start)
            break; /* past the last possible index */
        rc = call(r, "get_entries", put_u64_params, &p, &resp, &m, err);
        if (rc)
            break;
        rc = kix_proto_map_get_u64(m, "start", &first, err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_array(m, "entries", &a, &k, err);
        if (rc == KIX_OK && (first != start + n || k > want))
            rc = kix_err_set(err, KIX_EINVAL, "asked for %llu entries from %llu, got %zu from %llu",
                             (unsigned long long)want, (unsigned long long)(start + n), k,
                             (unsigned long long)first);
        for (size_t i = 0; rc == KIX_OK && i < k; i++) {
            struct kix_bytes leaf;
            rc = kix_proto_value_bin(kix_proto_array_at(a, i), &leaf, err);
            if (rc)
                break;
            rc = fn(ctx, first + i, leaf.ptr, leaf.len);
            if (rc) {
                kix_proto_msg_release(&resp);
                if (got)
                    *got = n + i;
                return rc;
            }
        }
        kix_proto_msg_release(&resp);
        if (rc) {
            rc = bad_answer(r, "get_entries", rc, err);
            break;
        }
        n += k;
        if (k == 0)
            break; /* the log ends here */
    }
    if (got)
        *got = n;
    return rc;
}

int kix__remote_inclusion(struct kix__remote *r, uint64_t index, uint64_t size,
                          struct kix_hash *proof, size_t *n, struct kix_err *err)
{
    struct u64_params p = {{"index", "size"}, {index, size}};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    int rc = call(r, "inclusion_proof", put_u64_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    rc = get_proof(m, "proof", proof, n, err);
    kix_proto_msg_release(&resp);
    return rc ? bad_answer(r, "inclusion_proof", rc, err) : KIX_OK;
}

int kix__remote_consistency(struct kix__remote *r, uint64_t size1, uint64_t size2,
                            struct kix_hash *proof, size_t *n, struct kix_err *err)
{
    struct u64_params p = {{"size1", "size2"}, {size1, size2}};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    int rc = call(r, "consistency_proof", put_u64_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    rc = get_proof(m, "proof", proof, n, err);
    kix_proto_msg_release(&resp);
    return rc ? bad_answer(r, "consistency_proof", rc, err) : KIX_OK;
}

int kix__remote_receipt(struct kix__remote *r, uint64_t index, uint64_t size, struct kix_buf *out,
                        struct kix_err *err)
{
    struct u64_params p = {{"index", "size"}, {index, size}};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    struct kix_bytes text;
    int rc = call(r, "receipt", put_u64_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    rc = kix_proto_map_get_str(m, "receipt", &text, err);
    if (rc == KIX_OK && kix_buf_add(out, text.ptr, text.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_proto_msg_release(&resp);
    if (rc == KIX_ENOMEM)
        return rc;
    return rc ? bad_answer(r, "receipt", rc, err) : KIX_OK;
}

int kix__remote_get_object(struct kix__remote *r, const struct kix_digest *d, struct kix_buf *out,
                           struct kix_err *err)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];
    struct str_param p = {"digest", text};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    struct kix_bytes obj;
    int rc;

    kix_digest_format(d, text);
    rc = call(r, "get_object", put_str_param, &p, &resp, &m, err);
    if (rc)
        return rc;
    rc = kix_proto_map_get_bin(m, "object", &obj, err);
    if (rc == KIX_OK && kix_buf_add(out, obj.ptr, obj.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_proto_msg_release(&resp);
    if (rc == KIX_ENOMEM)
        return rc;
    return rc ? bad_answer(r, "get_object", rc, err) : KIX_OK;
}

struct submit_params {
    const struct kix_bundle *bundles;
    size_t n;
};

static int put_submit_params(void *ctx, struct kix_proto_writer *w)
{
    const struct submit_params *p = ctx;

    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, p->n);
    for (size_t i = 0; i < p->n; i++) {
        const struct kix_bundle *b = &p->bundles[i];
        kix_proto_put_map(w, 2);
        kix_proto_put_key(w, "envelope");
        kix_proto_put_bin(w, b->envelope.ptr, b->envelope.len);
        kix_proto_put_key(w, "objects");
        kix_proto_put_array(w, b->nobjects);
        for (size_t k = 0; k < b->nobjects; k++)
            kix_proto_put_bin(w, b->objects[k].ptr, b->objects[k].len);
    }
    return KIX_OK;
}

static int read_submit_result(const struct kix_proto_value *v, struct kix_submit_result *out,
                              struct kix_err *err)
{
    const struct kix_proto_map *m, *e;
    struct kix_bytes text;
    bool dup = false;
    int rc = kix_proto_value_map(v, &m, err);

    if (rc)
        return rc;
    rc = kix_proto_map_get_map(m, "error", &e, err);
    if (rc == KIX_OK) {
        int64_t code;
        rc = kix_proto_map_get_i64(e, "code", &code, err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_str(e, "message", &text, err);
        if (rc)
            return rc;
        out->code = code < 0 && code > -1000 ? (int)code : KIX_EPROTO;
        snprintf(out->message, sizeof(out->message), "%.*s", (int)text.len, (const char *)text.ptr);
        return KIX_OK;
    }
    if (rc != KIX_ENOTFOUND)
        return rc;
    rc = kix_proto_map_get_u64(m, "index", &out->index, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_bool(m, "duplicate", &dup, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_str(m, "receipt", &text, err);
    if (rc == KIX_OK && kix_buf_add(&out->receipt, text.ptr, text.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    out->duplicate = dup;
    return rc;
}

int kix__remote_submit(struct kix__remote *r, const struct kix_bundle *bundles, size_t n,
                       struct kix_submit_result *results, struct kix_err *err)
{
    for (size_t i = 0; i < n; i++)
        memset(&results[i], 0, sizeof(results[i]));
    for (size_t done = 0; done < n;) {
        struct submit_params p = {bundles + done,
                                  n - done > SUBMIT_BATCH ? SUBMIT_BATCH : n - done};
        struct kix_proto_msg resp;
        const struct kix_proto_map *m;
        const struct kix_proto_array *a;
        size_t count;
        int rc = call(r, "submit", put_submit_params, &p, &resp, &m, err);

        if (rc)
            return rc;
        rc = kix_proto_map_get_array(m, "results", &a, &count, err);
        if (rc == KIX_OK && count != p.n)
            rc = kix_err_set(err, KIX_EINVAL, "%zu results for %zu bundles", count, p.n);
        for (size_t i = 0; rc == KIX_OK && i < count; i++) {
            rc = read_submit_result(kix_proto_array_at(a, i), &results[done + i], err);
            if (rc)
                kix_err_wrap(err, "results[%zu]", i);
        }
        kix_proto_msg_release(&resp);
        if (rc == KIX_ENOMEM)
            return rc;
        if (rc)
            return bad_answer(r, "submit", rc, err);
        done += p.n;
    }
    return KIX_OK;
}

/* ---- resolve ---------------------------------------------------------------- */

static void free_msg(void *p)
{
    kix_proto_msg_release(p);
    free(p);
}

static int read_digest(const struct kix_proto_map *m, const char *name, struct kix_digest *d,
                       struct kix_err *err)
{
    struct kix_bytes text;
    int rc = kix_proto_map_get_str(m, name, &text, err);
    return rc ? rc : kix_digest_parse((const char *)text.ptr, text.len, d, err);
}

static int opt_u64(const struct kix_proto_map *m, const char *name, uint64_t *out,
                   struct kix_err *err)
{
    int rc = kix_proto_map_get_u64(m, name, out, err);
    if (rc == KIX_ENOTFOUND) {
        *out = KIX_NO_INDEX;
        return KIX_OK;
    }
    return rc;
}

static int read_objects(const struct kix_proto_map *m, struct kix_resolution *res,
                        struct kix_err *err)
{
    const struct kix_proto_array *a;
    size_t n;
    int rc = kix_proto_map_get_array(m, "objects", &a, &n, err);

    if (rc)
        return rc;
    if (n > KIX_RESOLVE_MAX_OBJECTS)
        return kix_err_set(err, KIX_EINVAL, "%zu objects, over %u", n, KIX_RESOLVE_MAX_OBJECTS);
    for (size_t i = 0; i < n; i++) {
        const struct kix_proto_map *o;
        rc = kix_proto_value_map(kix_proto_array_at(a, i), &o, err);
        if (rc == KIX_OK)
            rc = read_digest(o, "digest", &res->objects[i].digest, err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_bin(o, "object", &res->objects[i].bytes, err);
        if (rc)
            return kix_err_wrap(err, "objects[%zu]", i);
        res->nobjects++;
    }
    return KIX_OK;
}

static int entry_type(const struct kix_bytes *name)
{
    for (int t = KIX_ENTRY_KEY; t <= KIX_ENTRY_SUPERSESSION; t++) {
        const char *s = kix_entry_type_name(t);
        if (strlen(s) == name->len && memcmp(s, name->ptr, name->len) == 0)
            return t;
    }
    return -1;
}

static int read_entries(const struct kix_proto_map *m, struct kix_resolution *res,
                        struct kix_err *err)
{
    const struct kix_proto_array *a;
    size_t n;
    int rc = kix_proto_map_get_array(m, "entries", &a, &n, err);

    if (rc)
        return rc;
    if (n > KIX_RESOLVE_MAX_ENTRIES)
        return kix_err_set(err, KIX_EINVAL, "%zu entries, over %u", n, KIX_RESOLVE_MAX_ENTRIES);
    res->entries = calloc(n ? n : 1, sizeof(*res->entries));
    if (!res->entries)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct kix_resolution_entry *e = &res->entries[i];
        const struct kix_proto_map *o;
        struct kix_bytes type;
        rc = kix_proto_value_map(kix_proto_array_at(a, i), &o, err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_u64(o, "index", &e->index, err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_str(o, "type", &type, err);
        if (rc == KIX_OK && (e->type = entry_type(&type)) < 0)
            rc = kix_err_set(err, KIX_EINVAL, "unknown entry type \"%.*s\"",
                             (int)(type.len > 40 ? 40 : type.len), (const char *)type.ptr);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_bin(o, "leaf", &e->leaf, err);
        if (rc == KIX_OK)
            rc = get_proof(o, "proof", e->proof, &e->nproof, err);
        if (rc)
            return kix_err_wrap(err, "entries[%zu]", i);
        res->nentries++;
    }
    return KIX_OK;
}

static int read_resolution(const struct kix_proto_map *m, struct kix_resolution *res,
                           struct kix_err *err)
{
    struct kix_bytes ev;
    int rc = get_text(m, "runId", res->run.run_id, sizeof(res->run.run_id), 0, err);

    if (rc == KIX_OK)
        rc = read_digest(m, "digest", &res->run.manifest, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_str(m, "evidence", &ev, err);
    if (rc == KIX_OK) {
        res->run.evidence = kix_evidence_parse((const char *)ev.ptr, ev.len);
        if (res->run.evidence < 0)
            rc = kix_err_set(err, KIX_EINVAL, "unknown evidence level");
    }
    if (rc == KIX_OK)
        rc = get_text(m, "successor", res->successor, sizeof(res->successor), 1, err);
    if (rc == KIX_OK)
        rc = get_text(m, "predecessor", res->predecessor, sizeof(res->predecessor), 1, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "publicationIndex", &res->run.publication_index, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "evidenceIndex", &res->run.evidence_index, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "supersededByIndex", &res->run.superseded_by_index, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "supersedesIndex", &res->run.supersedes_index, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "attestations", &res->run.attestations, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "reruns", &res->run.reruns, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "rank", &res->rank.rank, err);
    if (rc == KIX_OK && res->rank.rank != KIX_NO_INDEX) {
        rc = kix_proto_map_get_u64(m, "groupSize", &res->rank.group_size, err);
        if (rc == KIX_OK)
            rc = get_text(m, "best", res->rank.best, sizeof(res->rank.best), 0, err);
        if (rc == KIX_OK)
            rc = read_digest(m, "comparisonKey", &res->run.comparison_key, err);
        res->run.grouped = 1;
    } else if (rc == KIX_OK) {
        res->rank.rank = 0;
    }
    if (rc == KIX_OK)
        rc = kix_proto_map_get_bin(m, "manifest", &res->manifest, err);
    if (rc == KIX_OK)
        rc = read_objects(m, res, err);
    if (rc == KIX_OK)
        rc = read_entries(m, res, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_str(m, "checkpoint", &res->checkpoint, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_u64(m, "size", &res->size, err);
    if (res->run.attestations == KIX_NO_INDEX)
        res->run.attestations = 0;
    if (res->run.reruns == KIX_NO_INDEX)
        res->run.reruns = 0;
    return rc;
}

int kix__remote_resolve(struct kix__remote *r, const char *ref, struct kix_resolution *out,
                        struct kix_err *err)
{
    struct str_param p = {"ref", ref};
    struct kix_proto_msg *resp = malloc(sizeof(*resp));
    const struct kix_proto_map *m;
    int rc;

    kix_resolution_init(out);
    if (!resp)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = call(r, "resolve", put_str_param, &p, resp, &m, err);
    if (rc) {
        free(resp);
        return rc;
    }
    /* the views in *out point into the response, kept alive by backing */
    out->backing = resp;
    out->backing_free = free_msg;
    rc = read_resolution(m, out, err);
    if (rc) {
        kix_resolution_release(out);
        return rc == KIX_ENOMEM ? rc : bad_answer(r, "resolve", rc, err);
    }
    return KIX_OK;
}
int kix__remote_checkpoints(struct kix__remote *r, uint64_t after, size_t limit,
                            kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    size_t done = 0;

    while (done < limit) {
        struct u64_params p = {{"after", "limit", NULL},
                               {after, limit - done > 1000 ? 1000 : limit - done, KIX_NO_INDEX}};
        struct kix_proto_msg resp;
        const struct kix_proto_map *m;
        const struct kix_proto_array *a;
        size_t n = 0;
        int rc = call(r, "checkpoints", put_u64_params, &p, &resp, &m, err);

        if (rc)
            return rc;
        rc = kix_proto_map_get_array(m, "checkpoints", &a, &n, err);
        for (size_t i = 0; rc == KIX_OK && i < n; i++) {
            const struct kix_proto_map *item;
            struct kix_bytes note;
            uint64_t size = 0;
            rc = kix_proto_value_map(kix_proto_array_at(a, i), &item, err);
            if (rc == KIX_OK)
                rc = kix_proto_map_get_u64(item, "size", &size, err);
            if (rc == KIX_OK)
                rc = kix_proto_map_get_str(item, "checkpoint", &note, err);
            if (rc == KIX_OK && size <= after)
                rc = kix_err_set(err, KIX_EINVAL, "checkpoints out of order");
            if (rc) {
                kix_proto_msg_release(&resp);
                return bad_answer(r, "checkpoints", rc, err);
            }
            after = size;
            rc = fn(ctx, size, note.ptr, note.len);
            if (rc) {
                kix_proto_msg_release(&resp);
                return rc;
            }
        }
        kix_proto_msg_release(&resp);
        if (rc)
            return bad_answer(r, "checkpoints", rc, err);
        if (n == 0)
            break;
        done += n;
    }
    return KIX_OK;
}

struct digests_params {
    const struct kix_digest *digests;
    size_t n;
};

static int put_digests_params(void *ctx, struct kix_proto_writer *w)
{
    const struct digests_params *p = ctx;
    char text[KIX_DIGEST_TEXT_LEN + 1];

    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "digests");
    kix_proto_put_array(w, p->n);
    for (size_t i = 0; i < p->n; i++) {
        kix_digest_format(&p->digests[i], text);
        kix_proto_put_str(w, text, KIX_DIGEST_TEXT_LEN);
    }
    return KIX_OK;
}

int kix__remote_get_objects(struct kix__remote *r, const struct kix_digest *digests, size_t n,
                            kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct digests_params p = {digests, n};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    size_t count = 0;
    int rc = call(r, "get_objects", put_digests_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    rc = kix_proto_map_get_array(m, "objects", &a, &count, err);
    if (rc == KIX_OK && count != n)
        rc = kix_err_set(err, KIX_EINVAL, "%zu objects for %zu digests", count, n);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        const struct kix_proto_value *v = kix_proto_array_at(a, i);
        struct kix_bytes obj;
        if (kix_proto_value_is_nil(v)) {
            rc = fn(ctx, i, NULL, 0);
            if (rc)
                break;
            continue;
        }
        rc = kix_proto_value_bin(v, &obj, err);
        if (rc) {
            rc = bad_answer(r, "get_objects", rc, err);
            break;
        }
        rc = fn(ctx, i, obj.ptr, obj.len);
    }
    kix_proto_msg_release(&resp);
    if (rc == KIX_EINVAL)
        return bad_answer(r, "get_objects", rc, err);
    return rc;
}

struct query_params {
    const struct kix_query *q;
    char group[KIX_DIGEST_TEXT_LEN + 1];
};

static void put_opt_str(struct kix_proto_writer *w, const char *name, const char *v)
{
    if (!v)
        return;
    kix_proto_put_key(w, name);
    kix_proto_put_cstr(w, v);
}

static int put_query_params(void *ctx, struct kix_proto_writer *w)
{
    const struct query_params *p = ctx;
    const struct kix_query *q = p->q;
    size_t n = 2 + !!q->kernel + !!q->gpu + !!q->provider + !!q->mode + !!q->metric + !!q->group;

    kix_proto_put_map(w, n);
    put_opt_str(w, "kernel", q->kernel);
    put_opt_str(w, "gpu", q->gpu);
    put_opt_str(w, "provider", q->provider);
    put_opt_str(w, "mode", q->mode);
    put_opt_str(w, "metric", q->metric);
    put_opt_str(w, "group", q->group ? p->group : NULL);
    kix_proto_put_key(w, "offset");
    kix_proto_put_u64(w, q->offset);
    kix_proto_put_key(w, "limit");
    return kix_proto_put_u64(w, q->limit);
}

static int read_row(const struct kix_proto_value *v, struct kix_query_row *row, struct kix_err *err)
{
    const struct kix_proto_map *m;
    struct kix_bytes ev;
    int rc = kix_proto_value_map(v, &m, err);

    memset(row, 0, sizeof(*row));
    if (rc == KIX_OK)
        rc = get_text(m, "runId", row->run_id, sizeof(row->run_id), 0, err);
    if (rc == KIX_OK)
        rc = read_digest(m, "digest", &row->manifest, err);
    if (rc == KIX_OK)
        rc = read_digest(m, "group", &row->group, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_u64(m, "rank", &row->rank, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_u64(m, "groupSize", &row->group_size, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_u64(m, "value", &row->value, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_str(m, "evidence", &ev, err);
    if (rc == KIX_OK)
        row->evidence = kix_evidence_parse((const char *)ev.ptr, ev.len);
    if (rc == KIX_OK)
        rc = get_text(m, "kernel", row->kernel, sizeof(row->kernel), 1, err);
    if (rc == KIX_OK)
        rc = get_text(m, "gpu", row->gpu, sizeof(row->gpu), 1, err);
    if (rc == KIX_OK)
        rc = get_text(m, "provider", row->provider, sizeof(row->provider), 1, err);
    if (rc == KIX_OK)
        rc = get_text(m, "mode", row->mode, sizeof(row->mode), 1, err);
    if (rc == KIX_OK)
        rc = get_text(m, "metric", row->metric, sizeof(row->metric), 1, err);
    return rc;
}

int kix__remote_query(struct kix__remote *r, const struct kix_query *q, kix_query_fn fn, void *ctx,
                      uint64_t *matched, struct kix_err *err)
{
    struct query_params p;
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    size_t n = 0;
    int rc;

    p.q = q;
    if (q->group)
        kix_digest_format(q->group, p.group);
    rc = call(r, "query", put_query_params, &p, &resp, &m, err);
    if (rc)
        return rc;
    rc = kix_proto_map_get_u64(m, "matched", matched, err);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_array(m, "runs", &a, &n, err);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        struct kix_query_row row;
        rc = read_row(kix_proto_array_at(a, i), &row, err);
        if (rc) {
            rc = bad_answer(r, "query", rc, err);
            break;
        }
        rc = fn(ctx, &row);
    }
    kix_proto_msg_release(&resp);
    if (rc == KIX_ENOTFOUND)
        return bad_answer(r, "query", rc, err);
    return rc;
}

struct cosig_params {
    const char *checkpoint, *line;
    size_t len, line_len;
};

static int put_cosig_params(void *ctx, struct kix_proto_writer *w)
{
    const struct cosig_params *p = ctx;
    kix_proto_put_map(w, 2);
    kix_proto_put_key(w, "checkpoint");
    kix_proto_put_str(w, p->checkpoint, p->len);
    kix_proto_put_key(w, "cosignature");
    return kix_proto_put_str(w, p->line, p->line_len);
}

int kix__remote_add_cosignature(struct kix__remote *r, const char *checkpoint, size_t len,
                                const char *line, size_t line_len, struct kix_err *err)
{
    struct cosig_params p = {checkpoint, line, len, line_len};
    struct kix_proto_msg resp;
    const struct kix_proto_map *m;
    int rc = call(r, "add_cosignature", put_cosig_params, &p, &resp, &m, err);

    if (rc)
        return rc;
    kix_proto_msg_release(&resp);
    return KIX_OK;
}
