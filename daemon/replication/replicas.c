/* --ack-replicas: the mirrors' durable sizes and the submits waiting for
 * them (replicas.h). */
#include "replicas.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "export.h"
#include "kix/note.h"
#include "witness.h"
#include "witness_client.h"

/* A mirror's id: the one it sends (at most 64 bytes), or "NAME+HASH" of
 * the --ack-mirror-key that cosigned its report. */
#define MIRROR_ID_MAX (KIX_NOTE_NAME_MAX + 1 + 8)

/* Snapshots kept of commits the quorum does not hold yet (the newest kept
 * when more: the mirrors that come back catch up to the newest). */
#define VIEW_SNAPS 64

struct kixd_replicas {
    /* --ack-mirror-key (fixed after kixd_replicas_new): none, or the only
     * keys whose cosigned reports count */
    struct kix_verifier keys[KIXD_MAX_REPLICAS];
    size_t nkeys;
    pthread_mutex_t mu; /* guards everything below */
    struct {
        char id[MIRROR_ID_MAX + 1];
        uint64_t size;
    } mirrors[KIXD_MAX_REPLICAS];
    size_t n;
    uint64_t quorum;

    /* The readers' view (replicas.h): a snapshot of the log at exactly the
     * size `visible`, the largest commit the quorum holds that a snapshot
     * was kept of, and snapshots of the commits past it, by growing size,
     * taken by the writer right after each commit (so at exactly its
     * size). view_mu guards `view` and is held while a reader reads it (a
     * snapshot is one thread's at a time); ring_mu guards the kept ones, so
     * that the writer never waits for a reader (order: view_mu, ring_mu). */
    int active; /* --ack-replicas on an origin */
    pthread_mutex_t view_mu, ring_mu;
    struct kix_log_reader *view;
    struct kix_log_reader *snaps[VIEW_SNAPS];
    size_t nsnaps;
    struct kix_log_reader *exports[VIEW_SNAPS]; /* the same, for --export */
    size_t nexports;
    _Atomic uint64_t visible; /* view's size (0: none yet) */
    _Atomic uint64_t wanted;  /* a quorum the view is to move to (0: none) */
};

static int load_keys(struct kixd_replicas *rs, const struct kixd_config *cfg, struct kix_err *err)
{
    for (size_t i = 0; i < cfg->nack_mirror_keys; i++) {
        struct kix_verifier *v = &rs->keys[i];
        int rc = kixd_read_verifier(cfg->ack_mirror_keys[i], v, err);
        if (rc) {
            kix_err_wrap(err, "--ack-mirror-key %s", cfg->ack_mirror_keys[i]);
            return rc;
        }
        if (v->alg != KIX_NOTE_ALG_COSIGN)
            return kix_err_set(err, KIX_EUSAGE,
                               "--ack-mirror-key %s: key %s is not a witness cosignature key (the "
                               "mirror's --witness-key, made with kix keygen --witness)",
                               cfg->ack_mirror_keys[i], v->name);
        /* kix_note_open refuses two known keys of one name and hash */
        for (size_t j = 0; j < i; j++)
            if (strcmp(rs->keys[j].name, v->name) == 0 && rs->keys[j].key_hash == v->key_hash)
                return kix_err_set(err, KIX_EUSAGE, "--ack-mirror-key %s: key %s+%08x given twice",
                                   cfg->ack_mirror_keys[i], v->name, (unsigned)v->key_hash);
        rs->nkeys++;
    }
    if (cfg->ack_replicas && rs->nkeys == 0)
        kixd_log(KIXD_WARN,
                 "--ack-replicas %u with --insecure-unsigned-acks: the mirrors' reports are not "
                 "authenticated, and anyone who can connect to this server can claim to be a "
                 "mirror and have submits acknowledged that no mirror holds",
                 cfg->ack_replicas);
    else if (rs->nkeys)
        kixd_log(
            KIXD_INFO,
            "--ack-replicas counts only reports whose held statement one of %zu mirror keys signed",
            rs->nkeys);
    return KIX_OK;
}

