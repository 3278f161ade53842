/* The browsing views and pages (kix/view.h, kix/pages.h) over a real log of
 * the first Liger rows: the home view lists every ranked group once, in
 * order, counted by kernel and GPU, and cuts them into pages by their rows (kix_home_view_cut);
 * a kernel's sweeps hold runs that share everything but x, one line per
 * implementation, with its best run at each x; the browsing routes answer
 * exactly their paths. */
#define _GNU_SOURCE /* memmem */
#include <strings.h>

#include "fixture.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/view.h"
#include "liger_sample.h"

/* The pages read a snapshot as a source (kix/source.h); each opened here
 * is closed by close_sources, before its reader ends. */
static struct kix_source *opened[8];
static size_t nopened;

static struct kix_source *as_source(struct kix_log *l, struct kix_log_reader *r)
{
    struct kix_source *src = NULL;

    if (nopened == sizeof(opened) / sizeof(opened[0]) ||
        kix_source_open_snapshot(l, r, &src, NULL) != KIX_OK)
        abort();
    return opened[nopened++] = src;
}

static void close_sources(void)
{
    while (nopened)
        kix_source_close(opened[--nopened]);
}

#define ROWS 300

static int commit_row(void *ctx, size_t row, const char *run_id, const struct kix_buf *envelope,
                      const struct kix_bytes *objects)
{
    struct fixture *f = ctx;
    struct kix_submission sub = {kix_buf_bytes(envelope), objects, KIX_LIGER_NOBJECTS};
    struct kix_prepared *p = NULL;
    struct kix_append_result res;
    struct kix_err err = {0};

    (void)run_id;
    if (kix_log_prepare(f->log, &sub, &p, &err) ||
        kix_log_commit(f->log, &p, 1, &res, NULL, &err) || res.code) {
        fprintf(stderr, "publishing row %zu: %s %s\n", row, err.msg, res.message);
        abort();
    }
    kix_prepared_free(p);
    return 0;
}

static struct kix_log_reader *liger_log(struct fixture *f)
{
    struct kix_log_reader *r = NULL;

    setup(f);
    if (liger_sample_publish(f->publisher, ROWS, commit_row, f) || kix_log_read_begin(f->log, &r))
        abort();
    return r;
}

/* Commits the rows from `from` on (the first ones are already in the log). */
struct from_row {
    struct fixture *f;
    size_t from;
};

static int commit_from(void *ctx, size_t row, const char *run_id, const struct kix_buf *envelope,
                       const struct kix_bytes *objects)
{
    struct from_row *x = ctx;
    return row < x->from ? 0 : commit_row(x->f, row, run_id, envelope, objects);
}

struct described {
    const struct kix_home_view *v;
    int mismatches;
    size_t rows;
};

