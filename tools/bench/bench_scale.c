/* kix-bench: logs of 10^3 .. 10^6 entries, built once through the real
 * append path (kix_log_prepare on every core, then kix_log_commit in batches
 * of BUILD_CHUNK, one signed checkpoint per batch) and kept in a cache
 * directory; then inclusion-proof and resolve latency on them, in process
 * (one read snapshot per request, as kixd does) and through a kixd (1 x 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "kix/parallel.h"
#include "kix/proto.h"
#include "kix/resolve.h"
#include "kix/vindex.h"

#define BUILD_CHUNK 8192
#define SCALE_TAG   "scale"
#define ORIGIN      "bench.kix/log"
/* a cached log built by another index format is built again */
#define INDEX_FORMAT (kix_index_indexer()->name)

struct prep_job {
    struct kix_log *log;
    struct bench_item *items;
    struct kix_prepared **out;
    const struct bench_workload *w;
    long first; /* publication number of items[0] */
    long from, to;
    int rc;
    struct kix_err err;
};

static void *prep_range(void *arg)
{
    struct prep_job *j = arg;
    for (long k = j->from; j->rc == KIX_OK && k < j->to; k++) {
        struct kix_bytes objs[1 + BENCH_NSHARED];
        struct kix_submission sub;
        size_t n = 0;
        objs[n++] = kix_buf_bytes(&j->items[k].manifest);
        if (j->first + k == 0) /* the first publication brings the shared objects */
            for (int s = 0; s < BENCH_NSHARED; s++)
                objs[n++] = kix_buf_bytes(&j->w->shared[s]);
        sub.envelope = kix_buf_bytes(&j->items[k].env);
        sub.objects = objs;
        sub.nobjects = n;
        j->rc = kix_log_prepare(j->log, &sub, &j->out[k], &j->err);
    }
    return NULL;
}

static int prepare_parallel(struct kix_log *log, const struct bench_workload *w,
                            struct bench_item *items, long first, long n, struct kix_prepared **out,
                            struct kix_err *err)
{
    struct prep_job jobs[64];
    int threads = bench_cpus() > 64 ? 64 : bench_cpus();
    long per = (n + threads - 1) / threads;

    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct prep_job){log,
                                    items,
                                    out,
                                    w,
                                    first,
                                    t * per < n ? t * per : n,
                                    (t + 1) * per < n ? (t + 1) * per : n,
                                    KIX_OK,
                                    {0}};
    }
    kix_parallel_run(jobs, sizeof(jobs[0]), (size_t)threads, prep_range);
    for (int t = 0; t < threads; t++)
        if (jobs[t].rc) {
            *err = jobs[t].err;
            return jobs[t].rc;
        }
    return KIX_OK;
}

static int commit_one(struct kix_log *log, struct kix_prepared *p, struct kix_err *err)
{
    struct kix_append_result res;
    int rc = kix_log_commit(log, &p, 1, &res, NULL, err);
    if (rc == KIX_OK && res.code)
        rc = kix_err_set(err, res.code, "%s", res.message);
    return rc;
}

/* Builds a log of `entries` entries in dir; *object_bytes gets the bytes
 * of the objects stored. */
static int build(const char *dir, long entries, uint64_t *object_bytes, double *update_us,
                 struct kix_err *err)
{
    struct kix_signer *admin = NULL;
    struct kix_log *log = NULL;
    struct bench_workload w;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_prepared *p = NULL, **prep = NULL;
    struct kix_append_result *res = NULL;
    struct bench_item *items = NULL;
    struct kix_submission sub;
    long pubs = entries - 2, done = 0;
    double t0 = bench_now();
    int rc;

