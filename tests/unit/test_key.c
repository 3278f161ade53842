/* Keys: verifier/signer text forms, key hashes, key ids, key files. */
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kix/note.h"

static json_t *load_vectors(void)
{
    size_t len = 0;
    char *text = kix_test_read_file("vectors/note/vectors.json", &len);
    json_t *root;
    json_error_t jerr;

    if (!text)
        return NULL;
    root = json_loadb(text, len, 0, &jerr);
    free(text);
    return root;
}

static int unhex(const char *hex, uint8_t *out, size_t n)
{
    size_t got = 0;
    if (strlen(hex) != 2 * n)
        return -1;
    if (sodium_hex2bin(out, n, hex, 2 * n, NULL, &got, NULL) != 0 || got != n)
        return -1;
    return 0;
}

static const char *jstr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int same_verifier(const struct kix_verifier *a, const struct kix_verifier *b)
{
    return strcmp(a->name, b->name) == 0 && a->alg == b->alg && a->key_hash == b->key_hash &&
           memcmp(a->pub, b->pub, 32) == 0;
}

#define PETER_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
#define PETER_SKEY "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
#define PETER_TEXT                                                                                 \
    "If you think cryptography is the answer to your problem,\n"                                   \
    "then you don't know what your problem is.\n"
#define PETER_SIG_B64                                                                              \
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM="

KIX_TEST(vector_keys_hashes_and_round_trip)
{
    json_t *root = load_vectors(), *keys, *k;
    size_t i;

    ASSERT_TRUE(root != NULL);
    keys = json_object_get(root, "keys");
    ASSERT_EQ_INT(7, json_array_size(keys));
    json_array_foreach(keys, i, k)
    {
        struct kix_verifier v;
        struct kix_err err = {0};
        struct kix_buf b = KIX_BUF_INIT;
        const char *vkey = jstr(k, "verifier_key");
        uint8_t pub[32];
        char want_hash[9];
        int rc = kix_verifier_parse(vkey, strlen(vkey), &v, &err);

        if (rc != KIX_OK)
            fprintf(stderr, "key %zu: %s\n", i, err.msg);
        ASSERT_EQ_INT(KIX_OK, rc);
        ASSERT_EQ_STR(jstr(k, "name"), v.name);
        ASSERT_EQ_INT(KIX_NOTE_ALG_ED25519, v.alg);
        snprintf(want_hash, sizeof(want_hash), "%08x", v.key_hash);
        ASSERT_EQ_STR(jstr(k, "key_id_hex"), want_hash);
        ASSERT_EQ_INT(0, unhex(jstr(k, "ed25519_public_key_hex"), pub, 32));
        ASSERT_EQ_MEM(pub, 32, v.pub, 32);
        ASSERT_EQ_U64(v.key_hash, kix_note_key_hash(v.name, strlen(v.name), 1, pub));
        ASSERT_EQ_INT(KIX_OK, kix_verifier_format(&v, &b));
        ASSERT_EQ_STR(vkey, (const char *)b.ptr);
        kix_buf_release(&b);
    }
    json_decref(root);
}

KIX_TEST(bad_verifier_keys_rejected)
{
    json_t *root = load_vectors(), *bad, *k;
    size_t i;

    ASSERT_TRUE(root != NULL);
    bad = json_object_get(root, "bad_verifier_keys");
    ASSERT_EQ_INT(2, json_array_size(bad));
    json_array_foreach(bad, i, k)
    {
        struct kix_verifier v;
        struct kix_err err = {0};
        const char *vkey = jstr(k, "verifier_key");
        ASSERT_EQ_INT(KIX_EINVAL, kix_verifier_parse(vkey, strlen(vkey), &v, &err));
        ASSERT_CONTAINS(err.msg, "invalid verifier key");
        /* The upstream "why": wrong key length (its base64 also has non-zero
         * trailing bits, which the strict decoder rejects first), or an unknown
         * algorithm byte. */
        ASSERT_CONTAINS(err.msg, i == 0 ? "not valid base64" : "unknown algorithm 0x65");
    }
    json_decref(root);
}

