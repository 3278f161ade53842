/* C2SP tlog-proof receipts: parse, then verify offline against the seed
 * log's key (checkpoint signature and inclusion proof of the carried entry). */
#include "fuzz.h"
#include "kix/receipt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct kix_verifier log_key;
    struct kix_receipt r;
    struct kix_checkpoint cp;

    if (!log_key.alg)
        log_key = fuzz_verifier(FUZZ_LOG_VKEY);
    kix_receipt_init(&r);
    if (kix_receipt_parse((const char *)data, size, &r, NULL) == KIX_OK &&
        (r.nproof > KIX_MERKLE_MAX_PROOF || r.checkpoint.len == 0))
        abort();
    if (kix_receipt_verify((const char *)data, size, &log_key, NULL, 0, &r, &cp, NULL) == KIX_OK &&
        (r.index >= cp.size || r.entry.len == 0 || strcmp(cp.origin, log_key.name) != 0))
        abort();
    kix_receipt_release(&r);
    return 0;
}
