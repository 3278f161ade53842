/* C2SP signed notes (golang.org/x/mod/sumdb/note) and tlog cosignatures. */
#include "kix/note.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "note_impl.h"

#define COSIG_BLOB_LEN (4 + 8 + KIX_NOTE_SIG_LEN)
#define NOTE_BLOB_LEN  (4 + KIX_NOTE_SIG_LEN)

/* Checks UTF-8 and control characters; returns 0 or sets err. */
static int check_chars(const uint8_t *s, size_t len, const char *what, struct kix_err *err)
{
    size_t i = 0, n;
    uint32_t c;

    while (i < len) {
        n = kix__utf8_next(s + i, len - i, &c);
        if (n == 0)
            return kix_err_set(err, KIX_EINVAL, "%s: invalid UTF-8 at byte %zu", what, i);
        if (c < 0x20 && c != '\n')
            return kix_err_set(err, KIX_EINVAL, "%s: control character 0x%02x at byte %zu", what,
                               (unsigned)c, i);
        i += n;
    }
    return KIX_OK;
}

int kix_note_text_check(const char *text, size_t len, struct kix_err *err)
{
    int rc;

    if (len == 0)
        return kix_err_set(err, KIX_EINVAL,
                           "malformed note text: empty (it must end in a newline)");
    if (len > KIX_NOTE_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT, "note text of %zu bytes is over the %u-byte limit", len,
                           KIX_NOTE_MAX_BYTES);
    rc = check_chars((const uint8_t *)text, len, "malformed note text", err);
    if (rc)
        return rc;
    if (text[len - 1] != '\n')
        return kix_err_set(err, KIX_EINVAL, "malformed note text: it must end in a newline");
    return KIX_OK;
}

/* Appends "— <name> <base64(blob)>\n". */
static int add_sig_line(struct kix_buf *out, const char *name, const uint8_t *blob, size_t n)
{
    int rc = kix_buf_adds(out, KIX__SIG_PREFIX);
    if (!rc)
        rc = kix_buf_adds(out, name);
    if (!rc)
        rc = kix_buf_addc(out, ' ');
    if (!rc)
        rc = kix_base64_encode(blob, n, out);
    if (!rc)
        rc = kix_buf_addc(out, '\n');
    return rc;
}

static void truncate_to(struct kix_buf *b, size_t len)
{
    b->len = len;
    if (b->ptr)
        b->ptr[len] = '\0';
}

static int check_note_signer(const struct kix_signer *s, struct kix_err *err)
{
    if (kix_signer_alg(s) != KIX_NOTE_ALG_ED25519)
        return kix_err_set(err, KIX_EINVAL,
                           "key %s is a witness cosignature key (0x%02x): it cannot sign notes, "
                           "use it with kix_cosign",
                           kix_signer_name(s), kix_signer_alg(s));
    return KIX_OK;
}

/* Signs text (which may live inside out) and appends the signature line. */
static int add_note_sig(struct kix_buf *out, const struct kix_signer *s, const char *text,
                        size_t len, struct kix_err *err)
{
    uint8_t blob[NOTE_BLOB_LEN];
    int rc;

    kix_u32be_put(blob, kix_signer_key_hash(s));
    rc = kix_signer_sign(s, text, len, blob + 4);
    if (!rc)
        rc = add_sig_line(out, kix_signer_name(s), blob, sizeof(blob));
    if (rc)
        return kix_err_set(err, rc, "out of memory signing a note");
    return KIX_OK;
}

int kix__note_sign_in_place(struct kix_buf *out, size_t text_start, const struct kix_signer *s,
                            struct kix_err *err)
{
    size_t len = out->len - text_start;
    int rc;

    rc = kix_note_text_check((const char *)out->ptr + text_start, len, err);
    if (!rc)
        rc = check_note_signer(s, err);
    if (!rc && kix_buf_addc(out, '\n'))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory signing a note");
    /* out->ptr cannot move while signing: the signature is computed first. */
    if (!rc)
        rc = add_note_sig(out, s, (const char *)out->ptr + text_start, len, err);
    return rc;
}

int kix_note_sign(const char *text, size_t len, struct kix_signer *const *signers, size_t n,
                  struct kix_buf *out, struct kix_err *err)
{
    size_t start = out->len;
    int rc;

