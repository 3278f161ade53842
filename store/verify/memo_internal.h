/* Internal to kix_verify: the thread's memo (json_memo.c, kix/json.h's
 * kix_json_memo_begin) for what else is worth keeping by the bytes it was
 * made from: a leaf's summary (kix_entry_describe). */
#ifndef KIX_MEMO_INTERNAL_H
#define KIX_MEMO_INTERNAL_H

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

#endif
