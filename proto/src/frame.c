/* Stream framing: the bounded structural scanner and the connection reader.
 *
 * The scanner walks msgpack type headers iteratively (an explicit stack of
 * at most KIX_PROTO_DEPTH_MAX counters) and never trusts a declared length
 * for memory: a length only moves the scan position, which must stay within
 * max_message. Only a frame whose bytes are all present reaches msgpack-c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Header classes. */
enum { H_FIXED, H_STR, H_BIN, H_EXT, H_ARRAY, H_MAP, H_BAD };

struct header {
    int cls;
    unsigned size;     /* bytes of the header (type byte + length/count field) */
    unsigned lenbytes; /* bytes of the big-endian length/count field */
    uint64_t n;        /* H_FIXED: payload bytes; fixstr/fixarray/fixmap: the length */
};

static struct header classify(uint8_t b)
{
    struct header h = {H_FIXED, 1, 0, 0};

    if (b <= 0x7f || b >= 0xe0)
        return h;
    if (b <= 0x8f) {
        h.cls = H_MAP;
        h.n = b & 0x0f;
        return h;
    }
    if (b <= 0x9f) {
        h.cls = H_ARRAY;
        h.n = b & 0x0f;
        return h;
    }
    if (b <= 0xbf) {
        h.cls = H_STR;
        h.n = b & 0x1f;
        return h;
    }
    switch (b) {
    case 0xc0: /* nil */
    case 0xc2: /* false */
    case 0xc3: /* true */
        return h;
    case 0xc4:
    case 0xc5:
    case 0xc6:
        h.cls = H_BIN;
        h.lenbytes = 1u << (b - 0xc4);
        break;
    case 0xc7:
    case 0xc8:
    case 0xc9:
        h.cls = H_EXT;
        h.lenbytes = 1u << (b - 0xc7);
        break;
    case 0xca: /* float 32 */
        h.n = 4;
        return h;
    case 0xcb: /* float 64 */
        h.n = 8;
        return h;
    case 0xcc: /* uint 8 .. 64 */
    case 0xcd:
    case 0xce:
    case 0xcf:
        h.n = 1u << (b - 0xcc);
        return h;
    case 0xd0: /* int 8 .. 64 */
    case 0xd1:
    case 0xd2:
    case 0xd3:
        h.n = 1u << (b - 0xd0);
        return h;
    case 0xd4: /* fixext 1 .. 16: type byte + data */
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
        h.n = 1 + (1u << (b - 0xd4));
        return h;
    case 0xd9:
    case 0xda:
    case 0xdb:
        h.cls = H_STR;
        h.lenbytes = 1u << (b - 0xd9);
        break;
    case 0xdc:
    case 0xdd:
        h.cls = H_ARRAY;
        h.lenbytes = 2u << (b - 0xdc);
        break;
    case 0xde:
    case 0xdf:
        h.cls = H_MAP;
        h.lenbytes = 2u << (b - 0xde);
        break;
    default: /* 0xc1 */
        h.cls = H_BAD;
        return h;
    }
    h.size = 1 + h.lenbytes;
    return h;
}

static const char *class_name(int cls)
{
    switch (cls) {
    case H_STR:
        return "str";
    case H_BIN:
        return "bin";
    case H_EXT:
        return "ext";
    case H_ARRAY:
        return "array";
    default:
        return "map";
    }
}

static uint64_t load_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

void kix_proto_limits_default(struct kix_proto_limits *lim)
{
    lim->max_message = KIX_PROTO_MAX_MESSAGE_DEFAULT;
    lim->max_depth = KIX_PROTO_MAX_DEPTH_DEFAULT;
    lim->max_items = KIX_PROTO_MAX_ITEMS_DEFAULT;
}

