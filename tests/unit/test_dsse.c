/* DSSE envelopes, PAE, base64 and in-toto statements against
 * tests/vectors/dsse/dsse_vectors.json and hand-made cases. */
#include "harness.h"
#include "kix/canon.h"

#include <jansson.h>
#include <sodium.h>

#include "kix/encoding.h"
#include "kix/dsse.h"
#include "kix/json.h"

#define HELLO_TYPE "http://example.com/HelloWorld"
#define HELLO_SIG                                                                                  \
    "4DHX3Zn4qpBKvEj7maE8O9u9bjXEnPLLnyXVUJ2PXJR8DSLcL3QDpFvfJOj3pB/SPHsl6Jg4boxsMb6KvuYABw=="
#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static json_t *vectors(void)
{
    static json_t *root;
    if (!root) {
        size_t len;
        char *text = kix_test_read_file("vectors/dsse/dsse_vectors.json", &len);
        json_error_t jerr;
        if (!text)
            return NULL;
        root = json_loadb(text, len, 0, &jerr);
        free(text);
    }
    return root;
}

/* Decodes hex into a malloc'ed buffer (at least 1 byte) and sets *n. */
static uint8_t *unhex(const char *hex, size_t *n)
{
    size_t len = strlen(hex);
    uint8_t *out = malloc(len / 2 + 1);
    if (!out || sodium_hex2bin(out, len / 2 + 1, hex, len, NULL, n, NULL) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The RFC 8032 TEST 1 key pair from the vectors. */
static void test_keypair(uint8_t pk[32], uint8_t sk[64])
{
    json_t *k = json_object_get(json_object_get(vectors(), "keys"), "ed25519-rfc8032-test1");
    uint8_t seed[32];
    size_t n = 0;
    sodium_hex2bin(seed, 32, json_string_value(json_object_get(k, "seed_hex")), 64, NULL, &n, NULL);
    crypto_sign_seed_keypair(pk, sk, seed);
}

static int parse_str(const char *json, struct kix_dsse_envelope *env, struct kix_err *err)
{
    return kix_dsse_parse((const uint8_t *)json, strlen(json), env, err);
}

KIX_TEST(pae_vectors)
{
    json_t *pae = json_object_get(vectors(), "pae");
    size_t i;
    json_t *v;

    ASSERT_TRUE(pae != NULL);
    ASSERT_EQ_INT(10, json_array_size(pae));
    json_array_foreach(pae, i, v)
    {
        struct kix_buf out = KIX_BUF_INIT;
        size_t tlen, blen, wlen;
        uint8_t *type = unhex(json_string_value(json_object_get(v, "payload_type_hex")), &tlen);
        uint8_t *body = unhex(json_string_value(json_object_get(v, "payload_hex")), &blen);
        uint8_t *want = unhex(json_string_value(json_object_get(v, "expected_pae_hex")), &wlen);
        int rc;

        ASSERT_TRUE(type && body && want);
        /* The text fields agree with the hex ones where present. */
        ASSERT_EQ_MEM(json_string_value(json_object_get(v, "payload_type")), tlen, type, tlen);
        rc = kix_dsse_pae((const char *)type, tlen, body, blen, &out);
        ASSERT_EQ_INT(KIX_OK, rc);
        if (out.len != wlen || memcmp(out.ptr, want, wlen) != 0)
            fprintf(stderr, "pae vector %s differs\n", json_string_value(json_object_get(v, "id")));
        ASSERT_EQ_MEM(want, wlen, out.ptr, out.len);
        free(type);
        free(body);
        free(want);
        kix_buf_release(&out);
    }
}

KIX_TEST(pae_appends)
{
    struct kix_buf out = KIX_BUF_INIT;

    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&out, "x:"));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_pae("ab", 2, (const uint8_t *)"hello world", 11, &out));
    ASSERT_EQ_STR("x:DSSEv1 2 ab 11 hello world", (const char *)out.ptr);
    kix_buf_release(&out);
}

KIX_TEST(envelope_vectors_ed25519)
{
    json_t *envs = json_object_get(vectors(), "envelopes");
    uint8_t pk[32], sk[64];
    int n_ed = 0, n_valid = 0;
    size_t i;
    json_t *v;

    test_keypair(pk, sk);
    ASSERT_EQ_INT(11, json_array_size(envs));
    json_array_foreach(envs, i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        int expect = json_is_true(json_object_get(v, "expect_valid"));
        struct kix_dsse_envelope env;
        struct kix_err err = {0};
        char *text;
        int rc;

        /* ECDSA P-256 envelopes (key ecdsa-p256-spec) are skipped: kix signs
         * and verifies Ed25519 only. They still parse (see the next test). */
        if (strcmp(json_string_value(json_object_get(v, "key")), "ed25519-rfc8032-test1") != 0)
            continue;
        n_ed++;
        text = json_dumps(json_object_get(v, "envelope"), JSON_COMPACT);
        ASSERT_TRUE(text != NULL);
        rc = parse_str(text, &env, &err);
        free(text);
        if (rc == KIX_OK) {
            rc = kix_dsse_verify(&env, pk, NULL, &err);
            if (rc == KIX_OK)
                n_valid++;
            else
                ASSERT_CONTAINS(err.msg, "does not verify");
        } else {
            /* Only the no-signatures vector fails before verification. */
            ASSERT_EQ_STR("ed25519-no-signatures", id);
            ASSERT_EQ_INT(KIX_EINVAL, rc);
            ASSERT_CONTAINS(err.msg, "signatures");
        }
        if ((rc == KIX_OK) != expect)
            fprintf(stderr, "envelope vector %s: want %s, got %d (%s)\n", id,
                    expect ? "valid" : "invalid", rc, err.msg);
        ASSERT_EQ_INT(expect, rc == KIX_OK);
        if (expect) {
            /* Another key never passes. */
            uint8_t pk2[32], sk2[64];
            crypto_sign_keypair(pk2, sk2);
            ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk2, NULL, &err));
        }
        kix_dsse_envelope_release(&env);
    }
    ASSERT_EQ_INT(8, n_ed);
    ASSERT_EQ_INT(5, n_valid);
}

KIX_TEST(envelope_vectors_fields)
{
    json_t *envs = json_object_get(vectors(), "envelopes");
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    size_t i;
    json_t *v;

    test_keypair(pk, sk);
    json_array_foreach(envs, i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        char *text = json_dumps(json_object_get(v, "envelope"), JSON_COMPACT);

        if (strcmp(id, "ed25519-no-signatures") == 0) {
            free(text);
            continue;
        }
        /* Every other vector, ECDSA included, is a well-formed envelope. */
        ASSERT_EQ_INT(KIX_OK, parse_str(text, &env, &err));
        free(text);
        if (strcmp(id, "ed25519-in-toto") == 0) {
            ASSERT_EQ_STR(KIX_DSSE_INTOTO_TYPE, env.payload_type);
            ASSERT_EQ_INT(1, env.n_sigs);
            ASSERT_EQ_INT(1, env.sigs[0].has_keyid);
            ASSERT_EQ_STR("rfc8032-test1", env.sigs[0].keyid);
            ASSERT_EQ_INT(64, env.sigs[0].sig_len);
            ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, "rfc8032-test1", &err));
            ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, "other", &err));
            ASSERT_CONTAINS(err.msg, "no signature with keyid other");
        }
        if (strcmp(id, "ed25519-two-signatures-one-good") == 0) {
            ASSERT_EQ_INT(2, env.n_sigs);
            ASSERT_EQ_STR("unknown", env.sigs[0].keyid);
            ASSERT_EQ_INT(0, env.sigs[1].has_keyid);
            /* Filtering on "unknown" still tries the keyid-less good one. */
            ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, "unknown", &err));
        }
        if (strcmp(id, "ed25519-empty-payload") == 0)
            ASSERT_EQ_INT(0, env.payload.len);
        if (strcmp(id, "spec-ecdsa-p256-hello-world") == 0) {
            ASSERT_EQ_MEM("hello world", 11, env.payload.ptr, env.payload.len);
            ASSERT_EQ_INT(64, env.sigs[0].sig_len);
            ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
        }
        kix_dsse_envelope_release(&env);
    }
}