/* Each query row's words are its group's home row's. */
static int same_words(void *ctx, const struct kix_query_row *q)
{
    struct described *d = ctx;
    char key[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(&q->group, key);
    for (size_t i = 0; i < d->v->nrows; i++) {
        const struct kix_home_row *row = &d->v->rows[i];
        if (strcmp(row->group, key) != 0)
            continue;
        d->rows++;
        if (strcmp(row->kernel, q->kernel) || strcmp(row->gpu, q->gpu) ||
            strcmp(row->mode, q->mode) || strcmp(row->metric, q->metric) ||
            (q->rank == 1 && strcmp(row->provider, q->provider))) {
            fprintf(stderr, "group %s: home says %s/%s/%s/%s/%s, query %s/%s/%s/%s/%s\n", key,
                    row->kernel, row->gpu, row->mode, row->metric, row->provider, q->kernel, q->gpu,
                    q->mode, q->metric, q->provider);
            d->mismatches++;
        }
    }
    return KIX_OK;
}

KIX_TEST(home_view_words_are_kix_query_words_and_updates_equal_rebuilds)
{
    struct fixture f;
    struct kix_log_reader *r = NULL;
    struct kix_home_view before, updated, rebuilt;
    struct kix_query q;
    struct described d;
    struct from_row more;
    uint64_t matched = 0;

    setup(&f);
    more.f = &f;
    more.from = 0;
    if (liger_sample_publish(f.publisher, ROWS - 60, commit_from, &more) ||
        kix_log_read_begin(f.log, &r))
        abort();
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(as_source(f.log, r), &before, NULL));
    close_sources();
    kix_log_read_end(r);
    more.from = ROWS - 60;
    if (liger_sample_publish(f.publisher, ROWS, commit_from, &more) ||
        kix_log_read_begin(f.log, &r))
        abort();
    ASSERT_EQ_INT(KIX_OK, kix_home_view_update(as_source(f.log, r), &before, &updated, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(as_source(f.log, r), &rebuilt, NULL));
    ASSERT_TRUE(updated.nrows > before.nrows);
    ASSERT_EQ_U64(rebuilt.nrows, updated.nrows);
    ASSERT_EQ_U64(rebuilt.ranked_runs, updated.ranked_runs);
    for (size_t i = 0; i < rebuilt.nrows; i++)
        ASSERT_TRUE(memcmp(&rebuilt.rows[i], &updated.rows[i], sizeof(rebuilt.rows[i])) == 0);
    /* the words of kix query, for every ranked run of every group */
    memset(&q, 0, sizeof(q));
    q.limit = UINT64_MAX;
    d = (struct described){&rebuilt, 0, 0};
    ASSERT_EQ_INT(KIX_OK, kix_index_query(r, &q, same_words, &d, &matched));
    ASSERT_EQ_U64(rebuilt.ranked_runs, d.rows);
    ASSERT_EQ_INT(0, d.mismatches);
    kix_home_view_release(&before);
    kix_home_view_release(&updated);
    kix_home_view_release(&rebuilt);
    close_sources();
    kix_log_read_end(r);
    teardown(&f);
}

struct keys {
    char (*key)[KIX_DIGEST_TEXT_LEN + 1];
    size_t n;
};

static int keys_add(struct keys *k, const char *key)
{
    char(*p)[KIX_DIGEST_TEXT_LEN + 1] = realloc(k->key, (k->n + 1) * sizeof(*k->key));

    if (!p)
        return KIX_ENOMEM;
    k->key = p;
    snprintf(k->key[k->n++], sizeof(*k->key), "%s", key);
    return KIX_OK;
}

static int count_group(void *ctx, const struct kix_digest *key)
{
    char text[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(key, text);
    return keys_add(ctx, text);
}

static int has_key(const struct keys *k, const char *key)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->key[i], key) == 0)
            return 1;
    return 0;
}

static json_t *home_page(const struct kix_home_view *v, size_t page)
{
    struct kix_buf out = KIX_BUF_INIT;
    json_t *doc = NULL;

    if (kix_home_view_json(v, page, 0, &out, NULL) == KIX_OK)
        doc = json_loadb((const char *)out.ptr, out.len, 0, NULL);
    kix_buf_release(&out);
    return doc;
}

/* Whether a group ("sha256:<hex>") is a mark of the home pages (view.h). */
static int mark_of(const char *group)
{
    return strtoul(group + strlen(group) - 8, NULL, 16) % KIX_HOME_PAGE_EVERY == 0;
}