void kix_proto_scanner_init(struct kix_proto_scanner *s, const struct kix_proto_limits *lim)
{
    if (lim)
        s->lim = *lim;
    else
        kix_proto_limits_default(&s->lim);
    if (s->lim.max_depth > KIX_PROTO_DEPTH_MAX)
        s->lim.max_depth = KIX_PROTO_DEPTH_MAX;
    s->pos = 0;
    s->items = 0;
    s->depth = 0;
    s->done = 0;
}

/* A value ended at s->pos: count it in the enclosing containers. */
static void value_done(struct kix_proto_scanner *s)
{
    while (s->depth > 0) {
        if (--s->left[s->depth - 1] > 0)
            return;
        s->depth--;
    }
    s->done = 1;
}

int kix_proto_scan(struct kix_proto_scanner *s, const uint8_t *data, size_t len, size_t *frame_len,
                   struct kix_err *err)
{
    const size_t max = s->lim.max_message;

    for (;;) {
        struct header h;
        size_t at = s->pos, room;
        uint64_t n, slots;

        /* Invariant: s->pos <= max. A str/bin/ext body may end beyond the
         * bytes present; then wait for them. */
        if (at > len || (at == len && !s->done))
            return KIX_PROTO_AGAIN;
        if (s->done) {
            *frame_len = at;
            return KIX_OK;
        }
        h = classify(data[at]);
        if (h.cls == H_BAD)
            return kix_err_set(err, KIX_EPROTO,
                               "byte 0x%02x at offset %zu starts no msgpack type; the peer is "
                               "not speaking msgpack-RPC",
                               data[at], at);
        if (h.size > max - at)
            return kix_err_set(err, KIX_ELIMIT,
                               "message is longer than the %zu-byte limit (header at offset %zu)",
                               max, at);
        if (h.size > len - at)
            return KIX_PROTO_AGAIN;
        room = max - at - h.size; /* bytes the rest of the frame may take */
        n = h.lenbytes ? load_be(data + at + 1, h.lenbytes) : h.n;

        switch (h.cls) {
        case H_FIXED:
        case H_STR:
        case H_BIN:
        case H_EXT:
            if (h.cls == H_EXT)
                n += 1; /* the type byte */
            if (n > room)
                return kix_err_set(err, KIX_ELIMIT,
                                   "%s of %llu bytes at offset %zu does not fit the %zu-byte "
                                   "message limit",
                                   h.cls == H_FIXED ? "value" : class_name(h.cls),
                                   (unsigned long long)(h.cls == H_EXT ? n - 1 : n), at, max);
            s->pos = at + h.size + (size_t)n;
            value_done(s);
            break;
        default: /* H_ARRAY, H_MAP */
            slots = h.cls == H_MAP ? 2 * n : n;
            if (s->depth >= s->lim.max_depth)
                return kix_err_set(err, KIX_ELIMIT,
                                   "%s at offset %zu nests deeper than the limit of %u levels",
                                   class_name(h.cls), at, s->lim.max_depth);
            if (slots > s->lim.max_items - s->items)
                return kix_err_set(err, KIX_ELIMIT,
                                   "%s of %llu entries at offset %zu takes the message past the "
                                   "limit of %zu array/map elements",
                                   class_name(h.cls), (unsigned long long)n, at, s->lim.max_items);
            if (slots > room)
                return kix_err_set(err, KIX_ELIMIT,
                                   "%s of %llu entries at offset %zu cannot fit the %zu-byte "
                                   "message limit",
                                   class_name(h.cls), (unsigned long long)n, at, max);
            s->items += (size_t)slots;
            s->pos = at + h.size;
            if (slots == 0) {
                value_done(s);
            } else {
                s->left[s->depth] = slots;
                s->depth++;
            }
            break;
        }
    }
}

/* ---- reader ---------------------------------------------------------------- */

/* Memory above this is given back whenever the buffer drains. */
#define KEEP_CAP (4 * KIX_PROTO_READ_CHUNK)
#define MIN_CAP  ((size_t)4096)