int kixd_replicas_new(const struct kixd_config *cfg, struct kixd_replicas **out,
                      struct kix_err *err)
{
    struct kixd_replicas *rs = calloc(1, sizeof(*rs));
    int rc;

    *out = NULL;
    if (!rs)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    pthread_mutex_init(&rs->mu, NULL);
    pthread_mutex_init(&rs->view_mu, NULL);
    pthread_mutex_init(&rs->ring_mu, NULL);
    rs->active = cfg->ack_replicas > 0 && !cfg->mirror_of[0] && !cfg->read_only;
    atomic_init(&rs->visible, 0);
    atomic_init(&rs->wanted, 0);
    rc = load_keys(rs, cfg, err);
    if (rc) {
        kixd_replicas_free(rs);
        return rc;
    }
    *out = rs;
    return KIX_OK;
}

void kixd_replicas_free(struct kixd_replicas *rs)
{
    if (!rs)
        return;
    if (rs->view)
        kix_log_read_end(rs->view);
    for (size_t i = 0; i < rs->nsnaps; i++)
        kix_log_read_end(rs->snaps[i]);
    for (size_t i = 0; i < rs->nexports; i++)
        kix_log_read_end(rs->exports[i]);
    pthread_mutex_destroy(&rs->view_mu);
    pthread_mutex_destroy(&rs->ring_mu);
    pthread_mutex_destroy(&rs->mu);
    free(rs);
}

static int active(const struct kixd_server *srv)
{
    return srv->replicas && srv->replicas->active;
}

uint64_t kixd_replicas_visible(struct kixd_server *srv)
{
    return active(srv) ? atomic_load(&srv->replicas->visible) : 0;
}

void kixd_replicas_committed(struct kixd_server *srv, uint64_t size)
{
    struct kixd_replicas *rs = srv->replicas;
    struct kix_log_reader *r = NULL, *x = NULL;

    if (!active(srv) || kix_log_read_begin(srv->log, &r) != KIX_OK)
        return;
    /* the writer calls this before its next commit: the snapshot is at
     * exactly `size` (anything else is not kept) */
    if (kix_log_reader_size(r) != size) {
        kix_log_read_end(r);
        return;
    }
    /* --export copies the view from a snapshot of its own (it reads for
     * long, and the view's is the readers') */
    if (srv->cfg->export_dir[0] && kix_log_read_begin(srv->log, &x) == KIX_OK &&
        kix_log_reader_size(x) != size) {
        kix_log_read_end(x);
        x = NULL;
    }
    pthread_mutex_lock(&rs->ring_mu);
    if (rs->nsnaps == VIEW_SNAPS) {
        kix_log_read_end(rs->snaps[0]);
        memmove(rs->snaps, rs->snaps + 1, (VIEW_SNAPS - 1) * sizeof(rs->snaps[0]));
        rs->nsnaps--;
    }
    rs->snaps[rs->nsnaps++] = r;
    if (x && rs->nexports == VIEW_SNAPS) {
        kix_log_read_end(rs->exports[0]);
        memmove(rs->exports, rs->exports + 1, (VIEW_SNAPS - 1) * sizeof(rs->exports[0]));
        rs->nexports--;
    }
    if (x)
        rs->exports[rs->nexports++] = x;
    pthread_mutex_unlock(&rs->ring_mu);
}

/* Under view_mu: moves the view to the largest snapshot that the quorum q
 * covers: a kept one, or (when none is kept at q, as at start, before any
 * commit) a fresh one if the log is at q. Never back. */
