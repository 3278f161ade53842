/* kix/tlog_tiles.h — the log as a C2SP tlog-tiles tree (c2sp.org/tlog-tiles):
 * the bytes of each resource read from a snapshot, and a static export of
 * the whole read side into a directory that any web server can serve.
 *
 * The log already keeps its tree in tiles of height 8 (kix/merkle.h); the
 * bottom row of stored tile (L, N) is the C2SP tile tile/L/N, so tiles are
 * copied out, never recomputed. An entry bundle holds the leaves (the
 * canonical DSSE envelopes, at most KIX_LEAF_MAX = 65535 bytes each) with a
 * 2-byte big-endian length before each. The checkpoint is the log's signed
 * note (c2sp.org/tlog-checkpoint) with the cosignatures stored for it.
 *
 * A partial tile or bundle can be read at any width up to the one the
 * snapshot's size gives (a narrower one is what an older checkpoint named:
 * its hashes never change). Paths are in kix/tlog_path.h.
 *
 * Memory: output is appended to a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such resource at this size), KIX_ECORRUPT (a
 * stored tile or leaf does not have the shape the size implies), KIX_EIO,
 * KIX_ENOMEM; the export also KIX_EIO for the directory (the message names
 * the file).
 */
#ifndef KIX_TLOG_TILES_H
#define KIX_TLOG_TILES_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/log.h"
#include "kix/tlog_path.h"

/* Appends the resource *p (kix/tlog_path.h) as of snapshot r to out:
 * checkpoint, tile or entry bundle. */
KIX_API int kix_log_reader_tlog(struct kix_log_reader *r, const struct kix_tlog_path *p,
                                struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* Appends the first `width` (1..256) hashes of tile (level, index). */
KIX_API int kix_log_reader_tlog_tile(struct kix_log_reader *r, uint32_t level, uint64_t index,
                                     unsigned width, struct kix_buf *out,
                                     struct kix_err *err) KIX_MUST_CHECK;

/* Appends the entry bundle of entries 256·index .. 256·index + width - 1. */
KIX_API int kix_log_reader_tlog_bundle(struct kix_log_reader *r, uint64_t index, unsigned width,
                                       struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* Appends the object pack of full entry bundle `index` (kix/object_pack.h):
 * for each of its 256 entries in order, each object the entry needs after
 * every object that one references, each object once, and none the log
 * does not hold. KIX_ENOTFOUND when the bundle is not full at r's size,
 * KIX_ELIMIT when the pack would be over KIX_OBJECT_PACK_MAX (out is then
 * left as it was, as on any error). */
KIX_API int kix_log_reader_object_pack(struct kix_log_reader *r, uint64_t index,
                                       struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

struct kix_tlog_export_stats {
    uint64_t from_size; /* the size the directory held before (0: a full export) */
    uint64_t size;      /* the size it holds now */
    uint64_t files;     /* files written (tiles, bundles, the checkpoint) */
    uint64_t bytes;
    uint64_t linked; /* of those files, full bundles and packs hard-linked from
                        the store (kix_log_export_tlog_linked) */
};

/* Brings the tlog-tiles tree in `dir` (created if missing) up to the log's
 * latest checkpoint, from one snapshot. Every file is written atomically
 * (temporary file, fsync, rename, fsync of its directory) and the
 * checkpoint last, so that whatever stops the export (kill -9, a full disk)
 * leaves a directory whose checkpoint names only tiles and bundles already
 * there. It writes the tiles and bundles that changed since the size of the
 * checkpoint already in dir (when that file is this log's note at that
 * size; otherwise everything), and the partial tiles and bundles of every
 * stored checkpoint whose full tile is not there yet (the spec's rule for
 * which partial tiles a log serves), and objects/sha256:<hex>, each object
 * the new entries need (their canonical bytes, as kixd --http serves them;
 * with kix_log_export_tlog_linked's `elsewhere`, none for an object the
 * caller's files hold exactly, or may hold and the entry's full bundle's
 * pack does), and
 * objects/entries/<N>, the object pack of each bundle that became full
 * (kix_log_reader_object_pack; none for one over its bound); the only
 * files it deletes are the objects/ files that `elsewhere` names for a
 * bundle now full. stats (may be NULL) says what was done. A replica
 * (mirror) exports the same bytes as its origin. Safe to run while the
 * log is written; one export per directory at a time. */
KIX_API int kix_log_export_tlog(struct kix_log *l, const char *dir,
                                struct kix_tlog_export_stats *stats,
                                struct kix_err *err) KIX_MUST_CHECK;

/* kix_log_export_tlog that also calls hook (when not NULL) with its
 * snapshot, after the tiles, bundles and objects and before the directory
 * is synced and the checkpoint written, so that files derived from the same
 * snapshot (another layer's) are there before the checkpoint that covers
 * them. Also called when the directory is up to date already. */
typedef int (*kix_tlog_export_hook)(void *ctx, struct kix_log_reader *r, const char *dir,
                                    struct kix_err *err);
KIX_API int kix_log_export_tlog_with(struct kix_log *l, const char *dir, kix_tlog_export_hook hook,
                                     void *ctx, struct kix_tlog_export_stats *stats,
                                     struct kix_err *err) KIX_MUST_CHECK;
/* The same from the snapshot `given` (NULL: one of its own), which the
 * caller keeps: kixd exports the size its --ack-replicas mirrors hold. */
KIX_API int kix_log_export_tlog_from(struct kix_log *l, struct kix_log_reader *given,
                                     const char *dir, kix_tlog_export_hook hook, void *ctx,
                                     struct kix_tlog_export_stats *stats,
                                     struct kix_err *err) KIX_MUST_CHECK;
/* The same, where link_dir (NULL: none) holds full entry bundles as files
 * named <N> and their object packs as objects.<N> (kixd's STORE/bundles),
 * only ever created by rename, never written in place: a full bundle or
 * pack whose file there holds exactly the bytes the export makes (compared
 * with them) is hard-linked into dir instead of written (kix_file_tree_link;
 * written as before across file systems or when the bytes differ). It
 * counts in files and bytes as a written one, and in stats->linked.
 *
 * elsewhere (NULL: none), called with the hook's ctx, names the object of
 * entry `index` (its leaf) that a layer above keeps in the copy in a file
 * of its own making (the pages embed a publication's subject: PROTOCOL.md
 * §3, "One manifest a run"), *object set, and says how surely:
 * KIX_TLOG_KEPT_EXACTLY when that file, written by this export (its hook)
 * or an earlier one, holds exactly this object: then no objects/ file is
 * written for it at all; KIX_TLOG_KEPT_MAYBE when it may hold another
 * (what the layer cannot tell without looking): then it gets no objects/
 * file once the entry's bundle is full and its pack written (the pack
 * holds it), and until then it is written as any other; 0: neither. When
 * the bundle becomes full, the file an earlier export wrote for such an
 * object is removed. */
#define KIX_TLOG_KEPT_MAYBE   1
#define KIX_TLOG_KEPT_EXACTLY 2
typedef int (*kix_tlog_object_elsewhere)(void *ctx, uint64_t index, const uint8_t *leaf, size_t len,
                                         struct kix_digest *object);
KIX_API int kix_log_export_tlog_linked(struct kix_log *l, struct kix_log_reader *given,
                                       const char *dir, const char *link_dir,
                                       kix_tlog_object_elsewhere elsewhere,
                                       kix_tlog_export_hook hook, void *ctx,
                                       struct kix_tlog_export_stats *stats,
                                       struct kix_err *err) KIX_MUST_CHECK;

#endif
