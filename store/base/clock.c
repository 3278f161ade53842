/* The clocks (kix/clock.h). */
#include "kix/clock.h"

#include <time.h>

static uint64_t read_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t kix_clock_ns(void)
{
    return read_ns(CLOCK_MONOTONIC);
}

uint64_t kix_clock_ms(void)
{
    return read_ns(CLOCK_MONOTONIC) / 1000000u;
}

uint64_t kix_thread_cpu_ns(void)
{
    return read_ns(CLOCK_THREAD_CPUTIME_ID);
}
