/* client/cli/vocab_check.h — the vocabulary's warnings (kix/vocabulary.h)
 * on a record: what kix validate and kix new run say about a near miss. */
#ifndef KIX_CLI_VOCAB_CHECK_H
#define KIX_CLI_VOCAB_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "kix/schema.h"

/* Up to cap warnings on doc (pointer and message) into out, their count in *n. */
void cli_vocab_warnings(const json_t *doc, struct kix_schema_violation *out, size_t cap, size_t *n);

/* The known name nearest to word, unless word is known (then NULL). */
const char *cli_vocab_near(const char *word, const char *(*names)(size_t i), int known);

#endif
