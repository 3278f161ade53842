/* Reading the log from one LMDB read transaction: entries, proofs,
 * checkpoints, receipts and keys. Never blocks the writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kix/receipt.h"
#include "kix/sha256.h"
#include "log_internal.h"

struct kix_log_reader {
    struct kix_log *log;
    struct kix_reader *r;
    uint64_t size;
    struct kix__tile_ctx tctx;
    struct kix_tile_io io;
    struct kix_log_txn txn;    /* the snapshot, for the index (kix/log_txn.h) */
    struct kix_tile_edge edge; /* this snapshot's right edge, from and to the log's */
    int edge_taken;            /* edge holds what the log knew at the first proof */
};

int kix_log_read_begin(struct kix_log *l, struct kix_log_reader **out)
{
    struct kix_log_reader *lr = calloc(1, sizeof(*lr));
    int rc;

    *out = NULL;
    if (!lr)
        return KIX_ENOMEM;
    rc = kix_store_read_begin(l->store, &lr->r);
    if (rc == KIX_OK)
        rc = kix__reader_size(l->store, lr->r->txn, lr->r->itxn, &lr->size);
    if (rc) {
        kix_store_read_end(lr->r);
        free(lr);
        return rc;
    }
    lr->log = l;
    lr->tctx.store = l->store;
    lr->tctx.txn = lr->r->txn;
    lr->tctx.snapshot = 1;
    lr->txn.store = l->store;
    lr->txn.txn = lr->r->txn;
    lr->txn.itxn = lr->r->itxn;
    kix__tile_io_init(&lr->io, &lr->tctx);
    *out = lr;
    return KIX_OK;
}

void kix_log_read_end(struct kix_log_reader *r)
{
    if (!r)
        return;
    kix_store_read_end(r->r);
    free(r);
}

uint64_t kix_log_reader_size(const struct kix_log_reader *r)
{
    return r->size;
}

struct kix_log *kix__log_reader_log(struct kix_log_reader *r)
{
    return r->log;
}

const char *kix_log_reader_origin(const struct kix_log_reader *r)
{
    return kix_log_origin(r->log);
}

const struct kix_verifier *kix_log_reader_verifier(const struct kix_log_reader *r)
{
    return kix_log_verifier(r->log);
}

uint64_t kix_log_reader_tile_reads(const struct kix_log_reader *r)
{
    return r->io.reads;
}

uint64_t kix_log_reader_tile_cache_hits(const struct kix_log_reader *r)
{
    return r->tctx.cached;
}

static int get_u64_key(struct kix_log_reader *r, int table, uint64_t k, struct kix_bytes *out)
{
    return kix__db_get_u64(r->log->store, r->r->txn, table, k, out);
}

int kix_log_reader_checkpoint(struct kix_log_reader *r, uint64_t size, struct kix_bytes *note)
{
    if (size == KIX_NO_INDEX)
        size = r->size;
    if (size > r->size)
        return KIX_ENOTFOUND;
    return get_u64_key(r, T_CHECKPOINTS, size, note);
}

/* The cosignature lines of `table` (T_COSIGS, or T_INDEX_COSIGS whose
 * values carry the hash of the text covered: only those of `hash`) at
 * `size`, appended to out; *n counts them. */
