/* kix/entry.h — the vocabulary of a kix log entry and what one says.
 *
 * Every log entry is a DSSE envelope whose payload is an in-toto Statement
 * v1 with one subject and a kix predicate; the predicate type decides what
 * the entry means and which role its signer needs:
 *
 *   key           add or revoke a key with roles          (role admin;
 *                 entry 0 registers the first admin key, signed by the log key)
 *   publication   publishes a run manifest under a run id  (role publish)
 *   attestation   a community note about a run            (role attest)
 *   rerun         a controlled rerun's outcome             (role rerun)
 *   supersession  the publisher points an old run at its successor
 *   withdrawal    takes a run out of ranking, with a reason  (role curate,
 *                 or the run's own publisher)
 *   reinstatement undoes the run's withdrawal               (role curate, or
 *                 the publisher when it withdrew the run itself)
 *   policy        the log's own admission policy: whether an attestation
 *                 may come from a key no registration names (an "open
 *                 note", which carries its signer's public key), and the
 *                 proof of work one needs                   (role admin)
 *
 * kix_entry_parse_statement reads a statement's fields strictly (the
 * message names the field at fault); kix_entry_describe and
 * kix_entry_needs read a whole leaf. Pure functions: no database, no
 * signature check (the log layer verifies signatures against its key
 * registry).
 *
 * Memory: struct kix_entry owns its `needs` array (kix_entry_release, safe
 * after a failed parse); other outputs are caller-owned.
 * Errors: KIX_EINVAL malformed (the message names the field), KIX_ELIMIT a
 * bound exceeded, KIX_ENOMEM.
 */
#ifndef KIX_ENTRY_H
#define KIX_ENTRY_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/dsse.h"
#include "kix/error.h"

#define KIX_PREDICATE_PREFIX       "https://kernelindex.dev/"
#define KIX_PREDICATE_KEY          "https://kernelindex.dev/key/v1"
#define KIX_PREDICATE_PUBLICATION  "https://kernelindex.dev/publication/v1"
#define KIX_PREDICATE_ATTESTATION  "https://kernelindex.dev/attestation/v1"
#define KIX_PREDICATE_RERUN        "https://kernelindex.dev/rerun/v1"
#define KIX_PREDICATE_SUPERSESSION "https://kernelindex.dev/supersession/v1"
#define KIX_PREDICATE_WITHDRAWAL   "https://kernelindex.dev/withdrawal/v1"
#define KIX_PREDICATE_REINSTATE    "https://kernelindex.dev/reinstatement/v1"
#define KIX_PREDICATE_POLICY       "https://kernelindex.dev/policy/v1"
#define KIX_NOTE_WORK_MAX          32u /* bits of proof of work a policy may ask of an open note */
#define KIX_NOTE_WORK_LEN          64u /* bytes of an open note's "work" nonce */
/* An open note's bounds (PROTOCOL.md §5.4), each checked by every replay:
 * its text, its evidence digests, and the objects first stored with it. */
#define KIX_OPEN_NOTE_TEXT_MAX    4096u
#define KIX_OPEN_NOTE_EVIDENCE    4u
#define KIX_OPEN_NOTE_OBJECTS_MAX 2u
#define KIX_OPEN_NOTE_OBJECT_MAX  16384u
#define KIX_OPEN_NOTE_LOG_MAX     255u  /* bytes of the origin an open note names */
#define KIX_WITHDRAW_NOTE_MAX     4096u /* characters of a withdrawal's or reinstatement's note */

#define KIX_LEAF_MAX   65535u /* bytes of one log leaf */
#define KIX_RUN_ID_MAX 128u   /* bytes of a run id */
#define KIX_NO_INDEX   UINT64_MAX

enum kix_entry_type {
    KIX_ENTRY_KEY = 1,
    KIX_ENTRY_PUBLICATION = 2,
    KIX_ENTRY_ATTESTATION = 3,
    KIX_ENTRY_RERUN = 4,
    KIX_ENTRY_SUPERSESSION = 5,
    KIX_ENTRY_WITHDRAWAL = 6,
    KIX_ENTRY_REINSTATEMENT = 7,
    KIX_ENTRY_POLICY = 8,
};
#define KIX_ENTRY_TYPE_MAX 8

enum kix_role {
    KIX_ROLE_ADMIN = 1,
    KIX_ROLE_PUBLISH = 2,
    KIX_ROLE_ATTEST = 4,
    KIX_ROLE_RERUN = 8,
    KIX_ROLE_CURATE = 16, /* withdraws and reinstates any run */
};
#define KIX_ROLE_ALL 31u

/* Why a run is withdrawn from ranking: a closed vocabulary, so that every
 * reader can count and filter withdrawals (the note says the rest). */
