/* Comparison groups and ranks: an index kept on append.
 *
 * KIX_TABLE_GROUPS keys are the group's prefix ‖ u64be value ‖ run id, so a
 * group's runs sit together, best (lowest value) first; a rank is a walk
 * over the group's prefix. The prefix is the group's number (numbers.c,
 * kix-index/9), not its 32-byte comparison key: 28 bytes a member less. */
#include <stdio.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/vindex.h"

#define GROUP_KEY_MAX (KIX__GROUP_ID_AT + KIX_RUN_ID_MAX)

int kix__group_prefix(struct kix_log_txn *t, const struct kix_digest *g, int make,
                      uint8_t out[KIX__GROUP_PREFIX], struct kix_err *err)
{
    uint32_t num = 0;
    int rc = kix__name_number(t, KIX__NUMBER_GROUP, g->b, make, &num, err);

    kix_u32be_put(out, num);
    return rc;
}

/* run's key in the group index (its group numbered when make). */
static int group_key(struct kix_log_txn *t, const struct kix_run_info *run, int make,
                     uint8_t out[GROUP_KEY_MAX], size_t *len, struct kix_err *err)
{
    size_t n = strlen(run->run_id);
    int rc = kix__group_prefix(t, &run->comparison_key, make, out, err);

    kix_u64be_put(out + KIX__GROUP_PREFIX, run->value);
    memcpy(out + KIX__GROUP_ID_AT, run->run_id, n);
    *len = KIX__GROUP_ID_AT + n;
    return rc;
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
    size_t n = 0;
    int rc;

    /* only a ranked run joins: never a superseded or withdrawn one */
    KIX_ASSERT(run->grouped && run->withdrawn_index == KIX_NO_INDEX &&
               run->superseded_by_index == KIX_NO_INDEX);
    /* in with no page start; the reflow says whether it starts one */
    rc = group_key(t, run, 1, k, &n, err);
    if (rc == KIX_OK)
        rc = kix_log_txn_put(t, KIX_TABLE_GROUPS, k, n, "", 0, err);
    return rc ? rc : kix__group_reflow(t, run, err);
}

int kix__group_remove(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err)
{
    uint8_t k[GROUP_KEY_MAX];
    size_t n = 0;
    struct kix_bytes flag;
    int starts, rc = group_key(t, run, 0, k, &n, err);

    if (rc) /* a group never numbered has no member */
        return rc == KIX_ENOTFOUND ? KIX_OK : rc;
    starts = kix_log_txn_get(t, KIX_TABLE_GROUPS, k, n, &flag) == KIX_OK && flag.len > 0 &&
             flag.ptr[0] != 0;
    rc = kix_log_txn_del(t, KIX_TABLE_GROUPS, k, n, err);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc == KIX_OK && starts)
        rc = kix__group_unstart(t, run, err);
    return rc ? rc : kix__group_reflow(t, run, err);
}

/* Walks a group from its first run; fn returns nonzero to stop. */
typedef int (*walk_fn)(void *ctx, uint64_t pos, const char *run_id, uint64_t value);

struct walk {
    const uint8_t *group; /* its prefix */
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
    if (key->len <= KIX__GROUP_ID_AT || memcmp(key->ptr, w->group, KIX__GROUP_PREFIX) != 0)
        return 1;
    n = key->len - KIX__GROUP_ID_AT > KIX_RUN_ID_MAX ? KIX_RUN_ID_MAX : key->len - KIX__GROUP_ID_AT;
    memcpy(id, key->ptr + KIX__GROUP_ID_AT, n);
    id[n] = '\0';
    return w->fn(w->ctx, w->pos++, id, kix_u64be_get(key->ptr + KIX__GROUP_PREFIX));
}

static int walk_group(struct kix_log_txn *t, const struct kix_digest *group, walk_fn fn, void *ctx)
{
    uint8_t prefix[KIX__GROUP_PREFIX];
    struct walk w = {prefix, 0, fn, ctx};
    int rc = kix__group_prefix(t, group, 0, prefix, NULL);

    if (rc)
        return rc == KIX_ENOTFOUND ? KIX_OK : rc; /* no member */
    return kix_log_txn_scan(t, KIX_TABLE_GROUPS, prefix, sizeof(prefix), walk_step, &w);
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

struct groups_ctx {
    struct kix_log_txn *t;
    kix_groups_fn fn;
    void *ctx;
    int rc;
};

struct probe {
    const uint8_t *prefix;
    int found;
};

/* The first key at or after a group's prefix: a member when it has it. */
static int any_member(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct probe *p = arg;

    (void)val;
    p->found = key->len > KIX__GROUP_ID_AT && memcmp(key->ptr, p->prefix, KIX__GROUP_PREFIX) == 0;
    return 1;
}

int kix__group_ranks(struct kix_log_txn *t, const uint8_t prefix[KIX__GROUP_PREFIX], int *ranks)
{
    struct probe p = {prefix, 0};
    int rc = kix_log_txn_scan(t, KIX_TABLE_GROUPS, prefix, KIX__GROUP_PREFIX, any_member, &p);

    *ranks = p.found;
    return rc;
}

/* A numbered group, listed when it ranks a run (a group whose runs all
 * left keeps its number). */
static int group_step(void *arg, const uint8_t name[32], uint32_t num)
{
    struct groups_ctx *c = arg;
    struct kix_digest g;
    uint8_t prefix[KIX__GROUP_PREFIX];
    int found = 0, rc;

    kix_u32be_put(prefix, num);
    rc = kix__group_ranks(c->t, prefix, &found);
    if (rc)
        return rc;
    if (!found)
        return 0;
    memcpy(g.b, name, 32);
    rc = c->fn(c->ctx, &g);
    if (rc < 0)
        c->rc = rc;
    return rc != 0;
}

/* In the comparison keys' order: the groups' numbers are kept by key. */
int kix_index_groups(struct kix_log_reader *r, kix_groups_fn fn, void *ctx)
{
    struct groups_ctx c = {kix_log_reader_txn(r), fn, ctx, KIX_OK};
    int rc = kix__numbers_each(c.t, KIX__NUMBER_GROUP, group_step, &c);

    return rc ? rc : c.rc;
}
