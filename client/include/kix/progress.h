/* kix/progress.h — the one progress bar of the kix programs (kix audit,
 * kix-import-liger), so that they look and behave the same.
 *
 * The library never prints: kix_progress_line() formats the line and the
 * program writes it (to stderr). A bar is drawn only when `on` was set at
 * init, which programs set with kix_progress_wanted(): both stdout and
 * stderr are terminals. Lines are rate-limited to one per 100 ms, except the
 * last (n == total), and each redraws in place ("\r" ... "\033[K"):
 *
 *   audit     [##############................]  46%  4600/10000 entries  9120 entries/s
 *
 * The rate counts from `first` (work done before this run, e.g. entries an
 * earlier audit verified).
 */
#ifndef KIX_PROGRESS_H
#define KIX_PROGRESS_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#define KIX_PROGRESS_LINE_MAX 160

struct kix_progress {
    const char *what; /* "audit", "importing", ... (borrowed) */
    const char *unit; /* "entries", "rows", "bytes" (borrowed) */
    uint64_t first;
    double start, last;
    int on, drawn;
};

/* 1 when a bar should be drawn: stdout and stderr are both terminals. */
KIX_API int kix_progress_wanted(void);

KIX_API void kix_progress_init(struct kix_progress *p, const char *what, const char *unit, int on,
                               uint64_t first);
/* Formats the bar for n of total into out (cap >= KIX_PROGRESS_LINE_MAX);
 * returns its length, 0 when nothing is to be drawn now. */
KIX_API size_t kix_progress_line(struct kix_progress *p, uint64_t n, uint64_t total, char *out,
                                 size_t cap);
/* The text that erases a drawn bar ("\r\033[K"), or "" when none was drawn. */
KIX_API const char *kix_progress_clear(const struct kix_progress *p);

#endif
