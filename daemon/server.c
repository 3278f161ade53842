/* kixd's server: the log, the workers (event loops and listeners), signals
 * and the orderly stop. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd_check.h"
#include "conn.h"
#include "diag.h"
#include "dispatch.h"
#include "export.h"
#include "fd_limit.h"
#include "follow.h"
#include "http.h"
#include "http_bundles.h"
#include "http_pages_cache.h"
#include "kix/pages.h"
#include "kix/addr.h"
#include "kix/rpc.h"
#include "kix/source.h"
#include "kix/version.h"
#include "metrics.h"
#include "mirror.h"
#include "peers.h"
#include "replicas.h"
#include "tlog_witness.h"
#include "witness.h"
#include "witness_client.h"
#include "writer.h"

#define LISTEN_BACKLOG 1024

/* ---- loop ownership ------------------------------------------------------------- */

void kixd_worker_own(struct kixd_worker *w)
{
    w->owner = uv_thread_self();
    atomic_store(&w->owned, 1);
}

void kixd_worker_disown(struct kixd_worker *w)
{
    atomic_store(&w->owned, 0);
}

int kixd_worker_on_loop(struct kixd_worker *w)
{
    uv_thread_t self = uv_thread_self();
    return !atomic_load(&w->owned) || uv_thread_equal(&w->owner, &self);
}

/* ---- the read snapshot of a callback ------------------------------------------ */

int kixd_worker_reader(struct kixd_worker *w, struct kix_log_reader **out, struct kix_err *err)
{
    int rc;

    KIXD_ASSERT_LOOP(w);
    if (w->view) {
        *out = w->view;
        return KIX_OK;
    }
    if (!w->reader) {
        rc = kix_log_read_begin(w->srv->log, &w->reader);
        if (rc)
            return kix_err_set(err, rc, "cannot read the log: %s", kix_strerror(rc));
    }
    *out = w->reader;
    return KIX_OK;
}

void kixd_worker_reader_end(struct kixd_worker *w)
{
    KIXD_ASSERT_LOOP(w);
    if (w->reader) {
        kix_log_read_end(w->reader);
        w->reader = NULL;
    }
}

/* ---- messages from other threads ------------------------------------------------ */

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

static void post_flag(struct kixd_worker *w, int stop)
{
    pthread_mutex_lock(&w->mu);
    if (stop)
        w->stop_asked = 1;
    else
        w->grew = 1;
    pthread_mutex_unlock(&w->mu);
    uv_async_send(&w->wake);
}

/* Writer thread: the log grew, wake every worker for its followers. */
static void log_grew(void *ctx, uint64_t size)
{
    struct kixd_server *srv = ctx;
    kixd_replicas_committed(srv, size); /* the readers' view of it, for later */
    kixd_metrics_grew(srv, size);
    kixd_export_kick(srv->exporter);
    kixd_wclient_kick(srv->wclient);
    for (unsigned i = 0; i < srv->nworkers; i++)
        post_flag(&srv->workers[i], 0);
}

void kixd_server_grew(struct kixd_server *srv)
{
    /* under stop_mu: once stopping is set, the loops may close their wake
     * handles, so nobody may post to them any more */
    pthread_mutex_lock(&srv->stop_mu);
    if (!atomic_load(&srv->stopping)) {
        struct kix_log_reader *r;
        uint64_t size = 0;
        if (kix_log_read_begin(srv->log, &r) == KIX_OK) {
            size = kix_log_reader_size(r);
            kix_log_read_end(r);
        }
        log_grew(srv, size);
    }
    pthread_mutex_unlock(&srv->stop_mu);
}

void kixd_server_wake(struct kixd_server *srv)
{
    pthread_mutex_lock(&srv->stop_mu);
    if (!atomic_load(&srv->stopping))
        for (unsigned i = 0; i < srv->nworkers; i++)
            post_flag(&srv->workers[i], 0);
    pthread_mutex_unlock(&srv->stop_mu);
}

