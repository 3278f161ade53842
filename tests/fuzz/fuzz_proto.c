/* msgpack-RPC reading. The first byte seeds the chunking: the rest is fed
 * to a reader in chunks of pseudo-random size (feed or reserve/commit), and
 * every message is drained and walked with the typed accessors. Fed in one
 * piece, the stream must give the same messages and errors. A decoded
 * response re-encodes (kix_proto_put_value) to a message that decodes. */
#include "fuzz.h"
#include "kix/proto.h"

static const struct kix_proto_limits lim = {1 << 16, KIX_PROTO_DEPTH_MAX, 1024};

static void walk(const struct kix_proto_value *v)
{
    const struct kix_proto_array *a;
    const struct kix_proto_map *m;
    const struct kix_proto_value *key, *val;
    struct kix_bytes bytes;
    uint64_t u;
    int64_t i;
    double f;
    int rc;
    bool b;
    int8_t type;
    size_t n;

    switch (kix_proto_kind(v)) {
    case KIX_PROTO_NIL:
        if (!kix_proto_value_is_nil(v) || kix_proto_value_bool(v, &b, NULL) != KIX_EINVAL)
            abort();
        break;
    case KIX_PROTO_BOOL:
        if (kix_proto_value_bool(v, &b, NULL) || kix_proto_value_u64(v, &u, NULL) != KIX_EINVAL)
            abort();
        break;
    case KIX_PROTO_INT: /* fits at least one of the two */
        if (kix_proto_value_u64(v, &u, NULL) && kix_proto_value_i64(v, &i, NULL))
            abort();
        break;
    case KIX_PROTO_FLOAT:
        if (kix_proto_value_f64(v, &f, NULL))
            abort();
        break;
    case KIX_PROTO_STR: /* a str is text: one that is not UTF-8 is refused, nothing else */
        rc = kix_proto_value_str(v, &bytes, NULL);
        if ((rc != KIX_OK && rc != KIX_EINVAL) || (rc == KIX_OK && bytes.len && !bytes.ptr))
            abort();
        break;
    case KIX_PROTO_BIN:
        if (kix_proto_value_bin(v, &bytes, NULL) || kix_proto_value_str(v, &bytes, NULL) == KIX_OK)
            abort();
        break;
    case KIX_PROTO_EXT:
        if (kix_proto_value_ext(v, &type, &bytes, NULL))
            abort();
        break;
    case KIX_PROTO_ARRAY:
        if (kix_proto_value_array(v, &a, &n, NULL) || kix_proto_array_at(a, n) != NULL)
            abort();
        for (size_t k = 0; k < n; k++)
            walk(kix_proto_array_at(a, k));
        break;
    case KIX_PROTO_MAP:
        if (kix_proto_value_map(v, &m, NULL))
            abort();
        for (size_t k = 0; k < kix_proto_map_count(m); k++) {
            kix_proto_map_at(m, k, &key, &val);
            walk(key);
            walk(val);
        }
        break;
    default:
        abort();
    }
}

static void walk_msg(const struct kix_proto_msg *msg)
{
    const struct kix_proto_value *key, *val;
    struct kix_proto_writer w;
    struct kix_proto_msg again;
    struct kix_buf out = KIX_BUF_INIT;

    if (msg->params) {
        for (size_t k = 0; k < kix_proto_map_count(msg->params); k++) {
            kix_proto_map_at(msg->params, k, &key, &val);
            if (kix_proto_kind(key) != KIX_PROTO_STR)
                abort();
            walk(val);
        }
        if (kix_proto_map_get(msg->params, "digest", &val, NULL)) {
        }
    }
    if (msg->type != KIX_PROTO_RESPONSE)
        return;
    if (kix_proto_msg_error(msg, NULL) != msg->error_code || msg->error_code || !msg->result)
        return;
    walk(msg->result);
    kix_proto_writer_init(&w, &out);
    kix_proto_msg_init(&again);
    if (kix_proto_begin_response(&w, msg->msgid) || kix_proto_put_value(&w, msg->result) ||
        kix_proto_writer_end(&w, NULL) || kix_proto_decode(out.ptr, out.len, &lim, &again, NULL) ||
        again.type != KIX_PROTO_RESPONSE || again.msgid != msg->msgid || again.error_code)
        abort();
    kix_proto_msg_release(&again);
    kix_buf_release(&out);
}

/* Feeds data in chunks of pseudo-random size from `seed` (whole: at once)
 * and returns a hash of every message and error that came out. */
static uint64_t run(const uint8_t *data, size_t size, uint32_t seed, int whole)
{
    struct kix_proto_reader r;
    struct kix_proto_msg msg;
    struct kix_err err = {0};
    uint64_t trace = 14695981039346656037u;
    size_t at = 0, n, avail;
    uint8_t *space;
    int rc;

    kix_proto_reader_init(&r, &lim);
    while (at < size && !kix_proto_reader_failed(&r)) {
        seed = seed * 1103515245u + 12345u; /* the C standard's example rand() */
        n = whole ? size : 1 + (seed >> 16) % ((seed & 1) ? 8 : 512);
        n = n < size - at ? n : size - at;
        if (!whole && (seed & 2)) {
            if (kix_proto_reader_reserve(&r, n, &space, &avail, NULL))
                break;
            n = n < avail ? n : avail;
            memcpy(space, data + at, n);
            kix_proto_reader_commit(&r, n);
        } else if (kix_proto_reader_feed(&r, data + at, n, NULL)) {
            break;
        }
        at += n;
        while ((rc = kix_proto_reader_next(&r, &msg, &err)) != KIX_PROTO_AGAIN) {
            trace = (trace ^ (uint64_t)(rc * 31 + msg.type) ^ (uint64_t)msg.msgid << 8 ^
                     (uint64_t)msg.frame_len << 40) *
                    1099511628211u;
            if (rc == KIX_OK)
                walk_msg(&msg);
            else if (strstr(err.msg, "kix bug"))
                abort(); /* the scanner and msgpack-c disagree on a frame */
            kix_proto_msg_release(&msg);
            if (kix_proto_reader_failed(&r))
                break;
        }
    }
    trace ^= (uint64_t)(kix_proto_reader_failed(&r) + 100) << 56;
    kix_proto_reader_release(&r);
    return trace;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t chunked;

    if (size == 0)
        return 0;
    chunked = run(data + 1, size - 1, data[0], 0);
    if (size - 1 <= lim.max_message && chunked != run(data + 1, size - 1, 0, 1))
        abort();
    return 0;
}
