/* Witness cosignatures of stored checkpoints (c2sp.org/tlog-cosignature):
 * verified against the caller's witness keys and the stored checkpoint, kept
 * one per witness and size in T_COSIGS, served after the log's signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"

#define SIG_PREFIX "\xe2\x80\x94 " /* "— " */

size_t kix__cosig_key(uint8_t *out, uint64_t size, uint32_t key_hash, const char *name,
                      size_t name_len)
{
    kix_u64be_put(out, size);
    out[8] = (uint8_t)(key_hash >> 24);
    out[9] = (uint8_t)(key_hash >> 16);
    out[10] = (uint8_t)(key_hash >> 8);
    out[11] = (uint8_t)key_hash;
    memcpy(out + 12, name, name_len);
    return 12 + name_len;
}

struct add_ctx {
    uint64_t size;
    const char *text; /* the cosigned checkpoint's text */
    size_t text_len;
    const char *line; /* without its "\n" */
    size_t line_len;
    uint64_t time;
    const struct kix_verifier *witness;
    int stored;
};

static int add_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct add_ctx *c = arg;
    uint8_t kb[12 + KIX_NOTE_NAME_MAX], cp[8];
    MDB_val key = {0, kb}, val, ckey = {8, cp}, cval;
    size_t name_len = strlen(c->witness->name);
    int rc;

    c->stored = 0;
    kix_u64be_put(cp, c->size);
    rc = mdb_get(txn, s->dbi[T_CHECKPOINTS], &ckey, &cval);
    if (rc == MDB_NOTFOUND)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "this log has no checkpoint at size %llu to attach a cosignature to",
                           (unsigned long long)c->size);
    if (rc)
        return kix__db_error(rc, err, "reading a checkpoint");
    /* the stored note is the same text, a blank line, then signatures */
    if (cval.mv_size <= c->text_len || memcmp(cval.mv_data, c->text, c->text_len) != 0 ||
        ((const char *)cval.mv_data)[c->text_len] != '\n')
        return kix_err_set(err, KIX_EVERIFY,
                           "the cosigned checkpoint is not this log's checkpoint at size %llu "
                           "(its root differs: a fork, or another log's checkpoint)",
                           (unsigned long long)c->size);
    key.mv_size = kix__cosig_key(kb, c->size, c->witness->key_hash, c->witness->name, name_len);
    rc = mdb_get(txn, s->dbi[T_COSIGS], &key, &val);
    if (rc == 0 && val.mv_size >= 8) {
        /* value: u64be time ‖ line; keep the newest */
        uint64_t old = kix_u64be_get(val.mv_data);
        if (old >= c->time)
            return KIX_OK;
    } else if (rc && rc != MDB_NOTFOUND) {
        return kix__db_error(rc, err, "reading a cosignature");
    }
    val.mv_size = 8 + c->line_len;
    rc = mdb_put(txn, s->dbi[T_COSIGS], &key, &val, MDB_RESERVE);
    if (rc)
        return kix__db_error(rc, err, "writing a cosignature");
    kix_u64be_put(val.mv_data, c->time);
    memcpy((uint8_t *)val.mv_data + 8, c->line, c->line_len);
    c->stored = 1;
    return KIX_OK;
}

/* 1 when one of the keys has the name and key hash of the note's only line. */
static int known_key(const struct kix_verifier *keys, size_t n, const struct kix_note *note)
{
    const struct kix_note_sig *sig = &note->sigs[0];
    for (size_t i = 0; i < n; i++)
        if (keys[i].key_hash == sig->key_hash && strlen(keys[i].name) == sig->name.len &&
            memcmp(keys[i].name, sig->name.ptr, sig->name.len) == 0)
            return 1;
    return 0;
}

int kix_log_add_cosignature(struct kix_log *l, const char *checkpoint, size_t len, const char *line,
                            size_t line_len, const struct kix_verifier *witnesses,
                            size_t nwitnesses, uint64_t *size, int *stored, struct kix_err *err)
{
    struct kix_note *note = NULL, *cosigned = NULL;
    struct kix_checkpoint cp;
    struct kix_buf joined = KIX_BUF_INIT;
    struct add_ctx c;
    const struct kix_verifier *w;
    int rc;

    if (stored)
        *stored = 0;
    if (l->store->read_only || l->store->no_cosigs)
        return kix_err_set(err, KIX_EREADONLY,
                           "this store is open read-only; it cannot keep cosignatures");
    if (line_len > 0 && line[line_len - 1] == '\n')
        line_len--;
    if (line_len < sizeof(SIG_PREFIX) || memcmp(line, SIG_PREFIX, sizeof(SIG_PREFIX) - 1) != 0 ||
        memchr(line, '\n', line_len))
        return kix_err_set(err, KIX_EINVAL,
                           "a cosignature must be one signature line \"— <name> <base64>\"");
    note = malloc(sizeof(*note));
    cosigned = malloc(sizeof(*cosigned));
    if (!note || !cosigned) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_checkpoint_open(checkpoint, len, &l->verifier, 1, l->origin, note, &cp, err);
    if (rc) {
        kix_err_wrap(err, "the cosigned checkpoint");
        goto out;
    }
    /* the checkpoint's text with the cosignature as its only signature */
    rc = kix_buf_add(&joined, note->text.ptr, note->text.len);
    if (!rc)
        rc = kix_buf_addc(&joined, '\n');
    if (!rc)
        rc = kix_buf_add(&joined, line, line_len);
    if (!rc)
        rc = kix_buf_addc(&joined, '\n');
    if (rc) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_note_open((const char *)joined.ptr, joined.len, witnesses, nwitnesses, cosigned, err);
    if (rc == KIX_EVERIFY && cosigned->nsigs == 1 && !known_key(witnesses, nwitnesses, cosigned))
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the cosignature of %.*s is not by a witness this log accepts (%zu "
                         "witness keys configured)",
                         (int)cosigned->sigs[0].name.len, (const char *)cosigned->sigs[0].name.ptr,
                         nwitnesses);
    if (rc) {
        kix_err_wrap(err, "cosignature of the checkpoint at size %llu",
                     (unsigned long long)cp.size);
        goto out;
    }
    if (cosigned->nsigs != 1 || cosigned->nverified != 1) {
        rc = kix_err_set(err, KIX_EINVAL, "a cosignature must be exactly one signature line");
        goto out;
    }
    w = &witnesses[cosigned->verified[0]];
    if (w->alg != KIX_NOTE_ALG_COSIGN) {
        rc = kix_err_set(err, KIX_EVERIFY,
                         "witness key %s is not a cosignature (0x04) key; make one with kix "
                         "keygen --witness",
                         w->name);
        goto out;
    }
    memset(&c, 0, sizeof(c));
    c.size = cp.size;
    c.text = (const char *)note->text.ptr;
    c.text_len = note->text.len;
    c.line = line;
    c.line_len = line_len;
    c.time = cosigned->sigs[0].timestamp;
    c.witness = w;
    rc = kix__db_write(l->store, add_fn, &c, err);
    if (rc == KIX_OK) {
        if (size)
            *size = cp.size;
        if (stored)
            *stored = c.stored;
    }
out:
    kix_buf_release(&joined);
    free(note);
    free(cosigned);
    return rc;
}
