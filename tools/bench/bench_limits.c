/* kix-bench: the limits — what the blocks kix is built from can do on this
 * machine, measured in the same run as kix itself (LIMITS.md measured them
 * once; machines drift).
 *
 * This file includes lmdb.h, which STYLE.md keeps inside store/: a tool that
 * measures LMDB itself is the one exception, and it never touches a kix
 * store through it. */
#include <lmdb.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "bench.h"
#include "kix/proto.h"
#include "kix/sha256.h"

/* ---- Ed25519 verify ------------------------------------------------------------ */

struct verify_job {
    const uint8_t *msg;
    size_t len;
    const uint8_t *sig, *pk;
    double end;
    long count;
    double cpu; /* thread CPU seconds */
};

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *verify_loop(void *arg)
{
    struct verify_job *j = arg;
    double c0 = thread_cpu();
    long n = 0;
    do {
        for (int i = 0; i < 32; i++, n++)
            if (crypto_sign_verify_detached(j->sig, j->msg, j->len, j->pk) != 0)
                bench_die("ed25519: a good signature did not verify");
    } while (bench_now() < j->end);
    j->count = n;
    j->cpu = thread_cpu() - c0;
    return NULL;
}

double bench_ed25519_verify(int threads, double seconds, size_t msg_len, double *cpu_us)
{
    uint8_t pk[32], sk[64], sig[64], *msg = malloc(msg_len);
    struct verify_job jobs[64];
    pthread_t tids[64];
    double t0, dt;
    long total = 0;
    double cpu = 0;

    if (!msg)
        bench_die("out of memory");
    if (threads > 64)
        threads = 64;
    randombytes_buf(msg, msg_len);
    crypto_sign_keypair(pk, sk);
    crypto_sign_detached(sig, NULL, msg, msg_len, sk);
    t0 = bench_now();
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct verify_job){msg, msg_len, sig, pk, t0 + seconds, 0, 0};
        if (pthread_create(&tids[t], NULL, verify_loop, &jobs[t]) != 0)
            bench_die("cannot start a thread");
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        total += jobs[t].count;
        cpu += jobs[t].cpu;
    }
    if (cpu_us)
        *cpu_us = total ? cpu * 1e6 / (double)total : 0;
    dt = bench_now() - t0;
    free(msg);
    return (double)total / dt;
}

/* ---- SHA-256 of a Merkle node (0x01 || left || right: 65 bytes) ------------------ */

static void sha256_evp(EVP_MD_CTX *c, const EVP_MD *md, const uint8_t *in, size_t n, uint8_t *out)
{
    unsigned int len;
    if (!EVP_DigestInit_ex2(c, md, NULL) || !EVP_DigestUpdate(c, in, n) ||
        !EVP_DigestFinal_ex(c, out, &len))
        bench_die("libcrypto: EVP SHA-256 failed");
}

double bench_sha256_node(enum bench_sha256_impl impl, double seconds)
{
    uint8_t in[65], out[32];
    double t0, end;
    long n = 0;
    EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
    EVP_MD_CTX *c = EVP_MD_CTX_new();

    if (!md || !c)
        bench_die("libcrypto: no SHA-256");
    memset(in, 0x5a, sizeof(in));
    in[0] = 1;
    t0 = bench_now();
    end = t0 + seconds;
    do {
        for (int i = 0; i < 256; i++, n++) {
            if (impl == BENCH_SHA256_KIX)
                kix_sha256(in, sizeof(in), out);
            else if (impl == BENCH_SHA256_EVP)
                sha256_evp(c, md, in, sizeof(in), out);
            else
                crypto_hash_sha256(out, in, sizeof(in));
            memcpy(in + 1, out, 32); /* a chain: no work can be skipped */
        }
    } while (bench_now() < end);
    EVP_MD_CTX_free(c);
    EVP_MD_free(md);
    return (double)n / (bench_now() - t0);
}

/* ---- LMDB: durable commits of `per_commit` sequential puts ------------------------ */

double bench_lmdb_batched(const char *dir, double seconds, int per_commit, size_t value_len)
{
    MDB_env *env = NULL;
    MDB_dbi dbi;
    MDB_txn *txn;
    uint8_t *val = malloc(value_len), key[8];
    uint64_t seq = 0;
    double t0, end;
    long puts = 0;

    if (!val || bench_mkdirs(dir) != 0)
        bench_die("cannot create %s", dir);
    randombytes_buf(val, value_len);
    if (mdb_env_create(&env) || mdb_env_set_mapsize(env, (size_t)4 << 30) ||
        mdb_env_open(env, dir, 0, 0600) || mdb_txn_begin(env, NULL, 0, &txn) ||
        mdb_dbi_open(txn, NULL, 0, &dbi) || mdb_txn_commit(txn))
        bench_die("lmdb: cannot open a temporary environment in %s", dir);
    t0 = bench_now();
    end = t0 + seconds;
    do {
        if (mdb_txn_begin(env, NULL, 0, &txn))
            bench_die("lmdb: txn_begin");
        for (int i = 0; i < per_commit; i++, seq++, puts++) {
            MDB_val k = {8, key}, v = {value_len, val};
            for (int b = 7; b >= 0; b--)
                key[7 - b] = (uint8_t)(seq >> (8 * b));
            if (mdb_put(txn, dbi, &k, &v, MDB_APPEND))
                bench_die("lmdb: put");
        }
        if (mdb_txn_commit(txn)) /* fsync: the environment is opened without MDB_NOSYNC */
            bench_die("lmdb: commit");
    } while (bench_now() < end);
    t0 = (double)puts / (bench_now() - t0);
    mdb_env_close(env);
    free(val);
    bench_rmrf(dir);
    return t0;
}

