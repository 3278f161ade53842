/* The group and home views (kix/view.h), from a store read as a source. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kix/json.h"
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

/* A run's row in words (kernel, pass, GPU, provider), as kix query shows it. */
static void describe_run(struct kix_source *src, struct kix_query_row *row)
{
    static const struct kix_digest none;
    struct kix_run_info run;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_buf m = KIX_BUF_INIT, bufs[KIX_QUERY_NREFS];
    struct kix_bytes objs[KIX_QUERY_NREFS];
    char gpu_full[160];

    if (kix__src_manifest(src, row->run_id, &run, &m) != KIX_OK) {
        kix_buf_release(&m);
        return;
    }
    kix_query_row_refs(m.ptr, m.len, refs);
    for (int i = 0; i < KIX_QUERY_NREFS; i++) {
        kix_buf_init(&bufs[i]);
        objs[i] = (struct kix_bytes){NULL, 0};
        if (memcmp(&refs[i], &none, sizeof(none)) != 0 &&
            kix__src_object(src, &refs[i], &bufs[i], NULL) == KIX_OK)
            objs[i] = (struct kix_bytes){bufs[i].ptr, bufs[i].len};
    }
    kix_query_row_describe(m.ptr, m.len, objs, row, gpu_full, sizeof(gpu_full));
    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        kix_buf_release(&bufs[i]);
    kix_buf_release(&m);
}

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
    json_t *doc = bytes ? kix_json_tree_memo(bytes, len) : NULL;
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

static char *text_of(const struct kix_buf *b)
{
    char *t = malloc(b->len + 1);

    if (t) {
        memcpy(t, b->ptr, b->len);
        t[b->len] = '\0';
    }
    return t;
}

static char *hex_of(const struct kix_buf *b)
{
    char *h = malloc(2 * b->len + 1);

    if (h)
        kix_hex_encode(b->ptr, b->len, h);
    return h;
}

/* The run's index record and its proof, for a view with an index. */
static int prove_run(struct kix_source *src, struct kix_group_row *row)
{
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];
    int present = 0, rc;

    kix_vindex_key_run(row->run_id, strlen(row->run_id), key);
    rc = kix__src_prove(src, key, &record, &proof, &present, NULL);
    if (rc == KIX_OK && present &&
        (!(row->run_record = hex_of(&record)) || !(row->run_proof = hex_of(&proof))))
        rc = KIX_ENOMEM;
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return rc;
}

/* What a row shows besides its rank and value, from its run's manifest
 * and objects: provider, spread, evidence, date; and what proves them
 * (the run's record with its proof when `indexed`, the canonical
 * manifest and the implementation object). */
static int describe_row_in(struct kix_source *src, struct kix_group_row *row, int indexed,
                           struct kix_buf *b)
{
    static const struct kix_digest none;
    struct kix_query_row q;
    struct kix_run_info info;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_figures f;
    json_t *doc, *obs;
    int rc = indexed ? prove_run(src, row) : KIX_OK;

    memset(&q, 0, sizeof(q));
    snprintf(q.run_id, sizeof(q.run_id), "%s", row->run_id);
    describe_run(src, &q);
    snprintf(row->provider, sizeof(row->provider), "%s", q.provider);
    snprintf(row->source, sizeof(row->source), "%s", q.source);
    if (rc != KIX_OK || kix__src_manifest(src, row->run_id, &info, b) != KIX_OK)
        return rc;
    if (!(row->manifest = text_of(b)))
        return KIX_ENOMEM;
    kix_query_row_refs(b->ptr, b->len, refs);
    if (memcmp(&refs[KIX_QUERY_IMPLEMENTATION], &none, sizeof(none)) != 0) {
        struct kix_buf impl = KIX_BUF_INIT;
        if (kix__src_object(src, &refs[KIX_QUERY_IMPLEMENTATION], &impl, NULL) == KIX_OK &&
            !(row->implementation = text_of(&impl)))
            rc = KIX_ENOMEM;
        kix_buf_release(&impl);
        if (rc)
            return rc;
    }
    if (row->implementation) {
        json_t *o =
            kix_json_tree_memo((const uint8_t *)row->implementation, strlen(row->implementation));
        const char *name = json_string_value(json_object_get(json_object_get(o, "spec"), "name"));
        snprintf(row->implementation_name, sizeof(row->implementation_name), "%s",
                 name ? name : "");
        kix__utf8_trim(row->implementation_name);
        json_decref(o);
    }
    row->evidence = info.evidence;
    doc = kix_json_tree_memo(b->ptr, b->len);
    kix_figures_of(doc, &f);
    row->have_p20 = f.have_p20;
    row->have_p80 = f.have_p80;
    row->p20 = f.p20;
    row->p80 = f.p80;
    obs = json_object_get(json_object_get(doc, "spec"), "observedAt");
    if (json_is_string(obs))
        snprintf(row->observed, sizeof(row->observed), "%.10s", json_string_value(obs));
    json_decref(doc);
    return KIX_OK;
}

