/* The methods: each request's params → the log → its answer
 * (proto/PROTOCOL.md section 2 is the spec of every method here;
 * dispatch.h). */
#include "dispatch.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "follow.h"
#include "http_submit.h"
#include "kix/entry.h"
#include "kix/messages.h"
#include "kix/receipt.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/source_wire.h"
#include "kix/version.h"
#include "metrics.h"
#include "mirror.h"
#include "replicas.h"
#include "witness.h"

#define ASYNC 1 /* the method answers later (or already answered) */

/* Items per checkpoints and query answer (info reports them). */
#define CHECKPOINTS_MAX 1000u
#define QUERY_MAX       1000u

struct call {
    struct kixd_conn *c;
    struct kixd_worker *w;
    struct kixd_server *srv;
    const struct kixd_config *cfg;
    struct kix_proto_msg *msg;
    uint32_t msgid;
    const struct kix_proto_map *params;
    const struct kix_msg_method *method; /* its messages (kix/messages.h) */
    struct kix_proto_writer pw;
    struct kix_err err;
    uint64_t req_id;   /* kixd_request_id: every log line about it */
    double started_ms; /* when it arrived (kixd_now_ms) */
    /* a reader's method: the snapshot at the visible size (replicas.h),
     * locked until the answer is written when it is the server's view */
    struct kix_log_reader *view;
    int view_locked;
};

/* ---- helpers ------------------------------------------------------------------------ */

static int fail(struct call *k, int code, const char *fmt, ...) KIX_PRINTF(3, 4);

/* kix_err_set for the request's error: the message for the client and the
 * log, the code for both, and no cause (the error is the request's own, not
 * about an entry or a tree size). */
static int fail(struct call *k, int code, const char *fmt, ...)
{
    va_list ap;

    kix_err_clear(&k->err);
    k->err.code = code;
    va_start(ap, fmt);
    vsnprintf(k->err.msg, sizeof(k->err.msg), fmt, ap);
    va_end(ap);
    return code;
}

/* The snapshot a method reads: for a reader's method (struct method's
 * `view`), the one at the size N mirrors hold; else the worker's, at the
 * committed size (what mirrors replicate from). */
static int reader(struct call *k, struct kix_log_reader **r)
{
    if (k->view) {
        *r = k->view;
        return KIX_OK;
    }
    return kixd_worker_reader(k->w, r, &k->err);
}

/* Ends the answer; an answer over the message limit becomes ELIMIT. */
static int finish(struct call *k)
{
    int rc = kix_proto_writer_end(&k->pw, &k->err);
    if (rc == KIX_ELIMIT)
        return fail(k, KIX_ELIMIT,
                    "the answer would exceed the %zu-byte message limit; ask for less at a time",
                    k->cfg->max_message);
    return rc;
}

static void begin(struct call *k)
{
    kix_proto_begin_response(&k->pw, k->msgid);
}

/* A view of a NUL-terminated text. */
static struct kix_bytes text_view(const char *s)
{
    struct kix_bytes b = {(const uint8_t *)s, strlen(s)};
    return b;
}

/* KIX_NO_INDEX and KIX_MSG_ABSENT are the same "absent" value. */
_Static_assert(KIX_NO_INDEX == KIX_MSG_ABSENT, "absent index");
_Static_assert(KIX_MERKLE_MAX_PROOF == KIX_MSG_MAX_PROOF, "proof length");

static void copy_proof(uint8_t out[KIX_MSG_MAX_PROOF][32], const struct kix_hash *proof, size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out[i], proof[i].b, 32);
}

/* ---- the source: every read is a struct kix_source operation ------------------------
 *
 * A read method is an adapter: its params decoded by the message table,
 * one operation of the worker's source (kix/source.h), its answer encoded
 * by the table. The source is source_local.c over the store's log, bound
 * to the snapshot this request reads (the code a local client runs), or,
 * with --source URL, any other source (a static copy over HTTP). What is
 * kixd's own stays here: the limits, the readers' view of --ack-replicas
 * and what fits one message. */

/* The worker's source, bound to this request's snapshot. */
static int source(struct call *k, struct kix_source **out)
{
    struct kixd_worker *w = k->w;
    struct kix_log_reader *r;
    int rc;

    if (!w->source) {
        rc = k->srv->log
                 ? kix_source_open_log(k->srv->log, k->cfg->max_entries, &w->source, &k->err)
                 : kix_source_open_http(k->cfg->source, NULL, &w->source, &k->err);
        if (rc)
            return rc;
    }
    if (k->srv->log) {
        rc = reader(k, &r);
        if (rc)
            return rc;
        kix_source_bind_reader(w->source, r);
    }
    *out = w->source;
    return KIX_OK;
}

/* An operation the source does not offer (a static copy: receipts). */
static int unsupported(struct call *k, const char *what)
{
    return fail(k, KIX_ENOTSUP, "this kixd serves %s, which offers no %s", k->w->source->where,
                what);
}

/* The tree size of a checkpoint note ("origin\nsize\nroot\n…"). */
static uint64_t note_size(const struct kix_buf *note)
{
    const char *p = note->ptr ? memchr(note->ptr, '\n', note->len) : NULL;
    uint64_t n = 0;

    for (p = p ? p + 1 : NULL;
         p && p < (const char *)note->ptr + note->len && *p >= '0' && *p <= '9'; p++)
        n = n * 10 + (uint64_t)(*p - '0');
    return n;
}

/* The latest size a reader is given: with --ack-replicas, the one N
 * mirrors hold (EUNAVAIL before they hold any, replicas.h); a served
 * source's, its checkpoint's. */
