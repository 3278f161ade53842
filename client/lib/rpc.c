/* A blocking msgpack-RPC connection with pipelining (kix/rpc.h). */
#include "kix/clock.h"
#include "kix/addr.h"
#include "kix/rpc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_MS 30000
#define READ_WANT          ((size_t)64 << 10)

struct kix_rpc {
    int fd;
    int timeout_ms;
    uint32_t next_id;
    struct kix_proto_reader rd;
    struct kix_buf out; /* queued bytes; [out_off, len) not yet written */
    size_t out_off;
    size_t max_message;
    int broken; /* an I/O or framing error: every later call fails */
    char addr[512];
};

/* Waits for fd to become ready for `events` until the absolute deadline. */
static int wait_fd(int fd, short events, int64_t deadline, short *revents)
{
    for (;;) {
        struct pollfd p = {fd, events, 0};
        int64_t left = deadline - (int64_t)kix_clock_ms();
        int n;
        if (left < 0)
            left = 0;
        n = poll(&p, 1, (int)(left > 0x7fffffff ? 0x7fffffff : left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return 0;
        *revents = p.revents;
        return 1;
    }
}

static int connect_refused_msg(struct kix_rpc *c, int e, struct kix_err *err)
{
    if (e == ECONNREFUSED || e == ENOENT)
        return kix_err_set(err, KIX_EUNAVAIL,
                           "cannot connect to %s: %s; is kixd running there? Start it with "
                           "'kixd serve --store DIR --listen %s'",
                           c->addr, strerror(e), c->addr);
    return kix_err_set(err, KIX_EUNAVAIL, "cannot connect to %s: %s", c->addr, strerror(e));
}

/* Non-blocking connect of an already created socket, then wait. */
static int connect_fd(struct kix_rpc *c, int fd, const struct sockaddr *sa, socklen_t len,
                      int64_t deadline, int *sys_err)
{
    short rev = 0;
    int e = 0, w;
    socklen_t elen = sizeof(e);

    if (connect(fd, sa, len) == 0)
        return 0;
    if (errno != EINPROGRESS) {
        *sys_err = errno;
        return -1;
    }
    w = wait_fd(fd, POLLOUT, deadline, &rev);
    if (w <= 0) {
        *sys_err = w == 0 ? ETIMEDOUT : -w;
        return -1;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0)
        e = errno;
    if (e) {
        *sys_err = e;
        return -1;
    }
    (void)c;
    return 0;
}

static int open_unix(struct kix_rpc *c, const char *path, int64_t deadline, struct kix_err *err)
{
    struct sockaddr_un sun;
    int fd, e = 0;

    if (strlen(path) == 0 || strlen(path) >= sizeof(sun.sun_path))
        return kix_err_set(err, KIX_EINVAL, "unix socket path of %s is empty or too long", c->addr);
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return kix_err_set(err, KIX_EIO, "cannot create a socket: %s", strerror(errno));
    if (connect_fd(c, fd, (struct sockaddr *)&sun, sizeof(sun), deadline, &e) != 0) {
        close(fd);
        return connect_refused_msg(c, e, err);
    }
    c->fd = fd;
    return KIX_OK;
}

static int open_tcp(struct kix_rpc *c, const char *hp, int64_t deadline, struct kix_err *err)
{
    char host[256], port[16], full[300];
    struct addrinfo hints, *res = NULL;
    int rc, e = ECONNREFUSED, one = 1;

    snprintf(full, sizeof(full), "tcp://%s", hp);
    rc = kix_addr_validate(full, err);
    if (rc == KIX_OK && kix_split_host_port(hp, host, sizeof(host), port, sizeof(port)) != 0)
        rc =
            kix_err_set(err, KIX_EUSAGE,
                        "bad server address %s: expected tcp://HOST:PORT or unix:///PATH", c->addr);
    if (rc)
        return rc;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return kix_err_set(err, KIX_EUNAVAIL, "cannot resolve %s: %s", c->addr, gai_strerror(rc));
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd =
            socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect_fd(c, fd, ai->ai_addr, ai->ai_addrlen, deadline, &e) == 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            c->fd = fd;
            freeaddrinfo(res);
            return KIX_OK;
        }
        close(fd);
    }
    freeaddrinfo(res);
    return connect_refused_msg(c, e, err);
}

int kix_rpc_connect(const char *addr, const struct kix_rpc_opts *opts, struct kix_rpc **out,
                    struct kix_err *err)
{
    struct kix_rpc *c;
    struct kix_proto_limits lim;
    int64_t deadline;
    int rc;