KIX_TEST(verifier_parse_rejections)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "want <name>"},
        {"PeterNeumann", "want <name>"},
        {"+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"Peter\tNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"Peter\xc2\xa0Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
         "bad key name"},
        {"Peter\xe3\x80\x80+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"Peter\xff+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"Peter\xc0\xaf+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "bad key name"},
        {"PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 lowercase hex"},
        {"PeterNeumann+c74f20a+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 lowercase hex"},
        {"PeterNeumann+c74f20a3", "8 lowercase hex"},
        {"PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "does not match"},
        {"PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T", "not valid base64"},
        {"PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW\n",
         "not valid base64"},
        {"PeterNeumann+c74f20a3+", "not valid base64"},
        /* Verifier key text of a private key. */
        {PETER_SKEY, "8 lowercase hex"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_verifier v;
        struct kix_err err = {0};
        int rc = kix_verifier_parse(cases[i].text, strlen(cases[i].text), &v, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].why))
            fprintf(stderr, "case %zu: rc %d msg %s\n", i, rc, err.msg);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_CONTAINS(err.msg, cases[i].why);
    }
}

KIX_TEST(verifier_rejects_wrong_key_length)
{
    /* Canonical base64 of 0x01 and 31, 33 or 0 key bytes (length is checked first). */
    static const size_t lens[] = {31, 33, 0};
    for (size_t i = 0; i < 3; i++) {
        uint8_t key[40];
        char b64[64];
        struct kix_buf b = KIX_BUF_INIT;
        struct kix_verifier v;
        struct kix_err err = {0};

        memset(key, 0x5a, sizeof(key));
        key[0] = 1;
        sodium_bin2base64(b64, sizeof(b64), key, 1 + lens[i], sodium_base64_VARIANT_ORIGINAL);
        ASSERT_EQ_INT(KIX_OK,
                      kix_buf_addf(&b, "x+%08x+%s", kix_note_key_hash("x", 1, 1, key + 1), b64));
        ASSERT_EQ_INT(KIX_EINVAL, kix_verifier_parse((const char *)b.ptr, b.len, &v, &err));
        ASSERT_CONTAINS(err.msg, "want 32");
        kix_buf_release(&b);
    }
}

KIX_TEST(verifier_rejects_invalid_point)
{
    /* A small-order point (the identity) with a correct hash. */
    uint8_t pub[32] = {1};
    struct kix_verifier v;
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t key[33] = {1, 1};
    char b64[64];

    ASSERT_EQ_INT(KIX_EINVAL, kix_verifier_from_public_key("x", 1, pub, &v, &err));
    ASSERT_CONTAINS(err.msg, "not a valid Ed25519 public key");
    ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&b, "x+%08x+", kix_note_key_hash("x", 1, 1, pub)));
    sodium_bin2base64(b64, sizeof(b64), key, sizeof(key), sodium_base64_VARIANT_ORIGINAL);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&b, b64));
    ASSERT_EQ_INT(KIX_EINVAL, kix_verifier_parse((const char *)b.ptr, b.len, &v, &err));
    ASSERT_CONTAINS(err.msg, "not a valid Ed25519 public key");
    kix_buf_release(&b);
}

KIX_TEST(name_rules)
{
    char long_name[300];

    ASSERT_TRUE(kix_note_name_valid("example.com/log42", 17));
    ASSERT_TRUE(kix_note_name_valid("caf\xc3\xa9", 5));
    ASSERT_TRUE(!kix_note_name_valid("", 0));
    ASSERT_TRUE(!kix_note_name_valid("a+b", 3));
    ASSERT_TRUE(!kix_note_name_valid("a b", 3));
    ASSERT_TRUE(!kix_note_name_valid("a\nb", 3));
    ASSERT_TRUE(!kix_note_name_valid("a\xe2\x80\x83", 4)); /* U+2003 EM SPACE */
    ASSERT_TRUE(!kix_note_name_valid("a\xe2\x80\xa8", 4)); /* U+2028 */
    ASSERT_TRUE(!kix_note_name_valid("a\xc2\x85", 3));     /* U+0085 */
    ASSERT_TRUE(!kix_note_name_valid("a\xed\xa0\x80", 4)); /* surrogate */
    memset(long_name, 'a', sizeof(long_name));
    ASSERT_TRUE(kix_note_name_valid(long_name, KIX_NOTE_NAME_MAX));
    ASSERT_TRUE(!kix_note_name_valid(long_name, KIX_NOTE_NAME_MAX + 1));
}

