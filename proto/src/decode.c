/* Message decoding: unpacking a scanned frame, checking the message shape,
 * and typed, bounded access to decoded values. */
#include "internal.h"

#include <limits.h>
#include <string.h>

#include "kix/encoding.h"

int kix__proto_utf8_valid(const void *p, size_t len)
{
    const char *s = p, *nul;

    /* kix_utf8_valid refuses NUL (kix's own text fields are C strings) */
    while (len && (nul = memchr(s, '\0', len)) != NULL) {
        if (!kix_utf8_valid(s, (size_t)(nul - s)))
            return 0;
        len -= (size_t)(nul - s) + 1;
        s = nul + 1;
    }
    return kix_utf8_valid(s, len);
}

static const msgpack_object *obj(const struct kix_proto_value *v)
{
    return kix__proto_obj(v);
}

static int kind_of(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return KIX_PROTO_NIL;
    case MSGPACK_OBJECT_BOOLEAN:
        return KIX_PROTO_BOOL;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return KIX_PROTO_INT;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return KIX_PROTO_FLOAT;
    case MSGPACK_OBJECT_STR:
        return KIX_PROTO_STR;
    case MSGPACK_OBJECT_BIN:
        return KIX_PROTO_BIN;
    case MSGPACK_OBJECT_ARRAY:
        return KIX_PROTO_ARRAY;
    case MSGPACK_OBJECT_MAP:
        return KIX_PROTO_MAP;
    default:
        return KIX_PROTO_EXT;
    }
}

const char *kix_proto_kind_name(int kind)
{
    static const char *const names[] = {"nil", "bool",  "int", "float", "str",
                                        "bin", "array", "map", "ext"};

    if (kind < 0 || (size_t)kind >= sizeof(names) / sizeof(names[0]))
        return "unknown";
    return names[kind];
}

static const char *kind_name(const msgpack_object *o)
{
    return kix_proto_kind_name(kind_of(o));
}

int kix_proto_kind(const struct kix_proto_value *v)
{
    return kind_of(obj(v));
}

static struct kix_bytes bytes_of(const char *ptr, uint32_t size)
{
    struct kix_bytes b = {(const uint8_t *)ptr, size};
    return b;
}

/* ---- messages ---------------------------------------------------------------- */

void kix_proto_msg_init(struct kix_proto_msg *msg)
{
    memset(msg, 0, sizeof(*msg));
    msg->type = KIX_PROTO_INVALID;
}

void kix_proto_msg_release(struct kix_proto_msg *msg)
{
    if (msg->doc)
        msgpack_zone_free(msg->doc->zone); /* the doc lives in its zone */
    kix_proto_msg_init(msg);
}

int kix__proto_not_array(int kind, struct kix_err *err)
{
    return kix_err_set(err, KIX_EPROTO,
                       "message: expected an array [type, ...], got %s; is the peer speaking "
                       "kix msgpack-RPC?",
                       kix_proto_kind_name(kind));
}

static int get_msgid(const msgpack_object *o, const char *what, uint32_t *out, struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return kix_err_set(err, KIX_EPROTO, "%s msgid: expected uint32, got %s", what,
                           kind_name(o));
    if (o->via.u64 > UINT32_MAX)
        return kix_err_set(err, KIX_EPROTO, "%s msgid %llu does not fit uint32", what,
                           (unsigned long long)o->via.u64);
    *out = (uint32_t)o->via.u64;
    return KIX_OK;
}

static int get_method(const msgpack_object *o, const char *what, struct kix_bytes *out,
                      struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return kix_err_set(err, KIX_EPROTO, "%s method: expected str, got %s", what, kind_name(o));
    if (!kix__proto_utf8_valid(o->via.str.ptr, o->via.str.size))
        return kix_err_set(err, KIX_EPROTO, "%s method: a str that is not valid UTF-8", what);
    *out = bytes_of(o->via.str.ptr, o->via.str.size);
    return KIX_OK;
}

static int get_params(const msgpack_object *o, const char *what, const struct kix_proto_map **out,
                      struct kix_err *err)
{
    const msgpack_object *m;

