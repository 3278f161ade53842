/* Hostile and careless clients against a real kixd: each is answered or
 * dropped cleanly while a well-behaved client keeps getting answers, and
 * kixd's memory stays bounded.
 *
 * Memory bound: kixd's VmRSS may grow by at most RSS_GROWTH_KB over its
 * level after start-up during each test. The build under test is usually
 * Debug with ASan, whose shadow memory and quarantine (up to 256 MiB by
 * default) inflate RSS, so the bound is 192 MiB; without ASan the same
 * attacks stay within a few tens of MiB. */
#include "kixd_calls.h"

#define RSS_GROWTH_KB (192L * 1024)

static const char *const short_idle[] = {"--idle-timeout", "1", NULL};

/* The bytes of one request. */
static size_t request_bytes(struct kix_buf *out, uint32_t id, const char *method, const char *spec,
                            ...)
{
    struct params p;
    struct kix_proto_writer w;
    struct kix_err err;
    size_t start = out->len;
    va_list ap;
    va_start(ap, spec);
    params_build(&p, spec, ap);
    va_end(ap);
    kix_proto_writer_init(&w, out);
    kix_proto_begin_request(&w, id, method);
    put_params(&p, &w);
    if (kix_proto_writer_end(&w, &err) != KIX_OK)
        abort();
    return out->len - start;
}

static long rss_growth(const struct fx *f, long base)
{
    long now = fx_rss_kb(f->pid);
    fprintf(stderr, "kixd VmRSS %ld kB (start %ld kB)\n", now, base);
    return now - base;
}

/* Sends bytes on a fresh raw connection and expects kixd to close it
 * without an answer. */
static int dropped_after(const struct fx *f, const void *bytes, size_t len)
{
    int fd = fx_raw_connect(f), closed;
    if (fd < 0)
        return 0;
    fx_raw_send(fd, bytes, len, 2000);
    closed = fx_raw_wait_closed(fd, 5000);
    close(fd);
    return closed;
}