    rc = kix_note_text_check(text, len, err);
    if (rc)
        return rc;
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "signing a note needs at least one key");
    for (size_t i = 0; i < n; i++)
        if ((rc = check_note_signer(signers[i], err)))
            return rc;
    if (kix_buf_add(out, text, len) || kix_buf_addc(out, '\n')) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory signing a note");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = add_note_sig(out, signers[i], text, len, err)))
            goto out;
    return KIX_OK;
out:
    truncate_to(out, start);
    return rc;
}

int kix_note_add_signatures(const struct kix_note *note, struct kix_signer *const *signers,
                            size_t n, struct kix_buf *out, struct kix_err *err)
{
    const char *text = (const char *)note->text.ptr;
    size_t len = note->text.len, start = out->len;
    int rc;

    rc = kix_note_text_check(text, len, err);
    if (rc)
        return rc;
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "signing a note needs at least one key");
    for (size_t i = 0; i < n; i++)
        if ((rc = check_note_signer(signers[i], err)))
            return rc;
    if (kix_buf_add(out, text, len) || kix_buf_addc(out, '\n'))
        goto nomem;
    for (size_t j = 0; j < note->nsigs; j++) {
        const struct kix_note_sig *sig = &note->sigs[j];
        int replaced = 0;
        for (size_t i = 0; i < n && !replaced; i++) {
            const char *name = kix_signer_name(signers[i]);
            replaced = kix_signer_key_hash(signers[i]) == sig->key_hash &&
                       strlen(name) == sig->name.len &&
                       memcmp(name, sig->name.ptr, sig->name.len) == 0;
        }
        if (replaced)
            continue;
        if (kix_buf_add(out, sig->line.ptr, sig->line.len) || kix_buf_addc(out, '\n'))
            goto nomem;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = add_note_sig(out, signers[i], text, len, err)))
            goto out;
    return KIX_OK;
nomem:
    rc = kix_err_set(err, KIX_ENOMEM, "out of memory signing a note");
out:
    truncate_to(out, start);
    return rc;
}

/* "<header>\ntime <t>\n" || text: "cosignature/v1" for a cosignature,
 * KIX_MIRROR_HELD_HEADER for a mirror's held statement. */
static int signed_message(struct kix_buf *msg, const char *header, uint64_t time, const char *text,
                          size_t len)
{
    int rc;

    kix_buf_reset(msg);
    rc = kix_buf_addf(msg, "%s\ntime %" PRIu64 "\n", header, time);
    if (!rc)
        rc = kix_buf_add(msg, text, len);
    return rc;
}

/* "cosignature/v1\ntime <t>\n" || text */
static int cosig_message(struct kix_buf *msg, uint64_t time, const char *text, size_t len)
{
    return signed_message(msg, "cosignature/v1", time, text, len);
}

/* The timestamped line of `witness` over header || time || text (a
 * cosignature, or a mirror's held statement). */
static int timestamped_line(const struct kix_signer *witness, const char *header, const char *text,
                            size_t len, uint64_t time, struct kix_buf *sig_line_out,
                            struct kix_err *err)
{
    struct kix_buf msg = KIX_BUF_INIT;
    uint8_t blob[COSIG_BLOB_LEN];
    int rc;

    if (kix_signer_alg(witness) != KIX_NOTE_ALG_COSIGN)
        return kix_err_set(err, KIX_EINVAL,
                           "key %s is not a witness cosignature key (algorithm 0x%02x, want "
                           "0x04): generate one with algorithm 0x04",
                           kix_signer_name(witness), kix_signer_alg(witness));
    if (time > KIX_COSIGN_TIME_MAX)
        return kix_err_set(err, KIX_EINVAL, "signature time %" PRIu64 " is over 2^63-1", time);
    if (signed_message(&msg, header, time, text, len)) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory signing a statement");
        goto out;
    }
    kix_u32be_put(blob, kix_signer_key_hash(witness));
    for (int i = 0; i < 8; i++)
        blob[4 + i] = (uint8_t)(time >> (56 - 8 * i));
    rc = kix_signer_sign(witness, msg.ptr, msg.len, blob + 12);
    if (!rc)
        rc = add_sig_line(sig_line_out, kix_signer_name(witness), blob, sizeof(blob));
    if (rc)
        rc = kix_err_set(err, rc, "out of memory signing a statement");
out:
    kix_buf_release(&msg);
    return rc;
}

int kix_cosign(const struct kix_signer *witness, const char *checkpoint_text, size_t len,
               uint64_t time, struct kix_buf *sig_line_out, struct kix_err *err)
{
    struct kix_checkpoint cp;
    int rc = kix_checkpoint_parse(checkpoint_text, len, &cp, err);

    if (rc) {
        kix_err_wrap(err, "cosigning");
        return rc;
    }
    return kix_cosign_text(witness, checkpoint_text, len, time, sig_line_out, err);
}

