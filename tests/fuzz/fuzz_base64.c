/* kix's table-driven base64 against libsodium's on every input: the same
 * acceptance and bytes from kix_base64_decode (standard, else URL-safe),
 * kix_base64_decode_std and kix_base64_decode_secret (standard), except that
 * kix refuses any byte >= 0x80, which libsodium 1.0.18 reads as '/'; and
 * kix_base64_encode of the input is libsodium's encoding of it. */
#include <sodium.h>

#include "fuzz.h"
#include "kix/encoding.h"

static int sodium_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *got,
                         int url_too)
{
    return sodium_base642bin(out, cap, in, len, NULL, got, NULL, sodium_base64_VARIANT_ORIGINAL) ==
               0 ||
           (url_too && sodium_base642bin(out, cap, in, len, NULL, got, NULL,
                                         sodium_base64_VARIANT_URLSAFE) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    size_t cap = size / 4 * 3 + 3, sgot = 0, kgot = 0, ascii = 1;
    uint8_t *want = malloc(cap), *got = malloc(cap);
    struct kix_buf enc = KIX_BUF_INIT;
    char *senc = malloc(size / 3 * 4 + 8);

    if (!want || !got || !senc)
        abort();
    for (size_t i = 0; i < size; i++)
        ascii &= data[i] < 0x80;
    for (int url = 1; url >= 0; url--) {
        int s = sodium_decode(in, size, want, cap, &sgot, url) && ascii;
        int k = url ? kix_base64_decode(in, size, got, cap, &kgot) == KIX_OK
                    : kix_base64_decode_std(in, size, got, cap, &kgot) == 0;
        if (s != k || (s && (sgot != kgot || memcmp(want, got, sgot) != 0)))
            abort();
        if (!url && (kix_base64_decode_secret(in, size, got, cap, &kgot) == 0) != s)
            abort();
    }
    sodium_bin2base64(senc, size / 3 * 4 + 8, data, size, sodium_base64_VARIANT_ORIGINAL);
    if (kix_base64_encode(data, size, &enc) != KIX_OK || enc.len != strlen(senc) ||
        memcmp(enc.ptr, senc, enc.len) != 0)
        abort();
    kix_buf_release(&enc);
    free(senc);
    free(want);
    free(got);
    return 0;
}
