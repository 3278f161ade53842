/* RFC 8785 canonical JSON: any input is refused cleanly or canonicalizes to
 * bytes that canonicalize to themselves, byte for byte. */
#include "fuzz.h"
#include "kix/canon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct kix_canon_opts opts = {0, 0, 1}; /* any top-level value */
    struct kix_buf once = KIX_BUF_INIT, twice = KIX_BUF_INIT;

    if (kix_canon(data, size, &opts, &once, NULL) == KIX_OK &&
        (kix_canon(once.ptr, once.len, &opts, &twice, NULL) != KIX_OK || twice.len != once.len ||
         memcmp(twice.ptr, once.ptr, once.len) != 0))
        abort();
    kix_buf_release(&once);
    kix_buf_release(&twice);
    return 0;
}