KIX_TEST(home_view_pages_every_group_once_in_order)
{
    struct fixture f;
    struct kix_log_reader *r = liger_log(&f);
    struct kix_home_view v;
    struct keys all = {NULL, 0}, seen = {NULL, 0};
    struct kix_buf out = KIX_BUF_INIT;
    uint64_t runs = 0, kernel_groups = 0, gpu_groups = 0;
    size_t pages, seen_first = 0;

    ASSERT_EQ_INT(KIX_OK, kix_index_groups(r, count_group, &all));
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(as_source(f.log, r), &v, NULL));
    ASSERT_EQ_U64(all.n, v.nrows);
    ASSERT_TRUE(kix_home_view_pages(&v) > 1); /* more than one page */
    for (size_t i = 0; i < v.nrows; i++) {
        const struct kix_home_row *row = &v.rows[i];
        ASSERT_TRUE(has_key(&all, row->group));
        ASSERT_TRUE(*row->kernel && *row->gpu && *row->mode && *row->implementation);
        ASSERT_TRUE(*row->workload); /* some Liger rows have no dtype */
        ASSERT_TRUE(row->group_size >= 1 && row->value > 0);
        /* kernel, then GPU: a kernel's rows and a GPU's within it are together */
        if (i)
            ASSERT_TRUE(strcasecmp(v.rows[i - 1].kernel, row->kernel) <= 0);
        runs += row->group_size;
    }
    ASSERT_EQ_U64(runs, v.ranked_runs);
    for (size_t k = 0; k < v.nkernels; k++) {
        const struct kix_home_count *c = &v.kernels[k];
        uint64_t g = 0;
        kernel_groups += c->groups;
        for (size_t i = c->first_row; i < c->first_row + c->groups; i++)
            ASSERT_EQ_STR(c->name, v.rows[i].kernel);
        for (size_t x = 0; x < c->ngpus; x++) {
            const struct kix_home_count *gpu = &v.gpus[c->first_gpu + x];
            g += gpu->groups;
            for (size_t i = gpu->first_row; i < gpu->first_row + gpu->groups; i++)
                ASSERT_EQ_STR(gpu->name, v.rows[i].gpu);
        }
        ASSERT_EQ_U64(c->groups, g);
        gpu_groups += g;
    }
    ASSERT_EQ_U64(v.nrows, kernel_groups);
    ASSERT_EQ_U64(v.nrows, gpu_groups);

    /* the pages: cut where view.h says, each named by its first group,
     * every group once, then nothing */
    pages = kix_home_view_pages(&v);
    for (size_t p = 1; p <= pages; p++) {
        json_t *doc = home_page(&v, p), *rows = json_object_get(doc, "rows"), *row;
        size_t i, first, last;
        kix_home_view_page_rows(&v, p, &first, &last);
        ASSERT_EQ_U64(seen.n, first);
        ASSERT_TRUE(last > first && last - first <= KIX_HOME_PAGE_MAX);
        if (p > 1) /* a page starts at a mark, or where the page before filled */
            ASSERT_TRUE(mark_of(v.rows[first].group) || first - seen_first == KIX_HOME_PAGE_MAX);
        seen_first = first;
        for (size_t j = first + 1; j <= last && j < v.nrows; j++) {
            /* a row starts a page iff it is a mark (its digest's last 8 hex
             * digits a multiple of EVERY) and none of the GAP - 1 rows
             * before it is, or its page holds MAX rows */
            int near = 0;
            for (size_t b = j >= KIX_HOME_PAGE_GAP ? j - KIX_HOME_PAGE_GAP + 1 : 0; b < j; b++)
                near |= mark_of(v.rows[b].group);
            ASSERT_EQ_INT(j == last,
                          j - first >= KIX_HOME_PAGE_MAX || (mark_of(v.rows[j].group) && !near));
        }
        ASSERT_EQ_STR(v.rows[first].group + 7, kix_home_view_page_name(&v, p));
        ASSERT_EQ_U64(p, kix_home_view_page_named(&v, v.rows[first].group + 7, 64));
        ASSERT_TRUE(doc != NULL);
        ASSERT_EQ_STR("kix.home/2", json_string_value(json_object_get(doc, "view")));
        ASSERT_EQ_U64(p, (uint64_t)json_integer_value(json_object_get(doc, "page")));
        ASSERT_EQ_U64(pages, (uint64_t)json_integer_value(json_object_get(doc, "pages")));
        ASSERT_EQ_STR(v.rows[first].group + 7, json_string_value(json_object_get(doc, "name")));
        ASSERT_EQ_U64(v.nrows, (uint64_t)json_integer_value(json_object_get(doc, "groups")));
        ASSERT_EQ_U64(last - first, json_array_size(rows));
        json_array_foreach(rows, i, row)
        {
            const char *key = json_string_value(json_object_get(row, "group"));
            ASSERT_TRUE(key && !has_key(&seen, key));
            ASSERT_EQ_STR(v.rows[first + i].group, key);
            ASSERT_TRUE(json_string_value(json_object_get(row, "median")) != NULL);
            ASSERT_EQ_INT(KIX_OK, keys_add(&seen, key));
        }
        json_decref(doc);
    }
    ASSERT_EQ_U64(v.nrows, seen.n);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_home_view_json(&v, pages + 1, 0, &out, NULL));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_home_view_json(&v, 0, 0, &out, NULL));
    ASSERT_EQ_U64(0, kix_home_view_page_named(&v, "00", 2));
    ASSERT_EQ_STR("", kix_home_view_page_name(&v, pages + 1));
    kix_buf_release(&out);
    free(all.key);
    free(seen.key);
    kix_home_view_release(&v);
    close_sources();
    kix_log_read_end(r);
    teardown(&f);
}

