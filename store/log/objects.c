/* Content-addressed objects: digest → blob sequence → canonical bytes.
 *
 * Blobs are appended under a growing sequence number (MDB_APPEND: dense
 * pages, a third smaller than random keys); the digest table only maps the
 * 32-byte digest to that 8-byte sequence, so the random-key table stays lean.
 */
#include <stdlib.h>
#include <string.h>

#include "kix/assert.h"
#include "db.h"

int kix__object_get(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, const uint8_t digest[32],
                    MDB_val *out)
{
    MDB_val key = {32, (void *)digest}, seq;
    int rc = mdb_get(itxn, kix__dbi(s, T_OBJECTS), &key, &seq);

    if (rc)
        return rc == MDB_NOTFOUND ? KIX_ENOTFOUND : kix__db_error(rc, NULL, "reading an object");
    if (seq.mv_size != 8)
        return KIX_ECORRUPT;
    rc = mdb_get(txn, s->dbi[T_BLOBS], &seq, out);
    if (rc == MDB_NOTFOUND)
        return KIX_ECORRUPT;
    return rc ? kix__db_error(rc, NULL, "reading an object") : kix__seg_view(s, out);
}

int kix__next_blob_seq(struct kix_store *s, MDB_txn *txn, uint64_t *seq)
{
    MDB_cursor *cur;
    MDB_val k, v;
    int rc = mdb_cursor_open(txn, s->dbi[T_BLOBS], &cur);

    if (rc)
        return kix__db_error(rc, NULL, "opening a cursor");
    rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND) {
        *seq = 0;
        return KIX_OK;
    }
    if (rc)
        return kix__db_error(rc, NULL, "reading the last blob");
    *seq = kix_u64be_get(k.mv_data) + 1;
    return KIX_OK;
}

int kix__object_put(struct kix_store *s, MDB_txn *txn, const uint8_t *canon, size_t len,
                    const uint8_t digest[32], int *created, struct kix_err *err)
{
    MDB_val existing, key = {32, (void *)digest}, seqval;
    uint8_t seqbuf[8];
    uint64_t seq = 0;
    int rc;

    KIX_ASSERT(kix__db_writing(s) && len > 0);
    rc = kix__object_get(s, txn, kix__witxn(s), digest, &existing);
    if (created)
        *created = 0;
    if (rc == KIX_OK) {
        /* As git's check_collision: same digest must mean same bytes. */
        if (existing.mv_size != len || memcmp(existing.mv_data, canon, len) != 0)
            return kix_err_set(err, KIX_ECORRUPT,
                               "stored object differs from new bytes with the same digest");
        return KIX_OK;
    }
    if (rc != KIX_ENOTFOUND)
        return kix_err_set(err, rc, "reading an object: %s", kix_strerror(rc));
    rc = kix__next_blob_seq(s, txn, &seq);
    if (rc)
        return kix_err_set(err, rc, "allocating an object slot: %s", kix_strerror(rc));
    kix_u64be_put(seqbuf, seq);
    seqval.mv_size = 8;
    seqval.mv_data = seqbuf;
    rc = kix__seg_put(s, txn, T_BLOBS, seqbuf, canon, len, err);
    if (rc)
        return rc;
    rc = mdb_put(kix__witxn(s), kix__dbi(s, T_OBJECTS), &key, &seqval, MDB_NOOVERWRITE);
    if (rc)
        return kix__db_error(rc, err, "storing an object");
    if (created)
        *created = 1;
    return KIX_OK;
}

struct put_ctx {
    const uint8_t *canon;
    size_t len;
    const struct kix_digest *digest;
    int created;
};

static int put_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct put_ctx *c = arg;
    return kix__object_put(s, txn, c->canon, c->len, c->digest->b, &c->created, err);
}

