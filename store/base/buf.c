/* The owned growable buffer (git's strbuf, with error codes instead of die). */
#include "kix/buf.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kix_buf_init(struct kix_buf *b)
{
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
}

void kix_buf_release(struct kix_buf *b)
{
    free(b->ptr);
    kix_buf_init(b);
}

void kix_buf_reset(struct kix_buf *b)
{
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

void *kix_array_grow(void *items, size_t *cap, size_t n, size_t first, size_t elem)
{
    size_t ncap;
    void *p;

    if (n < *cap)
        return items;
    ncap = *cap ? *cap : (first ? first : 1);
    while (ncap <= n) {
        if (ncap > SIZE_MAX / 2)
            return NULL;
        ncap *= 2;
    }
    if (!elem || ncap > SIZE_MAX / elem || !(p = realloc(items, ncap * elem)))
        return NULL;
    *cap = ncap;
    return p;
}

int kix_buf_grow(struct kix_buf *b, size_t extra)
{
    size_t need, cap;
    uint8_t *p;

    if (extra > SIZE_MAX - b->len - 1)
        return KIX_ENOMEM;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return KIX_OK;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->ptr, cap);
    if (!p)
        return KIX_ENOMEM;
    b->ptr = p;
    b->cap = cap;
    return KIX_OK;
}

int kix_buf_add(struct kix_buf *b, const void *data, size_t len)
{
    int rc = kix_buf_grow(b, len);
    if (rc)
        return rc;
    if (len)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return KIX_OK;
}

int kix_buf_addc(struct kix_buf *b, uint8_t c)
{
    return kix_buf_add(b, &c, 1);
}

int kix_buf_adds(struct kix_buf *b, const char *s)
{
    return kix_buf_add(b, s, strlen(s));
}

int kix_buf_addf(struct kix_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n, rc;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return KIX_EINVAL;
    rc = kix_buf_grow(b, (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return KIX_OK;
}

uint8_t *kix_buf_detach(struct kix_buf *b, size_t *len)
{
    uint8_t *p = b->ptr;
    if (len)
        *len = b->len;
    kix_buf_init(b);
    return p;
}

struct kix_bytes kix_buf_bytes(const struct kix_buf *b)
{
    struct kix_bytes v = {b->ptr, b->len};
    return v;
}

int kix_bytes_equal_ct(const uint8_t *a, const uint8_t *b, size_t len)
{
    return sodium_memcmp(a, b, len) == 0;
}
