/* Invariants broken: say where, then stop before anything is committed. */
#include "kix/assert.h"

#include <stdio.h>
#include <stdlib.h>

void kix__assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fprintf(stderr,
            "kix: invariant broken: %s (%s:%d, in %s); stopping before the write in progress "
            "commits. Run kixd check --store DIR, and report this with its output.\n",
            expr, file, line, func);
    fflush(stderr);
    abort();
}
