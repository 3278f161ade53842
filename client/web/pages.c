/* Run and home pages (kix/pages.h; the group's: group_page.c): the views
 * of kix/view.h, as their JSON documents or through the templates in
 * templates/. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/template.h"
#include "pages_internal.h"

/* Compiled in from static/kix-verify.js, style.css and templates/
 * (CMakeLists.txt, kix_embed): NUL-terminated, _len without the NUL. */
extern const unsigned char kix__verify_js[], kix__style_css[], kix__run_html[], kix__home_html[];
extern const size_t kix__verify_js_len, kix__style_css_len, kix__run_html_len, kix__home_html_len;

void kix_page_script(struct kix_bytes *out)
{
    out->ptr = kix__verify_js;
    out->len = kix__verify_js_len;
}

void kix_page_style(struct kix_bytes *out)
{
    out->ptr = kix__style_css;
    out->len = kix__style_css_len;
}

int kix__page_render(const unsigned char *tpl, size_t len, const struct kix_tpl *t,
                     struct kix_buf *out, struct kix_err *err)
{
    return kix_tpl_render((const char *)tpl, len, t, out, err);
}

/* ---- run ------------------------------------------------------------------------------- */

int kix_page_run_json(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_run_view v;
    int rc;

    kix_resolution_init(&res);
    rc = kix_run_view_from_store(r, run_id, len, &res, &v, err);
    if (rc == KIX_OK)
        rc = kix_run_view_json(&v, 0, out, err);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return rc;
}

static int figure(struct kix_tpl *t, const char *name, int have, uint64_t v, int bytes)
{
    char h[KIX_HUMAN_MAX] = "";

    if (have)
        kix_human((int64_t)v, bytes, h, sizeof(h));
    return kix_tpl_set(t, name, h);
}

static int run_reruns(struct kix_tpl *t, const struct kix_run_view *v)
{
    int rc = kix_tpl_section(t, "rerunRows");

    for (size_t i = 0; rc == KIX_OK && i < v->nreruns; i++) {
        const struct kix_rerun_view *x = &v->reruns[i];
        const struct kix_figures *f = &x->figures;
        struct kix_tpl *row = kix_tpl_row(t, "rerunRows");
        char signer[65];
        kix_hex_encode(x->signer, 32, signer);
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "index", "%llu", (unsigned long long)x->index)) ||
            (rc = kix_tpl_setn(row, "observedDay", x->observed, strnlen(x->observed, 10))) ||
            (rc = kix_tpl_set(row, "outcome", kix_evidence_name(x->outcome))) ||
            (rc = kix_tpl_set(row, "status", x->status)) ||
            (rc = figure(row, "median", f->have, f->median, f->bytes)) ||
            (rc = figure(row, "p20", f->have && f->have_p20, f->p20, f->bytes)) ||
            (rc = figure(row, "p80", f->have && f->have_p80, f->p80, f->bytes)) ||
            (rc = kix_tpl_set(row, "digest", x->manifest_digest)) ||
            (rc = kix_tpl_setf(row, "rerunBy", "key %.16s%s", signer,
                               x->self ? " (the publisher itself)" : "")))
            return rc;
    }
    if (rc == KIX_OK && v->res->run.reruns > v->nreruns)
        return kix_tpl_setf(t, "moreReruns", "%llu",
                            (unsigned long long)(v->res->run.reruns - v->nreruns));
    return rc ? rc : kix_tpl_set(t, "moreReruns", "");
}

/* Each referenced object but the run's own manifest: its spec's fields. */
static int run_objects(struct kix_tpl *t, const struct kix_run_view *v)
{
    int rc = kix_tpl_section(t, "objects");

    for (size_t i = 0; rc == KIX_OK && i < v->nobjects; i++) {
        const struct kix_view_object *o = &v->objects[i];
        struct kix_tpl *row;
        const char *k;
        json_t *x;
        if (!o->json || strcmp(o->kind, "BenchmarkRun") == 0)
            continue;
        if (!(row = kix_tpl_row(t, "objects")))
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(row, "title", *o->kind ? o->kind : "object")) ||
            (rc = kix_tpl_set(row, "digest", o->digest)) || (rc = kix_tpl_section(row, "fields")))
            return rc;
        json_object_foreach(json_object_get(o->json, "spec"), k, x)
        {
            struct kix_tpl *f = kix_tpl_row(row, "fields");
            char *s = json_is_string(x) ? NULL : json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY);
            rc = !f ? KIX_ENOMEM : kix_tpl_set(f, "key", k);
            if (rc == KIX_OK)
                rc = kix_tpl_set(f, "value", s ? s : json_string_value(x));
            free(s);
            if (rc)
                return rc;
        }
    }
    return rc;
}

