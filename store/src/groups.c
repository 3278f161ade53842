/* Comparison groups and ranks: an LMDB index kept on append.
 *
 * T_GROUPS keys are comparison key(32) ‖ u64be value ‖ run id, so a
 * group's runs sit together, best (lowest value) first; a rank is a cursor
 * walk over the group's prefix. */
#include <jansson.h>
#include <string.h>

#include "canon_internal.h"
#include "log_internal.h"

#define GROUP_KEY_MAX (32 + 8 + KIX_RUN_ID_MAX)

static int primary_value(const json_t *spec, uint64_t *value, char metric[16])
{
    static const struct {
        const char *group, *stat, *metric;
    } primaries[] = {
        {"timing", "latencyNs", "latency"},
        {"memory", "peakBytes", "peak_memory"},
    };
    for (size_t i = 0; i < sizeof(primaries) / sizeof(primaries[0]); i++) {
        const json_t *v = json_object_get(
            json_object_get(json_object_get(spec, primaries[i].group), primaries[i].stat),
            "median");
        double r = json_is_real(v) ? json_real_value(v) : -1.0;
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            *value = (uint64_t)json_integer_value(v);
        } else if (r >= 0.0 && r <= 9007199254740992.0 && r == (double)(uint64_t)r) {
            /* 15000.0 or 1.5e4 in a submitted manifest: its canonical text
             * (what is stored and what replicas group by) says 15000 */
            *value = (uint64_t)r;
        } else {
            continue;
        }
        snprintf(metric, 16, "%s", primaries[i].metric);
        return KIX_OK;
    }
    return KIX_ENOTFOUND;
}

int kix__comparison_key_of(const json_t *doc, struct kix_digest *key, uint64_t *value,
                           char metric[16])
{
    struct kix_buf canon = KIX_BUF_INIT;
    const json_t *spec = json_object_get(doc, "spec");
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    /* the members of the key, in canonical (sorted) order */
    const json_t *members[5] = {
        json_object_get(json_object_get(spec, "sourceNative"), "benchmark"),
        json_object_get(spec, "environmentDigest"),
        NULL,
        json_object_get(spec, "protocolDigest"),
        json_object_get(spec, "workloadDigest"),
    };
    static const char *const names[5] = {
        "{\"benchmark\":", ",\"environmentDigest\":", ",\"metric\":", ",\"protocolDigest\":",
        ",\"workloadDigest\":"};
    int rc = KIX_OK;

    if (!kind || strcmp(kind, "BenchmarkRun") != 0 || primary_value(spec, value, metric) != KIX_OK)
        return KIX_ENOTFOUND;
    for (size_t i = 0; i < 5; i++)
        if (i != 2 && !json_is_string(members[i]))
            return KIX_ENOTFOUND;
    /* written as canonical JSON directly: what kix_canon of the object
     * {benchmark, environmentDigest, metric, protocolDigest, workloadDigest}
     * gives, without building and sorting it */
    for (size_t i = 0; rc == KIX_OK && i < 5; i++) {
        rc = kix_buf_adds(&canon, names[i]);
        if (rc == KIX_OK && i == 2)
            rc = kix_canon_string(metric, strlen(metric), &canon);
        else if (rc == KIX_OK)
            rc = kix_canon_string(json_string_value(members[i]), json_string_length(members[i]),
                                  &canon);
    }
    if (rc == KIX_OK)
        rc = kix_buf_addc(&canon, '}');
    if (rc == KIX_OK)
        kix_digest_of(canon.ptr, canon.len, key);
    kix_buf_release(&canon);
    return rc;
}

int kix_run_comparison_key(const uint8_t *manifest, size_t len, struct kix_digest *key,
                           uint64_t *value, char metric[16])
{
    json_t *doc = json_loadb((const char *)manifest, len, 0, NULL);
    int rc = doc ? kix__comparison_key_of(doc, key, value, metric) : KIX_ENOTFOUND;

    json_decref(doc);
    return rc;
}

static size_t group_key(uint8_t out[GROUP_KEY_MAX], const struct kix_run_info *run)
{
    size_t n = strlen(run->run_id);
    memcpy(out, run->comparison_key.b, 32);
    kix__u64be_put(out + 32, run->value);
    memcpy(out + 40, run->run_id, n);
    return 40 + n;
}

int kix__group_insert(struct kix_store *s, MDB_txn *txn, const struct kix_run_info *run,
                      struct kix_err *err)
{
    uint8_t k[GROUP_KEY_MAX];
    MDB_val key = {group_key(k, run), k}, val = {0, ""};
    int rc = mdb_put(txn, s->dbi[T_GROUPS], &key, &val, 0);
    return rc ? kix__db_error(rc, err, "writing the group index") : KIX_OK;
}

