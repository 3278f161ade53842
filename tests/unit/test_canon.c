/* RFC 8785 canonical JSON and digests: vectors, number forms, rejections. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kix/manifest.h"
#include "kix/canon.h"
#include "kix/digest.h"
#include "kix/json.h"

static const struct kix_canon_opts any_top = {0, 0, 1};

static int canon_text(const char *in, struct kix_buf *out, struct kix_err *err)
{
    kix_buf_reset(out);
    return kix_canon((const uint8_t *)in, strlen(in), NULL, out, err);
}

KIX_TEST(jcs_vectors)
{
    static const char *names[] = {"arrays", "french", "structures", "unicode", "values", "weird"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[256];
        size_t in_len = 0, want_len = 0;
        struct kix_buf out = KIX_BUF_INIT;
        struct kix_err err = {0};
        snprintf(path, sizeof(path), "vectors/jcs/input/%s.json", names[i]);
        char *in = kix_test_read_file(path, &in_len);
        snprintf(path, sizeof(path), "vectors/jcs/output/%s.json", names[i]);
        char *want = kix_test_read_file(path, &want_len);
        ASSERT_TRUE(in && want);
        int rc = kix_canon((const uint8_t *)in, in_len, &any_top, &out, &err);
        if (rc)
            fprintf(stderr, "%s: %s\n", names[i], err.msg);
        ASSERT_EQ_INT(KIX_OK, rc);
        ASSERT_EQ_MEM(want, want_len, out.ptr, out.len);
        free(in);
        free(want);
        kix_buf_release(&out);
    }
}

/* Each line "hex-ieee,expected" from the upstream ES6 number generator. */
static void check_es6_lines(FILE *f, long *checked)
{
    char line[128];
    struct kix_buf out = KIX_BUF_INIT;
    while (fgets(line, sizeof(line), f)) {
        char *comma = strchr(line, ',');
        uint64_t bits;
        double v;
        size_t want_len;
        ASSERT_TRUE(comma);
        *comma = '\0';
        bits = strtoull(line, NULL, 16);
        memcpy(&v, &bits, sizeof(v));
        want_len = strcspn(comma + 1, "\r\n");
        kix_buf_reset(&out);
        ASSERT_EQ_INT(KIX_OK, kix_canon_number(v, &out));
        if (out.len != want_len || memcmp(out.ptr, comma + 1, want_len) != 0) {
            fprintf(stderr, "bits %s: want %.*s got %s\n", line, (int)want_len, comma + 1,
                    (char *)out.ptr);
            kix_buf_release(&out);
            ASSERT_TRUE(0);
        }
        (*checked)++;
    }
    kix_buf_release(&out);
}

KIX_TEST(es6_numbers_10k)
{
    char path[4096];
    long checked = 0;
    snprintf(path, sizeof(path), "%s/vectors/jcs/es6numbers/es6testfile-10k.txt", KIX_TEST_DATA);
    FILE *f = fopen(path, "r");
    ASSERT_TRUE(f);
    check_es6_lines(f, &checked);
    fclose(f);
    ASSERT_EQ_INT(10000, checked);
}

KIX_TEST(es6_numbers_100k)
{
    char path[4096];
    char *argv[] = {"gzip", "-dc", path, NULL};
    long checked = 0;
    pid_t pid;
    snprintf(path, sizeof(path), "%s/vectors/jcs/es6numbers/es6testfile-100k.txt.gz",
             KIX_TEST_DATA);
    FILE *f = kix_test_pipe_open(argv, &pid);
    ASSERT_TRUE(f);
    check_es6_lines(f, &checked);
    ASSERT_EQ_INT(0, kix_test_pipe_close(f, pid));
    ASSERT_EQ_INT(100000, checked);
}

KIX_TEST(number_table)
{
    static const struct {
        double v;
        const char *want;
    } table[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-1.0, "-1"},
        {0.1, "0.1"},
        {0.1 + 0.2, "0.30000000000000004"},
        {5e-324, "5e-324"},
        {-5e-324, "-5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {-1.7976931348623157e308, "-1.7976931348623157e+308"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {1e21, "1e+21"},
        {1e20, "100000000000000000000"},
        {999999999999999900000.0, "999999999999999900000"},
        {1e-7, "1e-7"},
        {1e-6, "0.000001"},
        {1.5e-7, "1.5e-7"},
        {0.000001234, "0.000001234"},
        {123456789e-15, "1.23456789e-7"},
        {9007199254740992.0, "9007199254740992"},
        {-9007199254740992.0, "-9007199254740992"},
        {9007199254740994.0, "9007199254740994"},
        {4294967295.0, "4294967295"},
        {1.5, "1.5"},
        {-1.5, "-1.5"},
        {100.0, "100"},
        {1e2, "100"},
        {123.456, "123.456"},
        {1.0 / 3.0, "0.3333333333333333"},
        {2.0 / 3.0, "0.6666666666666666"},
        {333333333.3333333, "333333333.3333333"},
        {1e23, "1e+23"},
        {1.2e22, "1.2e+22"},
        {5e-7, "5e-7"},
        {0.5, "0.5"},
        {295147905179352830000.0, "295147905179352830000"},
        {1.0000000000000002, "1.0000000000000002"},
        {4.35, "4.35"},
        {0.011359999887645245, "0.011359999887645245"},
        {0.01033599954098463, "0.01033599954098463"},
        {1e308, "1e+308"},
        {1e-323, "1e-323"},
        {12345678.9, "12345678.9"},
        {-0.000001, "-0.000001"},
        {123e20, "1.23e+22"},
    };
    struct kix_buf out = KIX_BUF_INIT;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        kix_buf_reset(&out);
        ASSERT_EQ_INT(KIX_OK, kix_canon_number(table[i].v, &out));
        ASSERT_EQ_STR(table[i].want, (const char *)out.ptr);
    }
    ASSERT_TRUE(sizeof(table) / sizeof(table[0]) >= 40);
    ASSERT_EQ_INT(KIX_EINVAL, kix_canon_number(NAN, &out));
    ASSERT_EQ_INT(KIX_EINVAL, kix_canon_number(INFINITY, &out));
    kix_buf_release(&out);
}

