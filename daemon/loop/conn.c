/* One client connection: reading and decoding requests within the limits,
 * writing answers, backpressure, idle and half-closed connections
 * (conn.h). */
#include "conn.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define READ_SMALL   ((size_t)16 << 10) /* idle connections keep little */
#define READ_LARGE   ((size_t)64 << 10) /* a message is arriving */
#define BIG_READER   ((size_t)1 << 20)  /* past it, the global budget applies */
#define OUT_KEEP_CAP ((size_t)256 << 10)

struct wreq {
    uv_write_t req;
    struct kixd_conn *c;
    uint8_t *data;
    size_t len;
};

static const struct kixd_config *cfg_of(const struct kixd_conn *c)
{
    return c->w->srv->cfg;
}

int kixd_conn_can_process(const struct kixd_conn *c)
{
    const struct kixd_config *cfg = cfg_of(c);
    return !c->closing && !c->w->draining && c->in_flight < cfg->max_in_flight &&
           c->queued + c->out.len + c->inflight_bytes < cfg->max_output;
}

/* Keeps srv->read_bytes equal to what the readers hold. */
static void account(struct kixd_conn *c)
{
    size_t now = kix_proto_reader_allocated(&c->rd);
    struct kixd_server *srv = c->w->srv;

    if (now > c->accounted)
        atomic_fetch_add(&srv->read_bytes, now - c->accounted);
    else if (now < c->accounted)
        atomic_fetch_sub(&srv->read_bytes, c->accounted - now);
    c->accounted = now;
}

static void free_conn(struct kixd_conn *c)
{
    /* the last reference goes with the handle's close or the last write or
     * job after it: nothing may still point here */
    assert(c->refs == 0 && c->closing && c->queued == 0 && !c->counted);
    assert(!c->prev && !c->next && c->w->conns != c);
    kix_proto_reader_release(&c->rd);
    account(c);
    kix_buf_release(&c->out);
    free(c);
}

void kixd_conn_unref(struct kixd_conn *c)
{
    KIXD_ASSERT_LOOP(c->w);
    assert(c->refs > 0); /* a reference dropped twice */
    if (--c->refs == 0)
        free_conn(c);
}

static void on_close(uv_handle_t *h)
{
    kixd_conn_unref(h->data);
}

void kixd_conn_close(struct kixd_conn *c, int level, const char *why)
{
    struct kixd_worker *w = c->w;

    KIXD_ASSERT_LOOP(w);
    if (c->closing)
        return;
    c->closing = 1;
    c->following = 0;
    kixd_log(level, "connection %s closed: %s", c->peer, why);
    if (c->prev)
        c->prev->next = c->next;
    else if (w->conns == c)
        w->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    if (c->counted) {
        assert(w->nconns > 0);
        w->nconns--;
        atomic_fetch_sub(&w->srv->connections, 1);
        c->counted = 0;
    }
    uv_close(&c->u.h, on_close);
}

/* ---- writing ---------------------------------------------------------------------- */

static void after_output_drop(struct kixd_conn *c);

static void on_write(uv_write_t *req, int status)
{
    struct wreq *r = req->data;
    struct kixd_conn *c = r->c;
    struct kixd_worker *w = c->w;

    KIXD_ASSERT_LOOP(w);
    assert(c->queued >= r->len && c->refs > 1); /* the handle's ref and this write's */
    c->queued -= r->len;
    free(r->data);
    free(r);
    if (status < 0) {
        if (!c->closing)
            kixd_conn_close(c, KIXD_DEBUG, uv_strerror(status));
    } else if (!c->closing) {
        c->last_active = uv_now(&w->loop);
        after_output_drop(c);
    }
    kixd_worker_reader_end(w);
    kixd_conn_unref(c);
    kixd_worker_check_drained(w);
}

static void reset_out(struct kixd_conn *c)
{
    if (c->out.cap > OUT_KEEP_CAP)
        kix_buf_release(&c->out);
    else
        kix_buf_reset(&c->out);
}

