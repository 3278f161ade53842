/* The client's types (kix/source.h) as the messages of kix/messages.h and
 * back (kix/source_wire.h): kixd's dispatcher puts a source's answers on
 * the wire with the *_put functions, source_rpc.c takes them off with the
 * *_get ones, so each conversion is written once. */
#include <stdlib.h>
#include <string.h>

#include "kix/source_wire.h"

_Static_assert(KIX_MERKLE_MAX_PROOF == KIX_MSG_MAX_PROOF, "proof length");

/* Copies a text into a fixed buffer; too long is a shape error. */
static int copy_text(struct kix_bytes v, const char *name, char *out, size_t cap,
                     struct kix_err *err)
{
    if (v.len >= cap)
        return kix_err_set(err, KIX_EPROTO, "field \"%s\" is %zu bytes, over %zu", name, v.len,
                           cap - 1);
    if (v.len)
        memcpy(out, v.ptr, v.len);
    out[v.len] = '\0';
    return KIX_OK;
}

static void copy_proof(struct kix_hash *out, const uint8_t in[][32], size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out[i].b, in[i], 32);
}

static void put_proof(uint8_t out[KIX_MSG_MAX_PROOF][32], const struct kix_hash *proof, size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out[i], proof[i].b, 32);
}

/* A view of a NUL-terminated text; "" is absent (ptr NULL) when opt. */
static struct kix_bytes text(const char *s, int opt)
{
    struct kix_bytes b = {(const uint8_t *)s, strlen(s)};
    if (opt && !s[0])
        b.ptr = NULL;
    return b;
}

/* ---- info ----------------------------------------------------------------------- */

void kix_wire_info_put(const struct kix_client_info *in, struct kix_msg_info *m)
{
    kix_msg_info_init(m);
    m->origin = text(in->origin, 0);
    m->log_key = text(in->log_key, 0);
    m->version = text(in->version, 1);
    m->size = in->size;
    m->mirror = in->mirror != 0;
}

int kix_wire_info_get(const struct kix_msg_info *m, struct kix_client_info *out,
                      struct kix_err *err)
{
    int rc = copy_text(m->origin, "origin", out->origin, sizeof(out->origin), err);

    if (rc == KIX_OK)
        rc = copy_text(m->log_key, "logKey", out->log_key, sizeof(out->log_key), err);
    if (rc == KIX_OK)
        rc = copy_text(m->version, "version", out->version, sizeof(out->version), err);
    if (rc == KIX_OK)
        rc = copy_text(m->upstream, "upstream", out->upstream, sizeof(out->upstream), err);
    if (rc == KIX_OK)
        rc = copy_text(m->last_error, "lastError", out->last_error, sizeof(out->last_error), err);
    if (rc == KIX_OK && m->has_fork) {
        out->fork = 1;
        out->fork_size = m->fork_size;
        rc = copy_text(m->fork_reason, "reason", out->fork_reason, sizeof(out->fork_reason), err);
        if (rc == KIX_OK)
            rc = copy_text(m->fork_evidence, "evidence", out->fork_evidence,
                           sizeof(out->fork_evidence), err);
    }
    if (m->has_limits) {
        const struct kix_msg_limits *l = &m->limits;
#define LIMIT(f) out->limits.f = l->f == KIX_MSG_ABSENT ? 0 : l->f
        LIMIT(max_message);
        LIMIT(max_in_flight);
        LIMIT(max_batch);
        LIMIT(max_entries);
        LIMIT(max_objects);
        LIMIT(max_checkpoints);
        LIMIT(max_runs);
#undef LIMIT
    }
    out->size = m->size;
    out->mirror = m->mirror;
    out->upstream_size = m->upstream_size == KIX_MSG_ABSENT ? 0 : m->upstream_size;
    out->lag_entries = m->lag_entries == KIX_MSG_ABSENT ? 0 : m->lag_entries;
    out->lag_seconds = m->lag_seconds == KIX_MSG_ABSENT ? 0 : (double)m->lag_seconds;
    out->committed = m->committed == KIX_MSG_ABSENT ? 0 : m->committed;
    return rc;
}

/* ---- queries -------------------------------------------------------------------- */

static struct kix_bytes filter_put(const char *s)
{
    struct kix_bytes b = {(const uint8_t *)s, s ? strlen(s) : 0};
    return b;
}

void kix_wire_query_put(const struct kix_query *q, struct kix_msg_query_params *p)
{
    kix_msg_query_params_init(p);
    p->kernel = filter_put(q->kernel);
    p->gpu = filter_put(q->gpu);
    p->provider = filter_put(q->provider);
    p->mode = filter_put(q->mode);
    p->metric = filter_put(q->metric);
    p->dtype = filter_put(q->dtype);
    if (q->group) {
        p->has_group = true;
        memcpy(p->group, q->group->b, 32);
    }
}

