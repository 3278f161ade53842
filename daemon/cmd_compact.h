/* daemon/cmd_compact.h — `kixd compact` (cmd_compact.c): a store's
 * index.mdb written again in key order, with kixd stopped. */
#ifndef KIXD_CMD_COMPACT_H
#define KIXD_CMD_COMPACT_H

/* Returns an exit status: 0 compacted, 1 refused (kixd serves the store)
 * or the store did not open, 2 usage, 3 I/O error. */
int kixd_compact_main(int argc, char **argv);

#endif
