/* kixd's log: one line per event on stderr, "TIME LEVEL message". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kixd.h"

static int log_min = KIXD_INFO;

int kixd_log_enabled(int level)
{
    return level >= log_min;
}

void kixd_log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    char line[2048];
    struct timeval tv;
    struct tm tm;
    va_list ap;
    size_t n;

    if (level < log_min)
        return;
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
    n += (size_t)snprintf(line + n, sizeof(line) - n, ".%03dZ %-5s ", (int)(tv.tv_usec / 1000),
                          names[level < 0   ? 0
                                : level > 3 ? 3
                                            : level]);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - n, fmt, ap);
    va_end(ap);
    n = strlen(line);
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    /* one write per line: lines of different threads never interleave */
    if (write(STDERR_FILENO, line, n) < 0)
        return;
}

void kixd_log_set_level(int level)
{
    log_min = level;
}