    if (o->type != MSGPACK_OBJECT_ARRAY)
        return kix_err_set(err, KIX_EPROTO, "%s params: expected an array holding one map, got %s",
                           what, kind_name(o));
    if (o->via.array.size != 1)
        return kix_err_set(err, KIX_EPROTO,
                           "%s params: expected an array holding one map, got %u elements", what,
                           o->via.array.size);
    m = &o->via.array.ptr[0];
    if (m->type != MSGPACK_OBJECT_MAP)
        return kix_err_set(err, KIX_EPROTO, "%s params[0]: expected map, got %s", what,
                           kind_name(m));
    for (uint32_t i = 0; i < m->via.map.size; i++) {
        const msgpack_object *k = &m->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            return kix_err_set(err, KIX_EPROTO, "%s params: key %u is %s; field names must be str",
                               what, i, kind_name(k));
        if (!kix__proto_utf8_valid(k->via.str.ptr, k->via.str.size))
            return kix_err_set(err, KIX_EPROTO, "%s params: key %u is not valid UTF-8", what, i);
    }
    *out = (const struct kix_proto_map *)(const void *)m;
    return KIX_OK;
}

static int get_error(const msgpack_object *o, struct kix_proto_msg *msg, struct kix_err *err)
{
    const struct kix_proto_map *m = (const struct kix_proto_map *)(const void *)o;
    struct kix_err sub;
    int64_t code = 0;
    int rc;

    if (o->type == MSGPACK_OBJECT_NIL)
        return KIX_OK;
    if (o->type != MSGPACK_OBJECT_MAP)
        return kix_err_set(err, KIX_EPROTO,
                           "response error: expected nil or a map {code, message}, got %s",
                           kind_name(o));
    rc = kix_proto_map_get_i64(m, "code", &code, &sub);
    if (rc == KIX_OK && (code >= 0 || code < INT_MIN))
        return kix_err_set(err, KIX_EPROTO,
                           "response error: code %lld is not a negative kix error code",
                           (long long)code);
    if (rc == KIX_OK)
        rc = kix_proto_map_get_str(m, "message", &msg->error_message, &sub);
    if (rc)
        return kix_err_set(err, KIX_EPROTO, "response error: %s", sub.msg);
    msg->error_code = (int)code;
    return KIX_OK;
}