static int run_entries(struct kix_tpl *t, const struct kix_run_view *v)
{
    const struct kix_resolution *res = v->res;
    int rc = kix_tpl_section(t, "entries");

    for (size_t i = 0; rc == KIX_OK && i < res->nentries; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "entries");
        char tile[KIX_TLOG_PATH_MAX + 1], bundle[KIX_TLOG_PATH_MAX + 1];
        kix_view_entry_paths(res->entries[i].index, res->size, tile, bundle);
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "index", "%llu", (unsigned long long)res->entries[i].index)) ||
            (rc = kix_tpl_set(row, "type", kix_entry_type_name(res->entries[i].type))) ||
            (rc = kix_tpl_set(row, "tile", tile)) || (rc = kix_tpl_set(row, "bundle", bundle)))
            return rc;
    }
    return rc;
}

static int run_slots(struct kix_tpl *t, const struct kix_run_view *v, const struct kix_buf *doc)
{
    const struct kix_resolution *res = v->res;
    const struct kix_figures *f = &v->primary;
    const char *kernel = json_string_value(
                   json_object_get(json_object_get(v->manifest, "spec"), "kernel")),
               *status = json_string_value(
                   json_object_get(json_object_get(v->manifest, "spec"), "status"));
    int rc;

    if ((rc = kix_tpl_set(t, "runId", res->run.run_id)) ||
        (rc = kix_tpl_set(t, "origin", v->origin)) ||
        (rc = kix_tpl_set(t, "kernel", kernel ? kernel : "")) ||
        (rc = kix_tpl_set(t, "status", status && *status ? status : "unknown")) ||
        (rc = kix_tpl_set(t, "evidence", kix_evidence_name(res->run.evidence))) ||
        (rc = kix_tpl_setf(t, "reruns", "%llu", (unsigned long long)res->run.reruns)) ||
        (rc = kix_tpl_setf(t, "attestations", "%llu", (unsigned long long)res->run.attestations)) ||
        (rc = figure(t, "median", f->have, f->median, f->bytes)) ||
        (rc = kix_tpl_set(t, "metric", f->bytes ? "peak memory" : "latency")) ||
        (rc = figure(t, "p20", f->have && f->have_p20, f->p20, f->bytes)) ||
        (rc = figure(t, "p80", f->have && f->have_p80, f->p80, f->bytes)) ||
        (rc = v->ranked ? kix_tpl_setf(t, "rank", "%llu", (unsigned long long)res->rank.rank)
                        : kix_tpl_set(t, "rank", "")) ||
        (rc = kix_tpl_setf(t, "groupSize", "%llu", (unsigned long long)res->rank.group_size)) ||
        (rc = kix_tpl_set(t, "group", v->group)) || (rc = kix_tpl_set(t, "best", res->rank.best)) ||
        (rc = kix_tpl_set(t, "supersededBy", res->successor)) ||
        (rc = kix_tpl_set(t, "supersedes", res->predecessor)) ||
        (rc = kix_tpl_setn(t, "observedDay", v->observed, strnlen(v->observed, 10))) ||
        (rc = kix_tpl_setf(t, "treeSize", "%llu", (unsigned long long)res->size)) ||
        (rc = kix_tpl_setn(t, "permalink", (const char *)v->permalink.ptr, v->permalink.len)) ||
        (rc = kix_tpl_set(t, "manifestDigest", v->manifest_digest)) ||
        (rc = kix_tpl_setn(t, "manifestCanonical", (const char *)res->manifest.ptr,
                           res->manifest.len)) ||
        (rc = kix_tpl_setn(t, "checkpoint", (const char *)res->checkpoint.ptr,
                           res->checkpoint.len)) ||
        (rc = kix_tpl_setn(t, "logKey", (const char *)v->log_key.ptr, v->log_key.len)) ||
        (rc = kix_tpl_setn(t, "view", (const char *)doc->ptr, doc->len)))
        return rc;
    if ((rc = run_reruns(t, v)) || (rc = run_objects(t, v)))
        return rc;
    return run_entries(t, v);
}

