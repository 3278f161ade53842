/* source_http_internal.h — the HTTP source's state, shared by its files:
 * source_http.c (tiles, entries, objects), source_http_index.c (index
 * proofs), source_http_resolve.c (a run's resolution),
 * source_http_query.c (queries) and source_http_cache.c (what is kept on
 * disk, http_cache.h). Private to client/lib. */
#ifndef KIX_SOURCE_HTTP_INTERNAL_H
#define KIX_SOURCE_HTTP_INTERNAL_H

#include "http_get.h"
#include "kix/source.h"
#include "kix/smt.h"
#include "kix/tlog_path.h"
#include "kix/vindex.h"

#define HTTP_TILE_CACHE 64
#define HTTP_OBJECT_MAX (16u * 1024u * 1024u)
#define HTTP_VIEW_MAX   (32u * 1024u * 1024u)

struct http_tile {
    uint32_t level;
    uint64_t index;
    unsigned width;
    uint8_t *rec; /* kix/merkle.h's record (malloc'ed), NULL when free */
    size_t len;
};

#define HTTP_ITILE_CACHE 2048
#define HTTP_IPACK_CACHE 256 /* index packs of at most 16 KiB: 4 MiB */

struct http_itile { /* an index tile (kix/smt.h's stored value) */
    uint8_t key[KIX_SMT_TILE_KEY_MAX];
    size_t klen;
    uint8_t *val; /* malloc'ed: the stored tile, then its locators (kix/vindex.h) */
    size_t len;   /* the stored tile's */
    size_t full;  /* with its locators */
};

/* Files named by their content (objects, index records) kept after a read
 * whose bytes hash to their name: the last HTTP_BLOB_CACHE, each of at most
 * HTTP_BLOB_MAX bytes. A query's answer and then its proofs read the same
 * records and objects (source_http_query.c). A batch asks for every name it
 * holds before fetching (source_http.c http_objects), so a name is found
 * through a hash table (chains of slots by the name's first bytes, which
 * are a SHA-256's), not by comparing it with every slot. */
#define HTTP_BLOB_CACHE   1024
#define HTTP_BLOB_MAX     (16u * 1024u)
#define HTTP_BLOB_BUCKETS 2048 /* a power of two */
_Static_assert(HTTP_BLOB_CACHE < 65535, "slots are numbered in 16 bits");

struct http_blob {
    uint8_t name[32];
    uint8_t *bytes; /* malloc'ed, NULL when free */
    size_t len;
    uint16_t chain; /* the next slot of its bucket + 1, 0 at the end */
};

struct http_blobs {
    struct http_blob slot[HTTP_BLOB_CACHE];
    uint16_t bucket[HTTP_BLOB_BUCKETS]; /* its first slot + 1, 0 when empty */
    size_t next;                        /* the slot written next (the oldest) */
};

/* Appends the bytes named name to out: KIX_OK, or KIX_ENOTFOUND when not kept. */
int http_blobs_get(const struct http_blobs *c, const uint8_t name[32], struct kix_buf *out);
void http_blobs_put(struct http_blobs *c, const uint8_t name[32], const uint8_t *bytes, size_t len);
void http_blobs_clear(struct http_blobs *c);

/* An edge tile as the root check read it (source_http_cache.c). */
#define HTTP_EDGE_MAX 16
struct http_edge {
    uint32_t level;
    uint64_t index;
    uint8_t *rec; /* malloc'ed copy of the record */
    size_t len;
};

struct http_cache;

struct http_source {
    struct kix_source base; /* first: the ops get &base */
    struct http_get *get;
    struct kix_buf latest; /* the checkpoint as last fetched */
    uint64_t latest_size;
    char origin[KIX_NOTE_NAME_MAX + 1];
    int have_latest;
    uint64_t latest_ms; /* CLOCK_MONOTONIC when it was fetched */
    uint64_t io_size;   /* the tree size the tile reads are for */
    struct http_tile tiles[HTTP_TILE_CACHE];
    size_t next_tile;
    /* the last entry bundle read: its bytes and where each leaf sits */
    struct kix_buf bundle;
    uint64_t bundle_index;
    unsigned bundle_width;
    size_t bundle_off[KIX_TLOG_WIDTH], bundle_len[KIX_TLOG_WIDTH];
    /* the index tiles read under the index root iroot */
    struct kix_hash iroot;
    struct http_itile itiles[HTTP_ITILE_CACHE];
    size_t nitiles;
    /* the index packs last read (index/pack/<size>.<chunk>): a route's
     * tiles and records are mostly in one, and a query's routes share the
     * packs near the top */
    struct {
        struct kix_buf bytes;
        struct kix_index_ref ref;
    } ipack[HTTP_IPACK_CACHE];
    unsigned ipack_next;
    /* a tile was taken from the disk cache, which another server of the
     * same log may have filled (kixd --http: tiles without locators);
     * itile_nocache: read them from the server alone */
    int itile_cached, itile_nocache;
    /* the index note last read, at size note_size (read again for another) */
    struct kix_buf note;
    uint64_t note_size;
    struct http_blobs objects, records;
    /* the disk cache (source_http_cache.c), NULL until the client verified
     * a checkpoint of size vsize, root vroot, of the log of key cache_key_hash */
    struct http_cache *cache;
    uint32_t cache_key_hash;
    uint64_t vsize;
    uint8_t vroot[32];
    int root_state;    /* 0 unchecked, 1 the edge tiles hash to vroot, -1 they do not */
    int checking_root; /* tile reads are captured into edge */
    struct http_edge edge[HTTP_EDGE_MAX];
    size_t nedge;
};

