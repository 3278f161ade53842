/* The methods: each request's params → the log → its answer
 * (proto/PROTOCOL.md section 2 is the spec of every method here). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "kix/receipt.h"
#include "mirror.h"
#include "kix/resolve.h"
#include "writer.h"

#define ASYNC 1 /* the method answers later (or already answered) */

#define REF_MAX 1024 /* bytes of a resolve reference */

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
};

/* ---- helpers ------------------------------------------------------------------------ */

static int fail(struct call *k, int code, const char *fmt, ...) KIX_PRINTF(3, 4);

static int fail(struct call *k, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->err.msg, sizeof(k->err.msg), fmt, ap);
    va_end(ap);
    k->err.code = code;
    return code;
}

/* A required field that is absent is EINVAL on the wire (never ENOTFOUND). */
static int required(struct call *k, int rc)
{
    if (rc == KIX_ENOTFOUND) {
        k->err.code = KIX_EINVAL;
        return KIX_EINVAL;
    }
    return rc;
}

static int get_u64(struct call *k, const char *name, uint64_t *out)
{
    return required(k, kix_proto_map_get_u64(k->params, name, out, &k->err));
}

/* An optional u64: *out keeps `absent` when the field is not there. */
static int opt_u64(struct call *k, const char *name, uint64_t absent, uint64_t *out)
{
    int rc = kix_proto_map_get_u64(k->params, name, out, &k->err);
    if (rc == KIX_ENOTFOUND) {
        *out = absent;
        return KIX_OK;
    }
    return rc;
}

static int reader(struct call *k, struct kix_log_reader **r)
{
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

static void put_hash(struct call *k, const struct kix_hash *h)
{
    kix_proto_put_bin(&k->pw, h->b, 32);
}

static void put_proof(struct call *k, const struct kix_hash *proof, size_t n)
{
    kix_proto_put_array(&k->pw, n);
    for (size_t i = 0; i < n; i++)
        put_hash(k, &proof[i]);
}

static void put_digest(struct call *k, const struct kix_digest *d)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];
    kix_digest_format(d, text);
    kix_proto_put_str(&k->pw, text, KIX_DIGEST_TEXT_LEN);
}

static int parse_digest(struct call *k, const struct kix_bytes *text, const char *field,
                        struct kix_digest *d)
{
    int rc = kix_digest_parse((const char *)text->ptr, text->len, d, &k->err);
    return rc ? kix_err_wrap(&k->err, "field \"%s\"", field) : KIX_OK;
}

/* ---- info ------------------------------------------------------------------------------ */

/* A mirror's state: upstream, upstreamSize, lagEntries, lagSeconds,
 * lastError?, fork? ({size, reason, evidence}). */
static size_t mirror_fields(const struct kixd_mirror_status *st)
{
    return 4 + (st->last_error[0] != 0) + (st->fork != 0);
}

static void put_mirror(struct call *k, const struct kixd_mirror_status *st, uint64_t size)
{
    kix_proto_put_key(&k->pw, "upstream");
    kix_proto_put_cstr(&k->pw, st->upstream);
    kix_proto_put_key(&k->pw, "upstreamSize");
    kix_proto_put_u64(&k->pw, st->upstream_size);
    kix_proto_put_key(&k->pw, "lagEntries");
    kix_proto_put_u64(&k->pw, st->upstream_size > size ? st->upstream_size - size : 0);
    kix_proto_put_key(&k->pw, "lagSeconds");
    kix_proto_put_u64(&k->pw, st->lag_seconds);
    if (st->last_error[0]) {
        kix_proto_put_key(&k->pw, "lastError");
        kix_proto_put_cstr(&k->pw, st->last_error);
    }
    if (st->fork) {
        kix_proto_put_key(&k->pw, "fork");
        kix_proto_put_map(&k->pw, 3);
        kix_proto_put_key(&k->pw, "size");
        kix_proto_put_u64(&k->pw, st->fork_size);
        kix_proto_put_key(&k->pw, "reason");
        kix_proto_put_cstr(&k->pw, st->fork_reason);
        kix_proto_put_key(&k->pw, "evidence");
        kix_proto_put_cstr(&k->pw, st->fork_evidence);
    }
}