static int latest(struct call *k, struct kix_source *src, uint64_t *size)
{
    struct kix_log_reader *r;
    struct kix_buf *note = &k->w->scratch;
    int rc;

    if (k->srv->log) {
        rc = reader(k, &r);
        return rc ? rc : kixd_replicas_reader_size(k->srv, kix_log_reader_size(r), size, &k->err);
    }
    kix_buf_reset(note);
    rc = src->ops->checkpoint(src, KIX_NO_INDEX, note, &k->err);
    *size = note_size(note);
    return rc;
}

/* For a reader's method: KIX_EUNAVAIL when `size` (for "entry", the size
 * that holds it) is past the view (the size N mirrors hold) though
 * committed here, saying so; 0 otherwise. */
static int beyond_view(struct call *k, uint64_t size, const char *what)
{
    struct kix_log_reader *own, *r = k->view;

    if (!r || size <= kix_log_reader_size(r) || kixd_worker_reader(k->w, &own, NULL) != KIX_OK ||
        size > kix_log_reader_size(own))
        return 0;
    return fail(k, KIX_EUNAVAIL,
                "%s %llu is not yet held by the %u mirrors this origin waits for (--ack-replicas; "
                "they hold size %llu): ask again once they do",
                what, (unsigned long long)(strcmp(what, "entry") == 0 ? size - 1 : size),
                k->cfg->ack_replicas, (unsigned long long)kix_log_reader_size(r));
}

/* Decodes the params of the method, by its table. */
static int params(struct call *k, const struct kix_msg_table *t, const size_t *max, void *out)
{
    return kix_msg_decode(k->params, t, max, out, &k->err);
}

/* Answers with the result by the method's table. */
static int answer(struct call *k, const void *result)
{
    begin(k);
    kix_msg_encode(&k->pw, k->method->result, result);
    return finish(k);
}

/* Copies of what a source hands to a callback (views valid only in it),
 * one after the other in the worker's scratch buffer, until `budget`
 * bytes (at least one item). */
struct copies {
    struct call *k;
    struct kix_buf *text;
    size_t *ends, n, cap, budget, bytes;
    int over; /* KIX_ELIMIT when the budget is the message limit */
};

#define FULL 1 /* a callback's "stop here": not an error */

static int copy_raw(struct copies *c, const void *p, size_t len)
{
    if (len && kix_buf_add(c->text, p, len))
        return fail(c->k, KIX_ENOMEM, "out of memory");
    c->ends[c->n++] = c->text->len;
    return 0;
}

static int copy_in(struct copies *c, const void *p, size_t len, size_t overhead)
{
    if (c->n == c->cap)
        return FULL;
    if (c->n > 0 && c->bytes + len + overhead > c->budget) {
        if (!c->over)
            return FULL;
        return fail(c->k, KIX_ELIMIT,
                    "the objects asked for exceed the %zu-byte message limit; ask for fewer at a "
                    "time",
                    c->k->cfg->max_message);
    }
    c->bytes += len + overhead;
    return copy_raw(c, p, len);
}

static struct kix_bytes copy_at(const struct copies *c, size_t i)
{
    size_t from = i ? c->ends[i - 1] : 0;
    struct kix_bytes b = {c->text->ptr ? c->text->ptr + from : (const uint8_t *)"",
                          c->ends[i] - from};
    return b;
}

static int copies_init(struct copies *c, struct call *k, size_t cap, size_t budget)
{
    memset(c, 0, sizeof(*c));
    c->k = k;
    c->text = &k->w->scratch;
    c->cap = cap;
    c->budget = budget;
    kix_buf_reset(c->text);
    c->ends = calloc(cap ? cap : 1, sizeof(*c->ends));
    return c->ends ? KIX_OK : fail(k, KIX_ENOMEM, "out of memory");
}

/* ---- info ------------------------------------------------------------------------------ */

static struct kix_bytes text_or_absent(const char *s)
{
    struct kix_bytes b = {NULL, 0};
    return s[0] ? text_view(s) : b;
}

static int m_info(struct call *k)
{
    struct kix_source *src;
    struct kixd_mirror_status st;
    struct kix_client_info *in = malloc(sizeof(*in));
    struct kix_msg_info m;
    int rc = in ? source(k, &src) : fail(k, KIX_ENOMEM, "out of memory");

    if (rc == KIX_OK)
        rc = src->ops->info(src, in, &k->err);
    if (rc)
        goto out;
    kix_wire_info_put(in, &m);
    if (k->srv->log && k->cfg->ack_replicas && !kix_log_is_replica(k->srv->log)) {
        /* readers get the size N mirrors hold (0 before they hold any);
         * mirrors replicate to the committed size */
        struct kix_log_reader *own;
        m.size = k->view ? m.size : 0;
        rc = kixd_worker_reader(k->w, &own, &k->err);
        if (rc)
            goto out;
        if (kix_log_reader_size(own) > m.size)
            m.committed = kix_log_reader_size(own);
    }
    m.version = text_view("kixd " KIX_VERSION_STRING);
    m.mirror = !k->srv->log || in->mirror; /* a served source is read-only */
    m.has_limits = true;
    m.limits.max_message = k->cfg->max_message;
    m.limits.max_in_flight = k->cfg->max_in_flight;
    m.limits.max_batch = k->cfg->max_batch;
    m.limits.max_entries = k->cfg->max_entries;
    m.limits.max_objects = k->cfg->max_objects;
    m.limits.max_checkpoints = CHECKPOINTS_MAX;
    m.limits.max_runs = QUERY_MAX;
    if (!k->srv->log)
        m.upstream = text_view(k->cfg->source);
    if (k->srv->mirror) {
        kixd_mirror_status(k->srv->mirror, &st);
        m.upstream = text_view(st.upstream);
        m.upstream_size = st.upstream_size;
        m.lag_entries = st.upstream_size > m.size ? st.upstream_size - m.size : 0;
        m.lag_seconds = st.lag_seconds;
        m.last_error = text_or_absent(st.last_error);
        if (st.fork) {
            m.has_fork = true;
            m.fork_size = st.fork_size;
            m.fork_reason = text_view(st.fork_reason);
            m.fork_evidence = text_view(st.fork_evidence);
        }
    }
    rc = answer(k, &m);
out:
    free(in);
    return rc;
}

