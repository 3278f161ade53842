/* The browsing pages of the static site (kix_pages_export, kix/pages.h):
 * the home pages, the search index and the kernel pages. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/file.h"
#include "kix/pages.h"
#include "web_internal.h"

struct bexport {
    struct kix_source *r;
    const char *dir;
    struct kix_buf body;
    struct kix_pages_export_stats *stats;
    struct kix_err *err;
};

/* DIR/sub/name holding the body (sub "" for the root). */
static int put(struct bexport *x, const char *sub, const char *name)
{
    return kix__export_file(x->dir, sub, name, &x->body, x->stats, x->err);
}

/* Whether DIR/sub/name holds exactly body. */
static int holds(struct bexport *x, const char *sub, const char *name, const struct kix_buf *body)
{
    struct kix_buf old = KIX_BUF_INIT;
    char path[4400];
    int same;

    snprintf(path, sizeof(path), "%s/%s/%s", x->dir, sub, name);
    same = kix_file_read(path, body->len + 1, &old, NULL) == KIX_OK && old.len == body->len &&
           memcmp(old.ptr, body->ptr, old.len) == 0;
    kix_buf_release(&old);
    return same;
}

/* DIR/sub/name holding the body, left as it is when it holds it already
 * (a search shard whose rows did not change): O(changed rows) a re-export. */
static int put_changed(struct bexport *x, const char *sub, const char *name)
{
    return holds(x, sub, name, &x->body) ? KIX_OK : put(x, sub, name);
}

/* DIR/sub/name and DIR/sub/name.html, an HTML page (the pages link to the
 * .html name). */
static int put_page(struct bexport *x, const char *sub, const char *name)
{
    return kix__export_page(x->dir, sub, name, &x->body, x->stats, x->err);
}

static int str_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* sweeps/<id>.html holding html, left as it is when it does already: a
 * sweep's page changes only with its own points (kix__kernel_sweep_pages). */
static int put_sweep(void *ctx, const char *id, const struct kix_buf *html)
{
    struct bexport *x = ctx;
    char name[48];

    snprintf(name, sizeof(name), "%s.html", id);
    if (holds(x, "sweeps", name, html))
        return KIX_OK;
    return kix__export_file(x->dir, "sweeps", name, html, x->stats, x->err);
}

/* The kernels whose groups are among `groups` (sorted digest texts), or
 * every kernel when all is set: their pages and their sweeps' pages. */
static int kernel_pages(struct bexport *x, const struct kix_home_view *v, const char *const *groups,
                        size_t ngroups, int all, uint64_t *written)
{
    struct kix_buf json = KIX_BUF_INIT;
    int rc = KIX_OK;

    for (size_t k = 0; rc == KIX_OK && k < v->nkernels; k++) {
        const struct kix_home_count *c = &v->kernels[k];
        char name[80];
        int changed = all;
        for (size_t i = c->first_row; !changed && i < c->first_row + c->groups; i++) {
            const char *key = v->rows[i].group;
            changed = ngroups && bsearch(&key, groups, ngroups, sizeof(*groups), str_order) != NULL;
        }
        /* a kernel name that is no file name ("", "..") gets no page */
        if (!changed || !*c->name || c->name[0] == '.' || strchr(c->name, '/'))
            continue;
        kix_buf_reset(&x->body);
        kix_buf_reset(&json);
        rc = kix__kernel_page_exported(x->r, c->name, strlen(c->name), &x->body, &json, x->err);
        if (rc == KIX_OK)
            rc = put_page(x, "kernels", c->name);
        kix_buf_reset(&x->body);
        if (rc == KIX_OK && kix_buf_add(&x->body, json.ptr, json.len) != KIX_OK)
            rc = kix_err_set(x->err, KIX_ENOMEM, "out of memory");
        snprintf(name, sizeof(name), "%s.json", c->name);
        if (rc == KIX_OK)
            rc = put(x, "kernels", name);
        if (rc == KIX_OK)
            rc = kix__kernel_sweep_pages(x->r, c->name, strlen(c->name), put_sweep, x, x->err);
        if (rc == KIX_OK)
            (*written)++;
    }
    kix_buf_release(&json);
    return rc;
}

/* Whether `file` in home/ or search/ is one this export wrote: a home
 * page's name (and its .html twin) in home/, but page 1's (index.html);
 * a page's shard, index.json or pages.json in search/. `names` holds the
 * pages' names sorted (page 1's too: its shard is named by it). */
static int file_current(const char *file, int in_search, const char **names, size_t n,
                        const char *first)
{
    char stem[80];
    size_t len = strlen(file);
    const char *key = stem;

    if (in_search && (strcmp(file, "index.json") == 0 || strcmp(file, "pages.json") == 0))
        return 1;
    if (len > 5 && strcmp(file + len - 5, in_search ? ".json" : ".html") == 0)
        len -= 5;
    else if (in_search)
        return 0;
    if (len >= sizeof(stem))
        return 0;
    memcpy(stem, file, len);
    stem[len] = '\0';
    if (!in_search && strcmp(stem, first) == 0)
        return 0;
    return bsearch(&key, names, n, sizeof(*names), str_order) != NULL;
}