static int m_info(struct call *k)
{
    struct kix_log_reader *r;
    struct kixd_mirror_status st;
    int rc = reader(k, &r);

    if (rc)
        return rc;
    if (k->srv->mirror)
        kixd_mirror_status(k->srv->mirror, &st);
    begin(k);
    kix_proto_put_map(&k->pw, 6 + (k->srv->mirror ? mirror_fields(&st) : 0));
    kix_proto_put_key(&k->pw, "origin");
    kix_proto_put_cstr(&k->pw, kix_log_origin(k->srv->log));
    kix_proto_put_key(&k->pw, "logKey");
    kix_proto_put_cstr(&k->pw, k->srv->log_key);
    kix_proto_put_key(&k->pw, "size");
    kix_proto_put_u64(&k->pw, kix_log_reader_size(r));
    kix_proto_put_key(&k->pw, "version");
    kix_proto_put_cstr(&k->pw, "kixd " KIX_VERSION);
    kix_proto_put_key(&k->pw, "mirror");
    kix_proto_put_bool(&k->pw, kix_log_is_replica(k->srv->log) != 0);
    kix_proto_put_key(&k->pw, "limits");
    kix_proto_put_map(&k->pw, 5);
    kix_proto_put_key(&k->pw, "maxMessage");
    kix_proto_put_u64(&k->pw, k->cfg->max_message);
    kix_proto_put_key(&k->pw, "maxInFlight");
    kix_proto_put_u64(&k->pw, k->cfg->max_in_flight);
    kix_proto_put_key(&k->pw, "maxBatch");
    kix_proto_put_u64(&k->pw, k->cfg->max_batch);
    kix_proto_put_key(&k->pw, "maxEntries");
    kix_proto_put_u64(&k->pw, k->cfg->max_entries);
    kix_proto_put_key(&k->pw, "maxObjects");
    kix_proto_put_u64(&k->pw, k->cfg->max_objects);
    if (k->srv->mirror)
        put_mirror(k, &st, kix_log_reader_size(r));
    return finish(k);
}

/* ---- objects --------------------------------------------------------------------------- */

static int m_get_object(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_bytes text, obj;
    struct kix_digest d;
    int rc = required(k, kix_proto_map_get_str(k->params, "digest", &text, &k->err));

    if (rc == KIX_OK)
        rc = parse_digest(k, &text, "digest", &d);
    if (rc == KIX_OK)
        rc = reader(k, &r);
    if (rc)
        return rc;
    rc = kix_log_reader_object(r, &d, &obj);
    if (rc == KIX_ENOTFOUND)
        return fail(k, rc, "object %.*s is not in this log", (int)text.len, (const char *)text.ptr);
    if (rc)
        return fail(k, rc, "reading object %.*s: %s", (int)text.len, (const char *)text.ptr,
                    kix_strerror(rc));
    begin(k);
    kix_proto_put_map(&k->pw, 1);
    kix_proto_put_key(&k->pw, "object");
    kix_proto_put_bin(&k->pw, obj.ptr, obj.len);
    return finish(k);
}

static int m_get_objects(struct call *k)
{
    struct kix_log_reader *r;
    const struct kix_proto_array *a;
    size_t n, total = 0;
    int rc = required(k, kix_proto_map_get_array(k->params, "digests", &a, &n, &k->err));

    if (rc)
        return rc;
    if (n > k->cfg->max_objects)
        return fail(k, KIX_ELIMIT, "%zu digests asked for, over the limit of %u per request", n,
                    k->cfg->max_objects);
    /* check every digest before answering any */
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes text;
        struct kix_digest d;
        rc = kix_proto_value_str(kix_proto_array_at(a, i), &text, &k->err);
        if (rc == KIX_OK)
            rc = kix_digest_parse((const char *)text.ptr, text.len, &d, &k->err);
        if (rc)
            return kix_err_wrap(&k->err, "digests[%zu]", i);
    }
    rc = reader(k, &r);
    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 1);
    kix_proto_put_key(&k->pw, "objects");
    kix_proto_put_array(&k->pw, n);
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes text, obj;
        struct kix_digest d;
        /* checked above */
        if (kix_proto_value_str(kix_proto_array_at(a, i), &text, NULL) != KIX_OK ||
            kix_digest_parse((const char *)text.ptr, text.len, &d, NULL) != KIX_OK)
            return fail(k, KIX_EINVAL, "digests[%zu] changed", i);
        rc = kix_log_reader_object(r, &d, &obj);
        if (rc == KIX_ENOTFOUND) {
            kix_proto_put_nil(&k->pw);
            continue;
        }
        if (rc)
            return fail(k, rc, "reading object %.*s: %s", (int)text.len, (const char *)text.ptr,
                        kix_strerror(rc));
        total += obj.len;
        if (total > k->cfg->max_message)
            return fail(k, KIX_ELIMIT,
                        "the objects asked for exceed the %zu-byte message limit; ask for fewer "
                        "at a time",
                        k->cfg->max_message);
        kix_proto_put_bin(&k->pw, obj.ptr, obj.len);
    }
    return finish(k);
}

/* ---- entries, checkpoints, proofs -------------------------------------------------------- */