static int check_shape(struct kix_proto_msg *msg, const msgpack_object *root, struct kix_err *err)
{
    const msgpack_object *a;
    uint32_t n;
    uint64_t type;
    int rc;

    if (root->type != MSGPACK_OBJECT_ARRAY)
        return kix__proto_not_array(kind_of(root), err);
    a = root->via.array.ptr;
    n = root->via.array.size;
    if (n == 0)
        return kix_err_set(err, KIX_EPROTO, "message: empty array; expected [type, ...]");
    if (a[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return kix_err_set(err, KIX_EPROTO, "message type: expected int 0, 1 or 2, got %s",
                           kind_name(&a[0]));
    type = a[0].via.u64;
    switch (type) {
    case KIX_PROTO_REQUEST:
        /* a request of the wrong length whose msgid reads is answered too (§1.4) */
        if (n < 2 || get_msgid(&a[1], "request", &msg->msgid, NULL) != KIX_OK)
            msg->msgid = 0;
        else if (n != 4)
            msg->type = KIX_PROTO_REQUEST;
        if (n != 4)
            return kix_err_set(err, KIX_EPROTO,
                               "request: expected 4 elements [0, msgid, method, params], got %u",
                               n);
        rc = get_msgid(&a[1], "request", &msg->msgid, err);
        if (rc)
            return rc;
        msg->type = KIX_PROTO_REQUEST; /* known from here: the error can be answered */
        rc = get_method(&a[2], "request", &msg->method, err);
        if (rc == KIX_OK)
            rc = get_params(&a[3], "request", &msg->params, err);
        return rc;
    case KIX_PROTO_RESPONSE:
        if (n != 4)
            return kix_err_set(err, KIX_EPROTO,
                               "response: expected 4 elements [1, msgid, error, result], got %u",
                               n);
        rc = get_msgid(&a[1], "response", &msg->msgid, err);
        if (rc == KIX_OK)
            rc = get_error(&a[2], msg, err);
        if (rc)
            return rc;
        msg->result = kix__proto_val(&a[3]);
        msg->type = KIX_PROTO_RESPONSE;
        return KIX_OK;
    case KIX_PROTO_NOTIFICATION:
        if (n != 3)
            return kix_err_set(err, KIX_EPROTO,
                               "notification: expected 3 elements [2, method, params], got %u", n);
        rc = get_method(&a[1], "notification", &msg->method, err);
        if (rc == KIX_OK)
            rc = get_params(&a[2], "notification", &msg->params, err);
        if (rc)
            return rc;
        msg->type = KIX_PROTO_NOTIFICATION;
        return KIX_OK;
    default:
        return kix_err_set(err, KIX_EPROTO,
                           "message type %llu is not 0 (request), 1 (response) or 2 "
                           "(notification)",
                           (unsigned long long)type);
    }
}

int kix__proto_decode_frame(const uint8_t *frame, size_t len, size_t items,
                            struct kix_proto_msg *msg, struct kix_err *err)
{
    struct kix__proto_doc *doc;
    msgpack_zone *zone;
    msgpack_unpack_return ur;
    char *copy;
    size_t off = 0, chunk;
    int rc, type;
    uint32_t msgid;

    kix_proto_msg_init(msg);
    /* One chunk fits it all: the doc, the frame copy, and the tree, which
     * msgpack-c builds from one msgpack_object per array element and per
     * map key or value (items counts exactly those). */
    if (items > (SIZE_MAX - len - 64 - sizeof(*doc)) / sizeof(msgpack_object))
        return kix_err_set(err, KIX_ENOMEM, "message of %zu elements is too large to decode",
                           items);
    chunk = sizeof(*doc) + len + 2 * MSGPACK_ZONE_ALIGN + items * sizeof(msgpack_object);
    zone = msgpack_zone_new(chunk);
    if (!zone)
        return kix_err_set(err, KIX_ENOMEM, "out of memory decoding a %zu-byte message", len);
    doc = msgpack_zone_malloc(zone, sizeof(*doc));
    copy = msgpack_zone_malloc_no_align(zone, len);
    if (!doc || !copy) {
        msgpack_zone_free(zone);
        return kix_err_set(err, KIX_ENOMEM, "out of memory decoding a %zu-byte message", len);
    }
    doc->zone = zone;
    memcpy(copy, frame, len);
    ur = msgpack_unpack(copy, len, &off, zone, &doc->root);
    if (ur != MSGPACK_UNPACK_SUCCESS || off != len) {
        msgpack_zone_free(zone);
        if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
            return kix_err_set(err, KIX_ENOMEM, "out of memory decoding a %zu-byte message", len);
        return kix_err_set(err, KIX_EPROTO,
                           "msgpack-c disagrees with the frame scanner on a %zu-byte frame "
                           "(unpack result %d, %zu bytes used); this is a kix bug",
                           len, (int)ur, off);
    }
    msg->doc = doc;
    msg->frame_len = len;
    rc = check_shape(msg, &doc->root, err);
    if (rc) {
        type = msg->type;
        msgid = msg->msgid;
        kix_proto_msg_release(msg);
        if (type == KIX_PROTO_REQUEST) {
            msg->type = type;
            msg->msgid = msgid;
        }
    }
    return rc;
}

int kix_proto_msg_error(const struct kix_proto_msg *msg, struct kix_err *err)
{
    if (msg->type != KIX_PROTO_RESPONSE || msg->error_code == 0)
        return KIX_OK;
    return kix_err_set(err, msg->error_code, "peer error %s: %.*s", kix_err_name(msg->error_code),
                       (int)(msg->error_message.len > 400 ? 400 : msg->error_message.len),
                       (const char *)msg->error_message.ptr);
}

/* ---- values ---------------------------------------------------------------- */

/* The wrong-kind error, naming the field when there is one. */
static int wrong(const char *field, const char *want, const char *got, struct kix_err *err)
{
    if (field)
        return kix_err_set(err, KIX_EINVAL, "field \"%s\": expected %s, got %s", field, want, got);
    return kix_err_set(err, KIX_EINVAL, "expected %s, got %s", want, got);
}

static int get_str(const msgpack_object *o, const char *field, struct kix_bytes *out,
                   struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return wrong(field, "str", kind_name(o), err);
    if (!kix__proto_utf8_valid(o->via.str.ptr, o->via.str.size)) {
        if (field)
            return kix_err_set(err, KIX_EINVAL, "field \"%s\": a str that is not valid UTF-8",
                               field);
        return kix_err_set(err, KIX_EINVAL, "a str that is not valid UTF-8");
    }
    *out = bytes_of(o->via.str.ptr, o->via.str.size);
    return KIX_OK;
}

static int get_bin(const msgpack_object *o, const char *field, struct kix_bytes *out,
                   struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_BIN)
        return wrong(field, "bin", kind_name(o), err);
    *out = bytes_of(o->via.bin.ptr, o->via.bin.size);
    return KIX_OK;
}

static int get_u64(const msgpack_object *o, const char *field, uint64_t *out, struct kix_err *err)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return wrong(field, "a non-negative int", "a negative int", err);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return wrong(field, "int", kind_name(o), err);
    *out = o->via.u64;
    return KIX_OK;
}

