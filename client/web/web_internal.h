/* client/web's own helpers, shared by its files; not public. */
#ifndef KIX_WEB_INTERNAL_H
#define KIX_WEB_INTERNAL_H

#include <pthread.h>

#include "kix/template.h"
struct kix_pages_export_stats;
#include "kix/view.h"

/* The home view of one log state (its size and signed checkpoint), built
 * once and shared: the home pages, the search index and the kernel pages
 * all read it, and building it reads every ranked group's best run
 * (home_page.c). Reference counted: kix__home_put after use. */
enum {
    KIX__FACET_KERNEL,
    KIX__FACET_GPU,
    KIX__FACET_PROVIDER,
    KIX__FACET_DTYPE,
    KIX__FACET_PASS,
    KIX__NFACETS
};

/* The distinct values of one field of the rows, sorted, with how many
 * groups have each (the search form's lists). Names borrow the rows. */
struct kix__facet {
    const char **names;
    uint64_t *groups;
    size_t n;
};

struct kix__home_model {
    int refs;
    struct kix_buf key; /* the log state it was built for */
    struct kix_home_view view;
    struct kix__facet facets[KIX__NFACETS];
    /* pages rendered from it, kept (home_page.c's memo_render) */
    pthread_mutex_t mu;
    struct kix_buf *memo;
    size_t nmemo, memo_bytes, memo_pages_at; /* the first slot of a page */
};

/* The pages kept with a model, at most this many bytes (home_page.c); the
 * search index and its shards are kept besides. */
#define KIX__MEMO_MAX (64u << 20)
/* 1 and the bytes of memo slot `slot` appended to out (*rc: their
 * append's code) when the slot holds a page; else 0. */
int kix__memo_get(struct kix__home_model *m, size_t slot, struct kix_buf *out, int *rc);
/* Keeps *bytes (taken: *bytes is left empty) in slot `slot` unless it is
 * taken, out of range or over KIX__MEMO_MAX. */
void kix__memo_put(struct kix__home_model *m, size_t slot, struct kix_buf *bytes);
/* The slot of kernel `kernel`'s page (json: its JSON), or SIZE_MAX. */
size_t kix__memo_kernel_slot(const struct kix__home_model *m, const char *kernel, size_t len,
                             int json);

/* The home_row field of facet f. */
const char *kix__facet_value(const struct kix_home_row *row, int f);

int kix__home_acquire(struct kix_source *r, struct kix__home_model **out,
                      struct kix_err *err) KIX_MUST_CHECK;
void kix__home_put(struct kix__home_model *m);
/* Home page `page` as a static copy writes it (PROTOCOL.md §3, the home
 * view): its HTML alone, without the embedded view, the log's size and
 * counts, so that it is the same file until its rows change; its "JSON"
 * link names the search shard that holds its rows (no home JSON in a copy). */
int kix__home_page_exported(struct kix__home_model *m, size_t page, struct kix_buf *html,
                            struct kix_err *err);

/* The search index, the list of pages and page `page`'s shard, from the
 * model the export holds (one log state for every file it writes). */
int kix__search_index_exported(struct kix__home_model *m, struct kix_buf *out,
                               struct kix_err *err) KIX_MUST_CHECK;
int kix__search_pages_exported(struct kix__home_model *m, struct kix_buf *out,
                               struct kix_err *err) KIX_MUST_CHECK;
int kix__search_shard_exported(struct kix__home_model *m, size_t page, struct kix_buf *out,
                               struct kix_err *err) KIX_MUST_CHECK;

/* Sets `slot` to the address of run_id's page relative to the runs/
 * directory: its page name (kix_run_page_name) and ".html", the name every
 * server types as HTML (PROTOCOL.md §3, "the static copy's layout"). */
int kix__tpl_run_href(struct kix_tpl *t, const char *slot, const char *run_id) KIX_MUST_CHECK;

/* Writes dir/sub/name and dir/sub/name.html (a hard link to it, or a copy
 * where the file system has none) holding `body`, each atomically,
 * counting them in stats' files and bytes (site_export.c). sub "" is the
 * root. */
int kix__export_page(const char *dir, const char *sub, const char *name, const struct kix_buf *body,
                     struct kix_pages_export_stats *stats, struct kix_err *err) KIX_MUST_CHECK;
/* dir/sub/name holding `body`, counted likewise (no .html twin). */
int kix__export_file(const char *dir, const char *sub, const char *name, const struct kix_buf *body,
                     struct kix_pages_export_stats *stats, struct kix_err *err) KIX_MUST_CHECK;
/* DIR/sub/name removed (a file an older export wrote that this layout has
 * not); KIX_OK when it was not there. */
int kix__export_remove(const char *dir, const char *sub, const char *name,
                       struct kix_err *err) KIX_MUST_CHECK;

/* Kernel `kernel`'s page (html) and view (json) as a static copy writes
 * them: without the embedded view, and the groups not listed but linked
 * on the home pages that hold their rows (kernel_page.c). */
int kix__kernel_page_exported(struct kix_source *r, const char *kernel, size_t len,
                              struct kix_buf *html, struct kix_buf *json,
                              struct kix_err *err) KIX_MUST_CHECK;

/* Each sweep's page of kernel `kernel` as a static copy writes it,
 * sweeps/<id>.html (the exported kernel page links it): fn gets its id
 * and HTML, in the kernel page's order; its rc ends the walk. */
typedef int (*kix__sweep_page_fn)(void *ctx, const char *id, const struct kix_buf *html);
int kix__kernel_sweep_pages(struct kix_source *r, const char *kernel, size_t len,
                            kix__sweep_page_fn fn, void *ctx, struct kix_err *err) KIX_MUST_CHECK;

/* The slots of one row of a groups table (home.html, kernel.html). */
int kix__group_row_slots(struct kix_tpl *row, const struct kix_home_row *x) KIX_MUST_CHECK;

/* Writes the home pages, the search index and the kernel pages into dir
 * (browse_export.c): every kernel's page when `all`, else those of the
 * kernels of `groups` (digest texts; the groups the export rewrote). */
struct kix_pages_export_stats;
int kix__browse_export(struct kix_source *r, const char *dir, const char *const *groups,
                       size_t ngroups, int all, struct kix_pages_export_stats *stats,
                       struct kix_err *err) KIX_MUST_CHECK;

#endif
