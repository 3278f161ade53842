/* kix-mirror-bench — follow latency of a mirror: publishes N runs one at a
 * time at the origin and times each from the submit to the moment the
 * mirror's follow stream delivers it (the mirror sends it only once the
 * entry is verified and committed, so readers of the mirror can see it).
 *
 *   kix-mirror-bench ORIGIN_ADDR MIRROR_ADDR PUBLISHER_KEYFILE N
 *
 * Prints the median, p90, p99 and max in milliseconds, and the same from
 * the submit's answer (the origin's durable commit) to the mirror. Not
 * installed; for measurements (tests/README). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kix/canon.h"
#include "kix/client.h"
#include "kix/entries.h"
#include "kix/rpc.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    printf("%s: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (n=%zu)\n", what, v[n / 2],
           v[(n * 90) / 100], v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], v[n - 1], n);
}

static int put_from(void *ctx, struct kix_proto_writer *w)
{
    const uint64_t *from = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "from");
    return kix_proto_put_u64(w, *from);
}

/* Waits for follow notifications until the mirror reached `size`. */
static int wait_for(struct kix_rpc *follow, uint64_t *have, uint64_t size, struct kix_err *err)
{
    while (*have < size) {
        struct kix_proto_msg msg;
        const struct kix_proto_array *a;
        uint64_t start;
        size_t n;
        int rc = kix_rpc_recv(follow, &msg, err);
        if (rc)
            return rc;
        if (msg.type == KIX_PROTO_NOTIFICATION &&
            kix_proto_map_get_u64(msg.params, "start", &start, err) == KIX_OK &&
            kix_proto_map_get_array(msg.params, "entries", &a, &n, err) == KIX_OK)
            *have = start + n;
        kix_proto_msg_release(&msg);
    }
    return KIX_OK;
}

int main(int argc, char **argv)
{
    struct kix_client *origin = NULL;
    struct kix_rpc *follow = NULL;
    struct kix_signer *key = NULL;
    struct kix_client_info info;
    struct kix_proto_msg resp;
    struct kix_err err = {0};
    double *from_submit, *from_answer;
    uint64_t have, size;
    int n, rc;

    if (argc != 5 || (n = atoi(argv[4])) < 1) {
        fprintf(stderr, "usage: kix-mirror-bench ORIGIN_ADDR MIRROR_ADDR PUBLISHER_KEYFILE N\n");
        return 2;
    }
    from_submit = calloc((size_t)n, sizeof(double));
    from_answer = calloc((size_t)n, sizeof(double));
    rc = kix_keyfile_read(argv[3], &key, &err);
    if (rc == KIX_OK)
        rc = kix_client_connect(argv[1], NULL, &origin, &err);
    if (rc == KIX_OK)
        rc = kix_client_info(origin, &info, &err);
    if (rc == KIX_OK)
        rc = kix_rpc_connect(argv[2], NULL, &follow, &err);
    have = info.size;
    if (rc == KIX_OK)
        rc = kix_rpc_call(follow, "follow", put_from, &have, &resp, &err);
    if (rc == KIX_OK) {
        const struct kix_proto_map *m;
        rc = kix_proto_value_map(resp.result, &m, &err);
        if (rc == KIX_OK)
            rc = kix_proto_map_get_u64(m, "size", &size, &err);
        kix_proto_msg_release(&resp);
        if (rc == KIX_OK && size != info.size)
            rc = kix_err_set(&err, KIX_EINVAL,
                             "the mirror is at %llu, the origin at %llu: wait "
                             "for it to catch up first",
                             (unsigned long long)size, (unsigned long long)info.size);
    }
    for (int i = 0; rc == KIX_OK && i < n; i++) {
        /* a valid BenchmarkRun (proto/schema) and the workload it references */
        static const char workload[] =
            "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{"
            "\"name\":\"bench\"},\"spec\":{\"kernel\":\"bench\"}}";
        char manifest[512], run_id[37], wtext[KIX_DIGEST_TEXT_LEN + 1];
        struct kix_buf env = KIX_BUF_INIT, canon = KIX_BUF_INIT;
        struct kix_digest d, w;
        struct kix_bytes obj[2] = {{NULL, 0}, {(const uint8_t *)workload, sizeof(workload) - 1}};
        struct kix_bundle b;
        struct kix_submit_result res;
        double t0, t1, t2;

        memset(&res, 0, sizeof(res));
        kix_uuid7(run_id);
        kix_digest_of(workload, sizeof(workload) - 1, &w);
        kix_digest_format(&w, wtext);
        snprintf(manifest, sizeof(manifest),
                 "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\","
                 "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"status\":\"passed\",\"timing\":{"
                 "\"latencyNs\":{\"median\":%d}},\"workloadDigest\":\"%s\"}}",
                 run_id, 1000 + i, wtext);
        rc = kix_canon((const uint8_t *)manifest, strlen(manifest), NULL, &canon, &err);
        if (rc == KIX_OK) {
            kix_digest_of(canon.ptr, canon.len, &d);
            rc = kix_entry_publication(key, run_id, &d, NULL, "kix-mirror-bench", "CC0-1.0", &env,
                                       &err);
        }
        obj[0].ptr = canon.ptr;
        obj[0].len = canon.len;
        b.envelope.ptr = env.ptr;
        b.envelope.len = env.len;
        b.objects = obj;
        b.nobjects = 2;
        t0 = now_ms();
        if (rc == KIX_OK)
            rc = kix_client_submit(origin, &b, 1, &res, &err);
        if (rc == KIX_OK && res.code)
            rc = kix_err_set(&err, res.code, "refused: %s", res.message);
        t1 = now_ms();
        if (rc == KIX_OK)
            rc = wait_for(follow, &have, res.index + 1, &err);
        t2 = now_ms();
        from_submit[i] = t2 - t0;
        from_answer[i] = t2 - t1;
        kix_submit_result_release(&res);
        kix_buf_release(&env);
        kix_buf_release(&canon);
    }
    if (rc == KIX_OK) {
        report("submit to visible at the mirror", from_submit, (size_t)n);
        report("origin's answer to visible at the mirror", from_answer, (size_t)n);
    } else {
        fprintf(stderr, "kix-mirror-bench: %s\n", kix_err_text(&err, rc));
    }
    kix_rpc_close(follow);
    kix_client_close(origin);
    kix_signer_free(key);
    free(from_submit);
    free(from_answer);
    return rc ? 1 : 0;
}
