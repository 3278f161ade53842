/* The selection records' layouts and the matching a query applies to a
 * dimension's values (kix/selection.h), shared by the index that writes
 * them (selections.c), the server's query (query.c) and the client that
 * proves a query complete (client/lib/query_verify.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kix/encoding.h"
#include "kix/selection.h"
#include "kix/sha256.h"

static const char *const dim_names[KIX_SEL_DIMS] = {"kernel", "gpu",    "provider",
                                                    "mode",   "metric", "dtype"};

const char *kix_sel_dim_name(int dim)
{
    return dim >= 0 && dim < KIX_SEL_DIMS ? dim_names[dim] : "?";
}

size_t kix_sel_key(int dim, const char *value, size_t value_len, uint64_t page,
                   char out[KIX_SEL_KEY_MAX + 1])
{
    size_t n = (size_t)snprintf(out, KIX_SEL_KEY_MAX + 1, "sel/%s", kix_sel_dim_name(dim));

    if (value) {
        uint8_t h[KIX_SHA256_LEN];
        kix_sha256(value, value_len, h);
        out[n++] = '/';
        kix_hex_encode(h, sizeof(h), out + n);
        n += 64;
        out[n] = '\0';
    }
    if (page != UINT64_MAX)
        n += (size_t)snprintf(out + n, KIX_SEL_KEY_MAX + 1 - n, "/%llu", (unsigned long long)page);
    return n;
}

int kix_sel_head_encode(uint64_t items, struct kix_buf *out)
{
    uint8_t b[1 + 8];
    b[0] = KIX_SEL_HEAD;
    kix_u64be_put(b + 1, items);
    return kix_buf_add(out, b, sizeof(b));
}

int kix_sel_head_decode(const uint8_t *v, size_t len, uint64_t *items, struct kix_err *err)
{
    if (len != 9 || v[0] != KIX_SEL_HEAD)
        return kix_err_set(err, KIX_EVERIFY, "a selection list's head is not a head record");
    *items = kix_u64be_get(v + 1);
    return KIX_OK;
}

int kix_sel_item_add(struct kix_buf *items, const uint8_t *item, size_t len)
{
    uint8_t n[2] = {(uint8_t)(len >> 8), (uint8_t)len};
    int rc = len > 0xffff ? KIX_EINVAL : kix_buf_add(items, n, 2);
    return rc ? rc : kix_buf_add(items, item, len);
}

int kix_sel_page_encode(uint64_t page, uint64_t n, const uint8_t *items, size_t len,
                        struct kix_buf *out)
{
    uint8_t b[1 + 8 + 8];
    int rc;

    b[0] = KIX_SEL_PAGE_TAG;
    kix_u64be_put(b + 1, page);
    kix_u64be_put(b + 9, n);
    rc = kix_buf_add(out, b, sizeof(b));
    return rc ? rc : kix_buf_add(out, items, len);
}

int kix_sel_page_decode(const uint8_t *v, size_t len, uint64_t page, uint64_t items,
                        kix_sel_item_fn fn, void *ctx, struct kix_err *err)
{
    uint64_t want, n;
    size_t at = 17;

    if (page > items / KIX_SEL_PAGE || (page == items / KIX_SEL_PAGE && items % KIX_SEL_PAGE == 0))
        return kix_err_set(err, KIX_EVERIFY, "page %llu of a selection list of %llu items",
                           (unsigned long long)page, (unsigned long long)items);
    if (len > KIX_SEL_PAGE_BYTES)
        return kix_err_set(err, KIX_EVERIFY,
                           "selection page %llu is %zu bytes, over the %u-byte bound of a page",
                           (unsigned long long)page, len, KIX_SEL_PAGE_BYTES);
    want = items - page * KIX_SEL_PAGE < KIX_SEL_PAGE ? items - page * KIX_SEL_PAGE : KIX_SEL_PAGE;
    if (len < at || v[0] != KIX_SEL_PAGE_TAG || kix_u64be_get(v + 1) != page ||
        (n = kix_u64be_get(v + 9)) != want)
        return kix_err_set(
            err, KIX_EVERIFY, "selection page %llu is not page %llu of a list of %llu items",
            (unsigned long long)page, (unsigned long long)page, (unsigned long long)items);
    for (uint64_t i = 0; i < n; i++) {
        size_t k;
        int rc;
        if (len - at < 2 || len - at - 2 < (k = (size_t)v[at] << 8 | v[at + 1]))
            return kix_err_set(err, KIX_EVERIFY, "selection page %llu is cut short",
                               (unsigned long long)page);
        at += 2;
        if (fn && (rc = fn(ctx, page * KIX_SEL_PAGE + i, v + at, k)))
            return rc;
        at += k;
    }
    if (at != len)
        return kix_err_set(err, KIX_EVERIFY, "selection page %llu has bytes after its items",
                           (unsigned long long)page);
    return KIX_OK;
}

/* The next token of s at or after *pos: a run of letters and digits,
 * lowercased into tok (truncated to cap - 1). 0 at the end. */
