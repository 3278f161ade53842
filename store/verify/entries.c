/* Builders of signed kix entries: predicate → statement → DSSE envelope. */
#include "kix/entries.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kix/canon.h"
#include "kix/dsse.h"
#include "kix/entry.h"
#include "kix/sha256.h"

void kix_uuid7(char out[37])
{
    uint8_t b[16];
    struct timespec ts;
    uint64_t ms;

    clock_gettime(CLOCK_REALTIME, &ts);
    ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    randombytes_buf(b, sizeof(b));
    for (int i = 0; i < 6; i++)
        b[i] = (uint8_t)(ms >> (40 - 8 * i));
    b[6] = (uint8_t)(0x70 | (b[6] & 0x0f));
    b[8] = (uint8_t)(0x80 | (b[8] & 0x3f));
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

void kix_now_rfc3339(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* predicate (a jansson object, consumed) → canonical statement → envelope */
static int sign_statement(const struct kix_signer *key, const char *subject_name,
                          const uint8_t digest[32], const char *predicate_type, json_t *pred,
                          struct kix_buf *envelope, struct kix_err *err)
{
    struct kix_buf canon = KIX_BUF_INIT, stmt = KIX_BUF_INIT;
    char *text = NULL, keyid[65];
    int rc;

    if (!pred)
        return kix_err_set(err, KIX_ENOMEM, "building the predicate: out of memory");
    text = json_dumps(pred, JSON_COMPACT);
    json_decref(pred);
    if (!text)
        return kix_err_set(err, KIX_ENOMEM, "building the predicate: out of memory");
    rc = kix_canon((const uint8_t *)text, strlen(text), NULL, &canon, err);
    if (rc == KIX_OK)
        rc = kix_statement_build(subject_name, digest, predicate_type, (const char *)canon.ptr,
                                 canon.len, &stmt, err);
    kix_key_id(kix_signer_public_key(key), keyid);
    if (rc == KIX_OK)
        rc = kix_dsse_sign(KIX_DSSE_INTOTO_TYPE, stmt.ptr, stmt.len, kix_signer_secret_key(key),
                           keyid, envelope, err);
    free(text);
    kix_buf_release(&canon);
    kix_buf_release(&stmt);
    return rc;
}

static const char *now_if_null(const char *t, char buf[32])
{
    if (t)
        return t;
    kix_now_rfc3339(buf);
    return buf;
}

int kix_entry_publication(const struct kix_signer *key, const char *run_id,
                          const struct kix_digest *manifest, const char *published_at,
                          const char *source, const char *license, struct kix_buf *envelope,
                          struct kix_err *err)
{
    char now[32];
    json_t *pred =
        json_pack("{s:s, s:s}", "runId", run_id, "publishedAt", now_if_null(published_at, now));
    if (pred && source)
        json_object_set_new(pred, "source", json_string(source));
    if (pred && license)
        json_object_set_new(pred, "license", json_string(license));
    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_PUBLICATION, pred, envelope, err);
}

int kix_entry_attestation(const struct kix_signer *key, const char *run_id,
                          const struct kix_digest *manifest, const char *note,
                          const struct kix_digest *evidence, size_t nevidence,
                          struct kix_buf *envelope, struct kix_err *err)
{
    return kix_entry_attestation_at(key, run_id, manifest, note, evidence, nevidence, NULL,
                                    envelope, err);
}

static json_t *attestation_predicate(const char *run_id, const char *note,
                                     const struct kix_digest *evidence, size_t nevidence,
                                     const char *attested_at)
{
    char now[32];
    json_t *pred = json_pack("{s:s, s:s, s:s}", "runId", run_id, "note", note, "attestedAt",
                             now_if_null(attested_at, now));
    if (pred && nevidence) {
        json_t *list = json_array();
        for (size_t i = 0; i < nevidence; i++) {
            char text[KIX_DIGEST_TEXT_LEN + 1];
            kix_digest_format(&evidence[i], text);
            json_array_append_new(list, json_string(text));
        }
        json_object_set_new(pred, "evidence", list);
    }
    return pred;
}

int kix_entry_attestation_at(const struct kix_signer *key, const char *run_id,
                             const struct kix_digest *manifest, const char *note,
                             const struct kix_digest *evidence, size_t nevidence,
                             const char *attested_at, struct kix_buf *envelope, struct kix_err *err)
{
    json_t *pred = attestation_predicate(run_id, note, evidence, nevidence, attested_at);

    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_ATTESTATION, pred, envelope, err);
}

