/* kix/file.h — files and directories, written so a crash leaves either the
 * old state or the new one.
 *
 * kix_file_write_atomic writes a temporary file beside the target, fsyncs
 * it, renames it over the target and fsyncs the directory: readers see the
 * old bytes or the new ones, never a mix, and an acknowledged write
 * survives a power cut. kix_file_write_batched is the same for many files
 * written together (an export): a target that exists is replaced as
 * kix_file_write_atomic does, but a new one is not synced one by one;
 * kix_dir_sync (syncfs of the directory's file system) makes all of them
 * durable at once, so write the file that names the others (a checkpoint)
 * with kix_file_write_atomic after it: a power cut then never leaves a
 * named file missing or short, and a thousand new files cost one sync. kix_dir_make creates a
 * directory and its missing parents; kix_dir_remove_tree removes a tree without following symbolic
 * links (nftw, no shell). kix_file_read reads a whole small file ("-":
 * standard input) up to a bound.
 *
 * Memory: kix_file_read appends to a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such file), KIX_ELIMIT (larger than max),
 * KIX_EIO (the message names the path and the system's reason), KIX_EFULL
 * (a write found the disk or the quota full), KIX_ENOMEM.
 */
#ifndef KIX_FILE_H
#define KIX_FILE_H

#include "kix/api.h"

#include <stddef.h>

#include "kix/buf.h"
#include "kix/error.h"

KIX_API int kix_file_write_atomic(const char *path, const void *data, size_t len, int mode,
                                  struct kix_err *err) KIX_MUST_CHECK;

KIX_API int kix_file_write_batched(const char *path, const void *data, size_t len, int mode,
                                   struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_dir_sync(const char *dir, struct kix_err *err) KIX_MUST_CHECK;

/* A directory tree that an export writes many files into (the log's tiles,
 * the index's tiles): kix_file_tree_write writes rel ('/'-separated,
 * relative to dir) with kix_file_write_batched, or kix_file_write_atomic
 * when `atomic` (the file that names the others), after making its
 * missing directories (0755; the last one made is remembered, so files
 * written into one directory make it once; for a batched file they are
 * not synced one by one either: the caller's kix_dir_sync does it). The caller sets dir and
 * mode; made starts empty. KIX_EINVAL for a path too long. */
struct kix_file_tree {
    const char *dir;
    int mode; /* of the files */
    char made[4200];
};
KIX_API int kix_file_tree_write(struct kix_file_tree *t, const char *rel, const void *data,
                                size_t len, int atomic, struct kix_err *err) KIX_MUST_CHECK;

/* Puts rel in the tree as a hard link to the file at src, when src is a
 * regular file holding exactly the len bytes at data (read and compared
 * through the descriptor that is then linked: a file damaged or replaced
 * meanwhile is never linked) and is on the same file system: 1 when
 * linked, 0 when the caller should write the bytes itself (src missing,
 * different bytes, another file system, any error). The link is made under
 * a temporary name and renamed over rel, durable with the caller's
 * kix_dir_sync as a batched file is. src must be a file that is never
 * written in place (only replaced by rename): the tree shares its inode. */
KIX_API int kix_file_tree_link(struct kix_file_tree *t, const char *rel, const char *src,
                               const void *data, size_t len);

KIX_API int kix_file_read(const char *path, size_t max, struct kix_buf *out,
                          struct kix_err *err) KIX_MUST_CHECK;

/* 1 when the file at path holds exactly the len bytes at data, else 0 (an
 * unreadable or missing file too): what an export cut short may have left
 * is checked with it before it is trusted. */
KIX_API int kix_file_holds(const char *path, const void *data, size_t len);

/* Creates path and its missing parents with `mode` (existing ones are left
 * as they are). */
KIX_API int kix_dir_make(const char *path, int mode, struct kix_err *err) KIX_MUST_CHECK;

/* Removes path and everything under it; KIX_OK when it does not exist. */
KIX_API int kix_dir_remove_tree(const char *path, struct kix_err *err) KIX_MUST_CHECK;

#endif
