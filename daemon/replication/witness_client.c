/* Asks C2SP witnesses for cosignatures: POST <prefix>/add-checkpoint over
 * libcurl's multi interface on a libuv loop of its own (witness_client.h). */
#include "witness_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "kix/encoding.h"
#include "kix/merkle.h"
#include "kix/version.h"
#include "diag.h"
#include "replicas.h"
#include "server.h"
#include "witness.h"

#define ULL           unsigned long long
#define MAX_ANSWER    (64u * 1024u) /* bytes of a witness's answer we read */
#define TICK_MS       1000u
#define BACKOFF_MIN   1000u
#define BACKOFF_MAX   30000u
#define MAX_CONFLICTS 3 /* 409s answered at once in a row before backing off */

struct target {
    struct kixd_wclient *wc;
    char url[3072 + 32];
    struct kix_verifier key;
    CURL *easy; /* non-NULL while a request is in flight */
    struct curl_slist *headers;
    struct kix_buf body, answer, note;
    uint64_t old;      /* the witness's size as we believe it */
    uint64_t cosigned; /* the size it last cosigned for us */
    uint64_t sent;     /* the checkpoint size of the request in flight */
    uint64_t retry_at; /* loop time before which we do not ask again */
    unsigned backoff, conflicts;
    long failing; /* the status (-1: no answer) of the failures logged at warn since the last 200 */
    /* for /metrics (read by other threads) */
    atomic_uint_least64_t m_cosigned, m_answers[4]; /* [200, 409, other status, no answer] */
};

struct sock {
    uv_poll_t poll;
    curl_socket_t fd;
    struct kixd_wclient *wc;
};

struct kixd_wclient {
    struct kixd_server *srv;
    pthread_t thread;
    uv_loop_t loop;
    uv_async_t wake;
    uv_timer_t timeout, tick;
    CURLM *multi;
    atomic_int stop, kicked;
    int started; /* the loop and its thread run (kixd_wclient_start) */
    struct target *t;
    size_t n;
};

static void check_done(struct kixd_wclient *wc);

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct sock *s = h->data;
    int running, flags = 0;

    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(s->wc->multi, s->fd, flags, &running);
    check_done(s->wc);
}

static void sock_closed(uv_handle_t *h)
{
    free(h->data);
}

/* CURLMOPT_SOCKETFUNCTION: watch what curl wants on fd. */
static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    struct kixd_wclient *wc = userp;
    struct sock *s = socketp;
    int events = 0;

    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        if (s) {
            uv_poll_stop(&s->poll);
            curl_multi_assign(wc->multi, fd, NULL);
            uv_close((uv_handle_t *)&s->poll, sock_closed);
        }
        return 0;
    }
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s || uv_poll_init_socket(&wc->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        s->fd = fd;
        s->wc = wc;
        s->poll.data = s;
        curl_multi_assign(wc->multi, fd, s);
    }
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        events |= UV_READABLE;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        events |= UV_WRITABLE;
    uv_poll_start(&s->poll, events, on_poll);
    return 0;
}

