/* kix/template.h — the pages' template engine: named slots filled from a
 * data tree, always HTML-escaped.
 *
 * Syntax (the templates in client/web/templates/):
 *   {{name}}            the text slot `name`, HTML-escaped (& < > " ')
 *   {{json name}}       a slot holding serialized JSON, for a <script
 *                       type="application/json"> element: '<', '>' and '&'
 *                       become \u003c \u003e \u0026 (valid only inside JSON
 *                       strings, where they are the same characters), so
 *                       nothing in it can end the element
 *   {{text name}}       the text slot `name` as element text: only & < >
 *                       escaped (&amp; &lt; &gt;), its quotes as they are,
 *                       so that a reader undoing those three has its bytes
 *   {{#rows}}…{{/rows}} the section `rows`: its body once per row, each row
 *                       a data tree of its own whose missing names are looked
 *                       up in the enclosing ones
 *   {{?name}}…{{/name}} the body when slot `name` is non-empty text or a
 *                       section with rows; {{^name}}…{{/name}} when not
 *   {{>name}}           the partial templates/<name>.html (compiled in),
 *                       rendered in place with the data at that point, so
 *                       that markup two pages share is written once; a
 *                       partial names no other
 * A name the data does not hold is an error (KIX_EINVAL, naming it), never
 * an empty string; so is an unclosed or mismatched section.
 *
 * Memory: a struct kix_tpl owns every value and row set into it (copies);
 * kix_tpl_free frees the tree. Output goes to a caller-owned kix_buf.
 */
#ifndef KIX_TEMPLATE_H
#define KIX_TEMPLATE_H

#include "kix/api.h"

#include "kix/buf.h"
#include "kix/error.h"

struct kix_tpl;

KIX_API struct kix_tpl *kix_tpl_new(void);
KIX_API void kix_tpl_free(struct kix_tpl *t);

/* Sets the text slot `name` (a copy of s, len bytes / NUL-terminated /
 * formatted). KIX_ENOMEM. */
KIX_API int kix_tpl_setn(struct kix_tpl *t, const char *name, const char *s,
                         size_t len) KIX_MUST_CHECK;
KIX_API int kix_tpl_set(struct kix_tpl *t, const char *name, const char *s) KIX_MUST_CHECK;
KIX_API int kix_tpl_setf(struct kix_tpl *t, const char *name, const char *fmt, ...)
    KIX_PRINTF(3, 4) KIX_MUST_CHECK;
/* Declares the section `name` (no rows yet). KIX_ENOMEM. */
KIX_API int kix_tpl_section(struct kix_tpl *t, const char *name) KIX_MUST_CHECK;
/* Appends a row to section `name` (declared if need be); the row belongs
 * to t. NULL when out of memory. */
KIX_API struct kix_tpl *kix_tpl_row(struct kix_tpl *t, const char *name);

/* Renders template text (len bytes) with t. */
KIX_API int kix_tpl_render(const char *tpl, size_t len, const struct kix_tpl *t,
                           struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

#endif