static int cosignature_lines(struct kix_log_reader *r, int table, uint64_t size,
                             const uint8_t *hash, struct kix_buf *out, size_t *n)
{
    size_t skip = 8 + (hash ? 32 : 0), count = 0;
    MDB_cursor *cur;
    uint8_t k[8];
    MDB_val key = {8, k}, val;
    int rc;

    kix_u64be_put(k, size);
    rc = mdb_cursor_open(r->r->txn, r->log->store->dbi[table], &cur);
    if (rc)
        return kix__db_error(rc, NULL, "reading cosignatures");
    for (rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT)) {
        if (key.mv_size < 12 || memcmp(key.mv_data, k, 8) != 0)
            break;
        if (val.mv_size <= skip) {
            rc = KIX_ECORRUPT;
            break;
        }
        if (hash && memcmp((const uint8_t *)val.mv_data + 8, hash, 32) != 0)
            continue; /* of a text this store no longer signs */
        rc = kix_buf_add(out, (const uint8_t *)val.mv_data + skip, val.mv_size - skip);
        if (rc == KIX_OK)
            rc = kix_buf_addc(out, '\n');
        if (rc)
            break;
        count++;
    }
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND)
        rc = KIX_OK;
    else if (rc > 0)
        rc = kix__db_error(rc, NULL, "reading cosignatures");
    if (n)
        *n = count;
    return rc;
}

int kix_log_reader_cosignatures(struct kix_log_reader *r, uint64_t size, struct kix_buf *out,
                                size_t *n)
{
    if (n)
        *n = 0;
    if (size == KIX_NO_INDEX)
        size = r->size;
    if (r->log->store->no_cosigs)
        return KIX_OK;
    return cosignature_lines(r, T_COSIGS, size, NULL, out, n);
}

int kix_log_reader_checkpoint_cosigned(struct kix_log_reader *r, uint64_t size, struct kix_buf *out,
                                       struct kix_err *err)
{
    struct kix_bytes note = {NULL, 0};
    int rc;

    if (size == KIX_NO_INDEX)
        size = r->size;
    rc = kix_log_reader_checkpoint(r, size, &note);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, rc, "no signed checkpoint at size %llu (the log has %llu entries)",
                           (unsigned long long)size, (unsigned long long)r->size);
    if (rc)
        return kix_err_set(err, rc, "reading the checkpoint: %s", kix_strerror(rc));
    rc = kix_buf_add(out, note.ptr, note.len);
    if (rc == KIX_OK)
        rc = kix_log_reader_cosignatures(r, size, out, NULL);
    return rc ? kix_err_set(err, rc, "reading the checkpoint's cosignatures: %s", kix_strerror(rc))
              : KIX_OK;
}

static int index_note_get(struct kix_log_reader *r, uint64_t size, struct kix_bytes *out)
{
    if (r->log->store->no_index_notes)
        return KIX_ENOTFOUND;
    return get_u64_key(r, T_INDEX_NOTES, size, out);
}

int kix_log_reader_index_note(struct kix_log_reader *r, uint64_t size, struct kix_bytes *note)
{
    if (size == KIX_NO_INDEX)
        size = r->size;
    if (size > r->size)
        return KIX_ENOTFOUND;
    return index_note_get(r, size, note);
}

int kix_log_reader_index_note_cosigned(struct kix_log_reader *r, uint64_t size, struct kix_buf *out,
                                       struct kix_err *err)
{
    struct kix_bytes note = {NULL, 0};
    const uint8_t *blank;
    int rc;

    if (size == KIX_NO_INDEX)
        size = r->size;
    rc = kix_log_reader_index_note(r, size, &note);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, rc, "no index note at size %llu", (unsigned long long)size);
    if (rc)
        return kix_err_set(err, rc, "reading the index note: %s", kix_strerror(rc));
    /* the text is what precedes the blank line before the signatures */
    blank = NULL;
    for (size_t i = 1; i < note.len; i++)
        if (note.ptr[i] == '\n' && note.ptr[i - 1] == '\n') {
            blank = note.ptr + i - 1;
            break;
        }
    rc = kix_buf_add(out, note.ptr, note.len);
    if (rc == KIX_OK && blank && !r->log->store->no_index_cosigs) {
        uint8_t h[32];
        kix_sha256(note.ptr, (size_t)(blank - note.ptr) + 1, h);
        rc = cosignature_lines(r, T_INDEX_COSIGS, size, h, out, NULL);
    }
    return rc ? kix_err_set(err, rc, "reading the index note's cosignatures: %s", kix_strerror(rc))
              : KIX_OK;
}

