/* The signed log over a real LMDB store: appends, policy, evidence,
 * receipts, consistency, replicas, tampering, and proof cost at scale. */
#define _GNU_SOURCE /* memmem */
#include <lmdb.h>
#include <sodium.h>
#include <stdlib.h>
#include <unistd.h>

#include "fixture.h"
#include "harness.h"
#include "kix/entries.h"
#include "kix/index.h"
#include "kix/receipt.h"
#include "kix/client.h"
#include "kix/sync.h"
#include "kix/vindex.h"

KIX_TEST(create_registers_admin_at_entry_zero)
{
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_bytes note;
    struct kix_note opened;
    struct kix_checkpoint cp;
    struct kix_key_info key;
    uint8_t id[32];

    setup(&f);
    ASSERT_EQ_U64(4, log_size(&f));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(r, KIX_NO_INDEX, &note));
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)note.ptr, note.len, &f.vkey, 1, ORIGIN,
                                              &opened, &cp, NULL));
    ASSERT_EQ_U64(4, cp.size);
    crypto_hash_sha256(id, kix_signer_public_key(f.admin), 32);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_key(r, id, &key));
    ASSERT_EQ_INT(KIX_ROLE_ADMIN, key.roles);
    ASSERT_EQ_U64(0, key.added_index);
    ASSERT_EQ_U64(KIX_NO_INDEX, key.revoked_index);
    kix_log_read_end(r);
    /* a second create in the same place is refused */
    struct kix_err err = {0};
    ASSERT_EQ_INT(KIX_EEXIST, kix_index_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), NULL,
                                               NULL, &err));
    teardown(&f);
}

KIX_TEST(publish_attest_rerun_supersede_evidence)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_buf env = KIX_BUF_INIT;
    char rerun_manifest[512];
    struct kix_digest rd;
    struct kix_run_entry *entries = NULL;
    size_t n = 0;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_U64(4, res.index);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_EVIDENCE_REPORTED, run.evidence);
    ASSERT_EQ_U64(4, run.publication_index);
    kix_log_read_end(r);

    /* an attestation never changes the evidence level */
    ASSERT_EQ_INT(KIX_OK, kix_entry_attestation(f.attester, "run-1", &run.manifest,
                                                "reproduced on my A100", NULL, 0, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_EVIDENCE_REPORTED, run.evidence);
    ASSERT_EQ_U64(1, run.attestations);
    kix_log_read_end(r);

    /* a controlled rerun does */
    run_manifest(rerun_manifest, sizeof(rerun_manifest), 77);
    digest_of_json(rerun_manifest, &rd);
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "run-1", &run.manifest, "not_reproduced", &rd,
                                          NULL, &env, &err));
    const char *objs[] = {rerun_manifest};
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 1, &res, &err));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_EVIDENCE_NOT_REPRODUCED, run.evidence);
    ASSERT_EQ_U64(res.index, run.evidence_index);
    kix_log_read_end(r);
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "run-1", &run.manifest, "reproduced", &rd,
                                          NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    kix_buf_reset(&env);

    /* supersession: only the publisher, only to a run it published */
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, "run-1", &run.manifest, "run-2",
                                                 "fixed timer", &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    uint64_t sup_index = res.index;
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_EVIDENCE_REPRODUCED, run.evidence);
    ASSERT_EQ_U64(2, run.reruns);
    ASSERT_EQ_U64(sup_index, run.superseded_by_index);
    ASSERT_EQ_INT(KIX_OK, kix_index_run_entries(r, "run-1", 5, &entries, &n));
    ASSERT_EQ_INT(5, n);
    ASSERT_EQ_INT(KIX_ENTRY_PUBLICATION, entries[0].type);
    ASSERT_EQ_INT(KIX_ENTRY_ATTESTATION, entries[1].type);
    ASSERT_EQ_INT(KIX_ENTRY_RERUN, entries[2].type);
    ASSERT_EQ_INT(KIX_ENTRY_SUPERSESSION, entries[4].type);
    free(entries);
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-2", 5, &run));
    ASSERT_EQ_U64(sup_index, run.supersedes_index);
    /* by digest */
    struct kix_run_info by_digest;
    ASSERT_EQ_INT(KIX_OK, kix_index_run_by_digest(r, &run.manifest, &by_digest));
    ASSERT_EQ_STR("run-2", by_digest.run_id);
    kix_log_read_end(r);
    kix_buf_release(&env);
    teardown(&f);
}

/* Each refusal names its rule and stores nothing. */
KIX_TEST(policy_refusals)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    uint64_t before;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    before = log_size(&f);

    ASSERT_EQ_INT(KIX_EPOLICY, publish(&f, f.stranger, "run-9", 9, &res, &err));
    ASSERT_CONTAINS(err.msg, "is not registered in this log");
    ASSERT_EQ_INT(KIX_EPOLICY, publish(&f, f.attester, "run-9", 9, &res, &err));
    ASSERT_CONTAINS(err.msg, "lacks the publish role");
    ASSERT_EQ_INT(KIX_EPOLICY, publish(&f, f.publisher, "run-1", 3, &res, &err));
    ASSERT_CONTAINS(err.msg, "run id run-1 is already published");

    /* missing reference: the workload is neither stored nor sent */
    {
        char manifest[512];
        run_manifest(manifest, sizeof(manifest), 5);
        memcpy(strstr(manifest, "sha256:") + 7, "00000000", 8);
        digest_of_json(manifest, &d);
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_publication(f.publisher, "run-5", &d, NULL, NULL, NULL, &env, &err));
        const char *objs[] = {manifest};
        ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, objs, 1, &res, &err));
        ASSERT_CONTAINS(err.msg, "missing reference");
        kix_buf_reset(&env);
        /* and the run manifest itself neither stored nor sent */
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_publication(f.publisher, "run-5", &d, NULL, NULL, NULL, &env, &err));
        ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
        ASSERT_CONTAINS(err.msg, "is neither stored nor sent with the entry");
        kix_buf_reset(&env);
    }

    /* bad signature: flip one byte of the signature inside the envelope */
    {
        struct kix_dsse_envelope e;
        struct kix_buf bad = KIX_BUF_INIT;
        struct kix_prepared *p = NULL;
        struct kix_submission sub;
        char manifest[512];
        run_manifest(manifest, sizeof(manifest), 6);
        digest_of_json(manifest, &d);
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_publication(f.publisher, "run-6", &d, NULL, NULL, NULL, &env, &err));
        kix_dsse_envelope_init(&e);
        ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(env.ptr, env.len, &e, &err));
        e.sigs[0].sig[10] ^= 1;
        ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&e, &bad, &err));
        kix_dsse_envelope_release(&e);
        sub.envelope = kix_buf_bytes(&bad);
        sub.objects = NULL;
        sub.nobjects = 0;
        ASSERT_EQ_INT(KIX_EVERIFY, kix_log_prepare(f.log, &sub, &p, &err));
        ASSERT_CONTAINS(err.msg, "bad signature");
        kix_buf_release(&bad);
        kix_buf_reset(&env);
    }

    /* revoked key: revoke the attester, then it may no longer attest */
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, f.attester, 0, 1));
    before++;
    {
        struct kix_log_reader *r;
        struct kix_run_info run;
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
        kix_log_read_end(r);
        ASSERT_EQ_INT(KIX_OK, kix_entry_attestation(f.attester, "run-1", &run.manifest, "late",
                                                    NULL, 0, &env, &err));
        ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
        ASSERT_CONTAINS(err.msg, "was revoked at log index");
        kix_buf_reset(&env);
        /* only the publisher may supersede */
        ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, f.stranger, KIX_ROLE_PUBLISH, 0));
        before++;
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.stranger, "run-7", 7, &res, &err));
        before++;
        ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.stranger, "run-1", &run.manifest, "run-7",
                                                     NULL, &env, &err));
        ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
        ASSERT_CONTAINS(err.msg, "only the publisher of run run-1");
        kix_buf_reset(&env);
        /* a non-admin cannot add keys */
        ASSERT_EQ_INT(KIX_EPOLICY, add_key(&f, f.publisher, f.rerunner, KIX_ROLE_ADMIN, 0));
    }

    /* oversize leaf: an envelope over 65,535 bytes */
    {
        struct kix_buf big = KIX_BUF_INIT;
        struct kix_prepared *p = NULL;
        struct kix_submission sub;
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&big, "{\"payload\":\""));
        for (int i = 0; i < 70000 / 4; i++)
            ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&big, "QUFB"));
        ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&big, "\",\"payloadType\":\"application/vnd.in-toto"
                                                 "+json\",\"signatures\":[{\"keyid\":\"\","
                                                 "\"sig\":\"QUFB\"}]}"));
        sub.envelope = kix_buf_bytes(&big);
        sub.objects = NULL;
        sub.nobjects = 0;
        ASSERT_EQ_INT(KIX_ELIMIT, kix_log_prepare(f.log, &sub, &p, &err));
        ASSERT_CONTAINS(err.msg, "65535");
        kix_buf_release(&big);
    }
    ASSERT_EQ_U64(before, log_size(&f));
    kix_buf_release(&env);
    teardown(&f);
}

/* A run manifest of run `name`: latency `median` (JSON number text),
 * protocol `group`, environment `env` (0: no environmentDigest); the
 * objects it references into objs[1..] (objs[0] is the manifest), their
 * count + 1 into *nobjs. `bufs` holds them. */
struct ranked_bufs {
    char manifest[1024], protocol[512], environment[512];
};

static void ranked_manifest(struct ranked_bufs *b, const char *kind, const char *name,
                            const char *median, int group, int env, const char *objs[4],
                            size_t *nobjs)
{
    char wtext[KIX_DIGEST_TEXT_LEN + 1], ptext[KIX_DIGEST_TEXT_LEN + 1],
        etext[KIX_DIGEST_TEXT_LEN + 1], env_member[128] = "";

    protocol_record(b->protocol, sizeof(b->protocol), group);
    environment_record(b->environment, sizeof(b->environment), env);
    digest_text_of_json(workload, wtext);
    digest_text_of_json(b->protocol, ptext);
    digest_text_of_json(b->environment, etext);
    if (env)
        snprintf(env_member, sizeof(env_member), ",\"environmentDigest\":\"%s\"", etext);
    snprintf(b->manifest, sizeof(b->manifest),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"%s\",\"metadata\":{"
             "\"name\":\"%s\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":%s}},\"sourceNative\":{\"source\":\"test\",\"benchmark\":\"rope/"
             "forward\"},\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\"%s}}",
             kind, name, median, wtext, ptext, env_member);
    objs[0] = b->manifest;
    objs[1] = workload;
    objs[2] = b->protocol;
    objs[3] = b->environment;
    *nobjs = env ? 4 : 3;
}

/* A comparable run: same group for equal `group`, value = latency ns,
 * written as the JSON number text `median`. */
static int publish_ranked_text(struct fixture *f, const char *run_id, int group, const char *median,
                               struct kix_err *err)
{
    struct kix_append_result res;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    struct ranked_bufs b;
    const char *objs[4];
    size_t n;
    int rc;

    ranked_manifest(&b, "BenchmarkRun", run_id, median, group, 1, objs, &n);
    digest_of_json(b.manifest, &d);
    rc = kix_entry_publication(f->publisher, run_id, &d, NULL, NULL, NULL, &env, err);
    if (rc == KIX_OK)
        rc = submit(f, &env, objs, n, &res, err);
    kix_buf_release(&env);
    return rc;
}

