/* The group and home views (kix/view.h), from the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kix/encoding.h"
#include "kix/note.h"
#include "kix/view.h"
#include "view_internal.h"

static int add_row(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct kix_group_view *v = ctx;
    struct kix_group_row *row;

    if (v->nrows == KIX_VIEW_GROUP_MAX)
        return KIX_OK;
    if (!v->rows && !(v->rows = calloc(KIX_VIEW_GROUP_MAX, sizeof(*v->rows))))
        return KIX_ENOMEM;
    row = &v->rows[v->nrows++];
    row->rank = rank;
    row->value = value;
    snprintf(row->run_id, sizeof(row->run_id), "%s", run_id);
    return KIX_OK;
}

static void describe(struct kix_log_reader *r, struct kix_query_row *row);

static void add_scalar(char *out, size_t cap, const char *name, const json_t *v)
{
    size_t len = strlen(out);
    char val[64];

    if (json_is_string(v))
        snprintf(val, sizeof(val), "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(val, sizeof(val), "%g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(val, sizeof(val), "%s", json_is_true(v) ? "true" : "false");
    else
        return;
    if (len + 1 < cap)
        snprintf(out + len, cap - len, name ? "%s%s=%s" : "%s%s", len ? " " : "", name ? name : val,
                 val);
}

void kix_view_workload_words(const uint8_t *bytes, size_t len, char *out, size_t cap)
{
    json_t *doc = bytes ? json_loadb((const char *)bytes, len, 0, NULL) : NULL;
    json_t *spec = json_object_get(doc, "spec"), *x = json_object_get(spec, "x"), *v;
    const char *k;

    out[0] = '\0';
    if (json_is_string(json_object_get(x, "name")))
        add_scalar(out, cap, json_string_value(json_object_get(x, "name")),
                   json_object_get(x, "value"));
    json_object_foreach(json_object_get(spec, "parameters"), k, v) add_scalar(out, cap, k, v);
    json_object_foreach(spec, k, v) if (strcmp(k, "kernel") != 0 && strcmp(k, "dtype") != 0)
        add_scalar(out, cap, k, v);
    if ((v = json_object_get(spec, "dtype")))
        add_scalar(out, cap, NULL, v);
    json_decref(doc);
}

/* What a row shows besides its rank and value, from its run's manifest
 * and objects: provider, spread, evidence, date. */
static void describe_row(struct kix_log_reader *r, struct kix_group_row *row)
{
    struct kix_query_row q;
    struct kix_run_info info;
    struct kix_bytes b;
    struct kix_figures f;
    json_t *doc, *obs;

    memset(&q, 0, sizeof(q));
    snprintf(q.run_id, sizeof(q.run_id), "%s", row->run_id);
    describe(r, &q);
    snprintf(row->provider, sizeof(row->provider), "%s", q.provider);
    if (kix_index_run(r, row->run_id, strlen(row->run_id), &info) != KIX_OK ||
        kix_log_reader_object(r, &info.manifest, &b) != KIX_OK)
        return;
    row->evidence = info.evidence;
    doc = json_loadb((const char *)b.ptr, b.len, 0, NULL);
    kix_figures_of(doc, &f);
    row->have_p20 = f.have_p20;
    row->have_p80 = f.have_p80;
    row->p20 = f.p20;
    row->p80 = f.p80;
    obs = json_object_get(json_object_get(doc, "spec"), "observedAt");
    if (json_is_string(obs))
        snprintf(row->observed, sizeof(row->observed), "%.10s", json_string_value(obs));
    json_decref(doc);
}

/* The group in words, from its best run (any run of it says the same). */
static void group_words(struct kix_log_reader *r, struct kix_group_view *v, const char *best)
{
    static const struct kix_digest none;
    struct kix_query_row q;
    struct kix_run_info info;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_bytes m, w = {NULL, 0};

    memset(&q, 0, sizeof(q));
    snprintf(q.run_id, sizeof(q.run_id), "%s", best);
    describe(r, &q);
    snprintf(v->kernel, sizeof(v->kernel), "%s", q.kernel);
    snprintf(v->mode, sizeof(v->mode), "%s", q.mode);
    snprintf(v->gpu, sizeof(v->gpu), "%s", q.gpu);
    if (kix_index_run(r, best, strlen(best), &info) != KIX_OK ||
        kix_log_reader_object(r, &info.manifest, &m) != KIX_OK)
        return;
    kix_query_row_refs(m.ptr, m.len, refs);
    if (memcmp(&refs[KIX_QUERY_WORKLOAD], &none, sizeof(none)) != 0 &&
        kix_log_reader_object(r, &refs[KIX_QUERY_WORKLOAD], &w) != KIX_OK)
        w.ptr = NULL;
    kix_view_workload_words(w.ptr, w.len, v->workload, sizeof(v->workload));
}