static int describe_row(struct kix_source *src, struct kix_group_row *row, int indexed)
{
    struct kix_buf b = KIX_BUF_INIT;
    int rc = describe_row_in(src, row, indexed, &b);

    kix_buf_release(&b);
    return rc;
}

/* The group's workload for its page's title, in the home and kernel
 * pages' words (workload.c: "name = value" joined by " · "), then its
 * dtype; kix query's table keeps the compact kix_view_workload_words. */
static void group_workload_words(const uint8_t *bytes, size_t len, char *out, size_t cap)
{
    json_t *doc = bytes ? kix_json_tree_memo(bytes, len) : NULL;
    struct kix__workload_words w;

    kix__workload_words(doc, &w);
    /* cut to cap: kix__utf8_trim drops a character snprintf split */
    if ((size_t)snprintf(out, cap, "%s%s%s", w.summary,
                         w.dtype[0] && w.summary[0] ? " \xc2\xb7 " : "", w.dtype) >= cap)
        kix__utf8_trim(out);
    json_decref(doc);
}

/* The group in words, from its best run (any run of it says the same). */
static void group_words(struct kix_source *src, struct kix_group_view *v, const char *best)
{
    static const struct kix_digest none;
    struct kix_query_row q;
    struct kix_run_info info;
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_buf m = KIX_BUF_INIT, w = KIX_BUF_INIT, e = KIX_BUF_INIT;
    int have_w = 0;

    memset(&q, 0, sizeof(q));
    snprintf(q.run_id, sizeof(q.run_id), "%s", best);
    describe_run(src, &q);
    snprintf(v->kernel, sizeof(v->kernel), "%s", q.kernel);
    snprintf(v->mode, sizeof(v->mode), "%s", q.mode);
    snprintf(v->gpu, sizeof(v->gpu), "%s", q.gpu);
    snprintf(v->source, sizeof(v->source), "%s", q.source);
    snprintf(v->statistic, sizeof(v->statistic), "%s", q.statistic[0] ? q.statistic : "median");
    if (kix__src_manifest(src, best, &info, &m) != KIX_OK)
        goto out;
    kix_query_row_refs(m.ptr, m.len, refs);
    have_w = memcmp(&refs[KIX_QUERY_WORKLOAD], &none, sizeof(none)) != 0 &&
             kix__src_object(src, &refs[KIX_QUERY_WORKLOAD], &w, NULL) == KIX_OK;
    if (have_w) {
        group_workload_words(w.ptr, w.len, v->workload, sizeof(v->workload));
        /* for the page's verifier, which writes the group's words from them
         * (without them, or short of memory, its title stays unproven) */
        v->workload_canonical = text_of(&w);
    } else {
        group_workload_words(NULL, 0, v->workload, sizeof(v->workload));
    }
    if (memcmp(&refs[KIX_QUERY_ENVIRONMENT], &none, sizeof(none)) != 0 &&
        kix__src_object(src, &refs[KIX_QUERY_ENVIRONMENT], &e, NULL) == KIX_OK)
        v->environment_canonical = text_of(&e);
out:
    kix_buf_release(&m);
    kix_buf_release(&w);
    kix_buf_release(&e);
}

struct group_best {
    char run_id[KIX_RUN_ID_MAX + 1];
    uint64_t value;
};

static int best_of(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct group_best *b = ctx;
    (void)rank;
    snprintf(b->run_id, sizeof(b->run_id), "%s", run_id);
    b->value = value;
    return 0;
}

/* The members' unit: the best run's primary statistic. */
static void group_unit(struct kix_source *src, struct kix_group_view *v)
{
    struct kix_run_info info;
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_figures f;
    json_t *doc;

    if (v->nrows && kix__src_manifest(src, v->rows[0].run_id, &info, &b) == KIX_OK) {
        doc = kix_json_tree_memo(b.ptr, b.len);
        kix_figures_of(doc, &f);
        v->bytes = f.bytes;
        json_decref(doc);
    }
    kix_buf_release(&b);
}

/* The pages of the group's directory that hold the view's rows, each
 * with its record and proof. */
struct page_pick {
    struct kix_source *src;
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
    k->rc = kix__src_prove(k->src, pg->key, &record, &proof, &present, NULL);
    if (k->rc == KIX_OK && present) {
        v->npages++;
        if (!(pg->record = hex_of(&record)) || !(pg->proof = hex_of(&proof)))
            k->rc = KIX_ENOMEM;
    }
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return k->rc != KIX_OK;
}

