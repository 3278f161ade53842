/* Resolving a run: gather it from a snapshot (server side), and verify a
 * resolution against the log key (client side). */
#include "kix/resolve.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/json.h"

const struct kix_run_object_field kix_run_object_fields[KIX_RUN_OBJECT_FIELDS] = {
    {"workloadDigest", "Workload"},
    {"implementationDigest", "Implementation"},
    {"protocolDigest", "BenchmarkProtocol"},
    {"environmentDigest", "ExecutionEnvironment"},
};

/* The digest each object field of a manifest holds (named[i] 0: none). */
static void field_digests(const json_t *manifest, struct kix_digest digest[KIX_RUN_OBJECT_FIELDS],
                          int named[KIX_RUN_OBJECT_FIELDS])
{
    json_t *spec = json_object_get(manifest, "spec");

    for (size_t i = 0; i < KIX_RUN_OBJECT_FIELDS; i++) {
        json_t *v = json_object_get(spec, kix_run_object_fields[i].field);
        named[i] =
            json_is_string(v) && kix_digest_parse(json_string_value(v), json_string_length(v),
                                                  &digest[i], NULL) == KIX_OK;
    }
}

static int same_digest(const struct kix_digest *a, const struct kix_digest *b)
{
    return memcmp(a->b, b->b, sizeof(a->b)) == 0;
}

void kix_resolution_init(struct kix_resolution *res)
{
    memset(res, 0, sizeof(*res));
}

int kix_resolution_entry_set_proof(struct kix_resolution_entry *e, const struct kix_hash *proof,
                                   size_t n)
{
    free(e->proof);
    e->proof = malloc((n ? n : 1) * sizeof(*proof));
    e->nproof = e->proof ? n : 0;
    if (!e->proof)
        return KIX_ENOMEM;
    memcpy(e->proof, proof, n * sizeof(*proof));
    return KIX_OK;
}

