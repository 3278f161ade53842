/* RFC 8785 canonical JSON: any input is refused cleanly or canonicalizes to
 * bytes that canonicalize to themselves, byte for byte; and on those bytes
 * the references found by scan equal the ones found by parse. */
#include "fuzz.h"
#include "kix/canon.h"
#include "kix/digest.h"

static void same_refs(const struct kix_buf *canon)
{
    struct kix_digest *parsed = NULL, *scanned = NULL;
    size_t np = 0, ns = 0;

    if (kix_refs_extract(canon->ptr, canon->len, &parsed, &np, NULL) == KIX_OK) {
        if (kix_refs_canonical(canon->ptr, canon->len, &scanned, &ns) != KIX_OK || np != ns ||
            (np && memcmp(parsed, scanned, np * sizeof(*parsed)) != 0))
            abort();
    }
    free(parsed);
    free(scanned);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct kix_canon_opts opts = {0, 0, 1}; /* any top-level value */
    struct kix_buf once = KIX_BUF_INIT, twice = KIX_BUF_INIT;

    if (kix_canon(data, size, &opts, &once, NULL) == KIX_OK &&
        (kix_canon(once.ptr, once.len, &opts, &twice, NULL) != KIX_OK || twice.len != once.len ||
         memcmp(twice.ptr, once.ptr, once.len) != 0))
        abort();
    if (once.len)
        same_refs(&once);
    kix_buf_release(&once);
    kix_buf_release(&twice);
    return 0;
}
