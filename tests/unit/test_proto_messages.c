/* The message codec of kix/messages.h: every message survives encode →
 * msgpack → decode unchanged, and the decoders refuse wrong types, missing
 * fields, malformed digests and hashes and counts over their bounds, with
 * the field named (EINVAL/ELIMIT for params, EPROTO for results). */
#include "harness.h"
#include "kix/encoding.h"
#include "kix/messages.h"

/* ---- helpers -------------------------------------------------------------------- */

static struct kix_bytes T(const char *s) {
    struct kix_bytes b = {(const uint8_t *)s, strlen(s)};
    return b;
}

static int
same(struct kix_bytes a, const char *s)
{
    return a.ptr && a.len == strlen(s) && memcmp(a.ptr, s, a.len) == 0;
}

static void fill32(uint8_t out[32], uint8_t seed)
{
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(seed + i * 7);
}

/* A message built by the caller through w: begin, puts, then this ends it
 * and decodes it into msg. */
static void finish(struct kix_proto_writer *w, struct kix_buf *b, struct kix_proto_msg *msg)
{
    struct kix_err err;
    if (kix_proto_writer_end(w, &err) != KIX_OK) {
        fprintf(stderr, "writer: %s\n", err.msg);
        abort();
    }
    if (kix_proto_decode(b->ptr, b->len, NULL, msg, &err) != KIX_OK) {
        fprintf(stderr, "decode: %s\n", err.msg);
        abort();
    }
}

#define RESPONSE(put, value, msg, b)                                                               \
    do {                                                                                           \
        struct kix_proto_writer mw_;                                                               \
        kix_buf_init(b);                                                                           \
        kix_proto_writer_init(&mw_, b);                                                            \
        kix_proto_begin_response(&mw_, 1);                                                         \
        ASSERT_EQ_INT(KIX_OK, put(&mw_, value));                                                   \
        finish(&mw_, b, msg);                                                                      \
    } while (0)

#define REQUEST(put, value, msg, b)                                                                \
    do {                                                                                           \
        struct kix_proto_writer mw_;                                                               \
        kix_buf_init(b);                                                                           \
        kix_proto_writer_init(&mw_, b);                                                            \
        kix_proto_begin_request(&mw_, 1, "m");                                                     \
        ASSERT_EQ_INT(KIX_OK, put(&mw_, value));                                                   \
        finish(&mw_, b, msg);                                                                      \
    } while (0)

static void done(struct kix_proto_msg *msg, struct kix_buf *b)
{
    kix_proto_msg_release(msg);
    kix_buf_release(b);
}

/* ---- round trips ------------------------------------------------------------------ */

KIX_TEST(info_round_trip)
{
    struct kix_msg_info in, out;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    kix_msg_info_init(&in);
    in.origin = T("log.example");
    in.log_key = T("log.example+1234+AAAA");
    in.size = 42;
    in.version = T("kixd 0.1.0");
    in.mirror = true;
    in.has_limits = true;
    in.limits.max_message = 1 << 20;
    in.limits.max_in_flight = 7;
    in.limits.max_batch = 50;
    in.limits.max_entries = 100;
    in.limits.max_objects = 16;
    in.limits.max_checkpoints = 3;
    in.limits.max_runs = 9;
    in.upstream = T("tcp://up:1");
    in.upstream_size = 44;
    in.lag_entries = 2;
    in.lag_seconds = 5;
    in.last_error = T("unreachable");
    in.has_fork = true;
    in.fork_size = 40;
    in.fork_reason = T("another root");
    in.fork_evidence = T("/var/evidence");
    in.committed = 43;
    RESPONSE(kix_msg_put_info_result, &in, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_info_result(msg.result, &out, &err));
    ASSERT_TRUE(same(out.origin, "log.example") && same(out.log_key, "log.example+1234+AAAA"));
    ASSERT_EQ_U64(42, out.size);
    ASSERT_TRUE(same(out.version, "kixd 0.1.0") && out.mirror && out.has_limits);
    ASSERT_EQ_INT(0, memcmp(&in.limits, &out.limits, sizeof(in.limits)));
    ASSERT_TRUE(same(out.upstream, "tcp://up:1") && same(out.last_error, "unreachable"));
    ASSERT_EQ_U64(44, out.upstream_size);
    ASSERT_EQ_U64(2, out.lag_entries);
    ASSERT_EQ_U64(5, out.lag_seconds);
    ASSERT_TRUE(out.has_fork && same(out.fork_reason, "another root") &&
                same(out.fork_evidence, "/var/evidence"));
    ASSERT_EQ_U64(40, out.fork_size);
    ASSERT_EQ_U64(43, out.committed); /* an origin's committed size, past the view */
    done(&msg, &b);

    /* an older server: no limits, no version, no mirror fields */
    kix_msg_info_init(&in);
    in.origin = T("o");
    in.log_key = T("k");
    RESPONSE(kix_msg_put_info_result, &in, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_info_result(msg.result, &out, &err));
    ASSERT_TRUE(!out.has_limits && !out.version.ptr && !out.upstream.ptr && !out.has_fork);
    ASSERT_EQ_U64(KIX_MSG_ABSENT, out.limits.max_entries);
    ASSERT_EQ_U64(KIX_MSG_ABSENT, out.upstream_size);
    ASSERT_EQ_U64(KIX_MSG_ABSENT, out.committed);
    done(&msg, &b);
}

