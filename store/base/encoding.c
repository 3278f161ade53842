/* Base64 over libsodium, UTF-8 checking and JCS string literals (see base64.h). */
#include "kix/encoding.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

size_t kix_base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

int kix_base64_encode(const uint8_t *in, size_t n, struct kix_buf *out)
{
    size_t enc;
    int rc;

    if (n > (SIZE_MAX - 8) / 4 * 3)
        return KIX_ENOMEM;
    enc = kix_base64_encoded_len(n);
    /* kix_buf_grow leaves room for one more byte: sodium's trailing NUL. */
    rc = kix_buf_grow(out, enc);
    if (rc)
        return rc;
    sodium_bin2base64((char *)out->ptr + out->len, enc + 1, n ? in : (const uint8_t *)"", n,
                      sodium_base64_VARIANT_ORIGINAL);
    out->len += enc;
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

int kix_base64_decode(const char *in, size_t len, uint8_t *dst, size_t dst_max, size_t *dst_len)
{
    static const int variants[] = {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_URLSAFE};
    size_t n, got;

    *dst_len = 0;
    if (decoded_len(in, len, &n))
        return KIX_EINVAL;
    if (n > dst_max)
        return KIX_ELIMIT;
    if (len == 0)
        return KIX_OK;
    if (!ascii_only(in, len))
        return KIX_EINVAL;
    for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
        /* Strict: no ignored characters, exact padding, zero trailing bits,
         * the whole input consumed (b64_end NULL). */
        if (sodium_base642bin(dst, n, in, len, NULL, &got, NULL, variants[i]) == 0 && got == n) {
            *dst_len = n;
            return KIX_OK;
        }
    }
    return KIX_EINVAL;
}

int kix_base64_decode_std(const char *b64, size_t len, uint8_t *out, size_t cap, size_t *out_len)
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

int kix_base64_decode_buf(const char *in, size_t len, size_t max, struct kix_buf *out)
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
    rc = kix_base64_decode(in, len, out->ptr + out->len, n, &got);
    if (rc == KIX_OK)
        out->len += got;
    out->ptr[out->len] = '\0';
    return rc;
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