/* ---- objects --------------------------------------------------------------------------- */

static int m_get_object(struct call *k)
{
    struct kix_source *src;
    struct kix_msg_get_object_params p;
    struct kix_msg_get_object_result res;
    struct kix_digest d;
    struct kix_buf *bytes = &k->w->scratch;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc)
        return rc;
    memcpy(d.b, p.digest, 32);
    kix_buf_reset(bytes);
    rc = src->ops->object ? src->ops->object(src, &d, bytes, &k->err) : unsupported(k, "objects");
    if (rc)
        return rc;
    res.object = kix_buf_bytes(bytes);
    if (!res.object.ptr)
        res.object.ptr = (const uint8_t *)"";
    return answer(k, &res);
}

static int keep_object(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct copies *c = ctx;
    int rc = copy_in(c, bytes, len, 0);
    if (rc == KIX_OK && !bytes)
        c->ends[c->n - 1] |= (size_t)1 << (sizeof(size_t) * 8 - 1); /* nil: not held */
    (void)i;
    return rc;
}

static int m_get_objects(struct call *k)
{
    struct kix_source *src;
    struct kix_msg_get_objects_params p;
    struct kix_msg_get_objects_result res = {0, NULL, NULL};
    struct kix_digest *d = NULL;
    struct kix_bytes *objs = NULL;
    struct copies c = {0};
    const size_t nil = (size_t)1 << (sizeof(size_t) * 8 - 1), max = k->cfg->max_objects;
    int rc = params(k, k->method->params, &max, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->objects)
        rc = unsupported(k, "objects");
    if (rc == KIX_OK)
        rc = copies_init(&c, k, p.ndigests, k->cfg->max_message);
    if (rc)
        goto out;
    c.over = 1;
    d = calloc(p.ndigests ? p.ndigests : 1, sizeof(*d));
    objs = calloc(p.ndigests ? p.ndigests : 1, sizeof(*objs));
    if (!d || !objs) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < p.ndigests; i++)
        memcpy(d[i].b, p.digests[i], 32);
    rc = src->ops->objects(src, d, p.ndigests, keep_object, &c, &k->err);
    if (rc)
        goto out;
    for (size_t i = 0; i < c.n; i++) {
        size_t end = c.ends[i] & ~nil, from = i ? c.ends[i - 1] & ~nil : 0;
        objs[i].ptr = c.ends[i] & nil ? NULL
                      : c.text->ptr   ? c.text->ptr + from
                                      : (const uint8_t *)"";
        objs[i].len = end - from;
    }
    res.nobjects = c.n;
    res.objects = objs;
    rc = answer(k, &res);
out:
    free(c.ends);
    free(d);
    free(objs);
    kix_msg_free(p.owned);
    return rc;
}

/* ---- entries, checkpoints, proofs -------------------------------------------------------- */

static int keep_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    (void)index;
    return copy_in(ctx, leaf, len, 5);
}

static int m_get_entries(struct call *k)
{
    struct kix_source *src;
    struct kix_msg_get_entries_params p;
    struct kix_msg_entries res;
    struct kix_bytes *leaves = NULL;
    struct copies c = {0};
    /* as many as fit the message, at least one */
    size_t budget = k->cfg->max_message > ((size_t)128 << 10)
                        ? k->cfg->max_message - ((size_t)64 << 10)
                        : k->cfg->max_message / 2;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc)
        return rc;
    if (p.count == 0)
        return fail(k, KIX_EINVAL, "count must be at least 1");
    if (p.count > k->cfg->max_entries)
        return fail(k, KIX_ELIMIT, "count %llu is over the limit of %u entries per request",
                    (unsigned long long)p.count, k->cfg->max_entries);
    rc = source(k, &src);
    if (rc == KIX_OK)
        rc = copies_init(&c, k, (size_t)p.count, budget);
    if (rc == KIX_OK)
        rc = src->ops->entries(src, p.start, p.count, keep_entry, &c, NULL, &k->err);
    if (rc == FULL)
        rc = KIX_OK;
    leaves = rc ? NULL : calloc(c.n ? c.n : 1, sizeof(*leaves));
    if (rc == KIX_OK && !leaves)
        rc = fail(k, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK) {
        for (size_t i = 0; i < c.n; i++)
            leaves[i] = copy_at(&c, i);
        memset(&res, 0, sizeof(res));
        res.start = p.start;
        res.nentries = c.n;
        res.entries = leaves;
        rc = answer(k, &res);
    }
    free(leaves);
    free(c.ends);
    return rc;
}