static int m_get_entries(struct call *k)
{
    struct kix_log_reader *r;
    uint64_t start, count, size, end, n = 0;
    size_t bytes = 0, budget = k->cfg->max_message > ((size_t)128 << 10)
                                   ? k->cfg->max_message - ((size_t)64 << 10)
                                   : k->cfg->max_message / 2;
    int rc = get_u64(k, "start", &start);

    if (rc == KIX_OK)
        rc = get_u64(k, "count", &count);
    if (rc)
        return rc;
    if (count == 0)
        return fail(k, KIX_EINVAL, "count must be at least 1");
    if (count > k->cfg->max_entries)
        return fail(k, KIX_ELIMIT, "count %llu is over the limit of %u entries per request",
                    (unsigned long long)count, k->cfg->max_entries);
    rc = reader(k, &r);
    if (rc)
        return rc;
    size = kix_log_reader_size(r);
    end = start >= size ? start : (size - start < count ? size : start + count);
    /* as many as fit the message, at least one */
    for (uint64_t i = start; i < end; i++, n++) {
        struct kix_bytes leaf;
        rc = kix_log_reader_entry(r, i, &leaf);
        if (rc)
            return fail(k, KIX_ECORRUPT, "entry %llu is missing from the store",
                        (unsigned long long)i);
        if (n > 0 && bytes + leaf.len + 5 > budget)
            break;
        bytes += leaf.len + 5;
    }
    begin(k);
    kix_proto_put_map(&k->pw, 2);
    kix_proto_put_key(&k->pw, "start");
    kix_proto_put_u64(&k->pw, start);
    kix_proto_put_key(&k->pw, "entries");
    kix_proto_put_array(&k->pw, n);
    for (uint64_t i = start; i < start + n; i++) {
        struct kix_bytes leaf;
        (void)kix_log_reader_entry(r, i, &leaf);
        kix_proto_put_bin(&k->pw, leaf.ptr, leaf.len);
    }
    return finish(k);
}

static int m_checkpoint(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_bytes note;
    struct kix_buf *text = &k->w->scratch;
    uint64_t size;
    int rc = opt_u64(k, "size", KIX_NO_INDEX, &size);

    if (rc == KIX_OK)
        rc = reader(k, &r);
    if (rc)
        return rc;
    if (size == KIX_NO_INDEX)
        size = kix_log_reader_size(r);
    rc = kix_log_reader_checkpoint(r, size, &note);
    if (rc == KIX_ENOTFOUND)
        return fail(k, rc,
                    "no signed checkpoint at size %llu (the log has %llu entries; there is one at "
                    "each size the log was committed at)",
                    (unsigned long long)size, (unsigned long long)kix_log_reader_size(r));
    if (rc)
        return fail(k, rc, "reading the checkpoint: %s", kix_strerror(rc));
    /* the note, then the witness cosignatures of it */
    kix_buf_reset(text);
    rc = kix_log_reader_checkpoint_cosigned(r, size, text, &k->err);
    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 2);
    kix_proto_put_key(&k->pw, "checkpoint");
    kix_proto_put_str(&k->pw, text->ptr, text->len);
    kix_proto_put_key(&k->pw, "size");
    kix_proto_put_u64(&k->pw, size);
    return finish(k);
}

static int m_inclusion_proof(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], leaf;
    uint64_t index, size;
    size_t n = 0;
    int rc = get_u64(k, "index", &index);

    if (rc == KIX_OK)
        rc = opt_u64(k, "size", KIX_NO_INDEX, &size);
    if (rc == KIX_OK)
        rc = reader(k, &r);
    if (rc)
        return rc;
    if (size == KIX_NO_INDEX)
        size = kix_log_reader_size(r);
    rc = kix_log_reader_inclusion(r, index, size, proof, &n, &k->err);
    if (rc == KIX_OK)
        rc = kix_log_reader_leaf_hash(r, index, &leaf, &k->err);
    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 4);
    kix_proto_put_key(&k->pw, "index");
    kix_proto_put_u64(&k->pw, index);
    kix_proto_put_key(&k->pw, "size");
    kix_proto_put_u64(&k->pw, size);
    kix_proto_put_key(&k->pw, "leafHash");
    put_hash(k, &leaf);
    kix_proto_put_key(&k->pw, "proof");
    put_proof(k, proof, n);
    return finish(k);
}

