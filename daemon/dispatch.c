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

/* ---- info ------------------------------------------------------------------------------ */

static int m_info(struct call *k)
{
    struct kix_log_reader *r;
    struct kixd_mirror_status st;
    struct kix_msg_info m;
    int rc = reader(k, &r);

    if (rc)
        return rc;
    kix_msg_info_init(&m);
    m.origin = text_view(kix_log_origin(k->srv->log));
    m.log_key = text_view(k->srv->log_key);
    m.size = kix_log_reader_size(r);
    if (k->cfg->ack_replicas && !kix_log_is_replica(k->srv->log)) {
        /* readers get the size N mirrors hold (0 before they hold any);
         * mirrors replicate to the committed size */
        struct kix_log_reader *own;
        m.size = k->view ? m.size : 0;
        rc = kixd_worker_reader(k->w, &own, &k->err);
        if (rc)
            return rc;
        if (kix_log_reader_size(own) > m.size)
            m.committed = kix_log_reader_size(own);
    }
    m.version = text_view("kixd " KIX_VERSION_STRING);
    m.mirror = kix_log_is_replica(k->srv->log) != 0;
    m.has_limits = true;
    m.limits.max_message = k->cfg->max_message;
    m.limits.max_in_flight = k->cfg->max_in_flight;
    m.limits.max_batch = k->cfg->max_batch;
    m.limits.max_entries = k->cfg->max_entries;
    m.limits.max_objects = k->cfg->max_objects;
    m.limits.max_checkpoints = CHECKPOINTS_MAX;
    m.limits.max_runs = QUERY_MAX;
    if (k->srv->mirror) {
        kixd_mirror_status(k->srv->mirror, &st);
        m.upstream = text_view(st.upstream);
        m.upstream_size = st.upstream_size;
        m.lag_entries = st.upstream_size > m.size ? st.upstream_size - m.size : 0;
        m.lag_seconds = st.lag_seconds;
        if (st.last_error[0])
            m.last_error = text_view(st.last_error);
        if (st.fork) {
            m.has_fork = true;
            m.fork_size = st.fork_size;
            m.fork_reason = text_view(st.fork_reason);
            m.fork_evidence = text_view(st.fork_evidence);
        }
    }
    begin(k);
    kix_msg_put_info_result(&k->pw, &m);
    return finish(k);
}

/* ---- objects --------------------------------------------------------------------------- */

static int m_get_object(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_msg_get_object_params p;
    struct kix_msg_get_object_result res;
    struct kix_digest d;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_msg_get_get_object_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    memcpy(d.b, p.digest, 32);
    rc = kix_log_reader_object(r, &d, &res.object);
    if (rc) {
        kix_digest_format(&d, text); /* only for the refusal: this is the hot path */
        return rc == KIX_ENOTFOUND ? fail(k, rc, "object %s is not in this log", text)
                                   : fail(k, rc, "reading object %s: %s", text, kix_strerror(rc));
    }
    begin(k);
    kix_msg_put_get_object_result(&k->pw, &res);
    return finish(k);
}

static int m_get_objects(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_msg_get_objects_params p;
    struct kix_msg_get_objects_result res = {0, NULL, NULL};
    struct kix_bytes *objs = NULL;
    size_t total = 0;
    int rc = kix_msg_get_get_objects_params(k->params, k->cfg->max_objects, &p, &k->err);

    if (rc)
        goto out;
    rc = reader(k, &r);
    if (rc)
        goto out;
    objs = calloc(p.ndigests ? p.ndigests : 1, sizeof(*objs));
    if (!objs) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < p.ndigests; i++) {
        struct kix_digest d;
        char text[KIX_DIGEST_TEXT_LEN + 1];
        memcpy(d.b, p.digests[i], 32);
        rc = kix_log_reader_object(r, &d, &objs[i]);
        if (rc == KIX_ENOTFOUND) {
            objs[i].ptr = NULL; /* answered nil */
            rc = KIX_OK;
            continue;
        }
        if (rc) {
            kix_digest_format(&d, text);
            rc = fail(k, rc, "reading object %s: %s", text, kix_strerror(rc));
            goto out;
        }
        if (!objs[i].ptr)
            objs[i].ptr = (const uint8_t *)"";
        total += objs[i].len;
        if (total > k->cfg->max_message) {
            rc = fail(k, KIX_ELIMIT,
                      "the objects asked for exceed the %zu-byte message limit; ask for fewer "
                      "at a time",
                      k->cfg->max_message);
            goto out;
        }
    }
    res.nobjects = p.ndigests;
    res.objects = objs;
    begin(k);
    kix_msg_put_get_objects_result(&k->pw, &res);
    rc = finish(k);
