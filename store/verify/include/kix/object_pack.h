/* kix/object_pack.h — object packs: the objects a full entry bundle's
 * entries need, in one file, so that a replay over HTTP reads a bundle's
 * objects with one GET instead of one per object (PROTOCOL.md §3.2).
 *
 *   objects/entries/<N>    the pack of full entry bundle N (N spelled as in
 *                          kix/tlog_path.h: x001/234 style groups)
 *
 * A pack is a sequence of objects, each a 4-byte big-endian length and the
 * object's canonical bytes; an empty pack is an empty file. Which objects,
 * and in what order, is fixed by the log (kix_log_reader_object_pack), so
 * every copy serves the same bytes; but a pack is named by its bundle, not
 * by its content, so nothing in it is believed: a reader hashes each
 * object and takes only the ones whose digest it wants, and fetches by
 * digest whatever a pack lacks.
 *
 * Pure functions; no allocation but the writer's buffer (caller-owned).
 * Errors: KIX_EPROTO (a pack that does not parse), KIX_ELIMIT (over a
 * bound), KIX_ENOMEM.
 */
#ifndef KIX_OBJECT_PACK_H
#define KIX_OBJECT_PACK_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_OBJECT_PACK_MAX    (32u * 1024u * 1024u) /* bytes of one pack */
#define KIX_OBJECT_PACK_OBJECT (16u * 1024u * 1024u) /* bytes of one object in it */
/* "objects/entries/" + the longest N of kix/tlog_path.h */
#define KIX_OBJECT_PACK_PATH_MAX 64u

/* The path of bundle index's pack into out (cap bytes): KIX_OK or KIX_ELIMIT. */
KIX_API int kix_object_pack_path(uint64_t index, char *out, size_t cap) KIX_MUST_CHECK;

/* Appends one object to a pack being written: KIX_ELIMIT when the object
 * is over KIX_OBJECT_PACK_OBJECT or the pack would pass KIX_OBJECT_PACK_MAX
 * (the pack is then left as it was), KIX_ENOMEM. */
KIX_API int kix_object_pack_add(struct kix_buf *pack, const uint8_t *bytes,
                                size_t len) KIX_MUST_CHECK;

/* Reads the object at *off of pack (len bytes): *obj and *obj_len set, *off
 * moved past it, KIX_OK; KIX_ENOTFOUND at the end; KIX_EPROTO when what
 * follows *off is not a whole object within the bounds. */
KIX_API int kix_object_pack_next(const uint8_t *pack, size_t len, size_t *off, const uint8_t **obj,
                                 size_t *obj_len) KIX_MUST_CHECK;

#endif
