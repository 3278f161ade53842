/* Tests for proto/: framing, decoding, encoding, hostile input, msgpack vectors. */
#include "harness.h"

#include <jansson.h>

#include "kix/addr.h"
#include "kix/proto.h"
#include "kix/rpc.h"

/* ---- helpers ---------------------------------------------------------------- */

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;

    while (*hex && n < cap) {
        unsigned v;
        if (*hex == '-' || *hex == ' ') {
            hex++;
            continue;
        }
        if (sscanf(hex, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

static int bytes_is(struct kix_bytes b, const char *s)
{
    return b.len == strlen(s) && memcmp(b.ptr, s, b.len) == 0;
}

#define MAXMSG 16

struct sink {
    struct kix_proto_msg msgs[MAXMSG];
    int n;
};

static void sink_release(struct sink *s)
{
    for (int i = 0; i < s->n; i++)
        kix_proto_msg_release(&s->msgs[i]);
    s->n = 0;
}

/* Takes every whole message out of r; returns the last code (AGAIN when drained). */
static int drain(struct kix_proto_reader *r, struct sink *s, struct kix_err *err)
{
    int rc;

    for (;;) {
        struct kix_proto_msg m;
        rc = kix_proto_reader_next(r, &m, err);
        if (rc != KIX_OK)
            return rc;
        if (s->n < MAXMSG)
            s->msgs[s->n++] = m;
        else
            kix_proto_msg_release(&m);
    }
}

static uint8_t blob[300];

/* Four messages of every type, appended to out. */
static int build_stream(struct kix_buf *out)
{
    struct kix_proto_writer w;
    struct kix_err err;
    int rc;

    for (size_t i = 0; i < sizeof(blob); i++)
        blob[i] = (uint8_t)(i * 7 + 3);
    kix_proto_writer_init(&w, out);

    kix_proto_begin_request(&w, 1, "put");
    kix_proto_put_map(&w, 3);
    kix_proto_put_key(&w, "blob");
    kix_proto_put_bin(&w, blob, sizeof(blob));
    kix_proto_put_key(&w, "name");
    kix_proto_put_cstr(&w, "alpha");
    kix_proto_put_key(&w, "n");
    kix_proto_put_u64(&w, 42);
    rc = kix_proto_writer_end(&w, &err);
    if (rc)
        return rc;

    kix_proto_begin_response(&w, 1);
    kix_proto_put_map(&w, 2);
    kix_proto_put_key(&w, "ok");
    kix_proto_put_bool(&w, true);
    kix_proto_put_key(&w, "seq");
    kix_proto_put_u64(&w, 12345678901ull);
    rc = kix_proto_writer_end(&w, &err);
    if (rc)
        return rc;

    kix_proto_begin_notification(&w, "tick");
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "at");
    kix_proto_put_i64(&w, -5);
    rc = kix_proto_writer_end(&w, &err);
    if (rc)
        return rc;

    return kix_proto_write_error(&w, 9, KIX_EPOLICY, "no role publish", &err);
}

/* Checks the four messages of build_stream; returns NULL or what differs. */
static const char *check_stream(struct sink *s)
{
    struct kix_bytes b;
    uint64_t u;
    int64_t i;
    bool f;
    const struct kix_proto_map *m;

    if (s->n != 4)
        return "message count";
    if (s->msgs[0].type != KIX_PROTO_REQUEST || s->msgs[0].msgid != 1 ||
        !bytes_is(s->msgs[0].method, "put"))
        return "request header";
    if (kix_proto_map_get_bin(s->msgs[0].params, "blob", &b, NULL) || b.len != sizeof(blob) ||
        memcmp(b.ptr, blob, sizeof(blob)) != 0)
        return "request blob";
    if (kix_proto_map_get_str(s->msgs[0].params, "name", &b, NULL) || !bytes_is(b, "alpha"))
        return "request name";
    if (kix_proto_map_get_u64(s->msgs[0].params, "n", &u, NULL) || u != 42)
        return "request n";
    if (s->msgs[1].type != KIX_PROTO_RESPONSE || s->msgs[1].msgid != 1 ||
        s->msgs[1].error_code != 0)
        return "response header";
    if (kix_proto_value_map(s->msgs[1].result, &m, NULL) ||
        kix_proto_map_get_bool(m, "ok", &f, NULL) || !f ||
        kix_proto_map_get_u64(m, "seq", &u, NULL) || u != 12345678901ull)
        return "response result";
    if (s->msgs[2].type != KIX_PROTO_NOTIFICATION || !bytes_is(s->msgs[2].method, "tick") ||
        kix_proto_map_get_i64(s->msgs[2].params, "at", &i, NULL) || i != -5)
        return "notification";
    if (s->msgs[3].type != KIX_PROTO_RESPONSE || s->msgs[3].msgid != 9 ||
        s->msgs[3].error_code != KIX_EPOLICY ||
        !bytes_is(s->msgs[3].error_message, "no role publish") ||
        !kix_proto_value_is_nil(s->msgs[3].result))
        return "error response";
    return NULL;
}

/* ---- encoding and round trips ----------------------------------------------- */

KIX_TEST(exact_bytes)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_err err;
    uint8_t want[64];
    size_t n;

    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, 1, "get"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_map(&w, 1));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_key(&w, "a"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_u64(&w, 1));
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    n = unhex("94 00 01 a3 67 65 74 91 81 a1 61 01", want, sizeof(want));
    ASSERT_EQ_MEM(want, n, out.ptr, out.len);

    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_notification(&w, "t"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_map(&w, 0));
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    n = unhex("93 02 a1 74 91 80", want, sizeof(want));
    ASSERT_EQ_MEM(want, n, out.ptr, out.len);

    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_response(&w, 300));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_bin(&w, "\x01\x02", 2));
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    n = unhex("94 01 cd 01 2c c0 c4 02 01 02", want, sizeof(want));
    ASSERT_EQ_MEM(want, n, out.ptr, out.len);

    /* [1, 7, {"code": -8, "message": "no"}, nil] */
    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_write_error(&w, 7, KIX_EPOLICY, "no", &err));
    n = unhex("94 01 07 82 a4 63 6f 64 65 f8 a7 6d 65 73 73 61 67 65 a2 6e 6f c0", want,
              sizeof(want));
    ASSERT_EQ_MEM(want, n, out.ptr, out.len);
    kix_buf_release(&out);
}

