/* kix/source.h — where a kix_client's bytes come from.
 *
 * A struct kix_client (kix/client.h) reads a log through one struct
 * kix_source: a table of fetchers (struct kix_source_ops) and the state
 * behind them. kix_client verifies; a source only fetches. Two are built
 * in: the store layers on this machine (kix_source_open_store, or one
 * read snapshot of an open log, kix_source_open_snapshot, which is how
 * kixd's pages and export read their store; client/lib/source_local.c),
 * kixd's msgpack-RPC (kix_source_connect, client/lib/source_rpc.c) and
 * C2SP tlog-tiles over HTTP(S) (kix_source_open_http,
 * client/lib/source_http.c). The idea is Tessera's client, which takes a
 * checkpoint fetcher, a tile fetcher and an entry bundle fetcher and
 * builds every proof from them; here the fetchers sit one level higher
 * (proofs, not tiles) because kixd answers proofs, and the operations a
 * tile-only source cannot offer are optional.
 *
 * Trust: NOTHING a source returns is trusted. Checkpoints, proofs,
 * entries, objects, index records and resolutions are checked by the
 * callers (kix_client_get_object(s) and kix_client_index_proof check
 * digests and proofs themselves; kix/trust.h, kix/resolve.h, kix/sync.h,
 * kix_client_query_verify and kix audit check the rest). A source may be
 * wrong, stale, or lying; it cannot make a client believe a forgery.
 * Sources therefore check no signature and make no trust decision.
 *
 * What a new source (an HTTP tlog-tiles reader, a cache, a test wrapper)
 * must provide: a struct kix_source embedded in its own state (first
 * member, or found with offsetof), `ops` pointing to a static table and
 * `where` naming it for messages ("store DIR", an address, a URL); and in
 * that table at least close, info, checkpoint, entries, inclusion and
 * consistency. A tlog-tiles source answers checkpoint from /checkpoint,
 * info with the origin and size read off it (unverified, like all info),
 * entries from tile/entries bundles, and inclusion and consistency from
 * the hash tiles (kix/merkle.h, kix_tiles_inclusion_proof with a struct
 * kix_tile_io over fetched tiles; kix/tlog_path.h names them). Every other
 * operation is optional: leave it NULL and kix_client answers KIX_ENOTSUP
 * naming the source and the operation (inclusion_proofs and object have
 * generic fallbacks instead, see below). No verification code changes for
 * a new source.
 *
 * Memory: outputs are appended to caller-owned buffers, or handed to a
 * callback as views valid only during that callback. A resolution owns
 * what it points into through its backing (kix/resolve.h). The client owns
 * its source once kix_client_open_source took it, and closes it with
 * itself.
 *
 * Threads: a source, like its client, is used by one thread at a time.
 *
 * Errors: each op returns a KIX_E* code and fills err (which may be NULL).
 * KIX_ENOTFOUND for what the log does not hold, KIX_EUNAVAIL when the
 * source cannot be reached, KIX_EPROTO when its answer has the wrong shape
 * (not when its content is false: that is the caller's KIX_EVERIFY),
 * KIX_ENOTSUP for an operation it does not offer. A nonzero return of a
 * caller's callback stops the op and is returned as is.
 */
#ifndef KIX_SOURCE_H
#define KIX_SOURCE_H

#include "kix/api.h"

#include "kix/client.h"

#define KIX_SOURCE_WHERE_MAX 4200

struct kix_source;

struct kix_source_ops {
    /* ---- required ---- */
    /* Frees the source and everything it holds. */
    void (*close)(struct kix_source *s);
    /* What the source says of itself (kix_client_info): origin, log key
     * text, size, a server's limits. Untrusted like the rest. */
    int (*info)(struct kix_source *s, struct kix_client_info *out, struct kix_err *err);
    /* The signed checkpoint at size (KIX_NO_INDEX: the latest) with the
     * cosignature lines it holds, appended to note. */
    int (*checkpoint)(struct kix_source *s, uint64_t size, struct kix_buf *note,
                      struct kix_err *err);
    /* The entries [start, start + count) it holds, in order, through fn;
     * *got (may be NULL) counts them. Fewer than asked: the log ends. */
    int (*entries)(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn, void *ctx,
                   uint64_t *got, struct kix_err *err);
    /* Inclusion proof of entry index at size, consistency proof from
     * size1 to size2 (size KIX_NO_INDEX: the latest), at most
     * KIX_MERKLE_MAX_PROOF hashes, *n set. */
    int (*inclusion)(struct kix_source *s, uint64_t index, uint64_t size,
                     struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n, struct kix_err *err);
    int (*consistency)(struct kix_source *s, uint64_t size1, uint64_t size2,
                       struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n, struct kix_err *err);

