/* kixd — the kix log server: subcommands, configuration, flags. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "harden.h"
#include "kix/addr.h"
#include "kixd.h"
#include "server.h"

static int parse_level(const char *s)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* ---- configuration ----------------------------------------------------------------- */

static const char serve_help[] =
    "usage: kixd [serve] --store DIR [--listen ADDR]... [options]\n"
    "\n"
    "Serves the log in DIR (made by 'kixd init') over msgpack-RPC (proto/PROTOCOL.md).\n"
    "A store without its log key (a mirror) is served read-only; one kixd per store\n"
    "(DIR/kixd.lock). Logs go to stderr.\n"
    "SIGTERM or SIGINT stops accepting, commits and answers the submits in flight,\n"
    "then exits 0.\n"
    "\n"
    "  --store DIR            the log's store directory (required)\n"
    "  --listen ADDR          tcp://HOST:PORT or unix:///PATH; repeat for more\n"
    "                         (default tcp://127.0.0.1:7420)\n"
    "  --config FILE          'key = value' lines, keys as these long options\n"
    "                         (listen may repeat); the command line wins\n"
    "  --log-level LEVEL      debug, info, warn or error (default info)\n"
    "  --log-format FORMAT    text (\"TIME LEVEL message\"; under systemd the\n"
    "                         journal's priority prefix instead of the time) or\n"
    "                         json (one {\"time\",\"level\",\"msg\"} object per line).\n"
    "                         Each request has an id; a refused request is\n"
    "                         logged at info and a slow one at warn with\n"
    "                         req=ID method=M peer=P cause=NAME ms=T (json:\n"
    "                         \"req\", \"method\", \"peer\", \"cause\", \"ms\")\n"
    "  --log-slow-ms MS       a request answered after this long is slow\n"
    "                         (default 1000; 0 logs every request)\n"
    "  --threads N            event loops, each with its own TCP listener\n"
    "                         (default: the number of CPUs)\n"
    "\n"
    "limits (sizes take a K, M or G suffix; times are seconds):\n"
    "  --max-message BYTES    one message, either way (default 16M)\n"
    "  --max-in-flight N      unanswered requests per connection; past it kixd\n"
    "                         stops reading that connection (default 256)\n"
    "  --max-connections N    open connections; more are closed at once (default 4096)\n"
    "  --idle-timeout SECS    close a connection silent this long (default 120)\n"
    "  --max-output BYTES     unsent answers per connection before kixd stops\n"
    "                         reading it or pauses its follow stream (default 8M)\n"
    "  --max-read-buffers BYTES  receive buffers of all connections; past it a\n"
    "                         connection sending a message over 1 MiB is dropped\n"
    "                         (default 1G)\n"
    "  --max-submit-bytes BYTES  submit requests being verified and committed;\n"
    "                         past it submits get EUNAVAIL (default 256M)\n"
    "  --max-batch N          bundles in one submit (default 1024)\n"
    "  --max-group N          entries committed in one transaction (default 4096)\n"
    "  --max-entries N        entries in one get_entries answer (default 1000)\n"
    "  --max-objects N        digests in one get_objects request (default 1024)\n"
    "  fixed: 1000 checkpoints per get_checkpoints, 1000 runs per query page\n"
    "                         ('kix info' shows the limits a server announces)\n"
    "  --drain-timeout SECS   how long a stop waits for in-flight work (default 30)\n"
    "  --map-max BYTES        the most the store's file may grow to (default 1T); past\n"
    "                         it submits get EFULL while reads go on: raise it and\n"
    "                         restart, or start a new log\n"
    "\n"
    "  --no-store-check       serve even a store that fails the start-up check (to\n"
    "                         copy data off a damaged store, or to test clients\n"
    "                         against a lying server: they detect every bad answer)\n"
    "\n"
    "Before serving, kixd checks the store quickly (the latest checkpoint against\n"
    "the tree and the last 1024 entries) and refuses a store that fails; 'kixd\n"
    "check' runs the full check.\n"
    "\n"
    "mirrors and witnesses:\n"
    "  --mirror-of ADDR       serve a verified, read-only copy of the log at ADDR:\n"
    "                         DIR is created as its replica on first start, caught up\n"
    "                         with kix_sync and kept current by following ADDR\n"
    "  --upstream-key KEY     the upstream log's verifier key (text or a file);\n"
    "                         required with --mirror-of\n"
    "  --fail-on-fork         exit with status 4 when the upstream forks or rolls back\n"
    "                         (else keep serving what was verified, and report it)\n"
    "  --mirror-batch N       entries verified and committed per transaction while\n"
    "                         catching up (default 1024; each ends at an upstream\n"
    "                         checkpoint)\n"
    "  --witness-key FILE     cosign each checkpoint the mirror verified with this\n"
    "                         witness key (kix keygen --witness) and send it upstream\n"
    "  --witness KEY          accept add_cosignature from this witness (verifier key\n"
    "                         text or a file); repeat for more\n"
    "  --witness-log \"[ORIGIN ]KEY\"  with --witness-key: also witness this log (any\n"
    "                         C2SP log, known by its verifier key, text or a file, and\n"
    "                         its origin when not the key's name): answer its\n"
    "                         POST /add-checkpoint (c2sp.org/tlog-witness) on --http;\n"
    "                         a mirror witnesses its upstream too. Repeat for more\n"
    "  --http-witness \"URL KEY\"  after each commit, ask the witness at URL (its\n"
    "                         submission prefix) for a cosignature with POST\n"
    "                         URL/add-checkpoint; KEY is its cosignature verifier\n"
    "                         key (text or a file). Repeat for more\n"
    "  --http-witness-ca FILE  the CA certificates (PEM) that https:// witnesses'\n"
    "                         certificates must chain to (default: the system's)\n"
    "\n"
    "the HTTP side (C2SP tlog-tiles; proto/PROTOCOL.md, 'HTTP'):\n"
    "  --http ADDR            tcp://HOST:PORT: serve checkpoint, tile/<L>/<N>[.p/<W>]\n"
    "                         and tile/entries/<N>[.p/<W>] over HTTP/1.1 (GET, HEAD),\n"
    "                         with the run pages runs/<runId>[.json], groups/<key>\n"
    "                         and /; repeat for more. --max-connections, --idle-timeout and\n"
    "                         --max-output apply as to RPC connections\n"
    "  --http-max-header BYTES  request line and headers of one request; more gets\n"
    "                         431 (default 8K)\n"
    "  --http-metrics         also serve /metrics (Prometheus text format) on --http\n"
    "  --http-access-log      log one line per HTTP request (method, path, status,\n"
    "                         bytes, ms, peer) in the --log-format, at info\n"
    "  --phase-stats          count the CPU time of each phase of an append (receive,\n"
    "                         canonical, hash, verify, policy, index, commit, answer)\n"
    "                         for /metrics; costs about 15 clock reads an append\n"
    "  --export DIR           keep DIR a tlog-tiles tree of the log (and its pages),\n"
    "                         updated after each commit (files written atomically,\n"
    "                         the checkpoint last), for nginx, an object store or a\n"
    "                         CDN to serve\n"
    "\n"
    "exit status: 0 stopped by a signal, 1 refused input, 2 usage, 3 cannot serve\n"
    "(store missing or corrupt, address in use), 4 a mirror with --fail-on-fork\n"
    "found a fork\n";

