/* GET with libcurl for the HTTP source (http_get.h). */
#include "kix/clock.h"
#include "http_get.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BASE_MAX         4096
#define URL_MAX          (BASE_MAX + 512)
#define FIRST_BACKOFF_MS 100 /* doubled after each try that failed in passing */

struct sink {
    struct kix_buf *out;
    size_t start, max;
    int over, nomem;
};

/* One GET of a batch, in the window slot its item's index picks. */
enum slot_state { SLOT_FREE, SLOT_RUNNING, SLOT_WAITING, SLOT_DONE };

struct slot {
    CURL *curl; /* created on first use, kept with its options */
    enum slot_state state;
    size_t item;
    struct kix_buf body;
    struct sink sink;
    char url[URL_MAX];
    char msg[CURL_ERROR_SIZE];
    int attempt;
    long backoff;     /* ms before the next try */
    uint64_t wake_ms; /* SLOT_WAITING: when to try again */
    CURLcode cc;
    long status;
};

struct http_get {
    CURL *curl;
    CURLM *multi; /* a batch's transfers and their connections, made on first use */
    struct slot slots[HTTP_GET_WINDOW];
    char base[BASE_MAX];
    struct http_get_opts opts;
    unsigned long long requests, bytes;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void init_curl(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    size_t len = size * n;

    if (s->out->len - s->start + len > s->max) {
        s->over = 1;
        return 0; /* aborts the transfer */
    }
    if (kix_buf_add(s->out, data, len) != KIX_OK) {
        s->nomem = 1;
        return 0;
    }
    return len;
}

/* The options every GET has, single or in a batch. */
static void set_options(const struct http_get *h, CURL *c)
{
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->opts.timeout_ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "kix");
    /* bodies are read as sent: a CDN's compression would hide their size */
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    if (h->opts.cacert)
        curl_easy_setopt(c, CURLOPT_CAINFO, h->opts.cacert);
}

int http_get_open(const char *base, const struct http_get_opts *opts, struct http_get **out,
                  struct kix_err *err)
{
    struct http_get *h;
    size_t n = strlen(base);

    *out = NULL;
    pthread_once(&curl_once, init_curl);
    if (curl_init_rc != CURLE_OK)
        return kix_err_set(err, KIX_EUNAVAIL, "libcurl: %s", curl_easy_strerror(curl_init_rc));
    if (n == 0 || n + 2 > BASE_MAX)
        return kix_err_set(err, KIX_EINVAL, "bad server address: empty or too long");
    h = calloc(1, sizeof(*h));
    if (!h || !(h->curl = curl_easy_init())) {
        free(h);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    /* the base always ends in '/', paths are relative to it */
    snprintf(h->base, sizeof(h->base), "%s%s", base, base[n - 1] == '/' ? "" : "/");
    if (opts)
        h->opts = *opts;
    if (h->opts.connect_timeout_ms <= 0)
        h->opts.connect_timeout_ms = 10000;
    if (h->opts.timeout_ms <= 0)
        h->opts.timeout_ms = 30000;
    if (h->opts.retries < 0)
        h->opts.retries = 3;
    /* $KIX_CACERT: for a process that takes no --cacert (kixd's mirror) */
    if (!h->opts.cacert && getenv("KIX_CACERT") && *getenv("KIX_CACERT"))
        h->opts.cacert = getenv("KIX_CACERT");
    set_options(h, h->curl);
    *out = h;
    return KIX_OK;
}

void http_get_close(struct http_get *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < HTTP_GET_WINDOW; i++) {
        if (h->slots[i].curl) {
            if (h->slots[i].state == SLOT_RUNNING)
                curl_multi_remove_handle(h->multi, h->slots[i].curl);
            curl_easy_cleanup(h->slots[i].curl);
        }
        kix_buf_release(&h->slots[i].body);
    }
    if (h->multi)
        curl_multi_cleanup(h->multi);
    curl_easy_cleanup(h->curl);
    free(h);
}

void http_get_stats(const struct http_get *h, unsigned long long *requests,
                    unsigned long long *bytes)
{
    *requests = h->requests;
    *bytes = h->bytes;
}

/* What is worth another try: the network, and a server's passing trouble. */
static int transient(CURLcode cc, long status)
{
    switch (cc) {
    case CURLE_OK:
        return status >= 500 || status == 429 || status == 408;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_RESOLVE_HOST:
        return 1;
    default:
        return 0;
    }
}

/* After a try of `attempt` (0 the first): the milliseconds to wait before
 * the next, from *backoff (doubled for the one after), or -1 when this
 * try's outcome stands. One rule for a single GET and a batch's. */
