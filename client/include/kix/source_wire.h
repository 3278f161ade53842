/* kix/source_wire.h — a source's answers as the messages of kixd's methods.
 *
 * The one conversion each way between the client's types (kix/source.h,
 * kix/resolve.h, kix/index.h) and the structs of kix/messages.h: kixd's
 * dispatcher, serving a source, puts its answers on the wire with the
 * *_put functions; the kixd source (client/lib/source_rpc.c) takes them
 * off with the *_get ones. Taken off the wire nothing is trusted (callers
 * verify); a text over its field's room is KIX_EPROTO naming the field.
 * The *_put outputs borrow from their inputs. */
#ifndef KIX_SOURCE_WIRE_H
#define KIX_SOURCE_WIRE_H

#include "kix/messages.h"
#include "kix/source.h"

/* origin, logKey, version, size, mirror; the server's own fields (limits,
 * a mirror's state) are the caller's. */
void kix_wire_info_put(const struct kix_client_info *in, struct kix_msg_info *m);
int kix_wire_info_get(const struct kix_msg_info *m, struct kix_client_info *out,
                      struct kix_err *err) KIX_MUST_CHECK;

void kix_wire_row_put(const struct kix_query_row *row, struct kix_msg_query_run *run);
int kix_wire_row_get(const struct kix_msg_query_run *in, struct kix_query_row *row,
                     struct kix_err *err) KIX_MUST_CHECK;

/* resolve's result; its arrays in m->owned (kix_msg_free, also on failure). */
int kix_wire_resolution_put(const struct kix_resolution *res, struct kix_bytes permalink,
                            struct kix_msg_resolve_result *m, struct kix_err *err) KIX_MUST_CHECK;
/* Fills res (inited by the caller), its views into m's message. */
int kix_wire_resolution_get(const struct kix_msg_resolve_result *m, struct kix_resolution *res,
                            struct kix_err *err) KIX_MUST_CHECK;

#endif
