/* kixd's HTTP/1.1 listener: C2SP tlog-tiles reads, the pages and /metrics
 * (http.h; the counters are metrics.c's). */
#include "http.h"

#include <assert.h>
#include <errno.h>
#include <http_parser.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "http_bundles.h"
#include "http_internal.h"
#include "http_pages_cache.h"
#include "http_submit.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/encoding.h"
#include "kix/tlog_tiles.h"
#include "kix/version.h"
#include "kix/vindex.h"
#include "metrics.h"
#include "replicas.h"
#include "tlog_witness.h"

#define IMMUTABLE "public, max-age=31536000, immutable"
#define EDGE      "public, max-age=5"

/* The kinds of path /metrics counts answers by (metrics.h). */
enum {
    K_CHECKPOINT = KIXD_HTTP_CHECKPOINT,
    K_TILE = KIXD_HTTP_TILE,
    K_ENTRIES = KIXD_HTTP_ENTRIES,
    K_METRICS = KIXD_HTTP_METRICS,
    K_PAGE = KIXD_HTTP_PAGE,
    K_WITNESS = KIXD_HTTP_WITNESS,
    K_SUBMIT = KIXD_HTTP_SUBMIT,
    K_OTHER = KIXD_HTTP_OTHER,
};

/* ---- connections ------------------------------------------------------------------- */

#define URL_MAX 1024

struct kixd_http_conn {
    uv_tcp_t tcp;
    struct kixd_worker *w;
    struct kixd_http_conn *prev, *next;
    http_parser parser;
    uint8_t *in; /* unparsed input, http_max_header bytes */
    size_t in_len;
    char url[URL_MAX + 1];
    size_t url_len;
    char etag_in[80]; /* If-None-Match, when short enough to be ours */
    size_t etag_len;
    int header_is_inm;    /* the header being read is If-None-Match */
    int header_is_accept; /* ... is Accept */
    int accept_json;      /* Accept names application/json and not text/html */
    int vary_accept;      /* the answer depends on Accept (a page with a JSON document) */
    size_t header_bytes;
    unsigned refuse;        /* a status decided before the message completed */
    int allow_post;         /* the target is POST-only (/add-checkpoint) */
    int witness;            /* this request is an add-checkpoint with a body */
    int submit;             /* ... a POST /submit with a body (http_submit.c) */
    int preflight;          /* ... a CORS preflight (OPTIONS) of /submit */
    int enroll;             /* ... the body is a POST /enroll's */
    unsigned submit_refuse; /* /submit refused before its body: answered in JSON */
    int header_is_origin;
    char origin[256]; /* the Origin header, "" when absent or too long */
    size_t origin_len;
    /* Access-Control-Allow-Origin of the answer: NULL "*" (reads are
     * public), "" none, else that origin (a write from the log's page) */
    const char *allow_origin;
    const char *extra_headers; /* whole header lines added to the answer, or NULL */
    int header_is_host;
    char host[256]; /* the Host header, "" when absent or too long */
    size_t host_len;
    int waiting; /* its answer is being made on the thread pool */
    char *body;  /* its body (Content-Length bytes, bounded) */
    size_t body_len, body_cap;
    double started_ms;
    struct kix_buf out;
    size_t queued;
    unsigned refs;
    uint64_t last_active, msg_since;
    int in_message, reading, closing, close_after, paused, counted;
    int body_from_file; /* answer_tagged leaves the body to send_file */
    /* refused before its body was read: once answered, the connection
     * lingers (finish): closing a socket whose peer is still sending makes
     * the kernel reset it, and a reset can reach the peer before it has
     * read the refusal (curl: "Failed sending data", no status) */
    int linger, lingering;
    uint64_t linger_since, lingered;
    uv_shutdown_t shut;
    char peer[64];
};

/* How long, and how many bytes, a refused connection is drained before it
 * is closed anyway (nginx's lingering_close does the same) */
#define LINGER_MS    2000
#define LINGER_BYTES (64u << 20)

struct hwreq {
    uv_write_t req;
    struct kixd_http_conn *c;
    uint8_t *data; /* owned */
    size_t len;
};

static void process(struct kixd_http_conn *c);

static void hconn_unref(struct kixd_http_conn *c)
{
    KIXD_ASSERT_LOOP(c->w);
    assert(c->refs > 0); /* a reference dropped twice */
    if (--c->refs > 0)
        return;
    kix_buf_release(&c->out);
    free(c->in);
    free(c->body);
    free(c);
}

static void on_close(uv_handle_t *h)
{
    hconn_unref(h->data);
}

static void hconn_close(struct kixd_http_conn *c, const char *why)
{
    struct kixd_worker *w = c->w;

    if (c->closing)
        return;
    c->closing = 1;
    kixd_log(KIXD_DEBUG, "http connection %s closed: %s", c->peer, why);
    if (c->prev)
        c->prev->next = c->next;
    else if (w->hconns == c)
        w->hconns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    if (c->counted) {
        w->nhconns--;
        atomic_fetch_sub(&w->srv->connections, 1);
        c->counted = 0;
    }
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void update_reading(struct kixd_http_conn *c);

static void on_shutdown(uv_shutdown_t *req, int status)
{
    struct kixd_http_conn *c = req->data;

    if (status < 0 && !c->closing)
        hconn_close(c, uv_strerror(status));
    hconn_unref(c);
}

/* Closes a connection whose last answer is sent; one refused before its
 * body was read first says it is done (FIN) and drains what the peer still
 * sends, until it closes, LINGER_BYTES or LINGER_MS (kixd_http_sweep). */
static void finish(struct kixd_http_conn *c)
{
    if (!c->linger) {
        hconn_close(c, "answered; Connection: close");
        return;
    }
    if (c->lingering)
        return;
    c->lingering = 1;
    c->linger_since = uv_now(&c->w->loop);
    c->shut.data = c;
    c->refs++;
    if (uv_shutdown(&c->shut, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
        c->refs--;
        hconn_close(c, "answered; Connection: close");
        return;
    }
    update_reading(c); /* reading stopped with the refusal: drain */
}

static void on_write(uv_write_t *req, int status)
{
    struct hwreq *r = req->data;
    struct kixd_http_conn *c = r->c;
    struct kixd_worker *w = c->w;

    c->queued -= r->len;
    free(r->data);
    free(r);
    if (status < 0) {
        hconn_close(c, uv_strerror(status));
    } else if (!c->closing) {
        c->last_active = uv_now(&w->loop);
        if (c->close_after && c->queued == 0)
            finish(c);
        else
            process(c);
    }
    kixd_worker_reader_end(w);
    hconn_unref(c);
    kixd_worker_check_drained(w);
}

/* Queues one write of data (owned). */
static void queue_write(struct kixd_http_conn *c, uint8_t *data, size_t len)
{
    struct hwreq *r = malloc(sizeof(*r));
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    int rc = UV_ENOMEM;

    if (r) {
        r->c = c;
        r->data = data;
        r->len = len;
        r->req.data = r;
        c->queued += len;
        c->refs++;
        rc = uv_write(&r->req, (uv_stream_t *)&c->tcp, &b, 1, on_write);
        if (rc) {
            c->queued -= len;
            c->refs--;
        }
    }
    if (rc) {
        const char *why = r ? uv_strerror(rc) : "out of memory queueing an answer";
        free(data);
        free(r);
        hconn_close(c, why);
    }
}

static void flush(struct kixd_http_conn *c)
{
    size_t len = c->out.len;
    uint8_t *data;

    if (c->closing || len == 0)
        return;
    data = kix_buf_detach(&c->out, &len);
    queue_write(c, data, len);
}

/* Drops the first n bytes of c->out (sent). */
static void out_consume(struct kixd_http_conn *c, size_t n)
{
    memmove(c->out.ptr, c->out.ptr + n, c->out.len - n);
    c->out.len -= n;
    c->out.ptr[c->out.len] = '\0';
}

/* Appends bytes [off, size) of file fd to c->out; 0, or -1 (c closed). */
static int out_add_file(struct kixd_http_conn *c, int fd, off_t off, uint64_t size)
{
    if (kix_buf_grow(&c->out, (size_t)(size - (uint64_t)off)) != KIX_OK) {
        hconn_close(c, "out of memory answering");
        return -1;
    }
    while ((uint64_t)off < size) {
        ssize_t n = pread(fd, c->out.ptr + c->out.len, (size_t)(size - (uint64_t)off), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* the answer promised `size` bytes: a short one must not look whole */
            kixd_log(KIXD_WARN, "http %s: cannot read a bundle file: %s", c->peer,
                     n == 0 ? "shorter than when opened" : strerror(errno));
            hconn_close(c, "bundle file unreadable");
            return -1;
        }
        c->out.len += (size_t)n;
        off += n;
    }
    c->out.ptr[c->out.len] = '\0';
    return 0;
}

/* Sends c->out (the answers before this one and its headers), then the
 * `size` bytes of file fd. sendfile(2) writes to the socket itself, so it
 * is used only while libuv holds nothing still to write (that must go
 * first) and only as far as the socket takes the bytes at once; the rest
 * (a slow reader, a full send buffer) is read into c->out and goes through
 * libuv after what is queued, as any answer: the answers stay in order. */
static void send_file(struct kixd_http_conn *c, int fd, uint64_t size)
{
    uv_os_fd_t sock;
    off_t off = 0;

    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) == 0 &&
        uv_fileno((uv_handle_t *)&c->tcp, &sock) == 0) {
        while (c->out.len > 0) {
            /* no MSG_MORE: holding the headers back for the body's first
             * bytes made kixd 15-25% slower than nginx, which sends them
             * apart too (RESULTS.md, "Round four, closing figures") */
            ssize_t n = send(sock, c->out.ptr, c->out.len, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            if (n < 0) {
                hconn_close(c, strerror(errno));
                return;
            }
            out_consume(c, (size_t)n);
        }
        while (c->out.len == 0 && (uint64_t)off < size) {
            ssize_t n = sendfile(sock, fd, &off, (size_t)(size - (uint64_t)off));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            if (n <= 0) {
                if (n == 0)
                    kixd_log(KIXD_WARN, "http %s: a bundle file is shorter than when opened",
                             c->peer);
                hconn_close(c, n == 0 ? "bundle file unreadable" : strerror(errno));
                return;
            }
        }
    }
    if ((uint64_t)off < size)
        out_add_file(c, fd, off, size);
}

/* ---- answers ------------------------------------------------------------------------- */

static const char *reason(unsigned code)
{
    switch (code) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 204:
        return "No Content";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 411:
        return "Length Required";
    case 422:
        return "Unprocessable Entity";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    case 507:
        return "Insufficient Storage";
    default:
        return "Internal Server Error";
    }
}

