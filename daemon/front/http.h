/* daemon/front/http.h — kixd's HTTP/1.1 side (http.c): the log's read side as
 * C2SP tlog-tiles resources (checkpoint, tile/..., tile/entries/...), the
 * run and group pages, the witness's add-checkpoint and, with
 * --http-metrics, /metrics in the Prometheus text format (metrics.h). The
 * exporter thread that writes the same resources to a directory is
 * export.h's.
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
 * A full bundle is assembled from its leaves once, kept as a file in the
 * store and sent from it with sendfile(2) (http_bundles.h); partial ones
 * are assembled each time.
 * Pages are rendered on the thread pool; one rendered in the last second
 * at the log's current size is answered from memory (http_pages_cache.h).
 * Every 200 carries a strong ETag (BLAKE2b-128 of the body) and
 * If-None-Match gets 304.
 */
#ifndef KIXD_HTTP_H
#define KIXD_HTTP_H

#include <stdint.h>

#include "server.h"

/* Loop thread: a connection arrived on an HTTP listener. */
void kixd_http_accept(struct kixd_worker *w, uv_stream_t *server);
/* Loop thread: closes idle and trickling HTTP connections. */
void kixd_http_sweep(struct kixd_worker *w);
/* Loop thread, stopping: closes every HTTP connection not writing. */
void kixd_http_stop_all(struct kixd_worker *w);

#endif
