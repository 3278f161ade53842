/* kixd's log: one line per event on stderr. Text: "TIME LEVEL message";
 * under systemd (JOURNAL_STREAM names stderr) "<PRIORITY>LEVEL message",
 * since the journal stamps the time itself and reads the sd-daemon prefix
 * as the line's priority. JSON: {"time":..,"level":..,"msg":..}. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kixd.h"

static int log_min = KIXD_INFO;
static int log_json;
static int log_journal = -1; /* -1: not yet looked at */

/* JOURNAL_STREAM is "DEVICE:INODE" of the journal's stream: stderr only
 * goes there if stderr is that very file. */
static int stderr_is_journal(void)
{
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;

    if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) != 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* Appends msg to line[n..cap) as a JSON string body; returns the new n. */
static size_t json_escape(char *line, size_t n, size_t cap, const char *msg)
{
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 7 < cap; p++) {
        if (*p == '"' || *p == '\\') {
            line[n++] = '\\';
            line[n++] = (char)*p;
        } else if (*p < 0x20) {
            n += (size_t)snprintf(line + n, cap - n, "\\u%04x", *p);
        } else {
            line[n++] = (char)*p;
        }
    }
    return n;
}

int kixd_log_enabled(int level)
{
    return level >= log_min;
}

void kixd_log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    static const char priorities[] = {'7', '6', '4', '3'};
    char line[2048], msg[1800], stamp[40];
    int li = level < 0 ? 0 : level > 3 ? 3 : level;
    struct timeval tv;
    struct tm tm;
    va_list ap;
    size_t n;

    if (level < log_min)
        return;
    if (log_journal < 0)
        log_journal = stderr_is_journal();
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03dZ", (int)(tv.tv_usec / 1000));
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (log_json) {
        n = (size_t)snprintf(line, sizeof(line), "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":\"",
                             stamp, names[li]);
        n = json_escape(line, n, sizeof(line) - 3, msg);
        line[n++] = '"';
        line[n++] = '}';
    } else if (log_journal) {
        n = (size_t)snprintf(line, sizeof(line), "<%c>%-5s %s", priorities[li], names[li], msg);
    } else {
        n = (size_t)snprintf(line, sizeof(line), "%s %-5s %s", stamp, names[li], msg);
    }
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    /* one write per line: lines of different threads never interleave */
    if (write(STDERR_FILENO, line, n) < 0)
        return;
}

void kixd_log_set_format(int json)
{
    log_json = json;
}

void kixd_log_set_level(int level)
{
    log_min = level;
}
