/* kix-bench: the load client. C connections x D requests in flight, all on
 * one thread with epoll, so that the client takes as little of the machine
 * as it can and every server (kixd, the echo server, Redis) is driven by the
 * same code. Speaks msgpack-RPC (through kix/proto.h), RESP (Redis) or
 * HTTP/1.1 GETs on keep-alive connections (kixd --http, nginx): requests are
 * the caller's fixed strings, answers are parsed only for their status and
 * Content-Length, with bounded headers and bodies. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "kix/proto.h"

struct slot {
    uint32_t id;
    int used;
    uint64_t t;
};

struct lconn {
    int fd, idx, closed_sending;
    struct kix_proto_reader rd; /* msgpack */
    struct kix_buf in;          /* RESP, HTTP */
    size_t in_off;
    struct kix_buf out;
    size_t out_off;
    int want_out;
    int inflight;
    long sent;
    struct slot *slots; /* msgpack: by msgid */
    uint64_t *fifo;     /* RESP, HTTP: send times in order */
    size_t fhead, fcount;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int connect_to(const char *host, int port)
{
    struct sockaddr_in sa;
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    (void)host; /* loopback only */
    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

struct run {
    struct bench_load *ld;
    struct lconn *cs;
    int ep;
    long issued;
    int stop_sending;
    uint64_t t_count; /* answers after this time count */
    uint64_t t_last;
};

static void set_events(struct run *r, struct lconn *c, int want_out)
{
    struct epoll_event ev;
    if (c->want_out == want_out)
        return;
    c->want_out = want_out;
    ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0);
    ev.data.ptr = c;
    epoll_ctl(r->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static int flush_out(struct run *r, struct lconn *c)
{
    while (c->out_off < c->out.len) {
        ssize_t n = write(c->fd, c->out.ptr + c->out_off, c->out.len - c->out_off);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_events(r, c, 1);
            return 0;
        }
        return -1;
    }
    kix_buf_reset(&c->out);
    c->out_off = 0;
    set_events(r, c, 0);
    return 0;
}

static void fill(struct run *r, struct lconn *c)
{
    struct bench_load *ld = r->ld;

    while (!r->stop_sending && !c->closed_sending && c->inflight < ld->depth) {
        uint32_t id = 0;
        if (ld->total > 0 && r->issued >= ld->total) {
            r->stop_sending = 1;
            break;
        }
        if (!ld->request(ld->ctx, c->idx, c->sent, &c->out, &id)) {
            c->closed_sending = 1;
            break;
        }
        if (ld->proto == BENCH_MSGPACK) {
            int k;
            for (k = 0; k < ld->depth && c->slots[k].used; k++)
                ;
            c->slots[k].used = 1;
            c->slots[k].id = id;
            c->slots[k].t = now_ns();
        } else {
            c->fifo[(c->fhead + c->fcount) % (size_t)ld->depth] = now_ns();
            c->fcount++;
        }
        c->sent++;
        c->inflight++;
        r->issued++;
    }
}

static void answered(struct run *r, struct lconn *c, uint64_t t_sent, int error, const char *why,
                     size_t why_len)
{
    struct bench_load *ld = r->ld;
    uint64_t t = now_ns();

    c->inflight--;
    r->t_last = t;
    if (t_sent >= r->t_count) {
        ld->done++;
        bench_lat_add(&ld->lat, t - t_sent);
    }
    if (error) {
        if (!ld->errors++)
            snprintf(ld->first_error, sizeof(ld->first_error), "%.*s", (int)why_len, why);
    }
}

/* A refused bundle inside a submit answer. */
static int submit_refused(const struct kix_proto_msg *m, struct kix_bytes *why)
{
    const struct kix_proto_map *res, *item, *e;
    const struct kix_proto_array *a;
    size_t n;

    if (kix_proto_value_map(m->result, &res, NULL) ||
        kix_proto_map_get_array(res, "results", &a, &n, NULL))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (kix_proto_value_map(kix_proto_array_at(a, i), &item, NULL) == KIX_OK &&
            kix_proto_map_get_map(item, "error", &e, NULL) == KIX_OK) {
            if (kix_proto_map_get_str(e, "message", why, NULL) != KIX_OK) {
                why->ptr = (const uint8_t *)"refused";
                why->len = 7;
            }
            return 1;
        }
    return 0;
}

static int read_msgpack(struct run *r, struct lconn *c)
{
    struct bench_load *ld = r->ld;
    struct kix_err err;

    for (;;) {
        uint8_t *space;
        size_t avail;
        ssize_t n;
        if (kix_proto_reader_reserve(&c->rd, 64 << 10, &space, &avail, &err) != KIX_OK)
            return -1;
        n = read(c->fd, space, avail);
        if (n < 0 && errno == EINTR) {
            kix_proto_reader_commit(&c->rd, 0);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            kix_proto_reader_commit(&c->rd, 0);
            return 0;
        }
        if (n <= 0) {
            kix_proto_reader_commit(&c->rd, 0);
            snprintf(ld->first_error, sizeof(ld->first_error), "the server closed a connection");
            return -1;
        }
        kix_proto_reader_commit(&c->rd, (size_t)n);
        for (;;) {
            struct kix_proto_msg m;
            struct kix_bytes why = {NULL, 0};
            uint64_t t_sent = 0;
            int rc = kix_proto_reader_next(&c->rd, &m, &err), k, bad;
            if (rc == KIX_PROTO_AGAIN)
                break;
            if (rc) {
                snprintf(ld->first_error, sizeof(ld->first_error), "bad answer: %.200s", err.msg);
                return -1;
            }
            if (m.type != KIX_PROTO_RESPONSE) {
                kix_proto_msg_release(&m);
                continue;
            }
            for (k = 0; k < ld->depth; k++)
                if (c->slots[k].used && c->slots[k].id == m.msgid)
                    break;
            if (k == ld->depth) {
                kix_proto_msg_release(&m);
                snprintf(ld->first_error, sizeof(ld->first_error), "answer to an unknown msgid");
                return -1;
            }
            c->slots[k].used = 0;
            t_sent = c->slots[k].t;
            bad = m.error_code != 0;
            if (bad)
                why = m.error_message;
            else if (ld->check_submit)
                bad = submit_refused(&m, &why);
            answered(r, c, t_sent, bad, (const char *)why.ptr, why.len);
            kix_proto_msg_release(&m);
        }
        if ((size_t)n < avail)
            return 0;
    }
}

/* One RESP reply at in[off..): its length, 0 when incomplete. */
static size_t resp_reply(const uint8_t *p, size_t len, int *error)
{
    const uint8_t *nl = memchr(p, '\n', len);
    size_t head;
    long blen;

    if (!nl)
        return 0;
    head = (size_t)(nl - p) + 1;
    *error = p[0] == '-';
    if (p[0] != '$')
        return head;
    blen = strtol((const char *)p + 1, NULL, 10);
    if (blen < 0) {
        *error = 1; /* nil */
        return head;
    }
    if (len < head + (size_t)blen + 2)
        return 0;
    return head + (size_t)blen + 2;
}

#define HTTP_MAX_HEAD (16u << 10) /* status line and headers of one answer */
#define HTTP_MAX_BODY (64u << 20) /* one answer's body */
#define REPLY_BAD     ((size_t)-1)

/* One HTTP/1.1 answer at p: its length, 0 when incomplete, REPLY_BAD when
 * malformed or unbounded (no Content-Length: chunked answers are not
 * expected from a static file or a tile). *error: the status is not 200. */
static size_t http_reply(const uint8_t *p, size_t len, int *error)
{
    size_t lim = len < HTTP_MAX_HEAD ? len : HTTP_MAX_HEAD, head = 0, pos, body = 0;
    int have_len = 0;

    for (size_t i = 0; i + 4 <= lim; i++)
        if (p[i] == '\r' && p[i + 1] == '\n' && p[i + 2] == '\r' && p[i + 3] == '\n') {
            head = i + 4;
            break;
        }
    if (!head)
        return len >= HTTP_MAX_HEAD ? REPLY_BAD : 0;
    if (head < 16 || memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ')
        return REPLY_BAD;
    *error = memcmp(p + 9, "200", 3) != 0;
    pos = (size_t)((const uint8_t *)memchr(p, '\n', head) - p) + 1;
    while (pos < head - 2) {
        const uint8_t *nl = memchr(p + pos, '\n', head - pos);
        size_t ll = (size_t)(nl - (p + pos)), k = 15;
        if (ll > k && strncasecmp((const char *)p + pos, "content-length:", k) == 0) {
            while (k < ll && (p[pos + k] == ' ' || p[pos + k] == '\t'))
                k++;
            if (k == ll || p[pos + k] < '0' || p[pos + k] > '9' || have_len)
                return REPLY_BAD;
            for (; k < ll && p[pos + k] >= '0' && p[pos + k] <= '9'; k++) {
                body = body * 10 + (size_t)(p[pos + k] - '0');
                if (body > HTTP_MAX_BODY)
                    return REPLY_BAD;
            }
            have_len = 1;
        }
        pos += ll + 1;
    }
    if (!have_len)
        return REPLY_BAD;
    return len < head + body ? 0 : head + body;
}

/* RESP and HTTP: answers in the order of the requests. */
static int read_resp(struct run *r, struct lconn *c)
{
    struct bench_load *ld = r->ld;

    for (;;) {
        ssize_t n;
        if (kix_buf_grow(&c->in, 64 << 10) != KIX_OK)
            return -1;
        n = read(c->fd, c->in.ptr + c->in.len, c->in.cap - c->in.len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0) {
            snprintf(ld->first_error, sizeof(ld->first_error), "the server closed a connection");
            return -1;
        }
        c->in.len += (size_t)n;
        for (;;) {
            int error = 0;
            const uint8_t *p = c->in.ptr + c->in_off;
            size_t avail = c->in.len - c->in_off;
            size_t got = ld->proto == BENCH_HTTP ? http_reply(p, avail, &error)
                                                 : resp_reply(p, avail, &error);
            uint64_t t_sent;
            if (got == REPLY_BAD) {
                snprintf(ld->first_error, sizeof(ld->first_error), "bad HTTP answer: %.*s",
                         (int)(avail < 60 ? avail : 60), (const char *)p);
                return -1;
            }
            if (!got)
                break;
            if (!c->fcount) {
                snprintf(ld->first_error, sizeof(ld->first_error), "unexpected reply");
                return -1;
            }
            t_sent = c->fifo[c->fhead];
            c->fhead = (c->fhead + 1) % (size_t)ld->depth;
            c->fcount--;
            answered(r, c, t_sent, error, (const char *)c->in.ptr + c->in_off, got > 40 ? 40 : got);
            c->in_off += got;
        }
        if (c->in_off == c->in.len) {
            c->in.len = 0;
            c->in_off = 0;
        } else if (c->in_off > (1u << 20)) {
            memmove(c->in.ptr, c->in.ptr + c->in_off, c->in.len - c->in_off);
            c->in.len -= c->in_off;
            c->in_off = 0;
        }
    }
}

int bench_load_run(struct bench_load *ld)
{
    struct run r;
    struct epoll_event evs[64];
    double start, deadline;
    int rc = 0, active;

    memset(&r, 0, sizeof(r));
    r.ld = ld;
    ld->done = ld->errors = 0;
    ld->first_error[0] = '\0';
    r.cs = calloc((size_t)ld->conns, sizeof(*r.cs));
    r.ep = epoll_create1(0);
    if (!r.cs || r.ep < 0)
        bench_die("out of memory");
    for (int i = 0; i < ld->conns; i++) {
        struct lconn *c = &r.cs[i];
        struct epoll_event ev;
        c->idx = i;
        c->fd = connect_to(ld->host, ld->port);
        if (c->fd < 0) {
            snprintf(ld->first_error, sizeof(ld->first_error), "cannot connect to port %d",
                     ld->port);
            rc = -1;
            goto out;
        }
        kix_proto_reader_init(&c->rd, NULL);
        c->slots = calloc((size_t)ld->depth, sizeof(*c->slots));
        c->fifo = calloc((size_t)ld->depth, sizeof(*c->fifo));
        if (!c->slots || !c->fifo)
            bench_die("out of memory");
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        epoll_ctl(r.ep, EPOLL_CTL_ADD, c->fd, &ev);
    }
    start = bench_now();
    deadline = ld->seconds > 0 ? start + ld->warmup + ld->seconds : 0;
    r.t_count = now_ns() + (uint64_t)(ld->warmup * 1e9);
    for (int i = 0; i < ld->conns; i++) {
        fill(&r, &r.cs[i]);
        if (flush_out(&r, &r.cs[i]) != 0) {
            rc = -1;
            goto out;
        }
    }
    for (;;) {
        int n;
        if (deadline && !r.stop_sending && bench_now() >= deadline)
            r.stop_sending = 1;
        active = 0;
        for (int i = 0; i < ld->conns; i++)
            active += r.cs[i].inflight;
        if (!active)
            break;
        n = epoll_wait(r.ep, evs, 64, 1000);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && bench_now() > (deadline ? deadline : start) + 120) {
            snprintf(ld->first_error, sizeof(ld->first_error), "no answer for 2 minutes");
            rc = -1;
            goto out;
        }
        for (int e = 0; e < n; e++) {
            struct lconn *c = evs[e].data.ptr;
            if (evs[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
                int x = ld->proto == BENCH_MSGPACK ? read_msgpack(&r, c) : read_resp(&r, c);
                if (x) {
                    rc = -1;
                    goto out;
                }
            }
            if (deadline && !r.stop_sending && bench_now() >= deadline)
                r.stop_sending = 1;
            fill(&r, c);
            if (flush_out(&r, c) != 0) {
                snprintf(ld->first_error, sizeof(ld->first_error), "write failed: %s",
                         strerror(errno));
                rc = -1;
                goto out;
            }
        }
    }
    ld->elapsed = (double)(r.t_last - r.t_count) / 1e9;
    if (ld->elapsed <= 0)
        ld->elapsed = 1e-9;
out:
    for (int i = 0; i < ld->conns; i++) {
        struct lconn *c = &r.cs[i];
        if (c->fd > 0)
            close(c->fd);
        kix_proto_reader_release(&c->rd);
        kix_buf_release(&c->in);
        kix_buf_release(&c->out);
        free(c->slots);
        free(c->fifo);
    }
    free(r.cs);
    close(r.ep);
    return rc;
}
