/* kix/tlog_path.h — the resource paths of a C2SP tlog-tiles log
 * (c2sp.org/tlog-tiles): what a static export writes and what the HTTP
 * listener answers.
 *
 *   checkpoint                      the signed checkpoint note
 *   tile/<L>/<N>[.p/<W>]            Merkle tree tile: W (full: 256) hashes of
 *                                   tree level 8L, 32 bytes each
 *   tile/entries/<N>[.p/<W>]        entry bundle: W (full: 256) leaves, each
 *                                   a 2-byte big-endian length and its bytes
 *
 * L is decimal 0..63 without leading zeroes; N is written in groups of
 * three digits, every group but the last prefixed with "x" (1234067 is
 * x001/x234/067, 5 is 005); W is decimal 1..255 without leading zeroes.
 * Full tiles and bundles never change once they exist; partial ones
 * (".p/W") and the checkpoint are the growing edge of the tree.
 *
 * Pure functions; no allocation. Parsing is strict: a path another encoder
 * would spell differently (leading zero groups such as x000/005, "01",
 * ".p/256", ".p/0") is refused, so each resource has one name.
 *
 * Errors: KIX_EINVAL (not a tlog-tiles path), KIX_ELIMIT (the output does
 * not fit).
 */
#ifndef KIX_TLOG_PATH_H
#define KIX_TLOG_PATH_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/error.h"

#define KIX_TLOG_WIDTH     256u /* hashes (or entries) in a full tile (bundle) */
#define KIX_TLOG_MAX_LEVEL 63u
/* the longest path: "tile/entries/" + 7 groups + ".p/255" */
#define KIX_TLOG_PATH_MAX 64u

enum kix_tlog_kind {
    KIX_TLOG_CHECKPOINT = 1,
    KIX_TLOG_TILE = 2,    /* a Merkle tree tile */
    KIX_TLOG_ENTRIES = 3, /* an entry bundle */
};

struct kix_tlog_path {
    enum kix_tlog_kind kind;
    uint32_t level; /* tiles only */
    uint64_t index; /* N (tiles and bundles) */
    unsigned width; /* 1..255 for a partial tile or bundle; 256 when full */
};

/* Parses `path` (len bytes, no leading "/", no query) into *out. KIX_OK or
 * KIX_EINVAL. */
KIX_API int kix_tlog_path_parse(const char *path, size_t len,
                                struct kix_tlog_path *out) KIX_MUST_CHECK;

/* Writes the path of *p into out (cap bytes, NUL-terminated): KIX_OK,
 * KIX_EINVAL (bad level or width), KIX_ELIMIT (cap too small). */
KIX_API int kix_tlog_path_format(const struct kix_tlog_path *p, char *out,
                                 size_t cap) KIX_MUST_CHECK;

/* Writes just the N part ("x001/x234/067") into out. KIX_OK or KIX_ELIMIT. */
KIX_API int kix_tlog_index_format(uint64_t index, char *out, size_t cap) KIX_MUST_CHECK;

/* The width of tile (level, index) in a tree of `size` leaves: 0 when the
 * tile does not exist at that size, else 1..256. Bundles are level 0. */
KIX_API unsigned kix_tlog_tile_width(uint64_t size, uint32_t level, uint64_t index);

#endif
