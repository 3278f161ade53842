/* Signed notes, checkpoints and cosignatures against tests/vectors/note. */
#include <jansson.h>
#include <sodium.h>

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

static const char *jstr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Hex to a malloc'ed buffer. */
static uint8_t *unhex_alloc(const char *hex, size_t *n)
{
    size_t len = strlen(hex), got = 0;
    uint8_t *out = malloc(len / 2 + 1);
    if (!out || sodium_hex2bin(out, len / 2 + 1, hex, len, NULL, &got, NULL) != 0) {
        free(out);
        return NULL;
    }
    *n = got;
    return out;
}

static int b64_decode(const char *b64, size_t len, uint8_t *out, size_t cap, size_t *n)
{
    return sodium_base642bin(out, cap, b64, len, NULL, n, NULL, sodium_base64_VARIANT_ORIGINAL);
}

/* Parses a JSON array of verifier key texts. */
static int parse_keys(json_t *arr, struct kix_verifier *out, size_t *n)
{
    json_t *k;
    size_t i;
    json_array_foreach(arr, i, k)
    {
        const char *t = json_string_value(k);
        if (kix_verifier_parse(t, strlen(t), &out[i], NULL) != KIX_OK)
            return -1;
    }
    *n = json_array_size(arr);
    return 0;
}

/* Compares an opened valid vector with its expected text and signers. */
static const char *check_opened(json_t *v, const struct kix_note *note,
                                const struct kix_verifier *keys)
{
    json_t *want_v = json_object_get(v, "expected_verified_signers");
    json_t *want_u = json_object_get(v, "expected_unverified_signers"), *e;
    const char *text = jstr(v, "expected_text");
    size_t i, nunverified = 0;

    if (note->text.len != strlen(text) || memcmp(note->text.ptr, text, note->text.len) != 0)
        return "text differs";
    if (note->nverified != json_array_size(want_v))
        return "wrong number of verified signers";
    json_array_foreach(want_v, i, e)
    {
        if (strcmp(keys[note->verified[i]].name, json_string_value(e)) != 0)
            return "wrong verified signer";
        if (!kix_note_verified_by(note, note->verified[i]))
            return "kix_note_verified_by disagrees";
    }
    for (i = 0; i < note->nsigs; i++) {
        const struct kix_note_sig *s = &note->sigs[i];
        const char *name;
        if (s->verifier >= 0) {
            if (strlen(keys[s->verifier].name) != s->name.len ||
                memcmp(keys[s->verifier].name, s->name.ptr, s->name.len) != 0)
                return "a verified line names another key";
            continue;
        }
        name = json_string_value(json_array_get(want_u, nunverified++));
        if (!name || strlen(name) != s->name.len || memcmp(name, s->name.ptr, s->name.len) != 0)
            return "wrong unverified signer";
    }
    if (nunverified != json_array_size(want_u))
        return "wrong number of unverified signers";
    return NULL;
}

/* Checks one vector; returns NULL when it behaves as listed, else why not. */
static const char *check_vector(json_t *v, char *why, size_t whylen)
{
    struct kix_verifier keys[8];
    struct kix_note note;
    struct kix_err err = {0};
    size_t nkeys = 0, len = 0;
    uint8_t *bytes = unhex_alloc(jstr(v, "note_hex"), &len);
    int rc;

    if (!bytes)
        return "bad note_hex";
    if (parse_keys(json_object_get(v, "verifier_keys"), keys, &nkeys) != 0) {
        free(bytes);
        return "a verifier key did not parse";
    }
    rc = kix_note_open((const char *)bytes, len, keys, nkeys, &note, &err);
    if (!json_is_true(json_object_get(v, "expect_valid"))) {
        const char *want = jstr(v, "expected_error");
        int want_rc = strncmp(want, "malformed note", 14) == 0 ? KIX_EINVAL : KIX_EVERIFY;
        /* Over the 100-line bound is a limit, not a syntax error, in kix. */
        if (strcmp(jstr(v, "id"), "golang-too-many-signatures") == 0)
            want_rc = KIX_ELIMIT;
        free(bytes);
        if (rc != want_rc) {
            snprintf(why, whylen, "want %s, got %s (%s)", kix_err_name(want_rc), kix_err_name(rc),
                     err.msg);
            return why;
        }
        if (want_rc == KIX_ELIMIT ? !strstr(err.msg, "more than 100 signature lines")
                                  : !strstr(err.msg, want)) {
            snprintf(why, whylen, "message \"%s\" does not mention \"%s\"", err.msg, want);
            return why;
        }
        return NULL;
    }
    if (rc != KIX_OK) {
        snprintf(why, whylen, "open failed: %s", err.msg);
        free(bytes);
        return why;
    }
    /* note's views point into bytes: check everything before freeing it. */
    why = (char *)check_opened(v, &note, keys);
    free(bytes);
    return why;
}

KIX_TEST(vectors_all_28)
{
    json_t *root = load_vectors(), *vectors, *v;
    size_t i, valid = 0, invalid = 0;
    char why[1024];

    ASSERT_TRUE(root != NULL);
    vectors = json_object_get(root, "vectors");
    ASSERT_EQ_INT(28, json_array_size(vectors));
    json_array_foreach(vectors, i, v)
    {
        const char *bad = check_vector(v, why, sizeof(why));
        if (bad) {
            fprintf(stderr, "vector %s: %s\n", jstr(v, "id"), bad);
            json_decref(root);
            KIX_FAIL_AT("vector %zu failed", i);
        }
        if (json_is_true(json_object_get(v, "expect_valid")))
            valid++;
        else
            invalid++;
    }
    ASSERT_EQ_INT(13, valid);
    ASSERT_EQ_INT(15, invalid);
    json_decref(root);
}