static int publish_ranked(struct fixture *f, const char *run_id, int group, int value,
                          struct kix_err *err)
{
    char median[24];
    snprintf(median, sizeof(median), "%d", value);
    return publish_ranked_text(f, run_id, group, median, err);
}

static void expect_rank(struct fixture *f, const char *run_id, uint64_t rank, uint64_t size,
                        const char *best)
{
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_rank k;
    if (kix_log_read_begin(f->log, &r) || kix_index_run(r, run_id, strlen(run_id), &run) ||
        kix_index_rank(r, &run, &k))
        abort();
    kix_log_read_end(r);
    if (k.rank != rank || k.group_size != size || (best && strcmp(k.best, best) != 0)) {
        fprintf(stderr, "%s: rank %llu of %llu (best %s), want %llu of %llu (best %s)\n", run_id,
                (unsigned long long)k.rank, (unsigned long long)k.group_size, k.best,
                (unsigned long long)rank, (unsigned long long)size, best ? best : "-");
        abort();
    }
}

static int count_row(void *ctx, const struct kix_query_row *row)
{
    (void)row;
    ++*(int *)ctx;
    return 0;
}

/* Runs of mode "forward" and metric "latency" that a log's selection
 * records list (what kix query --mode forward --metric latency reads). */
static int forward_latency_rows(struct kix_log *l)
{
    struct kix_log_reader *r;
    struct kix_query q;
    int rows = 0;

    memset(&q, 0, sizeof(q));
    q.mode = "forward";
    q.metric = "latency";
    q.limit = 100;
    if (kix_log_read_begin(l, &r) || kix_index_query(r, &q, count_row, &rows, NULL))
        abort();
    kix_log_read_end(r);
    return rows;
}

/* The writer (one thread, for the origin and for a replica) takes a ranked
 * run's group and its selection records' words from what prepare read off
 * its own parse of the manifest (the indexer's memo), never parsing the
 * manifest again; and the records say what kixd check recomputes from the
 * stored manifests. */
KIX_TEST(writer_parses_no_manifest_that_prepare_parsed)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_client *up = NULL;
    struct kix_log *replica;
    struct kix_check_opts o;
    struct kix_index_check_stats st;
    uint64_t before, synced = 0;
    char *rdir;

    setup(&f);
    before = kix_index_writer_manifest_parses();
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "slow", 1, 300, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "other", 2, 50, &err));
    ASSERT_EQ_U64(before, kix_index_writer_manifest_parses());
    ASSERT_EQ_INT(3, forward_latency_rows(f.log));
    memset(&o, 0, sizeof(o));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(3, st.ranked);
    ASSERT_EQ_U64(0, st.issues);

    /* a replica replays them (its index notes must equal the origin's) */
    replica = new_replica(&f, &rdir);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &up, &err));
    ASSERT_EQ_INT(KIX_OK, kix_sync(up, replica, KIX_NO_INDEX, NULL, &synced, &err));
    ASSERT_EQ_U64(7, synced);
    ASSERT_EQ_U64(before, kix_index_writer_manifest_parses());
    ASSERT_EQ_INT(3, forward_latency_rows(replica));
    kix_client_close(up);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(&f);
}

KIX_TEST(comparison_groups_and_ranks)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_run_info run;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "slow", 1, 300, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "mid", 1, 200, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "other", 2, 50, &err)); /* another protocol */
    expect_rank(&f, "fast", 1, 3, "fast");
    expect_rank(&f, "mid", 2, 3, "fast");
    expect_rank(&f, "slow", 3, 3, "fast");
    expect_rank(&f, "other", 1, 1, "other");
    /* a run that is not a comparable BenchmarkRun has no rank */
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "plain", 1, &res, &err));
    expect_rank(&f, "plain", 0, 0, NULL);

    /* supersede "fast" with a slower correction: the successor takes its place */
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast-fixed", 1, 250, &err));
    expect_rank(&f, "fast-fixed", 3, 4, "fast");
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "fast", 4, &run));
    kix_log_read_end(r);
    ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, "fast", &run.manifest, "fast-fixed",
                                                 NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    expect_rank(&f, "fast", 0, 0, NULL);
    expect_rank(&f, "mid", 1, 3, "mid");
    expect_rank(&f, "fast-fixed", 2, 3, "mid");
    expect_rank(&f, "slow", 3, 3, "mid");
    kix_buf_release(&env);
    teardown(&f);
}

/* Moderation in the open (issue 41): a curator's withdrawal takes a run out
 * of its group's ranks (the rest close up), a reinstatement puts it back;
 * the publisher may withdraw its own run and undo only its own withdrawal;
 * the signed index's run record and withdrawn/<hex> say so, and the index
 * check recomputes the same. */
static int moderate(struct fixture *f, struct kix_signer *by, const char *run_id, int reason,
                    uint64_t *index, struct kix_err *err)
{
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_append_result res;
    struct kix_buf env = KIX_BUF_INIT;
    int rc;

    if (kix_log_read_begin(f->log, &r) || kix_index_run(r, run_id, strlen(run_id), &run))
        abort();
    kix_log_read_end(r);
    rc = reason ? kix_entry_withdrawal(by, run_id, &run.manifest, reason, "the note", NULL, NULL,
                                       &env, err)
                : kix_entry_reinstatement(by, run_id, &run.manifest, NULL, NULL, &env, err);
    if (rc == KIX_OK)
        rc = submit(f, &env, NULL, 0, &res, err);
    if (rc == KIX_OK && index)
        *index = res.index;
    kix_buf_release(&env);
    return rc;
}

struct listed {
    char ids[256];
    int reasons;
};

static int list_withdrawn(void *ctx, const char *run_id, uint64_t index, int reason)
{
    struct listed *l = ctx;
    (void)index;
    snprintf(l->ids + strlen(l->ids), sizeof(l->ids) - strlen(l->ids), "%s ", run_id);
    l->reasons = l->reasons * 10 + reason;
    return 0;
}

/* The signed index's withdrawn/<hex> of run_id's group, decoded: "id id ". */
static void withdrawn_of(struct fixture *f, const char *run_id, struct listed *out, int *present)
{
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_buf v = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];

    memset(out, 0, sizeof(*out));
    if (kix_log_read_begin(f->log, &r) || kix_index_run(r, run_id, strlen(run_id), &run))
        abort();
    kix_vindex_key_withdrawn(&run.comparison_key, key);
    if (kix_index_prove(r, key, strlen(key), &v, &proof, present, NULL) ||
        (*present && kix_vindex_withdrawn_decode(v.ptr, v.len, &run.comparison_key, list_withdrawn,
                                                 out, NULL, NULL)))
        abort();
    kix_log_read_end(r);
    kix_buf_release(&v);
    kix_buf_release(&proof);
}

KIX_TEST(withdrawals_leave_the_ranks_and_reinstatements_restore_them)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_signer *curator = new_key("curator");
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_buf rec = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_vindex_run vr;
    struct kix_check_opts o;
    struct kix_index_check_stats st;
    struct listed l;
    uint64_t at = 0, size;
    int present = 0;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, curator, KIX_ROLE_CURATE, 0));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "mid", 1, 200, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "slow", 1, 300, &err));
    withdrawn_of(&f, "fast", &l, &present);
    ASSERT_EQ_INT(0, present); /* no withdrawal yet: the key is absent */

    ASSERT_EQ_INT(KIX_OK, moderate(&f, curator, "fast", KIX_WITHDRAW_INVALID_TIMING, &at, &err));
    expect_rank(&f, "fast", 0, 0, NULL);
    expect_rank(&f, "mid", 1, 2, "mid");
    expect_rank(&f, "slow", 2, 2, "mid");
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "fast", 4, &run));
    ASSERT_EQ_U64(at, run.withdrawn_index);
    ASSERT_EQ_INT(0, run.grouped);
    ASSERT_EQ_INT(KIX_OK, kix_index_prove(r, "run/fast", 8, &rec, &proof, &present, &err));
    ASSERT_EQ_INT(KIX_OK, kix_vindex_run_decode(rec.ptr, rec.len, "fast", &vr, &err));
    ASSERT_EQ_U64(at, vr.info.withdrawn_index);
    ASSERT_EQ_U64(2, vr.info.entries); /* publication and withdrawal */
    kix_log_read_end(r);
    withdrawn_of(&f, "fast", &l, &present);
    ASSERT_EQ_INT(1, present);
    ASSERT_EQ_STR("fast ", l.ids);
    ASSERT_EQ_INT(KIX_WITHDRAW_INVALID_TIMING, l.reasons);

    /* refused, nothing stored */
    size = log_size(&f);
    ASSERT_EQ_INT(KIX_EPOLICY, moderate(&f, curator, "fast", KIX_WITHDRAW_OTHER, NULL, &err));
    ASSERT_CONTAINS(err.msg, "run fast is already withdrawn");
    ASSERT_EQ_INT(KIX_EPOLICY, moderate(&f, f.attester, "mid", KIX_WITHDRAW_OTHER, NULL, &err));
    ASSERT_CONTAINS(err.msg, "lacks the curate (or publish, for its own runs) role");
    ASSERT_EQ_INT(KIX_EPOLICY, moderate(&f, f.publisher, "fast", 0, NULL, &err));
    ASSERT_CONTAINS(err.msg, "only a key with role curate may reinstate run fast");
    ASSERT_EQ_INT(KIX_EPOLICY, moderate(&f, curator, "mid", 0, NULL, &err));
    ASSERT_CONTAINS(err.msg, "run mid is not withdrawn");
    ASSERT_EQ_U64(size, log_size(&f));

    memset(&o, 0, sizeof(o));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(2, st.ranked);
    ASSERT_EQ_U64(0, st.issues);

    /* the curator reinstates it: the ranks are what they were */
    ASSERT_EQ_INT(KIX_OK, moderate(&f, curator, "fast", 0, NULL, &err));
    expect_rank(&f, "fast", 1, 3, "fast");
    expect_rank(&f, "slow", 3, 3, "fast");
    withdrawn_of(&f, "fast", &l, &present);
    ASSERT_EQ_INT(1, present); /* kept in the tree, with no run */
    ASSERT_EQ_STR("", l.ids);

    /* the publisher withdraws its own run, and undoes its own withdrawal */
    ASSERT_EQ_INT(KIX_OK, moderate(&f, f.publisher, "mid", KIX_WITHDRAW_DUPLICATE, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, moderate(&f, curator, "slow", KIX_WITHDRAW_INCORRECT_RESULT, NULL, &err));
    expect_rank(&f, "fast", 1, 1, "fast");
    withdrawn_of(&f, "fast", &l, &present);
    ASSERT_EQ_STR("mid slow ", l.ids);
    ASSERT_EQ_INT(KIX_WITHDRAW_DUPLICATE * 10 + KIX_WITHDRAW_INCORRECT_RESULT, l.reasons);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(0, st.issues);
    ASSERT_EQ_INT(KIX_OK, moderate(&f, f.publisher, "mid", 0, NULL, &err));
    expect_rank(&f, "mid", 2, 2, "fast");
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(2, st.ranked);
    ASSERT_EQ_U64(0, st.issues);

    kix_buf_release(&rec);
    kix_buf_release(&proof);
    kix_signer_free(curator);
    teardown(&f);
}