void kix_proto_reader_init(struct kix_proto_reader *r, const struct kix_proto_limits *lim)
{
    kix_proto_scanner_init(&r->scan, lim);
    kix_buf_init(&r->buf);
    r->off = 0;
    r->failed = 0;
}

void kix_proto_reader_release(struct kix_proto_reader *r)
{
    kix_buf_release(&r->buf);
    r->off = 0;
    r->failed = 0;
    kix_proto_scanner_init(&r->scan, &r->scan.lim);
}

int kix_proto_reader_failed(const struct kix_proto_reader *r)
{
    return r->failed;
}

size_t kix_proto_reader_buffered(const struct kix_proto_reader *r)
{
    return r->buf.len - r->off;
}

size_t kix_proto_reader_allocated(const struct kix_proto_reader *r)
{
    return r->buf.cap;
}

static int fail(struct kix_proto_reader *r, int rc)
{
    r->failed = rc;
    return rc;
}

static int already_failed(const struct kix_proto_reader *r, struct kix_err *err)
{
    return kix_err_set(err, r->failed, "the input stream already failed (%s); close the connection",
                       kix_err_name(r->failed));
}

/* Room for `want` more bytes; want must keep the total within the bound. */
static int make_room(struct kix_proto_reader *r, size_t want, size_t bound, struct kix_err *err)
{
    size_t need, cap;
    uint8_t *p;

    if (r->off > 0) {
        memmove(r->buf.ptr, r->buf.ptr + r->off, r->buf.len - r->off);
        r->buf.len -= r->off;
        r->off = 0;
    }
    need = r->buf.len + want + 1; /* kix_buf keeps a NUL after the content */
    if (need <= r->buf.cap)
        return KIX_OK;
    cap = r->buf.cap < MIN_CAP ? MIN_CAP : r->buf.cap;
    while (cap < need) {
        if (cap > bound / 2) {
            cap = bound + 1;
            break;
        }
        cap *= 2;
    }
    if (cap < need)
        cap = need;
    p = realloc(r->buf.ptr, cap);
    if (!p)
        return kix_err_set(err, KIX_ENOMEM, "out of memory growing the receive buffer to %zu bytes",
                           cap);
    r->buf.ptr = p;
    r->buf.cap = cap;
    return KIX_OK;
}

static size_t bound_of(const struct kix_proto_reader *r)
{
    size_t max = r->scan.lim.max_message;
    return max > SIZE_MAX - KIX_PROTO_READ_CHUNK - 1 ? SIZE_MAX - 1 : max + KIX_PROTO_READ_CHUNK;
}

int kix_proto_reader_reserve(struct kix_proto_reader *r, size_t want, uint8_t **space,
                             size_t *avail, struct kix_err *err)
{
    size_t bound = bound_of(r), held = kix_proto_reader_buffered(r);
    int rc;

    if (r->failed)
        return already_failed(r, err);
    if (held >= bound)
        return fail(r, kix_err_set(err, KIX_ELIMIT,
                                   "receive buffer is full at %zu bytes; drain it with "
                                   "kix_proto_reader_next before reading more",
                                   held));
    if (want == 0)
        want = 1;
    if (want > bound - held)
        want = bound - held;
    rc = make_room(r, want, bound, err);
    if (rc)
        return rc;
    *space = r->buf.ptr + r->buf.len;
    *avail = r->buf.cap - r->buf.len - 1;
    if (*avail > bound - r->buf.len)
        *avail = bound - r->buf.len;
    return KIX_OK;
}

void kix_proto_reader_commit(struct kix_proto_reader *r, size_t n)
{
    r->buf.len += n;
    if (r->buf.ptr)
        r->buf.ptr[r->buf.len] = '\0';
}

int kix_proto_reader_feed(struct kix_proto_reader *r, const void *data, size_t len,
                          struct kix_err *err)
{
    size_t bound = bound_of(r), held = kix_proto_reader_buffered(r);
    int rc;