void kix_resolution_release(struct kix_resolution *res)
{
    for (size_t i = 0; res->entries && i < res->nentries; i++)
        free(res->entries[i].proof);
    free(res->entries);
    if (res->backing_free) {
        res->backing_free(res->backing);
        for (size_t i = 0; i < res->npages; i++)
            res->backing_free(res->pages[i]);
    }
    free(res->pages);
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
    /* the run-id grammar: a run id never parses as a digest, and one
     * logged before the grammar is reached by its manifest digest only */
    if (kix_run_id_check(rest, rest_len, err) != KIX_OK) {
        kix_err_wrap(err, "\"%.*s\" is neither a permalink, a run id nor a sha256: digest",
                     (int)(rest_len > 200 ? 200 : rest_len), rest);
        return KIX_EINVAL;
    }
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
    if (nrefs > KIX_RESOLVE_MAX_OBJECTS) {
        /* more than an answer holds: the objects the fields name first,
         * so that a reader always gets those */
        struct kix_digest named[KIX_RUN_OBJECT_FIELDS];
        int has[KIX_RUN_OBJECT_FIELDS];
        size_t front = 0;
        json_t *doc = json_loadb((const char *)res->manifest.ptr, res->manifest.len, 0, NULL);
        field_digests(doc, named, has);
        json_decref(doc);
        for (size_t f = 0; f < KIX_RUN_OBJECT_FIELDS; f++)
            for (size_t i = front; has[f] && i < nrefs; i++)
                if (same_digest(&refs[i], &named[f])) {
                    struct kix_digest t = refs[front];
                    refs[front++] = refs[i];
                    refs[i] = t;
                    break;
                }
    }
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

static int gather_entries(struct kix_log_reader *r, struct kix_resolution *res, uint64_t from,
                          size_t limit, struct kix_err *err)
{
    struct kix_run_entry *list = NULL;
    size_t n = 0;
    int rc = kix_index_run_entries(r, res->run.run_id, strlen(res->run.run_id), &list, &n);

    if (rc)
        return kix_err_set(err, rc, "reading the run's entries: %s", kix_strerror(rc));
    if (from > n) {
        free(list);
        return kix_err_set(err, KIX_EINVAL, "run %s has %zu entries: none from position %llu",
                           res->run.run_id, n, (unsigned long long)from);
    }
    res->entries_from = from;
    n -= (size_t)from;
    if (limit == 0 || limit > KIX_RESOLVE_MAX_ENTRIES)
        limit = KIX_RESOLVE_MAX_ENTRIES;
    if (n > limit)
        n = limit;
    res->entries = calloc(n ? n : 1, sizeof(*res->entries));
    if (!res->entries) {
        free(list);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        struct kix_resolution_entry *e = &res->entries[i];
        struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
        size_t nproof = 0;
        e->index = list[from + i].index;
        e->type = list[from + i].type;
        rc = kix_log_reader_entry(r, e->index, &e->leaf);
        if (rc == KIX_OK)
            rc = kix_log_reader_inclusion(r, e->index, res->size, proof, &nproof, err);
        if (rc == KIX_OK && kix_resolution_entry_set_proof(e, proof, nproof) != KIX_OK)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
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

/* What a local resolution owns beside the reader's views. */
struct owned {
    struct kix_buf cosigned, index_note, run_record, run_proof, group_record, group_proof,
        group_page, group_page_proof;
};

static void free_owned(void *p)
{
    struct owned *o = p;
    if (!o)
        return;
    kix_buf_release(&o->cosigned);
    kix_buf_release(&o->index_note);
    kix_buf_release(&o->run_record);
    kix_buf_release(&o->run_proof);
    kix_buf_release(&o->group_record);
    kix_buf_release(&o->group_proof);
    kix_buf_release(&o->group_page);
    kix_buf_release(&o->group_page_proof);
    free(o);
}

/* With witness cosignatures, the checkpoint is the note plus their lines,
 * owned by the resolution. */
static int attach_cosignatures(struct kix_log_reader *r, struct kix_resolution *out,
                               struct owned *o, struct kix_err *err)
{
    struct kix_buf lines = KIX_BUF_INIT, *b = &o->cosigned;
    size_t n = 0;
    int rc = kix_log_reader_cosignatures(r, out->size, &lines, &n);

    if (rc || n == 0) {
        kix_buf_release(&lines);
        return rc ? kix_err_set(err, rc, "reading cosignatures: %s", kix_strerror(rc)) : KIX_OK;
    }
    rc = kix_buf_add(b, out->checkpoint.ptr, out->checkpoint.len);
    if (rc == KIX_OK)
        rc = kix_buf_add(b, lines.ptr, lines.len);
    kix_buf_release(&lines);
    if (rc)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    out->checkpoint.ptr = b->ptr;
    out->checkpoint.len = b->len;
    return KIX_OK;
}

/* The run's record and, when ranked, its group's, each with its proof
 * against the index note of the snapshot (a store with no index note — a
 * plain or read-only old store — sends none: clients refuse that). */
static int attach_index(struct kix_log_reader *r, struct kix_resolution *out, struct owned *o,
                        struct kix_err *err)
{
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n;
    int present, rc;

    if (kix_log_reader_index_note(r, out->size, &out->index_note) != KIX_OK) {
        out->index_note.ptr = NULL;
        out->index_note.len = 0;
        return KIX_OK;
    }
    /* with the cosignatures of the witnesses that recomputed it */
    rc = kix_log_reader_index_note_cosigned(r, out->size, &o->index_note, err);
    if (rc)
        return rc;
    out->index_note = kix_buf_bytes(&o->index_note);
    n = kix_vindex_key_run(out->run.run_id, strlen(out->run.run_id), key);
    rc = kix_index_prove(r, key, n, &o->run_record, &o->run_proof, &present, err);
    if (rc == KIX_OK && !present)
        rc = kix_err_set(err, KIX_ECORRUPT, "run %s has no record in the index tree",
                         out->run.run_id);
    if (rc == KIX_OK && out->run.grouped) {
        n = kix_vindex_key_group(&out->run.comparison_key, key);
        rc = kix_index_prove(r, key, n, &o->group_record, &o->group_proof, &present, err);
        if (rc == KIX_OK && !present)
            rc = kix_err_set(err, KIX_ECORRUPT, "the group of run %s has no record",
                             out->run.run_id);
        out->group_record = kix_buf_bytes(&o->group_record);
        out->group_proof = kix_buf_bytes(&o->group_proof);
    }
    /* and the page of the group that holds the run, for its rank */
    if (rc == KIX_OK && out->run.grouped) {
        char page_id[KIX_RUN_ID_MAX + 1];
        rc = kix__group_page_of(kix_log_reader_txn(r), &out->run, page_id);
        if (rc)
            rc = kix_err_set(err, rc, "reading the group of run %s: %s", out->run.run_id,
                             kix_strerror(rc));
        n = kix_vindex_key_group_page(&out->run.comparison_key, page_id, key);
        if (rc == KIX_OK)
            rc = kix_index_prove(r, key, n, &o->group_page, &o->group_page_proof, &present, err);
        if (rc == KIX_OK && !present)
            rc = kix_err_set(err, KIX_ECORRUPT, "the group page of run %s has no record",
                             out->run.run_id);
        out->group_page = kix_buf_bytes(&o->group_page);
        out->group_page_proof = kix_buf_bytes(&o->group_page_proof);
    }
    out->run_record = kix_buf_bytes(&o->run_record);
    out->run_proof = kix_buf_bytes(&o->run_proof);
    return rc;
}

int kix_index_resolve(struct kix_log_reader *r, const char *ref, size_t len,
                      struct kix_resolution *out, struct kix_err *err)
{
    return kix_index_resolve_from(r, ref, len, 0, 0, out, err);
}

int kix_index_resolve_from(struct kix_log_reader *r, const char *ref, size_t len, uint64_t from,
                           size_t limit, struct kix_resolution *out, struct kix_err *err)
{
    char run_id[KIX_RUN_ID_MAX + 1];
    struct kix_digest d;
    struct owned *o;
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
    o = calloc(1, sizeof(*o));
    if (!o)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    out->backing = o;
    out->backing_free = free_owned;
    rc = attach_cosignatures(r, out, o, err);
    if (rc == KIX_OK)
        rc = attach_index(r, out, o, err);
    if (rc == KIX_OK && (rc = kix_index_rank(r, &out->run, &out->rank)) != KIX_OK)
        kix_err_set(err, rc, "reading the run's comparison group: %s", kix_strerror(rc));
    if (rc == KIX_OK)
        rc = gather_objects(r, out, err);
    if (rc == KIX_OK)
        rc = gather_entries(r, out, from, limit, err);
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
        memcpy(res->run.publisher, p.signer, 32);
        break;
    case KIX_ENTRY_ATTESTATION:
        res->run.attestations++;
        break;
    case KIX_ENTRY_RERUN:
        res->run.reruns++;
        /* the publisher's own rerun is listed, never evidence (the
         * indexer's rule, kix__run_step): the publication came first */
        if (memcmp(p.signer, res->run.publisher, 32) == 0)
            break;
        if (res->run.evidence_index == KIX_NO_INDEX || e->index > res->run.evidence_index) {
            res->run.evidence = p.outcome;
            res->run.evidence_index = e->index;
        }
        break;
    case KIX_ENTRY_SUPERSESSION:
        snprintf(res->successor, sizeof(res->successor), "%s", p.new_run_id);
        res->run.superseded_by_index = e->index;
        break;
    case KIX_ENTRY_WITHDRAWAL: /* entries come in log order: the last one rules */
        res->run.withdrawn_index = e->index;
        break;
    case KIX_ENTRY_REINSTATEMENT:
        res->run.withdrawn_index = KIX_NO_INDEX;
        break;
    }
    return KIX_OK;
}

/* The run's record and its group's, proven against the signed index
 * root; the rank is computed here from the proven group record. */
/* The run's page of its group, proven under its own key: the page's id,
 * which its record names, makes the key. */
static int verify_group_page(const struct kix_vindex_note *vn, const struct kix_resolution *res,
                             struct kix_err *err)
{
    char page_id[KIX_RUN_ID_MAX + 1], key[KIX_VINDEX_KEY_MAX + 1];
    int rc =
        kix_vindex_page_decode(res->group_page.ptr, res->group_page.len,
                               &res->record.info.comparison_key, NULL, page_id, NULL, NULL, err);
    size_t n;

    if (rc)
        return rc;
    n = kix_vindex_key_group_page(&res->record.info.comparison_key, page_id, key);
    return kix_vindex_verify(vn, key, n, res->group_page.ptr, res->group_page.len,
                             res->group_page_proof.ptr, res->group_page_proof.len, err);
}

static int verify_index(struct kix_resolution *res, const struct kix_verifier *log_key,
                        const struct kix_checkpoint *cp, struct kix_err *err)
{
    struct kix_vindex_note vn;
    char key[KIX_VINDEX_KEY_MAX + 1];
    const char *id = res->run.run_id;
    size_t n;
    int rc;

    if (!res->index_note.ptr)
        return kix_err_set(err, KIX_EVERIFY,
                           "the answer about run %s carries no proof from the verifiable index, so "
                           "neither its completeness nor its rank can be checked (is the server "
                           "older than this client?)",
                           id);
    rc = kix_vindex_note_open((const char *)res->index_note.ptr, res->index_note.len, log_key, cp,
                              &vn, err);
    n = kix_vindex_key_run(id, strlen(id), key);
    if (rc == KIX_OK)
        rc = kix_vindex_verify(&vn, key, n, res->run_record.ptr, res->run_record.len,
                               res->run_proof.ptr, res->run_proof.len, err);
    if (rc == KIX_OK)
        rc = kix_vindex_run_decode(res->run_record.ptr, res->run_record.len, id, &res->record, err);
    if (rc)
        return rc;
    if (memcmp(res->record.info.manifest.b, res->run.manifest.b, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "the signed index gives run %s another manifest than the answer", id);
    /* the run's own place in its group is recomputed from its manifest */
    if (res->record.info.grouped) {
        struct kix_run_info own;
        memset(&own, 0, sizeof(own));
        kix__run_group_by_manifest(&own, res->manifest.ptr, res->manifest.len);
        if (!own.grouped ||
            memcmp(own.comparison_key.b, res->record.info.comparison_key.b, 32) != 0 ||
            own.value != res->record.info.value)
            return kix_err_set(err, KIX_EVERIFY,
                               "the signed index ranks run %s in a group or with a value its "
                               "manifest does not give",
                               id);
    }
    memset(&res->rank, 0, sizeof(res->rank));
    res->run.grouped = res->record.info.grouped;
    res->run.comparison_key = res->record.info.comparison_key;
    res->run.value = res->record.info.value;
    if (!res->record.info.grouped)
        return KIX_OK; /* proven unranked */
    if (!res->group_record.ptr || !res->group_page.ptr)
        return kix_err_set(err, KIX_EVERIFY,
                           "run %s is ranked but the answer carries no proven group record", id);
    n = kix_vindex_key_group(&res->record.info.comparison_key, key);
    rc = kix_vindex_verify(&vn, key, n, res->group_record.ptr, res->group_record.len,
                           res->group_proof.ptr, res->group_proof.len, err);
    if (rc == KIX_OK)
        rc = verify_group_page(&vn, res, err);
    if (rc == KIX_OK)
        rc = kix_vindex_group_rank(res->group_record.ptr, res->group_record.len,
                                   res->group_page.ptr, res->group_page.len,
                                   &res->record.info.comparison_key, id, &res->rank, err);
    if (rc == KIX_OK && res->rank.rank == 0)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the signed group record of run %s does not list it, though its record "
                         "says it is ranked",
                         id);
    return rc;
}

/* The kind an object's bytes say, for messages ("" when none). */
static void object_kind(const struct kix_bytes *b, char *out, size_t cap)
{
    json_t *doc = json_loadb((const char *)b->ptr, b->len, 0, NULL);
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    snprintf(out, cap, "%s", kind ? kind : "");
    json_decref(doc);
}

/* The objects are the manifest's (already proven by verify_index): each
 * hashes to its digest, is one the manifest references, comes once, and
 * each object field of the manifest finds its object. A reader may then
 * pick objects by field, and show every object it holds. */
static int verify_objects(const struct kix_resolution *res, struct kix_err *err)
{
    struct kix_digest *refs = NULL, named[KIX_RUN_OBJECT_FIELDS], d;
    int has[KIX_RUN_OBJECT_FIELDS];
    char text[KIX_DIGEST_TEXT_LEN + 1], kind[64];
    const char *id = res->run.run_id;
    size_t nrefs = 0;
    json_t *manifest = json_loadb((const char *)res->manifest.ptr, res->manifest.len, 0, NULL);
    int rc;

    if (!manifest)
        return kix_err_set(err, KIX_EVERIFY, "the manifest of run %s is not JSON", id);
    field_digests(manifest, named, has);
    rc = kix_refs_collect_tree(manifest, &refs, &nrefs);
    json_decref(manifest);
    if (rc)
        return kix_err_set(err, rc, "out of memory");
    for (size_t i = 0; i < res->nobjects; i++) {
        const struct kix_resolution_object *o = &res->objects[i];
        size_t r = 0;
        kix_digest_format(&o->digest, text);
        kix_digest_of(o->bytes.ptr, o->bytes.len, &d);
        if (!same_digest(&d, &o->digest)) {
            rc = kix_err_set(err, KIX_EVERIFY, "object %s does not hash to its digest", text);
            goto out;
        }
        while (r < nrefs && !same_digest(&refs[r], &o->digest))
            r++;
        if (r == nrefs) {
            object_kind(&o->bytes, kind, sizeof(kind));
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the answer carries object %s%s%s%s, which the manifest of run %s "
                             "does not reference",
                             text, kind[0] ? " (" : "", kind, kind[0] ? ")" : "", id);
            goto out;
        }
        for (size_t j = 0; j < i; j++)
            if (same_digest(&res->objects[j].digest, &o->digest)) {
                rc = kix_err_set(err, KIX_EVERIFY, "the answer carries object %s twice", text);
                goto out;
            }
    }
    for (size_t f = 0; f < KIX_RUN_OBJECT_FIELDS; f++) {
        size_t i = 0;
        while (has[f] && i < res->nobjects && !same_digest(&res->objects[i].digest, &named[f]))
            i++;
        if (has[f] && i == res->nobjects) {
            kix_digest_format(&named[f], text);
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the answer withholds the %s that the manifest of run %s names at "
                             "spec.%s (%s)",
                             kix_run_object_fields[f].kind, id, kix_run_object_fields[f].field,
                             text);
            goto out;
        }
    }
    rc = KIX_OK;
out:
    free(refs);
    return rc;
}

