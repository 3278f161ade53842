/* kix/liger.h — Liger-Kernel benchmark CSV rows as kix manifests.
 *
 * Liger-Kernel publishes its benchmark results as one CSV
 * (benchmark/data/all_benchmark_data.csv, 15 columns, see
 * tools/samples/liger/README.md). Each data row is one run: a kernel, a
 * provider (the implementation), a timed pass (forward, backward, full), a
 * metric (speed in ms or peak memory in MB, the 0.5/0.2/0.8 quantiles), an
 * x parameter and its value, a JSON config, the GPU, a timestamp and the
 * Liger release.
 *
 * kix_liger_build() checks one row and turns it into five canonical
 * (RFC 8785) manifests, apiVersion kernelindex.dev/v1alpha1, shaped like
 * the examples in tools/samples/examples/:
 *   BenchmarkProtocol       harness, timer/tool, primary statistic, the pass
 *                           measured, comparability notes (one per metric
 *                           and pass)
 *   Workload                kernel, x parameter (name, label, value), the
 *                           upstream config as is, normalized parameters,
 *                           dtype
 *   ExecutionEnvironment    GPU vendor, product, form factor and
 *                           architecture where known
 *   Implementation          provider, name, project, repository
 *   BenchmarkRun            references the four by digest; status,
 *                           observedAt, the source's own figures
 *                           (sourceNative), normalized measurements
 *                           (latency in integer ns = round(ms * 10^6), or
 *                           peak memory in bytes = MB * 2^20, since Liger's
 *                           MB are bytes / 2^20), the Liger release as a
 *                           label, and the external id
 * The same protocol, workload, environment or implementation built from
 * two rows has the same bytes and so the same digest.
 *
 * External id: <kernel>/<mode>/<provider>/<gpu slug>/<config slug>/<timestamp
 * slug>, e.g. rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-kv_heads8-
 * q_heads32-seq2048-bf16/2024-09-03-15-39-55; memory rows add "/memory" (a
 * speed row and a memory row can otherwise share every part). The config
 * slug lists the x parameter and the numeric and boolean config values under
 * short names (seq_len and T "seq", hidden_size and H "hidden", bsz "batch",
 * num_q_heads "q_heads", ...), sorted, then the dtype (bf16, fp32, ...);
 * strings other than the dtype, nulls and num_shards (an implementation
 * setting) are left out of the slug but kept in the workload.
 *
 * Run id: a UUIDv8 (RFC 9562) from SHA-256("kix-import-liger/v1\n" ||
 * external id), so importing a row again yields the same run id and the
 * same manifests (the row's time is the run's spec.observedAt; when it was
 * published is the publication's, not the row's).
 *
 * Errors: KIX_EINVAL with a message "line N: ..." naming the column and
 * what is wrong (N is the file line where the record starts); KIX_ENOMEM.
 * Memory: struct kix_liger_run owns its buffers (kix_liger_run_release).
 */
#ifndef KIX_LIGER_H
#define KIX_LIGER_H

#include <jansson.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/csv.h"
#include "kix/digest.h"
#include "kix/error.h"

#define KIX_LIGER_API_VERSION     "kernelindex.dev/v1alpha1"
#define KIX_LIGER_SOURCE          "liger-kernel-bench"
#define KIX_LIGER_LICENSE         "BSD-2-Clause"
#define KIX_LIGER_EXTERNAL_ID_MAX 1000

enum kix_liger_column {
    KIX_LIGER_KERNEL_NAME,
    KIX_LIGER_KERNEL_PROVIDER,
    KIX_LIGER_KERNEL_OPERATION_MODE,
    KIX_LIGER_METRIC_NAME,
    KIX_LIGER_METRIC_UNIT,
    KIX_LIGER_X_NAME,
    KIX_LIGER_X_LABEL,
    KIX_LIGER_X_VALUE,
    KIX_LIGER_Y_VALUE_50,
    KIX_LIGER_Y_VALUE_20,
    KIX_LIGER_Y_VALUE_80,
    KIX_LIGER_EXTRA_BENCHMARK_CONFIG_STR,
    KIX_LIGER_GPU_NAME,
    KIX_LIGER_TIMESTAMP,
    KIX_LIGER_LIGER_VERSION,
    KIX_LIGER_NCOLUMNS
};

