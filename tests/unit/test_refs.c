/* References by scan (kix_refs_canonical) against references by parse
 * (kix_refs_extract): the same digests in the same order on the canonical
 * form of every document here, the hostile ones included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/canon.h"
#include "kix/digest.h"

#define D1 "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"
#define D3 "sha256:abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdef0123"

/* 0 when both agree on the canonical form of doc; n_out: how many refs. */
static int agree(const char *doc, size_t *n_out)
{
    struct kix_buf canon = KIX_BUF_INIT;
    struct kix_digest *want = NULL, *got = NULL;
    size_t nwant = 0, ngot = 0;
    int bad = 1;

    if (kix_canon((const uint8_t *)doc, strlen(doc), NULL, &canon, NULL) != KIX_OK ||
        kix_refs_extract(canon.ptr, canon.len, &want, &nwant, NULL) != KIX_OK ||
        kix_refs_canonical(canon.ptr, canon.len, &got, &ngot) != KIX_OK)
        fprintf(stderr, "cannot read %s\n", doc);
    else if (nwant != ngot || (nwant && memcmp(want, got, nwant * sizeof(*want)) != 0))
        fprintf(stderr, "scan found %zu references, parse %zu, in %s\n", ngot, nwant,
                (const char *)canon.ptr);
    else
        bad = 0;
    *n_out = nwant;
    free(want);
    free(got);
    kix_buf_release(&canon);
    return bad;
}

KIX_TEST(scan_matches_parse_on_hostile_documents)
{
    static const struct {
        const char *doc;
        size_t refs;
    } cases[] = {
        {"{}", 0},
        {"{\"a\":\"" D1 "\"}", 1},
        {"{\"b\":\"" D2 "\",\"a\":\"" D1 "\"}", 2}, /* canonical order: a first */
        {"{\"" D1 "\":\"x\"}", 0},                  /* a digest as a key is no reference */
        {"{\"" D1 "\":\"" D2 "\"}", 1},
        {"{\"a\":[\"" D1 "\",\"" D2 "\",\"" D1 "\"]}", 2}, /* distinct, first seen */
        {"{\"a\":\"\\\"" D1 "\\\"\"}", 0},                 /* inside escaped quotes */
        {"{\"a\":\"x\\\\\",\"b\":\"" D2 "\"}", 1},         /* escaped backslash ends a string */
        {"{\"a\":\"\\\\\\\"" D1 "\"}", 0},                 /* \\\" then the digest text */
        {"{\"a\":\"" D1 " \"}", 0},                        /* one char too long */
        {"{\"a\":\"SHA256:1111111111111111111111111111111111111111111111111111111111111111\"}", 0},
        {"{\"a\":\"sha256:111111111111111111111111111111111111111111111111111111111111111A\"}", 0},
        {"{\"a\":{\"b\":{\"c\":[[\"" D3 "\"]],\"d\":\"" D1 "\"}},\"e\":\"\\u00e9" D2 "\"}", 2},
        {"{\"k\\\":\":\"" D1 "\"}", 1},            /* a key holding an escaped quote and a colon */
        {"{\"a\":\"\\\":\",\"b\":\"" D2 "\"}", 1}, /* a value that looks like a key's end */
        {"{\"a\":[1,2.5,true,null,{\"x\":\"" D3 "\"}],\"z\":\"" D3 "\"}", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = 0;
        ASSERT_EQ_INT(0, agree(cases[i].doc, &n));
        if (n != cases[i].refs)
            KIX_FAIL_AT("case %zu: %zu references, want %zu", i, n, cases[i].refs);
    }
}

/* Manifests with digests in members, arrays and keys, and escapes. */
KIX_TEST(scan_matches_parse_on_generated_manifests)
{
    char doc[2048];
    size_t total = 0;
    for (int i = 0; i < 500; i++) {
        size_t n = 0;
        snprintf(doc, sizeof(doc),
                 "{\"kind\":\"BenchmarkRun\",\"spec\":{\"id\":\"run-%d\",\"note\":\"q\\\"%s\\\\\","
                 "\"protocolDigest\":\"sha256:%064x\",\"workloadDigest\":\"sha256:%064x\","
                 "\"list\":[\"sha256:%064x\",%d.5,\"sha256:%064x\"]},\"sha256:%064x\":%d}",
                 i, i % 3 ? D1 : "", i, i % 7, i % 5, i, i % 7, i, i);
        ASSERT_EQ_INT(0, agree(doc, &n));
        total += n;
    }
    ASSERT_TRUE(total >= 1400); /* about 3 distinct per manifest */
}

KIX_TEST_MAIN()
