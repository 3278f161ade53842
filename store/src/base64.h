/* base64.h — internal text encodings shared by DSSE envelopes and statements.
 *
 * Base64 (RFC 4648) over libsodium. Encoding is always the standard
 * alphabet with `=` padding. Decoding accepts the standard alphabet or the
 * URL-safe one (DSSE protocol.md: verifiers MUST accept either), one
 * alphabet per string, and is otherwise strict, like go-securesystemslib:
 * the padding must be present and exact (unpadded text is rejected), no
 * whitespace or other characters, and the unused low bits of the last
 * character must be zero (so every byte string has exactly one accepted
 * spelling per alphabet).
 *
 * kix__utf8_valid serves the fixed-shape JSON that dsse.c and statement.c
 * emit without a parse (string literals come from kix_canon_string).
 */
#ifndef KIX_BASE64_H
#define KIX_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

/* Length of the padded standard encoding of n bytes (no NUL). */
size_t kix__base64_encoded_len(size_t n);

/* Appends the padded standard-alphabet encoding of n bytes to out.
 * KIX_ENOMEM on growth failure (out unchanged). */
int kix__base64_encode(const uint8_t *in, size_t n, struct kix_buf *out) KIX_MUST_CHECK;

/* Decodes `len` bytes of base64 text (standard or URL-safe, padded) into
 * dst (capacity dst_max), setting *dst_len. KIX_EINVAL when the text is not
 * base64 as described above, KIX_ELIMIT when it decodes to more than
 * dst_max bytes (checked before anything is written). */
int kix__base64_decode(const char *in, size_t len, uint8_t *dst, size_t dst_max,
                       size_t *dst_len) KIX_MUST_CHECK;

/* Strict standard-alphabet base64 only (signed notes, keys, receipts),
 * decoded by the same code: writes the first cap decoded bytes to out, sets
 * *out_len to the full decoded length (callers check it against cap) and
 * returns 0; -1 when not valid. A longer result passes through a scratch
 * buffer that is wiped before it is freed (key files decode through here). */
int kix__b64_decode(const char *b64, size_t len, uint8_t *out, size_t cap, size_t *out_len);

/* kix__base64_encode under the name the note code uses. */
int kix__b64_add(struct kix_buf *out, const uint8_t *in, size_t n) KIX_MUST_CHECK;

/* The same, appending to out; max bounds the decoded length. On error out
 * keeps its previous content. Adds KIX_ENOMEM. */
int kix__base64_decode_buf(const char *in, size_t len, size_t max,
                           struct kix_buf *out) KIX_MUST_CHECK;

/* 1 when s[0..len) is well-formed UTF-8: shortest forms only, no
 * surrogates, nothing above U+10FFFF. NUL bytes are rejected too, since
 * kix text fields are C strings. */
int kix__utf8_valid(const char *s, size_t len);

/* Appends s[0..len) (valid UTF-8) as a JCS string literal: `"` and `\`
 * escaped, \b \t \n \f \r, other controls as \u00xx (lowercase hex),
 * everything else verbatim. */

#endif
