/* Comparison groups and ranks: an index kept on append.
 *
 * KIX_TABLE_GROUPS keys are comparison key(32) ‖ u64be value ‖ run id, so a
 * group's runs sit together, best (lowest value) first; a rank is a walk
 * over the group's prefix. */
#include <stdio.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/vindex.h"

#define GROUP_KEY_MAX (32 + 8 + KIX_RUN_ID_MAX)

static size_t group_key(uint8_t out[GROUP_KEY_MAX], const struct kix_run_info *run)
{
    size_t n = strlen(run->run_id);
    memcpy(out, run->comparison_key.b, 32);
    kix_u64be_put(out + 32, run->value);
    memcpy(out + 40, run->run_id, n);
    return 40 + n;
}

void kix__run_group_by_manifest(struct kix_run_info *run, const uint8_t *manifest, size_t len)
{
    struct kix_digest key;
    uint64_t value;
    char metric[16];

    /* kix_run_comparison_key may have written parts of its outputs when it
     * finds the manifest is not comparable: only a whole answer is taken */
    if (kix_run_comparison_key(manifest, len, &key, &value, metric) != KIX_OK)
        return;
    KIX_ASSERT(metric[0] != '\0'); /* a whole answer names its metric */
    run->grouped = 1;
    run->comparison_key = key;
    run->value = value;
}

int kix__group_insert(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err)
{
    uint8_t k[GROUP_KEY_MAX];
    int rc;

    /* only a ranked run joins: never a superseded or withdrawn one */
    KIX_ASSERT(run->grouped && run->withdrawn_index == KIX_NO_INDEX &&
               run->superseded_by_index == KIX_NO_INDEX);
    /* in with no page start; the reflow says whether it starts one */
    rc = kix_log_txn_put(t, KIX_TABLE_GROUPS, k, group_key(k, run), "", 0, err);
    return rc ? rc : kix__group_reflow(t, run, err);
}

int kix__group_remove(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err)
{
    uint8_t k[GROUP_KEY_MAX];
    size_t n = group_key(k, run);
    struct kix_bytes flag;
    int starts = kix_log_txn_get(t, KIX_TABLE_GROUPS, k, n, &flag) == KIX_OK && flag.len > 0 &&
                 flag.ptr[0] != 0;
    int rc = kix_log_txn_del(t, KIX_TABLE_GROUPS, k, n, err);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc == KIX_OK && starts)
        rc = kix__group_unstart(t, run, err);
    return rc ? rc : kix__group_reflow(t, run, err);
}

/* Walks a group from its first run; fn returns nonzero to stop. */
typedef int (*walk_fn)(void *ctx, uint64_t pos, const char *run_id, uint64_t value);

struct walk {
    const struct kix_digest *group;
    uint64_t pos;
    walk_fn fn;
    void *ctx;
};

static int walk_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct walk *w = arg;
    char id[KIX_RUN_ID_MAX + 1];
    size_t n;

    (void)val;
    if (key->len <= 40 || memcmp(key->ptr, w->group->b, 32) != 0)
        return 1;
    n = key->len - 40 > KIX_RUN_ID_MAX ? KIX_RUN_ID_MAX : key->len - 40;
    memcpy(id, key->ptr + 40, n);
    id[n] = '\0';
    return w->fn(w->ctx, w->pos++, id, kix_u64be_get(key->ptr + 32));
}

static int walk_group(struct kix_log_txn *t, const struct kix_digest *group, walk_fn fn, void *ctx)
{
    struct walk w = {group, 0, fn, ctx};
    return kix_log_txn_scan(t, KIX_TABLE_GROUPS, group->b, 32, walk_step, &w);
}

struct rank_ctx {
    const struct kix_run_info *run;
    struct kix_rank *out;
};

static int rank_step(void *arg, uint64_t pos, const char *run_id, uint64_t value)
{
    struct rank_ctx *c = arg;

    if (pos == 0) {
        snprintf(c->out->best, sizeof(c->out->best), "%s", run_id);
        c->out->best_value = value;
    }
    if (strcmp(run_id, c->run->run_id) == 0)
        c->out->rank = pos + 1;
    c->out->group_size = pos + 1;
    return 0;
}

int kix_index_rank(struct kix_log_reader *r, const struct kix_run_info *run, struct kix_rank *out)
{
    struct rank_ctx c = {run, out};
    memset(out, 0, sizeof(*out));
    if (!run->grouped)
        return KIX_OK;
    return walk_group(kix_log_reader_txn(r), &run->comparison_key, rank_step, &c);
}

struct list_ctx {
    uint64_t offset, limit, listed;
    kix_group_fn fn;
    void *ctx;
    uint64_t size;
};

static int list_step(void *arg, uint64_t pos, const char *run_id, uint64_t value)
{
    struct list_ctx *c = arg;

    c->size = pos + 1;
    if (pos < c->offset || c->listed >= c->limit)
        return 0;
    c->listed++;
    return c->fn(c->ctx, pos + 1, run_id, value);
}

int kix_index_group(struct kix_log_reader *r, const struct kix_digest *key, uint64_t offset,
                    uint64_t limit, kix_group_fn fn, void *ctx, uint64_t *size)
{
    struct list_ctx c = {offset, limit, 0, fn, ctx, 0};
    int rc = walk_group(kix_log_reader_txn(r), key, list_step, &c);
    if (size)
        *size = c.size;
    return rc;
}

struct first_ctx {
    int found;
    struct kix_digest key;
};

static int first_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct first_ctx *c = arg;

    (void)val;
    if (key->len <= 40)
        return 0; /* not a group record: keep looking */
    memcpy(c->key.b, key->ptr, 32);
    c->found = 1;
    return 1;
}

/* One short scan per group: each finds the first record at or after
 * `from`, then the next scan starts past that group's last possible key. */
int kix_index_groups(struct kix_log_reader *r, kix_groups_fn fn, void *ctx)
{
    struct kix_log_txn *t = kix_log_reader_txn(r);
    uint8_t from[40];
    size_t from_len = 0;

    for (;;) {
        struct first_ctx c = {0, {{0}}};
        int rc = kix_log_txn_scan(t, KIX_TABLE_GROUPS, from, from_len, first_step, &c);
        if (rc || !c.found)
            return rc;
        rc = fn(ctx, &c.key);
        if (rc)
            return rc > 0 ? KIX_OK : rc;
        memcpy(from, c.key.b, 32);
        memset(from + 32, 0xff, 8);
        from_len = sizeof(from);
    }
}
