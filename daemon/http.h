/* daemon/http.h — kixd's HTTP/1.1 side (http.c): the log's read side as
 * C2SP tlog-tiles resources (checkpoint, tile/..., tile/entries/...) and,
 * with --http-metrics, /metrics in the Prometheus text format; and the
 * exporter thread that keeps a tlog-tiles directory current (export.c).
 *
 * HTTP connections live on the same worker loops as RPC ones, in their own
 * list (w->hconns), and count against the same --max-connections. Requests
 * are parsed by Node's http-parser, one at a time: after each request the
 * parser pauses until the answer is below --max-output, so a pipelining
 * client that does not read costs one answer and one input buffer of
 * --http-max-header bytes (a request line and headers that do not fit get
 * 431). Only GET and HEAD, without a body; anything else gets 405 or 413
 * and the connection closes. Idle connections, and requests that trickle
 * in for longer than --idle-timeout, are closed by the worker's sweep.
 *
 * Answers come from one read snapshot per request. Full tiles and entry
 * bundles are immutable (Cache-Control: public, max-age=31536000,
 * immutable); the checkpoint and partial ones are cached for 5 seconds.
 * Every 200 carries a strong ETag (BLAKE2b-128 of the body) and
 * If-None-Match gets 304.
 */
#ifndef KIXD_HTTP_H
#define KIXD_HTTP_H

#include <stdint.h>

#include "server.h"

/* The server's counters for /metrics; made at start, freed at exit. */
int kixd_metrics_new(struct kixd_server *srv);
void kixd_metrics_free(struct kixd_server *srv);
/* Any thread: the log grew to `size` (one commit or replay batch). */
void kixd_metrics_grew(struct kixd_server *srv, uint64_t size);
/* Loop thread: an RPC request for method number `slot` (its index in
 * dispatch.c's table; KIXD_RPC_UNKNOWN for an unknown name) was dispatched
 * (ok = 0: answered with an error; a submit counts when queued). */
#define KIXD_RPC_SLOTS   48u
#define KIXD_RPC_UNKNOWN (KIXD_RPC_SLOTS - 1)
void kixd_metrics_rpc(struct kixd_server *srv, unsigned slot, const char *name, int ok);
/* Any thread: an export finished (ok = 0 failed) after `ms` milliseconds. */
void kixd_metrics_exported(struct kixd_server *srv, int ok, uint64_t size, double ms);

/* Loop thread: a connection arrived on an HTTP listener. */
void kixd_http_accept(struct kixd_worker *w, uv_stream_t *server);
/* Loop thread: closes idle and trickling HTTP connections. */
void kixd_http_sweep(struct kixd_worker *w);
/* Loop thread, stopping: closes every HTTP connection not writing. */
void kixd_http_stop_all(struct kixd_worker *w);
/* Frees the worker's cache of full entry bundles (worker teardown). */
void kixd_http_cache_free(struct kixd_worker *w);

/* export.c: a thread that runs kix_log_export_tlog into dir at start and
 * after every kick (coalesced). stop runs a last export when one is due. */
int kixd_export_start(struct kixd_server *srv, const char *dir, struct kixd_export **out,
                      struct kix_err *err);
void kixd_export_kick(struct kixd_export *e); /* any thread; NULL: no-op */
void kixd_export_stop(struct kixd_export *e); /* NULL: no-op */

#endif
