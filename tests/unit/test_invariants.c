/* KIX_ASSERT (kix/assert.h): a broken invariant stops the process with a
 * message naming it, in every build, before anything more is written. Each
 * case breaks one in a child process and reads what the child said. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../store/log/tile_cache.h"
#include "harness.h"
#include "kix/assert.h"
#include "kix/merkle.h"

#define FULL_TILE (2u + KIX_HASH_LEN * (2u * KIX_TILE_WIDTH - 2u))

/* Runs fn in a child with stderr captured into out; returns its wait status. */
static int in_child(void (*fn)(void), char *out, size_t cap)
{
    int fds[2], status = 0;
    size_t len = 0;
    ssize_t got;
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    while (len + 1 < cap && (got = read(fds[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return status;
}

static void expect_abort(void (*fn)(void), const char *expr)
{
    static char said[8192];
    int status = in_child(fn, said, sizeof(said));

    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
        fprintf(stderr, "child did not abort (status %d); it said: %s\n", status, said);
        exit(1);
    }
    if (!strstr(said, "kix: invariant broken: ") || !strstr(said, expr)) {
        fprintf(stderr, "child's message lacks '%s': %s\n", expr, said);
        exit(1);
    }
}

static void full_tile(uint8_t *t, uint8_t fill)
{
    memset(t, fill, FULL_TILE);
    t[0] = KIX_TILE_WIDTH >> 8;
    t[1] = KIX_TILE_WIDTH & 0xff;
}

static void cache_two_tiles_one_place(void)
{
    struct kix__tile_cache *c = kix__tile_cache_new();
    static uint8_t a[FULL_TILE], b[FULL_TILE];

    full_tile(a, 1);
    full_tile(b, 2);
    kix__tile_cache_offer(c, 1, 3, a, FULL_TILE);
    kix__tile_cache_offer(c, 1, 3, b, FULL_TILE); /* a full tile never changes */
    kix__tile_cache_free(c);
}

static void cache_same_tile_twice(void)
{
    struct kix__tile_cache *c = kix__tile_cache_new();
    static uint8_t a[FULL_TILE], b[FULL_TILE];
    struct kix_bytes got;

    full_tile(a, 7);
    full_tile(b, 7);
    kix__tile_cache_offer(c, 2, 0, a, FULL_TILE);
    kix__tile_cache_offer(c, 2, 0, b, FULL_TILE);
    if (!kix__tile_cache_get(c, 2, 0, &got) || got.len != FULL_TILE ||
        memcmp(got.ptr, a, FULL_TILE) != 0)
        _exit(3);
    kix__tile_cache_free(c);
}

static void broken_count(void)
{
    volatile size_t accepted = 3, n = 2;
    KIX_ASSERT(accepted <= n);
}

KIX_TEST(tile_cache_refuses_a_changed_full_tile)
{
    expect_abort(cache_two_tiles_one_place, "memcmp(none, copy, FULL_TILE) == 0");
}

KIX_TEST(tile_cache_takes_the_same_tile_again)
{
    char said[4096];
    int status = in_child(cache_same_tile_twice, said, sizeof(said));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

KIX_TEST(message_names_expression_and_place)
{
    expect_abort(broken_count, "accepted <= n");
    {
        char said[4096];
        in_child(broken_count, said, sizeof(said));
        ASSERT_CONTAINS(said, "test_invariants.c:");
        ASSERT_CONTAINS(said, "in broken_count");
        ASSERT_CONTAINS(said, "kixd check");
    }
}

KIX_TEST_MAIN()