    /* ---- optional (NULL: see each) ---- */
    /* The inclusion proofs of entries [from, to) at size, with their leaf
     * hashes when known, through fn in any order (a kixd pipelines them).
     * An entry refused is the op's error with err's cause
     * KIX_CAUSE_ENTRY naming it. NULL: kix_client asks inclusion() per
     * entry, with no leaf hash. */
    int (*inclusion_proofs)(struct kix_source *s, uint64_t from, uint64_t to, uint64_t size,
                            kix_inclusion_fn fn, void *ctx, struct kix_err *err);
    /* The stored checkpoints with size > after, at most limit, by growing
     * size, each with its index note. NULL: KIX_ENOTSUP. */
    int (*checkpoints)(struct kix_source *s, uint64_t after, size_t limit, kix_checkpoint_fn fn,
                       void *ctx, struct kix_err *err);
    /* A tlog-proof receipt (kix/receipt.h) for index at size. NULL: ENOTSUP. */
    int (*receipt)(struct kix_source *s, uint64_t index, uint64_t size, struct kix_buf *out,
                   struct kix_err *err);
    /* Several objects by digest, fn(ctx, i, bytes, len) for each in order,
     * bytes NULL when not held; the bytes are NOT checked here. NULL:
     * KIX_ENOTSUP. */
    int (*objects)(struct kix_source *s, const struct kix_digest *digests, size_t n,
                   kix_object_fn fn, void *ctx, struct kix_err *err);
    /* The object pack of full entry bundle `bundle` (kix/object_pack.h),
     * appended to out unparsed; KIX_ENOTFOUND when there is none. NULL:
     * KIX_ENOTSUP (kix_client_get_objects serves every object). */
    int (*object_pack)(struct kix_source *s, uint64_t bundle, struct kix_buf *out,
                       struct kix_err *err);
    /* One object's bytes appended to out, KIX_ENOTFOUND when not held.
     * NULL: kix_client asks objects() for the one digest. */
    int (*object)(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                  struct kix_err *err);
    /* One key of the verifiable index at the latest checkpoint: fills
     * out->present and appends to out->record, proof, checkpoint and
     * index_note (nothing else; kix_client_index_proof opens and checks
     * them). NULL: KIX_ENOTSUP. */
    int (*index_proof)(struct kix_source *s, const char *key, struct kix_index_answer *out,
                       struct kix_err *err);
    /* A run's resolution from position from of its entry list
     * (kix_index_resolve_from); out is inited here, released by the caller
     * also on failure. NULL: KIX_ENOTSUP. */
    int (*resolve)(struct kix_source *s, const char *ref, uint64_t from, struct kix_resolution *out,
                   struct kix_err *err);
    /* Ranked runs as the source computed them (kix_index_query). NULL: ENOTSUP. */
    int (*query)(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
                 uint64_t *matched, struct kix_err *err);
    /* Writes. NULL (a read-only source): KIX_ENOTSUP. submit fills every
     * results[i] (memset first), as kix_client_submit documents. */
    int (*submit)(struct kix_source *s, const struct kix_bundle *bundles, size_t n,
                  struct kix_submit_result *results, struct kix_err *err);
    int (*add_cosignature)(struct kix_source *s, const char *checkpoint, size_t len,
                           const char *line, size_t line_len, struct kix_err *err);
    /* The client verified cp, a checkpoint of the log of key: the source
     * may from now on keep what it reads of that log, and read back what
     * it kept, when it is part of cp's tree (the HTTP source's disk cache
     * under cache_root, NULL its default; source_http_cache.c). NULL:
     * nothing is kept. */
    int (*verified)(struct kix_source *s, const char *cache_root, const struct kix_verifier *key,
                    const struct kix_checkpoint *cp, struct kix_err *err);
    /* The log's verifier key text as the source publishes it, appended to
     * out (a static copy's log.vkey; untrusted: kix trust shows it for the
     * user to compare). NULL: info's log_key. */
    int (*log_key)(struct kix_source *s, struct kix_buf *out, struct kix_err *err);
    /* The bytes of one file a static copy serves (a path relative to its
     * root: "tile/1/000.p/2", "objects/entries/000", "index/..."), at most
     * max, appended unchecked; KIX_ENOTFOUND when it serves none (kix audit
     * compares them with the log). NULL: KIX_ENOTSUP (no files). */
    int (*file)(struct kix_source *s, const char *path, size_t max, struct kix_buf *out,
                struct kix_err *err);
    /* Several files, fn(ctx, i, rc, body, err) for each in order (rc as
     * file() would return it; fetched several at once). NULL: file() for
     * each. */
    int (*files)(struct kix_source *s, const char *const *paths, size_t n, size_t max,
                 kix_file_fn fn, void *ctx, struct kix_err *err);

