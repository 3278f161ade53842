/* client/view's own helpers, shared by its files; not public. */
#ifndef KIX_VIEW_INTERNAL_H
#define KIX_VIEW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* A checkpoint's origin (its first line) into out, cut to cap - 1 bytes. */
void kix__view_origin(const uint8_t *checkpoint, size_t len, char *out, size_t cap);

struct kix_run_view;
#include <jansson.h>

/* The value at JSON pointer ptr (RFC 6901) in doc, or NULL. */
json_t *kix__json_pointer(json_t *doc, const char *ptr);

/* The object the manifest names at spec.<field> (kix_run_object_fields),
 * by its digest, or NULL: never the first object of some kind, so that an
 * object the manifest does not name is never shown in its place. */
json_t *kix__view_object(const struct kix_run_view *v, const char *field);

/* Cuts a UTF-8 sequence left incomplete at the end of s (by snprintf). */
void kix__utf8_trim(char *s);

void kix__view_sections_release(struct kix_run_view *v);

#endif