/* --http-access-log: one line about the request just answered. */
static void access_log(struct kixd_http_conn *c, unsigned code, size_t bytes)
{
    char path[URL_MAX + 1];
    size_t n = 0;

    if (!c->w->srv->cfg->http_access_log)
        return;
    for (; n < c->url_len && n < URL_MAX; n++) {
        unsigned char ch = (unsigned char)c->url[n];
        path[n] = ch < 0x21 || ch > 0x7e ? '?' : (char)ch;
    }
    path[n] = '\0';
    kixd_log_access(c->url_len == 0 ? "-" : http_method_str(c->parser.method), n ? path : "-", code,
                    bytes, kixd_now_ms() - c->started_ms, c->peer);
}

/* The strong ETag of an immutable resource: BLAKE2b-128 of the log's key
 * and the path (its bytes never change), so that neither the bytes need
 * hashing nor a revalidation needs them read. */
static void immutable_etag(struct kixd_http_conn *c, const char *path, size_t len, char etag[40])
{
    const char *key = c->w->srv->log_key;
    crypto_generichash_state st;
    uint8_t hash[16];

    crypto_generichash_init(&st, NULL, 0, sizeof(hash));
    crypto_generichash_update(&st, (const uint8_t *)key, strlen(key) + 1);
    crypto_generichash_update(&st, (const uint8_t *)path, len);
    crypto_generichash_final(&st, hash, sizeof(hash));
    etag[0] = '"';
    sodium_bin2hex(etag + 1, 38, hash, sizeof(hash));
    strcat(etag, "\"");
}

static int etag_matches(const struct kixd_http_conn *c, const char *etag)
{
    return c->etag_len == strlen(etag) && memcmp(c->etag_in, etag, c->etag_len) == 0;
}

/* Appends one answer to c->out. body may be NULL (len 0); head: no body.
 * A 200 gets the ETag `tag` (NULL: BLAKE2b-128 of the body). */
static void answer_tagged(struct kixd_http_conn *c, int kind, unsigned code, const char *type,
                          const char *cache, const uint8_t *body, size_t len, int head,
                          const char *tag)
{
    uint8_t hash[16];
    char etag[40] = "";
    size_t before = c->out.len;
    int rc;

    if (code == 200 && cache) {
        if (tag) {
            snprintf(etag, sizeof(etag), "%s", tag);
        } else {
            crypto_generichash(hash, sizeof(hash), body, len, NULL, 0);
            etag[0] = '"';
            sodium_bin2hex(etag + 1, sizeof(etag) - 2, hash, sizeof(hash));
            strcat(etag, "\"");
        }
        if (etag_matches(c, etag))
            code = 304;
    }
    rc = kix_buf_addf(&c->out,
                      "HTTP/1.1 %u %s\r\nServer: kixd/" KIX_VERSION_STRING "\r\n"
                      "X-Content-Type-Options: nosniff\r\n",
                      code, reason(code));
    if (rc)
        goto out;
    if (!c->allow_origin)
        rc = kix_buf_addf(&c->out, "Access-Control-Allow-Origin: *\r\n");
    else if (*c->allow_origin)
        rc = kix_buf_addf(&c->out, "Access-Control-Allow-Origin: %s\r\nVary: Origin\r\n",
                          c->allow_origin);
    if (rc)
        goto out;
    if (code == 405 && (rc = kix_buf_addf(&c->out, "Allow: %s\r\n",
                                          c->submit_refuse ? "POST, OPTIONS"
                                          : c->allow_post  ? "POST"
                                                           : "GET, HEAD")))
        goto out;
    if (c->vary_accept && (rc = kix_buf_addf(&c->out, "Vary: Accept\r\n")))
        goto out;
    if (c->extra_headers && (rc = kix_buf_adds(&c->out, c->extra_headers)))
        goto out;
    if (etag[0] && cache) /* etag[0] implies cache: said for gcc -O3 */
        rc = kix_buf_addf(&c->out, "ETag: %s\r\nCache-Control: %s\r\n", etag, cache);
    else
        rc = kix_buf_addf(&c->out, "Cache-Control: no-store\r\n");
    if (rc)
        goto out;
    if (code != 304 &&
        (rc = kix_buf_addf(&c->out, "Content-Type: %s\r\nContent-Length: %zu\r\n", type, len)))
        goto out;
    if (c->close_after && (rc = kix_buf_addf(&c->out, "Connection: close\r\n")))
        goto out;
    if ((rc = kix_buf_add(&c->out, (const uint8_t *)"\r\n", 2)))
        goto out;
    if (code == 304 || head)
        c->body_from_file = 0;
    if (!head && code != 304 && len && !c->body_from_file)
        rc = kix_buf_add(&c->out, body, len);
out:
    if (rc) {
        hconn_close(c, "out of memory answering");
        return;
    }
    kixd_metrics_http_answer(c->w->srv, kind, code,
                             c->out.len - before + (c->body_from_file ? len : 0));
    access_log(c, code, c->out.len - before + (c->body_from_file ? len : 0));
}

static void answer(struct kixd_http_conn *c, int kind, unsigned code, const char *type,
                   const char *cache, const uint8_t *body, size_t len, int head)
{
    answer_tagged(c, kind, code, type, cache, body, len, head, NULL);
}

