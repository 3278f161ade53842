/* Base64 (table-driven for public data, libsodium's constant-time decoder
 * for secrets), UTF-8 checking, hex (see kix/encoding.h). */
#include "kix/encoding.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

/* The standard alphabet; the URL-safe one differs in its last two. */
static const char b64_std[64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decoding tables: a character's value + 1, 0 for every byte not in the
 * alphabet (so each byte >= 0x80 and '=' are refused as data); the two
 * alphabets share the 62 letters and digits. */
#define B64_ALNUM                                                                                  \
    ['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,        \
    ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, \
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23,            \
    ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,            \
    ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37,            \
    ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44,            \
    ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50, ['y'] = 51,            \
    ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57, ['5'] = 58,            \
    ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62
static const uint8_t dec_std[256] = {B64_ALNUM, ['+'] = 63, ['/'] = 64};
static const uint8_t dec_url[256] = {B64_ALNUM, ['-'] = 63, ['_'] = 64};

size_t kix_base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

int kix_base64_encode(const uint8_t *in, size_t n, struct kix_buf *out)
{
    size_t enc, i = 0;
    char *o;
    int rc;

    if (n > (SIZE_MAX - 8) / 4 * 3)
        return KIX_ENOMEM;
    enc = kix_base64_encoded_len(n);
    rc = kix_buf_grow(out, enc);
    if (rc)
        return rc;
    o = (char *)out->ptr + out->len;
    for (; i + 3 <= n; i += 3, o += 4) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        o[0] = b64_std[v >> 18];
        o[1] = b64_std[v >> 12 & 63];
        o[2] = b64_std[v >> 6 & 63];
        o[3] = b64_std[v & 63];
    }
    if (n - i == 1) {
        o[0] = b64_std[in[i] >> 2];
        o[1] = b64_std[(in[i] & 3) << 4];
        o[2] = o[3] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 8 | in[i + 1];
        o[0] = b64_std[v >> 10];
        o[1] = b64_std[v >> 4 & 63];
        o[2] = b64_std[(v & 15) << 2];
        o[3] = '=';
    }
    out->len += enc;
    out->ptr[out->len] = '\0';
    return KIX_OK;
}

/* The decoded length of padded base64 text, from its length and padding. */
static int decoded_len(const char *in, size_t len, size_t *n)
{
    size_t pad = 0;

    if (len % 4 != 0)
        return KIX_EINVAL;
    if (len && in[len - 1] == '=')
        pad = (len >= 2 && in[len - 2] == '=') ? 2 : 1;
    *n = len / 4 * 3 - pad;
    return KIX_OK;
}

/* Strict decode of len (a multiple of 4) characters with one alphabet's
 * table: every character in the alphabet but for one or two '=' at the
 * end, and the unused low bits of the last data character zero. Writes
 * the first cap decoded bytes to dst (the caller knows the full length
 * from decoded_len). 0 when valid. Public data only: the time taken
 * depends on the text (kix_base64_decode_secret for keys). */
static int decode_with(const uint8_t *tab, const char *in, size_t len, uint8_t *dst, size_t cap)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t i = 0, o = 0;
    unsigned bad = 0;

    if (len == 0)
        return 0;
    /* every quartet but the last: no padding allowed */
    for (; i + 4 < len; i += 4, o += 3) {
        unsigned a = tab[s[i]], b = tab[s[i + 1]], c = tab[s[i + 2]], d = tab[s[i + 3]];
        uint32_t v;

        bad |= !a | !b | !c | !d;
        v = (uint32_t)(a - 1) << 18 | (uint32_t)(b - 1) << 12 | (uint32_t)(c - 1) << 6 |
            (uint32_t)(d - 1);
        if (o + 3 <= cap) {
            dst[o] = (uint8_t)(v >> 16);
            dst[o + 1] = (uint8_t)(v >> 8);
            dst[o + 2] = (uint8_t)v;
        } else {
            for (size_t k = 0; k < 3 && o + k < cap; k++)
                dst[o + k] = (uint8_t)(v >> (16 - 8 * k));
        }
    }
    if (bad)
        return -1;
    {
        unsigned a = tab[s[i]], b = tab[s[i + 1]], c = tab[s[i + 2]], d = tab[s[i + 3]];
        uint8_t last[3];
        size_t n;

        if (!a || !b)
            return -1;
        if (s[i + 3] == '=' && s[i + 2] == '=') {
            if ((b - 1) & 15)
                return -1; /* non-zero trailing bits */
            n = 1;
            c = d = 1;
        } else if (s[i + 3] == '=') {
            if (!c || ((c - 1) & 3))
                return -1;
            n = 2;
            d = 1;
        } else {
            if (!c || !d)
                return -1;
            n = 3;
        }
        last[0] = (uint8_t)((a - 1) << 2 | (b - 1) >> 4);
        last[1] = (uint8_t)((b - 1) << 4 | (c - 1) >> 2);
        last[2] = (uint8_t)((c - 1) << 6 | (d - 1));
        for (size_t k = 0; k < n && o + k < cap; k++)
            dst[o + k] = last[k];
    }
    return 0;
}

