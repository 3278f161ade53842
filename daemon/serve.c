/* kixd serve: the floors wired together (ARCHITECTURE.md, "kixd's
 * floors"). The loop and the connections (loop/) call up only through
 * struct kixd_handlers; this file fills it with the floors above them, opens
 * the log, starts the writer, the replication side and the workers, and stops
 * them again in the reverse order. */
#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_check.h"
#include "cmd_migrate.h"
#include "diag.h"
#include "dispatch.h"
#include "export.h"
#include "fd_limit.h"
#include "follow.h"
#include "http.h"
#include "http_bundles.h"
#include "http_pages_cache.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/version.h"
#include "metrics.h"
#include "mirror.h"
#include "peers.h"
#include "replicas.h"
#include "server.h"
#include "tlog_witness.h"
#include "witness.h"
#include "witness_client.h"
#include "writer.h"

/* ---- the floors above the loop (struct kixd_handlers) ------------------------------ */

/* The worker woke: the committed submits its writer posted back. Their
 * answers are written first and each connection's flushed once (a commit
 * answers several submits of a connection: one write(2), not one each),
 * then the jobs are freed, which lets their connections read on. */
static void submits_done(struct kixd_worker *w, struct kixd_submit *jobs)
{
    struct kixd_submit *answered = NULL, *next;
    struct kixd_cpu_clock clk;

    for (; jobs; jobs = next) {
        next = jobs->next;
        assert(jobs->w == w && jobs->state == KIXD_SUBMIT_COMMITTED);
        if (!kixd_replicas_hold(w, jobs)) {
            kixd_submit_answer_unflushed(jobs);
            jobs->next = answered;
            answered = jobs;
        }
    }
    kixd_cpu_clock_start(&clk, w->srv->cfg->phase_stats);
    for (struct kixd_submit *j = answered; j; j = j->next)
        if (j->conn) /* an RPC submit's (an HTTP one answered itself); flushed once, then empty */
            kixd_conn_flush(j->conn, 1);
    kixd_cpu_clock_add(&clk, &w->srv->phase_answer_ns);
    for (; answered; answered = next) {
        next = answered->next;
        kixd_submit_free(answered);
    }
    if (w->held_head)
        kixd_replicas_release(w, 0);
}

static void sweep(struct kixd_worker *w)
{
    kixd_http_sweep(w);
    if (w->held_head) /* --ack-timeout */
        kixd_replicas_release(w, 0);
}

static void drain_timeout(struct kixd_worker *w)
{
    kixd_replicas_release(w, 1);
}

static void worker_free(struct kixd_worker *w)
{
    kix_source_close(w->source);
    kixd_bundles_free(w);
    kixd_page_cache_free(w);
}

/* Writer thread (or a mirror's replay): the log grew. */
static void grew(struct kixd_server *srv, uint64_t size)
{
    kixd_replicas_committed(srv, size); /* the readers' view of it, for later */
    kixd_metrics_grew(srv, size);
    kixd_export_kick(srv->exporter);
    kixd_wclient_kick(srv->wclient);
}

static const struct kixd_handlers handlers = {
    .rpc = kixd_dispatch,
    .follow_pump = kixd_follow_pump,
    .http_accept = kixd_http_accept,
    .submits_done = submits_done,
    .submit_answer = kixd_submit_answer,
    .sweep = sweep,
    .stop = kixd_http_stop_all,
    .drain_timeout = drain_timeout,
    .worker_free = worker_free,
    .grew = grew,
};

/* ---- start-up ---------------------------------------------------------------------- */

static void listened_summary(const struct kixd_config *cfg, char *out, size_t cap)
{
    size_t off = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cfg->nlisten && off < cap; i++)
        off += (size_t)snprintf(out + off, cap - off, "%s%s", i ? " " : "", cfg->listen[i]);
}

static int lock_store(struct kixd_server *srv, struct kix_err *err)
{
    return kixd_store_lock(srv->cfg->store, &srv->lock_fd, err);
}

/* A mirror made the store (mirror.h) and kixd promote did not make it an
 * origin. */
static int is_unpromoted_mirror(const char *store)
{
    char path[4200];
    struct stat st;

    snprintf(path, sizeof(path), "%s/" KIXD_PROMOTED_FILE, store);
    if (stat(path, &st) == 0)
        return 0;
    snprintf(path, sizeof(path), "%s/" KIXD_MIRROR_ID_FILE, store);
    return stat(path, &st) == 0;
}

