/* daemon/base/config.h — kixd serve's configuration (serve_options.c): struct
 * kixd_config, and the one table of options that parses the command line
 * and the --config file and prints --help.
 *
 * Every option is accepted on the command line (--NAME VALUE, or --NAME for
 * a flag) and in the config file ("NAME = VALUE" lines; a flag takes true
 * or false); the command line wins, and --listen given there replaces the
 * file's listen lines. The configuration is plain data, filled once on the
 * main thread and read-only afterwards (every thread reads it). */
#ifndef KIXD_CONFIG_H
#define KIXD_CONFIG_H

#include <stdio.h>

#include <stddef.h>

#define KIXD_MAX_LISTEN    16
#define KIXD_ADDR_MAX      512
#define KIXD_MAX_WITNESSES 32
#define KIXD_MAX_REPLICAS  32 /* --ack-replicas N at most, and mirrors counted */
/* Bundle and pack files each worker keeps open (http_bundles.h); counted in the
 * descriptors kixd asks for (fd_limit.c), which is why it lives on the base
 * floor rather than beside the worker (server.h). */
#define KIXD_BUNDLE_DIR                                                                            \
    "bundles" /* in the store directory: http_bundles.c's files, which                             \
                the export hard-links (export.c) */
#define KIXD_BUNDLE_FDS 32

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
    int no_large_pages;        /* no huge pages asked for the store's maps */
    int no_migrate_backup;     /* convert a store of an older layout without a copy first */
    int no_store_check;        /* serve a store that fails the start-up check */
    char log_key_file[4096];   /* the log key's file; "": STORE/log.key */
    int read_only;             /* serve a copy without signing: no origin, no mirror */
    char source[4096];         /* --source URL: serve that source read-only, no store */
    char peers[KIXD_MAX_WITNESSES][KIXD_ADDR_MAX]; /* mirrors asked at start (peers.c) */
    size_t npeers;
    unsigned ack_replicas;   /* answer a submit once this many mirrors hold it (replicas.c) */
    unsigned ack_timeout_ms; /* and refuse it (EUNAVAIL) when they do not within this */
    /* count only reports these mirror keys cosigned (text or a file; replicas.c) */
    char ack_mirror_keys[KIXD_MAX_REPLICAS][1024];
    size_t nack_mirror_keys;
    int insecure_unsigned_acks; /* --ack-replicas counts unsigned reports (no keys) */
    int log_level;
    int log_json;         /* --log-format json */
    unsigned log_slow_ms; /* --log-slow-ms: a request this slow is logged */
    /* mirror mode (mirror.c) and witness cosignatures (witness.c) */
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
    size_t http_max_header;       /* request line and headers of one request */
    int http_metrics;             /* serve /metrics on the HTTP listeners */
    int http_submit;              /* take POST /submit on the HTTP listeners (http_submit.c) */
    char http_submit_origin[256]; /* the web origin allowed to POST /submit (CORS); "": none */
    unsigned http_submit_rate; /* POST /submit bodies a minute per address and per key; 0: none */
    char submit_url[1024];     /* where run pages send what readers sign; "": see --http-submit */
    char enroll_dir[4096];     /* POST /enroll's pending key requests; "": <store>/enroll */
    int http_access_log;       /* one log line per HTTP request */
    int phase_stats;           /* count CPU time per append phase (kix_log_phase_stats) */
    char export_dir[4096];     /* keep a tlog-tiles directory current; "" = off */
    char log_file[4096];       /* --log-file: the diagnostics go there, reopened on SIGHUP */
};

/* Fills cfg from the defaults, the --config file and argv (argv[0] is the
 * command's name). Returns -1 when kixd should serve with cfg, else the
 * exit status to end with: 0 after --help (printed on stdout), 2 for a
 * usage error (the message is on stderr). */
int kixd_config_parse(struct kixd_config *cfg, int argc, char **argv);
/* serve's table as kix/cmdline.h's kix_cmdline_dump prints one (kixd serve
 * --dump-options): what the man page, the completions and the config file
 * are checked against. */
void kixd_config_dump(FILE *f);

/* A decimal count in [lo, hi] (no sign, no overflow) into *out: 0, or -1. */
int kixd_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out);

#endif
