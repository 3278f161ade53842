/* daemon/harden.h — what kixd checks before it trusts its store and its
 * process: `kixd check` and the start-up check (check.c), file descriptor
 * limits (limits.c). Not a library API; main.c and server.c call these. */
#ifndef KIXD_HARDEN_H
#define KIXD_HARDEN_H

#include "kix/index.h"
#include "kixd.h"

/* kixd check: the full offline check of a store. Returns an exit status:
 * 0 nothing wrong, 1 problems found (each printed), 2 usage, 3 the store
 * cannot be read. */
int kixd_check_main(int argc, char **argv);

/* kixd serve, before listening: the quick check (kix_log_check, quick
 * mode) of the opened log. Logs each problem and, when there is one,
 * returns KIX_ECORRUPT with err saying to run kixd check; KIX_OK when the
 * store may be served. */
int kixd_check_at_start(struct kix_log *log, const char *store, struct kix_err *err);

/* Raises the soft open-files limit to the hard one and warns when it
 * cannot hold cfg->max_connections connections. */
void kixd_raise_fd_limit(const struct kixd_config *cfg);

#endif
