/* kix/receipt.h — C2SP tlog-proof receipts, verifiable offline.
 *
 *   c2sp.org/tlog-proof@v1
 *   extra <base64 of the log entry (the leaf bytes)>
 *   index <N>
 *   <base64 hash>            one line per inclusion proof hash, RFC order
 *   <blank line>
 *   <the signed checkpoint note, verbatim>
 *
 * kix puts the entry itself in the `extra` line, so a receipt alone proves
 * what was logged at which index; a receipt without one verifies against an
 * entry the caller supplies. Pure functions: no database, no network.
 *
 * Memory: struct kix_receipt borrows from the parsed text (keep it alive);
 * `entry` is decoded into a caller-owned buffer. Errors: KIX_EINVAL
 * malformed, KIX_ELIMIT over a bound, KIX_EVERIFY the checkpoint signature or
 * the inclusion proof does not verify (the message says which).
 */
#ifndef KIX_RECEIPT_H
#define KIX_RECEIPT_H

#include "kix/api.h"

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/merkle.h"
#include "kix/note.h"

#define KIX_RECEIPT_HEADER    "c2sp.org/tlog-proof@v1"
#define KIX_RECEIPT_MAX_BYTES (256u * 1024u)

struct kix_receipt {
    uint64_t index;
    size_t nproof;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_buf entry;        /* decoded extra (owned; empty when absent) */
    struct kix_bytes checkpoint; /* the signed note, borrowed */
};

KIX_API void kix_receipt_init(struct kix_receipt *r);
KIX_API void kix_receipt_release(struct kix_receipt *r);

/* Appends a receipt. entry may be NULL (no extra line). */
KIX_API int kix_receipt_format(uint64_t index, const struct kix_hash *proof, size_t nproof,
                               const uint8_t *entry, size_t entry_len, const char *note,
                               size_t note_len, struct kix_buf *out) KIX_MUST_CHECK;

KIX_API int kix_receipt_parse(const char *text, size_t len, struct kix_receipt *out,
                              struct kix_err *err) KIX_MUST_CHECK;

/* Parses and verifies: the checkpoint is signed by log_key (origin = its
 * name) and the entry is included at index in the checkpoint's tree. The
 * entry is `entry` if given, else the receipt's own; when both are present
 * they must be equal. cp (may be NULL) receives the verified checkpoint. */
KIX_API int kix_receipt_verify(const char *text, size_t len, const struct kix_verifier *log_key,
                               const uint8_t *entry, size_t entry_len, struct kix_receipt *out,
                               struct kix_checkpoint *cp, struct kix_err *err) KIX_MUST_CHECK;

#endif
