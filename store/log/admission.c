/* Admission: the log's policy, who may sign what (key registry and roles) and which
 * objects must be stored, checked against the state inside the writer's
 * transaction (so earlier entries of the same batch count), then the
 * writes that make an accepted entry part of the log. The index above
 * (struct kix_log_indexer) adds its own rules and writes per entry. */
#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/assert.h"
#include "log_internal.h"

static const unsigned required_role[] = {
    [KIX_ENTRY_KEY] = KIX_ROLE_ADMIN,
    [KIX_ENTRY_PUBLICATION] = KIX_ROLE_PUBLISH,
    [KIX_ENTRY_ATTESTATION] = KIX_ROLE_ATTEST,
    [KIX_ENTRY_RERUN] = KIX_ROLE_RERUN,
    [KIX_ENTRY_SUPERSESSION] = KIX_ROLE_PUBLISH,
    /* either role: the index then lets a publisher moderate only its own
     * runs (store/index/indexer.c) */
    [KIX_ENTRY_WITHDRAWAL] = KIX_ROLE_CURATE | KIX_ROLE_PUBLISH,
    [KIX_ENTRY_REINSTATEMENT] = KIX_ROLE_CURATE | KIX_ROLE_PUBLISH,
    [KIX_ENTRY_POLICY] = KIX_ROLE_ADMIN,
};

static const char *role_name(unsigned role)
{
    switch (role) {
    case KIX_ROLE_ADMIN:
        return "admin";
    case KIX_ROLE_PUBLISH:
        return "publish";
    case KIX_ROLE_ATTEST:
        return "attest";
    case KIX_ROLE_CURATE | KIX_ROLE_PUBLISH:
        return "curate (or publish, for its own runs)";
    default:
        return "rerun";
    }
}

int kix__policy_get(struct kix_store *s, MDB_txn *txn, struct kix_log_policy *out)
{
    MDB_val key = {sizeof(POLICY_META) - 1, (void *)POLICY_META}, val;
    int rc = mdb_get(txn, s->dbi[T_META], &key, &val);

    memset(out, 0, sizeof(*out));
    out->index = KIX_NO_INDEX;
    if (rc == MDB_NOTFOUND)
        return KIX_OK; /* no policy entry yet: notes from registered keys only */
    if (rc)
        return kix__db_error(rc, NULL, "reading the log's policy");
    if (val.mv_size != POLICY_RECORD_LEN)
        return KIX_ECORRUPT;
    out->open_notes = ((uint8_t *)val.mv_data)[0];
    out->note_work = ((uint8_t *)val.mv_data)[1];
    out->index = kix_u64be_get((uint8_t *)val.mv_data + 2);
    return KIX_OK;
}

/* An open note (an attestation carrying its signer's key) from a key no
 * registration names: admitted by the policy in force at this index alone,
 * which every replay holds too (it is a log entry), so a mirror and kix
 * audit reach the same verdict from the log itself. */
static int open_note_signer(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                            const char *id, struct kix_err *err)
{
    struct kix_log_policy pol;
    unsigned bits;
    int rc = kix__policy_get(l->store, txn, &pol);

    if (rc)
        return kix_err_set(err, rc, "reading the log's policy: %s", kix_strerror(rc));
    if (!pol.open_notes)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s is not registered and this log takes no open notes (its "
                           "policy, an admin's kix policy entry, does not allow them); an admin "
                           "registers the key with kix key add --role attest",
                           id);
    if (strcmp(p->entry.note_log, l->origin) != 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "the open note is for the log %s, not this one (%s): sign it for this "
                           "log",
                           p->entry.note_log, l->origin);
    /* the work first: a hash, before an Ed25519 verification */
    bits = kix_work_bits(p->statement_hash.b);
    if (bits < pol.note_work)
        return kix_err_set(err, KIX_EPOLICY,
                           "the open note carries %u bits of proof of work; this log's policy "
                           "asks %u (kix attest --open grinds them)",
                           bits, pol.note_work);
    /* what it stores: a few small objects (a reproduction record), so that
     * the log's growth under abuse stays a figure (SECURITY.md) */
    for (size_t i = 0, n = 0; i < p->nobjects; i++) {
        MDB_val v;
        /* new to the log as of this entry: the same set on every replay,
         * however its entries were batched */
        rc = kix__object_get(l->store, txn, kix__witxn(l->store), p->objects[i].digest.b, &v);
        if (rc == KIX_OK)
            continue;
        if (rc != KIX_ENOTFOUND)
            return kix_err_set(err, rc, "reading the objects: %s", kix_strerror(rc));
        if (++n > KIX_OPEN_NOTE_OBJECTS_MAX)
            return kix_err_set(err, KIX_EPOLICY, "an open note stores at most %u new objects",
                               KIX_OPEN_NOTE_OBJECTS_MAX);
        if (p->objects[i].canon.len > KIX_OPEN_NOTE_OBJECT_MAX)
            return kix_err_set(err, KIX_EPOLICY,
                               "object %zu of the open note is %zu bytes; an open note's objects "
                               "are at most %u bytes each",
                               i, p->objects[i].canon.len, KIX_OPEN_NOTE_OBJECT_MAX);
    }
    if (!p->sig_checked || memcmp(p->signer_pub, p->entry.note_pub, 32) != 0) {
        rc = kix_dsse_verify(&p->env, p->entry.note_pub, NULL, err);
        if (rc)
            return kix_err_set(err, KIX_EVERIFY,
                               "bad signature: the open note does not verify with its signerKey "
                               "%s",
                               id);
    }
    return KIX_OK;
}

