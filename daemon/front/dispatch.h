/* daemon/front/dispatch.h — the RPC methods (dispatch.c): each request's params
 * → the log → its answer, written into the connection's output buffer
 * (proto/PROTOCOL.md section 2 is the spec of every method). Loop thread
 * only. A refused request gets an error answer carrying its KIX_E* code
 * and message; kixd never closes a connection for a refusal. */
#ifndef KIXD_DISPATCH_H
#define KIXD_DISPATCH_H

#include "conn.h"
#include "writer.h"

/* Answers one request (msg may be taken over: it is released by the
 * caller either way). */
void kixd_dispatch(struct kixd_conn *c, struct kix_proto_msg *msg);
/* Writes the answer of a finished submit to its connection. */
void kixd_submit_answer(struct kixd_submit *job);
/* The same answer, left in its connection's output (c->out) for the
 * caller to flush, so that the answers of one commit go out in one write a
 * connection; returns that connection, or NULL when there is nothing to
 * flush (an HTTP submit answers itself; a closing connection gets none). */
struct kixd_conn *kixd_submit_answer_unflushed(struct kixd_submit *job);

#endif