    memset(&w, 0, sizeof(w));
    *object_bytes = 0;
    rc = kix_signer_generate("bench-admin", KIX_NOTE_ALG_ED25519, &admin, err);
    if (rc == KIX_OK)
        rc = kix_index_create(dir, ORIGIN, kix_signer_public_key(admin), NULL, NULL, err);
    if (rc == KIX_OK)
        rc = kix_index_open(dir, NULL, &log, err);
    if (rc == KIX_OK)
        rc = bench_workload_init(&w, SCALE_TAG, err);
    if (rc == KIX_OK)
        rc = bench_workload_key_entry(&w, admin, &env, err);
    if (rc)
        goto out;
    sub.envelope = kix_buf_bytes(&env);
    sub.objects = NULL;
    sub.nobjects = 0;
    rc = kix_log_prepare(log, &sub, &p, err);
    if (rc == KIX_OK)
        rc = commit_one(log, p, err);
    if (rc)
        goto out;
    for (int s = 0; s < BENCH_NSHARED; s++)
        *object_bytes += w.shared[s].len;
    items = calloc(BUILD_CHUNK, sizeof(*items));
    prep = calloc(BUILD_CHUNK, sizeof(*prep));
    res = calloc(BUILD_CHUNK, sizeof(*res));
    if (!items || !prep || !res) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    while (rc == KIX_OK && done < pubs) {
        long n = pubs - done > BUILD_CHUNK ? BUILD_CHUNK : pubs - done;
        rc = bench_workload_make(&w, done, items, n, bench_cpus(), err);
        if (rc == KIX_OK)
            rc = prepare_parallel(log, &w, items, done, n, prep, err);
        if (rc == KIX_OK) {
            /* the index update of the last batch: the tree at its fullest */
            struct kix_log_seal_stats a, b;
            kix_log_seal_stats(log, &a);
            rc = kix_log_commit(log, prep, (size_t)n, res, NULL, err);
            kix_log_seal_stats(log, &b);
            if (b.entries > a.entries)
                *update_us = (double)(b.ns - a.ns) / 1e3 / (double)(b.entries - a.entries);
        }
        for (long k = 0; rc == KIX_OK && k < n; k++)
            if (res[k].code)
                rc = kix_err_set(err, res[k].code, "publication %ld: %s", done + k, res[k].message);
        for (long k = 0; k < n; k++) {
            *object_bytes += items[k].manifest.len;
            kix_prepared_free(prep[k]);
            prep[k] = NULL;
        }
        bench_items_release(items, n);
        done += n;
        if (entries >= 100000 && (done % (BUILD_CHUNK * 16) == 0 || done == pubs))
            bench_say("  building the %ld-entry log: %ld/%ld (%.0f s)", entries, done + 2, entries,
                      bench_now() - t0);
    }
out:
    free(items);
    free(prep);
    free(res);
    kix_prepared_free(p);
    kix_buf_release(&env);
    bench_workload_release(&w);
    kix_log_close(log);
    kix_signer_free(admin);
    return rc;
}

static int read_meta(const char *path, long *entries, uint64_t *leaf, uint64_t *obj,
                     double *update_us)
{
    FILE *f = fopen(path, "r");
    unsigned long long l = 0, o = 0;
    long e = 0;
    char format[32];
    int ok;

    if (!f)
        return -1;
    ok = fscanf(f, "entries %ld leaf_bytes %llu object_bytes %llu index %31s update_us %lf", &e, &l,
                &o, format, update_us) == 5 &&
         strcmp(format, INDEX_FORMAT) == 0;
    fclose(f);
    if (!ok)
        return -1;
    *entries = e;
    *leaf = l;
    *obj = o;
    return 0;
}

/* ---- over the wire ------------------------------------------------------------- */

struct wire_ctx {
    long pubs;
    long entries;
    int proof;
    unsigned seed;
    uint32_t next_id;
};

static int wire_request(void *arg, int conn, long k, struct kix_buf *out, uint32_t *id)
{
    struct wire_ctx *c = arg;
    struct kix_proto_writer pw;
    char run_id[64];

    (void)conn;
    (void)k;
    *id = c->next_id++;
    kix_proto_writer_init(&pw, out);
    if (c->proof) {
        uint64_t idx = (uint64_t)rand_r(&c->seed) % (uint64_t)c->entries;
        kix_proto_begin_request(&pw, *id, "inclusion_proof");
        kix_proto_put_map(&pw, 2);
        kix_proto_put_key(&pw, "index");
        kix_proto_put_u64(&pw, idx);
        kix_proto_put_key(&pw, "size");
        kix_proto_put_u64(&pw, (uint64_t)c->entries);
    } else {
        snprintf(run_id, sizeof(run_id), "bench-" SCALE_TAG "-%ld",
                 (long)((unsigned long)rand_r(&c->seed) % (unsigned long)c->pubs));
        kix_proto_begin_request(&pw, *id, "resolve");
        kix_proto_put_map(&pw, 1);
        kix_proto_put_key(&pw, "ref");
        kix_proto_put_cstr(&pw, run_id);
    }
    return kix_proto_writer_end(&pw, NULL) == KIX_OK;
}

