/* http_cache.h — the HTTP source's disk cache of the files of a log that
 * never change once complete (full hash tiles, full entry bundles, objects,
 * index records), so that a second reader of the same log fetches only what
 * changed (source_http_cache.c decides what is kept and checks it; this
 * file only stores bytes). Private to client/lib.
 *
 * Where: one directory per log, ROOT/logs/<origin>+<key hash>/ (the names
 * kix_trust_log_name gives, so every mirror and CDN of a log shares it),
 * ROOT being $KIX_CACHE_DIR, else $XDG_CACHE_HOME/kix, else ~/.cache/kix.
 * A file is kept under its tlog-tiles path (tile/0/001, tile/entries/001,
 * objects/sha256:...) as its bytes and their SHA-256, written to a
 * temporary name and renamed (no fsync: a lost file is read again from the
 * network); a read checks size and hash and removes a damaged file. Bound:
 * when a process wrote to it, closing prunes ROOT, oldest first, to
 * $KIX_CACHE_MAX_MB (default 256) MiB.
 *
 * Nothing read from here is trusted: the caller checks every file against
 * its name or the verified tree before use.
 *
 * Memory: the struct owns its paths; reads append to the caller's buffer.
 * Errors: open returns KIX_EINVAL for a path too long; get returns
 * KIX_ENOTFOUND for a file absent or damaged; put and drop fail silently
 * (a cache that cannot be written is a cache miss next time). */
#ifndef KIX_HTTP_CACHE_H
#define KIX_HTTP_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

struct http_cache;

/* The cache of the log named log_name (kix_trust_log_name) under root
 * (NULL: the default above). Makes no directory yet. */
int http_cache_open(const char *root, const char *log_name, struct http_cache **out,
                    struct kix_err *err) KIX_MUST_CHECK;
/* Appends the bytes kept under rel (at most max) to out: KIX_OK, or
 * KIX_ENOTFOUND (absent, or damaged and removed). */
int http_cache_get(struct http_cache *c, const char *rel, size_t max, struct kix_buf *out);
/* 1 when a file is kept under rel (unchecked). */
int http_cache_has(struct http_cache *c, const char *rel);
void http_cache_put(struct http_cache *c, const char *rel, const uint8_t *bytes, size_t len);
void http_cache_drop(struct http_cache *c, const char *rel);
/* Prunes the root to its bound when this process wrote, then frees. NULL is fine. */
void http_cache_close(struct http_cache *c);

#endif
