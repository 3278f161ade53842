/* kixd submissions: prepare on the thread pool, group commit on one thread. */
#include "writer.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conn.h"
#include "diag.h"

#define PREP_CHUNK 16 /* bundles per thread-pool task */

/* How long the writer holds a group open for jobs still being prepared
 * (see writer_main): about one chunk's signature checks on a busy pool.
 * KIX_TEST_GATHER_MS (a test hook, docs/REFERENCE.md) sets another bound,
 * so that a test can see the group form without racing a clock. */
#define GATHER_NS 1000000L

/* How often the idle writer looks for another process's commit (the
 * watch, writer_main). Polling, not inotify (uv_fs_event) on data.mdb: a
 * store may sit on a network file system, which reports no other host's
 * writes, and the index commits after the log, in another file; a change
 * of the store's commit mark (kix_store_commit_mark: two reads of LMDB's
 * meta pages) covers both, costs nothing measurable four times a second,
 * and runs here, on the writer thread, in turn with the commits whose
 * growth it reports (never on an event loop). */
#define WATCH_NS 250000000L

static long gather_ns(void)
{
    const char *test = getenv("KIX_TEST_GATHER_MS");
    long ms = test && *test ? atol(test) : -1;

    return ms >= 0 && ms <= 60000 ? ms * 1000000L : GATHER_NS;
}

struct kixd_prep_chunk {
    uv_work_t req;
    struct kixd_submit *job;
    size_t from, to;
};

struct kixd_writer {
    struct kix_log *log;
    unsigned max_group;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct kixd_submit *head, *tail;
    size_t queued;    /* entries in head..tail */
    size_t preparing; /* jobs on the thread pool, not yet pushed (or refused) */
    long gather_ns;
    int stop;
    /* the writer waits on cv: for any job (WAIT_IDLE) or holding a group
     * for the jobs being prepared (WAIT_GATHER), which only the end of the
     * hold's reason need wake (wake_writer) */
    enum { WAIT_NONE, WAIT_IDLE, WAIT_GATHER } waiting;
    void (*grew)(void *ctx, uint64_t size);
    void (*noticed)(void *ctx, uint64_t size);
    void *ctx;
    uint64_t size;
    uint64_t mark;               /* the store's commit mark at the watch's last look */
    struct kix_prepared **items; /* scratch for one group */
    struct kix_append_result *res;
    /* commit statistics (kixd_writer_stats), under mu */
    uint64_t commit_buckets[KIXD_COMMIT_BUCKETS], commits_failed;
    double commit_ms_sum;
};

const double KIXD_COMMIT_LE_MS[KIXD_COMMIT_BUCKETS - 1] = {1, 2.5, 5, 10, 25, 100, 1000};

void kixd_writer_stats(struct kixd_writer *wr, uint64_t buckets[KIXD_COMMIT_BUCKETS],
                       uint64_t *failed, double *ms_sum)
{
    pthread_mutex_lock(&wr->mu);
    memcpy(buckets, wr->commit_buckets, sizeof(wr->commit_buckets));
    *failed = wr->commits_failed;
    *ms_sum = wr->commit_ms_sum;
    pthread_mutex_unlock(&wr->mu);
}

static void count_commit(struct kixd_writer *wr, int ok, double ms)
{
    size_t b = 0;

    while (b < KIXD_COMMIT_BUCKETS - 1 && ms > KIXD_COMMIT_LE_MS[b])
        b++;
    pthread_mutex_lock(&wr->mu);
    if (ok) {
        wr->commit_buckets[b]++;
        wr->commit_ms_sum += ms;
    } else {
        wr->commits_failed++;
    }
    pthread_mutex_unlock(&wr->mu);
}

/* ---- the job ----------------------------------------------------------------- */

struct kixd_submit *kixd_submit_new(size_t n, size_t nobjs)
{
    size_t nchunks = (n + PREP_CHUNK - 1) / PREP_CHUNK;
    struct kixd_submit *job = calloc(1, sizeof(*job));

    if (!job)
        return NULL;
    job->subs = calloc(n ? n : 1, sizeof(*job->subs));
    job->objs = calloc(nobjs ? nobjs : 1, sizeof(*job->objs));
    job->prepared = calloc(n ? n : 1, sizeof(*job->prepared));
    job->results = calloc(n ? n : 1, sizeof(*job->results));
    job->chunks = calloc(nchunks ? nchunks : 1, sizeof(*job->chunks));
    if (!job->subs || !job->objs || !job->prepared || !job->results || !job->chunks) {
        kixd_submit_free(job);
        return NULL;
    }
    job->n = n;
    job->nchunks = nchunks;
    job->receipt_size = KIX_NO_INDEX;
    kix_proto_msg_init(&job->msg);
    return job;
}

