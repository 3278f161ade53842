/* Preparing a submission: parse, canonicalize, read the predicate, verify
 * the signature. Stateless but for one registry lookup, so it runs on any
 * thread while the writer commits earlier batches. */
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon_internal.h"
#include "log_internal.h"
#include "base64.h"

int kix__run_id_valid(const char *s, size_t len)
{
    if (len == 0 || len > KIX_RUN_ID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return 0;
    }
    return 1;
}

static int add_need(struct kix_prepared *p, const struct kix_digest *d)
{
    struct kix_digest *n;
    for (size_t i = 0; i < p->nneeds; i++)
        if (memcmp(p->needs[i].b, d->b, 32) == 0)
            return KIX_OK;
    n = realloc(p->needs, (p->nneeds + 1) * sizeof(*n));
    if (!n)
        return KIX_ENOMEM;
    p->needs = n;
    p->needs[p->nneeds++] = *d;
    return KIX_OK;
}

/* A required string member; its length into *len. */
static const char *get_string(const json_t *obj, const char *name, size_t *len, int required,
                              struct kix_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!v) {
        if (required)
            kix_err_set(err, KIX_EINVAL, "predicate lacks \"%s\"", name);
        return NULL;
    }
    if (!json_is_string(v)) {
        kix_err_set(err, KIX_EINVAL, "predicate field \"%s\" must be a string", name);
        return NULL;
    }
    *len = json_string_length(v);
    return json_string_value(v);
}

static int get_run_id(const json_t *pred, const char *name, char *out, size_t *out_len,
                      struct kix_err *err)
{
    size_t len = 0;
    const char *s = get_string(pred, name, &len, 1, err);
    if (!s)
        return KIX_EINVAL;
    if (!kix__run_id_valid(s, len))
        return kix_err_set(err, KIX_EINVAL,
                           "predicate field \"%s\" is not a valid run id (1 to %u characters of "
                           "A-Z a-z 0-9 . _ : -)",
                           name, KIX_RUN_ID_MAX);
    memcpy(out, s, len);
    out[len] = '\0';
    *out_len = len;
    return KIX_OK;
}

static int get_digest(const json_t *pred, const char *name, struct kix_digest *d,
                      struct kix_err *err)
{
    size_t len = 0;
    int rc;
    const char *s = get_string(pred, name, &len, 1, err);
    if (!s)
        return KIX_EINVAL;
    rc = kix_digest_parse(s, len, d, err);
    if (rc)
        kix_err_wrap(err, "predicate field \"%s\"", name);
    return rc;
}

static int parse_key(struct kix_prepared *p, const json_t *pred, struct kix_err *err)
{
    size_t len = 0, n;
    const char *action = get_string(pred, "action", &len, 1, err);
    const char *pub_b64;
    const json_t *roles;
    uint8_t id[32];

    if (!action)
        return KIX_EINVAL;
    if (len == 3 && memcmp(action, "add", 3) == 0)
        p->key_revoke = 0;
    else if (len == 6 && memcmp(action, "revoke", 6) == 0)
        p->key_revoke = 1;
    else
        return kix_err_set(err, KIX_EINVAL, "key action must be \"add\" or \"revoke\"");
    pub_b64 = get_string(pred, "publicKey", &len, 1, err);
    if (!pub_b64)
        return KIX_EINVAL;
    if (kix__b64_decode(pub_b64, len, p->key_pub, sizeof(p->key_pub), &n) != 0 || n != 32)
        return kix_err_set(err, KIX_EINVAL,
                           "predicate field \"publicKey\" must be the standard base64 of a 32-byte "
                           "Ed25519 public key");
    crypto_hash_sha256(id, p->key_pub, 32);
    if (memcmp(id, p->subject.b, 32) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "the key entry's subject digest is not SHA-256 of its publicKey");
    p->key_roles = 0;
    roles = json_object_get(pred, "roles");
    if (!p->key_revoke) {
        size_t i;
        json_t *r;
        if (!json_is_array(roles) || json_array_size(roles) == 0)
            return kix_err_set(err, KIX_EINVAL, "a key add needs a non-empty \"roles\" array");
        json_array_foreach(roles, i, r)
        {
            int bit = json_is_string(r)
                          ? kix_roles_parse(json_string_value(r), json_string_length(r))
                          : -1;
            if (bit <= 0)
                return kix_err_set(err, KIX_EINVAL,
                                   "unknown role in \"roles\" (known: admin, publish, attest, "
                                   "rerun)");
            p->key_roles |= (unsigned)bit;
        }
    }
    return KIX_OK;
}