KIX_TEST(submit_round_trip)
{
    struct kix_bytes objs[2] = {T("{}"), T("{\"a\":1}")};
    struct kix_msg_bundle bundles[2] = {{T("env1"), 2, objs}, {T("env2"), 0, NULL}};
    struct kix_msg_submit_params p = {2, bundles, NULL}, pout;
    struct kix_msg_submit_item items[2];
    struct kix_msg_submit_result r = {2, items, 9, NULL}, rout;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(kix_msg_put_submit_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_submit_params(msg.params, 2, &pout, &err));
    ASSERT_EQ_U64(2, pout.nbundles);
    ASSERT_TRUE(same(pout.bundles[0].envelope, "env1") && same(pout.bundles[1].envelope, "env2"));
    ASSERT_EQ_U64(2, pout.bundles[0].nobjects);
    ASSERT_TRUE(same(pout.bundles[0].objects[1], "{\"a\":1}"));
    ASSERT_EQ_U64(0, pout.bundles[1].nobjects);
    kix_msg_free(pout.owned);
    /* one over the server's limit */
    ASSERT_EQ_INT(KIX_ELIMIT, kix_msg_get_submit_params(msg.params, 1, &pout, &err));
    ASSERT_CONTAINS(err.msg, "2 bundles in one submit, over the limit of 1");
    ASSERT_TRUE(pout.owned == NULL);
    done(&msg, &b);

    memset(items, 0, sizeof(items));
    items[0].index = 7;
    fill32(items[0].leaf_hash, 3);
    items[0].duplicate = true;
    items[0].receipt = T("receipt text");
    items[1].code = KIX_EPOLICY;
    items[1].message = T("not allowed");
    RESPONSE(kix_msg_put_submit_result, &r, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_submit_result(msg.result, 2, &rout, &err));
    ASSERT_EQ_U64(2, rout.nresults);
    ASSERT_EQ_U64(9, rout.size);
    ASSERT_EQ_U64(7, rout.results[0].index);
    ASSERT_EQ_MEM(items[0].leaf_hash, 32, rout.results[0].leaf_hash, 32);
    ASSERT_TRUE(rout.results[0].duplicate && rout.results[0].code == 0);
    ASSERT_TRUE(same(rout.results[0].receipt, "receipt text"));
    ASSERT_EQ_INT(KIX_EPOLICY, (int)rout.results[1].code);
    ASSERT_TRUE(same(rout.results[1].message, "not allowed"));
    kix_msg_free(rout.owned);
    ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_submit_result(msg.result, 1, &rout, &err));
    ASSERT_CONTAINS(err.msg, "field \"results\": 2 elements, over the limit of 1");
    kix_msg_free(rout.owned);
    done(&msg, &b);
}

KIX_TEST(objects_round_trip)
{
    struct kix_msg_get_object_params p, pout;
    struct kix_msg_get_object_result r = {T("{\"x\":2}")}, rout;
    uint8_t d[3][32];
    struct kix_msg_get_objects_params ps = {3, (const uint8_t(*)[32])d, NULL}, psout;
    struct kix_bytes objs[3] = {T("a"), {NULL, 0}, {(const uint8_t *)"", 0}};
    struct kix_msg_get_objects_result rs = {3, objs, NULL}, rsout;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    fill32(p.digest, 0xf0);
    REQUEST(kix_msg_put_get_object_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_object_params(msg.params, &pout, &err));
    ASSERT_EQ_MEM(p.digest, 32, pout.digest, 32);
    done(&msg, &b);
    RESPONSE(kix_msg_put_get_object_result, &r, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_object_result(msg.result, &rout, &err));
    ASSERT_TRUE(same(rout.object, "{\"x\":2}"));
    done(&msg, &b);

    for (int i = 0; i < 3; i++)
        fill32(d[i], (uint8_t)(i * 50));
    REQUEST(kix_msg_put_get_objects_params, &ps, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_objects_params(msg.params, 3, &psout, &err));
    ASSERT_EQ_U64(3, psout.ndigests);
    ASSERT_EQ_MEM(d, sizeof(d), psout.digests, 3 * 32);
    kix_msg_free(psout.owned);
    ASSERT_EQ_INT(KIX_ELIMIT, kix_msg_get_get_objects_params(msg.params, 2, &psout, &err));
    ASSERT_CONTAINS(err.msg, "3 digests asked for, over the limit of 2");
    done(&msg, &b);
    RESPONSE(kix_msg_put_get_objects_result, &rs, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_objects_result(msg.result, 3, &rsout, &err));
    ASSERT_EQ_U64(3, rsout.nobjects);
    ASSERT_TRUE(same(rsout.objects[0], "a"));
    ASSERT_TRUE(rsout.objects[1].ptr == NULL);                              /* nil */
    ASSERT_TRUE(rsout.objects[2].ptr != NULL && rsout.objects[2].len == 0); /* empty */
    kix_msg_free(rsout.owned);
    done(&msg, &b);
}

