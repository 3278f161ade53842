/* The phase clock (phase_clock.h): per-thread CPU time summed by phase. */
#include "phase_clock.h"

#include "kix/clock.h"
#include <stdint.h>

/* A sampled clock's weight: 0 (not running) or how many clocks it stands
 * for. A thread's first KIX__CLOCK_EXACT clocks all run (a short run's
 * sums are exact); after that one in KIX__CLOCK_SAMPLE, drawn by a
 * per-thread xorshift (not a counter: prepare starts two clocks an entry,
 * and a counter's period would always pick the same one). */
unsigned kix_log_phase_sample(void)
{
    static _Thread_local uint32_t x, started;

    if (started < KIX__CLOCK_EXACT) {
        started++;
        return 1;
    }
    if (x == 0)
        x = (uint32_t)(uintptr_t)&x | 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x % KIX__CLOCK_SAMPLE == 0 ? KIX__CLOCK_SAMPLE : 0;
}

void kix__clock_start(struct kix__clock *c, struct kix__phases *ph, enum kix__clock_kind kind)
{
    c->ph = ph;
    c->in_txn = kind != KIX__CLOCK_PREPARE;
    /* a clock an entry (prepare's, the writer's per entry) is sampled and
     * weighted to the whole; one a commit (the seal's) is exact */
    c->weight = !ph->on ? 0 : kind == KIX__CLOCK_EXACT_TXN ? 1 : kix_log_phase_sample();
    c->t = c->weight ? kix_thread_cpu_ns() : 0;
}

void kix__clock_mark(struct kix__clock *c, enum kix_log_phase phase)
{
    uint64_t now;

    if (!c->weight)
        return;
    now = kix_thread_cpu_ns();
    atomic_fetch_add_explicit(&c->ph->ns[phase], (now - c->t) * c->weight, memory_order_relaxed);
    if (c->in_txn) /* the writer's own (under the write lock), weighted like the phase */
        c->ph->in_txn += (now - c->t) * c->weight;
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
    return ph->on ? kix_thread_cpu_ns() : 0;
}

void kix__phases_write_end(struct kix__phases *ph, uint64_t start, int committed, uint64_t accepted)
{
    uint64_t all;

    if (!ph->on)
        return;
    /* the commit phase: the whole write less what its marks counted */
    all = kix_thread_cpu_ns() - start;
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