/* The statement hash (SHA-256 of the PAE) pred would be signed under. */
static int statement_hash(const char *subject_name, const uint8_t digest[32], const char *type,
                          const json_t *pred, uint8_t out[32], struct kix_err *err)
{
    struct kix_buf canon = KIX_BUF_INIT, stmt = KIX_BUF_INIT, pae = KIX_BUF_INIT;
    char *text = json_dumps(pred, JSON_COMPACT);
    int rc = text ? KIX_OK : kix_err_set(err, KIX_ENOMEM, "out of memory");

    if (rc == KIX_OK)
        rc = kix_canon((const uint8_t *)text, strlen(text), NULL, &canon, err);
    if (rc == KIX_OK)
        rc = kix_statement_build(subject_name, digest, type, (const char *)canon.ptr, canon.len,
                                 &stmt, err);
    if (rc == KIX_OK)
        rc = kix_dsse_pae(KIX_DSSE_INTOTO_TYPE, strlen(KIX_DSSE_INTOTO_TYPE), stmt.ptr, stmt.len,
                          &pae);
    if (rc == KIX_OK)
        kix_sha256(pae.ptr, pae.len, out);
    free(text);
    kix_buf_release(&canon);
    kix_buf_release(&stmt);
    kix_buf_release(&pae);
    return rc;
}

int kix_entry_open_note(const struct kix_signer *key, const char *log, const char *run_id,
                        const struct kix_digest *manifest, const char *note,
                        const struct kix_digest *evidence, size_t nevidence,
                        const char *attested_at, unsigned work_bits, struct kix_buf *envelope,
                        struct kix_err *err)
{
    char b64[64], nonce[24];
    uint8_t h[32];
    json_t *pred = attestation_predicate(run_id, note, evidence, nevidence, attested_at);
    int rc = KIX_OK;

    if (work_bits > KIX_NOTE_WORK_MAX) {
        json_decref(pred);
        return kix_err_set(err, KIX_EINVAL, "at most %u bits of work", KIX_NOTE_WORK_MAX);
    }
    sodium_bin2base64(b64, sizeof(b64), kix_signer_public_key(key), 32,
                      sodium_base64_VARIANT_ORIGINAL);
    if (pred) {
        json_object_set_new(pred, "signerKey", json_string(b64));
        json_object_set_new(pred, "log", json_string(log));
    }
    /* hashcash: a counter in the signed statement until its hash has the
     * leading zero bits the log's policy asks */
    for (uint64_t i = 0; pred && rc == KIX_OK && work_bits; i++) {
        snprintf(nonce, sizeof(nonce), "%llx", (unsigned long long)i);
        json_object_set_new(pred, "work", json_string(nonce));
        rc = statement_hash(run_id, manifest->b, KIX_PREDICATE_ATTESTATION, pred, h, err);
        if (rc == KIX_OK && kix_work_bits(h) >= work_bits)
            break;
    }
    if (rc) {
        json_decref(pred);
        return rc;
    }
    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_ATTESTATION, pred, envelope, err);
}

int kix_entry_policy(const struct kix_signer *admin, const uint8_t log_key_id[32], int open_notes,
                     unsigned note_work, const char *set_at, struct kix_buf *envelope,
                     struct kix_err *err)
{
    char now[32];
    json_t *pred =
        json_pack("{s:b, s:s}", "openNotes", open_notes != 0, "setAt", now_if_null(set_at, now));

    if (pred && note_work)
        json_object_set_new(pred, "noteWork", json_integer(note_work));
    return sign_statement(admin, "policy", log_key_id, KIX_PREDICATE_POLICY, pred, envelope, err);
}