/* A run's Workload document. */
static json_t *run_workload(struct kix_log_reader *r, const char *run_id)
{
    struct kix_run_info info;
    struct kix_bytes b;
    struct kix_digest d;
    json_t *m, *w = NULL;
    const char *text;

    if (kix_index_run(r, run_id, strlen(run_id), &info) != KIX_OK ||
        kix_log_reader_object(r, &info.manifest, &b) != KIX_OK)
        return NULL;
    m = json_loadb((const char *)b.ptr, b.len, 0, NULL);
    text = json_string_value(json_object_get(json_object_get(m, "spec"), "workloadDigest"));
    if (text && kix_digest_parse(text, strlen(text), &d, NULL) == KIX_OK &&
        kix_log_reader_object(r, &d, &b) == KIX_OK)
        w = json_loadb((const char *)b.ptr, b.len, 0, NULL);
    json_decref(m);
    return w;
}

KIX_TEST(kernel_sweeps_share_everything_but_x)
{
    struct fixture f;
    struct kix_log_reader *r = liger_log(&f);
    struct kix_source *src;
    struct kix_home_view h;
    struct kix_kernel_view v;
    struct kix_buf out = KIX_BUF_INIT;
    size_t points = 0, memory_sweeps = 0;

    src = as_source(f.log, r);
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(src, &h, NULL));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_kernel_view_build(src, &h, "cross", 5, &v, NULL));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_kernel_view_build(src, &h, "nope", 4, &v, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_kernel_view_build(src, &h, "cross_entropy", 13, &v, NULL));
    ASSERT_EQ_STR("cross_entropy", v.kernel);
    /* forward latency, full latency, full peak memory: one sweep each */
    ASSERT_EQ_U64(3, v.nsweeps);
    for (size_t s = 0; s < v.nsweeps; s++) {
        const struct kix_kernel_sweep *sw = &v.sweeps[s];
        json_t *fixed_params = NULL;
        ASSERT_EQ_STR("vocab", sw->x_name); /* the parameter that varies */
        ASSERT_TRUE(sw->numeric_x);
        ASSERT_TRUE(strstr(sw->fixed, "vocab") == NULL); /* x's own parameter is not fixed */
        ASSERT_TRUE(*sw->fixed);
        memory_sweeps += sw->bytes;
        ASSERT_EQ_U64(2, sw->nlines); /* huggingface and liger */
        for (size_t l = 0; l < sw->nlines; l++) {
            const struct kix_kernel_line *line = &v.lines[sw->first_line + l];
            ASSERT_EQ_U64(6, line->npoints);
            for (size_t i = 0; i < line->npoints; i++) {
                const struct kix_kernel_point *p = &v.points[line->first_point + i];
                json_t *w = run_workload(r, p->run_id), *params;
                ASSERT_TRUE(w != NULL);
                params = json_deep_copy(json_object_get(json_object_get(w, "spec"), "parameters"));
                ASSERT_TRUE(json_number_value(json_object_get(params, "vocab")) == p->x);
                if (i)
                    ASSERT_TRUE(v.points[line->first_point + i - 1].x < p->x);
                /* every point of the sweep: the same parameters but vocab */
                json_object_del(params, "vocab");
                if (!fixed_params)
                    fixed_params = json_incref(params);
                ASSERT_TRUE(json_equal(fixed_params, params));
                json_decref(params);
                json_decref(w);
                points++;
            }
        }
        json_decref(fixed_params);
    }
    ASSERT_EQ_U64(1, memory_sweeps);
    ASSERT_EQ_U64(points, v.npoints);
    ASSERT_EQ_INT(KIX_OK, kix_kernel_view_json(&v, 0, &out, NULL));
    {
        json_t *doc = json_loadb((const char *)out.ptr, out.len, 0, NULL);
        ASSERT_EQ_STR("kix.kernel/1", json_string_value(json_object_get(doc, "view")));
        ASSERT_EQ_U64(3, json_array_size(json_object_get(doc, "sweeps")));
        ASSERT_EQ_U64(v.nrows, json_array_size(json_object_get(doc, "groups")));
        json_decref(doc);
    }
    kix_buf_release(&out);
    kix_kernel_view_release(&v);
    kix_home_view_release(&h);
    close_sources();
    kix_log_read_end(r);
    teardown(&f);
}

