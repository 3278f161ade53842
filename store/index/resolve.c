/* Resolving a run: gather it from a snapshot (server side), and verify a
 * resolution against the log key (client side). */
#include "kix/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"

void kix_resolution_init(struct kix_resolution *res)
{
    memset(res, 0, sizeof(*res));
}

void kix_resolution_release(struct kix_resolution *res)
{
    free(res->entries);
    if (res->backing_free)
        res->backing_free(res->backing);
    kix_resolution_init(res);
}

int kix_permalink(const char *origin, const char *run_id, struct kix_buf *out)
{
    return kix_buf_addf(out, "https://%s/runs/%s", origin, run_id);
}

int kix_ref_parse(const char *ref, size_t len, const char *origin, char run_id[KIX_RUN_ID_MAX + 1],
                  int *is_digest, struct kix_digest *digest, struct kix_err *err)
{
    const char *rest = ref;
    size_t rest_len = len;

    *is_digest = 0;
    run_id[0] = '\0';
    if (len > 8 && memcmp(ref, "https://", 8) == 0) {
        const char *runs = NULL, *objects = NULL;
        size_t host_len;
        /* the origin may itself hold slashes: find the last /runs/ or /objects/ */
        for (const char *p = ref + 8; p + 6 <= ref + len; p++) {
            if (memcmp(p, "/runs/", 6) == 0)
                runs = p;
            if (p + 9 <= ref + len && memcmp(p, "/objects/", 9) == 0)
                objects = p;
        }
        if (runs && (!objects || runs > objects)) {
            rest = runs + 6;
            host_len = (size_t)(runs - ref - 8);
        } else if (objects) {
            rest = objects + 9;
            host_len = (size_t)(objects - ref - 8);
        } else {
            return kix_err_set(err, KIX_EINVAL,
                               "permalink %.*s names neither /runs/<id> nor /objects/<digest>",
                               (int)(len > 200 ? 200 : len), ref);
        }
        if (origin && (strlen(origin) != host_len || memcmp(origin, ref + 8, host_len) != 0))
            return kix_err_set(err, KIX_EINVAL, "permalink is for log %.*s, not %s", (int)host_len,
                               ref + 8, origin);
        rest_len = (size_t)(ref + len - rest);
    }
    if (kix_digest_is_text(rest, rest_len)) {
        *is_digest = 1;
        return kix_digest_parse(rest, rest_len, digest, err);
    }
    if (!kix_run_id_valid(rest, rest_len))
        return kix_err_set(err, KIX_EINVAL,
                           "\"%.*s\" is neither a permalink, a run id nor a sha256: digest",
                           (int)(rest_len > 200 ? 200 : rest_len), rest);
    memcpy(run_id, rest, rest_len);
    run_id[rest_len] = '\0';
    return KIX_OK;
}

static int gather_objects(struct kix_log_reader *r, struct kix_resolution *res, struct kix_err *err)
{
    struct kix_digest *refs = NULL;
    size_t nrefs = 0;
    /* stored objects are canonical: their references come from one scan
     * (a damaged manifest fails the client's digest check anyway) */
    int rc = kix_refs_canonical(res->manifest.ptr, res->manifest.len, &refs, &nrefs);

    if (rc)
        return kix_err_set(err, rc, "out of memory");
    for (size_t i = 0; i < nrefs && res->nobjects < KIX_RESOLVE_MAX_OBJECTS; i++) {
        struct kix_resolution_object *o = &res->objects[res->nobjects];
        if (kix_log_reader_object(r, &refs[i], &o->bytes) == KIX_OK) {
            o->digest = refs[i];
            res->nobjects++;
        }
    }
    free(refs);
    return KIX_OK;
}

static int gather_entries(struct kix_log_reader *r, struct kix_resolution *res, struct kix_err *err)
{
    struct kix_run_entry *list = NULL;
    size_t n = 0;
    int rc = kix_index_run_entries(r, res->run.run_id, strlen(res->run.run_id), &list, &n);

    if (rc)
        return kix_err_set(err, rc, "reading the run's entries: %s", kix_strerror(rc));
    if (n > KIX_RESOLVE_MAX_ENTRIES)
        n = KIX_RESOLVE_MAX_ENTRIES;
    res->entries = calloc(n ? n : 1, sizeof(*res->entries));
    if (!res->entries) {
        free(list);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        struct kix_resolution_entry *e = &res->entries[i];
        e->index = list[i].index;
        e->type = list[i].type;
        rc = kix_log_reader_entry(r, e->index, &e->leaf);
        if (rc == KIX_OK)
            rc = kix_log_reader_inclusion(r, e->index, res->size, e->proof, &e->nproof, err);
        if (rc)
            break;
        res->nentries++;
    }
    free(list);
    return rc;
}