static int m_consistency_proof(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    uint64_t size1, size2;
    size_t n = 0;
    int rc = get_u64(k, "size1", &size1);

    if (rc == KIX_OK)
        rc = opt_u64(k, "size2", KIX_NO_INDEX, &size2);
    if (rc == KIX_OK)
        rc = reader(k, &r);
    if (rc)
        return rc;
    if (size2 == KIX_NO_INDEX)
        size2 = kix_log_reader_size(r);
    rc = kix_log_reader_consistency(r, size1, size2, proof, &n, &k->err);
    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 3);
    kix_proto_put_key(&k->pw, "size1");
    kix_proto_put_u64(&k->pw, size1);
    kix_proto_put_key(&k->pw, "size2");
    kix_proto_put_u64(&k->pw, size2);
    kix_proto_put_key(&k->pw, "proof");
    put_proof(k, proof, n);
    return finish(k);
}

static int m_receipt(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_buf *text = &k->w->scratch;
    uint64_t index, size;
    int rc = get_u64(k, "index", &index);

    if (rc == KIX_OK)
        rc = opt_u64(k, "size", KIX_NO_INDEX, &size);
    if (rc == KIX_OK)
        rc = reader(k, &r);
    if (rc)
        return rc;
    kix_buf_reset(text);
    rc = kix_log_reader_receipt(r, index, size, text, &k->err);
    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 1);
    kix_proto_put_key(&k->pw, "receipt");
    kix_proto_put_str(&k->pw, text->ptr, text->len);
    return finish(k);
}

/* ---- resolve --------------------------------------------------------------------------------- */

static void put_opt_index(struct call *k, const char *name, uint64_t v)
{
    if (v == KIX_NO_INDEX)
        return;
    kix_proto_put_key(&k->pw, name);
    kix_proto_put_u64(&k->pw, v);
}

static int put_resolution(struct call *k, const struct kix_resolution *res)
{
    const struct kix_run_info *run = &res->run;
    struct kix_buf *link = &k->w->scratch;
    char keyid[KIX_KEY_ID_HEX_LEN + 1];
    size_t fields = 13;

    kix_buf_reset(link);
    if (kix_permalink(kix_log_origin(k->srv->log), run->run_id, link))
        return fail(k, KIX_ENOMEM, "out of memory");
    kix_hex_encode(run->publisher, 32, keyid);
    fields += res->successor[0] != 0;
    fields += res->predecessor[0] != 0;
    fields += run->evidence_index != KIX_NO_INDEX;
    fields += run->superseded_by_index != KIX_NO_INDEX;
    fields += run->supersedes_index != KIX_NO_INDEX;
    fields += res->rank.rank ? 4 : 0;
    begin(k);
    kix_proto_put_map(&k->pw, fields);
    kix_proto_put_key(&k->pw, "runId");
    kix_proto_put_cstr(&k->pw, run->run_id);
    kix_proto_put_key(&k->pw, "digest");
    put_digest(k, &run->manifest);
    kix_proto_put_key(&k->pw, "permalink");
    kix_proto_put_str(&k->pw, link->ptr, link->len);
    kix_proto_put_key(&k->pw, "evidence");
    kix_proto_put_cstr(&k->pw, kix_evidence_name(run->evidence));
    put_opt_index(k, "evidenceIndex", run->evidence_index);
    if (res->successor[0]) {
        kix_proto_put_key(&k->pw, "successor");
        kix_proto_put_cstr(&k->pw, res->successor);
    }
    if (res->predecessor[0]) {
        kix_proto_put_key(&k->pw, "predecessor");
        kix_proto_put_cstr(&k->pw, res->predecessor);
    }
    put_opt_index(k, "supersededByIndex", run->superseded_by_index);
    put_opt_index(k, "supersedesIndex", run->supersedes_index);
    if (res->rank.rank) {
        kix_proto_put_key(&k->pw, "comparisonKey");
        put_digest(k, &run->comparison_key);
        kix_proto_put_key(&k->pw, "rank");
        kix_proto_put_u64(&k->pw, res->rank.rank);
        kix_proto_put_key(&k->pw, "groupSize");
        kix_proto_put_u64(&k->pw, res->rank.group_size);
        kix_proto_put_key(&k->pw, "best");
        kix_proto_put_cstr(&k->pw, res->rank.best);
    }
    kix_proto_put_key(&k->pw, "publisher");
    kix_proto_put_str(&k->pw, keyid, KIX_KEY_ID_HEX_LEN);
    kix_proto_put_key(&k->pw, "publicationIndex");
    kix_proto_put_u64(&k->pw, run->publication_index);
    kix_proto_put_key(&k->pw, "attestations");
    kix_proto_put_u64(&k->pw, run->attestations);
    kix_proto_put_key(&k->pw, "reruns");
    kix_proto_put_u64(&k->pw, run->reruns);
    kix_proto_put_key(&k->pw, "manifest");
    kix_proto_put_bin(&k->pw, res->manifest.ptr, res->manifest.len);
    kix_proto_put_key(&k->pw, "objects");
    kix_proto_put_array(&k->pw, res->nobjects);
    for (size_t i = 0; i < res->nobjects; i++) {
        kix_proto_put_map(&k->pw, 2);
        kix_proto_put_key(&k->pw, "digest");
        put_digest(k, &res->objects[i].digest);
        kix_proto_put_key(&k->pw, "object");
        kix_proto_put_bin(&k->pw, res->objects[i].bytes.ptr, res->objects[i].bytes.len);
    }
    kix_proto_put_key(&k->pw, "entries");
    kix_proto_put_array(&k->pw, res->nentries);
    for (size_t i = 0; i < res->nentries; i++) {
        const struct kix_resolution_entry *e = &res->entries[i];
        kix_proto_put_map(&k->pw, 4);
        kix_proto_put_key(&k->pw, "index");
        kix_proto_put_u64(&k->pw, e->index);
        kix_proto_put_key(&k->pw, "type");
        kix_proto_put_cstr(&k->pw, kix_entry_type_name(e->type));
        kix_proto_put_key(&k->pw, "leaf");
        kix_proto_put_bin(&k->pw, e->leaf.ptr, e->leaf.len);
        kix_proto_put_key(&k->pw, "proof");
        put_proof(k, e->proof, e->nproof);
    }
    kix_proto_put_key(&k->pw, "checkpoint");
    kix_proto_put_str(&k->pw, res->checkpoint.ptr, res->checkpoint.len);
    kix_proto_put_key(&k->pw, "size");
    kix_proto_put_u64(&k->pw, res->size);
    return finish(k);
}