KIX_TEST(vector_note_files_match_hex)
{
    json_t *root = load_vectors(), *v;
    size_t i, files = 0;

    ASSERT_TRUE(root != NULL);
    json_array_foreach(json_object_get(root, "vectors"), i, v)
    {
        char rel[256];
        size_t len = 0, hlen = 0;
        char *file;
        uint8_t *hex;
        if (!jstr(v, "note_file"))
            continue;
        snprintf(rel, sizeof(rel), "vectors/note/%s", jstr(v, "note_file"));
        file = kix_test_read_file(rel, &len);
        hex = unhex_alloc(jstr(v, "note_hex"), &hlen);
        ASSERT_TRUE(file && hex);
        ASSERT_EQ_MEM(hex, hlen, file, len);
        free(file);
        free(hex);
        files++;
    }
    ASSERT_TRUE(files >= 8);
    json_decref(root);
}

KIX_TEST(signing_vectors_byte_for_byte)
{
    json_t *root = load_vectors(), *sv;
    struct kix_signer *peter = NULL, *enoch = NULL;
    struct kix_verifier pv;
    struct kix_note note;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint8_t zero[32] = {0};
    const char *skey, *text, *want;

    ASSERT_TRUE(root != NULL);
    sv = json_object_get(root, "signing");
    ASSERT_EQ_INT(2, json_array_size(sv));

    /* golang-sign-peter: Sign(text) with the PeterNeumann key. */
    skey = jstr(json_array_get(sv, 0), "signer_key");
    text = jstr(json_array_get(sv, 0), "text");
    want = jstr(json_array_get(sv, 0), "expected_note");
    ASSERT_EQ_INT(KIX_OK, kix_signer_parse(skey, strlen(skey), &peter, &err));
    ASSERT_EQ_INT(KIX_OK, kix_note_sign(text, strlen(text), &peter, 1, &out, &err));
    ASSERT_EQ_MEM(want, strlen(want), out.ptr, out.len);

    /* golang-add-enoch-signature: open the Peter note, add EnochRoot (seed 0). */
    ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed("EnochRoot", 1, zero, &enoch, &err));
    kix_verifier_from_signer(peter, &pv);
    ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)out.ptr, out.len, &pv, 1, &note, &err));
    {
        struct kix_buf two = KIX_BUF_INIT;
        want = jstr(json_array_get(sv, 1), "expected_note");
        ASSERT_EQ_INT(KIX_OK, kix_note_add_signatures(&note, &enoch, 1, &two, &err));
        ASSERT_EQ_MEM(want, strlen(want), two.ptr, two.len);

        /* Re-signing with a key already present replaces its line. */
        {
            struct kix_verifier both[2];
            struct kix_note n2;
            struct kix_buf three = KIX_BUF_INIT;
            kix_verifier_from_signer(peter, &both[0]);
            kix_verifier_from_signer(enoch, &both[1]);
            ASSERT_EQ_INT(KIX_OK,
                          kix_note_open((const char *)two.ptr, two.len, both, 2, &n2, &err));
            ASSERT_EQ_INT(2, n2.nverified);
            ASSERT_EQ_INT(KIX_OK, kix_note_add_signatures(&n2, &peter, 1, &three, &err));
            /* Enoch's line first now, then Peter's fresh one. */
            ASSERT_EQ_INT(two.len, three.len);
            ASSERT_TRUE(strstr((const char *)three.ptr, "EnochRoot") <
                        strstr((const char *)three.ptr, "PeterNeumann"));
            kix_buf_release(&three);
        }
        kix_buf_release(&two);
    }
    kix_buf_release(&out);
    kix_signer_free(peter);
    kix_signer_free(enoch);
    json_decref(root);
}

KIX_TEST(parse_only_examples)
{
    json_t *root = load_vectors(), *po, *v;
    size_t i;

    ASSERT_TRUE(root != NULL);
    po = json_object_get(root, "parse_only");
    ASSERT_EQ_INT(3, json_array_size(po));
    json_array_foreach(po, i, v)
    {
        struct kix_note note;
        struct kix_err err = {0};
        const char *text = jstr(v, "note_text");
        json_t *sigs = json_object_get(v, "signatures"), *s;
        size_t j;

        /* No key is known: the note parses but cannot be trusted. */
        ASSERT_EQ_INT(KIX_EVERIFY, kix_note_open(text, strlen(text), NULL, 0, &note, &err));
        ASSERT_CONTAINS(err.msg, "note has no verifiable signatures");
        ASSERT_EQ_INT(json_array_size(sigs), note.nsigs);
        ASSERT_EQ_INT(0, note.nverified);
        if (jstr(v, "expected_text"))
            ASSERT_EQ_MEM(jstr(v, "expected_text"), strlen(jstr(v, "expected_text")), note.text.ptr,
                          note.text.len);
        json_array_foreach(sigs, j, s)
        {
            uint8_t blob[128];
            size_t n = 0;
            char hash[9];
            const struct kix_note_sig *sig = &note.sigs[j];

            ASSERT_EQ_MEM(jstr(s, "name"), strlen(jstr(s, "name")), sig->name.ptr, sig->name.len);
            snprintf(hash, sizeof(hash), "%08x", sig->key_hash);
            ASSERT_EQ_STR(jstr(s, "key_id_hex"), hash);
            ASSERT_EQ_INT(-1, sig->verifier);
            ASSERT_EQ_INT(
                0, b64_decode((const char *)sig->b64.ptr, sig->b64.len, blob, sizeof(blob), &n));
            ASSERT_EQ_INT(4 + json_integer_value(json_object_get(s, "sig_len")), n);
            if (n == 76) /* the spec's cosignature: time 1679315147 */
                ASSERT_EQ_U64(UINT64_C(1679315147),
                              (uint64_t)blob[4] << 56 | (uint64_t)blob[5] << 48 |
                                  (uint64_t)blob[6] << 40 | (uint64_t)blob[7] << 32 |
                                  (uint64_t)blob[8] << 24 | (uint64_t)blob[9] << 16 |
                                  (uint64_t)blob[10] << 8 | blob[11]);
        }
        if (json_object_get(v, "checkpoint")) {
            json_t *c = json_object_get(v, "checkpoint");
            struct kix_checkpoint cp;
            uint8_t root_hash[32];
            size_t n = 0;
            ASSERT_EQ_INT(KIX_OK, kix_checkpoint_parse((const char *)note.text.ptr, note.text.len,
                                                       &cp, &err));
            ASSERT_EQ_STR(jstr(c, "origin"), cp.origin);
            ASSERT_EQ_U64(json_integer_value(json_object_get(c, "tree_size")), cp.size);
            ASSERT_EQ_INT(
                0, sodium_hex2bin(root_hash, 32, jstr(c, "root_hash_hex"), 64, NULL, &n, NULL));
            ASSERT_EQ_MEM(root_hash, 32, cp.root, 32);
        }
    }
    json_decref(root);
}