KIX_TEST(base64_vectors)
{
    json_t *cases = json_object_get(vectors(), "base64_payload_decoding");
    size_t i;
    json_t *v;

    ASSERT_EQ_INT(4, json_array_size(cases));
    json_array_foreach(cases, i, v)
    {
        const char *text = json_string_value(json_object_get(v, "payload"));
        int ok = json_is_true(json_object_get(v, "expect_decode_ok"));
        size_t wlen, got = 99;
        uint8_t *want = unhex(json_string_value(json_object_get(v, "decoded_hex")), &wlen);
        uint8_t dst[300];
        struct kix_buf buf = KIX_BUF_INIT;
        int rc = kix_base64_decode(text, strlen(text), dst, sizeof(dst), &got);

        ASSERT_EQ_INT(ok ? KIX_OK : KIX_EINVAL, rc);
        if (ok)
            ASSERT_EQ_MEM(want, wlen, dst, got);
        else
            ASSERT_EQ_INT(0, got);
        ASSERT_EQ_INT(ok ? KIX_OK : KIX_EINVAL,
                      kix_base64_decode_buf(text, strlen(text), 256, &buf));
        if (ok)
            ASSERT_EQ_MEM(want, wlen, buf.ptr, buf.len);
        kix_buf_release(&buf);
        free(want);
    }
}

KIX_TEST(base64_strictness)
{
    static const struct {
        const char *text;
        int rc;
        const char *want;
    } cases[] = {
        {"", KIX_OK, ""},
        {"aGk=", KIX_OK, "hi"},
        {"aGVsbG8gd29ybGQ=", KIX_OK, "hello world"},
        {"-_8=", KIX_OK, "\xfb\xff"},
        {"+/8=", KIX_OK, "\xfb\xff"},
        {"+_8=", KIX_EINVAL, NULL},  /* alphabets mixed */
        {"aGk", KIX_EINVAL, NULL},   /* unpadded */
        {"aGk==", KIX_EINVAL, NULL}, /* too much padding */
        {"aGl=", KIX_EINVAL, NULL},  /* non-zero trailing bits */
        {"aG k=", KIX_EINVAL, NULL}, /* whitespace */
        {"aGk=\n", KIX_EINVAL, NULL},
        {"====", KIX_EINVAL, NULL},
        {"aGk=aGk=", KIX_EINVAL, NULL}, /* padding in the middle */
        {"a", KIX_EINVAL, NULL},
        {"aGk\x80", KIX_EINVAL, NULL}, /* libsodium 1.0.18 reads bytes >= 0x80 as '/' */
        {"aG\xff=", KIX_EINVAL, NULL},
        {"\xc0\xc0\xc0\xc0", KIX_EINVAL, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t dst[16];
        size_t got = 0;
        int rc = kix_base64_decode(cases[i].text, strlen(cases[i].text), dst, sizeof(dst), &got);
        if (rc != cases[i].rc)
            fprintf(stderr, "base64 case \"%s\"\n", cases[i].text);
        ASSERT_EQ_INT(cases[i].rc, rc);
        if (cases[i].want)
            ASSERT_EQ_MEM(cases[i].want, strlen(cases[i].want), dst, got);
    }
    {
        uint8_t dst[2];
        size_t got;
        ASSERT_EQ_INT(KIX_ELIMIT, kix_base64_decode("aGVsbG8=", 8, dst, 2, &got));
        ASSERT_EQ_INT(KIX_OK, kix_base64_decode("aGk=", 4, dst, 2, &got));
    }
}

/* The standard-alphabet decoder of notes, keys and receipts, and the
 * constant-time one of private keys: the same strictness, no URL-safe
 * alphabet, and a result longer than the buffer reported whole with its
 * first bytes written. */
KIX_TEST(base64_standard_only)
{
    static const struct {
        const char *text;
        int ok;
    } cases[] = {
        {"", 1},         {"aGk=", 1},    {"+/8=", 1},          {"-_8=", 0}, {"aGk", 0},
        {"aGl=", 0},     {"aG k=", 0},   {"aGk\x80", 0},       {"====", 0}, {"aGk=aGk=", 0},
        {"aGVsbG8=", 1}, {"aGVsbG8", 0}, {"\xc0\xc0\xc0=", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t dst[16];
        size_t got = 99;
        int rc =
            kix_base64_decode_std(cases[i].text, strlen(cases[i].text), dst, sizeof(dst), &got);
        if ((rc == 0) != cases[i].ok)
            KIX_FAIL_AT("base64 \"%s\": rc %d", cases[i].text, rc);
        rc = kix_base64_decode_secret(cases[i].text, strlen(cases[i].text), dst, sizeof(dst), &got);
        if ((rc == 0) != cases[i].ok)
            KIX_FAIL_AT("secret base64 \"%s\": rc %d", cases[i].text, rc);
        {
            struct kix_buf b = KIX_BUF_INIT;
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&b, "<"));
            rc = kix_base64_decode_std_buf(cases[i].text, strlen(cases[i].text), 16, &b);
            if ((rc == KIX_OK) != cases[i].ok || (rc != KIX_OK && rc != KIX_EINVAL))
                KIX_FAIL_AT("base64 into a buffer \"%s\": rc %d", cases[i].text, rc);
            if (rc == KIX_OK)
                ASSERT_EQ_MEM(dst, got, b.ptr + 1, b.len - 1);
            else
                ASSERT_EQ_MEM("<", 1, b.ptr, b.len);
            kix_buf_release(&b);
        }
    }
    {
        struct kix_buf b = KIX_BUF_INIT;
        /* the URL-safe spelling kix_base64_decode_buf takes; a bound */
        ASSERT_EQ_INT(KIX_OK, kix_base64_decode_buf("-_8=", 4, 2, &b));
        ASSERT_EQ_INT(KIX_EINVAL, kix_base64_decode_std_buf("-_8=", 4, 2, &b));
        ASSERT_EQ_INT(KIX_ELIMIT, kix_base64_decode_std_buf("aGVsbG8=", 8, 4, &b));
        ASSERT_EQ_MEM("\xfb\xff", 2, b.ptr, b.len);
        kix_buf_release(&b);
    }
    {
        uint8_t two[2] = {0, 0};
        size_t got = 0;
        ASSERT_EQ_INT(0, kix_base64_decode_std("aGVsbG8=", 8, two, sizeof(two), &got));
        ASSERT_EQ_U64(5, got);
        ASSERT_EQ_MEM("he", 2, two, 2);
        memset(two, 0, sizeof(two));
        ASSERT_EQ_INT(0, kix_base64_decode_secret("aGVsbG8=", 8, two, sizeof(two), &got));
        ASSERT_EQ_U64(5, got);
        ASSERT_EQ_MEM("he", 2, two, 2);
    }
}