int kix_log_reader_checkpoints(struct kix_log_reader *r, uint64_t after, size_t limit,
                               kix_checkpoint_fn fn, void *ctx)
{
    MDB_cursor *cur;
    uint8_t k[8];
    MDB_val key = {8, k}, val;
    size_t n = 0;
    int rc;

    if (after == UINT64_MAX)
        return KIX_OK;
    kix_u64be_put(k, after + 1);
    rc = mdb_cursor_open(r->r->txn, r->log->store->dbi[T_CHECKPOINTS], &cur);
    if (rc)
        return kix__db_error(rc, NULL, "reading checkpoints");
    rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
    while (rc == 0 && n < limit && key.mv_size == 8) {
        uint64_t size = kix_u64be_get(key.mv_data);
        int frc;
        if (size > r->size)
            break;
        struct kix_bytes inote = {NULL, 0};
        if (index_note_get(r, size, &inote) != KIX_OK)
            inote.ptr = NULL, inote.len = 0;
        frc = fn(ctx, size, val.mv_data, val.mv_size, inote.ptr, inote.len);
        if (frc) {
            mdb_cursor_close(cur);
            return frc;
        }
        n++;
        rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, NULL, "reading checkpoints");
}

int kix_log_reader_entry(struct kix_log_reader *r, uint64_t index, struct kix_bytes *leaf)
{
    if (index >= r->size)
        return KIX_ENOTFOUND;
    return get_u64_key(r, T_LEAVES, index, leaf);
}

int kix_log_reader_object(struct kix_log_reader *r, const struct kix_digest *d,
                          struct kix_bytes *out)
{
    return kix_reader_get(r->r, d, out);
}

static int check_size(const struct kix_log_reader *r, uint64_t size, struct kix_err *err)
{
    if (size > r->size)
        return kix_err_set(err, KIX_ENOTFOUND, "the log has %llu entries, not %llu",
                           (unsigned long long)r->size, (unsigned long long)size);
    return KIX_OK;
}

int kix_log_reader_leaf_hash(struct kix_log_reader *r, uint64_t index, struct kix_hash *out,
                             struct kix_err *err)
{
    if (index >= r->size)
        return kix_err_set(err, KIX_ENOTFOUND, "no entry %llu: the log has %llu entries",
                           (unsigned long long)index, (unsigned long long)r->size);
    return kix_tiles_leaf_hash(&r->io, index, out, err);
}

/* The log's right edge, if it is of this snapshot's size (taken at the
 * first proof, so readers that prove nothing pay nothing). */
static void edge_take(struct kix_log_reader *r)
{
    struct kix_log *l = r->log;

    r->edge.size = r->size;
    r->edge.have = 0;
    pthread_mutex_lock(&l->edge_mu);
    if (l->edge.size == r->size)
        r->edge = l->edge;
    pthread_mutex_unlock(&l->edge_mu);
    r->edge_taken = 1;
}

/* Gives back the levels this reader hashed that the log lacks. */
static void edge_give(struct kix_log_reader *r)
{
    struct kix_log *l = r->log;

    pthread_mutex_lock(&l->edge_mu);
    if (l->edge.size < r->edge.size)
        l->edge = r->edge;
    else if (l->edge.size == r->edge.size)
        for (unsigned i = 0; i < 64; i++)
            if ((r->edge.have & ~l->edge.have) >> i & 1) {
                memcpy(l->edge.node[i], r->edge.node[i], KIX_HASH_LEN);
                l->edge.have |= (uint64_t)1 << i;
            }
    pthread_mutex_unlock(&l->edge_mu);
}