static int add_withdrawn(void *ctx, const char *run_id, uint64_t index, int reason)
{
    struct kix_group_view *v = ctx;
    struct kix_group_withdrawn *w = realloc(v->withdrawn, (v->nwithdrawn + 1) * sizeof(*w));

    if (!w)
        return 1;
    v->withdrawn = w;
    w += v->nwithdrawn++;
    snprintf(w->run_id, sizeof(w->run_id), "%s", run_id);
    w->index = index;
    w->reason = kix_withdraw_reason_name(reason);
    return 0;
}

/* The group's withdrawn runs, proven (withdrawn/<hex>): none when the
 * index holds no such record, and then the proof is of its absence. */
static int group_withdrawn(struct kix_source *src, struct kix_group_view *v)
{
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    int present = 0, rc;

    kix_vindex_key_withdrawn(&v->key, v->withdrawn_key);
    rc = kix__src_prove(src, v->withdrawn_key, &record, &proof, &present, NULL);
    if (rc == KIX_OK && present &&
        (kix_vindex_withdrawn_decode(record.ptr, record.len, &v->key, add_withdrawn, v, NULL,
                                     NULL) != KIX_OK ||
         !(v->withdrawn_record = hex_of(&record))))
        rc = KIX_ENOMEM;
    if (rc == KIX_OK && !(v->withdrawn_proof = hex_of(&proof)))
        rc = KIX_ENOMEM;
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return rc == KIX_ENOTFOUND ? KIX_OK : rc;
}

/* The signed index's proof of the group's directory and of the pages that
 * hold the rows, when the store has one. */
