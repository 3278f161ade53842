/* SHA-256 of public data over libcrypto's SHA256_* (see kix/sha256.h for
 * why not EVP). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "kix/sha256.h"

#include <openssl/sha.h>
#include <stdalign.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(struct kix_sha256),
               "struct kix_sha256 too small for SHA256_CTX");
_Static_assert(alignof(SHA256_CTX) <= alignof(struct kix_sha256),
               "struct kix_sha256 under-aligned for SHA256_CTX");

static SHA256_CTX *ctx(struct kix_sha256 *h)
{
    return (SHA256_CTX *)(void *)h->opaque;
}

/* SHA256_Init/Update/Final return 1 always for the built-in
 * implementation (they cannot fail on memory they are given). */
void kix_sha256_init(struct kix_sha256 *h)
{
    (void)SHA256_Init(ctx(h));
}

void kix_sha256_update(struct kix_sha256 *h, const void *data, size_t len)
{
    if (len)
        (void)SHA256_Update(ctx(h), data, len);
}

void kix_sha256_final(struct kix_sha256 *h, uint8_t out[KIX_SHA256_LEN])
{
    (void)SHA256_Final(out, ctx(h));
}

void kix_sha256(const void *data, size_t len, uint8_t out[KIX_SHA256_LEN])
{
    struct kix_sha256 h;
    kix_sha256_init(&h);
    kix_sha256_update(&h, data, len);
    kix_sha256_final(&h, out);
}

void kix_sha256_2(const void *a, size_t a_len, const void *b, size_t b_len,
                  uint8_t out[KIX_SHA256_LEN])
{
    struct kix_sha256 h;
    kix_sha256_init(&h);
    kix_sha256_update(&h, a, a_len);
    kix_sha256_update(&h, b, b_len);
    kix_sha256_final(&h, out);
}
