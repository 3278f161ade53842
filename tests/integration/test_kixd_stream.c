/* kixd under concurrency: pipelining, many connections, follow streams,
 * group commit, durability across kill -9, and an orderly stop. */
#include "kixd_calls.h"

/* One bundle with its objects, for pipelined submits. */
struct one_bundle {
    const struct kix_buf *env;
    const char *manifest;
};

static int put_one_bundle(void *ctx, struct kix_proto_writer *w)
{
    const struct one_bundle *b = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, 1);
    kix_proto_put_map(w, 2);
    kix_proto_put_key(w, "envelope");
    kix_proto_put_bin(w, b->env->ptr, b->env->len);
    kix_proto_put_key(w, "objects");
    kix_proto_put_array(w, 2);
    kix_proto_put_bin(w, b->manifest, strlen(b->manifest));
    kix_proto_put_bin(w, fx_workload, strlen(fx_workload));
    return KIX_OK;
}

/* results[0] of a submit answer. */
static const struct kix_proto_map *result_at_index0(const struct kix_proto_msg *m)
{
    const struct kix_proto_array *a;
    const struct kix_proto_map *r = NULL;
    size_t n;
    if (kix_proto_map_get_array(result_map(m), "results", &a, &n, NULL) != KIX_OK || n < 1 ||
        kix_proto_value_map(kix_proto_array_at(a, 0), &r, NULL) != KIX_OK)
        return NULL;
    return r;
}

static int copy_leaf(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    (void)index;
    return kix_buf_add(ctx, leaf, len);
}

/* n signed publications run-<prefix>-<i>; manifests into mf (n * 512). */
static struct kix_buf *make_publications(struct fx *f, const char *prefix, int n, int tag0,
                                         char *mf)
{
    struct kix_buf *envs = calloc((size_t)n, sizeof(*envs));
    char run[64];
    for (int i = 0; i < n; i++) {
        snprintf(run, sizeof(run), "run-%s-%d", prefix, i);
        if (fx_publication(f, run, tag0 + i, &envs[i], mf + (size_t)i * 512) != KIX_OK)
            abort();
    }
    return envs;
}

static void free_publications(struct kix_buf *envs, int n)
{
    for (int i = 0; i < n; i++)
        kix_buf_release(&envs[i]);
    free(envs);
}

