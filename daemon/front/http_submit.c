/* Writes over HTTP: POST /submit (http_submit.h). */
#include "http_submit.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "kix/doc.h"
#include "http_internal.h"
#include "kix/encoding.h"
#include "kix/entries.h"
#include "kix/entry.h"
#include "kix/file.h"
#include "kix/sha256.h"
#include "kix/note.h"
#include "kix/submit_body.h"
#include "writer.h"

/* One POST /submit: the body and what was parsed from it, which the job's
 * views point into until the job is freed. */
struct http_submit {
    struct kixd_http_conn *c;
    char *body;
    size_t len;
    struct kix_submit_body parsed;
    char peer[64];
};

/* ---- rate limits: a token bucket per address and per signing key ------------------------- */

/* Buckets by hash of who they count, one a slot: a slot another takes
 * starts full again (a cheap table whose worst case is a fresh burst). */
#define RATE_SLOTS 4096

struct bucket {
    char who[80]; /* "a:ADDRESS" or "k:KEYID" */
    double tokens, at_ms;
};

static struct bucket buckets[RATE_SLOTS];
static pthread_mutex_t buckets_mu = PTHREAD_MUTEX_INITIALIZER;

/* 0 when who may submit now (a token taken), else the seconds to wait for
 * one: a burst of per_minute, then per_minute a minute. */
