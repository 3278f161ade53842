/* daemon/front/http_internal.h — what http.c lends the writes over HTTP
 * (http_submit.c): answering a request that waited, and holding its
 * connection meanwhile. Loop thread only; the connection stays http.c's. */
#ifndef KIXD_HTTP_INTERNAL_H
#define KIXD_HTTP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct kixd_http_conn;

/* Appends an answer of status `code` with a JSON body (never cached);
 * extra_headers: whole "Name: value\r\n" lines, or NULL. */
void kixd_http_answer_json(struct kixd_http_conn *c, unsigned code, const char *extra_headers,
                           const uint8_t *body, size_t len);
/* The answer will come later: the connection reads nothing more and stays
 * alive until kixd_http_resume. */
void kixd_http_hold(struct kixd_http_conn *c);
/* 1 when the connection closed meanwhile (answer nothing). */
int kixd_http_closing(const struct kixd_http_conn *c);
/* The late answer is appended (or not, if closing): sends it, reads on,
 * and drops kixd_http_hold's reference. */
void kixd_http_resume(struct kixd_http_conn *c);

#endif