int kix__policy_signer(struct kix_log *l, MDB_txn *txn, uint64_t index,
                       const struct kix_prepared *p, struct kix_err *err)
{
    struct kix_key_info key;
    unsigned need = required_role[p->entry.type];
    char id[KIX_SHORT_ID_LEN + 1];
    int rc;

    kix_hex_short_id(p->entry.signer, id);
    if (index == 0) {
        if (memcmp(p->entry.signer, l->log_key_id, 32) != 0 || p->entry.type != KIX_ENTRY_KEY ||
            p->entry.key_revoke || !(p->entry.key_roles & KIX_ROLE_ADMIN))
            return kix_err_set(err, KIX_EPOLICY,
                               "entry 0 must register the first admin key, signed by the log key");
        return KIX_OK;
    }
    if (memcmp(p->entry.signer, l->log_key_id, 32) == 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "the log key signs only entry 0; sign with a registered key");
    rc = kix__key_get(l->store, txn, p->entry.signer, &key);
    if (rc == KIX_ENOTFOUND && p->entry.type == KIX_ENTRY_ATTESTATION && p->entry.open_note)
        return open_note_signer(l, txn, p, id, err);
    if (rc == KIX_ENOTFOUND && p->entry.type == KIX_ENTRY_ATTESTATION)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s is not registered in this log; an admin adds it with kix key "
                           "add --role attest, or, where the log's policy allows open notes, "
                           "send the note as one (kix attest --open)",
                           id);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s is not registered in this log, and only a note (an "
                           "attestation) may come from an unregistered key; a %s entry needs a "
                           "key an admin added with kix key add",
                           id, kix_entry_type_name(p->entry.type));
    if (rc)
        return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
    if (key.revoked_index != KIX_NO_INDEX)
        return kix_err_set(err, KIX_EPOLICY, "key %s was revoked at log index %llu", id,
                           (unsigned long long)key.revoked_index);
    /* an open note is by definition from an unregistered key: that is what
     * every reader labels it, from the entry alone */
    if (p->entry.open_note)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s is registered in this log: sign the note as a registered "
                           "key (without signerKey: kix attest without --open), not as an "
                           "open note",
                           id);
    if (!(key.roles & need))
        return kix_err_set(err, KIX_EPOLICY, "key %s lacks the %s role needed for a %s entry", id,
                           role_name(need), kix_entry_type_name(p->entry.type));
    if (!p->sig_checked || memcmp(p->signer_pub, key.pub, 32) != 0) {
        /* The key was registered after prepare looked (same batch). */
        rc = kix_dsse_verify(&p->env, key.pub, NULL, err);
        if (rc)
            return kix_err_set(err, KIX_EVERIFY,
                               "bad signature: the envelope does not verify "
                               "with key %s",
                               id);
    }
    return KIX_OK;
}

/* Is the object stored, or carried by this submission? */
static int available(struct kix_store *s, MDB_txn *txn, const struct kix_prepared *p,
                     const struct kix_digest *d)
{
    MDB_val v;
    for (size_t i = 0; i < p->nobjects; i++)
        if (memcmp(p->objects[i].digest.b, d->b, 32) == 0)
            return KIX_OK;
    return kix__object_get(s, txn, kix__witxn(s), d->b, &v);
}

