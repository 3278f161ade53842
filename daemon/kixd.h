/* daemon/kixd.h — entry points of kixd's subcommands (not a library API). */
#ifndef KIXD_H
#define KIXD_H

/* kixd init: create a store, its log key and entry 0. Returns an exit status. */
int kixd_init_main(int argc, char **argv);

#endif
