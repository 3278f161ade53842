/* kix-bench: what gets published. A publisher key, four shared objects (a
 * protocol, a workload, an environment, an implementation) and run manifests
 * of exactly BENCH_MANIFEST_LEN canonical bytes shaped like the Liger sample
 * (tools/samples): BenchmarkRun, latency median with p20/p80, source metrics
 * as reals, the four digests. Runs come in comparison groups of
 * BENCH_GROUP_SIZE (one kernel, workload and GPU, several implementations).
 * Each publication is pre-signed here, off the clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kix/canon.h"
#include "kix/entries.h"
#include "kix/parallel.h"
#include "kix/vindex.h"

/* The four shared records, valid against their schemas (proto/schema). */
static const char *const shared_specs[BENCH_NSHARED][2] = {
    {"BenchmarkProtocol",
     "{\"harness\":{\"name\":\"kix-bench\"},\"measurement\":{\"primaryStatistic\":\"median\"},"
     "\"comparability\":{\"notes\":\"the protocol every kix-bench run shares\"}}"},
    {"Workload",
     "{\"kernel\":\"kix-bench\",\"description\":\"the workload every kix-bench run shares\"}"},
    {"ExecutionEnvironment",
     "{\"hardware\":{\"product\":\"kix-bench host\"},\"notes\":\"the environment every "
     "kix-bench run shares\"}"},
    {"Implementation",
     "{\"provider\":\"kix-bench\",\"notes\":\"the implementation every kix-bench run shares\"}"},
};

int bench_workload_init(struct bench_workload *w, const char *tag, struct kix_err *err)
{
    char json[512];
    int rc;

    memset(w, 0, sizeof(*w));
    snprintf(w->tag, sizeof(w->tag), "%s", tag);
    rc = kix_signer_generate("bench-publisher", KIX_NOTE_ALG_ED25519, &w->publisher, err);
    for (int i = 0; rc == KIX_OK && i < BENCH_NSHARED; i++) {
        snprintf(json, sizeof(json),
                 "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"%s\",\"metadata\":"
                 "{\"name\":\"kix-bench-%s-%d\"},\"spec\":%s}",
                 shared_specs[i][0], tag, i + 1, shared_specs[i][1]);
        rc = kix_canon((const uint8_t *)json, strlen(json), NULL, &w->shared[i], err);
        if (rc == KIX_OK)
            kix_digest_of(w->shared[i].ptr, w->shared[i].len, &w->shared_digest[i]);
    }
    return rc;
}

void bench_workload_release(struct bench_workload *w)
{
    for (int i = 0; i < BENCH_NSHARED; i++)
        kix_buf_release(&w->shared[i]);
    kix_signer_free(w->publisher);
    memset(w, 0, sizeof(*w));
}

int bench_workload_key_entry(const struct bench_workload *w, const struct kix_signer *admin,
                             struct kix_buf *env, struct kix_err *err)
{
    return kix_entry_key(admin, 0, kix_signer_public_key(w->publisher), KIX_ROLE_PUBLISH, env, err);
}

long bench_group_size(void)
{
    const char *e = getenv("KIX_BENCH_GROUP_SIZE");
    long n = e ? strtol(e, NULL, 10) : 0;
    return n > 0 ? n : BENCH_GROUP_SIZE;
}

static int manifest_json(const struct bench_workload *w, long i, size_t pad, struct kix_buf *out)
{
    char d[BENCH_NSHARED][KIX_DIGEST_TEXT_LEN + 1];
    long g = i / bench_group_size(), impl = i % bench_group_size();
    long median = 10000 + (i * 7919) % 5000;
    char padding[1024];

    if (pad >= sizeof(padding))
        pad = sizeof(padding) - 1;
    memset(padding, 'x', pad);
    padding[pad] = '\0';
    for (int k = 0; k < BENCH_NSHARED; k++)
        kix_digest_format(&w->shared_digest[k], d[k]);
    return kix_buf_addf(
        out,
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\","
        "\"metadata\":{\"name\":\"bench-%s-%ld\",\"title\":\"kernel %ld forward, implementation "
        "%ld\",\"description\":\"%s\"},"
        "\"spec\":{\"status\":\"passed\",\"observedAt\":\"2026-01-01T00:00:00.000Z\","
        "\"timing\":{\"latencyNs\":{\"median\":%ld},\"primaryStatistic\":\"median\"},"
        "\"measurements\":[{\"metric\":\"latency\",\"statistic\":\"p20\",\"unit\":\"ns\",\"value\":"
        "%ld},{\"metric\":\"latency\",\"statistic\":\"p80\",\"unit\":\"ns\",\"value\":%ld}],"
        "\"sourceNative\":{\"source\":\"kix-bench\",\"benchmark\":\"kernel-%ld/forward\","
        "\"externalId\":\"kernel-%ld/forward/impl-%ld/%s\",\"metrics\":{\"ms_20\":%.17g,"
        "\"ms_50\":%.17g,\"ms_80\":%.17g}},"
        "\"protocolDigest\":\"%s\",\"workloadDigest\":\"%s\",\"environmentDigest\":\"%s\","
        "\"implementationDigest\":\"%s\"}}",
        w->tag, i, g, impl, padding, median, median - 900, median + 700, g, g, impl, w->tag,
        (double)(median - 900) / 1e6, (double)median / 1e6, (double)(median + 700) / 1e6, d[0],
        d[1], d[2], d[3]);
}