static void answer_text(struct kixd_http_conn *c, int kind, unsigned code, const char *text,
                        int head)
{
    answer(c, kind, code, "text/plain; charset=utf-8", NULL, (const uint8_t *)text, strlen(text),
           head);
}

/* ---- what http_submit.c borrows (http_internal.h) ---------------------------------- */

void kixd_http_answer_json(struct kixd_http_conn *c, unsigned code, const char *extra_headers,
                           const uint8_t *body, size_t len)
{
    c->extra_headers = extra_headers;
    answer(c, K_SUBMIT, code, "application/json", NULL, body, len, 0);
    c->extra_headers = NULL;
}

void kixd_http_hold(struct kixd_http_conn *c)
{
    c->waiting = 1;
    c->refs++;
}

int kixd_http_closing(const struct kixd_http_conn *c)
{
    return c->closing;
}

void kixd_http_resume(struct kixd_http_conn *c)
{
    c->waiting = 0;
    if (!c->closing)
        process(c);
    hconn_unref(c);
}

/* Decodes %XX in s[0..len) into out (cap bytes); the length, or -1. */
static long unescape(const char *s, size_t len, char *out, size_t cap)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (ch == '%') {
            unsigned v = 0;
            for (int k = 1; k <= 2; k++) {
                char d = i + (size_t)k < len ? s[i + (size_t)k] : 0;
                v = v * 16 + (unsigned)(d >= '0' && d <= '9'   ? d - '0'
                                        : d >= 'a' && d <= 'f' ? d - 'a' + 10
                                        : d >= 'A' && d <= 'F' ? d - 'A' + 10
                                                               : 999);
            }
            if (v > 255)
                return -1;
            ch = (char)v;
            i += 2;
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = ch;
    }
    out[n] = '\0';
    return (long)n;
}

/* ---- pages, rendered on the thread pool ------------------------------------------------ */

/* A page renderer (kix/pages.h): the page or document of `arg` (len bytes,
 * unescaped; empty for the home page); `page` is a group's page (?page=N,
 * 1 on), which the other kinds ignore. */
typedef int (*page_fn)(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                       struct kix_buf *out, struct kix_err *err);

static int run_html(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                    struct kix_buf *out, struct kix_err *err)
{
    (void)page;
    return kix_page_run_html(src, arg, len, out, err);
}

static int run_json(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                    struct kix_buf *out, struct kix_err *err)
{
    (void)page;
    return kix_page_run_json(src, arg, len, out, err);
}

static int group_html(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                      struct kix_buf *out, struct kix_err *err)
{
    return kix_page_group_html_at(src, arg, len, page, 0, out, err);
}

static int group_json(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                      struct kix_buf *out, struct kix_err *err)
{
    return kix_page_group_json_at(src, arg, len, page, out, err);
}

static int home_html(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                     struct kix_buf *out, struct kix_err *err)
{
    (void)arg;
    (void)len;
    (void)page;
    return kix_page_home_html(src, out, err);
}

static int home_json(struct kix_source *src, const char *arg, size_t len, uint64_t page,
                     struct kix_buf *out, struct kix_err *err)
{
    (void)arg;
    (void)len;
    (void)page;
    return kix_page_home_json(src, 1, out, err);
}

/* Every kind of page, each with its JSON document (the view it renders):
 * <prefix><arg> is the HTML, <prefix><arg>.json the JSON, and the HTML's
 * own address gives the JSON to `Accept: application/json` (PROTOCOL.md §3,
 * "Pages and their JSON"); <prefix><arg>.html is the HTML too (the
 * export's name of it for servers that type files by extension). The home page is "" or
 * "index.html", its JSON "index.json". A kind without a JSON document (json NULL) has no .json and
 * ignores Accept. The browsing pages (home/<k>, kernels/, search/: kix_page_browse_path)
 * are routed by kix_page_browse itself. */
static const struct page_kind {
    const char *prefix;
    page_fn html, json;
} PAGE_KINDS[] = {
    {"runs/", run_html, run_json},
    {"groups/", group_html, group_json}, /* ?page=N: the group's page N */
    {"", home_html, home_json},          /* the home page: last, its prefix matches anything */
};

struct pjob {
    uv_work_t req;
    struct kixd_http_conn *c;
    struct kixd_server *srv;
    struct kix_log *log;
    page_fn fn; /* NULL: a browsing page, by kix_page_browse */
    int browse, json, head, rc;
    int kind;       /* 0 a browsing page, else 1 + its PAGE_KINDS index (the cache key) */
    int json_asked; /* json before a browsing page said which it is (the cache key) */
    uint64_t page;  /* a group's page (?page=N), 1 on */
    uint64_t size;  /* the log's size in the snapshot it was rendered from */
    char arg[256];
    size_t len;
    struct kix_buf out;
    struct kix_err err;
};

/* Thread pool: the page from a read snapshot of its own, so the loop
 * never waits for a render (the home page reads every ranked group). */
static void page_work(uv_work_t *req)
{
    struct pjob *j = req->data;
    struct kix_log_reader *r = NULL;

    struct kix_log_reader *v = NULL;
    struct kix_source *src = NULL;
    int locked = 0;

    j->rc = kix_log_read_begin(j->log, &r);
    if (j->rc) {
        kix_err_set(&j->err, j->rc, "cannot read the log: %s", kix_strerror(j->rc));
        return;
    }
    /* the readers' view with --ack-replicas (replicas.h): a page never
     * shows an entry N mirrors do not hold */
    j->rc = kixd_replicas_view(j->srv, r, &v, &locked, &j->err);
    /* the pages read that snapshot as a source, through the views */
    if (j->rc == KIX_OK)
        j->rc = kix_source_open_snapshot(j->log, v, &src, &j->err);
    if (j->rc == KIX_OK) {
        j->size = kix_log_reader_size(v);
        j->rc = j->browse
                    ? kix_page_browse(src, j->arg, j->len, j->json, &j->out, &j->json, &j->err)
                    : j->fn(src, j->arg, j->len, j->page, &j->out, &j->err);
    }
    kix_source_close(src);
    kixd_replicas_view_end(j->srv, locked);
    kix_log_read_end(r);
}

/* Loop thread: only writes the answer. */
static void page_done(uv_work_t *req, int status)
{
    struct pjob *j = req->data;
    struct kixd_http_conn *c = j->c;
    struct kixd_worker *w = c->w;

    c->waiting = 0;
    if (!c->closing) {
        if (status != 0)
            answer_text(c, K_PAGE, 503, "kixd is stopping; send it again later\n", j->head);
        else if (j->rc == KIX_ENOTFOUND || j->rc == KIX_EINVAL)
            answer_text(c, K_PAGE, 404, "not found: no such page in this log\n", j->head);
        else if (j->rc) {
            kixd_log(KIXD_WARN, "http %s: GET %s failed: %s", c->peer, c->url,
                     kix_err_text(&j->err, j->rc));
            answer_text(c, K_PAGE, 500, "internal error (see the server's log)\n", j->head);
        } else {
            struct kixd_page_key key = {j->kind, j->arg, j->len, j->page, j->json_asked};
            kixd_metrics_page_rendered(w->srv);
            kixd_page_cache_put(w, &key, j->size, j->json, j->out.ptr, j->out.len);
            answer(c, K_PAGE, 200, j->json ? "application/json" : "text/html; charset=utf-8", EDGE,
                   j->out.ptr, j->out.len, j->head);
        }
        process(c);
    }
    kix_buf_release(&j->out);
    free(j);
    w->jobs--;
    hconn_unref(c);
    kixd_worker_check_drained(w);
}

/* A group page's ?page=N (1 when absent or not a number). */
static uint64_t group_page_asked(const char *url, size_t len)
{
    const char *q = memchr(url, '?', len);
    uint64_t n = 0;

    if (!q || (size_t)(url + len - q) < 7 || memcmp(q, "?page=", 6) != 0)
        return 1;
    for (q += 6; q < url + len && *q >= '0' && *q <= '9' && n < 1000000000; q++)
        n = n * 10 + (uint64_t)(*q - '0');
    return n ? n : 1;
}