KIX_TEST(roundtrip_every_kind)
{
    static const uint64_t us[] = {0,     1,     127,           128,           255,       256,
                                  65535, 65536, 4294967295ull, 4294967296ull, UINT64_MAX};
    static const int64_t is[] = {INT64_MIN, -2147483649ll, -2147483648ll, -32769, -32768,
                                 -129,      -128,          -33,           -32,    -1};
    struct kix_buf out = KIX_BUF_INIT, again = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_err err;
    struct kix_bytes b;
    const struct kix_proto_map *p, *inner;
    const struct kix_proto_array *arr;
    const struct kix_proto_value *v;
    char big[70000];
    size_t count;
    uint64_t u;
    int64_t i;
    double d;
    bool f;
    int8_t et;

    memset(big, 'x', sizeof(big));
    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, UINT32_MAX, "every.kind"));
    kix_proto_put_map(&w, 14);
    kix_proto_put_key(&w, "nil");
    kix_proto_put_nil(&w);
    kix_proto_put_key(&w, "t");
    kix_proto_put_bool(&w, true);
    kix_proto_put_key(&w, "f");
    kix_proto_put_bool(&w, false);
    kix_proto_put_key(&w, "us");
    kix_proto_put_array(&w, sizeof(us) / sizeof(us[0]));
    for (size_t k = 0; k < sizeof(us) / sizeof(us[0]); k++)
        kix_proto_put_u64(&w, us[k]);
    kix_proto_put_key(&w, "is");
    kix_proto_put_array(&w, sizeof(is) / sizeof(is[0]));
    for (size_t k = 0; k < sizeof(is) / sizeof(is[0]); k++)
        kix_proto_put_i64(&w, is[k]);
    kix_proto_put_key(&w, "pos_i64");
    kix_proto_put_i64(&w, INT64_MAX);
    kix_proto_put_key(&w, "f64");
    kix_proto_put_f64(&w, -1.5e300);
    kix_proto_put_key(&w, "str");
    kix_proto_put_str(&w, "h\0llo", 5);
    kix_proto_put_key(&w, "empty");
    kix_proto_put_cstr(&w, "");
    kix_proto_put_key(&w, "bigstr");
    kix_proto_put_str(&w, big, sizeof(big));
    kix_proto_put_key(&w, "bin");
    kix_proto_put_bin(&w, "\x00\xff", 2);
    kix_proto_put_key(&w, "ext");
    kix_proto_put_ext(&w, -1, "\x5a\x4a\xf6\xa5", 4);
    kix_proto_put_key(&w, "map");
    kix_proto_put_map(&w, 2);
    kix_proto_put_key(&w, "digest");
    kix_proto_put_cstr(&w, "sha256:00ff");
    kix_proto_put_key(&w, "list");
    kix_proto_put_array(&w, 3);
    kix_proto_put_array(&w, 0);
    kix_proto_put_map(&w, 0);
    kix_proto_put_u64(&w, 3);
    kix_proto_put_key(&w, "emptymap");
    kix_proto_put_map(&w, 0);
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));

    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_PROTO_REQUEST, msg.type);
    ASSERT_EQ_U64(UINT32_MAX, msg.msgid);
    ASSERT_TRUE(bytes_is(msg.method, "every.kind"));
    ASSERT_EQ_U64(out.len, msg.frame_len);
    p = msg.params;
    ASSERT_EQ_U64(14, kix_proto_map_count(p));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get(p, "nil", &v, &err));
    ASSERT_TRUE(kix_proto_value_is_nil(v));
    ASSERT_EQ_INT(KIX_PROTO_NIL, kix_proto_kind(v));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(p, "t", &f, &err));
    ASSERT_TRUE(f);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(p, "f", &f, &err));
    ASSERT_TRUE(!f);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(p, "us", &arr, &count, &err));
    ASSERT_EQ_U64(sizeof(us) / sizeof(us[0]), count);
    for (size_t k = 0; k < count; k++) {
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_u64(kix_proto_array_at(arr, k), &u, &err));
        ASSERT_EQ_U64(us[k], u);
    }
    ASSERT_TRUE(kix_proto_array_at(arr, count) == NULL);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(p, "is", &arr, &count, &err));
    ASSERT_EQ_U64(sizeof(is) / sizeof(is[0]), count);
    for (size_t k = 0; k < count; k++) {
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_i64(kix_proto_array_at(arr, k), &i, &err));
        ASSERT_EQ_INT(is[k], i);
    }
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_i64(p, "pos_i64", &i, &err));
    ASSERT_EQ_INT(INT64_MAX, i);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_f64(p, "f64", &d, &err));
    ASSERT_TRUE(d == -1.5e300);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_str(p, "str", &b, &err));
    ASSERT_EQ_MEM("h\0llo", 5, b.ptr, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_str(p, "empty", &b, &err));
    ASSERT_EQ_U64(0, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_str(p, "bigstr", &b, &err));
    ASSERT_EQ_MEM(big, sizeof(big), b.ptr, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bin(p, "bin", &b, &err));
    ASSERT_EQ_MEM("\x00\xff", 2, b.ptr, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get(p, "ext", &v, &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_value_ext(v, &et, &b, &err));
    ASSERT_EQ_INT(-1, et);
    ASSERT_EQ_MEM("\x5a\x4a\xf6\xa5", 4, b.ptr, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_map(p, "map", &inner, &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_str(inner, "digest", &b, &err));
    ASSERT_TRUE(bytes_is(b, "sha256:00ff"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(inner, "list", &arr, &count, &err));
    ASSERT_EQ_U64(3, count);
    ASSERT_EQ_INT(KIX_PROTO_ARRAY, kix_proto_kind(kix_proto_array_at(arr, 0)));
    ASSERT_EQ_INT(KIX_PROTO_MAP, kix_proto_kind(kix_proto_array_at(arr, 1)));
    ASSERT_EQ_INT(KIX_PROTO_INT, kix_proto_kind(kix_proto_array_at(arr, 2)));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_map(p, "emptymap", &inner, &err));
    ASSERT_EQ_U64(0, kix_proto_map_count(inner));

    /* Re-encoding the params with put_value gives the same bytes. */
    kix_proto_writer_init(&w, &again);
    /* put_str is refused at a key position: keys go through put_key. */
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, UINT32_MAX, "every.kind"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_map(&w, kix_proto_map_count(p)));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_str(&w, "nil", 3));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "value put where a map key is due");
    ASSERT_EQ_U64(0, again.len);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, UINT32_MAX, "every.kind"));
    {
        const struct kix_proto_value *key, *val;
        char name[64];
        kix_proto_put_map(&w, kix_proto_map_count(p));
        for (size_t k = 0; k < kix_proto_map_count(p); k++) {
            kix_proto_map_at(p, k, &key, &val);
            ASSERT_EQ_INT(KIX_OK, kix_proto_value_str(key, &b, &err));
            snprintf(name, sizeof(name), "%.*s", (int)b.len, (const char *)b.ptr);
            kix_proto_put_key(&w, name);
            kix_proto_put_value(&w, val);
        }
    }
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    ASSERT_EQ_MEM(out.ptr, out.len, again.ptr, again.len);

    kix_proto_msg_release(&msg);
    kix_proto_msg_release(&msg); /* idempotent */
    kix_buf_release(&out);
    kix_buf_release(&again);
}

KIX_TEST(response_error_decode)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_err err, perr;

    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_write_error(&w, 77, KIX_EVERIFY, "bad signature", &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_PROTO_RESPONSE, msg.type);
    ASSERT_EQ_U64(77, msg.msgid);
    ASSERT_EQ_INT(KIX_EVERIFY, msg.error_code);
    ASSERT_TRUE(bytes_is(msg.error_message, "bad signature"));
    ASSERT_TRUE(kix_proto_value_is_nil(msg.result));
    ASSERT_TRUE(msg.params == NULL);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_proto_msg_error(&msg, &perr));
    ASSERT_EQ_STR("peer error EVERIFY: bad signature", perr.msg);
    kix_proto_msg_release(&msg);

    /* A success response reports no error. */
    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_response(&w, 78));
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_cstr(&w, "fine"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_msg_error(&msg, &perr));
    ASSERT_EQ_INT(0, msg.error_code);
    kix_proto_msg_release(&msg);
    kix_buf_release(&out);
}

/* ---- framing ----------------------------------------------------------------- */

KIX_TEST(pipelined_one_feed)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_reader r;
    struct sink s = {.n = 0};
    struct kix_err err;
    const char *bad;

    ASSERT_EQ_INT(KIX_OK, build_stream(&out));
    kix_proto_reader_init(&r, NULL);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, out.ptr, out.len, &err));
    ASSERT_EQ_INT(KIX_PROTO_AGAIN, drain(&r, &s, &err));
    bad = check_stream(&s);
    ASSERT_TRUE(bad == NULL);
    ASSERT_EQ_U64(0, kix_proto_reader_buffered(&r));
    /* Frame lengths add up to the stream. */
    ASSERT_EQ_U64(out.len, s.msgs[0].frame_len + s.msgs[1].frame_len + s.msgs[2].frame_len +
                               s.msgs[3].frame_len);
    sink_release(&s);
    kix_proto_reader_release(&r);
    kix_buf_release(&out);
}

