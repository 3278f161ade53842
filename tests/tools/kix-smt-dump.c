/* kix-smt-dump — builds a sparse Merkle tree (kix/smt.h) in memory and
 * prints its leaves, root and proofs as JSON, for an independent verifier
 * (tests/integration/smt_verify.py) to recompute byte for byte.
 *
 *   kix-smt-dump N [ABSENT]
 *
 * Keys "key-0".."key-(N-1)" with values "value-I", inserted in batches of
 * varying size; one membership proof per key and ABSENT (default 50)
 * absence proofs for keys "absent-J". The tree is stored in tiles
 * (kix_smt_tiles), as kixd stores it. Bytes are printed as lowercase hex.
 * Test-only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/smt.h"
#include "smt_mem.h"

#define HL KIX_HASH_LEN

static void hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static int cmp_upd(const void *a, const void *b)
{
    return memcmp(((const struct kix_smt_update *)a)->path.b,
                  ((const struct kix_smt_update *)b)->path.b, HL);
}

static int print_proof(struct kix_smt_io *io, const char *key, const char *value)
{
    struct kix_buf proof = KIX_BUF_INIT;
    struct kix_hash path;
    struct kix_err err;
    int present, rc;

    kix_smt_path(key, strlen(key), &path);
    rc = kix_smt_prove(io, &path, &proof, &present, NULL, &err);
    if (rc) {
        fprintf(stderr, "kix-smt-dump: %s\n", kix_err_text(&err, rc));
        goto out;
    }
    if (present != (value != NULL)) {
        fprintf(stderr, "kix-smt-dump: %s is %s\n", key, present ? "present" : "absent");
        rc = KIX_EINVAL;
        goto out;
    }
    printf("{\"key\":\"");
    hex((const uint8_t *)key, strlen(key));
    printf("\",\"value\":");
    if (value) {
        printf("\"");
        hex((const uint8_t *)value, strlen(value));
        printf("\"");
    } else {
        printf("null");
    }
    printf(",\"proof\":\"");
    hex(proof.ptr, proof.len);
    printf("\"}");
out:
    kix_buf_release(&proof);
    return rc;
}

int main(int argc, char **argv)
{
    struct map m = {calloc(64, sizeof(struct ent)), 64, 0};
    struct kix_smt_tiles tiles;
    struct kix_smt_io *io = &tiles.io;
    struct kix_smt_update *u = NULL;
    struct kix_hash root;
    struct kix_err err;
    long n, absent = 50;
    size_t done = 0, batch = 1;
    char key[64], val[64];
    int rc = KIX_OK;

    if (argc < 2 || argc > 3 || (n = strtol(argv[1], NULL, 10)) < 0 || n > 1000000 ||
        (argc == 3 && (absent = strtol(argv[2], NULL, 10)) < 0)) {
        fprintf(stderr, "usage: kix-smt-dump N [ABSENT]\n");
        return 2;
    }
    kix_smt_tiles_init(&tiles, smt_map_get, smt_map_put, &m);
    u = malloc(((size_t)n + 1) * sizeof(*u));
    if (!u || !m.e)
        return 3;
    while (done < (size_t)n) {
        size_t k = (size_t)n - done < batch ? (size_t)n - done : batch;
        for (size_t i = 0; i < k; i++) {
            snprintf(key, sizeof(key), "key-%zu", done + i);
            snprintf(val, sizeof(val), "value-%zu", done + i);
            kix_smt_path(key, strlen(key), &u[i].path);
            kix_smt_value_hash(val, strlen(val), &u[i].value_hash);
        }
        qsort(u, k, sizeof(*u), cmp_upd);
        if ((rc = kix_smt_apply(io, u, k, &root, &err)) ||
            (rc = kix_smt_tiles_flush(&tiles, &err))) {
            fprintf(stderr, "kix-smt-dump: %s\n", kix_err_text(&err, rc));
            goto out;
        }
        done += k;
        batch = batch * 3 + 1;
    }
    if ((rc = kix_smt_root(io, &root, &err))) {
        fprintf(stderr, "kix-smt-dump: %s\n", kix_err_text(&err, rc));
        goto out;
    }
    printf("{\"root\":\"");
    hex(root.b, HL);
    printf("\",\n\"leaves\":[");
    for (long i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "key-%ld", i);
        snprintf(val, sizeof(val), "value-%ld", i);
        printf("%s\n{\"key\":\"", i ? "," : "");
        hex((const uint8_t *)key, strlen(key));
        printf("\",\"value\":\"");
        hex((const uint8_t *)val, strlen(val));
        printf("\"}");
    }
    printf("],\n\"proofs\":[");
    for (long i = 0; i < n + absent && rc == KIX_OK; i++) {
        printf("%s\n", i ? "," : "");
        if (i < n) {
            snprintf(key, sizeof(key), "key-%ld", i);
            snprintf(val, sizeof(val), "value-%ld", i);
            rc = print_proof(io, key, val);
        } else {
            snprintf(key, sizeof(key), "absent-%ld", i - n);
            rc = print_proof(io, key, NULL);
        }
    }
    printf("]}\n");
out:
    kix_smt_tiles_release(&tiles);
    free(u);
    free(m.e);
    return rc ? 1 : 0;
}
