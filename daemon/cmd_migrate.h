/* daemon/cmd_migrate.h — `kixd migrate` (cmd_migrate.c): a store written
 * in an older layout (kix/store.h, KIX_STORE_LAYOUT) or index format is
 * backed up, converted in place and checked, with kixd stopped. */
#ifndef KIXD_CMD_MIGRATE_H
#define KIXD_CMD_MIGRATE_H

#include <stddef.h>

#include "kix/error.h"

/* Returns an exit status: 0 converted and checked (or already current),
 * 1 refused or the converted store failed its check, 2 usage, 3 I/O error. */
int kixd_migrate_main(int argc, char **argv);
/* The layout and index format (kix_log_index_format) of the store as it
 * is, read without writing. */
int kixd_store_look(const char *store, int *layout, char *index, size_t cap, struct kix_err *err);
/* Whether a store of that layout and index format (as kixd_store_look
 * read them; "" for a log without an index format) needs no kixd migrate. */
int kixd_store_current(int layout, const char *index);

/* What kixd_migrate_prepare found and did. */
struct kixd_migrate_plan {
    int converted; /* the store is not current: a writable open converts it */
    int layout_before;
    char index_before[64];
    char backup[4200];                    /* the copy made (tried, on an error), or "" */
    char index_left_out[KIX_ERR_MSG_MAX]; /* why index.mdb is not in it, or "" */
};

/* Before a writable open converts STORE in place (kix_log_open converts an
 * older layout or index format): when it is not current and no_backup is
 * 0, a compacted copy of it as it is to DEST (NULL: STORE.before-migrate),
 * which must not exist (KIX_EEXIST). The caller holds the store's lock
 * (kixd_store_lock), so that no kixd converts it meanwhile. */
int kixd_migrate_prepare(const char *store, const char *dest, int no_backup,
                         struct kixd_migrate_plan *p, struct kix_err *err);

#endif
