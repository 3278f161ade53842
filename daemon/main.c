/* kixd — the kix log server. (The server proper arrives with the daemon issue.) */
#include <stdio.h>
#include <string.h>

#include "kixd.h"

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "init") == 0)
        return kixd_init_main(argc - 1, argv + 1);
    fprintf(stderr, "usage: kixd init --store DIR --origin ORIGIN [--admin-pub FILE]\n");
    return 2;
}
