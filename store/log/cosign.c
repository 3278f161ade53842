/* Witness cosignatures of stored checkpoints (c2sp.org/tlog-cosignature):
 * verified against the caller's witness keys and the stored checkpoint, kept
 * one per witness and size in T_COSIGS, served after the log's signature.
 * The same for the index notes signed beside them (T_INDEX_COSIGS), whose
 * cosignatures also keep the hash of the note text they cover: a rebuilt
 * index re-signs its notes, and a cosignature of an older text is then not
 * served. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/sha256.h"
#include "log_internal.h"

#define SIG_PREFIX "\xe2\x80\x94 " /* "— " */

size_t kix__cosig_key(uint8_t *out, uint64_t size, uint32_t key_hash, const char *name,
                      size_t name_len)
{
    kix_u64be_put(out, size);
    kix_u32be_put(out + 8, key_hash);
    memcpy(out + 12, name, name_len);
    return 12 + name_len;
}

struct add_ctx {
    int index; /* 0: a checkpoint's cosignature; 1: an index note's */
    uint64_t size;
    const char *text; /* the cosigned note's text */
    size_t text_len;
    const char *line; /* without its "\n" */
    size_t line_len;
    uint64_t time;
    const struct kix_verifier *witness;
    int stored;
};

/* Values: u64be time ‖ (index notes: SHA-256 of the text covered) ‖ line. */
static int add_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct add_ctx *c = arg;
    const char *what = c->index ? "index note" : "checkpoint";
    int notes = c->index ? T_INDEX_NOTES : T_CHECKPOINTS,
        cosigs = c->index ? T_INDEX_COSIGS : T_COSIGS;
    size_t hash_len = c->index ? 32 : 0, name_len = strlen(c->witness->name);
    uint8_t kb[12 + KIX_NOTE_NAME_MAX], nk[8], h[32];
    MDB_val key = {0, kb}, val, nkey = {8, nk}, nval;
    int rc;

    c->stored = 0;
    if (c->index && s->no_index_notes)
        return kix_err_set(err, KIX_ENOTFOUND, "this log keeps no index notes");
    kix_u64be_put(nk, c->size);
    rc = mdb_get(txn, s->dbi[notes], &nkey, &nval);
    if (rc == MDB_NOTFOUND)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "this log has no %s at size %llu to attach a cosignature to", what,
                           (unsigned long long)c->size);
    if (rc)
        return kix__db_error(rc, err, "reading a signed note");
    /* the stored note is the same text, a blank line, then signatures */
    if (nval.mv_size <= c->text_len || memcmp(nval.mv_data, c->text, c->text_len) != 0 ||
        ((const char *)nval.mv_data)[c->text_len] != '\n')
        return kix_err_set(err, KIX_EVERIFY,
                           "the cosigned %s is not this log's %s at size %llu (%s)", what, what,
                           (unsigned long long)c->size,
                           c->index ? "another index root: a split view of the index"
                                    : "its root differs: a fork, or another log's checkpoint");
    kix_sha256(c->text, c->text_len, h);
    key.mv_size = kix__cosig_key(kb, c->size, c->witness->key_hash, c->witness->name, name_len);
    rc = mdb_get(txn, s->dbi[cosigs], &key, &val);
    if (rc == 0 && val.mv_size >= 8 + hash_len) {
        /* keep the newest of the same text; one of an index note's text
         * the store no longer signs is replaced */
        if (kix_u64be_get(val.mv_data) >= c->time &&
            memcmp((const uint8_t *)val.mv_data + 8, h, hash_len) == 0)
            return KIX_OK;
    } else if (rc && rc != MDB_NOTFOUND) {
        return kix__db_error(rc, err, "reading a cosignature");
    }
    val.mv_size = 8 + hash_len + c->line_len;
    rc = mdb_put(txn, s->dbi[cosigs], &key, &val, MDB_RESERVE);
    if (rc)
        return kix__db_error(rc, err, "writing a cosignature");
    kix_u64be_put(val.mv_data, c->time);
    memcpy((uint8_t *)val.mv_data + 8, h, hash_len);
    memcpy((uint8_t *)val.mv_data + 8 + hash_len, c->line, c->line_len);
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

/* The line (validated, its "\n" cut: *line_len) as a cosignature of `text`
 * by one of `witnesses`: *w the witness, *time its timestamp. `what` names
 * the note in messages. */
static int verify_line(const uint8_t *text, size_t text_len, const char *line, size_t *line_len,
                       const struct kix_verifier *witnesses, size_t nwitnesses, const char *what,
                       uint64_t size, const struct kix_verifier **w, uint64_t *time,
                       struct kix_err *err)
{
    struct kix_note *cosigned = NULL;
    struct kix_buf joined = KIX_BUF_INIT;
    size_t len = *line_len;
    int rc;