/* A group's pages as the signed index proves them: every page the
 * directory lists, each proven and decoded against the directory, and
 * every member's rank counted across pages equal to the group table's.
 * Returns the page count; *count the group's size. */
struct paged {
    struct kix_log_reader *r;
    uint64_t checked;
};

static int rank_agrees(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct paged *p = ctx;
    struct kix_run_info run;
    struct kix_rank k;
    (void)value;
    if (kix_index_run(p->r, run_id, strlen(run_id), &run) || kix_index_rank(p->r, &run, &k) ||
        k.rank != rank)
        abort();
    p->checked++;
    return 0;
}

/* The directory's i-th page. */
struct nth {
    uint64_t want;
    struct kix_vindex_page *out;
};

static int nth_page(void *ctx, const struct kix_vindex_page *x)
{
    struct nth *n = ctx;
    if (x->index != n->want)
        return 0;
    *n->out = *x;
    return 1;
}

static size_t largest_page; /* bytes of the largest page prove_pages proved */

static uint64_t prove_pages(struct fixture *f, const struct kix_digest *g, uint64_t *count)
{
    struct kix_log_reader *r;
    struct kix_bytes nb;
    struct kix_vindex_note n;
    struct kix_vindex_dir d;
    struct kix_buf dir = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_err err = {0};
    struct paged p = {NULL, 0};
    char key[KIX_VINDEX_KEY_MAX + 1];
    int present;

    if (kix_log_read_begin(f->log, &r) || kix_log_reader_index_note(r, KIX_NO_INDEX, &nb) ||
        kix_vindex_note_open((const char *)nb.ptr, nb.len, kix_log_verifier(f->log), NULL, &n,
                             &err))
        abort();
    p.r = r;
    kix_vindex_key_group(g, key);
    if (kix_index_prove(r, key, strlen(key), &dir, &proof, &present, &err) || !present ||
        kix_vindex_verify(&n, key, strlen(key), dir.ptr, dir.len, proof.ptr, proof.len, &err) ||
        kix_vindex_group_decode(dir.ptr, dir.len, g, &d, NULL, NULL, &err))
        abort();
    for (uint64_t i = 0; i < d.pages; i++) {
        struct kix_vindex_page page;
        struct kix_buf v = KIX_BUF_INIT, pp = KIX_BUF_INIT;
        char id[KIX_RUN_ID_MAX + 1];
        struct nth nth = {i, &page};
        memset(&page, 0, sizeof(page));
        if (kix_vindex_group_decode(dir.ptr, dir.len, g, &d, nth_page, &nth, &err))
            abort();
        kix_vindex_key_group_page(g, i ? page.first_run : "", key);
        if (kix_index_prove(r, key, strlen(key), &v, &pp, &present, &err) || !present ||
            kix_vindex_verify(&n, key, strlen(key), v.ptr, v.len, pp.ptr, pp.len, &err) ||
            kix_vindex_page_decode(v.ptr, v.len, g, &page, id, rank_agrees, &p, &err))
            abort();
        if (v.len > largest_page)
            largest_page = v.len;
        kix_buf_release(&v);
        kix_buf_release(&pp);
    }
    if (p.checked != d.count)
        abort();
    *count = d.count;
    kix_log_read_end(r);
    kix_buf_release(&dir);
    kix_buf_release(&proof);
    return d.pages;
}

/* A group of 300 runs is cut into pages where its members say (about
 * one in 64 starts one), every rank is proven by its page and the
 * directory, and a page whose first run is superseded keeps its key with no
 * member while the page before takes the rest; kixd check agrees. */
KIX_TEST(group_pages_prove_every_rank)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_index_check_stats st;
    struct kix_check_opts o;
    struct kix_buf env = KIX_BUF_INIT, v = KIX_BUF_INIT, pp = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_digest g;
    char id[32], starter[32] = "", key[KIX_VINDEX_KEY_MAX + 1];
    uint64_t count, pages;
    int present;

    setup(&f);
    for (int i = 0; i < 300; i++) {
        snprintf(id, sizeof(id), "r%d", i);
        ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, id, 1, 1000 + (i * 7919) % 613, &err));
        if (!starter[0] && i > 100 && kix_vindex_page_starts(id, strlen(id)))
            snprintf(starter, sizeof(starter), "%s", id);
    }
    ASSERT_TRUE(starter[0] != '\0');
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "r0", 2, &run));
    kix_log_read_end(r);
    g = run.comparison_key;
    pages = prove_pages(&f, &g, &count);
    ASSERT_EQ_U64(300, count);
    ASSERT_TRUE(pages > 2);

    /* the starting run leaves: one page fewer, its key stays, empty */
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fixed", 1, 5000, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, starter, strlen(starter), &run));
    kix_log_read_end(r);
    ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, starter, &run.manifest, "fixed", NULL,
                                                 &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    ASSERT_EQ_U64(pages - (kix_vindex_page_starts("fixed", 5) ? 0 : 1),
                  prove_pages(&f, &g, &count));
    ASSERT_EQ_U64(300, count);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    kix_vindex_key_group_page(&g, starter, key);
    ASSERT_EQ_INT(KIX_OK, kix_index_prove(r, key, strlen(key), &v, &pp, &present, &err));
    kix_log_read_end(r);
    ASSERT_EQ_INT(1, present);
    ASSERT_EQ_U64(1 + 32 + 1 + strlen(starter) + 8, v.len);
    /* and the index recomputed from the entries is the one stored */
    memset(&o, 0, sizeof(o));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(0, st.issues);
    ASSERT_EQ_U64(300, st.ranked);
    kix_buf_release(&env);
    kix_buf_release(&v);
    kix_buf_release(&pp);
    teardown(&f);
}

/* A ground id: long, and grown with a counter until SHA-256 says it
 * starts no page, as a publisher who wants one large page picks ids. */
static void ground_id(int i, char id[KIX_RUN_ID_MAX + 1])
{
    for (int nonce = 0;; nonce++) {
        snprintf(id, KIX_RUN_ID_MAX + 1, "ground-%04d-%0100d-%d", i, 0, nonce);
        if (!kix_vindex_page_starts(id, strlen(id)))
            return;
    }
}

/* Issue 42.6: 1,200 runs whose ids a publisher ground so that none
 * starts a page by the hash rule used to fall in one page record of over
 * 150 KB. A page now also ends when full (KIX_VINDEX_PAGE_MAX members),
 * so every record stays under 64 KiB, every rank is proven page by page,
 * and runs leaving from the middle (the full pages after them recut,
 * their old first runs' pages kept empty) leave an index kixd check
 * recomputes from the entries. */
KIX_TEST(ground_ids_cannot_grow_a_page)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_index_check_stats st;
    struct kix_check_opts o;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_digest g;
    char id[KIX_RUN_ID_MAX + 1], first[KIX_RUN_ID_MAX + 1];
    uint64_t count, pages;

    setup(&f);
    for (int i = 0; i < 1200; i++) {
        ground_id(i, id);
        /* values out of order: joins land inside full pages and recut them */
        ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, id, 1, 1000 + (i * 7919) % 1201, &err));
        if (i == 0)
            snprintf(first, sizeof(first), "%s", id);
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, first, strlen(first), &run));
    kix_log_read_end(r);
    g = run.comparison_key;
    largest_page = 0;
    pages = prove_pages(&f, &g, &count);
    ASSERT_EQ_U64(1200, count);
    ASSERT_EQ_U64(3, pages); /* 448 + 448 + 304 */
    ASSERT_TRUE(largest_page <= KIX_VINDEX_PAGE_BYTES);

    /* three runs leave, from anywhere: the full pages after them are recut */
    for (int i = 0; i < 3; i++) {
        char successor[32];
        ground_id(i * 400, id);
        snprintf(successor, sizeof(successor), "next-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, successor, 2, 1000, &err));
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, id, strlen(id), &run));
        kix_log_read_end(r);
        ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, id, &run.manifest, successor,
                                                     NULL, &env, &err));
        ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
        kix_buf_reset(&env);
    }
    largest_page = 0;
    ASSERT_EQ_U64(3, prove_pages(&f, &g, &count));
    ASSERT_EQ_U64(1197, count);
    ASSERT_TRUE(largest_page <= KIX_VINDEX_PAGE_BYTES);
    memset(&o, 0, sizeof(o));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(0, st.issues);
    kix_buf_release(&env);
    teardown(&f);
}

/* Outside writes to the store's index tables (what a lying server's
 * operator can do): run fn on a write transaction of the closed store. */
static void edit_store(struct fixture *f, void (*fn)(MDB_txn *txn, MDB_env *env))
{
    MDB_env *env;
    MDB_txn *txn;

    kix_log_close(f->log);
    f->log = NULL;
    /* the index's tables (layout 3: index.mdb) */
    if (test_env_open(f->dir, "runs", 0, &env) || mdb_txn_begin(env, NULL, 0, &txn))
        abort();
    fn(txn, env);
    if (mdb_txn_commit(txn))
        abort();
    mdb_env_close(env);
    if (kix_index_open(f->dir, NULL, &f->log, NULL))
        abort();
}

/* "slow" (third of three) moved to the head of its group: value 0. */
static void promote_slow(MDB_txn *txn, MDB_env *env)
{
    MDB_dbi dbi;
    MDB_cursor *cur;
    MDB_val k, v;
    uint8_t moved[64];
    int rc;

    (void)env;
    if (mdb_dbi_open(txn, "groups", 0, &dbi) || mdb_cursor_open(txn, dbi, &cur))
        abort();
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        if (k.mv_size == 16 && memcmp((uint8_t *)k.mv_data + 12, "slow", 4) == 0)
            break;
    if (rc)
        abort();
    /* group number(4) ‖ value(8) ‖ id (kix-index/9) */
    memcpy(moved, k.mv_data, 16);
    memset(moved + 4, 0, 8);
    if (mdb_cursor_del(cur, 0))
        abort();
    mdb_cursor_close(cur);
    k.mv_data = moved;
    if (mdb_put(txn, dbi, &k, &v, 0))
        abort();
}

/* "mid"'s record says it was reproduced (evidence byte of the record:
 * byte 33, after manifest and flags, since kix-index/9). */
static void reproduce_mid(MDB_txn *txn, MDB_env *env)
{
    MDB_dbi dbi;
    MDB_val k = {3, "mid"}, v;
    uint8_t rec[256];

    (void)env;
    if (mdb_dbi_open(txn, "runs", 0, &dbi) || mdb_get(txn, dbi, &k, &v) || v.mv_size > sizeof(rec))
        abort();
    memcpy(rec, v.mv_data, v.mv_size);
    rec[33] = KIX_EVIDENCE_REPRODUCED;
    v.mv_data = rec;
    if (mdb_put(txn, dbi, &k, &v, 0))
        abort();
}

static int collect_index_issue(void *ctx, const struct kix_check_issue *is)
{
    struct kix_check_issue *first = ctx;
    if (!first->table)
        *first = *is;
    fprintf(stderr, "issue: [%s] %s: %s\n", is->table, is->where, is->message);
    return 0;
}

/* The index recomputed from the log: a clean store passes; a rank or an
 * evidence level edited into the store is named, table and run. */
/* Objects sent again that are stored already (the shared workload and
 * protocol of every ranked run here) are not parsed again, but they still
 * count for what the entry needs and what a field's kind requires: the
 * kinds come from the store. */
