/* Syncing a replica from a real log: verified prefixes, incremental
 * catch-up, byte-identical checkpoints, and refusal of tampered data. */
#include "fixture.h"
#include "harness.h"
#include "kix/client.h"
#include "kix/object_pack.h"
#include "kix/source.h"
#include "kix/sync.h"
#include "kix/tlog_tiles.h"

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
    struct kix_sync_opts opts = {4, 2, NULL, NULL, NULL, NULL};
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
    struct kix_sync_opts one = {1, 1, NULL, NULL, NULL, NULL};
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

/* An upstream that serves the log but says it holds no object: a source
 * wrapping the real store (kix/source.h) that answers every object absent. */
struct forgetful {
    struct kix_source base;
    struct kix_source *inner;
};

static struct kix_source *inner_of(struct kix_source *s)
{
    return ((struct forgetful *)s)->inner;
}

static void forgetful_close(struct kix_source *s)
{
    kix_source_close(inner_of(s));
    free(s);
}

static int forgetful_info(struct kix_source *s, struct kix_client_info *out, struct kix_err *err)
{
    return inner_of(s)->ops->info(inner_of(s), out, err);
}

static int forgetful_checkpoint(struct kix_source *s, uint64_t size, struct kix_buf *note,
                                struct kix_err *err)
{
    return inner_of(s)->ops->checkpoint(inner_of(s), size, note, err);
}

static int forgetful_entries(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn,
                             void *ctx, uint64_t *got, struct kix_err *err)
{
    return inner_of(s)->ops->entries(inner_of(s), start, count, fn, ctx, got, err);
}

static int forgetful_inclusion(struct kix_source *s, uint64_t index, uint64_t size,
                               struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                               struct kix_err *err)
{
    return inner_of(s)->ops->inclusion(inner_of(s), index, size, proof, n, err);
}

static int forgetful_consistency(struct kix_source *s, uint64_t size1, uint64_t size2,
                                 struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                                 struct kix_err *err)
{
    return inner_of(s)->ops->consistency(inner_of(s), size1, size2, proof, n, err);
}

static int forgetful_checkpoints(struct kix_source *s, uint64_t after, size_t limit,
                                 kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    return inner_of(s)->ops->checkpoints(inner_of(s), after, limit, fn, ctx, err);
}