static const char main_help[] =
    "usage: kixd COMMAND [ARGS]\n"
    "\n"
    "kixd is the kix log server.\n"
    "\n"
    "commands:\n"
    "  init    create a new log (store, log key, entry 0)\n"
    "  serve   serve a log (the default when the first argument is an option)\n"
    "  check   check a store against itself: checkpoints, tree, entries, objects\n"
    "  export  write a store's log into a directory as C2SP tlog-tiles\n"
    "\n"
    "'kixd COMMAND --help' describes one command; 'kixd --version' prints the version.\n";

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
    cfg->max_group = 4096;
    cfg->max_entries = 1000;
    cfg->max_objects = 1024;
    cfg->drain_timeout_ms = 30000;
    cfg->mirror_batch = 1024;
    cfg->http_max_header = 8192;
    cfg->log_level = KIXD_INFO;
    cfg->log_slow_ms = 1000;
}

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

enum {
    O_STORE = 0x100,
    O_LISTEN,
    O_CONFIG,
    O_LOG_LEVEL,
    O_LOG_FORMAT,
    O_LOG_SLOW_MS,
    O_THREADS,
    O_MAX_MESSAGE,
    O_MAX_IN_FLIGHT,
    O_MAX_CONNECTIONS,
    O_IDLE_TIMEOUT,
    O_MAX_OUTPUT,
    O_MAX_READ_BUFFERS,
    O_MAX_SUBMIT_BYTES,
    O_MAX_BATCH,
    O_MAX_GROUP,
    O_MAX_ENTRIES,
    O_MAX_OBJECTS,
    O_DRAIN_TIMEOUT,
    O_MIRROR_OF,
    O_UPSTREAM_KEY,
    O_FAIL_ON_FORK,
    O_MIRROR_BATCH,
    O_WITNESS_KEY,
    O_WITNESS,
    O_MAP_MAX,
    O_NO_STORE_CHECK,
    O_HTTP,
    O_HTTP_MAX_HEADER,
    O_HTTP_METRICS,
    O_PHASE_STATS,
    O_EXPORT,
    O_WITNESS_LOG,
    O_HTTP_WITNESS,
    O_HTTP_ACCESS_LOG,
    O_HTTP_WITNESS_CA,
    O_HELP,
};

