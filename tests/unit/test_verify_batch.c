/* kix_log_verify_batch: a replica verifies, in parallel, the signatures of
 * keys registered earlier in the same batch; what it cannot verify it leaves
 * to replay, which refuses it as before. */
#include <stdint.h>

#include "fixture.h"
#include "harness.h"
#include "kix/client.h"
#include "kix/sync.h"
#include "kix/note.h"

struct leaves {
    struct kix_buf bytes[200];
    size_t n;
};

static int take(void *arg, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct leaves *l = arg;
    (void)index;
    return kix_buf_add(&l->bytes[l->n++], leaf, len);
}

/* Every entry of the upstream, prepared in a fresh replica, objects
 * included; entry `bad` (SIZE_MAX: none) gets a signature that does not
 * verify (one of its base64 digits changed). */
static size_t prepare_all(struct fixture *f, struct kix_log *replica, struct leaves *lv,
                          struct kix_prepared **items, size_t bad)
{
    struct kix_client *up = NULL;
    struct kix_bytes objs[2];
    char manifest[512];
    uint64_t got = 0;

    if (kix_client_open_store(f->dir, &up, NULL) ||
        kix_client_entries(up, 0, 200, take, lv, &got, NULL))
        abort();
    kix_client_close(up);
    for (size_t i = 0; i < lv->n; i++) {
        struct kix_submission sub;
        struct kix_err err = {0};
        if (i == bad) {
            char *sig = strstr((char *)lv->bytes[i].ptr, "\"sig\":\"");
            if (!sig)
                abort();
            sig[10] = sig[10] == 'A' ? 'B' : 'A';
        }
        sub.envelope = kix_buf_bytes(&lv->bytes[i]);
        sub.objects = objs;
        sub.nobjects = 0;
        if (i >= 4) { /* publications of fixture.h's publish(): tag i - 4 */
            run_manifest(manifest, sizeof(manifest), (int)i - 4);
            objs[0].ptr = (const uint8_t *)manifest;
            objs[0].len = strlen(manifest);
            objs[1].ptr = (const uint8_t *)workload;
            objs[1].len = strlen(workload);
            sub.nobjects = 2;
        }
        if (kix_log_prepare(replica, &sub, &items[i], &err)) {
            fprintf(stderr, "prepare %zu: %s\n", i, err.msg);
            abort();
        }
    }
    return lv->n;
}

/* The latest checkpoint, then its index note, back to back in note. */
static void checkpoint_of(struct fixture *f, struct kix_buf *note, uint64_t *size,
                          struct kix_replay_checkpoint *cp)
{
    struct kix_log_reader *r;
    struct kix_bytes v, iv;
    if (kix_log_read_begin(f->log, &r) || kix_log_reader_checkpoint(r, KIX_NO_INDEX, &v) ||
        kix_log_reader_index_note(r, KIX_NO_INDEX, &iv) || kix_buf_add(note, v.ptr, v.len) ||
        kix_buf_add(note, iv.ptr, iv.len))
        abort();
    memset(cp, 0, sizeof(*cp));
    cp->note = (const char *)note->ptr;
    cp->note_len = v.len;
    cp->index_note = cp->note + v.len;
    cp->index_note_len = iv.len;
    *size = kix_log_reader_size(r);
    kix_log_read_end(r);
}

/* A log of the fixture's keys and 100 publications, all of it prepared
 * into a fresh replica (nothing committed there yet). */
struct prepared_log {
    struct fixture f;
    struct kix_log *replica;
    struct leaves lv;
    struct kix_prepared *items[200];
    struct kix_replay_checkpoint cp;
    struct kix_buf note;
    char *rdir;
    uint64_t size;
    size_t n;
};

static void prepared_log_open(struct prepared_log *pl)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    char id[32];

    memset(pl, 0, sizeof(*pl));
    setup(&pl->f);
    for (int i = 0; i < 100; i++) {
        snprintf(id, sizeof(id), "run-%d", i);
        if (publish(&pl->f, pl->f.publisher, id, i, &res, &err))
            abort();
    }
    checkpoint_of(&pl->f, &pl->note, &pl->size, &pl->cp);
    pl->replica = new_replica(&pl->f, &pl->rdir);
    pl->n = prepare_all(&pl->f, pl->replica, &pl->lv, pl->items, SIZE_MAX);
    pl->cp.size = pl->size;
}

static void prepared_log_close(struct prepared_log *pl)
{
    for (size_t i = 0; i < pl->n; i++) {
        kix_prepared_free(pl->items[i]);
        kix_buf_release(&pl->lv.bytes[i]);
    }
    kix_buf_release(&pl->note);
    kix_log_close(pl->replica);
    remove_dir(pl->rdir);
    teardown(&pl->f);
}

KIX_TEST(keys_of_the_batch_verify_in_prepare)
{
    struct prepared_log pl;
    struct kix_err err = {0};
    size_t unchecked = 0;

    prepared_log_open(&pl);
    ASSERT_EQ_U64(104, pl.n);
    /* the fresh replica knows no key: only entry 0 (the log key) verified */
    for (size_t i = 0; i < pl.n; i++)
        unchecked += !kix_prepared_sig_checked(pl.items[i]);
    ASSERT_EQ_U64(103, unchecked);
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(pl.replica, pl.items, pl.n, NULL, 0, 2, &err));
    for (size_t i = 0; i < pl.n; i++)
        ASSERT_EQ_INT(1, kix_prepared_sig_checked(pl.items[i]));
    ASSERT_EQ_INT(KIX_OK, kix_log_replay(pl.replica, 0, pl.items, pl.n, &pl.cp, 1, &err));
    prepared_log_close(&pl);
}