KIX_TEST(entries_round_trip)
{
    struct kix_msg_get_entries_params p = {5, 100}, pout;
    struct kix_bytes leaves[2] = {T("leaf5"), T("leaf6")};
    struct kix_msg_entries r = {5, 2, leaves, {NULL, 0}, NULL}, out;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(kix_msg_put_get_entries_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_entries_params(msg.params, &pout, &err));
    ASSERT_EQ_U64(5, pout.start);
    ASSERT_EQ_U64(100, pout.count);
    done(&msg, &b);
    RESPONSE(kix_msg_put_get_entries_result, &r, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_get_entries_result(msg.result, 2, &out, &err));
    ASSERT_EQ_U64(5, out.start);
    ASSERT_EQ_U64(2, out.nentries);
    ASSERT_TRUE(same(out.entries[1], "leaf6"));
    kix_msg_free(out.owned);
    /* more entries than asked for */
    ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_get_entries_result(msg.result, 1, &out, &err));
    ASSERT_CONTAINS(err.msg, "field \"entries\"");
    kix_msg_free(out.owned);
    done(&msg, &b);

    /* the follow notification, with and without a checkpoint */
    for (int with = 0; with < 2; with++) {
        struct kix_proto_writer w;
        r.checkpoint = with ? T("note") : (struct kix_bytes){NULL, 0};
        kix_buf_init(&b);
        kix_proto_writer_init(&w, &b);
        kix_proto_begin_notification(&w, "entries");
        ASSERT_EQ_INT(KIX_OK, kix_msg_put_entries_notification(&w, &r));
        finish(&w, &b, &msg);
        ASSERT_EQ_INT(KIX_OK, kix_msg_get_entries_notification(msg.params, 10, &out, &err));
        ASSERT_EQ_U64(2, out.nentries);
        ASSERT_TRUE(with ? same(out.checkpoint, "note") : out.checkpoint.ptr == NULL);
        kix_msg_free(out.owned);
        done(&msg, &b);
    }
}

/* 2^64-1 is what an absent optional field decodes to (latest, all): sent
 * explicitly, it is refused rather than read as absent. */
static int put_explicit_size(struct kix_proto_writer *w, const void *unused)
{
    (void)unused;
    kix_proto_put_map(w, 2);
    kix_proto_put_key(w, "index");
    kix_proto_put_u64(w, 0);
    kix_proto_put_key(w, "size");
    return kix_proto_put_u64(w, UINT64_MAX);
}

KIX_TEST(explicit_max_size_is_refused)
{
    struct kix_msg_checkpoint_params cpout;
    struct kix_msg_index_params ipout;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(put_explicit_size, NULL, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_checkpoint_params(msg.params, &cpout, &err));
    ASSERT_CONTAINS(err.msg, "field \"size\": 18446744073709551615 (2^64-1) is out of range");
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_index_params(msg.params, &ipout, &err));
    done(&msg, &b);
}