/* Issue 37.5: Liger measures rope at hidden = 8192, seq = 2048 twice, in
 * its H sweep (seq = 2048) and in its T sweep (hidden = 8192). Both rows
 * are one workload, so one group a pass (four runs: two implementations,
 * two rows each, one best), not two with two "fastest" answers: rope's 64
 * rows make 4 × 7 groups, not 4 × 8. The kernel page still draws both
 * sweeps of each pass, derived from the parameters, the shared group a
 * point of each. */
KIX_TEST(one_shape_of_two_sweeps_is_one_group)
{
    struct fixture f;
    struct kix_log_reader *r = NULL;
    struct kix_source *src;
    struct kix_home_view h;
    struct kix_kernel_view v;
    struct keys all = {NULL, 0};
    size_t shared_points = 0, hidden_sweeps = 0, seq_sweeps = 0;

    setup(&f);
    ASSERT_EQ_INT(0, liger_sample_publish_kernel(f.publisher, "rope", 1000, commit_row, &f));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_groups(r, count_group, &all));
    ASSERT_EQ_U64(28, all.n);
    src = as_source(f.log, r);
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(src, &h, NULL));
    ASSERT_EQ_U64(28, h.nrows);
    for (size_t i = 0; i < h.nrows; i++) {
        int shared =
            strstr(h.rows[i].workload, "hidden = 8192") && strstr(h.rows[i].workload, "seq = 2048");
        /* the shared shape's group holds both rows of each implementation */
        ASSERT_EQ_U64(shared ? 4 : 2, h.rows[i].group_size);
    }
    ASSERT_EQ_INT(KIX_OK, kix_kernel_view_build(src, &h, "rope", 4, &v, NULL));
    /* each pass and metric (forward, backward, full; full peak memory): a
     * sweep over hidden (3 shapes) and one over seq (5 shapes) */
    ASSERT_EQ_U64(8, v.nsweeps);
    for (size_t s = 0; s < v.nsweeps; s++) {
        const struct kix_kernel_sweep *sw = &v.sweeps[s];
        int over_hidden = strcmp(sw->x_name, "hidden") == 0;
        ASSERT_TRUE(over_hidden || strcmp(sw->x_name, "seq") == 0);
        hidden_sweeps += over_hidden;
        seq_sweeps += !over_hidden;
        ASSERT_TRUE(strstr(sw->fixed, over_hidden ? "seq = 2048" : "hidden = 8192") != NULL);
        ASSERT_EQ_U64(2, sw->nlines); /* huggingface and liger */
        for (size_t l = 0; l < sw->nlines; l++) {
            const struct kix_kernel_line *line = &v.lines[sw->first_line + l];
            ASSERT_EQ_U64(over_hidden ? 3 : 5, line->npoints);
            for (size_t i = 0; i < line->npoints; i++) {
                const struct kix_kernel_point *p = &v.points[line->first_point + i];
                shared_points += p->x == (over_hidden ? 8192 : 2048);
            }
        }
    }
    ASSERT_EQ_U64(4, hidden_sweeps);
    ASSERT_EQ_U64(4, seq_sweeps);
    ASSERT_EQ_U64(8 * 2, shared_points); /* the shared group in every sweep, each line */
    kix_kernel_view_release(&v);
    kix_home_view_release(&h);
    free(all.key);
    close_sources();
    kix_log_read_end(r);
    teardown(&f);
}

static int browse(struct kix_source *r, const char *path, struct kix_buf *out, int *json)
{
    kix_buf_reset(out);
    return kix_page_browse(r, path, strlen(path), 0, out, json, NULL);
}