void kixd_submit_free(struct kixd_submit *job)
{
    struct kixd_conn *c;

    if (!job)
        return;
    /* the writer thread holds a queued job: freeing it here is a bug */
    assert(job->state != KIXD_SUBMIT_QUEUED);
    c = job->conn;
    for (size_t i = 0; job->prepared && i < job->n; i++)
        kix_prepared_free(job->prepared[i]);
    kix_proto_msg_release(&job->msg);
    free(job->subs);
    free(job->objs);
    free(job->prepared);
    free(job->results);
    free(job->chunks);
    if (job->release)
        job->release(job);
    if (c) {
        KIXD_ASSERT_LOOP(job->w);
        assert(c->in_flight > 0 && c->inflight_bytes >= job->frame_len && job->w->jobs > 0);
        c->in_flight--;
        c->inflight_bytes -= job->frame_len;
        atomic_fetch_sub(&job->srv->submit_bytes, job->frame_len);
        job->w->jobs--;
    }
    free(job);
    if (c) {
        if (!c->closing)
            kixd_conn_resume(c);
        kixd_conn_unref(c);
    }
}

void kixd_worker_post_done(struct kixd_worker *w, struct kixd_submit *job)
{
    job->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->done_tail)
        w->done_tail->next = job;
    else
        w->done_head = job;
    w->done_tail = job;
    pthread_mutex_unlock(&w->mu);
    uv_async_send(&w->wake);
}

/* Thread pool: parse, canonicalize and verify a slice of the bundles. */
static void prepare_work(uv_work_t *req)
{
    struct kixd_prep_chunk *ch = req->data;
    struct kixd_submit *job = ch->job;

    for (size_t i = ch->from; i < ch->to; i++) {
        struct kix_err err = {0};
        int rc = kix_log_prepare(job->srv->log, &job->subs[i], &job->prepared[i], &err);
        if (rc) {
            job->results[i].code = rc;
            job->results[i].index = KIX_NO_INDEX;
            snprintf(job->results[i].message, sizeof(job->results[i].message), "%s",
                     kix_err_text(&err, rc));
        }
    }
}

/* Loop thread, once per chunk; the last one sends the job on. */
static void prepare_done(uv_work_t *req, int status)
{
    struct kixd_prep_chunk *ch = req->data;
    struct kixd_submit *job = ch->job;

    (void)status; /* never cancelled */
    KIXD_ASSERT_LOOP(job->w);
    assert(job->state == KIXD_SUBMIT_PREPARING && job->chunks_left > 0);
    if (--job->chunks_left > 0)
        return;
    /* the prepared items own copies; the request bytes can go */
    kix_proto_msg_release(&job->msg);
    free(job->subs);
    free(job->objs);
    job->subs = NULL;
    job->objs = NULL;
    for (size_t i = 0; i < job->n; i++)
        job->nprepared += job->prepared[i] != NULL;
    if (job->nprepared == 0) {
        /* every bundle was refused: nothing to commit */
        struct kixd_worker *w = job->w;
        kixd_writer_prepared_none(job->srv->writer);
        job->srv->up->submit_answer(job); /* dispatch.c's, a floor above */
        kixd_submit_free(job);
        kixd_worker_reader_end(w);
        kixd_worker_check_drained(w);
        return;
    }
    kixd_writer_push(job->srv->writer, job);
}

void kixd_submit_start(struct kixd_submit *job)
{
    KIXD_ASSERT_LOOP(job->w);
    assert(job->state == KIXD_SUBMIT_NEW);
    job->state = KIXD_SUBMIT_PREPARING;
    job->chunks_left = job->nchunks;
    kixd_writer_preparing(job->srv->writer);
    for (size_t k = 0; k < job->nchunks; k++) {
        struct kixd_prep_chunk *ch = &job->chunks[k];
        ch->job = job;
        ch->from = k * PREP_CHUNK;
        ch->to = ch->from + PREP_CHUNK < job->n ? ch->from + PREP_CHUNK : job->n;
        ch->req.data = ch;
        /* uv_queue_work fails only for a NULL work_cb */
        (void)uv_queue_work(&job->w->loop, &ch->req, prepare_work, prepare_done);
    }
}

/* ---- the writer thread ------------------------------------------------------- */