KIX_TEST(split_at_every_byte)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err;

    ASSERT_EQ_INT(KIX_OK, build_stream(&out));
    for (size_t k = 0; k <= out.len; k++) {
        struct kix_proto_reader r;
        struct sink s = {.n = 0};
        const char *bad;

        kix_proto_reader_init(&r, NULL);
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, out.ptr, k, &err));
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, drain(&r, &s, &err));
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, out.ptr + k, out.len - k, &err));
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, drain(&r, &s, &err));
        bad = check_stream(&s);
        if (bad)
            KIX_FAIL_AT("split at %zu of %zu: %s", k, out.len, bad);
        ASSERT_EQ_U64(0, kix_proto_reader_buffered(&r));
        sink_release(&s);
        kix_proto_reader_release(&r);
    }
    kix_buf_release(&out);
}

KIX_TEST(byte_at_a_time_zero_copy)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_reader r;
    struct sink s = {.n = 0};
    struct kix_err err;
    const char *bad;

    ASSERT_EQ_INT(KIX_OK, build_stream(&out));
    kix_proto_reader_init(&r, NULL);
    for (size_t k = 0; k < out.len; k++) {
        uint8_t *space;
        size_t avail;
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_reserve(&r, 1, &space, &avail, &err));
        ASSERT_TRUE(avail >= 1);
        *space = out.ptr[k];
        kix_proto_reader_commit(&r, 1);
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, drain(&r, &s, &err));
    }
    bad = check_stream(&s);
    ASSERT_TRUE(bad == NULL);
    sink_release(&s);
    kix_proto_reader_release(&r);
    kix_buf_release(&out);
}

KIX_TEST(big_message_in_chunks)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_proto_reader r;
    struct sink s = {.n = 0};
    struct kix_err err;
    struct kix_bytes b;
    size_t big = (size_t)3 << 20, peak = 0;
    uint8_t *data = malloc(big);

    ASSERT_TRUE(data != NULL);
    for (size_t k = 0; k < big; k++)
        data[k] = (uint8_t)(k * 31);
    kix_proto_writer_init(&w, &out);
    kix_proto_begin_request(&w, 5, "put");
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "blob");
    kix_proto_put_bin(&w, data, big);
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));

    kix_proto_reader_init(&r, NULL);
    for (size_t off = 0; off < out.len; off += KIX_PROTO_READ_CHUNK) {
        size_t n = out.len - off < KIX_PROTO_READ_CHUNK ? out.len - off : KIX_PROTO_READ_CHUNK;
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, out.ptr + off, n, &err));
        if (kix_proto_reader_allocated(&r) > peak)
            peak = kix_proto_reader_allocated(&r);
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, drain(&r, &s, &err));
    }
    ASSERT_EQ_INT(1, s.n);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bin(s.msgs[0].params, "blob", &b, &err));
    ASSERT_TRUE(b.len == big && memcmp(b.ptr, data, big) == 0);
    /* Growth by doubling: at most twice the message. */
    ASSERT_TRUE(peak <= 2 * out.len);
    /* A big buffer is given back once drained. */
    ASSERT_EQ_U64(0, kix_proto_reader_allocated(&r));
    sink_release(&s);
    kix_proto_reader_release(&r);
    kix_buf_release(&out);
    free(data);
}

KIX_TEST(truncated_frames)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_reader r;
    struct kix_proto_msg msg;
    struct kix_err err;
    size_t first = 0;

    ASSERT_EQ_INT(KIX_OK, build_stream(&out));
    /* Every strict prefix of the first message is "need more", never an error. */
    {
        struct kix_proto_scanner sc;
        kix_proto_scanner_init(&sc, NULL);
        ASSERT_EQ_INT(KIX_OK, kix_proto_scan(&sc, out.ptr, out.len, &first, &err));
        ASSERT_EQ_U64(331, first);
    }
    for (size_t k = 0; k < first; k++) {
        struct kix_proto_scanner sc;
        size_t flen = 0;
        kix_proto_scanner_init(&sc, NULL);
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, kix_proto_scan(&sc, out.ptr, k, &flen, &err));
    }
    kix_proto_reader_init(&r, NULL);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, out.ptr, 20, &err));
    ASSERT_EQ_INT(KIX_PROTO_AGAIN, kix_proto_reader_next(&r, &msg, &err));
    ASSERT_EQ_INT(0, kix_proto_reader_failed(&r));
    ASSERT_EQ_U64(20, kix_proto_reader_buffered(&r));
    kix_proto_reader_release(&r);

    ASSERT_EQ_INT(KIX_EPROTO, kix_proto_decode(out.ptr, 20, NULL, &msg, &err));
    ASSERT_CONTAINS(err.msg, "truncated message");
    ASSERT_EQ_INT(KIX_EPROTO, kix_proto_decode(out.ptr, out.len, NULL, &msg, &err));
    ASSERT_CONTAINS(err.msg, "trailing bytes");
    kix_buf_release(&out);
}

/* ---- hostile input ---------------------------------------------------------- */

/* Feeds bytes to a fresh reader and expects `code` from next with `needle`
 * in the message, the reader failed (for errors), and its memory small. */
static void expect_reader(const uint8_t *bytes, size_t len, const struct kix_proto_limits *lim,
                          int code, const char *needle)
{
    struct kix_proto_reader r;
    struct kix_proto_msg msg;
    struct kix_err err = {0};
    int rc;

    kix_proto_reader_init(&r, lim);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, bytes, len, &err));
    rc = kix_proto_reader_next(&r, &msg, &err);
    ASSERT_EQ_INT(code, rc);
    if (needle)
        ASSERT_CONTAINS(err.msg, needle);
    /* Memory is what the bytes took, never what a header declared. */
    ASSERT_TRUE(kix_proto_reader_allocated(&r) <= (len < 2048 ? 4096 : 2 * len + 1));
    if (code != KIX_PROTO_AGAIN) {
        ASSERT_EQ_INT(code, kix_proto_reader_failed(&r));
        /* Sticky: the connection must be closed. */
        ASSERT_EQ_INT(code, kix_proto_reader_next(&r, &msg, &err));
        ASSERT_CONTAINS(err.msg, "close the connection");
        ASSERT_EQ_INT(code, kix_proto_reader_feed(&r, "x", 1, &err));
    }
    kix_proto_msg_release(&msg);
    kix_proto_reader_release(&r);
}

KIX_TEST(hostile_str32_4gib)
{
    /* [0, 1, str32 of 4 GiB - 1 ... */
    static const uint8_t b[] = {0x94, 0x00, 0x01, 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'};
    expect_reader(b, sizeof(b), NULL, KIX_ELIMIT,
                  "str of 4294967295 bytes at offset 3 does not fit the 16777216-byte message "
                  "limit");
}

KIX_TEST(hostile_bin32_4gib)
{
    static const uint8_t b[] = {0x94, 0x00, 0x01, 0xa1, 'm',  0x91, 0x81,
                                0xa1, 'b',  0xc6, 0xff, 0xff, 0xff, 0xff};
    expect_reader(b, sizeof(b), NULL, KIX_ELIMIT, "bin of 4294967295 bytes at offset 9");
}

KIX_TEST(hostile_ext32_4gib)
{
    static const uint8_t b[] = {0x94, 0x00, 0x01, 0xc9, 0xff, 0xff, 0xff, 0xf0, 0x01};
    expect_reader(b, sizeof(b), NULL, KIX_ELIMIT, "ext of 4294967280 bytes");
}

KIX_TEST(hostile_array32_4g)
{
    static const uint8_t b[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0xdd, 0xff, 0xff, 0xff, 0xff};
    expect_reader(b, sizeof(b), NULL, KIX_ELIMIT,
                  "array of 4294967295 entries at offset 5 takes the message past the limit of "
                  "1048576 array/map elements");
}

KIX_TEST(hostile_map32_4g)
{
    static const uint8_t b[] = {0xdf, 0xff, 0xff, 0xff, 0xff};
    struct kix_proto_scanner sc;
    struct kix_err err;
    size_t flen;

    kix_proto_scanner_init(&sc, NULL);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_scan(&sc, b, sizeof(b), &flen, &err));
    ASSERT_CONTAINS(err.msg, "map of 4294967295 entries at offset 0");
    /* Inside a message through the reader too. */
    {
        static const uint8_t m[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0x91,
                                    0xdf, 0xff, 0xff, 0xff, 0xff};
        expect_reader(m, sizeof(m), NULL, KIX_ELIMIT, "map of 4294967295 entries at offset 6");
    }
}

