/* What ASan sees of the JSON arena (kix/json.h): its bytes are poisoned but
 * for the values it has handed out, so a value read after the release, or
 * past its end, is reported as it would be in malloc'ed memory; and an arena
 * on the stack leaves no poison behind once its scope ends. Each case runs
 * in a child (ASan's report ends the process) and reads what it said; built
 * without ASan the cases skip, since nothing poisons there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "harness.h"
#include "kix/json.h"

#if defined(__SANITIZE_ADDRESS__)
#define WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WITH_ASAN 1
#endif
#endif
#ifndef WITH_ASAN
#define WITH_ASAN 0
#endif

static const char doc[] = "{\"a\":[1,2.5,\"xyz\"],\"b\":{\"c\":null}}";

/* The child must have died of ASan's report of a poisoned read. */
static void expect_poisoned_read(void (*fn)(void))
{
    static char said[16384];
    int status = kix_test_in_child(fn, said, sizeof(said));

    ASSERT_TRUE(status != -1);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        KIX_FAIL_AT("the child's read was not reported; it said: %s", said);
    ASSERT_CONTAINS(said, "ERROR: AddressSanitizer: use-after-poison");
}

/* The tree prepare makes of a record, built in arena (the caller's, on
 * its frame) and released as prepare does; the child exits when it cannot
 * be built. Returns the tree, which the release has dropped. */
static json_t *tree_made_and_released(struct kix_json_arena *arena)
{
    struct kix_err err = {0};
    json_t *tree = NULL;
    int canonical = 0, rc;

    if (kix_json_arena_open(arena) != 1)
        _exit(3);
    rc = kix_canon_recognise_tree((const uint8_t *)doc, strlen(doc), NULL, &canonical, &tree, &err);
    kix_json_arena_stop(arena);
    if (rc != KIX_OK || !canonical || !tree)
        _exit(4);
    kix_json_arena_release(arena);
    return tree;
}

/* The first key's name and the tree, read after the release. */
static void read_after_release(void)
{
    struct kix_json_arena arena KIX_JSON_ARENA_SCOPED;
    json_t *tree = tree_made_and_released(&arena);
    volatile int type;

    type = json_typeof(tree); /* the arena's first bytes: gone */
    (void)type;
}

KIX_TEST(a_value_read_after_the_release_is_caught)
{
    if (!WITH_ASAN)
        KIX_SKIP("not built with ASan: nothing poisons the arena's bytes");
    expect_poisoned_read(read_after_release);
}

/* A string made in the arena ("xyz", 4 bytes with its NUL, in a piece of
 * 16), read one byte past its NUL while the arena is still open. */
static void read_past_a_value(void)
{
    struct kix_json_arena arena KIX_JSON_ARENA_SCOPED;
    json_t *s;
    const char *text;
    volatile char past;

    if (kix_json_arena_open(&arena) != 1)
        _exit(3);
    s = json_string("xyz");
    kix_json_arena_stop(&arena);
    if (!s || !(text = json_string_value(s)) || strcmp(text, "xyz") != 0)
        _exit(4);
    past = text[5];
    (void)past;
    kix_json_arena_release(&arena);
}

KIX_TEST(a_read_past_an_arena_value_is_caught)
{
    if (!WITH_ASAN)
        KIX_SKIP("not built with ASan: nothing poisons the arena's bytes");
    expect_poisoned_read(read_past_a_value);
}

/* An arena on this frame, used and released as prepare does: the release
 * poisons its 16 KiB, and KIX_JSON_ARENA_SCOPED must lift that as the frame
 * returns, or the next frame at this depth that uses those bytes through
 * ASan's checks (memset here; a read() into a buffer there) is reported. */
static __attribute__((noinline)) void use_an_arena_on_the_stack(void)
{
    struct kix_json_arena arena KIX_JSON_ARENA_SCOPED;

    (void)tree_made_and_released(&arena);
}

static __attribute__((noinline)) void use_the_stack_below(void)
{
    unsigned char bytes[4 * sizeof(struct kix_json_arena)];

    memset(bytes, 0x5a, sizeof(bytes));
    __asm__ volatile("" : : "r"(bytes) : "memory"); /* the memset is kept */
}

static void arena_then_stack(void)
{
    use_an_arena_on_the_stack();
    use_the_stack_below();
}

KIX_TEST(an_arena_on_the_stack_leaves_no_poison_when_its_frame_returns)
{
    static char said[16384];
    int status;

    if (!WITH_ASAN)
        KIX_SKIP("not built with ASan: nothing poisons the arena's bytes");
    status = kix_test_in_child(arena_then_stack, said, sizeof(said));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        KIX_FAIL_AT("the child failed (status %d); it said: %s", status, said);
    ASSERT_TRUE(strstr(said, "AddressSanitizer") == NULL);
}

KIX_TEST_MAIN()