KIX_TEST(base64_encode_roundtrip)
{
    uint8_t data[256];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(255 - i);
    for (size_t n = 0; n <= 10; n++) {
        struct kix_buf b = KIX_BUF_INIT, d = KIX_BUF_INIT;
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&b, "<"));
        ASSERT_EQ_INT(KIX_OK, kix_base64_encode(data, n, &b));
        ASSERT_EQ_INT(1 + kix_base64_encoded_len(n), b.len);
        ASSERT_EQ_INT(0, b.ptr[b.len]);
        ASSERT_EQ_INT(KIX_OK, kix_base64_decode_buf((const char *)b.ptr + 1, b.len - 1, n, &d));
        ASSERT_EQ_MEM(data, n, d.ptr, d.len);
        kix_buf_release(&b);
        kix_buf_release(&d);
    }
    {
        struct kix_buf b = KIX_BUF_INIT;
        ASSERT_EQ_INT(KIX_OK, kix_base64_encode((const uint8_t *)"\xfb\xff", 2, &b));
        ASSERT_EQ_STR("+/8=", (const char *)b.ptr);
        kix_buf_release(&b);
    }
}

KIX_TEST(json_string_jcs)
{
    struct kix_buf b = KIX_BUF_INIT;
    const char in[] = "a\"b\\c\b\t\n\f\r\x01\x1f\x7f/\xc3\xbc\xe2\x80\xa8";

    ASSERT_EQ_INT(KIX_OK, kix_canon_string(in, sizeof(in) - 1, &b));
    ASSERT_EQ_STR("\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001f\x7f/\xc3\xbc\xe2\x80\xa8\"",
                  (const char *)b.ptr);
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_canon_string("", 0, &b));
    ASSERT_EQ_STR("\"\"", (const char *)b.ptr);
    kix_buf_release(&b);
}

KIX_TEST(utf8_validation)
{
    ASSERT_EQ_INT(1, kix_utf8_valid("", 0));
    ASSERT_EQ_INT(1, kix_utf8_valid("h\xc3\xa9\xe0\xb2\xa0\xf0\x9f\x98\x80", 10));
    ASSERT_EQ_INT(0, kix_utf8_valid("a\0b", 3));             /* NUL */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xc0\xaf", 2));         /* overlong */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xc3", 1));             /* truncated */
    ASSERT_EQ_INT(0, kix_utf8_valid("\x80", 1));             /* lone continuation */
    ASSERT_EQ_INT(0, kix_utf8_valid("\xff", 1));
    /* ASCII is read eight bytes at a time: a NUL, a bad byte, a truncated
     * or a good sequence at every offset of a longer text, of every length */
    for (size_t len = 1; len <= 40; len++)
        for (size_t at = 0; at < len; at++) {
            char t[48];
            memset(t, 'a', sizeof(t));
            ASSERT_EQ_INT(1, kix_utf8_valid(t, len));
            t[at] = '\0';
            ASSERT_EQ_INT(0, kix_utf8_valid(t, len));
            t[at] = (char)0x80;
            ASSERT_EQ_INT(0, kix_utf8_valid(t, len));
            t[at] = (char)0xc3;
            ASSERT_EQ_INT(0, kix_utf8_valid(t, len)); /* truncated, or before an 'a' */
            t[at + 1] = (char)0xa9;
            ASSERT_EQ_INT(at + 1 < len, kix_utf8_valid(t, len));
        }
}

KIX_TEST(sign_matches_vector_bytes)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    const char *want = "{\"payload\":\"aGVsbG8gd29ybGQ=\",\"payloadType\":\"" HELLO_TYPE
                       "\",\"signatures\":[{\"sig\":\"" HELLO_SIG "\"}]}";

    test_keypair(pk, sk);
    /* Ed25519 is deterministic: signing the vector's message reproduces its sig. */
    ASSERT_EQ_INT(KIX_OK, kix_dsse_sign(HELLO_TYPE, (const uint8_t *)"hello world", 11, sk, NULL,
                                        &out, &err));
    ASSERT_EQ_STR(want, (const char *)out.ptr);
    kix_buf_release(&out);
}

KIX_TEST(keyid_of_public_key)
{
    uint8_t pk[32], sk[64], h[32];
    char id[KIX_DSSE_KEYID_HEX_LEN + 1], want[65];

    test_keypair(pk, sk);
    kix_dsse_keyid(pk, id);
    crypto_hash_sha256(h, pk, 32);
    sodium_bin2hex(want, sizeof(want), h, 32);
    ASSERT_EQ_STR(want, id);
    ASSERT_EQ_INT(64, strlen(id));
}

KIX_TEST(sign_parse_verify_roundtrip)
{
    struct kix_buf out = KIX_BUF_INIT, again = KIX_BUF_INIT, stmt = KIX_BUF_INIT;
    struct kix_dsse_envelope env;
    struct kix_statement st;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64], digest[32] = {0};
    char keyid[KIX_DSSE_KEYID_HEX_LEN + 1];

    test_keypair(pk, sk);
    kix_dsse_keyid(pk, keyid);
    digest[0] = 0xab;
    ASSERT_EQ_INT(KIX_OK,
                  kix_statement_build("sha256:ab", digest, "https://kernelindex.dev/publication/v1",
                                      "{\"runId\":\"r1\"}", 14, &stmt, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_dsse_sign(KIX_DSSE_INTOTO_TYPE, stmt.ptr, stmt.len, sk, keyid, &out, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(out.ptr, out.len, &env, &err));
    ASSERT_EQ_STR(KIX_DSSE_INTOTO_TYPE, env.payload_type);
    ASSERT_EQ_MEM(stmt.ptr, stmt.len, env.payload.ptr, env.payload.len);
    ASSERT_EQ_INT(1, env.n_sigs);
    ASSERT_EQ_STR(keyid, env.sigs[0].keyid);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, keyid, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, NULL, &err));
    /* The signed bytes are already canonical: encode reproduces them. */
    ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &again, &err));
    ASSERT_EQ_MEM(out.ptr, out.len, again.ptr, again.len);
    /* The payload is the statement. */
    ASSERT_EQ_INT(KIX_OK, kix_statement_parse(env.payload.ptr, env.payload.len, &st, &err));
    ASSERT_EQ_STR("sha256:ab", st.subjects[0].name);
    ASSERT_EQ_MEM(digest, 32, st.subjects[0].sha256, 32);
    ASSERT_EQ_STR("{\"runId\":\"r1\"}", (const char *)st.predicate.ptr);
    kix_statement_release(&st);
    kix_dsse_envelope_release(&env);
    kix_dsse_envelope_release(&env); /* twice is safe */
    kix_buf_release(&out);
    kix_buf_release(&again);
    kix_buf_release(&stmt);
}

/* The canonical layout's reader finds a payload's and a signature's end by
 * the first quote and leaves the rest to the base64 decoder: a backslash,
 * a control, a space or a non-ASCII byte anywhere in either is refused
 * there (the envelope then goes to the JSON parse, whose answer stands),
 * and what it does read is what the JSON parse reads. */
