/* daemon/kixd.h — kixd's subcommands, configuration and logging (not a
 * library API; shared by the files of daemon/). main.c parses the
 * configuration; log.c writes the log. */
#ifndef KIXD_H
#define KIXD_H

#include <stddef.h>
#include <stdint.h>

#include "kix/error.h"
#include "kix/version.h"

/* kixd init: create a store, its log key and entry 0. Returns an exit status. */
int kixd_init_main(int argc, char **argv);
/* kixd serve: run the server until SIGTERM/SIGINT. Returns an exit status. */
int kixd_serve_main(int argc, char **argv);

/* ---- logging: one line per event on stderr, "TIME LEVEL message" ---------- */

enum kixd_level { KIXD_DEBUG = 0, KIXD_INFO = 1, KIXD_WARN = 2, KIXD_ERROR = 3 };

/* Lines below the level are dropped (cheap to call). Never pass secrets. */
void kixd_log(int level, const char *fmt, ...) KIX_PRINTF(2, 3);
int kixd_log_enabled(int level);
void kixd_log_set_level(int level); /* log.c owns the level; main sets it once */
void kixd_log_set_format(int json); /* 0 text (the default), 1 one JSON object per line */

/* Requests: each gets an id (kixd_request_id, unique in this process,
 * from 1) that every line about it carries. kixd_log_request logs one line
 * about request `id` with its fields: in text "TIME LEVEL message req=ID
 * method=M peer=P cause=NAME ms=T" (cause only for an error code, ms only
 * when >= 0), in json the same as "req", "method", "peer", "cause", "ms"
 * beside "time", "level" and "msg". Refusals are logged at info, requests
 * slower than kixd_log_slow_ms() (--log-slow-ms) at warn. */
uint64_t kixd_request_id(void);
double kixd_now_ms(void); /* a monotonic clock, for request durations */
void kixd_log_request(int level, uint64_t id, const char *method, const char *peer, int code,
                      double ms, const char *fmt, ...) KIX_PRINTF(7, 8);
/* One line per HTTP request (--http-access-log), at info: in text "TIME INFO
 * http METHOD PATH method=M path=P status=S bytes=B ms=T peer=P", in json
 * the same fields beside "time", "level" and "msg". */
void kixd_log_access(const char *method, const char *path, unsigned status, uint64_t bytes,
                     double ms, const char *peer);
void kixd_log_set_slow_ms(unsigned ms); /* main sets it once; 0: every request is slow */
unsigned kixd_log_slow_ms(void);

/* A decimal count in [lo, hi] (no sign, no overflow) into *out: 0, or -1. */
int kixd_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out);

/* ---- configuration ------------------------------------------------------------ */

#define KIXD_MAX_LISTEN    16
#define KIXD_ADDR_MAX      512
#define KIXD_MAX_WITNESSES 32

struct kixd_config {
    char store[4096];
    char listen[KIXD_MAX_LISTEN][KIXD_ADDR_MAX];
    size_t nlisten;
    unsigned threads;          /* event loops; default: online CPUs */
    size_t max_message;        /* bytes of one message, either way */
    unsigned max_in_flight;    /* unanswered requests per connection */
    unsigned max_connections;  /* open connections in all */
    unsigned idle_timeout_ms;  /* close a connection silent this long */
    size_t max_output;         /* per connection: stop reading past it */
    size_t max_read_buffers;   /* all connections: receive buffers */
    size_t max_submit_bytes;   /* all connections: submits being verified/committed */
    unsigned max_batch;        /* bundles in one submit */
    unsigned max_group;        /* entries in one group commit */
    unsigned max_entries;      /* entries in one get_entries answer */
    unsigned max_objects;      /* digests in one get_objects */
    unsigned drain_timeout_ms; /* how long shutdown waits for in-flight work */
    size_t map_max;            /* ceiling of the store's map (0: the store's default) */
    int no_store_check;        /* serve a store that fails the start-up check */
    int log_level;
    int log_json;         /* --log-format json */
    unsigned log_slow_ms; /* --log-slow-ms: a request this slow is logged */
    /* mirror mode (mirror.c) and witnesses (cosign.c) */
    char mirror_of[KIXD_ADDR_MAX];            /* upstream address; "" when not a mirror */
    char upstream_key[4096];                  /* its log key: verifier text or a file */
    int fail_on_fork;                         /* exit (status 4) when a fork is found */
    unsigned mirror_batch;                    /* entries per replica transaction */
    char witness_key[4096];                   /* this mirror's witness key file */
    char witnesses[KIXD_MAX_WITNESSES][1024]; /* witness keys accepted (text or file) */
    size_t nwitnesses;
    /* c2sp.org/tlog-witness (tlog_witness.c, witness_client.c) */
    char witness_logs[KIXD_MAX_WITNESSES][1280]; /* "[ORIGIN ]KEY" this witness cosigns */
    size_t nwitness_logs;
    char http_witnesses[KIXD_MAX_WITNESSES][3072]; /* "URL KEY": ask them add-checkpoint */
    size_t nhttp_witnesses;
    char http_witness_ca[4096]; /* CA certificates for https:// witnesses; "": the system's */
    /* the HTTP side (http.c, export.c) */
    char http[KIXD_MAX_LISTEN][KIXD_ADDR_MAX]; /* tcp://HOST:PORT listeners for HTTP */
    size_t nhttp;
    size_t http_max_header; /* request line and headers of one request */
    int http_metrics;       /* serve /metrics on the HTTP listeners */
    int http_access_log;    /* one log line per HTTP request */
    int phase_stats;        /* count CPU time per append phase (kix_log_phase_stats) */
    char export_dir[4096];  /* keep a tlog-tiles directory current; "" = off */
};

/* kixd export: write a store's tlog-tiles tree into a directory once. */
int kixd_export_main(int argc, char **argv);

#endif
