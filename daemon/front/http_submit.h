/* daemon/front/http_submit.h — writes over HTTP: POST /submit (PROTOCOL.md §3.4).
 *
 * kixd serve --http-submit takes on its --http listeners the JSON body of
 * kix/submit_body.h (what `kix publish|attest|rerun --sign-only` print) and
 * submits it through the same path as the msgpack `submit`: the same
 * admission (prepared on the thread pool, --max-submit-bytes), policy,
 * limits, group commit and --ack-replicas wait. The answer is JSON: the
 * receipt (201), the entry already logged (409), or the error object that
 * `kix --json` prints, with a status that says its kind.
 *
 * Browsers: a request with an Origin header is taken only from the pages
 * of this kixd (Origin names the Host asked) or from --http-submit-origin,
 * which alone gets CORS headers. Loop thread only.
 */
#ifndef KIXD_HTTP_SUBMIT_H
#define KIXD_HTTP_SUBMIT_H

#include <stddef.h>

#include "config.h"
#include "server.h"

struct kixd_http_conn;

/* 1 when a browser page of `origin` may POST /submit to this kixd, asked
 * as `host` (the Host header): --http-submit-origin, or this host itself. */
int kixd_http_submit_origin_allowed(const struct kixd_config *cfg, const char *origin,
                                    const char *host);
/* Answers a /submit refused before its body was read (code: 400 empty,
 * 403 origin, 404 --http-submit off, 405 method, 411 length, 413 size,
 * 503 no memory) with a JSON error that says why and what to do. */
void kixd_http_submit_refuse(struct kixd_http_conn *c, unsigned code,
                             const struct kixd_config *cfg);
/* The msgpack submit's share of the rate limits: an open note (a key no
 * registration names, PROTOCOL.md §5.4) counts against its address (peer
 * without its port) and its signing key as a POST /submit does. 1 when
 * over --http-submit-rate (why says so and when to retry), else 0 (a token
 * taken). Any thread. */
int kixd_open_note_limited(const struct kixd_config *cfg, const char *peer,
                           const uint8_t signer[32], char *why, size_t cap);
/* POST /enroll (with --http-submit): a key asks the log's admin for roles.
 * The request is kept outside the log, in --enroll-dir (STORE/enroll):
 * KEYID.pub (the key line, as kix keygen writes it) and KEYID.json (roles,
 * note, when, from where), at most 1000 pending; the admin lists them with
 * kix key pending and approves one with kix key approve, a normal key
 * entry. 202 {"keyId", "pending": true, ...}; 409 when asked already or
 * registered; JSON errors as /submit's. Takes body (malloc'ed). */
void kixd_http_enroll(struct kixd_http_conn *c, struct kixd_worker *w, char *body, size_t len,
                      const char *peer);
/* GET /policy: the log's admission policy in force (PROTOCOL.md §3.4),
 * {"openNotes", "noteWork", "index"}, what a page asks before it signs an
 * open note; the log still decides each entry by its own policy. */
void kixd_http_policy(struct kixd_http_conn *c, struct kixd_worker *w);
/* Answers a CORS preflight (OPTIONS /submit) of an allowed origin. */
void kixd_http_submit_preflight(struct kixd_http_conn *c);
/* Takes body (malloc'ed, len bytes) and submits it; the answer comes later. */
void kixd_http_submit_start(struct kixd_http_conn *c, struct kixd_worker *w, char *body, size_t len,
                            const char *peer);

#endif
