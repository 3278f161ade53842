/* daemon/loop/server.h — kixd's server and its event loops (server.c).
 *
 * One struct kixd_server per process (passed around, never global). It owns
 * the log, the writer thread and N workers. A worker is one libuv loop on
 * its own thread (worker 0 runs on the main thread), with its own TCP
 * listener on each TCP address (SO_REUSEPORT spreads connections over the
 * workers), the Unix sockets on worker 0, its connections, an idle sweep and
 * one uv_async through which other threads post to it (finished submits, log
 * growth for followers, stop). Everything a worker owns is touched only by its
 * loop thread, except the fields under `mu`.
 *
 * A worker opens at most one read snapshot of the log at a time
 * (kixd_worker_reader) and ends it before its callback returns
 * (kixd_worker_reader_end): no LMDB transaction lives across loop
 * iterations, so the writer is never blocked and the map can grow.
 */
#ifndef KIXD_SERVER_H
#define KIXD_SERVER_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "kix/buf.h"
#include "kix/index.h"
#include "config.h"

struct kixd_conn;
struct kixd_submit;
struct kixd_writer;
struct kixd_worker;

struct kix_proto_msg;
struct kixd_server;
struct kixd_mirror;
struct kixd_http_conn;
struct kixd_export;
struct kixd_metrics;
struct kixd_tlogw;
struct kixd_wclient;

/* What the floors above the loop do when the loop or a connection calls on
 * them (ARCHITECTURE.md, "kixd's floors"): the loop and the connections name
 * nothing above them, and call up only through this table, which kixd's
 * wiring (serve.c) fills with the RPC methods, the follow streams, HTTP and
 * the replicas' held submits before any loop runs. All on the worker's loop
 * thread, but grew (any thread). */
struct kixd_handlers {
    /* one decoded RPC request (dispatch.h: kixd_dispatch) */
    void (*rpc)(struct kixd_conn *c, struct kix_proto_msg *msg);
    /* a follow stream's connection may take more (follow.h) */
    void (*follow_pump)(struct kixd_conn *c);
    /* a connection on an --http listener (http.h) */
    void (*http_accept)(struct kixd_worker *w, uv_stream_t *server);
    /* the worker woke: the submits its writer posted back (a list through
     * ->next, maybe empty) are answered, or held for --ack-replicas */
    void (*submits_done)(struct kixd_worker *w, struct kixd_submit *jobs);
    /* writes a finished submit's answer (dispatch.h: kixd_submit_answer) */
    void (*submit_answer)(struct kixd_submit *job);
    /* the idle sweep, after the RPC connections' */
    void (*sweep)(struct kixd_worker *w);
    /* stopping: after the RPC connections stopped reading */
    void (*stop)(struct kixd_worker *w);
    /* stopping took longer than --drain-timeout: give up what is held */
    void (*drain_timeout)(struct kixd_worker *w);
    /* a worker's loop is gone: free what the floors above kept in it */
    void (*worker_free)(struct kixd_worker *w);
    /* the log grew to size (before the workers are woken for it) */
    void (*grew)(struct kixd_server *srv, uint64_t size);
};

struct kixd_server {
    const struct kixd_config *cfg;
    const struct kixd_handlers *up; /* the floors above (serve.c) */
    struct kix_log *log;
    int lock_fd;                    /* DIR/kixd.lock, held (flock) while serving; -1 if none */
    char log_key[1024];             /* verifier key text */
    struct kixd_mirror *mirror;     /* mirror.c: the follower of --mirror-of, or NULL */
    struct kix_verifier *witnesses; /* witness.c: keys add_cosignature accepts */
    size_t nwitnesses;
    pthread_mutex_t stop_mu; /* orders `stopping` against posts from other threads */
    atomic_int exit_status;  /* nonzero: what kixd exits with once stopped */
    struct kixd_writer *writer;
    struct kixd_worker *workers;
    unsigned nworkers;
    atomic_uint connections;        /* open connections, all workers */
    atomic_int stopping;            /* a signal asked us to stop */
    atomic_size_t read_bytes;       /* receive buffers, all connections */
    atomic_size_t submit_bytes;     /* submits accepted and not yet answered */
    struct kixd_export *exporter;   /* export.c: --export DIR, or NULL */
    struct kixd_metrics *metrics;   /* metrics.c: the counters of /metrics */
    struct kixd_tlogw *tlogw;       /* tlog_witness.c: --witness-key, answers add-checkpoint */
    struct kixd_wclient *wclient;   /* witness_client.c: --http-witness, asks witnesses */
    struct kixd_replicas *replicas; /* replicas.c: mirrors' durable sizes (origin only) */
    char bundle_dir[4200];          /* http_bundles.h: STORE/bundles, or "" (not kept) */
    /* --phase-stats: CPU time of the daemon's own append phases (the log
     * counts the rest, kix_log_phase_stats) */
    _Atomic uint64_t phase_receive_ns, phase_answer_ns;
};

/* --phase-stats: a sampled clock of the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, a system call). Started with on set, it runs
 * with kix_log_phase_sample's weight (kix/log.h: every time at first, then
 * one time in eight, counted eight times); kixd_cpu_clock_add adds its
 * weighted time since the start to *sum. */
struct kixd_cpu_clock {
    uint64_t t;
    unsigned weight; /* 0: not running */
};
void kixd_cpu_clock_start(struct kixd_cpu_clock *clk, int on);
void kixd_cpu_clock_add(const struct kixd_cpu_clock *clk, _Atomic uint64_t *sum);

struct kixd_listener {
    union {
        uv_handle_t h;
        uv_stream_t s;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } u;
    struct kixd_worker *w;
    int is_tcp;
    int is_http; /* an HTTP listener (http.c) */
    int bound;   /* a Unix socket file we created (removed at exit) */
    char addr[KIXD_ADDR_MAX];
};

