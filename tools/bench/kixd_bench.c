/* kixd-bench — load for a running kixd through kix/rpc.h.
 *
 *   kixd-bench --server ADDR --admin ADMIN.key [options] MODE...
 *
 * MODE is any of:
 *   submit      C clients, each pipelining D submits of one pre-signed
 *               publication (with its manifest and one referenced object)
 *   resolve     C connections x D in flight, resolve of a published run id
 *   get_object  C connections x D in flight, get_object of a published manifest
 * Modes run in order; resolve and get_object use the runs submit published
 * (run submit first). Prints one line per mode: requests, seconds, rate.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kix/canon.h"
#include "kix/entries.h"
#include "kix/index.h"
#include "kix/rpc.h"

struct pub {
    struct kix_buf env;
    char manifest[256];
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    char run_id[80];
};

struct bench {
    const char *addr;
    int clients, depth;
    long count;
    double seconds;
    struct pub *pubs;
    long npubs;
    char object[128]; /* referenced by every manifest */
};

struct worker {
    struct bench *b;
    int id;
    const char *mode;
    long from, to; /* submit: the publications of this client */
    long done, errors;
    double stop_at;
    unsigned seed;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int put_submit(void *ctx, struct kix_proto_writer *w)
{
    const struct pub *p = ((const void **)ctx)[0];
    const char *object = ((const void **)ctx)[1];
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, 1);
    kix_proto_put_map(w, 2);
    kix_proto_put_key(w, "envelope");
    kix_proto_put_bin(w, p->env.ptr, p->env.len);
    kix_proto_put_key(w, "objects");
    if (!p->manifest[0]) /* a key entry needs no objects */
        return kix_proto_put_array(w, 0);
    kix_proto_put_array(w, 2);
    kix_proto_put_bin(w, p->manifest, strlen(p->manifest));
    return kix_proto_put_bin(w, object, strlen(object));
}

struct str_param {
    const char *name, *value;
};

static int put_str(void *ctx, struct kix_proto_writer *w)
{
    const struct str_param *p = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, p->name);
    return kix_proto_put_cstr(w, p->value);
}

/* Queues request number k of this worker; 0 when there is none. */
static int send_one(struct worker *wk, struct kix_rpc *c, long k)
{
    struct bench *b = wk->b;
    struct kix_err err;
    int rc;

    if (strcmp(wk->mode, "submit") == 0) {
        const void *ctx[2];
        if (wk->from + k >= wk->to)
            return 0;
        ctx[0] = &b->pubs[wk->from + k];
        ctx[1] = b->object;
        rc = kix_rpc_send(c, "submit", put_submit, ctx, NULL, &err);
    } else {
        const struct pub *p = &b->pubs[rand_r(&wk->seed) % (unsigned)b->npubs];
        struct str_param sp;
        if (now_s() >= wk->stop_at)
            return 0;
        if (strcmp(wk->mode, "resolve") == 0) {
            sp.name = "ref";
            sp.value = p->run_id;
            rc = kix_rpc_send(c, "resolve", put_str, &sp, NULL, &err);
        } else {
            sp.name = "digest";
            sp.value = p->digest;
            rc = kix_rpc_send(c, "get_object", put_str, &sp, NULL, &err);
        }
    }
    if (rc) {
        fprintf(stderr, "send: %s\n", err.msg);
        return 0;
    }
    return 1;
}

/* Counts (and shows the first of) refused bundles in a submit answer. */
static void item_error(struct worker *wk, const struct kix_proto_msg *m)
{
    const struct kix_proto_map *r, *item, *e;
    const struct kix_proto_array *a;
    struct kix_bytes msg;
    size_t n;

    if (kix_proto_value_map(m->result, &r, NULL) ||
        kix_proto_map_get_array(r, "results", &a, &n, NULL) || n != 1 ||
        kix_proto_value_map(kix_proto_array_at(a, 0), &item, NULL))
        return;
    if (kix_proto_map_get_map(item, "error", &e, NULL) != KIX_OK)
        return;
    if (wk->errors++ < 3 && wk->id == 0 &&
        kix_proto_map_get_str(e, "message", &msg, NULL) == KIX_OK)
        fprintf(stderr, "submit refused: %.*s\n", (int)msg.len, (const char *)msg.ptr);
}