static const struct option serve_options[] = {
    {"store", required_argument, NULL, O_STORE},
    {"listen", required_argument, NULL, O_LISTEN},
    {"config", required_argument, NULL, O_CONFIG},
    {"log-level", required_argument, NULL, O_LOG_LEVEL},
    {"log-format", required_argument, NULL, O_LOG_FORMAT},
    {"log-slow-ms", required_argument, NULL, O_LOG_SLOW_MS},
    {"threads", required_argument, NULL, O_THREADS},
    {"max-message", required_argument, NULL, O_MAX_MESSAGE},
    {"max-in-flight", required_argument, NULL, O_MAX_IN_FLIGHT},
    {"max-connections", required_argument, NULL, O_MAX_CONNECTIONS},
    {"idle-timeout", required_argument, NULL, O_IDLE_TIMEOUT},
    {"max-output", required_argument, NULL, O_MAX_OUTPUT},
    {"max-read-buffers", required_argument, NULL, O_MAX_READ_BUFFERS},
    {"max-submit-bytes", required_argument, NULL, O_MAX_SUBMIT_BYTES},
    {"max-batch", required_argument, NULL, O_MAX_BATCH},
    {"max-group", required_argument, NULL, O_MAX_GROUP},
    {"max-entries", required_argument, NULL, O_MAX_ENTRIES},
    {"max-objects", required_argument, NULL, O_MAX_OBJECTS},
    {"drain-timeout", required_argument, NULL, O_DRAIN_TIMEOUT},
    {"mirror-of", required_argument, NULL, O_MIRROR_OF},
    {"upstream-key", required_argument, NULL, O_UPSTREAM_KEY},
    {"fail-on-fork", no_argument, NULL, O_FAIL_ON_FORK},
    {"mirror-batch", required_argument, NULL, O_MIRROR_BATCH},
    {"witness-key", required_argument, NULL, O_WITNESS_KEY},
    {"witness", required_argument, NULL, O_WITNESS},
    {"map-max", required_argument, NULL, O_MAP_MAX},
    {"no-store-check", no_argument, NULL, O_NO_STORE_CHECK},
    {"http", required_argument, NULL, O_HTTP},
    {"http-max-header", required_argument, NULL, O_HTTP_MAX_HEADER},
    {"http-metrics", no_argument, NULL, O_HTTP_METRICS},
    {"phase-stats", no_argument, NULL, O_PHASE_STATS},
    {"export", required_argument, NULL, O_EXPORT},
    {"witness-log", required_argument, NULL, O_WITNESS_LOG},
    {"http-witness", required_argument, NULL, O_HTTP_WITNESS},
    {"http-access-log", no_argument, NULL, O_HTTP_ACCESS_LOG},
    {"http-witness-ca", required_argument, NULL, O_HTTP_WITNESS_CA},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0},
};

static const char *option_name(int opt)
{
    for (const struct option *o = serve_options; o->name; o++)
        if (o->val == opt)
            return o->name;
    return "?";
}

