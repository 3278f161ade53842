/* Crash safety of kixd: a real kixd under concurrent, pipelined publishing
 * load (group commit with fsync on) is killed with SIGKILL at random
 * moments and restarted, KIX_CRASH_CYCLES times (default 50).
 *
 * Every envelope any client sends is tracked. After each restart:
 *   - every receipt a client was given verifies against the log key, and
 *     its entry is in the log at its index, byte for byte (get_entries);
 *   - every new entry is one a client sent that was acknowledged or in
 *     flight at the kill (none appears from nowhere, none twice), and an
 *     envelope that was in flight and did not make it never appears later;
 *   - the latest checkpoint a client saw before the kill, and the one the
 *     previous restart served, are consistent with the new one (RFC 9162
 *     consistency proofs against the log key);
 *   - kixd's own start-up check passed (it refuses to serve otherwise).
 * Every 10 cycles a replica is synced (kix_sync verifies every signature,
 * policy rule and root); at the end a fresh replica replays the whole log
 * and `kixd check` runs on the stopped store.
 *
 * Printed: cycles, acknowledged, in flight at kill, recovered (in flight
 * and found in the log), lost (acknowledged and missing: must be 0).
 * Knobs: KIX_CRASH_CYCLES, KIX_CRASH_SEED, KIX_CRASH_CLIENTS (threads, each
 * its own connection, default 4), KIX_CRASH_KILL_MS (the longest wait
 * before a kill, default 400). */
#include <pthread.h>
#include <sys/stat.h>

#include "crash_common.h"
#include "kix/sync.h"
#include "kixd_fixture.h"

#define WINDOW     8 /* submit requests in flight per client */
#define MAX_BUNDLE 4 /* bundles per submit request */

enum rec_state { S_INFLIGHT, S_ACKED, S_REFUSED, S_AT_KILL, S_RECOVERED, S_DROPPED };

struct rec {
    struct kix_buf env; /* the envelope as sent: canonical, so the leaf */
    struct kix_hash leaf_hash;
    int state;
    int seen; /* found in the log */
    unsigned cycle;
    uint64_t index;
    struct kix_buf receipt;
};

struct crash {
    struct fx f;
    pthread_mutex_t mu;
    struct rec **recs;
    size_t nrecs, cap;
    size_t *slots; /* open addressing by leaf hash: record index + 1 */
    size_t nslots;
    unsigned cycle;
    volatile int killed;
    uint64_t tags;
    /* failure reported by a client thread */
    int failed;
    char why[1024];
};

struct client {
    struct crash *cr;
    unsigned id;
    pthread_t tid;
    uint64_t seq;
    uint64_t max_cp_size; /* the latest checkpoint seen in a receipt */
    struct kix_buf max_cp;
};

static void fail_run(struct crash *cr, const char *fmt, ...) KIX_PRINTF(2, 3);

static void fail_run(struct crash *cr, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&cr->mu);
    if (!cr->failed) {
        cr->failed = 1;
        va_start(ap, fmt);
        vsnprintf(cr->why, sizeof(cr->why), fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&cr->mu);
}

/* ---- the record table ------------------------------------------------------------ */

static size_t slot_of(const struct crash *cr, const struct kix_hash *h)
{
    uint64_t v;
    memcpy(&v, h->b, 8);
    return (size_t)(v & (cr->nslots - 1));
}

static void slots_insert(struct crash *cr, size_t idx)
{
    size_t s = slot_of(cr, &cr->recs[idx]->leaf_hash);
    while (cr->slots[s])
        s = (s + 1) & (cr->nslots - 1);
    cr->slots[s] = idx + 1;
}

/* Takes ownership of r; returns its index. Caller holds mu. */
static size_t add_rec(struct crash *cr, struct rec *r)
{
    if (cr->nrecs == cr->cap) {
        cr->cap = cr->cap ? 2 * cr->cap : 4096;
        cr->recs = realloc(cr->recs, cr->cap * sizeof(*cr->recs));
        if (!cr->recs)
            abort();
    }
    if (2 * (cr->nrecs + 1) > cr->nslots) {
        free(cr->slots);
        cr->nslots = cr->nslots ? 2 * cr->nslots : 8192;
        cr->slots = calloc(cr->nslots, sizeof(*cr->slots));
        if (!cr->slots)
            abort();
        for (size_t i = 0; i < cr->nrecs; i++)
            slots_insert(cr, i);
    }
    cr->recs[cr->nrecs] = r;
    slots_insert(cr, cr->nrecs);
    return cr->nrecs++;
}