/* ---- the echo server ------------------------------------------------------------ *
 * The trivial libuv msgpack-RPC server: N loops with SO_REUSEPORT listeners as
 * kixd has, each request decoded with kix/proto.h and answered with a
 * {"object": <reply_len bytes>} map (what get_object answers), all answers of
 * one read written at once. No store, no validation: the floor of the
 * network part of a kixd read. */

struct echo_loop {
    uv_loop_t loop;
    uv_tcp_t listener;
    pthread_t thread;
    int fd;
    const uint8_t *reply;
    size_t reply_len;
};

struct echo_conn {
    uv_tcp_t tcp;
    struct echo_loop *L;
    struct kix_proto_reader rd;
    struct kix_buf out;
};

struct echo_write {
    uv_write_t req;
    uint8_t *data;
};

static void echo_closed(uv_handle_t *h)
{
    struct echo_conn *c = h->data;
    kix_proto_reader_release(&c->rd);
    kix_buf_release(&c->out);
    free(c);
}

static void echo_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct echo_conn *c = h->data;
    uint8_t *space = NULL;
    size_t avail = 0;
    (void)suggested;
    if (kix_proto_reader_reserve(&c->rd, 64 << 10, &space, &avail, NULL) != KIX_OK)
        avail = 0;
    *buf = uv_buf_init((char *)space, (unsigned)avail);
}

static void echo_written(uv_write_t *req, int status)
{
    struct echo_write *w = req->data;
    (void)status;
    free(w->data);
    free(w);
}

static void echo_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct echo_conn *c = s->data;
    struct kix_proto_writer pw;
    struct kix_err err;
    struct kix_proto_msg m;
    uv_buf_t b;
    int rc;

    if (buf->base)
        kix_proto_reader_commit(&c->rd, nread > 0 ? (size_t)nread : 0);
    if (nread < 0) {
        uv_close((uv_handle_t *)s, echo_closed);
        return;
    }
    kix_proto_writer_init(&pw, &c->out);
    while ((rc = kix_proto_reader_next(&c->rd, &m, &err)) == KIX_OK) {
        if (m.type == KIX_PROTO_REQUEST) {
            kix_proto_begin_response(&pw, m.msgid);
            kix_proto_put_map(&pw, 1);
            kix_proto_put_key(&pw, "object");
            kix_proto_put_bin(&pw, c->L->reply, c->L->reply_len);
            if (kix_proto_writer_end(&pw, &err) != KIX_OK)
                bench_die("echo: %s", err.msg);
        }
        kix_proto_msg_release(&m);
    }
    if (rc != KIX_PROTO_AGAIN) {
        uv_close((uv_handle_t *)s, echo_closed);
        return;
    }
    if (!c->out.len)
        return;
    b = uv_buf_init((char *)c->out.ptr, (unsigned)c->out.len);
    rc = uv_try_write(s, &b, 1);
    if (rc == (int)c->out.len) {
        kix_buf_reset(&c->out);
    } else {
        struct echo_write *w = malloc(sizeof(*w));
        size_t len, off = rc > 0 ? (size_t)rc : 0;
        if (!w)
            bench_die("out of memory");
        w->data = kix_buf_detach(&c->out, &len);
        w->req.data = w;
        b = uv_buf_init((char *)w->data + off, (unsigned)(len - off));
        if (uv_write(&w->req, s, &b, 1, echo_written) != 0) {
            free(w->data);
            free(w);
            uv_close((uv_handle_t *)s, echo_closed);
        }
    }
}

static void echo_accept(uv_stream_t *server, int status)
{
    struct echo_loop *L = server->data;
    struct echo_conn *c;

    if (status < 0)
        return;
    c = calloc(1, sizeof(*c));
    if (!c)
        return;
    c->L = L;
    kix_proto_reader_init(&c->rd, NULL);
    uv_tcp_init(&L->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, echo_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, echo_alloc, echo_read);
}

static void *echo_thread(void *arg)
{
    struct echo_loop *L = arg;
    uv_run(&L->loop, UV_RUN_DEFAULT);
    return NULL;
}

int bench_echo_server_main(int port, int threads, size_t reply_len)
{
    struct echo_loop *loops = calloc((size_t)threads, sizeof(*loops));
    uint8_t *reply = malloc(reply_len);
    struct sockaddr_in sa;
    int one = 1;

    if (!loops || !reply)
        return 1;
    memset(reply, 'x', reply_len);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    for (int i = 0; i < threads; i++) {
        struct echo_loop *L = &loops[i];
        L->reply = reply;
        L->reply_len = reply_len;
        L->fd = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(L->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        setsockopt(L->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
        if (L->fd < 0 || bind(L->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
            perror("echo server: bind");
            return 1;
        }
        uv_loop_init(&L->loop);
        uv_tcp_init(&L->loop, &L->listener);
        L->listener.data = L;
        if (uv_tcp_open(&L->listener, L->fd) != 0 ||
            uv_listen((uv_stream_t *)&L->listener, 1024, echo_accept) != 0) {
            perror("echo server: listen");
            return 1;
        }
    }
    for (int i = 1; i < threads; i++)
        pthread_create(&loops[i].thread, NULL, echo_thread, &loops[i]);
    echo_thread(&loops[0]); /* until killed */
    return 0;
}
