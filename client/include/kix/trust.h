/* kix/trust.h — what this client remembers about each log it verified.
 *
 * Per log (origin and key), kix keeps the newest checkpoint it verified, in
 * $XDG_STATE_HOME/kix/logs/<origin>+<keyhash>/checkpoint (default
 * ~/.local/state),
 * written atomically. Every later contact must prove consistency with it:
 * a newer checkpoint needs a valid consistency proof from the server, an
 * equal size needs the same root, and a smaller size means the log was
 * rolled back. An inconsistency is KIX_EFORK: both signed checkpoints are
 * kept as evidence in .../<origin>/evidence/ and the message says where.
 * KIX_STATE_DIR overrides the state directory (tests).
 */
#ifndef KIX_TRUST_H
#define KIX_TRUST_H

#include "kix/client.h"
#include "kix/note.h"

/* The state directory of a log (created on demand). */
int kix_trust_dir(const struct kix_verifier *key, char *out, size_t cap,
                  struct kix_err *err) KIX_MUST_CHECK;

/* Verifies `note` (a signed checkpoint from `c`) against key, checks it is
 * consistent with the remembered one (fetching a consistency proof from c
 * when it is newer), and remembers it when it is newer. cp_out (may be
 * NULL) gets the parsed checkpoint (its extensions view points into note). */
int kix_trust_check(struct kix_client *c, const struct kix_verifier *key, const char *note,
                    size_t len, struct kix_checkpoint *cp_out, struct kix_err *err) KIX_MUST_CHECK;

/* Fetches the latest checkpoint from c and kix_trust_check()s it; the note
 * is appended to `note`. */
int kix_trust_latest(struct kix_client *c, const struct kix_verifier *key, struct kix_buf *note,
                     struct kix_checkpoint *cp_out, struct kix_err *err) KIX_MUST_CHECK;

/* Writes data to path atomically (temp file, fsync, rename, fsync dir). */
int kix_write_file_atomic(const char *path, const void *data, size_t len, int mode,
                          struct kix_err *err) KIX_MUST_CHECK;

#endif
