/* The kixd source (kix/source.h): each call is one request to a kixd
 * (proto/PROTOCOL.md section 2) over a blocking kix_rpc connection, except
 * inclusion_proofs, which pipelines its requests on it. The messages are
 * encoded and decoded by kix/messages.h (the codec kixd uses too); this
 * file converts them to and from the client's types. Requests are sized by
 * the limits the server reports in `info`, read once per connection.
 * Nothing here trusts the answers beyond their shape; callers verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/messages.h"
#include "kix/rpc.h"
#include "kix/source.h"
#include "kix/source_wire.h"

_Static_assert(KIX_NO_INDEX == KIX_MSG_ABSENT, "absent index");
_Static_assert(KIX_MERKLE_MAX_PROOF == KIX_MSG_MAX_PROOF, "proof length");

/* Limits assumed for a server whose `info` does not report them (a kixd
 * older than the limits fields, or another implementation): small values
 * below every default kixd ever had, so that its requests are never
 * refused for their size, at the cost of more round trips. */
#define FALLBACK_MAX_MESSAGE     ((uint64_t)1 << 20)
#define FALLBACK_MAX_BATCH       64u
#define FALLBACK_MAX_ENTRIES     100u
#define FALLBACK_MAX_OBJECTS     64u
#define FALLBACK_MAX_CHECKPOINTS 100u
#define FALLBACK_MAX_RUNS        100u

/* Room kept in a submit request for its framing and keys, per bundle and in all. */
#define SUBMIT_OVERHEAD_BUNDLE 64u
#define SUBMIT_OVERHEAD        ((size_t)4 << 10)

struct rpc_source {
    struct kix_source base; /* first: the ops get &base */
    struct kix_rpc *rpc;
    int have_limits;           /* lim holds the server's limits (or the fallbacks) */
    struct kix_msg_limits lim; /* every field set once have_limits */
};

static struct rpc_source *rpc_of(struct kix_source *s)
{
    return (struct rpc_source *)s;
}

static void rpc_close(struct kix_source *s)
{
    kix_rpc_close(rpc_of(s)->rpc);
    free(s);
}

/* ---- calls ----------------------------------------------------------------- */

/* A request's params written by the method's message table (ctx: struct ask). */
struct ask {
    const struct kix_msg_method *m;
    const void *params;
};

static int put_params(void *ctx, struct kix_proto_writer *w)
{
    const struct ask *a = ctx;
    return kix_msg_encode(w, a->m->params, a->params);
}

/* Wraps a shape error of the answer as KIX_EPROTO naming the method. */
static int bad_answer(struct rpc_source *r, const char *method, int rc, struct kix_err *err)
{
    if (rc == KIX_ENOMEM)
        return rc;
    kix_err_wrap(err, "%s answered %s with an unexpected shape", kix_rpc_addr(r->rpc), method);
    if (err)
        err->code = KIX_EPROTO;
    return KIX_EPROTO;
}

/* One request of method with params p (by its message table), its result
 * decoded into out (arrays bounded by max); resp holds what out's views
 * point into, released by the caller (also out's `owned`) on success. A
 * fault of the answer is KIX_EPROTO naming the method. */
static int ask(struct rpc_source *r, const char *method, const void *p, const size_t *max,
               void *out, struct kix_proto_msg *resp, struct kix_err *err)
{
    struct ask a = {kix_msg_method_find(method, strlen(method)), p};
    int rc = kix_rpc_call(r->rpc, method, put_params, &a, resp, err);

    if (rc)
        return rc;
    rc = kix_msg_decode_result(resp->result, a.m->result, max, out, err);
    if (rc) {
        kix_proto_msg_release(resp);
        return bad_answer(r, method, rc, err);
    }
    return KIX_OK;
}

/* Ends a call: the response released, a later fault (rc) of its answer
 * named as the method's. */
static int end_call(struct rpc_source *r, const char *method, struct kix_proto_msg *resp, int rc,
                    struct kix_err *err)
{
    kix_proto_msg_release(resp);
    return rc ? bad_answer(r, method, rc, err) : KIX_OK;
}

static void copy_proof(struct kix_hash *out, const uint8_t in[][32], size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out[i].b, in[i], 32);
}

