/* DSSE v1 envelopes: PAE, strict parsing, Ed25519 signing and verification,
 * canonical (JCS) encoding of the envelope's fixed shape. */
#include "kix/dsse.h"

#include <jansson.h>
#include <sodium.h>
#include <string.h>

#include "kix/canon.h"
#include "kix/encoding.h"
#include "kix/sha256.h"

void kix_dsse_envelope_init(struct kix_dsse_envelope *env)
{
    env->payload_type[0] = '\0';
    env->payload_type_len = 0;
    kix_buf_init(&env->payload);
    env->n_sigs = 0;
    env->read_canonical = 0;
}

void kix_dsse_envelope_release(struct kix_dsse_envelope *env)
{
    kix_buf_release(&env->payload);
    kix_dsse_envelope_init(env);
}

/* Writes v in decimal ending just before `end`; returns the first digit. */
static char *put_decimal(char *end, size_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

static int add_decimal_sp(struct kix_buf *out, size_t v)
{
    char tmp[24], *p;

    tmp[sizeof(tmp) - 1] = ' ';
    p = put_decimal(tmp + sizeof(tmp) - 1, v);
    return kix_buf_add(out, p, (size_t)(tmp + sizeof(tmp) - p));
}

int kix_dsse_pae(const char *type, size_t type_len, const uint8_t *body, size_t body_len,
                 struct kix_buf *out)
{
    size_t start = out->len;
    int rc;

    if (type_len > SIZE_MAX / 2 - 64 || body_len > SIZE_MAX / 2 - 64)
        return KIX_ENOMEM;
    /* One growth: "DSSEv1 " + 2 lengths with spaces + type + " " + body. */
    rc = kix_buf_grow(out, 7 + 2 * 22 + type_len + body_len);
    if (rc)
        return rc;
    if ((rc = kix_buf_add(out, "DSSEv1 ", 7)) || (rc = add_decimal_sp(out, type_len)) ||
        (rc = kix_buf_add(out, type, type_len)) || (rc = kix_buf_addc(out, ' ')) ||
        (rc = add_decimal_sp(out, body_len)) || (rc = kix_buf_add(out, body, body_len))) {
        out->len = start;
        out->ptr[start] = '\0';
        return rc;
    }
    return KIX_OK;
}

void kix_dsse_keyid(const uint8_t pub[32], char out[KIX_DSSE_KEYID_HEX_LEN + 1])
{
    uint8_t h[KIX_SHA256_LEN];

    kix_sha256(pub, 32, h);
    sodium_bin2hex(out, KIX_DSSE_KEYID_HEX_LEN + 1, h, sizeof(h));
}

/* ---- parsing ------------------------------------------------------------ */

static int parse_sig(json_t *js, size_t i, struct kix_dsse_sig *sig, struct kix_err *err)
{
    const char *key;
    json_t *val, *jkeyid, *jsig;
    size_t n;
    int rc;

    if (!json_is_object(js))
        return kix_err_set(err, KIX_EINVAL,
                           "dsse signatures[%zu] is not an object; each signature must be "
                           "{\"keyid\": string, \"sig\": base64}",
                           i);
    json_object_foreach(js, key, val)
    {
        if (strcmp(key, "keyid") != 0 && strcmp(key, "sig") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "dsse signatures[%zu] has unknown field \"%.64s\"; only keyid and "
                               "sig are allowed",
                               i, key);
    }
    sig->keyid[0] = '\0';
    sig->keyid_len = 0;
    sig->has_keyid = 0;
    sig->sig_len = 0;
    jkeyid = json_object_get(js, "keyid");
    if (jkeyid) {
        if (!json_is_string(jkeyid))
            return kix_err_set(err, KIX_EINVAL, "dsse signatures[%zu].keyid is not a string", i);
        n = json_string_length(jkeyid);
        if (n > KIX_DSSE_MAX_KEYID)
            return kix_err_set(err, KIX_ELIMIT,
                               "dsse signatures[%zu].keyid is %zu bytes, over the %u-byte limit", i,
                               n, KIX_DSSE_MAX_KEYID);
        memcpy(sig->keyid, json_string_value(jkeyid), n);
        sig->keyid[n] = '\0';
        sig->keyid_len = n;
        sig->has_keyid = 1;
    }
    jsig = json_object_get(js, "sig");
    if (!jsig)
        return kix_err_set(err, KIX_EINVAL, "dsse signatures[%zu] has no sig field", i);
    if (!json_is_string(jsig))
        return kix_err_set(err, KIX_EINVAL, "dsse signatures[%zu].sig is not a string", i);
    rc = kix_base64_decode(json_string_value(jsig), json_string_length(jsig), sig->sig,
                           KIX_DSSE_MAX_SIG, &sig->sig_len);
    if (rc == KIX_ELIMIT)
        return kix_err_set(err, rc,
                           "dsse signatures[%zu].sig decodes to more than %u bytes; that is no "
                           "signature kix can check",
                           i, KIX_DSSE_MAX_SIG);
    if (rc)
        return kix_err_set(err, rc,
                           "dsse signatures[%zu].sig is not padded base64 (standard or URL-safe "
                           "alphabet)",
                           i);
    if (sig->sig_len == 0)
        return kix_err_set(err, KIX_EINVAL, "dsse signatures[%zu].sig is empty", i);
    return KIX_OK;
}

static int parse_root(json_t *root, struct kix_dsse_envelope *env, struct kix_err *err)
{
    const char *key;
    json_t *val, *jtype, *jpayload, *jsigs;
    size_t n;
    int rc;

    if (!json_is_object(root))
        return kix_err_set(err, KIX_EINVAL, "dsse envelope is not a JSON object");
    json_object_foreach(root, key, val)
    {
        if (strcmp(key, "payload") != 0 && strcmp(key, "payloadType") != 0 &&
            strcmp(key, "signatures") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "dsse envelope has unknown field \"%.64s\"; only payload, "
                               "payloadType and signatures are allowed",
                               key);
    }

    jtype = json_object_get(root, "payloadType");
    if (!jtype)
        return kix_err_set(err, KIX_EINVAL, "dsse envelope has no payloadType field");
    if (!json_is_string(jtype))
        return kix_err_set(err, KIX_EINVAL, "dsse payloadType is not a string");
    n = json_string_length(jtype);
    if (n > KIX_DSSE_MAX_TYPE)
        return kix_err_set(err, KIX_ELIMIT, "dsse payloadType is %zu bytes, over the %u-byte limit",
                           n, KIX_DSSE_MAX_TYPE);
    memcpy(env->payload_type, json_string_value(jtype), n);
    env->payload_type[n] = '\0';
    env->payload_type_len = n;

    jpayload = json_object_get(root, "payload");
    if (!jpayload)
        return kix_err_set(err, KIX_EINVAL, "dsse envelope has no payload field");
    if (!json_is_string(jpayload))
        return kix_err_set(err, KIX_EINVAL, "dsse payload is not a string");
    /* The input bounds the decoded size; no separate limit is needed. */
    rc = kix_base64_decode_buf(json_string_value(jpayload), json_string_length(jpayload),
                               KIX_DSSE_MAX_ENVELOPE, &env->payload);
    if (rc == KIX_ENOMEM)
        return kix_err_set(err, rc, "out of memory decoding the dsse payload");
    if (rc)
        return kix_err_set(err, KIX_EINVAL,
                           "dsse payload is not padded base64 (standard or URL-safe alphabet)");

    jsigs = json_object_get(root, "signatures");
    if (!jsigs)
        return kix_err_set(err, KIX_EINVAL, "dsse envelope has no signatures field");
    if (!json_is_array(jsigs))
        return kix_err_set(err, KIX_EINVAL, "dsse signatures is not an array");
    n = json_array_size(jsigs);
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL,
                           "dsse signatures is empty; an envelope needs at least one signature");
    if (n > KIX_DSSE_MAX_SIGS)
        return kix_err_set(err, KIX_ELIMIT, "dsse signatures has %zu entries, over the limit of %u",
                           n, KIX_DSSE_MAX_SIGS);
    for (size_t i = 0; i < n; i++) {
        rc = parse_sig(json_array_get(jsigs, i), i, &env->sigs[i], err);
        if (rc)
            return rc;
    }
    env->n_sigs = n;
    return KIX_OK;
}