int kix_entry_rerun(const struct kix_signer *key, const char *run_id,
                    const struct kix_digest *manifest, const char *outcome,
                    const struct kix_digest *rerun_manifest, const char *observed_at,
                    struct kix_buf *envelope, struct kix_err *err)
{
    char now[32], text[KIX_DIGEST_TEXT_LEN + 1];
    kix_digest_format(rerun_manifest, text);
    json_t *pred = json_pack("{s:s, s:s, s:s, s:s}", "runId", run_id, "outcome", outcome,
                             "rerunDigest", text, "observedAt", now_if_null(observed_at, now));
    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_RERUN, pred, envelope, err);
}

int kix_entry_supersession(const struct kix_signer *key, const char *old_run_id,
                           const struct kix_digest *old_manifest, const char *new_run_id,
                           const char *reason, struct kix_buf *envelope, struct kix_err *err)
{
    return kix_entry_supersession_at(key, old_run_id, old_manifest, new_run_id, reason, NULL,
                                     envelope, err);
}

int kix_entry_supersession_at(const struct kix_signer *key, const char *old_run_id,
                              const struct kix_digest *old_manifest, const char *new_run_id,
                              const char *reason, const char *superseded_at,
                              struct kix_buf *envelope, struct kix_err *err)
{
    char now[32];
    json_t *pred = json_pack("{s:s, s:s, s:s}", "runId", old_run_id, "newRunId", new_run_id,
                             "supersededAt", now_if_null(superseded_at, now));
    if (pred && reason)
        json_object_set_new(pred, "reason", json_string(reason));
    return sign_statement(key, old_run_id, old_manifest->b, KIX_PREDICATE_SUPERSESSION, pred,
                          envelope, err);
}

int kix_entry_withdrawal(const struct kix_signer *key, const char *run_id,
                         const struct kix_digest *manifest, int reason, const char *note,
                         const struct kix_digest *evidence, const char *withdrawn_at,
                         struct kix_buf *envelope, struct kix_err *err)
{
    char now[32], text[KIX_DIGEST_TEXT_LEN + 1];
    const char *word = kix_withdraw_reason_name(reason);
    json_t *pred;

    if (!*word)
        return kix_err_set(err, KIX_EINVAL,
                           "a withdrawal's reason is one of " KIX_WITHDRAW_REASONS);
    pred = json_pack("{s:s, s:s, s:s}", "runId", run_id, "reason", word, "withdrawnAt",
                     now_if_null(withdrawn_at, now));
    if (pred && note)
        json_object_set_new(pred, "note", json_string(note));
    if (pred && evidence) {
        kix_digest_format(evidence, text);
        json_object_set_new(pred, "evidence", json_string(text));
    }
    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_WITHDRAWAL, pred, envelope, err);
}

int kix_entry_reinstatement(const struct kix_signer *key, const char *run_id,
                            const struct kix_digest *manifest, const char *note,
                            const char *reinstated_at, struct kix_buf *envelope,
                            struct kix_err *err)
{
    char now[32];
    json_t *pred =
        json_pack("{s:s, s:s}", "runId", run_id, "reinstatedAt", now_if_null(reinstated_at, now));
    if (pred && note)
        json_object_set_new(pred, "note", json_string(note));
    return sign_statement(key, run_id, manifest->b, KIX_PREDICATE_REINSTATE, pred, envelope, err);
}

int kix_entry_key(const struct kix_signer *admin, int revoke, const uint8_t pub[32], unsigned roles,
                  struct kix_buf *envelope, struct kix_err *err)
{
    char b64[64], id_hex[65];
    uint8_t id[32];
    json_t *pred, *list;

    kix_sha256(pub, 32, id);
    kix_hex_encode(id, 32, id_hex);
    sodium_bin2base64(b64, sizeof(b64), pub, 32, sodium_base64_VARIANT_ORIGINAL);
    pred = json_pack("{s:s, s:s}", "action", revoke ? "revoke" : "add", "publicKey", b64);
    if (pred && !revoke) {
        static const char *names[] = {"admin", "publish", "attest", "rerun", "curate"};
        list = json_array();
        for (int i = 0; i < 5; i++)
            if (roles & (1u << i))
                json_array_append_new(list, json_string(names[i]));
        json_object_set_new(pred, "roles", list);
    }
    return sign_statement(admin, id_hex, id, KIX_PREDICATE_KEY, pred, envelope, err);
}
