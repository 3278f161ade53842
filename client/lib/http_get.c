/* GET with libcurl for the HTTP source (http_get.h). */
#include "http_get.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BASE_MAX 4096

struct http_get {
    CURL *curl;
    char base[BASE_MAX];
    struct http_get_opts opts;
    unsigned long long requests, bytes;
};

struct sink {
    struct kix_buf *out;
    size_t start, max;
    int over, nomem;
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
    curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h->curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h->curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
    curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, h->opts.timeout_ms);
    curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "kix");
    /* bodies are read as sent: a CDN's compression would hide their size */
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
    /* $KIX_CACERT: for a process that takes no --cacert (kixd's mirror) */
    if (!h->opts.cacert && getenv("KIX_CACERT") && *getenv("KIX_CACERT"))
        h->opts.cacert = getenv("KIX_CACERT");
    if (h->opts.cacert)
        curl_easy_setopt(h->curl, CURLOPT_CAINFO, h->opts.cacert);
    *out = h;
    return KIX_OK;
}

void http_get_close(struct http_get *h)
{
    if (!h)
        return;
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

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int http_get(struct http_get *h, const char *path, size_t max, struct kix_buf *out,
             struct kix_err *err)
{
    char url[BASE_MAX + 512];
    char curl_msg[CURL_ERROR_SIZE];
    struct sink s = {out, out->len, max, 0, 0};
    CURLcode cc = CURLE_OK;
    long status = 0, backoff = 100;

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
        if (s.nomem || s.over)
            break;
        if (!transient(cc, status) || attempt >= h->opts.retries)
            break;
        pause_ms(backoff);
        backoff *= 2;
    }
    /* the handle keeps no pointer into this frame */
    curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, NULL);
    if (s.nomem) {
        out->len = s.start;
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    if (s.over) {
        out->len = s.start;
        return kix_err_set(err, KIX_ELIMIT, "%s: the answer is over %zu bytes", url, max);
    }
    if (cc != CURLE_OK) {
        out->len = s.start;
        return kix_err_set(err, KIX_EUNAVAIL, "cannot read %s: %s", url,
                           curl_msg[0] ? curl_msg : curl_easy_strerror(cc));
    }
    if (status == 200)
        return KIX_OK;
    out->len = s.start;
    if (status == 404 || status == 410)
        return kix_err_set(err, KIX_ENOTFOUND, "%s: not found (HTTP %ld)", url, status);
    if (transient(cc, status))
        return kix_err_set(err, KIX_EUNAVAIL, "%s: HTTP %ld", url, status);
    return kix_err_set(err, KIX_EPROTO, "%s: HTTP %ld", url, status);
}