static long retry_wait(const struct http_get *h, const struct sink *s, CURLcode cc, long status,
                       int attempt, long *backoff)
{
    long wait = *backoff;

    if (s->nomem || s->over || !transient(cc, status) || attempt >= h->opts.retries)
        return -1;
    *backoff *= 2;
    return wait;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* What a GET's last try means: KIX_OK for a 200, else the error, in err. */
static int outcome(const char *url, size_t max, const struct sink *s, CURLcode cc, long status,
                   const char *curl_msg, struct kix_err *err)
{
    if (s->nomem)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (s->over)
        return kix_err_set(err, KIX_ELIMIT, "%s: the answer is over %zu bytes", url, max);
    if (cc != CURLE_OK)
        return kix_err_set(err, KIX_EUNAVAIL, "cannot read %s: %s", url,
                           curl_msg[0] ? curl_msg : curl_easy_strerror(cc));
    if (status == 200)
        return KIX_OK;
    if (status == 404 || status == 410)
        return kix_err_set(err, KIX_ENOTFOUND, "%s: not found (HTTP %ld)", url, status);
    if (transient(cc, status))
        return kix_err_set(err, KIX_EUNAVAIL, "%s: HTTP %ld", url, status);
    return kix_err_set(err, KIX_EPROTO, "%s: HTTP %ld", url, status);
}

int http_get(struct http_get *h, const char *path, size_t max, struct kix_buf *out,
             struct kix_err *err)
{
    char url[URL_MAX];
    char curl_msg[CURL_ERROR_SIZE];
    struct sink s = {out, out->len, max, 0, 0};
    CURLcode cc = CURLE_OK;
    long status = 0, backoff = FIRST_BACKOFF_MS;
    int rc;

    if ((size_t)snprintf(url, sizeof(url), "%s%s", h->base, path) >= sizeof(url))
        return kix_err_set(err, KIX_EINVAL, "URL too long: %s%.64s...", h->base, path);
    curl_easy_setopt(h->curl, CURLOPT_URL, url);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, curl_msg);
    for (int attempt = 0;; attempt++) {
        out->len = s.start;
        s.over = s.nomem = 0;
        curl_msg[0] = '\0';
        status = 0;
        h->requests++;
        cc = curl_easy_perform(h->curl);
        curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
        h->bytes += out->len - s.start;
        long wait = retry_wait(h, &s, cc, status, attempt, &backoff);
        if (wait < 0)
            break;
        pause_ms(wait);
    }
    /* the handle keeps no pointer into this frame */
    curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, NULL);
    rc = outcome(url, max, &s, cc, status, curl_msg, err);
    if (rc)
        out->len = s.start;
    return rc;
}

/* ---- a batch ------------------------------------------------------------------ */

static int open_multi(struct http_get *h, struct kix_err *err)
{
    if (h->multi)
        return KIX_OK;
    h->multi = curl_multi_init();
    if (!h->multi)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* no more connections than transfers: none waits in libcurl's queue
     * (its timeout would run while it waits), and each is kept alive */
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)HTTP_GET_WINDOW);
    curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)HTTP_GET_WINDOW);
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, (long)HTTP_GET_WINDOW);
    return KIX_OK;
}

/* One try of slot's GET. */
static int try_slot(struct http_get *h, struct slot *sl, struct kix_err *err)
{
    sl->body.len = 0;
    sl->sink = (struct sink){&sl->body, 0, sl->sink.max, 0, 0};
    sl->msg[0] = '\0';
    sl->status = 0;
    sl->cc = CURLE_OK;
    h->requests++;
    if (curl_multi_add_handle(h->multi, sl->curl) != CURLM_OK)
        return kix_err_set(err, KIX_ENOMEM, "libcurl cannot start a transfer");
    sl->state = SLOT_RUNNING;
    return KIX_OK;
}

static int start_slot(struct http_get *h, struct slot *sl, size_t item, size_t max,
                      http_get_path_fn path, void *ctx, struct kix_err *err)
{
    char rel[URL_MAX];
    size_t n = strlen(h->base);
    int rc;

    if (!sl->curl) {
        if (!(sl->curl = curl_easy_init()))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        set_options(h, sl->curl);
        curl_easy_setopt(sl->curl, CURLOPT_WRITEDATA, &sl->sink);
        curl_easy_setopt(sl->curl, CURLOPT_ERRORBUFFER, sl->msg);
    }
    rc = path(ctx, item, rel, sizeof(rel) - n);
    if (rc)
        return kix_err_set(err, rc, "no path of at most %zu bytes for GET %zu of a batch",
                           sizeof(rel) - n, item);
    memcpy(sl->url, h->base, n);
    memcpy(sl->url + n, rel, strlen(rel) + 1);
    curl_easy_setopt(sl->curl, CURLOPT_URL, sl->url);
    sl->item = item;
    sl->attempt = 0;
    sl->backoff = FIRST_BACKOFF_MS;
    sl->sink.max = max;
    return try_slot(h, sl, err);
}