void kixd_conn_flush(struct kixd_conn *c, int allow_try)
{
    struct wreq *r;
    uv_buf_t b;
    size_t off = 0, len = c->out.len;
    int rc;

    KIXD_ASSERT_LOOP(c->w);
    if (c->closing || len == 0)
        return;
    if (allow_try && c->queued == 0) {
        b = uv_buf_init((char *)c->out.ptr, (unsigned)(len > 0x7fffffff ? 0x7fffffff : len));
        rc = uv_try_write(&c->u.s, &b, 1);
        if (rc < 0 && rc != UV_EAGAIN) {
            kixd_conn_close(c, KIXD_DEBUG, uv_strerror(rc));
            return;
        }
        if (rc > 0) {
            off = (size_t)rc;
            c->last_active = uv_now(&c->w->loop);
        }
        if (off == len) {
            reset_out(c);
            return;
        }
    }
    r = malloc(sizeof(*r));
    if (!r) {
        kixd_conn_close(c, KIXD_WARN, "out of memory queueing an answer");
        return;
    }
    r->c = c;
    r->data = kix_buf_detach(&c->out, &len);
    r->len = len - off;
    r->req.data = r;
    b = uv_buf_init((char *)r->data + off, (unsigned)r->len);
    c->queued += r->len;
    c->refs++;
    rc = uv_write(&r->req, &c->u.s, &b, 1, on_write);
    if (rc) {
        c->queued -= r->len;
        c->refs--;
        free(r->data);
        free(r);
        kixd_conn_close(c, KIXD_DEBUG, uv_strerror(rc));
    }
}

/* ---- reading ----------------------------------------------------------------------- */

static void process(struct kixd_conn *c);

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct kixd_conn *c = h->data;
    struct kixd_server *srv = c->w->srv;
    size_t want = kix_proto_reader_buffered(&c->rd) ? READ_LARGE : READ_SMALL, avail = 0;
    uint8_t *space = NULL;
    struct kix_err err = {0};

    (void)suggested;
    *buf = uv_buf_init(NULL, 0);
    /* a big message in progress while all buffers together are over budget */
    if (kix_proto_reader_allocated(&c->rd) + want > BIG_READER &&
        atomic_load(&srv->read_bytes) > srv->cfg->max_read_buffers) {
        kixd_log(KIXD_WARN,
                 "connection %s: receive buffers of all connections exceed %zu bytes; dropping "
                 "this one's %zu-byte partial message",
                 c->peer, srv->cfg->max_read_buffers, kix_proto_reader_buffered(&c->rd));
        return; /* read_cb gets UV_ENOBUFS and closes */
    }
    if (kix_proto_reader_reserve(&c->rd, want, &space, &avail, &err) != KIX_OK) {
        kixd_log(KIXD_DEBUG, "connection %s: %s", c->peer, err.msg);
        return;
    }
    *buf = uv_buf_init((char *)space, (unsigned)(avail > 0x7fffffff ? 0x7fffffff : avail));
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct kixd_conn *c = s->data;
    struct kixd_worker *w = c->w;

    if (nread > 0 && kix_proto_reader_buffered(&c->rd) == 0)
        c->msg_since = uv_now(&w->loop); /* a new message begins */
    if (buf->base)
        kix_proto_reader_commit(&c->rd, nread > 0 ? (size_t)nread : 0);
    if (nread > 0) {
        c->last_active = uv_now(&w->loop);
        account(c);
        process(c);
    } else if (nread == UV_EOF) {
        /* half-closed: answer what was asked, then close */
        c->eof = 1;
        uv_read_stop(s);
        c->reading = 0;
        if (c->following)
            kixd_conn_close(c, KIXD_DEBUG, "follower closed its side");
        else
            kixd_conn_resume(c);
    } else if (nread == UV_ENOBUFS) {
        kixd_conn_close(c, KIXD_INFO, "receive buffer limit");
    } else if (nread < 0) {
        kixd_conn_close(c, KIXD_DEBUG, uv_strerror((int)nread));
    }
    kixd_worker_reader_end(w);
    kixd_worker_check_drained(w);
}

static void update_reading(struct kixd_conn *c)
{
    int want;

    if (c->closing || c->eof)
        return;
    want = kixd_conn_can_process(c);
    if (want && !c->reading) {
        if (uv_read_start(&c->u.s, on_alloc, on_read) == 0)
            c->reading = 1;
        /* a message we stopped reading gets a fresh deadline */
        c->msg_since = uv_now(&c->w->loop);
    } else if (!want && c->reading) {
        uv_read_stop(&c->u.s);
        c->reading = 0;
    }
}

