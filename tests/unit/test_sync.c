/* Syncing a replica from a real log: verified prefixes, incremental
 * catch-up, byte-identical checkpoints, and refusal of tampered data. */
#include "fixture.h"
#include "harness.h"
#include "kix/client.h"
#include "kix/sync.h"

static void publish_many(struct fixture *f, int from, int to)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    char id[32];
    for (int i = from; i < to; i++) {
        snprintf(id, sizeof(id), "run-%d", i);
        if (publish(f, f->publisher, id, i, &res, &err)) {
            fprintf(stderr, "publish: %s\n", err.msg);
            abort();
        }
    }
}

/* Latest checkpoint note of a log, copied. */
static void latest_note(struct kix_log *l, struct kix_buf *out)
{
    struct kix_log_reader *r;
    struct kix_bytes note;
    if (kix_log_read_begin(l, &r) || kix_log_reader_checkpoint(r, KIX_NO_INDEX, &note) ||
        kix_buf_add(out, note.ptr, note.len))
        abort();
    kix_log_read_end(r);
}

KIX_TEST(replica_converges_incrementally)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    struct kix_buf a = KIX_BUF_INIT, b = KIX_BUF_INIT;
    char *rdir;
    uint64_t synced = 0;

    setup(&f);
    publish_many(&f, 0, 20);
    replica = new_replica(&f, &rdir);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, NULL, &synced, &err));
    ASSERT_EQ_U64(24, synced);
    /* nothing new: a second sync is a no-op */
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, NULL, &synced, &err));
    ASSERT_EQ_U64(24, synced);
    kix_client_close(up);

    /* more entries upstream, then an incremental catch-up */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    publish_many(&f, 20, 30);
    latest_note(f.log, &a);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    struct kix_sync_opts opts = {4, 2, NULL, NULL, NULL};
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, &opts, &synced, &err));
    ASSERT_EQ_U64(34, synced);
    latest_note(replica, &b);
    ASSERT_EQ_MEM(a.ptr, a.len, b.ptr, b.len);
    kix_client_close(up);

    /* the replica serves what the origin does: resolve a run from it */
    {
        struct kix_log_reader *r;
        struct kix_resolution res;
        struct kix_checkpoint cp;
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(replica, &r));
        ASSERT_EQ_INT(KIX_OK, kix_index_resolve(r, "run-25", 6, &res, &err));
        ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.vkey, &cp, &err));
        ASSERT_EQ_U64(34, cp.size);
        kix_resolution_release(&res);
        kix_log_read_end(r);
    }
    kix_buf_release(&a);
    kix_buf_release(&b);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

KIX_TEST(tampered_upstream_object_is_refused)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    char *rdir;
    uint64_t synced = 0;
    uint8_t seq[8];

    setup(&f);
    publish_many(&f, 0, 3);
    kix_log_close(f.log);
    f.log = NULL;
    /* blob 0 is the first object stored: flip one of its bytes on disk */
    memset(seq, 0, sizeof(seq));
    tamper(f.dir, "blobs", seq, 8, 3);
    replica = new_replica(&f, &rdir);
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    /* one upstream checkpoint per replica transaction */
    struct kix_sync_opts one = {1, 1, NULL, NULL, NULL};
    ASSERT_EQ_INT(KIX_EVERIFY, kix_sync(up, replica, KIX_NO_INDEX, &one, &synced, &err));
    fprintf(stderr, "refused: %s (verified prefix: %llu entries)\n", err.msg,
            (unsigned long long)synced);
    ASSERT_CONTAINS(err.msg, "do not hash to");
    /* the replica holds only the verified prefix: the keys, entries 0-3 */
    ASSERT_EQ_U64(4, synced);
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

KIX_TEST(tampered_upstream_entry_is_named)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    char *rdir;
    uint64_t synced = 0;
    uint8_t key[8];

    setup(&f);
    publish_many(&f, 0, 3);
    kix_log_close(f.log);
    f.log = NULL;
    /* rewrite a byte of entry 4's leaf (inside its base64 payload) */
    kix_u64be_put(key, 4);
    tamper(f.dir, "leaves", key, 8, 40);
    replica = new_replica(&f, &rdir);
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    struct kix_sync_opts one = {1, 1, NULL, NULL, NULL};
    ASSERT_TRUE(kix_sync(up, replica, KIX_NO_INDEX, &one, &synced, &err) != KIX_OK);
    fprintf(stderr, "refused: %s\n", err.msg);
    ASSERT_CONTAINS(err.msg, "entry 4");
    ASSERT_EQ_U64(4, synced);
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

KIX_TEST_MAIN()