struct best {
    char run_id[KIX_RUN_ID_MAX + 1];
    uint64_t value;
};

static int best_of(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct best *b = ctx;
    (void)rank;
    snprintf(b->run_id, sizeof(b->run_id), "%s", run_id);
    b->value = value;
    return 0;
}

static char *hex_of(const struct kix_buf *b)
{
    char *h = malloc(2 * b->len + 1);

    if (h)
        kix_hex_encode(b->ptr, b->len, h);
    return h;
}

/* The members' unit: the best run's primary statistic. */
static void group_unit(struct kix_log_reader *r, struct kix_group_view *v)
{
    struct kix_run_info info;
    struct kix_bytes b;
    struct kix_figures f;
    json_t *doc;

    if (!v->nrows ||
        kix_index_run(r, v->rows[0].run_id, strlen(v->rows[0].run_id), &info) != KIX_OK ||
        kix_log_reader_object(r, &info.manifest, &b) != KIX_OK)
        return;
    doc = json_loadb((const char *)b.ptr, b.len, 0, NULL);
    kix_figures_of(doc, &f);
    v->bytes = f.bytes;
    json_decref(doc);
}

/* The pages of the group's directory that hold the view's rows, each
 * with its record and proof. */
struct page_pick {
    struct kix_log_reader *r;
    struct kix_group_view *v;
    int rc;
};

static int pick_page(void *ctx, const struct kix_vindex_page *p)
{
    struct page_pick *k = ctx;
    struct kix_group_view *v = k->v;
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_group_view_page *pg;
    int present = 0;

    if (!v->nrows || !p->members || p->first_rank > v->offset + v->nrows ||
        p->first_rank + p->members <= v->offset + 1)
        return 0;
    pg = realloc(v->pages, (v->npages + 1) * sizeof(*pg));
    if (!pg) {
        k->rc = KIX_ENOMEM;
        return 1;
    }
    v->pages = pg;
    pg = &v->pages[v->npages];
    memset(pg, 0, sizeof(*pg));
    kix_vindex_key_group_page(&v->key, p->index ? p->first_run : "", pg->key);
    k->rc = kix_index_prove(k->r, pg->key, strlen(pg->key), &record, &proof, &present, NULL);
    if (k->rc == KIX_OK && present) {
        v->npages++;
        if (!(pg->record = hex_of(&record)) || !(pg->proof = hex_of(&proof)))
            k->rc = KIX_ENOMEM;
    }
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return k->rc != KIX_OK;
}

/* The signed index's proof of the group's directory and of the pages that
 * hold the rows, when the store has one. */
static int group_proof(struct kix_log_reader *r, struct kix_group_view *v)
{
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_bytes note;
    struct kix_vindex_dir dir;
    struct page_pick pick = {r, v, KIX_OK};
    int present = 0, rc = KIX_OK;

    kix_vindex_key_group(&v->key, v->group_key);
    if (kix_log_reader_index_note(r, KIX_NO_INDEX, &note) != KIX_OK ||
        kix_index_prove(r, v->group_key, strlen(v->group_key), &record, &proof, &present, NULL) !=
            KIX_OK ||
        !present)
        goto out; /* no signed index here: the document has no "index" */
    rc = kix_buf_add(&v->index_note, note.ptr, note.len);
    if (rc == KIX_OK &&
        (!(v->group_record = hex_of(&record)) || !(v->group_proof = hex_of(&proof))))
        rc = KIX_ENOMEM;
    if (rc == KIX_OK && kix_vindex_group_decode(record.ptr, record.len, &v->key, &dir, pick_page,
                                                &pick, NULL) == KIX_OK)
        rc = pick.rc;
out:
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return rc;
}