KIX_TEST(pipelined_answers_out_of_order)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    char *mf = malloc(512 * 8);
    struct kix_buf *envs;
    uint32_t sub_ids[8], info_id;
    int got_sub = 0, got_info_before_subs = 0, seen[8] = {0};

    ASSERT_EQ_INT(0, fx_start(&f));
    envs = make_publications(&f, "pipe", 8, 100, mf);
    c = fx_rpc(&f);
    /* eight submits, then an info: the info is answered first, inline,
     * while the submits wait for their signature checks and the commit */
    for (int i = 0; i < 8; i++) {
        struct one_bundle b = {&envs[i], mf + i * 512};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_send(c, "submit", put_one_bundle, &b, &sub_ids[i], &err));
    }
    info_id = sendv(c, "info", "");
    ASSERT_TRUE(info_id != 0);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_flush(c, &err));
    for (int k = 0; k < 9; k++) {
        ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
        ASSERT_EQ_INT(KIX_PROTO_RESPONSE, m.type);
        ASSERT_EQ_INT(0, m.error_code);
        if (m.msgid == info_id) {
            got_info_before_subs = got_sub == 0;
        } else {
            int i = -1;
            for (int j = 0; j < 8; j++)
                if (sub_ids[j] == m.msgid)
                    i = j;
            ASSERT_TRUE(i >= 0 && !seen[i]);
            seen[i] = 1;
            got_sub++;
            ASSERT_TRUE(field_u64(result_map(&m), "size") >= 3);
        }
        kix_proto_msg_release(&m);
    }
    ASSERT_EQ_INT(8, got_sub);
    ASSERT_TRUE(got_info_before_subs);
    /* all eight landed, at indexes 2..9 */
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    ASSERT_EQ_U64(10, field_u64(result_map(&m), "size"));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    free_publications(envs, 8);
    free(mf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* Submits that arrive together share one group commit: the writer holds
 * the group open while their signatures are checked, instead of
 * committing the first one alone and the rest one fsync later. The hook
 * widens the hold from 1 ms so that no clock decides the outcome; one
 * pool thread prepares the submits one after another, so that the first
 * reaches the writer while the rest are still being checked. The hold
 * ends when the last submit joins, not at its 30 s bound: the writer is
 * woken once, when nothing is left preparing (writer.c, wake_writer). */
KIX_TEST(submits_arriving_together_share_one_commit)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    char *mf = malloc(512 * 24);
    struct kix_buf *envs;
    uint32_t id;
    uint64_t sizes[24];
    int64_t sent_ms;

    setenv("KIX_TEST_GATHER_MS", "30000", 1);
    setenv("UV_THREADPOOL_SIZE", "1", 1);
    ASSERT_EQ_INT(0, fx_start(&f));
    unsetenv("KIX_TEST_GATHER_MS");
    unsetenv("UV_THREADPOOL_SIZE");
    envs = make_publications(&f, "together", 24, 200, mf);
    c = fx_rpc(&f);
    for (int i = 0; i < 24; i++) {
        struct one_bundle b = {&envs[i], mf + i * 512};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_send(c, "submit", put_one_bundle, &b, &id, &err));
    }
    ASSERT_EQ_INT(KIX_OK, kix_rpc_flush(c, &err));
    sent_ms = fx_now_ms();
    for (int k = 0; k < 24; k++) {
        ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
        ASSERT_EQ_INT(KIX_PROTO_RESPONSE, m.type);
        ASSERT_EQ_INT(0, m.error_code);
        sizes[k] = field_u64(result_map(&m), "size");
        kix_proto_msg_release(&m);
    }
    /* answered when the last one joined, well before the hold's bound */
    ASSERT_TRUE(fx_now_ms() - sent_ms < 15000);
    /* one commit: every answer names the tree it made, 2 + 24 entries */
    for (int k = 0; k < 24; k++)
        ASSERT_EQ_U64(26, sizes[k]);
    kix_rpc_close(c);
    free_publications(envs, 24);
    free(mf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(in_flight_limit_backpressure)
{
    static const char *const extra[] = {"--max-in-flight", "2", NULL};
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    char *mf = malloc(512 * 40);
    struct kix_buf *envs;
    int answered = 0;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    envs = make_publications(&f, "bp", 40, 200, mf);
    c = fx_rpc(&f);
    /* 40 submits in flight from the client; the server takes 2 at a time */
    for (int i = 0; i < 40; i++) {
        struct one_bundle b = {&envs[i], mf + i * 512};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_send(c, "submit", put_one_bundle, &b, NULL, &err));
    }
    for (int i = 0; i < 40; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
        ASSERT_EQ_INT(0, m.error_code);
        answered++;
        kix_proto_msg_release(&m);
    }
    ASSERT_EQ_INT(40, answered);
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    ASSERT_EQ_U64(42, field_u64(result_map(&m), "size"));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    free_publications(envs, 40);
    free(mf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(output_limit_pauses_and_resumes_a_pipeline)
{
    static const char *const extra[] = {"--max-output", "64K", NULL};
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    const struct kix_proto_array *a;
    size_t n;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    ASSERT_EQ_INT(KIX_OK, fx_publish_many(&f, "run-out", 40, 0));
    c = fx_rpc(&f);
    /* 400 requests whose answers (~30 KiB each) far exceed 64 KiB: kixd
     * answers a few, waits for them to go out, and goes on */
    for (int i = 0; i < 400; i++)
        ASSERT_TRUE(sendv(c, "get_entries", "uu", "start", (uint64_t)0, "count", (uint64_t)1000));
    for (int i = 0; i < 400; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
        ASSERT_EQ_INT(0, m.error_code);
        ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "entries", &a, &n, NULL));
        ASSERT_EQ_INT(42, n);
        kix_proto_msg_release(&m);
    }
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(concurrent_connections_200)
{
    struct fx f;
    struct kix_rpc *c[200];
    struct kix_proto_msg m;
    struct kix_err err;
    uint32_t ids[200];

    ASSERT_EQ_INT(0, fx_start_opts(&f, 1, NULL));
    /* half over TCP, half over the Unix socket, all open at once */
    for (int i = 0; i < 200; i++) {
        struct kix_rpc_opts o = {20000, 0};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_connect(i % 2 ? f.tcp : f.addr, &o, &c[i], &err));
    }
    for (int i = 0; i < 200; i++) {
        ids[i] = sendv(c[i], "get_entries", "uu", "start", (uint64_t)(i % 2), "count", (uint64_t)1);
        ASSERT_EQ_INT(KIX_OK, kix_rpc_flush(c[i], &err));
    }
    for (int i = 199; i >= 0; i--) {
        ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c[i], &m, &err));
        ASSERT_EQ_INT(ids[i], m.msgid);
        ASSERT_EQ_INT(0, m.error_code);
        ASSERT_EQ_U64((uint64_t)(i % 2), field_u64(result_map(&m), "start"));
        kix_proto_msg_release(&m);
    }
    for (int i = 0; i < 200; i++)
        kix_rpc_close(c[i]);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* ---- follow ------------------------------------------------------------------ */