out:
    free(objs);
    kix_msg_free(p.owned);
    return rc;
}

/* ---- entries, checkpoints, proofs -------------------------------------------------------- */

static int m_get_entries(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_msg_get_entries_params p;
    struct kix_msg_entries res;
    struct kix_bytes *leaves = NULL;
    uint64_t size, end, n = 0;
    size_t bytes = 0, budget = k->cfg->max_message > ((size_t)128 << 10)
                                   ? k->cfg->max_message - ((size_t)64 << 10)
                                   : k->cfg->max_message / 2;
    int rc = kix_msg_get_get_entries_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    if (p.count == 0)
        return fail(k, KIX_EINVAL, "count must be at least 1");
    if (p.count > k->cfg->max_entries)
        return fail(k, KIX_ELIMIT, "count %llu is over the limit of %u entries per request",
                    (unsigned long long)p.count, k->cfg->max_entries);
    rc = reader(k, &r);
    if (rc)
        return rc;
    size = kix_log_reader_size(r);
    end = p.start >= size ? p.start : (size - p.start < p.count ? size : p.start + p.count);
    leaves = calloc(end > p.start ? (size_t)(end - p.start) : 1, sizeof(*leaves));
    if (!leaves)
        return fail(k, KIX_ENOMEM, "out of memory");
    /* as many as fit the message, at least one */
    for (uint64_t i = p.start; i < end; i++, n++) {
        rc = kix_log_reader_entry(r, i, &leaves[n]);
        if (rc) {
            rc = fail(k, KIX_ECORRUPT, "entry %llu is missing from the store",
                      (unsigned long long)i);
            goto out;
        }
        if (n > 0 && bytes + leaves[n].len + 5 > budget)
            break;
        bytes += leaves[n].len + 5;
    }
    memset(&res, 0, sizeof(res));
    res.start = p.start;
    res.nentries = (size_t)n;
    res.entries = leaves;
    begin(k);
    kix_msg_put_get_entries_result(&k->pw, &res);
    rc = finish(k);
out:
    free(leaves);
    return rc;
}

/* The latest size a reader is given into *size (replicas.h: with
 * --ack-replicas, the one N mirrors hold; EUNAVAIL before they hold any). */
static int latest_for_readers(struct call *k, struct kix_log_reader *r, uint64_t *size)
{
    return kixd_replicas_reader_size(k->srv, kix_log_reader_size(r), size, &k->err);
}

/* For a reader's method: KIX_EUNAVAIL when `size` (for "entry", the size
 * that holds it) is past the view (the size N mirrors hold) though
 * committed here, saying so; 0 otherwise. */
static int beyond_view(struct call *k, struct kix_log_reader *r, uint64_t size, const char *what)
{
    struct kix_log_reader *own;

    if (!k->view || size <= kix_log_reader_size(r) ||
        kixd_worker_reader(k->w, &own, NULL) != KIX_OK || size > kix_log_reader_size(own))
        return 0;
    return fail(k, KIX_EUNAVAIL,
                "%s %llu is not yet held by the %u mirrors this origin waits for (--ack-replicas; "
                "they hold size %llu): ask again once they do",
                what, (unsigned long long)(strcmp(what, "entry") == 0 ? size - 1 : size),
                k->cfg->ack_replicas, (unsigned long long)kix_log_reader_size(r));
}

static int m_checkpoint(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_bytes note;
    struct kix_buf *text = &k->w->scratch;
    struct kix_msg_checkpoint_params p;
    struct kix_msg_checkpoint_result res;
    int rc = kix_msg_get_checkpoint_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    if (p.size == KIX_NO_INDEX && (rc = latest_for_readers(k, r, &p.size)) != KIX_OK)
        return rc;
    if ((rc = beyond_view(k, r, p.size, "size")) != KIX_OK)
        return rc;
    rc = kix_log_reader_checkpoint(r, p.size, &note);
    if (rc == KIX_ENOTFOUND)
        return fail(k, rc,
                    "no signed checkpoint at size %llu (the log has %llu entries; there is one at "
                    "each size the log was committed at)",
                    (unsigned long long)p.size, (unsigned long long)kix_log_reader_size(r));
    if (rc)
        return fail(k, rc, "reading the checkpoint: %s", kix_strerror(rc));
    /* the note, then the witness cosignatures of it */
    kix_buf_reset(text);
    rc = kix_log_reader_checkpoint_cosigned(r, p.size, text, &k->err);
    if (rc)
        return rc;
    res.checkpoint = kix_buf_bytes(text);
    res.size = p.size;
    begin(k);
    kix_msg_put_checkpoint_result(&k->pw, &res);
    return finish(k);
}