static void on_timeout(uv_timer_t *h)
{
    struct kixd_wclient *wc = h->data;
    int running;

    curl_multi_socket_action(wc->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(wc);
}

/* CURLMOPT_TIMERFUNCTION */
static int on_timer(CURLM *multi, long ms, void *userp)
{
    struct kixd_wclient *wc = userp;

    (void)multi;
    if (ms < 0)
        uv_timer_stop(&wc->timeout);
    else
        uv_timer_start(&wc->timeout, on_timeout, (uint64_t)ms, 0);
    return 0;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct target *t = userdata;
    size_t len = size * nmemb;

    if (t->answer.len + len > MAX_ANSWER || kix_buf_add(&t->answer, ptr, len) != KIX_OK)
        return 0; /* aborts the transfer */
    return len;
}

/* The request body: old size, proof lines, blank line, the checkpoint note.
 * Fills t->note with the note; *size with its size (0: nothing to ask). */
static int build(struct target *t, uint64_t *size, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_bytes note;
    size_t n = 0;
    int rc;

    *size = 0;
    kix_buf_reset(&t->body);
    kix_buf_reset(&t->note);
    rc = kix_log_read_begin(t->wc->srv->log, &r);
    if (rc)
        return kix_err_set(err, rc, "cannot read the log");
    /* with --ack-replicas, only what the mirrors hold (replicas.h): a
     * witness remembers what it cosigned, and would see the promoted log
     * of a lost origin as a fork of a checkpoint the mirrors never had */
    if (kixd_replicas_reader_size(t->wc->srv, kix_log_reader_size(r), size, NULL) != KIX_OK)
        *size = 0;
    if (*size == 0 || *size == t->cosigned) {
        *size = 0;
        goto out;
    }
    if (t->old > *size) {
        rc = kix_err_set(err, KIX_EFORK,
                         "the witness says it cosigned size %llu of this log, which has %llu "
                         "entries: a fork or a rollback of this log, or another log with its "
                         "origin",
                         (ULL)t->old, (ULL)*size);
        goto out;
    }
    if (t->old > 0 && t->old < *size) {
        rc = kix_log_reader_consistency(r, t->old, *size, proof, &n, err);
        if (rc)
            goto out;
    }
    if (kix_log_reader_checkpoint(r, *size, &note) != KIX_OK) {
        rc = kix_err_set(err, KIX_ENOTFOUND, "the log has no checkpoint at its size");
        goto out;
    }
    /* the request body: old size, proof lines, an empty line, the note */
    if (kix_buf_addf(&t->body, "old %llu\n", (ULL)t->old) != KIX_OK)
        goto out_of_memory;
    for (size_t i = 0; i < n; i++)
        if (kix_base64_encode(proof[i].b, sizeof(proof[i].b), &t->body) != KIX_OK ||
            kix_buf_addc(&t->body, '\n') != KIX_OK)
            goto out_of_memory;
    if (kix_buf_addc(&t->body, '\n') != KIX_OK ||
        kix_buf_add(&t->body, note.ptr, note.len) != KIX_OK ||
        kix_buf_add(&t->note, note.ptr, note.len) != KIX_OK)
        goto out_of_memory;
    goto out;
out_of_memory:
    rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
out:
    kix_log_read_end(r);
    return rc;
}

static void later(struct target *t)
{
    t->backoff = t->backoff ? t->backoff * 2 : BACKOFF_MIN;
    if (t->backoff > BACKOFF_MAX)
        t->backoff = BACKOFF_MAX;
    t->retry_at = uv_now(&t->wc->loop) + t->backoff;
}

static void ask(struct target *t)
{
    struct kix_err err = {0};
    uint64_t size;
    int rc;

    if (t->easy || uv_now(&t->wc->loop) < t->retry_at)
        return;
    rc = build(t, &size, &err);
    if (rc) {
        kixd_log(KIXD_WARN, "witness %s: cannot ask for a cosignature: %s", t->url,
                 kix_err_text(&err, rc));
        later(t);
        return;
    }
    if (size == 0)
        return;
    kix_buf_reset(&t->answer);
    t->easy = curl_easy_init();
    if (!t->easy) {
        later(t);
        return;
    }
    t->sent = size;
    curl_easy_setopt(t->easy, CURLOPT_URL, t->url);
    curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, 15000L);
    curl_easy_setopt(t->easy, CURLOPT_USERAGENT, "kixd/" KIX_VERSION_STRING);
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, (const char *)t->body.ptr);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE, (long)t->body.len);
    curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
    if (t->wc->srv->cfg->http_witness_ca[0])
        curl_easy_setopt(t->easy, CURLOPT_CAINFO, t->wc->srv->cfg->http_witness_ca);
    if (curl_multi_add_handle(t->wc->multi, t->easy) != CURLM_OK) {
        curl_easy_cleanup(t->easy);
        t->easy = NULL;
        later(t);
    }
}

/* A 200: the lines of our witness's key, verified over the checkpoint we
 * sent, stored as add_cosignature would. */