KIX_TEST(hostile_array_beyond_bytes)
{
    /* 600k elements fit max_items but not a 64 KiB message: refused at once. */
    static const uint8_t b[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0xdd, 0x00, 0x09, 0x27, 0xc0};
    struct kix_proto_limits lim;

    kix_proto_limits_default(&lim);
    lim.max_message = 65536;
    expect_reader(b, sizeof(b), &lim, KIX_ELIMIT,
                  "array of 600000 entries at offset 5 cannot fit the 65536-byte message limit");
}

KIX_TEST(hostile_declared_but_absent)
{
    /* Lengths within the limits whose bytes have not come: wait, allocate nothing for them. */
    static const uint8_t s[] = {0x94, 0x00, 0x01, 0xdb, 0x00, 0xf0, 0x00, 0x00, 'a'};
    static const uint8_t a[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0xdd, 0x00, 0x09, 0x27, 0xc0};
    static const uint8_t m[] = {0x94, 0x00, 0x01, 0xa1, 'm',  0x91, 0xdf,
                                0x00, 0x03, 0xd0, 0x90, 0xa1, 0x20};
    expect_reader(s, sizeof(s), NULL, KIX_PROTO_AGAIN, NULL);
    expect_reader(a, sizeof(a), NULL, KIX_PROTO_AGAIN, NULL);
    expect_reader(m, sizeof(m), NULL, KIX_PROTO_AGAIN, NULL);
}

KIX_TEST(hostile_nesting_1e5)
{
    size_t n = 100000;
    uint8_t *b = malloc(n);

    ASSERT_TRUE(b != NULL);
    memset(b, 0x91, n);
    expect_reader(b, n, NULL, KIX_ELIMIT, "array at offset 32 nests deeper than the limit of 32");
    memset(b, 0x81, n); /* maps: {{{...}}} as keys */
    {
        struct kix_proto_scanner sc;
        struct kix_err err;
        size_t flen;
        kix_proto_scanner_init(&sc, NULL);
        ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_scan(&sc, b, n, &flen, &err));
        ASSERT_CONTAINS(err.msg, "map at offset 32 nests deeper");
    }
    free(b);
}

/* A request whose params field "x" holds `extra` nested arrays. */
static size_t nested_request(uint8_t *b, unsigned extra)
{
    static const uint8_t head[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0x91, 0x81, 0xa1, 'x'};
    size_t n = sizeof(head);

    memcpy(b, head, n);
    for (unsigned i = 0; i < extra; i++)
        b[n++] = 0x91;
    b[n++] = 0x07;
    return n;
}

KIX_TEST(nesting_at_the_limit)
{
    uint8_t b[64];
    struct kix_proto_msg msg;
    struct kix_err err;
    const struct kix_proto_value *v;
    const struct kix_proto_array *a;
    size_t n, count;
    uint64_t u;

    /* message array, params array, params map = 3 levels; 29 more = 32. */
    n = nested_request(b, 29);
    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(b, n, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get(msg.params, "x", &v, &err));
    for (int i = 0; i < 29; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_array(v, &a, &count, &err));
        ASSERT_EQ_U64(1, count);
        v = kix_proto_array_at(a, 0);
    }
    ASSERT_EQ_INT(KIX_OK, kix_proto_value_u64(v, &u, &err));
    ASSERT_EQ_U64(7, u);
    kix_proto_msg_release(&msg);

    n = nested_request(b, 30);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_decode(b, n, NULL, &msg, &err));
    ASSERT_CONTAINS(err.msg, "nests deeper than the limit of 32 levels");

    /* A lower limit is honoured. */
    {
        struct kix_proto_limits lim;
        kix_proto_limits_default(&lim);
        lim.max_depth = 4;
        n = nested_request(b, 1);
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(b, n, &lim, &msg, &err));
        kix_proto_msg_release(&msg);
        n = nested_request(b, 2);
        ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_decode(b, n, &lim, &msg, &err));
        ASSERT_CONTAINS(err.msg, "limit of 4 levels");
    }
}

KIX_TEST(hostile_garbage)
{
    static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    static const uint8_t c1[] = {0xc1, 0x00};
    static const uint8_t inner_c1[] = {0x94, 0x00, 0x01, 0xa1, 'm', 0x91, 0x81, 0xa1, 'a', 0xc1};
    static const uint8_t map_top[] = {0x81, 0xa1, 'a', 0x01};

    expect_reader((const uint8_t *)http, sizeof(http) - 1, NULL, KIX_EPROTO,
                  "message: expected an array [type, ...], got int");
    expect_reader(c1, sizeof(c1), NULL, KIX_EPROTO, "byte 0xc1 at offset 0 starts no msgpack type");
    expect_reader(inner_c1, sizeof(inner_c1), NULL, KIX_EPROTO,
                  "byte 0xc1 at offset 9 starts no msgpack type");
    expect_reader(map_top, sizeof(map_top), NULL, KIX_EPROTO,
                  "message: expected an array [type, ...], got map");
}

KIX_TEST(limits_message_and_items)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_proto_limits lim;
    struct kix_err err;

    kix_proto_writer_init(&w, &out);
    kix_proto_begin_request(&w, 1, "m");
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "list");
    kix_proto_put_array(&w, 20);
    for (int i = 0; i < 20; i++)
        kix_proto_put_u64(&w, (uint64_t)i);
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));

    /* message array 4 + params array 1 + map 2 + list 20 = 27 elements. */
    kix_proto_limits_default(&lim);
    lim.max_items = 27;
    {
        struct kix_proto_msg msg;
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, &lim, &msg, &err));
        kix_proto_msg_release(&msg);
    }
    lim.max_items = 26;
    expect_reader(out.ptr, out.len, &lim, KIX_ELIMIT,
                  "array of 20 entries at offset 12 takes the message past the limit of 26");

    kix_proto_limits_default(&lim);
    lim.max_message = out.len - 1;
    expect_reader(out.ptr, out.len, &lim, KIX_ELIMIT, "limit");
    lim.max_message = out.len;
    {
        struct kix_proto_msg msg;
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, &lim, &msg, &err));
        kix_proto_msg_release(&msg);
    }
    kix_buf_release(&out);
}

