/* The home pages, the search index and kix-search.js (kix/pages.h): the
 * home view (kix/view.h), built once per log state and shared. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/pages.h"
#include "web_internal.h"

/* Compiled in (CMakeLists.txt, kix_embed): NUL-terminated, _len without it. */
extern const unsigned char kix__search_js[], kix__home_html[];
extern const size_t kix__search_js_len, kix__home_html_len;

void kix_page_search_script(struct kix_bytes *out)
{
    out->ptr = kix__search_js;
    out->len = kix__search_js_len;
}

/* The memo's slots (memo_render): the search index, its list of pages,
 * each page's shard, each kernel's page (HTML and JSON), then each home
 * page (HTML and JSON): rendered once per log state when asked for, up to
 * KIX__MEMO_MAX bytes (slot_of). */
enum { MEMO_SEARCH_INDEX, MEMO_SEARCH_PAGES, MEMO_SHARDS };

/* ---- the shared home view --------------------------------------------------------------- */

static pthread_mutex_t home_mu = PTHREAD_MUTEX_INITIALIZER;
static struct kix__home_model *home_cached; /* holds one reference */

/* A log state: its size and its signed checkpoint, which names the
 * tree's root. */
static int home_state(struct kix_source *r, struct kix_buf *key)
{
    struct kix_buf cp = KIX_BUF_INIT;
    uint64_t size = 0;
    int rc = kix_view_log_state(r, &size, &cp, NULL);

    if (rc == KIX_OK)
        rc = kix_buf_addf(key, "%llu\n%.*s", (unsigned long long)size, (int)cp.len,
                          cp.len ? (const char *)cp.ptr : "");
    kix_buf_release(&cp);
    return rc;
}

const char *kix__facet_value(const struct kix_home_row *row, int f)
{
    switch (f) {
    case KIX__FACET_KERNEL:
        return row->kernel;
    case KIX__FACET_GPU:
        return row->gpu;
    case KIX__FACET_PROVIDER:
        return row->provider;
    case KIX__FACET_DTYPE:
        return row->dtype;
    default:
        return row->mode;
    }
}

static int str_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int facet_build(struct kix__facet *fc, const struct kix_home_view *v, int f)
{
    const char **all = malloc((v->nrows ? v->nrows : 1) * sizeof(*all));
    size_t n = 0;

    if (!all)
        return KIX_ENOMEM;
    for (size_t i = 0; i < v->nrows; i++)
        if (*kix__facet_value(&v->rows[i], f))
            all[n++] = kix__facet_value(&v->rows[i], f);
    if (n > 1)
        qsort(all, n, sizeof(*all), str_order);
    fc->names = all;
    if (!(fc->groups = calloc(n ? n : 1, sizeof(*fc->groups))))
        return KIX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (fc->n == 0 || strcmp(fc->names[fc->n - 1], all[i]) != 0)
            fc->names[fc->n++] = all[i];
        fc->groups[fc->n - 1]++;
    }
    return KIX_OK;
}

static void model_free(struct kix__home_model *m)
{
    for (size_t i = 0; i < m->nmemo; i++)
        kix_buf_release(&m->memo[i]);
    free(m->memo);
    pthread_mutex_destroy(&m->mu);
    kix_buf_release(&m->key);
    kix_home_view_release(&m->view);
    for (int f = 0; f < KIX__NFACETS; f++) {
        free(m->facets[f].names);
        free(m->facets[f].groups);
    }
    free(m);
}

void kix__home_put(struct kix__home_model *m)
{
    int last;

    if (!m)
        return;
    pthread_mutex_lock(&home_mu);
    last = --m->refs == 0;
    pthread_mutex_unlock(&home_mu);
    if (last)
        model_free(m);
}

/* The cached model when it was built for `key`, with a reference for the
 * caller; else NULL. */
static struct kix__home_model *cached_for(const struct kix_buf *key)
{
    struct kix__home_model *m = NULL;

    pthread_mutex_lock(&home_mu);
    if (home_cached && home_cached->key.len == key->len &&
        memcmp(home_cached->key.ptr, key->ptr, key->len) == 0) {
        home_cached->refs++;
        m = home_cached;
    }
    pthread_mutex_unlock(&home_mu);
    return m;
}

/* Keeps m (the cache's reference) unless the cache holds a newer log
 * state: a reader on an older snapshot does not push the cache back. */