struct kixd_worker {
    struct kixd_server *srv;
    unsigned id;
    uv_loop_t loop;
    uv_async_t wake;
    uv_timer_t sweep;
    uv_timer_t drain_timer;
    uv_signal_t sigterm, sigint, sighup; /* worker 0 only */
    struct kixd_listener listeners[KIXD_MAX_LISTEN];
    unsigned nlisteners;
    pthread_t thread;
    uv_thread_t owner; /* the thread running the loop, while `owned` */
    atomic_int owned;

    pthread_mutex_t mu; /* guards the next three */
    struct kixd_submit *done_head, *done_tail;
    int grew;       /* the log grew: pump the followers */
    int stop_asked; /* begin draining */

    /* loop thread only */
    struct kixd_conn *conns; /* open (not closing) connections */
    unsigned nconns;
    struct kixd_http_conn *hconns; /* open HTTP connections (http.c) */
    unsigned nhconns;
    unsigned jobs; /* submits from this worker not yet answered */
    /* committed submits waiting for --ack-replicas mirrors (replicas.c) */
    struct kixd_submit *held_head, *held_tail;
    int draining, handles_closed, loop_ready, signals;
    struct kix_log_reader *reader; /* the snapshot of the current callback */
    /* while an HTTP request is answered: the readers' view (replicas.h),
     * which kixd_worker_reader then returns */
    struct kix_log_reader *view;
    struct kix_buf scratch;    /* receipts and such, reused */
    struct kix_source *source; /* what the RPC reads answer from (dispatch.c), once opened */
    int bundle_warned;         /* said that a bundle file cannot be written (http_bundles.c) */
    uint8_t *bundle_checked;   /* bitmap: the bundle files checked (http_bundles.c) */
    size_t bundle_checked_len; /* its bytes */
    struct { /* files kept open (http_bundles.c: by key, in slot key % KIXD_BUNDLE_FDS) */
        uint64_t index;
        int fd, used;
    } bundle_fds[KIXD_BUNDLE_FDS];
    struct kixd_page_cache *pages; /* pages of the last second (http_pages_cache.h), or NULL */
    uint64_t rejected;             /* connections refused since the last log line */
    uint64_t rejected_logged_at;
};

/* Loop ownership, checked by assert in every function that must run on a
 * worker's loop thread (KIXD_ASSERT_LOOP): the thread that runs w's loop
 * owns it from kixd_worker_own until kixd_worker_disown. Before the loop
 * runs and after it stopped (start-up, teardown on the main thread) nobody
 * owns it, and any thread passes. */
void kixd_worker_own(struct kixd_worker *w);
void kixd_worker_disown(struct kixd_worker *w);
int kixd_worker_on_loop(struct kixd_worker *w);
#define KIXD_ASSERT_LOOP(w) assert(kixd_worker_on_loop(w))

/* Takes DIR/kixd.lock (flock, held while the fd is open): one kixd per
 * store. KIX_EEXIST when another process holds it. *fd gets the lock. */
int kixd_store_lock(const char *store, int *fd, struct kix_err *err);

/* Runs the server until a signal stops it; returns a process exit status
 * (serve.c: it wires the floors together). */
int kixd_server_run(const struct kixd_config *cfg);

/* The workers' life, in this order (serve.c). kixd_workers_new makes
 * srv->cfg->threads workers, each an event loop with its timers, not yet
 * running (KIX_ENOMEM, KIX_EIO); kixd_workers_listen opens --listen and
 * --http on them; kixd_workers_signals has worker 0 take SIGTERM, SIGINT
 * (stop) and SIGHUP (reopen --log-file); kixd_workers_run runs worker 0's
 * loop on this thread and the others on their own until the server stopped
 * (0, or 3 when a thread could not start); kixd_workers_free closes and frees
 * them and removes the Unix socket files they bound. */
int kixd_workers_new(struct kixd_server *srv, struct kix_err *err);
int kixd_workers_listen(struct kixd_server *srv, struct kix_err *err);
void kixd_workers_signals(struct kixd_server *srv);
int kixd_workers_run(struct kixd_server *srv);
void kixd_workers_free(struct kixd_server *srv);

/* Writer thread (kixd_writer_start's grew, ctx the server), and
 * kixd_server_grew: the log grew to size; srv->up->grew, then every worker
 * wakes for its followers. */
void kixd_server_log_grew(void *srv, uint64_t size);
/* Writer thread (kixd_writer_start's noticed): another process's commit
 * grew the log to size; as kixd_server_log_grew, but a no-op once the
 * server is stopping (the writer's watch runs until kixd_writer_stop,
 * after the loops closed their wake handles). */
void kixd_server_noticed(void *srv, uint64_t size);

/* Any thread: the log grew outside the writer (a mirror's replay); wakes
 * the follow streams. A no-op once the server is stopping. */
void kixd_server_grew(struct kixd_server *srv);
/* Any thread: wakes every worker to look at its held submits (replicas.c)
 * and its followers. A no-op once the server is stopping. */
void kixd_server_wake(struct kixd_server *srv);
/* Any thread: stops the server as a signal would, then makes it exit with
 * `status`. */
void kixd_server_stop(struct kixd_server *srv, int status, const char *why);

/* The read snapshot of the current callback, opened on first use. */
int kixd_worker_reader(struct kixd_worker *w, struct kix_log_reader **out, struct kix_err *err);
/* Ends the snapshot (call before returning to the loop; no-op when none). */
void kixd_worker_reader_end(struct kixd_worker *w);

/* While stopping: closes what is idle and ends the loop once nothing is in
 * flight. Call after anything that may finish in-flight work. */
void kixd_worker_check_drained(struct kixd_worker *w);

#endif