static struct rec *find_rec(struct crash *cr, const struct kix_hash *h)
{
    if (!cr->nslots)
        return NULL;
    for (size_t s = slot_of(cr, h);; s = (s + 1) & (cr->nslots - 1)) {
        if (!cr->slots[s])
            return NULL;
        if (memcmp(cr->recs[cr->slots[s] - 1]->leaf_hash.b, h->b, 32) == 0)
            return cr->recs[cr->slots[s] - 1];
    }
}

/* ---- a client thread: pipelined submits until kixd dies ------------------------- */

struct pending {
    uint32_t msgid;
    size_t n;
    struct rec *recs[MAX_BUNDLE];
    char manifests[MAX_BUNDLE][512];
};

static int put_submit(void *ctx, struct kix_proto_writer *w)
{
    struct pending *p = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, p->n);
    for (size_t i = 0; i < p->n; i++) {
        kix_proto_put_map(w, 2);
        kix_proto_put_key(w, "envelope");
        kix_proto_put_bin(w, p->recs[i]->env.ptr, p->recs[i]->env.len);
        kix_proto_put_key(w, "objects");
        kix_proto_put_array(w, 2);
        kix_proto_put_bin(w, p->manifests[i], strlen(p->manifests[i]));
        kix_proto_put_bin(w, fx_workload, strlen(fx_workload));
    }
    return KIX_OK;
}

/* Builds and queues one submit of 1..MAX_BUNDLE new publications. */
static int send_one(struct client *cl, struct kix_rpc *rpc, struct pending *p, uint64_t *rnd)
{
    struct crash *cr = cl->cr;
    struct kix_err err = {0};
    int rc;

    p->n = (size_t)crash_between(rnd, 1, MAX_BUNDLE);
    for (size_t i = 0; i < p->n; i++) {
        struct rec *r = calloc(1, sizeof(*r));
        struct kix_digest d;
        char run[64];
        int tag;
        if (!r)
            return KIX_ENOMEM;
        pthread_mutex_lock(&cr->mu);
        tag = (int)++cr->tags;
        pthread_mutex_unlock(&cr->mu);
        snprintf(run, sizeof(run), "crash-c%u-t%u-%llu", cr->cycle, cl->id,
                 (unsigned long long)++cl->seq);
        fx_manifest(p->manifests[i], sizeof(p->manifests[i]), tag);
        fx_digest_of_json(p->manifests[i], &d);
        rc = kix_entry_publication(cr->f.publisher, run, &d, "2026-11-29T00:00:00Z", "crash", "MIT",
                                   &r->env, &err);
        if (rc) {
            fail_run(cr, "building an envelope: %s", err.msg);
            free(r);
            return rc;
        }
        kix_merkle_leaf_hash(r->env.ptr, r->env.len, &r->leaf_hash);
        r->state = S_INFLIGHT;
        r->cycle = cr->cycle;
        r->index = KIX_NO_INDEX;
        pthread_mutex_lock(&cr->mu);
        add_rec(cr, r);
        pthread_mutex_unlock(&cr->mu);
        p->recs[i] = r;
    }
    return kix_rpc_send(rpc, "submit", put_submit, p, &p->msgid, &err);
}