KIX_TEST(number_literals)
{
    static const struct {
        const char *in, *want;
    } table[] = {
        {"{\"n\":-0}", "{\"n\":0}"},
        {"{\"n\":-0.0}", "{\"n\":0}"},
        {"{\"n\":1E2}", "{\"n\":100}"},
        {"{\"n\":1.000}", "{\"n\":1}"},
        {"{\"n\":9007199254740992}", "{\"n\":9007199254740992}"},
        {"{\"n\":-9007199254740992}", "{\"n\":-9007199254740992}"},
        {"{\"n\":1e21}", "{\"n\":1e+21}"},
        {"{\"n\":0.0000001}", "{\"n\":1e-7}"},
        {"{\"n\":9007199254740993.0}", "{\"n\":9007199254740992}"},
        /* doubles in [2^53, 1e21) with a fraction or exponent (RFC 8785's ES6 table) */
        {"{\"n\":-3.333333333333333e+20}", "{\"n\":-333333333333333300000}"},
        {"{\"n\":1e17}", "{\"n\":100000000000000000}"},
        {"{\"n\":1.5e20}", "{\"n\":150000000000000000000}"},
        {"{\"n\":290071992547409922.5}", "{\"n\":290071992547409900}"},
        /* integer literals that are the canonical form of a double, or its exact value */
        {"{\"n\":-333333333333333300000}", "{\"n\":-333333333333333300000}"},
        {"{\"n\":333333333333333300000}", "{\"n\":333333333333333300000}"},
        {"{\"n\":9007199254740994}", "{\"n\":9007199254740994}"},
        {"{\"n\":1152921504606846976}", "{\"n\":1152921504606847000}"},
        {"{\"n\":1152921504606847000}", "{\"n\":1152921504606847000}"},
        {"{\"n\":9223372036854775808}", "{\"n\":9223372036854776000}"},
        {"{\"n\":-9223372036854775808}", "{\"n\":-9223372036854776000}"},
        {"{\"n\":999999999999999900000}", "{\"n\":999999999999999900000}"},
        {"{\"n\":1000000000000000000000}", "{\"n\":1e+21}"},
        {"{\"n\":[100000000000000000000 ,1]}", "{\"n\":[100000000000000000000,1]}"},
    };
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        ASSERT_EQ_INT(KIX_OK, canon_text(table[i].in, &out, &err));
        ASSERT_EQ_STR(table[i].want, (const char *)out.ptr);
    }
    kix_buf_release(&out);
}

KIX_TEST(key_order_utf16)
{
    /* U+1F600 (surrogates D83D DE00) sorts before U+FB01 (FB01) in UTF-16
     * though after it in UTF-8 and code points; "\u00e9" after "z". */
    const char *in = "{\"\xef\xac\x81\":1,\"\xf0\x9f\x98\x80\":2,\"z\":3,\"\xc3\xa9\":4,\"a\":5,"
                     "\"ab\":6,\"\":7}";
    const char *want = "{\"\":7,\"a\":5,\"ab\":6,\"z\":3,\"\xc3\xa9\":4,\"\xf0\x9f\x98\x80\":2,"
                       "\"\xef\xac\x81\":1}";
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_OK, canon_text(in, &out, &err));
    ASSERT_EQ_STR(want, (const char *)out.ptr);
    kix_buf_release(&out);
}

KIX_TEST(string_escaping)
{
    const char *in = "{\"s\":\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f \\\"\\\\/\\u007f"
                     "\\u00e9\\ud83d\\ude00\\u2028\"}";
    const char *want = "{\"s\":\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f \\\"\\\\/\x7f"
                       "\xc3\xa9\xf0\x9f\x98\x80\xe2\x80\xa8\"}";
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_OK, canon_text(in, &out, &err));
    ASSERT_EQ_MEM(want, strlen(want) + 0, out.ptr, out.len);
    kix_buf_release(&out);
}

KIX_TEST(rejections)
{
    static const struct {
        const char *in;
        int code;
        const char *needle;
    } table[] = {
        {"{\"a\":1,}", KIX_EINVAL, "invalid JSON at byte"},
        {"{\"a\":\"\xff\"}", KIX_EINVAL, "invalid UTF-8"},
        {"{\"a\":\"\xc3\"}", KIX_EINVAL, "invalid UTF-8"},
        {"{\"a\":\"\\ud800\"}", KIX_EINVAL, "\\uD800"},
        {"{\"a\":\"\\udc00x\"}", KIX_EINVAL, "\\uDC00"},
        {"{\"a\":1,\"a\":2}", KIX_EINVAL, "duplicate object key at byte 10"},
        {"{\"n\":9007199254740993}", KIX_EINVAL, "send it as a string"},
        {"{\"n\":-9007199254740993}", KIX_EINVAL, "beyond 2^53"},
        {"{\"n\":123456789012345678901234567890}", KIX_EINVAL, "at byte 5"},
        {"{\"n\":333333333333333300001}", KIX_EINVAL, "send it as a string"},
        {"{\"n\":1152921504606846977}", KIX_EINVAL, "beyond 2^53"},
        {"{\"n\":1152921504606846900}", KIX_EINVAL, "beyond 2^53"},
        {"{\"n\":0333333333333333300000}", KIX_EINVAL, "invalid JSON"},
        {"{\"n\":-0333333333333333300000}", KIX_EINVAL, "invalid JSON"},
        {"{\"n\":NaN}", KIX_EINVAL, "invalid JSON"},
        {"{\"n\":Infinity}", KIX_EINVAL, "invalid JSON"},
        {"{\"n\":1e400}", KIX_EINVAL, "number out of range"},
        {"[1,2]", KIX_EINVAL, "top level is not a JSON object"},
        {"\"s\"", KIX_EINVAL, "top level is not a JSON object"},
        {"", KIX_EINVAL, "invalid JSON"},
        {"{\"a\":1} {}", KIX_EINVAL, "end of file expected"},
        {"{\"a\\u0000b\":1}", KIX_EINVAL, "NUL character in an object key"},
    };
    struct kix_buf out = KIX_BUF_INIT;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        struct kix_err err = {0};
        ASSERT_EQ_INT(table[i].code, canon_text(table[i].in, &out, &err));
        ASSERT_CONTAINS(err.msg, table[i].needle);
    }
    kix_buf_release(&out);
}

KIX_TEST(depth_and_size_limits)
{
    struct kix_buf in = KIX_BUF_INIT, out = KIX_BUF_INIT;
    struct kix_err err = {0};
    struct kix_canon_opts small = {16, 0, 0};

    /* depth 64 is allowed, 65 is not */
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&in, "{\"a\":"));
    for (int i = 0; i < 63; i++)
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, '['));
    for (int i = 0; i < 63; i++)
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, ']'));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, '}'));
    ASSERT_EQ_INT(KIX_OK, kix_canon(in.ptr, in.len, NULL, &out, &err));
    kix_buf_reset(&in);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&in, "{\"a\":"));
    for (int i = 0; i < 100000; i++)
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, '['));
    ASSERT_EQ_INT(KIX_ELIMIT, kix_canon(in.ptr, in.len, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "nesting deeper than 64 levels at byte 68");
    /* strings do not count towards depth */
    ASSERT_EQ_INT(KIX_OK, canon_text("{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                                     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"\"}",
                                     &out, &err));
    ASSERT_EQ_INT(KIX_ELIMIT,
                  kix_canon((const uint8_t *)"{\"a\":\"0123456789\"}", 18, &small, &out, &err));
    ASSERT_CONTAINS(err.msg, "over the limit of 16 bytes");
    kix_buf_release(&in);
    kix_buf_release(&out);
}

