/* kixd serve's options (config.h): one table, read by the command line
 * (through its kix/cmdline.h view, as every other command's), the --config
 * file, --help and --dump-options alike, so an option cannot be known to
 * one and not the other. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "kix/cmdline.h"
#include "kix/addr.h"
#include "kix/error.h"

/* ---- values -------------------------------------------------------------------------- */

int kixd_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out)
{
    char *end;
    unsigned long long v;

    if (!*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_bytes(const char *s, size_t lo, size_t hi, size_t *out)
{
    char *end;
    unsigned long long v, mul = 1;

    if (!*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30;
    if (mul > 1)
        end++;
    if (*end || v > hi / mul || v * mul < lo)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int parse_seconds(const char *s, unsigned *ms)
{
    char *end;
    double v;

    if (!*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !(v >= 0.001) || v > 86400.0 * 365)
        return -1;
    *ms = (unsigned)(v * 1000.0 + 0.5);
    return 0;
}

static int parse_level(const char *s)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* ---- the table ------------------------------------------------------------------------ */

struct option_spec;

/* Sets one option from its value (NULL for a flag on the command line).
 * Returns 0; 1 for a bad value (the caller says so, naming the option);
 * -1 with its own message in why. */
typedef int (*setter_fn)(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                         char *why, size_t cap);

enum arg_kind {
    ARG_NONE, /* a flag: nothing on the command line, true or false in the file */
    ARG_VALUE,
};

struct option_spec {
    const char *name; /* --NAME, and NAME in the config file; NULL: a line of help text */
    char short_name;  /* 0: none */
    enum arg_kind arg;
    const char *metavar;           /* the value's name in --help */
    setter_fn set;                 /* NULL: handled by kixd_config_parse itself */
    size_t field;                  /* offsetof the target in struct kixd_config */
    size_t size;                   /* text: its buffer; list: one item's */
    unsigned long long lo, hi;     /* counts and sizes: the range */
    size_t count_field, max_items; /* lists: offsetof their count, and the most */
    const char *help;              /* NULL: not listed; '\n' separates lines */
};

#define FIELD(f)  offsetof(struct kixd_config, f), sizeof(((struct kixd_config *)0)->f)
#define TARGET(T) (*(T *)((char *)cfg + o->field))

static int set_flag(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                    size_t cap)
{
    /* the spellings config files of other daemons use (systemd, nginx, sshd) */
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no",
                                                                                "off", "0"};
    if (!v) {
        TARGET(int) = 1;
        return 0;
    }
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0) {
            TARGET(int) = 1;
            return 0;
        }
        if (strcmp(v, no[i]) == 0) {
            TARGET(int) = 0;
            return 0;
        }
    }
    snprintf(why, cap, "--%s: bad value \"%s\" (a flag: true, yes, on or 1; false, no, off or 0)",
             o->name, v);
    return -1;
}

static int set_text(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                    size_t cap)
{
    (void)why;
    (void)cap;
    if (!*v || strlen(v) >= o->size)
        return 1;
    snprintf(&TARGET(char), o->size, "%s", v);
    return 0;
}

/* A web origin as browsers send it in Origin: scheme://host[:port], no
 * path, no trailing slash (RFC 6454). */
static int set_origin(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                      char *why, size_t cap)
{
    const char *host = strncmp(v, "https://", 8) == 0  ? v + 8
                       : strncmp(v, "http://", 7) == 0 ? v + 7
                                                       : NULL;

    if (!host || !*host || strpbrk(host, "/?#@ ") || strlen(v) >= o->size) {
        snprintf(why, cap,
                 "--%s %.100s: not a web origin; give scheme://host[:port], as "
                 "https://bench.example.org, with no path",
                 o->name, v);
        return -1;
    }
    snprintf(&TARGET(char), o->size, "%s", v);
    return 0;
}

/* One more item of a repeatable option whose items are texts. */
static int set_list(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                    size_t cap, const char *items)
{
    size_t *n = (size_t *)((char *)cfg + o->count_field);

    if (*n >= o->max_items) {
        snprintf(why, cap, "at most %zu --%s %s", o->max_items, o->name, items);
        return -1;
    }
    if (!*v || strlen(v) >= o->size)
        return 1;
    snprintf((char *)cfg + o->field + *n * o->size, o->size, "%s", v);
    (*n)++;
    return 0;
}

static int set_count(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                     size_t cap)
{
    unsigned long long n = 0;

    (void)why;
    (void)cap;
    if (kixd_parse_count(v, o->lo, o->hi, &n) != 0)
        return 1;
    TARGET(unsigned) = (unsigned)n;
    return 0;
}

static int set_bytes(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                     size_t cap)
{
    size_t b = 0;

    (void)why;
    (void)cap;
    if (parse_bytes(v, (size_t)o->lo, (size_t)o->hi, &b) != 0)
        return 1;
    TARGET(size_t) = b;
    return 0;
}

static int set_seconds(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                       char *why, size_t cap)
{
    (void)why;
    (void)cap;
    return parse_seconds(v, &TARGET(unsigned)) != 0;
}

static int set_log_level(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                         char *why, size_t cap)
{
    (void)o;
    (void)why;
    (void)cap;
    return (cfg->log_level = parse_level(v)) < 0;
}

static int set_log_format(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                          char *why, size_t cap)
{
    (void)o;
    (void)why;
    (void)cap;
    cfg->log_json = strcmp(v, "json") == 0;
    return strcmp(v, "text") != 0 && strcmp(v, "json") != 0;
}

/* --listen and --http: an address kix_addr_validate takes (--http: tcp only). */
static int set_address(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                       char *why, size_t cap)
{
    size_t *n = (size_t *)((char *)cfg + o->count_field);
    int http = strcmp(o->name, "http") == 0;
    struct kix_err aerr = {0};

    if (*n >= o->max_items) {
        snprintf(why, cap, "at most %zu --%s addresses", o->max_items, o->name);
        return -1;
    }
    if (http && (strlen(v) >= KIXD_ADDR_MAX || strncmp(v, "tcp://", 6) != 0)) {
        snprintf(why, cap, "--http %.80s: expected tcp://HOST:PORT", v);
        return -1;
    }
    if (strlen(v) >= KIXD_ADDR_MAX) {
        snprintf(why, cap, "--%s %.80s...: longer than %d bytes", o->name, v, KIXD_ADDR_MAX - 1);
        return -1;
    }
    if (kix_addr_validate(v, &aerr) != KIX_OK) {
        snprintf(why, cap, "--%s: %.400s", o->name, aerr.msg);
        return -1;
    }
    snprintf((char *)cfg + o->field + *n * o->size, o->size, "%s", v);
    (*n)++;
    return 0;
}

static int set_mirror_of(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                         char *why, size_t cap)
{
    (void)o;
    if (strlen(v) >= sizeof(cfg->mirror_of) ||
        (strncmp(v, "tcp://", 6) != 0 && strncmp(v, "unix://", 7) != 0 &&
         strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)) {
        snprintf(why, cap,
                 "--mirror-of %s: expected tcp://HOST:PORT, unix:///PATH or a static copy's "
                 "http(s)://HOST/PREFIX/",
                 v);
        return -1;
    }
    snprintf(cfg->mirror_of, sizeof(cfg->mirror_of), "%s", v);
    return 0;
}

static int set_witness(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                       char *why, size_t cap)
{
    return set_list(cfg, o, v, why, cap, "keys");
}

static int set_witness_log(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                           char *why, size_t cap)
{
    return set_list(cfg, o, v, why, cap, "logs");
}

/* "URL KEY": a witness's submission prefix, a space, its verifier key. */
static int set_http_witness(struct kixd_config *cfg, const struct option_spec *o, const char *v,
                            char *why, size_t cap)
{
    const char *sp = strrchr(v, ' ');

    if (cfg->nhttp_witnesses >= o->max_items) {
        snprintf(why, cap, "at most %zu --http-witness witnesses", o->max_items);
        return -1;
    }
    if (!sp || sp == v || !sp[1] || strlen(v) >= o->size ||
        (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)) {
        snprintf(why, cap,
                 "--http-witness %.200s: expected \"URL KEY\" (the witness's submission "
                 "prefix, http:// or https://, a space, and its verifier key or a file "
                 "holding it)",
                 v);
        return -1;
    }
    return set_list(cfg, o, v, why, cap, "witnesses");
}

/* Entries: a line of help text; a flag; a text; a count or size in
 * [lo, hi]; a repeatable item (its count field and the most items). */
#define TEXT(h)                                                                                    \
    {                                                                                              \
        NULL, 0, ARG_NONE, NULL, NULL, 0, 0, 0, 0, 0, 0, h                                         \
    }
#define FLAG(n, f, h)                                                                              \
    {                                                                                              \
        n, 0, ARG_NONE, NULL, set_flag, FIELD(f), 0, 0, 0, 0, h                                    \
    }
#define VALUE(n, m, fn, f, lo, hi, h)                                                              \
    {                                                                                              \
        n, 0, ARG_VALUE, m, fn, FIELD(f), lo, hi, 0, 0, h                                          \
    }
#define LIST(n, m, fn, f, count, h)                                                                \
    {                                                                                              \
        n, 0, ARG_VALUE, m, fn, offsetof(struct kixd_config, f),                                   \
            sizeof(((struct kixd_config *)0)->f[0]), 0, 0, offsetof(struct kixd_config, count),    \
            sizeof(((struct kixd_config *)0)->f) / sizeof(((struct kixd_config *)0)->f[0]), h      \
    }

static const struct option_spec options[] = {
    TEXT("\n"
         "Serves the log in DIR (made by 'kixd init') over msgpack-RPC (proto/PROTOCOL.md).\n"
         "kixd serves as the log's origin only with its log key (DIR/log.key or\n"
         "--log-key-file), and refuses to start without it; a copy is served without\n"
         "its key only when said: --mirror-of or --read-only. One kixd per store\n"
         "(DIR/kixd.lock). Logs go to stderr.\n"
         "SIGTERM or SIGINT stops accepting, commits and answers the submits in flight,\n"
         "then exits 0.\n"
         "\n"),
    VALUE("store", "DIR", set_text, store, 0, 0, "the log's store directory (required)"),
    LIST("listen", "ADDR", set_address, listen, nlisten,
         "tcp://HOST:PORT or unix:///PATH; repeat for more\n"
         "(default tcp://127.0.0.1:7420)"),
    {"config", 0, ARG_VALUE, "FILE", NULL, 0, 0, 0, 0, 0, 0,
     "'key = value' lines, keys as these long options\n"
     "(listen may repeat; a flag takes true/yes/on/1 or\n"
     "false/no/off/0); the command line wins"},
    VALUE("log-file", "FILE", set_text, log_file, 0, 0,
          "write the diagnostics to FILE (appended) instead of\n"
          "stderr; SIGHUP reopens it (after a log rotation) and\n"
          "says so in it"),
    VALUE("log-level", "LEVEL", set_log_level, log_level, 0, 0,
          "debug, info, warn or error (default info)"),
    VALUE("log-format", "FORMAT", set_log_format, log_json, 0, 0,
          "text (\"TIME LEVEL message\"; under systemd the\n"
          "journal's priority prefix instead of the time) or\n"
          "json (one {\"time\",\"level\",\"msg\"} object per line).\n"
          "Each request has an id; a refused request is\n"
          "logged at info and a slow one at warn with\n"
          "req=ID method=M peer=P cause=NAME ms=T (json:\n"
          "\"req\", \"method\", \"peer\", \"cause\", \"ms\")"),
    VALUE("log-slow-ms", "MS", set_count, log_slow_ms, 0, 3600000,
          "a request answered after this long is slow\n"
          "(default 1000; 0 logs every request)"),
    VALUE("threads", "N", set_count, threads, 1, 64,
          "event loops, each with its own TCP listener\n"
          "(default: the number of CPUs)"),
    TEXT("\nlimits (sizes take a K, M or G suffix; times are seconds):\n"),
    VALUE("max-message", "BYTES", set_bytes, max_message, 4096, (size_t)1 << 30,
          "one message, either way (default 16M)"),
    VALUE("max-in-flight", "N", set_count, max_in_flight, 1, 1u << 20,
          "unanswered requests per connection; past it kixd\n"
          "stops reading that connection (default 256)"),
    VALUE("max-connections", "N", set_count, max_connections, 1, 1u << 24,
          "open connections; more are closed at once (default 4096)"),
    VALUE("idle-timeout", "SECS", set_seconds, idle_timeout_ms, 0, 0,
          "close a connection silent this long (default 120)"),
    VALUE("max-output", "BYTES", set_bytes, max_output, 4096, (size_t)1 << 34,
          "unsent answers per connection before kixd stops\n"
          "reading it or pauses its follow stream (default 8M)"),
    VALUE("max-read-buffers", "BYTES", set_bytes, max_read_buffers, 1 << 20, (size_t)1 << 40,
          "receive buffers of all connections; past it a\n"
          "connection sending a message over 1 MiB is dropped\n"
          "(default 1G)"),
    VALUE("max-submit-bytes", "BYTES", set_bytes, max_submit_bytes, 1 << 20, (size_t)1 << 40,
          "submit requests being verified and committed;\n"
          "past it submits get EUNAVAIL (default 256M)"),
    VALUE("max-batch", "N", set_count, max_batch, 1, 65536, "bundles in one submit (default 1024)"),
    VALUE("max-group", "N", set_count, max_group, 1, 1u << 20,
          "entries committed in one transaction (default 4096)"),
    VALUE("max-entries", "N", set_count, max_entries, 1, 100000,
          "entries in one get_entries answer (default 1000)"),
    VALUE("max-objects", "N", set_count, max_objects, 1, 100000,
          "digests in one get_objects request (default 1024)"),
    TEXT("  fixed: 1000 checkpoints per get_checkpoints, 1000 runs per query page\n"
         "                         ('kix info' shows the limits a server announces)\n"),
    VALUE("drain-timeout", "SECS", set_seconds, drain_timeout_ms, 0, 0,
          "how long a stop waits for in-flight work (default 30)"),
    VALUE("map-max", "BYTES", set_bytes, map_max, (size_t)1 << 20, (size_t)1 << 50,
          "the most each store file may grow to (default 1T;\n"
          "data.mdb, index.mdb, log.dat); past\n"
          "it submits get EFULL while reads go on: raise it and\n"
          "restart, or start a new log"),
    FLAG("no-large-pages", no_large_pages,
         "do not ask the kernel for 2 MiB pages on the store's\n"
         "files (by default kixd does: fewer TLB misses on a\n"
         "large store, read 2 MiB at a time; OPERATING.md)"),
    FLAG("no-migrate-backup", no_migrate_backup,
         "convert a store an older kixd wrote without copying\n"
         "it to DIR.before-migrate first (OPERATING.md,\n"
         "Upgrading a store)"),
    VALUE("log-key-file", "FILE", set_text, log_key_file, 0, 0,
          "the log's signing key (default DIR/log.key): keep it\n"
          "outside the store, so copies of the store hold no key"),
    LIST("peer", "ADDR", set_address, peers, npeers,
         "a mirror of this log: at start, kixd refuses to\n"
         "serve as the origin a store behind it (a restored\n"
         "copy) or forked from it; repeat for more"),
    VALUE("ack-replicas", "N", set_count, ack_replicas, 0, KIXD_MAX_REPLICAS,
          "answer a submit (its receipt) only once N mirrors\n"
          "following this origin hold it durably (default 0:\n"
          "at once; see OPERATING.md, a mirror takes over)"),
    VALUE("ack-timeout", "SECS", set_seconds, ack_timeout_ms, 0, 0,
          "with --ack-replicas: a submit not held by N mirrors\n"
          "this long gets EUNAVAIL, never a receipt (default 10)"),
    LIST("ack-mirror-key", "KEY", set_witness, ack_mirror_keys, nack_mirror_keys,
         "with --ack-replicas: count only the reports this\n"
         "mirror's --witness-key signed as held (verifier key\n"
         "text or a file; kix keygen --witness); repeat for more"),
    FLAG("insecure-unsigned-acks", insecure_unsigned_acks,
         "--ack-replicas without --ack-mirror-key: count\n"
         "unsigned reports, which anyone who can connect can\n"
         "forge (tests only; refused without this flag)"),
    FLAG("read-only", read_only,
         "serve the store without its key and refuse submits (a\n"
         "restored copy or an audit replica; not an origin)"),
    VALUE("source", "URL", set_text, source, 0, 0,
          "serve, instead of a store, the static copy at URL (made\n"
          "by 'kixd export', read over HTTP(S) as kix reads it):\n"
          "every RPC read answered from it, writes refused"),
    TEXT("\n"),
    FLAG("no-store-check", no_store_check,
         "serve even a store that fails the start-up check (to\n"
         "copy data off a damaged store, or to test clients\n"
         "against a lying server: they detect every bad answer)"),
    TEXT("\n"
         "Before serving, kixd checks the store quickly (the latest checkpoint against\n"
         "the tree and the last 1024 entries) and refuses a store that fails; 'kixd\n"
         "check' runs the full check.\n"
         "\n"
         "mirrors and witnesses:\n"),
    {"mirror-of", 0, ARG_VALUE, "ADDR", set_mirror_of, FIELD(mirror_of), 0, 0, 0, 0,
     "serve a verified, read-only copy of the log at ADDR:\n"
     "DIR is created as its replica on first start, caught up\n"
     "with kix_sync and kept current by following ADDR (a kixd's\n"
     "tcp:// or unix://, or a static copy's http(s)://HOST/PREFIX/,\n"
     "polled; CAs: the system's or $KIX_CACERT)"},
    VALUE("upstream-key", "KEY", set_text, upstream_key, 0, 0,
          "the upstream log's verifier key (text or a file);\n"
          "required with --mirror-of"),
    FLAG("fail-on-fork", fail_on_fork,
         "exit with status 4 when the upstream forks or rolls back\n"
         "(else keep serving what was verified, and report it)"),
    VALUE("mirror-batch", "N", set_count, mirror_batch, 1, 1u << 20,
          "entries verified and committed per transaction while\n"
          "catching up, at most (default 1024; each ends at an\n"
          "upstream checkpoint)"),
    VALUE("witness-key", "FILE", set_text, witness_key, 0, 0,
          "cosign each checkpoint the mirror verified with this\n"
          "witness key (kix keygen --witness) and send it upstream"),
    LIST("witness", "KEY", set_witness, witnesses, nwitnesses,
         "accept add_cosignature from this witness (verifier key\n"
         "text or a file); repeat for more"),
    LIST("witness-log", "\"[ORIGIN ]KEY\"", set_witness_log, witness_logs, nwitness_logs,
         "with --witness-key: also witness this log (any\n"
         "C2SP log, known by its verifier key, text or a file, and\n"
         "its origin when not the key's name): answer its\n"
         "POST /add-checkpoint (c2sp.org/tlog-witness) on --http;\n"
         "a mirror witnesses its upstream too. Repeat for more"),
    LIST("http-witness", "\"URL KEY\"", set_http_witness, http_witnesses, nhttp_witnesses,
         "after each commit, ask the witness at URL (its\n"
         "submission prefix) for a cosignature with POST\n"
         "URL/add-checkpoint; KEY is its cosignature verifier\n"
         "key (text or a file). Repeat for more"),
    VALUE("http-witness-ca", "FILE", set_text, http_witness_ca, 0, 0,
          "the CA certificates (PEM) that https:// witnesses'\n"
          "certificates must chain to (default: the system's)"),
    TEXT("\nthe HTTP side (C2SP tlog-tiles; proto/PROTOCOL.md, 'HTTP'):\n"),
    LIST("http", "ADDR", set_address, http, nhttp,
         "tcp://HOST:PORT: serve checkpoint, tile/<L>/<N>[.p/<W>]\n"
         "and tile/entries/<N>[.p/<W>] over HTTP/1.1 (GET, HEAD),\n"
         "with the pages runs/<runId>[.html|.json],\n"
         "groups/<key>[.html|.json], kernels/, home/ and /\n"
         "(runs/sha256:<hex>: that manifest's run); repeat for more.\n"
         "--max-connections, --idle-timeout and --max-output apply\n"
         "as to RPC connections"),
    VALUE("http-max-header", "BYTES", set_bytes, http_max_header, 1024, (size_t)1 << 20,
          "request line and headers of one request; more gets\n"
          "431 (default 8K)"),
    FLAG("http-metrics", http_metrics, "also serve /metrics (Prometheus text format) on --http"),
    FLAG("http-submit", http_submit,
         "also take writes on --http: POST /submit with a JSON\n"
         "body (a DSSE envelope and its objects), checked and\n"
         "committed as an RPC submit; off by default"),
    VALUE("http-submit-rate", "N", set_count, http_submit_rate, 0, 1000000,
          "POST /submit: at most N bodies a minute from one\n"
          "address and N from one signing key (a burst of N, then\n"
          "N a minute); more get 429 with Retry-After. Open notes\n"
          "count alike on the msgpack port. 0: no limit\n"
          "(default 60)"),
    VALUE("enroll-dir", "DIR", set_text, enroll_dir, 0, 0,
          "with --http-submit, POST /enroll keeps each pending key\n"
          "request here, outside the log, for the admin's kix key\n"
          "pending and kix key approve (default STORE/enroll)"),
    VALUE("submit-url", "URL", set_text, submit_url, 0, 0,
          "where run pages (served and --export'ed) send what a\n"
          "reader signs in the browser (\"Add a reproduction or\n"
          "note\"): an origin's https://HOST/submit; default with\n"
          "--http-submit: this kixd's own /submit"),
    VALUE("http-submit-origin", "ORIGIN", set_origin, http_submit_origin, 0, 0,
          "the one web origin (https://HOST[:PORT]) whose pages may\n"
          "POST /submit from a browser (CORS); other origins are\n"
          "refused. Pages kixd serves itself need none"),
    FLAG("http-access-log", http_access_log,
         "log one line per HTTP request (method, path, status,\n"
         "bytes, ms, peer) in the --log-format, at info"),
    FLAG("phase-stats", phase_stats,
         "count the CPU time of each phase of an append (receive,\n"
         "canonical, hash, verify, policy, index, commit, answer)\n"
         "for /metrics; costs about 7 clock reads an append\n"
         "(prepare's are sampled: one entry in 8)"),
    VALUE("export", "DIR", set_text, export_dir, 0, 0,
          "keep DIR a tlog-tiles tree of the log (and its pages),\n"
          "updated after each commit (files written atomically,\n"
          "the checkpoint last), for nginx, an object store or a\n"
          "CDN to serve"),
    TEXT("\n"
         "exit status: 0 stopped by a signal, 1 refused input, 2 usage, 3 cannot serve\n"
         "(store missing or corrupt, address in use), 4 a mirror with --fail-on-fork\n"
         "found a fork\n"),
    {"help", 'h', ARG_NONE, NULL, NULL, 0, 0, 0, 0, 0, 0, NULL},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static const struct option_spec *find_option(const char *name)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].name && strcmp(options[i].name, name) == 0)
            return &options[i];
    return NULL;
}