/* The other end of a supersession, from its (stored) entry. */
static void link_runs(struct kix_log_reader *r, struct kix_resolution *res)
{
    struct kix_entry p;
    struct kix_bytes leaf;

    if (res->run.superseded_by_index != KIX_NO_INDEX &&
        kix_log_reader_entry(r, res->run.superseded_by_index, &leaf) == KIX_OK &&
        kix_entry_parse_leaf(leaf.ptr, leaf.len, &p, NULL) == KIX_OK) {
        snprintf(res->successor, sizeof(res->successor), "%s", p.new_run_id);
        kix_entry_release(&p);
    }
    if (res->run.supersedes_index != KIX_NO_INDEX &&
        kix_log_reader_entry(r, res->run.supersedes_index, &leaf) == KIX_OK &&
        kix_entry_parse_leaf(leaf.ptr, leaf.len, &p, NULL) == KIX_OK) {
        snprintf(res->predecessor, sizeof(res->predecessor), "%s", p.run_id);
        kix_entry_release(&p);
    }
}

static void free_buf(void *p)
{
    kix_buf_release(p);
    free(p);
}

/* With witness cosignatures, the checkpoint is the note plus their lines,
 * owned by the resolution. */
static int attach_cosignatures(struct kix_log_reader *r, struct kix_resolution *out,
                               struct kix_err *err)
{
    struct kix_buf lines = KIX_BUF_INIT, *b;
    size_t n = 0;
    int rc = kix_log_reader_cosignatures(r, out->size, &lines, &n);

    if (rc || n == 0) {
        kix_buf_release(&lines);
        return rc ? kix_err_set(err, rc, "reading cosignatures: %s", kix_strerror(rc)) : KIX_OK;
    }
    b = malloc(sizeof(*b));
    if (b) {
        kix_buf_init(b);
        rc = kix_buf_add(b, out->checkpoint.ptr, out->checkpoint.len);
        if (rc == KIX_OK)
            rc = kix_buf_add(b, lines.ptr, lines.len);
    }
    kix_buf_release(&lines);
    if (!b || rc) {
        if (b)
            free_buf(b);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    out->checkpoint.ptr = b->ptr;
    out->checkpoint.len = b->len;
    out->backing = b;
    out->backing_free = free_buf;
    return KIX_OK;
}

int kix_index_resolve(struct kix_log_reader *r, const char *ref, size_t len,
                      struct kix_resolution *out, struct kix_err *err)
{
    char run_id[KIX_RUN_ID_MAX + 1];
    struct kix_digest d;
    int is_digest = 0, rc;

    kix_resolution_init(out);
    /* a permalink of another log names nothing here (issue 18) */
    rc = kix_ref_parse(ref, len, kix_log_reader_origin(r), run_id, &is_digest, &d, err);
    if (rc)
        return rc;
    rc = is_digest ? kix_index_run_by_digest(r, &d, &out->run)
                   : kix_index_run(r, run_id, strlen(run_id), &out->run);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_ENOTFOUND,
                           is_digest ? "no run in this log has the manifest %.*s (kix get fetches "
                                       "other objects)"
                                     : "no run %.*s in this log",
                           (int)(len > 200 ? 200 : len), ref);
    if (rc)
        return kix_err_set(err, rc, "reading the run: %s", kix_strerror(rc));
    out->size = kix_log_reader_size(r);
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &out->checkpoint) != KIX_OK ||
        kix_log_reader_object(r, &out->run.manifest, &out->manifest) != KIX_OK)
        return kix_err_set(err, KIX_ECORRUPT, "run %s lacks its manifest or checkpoint",
                           out->run.run_id);
    rc = attach_cosignatures(r, out, err);
    if (rc)
        return rc;
    rc = kix_index_rank(r, &out->run, &out->rank);
    if (rc)
        return kix_err_set(err, rc, "reading the run's comparison group: %s", kix_strerror(rc));
    rc = gather_objects(r, out, err);
    if (rc == KIX_OK)
        rc = gather_entries(r, out, err);
    if (rc == KIX_OK)
        link_runs(r, out);
    if (rc)
        kix_resolution_release(out);
    return rc;
}

/* ---- client-side verification ------------------------------------------- */