static void answer_shape_error(struct kixd_conn *c, uint32_t msgid, const struct kix_err *err)
{
    struct kix_proto_writer pw;
    struct kix_err werr = {0};

    kixd_log_request(KIXD_INFO, kixd_request_id(), "(malformed)", c->peer, KIX_EPROTO, -1,
                     "request refused: %s", err->msg);
    kix_proto_writer_init(&pw, &c->out);
    if (kix_proto_write_error(&pw, msgid, KIX_EPROTO, err->msg, &werr) != KIX_OK)
        kixd_conn_close(c, KIXD_WARN, "out of memory answering an error");
}

/* Decodes and answers buffered requests while the limits allow; returns
 * 1 when it stopped at a limit with requests still buffered. */
static int decode_some(struct kixd_conn *c)
{
    struct kix_proto_msg msg;
    struct kix_err err = {0};
    int rc;

    c->stalled = 0;
    while (!c->closing) {
        if (!kixd_conn_can_process(c)) {
            c->stalled = kix_proto_reader_buffered(&c->rd) > 0;
            break;
        }
        kixd_cpu_clock_start(&c->decode_clock, c->w->srv->cfg->phase_stats);
        rc = kix_proto_reader_next(&c->rd, &msg, &err);
        if (rc == KIX_PROTO_AGAIN)
            break;
        /* what is left began after this message */
        c->msg_since = uv_now(&c->w->loop);
        if (rc && kix_proto_reader_failed(&c->rd)) {
            /* the stream cannot be framed any more: no answer, close */
            char why[KIX_ERR_MSG_MAX + 32];
            snprintf(why, sizeof(why), "bad input: %s", err.msg);
            kixd_conn_flush(c, 1);
            kixd_conn_close(c, KIXD_INFO, why);
            return 0;
        }
        if (rc) {
            if (msg.type == KIX_PROTO_REQUEST)
                answer_shape_error(c, msg.msgid, &err);
            continue;
        }
        assert(!c->closing && c->in_flight < c->w->srv->cfg->max_in_flight);
        if (msg.type == KIX_PROTO_REQUEST)
            c->w->srv->up->rpc(c, &msg);
        else
            kixd_log(KIXD_DEBUG, "connection %s: ignoring a message of type %d", c->peer, msg.type);
        kix_proto_msg_release(&msg);
    }
    return c->stalled;
}

static void process(struct kixd_conn *c)
{
    for (;;) {
        int stalled = decode_some(c);
        if (c->closing)
            return;
        kixd_conn_flush(c, 1);
        /* the answers may all have gone out at once (uv_try_write): then no
         * write callback will resume us, so go on here */
        if (!stalled || c->closing || !kixd_conn_can_process(c))
            break;
    }
    /* a follow stream paused behind these answers may go on now */
    if (c->following && c->queued == 0)
        c->w->srv->up->follow_pump(c);
    if (kix_proto_reader_buffered(&c->rd) == 0 && kix_proto_reader_allocated(&c->rd) > 0) {
        /* nothing pending: give the buffer back (an idle connection holds none) */
        kix_proto_reader_release(&c->rd);
        account(c);
    }
    update_reading(c);
}

/* A half-closed connection whose answers are all written is done. */
static void maybe_finish(struct kixd_conn *c)
{
    if (!c->closing && c->eof && !c->stalled && c->in_flight == 0 && c->queued == 0 &&
        c->out.len == 0)
        kixd_conn_close(c, KIXD_DEBUG, "closed by the peer");
}

void kixd_conn_resume(struct kixd_conn *c)
{
    KIXD_ASSERT_LOOP(c->w);
    if (c->closing)
        return;
    process(c);
    maybe_finish(c);
}

static void after_output_drop(struct kixd_conn *c)
{
    if (c->following)
        c->w->srv->up->follow_pump(c);
    kixd_conn_resume(c);
}

/* ---- accepting ------------------------------------------------------------------------ */

static void peer_name(struct kixd_conn *c, int is_tcp, unsigned id)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    char ip[64] = "?";

    if (!is_tcp || uv_tcp_getpeername(&c->u.tcp, (struct sockaddr *)&ss, &len) != 0) {
        snprintf(c->peer, sizeof(c->peer), "%s#%u", is_tcp ? "tcp" : "unix", id);
        return;
    }
    if (ss.ss_family == AF_INET6) {
        uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof(ip));
        snprintf(c->peer, sizeof(c->peer), "[%s]:%u", ip,
                 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
    } else {
        uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof(ip));
        snprintf(c->peer, sizeof(c->peer), "%s:%u", ip,
                 ntohs(((struct sockaddr_in *)&ss)->sin_port));
    }
}