KIX_TEST(checkpoint_and_proofs_round_trip)
{
    struct kix_msg_checkpoint_params cp = {KIX_MSG_ABSENT}, cpout;
    struct kix_msg_checkpoint_result cr = {T("the note"), 3}, crout;
    struct kix_msg_index_params ip = {2, 3}, ipout;
    struct kix_msg_inclusion_result ir, irout;
    struct kix_msg_consistency_params sp = {1, KIX_MSG_ABSENT}, spout;
    struct kix_msg_consistency_result sr, srout;
    struct kix_msg_receipt_result rr = {T("a receipt")}, rrout;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(kix_msg_put_checkpoint_params, &cp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_checkpoint_params(msg.params, &cpout, &err));
    ASSERT_EQ_U64(KIX_MSG_ABSENT, cpout.size);
    ASSERT_EQ_U64(0, kix_proto_map_count(msg.params)); /* left out */
    done(&msg, &b);
    RESPONSE(kix_msg_put_checkpoint_result, &cr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_checkpoint_result(msg.result, &crout, &err));
    ASSERT_TRUE(same(crout.checkpoint, "the note"));
    ASSERT_EQ_U64(3, crout.size);
    done(&msg, &b);

    REQUEST(kix_msg_put_index_params, &ip, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_index_params(msg.params, &ipout, &err));
    ASSERT_EQ_U64(2, ipout.index);
    ASSERT_EQ_U64(3, ipout.size);
    done(&msg, &b);
    memset(&ir, 0, sizeof(ir));
    ir.index = 2;
    ir.size = 3;
    fill32(ir.leaf_hash, 1);
    ir.nproof = KIX_MSG_MAX_PROOF;
    for (int i = 0; i < KIX_MSG_MAX_PROOF; i++)
        fill32(ir.proof[i], (uint8_t)i);
    RESPONSE(kix_msg_put_inclusion_result, &ir, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_inclusion_result(msg.result, &irout, &err));
    ASSERT_EQ_INT(0, memcmp(&ir, &irout, sizeof(ir)));
    done(&msg, &b);

    REQUEST(kix_msg_put_consistency_params, &sp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_consistency_params(msg.params, &spout, &err));
    ASSERT_EQ_U64(1, spout.size1);
    ASSERT_EQ_U64(KIX_MSG_ABSENT, spout.size2);
    done(&msg, &b);
    memset(&sr, 0, sizeof(sr));
    sr.size1 = 1;
    sr.size2 = 3;
    sr.nproof = 2;
    fill32(sr.proof[0], 9);
    fill32(sr.proof[1], 10);
    RESPONSE(kix_msg_put_consistency_result, &sr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_consistency_result(msg.result, &srout, &err));
    ASSERT_EQ_U64(2, srout.nproof);
    ASSERT_EQ_MEM(sr.proof, 64, srout.proof, 64);
    done(&msg, &b);

    RESPONSE(kix_msg_put_receipt_result, &rr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_receipt_result(msg.result, &rrout, &err));
    ASSERT_TRUE(same(rrout.receipt, "a receipt"));
    done(&msg, &b);
}

KIX_TEST(resolve_round_trip)
{
    struct kix_msg_resolve_params p = {T("run-1"), 0}, pout;
    struct kix_msg_resolve_result r, out;
    struct kix_msg_resolve_object obj;
    struct kix_msg_resolve_entry ents[2];
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(kix_msg_put_resolve_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_resolve_params(msg.params, &pout, &err));
    ASSERT_TRUE(same(pout.ref, "run-1"));
    done(&msg, &b);

    for (int ranked = 0; ranked < 2; ranked++) {
        memset(&r, 0, sizeof(r));
        memset(ents, 0, sizeof(ents));
        r.run_id = T("run-1");
        fill32(r.digest, 1);
        r.permalink = T("https://o/runs/run-1");
        r.evidence = T("reproduced");
        r.evidence_index = ranked ? KIX_MSG_ABSENT : 12;
        r.successor = ranked ? T("run-2") : (struct kix_bytes){NULL, 0};
        r.predecessor = T("run-0");
        r.superseded_by_index = ranked ? 14 : KIX_MSG_ABSENT;
        r.supersedes_index = KIX_MSG_ABSENT;
        r.ranked = ranked;
        fill32(r.comparison_key, ranked ? 2 : 0);
        r.rank = ranked ? 1 : 0;
        r.group_size = ranked ? 4 : 0;
        r.best = ranked ? T("run-9") : (struct kix_bytes){NULL, 0};
        fill32(r.publisher, 3);
        r.publication_index = 10;
        r.attestations = 2;
        r.reruns = 1;
        r.manifest = T("{}");
        fill32(obj.digest, 4);
        obj.object = T("{\"o\":1}");
        r.nobjects = 1;
        r.objects = &obj;
        ents[0].index = 10;
        ents[0].type = T("publication");
        ents[0].leaf = T("leaf10");
        ents[0].nproof = 1;
        fill32(ents[0].proof[0], 5);
        ents[1].index = 12;
        ents[1].type = T("rerun");
        ents[1].leaf = T("leaf12");
        r.nentries = 2;
        r.entries = ents;
        r.checkpoint = T("note");
        r.size = 15;
        RESPONSE(kix_msg_put_resolve_result, &r, &msg, &b);
        ASSERT_EQ_INT(KIX_OK, kix_msg_get_resolve_result(msg.result, 4, 4, &out, &err));
        ASSERT_TRUE(same(out.run_id, "run-1") && same(out.permalink, "https://o/runs/run-1") &&
                    same(out.evidence, "reproduced") && same(out.predecessor, "run-0") &&
                    same(out.manifest, "{}") && same(out.checkpoint, "note"));
        ASSERT_EQ_MEM(r.digest, 32, out.digest, 32);
        ASSERT_EQ_MEM(r.publisher, 32, out.publisher, 32);
        ASSERT_EQ_U64(r.evidence_index, out.evidence_index);
        ASSERT_EQ_U64(r.superseded_by_index, out.superseded_by_index);
        ASSERT_EQ_U64(KIX_MSG_ABSENT, out.supersedes_index);
        ASSERT_TRUE(ranked ? same(out.successor, "run-2") : out.successor.ptr == NULL);
        ASSERT_EQ_INT(ranked, out.ranked);
        if (ranked) {
            ASSERT_TRUE(same(out.best, "run-9"));
            ASSERT_EQ_U64(4, out.group_size);
            ASSERT_EQ_MEM(r.comparison_key, 32, out.comparison_key, 32);
        }
        ASSERT_EQ_U64(10, out.publication_index);
        ASSERT_EQ_U64(2, out.attestations);
        ASSERT_EQ_U64(1, out.reruns);
        ASSERT_EQ_U64(15, out.size);
        ASSERT_EQ_U64(1, out.nobjects);
        ASSERT_TRUE(same(out.objects[0].object, "{\"o\":1}"));
        ASSERT_EQ_MEM(obj.digest, 32, out.objects[0].digest, 32);
        ASSERT_EQ_U64(2, out.nentries);
        ASSERT_TRUE(same(out.entries[1].type, "rerun") && same(out.entries[0].leaf, "leaf10"));
        ASSERT_EQ_U64(1, out.entries[0].nproof);
        ASSERT_EQ_MEM(ents[0].proof[0], 32, out.entries[0].proof[0], 32);
        kix_msg_free(out.owned);
        /* more entries than the caller's bound */
        ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_resolve_result(msg.result, 4, 1, &out, &err));
        ASSERT_CONTAINS(err.msg, "field \"entries\": 2 elements, over the limit of 1");
        kix_msg_free(out.owned);
        done(&msg, &b);
    }
}

