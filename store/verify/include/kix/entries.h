/* kix/entries.h — building the signed entries a publisher, attester,
 * rerunner or admin appends to a kix log.
 *
 * Each builder writes the JCS canonical DSSE envelope (payload: an in-toto
 * Statement v1 with one subject and a kix predicate, PROTOCOL.md §5) signed with
 * the given Ed25519 key; the signature's keyid is the key's id (hex SHA-256
 * of its public key). Timestamps default to now (RFC 3339, UTC) when NULL.
 * The caller owns `envelope` (appended to). Errors: KIX_EINVAL for a bad
 * run id or field, KIX_ENOMEM.
 */
#ifndef KIX_ENTRIES_H
#define KIX_ENTRIES_H

#include "kix/api.h"

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/entry.h"
#include "kix/error.h"
#include "kix/note.h"

/* A fresh UUIDv7 (RFC 9562) as 36 characters and a NUL: a default run id. */
KIX_API void kix_uuid7(char out[37]);

/* RFC 3339 UTC time of now, "2026-11-29T14:41:07Z". */
KIX_API void kix_now_rfc3339(char out[32]);

KIX_API int kix_entry_publication(const struct kix_signer *key, const char *run_id,
                                  const struct kix_digest *manifest, const char *published_at,
                                  const char *source, const char *license, struct kix_buf *envelope,
                                  struct kix_err *err) KIX_MUST_CHECK;

KIX_API int kix_entry_attestation(const struct kix_signer *key, const char *run_id,
                                  const struct kix_digest *manifest, const char *note,
                                  const struct kix_digest *evidence, size_t nevidence,
                                  struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

/* The same with the attestation's time given (RFC 3339 UTC; NULL: now). */
KIX_API int kix_entry_attestation_at(const struct kix_signer *key, const char *run_id,
                                     const struct kix_digest *manifest, const char *note,
                                     const struct kix_digest *evidence, size_t nevidence,
                                     const char *attested_at, struct kix_buf *envelope,
                                     struct kix_err *err) KIX_MUST_CHECK;

/* outcome: "reproduced", "not_reproduced" or "failed". */
KIX_API int kix_entry_rerun(const struct kix_signer *key, const char *run_id,
                            const struct kix_digest *manifest, const char *outcome,
                            const struct kix_digest *rerun_manifest, const char *observed_at,
                            struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

KIX_API int kix_entry_supersession(const struct kix_signer *key, const char *old_run_id,
                                   const struct kix_digest *old_manifest, const char *new_run_id,
                                   const char *reason, struct kix_buf *envelope,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* The same with the supersession's time given (RFC 3339 UTC; NULL: now). */
KIX_API int kix_entry_supersession_at(const struct kix_signer *key, const char *old_run_id,
                                      const struct kix_digest *old_manifest, const char *new_run_id,
                                      const char *reason, const char *superseded_at,
                                      struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

/* Withdraws run_id from ranking: reason an enum kix_withdraw_reason, note
 * (may be NULL) at most KIX_WITHDRAW_NOTE_MAX bytes, evidence (may be NULL)
 * the digest of an object logged with it; withdrawn_at NULL: now. */
KIX_API int kix_entry_withdrawal(const struct kix_signer *key, const char *run_id,
                                 const struct kix_digest *manifest, int reason, const char *note,
                                 const struct kix_digest *evidence, const char *withdrawn_at,
                                 struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

/* Undoes run_id's withdrawal (note may be NULL; reinstated_at NULL: now). */
KIX_API int kix_entry_reinstatement(const struct kix_signer *key, const char *run_id,
                                    const struct kix_digest *manifest, const char *note,
                                    const char *reinstated_at, struct kix_buf *envelope,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* An open note (PROTOCOL.md §5.4): an attestation carrying its signer's
 * public key ("signerKey"), which a log whose policy allows open notes
 * takes from a key no registration names. work_bits > 0: grinds a "work"
 * nonce until the statement hash (SHA-256 of the PAE) has that many
 * leading zero bits (about 2^work_bits hashes; KIX_EINVAL above
 * KIX_NOTE_WORK_MAX). log: the origin of the log it is for. */
KIX_API int kix_entry_open_note(const struct kix_signer *key, const char *log, const char *run_id,
                                const struct kix_digest *manifest, const char *note,
                                const struct kix_digest *evidence, size_t nevidence,
                                const char *attested_at, unsigned work_bits,
                                struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

/* The log's admission policy (signed by an admin key): open notes allowed,
 * and the bits of work each needs. log_key_id: the log's key id, the
 * subject digest (a policy is for one log). set_at NULL: now. */
KIX_API int kix_entry_policy(const struct kix_signer *admin, const uint8_t log_key_id[32],
                             int open_notes, unsigned note_work, const char *set_at,
                             struct kix_buf *envelope, struct kix_err *err) KIX_MUST_CHECK;

/* roles: bitmask of enum kix_role (ignored for a revoke). */
KIX_API int kix_entry_key(const struct kix_signer *admin, int revoke, const uint8_t pub[32],
                          unsigned roles, struct kix_buf *envelope,
                          struct kix_err *err) KIX_MUST_CHECK;

#endif