static void *run_worker(void *arg)
{
    struct worker *wk = arg;
    struct kix_rpc_opts o = {60000, 0};
    struct kix_rpc *c = NULL;
    struct kix_err err;
    long sent = 0, inflight = 0;

    if (kix_rpc_connect(wk->b->addr, &o, &c, &err) != KIX_OK) {
        fprintf(stderr, "connect: %s\n", err.msg);
        wk->errors++;
        return NULL;
    }
    while (inflight < wk->b->depth && send_one(wk, c, sent)) {
        sent++;
        inflight++;
    }
    while (inflight > 0) {
        struct kix_proto_msg m;
        if (kix_rpc_recv(c, &m, &err) != KIX_OK) {
            fprintf(stderr, "recv: %s\n", err.msg);
            wk->errors++;
            break;
        }
        if (m.error_code) {
            if (wk->errors++ < 3 && wk->id == 0)
                fprintf(stderr, "%s error: %.*s\n", wk->mode, (int)m.error_message.len,
                        (const char *)m.error_message.ptr);
        } else if (strcmp(wk->mode, "submit") == 0) {
            item_error(wk, &m);
        }
        kix_proto_msg_release(&m);
        inflight--;
        wk->done++;
        if (send_one(wk, c, sent)) {
            sent++;
            inflight++;
        }
    }
    kix_rpc_close(c);
    return NULL;
}

static void run_mode(struct bench *b, const char *mode)
{
    pthread_t *th = calloc((size_t)b->clients, sizeof(*th));
    struct worker *wk = calloc((size_t)b->clients, sizeof(*wk));
    long per = b->npubs / b->clients, done = 0, errors = 0;
    double t0 = now_s(), dt;

    for (int i = 0; i < b->clients; i++) {
        wk[i].b = b;
        wk[i].id = i;
        wk[i].mode = mode;
        wk[i].from = i * per;
        wk[i].to = i == b->clients - 1 ? b->npubs : (i + 1) * per;
        wk[i].stop_at = t0 + b->seconds;
        wk[i].seed = (unsigned)i * 7919u + 1;
        pthread_create(&th[i], NULL, run_worker, &wk[i]);
    }
    for (int i = 0; i < b->clients; i++) {
        pthread_join(th[i], NULL);
        done += wk[i].done;
        errors += wk[i].errors;
    }
    dt = now_s() - t0;
    printf("%-10s %d conns x %d in flight: %ld requests in %.2f s = %.0f/s (%ld errors)\n", mode,
           b->clients, b->depth, done, dt, (double)done / dt, errors);
    fflush(stdout);
    free(th);
    free(wk);
}

static int call_submit_env(const char *addr, const struct kix_buf *env)
{
    struct kix_rpc_opts o = {60000, 0};
    struct kix_rpc *c = NULL;
    struct kix_proto_msg m;
    struct kix_err err;
    struct pub p;
    const void *ctx[2];
    int rc;

    memset(&p, 0, sizeof(p));
    p.env = *env;
    ctx[0] = &p;
    ctx[1] = "{}";
    rc = kix_rpc_connect(addr, &o, &c, &err);
    if (rc == KIX_OK)
        rc = kix_rpc_call(c, "submit", put_submit, ctx, &m, &err);
    if (rc == KIX_OK) {
        struct worker wk;
        memset(&wk, 0, sizeof(wk));
        item_error(&wk, &m);
        kix_proto_msg_release(&m);
        rc = wk.errors ? KIX_EPOLICY : KIX_OK;
    } else {
        fprintf(stderr, "registering the publisher: %s\n", err.msg);
    }
    kix_rpc_close(c);
    return rc;
}