int kix_cosign_text(const struct kix_signer *witness, const char *text, size_t len, uint64_t time,
                    struct kix_buf *sig_line_out, struct kix_err *err)
{
    return timestamped_line(witness, "cosignature/v1", text, len, time, sig_line_out, err);
}

int kix_mirror_held_sign(const struct kix_signer *mirror, const char *checkpoint_text, size_t len,
                         uint64_t time, struct kix_buf *line_out, struct kix_err *err)
{
    struct kix_checkpoint cp;
    int rc = kix_checkpoint_parse(checkpoint_text, len, &cp, err);

    if (rc) {
        kix_err_wrap(err, "signing a held statement");
        return rc;
    }
    return timestamped_line(mirror, KIX_MIRROR_HELD_HEADER, checkpoint_text, len, time, line_out,
                            err);
}

static int find_verifier(const struct kix_verifier *known, size_t nknown,
                         const struct kix_note_sig *sig);
static int parse_note(const uint8_t *p, size_t len, struct kix_note *out, struct kix_err *err);

int kix_mirror_held_verify(const char *line, size_t line_len, const char *checkpoint_text,
                           size_t len, const struct kix_verifier *known, size_t nknown,
                           size_t *which, uint64_t *time, struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT, msg = KIX_BUF_INIT;
    struct kix_note *parsed = malloc(sizeof(*parsed));
    uint8_t blob[COSIG_BLOB_LEN];
    size_t n = 0;
    int idx, rc;

    if (!parsed)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (sodium_init() < 0) {
        rc = kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
        goto out;
    }
    if (line_len && line[line_len - 1] == '\n')
        line_len--;
    if (line_len == 0 || memchr(line, '\n', line_len)) {
        rc = kix_err_set(err, KIX_EINVAL, "a held statement must be one signature line");
        goto out;
    }
    /* parsed as the one signature line of a note over the text, so that it
     * is held to the same line grammar as every other signature */
    if (kix_buf_add(&note, checkpoint_text, len) || kix_buf_addc(&note, '\n') ||
        kix_buf_add(&note, line, line_len) || kix_buf_addc(&note, '\n')) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    parsed->nsigs = 0;
    parsed->nverified = 0;
    rc = parse_note(note.ptr, note.len, parsed, err);
    if (rc)
        goto out;
    if (parsed->nsigs != 1 || parsed->text.len != len) {
        rc = kix_err_set(err, KIX_EINVAL, "a held statement must be one signature line");
        goto out;
    }
    idx = find_verifier(known, nknown, &parsed->sigs[0]);
    if (idx < 0 || known[idx].alg != KIX_NOTE_ALG_COSIGN) {
        rc = kix_err_set(err, KIX_EVERIFY, "the held statement's key %.*s+%08x is not a known key",
                         (int)parsed->sigs[0].name.len, (const char *)parsed->sigs[0].name.ptr,
                         parsed->sigs[0].key_hash);
        goto out;
    }
    if (kix_base64_decode_std((const char *)parsed->sigs[0].b64.ptr, parsed->sigs[0].b64.len, blob,
                              sizeof(blob), &n) != 0 ||
        n != COSIG_BLOB_LEN || kix_u64be_get(blob + 4) > KIX_COSIGN_TIME_MAX) {
        rc = kix_err_set(err, KIX_EVERIFY, "the held statement of %s+%08x is malformed",
                         known[idx].name, known[idx].key_hash);
        goto out;
    }
    if (signed_message(&msg, KIX_MIRROR_HELD_HEADER, kix_u64be_get(blob + 4), checkpoint_text,
                       len)) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    if (crypto_sign_verify_detached(blob + 12, msg.ptr, msg.len, known[idx].pub) != 0) {
        rc = kix_err_set(err, KIX_EVERIFY,
                         "invalid held statement for key %s+%08x (a witness cosignature is not "
                         "one)",
                         known[idx].name, known[idx].key_hash);
        goto out;
    }
    if (which)
        *which = (size_t)idx;
    if (time)
        *time = kix_u64be_get(blob + 4);
    rc = KIX_OK;
out:
    free(parsed);
    kix_buf_release(&note);
    kix_buf_release(&msg);
    return rc;
}

