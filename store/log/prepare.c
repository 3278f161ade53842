/* Preparing a submission: parse, canonicalize, read the predicate, verify
 * the signature. Stateless but for one registry lookup, so it runs on any
 * thread while the writer commits earlier batches. */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/json.h"
#include "kix/record_rules.h"
#include "kix/sha256.h"
#include "log_internal.h"

void kix_prepared_free(struct kix_prepared *p)
{
    if (!p)
        return;
    kix_buf_release(&p->leaf);
    kix_dsse_envelope_release(&p->env);
    for (size_t i = 0; i < p->nobjects; i++) {
        kix_buf_release(&p->objects[i].canon);
        free(p->objects[i].refs);
        free(p->objects[i].kind_refs);
    }
    free(p->objects);
    free(p->kind_refs);
    kix_entry_release(&p->entry);
    free(p);
}

int kix__statement_hash(const struct kix_dsse_envelope *env, struct kix_hash *out)
{
    struct kix_buf pae = KIX_BUF_INIT;
    int rc = kix_dsse_pae(env->payload_type, strlen(env->payload_type), env->payload.ptr,
                          env->payload.len, &pae);

    if (rc == KIX_OK)
        kix_sha256(pae.ptr, pae.len, out->b);
    kix_buf_release(&pae);
    return rc;
}

int kix_prepared_type(const struct kix_prepared *p)
{
    return p->entry.type;
}

int kix_prepared_sig_checked(const struct kix_prepared *p)
{
    return p->sig_checked;
}

/* The public half of registered key `id` that prepare saw before, if any
 * (struct kix_log's keys: a key id is a hash, so the slot is id[0]'s). */
static int key_cached(struct kix_log *l, const uint8_t id[32], uint8_t pub[32])
{
    struct kix__key_slot *k = &l->keys[id[0] % (sizeof(l->keys) / sizeof(l->keys[0]))];
    int hit;

    pthread_mutex_lock(&l->keys_mu);
    hit = k->set && memcmp(k->id, id, 32) == 0;
    if (hit)
        memcpy(pub, k->pub, 32);
    pthread_mutex_unlock(&l->keys_mu);
    return hit;
}

static void key_cache(struct kix_log *l, const uint8_t id[32], const uint8_t pub[32])
{
    struct kix__key_slot *k = &l->keys[id[0] % (sizeof(l->keys) / sizeof(l->keys[0]))];

    pthread_mutex_lock(&l->keys_mu);
    memcpy(k->id, id, 32);
    memcpy(k->pub, pub, 32);
    k->set = 1;
    pthread_mutex_unlock(&l->keys_mu);
}

/* Verifies now when the key is known (the log key, or a registered key);
 * otherwise commit verifies once the batch has registered it. */
static int verify_if_known(struct kix_log *l, struct kix_prepared *p, struct kix_err *err)
{
    struct kix_reader *r = NULL;
    struct kix_key_info key;
    int rc, found = 0;

    if (memcmp(p->entry.signer, l->log_key_id, 32) == 0) {
        memcpy(key.pub, l->verifier.pub, 32);
        found = 1;
    } else if (key_cached(l, p->entry.signer, key.pub)) {
        found = 1;
    } else {
        rc = kix_store_read_begin(l->store, &r);
        if (rc)
            return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
        found = kix__key_get(l->store, r->txn, p->entry.signer, &key) == KIX_OK;
        kix_store_read_end(r);
        if (found)
            key_cache(l, p->entry.signer, key.pub);
    }
    if (!found && p->entry.open_note) {
        /* an open note names its own key: verified here, off the writer;
         * the policy decides at commit (unless the policy in force now
         * takes none, or more work than it carries: refused before a
         * verification, which costs more than a lookup and a hash) */
        struct kix_log_policy pol;
        if (!l->replica && kix_store_read_begin(l->store, &r) == KIX_OK) {
            rc = kix__policy_get(l->store, r->txn, &pol);
            kix_store_read_end(r);
            if (rc == KIX_OK && !pol.open_notes) {
                char id[KIX_SHORT_ID_LEN + 1];
                kix_hex_short_id(p->entry.signer, id);
                return kix_err_set(err, KIX_EPOLICY,
                                   "key %s is not registered and this log takes no open notes "
                                   "(its policy, an admin's kix policy entry, does not allow "
                                   "them); an admin registers the key with kix key add --role "
                                   "attest",
                                   id);
            }
            if (rc == KIX_OK && kix_work_bits(p->statement_hash.b) < pol.note_work)
                return kix_err_set(err, KIX_EPOLICY,
                                   "the open note carries %u bits of proof of work; this log's "
                                   "policy asks %u (kix attest --open grinds them)",
                                   kix_work_bits(p->statement_hash.b), pol.note_work);
        }
        memcpy(key.pub, p->entry.note_pub, 32);
        found = 1;
    }
    if (!found)
        return KIX_OK;
    rc = kix_dsse_verify(&p->env, key.pub, p->env.sigs[0].keyid, err);
    if (rc) {
        char hex[65];
        kix_hex_encode(p->entry.signer, 32, hex);
        return kix_err_set(err, KIX_EVERIFY,
                           "bad signature: the envelope does not verify with "
                           "key %.16s...; sign it again with the right key",
                           hex);
    }
    memcpy(p->signer_pub, key.pub, 32);
    p->sig_checked = 1;
    return KIX_OK;
}

