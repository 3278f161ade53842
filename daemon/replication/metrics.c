/* kixd's counters and their Prometheus text for /metrics (metrics.h). */
#include "metrics.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "mirror.h"
#include "witness_client.h"
#include "writer.h"

#define ULL unsigned long long

static const char *const kind_names[KIXD_HTTP_KINDS] = {
    "checkpoint", "tile", "entries", "metrics", "page", "witness", "submit", "other"};
static const unsigned codes[] = {200, 201, 204, 304, 400, 403, 404, 405, 409,
                                 411, 413, 422, 429, 431, 500, 503, 507};
#define NCODES (sizeof(codes) / sizeof(codes[0]))
static const uint64_t batch_le[] = {1, 4, 16, 64, 256, 1024, 4096, 16384};
#define NBATCH (sizeof(batch_le) / sizeof(batch_le[0]))

struct kixd_metrics {
    atomic_uint_least64_t requests[KIXD_HTTP_KINDS][NCODES];
    atomic_uint_least64_t http_bytes;
    atomic_uint_least64_t http_accepted;
    atomic_uint_least64_t pages_rendered;
    atomic_uint_least64_t batches[NBATCH + 1]; /* commits by entries added (last: +Inf) */
    atomic_uint_least64_t batch_entries;
    atomic_uint_least64_t last_size;
    atomic_uint_least64_t last_grew_ms; /* wall clock of the last growth */
    atomic_uint_least64_t exports_ok, exports_failed, export_size, export_us;
    pthread_mutex_t mu; /* orders grew's read-modify-write of last_size */
    _Atomic(const char *) rpc_name[KIXD_RPC_SLOTS];
    atomic_uint_least64_t rpc[KIXD_RPC_SLOTS][2]; /* [ok, error] */
};

void kixd_metrics_rpc(struct kixd_server *srv, unsigned slot, const char *name, int ok)
{
    struct kixd_metrics *m = srv->metrics;

    if (!m)
        return;
    if (slot >= KIXD_RPC_SLOTS || (slot != KIXD_RPC_UNKNOWN && !name))
        slot = KIXD_RPC_UNKNOWN;
    atomic_store(&m->rpc_name[slot], slot == KIXD_RPC_UNKNOWN ? "(unknown)" : name);
    atomic_fetch_add(&m->rpc[slot][ok ? 0 : 1], 1);
}

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int kixd_metrics_new(struct kixd_server *srv)
{
    struct kixd_metrics *m = calloc(1, sizeof(*m));
    struct kix_log_reader *r;

    if (!m)
        return KIX_ENOMEM;
    pthread_mutex_init(&m->mu, NULL);
    if (srv->log && kix_log_read_begin(srv->log, &r) == KIX_OK) { /* --source: none */
        atomic_store(&m->last_size, kix_log_reader_size(r));
        kix_log_read_end(r);
    }
    atomic_store(&m->last_grew_ms, wall_ms());
    srv->metrics = m;
    return KIX_OK;
}

void kixd_metrics_free(struct kixd_server *srv)
{
    if (!srv->metrics)
        return;
    pthread_mutex_destroy(&srv->metrics->mu);
    free(srv->metrics);
    srv->metrics = NULL;
}

void kixd_metrics_grew(struct kixd_server *srv, uint64_t size)
{
    struct kixd_metrics *m = srv->metrics;
    uint64_t added;
    size_t b = 0;

    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    added = size > atomic_load(&m->last_size) ? size - atomic_load(&m->last_size) : 0;
    if (added > 0)
        atomic_store(&m->last_size, size);
    pthread_mutex_unlock(&m->mu);
    if (added == 0)
        return;
    while (b < NBATCH && added > batch_le[b])
        b++;
    atomic_fetch_add(&m->batches[b], 1);
    atomic_fetch_add(&m->batch_entries, added);
    atomic_store(&m->last_grew_ms, wall_ms());
}

void kixd_metrics_exported(struct kixd_server *srv, int ok, uint64_t size, double ms)
{
    struct kixd_metrics *m = srv->metrics;

    if (!m)
        return;
    if (ok) {
        atomic_fetch_add(&m->exports_ok, 1);
        atomic_store(&m->export_size, size);
    } else {
        atomic_fetch_add(&m->exports_failed, 1);
    }
    atomic_fetch_add(&m->export_us, (uint64_t)(ms * 1000.0));
}

void kixd_metrics_http_accepted(struct kixd_server *srv)
{
    if (srv->metrics)
        atomic_fetch_add(&srv->metrics->http_accepted, 1);
}

void kixd_metrics_page_rendered(struct kixd_server *srv)
{
    if (srv->metrics)
        atomic_fetch_add(&srv->metrics->pages_rendered, 1);
}

