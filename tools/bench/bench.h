/* tools/bench/bench.h — kix-bench internals, shared by its files (not a
 * library API).
 *
 * kix-bench measures kix and, in the same run, the blocks it is built from
 * (LIMITS.md): Ed25519 verification, SHA-256, LMDB durable commits, a trivial
 * libuv msgpack server and, when installed, Redis. Every kix figure is
 * reported with its ratio to such a limit, so machine drift cancels.
 *
 * Files: kix_bench.c (options, the run, the report), bench_util.c (clock,
 * statistics, child processes), bench_load.c (the load client: many
 * pipelined connections on one epoll thread), bench_limits.c (the limits and
 * the echo server), bench_workload.c (keys, manifests, pre-signed entries),
 * bench_scale.c (the big logs, their cache, proof and resolve latency),
 * bench_http.c (kixd --http against nginx, syncs and verification over HTTP,
 * the export at scale).
 *
 * Figures go into a struct bench_report as "section.name" = value; the
 * report prints them as a table and as JSON.
 */
#ifndef KIX_BENCH_H
#define KIX_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/error.h"
#include "kix/index.h"
#include "kix/note.h"

/* ---- util ------------------------------------------------------------------ */

double bench_now(void); /* monotonic seconds */
/* Writes back what the file system holding dir has dirty (syncfs), so
 * that a timed phase after it is not timed against the disk's writeback
 * of the phases before (the logs just built, say). */
void bench_settle(const char *dir);
void bench_say(const char *fmt, ...) KIX_PRINTF(1, 2); /* progress on stderr */
void bench_die(const char *fmt, ...) KIX_PRINTF(1, 2);

/* Latency samples in nanoseconds. */
struct bench_lat {
    uint64_t *ns;
    size_t n, cap;
};
void bench_lat_add(struct bench_lat *l, uint64_t ns);
/* q in [0,1]; sorts the samples on first use. 0 when empty. */
double bench_lat_quantile(struct bench_lat *l, double q);
double bench_lat_max(const struct bench_lat *l);
double bench_lat_mean(const struct bench_lat *l);
void bench_lat_release(struct bench_lat *l);

/* Child processes: started with posix_spawn, output to `log` (appended). */
pid_t bench_spawn(char *const argv[], const char *log);
/* SIGTERM, wait up to 10 s, then SIGKILL; 0 is a no-op. */
void bench_stop(pid_t pid);
/* Kills every child still running (at exit). */
void bench_stop_all(void);

int bench_free_port(void);
/* Waits until a TCP connect to 127.0.0.1:port succeeds (or the child died). */
int bench_wait_port(int port, pid_t child, double timeout_s);
/* Runs argv to completion; its exit status, or -1. */
int bench_run(char *const argv[], const char *log);

uint64_t bench_file_size(const char *path);
/* A store's files: the log (data.mdb), the index it derives (store layout
 * 3: index.mdb) and the log's data (layout 4: log.dat). */
uint64_t bench_store_bytes(const char *dir);
/* snprintf that dies on truncation (paths). */
int bench_path(char *out, size_t cap, const char *fmt, ...) KIX_PRINTF(3, 4);
void bench_rmrf(const char *path);
int bench_mkdirs(const char *path);
int bench_cpus(void);

/* ---- report ---------------------------------------------------------------- */

struct bench_fig {
    char key[64]; /* "section.name" */
    double value;
    char unit[16];  /* "/s", "ms", "us", "x", "B", ... */
    char label[96]; /* for the table */
    char limit[48]; /* for the table: "0.42 x verify all" or "" */
};

struct bench_report {
    struct bench_fig *figs;
    size_t n, cap;
};

void bench_fig(struct bench_report *r, const char *key, double value, const char *unit,
               const char *label);
/* Sets the table's "vs limit" text of the last figure added. */
void bench_fig_note(struct bench_report *r, const char *fmt, ...) KIX_PRINTF(2, 3);
/* The value of key, or NAN. */
double bench_get(const struct bench_report *r, const char *key);

/* ---- load ------------------------------------------------------------------ */

enum bench_proto { BENCH_MSGPACK, BENCH_RESP, BENCH_HTTP };

/* Writes request k of connection `conn` into out, returns its msgid through
 * *id (msgpack; RESP and HTTP requests are answered in order). 0 to stop
 * sending. */
typedef int (*bench_request_fn)(void *ctx, int conn, long k, struct kix_buf *out, uint32_t *id);

