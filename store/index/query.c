/* Queries over the comparison groups: ranked runs filtered by kernel, GPU,
 * provider and timed pass. A scan of the ranked runs (each read once from
 * the snapshot), fine at the index's scale; see kix/index.h. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index_internal.h"
#include "kix/json.h"
#include "kix/selection.h"

static void copy_string(char *out, size_t cap, const json_t *v)
{
    snprintf(out, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static const char *const ref_fields[KIX_QUERY_NREFS] = {"workloadDigest", "environmentDigest",
                                                        "implementationDigest"};

void kix__query_words_manifest(const json_t *doc, struct kix_query_row *row,
                               struct kix_digest refs[KIX_QUERY_NREFS])
{
    const json_t *spec = json_object_get(doc, "spec");
    const char *bench, *slash;

    for (int i = 0; refs && i < KIX_QUERY_NREFS; i++) {
        const char *t = json_string_value(json_object_get(spec, ref_fields[i]));
        if (!t || kix_digest_parse(t, strlen(t), &refs[i], NULL) != KIX_OK)
            memset(&refs[i], 0, sizeof(refs[i]));
    }
    if (!row)
        return;
    bench = json_string_value(json_object_get(json_object_get(spec, "sourceNative"), "benchmark"));
    copy_string(row->source, sizeof(row->source),
                json_object_get(json_object_get(spec, "sourceNative"), "source"));
    bench = json_string_value(json_object_get(json_object_get(spec, "timing"),
                                              "primaryStatistic")); /* as kix/manifest.h */
    snprintf(row->statistic, sizeof(row->statistic), "%s",
             bench && strcmp(bench, "mean") == 0 ? "mean" : "median");
    bench = json_string_value(json_object_get(json_object_get(spec, "sourceNative"), "benchmark"));
    row->mode[0] = '\0';
    if (bench && (slash = strchr(bench, '/')) != NULL)
        snprintf(row->mode, sizeof(row->mode), "%.*s", (int)strcspn(slash + 1, "/"), slash + 1);
    snprintf(row->metric, sizeof(row->metric), "%s",
             json_object_get(spec, "memory") ? "peak_memory" : "latency");
}

void kix__query_words_object(int which, const json_t *obj, struct kix_query_row *row,
                             char *gpu_full, size_t gpu_cap)
{
    const json_t *spec = json_object_get(obj, "spec"), *hw;
    const char *form;

    switch (which) {
    case KIX_QUERY_WORKLOAD:
        copy_string(row->kernel, sizeof(row->kernel), json_object_get(spec, "kernel"));
        break;
    case KIX_QUERY_ENVIRONMENT:
        hw = json_object_get(spec, "hardware");
        copy_string(row->gpu, sizeof(row->gpu), json_object_get(hw, "product"));
        /* what --gpu matches: the product and its form factor, as in
         * "NVIDIA A100-SXM4-80GB" */
        form = json_string_value(json_object_get(hw, "formFactor"));
        snprintf(gpu_full, gpu_cap, "%s %s", row->gpu, form ? form : "");
        break;
    case KIX_QUERY_IMPLEMENTATION:
        copy_string(row->provider, sizeof(row->provider), json_object_get(spec, "provider"));
        break;
    }
}

void kix_query_row_refs(const uint8_t *manifest, size_t len,
                        struct kix_digest refs[KIX_QUERY_NREFS])
{
    json_t *doc = kix_json_tree_memo(manifest, len);
    kix__query_words_manifest(doc, NULL, refs);
    json_decref(doc);
}

void kix_query_row_describe(const uint8_t *manifest, size_t len,
                            const struct kix_bytes objs[KIX_QUERY_NREFS], struct kix_query_row *row,
                            char *gpu_full, size_t gpu_cap)
{
    json_t *doc = kix_json_tree_memo(manifest, len);

    kix__query_words_manifest(doc, row, NULL);
    for (int i = 0; i < KIX_QUERY_NREFS; i++) {
        json_t *o = objs[i].ptr ? kix_json_tree_memo(objs[i].ptr, objs[i].len) : NULL;
        kix__query_words_object(i, o, row, gpu_full, gpu_cap);
        json_decref(o);
    }
    json_decref(doc);
}

/* Fills the descriptive fields of a row from its manifest and objects. */
int kix__query_describe(struct kix_log_reader *r, const struct kix_run_info *run,
                        struct kix_query_row *row, char *gpu_full, size_t gpu_cap)
{
    static const struct kix_digest none;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_bytes m, objs[KIX_QUERY_NREFS];