static double elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Commits one group of jobs and hands each back to its worker. */
static void commit_group(struct kixd_writer *wr, struct kixd_submit *group)
{
    struct kix_err err = {0};
    struct timespec t0;
    size_t k = 0, njobs = 0;
    uint64_t size = 0;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (struct kixd_submit *j = group; j; j = j->next, njobs++)
        for (size_t i = 0; i < j->n; i++)
            if (j->prepared[i])
                wr->items[k++] = j->prepared[i];
    rc = kix_log_commit(wr->log, wr->items, k, wr->res, &size, &err);
    count_commit(wr, rc == KIX_OK, elapsed_ms(&t0));
    if (rc)
        kixd_log(KIXD_ERROR, "group commit of %zu entries failed, nothing stored: %s", k,
                 kix_err_text(&err, rc));
    else
        kixd_log(KIXD_DEBUG,
                 "committed a group of %zu entries from %zu requests: size %llu, %.2f ms", k, njobs,
                 (unsigned long long)size, elapsed_ms(&t0));
    k = 0;
    while (group) {
        struct kixd_submit *next = group->next;
        assert(group->state == KIXD_SUBMIT_QUEUED);
        group->state = KIXD_SUBMIT_COMMITTED;
        group->rc = rc;
        if (rc)
            group->err = err;
        group->size = size;
        for (size_t i = 0; i < group->n; i++) {
            if (!group->prepared[i])
                continue;
            if (rc == KIX_OK)
                group->results[i] = wr->res[k];
            k++;
            kix_prepared_free(group->prepared[i]);
            group->prepared[i] = NULL;
        }
        group->next = NULL;
        kixd_worker_post_done(group->w, group);
        group = next;
    }
    if (rc == KIX_OK && size > wr->size) {
        wr->size = size;
        wr->grew(wr->ctx, size);
    }
}

/* Whether to hold the group open (the writer was idle, writer_main): jobs
 * are still being prepared, and the group has room for them. Committing at once would send them to
 * the next group, one fsync later; waiting for them costs at most gather_ns (1 ms), while the
 * pool's threads (not this one) do the work. */
static int worth_waiting(const struct kixd_writer *wr)
{
    return wr->preparing > 0 && wr->queued < wr->max_group && !wr->stop;
}

/* Under mu, after a push or a refusal: wakes the writer when it waits for
 * this. A held group is not woken by each job that joins it (a context
 * switch each, ~28 a group at 8x16) but once, when it stops being worth
 * waiting for more. */
static void wake_writer(struct kixd_writer *wr)
{
    if (wr->waiting == WAIT_IDLE || (wr->waiting == WAIT_GATHER && !worth_waiting(wr)))
        pthread_cond_signal(&wr->cv);
}