/* The whole ES6 number file as one JSON document: each line's double,
 * written with 17 significant digits, canonicalizes to the line's expected
 * form, and the canonical document is a fixed point. */
KIX_TEST(es6_numbers_100k_document)
{
    char path[4096], line[128];
    char *argv[] = {"gzip", "-dc", path, NULL};
    struct kix_buf in = KIX_BUF_INIT, want = KIX_BUF_INIT, once = KIX_BUF_INIT,
                   twice = KIX_BUF_INIT;
    struct kix_canon_opts opts = {64u << 20, 0, 1};
    struct kix_err err = {0};
    long lines = 0;
    pid_t pid;
    snprintf(path, sizeof(path), "%s/vectors/jcs/es6numbers/es6testfile-100k.txt.gz",
             KIX_TEST_DATA);
    FILE *f = kix_test_pipe_open(argv, &pid);
    ASSERT_TRUE(f);
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, '['));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&want, '['));
    while (fgets(line, sizeof(line), f)) {
        char *comma = strchr(line, ',');
        uint64_t bits;
        double v;
        ASSERT_TRUE(comma);
        *comma = '\0';
        bits = strtoull(line, NULL, 16);
        memcpy(&v, &bits, sizeof(v));
        if (lines) {
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, ','));
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&want, ','));
        }
        ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&in, "%.17g", v));
        ASSERT_EQ_INT(KIX_OK, kix_buf_add(&want, comma + 1, strcspn(comma + 1, "\r\n")));
        lines++;
    }
    ASSERT_EQ_INT(0, kix_test_pipe_close(f, pid));
    ASSERT_EQ_INT(100000, lines);
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, ']'));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&want, ']'));
    int rc = kix_canon(in.ptr, in.len, &opts, &once, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
    ASSERT_EQ_MEM(want.ptr, want.len, once.ptr, once.len);
    /* the expected forms themselves are accepted as written */
    ASSERT_EQ_INT(KIX_OK, kix_canon(want.ptr, want.len, &opts, &twice, &err));
    ASSERT_EQ_MEM(want.ptr, want.len, twice.ptr, twice.len);
    kix_buf_release(&in);
    kix_buf_release(&want);
    kix_buf_release(&once);
    kix_buf_release(&twice);
}

/* xorshift64*: a fixed seed, so a failure names a reproducible case. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Property: for random doubles (random bits, and random integers around
 * and beyond 2^53 written as literals), whatever is accepted canonicalizes
 * to a fixed point, and the canonical form of every finite double is
 * accepted and reads back as the same double. */
KIX_TEST(canonical_numbers_are_fixed_points)
{
    struct kix_buf in = KIX_BUF_INIT, once = KIX_BUF_INIT, twice = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    long accepted = 0, refused = 0;

    for (int i = 0; i < 200000; i++) {
        uint64_t r = next_random(&seed);
        double v;
        kix_buf_reset(&in);
        switch (i % 4) {
        case 0: /* any finite double, its canonical text */
            memcpy(&v, &r, sizeof(v));
            if (!isfinite(v))
                continue;
            ASSERT_EQ_INT(KIX_OK, kix_canon_number(v, &in));
            break;
        case 1: /* a double in [2^53, 1e22) with 17 digits and an exponent */
            v = ldexp((double)(r >> 11), (int)(r % 21)) * ((r & 1) ? -1 : 1);
            ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&in, "%.16e", v));
            break;
        case 2: /* an integer literal beyond 2^53: accepted or not, never changed silently */
            ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&in, "%llu%03u", (unsigned long long)(r >> 1),
                                               (unsigned)(r % 1000)));
            break;
        default: /* an exact double written as its full integer value */
            v = ldexp((double)(r >> 11), 10 + (int)(r % 40));
            ASSERT_EQ_INT(KIX_OK, kix_buf_addf(&in, "%.0f", v));
            break;
        }
        kix_buf_reset(&once);
        int rc = kix_canon(in.ptr, in.len, &any_top, &once, &err);
        if (i % 4 == 0 || i % 4 == 1 || i % 4 == 3) {
            if (rc)
                fprintf(stderr, "refused %s: %s\n", (const char *)in.ptr, err.msg);
            ASSERT_EQ_INT(KIX_OK, rc);
        }
        if (rc) {
            ASSERT_EQ_INT(KIX_EINVAL, rc);
            refused++;
            continue;
        }
        accepted++;
        /* the value is the text's double, correctly rounded */
        ASSERT_TRUE(strtod((const char *)once.ptr, NULL) == strtod((const char *)in.ptr, NULL));
        if (i % 4 == 0)
            ASSERT_EQ_MEM(in.ptr, in.len, once.ptr, once.len);
        kix_buf_reset(&twice);
        ASSERT_EQ_INT(KIX_OK, kix_canon(once.ptr, once.len, &any_top, &twice, &err));
        ASSERT_EQ_MEM(once.ptr, once.len, twice.ptr, twice.len);
    }
    ASSERT_TRUE(accepted > 140000);
    ASSERT_TRUE(refused > 40000); /* case 2 is almost never a double exactly */
    kix_buf_release(&in);
    kix_buf_release(&once);
    kix_buf_release(&twice);
}

KIX_TEST(idempotent)
{
    const char *in = "{ \"b\" : [ 1.50, true, null, {\"y\":1, \"x\": \"\\u0041\"} ], \"a\": -0 }";
    struct kix_buf once = KIX_BUF_INIT, twice = KIX_BUF_INIT;
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_OK, canon_text(in, &once, &err));
    ASSERT_EQ_STR("{\"a\":0,\"b\":[1.5,true,null,{\"x\":\"A\",\"y\":1}]}", (const char *)once.ptr);
    ASSERT_EQ_INT(KIX_OK, kix_canon(once.ptr, once.len, NULL, &twice, &err));
    ASSERT_EQ_MEM(once.ptr, once.len, twice.ptr, twice.len);
    kix_buf_release(&once);
    kix_buf_release(&twice);
}

