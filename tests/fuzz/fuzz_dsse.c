/* DSSE envelopes and in-toto statements: a parsed envelope encodes, the
 * encoding re-parses and re-encodes identically; its payload goes through
 * the statement parser (the raw input does when it is no envelope), and its
 * signatures through Ed25519 verification with the seed log's key. */
#include "fuzz.h"
#include "kix/dsse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct kix_dsse_envelope env, again; /* 5 KiB each */
    static struct kix_verifier log_key;
    struct kix_statement st;
    struct kix_buf once = KIX_BUF_INIT, twice = KIX_BUF_INIT;

    if (!log_key.alg)
        log_key = fuzz_verifier(FUZZ_LOG_VKEY);
    kix_dsse_envelope_init(&again);
    kix_statement_init(&st);
    if (kix_dsse_parse(data, size, &env, NULL) == KIX_OK) {
        if (kix_dsse_encode(&env, &once, NULL) != KIX_OK ||
            kix_dsse_parse(once.ptr, once.len, &again, NULL) != KIX_OK ||
            kix_dsse_encode(&again, &twice, NULL) != KIX_OK || twice.len != once.len ||
            memcmp(twice.ptr, once.ptr, once.len) != 0)
            abort();
        if (kix_dsse_verify(&env, log_key.pub, NULL, NULL)) {
        }
        if (kix_statement_parse(env.payload.ptr, env.payload.len, &st, NULL)) {
        }
    } else if (kix_statement_parse(data, size, &st, NULL)) {
    }
    kix_statement_release(&st);
    kix_dsse_envelope_release(&env);
    kix_dsse_envelope_release(&again);
    kix_buf_release(&once);
    kix_buf_release(&twice);
    return 0;
}