/* Sets `stopping` and asks every worker to drain; 0 when already stopping. */
static int request_stop(struct kixd_server *srv)
{
    int first;
    pthread_mutex_lock(&srv->stop_mu);
    first = !atomic_exchange(&srv->stopping, 1);
    if (first)
        for (unsigned i = 0; i < srv->nworkers; i++)
            post_flag(&srv->workers[i], 1);
    pthread_mutex_unlock(&srv->stop_mu);
    return first;
}

void kixd_server_stop(struct kixd_server *srv, int status, const char *why)
{
    atomic_store(&srv->exit_status, status);
    if (request_stop(srv))
        kixd_log(KIXD_INFO, "stopping: %s", why);
}

static void begin_drain(struct kixd_worker *w);

static void on_wake(uv_async_t *a)
{
    struct kixd_worker *w = a->data;
    struct kixd_submit *jobs;
    int grew, stop;

    pthread_mutex_lock(&w->mu);
    jobs = w->done_head;
    w->done_head = w->done_tail = NULL;
    grew = w->grew;
    stop = w->stop_asked;
    w->grew = w->stop_asked = 0;
    pthread_mutex_unlock(&w->mu);
    KIXD_ASSERT_LOOP(w);
    while (jobs) {
        struct kixd_submit *next = jobs->next;
        assert(jobs->w == w && jobs->state == KIXD_SUBMIT_COMMITTED);
        if (!kixd_replicas_hold(w, jobs)) {
            kixd_submit_answer(jobs);
            kixd_submit_free(jobs);
        }
        jobs = next;
    }
    if (w->held_head)
        kixd_replicas_release(w, 0);
    if (grew) {
        for (struct kixd_conn *c = w->conns, *next; c; c = next) {
            next = c->next;
            if (c->following)
                kixd_follow_pump(c);
        }
    }
    kixd_worker_reader_end(w);
    if (stop)
        begin_drain(w);
    kixd_worker_check_drained(w);
}

/* ---- stopping ------------------------------------------------------------------------ */

