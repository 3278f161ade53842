/* The log's own small records: the key registry's (its fixed binary
 * layout and lookup) and the committed tree size. */
#include <string.h>

#include "log_internal.h"

void kix__key_record_encode(const struct kix_key_info *k, uint8_t out[KEY_RECORD_LEN])
{
    memcpy(out, k->pub, 32);
    out[32] = (uint8_t)k->roles;
    kix_u64be_put(out + 33, k->added_index);
    kix_u64be_put(out + 41, k->revoked_index);
}

int kix__key_record_decode(const uint8_t *data, size_t len, struct kix_key_info *k)
{
    if (len != KEY_RECORD_LEN)
        return KIX_ECORRUPT;
    memcpy(k->pub, data, 32);
    k->roles = data[32];
    k->added_index = kix_u64be_get(data + 33);
    k->revoked_index = kix_u64be_get(data + 41);
    return KIX_OK;
}

int kix__key_get(struct kix_store *s, MDB_txn *txn, const uint8_t id[32], struct kix_key_info *k)
{
    MDB_val key = {32, (void *)id}, val;
    int rc = mdb_get(txn, s->dbi[T_KEYS], &key, &val);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc)
        return kix__db_error(rc, NULL, "reading the key registry");
    return kix__key_record_decode(val.mv_data, val.mv_size, k);
}

int kix__log_size(struct kix_store *s, MDB_txn *txn, uint64_t *size)
{
    MDB_cursor *cur;
    MDB_val k, v;
    int rc = mdb_cursor_open(txn, s->dbi[T_CHECKPOINTS], &cur);

    if (rc)
        return kix__db_error(rc, NULL, "reading the log size");
    rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND) {
        *size = 0;
        return KIX_OK;
    }
    if (rc || k.mv_size != 8)
        return rc ? kix__db_error(rc, NULL, "reading the log size") : KIX_ECORRUPT;
    *size = kix_u64be_get(k.mv_data);
    return KIX_OK;
}
