/* daemon/replication/witness_client.h — c2sp.org/tlog-witness, the log's side
 * (witness_client.c); the witness's side is tlog_witness.h.
 *
 * A kixd started with --http-witness "URL KEY" asks that witness for a
 * cosignature of its latest checkpoint after every commit (and retries
 * every few seconds while it has none), over libcurl's multi interface
 * driven by a libuv loop on a thread of its own. A 409 carries the
 * witness's size: the next request is from it. The lines of the witness
 * key in a 200 are verified and stored as add_cosignature stores them
 * (kix_log_add_cosignature); everything else is logged.
 *
 * Memory: the handle is heap-allocated by _new and freed by _stop (NULL is
 * fine). Errors: KIX_EUSAGE for bad configuration, KIX_EIO / KIX_ENOMEM
 * otherwise; messages say which option.
 */
#ifndef KIXD_WITNESS_CLIENT_H
#define KIXD_WITNESS_CLIENT_H

#include "config.h"
#include "kix/buf.h"
#include "kix/error.h"

struct kixd_server;
struct kixd_wclient;

/* Before the log is opened: parses cfg->http_witnesses (KIX_EUSAGE for a
 * bad URL or key); *out stays NULL when there are none. */
int kixd_wclient_new(const struct kixd_config *cfg, struct kixd_wclient **out, struct kix_err *err);
/* Starts its loop and thread on srv's open log (NULL: a no-op). */
int kixd_wclient_start(struct kixd_server *srv, struct kixd_wclient *c, struct kix_err *err);
/* Any thread: the log grew. NULL is fine. */
void kixd_wclient_kick(struct kixd_wclient *c);
/* Any thread: kix_witness_cosigned_size{witness} and
 * kixd_witness_requests_total{witness,result} for /metrics (NULL: none). */
int kixd_wclient_metrics(struct kixd_wclient *c, struct kix_buf *out);
/* Stops and joins the thread if started (requests in flight are
 * abandoned), then frees; NULL is fine. */
void kixd_wclient_stop(struct kixd_wclient *c);

#endif