static int m_resolve(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_resolution res;
    struct kix_bytes ref;
    int rc = required(k, kix_proto_map_get_str(k->params, "ref", &ref, &k->err));

    if (rc)
        return rc;
    if (ref.len == 0 || ref.len > REF_MAX)
        return fail(k, KIX_EINVAL,
                    "field \"ref\" must be 1 to %d bytes: a permalink, a run id or a digest",
                    REF_MAX);
    rc = reader(k, &r);
    if (rc)
        return rc;
    rc = kix_index_resolve(r, (const char *)ref.ptr, ref.len, &res, &k->err);
    if (rc)
        return rc;
    rc = put_resolution(k, &res);
    kix_resolution_release(&res);
    return rc;
}

/* ---- checkpoints, query ------------------------------------------------------------------ */

#define CHECKPOINTS_MAX 1000u
#define QUERY_MAX       1000u

struct put_ctx {
    struct call *k;
    size_t count, bytes;
};

static int put_checkpoint_item(void *arg, uint64_t size, const uint8_t *note, size_t len)
{
    struct put_ctx *c = arg;
    kix_proto_put_map(&c->k->pw, 2);
    kix_proto_put_key(&c->k->pw, "size");
    kix_proto_put_u64(&c->k->pw, size);
    kix_proto_put_key(&c->k->pw, "checkpoint");
    kix_proto_put_str(&c->k->pw, note, len);
    return 0;
}

/* Counts the checkpoints that fit half a message (at least one). */
static int count_checkpoint(void *arg, uint64_t size, const uint8_t *note, size_t len)
{
    struct put_ctx *c = arg;
    (void)size;
    (void)note;
    if (c->bytes + len + 32 > c->k->cfg->max_message / 2 && c->count > 0)
        return 1;
    c->bytes += len + 32;
    c->count++;
    return 0;
}

