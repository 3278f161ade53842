/* struct kix_client: the local-store transport, and dispatch to remote.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "kix/encoding.h"
#include "kix/resolve.h"
#include "kix/version.h"

int kix_client_open_store(const char *dir, struct kix_client **out, struct kix_err *err)
{
    struct kix_client *c = calloc(1, sizeof(*c));
    struct kix_log_opts opts;
    int rc;

    *out = NULL;
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    memset(&opts, 0, sizeof(opts));
    /* a store without a log key is a replica (mirror), readable as is */
    rc = kix_index_open_any(dir, &opts, &c->log, err);
    if (rc) {
        free(c);
        return rc;
    }
    snprintf(c->where, sizeof(c->where), "store %s", dir);
    *out = c;
    return KIX_OK;
}

int kix_client_connect(const char *addr, const struct kix_client_opts *opts,
                       struct kix_client **out, struct kix_err *err)
{
    struct kix_client *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix__remote_connect(addr, opts, &c->remote, err);
    if (rc) {
        free(c);
        return rc;
    }
    snprintf(c->where, sizeof(c->where), "%s", addr);
    *out = c;
    return KIX_OK;
}

void kix_client_close(struct kix_client *c)
{
    if (!c)
        return;
    kix_log_close(c->log);
    kix__remote_close(c->remote);
    free(c);
}

const char *kix_client_where(const struct kix_client *c)
{
    return c->where;
}

void kix_submit_result_release(struct kix_submit_result *r)
{
    kix_buf_release(&r->receipt);
}

/* Runs fn with a read snapshot of the local log. */
#define WITH_READER(c, r, err, body)                                                               \
    do {                                                                                           \
        struct kix_log_reader *r = NULL;                                                           \
        int rc_ = kix_log_read_begin((c)->log, &r);                                                \
        if (rc_)                                                                                   \
            return kix_err_set(err, rc_, "reading the store: %s", kix_strerror(rc_));              \
        rc_ = (body);                                                                              \
        kix_log_read_end(r);                                                                       \
        return rc_;                                                                                \
    } while (0)

static int local_info(struct kix_log_reader *r, struct kix_log *l, struct kix_client_info *out)
{
    struct kix_buf vkey = KIX_BUF_INIT;
    int rc = kix_verifier_format(kix_log_verifier(l), &vkey);
    if (rc)
        return rc;
    memset(out, 0, sizeof(*out));
    snprintf(out->origin, sizeof(out->origin), "%s", kix_log_origin(l));
    snprintf(out->log_key, sizeof(out->log_key), "%s", (const char *)vkey.ptr);
    snprintf(out->version, sizeof(out->version), "kix %s", KIX_VERSION_STRING);
    out->size = kix_log_reader_size(r);
    out->mirror = kix_log_is_replica(l);
    kix_buf_release(&vkey);
    return KIX_OK;
}

int kix_client_info(struct kix_client *c, struct kix_client_info *out, struct kix_err *err)
{
    if (c->remote)
        return kix__remote_info(c->remote, out, err);
    WITH_READER(c, r, err, local_info(r, c->log, out));
}

static int copy_view(int rc, const struct kix_bytes *v, struct kix_buf *out)
{
    return rc ? rc : kix_buf_add(out, v->ptr, v->len);
}

static int local_checkpoint(struct kix_log_reader *r, uint64_t size, struct kix_buf *note,
                            struct kix_err *err)
{
    return kix_log_reader_checkpoint_cosigned(r, size, note, err);
}

int kix_client_checkpoint(struct kix_client *c, uint64_t size, struct kix_buf *note,
                          struct kix_err *err)
{
    if (c->remote)
        return kix__remote_checkpoint(c->remote, size, note, err);
    WITH_READER(c, r, err, local_checkpoint(r, size, note, err));
}