KIX_TEST(checkpoints_query_follow_cosign_round_trip)
{
    struct kix_msg_checkpoints_params cp = {4, 10}, cpout;
    struct kix_msg_checkpoint_item items[2] = {{5, T("n5"), {NULL, 0}}, {7, T("n7"), T("i7")}};
    struct kix_msg_checkpoints_result cr = {2, items, NULL}, crout;
    struct kix_msg_query_params qp, qpout;
    struct kix_msg_query_run run;
    struct kix_msg_query_result qr = {12, 1, &run, NULL}, qrout;
    struct kix_msg_follow_params fp = {3, false}, fpout;
    struct kix_msg_size_result fr = {8}, frout;
    struct kix_msg_add_cosignature_params ap = {T("note"), T("— w sig\n")}, apout;
    struct kix_msg_add_cosignature_result ar = {2, true}, arout;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;

    REQUEST(kix_msg_put_checkpoints_params, &cp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_checkpoints_params(msg.params, &cpout, &err));
    ASSERT_EQ_U64(4, cpout.after);
    ASSERT_EQ_U64(10, cpout.limit);
    done(&msg, &b);
    RESPONSE(kix_msg_put_checkpoints_result, &cr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_checkpoints_result(msg.result, 2, &crout, &err));
    ASSERT_EQ_U64(2, crout.ncheckpoints);
    ASSERT_EQ_U64(7, crout.checkpoints[1].size);
    ASSERT_TRUE(same(crout.checkpoints[1].checkpoint, "n7"));
    ASSERT_TRUE(crout.checkpoints[0].index_note.ptr == NULL);
    ASSERT_TRUE(same(crout.checkpoints[1].index_note, "i7"));
    kix_msg_free(crout.owned);
    done(&msg, &b);

    kix_msg_query_params_init(&qp);
    qp.kernel = T("rope");
    qp.metric = T("latency");
    qp.dtype = T("bfloat16");
    qp.has_group = true;
    fill32(qp.group, 6);
    qp.offset = 20;
    qp.limit = 10;
    REQUEST(kix_msg_put_query_params, &qp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_query_params(msg.params, &qpout, &err));
    ASSERT_TRUE(same(qpout.kernel, "rope") && same(qpout.metric, "latency"));
    ASSERT_TRUE(same(qpout.dtype, "bfloat16") && qpout.provider.ptr == NULL);
    ASSERT_TRUE(!qpout.gpu.ptr && !qpout.provider.ptr && !qpout.mode.ptr && qpout.has_group);
    ASSERT_EQ_MEM(qp.group, 32, qpout.group, 32);
    ASSERT_EQ_U64(20, qpout.offset);
    ASSERT_EQ_U64(10, qpout.limit);
    done(&msg, &b);
    memset(&run, 0, sizeof(run));
    run.run_id = T("r");
    fill32(run.digest, 7);
    fill32(run.group, 8);
    run.rank = 2;
    run.group_size = 3;
    run.value = 11360;
    run.evidence = T("reported");
    run.kernel = T("rope");
    run.gpu = T("NVIDIA A100");
    run.provider = T("liger");
    run.mode = T("forward");
    run.metric = T("latency");
    RESPONSE(kix_msg_put_query_result, &qr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_query_result(msg.result, 1, &qrout, &err));
    ASSERT_EQ_U64(12, qrout.matched);
    ASSERT_EQ_U64(1, qrout.nruns);
    ASSERT_EQ_U64(11360, qrout.runs[0].value);
    ASSERT_EQ_MEM(run.group, 32, qrout.runs[0].group, 32);
    ASSERT_TRUE(same(qrout.runs[0].gpu, "NVIDIA A100") && same(qrout.runs[0].mode, "forward"));
    kix_msg_free(qrout.owned);
    done(&msg, &b);

    REQUEST(kix_msg_put_follow_params, &fp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_follow_params(msg.params, &fpout, &err));
    ASSERT_EQ_U64(3, fpout.from);
    ASSERT_TRUE(!fpout.replica); /* absent: a reader's stream */
    done(&msg, &b);
    fp.replica = true; /* a mirror's stream, to the committed size */
    REQUEST(kix_msg_put_follow_params, &fp, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_follow_params(msg.params, &fpout, &err));
    ASSERT_TRUE(fpout.replica);
    done(&msg, &b);
    RESPONSE(kix_msg_put_follow_result, &fr, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_follow_result(msg.result, &frout, &err));
    ASSERT_EQ_U64(8, frout.size);
    done(&msg, &b);

    REQUEST(kix_msg_put_add_cosignature_params, &ap, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_add_cosignature_params(msg.params, &apout, &err));
    ASSERT_TRUE(same(apout.checkpoint, "note") && same(apout.cosignature, "— w sig\n"));
    done(&msg, &b);
    RESPONSE(kix_msg_put_add_cosignature_result, &ar, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_add_cosignature_result(msg.result, &arout, &err));
    ASSERT_EQ_U64(2, arout.size);
    ASSERT_TRUE(arout.stored);
    done(&msg, &b);
}