static void remember(struct kix__home_model *m)
{
    struct kix__home_model *old;

    pthread_mutex_lock(&home_mu);
    old = home_cached;
    if (old && old->view.tree_size > m->view.tree_size) {
        old = m;
    } else {
        home_cached = m;
    }
    pthread_mutex_unlock(&home_mu);
    kix__home_put(old);
}

int kix__home_acquire(struct kix_source *r, struct kix__home_model **out, struct kix_err *err)
{
    /* one build at a time: the visitors that arrive while the home view of
     * a new log state is being read wait for it instead of each reading
     * every group again */
    static pthread_mutex_t build_mu = PTHREAD_MUTEX_INITIALIZER;
    struct kix__home_model *m = NULL, *prev;
    struct kix_buf key = KIX_BUF_INIT;
    int rc = home_state(r, &key);

    *out = NULL;
    if (rc || (*out = cached_for(&key)) != NULL)
        goto out;
    pthread_mutex_lock(&build_mu);
    if ((*out = cached_for(&key)) != NULL)
        goto unlock;
    if (!(m = calloc(1, sizeof(*m)))) {
        rc = KIX_ENOMEM;
        goto unlock;
    }
    m->refs = 2; /* the cache's and the caller's */
    pthread_mutex_init(&m->mu, NULL);
    m->key = key;
    kix_buf_init(&key);
    /* the cached view of an earlier state: its unchanged groups are kept */
    pthread_mutex_lock(&home_mu);
    if ((prev = home_cached) != NULL)
        prev->refs++;
    pthread_mutex_unlock(&home_mu);
    rc = kix_home_view_update(r, prev ? &prev->view : NULL, &m->view, err);
    kix__home_put(prev);
    if (rc != KIX_OK) {
        model_free(m);
        pthread_mutex_unlock(&build_mu);
        kix_buf_release(&key);
        return rc;
    }
    for (int f = 0; rc == KIX_OK && f < KIX__NFACETS; f++)
        rc = facet_build(&m->facets[f], &m->view, f);
    m->memo_pages_at = MEMO_SHARDS + kix_home_view_pages(&m->view);
    m->nmemo = m->memo_pages_at + 2 * m->view.nkernels + 2 * kix_home_view_pages(&m->view) + 2;
    if (rc == KIX_OK && !(m->memo = calloc(m->nmemo, sizeof(*m->memo))))
        rc = KIX_ENOMEM;
    if (rc) {
        model_free(m);
        goto unlock;
    }
    remember(m);
    *out = m;
unlock:
    pthread_mutex_unlock(&build_mu);
out:
    kix_buf_release(&key);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* ---- home pages ------------------------------------------------------------------------- */

/* Where page `page` is, from the site's root: "index.html" for the
 * first, "home/<name>.html" for the others, named by their first group
 * (kix_home_view_page_name: a new group moves no other page's name; the
 * names any static server types as pages; kixd answers them too). */
static void page_path(const struct kix_home_view *v, size_t page, char *out, size_t cap)
{
    if (page <= 1)
        snprintf(out, cap, "%s", "index.html");
    else
        snprintf(out, cap, "home/%s.html", kix_home_view_page_name(v, page));
}

/* A link to page `page` from a page whose root is `root` ("" or "../");
 * "" when `on` is 0. */
static int page_link(struct kix_tpl *t, const struct kix_home_view *v, const char *name,
                     const char *root, size_t page, int on)
{
    char path[96];

    if (!on)
        return kix_tpl_set(t, name, "");
    page_path(v, page, path, sizeof(path));
    return kix_tpl_setf(t, name, "%s%s", root, path);
}

/* fc's values as a select's options; none when `none` (a static copy's
 * page from 2 on: kix-search.js reads them from search/index.json). */
static int options(struct kix_tpl *t, const char *section, const struct kix__facet *fc, int none)
{
    int rc = kix_tpl_section(t, section);

    for (size_t i = 0; rc == KIX_OK && !none && i < fc->n; i++) {
        struct kix_tpl *row = kix_tpl_row(t, section);
        rc = row ? kix_tpl_set(row, "name", fc->names[i]) : KIX_ENOMEM;
    }
    return rc;
}

/* The kernels table; lean (a static copy's page 1), the kernels and
 * GPUs without their counts, which kix-search.js fills in from
 * search/index.json: the table changes only when a kernel or GPU comes. */
static int home_kernels(struct kix_tpl *t, const struct kix_home_view *v, int lean)
{
    int rc = kix_tpl_section(t, "kernels");

    for (size_t i = 0; rc == KIX_OK && i < v->nkernels; i++) {
        const struct kix_home_count *k = &v->kernels[i];
        struct kix_tpl *row = kix_tpl_row(t, "kernels");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(row, "kernel", k->name)) ||
            (rc = lean ? kix_tpl_set(row, "groups", "")
                       : kix_tpl_setf(row, "groups", "%llu", (unsigned long long)k->groups)) ||
            (rc = lean ? kix_tpl_set(row, "runs", "")
                       : kix_tpl_setf(row, "runs", "%llu", (unsigned long long)k->runs)) ||
            (rc = kix_tpl_section(row, "gpus")))
            return rc;
        for (size_t g = 0; rc == KIX_OK && g < k->ngpus; g++) {
            const struct kix_home_count *c = &v->gpus[k->first_gpu + g];
            struct kix_tpl *x = kix_tpl_row(row, "gpus");
            if (!x)
                return KIX_ENOMEM;
            if ((rc = kix_tpl_set(x, "gpu", c->name)) ||
                (rc = kix_tpl_setf(x, "gpuIndex", "%zu", g + 1)) ||
                (rc = kix_tpl_set(x, "counted", lean ? "" : "1")) ||
                (rc = kix_tpl_setf(x, "groups", "%llu", (unsigned long long)c->groups)))
                return rc;
            rc = kix_tpl_set(x, "more", g + 1 < k->ngpus ? "1" : "");
        }
    }
    return rc;
}

