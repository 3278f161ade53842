/* Selection records of the verifiable index (PROTOCOL.md §4.2): for each
 * dimension readers filter on, the list of its values, and for each value
 * the list of what it selects, so that "these are all the matches" of a
 * query is a proof. A list is a head record (how many items) and pages of
 * at most KIX_SEL_PAGE items, appended in log order and never rewritten
 * once full. Keys:
 *
 *   sel/<dim>                 the dimension's values (items: value bytes)
 *   sel/<dim>/<n>             its page n (decimal, from 0)
 *   sel/<dim>/<hex>           what value v selects, hex = SHA-256(v)
 *   sel/<dim>/<hex>/<n>       its page n
 *
 * What a value selects: comparison keys (32 bytes) of the groups whose
 * runs have it, for the dimensions a group holds constant (kernel, gpu,
 * mode, metric, dtype); for provider, which is not in the comparison key,
 * one item per run: its comparison key (32) then its run id.
 *
 * Decoding functions take views; nothing here allocates but the kix_buf
 * the caller hands in and a struct kix_sel_keys's array. Errors: KIX_EVERIFY when a record is not
 * what the layout says (err says how). */
#ifndef KIX_SELECTION_H
#define KIX_SELECTION_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

enum kix_sel_dim {
    KIX_SEL_KERNEL,
    KIX_SEL_GPU,
    KIX_SEL_PROVIDER,
    KIX_SEL_MODE,
    KIX_SEL_METRIC,
    KIX_SEL_DTYPE,
    KIX_SEL_DIMS
};

#define KIX_SEL_PAGE 256 /* items of a full page */
/* A page record's bound, as a group page's (kix/vindex.h): a page's items
 * are cut by count, never by anything a publisher picks, and its largest
 * item is a provider's (32 + a 128-byte run id), so an index makes at most
 * 17 + 256 × (2 + 160) = 41,489 bytes; a verifier refuses more. */
#define KIX_SEL_PAGE_BYTES 65536u
#define KIX_SEL_VALUE_MAX  159 /* bytes of a value (a GPU's "product formFactor") */
#define KIX_SEL_KEY_MAX    (4 + 8 + 1 + 64 + 1 + 20)

enum { KIX_SEL_HEAD = 0x05, KIX_SEL_PAGE_TAG = 0x06 };

KIX_API const char *kix_sel_dim_name(int dim);

/* The keys of a dimension's value list (value NULL) or of a value's list,
 * and of page n of either (page UINT64_MAX: the head). NUL-terminated;
 * returns the length. */
KIX_API size_t kix_sel_key(int dim, const char *value, size_t value_len, uint64_t page,
                           char out[KIX_SEL_KEY_MAX + 1]);

/* A head: its item count. */
KIX_API int kix_sel_head_decode(const uint8_t *v, size_t len, uint64_t *items, struct kix_err *err);
KIX_API int kix_sel_head_encode(uint64_t items, struct kix_buf *out);

/* A page: page number `page` of a list of `items` items must hold exactly
 * min(KIX_SEL_PAGE, items - page * KIX_SEL_PAGE) items; fn sees each (its
 * position in the list, its bytes) and returns non-zero to stop with that
 * code. */
typedef int (*kix_sel_item_fn)(void *ctx, uint64_t pos, const uint8_t *item, size_t len);
KIX_API int kix_sel_page_decode(const uint8_t *v, size_t len, uint64_t page, uint64_t items,
                                kix_sel_item_fn fn, void *ctx, struct kix_err *err);
/* A page record of n items, from their concatenated encodings (each
 * u16be length then bytes: kix_sel_item_add). */
KIX_API int kix_sel_page_encode(uint64_t page, uint64_t n, const uint8_t *items, size_t len,
                                struct kix_buf *out);
KIX_API int kix_sel_item_add(struct kix_buf *items, const uint8_t *item, size_t len);

/* Whether a value of dim matches what a query asks (kix_query in
 * kix/index.h: kernel family or prefix, GPU words, the rest exact and
 * case-insensitive). */
KIX_API int kix_sel_matches(int dim, const char *value, const char *query);

/* A set of comparison keys (32 bytes) as a selection gathers them, for
 * kixd's query (store/index/query_selected.c) and the client's
 * (client/lib/query_selection.c): add (KIX_ENOMEM), then settle (sorted,
 * each once; with keep, only the keys keep also holds), then has. The set
 * owns k: free(s->k). */
struct kix_sel_keys {
    uint8_t (*k)[32];
    size_t n, cap;
};
KIX_API int kix_sel_keys_add(struct kix_sel_keys *s, const uint8_t k[32]);
KIX_API void kix_sel_keys_settle(struct kix_sel_keys *s, const struct kix_sel_keys *keep);
KIX_API int kix_sel_keys_has(const struct kix_sel_keys *s, const uint8_t k[32]);

#endif