KIX_TEST(peter_signer_parses_and_signs)
{
    struct kix_signer *s = NULL;
    struct kix_err err = {0};
    struct kix_buf b = KIX_BUF_INIT;
    uint8_t sig[64], want[68];
    size_t n = 0;
    uint8_t seed[32];
    const uint8_t *sk;

    ASSERT_EQ_INT(KIX_OK, kix_signer_parse(PETER_SKEY, strlen(PETER_SKEY), &s, &err));
    ASSERT_EQ_STR("PeterNeumann", kix_signer_name(s));
    ASSERT_EQ_INT(1, kix_signer_alg(s));
    ASSERT_EQ_U64(0xc74f20a3u, kix_signer_key_hash(s));
    ASSERT_EQ_INT(KIX_OK, kix_signer_format_verifier(s, &b));
    ASSERT_EQ_STR(PETER_VKEY, (const char *)b.ptr);
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_signer_format_private(s, &b));
    ASSERT_EQ_STR(PETER_SKEY, (const char *)b.ptr);
    sodium_memzero(b.ptr, b.cap);
    kix_buf_release(&b);

    /* The libsodium secret key is seed || public key. */
    ASSERT_EQ_INT(
        0, unhex("810a1402d5146c8d84f2443330f54080ebf98ee17d9c74f6252fc5d5c7283173", seed, 32));
    sk = kix_signer_secret_key(s);
    ASSERT_EQ_MEM(seed, 32, sk, 32);
    ASSERT_EQ_MEM(kix_signer_public_key(s), 32, sk + 32, 32);

    /* Re-signing the text reproduces the published signature. */
    ASSERT_EQ_INT(KIX_OK, kix_signer_sign(s, PETER_TEXT, strlen(PETER_TEXT), sig));
    ASSERT_EQ_INT(0, sodium_base642bin(want, sizeof(want), PETER_SIG_B64, strlen(PETER_SIG_B64),
                                       NULL, &n, NULL, sodium_base64_VARIANT_ORIGINAL));
    ASSERT_EQ_INT(68, n);
    ASSERT_EQ_MEM(want + 4, 64, sig, 64);
    kix_signer_free(s);

    /* One trailing newline is allowed. */
    s = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_signer_parse(PETER_SKEY "\n", strlen(PETER_SKEY) + 1, &s, &err));
    ASSERT_EQ_U64(0xc74f20a3u, kix_signer_key_hash(s));
    kix_signer_free(s);
}

KIX_TEST(vector_seeds_give_published_keys)
{
    json_t *root = load_vectors(), *keys, *k;
    size_t i, seeded = 0;

    ASSERT_TRUE(root != NULL);
    keys = json_object_get(root, "keys");
    json_array_foreach(keys, i, k)
    {
        const char *seed_hex = jstr(k, "ed25519_seed_hex");
        const char *skey =
            jstr(k, "signer_key") ? jstr(k, "signer_key") : jstr(k, "signer_key_derived");
        struct kix_signer *s = NULL, *p = NULL;
        struct kix_err err = {0};
        struct kix_buf b = KIX_BUF_INIT;
        uint8_t seed[32];

        if (!seed_hex)
            continue;
        seeded++;
        ASSERT_EQ_INT(0, unhex(seed_hex, seed, 32));
        ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed(jstr(k, "name"), 1, seed, &s, &err));
        ASSERT_EQ_INT(KIX_OK, kix_signer_format_verifier(s, &b));
        ASSERT_EQ_STR(jstr(k, "verifier_key"), (const char *)b.ptr);
        ASSERT_TRUE(skey != NULL);
        ASSERT_EQ_INT(KIX_OK, kix_signer_parse(skey, strlen(skey), &p, &err));
        ASSERT_EQ_MEM(kix_signer_public_key(s), 32, kix_signer_public_key(p), 32);
        kix_buf_release(&b);
        kix_signer_free(s);
        kix_signer_free(p);
    }
    ASSERT_EQ_INT(3, seeded); /* PeterNeumann, EnochRoot, localhost.localdev/sumdb */
    json_decref(root);
}