struct follower {
    struct kix_rpc *c;
    uint64_t next;          /* the next index expected */
    struct kix_buf *leaves; /* leaves[i] as received */
    size_t cap;
    int checkpoints, partial;
};

/* Reads notifications until `until` entries arrived; fails on any gap,
 * repeat or bad checkpoint. Returns 0 on success. */
static int follow_until(struct follower *fw, const struct fx *f, uint64_t until)
{
    while (fw->next < until) {
        struct kix_proto_msg m;
        struct kix_err err;
        const struct kix_proto_array *a;
        const struct kix_proto_map *p;
        struct kix_bytes note;
        uint64_t start;
        size_t n;

        if (kix_rpc_recv(fw->c, &m, &err) != KIX_OK) {
            fprintf(stderr, "follow: %s\n", err.msg);
            return -1;
        }
        if (m.type != KIX_PROTO_NOTIFICATION || m.method.len != 7 ||
            memcmp(m.method.ptr, "entries", 7) != 0) {
            fprintf(stderr, "follow: unexpected message type %d\n", m.type);
            kix_proto_msg_release(&m);
            return -1;
        }
        p = m.params;
        if (kix_proto_map_get_u64(p, "start", &start, NULL) ||
            kix_proto_map_get_array(p, "entries", &a, &n, NULL) || start != fw->next || n == 0) {
            fprintf(stderr, "follow: got start %llu, want %llu (n %zu)\n",
                    (unsigned long long)start, (unsigned long long)fw->next, n);
            kix_proto_msg_release(&m);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            struct kix_bytes leaf;
            if (kix_proto_value_bin(kix_proto_array_at(a, i), &leaf, NULL) != KIX_OK ||
                start + i >= fw->cap) {
                kix_proto_msg_release(&m);
                return -1;
            }
            if (kix_buf_add(&fw->leaves[start + i], leaf.ptr, leaf.len) != KIX_OK)
                abort();
        }
        fw->next = start + n;
        if (kix_proto_map_get_str(p, "checkpoint", &note, NULL) == KIX_OK) {
            struct kix_note opened;
            struct kix_checkpoint cp;
            if (kix_checkpoint_open((const char *)note.ptr, note.len, &f->log_key, 1, FX_ORIGIN,
                                    &opened, &cp, &err) != KIX_OK ||
                cp.size != fw->next) {
                fprintf(stderr, "follow: checkpoint at %llu: %s\n", (unsigned long long)fw->next,
                        err.msg);
                kix_proto_msg_release(&m);
                return -1;
            }
            fw->checkpoints++;
        } else {
            fw->partial++;
        }
        kix_proto_msg_release(&m);
    }
    return 0;
}

static int follow_open(struct follower *fw, const struct fx *f)
{
    struct kix_proto_msg m;
    struct kix_err err;
    fw->c = fx_rpc(f);
    if (!fw->c || callv(fw->c, "follow", &m, &err, "u", "from", fw->next) != KIX_OK) {
        fprintf(stderr, "follow: %s\n", err.msg);
        return -1;
    }
    kix_proto_msg_release(&m);
    return 0;
}

