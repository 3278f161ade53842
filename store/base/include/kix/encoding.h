/* kix/encoding.h — text encodings of bytes: hex, base64, UTF-8 checks.
 *
 * Hex is lowercase on output and strict on input. Base64 (RFC 4648) of
 * public data (envelopes, receipts, notes, roots) is kix's own table-driven
 * codec, whose time depends on the text; secrets (private key files) decode
 * through kix_base64_decode_secret, libsodium's constant-time decoder, with
 * the same strictness (tests/fuzz/fuzz_base64.c holds the two to the same
 * answers on every input). Encoding is
 * always the standard alphabet with `=` padding. kix_base64_decode accepts
 * the standard alphabet or the URL-safe one (DSSE protocol.md: verifiers
 * MUST accept either), one alphabet per string, and is otherwise strict,
 * like go-securesystemslib: the padding must be present and exact, no
 * whitespace or other characters, and the unused low bits of the last
 * character must be zero (so every byte string has exactly one accepted
 * spelling per alphabet). kix_base64_decode_std accepts the standard
 * alphabet only (signed notes, keys, receipts).
 *
 * Memory: outputs go to caller-owned arrays or are appended to a
 * caller-owned struct kix_buf (left as it was on error).
 * Errors: KIX_EINVAL text that is not what it should be, KIX_ELIMIT a
 * decoded length over the caller's bound, KIX_ENOMEM.
 */
#ifndef KIX_ENCODING_H
#define KIX_ENCODING_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

/* Length of the padded standard encoding of n bytes (no NUL). */
KIX_API size_t kix_base64_encoded_len(size_t n);

/* Appends the padded standard-alphabet encoding of n bytes to out.
 * KIX_ENOMEM on growth failure (out unchanged). */
KIX_API int kix_base64_encode(const uint8_t *in, size_t n, struct kix_buf *out) KIX_MUST_CHECK;

/* Decodes `len` bytes of base64 text (standard or URL-safe, padded) into
 * dst (capacity dst_max), setting *dst_len. KIX_EINVAL when the text is not
 * base64 as described above, KIX_ELIMIT when it decodes to more than
 * dst_max bytes (checked before anything is written). */
KIX_API int kix_base64_decode(const char *in, size_t len, uint8_t *dst, size_t dst_max,
                              size_t *dst_len) KIX_MUST_CHECK;

/* Strict standard-alphabet base64 only (signed notes, public keys,
 * receipts), decoded by the same code: writes the first cap decoded bytes
 * to out, sets *out_len to the full decoded length (callers check it
 * against cap) and returns 0; -1 when not valid. Public data only. */
KIX_API int kix_base64_decode_std(const char *b64, size_t len, uint8_t *out, size_t cap,
                                  size_t *out_len);

/* kix_base64_decode_std for secrets (private key files): the same
 * acceptance, decoded by libsodium in constant time (bytes >= 0x80, which
 * libsodium 1.0.18 would read as '/', are refused first). A result longer
 * than cap passes through a scratch buffer that is wiped before it is
 * freed. */
KIX_API int kix_base64_decode_secret(const char *b64, size_t len, uint8_t *out, size_t cap,
                                     size_t *out_len);

/* kix_base64_decode appending to out to out; max bounds the decoded length. On error out
 * keeps its previous content. Adds KIX_ENOMEM. */
KIX_API int kix_base64_decode_buf(const char *in, size_t len, size_t max,
                                  struct kix_buf *out) KIX_MUST_CHECK;

/* kix_base64_decode_buf of the standard alphabet only (KIX_EINVAL for a
 * URL-safe spelling): what kix_base64_encode writes, so text it accepts is
 * the encoding of what it appended. */
KIX_API int kix_base64_decode_std_buf(const char *in, size_t len, size_t max,
                                      struct kix_buf *out) KIX_MUST_CHECK;

/* 1 when s[0..len) is well-formed UTF-8: shortest forms only, no
 * surrogates, nothing above U+10FFFF. NUL bytes are rejected too, since
 * kix text fields are C strings. */
KIX_API int kix_utf8_valid(const char *s, size_t len);

/* Appends s[0..len) to out as well-formed UTF-8: each byte that does not
 * start a valid sequence (and each NUL) becomes subst, e.g. "\xEF\xBF\xBD"
 * (U+FFFD) or "?", so text quoting what a peer or a file system gave still
 * says where the bad bytes were. KIX_OK or KIX_ENOMEM. */
KIX_API int kix_utf8_scrub(const char *s, size_t len, const char *subst,
                           struct kix_buf *out) KIX_MUST_CHECK;

/* Lowercase hex of n bytes into out (2n + 1 bytes, NUL-terminated). */
KIX_API void kix_hex_encode(const uint8_t *in, size_t n, char *out);
/* Strict hex decode (either case) of exactly 2n chars into n bytes;
 * KIX_EINVAL otherwise. */
KIX_API int kix_hex_decode(const char *hex, size_t hex_len, uint8_t *out, size_t n) KIX_MUST_CHECK;

/* The short form of a 32-byte key id that messages and listings show: its
 * first KIX_SHORT_ID_LEN hex digits. */
#define KIX_SHORT_ID_LEN 16
KIX_API void kix_hex_short_id(const uint8_t id[32], char out[KIX_SHORT_ID_LEN + 1]);

/* Big-endian u64, the byte order of every stored key (so keys sort as
 * numbers). */
KIX_API void kix_u64be_put(uint8_t out[8], uint64_t v);
KIX_API uint64_t kix_u64be_get(const uint8_t in[8]);
/* Big-endian u32: lengths and numbers inside stored values and keys. */
KIX_API void kix_u32be_put(uint8_t out[4], uint32_t v);
KIX_API uint32_t kix_u32be_get(const uint8_t in[4]);
/* LEB128 (7 bits a byte, least significant first, the high bit marks
 * more): put writes at most KIX_UVARINT_MAX bytes and returns how many;
 * get reads one from [*p, end), advancing *p: KIX_ECORRUPT when it runs
 * past end, takes more than KIX_UVARINT_MAX bytes or is not the shortest
 * spelling (one value, one encoding). */
#define KIX_UVARINT_MAX 10
KIX_API size_t kix_uvarint_put(uint8_t *out, uint64_t v);
KIX_API int kix_uvarint_get(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