KIX_TEST(tlog_tree_note_format_and_parse)
{
    json_t *root = load_vectors(), *t, *bad;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    struct kix_buf out = KIX_BUF_INIT;
    const char *text;
    uint8_t want_root[32];

    ASSERT_TRUE(root != NULL);
    t = json_object_get(root, "tlog_tree_note");
    text = jstr(t, "text");
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_parse(text, strlen(text), &cp, &err));
    ASSERT_EQ_STR("go.sum database tree", cp.origin);
    ASSERT_EQ_U64(UINT64_C(123456789012), cp.size);
    ASSERT_EQ_INT(0, cp.extensions.len);
    /* RecordHash("hello world") = SHA-256(0x00 || "hello world"). */
    {
        crypto_hash_sha256_state st;
        crypto_hash_sha256_init(&st);
        crypto_hash_sha256_update(&st, (const uint8_t *)"\0hello world", 12);
        crypto_hash_sha256_final(&st, want_root);
    }
    ASSERT_EQ_MEM(want_root, 32, cp.root, 32);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_EQ_MEM(text, strlen(text), out.ptr, out.len);
    kix_buf_release(&out);

    bad = json_object_get(t, "bad_texts");
    ASSERT_EQ_INT(3, json_array_size(bad));
    /* A different origin is a well-formed checkpoint of another log. */
    text = json_string_value(json_array_get(bad, 0));
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_parse(text, strlen(text), &cp, &err));
    ASSERT_TRUE(strcmp(cp.origin, "go.sum database tree") != 0);
    text = json_string_value(json_array_get(bad, 1));
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_parse(text, strlen(text), &cp, &err));
    ASSERT_CONTAINS(err.msg, "tree size");
    text = json_string_value(json_array_get(bad, 2));
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_parse(text, strlen(text), &cp, &err));
    ASSERT_CONTAINS(err.msg, "root hash");
    json_decref(root);
}

KIX_TEST(checkpoint_round_trip_with_extensions)
{
    struct kix_checkpoint cp, back;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    const char *ext = "ext one\nsecond \xc3\xa9xtension\n";
    const char *want = "kix.example/log\n0\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"
                       "ext one\nsecond \xc3\xa9xtension\n";

    memset(&cp, 0, sizeof(cp));
    strcpy(cp.origin, "kix.example/log");
    cp.size = 0;
    for (int i = 0; i < 32; i++)
        cp.root[i] = (uint8_t)i;
    cp.extensions.ptr = (const uint8_t *)ext;
    cp.extensions.len = strlen(ext);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_EQ_STR(want, (const char *)out.ptr);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_parse((const char *)out.ptr, out.len, &back, &err));
    ASSERT_EQ_STR(cp.origin, back.origin);
    ASSERT_EQ_U64(0, back.size);
    ASSERT_EQ_MEM(cp.root, 32, back.root, 32);
    ASSERT_EQ_MEM(ext, strlen(ext), back.extensions.ptr, back.extensions.len);

    /* The largest size. */
    kix_buf_reset(&out);
    cp.size = UINT64_MAX;
    cp.extensions.len = 0;
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_CONTAINS((const char *)out.ptr, "\n18446744073709551615\n");
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_parse((const char *)out.ptr, out.len, &back, &err));
    ASSERT_EQ_U64(UINT64_MAX, back.size);
    kix_buf_release(&out);
}