/* The top-level "kind" of canonical JSON (RFC 8785: no whitespace) by a
 * scan, the writer's cost of a kind check on a stored object: 1 with *out
 * set ("" when it is no string or too long), 0 when there is none, -1 when
 * unsure (an escape: parse instead). */
static int scan_kind(const uint8_t *p, size_t n, char out[KIX_SCHEMA_KIND_MAX])
{
    size_t i = 1;
    int depth = 1, key = 1;

    if (n == 0 || p[0] != '{')
        return -1;
    while (i < n) {
        if (p[i] == '"') {
            size_t start = ++i;
            int esc = 0;
            while (i < n && p[i] != '"') {
                esc |= p[i] == '\\';
                i += p[i] == '\\' ? 2 : 1;
            }
            if (i >= n)
                return -1;
            if (depth == 1 && key) {
                key = 0;
                if (esc)
                    return -1;
                if (i - start == 4 && memcmp(p + start, "kind", 4) == 0) {
                    size_t v = i + 2; /* past '"' and ':' */
                    out[0] = '\0';
                    if (v >= n || p[v] != '"')
                        return 1;
                    for (i = ++v; i < n && p[i] != '"'; i++)
                        if (p[i] == '\\')
                            return -1;
                    if (i < n && i - v < KIX_SCHEMA_KIND_MAX) {
                        memcpy(out, p + v, i - v);
                        out[i - v] = '\0';
                    }
                    return 1;
                }
            }
        } else if (p[i] == '{' || p[i] == '[') {
            depth++;
        } else if (p[i] == '}' || p[i] == ']') {
            depth--;
        } else if (p[i] == ',' && depth == 1) {
            key = 1;
        }
        i++;
    }
    return 0;
}

static void parse_kind(const uint8_t *p, size_t n, char kind[KIX_SCHEMA_KIND_MAX])
{
    json_t *doc = json_loadb((const char *)p, n, 0, NULL);
    const char *k = json_string_value(json_object_get(doc, "kind"));
    snprintf(kind, KIX_SCHEMA_KIND_MAX, "%s", k && strlen(k) < KIX_SCHEMA_KIND_MAX ? k : "");
    json_decref(doc);
}

/* The record kind of an object of the bundle or the store ("" when it
 * has none kix knows). KIX_ENOTFOUND when it is in neither. A stored
 * object's kind is scanned once: a digest names its bytes, so the writer
 * remembers the kinds it read (l->kinds) and only looks the object up. */
static int object_kind(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                       const struct kix_digest *d, char kind[KIX_SCHEMA_KIND_MAX])
{
    struct kix_store *s = l->store;
    struct kix__kind_memo *m = &l->kinds[d->b[0] % (sizeof(l->kinds) / sizeof(l->kinds[0]))];
    MDB_val v;
    int rc, found;

    for (size_t i = 0; i < p->nobjects; i++)
        if (!p->objects[i].stored_before && memcmp(p->objects[i].digest.b, d->b, 32) == 0) {
            memcpy(kind, p->objects[i].kind, KIX_SCHEMA_KIND_MAX);
            return KIX_OK;
        }
    rc = kix__object_get(s, txn, kix__witxn(s), d->b, &v);
    if (rc)
        return rc;
    if (m->set && memcmp(m->digest, d->b, 32) == 0) {
        memcpy(kind, m->kind, KIX_SCHEMA_KIND_MAX);
        return KIX_OK;
    }
    found = scan_kind(v.mv_data, v.mv_size, kind);
    if (found < 0)
        parse_kind(v.mv_data, v.mv_size, kind);
    else if (found == 0)
        kind[0] = '\0';
#ifndef NDEBUG
    {
        char parsed[KIX_SCHEMA_KIND_MAX];
        parse_kind(v.mv_data, v.mv_size, parsed);
        assert(strcmp(parsed, kind) == 0); /* the scan reads what a parse reads */
    }
#endif
    if (!kix_record_kind_known(kind))
        kind[0] = '\0';
    memcpy(m->digest, d->b, 32);
    memcpy(m->kind, kind, KIX_SCHEMA_KIND_MAX);
    m->set = 1;
    return KIX_OK;
}

