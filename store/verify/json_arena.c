/* A thread's arena for the jansson tree of one document (kix/json.h):
 * jansson allocates each node, member, bucket array and string copy by
 * itself and frees each again (prepare's record trees: ~100 allocations
 * and as many frees a manifest, a fifth of building the tree). Installed
 * as jansson's allocator once; a thread without an arena open gets malloc
 * and free, so every other tree is as before. */
#include <jansson.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"

struct kix__arena_block {
    struct kix__arena_block *next;
    size_t len;
    alignas(16) unsigned char bytes[];
};

#define ALIGN(n) (((n) + 15) & ~(size_t)15)

static _Thread_local struct kix_json_arena *open_arena;
static int installed;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static int within(const unsigned char *p, const unsigned char *base, size_t len)
{
    return (uintptr_t)p - (uintptr_t)base < len;
}

static int owns(const struct kix_json_arena *a, const void *p)
{
    if (within(p, a->first, sizeof(a->first)))
        return 1;
    for (const struct kix__arena_block *b = a->more; b; b = b->next)
        if (within(p, b->bytes, b->len))
            return 1;
    return 0;
}

static void *arena_malloc(size_t n)
{
    struct kix_json_arena *a = open_arena;
    struct kix__arena_block *b;
    size_t want = ALIGN(n ? n : 1), len;
    void *p;

    if (!a)
        return malloc(n);
    if ((size_t)(a->end - a->at) >= want) {
        p = a->at;
        a->at += want;
        return p;
    }
    len = want > sizeof(a->first) ? want : sizeof(a->first);
    if (!(b = malloc(sizeof(*b) + len)))
        return NULL;
    b->next = a->more;
    b->len = len;
    a->more = b;
    a->at = b->bytes + want;
    a->end = b->bytes + len;
    return b->bytes;
}

/* what the open arena holds is freed with it, all at once */
static void arena_free(void *p)
{
    if (p && !(open_arena && owns(open_arena, p)))
        free(p);
}

static void install(void)
{
    json_malloc_t m;
    json_free_t f;

    /* only over jansson's own defaults: a program that set its allocator
     * keeps it, and its trees are freed node by node as before */
    json_get_alloc_funcs(&m, &f);
    if (m == malloc && f == free) {
        json_set_alloc_funcs(arena_malloc, arena_free);
        installed = 1;
    }
}

void kix_json_arena_install(void)
{
    pthread_once(&install_once, install);
}

int kix_json_arena_open(struct kix_json_arena *a)
{
    kix_json_arena_install();
    a->at = a->first;
    a->end = a->first + sizeof(a->first);
    a->more = NULL;
    if (!installed || open_arena)
        return 0;
    open_arena = a;
    return 1;
}

void kix_json_arena_stop(struct kix_json_arena *a)
{
    if (open_arena == a)
        open_arena = NULL;
}

void kix_json_arena_release(struct kix_json_arena *a)
{
    kix_json_arena_stop(a);
    while (a->more) {
        struct kix__arena_block *b = a->more;
        a->more = b->next;
        free(b);
    }
}
