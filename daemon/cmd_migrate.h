/* daemon/cmd_migrate.h — `kixd migrate` (cmd_migrate.c): a store written
 * in an older layout (kix/store.h, KIX_STORE_LAYOUT) or index format is
 * backed up, converted in place and checked, with kixd stopped. */
#ifndef KIXD_CMD_MIGRATE_H
#define KIXD_CMD_MIGRATE_H

/* Returns an exit status: 0 converted and checked (or already current),
 * 1 refused or the converted store failed its check, 2 usage, 3 I/O error. */
int kixd_migrate_main(int argc, char **argv);

#include <stddef.h>

struct kix_err;
/* The layout and index format (kix_log_index_format) of the store as it
 * is, read without writing. */
int kixd_store_look(const char *store, int *layout, char *index, size_t cap, struct kix_err *err);
/* Whether a store of that layout and index format (as kixd_store_look
 * read them; "" for a log without an index format) needs no kixd migrate. */
int kixd_store_current(int layout, const char *index);

#endif