KIX_TEST(signer_parse_rejections)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {PETER_VKEY, "must start with PRIVATE+KEY+"},
        {"PRIVATE+KEY+PeterNeumann", "missing key hash"},
        {"PRIVATE+KEY+Peter Neumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
         "bad key name"},
        {"PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
         "does not match"},
        {"PRIVATE+KEY+PeterNeumann+c74f20a3+ZYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
         "unknown algorithm"},
        {"PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKA==",
         "want 32"},
        {"PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDF",
         "not valid base64"},
        {"PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz\n\n",
         "not valid base64"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_signer *s = NULL;
        struct kix_err err = {0};
        int rc = kix_signer_parse(cases[i].text, strlen(cases[i].text), &s, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].why))
            fprintf(stderr, "case %zu: rc %d msg %s\n", i, rc, err.msg);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_TRUE(s == NULL);
        ASSERT_CONTAINS(err.msg, cases[i].why);
        /* Never quote key material. */
        ASSERT_TRUE(strstr(err.msg, "AYEKFALV") == NULL);
        ASSERT_TRUE(strstr(err.msg, "ZYEKFALV") == NULL);
    }
}

KIX_TEST(generate_round_trip_both_algorithms)
{
    uint8_t algs[2] = {KIX_NOTE_ALG_ED25519, KIX_NOTE_ALG_COSIGN};

    for (int i = 0; i < 2; i++) {
        struct kix_signer *s = NULL, *p = NULL;
        struct kix_verifier v, w;
        struct kix_err err = {0};
        struct kix_buf priv = KIX_BUF_INIT, pub = KIX_BUF_INIT;

        ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", algs[i], &s, &err));
        ASSERT_EQ_INT(algs[i], kix_signer_alg(s));
        kix_verifier_from_signer(s, &v);
        ASSERT_EQ_INT(algs[i], v.alg);
        ASSERT_EQ_U64(kix_note_key_hash("kix.example/log", 15, algs[i], v.pub), v.key_hash);
        ASSERT_EQ_INT(KIX_OK, kix_signer_format_private(s, &priv));
        ASSERT_EQ_INT(KIX_OK, kix_signer_parse((const char *)priv.ptr, priv.len, &p, &err));
        ASSERT_EQ_MEM(kix_signer_public_key(s), 32, kix_signer_public_key(p), 32);
        ASSERT_EQ_U64(kix_signer_key_hash(s), kix_signer_key_hash(p));
        ASSERT_EQ_INT(KIX_OK, kix_signer_format_verifier(p, &pub));
        ASSERT_EQ_INT(KIX_OK, kix_verifier_parse((const char *)pub.ptr, pub.len, &w, &err));
        ASSERT_TRUE(same_verifier(&v, &w));
        ASSERT_EQ_INT(KIX_OK, kix_verifier_from_public_key("kix.example/log", algs[i],
                                                           kix_signer_public_key(s), &w, &err));
        ASSERT_TRUE(same_verifier(&v, &w));
        sodium_memzero(priv.ptr, priv.cap);
        kix_buf_release(&priv);
        kix_buf_release(&pub);
        kix_signer_free(s);
        kix_signer_free(p);
    }
}

