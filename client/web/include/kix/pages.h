/* kix/pages.h — the index on the web: a run's permalink page
 * (https://<origin>/runs/<runId>) as HTML and as JSON, a comparison group's
 * page and JSON, and a home page, rendered from the views of kix/view.h
 * (one read snapshot each). The pages read nothing but those views: the
 * log reaches them as a struct kix_source (kix/source.h), a server's store
 * read as one (kix_source_open_snapshot: one read snapshot for a page or
 * an export), and only the views read it (tools/check-layers.py). The JSON is the view document
 * itself; the HTML is the page templates in client/web/templates/ filled by the template engine
 * (kix/template.h), with the view embedded as
 * <script type="application/json" id="kix-view"> and the data-kix-slot
 * elements the page's script (KIX_PAGE_SCRIPT_PATH) fills from what it
 * proves in the reader's browser (proto/PROTOCOL.md §"Run pages"). The
 * pages need no third-party resource; their links are relative to the
 * site's root (runs/…, groups/…, tile/…, style.css), so the same pages work
 * from kixd --http and from a static copy. Nothing here is verified for
 * the reader: the page is the server's word until its script (or kix show)
 * checks it against the tiles and the signed index.
 *
 * Memory: output is appended to a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such run or group), KIX_EINVAL (a malformed
 * run id or group key), KIX_ECORRUPT (a stored manifest does not parse),
 * KIX_ENOMEM, and the source's errors.
 */
#ifndef KIX_PAGES_H
#define KIX_PAGES_H

#include "kix/api.h"

#include "kix/tlog_tiles.h"
#include "kix/view.h"

