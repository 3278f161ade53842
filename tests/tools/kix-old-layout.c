/* kix-old-layout DIR 2|3: the closed store at DIR made into what a kixd of
 * that layout wrote (tests/fixture.h's as_layout_2 and as_layout_3: layout
 * 4's log.dat back in data.mdb, and for 2 the index environment's tables
 * back in data.mdb too), for the shell tests of kixd migrate and of kixd
 * serve converting on start (test_store_migrate_lost_index.sh), which
 * need no build of an older kixd that way. Not installed; not for users. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"

int main(int argc, char **argv)
{
    (void)kix_test_cases;
    (void)kix_test_ncases;
    (void)kix_test_failed;
    if (argc != 3 || (strcmp(argv[2], "2") != 0 && strcmp(argv[2], "3") != 0)) {
        fprintf(stderr, "usage: kix-old-layout DIR 2|3\n");
        return 2;
    }
    /* each aborts on an LMDB error: the test sees the exit status */
    if (strcmp(argv[2], "3") == 0)
        as_layout_3(argv[1]);
    else
        as_layout_2(argv[1]);
    return 0;
}