KIX_TEST(browse_routes_answer_their_paths_only)
{
    struct fixture f;
    struct kix_log_reader *r = liger_log(&f);
    struct kix_source *src = as_source(f.log, r);
    struct kix_buf out = KIX_BUF_INIT;
    int json = -1;
    static const char *const missing[] = {
        "home/1",        "home/02",      "home/99",        "home/x",
        "home/",         "kernels/nope", "kernels/a/b",    "search/99.json",
        "search/x.json", "search/0",     "search/00.json", "kernels/cross",
        "home/2/x",      "search/index", "search/0.json",  "search/pages",
    };
    struct kix_home_view v;
    char path[128];

    ASSERT_TRUE(kix_page_browse_path("index.json", 10));
    ASSERT_TRUE(kix_page_browse_path("kernels/x", 9));
    ASSERT_TRUE(!kix_page_browse_path("runs/x", 6) && !kix_page_browse_path("index.html", 10));
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
        if (browse(src, missing[i], &out, &json) != KIX_ENOTFOUND) {
            fprintf(stderr, "%s answered\n", missing[i]);
            ASSERT_TRUE(0);
        }
    /* page 2 by its name (its first group's digest), and by its place */
    ASSERT_EQ_INT(KIX_OK, kix_home_view_from_source(src, &v, NULL));
    ASSERT_TRUE(kix_home_view_pages(&v) >= 2);
    snprintf(path, sizeof(path), "home/%s.html", kix_home_view_page_name(&v, 2));
    ASSERT_EQ_INT(KIX_OK, browse(src, path, &out, &json));
    ASSERT_TRUE(!json && memmem(out.ptr, out.len, "page 2 of", 9) != NULL);
    snprintf(path, sizeof(path), "search/%s.json", kix_home_view_page_name(&v, 2));
    ASSERT_EQ_INT(KIX_OK, browse(src, path, &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"kix.search-shard/2\"", 20) != NULL);
    ASSERT_TRUE(memmem(out.ptr, out.len, v.rows[v.page_first[1]].group, 71) != NULL);
    snprintf(path, sizeof(path), "search/%s.json", kix_home_view_page_name(&v, 1));
    ASSERT_EQ_INT(KIX_OK, browse(src, path, &out, &json)); /* page 1's shard has its name */
    /* page 1 is index.html alone: its name under home/ is no page (its
     * links would be wrong there), nor is a name no page has */
    snprintf(path, sizeof(path), "home/%s", kix_home_view_page_name(&v, 1));
    ASSERT_EQ_INT(KIX_ENOTFOUND, browse(src, path, &out, &json));
    snprintf(path, sizeof(path), "home/%064d", 0);
    ASSERT_EQ_INT(KIX_ENOTFOUND, browse(src, path, &out, &json));
    snprintf(path, sizeof(path), "search/%064d.json", 0);
    ASSERT_EQ_INT(KIX_ENOTFOUND, browse(src, path, &out, &json));
    ASSERT_EQ_INT(KIX_OK, browse(src, "home/2", &out, &json));
    ASSERT_TRUE(!json && memmem(out.ptr, out.len, "page 2 of", 9) != NULL);
    /* first, previous: the .html names a server typing by extension serves as pages */
    ASSERT_TRUE(memmem(out.ptr, out.len, "href=\"../index.html\"", 20) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "home/2.html", &out, &json));
    ASSERT_TRUE(!json && memmem(out.ptr, out.len, "page 2 of", 9) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "home/2.json", &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"page\":2", 8) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "index.json", &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"page\":1", 8) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "kernels/cross_entropy", &out, &json));
    ASSERT_TRUE(!json && memmem(out.ptr, out.len, "<svg", 4) != NULL);
    ASSERT_TRUE(memmem(out.ptr, out.len, "{{", 2) == NULL);
    ASSERT_TRUE(memmem(out.ptr, out.len, "<a href=\"../runs/", 17) != NULL);
    ASSERT_TRUE(memmem(out.ptr, out.len, ".html\"><circle", 14) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "kernels/cross_entropy.html", &out, &json));
    ASSERT_TRUE(!json && memmem(out.ptr, out.len, "<svg", 4) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "kernels/cross_entropy.json", &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"kix.kernel/1\"", 14) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "search/index.json", &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"kix.search/2\"", 14) != NULL);
    ASSERT_EQ_INT(KIX_OK, browse(src, "search/pages.json", &out, &json));
    ASSERT_TRUE(json && memmem(out.ptr, out.len, "\"kix.search-pages/1\"", 20) != NULL);
    ASSERT_TRUE(memmem(out.ptr, out.len, kix_home_view_page_name(&v, 2), 64) != NULL);
    /* an Accept header asks for JSON where a page has both */
    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_page_browse(src, "kernels/cross_entropy", 21, 1, &out, &json, NULL));
    ASSERT_TRUE(json && out.ptr[0] == '{');
    kix_buf_release(&out);
    kix_home_view_release(&v);
    close_sources();
    kix_log_read_end(r);
    teardown(&f);
}

