/* client/view's own helpers, shared by its files; not public. */
#ifndef KIX_VIEW_INTERNAL_H
#define KIX_VIEW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* A checkpoint's origin (its first line) into out, cut to cap - 1 bytes. */
void kix__view_origin(const uint8_t *checkpoint, size_t len, char *out, size_t cap);

#endif
