/* A thread's arena for the jansson tree of one document (kix/json.h):
 * jansson allocates each node, member, bucket array and string copy by
 * itself and frees each again (prepare's record trees: ~100 allocations
 * and as many frees a manifest, a fifth of building the tree). Installed
 * as jansson's allocator once; a thread without an arena open gets malloc
 * and free, so every other tree is as before. */
#include <jansson.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"

/* Under ASan the arena's bytes are poisoned but for what it has handed out
 * and not yet released: a value read after the release, or past its end,
 * is reported (use-after-poison) as it would be in memory from malloc.
 * The blocks after the first are freed by the release, which ASan sees. */
#if defined(__SANITIZE_ADDRESS__)
#define KIX__ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KIX__ARENA_ASAN 1
#endif
#endif
#if defined(KIX__ARENA_ASAN) && !defined(__GNUC__)
#undef KIX__ARENA_ASAN /* no KIX_JSON_ARENA_SCOPED (kix/json.h) to lift it */
#endif
#ifdef KIX__ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct kix__arena_block {
    struct kix__arena_block *next;
    size_t len;
    alignas(16) unsigned char bytes[];
};

/* a piece starts a multiple of 16 into its block (first: 16-aligned; a
 * malloc'ed one: 16 past malloc's max_align_t-aligned address), so it is
 * aligned as jansson's values need and starts one of ASan's 8-byte
 * granules: the poison on one piece's tail never reaches the next */
#define ALIGN(n) (((n) + 15) & ~(size_t)15)
_Static_assert(16 % alignof(max_align_t) == 0, "arena pieces are max_align_t-aligned");

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
        UNPOISON(p, n);
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
    POISON(b->bytes, len);
    UNPOISON(b->bytes, n);
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
    POISON(a->first, sizeof(a->first)); /* nothing of it handed out yet */
    open_arena = a;
    return 1;
}

void kix_json_arena_stop(struct kix_json_arena *a)
{
    if (open_arena == a)
        open_arena = NULL;
}

/* The first block stays poisoned after this, its values gone, until
 * kix_json_arena_end: the arena's owner says when its memory is put to
 * other use (the frame that holds it returns). */
void kix_json_arena_release(struct kix_json_arena *a)
{
    kix_json_arena_stop(a);
    POISON(a->first, sizeof(a->first));
    while (a->more) {
        struct kix__arena_block *b = a->more;
        a->more = b->next;
        free(b);
    }
}

/* Reads nothing of the arena (it may never have been opened): only its
 * first block's poison, which the compiler's code for a returning frame
 * does not lift (GCC's), is lifted, for whatever uses the bytes next. */
void kix_json_arena_end(struct kix_json_arena *a)
{
    UNPOISON(a->first, sizeof(a->first));
}
