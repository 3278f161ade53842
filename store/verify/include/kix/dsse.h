/* kix/dsse.h — DSSE v1 envelopes (Ed25519) and in-toto Statement v1.
 *
 * A DSSE envelope is {"payload": base64, "payloadType": string,
 * "signatures": [{"keyid": string, "sig": base64}, ...]}; each signature is
 * over PAE(payloadType, payload) = "DSSEv1" SP LEN(type) SP type SP
 * LEN(body) SP body, LEN the ASCII decimal byte length. kix signs with
 * Ed25519 only; envelopes carrying other algorithms parse but never verify.
 *
 * Canonical form: an envelope's log leaf is its RFC 8785 (JCS) bytes, keys
 * in the order payload, payloadType, signatures and keyid, sig, base64 in the
 * standard alphabet with padding. kix_dsse_sign and kix_dsse_encode write
 * exactly that, so the daemon can require leaf == kix_dsse_encode(parse(leaf)).
 * A signature's keyid is kept as the input had it: absent, empty or set.
 *
 * Parsing is strict and bounded: at most KIX_DSSE_MAX_ENVELOPE bytes, no
 * duplicate or unknown fields, payloadType <= KIX_DSSE_MAX_TYPE bytes,
 * 1..KIX_DSSE_MAX_SIGS signatures, keyid <= KIX_DSSE_MAX_KEYID bytes, sig
 * 1..KIX_DSSE_MAX_SIG bytes once decoded. Base64 may use the standard or the
 * URL-safe alphabet but must be padded (as go-securesystemslib requires),
 * without whitespace and with zero trailing bits.
 *
 * Errors: KIX_EINVAL malformed input (message names the field), KIX_ELIMIT a
 * bound exceeded (message names the field and the limit), KIX_EVERIFY no
 * signature verifies, KIX_ENOMEM. Verification needs no database.
 *
 * Memory: structs are caller-allocated; their owned parts (the payload, the
 * statement's predicate and names) are freed by the matching _release, which
 * is safe after a failed parse and twice in a row. Output buffers are
 * appended to; on error they keep their previous content.
 */
#ifndef KIX_DSSE_H
#define KIX_DSSE_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_DSSE_MAX_ENVELOPE  65535u /* a log leaf's limit */
#define KIX_DSSE_MAX_TYPE      256u
#define KIX_DSSE_MAX_SIGS      8u
#define KIX_DSSE_MAX_KEYID     128u
#define KIX_DSSE_MAX_SIG       512u
#define KIX_DSSE_KEYID_HEX_LEN 64u
#define KIX_DSSE_INTOTO_TYPE   "application/vnd.in-toto+json"

struct kix_dsse_sig {
    char keyid[KIX_DSSE_MAX_KEYID + 1]; /* NUL-terminated; "" when absent or empty */
    size_t keyid_len;
    int has_keyid; /* 1 when the envelope carried a "keyid" member (even "") */
    uint8_t sig[KIX_DSSE_MAX_SIG];
    size_t sig_len;
};

struct kix_dsse_envelope {
    char payload_type[KIX_DSSE_MAX_TYPE + 1]; /* NUL-terminated UTF-8 */
    size_t payload_type_len;
    struct kix_buf payload; /* decoded payload bytes (owned) */
    size_t n_sigs;
    /* Set by a parse: 1 when the canonical reader took the bytes, which are
     * then exactly kix_dsse_encode of what was read (a keyid changed
     * afterwards makes them differ), 0 otherwise. */
    int read_canonical;
    struct kix_dsse_sig sigs[KIX_DSSE_MAX_SIGS];
};

KIX_API void kix_dsse_envelope_init(struct kix_dsse_envelope *env);
/* Frees the payload and empties env; env may be reused afterwards. */
KIX_API void kix_dsse_envelope_release(struct kix_dsse_envelope *env);

/* Appends PAE(type, body) to out. KIX_ENOMEM only. */
KIX_API int kix_dsse_pae(const char *type, size_t type_len, const uint8_t *body, size_t body_len,
                         struct kix_buf *out) KIX_MUST_CHECK;

/* The kix key id of an Ed25519 public key: 64 lowercase hex of SHA-256(pub),
 * written with a NUL into out. */
KIX_API void kix_dsse_keyid(const uint8_t pub[32], char out[KIX_DSSE_KEYID_HEX_LEN + 1]);

/* Parses `len` bytes of envelope JSON into env (initialised by the call;
 * release any previous content first), through _canonical below, else
 * _json; env->read_canonical says which. On error env is left empty.
 * KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_dsse_parse(const uint8_t *json, size_t len, struct kix_dsse_envelope *env,
                           struct kix_err *err) KIX_MUST_CHECK;

/* kix_dsse_parse's two ways: _canonical reads the envelope's canonical
 * layout (what kix_dsse_encode writes: members in JCS order, strings
 * without escapes, base64 in the standard alphabet) off the bytes, building
 * no tree, and returns KIX_EINVAL (env left empty, no message) for anything
 * else, which _json, the general parser, then decides. Where _canonical
 * accepts, _json accepts with the same env and the bytes are exactly
 * kix_dsse_encode(env)'s (fuzz_dsse holds them to both). */
