/* daemon/replication/export.h — the log as a tlog-tiles directory (export.c): the
 * thread of kixd serve --export DIR, which keeps DIR current after every
 * commit, and the one-shot `kixd export`. Files are written atomically,
 * the checkpoint last, so a reader of DIR never sees a checkpoint whose
 * tiles are missing. */
#ifndef KIXD_EXPORT_H
#define KIXD_EXPORT_H

#include "server.h"

/* A thread that runs kix_log_export_tlog into dir at start and after
 * every kick (coalesced). stop runs a last export when one is due. */
int kixd_export_start(struct kixd_server *srv, const char *dir, struct kixd_export **out,
                      struct kix_err *err);
void kixd_export_kick(struct kixd_export *e); /* any thread; NULL: no-op */
void kixd_export_stop(struct kixd_export *e); /* NULL: no-op */

/* kixd export: write a store's tlog-tiles tree into a directory once.
 * argv[0] is "export". Returns an exit status. */
int kixd_export_main(int argc, char **argv);

#endif