KIX_TEST(checkpoint_parse_rejections)
{
#define ROOT "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "no origin line"},
        {"kix.example/log", "no origin line"},
        {"\n1\n" ROOT "\n", "empty origin"},
        {"kix\x01log\n1\n" ROOT "\n", "origin"},
        {"kix\xfflog\n1\n" ROOT "\n", "origin"},
        {"kix.example/log\n", "no tree size line"},
        {"kix.example/log\n\n" ROOT "\n", "leading zeros"},
        {"kix.example/log\n01\n" ROOT "\n", "leading zeros"},
        {"kix.example/log\n00\n" ROOT "\n", "leading zeros"},
        {"kix.example/log\n-1\n" ROOT "\n", "decimal digits"},
        {"kix.example/log\n+1\n" ROOT "\n", "decimal digits"},
        {"kix.example/log\n 1\n" ROOT "\n", "decimal digits"},
        {"kix.example/log\n1 \n" ROOT "\n", "decimal digits"},
        {"kix.example/log\n0xabcdef\n" ROOT "\n", "tree size"},
        {"kix.example/log\n18446744073709551616\n" ROOT "\n", "64 bits"},
        {"kix.example/log\n99999999999999999999\n" ROOT "\n", "64 bits"},
        {"kix.example/log\n1\n", "no root hash line"},
        {"kix.example/log\n1\n" ROOT, "no root hash line"},
        {"kix.example/log\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==\n", "root hash"},
        {"kix.example/log\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n", "root hash"},
        {"kix.example/log\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=\n", "root hash"},
        {"kix.example/log\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=AAAA\n", "root hash"},
        {"kix.example/log\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh-_\n", "root hash"},
        {"kix.example/log\n1\n" ROOT "\n\n", "extension line 1"},
        {"kix.example/log\n1\n" ROOT "\next\n\n", "extension line 2"},
        {"kix.example/log\n1\n" ROOT "\next", "extension line 1"},
        {"kix.example/log\n1\n" ROOT "\ne\txt\n", "extension line 1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_checkpoint cp;
        struct kix_err err = {0};
        int rc = kix_checkpoint_parse(cases[i].text, strlen(cases[i].text), &cp, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].why))
            fprintf(stderr, "case %zu: rc %d msg %s\n", i, rc, err.msg);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_CONTAINS(err.msg, "malformed checkpoint");
        ASSERT_CONTAINS(err.msg, cases[i].why);
    }
#undef ROOT
}

KIX_TEST(checkpoint_format_rejections)
{
    struct kix_checkpoint cp;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};

    memset(&cp, 0, sizeof(cp));
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_CONTAINS(err.msg, "origin");
    strcpy(cp.origin, "a\nb");
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_CONTAINS(err.msg, "control characters");
    strcpy(cp.origin, "kix.example/log");
    cp.extensions.ptr = (const uint8_t *)"no newline";
    cp.extensions.len = 10;
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_CONTAINS(err.msg, "extension line 1");
    cp.extensions.ptr = (const uint8_t *)"one\n\n";
    cp.extensions.len = 5;
    ASSERT_EQ_INT(KIX_EINVAL, kix_checkpoint_format(&cp, &out, &err));
    ASSERT_CONTAINS(err.msg, "extension line 2");
    ASSERT_EQ_INT(0, out.len);
    kix_buf_release(&out);
}

#define SUMDB_VKEY "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
#define MH_VKEY    "mhutchinson.witness+384b3dbc+AfWg+7+qmcFoMuIM0ZGe4ZsIuc6gEg3EL0cKkNVolCA+"
#define WB_VKEY    "wolsey-bank-alfred+0336ecb0+AVcofP6JyFkxhQ+/FK7omBtGLVS22tGC6fH+zvK5WrIx"

KIX_TEST(sumdb_real_checkpoints_verify)
{
    static const struct {
        const char *file, *root;
        uint64_t size;
    } cps[] = {
        {"vectors/note/notes/sum.golang.org-15081221-trillian-examples.checkpoint",
         "BoMMe1wd25Tco0mYGROkyqxHZWx+hcSCtMV315Lu6Lg=", 15081221},
        {"vectors/note/notes/sum.golang.org-8789035-witnessed.checkpoint",
         "OzuqVKIy0+uTGhHStXo1EtVIn3XGoWi2Zh/eGu0wWg0=", 8789035},
    };
    struct kix_verifier sumdb;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(SUMDB_VKEY, strlen(SUMDB_VKEY), &sumdb, &err));
    for (size_t i = 0; i < 2; i++) {
        size_t len = 0, n = 0;
        char *note = kix_test_read_file(cps[i].file, &len);
        struct kix_note nt;
        struct kix_checkpoint cp;
        uint8_t root_hash[32];

        ASSERT_TRUE(note != NULL);
        ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open(note, len, &sumdb, 1, "go.sum database tree", &nt,
                                                  &cp, &err));
        ASSERT_EQ_U64(cps[i].size, cp.size);
        ASSERT_EQ_INT(0, b64_decode(cps[i].root, 44, root_hash, 32, &n));
        ASSERT_EQ_MEM(root_hash, 32, cp.root, 32);
        ASSERT_EQ_INT(1, nt.nverified);
        ASSERT_EQ_INT(0, nt.verified[0]);
        /* The expected origin is enforced. */
        ASSERT_EQ_INT(KIX_EVERIFY,
                      kix_checkpoint_open(note, len, &sumdb, 1, "sum.golang.org", &nt, &cp, &err));
        ASSERT_CONTAINS(err.msg, "not the expected log");
        free(note);
    }
}

KIX_TEST(witnessed_checkpoint_8789035_witnesses_verify)
{
    struct kix_verifier keys[3];
    struct kix_note nt;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    size_t len = 0;
    char *note =
        kix_test_read_file("vectors/note/notes/sum.golang.org-8789035-witnessed.checkpoint", &len);

    ASSERT_TRUE(note != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(SUMDB_VKEY, strlen(SUMDB_VKEY), &keys[0], &err));
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(MH_VKEY, strlen(MH_VKEY), &keys[1], &err));
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(WB_VKEY, strlen(WB_VKEY), &keys[2], &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_checkpoint_open(note, len, keys, 3, "go.sum database tree", &nt, &cp, &err));
    ASSERT_EQ_INT(3, nt.nverified);
    ASSERT_TRUE(kix_note_verified_by(&nt, 0));
    ASSERT_TRUE(kix_note_verified_by(&nt, 1));
    ASSERT_TRUE(kix_note_verified_by(&nt, 2));
    ASSERT_EQ_INT(4, nt.nsigs);
    ASSERT_EQ_INT(-1, nt.sigs[3].verifier); /* JKU-INS */
    /* Witness keys alone also accept it (they signed the same text). */
    ASSERT_EQ_INT(KIX_OK, kix_note_open(note, len, keys + 1, 2, &nt, &err));
    ASSERT_EQ_INT(2, nt.nverified);
    free(note);
}