/* A store an older kixd wrote is converted in place by the writable open
 * that follows; kixd migrate's copy of it as it was goes first, under the
 * store's lock (held from here on), unless --no-migrate-backup. A store
 * that cannot be read is left to the open, which says why. */
static int backup_before_conversion(struct kixd_server *srv, struct kix_err *err)
{
    const char *store = srv->cfg->store;
    struct kixd_migrate_plan p;
    struct kix_err look = {0};
    int layout, rc;
    char index[64];

    /* read before the lock, so that a current store (every start but the
     * first after an upgrade) is not locked here; kixd_migrate_prepare
     * reads it again under the lock, as it is when copied */
    if (kixd_store_look(store, &layout, index, sizeof(index), &look) != KIX_OK ||
        kixd_store_current(layout, index))
        return KIX_OK;
    rc = lock_store(srv, err);
    if (rc)
        return rc;
    rc = kixd_migrate_prepare(store, NULL, srv->cfg->no_migrate_backup, &p, err);
    if (rc == KIX_EEXIST) {
        kix_err_set(err, rc,
                    "%s was written by an older kixd (layout %d, index %s): kixd serve "
                    "converts it at start after copying it to %s, which exists (a copy an "
                    "earlier start made?). Move that directory away, or convert with 'kixd "
                    "migrate --store %s --backup DEST', or start with --no-migrate-backup",
                    store, p.layout_before, p.index_before[0] ? p.index_before : "none", p.backup,
                    store);
        return rc;
    }
    if (rc)
        return rc;
    if (!p.converted)
        return KIX_OK;
    if (p.backup[0])
        kixd_log(KIXD_WARN,
                 "converting %s from layout %d (index %s) to this kixd's; the store as it was "
                 "is copied to %s%s%s",
                 store, p.layout_before, p.index_before[0] ? p.index_before : "none", p.backup,
                 p.index_left_out[0] ? " without its index, which cannot be read: " : "",
                 p.index_left_out);
    else
        kixd_log(KIXD_WARN,
                 "converting %s from layout %d (index %s) to this kixd's without a copy "
                 "(--no-migrate-backup)",
                 store, p.layout_before, p.index_before[0] ? p.index_before : "none");
    return KIX_OK;
}

static int open_log(struct kixd_server *srv, struct kix_err *err)
{
    struct kix_log_opts opts;
    struct kix_buf vkey = KIX_BUF_INIT;
    int rc;

    /* kix_log_open refuses a store kixd init did not make (never creates one) */
    memset(&opts, 0, sizeof(opts));
    opts.store.map_max = srv->cfg->map_max;
    opts.store.large_pages = !srv->cfg->no_large_pages;
    opts.store.convert = 1; /* after backup_before_conversion's copy */
    /* the origin needs its key; a copy served without one is said so
     * (--mirror-of, --read-only), never guessed from a missing file */
    opts.replica = srv->cfg->mirror_of[0] || srv->cfg->read_only;
    opts.log_key_file = srv->cfg->log_key_file[0] ? srv->cfg->log_key_file : NULL;
    if (!opts.replica && is_unpromoted_mirror(srv->cfg->store)) {
        rc = kix_err_set(
            err, KIX_EUSAGE,
            "REFUSING TO SERVE %s AS THE ORIGIN: it is a mirror's store (%s/" KIXD_MIRROR_ID_FILE
            "). When the origin is lost, make it the origin with 'kixd promote "
            "--store %s --log-key-file KEY' first (OPERATING.md); else serve it "
            "with --mirror-of or --read-only",
            srv->cfg->store, srv->cfg->store, srv->cfg->store);
        goto out;
    }
    rc = backup_before_conversion(srv, err);
    if (rc)
        goto out;
    rc = kix_index_open(srv->cfg->store, &opts, &srv->log, err);
    if (rc && err && err->cause == KIX_CAUSE_NO_LOG_KEY) {
        rc = kix_err_set(err, rc,
                         "REFUSING TO SERVE %s AS THE ORIGIN: its log key is missing (%s%s): "
                         "restore the key and start again, or give --log-key-file FILE. To "
                         "serve this copy without its key, say what it is: --mirror-of ADDR "
                         "(follow the origin) or --read-only",
                         srv->cfg->store, opts.log_key_file ? opts.log_key_file : srv->cfg->store,
                         opts.log_key_file ? "" : "/log.key");
        goto out;
    }
    if (rc)
        goto out;
    if (srv->lock_fd < 0 && (rc = lock_store(srv, err)) != KIX_OK)
        goto out;
    kix_log_phase_stats_enable(srv->log, srv->cfg->phase_stats);
    if (srv->cfg->no_store_check)
        kixd_log(KIXD_WARN, "--no-store-check: serving %s without checking it first",
                 srv->cfg->store);
    else
        rc = kixd_check_at_start(srv->log, srv->cfg->store, err);
    if (rc == KIX_OK && !kix_log_is_replica(srv->log))
        rc = kixd_peers_check(srv->cfg, srv->log, err);
    if (rc)
        goto out;
    rc = kix_verifier_format(kix_log_verifier(srv->log), &vkey);
    if (rc) {
        kix_err_set(err, rc, "out of memory");
        goto out;
    }
    snprintf(srv->log_key, sizeof(srv->log_key), "%s", (const char *)vkey.ptr);
out:
    kix_buf_release(&vkey);
    return rc; /* the caller closes srv->log and the lock */
}