static void advance_view(struct kixd_server *srv, uint64_t q)
{
    struct kixd_replicas *rs = srv->replicas;
    struct kix_log_reader *best = NULL, *fresh = NULL;
    size_t i = 0;

    pthread_mutex_lock(&rs->ring_mu);
    while (i < rs->nsnaps && kix_log_reader_size(rs->snaps[i]) <= q)
        i++;
    if (i) {
        best = rs->snaps[i - 1];
        for (size_t j = 0; j + 1 < i; j++)
            kix_log_read_end(rs->snaps[j]);
        memmove(rs->snaps, rs->snaps + i, (rs->nsnaps - i) * sizeof(rs->snaps[0]));
        rs->nsnaps -= i;
    }
    pthread_mutex_unlock(&rs->ring_mu);
    if ((!best || kix_log_reader_size(best) < q) &&
        kix_log_read_begin(srv->log, &fresh) == KIX_OK) {
        if (kix_log_reader_size(fresh) <= q &&
            (!best || kix_log_reader_size(fresh) > kix_log_reader_size(best))) {
            if (best)
                kix_log_read_end(best);
            best = fresh;
        } else {
            kix_log_read_end(fresh);
        }
    }
    if (!best)
        return;
    if (rs->view && kix_log_reader_size(best) <= kix_log_reader_size(rs->view)) {
        kix_log_read_end(best);
        return;
    }
    if (rs->view)
        kix_log_read_end(rs->view);
    rs->view = best;
    atomic_store(&rs->visible, kix_log_reader_size(best));
}

int kixd_replicas_view(struct kixd_server *srv, struct kix_log_reader *own,
                       struct kix_log_reader **out, int *locked, struct kix_err *err)
{
    struct kixd_replicas *rs = srv->replicas;
    uint64_t v;

    *locked = 0;
    *out = own;
    if (!active(srv))
        return KIX_OK;
    v = atomic_load(&rs->visible);
    if (v == 0)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "no checkpoint is held by the %u mirrors this origin waits for "
                           "(--ack-replicas) yet; ask again once they follow it",
                           srv->cfg->ack_replicas);
    if (kix_log_reader_size(own) == v)
        return KIX_OK;
    /* entries past what the mirrors hold: read the view, whose size is
     * v or, if it moved meanwhile, larger (never past the quorum) */
    pthread_mutex_lock(&rs->view_mu);
    *out = rs->view;
    *locked = 1;
    return KIX_OK;
}

/* Any thread: moves the view to the quorum asked for (`wanted`) unless a
 * reader holds it: a report never waits for a reader's answer (or a page
 * render); the reader that lets go of the view moves it instead. Then the
 * held submits, the exporter and the witness client are woken. */
static void drain_advance(struct kixd_server *srv)
{
    struct kixd_replicas *rs = srv->replicas;

    while (atomic_load(&rs->wanted) && pthread_mutex_trylock(&rs->view_mu) == 0) {
        uint64_t w = atomic_exchange(&rs->wanted, 0), before = atomic_load(&rs->visible);
        if (w > before)
            advance_view(srv, w);
        pthread_mutex_unlock(&rs->view_mu);
        if (atomic_load(&rs->visible) > before) {
            kixd_server_wake(srv);           /* receipts at the view's size */
            kixd_export_kick(srv->exporter); /* a static copy of the new view */
            kixd_wclient_kick(srv->wclient); /* the witnesses cosign it */
        }
    }
}

int kixd_replicas_export_snapshot(struct kixd_server *srv, struct kix_log_reader **out)
{
    struct kixd_replicas *rs = srv->replicas;
    struct kix_log_reader *own = NULL;
    uint64_t v;
    size_t i = 0;

    *out = NULL;
    if (!active(srv))
        return 0;
    pthread_mutex_lock(&rs->ring_mu);
    v = atomic_load(&rs->visible);
    while (i < rs->nexports && kix_log_reader_size(rs->exports[i]) <= v)
        i++;
    if (i) { /* the newest the mirrors hold is the export's now */
        *out = rs->exports[i - 1];
        for (size_t j = 0; j + 1 < i; j++)
            kix_log_read_end(rs->exports[j]);
        memmove(rs->exports, rs->exports + i, (rs->nexports - i) * sizeof(rs->exports[0]));
        rs->nexports -= i;
    }
    pthread_mutex_unlock(&rs->ring_mu);
    if (*out || v == 0)
        return 1;
    /* none kept at the view's size (at start): the log may be there */
    if (kix_log_read_begin(srv->log, &own) == KIX_OK) {
        if (kix_log_reader_size(own) == v)
            *out = own;
        else
            kix_log_read_end(own);
    }
    return 1;
}

