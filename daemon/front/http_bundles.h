/* daemon/front/http_bundles.h — the full entry bundles kixd --http serves, and
 * their object packs (kix/object_pack.h), kept as files in the store
 * directory (http_bundles.c): STORE/bundles/<N> for bundle N and
 * STORE/bundles/objects.<N> for its pack, so that each is assembled once
 * (a bundle from its 256 leaves, a pack from their objects) and then sent
 * with sendfile(2) from the page cache (http.c), as nginx sends an
 * export's files.
 *
 * A full bundle and its pack never change (the log only grows), so a file
 * is never stale. It is written under a temporary name
 * (tmp.<worker>.[objects.]<N>), fdatasync'ed and renamed: a crash leaves
 * no file or the whole one under its name, and the temporary files a crash
 * left are removed when kixd starts (kixd_bundles_prepare). The directory
 * is a cache: nothing else reads it (kixd backup, check, mirrors and
 * promote ignore it), it can be deleted at any time (a missing file, or
 * directory, is made again), and it grows at most to the log's leaves plus
 * 2 bytes each, and its objects once per bundle that needs them (the files
 * that were asked for). Each worker checks a file against the log the
 * first time it opens it in a run (a bundle: its entries' hashes against
 * the level-0 tile; a pack, which has no hash: made again and compared; a
 * bitmap of the files checked): a file left by another log (a store
 * restored over this one) or damaged is written again. Changed after that
 * check, while kixd runs, it is served as it is, as a changed data.mdb
 * would be: the store directory is trusted. An empty pack (a bundle whose
 * entries need no object) is never kept: it is made for each request.
 *
 * A worker keeps the files it served last open (KIXD_BUNDLE_FDS of them),
 * so that a file asked for again costs an fstat(2), not an open(2) and a
 * close(2): nginx's open_file_cache, always on. The fstat sees a file
 * removed (no link left) or emptied, which is then made again as a missing
 * one is.
 *
 * When the directory cannot be used (not writable, disk full, no file
 * descriptor left) a file is assembled in memory, each time, as a partial
 * bundle is; a warning says so once per worker. Loop thread only.
 */
#ifndef KIXD_HTTP_BUNDLES_H
#define KIXD_HTTP_BUNDLES_H

#include <stdint.h>

#include "kix/buf.h"
#include "config.h"
#include "kix/error.h"
#include "server.h"

/* Start-up, before the workers run: makes STORE/bundles and removes the
 * temporary files a crash left in it. Sets srv->bundle_dir, left empty
 * (bundles assembled each time) when the directory cannot be made. */
void kixd_bundles_prepare(struct kixd_server *srv);

/* Closes the files the worker keeps open and frees what it remembers of
 * the files checked (worker teardown). */
void kixd_bundles_free(struct kixd_worker *w);

enum kixd_kept_file {
    KIXD_KEPT_BUNDLE, /* tile/entries/<N> */
    KIXD_KEPT_PACK,   /* objects/entries/<N> */
};

/* The full bundle `index`, or its object pack (the caller checked the
 * bundle is full at r's size): its file, written first from r's log when
 * missing, open for reading in *fd with its length in *size (the worker's:
 * the caller reads it before its next call and never closes it); or, when
 * it cannot be kept as a file, *fd = -1 and the bytes appended to `built`.
 * An error code when the log cannot be read (KIX_ENOMEM included), and for
 * a pack KIX_ELIMIT when it would be over its bound (there is none). */
int kixd_bundle_open(struct kixd_worker *w, struct kix_log_reader *r, enum kixd_kept_file kind,
                     uint64_t index, int *fd, uint64_t *size, struct kix_buf *built,
                     struct kix_err *err);

#endif
