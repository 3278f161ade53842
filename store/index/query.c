/* Queries over the comparison groups: ranked runs filtered by kernel, GPU,
 * provider and timed pass. A scan of the ranked runs (each read once from
 * the snapshot), fine at the index's scale; see kix/index.h. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "index_internal.h"

static json_t *load_object(struct kix_log_reader *r, const char *digest_text)
{
    struct kix_digest d;
    struct kix_bytes v;

    if (!digest_text || kix_digest_parse(digest_text, strlen(digest_text), &d, NULL) != KIX_OK ||
        kix_log_reader_object(r, &d, &v) != KIX_OK)
        return NULL;
    return json_loadb((const char *)v.ptr, v.len, 0, NULL);
}

static void copy_string(char *out, size_t cap, const json_t *v)
{
    snprintf(out, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* Fills the descriptive fields of a row from its manifest and objects. */
static int describe(struct kix_log_reader *r, const struct kix_run_info *run,
                    struct kix_query_row *row)
{
    struct kix_bytes v;
    json_t *doc, *spec, *w, *e, *impl;
    const char *bench, *slash;

    if (kix_log_reader_object(r, &run->manifest, &v) != KIX_OK)
        return KIX_ECORRUPT;
    doc = json_loadb((const char *)v.ptr, v.len, 0, NULL);
    spec = json_object_get(doc, "spec");
    bench = json_string_value(json_object_get(json_object_get(spec, "sourceNative"), "benchmark"));
    row->mode[0] = '\0';
    if (bench && (slash = strchr(bench, '/')) != NULL)
        snprintf(row->mode, sizeof(row->mode), "%.*s", (int)strcspn(slash + 1, "/"), slash + 1);
    snprintf(row->metric, sizeof(row->metric), "%s",
             json_object_get(spec, "memory") ? "peak_memory" : "latency");
    w = load_object(r, json_string_value(json_object_get(spec, "workloadDigest")));
    e = load_object(r, json_string_value(json_object_get(spec, "environmentDigest")));
    impl = load_object(r, json_string_value(json_object_get(spec, "implementationDigest")));
    copy_string(row->kernel, sizeof(row->kernel),
                json_object_get(json_object_get(w, "spec"), "kernel"));
    copy_string(
        row->gpu, sizeof(row->gpu),
        json_object_get(json_object_get(json_object_get(e, "spec"), "hardware"), "product"));
    copy_string(row->provider, sizeof(row->provider),
                json_object_get(json_object_get(impl, "spec"), "provider"));
    json_decref(w);
    json_decref(e);
    json_decref(impl);
    json_decref(doc);
    return KIX_OK;
}

/* Case-insensitive substring test (strcasestr is a GNU extension). */
static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}

static int matches(const struct kix_query *q, const struct kix_query_row *row)
{
    if (q->kernel && strcasecmp(q->kernel, row->kernel) != 0)
        return 0;
    if (q->provider && strcasecmp(q->provider, row->provider) != 0)
        return 0;
    if (q->mode && strcasecmp(q->mode, row->mode) != 0)
        return 0;
    if (q->gpu && !contains_nocase(row->gpu, q->gpu))
        return 0;
    if (q->metric && strcasecmp(q->metric, row->metric) != 0)
        return 0;
    return 1;
}

struct query_ctx {
    struct kix_log_reader *r;
    const struct kix_query *q;
    kix_query_fn fn;
    void *ctx;
    const struct kix_digest *group;
    uint64_t group_size, matched, emitted;
    int rc;
};

static int query_run(void *arg, uint64_t rank, const char *run_id, uint64_t value)
{
    struct query_ctx *c = arg;
    struct kix_query_row row;
    struct kix_run_info run;
    int rc;

    memset(&row, 0, sizeof(row));
    rc = kix_index_run(c->r, run_id, strlen(run_id), &run);
    if (rc == KIX_OK)
        rc = describe(c->r, &run, &row);
    if (rc) {
        c->rc = rc;
        return -1;
    }
    if (!matches(c->q, &row))
        return 0;
    c->matched++;
    if (c->matched <= c->q->offset || c->emitted >= c->q->limit)
        return 0;
    snprintf(row.run_id, sizeof(row.run_id), "%s", run_id);
    row.manifest = run.manifest;
    row.group = *c->group;
    row.rank = rank;
    row.group_size = c->group_size;
    row.value = value;
    row.evidence = run.evidence;
    c->emitted++;
    return c->fn(c->ctx, &row) ? 1 : 0;
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

int kix_index_query(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn, void *ctx,
                    uint64_t *matched)
{
    struct query_ctx c = {r, q, fn, ctx, NULL, 0, 0, 0, KIX_OK};
    int rc;

    rc = q->group ? query_group(&c, q->group) : kix_index_groups(r, query_group, &c);
    if (matched)
        *matched = c.matched;
    return rc;
}
