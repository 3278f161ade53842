/* kix/clock.h — the two clocks kix measures with.
 *
 * The monotonic clock times waits, deadlines and durations (it never
 * steps back when the wall clock is set); a thread's CPU clock is what the
 * phase clocks and kixd's request accounting sum. Both read in
 * nanoseconds, which a uint64_t holds for 584 years.
 *
 * Memory: none. Errors: none; Linux has both clocks (a failed read would
 * be a kernel without them, which kix does not build for).
 */
#ifndef KIX_CLOCK_H
#define KIX_CLOCK_H

#include "kix/api.h"

#include <stdint.h>

/* CLOCK_MONOTONIC, in nanoseconds and in milliseconds. */
KIX_API uint64_t kix_clock_ns(void);
KIX_API uint64_t kix_clock_ms(void);

/* CLOCK_THREAD_CPUTIME_ID: the CPU time the calling thread has used. */
KIX_API uint64_t kix_thread_cpu_ns(void);

#endif