KIX_TEST(objects_sent_again_keep_their_kinds)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    struct ranked_bufs b;
    const char *objs[4];
    char wtext[KIX_DIGEST_TEXT_LEN + 1], ptext[KIX_DIGEST_TEXT_LEN + 1], *at;
    size_t n;
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "first", 1, 300, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "second", 1, 200, &err)); /* all but one stored */
    expect_rank(&f, "second", 1, 2, "second");
    /* the workload field naming the (stored, sent again) protocol record */
    ranked_manifest(&b, "BenchmarkRun", "third", "100", 1, 1, objs, &n);
    digest_text_of_json(workload, wtext);
    digest_text_of_json(b.protocol, ptext);
    at = strstr(b.manifest, wtext);
    ASSERT_TRUE(at != NULL);
    memcpy(at, ptext, strlen(ptext));
    objs[1] = objs[2]; /* no workload in the bundle: nothing needs it */
    objs[2] = objs[3];
    n--;
    digest_of_json(b.manifest, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "third", &d, NULL, NULL, NULL, &env, &err));
    size = log_size(&f);
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, objs, n, &res, &err));
    ASSERT_CONTAINS(err.msg, "must name a Workload");
    ASSERT_CONTAINS(err.msg, "is a BenchmarkProtocol");
    ASSERT_EQ_U64(size, log_size(&f));
    kix_buf_release(&env);
    teardown(&f);
}

KIX_TEST(index_check_recomputes_ranks_and_evidence)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_index_check_stats st;
    struct kix_check_opts o;
    struct kix_check_issue first;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_run_info run;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "slow", 1, 300, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "mid", 1, 200, &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "fast-fixed", 1, 250, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "plain", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "fast", 4, &run));
    kix_log_read_end(r);
    ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, "fast", &run.manifest, "fast-fixed",
                                                 NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    memset(&o, 0, sizeof(o));
    o.issue = collect_index_issue;
    o.issue_ctx = &first;
    memset(&first, 0, sizeof(first));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_U64(5, st.runs);
    ASSERT_EQ_U64(3, st.ranked); /* slow, mid, fast-fixed; fast was superseded */
    ASSERT_EQ_U64(0, st.issues);

    edit_store(&f, promote_slow);
    expect_rank(&f, "slow", 1, 3, "slow"); /* what the store now claims */
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_STR("groups", first.table);
    ASSERT_EQ_STR("groups slow", first.where);
    ASSERT_CONTAINS(err.msg, "index problem");

    teardown(&f);
    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "mid", 1, 200, &err));
    edit_store(&f, reproduce_mid);
    memset(&first, 0, sizeof(first));
    ASSERT_EQ_INT(KIX_ECORRUPT, kix_index_check(f.log, &o, &st, &err));
    ASSERT_EQ_STR("runs", first.table);
    ASSERT_EQ_STR("runs mid", first.where);
    ASSERT_CONTAINS(first.message, "evidence reproduced (want reported)");
    kix_buf_release(&env);
    teardown(&f);
}

/* A rerun repeats its run: same kind, workload, implementation and
 * protocol, and it records where it ran; anything else is refused by name
 * and changes nothing. */
KIX_TEST(a_rerun_measures_what_the_run_measured)
{
    static const struct {
        int workload, protocol, env;
        const char *want; /* NULL: accepted */
    } cases[] = {
        {1, 1, 2, "is a Workload, not a BenchmarkRun"},
        {0, 2, 2, "measures something else: its spec.protocolDigest is sha256:"},
        {0, 1, 0, "records no spec.environmentDigest"},
        {0, 1, 2, NULL},
    };
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_log_reader *r;
    struct kix_run_info run;
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "r", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "r", 1, &run));
    kix_log_read_end(r);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ranked_bufs b;
        const char *objs[4];
        size_t n;
        char median[24];
        struct kix_buf env = KIX_BUF_INIT;
        struct kix_digest rd;
        int rc;
        snprintf(median, sizeof(median), "%zu", 200 + i);
        ranked_manifest(&b, "BenchmarkRun", "rerun", median, cases[i].protocol, cases[i].env, objs,
                        &n);
        if (cases[i].workload) { /* the run's Workload named as the rerun's manifest */
            objs[0] = workload;
            n = 1;
        }
        digest_of_json(objs[0], &rd);
        ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "r", &run.manifest, "not_reproduced", &rd,
                                              NULL, &env, &err));
        size = log_size(&f);
        rc = submit(&f, &env, objs, n, &res, &err);
        kix_buf_release(&env);
        if (!cases[i].want) {
            ASSERT_EQ_INT(KIX_OK, rc);
            continue;
        }
        ASSERT_EQ_INT(KIX_EPOLICY, rc);
        ASSERT_CONTAINS(err.msg, cases[i].want);
        ASSERT_EQ_U64(size, log_size(&f));
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "r", 1, &run));
    kix_log_read_end(r);
    ASSERT_EQ_U64(1, run.reruns);
    teardown(&f);
}

/* A run whose manifest was stored before (here as a rerun's) and is not a
 * comparable run: the writer and kixd check agree it has no group and no
 * value (the writer once kept a half-read value from such a manifest). */
KIX_TEST(stored_manifest_not_comparable_agrees_with_check)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_append_result res;
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_index_check_stats st;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest m;
    char wtext[KIX_DIGEST_TEXT_LEN + 1], ptext[KIX_DIGEST_TEXT_LEN + 1],
        etext[KIX_DIGEST_TEXT_LEN + 1], manifest[1024], proto[512], environment[512];
    const char *objs[3] = {manifest, proto, environment};

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "a", 1, 100, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "a", 1, &run));
    kix_log_read_end(r);
    digest_text_of_json(workload, wtext);
    protocol_record(proto, sizeof(proto), 1);
    environment_record(environment, sizeof(environment), 2);
    digest_text_of_json(proto, ptext);
    digest_text_of_json(environment, etext);
    /* a primary statistic but no benchmark name: not comparable */
    snprintf(manifest, sizeof(manifest),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
             "\"name\":\"b\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":300}},\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\","
             "\"environmentDigest\":\"%s\"}}",
             wtext, ptext, etext);
    digest_of_json(manifest, &m);
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "a", &run.manifest, "reproduced", &m, NULL,
                                          &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 3, &res, &err));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "b", &m, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err)); /* manifest already stored */
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "b", 1, &run));
    kix_log_read_end(r);
    ASSERT_EQ_INT(0, run.grouped);
    ASSERT_EQ_U64(0, run.value);
    ASSERT_EQ_INT(KIX_OK, kix_index_check(f.log, NULL, &st, &err));
    kix_buf_release(&env);
    teardown(&f);
}

/* The group key is the digest of the canonical JSON of the five members,
 * however they are spelled: checked against kix_canon of an unsorted,
 * escaped spelling of the same object. */
KIX_TEST(comparison_key_is_the_digest_of_canonical_members)
{
    static const char *const benches[] = {"rope/forward", "q\\\"uote\\u00e9\\u0001/\\ud83d\\ude00",
                                          "kernel \\t tab"};
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
        char manifest[1024], keyjson[512];
        struct kix_buf canon = KIX_BUF_INIT;
        struct kix_digest want, got;
        uint64_t value = 0;
        char metric[16];
        snprintf(manifest, sizeof(manifest),
                 "{\"kind\":\"BenchmarkRun\",\"spec\":{\"memory\":{\"peakBytes\":{\"median\":77}},"
                 "\"sourceNative\":{\"benchmark\":\"%s\"},\"workloadDigest\":\"w\\u00e9\","
                 "\"protocolDigest\":\"p\",\"environmentDigest\":\"e%zu\"}}",
                 benches[i], i);
        snprintf(
            keyjson, sizeof(keyjson),
            "{\"workloadDigest\":\"w\\u00e9\",\"metric\":\"peak_memory\",\"protocolDigest\":\"p\","
            "\"environmentDigest\":\"e%zu\",\"benchmark\":\"%s\"}",
            i, benches[i]);
        ASSERT_EQ_INT(KIX_OK,
                      kix_canon((const uint8_t *)keyjson, strlen(keyjson), NULL, &canon, NULL));
        kix_digest_of(canon.ptr, canon.len, &want);
        kix_buf_release(&canon);
        ASSERT_EQ_INT(KIX_OK, kix_run_comparison_key((const uint8_t *)manifest, strlen(manifest),
                                                     &got, &value, metric));
        ASSERT_EQ_U64(77, value);
        ASSERT_EQ_STR("peak_memory", metric);
        ASSERT_EQ_MEM(want.b, 32, got.b, 32);
    }
}

/* Prepare finds a run's group in the submitted manifest; the group must be
 * the one its canonical bytes (what is stored, what replicas see) give:
 * 2.5e2 and 250.0 canonicalize to 250, so they rank with an integer 250. */
KIX_TEST(comparison_group_follows_the_canonical_manifest)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_digest key;
    uint64_t value = 0;
    char metric[16];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_ranked_text(&f, "as-int", 1, "300", &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked_text(&f, "as-exp", 1, "2.5e2", &err));
    ASSERT_EQ_INT(KIX_OK, publish_ranked_text(&f, "as-real", 1, "200.0", &err));
    /* a fraction of a nanosecond is no latency the schema takes: refused by pointer */
    ASSERT_EQ_INT(KIX_EINVAL, publish_ranked_text(&f, "fraction", 1, "199.5", &err));
    ASSERT_CONTAINS(err.msg, "/spec/timing/latencyNs/median: must be a non-negative integer");
    expect_rank(&f, "as-real", 1, 3, "as-real");
    expect_rank(&f, "as-exp", 2, 3, "as-real");
    expect_rank(&f, "as-int", 3, 3, "as-real");
    /* and the key and value read back from the stored manifest agree */
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "as-exp", 6, &run));
    {
        struct kix_bytes m;
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_object(r, &run.manifest, &m));
        ASSERT_EQ_INT(KIX_OK, kix_run_comparison_key(m.ptr, m.len, &key, &value, metric));
    }
    kix_log_read_end(r);
    ASSERT_EQ_INT(1, run.grouped);
    ASSERT_EQ_U64(250, value);
    ASSERT_EQ_U64(run.value, value);
    ASSERT_EQ_INT(0, memcmp(key.b, run.comparison_key.b, 32));
    teardown(&f);
}

KIX_TEST(identical_envelope_returns_original_index)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    char manifest[512];
    const char *objs[2];

    setup(&f);
    run_manifest(manifest, sizeof(manifest), 1);
    digest_of_json(manifest, &d);
    objs[0] = manifest;
    objs[1] = workload;
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &res, &err));
    uint64_t first = res.index, size = log_size(&f);
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &res, &err));
    ASSERT_EQ_INT(1, res.duplicate);
    ASSERT_EQ_U64(first, res.index);
    ASSERT_EQ_U64(size, log_size(&f));
    kix_buf_release(&env);
    teardown(&f);
}

/* An entry is what was signed: a logged statement comes back as a
 * duplicate of its first index whatever envelope carries it, and the one
 * unsigned field, the keyid, has a single spelling. Replaying an old
 * not_reproduced rerun cannot flip a run's evidence back. */
