/* daemon/base/diag.h — kixd's diagnostics (diag.c): one line per event on
 * stderr, "TIME LEVEL message" in text or one JSON object per line. Not
 * the Merkle log (store/log): this is what kixd tells its operator.
 *
 * Every function may be called from any thread; the level, format and slow
 * threshold are set once by main.c before any thread starts. Nothing here
 * allocates what a caller must free. Never pass secrets. */
#ifndef KIXD_DIAG_H
#define KIXD_DIAG_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "kix/error.h"

enum kixd_level { KIXD_DEBUG = 0, KIXD_INFO = 1, KIXD_WARN = 2, KIXD_ERROR = 3 };

/* Lines below the level are dropped (cheap to call). */
void kixd_log(int level, const char *fmt, ...) KIX_PRINTF(2, 3);
/* s as a JSON string for the --json answers of kixd's commands (export,
 * check), which kix_doc_print writes; "" when s is NULL or not UTF-8 (a
 * path can hold any bytes). */
json_t *kixd_jstr(const char *s);
int kixd_log_enabled(int level);
void kixd_log_set_level(int level); /* diag.c owns the level; main sets it once */
void kixd_log_set_format(int json); /* 0 text (the default), 1 one JSON object per line */

/* --log-file: stderr (where every line goes) becomes PATH, appended to and
 * created 0640; main calls it once before any thread starts. 0, or -1 with
 * errno. kixd_log_reopen opens the same path again (SIGHUP, after a log
 * rotation): 0, -1 with errno (the old file stays in use), 1 when there is
 * no --log-file; *path names it. */
int kixd_log_open_file(const char *path);
int kixd_log_reopen(const char **path);

/* Requests: each gets an id (kixd_request_id, unique in this process,
 * from 1) that every line about it carries. kixd_log_request logs one line
 * about request `id` with its fields: in text "TIME LEVEL message req=ID
 * method=M peer=P cause=NAME ms=T" (cause only for an error code, ms only
 * when >= 0), in json the same as "req", "method", "peer", "cause", "ms"
 * beside "time", "level" and "msg". Refusals are logged at info, requests
 * slower than kixd_log_slow_ms() (--log-slow-ms) at warn. */
uint64_t kixd_request_id(void);
double kixd_now_ms(void); /* a monotonic clock, for request durations */
void kixd_log_request(int level, uint64_t id, const char *method, const char *peer, int code,
                      double ms, const char *fmt, ...) KIX_PRINTF(7, 8);
/* One line per HTTP request (--http-access-log), at info: in text "TIME INFO
 * http METHOD PATH method=M path=P status=S bytes=B ms=T peer=P", in json
 * the same fields beside "time", "level" and "msg". */
void kixd_log_access(const char *method, const char *path, unsigned status, uint64_t bytes,
                     double ms, const char *peer);
void kixd_log_set_slow_ms(unsigned ms); /* main sets it once; 0: every request is slow */
unsigned kixd_log_slow_ms(void);

#endif
