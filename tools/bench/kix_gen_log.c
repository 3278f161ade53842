/* kix-gen-log — builds a log of N publications through the real append
 * path (kix_log_prepare on two threads, kix_log_commit in batches), for
 * scale tests. Prints the log's verifier key.
 *
 *   kix-gen-log STORE_DIR N [BATCH [ATTESTATIONS]]
 *
 * ATTESTATIONS more entries attest run gen-0 (a run with very many entries
 * about it, for resolving in pages).
 *
 * For tests and measurements only: the keys it makes are thrown away. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/entries.h"
#include "kix/index.h"

struct job {
    struct kix_log *log;
    struct kix_signer *key;
    struct kix_prepared **items;
    size_t first, from, to;
    int rc;
    int attest; /* attestations of gen-0 instead of publications */
};

/* Every run references this workload (canonical; sent with each run). */
static const char workload[] =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{\"name\":"
    "\"gen\"},\"spec\":{\"kernel\":\"gen\"}}";

/* Run i's manifest, a valid BenchmarkRun (proto/schema). */
static const char *manifest_of(size_t i, char *out, size_t cap)
{
    struct kix_digest w;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    kix_digest_of(workload, sizeof(workload) - 1, &w);
    kix_digest_format(&w, text);
    snprintf(out, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
             "\"name\":\"gen-%zu\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":%zu}},\"workloadDigest\":\"%s\"}}",
             i, i + 1, text); /* a median is above 0 (PROTOCOL.md §5.3) */
    return out;
}

static void *prepare_attestations(struct job *j)
{
    char manifest[512], note[48];
    struct kix_buf canon = KIX_BUF_INIT;
    struct kix_digest d;

    manifest_of(0, manifest, sizeof(manifest));
    j->rc = kix_canon((const uint8_t *)manifest, strlen(manifest), NULL, &canon, NULL);
    kix_digest_of(canon.ptr, canon.len, &d);
    kix_buf_release(&canon);
    for (size_t i = j->from; j->rc == KIX_OK && i < j->to; i++) {
        struct kix_buf env = KIX_BUF_INIT;
        struct kix_submission sub = {{NULL, 0}, NULL, 0};
        snprintf(note, sizeof(note), "seen %zu", j->first + i);
        j->rc = kix_entry_attestation(j->key, "gen-0", &d, note, NULL, 0, &env, NULL);
        sub.envelope = kix_buf_bytes(&env);
        if (j->rc == KIX_OK)
            j->rc = kix_log_prepare(j->log, &sub, &j->items[i], NULL);
        kix_buf_release(&env);
    }
    return NULL;
}

static void *prepare(void *arg)
{
    struct job *j = arg;
    if (j->attest)
        return prepare_attestations(j);
    for (size_t i = j->from; j->rc == KIX_OK && i < j->to; i++) {
        char manifest[512], id[32];
        struct kix_buf canon = KIX_BUF_INIT, env = KIX_BUF_INIT;
        struct kix_digest d;
        struct kix_bytes obj[2] = {{NULL, 0}, {(const uint8_t *)workload, sizeof(workload) - 1}};
        struct kix_submission sub;
        manifest_of(j->first + i, manifest, sizeof(manifest));
        snprintf(id, sizeof(id), "gen-%zu", j->first + i);
        j->rc = kix_canon((const uint8_t *)manifest, strlen(manifest), NULL, &canon, NULL);
        kix_digest_of(canon.ptr, canon.len, &d);
        if (j->rc == KIX_OK)
            j->rc = kix_entry_publication(j->key, id, &d, "2026-01-01T00:00:00Z", NULL, NULL, &env,
                                          NULL);
        obj[0] = kix_buf_bytes(&canon);
        sub.envelope = kix_buf_bytes(&env);
        sub.objects = obj;
        sub.nobjects = 2;
        if (j->rc == KIX_OK)
            j->rc = kix_log_prepare(j->log, &sub, &j->items[i], NULL);
        kix_buf_release(&canon);
        kix_buf_release(&env);
    }
    return NULL;
}

static int commit_one(struct kix_log *log, struct kix_buf *env)
{
    struct kix_submission sub = {kix_buf_bytes(env), NULL, 0};
    struct kix_prepared *p = NULL;
    struct kix_append_result res;
    int rc = kix_log_prepare(log, &sub, &p, NULL);
    if (rc == KIX_OK)
        rc = kix_log_commit(log, &p, 1, &res, NULL, NULL);
    kix_prepared_free(p);
    return rc ? rc : res.code;
}

int main(int argc, char **argv)
{
    struct kix_signer *admin = NULL, *pub = NULL;
    struct kix_log *log = NULL;
    struct kix_buf vkey = KIX_BUF_INIT, env = KIX_BUF_INIT;
    struct kix_err err = {0};
    size_t n, batch, attestations;
    int rc;

    if (argc < 3) {
        fprintf(stderr, "usage: kix-gen-log STORE_DIR N [BATCH]\n");
        return 2;
    }
    n = strtoull(argv[2], NULL, 10);
    batch = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
    attestations = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
    rc = kix_signer_generate("admin", KIX_NOTE_ALG_ED25519, &admin, &err);
    if (rc == KIX_OK)
        rc = kix_signer_generate("gen", KIX_NOTE_ALG_ED25519, &pub, &err);
    if (rc == KIX_OK)
        rc = kix_index_create(argv[1], "gen.test/log", kix_signer_public_key(admin), NULL, &vkey,
                              &err);
    if (rc == KIX_OK)
        rc = kix_index_open(argv[1], NULL, &log, &err);
    if (rc == KIX_OK)
        rc = kix_entry_key(admin, 0, kix_signer_public_key(pub),
                           KIX_ROLE_PUBLISH | (attestations ? KIX_ROLE_ATTEST : 0), &env, &err);
    if (rc == KIX_OK)
        rc = commit_one(log, &env);
    for (size_t done = 0, k = 0; rc == KIX_OK && done < n + attestations; done += k) {
        /* publications first, then the attestations of gen-0 */
        int attest = done >= n;
        size_t left = attest ? n + attestations - done : n - done, first = attest ? done - n : done;
        k = left < batch ? left : batch;
        struct kix_prepared **items = calloc(k, sizeof(*items));
        struct kix_append_result *res = calloc(k, sizeof(*res));
        struct job jobs[2] = {{log, pub, items, first, 0, k / 2, KIX_OK, attest},
                              {log, pub, items, first, k / 2, k, KIX_OK, attest}};
        pthread_t t;
        pthread_create(&t, NULL, prepare, &jobs[1]);
        prepare(&jobs[0]);
        pthread_join(t, NULL);
        rc = jobs[0].rc ? jobs[0].rc : jobs[1].rc;
        if (rc == KIX_OK)
            rc = kix_log_commit(log, items, k, res, NULL, &err);
        for (size_t i = 0; i < k; i++) {
            if (rc == KIX_OK && res[i].code)
                rc = res[i].code;
            kix_prepared_free(items[i]);
        }
        free(items);
        free(res);
    }
    if (rc == KIX_OK)
        printf("%s\n", (const char *)vkey.ptr);
    else
        fprintf(stderr, "kix-gen-log: %s\n", kix_err_text(&err, rc));
    kix_log_close(log);
    kix_signer_free(admin);
    kix_signer_free(pub);
    kix_buf_release(&vkey);
    kix_buf_release(&env);
    return rc ? 1 : 0;
}