/* The indexer's memo of an object (kix_log_indexer.prepare), taken while
 * its parse is at hand: tree is NULL when prepare made none. */
static int memo_object(struct kix_log *l, struct prepared_object *o, const json_t *tree,
                       int sent_canonical, struct kix_err *err)
{
    struct kix_log_object view = {kix_buf_bytes(&o->canon), tree, sent_canonical};
    int rc;

    if (!l->indexer || !l->indexer->prepare)
        return KIX_OK;
    rc = l->indexer->prepare(&view, o->memo, err);
    o->memoed = rc == KIX_OK;
    return rc;
}

/* An object with a "kind" is a record: it must be one of the kinds the
 * schemas define (proto/schema) and valid against its schema; on submit
 * (rules), it must also pass the record rules (kix/record_rules.h), which a
 * replica does not apply to what its upstream logged before them. Objects
 * without one (evidence files, ...) are opaque, and can be named by no
 * field that requires a kind. */
static int validate_record(const json_t *tree, struct prepared_object *o, int rules,
                           struct kix_err *err)
{
    struct kix_schema_result res;
    const char *kind;
    int rc;

    if (!json_object_get(tree, "kind"))
        return KIX_OK;
    rc = kix_record_validate(tree, &res, err);
    if (rc == KIX_OK && rules) {
        rc = kix_record_rules_check(tree, (int64_t)time(NULL), err);
        if (rc)
            kix_schema_result_release(&res);
    }
    if (rc) {
        kind = json_string_value(json_object_get(tree, "kind"));
        if (rc == KIX_EINVAL)
            kix_err_wrap(err, "record %s", kix_record_kind_known(kind) ? kind : "of no known kind");
        return rc;
    }
    kind = json_string_value(json_object_get(tree, "kind"));
    snprintf(o->kind, sizeof(o->kind), "%s", kind);
    o->kind_refs = res.refs;
    o->nkind_refs = res.nrefs;
    return KIX_OK;
}

/* An object that arrives canonical (what kix clients send) is kept as it
 * came, its references found by one scan (kix_refs_canonical): no
 * canonical form is written. A record (an object with a kind) is still
 * checked against its schema, on the tree the recogniser built, which the
 * indexer's memo then reads too; unless it is stored already
 * (o->stored_before), when its references are all it needs. */
static int prepare_canonical(struct kix_log *l, struct prepared_object *o,
                             const struct kix_bytes *in, const json_t *tree, int rules,
                             struct kix_err *err)
{
    int rc = kix_buf_add(&o->canon, in->ptr, in->len);

    if (rc == KIX_OK)
        rc = kix_refs_canonical(o->canon.ptr, o->canon.len, &o->refs, &o->nrefs);
    if (rc)
        return kix_err_set(err, rc, "canonicalizing: %s", kix_strerror(rc));
    if (o->stored_before)
        return KIX_OK; /* it passed the rest when it was stored */
    if (tree)
        rc = validate_record(tree, o, rules, err);
    if (rc == KIX_OK)
        rc = memo_object(l, o, tree, 1, err);
    return rc;
}

/* Whether the canonical object with this digest is stored already (a
 * shared workload, protocol, environment or implementation that a client
 * sent again). One read transaction for the bundle, begun on first need. */
