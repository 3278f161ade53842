/* KIX_ASSERT (kix/assert.h): a broken invariant stops the process with a
 * message naming it and its place, in every build (NDEBUG or not), before
 * anything more is written; one that holds costs nothing and says nothing.
 * Each case runs in a child process and reads what the child said. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "harness.h"
#include "kix/assert.h"

static void expect_abort(void (*fn)(void), const char *expr)
{
    static char said[8192];
    int status = kix_test_in_child(fn, said, sizeof(said));

    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
        fprintf(stderr, "child did not abort (status %d); it said: %s\n", status, said);
        exit(1);
    }
    if (!strstr(said, "kix: invariant broken: ") || !strstr(said, expr)) {
        fprintf(stderr, "child's message lacks '%s': %s\n", expr, said);
        exit(1);
    }
}

static void holds(void)
{
    volatile size_t accepted = 2, n = 2;
    KIX_ASSERT(accepted <= n);
}

static void broken_count(void)
{
    volatile size_t accepted = 3, n = 2;
    KIX_ASSERT(accepted <= n);
}

KIX_TEST(holds_when_true)
{
    char said[4096];
    int status = kix_test_in_child(holds, said, sizeof(said));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_EQ_STR("", said);
}

KIX_TEST(message_names_expression_and_place)
{
    expect_abort(broken_count, "accepted <= n");
    {
        char said[4096];
        kix_test_in_child(broken_count, said, sizeof(said));
        ASSERT_CONTAINS(said, "test_invariants.c:");
        ASSERT_CONTAINS(said, "in broken_count");
        ASSERT_CONTAINS(said, "kixd check");
    }
}

KIX_TEST_MAIN()