KIX_TEST(feed_bound)
{
    struct kix_proto_reader r;
    struct kix_proto_limits lim;
    struct kix_err err;
    uint8_t *junk;
    uint8_t *space;
    size_t avail, bound;

    kix_proto_limits_default(&lim);
    lim.max_message = 1000;
    bound = 1000 + KIX_PROTO_READ_CHUNK;
    junk = calloc(1, bound + 1);
    ASSERT_TRUE(junk != NULL);

    kix_proto_reader_init(&r, &lim);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_reader_feed(&r, junk, bound + 1, &err));
    ASSERT_CONTAINS(err.msg, "over the 66536-byte bound");
    ASSERT_EQ_INT(0, kix_proto_reader_allocated(&r));
    kix_proto_reader_release(&r);

    /* Exactly the bound is accepted; reserve then offers nothing more. */
    kix_proto_reader_init(&r, &lim);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, junk, bound, &err));
    ASSERT_TRUE(kix_proto_reader_allocated(&r) <= bound + 1);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_reader_reserve(&r, 4096, &space, &avail, &err));
    ASSERT_CONTAINS(err.msg, "receive buffer is full");
    kix_proto_reader_release(&r);

    /* reserve clamps to the bound. */
    kix_proto_reader_init(&r, &lim);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_reserve(&r, (size_t)1 << 30, &space, &avail, &err));
    ASSERT_TRUE(avail > 0 && avail <= bound);
    ASSERT_TRUE(kix_proto_reader_allocated(&r) <= bound + 1);
    kix_proto_reader_release(&r);
    free(junk);
}

KIX_TEST(oversize_frame_without_declared_length)
{
    /* An array of many small values: no single header is too long, but the
     * frame passes max_message; the reader stops at the limit. */
    struct kix_proto_limits lim;
    struct kix_proto_reader r;
    struct kix_proto_msg msg;
    struct kix_err err;
    uint8_t chunk[512];
    int rc = KIX_PROTO_AGAIN;

    kix_proto_limits_default(&lim);
    lim.max_message = 4096;
    kix_proto_reader_init(&r, &lim);
    /* [0, 1, array16 of 4000 x [nil]]: 8 KiB, each header small. */
    for (size_t k = 0; k < sizeof(chunk); k += 2) {
        chunk[k] = 0x91;
        chunk[k + 1] = 0xc0;
    }
    memcpy(chunk, "\x94\x00\x01\xdc\x0f\xa0", 6);
    ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, chunk, sizeof(chunk), &err));
    memcpy(chunk, "\x91\xc0\x91\xc0\x91\xc0", 6);
    for (int i = 0; i < 20 && rc == KIX_PROTO_AGAIN; i++) {
        rc = kix_proto_reader_next(&r, &msg, &err);
        if (rc == KIX_PROTO_AGAIN)
            ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, chunk, sizeof(chunk), &err));
    }
    ASSERT_EQ_INT(KIX_ELIMIT, rc);
    ASSERT_CONTAINS(err.msg, "longer than the 4096-byte limit (header at offset 4096)");
    ASSERT_TRUE(kix_proto_reader_buffered(&r) <= 4096 + sizeof(chunk));
    kix_proto_reader_release(&r);
}

/* ---- message shapes ------------------------------------------------------------ */

struct shape_case {
    const char *hex;
    const char *needle;
    int answerable; /* a request whose msgid was read */
};

KIX_TEST(wrong_shapes)
{
    static const struct shape_case cases[] = {
        {"90", "message: empty array; expected [type, ...]", 0},
        {"94 a1 78 01 a1 6d 91 80", "message type: expected int 0, 1 or 2, got str", 0},
        {"94 03 01 a1 6d 91 80", "message type 3 is not 0 (request), 1 (response) or 2", 0},
        /* wrong length, msgid readable: answered with EPROTO (PROTOCOL.md §1.4) */
        {"93 00 01 a1 6d", "request: expected 4 elements [0, msgid, method, params], got 3", 1},
        {"95 00 01 a1 6d 91 80 c0", "request: expected 4 elements", 1},
        {"92 00 01", "request: expected 4 elements", 1},
        {"91 00", "request: expected 4 elements", 0},
        {"95 00 a1 31 a1 6d 91 80 c0", "request: expected 4 elements", 0},
        {"94 00 ff a1 6d 91 80", "request msgid: expected uint32, got int", 0},
        {"94 00 a1 31 a1 6d 91 80", "request msgid: expected uint32, got str", 0},
        {"94 00 cf 00 00 00 01 00 00 00 00 a1 6d 91 80", "request msgid 4294967296 does not fit",
         0},
        {"94 00 01 05 91 80", "request method: expected str, got int", 1},
        {"94 00 01 c4 01 6d 91 80", "request method: expected str, got bin", 1},
        {"94 00 01 a1 6d 80", "request params: expected an array holding one map, got map", 1},
        {"94 00 01 a1 6d 90", "request params: expected an array holding one map, got 0", 1},
        {"94 00 01 a1 6d 92 80 80", "request params: expected an array holding one map, got 2", 1},
        {"94 00 01 a1 6d 91 01", "request params[0]: expected map, got int", 1},
        {"94 00 01 a1 6d 91 81 01 02", "request params: key 0 is int; field names must be str", 1},
        {"92 02 a1 6d", "notification: expected 3 elements [2, method, params], got 2", 0},
        {"93 02 c0 91 80", "notification method: expected str, got nil", 0},
        {"93 02 a1 6d c0", "notification params: expected an array holding one map, got nil", 0},
        {"93 01 01 c0", "response: expected 4 elements [1, msgid, error, result], got 3", 0},
        {"94 01 c0 c0 c0", "response msgid: expected uint32, got nil", 0},
        {"94 01 01 a4 6f 6f 70 73 c0", "response error: expected nil or a map {code, message}", 0},
        {"94 01 01 82 a4 63 6f 64 65 05 a7 6d 65 73 73 61 67 65 a1 78 c0",
         "response error: code 5 is not a negative kix error code", 0},
        {"94 01 01 81 a7 6d 65 73 73 61 67 65 a1 78 c0", "response error: missing field \"code\"",
         0},
        {"94 01 01 81 a4 63 6f 64 65 f8 c0", "response error: missing field \"message\"", 0},
        {"94 01 01 82 a4 63 6f 64 65 f8 a7 6d 65 73 73 61 67 65 01 c0",
         "response error: field \"message\": expected str, got int", 0},
    };
    /* A good notification that must still decode after each bad frame. */
    static const uint8_t good[] = {0x93, 0x02, 0xa2, 'o', 'k', 0x91, 0x80};

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        uint8_t b[64];
        size_t n = unhex(cases[c].hex, b, sizeof(b));
        struct kix_proto_reader r;
        struct kix_proto_msg msg;
        struct kix_err err = {0};
        int rc;

        /* Whole-buffer decode. */
        rc = kix_proto_decode(b, n, NULL, &msg, &err);
        if (rc != KIX_EPROTO || !strstr(err.msg, cases[c].needle))
            KIX_FAIL_AT("case %zu (%s): rc %d, message \"%s\", want \"%s\"", c, cases[c].hex, rc,
                        err.msg, cases[c].needle);
        ASSERT_TRUE(msg.doc == NULL);
        ASSERT_EQ_INT(cases[c].answerable ? KIX_PROTO_REQUEST : KIX_PROTO_INVALID, msg.type);
        if (cases[c].answerable)
            ASSERT_EQ_U64(1, msg.msgid);

        /* Through the reader: the frame is consumed, the stream stays usable. */
        kix_proto_reader_init(&r, NULL);
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, b, n, &err));
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, good, sizeof(good), &err));
        ASSERT_EQ_INT(KIX_EPROTO, kix_proto_reader_next(&r, &msg, &err));
        ASSERT_CONTAINS(err.msg, cases[c].needle);
        ASSERT_EQ_INT(0, kix_proto_reader_failed(&r));
        ASSERT_EQ_INT(KIX_OK, kix_proto_reader_next(&r, &msg, &err));
        ASSERT_TRUE(bytes_is(msg.method, "ok"));
        kix_proto_msg_release(&msg);
        ASSERT_EQ_INT(KIX_PROTO_AGAIN, kix_proto_reader_next(&r, &msg, &err));
        kix_proto_reader_release(&r);
    }
}