int kix_log_reader_inclusion(struct kix_log_reader *r, uint64_t index, uint64_t size,
                             struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                             struct kix_err *err)
{
    int rc = check_size(r, size, err);
    if (rc)
        return rc;
    if (index >= size)
        return kix_err_set(err, KIX_EINVAL, "entry %llu is not in a tree of size %llu",
                           (unsigned long long)index, (unsigned long long)size);
    if (size == r->size) {
        /* every proof at the snapshot's size folds the same right edge:
         * hash each of its nodes once per size, for all readers */
        uint64_t had;
        if (!r->edge_taken)
            edge_take(r);
        had = r->edge.have;
        rc = kix_tiles_inclusion_proof_edge(&r->io, &r->edge, index, size, proof, len, err);
        if (rc == KIX_OK && r->edge.have != had)
            edge_give(r);
        return rc;
    }
    return kix_tiles_inclusion_proof(&r->io, index, size, proof, len, err);
}

int kix_log_reader_consistency(struct kix_log_reader *r, uint64_t size1, uint64_t size2,
                               struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                               struct kix_err *err)
{
    int rc = check_size(r, size2, err);
    if (rc)
        return rc;
    if (size1 == 0 || size1 > size2)
        return kix_err_set(err, KIX_EINVAL,
                           "a consistency proof needs 0 < old size <= new size (got %llu, %llu)",
                           (unsigned long long)size1, (unsigned long long)size2);
    return kix_tiles_consistency_proof(&r->io, size1, size2, proof, len, err);
}

int kix_log_reader_root(struct kix_log_reader *r, uint64_t size, struct kix_hash *out,
                        struct kix_err *err)
{
    int rc = check_size(r, size, err);
    return rc ? rc : kix_tiles_root(&r->io, size, out, err);
}

int kix_log_reader_receipt(struct kix_log_reader *r, uint64_t index, uint64_t size,
                           struct kix_buf *out, struct kix_err *err)
{
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_bytes note = {NULL, 0}, leaf = {NULL, 0};
    size_t n = 0;
    int rc;

    if (size == KIX_NO_INDEX)
        size = r->size;
    rc = kix_log_reader_inclusion(r, index, size, proof, &n, err);
    if (rc)
        return rc;
    if (kix_log_reader_checkpoint(r, size, &note) != KIX_OK)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "no signed checkpoint at size %llu; ask for the latest",
                           (unsigned long long)size);
    rc = kix_log_reader_entry(r, index, &leaf);
    if (rc)
        return kix_err_set(err, KIX_ECORRUPT, "entry %llu is missing from the store",
                           (unsigned long long)index);
    {
        struct kix_buf cosigned = KIX_BUF_INIT;
        size_t ncosigs = 0;
        rc = kix_log_reader_cosignatures(r, size, &cosigned, &ncosigs);
        if (rc == KIX_OK && ncosigs > 0) {
            /* the note, then its witnesses' lines */
            struct kix_buf joined = KIX_BUF_INIT;
            rc = kix_buf_add(&joined, note.ptr, note.len);
            if (rc == KIX_OK)
                rc = kix_buf_add(&joined, cosigned.ptr, cosigned.len);
            if (rc == KIX_OK)
                rc = kix_receipt_format(index, proof, n, leaf.ptr, leaf.len,
                                        (const char *)joined.ptr, joined.len, out);
            kix_buf_release(&joined);
        } else if (rc == KIX_OK) {
            rc = kix_receipt_format(index, proof, n, leaf.ptr, leaf.len, (const char *)note.ptr,
                                    note.len, out);
        }
        kix_buf_release(&cosigned);
    }
    return rc ? kix_err_set(err, rc, "formatting the receipt: %s", kix_strerror(rc)) : KIX_OK;
}

int kix_log_reader_key(struct kix_log_reader *r, const uint8_t key_id[32], struct kix_key_info *out)
{
    return kix__key_get(r->log->store, r->r->txn, key_id, out);
}

int kix_log_reader_policy(struct kix_log_reader *r, struct kix_log_policy *out)
{
    return kix__policy_get(r->log->store, r->r->txn, out);
}

struct kix_log_txn *kix_log_reader_txn(struct kix_log_reader *r)
{
    return &r->txn;
}
