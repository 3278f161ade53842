/* daemon/replication/tlog_witness.h — c2sp.org/tlog-witness in kixd, the witness's
 * side (tlog_witness.c); witness_client.h is the log's side.
 *
 * The witness: a kixd started with --witness-key answers
 * POST /add-checkpoint on its HTTP listeners for the logs it witnesses: a
 * mirror's upstream (its --upstream-key) and every --witness-log, each known
 * only by origin and verifier key, kix or not. Per origin it keeps the
 * latest checkpoint it cosigned in DIR/witness/<hex SHA-256 of the origin>
 * (the signed note as received, written atomically and fsynced before the
 * answer). One mutex orders every check-and-update, so two requests can
 * never both move the state, and the witness never cosigns two different
 * checkpoints of one size: a new checkpoint must be consistent with the one
 * stored (same size: same root). A mirror's own cosignatures (mirror.c)
 * go through the same state.
 *
 * Memory: the handle is heap-allocated by _open and freed by _close (NULL
 * is fine). Errors: KIX_EUSAGE for bad configuration, KIX_EIO / KIX_ENOMEM
 * otherwise; messages say which option or file.
 */
#ifndef KIXD_TLOG_WITNESS_H
#define KIXD_TLOG_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/log.h"
#include "kix/note.h"
#include "config.h"

/* The most bytes of one add-checkpoint request body (old size line, up to
 * 63 proof lines and a checkpoint note with its signatures). More: 413. */
#define KIXD_WITNESS_MAX_BODY (64u * 1024u)

struct kixd_tlogw;

/* Opens the witness side, before the log is opened: the signing key
 * (cfg->witness_key) and the logs it witnesses (cfg->witness_logs, and
 * `upstream` when not NULL: a mirror's upstream). KIX_EUSAGE for a bad key.
 * DIR/witness/ is made when the first state is stored. */
int kixd_tlogw_open(const struct kixd_config *cfg, const struct kix_verifier *upstream,
                    struct kixd_tlogw **out, struct kix_err *err);
void kixd_tlogw_close(struct kixd_tlogw *t);

/* Any thread: one add-checkpoint request. Returns the HTTP status (200,
 * 400, 403, 404, 409, 422 or 500); the body goes to out (its content type
 * in *type: the cosignature lines, the witness's size for 409, or a line
 * saying what was wrong), and the state is stored before 200 is returned. */
unsigned kixd_tlogw_add_checkpoint(struct kixd_tlogw *t, const char *body, size_t len,
                                   struct kix_buf *out, const char **type);

/* Any thread: GET /<hex>/checkpoint (the spec's monitoring path), hex the
 * 64 lowercase hex of SHA-256 of an origin: the latest checkpoint cosigned
 * for it, with the log's signatures and this witness's cosignature,
 * appended to out. KIX_ENOTFOUND when it never cosigned that origin. */
int kixd_tlogw_monitor(struct kixd_tlogw *t, const char *hex, struct kix_buf *out,
                       struct kix_err *err);

/* Mirror thread: cosigns `note`, a checkpoint of the replica `r` verified
 * by replay, through the witness state of its origin: the state must be a
 * prefix of the replica (else KIX_EFORK: the witness cosigned something the
 * upstream's entries contradict), and a state already past the note's size
 * is KIX_EEXIST (nothing cosigned). The cosignature line is appended. */
int kixd_tlogw_cosign_verified(struct kixd_tlogw *t, struct kix_log_reader *r, const char *note,
                               size_t len, struct kix_buf *line, struct kix_err *err);

/* Mirror thread: the replica found `origin` inconsistent at `size` (its
 * entries, or its index note, contradict what it signed: `reason`). From
 * then on neither route cosigns any checkpoint of that origin:
 * add-checkpoint answers 422 with the reason, _cosign_verified KIX_EFORK. */
void kixd_tlogw_refuse(struct kixd_tlogw *t, const char *origin, uint64_t size, const char *reason);

#endif
