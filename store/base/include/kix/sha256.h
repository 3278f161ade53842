/* kix/sha256.h — SHA-256 of public data, from OpenSSL's libcrypto.
 *
 * Every hash kix computes over public bytes goes through here: Merkle
 * leaves and nodes, object digests, the sparse Merkle tree, statements
 * (DSSE PAE), tiles, key ids and note key hashes. libcrypto uses the CPU's
 * SHA extensions where it has them (4-7x libsodium's portable code on a
 * 65-byte node on this project's host, tools/bench/RESULTS.md); libsodium
 * stays the library for signatures and anything secret. Nothing here is
 * constant-time, and nothing here needs to be: the inputs are public.
 *
 * The calls are OpenSSL's SHA256_Init/Update/Final on a caller-held
 * context, deprecated since OpenSSL 3.0 but kept in every 3.x: its EVP
 * interface, even with a reused context, costs 1.1-1.8x as much on a
 * 65-byte Merkle node (kix-bench limits.sha256_node_evp), and the node is
 * the hash kix computes most. Only sha256.c names OpenSSL; this header
 * shows no backend type.
 *
 * Memory: the caller owns every buffer and the state; no call allocates.
 * Errors: none (SHA-256 of bytes in memory cannot fail).
 * Threads: any number at once, each with its own struct kix_sha256.
 */
#ifndef KIX_SHA256_H
#define KIX_SHA256_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#define KIX_SHA256_LEN 32

/* Incremental state; opaque (sized and aligned for libcrypto's, which
 * sha256.c checks at compile time). Copyable between updates. */
struct kix_sha256 {
    uint64_t opaque[16];
};

/* out = SHA-256(data[0..len)); data may be NULL when len is 0; out may
 * alias data. */
KIX_API void kix_sha256(const void *data, size_t len, uint8_t out[KIX_SHA256_LEN]);

/* out = SHA-256(a ‖ b), without copying either part (a Merkle leaf is
 * 0x00 ‖ entry, an SMT node tag ‖ left ‖ right with a the tag). */
KIX_API void kix_sha256_2(const void *a, size_t a_len, const void *b, size_t b_len,
                          uint8_t out[KIX_SHA256_LEN]);

KIX_API void kix_sha256_init(struct kix_sha256 *h);
KIX_API void kix_sha256_update(struct kix_sha256 *h, const void *data, size_t len);
/* Writes the digest; h must be initialised again before further use. */
KIX_API void kix_sha256_final(struct kix_sha256 *h, uint8_t out[KIX_SHA256_LEN]);

#endif