static int group_proof(struct kix_source *src, struct kix_group_view *v, const struct kix_buf *note)
{
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_vindex_dir dir;
    struct page_pick pick = {src, v, KIX_OK};
    int present = 0, rc = KIX_OK;

    kix_vindex_key_group(&v->key, v->group_key);
    if (note->len == 0 ||
        kix__src_prove(src, v->group_key, &record, &proof, &present, NULL) != KIX_OK || !present)
        goto out; /* no signed index here: the document has no "index" */
    rc = kix_buf_add(&v->index_note, note->ptr, note->len);
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

int kix_group_view_from_source(struct kix_source *src, const char *key, size_t len, uint64_t offset,
                               struct kix_group_view *v, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_err why = {0}; /* an op the source does not offer, by name */
    int rc;

    memset(v, 0, sizeof(*v));
    kix_buf_init(&v->checkpoint);
    kix_buf_init(&v->log_key);
    kix_buf_init(&v->index_note);
    if (kix_digest_parse(key, len, &v->key, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "not a group key");
    kix_digest_format(&v->key, v->group);
    v->offset = offset;
    rc = kix__src_group(src, &v->key, offset, KIX_VIEW_GROUP_MAX, add_row, v, &v->size, &why);
    if (rc == KIX_OK)
        rc = kix__src_state(src, &v->tree_size, &v->checkpoint, &note, NULL);
    if (rc == KIX_OK && v->checkpoint.len) {
        const uint8_t *nl = memchr(v->checkpoint.ptr, '\n', v->checkpoint.len);
        kix__view_origin(v->checkpoint.ptr, v->checkpoint.len, v->origin, sizeof(v->origin));
        /* the size the checkpoint (and the index note, and so the proof) is at */
        if (nl)
            v->tree_size = strtoull((const char *)nl + 1, NULL, 10);
    }
    /* a group whose every run is withdrawn ranks none but is still a
     * group: its page lists the withdrawals, proven (a 404 would hide
     * them behind "no such group"); one that ranks none and lists none is
     * no group, answered before the directory's proofs are made */
    if (rc == KIX_OK && v->size == 0) {
        rc = group_withdrawn(src, v);
        if (rc == KIX_OK && v->nwithdrawn == 0) {
            kix_buf_release(&note);
            return kix_err_set(err, KIX_ENOTFOUND, "no such group");
        }
    }
    if (rc == KIX_OK)
        rc = kix__src_log_key(src, &v->log_key, NULL);
    if (rc == KIX_OK)
        rc = group_proof(src, v, &note);
    kix_buf_release(&note);
    if (rc == KIX_OK && v->group_record && v->size > 0) /* size 0: read above */
        rc = group_withdrawn(src, v);
    group_unit(src, v);
    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++)
        rc = describe_row(src, &v->rows[i], v->group_record != NULL);
    if (rc == KIX_OK) {
        struct group_best best = {"", 0};
        rc = kix__src_group(src, &v->key, 0, 1, best_of, &best, NULL, NULL);
        v->best_value = best.value;
        /* every run withdrawn: the title's words from a withdrawn one (a
         * group's runs share its workload and environment) */
        if (rc == KIX_OK && (best.run_id[0] || v->nwithdrawn))
            group_words(src, v, best.run_id[0] ? best.run_id : v->withdrawn[0].run_id);
    }
    return rc ? kix_err_set(err, rc, "the group %s: %s", v->group,
                            why.msg[0] ? why.msg : kix_strerror(rc))
              : KIX_OK;
}

void kix_group_view_release(struct kix_group_view *v)
{
    kix_buf_release(&v->checkpoint);
    kix_buf_release(&v->log_key);
    kix_buf_release(&v->index_note);
    free(v->group_record);
    free(v->group_proof);
    free(v->workload_canonical);
    free(v->environment_canonical);
    for (size_t i = 0; i < v->npages; i++) {
        free(v->pages[i].record);
        free(v->pages[i].proof);
    }
    for (size_t i = 0; i < v->nrows; i++) {
        free(v->rows[i].run_record);
        free(v->rows[i].run_proof);
        free(v->rows[i].manifest);
        free(v->rows[i].implementation);
    }
    free(v->pages);
    free(v->rows);
    free(v->withdrawn);
    free(v->withdrawn_record);
    free(v->withdrawn_proof);
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
    int bad = !o || !rows;
    /* a static copy's view (PROTOCOL.md §3, layout 4): its rows name
     * their runs and what the table shows; each run's manifest and
     * Implementation object are the copy's objects/ files (as are the
     * group's Workload and ExecutionEnvironment objects), and the index
     * proofs are computed from its index/ files at treeSize, by the
     * readers, who believe neither */
    int lean = (flags & KIX_VIEW_JSON_EXPORT) != 0;

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
    bad |= set(o, "source", json_string(v->source));
    bad |= set(o, "statistic", json_string(v->statistic));
    bad |= set(o, "limit", json_integer((json_int_t)KIX_VIEW_GROUP_MAX));
    /* what proves `title` (PROTOCOL.md, the kix.group/1 document) */
    if (v->workload_canonical && !lean)
        bad |= set(o, "workloadCanonical", json_string(v->workload_canonical));
    if (v->environment_canonical && !lean)
        bad |= set(o, "environmentCanonical", json_string(v->environment_canonical));
    for (size_t i = 0; rows && i < v->nrows; i++) {
        const struct kix_group_row *w = &v->rows[i];
        json_t *x =
            json_pack("{s:I,s:s,s:I,s:s,s:s,s:s,s:s,s:s}", "rank", (json_int_t)w->rank, "runId",
                      w->run_id, "value", (json_int_t)w->value, "unit", v->bytes ? "bytes" : "ns",
                      "implementation", w->implementation_name, "provider", w->provider, "evidence",
                      kix_evidence_name(w->evidence), "observedAt", w->observed);
        if (x && w->have_p20)
            bad |= set(x, "p20", json_integer((json_int_t)w->p20));
        if (x && w->have_p80)
            bad |= set(x, "p80", json_integer((json_int_t)w->p80));
        /* what proves the row's cells (PROTOCOL.md, the kix.group/1 document) */
        if (x && w->manifest && !lean)
            bad |= set(x, "manifestCanonical", json_string(w->manifest));
        if (x && w->implementation && !lean)
            bad |= set(x, "implementationCanonical", json_string(w->implementation));
        if (x && w->run_record && !lean)
            bad |= set(x, "runRecord", json_string(w->run_record));
        if (x && w->run_proof && !lean)
            bad |= set(x, "runProof", json_string(w->run_proof));
        bad |= !x || json_array_append_new(rows, x) != 0;
    }
    bad |= set(o, "rows", rows);
    if (v->withdrawn_proof) {
        json_t *list = json_array();
        bad |= !list;
        for (size_t i = 0; list && i < v->nwithdrawn; i++)
            bad |= json_array_append_new(list,
                                         json_pack("{s:s,s:I,s:s}", "runId", v->withdrawn[i].run_id,
                                                   "entry", (json_int_t)v->withdrawn[i].index,
                                                   "reason", v->withdrawn[i].reason)) != 0;
        bad |= set(o, "withdrawn", list);
    }
    if (v->group_record && !lean) {
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
        if (v->withdrawn_proof) {
            /* the record, or its absence, proven */
            json_t *w =
                json_pack("{s:s,s:s}", "key", v->withdrawn_key, "proof", v->withdrawn_proof);
            if (w && v->withdrawn_record)
                bad |= set(w, "record", json_string(v->withdrawn_record));
            bad |= set(json_object_get(o, "index"), "withdrawn", w);
        }
    }
    return kix__view_dump(o, bad, flags, out, err);
}

/* ---- home ----------------------------------------------------------------------------- */

/* What the home page lists, per group: its best run described from that
 * run's manifest and objects alone (the rest of the group is counted by
 * the index, never read). A row of the previous view whose group has the
 * same best run is taken as it was (a manifest and the objects it names
 * never change), so a view after a commit reads only the changed groups'
 * objects. Environments and implementations, shared by many groups, are
 * read once each (struct words_cache). */
#define WORDS_SLOTS 4096u

struct words {
    struct kix_digest digest;
    int used;
    char a[64], b[64]; /* environment: product, host; implementation: provider, name */
};

struct home_walk {
    struct kix_source *src;
    struct kix_buf scratch; /* an object's bytes, while it is parsed */
    struct kix_home_row *rows;
    size_t n, cap;
    uint64_t ranked;
    const struct kix_home_row **prev; /* the previous view's rows by group key */
    size_t nprev;
    struct words *words; /* WORDS_SLOTS, a cache by digest: a miss is only a read */
};

struct best {
    uint64_t value;
    char run_id[KIX_RUN_ID_MAX + 1];
};

static int best_run(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct best *b = ctx;

    (void)rank;
    b->value = value;
    snprintf(b->run_id, sizeof(b->run_id), "%s", run_id);
    return KIX_OK;
}

static json_t *object_json(struct home_walk *h, json_t *spec, const char *field,
                           struct kix_digest *d)
{
    const char *text = json_string_value(json_object_get(spec, field));

    memset(d, 0, sizeof(*d));
    if (!text || kix_digest_parse(text, strlen(text), d, NULL) != KIX_OK ||
        kix__src_object(h->src, d, &h->scratch, NULL) != KIX_OK)
        return NULL;
    return kix_json_tree_memo(h->scratch.ptr, h->scratch.len);
}

static const char *spec_text(json_t *doc, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(doc, "spec"), key));
    return s ? s : "";
}

