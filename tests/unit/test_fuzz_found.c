/* Regressions for bugs the fuzz targets found (tests/fuzz/README.md). Each
 * crashing input also stays in its target's corpus under tests/fuzz/corpus/,
 * named regress-*, so fuzz.replay.<target> replays it too. */
#include "fuzz/fuzz.h"
#include "harness.h"
#include "kix/canon.h"
#include "kix/dsse.h"
#include "kix/receipt.h"

static int canon_text(const char *in, struct kix_buf *out, struct kix_err *err)
{
    kix_buf_reset(out);
    err->code = 0;
    err->msg[0] = '\0';
    return kix_canon((const uint8_t *)in, strlen(in), NULL, out, err);
}

/* fuzz_canon: 290071992547409922.23 canonicalized to 290071992547409900, an
 * integer literal beyond 2^53 that kix_canon then refused, so canonical
 * output did not always read back as itself. They were refused for a while;
 * now (issue 18, RFC 8785) the canonical integer form reads back as itself. */
KIX_TEST(canon_integer_valued_real_beyond_2p53)
{
    /* Once refused (their canonical integer literal could not be read
     * back); RFC 8785 writes them, and kix now reads that form back. */
    static const char *kept[][2] = {
        {"{\"n\":290071992547409922.23}", "{\"n\":290071992547409900}"},
        {"{\"n\":1e17}", "{\"n\":100000000000000000}"},
        {"{\"n\":-1.5e20}", "{\"n\":-150000000000000000000}"},
        {"{\"n\":9007199254740994.0}", "{\"n\":9007199254740994}"},
        {"{\"n\":9.999999999999999e20}", "{\"n\":999999999999999900000}"},
        /* over 64 bytes */
        {"{\"n\":0.00000000000000000000000000000000000000000000000000000000000000001e82}",
         "{\"n\":100000000000000000}"},
        {"{\"n\":9007199254740993.0}", "{\"n\":9007199254740992}"},
        {"{\"n\":4.5e15}", "{\"n\":4500000000000000}"},
        {"{\"n\":1e21}", "{\"n\":1e+21}"},
        {"{\"n\":9.99999999999999999999e20}", "{\"n\":1e+21}"},
        {"{\"n\":-1.5e300}", "{\"n\":-1.5e+300}"},
        {"{\"n\":9007199254740992}", "{\"n\":9007199254740992}"}};
    struct kix_buf out = KIX_BUF_INIT, again = KIX_BUF_INIT;
    struct kix_err err;

    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        ASSERT_EQ_INT(KIX_OK, canon_text(kept[i][0], &out, &err));
        ASSERT_EQ_STR(kept[i][1], (const char *)out.ptr);
        ASSERT_EQ_INT(KIX_OK, canon_text((const char *)out.ptr, &again, &err));
        ASSERT_EQ_STR(kept[i][1], (const char *)again.ptr);
    }
    kix_buf_release(&out);
    kix_buf_release(&again);
}

/* fuzz_canon: jansson 2.14 skips a NUL byte that follows a number or a
 * literal, so {"a":1<NUL>} was accepted as {"a":1}. NUL bytes outside
 * strings are now refused before jansson sees them. */
KIX_TEST(canon_nul_after_number_refused)
{
    static const struct {
        const char *in;
        size_t len;
        size_t at;
    } table[] = {
        {"{\"a\":1\0}", 8, 6},      {"{\"a\":true\0}", 11, 9}, {"{\"a\":null\0,\"b\":2}", 16, 9},
        {"{\"a\":[1\0,2]}", 12, 7}, {"{\"a\":1.5\0}", 10, 8},  {"{\"\":[9.5e25\0]}", 14, 11},
    };
    const struct kix_canon_opts any = {0, 0, 1};
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    char want[64];

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        ASSERT_EQ_INT(KIX_EINVAL,
                      kix_canon((const uint8_t *)table[i].in, table[i].len, &any, &out, &err));
        snprintf(want, sizeof(want), "NUL byte at byte %zu", table[i].at);
        ASSERT_CONTAINS(err.msg, want);
    }
    /* a NUL inside a string stays the parser's to refuse (a control character) */
    ASSERT_EQ_INT(KIX_EINVAL, kix_canon((const uint8_t *)"{\"a\":\"\0\"}", 9, NULL, &out, &err));
    ASSERT_CONTAINS(err.msg, "control character");
    kix_buf_release(&out);
}

/* The same jansson behaviour in the statement parser (which keeps the
 * payload as signed, not canonicalized): {"x":1<NUL>} in a predicate passed. */