enum kix_withdraw_reason {
    KIX_WITHDRAW_INVALID_TIMING = 1,
    KIX_WITHDRAW_INCORRECT_RESULT = 2,
    KIX_WITHDRAW_DUPLICATE = 3,
    KIX_WITHDRAW_OTHER = 4,
};
#define KIX_WITHDRAW_REASONS "invalid-timing, incorrect-result, duplicate, other"
KIX_API const char *kix_withdraw_reason_name(int reason);            /* "invalid-timing", ...; "" */
KIX_API int kix_withdraw_reason_parse(const char *text, size_t len); /* 0 when unknown */

/* A run's evidence level: only a controlled rerun changes it. */
enum kix_evidence {
    KIX_EVIDENCE_REPORTED = 0,
    KIX_EVIDENCE_REPRODUCED = 1,
    KIX_EVIDENCE_NOT_REPRODUCED = 2,
    KIX_EVIDENCE_FAILED = 3,
};

KIX_API const char *kix_entry_type_name(int type); /* "publication", ... */
/* The leading zero bits of a statement hash: an open note's proof of work. */
KIX_API unsigned kix_work_bits(const uint8_t hash[32]);

KIX_API const char *kix_evidence_name(int evidence);          /* "reported", "reproduced", ... */
KIX_API int kix_evidence_parse(const char *text, size_t len); /* -1 when unknown */
/* "admin,publish" → bitmask; -1 on an unknown role. */
KIX_API int kix_roles_parse(const char *text, size_t len);
/* Writes role names joined by ',' into out. */
KIX_API int kix_roles_format(unsigned roles, struct kix_buf *out) KIX_MUST_CHECK;

/* The ids a logged entry may carry: 1..KIX_RUN_ID_MAX bytes of
 * [A-Za-z0-9._:-]. A log written before the run-id grammar (below) may hold
 * any of them, so readers of stored entries accept them all. */
KIX_API int kix_run_id_valid(const char *s, size_t len);

/* The run-id grammar (PROTOCOL.md §5.3), what a new run id must follow:
 * 1..KIX_RUN_ID_MAX bytes of [A-Za-z0-9._-], the first a letter or digit,
 * not ending in ".html" or ".json" (any case). So no leading dot (".",
 * "..", ".size" name directories and the static export's own files),
 * nothing that parses as a digest (no ':'), no name of another run's
 * files (runs/<id>.html and runs/<id>.json are run <id>'s), and only
 * characters that a URL path segment and a file name both take as they
 * are. The one check for submit (the index), run references (kix_ref_parse),
 * the CLI and the pages' export. KIX_EINVAL with the rule broken and the
 * grammar in err's message. */
#define KIX_RUN_ID_GRAMMAR                                                                         \
    "a run id is 1 to 128 characters of A-Z a-z 0-9 . _ -, the first a letter or digit, not "      \
    "ending in .html or .json"
KIX_API int kix_run_id_check(const char *s, size_t len, struct kix_err *err) KIX_MUST_CHECK;

/* The name of a run's files in the pages' layout (PROTOCOL.md §3, "run
 * page names"): runs/<name>, runs/<name>.html and runs/<name>.json. A run
 * id of the grammar is its own name. Any other logged id (a log written
 * before the grammar, or before its suffix rule) is escaped: "_" and the
 * id with '_' written "_u", '.' "_d" and ':' "_c". No id of the grammar
 * begins with '_' or ends in ".html" or ".json", and an escaped name holds
 * no '.', so no two ids (of the grammar or not) share a file. Writes the
 * name into out (NUL-terminated); KIX_ELIMIT when it needs more than cap
 * bytes or more than KIX_RUN_PAGE_NAME_MAX characters (a file name, with
 * ".html", must stay under NAME_MAX), KIX_EINVAL for an id no entry may
 * carry (kix_run_id_valid). *escaped: whether the name is not the id. */
#define KIX_RUN_PAGE_NAME_MAX 240
KIX_API int kix_run_page_name(const char *id, size_t len, char *out, size_t cap,
                              int *escaped) KIX_MUST_CHECK;
/* The inverse: the run id an escaped page name (one beginning with '_')
 * stands for, into id (KIX_RUN_ID_MAX + 1 bytes). KIX_EINVAL when name is
 * no escaped name kix_run_page_name writes. */
KIX_API int kix_run_page_id(const char *name, size_t len,
                            char id[KIX_RUN_ID_MAX + 1]) KIX_MUST_CHECK;