static void close_handle(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

static void on_drain_timeout(uv_timer_t *t)
{
    struct kixd_worker *w = t->data;

    kixd_log(KIXD_WARN,
             "worker %u: %u submits and %u connections still busy after %u ms; closing "
             "them",
             w->id, w->jobs, w->nconns, w->srv->cfg->drain_timeout_ms);
    kixd_replicas_release(w, 1);
    while (w->conns)
        kixd_conn_close(w->conns, KIXD_DEBUG, "server stopping (drain timeout)");
    kixd_worker_check_drained(w);
}

static void begin_drain(struct kixd_worker *w)
{
    if (w->draining)
        return;
    w->draining = 1;
    for (unsigned i = 0; i < w->nlisteners; i++)
        close_handle(&w->listeners[i].u.h);
    kixd_conn_stop_all(w);
    kixd_http_stop_all(w);
    uv_timer_start(&w->drain_timer, on_drain_timeout, w->srv->cfg->drain_timeout_ms, 0);
}

void kixd_worker_check_drained(struct kixd_worker *w)
{
    KIXD_ASSERT_LOOP(w);
    if (!w->draining || w->handles_closed || w->jobs > 0)
        return;
    for (struct kixd_conn *c = w->conns, *next; c; c = next) {
        next = c->next;
        if (c->queued == 0 && c->out.len == 0)
            kixd_conn_close(c, KIXD_DEBUG, "server stopping");
    }
    if (w->nconns > 0 || w->nhconns > 0)
        return; /* answers still being written */
    w->handles_closed = 1;
    close_handle((uv_handle_t *)&w->wake);
    close_handle((uv_handle_t *)&w->sweep);
    close_handle((uv_handle_t *)&w->drain_timer);
    if (w->signals) {
        close_handle((uv_handle_t *)&w->sigterm);
        close_handle((uv_handle_t *)&w->sigint);
        close_handle((uv_handle_t *)&w->sighup);
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct kixd_worker *w = s->data;
    struct kixd_server *srv = w->srv;

    if (!request_stop(srv)) {
        kixd_log(KIXD_INFO, "received %s again; still draining", strsignal(signum));
        return;
    }
    kixd_log(KIXD_INFO, "received %s: no new connections or requests; finishing in-flight submits",
             strsignal(signum));
}

/* SIGHUP: reopen --log-file (a rotation moved it away), and say so there. */
static void on_sighup(uv_signal_t *s, int signum)
{
    const char *path;
    int rc = kixd_log_reopen(&path);

    (void)s;
    (void)signum;
    if (rc == 1)
        kixd_log(KIXD_INFO, "received SIGHUP: no --log-file to reopen (logging to stderr)");
    else if (rc)
        kixd_log(KIXD_WARN,
                 "received SIGHUP: cannot reopen the log file %s (%s); still writing "
                 "to the one open",
                 path, strerror(errno));
    else
        kixd_log(KIXD_INFO, "received SIGHUP: reopened the log file %s", path);
}

/* ---- timers ---------------------------------------------------------------------------- */

static void on_sweep(uv_timer_t *t)
{
    struct kixd_worker *w = t->data;
    kixd_conn_sweep(w);
    kixd_http_sweep(w);
    if (w->held_head) /* --ack-timeout */
        kixd_replicas_release(w, 0);
    kixd_worker_reader_end(w);
}

/* ---- listeners -------------------------------------------------------------------------- */

static void on_connection(uv_stream_t *server, int status)
{
    struct kixd_listener *l = server->data;

    if (status < 0) {
        kixd_log(KIXD_WARN, "accepting on %s failed: %s", l->addr, uv_strerror(status));
        return;
    }
    if (l->is_http)
        kixd_http_accept(l->w, server);
    else
        kixd_conn_accept(l->w, server);
    kixd_worker_reader_end(l->w);
}

/* A bound TCP socket; reuseport lets each worker bind the same address. */
static int bound_socket(const struct sockaddr *sa, socklen_t len, int reuseport, int *out,
                        const char *addr, const char *flag, struct kix_err *err)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

    if (fd < 0)
        return kix_err_set(err, KIX_EIO, "cannot create a socket for %s: %s", addr,
                           strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
        close(fd);
        return kix_err_set(err, KIX_EIO, "SO_REUSEPORT on %s: %s", addr, strerror(errno));
    }
    if (sa->sa_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, sa, len) != 0) {
        int e = errno;
        close(fd);
        if (e == EADDRINUSE)
            return kix_err_set(err, KIX_EUNAVAIL,
                               "cannot listen on %s: the address is in use (is another kixd "
                               "running? stop it or pick another %s)",
                               addr, flag);
        return kix_err_set(err, KIX_EUNAVAIL, "cannot listen on %s: %s", addr, strerror(e));
    }
    *out = fd;
    return KIX_OK;
}

static int listen_tcp(struct kixd_server *srv, const char *addr, int is_http, struct kix_err *err)
{
    const char *flag = is_http ? "--http" : "--listen"; /* the option that named addr */
    char host[256], port[16];
    struct addrinfo hints, *ai = NULL;
    struct sockaddr_storage ss;
    socklen_t sslen;
    int rc, fd = -1;

    if (kix_split_host_port(addr + 6, host, sizeof(host), port, sizeof(port)) != 0)
        return kix_err_set(err, KIX_EUSAGE, "bad listen address %s: expected tcp://HOST:PORT",
                           addr);
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0)
        return kix_err_set(err, KIX_EUNAVAIL, "cannot resolve %s: %s", addr, gai_strerror(rc));
    memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
    sslen = ai->ai_addrlen;
    freeaddrinfo(ai);
    /* A probe without SO_REUSEPORT: fails if anyone (even an older kixd
     * with SO_REUSEPORT) holds the address, which would otherwise share it. */
    rc = bound_socket((struct sockaddr *)&ss, sslen, 0, &fd, addr, flag, err);
    if (rc)
        return rc;
    /* port 0: keep the port the kernel picked for every worker */
    getsockname(fd, (struct sockaddr *)&ss, &sslen);
    close(fd);
    for (unsigned i = 0; i < srv->nworkers; i++) {
        struct kixd_worker *w = &srv->workers[i];
        struct kixd_listener *l = &w->listeners[w->nlisteners];
        rc = bound_socket((struct sockaddr *)&ss, sslen, 1, &fd, addr, flag, err);
        if (rc)
            return rc;
        uv_tcp_init(&w->loop, &l->u.tcp);
        l->u.h.data = l;
        l->w = w;
        l->is_tcp = 1;
        l->is_http = is_http;
        snprintf(l->addr, sizeof(l->addr), "%s", addr);
        w->nlisteners++;
        rc = uv_tcp_open(&l->u.tcp, fd);
        if (rc)
            close(fd); /* else the handle owns it */
        if (rc == 0)
            rc = uv_listen(&l->u.s, LISTEN_BACKLOG, on_connection);
        if (rc)
            return kix_err_set(err, KIX_EUNAVAIL, "cannot listen on %s: %s", addr, uv_strerror(rc));
    }
    if (strcmp(port, "0") == 0) {
        char name[INET6_ADDRSTRLEN] = "";
        int p = 0;
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            uv_ip4_name(in, name, sizeof(name));
            p = ntohs(in->sin_port);
        } else {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            uv_ip6_name(in6, name, sizeof(name));
            p = ntohs(in6->sin6_port);
        }
        kixd_log(KIXD_INFO, "%s listens on port %d (%s)", addr, p, name);
    }
    return KIX_OK;
}