KIX_TEST(statement_nul_after_number_refused)
{
    char text[400];
    const char *pred = "\"predicate\":{\"x\":1";
    struct kix_statement st;
    struct kix_err err = {0};
    struct kix_buf out = KIX_BUF_INIT;
    uint8_t digest[32] = {0};
    int n = snprintf(text, sizeof(text),
                     "{\"_type\":\"https://in-toto.io/Statement/v1\",%s},\"predicateType\":"
                     "\"https://kernelindex.dev/publication/v1\",\"subject\":[{\"digest\":"
                     "{\"sha256\":\"%064d\"},\"name\":\"run\"}]}",
                     pred, 0);
    size_t at = (size_t)(strstr(text, pred) - text) + strlen(pred);

    ASSERT_TRUE(n > 0 && (size_t)n < sizeof(text));
    ASSERT_EQ_INT(KIX_OK, kix_statement_parse((const uint8_t *)text, (size_t)n, &st, &err));
    kix_statement_release(&st);
    memmove(text + at + 1, text + at, (size_t)n - at + 1); /* insert a NUL after the 1 */
    text[at] = '\0';
    ASSERT_EQ_INT(KIX_EINVAL, kix_statement_parse((const uint8_t *)text, (size_t)n + 1, &st, &err));
    ASSERT_CONTAINS(err.msg, "NUL byte at byte");
    ASSERT_EQ_INT(KIX_EINVAL, kix_statement_build("run", digest, "https://kernelindex.dev/x/v1",
                                                  "{\"x\":1\0}", 8, &out, &err));
    ASSERT_CONTAINS(err.msg, "NUL byte at byte 6");
    ASSERT_EQ_U64(0, out.len);
    kix_buf_release(&out);
}

static char *read_regress_receipt(size_t *len)
{
    return kix_test_read_file("fuzz/corpus/receipt/regress-bad-proof-null-err", len);
}

/* fuzz_receipt: kix_receipt_verify with err == NULL returned KIX_OK for a
 * receipt whose proof does not verify (return kix_err_wrap(NULL, ...) was 0). */
KIX_TEST(receipt_bad_proof_fails_without_err)
{
    struct kix_verifier key = fuzz_verifier(FUZZ_LOG_VKEY);
    struct kix_receipt r;
    struct kix_err err = {0};
    size_t len;
    char *text = read_regress_receipt(&len);

    ASSERT_TRUE(text != NULL);
    kix_receipt_init(&r);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify(text, len, &key, NULL, 0, &r, NULL, NULL));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify(text, len, &key, NULL, 0, &r, NULL, &err));
    ASSERT_CONTAINS(err.msg, "entry 0 is not proven in the checkpoint of size 2");
    kix_receipt_release(&r);
    free(text);
}

/* The same path for a checkpoint whose signature is wrong. */
KIX_TEST(receipt_bad_signature_fails_without_err)
{
    struct kix_verifier key = fuzz_verifier(FUZZ_LOG_VKEY);
    struct kix_receipt r;
    struct kix_err err = {0};
    size_t len;
    char *text = read_regress_receipt(&len), *sig;

    ASSERT_TRUE(text != NULL);
    sig = strstr(text, "\xe2\x80\x94 fuzz.test/log ");
    ASSERT_TRUE(sig != NULL);
    sig += strlen("\xe2\x80\x94 fuzz.test/log ") + 20; /* inside the signature */
    *sig = *sig == 'A' ? 'B' : 'A';
    kix_receipt_init(&r);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify(text, len, &key, NULL, 0, &r, NULL, NULL));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify(text, len, &key, NULL, 0, &r, NULL, &err));
    ASSERT_CONTAINS(err.msg,
                    "receipt checkpoint: invalid signature for key fuzz.test/log+954aa42d");
    kix_receipt_release(&r);
    free(text);
}

/* kix_cosign had the same pattern for a text that is no checkpoint. */
KIX_TEST(cosign_bad_checkpoint_fails_without_err)
{
    static const uint8_t seed[32] = {0x57};
    struct kix_signer *w = NULL;
    struct kix_buf line = KIX_BUF_INIT;
    const char *text = "fuzz.test/log\n01\nnot base64\n";

    ASSERT_EQ_INT(KIX_OK, kix_signer_from_seed("w", KIX_NOTE_ALG_COSIGN, seed, &w, NULL));
    ASSERT_EQ_INT(KIX_EINVAL, kix_cosign(w, text, strlen(text), 1, &line, NULL));
    ASSERT_EQ_U64(0, line.len);
    kix_signer_free(w);
}

/* kix_err_wrap itself can no longer turn a failure into success. */
KIX_TEST(err_wrap_without_err_is_a_failure)
{
    struct kix_err err = {0};

    ASSERT_EQ_INT(KIX_EINVAL, kix_err_wrap(NULL, "context"));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_err_set(&err, KIX_EVERIFY, "root mismatch"));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_err_wrap(&err, "entry %d", 3));
    ASSERT_EQ_STR("entry 3: root mismatch", err.msg);
}

KIX_TEST_MAIN()