    if (len > 0 && line[len - 1] == '\n')
        len--;
    *line_len = len;
    if (len < sizeof(SIG_PREFIX) || memcmp(line, SIG_PREFIX, sizeof(SIG_PREFIX) - 1) != 0 ||
        memchr(line, '\n', len))
        return kix_err_set(err, KIX_EINVAL,
                           "a cosignature must be one signature line \"— <name> <base64>\"");
    cosigned = malloc(sizeof(*cosigned));
    if (!cosigned)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* the note's text with the cosignature as its only signature */
    rc = kix_buf_add(&joined, text, text_len);
    if (!rc)
        rc = kix_buf_addc(&joined, '\n');
    if (!rc)
        rc = kix_buf_add(&joined, line, len);
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
        kix_err_wrap(err, "cosignature of the %s at size %llu", what, (unsigned long long)size);
        goto out;
    }
    if (cosigned->nsigs != 1 || cosigned->nverified != 1) {
        rc = kix_err_set(err, KIX_EINVAL, "a cosignature must be exactly one signature line");
        goto out;
    }
    *w = &witnesses[cosigned->verified[0]];
    *time = cosigned->sigs[0].timestamp;
    if ((*w)->alg != KIX_NOTE_ALG_COSIGN)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "witness key %s is not a cosignature (0x04) key; make one with kix "
                         "keygen --witness",
                         (*w)->name);
out:
    kix_buf_release(&joined);
    free(cosigned);
    return rc;
}

static int writable(const struct kix_log *l, struct kix_err *err)
{
    if (l->store->read_only || l->store->no_cosigs)
        return kix_err_set(err, KIX_EREADONLY,
                           "this store is open read-only; it cannot keep cosignatures");
    return KIX_OK;
}

int kix_log_add_cosignature(struct kix_log *l, const char *checkpoint, size_t len, const char *line,
                            size_t line_len, const struct kix_verifier *witnesses,
                            size_t nwitnesses, uint64_t *size, int *stored, struct kix_err *err)
{
    struct kix_note *note = NULL;
    struct kix_checkpoint cp;
    struct add_ctx c;
    int rc;

    if (stored)
        *stored = 0;
    rc = writable(l, err);
    if (rc)
        return rc;
    note = malloc(sizeof(*note));
    if (!note)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_checkpoint_open(checkpoint, len, &l->verifier, 1, l->origin, note, &cp, err);
    if (rc) {
        kix_err_wrap(err, "the cosigned checkpoint");
        goto out;
    }
    memset(&c, 0, sizeof(c));
    rc = verify_line(note->text.ptr, note->text.len, line, &line_len, witnesses, nwitnesses,
                     "checkpoint", cp.size, &c.witness, &c.time, err);
    if (rc)
        goto out;
    c.size = cp.size;
    c.text = (const char *)note->text.ptr;
    c.text_len = note->text.len;
    c.line = line;
    c.line_len = line_len;
    rc = kix__db_write(l->store, add_fn, &c, err);
    if (rc == KIX_OK) {
        if (size)
            *size = cp.size;
        if (stored)
            *stored = c.stored;
    }
out:
    free(note);
    return rc;
}

int kix_log_add_index_cosignature(struct kix_log *l, uint64_t size, const char *index_note,
                                  size_t len, const char *line, size_t line_len,
                                  const struct kix_verifier *witnesses, size_t nwitnesses,
                                  int *stored, struct kix_err *err)
{
    struct kix_note *note = NULL;
    struct add_ctx c;
    int rc;

    if (stored)
        *stored = 0;
    rc = writable(l, err);
    if (rc == KIX_OK && l->store->no_index_cosigs)
        rc = kix_err_set(err, KIX_EREADONLY, "this store cannot keep index cosignatures");
    if (rc)
        return rc;
    note = malloc(sizeof(*note));
    if (!note)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_note_open(index_note, len, &l->verifier, 1, note, err);
    if (rc) {
        kix_err_wrap(err, "the cosigned index note");
        goto out;
    }
    memset(&c, 0, sizeof(c));
    rc = verify_line(note->text.ptr, note->text.len, line, &line_len, witnesses, nwitnesses,
                     "index note", size, &c.witness, &c.time, err);
    if (rc)
        goto out;
    c.index = 1;
    c.size = size;
    c.text = (const char *)note->text.ptr;
    c.text_len = note->text.len;
    c.line = line;
    c.line_len = line_len;
    rc = kix__db_write(l->store, add_fn, &c, err);
    if (rc == KIX_OK && stored)
        *stored = c.stored;
out:
    free(note);
    return rc;
}