int kix_base64_decode(const char *in, size_t len, uint8_t *dst, size_t dst_max, size_t *dst_len)
{
    size_t n;

    *dst_len = 0;
    if (decoded_len(in, len, &n))
        return KIX_EINVAL;
    if (n > dst_max)
        return KIX_ELIMIT;
    /* One alphabet per string: the standard one, else the URL-safe one. */
    if (decode_with(dec_std, in, len, dst, n) != 0 && decode_with(dec_url, in, len, dst, n) != 0)
        return KIX_EINVAL;
    *dst_len = n;
    return KIX_OK;
}

int kix_base64_decode_std(const char *b64, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t n;

    if (decoded_len(b64, len, &n) || decode_with(dec_std, b64, len, out, cap) != 0)
        return -1;
    *out_len = n;
    return 0;
}

/* libsodium 1.0.18 decodes any byte >= 0x80 as if it were '/' (its
 * character test is arithmetic on the byte), so such text would be taken
 * for the canonical spelling; refuse it first. */
static int ascii_only(const char *in, size_t len)
{
    unsigned char any = 0;
    for (size_t i = 0; i < len; i++)
        any |= (unsigned char)in[i];
    return any < 0x80;
}

int kix_base64_decode_secret(const char *b64, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t n, got = 0;
    uint8_t *dst = out;
    int ok;

    if (decoded_len(b64, len, &n) || !ascii_only(b64, len))
        return -1;
    if (n > cap && !(dst = malloc(n)))
        return -1;
    ok = len == 0 || (sodium_base642bin(dst, n, b64, len, NULL, &got, NULL,
                                        sodium_base64_VARIANT_ORIGINAL) == 0 &&
                      got == n);
    if (dst != out) {
        memcpy(out, dst, cap);
        sodium_memzero(dst, n);
        free(dst);
    }
    if (!ok)
        return -1;
    *out_len = n;
    return 0;
}

/* Appends the decoding of in to out: either alphabet, or the standard one
 * only. */
static int decode_buf(const char *in, size_t len, size_t max, int std_only, struct kix_buf *out)
{
    size_t n, got;
    int rc;

    if (decoded_len(in, len, &n))
        return KIX_EINVAL;
    if (n > max)
        return KIX_ELIMIT;
    rc = kix_buf_grow(out, n);
    if (rc)
        return rc;
    if (std_only)
        rc = kix_base64_decode_std(in, len, out->ptr + out->len, n, &got) ? KIX_EINVAL : KIX_OK;
    else
        rc = kix_base64_decode(in, len, out->ptr + out->len, n, &got);
    if (rc == KIX_OK)
        out->len += got;
    out->ptr[out->len] = '\0';
    return rc;
}

int kix_base64_decode_buf(const char *in, size_t len, size_t max, struct kix_buf *out)
{
    return decode_buf(in, len, max, 0, out);
}

int kix_base64_decode_std_buf(const char *in, size_t len, size_t max, struct kix_buf *out)
{
    return decode_buf(in, len, max, 1, out);
}

int kix_utf8_valid(const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s, *end;

    if (len == 0)
        return 1; /* also for s == NULL (an empty msgpack str) */
    end = p + len;

    while (p < end) {
        uint8_t c = *p;
        uint32_t cp;
        size_t n;

        /* eight ASCII bytes at a time, none of them NUL (most text kix
         * checks is ASCII: every envelope, statement and protocol string) */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if ((w & 0x8080808080808080ull) ||
                ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull))
                break;
            p += 8;
        }
        if (p == end)
            break;
        c = *p;
        if (c < 0x80) {
            if (c == 0)
                return 0;
            p++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if ((size_t)(end - p) <= n)
            return 0;
        for (size_t i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        p += n + 1;
    }
    return 1;
}

void kix_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[in[i] >> 4];
        out[2 * i + 1] = hex[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int kix_hex_decode(const char *hex, size_t hex_len, uint8_t *out, size_t n)
{
    if (hex_len != 2 * n)
        return KIX_EINVAL;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return KIX_EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return KIX_OK;
}

void kix_hex_short_id(const uint8_t id[32], char out[KIX_SHORT_ID_LEN + 1])
{
    kix_hex_encode(id, KIX_SHORT_ID_LEN / 2, out);
}

void kix_u64be_put(uint8_t out[8], uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t)v;
        v >>= 8;
    }
}

uint64_t kix_u64be_get(const uint8_t in[8])
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | in[i];
    return v;
}

void kix_u32be_put(uint8_t out[4], uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

uint32_t kix_u32be_get(const uint8_t in[4])
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

size_t kix_uvarint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

int kix_uvarint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t x = 0;

    for (unsigned shift = 0; q < end && shift < 7 * KIX_UVARINT_MAX; shift += 7) {
        uint8_t b = *q++;
        if (shift == 63 && b > 1)
            return KIX_ECORRUPT; /* past 64 bits */
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (b == 0 && shift > 0)
                return KIX_ECORRUPT; /* a longer spelling than needed */
            *v = x;
            *p = q;
            return KIX_OK;
        }
    }
    return KIX_ECORRUPT;
}

int kix_utf8_scrub(const char *s, size_t len, const char *subst, struct kix_buf *out)
{
    size_t i = 0;
    int rc = KIX_OK;

    while (rc == KIX_OK && i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
        if (n <= len - i && kix_utf8_valid(s + i, n)) {
            rc = kix_buf_add(out, s + i, n);
            i += n;
        } else {
            rc = kix_buf_add(out, subst, strlen(subst));
            i++;
        }
    }
    return rc;
}