static unsigned rate_wait(const char *who, unsigned per_minute, double now_ms)
{
    uint32_t h = 2166136261u;
    struct bucket *b;
    unsigned wait = 0;

    for (const char *p = who; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    pthread_mutex_lock(&buckets_mu);
    b = &buckets[h % RATE_SLOTS];
    if (strncmp(b->who, who, sizeof(b->who)) != 0) {
        snprintf(b->who, sizeof(b->who), "%s", who);
        b->tokens = per_minute;
        b->at_ms = now_ms;
    }
    b->tokens += (now_ms - b->at_ms) * per_minute / 60000.0;
    if (b->tokens > per_minute)
        b->tokens = per_minute;
    b->at_ms = now_ms;
    if (b->tokens >= 1)
        b->tokens -= 1;
    else
        wait = (unsigned)ceil((1 - b->tokens) * 60.0 / per_minute);
    pthread_mutex_unlock(&buckets_mu);
    return wait;
}

int kixd_open_note_limited(const struct kixd_config *cfg, const char *peer,
                           const uint8_t signer[32], char *why, size_t cap)
{
    char who[80], id[65];
    size_t n = strlen(peer);
    unsigned wait;

    if (!cfg->http_submit_rate)
        return 0;
    /* the address without its port (or a Unix socket's connection number) */
    if (peer[0] == '[' && strchr(peer, ']'))
        n = (size_t)(strchr(peer, ']') - peer) + 1;
    else if (strrchr(peer, ':') || strrchr(peer, '#'))
        n = (size_t)((strrchr(peer, ':') ? strrchr(peer, ':') : strrchr(peer, '#')) - peer);
    snprintf(who, sizeof(who), "a:%.*s", (int)n, peer);
    wait = rate_wait(who, cfg->http_submit_rate, kixd_now_ms());
    if (!wait) {
        kix_hex_encode(signer, 32, id);
        snprintf(who, sizeof(who), "k:%s", id);
        wait = rate_wait(who, cfg->http_submit_rate, kixd_now_ms());
    }
    if (wait)
        snprintf(why, cap,
                 "too many open notes from this address or key: at most %u a minute (kixd serve "
                 "--http-submit-rate); retry in %u s",
                 cfg->http_submit_rate, wait);
    return wait != 0;
}

static void answer_object(struct kixd_http_conn *c, unsigned status, const char *headers,
                          json_t *doc);
static void answer_error(struct kixd_http_conn *c, int code, const char *message);

/* Answers 429 when who is over --http-submit-rate: 1 answered, 0 go on. */
static int over_rate(struct kixd_http_conn *c, const struct kixd_config *cfg, const char *kind,
                     const char *name, double now_ms)
{
    char who[80], headers[64], why[KIX_ERR_MSG_MAX];
    unsigned wait;

    if (!cfg->http_submit_rate)
        return 0;
    snprintf(who, sizeof(who), "%c:%s", kind[0], name);
    wait = rate_wait(who, cfg->http_submit_rate, now_ms);
    if (!wait)
        return 0;
    snprintf(headers, sizeof(headers), "Retry-After: %u\r\n", wait);
    snprintf(why, sizeof(why),
             "too many submissions from this %s: at most %u a minute (kixd serve "
             "--http-submit-rate); retry in %u s",
             kind, cfg->http_submit_rate, wait);
    answer_object(c, 429, headers,
                  json_pack("{s:{s:s, s:i, s:s, s:s}}", "error", "code", "rateLimited", "exitCode",
                            kix_err_exit_status(KIX_ELIMIT), "message", why, "cause",
                            "rate limited"));
    return 1;
}

static const char preflight_headers[] = "Access-Control-Allow-Methods: POST, OPTIONS\r\n"
                                        "Access-Control-Allow-Headers: Content-Type\r\n"
                                        "Access-Control-Max-Age: 600\r\n";

int kixd_http_submit_origin_allowed(const struct kixd_config *cfg, const char *origin,
                                    const char *host)
{
    const char *after = strstr(origin, "://");

    if (cfg->http_submit_origin[0] && strcmp(origin, cfg->http_submit_origin) == 0)
        return 1;
    /* the pages of this kixd: same scheme-less host[:port] as asked */
    return after && host[0] && strcmp(after + 3, host) == 0;
}

/* The HTTP status of a refusal of this kind. */
static unsigned status_of(int code)
{
    switch (code) {
    case KIX_EINVAL:
        return 400;
    case KIX_ELIMIT:
        return 413;
    case KIX_EVERIFY:
        return 422;
    case KIX_EPOLICY:
    case KIX_EREADONLY:
        return 403;
    case KIX_EUNAVAIL:
    case KIX_ENOMEM:
        return 503;
    case KIX_EFULL:
        return 507;
    default:
        return 500;
    }
}

/* {"code", "exitCode", "message", "cause"}: the members of the error
 * object kix --json prints (docs/REFERENCE.md), so a script reads both
 * alike. A new reference. */
static json_t *error_object(int code, const char *message)
{
    return json_pack("{s:s, s:i, s:s, s:s}", "code", kix_err_word(code), "exitCode",
                     kix_err_exit_status(code), "message", message, "cause", kix_strerror(code));
}

static void answer_object(struct kixd_http_conn *c, unsigned status, const char *headers,
                          json_t *doc)
{
    struct kix_buf text = KIX_BUF_INIT;

    /* a newline ends the body */
    if (kix_doc_dumps(doc, 0, &text, NULL) == KIX_OK && kix_buf_addc(&text, '\n') == KIX_OK) {
        kixd_http_answer_json(c, status, headers, text.ptr, text.len);
    } else {
        /* nothing to build it with: the one answer written by hand */
        static const char oom[] = "{\"error\": {\"code\": \"outOfMemory\"}}\n";
        kixd_http_answer_json(c, 503, NULL, (const uint8_t *)oom, sizeof(oom) - 1);
    }
    kix_buf_release(&text);
    json_decref(doc);
}

static void answer_error(struct kixd_http_conn *c, int code, const char *message)
{
    answer_object(c, status_of(code), NULL,
                  json_pack("{s:o}", "error", error_object(code, message)));
}

void kixd_http_submit_refuse(struct kixd_http_conn *c, unsigned status,
                             const struct kixd_config *cfg)
{
    char why[KIX_ERR_MSG_MAX];
    int code = KIX_EINVAL;

    switch (status) {
    case 404:
        code = KIX_ENOTSUP;
        snprintf(why, sizeof(why),
                 "this kixd takes no writes over HTTP; submit over its msgpack port (kix publish "
                 "--server), or ask its operator for kixd serve --http-submit");
        break;
    case 403:
        code = KIX_EPOLICY;
        snprintf(why, sizeof(why),
                 "a page of another origin may not submit here; only this log's own pages%s%s may",
                 cfg->http_submit_origin[0] ? " and " : "", cfg->http_submit_origin);
        break;
    case 405:
        code = KIX_EUSAGE;
        snprintf(why, sizeof(why),
                 "/submit and /enroll take POST (and OPTIONS for a browser's preflight)");
        break;
    case 411:
        snprintf(why, sizeof(why), "send the body with a Content-Length, not chunked");
        break;
    case 413:
        code = KIX_ELIMIT;
        snprintf(why, sizeof(why),
                 "the body is larger than this kixd's --max-message of %zu bytes; submit fewer "
                 "bundles at a time",
                 cfg->max_message);
        break;
    case 503:
        code = KIX_EUNAVAIL;
        snprintf(why, sizeof(why), "kixd is out of memory for the body; retry shortly");
        break;
    default:
        snprintf(why, sizeof(why),
                 "the body is empty: POST the JSON that kix publish|attest|rerun --sign-only "
                 "print");
    }
    answer_object(c, status, NULL, json_pack("{s:o}", "error", error_object(code, why)));
}

void kixd_http_policy(struct kixd_http_conn *c, struct kixd_worker *w)
{
    struct kix_log_reader *r = NULL;
    struct kix_log_policy pol;
    struct kix_err err = {0};
    int rc = kixd_worker_reader(w, &r, &err);

    if (rc == KIX_OK)
        rc = kix_log_reader_policy(r, &pol);
    if (rc) {
        answer_error(c, rc, "reading the log's policy failed; retry shortly");
        return;
    }
    answer_object(c, 200, NULL,
                  pol.index == KIX_NO_INDEX
                      ? json_pack("{s:b, s:i, s:n}", "openNotes", 0, "noteWork", 0, "index")
                      : json_pack("{s:b, s:i, s:I}", "openNotes", pol.open_notes, "noteWork",
                                  (int)pol.note_work, "index", (json_int_t)pol.index));
}

/* ---- POST /enroll: a pending key request, outside the log ------------------------------- */

#define ENROLL_MAX      1000 /* pending requests kept; more: the queue is full */
#define ENROLL_NOTE_MAX 1024 /* bytes of a request's note */

static void enroll_dir(const struct kixd_config *cfg, char *out, size_t cap)
{
    if (cfg->enroll_dir[0])
        snprintf(out, cap, "%s", cfg->enroll_dir);
    else
        snprintf(out, cap, "%s/enroll", cfg->store);
}

/* Pending requests in dir (its *.json files), up to ENROLL_MAX + 1. */
static size_t enroll_count(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    while (d && n <= ENROLL_MAX && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > 5 && strcmp(e->d_name + len - 5, ".json") == 0;
    }
    if (d)
        closedir(d);
    return n;
}

/* The request's members: "key" (the key line kix keygen writes in .pub),
 * "roles"? (default ["attest"]; never admin), "note"? */
static int enroll_parse(json_t *doc, struct kix_verifier *v, unsigned *roles, const char **note,
                        struct kix_err *err)
{
    const char *k;
    json_t *r = json_object_get(doc, "roles"), *x;
    size_t i;

    if (!json_is_object(doc))
        return kix_err_set(err, KIX_EINVAL,
                           "the body is not a JSON object: POST {\"key\": \"NAME+HASH+BASE64\", "
                           "\"roles\": [\"attest\"], \"note\": \"who you are\"}");
    json_object_foreach(doc, k, x) if (
        strcmp(k, "key") != 0 && strcmp(k, "roles") != 0 &&
        strcmp(k, "note") !=
            0) return kix_err_set(err, KIX_EINVAL,
                                  "/%s: not a member of an enrolment request (key, roles, note)",
                                  k);
    x = json_object_get(doc, "key");
    if (!json_is_string(x))
        return kix_err_set(err, KIX_EINVAL,
                           "/key: the public key line kix keygen writes in PREFIX.pub (or the run "
                           "page shows), a string");
    if (kix_verifier_parse(json_string_value(x), json_string_length(x), v, err) != KIX_OK ||
        v->alg != KIX_NOTE_ALG_ED25519)
        return kix_err_set(err, KIX_EINVAL, "/key: not an Ed25519 key line (NAME+HASH+BASE64)");
    *roles = KIX_ROLE_ATTEST;
    if (r) {
        *roles = 0;
        if (!json_is_array(r) || json_array_size(r) == 0)
            return kix_err_set(err, KIX_EINVAL, "/roles: a non-empty array of role names");
        json_array_foreach(r, i, x)
        {
            int bit = json_is_string(x)
                          ? kix_roles_parse(json_string_value(x), json_string_length(x))
                          : -1;
            if (bit <= 0 || (bit & KIX_ROLE_ADMIN))
                return kix_err_set(err, KIX_EINVAL,
                                   "/roles/%zu: one of publish, attest, rerun, curate (admin is "
                                   "never asked for)",
                                   i);
            *roles |= (unsigned)bit;
        }
    }
    x = json_object_get(doc, "note");
    *note = "";
    if (x && (!json_is_string(x) || json_string_length(x) > ENROLL_NOTE_MAX))
        return kix_err_set(err, KIX_ELIMIT, "/note: a string of at most %d bytes", ENROLL_NOTE_MAX);
    if (x)
        *note = json_string_value(x);
    return KIX_OK;
}

void kixd_http_enroll(struct kixd_http_conn *c, struct kixd_worker *w, char *body, size_t len,
                      const char *peer)
{
    const struct kixd_config *cfg = w->srv->cfg;
    struct kix_verifier v;
    struct kix_key_info key;
    struct kix_log_reader *r = NULL;
    struct kix_err err = {0};
    struct kix_buf roles_text = KIX_BUF_INIT;
    char dir[4200], path[4300], hex[65], now[32];
    const char *note = "";
    unsigned roles = 0;
    uint8_t id[32];
    json_t *doc = NULL, *rec = NULL;
    struct kix_buf text = KIX_BUF_INIT;
    int rc;

    if (over_rate(c, cfg, "address", peer, kixd_now_ms())) {
        free(body);
        return;
    }
    doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    free(body);
    rc = enroll_parse(doc, &v, &roles, &note, &err);
    if (rc)
        goto refuse;
    kix_sha256(v.pub, 32, id);
    kix_hex_encode(id, 32, hex);
    if ((rc = kixd_worker_reader(w, &r, &err)) != KIX_OK)
        goto refuse;
    if (kix_log_reader_key(r, id, &key) == KIX_OK) {
        rc = kix_err_set(&err, KIX_EEXIST,
                         key.revoked_index == KIX_NO_INDEX
                             ? "key %.16s is registered in this log already (kix key list)"
                             : "key %.16s was revoked in this log; a revoked key stays revoked: "
                               "generate a new key",
                         hex);
        goto refuse;
    }
    enroll_dir(cfg, dir, sizeof(dir));
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rc = kix_err_set(&err, KIX_EIO, "cannot make the enrolment queue %s: %s", dir,
                         strerror(errno));
        goto refuse;
    }
    snprintf(path, sizeof(path), "%s/%s.json", dir, hex);
    if (access(path, F_OK) == 0) {
        rc = kix_err_set(&err, KIX_EEXIST,
                         "key %.16s has asked already; its request waits for the log's admin "
                         "(kix key approve)",
                         hex);
        goto refuse;
    }
    if (enroll_count(dir) >= ENROLL_MAX) {
        rc = kix_err_set(&err, KIX_EUNAVAIL,
                         "the enrolment queue is full (%d requests wait for the admin); retry "
                         "later",
                         ENROLL_MAX);
        goto refuse;
    }
    kix_now_rfc3339(now);
    if (kix_roles_format(roles, &roles_text) != KIX_OK || kix_buf_addc(&roles_text, '\0')) {
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
        goto refuse;
    }
    roles_text.len--; /* the NUL ends the text, not counted */
    rec = json_pack("{s:s, s:s, s:s%, s:s, s:s, s:s}", "keyId", hex, "key",
                    json_string_value(json_object_get(doc, "key")), "roles",
                    roles_text.len ? (const char *)roles_text.ptr : "", roles_text.len, "note",
                    note, "requestedAt", now, "from", peer);
    if (!rec || kix_doc_dumps(rec, KIX_DOC_SORTED, &text, NULL) != KIX_OK)
        kix_buf_reset(&text);
    /* the key line as a .pub file, what kix key add reads; then the request */
    snprintf(path, sizeof(path), "%s/%s.pub", dir, hex);
    unlink(path); /* a leftover of a request removed by hand */
    rc = text.len ? kix_pubfile_write(path, &v, &err)
                  : kix_err_set(&err, KIX_ENOMEM, "out of memory");
    snprintf(path, sizeof(path), "%s/%s.json", dir, hex);
    if (rc == KIX_OK)
        rc = kix_file_write_atomic(path, text.ptr, text.len, 0600, &err);
    if (rc)
        goto refuse;
    kixd_log_request(KIXD_INFO, kixd_request_id(), "POST /enroll", peer, KIX_OK, 0,
                     "key %.16s asks for %s", hex, (const char *)roles_text.ptr);
    answer_object(c, 202, NULL,
                  json_pack("{s:s, s:b, s:s, s:s}", "keyId", hex, "pending", 1, "roles",
                            (const char *)roles_text.ptr, "message",
                            "the request waits for the log's admin, who approves it with kix key "
                            "approve (a key entry in the log)"));
    goto out;
refuse:
    kixd_log_request(KIXD_INFO, kixd_request_id(), "POST /enroll", peer, rc, 0,
                     "request refused: %s", kix_err_text(&err, rc));
    if (rc == KIX_EEXIST)
        answer_object(c, 409, NULL, json_pack("{s:o}", "error", error_object(rc, err.msg)));
    else
        answer_error(c, rc, kix_err_text(&err, rc));
out:
    kix_buf_release(&text);
    json_decref(rec);
    json_decref(doc);
    kix_buf_release(&roles_text);
}