/* "kernel_name", ... ; NULL outside the enum. */
const char *kix_liger_column_name(int column);

/* Where each column is in the file. */
struct kix_liger_header {
    size_t nfields;
    size_t index[KIX_LIGER_NCOLUMNS];
};

/* Checks the header record: every expected column exactly once, in any
 * order, and nothing else. KIX_EINVAL "line N: header ..." naming the
 * missing, repeated or unknown column. */
int kix_liger_header_parse(const struct kix_csv_record *rec, struct kix_liger_header *h,
                           struct kix_err *err) KIX_MUST_CHECK;

enum kix_liger_object {
    KIX_LIGER_PROTOCOL,
    KIX_LIGER_WORKLOAD,
    KIX_LIGER_ENVIRONMENT,
    KIX_LIGER_IMPLEMENTATION,
    KIX_LIGER_RUN,
    KIX_LIGER_NOBJECTS
};

struct kix_liger_run {
    size_t line; /* file line of the row */
    char external_id[KIX_LIGER_EXTERNAL_ID_MAX + 1];
    char run_id[37];                          /* UUIDv8, see above */
    int memory;                               /* 1: a peak-memory row */
    int64_t median, p20, p80;                 /* ns, or bytes for memory */
    struct kix_buf canon[KIX_LIGER_NOBJECTS]; /* canonical JSON */
    struct kix_digest digest[KIX_LIGER_NOBJECTS];
};

void kix_liger_run_init(struct kix_liger_run *r);
void kix_liger_run_release(struct kix_liger_run *r);
/* Every source's reader ends an object the same way: obj (consumed)
 * serialized, canonicalized into out->canon[which] and digested into
 * out->digest[which]. KIX_ENOMEM, or kix_canon's error. */
int kix_liger_run_object(json_t *obj, struct kix_liger_run *out, int which,
                         struct kix_err *err) KIX_MUST_CHECK;

/* A cache of the shared objects already built (protocols, workloads,
 * environments, implementations), keyed by the fields each is made from, so
 * that a file's rows do not rebuild them row after row. Optional. */
struct kix_liger_cache;
int kix_liger_cache_new(struct kix_liger_cache **out) KIX_MUST_CHECK;
void kix_liger_cache_free(struct kix_liger_cache *c);
size_t kix_liger_cache_size(const struct kix_liger_cache *c);

/* Validates data record `rec` (laid out as `h` says) and builds its
 * manifests into *out (previous content replaced). cache may be NULL. */
int kix_liger_build(struct kix_liger_cache *cache, const struct kix_liger_header *h,
                    const struct kix_csv_record *rec, struct kix_liger_run *out,
                    struct kix_err *err) KIX_MUST_CHECK;

/* kix_liger_build without the run manifest (canon[KIX_LIGER_RUN] left
 * empty): every check of the row, the external and run ids and the shared
 * objects. The run manifest holds only values checked here, so a row that
 * passes builds (barring KIX_ENOMEM). For a first pass over a file. */
int kix_liger_check(struct kix_liger_cache *cache, const struct kix_liger_header *h,
                    const struct kix_csv_record *rec, struct kix_liger_run *out,
                    struct kix_err *err) KIX_MUST_CHECK;

/* The run id of an external id (UUIDv8 text, 36 chars and a NUL). */
void kix_liger_run_id(const char *external_id, char out[37]);
/* The same UUIDv8 under another source's namespace (ns: "kix-import-SOURCE/v1\n"). */
void kix_liger_run_id_in(const char *ns, const char *external_id, char out[37]);

#endif
