/* The progress bar's line (kix/progress.h). */
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

#include "kix/progress.h"

#define BAR_WIDTH 30

static double now_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int kix_progress_wanted(void)
{
    return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
}

void kix_progress_init(struct kix_progress *p, const char *what, const char *unit, int on,
                       uint64_t first)
{
    p->what = what;
    p->unit = unit;
    p->first = first;
    p->start = now_seconds();
    p->last = 0;
    p->on = on;
    p->drawn = 0;
}

size_t kix_progress_line(struct kix_progress *p, uint64_t n, uint64_t total, char *out, size_t cap)
{
    char bar[BAR_WIDTH + 1];
    double t = now_seconds(), dt = t - p->start;
    uint64_t fill = total ? (n > total ? total : n) * BAR_WIDTH / total : BAR_WIDTH;
    unsigned pct = total ? (unsigned)((n > total ? total : n) * 100 / total) : 100;
    int len;

    if (!p->on || cap == 0 || (n < total && p->drawn && t - p->last < 0.1))
        return 0;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    len = snprintf(out, cap, "\r%-9s [%s] %3u%%  %llu/%llu %s  %.0f %s/s\033[K", p->what, bar, pct,
                   (unsigned long long)n, (unsigned long long)total, p->unit,
                   dt > 0 && n > p->first ? (double)(n - p->first) / dt : 0.0, p->unit);
    if (len < 0)
        return 0;
    p->last = t;
    p->drawn = 1;
    return (size_t)len < cap ? (size_t)len : cap - 1;
}

const char *kix_progress_clear(const struct kix_progress *p)
{
    return p->drawn ? "\r\033[K" : "";
}