    if (kix_log_reader_object(r, &run->manifest, &m) != KIX_OK)
        return KIX_ECORRUPT;
    kix_query_row_refs(m.ptr, m.len, refs);
    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        if (memcmp(&refs[i], &none, sizeof(none)) == 0 ||
            kix_log_reader_object(r, &refs[i], &objs[i]) != KIX_OK)
            objs[i] = (struct kix_bytes){NULL, 0};
    kix_query_row_describe(m.ptr, m.len, objs, row, gpu_full, gpu_cap);
    return KIX_OK;
}

static int matches(const struct kix_query *q, const struct kix_query_row *row, const char *gpu_full)
{
    const char *asked[] = {q->kernel, q->gpu, q->provider, q->mode, q->metric};
    const char *has[] = {row->kernel, gpu_full, row->provider, row->mode, row->metric};

    for (int d = KIX_SEL_KERNEL; d <= KIX_SEL_METRIC; d++)
        if (asked[d] && !kix_sel_matches(d, has[d], asked[d]))
            return 0;
    return 1;
}

struct query_ctx {
    struct kix_log_reader *r;
    const struct kix_query *q;
    const struct kix_digest *group;
    uint64_t group_size;
    struct kix_query_row *rows; /* every match, sorted before the page is cut */
    size_t nrows, cap;
    int rc;
};

static int query_run(void *arg, uint64_t rank, const char *run_id, uint64_t value)
{
    struct query_ctx *c = arg;
    struct kix_query_row row;
    struct kix_run_info run;
    char gpu_full[160];
    int rc;

    memset(&row, 0, sizeof(row));
    rc = kix_index_run(c->r, run_id, strlen(run_id), &run);
    if (rc == KIX_OK)
        rc = kix__query_describe(c->r, &run, &row, gpu_full, sizeof(gpu_full));
    if (rc) {
        c->rc = rc;
        return -1;
    }
    if (!matches(c->q, &row, gpu_full))
        return 0;
    struct kix_query_row *grown = kix_array_grow(c->rows, &c->cap, c->nrows, 64, sizeof(*grown));
    if (!grown) {
        c->rc = KIX_ENOMEM;
        return -1;
    }
    c->rows = grown;
    snprintf(row.run_id, sizeof(row.run_id), "%s", run_id);
    row.manifest = run.manifest;
    row.group = *c->group;
    row.rank = rank;
    row.group_size = c->group_size;
    row.value = value;
    row.evidence = run.evidence;
    c->rows[c->nrows++] = row;
    return 0;
}

static int query_group(void *arg, const struct kix_digest *key)
{
    struct query_ctx *c = arg;
    uint64_t size = 0;
    int rc;

    c->group = key;
    /* group size first (rows carry it), then the walk */
    rc = kix_index_group(c->r, key, 0, 0, query_run, c, &size);
    if (rc == KIX_OK) {
        c->group_size = size;
        rc = kix_index_group(c->r, key, 0, UINT64_MAX, query_run, c, &size);
    }
    return rc ? rc : c->rc;
}

/* Groups in the order people read them: by kernel, GPU, timed pass and
 * metric (case-insensitive; what a group holds constant), then by group
 * key; runs best first within each group. */
int kix_query_row_order(const void *a, const void *b)
{
    const struct kix_query_row *x = a, *y = b;
    int d;

    if ((d = strcasecmp(x->kernel, y->kernel)) || (d = strcasecmp(x->gpu, y->gpu)) ||
        (d = strcasecmp(x->mode, y->mode)) || (d = strcasecmp(x->metric, y->metric)) ||
        (d = memcmp(x->group.b, y->group.b, 32)))
        return d;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int kix_index_query(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn, void *ctx,
                    uint64_t *matched)
{
    struct query_ctx c = {r, q, NULL, 0, NULL, 0, 0, KIX_OK};
    int rc;

    /* filters: the selection records say which groups and runs match */
    if (q->kernel || q->gpu || q->provider || q->mode || q->metric || q->dtype)
        return kix__query_selected(r, q, fn, ctx, matched);
    rc = q->group ? query_group(&c, q->group) : kix_index_groups(r, query_group, &c);
    if (rc == KIX_OK && c.nrows > 1)
        qsort(c.rows, c.nrows, sizeof(*c.rows), kix_query_row_order);
    for (uint64_t i = q->offset; rc == KIX_OK && i < c.nrows && i - q->offset < q->limit; i++)
        if (fn(ctx, &c.rows[i]))
            break;
    if (matched)
        *matched = c.nrows;
    free(c.rows);
    return rc;
}