/* ---- accessors ------------------------------------------------------------------ */

KIX_TEST(accessor_errors)
{
    /* {"n": 5, "s": "x", "neg": -3, "big": 2^63, "dup": 1, "dup": 2, "l": [1, ""]} */
    static const char *hex = "94 00 01 a1 6d 91 87"
                             " a1 6e 05"
                             " a1 73 a1 78"
                             " a3 6e 65 67 fd"
                             " a3 62 69 67 cf 80 00 00 00 00 00 00 00"
                             " a3 64 75 70 01"
                             " a3 64 75 70 02"
                             " a1 6c 92 01 a0";
    uint8_t b[128];
    size_t n = unhex(hex, b, sizeof(b)), count;
    struct kix_proto_msg msg;
    struct kix_err err;
    struct kix_bytes s;
    const struct kix_proto_map *m, *inner;
    const struct kix_proto_array *a;
    const struct kix_proto_value *v;
    uint64_t u;
    int64_t i;
    double d;
    bool f;
    int8_t et;

    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(b, n, NULL, &msg, &err));
    m = msg.params;
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_str(m, "n", &s, &err));
    ASSERT_EQ_STR("field \"n\": expected str, got int", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_bin(m, "s", &s, &err));
    ASSERT_EQ_STR("field \"s\": expected bin, got str", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_u64(m, "s", &u, &err));
    ASSERT_EQ_STR("field \"s\": expected int, got str", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_u64(m, "neg", &u, &err));
    ASSERT_EQ_STR("field \"neg\": expected a non-negative int, got a negative int", err.msg);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_i64(m, "neg", &i, &err));
    ASSERT_EQ_INT(-3, i);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_i64(m, "big", &i, &err));
    ASSERT_EQ_STR("field \"big\": expected an int64, got an int above 2^63-1", err.msg);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_u64(m, "big", &u, &err));
    ASSERT_EQ_U64((uint64_t)1 << 63, u);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_bool(m, "n", &f, &err));
    ASSERT_EQ_STR("field \"n\": expected bool, got int", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_f64(m, "n", &d, &err));
    ASSERT_EQ_STR("field \"n\": expected float, got int", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_map(m, "l", &inner, &err));
    ASSERT_EQ_STR("field \"l\": expected map, got array", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_array(m, "s", &a, &count, &err));
    ASSERT_EQ_STR("field \"s\": expected array, got str", err.msg);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_proto_map_get_str(m, "digest", &s, &err));
    ASSERT_EQ_STR("missing field \"digest\"", err.msg);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_proto_map_get(m, "N", &v, &err)); /* case matters */
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_proto_map_get(m, "", &v, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_u64(m, "dup", &u, &err));
    ASSERT_EQ_STR("field \"dup\" appears more than once; send each field once", err.msg);

    /* Per-element access, no field name in the message. */
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(m, "l", &a, &count, &err));
    ASSERT_EQ_U64(2, count);
    ASSERT_EQ_U64(2, kix_proto_array_count(a));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_value_u64(kix_proto_array_at(a, 1), &u, &err));
    ASSERT_EQ_STR("expected int, got str", err.msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_value_ext(kix_proto_array_at(a, 1), &et, &s, &err));
    ASSERT_EQ_STR("expected ext, got str", err.msg);
    ASSERT_TRUE(kix_proto_array_at(a, 2) == NULL);
    ASSERT_TRUE(!kix_proto_value_is_nil(kix_proto_array_at(a, 0)));
    ASSERT_EQ_STR("float", kix_proto_kind_name(KIX_PROTO_FLOAT));
    ASSERT_EQ_STR("unknown", kix_proto_kind_name(99));
    kix_proto_msg_release(&msg);

    /* A msg that was never decoded releases cleanly. */
    kix_proto_msg_init(&msg);
    ASSERT_EQ_INT(KIX_PROTO_INVALID, msg.type);
    kix_proto_msg_release(&msg);
}

/* ---- writer misuse --------------------------------------------------------------- */

KIX_TEST(writer_misuse)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_err err;
    size_t first;

    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_u64(&w, 1));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "no message begun");
    ASSERT_EQ_U64(0, out.len);

    /* A good message stays when later ones fail. */
    ASSERT_EQ_INT(KIX_OK, kix_proto_write_error(&w, 1, KIX_EINVAL, "x", &err));
    first = out.len;

    kix_proto_begin_request(&w, 2, "m");
    kix_proto_put_map(&w, 2);
    kix_proto_put_key(&w, "a");
    kix_proto_put_u64(&w, 1);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "message incomplete: 2 more entries due at nesting level 3");
    ASSERT_EQ_U64(first, out.len);

    kix_proto_begin_request(&w, 2, "m");
    kix_proto_put_map(&w, 0);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_u64(&w, 1));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "message already complete");
    ASSERT_EQ_U64(first, out.len);

    kix_proto_begin_request(&w, 2, "m");
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_array(&w, 1));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "params must be a map");

    kix_proto_begin_request(&w, 2, "m");
    kix_proto_put_map(&w, 1);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_u64(&w, 1));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "value put where a map key is due");

    kix_proto_begin_request(&w, 2, "m");
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "a");
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_key(&w, "b"));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "map key put where a value is due");

    kix_proto_begin_response(&w, 3);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_key(&w, "a"));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));

    kix_proto_begin_response(&w, 3);
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_begin_response(&w, 4));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "before the previous one was ended");
    ASSERT_EQ_U64(first, out.len);

    /* Depth: the response array is level 1; 31 more nested arrays fill 32. */
    kix_proto_begin_response(&w, 3);
    for (int i = 0; i < 31; i++)
        ASSERT_EQ_INT(KIX_OK, kix_proto_put_array(&w, 1));
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_put_array(&w, 1));
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "nesting deeper than 32 levels");
    ASSERT_EQ_U64(first, out.len);

    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_write_error(&w, 1, 3, "positive", &err));
    ASSERT_CONTAINS(err.msg, "error code 3 is not a negative");
    ASSERT_EQ_U64(first, out.len);

    w.max_message = 100;
    kix_proto_begin_response(&w, 3);
    {
        char big[200];
        memset(big, 'z', sizeof(big));
        kix_proto_put_str(&w, big, sizeof(big));
    }
    ASSERT_EQ_INT(KIX_ELIMIT, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "exceeds the 100-byte message limit");
    ASSERT_EQ_U64(first, out.len);

    /* Still usable afterwards. */
    w.max_message = KIX_PROTO_MAX_MESSAGE_DEFAULT;
    ASSERT_EQ_INT(KIX_OK, kix_proto_write_error(&w, 5, KIX_ELIMIT, "too big", &err));
    ASSERT_TRUE(out.len > first);
    kix_buf_release(&out);
}

/* ---- msgpack-test-suite vectors ------------------------------------------------------ */

static int json_matches(json_t *want, const struct kix_proto_value *v);

static int number_matches(double want_d, long long want_i, int is_int,
                          const struct kix_proto_value *v)
{
    double d;
    int64_t i;
    uint64_t u;

    switch (kix_proto_kind(v)) {
    case KIX_PROTO_FLOAT:
        return kix_proto_value_f64(v, &d, NULL) == KIX_OK && d == want_d;
    case KIX_PROTO_INT:
        if (!is_int)
            return 0;
        if (want_i < 0)
            return kix_proto_value_i64(v, &i, NULL) == KIX_OK && i == want_i;
        return kix_proto_value_u64(v, &u, NULL) == KIX_OK && u == (uint64_t)want_i;
    default:
        return 0;
    }
}