static int local_entries(struct kix_log_reader *r, uint64_t start, uint64_t count, kix_entry_fn fn,
                         void *ctx, uint64_t *got, struct kix_err *err)
{
    uint64_t size = kix_log_reader_size(r), n = 0;
    for (uint64_t i = start; i < size && i - start < count; i++) {
        struct kix_bytes leaf;
        int rc = kix_log_reader_entry(r, i, &leaf);
        if (rc)
            return kix_err_set(err, KIX_ECORRUPT, "entry %llu is missing from the store",
                               (unsigned long long)i);
        rc = fn(ctx, i, leaf.ptr, leaf.len);
        if (rc)
            return rc;
        n++;
    }
    if (got)
        *got = n;
    return KIX_OK;
}

int kix_client_entries(struct kix_client *c, uint64_t start, uint64_t count, kix_entry_fn fn,
                       void *ctx, uint64_t *got, struct kix_err *err)
{
    if (c->remote)
        return kix__remote_entries(c->remote, start, count, fn, ctx, got, err);
    WITH_READER(c, r, err, local_entries(r, start, count, fn, ctx, got, err));
}

int kix_client_checkpoints(struct kix_client *c, uint64_t after, size_t limit, kix_checkpoint_fn fn,
                           void *ctx, struct kix_err *err)
{
    if (c->remote)
        return kix__remote_checkpoints(c->remote, after, limit, fn, ctx, err);
    WITH_READER(c, r, err, kix_log_reader_checkpoints(r, after, limit, fn, ctx));
}

static uint64_t latest(struct kix_log_reader *r, uint64_t size)
{
    return size == KIX_NO_INDEX ? kix_log_reader_size(r) : size;
}

int kix_client_inclusion(struct kix_client *c, uint64_t index, uint64_t size,
                         struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                         struct kix_err *err)
{
    if (c->remote)
        return kix__remote_inclusion(c->remote, index, size, proof, n, err);
    WITH_READER(c, r, err, kix_log_reader_inclusion(r, index, latest(r, size), proof, n, err));
}

int kix_client_consistency(struct kix_client *c, uint64_t size1, uint64_t size2,
                           struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                           struct kix_err *err)
{
    if (c->remote)
        return kix__remote_consistency(c->remote, size1, size2, proof, n, err);
    WITH_READER(c, r, err, kix_log_reader_consistency(r, size1, latest(r, size2), proof, n, err));
}

int kix_client_receipt(struct kix_client *c, uint64_t index, uint64_t size, struct kix_buf *out,
                       struct kix_err *err)
{
    if (c->remote)
        return kix__remote_receipt(c->remote, index, size, out, err);
    WITH_READER(c, r, err, kix_log_reader_receipt(r, index, size, out, err));
}

static int local_object(struct kix_log_reader *r, const struct kix_digest *d, struct kix_buf *out,
                        struct kix_err *err)
{
    struct kix_bytes v;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_log_reader_object(r, d, &v);
    if (rc == KIX_ENOTFOUND) {
        kix_digest_format(d, text);
        return kix_err_set(err, rc, "object %s is not in this log", text);
    }
    return copy_view(rc, &v, out);
}

int kix_client_get_object(struct kix_client *c, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err)
{
    size_t start = out->len;
    struct kix_digest got;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc;

    if (c->remote) {
        rc = kix__remote_get_object(c->remote, d, out, err);
    } else {
        struct kix_log_reader *r = NULL;
        rc = kix_log_read_begin(c->log, &r);
        if (rc == KIX_OK)
            rc = local_object(r, d, out, err);
        kix_log_read_end(r);
    }
    if (rc)
        return rc;
    kix_digest_of(out->ptr + start, out->len - start, &got);
    if (memcmp(got.b, d->b, 32) != 0) {
        out->len = start;
        kix_digest_format(d, text);
        return kix_err_set(err, KIX_EVERIFY,
                           "%s answered bytes that do not hash to %s; it is serving corrupt or "
                           "forged data",
                           c->where, text);
    }
    return KIX_OK;
}

struct checked_objects {
    const struct kix_digest *digests;
    kix_object_fn fn;
    void *ctx;
    const char *where;
    struct kix_err *err;
};

