/* daemon/front/http_pages_cache.h — the pages and their JSON that kixd --http
 * rendered in the last second, kept per worker (http_pages_cache.c) so a
 * page many readers open at once (a permalink in a paper, a leaderboard)
 * is rendered once a second, not once a request.
 *
 * A page is answered with `Cache-Control: public, max-age=5`: any cache in
 * front of kixd may serve it for five seconds. This cache keeps one for at
 * most KIXD_PAGE_CACHE_MS, and only while the log is at the size it was
 * rendered at, so it is never staler than what kixd already allows every
 * CDN (a witness cosignature or the day of "Accessed" may show up to that
 * much later). Up to KIXD_PAGE_CACHE_SLOTS pages and
 * KIXD_PAGE_CACHE_BYTES per worker; a page over a quarter of that is not
 * kept. The cache copies what it keeps and owns it. Loop thread only (the
 * cache is the worker's).
 */
#ifndef KIXD_HTTP_PAGES_CACHE_H
#define KIXD_HTTP_PAGES_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "server.h"

#define KIXD_PAGE_CACHE_MS    1000u
#define KIXD_PAGE_CACHE_SLOTS 64u
#define KIXD_PAGE_CACHE_BYTES (8u << 20)
#define KIXD_PAGE_ARG_MAX     256u /* longer arguments are not kept */

/* What names a rendered page: its kind (http.c's number for it), the
 * argument from its path, the group page number and whether the JSON
 * document was asked for. */
struct kixd_page_key {
    int kind;
    const char *arg;
    size_t len;
    uint64_t page;
    int json;
};

/* The page `k` rendered at log size `size` less than KIXD_PAGE_CACHE_MS
 * ago: its bytes in *body (the cache's, valid until the next call), in
 * *json whether they are JSON, and 1; else 0. */
int kixd_page_cache_get(struct kixd_worker *w, const struct kixd_page_key *k, uint64_t size,
                        struct kix_bytes *body, int *json);
/* Keeps a copy of page `k` rendered at log size `size` (nothing when it
 * is too big or memory is short: the page is rendered again next time). */
void kixd_page_cache_put(struct kixd_worker *w, const struct kixd_page_key *k, uint64_t size,
                         int json, const uint8_t *body, size_t len);
/* Frees w's cache (worker teardown). */
void kixd_page_cache_free(struct kixd_worker *w);

#endif
