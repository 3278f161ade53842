/* struct kix_client: one source (kix/source.h) and the checks that make
 * what it returns safe to use. Nothing here knows which source it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/object_pack.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/trust.h"
#include "query_internal.h"

struct kix_client {
    struct kix_source *src;
    const struct kix_witness_policy *witnesses; /* required on index notes, or NULL */
};

int kix_client_open_source(struct kix_source *src, struct kix_client **out, struct kix_err *err)
{
    struct kix_client *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (!c) {
        kix_source_close(src);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    c->src = src;
    *out = c;
    return KIX_OK;
}

int kix_client_open_store(const char *dir, struct kix_client **out, struct kix_err *err)
{
    struct kix_source *src = NULL;
    int rc = kix_source_open_store(dir, &src, err);

    *out = NULL;
    return rc ? rc : kix_client_open_source(src, out, err);
}

int kix_client_connect(const char *addr, const struct kix_client_opts *opts,
                       struct kix_client **out, struct kix_err *err)
{
    struct kix_source *src = NULL;
    int rc = kix_source_connect(addr, opts, &src, err);

    *out = NULL;
    return rc ? rc : kix_client_open_source(src, out, err);
}

int kix_client_open_addr(const char *addr, const struct kix_client_opts *opts,
                         const struct kix_http_opts *http, struct kix_client **out,
                         struct kix_err *err)
{
    struct kix_http_opts ho = {NULL, 0, 0, -1};
    struct kix_source *src = NULL;
    int rc;

    if (!kix_source_is_http(addr))
        return kix_client_connect(addr, opts, out, err);
    *out = NULL;
    if (http)
        ho = *http;
    if (!ho.timeout_ms && opts)
        ho.timeout_ms = opts->timeout_ms;
    rc = kix_source_open_http(addr, &ho, &src, err);
    return rc ? rc : kix_client_open_source(src, out, err);
}

void kix_source_close(struct kix_source *s)
{
    if (s)
        s->ops->close(s);
}

void kix_client_close(struct kix_client *c)
{
    if (!c)
        return;
    kix_source_close(c->src);
    free(c);
}

const char *kix_client_where(const struct kix_client *c)
{
    return c->src->where;
}

void kix_submit_result_release(struct kix_submit_result *r)
{
    kix_buf_release(&r->receipt);
}

/* The answer for an optional operation the source leaves out. */
static int unsupported(const struct kix_client *c, const char *what, struct kix_err *err)
{
    return kix_err_set(err, KIX_ENOTSUP, "%s does not offer %s", c->src->where, what);
}

int kix_client_info(struct kix_client *c, struct kix_client_info *out, struct kix_err *err)
{
    return c->src->ops->info(c->src, out, err);
}

int kix_client_log_key(struct kix_client *c, char *out, size_t cap, struct kix_err *err)
{
    struct kix_client_info info;
    struct kix_buf text = KIX_BUF_INIT;
    size_t n;
    int rc;

    if (!c->src->ops->log_key) {
        rc = c->src->ops->info(c->src, &info, err);
        if (rc == KIX_OK && strlen(info.log_key) >= cap)
            rc = kix_err_set(err, KIX_ELIMIT, "%s: its log key is too long", c->src->where);
        if (rc == KIX_OK)
            snprintf(out, cap, "%s", info.log_key);
        return rc;
    }
    rc = c->src->ops->log_key(c->src, &text, err);
    /* one line: the key, without its line end */
    n = rc == KIX_OK ? strcspn(text.ptr ? (const char *)text.ptr : "", "\r\n") : 0;
    if (rc == KIX_OK && (n >= cap || n > text.len))
        rc = kix_err_set(err, KIX_ELIMIT, "%s: its log key is too long", c->src->where);
    if (rc == KIX_OK)
        snprintf(out, cap, "%.*s", (int)n, (const char *)text.ptr);
    kix_buf_release(&text);
    return rc;
}

int kix_client_file(struct kix_client *c, const char *path, size_t max, struct kix_buf *out,
                    struct kix_err *err)
{
    if (!c->src->ops->file)
        return unsupported(c, "its files", err);
    return c->src->ops->file(c->src, path, max, out, err);
}

int kix_client_files(struct kix_client *c, const char *const *paths, size_t n, size_t max,
                     kix_file_fn fn, void *ctx, struct kix_err *err)
{
    int rc = KIX_OK;

    if (c->src->ops->files)
        return c->src->ops->files(c->src, paths, n, max, fn, ctx, err);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        struct kix_buf body = KIX_BUF_INIT;
        struct kix_err ferr = {0};
        rc = fn(ctx, i, kix_client_file(c, paths[i], max, &body, &ferr), &body, &ferr);
        kix_buf_release(&body);
    }
    if (rc && err && !err->msg[0])
        kix_err_set(err, rc, "%s: reading its files failed", c->src->where);
    return rc;
}