/* Finds the known verifier for (name, hash): index, -1 when none, -2 when ambiguous. */
static int find_verifier(const struct kix_verifier *known, size_t nknown,
                         const struct kix_note_sig *sig)
{
    int found = -1;

    for (size_t i = 0; i < nknown; i++) {
        if (known[i].key_hash != sig->key_hash || strlen(known[i].name) != sig->name.len ||
            memcmp(known[i].name, sig->name.ptr, sig->name.len) != 0)
            continue;
        if (found >= 0)
            return -2;
        found = (int)i;
    }
    return found;
}

/* Verifies one signature line against its known key; 1 when valid. */
static int verify_sig(const struct kix_verifier *v, struct kix_note_sig *sig,
                      const struct kix_bytes *text, struct kix_buf *scratch, int *nomem)
{
    uint8_t blob[COSIG_BLOB_LEN];
    size_t n = 0;

    if (kix_base64_decode_std((const char *)sig->b64.ptr, sig->b64.len, blob, sizeof(blob), &n) !=
        0)
        return 0;
    if (v->alg == KIX_NOTE_ALG_ED25519) {
        if (n != NOTE_BLOB_LEN)
            return 0;
        return crypto_sign_verify_detached(blob + 4, text->ptr, text->len, v->pub) == 0;
    }
    if (v->alg == KIX_NOTE_ALG_COSIGN) {
        uint64_t t;
        if (n != COSIG_BLOB_LEN)
            return 0;
        t = kix_u64be_get(blob + 4);
        if (t > KIX_COSIGN_TIME_MAX)
            return 0;
        if (cosig_message(scratch, t, (const char *)text->ptr, text->len)) {
            *nomem = 1;
            return 0;
        }
        if (crypto_sign_verify_detached(blob + 12, scratch->ptr, scratch->len, v->pub) != 0)
            return 0;
        sig->timestamp = t;
        return 1;
    }
    return 0;
}

/* Splits and parses the note; fills text and sigs. */
static int parse_note(const uint8_t *p, size_t len, struct kix_note *out, struct kix_err *err)
{
    size_t split, pos, lineno = 0;
    int rc;

    if (len > KIX_NOTE_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT, "note of %zu bytes is over the %u-byte limit", len,
                           KIX_NOTE_MAX_BYTES);
    rc = check_chars(p, len, "malformed note", err);
    if (rc)
        return rc;
    /* The text runs to the last blank line. */
    for (split = len; split >= 2; split--)
        if (p[split - 2] == '\n' && p[split - 1] == '\n')
            break;
    if (split < 2)
        return kix_err_set(err, KIX_EINVAL,
                           "malformed note: no blank line between the text and the signatures");
    out->text.ptr = p;
    out->text.len = split - 1;
    if (split == len)
        return kix_err_set(err, KIX_EINVAL, "malformed note: no signature lines");
    if (p[len - 1] != '\n')
        return kix_err_set(err, KIX_EINVAL,
                           "malformed note: the last signature line does not end in a newline");

    for (pos = split; pos < len; lineno++) {
        const uint8_t *line = p + pos, *nl, *sp, *end;
        struct kix_note_sig sig;
        uint8_t head[4];
        size_t blob_len = 0, j;

        nl = memchr(line, '\n', len - pos);
        end = nl;
        pos = (size_t)(nl - p) + 1;
        if (lineno >= KIX_NOTE_MAX_SIGS)
            return kix_err_set(err, KIX_ELIMIT, "note has more than %d signature lines",
                               KIX_NOTE_MAX_SIGS);
        if ((size_t)(end - line) < KIX__SIG_PREFIXN ||
            memcmp(line, KIX__SIG_PREFIX, KIX__SIG_PREFIXN) != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed note: signature line %zu does not start with an em "
                               "dash and a space",
                               lineno + 1);
        sig.line.ptr = line;
        sig.line.len = (size_t)(end - line);
        sig.name.ptr = line + KIX__SIG_PREFIXN;
        sp = memchr(sig.name.ptr, ' ', (size_t)(end - sig.name.ptr));
        if (!sp)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed note: signature line %zu has no signature", lineno + 1);
        sig.name.len = (size_t)(sp - sig.name.ptr);
        sig.b64.ptr = sp + 1;
        sig.b64.len = (size_t)(end - sig.b64.ptr);
        if (!kix__name_chars_valid((const char *)sig.name.ptr, sig.name.len))
            return kix_err_set(err, KIX_EINVAL,
                               "malformed note: signature line %zu has an invalid key name",
                               lineno + 1);
        if (sig.b64.len == 0 || kix_base64_decode_std((const char *)sig.b64.ptr, sig.b64.len, head,
                                                      sizeof(head), &blob_len) != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed note: signature line %zu is not valid base64",
                               lineno + 1);
        if (blob_len < 5)
            return kix_err_set(err, KIX_EINVAL, "malformed note: signature line %zu is too short",
                               lineno + 1);
        sig.key_hash = kix_u32be_get(head);
        sig.verifier = -1;
        sig.timestamp = 0;
        for (j = 0; j < out->nsigs; j++)
            if (out->sigs[j].line.len == sig.line.len &&
                memcmp(out->sigs[j].line.ptr, sig.line.ptr, sig.line.len) == 0)
                break;
        if (j == out->nsigs) /* identical lines are collapsed */
            out->sigs[out->nsigs++] = sig;
    }
    return KIX_OK;
}