static int verify_entry(struct kix_resolution *res, const struct kix_resolution_entry *e,
                        const struct kix_checkpoint *cp, int *published, struct kix_err *err)
{
    struct kix_hash leaf, root;
    struct kix_entry p;
    const char *id = res->run.run_id;
    int about_this_run, rc;

    kix_merkle_leaf_hash(e->leaf.ptr, e->leaf.len, &leaf);
    memcpy(root.b, cp->root, 32);
    rc = kix_merkle_verify_inclusion(e->index, cp->size, &leaf, e->proof, e->nproof, &root, err);
    if (rc) {
        kix_err_wrap(err, "entry %llu is not in the signed log", (unsigned long long)e->index);
        return rc;
    }
    if (kix_entry_parse_leaf(e->leaf.ptr, e->leaf.len, &p, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EVERIFY, "entry %llu does not parse as the %s entry it claims",
                           (unsigned long long)e->index, kix_entry_type_name(e->type));
    kix_entry_release(&p);
    if (p.type != e->type)
        return kix_err_set(err, KIX_EVERIFY, "entry %llu does not parse as the %s entry it claims",
                           (unsigned long long)e->index, kix_entry_type_name(e->type));
    about_this_run = strcmp(p.run_id, id) == 0;
    if (p.type == KIX_ENTRY_SUPERSESSION && strcmp(p.new_run_id, id) == 0) {
        snprintf(res->predecessor, sizeof(res->predecessor), "%s", p.run_id);
        res->run.supersedes_index = e->index;
        return KIX_OK;
    }
    if (!about_this_run)
        return kix_err_set(err, KIX_EVERIFY, "entry %llu is about run %s, not %s",
                           (unsigned long long)e->index, p.run_id, id);
    if (memcmp(p.subject.b, res->run.manifest.b, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY, "entry %llu is about another manifest of run %s",
                           (unsigned long long)e->index, id);
    switch (p.type) {
    case KIX_ENTRY_PUBLICATION:
        if (*published)
            return kix_err_set(err, KIX_EVERIFY, "run %s has two publications", id);
        *published = 1;
        res->run.publication_index = e->index;
        break;
    case KIX_ENTRY_ATTESTATION:
        res->run.attestations++;
        break;
    case KIX_ENTRY_RERUN:
        res->run.reruns++;
        if (res->run.evidence_index == KIX_NO_INDEX || e->index > res->run.evidence_index) {
            res->run.evidence = p.outcome;
            res->run.evidence_index = e->index;
        }
        break;
    case KIX_ENTRY_SUPERSESSION:
        snprintf(res->successor, sizeof(res->successor), "%s", p.new_run_id);
        res->run.superseded_by_index = e->index;
        break;
    }
    return KIX_OK;
}

int kix_resolution_verify(struct kix_resolution *res, const struct kix_verifier *log_key,
                          struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_note note;
    struct kix_checkpoint cp;
    struct kix_digest d;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int published = 0, rc;

    rc = kix_checkpoint_open((const char *)res->checkpoint.ptr, res->checkpoint.len, log_key, 1,
                             log_key->name, &note, &cp, err);
    if (rc) {
        kix_err_wrap(err, "the server's checkpoint");
        return rc;
    }
    if (cp.size != res->size)
        return kix_err_set(err, KIX_EVERIFY, "the answer claims size %llu, its checkpoint %llu",
                           (unsigned long long)res->size, (unsigned long long)cp.size);
    kix_digest_of(res->manifest.ptr, res->manifest.len, &d);
    if (memcmp(d.b, res->run.manifest.b, 32) != 0) {
        kix_digest_format(&res->run.manifest, text);
        return kix_err_set(err, KIX_EVERIFY, "the manifest's bytes do not hash to %s", text);
    }
    for (size_t i = 0; i < res->nobjects; i++) {
        kix_digest_of(res->objects[i].bytes.ptr, res->objects[i].bytes.len, &d);
        if (memcmp(d.b, res->objects[i].digest.b, 32) != 0) {
            kix_digest_format(&res->objects[i].digest, text);
            return kix_err_set(err, KIX_EVERIFY, "object %s does not hash to its digest", text);
        }
    }
    /* derive, do not trust: start from nothing and replay the entries */
    res->run.evidence = KIX_EVIDENCE_REPORTED;
    res->run.evidence_index = KIX_NO_INDEX;
    res->run.reruns = res->run.attestations = 0;
    res->run.superseded_by_index = res->run.supersedes_index = KIX_NO_INDEX;
    res->successor[0] = res->predecessor[0] = '\0';
    for (size_t i = 0; i < res->nentries; i++) {
        rc = verify_entry(res, &res->entries[i], &cp, &published, err);
        if (rc)
            return rc;
    }
    if (!published)
        return kix_err_set(err, KIX_EVERIFY,
                           "the answer lacks the publication of run %s; the server is hiding "
                           "entries",
                           res->run.run_id);
    if (cp_out)
        *cp_out = cp;
    return KIX_OK;
}