/* One kixd serving a scale log through the wire figures. */
struct wire_server {
    long entries;
    pid_t pid;
    int port;
    struct wire_ctx ctx;
};

static int wire_start(struct wire_server *w, const char *cache_dir, const char *work_dir,
                      const char *kixd, long entries)
{
    char dir[4096], listen[64], log[4200];
    char *argv[] = {(char *)kixd, "serve",       "--store", dir, "--listen",
                    listen,       "--log-level", "warn",    NULL};

    memset(w, 0, sizeof(*w));
    w->entries = entries;
    w->ctx = (struct wire_ctx){entries - 2, entries, 0, 12345, 1};
    w->port = bench_free_port();
    bench_path(dir, sizeof(dir), "%s/log-%ld", cache_dir, entries);
    snprintf(listen, sizeof(listen), "tcp://127.0.0.1:%d", w->port);
    bench_path(log, sizeof(log), "%s/kixd-scale-%ld.log", work_dir, entries);
    w->pid = bench_spawn(argv, log);
    if (w->pid < 0 || bench_wait_port(w->port, w->pid, 30) != 0) {
        bench_say("kixd did not start on the %ld-entry log (see %s)", entries, log);
        bench_stop(w->pid);
        w->pid = -1;
        return -1;
    }
    return 0;
}

/* One load of `seconds` over one connection, one request in flight (proofs
 * or resolves), after `warmup` seconds of the same; its latencies added to
 * *into when not NULL. */
static int wire_load(struct wire_server *w, int proof, double warmup, double seconds,
                     struct bench_lat *into)
{
    struct bench_load ld;
    int rc = 0;

    memset(&ld, 0, sizeof(ld));
    ld.host = "127.0.0.1";
    ld.port = w->port;
    ld.proto = BENCH_MSGPACK;
    ld.conns = 1;
    ld.depth = 1;
    ld.warmup = warmup;
    ld.seconds = seconds;
    ld.request = wire_request;
    ld.ctx = &w->ctx;
    w->ctx.proof = proof;
    if (bench_load_run(&ld) != 0 || ld.errors) {
        bench_say("scale over the wire (%ld entries): %s", w->entries, ld.first_error);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && into && i < ld.lat.n; i++)
        bench_lat_add(into, ld.lat.ns[i]);
    bench_lat_release(&ld.lat);
    return rc;
}

#define WIRE_ROUNDS 4

/* Resolves and proofs through two kixds, one on each log, both running:
 * first each in its first seconds after start; then each after it has
 * served resolves for 6x the window more (a resolve at 10^6 reads ~20
 * records on pages no recent resolve touched, and what the CPU's caches
 * and TLB hold of the store's upper pages comes with service, not at
 * start: tools/bench/RESULTS.md, "Resolve at 10^6 in service"), measured
 * in rounds that alternate between the two logs, so that the machine's
 * drift falls on both alike; then inclusion proofs. */
int bench_scale_wire(const char *cache_dir, const char *work_dir, const char *kixd, double seconds,
                     struct bench_scale_point *small, struct bench_scale_point *big)
{
    struct bench_scale_point *out[2] = {small, big};
    struct wire_server w[2];
    struct bench_lat lat[2] = {{0}, {0}};
    int rc = 0, started = 0;