/* The words of the environment or implementation the manifest's `field`
 * names (kind 0: environment, its product; 1: implementation, its
 * provider and name), from the cache or read. */
static const struct words *words_of(struct home_walk *h, json_t *spec, const char *field, int kind)
{
    const char *text = json_string_value(json_object_get(spec, field));
    struct kix_digest d;
    struct words *w;
    json_t *doc;

    memset(&d, 0, sizeof(d));
    if (text && kix_digest_parse(text, strlen(text), &d, NULL) != KIX_OK)
        memset(&d, 0, sizeof(d));
    w = &h->words[((unsigned)d.b[0] << 8 | d.b[1]) % WORDS_SLOTS];
    if (w->used && memcmp(&w->digest, &d, sizeof(d)) == 0)
        return w;
    memset(w, 0, sizeof(*w));
    doc = object_json(h, spec, field, &d);
    w->used = 1;
    w->digest = d;
    if (kind == 0) {
        const char *product = json_string_value(
            json_object_get(json_object_get(json_object_get(doc, "spec"), "hardware"), "product"));
        const char *host = json_string_value(
            json_object_get(json_object_get(json_object_get(doc, "metadata"), "labels"), "host"));
        kix__text_copy(w->a, sizeof(w->a), product ? product : "");
        kix__text_copy(w->b, sizeof(w->b), host ? host : "");
    } else {
        kix__text_copy(w->a, sizeof(w->a), spec_text(doc, "provider"));
        kix__text_copy(w->b, sizeof(w->b), *spec_text(doc, "name") ? spec_text(doc, "name") : w->a);
    }
    json_decref(doc);
    return w;
}

/* Names row's kernel, GPU, provider, timed pass and metric as kix query
 * does (kix_query_row_describe, store/index/query.c: the workload's
 * kernel, the environment's product, the implementation's provider, the
 * pass of sourceNative.benchmark "<kernel>/<pass>", peak_memory when the
 * manifest has spec.memory; unit.browse holds the two to the same words),
 * and its implementation, dtype and workload from the same objects. */