static int json_matches(json_t *want, const struct kix_proto_value *v)
{
    struct kix_bytes b;
    bool f;

    switch (json_typeof(want)) {
    case JSON_NULL:
        return kix_proto_value_is_nil(v);
    case JSON_TRUE:
    case JSON_FALSE:
        return kix_proto_value_bool(v, &f, NULL) == KIX_OK && f == json_is_true(want);
    case JSON_INTEGER:
        return number_matches((double)json_integer_value(want), json_integer_value(want), 1, v);
    case JSON_REAL:
        return number_matches(json_real_value(want), 0, 0, v);
    case JSON_STRING:
        return kix_proto_value_str(v, &b, NULL) == KIX_OK && b.len == json_string_length(want) &&
               memcmp(b.ptr, json_string_value(want), b.len) == 0;
    case JSON_ARRAY: {
        const struct kix_proto_array *a;
        size_t count;
        if (kix_proto_value_array(v, &a, &count, NULL) || count != json_array_size(want))
            return 0;
        for (size_t i = 0; i < count; i++)
            if (!json_matches(json_array_get(want, i), kix_proto_array_at(a, i)))
                return 0;
        return 1;
    }
    case JSON_OBJECT: {
        const struct kix_proto_map *m;
        const struct kix_proto_value *e;
        const char *key;
        json_t *val;
        if (kix_proto_value_map(v, &m, NULL) || kix_proto_map_count(m) != json_object_size(want))
            return 0;
        json_object_foreach(want, key, val)
        {
            if (kix_proto_map_get(m, key, &e, NULL) || !json_matches(val, e))
                return 0;
        }
        return 1;
    }
    }
    return 0;
}

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Compares a decoded value with one test-suite case. */
static int case_matches(json_t *c, const struct kix_proto_value *v)
{
    json_t *x;
    struct kix_bytes b;
    uint8_t want[64];
    size_t n;
    int8_t type;

    if ((x = json_object_get(c, "bignum"))) {
        const char *s = json_string_value(x);
        int64_t i;
        uint64_t u;
        double d;
        if (kix_proto_kind(v) == KIX_PROTO_FLOAT)
            return kix_proto_value_f64(v, &d, NULL) == KIX_OK && d == strtod(s, NULL);
        if (s[0] == '-')
            return kix_proto_value_i64(v, &i, NULL) == KIX_OK && i == strtoll(s, NULL, 10);
        return kix_proto_value_u64(v, &u, NULL) == KIX_OK && u == strtoull(s, NULL, 10);
    }
    if ((x = json_object_get(c, "binary"))) {
        n = unhex(json_string_value(x), want, sizeof(want));
        return kix_proto_value_bin(v, &b, NULL) == KIX_OK && b.len == n &&
               memcmp(b.ptr, want, n) == 0;
    }
    if ((x = json_object_get(c, "ext"))) {
        n = unhex(json_string_value(json_array_get(x, 1)), want, sizeof(want));
        return kix_proto_value_ext(v, &type, &b, NULL) == KIX_OK &&
               type == json_integer_value(json_array_get(x, 0)) && b.len == n &&
               memcmp(b.ptr, want, n) == 0;
    }
    if ((x = json_object_get(c, "timestamp"))) {
        uint64_t sec = 0, nsec = 0;
        if (kix_proto_value_ext(v, &type, &b, NULL) || type != -1)
            return 0;
        if (b.len == 4) {
            sec = be(b.ptr, 4);
        } else if (b.len == 8) {
            nsec = be(b.ptr, 8) >> 34;
            sec = be(b.ptr, 8) & 0x3ffffffffull;
        } else if (b.len == 12) {
            nsec = be(b.ptr, 4);
            sec = be(b.ptr + 4, 8);
        } else {
            return 0;
        }
        return (int64_t)sec == json_integer_value(json_array_get(x, 0)) &&
               (int64_t)nsec == json_integer_value(json_array_get(x, 1));
    }
    static const char *const keys[] = {"nil", "bool", "number", "string", "array", "map"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if ((x = json_object_get(c, keys[k])))
            return json_matches(x, v);
    return 0;
}

KIX_TEST(msgpack_test_suite_vectors)
{
    /* [2, "v", [{"v": VALUE}]] */
    static const uint8_t head[] = {0x93, 0x02, 0xa1, 'v', 0x91, 0x81, 0xa1, 'v'};
    char *text = kix_test_read_file("vectors/msgpack/msgpack-test-suite.json", NULL);
    json_error_t jerr;
    json_t *root, *cases, *c, *enc;
    const char *file;
    size_t ci, ei, checked = 0, ncases = 0;

    ASSERT_TRUE(text != NULL);
    root = json_loads(text, 0, &jerr);
    free(text);
    ASSERT_TRUE(root != NULL);
    json_object_foreach(root, file, cases)
    {
        json_array_foreach(cases, ci, c)
        {
            ncases++;
            json_array_foreach(json_object_get(c, "msgpack"), ei, enc)
            {
                uint8_t b[256];
                size_t n, flen = 0;
                struct kix_proto_scanner sc;
                struct kix_proto_reader r;
                struct kix_proto_msg msg;
                struct kix_err err = {0};
                const struct kix_proto_value *v;

                memcpy(b, head, sizeof(head));
                n = unhex(json_string_value(enc), b + sizeof(head), sizeof(b) - sizeof(head));
                /* The scanner accepts the bare value, exactly. */
                kix_proto_scanner_init(&sc, NULL);
                if (kix_proto_scan(&sc, b + sizeof(head), n, &flen, &err) != KIX_OK || flen != n)
                    KIX_FAIL_AT("%s %s: scan %zu of %zu bytes: %s", file, json_string_value(enc),
                                flen, n, err.msg);
                for (size_t k = 0; k < n; k++) {
                    kix_proto_scanner_init(&sc, NULL);
                    if (kix_proto_scan(&sc, b + sizeof(head), k, &flen, &err) != KIX_PROTO_AGAIN)
                        KIX_FAIL_AT("%s %s: prefix of %zu bytes not 'need more'", file,
                                    json_string_value(enc), k);
                }
                /* The whole path: reader, scanner, msgpack-c, accessors. */
                kix_proto_reader_init(&r, NULL);
                ASSERT_EQ_INT(KIX_OK, kix_proto_reader_feed(&r, b, sizeof(head) + n, &err));
                if (kix_proto_reader_next(&r, &msg, &err) != KIX_OK)
                    KIX_FAIL_AT("%s %s: %s", file, json_string_value(enc), err.msg);
                ASSERT_EQ_U64(sizeof(head) + n, msg.frame_len);
                ASSERT_EQ_INT(KIX_OK, kix_proto_map_get(msg.params, "v", &v, &err));
                if (!case_matches(c, v))
                    KIX_FAIL_AT("%s %s: decoded value differs (kind %s)", file,
                                json_string_value(enc), kix_proto_kind_name(kix_proto_kind(v)));
                kix_proto_msg_release(&msg);
                kix_proto_reader_release(&r);
                checked++;
            }
        }
    }
    json_decref(root);
    ASSERT_EQ_U64(85, ncases);
    ASSERT_EQ_U64(233, checked);
}

/* ---- random bytes -------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

KIX_TEST(random_bytes_scanner_agrees_with_msgpack_c)
{
    /* Bytes biased toward headers; whatever the scanner accepts, msgpack-c
     * must decode to exactly the same length (else decode says "disagrees"). */
    static const uint8_t picks[] = {0x90, 0x91, 0x92, 0x94, 0x80, 0x81, 0xa0, 0xa1, 0xa3,
                                    0xc0, 0xc2, 0xc3, 0xc4, 0xc5, 0xc7, 0xca, 0xcb, 0xcc,
                                    0xcd, 0xd0, 0xd4, 0xd8, 0xd9, 0xdc, 0xde, 0xdd, 0xdf,
                                    0x00, 0x01, 0x7f, 0xff, 0xe0, 0xc1, 0x02, 0x03, 0x10};
    int decoded = 0;

    for (int iter = 0; iter < 200000; iter++) {
        uint8_t b[48];
        size_t n = 1 + rnd() % sizeof(b);
        struct kix_proto_msg msg;
        struct kix_err err = {0};
        int rc;

        b[0] = 0x94;
        for (size_t k = 1; k < n; k++)
            b[k] = rnd() % 4 ? picks[rnd() % sizeof(picks)] : (uint8_t)rnd();
        rc = kix_proto_decode(b, n, NULL, &msg, &err);
        if (rc == KIX_OK ||
            (rc == KIX_EPROTO && strstr(err.msg, "trailing") == NULL &&
             strstr(err.msg, "truncated") == NULL && strstr(err.msg, "starts no") == NULL))
            decoded++;
        if (strstr(err.msg, "disagrees"))
            KIX_FAIL_AT("iteration %d: %s", iter, err.msg);
        ASSERT_TRUE(rc == KIX_OK || rc == KIX_EPROTO || rc == KIX_ELIMIT);
        kix_proto_msg_release(&msg);
    }
    /* The generator reaches msgpack-c often enough to mean something. */
    ASSERT_TRUE(decoded > 1000);
}