/* Once every entry was seen: they chain to the record, and the record
 * says what they make. */
static int verify_complete(struct kix_resolution *res, struct kix_err *err)
{
    const struct kix_run_info *a = &res->run, *b = &res->record.info;
    const char *id = res->run.run_id;

    if (memcmp(res->chain.b, b->entries_chain.b, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "the %llu entries sent about run %s are not the %llu the signed index "
                           "commits: the server withheld, added or changed entries",
                           (unsigned long long)res->chained, id, (unsigned long long)b->entries);
    if (a->publication_index != b->publication_index || a->evidence != b->evidence ||
        a->evidence_index != b->evidence_index || a->attestations != b->attestations ||
        a->reruns != b->reruns || a->superseded_by_index != b->superseded_by_index ||
        a->supersedes_index != b->supersedes_index || memcmp(a->publisher, b->publisher, 32) != 0 ||
        a->withdrawn_index != b->withdrawn_index ||
        strcmp(res->successor, res->record.successor) != 0 ||
        strcmp(res->predecessor, res->record.predecessor) != 0)
        return kix_err_set(
            err, KIX_EVERIFY,
            "the signed index record of run %s contradicts its entries (evidence %s, "
            "%llu attestations, %llu reruns in the record; %s, %llu, %llu from the "
            "entries)",
            id, kix_evidence_name(b->evidence), (unsigned long long)b->attestations,
            (unsigned long long)b->reruns, kix_evidence_name(a->evidence),
            (unsigned long long)a->attestations, (unsigned long long)a->reruns);
    res->complete = 1;
    return KIX_OK;
}

int kix_resolution_verify(struct kix_resolution *res, const struct kix_verifier *log_key,
                          struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_note note;
    struct kix_checkpoint cp;
    struct kix_digest d;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc;

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
    rc = verify_index(res, log_key, &cp, err);
    if (rc == KIX_OK)
        rc = verify_objects(res, err);
    if (rc)
        return rc;
    /* derive, do not trust: start from nothing (or from the pages before)
     * and replay the entries */
    if (res->entries_from == 0) {
        res->run.evidence = KIX_EVIDENCE_REPORTED;
        res->run.evidence_index = KIX_NO_INDEX;
        res->run.reruns = res->run.attestations = 0;
        res->run.superseded_by_index = res->run.supersedes_index = KIX_NO_INDEX;
        res->run.withdrawn_index = KIX_NO_INDEX;
        res->run.publication_index = KIX_NO_INDEX;
        memset(res->run.publisher, 0, 32);
        res->successor[0] = res->predecessor[0] = '\0';
        memset(res->chain.b, 0, 32);
        res->chained = 0;
        res->published = 0;
    } else if (res->entries_from != res->chained) {
        return kix_err_set(err, KIX_EVERIFY,
                           "the page of run %s's entries starts at %llu, not after the %llu seen",
                           res->run.run_id, (unsigned long long)res->entries_from,
                           (unsigned long long)res->chained);
    }
    res->complete = 0;
    for (size_t i = 0; i < res->nentries; i++) {
        struct kix_hash lh;
        rc = verify_entry(res, &res->entries[i], &cp, &res->published, err);
        if (rc)
            return rc;
        kix_merkle_leaf_hash(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &lh);
        kix_vindex_chain(&res->chain, res->entries[i].index, &lh, &res->chain);
        res->chained++;
    }
    if (!res->published)
        return kix_err_set(err, KIX_EVERIFY,
                           "the answer lacks the publication of run %s; the server is hiding "
                           "entries",
                           res->run.run_id);
    if (res->chained > res->record.info.entries)
        return kix_err_set(err, KIX_EVERIFY,
                           "the answer sends %llu entries about run %s; the signed index commits "
                           "%llu",
                           (unsigned long long)res->chained, res->run.run_id,
                           (unsigned long long)res->record.info.entries);
    if (res->chained == res->record.info.entries && (rc = verify_complete(res, err)) != KIX_OK)
        return rc;
    if (cp_out)
        *cp_out = cp;
    return KIX_OK;
}

int kix_resolution_merge(struct kix_resolution *res, struct kix_resolution *page,
                         const struct kix_verifier *log_key, struct kix_checkpoint *cp,
                         struct kix_err *err)
{
    struct kix_resolution_entry *all;
    void **pages;
    int rc;

    if (strcmp(page->run.run_id, res->run.run_id) != 0 ||
        memcmp(page->run.manifest.b, res->run.manifest.b, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY, "a page about run %s answered a resolution of %s",
                           page->run.run_id, res->run.run_id);
    /* the tally so far */
    page->run.evidence = res->run.evidence;
    page->run.evidence_index = res->run.evidence_index;
    page->run.attestations = res->run.attestations;
    page->run.reruns = res->run.reruns;
    page->run.superseded_by_index = res->run.superseded_by_index;
    page->run.supersedes_index = res->run.supersedes_index;
    page->run.withdrawn_index = res->run.withdrawn_index;
    page->run.publication_index = res->run.publication_index;
    memcpy(page->run.publisher, res->run.publisher, 32);
    memcpy(page->successor, res->successor, sizeof(page->successor));
    memcpy(page->predecessor, res->predecessor, sizeof(page->predecessor));
    page->chain = res->chain;
    page->chained = res->chained;
    page->published = res->published;
    rc = kix_resolution_verify(page, log_key, cp, err);
    if (rc)
        return rc;
    all = realloc(res->entries, (res->nentries + page->nentries + 1) * sizeof(*all));
    pages = realloc(res->pages, (res->npages + page->npages + 2) * sizeof(*pages));
    if (all)
        res->entries = all;
    if (pages)
        res->pages = pages;
    if (!all || !pages)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    memcpy(res->entries + res->nentries, page->entries, page->nentries * sizeof(*all));
    res->nentries += page->nentries;
    if (page->backing)
        res->pages[res->npages++] = page->backing;
    for (size_t i = 0; i < page->npages; i++)
        res->pages[res->npages++] = page->pages[i];
    /* the later snapshot's word, now proven, replaces the earlier's */
    res->run = page->run;
    memcpy(res->successor, page->successor, sizeof(res->successor));
    memcpy(res->predecessor, page->predecessor, sizeof(res->predecessor));
    res->rank = page->rank;
    res->checkpoint = page->checkpoint;
    res->size = page->size;
    res->index_note = page->index_note;
    res->run_record = page->run_record;
    res->run_proof = page->run_proof;
    res->group_record = page->group_record;
    res->group_proof = page->group_proof;
    res->group_page = page->group_page;
    res->group_page_proof = page->group_page_proof;
    res->record = page->record;
    res->chain = page->chain;
    res->chained = page->chained;
    res->complete = page->complete;
    res->published = page->published;
    if (!res->backing_free)
        res->backing_free = page->backing_free;
    free(page->entries);
    free(page->pages);
    kix_resolution_init(page);
    return KIX_OK;
}