static void cosigned(struct target *t)
{
    struct kixd_server *srv = t->wc->srv;
    struct kix_verifier known[2];
    struct kix_buf all = KIX_BUF_INIT;
    struct kix_note *note = malloc(sizeof(*note));
    struct kix_err err = {0};
    size_t stored = 0;
    int rc = KIX_OK;

    known[0] = *kix_log_verifier(srv->log);
    known[1] = t->key;
    /* the answer is signature lines: appended to the note, they open with it */
    if (!note || kix_buf_add(&all, t->note.ptr, t->note.len) != KIX_OK ||
        kix_buf_add(&all, t->answer.ptr, t->answer.len) != KIX_OK) {
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_note_open((const char *)all.ptr, all.len, known, 2, note, &err);
    if (rc)
        goto out;
    for (size_t i = 0; i < note->nsigs; i++) {
        const struct kix_note_sig *sig = &note->sigs[i];
        if (sig->verifier != 1)
            continue;
        rc = kix_log_add_cosignature(srv->log, (const char *)t->note.ptr, t->note.len,
                                     (const char *)sig->line.ptr, sig->line.len, &t->key, 1, NULL,
                                     NULL, &err);
        if (rc)
            goto out;
        stored++;
    }
    if (stored == 0)
        rc = kix_err_set(&err, KIX_EVERIFY, "its answer holds no cosignature by %s", t->key.name);
out:
    if (rc) {
        kixd_log(KIXD_WARN, "witness %s: refused its answer for size %llu: %s", t->url,
                 (ULL)t->sent, kix_err_text(&err, rc));
        later(t);
    } else {
        kixd_log(KIXD_INFO, "witness %s cosigned size %llu", t->key.name, (ULL)t->sent);
        t->cosigned = t->old = t->sent;
        atomic_store(&t->m_cosigned, t->sent);
        t->backoff = 0;
        t->failing = 0;
        t->retry_at = 0;
    }
    free(note);
    kix_buf_release(&all);
}

/* The first line of an answer, printable, for the log. */
static void first_line(const struct kix_buf *b, char *out, size_t cap)
{
    size_t n = 0;

    for (; n + 1 < cap && n < b->len && b->ptr[n] != '\n'; n++)
        out[n] = b->ptr[n] < 0x20 || b->ptr[n] > 0x7e ? '?' : (char)b->ptr[n];
    out[n] = '\0';
}

static void finished(struct target *t, CURLcode res)
{
    long code = 0;
    char *type = NULL, line[200];

    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &type);
    atomic_fetch_add(&t->m_answers[res != CURLE_OK ? 3 : code == 200 ? 0 : code == 409 ? 1 : 2], 1);
    if (res != CURLE_OK) {
        kixd_log(t->failing == -1 ? KIXD_DEBUG : KIXD_WARN, "witness %s: no answer: %s", t->url,
                 curl_easy_strerror(res));
        t->failing = -1;
        later(t);
    } else if (code == 200) {
        t->conflicts = 0;
        cosigned(t);
    } else if (code == 409 && type && strncmp(type, "text/x.tlog.size", 16) == 0) {
        unsigned long long size;
        char num[24];
        first_line(&t->answer, num, sizeof(num));
        if (kixd_parse_count(num, 0, UINT64_MAX, &size) != 0 || t->answer.len != strlen(num) + 1) {
            kixd_log(KIXD_WARN, "witness %s: a 409 without a size", t->url);
            later(t);
        } else {
            kixd_log(KIXD_INFO,
                     "witness %s has size %llu (409 to old size %llu): asking again "
                     "from it",
                     t->url, size, (ULL)t->old);
            t->old = size;
            if (++t->conflicts > MAX_CONFLICTS) {
                t->conflicts = 0;
                later(t);
            }
        }
    } else {
        first_line(&t->answer, line, sizeof(line));
        kixd_log(t->failing == code ? KIXD_DEBUG : KIXD_WARN,
                 "witness %s refused the checkpoint of size %llu: HTTP %ld: %s", t->url,
                 (ULL)t->sent, code, line[0] ? line : "(no reason given)");
        t->failing = code;
        t->conflicts = 0;
        later(t);
    }
    curl_multi_remove_handle(t->wc->multi, t->easy);
    curl_easy_cleanup(t->easy);
    t->easy = NULL;
}