    for (int i = 0; rc == 0 && i < 2; i++)
        if ((rc = wire_start(&w[i], cache_dir, work_dir, kixd, out[i]->entries)) == 0)
            started++;
    for (int i = 0; rc == 0 && i < 2; i++) {
        rc = wire_load(&w[i], 0, seconds / 5, seconds, &lat[i]);
        out[i]->wire_resolve_start_p50_us = bench_lat_quantile(&lat[i], 0.5) / 1e3;
        bench_lat_release(&lat[i]);
        out[i]->wire_served_s = 6 * seconds;
    }
    for (int i = 0; rc == 0 && i < 2; i++)
        rc = wire_load(&w[i], 0, 0, 6 * seconds, NULL);
    for (int r = 0; rc == 0 && r < 2 * WIRE_ROUNDS; r++)
        rc = wire_load(&w[r % 2], 0, seconds / 20, seconds / WIRE_ROUNDS, &lat[r % 2]);
    for (int i = 0; rc == 0 && i < 2; i++) {
        out[i]->wire_resolve_p50_us = bench_lat_quantile(&lat[i], 0.5) / 1e3;
        out[i]->wire_resolve_p99_us = bench_lat_quantile(&lat[i], 0.99) / 1e3;
    }
    for (int i = 0; i < 2; i++)
        bench_lat_release(&lat[i]);
    for (int i = 0; rc == 0 && i < 2; i++) {
        rc = wire_load(&w[i], 1, seconds / 5, seconds, &lat[i]);
        out[i]->wire_proof_p50_us = bench_lat_quantile(&lat[i], 0.5) / 1e3;
        out[i]->wire_proof_p99_us = bench_lat_quantile(&lat[i], 0.99) / 1e3;
        bench_lat_release(&lat[i]);
    }
    for (int i = 0; i < started; i++)
        bench_stop(w[i].pid);
    return rc;
}

/* ---- in process ----------------------------------------------------------------- */

/* What proving a page of 100 rows from the middle of group g costs: its
 * directory and the pages that hold those ranks, records and proofs. */
struct page_cost {
    struct kix_log_reader *r;
    const struct kix_digest *g;
    uint64_t first, last;
    double bytes;
};

static int add_page(void *ctx, const struct kix_vindex_page *p)
{
    struct page_cost *c = ctx;
    struct kix_buf v = KIX_BUF_INIT, pr = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];
    int present;

    if (!p->members || p->first_rank > c->last || p->first_rank + p->members <= c->first)
        return 0;
    kix_vindex_key_group_page(c->g, p->index ? p->first_run : "", key);
    if (kix_index_prove(c->r, key, strlen(key), &v, &pr, &present, NULL) == KIX_OK)
        c->bytes += (double)(v.len + pr.len);
    kix_buf_release(&v);
    kix_buf_release(&pr);
    return 0;
}

static double page_bytes(struct kix_log_reader *r, const struct kix_digest *g)
{
    struct kix_buf v = KIX_BUF_INIT, pr = KIX_BUF_INIT;
    struct kix_vindex_dir d;
    struct page_cost c = {r, g, 0, 0, 0};
    char key[KIX_VINDEX_KEY_MAX + 1];
    int present;

    kix_vindex_key_group(g, key);
    if (kix_index_prove(r, key, strlen(key), &v, &pr, &present, NULL) == KIX_OK && present &&
        kix_vindex_group_decode(v.ptr, v.len, g, &d, NULL, NULL, NULL) == KIX_OK) {
        c.first = d.count / 2 + 1;
        c.last = c.first + 99;
        c.bytes = (double)(v.len + pr.len);
        if (kix_vindex_group_decode(v.ptr, v.len, g, &d, add_page, &c, NULL) != KIX_OK)
            c.bytes = 0;
    }
    kix_buf_release(&v);
    kix_buf_release(&pr);
    return c.bytes;
}