    if (r->failed)
        return already_failed(r, err);
    if (len == 0)
        return KIX_OK;
    if (held > bound || len > bound - held)
        return fail(r, kix_err_set(err, KIX_ELIMIT,
                                   "receiving %zu more bytes would hold %zu unconsumed bytes, over "
                                   "the %zu-byte bound (max message + one read); drain with "
                                   "kix_proto_reader_next after each feed",
                                   len, held, bound));
    rc = make_room(r, len, bound, err);
    if (rc)
        return rc;
    memcpy(r->buf.ptr + r->buf.len, data, len);
    kix_proto_reader_commit(r, len);
    return KIX_OK;
}

static int byte_kind(uint8_t b)
{
    struct header h = classify(b);

    switch (h.cls) {
    case H_STR:
        return KIX_PROTO_STR;
    case H_BIN:
        return KIX_PROTO_BIN;
    case H_EXT:
        return KIX_PROTO_EXT;
    case H_ARRAY:
        return KIX_PROTO_ARRAY;
    case H_MAP:
        return KIX_PROTO_MAP;
    case H_BAD:
        return -1;
    default:
        break;
    }
    if (b == 0xc0)
        return KIX_PROTO_NIL;
    if (b == 0xc2 || b == 0xc3)
        return KIX_PROTO_BOOL;
    if (b == 0xca || b == 0xcb)
        return KIX_PROTO_FLOAT;
    if (b >= 0xd4 && b <= 0xd8)
        return KIX_PROTO_EXT;
    return KIX_PROTO_INT;
}

int kix_proto_reader_next(struct kix_proto_reader *r, struct kix_proto_msg *msg,
                          struct kix_err *err)
{
    size_t held = kix_proto_reader_buffered(r), flen = 0, items;
    const uint8_t *data;
    int rc;

    kix_proto_msg_init(msg);
    if (r->failed)
        return already_failed(r, err);
    if (held == 0)
        return KIX_PROTO_AGAIN;
    data = r->buf.ptr + r->off;
    /* Garbage fails at its first byte rather than after a frame of it. */
    if (r->scan.pos == 0 && byte_kind(data[0]) != KIX_PROTO_ARRAY) {
        if (byte_kind(data[0]) < 0)
            return fail(r, kix_err_set(err, KIX_EPROTO,
                                       "byte 0x%02x at offset 0 starts no msgpack type; the peer "
                                       "is not speaking msgpack-RPC",
                                       data[0]));
        return fail(r, kix__proto_not_array(byte_kind(data[0]), err));
    }
    rc = kix_proto_scan(&r->scan, data, held, &flen, err);
    if (rc == KIX_PROTO_AGAIN)
        return rc;
    if (rc)
        return fail(r, rc);
    items = r->scan.items;
    kix_proto_scanner_init(&r->scan, &r->scan.lim);
    rc = kix__proto_decode_frame(data, flen, items, msg, err);
    r->off += flen;
    if (r->off == r->buf.len) {
        r->off = 0;
        if (r->buf.cap > KEEP_CAP)
            kix_buf_release(&r->buf);
        else
            kix_buf_reset(&r->buf);
    }
    if (rc == KIX_ENOMEM)
        return fail(r, rc);
    return rc;
}

int kix_proto_decode(const uint8_t *data, size_t len, const struct kix_proto_limits *lim,
                     struct kix_proto_msg *msg, struct kix_err *err)
{
    struct kix_proto_scanner s;
    size_t flen = 0;
    int rc;

    kix_proto_msg_init(msg);
    kix_proto_scanner_init(&s, lim);
    rc = kix_proto_scan(&s, data, len, &flen, err);
    if (rc == KIX_PROTO_AGAIN)
        return kix_err_set(err, KIX_EPROTO, "truncated message: %zu bytes end inside it", len);
    if (rc)
        return rc;
    if (flen != len)
        return kix_err_set(err, KIX_EPROTO, "%zu trailing bytes after a %zu-byte message",
                           len - flen, flen);
    return kix__proto_decode_frame(data, len, s.items, msg, err);
}