static void check_done(struct kixd_wclient *wc)
{
    CURLMsg *msg;
    int left;

    while ((msg = curl_multi_info_read(wc->multi, &left))) {
        char *priv = NULL;
        if (msg->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
        if (priv)
            finished((struct target *)(void *)priv, msg->data.result);
    }
    if (!atomic_load(&wc->stop))
        for (size_t i = 0; i < wc->n; i++)
            ask(&wc->t[i]);
}

static void close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, h->type == UV_POLL ? sock_closed : NULL);
}

static void on_wake(uv_async_t *h)
{
    struct kixd_wclient *wc = h->data;

    if (atomic_load(&wc->stop)) {
        for (size_t i = 0; i < wc->n; i++) {
            if (wc->t[i].easy) {
                curl_multi_remove_handle(wc->multi, wc->t[i].easy);
                curl_easy_cleanup(wc->t[i].easy);
                wc->t[i].easy = NULL;
            }
        }
        /* while the loop runs: curl may still close its sockets' polls */
        curl_multi_cleanup(wc->multi);
        wc->multi = NULL;
        uv_walk(&wc->loop, close_walk, NULL);
        return;
    }
    atomic_store(&wc->kicked, 0);
    check_done(wc);
}

static void on_tick(uv_timer_t *h)
{
    check_done(h->data);
}

static void *client_main(void *arg)
{
    struct kixd_wclient *wc = arg;

    check_done(wc);
    uv_run(&wc->loop, UV_RUN_DEFAULT);
    return NULL;
}

static void wclient_free(struct kixd_wclient *wc)
{
    if (wc->multi)
        curl_multi_cleanup(wc->multi);
    for (size_t i = 0; i < wc->n; i++) {
        curl_slist_free_all(wc->t[i].headers);
        kix_buf_release(&wc->t[i].body);
        kix_buf_release(&wc->t[i].answer);
        kix_buf_release(&wc->t[i].note);
    }
    free(wc->t);
    free(wc);
}

int kixd_wclient_new(const struct kixd_config *cfg, struct kixd_wclient **out, struct kix_err *err)
{
    struct kixd_wclient *wc;
    int rc = KIX_OK;

    *out = NULL;
    if (cfg->nhttp_witnesses == 0)
        return KIX_OK;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return kix_err_set(err, KIX_EUNAVAIL, "cannot initialize libcurl");
    wc = calloc(1, sizeof(*wc));
    if (wc)
        wc->t = calloc(cfg->nhttp_witnesses, sizeof(*wc->t));
    if (!wc || !wc->t) {
        free(wc);
        curl_global_cleanup();
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < cfg->nhttp_witnesses; i++) {
        const char *given = cfg->http_witnesses[i], *sp = strrchr(given, ' ');
        struct target *t = &wc->t[i];
        size_t ulen = (size_t)(sp - given);
        wc->n++;
        t->wc = wc;
        kix_buf_init(&t->body);
        kix_buf_init(&t->answer);
        kix_buf_init(&t->note);
        while (ulen > 0 && given[ulen - 1] == '/')
            ulen--;
        snprintf(t->url, sizeof(t->url), "%.*s/add-checkpoint", (int)ulen, given);
        rc = kixd_read_verifier(sp + 1, &t->key, err);
        if (rc == KIX_OK && t->key.alg != KIX_NOTE_ALG_COSIGN)
            rc = kix_err_set(err, KIX_EUSAGE,
                             "key %s is not a witness cosignature key (algorithm 0x04)",
                             t->key.name);
        if (rc) { /* either way a bad --http-witness KEY */
            kix_err_wrap(err, "--http-witness %s", given);
            rc = rc == KIX_EINVAL || rc == KIX_ENOTFOUND ? KIX_EUSAGE : rc;
            goto out;
        }
        t->headers = curl_slist_append(NULL, "Content-Type: text/plain; charset=utf-8");
        if (t->headers)
            t->headers = curl_slist_append(t->headers, "Expect:"); /* no 100-continue */
        if (!t->headers) {
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
            goto out;
        }
    }
    if ((wc->multi = curl_multi_init()) == NULL)
        rc = kix_err_set(err, KIX_ENOMEM, "cannot start libcurl");
out:
    if (rc) {
        wclient_free(wc);
        curl_global_cleanup();
        return rc;
    }
    *out = wc;
    return KIX_OK;
}

