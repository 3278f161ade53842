/* tests/crash/crash_common.h — shared by the crash tests: knobs from the
 * environment, a seeded random source, and a check that fails the test
 * with a message (the drivers run in one KIX_TEST each). */
#ifndef KIX_CRASH_COMMON_H
#define KIX_CRASH_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A positive number from the environment, or def. */
static inline unsigned long crash_env(const char *name, unsigned long def)
{
    const char *v = getenv(name);
    char *end;
    unsigned long n;
    if (!v || !*v)
        return def;
    n = strtoul(v, &end, 10);
    return *end || n == 0 ? def : n;
}

/* xorshift64*: reproducible from the printed seed. */
static inline uint64_t crash_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t crash_seed(void)
{
    struct timespec ts;
    unsigned long s = crash_env("KIX_CRASH_SEED", 0);
    if (s)
        return s;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ULL;
}

/* A uniform number in [lo, hi]. */
static inline uint64_t crash_between(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + crash_rand(s) % (hi - lo + 1);
}

/* Processes (by the address of their pid variable) killed when the test
 * exits, also after a failed check left them running. */
#include <signal.h>
#include <sys/types.h>

static pid_t *crash_reaped[4];

static inline void crash_reap_now(void)
{
    for (int i = 0; i < 4; i++)
        if (crash_reaped[i] && *crash_reaped[i] > 0)
            kill(*crash_reaped[i], SIGKILL);
}

static inline void crash_reap_at_exit(pid_t *pid)
{
    for (int i = 0; i < 4; i++) {
        if (!crash_reaped[i]) {
            if (i == 0)
                atexit(crash_reap_now);
            crash_reaped[i] = pid;
            return;
        }
    }
}

#endif