static int m_checkpoints(struct call *k)
{
    struct kix_log_reader *r;
    struct put_ctx counted = {k, 0, 0}, put = {k, 0, 0};
    uint64_t after, limit;
    int rc = get_u64(k, "after", &after);

    if (rc == KIX_OK)
        rc = opt_u64(k, "limit", 100, &limit);
    if (rc)
        return rc;
    if (limit == 0 || limit > CHECKPOINTS_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", CHECKPOINTS_MAX);
    rc = reader(k, &r);
    if (rc)
        return rc;
    /* two passes over the snapshot: the array's count comes first on the wire */
    rc = kix_log_reader_checkpoints(r, after, (size_t)limit, count_checkpoint, &counted);
    if (rc < 0)
        return fail(k, rc, "reading checkpoints: %s", kix_strerror(rc));
    begin(k);
    kix_proto_put_map(&k->pw, 1);
    kix_proto_put_key(&k->pw, "checkpoints");
    kix_proto_put_array(&k->pw, counted.count);
    rc = kix_log_reader_checkpoints(r, after, counted.count, put_checkpoint_item, &put);
    if (rc < 0)
        return fail(k, rc, "reading checkpoints: %s", kix_strerror(rc));
    return finish(k);
}

static int get_opt_text(struct call *k, const char *name, char *out, size_t cap, const char **ptr)
{
    struct kix_bytes v;
    int rc = kix_proto_map_get_str(k->params, name, &v, &k->err);
    *ptr = NULL;
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc)
        return rc;
    if (v.len >= cap || memchr(v.ptr, 0, v.len))
        return fail(k, KIX_EINVAL, "field \"%s\" must be under %zu bytes", name, cap);
    memcpy(out, v.ptr, v.len);
    out[v.len] = '\0';
    *ptr = out;
    return KIX_OK;
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

static int m_query(struct call *k)
{
    struct kix_log_reader *r;
    struct kix_query q;
    struct query_rows rows = {k, NULL, 0};
    char kernel[64], gpu[64], provider[64], mode[16], metric[16];
    struct kix_bytes group_text;
    struct kix_digest group;
    uint64_t matched = 0;
    int rc;

    memset(&q, 0, sizeof(q));
    rc = get_opt_text(k, "kernel", kernel, sizeof(kernel), &q.kernel);
    if (rc == KIX_OK)
        rc = get_opt_text(k, "gpu", gpu, sizeof(gpu), &q.gpu);
    if (rc == KIX_OK)
        rc = get_opt_text(k, "provider", provider, sizeof(provider), &q.provider);
    if (rc == KIX_OK)
        rc = get_opt_text(k, "mode", mode, sizeof(mode), &q.mode);
    if (rc == KIX_OK)
        rc = get_opt_text(k, "metric", metric, sizeof(metric), &q.metric);
    if (rc == KIX_OK)
        rc = opt_u64(k, "offset", 0, &q.offset);
    if (rc == KIX_OK)
        rc = opt_u64(k, "limit", 100, &q.limit);
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_str(k->params, "group", &group_text, &k->err);
        if (rc == KIX_OK) {
            rc = parse_digest(k, &group_text, "group", &group);
            q.group = &group;
        } else if (rc == KIX_ENOTFOUND) {
            rc = KIX_OK;
        }
    }
    if (rc)
        return rc;
    if (q.limit == 0 || q.limit > QUERY_MAX)
        return fail(k, KIX_ELIMIT, "limit must be 1 to %u", QUERY_MAX);
    rc = reader(k, &r);
    if (rc)
        return rc;
    rows.rows = malloc((size_t)q.limit * sizeof(*rows.rows));
    if (!rows.rows)
        return fail(k, KIX_ENOMEM, "out of memory");
    rc = kix_index_query(r, &q, keep_row, &rows, &matched);
    if (rc) {
        free(rows.rows);
        return fail(k, rc, "querying: %s", kix_strerror(rc));
    }
    begin(k);
    kix_proto_put_map(&k->pw, 2);
    kix_proto_put_key(&k->pw, "matched");
    kix_proto_put_u64(&k->pw, matched);
    kix_proto_put_key(&k->pw, "runs");
    kix_proto_put_array(&k->pw, rows.n);
    for (size_t i = 0; i < rows.n; i++) {
        const struct kix_query_row *row = &rows.rows[i];
        kix_proto_put_map(&k->pw, 12);
        kix_proto_put_key(&k->pw, "runId");
        kix_proto_put_cstr(&k->pw, row->run_id);
        kix_proto_put_key(&k->pw, "digest");
        put_digest(k, &row->manifest);
        kix_proto_put_key(&k->pw, "group");
        put_digest(k, &row->group);
        kix_proto_put_key(&k->pw, "rank");
        kix_proto_put_u64(&k->pw, row->rank);
        kix_proto_put_key(&k->pw, "groupSize");
        kix_proto_put_u64(&k->pw, row->group_size);
        kix_proto_put_key(&k->pw, "value");
        kix_proto_put_u64(&k->pw, row->value);
        kix_proto_put_key(&k->pw, "evidence");
        kix_proto_put_cstr(&k->pw, kix_evidence_name(row->evidence));
        kix_proto_put_key(&k->pw, "kernel");
        kix_proto_put_cstr(&k->pw, row->kernel);
        kix_proto_put_key(&k->pw, "gpu");
        kix_proto_put_cstr(&k->pw, row->gpu);
        kix_proto_put_key(&k->pw, "provider");
        kix_proto_put_cstr(&k->pw, row->provider);
        kix_proto_put_key(&k->pw, "mode");
        kix_proto_put_cstr(&k->pw, row->mode);
        kix_proto_put_key(&k->pw, "metric");
        kix_proto_put_cstr(&k->pw, row->metric);
    }
    free(rows.rows);
    return finish(k);
}

/* ---- submit ---------------------------------------------------------------------------------- */