static int parse_attestation(struct kix_prepared *p, const json_t *pred, struct kix_err *err)
{
    size_t len = 0, i;
    const json_t *evidence = json_object_get(pred, "evidence");
    json_t *e;

    if (!get_string(pred, "note", &len, 1, err))
        return KIX_EINVAL;
    if (len > 16384)
        return kix_err_set(err, KIX_ELIMIT, "attestation note is over 16384 bytes");
    if (!evidence)
        return KIX_OK;
    if (!json_is_array(evidence) || json_array_size(evidence) > 32)
        return kix_err_set(err, KIX_EINVAL, "\"evidence\" must be an array of at most 32 digests");
    json_array_foreach(evidence, i, e)
    {
        struct kix_digest d;
        if (!json_is_string(e) ||
            kix_digest_parse(json_string_value(e), json_string_length(e), &d, err))
            return kix_err_set(err, KIX_EINVAL, "\"evidence\" item %zu is not a sha256: digest", i);
        if (add_need(p, &d))
            return KIX_ENOMEM;
    }
    return KIX_OK;
}

static int predicate_type(const char *t)
{
    static const struct {
        const char *uri;
        int type;
    } table[] = {
        {KIX_PREDICATE_KEY, KIX_ENTRY_KEY},
        {KIX_PREDICATE_PUBLICATION, KIX_ENTRY_PUBLICATION},
        {KIX_PREDICATE_ATTESTATION, KIX_ENTRY_ATTESTATION},
        {KIX_PREDICATE_RERUN, KIX_ENTRY_RERUN},
        {KIX_PREDICATE_SUPERSESSION, KIX_ENTRY_SUPERSESSION},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(t, table[i].uri) == 0)
            return table[i].type;
    return 0;
}

/* kix__entry_parse that can also hand out the predicate's tree (*pred_out,
 * a new reference, on success) for the caller to read more of it. */
static int entry_parse(struct kix_prepared *p, const uint8_t *payload, size_t len,
                       json_t **pred_out, struct kix_err *err)
{
    struct kix_statement st;
    json_t *pred = NULL;
    size_t olen = 0;
    const char *outcome;
    int rc;

    kix_statement_init(&st);
    rc = kix__statement_parse_tree(payload, len, &st, &pred, err);
    if (rc)
        goto out;
    p->type = predicate_type(st.predicate_type);
    if (!p->type) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "unknown predicateType %s (kix logs " KIX_PREDICATE_PREFIX
                         "{key,publication,attestation,rerun,supersession}/v1)",
                         st.predicate_type);
        goto out;
    }
    if (st.n_subjects != 1) {
        rc = kix_err_set(err, KIX_EINVAL, "a kix statement has exactly one subject, not %zu",
                         st.n_subjects);
        goto out;
    }
    memcpy(p->subject.b, st.subjects[0].sha256, 32);
    switch (p->type) {
    case KIX_ENTRY_KEY:
        rc = parse_key(p, pred, err);
        break;
    case KIX_ENTRY_PUBLICATION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK && (st.subjects[0].name_len != p->run_id_len ||
                             memcmp(st.subjects[0].name, p->run_id, p->run_id_len) != 0))
            rc = kix_err_set(err, KIX_EINVAL, "a publication's subject name must be its runId");
        if (rc == KIX_OK)
            rc = add_need(p, &p->subject);
        break;
    case KIX_ENTRY_ATTESTATION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK)
            rc = parse_attestation(p, pred, err);
        break;
    case KIX_ENTRY_RERUN:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc)
            break;
        outcome = get_string(pred, "outcome", &olen, 1, err);
        p->outcome = outcome ? kix_evidence_parse(outcome, olen) : -1;
        if (p->outcome <= KIX_EVIDENCE_REPORTED) {
            rc = kix_err_set(err, KIX_EINVAL,
                             "rerun \"outcome\" must be reproduced, not_reproduced or failed");
            break;
        }
        rc = get_digest(pred, "rerunDigest", &p->rerun_digest, err);
        if (rc == KIX_OK)
            rc = add_need(p, &p->rerun_digest);
        break;
    case KIX_ENTRY_SUPERSESSION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK)
            rc = get_run_id(pred, "newRunId", p->new_run_id, &p->new_run_id_len, err);
        if (rc == KIX_OK && p->run_id_len == p->new_run_id_len &&
            memcmp(p->run_id, p->new_run_id, p->run_id_len) == 0)
            rc = kix_err_set(err, KIX_EINVAL, "a run cannot supersede itself");
        break;
    }
out:
    if (rc == KIX_OK && pred_out) {
        *pred_out = pred;
        pred = NULL;
    }
    json_decref(pred);
    kix_statement_release(&st);
    return rc;
}

int kix__entry_parse(struct kix_prepared *p, const uint8_t *payload, size_t len,
                     struct kix_err *err)
{
    return entry_parse(p, payload, len, NULL, err);
}