static int stored_before(struct kix_log *l, struct kix_reader **r, const struct kix_digest *d)
{
    MDB_val v;

    if (!*r && kix_store_read_begin(l->store, r) != KIX_OK)
        return 0; /* then it is prepared in full, as if new */
    return kix__object_get(l->store, (*r)->txn, (*r)->itxn, d->b, &v) == KIX_OK;
}

/* One walk per object: it is recognised as canonical and its tree built
 * in the same pass, the tree its record check and the indexer's memo
 * read. The digest is taken first, on the bytes as they came (the object
 * is kept as it came when canonical, and a canonical object stored before
 * needs no tree): only for an object that is not canonical, which clients
 * do not send, is it taken again, of the canonical form. */
static int prepare_object(struct kix_log *l, struct prepared_object *o, const struct kix_bytes *in,
                          const struct kix_digest *subject, int rules, struct kix_reader **r,
                          struct kix__clock *clk, struct kix_err *err)
{
    struct kix_json_arena arena KIX_JSON_ARENA_SCOPED; /* its poison lifted on return */
    json_t *tree = NULL;
    int rc, canonical, in_arena = 0;

    /* the subject is new (a manifest is published once): look up the rest */
    kix_digest_of(in->ptr, in->len, &o->digest);
    o->stored_before = memcmp(o->digest.b, subject->b, 32) != 0 && stored_before(l, r, &o->digest);
    kix__clock_mark(clk, KIX_LOG_PHASE_HASH);
    if (o->stored_before || !memmem(in->ptr, in->len, "\"kind\":", 7)) {
        canonical = kix_canon_is_canonical(in->ptr, in->len, &l->store->canon); /* no tree read */
        rc = KIX_OK;
    } else {
        /* the tree is read here and dropped (kix/json.h): its nodes come
         * from one arena, freed at once, not one by one */
        in_arena = kix_json_arena_open(&arena);
        rc = kix_canon_recognise_tree(in->ptr, in->len, &l->store->canon, &canonical, &tree, err);
        kix_json_arena_stop(&arena);
    }
    if (rc == KIX_OK && canonical)
        rc = prepare_canonical(l, o, in, tree, rules, err);
    if (in_arena)
        kix_json_arena_release(&arena);
    else
        json_decref(tree);
    if (rc || canonical) {
        kix__clock_mark(clk, KIX_LOG_PHASE_CANON);
        return rc;
    }
    o->stored_before = 0;
    rc = kix_canon_parse_tree(in->ptr, in->len, &l->store->canon, &tree, err);
    if (rc)
        return rc;
    rc = validate_record(tree, o, rules, err);
    if (rc) {
        json_decref(tree);
        return rc;
    }
    rc = kix_canon_write_tree(tree, &o->canon);
    if (rc == KIX_OK)
        rc = kix_refs_collect_tree(tree, &o->refs, &o->nrefs);
    if (rc) {
        json_decref(tree);
        return kix_err_set(err, rc, "canonicalizing: %s", kix_strerror(rc));
    }
    rc = memo_object(l, o, tree, 0, err);
    json_decref(tree);
    kix__clock_mark(clk, KIX_LOG_PHASE_CANON);
    if (rc)
        return rc;
    kix_digest_of(o->canon.ptr, o->canon.len, &o->digest);
    kix__clock_mark(clk, KIX_LOG_PHASE_HASH);
    return KIX_OK;
}

/* Every object of a bundle is one the entry needs or one another object
 * of the bundle refers to: nothing rides along that no entry covers. */
static int check_bundle(const struct kix_prepared *p, struct kix_err *err)
{
    for (size_t i = 0; i < p->nobjects; i++) {
        const struct kix_digest *d = &p->objects[i].digest;
        int wanted = 0;
        for (size_t k = 0; !wanted && k < p->entry.nneeds; k++)
            wanted = memcmp(p->entry.needs[k].b, d->b, 32) == 0;
        for (size_t j = 0; !wanted && j < p->nobjects; j++)
            for (size_t k = 0; !wanted && j != i && k < p->objects[j].nrefs; k++)
                wanted = memcmp(p->objects[j].refs[k].b, d->b, 32) == 0;
        if (!wanted) {
            char text[KIX_DIGEST_TEXT_LEN + 1];
            kix_digest_format(d, text);
            return kix_err_set(err, KIX_EINVAL,
                               "object %zu (%s) is neither needed by the entry nor referenced by "
                               "another object of the bundle; send only what the entry needs",
                               i, text);
        }
    }
    return KIX_OK;
}