/* Refuses to take over the socket of a running server; removes a stale one. */
static int unix_path_free(const char *path, const char *addr, struct kix_err *err)
{
    struct sockaddr_un sun;
    struct stat st;
    int fd, live;

    if (lstat(path, &st) != 0)
        return KIX_OK;
    if (!S_ISSOCK(st.st_mode))
        return kix_err_set(err, KIX_EUNAVAIL, "cannot listen on %s: %s exists and is not a socket",
                           addr, path);
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    live = fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
    if (fd >= 0)
        close(fd);
    if (live)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "cannot listen on %s: a server is running there (stop it first)", addr);
    unlink(path);
    return KIX_OK;
}

static int listen_unix(struct kixd_server *srv, const char *addr, struct kix_err *err)
{
    const char *path = addr + 7;
    struct kixd_worker *w = &srv->workers[0];
    struct kixd_listener *l = &w->listeners[w->nlisteners];
    struct sockaddr_un sun;
    int rc;

    if (!*path || strlen(path) >= sizeof(sun.sun_path))
        return kix_err_set(err, KIX_EUSAGE,
                           "bad listen address %s: the path is empty or longer "
                           "than %zu bytes",
                           addr, sizeof(sun.sun_path) - 1);
    rc = unix_path_free(path, addr, err);
    if (rc)
        return rc;
    {
        /* libuv reports a missing directory as "permission denied" */
        char dir[sizeof(sun.sun_path)];
        const char *slash = strrchr(path, '/');
        struct stat st;
        snprintf(dir, sizeof(dir), "%.*s", slash && slash > path ? (int)(slash - path) : 1,
                 slash ? path : ".");
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return kix_err_set(err, KIX_EUNAVAIL,
                               "cannot listen on %s: the directory %s does not exist; create it "
                               "(mode 0700 keeps the socket private) or choose another path",
                               addr, dir);
    }
    uv_pipe_init(&w->loop, &l->u.pipe, 0);
    l->u.h.data = l;
    l->w = w;
    snprintf(l->addr, sizeof(l->addr), "%s", addr);
    w->nlisteners++;
    rc = uv_pipe_bind(&l->u.pipe, path);
    if (rc == 0)
        rc = uv_listen(&l->u.s, LISTEN_BACKLOG, on_connection);
    if (rc)
        return kix_err_set(err, KIX_EUNAVAIL, "cannot listen on %s: %s", addr, uv_strerror(rc));
    l->bound = 1;
    return KIX_OK;
}

