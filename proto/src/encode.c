/* Message encoding: msgpack_packer over a kix_buf, with the declared
 * container counts tracked so a malformed message never reaches the wire. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kix/encoding.h"

static int buf_write(void *data, const char *bytes, size_t len)
{
    return kix_buf_add(data, bytes, len) == KIX_OK ? 0 : -1;
}

static void packer(struct kix_proto_writer *w, msgpack_packer *pk)
{
    msgpack_packer_init(pk, w->out, buf_write);
}

static int fail(struct kix_proto_writer *w, int code, const char *fmt, ...) KIX_PRINTF(3, 4);

/* Records the first error of the message; later puts return it. */
static int fail(struct kix_proto_writer *w, int code, const char *fmt, ...)
{
    va_list ap;

    if (w->rc)
        return w->rc;
    w->rc = code;
    w->err.code = code;
    va_start(ap, fmt);
    vsnprintf(w->err.msg, sizeof(w->err.msg), fmt, ap);
    va_end(ap);
    return code;
}

static int packed(struct kix_proto_writer *w, int prc)
{
    if (prc != 0)
        return fail(w, KIX_ENOMEM, "out of memory encoding a message");
    return KIX_OK;
}

void kix_proto_writer_init(struct kix_proto_writer *w, struct kix_buf *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->max_message = KIX_PROTO_MAX_MESSAGE_DEFAULT;
}

/* Checks that a value (or, with is_key, a map key) may come next. */
static int pre(struct kix_proto_writer *w, int is_key, int is_map)
{
    unsigned top;
    int key_due;

    if (w->rc)
        return w->rc;
    if (!w->active)
        return fail(w, KIX_EINVAL, "no message begun; call kix_proto_begin_* first");
    if (w->depth == 0)
        return fail(w, KIX_EINVAL,
                    "message already complete; a value was put beyond the declared counts");
    top = w->depth - 1;
    key_due = (w->is_map >> top & 1u) && w->left[top] % 2 == 0;
    if (is_key && !key_due)
        return fail(w, KIX_EINVAL, "map key put where a value is due");
    if (!is_key && key_due)
        return fail(w, KIX_EINVAL, "value put where a map key is due; use kix_proto_put_key");
    if (w->want_map && !is_map)
        return fail(w, KIX_EINVAL, "params must be a map; put kix_proto_put_map first");
    w->want_map = 0;
    return KIX_OK;
}

/* One value (or key) finished: count it in the open containers. */
static void done(struct kix_proto_writer *w)
{
    while (w->depth > 0) {
        if (--w->left[w->depth - 1] > 0)
            return;
        w->depth--;
    }
}

static int open_container(struct kix_proto_writer *w, size_t count, int is_map)
{
    msgpack_packer pk;
    int rc = pre(w, 0, is_map);

    if (rc)
        return rc;
    if (count > UINT32_MAX)
        return fail(w, KIX_EINVAL, "%s of %zu entries exceeds the msgpack limit of 2^32-1",
                    is_map ? "map" : "array", count);
    if (count > 0 && w->depth >= KIX_PROTO_DEPTH_MAX)
        return fail(w, KIX_ELIMIT, "nesting deeper than %u levels", KIX_PROTO_DEPTH_MAX);
    packer(w, &pk);
    rc = packed(w, is_map ? msgpack_pack_map(&pk, count) : msgpack_pack_array(&pk, count));
    if (rc)
        return rc;
    if (count == 0) {
        done(w);
        return KIX_OK;
    }
    w->left[w->depth] = is_map ? 2 * (uint64_t)count : count;
    if (is_map)
        w->is_map |= 1u << w->depth;
    else
        w->is_map &= ~(1u << w->depth);
    w->depth++;
    return KIX_OK;
}

int kix_proto_put_array(struct kix_proto_writer *w, size_t count)
{
    return open_container(w, count, 0);
}

int kix_proto_put_map(struct kix_proto_writer *w, size_t count)
{
    return open_container(w, count, 1);
}

int kix_proto_put_nil(struct kix_proto_writer *w)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, msgpack_pack_nil(&pk));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_bool(struct kix_proto_writer *w, bool v)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, v ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_u64(struct kix_proto_writer *w, uint64_t v)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, msgpack_pack_uint64(&pk, v));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_i64(struct kix_proto_writer *w, int64_t v)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, msgpack_pack_int64(&pk, v));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_f64(struct kix_proto_writer *w, double v)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, msgpack_pack_double(&pk, v));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

