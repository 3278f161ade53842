/* kix/rpc.h — one blocking msgpack-RPC connection to a kixd, with pipelining.
 *
 * For tools, benchmarks and tests that keep many requests in flight on one
 * connection: queue requests (kix_rpc_send, kix_rpc_send_params,
 * kix_rpc_send_raw), write them (kix_rpc_flush), and take whatever the server
 * sends next (kix_rpc_recv): responses in the order the server finished them
 * (match them to requests by msgid) and notifications (follow streams).
 * kix_rpc_call is the one-request-at-a-time shortcut; kix_client
 * (kix/client.h) is built on it. proto/PROTOCOL.md describes the methods.
 *
 * Addresses: "tcp://HOST:PORT" (HOST a name, an IPv4 address or [IPv6]),
 * "unix:///PATH"; a bare "HOST:PORT" means tcp and a bare "/PATH" unix.
 *
 * Blocking and time: every call waits at most opts.timeout_ms for the socket
 * to make progress (default 30 s). kix_rpc_flush reads what the server sends
 * while it writes, so a long pipeline cannot deadlock on full socket buffers
 * as long as the received bytes fit the reader's bound (max message + 64 KiB);
 * take responses with kix_rpc_recv often enough.
 *
 * Memory: the connection owns its buffers; kix_rpc_close frees them. A
 * received message is owned by the caller (kix_proto_msg_release).
 *
 * Errors: KIX_EUNAVAIL when the server cannot be reached, closes the
 * connection or does not answer in time (the message names the address and,
 * for a refused connection, suggests starting kixd); KIX_EPROTO when it sends
 * bytes that are not a well-formed message (the connection is then broken:
 * close it); KIX_ELIMIT for a message over the limits; KIX_EINVAL for a bad
 * address or a params callback error; KIX_ENOMEM. A response carrying an
 * error is not an error of kix_rpc_recv: check msg.error_code.
 */
#ifndef KIX_RPC_H
#define KIX_RPC_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/proto.h"

struct kix_rpc;

struct kix_rpc_opts {
    int timeout_ms;     /* connect and each wait; 0 = 30 000 */
    size_t max_message; /* largest message accepted; 0 = 16 MiB */
};

/* Connects (with the timeout). *out is set only on success. */
KIX_API int kix_rpc_connect(const char *addr, const struct kix_rpc_opts *opts, struct kix_rpc **out,
                            struct kix_err *err) KIX_MUST_CHECK;
/* Closes the socket and frees everything; NULL is fine. */
KIX_API void kix_rpc_close(struct kix_rpc *c);

/* The address as given to kix_rpc_connect. */
KIX_API const char *kix_rpc_addr(const struct kix_rpc *c);
/* The socket, for poll() by callers that multiplex many connections. */
KIX_API int kix_rpc_fd(const struct kix_rpc *c);

/* Writes the params map of a request: exactly one kix_proto_put_map and its
 * entries. Returns KIX_OK or an error that aborts the send. */
typedef int (*kix_rpc_params_fn)(void *ctx, struct kix_proto_writer *w);

/* Queues the request [0, msgid, method, [params]]; fn NULL sends {}.
 * *msgid (may be NULL) gets the id chosen (a per-connection counter). */
KIX_API int kix_rpc_send(struct kix_rpc *c, const char *method, kix_rpc_params_fn fn, void *ctx,
                         uint32_t *msgid, struct kix_err *err) KIX_MUST_CHECK;

/* Queues a request whose params map is given already encoded (one msgpack
 * map, not checked here: the server judges it). */
KIX_API int kix_rpc_send_params(struct kix_rpc *c, const char *method, const void *params,
                                size_t len, uint32_t *msgid, struct kix_err *err) KIX_MUST_CHECK;

/* Queues arbitrary bytes (for tests of hostile input). */
KIX_API int kix_rpc_send_raw(struct kix_rpc *c, const void *bytes, size_t len,
                             struct kix_err *err) KIX_MUST_CHECK;

/* Bytes queued and not yet written. */
KIX_API size_t kix_rpc_pending(const struct kix_rpc *c);

/* Writes everything queued. */
KIX_API int kix_rpc_flush(struct kix_rpc *c, struct kix_err *err) KIX_MUST_CHECK;

/* Flushes, then returns the next whole message the server sent (a response
 * or a notification). */
KIX_API int kix_rpc_recv(struct kix_rpc *c, struct kix_proto_msg *msg,
                         struct kix_err *err) KIX_MUST_CHECK;

/* Sends one request and waits for its response, dropping any other message
 * that arrives first (use it only when nothing else is in flight). When the
 * server answers an error, returns its code with err set to its message and
 * leaves resp released; otherwise *resp holds the response (result in
 * resp->result), to release by the caller. */
KIX_API int kix_rpc_call(struct kix_rpc *c, const char *method, kix_rpc_params_fn fn, void *ctx,
                         struct kix_proto_msg *resp, struct kix_err *err) KIX_MUST_CHECK;

#endif