static int get_i64(const msgpack_object *o, const char *field, int64_t *out, struct kix_err *err)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = o->via.i64;
        return KIX_OK;
    }
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return wrong(field, "int", kind_name(o), err);
    if (o->via.u64 > INT64_MAX)
        return wrong(field, "an int64", "an int above 2^63-1", err);
    *out = (int64_t)o->via.u64;
    return KIX_OK;
}

static int get_f64(const msgpack_object *o, const char *field, double *out, struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_FLOAT32 && o->type != MSGPACK_OBJECT_FLOAT64)
        return wrong(field, "float", kind_name(o), err);
    *out = o->via.f64;
    return KIX_OK;
}

static int get_bool(const msgpack_object *o, const char *field, bool *out, struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_BOOLEAN)
        return wrong(field, "bool", kind_name(o), err);
    *out = o->via.boolean;
    return KIX_OK;
}

static int get_map(const msgpack_object *o, const char *field, const struct kix_proto_map **out,
                   struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        return wrong(field, "map", kind_name(o), err);
    *out = (const struct kix_proto_map *)(const void *)o;
    return KIX_OK;
}

static int get_array(const msgpack_object *o, const char *field, const struct kix_proto_array **out,
                     size_t *count, struct kix_err *err)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return wrong(field, "array", kind_name(o), err);
    *out = (const struct kix_proto_array *)(const void *)o;
    if (count)
        *count = o->via.array.size;
    return KIX_OK;
}

int kix_proto_value_str(const struct kix_proto_value *v, struct kix_bytes *out, struct kix_err *err)
{
    return get_str(obj(v), NULL, out, err);
}

int kix_proto_value_bin(const struct kix_proto_value *v, struct kix_bytes *out, struct kix_err *err)
{
    return get_bin(obj(v), NULL, out, err);
}

int kix_proto_value_u64(const struct kix_proto_value *v, uint64_t *out, struct kix_err *err)
{
    return get_u64(obj(v), NULL, out, err);
}

int kix_proto_value_i64(const struct kix_proto_value *v, int64_t *out, struct kix_err *err)
{
    return get_i64(obj(v), NULL, out, err);
}

int kix_proto_value_f64(const struct kix_proto_value *v, double *out, struct kix_err *err)
{
    return get_f64(obj(v), NULL, out, err);
}

int kix_proto_value_bool(const struct kix_proto_value *v, bool *out, struct kix_err *err)
{
    return get_bool(obj(v), NULL, out, err);
}

