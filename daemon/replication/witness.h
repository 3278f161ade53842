/* daemon/replication/witness.h — witness cosignatures over RPC (witness.c): the keys a
 * server accepts cosignatures from (--witness KEY) and the add_cosignature
 * method, verified and stored on the thread pool
 * (kix_log_add_cosignature), then served with the checkpoints. Also the
 * one reader of a verifier key given on the command line, as its text or
 * a file holding it. The C2SP witness protocol is tlog_witness.h's. */
#ifndef KIXD_WITNESS_H
#define KIXD_WITNESS_H

#include "conn.h"
#include "kix/note.h"
#include "server.h"

/* A verifier key given as its text or as a file holding it (the file's
 * reader's or the parser's error otherwise). */
int kixd_read_verifier(const char *given, struct kix_verifier *out, struct kix_err *err);

/* Parses --witness keys into srv->witnesses (cosignature keys only; the
 * server frees them at exit). */
int kixd_witnesses_load(struct kixd_server *srv, struct kix_err *err);

/* Loop thread: verifies and stores a cosignature on the thread pool, then
 * answers request msgid on c. KIX_OK: the answer comes later; otherwise
 * nothing was started and err says why. */
int kixd_witness_add(struct kixd_conn *c, uint32_t msgid, const struct kix_bytes *checkpoint,
                     const struct kix_bytes *line, struct kix_err *err);

#endif