KIX_TEST(canonical_reader_takes_base64_fields_by_their_quote)
{
    static const unsigned char bad[] = {'\\', '\n', 0x01, ' ', 0xc3, 0x80, '"'};
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_dsse_envelope fast, slow;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    char keyid[KIX_DSSE_KEYID_HEX_LEN + 1];
    size_t payload_at, sig_at;

    test_keypair(pk, sk);
    kix_dsse_keyid(pk, keyid);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_sign(HELLO_TYPE, (const uint8_t *)"hello world!", 12, sk, keyid,
                                        &out, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse_canonical(out.ptr, out.len, &fast));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse_json(out.ptr, out.len, &slow, &err));
    ASSERT_EQ_MEM(slow.payload.ptr, slow.payload.len, fast.payload.ptr, fast.payload.len);
    ASSERT_EQ_MEM(slow.sigs[0].sig, slow.sigs[0].sig_len, fast.sigs[0].sig, fast.sigs[0].sig_len);
    kix_dsse_envelope_release(&fast);
    kix_dsse_envelope_release(&slow);
    payload_at = sizeof("{\"payload\":\"") - 1;
    sig_at = (size_t)((const uint8_t *)strstr((const char *)out.ptr, "\"sig\":\"") - out.ptr) + 7;
    for (size_t field = 0; field < 2; field++) {
        size_t start = field ? sig_at : payload_at;
        for (size_t i = start; out.ptr[i] != '"'; i++)
            for (size_t b = 0; b < sizeof(bad); b++) {
                uint8_t keep = out.ptr[i];
                out.ptr[i] = bad[b];
                if (kix_dsse_parse_canonical(out.ptr, out.len, &fast) == KIX_OK)
                    KIX_FAIL_AT("byte 0x%02x at %zu of the %s: read on the fast path", bad[b], i,
                                field ? "signature" : "payload");
                out.ptr[i] = keep;
            }
    }
    kix_buf_release(&out);
}

/* kix_dsse_parse says which reader took the envelope: prepare stores the
 * bytes as they came only when the canonical one did. */
KIX_TEST(parse_says_which_reader_took_the_envelope)
{
    struct kix_buf out = KIX_BUF_INIT, spaced = KIX_BUF_INIT;
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];

    test_keypair(pk, sk);
    ASSERT_EQ_INT(KIX_OK,
                  kix_dsse_sign(HELLO_TYPE, (const uint8_t *)"hello", 5, sk, NULL, &out, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(out.ptr, out.len, &env, &err));
    ASSERT_EQ_INT(1, env.read_canonical);
    kix_dsse_envelope_release(&env);
    ASSERT_EQ_INT(0, env.read_canonical);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&spaced, "{ "));
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&spaced, out.ptr + 1, out.len - 1));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(spaced.ptr, spaced.len, &env, &err));
    ASSERT_EQ_INT(0, env.read_canonical);
    ASSERT_EQ_MEM("hello", 5, env.payload.ptr, env.payload.len);
    kix_dsse_envelope_release(&env);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse_json(out.ptr, out.len, &env, &err));
    ASSERT_EQ_INT(0, env.read_canonical);
    kix_dsse_envelope_release(&env);
    kix_buf_release(&out);
    kix_buf_release(&spaced);
}

KIX_TEST(sign_escapes_type_and_keyid)
{
    struct kix_buf out = KIX_BUF_INIT, again = KIX_BUF_INIT;
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    const char *type = "t\"\\\n\xc3\xbc", *keyid = "k\x01";

    test_keypair(pk, sk);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_sign(type, (const uint8_t *)"", 0, sk, keyid, &out, &err));
    ASSERT_EQ_MEM("{\"payload\":\"\",\"payloadType\":\"t\\\"\\\\\\n\xc3\xbc\",\"signatures\":[{"
                  "\"keyid\":\"k\\u0001\",\"sig\":\"",
                  60, out.ptr, 60);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(out.ptr, out.len, &env, &err));
    ASSERT_EQ_STR(type, env.payload_type);
    ASSERT_EQ_STR(keyid, env.sigs[0].keyid);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, keyid, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &again, &err));
    ASSERT_EQ_MEM(out.ptr, out.len, again.ptr, again.len);
    kix_dsse_envelope_release(&env);
    kix_buf_release(&out);
    kix_buf_release(&again);
}

/* The standard-alphabet spelling of URL-safe base64 text. */
static json_t *to_standard(json_t *str)
{
    char *t = strdup(json_string_value(str));
    json_t *out;
    for (char *p = t; *p; p++)
        *p = *p == '-' ? '+' : *p == '_' ? '/' : *p;
    out = json_string(t);
    free(t);
    return out;
}

KIX_TEST(encode_normalises_urlsafe)
{
    json_t *envs = json_object_get(vectors(), "envelopes");
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_dsse_envelope env, env2;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    json_t *orig = NULL, *std, *sig;
    char *text, *want;
    size_t i;
    json_t *v;

    test_keypair(pk, sk);
    json_array_foreach(envs, i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "id")), "ed25519-urlsafe-base64") == 0)
            orig = json_object_get(v, "envelope");
    }
    ASSERT_TRUE(orig != NULL);
    text = json_dumps(orig, JSON_COMPACT);
    ASSERT_TRUE(strchr(text, '-') && strchr(text, '_'));
    /* Canonical = the same JSON with the standard alphabet in payload and sig. */
    std = json_deep_copy(orig);
    json_object_set_new(std, "payload", to_standard(json_object_get(std, "payload")));
    sig = json_array_get(json_object_get(std, "signatures"), 0);
    json_object_set_new(sig, "sig", to_standard(json_object_get(sig, "sig")));
    want = json_dumps(std, JSON_COMPACT);
    json_decref(std);
    ASSERT_TRUE(strcmp(want, text) != 0);

    ASSERT_EQ_INT(KIX_OK, parse_str(text, &env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &out, &err));
    ASSERT_EQ_STR(want, (const char *)out.ptr);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(out.ptr, out.len, &env2, &err));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env2, pk, NULL, &err));
    ASSERT_EQ_MEM(env.payload.ptr, env.payload.len, env2.payload.ptr, env2.payload.len);
    kix_dsse_envelope_release(&env);
    kix_dsse_envelope_release(&env2);
    kix_buf_release(&out);
    free(text);
    free(want);
}

KIX_TEST(encode_keeps_keyid_presence)
{
    static const char *const inputs[] = {
        "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"keyid\":\"\",\"sig\":\"AA==\"}]"
        "}",
        "{\"payload\":\"aGk=\",\"payloadType\":\"\",\"signatures\":[{\"keyid\":\"a\",\"sig\":"
        "\"AA==\"},{\"sig\":\"AAE=\"}]}",
    };
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_dsse_envelope env;
        struct kix_err err = {0};
        ASSERT_EQ_INT(KIX_OK, parse_str(inputs[i], &env, &err));
        ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &out, &err));
        ASSERT_EQ_STR(inputs[i], (const char *)out.ptr);
        kix_dsse_envelope_release(&env);
        kix_buf_release(&out);
    }
    {
        /* Whitespace and member order are not canonical; encode fixes them. */
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_dsse_envelope env;
        struct kix_err err = {0};
        ASSERT_EQ_INT(KIX_OK,
                      parse_str(" { \"signatures\" : [ {\"sig\":\"AA==\",\"keyid\":\"\\u0041\"} ],"
                                " \"payloadType\":\"t\", \"payload\":\"\" } ",
                                &env, &err));
        ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &out, &err));
        ASSERT_EQ_STR("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"keyid\":\"A\","
                      "\"sig\":\"AA==\"}]}",
                      (const char *)out.ptr);
        kix_dsse_envelope_release(&env);
        kix_buf_release(&out);
    }
}

/* Signs "hello world" with the test key and parses it into env. */
static int signed_hello(struct kix_dsse_envelope *env, uint8_t pk[32])
{
    struct kix_buf out = KIX_BUF_INIT;
    uint8_t sk[64];
    int rc;

    test_keypair(pk, sk);
    rc = kix_dsse_sign(HELLO_TYPE, (const uint8_t *)"hello world", 11, sk, "k1", &out, NULL);
    if (rc == KIX_OK)
        rc = kix_dsse_parse(out.ptr, out.len, env, NULL);
    kix_buf_release(&out);
    return rc;
}

