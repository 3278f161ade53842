/* daemon/http_bundles.h — the full entry bundles kixd --http serves, kept
 * as files in the store directory (http_bundles.c), STORE/bundles/<N> for
 * bundle N, so that a bundle is assembled from its 256 leaves once and
 * then sent with sendfile(2) from the page cache (http.c), as nginx sends
 * an export's files.
 *
 * A full bundle never changes (the log only grows), so a file is never
 * stale. It is written under a temporary name (tmp.<worker>.<N>),
 * fdatasync'ed and renamed: a crash leaves no file or the whole one under
 * its name, and the temporary files a crash left are removed when kixd
 * starts (kixd_bundles_prepare). The directory is a cache: nothing else
 * reads it (kixd backup, check, mirrors and promote ignore it), it can be
 * deleted at any time (a missing file, or directory, is made again), and
 * it grows at most to the log's leaves plus 2 bytes each (the full
 * bundles that were asked for). Each worker checks a file against the
 * log's level-0 tile the first time it opens it in a run (its entries'
 * hashes, a bitmap of the bundles checked): a file left by another log (a
 * store restored over this one) or damaged is written again. Changed
 * after that check, while kixd runs, it is served as it is, as a changed
 * data.mdb would be: the store directory is trusted.
 *
 * A worker keeps the files it served last open (KIXD_BUNDLE_FDS of
 * them, bundle N in slot N % KIXD_BUNDLE_FDS), so that a bundle asked for
 * again costs an fstat(2), not an open(2) and a close(2): nginx's
 * open_file_cache, always on. The fstat sees a file removed (no link
 * left) or emptied, which is then made again as a missing one is.
 *
 * When the directory cannot be used (not writable, disk full, no file
 * descriptor left) a bundle is assembled in memory, each time, as a
 * partial one is; a warning says so once per worker. Loop thread only.
 */
#ifndef KIXD_HTTP_BUNDLES_H
#define KIXD_HTTP_BUNDLES_H

#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "server.h"

#define KIXD_BUNDLE_DIR "bundles" /* in the store directory */

/* Start-up, before the workers run: makes STORE/bundles and removes the
 * temporary files a crash left in it. Sets srv->bundle_dir, left empty
 * (bundles assembled each time) when the directory cannot be made. */
void kixd_bundles_prepare(struct kixd_server *srv);

/* Closes the files the worker keeps open and frees what it remembers of
 * the files checked (worker teardown). */
void kixd_bundles_free(struct kixd_worker *w);

/* The full bundle `index` (the caller checked it is full at r's size): its
 * file, written first from r's leaves when missing, open for reading in
 * *fd with its length in *size (the worker's: the caller reads it before
 * its next call and never closes it); or, when it cannot
 * be kept as a file, *fd = -1 and the bundle's bytes appended to `built`.
 * An error code when the leaves cannot be read (KIX_ENOMEM included). */
int kixd_bundle_open(struct kixd_worker *w, struct kix_log_reader *r, uint64_t index, int *fd,
                     uint64_t *size, struct kix_buf *built, struct kix_err *err);

#endif