struct http_source *http_of(struct kix_source *s);
/* Fetches the checkpoint (again when refresh, or when none yet). */
int http_latest(struct http_source *h, int refresh, struct kix_err *err);
/* Milliseconds since the checkpoint was fetched (UINT64_MAX: never). */
uint64_t http_latest_age_ms(const struct http_source *h);
int http_inclusion_at(struct http_source *h, uint64_t index, uint64_t size,
                      struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n, struct kix_err *err);
/* Loads the bundle holding entry index in the tree of size; then
 * http_bundle_leaf gives its leaf (a view valid until the next load). */
int http_bundle(struct http_source *h, uint64_t index, uint64_t size, struct kix_err *err);
void http_bundle_leaf(const struct http_source *h, uint64_t index, struct kix_bytes *leaf);
/* kix/merkle.h's tile io over the fetched tiles at size (sets h->io_size). */
struct kix_tile_io http_tile_io(struct http_source *h, uint64_t size);

/* source_http_cache.c: the disk cache. http_cache_fetch reads p (at path)
 * from it when kept and part of the verified tree, else GETs it and keeps
 * it when it is; http_cache_named_get/put the same for a file named by
 * the SHA-256 of its bytes or, for an index tile, of its top record
 * (KIX_ENOTFOUND: not kept); http_cache_capture
 * is tile_read's (a no-op unless the root check runs); http_cache_verified
 * is the source op `verified`; http_cache_clear frees the edge copies. */
int http_cache_fetch(struct http_source *h, const struct kix_tlog_path *p, const char *path,
                     size_t max, struct kix_buf *out, struct kix_err *err);
enum http_named { HTTP_NAMED_SHA256, HTTP_NAMED_ITILE };
int http_cache_named_get(struct http_source *h, const char *path, const uint8_t name[32],
                         enum http_named kind, size_t max, struct kix_buf *out);
void http_cache_named_put(struct http_source *h, const char *path, const uint8_t name[32],
                          enum http_named kind, const uint8_t *bytes, size_t len);
/* source_http_index.c: 1 when v is exactly the index tile whose top
 * subtree hashes to name (every record it holds reached from the top, each
 * the preimage of the hash its parent names, none missing). */
int http_itile_named(const uint8_t *v, size_t len, const uint8_t name[32]);
void http_cache_capture(struct http_source *h, uint32_t level, uint64_t index,
                        const struct kix_bytes *rec);
struct kix_verifier;
struct kix_checkpoint;
int http_cache_verified(struct kix_source *s, const char *cache_root,
                        const struct kix_verifier *key, const struct kix_checkpoint *cp,
                        struct kix_err *err);
void http_cache_clear(struct http_source *h);

/* source_http_index.c: the index note at the latest checkpoint's size
 * appended to note (KIX_ENOTSUP when the copy has none), the proof and
 * record of key under it (after http_index_note), and the source op. */
int http_index_note(struct http_source *h, struct kix_buf *note, struct kix_err *err);
int http_index_prove(struct http_source *h, const char *key, struct kix_index_answer *a,
                     struct kix_err *err);
int http_index_proof(struct kix_source *s, const char *key, struct kix_index_answer *a,
                     struct kix_err *err);
void http_index_clear(struct http_source *h);

/* A run's manifest a static copy holds in the run's page and its
 * bundle's pack, not as objects/<digest> (PROTOCOL.md §3, "One manifest a
 * run"): the run from the proven index record manifest/<hex>, then its
 * page's #kix-view's manifestCanonical, appended to out only when it
 * hashes to d. KIX_ENOTFOUND when no run page holds it; KIX_EVERIFY when
 * the page carries another manifest. */
int http_manifest_in_page(struct http_source *h, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err);
int http_resolve(struct kix_source *s, const char *ref, uint64_t from, struct kix_resolution *out,
                 struct kix_err *err);
int http_query(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
               uint64_t *matched, struct kix_err *err);

#endif