KIX_TEST(tamper_payload_byte)
{
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32];

    ASSERT_EQ_INT(KIX_OK, signed_hello(&env, pk));
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, "k1", &err));
    env.payload.ptr[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, "k1", &err));
    ASSERT_CONTAINS(err.msg, "does not verify");
    env.payload.ptr[0] ^= 1;
    env.payload.len--; /* truncation */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, "k1", &err));
    kix_dsse_envelope_release(&env);
}

KIX_TEST(tamper_type)
{
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32];

    ASSERT_EQ_INT(KIX_OK, signed_hello(&env, pk));
    env.payload_type[7] = 'E'; /* "http://e" -> "http://E" */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
    ASSERT_CONTAINS(err.msg, "does not verify");
    env.payload_type[7] = 'e';
    ASSERT_EQ_INT(KIX_OK, kix_dsse_verify(&env, pk, NULL, &err));
    /* Moving a byte from the type to the body changes PAE's lengths. */
    env.payload_type_len--;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
    kix_dsse_envelope_release(&env);
}

KIX_TEST(tamper_sig_byte)
{
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32];

    ASSERT_EQ_INT(KIX_OK, signed_hello(&env, pk));
    for (size_t i = 0; i < 64; i += 21) {
        env.sigs[0].sig[i] ^= 0x80;
        ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
        ASSERT_CONTAINS(err.msg, "does not verify");
        env.sigs[0].sig[i] ^= 0x80;
    }
    env.sigs[0].sig_len = 63;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
    kix_dsse_envelope_release(&env);
}

KIX_TEST(wrong_key_and_keyid)
{
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32], pk2[32], sk2[64];

    ASSERT_EQ_INT(KIX_OK, signed_hello(&env, pk));
    crypto_sign_keypair(pk2, sk2);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk2, NULL, &err));
    ASSERT_CONTAINS(err.msg, "another key");
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, "k2", &err));
    ASSERT_CONTAINS(err.msg, "keyid k2");
    env.n_sigs = 0;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_dsse_verify(&env, pk, NULL, &err));
    ASSERT_CONTAINS(err.msg, "no signatures");
    kix_dsse_envelope_release(&env);
}

/* Builds {"payload":P,"payloadType":T,"signatures":[S]} with repeated parts. */
static void build_env(struct kix_buf *b, size_t payload_b64, size_t type_len, size_t nsigs,
                      size_t keyid_len, size_t sig_bytes)
{
    uint8_t sig[600] = {0};
    int rc = 0;

    kix_buf_reset(b);
    rc |= kix_buf_adds(b, "{\"payload\":\"");
    for (size_t i = 0; i < payload_b64; i++)
        rc |= kix_buf_addc(b, 'A');
    rc |= kix_buf_adds(b, "\",\"payloadType\":\"");
    for (size_t i = 0; i < type_len; i++)
        rc |= kix_buf_addc(b, 't');
    rc |= kix_buf_adds(b, "\",\"signatures\":[");
    for (size_t s = 0; s < nsigs; s++) {
        rc |= kix_buf_adds(b, s ? ",{\"keyid\":\"" : "{\"keyid\":\"");
        for (size_t i = 0; i < keyid_len; i++)
            rc |= kix_buf_addc(b, 'k');
        rc |= kix_buf_adds(b, "\",\"sig\":\"");
        rc |= kix_base64_encode(sig, sig_bytes, b);
        rc |= kix_buf_adds(b, "\"}");
    }
    rc |= kix_buf_adds(b, "]}");
    if (rc)
        abort();
}

static int parse_buf(const struct kix_buf *b, struct kix_err *err)
{
    struct kix_dsse_envelope env;
    int rc = kix_dsse_parse(b->ptr, b->len, &env, err);
    kix_dsse_envelope_release(&env);
    return rc;
}

KIX_TEST(parse_bounds)
{
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_err err = {0};

    /* At each limit: accepted. */
    build_env(&b, 4, 256, 8, 128, 512);
    ASSERT_EQ_INT(KIX_OK, parse_buf(&b, &err));

    build_env(&b, 4, 257, 1, 0, 64);
    ASSERT_EQ_INT(KIX_ELIMIT, parse_buf(&b, &err));
    ASSERT_CONTAINS(err.msg, "payloadType is 257 bytes");

    build_env(&b, 4, 1, 9, 0, 64);
    ASSERT_EQ_INT(KIX_ELIMIT, parse_buf(&b, &err));
    ASSERT_CONTAINS(err.msg, "signatures has 9 entries");

    build_env(&b, 4, 1, 2, 129, 64);
    ASSERT_EQ_INT(KIX_ELIMIT, parse_buf(&b, &err));
    ASSERT_CONTAINS(err.msg, "signatures[0].keyid is 129 bytes");

    build_env(&b, 4, 1, 1, 0, 513);
    ASSERT_EQ_INT(KIX_ELIMIT, parse_buf(&b, &err));
    ASSERT_CONTAINS(err.msg, "signatures[0].sig decodes to more than 512");

    /* The whole envelope: 65535 bytes pass, 65536 do not. */
    build_env(&b, 4, 1, 1, 0, 64);
    {
        size_t base = b.len, fill = (65535 - base) / 4 * 4;
        build_env(&b, 4 + fill, 1, 1, 0, 64);
        while (b.len < 65535)
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&b, ' '));
        ASSERT_EQ_INT(65535, b.len);
        ASSERT_EQ_INT(KIX_OK, parse_buf(&b, &err));
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&b, ' '));
        ASSERT_EQ_INT(KIX_ELIMIT, parse_buf(&b, &err));
        ASSERT_CONTAINS(err.msg, "envelope is 65536 bytes");
        ASSERT_CONTAINS(err.msg, "65535");
    }
    kix_buf_release(&b);
}

KIX_TEST(parse_rejects_malformed)
{
    static const struct {
        const char *json;
        const char *needle;
    } cases[] = {
        {"", "not valid JSON"},
        {"{", "not valid JSON"},
        {"[]", "not a JSON object"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}x",
         "not valid JSON"},
        {"{\"payload\":\"\",\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":"
         "\"AA==\"}]}",
         "duplicate"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}],\"x\":1}",
         "unknown field \"x\""},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\",\"alg\":"
         "\"e\"}]}",
         "signatures[0] has unknown field \"alg\""},
        {"{\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}", "no payload field"},
        {"{\"payload\":\"\",\"signatures\":[{\"sig\":\"AA==\"}]}", "no payloadType field"},
        {"{\"payload\":\"\",\"payloadType\":\"t\"}", "no signatures field"},
        {"{\"payload\":1,\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}",
         "payload is not a string"},
        {"{\"payload\":\"\",\"payloadType\":null,\"signatures\":[{\"sig\":\"AA==\"}]}",
         "payloadType is not a string"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":{}}",
         "signatures is not an array"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[]}", "signatures is empty"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[\"AA==\"]}",
         "signatures[0] is not an object"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"keyid\":\"a\"}]}",
         "signatures[0] has no sig field"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":7}]}",
         "signatures[0].sig is not a string"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"},{\"keyid\":"
         "1,\"sig\":\"AA==\"}]}",
         "signatures[1].keyid is not a string"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}",
         "signatures[0].sig is empty"},
        {"{\"payload\":\"aGVsbG8gd29ybGQ\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":"
         "\"AA==\"}]}",
         "payload is not padded base64"},
        {"{\"payload\":\"aGk=\\n\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}",
         "payload is not padded base64"},
        {"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"+_8=\"}]}",
         "signatures[0].sig is not padded base64"},
        {"{\"payload\":\"\",\"payloadType\":\"t\\u0000\",\"signatures\":[{\"sig\":\"AA==\"}]}",
         "not valid JSON"},
        {"{\"payload\":\"\",\"payloadType\":\"\\ud800\",\"signatures\":[{\"sig\":\"AA==\"}]}",
         "not valid JSON"},
        {"{\"payload\":\"\",\"payloadType\":\"\xff\",\"signatures\":[{\"sig\":\"AA==\"}]}",
         "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_dsse_envelope env;
        struct kix_err err = {0};
        int rc = parse_str(cases[i].json, &env, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].needle))
            fprintf(stderr, "case %zu: %s\n", i, cases[i].json);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_CONTAINS(err.msg, cases[i].needle);
        ASSERT_EQ_INT(0, env.n_sigs);
        ASSERT_EQ_INT(0, env.payload.len);
        kix_dsse_envelope_release(&env);
    }
}