/* A filter the codec checked (under its room, no NUL) as a C string. */
static const char *filter_get(struct kix_bytes b, char *out)
{
    if (!b.ptr)
        return NULL;
    memcpy(out, b.ptr, b.len);
    out[b.len] = '\0';
    return out;
}

void kix_wire_query_get(const struct kix_msg_query_params *p, struct kix_wire_query *out)
{
    struct kix_query *q = &out->q;

    memset(q, 0, sizeof(*q));
    q->kernel = filter_get(p->kernel, out->kernel);
    q->gpu = filter_get(p->gpu, out->gpu);
    q->provider = filter_get(p->provider, out->provider);
    q->mode = filter_get(p->mode, out->mode);
    q->metric = filter_get(p->metric, out->metric);
    q->dtype = filter_get(p->dtype, out->dtype);
    q->offset = p->offset == KIX_MSG_ABSENT ? 0 : p->offset;
    q->limit = p->limit == KIX_MSG_ABSENT ? 100 : p->limit;
    if (p->has_group) {
        memcpy(out->group.b, p->group, 32);
        q->group = &out->group;
    }
}

/* ---- query rows ------------------------------------------------------------------ */

void kix_wire_row_put(const struct kix_query_row *row, struct kix_msg_query_run *run)
{
    run->run_id = text(row->run_id, 0);
    memcpy(run->digest, row->manifest.b, 32);
    memcpy(run->group, row->group.b, 32);
    run->rank = row->rank;
    run->group_size = row->group_size;
    run->value = row->value;
    run->evidence = text(kix_evidence_name(row->evidence), 0);
    run->kernel = text(row->kernel, 0);
    run->gpu = text(row->gpu, 0);
    run->provider = text(row->provider, 0);
    run->mode = text(row->mode, 0);
    run->metric = text(row->metric, 0);
}

int kix_wire_row_get(const struct kix_msg_query_run *in, struct kix_query_row *row,
                     struct kix_err *err)
{
    int rc;

    memset(row, 0, sizeof(*row));
    rc = copy_text(in->run_id, "runId", row->run_id, sizeof(row->run_id), err);
    if (rc == KIX_OK)
        rc = copy_text(in->kernel, "kernel", row->kernel, sizeof(row->kernel), err);
    if (rc == KIX_OK)
        rc = copy_text(in->gpu, "gpu", row->gpu, sizeof(row->gpu), err);
    if (rc == KIX_OK)
        rc = copy_text(in->provider, "provider", row->provider, sizeof(row->provider), err);
    if (rc == KIX_OK)
        rc = copy_text(in->mode, "mode", row->mode, sizeof(row->mode), err);
    if (rc == KIX_OK)
        rc = copy_text(in->metric, "metric", row->metric, sizeof(row->metric), err);
    memcpy(row->manifest.b, in->digest, 32);
    memcpy(row->group.b, in->group, 32);
    row->rank = in->rank;
    row->group_size = in->group_size;
    row->value = in->value;
    row->evidence = kix_evidence_parse((const char *)in->evidence.ptr, in->evidence.len);
    return rc;
}

/* ---- resolutions ------------------------------------------------------------------- */

int kix_wire_resolution_put(const struct kix_resolution *res, struct kix_bytes permalink,
                            struct kix_msg_resolve_result *m, struct kix_err *err)
{
    const struct kix_run_info *run = &res->run;
    struct kix_msg_resolve_object *objs;
    struct kix_msg_resolve_entry *ents;

    memset(m, 0, sizeof(*m));
    objs = kix_msg_alloc(&m->owned, res->nobjects, sizeof(*objs));
    ents = objs ? kix_msg_alloc(&m->owned, res->nentries, sizeof(*ents)) : NULL;
    if (!ents)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    m->run_id = text(run->run_id, 0);
    memcpy(m->digest, run->manifest.b, 32);
    m->permalink = permalink;
    m->evidence = text(kix_evidence_name(run->evidence), 0);
    m->evidence_index = run->evidence_index;
    m->successor = text(res->successor, 1);
    m->predecessor = text(res->predecessor, 1);
    m->superseded_by_index = run->superseded_by_index;
    m->supersedes_index = run->supersedes_index;
    if (res->rank.rank) {
        m->ranked = true;
        memcpy(m->comparison_key, run->comparison_key.b, 32);
        m->rank = res->rank.rank;
        m->group_size = res->rank.group_size;
        m->best = text(res->rank.best, 0);
    }
    memcpy(m->publisher, run->publisher, 32);
    m->publication_index = run->publication_index;
    m->attestations = run->attestations;
    m->reruns = run->reruns;
    m->manifest = res->manifest;
    for (size_t i = 0; i < res->nobjects; i++) {
        memcpy(objs[i].digest, res->objects[i].digest.b, 32);
        objs[i].object = res->objects[i].bytes;
    }
    for (size_t i = 0; i < res->nentries; i++) {
        const struct kix_resolution_entry *e = &res->entries[i];
        ents[i].index = e->index;
        ents[i].type = text(kix_entry_type_name(e->type), 0);
        ents[i].leaf = e->leaf;
        ents[i].nproof = e->nproof;
        put_proof(ents[i].proof, e->proof, e->nproof);
    }
    m->nobjects = res->nobjects;
    m->objects = objs;
    m->nentries = res->nentries;
    m->entries = ents;
    m->index_note = res->index_note;
    m->run_record = res->run_record;
    m->run_proof = res->run_proof;
    m->group_record = res->group_record;
    m->group_proof = res->group_proof;
    m->group_page = res->group_page;
    m->group_page_proof = res->group_page_proof;
    m->entries_from = res->entries_from;
    m->checkpoint = res->checkpoint;
    m->size = res->size;
    return KIX_OK;
}

