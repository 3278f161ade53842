/* daemon/cmd_check.h — what kixd checks before it trusts its store
 * (cmd_check.c): the `kixd check` command (the full offline check of a
 * store) and the quick check kixd serve runs before it listens. Both call
 * the log's own check (kix_log_check); this file only drives and reports
 * it. */
#ifndef KIXD_CMD_CHECK_H
#define KIXD_CMD_CHECK_H

#include "kix/index.h"

/* kixd check: the full offline check of a store. Returns an exit status:
 * 0 nothing wrong, 1 problems found (each printed), 2 usage, 3 the store
 * cannot be read. */
int kixd_check_main(int argc, char **argv);

/* kixd serve, before listening: the quick check (kix_log_check, quick
 * mode) of the opened log. Logs each problem and, when there is one,
 * returns KIX_ECORRUPT with err saying to run kixd check; KIX_OK when the
 * store may be served. */
int kixd_check_at_start(struct kix_log *log, const char *store, struct kix_err *err);

#endif