/* replicated (PROTOCOL.md §2.13.1): a round trip, and a mirror id of 0 or
 * more than 64 bytes refused */
KIX_TEST(replicated_round_trip_and_id_bounds)
{
    static const char long_id[] =
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefX";
    struct kix_msg_replicated_params p = {41,
                                          {0},
                                          {(const uint8_t *)"m1", 2},
                                          {NULL, 0},
                                          {NULL, 0}},
                                     out;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err = {0};

    memset(p.root, 0xab, sizeof(p.root));
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_EQ_U64(41, out.size);
    ASSERT_EQ_MEM(p.root, 32, out.root, 32);
    ASSERT_TRUE(same(out.mirror, "m1"));
    ASSERT_TRUE(out.cosignature.ptr == NULL); /* absent: an unsigned report */
    done(&msg, &b);
    p.mirror.ptr = (const uint8_t *)long_id;
    p.mirror.len = 65;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_CONTAINS(err.msg, "field \"mirror\" must be 1 to 64 bytes, not 65");
    done(&msg, &b);
    p.mirror.len = 64;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_replicated_params(msg.params, &out, &err));
    done(&msg, &b);
    p.mirror.len = 0;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_replicated_params(msg.params, &out, &err));
    done(&msg, &b);
}

/* replicated with the mirror's cosignature line: a round trip, and a line
 * of 0 or more than KIX_MSG_COSIGNATURE_MAX bytes refused */
KIX_TEST(replicated_cosignature_round_trip_and_bounds)
{
    static const char line[] = "\xe2\x80\x94 mirror.example AAAA\n";
    char longest[KIX_MSG_COSIGNATURE_MAX + 1];
    struct kix_msg_replicated_params p = {7, {0}, {(const uint8_t *)"m1", 2}, {NULL, 0}, {NULL, 0}},
                                     out;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err = {0};

    p.cosignature.ptr = (const uint8_t *)line;
    p.cosignature.len = sizeof(line) - 1;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_EQ_U64(7, out.size);
    ASSERT_TRUE(same(out.mirror, "m1"));
    ASSERT_TRUE(same(out.cosignature, line));
    done(&msg, &b);
    memset(longest, 'A', sizeof(longest));
    p.cosignature.ptr = (const uint8_t *)longest;
    p.cosignature.len = KIX_MSG_COSIGNATURE_MAX;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_EQ_U64(KIX_MSG_COSIGNATURE_MAX, out.cosignature.len);
    done(&msg, &b);
    p.cosignature.len = KIX_MSG_COSIGNATURE_MAX + 1;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_CONTAINS(err.msg, "field \"cosignature\" must be 1 to 365 bytes, not 366");
    done(&msg, &b);
    p.cosignature.len = 0;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_replicated_params(msg.params, &out, &err));
    done(&msg, &b);
    /* the held statement (issue 42): its own field, the same bounds */
    p.cosignature.ptr = NULL;
    p.held.ptr = (const uint8_t *)line;
    p.held.len = sizeof(line) - 1;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_OK, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_TRUE(same(out.held, line));
    ASSERT_TRUE(out.cosignature.ptr == NULL);
    done(&msg, &b);
    p.held.ptr = (const uint8_t *)longest;
    p.held.len = KIX_MSG_COSIGNATURE_MAX + 1;
    REQUEST(kix_msg_put_replicated_params, &p, &msg, &b);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_replicated_params(msg.params, &out, &err));
    ASSERT_CONTAINS(err.msg, "field \"held\" must be 1 to 365 bytes, not 366");
    done(&msg, &b);
}