/* Which page `path` (len bytes, the target without its leading '/') is:
 * its kind, its argument unescaped into arg (cap bytes; *n its length, -1
 * when it does not unescape) and whether the JSON is asked for, by
 * ".json" or by `accept_json`. NULL: no page. */
static const struct page_kind *page_of(const char *path, size_t len, int accept_json, char *arg,
                                       size_t cap, long *n, int *json)
{
    static const size_t nkinds = sizeof(PAGE_KINDS) / sizeof(PAGE_KINDS[0]);
    const struct page_kind *k = NULL;

    *n = 0;
    *json = 0;
    if (len == 0 || (len == 10 && memcmp(path, "index.html", 10) == 0) ||
        (len == 10 && memcmp(path, "index.json", 10) == 0)) {
        k = &PAGE_KINDS[nkinds - 1];
        *json = k->json && (len == 10 ? path[6] == 'j' : accept_json);
        return len == 10 && path[6] == 'j' && !k->json ? NULL : k;
    }
    for (size_t i = 0; i + 1 < nkinds && !k; i++) {
        size_t pl = strlen(PAGE_KINDS[i].prefix);
        if (len > pl && memcmp(path, PAGE_KINDS[i].prefix, pl) == 0) {
            k = &PAGE_KINDS[i];
            *n = unescape(path + pl, len - pl, arg, cap);
        }
    }
    if (!k || *n < 0)
        return k;
    if (k->json && *n > 5 && memcmp(arg + *n - 5, ".json", 5) == 0) {
        *n -= 5;
        arg[*n] = '\0';
        *json = 1;
    } else if (*n > 5 && memcmp(arg + *n - 5, ".html", 5) == 0) {
        /* the export's <page>.html, for servers that type by extension */
        *n -= 5;
        arg[*n] = '\0';
    } else {
        *json = k->json && accept_json;
    }
    return k;
}

/* Answers the page `key` from the worker's pages of the last second at
 * the log's current size (http_pages_cache.h), when it is there: 1. */
static int cached_page(struct kixd_http_conn *c, const struct kixd_page_key *key, int head)
{
    struct kix_log_reader *r = NULL;
    struct kix_bytes body;
    struct kix_err err = {0};
    int json;

    if (kixd_worker_reader(c->w, &r, &err) != KIX_OK ||
        !kixd_page_cache_get(c->w, key, kix_log_reader_size(r), &body, &json))
        return 0;
    answer(c, K_PAGE, 200, json ? "application/json" : "text/html; charset=utf-8", EDGE, body.ptr,
           body.len, head);
    return 1;
}

/* The pages (kix/pages.h): PAGE_KINDS, and the pages' script
 * KIX_PAGE_SCRIPT_PATH and style sheet KIX_PAGE_STYLE_PATH. Returns 0 when
 * path is none of them. A page is rendered on the thread pool
 * (page_work); its answer comes later (page_done). */
static int page(struct kixd_http_conn *c, const char *path, size_t len, int head)
{
    const struct page_kind *k;
    struct kixd_page_key key;
    struct pjob *j;
    char arg[256];
    long n = 0;
    int json = 0, browse = 0;

    if (len == sizeof(KIX_PAGE_SCRIPT_PATH) - 1 &&
        memcmp(path, KIX_PAGE_SCRIPT_PATH, len) == 0) { /* the pages' verifier */
        struct kix_bytes js;
        kix_page_script(&js);
        answer(c, K_PAGE, 200, "text/javascript; charset=utf-8", EDGE, js.ptr, js.len, head);
        return 1;
    }
    if (len == sizeof(KIX_PAGE_WRITE_PATH) - 1 && memcmp(path, KIX_PAGE_WRITE_PATH, len) == 0) {
        struct kix_bytes js;
        kix_page_write_script(&js);
        answer(c, K_PAGE, 200, "text/javascript; charset=utf-8", EDGE, js.ptr, js.len, head);
        return 1;
    }
    if (len == sizeof(KIX_PAGE_SEARCH_PATH) - 1 && memcmp(path, KIX_PAGE_SEARCH_PATH, len) == 0) {
        struct kix_bytes js;
        kix_page_search_script(&js);
        answer(c, K_PAGE, 200, "text/javascript; charset=utf-8", EDGE, js.ptr, js.len, head);
        return 1;
    }
    if (len == sizeof(KIX_PAGE_STYLE_PATH) - 1 && memcmp(path, KIX_PAGE_STYLE_PATH, len) == 0) {
        struct kix_bytes css;
        kix_page_style(&css);
        answer(c, K_PAGE, 200, "text/css; charset=utf-8", EDGE, css.ptr, css.len, head);
        return 1;
    }
    if (len == sizeof(KIX_PAGE_VKEY_PATH) - 1 && memcmp(path, KIX_PAGE_VKEY_PATH, len) == 0) {
        /* the key, as a static copy's log.vkey: kix trust reads either */
        char text[sizeof(c->w->srv->log_key) + 1];
        int tn = snprintf(text, sizeof(text), "%s\n", c->w->srv->log_key);
        answer(c, K_PAGE, 200, "text/plain; charset=utf-8", EDGE, (const uint8_t *)text, (size_t)tn,
               head);
        return 1;
    }
    k = page_of(path, len, c->accept_json, arg, sizeof(arg), &n, &json);
    if (!k && kix_page_browse_path(path, len)) { /* home/, kernels/, search/ */
        browse = 1;
        n = unescape(path, len, arg, sizeof(arg));
        json = c->accept_json; /* kix_page_browse reads the path's ".json" */
    } else if (!k)
        return 0;
    /* one address, two documents: a cache keys the answer by Accept too */
    c->vary_accept = browse || k->json != NULL;
    if (n < 0) {
        answer_text(c, K_PAGE, 404, "not found\n", head);
        return 1;
    }
    key = (struct kixd_page_key){browse ? 0 : 1 + (int)(k - PAGE_KINDS), arg, (size_t)n,
                                 group_page_asked(c->url, c->url_len), json};
    if (cached_page(c, &key, head))
        return 1;
    if (!(j = calloc(1, sizeof(*j)))) {
        c->close_after = 1;
        answer_text(c, K_PAGE, 503, "cannot queue the request; retry\n", head);
        return 1;
    }
    j->c = c;
    j->log = c->w->srv->log;
    j->srv = c->w->srv;
    j->fn = browse ? NULL : json ? k->json : k->html;
    j->browse = browse;
    j->kind = key.kind;
    j->page = key.page;
    j->json = j->json_asked = json;
    j->head = head;
    j->len = (size_t)n;
    memcpy(j->arg, arg, (size_t)n);
    j->req.data = j;
    kix_buf_init(&j->out);
    if (uv_queue_work(&c->w->loop, &j->req, page_work, page_done) != 0) {
        free(j);
        c->close_after = 1;
        answer_text(c, K_PAGE, 503, "cannot queue the request; retry\n", head);
        return 1;
    }
    c->waiting = 1;
    c->refs++;
    c->w->jobs++;
    return 1;
}

/* objects/sha256:<hex>: a stored object's canonical bytes by digest. */
static int object_answer(struct kix_log_reader *r, const char *path, size_t len,
                         struct kix_buf *out, struct kix_err *err)
{
    struct kix_digest d;
    struct kix_bytes v;
    int rc;