static const char *article(const char *kind)
{
    return strchr("AEIOU", kind[0]) ? "an" : "a";
}

/* A digest field that requires a kind (x-kix-kind) names an object of it:
 * one of the entry's (o NULL) or of object o. */
static int check_kind(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                      const struct prepared_object *o, const struct kix_schema_ref *ref,
                      struct kix_err *err)
{
    char kind[KIX_SCHEMA_KIND_MAX], text[KIX_DIGEST_TEXT_LEN + 1], where[160];
    int rc = object_kind(l, txn, p, &ref->digest, kind);

    if (rc == KIX_ENOTFOUND || (rc == KIX_OK && strcmp(kind, ref->kind) == 0))
        return KIX_OK; /* (a missing object is named by the check of references) */
    if (o) {
        kix_digest_format(&o->digest, text);
        snprintf(where, sizeof(where), "record %s %s", o->kind, text);
    } else {
        snprintf(where, sizeof(where), "%s entry", kix_entry_type_name(p->entry.type));
    }
    kix_digest_format(&ref->digest, text);
    if (rc)
        return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
    return kix_err_set(err, KIX_EPOLICY, "%s: %s: must name %s %s, but %s is %s%s%s", where,
                       ref->pointer, article(ref->kind), ref->kind, text,
                       kind[0] ? article(kind) : "not a record", kind[0] ? " " : "", kind);
}

static int check_kinds(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                       struct kix_err *err)
{
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < p->nkind_refs; i++)
        rc = check_kind(l, txn, p, NULL, &p->kind_refs[i], err);
    for (size_t i = 0; rc == KIX_OK && i < p->nobjects; i++) {
        const struct prepared_object *o = &p->objects[i];
        for (size_t j = 0; rc == KIX_OK && j < o->nkind_refs; j++)
            rc = check_kind(l, txn, p, o, &o->kind_refs[j], err);
    }
    return rc;
}

static int check_objects(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                         struct kix_err *err)
{
    struct kix_store *s = l->store;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc;

    for (size_t i = 0; i < p->entry.nneeds; i++) {
        rc = available(s, txn, p, &p->entry.needs[i]);
        if (rc) {
            kix_digest_format(&p->entry.needs[i], text);
            if (rc != KIX_ENOTFOUND)
                return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
            return kix_err_set(err, KIX_EPOLICY,
                               "object %s is neither stored nor sent with the entry; include it "
                               "in the bundle",
                               text);
        }
    }
    for (size_t i = 0; i < p->nobjects; i++)
        for (size_t j = 0; j < p->objects[i].nrefs; j++) {
            rc = available(s, txn, p, &p->objects[i].refs[j]);
            if (rc) {
                kix_digest_format(&p->objects[i].refs[j], text);
                if (rc != KIX_ENOTFOUND)
                    return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
                return kix_err_set(err, KIX_EPOLICY,
                                   "missing reference: object %zu refers to %s, which is neither "
                                   "stored nor in the bundle",
                                   i, text);
            }
        }
    return check_kinds(l, txn, p, err);
}

/* The key registry's rules for a key entry. */
static int check_key_entry(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                           struct kix_err *err)
{
    struct kix_key_info key;
    char id[KIX_SHORT_ID_LEN + 1];
    int rc;

    kix_hex_short_id(p->entry.subject.b, id);
    rc = kix__key_get(l->store, txn, p->entry.subject.b, &key);
    if (rc && rc != KIX_ENOTFOUND)
        return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
    /* A live key registered again with other roles: a roles change, the
     * new roles superseding the old from this index on. A revoked key stays
     * revoked, and the same roles again change nothing. */
    if (!p->entry.key_revoke && rc == KIX_OK && key.revoked_index != KIX_NO_INDEX)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s was revoked at log index %llu; a revoked key stays revoked: "
                           "generate a new key",
                           id, (unsigned long long)key.revoked_index);
    if (!p->entry.key_revoke && rc == KIX_OK && key.roles == p->entry.key_roles)
        return kix_err_set(err, KIX_EPOLICY, "key %s already has exactly these roles", id);
    if (p->entry.key_revoke && rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EPOLICY, "key %s is not registered", id);
    if (p->entry.key_revoke && key.revoked_index != KIX_NO_INDEX)
        return kix_err_set(err, KIX_EPOLICY, "key %s is already revoked", id);
    return KIX_OK;
}