static int put_raw(struct kix_proto_writer *w, int is_key, int is_bin, const void *p, size_t len)
{
    msgpack_packer pk;
    int rc = pre(w, is_key, 0);

    if (rc)
        return rc;
    if (len > UINT32_MAX)
        return fail(w, KIX_EINVAL, "%s of %zu bytes exceeds the msgpack limit of 4 GiB",
                    is_bin ? "bin" : "str", len);
    if (!is_bin && !kix__proto_utf8_valid(p, len))
        return fail(w, KIX_EINVAL,
                    "a %zu-byte %s is not valid UTF-8; a msgpack str must be text (send bytes "
                    "as bin)",
                    len, is_key ? "map key" : "str");
    packer(w, &pk);
    rc = packed(w, is_bin ? msgpack_pack_bin_with_body(&pk, p, len)
                          : msgpack_pack_str_with_body(&pk, p, len));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_str(struct kix_proto_writer *w, const void *s, size_t len)
{
    return put_raw(w, 0, 0, s, len);
}

int kix_proto_put_cstr(struct kix_proto_writer *w, const char *s)
{
    return put_raw(w, 0, 0, s, strlen(s));
}

int kix_proto_put_bin(struct kix_proto_writer *w, const void *data, size_t len)
{
    return put_raw(w, 0, 1, data, len);
}

int kix_proto_put_key(struct kix_proto_writer *w, const char *name)
{
    return put_raw(w, 1, 0, name, strlen(name));
}

int kix_proto_put_ext(struct kix_proto_writer *w, int8_t type, const void *data, size_t len)
{
    msgpack_packer pk;
    int rc = pre(w, 0, 0);

    if (rc)
        return rc;
    if (len > UINT32_MAX)
        return fail(w, KIX_EINVAL, "ext of %zu bytes exceeds the msgpack limit of 4 GiB", len);
    packer(w, &pk);
    rc = packed(w, msgpack_pack_ext_with_body(&pk, data, len, type));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

int kix_proto_put_value(struct kix_proto_writer *w, const struct kix_proto_value *v)
{
    const msgpack_object *o = kix__proto_obj(v);
    msgpack_packer pk;
    int rc = pre(w, 0, o->type == MSGPACK_OBJECT_MAP);

    if (rc)
        return rc;
    packer(w, &pk);
    rc = packed(w, msgpack_pack_object(&pk, *o));
    if (rc == KIX_OK)
        done(w);
    return rc;
}

/* Starts a message array of n elements (not counted in any parent). */
static int begin(struct kix_proto_writer *w, unsigned n)
{
    msgpack_packer pk;

    if (w->active)
        return fail(w, KIX_EINVAL,
                    "a message was begun before the previous one was ended with "
                    "kix_proto_writer_end");
    w->active = 1;
    w->rc = 0;
    w->start = w->out->len;
    packer(w, &pk);
    if (packed(w, msgpack_pack_array(&pk, n)))
        return w->rc;
    w->depth = 1;
    w->is_map = 0;
    w->left[0] = n;
    w->want_map = 0;
    return KIX_OK;
}

static int put_method(struct kix_proto_writer *w, const char *method)
{
    int rc = kix_proto_put_cstr(w, method);

    if (rc == KIX_OK)
        rc = kix_proto_put_array(w, 1);
    if (rc == KIX_OK)
        w->want_map = 1;
    return rc;
}

int kix_proto_begin_request(struct kix_proto_writer *w, uint32_t msgid, const char *method)
{
    int rc = begin(w, 4);

    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, KIX_PROTO_REQUEST);
    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, msgid);
    if (rc == KIX_OK)
        rc = put_method(w, method);
    return rc;
}

int kix_proto_begin_notification(struct kix_proto_writer *w, const char *method)
{
    int rc = begin(w, 3);

    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, KIX_PROTO_NOTIFICATION);
    if (rc == KIX_OK)
        rc = put_method(w, method);
    return rc;
}

int kix_proto_begin_response(struct kix_proto_writer *w, uint32_t msgid)
{
    int rc = begin(w, 4);

    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, KIX_PROTO_RESPONSE);
    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, msgid);
    if (rc == KIX_OK)
        rc = kix_proto_put_nil(w);
    return rc;
}

int kix_proto_writer_end(struct kix_proto_writer *w, struct kix_err *err)
{
    size_t len = w->out->len - w->start;
    int rc = w->rc;

    if (rc == KIX_OK && !w->active)
        rc = fail(w, KIX_EINVAL, "no message begun; call kix_proto_begin_* first");
    else if (rc == KIX_OK && w->depth > 0)
        rc = fail(w, KIX_EINVAL,
                  "message incomplete: %llu more entries due at nesting level %u (map keys and "
                  "values count separately)",
                  (unsigned long long)w->left[w->depth - 1], w->depth);
    else if (rc == KIX_OK && len > w->max_message)
        rc = fail(w, KIX_ELIMIT,
                  "encoded message of %zu bytes exceeds the %zu-byte message limit; the peer "
                  "would refuse it",
                  len, w->max_message);
    if (rc) {
        if (err)
            *err = w->err;
        if (w->active && w->out->len > w->start) {
            w->out->len = w->start;
            w->out->ptr[w->start] = '\0';
        }
    }
    w->active = 0;
    w->rc = 0;
    w->depth = 0;
    w->want_map = 0;
    return rc;
}

int kix_proto_write_error(struct kix_proto_writer *w, uint32_t msgid, int code, const char *message,
                          struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    int rc = begin(w, 4);

    if (rc == KIX_OK && code >= 0)
        rc = fail(w, KIX_EINVAL, "error code %d is not a negative KIX_E* code", code);
    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, KIX_PROTO_RESPONSE);
    if (rc == KIX_OK)
        rc = kix_proto_put_u64(w, msgid);
    if (rc == KIX_OK)
        rc = kix_proto_put_map(w, 2);
    if (rc == KIX_OK)
        rc = kix_proto_put_key(w, "code");
    if (rc == KIX_OK)
        rc = kix_proto_put_i64(w, code);
    if (rc == KIX_OK)
        rc = kix_proto_put_key(w, "message");
    /* messages may quote what a peer sent */
    if (rc == KIX_OK && kix_utf8_scrub(message, strlen(message), "?", &text) != KIX_OK)
        rc = fail(w, KIX_ENOMEM, "out of memory writing an error message");
    if (rc == KIX_OK)
        rc = kix_proto_put_str(w, text.ptr ? (const char *)text.ptr : "", text.len);
    if (rc == KIX_OK)
        rc = kix_proto_put_nil(w);
    kix_buf_release(&text);
    return kix_proto_writer_end(w, err);
}
