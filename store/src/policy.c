/* The log's policy: who may append what, checked against the state inside
 * the writer's transaction (so earlier entries of the same batch count),
 * then the writes that make an accepted entry part of the log. */
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"

static const unsigned required_role[] = {
    [KIX_ENTRY_KEY] = KIX_ROLE_ADMIN,
    [KIX_ENTRY_PUBLICATION] = KIX_ROLE_PUBLISH,
    [KIX_ENTRY_ATTESTATION] = KIX_ROLE_ATTEST,
    [KIX_ENTRY_RERUN] = KIX_ROLE_RERUN,
    [KIX_ENTRY_SUPERSESSION] = KIX_ROLE_PUBLISH,
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
    default:
        return "rerun";
    }
}

static void short_id(const uint8_t id[32], char out[17])
{
    char hex[65];
    kix_hex_encode(id, 32, hex);
    memcpy(out, hex, 16);
    out[16] = '\0';
}

static int check_signer(struct kix_log *l, MDB_txn *txn, uint64_t index,
                        const struct kix_prepared *p, struct kix_err *err)
{
    struct kix_key_info key;
    unsigned need = required_role[p->type];
    char id[17];
    int rc;

    short_id(p->signer_id, id);
    if (index == 0) {
        if (memcmp(p->signer_id, l->log_key_id, 32) != 0 || p->type != KIX_ENTRY_KEY ||
            p->key_revoke || !(p->key_roles & KIX_ROLE_ADMIN))
            return kix_err_set(err, KIX_EPOLICY,
                               "entry 0 must register the first admin key, signed by the log key");
        return KIX_OK;
    }
    if (memcmp(p->signer_id, l->log_key_id, 32) == 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "the log key signs only entry 0; sign with a registered key");
    rc = kix__key_get(l->store, txn, p->signer_id, &key);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EPOLICY,
                           "key %s is not registered in this log; an admin adds it with "
                           "kix key add",
                           id);
    if (rc)
        return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
    if (key.revoked_index != KIX_NO_INDEX)
        return kix_err_set(err, KIX_EPOLICY, "key %s was revoked at log index %llu", id,
                           (unsigned long long)key.revoked_index);
    if (!(key.roles & need))
        return kix_err_set(err, KIX_EPOLICY, "key %s lacks the %s role needed for a %s entry", id,
                           role_name(need), kix_entry_type_name(p->type));
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
    return kix__object_get(s, txn, d->b, &v);
}

static int check_objects(struct kix_store *s, MDB_txn *txn, const struct kix_prepared *p,
                         struct kix_err *err)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc;

    for (size_t i = 0; i < p->nneeds; i++) {
        rc = available(s, txn, p, &p->needs[i]);
        if (rc) {
            kix_digest_format(&p->needs[i], text);
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
    return KIX_OK;
}

static int check_run_subject(const struct kix_prepared *p, const struct kix_run_info *run,
                             struct kix_err *err)
{
    if (memcmp(run->manifest.b, p->subject.b, 32) != 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "the statement's subject is not the manifest of run %s", p->run_id);
    return KIX_OK;
}

static int find_run(struct kix_log *l, MDB_txn *txn, const char *id, size_t len,
                    struct kix_run_info *run, struct kix_err *err)
{
    int rc = kix__run_get(l->store, txn, id, len, run);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EPOLICY, "run %.*s is not published in this log", (int)len, id);
    if (rc)
        return kix_err_set(err, rc, "reading run %.*s: %s", (int)len, id, kix_strerror(rc));
    return KIX_OK;
}

/* Type-specific rules; fills the run records the writes will update. */
static int check_type(struct kix_log *l, MDB_txn *txn, const struct kix_prepared *p,
                      struct kix_run_info *run, struct kix_run_info *new_run, struct kix_err *err)
{
    struct kix_key_info key;
    char id[17];
    int rc;