static int no_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                      kix_object_fn fn, void *ctx, struct kix_err *err)
{
    (void)s;
    (void)digests;
    (void)err;
    for (size_t i = 0; i < n; i++) {
        int rc = fn(ctx, i, NULL, 0);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

static const struct kix_source_ops forgetful_ops = {
    .close = forgetful_close,
    .info = forgetful_info,
    .checkpoint = forgetful_checkpoint,
    .entries = forgetful_entries,
    .inclusion = forgetful_inclusion,
    .consistency = forgetful_consistency,
    .checkpoints = forgetful_checkpoints,
    .objects = no_objects,
};

/* Refused as a verification failure naming the entry (no test had an
 * upstream lacking an object), with a struct kix_err and without one. */
KIX_TEST(upstream_without_an_object_is_refused)
{
    struct fixture f;
    struct forgetful *src = calloc(1, sizeof(*src));
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    char *rdir;
    uint64_t synced = 0;

    setup(&f);
    publish_many(&f, 0, 1);
    kix_log_close(f.log);
    f.log = NULL;
    replica = new_replica(&f, &rdir);
    ASSERT_TRUE(src != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_source_open_store(f.dir, &src->inner, &err));
    src->base.ops = &forgetful_ops;
    snprintf(src->base.where, sizeof(src->base.where), "a forgetful store");
    ASSERT_EQ_INT(KIX_OK, kix_client_open_source(&src->base, &up, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_sync(up, replica, KIX_NO_INDEX, NULL, &synced, &err));
    ASSERT_CONTAINS(err.msg, "the upstream lacks object");
    ASSERT_EQ_INT(KIX_CAUSE_ENTRY, err.cause);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_sync(up, replica, KIX_NO_INDEX, NULL, &synced, NULL));
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
    struct kix_sync_opts one = {1, 1, NULL, NULL, NULL, NULL};
    ASSERT_TRUE(kix_sync(up, replica, KIX_NO_INDEX, &one, &synced, &err) != KIX_OK);
    fprintf(stderr, "refused: %s\n", err.msg);
    ASSERT_CONTAINS(err.msg, "entry 4");
    ASSERT_EQ_U64(4, synced);
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* Publishes `runs` runs in f's log and catches a new replica up from its
 * store on 2 threads, in batches of at most max_batch (0: the default),
 * counted in *st: the replica's newest checkpoint is the log's. The caller
 * closes the replica, removes *rdir and tears f down. */
static struct kix_log *caught_up(struct fixture *f, int runs, size_t max_batch,
                                 struct kix_sync_stats *st, char **rdir)
{
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    struct kix_buf a = KIX_BUF_INIT, b = KIX_BUF_INIT;
    struct kix_sync_opts opts = {max_batch, 2, NULL, NULL, NULL, st};
    uint64_t synced = 0;

    setup(f);
    publish_many(f, 0, runs);
    latest_note(f->log, &a);
    kix_log_close(f->log);
    f->log = NULL;
    replica = new_replica(f, rdir);
    if (kix_client_open_store(f->dir, &up, &err) ||
        kix_sync(up, replica, KIX_NO_INDEX, &opts, &synced, &err)) {
        fprintf(stderr, "sync: %s\n", err.msg);
        abort();
    }
    latest_note(replica, &b);
    if (synced != st->entries || a.len != b.len || memcmp(a.ptr, b.ptr, a.len) != 0)
        abort();
    kix_buf_release(&a);
    kix_buf_release(&b);
    kix_client_close(up);
    return replica;
}

/* A catch-up in batches: each batch after the first is fetched, parsed
 * and verified on every thread while the one before it replays, and every
 * signature is verified there, the entries' and the checkpoints', none
 * left to the single replay thread. */
KIX_TEST(pipelined_batches_verify_on_every_thread)
{
    struct fixture f;
    struct kix_sync_stats st;
    struct kix_log_seal_stats ss;
    char *rdir;
    struct kix_log *replica = caught_up(&f, 150, 40, &st, &rdir);

    ASSERT_EQ_U64(154, st.entries);
    ASSERT_TRUE(st.batches >= 3);
    ASSERT_EQ_U64(st.batches - 1, st.overlapped);
    ASSERT_EQ_U64(154, st.verified_ahead);
    ASSERT_EQ_INT(2, (int)st.threads);
    /* and so are the notes of every checkpoint (one a publication, and the
     * index note beside each): none left to the replay thread either */
    kix_log_seal_stats(replica, &ss);
    ASSERT_TRUE(st.checkpoints_ahead >= 150);
    ASSERT_EQ_U64(ss.seals, st.checkpoints_ahead);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* A source without object packs (a store, kixd's msgpack-RPC) is caught
 * up in batches of 32 entries first and last, doubling between: nothing
 * overlaps the first batch's fetch and prepare nor the last one's replay,
 * so they are short. */
KIX_TEST(first_and_last_batches_are_short_without_packs)
{
    struct fixture f;
    struct kix_sync_stats st;
    char *rdir;
    struct kix_log *replica = caught_up(&f, 300, 0, &st, &rdir);

    ASSERT_EQ_U64(304, st.entries);
    /* each entry's manifest looked up in the replica, the objects many
     * entries share once a batch (510 when looked up for every entry) */
    ASSERT_TRUE(st.replica_reads <= st.entries + 4 * st.batches);
    ASSERT_EQ_U64(32, st.first_batch);
    ASSERT_TRUE(st.last_batch > 0 && st.last_batch <= 32);
    ASSERT_TRUE(st.batches >= 5);
    ASSERT_EQ_U64(st.batches - 1, st.overlapped);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* A store serves no object packs; an HTTP source may (kix_sync's batches
 * follow bundles only then). */
KIX_TEST(a_store_serves_no_object_packs)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_err err = {0};

    setup(&f);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    ASSERT_EQ_INT(0, kix_client_has_object_packs(up));
    kix_client_close(up);
    teardown(&f);
}

/* One batch of many upstream checkpoints: each index note is sealed and
 * compared, and the tree's tiles are kept in memory from one seal to the
 * next and written at the batch's last. What is written is the origin's
 * tree: runs resolve from the replica with proofs of its newest note, and
 * the next batch seals on that tree to the origin's notes. */
KIX_TEST(a_batch_keeps_the_tree_from_one_checkpoint_to_the_next)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    struct kix_buf a = KIX_BUF_INIT, b = KIX_BUF_INIT;
    struct kix_sync_stats st;
    struct kix_log_seal_stats ss;
    char *rdir;
    uint64_t synced = 0;

    setup(&f);
    publish_many(&f, 0, 60);
    kix_log_close(f.log);
    f.log = NULL;
    replica = new_replica(&f, &rdir);
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    struct kix_sync_opts opts = {1024, 2, NULL, NULL, NULL, &st};
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, &opts, &synced, &err));
    ASSERT_EQ_U64(64, synced);
    kix_log_seal_stats(replica, &ss);
    /* a checkpoint an entry at least for the runs, one batch or a few */
    ASSERT_TRUE(ss.seals >= 60);
    ASSERT_EQ_U64(ss.seals - st.batches, ss.kept);
    kix_client_close(up);
    {
        struct kix_log_reader *r;
        struct kix_resolution res;
        struct kix_checkpoint cp;
        static const char *const ids[] = {"run-0", "run-31", "run-59"};
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(replica, &r));
        for (size_t i = 0; i < 3; i++) {
            ASSERT_EQ_INT(KIX_OK, kix_index_resolve(r, ids[i], strlen(ids[i]), &res, &err));
            ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.vkey, &cp, &err));
            ASSERT_EQ_U64(64, cp.size);
            kix_resolution_release(&res);
        }
        kix_log_read_end(r);
    }
    /* the next batch starts from the tree the first one wrote */
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    publish_many(&f, 60, 75);
    latest_note(f.log, &a);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, &opts, &synced, &err));
    ASSERT_EQ_U64(79, synced);
    latest_note(replica, &b);
    ASSERT_EQ_MEM(a.ptr, a.len, b.ptr, b.len);
    kix_buf_release(&a);
    kix_buf_release(&b);
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* Tampered entries in one batch, parsed on two threads: the first of them
 * is the one named, and the replica keeps every batch before it. */