/* The best run's figure for people: "11.4 µs", or "13.4 µs (mean)" when the
 * group ranks by its mean (KernelBench's groups). */
static void primary_text(const struct kix_home_row *x, char *out, size_t cap)
{
    char human[KIX_HUMAN_MAX];
    kix_human((int64_t)x->value, x->bytes, human, sizeof(human));
    snprintf(out, cap, strcmp(x->statistic, "mean") == 0 ? "%s (mean)" : "%s", human);
}

/* One row of the groups table (the home page's and a kernel page's). */
int kix__group_row_slots(struct kix_tpl *row, const struct kix_home_row *x)
{
    char human[KIX_HUMAN_MAX + 8];
    int rc;

    primary_text(x, human, sizeof(human));
    if ((rc = kix_tpl_set(row, "kernel", x->kernel)) ||
        (rc = kix_tpl_set(row, "workload", *x->workload ? x->workload : "(no parameters)")) ||
        (rc = kix_tpl_set(row, "dtype", x->dtype)) || (rc = kix_tpl_set(row, "pass", x->mode)) ||
        (rc = kix_tpl_set(row, "gpu", x->gpu)) ||
        (rc = kix_tpl_set(row, "implementation", x->implementation)) ||
        (rc = kix_tpl_set(row, "provider", x->provider)) ||
        (rc = kix_tpl_set(row, "group", x->group)) || (rc = kix_tpl_set(row, "best", x->best)) ||
        (rc = kix__tpl_run_href(row, "bestHref", x->best)) ||
        (rc = kix_tpl_set(row, "median", human)) ||
        (rc = kix_tpl_set(row, "metric", x->bytes ? "peak memory" : "latency")) ||
        (rc = kix_tpl_set(row, "source", *x->source ? x->source : "not named")))
        return rc;
    return kix_tpl_setf(row, "runs", "%llu", (unsigned long long)x->group_size);
}

/* The page's "JSON" link: kixd's view of the page, or in a static copy
 * the search shard of its rows (PROTOCOL.md §3, "Home rows twice"): a copy
 * writes each row in its page and its shard, not in a third file. */
static int json_path(struct kix_tpl *t, const struct kix_home_view *v, size_t page, int exported)
{
    if (exported)
        return kix_tpl_setf(t, "jsonPath", "search/%s.json", kix_home_view_page_name(v, page));
    return page > 1 ? kix_tpl_setf(t, "jsonPath", "home/%s.json", kix_home_view_page_name(v, page))
                    : kix_tpl_set(t, "jsonPath", "index.json");
}