/* Known answers computed independently (Python `cryptography` Ed25519):
 * witness key seed 00 01 .. 1f, name witness.example.com/w1, alg 0x04; log key
 * seed 32 x 0x11, name example.com/behind-the-sofa; checkpoint text and time
 * 1679315147 from the C2SP tlog-cosignature example. */
#define W_SKEY                                                                                     \
    "PRIVATE+KEY+witness.example.com/w1+a0059f11+BAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"
#define W_VKEY "witness.example.com/w1+a0059f11+BAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4"
#define W_LINE                                                                                     \
    "\xe2\x80\x94 witness.example.com/w1 "                                                         \
    "oAWfEQAAAABkGFDLBuRDazBLVac2NE+Y+IjbjQOcXLfF9CSDZVUIoS83rE1nFZsVE8YiWV6Ngr7lV8H6bdoBQGP/"     \
    "l73euDMQ9k+bBQ==\n"
#define LOG_VKEY "example.com/behind-the-sofa+b58cbf88+AdBKsjJ0K7SrOhNovUYV5ObQIkq3GgFrr4UgozLJd4c3"
#define LOG_LINE                                                                                   \
    "\xe2\x80\x94 example.com/behind-the-sofa "                                                    \
    "tYy/"                                                                                         \
    "iJi+VohutU4Wo23FIvfp0RwBZSjLnrawOcLnHUTosM9W9HpZn8aWGTyClJfXa9nf56sOHtbpoFJLsedoHAAb8gU=\n"
#define SOFA_TEXT                                                                                  \
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"

KIX_TEST(cosignature_known_answer)
{
    struct kix_signer *w = NULL, *log = NULL;
    struct kix_verifier keys[2];
    struct kix_buf line = KIX_BUF_INIT, note = KIX_BUF_INIT;
    struct kix_note nt;
    struct kix_err err = {0};
    uint8_t seed[32];

    ASSERT_EQ_INT(KIX_OK, kix_signer_parse(W_SKEY, strlen(W_SKEY), &w, &err));
    ASSERT_EQ_INT(KIX_NOTE_ALG_COSIGN, kix_signer_alg(w));
    ASSERT_EQ_INT(KIX_OK, kix_signer_format_verifier(w, &line));
    ASSERT_EQ_STR(W_VKEY, (const char *)line.ptr);
    kix_buf_reset(&line);
    ASSERT_EQ_INT(KIX_OK,
                  kix_cosign(w, SOFA_TEXT, strlen(SOFA_TEXT), UINT64_C(1679315147), &line, &err));
    ASSERT_EQ_STR(W_LINE, (const char *)line.ptr);

    /* The log's own signature, then the cosignature. */
    memset(seed, 0x11, sizeof(seed));
    ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed("example.com/behind-the-sofa", 1, seed, &log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_note_sign(SOFA_TEXT, strlen(SOFA_TEXT), &log, 1, &note, &err));
    ASSERT_EQ_STR(SOFA_TEXT "\n" LOG_LINE, (const char *)note.ptr);
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&note, line.ptr, line.len));

    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(LOG_VKEY, strlen(LOG_VKEY), &keys[0], &err));
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(W_VKEY, strlen(W_VKEY), &keys[1], &err));
    ASSERT_EQ_INT(KIX_NOTE_ALG_COSIGN, keys[1].alg);
    ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)note.ptr, note.len, keys, 2, &nt, &err));
    ASSERT_EQ_INT(2, nt.nverified);
    ASSERT_EQ_INT(0, nt.sigs[0].verifier);
    ASSERT_EQ_U64(0, nt.sigs[0].timestamp);
    ASSERT_EQ_INT(1, nt.sigs[1].verifier);
    ASSERT_EQ_U64(UINT64_C(1679315147), nt.sigs[1].timestamp);

    /* The witness key alone verifies the cosignature; the log line is unknown. */
    ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)note.ptr, note.len, &keys[1], 1, &nt, &err));
    ASSERT_EQ_INT(1, nt.nverified);
    ASSERT_EQ_INT(-1, nt.sigs[0].verifier);

    kix_buf_release(&line);
    kix_buf_release(&note);
    kix_signer_free(w);
    kix_signer_free(log);
}

/* Replaces the base64 of the last signature line of `note` by that of blob. */
static void set_last_sig(struct kix_buf *note, const uint8_t *blob, size_t n)
{
    char *sp = strrchr((char *)note->ptr, ' ');
    char b64[256];
    size_t keep = (size_t)(sp + 1 - (char *)note->ptr);

    sodium_bin2base64(b64, sizeof(b64), blob, n, sodium_base64_VARIANT_ORIGINAL);
    note->len = keep;
    if (kix_buf_adds(note, b64) || kix_buf_addc(note, '\n'))
        abort();
}