int kix__group_remove(struct kix_store *s, MDB_txn *txn, const struct kix_run_info *run,
                      struct kix_err *err)
{
    uint8_t k[GROUP_KEY_MAX];
    MDB_val key = {group_key(k, run), k};
    int rc = mdb_del(txn, s->dbi[T_GROUPS], &key, NULL);
    return rc && rc != MDB_NOTFOUND ? kix__db_error(rc, err, "writing the group index") : KIX_OK;
}

/* Walks a group from its first run; fn returns nonzero to stop. */
typedef int (*walk_fn)(void *ctx, uint64_t pos, const MDB_val *key);

static int walk_group(struct kix_store *s, MDB_txn *txn, const struct kix_digest *gk, walk_fn fn,
                      void *ctx)
{
    MDB_cursor *cur;
    MDB_val key = {32, (void *)gk->b}, val;
    uint64_t pos = 0;
    int rc = mdb_cursor_open(txn, s->dbi[T_GROUPS], &cur);

    if (rc)
        return kix__db_error(rc, NULL, "reading the group index");
    rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
    while (rc == 0 && key.mv_size > 40 && memcmp(key.mv_data, gk->b, 32) == 0) {
        int frc = fn(ctx, pos++, &key);
        if (frc) {
            mdb_cursor_close(cur);
            return frc > 0 ? KIX_OK : frc;
        }
        rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, NULL, "reading groups");
}

struct rank_ctx {
    const struct kix_run_info *run;
    struct kix_rank *out;
};

static void run_id_of(const MDB_val *key, char out[KIX_RUN_ID_MAX + 1])
{
    size_t n = key->mv_size - 40 > KIX_RUN_ID_MAX ? KIX_RUN_ID_MAX : key->mv_size - 40;
    memcpy(out, (const uint8_t *)key->mv_data + 40, n);
    out[n] = '\0';
}

static int rank_step(void *arg, uint64_t pos, const MDB_val *key)
{
    struct rank_ctx *c = arg;
    char id[KIX_RUN_ID_MAX + 1];

    run_id_of(key, id);
    if (pos == 0) {
        memcpy(c->out->best, id, sizeof(id));
        c->out->best_value = kix__u64be_get((const uint8_t *)key->mv_data + 32);
    }
    if (strcmp(id, c->run->run_id) == 0)
        c->out->rank = pos + 1;
    c->out->group_size = pos + 1;
    return 0;
}

int kix__reader_txn_rank(struct kix_store *s, MDB_txn *txn, const struct kix_run_info *run,
                         struct kix_rank *out)
{
    struct rank_ctx c = {run, out};
    memset(out, 0, sizeof(*out));
    if (!run->grouped)
        return KIX_OK;
    return walk_group(s, txn, &run->comparison_key, rank_step, &c);
}

struct list_ctx {
    uint64_t offset, limit, listed;
    kix_group_fn fn;
    void *ctx;
    uint64_t size;
};

static int list_step(void *arg, uint64_t pos, const MDB_val *key)
{
    struct list_ctx *c = arg;
    char id[KIX_RUN_ID_MAX + 1];

    c->size = pos + 1;
    if (pos < c->offset || c->listed >= c->limit)
        return 0;
    run_id_of(key, id);
    c->listed++;
    return c->fn(c->ctx, pos + 1, id, kix__u64be_get((const uint8_t *)key->mv_data + 32));
}

int kix__reader_txn_group(struct kix_store *s, MDB_txn *txn, const struct kix_digest *key,
                          uint64_t offset, uint64_t limit, kix_group_fn fn, void *ctx,
                          uint64_t *size)
{
    struct list_ctx c = {offset, limit, 0, fn, ctx, 0};
    int rc = walk_group(s, txn, key, list_step, &c);
    if (size)
        *size = c.size;
    return rc;
}

int kix__reader_txn_groups(struct kix_store *s, MDB_txn *txn, kix_groups_fn fn, void *ctx)
{
    MDB_cursor *cur;
    MDB_val key, val;
    struct kix_digest last;
    int have = 0, rc = mdb_cursor_open(txn, s->dbi[T_GROUPS], &cur);

    if (rc)
        return kix__db_error(rc, NULL, "reading the group index");
    rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
    while (rc == 0) {
        if (key.mv_size > 40 && (!have || memcmp(last.b, key.mv_data, 32) != 0)) {
            int frc;
            memcpy(last.b, key.mv_data, 32);
            have = 1;
            frc = fn(ctx, &last);
            if (frc) {
                mdb_cursor_close(cur);
                return frc > 0 ? KIX_OK : frc;
            }
            /* jump past this group */
            {
                uint8_t next[40];
                memcpy(next, last.b, 32);
                memset(next + 32, 0xff, 8);
                key.mv_data = next;
                key.mv_size = 40;
                rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
                continue;
            }
        }
        rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? KIX_OK : kix__db_error(rc, NULL, "reading the group index");
}