    *out = NULL;
    if (!addr || strlen(addr) >= sizeof(c->addr))
        return kix_err_set(err, KIX_EINVAL, "bad server address: empty or too long");
    c = calloc(1, sizeof(*c));
    if (!c)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    c->fd = -1;
    c->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
    c->max_message = opts && opts->max_message ? opts->max_message : KIX_PROTO_MAX_MESSAGE_DEFAULT;
    c->next_id = 1;
    snprintf(c->addr, sizeof(c->addr), "%s", addr);
    kix_proto_limits_default(&lim);
    lim.max_message = c->max_message;
    kix_proto_reader_init(&c->rd, &lim);
    kix_buf_init(&c->out);
    deadline = (int64_t)kix_clock_ms() + c->timeout_ms;
    if (strncmp(addr, "unix://", 7) == 0)
        rc = open_unix(c, addr + 7, deadline, err);
    else if (addr[0] == '/')
        rc = open_unix(c, addr, deadline, err);
    else if (strncmp(addr, "tcp://", 6) == 0)
        rc = open_tcp(c, addr + 6, deadline, err);
    else if (strstr(addr, "://"))
        rc = kix_err_set(err, KIX_EINVAL,
                         "bad server address %s: expected tcp://HOST:PORT or unix:///PATH", addr);
    else
        rc = open_tcp(c, addr, deadline, err);
    if (rc) {
        kix_rpc_close(c);
        return rc;
    }
    *out = c;
    return KIX_OK;
}

void kix_rpc_close(struct kix_rpc *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    kix_proto_reader_release(&c->rd);
    kix_buf_release(&c->out);
    free(c);
}

const char *kix_rpc_addr(const struct kix_rpc *c)
{
    return c->addr;
}

int kix_rpc_fd(const struct kix_rpc *c)
{
    return c->fd;
}

size_t kix_rpc_pending(const struct kix_rpc *c)
{
    return c->out.len - c->out_off;
}

static int broken(struct kix_rpc *c, struct kix_err *err)
{
    return kix_err_set(err, KIX_EUNAVAIL, "the connection to %s failed earlier; reconnect to go on",
                       c->addr);
}

int kix_rpc_send(struct kix_rpc *c, const char *method, kix_rpc_params_fn fn, void *ctx,
                 uint32_t *msgid, struct kix_err *err)
{
    struct kix_proto_writer w;
    uint32_t id = c->next_id++;
    int rc;

    if (c->broken)
        return broken(c, err);
    kix_proto_writer_init(&w, &c->out);
    w.max_message = c->max_message;
    kix_proto_begin_request(&w, id, method);
    rc = fn ? fn(ctx, &w) : kix_proto_put_map(&w, 0);
    if (rc) {
        /* end removes the partial message; report the writer's or callback's error */
        struct kix_err werr = w.err, ignore;
        int wrc = w.rc;
        if (kix_proto_writer_end(&w, &ignore) != KIX_OK)
            wrc = wrc ? wrc : ignore.code; /* removed the partial message */
        return kix_err_set(err, rc < 0 ? rc : KIX_EINVAL, "building the %s request: %s", method,
                           wrc ? werr.msg : "the params callback failed");
    }
    rc = kix_proto_writer_end(&w, err);
    if (rc) {
        kix_err_wrap(err, "building the %s request", method);
        return rc;
    }
    if (msgid)
        *msgid = id;
    return KIX_OK;
}

/* msgpack str header + bytes. */
static int add_str(struct kix_buf *b, const char *s, size_t len)
{
    uint8_t h[5];
    size_t hl;
    int rc;

    if (len < 32) {
        h[0] = (uint8_t)(0xa0 | len);
        hl = 1;
    } else if (len < 256) {
        h[0] = 0xd9;
        h[1] = (uint8_t)len;
        hl = 2;
    } else if (len < 65536) {
        h[0] = 0xda;
        h[1] = (uint8_t)(len >> 8);
        h[2] = (uint8_t)len;
        hl = 3;
    } else {
        h[0] = 0xdb;
        h[1] = (uint8_t)(len >> 24);
        h[2] = (uint8_t)(len >> 16);
        h[3] = (uint8_t)(len >> 8);
        h[4] = (uint8_t)len;
        hl = 5;
    }
    rc = kix_buf_add(b, h, hl);
    return rc ? rc : kix_buf_add(b, s, len);
}

int kix_rpc_send_params(struct kix_rpc *c, const char *method, const void *params, size_t len,
                        uint32_t *msgid, struct kix_err *err)
{
    uint32_t id = c->next_id++;
    uint8_t h[8] = {
        0x94,       0x00, 0xce, (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8),
        (uint8_t)id};
    size_t start = c->out.len;
    int rc;

    if (c->broken)
        return broken(c, err);
    rc = kix_buf_add(&c->out, h, 7);
    if (rc == KIX_OK)
        rc = add_str(&c->out, method, strlen(method));
    if (rc == KIX_OK)
        rc = kix_buf_addc(&c->out, 0x91);
    if (rc == KIX_OK)
        rc = kix_buf_add(&c->out, params, len);
    if (rc) {
        c->out.len = start;
        return kix_err_set(err, rc, "queueing the %s request: out of memory", method);
    }
    if (msgid)
        *msgid = id;
    return KIX_OK;
}

int kix_rpc_send_raw(struct kix_rpc *c, const void *bytes, size_t len, struct kix_err *err)
{
    if (c->broken)
        return broken(c, err);
    if (kix_buf_add(&c->out, bytes, len))
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    return KIX_OK;
}

static int fail_io(struct kix_rpc *c, int code, struct kix_err *err, const char *fmt,
                   const char *what)
{
    c->broken = 1;
    return kix_err_set(err, code, fmt, what, c->addr);
}