/* A batch prepared while the one before it replays (kix_sync pipelines
 * them) is verified with the keys that batch registers, read from it. */
KIX_TEST(keys_of_the_batch_before_verify_in_prepare)
{
    struct prepared_log pl;
    struct kix_prepared **items;
    struct kix_err err = {0};
    size_t checked = 0, n;

    prepared_log_open(&pl);
    items = pl.items;
    n = pl.n;
    ASSERT_EQ_U64(104, n);
    /* entries 0..3 register the keys; 4.. are "the next batch" */
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(pl.replica, items + 4, n - 4, NULL, 0, 2, &err));
    for (size_t i = 4; i < n; i++)
        checked += kix_prepared_sig_checked(items[i]);
    ASSERT_EQ_U64(0, checked); /* no key of their own batch */
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(pl.replica, items + 4, n - 4, items, 4, 2, &err));
    for (size_t i = 4; i < n; i++)
        ASSERT_EQ_INT(1, kix_prepared_sig_checked(items[i]));
    for (size_t i = 1; i < 4; i++) /* the batch before is only read */
        ASSERT_EQ_INT(0, kix_prepared_sig_checked(items[i]));
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(pl.replica, items, 4, NULL, 0, 1, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_replay(pl.replica, 0, items, n, &pl.cp, 1, &err));
    prepared_log_close(&pl);
}

KIX_TEST(bad_signature_left_to_replay)
{
    struct fixture f;
    struct kix_log *replica;
    struct leaves lv;
    struct kix_prepared *items[200];
    struct kix_append_result res;
    struct kix_replay_checkpoint cp;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_err err = {0};
    char *rdir;
    uint64_t size;
    size_t n;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-0", 0, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    checkpoint_of(&f, &note, &size, &cp);
    replica = new_replica(&f, &rdir);
    memset(&lv, 0, sizeof(lv));
    /* a signature that does not verify: entry 5's */
    n = prepare_all(&f, replica, &lv, items, 5);
    ASSERT_EQ_U64(6, n);
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(replica, items, n, NULL, 0, 2, &err));
    ASSERT_EQ_INT(1, kix_prepared_sig_checked(items[4]));
    ASSERT_EQ_INT(0, kix_prepared_sig_checked(items[5]));
    cp.size = size;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, n, &cp, 1, &err));
    ASSERT_TRUE(strstr(err.msg, "entry 5") != NULL);
    ASSERT_TRUE(strstr(err.msg, "bad signature") != NULL);
    for (size_t i = 0; i < n; i++) {
        kix_prepared_free(items[i]);
        kix_buf_release(&lv.bytes[i]);
    }
    kix_buf_release(&note);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* A key registered after an entry does not vouch for it. */
KIX_TEST(order_within_the_batch)
{
    struct fixture f;
    struct kix_buf pub_env = KIX_BUF_INIT, key_env = KIX_BUF_INIT;
    struct kix_prepared *items[2] = {NULL, NULL};
    struct kix_submission sub = {{NULL, 0}, NULL, 0};
    struct kix_digest d;
    struct kix_err err = {0};

    setup(&f);
    memset(d.b, 7, 32);
    /* the stranger publishes, then an admin registers the stranger's key */
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.stranger, "run-x", &d, "2026-11-29T00:00:00Z",
                                                "test", "MIT", &pub_env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_key(f.admin, 0, kix_signer_public_key(f.stranger),
                                        KIX_ROLE_PUBLISH, &key_env, &err));
    sub.envelope = kix_buf_bytes(&pub_env);
    ASSERT_EQ_INT(KIX_OK, kix_log_prepare(f.log, &sub, &items[0], &err));
    sub.envelope = kix_buf_bytes(&key_env);
    ASSERT_EQ_INT(KIX_OK, kix_log_prepare(f.log, &sub, &items[1], &err));
    ASSERT_EQ_INT(0, kix_prepared_sig_checked(items[0]));
    ASSERT_EQ_INT(1, kix_prepared_sig_checked(items[1])); /* the admin is registered */
    ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(f.log, items, 2, NULL, 0, 1, &err));
    ASSERT_EQ_INT(0, kix_prepared_sig_checked(items[0])); /* nothing to verify it with */
    /* in the other order the key vouches for the publication */
    {
        struct kix_prepared *swapped[2] = {items[1], items[0]};
        ASSERT_EQ_INT(KIX_OK, kix_log_verify_batch(f.log, swapped, 2, NULL, 0, 1, &err));
        ASSERT_EQ_INT(1, kix_prepared_sig_checked(items[0]));
    }
    kix_prepared_free(items[0]);
    kix_prepared_free(items[1]);
    kix_buf_release(&pub_env);
    kix_buf_release(&key_env);
    teardown(&f);
}

KIX_TEST_MAIN()
