/* kix/sha256.h: the FIPS 180-2 / NIST CAVS SHA-256 vectors, one-shot,
 * incremental and two-part, and agreement with libsodium (what kix hashed
 * with before) on every length across several block boundaries. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/encoding.h"
#include "kix/sha256.h"

static const char abc448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char abc896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                             "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static void hex_of(const uint8_t h[KIX_SHA256_LEN], char out[65])
{
    kix_hex_encode(h, KIX_SHA256_LEN, out);
}

KIX_TEST(nist_vectors)
{
    static const uint8_t d3[] = {0xd3}, x11af[] = {0x11, 0xaf};
    struct {
        const void *msg;
        size_t len;
        const char *want;
    } v[] = {
        {"", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {abc448, sizeof(abc448) - 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {abc896, sizeof(abc896) - 1,
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
        {d3, 1, "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1"},
        {x11af, 2, "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98"},
    };
    uint8_t h[KIX_SHA256_LEN];
    char hex[65];

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        kix_sha256(v[i].msg, v[i].len, h);
        hex_of(h, hex);
        ASSERT_EQ_STR(v[i].want, hex);
    }
    kix_sha256(NULL, 0, h); /* the empty message may come without a pointer */
    hex_of(h, hex);
    ASSERT_EQ_STR(v[0].want, hex);
}

/* FIPS 180-2 appendix B.3: one million 'a', fed in uneven pieces. */
KIX_TEST(nist_million_a)
{
    static char chunk[1000];
    struct kix_sha256 st;
    uint8_t h[KIX_SHA256_LEN];
    char hex[65];
    size_t fed = 0, piece = 1;

    memset(chunk, 'a', sizeof(chunk));
    kix_sha256_init(&st);
    while (fed < 1000000) {
        size_t n = piece < 1000000 - fed ? piece : 1000000 - fed;
        kix_sha256_update(&st, chunk, n);
        fed += n;
        piece = piece % 991 + 7; /* 7..997, within chunk */
    }
    kix_sha256_final(&st, h);
    hex_of(h, hex);
    ASSERT_EQ_STR("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", hex);
}

/* Every length 0..1100 (so every tail of the 64-byte block and the
 * padding's two-block case), one-shot, split anywhere, and in two parts,
 * against libsodium's independent implementation. */
KIX_TEST(matches_libsodium)
{
    static uint8_t msg[1100];
    uint8_t want[32], got[32];

    ASSERT_TRUE(sodium_init() >= 0);
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i * 131 + 7);
    for (size_t len = 0; len <= sizeof(msg); len++) {
        size_t split = len ? (len * 7919) % (len + 1) : 0;
        struct kix_sha256 st;

        crypto_hash_sha256(want, msg, len);
        kix_sha256(msg, len, got);
        ASSERT_EQ_MEM(want, 32, got, 32);
        kix_sha256_2(msg, split, msg + split, len - split, got);
        ASSERT_EQ_MEM(want, 32, got, 32);
        kix_sha256_init(&st);
        kix_sha256_update(&st, msg, split);
        kix_sha256_update(&st, msg + split, 0);
        kix_sha256_update(&st, msg + split, len - split);
        kix_sha256_final(&st, got);
        ASSERT_EQ_MEM(want, 32, got, 32);
    }
}

/* A Merkle node hashed in place (out aliasing the input), as the tree does. */
KIX_TEST(output_may_alias_input)
{
    uint8_t buf[65], want[32];

    memset(buf, 0x5a, sizeof(buf));
    buf[0] = 0x01;
    crypto_hash_sha256(want, buf, sizeof(buf));
    kix_sha256(buf, sizeof(buf), buf);
    ASSERT_EQ_MEM(want, 32, buf, 32);
}

/* A state copied mid-way finishes to the same digest as the original. */
KIX_TEST(state_is_copyable)
{
    struct kix_sha256 a, b;
    uint8_t ha[32], hb[32], want[32];

    kix_sha256_init(&a);
    kix_sha256_update(&a, "hello ", 6);
    b = a;
    kix_sha256_update(&a, "world", 5);
    kix_sha256_update(&b, "world", 5);
    kix_sha256_final(&a, ha);
    kix_sha256_final(&b, hb);
    kix_sha256("hello world", 11, want);
    ASSERT_EQ_MEM(want, 32, ha, 32);
    ASSERT_EQ_MEM(want, 32, hb, 32);
}

KIX_TEST_MAIN()
