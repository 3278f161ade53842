/* Ed25519 keys in the C2SP / golang.org/x/mod/sumdb/note text forms. */
#include "kix/note.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/sha256.h"
#include "note_impl.h"

struct kix_signer {
    char name[KIX_NOTE_NAME_MAX + 1];
    uint8_t alg;
    uint32_t key_hash;
    uint8_t pub[KIX_NOTE_PUBKEY_LEN];
    uint8_t *sk; /* sodium_malloc, read-only after creation */
};

#define PRIVATE_PREFIX   "PRIVATE+KEY+"
#define PRIVATE_PREFIXN  12
#define KEY_B64_LEN      44 /* base64 of 33 bytes */
#define VERIFIER_MAX_LEN (KIX_NOTE_NAME_MAX + 1 + 8 + 1 + KEY_B64_LEN)

/* ---- UTF-8 and base64 --------------------------------------------------- */

size_t kix__utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint32_t c = s[0];
    size_t len, i;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* ---- names and hashes --------------------------------------------------- */

static int is_unicode_space(uint32_t c)
{
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
           c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

int kix__name_chars_valid(const char *name, size_t len)
{
    const uint8_t *s = (const uint8_t *)name;
    size_t i = 0, n;
    uint32_t c;

    if (len == 0)
        return 0;
    while (i < len) {
        n = kix__utf8_next(s + i, len - i, &c);
        if (n == 0 || c < 0x20 || c == ' ' || c == '+' || c == 0x7f || is_unicode_space(c))
            return 0;
        i += n;
    }
    return 1;
}

int kix_note_name_valid(const char *name, size_t len)
{
    return len <= KIX_NOTE_NAME_MAX && kix__name_chars_valid(name, len);
}

uint32_t kix_note_key_hash(const char *name, size_t name_len, uint8_t alg,
                           const uint8_t pub[KIX_NOTE_PUBKEY_LEN])
{
    struct kix_sha256 st;
    uint8_t h[KIX_SHA256_LEN];
    uint8_t nl = '\n';

    kix_sha256_init(&st);
    kix_sha256_update(&st, (const uint8_t *)name, name_len);
    kix_sha256_update(&st, &nl, 1);
    kix_sha256_update(&st, &alg, 1);
    kix_sha256_update(&st, pub, KIX_NOTE_PUBKEY_LEN);
    kix_sha256_final(&st, h);
    return kix_u32be_get(h);
}

void kix_key_id(const uint8_t pub[KIX_NOTE_PUBKEY_LEN], char out_hex[KIX_KEY_ID_HEX_LEN + 1])
{
    uint8_t h[KIX_SHA256_LEN];

    kix_sha256(pub, KIX_NOTE_PUBKEY_LEN, h);
    sodium_bin2hex(out_hex, KIX_KEY_ID_HEX_LEN + 1, h, sizeof(h));
}

static int alg_known(uint8_t alg)
{
    return alg == KIX_NOTE_ALG_ED25519 || alg == KIX_NOTE_ALG_COSIGN;
}

/* Exactly 8 lowercase hex digits. */
static int parse_hash8(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 8; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            v = v << 4 | (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v << 4 | (uint32_t)(c - 'a' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* ---- signers ------------------------------------------------------------ */

static int sodium_ready(struct kix_err *err)
{
    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
    return KIX_OK;
}

static int signer_create(const char *name, size_t name_len, uint8_t alg, const uint8_t *seed,
                         struct kix_signer **out, struct kix_err *err)
{
    struct kix_signer *s;
    int rc;

    if ((rc = sodium_ready(err)))
        return rc;
    if (!kix_note_name_valid(name, name_len))
        return kix_err_set(err, KIX_EINVAL,
                           "invalid key name: it must be 1 to %d bytes of UTF-8 without spaces, "
                           "'+' or control characters",
                           KIX_NOTE_NAME_MAX);
    if (!alg_known(alg))
        return kix_err_set(err, KIX_EINVAL,
                           "unknown key algorithm 0x%02x: use 0x01 (Ed25519 note key) or 0x04 "
                           "(Ed25519 witness cosignature key)",
                           alg);
    s = calloc(1, sizeof(*s));
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "out of memory creating a signer");
    s->sk = sodium_malloc(KIX_NOTE_SECKEY_LEN);
    if (!s->sk) {
        free(s);
        return kix_err_set(err, KIX_ENOMEM, "out of secure memory creating a signer");
    }
    if (seed)
        crypto_sign_seed_keypair(s->pub, s->sk, seed);
    else
        crypto_sign_keypair(s->pub, s->sk);
    sodium_mprotect_readonly(s->sk);
    memcpy(s->name, name, name_len);
    s->name[name_len] = '\0';
    s->alg = alg;
    s->key_hash = kix_note_key_hash(s->name, name_len, alg, s->pub);
    *out = s;
    return KIX_OK;
}

int kix_signer_generate(const char *name, uint8_t alg, struct kix_signer **out, struct kix_err *err)
{
    return signer_create(name, strlen(name), alg, NULL, out, err);
}

int kix_signer_from_seed(const char *name, uint8_t alg, const uint8_t seed[32],
                         struct kix_signer **out, struct kix_err *err)
{
    return signer_create(name, strlen(name), alg, seed, out, err);
}

int kix_signer_parse(const char *text, size_t len, struct kix_signer **out, struct kix_err *err)
{
    const char *name, *p, *end;
    uint8_t *key = NULL; /* alg || seed, in secure memory */
    struct kix_signer *s = NULL;
    size_t name_len, key_len = 0;
    uint32_t hash;
    int rc;

    if ((rc = sodium_ready(err)))
        return rc;
    if (len > 0 && text[len - 1] == '\n')
        len--;
    end = text + len;
    if (len < PRIVATE_PREFIXN || memcmp(text, PRIVATE_PREFIX, PRIVATE_PREFIXN) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid private key: it must start with PRIVATE+KEY+ (is this a "
                           "verifier key?)");
    name = text + PRIVATE_PREFIXN;
    p = memchr(name, '+', (size_t)(end - name));
    if (!p)
        return kix_err_set(err, KIX_EINVAL, "invalid private key: missing key hash");
    name_len = (size_t)(p - name);
    if (!kix_note_name_valid(name, name_len))
        return kix_err_set(err, KIX_EINVAL, "invalid private key: bad key name");
    p++;
    if (end - p < 9 || p[8] != '+' || parse_hash8(p, &hash) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid private key: key hash must be 8 lowercase hex digits");
    p += 9;
    key = sodium_malloc(64);
    if (!key)
        return kix_err_set(err, KIX_ENOMEM, "out of secure memory reading a private key");
    if (kix_base64_decode_secret(p, (size_t)(end - p), key, 64, &key_len) != 0 || key_len == 0) {
        rc = kix_err_set(err, KIX_EINVAL, "invalid private key: key data is not valid base64");
        goto out;
    }
    if (!alg_known(key[0])) {
        rc = kix_err_set(err, KIX_EINVAL, "invalid private key: unknown algorithm 0x%02x", key[0]);
        goto out;
    }
    if (key_len != 33) {
        rc = kix_err_set(err, KIX_EINVAL, "invalid private key: Ed25519 seed is %zu bytes, want 32",
                         key_len - 1);
        goto out;
    }
    rc = signer_create(name, name_len, key[0], key + 1, &s, err);
    if (rc)
        goto out;
    if (s->key_hash != hash) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "invalid private key: key hash %08x does not match the key (%08x)", hash,
                         s->key_hash);
        goto out;
    }
    *out = s;
    s = NULL;
    rc = KIX_OK;
out:
    sodium_free(key);
    kix_signer_free(s);
    return rc;
}

void kix_signer_free(struct kix_signer *s)
{
    if (!s)
        return;
    sodium_free(s->sk);
    sodium_memzero(s, sizeof(*s));
    free(s);
}

size_t kix__signer_private_text(const struct kix_signer *s, char *dst, size_t cap)
{
    uint8_t key[33];
    int n;

    n = snprintf(dst, cap, PRIVATE_PREFIX "%s+%08x+", s->name, s->key_hash);
    if (n < 0 || (size_t)n + KEY_B64_LEN + 1 > cap)
        return 0;
    key[0] = s->alg;
    memcpy(key + 1, s->sk, 32); /* libsodium secret key = seed || pub */
    sodium_bin2base64(dst + n, cap - (size_t)n, key, sizeof(key), sodium_base64_VARIANT_ORIGINAL);
    sodium_memzero(key, sizeof(key));
    return (size_t)n + KEY_B64_LEN;
}

int kix_signer_format_private(const struct kix_signer *s, struct kix_buf *out)
{
    size_t cap = KIX__PRIVATE_TEXT_MAX + 1, n;
    int rc;

    /* Grow first so the secret is written once, never left behind by a realloc. */
    rc = kix_buf_grow(out, cap);
    if (rc)
        return rc;
    n = kix__signer_private_text(s, (char *)out->ptr + out->len, cap);
    if (n == 0)
        return KIX_EINVAL;
    out->len += n;
    out->ptr[out->len] = '\0';
    return KIX_OK;
}

int kix_signer_format_verifier(const struct kix_signer *s, struct kix_buf *out)
{
    struct kix_verifier v;
    kix_verifier_from_signer(s, &v);
    return kix_verifier_format(&v, out);
}

const char *kix_signer_name(const struct kix_signer *s)
{
    return s->name;
}

uint8_t kix_signer_alg(const struct kix_signer *s)
{
    return s->alg;
}

uint32_t kix_signer_key_hash(const struct kix_signer *s)
{
    return s->key_hash;
}

const uint8_t *kix_signer_public_key(const struct kix_signer *s)
{
    return s->pub;
}

const uint8_t *kix_signer_secret_key(const struct kix_signer *s)
{
    return s->sk;
}

int kix_signer_sign(const struct kix_signer *s, const void *msg, size_t len,
                    uint8_t sig[KIX_NOTE_SIG_LEN])
{
    if (crypto_sign_detached(sig, NULL, msg, len, s->sk) != 0)
        return KIX_EINVAL;
    return KIX_OK;
}

/* ---- verifiers ---------------------------------------------------------- */

int kix_verifier_parse(const char *text, size_t len, struct kix_verifier *out, struct kix_err *err)
{
    const char *p, *end = text + len;
    uint8_t key[64];
    size_t name_len, key_len = 0;
    uint32_t hash, want;
    int rc;

    if ((rc = sodium_ready(err)))
        return rc;
    if (len > VERIFIER_MAX_LEN)
        return kix_err_set(err, KIX_EINVAL, "invalid verifier key: longer than %d bytes",
                           VERIFIER_MAX_LEN);
    p = memchr(text, '+', len);
    if (!p)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: want <name>+<hash>+<base64 key>");
    name_len = (size_t)(p - text);
    if (!kix_note_name_valid(text, name_len))
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: bad key name (empty, too long, invalid UTF-8, "
                           "or containing spaces or control characters)");
    p++;
    if (end - p < 9 || p[8] != '+' || parse_hash8(p, &hash) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: key hash must be 8 lowercase hex digits");
    p += 9;
    if (kix_base64_decode_std(p, (size_t)(end - p), key, sizeof(key), &key_len) != 0 ||
        key_len == 0)
        return kix_err_set(err, KIX_EINVAL, "invalid verifier key: key data is not valid base64");
    if (!alg_known(key[0]))
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: unknown algorithm 0x%02x (want 0x01 or 0x04)",
                           key[0]);
    if (key_len != 1 + KIX_NOTE_PUBKEY_LEN)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: Ed25519 public key is %zu bytes, want 32",
                           key_len - 1);
    want = kix_note_key_hash(text, name_len, key[0], key + 1);
    if (hash != want)
        return kix_err_set(err, KIX_EINVAL,
                           "invalid verifier key: key hash %08x does not match the key (%08x)",
                           hash, want);
    if (!crypto_core_ed25519_is_valid_point(key + 1))
        return kix_err_set(err, KIX_EINVAL, "invalid verifier key: not a valid Ed25519 public key");
    memcpy(out->name, text, name_len);
    out->name[name_len] = '\0';
    out->alg = key[0];
    out->key_hash = hash;
    memcpy(out->pub, key + 1, KIX_NOTE_PUBKEY_LEN);
    return KIX_OK;
}

int kix_verifier_from_public_key(const char *name, uint8_t alg,
                                 const uint8_t pub[KIX_NOTE_PUBKEY_LEN], struct kix_verifier *out,
                                 struct kix_err *err)
{
    size_t name_len = strlen(name);
    int rc;

    if ((rc = sodium_ready(err)))
        return rc;
    if (!kix_note_name_valid(name, name_len))
        return kix_err_set(err, KIX_EINVAL,
                           "invalid key name: it must be 1 to %d bytes of UTF-8 without spaces, "
                           "'+' or control characters",
                           KIX_NOTE_NAME_MAX);
    if (!alg_known(alg))
        return kix_err_set(err, KIX_EINVAL, "unknown key algorithm 0x%02x (want 0x01 or 0x04)",
                           alg);
    if (!crypto_core_ed25519_is_valid_point(pub))
        return kix_err_set(err, KIX_EINVAL, "not a valid Ed25519 public key");
    memcpy(out->name, name, name_len + 1);
    out->alg = alg;
    out->key_hash = kix_note_key_hash(name, name_len, alg, pub);
    memcpy(out->pub, pub, KIX_NOTE_PUBKEY_LEN);
    return KIX_OK;
}

void kix_verifier_from_signer(const struct kix_signer *s, struct kix_verifier *out)
{
    memcpy(out->name, s->name, sizeof(out->name));
    out->alg = s->alg;
    out->key_hash = s->key_hash;
    memcpy(out->pub, s->pub, KIX_NOTE_PUBKEY_LEN);
}

int kix_verifier_format(const struct kix_verifier *v, struct kix_buf *out)
{
    uint8_t key[1 + KIX_NOTE_PUBKEY_LEN];
    size_t start = out->len;
    int rc;

    key[0] = v->alg;
    memcpy(key + 1, v->pub, KIX_NOTE_PUBKEY_LEN);
    rc = kix_buf_addf(out, "%s+%08x+", v->name, v->key_hash);
    if (!rc)
        rc = kix_base64_encode(key, sizeof(key), out);
    if (rc) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return rc;
}