static int m_checkpoint(struct call *k)
{
    struct kix_source *src;
    struct kix_buf *text = &k->w->scratch;
    struct kix_msg_checkpoint_params p;
    struct kix_msg_checkpoint_result res;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc)
        return rc;
    if (p.size == KIX_NO_INDEX && !k->srv->log) {
        /* a served source's latest, as it serves it, read once */
        kix_buf_reset(text);
        rc = src->ops->checkpoint(src, KIX_NO_INDEX, text, &k->err);
        p.size = note_size(text);
    } else {
        if (p.size == KIX_NO_INDEX)
            rc = latest(k, src, &p.size);
        if (rc == KIX_OK)
            rc = beyond_view(k, p.size, "size");
        /* the note, then the witness cosignatures of it */
        kix_buf_reset(text);
        if (rc == KIX_OK)
            rc = src->ops->checkpoint(src, p.size, text, &k->err);
    }
    if (rc)
        return rc;
    res.checkpoint = kix_buf_bytes(text);
    res.size = p.size;
    return answer(k, &res);
}

struct one_proof {
    struct kix_msg_inclusion_result *res;
    bool leaf;
};

static int keep_proof(void *ctx, uint64_t index, const struct kix_hash *leaf,
                      const struct kix_hash *proof, size_t n)
{
    struct one_proof *o = ctx;
    (void)index;
    if (leaf) {
        memcpy(o->res->leaf_hash, leaf->b, 32);
        o->leaf = true;
    }
    o->res->nproof = n;
    copy_proof(o->res->proof, proof, n);
    return 0;
}

static int hash_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct kix_hash h;
    (void)index;
    kix_merkle_leaf_hash(leaf, len, &h);
    memcpy(ctx, h.b, 32);
    return 0;
}

static int m_inclusion_proof(struct call *k)
{
    struct kix_source *src;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_msg_index_params p;
    struct kix_msg_inclusion_result res;
    struct one_proof o = {&res, false};
    uint64_t got = 0;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc)
        return rc;
    if (p.size == KIX_NO_INDEX) {
        struct kix_log_reader *r;
        /* the committed size (not the view's): as kixd always answered */
        rc = k->srv->log ? reader(k, &r) : latest(k, src, &p.size);
        if (rc)
            return rc;
        if (k->srv->log)
            p.size = kix_log_reader_size(r);
    }
    if ((rc = beyond_view(k, p.size, "size")) != KIX_OK ||
        (rc = beyond_view(k, p.index + 1, "entry")) != KIX_OK)
        return rc;
    memset(&res, 0, sizeof(res));
    res.index = p.index;
    res.size = p.size;
    if (src->ops->inclusion_proofs) {
        rc = src->ops->inclusion_proofs(src, p.index, p.index + 1, p.size, keep_proof, &o, &k->err);
    } else {
        rc = src->ops->inclusion(src, p.index, p.size, proof, &res.nproof, &k->err);
        if (rc == KIX_OK)
            copy_proof(res.proof, proof, res.nproof);
    }
    /* a source without leaf hashes: the entry's */
    if (rc == KIX_OK && !o.leaf)
        rc = src->ops->entries(src, p.index, 1, hash_entry, res.leaf_hash, &got, &k->err);
    if (rc == KIX_OK && !o.leaf && got != 1)
        rc = fail(k, KIX_ENOTFOUND, "entry %llu is not in the log", (unsigned long long)p.index);
    return rc ? rc : answer(k, &res);
}

static int m_consistency_proof(struct call *k)
{
    struct kix_source *src;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_msg_consistency_params p;
    struct kix_msg_consistency_result res;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    /* to the latest a reader is given (replicas.h); an explicit size may
     * be past it: a mirror proves its replica against the committed log */
    if (rc == KIX_OK && p.size2 == KIX_NO_INDEX)
        rc = latest(k, src, &p.size2);
    if (rc == KIX_OK)
        rc = src->ops->consistency(src, p.size1, p.size2, proof, &res.nproof, &k->err);
    if (rc)
        return rc;
    res.size1 = p.size1;
    res.size2 = p.size2;
    copy_proof(res.proof, proof, res.nproof);
    return answer(k, &res);
}

static int m_receipt(struct call *k)
{
    struct kix_source *src;
    struct kix_buf *text = &k->w->scratch;
    struct kix_msg_index_params p;
    struct kix_msg_receipt_result res;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->receipt)
        rc = unsupported(k, "receipts");
    if (rc == KIX_OK && p.size == KIX_NO_INDEX)
        rc = latest(k, src, &p.size);
    if (rc == KIX_OK && (rc = beyond_view(k, p.size, "size")) == KIX_OK)
        rc = beyond_view(k, p.index + 1, "entry");
    if (rc)
        return rc;
    kix_buf_reset(text);
    rc = src->ops->receipt(src, p.index, p.size, text, &k->err);
    if (rc)
        return rc;
    res.receipt = kix_buf_bytes(text);
    return answer(k, &res);
}

/* ---- resolve --------------------------------------------------------------------------------- */

