/* daemon/front/http_pages_cache.c — the worker's pages of the last second
 * (http_pages_cache.h). */
#include "http_pages_cache.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

struct slot {
    int kind;
    char arg[KIXD_PAGE_ARG_MAX];
    size_t len;
    uint64_t page, size, born_ms;
    int json, out_json;
    uint8_t *body;
    size_t body_len;
};

struct kixd_page_cache {
    struct slot slot[KIXD_PAGE_CACHE_SLOTS];
    size_t bytes;
};

static int same_page(const struct slot *s, const struct kixd_page_key *k)
{
    return s->body && s->kind == k->kind && s->len == k->len && s->page == k->page &&
           s->json == k->json && memcmp(s->arg, k->arg, k->len) == 0;
}

static void drop(struct kixd_page_cache *c, struct slot *s)
{
    c->bytes -= s->body_len;
    free(s->body);
    s->body = NULL;
    s->body_len = 0;
}

int kixd_page_cache_get(struct kixd_worker *w, const struct kixd_page_key *k, uint64_t size,
                        struct kix_bytes *body, int *json)
{
    struct kixd_page_cache *c = w->pages;
    uint64_t now = uv_now(&w->loop);

    if (!c)
        return 0;
    for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS; i++) {
        struct slot *s = &c->slot[i];
        if (!same_page(s, k))
            continue;
        if (s->size != size || now - s->born_ms >= KIXD_PAGE_CACHE_MS) {
            drop(c, s);
            return 0;
        }
        body->ptr = s->body;
        body->len = s->body_len;
        *json = s->out_json;
        return 1;
    }
    return 0;
}

void kixd_page_cache_put(struct kixd_worker *w, const struct kixd_page_key *k, uint64_t size,
                         int json, const uint8_t *body, size_t len)
{
    struct kixd_page_cache *c = w->pages;
    uint64_t now = uv_now(&w->loop);
    struct slot *victim = NULL;
    uint8_t *copy;

    if (k->len > KIXD_PAGE_ARG_MAX || len > KIXD_PAGE_CACHE_BYTES / 4)
        return;
    if (!c && !(c = w->pages = calloc(1, sizeof(*c))))
        return;
    /* the same page's older copy, else an empty slot, else the oldest */
    for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS && !victim; i++)
        if (same_page(&c->slot[i], k))
            victim = &c->slot[i];
    for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS && !victim; i++)
        if (!c->slot[i].body)
            victim = &c->slot[i];
    for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS && !victim; i++)
        if (!victim || c->slot[i].born_ms < victim->born_ms)
            victim = &c->slot[i];
    if (victim->body)
        drop(c, victim);
    /* and the oldest others while over the byte budget */
    while (c->bytes + len > KIXD_PAGE_CACHE_BYTES) {
        struct slot *old = NULL;
        for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS; i++)
            if (c->slot[i].body && (!old || c->slot[i].born_ms < old->born_ms))
                old = &c->slot[i];
        if (!old)
            break;
        drop(c, old);
    }
    if (!(copy = malloc(len ? len : 1)))
        return;
    memcpy(copy, body, len);
    victim->kind = k->kind;
    memcpy(victim->arg, k->arg, k->len);
    victim->len = k->len;
    victim->page = k->page;
    victim->json = k->json;
    victim->out_json = json;
    victim->size = size;
    victim->born_ms = now;
    victim->body = copy;
    victim->body_len = len;
    c->bytes += len;
}

void kixd_page_cache_free(struct kixd_worker *w)
{
    if (!w->pages)
        return;
    for (size_t i = 0; i < KIXD_PAGE_CACHE_SLOTS; i++)
        free(w->pages->slot[i].body);
    free(w->pages);
    w->pages = NULL;
}