static int make_one(const struct bench_workload *w, long i, struct bench_item *it,
                    struct kix_err *err)
{
    struct kix_buf raw = KIX_BUF_INIT;
    struct kix_digest d;
    size_t base;
    int rc;

    /* once without padding to learn the length, then padded to the size */
    rc = manifest_json(w, i, 0, &raw);
    if (rc == KIX_OK)
        rc = kix_canon(raw.ptr, raw.len, NULL, &it->manifest, err);
    if (rc)
        goto out;
    base = it->manifest.len;
    kix_buf_reset(&raw);
    kix_buf_reset(&it->manifest);
    rc = manifest_json(w, i, base < BENCH_MANIFEST_LEN ? BENCH_MANIFEST_LEN - base : 0, &raw);
    if (rc == KIX_OK)
        rc = kix_canon(raw.ptr, raw.len, NULL, &it->manifest, err);
    if (rc)
        goto out;
    kix_digest_of(it->manifest.ptr, it->manifest.len, &d);
    kix_digest_format(&d, it->digest);
    snprintf(it->run_id, sizeof(it->run_id), "bench-%s-%ld", w->tag, i);
    /* KIX_BENCH_GROUND_IDS (the pages part): ids ground as a publisher who
     * wants one long page would, none starting a page by the hash rule */
    if (getenv("KIX_BENCH_GROUND_IDS"))
        for (int nonce = 0; kix_vindex_page_starts(it->run_id, strlen(it->run_id)); nonce++)
            snprintf(it->run_id, sizeof(it->run_id), "bench-%s-%ld-%d", w->tag, i, nonce);
    rc = kix_entry_publication(w->publisher, it->run_id, &d, "2026-01-01T00:00:00Z", "kix-bench",
                               "CC-BY-4.0", &it->env, err);
out:
    kix_buf_release(&raw);
    return rc;
}

struct make_job {
    const struct bench_workload *w;
    long first, from, to;
    struct bench_item *items;
    int rc;
    struct kix_err err;
};

static void *make_range(void *arg)
{
    struct make_job *j = arg;
    for (long k = j->from; j->rc == KIX_OK && k < j->to; k++)
        j->rc = make_one(j->w, j->first + k, &j->items[k], &j->err);
    return NULL;
}

int bench_workload_make(const struct bench_workload *w, long first, struct bench_item *items,
                        long n, int threads, struct kix_err *err)
{
    struct make_job jobs[64];
    long per;

    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    per = (n + threads - 1) / threads;
    memset(items, 0, (size_t)n * sizeof(*items));
    for (int t = 0; t < threads; t++) {
        jobs[t].w = w;
        jobs[t].first = first;
        jobs[t].from = t * per < n ? t * per : n;
        jobs[t].to = (t + 1) * per < n ? (t + 1) * per : n;
        jobs[t].items = items;
        jobs[t].rc = KIX_OK;
        kix_err_clear(&jobs[t].err);
    }
    kix_parallel_run(jobs, sizeof(jobs[0]), (size_t)threads, make_range);
    for (int t = 0; t < threads; t++)
        if (jobs[t].rc) {
            if (err)
                *err = jobs[t].err;
            return jobs[t].rc;
        }
    return KIX_OK;
}

void bench_items_release(struct bench_item *items, long n)
{
    for (long i = 0; i < n; i++) {
        kix_buf_release(&items[i].env);
        kix_buf_release(&items[i].manifest);
    }
}