KIX_TEST(sign_rejects)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t pk[32], sk[64];
    char type[300], keyid[200];
    uint8_t *big = calloc(1, 50000);

    ASSERT_TRUE(big != NULL);
    test_keypair(pk, sk);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&out, "abc"));
    memset(type, 't', sizeof(type));
    type[257] = '\0';
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_sign(type, big, 1, sk, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "payloadType is 257 bytes");
    type[256] = '\0';
    memset(keyid, 'k', sizeof(keyid));
    keyid[129] = '\0';
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_sign(type, big, 1, sk, keyid, &out, &err));
    ASSERT_CONTAINS(err.msg, "keyid is 129 bytes");
    ASSERT_EQ_INT(KIX_EINVAL, kix_dsse_sign("a\xc3", big, 1, sk, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "payloadType is not valid UTF-8");
    ASSERT_EQ_INT(KIX_EINVAL, kix_dsse_sign("t", big, 1, sk, "\xff", &out, &err));
    ASSERT_CONTAINS(err.msg, "keyid is not valid UTF-8");
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_sign("t", big, 50000, sk, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "65535-byte log leaf limit");
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_sign("t", big, 70000, sk, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "payload is 70000 bytes");
    /* out kept its content through every failure. */
    ASSERT_EQ_INT(3, out.len);
    ASSERT_EQ_STR("abc", (const char *)out.ptr);
    /* 48000 bytes fit (64000 base64 characters). */
    ASSERT_EQ_INT(KIX_OK, kix_dsse_sign("t", big, 48000, sk, NULL, &out, &err));
    ASSERT_TRUE(out.len > 64003 && out.len <= 65538);
    free(big);
    kix_buf_release(&out);
}

KIX_TEST(encode_rejects)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_dsse_envelope env;
    struct kix_err err = {0};
    uint8_t pk[32];

    ASSERT_EQ_INT(KIX_OK, signed_hello(&env, pk));
    env.n_sigs = 0;
    ASSERT_EQ_INT(KIX_EINVAL, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "signatures is empty");
    env.n_sigs = 9;
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "signatures has 9");
    env.n_sigs = 1;
    env.sigs[0].sig_len = 0;
    ASSERT_EQ_INT(KIX_EINVAL, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "signatures[0].sig is 0 bytes");
    env.sigs[0].sig_len = 513;
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "signatures[0].sig is 513 bytes");
    env.sigs[0].sig_len = 64;
    env.sigs[0].keyid_len = 129;
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "keyid is 129 bytes");
    env.sigs[0].keyid_len = 2;
    env.payload_type_len = 257;
    ASSERT_EQ_INT(KIX_ELIMIT, kix_dsse_encode(&env, &out, &err));
    ASSERT_CONTAINS(err.msg, "payloadType is 257 bytes");
    env.payload_type_len = strlen(HELLO_TYPE);
    ASSERT_EQ_INT(0, out.len);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&env, &out, &err));
    kix_dsse_envelope_release(&env);
    kix_buf_release(&out);
}

/* ---- statements ---------------------------------------------------------- */

#define PUB_TYPE "https://kernelindex.dev/publication/v1"

KIX_TEST(statement_build_exact)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t digest[32];

    crypto_hash_sha256(digest, (const uint8_t *)"", 0);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&out, ">"));
    ASSERT_EQ_INT(KIX_OK, kix_statement_build("run \"1\"\n", digest, PUB_TYPE, "{\"a\":[1,{}]}", 12,
                                              &out, &err));
    ASSERT_EQ_STR(">{\"_type\":\"https://in-toto.io/Statement/v1\",\"predicate\":{\"a\":[1,{}]},"
                  "\"predicateType\":\"" PUB_TYPE
                  "\",\"subject\":[{\"digest\":{\"sha256\":\"" EMPTY_SHA
                  "\"},\"name\":\"run \\\"1\\\"\\n\"}]}",
                  (const char *)out.ptr);
    kix_buf_release(&out);
}

KIX_TEST(statement_roundtrip)
{
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_statement st;
    struct kix_err err = {0};
    uint8_t digest[32];
    const char *pred = "{\"b\":{\"y\":[true,null,\"s\"],\"x\":2},\"a\":\"\xc3\xbc\"}";

    for (int i = 0; i < 32; i++)
        digest[i] = (uint8_t)(i * 7);
    ASSERT_EQ_INT(KIX_OK, kix_statement_build("r\xc3\xa9sultat", digest, PUB_TYPE, pred,
                                              strlen(pred), &out, &err));
    ASSERT_EQ_INT(KIX_OK, kix_statement_parse(out.ptr, out.len, &st, &err));
    ASSERT_EQ_INT(1, st.n_subjects);
    ASSERT_EQ_STR("r\xc3\xa9sultat", st.subjects[0].name);
    ASSERT_EQ_INT(9, st.subjects[0].name_len);
    ASSERT_EQ_MEM(digest, 32, st.subjects[0].sha256, 32);
    ASSERT_EQ_STR(PUB_TYPE, st.predicate_type);
    ASSERT_EQ_INT(strlen(PUB_TYPE), st.predicate_type_len);
    /* Compact, keys sorted bytewise. */
    ASSERT_EQ_STR("{\"a\":\"\xc3\xbc\",\"b\":{\"x\":2,\"y\":[true,null,\"s\"]}}",
                  (const char *)st.predicate.ptr);
    kix_statement_release(&st);
    kix_statement_release(&st);
    kix_buf_release(&out);
}

KIX_TEST(statement_parse_vector_and_subjects)
{
    json_t *pae = json_object_get(vectors(), "pae");
    struct kix_statement st;
    struct kix_err err = {0};
    struct kix_buf b = KIX_BUF_INIT;
    const char *text = NULL;
    size_t i;
    json_t *v;

    json_array_foreach(pae, i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "id")), "computed-in-toto-statement") == 0)
            text = json_string_value(json_object_get(v, "payload_utf8"));
    }
    ASSERT_TRUE(text != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_statement_parse((const uint8_t *)text, strlen(text), &st, &err));
    ASSERT_EQ_INT(1, st.n_subjects);
    ASSERT_EQ_STR("a.txt", st.subjects[0].name);
    ASSERT_EQ_INT(0xe3, st.subjects[0].sha256[0]);
    ASSERT_EQ_INT(0x55, st.subjects[0].sha256[31]);
    ASSERT_EQ_STR("https://slsa.dev/provenance/v1", st.predicate_type);
    ASSERT_EQ_STR("{}", (const char *)st.predicate.ptr);
    kix_statement_release(&st);

    /* 16 subjects pass, 17 do not. */
    for (int n = 16; n <= 17; n++) {
        int rc = 0;
        kix_buf_reset(&b);
        rc |= kix_buf_adds(&b, "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[");
        for (int s = 0; s < n; s++)
            rc |= kix_buf_addf(&b, "%s{\"name\":\"n%d\",\"digest\":{\"sha256\":\"%s\"}}",
                               s ? "," : "", s, EMPTY_SHA);
        rc |= kix_buf_adds(&b, "],\"predicateType\":\"p\",\"predicate\":{}}");
        ASSERT_EQ_INT(0, rc);
        rc = kix_statement_parse(b.ptr, b.len, &st, &err);
        if (n == 16) {
            ASSERT_EQ_INT(KIX_OK, rc);
            ASSERT_EQ_INT(16, st.n_subjects);
            ASSERT_EQ_STR("n0", st.subjects[0].name);
            ASSERT_EQ_STR("n15", st.subjects[15].name);
        } else {
            ASSERT_EQ_INT(KIX_ELIMIT, rc);
            ASSERT_CONTAINS(err.msg, "subject has 17 entries");
        }
        kix_statement_release(&st);
    }
    kix_buf_release(&b);
}