KIX_TEST(digest_text)
{
    struct kix_digest d, back;
    struct kix_err err = {0};
    char text[KIX_DIGEST_TEXT_LEN + 1];
    kix_digest_of("", 0, &d);
    kix_digest_format(&d, text);
    ASSERT_EQ_STR("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", text);
    ASSERT_EQ_INT(KIX_OK, kix_digest_parse(text, strlen(text), &back, &err));
    ASSERT_EQ_MEM(d.b, 32, back.b, 32);
    static const char *bad[] = {
        "sha256:E3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555",
        "sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        " sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sha256:g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(KIX_EINVAL, kix_digest_parse(bad[i], strlen(bad[i]), &back, &err));
        ASSERT_CONTAINS(err.msg, "malformed digest");
    }
    /* every byte value at every digit position: only 0-9 and a-f pass, and
     * each decodes to its value */
    for (size_t pos = 7; pos < KIX_DIGEST_TEXT_LEN; pos++)
        for (int c = 0; c < 256; c++) {
            char t[KIX_DIGEST_TEXT_LEN];
            int ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            memcpy(t, text, sizeof(t));
            t[pos] = (char)c;
            ASSERT_EQ_INT(ok, kix_digest_is_text(t, sizeof(t)));
            ASSERT_EQ_INT(ok ? KIX_OK : KIX_EINVAL, kix_digest_parse(t, sizeof(t), &back, NULL));
            if (ok) {
                unsigned v = c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
                unsigned nib = (pos - 7) % 2 ? back.b[(pos - 7) / 2] & 15u
                                             : (unsigned)back.b[(pos - 7) / 2] >> 4;
                ASSERT_EQ_INT(v, nib);
            }
        }
}

KIX_TEST(jcs_vector_digests)
{
    /* output_sha256.json lists SHA-256 of each expected output. */
    size_t len;
    char *json = kix_test_read_file("vectors/jcs/output_sha256.json", &len);
    ASSERT_TRUE(json);
    static const char *names[] = {"arrays", "french", "structures", "unicode", "values", "weird"};
    for (size_t i = 0; i < 6; i++) {
        char path[256], hex[65];
        size_t n;
        struct kix_digest d;
        snprintf(path, sizeof(path), "vectors/jcs/output/%s.json", names[i]);
        char *out = kix_test_read_file(path, &n);
        ASSERT_TRUE(out);
        kix_digest_of(out, n, &d);
        kix_hex_encode(d.b, 32, hex);
        ASSERT_TRUE(strstr(json, hex) != NULL);
        free(out);
    }
    free(json);
}

KIX_TEST(references)
{
    const char *doc =
        "{\"a\":\"sha256:1111111111111111111111111111111111111111111111111111111111111111\","
        "\"b\":[\"sha256:2222222222222222222222222222222222222222222222222222222222222222\","
        "{\"c\":\"sha256:1111111111111111111111111111111111111111111111111111111111111111\"}],"
        "\"sha256:3333333333333333333333333333333333333333333333333333333333333333\":1,"
        "\"d\":\"sha256:4444\",\"e\":\"SHA256:5555555555555555555555555555555555555555555555555"
        "555555555555555\"}";
    struct kix_digest *refs = NULL;
    size_t n = 0;
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_OK, kix_refs_extract((const uint8_t *)doc, strlen(doc), &refs, &n, &err));
    ASSERT_EQ_INT(2, n);
    ASSERT_EQ_INT(0x11, refs[0].b[0]);
    ASSERT_EQ_INT(0x22, refs[1].b[31]);
    free(refs);
}

/* A decimal of at most 15 significant digits (what a measurement usually
 * is) is written with exactly its own digits, trailing zeros dropped, at
 * every exponent of the normal range: one round of the shortest search. */
KIX_TEST(shortest_digits_of_short_decimals)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        char in[64], want[24], got[40];
        struct kix_buf out = KIX_BUF_INIT;
        int ndig, exp10, k = 0, w = 0;
        double v;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        ndig = 1 + (int)(x % 15);
        exp10 = -300 + (int)((x >> 8) % 600);
        {
            uint64_t m = (x >> 20) % 1000000000000000ull;
            char d[20];
            snprintf(d, sizeof(d), "%015llu", (unsigned long long)m);
            d[0] = d[0] == '0' ? '7' : d[0]; /* a leading digit, not zero */
            snprintf(in, sizeof(in), "%c.%.*se%d", d[0], ndig - 1, d + 1, exp10);
        }
        v = strtod(in, NULL);
        if (!isfinite(v) || v < DBL_MIN)
            continue;
        for (const char *c = in; *c && *c != 'e'; c++)
            if (*c >= '0' && *c <= '9')
                want[w++] = *c;
        while (w > 1 && want[w - 1] == '0')
            w--;
        want[w] = '\0';
        ASSERT_EQ_INT(KIX_OK, kix_canon_number(v, &out));
        if (strtod((const char *)out.ptr, NULL) != v)
            KIX_FAIL_AT("%s written %s does not read back", in, (const char *)out.ptr);
        for (const char *c = (const char *)out.ptr; *c && *c != 'e' && *c != 'E'; c++)
            if (*c >= '0' && *c <= '9' && (k || *c != '0'))
                got[k++] = *c;
        while (k > 1 && got[k - 1] == '0')
            k--;
        got[k] = '\0';
        if (strcmp(got, want) != 0)
            KIX_FAIL_AT("%s written %s: digits %s, want %s", in, (const char *)out.ptr, got, want);
        kix_buf_release(&out);
    }
}

/* kix_canon_parse_canonical's tree is kix_canon_parse_tree's (types,
 * integers against reals, every string's bytes) for canonical bytes. */
static void same_tree_both_ways(const uint8_t *doc, size_t len, const char *what)
{
    json_t *a = NULL, *b = NULL;
    struct kix_err err = {0};

    if (!kix_canon_is_canonical(doc, len, NULL))
        KIX_FAIL_AT("%s: not canonical: %.*s", what, (int)(len > 200 ? 200 : len),
                    (const char *)doc);
    ASSERT_EQ_INT(KIX_OK, kix_canon_parse_tree(doc, len, NULL, &a, &err));
    ASSERT_EQ_INT(KIX_OK, kix_canon_parse_canonical(doc, len, NULL, &b, &err));
    if (!json_equal(a, b))
        KIX_FAIL_AT("%s: the trees differ: %.*s", what, (int)(len > 200 ? 200 : len),
                    (const char *)doc);
    json_decref(b);
    b = NULL;
    {
        int canonical = 0;
        ASSERT_EQ_INT(KIX_OK, kix_canon_recognise_tree(doc, len, NULL, &canonical, &b, &err));
        if (!canonical || !json_equal(a, b))
            KIX_FAIL_AT("%s: the one walk's tree differs: %.*s", what, (int)(len > 200 ? 200 : len),
                        (const char *)doc);
    }
    json_decref(a);
    json_decref(b);
}

/* A random value: strings with every short escape, controls and NUL
 * (\u0000 in values), UTF-8, integers about 2^53 and 10^18, reals of
 * every exponent, nesting. */