static const char usage[] =
    "usage: kixd-bench --server ADDR --admin FILE [--clients C] [--depth D]\n"
    "                  [--count N] [--seconds S] MODE...\n"
    "MODE: submit (N pre-signed publications over C pipelining clients),\n"
    "      resolve, get_object (S seconds each over C connections x D in flight)\n";

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"server", required_argument, NULL, 's'},  {"admin", required_argument, NULL, 'a'},
        {"clients", required_argument, NULL, 'c'}, {"depth", required_argument, NULL, 'd'},
        {"count", required_argument, NULL, 'n'},   {"seconds", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    struct bench b;
    struct kix_signer *admin = NULL, *pubkey = NULL;
    struct kix_buf env = KIX_BUF_INIT, canon = KIX_BUF_INIT;
    struct kix_digest od;
    struct kix_err err;
    char odigest[KIX_DIGEST_TEXT_LEN + 1], tag[24];
    const char *admin_path = NULL;
    double t0;
    int o;

    memset(&b, 0, sizeof(b));
    b.addr = "tcp://127.0.0.1:7420";
    b.clients = 8;
    b.depth = 64;
    b.count = 20000;
    b.seconds = 5;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            b.addr = optarg;
            break;
        case 'a':
            admin_path = optarg;
            break;
        case 'c':
            b.clients = atoi(optarg);
            break;
        case 'd':
            b.depth = atoi(optarg);
            break;
        case 'n':
            b.count = atol(optarg);
            break;
        case 't':
            b.seconds = atof(optarg);
            break;
        default:
            fputs(usage, o == 'h' ? stdout : stderr);
            return o == 'h' ? 0 : 2;
        }
    }
    if (!admin_path || optind == argc || b.clients < 1 || b.depth < 1 || b.count < b.clients ||
        strcmp(argv[optind], "submit") != 0) {
        fprintf(stderr, "kixd-bench: the first mode must be submit (the others read what it "
                        "published)\n");
        fputs(usage, stderr);
        return 2;
    }
    if (kix_keyfile_read(admin_path, &admin, &err) != KIX_OK ||
        kix_signer_generate("bench", KIX_NOTE_ALG_ED25519, &pubkey, &err) != KIX_OK ||
        kix_entry_key(admin, 0, kix_signer_public_key(pubkey), KIX_ROLE_PUBLISH, &env, &err) !=
            KIX_OK) {
        fprintf(stderr, "kixd-bench: %s\n", err.msg);
        return 1;
    }
    if (call_submit_env(b.addr, &env) != KIX_OK)
        return 1;
    kix_buf_release(&env);
    /* the object every manifest references, and the pre-signed publications */
    snprintf(b.object, sizeof(b.object), "{\"kind\":\"Workload\",\"spec\":{\"bench\":%ld}}",
             (long)time(NULL));
    if (kix_canon((const uint8_t *)b.object, strlen(b.object), NULL, &canon, NULL) != KIX_OK)
        return 1;
    kix_digest_of(canon.ptr, canon.len, &od);
    kix_buf_release(&canon);
    kix_digest_format(&od, odigest);
    t0 = now_s();
    b.npubs = b.count;
    b.pubs = calloc((size_t)b.npubs, sizeof(*b.pubs));
    snprintf(tag, sizeof(tag), "%lx", (unsigned long)time(NULL));
    for (long i = 0; i < b.npubs; i++) {
        struct pub *p = &b.pubs[i];
        struct kix_digest d;
        snprintf(p->manifest, sizeof(p->manifest),
                 "{\"kind\":\"BenchmarkRun\",\"spec\":{\"median\":%ld,\"workloadDigest\":\"%s\"}}",
                 i, odigest);
        kix_digest_of(p->manifest, strlen(p->manifest), &d); /* already canonical */
        kix_digest_format(&d, p->digest);
        snprintf(p->run_id, sizeof(p->run_id), "bench-%s-%ld", tag, i);
        if (kix_entry_publication(pubkey, p->run_id, &d, NULL, "bench", "MIT", &p->env, &err)) {
            fprintf(stderr, "kixd-bench: %s\n", err.msg);
            return 1;
        }
    }
    fprintf(stderr, "signed %ld publications in %.2f s\n", b.npubs, now_s() - t0);
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "submit") && strcmp(argv[i], "resolve") &&
            strcmp(argv[i], "get_object")) {
            fprintf(stderr, "kixd-bench: unknown mode %s\n", argv[i]);
            return 2;
        }
        run_mode(&b, argv[i]);
    }
    for (long i = 0; i < b.npubs; i++)
        kix_buf_release(&b.pubs[i].env);
    free(b.pubs);
    kix_signer_free(admin);
    kix_signer_free(pubkey);
    return 0;
}