/* *t: now + ns on the monotonic clock (the cv's). */
static void deadline(struct timespec *t, long ns)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ns / 1000000000L;
    t->tv_nsec += ns % 1000000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* The idle writer's look for another process's commit (kix publish
 * --store beside kixd; ARCHITECTURE.md, "Several processes on one
 * store"): this process's readers see it at once, but nothing else would
 * tell the followers, the readers' view, the exporter and the witness
 * client until this writer's next commit. When the store's commit mark
 * moved, the size readers are served is read again and, when it grew,
 * reported as a commit of this writer's would be (noticed). A mark moved
 * by this writer's own commit costs one read snapshot. */
static void watch(struct kixd_writer *wr)
{
    uint64_t mark = kix_store_commit_mark(kix_log_store(wr->log)), size;
    struct kix_log_reader *r;

    if (mark == wr->mark)
        return;
    wr->mark = mark; /* read before the size: a commit after it moves it again */
    if (kix_log_read_begin(wr->log, &r) != KIX_OK)
        return; /* looked at again after the next commit */
    size = kix_log_reader_size(r);
    kix_log_read_end(r);
    if (size > wr->size) {
        kixd_log(KIXD_DEBUG, "another process grew the log from %llu to %llu",
                 (unsigned long long)wr->size, (unsigned long long)size);
        wr->size = size;
        wr->noticed(wr->ctx, size);
    }
}

static void *writer_main(void *arg)
{
    struct kixd_writer *wr = arg;

    for (;;) {
        struct kixd_submit *group, *last;
        struct timespec until;
        size_t count;
        int woken;

        pthread_mutex_lock(&wr->mu);
        woken = !wr->head;
        wr->waiting = WAIT_IDLE;
        deadline(&until, WATCH_NS);
        while (!wr->head && !wr->stop) {
            if (pthread_cond_timedwait(&wr->cv, &wr->mu, &until) == 0)
                continue;
            /* idle for WATCH_NS: the watch, without the lock (a push
             * meanwhile finds the writer not waiting, and is seen by the
             * loop's test when the lock is back) */
            wr->waiting = WAIT_NONE;
            pthread_mutex_unlock(&wr->mu);
            watch(wr);
            pthread_mutex_lock(&wr->mu);
            wr->waiting = WAIT_IDLE;
            deadline(&until, WATCH_NS);
        }
        wr->waiting = WAIT_NONE;
        if (!wr->head) {
            pthread_mutex_unlock(&wr->mu);
            break;
        }
        /* only a writer that sat idle holds a group: one that finds work
         * waiting after its commit is the pipeline's limit, and a hold
         * would only idle it */
        if (woken && worth_waiting(wr)) {
            deadline(&until, wr->gather_ns);
            wr->waiting = WAIT_GATHER;
            while (worth_waiting(wr))
                if (pthread_cond_timedwait(&wr->cv, &wr->mu, &until) != 0)
                    break;
            wr->waiting = WAIT_NONE;
        }
        /* everything that arrived meanwhile, up to max_group entries */
        group = last = wr->head;
        count = last->nprepared;
        while (last->next && count + last->next->nprepared <= wr->max_group) {
            last = last->next;
            count += last->nprepared;
        }
        wr->head = last->next;
        if (!wr->head)
            wr->tail = NULL;
        last->next = NULL;
        wr->queued -= count;
        pthread_mutex_unlock(&wr->mu);
        commit_group(wr, group);
    }
    return NULL;
}

int kixd_writer_start(struct kix_log *log, unsigned max_group, unsigned max_batch,
                      void (*grew)(void *ctx, uint64_t size),
                      void (*noticed)(void *ctx, uint64_t size), void *ctx,
                      struct kixd_writer **out, struct kix_err *err)
{
    struct kixd_writer *wr = calloc(1, sizeof(*wr));
    size_t cap = (size_t)max_group + max_batch;
    struct kix_log_reader *r = NULL;

    *out = NULL;
    if (!wr)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    wr->log = log;
    wr->max_group = max_group;
    wr->gather_ns = gather_ns();
    wr->grew = grew;
    wr->noticed = noticed;
    wr->ctx = ctx;
    wr->items = calloc(cap, sizeof(*wr->items));
    wr->res = calloc(cap, sizeof(*wr->res));
    if (!wr->items || !wr->res) {
        free(wr->items);
        free(wr->res);
        free(wr);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    /* the mark first: a commit between the two reads is then noticed */
    wr->mark = kix_store_commit_mark(kix_log_store(log));
    if (kix_log_read_begin(log, &r) == KIX_OK) {
        wr->size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    pthread_mutex_init(&wr->mu, NULL);
    {
        /* the gather's deadline on the monotonic clock: a clock step
         * neither holds a group open nor cuts its wait short */
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&wr->cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (pthread_create(&wr->thread, NULL, writer_main, wr) != 0) {
        pthread_mutex_destroy(&wr->mu);
        pthread_cond_destroy(&wr->cv);
        free(wr->items);
        free(wr->res);
        free(wr);
        return kix_err_set(err, KIX_ENOMEM, "cannot start the writer thread");
    }
    *out = wr;
    return KIX_OK;
}

void kixd_writer_push(struct kixd_writer *wr, struct kixd_submit *job)
{
    assert(job->state == KIXD_SUBMIT_PREPARING && job->nprepared > 0);
    job->state = KIXD_SUBMIT_QUEUED;
    job->next = NULL;
    pthread_mutex_lock(&wr->mu);
    if (wr->tail)
        wr->tail->next = job;
    else
        wr->head = job;
    wr->tail = job;
    wr->queued += job->nprepared;
    assert(wr->preparing > 0);
    wr->preparing--;
    wake_writer(wr);
    pthread_mutex_unlock(&wr->mu);
}

void kixd_writer_preparing(struct kixd_writer *wr)
{
    if (!wr)
        return;
    pthread_mutex_lock(&wr->mu);
    wr->preparing++;
    pthread_mutex_unlock(&wr->mu);
}

void kixd_writer_prepared_none(struct kixd_writer *wr)
{
    if (!wr)
        return;
    pthread_mutex_lock(&wr->mu);
    assert(wr->preparing > 0);
    wr->preparing--;
    wake_writer(wr); /* a group may be waiting for this job */
    pthread_mutex_unlock(&wr->mu);
}

void kixd_writer_stop(struct kixd_writer *wr)
{
    if (!wr)
        return;
    pthread_mutex_lock(&wr->mu);
    wr->stop = 1;
    pthread_cond_signal(&wr->cv);
    pthread_mutex_unlock(&wr->mu);
    pthread_join(wr->thread, NULL);
    pthread_mutex_destroy(&wr->mu);
    pthread_cond_destroy(&wr->cv);
    free(wr->items);
    free(wr->res);
    free(wr);
}
