/* daemon/base/peers.h — the origin's look at its peers before it signs
 * (peers.c): a restored store must not sign again at sizes a mirror of the
 * log already holds (OPERATING.md, "Restore"). */
#ifndef KIXD_PEERS_H
#define KIXD_PEERS_H

#include "config.h"
#include "kix/log.h"

/* Asks each --peer for its latest checkpoint of this log (verified with
 * the log key). KIX_EFORK when one holds a larger size than the store
 * (the store is behind: catch up first) or another root at a size the
 * store has; a peer that cannot be asked is logged and passed over (an
 * origin does not wait for its mirrors to start). KIX_OK otherwise. */
int kixd_peers_check(const struct kixd_config *cfg, struct kix_log *log, struct kix_err *err);

#endif