/* ---- the canonical layout, read without a tree ------------------------- */

/* The string at *p (its opening quote) when it has no escape, no control
 * byte and is UTF-8: sets *out and *n to its content and moves *p past it. */
static int plain_string(const uint8_t **p, const uint8_t *end, const char **out, size_t *n)
{
    const uint8_t *q = *p, *s;

    if (q >= end || *q != '"')
        return 0;
    s = ++q;
    while (q < end && *q != '"') {
        if (*q == '\\' || *q < 0x20)
            return 0;
        q++;
    }
    if (q >= end || !kix_utf8_valid((const char *)s, (size_t)(q - s)))
        return 0;
    *out = (const char *)s;
    *n = (size_t)(q - s);
    *p = q + 1;
    return 1;
}

/* The string at *p (its opening quote) up to the first '"', for content
 * the caller then decodes as base64: the alphabets and '=' hold no
 * backslash, control or non-ASCII byte, so content that decodes is content
 * plain_string accepts, found by memchr instead of its byte loop and UTF-8
 * check (the payload is most of an envelope's bytes: callgrind of an
 * audit, ~7k instructions an entry). */
static int base64_string(const uint8_t **p, const uint8_t *end, const char **out, size_t *n)
{
    const uint8_t *q = *p, *close;

    if (q >= end || *q != '"' || !(close = memchr(q + 1, '"', (size_t)(end - q - 1))))
        return 0;
    *out = (const char *)q + 1;
    *n = (size_t)(close - q - 1);
    *p = close + 1;
    return 1;
}