static int next_token(const char *s, size_t *pos, char *tok, size_t cap)
{
    size_t i = *pos, n = 0;

    while (s[i] && !isalnum((unsigned char)s[i]))
        i++;
    if (!s[i])
        return 0;
    for (; isalnum((unsigned char)s[i]); i++)
        if (n + 1 < cap)
            tok[n++] = (char)tolower((unsigned char)s[i]);
    tok[n] = '\0';
    *pos = i;
    return 1;
}

static int vendor_word(const char *tok)
{
    return strcmp(tok, "nvidia") == 0 || strcmp(tok, "amd") == 0 || strcmp(tok, "intel") == 0;
}

/* --gpu: case-insensitive; both names cut into tokens at every character
 * that is not a letter or digit; each token of the query must equal a
 * token of the GPU's name (product and form factor), in order, though not
 * necessarily adjacent; a vendor word of the query (nvidia, amd, intel) may
 * be missing from the name. "A100", "a100 sxm4", "A100-80GB" and "NVIDIA
 * A100-SXM4-80GB" all match "NVIDIA A100" of form factor "SXM4-80GB"; "A10"
 * does not. */
static int gpu_matches(const char *name, const char *query)
{
    char want[64], have[64];
    size_t qpos = 0, npos = 0;

    while (next_token(query, &qpos, want, sizeof(want))) {
        size_t save = npos;
        int found = 0;
        while (!found && next_token(name, &npos, have, sizeof(have)))
            found = strcmp(want, have) == 0;
        if (!found && !vendor_word(want))
            return 0;
        if (!found)
            npos = save;
    }
    return 1;
}

/* --kernel: case-insensitive; "K" matches the kernel K and its family, the
 * kernels named K followed by '_', '-', '.' or '/' ("rms_norm" matches
 * "rms_norm" and "rms_norm_backward", not "rms_normalize"); "K*" matches
 * every kernel whose name begins with K. */
static int kernel_matches(const char *kernel, const char *query)
{
    size_t n = strlen(query);

    if (n && query[n - 1] == '*')
        return strncasecmp(kernel, query, n - 1) == 0;
    if (strncasecmp(kernel, query, n) != 0)
        return 0;
    return kernel[n] == '\0' || strchr("_-./", kernel[n]) != NULL;
}

int kix_sel_matches(int dim, const char *value, const char *query)
{
    if (dim == KIX_SEL_KERNEL)
        return kernel_matches(value, query);
    if (dim == KIX_SEL_GPU)
        return gpu_matches(value, query);
    return strcasecmp(value, query) == 0;
}

static int by_key(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

int kix_sel_keys_add(struct kix_sel_keys *s, const uint8_t k[32])
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint8_t(*grown)[32] = realloc(s->k, cap * 32);
        if (!grown)
            return KIX_ENOMEM;
        s->k = grown;
        s->cap = cap;
    }
    memcpy(s->k[s->n++], k, 32);
    return KIX_OK;
}

void kix_sel_keys_settle(struct kix_sel_keys *s, const struct kix_sel_keys *keep)
{
    size_t k = 0;
    if (s->n)
        qsort(s->k, s->n, 32, by_key);
    for (size_t i = 0; i < s->n; i++)
        if ((k == 0 || memcmp(s->k[k - 1], s->k[i], 32) != 0) &&
            (!keep || kix_sel_keys_has(keep, s->k[i])))
            memmove(s->k[k++], s->k[i], 32);
    s->n = k;
}

int kix_sel_keys_has(const struct kix_sel_keys *s, const uint8_t k[32])
{
    return s->n && bsearch(k, s->k, s->n, 32, by_key) != NULL;
}