static int entry_type(const struct kix_bytes *name)
{
    for (int t = KIX_ENTRY_KEY; t <= KIX_ENTRY_TYPE_MAX; t++) {
        const char *s = kix_entry_type_name(t);
        if (strlen(s) == name->len && memcmp(s, name->ptr, name->len) == 0)
            return t;
    }
    return -1;
}

int kix_wire_resolution_get(const struct kix_msg_resolve_result *m, struct kix_resolution *res,
                            struct kix_err *err)
{
    struct kix_run_info *run = &res->run;
    int rc = copy_text(m->run_id, "runId", run->run_id, sizeof(run->run_id), err);

    if (rc == KIX_OK)
        rc = copy_text(m->successor, "successor", res->successor, sizeof(res->successor), err);
    if (rc == KIX_OK)
        rc = copy_text(m->predecessor, "predecessor", res->predecessor, sizeof(res->predecessor),
                       err);
    if (rc == KIX_OK && m->ranked)
        rc = copy_text(m->best, "best", res->rank.best, sizeof(res->rank.best), err);
    if (rc)
        return rc;
    run->evidence = kix_evidence_parse((const char *)m->evidence.ptr, m->evidence.len);
    if (run->evidence < 0)
        return kix_err_set(err, KIX_EPROTO, "unknown evidence level \"%.*s\"",
                           (int)(m->evidence.len > 40 ? 40 : m->evidence.len),
                           (const char *)m->evidence.ptr);
    memcpy(run->manifest.b, m->digest, 32);
    memcpy(run->publisher, m->publisher, 32);
    run->publication_index = m->publication_index;
    run->evidence_index = m->evidence_index;
    run->superseded_by_index = m->superseded_by_index;
    run->supersedes_index = m->supersedes_index;
    run->withdrawn_index = KIX_NO_INDEX; /* derived from the entries when verified */
    run->attestations = m->attestations;
    run->reruns = m->reruns;
    if (m->ranked) {
        run->grouped = 1;
        memcpy(run->comparison_key.b, m->comparison_key, 32);
        res->rank.rank = m->rank;
        res->rank.group_size = m->group_size;
    }
    res->manifest = m->manifest;
    for (size_t i = 0; i < m->nobjects; i++) {
        memcpy(res->objects[i].digest.b, m->objects[i].digest, 32);
        res->objects[i].bytes = m->objects[i].object;
        res->nobjects++;
    }
    res->entries = calloc(m->nentries ? m->nentries : 1, sizeof(*res->entries));
    if (!res->entries)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->nentries; i++) {
        const struct kix_msg_resolve_entry *in = &m->entries[i];
        struct kix_resolution_entry *e = &res->entries[i];
        e->index = in->index;
        e->type = entry_type(&in->type);
        if (e->type < 0)
            return kix_err_set(err, KIX_EPROTO, "entries[%zu]: unknown entry type \"%.*s\"", i,
                               (int)(in->type.len > 40 ? 40 : in->type.len),
                               (const char *)in->type.ptr);
        e->leaf = in->leaf;
        {
            struct kix_hash proof[KIX_MSG_MAX_PROOF];
            copy_proof(proof, in->proof, in->nproof);
            if (kix_resolution_entry_set_proof(e, proof, in->nproof) != KIX_OK)
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
        }
        res->nentries++;
    }
    res->checkpoint = m->checkpoint;
    res->size = m->size;
    res->index_note = m->index_note;
    res->run_record = m->run_record;
    res->run_proof = m->run_proof;
    res->group_record = m->group_record;
    res->group_proof = m->group_proof;
    res->group_page = m->group_page;
    res->group_page_proof = m->group_page_proof;
    res->entries_from = m->entries_from;
    return KIX_OK;
}
