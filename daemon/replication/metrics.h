/* daemon/replication/metrics.h — kixd's counters (metrics.c) and their Prometheus text
 * for /metrics (--http-metrics; proto/PROTOCOL.md lists every series).
 *
 * One struct kixd_metrics per server (srv->metrics), made at start and
 * freed at exit; every counter is atomic, so any thread may count. Each
 * function is a no-op while srv->metrics is NULL. */
#ifndef KIXD_METRICS_H
#define KIXD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "server.h"

/* The server's counters for /metrics; made at start (KIX_ENOMEM), freed at
 * exit. */
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

/* What an HTTP answer was about: the `path` label of
 * kixd_http_requests_total. */
enum kixd_http_kind {
    KIXD_HTTP_CHECKPOINT,
    KIXD_HTTP_TILE,
    KIXD_HTTP_ENTRIES,
    KIXD_HTTP_METRICS,
    KIXD_HTTP_PAGE,
    KIXD_HTTP_WITNESS, /* add-checkpoint and the witness's monitoring path */
    KIXD_HTTP_SUBMIT,  /* POST /submit (http_submit.c) */
    KIXD_HTTP_OTHER,
    KIXD_HTTP_KINDS
};
/* Loop thread: an HTTP connection was accepted. */
void kixd_metrics_http_accepted(struct kixd_server *srv);
/* Any thread: an HTTP answer of `kind` with status `code`, `bytes` long
 * (headers and body). */
void kixd_metrics_http_answer(struct kixd_server *srv, int kind, unsigned code, size_t bytes);

/* Any thread: a page or its JSON was rendered (not answered from the
 * pages of the last second, http_pages_cache.h). */
void kixd_metrics_page_rendered(struct kixd_server *srv);

/* Loop thread of w: appends the Prometheus text exposition (version 0.0.4)
 * of every counter to out, reading the log's size from w's snapshot.
 * KIX_ENOMEM when out cannot grow. */
int kixd_metrics_text(struct kixd_worker *w, struct kix_buf *out);

#endif