    if (kix_digest_parse(path + 8, len - 8, &d, NULL) != KIX_OK)
        return KIX_ENOTFOUND;
    rc = kix_log_reader_object(r, &d, &v);
    if (rc == KIX_OK && kix_buf_add(out, v.ptr, v.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    return rc;
}

/* index/: the verifiable index as files (kix/vindex.h): the note at a
 * size, and the current tree's tiles and records, each only under the name
 * its content gives (a tile or record since replaced is 404: the reader
 * fetches the latest note again). Notes, tiles and records are immutable. */
static int index_answer(struct kix_log_reader *r, const char *path, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    struct kix_hash want, got;
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    const char *slash = len > 64 ? path + len - 65 : NULL;
    char text[256];
    int rc;

    if (len > 12 && len < 40 && memcmp(path, "index/notes/", 12) == 0) {
        uint64_t size = 0;
        for (size_t i = 12; i < len; i++) {
            if (path[i] < '0' || path[i] > '9' || (i == 12 && path[i] == '0' && len > 13) ||
                size > (UINT64_MAX - 9) / 10)
                return KIX_ENOTFOUND;
            size = size * 10 + (uint64_t)(path[i] - '0');
        }
        return kix_log_reader_index_note_cosigned(r, size, out, NULL);
    }
    /* the hash after the last '/' (a tile) or '@' (a record) */
    if (!slash || (*slash != '/' && *slash != '@') ||
        kix_hex_decode(slash + 1, 64, want.b, 32) != KIX_OK)
        return KIX_ENOTFOUND;
    if (len > 11 + 65 && *slash == '/' && memcmp(path, "index/tile/", 11) == 0) {
        size_t hex = (size_t)(slash - path) - 11;
        if (hex % 2 || hex == 0 || hex / 2 > sizeof(key) ||
            kix_hex_decode(path + 11, hex, key, hex / 2) != KIX_OK)
            return KIX_ENOTFOUND;
        rc = kix_index_tile(r, key, hex / 2, out, err);
        if (rc == KIX_OK && (kix_smt_tile_top_hash(out->ptr, out->len, &got) != KIX_OK ||
                             memcmp(got.b, want.b, 32) != 0))
            rc = KIX_ENOTFOUND;
        return rc;
    }
    if (len > 12 + 65 && *slash == '@' && memcmp(path, "index/value/", 12) == 0 &&
        (size_t)(slash - path) - 12 < sizeof(text)) {
        size_t klen = (size_t)(slash - path) - 12;
        memcpy(text, path + 12, klen);
        rc = kix_index_value(r, text, klen, out, err);
        if (rc == KIX_OK) {
            kix_smt_value_hash(out->ptr, out->len, &got);
            if (memcmp(got.b, want.b, 32) != 0)
                rc = KIX_ENOTFOUND;
        }
        return rc;
    }
    return KIX_ENOTFOUND;
}

/* A file of the snapshot that fn reads: objects/ and index/. Every one is
 * named by its content (immutable) but the index notes, which may still
 * gather cosignatures. */
static void snapshot_file(struct kixd_http_conn *c, const char *path, size_t len, int head,
                          int (*fn)(struct kix_log_reader *, const char *, size_t, struct kix_buf *,
                                    struct kix_err *),
                          const char *type)
{
    struct kixd_worker *w = c->w;
    struct kix_log_reader *r = NULL;
    struct kix_err err = {0};
    char tag[40];
    int rc = kixd_worker_reader(w, &r, &err);

    kix_buf_reset(&w->scratch);
    if (rc == KIX_OK)
        rc = fn(r, path, len, &w->scratch, &err);
    if (rc == KIX_ENOTFOUND || rc == KIX_EINVAL) {
        answer_text(c, K_OTHER, 404, "not found: not in this log at its current size\n", head);
        return;
    }
    if (rc) {
        kixd_log(KIXD_WARN, "http %s: GET /%.*s failed: %s", c->peer, (int)len, path,
                 kix_err_text(&err, rc));
        answer_text(c, K_OTHER, 500, "internal error (see the server's log)\n", head);
        return;
    }
    if (len > 12 && memcmp(path, "index/notes/", 12) == 0) {
        answer(c, K_OTHER, 200, "text/plain; charset=utf-8", EDGE, w->scratch.ptr, w->scratch.len,
               head);
        return;
    }
    immutable_etag(c, path, len, tag);
    answer_tagged(c, K_OTHER, 200, type, IMMUTABLE, w->scratch.ptr, w->scratch.len, head, tag);
}

/* A full bundle or its object pack, from its file (http_bundles.h): the
 * headers, then the file's bytes; or, when it is not kept as a file, as
 * assembled. KIX_OK when answered, else the error, nothing sent. */
static int kept_file(struct kixd_http_conn *c, struct kix_log_reader *r, int kind,
                     enum kixd_kept_file what, uint64_t index, const char *tag, int head,
                     struct kix_err *err)
{
    struct kixd_worker *w = c->w;
    uint64_t size;
    int fd, rc;

    kix_buf_reset(&w->scratch);
    rc = kixd_bundle_open(w, r, what, index, &fd, &size, &w->scratch, err);
    if (rc)
        return rc;
    if (fd >= 0) {
        c->body_from_file = 1; /* answer_tagged clears it when it sends no body */
        answer_tagged(c, kind, 200, "application/octet-stream", IMMUTABLE, NULL, (size_t)size, head,
                      tag);
        if (c->body_from_file && !c->closing)
            send_file(c, fd, size);
        c->body_from_file = 0;
        return KIX_OK;
    }
    answer_tagged(c, kind, 200, "application/octet-stream", IMMUTABLE, w->scratch.ptr,
                  w->scratch.len, head, tag);
    return KIX_OK;
}

/* objects/entries/<N>: the object pack of full bundle N (kix/object_pack.h);
 * none (404) for a bundle not full, or a pack over its bound, which a
 * reader then does without. */
static void object_pack(struct kixd_http_conn *c, const char *path, size_t len, int head)
{
    struct kixd_worker *w = c->w;
    char bundle[KIX_TLOG_PATH_MAX + 1], tag[40];
    struct kix_log_reader *r = NULL;
    struct kix_tlog_path p;
    struct kix_err err = {0};
    int rc;

    /* <N> is spelled as the bundle's: parsed as tile/entries/<N> */
    if (len - 16 <= KIX_TLOG_PATH_MAX - 13) {
        memcpy(bundle, "tile/entries/", 13);
        memcpy(bundle + 13, path + 16, len - 16);
    }
    if (len - 16 > KIX_TLOG_PATH_MAX - 13 ||
        kix_tlog_path_parse(bundle, 13 + len - 16, &p) != KIX_OK || p.width != KIX_TLOG_WIDTH) {
        answer_text(c, K_OTHER, 404, "not found: objects/entries/<N> names a full bundle's pack\n",
                    head);
        return;
    }
    rc = kixd_worker_reader(w, &r, &err);
    if (rc == KIX_OK && kix_tlog_tile_width(kix_log_reader_size(r), 0, p.index) != KIX_TLOG_WIDTH)
        rc = KIX_ENOTFOUND;
    if (rc == KIX_OK) {
        immutable_etag(c, path, len, tag);
        if (etag_matches(c, tag)) {
            answer_tagged(c, K_OTHER, 200, "application/octet-stream", IMMUTABLE, NULL, 0, head,
                          tag);
            return;
        }
        rc = kept_file(c, r, K_OTHER, KIXD_KEPT_PACK, p.index, tag, head, &err);
    }
    if (rc == KIX_OK)
        return;
    if (rc == KIX_ENOTFOUND || rc == KIX_ELIMIT) {
        answer_text(c, K_OTHER, 404,
                    rc == KIX_ELIMIT ? "not found: this bundle's objects are over a pack's bound\n"
                                     : "not found: not a full bundle at the log's current size\n",
                    head);
        return;
    }
    kixd_log(KIXD_WARN, "http %s: GET /%.*s failed: %s", c->peer, (int)len, path,
             kix_err_text(&err, rc));
    answer_text(c, K_OTHER, 500, "internal error (see the server's log)\n", head);
}

/* Answers the request in c->url (method GET or HEAD). */
static void respond_from(struct kixd_http_conn *c, int head)
{
    struct kixd_worker *w = c->w;
    struct kix_log_reader *r = NULL;
    struct kix_tlog_path p;
    struct kix_err err = {0};
    const char *path = c->url;
    char tag[40];
    size_t len = c->url_len, q;
    uint64_t held = UINT64_MAX; /* the checkpoint size readers are given, when less */
    int rc, kind;

    for (q = 0; q < len && path[q] != '?' && path[q] != '#'; q++)
        ;
    len = q;
    if (len == 0 || path[0] != '/') {
        answer_text(c, K_OTHER, 400, "bad request target\n", head);
        return;
    }
    path++;
    len--;
    if (len == 7 && memcmp(path, "metrics", 7) == 0 && w->srv->cfg->http_metrics) {
        kix_buf_reset(&w->scratch);
        if (kixd_metrics_text(w, &w->scratch) != KIX_OK) {
            answer_text(c, K_METRICS, 500, "out of memory\n", head);
            return;
        }
        /* no ETag or caching for a scrape */
        rc = kix_buf_addf(&c->out,
                          "HTTP/1.1 200 OK\r\nServer: kixd/" KIX_VERSION_STRING "\r\n"
                          "Cache-Control: no-store\r\n"
                          "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                          "Content-Length: %zu\r\n%s\r\n",
                          w->scratch.len, c->close_after ? "Connection: close\r\n" : "");
        if (!rc && !head)
            rc = kix_buf_add(&c->out, w->scratch.ptr, w->scratch.len);
        if (rc) {
            hconn_close(c, "out of memory answering");
        } else {
            kixd_metrics_http_answer(w->srv, K_METRICS, 200, w->scratch.len);
            access_log(c, 200, w->scratch.len);
        }
        return;
    }
    if (page(c, path, len, head))
        return;
    if (len == 6 && memcmp(path, "policy", 6) == 0) {
        kixd_http_policy(c, w); /* (a HEAD gets the body too: it is small and never cached) */
        return;
    }
    if (w->srv->tlogw && len == 64 + 11 && memcmp(path + 64, "/checkpoint", 11) == 0) {
        /* a witness's monitoring path: <hex SHA-256 of the origin>/checkpoint */
        kix_buf_reset(&w->scratch);
        rc = kixd_tlogw_monitor(w->srv->tlogw, path, &w->scratch, &err);
        if (rc == KIX_OK)
            answer(c, K_WITNESS, 200, "text/plain; charset=utf-8", EDGE, w->scratch.ptr,
                   w->scratch.len, head);
        else
            answer_text(c, K_WITNESS, rc == KIX_ENOTFOUND ? 404 : 500,
                        rc == KIX_ENOTFOUND ? "not found: this witness never cosigned that log\n"
                                            : "internal error (see the server's log)\n",
                        head);
        return;
    }
    if (len > 16 && memcmp(path, "objects/entries/", 16) == 0) {
        object_pack(c, path, len, head);
        return;
    }
    if (len > 8 && memcmp(path, "objects/", 8) == 0) {
        snapshot_file(c, path, len, head, object_answer, "application/json");
        return;
    }
    if (len > 6 && memcmp(path, "index/", 6) == 0) {
        snapshot_file(c, path, len, head, index_answer, "application/octet-stream");
        return;
    }
    if (kix_tlog_path_parse(path, len, &p) != KIX_OK) {
        answer_text(c, K_OTHER, 404,
                    "not found: this server answers the C2SP tlog-tiles paths checkpoint, "
                    "tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]\n",
                    head);
        return;
    }
    kind = p.kind == KIX_TLOG_CHECKPOINT ? K_CHECKPOINT
           : p.kind == KIX_TLOG_TILE     ? K_TILE
                                         : K_ENTRIES;
    rc = kixd_worker_reader(w, &r, &err);
    if (rc == KIX_OK && p.kind != KIX_TLOG_CHECKPOINT && p.width == KIX_TLOG_WIDTH) {
        /* immutable: revalidated without reading it */
        immutable_etag(c, path, len, tag);
        if (etag_matches(c, tag) &&
            kix_tlog_tile_width(kix_log_reader_size(r), p.level, p.index) == KIX_TLOG_WIDTH) {
            answer_tagged(c, kind, 200, "application/octet-stream", IMMUTABLE, NULL, 0, head, tag);
            return;
        }
    }
    if (rc == KIX_OK && p.kind == KIX_TLOG_ENTRIES && p.width == KIX_TLOG_WIDTH &&
        kix_tlog_tile_width(kix_log_reader_size(r), 0, p.index) == KIX_TLOG_WIDTH) {
        rc = kept_file(c, r, kind, KIXD_KEPT_BUNDLE, p.index, tag, head, &err);
        if (rc == KIX_OK)
            return;
    }
    kix_buf_reset(&w->scratch);
    if (rc == KIX_OK && p.kind == KIX_TLOG_CHECKPOINT) {
        /* the size readers are given, as over RPC (replicas.h) */
        rc = kixd_replicas_reader_size(w->srv, kix_log_reader_size(r), &held, &err);
        if (rc == KIX_EUNAVAIL) {
            char text[sizeof(err.msg) + 1];
            snprintf(text, sizeof(text), "%s\n", err.msg);
            answer_text(c, kind, 503, text, head);
            return;
        }
    }
    if (rc == KIX_OK && held < kix_log_reader_size(r))
        rc = kix_log_reader_checkpoint_cosigned(r, held, &w->scratch, &err);
    else if (rc == KIX_OK)
        rc = kix_log_reader_tlog(r, &p, &w->scratch, &err);
    if (rc == KIX_ENOTFOUND) {
        answer_text(c, kind, 404, "not found: not in the tree at its current size\n", head);
        return;
    }
    if (rc) {
        kixd_log(KIXD_WARN, "http %s: GET /%.*s failed: %s", c->peer, (int)len, path,
                 kix_err_text(&err, rc));
        answer_text(c, kind, 500, "internal error (see the server's log)\n", head);
        return;
    }
    if (p.kind == KIX_TLOG_CHECKPOINT)
        answer(c, kind, 200, "text/plain; charset=utf-8", EDGE, w->scratch.ptr, w->scratch.len,
               head);
    else
        answer_tagged(c, kind, 200, "application/octet-stream",
                      p.width == KIX_TLOG_WIDTH ? IMMUTABLE : EDGE, w->scratch.ptr, w->scratch.len,
                      head, p.width == KIX_TLOG_WIDTH ? tag : NULL);
}

/* Answers the request from the readers' view (replicas.h): with
 * --ack-replicas, the checkpoint, tiles, bundles, index files and pages of
 * the size N mirrors hold, never past it. Before they hold anything the
 * worker's snapshot stays (the checkpoint is then 503, and nothing past
 * it can be pinned without one). */
static void respond(struct kixd_http_conn *c, int head)
{
    struct kixd_worker *w = c->w;
    struct kix_log_reader *view = NULL;
    int locked = 0;

    if (kixd_replicas_visible(w->srv) && kixd_worker_view(w, &view, &locked, NULL) == KIX_OK)
        w->view = view;
    respond_from(c, head);
    w->view = NULL;
    kixd_replicas_view_end(w->srv, locked);
}

/* ---- parsing ---------------------------------------------------------------------------- */

static int count_header(struct kixd_http_conn *c, size_t len)
{
    c->header_bytes += len;
    if (c->header_bytes > c->w->srv->cfg->http_max_header) {
        c->refuse = 431;
        return 1; /* stops the parser */
    }
    return 0;
}

static int on_message_begin(http_parser *p)
{
    struct kixd_http_conn *c = p->data;

    c->url_len = c->etag_len = c->header_bytes = 0;
    c->header_is_inm = c->header_is_accept = c->accept_json = c->vary_accept = 0;
    c->refuse = 0;
    c->allow_post = c->witness = c->submit = c->preflight = c->enroll = 0;
    c->submit_refuse = 0;
    c->header_is_origin = 0;
    c->origin_len = 0;
    c->origin[0] = '\0';
    c->allow_origin = NULL;
    c->extra_headers = NULL;
    c->header_is_host = 0;
    c->host_len = 0;
    c->host[0] = '\0';
    c->body_len = 0;
    c->started_ms = kixd_now_ms();
    c->in_message = 1;
    c->msg_since = uv_now(&c->w->loop);
    return 0;
}

static int on_url(http_parser *p, const char *at, size_t len)
{
    struct kixd_http_conn *c = p->data;

    if (count_header(c, len))
        return 1;
    if (c->url_len + len > URL_MAX) {
        c->refuse = 431;
        return 1;
    }
    memcpy(c->url + c->url_len, at, len);
    c->url_len += len;
    c->url[c->url_len] = '\0';
    return 0;
}

static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct kixd_http_conn *c = p->data;

    /* + ": " and CRLF; whitespace beyond that is bounded by http-parser's
     * own limit on a message's head (HTTP_MAX_HEADER_SIZE, 80 KiB) */
    if (count_header(c, len + 4))
        return 1;
    /* a field arrives in one piece unless a read splits it: then the
     * rare split If-None-Match is just not honoured */
    c->header_is_inm = len == 13 && strncasecmp(at, "if-none-match", 13) == 0;
    c->header_is_accept = len == 6 && strncasecmp(at, "accept", 6) == 0;
    c->header_is_origin = len == 6 && strncasecmp(at, "origin", 6) == 0;
    c->header_is_host = len == 4 && strncasecmp(at, "host", 4) == 0;
    return 0;
}

static int contains(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0)
            return 1;
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct kixd_http_conn *c = p->data;