int kix_group_view_from_store(struct kix_log_reader *r, const char *key, size_t len,
                              uint64_t offset, struct kix_group_view *v, struct kix_err *err)
{
    struct kix_bytes cp = {NULL, 0};
    int rc;

    memset(v, 0, sizeof(*v));
    kix_buf_init(&v->checkpoint);
    kix_buf_init(&v->log_key);
    kix_buf_init(&v->index_note);
    if (kix_digest_parse(key, len, &v->key, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "not a group key");
    kix_digest_format(&v->key, v->group);
    v->offset = offset;
    rc = kix_index_group(r, &v->key, offset, KIX_VIEW_GROUP_MAX, add_row, v, &v->size);
    if (rc == KIX_OK && v->size == 0)
        return kix_err_set(err, KIX_ENOTFOUND, "no such group");
    v->tree_size = kix_log_reader_size(r);
    if (rc == KIX_OK && kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) == KIX_OK) {
        const uint8_t *nl = memchr(cp.ptr, '\n', cp.len);
        kix__view_origin(cp.ptr, cp.len, v->origin, sizeof(v->origin));
        rc = kix_buf_add(&v->checkpoint, cp.ptr, cp.len);
        /* the size the checkpoint (and the index note, and so the proof) is at */
        if (rc == KIX_OK && nl)
            v->tree_size = strtoull((const char *)v->checkpoint.ptr + (nl - cp.ptr) + 1, NULL, 10);
    }
    if (rc == KIX_OK)
        rc = kix_verifier_format(kix_log_reader_verifier(r), &v->log_key);
    if (rc == KIX_OK)
        rc = group_proof(r, v);
    group_unit(r, v);
    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++)
        describe_row(r, &v->rows[i]);
    if (rc == KIX_OK) {
        struct best best = {"", 0};
        rc = kix_index_group(r, &v->key, 0, 1, best_of, &best, NULL);
        v->best_value = best.value;
        if (rc == KIX_OK && best.run_id[0])
            group_words(r, v, best.run_id);
    }
    return rc ? kix_err_set(err, rc, "the group %s: %s", v->group, kix_strerror(rc)) : KIX_OK;
}

void kix_group_view_release(struct kix_group_view *v)
{
    kix_buf_release(&v->checkpoint);
    kix_buf_release(&v->log_key);
    kix_buf_release(&v->index_note);
    free(v->group_record);
    free(v->group_proof);
    for (size_t i = 0; i < v->npages; i++) {
        free(v->pages[i].record);
        free(v->pages[i].proof);
    }
    free(v->pages);
    free(v->rows);
    memset(v, 0, sizeof(*v));
}

static int set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

int kix_group_view_json(const struct kix_group_view *v, unsigned flags, struct kix_buf *out,
                        struct kix_err *err)
{
    json_t *o = json_object(), *rows = json_array();
    char *text = NULL;
    int bad = !o || !rows, rc;

    bad |= set(o, "view", json_string(KIX_VIEW_GROUP));
    bad |= set(o, "group", json_string(v->group));
    bad |= set(o, "origin", json_string(v->origin));
    bad |= set(o, "treeSize", json_integer((json_int_t)v->tree_size));
    bad |= set(o, "checkpoint", json_stringn((const char *)v->checkpoint.ptr, v->checkpoint.len));
    if (v->log_key.len)
        bad |= set(o, "logKey", json_stringn((const char *)v->log_key.ptr, v->log_key.len));
    bad |= set(o, "size", json_integer((json_int_t)v->size));
    bad |= set(o, "offset", json_integer((json_int_t)v->offset));
    bad |= set(o, "title",
               json_pack("{s:s,s:s,s:s,s:s}", "kernel", v->kernel, "workload", v->workload, "pass",
                         v->mode, "gpu", v->gpu));
    bad |= set(o, "limit", json_integer((json_int_t)KIX_VIEW_GROUP_MAX));
    for (size_t i = 0; rows && i < v->nrows; i++) {
        const struct kix_group_row *w = &v->rows[i];
        json_t *x = json_pack("{s:I,s:s,s:I,s:s,s:s,s:s,s:s}", "rank", (json_int_t)w->rank, "runId",
                              w->run_id, "value", (json_int_t)w->value, "unit",
                              v->bytes ? "bytes" : "ns", "provider", w->provider, "evidence",
                              kix_evidence_name(w->evidence), "observedAt", w->observed);
        if (x && w->have_p20)
            bad |= set(x, "p20", json_integer((json_int_t)w->p20));
        if (x && w->have_p80)
            bad |= set(x, "p80", json_integer((json_int_t)w->p80));
        bad |= !x || json_array_append_new(rows, x) != 0;
    }
    bad |= set(o, "rows", rows);
    if (v->group_record) {
        json_t *pages = json_array();
        bad |= !pages;
        for (size_t i = 0; pages && i < v->npages; i++)
            bad |= json_array_append_new(pages, json_pack("{s:s,s:s,s:s}", "key", v->pages[i].key,
                                                          "record", v->pages[i].record, "proof",
                                                          v->pages[i].proof)) != 0;
        bad |= set(o, "index",
                   json_pack("{s:s%,s:s%,s:s,s:s,s:s,s:o}", "checkpoint",
                             (const char *)v->checkpoint.ptr, v->checkpoint.len, "indexNote",
                             (const char *)v->index_note.ptr, v->index_note.len, "groupKey",
                             v->group_key, "groupRecord", v->group_record, "groupProof",
                             v->group_proof, "pages", pages));
    }
    text = bad ? NULL
               : json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS |
                                   (flags & KIX_VIEW_JSON_HTML ? JSON_ESCAPE_SLASH : 0));
    rc = text ? kix_buf_adds(out, text) : KIX_ENOMEM;
    free(text);
    json_decref(o);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* ---- home ----------------------------------------------------------------------------- */