/* "note has no verifiable signatures", naming both sides of the mismatch:
 * the keys the caller knows and the keys the note's lines name, so a
 * wrong key (a --log-key of another log) shows as such. */
static int no_known_signer(const struct kix_verifier *known, size_t nknown,
                           const struct kix_note *note, struct kix_err *err)
{
    char want[200] = "", got[240] = "";
    size_t w = 0, g = 0;

    for (size_t i = 0; i < nknown && i < 3 && w < sizeof(want); i++)
        w += (size_t)snprintf(want + w, sizeof(want) - w, "%s%s+%08x", i ? ", " : "", known[i].name,
                              known[i].key_hash);
    for (size_t i = 0; i < note->nsigs && i < 3 && g < sizeof(got); i++)
        g += (size_t)snprintf(got + g, sizeof(got) - g, "%s%.*s+%08x", i ? ", " : "",
                              (int)note->sigs[i].name.len, (const char *)note->sigs[i].name.ptr,
                              note->sigs[i].key_hash);
    if (!nknown)
        return kix_err_set(err, KIX_EVERIFY, "note has no verifiable signatures (no key given)");
    return kix_err_set(err, KIX_EVERIFY,
                       "note has no verifiable signatures: expected a signature by %s%s; the "
                       "note is signed by %s%s",
                       want, nknown > 3 ? ", ..." : "", note->nsigs ? got : "no key",
                       note->nsigs > 3 ? ", ..." : "");
}

int kix_note_open(const char *note, size_t len, const struct kix_verifier *known, size_t nknown,
                  struct kix_note *out, struct kix_err *err)
{
    struct kix_buf scratch = KIX_BUF_INIT;
    int rc, nomem = 0;

    out->text.ptr = NULL;
    out->text.len = 0;
    out->nsigs = 0;
    out->nverified = 0;
    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
    rc = parse_note((const uint8_t *)note, len, out, err);
    if (rc)
        goto out;
    for (size_t i = 0; i < out->nsigs; i++) {
        struct kix_note_sig *sig = &out->sigs[i];
        int idx = find_verifier(known, nknown, sig);
        size_t j;

        if (idx == -2) {
            rc = kix_err_set(err, KIX_EINVAL,
                             "ambiguous key %.*s+%08x: two known keys share this name and hash",
                             (int)sig->name.len, (const char *)sig->name.ptr, sig->key_hash);
            goto out;
        }
        if (idx < 0)
            continue;
        if (!verify_sig(&known[idx], sig, &out->text, &scratch, &nomem)) {
            if (nomem)
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory verifying a note");
            else
                rc = kix_err_set(err, KIX_EVERIFY, "invalid signature for key %s+%08x",
                                 known[idx].name, known[idx].key_hash);
            goto out;
        }
        sig->verifier = idx;
        for (j = 0; j < out->nverified; j++)
            if (out->verified[j] == (size_t)idx)
                break;
        if (j == out->nverified)
            out->verified[out->nverified++] = (size_t)idx;
    }
    if (out->nverified == 0)
        rc = no_known_signer(known, nknown, out, err);
out:
    kix_buf_release(&scratch);
    if (rc) {
        /* Text and lines stay readable for diagnostics; nothing counts as verified. */
        for (size_t i = 0; i < out->nsigs; i++) {
            out->sigs[i].verifier = -1;
            out->sigs[i].timestamp = 0;
        }
        out->nverified = 0;
    }
    return rc;
}

int kix_note_verified_by(const struct kix_note *note, size_t index)
{
    for (size_t j = 0; j < note->nverified; j++)
        if (note->verified[j] == index)
            return 1;
    return 0;
}