/* Removes what an earlier export wrote in DIR/home and DIR/search that
 * names no current page: a page whose first group no longer starts one
 * (a group now sorts before it on its page), and the numbered pages and
 * shards (home/<k>, search/<n>.json) that copies wrote before pages were
 * named by their first group. Written files first, removed last: a reader
 * between them follows a link to a page that is still there. */
static int remove_stale(struct bexport *x, const char **names, size_t n, const char *first,
                        int in_search)
{
    char sub_dir[4400];
    DIR *d;
    struct dirent *e;
    int rc = KIX_OK;

    snprintf(sub_dir, sizeof(sub_dir), "%s/%s", x->dir, in_search ? "search" : "home");
    if (!(d = opendir(sub_dir)))
        return errno == ENOENT
                   ? KIX_OK
                   : kix_err_set(x->err, KIX_EIO, "cannot read %s: %s", sub_dir, strerror(errno));
    while (rc == KIX_OK && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && !file_current(e->d_name, in_search, names, n, first))
            rc = kix__export_remove(x->dir, in_search ? "search" : "home", e->d_name, x->err);
    closedir(d);
    return rc;
}

int kix__browse_export(struct kix_source *r, const char *dir, const char *const *groups,
                       size_t ngroups, int all, struct kix_pages_export_stats *stats,
                       struct kix_err *err)
{
    struct bexport x = {r, dir, KIX_BUF_INIT, stats, err};
    struct kix__home_model *m = NULL;
    const char **sorted = NULL, **names = NULL;
    size_t pages;
    char name[96];
    int rc = kix__home_acquire(r, &m, err);

    if (rc)
        return rc;
    pages = kix_home_view_pages(&m->view);
    if (!(names = malloc(pages * sizeof(*names))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* every page, page 1 (index.html) too, holds its rows and what places
     * them alone, not the log's size and counts (those are
     * search/index.json's, which kix-search.js shows), nor its place among
     * the pages: each is named by its first group (kix/view.h), so a new
     * group rewrites its own page alone, and the pages around it when it
     * starts one. A row's data is in its page and its page's search shard,
     * not in a third file: the home JSON an older export wrote goes
     * (PROTOCOL.md §3, "Home rows twice") */
    for (size_t p = 1; rc == KIX_OK && p <= pages; p++) {
        const char *sub = p > 1 ? "home" : "";
        names[p - 1] = kix_home_view_page_name(&m->view, p);
        kix_buf_reset(&x.body);
        rc = kix__home_page_exported(m, p, &x.body, err);
        snprintf(name, sizeof(name), "%s", p > 1 ? names[p - 1] : "index.html");
        if (rc == KIX_OK && !holds(&x, sub, name, &x.body)) { /* index.html: no twin */
            rc = p > 1 ? put_page(&x, sub, name) : put(&x, sub, name);
            if (rc == KIX_OK)
                stats->home_pages++;
        }
        if (rc == KIX_OK && p == 1 && all)
            rc = kix__export_remove(dir, "", "index.json", err);
        if (rc != KIX_OK || !m->view.nrows)
            continue;
        kix_buf_reset(&x.body);
        snprintf(name, sizeof(name), "%s.json", names[p - 1]);
        if ((rc = kix__search_shard_exported(m, p, &x.body, err)) == KIX_OK &&
            !holds(&x, "search", name, &x.body) && (rc = put(&x, "search", name)) == KIX_OK)
            stats->search_shards++;
    }
    kix_buf_reset(&x.body);
    if (rc == KIX_OK && (rc = kix__search_pages_exported(m, &x.body, err)) == KIX_OK)
        rc = put_changed(&x, "search", "pages.json");
    kix_buf_reset(&x.body);
    if (rc == KIX_OK && (rc = kix__search_index_exported(m, &x.body, err)) == KIX_OK)
        rc = put(&x, "search", "index.json");
    if (rc == KIX_OK && pages > 1)
        qsort(names, pages, sizeof(*names), str_order);
    for (int in_search = 0; rc == KIX_OK && in_search < 2; in_search++)
        rc = remove_stale(&x, names, m->view.nrows ? pages : 0,
                          kix_home_view_page_name(&m->view, 1), in_search);
    if (rc == KIX_OK && ngroups && !(sorted = malloc(ngroups * sizeof(*sorted))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK) {
        if (ngroups)
            memcpy(sorted, groups, ngroups * sizeof(*sorted));
        if (ngroups > 1)
            qsort(sorted, ngroups, sizeof(*sorted), str_order);
        rc = kernel_pages(&x, &m->view, sorted, ngroups, all, &stats->kernels);
    }
    free(sorted);
    free(names);
    kix_buf_release(&x.body);
    kix__home_put(m);
    return rc;
}
