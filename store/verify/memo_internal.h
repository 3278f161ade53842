/* Internal to kix_verify: the thread's memo (json_memo.c, kix/json.h's
 * kix_json_memo_begin) for what else is worth keeping by the bytes it was
 * made from: a leaf's summary (kix_entry_describe). */
#ifndef KIX_MEMO_INTERNAL_H
#define KIX_MEMO_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum kix__memo_kind { KIX__MEMO_TREE, KIX__MEMO_SUMMARY };

/* What was kept of these very bytes as `kind` (the memo's, not to be
 * changed or freed), or NULL: none kept, or no memo begun on this thread. */
const void *kix__memo_find(int kind, const uint8_t *bytes, size_t len);

/* Keeps value (a json_t * for KIX__MEMO_TREE, taking that reference; else
 * malloc'ed, taken) for the bytes: 1 kept, 0 not (no memo begun, no
 * memory, or too large; value stays the caller's). */
int kix__memo_keep(int kind, const uint8_t *bytes, size_t len, void *value);

/* canon.c: json_loadb's tree (flags 0, or JSON_REJECT_DUPLICATES, the same
 * for these bytes) of a canonical document (kix_canon_is_canonical, an
 * object at the top), built by the recogniser's one walk over the bytes
 * (kix_canon_recognise_tree's, a fraction of jansson's cost), or
 * NULL: not canonical, a string holding NUL or an integer literal of 19
 * digits or more (jansson's own answer to those differs), out of memory.
 * The caller then parses the bytes with jansson as before. */
json_t *kix__json_tree_canonical(const uint8_t *json, size_t len);

#endif
