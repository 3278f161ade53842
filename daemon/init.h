/* daemon/init.h — `kixd init` (init.c): creates a store, its log key and
 * entry 0. Prints the log's verifier key; never the private key. */
#ifndef KIXD_INIT_H
#define KIXD_INIT_H

/* kixd init: argv[0] is "init". Returns an exit status. */
int kixd_init_main(int argc, char **argv);

#endif