static int prepare_objects(struct kix_log *l, struct kix_prepared *p,
                           const struct kix_submission *sub, int rules, struct kix__clock *clk,
                           struct kix_err *err)
{
    struct kix_reader *r = NULL;
    int rc = KIX_OK;

    if (sub->nobjects > KIX_BUNDLE_MAX_OBJECTS)
        return kix_err_set(err, KIX_ELIMIT, "a submission carries at most %u objects, not %zu",
                           KIX_BUNDLE_MAX_OBJECTS, sub->nobjects);
    if (!sub->nobjects)
        return KIX_OK;
    p->objects = calloc(sub->nobjects, sizeof(*p->objects));
    if (!p->objects)
        return KIX_ENOMEM;
    for (size_t i = 0; rc == KIX_OK && i < sub->nobjects; i++) {
        p->nobjects++;
        rc = prepare_object(l, &p->objects[i], &sub->objects[i], &p->entry.subject, rules, &r, clk,
                            err);
        if (rc)
            kix_err_wrap(err, "object %zu", i);
    }
    if (r)
        kix_store_read_end(r);
    return rc;
}

/* The predicate against its schema (proto/schema/<type>.schema.json); the
 * kinds it requires of the objects it names are kept for the writer. */
static int validate_predicate(struct kix_prepared *p, const json_t *pred, struct kix_err *err)
{
    const struct kix_schema *s = NULL;
    const char *subject_kind;
    struct kix_schema_result res;
    int rc = kix_schema_builtin(kix_entry_type_name(p->entry.type), &s, err);

    if (rc == KIX_OK)
        rc = kix_schema_validate(s, pred, &res);
    if (rc)
        return rc == KIX_ENOMEM ? kix_err_set(err, rc, "out of memory") : rc;
    if (!res.valid)
        return kix_err_set(err, KIX_EINVAL, "%s entry: /predicate%s: %s",
                           kix_entry_type_name(p->entry.type), res.pointer, res.message);
    p->kind_refs = res.refs;
    p->nkind_refs = res.nrefs;
    for (size_t i = 0; i < p->nkind_refs; i++) {
        char ptr[KIX_SCHEMA_POINTER_MAX];
        snprintf(ptr, sizeof(ptr), "/predicate%.*s", (int)sizeof(ptr) - 16,
                 p->kind_refs[i].pointer);
        memcpy(p->kind_refs[i].pointer, ptr, sizeof(ptr));
    }
    subject_kind = kix_schema_subject_kind(s);
    /* the subject of a publication is the manifest it publishes (entries
     * about a run name the run's manifest, which the index checks) */
    if (subject_kind && p->entry.type == KIX_ENTRY_PUBLICATION) {
        struct kix_schema_ref *refs = realloc(p->kind_refs, (p->nkind_refs + 1) * sizeof(*refs));
        if (!refs)
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        p->kind_refs = refs;
        memset(&refs[p->nkind_refs], 0, sizeof(*refs));
        snprintf(refs[p->nkind_refs].pointer, sizeof(refs->pointer), "/subject/0/digest/sha256");
        snprintf(refs[p->nkind_refs].kind, sizeof(refs->kind), "%s", subject_kind);
        refs[p->nkind_refs++].digest = p->entry.subject;
    }
    return KIX_OK;
}

int kix_log_prepare_leaf(struct kix_log *l, const struct kix_bytes *envelope,
                         struct kix_prepared **out, struct kix_err *err)
{
    struct kix_prepared *p = malloc(sizeof(*p));
    struct kix_json_arena arena KIX_JSON_ARENA_SCOPED; /* its poison lifted on return */
    json_t *pred = NULL;
    struct kix__clock clk;
    int rc, in_arena;