/* Takes one submit answer: receipts verified now, states updated. */
static int take_answer(struct client *cl, struct pending *p, const struct kix_proto_msg *m)
{
    struct crash *cr = cl->cr;
    const struct kix_proto_map *res, *item, *e;
    const struct kix_proto_array *a;
    size_t n = 0;

    if (m->error_code) {
        /* a whole-request refusal while running normally is a failure */
        fail_run(cr, "submit refused as a whole: %s %.*s", kix_err_name(m->error_code),
                 (int)m->error_message.len, (const char *)m->error_message.ptr);
        return KIX_EPROTO;
    }
    if (kix_proto_value_map(m->result, &res, NULL) ||
        kix_proto_map_get_array(res, "results", &a, &n, NULL) || n != p->n) {
        fail_run(cr, "malformed submit answer");
        return KIX_EPROTO;
    }
    for (size_t i = 0; i < n; i++) {
        struct rec *r = p->recs[i];
        struct kix_bytes receipt;
        struct kix_receipt rcpt;
        struct kix_checkpoint cp;
        struct kix_err err = {0};
        uint64_t index = 0;
        if (kix_proto_value_map(kix_proto_array_at(a, i), &item, NULL)) {
            fail_run(cr, "malformed submit result");
            return KIX_EPROTO;
        }
        if (kix_proto_map_get_map(item, "error", &e, NULL) == KIX_OK) {
            int64_t code = 0;
            struct kix_bytes msg = {NULL, 0};
            (void)kix_proto_map_get_i64(e, "code", &code, NULL);
            (void)kix_proto_map_get_str(e, "message", &msg, NULL);
            fail_run(cr, "bundle refused: %s %.*s", kix_err_name((int)code), (int)msg.len,
                     (const char *)msg.ptr);
            r->state = S_REFUSED;
            return KIX_EPROTO;
        }
        if (kix_proto_map_get_u64(item, "index", &index, NULL) ||
            kix_proto_map_get_str(item, "receipt", &receipt, NULL)) {
            fail_run(cr, "submit result without index or receipt");
            return KIX_EPROTO;
        }
        kix_receipt_init(&rcpt);
        if (kix_receipt_verify((const char *)receipt.ptr, receipt.len, &cr->f.log_key, r->env.ptr,
                               r->env.len, &rcpt, &cp, &err) != KIX_OK ||
            rcpt.index != index) {
            kix_receipt_release(&rcpt);
            fail_run(cr, "a receipt does not verify: %s", err.msg);
            return KIX_EVERIFY;
        }
        if (cp.size > cl->max_cp_size) {
            cl->max_cp_size = cp.size;
            kix_buf_reset(&cl->max_cp);
            if (kix_buf_add(&cl->max_cp, rcpt.checkpoint.ptr, rcpt.checkpoint.len))
                abort();
        }
        kix_receipt_release(&rcpt);
        if (kix_buf_add(&r->receipt, receipt.ptr, receipt.len))
            abort();
        r->index = index;
        pthread_mutex_lock(&cr->mu);
        r->state = S_ACKED;
        pthread_mutex_unlock(&cr->mu);
    }
    return KIX_OK;
}

static void *client_main(void *arg)
{
    struct client *cl = arg;
    struct crash *cr = cl->cr;
    struct pending *win = calloc(WINDOW, sizeof(*win));
    struct kix_rpc *rpc = NULL;
    struct kix_rpc_opts o = {15000, 0};
    struct kix_err err = {0};
    uint64_t rnd = crash_seed() ^ ((uint64_t)cl->id << 32) ^ cr->cycle;
    size_t nwin = 0;
    int rc = win ? kix_rpc_connect(cr->f.addr, &o, &rpc, &err) : KIX_ENOMEM;

    while (rc == KIX_OK && !cr->failed) {
        struct kix_proto_msg m;
        size_t k;
        while (rc == KIX_OK && nwin < WINDOW)
            rc = send_one(cl, rpc, &win[nwin++], &rnd);
        if (rc == KIX_OK)
            rc = kix_rpc_recv(rpc, &m, &err);
        if (rc)
            break;
        for (k = 0; k < nwin && win[k].msgid != m.msgid; k++)
            ;
        if (m.type != KIX_PROTO_RESPONSE || k == nwin) {
            kix_proto_msg_release(&m);
            fail_run(cr, "an answer to no request (msgid %u)", m.msgid);
            break;
        }
        rc = take_answer(cl, &win[k], &m);
        kix_proto_msg_release(&m);
        win[k] = win[--nwin];
    }
    /* what is still unanswered was in flight at the kill */
    pthread_mutex_lock(&cr->mu);
    for (size_t k = 0; k < nwin; k++)
        for (size_t i = 0; i < win[k].n; i++)
            if (win[k].recs[i] && win[k].recs[i]->state == S_INFLIGHT)
                win[k].recs[i]->state = S_AT_KILL;
    pthread_mutex_unlock(&cr->mu);
    if (rc && !cr->killed && !cr->failed)
        fail_run(cr, "client %u lost kixd before the kill: %s", cl->id, kix_err_text(&err, rc));
    kix_rpc_close(rpc);
    free(win);
    return NULL;
}

/* ---- checking after a restart ------------------------------------------------------ */

struct scan {
    struct crash *cr;
    uint64_t acked_seen, recovered, unknown;
    char why[512];
};

