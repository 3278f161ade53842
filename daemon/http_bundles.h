/* daemon/http_bundles.h — the full entry bundles kixd --http has served,
 * kept in memory (http_bundles.c) so a bundle is assembled from its 256
 * leaves once, not once a request.
 *
 * A full bundle never changes (the log only grows), so a kept copy is never
 * stale. Each worker keeps its own, up to KIXD_BUNDLE_CACHE_BYTES, evicting
 * the least recently served; partial bundles are not kept. A bundle is
 * reference counted: the cache holds one reference and every write still
 * sending it another, so an evicted bundle lives until its last write is
 * done. Loop thread only (the cache is the worker's).
 */
#ifndef KIXD_HTTP_BUNDLES_H
#define KIXD_HTTP_BUNDLES_H

#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "server.h"

/* per worker: 32 MiB hold ~180 bundles of 1 KiB entries */
#define KIXD_BUNDLE_CACHE_BYTES (32u << 20)

struct kixd_bundle {
    unsigned refs;
    uint64_t index, used;
    struct kix_buf body;
};

/* The full bundle `index` (the caller checked it is full at r's size), from
 * w's cache or assembled through r into it: a new reference, dropped with
 * kixd_bundle_unref. NULL and an error code in *rc when it cannot be read
 * (KIX_ENOMEM included). */
struct kixd_bundle *kixd_bundle_get(struct kixd_worker *w, struct kix_log_reader *r, uint64_t index,
                                    int *rc, struct kix_err *err);
void kixd_bundle_unref(struct kixd_bundle *b);

#endif
