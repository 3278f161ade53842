/* kix/manifest.h — the comparison group of a benchmark run manifest.
 *
 * A BenchmarkRun manifest whose spec has sourceNative.benchmark,
 * workloadDigest, protocolDigest, environmentDigest and a primary statistic
 * (timing.latencyNs.median, or timing.latencyNs.mean when timing.primaryStatistic
 * is "mean", or memory.peakBytes.median; a whole number, as its canonical
 * form writes it) joins the group keyed by the SHA-256 of the
 * canonical JSON {benchmark, environmentDigest, metric, protocolDigest,
 * workloadDigest}: runs are comparable only within one kernel, workload,
 * timed pass, metric and GPU. Rank is the 1-based position by value (then
 * run id), lower is better; a superseded run leaves its group.
 *
 * Pure functions: anyone holding a manifest recomputes its group offline.
 * Errors: KIX_ENOTFOUND when the manifest is not a comparable BenchmarkRun
 * (or not JSON), KIX_ENOMEM.
 */
#ifndef KIX_MANIFEST_H
#define KIX_MANIFEST_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/digest.h"
#include "kix/error.h"

/* The comparison key, the primary statistic's value and its metric name
 * ("latency" or "peak_memory") of a manifest's canonical bytes. */
KIX_API int kix_run_comparison_key(const uint8_t *manifest, size_t len, struct kix_digest *key,
                                   uint64_t *value, char metric[16]) KIX_MUST_CHECK;

/* The same, read from bytes that are canonical JSON (kix_canon_is_canonical
 * said so) by walking them, without a parse: what kixd does for a manifest
 * that arrives canonical. On other bytes the result is unspecified but
 * memory-safe. tests/fuzz/fuzz_canon_recognise.c holds it to
 * kix_run_comparison_key on every recognised input. */
KIX_API int kix_run_comparison_key_canonical(const uint8_t *canon, size_t len,
                                             struct kix_digest *key, uint64_t *value,
                                             char metric[16]) KIX_MUST_CHECK;

#endif
