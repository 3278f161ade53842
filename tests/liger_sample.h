/* tests/liger_sample.h — the first rows of the Liger sample
 * (data/liger/all_benchmark_data.csv) as signed publications, for tests
 * that need ranked runs in comparison groups (static inline, one copy per
 * test). Each row's envelope and objects go to a callback that submits
 * them however the test does (a local commit, kix_client_submit). */
#ifndef KIX_TEST_LIGER_SAMPLE_H
#define KIX_TEST_LIGER_SAMPLE_H

#include "harness.h"
#include "kix/csv.h"
#include "kix/entries.h"
#include "kix/liger.h"

/* Submits one row: its run id, envelope and KIX_LIGER_NOBJECTS objects.
 * Returns 0 or a code that stops liger_sample_publish. */
typedef int (*liger_sample_fn)(void *ctx, size_t row, const char *run_id,
                               const struct kix_buf *envelope, const struct kix_bytes *objects);

/* Signs the first n rows (of kernel `kernel` only, when not NULL) with
 * publisher and hands each to fn; aborts on a row that cannot be built,
 * returns fn's first nonzero code. */
static inline int liger_sample_publish_kernel(struct kix_signer *publisher, const char *kernel,
                                              size_t n, liger_sample_fn fn, void *ctx)
{
    size_t len;
    char *text = kix_test_read_file("data/liger/all_benchmark_data.csv", &len);
    struct kix_liger_cache *cache = NULL;
    struct kix_liger_header h;
    struct kix_csv csv;
    struct kix_csv_record rec;
    struct kix_err err = {0};
    int rc = 0;

    if (!text || kix_liger_cache_new(&cache))
        abort();
    kix_csv_init(&csv, text, len);
    if (kix_csv_next(&csv, &rec, &err) != 1 || kix_liger_header_parse(&rec, &h, &err))
        abort();
    for (size_t i = 0; rc == 0 && i < n && kix_csv_next(&csv, &rec, &err) == 1;) {
        struct kix_liger_run run;
        struct kix_buf env = KIX_BUF_INIT;
        struct kix_bytes objs[KIX_LIGER_NOBJECTS];
        size_t k = h.index[KIX_LIGER_KERNEL_NAME];

        if (kernel &&
            (rec.lens[k] != strlen(kernel) || memcmp(rec.fields[k], kernel, rec.lens[k]) != 0))
            continue;

        kix_liger_run_init(&run);
        if (kix_liger_build(cache, &h, &rec, &run, &err) ||
            kix_entry_publication(publisher, run.run_id, &run.digest[KIX_LIGER_RUN],
                                  "2026-11-29T00:00:00Z", "test", "BSD-2-Clause", &env, &err))
            abort();
        for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
            objs[k] = kix_buf_bytes(&run.canon[k]);
        rc = fn(ctx, i++, run.run_id, &env, objs);
        kix_buf_release(&env);
        kix_liger_run_release(&run);
    }
    kix_csv_release(&csv);
    kix_liger_cache_free(cache);
    free(text);
    return rc;
}

static inline int liger_sample_publish(struct kix_signer *publisher, size_t n, liger_sample_fn fn,
                                       void *ctx)
{
    return liger_sample_publish_kernel(publisher, NULL, n, fn, ctx);
}

#endif