KIX_TEST(a_statement_is_logged_once)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_run_info run;
    struct kix_buf old = KIX_BUF_INIT, now = KIX_BUF_INIT, again = KIX_BUF_INIT;
    struct kix_signer *second = new_key("rerunner-2");
    char rerun_manifest[512], *keyid;
    const char *objs[1] = {rerun_manifest};
    struct kix_digest rd;
    uint64_t old_index, size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, second, KIX_ROLE_RERUN, 0));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    kix_log_read_end(r);
    run_manifest(rerun_manifest, sizeof(rerun_manifest), 77);
    digest_of_json(rerun_manifest, &rd);
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "run-1", &run.manifest, "not_reproduced", &rd,
                                          "2026-11-01T00:00:00Z", &old, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &old, objs, 1, &res, &err));
    old_index = res.index;
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(f.rerunner, "run-1", &run.manifest, "reproduced", &rd,
                                          "2026-11-02T00:00:00Z", &now, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &now, NULL, 0, &res, &err));
    size = log_size(&f);

    /* the old rerun with its keyid spelled in capitals: the original entry */
    keyid = strstr((char *)old.ptr, "\"keyid\":\"");
    ASSERT_TRUE(keyid != NULL);
    for (char *c = keyid + 9; *c != '"'; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    ASSERT_EQ_INT(KIX_OK, submit(&f, &old, objs, 1, &res, &err));
    ASSERT_EQ_INT(1, res.duplicate);
    ASSERT_EQ_U64(old_index, res.index);
    /* a keyid that is not the signer's key id is refused */
    keyid[9] = keyid[9] == '0' ? '1' : '0';
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &old, objs, 1, &res, &err));
    keyid[9] = 'x';
    ASSERT_EQ_INT(KIX_EINVAL, submit(&f, &old, objs, 1, &res, &err));
    ASSERT_CONTAINS(err.msg, "64 hex digits");

    /* the same statement signed by another rerunner: the original entry */
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(second, "run-1", &run.manifest, "not_reproduced", &rd,
                                          "2026-11-01T00:00:00Z", &again, &err));
    ASSERT_TRUE(again.len != old.len || memcmp(again.ptr, old.ptr, old.len) != 0);
    ASSERT_EQ_INT(KIX_OK, submit(&f, &again, objs, 1, &res, &err));
    ASSERT_EQ_INT(1, res.duplicate);
    ASSERT_EQ_U64(old_index, res.index);
    ASSERT_EQ_U64(size, log_size(&f));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "run-1", 5, &run));
    ASSERT_EQ_INT(KIX_EVIDENCE_REPRODUCED, run.evidence);
    ASSERT_EQ_U64(2, run.reruns);
    kix_log_read_end(r);
    kix_buf_release(&old);
    kix_buf_release(&now);
    kix_buf_release(&again);
    kix_signer_free(second);
    teardown(&f);
}

/* The leaf is the envelope's canonical encoding: an envelope that comes
 * canonical is stored as it came (prepare skips encoding it again), one
 * that does not (capitals in the keyid, a space, the URL-safe base64
 * alphabet) is stored re-encoded, the same bytes as the canonical one. */
/* Whether an envelope's payload or sig (standard base64) holds a '+' or a
 * '/', the letters URL-safe base64 writes otherwise. NUL-terminated text. */
static int base64_fields_have_plus_or_slash(const char *env)
{
    static const char *const fields[2] = {"\"payload\":\"", "\"sig\":\""};

    for (int k = 0; k < 2; k++) {
        const char *c = strstr(env, fields[k]);
        for (c = c ? c + strlen(fields[k]) : ""; *c && *c != '"'; c++)
            if (*c == '+' || *c == '/')
                return 1;
    }
    return 0;
}

KIX_TEST(leaf_is_the_canonical_envelope_whatever_came)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};

    setup(&f);
    for (int variant = 0; variant < 4; variant++) {
        struct kix_buf canon = KIX_BUF_INIT, sent = KIX_BUF_INIT;
        struct kix_log_reader *r;
        struct kix_bytes leaf;
        struct kix_digest d;
        char manifest[512], run_id[16];
        const char *objects[2] = {manifest, workload};
        char *field, *c;
        size_t changed = 0;

        /* URL-safe base64 differs only where the standard has '+' or '/':
         * a signature (random keys) may have none, so the URL-safe variant
         * takes the first manifest whose envelope has one */
        for (int attempt = 0; attempt < 64; attempt++) {
            snprintf(run_id, sizeof(run_id), "leaf-%d-%d", variant, attempt);
            run_manifest(manifest, sizeof(manifest), 40 + variant + 4 * attempt);
            digest_of_json(manifest, &d);
            kix_buf_reset(&canon);
            ASSERT_EQ_INT(KIX_OK,
                          kix_entry_publication(f.publisher, run_id, &d, "2026-11-29T00:00:00Z",
                                                "test", "BSD-2-Clause", &canon, &err));
            if (variant != 3 || base64_fields_have_plus_or_slash((const char *)canon.ptr))
                break;
        }
        ASSERT_EQ_INT(KIX_OK, kix_buf_add(&sent, canon.ptr, canon.len));
        if (variant == 1) { /* the keyid in capitals */
            field = strstr((char *)sent.ptr, "\"keyid\":\"");
            ASSERT_TRUE(field != NULL);
            for (c = field + 9; *c != '"'; c++)
                if (*c >= 'a' && *c <= 'f') {
                    *c = (char)(*c - 'a' + 'A');
                    changed++;
                }
        } else if (variant == 2) { /* a space after the opening brace */
            kix_buf_reset(&sent);
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&sent, "{ ", 2));
            ASSERT_EQ_INT(KIX_OK, kix_buf_add(&sent, canon.ptr + 1, canon.len - 1));
            changed = 1;
        } else if (variant == 3) { /* the payload's and the sig's base64 URL-safe */
            const char *b64[2] = {"\"payload\":\"", "\"sig\":\""};
            for (int k = 0; k < 2; k++) {
                field = strstr((char *)sent.ptr, b64[k]);
                ASSERT_TRUE(field != NULL);
                for (c = field + strlen(b64[k]); *c != '"'; c++)
                    if (*c == '+' || *c == '/') {
                        *c = *c == '+' ? '-' : '_';
                        changed++;
                    }
            }
        }
        ASSERT_TRUE(variant == 0 ? changed == 0 : changed > 0);
        ASSERT_EQ_INT(KIX_OK, submit(&f, &sent, objects, 2, &res, &err));
        ASSERT_EQ_INT(0, res.duplicate);
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(r, res.index, &leaf));
        ASSERT_EQ_MEM(canon.ptr, canon.len, leaf.ptr, leaf.len);
        kix_log_read_end(r);
        kix_buf_release(&canon);
        kix_buf_release(&sent);
    }
    teardown(&f);
}

/* A store made before statements were indexed (no "statements" table),
 * and one of layout 1 (no layout mark: statements in a table of their
 * own), gets its statement records under their subjects when opened to
 * write, so its old entries count as duplicates too. */
KIX_TEST(old_store_gets_its_statement_index)
{
    struct fixture f;
    struct kix_append_result res, again;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    char manifest[512];
    const char *objs[2];
    MDB_env *menv;
    MDB_txn *txn;
    MDB_dbi dbi;

    setup(&f);
    run_manifest(manifest, sizeof(manifest), 1);
    digest_of_json(manifest, &d);
    objs[0] = manifest;
    objs[1] = workload;
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-1", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &res, &err));
    kix_log_close(f.log);
    f.log = NULL;
    as_layout_2(f.dir);
    ASSERT_EQ_INT(0, mdb_env_create(&menv));
    ASSERT_EQ_INT(0, mdb_env_set_maxdbs(menv, 32));
    ASSERT_EQ_INT(0, mdb_env_open(menv, f.dir, 0, 0600));
    ASSERT_EQ_INT(0, mdb_txn_begin(menv, NULL, 0, &txn));
    ASSERT_EQ_INT(0, mdb_dbi_open(txn, "statements", 0, &dbi));
    ASSERT_EQ_INT(0, mdb_drop(txn, dbi, 1));
    {
        /* layout 1: no mark, and the objects table holds objects only */
        MDB_val mk = {6, "layout"}, k, v;
        MDB_cursor *cur;
        int n = 0, mrc;
        ASSERT_EQ_INT(0, mdb_dbi_open(txn, "meta", 0, &dbi));
        ASSERT_EQ_INT(0, mdb_del(txn, dbi, &mk, NULL));
        ASSERT_EQ_INT(0, mdb_dbi_open(txn, "objects", 0, &dbi));
        ASSERT_EQ_INT(0, mdb_cursor_open(txn, dbi, &cur));
        for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0;
             mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
            if (k.mv_size != 32) {
                ASSERT_EQ_INT(0, mdb_cursor_del(cur, 0));
                n++;
            }
        mdb_cursor_close(cur);
        ASSERT_TRUE(n >= 4); /* a subject and a statement record an entry */
    }
    ASSERT_EQ_INT(0, mdb_txn_commit(txn));
    mdb_env_close(menv);
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &again, &err));
    ASSERT_EQ_INT(1, again.duplicate);
    ASSERT_EQ_U64(res.index, again.index);
    kix_buf_release(&env);
    teardown(&f);
}

/* Supersessions form chains: a run is superseded once, a successor has
 * one predecessor, and no cycle closes; each refusal names the runs and
 * stores nothing. */
KIX_TEST(supersessions_form_chains)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_run_info runs[4];
    const char *ids[4] = {"run-1", "run-2", "run-3", "run-4"};
    uint64_t size;

    setup(&f);
    for (int i = 0; i < 4; i++) {
        struct kix_log_reader *r;
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, ids[i], i + 1, &res, &err));
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
        ASSERT_EQ_INT(KIX_OK, kix_index_run(r, ids[i], 5, &runs[i]));
        kix_log_read_end(r);
    }
#define SUPERSEDE(from, to)                                                                        \
    do {                                                                                           \
        struct kix_buf env_ = KIX_BUF_INIT;                                                        \
        ASSERT_EQ_INT(KIX_OK, kix_entry_supersession(f.publisher, ids[from], &runs[from].manifest, \
                                                     ids[to], "correction", &env_, &err));         \
        rc = submit(&f, &env_, NULL, 0, &res, &err);                                               \
        kix_buf_release(&env_);                                                                    \
    } while (0)
    int rc;
    SUPERSEDE(0, 1); /* run-1 -> run-2 */
    ASSERT_EQ_INT(KIX_OK, rc);
    size = log_size(&f);
    SUPERSEDE(1, 0); /* run-2 -> run-1 would close a cycle */
    ASSERT_EQ_INT(KIX_EPOLICY, rc);
    ASSERT_CONTAINS(err.msg, "run run-1 was itself superseded");
    SUPERSEDE(2, 1); /* run-3 -> run-2: run-2 already has a predecessor */
    ASSERT_EQ_INT(KIX_EPOLICY, rc);
    ASSERT_CONTAINS(err.msg, "run run-2 already succeeds another run");
    SUPERSEDE(0, 2); /* run-1 again */
    ASSERT_EQ_INT(KIX_EPOLICY, rc);
    ASSERT_CONTAINS(err.msg, "run run-1 was already superseded");
    ASSERT_EQ_U64(size, log_size(&f));
    SUPERSEDE(1, 2); /* the chain grows at its end: run-2 -> run-3 */
    ASSERT_EQ_INT(KIX_OK, rc);
    SUPERSEDE(2, 0); /* run-3 -> run-1: the long cycle */
    ASSERT_EQ_INT(KIX_EPOLICY, rc);
    SUPERSEDE(3, 3); /* itself */
    ASSERT_EQ_INT(KIX_EINVAL, rc);