int kix_client_checkpoint(struct kix_client *c, uint64_t size, struct kix_buf *note,
                          struct kix_err *err)
{
    return c->src->ops->checkpoint(c->src, size, note, err);
}

int kix_client_entries(struct kix_client *c, uint64_t start, uint64_t count, kix_entry_fn fn,
                       void *ctx, uint64_t *got, struct kix_err *err)
{
    return c->src->ops->entries(c->src, start, count, fn, ctx, got, err);
}

int kix_client_checkpoints(struct kix_client *c, uint64_t after, size_t limit, kix_checkpoint_fn fn,
                           void *ctx, struct kix_err *err)
{
    if (!c->src->ops->checkpoints)
        return unsupported(c, "the list of stored checkpoints", err);
    return c->src->ops->checkpoints(c->src, after, limit, fn, ctx, err);
}

int kix_client_inclusion(struct kix_client *c, uint64_t index, uint64_t size,
                         struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                         struct kix_err *err)
{
    return c->src->ops->inclusion(c->src, index, size, proof, n, err);
}

int kix_client_inclusion_proofs(struct kix_client *c, uint64_t from, uint64_t to, uint64_t size,
                                kix_inclusion_fn fn, void *ctx, struct kix_err *err)
{
    int rc = KIX_OK;

    if (c->src->ops->inclusion_proofs)
        return c->src->ops->inclusion_proofs(c->src, from, to, size, fn, ctx, err);
    /* one at a time, without the leaf hashes the source does not give */
    for (uint64_t i = from; rc == KIX_OK && i < to; i++) {
        struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
        size_t n = 0;

        rc = c->src->ops->inclusion(c->src, i, size, proof, &n, err);
        if (rc) {
            kix_err_wrap(err, "entry %llu", (unsigned long long)i);
            kix_err_cause(err, KIX_CAUSE_ENTRY, i, 0);
            break;
        }
        rc = fn(ctx, i, NULL, proof, n);
    }
    return rc;
}

int kix_client_consistency(struct kix_client *c, uint64_t size1, uint64_t size2,
                           struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                           struct kix_err *err)
{
    return c->src->ops->consistency(c->src, size1, size2, proof, n, err);
}

int kix_client_receipt(struct kix_client *c, uint64_t index, uint64_t size, struct kix_buf *out,
                       struct kix_err *err)
{
    if (!c->src->ops->receipt)
        return unsupported(c, "receipts", err);
    return c->src->ops->receipt(c->src, index, size, out, err);
}

static int forged(const struct kix_client *c, const struct kix_digest *d, struct kix_err *err)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(d, text);
    return kix_err_set(err, KIX_EVERIFY,
                       "%s answered bytes that do not hash to %s; it is serving corrupt or "
                       "forged data",
                       c->src->where, text);
}

struct checked_objects {
    const struct kix_client *client;
    const struct kix_digest *digests;
    kix_object_fn fn;
    void *ctx;
    struct kix_err *err;
};