static int literal(const uint8_t **p, const uint8_t *end, const char *lit, size_t n)
{
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return 0;
    *p += n;
    return 1;
}

int kix_dsse_parse_canonical(const uint8_t *json, size_t len, struct kix_dsse_envelope *env)
{
    const uint8_t *p = json, *end = json + len;
    const char *s;
    size_t n;

    kix_dsse_envelope_init(env);
    if (len > KIX_DSSE_MAX_ENVELOPE || !literal(&p, end, "{\"payload\":", 11) ||
        !base64_string(&p, end, &s, &n) ||
        kix_base64_decode_std_buf(s, n, KIX_DSSE_MAX_ENVELOPE, &env->payload) != KIX_OK ||
        !literal(&p, end, ",\"payloadType\":", 15) || !plain_string(&p, end, &s, &n) ||
        n > KIX_DSSE_MAX_TYPE || !literal(&p, end, ",\"signatures\":[", 15))
        goto other;
    memcpy(env->payload_type, s, n);
    env->payload_type[n] = '\0';
    env->payload_type_len = n;
    do {
        struct kix_dsse_sig *sig = &env->sigs[env->n_sigs];
        if (env->n_sigs == KIX_DSSE_MAX_SIGS || !literal(&p, end, "{", 1))
            goto other;
        sig->has_keyid = 0;
        sig->keyid[0] = '\0';
        sig->keyid_len = 0;
        if (literal(&p, end, "\"keyid\":", 8)) {
            if (!plain_string(&p, end, &s, &n) || n > KIX_DSSE_MAX_KEYID ||
                !literal(&p, end, ",", 1))
                goto other;
            memcpy(sig->keyid, s, n);
            sig->keyid[n] = '\0';
            sig->keyid_len = n;
            sig->has_keyid = 1;
        }
        if (!literal(&p, end, "\"sig\":", 6) || !base64_string(&p, end, &s, &n) ||
            kix_base64_decode_std(s, n, sig->sig, KIX_DSSE_MAX_SIG, &sig->sig_len) != 0 ||
            sig->sig_len == 0 || sig->sig_len > KIX_DSSE_MAX_SIG || !literal(&p, end, "}", 1))
            goto other;
        env->n_sigs++;
    } while (literal(&p, end, ",", 1));
    if (literal(&p, end, "]}", 2) && p == end) {
        env->read_canonical = 1;
        return KIX_OK;
    }
other:
    kix_dsse_envelope_release(env);
    return KIX_EINVAL;
}

int kix_dsse_parse(const uint8_t *json, size_t len, struct kix_dsse_envelope *env,
                   struct kix_err *err)
{
    if (kix_dsse_parse_canonical(json, len, env) == KIX_OK)
        return KIX_OK;
    return kix_dsse_parse_json(json, len, env, err);
}

int kix_dsse_parse_json(const uint8_t *json, size_t len, struct kix_dsse_envelope *env,
                        struct kix_err *err)
{
    json_error_t jerr;
    json_t *root;
    int rc;