KIX_TEST(cosign_round_trip_and_tampering)
{
    struct kix_signer *log = NULL, *w = NULL;
    struct kix_verifier keys[2];
    struct kix_checkpoint cp;
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT;
    struct kix_note nt;
    struct kix_err err = {0};
    uint8_t blob[128];
    size_t n = 0, sig_start;
    const uint64_t t = UINT64_C(1700000000);

    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", 1, &log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("witness.kix.example/w1", 4, &w, &err));
    kix_verifier_from_signer(log, &keys[0]);
    kix_verifier_from_signer(w, &keys[1]);
    memset(&cp, 0, sizeof(cp));
    strcpy(cp.origin, "kix.example/log");
    cp.size = 42;
    memset(cp.root, 0xab, 32);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_sign(&cp, log, &note, &err));
    ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)note.ptr, note.len, keys, 1, &nt, &err));
    ASSERT_EQ_INT(KIX_OK, kix_cosign(w, (const char *)nt.text.ptr, nt.text.len, t, &line, &err));
    sig_start = note.len;
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&note, line.ptr, line.len));
    {
        struct kix_checkpoint back;
        ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)note.ptr, note.len, keys, 2,
                                                  "kix.example/log", &nt, &back, &err));
        ASSERT_EQ_U64(42, back.size);
        ASSERT_EQ_INT(2, nt.nverified);
        ASSERT_EQ_U64(t, nt.sigs[1].timestamp);
    }

    /* A cosignature is not a note signature: an alg 0x01 verifier with the
     * witness's name and public key has another key hash, so it is ignored. */
    {
        struct kix_verifier as_note;
        ASSERT_EQ_INT(KIX_OK, kix_verifier_from_public_key("witness.kix.example/w1", 1, keys[1].pub,
                                                           &as_note, &err));
        ASSERT_TRUE(as_note.key_hash != keys[1].key_hash);
        ASSERT_EQ_INT(KIX_EVERIFY,
                      kix_note_open((const char *)note.ptr, note.len, &as_note, 1, &nt, &err));
        ASSERT_CONTAINS(err.msg, "no verifiable signatures");
    }

    /* Change the timestamp in the blob: the signature no longer verifies. */
    {
        const char *b64 = strrchr((const char *)note.ptr, ' ') + 1;
        ASSERT_EQ_INT(0, b64_decode(b64, note.len - (size_t)(b64 - (const char *)note.ptr) - 1,
                                    blob, sizeof(blob), &n));
        ASSERT_EQ_INT(76, n);
        blob[11] ^= 1;
        set_last_sig(&note, blob, n);
        ASSERT_EQ_INT(KIX_EVERIFY,
                      kix_note_open((const char *)note.ptr, note.len, keys, 2, &nt, &err));
        ASSERT_CONTAINS(err.msg, "invalid signature for key witness.kix.example/w1+");
        /* The log key alone still accepts it (the witness line is unknown then). */
        ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)note.ptr, note.len, keys, 1, &nt, &err));
        blob[11] ^= 1;
        /* A correctly signed cosignature whose time is over 2^63-1 is invalid. */
        {
            struct kix_buf msg = KIX_BUF_INIT;
            uint8_t big[76];
            memcpy(big, blob, 4);
            memset(big + 4, 0, 8);
            big[4] = 0x80; /* 2^63 */
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&msg, "cosignature/v1\ntime 9223372036854775808\n"));
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&msg, note.ptr, nt.text.len));
            ASSERT_EQ_INT(KIX_OK, kix_signer_sign(w, msg.ptr, msg.len, big + 12));
            kix_buf_release(&msg);
            set_last_sig(&note, big, sizeof(big));
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_note_open((const char *)note.ptr, note.len, keys, 2, &nt, &err));
            ASSERT_CONTAINS(err.msg, "invalid signature for key witness.kix.example/w1+");
            /* The same construction at 2^63-1 is accepted. */
            big[4] = 0x7f;
            memset(big + 5, 0xff, 7);
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&msg, "cosignature/v1\ntime 9223372036854775807\n"));
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&msg, note.ptr, nt.text.len));
            ASSERT_EQ_INT(KIX_OK, kix_signer_sign(w, msg.ptr, msg.len, big + 12));
            kix_buf_release(&msg);
            set_last_sig(&note, big, sizeof(big));
            ASSERT_EQ_INT(KIX_OK,
                          kix_note_open((const char *)note.ptr, note.len, keys, 2, &nt, &err));
            ASSERT_EQ_U64(KIX_COSIGN_TIME_MAX, nt.sigs[1].timestamp);
        }
        /* A plain 68-byte blob for a cosignature key is invalid. */
        memmove(blob + 4, blob + 12, 64);
        set_last_sig(&note, blob, 68);
        ASSERT_EQ_INT(KIX_EVERIFY,
                      kix_note_open((const char *)note.ptr, note.len, keys, 2, &nt, &err));
    }
    (void)sig_start;
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_signer_free(log);
    kix_signer_free(w);
}

KIX_TEST(cosign_rejections)
{
    struct kix_signer *log = NULL, *w = NULL;
    struct kix_buf line = KIX_BUF_INIT;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", 1, &log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("w", 4, &w, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_cosign(log, SOFA_TEXT, strlen(SOFA_TEXT), 1, &line, &err));
    ASSERT_CONTAINS(err.msg, "not a witness cosignature key");
    ASSERT_EQ_INT(KIX_EINVAL, kix_cosign(w, SOFA_TEXT, strlen(SOFA_TEXT), KIX_COSIGN_TIME_MAX + 1,
                                         &line, &err));
    ASSERT_CONTAINS(err.msg, "2^63-1");
    ASSERT_EQ_INT(KIX_OK,
                  kix_cosign(w, SOFA_TEXT, strlen(SOFA_TEXT), KIX_COSIGN_TIME_MAX, &line, &err));
    kix_buf_reset(&line);
    ASSERT_EQ_INT(KIX_EINVAL, kix_cosign(w, "not a checkpoint\n", 17, 1, &line, &err));
    ASSERT_CONTAINS(err.msg, "cosigning: malformed checkpoint");
    ASSERT_EQ_INT(0, line.len);
    /* Witness keys do not sign plain notes. */
    ASSERT_EQ_INT(KIX_EINVAL, kix_note_sign("hi\n", 3, &w, 1, &line, &err));
    ASSERT_CONTAINS(err.msg, "kix_cosign");
    kix_buf_release(&line);
    kix_signer_free(log);
    kix_signer_free(w);
}

