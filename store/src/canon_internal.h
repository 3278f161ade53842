/* Internal to kix_store: canonical JSON over jansson values, for modules
 * that build or inspect JSON (statements, digests' reference walk). */
#ifndef KIX_CANON_INTERNAL_H
#define KIX_CANON_INTERNAL_H

#include <jansson.h>

#include "kix/canon.h"
#include "kix/digest.h"
#include "kix/dsse.h"

/* Strict parse (every check of kix_canon); *value is a new reference. */
int kix__canon_parse(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                     json_t **value, struct kix_err *err);

/* Appends the canonical form of a jansson value. */
int kix__canon_json(const json_t *value, struct kix_buf *out);

/* kix_refs_extract over a parsed document: *refs malloc'ed, caller frees. */
int kix__refs_collect(const json_t *value, struct kix_digest **refs, size_t *n);

/* kix_run_comparison_key over a parsed manifest; KIX_ENOTFOUND when it is
 * not a comparable BenchmarkRun. */
int kix__comparison_key_of(const json_t *doc, struct kix_digest *key, uint64_t *value,
                           char metric[16]);

/* kix_statement_parse that hands out the predicate as a tree (a new
 * reference, the caller decrefs) instead of copying it out as text. */
int kix__statement_parse_tree(const uint8_t *json, size_t len, struct kix_statement *st,
                              json_t **predicate, struct kix_err *err);

#endif