static int open_listeners(struct kixd_server *srv, struct kix_err *err)
{
    const struct kixd_config *cfg = srv->cfg;

    for (size_t i = 0; i < cfg->nlisten; i++) {
        const char *a = cfg->listen[i];
        int rc;
        if (strncmp(a, "tcp://", 6) == 0)
            rc = listen_tcp(srv, a, 0, err);
        else if (strncmp(a, "unix://", 7) == 0)
            rc = listen_unix(srv, a, err);
        else
            rc = kix_err_set(err, KIX_EUSAGE,
                             "bad listen address %s: expected tcp://HOST:PORT or unix:///PATH", a);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < cfg->nhttp; i++) {
        int rc = listen_tcp(srv, cfg->http[i], 1, err);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

/* ---- workers ---------------------------------------------------------------------------- */

static int worker_init(struct kixd_server *srv, struct kixd_worker *w, unsigned id)
{
    unsigned sweep_ms = srv->cfg->idle_timeout_ms / 4;

    if (sweep_ms > 1000)
        sweep_ms = 1000;
    if (sweep_ms < 20)
        sweep_ms = 20;
    w->srv = srv;
    w->id = id;
    pthread_mutex_init(&w->mu, NULL);
    kix_buf_init(&w->scratch);
    if (uv_loop_init(&w->loop) != 0)
        return -1;
    w->loop_ready = 1;
    uv_async_init(&w->loop, &w->wake, on_wake);
    w->wake.data = w;
    uv_timer_init(&w->loop, &w->sweep);
    w->sweep.data = w;
    uv_timer_start(&w->sweep, on_sweep, sweep_ms, sweep_ms);
    uv_timer_init(&w->loop, &w->drain_timer);
    w->drain_timer.data = w;
    return 0;
}

static void walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* Closes whatever is left and releases the loop (after uv_run returned, or
 * when start-up failed). */
static void worker_release(struct kixd_worker *w)
{
    if (w->loop_ready) {
        uv_walk(&w->loop, walk_close, NULL);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        if (uv_loop_close(&w->loop) != 0)
            kixd_log(KIXD_WARN, "worker %u: loop did not close cleanly", w->id);
    }
    kix_buf_release(&w->scratch);
    kix_source_close(w->source);
    kixd_bundles_free(w);
    kixd_page_cache_free(w);
    pthread_mutex_destroy(&w->mu);
}

static void *worker_main(void *arg)
{
    struct kixd_worker *w = arg;
    kixd_worker_own(w);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    kixd_worker_disown(w);
    return NULL;
}

static void listened_summary(const struct kixd_config *cfg, char *out, size_t cap)
{
    size_t off = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cfg->nlisten && off < cap; i++)
        off += (size_t)snprintf(out + off, cap - off, "%s%s", i ? " " : "", cfg->listen[i]);
}

/* One kixd per store: an advisory lock on DIR/kixd.lock, held until exit
 * (the kernel drops it with the process, so a crash leaves no stale lock).
 * Returns KIX_EEXIST when another process holds it. */
int kixd_store_lock(const char *store, int *fd_out, struct kix_err *err)
{
    char path[4200];
    int fd;

    *fd_out = -1;
    snprintf(path, sizeof(path), "%s/kixd.lock", store);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return kix_err_set(err, KIX_EIO, "cannot open the store's lock %s: %s", path,
                           strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return kix_err_set(err, KIX_EEXIST,
                               "another kixd is serving %s (it holds %s); stop it first, or "
                               "serve a mirror of it from another directory",
                               store, path);
        return kix_err_set(err, KIX_EIO, "cannot lock %s: %s", path, strerror(e));
    }
    *fd_out = fd;
    return KIX_OK;
}

static int lock_store(struct kixd_server *srv, struct kix_err *err)
{
    return kixd_store_lock(srv->cfg->store, &srv->lock_fd, err);
}

uint64_t kixd_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A mirror made the store (mirror.h) and kixd promote did not make it an
 * origin. */
static int is_unpromoted_mirror(const char *store)
{
    char path[4200];
    struct stat st;

    snprintf(path, sizeof(path), "%s/" KIXD_PROMOTED_FILE, store);
    if (stat(path, &st) == 0)
        return 0;
    snprintf(path, sizeof(path), "%s/" KIXD_MIRROR_ID_FILE, store);
    return stat(path, &st) == 0;
}

static int open_log(struct kixd_server *srv, struct kix_err *err)
{
    struct kix_log_opts opts;
    struct kix_buf vkey = KIX_BUF_INIT;
    int rc;

    /* kix_log_open refuses a store kixd init did not make (never creates one) */
    memset(&opts, 0, sizeof(opts));
    opts.store.map_max = srv->cfg->map_max;
    /* the origin needs its key; a copy served without one is said so
     * (--mirror-of, --read-only), never guessed from a missing file */
    opts.replica = srv->cfg->mirror_of[0] || srv->cfg->read_only;
    opts.log_key_file = srv->cfg->log_key_file[0] ? srv->cfg->log_key_file : NULL;
    if (!opts.replica && is_unpromoted_mirror(srv->cfg->store)) {
        rc = kix_err_set(
            err, KIX_EUSAGE,
            "REFUSING TO SERVE %s AS THE ORIGIN: it is a mirror's store (%s/" KIXD_MIRROR_ID_FILE
            "). When the origin is lost, make it the origin with 'kixd promote "
            "--store %s --log-key-file KEY' first (OPERATING.md); else serve it "
            "with --mirror-of or --read-only",
            srv->cfg->store, srv->cfg->store, srv->cfg->store);
        goto out;
    }
    rc = kix_index_open(srv->cfg->store, &opts, &srv->log, err);
    if (rc && err && err->cause == KIX_CAUSE_NO_LOG_KEY) {
        rc = kix_err_set(err, rc,
                         "REFUSING TO SERVE %s AS THE ORIGIN: its log key is missing (%s%s): "
                         "restore the key and start again, or give --log-key-file FILE. To "
                         "serve this copy without its key, say what it is: --mirror-of ADDR "
                         "(follow the origin) or --read-only",
                         srv->cfg->store, opts.log_key_file ? opts.log_key_file : srv->cfg->store,
                         opts.log_key_file ? "" : "/log.key");
        goto out;
    }
    if (rc)
        goto out;
    rc = lock_store(srv, err);
    if (rc)
        goto out;
    kix_log_phase_stats_enable(srv->log, srv->cfg->phase_stats);
    if (srv->cfg->no_store_check)
        kixd_log(KIXD_WARN, "--no-store-check: serving %s without checking it first",
                 srv->cfg->store);
    else
        rc = kixd_check_at_start(srv->log, srv->cfg->store, err);
    if (rc == KIX_OK && !kix_log_is_replica(srv->log))
        rc = kixd_peers_check(srv->cfg, srv->log, err);
    if (rc)
        goto out;
    rc = kix_verifier_format(kix_log_verifier(srv->log), &vkey);
    if (rc) {
        kix_err_set(err, rc, "out of memory");
        goto out;
    }
    snprintf(srv->log_key, sizeof(srv->log_key), "%s", (const char *)vkey.ptr);
out:
    kix_buf_release(&vkey);
    return rc; /* the caller closes srv->log and the lock */
}

/* --source URL: the source each worker reads opened once here, so that a
 * copy that cannot be read is said at start (and libcurl is set up before
 * the worker threads). */
static int open_source(const struct kixd_config *cfg, char *origin, size_t cap, uint64_t *size,
                       struct kix_err *err)
{
    struct kix_source *src = NULL;
    struct kix_client_info *info = malloc(sizeof(*info));
    int rc = info ? kix_source_open_http(cfg->source, NULL, &src, err)
                  : kix_err_set(err, KIX_ENOMEM, "out of memory");

    if (rc == KIX_OK)
        rc = src->ops->info(src, info, err);
    if (rc == KIX_OK) {
        snprintf(origin, cap, "%s", info->origin);
        *size = info->size;
    } else {
        kix_err_wrap(err, "cannot serve --source %s", cfg->source);
    }
    kix_source_close(src);
    free(info);
    return rc;
}

int kixd_server_run(const struct kixd_config *cfg)
{
    struct kixd_server srv;
    struct kix_err err = {0};
    struct kix_log_reader *r = NULL;
    char where[2048], pool[16], origin[256];
    uint64_t size = 0;
    unsigned started = 1;
    int rc, status = 0;

    memset(&srv, 0, sizeof(srv));
    srv.cfg = cfg;
    srv.lock_fd = -1;
    pthread_mutex_init(&srv.stop_mu, NULL);
    atomic_init(&srv.exit_status, 0);
    atomic_init(&srv.connections, 0);
    atomic_init(&srv.stopping, 0);
    atomic_init(&srv.read_bytes, 0);
    atomic_init(&srv.submit_bytes, 0);
    signal(SIGPIPE, SIG_IGN);
    /* run pages offer "Add a reproduction or note" where there is an
     * address to send it to (PROTOCOL.md §3.4) */
    kix_pages_set_submit_url(cfg->submit_url[0] ? cfg->submit_url
                             : cfg->http_submit ? "submit"
                                                : "");
    /* signature checks run on the libuv pool: at least one thread per CPU */
    if (!getenv("UV_THREADPOOL_SIZE")) {
        snprintf(pool, sizeof(pool), "%u", cfg->threads > 4 ? cfg->threads : 4);
        setenv("UV_THREADPOOL_SIZE", pool, 1);
    }
    if (cfg->mirror_of[0]) {
        rc = kixd_mirror_prepare(cfg, &err);
        if (rc) {
            err.code = rc; /* its text when the message is empty */
            kix_err_wrap(&err, "cannot mirror %s", cfg->mirror_of);
            goto out;
        }
    }
    kixd_raise_fd_limit(cfg);
    /* the witness keys first: a usage error is reported before the store is locked */
    rc = kixd_witnesses_load(&srv, &err);
    if (rc)
        goto out;
    if (cfg->witness_key[0]) {
        struct kix_verifier up;
        if (cfg->mirror_of[0]) {
            rc = kixd_read_verifier(cfg->upstream_key, &up, &err);
            if (rc)
                goto out;
        }
        rc = kixd_tlogw_open(cfg, cfg->mirror_of[0] ? &up : NULL, &srv.tlogw, &err);
        if (rc)
            goto out;
    }
    rc = kixd_wclient_new(cfg, &srv.wclient, &err);
    if (rc)
        goto out;
    if (cfg->source[0]) {
        rc = open_source(cfg, origin, sizeof(origin), &size, &err);
        if (rc)
            goto out;
    } else {
        rc = open_log(&srv, &err);
        if (rc) {
            err.code = rc; /* its text when the message is empty */
            kix_err_wrap(&err, "cannot open the log");
            goto out;
        }
        snprintf(origin, sizeof(origin), "%s", kix_log_origin(srv.log));
    }
    if (cfg->nhttp)
        kixd_bundles_prepare(&srv); /* the store is ours now (locked) */
    if (srv.log && kix_log_read_begin(srv.log, &r) == KIX_OK) {
        size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    srv.workers = calloc(cfg->threads, sizeof(*srv.workers));
    if (!srv.workers) {
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    srv.nworkers = cfg->threads;
    for (unsigned i = 0; i < srv.nworkers; i++) {
        if (worker_init(&srv, &srv.workers[i], i) != 0) {
            rc = kix_err_set(&err, KIX_EIO, "cannot start event loop %u", i);
            goto out;
        }
    }
    rc = kixd_metrics_new(&srv);
    if (rc) {
        kix_err_set(&err, rc, "out of memory");
        goto out;
    }
    rc = open_listeners(&srv, &err);
    if (rc)
        goto out;
    /* before the exporter and the witness client, which read the view */
    if (srv.log && !kix_log_is_replica(srv.log)) {
        rc = kixd_replicas_new(cfg, &srv.replicas, &err);
        if (rc)
            goto out;
    }
    if (cfg->export_dir[0]) {
        rc = kixd_export_start(&srv, cfg->export_dir, &srv.exporter, &err);
        if (rc)
            goto out;
    }
    rc = kixd_wclient_start(&srv, srv.wclient, &err); /* before the writer, which kicks it */
    if (rc)
        goto out;
    if (srv.log && !kix_log_is_replica(srv.log)) {
        rc = kixd_writer_start(srv.log, cfg->max_group, cfg->max_batch, log_grew, &srv, &srv.writer,
                               &err);
        if (rc)
            goto out;
    }
    if (cfg->mirror_of[0]) {
        rc = kixd_mirror_start(&srv, &srv.mirror, &err);
        if (rc)
            goto out;
    }
    uv_signal_init(&srv.workers[0].loop, &srv.workers[0].sigterm);
    uv_signal_init(&srv.workers[0].loop, &srv.workers[0].sigint);
    uv_signal_init(&srv.workers[0].loop, &srv.workers[0].sighup);
    srv.workers[0].sigterm.data = srv.workers[0].sigint.data = &srv.workers[0];
    srv.workers[0].sighup.data = &srv.workers[0];
    uv_signal_start(&srv.workers[0].sigterm, on_signal, SIGTERM);
    uv_signal_start(&srv.workers[0].sigint, on_signal, SIGINT);
    uv_signal_start(&srv.workers[0].sighup, on_sighup, SIGHUP);
    srv.workers[0].signals = 1;
    listened_summary(cfg, where, sizeof(where));
    kixd_log(KIXD_INFO, "kixd %s serving %slog %s (size %llu) from %s on %s with %u event loops",
             KIX_VERSION_STRING,
             cfg->mirror_of[0] ? "the read-only mirror of "
             : cfg->read_only  ? "a read-only copy (--read-only) of "
             : cfg->source[0]  ? "read-only (--source) the "
                               : "",
             origin, (unsigned long long)size, cfg->source[0] ? cfg->source : cfg->store, where,
             srv.nworkers);
    for (size_t i = 0; i < cfg->nhttp; i++)
        kixd_log(KIXD_INFO, "HTTP (C2SP tlog-tiles%s) on %s", cfg->http_metrics ? ", /metrics" : "",
                 cfg->http[i]);
    for (; started < srv.nworkers; started++) {
        if (pthread_create(&srv.workers[started].thread, NULL, worker_main,
                           &srv.workers[started]) != 0) {
            kixd_log(KIXD_ERROR, "cannot start thread %u; stopping", started);
            status = 3;
            for (unsigned i = 0; i < srv.nworkers; i++)
                post_flag(&srv.workers[i], 1);
            atomic_store(&srv.stopping, 1);
            break;
        }
    }
    kixd_worker_own(&srv.workers[0]);
    uv_run(&srv.workers[0].loop, UV_RUN_DEFAULT);
    kixd_worker_disown(&srv.workers[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(srv.workers[i].thread, NULL);
out:
    if (rc) { /* start-up failed */
        kixd_log(KIXD_ERROR, "%s", kix_err_text(&err, rc));
        status = rc == KIX_EUSAGE ? 2 : rc == KIX_EFORK ? kix_err_exit_status(rc) : 3;
    }
    kixd_mirror_stop(srv.mirror);
    kixd_writer_stop(srv.writer);
    kixd_wclient_stop(srv.wclient); /* after the writer: it kicks the client */
    srv.wclient = NULL;
    kixd_export_stop(srv.exporter); /* after the writers: a last export */
    srv.exporter = NULL;
    kixd_replicas_free(srv.replicas);
    srv.replicas = NULL;
    for (unsigned i = 0; i < srv.nworkers; i++)
        worker_release(&srv.workers[i]);
    for (unsigned i = 0; srv.workers && i < srv.workers[0].nlisteners; i++)
        if (srv.workers[0].listeners[i].bound)
            unlink(srv.workers[0].listeners[i].addr + 7);
    free(srv.workers);
    kixd_metrics_free(&srv);
    kixd_tlogw_close(srv.tlogw);
    kix_log_close(srv.log);
    if (srv.lock_fd >= 0)
        close(srv.lock_fd);
    free(srv.witnesses);
    pthread_mutex_destroy(&srv.stop_mu);
    if (status == 0 && (status = atomic_load(&srv.exit_status)) != 0)
        kixd_log(KIXD_INFO, "stopped (exit status %d)", status);
    else if (status == 0)
        kixd_log(KIXD_INFO, "stopped");
    return status;
}