KIX_TEST(statement_build_rejects)
{
    static const struct {
        const char *name, *type, *pred;
        int rc;
        const char *needle;
    } cases[] = {
        {"", "p", "{}", KIX_EINVAL, "subject name is empty"},
        {"n\xc3", "p", "{}", KIX_EINVAL, "subject name is not valid UTF-8"},
        {"n", "", "{}", KIX_EINVAL, "predicateType is empty"},
        {"n", "p\xff", "{}", KIX_EINVAL, "predicateType is not valid UTF-8"},
        {"n", "p", "[1]", KIX_EINVAL, "predicate must be canonical JSON of an object"},
        {"n", "p", " {}", KIX_EINVAL, "predicate must be canonical JSON of an object"},
        {"n", "p", "{} ", KIX_EINVAL, "predicate must be canonical JSON of an object"},
        {"n", "p", "", KIX_EINVAL, "predicate must be canonical JSON of an object"},
        {"n", "p", "{\"a\":1,\"a\":2}", KIX_EINVAL, "predicate is not valid JSON"},
        {"n", "p", "{}{}", KIX_EINVAL, "predicate is not valid JSON"},
        {"n", "p", "{\"a\":}", KIX_EINVAL, "predicate is not valid JSON"},
    };
    uint8_t digest[32] = {0};
    char name[1100], type[300];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_err err = {0};
        int rc = kix_statement_build(cases[i].name, digest, cases[i].type, cases[i].pred,
                                     strlen(cases[i].pred), &out, &err);
        if (rc != cases[i].rc)
            fprintf(stderr, "case %zu\n", i);
        ASSERT_EQ_INT(cases[i].rc, rc);
        ASSERT_CONTAINS(err.msg, cases[i].needle);
        ASSERT_EQ_INT(0, out.len);
        kix_buf_release(&out);
    }
    {
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_err err = {0};
        memset(name, 'n', sizeof(name));
        name[1024] = '\0';
        memset(type, 't', sizeof(type));
        type[256] = '\0';
        ASSERT_EQ_INT(KIX_OK, kix_statement_build(name, digest, type, "{}", 2, &out, &err));
        name[1025] = '\0';
        name[1024] = 'n';
        ASSERT_EQ_INT(KIX_ELIMIT, kix_statement_build(name, digest, "p", "{}", 2, &out, &err));
        ASSERT_CONTAINS(err.msg, "subject name is 1025 bytes");
        type[257] = '\0';
        type[256] = 't';
        ASSERT_EQ_INT(KIX_ELIMIT, kix_statement_build("n", digest, type, "{}", 2, &out, &err));
        ASSERT_CONTAINS(err.msg, "predicateType is 257 bytes");
        ASSERT_EQ_INT(KIX_ELIMIT, kix_statement_build("n", digest, "p", "{}", 70000, &out, &err));
        ASSERT_CONTAINS(err.msg, "predicate is 70000 bytes");
        kix_buf_release(&out);
    }
}

KIX_TEST(statement_parse_rejects)
{
#define ST_HEAD "{\"_type\":\"https://in-toto.io/Statement/v1\","
#define ST_SUB  "\"subject\":[{\"name\":\"a\",\"digest\":{\"sha256\":\"" EMPTY_SHA "\"}}]"
#define ST_TAIL "\"predicateType\":\"p\",\"predicate\":{}}"
    static const struct {
        const char *json;
        int rc;
        const char *needle;
    } cases[] = {
        {ST_HEAD ST_SUB "," ST_TAIL, KIX_OK, ""},
        {"", KIX_EINVAL, "not valid JSON"},
        {"[]", KIX_EINVAL, "statement is not a JSON object"},
        {ST_HEAD ST_SUB "," ST_TAIL "x", KIX_EINVAL, "not valid JSON"},
        {ST_HEAD ST_SUB ",\"x\":1," ST_TAIL, KIX_EINVAL, "unknown field \"x\""},
        {ST_HEAD ST_SUB "," ST_SUB "," ST_TAIL, KIX_EINVAL, "duplicate"},
        {"{" ST_SUB "," ST_TAIL, KIX_EINVAL, "has no _type"},
        {"{\"_type\":\"https://in-toto.io/Statement/v0.1\"," ST_SUB "," ST_TAIL, KIX_EINVAL,
         "_type is not"},
        {"{\"_type\":1," ST_SUB "," ST_TAIL, KIX_EINVAL, "_type is not"},
        {ST_HEAD ST_TAIL, KIX_EINVAL, "has no subject"},
        {ST_HEAD "\"subject\":{}," ST_TAIL, KIX_EINVAL, "subject is not an array"},
        {ST_HEAD "\"subject\":[]," ST_TAIL, KIX_EINVAL, "subject is empty"},
        {ST_HEAD "\"subject\":[1]," ST_TAIL, KIX_EINVAL, "subject[0] is not an object"},
        {ST_HEAD "\"subject\":[{\"digest\":{\"sha256\":\"" EMPTY_SHA "\"}}]," ST_TAIL, KIX_EINVAL,
         "subject[0] has no name"},
        {ST_HEAD "\"subject\":[{\"name\":2,\"digest\":{\"sha256\":\"" EMPTY_SHA "\"}}]," ST_TAIL,
         KIX_EINVAL, "subject[0].name is not a string"},
        {ST_HEAD "\"subject\":[{\"name\":\"\",\"digest\":{\"sha256\":\"" EMPTY_SHA "\"}}]," ST_TAIL,
         KIX_EINVAL, "subject[0].name is empty"},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"uri\":\"u\",\"digest\":{\"sha256\":\"" EMPTY_SHA
                 "\"}}]," ST_TAIL,
         KIX_EINVAL, "subject[0] has unknown field \"uri\""},
        {ST_HEAD "\"subject\":[{\"name\":\"a\"}]," ST_TAIL, KIX_EINVAL, "subject[0] has no digest"},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"digest\":\"x\"}]," ST_TAIL, KIX_EINVAL,
         "subject[0].digest is not an object"},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"digest\":{}}]," ST_TAIL, KIX_EINVAL,
         "subject[0].digest has no sha256"},
        {ST_HEAD
         "\"subject\":[{\"name\":\"a\",\"digest\":{\"sha512\":\"00\",\"sha256\":\"" EMPTY_SHA
         "\"}}]," ST_TAIL,
         KIX_EINVAL, "unknown algorithm \"sha512\""},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"digest\":{\"sha256\":"
                 "\"E3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}}]," ST_TAIL,
         KIX_EINVAL, "subject[0].digest.sha256 is not 64 lowercase hex"},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"digest\":{\"sha256\":"
                 "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85\"}}]," ST_TAIL,
         KIX_EINVAL, "subject[0].digest.sha256 is not 64 lowercase hex"},
        {ST_HEAD "\"subject\":[{\"name\":\"a\",\"digest\":{\"sha256\":1}}]," ST_TAIL, KIX_EINVAL,
         "subject[0].digest.sha256 is not 64 lowercase hex"},
        {ST_HEAD ST_SUB ",\"predicate\":{}}", KIX_EINVAL, "has no predicateType"},
        {ST_HEAD ST_SUB ",\"predicateType\":[],\"predicate\":{}}", KIX_EINVAL,
         "predicateType is not a string"},
        {ST_HEAD ST_SUB ",\"predicateType\":\"\",\"predicate\":{}}", KIX_EINVAL,
         "predicateType is empty"},
        {ST_HEAD ST_SUB ",\"predicateType\":\"p\"}", KIX_EINVAL, "has no predicate"},
        {ST_HEAD ST_SUB ",\"predicateType\":\"p\",\"predicate\":[]}", KIX_EINVAL,
         "predicate is not a JSON object"},
        {ST_HEAD ST_SUB ",\"predicateType\":\"p\",\"predicate\":{\"a\":1,\"a\":1}}", KIX_EINVAL,
         "duplicate"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_statement st;
        struct kix_err err = {0};
        int rc =
            kix_statement_parse((const uint8_t *)cases[i].json, strlen(cases[i].json), &st, &err);
        if (rc != cases[i].rc || !strstr(err.msg, cases[i].needle))
            fprintf(stderr, "case %zu: %s\n", i, cases[i].json);
        ASSERT_EQ_INT(cases[i].rc, rc);
        ASSERT_CONTAINS(err.msg, cases[i].needle);
        if (rc)
            ASSERT_EQ_INT(0, st.n_subjects);
        kix_statement_release(&st);
    }
}