KIX_TEST(tamper_in_a_pipelined_batch_is_named_at_its_index)
{
    struct fixture f;
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_err err = {0};
    char *rdir;
    uint64_t synced = 0;
    uint8_t key[8];

    setup(&f);
    publish_many(&f, 0, 150);
    kix_log_close(f.log);
    f.log = NULL;
    /* a byte of four leaves' base64 payloads, ten apart: a batch of 40
     * parsed in two halves has one of them in each half */
    for (uint64_t at = 80; at >= 50; at -= 10) {
        kix_u64be_put(key, at);
        tamper(f.dir, "leaves", key, 8, 40);
    }
    replica = new_replica(&f, &rdir);
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    struct kix_sync_opts opts = {40, 2, NULL, NULL, NULL, NULL};
    ASSERT_TRUE(kix_sync(up, replica, KIX_NO_INDEX, &opts, &synced, &err) != KIX_OK);
    fprintf(stderr, "refused: %s\n", err.msg);
    ASSERT_CONTAINS(err.msg, "entry 50");
    ASSERT_EQ_INT(KIX_CAUSE_ENTRY, err.cause);
    ASSERT_EQ_U64(50, err.entry);
    ASSERT_TRUE(synced <= 50 && synced + 41 > 50);
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

/* A store behind a source that also serves a made-up object pack for
 * bundle 0 (kix/object_pack.h) and counts the objects asked one by one. */
struct packing {
    struct forgetful f; /* first: the forwarding ops above read it */
    struct kix_buf pack;
    size_t asked;
};

static void packing_close(struct kix_source *s)
{
    kix_buf_release(&((struct packing *)s)->pack);
    forgetful_close(s);
}

static int counted_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                           kix_object_fn fn, void *ctx, struct kix_err *err)
{
    ((struct packing *)s)->asked += n;
    return inner_of(s)->ops->objects(inner_of(s), digests, n, fn, ctx, err);
}