/* One bundle's fields; objs (may be NULL) receives the object views. */
static int read_bundle(struct call *k, const struct kix_proto_value *v, size_t i,
                       struct kix_submission *sub, struct kix_bytes *objs, size_t *nobjs)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a = NULL;
    size_t n = 0;
    int rc = kix_proto_value_map(v, &m, &k->err);

    if (rc == KIX_OK)
        rc = required(k, kix_proto_map_get_bin(m, "envelope", &sub->envelope, &k->err));
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_array(m, "objects", &a, &n, &k->err);
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
    }
    for (size_t j = 0; rc == KIX_OK && j < n; j++) {
        struct kix_bytes b;
        rc = kix_proto_value_bin(kix_proto_array_at(a, j), &b, &k->err);
        if (rc)
            kix_err_wrap(&k->err, "objects[%zu]", j);
        else if (objs)
            objs[j] = b;
    }
    if (rc)
        return kix_err_wrap(&k->err, "bundles[%zu]", i);
    sub->objects = objs;
    sub->nobjects = n;
    *nobjs = n;
    return KIX_OK;
}

static int m_submit(struct call *k)
{
    struct kixd_conn *c = k->c;
    const struct kix_proto_array *a;
    struct kixd_submit *job;
    size_t n, total = 0, frame = k->msg->frame_len, busy;
    int rc;

    if (kix_log_is_replica(k->srv->log))
        return fail(k, KIX_EREADONLY,
                    "this kixd serves a read-only mirror of %s; submit to the log's own server",
                    kix_log_origin(k->srv->log));
    if (atomic_load(&k->srv->stopping))
        return fail(k, KIX_EUNAVAIL, "kixd is stopping; submit again once it is back");
    rc = required(k, kix_proto_map_get_array(k->params, "bundles", &a, &n, &k->err));
    if (rc)
        return rc;
    if (n == 0)
        return fail(k, KIX_EINVAL, "field \"bundles\" is empty; send 1 to %u bundles",
                    k->cfg->max_batch);
    if (n > k->cfg->max_batch)
        return fail(k, KIX_ELIMIT, "%zu bundles in one submit, over the limit of %u", n,
                    k->cfg->max_batch);
    for (size_t i = 0; i < n; i++) {
        struct kix_submission sub;
        size_t nobjs = 0;
        rc = read_bundle(k, kix_proto_array_at(a, i), i, &sub, NULL, &nobjs);
        if (rc)
            return rc;
        total += nobjs;
    }
    busy = atomic_load(&k->srv->submit_bytes);
    if (busy > 0 && busy + frame > k->cfg->max_submit_bytes)
        return fail(k, KIX_EUNAVAIL,
                    "kixd is busy verifying %zu bytes of submissions; retry in a moment", busy);
    job = kixd_submit_new(n, total);
    if (!job)
        return fail(k, KIX_ENOMEM, "out of memory accepting %zu bundles", n);
    total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nobjs = 0;
        (void)read_bundle(k, kix_proto_array_at(a, i), i, &job->subs[i], job->objs + total, &nobjs);
        total += nobjs;
    }
    job->conn = c;
    job->w = k->w;
    job->srv = k->srv;
    job->msgid = k->msgid;
    job->frame_len = frame;
    /* the job takes the message: the views above point into it */
    job->msg = *k->msg;
    kix_proto_msg_init(k->msg);
    c->in_flight++;
    c->inflight_bytes += frame;
    c->refs++;
    k->w->jobs++;
    atomic_fetch_add(&k->srv->submit_bytes, frame);
    kixd_submit_start(job);
    return ASYNC;
}

static void put_item_error(struct call *k, int code, const char *message)
{
    kix_proto_put_map(&k->pw, 1);
    kix_proto_put_key(&k->pw, "error");
    kix_proto_put_map(&k->pw, 2);
    kix_proto_put_key(&k->pw, "code");
    kix_proto_put_i64(&k->pw, code);
    kix_proto_put_key(&k->pw, "message");
    kix_proto_put_cstr(&k->pw, message);
}

static int submit_results(struct call *k, struct kixd_submit *job)
{
    struct kix_log_reader *r;
    struct kix_buf *text = &k->w->scratch;
    int rc = reader(k, &r);

    if (rc)
        return rc;
    begin(k);
    kix_proto_put_map(&k->pw, 2);
    kix_proto_put_key(&k->pw, "results");
    kix_proto_put_array(&k->pw, job->n);
    for (size_t i = 0; i < job->n; i++) {
        const struct kix_append_result *res = &job->results[i];
        struct kix_err err = {0};
        if (res->code) {
            put_item_error(k, res->code, res->message);
            continue;
        }
        kix_buf_reset(text);
        rc = kix_log_reader_receipt(r, res->index, KIX_NO_INDEX, text, &err);
        if (rc) {
            put_item_error(k, rc, kix_err_text(&err, rc));
            continue;
        }
        kix_proto_put_map(&k->pw, 4);
        kix_proto_put_key(&k->pw, "index");
        kix_proto_put_u64(&k->pw, res->index);
        kix_proto_put_key(&k->pw, "leafHash");
        put_hash(k, &res->leaf_hash);
        kix_proto_put_key(&k->pw, "duplicate");
        kix_proto_put_bool(&k->pw, res->duplicate != 0);
        kix_proto_put_key(&k->pw, "receipt");
        kix_proto_put_str(&k->pw, text->ptr, text->len);
    }
    kix_proto_put_key(&k->pw, "size");
    kix_proto_put_u64(&k->pw, job->size ? job->size : kix_log_reader_size(r));
    return finish(k);
}

