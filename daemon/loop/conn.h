/* daemon/loop/conn.h — one RPC client connection (conn.c): reading and
 * decoding requests within the limits, writing answers, backpressure, idle
 * and half-closed connections. The methods are dispatch.c's, follow
 * streams follow.c's, both floors above this one: a connection reaches them
 * through its server's handlers (server.h, srv->up).
 *
 * Memory: the worker allocates a connection on accept; it is freed when the
 * libuv handle is closed AND nothing refers to it any more (refs: one for
 * the handle, one per write request, one per submit in flight), so a
 * submit finishing after its client left writes nowhere and frees it.
 *
 * Flow control, all per connection: requests are decoded from the
 * kix_proto_reader only while the connection may take more work
 * (kixd_conn_can_process: fewer than max_in_flight unanswered requests and
 * less than max_output bytes of answers not yet written plus submits being
 * processed). Otherwise reading stops (libuv read_stop) until answers drain:
 * a peer that floods and never reads costs at most one reader buffer, one
 * request's work and max_output + one answer. A connection silent (no bytes
 * in, no bytes out) for idle_timeout is closed, except one waiting on us.
 */
#ifndef KIXD_CONN_H
#define KIXD_CONN_H

#include "diag.h"
#include "kix/proto.h"
#include "server.h"

struct kixd_conn {
    union {
        uv_handle_t h;
        uv_stream_t s;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } u;
    struct kixd_worker *w;
    struct kixd_conn *prev, *next; /* the worker's list of open connections */
    struct kix_proto_reader rd;
    struct kix_buf out;    /* answers not yet handed to libuv */
    size_t queued;         /* bytes in libuv write requests */
    size_t inflight_bytes; /* frames of submits being processed */
    unsigned in_flight;    /* requests accepted and not yet answered */
    unsigned refs;
    size_t accounted;                   /* receive buffer bytes counted in srv->read_bytes */
    uint64_t last_active;               /* uv_now() of the last byte in or out */
    uint64_t msg_since;                 /* uv_now() when the message being received began */
    struct kixd_cpu_clock decode_clock; /* --phase-stats: from the current message's decode */
    int reading, closing, eof, stalled, counted;
    int following;        /* a follow stream is open */
    uint64_t follow_next; /* the next entry index it gets */
    int follow_replica;   /* a mirror's stream: to the committed size (replicas.h) */
    char peer[80];
};

void kixd_conn_accept(struct kixd_worker *w, uv_stream_t *server);
/* Closes (idempotent); level and why go to the log. */
void kixd_conn_close(struct kixd_conn *c, int level, const char *why);
/* Hands c->out to libuv: uv_try_write first when allow_try (no write
 * callback follows then), else always a write request. */
void kixd_conn_flush(struct kixd_conn *c, int allow_try);
int kixd_conn_can_process(const struct kixd_conn *c);
/* After in-flight work or output went down: decode buffered requests,
 * restart reading, close a half-closed connection that is done. */
void kixd_conn_resume(struct kixd_conn *c);
void kixd_conn_unref(struct kixd_conn *c);
/* Idle sweep of a worker's connections: closes those silent for
 * idle_timeout, and those whose message in progress has been arriving for
 * longer than idle_timeout (a peer trickling bytes to hold a connection). */
void kixd_conn_sweep(struct kixd_worker *w);
/* Stopping: stop reading everywhere, close follow streams. */
void kixd_conn_stop_all(struct kixd_worker *w);

#endif