/* What the home page lists, per group: its best run described from that
 * run's manifest and objects alone (the rest of the group is counted by
 * the index, never read), and the keys it is ordered by. */
struct home_group {
    struct kix_query_row row;
};

struct home_walk {
    struct kix_log_reader *r;
    struct home_group *groups;
    size_t n, cap;
    uint64_t ranked;
    int rc;
};

static int best_run(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct kix_query_row *row = ctx;

    row->rank = rank;
    row->value = value;
    snprintf(row->run_id, sizeof(row->run_id), "%s", run_id);
    return KIX_OK;
}

/* Fills row's kernel, GPU, provider, pass and metric as kix query does. */
static void describe(struct kix_log_reader *r, struct kix_query_row *row)
{
    static const struct kix_digest none;
    struct kix_run_info run;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_bytes m, objs[KIX_QUERY_NREFS];
    char gpu_full[160];

    if (kix_index_run(r, row->run_id, strlen(row->run_id), &run) != KIX_OK ||
        kix_log_reader_object(r, &run.manifest, &m) != KIX_OK)
        return;
    kix_query_row_refs(m.ptr, m.len, refs);
    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        if (memcmp(&refs[i], &none, sizeof(none)) == 0 ||
            kix_log_reader_object(r, &refs[i], &objs[i]) != KIX_OK)
            objs[i] = (struct kix_bytes){NULL, 0};
    kix_query_row_describe(m.ptr, m.len, objs, row, gpu_full, sizeof(gpu_full));
}

static int home_group(void *ctx, const struct kix_digest *key)
{
    struct home_walk *h = ctx;
    struct kix_query_row *row;
    int rc;

    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        void *p = realloc(h->groups, cap * sizeof(*h->groups));
        if (!p)
            return KIX_ENOMEM;
        h->groups = p;
        h->cap = cap;
    }
    row = &h->groups[h->n].row;
    memset(row, 0, sizeof(*row));
    row->group = *key;
    rc = kix_index_group(h->r, key, 0, 1, best_run, row, &row->group_size);
    if (rc || row->group_size == 0)
        return rc;
    describe(h->r, row);
    h->ranked += row->group_size;
    h->n++;
    return KIX_OK;
}

/* The order of kix query (kix/index.h): kernel, GPU, timed pass, metric,
 * then group key. */
static int home_order(const void *a, const void *b)
{
    const struct kix_query_row *x = &((const struct home_group *)a)->row,
                               *y = &((const struct home_group *)b)->row;
    int d;

    if ((d = strcasecmp(x->kernel, y->kernel)) || (d = strcasecmp(x->gpu, y->gpu)) ||
        (d = strcasecmp(x->mode, y->mode)) || (d = strcasecmp(x->metric, y->metric)))
        return d;
    return memcmp(x->group.b, y->group.b, sizeof(x->group.b));
}

int kix_home_view_from_store(struct kix_log_reader *r, struct kix_home_view *v, struct kix_err *err)
{
    struct home_walk h = {r, NULL, 0, 0, 0, KIX_OK};
    struct kix_bytes cp;
    int rc;

    memset(v, 0, sizeof(*v));
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) == KIX_OK)
        kix__view_origin(cp.ptr, cp.len, v->origin, sizeof(v->origin));
    v->tree_size = kix_log_reader_size(r);
    rc = kix_index_groups(r, home_group, &h);
    if (rc == KIX_OK && h.n > 1)
        qsort(h.groups, h.n, sizeof(*h.groups), home_order);
    if (rc == KIX_OK && h.n && !(v->rows = calloc(h.n, sizeof(*v->rows))))
        rc = KIX_ENOMEM;
    for (size_t i = 0; rc == KIX_OK && i < h.n; i++) {
        const struct kix_query_row *q = &h.groups[i].row;
        struct kix_home_row *row = &v->rows[v->nrows++];
        snprintf(row->kernel, sizeof(row->kernel), "%s", q->kernel);
        snprintf(row->gpu, sizeof(row->gpu), "%s", q->gpu);
        snprintf(row->provider, sizeof(row->provider), "%s", q->provider);
        kix_digest_format(&q->group, row->group);
        snprintf(row->best, sizeof(row->best), "%s", q->run_id);
        row->group_size = q->group_size;
    }
    v->ranked_runs = h.ranked;
    free(h.groups);
    return rc ? kix_err_set(err, rc, "the home page: %s", kix_strerror(rc)) : KIX_OK;
}

void kix_home_view_release(struct kix_home_view *v)
{
    free(v->rows);
    memset(v, 0, sizeof(*v));
}