static void describe(struct home_walk *h, struct kix_home_row *row)
{
    struct kix_run_info run;
    struct kix_digest d;
    struct kix__workload_words ww;
    struct kix_figures f;
    const struct words *w;
    const char *bench, *slash;
    json_t *doc, *spec, *work;

    if (kix__src_manifest(h->src, row->best, &run, &h->scratch) != KIX_OK ||
        !(doc = kix_json_tree_memo(h->scratch.ptr, h->scratch.len)))
        return;
    spec = json_object_get(doc, "spec");
    bench = json_string_value(json_object_get(json_object_get(spec, "sourceNative"), "benchmark"));
    if (bench && (slash = strchr(bench, '/')) != NULL)
        snprintf(row->mode, sizeof(row->mode), "%.*s", (int)strcspn(slash + 1, "/"), slash + 1);
    snprintf(row->metric, sizeof(row->metric), "%s",
             json_object_get(spec, "memory") ? "peak_memory" : "latency");
    kix_figures_of(doc, &f);
    row->bytes = f.bytes;
    kix__text_copy(
        row->source, sizeof(row->source),
        json_string_value(json_object_get(json_object_get(spec, "sourceNative"), "source")));
    snprintf(row->statistic, sizeof(row->statistic), "%s", f.statistic ? f.statistic : "median");
    w = words_of(h, spec, "environmentDigest", 0);
    memcpy(row->gpu, w->a, sizeof(row->gpu));
    memcpy(row->host, w->b, sizeof(row->host));
    w = words_of(h, spec, "implementationDigest", 1);
    memcpy(row->provider, w->a, sizeof(row->provider));
    memcpy(row->implementation, w->b, sizeof(row->implementation));
    work = object_json(h, spec, "workloadDigest", &d);
    kix__text_copy(row->kernel, sizeof(row->kernel), spec_text(work, "kernel"));
    kix__workload_words(work, &ww);
    snprintf(row->dtype, sizeof(row->dtype), "%s", ww.dtype);
    snprintf(row->workload, sizeof(row->workload), "%s", ww.summary);
    json_decref(work);
    json_decref(doc);
}

static int row_by_group(const void *key, const void *elem)
{
    return strcmp(key, (*(const struct kix_home_row *const *)elem)->group);
}

static int home_group(void *ctx, const struct kix_digest *key)
{
    struct home_walk *h = ctx;
    struct kix_home_row *row;
    const struct kix_home_row *const *was = NULL;
    struct best b = {0, ""};
    uint64_t size = 0;
    int rc;

    void *p = kix_array_grow(h->rows, &h->cap, h->n, 64, sizeof(*h->rows));
    if (!p)
        return KIX_ENOMEM;
    h->rows = p;
    rc = kix__src_group(h->src, key, 0, 1, best_run, &b, &size, NULL);
    if (rc || size == 0)
        return rc;
    row = &h->rows[h->n++];
    memset(row, 0, sizeof(*row));
    kix_digest_format(key, row->group);
    if (h->nprev)
        was = bsearch(row->group, h->prev, h->nprev, sizeof(*h->prev), row_by_group);
    if (was && strcmp((*was)->best, b.run_id) == 0 && (*was)->value == b.value) {
        *row = **was;
    } else {
        snprintf(row->best, sizeof(row->best), "%s", b.run_id);
        row->value = b.value;
        describe(h, row);
    }
    row->group_size = size;
    h->ranked += size;
    return KIX_OK;
}

static int by_group(const void *a, const void *b)
{
    return strcmp((*(const struct kix_home_row *const *)a)->group,
                  (*(const struct kix_home_row *const *)b)->group);
}

/* Case-insensitive, then exactly, so that equal names sit together. */
static int name_cmp(const char *a, const char *b)
{
    int d = strcasecmp(a, b);
    return d ? d : strcmp(a, b);
}

/* Text with its runs of digits compared as numbers ("tokens = 2048"
 * before "tokens = 16384"). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            size_t na, nb;
            int d;
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            for (na = 0; isdigit((unsigned char)a[na]); na++)
                ;
            for (nb = 0; isdigit((unsigned char)b[nb]); nb++)
                ;
            if (na != nb)
                return na < nb ? -1 : 1;
            if ((d = memcmp(a, b, na)))
                return d;
            a += na;
            b += nb;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* Kernel, GPU, timed pass, metric (the order of kix query), then dtype,
 * workload (numbers by value) and group key. */
static int home_order(const void *a, const void *b)
{
    const struct kix_home_row *x = a, *y = b;
    int d;

    if ((d = name_cmp(x->kernel, y->kernel)) || (d = name_cmp(x->gpu, y->gpu)) ||
        (d = name_cmp(x->mode, y->mode)) || (d = name_cmp(x->metric, y->metric)) ||
        (d = name_cmp(x->dtype, y->dtype)) || (d = natural_cmp(x->workload, y->workload)))
        return d;
    return strcmp(x->group, y->group);
}

static struct kix_home_count *count_add(struct kix_home_count **list, size_t *n, size_t *cap,
                                        const char *name, size_t row)
{
    struct kix_home_count *c;

    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        void *p = realloc(*list, ncap * sizeof(**list));
        if (!p)
            return NULL;
        *list = p;
        *cap = ncap;
    }
    c = &(*list)[(*n)++];
    memset(c, 0, sizeof(*c));
    kix__text_copy(c->name, sizeof(c->name), name);
    c->first_row = row;
    return c;
}

/* The kernels and, under each, its GPUs: runs of equal names in the
 * sorted rows. */