/* What an entry's statement says, as kix reads it. */
struct kix_entry {
    int type; /* enum kix_entry_type */
    struct kix_digest subject;
    char run_id[KIX_RUN_ID_MAX + 1];
    size_t run_id_len;
    /* rerun */
    int outcome; /* enum kix_evidence */
    struct kix_digest rerun_digest;
    /* supersession */
    char new_run_id[KIX_RUN_ID_MAX + 1];
    size_t new_run_id_len;
    /* withdrawal: enum kix_withdraw_reason */
    int withdraw_reason;
    /* key */
    int key_revoke;
    uint8_t key_pub[32];
    unsigned key_roles;
    /* attestation: an open note carries its signer's public key
     * ("signerKey", whose SHA-256 kix_entry_signer checks is the keyid) */
    int open_note;
    uint8_t note_pub[32];
    char note_log[KIX_OPEN_NOTE_LOG_MAX + 1]; /* the log it is for ("log"): its origin */
    /* policy: open notes allowed, bits of work each needs */
    int policy_open_notes;
    unsigned policy_note_work;
    /* the signature's keyid (kix_entry_signer) */
    uint8_t signer[32];
    /* every digest the entry needs stored: its manifest, rerun manifest,
     * evidence (malloc'ed; kix_entry_release) */
    struct kix_digest *needs;
    size_t nneeds;
};

/* Parses a statement's bytes into e (zeroed by the caller first). */
KIX_API int kix_entry_parse_statement(struct kix_entry *e, const uint8_t *payload, size_t len,
                                      struct kix_err *err) KIX_MUST_CHECK;
/* The one signature kix accepts: exactly one, its keyid the 64 hex digits
 * of the signer's key id, into e->signer. */
KIX_API int kix_entry_signer(struct kix_entry *e, const struct kix_dsse_envelope *env,
                             struct kix_err *err) KIX_MUST_CHECK;
/* The keyid is the one field of an envelope that no signature covers: it
 * has one spelling in a leaf (lowercase hex), so re-encoding it can never
 * make a second leaf of a logged statement. Writes it so in place and
 * returns how many bytes it changed (0: the envelope's bytes spelled it so). */
KIX_API size_t kix_entry_canonical_keyid(struct kix_dsse_envelope *env);
/* kix_dsse_parse, kix_entry_parse_statement and kix_entry_signer of a
 * whole leaf (no signature check). */
KIX_API int kix_entry_parse_leaf(const uint8_t *leaf, size_t len, struct kix_entry *e,
                                 struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_entry_release(struct kix_entry *e);

/* What an entry says, read from its leaf alone (no signature check). */
struct kix_entry_summary {
    int type;                            /* enum kix_entry_type */
    char run_id[KIX_RUN_ID_MAX + 1];     /* "" for key entries */
    char new_run_id[KIX_RUN_ID_MAX + 1]; /* supersession: the successor */
    struct kix_digest subject;           /* manifest digest, or key id */
    uint8_t signer[32];                  /* key id from the signature */
    int outcome;                         /* rerun: enum kix_evidence */
    struct kix_digest rerun_digest;      /* rerun: the rerun's manifest */
    int key_revoke;                      /* key: 1 for a revocation */
    unsigned key_roles;                  /* key: roles added */
    int withdraw_reason;                 /* withdrawal: enum kix_withdraw_reason */
    int open_note;                       /* attestation: from a key no registration names */
    int policy_open_notes;               /* policy: open notes allowed */
    unsigned policy_note_work;           /* policy: bits of work an open note needs */
    char time[40];                       /* publishedAt / attestedAt / observedAt ..., or "" */
    char note[256]; /* attestation, withdrawal or reinstatement note (truncated), or "" */
    char source[128], license[64]; /* publication: as the publisher gave them */
};

KIX_API int kix_entry_describe(const uint8_t *leaf, size_t len, struct kix_entry_summary *out,
                               struct kix_err *err) KIX_MUST_CHECK;

/* 0 when the envelope certainly is no open note (kix_entry_describe would
 * not set open_note): its statement has no member named signerKey, written
 * plainly or with escapes. 1 when it may be one, or does not parse (then
 * kix_entry_describe says which). A fraction of kix_entry_describe's cost:
 * kixd asks it of every submit, on its event loop, before rate-limiting
 * open notes. */
KIX_API int kix_entry_may_be_open_note(const uint8_t *leaf, size_t len);

/* The digests of the objects an entry needs stored (its subject manifest,
 * rerun manifest, evidence), from its leaf alone: what a replica fetches
 * before it replays the entry (plus those objects' own references).
 * *out is malloc'ed (caller frees). KIX_EINVAL when the leaf does not parse. */
KIX_API int kix_entry_needs(const uint8_t *leaf, size_t len, struct kix_digest **out, size_t *n,
                            struct kix_err *err) KIX_MUST_CHECK;

#endif