    *out = NULL;
    if (!p)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    memset(p, 0, offsetof(struct kix_prepared, env));
    kix_dsse_envelope_init(&p->env);
    kix__clock_start(&clk, &l->phases, KIX__CLOCK_PREPARE);
    /* An envelope the canonical reader takes is its own encoding (kix/dsse.h):
     * stored as it came unless its keyid needed lowering, which saves
     * encoding the payload's base64 again (~8k instructions an entry). */
    rc = kix_dsse_parse(envelope->ptr, envelope->len, &p->env, err);
    if (rc)
        goto fail;
    if (strcmp(p->env.payload_type, KIX_DSSE_INTOTO_TYPE) != 0) {
        rc = kix_err_set(err, KIX_EINVAL, "payloadType must be " KIX_DSSE_INTOTO_TYPE);
        goto fail;
    }
    if (kix_entry_canonical_keyid(&p->env) == 0 && p->env.read_canonical)
        rc = kix_buf_add(&p->leaf, envelope->ptr, envelope->len) == KIX_OK
                 ? KIX_OK
                 : kix_err_set(err, KIX_ENOMEM, "out of memory");
    else
        rc = kix_dsse_encode(&p->env, &p->leaf, err);
    if (rc)
        goto fail;
    if (p->leaf.len > KIX_LEAF_MAX) {
        rc = kix_err_set(err, KIX_ELIMIT,
                         "the envelope is %zu bytes canonical, over the %u-byte "
                         "leaf limit",
                         p->leaf.len, KIX_LEAF_MAX);
        goto fail;
    }
    kix__clock_mark(&clk, KIX_LOG_PHASE_CANON);
    kix_merkle_leaf_hash(p->leaf.ptr, p->leaf.len, &p->leaf_hash);
    rc = kix__statement_hash(&p->env, &p->statement_hash);
    kix__clock_mark(&clk, KIX_LOG_PHASE_HASH);
    if (rc) {
        kix_err_set(err, rc, "out of memory");
        goto fail;
    }
    /* the statement's tree, read here and dropped, in an arena (kix/json.h) */
    in_arena = kix_json_arena_open(&arena);
    rc = kix_entry_parse_statement_tree(&p->entry, p->env.payload.ptr, p->env.payload.len, &pred,
                                        err);
    kix_json_arena_stop(&arena);
    if (rc == KIX_OK)
        rc = validate_predicate(p, pred, err);
    if (in_arena)
        kix_json_arena_release(&arena);
    else
        json_decref(pred);
    if (rc == KIX_OK)
        rc = kix_entry_signer(&p->entry, &p->env, err);
    kix__clock_mark(&clk, KIX_LOG_PHASE_CANON);
    if (rc)
        goto fail;
    kix__phases_prepared(&l->phases);
    *out = p;
    return KIX_OK;
fail:
    kix_prepared_free(p);
    return rc;
}

void kix_prepared_needs(const struct kix_prepared *p, const struct kix_digest **needs, size_t *n)
{
    *needs = p->entry.needs;
    *n = p->entry.nneeds;
}

/* The objects of an entry: on submit (rules) with the record rules, from a
 * replica's upstream without them. */
static int prepare_entry_objects(struct kix_log *l, struct kix_prepared *p,
                                 const struct kix_bytes *objects, size_t nobjects, int rules,
                                 struct kix_err *err)
{
    struct kix_submission sub = {{NULL, 0}, objects, nobjects};
    struct kix__clock clk;
    int rc;

    kix__clock_start(&clk, &l->phases, KIX__CLOCK_PREPARE);
    rc = p->objects ? kix_err_set(err, KIX_EINVAL, "the entry's objects are already prepared")
                    : prepare_objects(l, p, &sub, rules, &clk, err);
    if (rc == KIX_OK)
        rc = check_bundle(p, err);
    kix__clock_mark(&clk, KIX_LOG_PHASE_POLICY);
    if (rc == KIX_OK)
        rc = verify_if_known(l, p, err);
    kix__clock_mark(&clk, KIX_LOG_PHASE_VERIFY);
    return rc;
}

int kix_log_prepare_objects(struct kix_log *l, struct kix_prepared *p,
                            const struct kix_bytes *objects, size_t nobjects, struct kix_err *err)
{
    return prepare_entry_objects(l, p, objects, nobjects, 0, err);
}

int kix_log_prepare(struct kix_log *l, const struct kix_submission *sub, struct kix_prepared **out,
                    struct kix_err *err)
{
    struct kix_prepared *p = NULL;
    int rc = kix_log_prepare_leaf(l, &sub->envelope, &p, err);

    *out = NULL;
    if (rc == KIX_OK)
        rc = prepare_entry_objects(l, p, sub->objects, sub->nobjects, 1, err);
    if (rc) {
        kix_prepared_free(p);
        return rc;
    }
    *out = p;
    return KIX_OK;
}
