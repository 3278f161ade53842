/* DSSE envelopes and in-toto statements: a parsed envelope encodes, the
 * encoding re-parses and re-encodes identically; its payload goes through
 * the statement parser (the raw input does when it is no envelope), and its
 * signatures through Ed25519 verification with the seed log's key. The
 * canonical-layout reader (kix_dsse_parse_canonical, kixd's fast path)
 * accepts only what the general parser accepts, with the same envelope,
 * only bytes that are that envelope's encoding (prepare stores them as they
 * came), and every encoding without an escape. A statement read in
 * kix_canon's one pass (a canonical one) reads as jansson's parser reads
 * it: the same predicate tree, the same refusals. */
#include <jansson.h>
#include <string.h>

#include "fuzz.h"
#include "kix/dsse.h"
#include "kix/json.h"

/* kix_statement_parse_tree against json_loadb, the parser it skips for a
 * canonical statement: what it accepts jansson reads to the same predicate
 * (json_equal tells an integer from a real), so what jansson refuses it
 * refuses. */
static void statement_as_jansson(const uint8_t *data, size_t size)
{
    struct kix_statement st;
    json_error_t jerr;
    json_t *pred = NULL, *ref = NULL;
    int rc = kix_statement_parse_tree(data, size, &st, &pred, NULL);

    if (size <= KIX_STATEMENT_MAX_BYTES && !memchr(data, '\0', size))
        ref = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (rc == KIX_OK && (!ref || !json_equal(pred, json_object_get(ref, "predicate"))))
        abort();
    json_decref(pred);
    json_decref(ref);
    kix_statement_release(&st);
}

static int same_envelope(const struct kix_dsse_envelope *a, const struct kix_dsse_envelope *b)
{
    if (a->payload_type_len != b->payload_type_len ||
        memcmp(a->payload_type, b->payload_type, a->payload_type_len + 1) != 0 ||
        a->payload.len != b->payload.len ||
        (a->payload.len && memcmp(a->payload.ptr, b->payload.ptr, a->payload.len) != 0) ||
        a->n_sigs != b->n_sigs)
        return 0;
    for (size_t i = 0; i < a->n_sigs; i++) {
        const struct kix_dsse_sig *x = &a->sigs[i], *y = &b->sigs[i];
        if (x->has_keyid != y->has_keyid || x->keyid_len != y->keyid_len ||
            memcmp(x->keyid, y->keyid, x->keyid_len + 1) != 0 || x->sig_len != y->sig_len ||
            memcmp(x->sig, y->sig, x->sig_len) != 0)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct kix_dsse_envelope env, again, fast; /* 5 KiB each */
    static struct kix_verifier log_key;
    struct kix_buf once = KIX_BUF_INIT, twice = KIX_BUF_INIT;

    if (!log_key.alg)
        log_key = fuzz_verifier(FUZZ_LOG_VKEY);
    kix_dsse_envelope_init(&again);
    if (kix_dsse_parse_canonical(data, size, &fast) == KIX_OK &&
        (kix_dsse_parse_json(data, size, &env, NULL) != KIX_OK || !same_envelope(&fast, &env) ||
         kix_dsse_encode(&fast, &once, NULL) != KIX_OK || once.len != size ||
         memcmp(once.ptr, data, size) != 0))
        abort();
    kix_buf_release(&once);
    kix_dsse_envelope_release(&fast);
    kix_dsse_envelope_release(&env);
    if (kix_dsse_parse(data, size, &env, NULL) == KIX_OK) {
        if (kix_dsse_encode(&env, &once, NULL) != KIX_OK ||
            (env.read_canonical && (once.len != size || memcmp(once.ptr, data, size) != 0)) ||
            kix_dsse_parse(once.ptr, once.len, &again, NULL) != KIX_OK ||
            kix_dsse_encode(&again, &twice, NULL) != KIX_OK || twice.len != once.len ||
            memcmp(twice.ptr, once.ptr, once.len) != 0)
            abort();
        if (!memchr(once.ptr, '\\', once.len) &&
            (kix_dsse_parse_canonical(once.ptr, once.len, &fast) != KIX_OK ||
             !same_envelope(&fast, &env)))
            abort();
        kix_dsse_envelope_release(&fast);
        if (kix_dsse_verify(&env, log_key.pub, NULL, NULL)) {
        }
        statement_as_jansson(env.payload.ptr, env.payload.len);
    } else {
        statement_as_jansson(data, size);
    }
    kix_dsse_envelope_release(&env);
    kix_dsse_envelope_release(&again);
    kix_buf_release(&once);
    kix_buf_release(&twice);
    return 0;
}
