/* The message table's codec (kix/messages.h): the first byte picks a
 * message (a method's params or result, or the follow notification), the
 * rest is one msgpack value read as that message by kix_msg_decode_result
 * with small bounds. What it accepts holds no array over its bound, and
 * encodes (kix_msg_encode) to bytes that decode again and encode to the
 * same bytes. */
#include "fuzz.h"
#include "kix/messages.h"

static const size_t max[2] = {4, 6};

/* Every array of t at base within its bound (the decoder's or the table's). */
static void check_bounds(const struct kix_msg_table *t, const void *base)
{
    for (size_t i = 0; i < t->nfields; i++) {
        const struct kix_msg_field *f = &t->fields[i];
        size_t n, bound;
        if (f->kind == KIX_MSG_MAP) {
            check_bounds(f->sub, (const char *)base + f->off);
            continue;
        }
        if (f->kind < KIX_MSG_PROOF || f->kind > KIX_MSG_LIST)
            continue;
        n = *(const size_t *)(const void *)((const char *)base + f->aux);
        bound = f->max_arg ? max[f->max_arg - 1] : (size_t)f->max;
        if ((f->max || f->max_arg) && n > bound)
            abort();
        if (f->kind == KIX_MSG_LIST) {
            const char *a = *(const char *const *)(const void *)((const char *)base + f->off);
            for (size_t k = 0; k < n; k++)
                check_bounds(f->sub, a + k * f->sub->size);
        }
    }
}

static const struct kix_msg_table *pick(uint8_t b)
{
    size_t i = b % (2 * kix_msg_nmethods + 1);
    if (i == 2 * kix_msg_nmethods)
        return &kix_msg_entries_notification_table;
    return i % 2 ? kix_msg_methods[i / 2].result : kix_msg_methods[i / 2].params;
}

/* A response [1, 1, nil, value] of the value's bytes, decoded; then the
 * table's reading of it into out. */
static int read(const uint8_t *value, size_t len, const struct kix_msg_table *t,
                struct kix_proto_msg *msg, void *out)
{
    static const uint8_t head[4] = {0x94, 0x01, 0x01, 0xc0};
    uint8_t *frame = malloc(len + 4);
    int rc;

    if (!frame)
        abort();
    memcpy(frame, head, 4);
    if (len)
        memcpy(frame + 4, value, len);
    rc = kix_proto_decode(frame, len + 4, NULL, msg, NULL);
    free(frame);
    if (rc)
        return rc;
    rc = kix_msg_decode_result(msg->result, t, max, out, NULL);
    if (rc)
        kix_proto_msg_release(msg);
    return rc;
}

static void encode(const struct kix_msg_table *t, const void *in, struct kix_buf *out)
{
    struct kix_proto_writer w;

    kix_buf_reset(out);
    kix_proto_writer_init(&w, out);
    kix_proto_begin_response(&w, 1);
    if (kix_msg_encode(&w, t, in) != KIX_OK || kix_proto_writer_end(&w, NULL) != KIX_OK)
        abort();
}

static void release(const struct kix_msg_table *t, void *out, struct kix_proto_msg *msg)
{
    if (t->owned != KIX_MSG_NO_AUX)
        kix_msg_free(*(void **)(void *)((char *)out + t->owned));
    kix_proto_msg_release(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct kix_msg_table *t;
    struct kix_proto_msg msg, again;
    struct kix_buf one = KIX_BUF_INIT, two = KIX_BUF_INIT;
    void *out, *out2;

    if (size < 1)
        return 0;
    t = pick(data[0]);
    out = calloc(1, t->size + 8);
    out2 = calloc(1, t->size + 8);
    if (!out || !out2)
        abort();
    if (read(data + 1, size - 1, t, &msg, out) == KIX_OK) {
        check_bounds(t, out);
        encode(t, out, &one);
        /* the value alone: past the response's 4-byte head */
        if (read(one.ptr + 4, one.len - 4, t, &again, out2) != KIX_OK)
            abort();
        encode(t, out2, &two);
        if (one.len != two.len || memcmp(one.ptr, two.ptr, one.len) != 0)
            abort();
        release(t, out2, &again);
        release(t, out, &msg);
    }
    kix_buf_release(&one);
    kix_buf_release(&two);
    free(out);
    free(out2);
    return 0;
}