void kixd_replicas_view_end(struct kixd_server *srv, int locked)
{
    if (!locked)
        return;
    pthread_mutex_unlock(&srv->replicas->view_mu);
    drain_advance(srv); /* a move of the view asked for while it was read */
}

int kixd_worker_view(struct kixd_worker *w, struct kix_log_reader **out, int *locked,
                     struct kix_err *err)
{
    struct kix_log_reader *r;
    int rc = kixd_worker_reader(w, &r, err);

    *locked = 0;
    if (rc)
        return rc;
    /* a snapshot older than the view: a newer one is at least as large */
    if (active(w->srv) && kix_log_reader_size(r) < kixd_replicas_visible(w->srv)) {
        kixd_worker_reader_end(w);
        rc = kixd_worker_reader(w, &r, err);
        if (rc)
            return rc;
    }
    return kixd_replicas_view(w->srv, r, out, locked, err);
}

int kixd_replicas_reader_size(struct kixd_server *srv, uint64_t committed, uint64_t *size,
                              struct kix_err *err)
{
    uint64_t v;

    *size = committed;
    if (!active(srv))
        return KIX_OK;
    v = kixd_replicas_visible(srv);
    if (v == 0)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "no checkpoint is held by the %u mirrors this origin waits for "
                           "(--ack-replicas) yet; ask again once they follow it",
                           srv->cfg->ack_replicas);
    if (v < committed)
        *size = v;
    return KIX_OK;
}

uint64_t kixd_replicas_quorum(struct kixd_server *srv)
{
    uint64_t q;

    if (!srv->replicas)
        return 0;
    pthread_mutex_lock(&srv->replicas->mu);
    q = srv->replicas->quorum;
    pthread_mutex_unlock(&srv->replicas->mu);
    return q;
}

/* Under mu: the N-th largest size (0 with fewer than N mirrors): the
 * largest size that at least n mirrors hold. */
static uint64_t nth_largest(const struct kixd_replicas *rs, unsigned n)
{
    uint64_t best = 0;

    if (n == 0 || rs->n < n)
        return 0;
    for (size_t i = 0; i < rs->n; i++) {
        unsigned holding = 0;
        for (size_t j = 0; j < rs->n; j++)
            holding += rs->mirrors[j].size >= rs->mirrors[i].size;
        if (holding >= n && rs->mirrors[i].size > best)
            best = rs->mirrors[i].size;
    }
    return best;
}

/* The report's held statement must be one line that one of the
 * --ack-mirror-keys made over this log's own checkpoint text at p->size
 * (kix_mirror_held_sign: the mirror states that it holds the checkpoint's
 * entries durably, c2sp.org/tlog-mirror's statement). A witness
 * cosignature never counts: a witness cosigns, through its HTTP
 * add-checkpoint, checkpoints its replica has not reached (issue 42), and
 * its signed message differs, so it cannot verify as a held statement.
 * id gets "NAME+HASH" of that key: one key counts once, whatever mirror id
 * it sends. */
static int check_held(const struct kixd_replicas *rs, struct kix_log_reader *r,
                      const struct kix_msg_replicated_params *p, char id[MIRROR_ID_MAX + 1],
                      struct kix_err *err)
{
    struct kix_bytes note;
    size_t text_len, which = 0;
    int rc;