/* --source URL: the source each worker reads opened once here, so that a
 * copy that cannot be read is said at start (and libcurl is set up before
 * the worker threads). */
static int open_source(const struct kixd_config *cfg, char *origin, size_t cap, uint64_t *size,
                       struct kix_err *err)
{
    struct kix_source *src = NULL;
    struct kix_client_info *info = malloc(sizeof(*info));
    int rc = info ? kix_source_open_http(cfg->source, NULL, &src, err)
                  : kix_err_set(err, KIX_ENOMEM, "out of memory");

    if (rc == KIX_OK)
        rc = src->ops->info(src, info, err);
    if (rc == KIX_OK) {
        snprintf(origin, cap, "%s", info->origin);
        *size = info->size;
    } else {
        kix_err_wrap(err, "cannot serve --source %s", cfg->source);
    }
    kix_source_close(src);
    free(info);
    return rc;
}

int kixd_server_run(const struct kixd_config *cfg)
{
    struct kixd_server srv;
    struct kix_err err = {0};
    struct kix_log_reader *r = NULL;
    char where[2048], pool[16], origin[256];
    uint64_t size = 0;
    int rc, status = 0;

    memset(&srv, 0, sizeof(srv));
    srv.cfg = cfg;
    srv.up = &handlers;
    srv.lock_fd = -1;
    pthread_mutex_init(&srv.stop_mu, NULL);
    atomic_init(&srv.exit_status, 0);
    atomic_init(&srv.connections, 0);
    atomic_init(&srv.stopping, 0);
    atomic_init(&srv.read_bytes, 0);
    atomic_init(&srv.submit_bytes, 0);
    signal(SIGPIPE, SIG_IGN);
    /* run pages offer "Add a reproduction or note" where there is an
     * address to send it to (PROTOCOL.md §3.4) */
    kix_pages_set_submit_url(cfg->submit_url[0] ? cfg->submit_url
                             : cfg->http_submit ? "submit"
                                                : "");
    /* signature checks run on the libuv pool: at least one thread per CPU */
    if (!getenv("UV_THREADPOOL_SIZE")) {
        snprintf(pool, sizeof(pool), "%u", cfg->threads > 4 ? cfg->threads : 4);
        setenv("UV_THREADPOOL_SIZE", pool, 1);
    }
    if (cfg->mirror_of[0]) {
        rc = kixd_mirror_prepare(cfg, &err);
        if (rc) {
            err.code = rc; /* its text when the message is empty */
            kix_err_wrap(&err, "cannot mirror %s", cfg->mirror_of);
            goto out;
        }
    }
    kixd_raise_fd_limit(cfg);
    /* the witness keys first: a usage error is reported before the store is locked */
    rc = kixd_witnesses_load(&srv, &err);
    if (rc)
        goto out;
    if (cfg->witness_key[0]) {
        struct kix_verifier up;
        if (cfg->mirror_of[0]) {
            rc = kixd_read_verifier(cfg->upstream_key, &up, &err);
            if (rc)
                goto out;
        }
        rc = kixd_tlogw_open(cfg, cfg->mirror_of[0] ? &up : NULL, &srv.tlogw, &err);
        if (rc)
            goto out;
    }
    rc = kixd_wclient_new(cfg, &srv.wclient, &err);
    if (rc)
        goto out;
    if (cfg->source[0]) {
        rc = open_source(cfg, origin, sizeof(origin), &size, &err);
        if (rc)
            goto out;
    } else {
        rc = open_log(&srv, &err);
        if (rc) {
            err.code = rc; /* its text when the message is empty */
            kix_err_wrap(&err, "cannot open the log");
            goto out;
        }
        snprintf(origin, sizeof(origin), "%s", kix_log_origin(srv.log));
    }
    if (cfg->nhttp)
        kixd_bundles_prepare(&srv); /* the store is ours now (locked) */
    if (srv.log && kix_log_read_begin(srv.log, &r) == KIX_OK) {
        size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    rc = kixd_workers_new(&srv, &err);
    if (rc)
        goto out;
    rc = kixd_metrics_new(&srv);
    if (rc) {
        kix_err_set(&err, rc, "out of memory");
        goto out;
    }
    rc = kixd_workers_listen(&srv, &err);
    if (rc)
        goto out;
    /* before the exporter and the witness client, which read the view */
    if (srv.log && !kix_log_is_replica(srv.log)) {
        rc = kixd_replicas_new(cfg, &srv.replicas, &err);
        if (rc)
            goto out;
    }
    if (cfg->export_dir[0]) {
        rc = kixd_export_start(&srv, cfg->export_dir, &srv.exporter, &err);
        if (rc)
            goto out;
    }
    rc = kixd_wclient_start(&srv, srv.wclient, &err); /* before the writer, which kicks it */
    if (rc)
        goto out;
    if (srv.log && !kix_log_is_replica(srv.log)) {
        rc = kixd_writer_start(srv.log, cfg->max_group, cfg->max_batch, kixd_server_log_grew,
                               kixd_server_noticed, &srv, &srv.writer, &err);
        if (rc)
            goto out;
    }
    if (cfg->mirror_of[0]) {
        rc = kixd_mirror_start(&srv, &srv.mirror, &err);
        if (rc)
            goto out;
    }
    kixd_workers_signals(&srv);
    listened_summary(cfg, where, sizeof(where));
    kixd_log(KIXD_INFO, "kixd %s serving %slog %s (size %llu) from %s on %s with %u event loops",
             KIX_VERSION_STRING,
             cfg->mirror_of[0] ? "the read-only mirror of "
             : cfg->read_only  ? "a read-only copy (--read-only) of "
             : cfg->source[0]  ? "read-only (--source) the "
                               : "",
             origin, (unsigned long long)size, cfg->source[0] ? cfg->source : cfg->store, where,
             srv.nworkers);
    for (size_t i = 0; i < cfg->nhttp; i++)
        kixd_log(KIXD_INFO, "HTTP (C2SP tlog-tiles%s) on %s", cfg->http_metrics ? ", /metrics" : "",
                 cfg->http[i]);
    status = kixd_workers_run(&srv);
out:
    if (rc) { /* start-up failed */
        kixd_log(KIXD_ERROR, "%s", kix_err_text(&err, rc));
        status = rc == KIX_EUSAGE ? 2 : rc == KIX_EFORK ? kix_err_exit_status(rc) : 3;
    }
    kixd_mirror_stop(srv.mirror);
    kixd_writer_stop(srv.writer);
    kixd_wclient_stop(srv.wclient); /* after the writer: it kicks the client */
    srv.wclient = NULL;
    kixd_export_stop(srv.exporter); /* after the writers: a last export */
    srv.exporter = NULL;
    kixd_replicas_free(srv.replicas);
    srv.replicas = NULL;
    kixd_workers_free(&srv);
    kixd_metrics_free(&srv);
    kixd_tlogw_close(srv.tlogw);
    kix_log_close(srv.log);
    if (srv.lock_fd >= 0)
        close(srv.lock_fd);
    free(srv.witnesses);
    pthread_mutex_destroy(&srv.stop_mu);
    if (status == 0 && (status = atomic_load(&srv.exit_status)) != 0)
        kixd_log(KIXD_INFO, "stopped (exit status %d)", status);
    else if (status == 0)
        kixd_log(KIXD_INFO, "stopped");
    return status;
}