    switch (p->type) {
    case KIX_ENTRY_KEY:
        short_id(p->subject.b, id);
        rc = kix__key_get(l->store, txn, p->subject.b, &key);
        if (rc && rc != KIX_ENOTFOUND)
            return kix_err_set(err, rc, "reading the key registry: %s", kix_strerror(rc));
        if (!p->key_revoke && rc == KIX_OK)
            return kix_err_set(
                err, KIX_EPOLICY, "key %s is already registered%s", id,
                key.revoked_index != KIX_NO_INDEX ? " and was revoked; generate a new key" : "");
        if (p->key_revoke && rc == KIX_ENOTFOUND)
            return kix_err_set(err, KIX_EPOLICY, "key %s is not registered", id);
        if (p->key_revoke && key.revoked_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY, "key %s is already revoked", id);
        return KIX_OK;
    case KIX_ENTRY_PUBLICATION:
        rc = kix__run_get(l->store, txn, p->run_id, p->run_id_len, run);
        if (rc == KIX_OK)
            return kix_err_set(err, KIX_EPOLICY,
                               "run id %s is already published (log index %llu); a run id is "
                               "published once",
                               p->run_id, (unsigned long long)run->publication_index);
        return rc == KIX_ENOTFOUND ? KIX_OK : rc;
    case KIX_ENTRY_ATTESTATION:
    case KIX_ENTRY_RERUN:
        rc = find_run(l, txn, p->run_id, p->run_id_len, run, err);
        return rc ? rc : check_run_subject(p, run, err);
    case KIX_ENTRY_SUPERSESSION:
        rc = find_run(l, txn, p->run_id, p->run_id_len, run, err);
        if (rc == KIX_OK)
            rc = check_run_subject(p, run, err);
        if (rc)
            return rc;
        if (memcmp(run->publisher, p->signer_id, 32) != 0)
            return kix_err_set(err, KIX_EPOLICY,
                               "only the publisher of run %s (the same key) may supersede it",
                               p->run_id);
        if (run->superseded_by_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY, "run %s was already superseded at log index %llu",
                               p->run_id, (unsigned long long)run->superseded_by_index);
        rc = find_run(l, txn, p->new_run_id, p->new_run_id_len, new_run, err);
        if (rc) {
            kix_err_wrap(err, "publish the successor first");
            return rc;
        }
        if (memcmp(new_run->publisher, p->signer_id, 32) != 0)
            return kix_err_set(err, KIX_EPOLICY,
                               "the successor run %s must be published by the same key",
                               p->new_run_id);
        return KIX_OK;
    }
    return kix_err_set(err, KIX_EINVAL, "unknown entry type");
}

static int put(MDB_txn *txn, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen,
               unsigned flags, struct kix_err *err)
{
    MDB_val key = {klen, (void *)k}, val = {vlen, (void *)v};
    int rc = mdb_put(txn, dbi, &key, &val, flags);
    return rc ? kix__db_error(rc, err, "writing the log") : KIX_OK;
}

/* digest/id(32) ‖ u64be index → type: the secondary indexes. */
static int put_ref_index(struct kix_store *s, MDB_txn *txn, int table, const uint8_t id[32],
                         uint64_t index, uint8_t type, struct kix_err *err)
{
    uint8_t k[40];
    memcpy(k, id, 32);
    kix__u64be_put(k + 32, index);
    return put(txn, s->dbi[table], k, sizeof(k), &type, 1, 0, err);
}

static int put_run_entry(struct kix_store *s, MDB_txn *txn, const char *run_id, size_t len,
                         uint64_t index, uint8_t type, struct kix_err *err)
{
    uint8_t k[KIX_RUN_ID_MAX + 9];
    memcpy(k, run_id, len);
    k[len] = 0;
    kix__u64be_put(k + len + 1, index);
    return put(txn, s->dbi[T_RUN_ENTRIES], k, len + 9, &type, 1, 0, err);
}

static int put_run(struct kix_store *s, MDB_txn *txn, const char *run_id, size_t len,
                   const struct kix_run_info *run, struct kix_err *err)
{
    uint8_t rec[RUN_RECORD_LEN];
    kix__run_record_encode(run, rec);
    return put(txn, s->dbi[T_RUNS], run_id, len, rec, sizeof(rec), 0, err);
}

/* A comparable run enters its comparison group. The manifest is usually in
 * the submission, its group found by prepare; else it was stored before. */
static int join_group(struct kix_store *s, MDB_txn *txn, const struct kix_prepared *p,
                      struct kix_run_info *run, struct kix_err *err)
{
    MDB_val stored;
    char metric[16];
    int rc;

    memcpy(run->run_id, p->run_id, p->run_id_len + 1);
    for (size_t i = 0; i < p->nobjects; i++) {
        const struct prepared_object *o = &p->objects[i];
        if (memcmp(o->digest.b, p->subject.b, 32) != 0)
            continue;
        if (!o->comparable)
            return KIX_OK;
        run->comparison_key = o->comparison_key;
        run->value = o->value;
        run->grouped = 1;
        return kix__group_insert(s, txn, run, err);
    }
    rc = kix__object_get(s, txn, p->subject.b, &stored);
    if (rc)
        return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                           "reading the run manifest");
    if (kix_run_comparison_key(stored.mv_data, stored.mv_size, &run->comparison_key, &run->value,
                               metric) != KIX_OK)
        return KIX_OK; /* not a comparable benchmark run */
    run->grouped = 1;
    return kix__group_insert(s, txn, run, err);
}