/* The kix/cmdline.h view of the table, for the parse loop, --help and
 * --dump-options: each option an id (its index) that apply() sets, each
 * config key its long name. */
static struct kix_opt view[NOPTIONS];
static struct kix_cmd serve_cmd = {.prog = "kixd serve",
                                   .usage = "--store DIR [--listen ADDR]... [options]\n"
                                            "kixd serve --source URL [--listen ADDR]... [options]",
                                   .opts = view,
                                   .column = 25};

static void make_view(void)
{
    size_t n = 0;

    for (size_t i = 0; i < NOPTIONS; i++) {
        const struct option_spec *o = &options[i];
        struct kix_opt *v = &view[n];
        if (o->name && strcmp(o->name, "help") == 0)
            continue; /* kix_cmdline's own */
        memset(v, 0, sizeof(*v));
        n++;
        if (!o->name) {
            v->kind = KIX_OPT_NOTE;
            v->help = o->help;
            continue;
        }
        v->kind = KIX_OPT_ID;
        v->name = o->name;
        v->short_name = o->short_name;
        v->arg = o->arg == ARG_VALUE ? o->metavar : NULL;
        v->id = (int)i;
        v->help = o->help;
        v->config = o->set ? o->name : NULL;
        if (o->set == set_log_level)
            v->complete = "debug info warn error";
        else if (o->set == set_log_format)
            v->complete = "text json";
    }
    serve_cmd.nopts = n;
}

