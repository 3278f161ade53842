/* daemon/http_bundles.c — the worker's cache of full entry bundles
 * (http_bundles.h). */
#include "http_bundles.h"

#include <stdlib.h>

#include "http.h"
#include "kix/tlog_tiles.h"

#define MAX_BUNDLES 512 /* slots; the byte budget is what bounds it */

struct kixd_bundle_cache {
    struct kixd_bundle *slot[MAX_BUNDLES];
    size_t n, bytes;
    uint64_t clock;
};

void kixd_bundle_unref(struct kixd_bundle *b)
{
    if (b && --b->refs == 0) {
        kix_buf_release(&b->body);
        free(b);
    }
}

void kixd_http_cache_free(struct kixd_worker *w)
{
    if (!w->bundles)
        return;
    for (size_t i = 0; i < w->bundles->n; i++)
        kixd_bundle_unref(w->bundles->slot[i]);
    free(w->bundles);
    w->bundles = NULL;
}

static void evict_one(struct kixd_bundle_cache *c)
{
    size_t victim = 0;

    for (size_t i = 1; i < c->n; i++)
        if (c->slot[i]->used < c->slot[victim]->used)
            victim = i;
    c->bytes -= c->slot[victim]->body.len;
    kixd_bundle_unref(c->slot[victim]);
    c->slot[victim] = c->slot[--c->n];
}

struct kixd_bundle *kixd_bundle_get(struct kixd_worker *w, struct kix_log_reader *r, uint64_t index,
                                    int *rc, struct kix_err *err)
{
    struct kixd_bundle_cache *c = w->bundles;
    struct kixd_bundle *b;

    if (!c && !(c = w->bundles = calloc(1, sizeof(*c)))) {
        *rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < c->n; i++)
        if (c->slot[i]->index == index) {
            c->slot[i]->used = ++c->clock;
            c->slot[i]->refs++;
            return c->slot[i];
        }
    b = calloc(1, sizeof(*b));
    if (!b) {
        *rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        return NULL;
    }
    b->refs = 1;
    b->index = index;
    kix_buf_init(&b->body);
    *rc = kix_log_reader_tlog_bundle(r, index, KIX_TLOG_WIDTH, &b->body, err);
    if (*rc) {
        kixd_bundle_unref(b);
        return NULL;
    }
    if (b->body.len > KIXD_BUNDLE_CACHE_BYTES / 4)
        return b; /* too big to keep: served once */
    while (c->n > 0 && (c->n == MAX_BUNDLES || c->bytes + b->body.len > KIXD_BUNDLE_CACHE_BYTES))
        evict_one(c);
    b->used = ++c->clock;
    b->refs++;
    c->slot[c->n++] = b;
    c->bytes += b->body.len;
    return b;
}
