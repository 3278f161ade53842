/* Fixed binary layouts of the registry and run records, and their lookups. */
#include <string.h>

#include "log_internal.h"

void kix__key_record_encode(const struct kix_key_info *k, uint8_t out[KEY_RECORD_LEN])
{
    memcpy(out, k->pub, 32);
    out[32] = (uint8_t)k->roles;
    kix__u64be_put(out + 33, k->added_index);
    kix__u64be_put(out + 41, k->revoked_index);
}

int kix__key_record_decode(const uint8_t *data, size_t len, struct kix_key_info *k)
{
    if (len != KEY_RECORD_LEN)
        return KIX_ECORRUPT;
    memcpy(k->pub, data, 32);
    k->roles = data[32];
    k->added_index = kix__u64be_get(data + 33);
    k->revoked_index = kix__u64be_get(data + 41);
    return KIX_OK;
}

void kix__run_record_encode(const struct kix_run_info *r, uint8_t out[RUN_RECORD_LEN])
{
    uint8_t *p = out;
    memcpy(p, r->manifest.b, 32);
    memcpy(p + 32, r->publisher, 32);
    p += 64;
    kix__u64be_put(p, r->publication_index);
    kix__u64be_put(p + 8, r->superseded_by_index);
    kix__u64be_put(p + 16, r->supersedes_index);
    kix__u64be_put(p + 24, r->evidence_index);
    kix__u64be_put(p + 32, r->attestations);
    kix__u64be_put(p + 40, r->reruns);
    kix__u64be_put(p + 48, 0); /* reserved */
    p[56] = (uint8_t)r->evidence;
    memcpy(p + 57, r->comparison_key.b, 32);
    kix__u64be_put(p + 89, r->value);
    p[97] = (uint8_t)r->grouped;
}

int kix__run_record_decode(const uint8_t *data, size_t len, struct kix_run_info *r)
{
    const uint8_t *p = data + 64;
    if (len != RUN_RECORD_LEN)
        return KIX_ECORRUPT;
    memcpy(r->manifest.b, data, 32);
    memcpy(r->publisher, data + 32, 32);
    r->publication_index = kix__u64be_get(p);
    r->superseded_by_index = kix__u64be_get(p + 8);
    r->supersedes_index = kix__u64be_get(p + 16);
    r->evidence_index = kix__u64be_get(p + 24);
    r->attestations = kix__u64be_get(p + 32);
    r->reruns = kix__u64be_get(p + 40);
    r->evidence = p[56];
    memcpy(r->comparison_key.b, p + 57, 32);
    r->value = kix__u64be_get(p + 89);
    r->grouped = p[97];
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

int kix__run_get(struct kix_store *s, MDB_txn *txn, const char *run_id, size_t len,
                 struct kix_run_info *r)
{
    MDB_val key = {len, (void *)run_id}, val;
    int rc;

    if (!kix__run_id_valid(run_id, len))
        return KIX_ENOTFOUND;
    rc = mdb_get(txn, s->dbi[T_RUNS], &key, &val);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc)
        return kix__db_error(rc, NULL, "reading a run");
    rc = kix__run_record_decode(val.mv_data, val.mv_size, r);
    if (rc == KIX_OK) {
        memcpy(r->run_id, run_id, len);
        r->run_id[len] = '\0';
    }
    return rc;
}

static const char *const entry_names[] = {"unknown",     "key",   "publication",
                                          "attestation", "rerun", "supersession"};
static const char *const evidence_names[] = {"reported", "reproduced", "not_reproduced", "failed"};
static const char *const role_names[] = {"admin", "publish", "attest", "rerun"};

const char *kix_entry_type_name(int type)
{
    return type >= 1 && type <= 5 ? entry_names[type] : entry_names[0];
}

const char *kix_evidence_name(int evidence)
{
    return evidence >= 0 && evidence <= 3 ? evidence_names[evidence] : "unknown";
}

int kix_evidence_parse(const char *text, size_t len)
{
    for (int i = 0; i < 4; i++)
        if (strlen(evidence_names[i]) == len && memcmp(evidence_names[i], text, len) == 0)
            return i;
    return -1;
}

int kix_roles_parse(const char *text, size_t len)
{
    int roles = 0;
    size_t start = 0;

    while (start <= len) {
        size_t end = start;
        int found = 0;
        while (end < len && text[end] != ',')
            end++;
        for (int i = 0; i < 4; i++)
            if (strlen(role_names[i]) == end - start &&
                memcmp(role_names[i], text + start, end - start) == 0) {
                roles |= 1 << i;
                found = 1;
            }
        if (!found)
            return -1;
        start = end + 1;
    }
    return roles;
}

int kix_roles_format(unsigned roles, struct kix_buf *out)
{
    int rc = KIX_OK, first = 1;
    for (int i = 0; i < 4 && rc == KIX_OK; i++)
        if (roles & (1u << i)) {
            if (!first)
                rc = kix_buf_addc(out, ',');
            if (rc == KIX_OK)
                rc = kix_buf_adds(out, role_names[i]);
            first = 0;
        }
    return rc;
}
