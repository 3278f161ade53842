/* daemon/replication/replicas.h — --ack-replicas N (replicas.c): which tree size each
 * mirror that follows this origin holds durably, the submits whose answers
 * wait until N of them hold their entries, and the readers' view.
 *
 * A mirror sends "replicated" {size, root, mirror, held?} on its follow
 * stream after each round (mirror.c, proto/PROTOCOL.md §2.13.1). The
 * origin checks the root against its own tree at that size and keeps, per
 * mirror id, the largest size reported. With --ack-mirror-key, a report
 * counts only when its held statement (kix_mirror_held_sign, never a
 * witness cosignature: a witness cosigns checkpoints it does not hold) of
 * this log's checkpoint at that size verifies against one of those keys,
 * and the key is the mirror's id. The quorum is the N-th largest of these:
 * every entry below it is held by N distinct mirrors. It never goes down:
 * what a mirror holds durably it still holds when it disconnects.
 *
 * The view is a snapshot at exactly the largest commit the quorum covers
 * (the writer keeps one of each commit until then), and readers' answers
 * are read from it. A committed submit whose entries reach past the view
 * is held on its worker's list until the view covers them, then answered
 * with receipts at the view's size; after --ack-timeout (or when kixd
 * stops first) it is answered EUNAVAIL instead. Never a receipt, nor
 * anything a reader can pin, that N mirrors do not back.
 *
 * Threads: the table is under its own mutex (any worker reports to it),
 * the view and the kept snapshots under view_mu; held jobs belong to their
 * worker's loop thread.
 */
#ifndef KIXD_REPLICAS_H
#define KIXD_REPLICAS_H

#include <stdint.h>

#include "kix/messages.h"
#include "server.h"
#include "writer.h"

struct kixd_replicas;

/* Loads the --ack-mirror-keys (KIX_EUSAGE for a key that is not a witness
 * key) and warns when --ack-replicas counts unauthenticated reports. */
int kixd_replicas_new(const struct kixd_config *cfg, struct kixd_replicas **out,
                      struct kix_err *err) KIX_MUST_CHECK;
void kixd_replicas_free(struct kixd_replicas *rs); /* NULL is fine */

/* Any thread: the size N mirrors hold (0 when fewer than N reported). */
uint64_t kixd_replicas_quorum(struct kixd_server *srv);

/* Any thread: into *size, the latest size a reader is given (a reader's
 * follow stream, HTTP /checkpoint, a consistency proof's default) when the
 * log holds `committed`: without --ack-replicas (or on a mirror)
 * `committed`, else the view's size (never more than `committed`), so that
 * no reader remembers a checkpoint a promoted mirror would not extend.
 * KIX_EUNAVAIL while the mirrors hold nothing yet (the message for people
 * in err, which may be NULL). */
int kixd_replicas_reader_size(struct kixd_server *srv, uint64_t committed, uint64_t *size,
                              struct kix_err *err);

/* The readers' view (issue 42): with --ack-replicas, every answer a
 * reader may remember (info, checkpoints, proofs, receipts, resolve,
 * index_proof, query, a reader's follow stream, the HTTP checkpoint,
 * tiles, files and pages) is read from a snapshot of the log at exactly
 * the `visible` size: the largest commit that N mirrors hold, so that no
 * reader pins an entry a promotion could lose. Submits' receipts are at
 * that size too. What mirrors replicate from (get_entries, checkpoints,
 * get_object(s), consistency proofs to an explicit size, a replica's
 * follow stream) stays at the committed size. */

/* Any thread: the visible size (0 without --ack-replicas, or before N
 * mirrors hold anything). */
uint64_t kixd_replicas_visible(struct kixd_server *srv);

/* Writer thread, right after a commit at `size`: keeps a snapshot of it
 * for the view (the quorum reaches it later). */
void kixd_replicas_committed(struct kixd_server *srv, uint64_t size);

/* Any thread: into *out, the snapshot a reader's answer is read from:
 * `own` when the view is off or `own` is at the visible size, else the
 * server's view, locked (*locked = 1) until kixd_replicas_view_end: read
 * it and let go, within the callback. `own` must not be older than the
 * visible size (kixd_worker_view sees to that). KIX_EUNAVAIL before N
 * mirrors hold any checkpoint. */
int kixd_replicas_view(struct kixd_server *srv, struct kix_log_reader *own,
                       struct kix_log_reader **out, int *locked,
                       struct kix_err *err) KIX_MUST_CHECK;
void kixd_replicas_view_end(struct kixd_server *srv, int locked);
/* Export thread: 0 without --ack-replicas (export the log as committed);
 * else 1, and *out a snapshot at exactly the visible size, the caller's to
 * read and end, or NULL when there is none to export now (the view's
 * advance kicks the exporter again). */
int kixd_replicas_export_snapshot(struct kixd_server *srv, struct kix_log_reader **out);
/* Loop thread: kixd_replicas_view of the worker's snapshot (renewed when
 * older than the view). */
int kixd_worker_view(struct kixd_worker *w, struct kix_log_reader **out, int *locked,
                     struct kix_err *err) KIX_MUST_CHECK;

/* Loop thread: records a mirror's report, checked against the log at r:
 * KIX_EINVAL for a size beyond the log, KIX_EVERIFY for another root at
 * that size (a mirror of another log, or forked) or, with
 * --ack-mirror-key, a cosignature no such key made over this log's
 * checkpoint at that size, KIX_EPOLICY for no cosignature, KIX_ELIMIT past
 * KIXD_MAX_REPLICAS mirrors. *quorum gets the quorum after it. Wakes every
 * worker when the quorum grew. */
int kixd_replicas_report(struct kixd_server *srv, struct kix_log_reader *r,
                         const struct kix_msg_replicated_params *p, uint64_t *quorum,
                         struct kix_err *err);

/* Loop thread, for a committed job: 1 when it was held (it is answered
 * later by kixd_replicas_release), 0 when it may be answered now (its
 * receipt size is then set). */
int kixd_replicas_hold(struct kixd_worker *w, struct kixd_submit *job);

/* Loop thread: answers and frees the worker's held jobs that the quorum
 * now covers, and refuses (EUNAVAIL) those past their deadline, or all
 * that are left when `stopping`. */
void kixd_replicas_release(struct kixd_worker *w, int stopping);

#endif