KIX_API int kix_dsse_parse_canonical(const uint8_t *json, size_t len,
                                     struct kix_dsse_envelope *env) KIX_MUST_CHECK;
KIX_API int kix_dsse_parse_json(const uint8_t *json, size_t len, struct kix_dsse_envelope *env,
                                struct kix_err *err) KIX_MUST_CHECK;

/* Signs PAE(payload_type, payload) with the libsodium Ed25519 secret key
 * sk (seed || public key) and appends the canonical envelope JSON, one
 * signature with keyid `keyid` (NULL: no keyid member). payload_type must
 * be UTF-8 of at most KIX_DSSE_MAX_TYPE bytes, keyid at most
 * KIX_DSSE_MAX_KEYID bytes; the envelope must fit KIX_DSSE_MAX_ENVELOPE.
 * KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_dsse_sign(const char *payload_type, const uint8_t *payload, size_t len,
                          const uint8_t sk[64], const char *keyid, struct kix_buf *out,
                          struct kix_err *err) KIX_MUST_CHECK;

/* KIX_OK when at least one signature verifies over PAE with Ed25519 key
 * pub. With keyid non-NULL only signatures whose keyid is empty/absent or
 * equal to it are tried (keyid is an unauthenticated hint). Otherwise
 * KIX_EVERIFY with a message (or KIX_ENOMEM). */
KIX_API int kix_dsse_verify(const struct kix_dsse_envelope *env, const uint8_t pub[32],
                            const char *keyid, struct kix_err *err) KIX_MUST_CHECK;

/* Appends the canonical JSON of env (standard base64, whatever alphabet
 * the input used). Checks env's fields against the same bounds as parse:
 * KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_dsse_encode(const struct kix_dsse_envelope *env, struct kix_buf *out,
                            struct kix_err *err) KIX_MUST_CHECK;

/* ---- in-toto Statement v1 ------------------------------------------------
 *
 * {"_type":"https://in-toto.io/Statement/v1","predicate":{...},
 *  "predicateType":"...","subject":[{"digest":{"sha256":"<hex>"},"name":"..."}]}
 *
 * kix statements are strict: exactly the four members above, 1..16
 * subjects with exactly name (1..1024 bytes) and digest, a digest map with
 * exactly sha256 (64 lowercase hex), predicateType 1..256 bytes, predicate
 * an object, no duplicate keys, at most KIX_STATEMENT_MAX_BYTES. Fields a
 * policy would not look at are refused rather than signed into the log.
 */
#define KIX_STATEMENT_TYPE               "https://in-toto.io/Statement/v1"
#define KIX_STATEMENT_MAX_BYTES          65535u
#define KIX_STATEMENT_MAX_SUBJECTS       16u
#define KIX_STATEMENT_MAX_NAME           1024u
#define KIX_STATEMENT_MAX_PREDICATE_TYPE 256u

struct kix_statement_subject {
    const char *name; /* NUL-terminated, owned by the statement */
    size_t name_len;
    uint8_t sha256[32];
};

struct kix_statement {
    size_t n_subjects;
    struct kix_statement_subject subjects[KIX_STATEMENT_MAX_SUBJECTS];
    char predicate_type[KIX_STATEMENT_MAX_PREDICATE_TYPE + 1];
    size_t predicate_type_len;
    /* The predicate object as compact JSON with keys sorted bytewise
     * (jansson). For reading fields, not for hashing: it is not JCS and
     * reals print with 17 significant digits. The signed bytes are the
     * envelope payload. */
    struct kix_buf predicate;
    struct kix_buf names; /* storage behind subjects[i].name */
};

KIX_API void kix_statement_init(struct kix_statement *st);
KIX_API void kix_statement_release(struct kix_statement *st);

/* Appends the canonical statement with one subject (name, SHA-256 digest).
 * predicate_json must already be canonical (kix_canon) JSON of an object;
 * it is checked to be one JSON object without surrounding whitespace or
 * duplicate keys and spliced verbatim. KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_statement_build(const char *subject_name, const uint8_t digest[32],
                                const char *predicate_type, const char *predicate_json,
                                size_t predicate_len, struct kix_buf *out,
                                struct kix_err *err) KIX_MUST_CHECK;

/* Parses a statement (e.g. a verified envelope's payload) into st
 * (initialised by the call; release previous content first; left empty on
 * error). KIX_EINVAL, KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_statement_parse(const uint8_t *json, size_t len, struct kix_statement *st,
                                struct kix_err *err) KIX_MUST_CHECK;

/* How many statements this process read with jansson's parser, not
 * kix_canon_parse_canonical's one pass (a canonical statement takes the
 * pass): the tests hold the append and replay paths to the pass. */
KIX_API uint64_t kix_statement_jansson_parses(void);

#endif