void kixd_config_dump(FILE *f)
{
    make_view();
    kix_cmdline_dump(f, &serve_cmd);
}

/* Applies one setting (v: NULL for a flag on the command line); writes the
 * problem into why (returns -1). */
static int apply(struct kixd_config *cfg, const struct option_spec *o, const char *v, char *why,
                 size_t cap)
{
    int rc = o->set(cfg, o, v, why, cap);

    if (rc > 0)
        snprintf(why, cap, "--%s: bad value \"%s\" (see kixd serve --help)", o->name, v ? v : "");
    return rc == 0 ? 0 : -1;
}

/* ---- the config file ------------------------------------------------------------------ */

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* Reads "key = value" lines (# comments). cli_listen: the command line
 * gave --listen, so the file's listen lines are ignored. */
static int load_config(struct kixd_config *cfg, const char *path, int cli_listen)
{
    char line[4096 + 64], why[KIX_ERR_MSG_MAX];
    /* nonblocking, so that a FIFO is refused rather than waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), lineno = 0, rc = 0;
    struct stat st = {0};
    FILE *f;

    if (fd < 0) {
        fprintf(stderr, "kixd: cannot read config %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "kixd: config %s is %s, not a regular file\n", path,
                S_ISDIR(st.st_mode)    ? "a directory"
                : S_ISFIFO(st.st_mode) ? "a FIFO"
                                       : "a special file");
        close(fd);
        return -1;
    }
    f = fdopen(fd, "r");
    if (!f) {
        fprintf(stderr, "kixd: cannot read config %s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        const struct option_spec *o;
        char *key, *val, *eq;
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "kixd: %s:%d: line too long\n", path, lineno);
            rc = -1;
            continue;
        }
        key = trim(line);
        if (!*key || *key == '#')
            continue;
        eq = strchr(key, '=');
        if (!eq) {
            fprintf(stderr, "kixd: %s:%d: expected 'key = value'\n", path, lineno);
            rc = -1;
            continue;
        }
        *eq = '\0';
        val = trim(eq + 1);
        key = trim(key);
        o = find_option(key);
        if (!o || !o->set) { /* help and config are for the command line */
            fprintf(stderr, "kixd: %s:%d: unknown setting \"%s\"\n", path, lineno, key);
            rc = -1;
            continue;
        }
        if (cli_listen && o == find_option("listen"))
            continue;
        if (apply(cfg, o, val, why, sizeof(why)) != 0) {
            fprintf(stderr, "kixd: %s:%d: %s\n", path, lineno, why);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

/* ---- the command line ----------------------------------------------------------------- */

static void config_defaults(struct kixd_config *cfg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    memset(cfg, 0, sizeof(*cfg));
    cfg->threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (unsigned)cpus;
    cfg->max_message = (size_t)16 << 20;
    cfg->max_in_flight = 256;
    cfg->max_connections = 4096;
    cfg->idle_timeout_ms = 120000;
    cfg->max_output = (size_t)8 << 20;
    cfg->max_read_buffers = (size_t)1 << 30;
    cfg->max_submit_bytes = (size_t)256 << 20;
    cfg->max_batch = 1024;
    cfg->http_submit_rate = 60;
    cfg->max_group = 4096;
    cfg->max_entries = 1000;
    cfg->max_objects = 1024;
    cfg->drain_timeout_ms = 30000;
    cfg->mirror_batch = 1024;
    cfg->ack_timeout_ms = 10000;
    cfg->http_max_header = 8192;
    cfg->log_level = KIXD_INFO;
    cfg->log_slow_ms = 1000;
}

/* The options that make sense only together; 0, or 2 after saying why. */
static int check_combinations(const struct kixd_config *cfg)
{
    static const char try_help[] = "\nTry 'kixd serve --help'.\n";
    const char *why = NULL;

    if (cfg->source[0] && (cfg->store[0] || cfg->mirror_of[0] || cfg->nhttp || cfg->export_dir[0] ||
                           cfg->ack_replicas || cfg->npeers || cfg->witness_key[0] ||
                           cfg->nhttp_witnesses || cfg->read_only || cfg->log_key_file[0]))
        why = "--source URL serves that copy read-only over RPC alone: no --store, --mirror-of, "
              "--http, --export, --ack-replicas, --peer, --witness-key, --http-witness, "
              "--read-only or --log-key-file with it";
    else if (!cfg->store[0] && !cfg->source[0])
        why = "--store DIR is required (or --source URL: a static copy to serve)";
    else if (cfg->mirror_of[0] && !cfg->upstream_key[0])
        why = "--mirror-of needs --upstream-key KEY (the upstream log's verifier key)";
    else if (!cfg->mirror_of[0] && (cfg->upstream_key[0] || cfg->fail_on_fork))
        why = "--upstream-key and --fail-on-fork need --mirror-of ADDR";
    else if (!cfg->mirror_of[0] && cfg->witness_key[0] && cfg->nwitness_logs == 0)
        why = "--witness-key needs --mirror-of ADDR or --witness-log KEY (the logs this witness "
              "cosigns)";
    else if (cfg->nwitness_logs > 0 && !cfg->witness_key[0])
        why = "--witness-log needs --witness-key FILE (the key it cosigns with)";
    else if (cfg->http_witness_ca[0] && cfg->nhttp_witnesses == 0)
        why = "--http-witness-ca needs --http-witness";
    else if (cfg->http_access_log && cfg->nhttp == 0)
        why = "--http-access-log needs --http ADDR";
    else if (cfg->http_metrics && cfg->nhttp == 0)
        why = "--http-metrics needs --http ADDR";
    else if ((cfg->read_only || cfg->log_key_file[0]) && cfg->mirror_of[0])
        why = "--mirror-of serves a replica, which has no log key: no --read-only or "
              "--log-key-file with it";
    else if (cfg->npeers && (cfg->read_only || cfg->mirror_of[0]))
        why = "--peer is the origin's check before it signs: not with --mirror-of or --read-only";
    else if (cfg->ack_replicas && (cfg->read_only || cfg->mirror_of[0]))
        why = "--ack-replicas is the origin's: not with --mirror-of or --read-only";
    else if (cfg->nack_mirror_keys && !cfg->ack_replicas)
        why = "--ack-mirror-key needs --ack-replicas N (the mirrors it counts)";
    else if (cfg->ack_replicas && !cfg->nack_mirror_keys && !cfg->insecure_unsigned_acks)
        why = "--ack-replicas needs --ack-mirror-key KEY (each mirror's --witness-key .pub): "
              "without it anyone who can connect can report a size no mirror holds and have "
              "submits acknowledged that a promotion loses. Give the keys, or "
              "--insecure-unsigned-acks to count unsigned reports anyway";
    else if (cfg->insecure_unsigned_acks && (!cfg->ack_replicas || cfg->nack_mirror_keys))
        why = "--insecure-unsigned-acks is for --ack-replicas without --ack-mirror-key only";
    else if (cfg->read_only && cfg->log_key_file[0])
        why = "--read-only serves without the log key: no --log-key-file with it";
    else if (cfg->phase_stats && !cfg->http_metrics)
        why = "--phase-stats needs --http-metrics (the counts are read from /metrics)";
    if (!why)
        return 0;
    fprintf(stderr, "kixd: %s%s", why, try_help);
    return 2;
}

int kixd_config_parse(struct kixd_config *cfg, int argc, char **argv)
{
    struct kix_cmdline p;
    enum kix_cmdline_status st;
    char why[KIX_ERR_MSG_MAX];
    const struct option_spec *listen = find_option("listen"), *config_opt = find_option("config");
    const char *config = NULL;
    int cli_listen = 0;

    config_defaults(cfg);
    make_view();
    /* first pass: --help, --dump-options and --config (the file is applied
     * before the flags); what is wrong is said by the second */
    kix_cmdline_start(&p, &serve_cmd, argc, argv);
    while ((st = kix_cmdline_next(&p)) != KIX_CMDLINE_END) {
        const struct option_spec *o;
        if (st == KIX_CMDLINE_HELP || st == KIX_CMDLINE_DUMP)
            return 0;
        if (st != KIX_CMDLINE_OPTION)
            continue;
        o = &options[p.opt->id];
        if (o == config_opt)
            config = p.value;
        if (o == listen)
            cli_listen = 1;
    }
    if (config && load_config(cfg, config, cli_listen) != 0)
        return 2;
    if (cli_listen)
        cfg->nlisten = 0;
    kix_cmdline_start(&p, &serve_cmd, argc, argv);
    while ((st = kix_cmdline_next(&p)) != KIX_CMDLINE_END) {
        const struct option_spec *o;
        if (st != KIX_CMDLINE_OPTION) {
            kix_cmdline_explain(&p, st, why, sizeof(why));
            fprintf(stderr, "kixd serve: %s\nTry 'kixd serve --help'.\n", why);
            return 2;
        }
        o = &options[p.opt->id];
        if (!o->set)
            continue;
        if (apply(cfg, o, p.value, why, sizeof(why)) != 0) {
            fprintf(stderr, "kixd: %s\n", why);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "kixd: unexpected argument %s\nTry 'kixd serve --help'.\n", argv[optind]);
        return 2;
    }
    if (check_combinations(cfg) != 0)
        return 2;
    if (cfg->nlisten == 0)
        snprintf(cfg->listen[cfg->nlisten++], KIXD_ADDR_MAX, "tcp://127.0.0.1:7420");
    if (cfg->max_output < (size_t)64 << 10)
        cfg->max_output = (size_t)64 << 10;
    return -1;
}