static int put_resolution(struct call *k, struct kix_source *src, const struct kix_resolution *res)
{
    struct kix_buf *link = &k->w->scratch;
    struct kix_client_info *info = malloc(sizeof(*info));
    struct kix_msg_resolve_result m = {0};
    int rc = info ? src->ops->info(src, info, &k->err) : fail(k, KIX_ENOMEM, "out of memory");

    kix_buf_reset(link);
    if (rc == KIX_OK && kix_permalink(info->origin, res->run.run_id, link))
        rc = fail(k, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = kix_wire_resolution_put(res, kix_buf_bytes(link), &m, &k->err);
    if (rc == KIX_OK)
        rc = answer(k, &m);
    kix_msg_free(m.owned);
    free(info);
    return rc;
}

static int m_resolve(struct call *k)
{
    struct kix_source *src;
    struct kix_resolution res;
    struct kix_msg_resolve_params p;
    char ref[KIX_MSG_REF_MAX + 1];
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->resolve)
        rc = unsupported(k, "resolutions");
    if (rc)
        return rc;
    memcpy(ref, p.ref.ptr, p.ref.len);
    ref[p.ref.len] = '\0';
    /* pages of at most --max-entries entries (kix_source_open_log): a run
     * with more is resolved in several answers, each proven
     * (kix_resolution_merge) */
    rc = src->ops->resolve(src, ref, p.from, &res, &k->err);
    if (rc == KIX_OK)
        rc = put_resolution(k, src, &res);
    kix_resolution_release(&res);
    return rc;
}

/* One key of the verifiable index with its proof, at the latest size. */
static int m_index_proof(struct call *k)
{
    struct kix_source *src;
    struct kix_msg_vindex_params p;
    struct kix_msg_vindex_result m;
    struct kix_index_answer a;
    char key[KIX_MSG_REF_MAX + 1];
    int rc = params(k, k->method->params, NULL, &p);

    if (rc == KIX_OK)
        rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->index_proof)
        rc = unsupported(k, "index proofs");
    if (rc)
        return rc;
    memcpy(key, p.key.ptr, p.key.len);
    key[p.key.len] = '\0';
    memset(&a, 0, sizeof(a));
    /* both notes with their witnesses' cosignatures, as every answer that
     * carries them: a reader with --min-witnesses counts them */
    rc = src->ops->index_proof(src, key, &a, &k->err);
    if (rc == KIX_OK) {
        memset(&m, 0, sizeof(m));
        m.key = p.key;
        m.present = a.present;
        m.record = kix_buf_bytes(&a.record);
        m.proof = kix_buf_bytes(&a.proof);
        m.checkpoint = kix_buf_bytes(&a.checkpoint);
        m.index_note = kix_buf_bytes(&a.index_note);
        m.size = note_size(&a.checkpoint);
        rc = answer(k, &m);
    }
    kix_buf_release(&a.record);
    kix_buf_release(&a.proof);
    kix_buf_release(&a.checkpoint);
    kix_buf_release(&a.index_note);
    return rc;
}

/* ---- checkpoints, query ------------------------------------------------------------------ */

/* The checkpoints that fit half a message (at least one): each note then
 * its index note (maybe empty), two copies an item. */
static int keep_checkpoint(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                           const uint8_t *index_note, size_t index_len)
{
    struct copies *c = ctx;
    uint64_t *sizes = (uint64_t *)(void *)(c->ends + c->cap);
    int rc;

    if (c->n == c->cap || (c->n > 0 && c->bytes + len + index_len + 48 > c->budget))
        return FULL;
    sizes[c->n / 2] = size;
    c->bytes += len + index_len + 48;
    rc = copy_raw(c, note, len);
    return rc ? rc : copy_raw(c, index_note, index_len);
}

static int m_checkpoints(struct call *k)
{
    struct kix_source *src;
    struct kix_msg_checkpoints_params p;
    struct kix_msg_checkpoints_result res = {0, NULL, NULL};
    struct kix_msg_checkpoint_item *items = NULL;
    struct copies c = {0};
    int rc = params(k, k->method->params, NULL, &p);

    if (rc)
        return rc;
    if (p.limit == KIX_MSG_ABSENT)
        p.limit = 100;
    if (p.limit == 0 || p.limit > CHECKPOINTS_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", CHECKPOINTS_MAX);
    rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->checkpoints)
        rc = unsupported(k, "list of checkpoints");
    /* room for two copies and one size per checkpoint */
    if (rc == KIX_OK)
        rc = copies_init(&c, k, 3 * (size_t)p.limit, k->cfg->max_message / 2);
    if (rc)
        return rc;
    c.cap = 2 * (size_t)p.limit;
    items = calloc((size_t)p.limit, sizeof(*items));
    rc = items ? src->ops->checkpoints(src, p.after, (size_t)p.limit, keep_checkpoint, &c, &k->err)
               : fail(k, KIX_ENOMEM, "out of memory");
    if (rc == FULL)
        rc = KIX_OK;
    if (rc)
        goto out;
    for (size_t i = 0; i < c.n / 2; i++) {
        items[i].size = ((uint64_t *)(void *)(c.ends + c.cap))[i];
        items[i].checkpoint = copy_at(&c, 2 * i);
        items[i].index_note = copy_at(&c, 2 * i + 1);
        if (!items[i].index_note.len)
            items[i].index_note.ptr = NULL;
    }
    res.ncheckpoints = c.n / 2;
    res.checkpoints = items;
    rc = answer(k, &res);
out:
    free(c.ends);
    free(items);
    return rc;
}

struct query_rows {
    struct kix_query_row *rows;
    size_t n, cap;
};

static int keep_row(void *arg, const struct kix_query_row *row)
{
    struct query_rows *q = arg;
    if (q->n == q->cap)
        return FULL;
    q->rows[q->n++] = *row;
    return 0;
}