static int made_up_pack(struct kix_source *s, uint64_t bundle, struct kix_buf *out,
                        struct kix_err *err)
{
    const struct kix_buf *pack = &((struct packing *)s)->pack;

    if (bundle != 0 || !pack->len)
        return kix_err_set(err, KIX_ENOTFOUND, "no pack of bundle %llu",
                           (unsigned long long)bundle);
    return kix_buf_add(out, pack->ptr, pack->len);
}

static const struct kix_source_ops packing_ops = {
    .close = packing_close,
    .info = forgetful_info,
    .checkpoint = forgetful_checkpoint,
    .entries = forgetful_entries,
    .inclusion = forgetful_inclusion,
    .consistency = forgetful_consistency,
    .checkpoints = forgetful_checkpoints,
    .objects = counted_objects,
    .object_pack = made_up_pack,
};

/* Syncs f's store into a new replica through a packing source whose pack
 * of bundle 0 is `pack`: the entries synced and the objects asked one by
 * one; *replica (closed by the caller) when asked for. Bundle 0 first, by
 * itself: a batch prepared while the one before it replays asks again for
 * an object that one brings, or not, as the threads happen to run, and
 * the counts compared are those of the packs alone. */
static void sync_packed(struct fixture *f, const struct kix_buf *pack, uint64_t *synced,
                        size_t *asked, struct kix_log **keep, char **rdir)
{
    struct packing *src = calloc(1, sizeof(*src));
    struct kix_client *up = NULL;
    struct kix_err err = {0};
    struct kix_log *replica = new_replica(f, rdir);

    if (!src || kix_source_open_store(f->dir, &src->f.inner, &err) ||
        kix_buf_add(&src->pack, pack->ptr, pack->len))
        abort();
    src->f.base.ops = &packing_ops;
    snprintf(src->f.base.where, sizeof(src->f.base.where), "a packing store");
    if (kix_client_open_source(&src->f.base, &up, &err) ||
        kix_sync(up, replica, KIX_TLOG_WIDTH, NULL, synced, &err) ||
        kix_sync(up, replica, KIX_NO_INDEX, NULL, synced, &err)) {
        fprintf(stderr, "sync: %s\n", err.msg);
        abort();
    }
    *asked = src->asked;
    kix_client_close(up);
    *keep = replica;
}

static size_t pack_count(const struct kix_buf *pack)
{
    const uint8_t *obj;
    size_t off = 0, len, n = 0;
    while (kix_object_pack_next(pack->ptr, pack->len, &off, &obj, &len) == KIX_OK)
        n++;
    return n;
}

/* A pack is a shortcut, never a source of truth: its objects are taken only
 * when their digest is wanted; a changed one is asked for by digest, an
 * extra one never stored, one over the batch's bound dropped whole. */
