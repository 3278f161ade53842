/* Internal to kix_web: what the page writers (pages.c, group_page.c)
 * share. */
#ifndef KIX_PAGES_INTERNAL_H
#define KIX_PAGES_INTERNAL_H

#include "kix/pages.h"
#include "kix/template.h"

/* Renders a compiled-in template (kix_embed in CMakeLists.txt). */
int kix__page_render(const unsigned char *tpl, size_t len, const struct kix_tpl *t,
                     struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

#endif
