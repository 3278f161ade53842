/* proto/src/internal.h — shared by the proto sources only; msgpack.h stays here. */
#ifndef KIX_PROTO_INTERNAL_H
#define KIX_PROTO_INTERNAL_H

#include <msgpack.h>

#include "kix/proto.h"

/* What a decoded message owns: lives inside its own zone, next to the copy
 * of the frame that the tree's str/bin/ext views point into. */
struct kix__proto_doc {
    msgpack_zone *zone;
    msgpack_object root;
};

/* The public handles are msgpack_objects seen through opaque types. */
static inline const msgpack_object *kix__proto_obj(const struct kix_proto_value *v)
{
    return (const msgpack_object *)(const void *)v;
}

static inline const struct kix_proto_value *kix__proto_val(const msgpack_object *o)
{
    return (const struct kix_proto_value *)(const void *)o;
}

/* "message: expected an array ..." for a root that is not an array. */
int kix__proto_not_array(int kind, struct kix_err *err);

/* 1 when p[0..len) is valid UTF-8 (NUL included, which is U+0000): what a
 * msgpack str must hold, sent or received. */
int kix__proto_utf8_valid(const void *p, size_t len);

/* Unpacks a frame the scanner accepted (items = its element total, which
 * bounds the tree's size) and checks the message shape. */
int kix__proto_decode_frame(const uint8_t *frame, size_t len, size_t items,
                            struct kix_proto_msg *msg, struct kix_err *err);

#endif