    if (count_header(c, len))
        return 1;
    if (c->header_is_accept) {
        /* a value split across reads is judged piece by piece: good enough */
        if (contains(at, len, "application/json"))
            c->accept_json = 1;
        if (contains(at, len, "text/html"))
            c->accept_json = 0;
    }
    if (c->header_is_origin) {
        if (c->origin_len + len < sizeof(c->origin)) {
            memcpy(c->origin + c->origin_len, at, len);
            c->origin_len += len;
            c->origin[c->origin_len] = '\0';
        } else {
            c->origin_len = 0;
            strcpy(c->origin, "\x01"); /* too long: no origin we allow */
        }
    }
    if (c->header_is_host) {
        if (c->host_len + len < sizeof(c->host)) {
            memcpy(c->host + c->host_len, at, len);
            c->host_len += len;
            c->host[c->host_len] = '\0';
        } else {
            c->host_len = 0;
            strcpy(c->host, "\x01");
        }
    }
    if (c->header_is_inm) {
        if (c->etag_len + len < sizeof(c->etag_in)) {
            memcpy(c->etag_in + c->etag_len, at, len);
            c->etag_len += len;
        } else {
            c->etag_len = 0;
            c->header_is_inm = 0;
        }
    }
    return 0;
}

/* 1 when the request target's path is /add-checkpoint (c2sp.org/tlog-witness). */
static int is_add_checkpoint(const struct kixd_http_conn *c)
{
    static const char path[] = "/add-checkpoint";
    size_t n = sizeof(path) - 1;

    return c->url_len >= n && memcmp(c->url, path, n) == 0 && (c->url_len == n || c->url[n] == '?');
}

