/* The log's storage lent to the index above it (kix/log_txn.h). */
#include <string.h>

#include "kix/assert.h"
#include "log_internal.h"

/* A read-only open found the table absent; or it is sealed and the store
 * keeps no index notes to read it against; or no layer named it. */
static int reads_empty(const struct kix_log_txn *t, unsigned table)
{
    const struct kix_store *s = t->store;

    return table >= s->ntables || s->table_absent[table] ||
           (s->no_index_notes && (s->table_flags[table] & KIX_LOG_TABLE_SEALED));
}

static int no_such_table(unsigned table, struct kix_err *err)
{
    return kix_err_set(err, KIX_EINVAL, "writing index table %u, which the indexer did not name",
                       table);
}

int kix_log_txn_get(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                    struct kix_bytes *val)
{
    MDB_val k = {klen, (void *)key}, v;
    int rc =
        reads_empty(t, table) ? MDB_NOTFOUND : mdb_get(t->itxn, t->store->table_dbi[table], &k, &v);

    if (t->writable && table < t->store->ntables &&
        (t->store->table_flags[table] & KIX_LOG_TABLE_SEALED))
        t->store->sealed_reads++;
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc)
        return kix__db_error(rc, NULL, "reading the index");
    val->ptr = v.mv_data;
    val->len = v.mv_size;
    return KIX_OK;
}

int kix_log_txn_put(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                    const void *val, size_t vlen, struct kix_err *err)
{
    MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};
    int rc;

    if (!t->writable)
        return kix_err_set(err, KIX_EREADONLY, "writing the index through a reader");
    if (table >= t->store->ntables)
        return no_such_table(table, err);
    KIX_ASSERT(kix__db_writing(t->store)); /* a writable txn is the writer's own */
    rc = mdb_put(t->itxn, t->store->table_dbi[table], &k, &v, 0);
    return rc ? kix__db_error(rc, err, "writing the index") : KIX_OK;
}

int kix_log_txn_del(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                    struct kix_err *err)
{
    MDB_val k = {klen, (void *)key};
    int rc;

    if (!t->writable)
        return kix_err_set(err, KIX_EREADONLY, "writing the index through a reader");
    if (table >= t->store->ntables)
        return no_such_table(table, err);
    KIX_ASSERT(kix__db_writing(t->store)); /* a writable txn is the writer's own */
    rc = mdb_del(t->itxn, t->store->table_dbi[table], &k, NULL);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    return rc ? kix__db_error(rc, err, "writing the index") : KIX_OK;
}

static int scan(MDB_txn *txn, MDB_dbi dbi, const void *from, size_t from_len, kix_log_scan_fn fn,
                void *ctx, const char *what)
{
    MDB_cursor *cur;
    MDB_val key = {from_len, (void *)from}, val;
    int rc = mdb_cursor_open(txn, dbi, &cur), stop = 0;

    if (rc)
        return kix__db_error(rc, NULL, what);
    rc = from_len ? mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE)
                  : mdb_cursor_get(cur, &key, &val, MDB_FIRST);
    while (rc == 0 && !stop) {
        struct kix_bytes k = {key.mv_data, key.mv_size}, v = {val.mv_data, val.mv_size};
        stop = fn(ctx, &k, &v);
        if (!stop)
            rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    if (stop < 0)
        return stop;
    return rc == 0 || rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, NULL, what);
}

int kix_log_txn_scan(struct kix_log_txn *t, unsigned table, const void *from, size_t from_len,
                     kix_log_scan_fn fn, void *ctx)
{
    if (reads_empty(t, table))
        return KIX_OK;
    return scan(t->itxn, t->store->table_dbi[table], from, from_len, fn, ctx, "reading the index");
}

int kix_log_txn_scan_keys(struct kix_log_txn *t, kix_log_scan_fn fn, void *ctx)
{
    return scan(t->txn, t->store->dbi[T_KEYS], NULL, 0, fn, ctx, "reading the key registry");
}