static int m_inclusion_proof(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], leaf;
    struct kix_msg_index_params p;
    struct kix_msg_inclusion_result res;
    size_t n = 0;
    int rc = kix_msg_get_index_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    if (p.size == KIX_NO_INDEX)
        p.size = kix_log_reader_size(r);
    if ((rc = beyond_view(k, r, p.size, "size")) != KIX_OK ||
        (rc = beyond_view(k, r, p.index + 1, "entry")) != KIX_OK)
        return rc;
    rc = kix_log_reader_inclusion(r, p.index, p.size, proof, &n, &k->err);
    if (rc)
        return rc;
    rc = kix_log_reader_leaf_hash(r, p.index, &leaf, &k->err);
    if (rc)
        return rc;
    res.index = p.index;
    res.size = p.size;
    memcpy(res.leaf_hash, leaf.b, 32);
    res.nproof = n;
    copy_proof(res.proof, proof, n);
    begin(k);
    kix_msg_put_inclusion_result(&k->pw, &res);
    return finish(k);
}

static int m_consistency_proof(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_msg_consistency_params p;
    struct kix_msg_consistency_result res;
    size_t n = 0;
    int rc = kix_msg_get_consistency_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    /* to the latest a reader is given (replicas.h); an explicit size may
     * be past it: a mirror proves its replica against the committed log */
    if (p.size2 == KIX_NO_INDEX && (rc = latest_for_readers(k, r, &p.size2)) != KIX_OK)
        return rc;
    rc = kix_log_reader_consistency(r, p.size1, p.size2, proof, &n, &k->err);
    if (rc)
        return rc;
    res.size1 = p.size1;
    res.size2 = p.size2;
    res.nproof = n;
    copy_proof(res.proof, proof, n);
    begin(k);
    kix_msg_put_consistency_result(&k->pw, &res);
    return finish(k);
}

static int m_receipt(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_buf *text = &k->w->scratch;
    struct kix_msg_index_params p;
    struct kix_msg_receipt_result res;
    int rc = kix_msg_get_index_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    if (p.size == KIX_NO_INDEX) {
        rc = latest_for_readers(k, r, &p.size);
        if (rc)
            return rc;
    }
    if ((rc = beyond_view(k, r, p.size, "size")) != KIX_OK ||
        (rc = beyond_view(k, r, p.index + 1, "entry")) != KIX_OK)
        return rc;
    kix_buf_reset(text);
    rc = kix_log_reader_receipt(r, p.index, p.size, text, &k->err);
    if (rc)
        return rc;
    res.receipt = kix_buf_bytes(text);
    begin(k);
    kix_msg_put_receipt_result(&k->pw, &res);
    return finish(k);
}

/* ---- resolve --------------------------------------------------------------------------------- */

