/* kix_client_query_verify: a query's rows proven, not told. The server
 * chooses which runs match (a query is a scan, not a proof of
 * completeness; kix_client_group_page_verify in client/lib/group_page_verify.c
 * proves a whole group's page), but everything a row says about a run is
 * checked (and kix_client_query_complete, client/lib/query_select.c,
 * proves which match): its description is recomputed from objects verified by digest,
 * its group and value from its manifest, its rank and group size from the
 * group's record in the log's signed index, and its manifest, group, value
 * and evidence from the run's record there. See kix/client.h. */
#include <stdlib.h>
#include <string.h>

#include "kix/client.h"
#include "kix/manifest.h"
#include "kix/vindex.h"
#include "query_internal.h"

#define OBJECTS_PER_CALL 1024 /* kix_client_get_objects' bound */

struct fetched {
    struct kix_buf *bytes; /* one per digest asked */
    int *have;
};

static int keep(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct fetched *f = ctx;
    if (!bytes)
        return 0;
    f->have[i] = 1;
    return kix_buf_add(&f->bytes[i], bytes, len);
}

/* Fetches n objects by digest (each checked against its digest by the
 * client), in calls of at most OBJECTS_PER_CALL. */
static int fetch_all(struct kix_client *c, const struct kix_digest *d, size_t n, struct fetched *f,
                     struct kix_err *err)
{
    int rc = KIX_OK;
    for (size_t at = 0; rc == KIX_OK && at < n; at += OBJECTS_PER_CALL) {
        size_t k = n - at < OBJECTS_PER_CALL ? n - at : OBJECTS_PER_CALL;
        struct fetched part = {f->bytes + at, f->have + at};
        rc = kix_client_get_objects(c, d + at, k, keep, &part, err);
    }
    return rc;
}

static void fetched_release(struct fetched *f, size_t n)
{
    for (size_t i = 0; f->bytes && i < n; i++)
        kix_buf_release(&f->bytes[i]);
    free(f->bytes);
    free(f->have);
}

static int fetched_init(struct fetched *f, size_t n)
{
    f->bytes = calloc(n ? n : 1, sizeof(*f->bytes));
    f->have = calloc(n ? n : 1, sizeof(*f->have));
    return f->bytes && f->have ? KIX_OK : KIX_ENOMEM;
}

/* Each row's group, value and metric are its manifest's. */
static int check_manifest(const struct kix_query_row *row, const struct kix_buf *m,
                          struct kix_err *err)
{
    char metric[16], want[KIX_DIGEST_TEXT_LEN + 1], got[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_digest key;
    uint64_t value;

    if (kix_run_comparison_key(m->ptr, m->len, &key, &value, metric) != KIX_OK)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server ranks run %s, whose manifest is not a comparable run",
                           row->run_id);
    if (memcmp(key.b, row->group.b, 32) != 0 || value != row->value ||
        strcmp(metric, row->metric) != 0) {
        kix_digest_format(&row->group, want);
        kix_digest_format(&key, got);
        return kix_err_set(err, KIX_EVERIFY,
                           "the server ranks run %s in group %s with %s %llu; its manifest puts "
                           "it in group %s with %s %llu",
                           row->run_id, want, row->metric, (unsigned long long)row->value, got,
                           metric, (unsigned long long)value);
    }
    return KIX_OK;
}

/* The row's words are what its objects say. */
static int check_description(struct kix_query_row *row, const struct kix_buf *m,
                             const struct kix_buf objs[KIX_QUERY_NREFS],
                             const int have[KIX_QUERY_NREFS], struct kix_err *err)
{
    struct kix_bytes views[KIX_QUERY_NREFS];
    struct kix_query_row mine = *row;
    char gpu_full[160];

    for (int k = 0; k < KIX_QUERY_NREFS; k++)
        views[k] = have[k] ? kix_buf_bytes(&objs[k]) : (struct kix_bytes){NULL, 0};
    kix_query_row_describe(m->ptr, m->len, views, &mine, gpu_full, sizeof(gpu_full));
    if (strcmp(mine.kernel, row->kernel) || strcmp(mine.gpu, row->gpu) ||
        strcmp(mine.provider, row->provider) || strcmp(mine.mode, row->mode))
        return kix_err_set(err, KIX_EVERIFY,
                           "the server describes run %s as %s on %s by %s (%s); its objects say "
                           "%s on %s by %s (%s)",
                           row->run_id, row->kernel, row->gpu, row->provider, row->mode,
                           mine.kernel, mine.gpu, mine.provider, mine.mode);
    /* words the server does not send: from the verified manifest */
    memcpy(row->source, mine.source, sizeof(row->source));
    memcpy(row->statistic, mine.statistic, sizeof(row->statistic));
    return KIX_OK;
}

