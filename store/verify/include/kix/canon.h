/* kix/canon.h — RFC 8785 (JCS) canonical JSON.
 *
 * kix stores every JSON object as its canonical bytes: keys sorted by UTF-16
 * code units, ES6 shortest round-trip numbers, the RFC's string escaping, no
 * whitespace. Input is parsed strictly and never changed silently: invalid
 * JSON or UTF-8, lone surrogates, duplicate keys, integer literals beyond
 * 2^53 that are neither a double's exact value nor its canonical form
 * (9007199254740993 would silently become ...992; 333333333333333300000,
 * the canonical form of 3.333333333333333e+20, is kept, so that
 * kix_canon(kix_canon(x)) == kix_canon(x) for every accepted x), numbers
 * beyond the double range, NaN/Infinity, nesting deeper than
 * opts->max_depth, documents over opts->max_bytes and (unless allowed) a top
 * level that is not an object are all rejected with KIX_EINVAL or
 * KIX_ELIMIT and a message naming the cause and, where known, the byte
 * offset.
 *
 * Any other number is the double nearest its text (RFC 8785 §3.2.2.3), so
 * every finite IEEE 754 double is accepted in any of its spellings.
 *
 * Memory: the caller owns `out`; on error its content is unspecified but it
 * stays valid to release.
 */
#ifndef KIX_CANON_H
#define KIX_CANON_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_CANON_DEFAULT_MAX_BYTES (1024u * 1024u)
#define KIX_CANON_DEFAULT_MAX_DEPTH 64u

struct kix_canon_opts {
    size_t max_bytes;   /* input size limit; 0 = default (1 MiB) */
    unsigned max_depth; /* nesting limit; 0 = default (64) */
    int allow_any_top;  /* nonzero: accept arrays/scalars at the top level */
};

/* Canonicalizes `len` bytes of JSON text into `out` (appended). opts may be NULL. */
KIX_API int kix_canon(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                      struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* 1 when `len` bytes are already the canonical form of a document
 * kix_canon accepts with these opts (so kix_canon would return them
 * unchanged), found in one pass without building a tree; 0 otherwise.
 * Sound, not quite complete: 1 guarantees kix_canon(json) == json byte for
 * byte (tests/fuzz/fuzz_canon_recognise.c checks it on every input); 0 only
 * means "ask kix_canon", which also finds canonical a document with an
 * object key over 256 bytes written with escapes, or nested deeper than 64.
 * Numbers are checked against kix_canon_number's own output. */
KIX_API int kix_canon_is_canonical(const uint8_t *json, size_t len,
                                   const struct kix_canon_opts *opts);

/* Appends the ES6 Number.prototype.toString form of a finite double
 * (-0 is written "0"). Returns KIX_EINVAL for NaN or an infinity. */
KIX_API int kix_canon_number(double value, struct kix_buf *out) KIX_MUST_CHECK;

/* Appends a JSON string literal in JCS escaping for `len` bytes of valid UTF-8. */
KIX_API int kix_canon_string(const char *utf8, size_t len, struct kix_buf *out) KIX_MUST_CHECK;

#endif