static int on_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct scan *s = ctx;
    struct kix_hash h;
    struct rec *r;

    kix_merkle_leaf_hash(leaf, len, &h);
    r = find_rec(s->cr, &h);
    if (!r) {
        snprintf(s->why, sizeof(s->why), "entry %llu was never sent by any client",
                 (unsigned long long)index);
        return KIX_EVERIFY;
    }
    if (r->seen) {
        snprintf(s->why, sizeof(s->why), "entry %llu repeats an envelope already in the log",
                 (unsigned long long)index);
        return KIX_EVERIFY;
    }
    if (r->env.len != len || memcmp(r->env.ptr, leaf, len) != 0) {
        snprintf(s->why, sizeof(s->why), "entry %llu differs from the envelope sent",
                 (unsigned long long)index);
        return KIX_EVERIFY;
    }
    r->seen = 1;
    switch (r->state) {
    case S_ACKED:
        if (r->index != index) {
            snprintf(s->why, sizeof(s->why), "entry %llu was acknowledged at index %llu",
                     (unsigned long long)index, (unsigned long long)r->index);
            return KIX_EVERIFY;
        }
        s->acked_seen++;
        break;
    case S_AT_KILL:
        r->state = S_RECOVERED;
        r->index = index;
        s->recovered++;
        break;
    default:
        snprintf(s->why, sizeof(s->why), "entry %llu holds an envelope that was %s",
                 (unsigned long long)index,
                 r->state == S_DROPPED ? "in flight at an earlier kill and missing after it"
                                       : "refused");
        return KIX_EVERIFY;
    }
    return KIX_OK;
}

/* The latest checkpoint, verified. */
static int latest(struct crash *cr, struct kix_client *c, struct kix_checkpoint *cp,
                  struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note n;
    int rc = kix_client_checkpoint(c, KIX_NO_INDEX, &note, err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)note.ptr, note.len, &cr->f.log_key, 1, FX_ORIGIN, &n,
                                 cp, err);
    kix_buf_release(&note);
    return rc;
}

/* The checkpoint note `old` (of size old_size) is a prefix of `now`. */
static int consistent(struct crash *cr, struct kix_client *c, const struct kix_buf *old,
                      const struct kix_checkpoint *now, struct kix_err *err)
{
    struct kix_checkpoint ocp;
    struct kix_note n;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], r1, r2;
    size_t np = 0;
    int rc = kix_checkpoint_open((const char *)old->ptr, old->len, &cr->f.log_key, 1, FX_ORIGIN, &n,
                                 &ocp, err);

    if (rc)
        return rc;
    if (ocp.size > now->size)
        return kix_err_set(err, KIX_EFORK, "the log went back from size %llu to %llu",
                           (unsigned long long)ocp.size, (unsigned long long)now->size);
    if (ocp.size == 0)
        return KIX_OK;
    rc = kix_client_consistency(c, ocp.size, now->size, proof, &np, err);
    memcpy(r1.b, ocp.root, 32);
    memcpy(r2.b, now->root, 32);
    if (rc == KIX_OK)
        rc = kix_merkle_verify_consistency(ocp.size, now->size, &r1, &r2, proof, np, err);
    if (rc)
        kix_err_wrap(err, "consistency from size %llu to %llu", (unsigned long long)ocp.size,
                     (unsigned long long)now->size);
    return rc;
}

/* Syncs (and verifies) the replica at dir from kixd; returns its size. */
static int audit(struct crash *cr, struct kix_client *c, const char *dir, uint64_t *size,
                 struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *replica = NULL;
    struct stat st;
    int rc = KIX_OK;

    memset(&o, 0, sizeof(o));
    o.replica = 1;
    o.store.no_sync = 1;
    if (stat(dir, &st) != 0)
        rc = kix_index_create_replica(dir, &cr->f.log_key, &o, err);
    if (rc == KIX_OK)
        rc = kix_index_open(dir, &o, &replica, err);
    if (rc == KIX_OK)
        rc = kix_sync(c, replica, KIX_NO_INDEX, NULL, size, err);
    kix_log_close(replica);
    return rc;
}

static double ms_since(int64_t t0)
{
    return (double)(fx_now_ms() - t0);
}