void kixd_http_submit_preflight(struct kixd_http_conn *c)
{
    kixd_http_answer_json(c, 204, preflight_headers, NULL, 0);
}

/* One bundle's answer: the receipt of its entry, or its error. */
static json_t *result_object(struct kixd_submit *job, size_t i, struct kix_log_reader *r,
                             struct kix_buf *text)
{
    const struct kix_append_result *a = &job->results[i];
    struct kix_err err = {0};
    char hex[65];
    int rc;

    if (a->code)
        return json_pack("{s:o}", "error", error_object(a->code, a->message));
    kix_buf_reset(text);
    /* at the size the mirrors hold with --ack-replicas (replicas.c) */
    rc = r ? kix_log_reader_receipt(r, a->index, job->receipt_size, text, &err) : KIX_EIO;
    if (rc)
        return json_pack("{s:o}", "error", error_object(rc, kix_err_text(&err, rc)));
    kix_hex_encode(a->leaf_hash.b, 32, hex);
    return json_pack("{s:I, s:s, s:b, s:s%}", "index", (json_int_t)a->index, "leafHash", hex,
                     "duplicate", a->duplicate != 0, "receipt", (const char *)text->ptr, text->len);
}

static void answer_job(struct kixd_submit *job)
{
    struct http_submit *h = job->owner;
    struct kix_log_reader *r = NULL;
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_err err = {0};
    json_t *doc;
    unsigned status = 200;

    if (kixd_http_closing(h->c))
        return;
    if (job->rc) {
        answer_error(h->c, job->rc, kix_err_text(&job->err, job->rc));
        kixd_log_request(KIXD_WARN, job->req_id, "POST /submit", h->peer, job->rc,
                         kixd_now_ms() - job->started_ms, "request failed: %s",
                         kix_err_text(&job->err, job->rc));
        return;
    }
    if (kixd_worker_reader(job->w, &r, &err))
        r = NULL;
    if (h->parsed.single) {
        const struct kix_append_result *a = &job->results[0];
        doc = result_object(job, 0, r, &text);
        if (a->code)
            status = status_of(a->code);
        else if (json_object_get(doc, "error"))
            status = 500;
        else
            status = a->duplicate ? 409 : 201;
        if (doc && !a->code)
            json_object_set_new(doc, "size", json_integer((json_int_t)job->size));
    } else {
        json_t *results = json_array();
        for (size_t i = 0; results && i < job->n; i++) {
            json_array_append_new(results, result_object(job, i, r, &text));
        }
        doc = json_pack("{s:o, s:I}", "results", results, "size", (json_int_t)job->size);
    }
    for (size_t i = 0; i < job->n; i++)
        if (job->results[i].code)
            kixd_log_request(KIXD_INFO, job->req_id, "POST /submit", h->peer, job->results[i].code,
                             kixd_now_ms() - job->started_ms, "bundle %zu of %zu refused: %s", i,
                             job->n, job->results[i].message);
    answer_object(h->c, status, NULL, doc);
    kix_buf_release(&text);
}