KIX_TEST(note_sign_rejects_bad_text)
{
    static const struct {
        const char *text;
        size_t len;
        const char *why;
    } cases[] = {
        {"", 0, "empty"},
        {"no newline", 10, "end in a newline"},
        {"tab\there\n", 9, "control character 0x09"},
        {"cr\r\n", 4, "control character 0x0d"},
        {"nul\0\n", 5, "control character 0x00"},
        {"bad \xff utf8\n", 11, "invalid UTF-8"},
        {"overlong \xc0\xaf\n", 12, "invalid UTF-8"},
        {"surrogate \xed\xa0\x80\n", 14, "invalid UTF-8"},
    };
    struct kix_signer *s = NULL;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("kix.example/log", 1, &s, &err));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = kix_note_sign(cases[i].text, cases[i].len, &s, 1, &out, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].why))
            fprintf(stderr, "case %zu: rc %d msg %s\n", i, rc, err.msg);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_CONTAINS(err.msg, "malformed note text");
        ASSERT_CONTAINS(err.msg, cases[i].why);
        ASSERT_EQ_INT(0, out.len);
    }
    ASSERT_EQ_INT(KIX_EINVAL, kix_note_sign("ok\n", 3, &s, 0, &out, &err));
    ASSERT_CONTAINS(err.msg, "at least one key");
    kix_buf_release(&out);
    kix_signer_free(s);
}

KIX_TEST(note_round_trips_with_blank_lines)
{
    static const char *texts[] = {"a\n",   "\n",      "a\n\nb\n",
                                  "a\n\n", "a\n\n\n", "\xe2\x80\x94 x y\n"};
    struct kix_signer *s[2] = {NULL, NULL};
    struct kix_verifier v[2];
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("one.example", 1, &s[0], &err));
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("two.example", 1, &s[1], &err));
    kix_verifier_from_signer(s[0], &v[0]);
    kix_verifier_from_signer(s[1], &v[1]);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_note nt;
        ASSERT_EQ_INT(KIX_OK, kix_note_sign(texts[i], strlen(texts[i]), s, 2, &out, &err));
        ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)out.ptr, out.len, v, 2, &nt, &err));
        ASSERT_EQ_MEM(texts[i], strlen(texts[i]), nt.text.ptr, nt.text.len);
        ASSERT_EQ_INT(2, nt.nverified);
        ASSERT_EQ_INT(0, nt.verified[0]);
        ASSERT_EQ_INT(1, nt.verified[1]);
        /* Only the second key known. */
        ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)out.ptr, out.len, v + 1, 1, &nt, &err));
        ASSERT_EQ_INT(1, nt.nverified);
        ASSERT_EQ_INT(-1, nt.sigs[0].verifier);
        ASSERT_EQ_INT(0, nt.sigs[1].verifier);
        kix_buf_release(&out);
    }
    kix_signer_free(s[0]);
    kix_signer_free(s[1]);
}

#define PETER_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
#define PETER_TEXT                                                                                 \
    "If you think cryptography is the answer to your problem,\n"                                   \
    "then you don't know what your problem is.\n"
#define PETER_LINE                                                                                 \
    "\xe2\x80\x94 PeterNeumann "                                                                   \
    "x08go/ZJkuBS9UG/"                                                                             \
    "SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"

KIX_TEST(note_open_malformed_lines)
{
    static const struct {
        const char *sigs, *why;
    } cases[] = {
        {"- PeterNeumann AAAA\n", "does not start with an em dash"},
        {"\xe2\x80\x94PeterNeumann AAAA\n", "does not start with an em dash"},
        {"\xe2\x80\x94 PeterNeumann\n", "has no signature"},
        {"\xe2\x80\x94 PeterNeumann \n", "not valid base64"},
        {"\xe2\x80\x94 PeterNeumann AAAA\n", "too short"},
        {"\xe2\x80\x94 PeterNeumann AAAAAA==\n", "too short"},
        {"\xe2\x80\x94 PeterNeumann AAAAAAA\n", "not valid base64"},
        {"\xe2\x80\x94 PeterNeumann AAAAAAAAAB==\n", "not valid base64"},
        {"\xe2\x80\x94 PeterNeumann AAAAAAAAAA=\n", "not valid base64"},
        {"\xe2\x80\x94 PeterNeumann AAAAAAAAAQ== x\n", "not valid base64"},
        {"\xe2\x80\x94 Peter+Neumann AAAAAAAAAA==\n", "invalid key name"},
        {"\xe2\x80\x94  AAAAAAAAAA==\n", "invalid key name"},
        {"\xe2\x80\x94 Peter\xe3\x80\x80 AAAAAAAAAA==\n", "invalid key name"},
        {PETER_LINE "\n", "no signature lines"},
    };
    struct kix_verifier v;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(PETER_VKEY, strlen(PETER_VKEY), &v, &err));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kix_buf note = KIX_BUF_INIT;
        struct kix_note nt;
        int rc;
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&note, PETER_TEXT "\n" PETER_LINE));
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&note, cases[i].sigs));
        rc = kix_note_open((const char *)note.ptr, note.len, &v, 1, &nt, &err);
        if (rc != KIX_EINVAL || !strstr(err.msg, cases[i].why))
            fprintf(stderr, "case %zu: rc %d msg %s\n", i, rc, err.msg);
        ASSERT_EQ_INT(KIX_EINVAL, rc);
        ASSERT_CONTAINS(err.msg, "malformed note");
        ASSERT_CONTAINS(err.msg, cases[i].why);
        kix_buf_release(&note);
    }
}