static int is_path(const struct kixd_http_conn *c, const char *path)
{
    size_t n = strlen(path);

    return c->url_len >= n && memcmp(c->url, path, n) == 0 && (c->url_len == n || c->url[n] == '?');
}

/* 1 when the request target's path is /submit, or /enroll (a pending key
 * request, http_submit.c): both take a JSON body under the same rules. */
static int is_submit(struct kixd_http_conn *c)
{
    c->enroll = is_path(c, "/enroll");
    return c->enroll || is_path(c, "/submit");
}

/* /submit: the method, the origin and the body's size decide before the
 * body is read; a refusal is answered in JSON once the message is over. */
static void submit_headers(struct kixd_http_conn *c, http_parser *p)
{
    const struct kixd_config *cfg = c->w->srv->cfg;
    size_t max = cfg->max_message;

    if (!cfg->http_submit) {
        c->submit_refuse = 404;
        return;
    }
    /* a browser names its page's origin: only the log's own (the pages
     * kixd serves: no Origin, or this host) or --http-submit-origin */
    if (c->origin[0] && !kixd_http_submit_origin_allowed(cfg, c->origin, c->host)) {
        c->allow_origin = "";
        c->submit_refuse = 403;
        return;
    }
    /* a page of this kixd is same-origin: it needs no CORS header */
    c->allow_origin = c->origin[0] && strcmp(c->origin, cfg->http_submit_origin) == 0
                          ? cfg->http_submit_origin
                          : "";
    if (p->method == HTTP_OPTIONS) {
        c->preflight = 1;
        return;
    }
    if (p->method != HTTP_POST)
        c->submit_refuse = 405;
    else if ((p->flags & F_CHUNKED) || p->content_length == ULLONG_MAX)
        c->submit_refuse = 411;
    else if (p->content_length > max)
        c->submit_refuse = 413;
    else if (p->content_length == 0)
        c->submit_refuse = 400;
    if (c->submit_refuse)
        return;
    if (c->body_cap < p->content_length) {
        char *b = realloc(c->body, p->content_length);
        if (!b) {
            c->submit_refuse = 503;
            return;
        }
        c->body = b;
        c->body_cap = p->content_length;
    }
    c->submit = 1;
}

static int on_headers_complete(http_parser *p)
{
    struct kixd_http_conn *c = p->data;

    if (is_submit(c)) {
        submit_headers(c, p);
        return 0;
    }

    if (c->w->srv->tlogw && is_add_checkpoint(c)) {
        c->allow_post = 1;
        if (p->method != HTTP_POST) {
            c->refuse = 405;
        } else if ((p->flags & F_CHUNKED) || p->content_length == ULLONG_MAX) {
            c->refuse = 411;
        } else if (p->content_length > KIXD_WITNESS_MAX_BODY) {
            c->refuse = 413;
        } else {
            size_t want = p->content_length > 0 ? (size_t)p->content_length : 1;
            if (c->body_cap < want) {
                char *b = realloc(c->body, want);
                if (!b) {
                    c->refuse = 503;
                    return 0;
                }
                c->body = b;
                c->body_cap = want;
            }
            c->witness = 1;
        }
        return 0;
    }
    if ((p->flags & F_CHUNKED) || (p->content_length > 0 && p->content_length != ULLONG_MAX))
        c->refuse = 413;
    else if (p->method != HTTP_GET && p->method != HTTP_HEAD)
        c->refuse = 405;
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct kixd_http_conn *c = p->data;

    if (c->submit_refuse)
        return 1; /* refused: answered (in JSON) and closed without reading on */
    if ((!c->witness && !c->submit) || c->refuse || len > c->body_cap - c->body_len)
        return 1; /* not wanted: on_headers_complete set refuse */
    memcpy(c->body + c->body_len, at, len);
    c->body_len += len;
    return 0;
}

/* ---- add-checkpoint, on the thread pool ------------------------------------------------ */

struct wjob {
    uv_work_t req;
    struct kixd_http_conn *c;
    struct kixd_tlogw *t;
    char *body;
    size_t len;
    struct kix_buf out;
    const char *type;
    unsigned code;
};

static void witness_work(uv_work_t *req)
{
    struct wjob *j = req->data;
    j->code = kixd_tlogw_add_checkpoint(j->t, j->body, j->len, &j->out, &j->type);
}

static void witness_done(uv_work_t *req, int status)
{
    struct wjob *j = req->data;
    struct kixd_http_conn *c = j->c;
    struct kixd_worker *w = c->w;

    c->waiting = 0;
    if (!c->closing) {
        if (status != 0)
            answer_text(c, K_WITNESS, 503, "kixd is stopping; send it again later\n", 0);
        else
            answer(c, K_WITNESS, j->code, j->type, NULL, j->out.ptr, j->out.len, 0);
        process(c);
    }
    kix_buf_release(&j->out);
    free(j->body);
    free(j);
    w->jobs--;
    hconn_unref(c);
    kixd_worker_reader_end(w);
    kixd_worker_check_drained(w);
}