void kix_prepared_free(struct kix_prepared *p)
{
    if (!p)
        return;
    kix_buf_release(&p->leaf);
    kix_dsse_envelope_release(&p->env);
    for (size_t i = 0; i < p->nobjects; i++) {
        kix_buf_release(&p->objects[i].canon);
        free(p->objects[i].refs);
    }
    free(p->objects);
    free(p->needs);
    free(p);
}

int kix_prepared_type(const struct kix_prepared *p)
{
    return p->type;
}

/* The one signature kix accepts: keyid = 64 hex of the signer's key id. */
static int signer_of(struct kix_prepared *p, struct kix_err *err)
{
    const struct kix_dsse_sig *sig;

    if (p->env.n_sigs != 1)
        return kix_err_set(err, KIX_EINVAL,
                           "a kix envelope carries exactly one signature, this one has %zu",
                           p->env.n_sigs);
    sig = &p->env.sigs[0];
    if (sig->keyid_len != 64 || kix_hex_decode(sig->keyid, 64, p->signer_id, 32) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL,
                           "the signature's keyid must be the signer's key id (64 hex digits of "
                           "SHA-256 of its public key)");
    return KIX_OK;
}

/* Verifies now when the key is known (the log key, or a registered key);
 * otherwise commit verifies once the batch has registered it. */
static int verify_if_known(struct kix_log *l, struct kix_prepared *p, struct kix_err *err)
{
    struct kix_reader *r = NULL;
    struct kix_key_info key;
    int rc, found = 0;

    if (memcmp(p->signer_id, l->log_key_id, 32) == 0) {
        memcpy(key.pub, l->verifier.pub, 32);
        found = 1;
    } else {
        rc = kix_store_read_begin(l->store, &r);
        if (rc)
            return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
        found = kix__key_get(l->store, r->txn, p->signer_id, &key) == KIX_OK;
        kix_store_read_end(r);
    }
    if (!found)
        return KIX_OK;
    rc = kix_dsse_verify(&p->env, key.pub, p->env.sigs[0].keyid, err);
    if (rc) {
        char hex[65];
        kix_hex_encode(p->signer_id, 32, hex);
        return kix_err_set(err, KIX_EVERIFY,
                           "bad signature: the envelope does not verify with "
                           "key %.16s...; sign it again with the right key",
                           hex);
    }
    memcpy(p->signer_pub, key.pub, 32);
    p->sig_checked = 1;
    return KIX_OK;
}

/* One parse per object: its canonical form, references and comparison
 * group all come from the same tree. */
static int prepare_object(struct kix_log *l, struct prepared_object *o, const struct kix_bytes *in,
                          struct kix_err *err)
{
    json_t *tree = NULL;
    char metric[16];
    int rc = kix__canon_parse(in->ptr, in->len, &l->store->canon, &tree, err);

    if (rc)
        return rc;
    rc = kix__canon_json(tree, &o->canon);
    if (rc == KIX_OK)
        rc = kix__refs_collect(tree, &o->refs, &o->nrefs);
    if (rc == KIX_OK)
        o->comparable =
            kix__comparison_key_of(tree, &o->comparison_key, &o->value, metric) == KIX_OK;
    json_decref(tree);
    if (rc)
        return kix_err_set(err, rc, "canonicalizing: %s", kix_strerror(rc));
    kix_digest_of(o->canon.ptr, o->canon.len, &o->digest);
    return KIX_OK;
}

static int prepare_objects(struct kix_log *l, struct kix_prepared *p,
                           const struct kix_submission *sub, struct kix_err *err)
{
    if (sub->nobjects > KIX_BUNDLE_MAX_OBJECTS)
        return kix_err_set(err, KIX_ELIMIT, "a submission carries at most %u objects, not %zu",
                           KIX_BUNDLE_MAX_OBJECTS, sub->nobjects);
    if (!sub->nobjects)
        return KIX_OK;
    p->objects = calloc(sub->nobjects, sizeof(*p->objects));
    if (!p->objects)
        return KIX_ENOMEM;
    for (size_t i = 0; i < sub->nobjects; i++) {
        struct prepared_object *o = &p->objects[i];
        int rc;
        p->nobjects++;
        rc = prepare_object(l, o, &sub->objects[i], err);
        if (rc) {
            kix_err_wrap(err, "object %zu", i);
            return rc;
        }
    }
    return KIX_OK;
}

int kix_log_prepare_leaf(struct kix_log *l, const struct kix_bytes *envelope,
                         struct kix_prepared **out, struct kix_err *err)
{
    struct kix_prepared *p = calloc(1, sizeof(*p));
    int rc;