static int submit_batch(const struct fx *f, struct kix_buf *envs, const char *mf, int from, int n)
{
    struct kix_client *cl = fx_client(f);
    struct kix_bundle *b = calloc((size_t)n, sizeof(*b));
    struct kix_submit_result *res = calloc((size_t)n, sizeof(*res));
    struct kix_bytes *objs = calloc((size_t)n * 2, sizeof(*objs));
    struct kix_err err;
    int rc;

    for (int i = 0; i < n; i++) {
        const char *manifest = mf + (size_t)(from + i) * 512;
        objs[2 * i].ptr = (const uint8_t *)manifest;
        objs[2 * i].len = strlen(manifest);
        objs[2 * i + 1].ptr = (const uint8_t *)fx_workload;
        objs[2 * i + 1].len = strlen(fx_workload);
        b[i].envelope = kix_buf_bytes(&envs[from + i]);
        b[i].objects = &objs[2 * i];
        b[i].nobjects = 2;
    }
    rc = kix_client_submit(cl, b, (size_t)n, res, &err);
    for (int i = 0; i < n; i++) {
        if (rc == KIX_OK && res[i].code)
            rc = res[i].code;
        kix_submit_result_release(&res[i]);
    }
    kix_client_close(cl);
    free(b);
    free(res);
    free(objs);
    return rc;
}