static int put_resolution(struct call *k, const struct kix_resolution *res)
{
    const struct kix_run_info *run = &res->run;
    struct kix_buf *link = &k->w->scratch;
    struct kix_msg_resolve_result m;
    struct kix_msg_resolve_object *objs = NULL;
    struct kix_msg_resolve_entry *ents = NULL;
    int rc;

    memset(&m, 0, sizeof(m));
    kix_buf_reset(link);
    objs = calloc(res->nobjects ? res->nobjects : 1, sizeof(*objs));
    ents = calloc(res->nentries ? res->nentries : 1, sizeof(*ents));
    if (!objs || !ents || kix_permalink(kix_log_origin(k->srv->log), run->run_id, link)) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    m.run_id = text_view(run->run_id);
    memcpy(m.digest, run->manifest.b, 32);
    m.permalink = kix_buf_bytes(link);
    m.evidence = text_view(kix_evidence_name(run->evidence));
    m.evidence_index = run->evidence_index;
    if (res->successor[0])
        m.successor = text_view(res->successor);
    if (res->predecessor[0])
        m.predecessor = text_view(res->predecessor);
    m.superseded_by_index = run->superseded_by_index;
    m.supersedes_index = run->supersedes_index;
    if (res->rank.rank) {
        m.ranked = true;
        memcpy(m.comparison_key, run->comparison_key.b, 32);
        m.rank = res->rank.rank;
        m.group_size = res->rank.group_size;
        m.best = text_view(res->rank.best);
    }
    memcpy(m.publisher, run->publisher, 32);
    m.publication_index = run->publication_index;
    m.attestations = run->attestations;
    m.reruns = run->reruns;
    m.manifest = res->manifest;
    for (size_t i = 0; i < res->nobjects; i++) {
        memcpy(objs[i].digest, res->objects[i].digest.b, 32);
        objs[i].object = res->objects[i].bytes;
    }
    for (size_t i = 0; i < res->nentries; i++) {
        const struct kix_resolution_entry *e = &res->entries[i];
        ents[i].index = e->index;
        ents[i].type = text_view(kix_entry_type_name(e->type));
        ents[i].leaf = e->leaf;
        ents[i].nproof = e->nproof;
        copy_proof(ents[i].proof, e->proof, e->nproof);
    }
    m.nobjects = res->nobjects;
    m.objects = objs;
    m.nentries = res->nentries;
    m.entries = ents;
    m.index_note = res->index_note;
    m.run_record = res->run_record;
    m.run_proof = res->run_proof;
    m.group_record = res->group_record;
    m.group_proof = res->group_proof;
    m.group_page = res->group_page;
    m.group_page_proof = res->group_page_proof;
    m.entries_from = res->entries_from;
    m.checkpoint = res->checkpoint;
    m.size = res->size;
    begin(k);
    kix_msg_put_resolve_result(&k->pw, &m);
    rc = finish(k);
out:
    free(objs);
    free(ents);
    return rc;
}

static int m_resolve(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_resolution res;
    struct kix_msg_resolve_params p;
    int rc = kix_msg_get_resolve_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    /* pages of at most --max-entries entries: a run with more is resolved
     * in several answers, each proven (kix_resolution_merge) */
    rc = kix_index_resolve_from(r, (const char *)p.ref.ptr, p.ref.len, p.from, k->cfg->max_entries,
                                &res, &k->err);
    if (rc)
        return rc;
    rc = put_resolution(k, &res);
    kix_resolution_release(&res);
    return rc;
}

/* One key of the verifiable index with its proof, at the latest size. */
static int m_index_proof(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_msg_vindex_params p;
    struct kix_msg_vindex_result m;
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT, cp = KIX_BUF_INIT;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_bytes latest, raw;
    int present = 0, rc = kix_msg_get_vindex_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    rc = reader(k, &r);
    if (rc)
        return rc;
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &latest) != KIX_OK)
        return fail(k, KIX_ENOTFOUND, "the log has no checkpoint yet");
    if (kix_log_reader_index_note(r, KIX_NO_INDEX, &raw) != KIX_OK)
        return fail(k, KIX_ENOTFOUND, "this log keeps no verifiable index");
    /* both notes with their witnesses' cosignatures, as every answer that
     * carries them: a reader with --min-witnesses counts them */
    rc = kix_log_reader_checkpoint_cosigned(r, kix_log_reader_size(r), &cp, &k->err);
    if (rc == KIX_OK)
        rc = kix_log_reader_index_note_cosigned(r, kix_log_reader_size(r), &note, &k->err);
    if (rc)
        goto out;
    rc = kix_index_prove(r, (const char *)p.key.ptr, p.key.len, &record, &proof, &present, &k->err);
    if (rc)
        goto out;
    memset(&m, 0, sizeof(m));
    m.key = p.key;
    m.present = present;
    m.record = kix_buf_bytes(&record);
    m.proof = kix_buf_bytes(&proof);
    m.checkpoint = kix_buf_bytes(&cp);
    m.index_note = kix_buf_bytes(&note);
    m.size = kix_log_reader_size(r);
    begin(k);
    kix_msg_put_vindex_result(&k->pw, &m);
    rc = finish(k);
out:
    kix_buf_release(&record);
    kix_buf_release(&proof);
    kix_buf_release(&cp);
    kix_buf_release(&note);
    return rc;
}

/* ---- checkpoints, query ------------------------------------------------------------------ */

/* The checkpoints that fit half a message (at least one), copied: the
 * reader's views live only during its callback. */