/* ---- refusals ------------------------------------------------------------------------ */

/* Hand-built messages (what a hostile or broken peer may send). */
#define PW        (&w)
#define KEY(k)    kix_proto_put_key(PW, k)
#define U64(v)    kix_proto_put_u64(PW, v)
#define STR(s)    kix_proto_put_cstr(PW, s)
#define BIN(p, n) kix_proto_put_bin(PW, p, n)

KIX_TEST(params_refused)
{
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;
    struct kix_msg_get_entries_params ge;
    struct kix_msg_get_object_params go;
    struct kix_msg_submit_params sp;
    struct kix_msg_query_params qp;
    struct kix_msg_resolve_params rp;
    char longref[KIX_MSG_REF_MAX + 2];

    /* wrong type, missing field */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "get_entries");
    kix_proto_put_map(&w, 1);
    KEY("start"), STR("0");
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_get_entries_params(msg.params, &ge, &err));
    ASSERT_CONTAINS(err.msg, "field \"start\": expected int, got str");
    done(&msg, &b);
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "get_entries");
    kix_proto_put_map(&w, 1);
    KEY("start"), U64(0);
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_get_entries_params(msg.params, &ge, &err));
    ASSERT_CONTAINS(err.msg, "missing field \"count\"");
    ASSERT_EQ_INT(KIX_EINVAL, err.code);
    done(&msg, &b);

    /* a digest in upper case, a query filter too long, a ref too long */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "m");
    kix_proto_put_map(&w, 3);
    KEY("digest"), STR("sha256:AB00000000000000000000000000000000000000000000000000000000000000");
    memset(longref, 'r', sizeof(longref));
    longref[sizeof(longref) - 1] = '\0';
    KEY("ref"), STR(longref);
    KEY("kernel"), STR("0123456789012345678901234567890123456789012345678901234567890123456789");
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_get_object_params(msg.params, &go, &err));
    ASSERT_CONTAINS(err.msg, "field \"digest\": malformed digest");
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_resolve_params(msg.params, &rp, &err));
    ASSERT_CONTAINS(err.msg, "field \"ref\" must be 1 to 1024 bytes");
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_query_params(msg.params, &qp, &err));
    ASSERT_CONTAINS(err.msg, "field \"kernel\" must be under 64 bytes");
    done(&msg, &b);

    /* submit: empty, and a bundle whose envelope is a str */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "submit");
    kix_proto_put_map(&w, 1);
    KEY("bundles"), kix_proto_put_array(&w, 0);
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_submit_params(msg.params, 8, &sp, &err));
    ASSERT_CONTAINS(err.msg, "field \"bundles\" is empty");
    done(&msg, &b);
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "submit");
    kix_proto_put_map(&w, 1);
    KEY("bundles"), kix_proto_put_array(&w, 2);
    kix_proto_put_map(&w, 1), KEY("envelope"), BIN("e", 1);
    kix_proto_put_map(&w, 2), KEY("envelope"), BIN("e", 1);
    KEY("objects"), kix_proto_put_array(&w, 1), STR("{}");
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EINVAL, kix_msg_get_submit_params(msg.params, 8, &sp, &err));
    ASSERT_CONTAINS(err.msg, "bundles[1]: objects[0]: expected bin, got str");
    ASSERT_TRUE(sp.owned == NULL);
    done(&msg, &b);
}

/* get_object's params for a digest text, decoded: the code, *go set. */
static int get_object_of(const char *text, struct kix_msg_get_object_params *go)
{
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;
    int rc;

    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_request(&w, 1, "get_object");
    kix_proto_put_map(&w, 1);
    KEY("digest"), STR(text);
    finish(&w, &b, &msg);
    rc = kix_msg_get_get_object_params(msg.params, go, &err);
    done(&msg, &b);
    return rc;
}

/* A digest's 64 hex digits: every byte value decodes, and a byte that is
 * no lowercase hex digit is refused at each of the 64 places. */