#undef SUPERSEDE
    teardown(&f);
}

/* One manifest, one run; and a bundle carries only what its entry needs
 * (or what those objects refer to). */
KIX_TEST(one_manifest_one_run_and_no_stowaways)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    char manifest[512], extra[64];
    const char *objs[3];
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    size = log_size(&f);
    run_manifest(manifest, sizeof(manifest), 1);
    digest_of_json(manifest, &d);
    objs[0] = manifest;
    objs[1] = workload;
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.publisher, "run-1-again", &d, NULL, NULL, NULL,
                                                &env, &err));
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, objs, 2, &res, &err));
    ASSERT_CONTAINS(err.msg, "is already published as run run-1");
    kix_buf_reset(&env);

    run_manifest(manifest, sizeof(manifest), 2);
    digest_of_json(manifest, &d);
    snprintf(extra, sizeof(extra), "{\"stowaway\":%d}", 1);
    objs[2] = extra;
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-2", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_EINVAL, submit(&f, &env, objs, 3, &res, &err));
    ASSERT_CONTAINS(err.msg, "object 2");
    ASSERT_CONTAINS(err.msg, "neither needed by the entry nor referenced");
    ASSERT_EQ_U64(size, log_size(&f));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &res, &err)); /* without it */
    kix_buf_release(&env);
    teardown(&f);
}

/* A manifest that names its run (metadata.runId) is published as that run:
 * another run id is refused by the policy, a name that is no string by the
 * schema, nothing stored; whether the manifest comes canonical (its name
 * read in prepare), not canonical (read from the slow path's tree) or was
 * stored before (read by the writer). */
KIX_TEST(a_manifest_names_its_own_run)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d;
    char manifest[768];
    const char *objs[2] = {manifest, workload};
    const char *names[] = {",\"runId\":\"run-x\"", ",\"runId\":7", ",\"runId\":\"run-x\""};
    const int want[] = {KIX_EPOLICY, KIX_EINVAL, KIX_EPOLICY};
    const char *why[] = {"but the publication names run run-y", "/metadata/runId",
                         "but the publication names run run-y"};
    uint64_t size;

    setup(&f);
    size = log_size(&f);
    for (size_t i = 0; i < 3; i++) {
        run_manifest_with(manifest, sizeof(manifest), 1, names[i]);
        if (i == 2) /* not canonical: the slow path */
            memmove(manifest + 2, manifest + 1, strlen(manifest)), manifest[1] = ' ';
        digest_of_json(manifest, &d);
        kix_buf_reset(&env);
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_publication(f.publisher, "run-y", &d, NULL, NULL, NULL, &env, &err));
        ASSERT_EQ_INT(want[i], submit(&f, &env, objs, 2, &res, &err));
        ASSERT_CONTAINS(err.msg, why[i]);
        ASSERT_EQ_U64(size, log_size(&f));
    }
    run_manifest_with(manifest, sizeof(manifest), 1, names[0]);
    digest_of_json(manifest, &d);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-x", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objs, 2, &res, &err));
    /* the stored manifest, not sent again, is run-x's only */
    size = log_size(&f);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-z", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
    ASSERT_CONTAINS(err.msg, "already published as run run-x");
    ASSERT_EQ_U64(size, log_size(&f));
    kix_buf_release(&env);
    teardown(&f);
}

/* Many submissions, one transaction, one checkpoint; refusals inside a
 * batch do not stop the others. */
KIX_TEST(batch_commit_one_checkpoint)
{
    struct fixture f;
    struct kix_prepared *items[50];
    struct kix_append_result res[50];
    struct kix_buf envs[50];
    char manifests[50][512];
    struct kix_err err = {0};
    uint64_t size0, size1;

    setup(&f);
    size0 = log_size(&f);
    for (int i = 0; i < 50; i++) {
        struct kix_digest d;
        struct kix_bytes objs[2];
        struct kix_submission sub;
        char id[32];
        kix_buf_init(&envs[i]);
        run_manifest(manifests[i], sizeof(manifests[i]), 100 + i);
        digest_of_json(manifests[i], &d);
        /* item 10 repeats item 9's run id and must be refused alone */
        snprintf(id, sizeof(id), "batch-%d", i == 10 ? 9 : i);
        ASSERT_EQ_INT(KIX_OK,
                      kix_entry_publication(f.publisher, id, &d, NULL, NULL, NULL, &envs[i], &err));
        objs[0].ptr = (const uint8_t *)manifests[i];
        objs[0].len = strlen(manifests[i]);
        objs[1].ptr = (const uint8_t *)workload;
        objs[1].len = strlen(workload);
        sub.envelope = kix_buf_bytes(&envs[i]);
        sub.objects = objs;
        sub.nobjects = 2;
        ASSERT_EQ_INT(KIX_OK, kix_log_prepare(f.log, &sub, &items[i], &err));
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_commit(f.log, items, 50, res, &size1, &err));
    ASSERT_EQ_U64(size0 + 49, size1);
    ASSERT_EQ_INT(KIX_EPOLICY, res[10].code);
    ASSERT_EQ_U64(size0 + 10, res[11].index);
    /* only one new checkpoint: none at size0 + 1 */
    struct kix_log_reader *r;
    struct kix_bytes note;
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_checkpoint(r, size0 + 1, &note));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(r, size1, &note));
    kix_log_read_end(r);
    for (int i = 0; i < 50; i++) {
        kix_prepared_free(items[i]);
        kix_buf_release(&envs[i]);
    }
    teardown(&f);
}

/* Every entry's receipt verifies offline; every pair of checkpoints is
 * consistent. */
KIX_TEST(receipts_and_consistency_verify)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    uint64_t size;
    char id[16];

    setup(&f);
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof(id), "r%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, id, i, &res, &err));
    }
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    size = kix_log_reader_size(r);
    for (uint64_t i = 0; i < size; i++) {
        struct kix_buf text = KIX_BUF_INIT;
        struct kix_receipt rc;
        struct kix_checkpoint cp;
        kix_receipt_init(&rc);
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, i, KIX_NO_INDEX, &text, &err));
        ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey, NULL, 0,
                                                 &rc, &cp, &err));
        ASSERT_EQ_U64(i, rc.index);
        ASSERT_EQ_U64(size, cp.size);
        /* against an older checkpoint too */
        kix_buf_reset(&text);
        if (i + 1 < size) {
            ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, i, i + 1, &text, &err));
            ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey,
                                                     NULL, 0, &rc, &cp, &err));
            /* a receipt checked against another entry fails */
            struct kix_bytes other;
            ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(r, i + 1, &other));
            ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey,
                                                          other.ptr, other.len, &rc, &cp, &err));
        }
        kix_receipt_release(&rc);
        kix_buf_release(&text);
    }
    for (uint64_t s1 = 1; s1 <= size; s1++) {
        struct kix_bytes n1, n2;
        struct kix_note o1, o2;
        struct kix_checkpoint c1, c2;
        struct kix_hash p[KIX_MERKLE_MAX_PROOF], r1, r2;
        size_t len;
        if (kix_log_reader_checkpoint(r, s1, &n1) != KIX_OK)
            continue;
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(r, KIX_NO_INDEX, &n2));
        ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)n1.ptr, n1.len, &f.vkey, 1, ORIGIN,
                                                  &o1, &c1, &err));
        ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)n2.ptr, n2.len, &f.vkey, 1, ORIGIN,
                                                  &o2, &c2, &err));
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_consistency(r, c1.size, c2.size, p, &len, &err));
        memcpy(r1.b, c1.root, 32);
        memcpy(r2.b, c2.root, 32);
        ASSERT_EQ_INT(KIX_OK,
                      kix_merkle_verify_consistency(c1.size, c2.size, &r1, &r2, p, len, &err));
    }
    kix_log_read_end(r);
    teardown(&f);
}

/* What a leaf says, read back from the leaf alone. */
KIX_TEST(entry_describe_reads_the_predicate)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_entry_summary s;
    struct kix_digest d;

    setup(&f);
    digest_of_json(workload, &d);
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.publisher, "run-9", &d, "2024-09-03T00:00:00Z",
                                                "liger-kernel-bench", "BSD-2-Clause", &env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_describe(env.ptr, env.len, &s, &err));
    ASSERT_EQ_INT(KIX_ENTRY_PUBLICATION, s.type);
    ASSERT_EQ_STR("run-9", s.run_id);
    ASSERT_EQ_MEM(d.b, 32, s.subject.b, 32);
    ASSERT_EQ_STR("2024-09-03T00:00:00Z", s.time);
    ASSERT_EQ_STR("liger-kernel-bench", s.source);
    ASSERT_EQ_STR("BSD-2-Clause", s.license);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_entry_attestation(f.attester, "run-9", &d, "seen on an A100", NULL, 0,
                                                &env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_describe(env.ptr, env.len, &s, &err));
    ASSERT_EQ_INT(KIX_ENTRY_ATTESTATION, s.type);
    ASSERT_EQ_STR("seen on an A100", s.note);
    ASSERT_TRUE(s.time[0] != '\0'); /* attestedAt */
    kix_buf_release(&env);
    teardown(&f);
}

/* kixd asks kix_entry_may_be_open_note of every submit on its event loop
 * and describes (parses) only what may be an open note: never 0 for one,
 * also when its member's name is spelled with an escape; 0 for the
 * publications and registered attestations an index is mostly made of. */
KIX_TEST(entry_may_be_open_note_misses_none)
{
    struct fixture f;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT, payload = KIX_BUF_INIT;
    struct kix_dsse_envelope e;
    struct kix_entry_summary s;
    struct kix_digest d;
    const char *at;

    setup(&f);
    digest_of_json(workload, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "run-9", &d, NULL, NULL, NULL, &env, &err));
    ASSERT_EQ_INT(0, kix_entry_may_be_open_note(env.ptr, env.len));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_entry_attestation(f.attester, "run-9", &d, "seen on an A100", NULL, 0,
                                                &env, &err));
    ASSERT_EQ_INT(0, kix_entry_may_be_open_note(env.ptr, env.len));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_entry_open_note(f.attester, ORIGIN, "run-9", &d, "seen", NULL, 0,
                                              NULL, 0, &env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_describe(env.ptr, env.len, &s, &err));
    ASSERT_EQ_INT(1, s.open_note);
    ASSERT_EQ_INT(1, kix_entry_may_be_open_note(env.ptr, env.len));
    /* the same statement with the member's name spelled "signer\u004bey" */
    kix_dsse_envelope_init(&e);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_parse(env.ptr, env.len, &e, &err));
    at = memmem(e.payload.ptr, e.payload.len, "\"signerKey\"", 11);
    ASSERT_TRUE(at != NULL);
    ASSERT_EQ_INT(KIX_OK,
                  kix_buf_add(&payload, e.payload.ptr, (size_t)(at - (const char *)e.payload.ptr)));
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&payload, "\"signer\\u004bey\""));
    ASSERT_EQ_INT(KIX_OK,
                  kix_buf_add(&payload, at + 11,
                              e.payload.len - (size_t)(at + 11 - (const char *)e.payload.ptr)));
    kix_buf_reset(&e.payload);
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&e.payload, payload.ptr, payload.len));
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_dsse_encode(&e, &env, &err));
    ASSERT_EQ_INT(KIX_OK, kix_entry_describe(env.ptr, env.len, &s, &err));
    ASSERT_EQ_INT(1, s.open_note);
    ASSERT_EQ_INT(1, kix_entry_may_be_open_note(env.ptr, env.len));
    /* what does not parse is left to kix_entry_describe */
    ASSERT_EQ_INT(1, kix_entry_may_be_open_note((const uint8_t *)"{", 1));
    kix_dsse_envelope_release(&e);
    kix_buf_release(&payload);
    kix_buf_release(&env);
    teardown(&f);
}