int kix_page_run_html(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_run_view v;
    struct kix_buf doc = KIX_BUF_INIT;
    struct kix_tpl *t = NULL;
    int rc;

    kix_resolution_init(&res);
    rc = kix_run_view_from_store(r, run_id, len, &res, &v, err);
    if (rc == KIX_OK)
        rc = kix_run_view_json(&v, KIX_VIEW_JSON_HTML, &doc, err);
    if (rc == KIX_OK && (!(t = kix_tpl_new()) || (rc = run_slots(t, &v, &doc)) != KIX_OK))
        rc = kix_err_set(err, rc ? rc : KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = kix__page_render(kix__run_html, kix__run_html_len, t, out, err);
    kix_tpl_free(t);
    kix_buf_release(&doc);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return rc;
}

/* ---- home ------------------------------------------------------------------------------ */

static int home_slots(struct kix_tpl *t, const struct kix_home_view *v)
{
    int rc;

    if ((rc = kix_tpl_set(t, "origin", v->origin)) ||
        (rc = kix_tpl_setf(t, "treeSize", "%llu", (unsigned long long)v->tree_size)) ||
        (rc = kix_tpl_setf(t, "groups", "%llu", (unsigned long long)v->nrows)) ||
        (rc = kix_tpl_setf(t, "rankedRuns", "%llu", (unsigned long long)v->ranked_runs)) ||
        (rc = kix_tpl_section(t, "rows")))
        return rc;
    for (size_t i = 0; i < v->nrows; i++) {
        const struct kix_home_row *x = &v->rows[i];
        struct kix_tpl *row = kix_tpl_row(t, "rows");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(row, "kernel", x->kernel)) ||
            (rc = kix_tpl_set(row, "gpu", x->gpu)) ||
            (rc = kix_tpl_set(row, "provider", x->provider)) ||
            (rc = kix_tpl_set(row, "group", x->group)) ||
            (rc = kix_tpl_setf(row, "groupSize", "%llu", (unsigned long long)x->group_size)) ||
            (rc = kix_tpl_set(row, "best", x->best)))
            return rc;
    }
    return KIX_OK;
}

/* The last home page rendered, by the log state it shows (the checkpoint
 * note, which names the tree's root, and the reader's size): the home page
 * reads every ranked group, and kixd renders it for every visitor. */
static pthread_mutex_t home_mu = PTHREAD_MUTEX_INITIALIZER;
static struct kix_buf home_key = KIX_BUF_INIT, home_page = KIX_BUF_INIT;

static int home_state(struct kix_log_reader *r, struct kix_buf *key)
{
    struct kix_bytes cp = {NULL, 0};

    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) != KIX_OK)
        cp.len = 0;
    return kix_buf_addf(key, "%llu\n%.*s", (unsigned long long)kix_log_reader_size(r), (int)cp.len,
                        cp.len ? (const char *)cp.ptr : "");
}

static int home_cached(const struct kix_buf *key, struct kix_buf *out, int *hit)
{
    int rc = KIX_OK;

    pthread_mutex_lock(&home_mu);
    *hit =
        home_key.len == key->len && home_key.len && memcmp(home_key.ptr, key->ptr, key->len) == 0;
    if (*hit)
        rc = kix_buf_add(out, home_page.ptr, home_page.len);
    pthread_mutex_unlock(&home_mu);
    return rc;
}

static void home_remember(const struct kix_buf *key, const uint8_t *page, size_t len)
{
    pthread_mutex_lock(&home_mu);
    kix_buf_reset(&home_key);
    kix_buf_reset(&home_page);
    if (kix_buf_add(&home_key, key->ptr, key->len) != KIX_OK ||
        kix_buf_add(&home_page, page, len) != KIX_OK)
        kix_buf_reset(&home_key); /* nothing remembered */
    pthread_mutex_unlock(&home_mu);
}

int kix_page_home_html(struct kix_log_reader *r, struct kix_buf *out, struct kix_err *err)
{
    struct kix_home_view v;
    struct kix_buf key = KIX_BUF_INIT;
    struct kix_tpl *t = NULL;
    size_t start = out->len;
    int rc, hit = 0;

    memset(&v, 0, sizeof(v));
    if ((rc = home_state(r, &key)) || (rc = home_cached(&key, out, &hit))) {
        kix_err_set(err, rc, "out of memory");
        goto out;
    }
    if (hit)
        goto out;
    rc = kix_home_view_from_store(r, &v, err);
    if (rc == KIX_OK && (!(t = kix_tpl_new()) || (rc = home_slots(t, &v)) != KIX_OK))
        rc = kix_err_set(err, rc ? rc : KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = kix__page_render(kix__home_html, kix__home_html_len, t, out, err);
    if (rc == KIX_OK)
        home_remember(&key, out->ptr + start, out->len - start);
out:
    kix_tpl_free(t);
    kix_home_view_release(&v);
    kix_buf_release(&key);
    return rc;
}