static int m_query(struct call *k)
{
    struct kix_source *src;
    struct kix_wire_query w;
    struct kix_msg_query_params p;
    struct kix_msg_query_result res = {0, 0, NULL, NULL};
    struct kix_msg_query_run *runs = NULL;
    struct query_rows rows = {NULL, 0, 0};
    uint64_t matched = 0;
    int rc = params(k, k->method->params, NULL, &p);

    if (rc)
        return rc;
    kix_wire_query_get(&p, &w);
    if (w.q.limit == 0 || w.q.limit > QUERY_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", QUERY_MAX);
    rc = source(k, &src);
    if (rc == KIX_OK && !src->ops->query)
        rc = unsupported(k, "queries");
    if (rc)
        return rc;
    rows.cap = (size_t)w.q.limit;
    rows.rows = malloc(rows.cap * sizeof(*rows.rows));
    runs = calloc(rows.cap, sizeof(*runs));
    if (!rows.rows || !runs) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = src->ops->query(src, &w.q, keep_row, &rows, &matched, &k->err);
    if (rc == FULL)
        rc = KIX_OK;
    if (rc)
        goto out;
    for (size_t i = 0; i < rows.n; i++)
        kix_wire_row_put(&rows.rows[i], &runs[i]);
    res.matched = matched;
    res.nruns = rows.n;
    res.runs = runs;
    rc = answer(k, &res);
out:
    free(rows.rows);
    free(runs);
    return rc;
}

/* ---- submit ---------------------------------------------------------------------------------- */

static int m_submit(struct call *k)
{
    struct kixd_conn *c = k->c;
    struct kix_msg_submit_params p;
    struct kixd_submit *job;
    size_t total = 0, frame = k->msg->frame_len, busy;
    int rc;

    if (kix_log_is_replica(k->srv->log))
        return fail(k, KIX_EREADONLY,
                    "this kixd serves a read-only mirror of %s; submit to the log's own server",
                    kix_log_origin(k->srv->log));
    if (atomic_load(&k->srv->stopping))
        return fail(k, KIX_EUNAVAIL, "kixd is stopping; submit again once it is back");
    rc = kix_msg_get_submit_params(k->params, k->cfg->max_batch, &p, &k->err);
    if (rc)
        return rc;
    for (size_t i = 0; i < p.nbundles; i++)
        total += p.bundles[i].nobjects;
    /* open notes come from keys anyone can make: the rate limits of POST
     * /submit bound them on this port too (registered keys are the admin's
     * to trust) */
    for (size_t i = 0; i < p.nbundles; i++) {
        struct kix_entry_summary s;
        char why[KIX_ERR_MSG_MAX];
        /* this loop runs on the event loop: the statement is parsed (and
         * its predicate described) only for what may be an open note */
        if (k->cfg->http_submit_rate &&
            kix_entry_may_be_open_note(p.bundles[i].envelope.ptr, p.bundles[i].envelope.len) &&
            kix_entry_describe(p.bundles[i].envelope.ptr, p.bundles[i].envelope.len, &s, NULL) ==
                KIX_OK &&
            s.open_note && kixd_open_note_limited(k->cfg, c->peer, s.signer, why, sizeof(why))) {
            rc = fail(k, KIX_ELIMIT, "%s", why);
            goto out;
        }
    }
    busy = atomic_load(&k->srv->submit_bytes);
    if (busy > 0 && busy + frame > k->cfg->max_submit_bytes) {
        rc = fail(k, KIX_EUNAVAIL,
                  "kixd is busy verifying %zu bytes of submissions; retry in a moment", busy);
        goto out;
    }
    job = kixd_submit_new(p.nbundles, total);
    if (!job) {
        rc = fail(k, KIX_ENOMEM, "out of memory accepting %zu bundles", p.nbundles);
        goto out;
    }
    total = 0;
    for (size_t i = 0; i < p.nbundles; i++) {
        const struct kix_msg_bundle *b = &p.bundles[i];
        if (b->nobjects)
            memcpy(job->objs + total, b->objects, b->nobjects * sizeof(*b->objects));
        job->subs[i].envelope = b->envelope;
        job->subs[i].objects = job->objs + total;
        job->subs[i].nobjects = b->nobjects;
        total += b->nobjects;
    }
    job->conn = c;
    job->w = k->w;
    job->srv = k->srv;
    job->msgid = k->msgid;
    job->req_id = k->req_id;
    job->started_ms = k->started_ms;
    job->frame_len = frame;
    /* the job takes the message: the views above point into it */
    job->msg = *k->msg;
    kix_proto_msg_init(k->msg);
    c->in_flight++;
    c->inflight_bytes += frame;
    c->refs++;
    k->w->jobs++;
    atomic_fetch_add(&k->srv->submit_bytes, frame);
    /* receive: the frame's decode to here */
    kixd_cpu_clock_add(&c->decode_clock, &k->srv->phase_receive_ns);
    kixd_submit_start(job);
    rc = ASYNC;
out:
    kix_msg_free(p.owned);
    return rc;
}

/* The receipts (or the errors that replaced them) of every item, one after
 * the other in text: items[i]'s text ends at ends[i]. */
static int submit_results(struct call *k, struct kixd_submit *job)
{
    struct kix_log_reader *r;
    struct kix_buf *text = &k->w->scratch;
    struct kix_msg_submit_result res;
    struct kix_msg_submit_item *items = NULL;
    size_t *ends = NULL;
    int rc = reader(k, &r);

    if (rc)
        return rc;
    items = calloc(job->n ? job->n : 1, sizeof(*items));
    ends = calloc(job->n ? job->n : 1, sizeof(*ends));
    if (!items || !ends) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    kix_buf_reset(text);
    for (size_t i = 0; i < job->n; i++) {
        const struct kix_append_result *a = &job->results[i];
        struct kix_err err = {0};
        if (a->code) {
            items[i].code = a->code;
            items[i].message = text_view(a->message);
        } else {
            size_t before = text->len;
            /* at the size the mirrors hold with --ack-replicas (replicas.c) */
            rc = kix_log_reader_receipt(r, a->index, job->receipt_size, text, &err);
            if (rc)
                text->len = before; /* drop a partial receipt */
            if (rc && kix_buf_adds(text, kix_err_text(&err, rc))) {
                rc = fail(k, KIX_ENOMEM, "out of memory");
                goto out;
            }
            items[i].code = rc;
            items[i].index = a->index;
            memcpy(items[i].leaf_hash, a->leaf_hash.b, 32);
            items[i].duplicate = a->duplicate != 0;
        }
        ends[i] = text->len;
    }
    /* the text is complete: point into it */
    for (size_t i = 0; i < job->n; i++) {
        size_t from = i ? ends[i - 1] : 0;
        struct kix_bytes b = {text->ptr + from, ends[i] - from};
        if (job->results[i].code)
            continue;
        if (items[i].code)
            items[i].message = b;
        else
            items[i].receipt = b;
    }
    res.nresults = job->n;
    res.results = items;
    res.size = job->size ? job->size : kix_log_reader_size(r);
    res.owned = NULL;
    begin(k);
    kix_msg_put_submit_result(&k->pw, &res);
    rc = finish(k);
out:
    free(items);
    free(ends);
    return rc;
}

/* ---- add_cosignature ------------------------------------------------------------------------- */

static int m_add_cosignature(struct call *k)
{
    struct kix_msg_add_cosignature_params p;
    int rc = kix_msg_get_add_cosignature_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = kixd_witness_add(k->c, k->msgid, &p.checkpoint, &p.cosignature, &k->err);
    return rc ? rc : ASYNC;
}

/* ---- follow ---------------------------------------------------------------------------------- */

static int m_follow(struct call *k)
{
    struct kix_msg_follow_params p;
    int rc = kix_msg_get_follow_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = kixd_follow_start(k->c, k->msgid, p.from, p.replica, &k->err);
    return rc ? rc : ASYNC;
}

/* ---- replicated ------------------------------------------------------------------------------ */

static int m_replicated(struct call *k)
{
    struct kix_msg_replicated_params p;
    struct kix_msg_size_result res;
    struct kix_log_reader *r;
    int rc = kix_msg_get_replicated_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    if (!k->c->following)
        return fail(k, KIX_EINVAL, "replicated is sent on a follow stream (call follow first)");
    rc = reader(k, &r);
    if (rc)
        return rc;
    res.size = 0; /* a mirror (of a mirror) counts no mirrors */
    if (k->srv->replicas)
        rc = kixd_replicas_report(k->srv, r, &p, &res.size, &k->err);
    if (rc)
        return rc;
    begin(k);
    kix_msg_put_follow_result(&k->pw, &res);
    return finish(k);
}

/* ---- dispatch -------------------------------------------------------------------------------- */

/* view: a reader's method, answered from the size N mirrors hold
 * (replicas.h); the others read what is committed: a mirror replicates
 * from them (entries, checkpoints, objects), or they write. store: the
 * method needs the store (writes, follow, mirrors' reports), which a kixd
 * serving a source (--source) has not. */
static const struct method {
    const char *name;
    int (*fn)(struct call *k);
    int view, store;
} methods[] = {
    {"info", m_info, 1, 0},
    {"submit", m_submit, 0, 1},
    {"get_object", m_get_object, 0, 0},
    {"get_objects", m_get_objects, 0, 0},
    {"get_entries", m_get_entries, 0, 0},
    {"checkpoint", m_checkpoint, 1, 0},
    {"inclusion_proof", m_inclusion_proof, 1, 0},
    {"consistency_proof", m_consistency_proof, 0, 0},
    {"receipt", m_receipt, 1, 0},
    {"resolve", m_resolve, 1, 0},
    {"index_proof", m_index_proof, 1, 0},
    {"checkpoints", m_checkpoints, 0, 0},
    {"query", m_query, 1, 0},
    {"follow", m_follow, 0, 1},
    {"add_cosignature", m_add_cosignature, 0, 1},
    {"replicated", m_replicated, 0, 1},
};
_Static_assert(sizeof(methods) / sizeof(methods[0]) < KIXD_RPC_UNKNOWN,
               "raise KIXD_RPC_SLOTS (metrics.h) for the metrics of every method");

static void call_init(struct call *k, struct kixd_conn *c, struct kix_proto_msg *msg)
{
    k->c = c;
    k->w = c->w;
    k->srv = c->w->srv;
    k->cfg = k->srv->cfg;
    k->msg = msg;
    k->msgid = msg ? msg->msgid : 0;
    k->params = msg ? msg->params : NULL;
    k->method = NULL;
    k->view = NULL;
    k->view_locked = 0;
    kix_err_clear(&k->err);
    kix_proto_writer_init(&k->pw, &c->out);
    k->pw.max_message = k->cfg->max_message;
}

/* Replaces whatever the method began with an error answer. */
static void answer_error(struct call *k, size_t start, uint32_t msgid, int rc)
{
    struct kix_err werr = {0};

    if (k->pw.active) {
        /* end the partial answer (it fails as incomplete and is removed) */
        struct kix_err ignore = {0};
        if (kix_proto_writer_end(&k->pw, &ignore) == KIX_OK)
            k->c->out.len = start;
    }
    k->c->out.len = start;
    if (k->c->out.ptr)
        k->c->out.ptr[start] = '\0';
    if (rc >= 0)
        rc = KIX_EINVAL;
    if (kix_proto_write_error(&k->pw, msgid, rc, kix_err_text(&k->err, rc), &werr) != KIX_OK)
        kixd_conn_close(k->c, KIXD_WARN, "out of memory answering an error");
}

/* The line about a request once answered: a refusal at info (a failure
 * of kixd itself at warn), a slow answer at warn. */
static void log_answer(uint64_t id, const char *method, const char *peer, int rc,
                       const struct kix_err *err, double started)
{
    double ms = kixd_now_ms() - started;
    int slow = ms >= (double)kixd_log_slow_ms();
    int refusal = rc == KIX_EPOLICY || rc == KIX_EVERIFY || rc == KIX_EINVAL || rc == KIX_ELIMIT ||
                  rc == KIX_ENOTFOUND || rc == KIX_EPROTO;

    if (rc)
        kixd_log_request(refusal ? KIXD_INFO : KIXD_WARN, id, method, peer, rc, ms,
                         "request refused: %s", kix_err_text(err, rc));
    else if (slow)
        kixd_log_request(KIXD_WARN, id, method, peer, 0, ms, "slow request");
}

void kixd_dispatch(struct kixd_conn *c, struct kix_proto_msg *msg)
{
    const struct method *m = NULL;
    struct call k;
    size_t start = c->out.len;
    uint64_t id = kixd_request_id();
    double started = kixd_now_ms();
    int rc;

    KIXD_ASSERT_LOOP(c->w);
    assert(!c->closing);
    call_init(&k, c, msg);
    k.req_id = id;
    k.started_ms = started;
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (strlen(methods[i].name) == msg->method.len &&
            memcmp(methods[i].name, msg->method.ptr, msg->method.len) == 0) {
            m = &methods[i];
            break;
        }
    }
    rc = KIX_OK;
    if (m)
        k.method = kix_msg_method_find(m->name, strlen(m->name));
    if (!m) {
        rc =
            fail(&k, KIX_EINVAL, "unknown method \"%.*s\" (proto/PROTOCOL.md lists the methods)",
                 (int)(msg->method.len > 64 ? 64 : msg->method.len), (const char *)msg->method.ptr);
    } else if (!c->w->srv->log) {
        if (m->store)
            rc = fail(&k, KIX_EREADONLY,
                      "this kixd serves %s read-only (--source): %s goes to the log's own server",
                      k.cfg->source, m->name);
    } else if (m->view) {
        rc = kixd_worker_view(c->w, &k.view, &k.view_locked, &k.err);
        /* before N mirrors hold anything, info still answers (size 0) */
        if (rc == KIX_EUNAVAIL && m->fn == m_info) {
            k.view = NULL;
            rc = KIX_OK;
        }
    }
    if (m && rc == KIX_OK) {
        rc = m->fn(&k);
        kix_source_bind_reader(c->w->source, NULL); /* the snapshot ends with the callback */
        kixd_replicas_view_end(k.srv, k.view_locked);
    }
    kixd_metrics_rpc(c->w->srv, m ? (unsigned)(m - methods) : KIXD_RPC_UNKNOWN, m ? m->name : NULL,
                     rc == ASYNC || rc == KIX_OK);
    if (rc == ASYNC) /* submit's job logs its own answer (kixd_submit_answer) */
        return;
    log_answer(id, m ? m->name : "(unknown method)", c->peer, rc == KIX_OK ? 0 : rc, &k.err,
               started);
    if (rc == KIX_OK)
        return;
    answer_error(&k, start, msg->msgid, rc);
}