static int measure(const char *dir, long entries, int samples, struct bench_scale_point *out)
{
    struct kix_log_opts opts;
    struct kix_log *log = NULL;
    struct kix_err err = {0};
    struct bench_lat proof = {0}, resolve = {0}, verify = {0};
    double run_proof = 0, group_proof = 0, group_record = 0, tiles = 0, stored = 0;
    long proven = 0, grouped = 0;
    unsigned seed = 4242;
    long pubs = entries - 2;
    int rc;

    memset(&opts, 0, sizeof(opts));
    opts.store.read_only = 1;
    /* read as kixd reads (it asks for large pages): this process reads the
     * log first, and what it reads in stays in the page cache in the size
     * it was read, which kixd's reads then find (tools/bench/RESULTS.md,
     * "Resolve at 10^6") */
    opts.store.large_pages = 1;
    rc = kix_index_open(dir, &opts, &log, &err);
    if (rc) {
        bench_say("opening %s: %s", dir, err.msg);
        return -1;
    }
    /* every tile mapped first, as in a kixd that has served a while: one
     * proof per 128 leaves touches both pages of each bottom-row tile */
    for (uint64_t idx = 0; rc == KIX_OK && idx < (uint64_t)entries; idx += 128) {
        struct kix_hash p[KIX_MERKLE_MAX_PROOF];
        struct kix_log_reader *r = NULL;
        size_t n = 0;
        rc = kix_log_read_begin(log, &r);
        if (rc == KIX_OK)
            rc = kix_log_reader_inclusion(r, idx, kix_log_reader_size(r), p, &n, &err);
        kix_log_read_end(r);
    }
    /* pass 0 warms the rest of the page cache and is not counted */
    for (int pass = 0; pass < 2 && rc == KIX_OK; pass++) {
        for (int i = 0; i < samples && rc == KIX_OK; i++) {
            struct kix_hash p[KIX_MERKLE_MAX_PROOF];
            struct kix_log_reader *r = NULL;
            uint64_t idx = (uint64_t)rand_r(&seed) % (uint64_t)entries;
            size_t n = 0;
            double t0 = bench_now();
            rc = kix_log_read_begin(log, &r);
            if (rc == KIX_OK)
                rc = kix_log_reader_inclusion(r, idx, kix_log_reader_size(r), p, &n, &err);
            if (pass) {
                bench_lat_add(&proof, (uint64_t)((bench_now() - t0) * 1e9));
                tiles += (double)kix_log_reader_tile_reads(r);
                stored +=
                    (double)(kix_log_reader_tile_reads(r) - kix_log_reader_tile_cache_hits(r));
            }
            kix_log_read_end(r);
        }
        for (int i = 0; i < samples && rc == KIX_OK; i++) {
            struct kix_log_reader *r = NULL;
            struct kix_resolution res;
            char run_id[64];
            double t0 = bench_now();
            snprintf(run_id, sizeof(run_id), "bench-" SCALE_TAG "-%ld",
                     (long)((unsigned long)rand_r(&seed) % (unsigned long)pubs));
            rc = kix_log_read_begin(log, &r);
            if (rc == KIX_OK)
                rc = kix_index_resolve(r, run_id, strlen(run_id), &res, &err);
            if (pass)
                bench_lat_add(&resolve, (uint64_t)((bench_now() - t0) * 1e9));
            /* what a client does with it: every proof, the index's too */
            if (rc == KIX_OK && pass) {
                t0 = bench_now();
                rc = kix_resolution_verify(&res, kix_log_verifier(log), NULL, &err);
                bench_lat_add(&verify, (uint64_t)((bench_now() - t0) * 1e9));
                run_proof += (double)res.run_proof.len;
                proven++;
                if (res.group_proof.len) {
                    /* a rank: the directory and the run's page */
                    group_proof += (double)(res.group_proof.len + res.group_page_proof.len);
                    group_record += (double)(res.group_record.len + res.group_page.len);
                    grouped++;
                    if (!out->group_page_bytes)
                        out->group_page_bytes = page_bytes(r, &res.run.comparison_key);
                }
            }
            if (rc == KIX_OK)
                kix_resolution_release(&res);
            kix_log_read_end(r);
        }
    }
    if (rc)
        bench_say("measuring %s: %s", dir, kix_err_text(&err, rc));
    out->proof_p50_us = bench_lat_quantile(&proof, 0.5) / 1e3;
    out->proof_tiles = samples ? tiles / samples : 0;
    out->proof_stored_tiles = samples ? stored / samples : 0;
    out->proof_p99_us = bench_lat_quantile(&proof, 0.99) / 1e3;
    out->resolve_p50_us = bench_lat_quantile(&resolve, 0.5) / 1e3;
    out->resolve_p99_us = bench_lat_quantile(&resolve, 0.99) / 1e3;
    out->verify_p50_us = bench_lat_quantile(&verify, 0.5) / 1e3;
    out->run_proof_bytes = proven ? run_proof / (double)proven : 0;
    out->group_proof_bytes = grouped ? group_proof / (double)grouped : 0;
    out->group_record_bytes = grouped ? group_record / (double)grouped : 0;
    bench_lat_release(&proof);
    bench_lat_release(&resolve);
    bench_lat_release(&verify);
    kix_log_close(log);
    return rc ? -1 : 0;
}