/* Checks each object's digest before the caller sees it. */
static int check_object(void *arg, size_t i, const uint8_t *bytes, size_t len)
{
    struct checked_objects *c = arg;
    struct kix_digest got;

    if (bytes) {
        kix_digest_of(bytes, len, &got);
        if (memcmp(got.b, c->digests[i].b, 32) != 0)
            return forged(c->client, &c->digests[i], c->err);
    }
    return c->fn(c->ctx, i, bytes, len);
}

int kix_client_get_objects(struct kix_client *c, const struct kix_digest *digests, size_t n,
                           kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct checked_objects chk = {c, digests, fn, ctx, err};

    if (!c->src->ops->objects)
        return unsupported(c, "objects", err);
    return c->src->ops->objects(c->src, digests, n, check_object, &chk, err);
}

int kix_client_object_pack(struct kix_client *c, uint64_t bundle, kix_pack_fn fn, void *ctx,
                           struct kix_err *err)
{
    struct kix_buf pack = KIX_BUF_INIT;
    size_t off = 0;
    int rc;

    if (!c->src->ops->object_pack)
        return unsupported(c, "object_pack", err);
    rc = c->src->ops->object_pack(c->src, bundle, &pack, err);
    while (rc == KIX_OK) {
        const uint8_t *obj;
        struct kix_digest d;
        size_t len;
        rc = kix_object_pack_next(pack.ptr, pack.len, &off, &obj, &len);
        if (rc == KIX_ENOTFOUND) {
            rc = KIX_OK;
            break;
        }
        if (rc) {
            rc = kix_err_set(err, rc,
                             "%s: the object pack of entry bundle %llu is malformed at "
                             "byte %zu",
                             kix_client_where(c), (unsigned long long)bundle, off);
            break;
        }
        kix_digest_of(obj, len, &d);
        rc = fn(ctx, &d, obj, len);
    }
    kix_buf_release(&pack);
    return rc;
}

int kix_client_has_object_packs(const struct kix_client *c)
{
    return c->src->ops->object_pack != NULL;
}

struct one_object {
    struct kix_buf *out;
    int found;
};

static int keep_one(void *arg, size_t i, const uint8_t *bytes, size_t len)
{
    struct one_object *o = arg;

    (void)i;
    o->found = bytes != NULL;
    return bytes && kix_buf_add(o->out, bytes, len) ? KIX_ENOMEM : KIX_OK;
}

/* get_object for a source that only answers objects() */
static int object_from_objects(struct kix_client *c, const struct kix_digest *d,
                               struct kix_buf *out, struct kix_err *err)
{
    struct one_object o = {out, 0};
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_client_get_objects(c, d, 1, keep_one, &o, err);

    if (rc == KIX_ENOMEM)
        return kix_err_set(err, rc, "out of memory");
    if (rc == KIX_OK && !o.found) {
        kix_digest_format(d, text);
        rc = kix_err_set(err, KIX_ENOTFOUND, "object %s is not in this log", text);
    }
    return rc;
}

int kix_client_get_object(struct kix_client *c, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err)
{
    size_t start = out->len;
    struct kix_digest got;
    int rc;

    if (!c->src->ops->object)
        return object_from_objects(c, d, out, err);
    rc = c->src->ops->object(c->src, d, out, err);
    if (rc)
        return rc;
    kix_digest_of(out->ptr + start, out->len - start, &got);
    if (memcmp(got.b, d->b, 32) != 0) {
        out->len = start;
        return forged(c, d, err);
    }
    return KIX_OK;
}

int kix_client_submit(struct kix_client *c, const struct kix_bundle *bundles, size_t n,
                      struct kix_submit_result *results, struct kix_err *err)
{
    if (!c->src->ops->submit)
        return unsupported(c, "submissions (it is read-only)", err);
    return c->src->ops->submit(c->src, bundles, n, results, err);
}