static json_t *random_value(uint64_t *x, int depth)
{
    static const char *const strings[] = {"",
                                          "a",
                                          "quote \" and back\\slash",
                                          "tab\tnl\ncr\rbs\bff\f",
                                          "ctl \x01\x1f\x7f",
                                          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                          "slash / <tag>",
                                          "sha256:0123abcd"};
    static const char nul[] = {'n', 'u', 0, 'l'};
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    switch (depth > 3 ? *x % 6 : *x % 8) {
    case 0:
        return json_string(strings[(*x >> 8) % (sizeof(strings) / sizeof(*strings))]);
    case 1:
        return json_stringn(nul, sizeof(nul));
    case 2: {
        static const json_int_t ints[] = {0,
                                          -1,
                                          7,
                                          9007199254740991LL,
                                          -9007199254740991LL,
                                          9007199254740992LL,
                                          1000000000000000000LL,
                                          -999999999999999872LL};
        return json_integer(ints[(*x >> 8) % 8]);
    }
    case 3: {
        double d = ldexp((double)(*x >> 11) / 9007199254740992.0, (int)((*x >> 3) % 2000) - 1000);
        return json_real((*x >> 2) & 1 ? -d : d);
    }
    case 4:
        return (*x >> 9) & 1 ? json_true() : (*x >> 10) & 1 ? json_false() : json_null();
    case 5:
        return json_real((double)((*x >> 12) % 100000) / 8.0 + 1e21 * ((*x >> 5) & 1));
    case 6: {
        json_t *a = json_array();
        for (int i = (int)((*x >> 16) % 5); i > 0; i--)
            json_array_append_new(a, random_value(x, depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (int i = (int)((*x >> 16) % 5); i > 0; i--) {
            char key[32];
            snprintf(key, sizeof(key), "%s%u", (*x >> 20) & 1 ? "k\xc3\xa9y\t" : "k",
                     (unsigned)((*x >> 24) % 1000));
            json_object_set_new(o, key, random_value(x, depth + 1));
        }
        return o;
    }
    }
}

KIX_TEST(canonical_tree_is_the_parsers_tree)
{
    static const char *const files[] = {
        "vectors/jcs/output/weird.json",   "vectors/jcs/output/unicode.json",
        "vectors/jcs/output/values.json",  "vectors/jcs/output/structures.json",
        "vectors/jcs/output/french.json",  "../proto/schema/benchmark-run.schema.json",
        "../proto/schema/key.schema.json", "../proto/schema/publication.schema.json",
        "vectors/dsse/dsse_vectors.json",  "vectors/note/vectors.json",
    };
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        char path[4096];
        struct kix_buf in = KIX_BUF_INIT, canon = KIX_BUF_INIT;
        struct kix_err err = {0};
        FILE *f;
        int c;
        snprintf(path, sizeof(path), "%s/%s", KIX_TEST_DATA, files[i]);
        f = fopen(path, "rb");
        ASSERT_TRUE(f);
        while ((c = fgetc(f)) != EOF)
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&in, (char)c));
        fclose(f);
        if (in.ptr[0] != '{') { /* an array at the top: wrapped in an object */
            struct kix_buf w = KIX_BUF_INIT;
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&w, "{\"top\":"));
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&w, in.ptr, in.len));
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&w, '}'));
            kix_buf_release(&in);
            in = w;
        }
        ASSERT_EQ_INT(KIX_OK, kix_canon(in.ptr, in.len, NULL, &canon, &err));
        same_tree_both_ways(canon.ptr, canon.len, files[i]);
        kix_buf_release(&in);
        kix_buf_release(&canon);
    }
    for (int i = 0; i < 20000; i++) {
        json_t *doc = json_object();
        struct kix_buf canon = KIX_BUF_INIT;
        for (int k = 0; k < 4; k++) {
            char key[16];
            snprintf(key, sizeof(key), "m%d", k);
            json_object_set_new(doc, key, random_value(&x, 0));
        }
        ASSERT_EQ_INT(KIX_OK, kix_canon_write_tree(doc, &canon));
        same_tree_both_ways(canon.ptr, canon.len, "a random document");
        kix_buf_release(&canon);
        json_decref(doc);
    }
}

/* kix_canon_recognise_tree is the recogniser and the builder in one walk:
 * its answer is kix_canon_is_canonical's for every options, and its tree
 * the parser's exactly when that answer is 1 (a tree the walk leaves, an
 * array at the top, is parsed in full), none otherwise. */
KIX_TEST(recognise_tree_is_the_recogniser_and_the_parsers_tree)
{
    static const char *const texts[] = {
        "{\"a\":[1,2.5,\"x\"],\"b\":null,\"c\":true,\"d\":false}",
        "{\"a\":\"nu\\u0000l\\n\\\"q\\\\\"}",                    /* escapes, NUL in a value */
        "{\"k\\u001f\":1,\"k\\n\":{}}",                          /* keys with escapes */
        "{\"a\":1000000000000000000,\"b\":-123456789012345678}", /* 19 and 18 digits */
        "{\"a\":1e+21,\"b\":1.5e-7,\"c\":0.000001,\"d\":-0.5}",
        "{\"a\":{\"b\":{\"c\":[]}}}",
        "[1,{\"a\":2}]",       /* any top: parsed in full */
        "{ \"a\": 1 }",        /* not canonical */
        "{\"b\":1,\"a\":2}",   /* unsorted */
        "{\"a\":1.50}",        /* not the shortest */
        "{\"a\":[1,2,]}",      /* not JSON */
        "{\"a\":\"\\u0041\"}", /* an escape JCS does not write */
        "{\"a\":\"\xff\"}",    /* not UTF-8 */
        "{\"a\":{\"b\":1}",    /* cut short */
    };
    struct kix_canon_opts any_top = {0, 0, 1}, shallow = {0, 2, 0};
    const struct kix_canon_opts *opts[] = {NULL, &any_top, &shallow};

    for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
        for (size_t k = 0; k < sizeof(opts) / sizeof(*opts); k++) {
            const uint8_t *doc = (const uint8_t *)texts[i];
            size_t len = strlen(texts[i]);
            struct kix_err err = {0};
            json_t *built = NULL, *parsed = NULL;
            int canonical = -1, rec = kix_canon_is_canonical(doc, len, opts[k]);
            ASSERT_EQ_INT(KIX_OK,
                          kix_canon_recognise_tree(doc, len, opts[k], &canonical, &built, &err));
            if (canonical != rec)
                KIX_FAIL_AT("%s (options %zu): recognised %d, the recogniser says %d", texts[i], k,
                            canonical, rec);
            if (!rec) {
                if (built)
                    KIX_FAIL_AT("%s (options %zu): a tree of bytes not canonical", texts[i], k);
                continue;
            }
            ASSERT_EQ_INT(KIX_OK, kix_canon_parse_tree(doc, len, opts[k], &parsed, &err));
            if (!json_equal(parsed, built))
                KIX_FAIL_AT("%s (options %zu): the one walk's tree differs", texts[i], k);
            json_decref(parsed);
            json_decref(built);
        }
}