static void take_limits(struct rpc_source *r, const struct kix_msg_info *m)
{
    static const uint64_t fallback[] = {FALLBACK_MAX_MESSAGE, 1,
                                        FALLBACK_MAX_BATCH,   FALLBACK_MAX_ENTRIES,
                                        FALLBACK_MAX_OBJECTS, FALLBACK_MAX_CHECKPOINTS,
                                        FALLBACK_MAX_RUNS};
    uint64_t *slot[] = {&r->lim.max_message, &r->lim.max_in_flight, &r->lim.max_batch,
                        &r->lim.max_entries, &r->lim.max_objects,   &r->lim.max_checkpoints,
                        &r->lim.max_runs};

    kix_msg_limits_init(&r->lim);
    if (m->has_limits)
        r->lim = m->limits;
    for (size_t i = 0; i < sizeof(slot) / sizeof(slot[0]); i++)
        if (*slot[i] == KIX_MSG_ABSENT)
            *slot[i] = fallback[i];
    r->have_limits = 1;
}

/* ---- info and the limits ------------------------------------------------------ */

static int rpc_info(struct kix_source *s, struct kix_client_info *out, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_proto_msg resp;
    struct kix_msg_info m;
    int rc = ask(r, "info", NULL, NULL, &m, &resp, err);

    if (rc)
        return rc;
    memset(out, 0, sizeof(*out));
    rc = kix_wire_info_get(&m, out, err);
    if (rc == KIX_OK && !r->have_limits)
        take_limits(r, &m);
    return end_call(r, "info", &resp, rc, err);
}

/* The server's limits, asked for once per connection. */
static int limits(struct rpc_source *r, const struct kix_msg_limits **out, struct kix_err *err)
{
    struct kix_client_info *info;
    int rc = KIX_OK;

    if (!r->have_limits) {
        info = malloc(sizeof(*info));
        if (!info)
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        rc = rpc_info(&r->base, info, err);
        free(info);
        if (rc)
            kix_err_wrap(err, "asking %s for its limits", kix_rpc_addr(r->rpc));
    }
    *out = &r->lim;
    return rc;
}

/* ---- the calls -------------------------------------------------------------- */