struct kixd_conn *kixd_submit_answer_unflushed(struct kixd_submit *job)
{
    struct kixd_conn *c = job->conn;
    struct kixd_cpu_clock clk;
    struct call k;
    size_t start;
    int rc;

    KIXD_ASSERT_LOOP(job->w);
    /* answered once: after its commit, or at once when prepare refused all */
    assert(job->state == KIXD_SUBMIT_COMMITTED ||
           (job->state == KIXD_SUBMIT_PREPARING && job->nprepared == 0));
    if (job->answer) {
        job->answer(job);
        return NULL;
    }
    if (c->closing)
        return NULL;
    kixd_cpu_clock_start(&clk, job->srv->cfg->phase_stats);
    call_init(&k, c, NULL);
    start = c->out.len;
    if (job->rc) {
        k.err = job->err;
        rc = job->rc;
    } else {
        k.msgid = job->msgid;
        rc = submit_results(&k, job);
    }
    /* each refused bundle, then the request as a whole */
    for (size_t i = 0; rc == KIX_OK && !job->rc && i < job->n; i++)
        if (job->results[i].code)
            kixd_log_request(KIXD_INFO, job->req_id, "submit", c->peer, job->results[i].code,
                             kixd_now_ms() - job->started_ms, "bundle %zu of %zu refused: %s", i,
                             job->n, job->results[i].message);
    log_answer(job->req_id, "submit", c->peer, rc, &k.err, job->started_ms);
    if (rc)
        answer_error(&k, start, job->msgid, rc);
    kixd_cpu_clock_add(&clk, &job->srv->phase_answer_ns);
    return c;
}

void kixd_submit_answer(struct kixd_submit *job)
{
    struct kixd_conn *c = kixd_submit_answer_unflushed(job);
    struct kixd_cpu_clock clk;

    if (!c)
        return;
    kixd_cpu_clock_start(&clk, job->srv->cfg->phase_stats);
    kixd_conn_flush(c, 1);
    kixd_cpu_clock_add(&clk, &job->srv->phase_answer_ns);
}
