/* kix/note.h — Ed25519 keys, C2SP signed notes, tlog checkpoints and cosignatures.
 *
 * Formats (follow c2sp.org/signed-note, tlog-checkpoint, tlog-cosignature and
 * golang.org/x/mod/sumdb/note exactly):
 *   verifier key  "<name>+<hash 8 lowercase hex>+<base64(alg || 32-byte public key)>"
 *   signer key    "PRIVATE+KEY+<name>+<hash>+<base64(alg || 32-byte Ed25519 seed)>"
 *   key hash      first 4 bytes (big-endian uint32) of SHA-256(name || "\n" || alg || pub)
 *   signed note   text ending in "\n", a blank line, then one or more lines
 *                 "— <name> <base64(key hash || signature)>\n" (U+2014 EM DASH, space)
 *   checkpoint    note text "<origin>\n<decimal size>\n<base64(32-byte root)>\n[ext lines]"
 *   cosignature   a signature line of an alg 0x04 key: base64(key hash || u64be time || sig),
 *                 sig = Ed25519 over "cosignature/v1\ntime <t>\n" || checkpoint text
 *
 * Algorithms: KIX_NOTE_ALG_ED25519 (0x01) keys sign notes (the log key, whose
 * name is the log's origin); KIX_NOTE_ALG_COSIGN (0x04) keys are witness keys
 * that only make timestamped cosignatures (kix_cosign). Any other algorithm
 * byte is rejected.
 *
 * The DSSE / key registry key id is a different thing: 64 lowercase hex of
 * SHA-256 of the raw 32-byte public key (kix_key_id).
 *
 * Memory: struct kix_signer is opaque and heap-allocated; its 64-byte secret
 * key lives in sodium_malloc memory (guard pages, locked, read-only after
 * creation) and kix_signer_free wipes it. struct kix_verifier and
 * struct kix_checkpoint are plain values. struct kix_note holds borrowed
 * views into the note bytes passed to kix_note_open: keep those bytes alive
 * and unchanged while you use it. Outputs are appended to caller-owned
 * struct kix_buf. No message ever contains private key material.
 *
 * Errors: KIX_EINVAL malformed input (messages "malformed note: <why>",
 * "invalid verifier key: <why>", ...); KIX_EVERIFY a signature failed or no
 * known key verified; KIX_ELIMIT a bound below was exceeded; KIX_ENOMEM;
 * KIX_EIO / KIX_EEXIST / KIX_ENOTFOUND for key files.
 */
#ifndef KIX_NOTE_H
#define KIX_NOTE_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_NOTE_ALG_ED25519 0x01
#define KIX_NOTE_ALG_COSIGN  0x04

#define KIX_NOTE_NAME_MAX   255 /* bytes of a key name (or checkpoint origin) */
#define KIX_NOTE_MAX_SIGS   100 /* signature lines in one note (golang.org/x/mod's cap) */
#define KIX_NOTE_MAX_BYTES  (1024u * 1024u)
#define KIX_NOTE_PUBKEY_LEN 32
#define KIX_NOTE_SECKEY_LEN 64 /* libsodium form: seed || public key */
#define KIX_NOTE_SIG_LEN    64
#define KIX_KEY_ID_HEX_LEN  64
/* A cosignature timestamp must not exceed 2^63 - 1 (tlog-cosignature). */
#define KIX_COSIGN_TIME_MAX UINT64_C(0x7fffffffffffffff)

/* ---- names and text ---------------------------------------------------- */

/* 1 when `name` (len bytes) is a valid key name: non-empty, at most
 * KIX_NOTE_NAME_MAX bytes, valid UTF-8, no '+', no control character and no
 * Unicode space (Go's unicode.IsSpace: ASCII spaces, U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). */
KIX_API int kix_note_name_valid(const char *name, size_t len);

/* Checks that `len` bytes can be the text of a signed note: non-empty, at
 * most KIX_NOTE_MAX_BYTES, valid UTF-8, no control character but "\n", ends
 * in "\n". KIX_EINVAL "malformed note text: <why>" or KIX_ELIMIT. */
KIX_API int kix_note_text_check(const char *text, size_t len, struct kix_err *err) KIX_MUST_CHECK;

/* The note key hash: big-endian uint32 of SHA-256(name || "\n" || alg || pub)[:4]. */
KIX_API uint32_t kix_note_key_hash(const char *name, size_t name_len, uint8_t alg,
                                   const uint8_t pub[KIX_NOTE_PUBKEY_LEN]);

/* The DSSE / registry key id: lowercase hex SHA-256 of the raw public key,
 * written with a NUL into out_hex (65 bytes). */
