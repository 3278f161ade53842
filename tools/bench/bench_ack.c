/* What --ack-replicas costs a publisher: the ack latency of durable
 * appends with one mirror on this machine, acknowledged at once (0) or
 * once the mirror holds them (1). Figures "ack.*" (bench.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "kix/client.h"
#include "kix/file.h"

#define ACK_CLIENTS_MAX 8

struct ack_client {
    const char *addr;
    struct bench_item *items;
    long n;
    struct bench_lat lat;
    char error[KIX_ERR_MSG_MAX];
};

static int submit_item(struct kix_client *c, const struct bench_item *it,
                       const struct kix_bytes *objs, size_t nobjs, struct kix_err *err)
{
    struct kix_bundle b = {kix_buf_bytes(&it->env), objs, nobjs};
    struct kix_submit_result res;
    int rc;

    memset(&res, 0, sizeof(res));
    rc = kix_client_submit(c, &b, 1, &res, err);
    if (rc == KIX_OK && res.code)
        rc = kix_err_set(err, res.code, "%s", res.message);
    kix_submit_result_release(&res);
    return rc;
}

/* One publisher: each submit waits for its receipt before the next. */
static void *publisher(void *arg)
{
    struct ack_client *a = arg;
    struct kix_client *c = NULL;
    struct kix_err err = {0};

    if (kix_client_connect(a->addr, NULL, &c, &err) != KIX_OK) {
        snprintf(a->error, sizeof(a->error), "%s", err.msg);
        return NULL;
    }
    for (long i = 0; i < a->n; i++) {
        struct kix_bytes obj = kix_buf_bytes(&a->items[i].manifest);
        double t0 = bench_now();
        if (submit_item(c, &a->items[i], &obj, 1, &err) != KIX_OK) {
            snprintf(a->error, sizeof(a->error), "%s", err.msg);
            break;
        }
        bench_lat_add(&a->lat, (uint64_t)((bench_now() - t0) * 1e9));
    }
    kix_client_close(c);
    return NULL;
}

static pid_t serve(char *const argv[], int port, const char *log)
{
    pid_t pid = bench_spawn(argv, log);

    if (pid < 0 || bench_wait_port(port, pid, 30) != 0)
        bench_die("kixd did not start (see %s)", log);
    return pid;
}

/* One setting: a new log served with --ack-replicas `replicas`, its mirror,
 * `clients` publishers of n/clients runs each. */
static void measure(const char *work, const char *kixd, int replicas, int clients, long n,
                    struct bench_report *rep)
{
    char dir[4096], store[4200], mstore[4200], admin[4200], vkey[4200], log[4200], mlog[4200];
    char listen[64], mlisten[64], up[64], acks[8], key[24], wkey[4200], wpub[4200];
    int port = bench_free_port(), mport = bench_free_port();
    struct ack_client cl[ACK_CLIENTS_MAX];
    pthread_t th[ACK_CLIENTS_MAX];
    struct kix_signer *admin_key = NULL;
    struct kix_client *c = NULL;
    struct kix_client_info info;
    struct bench_workload w;
    struct bench_item *items, first;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_bytes objs[1 + BENCH_NSHARED];
    struct bench_lat all;
    struct kix_err err = {0};
    pid_t origin, mirror;
    long per = n / clients;

