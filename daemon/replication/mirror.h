/* daemon/replication/mirror.h — mirror mode (mirror.c).
 *
 * A mirror (kixd serve --mirror-of ADDR --upstream-key KEY) serves a replica
 * store: kix_sync on one thread of its own (never an event loop) catches
 * it up from the upstream, batch by batch, then a follow stream on the
 * upstream wakes it for each commit, and a tick every two seconds checks
 * anyway. Each round first checks that the upstream still agrees with what
 * the mirror verified (the same signed root at the mirror's size, or a
 * consistency proof from it, and a size that never goes back); a
 * disagreement is a fork: both signed checkpoints go to DIR/fork/, the
 * mirror stops following (for good: remove DIR/fork/ to start over), and
 * with --fail-on-fork kixd exits with status 4. An unreachable upstream is
 * retried with exponential backoff up to 5 s while the mirror serves what
 * it has. Readers only ever see verified batches: kix_log_replay commits an
 * upstream batch and its checkpoint in one LMDB transaction, and every read
 * is a snapshot.
 *
 * With --witness-key the mirror cosigns the latest checkpoint it verified
 * after each round, keeps the cosignature in its own store and sends it
 * upstream (add_cosignature), which witness.h describes.
 */
#ifndef KIXD_MIRROR_H
#define KIXD_MIRROR_H

#include "kix/note.h"
#include "config.h"
#include "server.h"

/* Files in a mirror's store directory: its id, kept for good (its
 * presence marks a mirror's store), and the record of its promotion to the
 * origin (cmd_promote.h), after which it is served as the origin only. */
#define KIXD_MIRROR_ID_FILE "mirror.id"
#define KIXD_PROMOTED_FILE  "promoted"

/* Before the log is opened: creates DIR as a replica of the upstream key's
 * log when it holds no store, else checks that it is a replica of that log.
 * KIX_EUSAGE for a bad key or a store of another log. */
int kixd_mirror_prepare(const struct kixd_config *cfg, struct kix_err *err);

/* Starts the mirror thread (srv->log is open). KIX_EFORK when DIR/fork/
 * holds the evidence of an earlier fork and --fail-on-fork is set. */
int kixd_mirror_start(struct kixd_server *srv, struct kixd_mirror **out, struct kix_err *err);

/* Stops and joins the thread, frees the mirror; NULL is fine. */
void kixd_mirror_stop(struct kixd_mirror *m);

struct kixd_mirror_status {
    char upstream[KIXD_ADDR_MAX];
    uint64_t upstream_size; /* as last seen */
    uint64_t lag_seconds;   /* since the mirror last knew it was in sync */
    char last_error[KIX_ERR_MSG_MAX];
    int fork;
    uint64_t fork_size;
    char fork_reason[KIX_ERR_MSG_MAX];
    char fork_evidence[512];
};

/* Any thread: a consistent copy of the mirror's state. */
void kixd_mirror_status(struct kixd_mirror *m, struct kixd_mirror_status *out);

#endif