void kixd_conn_accept(struct kixd_worker *w, uv_stream_t *server)
{
    static _Thread_local unsigned next_id;
    struct kixd_server *srv = w->srv;
    const struct kixd_config *cfg = srv->cfg;
    const struct kixd_listener *l = server->data;
    struct kixd_conn *c = calloc(1, sizeof(*c));
    struct kix_proto_limits lim;
    unsigned n;
    uint64_t now = uv_now(&w->loop);

    KIXD_ASSERT_LOOP(w);
    if (!c) {
        kixd_log(KIXD_ERROR, "out of memory accepting a connection");
        return;
    }
    c->w = w;
    c->refs = 1;
    if (l->is_tcp)
        uv_tcp_init(&w->loop, &c->u.tcp);
    else
        uv_pipe_init(&w->loop, &c->u.pipe, 0);
    c->u.h.data = c;
    kix_proto_limits_default(&lim);
    lim.max_message = cfg->max_message;
    kix_proto_reader_init(&c->rd, &lim);
    snprintf(c->peer, sizeof(c->peer), "(new)");
    if (uv_accept(server, &c->u.s) != 0) {
        c->closing = 1;
        uv_close(&c->u.h, on_close);
        return;
    }
    peer_name(c, l->is_tcp, ++next_id);
    n = atomic_fetch_add(&srv->connections, 1) + 1;
    c->counted = 1;
    w->nconns++;
    c->next = w->conns;
    if (w->conns)
        w->conns->prev = c;
    w->conns = c;
    c->last_active = now;
    if (n > cfg->max_connections || w->draining) {
        /* accept and close at once; one log line per second at most */
        w->rejected++;
        if (now - w->rejected_logged_at >= 1000 || w->rejected_logged_at == 0) {
            kixd_log(KIXD_WARN,
                     "refused %llu connection(s): %u open, the limit is %u (--max-connections)",
                     (unsigned long long)w->rejected, n - 1, cfg->max_connections);
            w->rejected = 0;
            w->rejected_logged_at = now;
        }
        kixd_conn_close(c, KIXD_DEBUG, w->draining ? "server stopping" : "too many connections");
        return;
    }
    if (l->is_tcp)
        uv_tcp_nodelay(&c->u.tcp, 1);
    kixd_log(KIXD_DEBUG, "connection %s opened on %s", c->peer, l->addr);
    update_reading(c);
}

/* ---- idle sweep and stop ------------------------------------------------------------------ */

void kixd_conn_sweep(struct kixd_worker *w)
{
    uint64_t now = uv_now(&w->loop), limit = w->srv->cfg->idle_timeout_ms;
    char why[96];

    KIXD_ASSERT_LOOP(w);
    for (struct kixd_conn *c = w->conns, *next; c; c = next) {
        next = c->next;
        if (c->reading && kix_proto_reader_buffered(&c->rd) > 0 && now - c->msg_since >= limit) {
            /* one message trickling in for the whole idle timeout */
            snprintf(why, sizeof(why), "a %zu-byte partial message took over %llu ms",
                     kix_proto_reader_buffered(&c->rd), (unsigned long long)limit);
            kixd_conn_close(c, KIXD_INFO, why);
            continue;
        }
        if (c->in_flight > 0)
            continue; /* waiting for us, not idle */
        if (c->following && c->queued == 0 && c->out.len == 0)
            continue; /* waiting for the log to grow */
        if (now - c->last_active < limit)
            continue;
        snprintf(why, sizeof(why), "%s for %llu ms", c->following ? "follower not reading" : "idle",
                 (unsigned long long)(now - c->last_active));
        kixd_conn_close(c, c->following ? KIXD_INFO : KIXD_DEBUG, why);
    }
}

void kixd_conn_stop_all(struct kixd_worker *w)
{
    KIXD_ASSERT_LOOP(w);
    for (struct kixd_conn *c = w->conns, *next; c; c = next) {
        next = c->next;
        if (c->following) {
            kixd_conn_close(c, KIXD_DEBUG, "server stopping");
            continue;
        }
        if (c->reading) {
            uv_read_stop(&c->u.s);
            c->reading = 0;
        }
    }
}
