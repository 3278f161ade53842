/* kix-gen-log — builds a log of N publications through the real append
 * path (kix_log_prepare on two threads, kix_log_commit in batches), for
 * scale tests. Prints the log's verifier key.
 *
 *   kix-gen-log STORE_DIR N [BATCH]
 *
 * Test-only: the keys it makes are thrown away. */
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
};

static void *prepare(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->from; j->rc == KIX_OK && i < j->to; i++) {
        char manifest[128], id[32];
        struct kix_buf canon = KIX_BUF_INIT, env = KIX_BUF_INIT;
        struct kix_digest d;
        struct kix_bytes obj;
        struct kix_submission sub;
        snprintf(manifest, sizeof(manifest), "{\"kind\":\"BenchmarkRun\",\"spec\":{\"n\":%zu}}",
                 j->first + i);
        snprintf(id, sizeof(id), "gen-%zu", j->first + i);
        j->rc = kix_canon((const uint8_t *)manifest, strlen(manifest), NULL, &canon, NULL);
        kix_digest_of(canon.ptr, canon.len, &d);
        if (j->rc == KIX_OK)
            j->rc = kix_entry_publication(j->key, id, &d, "2026-01-01T00:00:00Z", NULL, NULL, &env,
                                          NULL);
        obj = kix_buf_bytes(&canon);
        sub.envelope = kix_buf_bytes(&env);
        sub.objects = &obj;
        sub.nobjects = 1;
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
    size_t n, batch;
    int rc;

    if (argc < 3) {
        fprintf(stderr, "usage: kix-gen-log STORE_DIR N [BATCH]\n");
        return 2;
    }
    n = strtoull(argv[2], NULL, 10);
    batch = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
    rc = kix_signer_generate("admin", KIX_NOTE_ALG_ED25519, &admin, &err);
    if (rc == KIX_OK)
        rc = kix_signer_generate("gen", KIX_NOTE_ALG_ED25519, &pub, &err);
    if (rc == KIX_OK)
        rc = kix_index_create(argv[1], "gen.test/log", kix_signer_public_key(admin), NULL, &vkey,
                              &err);
    if (rc == KIX_OK)
        rc = kix_index_open(argv[1], NULL, &log, &err);
    if (rc == KIX_OK)
        rc = kix_entry_key(admin, 0, kix_signer_public_key(pub), KIX_ROLE_PUBLISH, &env, &err);
    if (rc == KIX_OK)
        rc = commit_one(log, &env);
    for (size_t done = 0; rc == KIX_OK && done < n; done += batch) {
        size_t k = n - done < batch ? n - done : batch;
        struct kix_prepared **items = calloc(k, sizeof(*items));
        struct kix_append_result *res = calloc(k, sizeof(*res));
        struct job jobs[2] = {{log, pub, items, done, 0, k / 2, KIX_OK},
                              {log, pub, items, done, k / 2, k, KIX_OK}};
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