static int sum_leaves(const char *dir, uint64_t *bytes, long *entries)
{
    struct kix_log_opts opts;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_err err;
    uint64_t size;
    int rc;

    memset(&opts, 0, sizeof(opts));
    opts.store.read_only = 1;
    *bytes = 0;
    rc = kix_index_open(dir, &opts, &log, &err);
    if (rc == KIX_OK)
        rc = kix_log_read_begin(log, &r);
    if (rc) {
        kix_log_close(log);
        return -1;
    }
    size = kix_log_reader_size(r);
    for (uint64_t i = 0; i < size; i++) {
        struct kix_bytes leaf;
        if (kix_log_reader_entry(r, i, &leaf) == KIX_OK)
            *bytes += leaf.len;
    }
    *entries = (long)size;
    kix_log_read_end(r);
    kix_log_close(log);
    return 0;
}

int bench_scale_point(const char *cache_dir, long entries, int samples,
                      struct bench_scale_point *out)
{
    char dir[4096], meta[4200];
    uint64_t leaf = 0, obj = 0;
    long got = 0;

    memset(out, 0, sizeof(*out));
    out->entries = entries;
    bench_path(dir, sizeof(dir), "%s/log-%ld", cache_dir, entries);
    bench_path(meta, sizeof(meta), "%s/bench-meta", dir);
    if (read_meta(meta, &got, &leaf, &obj, &out->index_update_us_per_entry) == 0 &&
        got == entries) {
        out->cached = 1;
    } else {
        struct kix_err err = {0};
        double t0 = bench_now();
        FILE *f;
        bench_rmrf(dir);
        if (bench_mkdirs(cache_dir) != 0) {
            bench_say("cannot create %s", cache_dir);
            return -1;
        }
        bench_say("building a log of %ld entries in %s (cached for later runs)", entries, dir);
        if (build(dir, entries, &obj, &out->index_update_us_per_entry, &err) != KIX_OK) {
            bench_say("building the %ld-entry log: %s", entries, err.msg);
            bench_rmrf(dir);
            return -1;
        }
        out->build_s = bench_now() - t0;
        if (sum_leaves(dir, &leaf, &got) != 0 || got != entries) {
            bench_say("the built log has %ld entries, not %ld", got, entries);
            return -1;
        }
        f = fopen(meta, "w");
        if (!f ||
            fprintf(f, "entries %ld leaf_bytes %llu object_bytes %llu index %s update_us %.3f\n",
                    entries, (unsigned long long)leaf, (unsigned long long)obj, INDEX_FORMAT,
                    out->index_update_us_per_entry) < 0) {
            bench_say("cannot write %s", meta);
            if (f)
                fclose(f);
            return -1;
        }
        fclose(f);
    }
    out->canon_bytes = leaf + obj;
    out->disk_bytes = bench_store_bytes(dir);
    return measure(dir, entries, samples, out) != 0 ? -1 : 0;
}

/* ---- one large group (the pages part) -------------------------------------------- */

struct page_sizes {
    struct kix_log_reader *r;
    const struct kix_digest *g;
    double largest;
};

static int page_size(void *ctx, const struct kix_vindex_page *p)
{
    struct page_sizes *c = ctx;
    struct kix_buf v = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = kix_vindex_key_group_page(c->g, p->index ? p->first_run : "", key);

    if (kix_index_value(c->r, key, n, &v, NULL) == KIX_OK && (double)v.len > c->largest)
        c->largest = (double)v.len;
    kix_buf_release(&v);
    return 0;
}