/* A try is over: done, or to be tried again after its backoff. */
static void end_try(struct http_get *h, struct slot *sl, CURLcode cc)
{
    long wait;

    curl_easy_getinfo(sl->curl, CURLINFO_RESPONSE_CODE, &sl->status);
    curl_multi_remove_handle(h->multi, sl->curl);
    sl->cc = cc;
    h->bytes += sl->body.len;
    sl->state = SLOT_DONE;
    wait = retry_wait(h, &sl->sink, cc, sl->status, sl->attempt, &sl->backoff);
    if (wait < 0)
        return;
    sl->state = SLOT_WAITING;
    sl->wake_ms = kix_clock_ms() + (uint64_t)wait;
    sl->attempt++;
}

/* Hands libcurl what is due and collects the tries that ended. */
static int step(struct http_get *h, struct kix_err *err)
{
    CURLMsg *m;
    int running = 0, left;

    if (curl_multi_perform(h->multi, &running) != CURLM_OK)
        return kix_err_set(err, KIX_EUNAVAIL, "libcurl cannot move its transfers on");
    while ((m = curl_multi_info_read(h->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        for (size_t i = 0; i < HTTP_GET_WINDOW; i++)
            if (h->slots[i].state == SLOT_RUNNING && h->slots[i].curl == m->easy_handle)
                end_try(h, &h->slots[i], m->data.result);
    }
    return KIX_OK;
}

/* Moves the transfers on until slot `head` is done, or something happened,
 * or the next retry is due. */
static int drive(struct http_get *h, const struct slot *head, struct kix_err *err)
{
    uint64_t now = kix_clock_ms();
    long wait_ms = 1000;
    int rc;

    for (size_t i = 0; i < HTTP_GET_WINDOW; i++) {
        struct slot *sl = &h->slots[i];
        if (sl->state != SLOT_WAITING)
            continue;
        if (sl->wake_ms <= now) {
            if ((rc = try_slot(h, sl, err)))
                return rc;
        } else if ((long)(sl->wake_ms - now) < wait_ms) {
            wait_ms = (long)(sl->wake_ms - now);
        }
    }
    if ((rc = step(h, err)) || head->state == SLOT_DONE)
        return rc;
    if (curl_multi_poll(h->multi, NULL, 0, (int)wait_ms, NULL) != CURLM_OK)
        return kix_err_set(err, KIX_EUNAVAIL, "libcurl cannot wait for its transfers");
    return step(h, err);
}

/* Stops what is in flight and empties the window. */
static void clear_slots(struct http_get *h)
{
    for (size_t i = 0; i < HTTP_GET_WINDOW; i++) {
        struct slot *sl = &h->slots[i];
        if (sl->state == SLOT_RUNNING)
            curl_multi_remove_handle(h->multi, sl->curl);
        sl->state = SLOT_FREE;
        kix_buf_release(&sl->body);
    }
}

static int get_one(struct http_get *h, size_t max, http_get_path_fn path, http_get_item_fn item,
                   void *ctx, struct kix_err *err)
{
    char rel[URL_MAX];
    struct kix_buf body = KIX_BUF_INIT;
    int rc = path(ctx, 0, rel, sizeof(rel));

    if (rc)
        return kix_err_set(err, rc, "no path of at most %zu bytes for a GET", sizeof(rel));
    rc = http_get(h, rel, max, &body, err);
    rc = item(ctx, 0, rc, &body, err);
    kix_buf_release(&body);
    return rc;
}

int http_get_many(struct http_get *h, size_t n, size_t max, http_get_path_fn path,
                  http_get_item_fn item, void *ctx, struct kix_err *err)
{
    size_t next = 0, head = 0; /* the next item to start, and to hand back */
    int rc;

    if (n == 0)
        return KIX_OK;
    /* one GET: the single GET's connection, not another one */
    if (n == 1)
        return get_one(h, max, path, item, ctx, err);
    rc = open_multi(h, err);
    while (rc == KIX_OK && head < n) {
        struct slot *sl;
        for (; rc == KIX_OK && next < n && next < head + HTTP_GET_WINDOW; next++)
            rc = start_slot(h, &h->slots[next % HTTP_GET_WINDOW], next, max, path, ctx, err);
        sl = &h->slots[head % HTTP_GET_WINDOW];
        if (rc == KIX_OK && sl->state == SLOT_DONE) {
            int got = outcome(sl->url, max, &sl->sink, sl->cc, sl->status, sl->msg, err);
            rc = item(ctx, head, got, &sl->body, err);
            sl->state = SLOT_FREE;
            kix_buf_reset(&sl->body);
            head++;
            continue;
        }
        if (rc == KIX_OK)
            rc = drive(h, sl, err);
    }
    clear_slots(h);
    return rc;
}