/* Loop thread: hands the body to the thread pool; the answer comes later. */
static void witness_start(struct kixd_http_conn *c)
{
    struct wjob *j = calloc(1, sizeof(*j));

    if (j) {
        j->body = c->body;
        j->len = c->body_len;
        c->body = NULL;
        c->body_cap = c->body_len = 0;
        j->c = c;
        j->t = c->w->srv->tlogw;
        j->req.data = j;
        kix_buf_init(&j->out);
    }
    if (!j || uv_queue_work(&c->w->loop, &j->req, witness_work, witness_done) != 0) {
        if (j)
            free(j->body);
        free(j);
        c->close_after = 1;
        answer_text(c, K_WITNESS, 503, "cannot queue the request; retry\n", 0);
        return;
    }
    c->waiting = 1;
    c->refs++;
    c->w->jobs++;
}

static int on_message_complete(http_parser *p)
{
    struct kixd_http_conn *c = p->data;
    int head = p->method == HTTP_HEAD;

    c->in_message = 0;
    if (!http_should_keep_alive(p) || c->w->draining)
        c->close_after = 1;
    if (c->refuse) {
        c->close_after = 1;
        answer_text(c, c->allow_post ? K_WITNESS : K_OTHER, c->refuse, reason(c->refuse), head);
    } else if (c->witness) {
        witness_start(c);
    } else if (c->submit_refuse) {
        c->close_after = 1;
        kixd_http_submit_refuse(c, c->submit_refuse, c->w->srv->cfg);
    } else if (c->preflight) {
        kixd_http_submit_preflight(c);
    } else if (c->submit) {
        char *body = c->body;
        size_t len = c->body_len;
        c->body = NULL;
        c->body_cap = c->body_len = 0;
        if (c->enroll)
            kixd_http_enroll(c, c->w, body, len, c->peer);
        else
            kixd_http_submit_start(c, c->w, body, len, c->peer);
    } else {
        respond(c, head);
    }
    /* one request at a time: process() resumes when the answer drains */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_message_begin = on_message_begin,
    .on_url = on_url,
    .on_header_field = on_header_field,
    .on_header_value = on_header_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

static void update_reading(struct kixd_http_conn *c);

/* Parses buffered input one request at a time while the output allows. */
static void process(struct kixd_http_conn *c)
{
    const struct kixd_config *cfg = c->w->srv->cfg;

    while (!c->closing && !c->close_after && !c->waiting) {
        size_t n;
        enum http_errno e;

        if (c->queued + c->out.len >= cfg->max_output)
            break;
        if (c->paused) {
            http_parser_pause(&c->parser, 0);
            c->paused = 0;
        }
        if (c->in_len == 0)
            break;
        n = http_parser_execute(&c->parser, &settings, (const char *)c->in, c->in_len);
        e = HTTP_PARSER_ERRNO(&c->parser);
        if (e == HPE_PAUSED) {
            c->paused = 1;
        } else if (e != HPE_OK) {
            unsigned code = c->refuse ? c->refuse : 400;
            char why[96];
            c->close_after = 1;
            c->linger = 1; /* the rest of this request is unread */
            if (c->submit_refuse)
                kixd_http_submit_refuse(c, c->submit_refuse, cfg);
            else
                answer_text(c, K_OTHER, code, reason(code), 0);
            snprintf(why, sizeof(why), "bad request (%s)", http_errno_name(e));
            kixd_log(KIXD_DEBUG, "http connection %s: %s", c->peer, why);
            c->in_len = 0;
            break;
        }
        if (n > c->in_len)
            n = c->in_len;
        memmove(c->in, c->in + n, c->in_len - n);
        c->in_len -= n;
        if (e == HPE_OK)
            break; /* all input parsed, the request (if any) is incomplete */
    }
    if (c->closing)
        return;
    flush(c);
    if (c->closing)
        return;
    if (c->close_after && c->queued == 0 && c->out.len == 0 && !c->waiting) {
        finish(c);
        if (c->closing)
            return;
    }
    update_reading(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct kixd_http_conn *c = h->data;
    size_t cap = c->w->srv->cfg->http_max_header;

    (void)suggested;
    *buf = uv_buf_init(c->in_len < cap ? (char *)c->in + c->in_len : NULL,
                       (unsigned)(c->in_len < cap ? cap - c->in_len : 0));
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct kixd_http_conn *c = s->data;
    struct kixd_worker *w = c->w;

    (void)buf;
    if (c->lingering) {
        if (nread < 0)
            hconn_close(c, "closed by the peer after its refusal");
        else if ((c->lingered += (uint64_t)nread) > LINGER_BYTES)
            hconn_close(c, "sent too much after its refusal");
        c->in_len = 0; /* drained unread */
        update_reading(c);
        return;
    }
    if (nread > 0) {
        c->in_len += (size_t)nread;
        c->last_active = uv_now(&w->loop);
        if (!c->in_message)
            c->msg_since = c->last_active;
        process(c);
    } else if (nread == UV_ENOBUFS) {
        /* the input buffer is full of one unfinished request head */
        c->close_after = 1;
        c->linger = 1;
        answer_text(c, K_OTHER, 431, reason(431), 0);
        flush(c);
    } else if (nread < 0) {
        hconn_close(c, nread == UV_EOF ? "closed by the peer" : uv_strerror((int)nread));
    }
    kixd_worker_reader_end(w);
    kixd_worker_check_drained(w);
}

static void update_reading(struct kixd_http_conn *c)
{
    const struct kixd_config *cfg = c->w->srv->cfg;
    int want = !c->closing && (c->lingering || (!c->close_after && !c->w->draining && !c->waiting &&
                                                c->queued + c->out.len < cfg->max_output &&
                                                c->in_len < cfg->http_max_header));

    if (want && !c->reading) {
        if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0)
            c->reading = 1;
    } else if (!want && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
}

void kixd_http_accept(struct kixd_worker *w, uv_stream_t *server)
{
    struct kixd_server *srv = w->srv;
    const struct kixd_config *cfg = srv->cfg;
    struct kixd_http_conn *c = calloc(1, sizeof(*c));
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    char ip[64] = "?";
    unsigned n;

    if (c)
        c->in = malloc(cfg->http_max_header);
    if (!c || !c->in) {
        kixd_log(KIXD_ERROR, "out of memory accepting an HTTP connection");
        if (c)
            free(c);
        return;
    }
    c->w = w;
    c->refs = 1;
    kix_buf_init(&c->out);
    uv_tcp_init(&w->loop, &c->tcp);
    c->tcp.data = c;
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        c->closing = 1;
        uv_close((uv_handle_t *)&c->tcp, on_close);
        return;
    }
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6)
            uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof(ip));
        else
            uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof(ip));
    }
    snprintf(c->peer, sizeof(c->peer), "%s", ip);
    n = atomic_fetch_add(&srv->connections, 1) + 1;
    c->counted = 1;
    w->nhconns++;
    c->next = w->hconns;
    if (w->hconns)
        w->hconns->prev = c;
    w->hconns = c;
    c->last_active = c->msg_since = uv_now(&w->loop);
    c->started_ms = kixd_now_ms();
    kixd_metrics_http_accepted(srv);
    if (n > cfg->max_connections || w->draining) {
        hconn_close(c, w->draining ? "server stopping" : "too many connections");
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    update_reading(c);
}

void kixd_http_sweep(struct kixd_worker *w)
{
    uint64_t now = uv_now(&w->loop), limit = w->srv->cfg->idle_timeout_ms;

    for (struct kixd_http_conn *c = w->hconns, *next; c; c = next) {
        next = c->next;
        if (c->lingering && now - c->linger_since >= LINGER_MS)
            hconn_close(c, "lingered after its refusal");
        else if (c->in_message && c->reading && now - c->msg_since >= limit)
            hconn_close(c, "a request trickled in for longer than the idle timeout");
        else if (now - c->last_active >= limit)
            hconn_close(c, "idle");
    }
}

void kixd_http_stop_all(struct kixd_worker *w)
{
    for (struct kixd_http_conn *c = w->hconns, *next; c; c = next) {
        next = c->next;
        if (c->queued == 0 && c->out.len == 0 && !c->waiting)
            hconn_close(c, "server stopping");
        else
            c->close_after = 1;
    }
}