static int pages_of(const char *dir, long runs, int ground, struct bench_report *rep)
{
    static const char *const kinds[2] = {"honest", "ground"};
    struct kix_log_opts opts;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_run_info run;
    struct kix_vindex_dir d;
    struct kix_buf dir_rec = KIX_BUF_INIT;
    struct kix_err err = {0};
    struct page_sizes ps;
    char key[KIX_VINDEX_KEY_MAX + 1], label[160], id[64];
    uint64_t obj = 0;
    double update = 0, t0 = bench_now();
    int rc;

    /* the workload's group size and ids come from the environment */
    snprintf(label, sizeof(label), "%ld", runs);
    setenv("KIX_BENCH_GROUP_SIZE", label, 1);
    if (ground)
        setenv("KIX_BENCH_GROUND_IDS", "1", 1);
    rc = build(dir, runs + 2, &obj, &update, &err);
    unsetenv("KIX_BENCH_GROUND_IDS");
    unsetenv("KIX_BENCH_GROUP_SIZE");
    if (rc != KIX_OK) {
        bench_say("pages: building the %s log: %s", kinds[ground], err.msg);
        return -1;
    }
    memset(&opts, 0, sizeof(opts));
    opts.store.read_only = 1;
    rc = kix_index_open(dir, &opts, &log, &err);
    if (rc == KIX_OK)
        rc = kix_log_read_begin(log, &r);
    /* the first run published: its id as the workload made it */
    snprintf(id, sizeof(id), "bench-%s-0", SCALE_TAG);
    if (rc == KIX_OK && kix_index_run(r, id, strlen(id), &run) != KIX_OK) {
        for (int nonce = 0; nonce < 100000; nonce++) {
            snprintf(id, sizeof(id), "bench-%s-0-%d", SCALE_TAG, nonce);
            if (kix_index_run(r, id, strlen(id), &run) == KIX_OK)
                break;
        }
    }
    if (rc == KIX_OK && run.grouped) {
        size_t n = kix_vindex_key_group(&run.comparison_key, key);
        ps.r = r;
        ps.g = &run.comparison_key;
        ps.largest = 0;
        rc = kix_index_value(r, key, n, &dir_rec, &err);
        if (rc == KIX_OK)
            rc = kix_vindex_group_decode(dir_rec.ptr, dir_rec.len, &run.comparison_key, &d,
                                         page_size, &ps, &err);
        if (rc == KIX_OK) {
            snprintf(label, sizeof(label), "%s ids, %ld runs in one group: index update",
                     kinds[ground], runs);
            snprintf(key, sizeof(key), "pages.%s_update_us", kinds[ground]);
            bench_fig(rep, key, update, "us", label);
            snprintf(key, sizeof(key), "pages.%s_pages", kinds[ground]);
            bench_fig(rep, key, (double)d.pages, "", "  pages");
            snprintf(key, sizeof(key), "pages.%s_largest_page_bytes", kinds[ground]);
            bench_fig(rep, key, ps.largest, "", "  largest page record (bytes)");
            snprintf(key, sizeof(key), "pages.%s_directory_bytes", kinds[ground]);
            bench_fig(rep, key, (double)dir_rec.len, "", "  directory record (bytes)");
            snprintf(key, sizeof(key), "pages.%s_page_proof_bytes", kinds[ground]);
            bench_fig(rep, key, page_bytes(r, &run.comparison_key), "",
                      "  100 rows from the middle: records and proofs (bytes)");
            snprintf(key, sizeof(key), "pages.%s_build_s", kinds[ground]);
            bench_fig(rep, key, bench_now() - t0, "s", "  build and measure");
        }
    } else if (rc == KIX_OK) {
        rc = kix_err_set(&err, KIX_ENOTFOUND, "run %s is not ranked", id);
    }
    if (rc != KIX_OK)
        bench_say("pages: the %s log: %s", kinds[ground], err.msg);
    if (r)
        kix_log_read_end(r);
    kix_log_close(log);
    kix_buf_release(&dir_rec);
    return rc == KIX_OK ? 0 : -1;
}

int bench_pages(const char *work_dir, long runs, struct bench_report *rep)
{
    char dir[4096];
    for (int ground = 0; ground < 2; ground++) {
        bench_path(dir, sizeof(dir), "%s/pages-%s", work_dir, ground ? "ground" : "honest");
        bench_rmrf(dir);
        if (bench_mkdirs(dir) != 0 || pages_of(dir, runs, ground, rep) != 0)
            return -1;
        bench_rmrf(dir);
    }
    return 0;
}