/* Server addresses, shared by kix (connect) and kixd (listen). */
KIX_TEST(split_host_port)
{
    static const struct {
        const char *in, *host, *port;
    } good[] = {
        {"127.0.0.1:7411", "127.0.0.1", "7411"},
        {"[::1]:80", "::1", "80"},
        {"example.org:1", "example.org", "1"},
        {"a:b:9", "a:b", "9"}, /* the last colon splits */
        {"localhost:65535", "localhost", "65535"},
        {"127.0.0.1:0", "127.0.0.1", "0"}, /* a listener takes any free port */
    };
    static const char *const bad[] = {"", "host", ":80", "host:", "host:8x", "[::1]80", "[::1",
                                      "[]:80", "host:123456789012345678",
                                      /* beyond a TCP port: never truncated to another */
                                      "127.0.0.1:70000", "host:65536", "host:000080"};
    char host[64], port[16];
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ASSERT_EQ_INT(0, kix_split_host_port(good[i].in, host, sizeof(host), port, sizeof(port)));
        ASSERT_EQ_STR(good[i].host, host);
        ASSERT_EQ_STR(good[i].port, port);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (kix_split_host_port(bad[i], host, sizeof(host), port, sizeof(port)) != -1)
            KIX_FAIL_AT("\"%s\" was accepted", bad[i]);
    ASSERT_EQ_INT(-1, kix_split_host_port("abcdefgh:80", host, 8, port, sizeof(port)));
}

KIX_TEST(addr_validate)
{
    static const char *const good[] = {"tcp://127.0.0.1:7420", "tcp://[::1]:0",
                                       "tcp://example.org:65535", "unix:///run/kixd.sock"};
    static const struct {
        const char *in, *needle;
    } bad[] = {
        {"tcp://127.0.0.1:70000", "port 70000 is out of range (0 to 65535)"},
        {"tcp://127.0.0.1:65536", "out of range"},
        {"tcp://[::1]:99999", "out of range"},
        {"tcp://127.0.0.1:1234567", "out of range"},
        {"tcp://127.0.0.1", "no port"},
        {"tcp://127.0.0.1:", "no port"},
        {"tcp://[::1]", "no port"},
        {"tcp://h:8x", "the port must be a number"},
        {"tcp://:80", "expected tcp://HOST:PORT"},
        {"http://h:80", "expected tcp://HOST:PORT or unix:///PATH"},
        {"unix://relative", "unix:///ABSOLUTE/PATH"},
    };
    struct kix_err err = {0};
    char longpath[200];

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ASSERT_EQ_INT(KIX_OK, kix_addr_validate(good[i], &err));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(KIX_EUSAGE, kix_addr_validate(bad[i].in, &err));
        ASSERT_CONTAINS(err.msg, bad[i].needle);
    }
    memset(longpath, 'a', sizeof(longpath));
    memcpy(longpath, "unix:///", 8);
    longpath[sizeof(longpath) - 1] = '\0';
    ASSERT_EQ_INT(KIX_EUSAGE, kix_addr_validate(longpath, &err));
    ASSERT_CONTAINS(err.msg, "at most 107 bytes");
}

/* A msgpack str is UTF-8 text: the writer refuses to send anything else,
 * an error message quoting a peer's bytes is made valid, and the decoder
 * refuses a method, field name or field value that is not. */
KIX_TEST(str_is_utf8)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_bytes b;
    struct kix_err err = {0};
    uint8_t frame[64];
    size_t n;

    /* the writer: invalid UTF-8 refused, NUL (U+0000) and non-ASCII kept */
    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, 1, "query"));
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "gpu");
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_str(&w, "A\xff", 2));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));
    ASSERT_CONTAINS(err.msg, "not valid UTF-8");
    ASSERT_EQ_U64(0, out.len);
    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, 1, "query"));
    kix_proto_put_map(&w, 1);
    kix_proto_put_key(&w, "gpu");
    ASSERT_EQ_INT(KIX_OK, kix_proto_put_str(&w, "\xc3\xa9\0x", 4));
    ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
    kix_buf_reset(&out);
    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK, kix_proto_begin_request(&w, 1, "query"));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_put_key(&w, "g\xc3"));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_writer_end(&w, &err));

    /* an error message quoting invalid bytes goes out as valid UTF-8 */
    kix_buf_reset(&out);
    kix_proto_writer_init(&w, &out);
    ASSERT_EQ_INT(KIX_OK,
                  kix_proto_write_error(&w, 7, KIX_EINVAL,
                                        "unknown method \"\xff\xfeinfo\xc3\" \xc3\xa9", &err));
    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(out.ptr, out.len, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_PROTO_RESPONSE, msg.type);
    ASSERT_EQ_MEM("unknown method \"??info?\" \xc3\xa9", 27, msg.error_message.ptr,
                  msg.error_message.len);
    kix_proto_msg_release(&msg);

    /* the decoder: [0, 5, "\xff\xfe", [{}]] answered EPROTO with msgid 5 */
    n = unhex("94 00 05 a2 ff fe 91 80", frame, sizeof(frame));
    ASSERT_EQ_INT(KIX_EPROTO, kix_proto_decode(frame, n, NULL, &msg, &err));
    ASSERT_CONTAINS(err.msg, "method: a str that is not valid UTF-8");
    ASSERT_EQ_INT(KIX_PROTO_REQUEST, msg.type);
    ASSERT_EQ_U64(5, msg.msgid);
    /* [0, 6, "q", [{"\xff": 1}]]: a field name */
    n = unhex("94 00 06 a1 71 91 81 a1 ff 01", frame, sizeof(frame));
    ASSERT_EQ_INT(KIX_EPROTO, kix_proto_decode(frame, n, NULL, &msg, &err));
    ASSERT_CONTAINS(err.msg, "key 0 is not valid UTF-8");
    ASSERT_EQ_U64(6, msg.msgid);
    /* [0, 7, "query", [{"gpu": "A\xff"}]]: a field value, refused on access */
    n = unhex("94 00 07 a5 71 75 65 72 79 91 81 a3 67 70 75 a2 41 ff", frame, sizeof(frame));
    ASSERT_EQ_INT(KIX_OK, kix_proto_decode(frame, n, NULL, &msg, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_proto_map_get_str(msg.params, "gpu", &b, &err));
    ASSERT_CONTAINS(err.msg, "field \"gpu\": a str that is not valid UTF-8");
    kix_proto_msg_release(&msg);
    kix_buf_release(&out);
}

KIX_TEST_MAIN()