/* Prepare in two steps (what a replica does): the leaf says which objects
 * it needs, the objects come after; the entry then commits as one prepared
 * in one step would. A bad object is refused by the second step. */
KIX_TEST(prepare_in_two_steps)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_prepared *p = NULL;
    const struct kix_digest *needs = NULL;
    struct kix_digest d;
    struct kix_bytes objs[2];
    char manifest[512];
    size_t n = 0;
    uint64_t size;

    setup(&f);
    size = log_size(&f);
    run_manifest(manifest, sizeof(manifest), 7);
    digest_of_json(manifest, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(f.publisher, "two-step", &d, NULL, NULL, NULL, &env, &err));
    {
        struct kix_bytes leaf = kix_buf_bytes(&env);
        ASSERT_EQ_INT(KIX_OK, kix_log_prepare_leaf(f.log, &leaf, &p, &err));
    }
    kix_prepared_needs(p, &needs, &n);
    ASSERT_EQ_INT(1, n);
    ASSERT_EQ_MEM(d.b, 32, needs[0].b, 32);
    /* the wrong object: canonical and parsed, but not what the entry names
     * (nor what anything it names refers to): refused before the writer */
    objs[0].ptr = (const uint8_t *)workload;
    objs[0].len = strlen(workload);
    ASSERT_EQ_INT(KIX_EINVAL, kix_log_prepare_objects(f.log, p, objs, 1, &err));
    ASSERT_CONTAINS(err.msg, "neither needed by the entry nor referenced");
    kix_prepared_free(p);
    ASSERT_EQ_U64(size, log_size(&f));
    /* the right ones */
    {
        struct kix_bytes leaf = kix_buf_bytes(&env);
        ASSERT_EQ_INT(KIX_OK, kix_log_prepare_leaf(f.log, &leaf, &p, &err));
    }
    objs[0].ptr = (const uint8_t *)manifest;
    objs[0].len = strlen(manifest);
    objs[1].ptr = (const uint8_t *)workload;
    objs[1].len = strlen(workload);
    ASSERT_EQ_INT(KIX_OK, kix_log_prepare_objects(f.log, p, objs, 2, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_log_prepare_objects(f.log, p, objs, 2, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_commit(f.log, &p, 1, &res, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, res.code);
    ASSERT_EQ_U64(size + 1, log_size(&f));
    kix_prepared_free(p);
    kix_buf_release(&env);
    teardown(&f);
}

/* A receipt's base64 is strict: a byte >= 0x80 where a base64 character
 * belongs (libsodium 1.0.18 would read it as '/') makes it malformed. */
KIX_TEST(receipt_base64_is_strict)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_receipt rc;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, 2, KIX_NO_INDEX, &text, &err));
    kix_log_read_end(r);
    kix_receipt_init(&rc);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_parse((const char *)text.ptr, text.len, &rc, &err));
    kix_receipt_release(&rc);
    {
        /* the first character of the first proof line, then of the extra line */
        char *proof = strstr((char *)text.ptr, "\nindex ");
        char *extra = strstr((char *)text.ptr, "\nextra ");
        char *targets[2];
        ASSERT_TRUE(proof && extra);
        proof = strchr(proof + 1, '\n');
        ASSERT_TRUE(proof && proof[1] != '\n');
        targets[0] = proof + 1;
        targets[1] = extra + 7;
        for (int i = 0; i < 2; i++) {
            char saved = *targets[i];
            *targets[i] = (char)0xbf;
            kix_receipt_init(&rc);
            ASSERT_EQ_INT(KIX_EINVAL,
                          kix_receipt_parse((const char *)text.ptr, text.len, &rc, &err));
            ASSERT_CONTAINS(err.msg, "malformed receipt");
            kix_receipt_release(&rc);
            *targets[i] = saved;
        }
    }
    kix_buf_release(&text);
    teardown(&f);
}

KIX_TEST(tampered_leaf_and_tile_are_detected)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_receipt rc;
    uint8_t key[9];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    kix_log_close(f.log);
    /* flip a byte inside entry 4's stored leaf */
    kix_u64be_put(key, 4);
    tamper(f.dir, "leaves", key, 8, 100);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    kix_receipt_init(&rc);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, 4, KIX_NO_INDEX, &text, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey, NULL,
                                                  0, &rc, NULL, &err));
    fprintf(stderr, "tampered leaf detected: %s\n", err.msg);
    ASSERT_CONTAINS(err.msg, "entry 4 is not proven");
    kix_log_read_end(r);
    kix_receipt_release(&rc);
    kix_buf_release(&text);
    teardown(&f);
}

KIX_TEST(tampered_tree_hash_is_detected)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_receipt rc;
    struct kix_hash root;
    struct kix_bytes note;
    struct kix_note opened;
    struct kix_checkpoint cp;
    uint8_t key[9];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    kix_log_close(f.log);
    /* flip a byte of a stored tree hash in tile (0, 0) — the level-2 node
     * over leaves 0..3, after 5 leaf hashes and 2 level-1 hashes */
    key[0] = 0;
    kix_u64be_put(key + 1, 0);
    tamper(f.dir, "tiles", key, 9, 2 + 32 * 7 + 5);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    kix_receipt_init(&rc);
    /* the root recomputed from the tiles no longer matches the checkpoint */
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_root(r, kix_log_reader_size(r), &root, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(r, KIX_NO_INDEX, &note));
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)note.ptr, note.len, &f.vkey, 1, ORIGIN,
                                              &opened, &cp, &err));
    ASSERT_TRUE(memcmp(root.b, cp.root, 32) != 0);
    fprintf(stderr, "tampered tile detected: recomputed root differs from the checkpoint\n");
    /* entry 4's proof is that node: its receipt no longer verifies */
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, 4, KIX_NO_INDEX, &text, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey, NULL,
                                                  0, &rc, NULL, &err));
    fprintf(stderr, "entry 4: %s\n", err.msg);
    /* entry 0's proof does not use it, and still verifies */
    kix_buf_reset(&text);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, 0, KIX_NO_INDEX, &text, &err));
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)text.ptr, text.len, &f.vkey, NULL, 0,
                                             &rc, NULL, &err));
    kix_log_read_end(r);
    kix_receipt_release(&rc);
    kix_buf_release(&text);
    teardown(&f);
}

struct cp_list {
    struct kix_replay_checkpoint cps[16];
    size_t n;
};

static int collect_checkpoint(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                              const uint8_t *index_note, size_t index_len)
{
    struct cp_list *l = ctx;
    l->cps[l->n].size = size;
    l->cps[l->n].note = (const char *)note;
    l->cps[l->n].note_len = len;
    l->cps[l->n].index_note = (const char *)index_note;
    l->cps[l->n].index_note_len = index_len;
    l->n++;
    return 0;
}

/* A new replica of f's log in rdir (opts set as a replica's), and the
 * origin's entries 0..size-1 read through r prepared for it: the entries
 * from first_pub on are f's publications of run tags 1, 2, ..., each sent
 * with its manifest and the workload. */
static struct kix_log *replica_with_items(struct fixture *f, char *rdir, struct kix_log_opts *opts,
                                          struct kix_log_reader *r, uint64_t first_pub,
                                          struct kix_prepared **items)
{
    struct kix_log *replica = NULL;
    uint64_t size = kix_log_reader_size(r);
    char manifest[512];

    memset(opts, 0, sizeof(*opts));
    opts->replica = 1;
    rmdir(rdir);
    if (kix_index_create_replica(rdir, &f->vkey, opts, NULL) ||
        kix_index_open(rdir, opts, &replica, NULL))
        abort();
    for (uint64_t i = 0; i < size; i++) {
        struct kix_submission sub = {0};
        struct kix_bytes objs[2];
        if (kix_log_reader_entry(r, i, &sub.envelope))
            abort();
        if (i >= first_pub) {
            run_manifest(manifest, sizeof(manifest), (int)(i - first_pub) + 1);
            objs[0].ptr = (const uint8_t *)manifest;
            objs[0].len = strlen(manifest);
            objs[1].ptr = (const uint8_t *)workload;
            objs[1].len = strlen(workload);
            sub.objects = objs;
            sub.nobjects = 2;
        }
        if (kix_log_prepare(replica, &sub, &items[i], NULL))
            abort();
    }
    return replica;
}

/* Frees what replica_with_items made, the reader and the fixture. */
static void replica_done(struct fixture *f, char *rdir, struct kix_log *replica,
                         struct kix_log_reader *r, struct kix_prepared **items)
{
    for (uint64_t i = 0; i < kix_log_reader_size(r); i++)
        kix_prepared_free(items[i]);
    kix_log_read_end(r);
    kix_log_close(replica);
    remove_dir(rdir);
    teardown(f);
}

/* A replay refused at its last index note had sealed, and stored, the
 * tiles its entries changed; the writer keeps the tiles it stores for its
 * next commit (store/index/tile_keep.c), but not those of a transaction
 * that is aborted: replaying less than the refused batch must begin from
 * the tree as stored, not with the refused entry's keys in it. */
KIX_TEST(a_refused_replay_leaves_no_tiles_to_the_next)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_log *replica;
    struct kix_log_opts opts;
    struct kix_prepared *items[16];
    struct kix_replay_checkpoint *cps, tampered[2];
    struct cp_list list;
    char *rdir = temp_dir();
    uint64_t size, base;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    size = kix_log_reader_size(r);
    ASSERT_TRUE(size >= 3 && size <= 16);
    base = size - 2; /* the two publications */
    replica = replica_with_items(&f, rdir, &opts, r, base, items);
    memset(&list, 0, sizeof(list));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoints(r, 0, 16, collect_checkpoint, &list));
    ASSERT_EQ_U64(size, list.n);
    cps = list.cps;
    ASSERT_EQ_INT(KIX_OK, kix_log_replay(replica, 0, items, base, cps, base, &err));
    /* both publications, the second with the first one's index note */
    tampered[0] = cps[base];
    tampered[1] = cps[base + 1];
    tampered[1].index_note = cps[base].index_note;
    tampered[1].index_note_len = cps[base].index_note_len;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, base, items + base, 2, tampered, 2, &err));
    ASSERT_CONTAINS(err.msg, "is not the index of its entries");
    /* the first alone: its note is the index without run-2 */
    ASSERT_EQ_INT(KIX_OK, kix_log_replay(replica, base, items + base, 1, cps + base, 1, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_log_replay(replica, base + 1, items + base + 1, 1, cps + base + 1, 1, &err));
    ASSERT_EQ_INT(KIX_OK, kix_index_check(replica, NULL, NULL, &err));
    replica_done(&f, rdir, replica, r, items);
}

/* A replica replays the origin's entries and accepts its checkpoint only
 * when the recomputed root matches; a changed entry is named. */
