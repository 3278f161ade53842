/* kix/kernelbench.h — KernelBench's baseline timing JSON as kix manifests.
 *
 * KernelBench (ScalingIntelligence/KernelBench, MIT) published the timings
 * of its reference PyTorch problems as results/timing/<GPU>_<host>/
 * baseline_time_<config>.json: {"level1": {"<N>_<Name>.py": {"mean", "std",
 * "min", "max", "num_trials", "hardware", "device"} | null, ...}, ...}.
 * Times are milliseconds of wall clock per call, num_trials calls after 3
 * warm-ups, PyTorch 2.5.0+cu124, CUDA 12.4. Each non-null entry is one run;
 * its five manifests (struct kix_liger_run, the same shape as Liger's):
 *   BenchmarkProtocol     KernelBench's timing: wall clock, mean of
 *                         num_trials after 3 warm-ups, the forward call;
 *                         primaryStatistic mean; family kernelbench_baseline
 *   Workload              the problem (level, number, name) bound to its
 *                         source file by SHA-256, with the module-level
 *                         sizes the file sets (batch_size = 16, ...) as
 *                         parameters
 *   ExecutionEnvironment  the GPU the row names (not the directory's), the
 *                         host and, where KernelBench's hardware table gives
 *                         it, the power limit (labels host, powerLimit)
 *   Implementation        the PyTorch configuration (eager, torch.compile ...)
 *   BenchmarkRun          mean (primary), min, max and std in integer ns
 *                         (round(ms * 10^6)), the row's own figures
 *                         (sourceNative), the external id
 *
 * External id: kernelbench/<directory>/<config>/level<L>/<file without .py>;
 * run id: UUIDv8 of SHA-256("kix-import-kernelbench/v1\n" || external id).
 *
 * Problems: the .py files are third-party code read as data: hashed and
 * scanned for sizes, never copied. kix_kb_problems_load takes a directory
 * holding level1/ ... level4/, or a JSON index of them written by
 * kix_kb_problems_save ({"level1/1_X.py": {"sha256", "parameters"}}), so
 * that a sample can carry the digests without the files.
 */
#ifndef KIX_KERNELBENCH_H
#define KIX_KERNELBENCH_H

#include "kix/error.h"
#include "kix/liger.h"

#define KIX_KB_SOURCE      "kernelbench-baseline-time"
#define KIX_KB_LICENSE     "MIT"
#define KIX_KB_POINTER_MAX 512

struct kix_kb_problems;
/* path: a directory of level<N>/<N>_<Name>.py, or a JSON index file. */
int kix_kb_problems_load(const char *path, struct kix_kb_problems **out,
                         struct kix_err *err) KIX_MUST_CHECK;
int kix_kb_problems_save(const struct kix_kb_problems *p, const char *path,
                         struct kix_err *err) KIX_MUST_CHECK;
size_t kix_kb_problems_count(const struct kix_kb_problems *p);
void kix_kb_problems_free(struct kix_kb_problems *p);

/* One timing file, parsed. path is the file as given: its last two
 * components name the directory (<GPU>_<host>) and the configuration. */
struct kix_kb_file;
int kix_kb_open(const char *path, const char *data, size_t len, const struct kix_kb_problems *p,
                struct kix_kb_file **out, struct kix_err *err) KIX_MUST_CHECK;
void kix_kb_close(struct kix_kb_file *f);
size_t kix_kb_rows(const struct kix_kb_file *f);

/* The identity of a row in its file. */
struct kix_kb_row {
    int level, number;
    char problem[256];                /* "23_Softmax.py" */
    char pointer[KIX_KB_POINTER_MAX]; /* JSON pointer: "/level1/23_Softmax.py" */
};

#define KIX_KB_SKIP 1 /* a null entry: no run; err says why */

/* Row i (0-based, levels then problems in number order): KIX_OK with *out
 * built (build: 0 leaves the run manifest out, as kix_liger_check),
 * KIX_KB_SKIP for a null entry, KIX_EINVAL for a malformed row (err: the
 * JSON pointer and what is wrong), KIX_ENOMEM. *row is always filled. */
int kix_kb_row(struct kix_kb_file *f, size_t i, int build, struct kix_liger_run *out,
               struct kix_kb_row *row, struct kix_err *err);

#endif