/* A tree made in an arena (prepare's record trees) is the tree made
 * without one, its nodes carved from the arena (the 16 KiB inside it, then
 * blocks: a document of ~120 KB), and dropped with it; what is made before
 * the arena opens or after it stops is malloc'ed and freed as ever (ASan
 * and LeakSanitizer would name a free of the arena's bytes or a value the
 * arena kept). One arena a thread. */
KIX_TEST(trees_made_in_an_arena_are_the_trees_made_without)
{
    struct kix_json_arena *arena = malloc(sizeof(*arena)), nested;
    struct kix_buf big = KIX_BUF_INIT;
    const char *small = "{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null,\"d\":\"nu\\u0000l\"}}";
    struct kix_err err = {0};

    ASSERT_TRUE(arena != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&big, "{"));
    for (int i = 0; i < 3000; i++)
        ASSERT_EQ_INT(KIX_OK,
                      kix_buf_addf(&big, "%s\"k%05d\":[%d,\"v%d\"]", i ? "," : "", i, i, i));
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&big, "}"));
    for (int round = 0; round < 2; round++) {
        const uint8_t *doc = round ? big.ptr : (const uint8_t *)small;
        size_t len = round ? big.len : strlen(small);
        json_t *before = json_string("made before"), *built = NULL, *parsed = NULL, *after;
        int canonical = 0;

        ASSERT_EQ_INT(1, kix_json_arena_open(arena));
        ASSERT_EQ_INT(0, kix_json_arena_open(&nested)); /* one at a time */
        kix_json_arena_stop(&nested);
        json_decref(before); /* malloc'ed: freed, in the window too */
        ASSERT_EQ_INT(KIX_OK, kix_canon_recognise_tree(doc, len, NULL, &canonical, &built, &err));
        kix_json_arena_stop(arena);
        after = json_string("made after");
        ASSERT_EQ_INT(1, canonical);
        ASSERT_TRUE((const unsigned char *)built >= arena->first &&
                    (const unsigned char *)built < arena->first + sizeof(arena->first));
        ASSERT_EQ_INT(KIX_OK, kix_canon_parse_tree(doc, len, NULL, &parsed, &err));
        ASSERT_TRUE(json_equal(parsed, built));
        json_decref(parsed);
        json_decref(after);
        kix_json_arena_release(arena); /* built is gone, never decref'd */
    }
    kix_buf_release(&big);
    kix_json_arena_end(arena); /* its bytes' poison lifted before they go back */
    free(arena);
}

/* kix_json_tree_memo's tree of `len` bytes is json_loadb's (flags 0), the
 * same types to the leaf (a 19-digit integer stays an integer, a string
 * with NUL or a 20-digit integer is no tree), and a second call with the
 * same bytes hands out the kept tree. */
static void memo_tree_is_loadbs(const uint8_t *bytes, size_t len, const char *what)
{
    json_t *want = json_loadb((const char *)bytes, len, 0, NULL);
    json_t *got = kix_json_tree_memo(bytes, len), *again;

    if (!want != !got || (want && !json_equal(want, got)))
        fprintf(stderr, "%s: %.*s\n", what, (int)(len > 400 ? 400 : len), (const char *)bytes);
    ASSERT_TRUE(!want == !got);
    ASSERT_TRUE(!want || json_equal(want, got));
    again = kix_json_tree_memo(bytes, len);
    ASSERT_TRUE(again == got);
    json_decref(again);
    json_decref(got);
    json_decref(want);
}

KIX_TEST(memo_trees_are_json_loadbs)
{
    static const char *const texts[] = {
        "{\"a\":1000000000000000000}",      /* 19 digits: jansson's integer */
        "{\"a\":-1000000000000000000}",     /* the same, negative */
        "{\"a\":99999999999999999999}",     /* 20 digits: jansson refuses it */
        "{\"a\":\"nu\\u0000l\"}",           /* NUL: refused without JSON_ALLOW_NUL */
        "{\"a\":[1,2.5,\"x\"],\"b\":null}", /* canonical */
        "{ \"b\": 1, \"a\": 2 }",           /* not canonical: parsed by jansson */
        "{\"a\":1,\"a\":2}",                /* a duplicate: the last one, as jansson */
        "{\"a\":1",                         /* not JSON */
    };
    uint64_t x = 0x2545f4914f6cdd1dull;

    kix_json_memo_begin(0);
    kix_json_memo_begin(0); /* nested: the inner end keeps the trees */
    for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
        memo_tree_is_loadbs((const uint8_t *)texts[i], strlen(texts[i]), texts[i]);
    kix_json_memo_end();
    for (int i = 0; i < 5000; i++) {
        json_t *doc = json_object();
        struct kix_buf canon = KIX_BUF_INIT;
        char *pretty;
        for (int k = 0; k < 4; k++) {
            char key[16];
            snprintf(key, sizeof(key), "m%d", k);
            json_object_set_new(doc, key, random_value(&x, 0));
        }
        ASSERT_EQ_INT(KIX_OK, kix_canon_write_tree(doc, &canon));
        memo_tree_is_loadbs(canon.ptr, canon.len, "a random canonical document");
        /* past the memo's 512 documents: the oldest go, the answers stay */
        pretty = json_dumps(doc, JSON_INDENT(1));
        ASSERT_TRUE(pretty);
        memo_tree_is_loadbs((const uint8_t *)pretty, strlen(pretty), "the same, indented");
        free(pretty);
        kix_buf_release(&canon);
        json_decref(doc);
    }
    kix_json_memo_end();
    /* a memo is one export's: the next one keeps nothing of it (a tree
     * handed out before stays its holder's) */
    {
        json_t *a, *b;
        kix_json_memo_begin(0);
        a = kix_json_tree_memo((const uint8_t *)texts[4], strlen(texts[4]));
        kix_json_memo_end();
        kix_json_memo_begin(0);
        b = kix_json_tree_memo((const uint8_t *)texts[4], strlen(texts[4]));
        ASSERT_TRUE(a && b && a != b && json_equal(a, b));
        kix_json_memo_end();
        json_decref(a);
        json_decref(b);
    }
    /* no memo begun: parsed each time */
    {
        json_t *a = kix_json_tree_memo((const uint8_t *)texts[4], strlen(texts[4]));
        json_t *b = kix_json_tree_memo((const uint8_t *)texts[4], strlen(texts[4]));
        ASSERT_TRUE(a && b && a != b && json_equal(a, b));
        json_decref(a);
        json_decref(b);
    }
}

/* The shortest round-trip digits are found by bisection over the precision;
 * at powers of two the rounding interval is lopsided, so check each one and
 * its neighbours against the plain search from one digit up. */
static int least_precision(double v)
{
    char t[40];
    for (int p = 0; p < 17; p++) {
        snprintf(t, sizeof(t), "%.*e", p, v);
        if (strtod(t, NULL) == v)
            return p;
    }
    return 16;
}