KIX_TEST(note_open_limits_and_ambiguity)
{
    struct kix_verifier v[2];
    struct kix_note nt;
    struct kix_err err = {0};
    size_t big = KIX_NOTE_MAX_BYTES + 1;
    char *huge = malloc(big);

    ASSERT_TRUE(huge != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(PETER_VKEY, strlen(PETER_VKEY), &v[0], &err));
    memset(huge, 'a', big);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_note_open(huge, big, v, 1, &nt, &err));
    ASSERT_CONTAINS(err.msg, "over the 1048576-byte limit");
    free(huge);

    /* Exactly 100 lines are fine. */
    {
        struct kix_buf note = KIX_BUF_INIT;
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&note, PETER_TEXT "\n"));
        for (int i = 0; i < 100; i++)
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&note, PETER_LINE));
        ASSERT_EQ_INT(KIX_OK, kix_note_open((const char *)note.ptr, note.len, v, 1, &nt, &err));
        ASSERT_EQ_INT(1, nt.nsigs); /* identical lines collapsed */
        kix_buf_release(&note);
    }

    /* Two known keys with the same name and hash. */
    v[1] = v[0];
    ASSERT_EQ_INT(KIX_EINVAL, kix_note_open(PETER_TEXT "\n" PETER_LINE,
                                            strlen(PETER_TEXT "\n" PETER_LINE), v, 2, &nt, &err));
    ASSERT_CONTAINS(err.msg, "ambiguous key PeterNeumann+c74f20a3");
}

KIX_TEST(note_open_checks_every_line_of_a_known_key)
{
    /* A valid Peter line followed by a different, invalid Peter line: golang.org/x/mod
     * skips the second, kix verifies it and rejects the note. */
    const char *note =
        PETER_TEXT "\n" PETER_LINE "\xe2\x80\x94 PeterNeumann "
                   "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKv"
                   "qfqdngotpRZb6KE6RyyBwJnAA=\n";
    struct kix_verifier v;
    struct kix_note nt;
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(PETER_VKEY, strlen(PETER_VKEY), &v, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_note_open(note, strlen(note), &v, 1, &nt, &err));
    ASSERT_CONTAINS(err.msg, "invalid signature for key PeterNeumann+c74f20a3");
    ASSERT_EQ_INT(0, nt.nverified);
}

/* A mirror's held statement (issue 42): it verifies against the key that
 * made it over exactly that checkpoint text, and a witness cosignature of
 * the same text by the same key never verifies as one (nor the other way
 * round), so a witness's add-checkpoint answer cannot stand for it. */
KIX_TEST(mirror_held_statement_is_not_a_cosignature)
{
    struct kix_signer *w = NULL, *log = NULL;
    struct kix_verifier wv;
    struct kix_buf held = KIX_BUF_INIT, cosig = KIX_BUF_INIT, note = KIX_BUF_INIT;
    struct kix_note nt;
    struct kix_err err = {0};
    uint64_t t = 0;
    size_t which = 9;
    uint8_t seed[32];
    static const char other[] =
        "example.com/behind-the-sofa\n21\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";

    ASSERT_EQ_INT(KIX_OK, kix_signer_parse(W_SKEY, strlen(W_SKEY), &w, &err));
    kix_verifier_from_signer(w, &wv);
    ASSERT_EQ_INT(KIX_OK,
                  kix_mirror_held_sign(w, SOFA_TEXT, strlen(SOFA_TEXT), 1700000000, &held, &err));
    ASSERT_EQ_INT(KIX_OK, kix_mirror_held_verify((const char *)held.ptr, held.len, SOFA_TEXT,
                                                 strlen(SOFA_TEXT), &wv, 1, &which, &t, &err));
    ASSERT_EQ_U64(0, which);
    ASSERT_EQ_U64(1700000000, t);
    /* another checkpoint text: refused */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_mirror_held_verify((const char *)held.ptr, held.len, other,
                                                      strlen(other), &wv, 1, NULL, NULL, &err));
    /* the witness's cosignature of the same text, same key, same time */
    ASSERT_EQ_INT(KIX_OK, kix_cosign(w, SOFA_TEXT, strlen(SOFA_TEXT), 1700000000, &cosig, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_mirror_held_verify((const char *)cosig.ptr, cosig.len, SOFA_TEXT,
                                                      strlen(SOFA_TEXT), &wv, 1, NULL, NULL, &err));
    ASSERT_CONTAINS(err.msg, "a witness cosignature is not one");
    /* and the held line does not verify as a cosignature of the note */
    memset(seed, 0x11, sizeof(seed));
    ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed("example.com/behind-the-sofa", 1, seed, &log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_note_sign(SOFA_TEXT, strlen(SOFA_TEXT), &log, 1, &note, &err));
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&note, held.ptr, held.len));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_note_open((const char *)note.ptr, note.len, &wv, 1, &nt, &err));
    /* malformed: two lines, none, not a known key */
    ASSERT_EQ_INT(KIX_EINVAL, kix_mirror_held_verify("x\ny", 3, SOFA_TEXT, strlen(SOFA_TEXT), &wv,
                                                     1, NULL, NULL, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_mirror_held_verify("", 0, SOFA_TEXT, strlen(SOFA_TEXT), &wv, 1,
                                                     NULL, NULL, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_mirror_held_verify((const char *)held.ptr, held.len, SOFA_TEXT,
                                                      strlen(SOFA_TEXT), &wv, 0, NULL, NULL, &err));
    kix_buf_release(&held);
    kix_buf_release(&cosig);
    kix_buf_release(&note);
    kix_signer_free(w);
    kix_signer_free(log);
}

KIX_TEST_MAIN()