int kix_proto_value_map(const struct kix_proto_value *v, const struct kix_proto_map **out,
                        struct kix_err *err)
{
    return get_map(obj(v), NULL, out, err);
}

int kix_proto_value_array(const struct kix_proto_value *v, const struct kix_proto_array **out,
                          size_t *count, struct kix_err *err)
{
    return get_array(obj(v), NULL, out, count, err);
}

int kix_proto_value_ext(const struct kix_proto_value *v, int8_t *type, struct kix_bytes *data,
                        struct kix_err *err)
{
    const msgpack_object *o = obj(v);

    if (o->type != MSGPACK_OBJECT_EXT)
        return wrong(NULL, "ext", kind_name(o), err);
    *type = o->via.ext.type;
    *data = bytes_of(o->via.ext.ptr, o->via.ext.size);
    return KIX_OK;
}

bool kix_proto_value_is_nil(const struct kix_proto_value *v)
{
    return obj(v)->type == MSGPACK_OBJECT_NIL;
}

size_t kix_proto_array_count(const struct kix_proto_array *a)
{
    return ((const msgpack_object *)(const void *)a)->via.array.size;
}

const struct kix_proto_value *kix_proto_array_at(const struct kix_proto_array *a, size_t i)
{
    const msgpack_object *o = (const msgpack_object *)(const void *)a;

    if (i >= o->via.array.size)
        return NULL;
    return kix__proto_val(&o->via.array.ptr[i]);
}

size_t kix_proto_map_count(const struct kix_proto_map *m)
{
    return ((const msgpack_object *)(const void *)m)->via.map.size;
}

void kix_proto_map_at(const struct kix_proto_map *m, size_t i, const struct kix_proto_value **key,
                      const struct kix_proto_value **val)
{
    const msgpack_object *o = (const msgpack_object *)(const void *)m;

    *key = kix__proto_val(&o->via.map.ptr[i].key);
    *val = kix__proto_val(&o->via.map.ptr[i].val);
}

static int find(const struct kix_proto_map *m, const char *name, const msgpack_object **out,
                struct kix_err *err)
{
    const msgpack_object *o = (const msgpack_object *)(const void *)m;
    const msgpack_object *hit = NULL;
    size_t nlen = strlen(name);

    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR || k->via.str.size != nlen ||
            memcmp(k->via.str.ptr, name, nlen) != 0)
            continue;
        if (hit)
            return kix_err_set(err, KIX_EINVAL,
                               "field \"%s\" appears more than once; send each field once", name);
        hit = &o->via.map.ptr[i].val;
    }
    if (!hit)
        return kix_err_set(err, KIX_ENOTFOUND, "missing field \"%s\"", name);
    *out = hit;
    return KIX_OK;
}

int kix_proto_map_get(const struct kix_proto_map *m, const char *name,
                      const struct kix_proto_value **out, struct kix_err *err)
{
    const msgpack_object *o;
    int rc = find(m, name, &o, err);

    if (rc == KIX_OK)
        *out = kix__proto_val(o);
    return rc;
}

#define MAP_GETTER(suffix, type)                                                                   \
    int kix_proto_map_get_##suffix(const struct kix_proto_map *m, const char *name, type *out,     \
                                   struct kix_err *err)                                            \
    {                                                                                              \
        const msgpack_object *o;                                                                   \
        int rc = find(m, name, &o, err);                                                           \
        return rc ? rc : get_##suffix(o, name, out, err);                                          \
    }

MAP_GETTER(str, struct kix_bytes)
MAP_GETTER(bin, struct kix_bytes)
MAP_GETTER(u64, uint64_t)
MAP_GETTER(i64, int64_t)
MAP_GETTER(f64, double)
MAP_GETTER(bool, bool)
MAP_GETTER(map, const struct kix_proto_map *)

int kix_proto_map_get_array(const struct kix_proto_map *m, const char *name,
                            const struct kix_proto_array **out, size_t *count, struct kix_err *err)
{
    const msgpack_object *o;
    int rc = find(m, name, &o, err);

    return rc ? rc : get_array(o, name, out, count, err);
}