/* The run `run_id` (len bytes) as JSON (one object) or HTML. */
KIX_API int kix_page_run_json(struct kix_source *src, const char *run_id, size_t len,
                              struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_run_html(struct kix_source *src, const char *run_id, size_t len,
                              struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* The comparison group whose key is the digest text `key` ("sha256:…"):
 * its first page of runs, best first (KIX_VIEW_GROUP_MAX at most), as the
 * export writes it (its links to the next pages name their files). */
KIX_API int kix_page_group_json(struct kix_source *src, const char *key, size_t len,
                                struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_group_html(struct kix_source *src, const char *key, size_t len,
                                struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
/* Page `page` (1-based) of the group: ranks (page - 1) * KIX_VIEW_GROUP_MAX
 * + 1 on (no row past the group's end). Its links to other pages are
 * ?page=N (kixd), or with KIX_PAGE_EXPORTED the export's files
 * groups/<key>-N (page 1 is groups/<key>). */
#define KIX_PAGE_EXPORTED 1u
KIX_API int kix_page_group_json_at(struct kix_source *src, const char *key, size_t len,
                                   uint64_t page, struct kix_buf *out,
                                   struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_group_html_at(struct kix_source *src, const char *key, size_t len,
                                   uint64_t page, unsigned flags, struct kix_buf *out,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* The home page: the log's size, the kernels and GPUs it ranks with
 * their counts, and its comparison groups (kix_home_view), in pages cut
 * by their rows (kix/view.h): page 1 at the site's root (index.html, JSON
 * index.json), page k > 1 at home/<name> (home/<name>.json; <name>:
 * kix_home_view_page_name), which kixd also answers as home/<k>. A search
 * form (kix-search.js, hidden without JavaScript) filters every group
 * through the search index. The home view is built once per log state and
 * shared by these pages, the search index and the kernel pages
 * (client/web/home_page.c). */
KIX_API int kix_page_home_html(struct kix_source *src, struct kix_buf *out,
                               struct kix_err *err) KIX_MUST_CHECK; /* page 1 */
KIX_API int kix_page_home_page_html(struct kix_source *src, size_t page, struct kix_buf *out,
                                    struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_home_json(struct kix_source *src, size_t page, struct kix_buf *out,
                               struct kix_err *err) KIX_MUST_CHECK;

/* The search index kix-search.js reads: search/index.json (KIX_VIEW_SEARCH:
 * the log's counts, the columns, every facet's values with counts),
 * search/pages.json (KIX_VIEW_SEARCH_PAGES: every home page by name, in
 * order, with the facet values its rows hold, so a filter fetches only
 * the shards that can match) and search/<name>.json
 * (KIX_VIEW_SEARCH_SHARD: the rows of home page <name>, in home order, one
 * array per group; kix_page_search_shard takes the page's number). */
#define KIX_VIEW_SEARCH       "kix.search/2"
#define KIX_VIEW_SEARCH_PAGES "kix.search-pages/1"
#define KIX_VIEW_SEARCH_SHARD "kix.search-shard/2"
KIX_API int kix_page_search_index(struct kix_source *src, struct kix_buf *out,
                                  struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_search_pages(struct kix_source *src, struct kix_buf *out,
                                  struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_search_shard(struct kix_source *src, size_t page, struct kix_buf *out,
                                  struct kix_err *err) KIX_MUST_CHECK;

/* The kernel `kernel` (len bytes): kernels/<kernel> (HTML, with an SVG
 * chart of each sweep) and kernels/<kernel>.json (kix_kernel_view). */
KIX_API int kix_page_kernel_html(struct kix_source *src, const char *kernel, size_t len,
                                 struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_page_kernel_json(struct kix_source *src, const char *kernel, size_t len,
                                 struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* The browsing pages by their path from the site's root (no leading '/'):
 * index.json, home/<name>[.json] (and home/<k>[.json]),
 * kernels/<kernel>[.json], search/index.json, search/pages.json and
 * search/<name>.json. kix_page_browse_path says whether a path is one of
 * them (1) or not (0: another route's). kix_page_browse renders it; a page
 * with both forms is JSON when the path ends in ".json" or want_json is
 * set (an Accept header), and *is_json says which it wrote.
 * KIX_ENOTFOUND: no such page. */
KIX_API int kix_page_browse_path(const char *path, size_t len);
KIX_API int kix_page_browse(struct kix_source *src, const char *path, size_t len, int want_json,
                            struct kix_buf *out, int *is_json, struct kix_err *err) KIX_MUST_CHECK;

/* Writes the pages into `dir` (created if missing) as files, for a static
 * web server next to the tlog-tiles export: runs/<name>.html (the page,
 * the name the pages link to, which every server types as HTML; also as
 * runs/<name>, a hard link, the permalink; <name>: the run's page name,
 * kix_run_page_name), groups/<key>[.html|.json],
 * groups/<key>-<N>[.html|.json], index.html, index.json,
 * home/<name>[.html], kernels/<kernel>[.html|.json], search/index.json,
 * search/pages.json, search/<name>.json, kix-verify.js, kix-search.js and style.css. A run's
 * page embeds the copy's view (KIX_VIEW_JSON_EXPORT: no objects and no
 * index proofs, which its verifier reads from objects/ and index/); a
 * group's page is kix_page_group_html's without #kix-view: its verifier
 * reads the view from the .json beside it. Incremental: DIR/runs/.size
 * remembers the log size the pages were written for (written last), and
 * only the runs that entries since then are about are rewritten, with every
 * run of their comparison groups (whose ranks may have moved) and those
 * groups' pages, and the kernel pages of those groups' kernels; the home
 * pages and the search index are written whole each time. The first
 * export writes every page. Each file is written atomically. stats (may be NULL): what was written.
 */
struct kix_pages_export_stats {
    uint64_t from_size, size; /* the log sizes before and after */
    uint64_t runs, groups;    /* pages written */
    uint64_t kernels, home_pages, search_shards;
    /* every file name written (a page's .html hard link included) and the
     * bytes written (a hard link writes none) */
    uint64_t files, bytes;
    /* runs logged outside the run-id grammar (kix_run_id_check: by an
     * older origin) written under an escaped name (kix_run_page_name); the
     * first one's id, name and rule, for the caller's log ("" when none) */
    uint64_t escaped;
    char escaped_example[KIX_ERR_MSG_MAX];
    /* runs without a page: ids too long to name a file once escaped; the
     * first one's reason ("" when none) */
    uint64_t skipped;
    char skipped_reason[KIX_ERR_MSG_MAX];
};

/* The in-browser verifier every page references (client/web/static/
 * kix-verify.js, compiled in) and the pages' style sheet (client/web/
 * style.css): served and exported at the site root as KIX_PAGE_SCRIPT_PATH
 * and KIX_PAGE_STYLE_PATH. *out borrows static storage. */
#define KIX_PAGE_SCRIPT_PATH "kix-verify.js"
#define KIX_PAGE_STYLE_PATH  "style.css"
/* The log's verifier key text and "\n" (kix trust of a static copy). */
#define KIX_PAGE_VKEY_PATH "log.vkey"
/* The home page's filter (client/web/static/kix-search.js), likewise. */
#define KIX_PAGE_SEARCH_PATH "kix-search.js"
KIX_API void kix_page_search_script(struct kix_bytes *out);
/* The run page's "Add a reproduction or note" (client/web/static/
 * kix-write.js: a key in the browser, the entry signed there, POST
 * /submit), likewise. */
#define KIX_PAGE_WRITE_PATH "kix-write.js"
KIX_API void kix_page_write_script(struct kix_bytes *out);
/* Where run pages send what a reader signs (PROTOCOL.md §3.4): an absolute
 * URL, or a path from the site's root ("submit" for kixd's own
 * --http-submit); NULL or "" (the default): the pages offer no writing.
 * Set once, before pages are rendered (kixd at start); the text is copied. */
KIX_API void kix_pages_set_submit_url(const char *url);
KIX_API void kix_page_script(struct kix_bytes *out);
KIX_API void kix_page_style(struct kix_bytes *out);

/* Whether a log entry (its leaf) is a run's publication whose exported
 * run page may embed its manifest (the page named by the run id itself,
 * in the grammar: PROTOCOL.md §3, "One manifest a run"): then *manifest
 * is set and the answer is KIX_TLOG_KEPT_EXACTLY when src (the snapshot
 * the pages are rendered from; NULL: not asked) holds this manifest as
 * the run's, so that its page embeds exactly it, else KIX_TLOG_KEPT_MAYBE
 * (a publication the index refused: its id was taken); 0 when no page
 * embeds it. What kixd gives kix_log_export_tlog_linked as `elsewhere`
 * (kix/tlog_tiles.h), so that a copy holds such a manifest in its page,
 * and once its bundle is full in the bundle's pack, without an objects/
 * file of its own. */
KIX_API int kix_pages_manifest_in_page(struct kix_source *src, const uint8_t *leaf, size_t len,
                                       struct kix_digest *manifest);

/* src: the store as one snapshot (kix_source_open_snapshot; kixd gives
 * the snapshot its --ack-replicas mirrors hold). */
KIX_API int kix_pages_export(struct kix_source *src, const char *dir,
                             struct kix_pages_export_stats *stats,
                             struct kix_err *err) KIX_MUST_CHECK;

/* Another source of src's snapshot for one export thread (*out closed by
 * the export with kix_source_close). A source of another log size is
 * refused by the export, which then renders on one thread: a page is the
 * same bytes whichever thread renders it. */
typedef int (*kix_pages_source_fn)(void *ctx, struct kix_source **out, struct kix_err *err);
/* kix_pages_export with the run and group pages rendered on `threads`
 * threads (each with a source from more(ctx)), each thread a contiguous
 * shard of the sorted pages; the copy is byte-identical to a one-thread
 * export's. threads <= 1 or more NULL: kix_pages_export. */
KIX_API int kix_pages_export_threads(struct kix_source *src, kix_pages_source_fn more, void *ctx,
                                     int threads, const char *dir,
                                     struct kix_pages_export_stats *stats,
                                     struct kix_err *err) KIX_MUST_CHECK;

#endif
