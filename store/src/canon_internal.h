/* Internal to kix_store: canonical JSON over jansson values, for modules
 * that build or inspect JSON (statements, digests' reference walk). */
#ifndef KIX_CANON_INTERNAL_H
#define KIX_CANON_INTERNAL_H

#include <jansson.h>

#include "kix/canon.h"

/* Strict parse (every check of kix_canon); *value is a new reference. */
int kix__canon_parse(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                     json_t **value, struct kix_err *err);

/* Appends the canonical form of a jansson value. */
int kix__canon_json(const json_t *value, struct kix_buf *out);

#endif