KIX_TEST(digest_hex_every_place)
{
    static const char bad[] = {'g', 'A', 'F', '/', ':', '`', '@', ' ', '\x7f'};
    char text[8 + 64];
    struct kix_msg_get_object_params go;

    for (int v = 0; v < 256; v++) {
        uint8_t want[32];
        for (int i = 0; i < 32; i++)
            want[i] = (uint8_t)(v + i);
        memcpy(text, "sha256:", 7);
        kix_hex_encode(want, 32, text + 7);
        ASSERT_EQ_INT(KIX_OK, get_object_of(text, &go));
        ASSERT_TRUE(memcmp(want, go.digest, 32) == 0);
    }
    for (int at = 0; at < 64; at++)
        for (size_t k = 0; k < sizeof(bad); k++) {
            memset(text, '0', sizeof(text));
            memcpy(text, "sha256:", 7);
            text[7 + at] = bad[k];
            text[7 + 64] = '\0';
            ASSERT_EQ_INT(KIX_EINVAL, get_object_of(text, &go));
        }
}

KIX_TEST(results_refused)
{
    struct kix_proto_writer w;
    struct kix_proto_msg msg;
    struct kix_buf b;
    struct kix_err err;
    struct kix_msg_info info;
    struct kix_msg_inclusion_result *ir = malloc(sizeof(*ir));
    struct kix_msg_entries ents;
    struct kix_msg_submit_result sr;
    struct kix_msg_checkpoint_result cr;
    uint8_t h[33] = {0};

    ASSERT_TRUE(ir != NULL);
    /* a result that is not a map */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_response(&w, 1);
    kix_proto_put_array(&w, 0);
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_checkpoint_result(msg.result, &cr, &err));
    ASSERT_EQ_INT(KIX_EPROTO, err.code);
    ASSERT_CONTAINS(err.msg, "expected map, got array");
    done(&msg, &b);

    /* info: a limit of 0, a limit of the wrong type */
    for (int bad = 0; bad < 2; bad++) {
        kix_buf_init(&b);
        kix_proto_writer_init(&w, &b);
        kix_proto_begin_response(&w, 1);
        kix_proto_put_map(&w, 4);
        KEY("origin"), STR("o");
        KEY("logKey"), STR("k");
        KEY("size"), U64(1);
        KEY("limits"), kix_proto_put_map(&w, 1);
        KEY("maxEntries");
        if (bad)
            STR("100");
        else
            U64(0);
        finish(&w, &b, &msg);
        ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_info_result(msg.result, &info, &err));
        ASSERT_CONTAINS(err.msg, bad ? "field \"limits\": field \"maxEntries\": expected int"
                                     : "field \"limits\": field \"maxEntries\" must be at least 1");
        done(&msg, &b);
    }

    /* inclusion: a hash of 33 bytes, a proof of 66 hashes */
    for (int bad = 0; bad < 2; bad++) {
        kix_buf_init(&b);
        kix_proto_writer_init(&w, &b);
        kix_proto_begin_response(&w, 1);
        kix_proto_put_map(&w, 4);
        KEY("index"), U64(1);
        KEY("size"), U64(2);
        KEY("leafHash"), BIN(h, bad ? 32 : 33);
        KEY("proof"), kix_proto_put_array(&w, bad ? KIX_MSG_MAX_PROOF + 1 : 0);
        for (int i = 0; bad && i < KIX_MSG_MAX_PROOF + 1; i++)
            BIN(h, 32);
        finish(&w, &b, &msg);
        ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_inclusion_result(msg.result, ir, &err));
        ASSERT_CONTAINS(err.msg, bad ? "field \"proof\": 66 elements, over the limit of 65"
                                     : "field \"leafHash\": a hash of 33 bytes, not 32");
        done(&msg, &b);
    }

    /* get_entries: an entry that is not bin; a missing start */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_response(&w, 1);
    kix_proto_put_map(&w, 2);
    KEY("start"), U64(0);
    KEY("entries"), kix_proto_put_array(&w, 2), BIN("a", 1), U64(3);
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_get_entries_result(msg.result, 10, &ents, &err));
    ASSERT_CONTAINS(err.msg, "entries[1]: expected bin, got int");
    kix_msg_free(ents.owned);
    done(&msg, &b);

    /* submit: an item error with a code that is not negative */
    kix_buf_init(&b);
    kix_proto_writer_init(&w, &b);
    kix_proto_begin_response(&w, 1);
    kix_proto_put_map(&w, 2);
    KEY("results"), kix_proto_put_array(&w, 1);
    kix_proto_put_map(&w, 1), KEY("error"), kix_proto_put_map(&w, 2);
    KEY("code"), U64(3);
    KEY("message"), STR("m");
    KEY("size"), U64(1);
    finish(&w, &b, &msg);
    ASSERT_EQ_INT(KIX_EPROTO, kix_msg_get_submit_result(msg.result, 1, &sr, &err));
    ASSERT_CONTAINS(err.msg, "results[0]: field \"error\": field \"code\" must be a negative");
    kix_msg_free(sr.owned);
    done(&msg, &b);
    free(ir);
}

KIX_TEST_MAIN()
