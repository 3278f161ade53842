/* kix/parallel.h — one function over an array of jobs, on threads.
 *
 * The fan-out kix uses wherever independent work is split by hand across
 * cores (an export's page shards, a replay's prepare, the benchmark's
 * workload): job 0 runs on the caller's thread, every other job on a
 * thread of its own, and a job whose thread cannot be created runs on the
 * caller's thread after the others are joined. So every job runs exactly
 * once whatever the machine allows, and a shortage of threads only makes
 * the call slower.
 *
 * Memory: the jobs are the caller's (n of them, job_size bytes apart);
 * each job's result goes in the job itself. The call allocates only the
 * thread handles, and without them runs every job on the caller's thread.
 * Errors: none; a job reports its own.
 * Threads: fn runs on up to n threads at once, one job each.
 */
#ifndef KIX_PARALLEL_H
#define KIX_PARALLEL_H

#include "kix/api.h"

#include <stddef.h>

/* Runs fn(jobs + i * job_size) for each i below n and returns when all
 * have returned. */
KIX_API void kix_parallel_run(void *jobs, size_t job_size, size_t n, void *(*fn)(void *));

/* For the programs whose worker threads prepare entries (kix's replays,
 * kixd), called once at the start of main: glibc grows a thread's arena
 * by exactly what an allocation needs, one mprotect a page or two (6,595
 * in an audit of 3,603 entries, ~2% of its CPU with the faults), and only
 * the top pad (M_TOP_PAD, 32 MiB here) makes a new arena's heap writable
 * at once. Address space only until touched; it also keeps up to the pad
 * of freed memory per arena instead of returning it (an audit's peak RSS
 * +13 MB). Does nothing outside glibc. */
KIX_API void kix_parallel_heap_pad(void);

#endif