/* Checks each object's digest before the caller sees it. */
static int check_object(void *arg, size_t i, const uint8_t *bytes, size_t len)
{
    struct checked_objects *c = arg;
    struct kix_digest got;
    char text[KIX_DIGEST_TEXT_LEN + 1];

    if (bytes) {
        kix_digest_of(bytes, len, &got);
        if (memcmp(got.b, c->digests[i].b, 32) != 0) {
            kix_digest_format(&c->digests[i], text);
            return kix_err_set(c->err, KIX_EVERIFY,
                               "%s answered bytes that do not hash to %s; it is serving corrupt or "
                               "forged data",
                               c->where, text);
        }
    }
    return c->fn(c->ctx, i, bytes, len);
}

static int local_objects(struct kix_log_reader *r, const struct kix_digest *digests, size_t n,
                         kix_object_fn fn, void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes v;
        int rc = kix_log_reader_object(r, &digests[i], &v);
        if (rc && rc != KIX_ENOTFOUND)
            return rc;
        rc = rc ? fn(ctx, i, NULL, 0) : fn(ctx, i, v.ptr, v.len);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

int kix_client_get_objects(struct kix_client *c, const struct kix_digest *digests, size_t n,
                           kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct checked_objects chk = {digests, fn, ctx, c->where, err};
    if (c->remote)
        return kix__remote_get_objects(c->remote, digests, n, check_object, &chk, err);
    WITH_READER(c, r, err, local_objects(r, digests, n, check_object, &chk));
}

static int local_submit(struct kix_client *c, const struct kix_bundle *bundles, size_t n,
                        struct kix_submit_result *results, struct kix_err *err)
{
    struct kix_prepared **items = calloc(n ? n : 1, sizeof(*items));
    struct kix_append_result *res = calloc(n ? n : 1, sizeof(*res));
    size_t *slot = calloc(n ? n : 1, sizeof(*slot)), nitems = 0;
    int rc = KIX_OK;

    if (!items || !res || !slot) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        struct kix_submission sub = {bundles[i].envelope, bundles[i].objects, bundles[i].nobjects};
        struct kix_err item_err = {0};
        memset(&results[i], 0, sizeof(results[i]));
        results[i].code = kix_log_prepare(c->log, &sub, &items[nitems], &item_err);
        if (results[i].code) {
            snprintf(results[i].message, sizeof(results[i].message), "%s", item_err.msg);
            continue;
        }
        slot[nitems++] = i;
    }
    if (nitems)
        rc = kix_log_commit(c->log, items, nitems, res, NULL, err);
    if (rc)
        goto out;
    for (size_t k = 0; k < nitems; k++) {
        struct kix_submit_result *r = &results[slot[k]];
        r->code = res[k].code;
        r->index = res[k].index;
        r->duplicate = res[k].duplicate;
        snprintf(r->message, sizeof(r->message), "%s", res[k].message);
        if (r->code == KIX_OK) {
            struct kix_err rerr = {0};
            r->code = kix_client_receipt(c, r->index, KIX_NO_INDEX, &r->receipt, &rerr);
            if (r->code)
                snprintf(r->message, sizeof(r->message), "%s", rerr.msg);
        }
    }
out:
    for (size_t k = 0; items && k < nitems; k++)
        kix_prepared_free(items[k]);
    free(items);
    free(res);
    free(slot);
    return rc;
}

int kix_client_submit(struct kix_client *c, const struct kix_bundle *bundles, size_t n,
                      struct kix_submit_result *results, struct kix_err *err)
{
    if (c->remote)
        return kix__remote_submit(c->remote, bundles, n, results, err);
    return local_submit(c, bundles, n, results, err);
}

int kix_client_query(struct kix_client *c, const struct kix_query *q, kix_query_fn fn, void *ctx,
                     uint64_t *matched, struct kix_err *err)
{
    const char *const filters[] = {q->kernel, q->gpu, q->provider, q->mode, q->metric};
    static const char *const names[] = {"kernel", "gpu", "provider", "mode", "metric"};

    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        if (filters[i] && !kix_utf8_valid(filters[i], strlen(filters[i])))
            return kix_err_set(err, KIX_EINVAL, "the %s filter is not valid UTF-8", names[i]);
    if (c->remote)
        return kix__remote_query(c->remote, q, fn, ctx, matched, err);
    WITH_READER(c, r, err, kix_index_query(r, q, fn, ctx, matched));
}

/* A local resolution borrows from a read snapshot kept open until release,
 * and owns what the index made for it. */