    bench_path(dir, sizeof(dir), "%s/ack%d", work, replicas);
    bench_mkdirs(dir);
    bench_path(store, sizeof(store), "%s/origin", dir);
    bench_path(mstore, sizeof(mstore), "%s/mirror", dir);
    bench_path(admin, sizeof(admin), "%s/admin.key", dir);
    bench_path(vkey, sizeof(vkey), "%s/vkey", dir);
    bench_path(log, sizeof(log), "%s/origin.log", dir);
    bench_path(mlog, sizeof(mlog), "%s/mirror.log", dir);
    snprintf(listen, sizeof(listen), "tcp://127.0.0.1:%d", port);
    snprintf(mlisten, sizeof(mlisten), "tcp://127.0.0.1:%d", mport);
    snprintf(up, sizeof(up), "tcp://127.0.0.1:%d", port);
    snprintf(acks, sizeof(acks), "%d", replicas);
    {
        char *argv[] = {(char *)kixd,  "init",        "--store", store, "--origin",
                        "ack.kix/log", "--admin-key", admin,     NULL};
        if (bench_run(argv, log) != 0)
            bench_die("kixd init failed (see %s)", log);
    }
    /* the mirror's key, whose held statements the origin counts (kixd
     * refuses --ack-replicas without --ack-mirror-key): the cost measured
     * includes signing and verifying them */
    bench_path(wkey, sizeof(wkey), "%s/mirror.key", dir);
    bench_path(wpub, sizeof(wpub), "%s/mirror.pub", dir);
    {
        struct kix_signer *wk = NULL;
        struct kix_verifier wv;
        if (kix_signer_generate("ack-mirror.bench", KIX_NOTE_ALG_COSIGN, &wk, &err) ||
            kix_keyfile_write(wkey, wk, &err))
            bench_die("ack: the mirror's key: %s", err.msg);
        kix_verifier_from_signer(wk, &wv);
        kix_signer_free(wk);
        if (kix_pubfile_write(wpub, &wv, &err))
            bench_die("ack: the mirror's key: %s", err.msg);
    }
    {
        char *argv[] = {(char *)kixd,
                        "serve",
                        "--store",
                        store,
                        "--listen",
                        listen,
                        "--ack-replicas",
                        acks,
                        "--ack-timeout",
                        "60",
                        "--log-level",
                        "warn",
                        "--ack-mirror-key",
                        wpub,
                        NULL};
        if (replicas == 0)
            argv[12] = NULL; /* no mirror counted: no key */
        origin = serve(argv, port, log);
    }
    if (kix_client_connect(up, NULL, &c, &err) || kix_client_info(c, &info, &err))
        bench_die("ack: the origin: %s", err.msg);
    if (kix_file_write_atomic(vkey, info.log_key, strlen(info.log_key), 0644, &err))
        bench_die("ack: %s", err.msg);
    {
        char *argv[] = {(char *)kixd,     "serve", "--store",     mstore,
                        "--listen",       mlisten, "--mirror-of", up,
                        "--upstream-key", vkey,    "--log-level", "warn",
                        "--witness-key",  wkey,    NULL};
        if (replicas == 0)
            argv[12] = NULL; /* no --witness-key */
        mirror = serve(argv, mport, mlog);
    }
    /* the publisher's key and the shared objects (with --ack-replicas 1
     * these wait for the mirror too) */
    memset(&first, 0, sizeof(first));
    /* short: a tag longer than run_kix's 8 hex digits would leave the
     * 1 KiB manifests no room for their description */
    snprintf(key, sizeof(key), "a%d%06lx", replicas, (unsigned long)time(NULL) & 0xffffff);
    if (kix_keyfile_read(admin, &admin_key, &err) || bench_workload_init(&w, key, &err) ||
        bench_workload_key_entry(&w, admin_key, &env, &err) ||
        bench_workload_make(&w, 0, &first, 1, 1, &err))
        bench_die("ack: setting up the log: %s", err.msg);
    objs[0] = kix_buf_bytes(&first.manifest);
    for (int s = 0; s < BENCH_NSHARED; s++)
        objs[1 + s] = kix_buf_bytes(&w.shared[s]);
    {
        struct bench_item key_entry;
        memset(&key_entry, 0, sizeof(key_entry));
        key_entry.env = env;
        if (submit_item(c, &key_entry, NULL, 0, &err) ||
            submit_item(c, &first, objs, 1 + BENCH_NSHARED, &err))
            bench_die("ack: setting up the log: %s", err.msg);
    }
    items = calloc((size_t)n, sizeof(*items));
    if (!items || bench_workload_make(&w, 1, items, n, bench_cpus(), &err))
        bench_die("ack: signing: %s", items ? err.msg : "out of memory");
    bench_say("ack: --ack-replicas %d, one mirror, %d publishers x %ld runs", replicas, clients,
              per);
    memset(cl, 0, sizeof(cl));
    memset(&all, 0, sizeof(all));
    for (int i = 0; i < clients; i++) {
        cl[i].addr = up;
        cl[i].items = items + (long)i * per;
        cl[i].n = per;
        if (pthread_create(&th[i], NULL, publisher, &cl[i]) != 0)
            bench_die("ack: cannot start a publisher thread");
    }
    for (int i = 0; i < clients; i++) {
        pthread_join(th[i], NULL);
        if (cl[i].error[0])
            bench_die("ack: --ack-replicas %d: %s", replicas, cl[i].error);
        for (size_t k = 0; k < cl[i].lat.n; k++)
            bench_lat_add(&all, cl[i].lat.ns[k]);
        bench_lat_release(&cl[i].lat);
    }
    {
        char k[64], label[96];
        snprintf(k, sizeof(k), "ack.r%d_c%d_p50_ms", replicas, clients);
        snprintf(label, sizeof(label), "--ack-replicas %d, %d publisher%s: ack p50", replicas,
                 clients, clients > 1 ? "s" : "");
        bench_fig(rep, k, bench_lat_quantile(&all, 0.5) / 1e6, "ms", label);
        snprintf(k, sizeof(k), "ack.r%d_c%d_p99_ms", replicas, clients);
        bench_fig(rep, k, bench_lat_quantile(&all, 0.99) / 1e6, "ms", "  ack p99");
    }
    bench_lat_release(&all);
    kix_client_close(c);
    bench_stop(mirror);
    bench_stop(origin);
    bench_items_release(items, n);
    free(items);
    bench_items_release(&first, 1);
    kix_buf_release(&env);
    kix_signer_free(admin_key);
    bench_workload_release(&w);
    bench_rmrf(dir);
}

void bench_ack(const char *work_dir, const char *kixd, long runs, struct bench_report *rep)
{
    static const int clients[] = {1, 8};

    for (size_t i = 0; i < sizeof(clients) / sizeof(clients[0]); i++)
        for (int replicas = 0; replicas <= 1; replicas++)
            measure(work_dir, kixd, replicas, clients[i], runs, rep);
}