struct members {
    const struct kix_query_row *rows;
    size_t n;
    const struct kix_digest *group;
    size_t matched; /* rows of this group found at their rank */
    const char *wrong;
    kix_vindex_member_fn each; /* may be NULL: sees every member */
    void *each_ctx;
};

static int at_rank(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct members *m = ctx;
    for (size_t i = 0; i < m->n; i++) {
        const struct kix_query_row *row = &m->rows[i];
        if (row->rank != rank || memcmp(row->group.b, m->group->b, 32) != 0)
            continue;
        if (strcmp(row->run_id, run_id) != 0 || row->value != value) {
            m->wrong = row->run_id;
            return 1;
        }
        m->matched++;
    }
    return m->each ? m->each(m->each_ctx, rank, run_id, value) : 0;
}

/* Every row of `group` is the member at its rank in the group's proven
 * records at those ranks (first, count: the ranks the rows claim when
 * count is 0), and the group's size is the directory's count; each (may
 * be NULL) sees every member read, in rank order. */
static int check_group(struct kix_client *c, const struct kix_verifier *key,
                       const struct kix_digest *group, const struct kix_query_row *rows, size_t n,
                       uint64_t first, uint64_t count, kix_vindex_member_fn each, void *each_ctx,
                       struct kix_query_proof *out, struct kix_err *err)
{
    struct members m = {rows, n, group, 0, NULL, each, each_ctx};
    struct kix_group_members g;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t want = 0;
    int rc;

    /* the pages holding the ranks the rows claim */
    for (size_t i = 0; i < n; i++) {
        if (memcmp(rows[i].group.b, group->b, 32) != 0)
            continue;
        lo = rows[i].rank < lo ? rows[i].rank : lo;
        hi = rows[i].rank > hi ? rows[i].rank : hi;
    }
    if (lo == 0)
        lo = 1;
    if (count == 0) {
        first = lo;
        count = hi >= lo ? hi - lo + 1 : 0;
    }
    rc = kix_client_group_members(c, key, group, first, count, at_rank, &m, out, &g, err);
    if (rc)
        return rc;
    kix_digest_format(group, text);
    if (!g.present)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server ranks runs in group %s, which the log's signed index at "
                           "size %llu proves absent",
                           text, (unsigned long long)out->size);
    for (size_t i = 0; i < n; i++) {
        if (memcmp(rows[i].group.b, group->b, 32) != 0)
            continue;
        want++;
        if (rows[i].group_size != g.count && !m.wrong)
            m.wrong = rows[i].run_id;
    }
    if (m.wrong || m.matched != want) {
        const char *who = m.wrong;
        for (size_t i = 0; !who && i < n; i++)
            if (memcmp(rows[i].group.b, group->b, 32) == 0)
                who = rows[i].run_id;
        return kix_err_set(err, KIX_EVERIFY,
                           "the server's ranks in group %s (run %s) are not the log's signed "
                           "index at size %llu, which ranks %llu runs there",
                           text, who, (unsigned long long)out->size, (unsigned long long)g.count);
    }
    return KIX_OK;
}

static int prove_groups(struct kix_client *c, const struct kix_verifier *key,
                        const struct kix_query_row *rows, size_t n, struct kix_query_proof *out,
                        struct kix_err *err)
{
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        int seen = 0;

        for (size_t j = 0; j < i && !seen; j++)
            seen = memcmp(rows[j].group.b, rows[i].group.b, 32) == 0;
        if (seen)
            continue;
        rc = check_group(c, key, &rows[i].group, rows, n, 0, 0, NULL, NULL, out, err);
        if (rc == KIX_OK)
            out->groups++;
    }
    return rc;
}

int kix__query_check_group(struct kix_client *c, const struct kix_verifier *key,
                           const struct kix_digest *group, const struct kix_query_row *rows,
                           size_t n, kix_vindex_member_fn each, void *each_ctx,
                           struct kix_query_proof *out, struct kix_err *err)
{
    /* every member, from rank 1: first + count - 1 wraps to the last rank */
    return check_group(c, key, group, rows, n, 1, UINT64_MAX, each, each_ctx, out, err);
}