struct cp_collect {
    struct call *k;
    struct kix_buf *notes;
    uint64_t *sizes;
    size_t *ends;
    size_t count, bytes;
};

/* ends[2i] ends checkpoint i, ends[2i+1] its index note (maybe empty) */
static int collect_checkpoint(void *arg, uint64_t size, const uint8_t *note, size_t len,
                              const uint8_t *index_note, size_t index_len)
{
    struct cp_collect *c = arg;
    if (c->bytes + len + index_len + 48 > c->k->cfg->max_message / 2 && c->count > 0)
        return 1;
    if (kix_buf_add(c->notes, note, len))
        return KIX_ENOMEM;
    c->ends[2 * c->count] = c->notes->len;
    if (index_len && kix_buf_add(c->notes, index_note, index_len))
        return KIX_ENOMEM;
    c->ends[2 * c->count + 1] = c->notes->len;
    c->bytes += len + index_len + 48;
    c->sizes[c->count] = size;
    c->count++;
    return 0;
}

static int m_checkpoints(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_msg_checkpoints_params p;
    struct kix_msg_checkpoints_result res = {0, NULL, NULL};
    struct kix_msg_checkpoint_item *items = NULL;
    struct kix_buf *notes = &k->w->scratch;
    struct cp_collect c = {k, notes, NULL, NULL, 0, 0};
    int rc = kix_msg_get_checkpoints_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    if (p.limit == KIX_MSG_ABSENT)
        p.limit = 100;
    if (p.limit == 0 || p.limit > CHECKPOINTS_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", CHECKPOINTS_MAX);
    rc = reader(k, &r);
    if (rc)
        return rc;
    kix_buf_reset(notes);
    c.sizes = calloc((size_t)p.limit, sizeof(*c.sizes));
    c.ends = calloc(2 * (size_t)p.limit, sizeof(*c.ends));
    items = calloc((size_t)p.limit, sizeof(*items));
    if (!c.sizes || !c.ends || !items) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_log_reader_checkpoints(r, p.after, (size_t)p.limit, collect_checkpoint, &c);
    if (rc < 0) {
        rc = fail(k, rc, "reading checkpoints: %s", kix_strerror(rc));
        goto out;
    }
    for (size_t i = 0; i < c.count; i++) {
        size_t from = i ? c.ends[2 * i - 1] : 0, mid = c.ends[2 * i], end = c.ends[2 * i + 1];
        items[i].size = c.sizes[i];
        items[i].checkpoint.ptr = notes->ptr + from;
        items[i].checkpoint.len = mid - from;
        if (end > mid) {
            items[i].index_note.ptr = notes->ptr + mid;
            items[i].index_note.len = end - mid;
        }
    }
    res.ncheckpoints = c.count;
    res.checkpoints = items;
    begin(k);
    kix_msg_put_checkpoints_result(&k->pw, &res);
    rc = finish(k);
out:
    free(c.sizes);
    free(c.ends);
    free(items);
    return rc;
}

struct query_rows {
    struct call *k;
    struct kix_query_row *rows;
    size_t n;
};

static int keep_row(void *arg, const struct kix_query_row *row)
{
    struct query_rows *q = arg;
    q->rows[q->n++] = *row;
    return 0;
}

/* A checked filter as the C string kix_index_query takes. */
static const char *filter(struct kix_bytes b, char *out)
{
    if (!b.ptr)
        return NULL;
    memcpy(out, b.ptr, b.len);
    out[b.len] = '\0';
    return out;
}

static int m_query(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_query q;
    struct kix_msg_query_params p;
    struct kix_msg_query_result res = {0, 0, NULL, NULL};
    struct kix_msg_query_run *runs = NULL;
    struct query_rows rows = {k, NULL, 0};
    char kernel[KIX_MSG_QUERY_TEXT_MAX + 1], gpu[KIX_MSG_QUERY_TEXT_MAX + 1],
        provider[KIX_MSG_QUERY_TEXT_MAX + 1], mode[KIX_MSG_QUERY_SHORT_MAX + 1],
        metric[KIX_MSG_QUERY_SHORT_MAX + 1], dtype[KIX_MSG_QUERY_TEXT_MAX + 1];
    struct kix_digest group;
    uint64_t matched = 0;
    int rc = kix_msg_get_query_params(k->params, &p, &k->err);

    if (rc)
        return rc;
    memset(&q, 0, sizeof(q));
    q.kernel = filter(p.kernel, kernel);
    q.gpu = filter(p.gpu, gpu);
    q.provider = filter(p.provider, provider);
    q.mode = filter(p.mode, mode);
    q.metric = filter(p.metric, metric);
    q.dtype = filter(p.dtype, dtype);
    q.offset = p.offset == KIX_MSG_ABSENT ? 0 : p.offset;
    q.limit = p.limit == KIX_MSG_ABSENT ? 100 : p.limit;
    if (p.has_group) {
        memcpy(group.b, p.group, 32);
        q.group = &group;
    }
    if (q.limit == 0 || q.limit > QUERY_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", QUERY_MAX);
    rc = reader(k, &r);
    if (rc)
        return rc;
    rows.rows = malloc((size_t)q.limit * sizeof(*rows.rows));
    runs = calloc((size_t)q.limit, sizeof(*runs));
    if (!rows.rows || !runs) {
        rc = fail(k, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_index_query(r, &q, keep_row, &rows, &matched);
    if (rc) {
        rc = fail(k, rc, "querying: %s", kix_strerror(rc));
        goto out;
    }
    for (size_t i = 0; i < rows.n; i++) {
        const struct kix_query_row *row = &rows.rows[i];
        struct kix_msg_query_run *run = &runs[i];
        run->run_id = text_view(row->run_id);
        memcpy(run->digest, row->manifest.b, 32);
        memcpy(run->group, row->group.b, 32);
        run->rank = row->rank;
        run->group_size = row->group_size;
        run->value = row->value;
        run->evidence = text_view(kix_evidence_name(row->evidence));
        run->kernel = text_view(row->kernel);
        run->gpu = text_view(row->gpu);
        run->provider = text_view(row->provider);
        run->mode = text_view(row->mode);
        run->metric = text_view(row->metric);
    }
    res.matched = matched;
    res.nruns = rows.n;
    res.runs = runs;
    begin(k);
    kix_msg_put_query_result(&k->pw, &res);
    rc = finish(k);
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
        if (kix_entry_describe(p.bundles[i].envelope.ptr, p.bundles[i].envelope.len, &s, NULL) ==
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
    if (k->cfg->phase_stats) /* receive: the frame's decode to here */
        atomic_fetch_add_explicit(&k->srv->phase_receive_ns, kixd_thread_cpu_ns() - c->decode_cpu,
                                  memory_order_relaxed);
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
 * from them (entries, checkpoints, objects), or they write. */
static const struct method {
    const char *name;
    int (*fn)(struct call *k);
    int view;
} methods[] = {
    {"info", m_info, 1},
    {"submit", m_submit, 0},
    {"get_object", m_get_object, 0},
    {"get_objects", m_get_objects, 0},
    {"get_entries", m_get_entries, 0},
    {"checkpoint", m_checkpoint, 1},
    {"inclusion_proof", m_inclusion_proof, 1},
    {"consistency_proof", m_consistency_proof, 0},
    {"receipt", m_receipt, 1},
    {"resolve", m_resolve, 1},
    {"index_proof", m_index_proof, 1},
    {"checkpoints", m_checkpoints, 0},
    {"query", m_query, 1},
    {"follow", m_follow, 0},
    {"add_cosignature", m_add_cosignature, 0},
    {"replicated", m_replicated, 0},
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
    if (!m) {
        rc =
            fail(&k, KIX_EINVAL, "unknown method \"%.*s\" (proto/PROTOCOL.md lists the methods)",
                 (int)(msg->method.len > 64 ? 64 : msg->method.len), (const char *)msg->method.ptr);
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

void kixd_submit_answer(struct kixd_submit *job)
{
    struct kixd_conn *c = job->conn;
    struct call k;
    size_t start;
    uint64_t t0;
    int rc;

    KIXD_ASSERT_LOOP(job->w);
    /* answered once: after its commit, or at once when prepare refused all */
    assert(job->state == KIXD_SUBMIT_COMMITTED ||
           (job->state == KIXD_SUBMIT_PREPARING && job->nprepared == 0));
    if (job->answer) {
        job->answer(job);
        return;
    }
    if (c->closing)
        return;
    t0 = job->srv->cfg->phase_stats ? kixd_thread_cpu_ns() : 0;
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
    kixd_conn_flush(c, 1);
    if (job->srv->cfg->phase_stats)
        atomic_fetch_add_explicit(&job->srv->phase_answer_ns, kixd_thread_cpu_ns() - t0,
                                  memory_order_relaxed);
}