KIX_TEST(frame_errors_close_the_connection)
{
    struct fx f;
    struct kix_buf b = KIX_BUF_INIT;
    long base;
    /* [0, 1, "get_object", [{"digest": <bin32 claiming 4 GiB>}]] */
    static const uint8_t claim_bin[] = {0x94, 0x00, 0x01, 0xaa, 'g',  'e',  't',  '_',  'o',  'b',
                                        'j',  'e',  'c',  't',  0x91, 0x81, 0xa6, 'd',  'i',  'g',
                                        'e',  's',  't',  0xc6, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00};
    static const uint8_t claim_str[] = {0x94, 0x00, 0x01, 0xdb, 0xff, 0xff, 0xff, 0xff, 'x'};
    static const uint8_t claim_array[] = {0x94, 0x00, 0x01, 0xa4, 'i',  'n',  'f',  'o',  0x91,
                                          0x81, 0xa1, 'a',  0xdd, 0xff, 0xff, 0xff, 0xff, 0x00};
    static const uint8_t claim_map[] = {0xdf, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t bad_byte[] = {0xc1};
    static const uint8_t not_array[] = {0xa4, 'i', 'n', 'f', 'o'};

    ASSERT_EQ_INT(0, fx_start(&f));
    base = fx_rss_kb(f.pid);
    for (int round = 0; round < 20; round++) {
        ASSERT_TRUE(dropped_after(&f, claim_bin, sizeof(claim_bin)));
        ASSERT_TRUE(dropped_after(&f, claim_str, sizeof(claim_str)));
        ASSERT_TRUE(dropped_after(&f, claim_array, sizeof(claim_array)));
        ASSERT_TRUE(dropped_after(&f, claim_map, sizeof(claim_map)));
        ASSERT_TRUE(dropped_after(&f, bad_byte, sizeof(bad_byte)));
        ASSERT_TRUE(dropped_after(&f, not_array, sizeof(not_array)));
    }
    /* nesting 10^5 deep */
    for (int i = 0; i < 100000; i++)
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&b, 0x91));
    ASSERT_TRUE(dropped_after(&f, b.ptr, b.len));
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_TRUE(rss_growth(&f, base) < RSS_GROWTH_KB);
    kix_buf_release(&b);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(oversize_message_closes)
{
    static const char *const extra[] = {"--max-message", "64K", NULL};
    struct fx f;
    struct kix_buf b = KIX_BUF_INIT;
    char *big = calloc(1, 100000);

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    memset(big, 'a', 99999);
    request_bytes(&b, 1, "get_object", "s", "digest", big);
    ASSERT_TRUE(dropped_after(&f, b.ptr, b.len));
    ASSERT_TRUE(fx_alive(&f));
    free(big);
    kix_buf_release(&b);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(read_buffer_budget_drops_big_messages)
{
    static const char *const extra[] = {"--max-read-buffers", "1M", NULL};
    struct fx f;
    struct kix_buf b = KIX_BUF_INIT;
    char *big = calloc(1, (size_t)3 << 20);

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    memset(big, 'a', ((size_t)3 << 20) - 1);
    request_bytes(&b, 1, "get_object", "s", "digest", big);
    ASSERT_TRUE(dropped_after(&f, b.ptr, b.len));
    ASSERT_TRUE(fx_alive(&f));
    free(big);
    kix_buf_release(&b);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(truncated_frame_then_silence_is_closed_when_idle)
{
    struct fx f;
    static const uint8_t half[] = {0x94, 0x00, 0x01, 0xa4, 'i', 'n'};
    int fd1, fd2, fd3;
    int64_t t0;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, short_idle));
    /* a truncated frame, then the peer hangs up: nothing to answer */
    fd1 = fx_raw_connect(&f);
    ASSERT_EQ_INT(sizeof(half), fx_raw_send(fd1, half, sizeof(half), 1000));
    close(fd1);
    /* a truncated frame and silence, and a client that never writes at all:
     * both closed by the idle timeout (1 s) */
    fd2 = fx_raw_connect(&f);
    fd3 = fx_raw_connect(&f);
    ASSERT_EQ_INT(sizeof(half), fx_raw_send(fd2, half, sizeof(half), 1000));
    t0 = fx_now_ms();
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_TRUE(fx_raw_wait_closed(fd2, 10000));
    ASSERT_TRUE(fx_raw_wait_closed(fd3, 10000));
    ASSERT_TRUE(fx_now_ms() - t0 >= 500); /* not before it was idle */
    ASSERT_TRUE(fx_alive(&f));
    close(fd2);
    close(fd3);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(wrong_shapes_and_types_are_answered)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    /* [0, "x", "info", [{}]]: msgid unreadable, skipped without an answer */
    static const uint8_t bad_id[] = {0x94, 0x00, 0xa1, 'x', 0xa4, 'i', 'n', 'f', 'o', 0x91, 0x80};
    /* [0, 7, "info", {}]: params not [map], answered EPROTO */
    static const uint8_t bad_params[] = {0x94, 0x00, 0x07, 0xa4, 'i', 'n', 'f', 'o', 0x80};
    /* [0, 8, 5, [{}]]: method not str */
    static const uint8_t bad_method[] = {0x94, 0x00, 0x08, 0x05, 0x91, 0x80};
    /* [9, 9, "info", [{}]]: unknown type */
    static const uint8_t bad_type[] = {0x94, 0x09, 0x09, 0xa4, 'i', 'n', 'f', 'o', 0x91, 0x80};
    /* [2, "info", [{}]]: a notification is never answered */
    static const uint8_t notif[] = {0x93, 0x02, 0xa4, 'i', 'n', 'f', 'o', 0x91, 0x80};
    /* [0, 83, "info"] and [0, 84, "info", [{}], nil]: the wrong length, but
     * the msgid reads, so answered EPROTO (PROTOCOL.md §1.4) */
    static const uint8_t short_req[] = {0x93, 0x00, 0x53, 0xa4, 'i', 'n', 'f', 'o'};
    static const uint8_t long_req[] = {0x95, 0x00, 0x54, 0xa4, 'i', 'n',
                                       'f',  'o',  0x91, 0x80, 0xc0};
    /* [0, 10, "get_object", [{"digest": "a", "digest": "b"}]]: duplicate key */
    static const uint8_t dup_key[] = {0x94, 0x00, 0x0a, 0xaa, 'g', 'e',  't',  '_',  'o',
                                      'b',  'j',  'e',  'c',  't', 0x91, 0x82, 0xa6, 'd',
                                      'i',  'g',  'e',  's',  't', 0xa1, 'a',  0xa6, 'd',
                                      'i',  'g',  'e',  's',  't', 0xa1, 'b'};

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_id, sizeof(bad_id), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, notif, sizeof(notif), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_params, sizeof(bad_params), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(7, m.msgid);
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_method, sizeof(bad_method), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(8, m.msgid);
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, short_req, sizeof(short_req), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(83, m.msgid);
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, long_req, sizeof(long_req), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(84, m.msgid);
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_type, sizeof(bad_type), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, dup_key, sizeof(dup_key), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(10, m.msgid);
    ASSERT_EQ_INT(KIX_EINVAL, m.error_code);
    ASSERT_TRUE(strstr((const char *)m.error_message.ptr, "digest") != NULL);
    kix_proto_msg_release(&m);
    /* wrong types inside params */
    ASSERT_EQ_INT(KIX_EINVAL, callv(c, "get_entries", &m, &err, "ss", "start", "0", "count", "1"));
    ASSERT_CONTAINS(err.msg, "field \"start\": expected int, got str");
    ASSERT_EQ_INT(KIX_EINVAL, callv(c, "checkpoint", &m, &err, "n", "size"));
    ASSERT_CONTAINS(err.msg, "expected int, got nil");
    ASSERT_EQ_INT(KIX_EINVAL, callv(c, "receipt", &m, &err, "i", "index", (int64_t)-5));
    /* the same connection still works */
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* Invalid UTF-8 never goes out in a str and is refused coming in: an
 * unknown method that is not UTF-8 is answered EPROTO (not echoed), a query
 * filter that is not UTF-8 is refused EINVAL. */
KIX_TEST(invalid_utf8_is_refused)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    /* [0, 21, "\xff\xfeinfo", [{}]] */
    static const uint8_t bad_method[] = {0x94, 0x00, 0x15, 0xa6, 0xff, 0xfe,
                                         'i',  'n',  'f',  'o',  0x91, 0x80};
    /* [0, 22, "query", [{"gpu": "A\xff"}]] */
    static const uint8_t bad_filter[] = {0x94, 0x00, 0x16, 0xa5, 'q', 'u', 'e',  'r', 'y',
                                         0x91, 0x81, 0xa3, 'g',  'p', 'u', 0xa2, 'A', 0xff};
    /* [0, 23, "nosuch\xc3\xa9", [{}]]: valid UTF-8 is echoed as sent */
    static const uint8_t unknown[] = {0x94, 0x00, 0x17, 0xa8, 'n',  'o',  's',
                                      'u',  'c',  'h',  0xc3, 0xa9, 0x91, 0x80};

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_method, sizeof(bad_method), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(21, m.msgid);
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    ASSERT_TRUE(kix_utf8_valid((const char *)m.error_message.ptr, m.error_message.len));
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, bad_filter, sizeof(bad_filter), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(22, m.msgid);
    ASSERT_EQ_INT(KIX_EINVAL, m.error_code);
    ASSERT_TRUE(strstr((const char *)m.error_message.ptr, "not valid UTF-8") != NULL);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_raw(c, unknown, sizeof(unknown), &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(23, m.msgid);
    ASSERT_EQ_INT(KIX_EINVAL, m.error_code);
    ASSERT_TRUE(strstr((const char *)m.error_message.ptr, "nosuch\xc3\xa9") != NULL);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(flood_without_reading_is_bounded)
{
    static const char *const extra[] = {"--idle-timeout", "2", NULL};
    struct fx f;
    struct kix_buf req = KIX_BUF_INIT;
    long base;
    size_t one, sent;
    int fd;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    /* some entries so that each answer is far bigger than its request */
    ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, "run-flood", 30, 0));
    base = fx_rss_kb(f.pid);
    one =
        request_bytes(&req, 1, "get_entries", "uu", "start", (uint64_t)0, "count", (uint64_t)1000);
    for (int i = 1; i < 50000; i++)
        request_bytes(&req, (uint32_t)i, "get_entries", "uu", "start", (uint64_t)0, "count",
                      (uint64_t)1000);
    fd = fx_raw_connect(&f);
    /* kixd stops reading once 8 MiB of answers wait: the send stalls */
    sent = fx_raw_send(fd, req.ptr, req.len, 1500);
    fprintf(stderr, "flooder sent %zu of %zu bytes (%zu requests)\n", sent, req.len, sent / one);
    ASSERT_TRUE(sent < req.len);
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_TRUE(rss_growth(&f, base) < RSS_GROWTH_KB);
    /* it never reads: dropped after the idle timeout */
    ASSERT_TRUE(fx_raw_wait_hup(fd, 15000));
    close(fd);
    ASSERT_TRUE(fx_alive(&f));
    kix_buf_release(&req);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(stalled_follower_is_paused_then_dropped)
{
    static const char *const extra[] = {"--idle-timeout", "1", "--max-output", "64K", NULL};
    struct fx f;
    struct kix_buf req = KIX_BUF_INIT;
    long base;
    int fd;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    base = fx_rss_kb(f.pid);
    fd = fx_raw_connect(&f);
    request_bytes(&req, 1, "follow", "u", "from", (uint64_t)0);
    ASSERT_EQ_INT(req.len, fx_raw_send(fd, req.ptr, req.len, 1000));
    /* the log grows by far more than the follower's budget (64 KiB) plus
     * what the socket buffers hold; it never reads */
    ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, "run-stall", 1500, 0));
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_TRUE(fx_raw_wait_hup(fd, 15000));
    ASSERT_TRUE(rss_growth(&f, base) < RSS_GROWTH_KB);
    close(fd);
    kix_buf_release(&req);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(connection_limit)
{
    static const char *const extra[] = {"--max-connections", "5", NULL};
    struct fx f;
    struct kix_rpc *c[5];
    struct kix_proto_msg m;
    struct kix_err err;
    int fd;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    for (int i = 0; i < 5; i++) {
        c[i] = fx_rpc(&f);
        ASSERT_TRUE(c[i] != NULL);
        ASSERT_EQ_INT(KIX_OK, callv(c[i], "info", &m, &err, ""));
        kix_proto_msg_release(&m);
    }
    /* the sixth is accepted and closed at once */
    fd = fx_raw_connect(&f);
    ASSERT_TRUE(fd >= 0);
    ASSERT_TRUE(fx_raw_wait_closed(fd, 5000));
    close(fd);
    /* the five still work; closing one makes room */
    ASSERT_EQ_INT(KIX_OK, callv(c[4], "info", &m, &err, ""));
    kix_proto_msg_release(&m);
    kix_rpc_close(c[4]);
    fx_sleep_ms(100);
    ASSERT_TRUE(fx_alive(&f));
    for (int i = 0; i < 4; i++)
        kix_rpc_close(c[i]);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* A random value of depth at most `depth`: every kind kixd may meet. */
static void put_random(struct kix_proto_writer *w, unsigned *seed, int depth)
{
    static const char *const strs[] = {
        "",
        "0",
        "run-x",
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
        "https://kix.test/log/runs/run-x",
        "\xc3\xa9\xe2\x80\xa8", /* invalid UTF-8: raw frames in invalid_utf8_is_refused */
        "{}",
        "{\"a\":1}"};
    int kind = rand_r(seed) % (depth > 0 ? 9 : 6);
    size_t n;
    switch (kind) {
    case 0:
        kix_proto_put_nil(w);
        break;
    case 1:
        kix_proto_put_bool(w, rand_r(seed) & 1);
        break;
    case 2: {
        static const uint64_t us[] = {0, 1, 2, 3, 1000, 1001, UINT32_MAX, UINT64_MAX};
        kix_proto_put_u64(w, us[rand_r(seed) % 8]);
        break;
    }
    case 3:
        kix_proto_put_i64(w, -(int64_t)(rand_r(seed) % 3) - 1);
        break;
    case 4:
        kix_proto_put_cstr(w, strs[rand_r(seed) % 8]);
        break;
    case 5: {
        const char *s = strs[rand_r(seed) % 8];
        kix_proto_put_bin(w, s, strlen(s));
        break;
    }
    case 6:
        kix_proto_put_f64(w, 1.5);
        break;
    case 7:
        n = (size_t)(rand_r(seed) % 4);
        kix_proto_put_array(w, n);
        for (size_t i = 0; i < n; i++)
            put_random(w, seed, depth - 1);
        break;
    default: {
        static const char *const keys[] = {"envelope", "objects", "digest", "x"};
        n = (size_t)(rand_r(seed) % 3);
        kix_proto_put_map(w, n);
        for (size_t i = 0; i < n; i++) {
            kix_proto_put_key(w, keys[(i + (size_t)rand_r(seed)) % 4]);
            put_random(w, seed, depth - 1);
        }
    }
    }
}

struct random_req {
    unsigned *seed;
};

static int put_random_params(void *ctx, struct kix_proto_writer *w)
{
    static const char *const fields[] = {"digest", "digests", "start", "count", "size",
                                         "index",  "size1",   "size2", "ref",   "bundles"};
    struct random_req *r = ctx;
    size_t n = (size_t)(rand_r(r->seed) % 4);
    kix_proto_put_map(w, n);
    for (size_t i = 0; i < n; i++) {
        kix_proto_put_key(w, fields[(i * 3 + (size_t)rand_r(r->seed)) % 10]);
        put_random(w, r->seed, 3);
    }
    return KIX_OK;
}

KIX_TEST(random_well_formed_requests_are_all_answered)
{
    static const char *const methods[] = {
        "info",       "submit",          "get_object",        "get_objects", "get_entries",
        "checkpoint", "inclusion_proof", "consistency_proof", "receipt",     "resolve",
        "nope"};
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    unsigned seed = 12345;
    struct random_req rr = {&seed};

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-x", 1, NULL));
    c = fx_rpc(&f);
    for (int round = 0; round < 40; round++) {
        uint32_t ids[50];
        for (int i = 0; i < 50; i++)
            ASSERT_EQ_INT(KIX_OK, kix_rpc_send(c, methods[rand_r(&seed) % 11], put_random_params,
                                               &rr, &ids[i], &err));
        /* every one is answered (in any order), none kills the connection */
        for (int i = 0; i < 50; i++) {
            ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
            ASSERT_EQ_INT(KIX_PROTO_RESPONSE, m.type);
            ASSERT_TRUE(m.error_code <= 0);
            kix_proto_msg_release(&m);
        }
    }
    kix_rpc_close(c);
    ASSERT_TRUE(fx_alive(&f));
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