struct local_backing {
    struct kix_log_reader *r;
    void *inner;
    void (*inner_free)(void *);
};

static void end_reader(void *p)
{
    struct local_backing *b = p;
    if (!b)
        return;
    if (b->inner_free)
        b->inner_free(b->inner);
    kix_log_read_end(b->r);
    free(b);
}

int kix_client_resolve_from(struct kix_client *c, const char *ref, uint64_t from,
                            struct kix_resolution *out, struct kix_err *err)
{
    struct local_backing *b;
    int rc;

    if (c->remote)
        return kix__remote_resolve(c->remote, ref, from, out, err);
    b = calloc(1, sizeof(*b));
    if (!b)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_log_read_begin(c->log, &b->r);
    if (rc) {
        free(b);
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    }
    rc = kix_index_resolve_from(b->r, ref, strlen(ref), from, 0, out, err);
    if (rc) {
        kix_log_read_end(b->r);
        free(b);
        return rc;
    }
    b->inner = out->backing;
    b->inner_free = out->backing_free;
    out->backing = b;
    out->backing_free = end_reader;
    return KIX_OK;
}

void kix_index_answer_release(struct kix_index_answer *a)
{
    kix_buf_release(&a->record);
    kix_buf_release(&a->proof);
    kix_buf_release(&a->checkpoint);
    kix_buf_release(&a->index_note);
    memset(a, 0, sizeof(*a));
}

static int local_index_proof(struct kix_client *c, const char *ikey, struct kix_index_answer *a,
                             struct kix_err *err)
{
    struct kix_log_reader *r;
    struct kix_bytes b;
    int rc = kix_log_read_begin(c->log, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &b) != KIX_OK ||
        kix_buf_add(&a->checkpoint, b.ptr, b.len))
        rc = kix_err_set(err, KIX_ENOTFOUND, "the log has no checkpoint yet");
    else if (kix_log_reader_index_note(r, KIX_NO_INDEX, &b) != KIX_OK ||
             kix_buf_add(&a->index_note, b.ptr, b.len))
        rc = kix_err_set(err, KIX_ENOTFOUND,
                         "this store keeps no verifiable index (a plain log, or one older than "
                         "kix-index/3 opened read-only: open it once with kixd to rebuild it)");
    else
        rc = kix_index_prove(r, ikey, strlen(ikey), &a->record, &a->proof, &a->present, err);
    kix_log_read_end(r);
    return rc;
}

int kix_client_index_proof(struct kix_client *c, const struct kix_verifier *key, const char *ikey,
                           struct kix_index_answer *a, struct kix_err *err)
{
    struct kix_note opened;
    int rc;

    memset(a, 0, sizeof(*a));
    if (c->remote)
        rc = kix__remote_index_proof(c->remote, ikey, &a->record, &a->present, &a->proof,
                                     &a->checkpoint, &a->index_note, err);
    else
        rc = local_index_proof(c, ikey, a, err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)a->checkpoint.ptr, a->checkpoint.len, key, 1,
                                 key->name, &opened, &a->cp, err);
    if (rc == KIX_OK)
        rc = kix_vindex_note_open((const char *)a->index_note.ptr, a->index_note.len, key, &a->cp,
                                  &a->note, err);
    if (rc == KIX_OK)
        rc = kix_vindex_verify(&a->note, ikey, strlen(ikey), a->present ? a->record.ptr : NULL,
                               a->record.len, a->proof.ptr, a->proof.len, err);
    if (rc)
        kix_index_answer_release(a);
    return rc;
}

int kix_client_resolve(struct kix_client *c, const char *ref, struct kix_resolution *out,
                       struct kix_err *err)
{
    return kix_client_resolve_from(c, ref, 0, out, err);
}

int kix_client_add_cosignature(struct kix_client *c, const char *checkpoint, size_t len,
                               const char *line, size_t line_len, struct kix_err *err)
{
    if (c->remote)
        return kix__remote_add_cosignature(c->remote, checkpoint, len, line, line_len, err);
    return kix_err_set(err, KIX_EINVAL,
                       "cosignatures go to a kixd started with --witness, not to %s", c->where);
}
