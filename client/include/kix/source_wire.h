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

#include "kix/api.h"

#include "kix/messages.h"
#include "kix/source.h"

/* origin, logKey, version, size, mirror; the server's own fields (limits,
 * a mirror's state) are the caller's. */
KIX_API void kix_wire_info_put(const struct kix_client_info *in, struct kix_msg_info *m);
KIX_API int kix_wire_info_get(const struct kix_msg_info *m, struct kix_client_info *out,
                              struct kix_err *err) KIX_MUST_CHECK;

/* A query's filters as query's params (offset and limit are the caller's). */
KIX_API void kix_wire_query_put(const struct kix_query *q, struct kix_msg_query_params *p);
/* query's params (checked by the codec) as a struct kix_query over texts
 * of its own; offset and limit default to 0 and 100. */
struct kix_wire_query {
    struct kix_query q;
    char kernel[KIX_MSG_QUERY_TEXT_MAX + 1], gpu[KIX_MSG_QUERY_TEXT_MAX + 1],
        provider[KIX_MSG_QUERY_TEXT_MAX + 1], dtype[KIX_MSG_QUERY_TEXT_MAX + 1];
    char mode[KIX_MSG_QUERY_SHORT_MAX + 1], metric[KIX_MSG_QUERY_SHORT_MAX + 1];
    struct kix_digest group;
};
KIX_API void kix_wire_query_get(const struct kix_msg_query_params *p, struct kix_wire_query *out);

KIX_API void kix_wire_row_put(const struct kix_query_row *row, struct kix_msg_query_run *run);
KIX_API int kix_wire_row_get(const struct kix_msg_query_run *in, struct kix_query_row *row,
                             struct kix_err *err) KIX_MUST_CHECK;

/* resolve's result; its arrays in m->owned (kix_msg_free, also on failure). */
KIX_API int kix_wire_resolution_put(const struct kix_resolution *res, struct kix_bytes permalink,
                                    struct kix_msg_resolve_result *m,
                                    struct kix_err *err) KIX_MUST_CHECK;
/* Fills res (inited by the caller), its views into m's message. */
KIX_API int kix_wire_resolution_get(const struct kix_msg_resolve_result *m,
                                    struct kix_resolution *res, struct kix_err *err) KIX_MUST_CHECK;

#endif