/* Applies one setting; writes the problem into why (returns -1). */
static int apply(struct kixd_config *cfg, int opt, const char *v, char *why, size_t cap)
{
    unsigned long long n = 0;
    struct kix_err aerr = {0};
    size_t b = 0;
    int bad = 0;

    switch (opt) {
    case O_STORE:
        if (!*v || strlen(v) >= sizeof(cfg->store))
            bad = 1;
        else
            snprintf(cfg->store, sizeof(cfg->store), "%s", v);
        break;
    case O_LISTEN:
        if (cfg->nlisten >= KIXD_MAX_LISTEN) {
            snprintf(why, cap, "at most %d --listen addresses", KIXD_MAX_LISTEN);
            return -1;
        }
        if (strlen(v) >= KIXD_ADDR_MAX) {
            snprintf(why, cap, "--listen %.80s...: longer than %d bytes", v, KIXD_ADDR_MAX - 1);
            return -1;
        }
        if (kix_addr_validate(v, &aerr) != KIX_OK) {
            snprintf(why, cap, "--listen: %.400s", aerr.msg);
            return -1;
        }
        snprintf(cfg->listen[cfg->nlisten++], KIXD_ADDR_MAX, "%s", v);
        break;
    case O_LOG_LEVEL:
        bad = (cfg->log_level = parse_level(v)) < 0;
        break;
    case O_LOG_FORMAT:
        bad = strcmp(v, "text") != 0 && strcmp(v, "json") != 0;
        cfg->log_json = strcmp(v, "json") == 0;
        break;
    case O_LOG_SLOW_MS:
        bad = kixd_parse_count(v, 0, 3600000, &n) != 0;
        cfg->log_slow_ms = (unsigned)n;
        break;
    case O_THREADS:
        bad = kixd_parse_count(v, 1, 64, &n) != 0;
        cfg->threads = (unsigned)n;
        break;
    case O_MAX_MESSAGE:
        bad = parse_bytes(v, 4096, (size_t)1 << 30, &cfg->max_message) != 0;
        break;
    case O_MAX_IN_FLIGHT:
        bad = kixd_parse_count(v, 1, 1u << 20, &n) != 0;
        cfg->max_in_flight = (unsigned)n;
        break;
    case O_MAX_CONNECTIONS:
        bad = kixd_parse_count(v, 1, 1u << 24, &n) != 0;
        cfg->max_connections = (unsigned)n;
        break;
    case O_IDLE_TIMEOUT:
        bad = parse_seconds(v, &cfg->idle_timeout_ms) != 0;
        break;
    case O_DRAIN_TIMEOUT:
        bad = parse_seconds(v, &cfg->drain_timeout_ms) != 0;
        break;
    case O_MAX_OUTPUT:
        bad = parse_bytes(v, 4096, (size_t)1 << 34, &cfg->max_output) != 0;
        break;
    case O_MAX_READ_BUFFERS:
        bad = parse_bytes(v, 1 << 20, (size_t)1 << 40, &cfg->max_read_buffers) != 0;
        break;
    case O_MAX_SUBMIT_BYTES:
        bad = parse_bytes(v, 1 << 20, (size_t)1 << 40, &b) != 0;
        cfg->max_submit_bytes = b;
        break;
    case O_NO_STORE_CHECK:
        cfg->no_store_check = 1;
        break;
    case O_MAP_MAX:
        bad = parse_bytes(v, (size_t)1 << 20, (size_t)1 << 50, &cfg->map_max) != 0;
        break;
    case O_MAX_BATCH:
        bad = kixd_parse_count(v, 1, 65536, &n) != 0;
        cfg->max_batch = (unsigned)n;
        break;
    case O_MAX_GROUP:
        bad = kixd_parse_count(v, 1, 1u << 20, &n) != 0;
        cfg->max_group = (unsigned)n;
        break;
    case O_MAX_ENTRIES:
        bad = kixd_parse_count(v, 1, 100000, &n) != 0;
        cfg->max_entries = (unsigned)n;
        break;
    case O_MAX_OBJECTS:
        bad = kixd_parse_count(v, 1, 100000, &n) != 0;
        cfg->max_objects = (unsigned)n;
        break;
    case O_MIRROR_OF:
        if (strlen(v) >= sizeof(cfg->mirror_of) ||
            (strncmp(v, "tcp://", 6) != 0 && strncmp(v, "unix://", 7) != 0)) {
            snprintf(why, cap, "--mirror-of %s: expected tcp://HOST:PORT or unix:///PATH", v);
            return -1;
        }
        snprintf(cfg->mirror_of, sizeof(cfg->mirror_of), "%s", v);
        break;
    case O_UPSTREAM_KEY:
        bad = !*v || strlen(v) >= sizeof(cfg->upstream_key);
        if (!bad)
            snprintf(cfg->upstream_key, sizeof(cfg->upstream_key), "%s", v);
        break;
    case O_FAIL_ON_FORK:
        cfg->fail_on_fork = 1;
        break;
    case O_MIRROR_BATCH:
        bad = kixd_parse_count(v, 1, 1u << 20, &n) != 0;
        cfg->mirror_batch = (unsigned)n;
        break;
    case O_WITNESS_KEY:
        bad = !*v || strlen(v) >= sizeof(cfg->witness_key);
        if (!bad)
            snprintf(cfg->witness_key, sizeof(cfg->witness_key), "%s", v);
        break;
    case O_WITNESS:
        if (cfg->nwitnesses >= KIXD_MAX_WITNESSES) {
            snprintf(why, cap, "at most %d --witness keys", KIXD_MAX_WITNESSES);
            return -1;
        }
        bad = !*v || strlen(v) >= sizeof(cfg->witnesses[0]);
        if (!bad)
            snprintf(cfg->witnesses[cfg->nwitnesses++], sizeof(cfg->witnesses[0]), "%s", v);
        break;
    case O_WITNESS_LOG:
        if (cfg->nwitness_logs >= KIXD_MAX_WITNESSES) {
            snprintf(why, cap, "at most %d --witness-log logs", KIXD_MAX_WITNESSES);
            return -1;
        }
        bad = !*v || strlen(v) >= sizeof(cfg->witness_logs[0]);
        if (!bad)
            snprintf(cfg->witness_logs[cfg->nwitness_logs++], sizeof(cfg->witness_logs[0]), "%s",
                     v);
        break;
    case O_HTTP_WITNESS: {
        const char *sp = strrchr(v, ' ');
        if (cfg->nhttp_witnesses >= KIXD_MAX_WITNESSES) {
            snprintf(why, cap, "at most %d --http-witness witnesses", KIXD_MAX_WITNESSES);
            return -1;
        }
        if (!sp || sp == v || !sp[1] || strlen(v) >= sizeof(cfg->http_witnesses[0]) ||
            (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)) {
            snprintf(why, cap,
                     "--http-witness %.200s: expected \"URL KEY\" (the witness's submission "
                     "prefix, http:// or https://, a space, and its verifier key or a file "
                     "holding it)",
                     v);
            return -1;
        }
        snprintf(cfg->http_witnesses[cfg->nhttp_witnesses++], sizeof(cfg->http_witnesses[0]), "%s",
                 v);
        break;
    }
    case O_HTTP_ACCESS_LOG:
        cfg->http_access_log = 1;
        break;
    case O_HTTP_WITNESS_CA:
        bad = !*v || strlen(v) >= sizeof(cfg->http_witness_ca);
        if (!bad)
            snprintf(cfg->http_witness_ca, sizeof(cfg->http_witness_ca), "%s", v);
        break;
    case O_HTTP:
        if (cfg->nhttp >= KIXD_MAX_LISTEN) {
            snprintf(why, cap, "at most %d --http addresses", KIXD_MAX_LISTEN);
            return -1;
        }
        if (strlen(v) >= KIXD_ADDR_MAX || strncmp(v, "tcp://", 6) != 0) {
            snprintf(why, cap, "--http %.80s: expected tcp://HOST:PORT", v);
            return -1;
        }
        if (kix_addr_validate(v, &aerr) != KIX_OK) {
            snprintf(why, cap, "--http: %.400s", aerr.msg);
            return -1;
        }
        snprintf(cfg->http[cfg->nhttp++], KIXD_ADDR_MAX, "%s", v);
        break;
    case O_HTTP_MAX_HEADER:
        bad = parse_bytes(v, 1024, (size_t)1 << 20, &cfg->http_max_header) != 0;
        break;
    case O_HTTP_METRICS:
        cfg->http_metrics = 1;
        break;
    case O_PHASE_STATS:
        cfg->phase_stats = 1;
        break;
    case O_EXPORT:
        bad = !*v || strlen(v) >= sizeof(cfg->export_dir);
        if (!bad)
            snprintf(cfg->export_dir, sizeof(cfg->export_dir), "%s", v);
        break;
    default:
        snprintf(why, cap, "unknown setting");
        return -1;
    }
    if (bad) {
        snprintf(why, cap, "--%s: bad value \"%s\" (see kixd serve --help)", option_name(opt),
                 v ? v : "");
        return -1;
    }
    return 0;
}

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
    while (fgets(line, sizeof(line), f)) {
        char *key, *val, *eq;
        int opt = 0;
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "kixd: %s:%d: line too long\n", path, lineno);
            rc = -1;
            break;
        }
        key = trim(line);
        if (!*key || *key == '#')
            continue;
        eq = strchr(key, '=');
        if (!eq) {
            fprintf(stderr, "kixd: %s:%d: expected 'key = value'\n", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        val = trim(eq + 1);
        key = trim(key);
        for (const struct option *o = serve_options; o->name; o++)
            if (strcmp(o->name, key) == 0 && o->has_arg == required_argument && o->val != O_CONFIG)
                opt = o->val;
        if (!opt) {
            fprintf(stderr, "kixd: %s:%d: unknown setting \"%s\"\n", path, lineno, key);
            rc = -1;
            break;
        }
        if (opt == O_LISTEN && cli_listen)
            continue;
        if (apply(cfg, opt, val, why, sizeof(why)) != 0) {
            fprintf(stderr, "kixd: %s:%d: %s\n", path, lineno, why);
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

int kixd_serve_main(int argc, char **argv)
{
    struct kixd_config cfg;
    const char *config = NULL;
    char why[KIX_ERR_MSG_MAX];
    int c, cli_listen = 0;

    config_defaults(&cfg);
    /* first pass: --help and --config (the file is applied before the flags) */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", serve_options, NULL)) != -1) {
        if (c == O_HELP || c == 'h') {
            fputs(serve_help, stdout);
            return 0;
        }
        if (c == O_CONFIG)
            config = optarg;
        if (c == O_LISTEN)
            cli_listen = 1;
    }
    if (config && load_config(&cfg, config, cli_listen) != 0)
        return 2;
    if (cli_listen)
        cfg.nlisten = 0;
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "h", serve_options, NULL)) != -1) {
        if (c == O_CONFIG)
            continue;
        if (c == '?' || c == ':') {
            fprintf(stderr, "Try 'kixd serve --help'.\n");
            return 2;
        }
        if (apply(&cfg, c, optarg, why, sizeof(why)) != 0) {
            fprintf(stderr, "kixd: %s\n", why);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "kixd: unexpected argument %s\nTry 'kixd serve --help'.\n", argv[optind]);
        return 2;
    }
    if (!cfg.store[0]) {
        fprintf(stderr, "kixd: --store DIR is required\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.mirror_of[0] && !cfg.upstream_key[0]) {
        fprintf(stderr, "kixd: --mirror-of needs --upstream-key KEY (the upstream log's verifier "
                        "key)\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (!cfg.mirror_of[0] && (cfg.upstream_key[0] || cfg.fail_on_fork)) {
        fprintf(stderr, "kixd: --upstream-key and --fail-on-fork need "
                        "--mirror-of ADDR\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (!cfg.mirror_of[0] && cfg.witness_key[0] && cfg.nwitness_logs == 0) {
        fprintf(stderr, "kixd: --witness-key needs --mirror-of ADDR or --witness-log KEY (the "
                        "logs this witness cosigns)\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.nwitness_logs > 0 && !cfg.witness_key[0]) {
        fprintf(stderr, "kixd: --witness-log needs --witness-key FILE (the key it cosigns "
                        "with)\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.http_witness_ca[0] && cfg.nhttp_witnesses == 0) {
        fprintf(stderr, "kixd: --http-witness-ca needs --http-witness\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.http_access_log && cfg.nhttp == 0) {
        fprintf(stderr, "kixd: --http-access-log needs --http ADDR\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.http_metrics && cfg.nhttp == 0) {
        fprintf(stderr, "kixd: --http-metrics needs --http ADDR\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.phase_stats && !cfg.http_metrics) {
        fprintf(stderr, "kixd: --phase-stats needs --http-metrics (the counts are read from "
                        "/metrics)\nTry 'kixd serve --help'.\n");
        return 2;
    }
    if (cfg.nlisten == 0)
        snprintf(cfg.listen[cfg.nlisten++], KIXD_ADDR_MAX, "tcp://127.0.0.1:7420");
    if (cfg.max_output < (size_t)64 << 10)
        cfg.max_output = (size_t)64 << 10;
    kixd_log_set_level(cfg.log_level);
    kixd_log_set_format(cfg.log_json);
    kixd_log_set_slow_ms(cfg.log_slow_ms);
    return kixd_server_run(&cfg);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "init") == 0)
        return kixd_init_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return kixd_serve_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return kixd_check_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return kixd_export_main(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        fputs(main_help, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        puts("kixd " KIX_VERSION_STRING);
        return 0;
    }
    if (argc >= 2 && argv[1][0] != '-') {
        fprintf(stderr, "kixd: unknown command '%s'\nTry 'kixd --help'.\n", argv[1]);
        return 2;
    }
    if (argc < 2) {
        fputs(main_help, stderr);
        return 2;
    }
    return kixd_serve_main(argc, argv);
}