void kixd_metrics_http_answer(struct kixd_server *srv, int kind, unsigned code, size_t bytes)
{
    struct kixd_metrics *m = srv->metrics;

    if (!m)
        return;
    for (size_t i = 0; i < NCODES; i++) {
        if (codes[i] == code) {
            atomic_fetch_add(&m->requests[kind][i], 1);
            break;
        }
    }
    atomic_fetch_add(&m->http_bytes, bytes);
}

#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (kix_buf_addf(out, __VA_ARGS__) != KIX_OK)                                              \
            return KIX_ENOMEM;                                                                     \
    } while (0)

/* The Prometheus text exposition format (version 0.0.4). */
int kixd_metrics_text(struct kixd_worker *w, struct kix_buf *out)
{
    struct kixd_server *srv = w->srv;
    struct kixd_metrics *m = srv->metrics;
    struct kix_log_reader *r = NULL;
    struct kix_err err = {0};
    uint64_t size = 0, cum = 0;

    KIXD_ASSERT_LOOP(w);
    if (kixd_worker_reader(w, &r, &err) == KIX_OK)
        size = kix_log_reader_size(r);
    ADD("# HELP kix_log_entries Entries in the log (the size of its latest checkpoint).\n"
        "# TYPE kix_log_entries gauge\nkix_log_entries %llu\n",
        (ULL)size);
    ADD("# HELP kix_checkpoint_age_seconds Seconds since the log last grew (or kixd started).\n"
        "# TYPE kix_checkpoint_age_seconds gauge\nkix_checkpoint_age_seconds %.3f\n",
        (double)(wall_ms() - atomic_load(&m->last_grew_ms)) / 1000.0);
    ADD("# HELP kix_log_replica 1 when this kixd serves a read-only mirror.\n"
        "# TYPE kix_log_replica gauge\nkix_log_replica %d\n",
        kix_log_is_replica(srv->log));
    ADD("# HELP kix_batch_entries Entries added per commit (or mirror batch) since start.\n"
        "# TYPE kix_batch_entries histogram\n");
    for (size_t b = 0; b <= NBATCH; b++) {
        cum += atomic_load(&m->batches[b]);
        if (b < NBATCH)
            ADD("kix_batch_entries_bucket{le=\"%llu\"} %llu\n", (ULL)batch_le[b], (ULL)cum);
        else
            ADD("kix_batch_entries_bucket{le=\"+Inf\"} %llu\n", (ULL)cum);
    }
    ADD("kix_batch_entries_sum %llu\nkix_batch_entries_count %llu\n",
        (ULL)atomic_load(&m->batch_entries), (ULL)cum);
    if (srv->cfg->phase_stats) {
        struct kix_log_phase_stats ps;
        kix_log_phase_stats(srv->log, &ps);
        ADD("# HELP kixd_append_cpu_seconds_total CPU time of appends by phase (--phase-stats).\n"
            "# TYPE kixd_append_cpu_seconds_total counter\n"
            "kixd_append_cpu_seconds_total{phase=\"receive\"} %.9f\n",
            (double)atomic_load(&srv->phase_receive_ns) / 1e9);
        for (int i = 0; i < KIX_LOG_PHASES; i++)
            ADD("kixd_append_cpu_seconds_total{phase=\"%s\"} %.9f\n", kix_log_phase_name(i),
                (double)ps.ns[i] / 1e9);
        ADD("kixd_append_cpu_seconds_total{phase=\"answer\"} %.9f\n",
            (double)atomic_load(&srv->phase_answer_ns) / 1e9);
        ADD("# HELP kixd_append_phase_entries_total Entries prepared and committed while "
            "counting.\n# TYPE kixd_append_phase_entries_total counter\n"
            "kixd_append_phase_entries_total{step=\"prepared\"} %llu\n"
            "kixd_append_phase_entries_total{step=\"committed\"} %llu\n",
            (ULL)ps.prepared, (ULL)ps.committed);
    }
    if (srv->writer) {
        uint64_t b[KIXD_COMMIT_BUCKETS], failed, n = 0;
        double ms;
        kixd_writer_stats(srv->writer, b, &failed, &ms);
        ADD("# HELP kix_commit_seconds Group commits (one durable LMDB transaction with its "
            "fsync) by latency.\n# TYPE kix_commit_seconds histogram\n");
        for (size_t i = 0; i < KIXD_COMMIT_BUCKETS; i++) {
            n += b[i];
            if (i < KIXD_COMMIT_BUCKETS - 1)
                ADD("kix_commit_seconds_bucket{le=\"%g\"} %llu\n", KIXD_COMMIT_LE_MS[i] / 1e3,
                    (ULL)n);
            else
                ADD("kix_commit_seconds_bucket{le=\"+Inf\"} %llu\n", (ULL)n);
        }
        ADD("kix_commit_seconds_sum %.6f\nkix_commit_seconds_count %llu\n", ms / 1e3, (ULL)n);
        ADD("# HELP kix_commits_failed_total Group commits that failed (nothing stored).\n"
            "# TYPE kix_commits_failed_total counter\nkix_commits_failed_total %llu\n",
            (ULL)failed);
    }
    if (kixd_wclient_metrics(srv->wclient, out) != KIX_OK)
        return KIX_ENOMEM;
    ADD("# HELP kixd_connections Open connections (RPC and HTTP).\n"
        "# TYPE kixd_connections gauge\nkixd_connections %u\n",
        atomic_load(&srv->connections));
    ADD("# HELP kixd_rpc_requests_total RPC requests dispatched, by method and result.\n"
        "# TYPE kixd_rpc_requests_total counter\n");
    for (unsigned i = 0; i < KIXD_RPC_SLOTS; i++) {
        const char *name = atomic_load(&m->rpc_name[i]);
        if (!name)
            continue;
        ADD("kixd_rpc_requests_total{method=\"%s\",result=\"ok\"} %llu\n"
            "kixd_rpc_requests_total{method=\"%s\",result=\"error\"} %llu\n",
            name, (ULL)atomic_load(&m->rpc[i][0]), name, (ULL)atomic_load(&m->rpc[i][1]));
    }
    ADD("# HELP kixd_http_connections_total HTTP connections accepted.\n"
        "# TYPE kixd_http_connections_total counter\nkixd_http_connections_total %llu\n",
        (ULL)atomic_load(&m->http_accepted));
    ADD("# HELP kixd_http_requests_total HTTP requests answered, by path kind and status.\n"
        "# TYPE kixd_http_requests_total counter\n");
    for (int k = 0; k < KIXD_HTTP_KINDS; k++)
        for (size_t i = 0; i < NCODES; i++) {
            uint64_t v = atomic_load(&m->requests[k][i]);
            if (v || (k == KIXD_HTTP_METRICS && codes[i] == 200))
                ADD("kixd_http_requests_total{path=\"%s\",code=\"%u\"} %llu\n", kind_names[k],
                    codes[i], (ULL)v);
        }
    ADD("# HELP kixd_http_pages_rendered_total Pages and page JSON rendered (the others were "
        "answered from the pages of the last second).\n"
        "# TYPE kixd_http_pages_rendered_total counter\nkixd_http_pages_rendered_total %llu\n",
        (ULL)atomic_load(&m->pages_rendered));
    ADD("# HELP kixd_http_response_bytes_total Bytes of HTTP answers (headers and bodies).\n"
        "# TYPE kixd_http_response_bytes_total counter\nkixd_http_response_bytes_total %llu\n",
        (ULL)atomic_load(&m->http_bytes));
    if (srv->exporter) {
        ADD("# HELP kixd_exports_total Exports of the tlog-tiles directory, by result.\n"
            "# TYPE kixd_exports_total counter\n"
            "kixd_exports_total{result=\"ok\"} %llu\nkixd_exports_total{result=\"failed\"} %llu\n",
            (ULL)atomic_load(&m->exports_ok), (ULL)atomic_load(&m->exports_failed));
        ADD("# HELP kixd_export_size The tree size the export directory holds.\n"
            "# TYPE kixd_export_size gauge\nkixd_export_size %llu\n",
            (ULL)atomic_load(&m->export_size));
        ADD("# HELP kixd_export_seconds_total Time spent exporting.\n"
            "# TYPE kixd_export_seconds_total counter\nkixd_export_seconds_total %.6f\n",
            (double)atomic_load(&m->export_us) / 1e6);
    }
    if (srv->mirror) {
        struct kixd_mirror_status st;
        kixd_mirror_status(srv->mirror, &st);
        ADD("# HELP kix_mirror_upstream_size The upstream's size as last seen.\n"
            "# TYPE kix_mirror_upstream_size gauge\nkix_mirror_upstream_size %llu\n",
            (ULL)st.upstream_size);
        ADD("# HELP kix_mirror_lag_seconds Seconds since the mirror last knew it was in sync.\n"
            "# TYPE kix_mirror_lag_seconds gauge\nkix_mirror_lag_seconds %llu\n",
            (ULL)st.lag_seconds);
        ADD("# HELP kix_mirror_fork 1 when the mirror found a fork.\n"
            "# TYPE kix_mirror_fork gauge\nkix_mirror_fork %d\n",
            st.fork);
    }
    return KIX_OK;
}

#undef ADD
#undef ULL