int kixd_wclient_start(struct kixd_server *srv, struct kixd_wclient *wc, struct kix_err *err)
{
    if (!wc)
        return KIX_OK;
    wc->srv = srv;
    curl_multi_setopt(wc->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(wc->multi, CURLMOPT_SOCKETDATA, wc);
    curl_multi_setopt(wc->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(wc->multi, CURLMOPT_TIMERDATA, wc);
    uv_loop_init(&wc->loop);
    uv_async_init(&wc->loop, &wc->wake, on_wake);
    uv_timer_init(&wc->loop, &wc->timeout);
    uv_timer_init(&wc->loop, &wc->tick);
    wc->wake.data = wc->timeout.data = wc->tick.data = wc;
    uv_timer_start(&wc->tick, on_tick, TICK_MS, TICK_MS);
    if (pthread_create(&wc->thread, NULL, client_main, wc) != 0) {
        uv_walk(&wc->loop, close_walk, NULL);
        uv_run(&wc->loop, UV_RUN_DEFAULT);
        uv_loop_close(&wc->loop);
        return kix_err_set(err, KIX_EUNAVAIL, "cannot start the witness client thread");
    }
    wc->started = 1;
    kixd_log(KIXD_INFO, "asking %zu witnesses for cosignatures over HTTP (c2sp.org/tlog-witness)",
             wc->n);
    return KIX_OK;
}

/* A Prometheus label value: \\, \" and \n escaped. */
static int add_label(struct kix_buf *out, const char *v)
{
    for (; *v; v++) {
        int rc = *v == '\\' || *v == '"' ? kix_buf_addf(out, "\\%c", *v)
                 : *v == '\n'            ? kix_buf_adds(out, "\\n")
                                         : kix_buf_addc(out, (uint8_t)*v);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

int kixd_wclient_metrics(struct kixd_wclient *wc, struct kix_buf *out)
{
    static const char *const results[4] = {"200", "409", "refused", "unreachable"};

    if (!wc)
        return KIX_OK;
    if (kix_buf_adds(out, "# HELP kix_witness_cosigned_size The size a --http-witness last "
                          "cosigned (0: none since kixd started).\n"
                          "# TYPE kix_witness_cosigned_size gauge\n") != KIX_OK)
        return KIX_ENOMEM;
    for (size_t i = 0; i < wc->n; i++)
        if (kix_buf_adds(out, "kix_witness_cosigned_size{witness=\"") != KIX_OK ||
            add_label(out, wc->t[i].key.name) != KIX_OK ||
            kix_buf_addf(out, "\"} %llu\n", (ULL)atomic_load(&wc->t[i].m_cosigned)) != KIX_OK)
            return KIX_ENOMEM;
    if (kix_buf_adds(out, "# HELP kixd_witness_requests_total add-checkpoint requests to "
                          "--http-witness witnesses by result.\n"
                          "# TYPE kixd_witness_requests_total counter\n") != KIX_OK)
        return KIX_ENOMEM;
    for (size_t i = 0; i < wc->n; i++)
        for (size_t k = 0; k < 4; k++)
            if (kix_buf_adds(out, "kixd_witness_requests_total{witness=\"") != KIX_OK ||
                add_label(out, wc->t[i].key.name) != KIX_OK ||
                kix_buf_addf(out, "\",result=\"%s\"} %llu\n", results[k],
                             (ULL)atomic_load(&wc->t[i].m_answers[k])) != KIX_OK)
                return KIX_ENOMEM;
    return KIX_OK;
}

void kixd_wclient_kick(struct kixd_wclient *wc)
{
    if (!wc || !wc->started || atomic_exchange(&wc->kicked, 1))
        return;
    uv_async_send(&wc->wake);
}

void kixd_wclient_stop(struct kixd_wclient *wc)
{
    if (!wc)
        return;
    if (wc->started) {
        atomic_store(&wc->stop, 1);
        uv_async_send(&wc->wake);
        pthread_join(wc->thread, NULL);
        uv_loop_close(&wc->loop);
    }
    wclient_free(wc);
    curl_global_cleanup();
}