/* The row is its run's record in the signed index at the groups' size. */
static int check_run(const struct kix_index_answer *a, const struct kix_query_row *row,
                     uint64_t size, struct kix_err *err)
{
    struct kix_vindex_run r;
    int rc;

    if (a->cp.size != size)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "the log grew from size %llu to %llu while its runs were proven; "
                           "try again",
                           (unsigned long long)size, (unsigned long long)a->cp.size);
    if (!a->present)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server ranks run %s, which the log's signed index at size %llu "
                           "proves absent",
                           row->run_id, (unsigned long long)size);
    rc = kix_vindex_run_decode(a->record.ptr, a->record.len, row->run_id, &r, err);
    if (rc)
        return rc;
    if (memcmp(r.info.manifest.b, row->manifest.b, 32) != 0 || !r.info.grouped ||
        memcmp(r.info.comparison_key.b, row->group.b, 32) != 0 || r.info.value != row->value)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server ranks run %s, which the log's signed index at size %llu "
                           "records with another manifest, group or value%s",
                           row->run_id, (unsigned long long)size,
                           r.info.grouped ? "" : " (it is not ranked)");
    if (r.info.evidence != row->evidence)
        return kix_err_set(err, KIX_EVERIFY,
                           "the server says run %s is %s; the log's signed index at size %llu "
                           "says %s",
                           row->run_id, kix_evidence_name(row->evidence), (unsigned long long)size,
                           kix_evidence_name(r.info.evidence));
    return KIX_OK;
}

/* One run record proof per row, all at the size the groups were proven at:
 * the evidence column is the log's, not the server's summary. */
static int prove_runs(struct kix_client *c, const struct kix_verifier *key,
                      const struct kix_query_row *rows, size_t n, uint64_t size,
                      struct kix_err *err)
{
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        char ikey[KIX_VINDEX_KEY_MAX + 1];
        struct kix_index_answer a;

        kix_vindex_key_run(rows[i].run_id, strlen(rows[i].run_id), ikey);
        rc = kix_client_index_proof(c, key, ikey, &a, err);
        if (rc)
            break;
        rc = check_run(&a, &rows[i], size, err);
        kix_index_answer_release(&a);
    }
    return rc;
}

int kix_client_query_verify(struct kix_client *c, const struct kix_verifier *key,
                            struct kix_query_row *rows, size_t n, kix_object_fn workload_fn,
                            void *ctx, struct kix_query_proof *out, struct kix_err *err)
{
    struct fetched man = {NULL, NULL}, objs = {NULL, NULL};
    struct kix_digest *d = NULL;
    int rc;

    out->size = 0;
    out->groups = 0;
    kix_buf_reset(&out->checkpoint);
    if ((rc = fetched_init(&man, n)) || (rc = fetched_init(&objs, n * KIX_QUERY_NREFS)) ||
        !(d = calloc(n * KIX_QUERY_NREFS + 1, sizeof(*d)))) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory verifying the query");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = rows[i].manifest;
    if ((rc = fetch_all(c, d, n, &man, err)))
        goto out;
    for (size_t i = 0; i < n; i++) {
        char text[KIX_DIGEST_TEXT_LEN + 1];
        if (!man.have[i]) {
            kix_digest_format(&rows[i].manifest, text);
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the server ranks run %s with manifest %s, which it does not hold",
                             rows[i].run_id, text);
            goto out;
        }
        if ((rc = check_manifest(&rows[i], &man.bytes[i], err)))
            goto out;
        kix_query_row_refs(man.bytes[i].ptr, man.bytes[i].len, &d[i * KIX_QUERY_NREFS]);
    }
    /* a zero digest (none named) is absent everywhere */
    if ((rc = fetch_all(c, d, n * KIX_QUERY_NREFS, &objs, err)))
        goto out;
    for (size_t i = 0; i < n; i++) {
        const struct kix_buf *o = &objs.bytes[i * KIX_QUERY_NREFS];
        const int *have = &objs.have[i * KIX_QUERY_NREFS];
        if ((rc = check_description(&rows[i], &man.bytes[i], o, have, err)))
            goto out;
        if (workload_fn && have[KIX_QUERY_WORKLOAD] &&
            (rc = workload_fn(ctx, i, o[KIX_QUERY_WORKLOAD].ptr, o[KIX_QUERY_WORKLOAD].len)))
            goto out;
    }
    rc = prove_groups(c, key, rows, n, out, err);
    if (rc == KIX_OK)
        rc = prove_runs(c, key, rows, n, out->size, err);
out:
    fetched_release(&man, n);
    fetched_release(&objs, n * KIX_QUERY_NREFS);
    free(d);
    return rc;
}
