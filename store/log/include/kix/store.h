/* kix/store.h — the LMDB database behind a kix log: content-addressed objects.
 *
 * A store is a directory holding one LMDB environment. Objects are JSON
 * manifests kept as their RFC 8785 canonical bytes under their digest;
 * putting the same object twice stores it once (and, as git does, a digest
 * collision with different bytes is refused as corruption).
 *
 * Concurrency: one writer at a time (writes serialize inside the store);
 * any number of readers, each with its own read transaction, never blocked
 * by the writer. When a write finds the map full the store grows the map
 * (doubling, up to opts.map_max) and retries the whole write; past the
 * ceiling it fails with KIX_EFULL and the store is left as it was.
 *
 * Memory: views returned through a struct kix_reader stay valid until
 * kix_store_read_end(); functions that fill a struct kix_buf copy.
 * Errors: KIX_ENOTFOUND (no such object), KIX_EINVAL (input rejected, with
 * the canonicalizer's message), KIX_EFULL, KIX_ECORRUPT, KIX_EIO.
 */
#ifndef KIX_STORE_H
#define KIX_STORE_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/canon.h"
#include "kix/digest.h"
#include "kix/error.h"

struct kix_store;
struct kix_reader;

struct kix_store_opts {
    size_t map_initial; /* initial map size in bytes; 0 = 64 MiB */
    size_t map_max;     /* ceiling for map growth; 0 = 1 TiB */
    int read_only;      /* open without write access */
    int no_sync;        /* skip fsync on commit: ONLY for caches that can be rebuilt
                           (an auditor's local replica), never for a log */
    struct kix_canon_opts canon;
    /* a writable store's close writes index.mdb again in key order whatever
     * it grew by (`kixd compact`); without it, only when the open at least
     * doubled it */
    int compact;
    /* with read_only: data.mdb (and log.dat) alone, not index.mdb, which is
     * derived from them and may be lost (the machine stopped while it was
     * open to write, or it is missing or unreadable), so that what cannot
     * be derived is still read: the layout, the metadata, and
     * kix_store_copy, which then copies the log alone (kixd migrate's
     * backup of such a store). Objects and the index are not readable
     * through such a handle; the copy's first writable open derives its
     * index. Refused without read_only (KIX_EINVAL). */
    int log_only;
    /* ask the kernel for huge pages on the store's maps (madvise
     * MADV_HUGEPAGE; where it has none for files, nothing changes): fewer
     * TLB misses and faults for a server that reads a large store at
     * random, at the cost of reading 2 MiB around a page the first time
     * (kixd serve sets it, --no-large-pages not) */
    int large_pages;
    /* a writable open of a store an older kix wrote (a layout below
     * KIX_STORE_LAYOUT) converts it in place, which an older kix cannot
     * read again; without this such an open is refused (KIX_ENOTSUP,
     * naming kixd migrate), so that only who copies the store first
     * converts it (kixd migrate, kixd serve) */
    int convert;
};

KIX_API int kix_store_open(const char *dir, const struct kix_store_opts *opts,
                           struct kix_store **out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_store_close(struct kix_store *s);

/* Writes a consistent, compacted copy of the store (one read snapshot of
 * each file: writers go on meanwhile, in this process or another) as
 * DIR/data.mdb, for store layout 4 DIR/log.dat and, from layout 3 on,
 * DIR/index.mdb (copied first: the copy's index is at or behind its log,
 * which its first writable open catches up; none from a store opened
 * log_only, whose copy's first writable open derives it); DIR must exist
 * and hold none of them. The copy is synced to
 * disk with its directory before this returns. Nothing else is written:
 * key files beside the store are the caller's to copy or not. */
KIX_API int kix_store_copy(struct kix_store *s, const char *dir,
                           struct kix_err *err) KIX_MUST_CHECK;

/* The layout the store's tables are in (proto/PROTOCOL.md, "Store
 * files"): KIX_STORE_LAYOUT for one this version wrote or converted; 1 for
 * one written before layout 2, which a writable open of its log converts
 * in one transaction (kixd migrate makes a backup first). */
#define KIX_STORE_LAYOUT 4
KIX_API int kix_store_layout(const struct kix_store *s);

/* Current LMDB map size in bytes (grows on demand). */
KIX_API size_t kix_store_map_size(const struct kix_store *s);

/* A number that changes whenever any process commits a write to the store
 * (data.mdb's and index.mdb's last committed transaction ids, summed: both
 * only grow). Read from the environments' meta pages: no reader slot, no
 * file lock, no system call, so a process can ask it often to notice
 * another process's commits (kixd beside `kix publish --store`; the
 * writer's watch, daemon/writer/writer.c). Equal marks: nothing committed
 * between the two calls; a changed mark may be this process's own commit. */
KIX_API uint64_t kix_store_commit_mark(struct kix_store *s);

/* Canonicalizes `json` and stores it; *digest gets its digest, *created (may
 * be NULL) is 1 when the object was new. Idempotent. Durable on return. */
KIX_API int kix_store_put(struct kix_store *s, const uint8_t *json, size_t len,
                          struct kix_digest *digest, int *created,
                          struct kix_err *err) KIX_MUST_CHECK;

/* Copies the canonical bytes of an object into out (appended). */
KIX_API int kix_store_get(struct kix_store *s, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err) KIX_MUST_CHECK;

/* 1 if present, 0 if absent, negative on error. */
KIX_API int kix_store_has(struct kix_store *s, const struct kix_digest *d);

KIX_API int kix_store_count(struct kix_store *s, uint64_t *objects) KIX_MUST_CHECK;

/* The references of a manifest (see kix_refs_extract) that are not stored.
 * *missing is malloc'ed (caller frees), *n may be 0. */
KIX_API int kix_store_missing_refs(struct kix_store *s, const uint8_t *json, size_t len,
                                   struct kix_digest **missing, size_t *n,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* Read transactions: a consistent snapshot, never blocking the writer. */
KIX_API int kix_store_read_begin(struct kix_store *s, struct kix_reader **out) KIX_MUST_CHECK;
KIX_API void kix_store_read_end(struct kix_reader *r);
/* A view of an object's canonical bytes, valid until kix_store_read_end. */
KIX_API int kix_reader_get(struct kix_reader *r, const struct kix_digest *d, struct kix_bytes *out);

#endif
