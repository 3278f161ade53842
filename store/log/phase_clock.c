/* The phase clock (phase_clock.h): per-thread CPU time summed by phase. */
#include "phase_clock.h"

#include <time.h>

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void kix__clock_start(struct kix__clock *c, struct kix__phases *ph, int in_txn)
{
    c->ph = ph;
    c->in_txn = in_txn;
    c->t = ph->on ? thread_cpu_ns() : 0;
}

void kix__clock_mark(struct kix__clock *c, enum kix_log_phase phase)
{
    uint64_t now;

    if (!c->ph->on)
        return;
    now = thread_cpu_ns();
    atomic_fetch_add_explicit(&c->ph->ns[phase], now - c->t, memory_order_relaxed);
    if (c->in_txn)
        c->ph->in_txn += now - c->t; /* the writer's own: under the write lock */
    c->t = now;
}

void kix__phases_prepared(struct kix__phases *ph)
{
    if (ph->on)
        atomic_fetch_add_explicit(&ph->prepared, 1, memory_order_relaxed);
}

uint64_t kix__phases_write_begin(struct kix__phases *ph)
{
    ph->in_txn = 0;
    return ph->on ? thread_cpu_ns() : 0;
}

void kix__phases_write_end(struct kix__phases *ph, uint64_t start, int committed, uint64_t accepted)
{
    uint64_t all;

    if (!ph->on)
        return;
    /* the commit phase: the whole write less what its marks counted */
    all = thread_cpu_ns() - start;
    atomic_fetch_add_explicit(&ph->ns[KIX_LOG_PHASE_COMMIT],
                              all > ph->in_txn ? all - ph->in_txn : 0, memory_order_relaxed);
    if (committed)
        atomic_fetch_add_explicit(&ph->committed, accepted, memory_order_relaxed);
}

void kix__phases_read(const struct kix__phases *ph, struct kix_log_phase_stats *out)
{
    struct kix__phases *m = (struct kix__phases *)ph; /* atomics: loads only */

    out->prepared = atomic_load_explicit(&m->prepared, memory_order_relaxed);
    out->committed = atomic_load_explicit(&m->committed, memory_order_relaxed);
    for (int i = 0; i < KIX_LOG_PHASES; i++)
        out->ns[i] = atomic_load_explicit(&m->ns[i], memory_order_relaxed);
}

const char *kix_log_phase_name(enum kix_log_phase phase)
{
    static const char *const names[KIX_LOG_PHASES] = {"canonical", "hash",  "verify",
                                                      "policy",    "index", "commit"};
    return (unsigned)phase < KIX_LOG_PHASES ? names[phase] : NULL;
}