KIX_TEST(shortest_digits_at_powers_of_two)
{
    for (int e = -1074; e <= 1023; e++) {
        double p2 = ldexp(1.0, e), vs[3] = {p2, nextafter(p2, 0), nextafter(p2, INFINITY)};
        for (int i = 0; i < 3; i++) {
            struct kix_buf out = KIX_BUF_INIT;
            size_t digits = 0;
            if (!isfinite(vs[i]) || vs[i] == 0)
                continue;
            ASSERT_EQ_INT(KIX_OK, kix_canon_number(vs[i], &out));
            if (strtod((const char *)out.ptr, NULL) != vs[i])
                KIX_FAIL_AT("%a written %s does not read back", vs[i], (const char *)out.ptr);
            { /* the least precision's digits, trailing zeros dropped */
                char t[40];
                int k = 0;
                snprintf(t, sizeof(t), "%.*e", least_precision(vs[i]), vs[i]);
                for (const char *c = t; *c && *c != 'e'; c++)
                    k += *c >= '0' && *c <= '9';
                while (k > 1 && t[k] == '0') /* t is d.ddd: digit j is at t[j + 1] */
                    k--;
                digits = (size_t)k;
            }
            { /* the written number's significant digits */
                int k = 0, started = 0, trailing = 0;
                for (const char *c = (const char *)out.ptr; *c && *c != 'e'; c++) {
                    if (*c < '0' || *c > '9')
                        continue;
                    if (*c != '0')
                        started = 1;
                    if (!started)
                        continue;
                    k++;
                    trailing = *c == '0' ? trailing + 1 : 0;
                }
                if ((size_t)(k - trailing) != digits)
                    KIX_FAIL_AT("%a written %s: %d digits, the least that round-trip is %zu", vs[i],
                                (const char *)out.ptr, k - trailing, digits);
            }
            kix_buf_release(&out);
        }
    }
}

/* kix_canon_is_canonical: every JCS vector's output is recognised, and
 * each kind of non-canonical or refused text is not (kix_canon then
 * decides); whatever it recognises, kix_canon returns unchanged. */