KIX_API void kix_key_id(const uint8_t pub[KIX_NOTE_PUBKEY_LEN],
                        char out_hex[KIX_KEY_ID_HEX_LEN + 1]);

/* ---- signers (private keys) --------------------------------------------- */

struct kix_signer;

/* A fresh random Ed25519 key named `name` (kix_note_name_valid) for
 * algorithm KIX_NOTE_ALG_ED25519 or KIX_NOTE_ALG_COSIGN. *out is set only on
 * success. KIX_EINVAL bad name or algorithm; KIX_ENOMEM. */
KIX_API int kix_signer_generate(const char *name, uint8_t alg, struct kix_signer **out,
                                struct kix_err *err) KIX_MUST_CHECK;

/* The key derived from a 32-byte Ed25519 seed (RFC 8032 private key). */
KIX_API int kix_signer_from_seed(const char *name, uint8_t alg, const uint8_t seed[32],
                                 struct kix_signer **out, struct kix_err *err) KIX_MUST_CHECK;

/* Parses "PRIVATE+KEY+<name>+<hash>+<base64(alg || seed)>" (one trailing
 * "\n" allowed), as golang.org/x/mod/sumdb/note NewSigner does, and checks
 * the hash against the derived public key. KIX_EINVAL "invalid private key:
 * <why>" (never quoting the key). */
KIX_API int kix_signer_parse(const char *text, size_t len, struct kix_signer **out,
                             struct kix_err *err) KIX_MUST_CHECK;

/* Wipes and frees; NULL is fine. */
KIX_API void kix_signer_free(struct kix_signer *s);

/* Appends the PRIVATE+KEY text (no newline). The buffer then holds the
 * secret: wipe it (sodium_memzero(b->ptr, b->cap)) before releasing it.
 * Prefer kix_keyfile_write, which never copies the key to the heap. */
KIX_API int kix_signer_format_private(const struct kix_signer *s,
                                      struct kix_buf *out) KIX_MUST_CHECK;
/* Appends the verifier key text "<name>+<hash>+<base64(alg || pub)>" (no newline). */
KIX_API int kix_signer_format_verifier(const struct kix_signer *s,
                                       struct kix_buf *out) KIX_MUST_CHECK;

KIX_API const char *kix_signer_name(const struct kix_signer *s);
KIX_API uint8_t kix_signer_alg(const struct kix_signer *s);
KIX_API uint32_t kix_signer_key_hash(const struct kix_signer *s);
KIX_API const uint8_t *kix_signer_public_key(const struct kix_signer *s); /* 32 bytes */
/* The libsodium 64-byte secret key (seed || pub), for DSSE signing. Valid
 * until kix_signer_free; read-only memory. */
KIX_API const uint8_t *kix_signer_secret_key(const struct kix_signer *s);

/* Raw Ed25519 signature of msg (no note framing). */
KIX_API int kix_signer_sign(const struct kix_signer *s, const void *msg, size_t len,
                            uint8_t sig[KIX_NOTE_SIG_LEN]) KIX_MUST_CHECK;

/* ---- verifiers (public keys) -------------------------------------------- */

struct kix_verifier {
    char name[KIX_NOTE_NAME_MAX + 1]; /* NUL-terminated */
    uint8_t alg;                      /* KIX_NOTE_ALG_ED25519 or KIX_NOTE_ALG_COSIGN */
    uint32_t key_hash;
    uint8_t pub[KIX_NOTE_PUBKEY_LEN];
};

/* Strict parse of exactly `len` bytes of verifier key text (no newline):
 * valid name, 8 lowercase hex digits, standard padded base64 of 33 bytes, a
 * known algorithm byte, a valid Ed25519 point, and the hash must equal the
 * computed key hash. KIX_EINVAL "invalid verifier key: <why>". */
KIX_API int kix_verifier_parse(const char *text, size_t len, struct kix_verifier *out,
                               struct kix_err *err) KIX_MUST_CHECK;