/* ---- add_cosignature ------------------------------------------------------------------------- */

static int m_add_cosignature(struct call *k)
{
    struct kix_bytes checkpoint, line;
    int rc = required(k, kix_proto_map_get_str(k->params, "checkpoint", &checkpoint, &k->err));

    if (rc == KIX_OK)
        rc = required(k, kix_proto_map_get_str(k->params, "cosignature", &line, &k->err));
    if (rc == KIX_OK)
        rc = kixd_witness_add(k->c, k->msgid, &checkpoint, &line, &k->err);
    return rc ? rc : ASYNC;
}

/* ---- follow ---------------------------------------------------------------------------------- */

static int m_follow(struct call *k)
{
    uint64_t from;
    int rc = get_u64(k, "from", &from);

    if (rc)
        return rc;
    rc = kixd_follow_start(k->c, k->msgid, from, &k->err);
    return rc ? rc : ASYNC;
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static const struct method {
    const char *name;
    int (*fn)(struct call *k);
} methods[] = {
    {"info", m_info},
    {"submit", m_submit},
    {"get_object", m_get_object},
    {"get_objects", m_get_objects},
    {"get_entries", m_get_entries},
    {"checkpoint", m_checkpoint},
    {"inclusion_proof", m_inclusion_proof},
    {"consistency_proof", m_consistency_proof},
    {"receipt", m_receipt},
    {"resolve", m_resolve},
    {"checkpoints", m_checkpoints},
    {"query", m_query},
    {"follow", m_follow},
    {"add_cosignature", m_add_cosignature},
};

static void call_init(struct call *k, struct kixd_conn *c, struct kix_proto_msg *msg)
{
    k->c = c;
    k->w = c->w;
    k->srv = c->w->srv;
    k->cfg = k->srv->cfg;
    k->msg = msg;
    k->msgid = msg ? msg->msgid : 0;
    k->params = msg ? msg->params : NULL;
    k->err.code = 0;
    k->err.msg[0] = '\0';
    kix_proto_writer_init(&k->pw, &c->out);
    k->pw.max_message = k->cfg->max_message;
}

/* Replaces whatever the method began with an error answer. */
static void answer_error(struct call *k, size_t start, uint32_t msgid, int rc)
{
    struct kix_err werr;

    if (k->pw.active) {
        /* end the partial answer (it fails as incomplete and is removed) */
        struct kix_err ignore;
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

void kixd_dispatch(struct kixd_conn *c, struct kix_proto_msg *msg)
{
    const struct method *m = NULL;
    struct call k;
    size_t start = c->out.len;
    int rc;

    call_init(&k, c, msg);
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (strlen(methods[i].name) == msg->method.len &&
            memcmp(methods[i].name, msg->method.ptr, msg->method.len) == 0) {
            m = &methods[i];
            break;
        }
    }
    if (!m)
        rc =
            fail(&k, KIX_EINVAL, "unknown method \"%.*s\" (proto/PROTOCOL.md lists the methods)",
                 (int)(msg->method.len > 64 ? 64 : msg->method.len), (const char *)msg->method.ptr);
    else
        rc = m->fn(&k);
    if (rc == ASYNC || rc == KIX_OK)
        return;
    kixd_log(KIXD_DEBUG, "connection %s: %s: %s %s", c->peer, m ? m->name : "(unknown method)",
             kix_err_name(rc), kix_err_text(&k.err, rc));
    answer_error(&k, start, msg->msgid, rc);
}

void kixd_submit_answer(struct kixd_submit *job)
{
    struct kixd_conn *c = job->conn;
    struct call k;
    size_t start;
    int rc;

    if (c->closing)
        return;
    call_init(&k, c, NULL);
    start = c->out.len;
    if (job->rc) {
        k.err = job->err;
        rc = job->rc;
    } else {
        k.msgid = job->msgid;
        rc = submit_results(&k, job);
    }
    if (rc)
        answer_error(&k, start, job->msgid, rc);
    kixd_conn_flush(c, 1);
}
