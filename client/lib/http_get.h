/* http_get.h — GET over HTTP(S) for the HTTP source (source_http.c), with
 * libcurl: one connection reused (keep-alive), the system CA store or a
 * CA file, connect and total timeouts, retries with backoff for what a
 * flaky CDN answers (5xx, 429, timeouts, refused or reset connections),
 * and a bound on every body read. A batch (http_get_many) keeps up to
 * HTTP_GET_WINDOW of its GETs in flight over as many kept-alive
 * connections, each GET with the same timeouts, retries and bound, and
 * hands their answers back in request order. Private to client/lib.
 *
 * Memory: the struct owns its curl handles (http_get_close frees them); a
 * body is appended to the caller's buffer; a batch holds at most
 * HTTP_GET_WINDOW bodies at a time.
 *
 * Errors: KIX_ENOTFOUND for 404 and 410, KIX_ELIMIT for a body over its
 * bound, KIX_EPROTO for another status, KIX_EUNAVAIL when the server
 * cannot be reached or keeps failing after the retries, KIX_ENOMEM.
 */
#ifndef KIX_HTTP_GET_H
#define KIX_HTTP_GET_H

#include "kix/buf.h"
#include "kix/error.h"

struct http_get_opts {
    const char *cacert;      /* a PEM file of CAs instead of the system's, or NULL */
    long connect_timeout_ms; /* 0: 10 s */
    long timeout_ms;         /* per request, 0: 30 s */
    int retries;             /* after the first try; <0: 3 */
};

struct http_get;

int http_get_open(const char *base, const struct http_get_opts *opts, struct http_get **out,
                  struct kix_err *err) KIX_MUST_CHECK;
void http_get_close(struct http_get *h);
/* GETs base + path, appending at most max bytes of body to out (more:
 * KIX_ELIMIT, out as it was). */
int http_get(struct http_get *h, const char *path, size_t max, struct kix_buf *out,
             struct kix_err *err) KIX_MUST_CHECK;
/* GETs in flight at once in a batch, and the connections they use. */
#define HTTP_GET_WINDOW 8

/* The path (relative to the base) of a batch's item i, into path[cap]:
 * KIX_OK, or an error that stops the batch. */
typedef int (*http_get_path_fn)(void *ctx, size_t i, char *path, size_t cap);
/* A batch's item i, in request order: rc is KIX_OK with its body (the
 * callee may take body's memory, leaving *body as KIX_BUF_INIT), or the
 * error the single GET would return for it, described in err. A return
 * other than KIX_OK stops the batch, which then returns it. */
typedef int (*http_get_item_fn)(void *ctx, size_t i, int rc, struct kix_buf *body,
                                struct kix_err *err);

/* GETs n paths, each body bounded by max, calling item once per path in
 * order until it returns an error. */
int http_get_many(struct http_get *h, size_t n, size_t max, http_get_path_fn path,
                  http_get_item_fn item, void *ctx, struct kix_err *err) KIX_MUST_CHECK;

/* Requests made and body bytes read, for accounting. */
void http_get_stats(const struct http_get *h, unsigned long long *requests,
                    unsigned long long *bytes);

#endif