    if (!p->held.ptr && p->cosignature.ptr)
        return kix_err_set(err, KIX_EPOLICY,
                           "this report carries a witness cosignature, not a held statement (%s): "
                           "a witness cosigns checkpoints it has not stored, so its cosignature "
                           "says nothing of what the mirror holds; not counted. Upgrade the "
                           "mirror's kixd, which signs a held statement after each commit",
                           KIX_MIRROR_HELD_HEADER);
    if (!p->held.ptr)
        return kix_err_set(err, KIX_EPOLICY,
                           "this origin counts only reports with a held statement signed by an "
                           "--ack-mirror-key; this one has none: not counted");
    rc = kix_log_reader_checkpoint(r, p->size, &note);
    if (rc)
        return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_EINVAL : rc,
                           "no checkpoint of this log at size %llu to check the held statement "
                           "against: %s",
                           (unsigned long long)p->size, kix_strerror(rc));
    /* a checkpoint's text has no blank line: the first one ends it */
    text_len = 0;
    for (size_t i = 1; i < note.len && !text_len; i++)
        if (note.ptr[i] == '\n' && note.ptr[i - 1] == '\n')
            text_len = i;
    if (!text_len)
        return kix_err_set(err, KIX_EIO, "the stored checkpoint at size %llu is malformed",
                           (unsigned long long)p->size);
    rc = kix_mirror_held_verify((const char *)p->held.ptr, p->held.len, (const char *)note.ptr,
                                text_len, rs->keys, rs->nkeys, &which, NULL, err);
    if (rc) {
        kix_err_wrap(err,
                     "the report's held statement of size %llu does not verify against any "
                     "--ack-mirror-key over this log's checkpoint at that size; not counted",
                     (unsigned long long)p->size);
        rc = rc == KIX_ENOMEM ? rc : KIX_EVERIFY;
        if (err)
            err->code = rc;
        return rc;
    }
    snprintf(id, MIRROR_ID_MAX + 1, "%s+%08x", rs->keys[which].name,
             (unsigned)rs->keys[which].key_hash);
    return KIX_OK;
}

int kixd_replicas_report(struct kixd_server *srv, struct kix_log_reader *r,
                         const struct kix_msg_replicated_params *p, uint64_t *quorum,
                         struct kix_err *err)
{
    struct kixd_replicas *rs = srv->replicas;
    uint64_t size = kix_log_reader_size(r), before, after;
    struct kix_hash ours;
    char id[MIRROR_ID_MAX + 1];
    size_t i;
    int rc;

