/* Internal helpers shared by key.c, note.c, checkpoint.c and keyfile.c. */
#ifndef KIX_NOTE_IMPL_H
#define KIX_NOTE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "kix/note.h"

#define KIX__EM_DASH     "\xe2\x80\x94" /* U+2014 */
#define KIX__SIG_PREFIX  KIX__EM_DASH " "
#define KIX__SIG_PREFIXN 4

/* Longest PRIVATE+KEY text: "PRIVATE+KEY+" name "+" 8 hex "+" 44 base64. */
#define KIX__PRIVATE_TEXT_MAX (12 + KIX_NOTE_NAME_MAX + 1 + 8 + 1 + 44)

/* Decodes the next UTF-8 sequence of s[0..n) (n > 0) the way Go's
 * utf8.DecodeRune accepts it (no overlongs, surrogates or > U+10FFFF).
 * Returns its length and sets *cp, or 0 when invalid. */
size_t kix__utf8_next(const uint8_t *s, size_t n, uint32_t *cp);

/* kix_note_name_valid without the length bound (names in foreign notes). */
int kix__name_chars_valid(const char *name, size_t len);

/* Writes the PRIVATE+KEY text (no newline, NUL-terminated) of s into dst
 * (cap >= KIX__PRIVATE_TEXT_MAX + 1, ideally sodium_malloc memory);
 * returns its length. */
size_t kix__signer_private_text(const struct kix_signer *s, char *dst, size_t cap);

/* Signs out[text_start..len) as a note text with s: appends the blank line
 * and the signature line (used by kix_checkpoint_sign to avoid a copy). */
int kix__note_sign_in_place(struct kix_buf *out, size_t text_start, const struct kix_signer *s,
                            struct kix_err *err) KIX_MUST_CHECK;

#endif