/* A canonical statement (kix_statement_build's) is read in kix_canon's one
 * pass, not by jansson's parser, and reads as jansson reads it: the same
 * predicate tree (types too: json_equal tells an integer from a real), the
 * same refusals. A \u0000 escape and an integer literal of 19 digits or
 * more, where kix_canon goes beyond jansson, still go to jansson. */
KIX_TEST(statement_canonical_takes_one_pass_and_reads_as_jansson)
{
    static const struct {
        const char *pred;
        int rc;   /* what jansson's parse gives */
        int pass; /* read in the one pass */
    } cases[] = {
        {"{\"a\":[1,{}]}", KIX_OK, 1},
        {"{\"a\":\"\\u001f\",\"r\":1.5,\"t\":[true,false,null],\"x\":-123456789012345680}", KIX_OK,
         1},
        {"{\"e\":1e+30,\"f\":0.000001,\"g\":-0.5}", KIX_OK, 1},
        {"{\"n\":1000000000000000000}", KIX_OK, 0},
        {"{\"n\":100000000000000000000}", KIX_EINVAL, 0},
        {"{\"s\":\"a\\u0000b\"}", KIX_EINVAL, 0},
        {"{\"s\":\"digits 1234567890123456789 in a string\"}", KIX_OK, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_statement st;
        struct kix_err err = {0};
        json_error_t jerr;
        json_t *pred = NULL, *ref;
        uint64_t before;
        int rc;

        fprintf(stderr, "case %zu: %s\n", i, cases[i].pred);
        /* written out (kix_statement_build refuses what jansson refuses),
         * with a digest of 64 digits: a string's digits are no number */
        ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&out,
                                           "{\"_type\":\"https://in-toto.io/Statement/v1\","
                                           "\"predicate\":%s,\"predicateType\":\"" PUB_TYPE
                                           "\",\"subject\":[{\"digest\":{\"sha256\":\"%063d1\"},"
                                           "\"name\":\"n\"}]}",
                                           cases[i].pred, 0));
        ASSERT_TRUE(kix_canon_is_canonical(out.ptr, out.len, NULL));
        ref = json_loadb((const char *)out.ptr, out.len, JSON_REJECT_DUPLICATES, &jerr);
        ASSERT_EQ_INT(cases[i].rc == KIX_OK, ref != NULL);
        before = kix_statement_jansson_parses();
        rc = kix_statement_parse_tree(out.ptr, out.len, &st, &pred, &err);
        ASSERT_EQ_INT(cases[i].rc, rc);
        ASSERT_EQ_U64(before + !cases[i].pass, kix_statement_jansson_parses());
        if (rc == KIX_OK)
            ASSERT_TRUE(json_equal(pred, json_object_get(ref, "predicate")));
        else
            ASSERT_CONTAINS(err.msg, "statement is not valid JSON");
        json_decref(pred);
        json_decref(ref);
        kix_statement_release(&st);
        kix_buf_release(&out);
    }
    /* the same statement spelled otherwise goes to jansson */
    {
        static const char text[] = ST_HEAD ST_SUB "," ST_TAIL;
        struct kix_statement st;
        struct kix_err err = {0};
        uint64_t before = kix_statement_jansson_parses();
        ASSERT_EQ_INT(KIX_OK, kix_statement_parse((const uint8_t *)text, strlen(text), &st, &err));
        ASSERT_EQ_U64(before + 1, kix_statement_jansson_parses());
        kix_statement_release(&st);
    }
}

KIX_TEST(statement_parse_bounds)
{
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_statement st;
    struct kix_err err = {0};
    int rc;

    for (int n = 1024; n <= 1025; n++) {
        kix_buf_reset(&b);
        rc = kix_buf_adds(&b, ST_HEAD "\"subject\":[{\"name\":\"");
        for (int i = 0; i < n && !rc; i++)
            rc = kix_buf_addc(&b, 'n');
        rc |= kix_buf_adds(&b, "\",\"digest\":{\"sha256\":\"" EMPTY_SHA "\"}}]," ST_TAIL);
        ASSERT_EQ_INT(0, rc);
        rc = kix_statement_parse(b.ptr, b.len, &st, &err);
        ASSERT_EQ_INT(n == 1024 ? KIX_OK : KIX_ELIMIT, rc);
        if (rc)
            ASSERT_CONTAINS(err.msg, "subject[0].name is 1025 bytes");
        else
            ASSERT_EQ_INT(1024, st.subjects[0].name_len);
        kix_statement_release(&st);
    }
    for (int n = 256; n <= 257; n++) {
        kix_buf_reset(&b);
        rc = kix_buf_adds(&b, ST_HEAD ST_SUB ",\"predicateType\":\"");
        for (int i = 0; i < n && !rc; i++)
            rc = kix_buf_addc(&b, 'p');
        rc |= kix_buf_adds(&b, "\",\"predicate\":{}}");
        ASSERT_EQ_INT(0, rc);
        rc = kix_statement_parse(b.ptr, b.len, &st, &err);
        ASSERT_EQ_INT(n == 256 ? KIX_OK : KIX_ELIMIT, rc);
        if (rc)
            ASSERT_CONTAINS(err.msg, "predicateType is 257 bytes");
        kix_statement_release(&st);
    }
    /* The whole statement. */
    kix_buf_reset(&b);
    rc = kix_buf_adds(&b, ST_HEAD ST_SUB "," ST_TAIL);
    while (!rc && b.len < 65536)
        rc = kix_buf_addc(&b, ' ');
    ASSERT_EQ_INT(0, rc);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_statement_parse(b.ptr, b.len, &st, &err));
    ASSERT_CONTAINS(err.msg, "statement is 65536 bytes");
    ASSERT_EQ_INT(KIX_OK, kix_statement_parse(b.ptr, b.len - 1, &st, &err));
    kix_statement_release(&st);
    kix_buf_release(&b);
}

KIX_TEST_MAIN()
