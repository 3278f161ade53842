/* kixd's diagnostics (diag.h): one line per event on stderr. Text: "TIME
 * LEVEL message"; under systemd (JOURNAL_STREAM names stderr) "<PRIORITY>LEVEL message",
 * since the journal stamps the time itself and reads the sd-daemon prefix
 * as the line's priority. JSON: {"time":..,"level":..,"msg":..}. A line
 * about a request adds its fields: " req=ID method=M peer=P cause=C ms=T"
 * in text, "req", "method", "peer", "cause", "ms" in json. */
#include "kix/clock.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"

static int log_min = KIXD_INFO;
static int log_json;
static int log_journal = -1; /* -1: not yet looked at */
static unsigned log_slow_ms = 1000;
static atomic_uint_fast64_t next_request_id;

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

/* The fields of a request line (NULL: a plain line). */
struct fields {
    uint64_t id;
    const char *method, *peer;
    int code;
    double ms;
    /* an access line (kixd_log_access): no req or cause */
    const char *path;
    unsigned status;
    uint64_t bytes;
};

/* Appends " key=value" to a text line; values with a space, quote or '='
 * are quoted (\" and \\ escaped), so that lines split on spaces. */
static size_t text_field(char *line, size_t n, size_t cap, const char *key, const char *v)
{
    int quote = !*v || strpbrk(v, " \"=\\") != NULL;

    if (n + strlen(key) + 4 >= cap)
        return n;
    n += (size_t)snprintf(line + n, cap - n, " %s=%s", key, quote ? "\"" : "");
    for (; *v && n + 3 < cap; v++) {
        if (*v == '"' || *v == '\\')
            line[n++] = '\\';
        line[n++] = (unsigned char)*v < 0x20 ? '?' : *v;
    }
    if (quote && n + 1 < cap)
        line[n++] = '"';
    line[n] = '\0';
    return n;
}

static size_t json_field(char *line, size_t n, size_t cap, const char *key, const char *v)
{
    if (n + strlen(key) + 8 >= cap)
        return n;
    n += (size_t)snprintf(line + n, cap - n, ",\"%s\":\"", key);
    n = json_escape(line, n, cap - 2, v);
    line[n++] = '"';
    line[n] = '\0';
    return n;
}

static size_t add_fields(char *line, size_t n, size_t cap, const struct fields *f)
{
    char num[32];

    if (!f)
        return n;
    if (f->path && log_json) {
        n = json_field(line, n, cap, "method", f->method);
        n = json_field(line, n, cap, "path", f->path);
        if (n + 64 < cap)
            n += (size_t)snprintf(line + n, cap - n, ",\"status\":%u,\"bytes\":%llu,\"ms\":%.1f",
                                  f->status, (unsigned long long)f->bytes, f->ms);
        n = json_field(line, n, cap, "peer", f->peer);
        return n < cap ? n : cap - 1;
    }
    if (f->path) {
        n = text_field(line, n, cap, "method", f->method);
        n = text_field(line, n, cap, "path", f->path);
        snprintf(num, sizeof(num), "%u", f->status);
        n = text_field(line, n, cap, "status", num);
        snprintf(num, sizeof(num), "%llu", (unsigned long long)f->bytes);
        n = text_field(line, n, cap, "bytes", num);
        snprintf(num, sizeof(num), "%.1f", f->ms);
        n = text_field(line, n, cap, "ms", num);
        return text_field(line, n, cap, "peer", f->peer);
    }
    if (log_json) {
        n += (size_t)snprintf(line + n, cap - n, ",\"req\":%llu", (unsigned long long)f->id);
        n = json_field(line, n, cap, "method", f->method ? f->method : "");
        n = json_field(line, n, cap, "peer", f->peer ? f->peer : "");
        if (f->code && n < cap)
            n = json_field(line, n, cap, "cause", kix_err_name(f->code));
        if (f->ms >= 0 && n < cap)
            n += (size_t)snprintf(line + n, cap - n, ",\"ms\":%.1f", f->ms);
        return n < cap ? n : cap - 1;
    }
    snprintf(num, sizeof(num), "%llu", (unsigned long long)f->id);
    n = text_field(line, n, cap, "req", num);
    n = text_field(line, n, cap, "method", f->method ? f->method : "");
    n = text_field(line, n, cap, "peer", f->peer ? f->peer : "");
    if (f->code)
        n = text_field(line, n, cap, "cause", kix_err_name(f->code));
    if (f->ms >= 0) {
        snprintf(num, sizeof(num), "%.1f", f->ms);
        n = text_field(line, n, cap, "ms", num);
    }
    return n;
}