KIX_TEST(replica_replays_and_refuses_tampering)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *r;
    struct kix_log *replica = NULL;
    struct kix_log_opts opts;
    char *rdir = temp_dir();
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    size = kix_log_reader_size(r);
    struct kix_prepared *items[16];
    struct kix_bytes note;
    ASSERT_EQ_U64(5, size);
    replica = replica_with_items(&f, rdir, &opts, r, 4, items); /* 4: the publication */
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(r, KIX_NO_INDEX, &note));
    /* a wrong starting index is refused */
    struct kix_replay_checkpoint cp_all = {
        .size = size, .note = (const char *)note.ptr, .note_len = note.len};
    struct kix_replay_checkpoint cp_short = {
        .size = 4, .note = (const char *)note.ptr, .note_len = note.len};
    ASSERT_TRUE(kix_log_replay(replica, 1, items, size - 1, &cp_all, 1, &err) != KIX_OK);
    /* entries 0..3 with the checkpoint of size 5 do not match */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, 4, &cp_short, 1, &err));
    ASSERT_CONTAINS(err.msg, "upstream checkpoint");
    /* every origin checkpoint on the way is checked: swap two of them */
    struct cp_list list;
    memset(&list, 0, sizeof(list));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoints(r, 0, 16, collect_checkpoint, &list));
    ASSERT_EQ_U64(size, list.n);
    struct kix_replay_checkpoint saved = list.cps[2];
    list.cps[2].note = list.cps[1].note;
    list.cps[2].note_len = list.cps[1].note_len;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
    ASSERT_CONTAINS(err.msg, "is for size 2, not 3");
    list.cps[2] = saved;
    /* and so is every index note: another size's, or none, is refused */
    list.cps[2].index_note = list.cps[3].index_note;
    list.cps[2].index_note_len = list.cps[3].index_note_len;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
    ASSERT_CONTAINS(err.msg, "signed index at size 3 is not the index of its entries");
    list.cps[2].index_note = NULL;
    list.cps[2].index_note_len = 0;
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
    ASSERT_CONTAINS(err.msg, "sent no index note for size 3");
    list.cps[2] = saved;
    /* notes opened ahead (kix_log_replay_checkpoint_open, as kix_sync does
     * on all cores) give the same verdicts: another size's checkpoint or
     * index note, and a signature that does not verify, which is left
     * unopened for the replay to name */
    {
        static const struct {
            size_t note_of, index_of; /* the checkpoints whose notes size 3 gets */
            const char *refusal;
        } swaps[] = {{1, 2, "is for size 2, not 3"},
                     {2, 3, "signed index at size 3 is not the index of its entries"}};
        char bad[512];
        for (size_t t = 0; t < sizeof(swaps) / sizeof(swaps[0]); t++) {
            list.cps[2] = saved;
            list.cps[2].note = list.cps[swaps[t].note_of].note;
            list.cps[2].note_len = list.cps[swaps[t].note_of].note_len;
            list.cps[2].index_note = list.cps[swaps[t].index_of].index_note;
            list.cps[2].index_note_len = list.cps[swaps[t].index_of].index_note_len;
            kix_log_replay_checkpoint_open(replica, &list.cps[2]);
            ASSERT_TRUE(list.cps[2].checkpoint_opened && list.cps[2].index_opened);
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
            ASSERT_CONTAINS(err.msg, swaps[t].refusal);
        }
        list.cps[2] = saved;
        ASSERT_TRUE(saved.note_len <= sizeof(bad));
        memcpy(bad, saved.note, saved.note_len);
        /* another base64 letter inside the signature (a flipped bit
         * could make '+' or '/' no base64 at all: a parse error) */
        bad[saved.note_len - 20] = bad[saved.note_len - 20] == 'A' ? 'B' : 'A';
        list.cps[2].note = bad;
        kix_log_replay_checkpoint_open(replica, &list.cps[2]);
        ASSERT_TRUE(!list.cps[2].checkpoint_opened && list.cps[2].index_opened);
        ASSERT_EQ_INT(KIX_EVERIFY, kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
        ASSERT_CONTAINS(err.msg, "upstream checkpoint at size 3");
        /* what was opened ahead is trusted only as the replica opened it:
         * the facts of the good note claimed for the bad one (flags set by
         * hand, or a note swapped after opening) are not taken, and the
         * bad signature is still found */
        {
            struct kix_replay_checkpoint good = saved;
            kix_log_replay_checkpoint_open(replica, &good);
            ASSERT_TRUE(good.checkpoint_opened && good.index_opened);
            list.cps[2] = good;
            list.cps[2].note = bad; /* swapped after opening */
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
            ASSERT_CONTAINS(err.msg, "upstream checkpoint at size 3");
            list.cps[2].checkpoint_opened = 1; /* claimed by hand, seal and all copied */
            list.cps[2].signed_size = good.signed_size;
            memcpy(list.cps[2].signed_root, good.signed_root, 32);
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
            ASSERT_CONTAINS(err.msg, "upstream checkpoint at size 3");
            /* an index note whose signature fails, under the good one's text */
            char bad_index[1024];
            ASSERT_TRUE(good.index_note_len <= sizeof(bad_index));
            memcpy(bad_index, good.index_note, good.index_note_len);
            bad_index[good.index_note_len - 20] =
                bad_index[good.index_note_len - 20] == 'A' ? 'B' : 'A';
            list.cps[2] = good;
            list.cps[2].index_note = bad_index;
            list.cps[2].index_text = bad_index + (good.index_text - good.index_note);
            ASSERT_EQ_INT(KIX_EVERIFY,
                          kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
            ASSERT_CONTAINS(err.msg, "upstream index note at size 3");
        }
        list.cps[2] = saved;
    }
    for (size_t k = 0; k < list.n; k++)
        kix_log_replay_checkpoint_open(replica, &list.cps[k]);
    ASSERT_EQ_INT(KIX_OK, kix_log_replay(replica, 0, items, size, list.cps, list.n, &err));
    (void)cp_all;
    /* the replica serves the origin's checkpoint, byte for byte */
    {
        struct kix_log_reader *rr;
        struct kix_bytes mine;
        ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(replica, &rr));
        ASSERT_EQ_U64(size, kix_log_reader_size(rr));
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint(rr, KIX_NO_INDEX, &mine));
        ASSERT_EQ_MEM(note.ptr, note.len, mine.ptr, mine.len);
        kix_log_read_end(rr);
    }
    /* a replica takes no submissions */
    struct kix_append_result rres;
    ASSERT_EQ_INT(KIX_EREADONLY, kix_log_commit(replica, items, 1, &rres, NULL, &err));
    replica_done(&f, rdir, replica, r, items);
}

/* How full the leaf pages of a table are: the bytes of its nodes (LMDB's
 * 8-byte node header and 2-byte slot, the key, the value or, for a value
 * on overflow pages, its 8-byte page number) over the leaf pages' room. */
static double leaf_fill(MDB_txn *txn, const char *name, size_t *entries)
{
    MDB_dbi dbi;
    MDB_stat st;
    MDB_cursor *cur;
    MDB_val k, v;
    double bytes = 0;
    size_t nodemax;

    if (mdb_dbi_open(txn, name, 0, &dbi) || mdb_stat(txn, dbi, &st) ||
        mdb_cursor_open(txn, dbi, &cur))
        abort();
    nodemax = ((st.ms_psize - 16) / 2) & ~(size_t)1;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        bytes += 10 + (double)k.mv_size + (8 + k.mv_size + v.mv_size > nodemax ? 8 : v.mv_size);
    mdb_cursor_close(cur);
    *entries = st.ms_entries;
    /* the last page may be part full: the others' fill */
    return st.ms_leaf_pages > 1 ? bytes / ((double)st.ms_leaf_pages * (st.ms_psize - 16)) *
                                      ((double)st.ms_leaf_pages / (double)(st.ms_leaf_pages - 1))
                                : 1;
}

/* The tables keyed by a growing number (leaves, blobs, checkpoints, index
 * notes) are written with MDB_APPEND: their pages fill. Measured here with
 * MDB_APPEND (layout 3, the bytes in the tables): leaves 0.86, blobs 0.87
 * (values of ~0.5-1 KiB leave a gap per page), checkpoints 0.96, index
 * notes 0.99; layout 4's 12-byte locators fill leaves' and blobs' pages
 * whole but the last; with plain puts of the
 * same keys LMDB 0.9.24 leaves the leaves 0.69 full, the checkpoints 0.85
 * and the index notes 0.91. */
KIX_TEST(sequence_tables_are_appended_into_full_pages)
{
    static const char *tables[] = {"leaves", "blobs", "checkpoints", "index_notes"};
    static const double want[] = {0.8, 0.8, 0.94, 0.95};
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    MDB_env *env;
    MDB_txn *txn;
    char run[32];

    setup(&f);
    for (int i = 0; i < 160; i++) {
        snprintf(run, sizeof(run), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, run, i, &res, &err));
    }
    kix_log_close(f.log);
    f.log = NULL;
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 32) ||
        mdb_env_open(env, f.dir, MDB_RDONLY, 0600) || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn))
        abort();
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        size_t n = 0;
        double fill = leaf_fill(txn, tables[i], &n);
        fprintf(stderr, "%s: %zu entries, leaf pages %.2f full\n", tables[i], n, fill);
        ASSERT_TRUE(n >= 160);
        ASSERT_TRUE(fill > want[i]);
    }
    mdb_txn_abort(txn);
    mdb_env_close(env);
    teardown(&f);
}

/* Per-phase CPU time of appends (kix_log_phase_stats): nothing is counted
 * until it is enabled; then every phase of each append is, and the entries
 * prepared and committed are counted once each (a duplicate is prepared but
 * not committed). */
KIX_TEST(phase_stats_count_every_phase)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_phase_stats st;
    char run[32];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "before", 0, &res, &err));
    kix_log_phase_stats(f.log, &st);
    ASSERT_EQ_U64(0, st.prepared);
    ASSERT_EQ_U64(0, st.committed);
    for (int i = 0; i < KIX_LOG_PHASES; i++)
        ASSERT_EQ_U64(0, st.ns[i]);

    kix_log_phase_stats_enable(f.log, 1);
    for (int i = 1; i <= 20; i++) {
        snprintf(run, sizeof(run), "run-%d", i);
        ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, run, i, &res, &err));
    }
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-20", 20, &res, &err)); /* a duplicate */
    ASSERT_TRUE(res.duplicate);
    kix_log_phase_stats(f.log, &st);
    ASSERT_EQ_U64(21, st.prepared);
    ASSERT_EQ_U64(20, st.committed);
    for (int i = 0; i < KIX_LOG_PHASES; i++) {
        fprintf(stderr, "%s: %.1f us an entry\n", kix_log_phase_name(i),
                (double)st.ns[i] / 1e3 / 20);
        if (st.ns[i] == 0)
            KIX_FAIL_AT("phase %s counted no time", kix_log_phase_name(i));
    }
    ASSERT_TRUE(kix_log_phase_name(KIX_LOG_PHASES) == NULL);

    kix_log_phase_stats_enable(f.log, 0);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "after", 30, &res, &err));
    {
        struct kix_log_phase_stats again;
        kix_log_phase_stats(f.log, &again);
        ASSERT_EQ_U64(st.prepared, again.prepared);
        ASSERT_EQ_U64(st.committed, again.committed);
        ASSERT_EQ_MEM(st.ns, sizeof(st.ns), again.ns, sizeof(again.ns));
    }
    teardown(&f);
}

KIX_TEST_MAIN()
