/* kix/digest.h — content digests: `sha256:` + 64 lowercase hex.
 *
 * A digest names the SHA-256 of an object's canonical bytes. Text forms are
 * parsed strictly: exactly "sha256:" followed by 64 lowercase hex digits,
 * nothing before or after. kix_refs_* finds every string value of that form
 * inside a JSON document (its references to other objects).
 */
#ifndef KIX_DIGEST_H
#define KIX_DIGEST_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/encoding.h"
#include "kix/error.h"

#define KIX_DIGEST_LEN      32
#define KIX_DIGEST_TEXT_LEN 71 /* "sha256:" + 64 hex */

struct kix_digest {
    uint8_t b[KIX_DIGEST_LEN];
};

/* SHA-256 of bytes (kix/sha256.h: libcrypto). */
KIX_API void kix_digest_of(const void *data, size_t len, struct kix_digest *out);

/* Writes "sha256:<hex>" and a NUL into out (at least KIX_DIGEST_TEXT_LEN + 1 bytes). */
KIX_API void kix_digest_format(const struct kix_digest *d, char *out);

/* Strict parse of exactly `len` bytes; KIX_EINVAL with a message otherwise. */
KIX_API int kix_digest_parse(const char *text, size_t len, struct kix_digest *out,
                             struct kix_err *err) KIX_MUST_CHECK;

/* 1 when `text` (len bytes) is a well-formed digest text. */
KIX_API int kix_digest_is_text(const char *text, size_t len);

/* The references of a JSON document: each distinct digest text found as a
 * string value (object member values and array elements, at any depth),
 * in first-seen order. *refs is malloc'ed (caller frees); *n may be 0. */
KIX_API int kix_refs_extract(const uint8_t *json, size_t len, struct kix_digest **refs, size_t *n,
                             struct kix_err *err) KIX_MUST_CHECK;

/* The same references, found by one scan instead of a parse, for bytes that
 * are canonical JSON (RFC 8785: what kix stores, so every '"' that is not
 * escaped delimits a string and a key is exactly a string followed by ':').
 * On other bytes the result is unspecified but memory-safe. KIX_OK or
 * KIX_ENOMEM; *refs as above. */
KIX_API int kix_refs_canonical(const uint8_t *canon, size_t len, struct kix_digest **refs,
                               size_t *n) KIX_MUST_CHECK;

#endif