static int write_entry(struct kix_log *l, MDB_txn *txn, uint64_t index,
                       const struct kix_prepared *p, struct kix_run_info *run,
                       struct kix_run_info *new_run, struct kix_err *err)
{
    struct kix_store *s = l->store;
    uint8_t idx[8], type = (uint8_t)p->type;
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < p->nobjects; i++)
        rc = kix__object_put(s, txn, p->objects[i].canon.ptr, p->objects[i].canon.len,
                             p->objects[i].digest.b, NULL, err);
    kix__u64be_put(idx, index);
    if (rc == KIX_OK)
        rc = put(txn, s->dbi[T_LEAVES], idx, 8, p->leaf.ptr, p->leaf.len, MDB_APPEND, err);
    if (rc == KIX_OK)
        rc = put(txn, s->dbi[T_LEAF_INDEX], p->leaf_hash.b, 32, idx, 8, MDB_NOOVERWRITE, err);
    if (rc == KIX_OK)
        rc = put_ref_index(s, txn, T_SUBJECTS, p->subject.b, index, type, err);
    if (rc == KIX_OK)
        rc = put_ref_index(s, txn, T_SIGNERS, p->signer_id, index, type, err);
    if (rc)
        return rc;

    switch (p->type) {
    case KIX_ENTRY_KEY: {
        struct kix_key_info key;
        uint8_t rec[KEY_RECORD_LEN];
        if (p->key_revoke) {
            rc = kix__key_get(s, txn, p->subject.b, &key);
            if (rc)
                return kix_err_set(err, rc, "reading the key registry");
            key.revoked_index = index;
        } else {
            memcpy(key.pub, p->key_pub, 32);
            key.roles = p->key_roles;
            key.added_index = index;
            key.revoked_index = KIX_NO_INDEX;
        }
        kix__key_record_encode(&key, rec);
        return put(txn, s->dbi[T_KEYS], p->subject.b, 32, rec, sizeof(rec), 0, err);
    }
    case KIX_ENTRY_PUBLICATION:
        memset(run, 0, sizeof(*run));
        run->manifest = p->subject;
        memcpy(run->publisher, p->signer_id, 32);
        run->publication_index = index;
        run->superseded_by_index = KIX_NO_INDEX;
        run->supersedes_index = KIX_NO_INDEX;
        run->evidence = KIX_EVIDENCE_REPORTED;
        run->evidence_index = KIX_NO_INDEX;
        rc = join_group(s, txn, p, run, err);
        if (rc)
            return rc;
        break;
    case KIX_ENTRY_ATTESTATION:
        run->attestations++;
        break;
    case KIX_ENTRY_RERUN:
        run->reruns++;
        run->evidence = p->outcome;
        run->evidence_index = index;
        break;
    case KIX_ENTRY_SUPERSESSION:
        run->superseded_by_index = index;
        if (run->grouped) {
            /* a superseded run leaves the ranking */
            rc = kix__group_remove(s, txn, run, err);
            if (rc)
                return rc;
            run->grouped = 0;
        }
        new_run->supersedes_index = index;
        rc = put_run(s, txn, p->new_run_id, p->new_run_id_len, new_run, err);
        if (rc == KIX_OK)
            rc = put_run_entry(s, txn, p->new_run_id, p->new_run_id_len, index, type, err);
        if (rc)
            return rc;
        break;
    }
    rc = put_run(s, txn, p->run_id, p->run_id_len, run, err);
    if (rc == KIX_OK)
        rc = put_run_entry(s, txn, p->run_id, p->run_id_len, index, type, err);
    return rc;
}

int kix__policy_apply(struct kix_log *l, MDB_txn *txn, uint64_t index, const struct kix_prepared *p,
                      struct kix_err *err)
{
    struct kix_run_info run, new_run;
    int rc = check_signer(l, txn, index, p, err);

    if (rc == KIX_OK)
        rc = check_type(l, txn, p, &run, &new_run, err);
    if (rc == KIX_OK)
        rc = check_objects(l->store, txn, p, err);
    if (rc)
        return rc;
    return write_entry(l, txn, index, p, &run, &new_run, err);
}