int kix__query_filters_check(const struct kix_query *q, struct kix_err *err)
{
    const char *const filters[] = {q->kernel, q->gpu, q->provider, q->mode, q->metric, q->dtype};
    static const char *const names[] = {"kernel", "gpu", "provider", "mode", "metric", "dtype"};

    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        if (filters[i] && !kix_utf8_valid(filters[i], strlen(filters[i])))
            return kix_err_set(err, KIX_EINVAL, "the %s filter is not valid UTF-8", names[i]);
    return KIX_OK;
}

int kix_client_query(struct kix_client *c, const struct kix_query *q, kix_query_fn fn, void *ctx,
                     uint64_t *matched, struct kix_err *err)
{
    int rc = kix__query_filters_check(q, err);

    if (rc)
        return rc;
    if (!c->src->ops->query)
        return unsupported(c, "queries", err);
    return c->src->ops->query(c->src, q, fn, ctx, matched, err);
}

int kix_client_resolve_from(struct kix_client *c, const char *ref, uint64_t from,
                            struct kix_resolution *out, struct kix_err *err)
{
    if (!c->src->ops->resolve) {
        kix_resolution_init(out);
        return unsupported(c, "run resolution", err);
    }
    return c->src->ops->resolve(c->src, ref, from, out, err);
}

int kix_client_resolve(struct kix_client *c, const char *ref, struct kix_resolution *out,
                       struct kix_err *err)
{
    return kix_client_resolve_from(c, ref, 0, out, err);
}

void kix_index_answer_release(struct kix_index_answer *a)
{
    kix_buf_release(&a->record);
    kix_buf_release(&a->proof);
    kix_buf_release(&a->checkpoint);
    kix_buf_release(&a->index_note);
    memset(a, 0, sizeof(*a));
}

void kix_client_require_witnesses(struct kix_client *c, const struct kix_witness_policy *policy)
{
    c->witnesses = policy;
}

int kix_client_index_proof(struct kix_client *c, const struct kix_verifier *key, const char *ikey,
                           struct kix_index_answer *a, struct kix_err *err)
{
    struct kix_note opened;
    int rc;

    memset(a, 0, sizeof(*a));
    if (!c->src->ops->index_proof)
        return unsupported(c, "index proofs", err);
    rc = c->src->ops->index_proof(c->src, ikey, a, err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)a->checkpoint.ptr, a->checkpoint.len, key, 1,
                                 key->name, &opened, &a->cp, err);
    if (rc == KIX_OK)
        rc = kix_vindex_note_open((const char *)a->index_note.ptr, a->index_note.len, key, &a->cp,
                                  &a->note, err);
    if (rc == KIX_OK && c->witnesses)
        rc = kix_witness_check_index((const char *)a->index_note.ptr, a->index_note.len, key,
                                     c->witnesses, NULL, err);
    if (rc == KIX_OK)
        rc = kix_vindex_verify(&a->note, ikey, strlen(ikey), a->present ? a->record.ptr : NULL,
                               a->record.len, a->proof.ptr, a->proof.len, err);
    if (rc)
        kix_index_answer_release(a);
    return rc;
}

int kix_client_cache_verified(struct kix_client *c, const char *cache_root,
                              const struct kix_verifier *key, const struct kix_checkpoint *cp,
                              struct kix_err *err)
{
    if (!c->src->ops->verified)
        return KIX_OK;
    return c->src->ops->verified(c->src, cache_root, key, cp, err);
}

int kix_client_add_cosignature(struct kix_client *c, const char *checkpoint, size_t len,
                               const char *line, size_t line_len, struct kix_err *err)
{
    if (!c->src->ops->add_cosignature)
        return kix_err_set(err, KIX_ENOTSUP,
                           "%s does not take cosignatures: they go to a kixd started with "
                           "--witness",
                           c->src->where);
    return c->src->ops->add_cosignature(c->src, checkpoint, len, line, line_len, err);
}
