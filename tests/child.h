/* tests/child.h — run a function in a forked child and read what it said
 * on stderr: for tests whose case must end the process (an assertion, a
 * sanitizer's report). Static inline, one copy per test. */
#ifndef KIX_TEST_CHILD_H
#define KIX_TEST_CHILD_H

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child with its stderr captured into out (what fits, always
 * NUL-terminated); returns its wait status, -1 when it could not start. */
static inline int kix_test_in_child(void (*fn)(void), char *out, size_t cap)
{
    int fds[2], status = -1;
    size_t len = 0;
    ssize_t got;
    char skip[4096];
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        fn();
        _exit(0); /* no leak check: what the child made is the test's */
    }
    close(fds[1]);
    /* read to the end, keeping what fits, so the child never blocks */
    while ((got = read(fds[0], len + 1 < cap ? out + len : skip,
                       len + 1 < cap ? cap - 1 - len : sizeof(skip))) > 0)
        if (len + 1 < cap)
            len += (size_t)got;
    out[len] = '\0';
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    return status;
}

#endif