static int home_slots(struct kix_tpl *t, const struct kix__home_model *m, size_t page,
                      const struct kix_buf *doc, int exported)
{
    const struct kix_home_view *v = &m->view;
    size_t pages = kix_home_view_pages(v), first, last;
    const char *root = page > 1 ? "../" : "";
    /* a static copy's page, page 1 too, holds its rows and what places
     * them alone, so that it is the same file until they change: not the
     * log's size and counts (the number of groups, each kernel's and GPU's
     * counts: kix-search.js shows them from search/index.json), nor the
     * search's choices, which a new kernel, GPU, provider, dtype or pass
     * changes on every page */
    int rc, lean = exported;

    kix_home_view_page_rows(v, page, &first, &last);
    /* nor where the page is among the others ("page 2 of 41", rows
     * 101–200, the last page): a new group anywhere before it would move
     * them. It names its first group's kernel and GPU, and says how many
     * rows it holds; kix-search.js says which page of how many it is. */
    if ((rc = kix_tpl_set(t, "origin", v->origin)) || (rc = kix_tpl_set(t, "root", root)) ||
        (rc = kix_tpl_set(t, "pageName", kix_home_view_page_name(v, page))) ||
        (rc = kix_tpl_setf(t, "pageRows", "%zu", last - first)) ||
        (rc = kix_tpl_set(t, "pageRowsS", last - first == 1 ? "" : "s")) ||
        (rc = kix_tpl_setf(t, "firstLabel", "%s · %s", v->nrows ? v->rows[first].kernel : "",
                           v->nrows ? v->rows[first].gpu : "")) ||
        (rc = kix_tpl_set(t, "global", lean ? "" : "1")) ||
        (rc = kix_tpl_set(t, "countsFromIndex", lean ? "1" : "")) ||
        (rc = kix_tpl_set(t, "optionsFromIndex", lean ? "1" : "")) ||
        (rc = kix_tpl_setf(t, "treeSize", "%llu", (unsigned long long)v->tree_size)) ||
        (rc = kix_tpl_setf(t, "groups", "%zu", v->nrows)) ||
        (rc = kix_tpl_setf(t, "rankedRuns", "%llu", (unsigned long long)v->ranked_runs)) ||
        (rc = kix_tpl_setf(t, "kernelCount", "%zu", v->nkernels)) ||
        (rc = kix_tpl_set(t, "groupsS", v->nrows == 1 ? "" : "s")) ||
        (rc = kix_tpl_set(t, "rankedRunsS", v->ranked_runs == 1 ? "" : "s")) ||
        (rc = kix_tpl_set(t, "kernelCountS", v->nkernels == 1 ? "" : "s")) ||
        (rc = kix_tpl_set(t, "treeSizeIes", v->tree_size == 1 ? "y" : "ies")) ||
        (rc = kix_tpl_setf(t, "page", "%zu", page)) ||
        (rc = kix_tpl_setf(t, "pages", "%zu", pages)) ||
        (rc = kix_tpl_set(t, "notFirst", page > 1 ? "1" : "")) ||
        (rc = kix_tpl_setf(t, "firstShown", "%zu", v->nrows ? first + 1 : 0)) ||
        (rc = kix_tpl_setf(t, "lastShown", "%zu", last)) ||
        (rc = json_path(t, v, page, exported)) ||
        (rc = page_link(t, v, "first", root, 1, page > 1)) ||
        (rc = page_link(t, v, "prev", root, page - 1, page > 1)) ||
        (rc = page_link(t, v, "next", root, page + 1, page < pages)) ||
        (rc = page_link(t, v, "last", root, pages, !lean && page < pages)) ||
        (rc = kix_tpl_setn(t, "view", (const char *)doc->ptr, doc->len)) ||
        (rc = options(t, "kernelOptions", &m->facets[KIX__FACET_KERNEL], lean)) ||
        (rc = options(t, "gpuOptions", &m->facets[KIX__FACET_GPU], lean)) ||
        (rc = options(t, "providerOptions", &m->facets[KIX__FACET_PROVIDER], lean)) ||
        (rc = options(t, "dtypeOptions", &m->facets[KIX__FACET_DTYPE], lean)) ||
        (rc = options(t, "passOptions", &m->facets[KIX__FACET_PASS], lean)) ||
        (rc = page == 1 ? home_kernels(t, v, lean) : kix_tpl_section(t, "kernels")) ||
        (rc = kix_tpl_section(t, "rows")))
        return rc;
    for (size_t i = first; rc == KIX_OK && i < last; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "rows");
        rc = row ? kix__group_row_slots(row, &v->rows[i]) : KIX_ENOMEM;
    }
    return rc;
}