static void release_job(struct kixd_submit *job)
{
    struct http_submit *h = job->owner;

    atomic_fetch_sub(&job->srv->submit_bytes, h->len);
    job->w->jobs--;
    kix_submit_body_release(&h->parsed);
    free(h->body);
    kixd_http_resume(h->c);
    free(h);
}

void kixd_http_submit_start(struct kixd_http_conn *c, struct kixd_worker *w, char *body, size_t len,
                            const char *peer)
{
    struct kixd_server *srv = w->srv;
    struct http_submit *h = calloc(1, sizeof(*h));
    struct kixd_submit *job = NULL;
    struct kix_err err = {0};
    size_t busy, total = 0;
    int rc;

    if (!h) {
        free(body);
        answer_error(c, KIX_ENOMEM, "out of memory accepting the submission; retry shortly");
        return;
    }
    h->c = c;
    h->body = body;
    h->len = len;
    snprintf(h->peer, sizeof(h->peer), "%s", peer);
    if (over_rate(c, srv->cfg, "address", peer, kixd_now_ms())) {
        free(h->body);
        free(h);
        return;
    }
    if (kix_log_is_replica(srv->log)) {
        snprintf(err.msg, sizeof(err.msg),
                 "this kixd serves a read-only mirror of %s; submit to the log's own server",
                 kix_log_origin(srv->log));
        rc = KIX_EREADONLY;
        goto refuse;
    }
    if (atomic_load(&srv->stopping)) {
        rc = kix_err_set(&err, KIX_EUNAVAIL, "kixd is stopping; submit again once it is back");
        goto refuse;
    }
    busy = atomic_load(&srv->submit_bytes);
    if (busy > 0 && busy + len > srv->cfg->max_submit_bytes) {
        rc =
            kix_err_set(&err, KIX_EUNAVAIL,
                        "kixd is busy verifying %zu bytes of submissions; retry in a moment", busy);
        goto refuse;
    }
    rc = kix_submit_body_parse((const uint8_t *)body, len, srv->cfg->max_batch, &h->parsed, &err);
    if (rc)
        goto refuse;
    /* each entry counts against its signer's key (one that does not parse
     * is the writer's to refuse) */
    for (size_t i = 0; i < h->parsed.n; i++) {
        const struct kix_buf *env = &h->parsed.bundles[i].envelope;
        struct kix_entry_summary s;
        char id[65];

        if (kix_entry_describe(env->ptr, env->len, &s, NULL) != KIX_OK)
            continue;
        kix_hex_encode(s.signer, 32, id);
        if (over_rate(c, srv->cfg, "key", id, kixd_now_ms())) {
            kix_submit_body_release(&h->parsed);
            free(h->body);
            free(h);
            return;
        }
    }
    for (size_t i = 0; i < h->parsed.n; i++)
        total += h->parsed.bundles[i].nobjects;
    job = kixd_submit_new(h->parsed.n, total);
    if (!job) {
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory accepting %zu bundles", h->parsed.n);
        goto refuse;
    }
    total = 0;
    for (size_t i = 0; i < h->parsed.n; i++) {
        const struct kix_submit_bundle *b = &h->parsed.bundles[i];
        for (size_t j = 0; j < b->nobjects; j++)
            job->objs[total + j] = kix_buf_bytes(&b->objects[j]);
        job->subs[i].envelope = kix_buf_bytes(&b->envelope);
        job->subs[i].objects = job->objs + total;
        job->subs[i].nobjects = b->nobjects;
        total += b->nobjects;
    }
    job->w = w;
    job->srv = srv;
    job->req_id = kixd_request_id();
    job->started_ms = kixd_now_ms();
    job->answer = answer_job;
    job->release = release_job;
    job->owner = h;
    kixd_http_hold(c);
    w->jobs++;
    atomic_fetch_add(&srv->submit_bytes, len);
    kixd_submit_start(job);
    return;
refuse:
    kixd_log_request(KIXD_INFO, kixd_request_id(), "POST /submit", peer, rc, 0,
                     "request refused: %s", kix_err_text(&err, rc));
    answer_error(c, rc, kix_err_text(&err, rc));
    kix_submit_body_release(&h->parsed);
    free(h->body);
    free(h);
}