static int rpc_checkpoint(struct kix_source *s, uint64_t size, struct kix_buf *note,
                          struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_checkpoint_params p = {size};
    struct kix_msg_checkpoint_result res;
    struct kix_proto_msg resp;
    int rc = ask(r, "checkpoint", &p, NULL, &res, &resp, err);

    if (rc)
        return rc;
    if (kix_buf_add(note, res.checkpoint.ptr, res.checkpoint.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    return end_call(r, "checkpoint", &resp, rc, err);
}

static int rpc_entries(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn,
                       void *ctx, uint64_t *got, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    const struct kix_msg_limits *lim = NULL;
    uint64_t n = 0;
    int rc = limits(r, &lim, err);

    while (rc == KIX_OK && n < count) {
        uint64_t want = count - n > lim->max_entries ? lim->max_entries : count - n;
        struct kix_msg_get_entries_params p = {start + n, want};
        struct kix_msg_entries res;
        struct kix_proto_msg resp;
        size_t k, max = (size_t)want;

        if (start + n < start)
            break; /* past the last possible index */
        rc = ask(r, "get_entries", &p, &max, &res, &resp, err);
        if (rc)
            break;
        if (res.start != start + n)
            rc = kix_err_set(err, KIX_EPROTO, "asked for %llu entries from %llu, got %zu from %llu",
                             (unsigned long long)want, (unsigned long long)(start + n),
                             res.nentries, (unsigned long long)res.start);
        if (rc) {
            kix_msg_free(res.owned);
            rc = end_call(r, "get_entries", &resp, rc, err);
            break;
        }
        k = res.nentries;
        for (size_t i = 0; rc == KIX_OK && i < k; i++) {
            rc = fn(ctx, res.start + i, res.entries[i].ptr, res.entries[i].len);
            if (rc)
                n += i;
        }
        kix_msg_free(res.owned);
        kix_proto_msg_release(&resp);
        if (rc)
            break;
        n += k;
        if (k == 0)
            break; /* the log ends here */
    }
    if (got)
        *got = n;
    return rc;
}

/* inclusion_proof or consistency_proof: the answer's "proof", found by
 * the method's table. */
static int ask_proof(struct rpc_source *r, const char *method, const void *p,
                     struct kix_hash *proof, size_t *n, struct kix_err *err)
{
    const struct kix_msg_table *t = kix_msg_method_find(method, strlen(method))->result;
    const struct kix_msg_field *f = t->fields;
    struct kix_proto_msg resp;
    char *res = malloc(t->size);
    int rc;

    while (strcmp(f->name, "proof") != 0)
        f++;
    if (!res)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = ask(r, method, p, NULL, res, &resp, err);
    if (rc == KIX_OK) {
        *n = *(const size_t *)(const void *)(res + f->aux);
        copy_proof(proof, (const uint8_t(*)[32])(const void *)(res + f->off), *n);
        kix_proto_msg_release(&resp);
    }
    free(res);
    return rc;
}

static int rpc_inclusion(struct kix_source *s, uint64_t index, uint64_t size,
                         struct kix_hash *proof, size_t *n, struct kix_err *err)
{
    struct kix_msg_index_params p = {index, size};
    return ask_proof(rpc_of(s), "inclusion_proof", &p, proof, n, err);
}

static int rpc_consistency(struct kix_source *s, uint64_t size1, uint64_t size2,
                           struct kix_hash *proof, size_t *n, struct kix_err *err)
{
    struct kix_msg_consistency_params p = {size1, size2};
    return ask_proof(rpc_of(s), "consistency_proof", &p, proof, n, err);
}

static int rpc_receipt(struct kix_source *s, uint64_t index, uint64_t size, struct kix_buf *out,
                       struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_index_params p = {index, size};
    struct kix_msg_receipt_result res;
    struct kix_proto_msg resp;
    int rc = ask(r, "receipt", &p, NULL, &res, &resp, err);

    if (rc)
        return rc;
    if (kix_buf_add(out, res.receipt.ptr, res.receipt.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    return end_call(r, "receipt", &resp, rc, err);
}

static int rpc_get_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_get_object_params p;
    struct kix_msg_get_object_result res;
    struct kix_proto_msg resp;
    int rc;

    memcpy(p.digest, d->b, 32);
    rc = ask(r, "get_object", &p, NULL, &res, &resp, err);
    if (rc)
        return rc;
    if (kix_buf_add(out, res.object.ptr, res.object.len))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    return end_call(r, "get_object", &resp, rc, err);
}

/* ---- submit -------------------------------------------------------------------- */

static size_t bundle_bytes(const struct kix_bundle *b)
{
    size_t n = b->envelope.len + SUBMIT_OVERHEAD_BUNDLE;
    for (size_t k = 0; k < b->nobjects; k++)
        n += b->objects[k].len + 8;
    return n;
}

/* How many bundles from `from` go in one request: at most maxBatch and as
 * many as fit maxMessage (at least one: an oversized one is the server's
 * to refuse). */
static size_t submit_page(const struct kix_msg_limits *lim, const struct kix_bundle *bundles,
                          size_t n)
{
    size_t k = 0, bytes = SUBMIT_OVERHEAD;
    while (k < n && k < lim->max_batch) {
        size_t b = bundle_bytes(&bundles[k]);
        if (k > 0 && bytes + b > lim->max_message)
            break;
        bytes += b;
        k++;
    }
    return k;
}

static int take_submit_item(const struct kix_msg_submit_item *it, struct kix_submit_result *out,
                            struct kix_err *err)
{
    if (it->code) {
        out->code = it->code > -1000 ? (int)it->code : KIX_EPROTO;
        snprintf(out->message, sizeof(out->message), "%.*s", (int)it->message.len,
                 (const char *)it->message.ptr);
        return KIX_OK;
    }
    out->index = it->index;
    out->duplicate = it->duplicate;
    if (kix_buf_add(&out->receipt, it->receipt.ptr, it->receipt.len))
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    return KIX_OK;
}

static int rpc_submit(struct kix_source *s, const struct kix_bundle *bundles, size_t n,
                      struct kix_submit_result *results, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    const struct kix_msg_limits *lim = NULL;
    struct kix_msg_bundle *page = NULL;
    int rc;

    for (size_t i = 0; i < n; i++)
        memset(&results[i], 0, sizeof(results[i]));
    rc = limits(r, &lim, err);
    if (rc == KIX_OK && n > 0) {
        page = calloc(n < lim->max_batch ? n : (size_t)lim->max_batch, sizeof(*page));
        if (!page)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    for (size_t sent = 0; rc == KIX_OK && sent < n;) {
        struct kix_msg_submit_params p = {submit_page(lim, bundles + sent, n - sent), page, NULL};
        struct kix_msg_submit_result res;
        struct kix_proto_msg resp;

        for (size_t i = 0; i < p.nbundles; i++) {
            page[i].envelope = bundles[sent + i].envelope;
            page[i].nobjects = bundles[sent + i].nobjects;
            page[i].objects = bundles[sent + i].objects;
        }
        rc = ask(r, "submit", &p, &p.nbundles, &res, &resp, err);
        if (rc)
            break;
        if (res.nresults != p.nbundles)
            rc = kix_err_set(err, KIX_EPROTO, "%zu results for %zu bundles", res.nresults,
                             p.nbundles);
        for (size_t i = 0; rc == KIX_OK && i < res.nresults; i++)
            rc = take_submit_item(&res.results[i], &results[sent + i], err);
        kix_msg_free(res.owned);
        rc = end_call(r, "submit", &resp, rc, err);
        sent += p.nbundles;
    }
    free(page);
    return rc;
}

/* ---- resolve ---------------------------------------------------------------- */

static void free_msg(void *p)
{
    kix_proto_msg_release(p);
    free(p);
}

static int rpc_resolve(struct kix_source *s, const char *ref, uint64_t from,
                       struct kix_resolution *out, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_resolve_params p = {{(const uint8_t *)ref, strlen(ref)}, from};
    struct kix_proto_msg *resp = malloc(sizeof(*resp));
    struct kix_msg_resolve_result m;
    const size_t max[2] = {KIX_RESOLVE_MAX_OBJECTS, KIX_RESOLVE_MAX_ENTRIES};
    int rc;

    kix_resolution_init(out);
    if (!resp)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = ask(r, "resolve", &p, max, &m, resp, err);
    if (rc) {
        free(resp);
        return rc;
    }
    /* the views in *out point into the response, kept alive by backing */
    out->backing = resp;
    out->backing_free = free_msg;
    rc = kix_wire_resolution_get(&m, out, err);
    kix_msg_free(m.owned);
    if (rc) {
        kix_resolution_release(out);
        return bad_answer(r, "resolve", rc, err);
    }
    return KIX_OK;
}

/* ---- index_proof ---------------------------------------------------------------- */

static int rpc_index_proof(struct kix_source *s, const char *key, struct kix_index_answer *a,
                           struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_vindex_params p = {{(const uint8_t *)key, strlen(key)}};
    struct kix_msg_vindex_result m;
    struct kix_proto_msg resp;
    int rc = ask(r, "index_proof", &p, NULL, &m, &resp, err);

    if (rc)
        return rc;
    if (m.key.len != p.key.len || memcmp(m.key.ptr, key, m.key.len) != 0)
        rc = kix_err_set(err, KIX_EPROTO, "index_proof answered about another key");
    if (rc == KIX_OK) {
        a->present = m.present;
        if (kix_buf_add(&a->record, m.record.ptr, m.record.len) ||
            kix_buf_add(&a->proof, m.proof.ptr, m.proof.len) ||
            kix_buf_add(&a->checkpoint, m.checkpoint.ptr, m.checkpoint.len) ||
            kix_buf_add(&a->index_note, m.index_note.ptr, m.index_note.len))
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    return end_call(r, "index_proof", &resp, rc, err);
}

/* ---- checkpoints, objects, query, cosignatures ---------------------------------- */

static int rpc_checkpoints(struct kix_source *s, uint64_t after, size_t limit, kix_checkpoint_fn fn,
                           void *ctx, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    const struct kix_msg_limits *lim = NULL;
    size_t done = 0, n = 1;
    int rc = limits(r, &lim, err);

    /* pages of at most maxCheckpoints, until the limit or an empty page */
    while (rc == KIX_OK && done < limit && n > 0) {
        size_t want =
            limit - done > lim->max_checkpoints ? (size_t)lim->max_checkpoints : limit - done;
        struct kix_msg_checkpoints_params p = {after, want};
        struct kix_msg_checkpoints_result res;
        struct kix_proto_msg resp;
        bool shape = false;

        rc = ask(r, "checkpoints", &p, &want, &res, &resp, err);
        if (rc)
            break;
        n = res.ncheckpoints;
        for (size_t i = 0; rc == KIX_OK && i < n; i++) {
            const struct kix_msg_checkpoint_item *it = &res.checkpoints[i];
            if (it->size <= after) {
                rc = kix_err_set(err, KIX_EPROTO, "checkpoints out of order");
                shape = true;
                break;
            }
            after = it->size;
            rc = fn(ctx, it->size, it->checkpoint.ptr, it->checkpoint.len, it->index_note.ptr,
                    it->index_note.len);
        }
        if (shape)
            rc = bad_answer(r, "checkpoints", rc, err);
        kix_msg_free(res.owned);
        kix_proto_msg_release(&resp);
        done += n;
    }
    return rc;
}

static int rpc_get_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                           kix_object_fn fn, void *ctx, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    const struct kix_msg_limits *lim = NULL;
    uint8_t(*d)[32] = NULL;
    int rc = limits(r, &lim, err);

    if (rc == KIX_OK && n > 0) {
        d = calloc(n, 32);
        if (!d)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; rc == KIX_OK && i < n; i++)
        memcpy(d[i], digests[i].b, 32);
    /* pages of at most maxObjects digests */
    for (size_t done = 0; rc == KIX_OK && done < n;) {
        size_t want = n - done > lim->max_objects ? (size_t)lim->max_objects : n - done;
        struct kix_msg_get_objects_params p = {want, (const uint8_t(*)[32])(d + done), NULL};
        struct kix_msg_get_objects_result res;
        struct kix_proto_msg resp;

        rc = ask(r, "get_objects", &p, &want, &res, &resp, err);
        if (rc)
            break;
        if (res.nobjects != want)
            rc = bad_answer(
                r, "get_objects",
                kix_err_set(err, KIX_EPROTO, "%zu objects for %zu digests", res.nobjects, want),
                err);
        for (size_t i = 0; rc == KIX_OK && i < want; i++)
            rc = fn(ctx, done + i, res.objects[i].ptr, res.objects[i].ptr ? res.objects[i].len : 0);
        kix_msg_free(res.owned);
        kix_proto_msg_release(&resp);
        done += want;
    }
    free(d);
    return rc;
}

static int rpc_query(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
                     uint64_t *matched, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    const struct kix_msg_limits *lim = NULL;
    struct kix_msg_query_params p;
    uint64_t done = 0;
    int rc = limits(r, &lim, err);

    kix_wire_query_put(q, &p);
    /* pages of at most maxRuns runs (a limit of 0 is the server's to refuse) */
    while (rc == KIX_OK) {
        uint64_t want = q->limit - done > lim->max_runs ? lim->max_runs : q->limit - done;
        struct kix_msg_query_result res;
        struct kix_proto_msg resp;
        size_t n, max = (size_t)want;

        p.offset = q->offset + done ? q->offset + done : KIX_MSG_ABSENT;
        p.limit = want;
        rc = ask(r, "query", &p, &max, &res, &resp, err);
        if (rc)
            break;
        if (done == 0 && matched)
            *matched = res.matched;
        n = res.nruns;
        for (size_t i = 0; rc == KIX_OK && i < n; i++) {
            struct kix_query_row row;
            rc = kix_wire_row_get(&res.runs[i], &row, err);
            if (rc)
                rc = bad_answer(r, "query", rc, err);
            else
                rc = fn(ctx, &row);
        }
        kix_msg_free(res.owned);
        kix_proto_msg_release(&resp);
        done += n;
        if (n < want || done >= q->limit)
            break;
    }
    return rc;
}

static int rpc_add_cosignature(struct kix_source *s, const char *checkpoint, size_t len,
                               const char *line, size_t line_len, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    struct kix_msg_add_cosignature_params p = {{(const uint8_t *)checkpoint, len},
                                               {(const uint8_t *)line, line_len}};
    struct kix_msg_add_cosignature_result res;
    struct kix_proto_msg resp;
    int rc = ask(r, "add_cosignature", &p, NULL, &res, &resp, err);

    return rc ? rc : end_call(r, "add_cosignature", &resp, KIX_OK, err);
}

/* ---- inclusion proofs, pipelined ------------------------------------------------ */

#define PROOFS_IN_FLIGHT 128

/* One entry's answer: its proof and leaf hash to fn, or the server's refusal. */
static int take_proof(struct rpc_source *r, const struct kix_proto_msg *m, uint64_t index,
                      uint64_t size, kix_inclusion_fn fn, void *ctx, struct kix_err *err)
{
    struct kix_msg_inclusion_result *res;
    struct kix_hash leaf, proof[KIX_MERKLE_MAX_PROOF];
    struct kix_err shape = {0};
    int rc;

    if (m->error_code) {
        rc = kix_err_set(err, m->error_code,
                         "entry %llu: %s refused its inclusion proof at size %llu: %.*s",
                         (unsigned long long)index, kix_rpc_addr(r->rpc), (unsigned long long)size,
                         (int)m->error_message.len, (const char *)m->error_message.ptr);
        kix_err_cause(err, KIX_CAUSE_ENTRY, index, 0);
        return rc;
    }
    res = malloc(sizeof(*res));
    if (!res)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_msg_get_inclusion_result(m->result, res, &shape);
    if (rc == KIX_OK) {
        memcpy(leaf.b, res->leaf_hash, 32);
        copy_proof(proof, res->proof, res->nproof);
        rc = fn(ctx, index, &leaf, proof, res->nproof);
    } else {
        rc = kix_err_set(err, rc, "%s answered a malformed inclusion proof for entry %llu: %s",
                         kix_rpc_addr(r->rpc), (unsigned long long)index, kix_err_text(&shape, rc));
        kix_err_cause(err, KIX_CAUSE_ENTRY, index, 0);
    }
    free(res);
    return rc;
}

/* At most PROOFS_IN_FLIGHT requests outstanding; answers are matched to
 * entries by msgid. */
static int rpc_inclusion_proofs(struct kix_source *s, uint64_t from, uint64_t to, uint64_t size,
                                kix_inclusion_fn fn, void *ctx, struct kix_err *err)
{
    struct rpc_source *r = rpc_of(s);
    uint64_t next = from, done = 0, total = to > from ? to - from : 0;
    uint32_t base = 0;
    int rc = KIX_OK;

    while (rc == KIX_OK && done < total) {
        struct kix_proto_msg m;
        uint64_t index;

        while (rc == KIX_OK && next < to && next - from - done < PROOFS_IN_FLIGHT) {
            struct kix_msg_index_params p = {next, size};
            struct ask a = {kix_msg_method_find("inclusion_proof", 15), &p};
            uint32_t id;
            rc = kix_rpc_send(r->rpc, "inclusion_proof", put_params, &a, &id, err);
            if (next == from)
                base = id;
            next++;
        }
        if (rc)
            break;
        rc = kix_rpc_recv(r->rpc, &m, err);
        if (rc)
            break;
        if (m.type != KIX_PROTO_RESPONSE || (uint32_t)(m.msgid - base) >= next - from) {
            kix_proto_msg_release(&m);
            continue; /* not one of ours */
        }
        index = from + (uint32_t)(m.msgid - base);
        rc = take_proof(r, &m, index, size, fn, ctx, err);
        kix_proto_msg_release(&m);
        done++;
    }
    return rc;
}

/* ---- the table ------------------------------------------------------------------ */

static const struct kix_source_ops rpc_ops = {
    .close = rpc_close,
    .info = rpc_info,
    .checkpoint = rpc_checkpoint,
    .entries = rpc_entries,
    .inclusion = rpc_inclusion,
    .consistency = rpc_consistency,
    .inclusion_proofs = rpc_inclusion_proofs,
    .checkpoints = rpc_checkpoints,
    .receipt = rpc_receipt,
    .objects = rpc_get_objects,
    .object = rpc_get_object,
    .index_proof = rpc_index_proof,
    .resolve = rpc_resolve,
    .query = rpc_query,
    .submit = rpc_submit,
    .add_cosignature = rpc_add_cosignature,
};

int kix_source_connect(const char *addr, const struct kix_client_opts *opts,
                       struct kix_source **out, struct kix_err *err)
{
    struct kix_rpc_opts ro = {opts ? opts->timeout_ms : 0, 0};
    struct rpc_source *r = calloc(1, sizeof(*r));
    int rc;

    *out = NULL;
    if (!r)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_rpc_connect(addr, &ro, &r->rpc, err);
    if (rc) {
        free(r);
        return rc;
    }
    r->base.ops = &rpc_ops;
    snprintf(r->base.where, sizeof(r->base.where), "%s", addr);
    *out = &r->base;
    return KIX_OK;
}