/* Reads what is available into the reader; 0 on EOF, <0 errno, >0 bytes. */
static ssize_t read_some(struct kix_rpc *c, struct kix_err *err, int *rc)
{
    uint8_t *space;
    size_t avail;
    ssize_t n;

    *rc = kix_proto_reader_reserve(&c->rd, READ_WANT, &space, &avail, err);
    if (*rc)
        return -1;
    do
        n = recv(c->fd, space, avail, 0);
    while (n < 0 && errno == EINTR);
    kix_proto_reader_commit(&c->rd, n > 0 ? (size_t)n : 0);
    return n;
}

int kix_rpc_flush(struct kix_rpc *c, struct kix_err *err)
{
    int64_t deadline = (int64_t)kix_clock_ms() + c->timeout_ms;

    if (c->broken)
        return broken(c, err);
    while (c->out_off < c->out.len) {
        short rev = 0, want = POLLOUT;
        int w, rc = KIX_OK;
        ssize_t n;

        /* read while writing, unless the reader is full */
        if (kix_proto_reader_buffered(&c->rd) < c->max_message)
            want |= POLLIN;
        w = wait_fd(c->fd, want, deadline, &rev);
        if (w == 0)
            return fail_io(c, KIX_EUNAVAIL, err, "timed out %s to %s", "writing");
        if (w < 0)
            return fail_io(c, KIX_EUNAVAIL, err, "poll failed %s to %s", "writing");
        if (rev & POLLIN) {
            n = read_some(c, err, &rc);
            if (rc)
                return rc;
            if (n == 0)
                return fail_io(c, KIX_EUNAVAIL, err, "%s: %s closed the connection", "writing");
            if (n < 0 && errno != EAGAIN)
                return fail_io(c, KIX_EUNAVAIL, err, "%s to %s failed", "reading");
            if (n > 0)
                deadline = (int64_t)kix_clock_ms() + c->timeout_ms;
        }
        if (rev & (POLLOUT | POLLERR | POLLHUP)) {
            do
                n = send(c->fd, c->out.ptr + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
            while (n < 0 && errno == EINTR);
            if (n < 0 && errno != EAGAIN)
                return fail_io(c, KIX_EUNAVAIL, err, "%s to %s failed (connection lost)",
                               "writing");
            if (n > 0) {
                c->out_off += (size_t)n;
                deadline = (int64_t)kix_clock_ms() + c->timeout_ms;
            }
        }
    }
    c->out_off = 0;
    if (c->out.cap > ((size_t)1 << 20))
        kix_buf_release(&c->out);
    else
        kix_buf_reset(&c->out);
    return KIX_OK;
}

int kix_rpc_recv(struct kix_rpc *c, struct kix_proto_msg *msg, struct kix_err *err)
{
    int64_t deadline;
    int rc;

    kix_proto_msg_init(msg);
    rc = kix_rpc_flush(c, err);
    if (rc)
        return rc;
    deadline = (int64_t)kix_clock_ms() + c->timeout_ms;
    for (;;) {
        short rev = 0;
        ssize_t n;
        int w;

        rc = kix_proto_reader_next(&c->rd, msg, err);
        if (rc == KIX_OK)
            return KIX_OK;
        if (rc != KIX_PROTO_AGAIN) {
            c->broken = 1;
            kix_err_wrap(err, "%s sent a bad message", c->addr);
            return rc;
        }
        w = wait_fd(c->fd, POLLIN, deadline, &rev);
        if (w == 0)
            return kix_err_set(err, KIX_EUNAVAIL, "%s did not answer within %d ms", c->addr,
                               c->timeout_ms);
        if (w < 0)
            return fail_io(c, KIX_EUNAVAIL, err, "poll failed %s from %s", "reading");
        n = read_some(c, err, &rc);
        if (rc) {
            c->broken = 1;
            return rc;
        }
        if (n == 0)
            return fail_io(c, KIX_EUNAVAIL, err, "%s: %s closed the connection", "reading");
        if (n < 0 && errno != EAGAIN)
            return fail_io(c, KIX_EUNAVAIL, err, "%s from %s failed (connection lost)", "reading");
    }
}

int kix_rpc_call(struct kix_rpc *c, const char *method, kix_rpc_params_fn fn, void *ctx,
                 struct kix_proto_msg *resp, struct kix_err *err)
{
    uint32_t id;
    int rc = kix_rpc_send(c, method, fn, ctx, &id, err);

    kix_proto_msg_init(resp);
    if (rc)
        return rc;
    for (;;) {
        rc = kix_rpc_recv(c, resp, err);
        if (rc)
            return rc;
        if (resp->type == KIX_PROTO_RESPONSE && resp->msgid == id)
            break;
        kix_proto_msg_release(resp);
    }
    if (resp->error_code) {
        int code = resp->error_code;
        if (code >= 0 || code < -1000)
            code = KIX_EPROTO;
        kix_err_set(err, code, "%.*s", (int)resp->error_message.len,
                    (const char *)resp->error_message.ptr);
        kix_proto_msg_release(resp);
        return code;
    }
    return KIX_OK;
}
