/* kixd's loop: the workers (event loops and listeners), signals and the
 * orderly stop. What the floors above do is reached through srv->up
 * (struct kixd_handlers); serve.c wires them and opens the log. */
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

#include "conn.h"
#include "diag.h"
#include "kix/clock.h"
#include "kix/addr.h"
#include "kix/rpc.h"

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
void kixd_server_log_grew(void *ctx, uint64_t size)
{
    struct kixd_server *srv = ctx;
    srv->up->grew(srv, size);
    for (unsigned i = 0; i < srv->nworkers; i++)
        post_flag(&srv->workers[i], 0);
}

void kixd_server_noticed(void *ctx, uint64_t size)
{
    struct kixd_server *srv = ctx;

    /* under stop_mu: once stopping is set, nobody may post to the loops */
    pthread_mutex_lock(&srv->stop_mu);
    if (!atomic_load(&srv->stopping))
        kixd_server_log_grew(srv, size);
    pthread_mutex_unlock(&srv->stop_mu);
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
        kixd_server_log_grew(srv, size);
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
    w->srv->up->submits_done(w, jobs);
    if (grew) {
        for (struct kixd_conn *c = w->conns, *next; c; c = next) {
            next = c->next;
            if (c->following)
                w->srv->up->follow_pump(c);
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
    w->srv->up->drain_timeout(w);
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
    w->srv->up->stop(w);
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
    w->srv->up->sweep(w);
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
        l->w->srv->up->http_accept(l->w, server);
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

int kixd_workers_listen(struct kixd_server *srv, struct kix_err *err)
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
static void worker_release(struct kixd_server *srv, struct kixd_worker *w)
{
    if (w->loop_ready) {
        uv_walk(&w->loop, walk_close, NULL);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        if (uv_loop_close(&w->loop) != 0)
            kixd_log(KIXD_WARN, "worker %u: loop did not close cleanly", w->id);
    }
    kix_buf_release(&w->scratch);
    srv->up->worker_free(w); /* not w->srv: unset when an earlier loop failed to start */
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

void kixd_cpu_clock_start(struct kixd_cpu_clock *clk, int on)
{
    clk->weight = on ? kix_log_phase_sample() : 0;
    clk->t = clk->weight ? kix_thread_cpu_ns() : 0;
}

void kixd_cpu_clock_add(const struct kixd_cpu_clock *clk, _Atomic uint64_t *sum)
{
    if (clk->weight)
        atomic_fetch_add_explicit(sum, (kix_thread_cpu_ns() - clk->t) * clk->weight,
                                  memory_order_relaxed);
}

int kixd_workers_new(struct kixd_server *srv, struct kix_err *err)
{
    srv->workers = calloc(srv->cfg->threads, sizeof(*srv->workers));
    if (!srv->workers)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    srv->nworkers = srv->cfg->threads;
    for (unsigned i = 0; i < srv->nworkers; i++) {
        if (worker_init(srv, &srv->workers[i], i) != 0)
            return kix_err_set(err, KIX_EIO, "cannot start event loop %u", i);
    }
    return KIX_OK;
}

void kixd_workers_signals(struct kixd_server *srv)
{
    struct kixd_worker *w = &srv->workers[0];

    uv_signal_init(&w->loop, &w->sigterm);
    uv_signal_init(&w->loop, &w->sigint);
    uv_signal_init(&w->loop, &w->sighup);
    w->sigterm.data = w->sigint.data = w;
    w->sighup.data = w;
    uv_signal_start(&w->sigterm, on_signal, SIGTERM);
    uv_signal_start(&w->sigint, on_signal, SIGINT);
    uv_signal_start(&w->sighup, on_sighup, SIGHUP);
    w->signals = 1;
}

int kixd_workers_run(struct kixd_server *srv)
{
    unsigned started = 1;
    int status = 0;

    for (; started < srv->nworkers; started++) {
        if (pthread_create(&srv->workers[started].thread, NULL, worker_main,
                           &srv->workers[started]) != 0) {
            kixd_log(KIXD_ERROR, "cannot start thread %u; stopping", started);
            status = 3;
            for (unsigned i = 0; i < srv->nworkers; i++)
                post_flag(&srv->workers[i], 1);
            atomic_store(&srv->stopping, 1);
            break;
        }
    }
    kixd_worker_own(&srv->workers[0]);
    uv_run(&srv->workers[0].loop, UV_RUN_DEFAULT);
    kixd_worker_disown(&srv->workers[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(srv->workers[i].thread, NULL);
    return status;
}

void kixd_workers_free(struct kixd_server *srv)
{
    for (unsigned i = 0; i < srv->nworkers; i++)
        worker_release(srv, &srv->workers[i]);
    for (unsigned i = 0; srv->workers && i < srv->workers[0].nlisteners; i++)
        if (srv->workers[0].listeners[i].bound)
            unlink(srv->workers[0].listeners[i].addr + 7);
    free(srv->workers);
    srv->workers = NULL;
}