/* ---- pages cut by their rows --------------------------------------------------------- */

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A group digest text, a mark (its last hex digit 0: a multiple of 16) or not. */
static void make_group(char *out, uint64_t *seed, int mark)
{
    static const char hex[] = "0123456789abcdef";
    memcpy(out, "sha256:", 7);
    for (int i = 0; i < 64; i++)
        out[7 + i] = hex[next_rand(seed) % 16];
    out[70] = mark ? '0' : hex[1 + next_rand(seed) % 15];
    out[71] = '\0';
}

static int row_order(const void *a, const void *b)
{
    return strcmp(((const struct kix_home_row *)a)->group, ((const struct kix_home_row *)b)->group);
}

/* Whether page p of v (its first group and its length) is a page of w. */
static int page_in(const struct kix_home_view *v, size_t p, const struct kix_home_view *w)
{
    size_t f, l, wf, wl, q = kix_home_view_page_named(w, kix_home_view_page_name(v, p), 64);
    kix_home_view_page_rows(v, p, &f, &l);
    if (!q)
        return 0;
    kix_home_view_page_rows(w, q, &wf, &wl);
    return wl - wf == l - f;
}

/* A new row, wherever it sorts and whether or not it is a mark, changes at
 * most two pages (its own, and the one it splits off or merges into: a row
 * starts a page by the 15 rows before it alone), and no other page's name
 * or rows: what keeps a static copy's re-export O(new rows). */
KIX_TEST(home_pages_a_new_row_changes_two_pages_at_most)
{
    enum { MANY_ROWS = 3000, N_TRIALS = 300 };
    struct kix_home_view base, v;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    size_t most = 0, starts = 0;

    memset(&base, 0, sizeof(base));
    memset(&v, 0, sizeof(v));
    ASSERT_TRUE((base.rows = calloc(MANY_ROWS, sizeof(*base.rows))) != NULL);
    ASSERT_TRUE((v.rows = calloc(MANY_ROWS + 1, sizeof(*v.rows))) != NULL);
    base.nrows = MANY_ROWS;
    for (size_t i = 0; i < MANY_ROWS; i++)
        make_group(base.rows[i].group, &seed, next_rand(&seed) % 16 == 0);
    qsort(base.rows, MANY_ROWS, sizeof(*base.rows), row_order);
    ASSERT_EQ_INT(KIX_OK, kix_home_view_cut(&base));
    ASSERT_TRUE(base.npages > MANY_ROWS / 80 && base.npages < MANY_ROWS / 20);
    for (size_t p = 1; p <= base.npages; p++) {
        size_t f, l;
        kix_home_view_page_rows(&base, p, &f, &l);
        ASSERT_TRUE(l - f < KIX_HOME_PAGE_MAX); /* no page cut by its length here */
    }
    for (int t = 0; t < N_TRIALS; t++) {
        size_t changed = 0, gone = 0;
        memcpy(v.rows, base.rows, MANY_ROWS * sizeof(*v.rows));
        /* a mark one time in four, to make and unmake page starts often */
        make_group(v.rows[MANY_ROWS].group, &seed, t % 4 == 0);
        v.nrows = MANY_ROWS + 1;
        qsort(v.rows, v.nrows, sizeof(*v.rows), row_order);
        ASSERT_EQ_INT(KIX_OK, kix_home_view_cut(&v));
        for (size_t p = 1; p <= v.npages; p++)
            changed += !page_in(&v, p, &base);
        for (size_t p = 1; p <= base.npages; p++)
            gone += !page_in(&base, p, &v);
        ASSERT_TRUE(changed >= 1 && changed <= 2 && gone <= 2);
        most = changed > most ? changed : most;
        starts += v.npages != base.npages;
    }
    ASSERT_EQ_U64(2, most);  /* the two-page case happened */
    ASSERT_TRUE(starts > 0); /* and a new row made or unmade a page */
    free(base.rows);
    free(base.page_first);
    free(v.rows);
    free(v.page_first);
}

KIX_TEST_MAIN()