static int home_json_of(struct kix__home_model *m, size_t page, struct kix_buf *out,
                        struct kix_err *err)
{
    return kix_home_view_json(&m->view, page, 0, out, err);
}

static int home_html(struct kix__home_model *m, size_t page, int exported, struct kix_buf *out,
                     struct kix_err *err)
{
    struct kix_buf doc = KIX_BUF_INIT;
    struct kix_tpl *t = NULL;
    /* an exported page embeds no view: its rows' data is its search
     * shard's, and no script of the page reads a view */
    int rc = exported ? KIX_OK : kix_home_view_json(&m->view, page, KIX_VIEW_JSON_HTML, &doc, err);

    if (rc == KIX_OK &&
        (!(t = kix_tpl_new()) || (rc = home_slots(t, m, page, &doc, exported)) != KIX_OK))
        rc = kix_err_set(err, rc ? rc : KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = kix_tpl_render((const char *)kix__home_html, kix__home_html_len, t, out, err);
    kix_tpl_free(t);
    kix_buf_release(&doc);
    return rc;
}

static int home_html_of(struct kix__home_model *m, size_t page, struct kix_buf *out,
                        struct kix_err *err)
{
    return home_html(m, page, 0, out, err);
}

int kix__home_page_exported(struct kix__home_model *m, size_t page, struct kix_buf *html,
                            struct kix_err *err)
{
    return home_html(m, page, 1, html, err);
}

int kix_page_home_html(struct kix_source *r, struct kix_buf *out, struct kix_err *err)
{
    return kix_page_home_page_html(r, 1, out, err);
}

/* ---- the search index ------------------------------------------------------------------- */

static int set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

static int dump(json_t *o, int bad, struct kix_buf *out, struct kix_err *err)
{
    int rc = bad ? kix_err_set(err, KIX_ENOMEM, "out of memory")
                 : kix_doc_dumps(o, KIX_DOC_SORTED, out, err);

    json_decref(o);
    return rc;
}

static const char *const facet_keys[KIX__NFACETS] = {"kernels", "gpus", "providers", "dtypes",
                                                     "passes"};

/* The distinct values of facet f among rows [first, last). */
static json_t *shard_facet(const struct kix_home_view *v, size_t first, size_t last, int f)
{
    json_t *a = json_array();

    for (size_t i = first; a && i < last; i++) {
        const char *name = kix__facet_value(&v->rows[i], f);
        size_t k, n = json_array_size(a);
        for (k = 0; k < n && strcmp(json_string_value(json_array_get(a, k)), name) != 0; k++)
            ;
        if (k == n && json_array_append_new(a, json_string(name)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static int search_index_of(struct kix__home_model *m, size_t unused, struct kix_buf *out,
                           struct kix_err *err)
{
    const struct kix_home_view *v = &m->view;
    json_t *o, *facets;
    int bad;

    (void)unused;
    o = json_object();
    facets = json_object();
    bad = !o || !facets;
    bad |= set(o, "view", json_string(KIX_VIEW_SEARCH));
    bad |= set(o, "origin", json_string(v->origin));
    bad |= set(o, "treeSize", json_integer((json_int_t)v->tree_size));
    bad |= set(o, "groups", json_integer((json_int_t)v->nrows));
    /* the counts a static copy's home pages leave out (kix-search.js shows
     * them there): this small file is rewritten at every export anyway */
    bad |= set(o, "rankedRuns", json_integer((json_int_t)v->ranked_runs));
    bad |= set(o, "kernels", kix_home_view_kernels_json(v));
    /* where a static copy's home pages are among the others, which they
     * leave out (kix-search.js says it) */
    bad |= set(o, "pages", json_integer((json_int_t)kix_home_view_pages(v)));
    bad |= set(o, "lastPage", json_string(kix_home_view_page_name(v, kix_home_view_pages(v))));
    bad |= set(o, "columns",
               json_pack("[s,s,s,s,s,s,s,s,s,s,s,s,s,s,s]", "kernel", "gpu", "pass", "metric",
                         "dtype", "workload", "provider", "implementation", "median", "value",
                         "unit", "runs", "group", "best", "source"));
    for (int f = 0; !bad && f < KIX__NFACETS; f++) {
        const struct kix__facet *fc = &m->facets[f];
        json_t *a = json_array();
        for (size_t i = 0; a && !bad && i < fc->n; i++)
            bad |= json_array_append_new(
                       a, json_pack("[s,I]", fc->names[i], (json_int_t)fc->groups[i])) != 0;
        bad |= set(facets, facet_keys[f], a);
    }
    bad |= set(o, "facets", facets);
    return dump(o, bad, out, err);
}

/* search/pages.json: every page by name, in order, with the facet values
 * among its rows (a filter reads only the shards that hold its value). No
 * counts and no tree size: it is the same file until a page comes or goes
 * or a page gains a value, so an export mostly leaves it as it is (the
 * search index beside it, rewritten every time, stays small). */
static int search_pages_of(struct kix__home_model *m, size_t unused, struct kix_buf *out,
                           struct kix_err *err)
{
    const struct kix_home_view *v = &m->view;
    json_t *o = json_object(), *pages = json_array();
    int bad = !o || !pages;

    (void)unused;
    bad |= set(o, "view", json_string(KIX_VIEW_SEARCH_PAGES));
    for (size_t p = 1; !bad && v->nrows && p <= kix_home_view_pages(v); p++) {
        size_t first, last;
        json_t *x = json_object();
        kix_home_view_page_rows(v, p, &first, &last);
        bad |= !x || set(x, "name", json_string(kix_home_view_page_name(v, p)));
        for (int f = 0; !bad && f < KIX__NFACETS; f++)
            bad |= set(x, facet_keys[f], shard_facet(v, first, last, f));
        bad |= json_array_append_new(pages, x) != 0;
    }
    bad |= set(o, "pages", pages);
    return dump(o, bad, out, err);
}

/* The shard of page `page`: its rows, as arrays in the index's columns. */
static int search_shard_of(struct kix__home_model *m, size_t page, struct kix_buf *out,
                           struct kix_err *err)
{
    const struct kix_home_view *v = &m->view;
    size_t first, last;
    json_t *o, *rows;
    int bad;

    if (!v->nrows || page < 1 || page > kix_home_view_pages(v))
        return kix_err_set(err, KIX_ENOTFOUND, "no search shard of page %zu", page);
    kix_home_view_page_rows(v, page, &first, &last);
    o = json_object();
    rows = json_array();
    bad = !o || !rows;
    /* no tree size and no place among the others: a shard whose rows did
     * not change is the same file at the next size, which an export then
     * leaves as it is */
    bad |= set(o, "view", json_string(KIX_VIEW_SEARCH_SHARD));
    for (size_t i = first; !bad && i < last; i++) {
        const struct kix_home_row *x = &v->rows[i];
        char human[KIX_HUMAN_MAX + 8];
        primary_text(x, human, sizeof(human));
        bad |= json_array_append_new(
                   rows, json_pack("[s,s,s,s,s,s,s,s,s,I,s,I,s,s,s]", x->kernel, x->gpu, x->mode,
                                   x->metric, x->dtype, x->workload, x->provider, x->implementation,
                                   human, (json_int_t)x->value, x->bytes ? "bytes" : "ns",
                                   (json_int_t)x->group_size, x->group, x->best, x->source)) != 0;
    }
    bad |= set(o, "rows", rows);
    return dump(o, bad, out, err);
}

/* ---- the pages, rendered once per log state ---------------------------------------------------
 */

typedef int (*render_fn)(struct kix__home_model *m, size_t arg, struct kix_buf *out,
                         struct kix_err *err);

int kix__memo_get(struct kix__home_model *m, size_t slot, struct kix_buf *out, int *rc)
{
    int have = 0;

    if (slot >= m->nmemo)
        return 0;
    pthread_mutex_lock(&m->mu);
    if (m->memo[slot].len) {
        *rc = kix_buf_add(out, m->memo[slot].ptr, m->memo[slot].len);
        have = 1;
    }
    pthread_mutex_unlock(&m->mu);
    return have;
}

void kix__memo_put(struct kix__home_model *m, size_t slot, struct kix_buf *bytes)
{
    if (slot >= m->nmemo)
        return;
    pthread_mutex_lock(&m->mu);
    /* the search index and its shards (about 200 bytes a group) are always
     * kept: every search reads them; pages share the budget */
    if (!m->memo[slot].len &&
        (slot < m->memo_pages_at || m->memo_bytes + bytes->len <= KIX__MEMO_MAX)) {
        m->memo_bytes += slot < m->memo_pages_at ? 0 : bytes->len;
        m->memo[slot] = *bytes;
        kix_buf_init(bytes);
    }
    pthread_mutex_unlock(&m->mu);
}

size_t kix__memo_kernel_slot(const struct kix__home_model *m, const char *kernel, size_t len,
                             int json)
{
    const struct kix_home_view *v = &m->view;

    for (size_t k = 0; k < v->nkernels; k++)
        if (strlen(v->kernels[k].name) == len && memcmp(v->kernels[k].name, kernel, len) == 0)
            return m->memo_pages_at + 2 * k + (json ? 1 : 0);
    return SIZE_MAX;
}

/* out gets fn(m, arg), through the model's memo slot `slot` (SIZE_MAX: none). */
static int memo_render(struct kix__home_model *m, size_t slot, render_fn fn, size_t arg,
                       struct kix_buf *out, struct kix_err *err)
{
    struct kix_buf bytes = KIX_BUF_INIT;
    int rc = KIX_OK;

    if (kix__memo_get(m, slot, out, &rc))
        return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
    if ((rc = fn(m, arg, &bytes, err)) == KIX_OK &&
        (rc = kix_buf_add(out, bytes.ptr, bytes.len)) != KIX_OK)
        kix_err_set(err, rc, "out of memory");
    if (rc == KIX_OK)
        kix__memo_put(m, slot, &bytes);
    kix_buf_release(&bytes);
    return rc;
}

enum { SLOT_SEARCH, SLOT_SEARCH_PAGES, SLOT_SHARD, SLOT_HOME_HTML, SLOT_HOME_JSON };

/* The memo slot of a page of `kind` (arg: its page number, 1-based). */
static size_t slot_of(const struct kix__home_model *m, int kind, size_t arg)
{
    size_t pages_at = m->memo_pages_at + 2 * m->view.nkernels;

    switch (kind) {
    case SLOT_SEARCH:
        return MEMO_SEARCH_INDEX;
    case SLOT_SEARCH_PAGES:
        return MEMO_SEARCH_PAGES;
    case SLOT_SHARD:
        return arg >= 1 && arg <= kix_home_view_pages(&m->view) ? MEMO_SHARDS + arg - 1 : SIZE_MAX;
    default: /* pages 1..n */
        if (arg < 1 || arg > kix_home_view_pages(&m->view))
            return SIZE_MAX;
        return pages_at + 2 * (arg - 1) + (kind == SLOT_HOME_JSON);
    }
}

static int model_page(struct kix_source *r, int kind, render_fn fn, size_t arg, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix__home_model *m;
    int rc = kix__home_acquire(r, &m, err);

    if (rc == KIX_OK)
        rc = memo_render(m, slot_of(m, kind, arg), fn, arg, out, err);
    kix__home_put(m);
    return rc;
}

/* The page of `kind` named `name` (len bytes: kix_home_view_page_name),
 * looked up in the model it is rendered from, so a commit between the two
 * cannot put another page under the name; KIX_ENOTFOUND when no page from
 * `min_page` on has it. */
static int model_page_named(struct kix_source *r, int kind, render_fn fn, const char *name,
                            size_t len, size_t min_page, struct kix_buf *out, struct kix_err *err)
{
    struct kix__home_model *m;
    size_t page;
    int rc = kix__home_acquire(r, &m, err);

    if (rc == KIX_OK) {
        page = kix_home_view_page_named(&m->view, name, len);
        rc = page && page >= min_page ? memo_render(m, slot_of(m, kind, page), fn, page, out, err)
                                      : kix_err_set(err, KIX_ENOTFOUND, "no such page");
    }
    kix__home_put(m);
    return rc;
}

int kix__search_index_exported(struct kix__home_model *m, struct kix_buf *out, struct kix_err *err)
{
    return memo_render(m, slot_of(m, SLOT_SEARCH, 0), search_index_of, 0, out, err);
}

int kix__search_pages_exported(struct kix__home_model *m, struct kix_buf *out, struct kix_err *err)
{
    return memo_render(m, slot_of(m, SLOT_SEARCH_PAGES, 0), search_pages_of, 0, out, err);
}

int kix__search_shard_exported(struct kix__home_model *m, size_t page, struct kix_buf *out,
                               struct kix_err *err)
{
    return memo_render(m, slot_of(m, SLOT_SHARD, page), search_shard_of, page, out, err);
}

int kix_page_home_json(struct kix_source *r, size_t page, struct kix_buf *out, struct kix_err *err)
{
    return model_page(r, SLOT_HOME_JSON, home_json_of, page, out, err);
}

int kix_page_home_page_html(struct kix_source *r, size_t page, struct kix_buf *out,
                            struct kix_err *err)
{
    return model_page(r, SLOT_HOME_HTML, home_html_of, page, out, err);
}

int kix_page_search_index(struct kix_source *r, struct kix_buf *out, struct kix_err *err)
{
    return model_page(r, SLOT_SEARCH, search_index_of, 0, out, err);
}

int kix_page_search_pages(struct kix_source *r, struct kix_buf *out, struct kix_err *err)
{
    return model_page(r, SLOT_SEARCH_PAGES, search_pages_of, 0, out, err);
}

int kix_page_search_shard(struct kix_source *r, size_t page, struct kix_buf *out,
                          struct kix_err *err)
{
    return model_page(r, SLOT_SHARD, search_shard_of, page, out, err);
}

/* ---- the browsing routes ------------------------------------------------------------------ */

static int has_prefix(const char *path, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len > n && memcmp(path, prefix, n) == 0;
}

static int is(const char *path, size_t len, const char *name)
{
    return len == strlen(name) && memcmp(path, name, len) == 0;
}

int kix_page_browse_path(const char *path, size_t len)
{
    return is(path, len, "index.json") || has_prefix(path, len, "home/") ||
           has_prefix(path, len, "kernels/") || has_prefix(path, len, "search/");
}

/* A page number: decimal digits, no leading zero, at most 9 of them. */
static int number(const char *s, size_t len, size_t *out)
{
    size_t v = 0;

    if (len == 0 || len > 9 || (s[0] == '0' && len > 1))
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* Whether s (len bytes) is a page name: 64 lowercase hex digits. */
static int page_name(const char *s, size_t len)
{
    if (len != 64)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int kix_page_browse(struct kix_source *r, const char *path, size_t len, int want_json,
                    struct kix_buf *out, int *is_json, struct kix_err *err)
{
    int json = len > 5 && memcmp(path + len - 5, ".json", 5) == 0;
    /* <page>.html: the name the pages link to, which a static copy holds */
    int html = !json && len > 5 && memcmp(path + len - 5, ".html", 5) == 0;
    size_t stem = json || html ? len - 5 : len, n = 0;

    *is_json = json || (want_json && !html);
    if (is(path, len, "index.json"))
        return kix_page_home_json(r, 1, out, err);
    /* home/<name> (not page 1's: that is index.html), and home/<k> (k >=
     * 2: what pages linked before they were named by their first group; a
     * page's place, not its rows) */
    if (has_prefix(path, stem, "home/") && page_name(path + 5, stem - 5))
        return *is_json ? model_page_named(r, SLOT_HOME_JSON, home_json_of, path + 5, stem - 5, 2,
                                           out, err)
                        : model_page_named(r, SLOT_HOME_HTML, home_html_of, path + 5, stem - 5, 2,
                                           out, err);
    if (has_prefix(path, stem, "home/") && number(path + 5, stem - 5, &n) && n >= 2)
        return *is_json ? kix_page_home_json(r, n, out, err)
                        : kix_page_home_page_html(r, n, out, err);
    if (has_prefix(path, stem, "kernels/") && memchr(path + 8, '/', stem - 8) == NULL)
        return *is_json ? kix_page_kernel_json(r, path + 8, stem - 8, out, err)
                        : kix_page_kernel_html(r, path + 8, stem - 8, out, err);
    *is_json = 1;
    if (html)
        return kix_err_set(err, KIX_ENOTFOUND, "no such page");
    if (is(path, len, "search/index.json"))
        return kix_page_search_index(r, out, err);
    if (is(path, len, "search/pages.json"))
        return kix_page_search_pages(r, out, err);
    if (json && has_prefix(path, stem, "search/") && page_name(path + 7, stem - 7))
        return model_page_named(r, SLOT_SHARD, search_shard_of, path + 7, stem - 7, 1, out, err);
    return kix_err_set(err, KIX_ENOTFOUND, "no such page");
}