    /* ---- a store's own reads, for the pages a server writes of it (the
     * views' *_from_source, client/view/view_source.c). A store source
     * answers them; a kixd or a static copy leaves them NULL (KIX_ENOTSUP):
     * its pages are its own server's. ---- */
    /* The log's size, its latest checkpoint as the log signed it (no
     * cosignature: the bytes a page is pinned to) and that checkpoint's
     * index note (nothing appended when the store keeps no index). */
    int (*state)(struct kix_source *s, uint64_t *size, struct kix_buf *checkpoint,
                 struct kix_buf *index_note, struct kix_err *err);
    /* A run's index record by run id or manifest digest (kix_index_run);
     * KIX_ENOTFOUND when the index holds no such run. */
    int (*run)(struct kix_source *s, const char *ref, size_t len, struct kix_run_info *out,
               struct kix_err *err);
    /* A group's ranked runs, best first, from position offset, at most
     * limit, through fn (may be NULL); *size (may be NULL) its size
     * (kix_index_group). */
    int (*group)(struct kix_source *s, const struct kix_digest *key, uint64_t offset,
                 uint64_t limit, kix_group_fn fn, void *ctx, uint64_t *size, struct kix_err *err);
    /* Every ranked group's key, in key order (kix_index_groups). */
    int (*groups)(struct kix_source *s, kix_groups_fn fn, void *ctx, struct kix_err *err);
    /* One key's record and proof in the verifiable index at state's index
     * note (kix_index_prove): index_proof's answer without the checkpoint
     * and note, which a page reads once. */
    int (*index_record)(struct kix_source *s, const char *key, struct kix_buf *record,
                        struct kix_buf *proof, int *present, struct kix_err *err);
};

struct kix_source {
    const struct kix_source_ops *ops;
    char where[KIX_SOURCE_WHERE_MAX]; /* for messages: "store DIR", an address */
};

/* The store directory on this machine, through the store layers (a store
 * without a log key, a replica, is readable as is). */
KIX_API int kix_source_open_store(const char *dir, struct kix_source **out,
                                  struct kix_err *err) KIX_MUST_CHECK;
/* The same over a log the caller opened and keeps open (kixd, whose
 * dispatcher is this source on the wire): each read uses the snapshot
 * bound with kix_source_bind_reader (the caller's, kept open by it), or
 * one of its own when none is bound; resolve answers pages of at most
 * resolve_max entries (0: all). */
KIX_API int kix_source_open_log(struct kix_log *log, uint64_t resolve_max, struct kix_source **out,
                                struct kix_err *err) KIX_MUST_CHECK;
/* Binds r (NULL: none) to a source of kix_source_open_log; nothing for
 * any other source. */
KIX_API void kix_source_bind_reader(struct kix_source *s, struct kix_log_reader *r);
/* One read snapshot of the open log l as a source, for the pages a server
 * writes from it (every op reads that one snapshot): r when given (kept
 * by the caller, who ends it after closing the source), else one the
 * source begins and ends at close. Closing it never closes l. */
KIX_API int kix_source_open_snapshot(struct kix_log *l, struct kix_log_reader *r,
                                     struct kix_source **out, struct kix_err *err) KIX_MUST_CHECK;
/* A kixd at addr ("tcp://host:port", "unix:///path"), one connection,
 * requests sized by the limits its info reports. */
KIX_API int kix_source_connect(const char *addr, const struct kix_client_opts *opts,
                               struct kix_source **out, struct kix_err *err) KIX_MUST_CHECK;
/* A log read as C2SP tlog-tiles over HTTP(S) from url ("https://host/prefix/":
 * a static copy written by kixd export, a CDN, or kixd serve --http;
 * client/lib/source_http.c): read-only, every proof computed from the
 * tiles. TLS is checked against the system's CAs, or cacert's. */
struct kix_http_opts {
    const char *cacert; /* PEM file of CA certificates, or NULL: $KIX_CACERT, else the system's */
    long connect_timeout_ms; /* 0: 10 s */
    long timeout_ms;         /* per request, 0: 30 s */
    int retries;             /* on 5xx, 429 and network errors, with backoff; <0: 3 */
};
KIX_API int kix_source_open_http(const char *url, const struct kix_http_opts *opts,
                                 struct kix_source **out, struct kix_err *err) KIX_MUST_CHECK;
/* 1 when addr is an http:// or https:// URL. */
KIX_API int kix_source_is_http(const char *addr);
/* A client of any address: a kixd's (tcp://, unix://: kix_client_connect
 * with opts) or a static copy's (http://, https://: kix_source_open_http
 * with http, which may be NULL; opts' timeout applies when http gives
 * none). */
KIX_API int kix_client_open_addr(const char *addr, const struct kix_client_opts *opts,
                                 const struct kix_http_opts *http, struct kix_client **out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* Closes any source; NULL is fine. */
KIX_API void kix_source_close(struct kix_source *s);

/* A client over src, which it takes in all cases (closed on failure). */
KIX_API int kix_client_open_source(struct kix_source *src, struct kix_client **out,
                                   struct kix_err *err) KIX_MUST_CHECK;

#endif