KIX_TEST(recogniser_cases)
{
    static const char *names[] = {"arrays", "french", "structures", "unicode", "values", "weird"};
    static const struct {
        const char *text;
        int canonical;
    } cases[] = {
        {"{}", 1},
        {"{\"a\":1,\"b\":[true,false,null,\"x\"],\"c\":{\"d\":-12}}", 1},
        {"{\"a\":1.5,\"b\":-0.001,\"c\":1e+21,\"d\":1e-7,\"e\":333333333333333300000}", 1},
        {"{\"a\":\"\\u001f\\n\\\"\\\\\\u0000\x7f\xc3\xa9/\"}", 1},
        {"{\"\xef\xbf\xbd\":1,\"\xf0\x9f\x98\x80\":2}", 0}, /* U+FFFD after U+1F600 in UTF-16 */
        {"{\"\xf0\x9f\x98\x80\":2,\"\xef\xbf\xbd\":1}", 1},
        {"{\"b\":1,\"a\":2}", 0},                /* unsorted */
        {"{\"a\":1,\"a\":2}", 0},                /* duplicate */
        {"{ \"a\":1}", 0},                       /* whitespace */
        {"{\"a\":1.0}", 0},                      /* 1 */
        {"{\"a\":-0}", 0},                       /* 0 */
        {"{\"a\":1E+21}", 0},                    /* 1e+21 */
        {"{\"a\":1e21}", 0},                     /* 1e+21 */
        {"{\"a\":100000000000000000000000}", 0}, /* 1e+23 */
        {"{\"a\":9007199254740993}", 0},         /* refused: not a double */
        {"{\"a\":012}", 0},                      /* invalid */
        {"{\"a\":.5}", 0},
        {"{\"a\":1e400}", 0},                                  /* refused: out of range */
        {"{\"a\":\"\\u0041\"}", 0},                            /* A */
        {"{\"a\":\"\\/\"}", 0},                                /* / */
        {"{\"a\":\"\\u000a\"}", 0},                            /* \n */
        {"{\"a\":\"\\u001F\"}", 0},                            /* lowercase hex */
        {"{\"a\":\"\\ud83d\"}", 0},                            /* lone surrogate */
        {"{\"a\":\"\xc0\xaf\"}", 0},                           /* overlong UTF-8 */
        {"{\"a\":\"\x01\"}", 0},                               /* raw control */
        {"{\"a\\n\":1,\"a\\r\":2,\"a\\u001f\":3,\"b\":4}", 1}, /* keys compared by value */
        {"{\"a\\r\":1,\"a\\n\":2}", 0},
        {"{\"a\\u0000\":1}", 0}, /* refused: NUL in a key */
        {"[1,2]", 0},            /* top level not an object */
        {"{\"a\":1}x", 0},
        {"{\"a\":tru}", 0},
        {"{\"a\":[1,]}", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const uint8_t *t = (const uint8_t *)cases[i].text;
        size_t n = strlen(cases[i].text);
        struct kix_buf out = KIX_BUF_INIT;
        int rec = kix_canon_is_canonical(t, n, NULL);
        if (rec != cases[i].canonical)
            KIX_FAIL_AT("recogniser on %s: %d, want %d", cases[i].text, rec, cases[i].canonical);
        if (rec) {
            ASSERT_EQ_INT(KIX_OK, kix_canon(t, n, NULL, &out, NULL));
            ASSERT_EQ_MEM(t, n, out.ptr, out.len);
        }
        kix_buf_release(&out);
    }
    /* arrays and scalars with allow_any_top; depth within max_depth */
    ASSERT_EQ_INT(1, kix_canon_is_canonical((const uint8_t *)"[1,\"a\"]", 7, &any_top));
    ASSERT_EQ_INT(1, kix_canon_is_canonical((const uint8_t *)"1.5", 3, &any_top));
    {
        struct kix_canon_opts shallow = {0, 2, 0};
        ASSERT_EQ_INT(1, kix_canon_is_canonical((const uint8_t *)"{\"a\":{}}", 8, &shallow));
        ASSERT_EQ_INT(0,
                      kix_canon_is_canonical((const uint8_t *)"{\"a\":{\"b\":[]}}", 14, &shallow));
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[256];
        size_t len = 0;
        int rec;
        snprintf(path, sizeof(path), "vectors/jcs/output/%s.json", names[i]);
        char *want = kix_test_read_file(path, &len);
        ASSERT_TRUE(want != NULL);
        rec = kix_canon_is_canonical((const uint8_t *)want, len, &any_top);
        free(want);
        if (!rec)
            KIX_FAIL_AT("the canonical vector %s is not recognised", names[i]);
    }
}

/* Decimal literals -I.F the recogniser takes without formatting them
 * (plain_decimal_is_canonical: up to 15 significant digits, no trailing
 * zero, at least 10^-6) are recognised exactly when kix_canon writes them
 * back unchanged, on both sides of each bound: 15 and 16-17 digits, five
 * and six leading zeros, a trailing zero, negative values. */
KIX_TEST(recognised_decimals_are_what_kix_canon_writes)
{
    uint64_t state = 0x9e3779b97f4a7c15u;
    int fast = 0;

    for (int i = 0; i < 200000; i++) {
        char lit[64];
        size_t n = 0;
        int ndigits, point, zeros, rec, same;
        struct kix_buf out = KIX_BUF_INIT;

        state = state * 6364136223846793005u + 1442695040888963407u;
        ndigits = 1 + (int)((state >> 33) % 18);
        point = (int)((state >> 40) % (unsigned)(ndigits + 1));
        zeros = point == 0 ? (int)((state >> 44) % 8) : 0;
        if ((state >> 50) & 1)
            lit[n++] = '-';
        if (point == 0)
            lit[n++] = '0';
        for (int d = 0; d < ndigits; d++) {
            uint64_t digit;
            if (d == point) {
                lit[n++] = '.';
                for (int z = 0; z < zeros; z++)
                    lit[n++] = '0';
            }
            state = state * 6364136223846793005u + 1442695040888963407u;
            digit = (state >> 33) % 10;
            if (d == 0 && point != 0 && digit == 0)
                digit = 1; /* no leading zero: not JSON */
            lit[n++] = (char)('0' + digit);
        }
        if (point == ndigits)
            continue; /* an integer: rec_number's other fast path */
        rec = kix_canon_is_canonical((const uint8_t *)lit, n, &any_top);
        same = kix_canon((const uint8_t *)lit, n, &any_top, &out, NULL) == KIX_OK && out.len == n &&
               memcmp(out.ptr, lit, n) == 0;
        kix_buf_release(&out);
        if (rec != same)
            KIX_FAIL_AT("%.*s: recognised %d, kix_canon writes it back %d", (int)n, lit, rec, same);
        fast += rec;
    }
    ASSERT_TRUE(fast > 1000);
}

/* The string scan's eight-byte steps (plain_run_end) stop at a quote, a
 * backslash or a control at any offset, and step over UTF-8 and DEL: the
 * recogniser says 1 exactly when kix_canon writes the document back. */
KIX_TEST(string_scan_finds_each_byte_at_any_offset)
{
    static const char *const inserts[] = {"\\\"", "\\\\", "\\n",      "\\u001f", "\x01",   "\x1f",
                                          "\n",   "\"",   "\xc3\xa9", "\x7f",    "\\u0041"};
    int recognised = 0, refused = 0;

    for (size_t k = 0; k < sizeof(inserts) / sizeof(inserts[0]); k++)
        for (int at = 0; at < 20; at++) {
            char doc[128];
            struct kix_buf out = KIX_BUF_INIT;
            int n = snprintf(doc, sizeof(doc), "{\"a\":\"%.*s%s%.*s\"}", at,
                             "abcdefghijklmnopqrstuvwxyz", inserts[k], 19 - at,
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
            int rec = kix_canon_is_canonical((const uint8_t *)doc, (size_t)n, NULL);
            int same = kix_canon((const uint8_t *)doc, (size_t)n, NULL, &out, NULL) == KIX_OK &&
                       out.len == (size_t)n && memcmp(out.ptr, doc, (size_t)n) == 0;
            kix_buf_release(&out);
            if (rec != same)
                KIX_FAIL_AT("%s: recognised %d, kix_canon writes it back %d", doc, rec, same);
            recognised += rec;
            refused += !rec;
        }
    ASSERT_EQ_INT(6 * 20, recognised);
    ASSERT_EQ_INT(5 * 20, refused);
}

/* A run manifest's comparison group read off its canonical bytes
 * (kix_run_comparison_key_canonical, kixd's fast path) is the one its
 * tree gives, for each shape the group code distinguishes. */
KIX_TEST(comparison_key_from_canonical_bytes)
{
    static const char h[] =
        "\"sha256:abababababababababababababababababababababababababababababab\"";
    static const char *const medians[] = {
        "15000", "0", "-5", "1.5", "1e+21", "123456789012345680", "\"7\"", "null"};
    static const char *const benchmarks[] = {"\"rope/forward\"", "\"a\\\"b\\\\c\xc3\xa9\"", "7"};
    int comparable = 0, not_comparable = 0;

    for (int with_timing = 0; with_timing < 2; with_timing++)
        for (size_t i = 0; i < sizeof(medians) / sizeof(medians[0]); i++)
            for (size_t b = 0; b < sizeof(benchmarks) / sizeof(benchmarks[0]); b++) {
                struct kix_buf m = KIX_BUF_INIT;
                struct kix_digest k1, k2;
                uint64_t v1 = 0, v2 = 0;
                char m1[16] = "", m2[16] = "";
                int r1, r2;
                ASSERT_EQ_INT(
                    KIX_OK,
                    kix_buf_addf(&m,
                                 "{\"kind\":\"BenchmarkRun\",\"spec\":{\"environmentDigest\""
                                 ":%s,\"memory\":{\"peakBytes\":{\"median\":77}},"
                                 "\"protocolDigest\":%s,\"sourceNative\":{\"benchmark\":%s},"
                                 "%s%s%s\"workloadDigest\":%s}}",
                                 h, h, benchmarks[b],
                                 with_timing ? "\"timing\":{\"latencyNs\":{\"median\":" : "",
                                 with_timing ? medians[i] : "", with_timing ? ",\"p20\":1}}," : "",
                                 h));
                ASSERT_EQ_INT(1, kix_canon_is_canonical(m.ptr, m.len, NULL));
                r1 = kix_run_comparison_key(m.ptr, m.len, &k1, &v1, m1);
                r2 = kix_run_comparison_key_canonical(m.ptr, m.len, &k2, &v2, m2);
                if (r1 != r2)
                    KIX_FAIL_AT("%s: tree %d, bytes %d", (const char *)m.ptr, r1, r2);
                if (r1 == KIX_OK) {
                    ASSERT_EQ_MEM(k1.b, 32, k2.b, 32);
                    ASSERT_EQ_U64(v1, v2);
                    ASSERT_EQ_STR(m1, m2);
                    comparable++;
                } else {
                    not_comparable++;
                }
                kix_buf_release(&m);
            }
    ASSERT_TRUE(comparable >= 8 && not_comparable >= 8);
    ASSERT_EQ_INT(KIX_ENOTFOUND,
                  kix_run_comparison_key_canonical((const uint8_t *)"{\"kind\":\"Other\"}", 16,
                                                   NULL, NULL, NULL));
}

KIX_TEST_MAIN()