KIX_TEST(generate_rejects_bad_name_and_algorithm)
{
    struct kix_signer *s = NULL;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_EINVAL, kix_signer_generate("a b", 1, &s, &err));
    ASSERT_CONTAINS(err.msg, "invalid key name");
    ASSERT_EQ_INT(KIX_EINVAL, kix_signer_generate("", 1, &s, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_signer_generate("a+b", 1, &s, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_signer_generate("ok", 2, &s, &err));
    ASSERT_CONTAINS(err.msg, "unknown key algorithm 0x02");
    ASSERT_TRUE(s == NULL);
    kix_signer_free(NULL);
}

KIX_TEST(key_id_is_sha256_of_raw_public_key)
{
    uint8_t pub[32];
    char hex[65];

    ASSERT_EQ_INT(
        0, unhex("1a5cd907143c384c41e830c5bce12aa8817ec5649aaabf2c31388b35b2d744d6", pub, 32));
    kix_key_id(pub, hex);
    ASSERT_EQ_STR("c7a9d541f116ae828b693ee8c89482bbe3ec786faa1df159677bd65150394f0f", hex);
}

/* A fresh directory under /tmp for key file tests. */
static void temp_dir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/kix-test-key-XXXXXX");
    if (!mkdtemp(dir))
        dir[0] = '\0';
}

static void remove_in(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
}

KIX_TEST(keyfile_created_0600_and_read_back)
{
    char dir[64], path[128];
    struct kix_signer *s = NULL, *r = NULL;
    struct kix_err err = {0};
    struct kix_buf want = KIX_BUF_INIT;
    struct stat st;
    size_t len = 0;
    char *content;
    mode_t old;

    temp_dir(dir, sizeof(dir));
    ASSERT_TRUE(dir[0] != '\0');
    snprintf(path, sizeof(path), "%s/log.key", dir);
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", 1, &s, &err));
    old = umask(0); /* the mode must not depend on the umask */
    ASSERT_EQ_INT(KIX_OK, kix_keyfile_write(path, s, &err));
    umask(old);
    ASSERT_EQ_INT(0, stat(path, &st));
    ASSERT_EQ_INT(0600, st.st_mode & 07777);

    /* Exactly the PRIVATE+KEY text and a newline. */
    ASSERT_EQ_INT(KIX_OK, kix_signer_format_private(s, &want));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&want, '\n'));
    {
        FILE *f = fopen(path, "rb");
        ASSERT_TRUE(f != NULL);
        content = calloc(1, 1024);
        len = fread(content, 1, 1023, f);
        fclose(f);
    }
    ASSERT_EQ_MEM(want.ptr, want.len, content, len);
    sodium_memzero(content, 1024);
    free(content);
    sodium_memzero(want.ptr, want.cap);
    kix_buf_release(&want);

    ASSERT_EQ_INT(KIX_OK, kix_keyfile_read(path, &r, &err));
    ASSERT_EQ_MEM(kix_signer_public_key(s), 32, kix_signer_public_key(r), 32);
    ASSERT_EQ_STR("kix.example/log", kix_signer_name(r));
    kix_signer_free(r);

    /* Never overwrites. */
    ASSERT_EQ_INT(KIX_EEXIST, kix_keyfile_write(path, s, &err));
    ASSERT_CONTAINS(err.msg, "already exists");
    ASSERT_EQ_INT(KIX_EEXIST, err.code);

    kix_signer_free(s);
    remove_in(dir, "log.key");
    rmdir(dir);
}

KIX_TEST(keyfile_refuses_group_or_other_access)
{
    static const mode_t modes[] = {0644, 0640, 0604, 0660, 0610};
    char dir[64], path[128];
    struct kix_signer *s = NULL, *r = NULL;
    struct kix_err err = {0};
    struct kix_buf priv = KIX_BUF_INIT;

    temp_dir(dir, sizeof(dir));
    ASSERT_TRUE(dir[0] != '\0');
    snprintf(path, sizeof(path), "%s/open.key", dir);
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", 1, &s, &err));
    ASSERT_EQ_INT(KIX_OK, kix_keyfile_write(path, s, &err));
    ASSERT_EQ_INT(KIX_OK, kix_signer_format_private(s, &priv));
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        ASSERT_EQ_INT(0, chmod(path, modes[i]));
        ASSERT_EQ_INT(KIX_EINVAL, kix_keyfile_read(path, &r, &err));
        ASSERT_TRUE(r == NULL);
        ASSERT_CONTAINS(err.msg, "chmod 600");
        ASSERT_CONTAINS(err.msg, "group or others");
        /* The message never contains the key. */
        ASSERT_TRUE(strstr(err.msg, (const char *)priv.ptr + 30) == NULL);
    }
    ASSERT_EQ_INT(0, chmod(path, 0400));
    ASSERT_EQ_INT(KIX_OK, kix_keyfile_read(path, &r, &err));
    kix_signer_free(r);

    remove_in(dir, "open.key");
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_keyfile_read(path, &r, &err));
    ASSERT_CONTAINS(err.msg, "not found");
    sodium_memzero(priv.ptr, priv.cap);
    kix_buf_release(&priv);
    kix_signer_free(s);
    rmdir(dir);
}

