/* daemon/writer/writer.h — submissions: verification on the libuv thread pool,
 * then group commit on the one writer thread (writer.c).
 *
 * A submit request becomes a struct kixd_submit on its worker's loop. Its
 * bundles are prepared (kix_log_prepare: parse, canonicalize, verify the
 * signature) in chunks on the thread pool, never on an event loop. The
 * prepared items go to the writer thread, which commits everything queued
 * meanwhile (up to max_group entries) in one kix_log_commit: one LMDB
 * transaction, one fsync, one signed checkpoint. The job then goes back to
 * its worker (kixd_worker_post_done), which answers (kixd_submit_answer)
 * and frees it (kixd_submit_free). A job is answered only after its commit
 * is durable.
 *
 * Ownership: the job owns the request message until every bundle is
 * prepared, then only the prepared items until the commit, then the
 * results. It holds a reference on its connection throughout.
 */
#ifndef KIXD_WRITER_H
#define KIXD_WRITER_H

#include "kix/index.h"
#include "kix/proto.h"
#include "server.h"

struct kixd_prep_chunk;

/* Where a job is; each step is taken once, in this order (checked by
 * assert): made on its loop, prepared on the thread pool, queued for and
 * committed by the writer thread, then answered and freed on its loop. A
 * job every bundle of which prepare refused skips the writer. */
enum kixd_submit_state {
    KIXD_SUBMIT_NEW,       /* kixd_submit_new: being filled in */
    KIXD_SUBMIT_PREPARING, /* kixd_submit_start: chunks on the thread pool */
    KIXD_SUBMIT_QUEUED,    /* kixd_writer_push: waiting for or in a group commit */
    KIXD_SUBMIT_COMMITTED, /* posted back to its worker (rc says how the commit went) */
};

struct kixd_submit {
    struct kixd_conn *conn;
    struct kixd_worker *w;
    struct kixd_server *srv;
    uint32_t msgid;
    uint64_t req_id;          /* kixd_request_id, for its log lines */
    double started_ms;        /* kixd_now_ms when it arrived */
    struct kix_proto_msg msg; /* the request: bundle bytes, until prepared */
    size_t frame_len;
    size_t n;
    struct kix_submission *subs;
    struct kix_bytes *objs;
    struct kix_prepared **prepared; /* NULL where prepare refused it */
    struct kix_append_result *results;
    size_t nprepared;
    struct kixd_prep_chunk *chunks;
    size_t nchunks, chunks_left;
    int rc; /* the commit failed as a whole (nothing stored) */
    struct kix_err err;
    uint64_t size; /* tree size after the commit */
    /* --ack-replicas (replicas.c): the size that must be replicated, the
     * kixd_now_ms by which, and the receipts' size (KIX_NO_INDEX: latest) */
    uint64_t ack_need;
    double ack_deadline_ms;
    uint64_t receipt_size;
    enum kixd_submit_state state;
    struct kixd_submit *next;
    /* A submit that came over HTTP (http_submit.c) has no conn: answer
     * writes its answer instead of kixd_submit_answer's msgpack, and
     * release frees what it owns (the body the views point into) and its
     * accounting. NULL for RPC submits. */
    void (*answer)(struct kixd_submit *job);
    void (*release)(struct kixd_submit *job);
    void *owner;
};

/* Allocates a job for n bundles carrying nobjs objects in all (zeroed; the
 * caller fills subs/objs and the identity fields). */
struct kixd_submit *kixd_submit_new(size_t n, size_t nobjs);
/* Loop thread: starts preparing on the thread pool. */
void kixd_submit_start(struct kixd_submit *job);
/* Loop thread: releases the job, its accounting and its connection ref. */
void kixd_submit_free(struct kixd_submit *job);

/* grew(ctx, size) is called on the writer thread after each commit that
 * made the log longer; noticed(ctx, size) there too when the writer, idle,
 * finds that another process's commit made it longer (writer.c, watch;
 * every 250 ms while idle, until kixd_writer_stop). */
int kixd_writer_start(struct kix_log *log, unsigned max_group, unsigned max_batch,
                      void (*grew)(void *ctx, uint64_t size),
                      void (*noticed)(void *ctx, uint64_t size), void *ctx,
                      struct kixd_writer **out, struct kix_err *err);
/* Any thread: hands a committed (or failed) submit back to its worker,
 * whose wake (server.c) passes it to srv->up->submits_done. Here, not in the
 * loop, because the loop knows no submits. */
void kixd_worker_post_done(struct kixd_worker *w, struct kixd_submit *job);
/* Any thread: queues a prepared job for the next group. */
void kixd_writer_push(struct kixd_writer *wr, struct kixd_submit *job);
/* Loop thread: a job went to the thread pool (kixd_submit_start), or came
 * back with every bundle refused. A writer woken from idle holds its
 * group open (up to 1 ms) while jobs are being prepared, so that submissions that arrived
 * together share one fsync instead of taking one each in turn. A NULL
 * writer (a replica's kixd) is ignored. */
void kixd_writer_preparing(struct kixd_writer *wr);
void kixd_writer_prepared_none(struct kixd_writer *wr);
/* Any thread: group commits so far (durable transaction: LMDB commit and
 * fsync), failed ones, and their latency: buckets[i] counts commits of at
 * most KIXD_COMMIT_LE_MS[i] ms (the last: any), *ms_sum their total. */
#define KIXD_COMMIT_BUCKETS 8
extern const double KIXD_COMMIT_LE_MS[KIXD_COMMIT_BUCKETS - 1];
void kixd_writer_stats(struct kixd_writer *wr, uint64_t buckets[KIXD_COMMIT_BUCKETS],
                       uint64_t *failed, double *ms_sum);
/* Commits what is queued, stops the thread and frees the writer. */
void kixd_writer_stop(struct kixd_writer *wr);

#endif