/* A policy entry names this log (its subject digest is the log key's id)
 * and changes the policy in force. */
static int check_policy_entry(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                              struct kix_err *err)
{
    struct kix_log_policy pol;
    int rc;

    if (memcmp(p->entry.subject.b, l->log_key_id, 32) != 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "a policy entry's subject digest must be this log key's id (a policy "
                           "is for one log)");
    rc = kix__policy_get(l->store, txn, &pol);
    if (rc)
        return kix_err_set(err, rc, "reading the log's policy: %s", kix_strerror(rc));
    if (pol.index != KIX_NO_INDEX && pol.open_notes == p->entry.policy_open_notes &&
        pol.note_work == p->entry.policy_note_work)
        return kix_err_set(err, KIX_EPOLICY,
                           "this policy is in force already (since log index %llu)",
                           (unsigned long long)pol.index);
    return KIX_OK;
}

static int put(MDB_txn *txn, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen,
               unsigned flags, struct kix_err *err)
{
    MDB_val key = {klen, (void *)k}, val = {vlen, (void *)v};
    int rc = mdb_put(txn, dbi, &key, &val, flags);
    return rc ? kix__db_error(rc, err, "writing the log") : KIX_OK;
}

/* digest/id(32) ‖ u64be index → type: the secondary indexes. */
static int put_ref_index(struct kix_store *s, int table, const uint8_t id[32], uint64_t index,
                         uint8_t type, struct kix_err *err)
{
    uint8_t k[40];
    memcpy(k, id, 32);
    kix_u64be_put(k + 32, index);
    return put(kix__witxn(s), kix__dbi(s, table), k, sizeof(k), &type, 1, 0, err);
}

static int write_entry(struct kix_log *l, MDB_txn *txn, uint64_t index,
                       const struct kix_prepared *p, struct kix_err *err)
{
    struct kix_store *s = l->store;
    struct kix_key_info key;
    uint8_t idx[8], rec[KEY_RECORD_LEN], type = (uint8_t)p->entry.type;
    int rc = KIX_OK;

    KIX_ASSERT(kix__db_writing(s) && p->leaf.len > 0);
    for (size_t i = 0; rc == KIX_OK && i < p->nobjects; i++)
        rc = kix__object_put(s, txn, p->objects[i].canon.ptr, p->objects[i].canon.len,
                             p->objects[i].digest.b, NULL, err);
    kix_u64be_put(idx, index);
    if (rc == KIX_OK)
        rc = kix__seg_put(s, txn, T_LEAVES, idx, p->leaf.ptr, p->leaf.len, err);
    /* the subject and statement records under the subject's digest, in
     * the objects table: beside the manifest this entry just stored, so
     * one page takes all three (layout 2, db.h). The statement record
     * keeps the leaf hash: kixd check's evidence of which of a leaf and
     * its tree hash changed, the leaf index of layout 1 */
    KIX_ASSERT(s->layout == KIX__LAYOUT); /* kix_log_open converted an older one */
    if (rc == KIX_OK) {
        uint8_t k[KIX__STATEMENT_KEY_LEN], v[KIX__STATEMENT_VAL_LEN];
        kix__statement_key(k, p->entry.subject.b, p->statement_hash.b);
        kix__statement_val(v, index, &p->leaf_hash);
        rc = put(kix__witxn(s), kix__dbi(s, T_OBJECTS), k, sizeof(k), v, sizeof(v), MDB_NOOVERWRITE,
                 err);
    }
    if (rc == KIX_OK) {
        uint8_t k[KIX__SUBJECT_KEY_LEN];
        kix__subject_key(k, p->entry.subject.b, index);
        rc = put(kix__witxn(s), kix__dbi(s, T_OBJECTS), k, sizeof(k), &type, 1, 0, err);
    }
    if (rc == KIX_OK)
        rc = put_ref_index(s, T_SIGNERS, p->entry.signer, index, type, err);
    if (rc == KIX_OK && p->entry.type == KIX_ENTRY_POLICY) {
        uint8_t v[POLICY_RECORD_LEN];
        v[0] = (uint8_t)p->entry.policy_open_notes;
        v[1] = (uint8_t)p->entry.policy_note_work;
        kix_u64be_put(v + 2, index);
        return put(txn, s->dbi[T_META], POLICY_META, sizeof(POLICY_META) - 1, v, sizeof(v), 0, err);
    }
    if (rc || p->entry.type != KIX_ENTRY_KEY)
        return rc;
    if (p->entry.key_revoke) {
        rc = kix__key_get(s, txn, p->entry.subject.b, &key);
        if (rc)
            return kix_err_set(err, rc, "reading the key registry");
        /* check_key_entry refused a second revocation: revoked stays revoked */
        KIX_ASSERT(key.revoked_index == KIX_NO_INDEX && key.added_index < index);
        key.revoked_index = index;
    } else {
        rc = kix__key_get(s, txn, p->entry.subject.b, &key);
        if (rc && rc != KIX_ENOTFOUND)
            return kix_err_set(err, rc, "reading the key registry");
        if (rc == KIX_ENOTFOUND)
            key.added_index = index; /* a roles change keeps when it was added */
        memcpy(key.pub, p->entry.key_pub, 32);
        key.roles = p->entry.key_roles;
        key.revoked_index = KIX_NO_INDEX;
    }
    kix__key_record_encode(&key, rec);
    return put(txn, s->dbi[T_KEYS], p->entry.subject.b, 32, rec, sizeof(rec), 0, err);
}