struct bench_load {
    const char *host;
    int port;
    enum bench_proto proto;
    int conns, depth;
    double warmup;  /* answers in the first seconds are not counted */
    double seconds; /* then run this long (when > 0) */
    long total;     /* or until this many answers (when > 0) */
    bench_request_fn request;
    void *ctx;
    int check_submit; /* msgpack: count refused bundles of submit answers as errors */
    /* results */
    long done, errors;
    double elapsed;
    struct bench_lat lat;
    char first_error[256];
};

/* Runs the load; 0 or -1 when a connection could not be made. */
int bench_load_run(struct bench_load *ld);

/* kix_bench.c's load runner for the other files: dies on connection errors. */
void bench_load_or_die(const char *what, int port, enum bench_proto proto, int conns, int depth,
                       double warmup, double seconds, bench_request_fn fn, void *ctx,
                       struct bench_load *ld);
/* Adds "key" (answers/s), "key_p50_us" and "key_p99_us" of a finished load. */
void bench_read_figs(struct bench_report *rep, const char *key, const char *label,
                     struct bench_load *ld);

/* ---- sync -------------------------------------------------------------------- */

struct kix_client;
/* kix_sync of up's whole log into a fresh replica at dir (durable: fsync
 * on, as a mirror; else as kix audit); log_key: the log's verifier key
 * text, NULL to ask up for it. */
int bench_sync_into(struct kix_client *up, const char *log_key, const char *dir, int durable,
                    uint64_t *entries, double *secs, struct kix_err *err);

/* ---- limits ---------------------------------------------------------------- */

struct bench_ctx; /* kix_bench.c */

/* Verifications per second; *cpu_us (may be NULL) gets the CPU time of one. */
double bench_ed25519_verify(int threads, double seconds, size_t msg_len, double *cpu_us);
/* SHA-256 of a 65-byte Merkle node per second, by one library: */
enum bench_sha256_impl {
    BENCH_SHA256_KIX,    /* kix/sha256.h (libcrypto SHA256_*), what kix uses */
    BENCH_SHA256_EVP,    /* libcrypto EVP with one reused context */
    BENCH_SHA256_SODIUM, /* libsodium (what kix used before) */
};
double bench_sha256_node(enum bench_sha256_impl impl, double seconds);
double bench_lmdb_batched(const char *dir, double seconds, int per_commit, size_t value_len);
/* The echo server (runs in a child: kix-bench --echo-server PORT THREADS). */
int bench_echo_server_main(int port, int threads, size_t reply_len);

/* ---- workload ---------------------------------------------------------------- */

#define BENCH_MANIFEST_LEN 1024 /* canonical bytes of each run manifest */
#define BENCH_GROUP_SIZE   16   /* runs per comparison group */
/* BENCH_GROUP_SIZE, or $KIX_BENCH_GROUP_SIZE when set (e.g. 10000: one
 * group of 10^4 runs in the small log, to measure a large group's update
 * cost and proofs; use another --cache) */
long bench_group_size(void);
#define BENCH_NSHARED 4 /* protocol, workload, environment, implementation */

struct bench_workload {
    struct kix_signer *publisher;
    char tag[24];
    struct kix_buf shared[BENCH_NSHARED]; /* canonical shared objects */
    struct kix_digest shared_digest[BENCH_NSHARED];
};

struct bench_item {
    struct kix_buf env;      /* canonical DSSE envelope */
    struct kix_buf manifest; /* canonical, BENCH_MANIFEST_LEN bytes */
    char run_id[64];
    char digest[KIX_DIGEST_TEXT_LEN + 1];
};

int bench_workload_init(struct bench_workload *w, const char *tag, struct kix_err *err);
void bench_workload_release(struct bench_workload *w);
/* The key entry an admin signs to give the publisher the publish role. */
int bench_workload_key_entry(const struct bench_workload *w, const struct kix_signer *admin,
                             struct kix_buf *env, struct kix_err *err);
/* Fills items[0..n) with publications first..first+n, on `threads` threads. */
int bench_workload_make(const struct bench_workload *w, long first, struct bench_item *items,
                        long n, int threads, struct kix_err *err);
void bench_items_release(struct bench_item *items, long n);

/* ---- scale ------------------------------------------------------------------- */