    kix_dsse_envelope_init(env);
    if (len > KIX_DSSE_MAX_ENVELOPE)
        return kix_err_set(err, KIX_ELIMIT,
                           "dsse envelope is %zu bytes, over the %u-byte log leaf limit", len,
                           KIX_DSSE_MAX_ENVELOPE);
    root = json_loadb((const char *)json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return kix_err_set(err, KIX_EINVAL, "dsse envelope is not valid JSON at byte %d: %s",
                           jerr.position, jerr.text);
    rc = parse_root(root, env, err);
    json_decref(root);
    if (rc)
        kix_dsse_envelope_release(env);
    return rc;
}

/* ---- canonical encoding ------------------------------------------------- */

/* Appends the JCS form of the envelope's fixed shape; the caller restores
 * out on error. */
static int emit(const char *type, size_t type_len, const uint8_t *payload, size_t payload_len,
                const struct kix_dsse_sig *sigs, size_t n, struct kix_buf *out)
{
    int rc;

    rc = kix_buf_grow(out, 64 + kix_base64_encoded_len(payload_len) + type_len);
    if (rc)
        return rc;
    if ((rc = kix_buf_add(out, "{\"payload\":\"", 12)) ||
        (rc = kix_base64_encode(payload, payload_len, out)) ||
        (rc = kix_buf_add(out, "\",\"payloadType\":", 16)) ||
        (rc = kix_canon_string(type, type_len, out)) ||
        (rc = kix_buf_add(out, ",\"signatures\":[", 15)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        if ((rc = kix_buf_add(out, i ? ",{" : "{", i ? 2 : 1)))
            return rc;
        if (sigs[i].has_keyid && ((rc = kix_buf_add(out, "\"keyid\":", 8)) ||
                                  (rc = kix_canon_string(sigs[i].keyid, sigs[i].keyid_len, out)) ||
                                  (rc = kix_buf_addc(out, ','))))
            return rc;
        if ((rc = kix_buf_add(out, "\"sig\":\"", 7)) ||
            (rc = kix_base64_encode(sigs[i].sig, sigs[i].sig_len, out)) ||
            (rc = kix_buf_add(out, "\"}", 2)))
            return rc;
    }
    return kix_buf_add(out, "]}", 2);
}

static void restore(struct kix_buf *out, size_t len)
{
    out->len = len;
    if (out->ptr)
        out->ptr[len] = '\0';
}

static int check_type(const char *type, size_t len, struct kix_err *err)
{
    if (len > KIX_DSSE_MAX_TYPE)
        return kix_err_set(err, KIX_ELIMIT, "dsse payloadType is %zu bytes, over the %u-byte limit",
                           len, KIX_DSSE_MAX_TYPE);
    if (!kix_utf8_valid(type, len))
        return kix_err_set(err, KIX_EINVAL, "dsse payloadType is not valid UTF-8 (or holds NUL)");
    return KIX_OK;
}

static int check_keyid(const char *keyid, size_t len, size_t i, struct kix_err *err)
{
    if (len > KIX_DSSE_MAX_KEYID)
        return kix_err_set(err, KIX_ELIMIT,
                           "dsse signatures[%zu].keyid is %zu bytes, over the %u-byte limit", i,
                           len, KIX_DSSE_MAX_KEYID);
    if (!kix_utf8_valid(keyid, len))
        return kix_err_set(err, KIX_EINVAL,
                           "dsse signatures[%zu].keyid is not valid UTF-8 (or holds NUL)", i);
    return KIX_OK;
}

static int check_size(const struct kix_buf *out, size_t start, struct kix_err *err)
{
    if (out->len - start > KIX_DSSE_MAX_ENVELOPE)
        return kix_err_set(err, KIX_ELIMIT,
                           "dsse envelope would be %zu bytes, over the %u-byte log leaf limit; "
                           "make the payload smaller",
                           out->len - start, KIX_DSSE_MAX_ENVELOPE);
    return KIX_OK;
}

int kix_dsse_encode(const struct kix_dsse_envelope *env, struct kix_buf *out, struct kix_err *err)
{
    size_t start = out->len;
    int rc;

    if (env->n_sigs == 0)
        return kix_err_set(err, KIX_EINVAL,
                           "dsse signatures is empty; an envelope needs at least one signature");
    if (env->n_sigs > KIX_DSSE_MAX_SIGS)
        return kix_err_set(err, KIX_ELIMIT, "dsse signatures has %zu entries, over the limit of %u",
                           env->n_sigs, KIX_DSSE_MAX_SIGS);
    rc = check_type(env->payload_type, env->payload_type_len, err);
    if (rc)
        return rc;
    if (env->payload.len > KIX_DSSE_MAX_ENVELOPE)
        return kix_err_set(err, KIX_ELIMIT,
                           "dsse payload is %zu bytes; its envelope would exceed the %u-byte log "
                           "leaf limit",
                           env->payload.len, KIX_DSSE_MAX_ENVELOPE);
    for (size_t i = 0; i < env->n_sigs; i++) {
        const struct kix_dsse_sig *s = &env->sigs[i];
        if ((rc = check_keyid(s->keyid, s->keyid_len, i, err)))
            return rc;
        if (s->sig_len == 0 || s->sig_len > KIX_DSSE_MAX_SIG)
            return kix_err_set(err, s->sig_len ? KIX_ELIMIT : KIX_EINVAL,
                               "dsse signatures[%zu].sig is %zu bytes; it must be 1..%u", i,
                               s->sig_len, KIX_DSSE_MAX_SIG);
    }
    rc = emit(env->payload_type, env->payload_type_len, env->payload.ptr, env->payload.len,
              env->sigs, env->n_sigs, out);
    if (rc)
        kix_err_set(err, rc, "out of memory encoding a dsse envelope");
    else
        rc = check_size(out, start, err);
    if (rc)
        restore(out, start);
    return rc;
}

/* ---- signing and verification ------------------------------------------- */

int kix_dsse_sign(const char *payload_type, const uint8_t *payload, size_t len,
                  const uint8_t sk[64], const char *keyid, struct kix_buf *out, struct kix_err *err)
{
    struct kix_buf pae = KIX_BUF_INIT;
    struct kix_dsse_sig sig;
    size_t type_len = strlen(payload_type), start = out->len;
    int rc;

    rc = check_type(payload_type, type_len, err);
    if (rc)
        return rc;
    sig.has_keyid = keyid != NULL;
    sig.keyid_len = keyid ? strlen(keyid) : 0;
    if (keyid) {
        rc = check_keyid(keyid, sig.keyid_len, 0, err);
        if (rc)
            return rc;
        memcpy(sig.keyid, keyid, sig.keyid_len + 1);
    } else {
        sig.keyid[0] = '\0';
    }
    if (len > KIX_DSSE_MAX_ENVELOPE)
        return kix_err_set(err, KIX_ELIMIT,
                           "dsse payload is %zu bytes; its envelope would exceed the %u-byte log "
                           "leaf limit",
                           len, KIX_DSSE_MAX_ENVELOPE);
    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");

    rc = kix_dsse_pae(payload_type, type_len, payload, len, &pae);
    if (rc) {
        kix_err_set(err, rc, "out of memory building the dsse PAE");
        goto out;
    }
    crypto_sign_detached(sig.sig, NULL, pae.ptr, pae.len, sk);
    sig.sig_len = crypto_sign_BYTES;
    rc = emit(payload_type, type_len, payload, len, &sig, 1, out);
    if (rc) {
        kix_err_set(err, rc, "out of memory encoding a dsse envelope");
        goto out;
    }
    rc = check_size(out, start, err);
out:
    kix_buf_release(&pae);
    if (rc)
        restore(out, start);
    return rc;
}

int kix_dsse_verify(const struct kix_dsse_envelope *env, const uint8_t pub[32], const char *keyid,
                    struct kix_err *err)
{
    struct kix_buf pae = KIX_BUF_INIT;
    size_t keyid_len = keyid ? strlen(keyid) : 0, tried = 0;
    int rc;

    if (env->n_sigs == 0)
        return kix_err_set(err, KIX_EVERIFY, "dsse envelope has no signatures to verify");
    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
    rc = kix_dsse_pae(env->payload_type, env->payload_type_len, env->payload.ptr, env->payload.len,
                      &pae);
    if (rc)
        return kix_err_set(err, rc, "out of memory building the dsse PAE");
    rc = KIX_EVERIFY;
    for (size_t i = 0; i < env->n_sigs && i < KIX_DSSE_MAX_SIGS; i++) {
        const struct kix_dsse_sig *s = &env->sigs[i];

        if (keyid && s->keyid_len &&
            (s->keyid_len != keyid_len || memcmp(s->keyid, keyid, keyid_len) != 0))
            continue;
        tried++;
        if (s->sig_len == crypto_sign_BYTES &&
            crypto_sign_verify_detached(s->sig, pae.ptr, pae.len, pub) == 0) {
            rc = KIX_OK;
            break;
        }
    }
    kix_buf_release(&pae);
    if (rc == KIX_OK)
        return KIX_OK;
    if (tried == 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "dsse envelope has no signature with keyid %.128s (it has %zu other "
                           "signatures); check which key signed it",
                           keyid, env->n_sigs);
    return kix_err_set(err, KIX_EVERIFY,
                       "dsse signature does not verify: none of %zu candidate signatures is a "
                       "valid Ed25519 signature over PAE(payloadType, payload) by this key; the "
                       "envelope was altered or signed by another key",
                       tried);
}