/* The view of p the indexer gets. */
static void item_of(const struct kix_prepared *p, uint64_t index, struct kix_log_item *it)
{
    memset(it, 0, sizeof(*it));
    it->index = index;
    it->leaf_hash = p->leaf_hash;
    it->entry = &p->entry;
    it->prepared = p;
}

const void *kix_log_item_memo(const struct kix_log_item *item, const struct kix_digest *d)
{
    const struct kix_prepared *p = item->prepared;

    for (size_t i = 0; p && i < p->nobjects; i++) {
        const struct prepared_object *o = &p->objects[i];
        if (!o->stored_before && o->memoed && memcmp(o->digest.b, d->b, 32) == 0)
            return o->memo;
    }
    return NULL;
}

int kix_log_item_object(struct kix_log_txn *t, const struct kix_log_item *item,
                        const struct kix_digest *d, struct kix_bytes *out)
{
    const struct kix_prepared *p = item->prepared;

    for (size_t i = 0; p && i < p->nobjects; i++)
        if (memcmp(p->objects[i].digest.b, d->b, 32) == 0) {
            *out = kix_buf_bytes(&p->objects[i].canon);
            return KIX_OK;
        }
    return kix_log_txn_object(t, d, out);
}

int kix__policy_apply(struct kix_log *l, MDB_txn *txn, uint64_t index, const struct kix_prepared *p,
                      struct kix__clock *clk, struct kix_err *err)
{
    struct kix_log_txn t = {l->store, txn, kix__witxn(l->store), 1, &l->scratch, NULL, 0};
    struct kix_log_item item;
    int rc = KIX_OK;

    item_of(p, index, &item);
    item.replayed = l->replica;
    if (rc == KIX_OK && p->entry.type == KIX_ENTRY_KEY) {
        rc = check_key_entry(l, txn, p, err);
        kix__clock_mark(clk, KIX_LOG_PHASE_POLICY);
    } else if (rc == KIX_OK && p->entry.type == KIX_ENTRY_POLICY) {
        rc = check_policy_entry(l, txn, p, err);
        kix__clock_mark(clk, KIX_LOG_PHASE_POLICY);
    } else if (rc == KIX_OK && l->indexer) {
        rc = l->indexer->check(&t, &item, err);
        kix__clock_mark(clk, KIX_LOG_PHASE_INDEX);
    }
    if (rc == KIX_OK)
        rc = check_objects(l, txn, p, err);
    kix__clock_mark(clk, KIX_LOG_PHASE_POLICY);
    if (rc == KIX_OK)
        rc = write_entry(l, txn, index, p, err);
    kix__clock_mark(clk, KIX_LOG_PHASE_COMMIT);
    if (rc == KIX_OK && l->indexer) {
        rc = l->indexer->apply(&t, &item, err);
        kix__clock_mark(clk, KIX_LOG_PHASE_INDEX);
        /* the entry is written by now: a refusal here would keep half of
         * it, so it aborts the whole batch instead */
        if (rc == KIX_EPOLICY || rc == KIX_EVERIFY || rc == KIX_EINVAL) {
            kix_err_wrap(err, "the index refused an entry its check accepted");
            rc = KIX_ECORRUPT;
        }
    }
    return rc;
}