KIX_TEST(kixd)
{
    static struct crash cr;
    struct client *cls;
    struct kix_client *c = NULL;
    struct kix_checkpoint now;
    struct kix_buf prev_cp = KIX_BUF_INIT;
    struct kix_err err = {0};
    unsigned cycles = (unsigned)crash_env("KIX_CRASH_CYCLES", 50);
    unsigned nclients = (unsigned)crash_env("KIX_CRASH_CLIENTS", 4);
    uint64_t kill_max = crash_env("KIX_CRASH_KILL_MS", 400);
    uint64_t seed = crash_seed(), rnd = seed, verified = 0, acked = 0, at_kill = 0, recovered = 0,
             lost = 0, audited = 0;
    char replica[256];
    static const char *const extra[] = {"--threads", "2", "--log-level", "info", NULL};
    int64_t t_start = fx_now_ms();

    fprintf(stderr, "crash.kixd: %u cycles, %u clients, kill within %llu ms, seed %llu\n", cycles,
            nclients, (unsigned long long)kill_max, (unsigned long long)seed);
    pthread_mutex_init(&cr.mu, NULL);
    crash_reap_at_exit(&cr.f.pid);
    ASSERT_EQ_INT(0, fx_start_opts(&cr.f, 0, extra));
    snprintf(replica, sizeof(replica), "%s/../replica", cr.f.dir);
    cls = calloc(nclients, sizeof(*cls));
    /* the fixture's own entries: admin key, publisher key */
    c = fx_client(&cr.f);
    ASSERT_TRUE(c != NULL);
    ASSERT_EQ_INT(KIX_OK, latest(&cr, c, &now, &err));
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoint(c, KIX_NO_INDEX, &prev_cp, &err));
    kix_client_close(c);
    verified = now.size;

    for (cr.cycle = 1; cr.cycle <= cycles; cr.cycle++) {
        uint64_t wait = crash_between(&rnd, 20, kill_max), cyc_acked = 0, cyc_kill = 0;
        struct scan s;
        int64_t t0 = fx_now_ms();

        cr.killed = 0;
        for (unsigned i = 0; i < nclients; i++) {
            cls[i].cr = &cr;
            cls[i].id = i;
            cls[i].max_cp_size = 0;
            kix_buf_reset(&cls[i].max_cp);
            ASSERT_EQ_INT(0, pthread_create(&cls[i].tid, NULL, client_main, &cls[i]));
        }
        fx_sleep_ms((int)wait);
        cr.killed = 1;
        kill(cr.f.pid, SIGKILL);
        fx_wait(cr.f.pid, 10000);
        cr.f.pid = 0;
        for (unsigned i = 0; i < nclients; i++)
            pthread_join(cls[i].tid, NULL);
        if (cr.failed)
            KIX_FAIL_AT("cycle %u: %s", cr.cycle, cr.why);
        for (size_t i = 0; i < cr.nrecs; i++) {
            struct rec *r = cr.recs[i];
            if (r->cycle != cr.cycle)
                continue;
            cyc_acked += r->state == S_ACKED;
            cyc_kill += r->state == S_AT_KILL;
        }
        /* restart: kixd runs its start-up check and refuses a bad store */
        if (fx_serve(&cr.f) != 0)
            KIX_FAIL_AT("cycle %u: kixd did not come back after the kill", cr.cycle);
        c = fx_client(&cr.f);
        ASSERT_TRUE(c != NULL);
        if (latest(&cr, c, &now, &err) != KIX_OK)
            KIX_FAIL_AT("cycle %u: the latest checkpoint: %s", cr.cycle, err.msg);
        /* consistent with the previous restart's and every client's latest */
        if (consistent(&cr, c, &prev_cp, &now, &err) != KIX_OK)
            KIX_FAIL_AT("cycle %u: %s", cr.cycle, err.msg);
        for (unsigned i = 0; i < nclients; i++)
            if (cls[i].max_cp_size && consistent(&cr, c, &cls[i].max_cp, &now, &err) != KIX_OK)
                KIX_FAIL_AT("cycle %u: client %u's latest checkpoint: %s", cr.cycle, i, err.msg);
        /* the new entries: each acked or in flight, acked ones where promised */
        memset(&s, 0, sizeof(s));
        s.cr = &cr;
        for (uint64_t at = verified; at < now.size;) {
            uint64_t got = 0, n = now.size - at > 1000 ? 1000 : now.size - at;
            int rc = kix_client_entries(c, at, n, on_entry, &s, &got, &err);
            if (rc)
                KIX_FAIL_AT("cycle %u: %s", cr.cycle, s.why[0] ? s.why : err.msg);
            if (got == 0)
                KIX_FAIL_AT("cycle %u: entry %llu missing below size %llu", cr.cycle,
                            (unsigned long long)at, (unsigned long long)now.size);
            at += got;
        }
        for (size_t i = 0; i < cr.nrecs; i++) {
            struct rec *r = cr.recs[i];
            if (r->cycle != cr.cycle)
                continue;
            if (r->state == S_ACKED) {
                /* the receipt, again, now that kixd restarted */
                struct kix_receipt rcpt;
                int rrc;
                kix_receipt_init(&rcpt);
                rrc = kix_receipt_verify((const char *)r->receipt.ptr, r->receipt.len,
                                         &cr.f.log_key, r->env.ptr, r->env.len, &rcpt, NULL, &err);
                kix_receipt_release(&rcpt);
                if (rrc != KIX_OK)
                    KIX_FAIL_AT("cycle %u: receipt: %s", cr.cycle, err.msg);
                if (!r->seen) {
                    lost++;
                    fprintf(stderr, "LOST: acknowledged entry %llu is not in the log\n",
                            (unsigned long long)r->index);
                }
                kix_buf_release(&r->receipt);
            } else if (r->state == S_AT_KILL) {
                r->state = S_DROPPED;
            }
        }
        acked += cyc_acked;
        at_kill += cyc_kill;
        recovered += s.recovered;
        verified = now.size;
        kix_buf_reset(&prev_cp);
        if (kix_client_checkpoint(c, now.size, &prev_cp, &err) != KIX_OK)
            KIX_FAIL_AT("cycle %u: checkpoint: %s", cr.cycle, err.msg);
        if (cr.cycle % 10 == 0) {
            if (audit(&cr, c, replica, &audited, &err) != KIX_OK)
                KIX_FAIL_AT("cycle %u: audit of the log: %s", cr.cycle, err.msg);
            if (audited < now.size)
                KIX_FAIL_AT("cycle %u: the audit reached %llu of %llu", cr.cycle,
                            (unsigned long long)audited, (unsigned long long)now.size);
        }
        kix_client_close(c);
        fprintf(stderr,
                "cycle %2u: killed after %3llu ms: %3llu acknowledged, %3llu in flight, %3llu "
                "recovered; size %llu (%.0f ms)\n",
                cr.cycle, (unsigned long long)wait, (unsigned long long)cyc_acked,
                (unsigned long long)cyc_kill, (unsigned long long)s.recovered,
                (unsigned long long)now.size, ms_since(t0));
        if (lost)
            KIX_FAIL_AT("cycle %u: %llu acknowledged entries lost", cr.cycle,
                        (unsigned long long)lost);
    }

    /* a full audit into a fresh replica, then the offline check */
    c = fx_client(&cr.f);
    ASSERT_TRUE(c != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_dir_remove_tree(replica, NULL));
    if (audit(&cr, c, replica, &audited, &err) != KIX_OK)
        KIX_FAIL_AT("final audit: %s", err.msg);
    ASSERT_EQ_U64(now.size, audited);
    kix_client_close(c);
    ASSERT_EQ_INT(0, fx_stop(&cr.f, SIGTERM));
    ASSERT_EQ_INT(0, fx_kixd_check(cr.f.dir));

    printf("crash.kixd: cycles %u, acknowledged %llu, in flight at kill %llu, recovered %llu, "
           "lost %llu; log size %llu, audited %llu; seed %llu, %.1f s\n",
           cycles, (unsigned long long)acked, (unsigned long long)at_kill,
           (unsigned long long)recovered, (unsigned long long)lost, (unsigned long long)now.size,
           (unsigned long long)audited, (unsigned long long)seed, ms_since(t_start) / 1000.0);
    ASSERT_EQ_U64(0, lost);
    ASSERT_TRUE(acked > 0);
    for (size_t i = 0; i < cr.nrecs; i++) {
        kix_buf_release(&cr.recs[i]->env);
        kix_buf_release(&cr.recs[i]->receipt);
        free(cr.recs[i]);
    }
    for (unsigned i = 0; i < nclients; i++)
        kix_buf_release(&cls[i].max_cp);
    free(cls);
    free(cr.recs);
    free(cr.slots);
    kix_buf_release(&prev_cp);
    if (kix_dir_remove_tree(replica, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", replica);
    fx_cleanup(&cr.f);
}

KIX_TEST_MAIN()