/* A FIFO or a directory where the key should be: refused at once, never
 * waited on. */
KIX_TEST(keyfile_refuses_non_regular_files_without_blocking)
{
    char dir[64], path[128];
    struct kix_signer *s = NULL;
    struct kix_err err = {0};

    temp_dir(dir, sizeof(dir));
    ASSERT_TRUE(dir[0] != '\0');
    snprintf(path, sizeof(path), "%s/fifo.key", dir);
    ASSERT_EQ_INT(0, mkfifo(path, 0600));
    ASSERT_EQ_INT(KIX_EINVAL, kix_keyfile_read(path, &s, &err));
    ASSERT_CONTAINS(err.msg, "is not a regular file");
    ASSERT_TRUE(s == NULL);
    remove_in(dir, "fifo.key");
    snprintf(path, sizeof(path), "%s/dir.key", dir);
    ASSERT_EQ_INT(0, mkdir(path, 0700));
    ASSERT_EQ_INT(KIX_EINVAL, kix_keyfile_read(path, &s, &err));
    ASSERT_CONTAINS(err.msg, "is not a regular file");
    rmdir(path);
    rmdir(dir);
}

KIX_TEST(keyfile_rejects_garbage_without_quoting_it)
{
    char dir[64], path[128];
    struct kix_signer *r = NULL;
    struct kix_err err = {0};
    FILE *f;

    temp_dir(dir, sizeof(dir));
    ASSERT_TRUE(dir[0] != '\0');
    snprintf(path, sizeof(path), "%s/bad.key", dir);
    f = fopen(path, "wb");
    ASSERT_TRUE(f != NULL);
    fputs("PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz\n", f);
    fclose(f);
    ASSERT_EQ_INT(0, chmod(path, 0600));
    ASSERT_EQ_INT(KIX_EINVAL, kix_keyfile_read(path, &r, &err));
    ASSERT_CONTAINS(err.msg, path);
    ASSERT_CONTAINS(err.msg, "does not match");
    ASSERT_TRUE(strstr(err.msg, "AYEKFALV") == NULL);
    remove_in(dir, "bad.key");
    rmdir(dir);
}

KIX_TEST(pubfile_round_trip)
{
    char dir[64], path[128];
    struct kix_verifier v, w;
    struct kix_err err = {0};
    struct stat st;

    temp_dir(dir, sizeof(dir));
    ASSERT_TRUE(dir[0] != '\0');
    snprintf(path, sizeof(path), "%s/log.pub", dir);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(PETER_VKEY, strlen(PETER_VKEY), &v, &err));
    ASSERT_EQ_INT(KIX_OK, kix_pubfile_write(path, &v, &err));
    ASSERT_EQ_INT(0, stat(path, &st));
    ASSERT_EQ_INT(0644, st.st_mode & 07777);
    ASSERT_EQ_INT(KIX_OK, kix_pubfile_read(path, &w, &err));
    ASSERT_TRUE(same_verifier(&v, &w));
    ASSERT_EQ_INT(KIX_EEXIST, kix_pubfile_write(path, &v, &err));
    remove_in(dir, "log.pub");
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_pubfile_read(path, &w, &err));
    rmdir(dir);
}

KIX_TEST_MAIN()
