/* Internal to kix_log: the phase clock behind kix_log_phase_stats (kix/log.h),
 * which says where an append's CPU time goes (canonical form, hashing,
 * signatures, policy, index, commit). Prepare threads and the writer mark
 * phases on one struct kix__phases; the sums are atomics, so marks from
 * many threads need no lock. When the stats are off, or a clock is not sampled, a mark costs a
 * load. */
#ifndef KIX_PHASE_CLOCK_H
#define KIX_PHASE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

#include "kix/log.h"

struct kix__phases {
    int on;
    _Atomic uint64_t ns[KIX_LOG_PHASES], prepared, committed;
    /* the writer's marks inside the current write transaction (under the
     * write lock), which the commit phase does not count again */
    uint64_t in_txn;
};

/* A clock: start, then mark at each phase's end; a mark adds the thread's
 * CPU time since the previous mark to that phase.
 *
 * The thread CPU clock is a system call (no vDSO), ~0.5-1 us; an entry
 * marks it about ten times in prepare and six in the writer, which was
 * 4-5% of kixd's CPU in an append load (kix-bench) that turned the stats
 * on. So after a thread's first KIX__CLOCK_EXACT clocks, the clocks that
 * run once an entry (prepare's, the writer's per entry) run for one entry
 * in KIX__CLOCK_SAMPLE, each counted KIX__CLOCK_SAMPLE times
 * (kix_log_phase_sample): the same sums in expectation, at a fraction of
 * the cost. The writer's clocks once a commit (the seal's, the whole
 * write) are exact. */
#define KIX__CLOCK_SAMPLE 8
#define KIX__CLOCK_EXACT  256
enum kix__clock_kind {
    KIX__CLOCK_PREPARE,   /* a prepare thread's, sampled */
    KIX__CLOCK_ENTRY_TXN, /* the writer's for one entry, inside its transaction; sampled */
    KIX__CLOCK_EXACT_TXN, /* the writer's once a commit, inside its transaction; exact */
};
struct kix__clock {
    struct kix__phases *ph;
    uint64_t t;
    int in_txn;
    unsigned weight; /* 0: not running */
};
void kix__clock_start(struct kix__clock *c, struct kix__phases *ph, enum kix__clock_kind kind);
void kix__clock_mark(struct kix__clock *c, enum kix_log_phase phase);

/* One more entry prepared. */
void kix__phases_prepared(struct kix__phases *ph);
/* Around a whole commit: begin returns its start; end adds to the commit
 * phase the commit's time less its marks, and the entries it accepted. */
uint64_t kix__phases_write_begin(struct kix__phases *ph);
void kix__phases_write_end(struct kix__phases *ph, uint64_t start, int committed,
                           uint64_t accepted);
void kix__phases_read(const struct kix__phases *ph, struct kix_log_phase_stats *out);

#endif