    if (p->size > size)
        return kix_err_set(err, KIX_EINVAL,
                           "a mirror reports size %llu, but this log has size %llu: it does not "
                           "mirror this origin",
                           (unsigned long long)p->size, (unsigned long long)size);
    if (p->size == 0)
        return kix_err_set(err, KIX_EINVAL, "a mirror reports size 0");
    {
        /* a mirror holds what it verified: a checkpoint of this log */
        struct kix_bytes note;
        if (kix_log_reader_checkpoint(r, p->size, &note) != KIX_OK)
            return kix_err_set(err, KIX_EINVAL,
                               "a mirror reports size %llu, at which this log signed no "
                               "checkpoint: not counted",
                               (unsigned long long)p->size);
    }
    rc = kix_log_reader_root(r, p->size, &ours, err);
    if (rc)
        return rc;
    if (memcmp(ours.b, p->root, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "a mirror reports another root at size %llu than this log's: it "
                           "holds another log, or a fork of this one; not counted",
                           (unsigned long long)p->size);
    if (rs->nkeys) {
        rc = check_held(rs, r, p, id, err);
        if (rc)
            return rc;
    } else {
        snprintf(id, sizeof(id), "%.*s", (int)p->mirror.len, (const char *)p->mirror.ptr);
    }
    pthread_mutex_lock(&rs->mu);
    before = rs->quorum;
    for (i = 0; i < rs->n && strcmp(rs->mirrors[i].id, id) != 0; i++)
        ;
    if (i == rs->n && rs->n == KIXD_MAX_REPLICAS) {
        pthread_mutex_unlock(&rs->mu);
        return kix_err_set(err, KIX_ELIMIT, "more than %d mirrors report to this origin",
                           KIXD_MAX_REPLICAS);
    }
    if (i == rs->n) {
        snprintf(rs->mirrors[i].id, sizeof(rs->mirrors[i].id), "%s", id);
        rs->mirrors[i].size = 0;
        rs->n++;
        kixd_log(KIXD_INFO, "mirror %s reports that it holds size %llu (%zu mirrors report)", id,
                 (unsigned long long)p->size, rs->n);
    }
    if (p->size > rs->mirrors[i].size)
        rs->mirrors[i].size = p->size;
    after = nth_largest(rs, srv->cfg->ack_replicas);
    if (after > rs->quorum)
        rs->quorum = after;
    after = rs->quorum;
    pthread_mutex_unlock(&rs->mu);
    *quorum = after;
    if (rs->active && after > atomic_load(&rs->visible)) {
        uint64_t w = atomic_load(&rs->wanted);
        while (w < after && !atomic_compare_exchange_weak(&rs->wanted, &w, after))
            ;
        drain_advance(srv); /* now, or by the reader that holds the view */
    }
    if (after > before)
        kixd_server_wake(srv);
    return KIX_OK;
}

/* The entries of a committed job end before this size (0: none stored). */
static uint64_t needed_size(const struct kixd_submit *job)
{
    uint64_t need = 0;

    for (size_t i = 0; i < job->n; i++)
        if (job->results[i].code == KIX_OK && job->results[i].index + 1 > need)
            need = job->results[i].index + 1;
    return need;
}

int kixd_replicas_hold(struct kixd_worker *w, struct kixd_submit *job)
{
    unsigned n = w->srv->cfg->ack_replicas;
    uint64_t quorum;

    KIXD_ASSERT_LOOP(w);
    if (n == 0 || job->rc != KIX_OK)
        return 0;
    job->ack_need = needed_size(job);
    if (job->ack_need == 0)
        return 0;
    /* the receipt's snapshot must be begun after the quorum is read: a
     * snapshot taken before may not reach it yet */
    kixd_worker_reader_end(w);
    quorum = kixd_replicas_visible(w->srv);
    if (quorum >= job->ack_need) {
        job->receipt_size = quorum;
        return 0;
    }
    job->ack_deadline_ms = kixd_now_ms() + w->srv->cfg->ack_timeout_ms;
    job->next = NULL;
    if (w->held_tail)
        w->held_tail->next = job;
    else
        w->held_head = job;
    w->held_tail = job;
    return 1;
}

static void refuse(struct kixd_submit *job, unsigned n, int stopping)
{
    job->rc = KIX_EUNAVAIL;
    kix_err_set(&job->err, KIX_EUNAVAIL,
                "not acknowledged: %s fewer than the %u mirrors --ack-replicas requires held "
                "entry %llu durably. It is stored at this origin but would be lost with this "
                "machine; once the mirrors hold it, 'kix receipt %llu' gets its receipt",
                stopping ? "kixd is stopping and" : "after --ack-timeout,", n,
                (unsigned long long)(job->ack_need - 1), (unsigned long long)(job->ack_need - 1));
}

void kixd_replicas_release(struct kixd_worker *w, int stopping)
{
    unsigned n = w->srv->cfg->ack_replicas;
    struct kixd_submit *job = w->held_head, *keep = NULL, *keep_tail = NULL;
    double now = kixd_now_ms();
    uint64_t quorum;

    KIXD_ASSERT_LOOP(w);
    kixd_worker_reader_end(w); /* receipts from a snapshot begun after the quorum was read */
    quorum = kixd_replicas_visible(w->srv);
    w->held_head = w->held_tail = NULL;
    while (job) {
        struct kixd_submit *next = job->next;
        job->next = NULL;
        if (quorum >= job->ack_need) {
            job->receipt_size = quorum;
        } else if (stopping || now >= job->ack_deadline_ms) {
            refuse(job, n, stopping);
        } else {
            if (keep_tail)
                keep_tail->next = job;
            else
                keep = job;
            keep_tail = job;
            job = next;
            continue;
        }
        job->srv->up->submit_answer(job); /* dispatch.c's, a floor above */
        kixd_submit_free(job);
        job = next;
    }
    w->held_head = keep;
    w->held_tail = keep_tail;
    kixd_worker_reader_end(w);
    kixd_worker_check_drained(w);
}