int kix_store_put(struct kix_store *s, const uint8_t *json, size_t len, struct kix_digest *digest,
                  int *created, struct kix_err *err)
{
    struct kix_buf canon = KIX_BUF_INIT;
    struct put_ctx ctx;
    int rc = kix_canon(json, len, &s->canon, &canon, err);

    if (rc)
        goto out;
    kix_digest_of(canon.ptr, canon.len, digest);
    ctx.canon = canon.ptr;
    ctx.len = canon.len;
    ctx.digest = digest;
    ctx.created = 0;
    rc = kix__db_write(s, put_fn, &ctx, err);
    if (rc == KIX_OK && created)
        *created = ctx.created;
out:
    kix_buf_release(&canon);
    return rc;
}

int kix_reader_get(struct kix_reader *r, const struct kix_digest *d, struct kix_bytes *out)
{
    MDB_val v;
    int rc = kix__object_get(r->store, r->txn, r->itxn, d->b, &v);

    if (rc)
        return rc;
    out->ptr = v.mv_data;
    out->len = v.mv_size;
    return KIX_OK;
}

int kix_store_get(struct kix_store *s, const struct kix_digest *d, struct kix_buf *out,
                  struct kix_err *err)
{
    struct kix_reader *r;
    struct kix_bytes v;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_store_read_begin(s, &r);

    if (rc)
        return kix_err_set(err, rc, "starting a read: %s", kix_strerror(rc));
    rc = kix_reader_get(r, d, &v);
    if (rc == KIX_OK)
        rc = kix_buf_add(out, v.ptr, v.len);
    kix_store_read_end(r);
    if (rc) {
        kix_digest_format(d, text);
        if (rc == KIX_ENOTFOUND)
            return kix_err_set(err, rc, "object %s is not in the store", text);
        return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
    }
    return KIX_OK;
}

int kix_store_has(struct kix_store *s, const struct kix_digest *d)
{
    struct kix_reader *r;
    struct kix_bytes v;
    int rc = kix_store_read_begin(s, &r);

    if (rc)
        return rc;
    rc = kix_reader_get(r, d, &v);
    kix_store_read_end(r);
    if (rc == KIX_OK)
        return 1;
    return rc == KIX_ENOTFOUND ? 0 : rc;
}

int kix_store_count(struct kix_store *s, uint64_t *objects)
{
    struct kix_reader *r;
    MDB_stat st;
    int rc = kix_store_read_begin(s, &r);

    if (rc)
        return rc;
    /* one blob an object; the objects table also holds subject and
     * statement records (layout 2, db.h) */
    rc = mdb_stat(r->txn, s->dbi[T_BLOBS], &st);
    kix_store_read_end(r);
    if (rc)
        return kix__db_error(rc, NULL, "counting objects");
    *objects = st.ms_entries;
    return KIX_OK;
}

int kix_store_missing_refs(struct kix_store *s, const uint8_t *json, size_t len,
                           struct kix_digest **missing, size_t *n, struct kix_err *err)
{
    struct kix_digest *refs = NULL;
    struct kix_reader *r = NULL;
    size_t nrefs = 0, nmissing = 0;
    int rc;

    *missing = NULL;
    *n = 0;
    rc = kix_refs_extract(json, len, &refs, &nrefs, err);
    if (rc)
        return rc;
    rc = kix_store_read_begin(s, &r);
    if (rc) {
        free(refs);
        return kix_err_set(err, rc, "starting a read: %s", kix_strerror(rc));
    }
    for (size_t i = 0; i < nrefs; i++) {
        struct kix_bytes v;
        int grc = kix_reader_get(r, &refs[i], &v);
        if (grc == KIX_ENOTFOUND)
            refs[nmissing++] = refs[i];
        else if (grc) {
            rc = kix_err_set(err, grc, "checking references: %s", kix_strerror(grc));
            break;
        }
    }
    kix_store_read_end(r);
    if (rc) {
        free(refs);
        return rc;
    }
    *missing = refs;
    *n = nmissing;
    return KIX_OK;
}