static int home_counts(struct kix_home_view *v)
{
    struct kix_home_count *k = NULL, *g = NULL;
    size_t kcap = 0, gcap = 0;

    for (size_t i = 0; i < v->nrows; i++) {
        const struct kix_home_row *row = &v->rows[i];
        if (!k || strcmp(k->name, row->kernel) != 0) {
            if (!(k = count_add(&v->kernels, &v->nkernels, &kcap, row->kernel, i)))
                return KIX_ENOMEM;
            k->first_gpu = v->ngpus;
            g = NULL;
        }
        if (!g || strcmp(g->name, row->gpu) != 0) {
            if (!(g = count_add(&v->gpus, &v->ngpus, &gcap, row->gpu, i)))
                return KIX_ENOMEM;
            k->ngpus++;
        }
        k->groups++;
        k->runs += row->group_size;
        g->groups++;
        g->runs += row->group_size;
    }
    return KIX_OK;
}

/* Whether the row of group `group` ("sha256:<hex>") may start a page:
 * its digest's last 8 hex digits, as a number, a multiple of EVERY. */
static int page_mark(const char *group)
{
    size_t n = strlen(group);
    uint32_t tail = 0;

    if (n < 8)
        return 0;
    for (const char *c = group + n - 8; *c; c++)
        tail = tail * 16u + (uint32_t)(*c >= 'a'   ? *c - 'a' + 10
                                       : *c >= 'A' ? *c - 'A' + 10
                                                   : *c - '0');
    return tail % KIX_HOME_PAGE_EVERY == 0;
}

int kix_home_view_cut(struct kix_home_view *v)
{
    size_t n = 0, last_mark = 0;
    int marked = 0; /* a row before this one is a mark, the last at last_mark */

    free(v->page_first);
    v->npages = 0;
    if (!(v->page_first = malloc((v->nrows + 1) * sizeof(*v->page_first))))
        return KIX_ENOMEM;
    v->page_first[n++] = 0;
    for (size_t i = 0; i < v->nrows; i++) {
        int mark = page_mark(v->rows[i].group);
        if (i > 0 && (i - v->page_first[n - 1] >= KIX_HOME_PAGE_MAX ||
                      (mark && (!marked || i - last_mark >= KIX_HOME_PAGE_GAP))))
            v->page_first[n++] = i;
        if (mark) {
            marked = 1;
            last_mark = i;
        }
    }
    v->npages = n;
    return KIX_OK;
}

int kix_home_view_update(struct kix_source *src, const struct kix_home_view *prev,
                         struct kix_home_view *v, struct kix_err *err)
{
    struct home_walk h;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_err why = {0}; /* an op the source does not offer, by name */
    int rc = KIX_OK;

    memset(v, 0, sizeof(*v));
    memset(&h, 0, sizeof(h));
    h.src = src;
    kix_buf_init(&h.scratch);
    kix_buf_init(&v->checkpoint);
    rc = kix__src_state(src, &v->tree_size, &v->checkpoint, &note, &why);
    kix_buf_release(&note);
    if (rc)
        goto out;
    kix__view_origin(v->checkpoint.ptr, v->checkpoint.len, v->origin, sizeof(v->origin));
    if (!(h.words = calloc(WORDS_SLOTS, sizeof(*h.words))) ||
        (prev && prev->nrows && !(h.prev = malloc(prev->nrows * sizeof(*h.prev))))) {
        rc = KIX_ENOMEM;
        goto out;
    }
    for (size_t i = 0; prev && i < prev->nrows; i++)
        h.prev[h.nprev++] = &prev->rows[i];
    if (h.nprev > 1)
        qsort(h.prev, h.nprev, sizeof(*h.prev), by_group);
    rc = kix__src_groups(src, home_group, &h, &why);
    if (rc == KIX_OK && h.n > 1)
        qsort(h.rows, h.n, sizeof(*h.rows), home_order);
    v->rows = h.rows;
    v->nrows = h.n;
    v->ranked_runs = h.ranked;
    h.rows = NULL;
    if (rc == KIX_OK)
        rc = home_counts(v);
    if (rc == KIX_OK)
        rc = kix_home_view_cut(v);
out:
    free(h.rows);
    free(h.prev);
    free(h.words);
    kix_buf_release(&h.scratch);
    if (rc)
        kix_home_view_release(v);
    return rc ? kix_err_set(err, rc, "the home page: %s", why.msg[0] ? why.msg : kix_strerror(rc))
              : KIX_OK;
}

int kix_home_view_from_source(struct kix_source *src, struct kix_home_view *v, struct kix_err *err)
{
    return kix_home_view_update(src, NULL, v, err);
}

void kix_home_view_release(struct kix_home_view *v)
{
    kix_buf_release(&v->checkpoint);
    free(v->rows);
    free(v->kernels);
    free(v->gpus);
    free(v->page_first);
    memset(v, 0, sizeof(*v));
}