KIX_TEST(follow_every_entry_once_across_reconnect)
{
    static const char *const extra[] = {"--max-entries", "7", NULL};
    struct fx f;
    struct follower fw;
    struct kix_client *cl;
    char *mf = malloc(512 * 80);
    struct kix_buf *envs;
    uint64_t size = 2;
    int used = 0;

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    envs = make_publications(&f, "fol", 80, 300, mf);
    /* 20 entries before anyone follows: one commit of 12 (more than
     * --max-entries 7, so its first chunk has no checkpoint), then 8 singles */
    ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, 12));
    used += 12;
    for (int i = 0; i < 8; i++, used++)
        ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, 1));
    size += 20;
    memset(&fw, 0, sizeof(fw));
    fw.cap = 200;
    fw.leaves = calloc(fw.cap, sizeof(*fw.leaves));
    fw.next = 0;
    /* catch up from 0 */
    ASSERT_EQ_INT(0, follow_open(&fw, &f));
    ASSERT_EQ_INT(0, follow_until(&fw, &f, size));
    ASSERT_TRUE(fw.partial >= 1);
    /* live: each commit arrives */
    for (int round = 0; round < 5; round++) {
        int n = 1 + round * 2;
        ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, n));
        used += n;
        size += (uint64_t)n;
        ASSERT_EQ_INT(0, follow_until(&fw, &f, size));
    }
    /* the follower drops; entries land while it is away; it comes back
     * from where it stopped */
    kix_rpc_close(fw.c);
    for (int i = 0; i < 10; i++, used++, size++)
        ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, 1));
    ASSERT_EQ_INT(0, follow_open(&fw, &f));
    ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, 15));
    used += 15;
    size += 15;
    ASSERT_EQ_INT(0, follow_until(&fw, &f, size));
    ASSERT_EQ_U64(size, fw.next);
    /* nothing more is pending: one more commit gives exactly one more entry */
    ASSERT_EQ_INT(KIX_OK, submit_batch(&f, envs, mf, used, 1));
    used++;
    size++;
    ASSERT_EQ_INT(0, follow_until(&fw, &f, size));
    ASSERT_EQ_U64(size, fw.next);
    /* every entry equals the log's own */
    cl = fx_client(&f);
    for (uint64_t i = 0; i < size; i++) {
        struct kix_buf leaf = KIX_BUF_INIT;
        struct kix_err err;
        ASSERT_EQ_INT(KIX_OK, kix_client_receipt(cl, i, KIX_NO_INDEX, &leaf, &err));
        {
            struct kix_receipt rec;
            kix_receipt_init(&rec);
            ASSERT_EQ_INT(KIX_OK,
                          kix_receipt_verify((const char *)leaf.ptr, leaf.len, &f.log_key,
                                             fw.leaves[i].ptr, fw.leaves[i].len, &rec, NULL, &err));
            kix_receipt_release(&rec);
        }
        kix_buf_release(&leaf);
    }
    kix_client_close(cl);
    kix_rpc_close(fw.c);
    for (size_t i = 0; i < fw.cap; i++)
        kix_buf_release(&fw.leaves[i]);
    free(fw.leaves);
    free_publications(envs, 80);
    free(mf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* ---- durability and stopping --------------------------------------------------- */

KIX_TEST(answered_submit_survives_kill_9)
{
    struct fx f;
    struct kix_buf env = KIX_BUF_INIT, leaf = KIX_BUF_INIT;
    struct kix_submit_result res;
    struct kix_receipt rec;
    struct kix_client *cl;
    struct kix_err err;
    char manifest[512];
    const char *objs[2] = {manifest, fx_workload};
    uint64_t got = 0;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publication(&f, "run-durable", 9, &env, manifest));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, objs, 2, &res));
    /* answered: now the hard way down */
    ASSERT_EQ_INT(128 + SIGKILL, fx_stop(&f, SIGKILL));
    ASSERT_EQ_INT(0, fx_serve(&f));
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_entries(cl, res.index, 1, copy_leaf, &leaf, &got, &err));
    ASSERT_EQ_U64(1, got);
    ASSERT_EQ_MEM(env.ptr, env.len, leaf.ptr, leaf.len);
    kix_buf_reset(&leaf);
    kix_receipt_init(&rec);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)res.receipt.ptr, res.receipt.len,
                                             &f.log_key, env.ptr, env.len, &rec, NULL, &err));
    kix_receipt_release(&rec);
    /* the entry is there, and the receipt the restarted server gives verifies too */
    ASSERT_EQ_INT(KIX_OK, kix_client_receipt(cl, res.index, KIX_NO_INDEX, &leaf, &err));
    kix_receipt_init(&rec);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)leaf.ptr, leaf.len, &f.log_key, env.ptr,
                                             env.len, &rec, NULL, &err));
    ASSERT_EQ_U64(res.index, rec.index);
    kix_receipt_release(&rec);
    kix_client_close(cl);
    kix_buf_release(&leaf);
    kix_buf_release(&env);
    kix_submit_result_release(&res);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(sigterm_drains_in_flight_submits)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    char *mf = malloc(512 * 30);
    struct kix_buf *envs;
    uint64_t index[30], answered = 0;
    int status;

    ASSERT_EQ_INT(0, fx_start(&f));
    envs = make_publications(&f, "drain", 30, 500, mf);
    c = fx_rpc(&f);
    for (int i = 0; i < 30; i++) {
        struct one_bundle b = {&envs[i], mf + i * 512};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_send(c, "submit", put_one_bundle, &b, NULL, &err));
    }
    ASSERT_EQ_INT(KIX_OK, kix_rpc_flush(c, &err));
    /* the first answer proves the server is working on them; then stop it */
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(0, m.error_code);
    index[answered++] = field_u64(result_at_index0(&m), "index");
    kix_proto_msg_release(&m);
    kill(f.pid, SIGTERM);
    /* every submit it had taken is committed and answered, then it closes */
    while (kix_rpc_recv(c, &m, &err) == KIX_OK) {
        ASSERT_EQ_INT(0, m.error_code);
        index[answered++] = field_u64(result_at_index0(&m), "index");
        kix_proto_msg_release(&m);
    }
    status = fx_wait(f.pid, 20000);
    f.pid = 0;
    ASSERT_EQ_INT(0, status);
    kix_rpc_close(c);
    /* after a restart each answered entry is there, with its own envelope */
    ASSERT_EQ_INT(0, fx_serve(&f));
    cl = fx_client(&f);
    for (uint64_t k = 0; k < answered; k++) {
        struct kix_buf r = KIX_BUF_INIT;
        struct kix_receipt rec;
        ASSERT_EQ_INT(KIX_OK, kix_client_receipt(cl, index[k], KIX_NO_INDEX, &r, &err));
        kix_receipt_init(&rec);
        ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)r.ptr, r.len, &f.log_key, NULL, 0,
                                                 &rec, NULL, &err));
        kix_receipt_release(&rec);
        kix_buf_release(&r);
    }
    kix_client_close(cl);
    free_publications(envs, 30);
    free(mf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