KIX_TEST(object_packs_are_taken_only_for_the_digests_wanted)
{
    static const char extra[] = "{\"apiVersion\":\"kix.dev/v1\",\"note\":\"never logged\"}";
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_log *replica;
    struct kix_buf honest = KIX_BUF_INIT, lying = KIX_BUF_INIT, none = KIX_BUF_INIT;
    struct kix_buf empties = KIX_BUF_INIT;
    struct kix_err err = {0};
    struct kix_digest extra_digest;
    struct kix_bytes v;
    uint64_t size, synced = 0;
    size_t baseline, asked, packed, first_len;
    char *rdir;

    setup(&f);
    publish_many(&f, 0, 300);
    size = log_size(&f);
    ASSERT_TRUE(size >= 256);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_object_pack(r, 0, &honest, &err));
    kix_log_read_end(r);
    kix_log_close(f.log);
    f.log = NULL;
    packed = pack_count(&honest);
    ASSERT_TRUE(packed >= 16);

    /* no pack: every object asked by digest */
    sync_packed(&f, &none, &synced, &baseline, &replica, &rdir);
    ASSERT_EQ_U64(size, synced);
    kix_log_close(replica);
    remove_dir(rdir);

    /* the honest pack: its objects are not asked for */
    sync_packed(&f, &honest, &synced, &asked, &replica, &rdir);
    ASSERT_EQ_U64(size, synced);
    ASSERT_EQ_U64(baseline - packed, asked);
    kix_log_close(replica);
    remove_dir(rdir);

    /* its first object changed and an extra one added: the changed one is
     * asked for by digest, the extra one is not stored */
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&lying, honest.ptr, honest.len));
    first_len = (size_t)lying.ptr[2] << 8 | lying.ptr[3];
    ASSERT_TRUE(first_len > 2);
    lying.ptr[4 + first_len / 2] ^= 1;
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_add(&lying, (const uint8_t *)extra, strlen(extra)));
    kix_digest_of((const uint8_t *)extra, strlen(extra), &extra_digest);
    sync_packed(&f, &lying, &synced, &asked, &replica, &rdir);
    ASSERT_EQ_U64(size, synced);
    ASSERT_EQ_U64(baseline - packed + 1, asked);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(replica, &r));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_object(r, &extra_digest, &v));
    kix_log_read_end(r);
    kix_log_close(replica);
    remove_dir(rdir);

    /* 1.5 million empty objects: over what a batch keeps (64 MiB with
     * their index), dropped whole; every object asked by digest */
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&empties, honest.ptr, honest.len));
    for (size_t i = 0; i < 1500000; i++)
        ASSERT_EQ_INT(KIX_OK, kix_object_pack_add(&empties, (const uint8_t *)"", 0));
    sync_packed(&f, &empties, &synced, &asked, &replica, &rdir);
    ASSERT_EQ_U64(size, synced);
    ASSERT_EQ_U64(baseline, asked);
    kix_log_close(replica);
    remove_dir(rdir);

    /* more than 64 MiB of objects: the one past it ends the pack's
     * reading as the index grows (the object after a power of two of them,
     * 256 on, fills its allocation); the pack is dropped whole */
    {
        struct kix_buf big = KIX_BUF_INIT;
        uint8_t *filler = malloc(KIX_OBJECT_PACK_OBJECT);
        size_t last = 256;
        while (last < packed + 4)
            last *= 2;
        ASSERT_TRUE(filler != NULL);
        memset(filler, 'x', KIX_OBJECT_PACK_OBJECT);
        ASSERT_EQ_INT(KIX_OK, kix_buf_add(&big, honest.ptr, honest.len));
        /* 16 MiB objects, past the pack's own bound (which a writer keeps) */
        for (size_t i = packed; i <= last; i++) {
            size_t len = i < packed + 3 || i == last ? KIX_OBJECT_PACK_OBJECT : 0;
            uint8_t head[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), 0, 0};
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&big, head, 4));
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&big, filler, len));
        }
        free(filler);
        sync_packed(&f, &big, &synced, &asked, &replica, &rdir);
        ASSERT_EQ_U64(size, synced);
        ASSERT_EQ_U64(baseline, asked);
        kix_log_close(replica);
        remove_dir(rdir);
        kix_buf_release(&big);
    }

    kix_buf_release(&honest);
    kix_buf_release(&lying);
    kix_buf_release(&empties);
    teardown(&f);
}

KIX_TEST_MAIN()