static void log_line(int level, const struct fields *f, const char *fmt, va_list ap)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    static const char priorities[] = {'7', '6', '4', '3'};
    char line[2048], msg[1500], stamp[40];
    int li = level < 0 ? 0 : level > 3 ? 3 : level;
    struct timeval tv;
    struct tm tm;
    size_t n;

    if (log_journal < 0)
        log_journal = stderr_is_journal();
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03dZ", (int)(tv.tv_usec / 1000));
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (log_json) {
        n = (size_t)snprintf(line, sizeof(line), "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":\"",
                             stamp, names[li]);
        n = json_escape(line, n, sizeof(line) - 3, msg);
        line[n++] = '"';
        line[n] = '\0';
        n = add_fields(line, n, sizeof(line) - 2, f);
        line[n++] = '}';
    } else {
        if (log_journal)
            n = (size_t)snprintf(line, sizeof(line), "<%c>%-5s %s", priorities[li], names[li], msg);
        else
            n = (size_t)snprintf(line, sizeof(line), "%s %-5s %s", stamp, names[li], msg);
        if (n > sizeof(line) - 2)
            n = sizeof(line) - 2;
        n = add_fields(line, n, sizeof(line) - 1, f);
    }
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    /* one write per line: lines of different threads never interleave */
    if (write(STDERR_FILENO, line, n) < 0)
        return;
}

void kixd_log(int level, const char *fmt, ...)
{
    va_list ap;

    if (level < log_min)
        return;
    va_start(ap, fmt);
    log_line(level, NULL, fmt, ap);
    va_end(ap);
}

void kixd_log_request(int level, uint64_t id, const char *method, const char *peer, int code,
                      double ms, const char *fmt, ...)
{
    struct fields f = {id, method, peer, code, ms, NULL, 0, 0};
    va_list ap;

    if (level < log_min)
        return;
    va_start(ap, fmt);
    log_line(level, &f, fmt, ap);
    va_end(ap);
}

static void access_line(const struct fields *f, const char *fmt, ...) KIX_PRINTF(2, 3);
static void access_line(const struct fields *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_line(KIXD_INFO, f, fmt, ap);
    va_end(ap);
}

void kixd_log_access(const char *method, const char *path, unsigned status, uint64_t bytes,
                     double ms, const char *peer)
{
    struct fields f = {0, method, peer, 0, ms, path, status, bytes};

    if (KIXD_INFO < log_min)
        return;
    access_line(&f, "http %s %.200s %u", method, path, status);
}

uint64_t kixd_request_id(void)
{
    return (uint64_t)atomic_fetch_add(&next_request_id, 1) + 1;
}

double kixd_now_ms(void)
{
    return (double)kix_clock_ns() / 1e6;
}

void kixd_log_set_slow_ms(unsigned ms)
{
    log_slow_ms = ms;
}

unsigned kixd_log_slow_ms(void)
{
    return log_slow_ms;
}

void kixd_log_set_format(int json)
{
    log_json = json;
}

void kixd_log_set_level(int level)
{
    log_min = level;
}

/* ---- --log-file ------------------------------------------------------------------------ */

static char log_path[4096]; /* set once by main before any thread starts */

/* stderr becomes the file at log_path, appended to (every line one write,
 * so lines from several threads stay whole). */
static int open_log_file(void)
{
    int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640), saved;

    if (fd < 0)
        return -1;
    if (dup2(fd, STDERR_FILENO) < 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    close(fd);
    return 0;
}

int kixd_log_open_file(const char *path)
{
    snprintf(log_path, sizeof(log_path), "%s", path);
    log_journal = 0; /* a file, not the journal */
    return open_log_file();
}

int kixd_log_reopen(const char **path)
{
    *path = log_path;
    if (!log_path[0])
        return 1;
    return open_log_file();
}

json_t *kixd_jstr(const char *s)
{
    json_t *v = s ? json_string(s) : NULL;
    return v ? v : json_string("");
}