/* Builds a verifier from a name, algorithm and raw public key. */
KIX_API int kix_verifier_from_public_key(const char *name, uint8_t alg,
                                         const uint8_t pub[KIX_NOTE_PUBKEY_LEN],
                                         struct kix_verifier *out,
                                         struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_verifier_from_signer(const struct kix_signer *s, struct kix_verifier *out);
/* Appends "<name>+<hash>+<base64(alg || pub)>" (no newline). */
KIX_API int kix_verifier_format(const struct kix_verifier *v, struct kix_buf *out) KIX_MUST_CHECK;

/* ---- signed notes ------------------------------------------------------- */

/* One distinct signature line of an opened note (identical lines collapsed). */
struct kix_note_sig {
    struct kix_bytes line; /* "— name base64", without the "\n" */
    struct kix_bytes name;
    struct kix_bytes b64; /* the base64 signature field */
    uint32_t key_hash;
    int verifier;       /* index into `known` of the key that verified it, or -1 */
    uint64_t timestamp; /* cosignature time when verified by an alg 0x04 key, else 0 */
};

struct kix_note {
    struct kix_bytes text; /* the signed text, including its final "\n" */
    size_t nsigs;
    struct kix_note_sig sigs[KIX_NOTE_MAX_SIGS]; /* in order of appearance */
    size_t nverified;
    size_t verified[KIX_NOTE_MAX_SIGS]; /* distinct `known` indexes that verified */
};

/* Appends the signed note: text, blank line, one line per signer (in order).
 * Signers must be KIX_NOTE_ALG_ED25519 (witness keys use kix_cosign).
 * KIX_EINVAL bad text (kix_note_text_check) or signer; KIX_ENOMEM. */
KIX_API int kix_note_sign(const char *text, size_t len, struct kix_signer *const *signers, size_t n,
                          struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* Re-signs an opened note: its text, a blank line, its existing signature
 * lines (verified or not, in order) except those of the keys in `signers`,
 * then the new signatures (golang.org/x/mod note.Sign of an opened note). */
KIX_API int kix_note_add_signatures(const struct kix_note *note, struct kix_signer *const *signers,
                                    size_t n, struct kix_buf *out,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* Opens a signed note and verifies it against `known` (nknown may be 0).
 * The note must be well formed (else KIX_EINVAL "malformed note: <why>"):
 * valid UTF-8, no control character but "\n", the text runs to the last
 * "\n\n" and is followed by signature lines "— <name> <base64>\n" of valid
 * names and canonical padded base64 (stricter than Go, which ignores
 * non-zero trailing bits) of at least 5 bytes. At most KIX_NOTE_MAX_SIGS lines and
 * KIX_NOTE_MAX_BYTES bytes (else KIX_ELIMIT). Lines whose (name, key hash)
 * match no known key are kept unverified; identical lines are collapsed.
 * Every distinct line of a known key is verified: Ed25519 over the text for
 * alg 0x01, over "cosignature/v1\ntime <t>\n" || text for alg 0x04 (blob of
 * exactly 76 bytes). A failure is KIX_EVERIFY "invalid signature for key
 * <name>+<hash>"; no verified line is KIX_EVERIFY "note has no verifiable
 * signatures". Two known keys with the same name and hash are KIX_EINVAL.
 * *out is filled on success (its views point into `note`); after a
 * KIX_EVERIFY its text and sigs stay readable for diagnostics (as Go's
 * UnverifiedNoteError), with nverified 0 and every sig's verifier -1.
 * Unlike golang.org/x/mod, a second, different line of a known key is
 * verified too (Go skips it), so any bad signature of a known key rejects. */
KIX_API int kix_note_open(const char *note, size_t len, const struct kix_verifier *known,
                          size_t nknown, struct kix_note *out, struct kix_err *err) KIX_MUST_CHECK;

/* 1 when known[index] verified a signature of the opened note. */
KIX_API int kix_note_verified_by(const struct kix_note *note, size_t index);

/* ---- cosignatures ------------------------------------------------------- */

/* Appends one cosignature line "— <name> <base64(hash || u64be time || sig)>\n"
 * by `witness` (a KIX_NOTE_ALG_COSIGN key) over a checkpoint's note text
 * (kix_checkpoint_parse must accept it). time <= KIX_COSIGN_TIME_MAX. */
KIX_API int kix_cosign(const struct kix_signer *witness, const char *checkpoint_text, size_t len,
                       uint64_t time, struct kix_buf *sig_line_out,
                       struct kix_err *err) KIX_MUST_CHECK;
/* The same line over any signed note's text (the same signed message,
 * "cosignature/v1\ntime T\n" then the text): kix's witnesses cosign index
 * notes with it (PROTOCOL.md §4.3), whose first two lines keep them from
 * ever reading as a checkpoint. */
KIX_API int kix_cosign_text(const struct kix_signer *witness, const char *text, size_t len,
                            uint64_t time, struct kix_buf *sig_line_out,
                            struct kix_err *err) KIX_MUST_CHECK;

/* ---- a mirror's held statement ------------------------------------------ *
 *
 * A mirror's statement that it has durably stored every entry of a
 * checkpoint (PROTOCOL.md §2.13.1), what an origin's --ack-replicas counts.
 * The line has the shape of a cosignature ("— <name> <base64(hash || u64be
 * time || sig)>", an alg 0x04 key) but signs another message:
 * "kix-mirror-held/v1\ntime <t>\n" || checkpoint text. A witness cosigns
 * "cosignature/v1\n…", for checkpoints it has not stored (c2sp.org/tlog-
 * witness asks only that they extend), so no cosignature, whatever route
 * obtained it, can ever verify as a held statement, even when the mirror
 * uses one key for both. */
#define KIX_MIRROR_HELD_HEADER "kix-mirror-held/v1"

/* Appends the held-statement line (with a final "\n") by `mirror` (a
 * KIX_NOTE_ALG_COSIGN key) over a checkpoint's note text. The caller makes
 * it only once the checkpoint's entries are durably committed. */
KIX_API int kix_mirror_held_sign(const struct kix_signer *mirror, const char *checkpoint_text,
                                 size_t len, uint64_t time, struct kix_buf *line_out,
                                 struct kix_err *err) KIX_MUST_CHECK;
/* Verifies one held-statement line (a final "\n" allowed) over a
 * checkpoint's note text against `known` (alg 0x04 keys): *which (may be
 * NULL) gets the index of the key, *time (may be NULL) its time.
 * KIX_EINVAL for a malformed line, KIX_EVERIFY for an unknown key or a
 * signature that does not verify (a cosignature of the same text among
 * them), KIX_ENOMEM. */
KIX_API int kix_mirror_held_verify(const char *line, size_t line_len, const char *checkpoint_text,
                                   size_t len, const struct kix_verifier *known, size_t nknown,
                                   size_t *which, uint64_t *time,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* ---- checkpoints -------------------------------------------------------- */

struct kix_checkpoint {
    char origin[KIX_NOTE_NAME_MAX + 1]; /* NUL-terminated */
    uint64_t size;
    uint8_t root[32];
    /* Extension lines, each non-empty and ending in "\n" (len 0: none).
     * After kix_checkpoint_parse, a view into the parsed text. */
    struct kix_bytes extensions;
};

/* Appends "<origin>\n<size>\n<base64(root)>\n<extensions>". KIX_EINVAL for an
 * empty origin, an origin with a control character or invalid UTF-8, or
 * malformed extension lines. */
KIX_API int kix_checkpoint_format(const struct kix_checkpoint *cp, struct kix_buf *out,
                                  struct kix_err *err) KIX_MUST_CHECK;

/* Strict parse of a checkpoint note text (as kix_note.text): non-empty
 * origin of at most KIX_NOTE_NAME_MAX bytes, decimal size without leading
 * zeros ("0" for the empty tree) that fits in uint64, root exactly 32 bytes
 * in canonical padded standard base64, then non-empty extension lines; the
 * text ends in "\n". KIX_EINVAL "malformed checkpoint: <why>". */
KIX_API int kix_checkpoint_parse(const char *text, size_t len, struct kix_checkpoint *out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* Formats cp and signs it with the log key (kix_note_sign), appending the note. */
KIX_API int kix_checkpoint_sign(const struct kix_checkpoint *cp, const struct kix_signer *log_key,
                                struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* kix_note_open, then kix_checkpoint_parse of its text. When `origin` is
 * not NULL the checkpoint's origin must equal it (KIX_EVERIFY otherwise). */
KIX_API int kix_checkpoint_open(const char *note, size_t len, const struct kix_verifier *known,
                                size_t nknown, const char *origin, struct kix_note *note_out,
                                struct kix_checkpoint *cp_out, struct kix_err *err) KIX_MUST_CHECK;

/* ---- key files ---------------------------------------------------------- */

/* Writes the PRIVATE+KEY text and "\n" to a new file created with
 * O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600, then fsyncs it and its directory.
 * KIX_EEXIST when path exists (never overwrites); KIX_EIO. */
KIX_API int kix_keyfile_write(const char *path, const struct kix_signer *s,
                              struct kix_err *err) KIX_MUST_CHECK;

/* Reads a private key file. Refuses (KIX_EINVAL, "run chmod 600 <path>") a
 * file that group or others may access, a non-regular file, or one over 4 KiB;
 * KIX_ENOTFOUND when missing; KIX_EIO. Temporaries are wiped. */
KIX_API int kix_keyfile_read(const char *path, struct kix_signer **out,
                             struct kix_err *err) KIX_MUST_CHECK;

/* Writes the verifier key text and "\n" to a new file (mode 0644, O_EXCL),
 * fsynced. KIX_EEXIST; KIX_EIO. */
KIX_API int kix_pubfile_write(const char *path, const struct kix_verifier *v,
                              struct kix_err *err) KIX_MUST_CHECK;

/* Reads a verifier key file (one trailing "\n" allowed). KIX_ENOTFOUND,
 * KIX_EINVAL, KIX_EIO. */
KIX_API int kix_pubfile_read(const char *path, struct kix_verifier *out,
                             struct kix_err *err) KIX_MUST_CHECK;

#endif