struct bench_scale_point {
    long entries;
    double build_s; /* 0 when taken from the cache */
    int cached;
    uint64_t disk_bytes;  /* data.mdb */
    uint64_t canon_bytes; /* leaves + objects */
    double proof_p50_us, proof_p99_us;
    double proof_tiles, proof_stored_tiles; /* tile reads a proof, and those from LMDB */
    double resolve_p50_us, resolve_p99_us;
    /* through kixd: after it has served resolves for a while (its caches,
     * the CPU's and the TLB's, as a server in service has them), and in
     * its first seconds after start */
    double wire_resolve_p50_us, wire_resolve_p99_us;
    double wire_resolve_start_p50_us;
    double wire_served_s;
    double wire_proof_p50_us, wire_proof_p99_us;
    /* the verifiable index: its update inside the last build batch (µs an
     * entry; from the cache's record), proof sizes, and what a client spends
     * verifying a resolution with its index proofs */
    double index_update_us_per_entry;
    double run_proof_bytes, group_proof_bytes, group_record_bytes;
    /* a page of 100 rows from the middle of a resolved run's group: the
     * directory and the pages that hold those ranks, records and proofs */
    double group_page_bytes;
    double verify_p50_us;
};

/* Builds (or takes from cache_dir) a log of `entries` entries and measures
 * it in this process. */
int bench_scale_point(const char *cache_dir, long entries, int samples,
                      struct bench_scale_point *out);
/* The over-the-wire figures of two such logs, through a kixd (the binary
 * `kixd`) on each, both running, in alternating rounds of `seconds`. */
int bench_scale_wire(const char *cache_dir, const char *work_dir, const char *kixd, double seconds,
                     struct bench_scale_point *small, struct bench_scale_point *big);

/* The pages part: one comparison group of `runs` runs, its ids as kix-bench
 * makes them and then ground so that none starts a page by the hash rule
 * (issue 42.6), each built in work_dir; the index's update per entry, the
 * group's pages, its largest page record and directory, and the proof of a
 * 100-row page from the middle. "pages.*". */
int bench_pages(const char *work_dir, long runs, struct bench_report *rep);

/* ---- http ------------------------------------------------------------------- */

#define BENCH_NGINX   "/usr/sbin/nginx"  /* Debian's nginx-light */
#define BENCH_OPENSSL "/usr/bin/openssl" /* a certificate for nginx over TLS */

/* The HTTP part (tools/bench/bench_http.c), on the log kix_bench.c's
 * appends left in work/log: exports it, serves it by kixd --http and by
 * nginx, and adds "http.*", "sync.*" and "verify.*". 1 when nginx ran. */
int bench_http(const char *bin, const char *work, double seconds, int quick, int no_nginx,
               struct bench_report *rep);
/* kixd export of the scale log of `entries` (in cache_dir, built by
 * bench_scale_point): time and size, "export.*". */
void bench_export_scale(const char *cache_dir, const char *work, const char *kixd, long entries,
                        struct bench_report *rep);

/* ---- browse ------------------------------------------------------------------ */

/* The home pages, the search index and the kernel pages of a log of
 * `groups` comparison groups (built once into cache_dir), served by kixd
 * --http under load: figures "browse.*" (tools/bench/bench_browse.c). */
int bench_browse(const char *cache_dir, const char *work_dir, const char *kixd, long groups,
                 double seconds, struct bench_report *rep);

/* ---- ack ---------------------------------------------------------------------- */

/* The ack latency of `runs` publications (one at a time per publisher, 1
 * and 8 publishers) to a new log with one mirror on this machine, served
 * with --ack-replicas 0 and 1: figures "ack.*" (tools/bench/bench_ack.c). */
void bench_ack(const char *work_dir, const char *kixd, long runs, struct bench_report *rep);
/* kix-import's rate for each source, on the bundled samples under src
 * (the source tree): figures import.<source>_runs_per_s and _wall_s. */
void bench_import(const char *bin, const char *src, const char *work, struct bench_report *rep);

/* ---- bench_query.c: kix query with its proofs -------------------------------- */

#define BENCH_QUERY_LIMIT 50 /* kix query's default page */
struct kix_client;
struct kix_query;
struct bench_query_figs {
    double p50_ms;    /* query, rows and proofs, end to end */
    uint64_t matched; /* what the server says matches */
    size_t rows;      /* rows of the page */
    size_t proofs;    /* index proofs asked for: runs, groups and selection records */
};
/* reps runs of q through c (its first page, at most BENCH_QUERY_LIMIT
 * rows), each proven; with complete, proven to be all the matches. */
int bench_query(struct kix_client *c, const struct kix_query *q, int complete, int reps,
                struct bench_query_figs *out, struct kix_err *err);

#endif
