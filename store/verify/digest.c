/* Digests of canonical bytes, their strict text form, and references. */
#define _GNU_SOURCE /* memmem */
#include "kix/digest.h"

#include <stdlib.h>
#include <string.h>

#include "kix/json.h"
#include "kix/sha256.h"

static const char digest_prefix[] = "sha256:";
#define PREFIX_LEN (sizeof(digest_prefix) - 1)

void kix_digest_of(const void *data, size_t len, struct kix_digest *out)
{
    kix_sha256(data, len, out->b);
}

void kix_digest_format(const struct kix_digest *d, char *out)
{
    memcpy(out, digest_prefix, PREFIX_LEN);
    kix_hex_encode(d->b, KIX_DIGEST_LEN, out + PREFIX_LEN);
}

/* Each byte's value as a lowercase hex digit, or 16 for any other byte:
 * looked up, not branched on (a digest's digits are random, so branches
 * would mispredict: perf of kixd under get_object, the branchy parse was a
 * quarter of its CPU) nor computed (two compares a digit; callgrind of an
 * audit, ~1,100 instructions a digest against ~600 looked up). */
#define NIBBLE(c)                                                                                  \
    ((c) >= '0' && (c) <= '9' ? (c) - '0' : (c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : 16)
#define NIBBLES4(c)  NIBBLE(c), NIBBLE((c) + 1), NIBBLE((c) + 2), NIBBLE((c) + 3)
#define NIBBLES16(c) NIBBLES4(c), NIBBLES4((c) + 4), NIBBLES4((c) + 8), NIBBLES4((c) + 12)
#define NIBBLES64(c) NIBBLES16(c), NIBBLES16((c) + 16), NIBBLES16((c) + 32), NIBBLES16((c) + 48)
static const uint8_t lower_nibble[256] = {NIBBLES64(0), NIBBLES64(64), NIBBLES64(128),
                                          NIBBLES64(192)};

/* Decodes the 64 digits after the prefix; 0 when every one was lowercase hex. */
static unsigned decode_digits(const char *text, uint8_t out[KIX_DIGEST_LEN])
{
    const unsigned char *digits = (const unsigned char *)text + PREFIX_LEN;
    unsigned bad = 0;

    for (size_t i = 0; i < KIX_DIGEST_LEN; i++) {
        unsigned hi = lower_nibble[digits[2 * i]], lo = lower_nibble[digits[2 * i + 1]];
        bad |= hi | lo;
        out[i] = (uint8_t)(hi << 4 | (lo & 15));
    }
    return bad & 16;
}

int kix_digest_is_text(const char *text, size_t len)
{
    uint8_t scratch[KIX_DIGEST_LEN];
    return len == KIX_DIGEST_TEXT_LEN && memcmp(text, digest_prefix, PREFIX_LEN) == 0 &&
           decode_digits(text, scratch) == 0;
}

int kix_digest_parse(const char *text, size_t len, struct kix_digest *out, struct kix_err *err)
{
    uint8_t b[KIX_DIGEST_LEN];
    if (len != KIX_DIGEST_TEXT_LEN || memcmp(text, digest_prefix, PREFIX_LEN) != 0 ||
        decode_digits(text, b) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "malformed digest \"%.*s\": expected sha256: followed by 64 lowercase "
                           "hex digits",
                           (int)(len > 80 ? 80 : len), text);
    memcpy(out->b, b, KIX_DIGEST_LEN);
    return KIX_OK;
}

struct ref_list {
    struct kix_digest *items;
    size_t n, cap;
};

static int add_ref(struct ref_list *refs, const struct kix_digest *d)
{
    for (size_t i = 0; i < refs->n; i++)
        if (memcmp(refs->items[i].b, d->b, KIX_DIGEST_LEN) == 0)
            return KIX_OK;
    struct kix_digest *p = kix_array_grow(refs->items, &refs->cap, refs->n, 8, sizeof(*p));
    if (!p)
        return KIX_ENOMEM;
    refs->items = p;
    refs->items[refs->n++] = *d;
    return KIX_OK;
}

static int collect_refs(const json_t *v, struct ref_list *refs)
{
    const char *key;
    json_t *child;
    size_t i;
    int rc = KIX_OK;

    switch (json_typeof(v)) {
    case JSON_STRING:
        if (kix_digest_is_text(json_string_value(v), json_string_length(v))) {
            struct kix_digest d;
            if (kix_digest_parse(json_string_value(v), json_string_length(v), &d, NULL) == 0)
                rc = add_ref(refs, &d);
        }
        break;
    case JSON_OBJECT:
        json_object_foreach((json_t *)v, key, child)
        {
            rc = collect_refs(child, refs);
            if (rc)
                break;
        }
        break;
    case JSON_ARRAY:
        json_array_foreach(v, i, child)
        {
            rc = collect_refs(child, refs);
            if (rc)
                break;
        }
        break;
    default:
        break;
    }
    return rc;
}

int kix_refs_collect_tree(const json_t *value, struct kix_digest **out, size_t *n)
{
    struct ref_list refs = {NULL, 0, 0};
    int rc = collect_refs(value, &refs);

    if (rc) {
        free(refs.items);
        refs.items = NULL;
        refs.n = 0;
    }
    *out = refs.items;
    *n = refs.n;
    return rc;
}

int kix_refs_extract(const uint8_t *json, size_t len, struct kix_digest **out, size_t *n,
                     struct kix_err *err)
{
    json_t *v = NULL;
    int rc;

    *out = NULL;
    *n = 0;
    rc = kix_canon_parse_tree(json, len, NULL, &v, err);
    if (rc)
        return rc;
    rc = kix_refs_collect_tree(v, out, n);
    json_decref(v);
    if (rc)
        return kix_err_set(err, rc, "collecting references: %s", kix_strerror(rc));
    return KIX_OK;
}

int kix_refs_canonical(const uint8_t *canon, size_t len, struct kix_digest **out, size_t *n)
{
    static const char needle[] = "\"sha256:";
    const char *s = (const char *)canon, *end = s + len, *q = s;
    struct ref_list refs = {NULL, 0, 0};
    int rc = KIX_OK;

    /* In canonical JSON a '"' followed by "sha256:" opens a string unless a
     * backslash escapes it (a closing quote is followed by , : ] or }), a
     * raw '"' after the digits closes that string, and a string followed by
     * ':' is a member name. So each candidate is settled locally. */
    while (rc == KIX_OK && (q = memmem(q, (size_t)(end - q), needle, sizeof(needle) - 1))) {
        const char *open = q + 1, *close = open + KIX_DIGEST_TEXT_LEN;
        struct kix_digest d;

        q = open;
        if (open - 1 > s && open[-2] == '\\')
            continue; /* an escaped quote inside a string */
        if (close >= end || *close != '"' || (close + 1 < end && close[1] == ':'))
            continue;
        if (kix_digest_parse(open, KIX_DIGEST_TEXT_LEN, &d, NULL) == KIX_OK)
            rc = add_ref(&refs, &d);
    }
    if (rc) {
        free(refs.items);
        refs.items = NULL;
        refs.n = 0;
    }
    *out = refs.items;
    *n = refs.n;
    return rc;
}