int kix_log_txn_clear(struct kix_log_txn *t, unsigned table, struct kix_err *err)
{
    int rc;

    if (!t->writable)
        return kix_err_set(err, KIX_EREADONLY, "writing the index through a reader");
    if (table >= t->store->ntables)
        return no_such_table(table, err);
    KIX_ASSERT(kix__db_writing(t->store)); /* a writable txn is the writer's own */
    kix__writer_keep_drop(t->store);       /* what it kept of the table is gone */
    t->store->w_memo = 0;                  /* and what it noted of the tables */
    rc = mdb_drop(t->itxn, t->store->table_dbi[table], 0);
    return rc ? kix__db_error(rc, err, "emptying an index table") : KIX_OK;
}

struct kix_buf *kix_log_txn_scratch(struct kix_log_txn *t)
{
    KIX_ASSERT(!t->writable || t->scratch); /* the writer's txn comes with its buffer */
    return t->writable ? t->scratch : NULL;
}

int kix_log_txn_seal_more(struct kix_log_txn *t)
{
    return t->keep && t->keep->more;
}

void *kix_log_txn_seal_state(struct kix_log_txn *t)
{
    return t->keep ? t->keep->state : NULL;
}

int kix_log_txn_set_seal_state(struct kix_log_txn *t, void *state, void (*free_fn)(void *))
{
    if (!t->keep || t->keep->state)
        return KIX_EINVAL;
    t->keep->state = state;
    t->keep->free_fn = free_fn;
    return KIX_OK;
}

/* The writer's memo is the write transaction's, whichever struct
 * kix_log_txn (one a call into the layer) it reaches the layer through. */
unsigned kix_log_txn_memo(const struct kix_log_txn *t)
{
    return t->writable ? t->store->w_memo : t->memo;
}

void kix_log_txn_set_memo(struct kix_log_txn *t, unsigned memo)
{
    if (t->writable)
        t->store->w_memo = memo;
    else
        t->memo = memo;
}

/* Only the thread in the store's write transaction sees the state: readers
 * run beside it on other threads. */
void *kix_log_txn_writer_state(struct kix_log_txn *t)
{
    return t->writable && kix__db_writing(t->store) ? t->store->writer_keep.state : NULL;
}

int kix_log_txn_set_writer_state(struct kix_log_txn *t, void *state, void (*free_fn)(void *))
{
    if (!t->writable || !kix__db_writing(t->store))
        return KIX_EINVAL;
    kix__writer_keep_drop(t->store);
    t->store->writer_keep.state = state;
    t->store->writer_keep.free_fn = free_fn;
    return KIX_OK;
}

int kix_log_txn_key(struct kix_log_txn *t, const uint8_t key_id[32], struct kix_key_info *out)
{
    return kix__key_get(t->store, t->txn, key_id, out);
}

int kix_log_txn_object(struct kix_log_txn *t, const struct kix_digest *d, struct kix_bytes *out)
{
    MDB_val v;
    int rc = kix__object_get(t->store, t->txn, t->itxn, d->b, &v);

    if (rc == KIX_OK) {
        out->ptr = v.mv_data;
        out->len = v.mv_size;
    }
    return rc;
}

int kix_log_txn_entry(struct kix_log_txn *t, uint64_t index, struct kix_bytes *leaf)
{
    return kix__db_get_u64(t->store, t->txn, T_LEAVES, index, leaf);
}

struct subject_walk {
    const struct kix_digest *d;
    kix_log_subject_fn fn;
    void *ctx;
};

static int subject_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct subject_walk *w = arg;

    if (key->len != 40 || memcmp(key->ptr, w->d->b, 32) != 0)
        return 1;
    return w->fn(w->ctx, kix_u64be_get(key->ptr + 32), val->len == 1 ? val->ptr[0] : 0);
}

int kix_log_txn_subject_entries(struct kix_log_txn *t, const struct kix_digest *d,
                                kix_log_subject_fn fn, void *ctx)
{
    struct subject_walk w = {d, fn, ctx};
    uint8_t from[40];

    memcpy(from, d->b, 32);
    memset(from + 32, 0, 8);
    return scan(t->itxn, kix__subjects_dbi(t->store), from, sizeof(from), subject_step, &w,
                "reading the subject index");
}
