/* kix_log_verify_batch: a replica prepares a whole upstream batch before
 * committing any of it, so prepare cannot verify entries signed by keys that
 * the batch itself registers; this verifies them on all cores instead of
 * leaving them to the single commit thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_internal.h"

struct batch_verify {
    struct kix_prepared **todo;
    const uint8_t (*pubs)[32];
    size_t n;
    atomic_size_t next;
};

static void *verify_some(void *arg)
{
    struct batch_verify *bv = arg;
    for (size_t i; (i = atomic_fetch_add(&bv->next, 1)) < bv->n;) {
        struct kix_prepared *p = bv->todo[i];
        if (kix_dsse_verify(&p->env, bv->pubs[i], p->env.sigs[0].keyid, NULL) == KIX_OK) {
            memcpy(p->signer_pub, bv->pubs[i], 32);
            p->sig_checked = 1;
        }
    }
    return NULL;
}

static int registers(const struct kix_prepared *p)
{
    return p && p->entry.type == KIX_ENTRY_KEY && !p->entry.key_revoke;
}

int kix_log_verify_batch(struct kix_log *l, struct kix_prepared *const *items, size_t n,
                         struct kix_prepared *const *earlier, size_t nearlier, unsigned threads,
                         struct kix_err *err)
{
    struct batch_verify bv;
    struct kix_prepared **keys = NULL;
    pthread_t tids[16];
    size_t nkeys = 0, started = 0;
    uint8_t(*pubs)[32] = NULL;
    int rc = KIX_OK;

    (void)l;
    memset(&bv, 0, sizeof(bv));
    for (size_t i = 0; i < nearlier; i++)
        nkeys += registers(earlier[i]);
    for (size_t i = 0; i < n; i++)
        nkeys += registers(items[i]);
    if (!nkeys)
        return KIX_OK;
    keys = malloc(nkeys * sizeof(*keys));
    bv.todo = malloc(n * sizeof(*bv.todo));
    pubs = malloc(n * sizeof(*pubs));
    if (!keys || !bv.todo || !pubs) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    nkeys = 0;
    /* the batch before's keys (its items are only read: it may be replaying) */
    for (size_t i = 0; i < nearlier; i++)
        if (registers(earlier[i]))
            keys[nkeys++] = earlier[i];
    /* in order: an item can use the keys added before it */
    for (size_t i = 0; i < n; i++) {
        struct kix_prepared *p = items[i];
        if (!p)
            continue;
        if (!p->sig_checked)
            for (size_t k = 0; k < nkeys; k++)
                if (memcmp(keys[k]->entry.subject.b, p->entry.signer, 32) == 0) {
                    bv.todo[bv.n] = p;
                    memcpy(pubs[bv.n], keys[k]->entry.key_pub, 32);
                    bv.n++;
                    break;
                }
        if (registers(p))
            keys[nkeys++] = p;
    }
    bv.pubs = (const uint8_t(*)[32])pubs;
    if (!threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus < 1 ? 1 : (unsigned)cpus;
    }
    if (threads > 16)
        threads = 16;
    for (unsigned t = 1; t < threads && bv.n > 64; t++)
        if (pthread_create(&tids[started], NULL, verify_some, &bv) == 0)
            started++;
    verify_some(&bv);
    for (size_t t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
out:
    free(keys);
    free(bv.todo);
    free(pubs);
    return rc;
}
