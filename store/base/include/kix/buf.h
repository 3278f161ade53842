/* kix/buf.h — byte views and one owned, growable byte buffer.
 *
 * struct kix_bytes is a borrowed view: whoever produced it says how long the
 * bytes live (as LMDB's MDB_val). struct kix_buf owns its memory: initialise
 * with KIX_BUF_INIT or kix_buf_init(), release with kix_buf_release(), or take
 * the memory with kix_buf_detach() (the caller then frees it with free()).
 * The content is always followed by a NUL byte that is not counted in len,
 * so text can be handed to C string functions. Growth failures return
 * KIX_ENOMEM and leave the buffer as it was.
 */
#ifndef KIX_BUF_H
#define KIX_BUF_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/error.h"

struct kix_bytes {
    const uint8_t *ptr;
    size_t len;
};

struct kix_buf {
    uint8_t *ptr;
    size_t len;
    size_t cap;
};

#define KIX_BUF_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

KIX_API void kix_buf_init(struct kix_buf *b);
KIX_API void kix_buf_release(struct kix_buf *b);
/* Empties the buffer, keeping its memory. */
KIX_API void kix_buf_reset(struct kix_buf *b);
/* Makes room for at least `extra` more bytes. */
KIX_API int kix_buf_grow(struct kix_buf *b, size_t extra) KIX_MUST_CHECK;

/* An array of `elem`-byte items that holds *cap of them, grown by doubling
 * (to `first` when empty) when it is full at n items: returns the array,
 * maybe moved, with *cap updated; NULL when out of memory (or the size
 * would overflow), the old array then still valid and *cap unchanged.
 * Returns `items` as it is while n < *cap. */
KIX_API void *kix_array_grow(void *items, size_t *cap, size_t n, size_t first, size_t elem);
KIX_API int kix_buf_add(struct kix_buf *b, const void *data, size_t len) KIX_MUST_CHECK;
KIX_API int kix_buf_addc(struct kix_buf *b, uint8_t c) KIX_MUST_CHECK;
KIX_API int kix_buf_adds(struct kix_buf *b, const char *s) KIX_MUST_CHECK;
KIX_API int kix_buf_addf(struct kix_buf *b, const char *fmt, ...) KIX_PRINTF(2, 3) KIX_MUST_CHECK;
/* Returns the owned memory (NUL-terminated; NULL if nothing was ever added)
 * and leaves b empty. */
KIX_API uint8_t *kix_buf_detach(struct kix_buf *b, size_t *len);
/* The content as a view (valid until the next change to b). */
KIX_API struct kix_bytes kix_buf_bytes(const struct kix_buf *b);

/* Constant-time comparison of two equal-length byte strings (libsodium);
 * returns 1 when equal. */
KIX_API int kix_bytes_equal_ct(const uint8_t *a, const uint8_t *b, size_t len);

#endif