    (void)l;
    *out = NULL;
    if (!p)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_dsse_envelope_init(&p->env);
    rc = kix_dsse_parse(envelope->ptr, envelope->len, &p->env, err);
    if (rc)
        goto fail;
    if (strcmp(p->env.payload_type, KIX_DSSE_INTOTO_TYPE) != 0) {
        rc = kix_err_set(err, KIX_EINVAL, "payloadType must be " KIX_DSSE_INTOTO_TYPE);
        goto fail;
    }
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
    kix_merkle_leaf_hash(p->leaf.ptr, p->leaf.len, &p->leaf_hash);
    rc = kix__entry_parse(p, p->env.payload.ptr, p->env.payload.len, err);
    if (rc == KIX_OK)
        rc = signer_of(p, err);
    if (rc)
        goto fail;
    *out = p;
    return KIX_OK;
fail:
    kix_prepared_free(p);
    return rc;
}

void kix_prepared_needs(const struct kix_prepared *p, const struct kix_digest **needs, size_t *n)
{
    *needs = p->needs;
    *n = p->nneeds;
}

int kix_log_prepare_objects(struct kix_log *l, struct kix_prepared *p,
                            const struct kix_bytes *objects, size_t nobjects, struct kix_err *err)
{
    struct kix_submission sub = {{NULL, 0}, objects, nobjects};
    int rc = p->objects ? kix_err_set(err, KIX_EINVAL, "the entry's objects are already prepared")
                        : prepare_objects(l, p, &sub, err);

    if (rc == KIX_OK)
        rc = verify_if_known(l, p, err);
    return rc;
}

int kix_log_prepare(struct kix_log *l, const struct kix_submission *sub, struct kix_prepared **out,
                    struct kix_err *err)
{
    struct kix_prepared *p = NULL;
    int rc = kix_log_prepare_leaf(l, &sub->envelope, &p, err);

    *out = NULL;
    if (rc == KIX_OK)
        rc = kix_log_prepare_objects(l, p, sub->objects, sub->nobjects, err);
    if (rc) {
        kix_prepared_free(p);
        return rc;
    }
    *out = p;
    return KIX_OK;
}

int kix_entry_needs(const uint8_t *leaf, size_t len, struct kix_digest **out, size_t *n,
                    struct kix_err *err)
{
    struct kix_prepared p;
    int rc;

    *out = NULL;
    *n = 0;
    memset(&p, 0, sizeof(p));
    kix_dsse_envelope_init(&p.env);
    rc = kix_dsse_parse(leaf, len, &p.env, err);
    if (rc == KIX_OK)
        rc = kix__entry_parse(&p, p.env.payload.ptr, p.env.payload.len, err);
    kix_dsse_envelope_release(&p.env);
    if (rc) {
        free(p.needs);
        return rc;
    }
    *out = p.needs;
    *n = p.nneeds;
    return KIX_OK;
}

/* A string member of the predicate, copied (truncated) into out. */
static void predicate_string(const json_t *pred, const char *const *names, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; pred && names[i]; i++) {
        json_t *v = json_object_get(pred, names[i]);
        if (json_is_string(v)) {
            snprintf(out, cap, "%s", json_string_value(v));
            break;
        }
    }
}

int kix_entry_describe(const uint8_t *leaf, size_t len, struct kix_entry_summary *out,
                       struct kix_err *err)
{
    static const char *const times[] = {"publishedAt", "attestedAt", "observedAt", "supersededAt",
                                        NULL};
    static const char *const notes[] = {"note", "reason", NULL};
    static const char *const sources[] = {"source", NULL};
    static const char *const licenses[] = {"license", NULL};
    struct kix_prepared p;
    json_t *pred = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&p, 0, sizeof(p));
    kix_dsse_envelope_init(&p.env);
    rc = kix_dsse_parse(leaf, len, &p.env, err);
    if (rc == KIX_OK)
        rc = entry_parse(&p, p.env.payload.ptr, p.env.payload.len, &pred, err);
    if (rc == KIX_OK)
        rc = signer_of(&p, err);
    if (rc == KIX_OK) {
        out->type = p.type;
        memcpy(out->run_id, p.run_id, sizeof(out->run_id));
        memcpy(out->new_run_id, p.new_run_id, sizeof(out->new_run_id));
        out->subject = p.subject;
        memcpy(out->signer, p.signer_id, 32);
        out->outcome = p.outcome;
        out->rerun_digest = p.rerun_digest;
        out->key_revoke = p.key_revoke;
        out->key_roles = p.key_roles;
        predicate_string(pred, times, out->time, sizeof(out->time));
        predicate_string(pred, notes, out->note, sizeof(out->note));
        predicate_string(pred, sources, out->source, sizeof(out->source));
        predicate_string(pred, licenses, out->license, sizeof(out->license));
    }
    json_decref(pred);
    kix_dsse_envelope_release(&p.env);
    free(p.needs);
    return rc;
}