size_t kix_home_view_pages(const struct kix_home_view *v)
{
    return v->npages ? v->npages : 1;
}

void kix_home_view_page_rows(const struct kix_home_view *v, size_t page, size_t *first,
                             size_t *last)
{
    *first = *last = 0;
    if (!v->npages || page < 1 || page > v->npages)
        return;
    *first = v->page_first[page - 1];
    *last = page < v->npages ? v->page_first[page] : v->nrows;
}

const char *kix_home_view_page_name(const struct kix_home_view *v, size_t page)
{
    const char *group;

    if (!v->nrows || page < 1 || page > v->npages)
        return "";
    group = v->rows[v->page_first[page - 1]].group;
    return strncmp(group, "sha256:", 7) == 0 ? group + 7 : group;
}

size_t kix_home_view_page_named(const struct kix_home_view *v, const char *name, size_t len)
{
    for (size_t p = 1; len && p <= v->npages; p++) {
        const char *mine = kix_home_view_page_name(v, p);
        if (strlen(mine) == len && memcmp(mine, name, len) == 0)
            return p;
    }
    return 0;
}

static json_t *count_json(const struct kix_home_count *c, const char *name_key)
{
    return json_pack("{s:s,s:I,s:I,s:I}", name_key, c->name, "groups", (json_int_t)c->groups,
                     "runs", (json_int_t)c->runs, "firstRow", (json_int_t)c->first_row);
}

json_t *kix_home_view_kernels_json(const struct kix_home_view *v)
{
    json_t *kernels = json_array();
    int bad = !kernels;

    for (size_t i = 0; !bad && i < v->nkernels; i++) {
        const struct kix_home_count *k = &v->kernels[i];
        json_t *x = count_json(k, "kernel"), *gpus = json_array();
        for (size_t g = 0; x && gpus && g < k->ngpus; g++)
            bad |= json_array_append_new(gpus, count_json(&v->gpus[k->first_gpu + g], "gpu"));
        bad |= kix__json_set(x, "gpus", gpus) || json_array_append_new(kernels, x);
    }
    if (bad)
        json_decref(kernels);
    return bad ? NULL : kernels;
}

int kix_home_view_json(const struct kix_home_view *v, size_t page, unsigned flags,
                       struct kix_buf *out, struct kix_err *err)
{
    json_t *o, *rows;
    size_t pages = kix_home_view_pages(v), first, last;
    int bad;

    if (page < 1 || page > pages)
        return kix_err_set(err, KIX_ENOTFOUND, "no home page %zu (of %zu)", page, pages);
    kix_home_view_page_rows(v, page, &first, &last);
    o = json_object();
    rows = json_array();
    bad = !o || !rows;
    /* kixd's alone: a static copy writes no home view, its rows are its
     * search shards' (PROTOCOL.md §3, "Home rows twice") */
    bad |= kix__json_set(o, "view", json_string(KIX_VIEW_HOME));
    bad |= kix__json_set(o, "origin", json_string(v->origin));
    bad |= kix__json_set(o, "treeSize", json_integer((json_int_t)v->tree_size));
    bad |= kix__json_set(o, "checkpoint",
                         json_stringn((const char *)v->checkpoint.ptr, v->checkpoint.len));
    bad |= kix__json_set(o, "rankedRuns", json_integer((json_int_t)v->ranked_runs));
    bad |= kix__json_set(o, "groups", json_integer((json_int_t)v->nrows));
    bad |= kix__json_set(o, "page", json_integer((json_int_t)page));
    bad |= kix__json_set(o, "pages", json_integer((json_int_t)pages));
    bad |= kix__json_set(o, "name", json_string(kix_home_view_page_name(v, page)));
    bad |= kix__json_set(o, "firstRow", json_integer((json_int_t)first));
    bad |= kix__json_set(o, "kernels", kix_home_view_kernels_json(v));
    for (size_t i = first; !bad && i < last; i++) {
        const struct kix_home_row *x = &v->rows[i];
        char human[KIX_HUMAN_MAX];
        kix_human((int64_t)x->value, x->bytes, human, sizeof(human));
        bad |=
            json_array_append_new(
                rows,
                json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:s,s:I,s:s,s:s}",
                          "kernel", x->kernel, "gpu", x->gpu, "pass", x->mode, "metric", x->metric,
                          "dtype", x->dtype, "workload", x->workload, "provider", x->provider,
                          "implementation", x->implementation, "group", x->group, "best", x->best,
                          "value", (json_int_t)x->value, "unit", x->bytes ? "bytes" : "ns",
                          "median", human, "runs", (json_int_t)x->group_size, "statistic",
                          x->statistic, "source", x->source)) != 0;
    }
    bad |= kix__json_set(o, "rows", rows);
    return kix__view_dump(o, bad, flags, out, err);
}
