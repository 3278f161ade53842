/* kix/vindex.h — the verifiable index: what kix derives from a log prefix,
 * committed in a sparse Merkle tree (kix/smt.h) whose root the log key
 * signs beside every checkpoint, so that a reader can check a run's record,
 * its complete entry list and its rank without trusting the server.
 *
 * Keys (ASCII bytes; the tree's path is SHA-256 of the key):
 *   run/<runId>            the run's record (struct kix_vindex_run)
 *   group/<64 hex>         a comparison group's directory: its size and pages
 *   group/<64 hex>/<run>   one page of its ranked members, best first: the
 *                          run that starts it ("" for the group's first page)
 *   key/<64 hex key id>    a registry key: public key, roles, added, revoked
 *   manifest/<64 hex>      the run a manifest digest was published as
 *   withdrawn/<64 hex>     a comparison group's withdrawn runs (kix-index/5)
 * Values are the fixed binary records below (integers u64 big-endian,
 * "none" = 2^64-1, strings a 1-byte length then the bytes); the tree holds
 * SHA-256 of the value. The format is specified in proto/PROTOCOL.md
 * ("The verifiable index") and checked by tests/integration/vindex_verify.py,
 * which shares no code with this file.
 *
 * A run's entries (publication, attestations, reruns, supersessions of it
 * and to it, withdrawals and reinstatements, in log order) are committed by their count and a chain
 * hash: c0 = 32 zero bytes, c' = SHA-256(0x04 ‖ c ‖ u64be index ‖ leaf hash), the leaf hash being
 * RFC 9162's. A reader who holds every entry (pages of them, each proven included) recomputes it:
 * nothing can be withheld.
 *
 * The index note binds the tree's root to one checkpoint; it is a C2SP
 * signed note, signed by the log key, whose text is
 *   kix.index/v1\norigin <origin>\nsize <N>\nlog <b64 root>\nindex <b64 root>\n
 * It is never a checkpoint (its second line is not a number), and the
 * checkpoint itself is unchanged, so every tlog verifier still accepts it.
 *
 * Memory: encoders append to a caller's struct kix_buf; decoders fill
 * caller structs and, for groups, call back per member. Errors: KIX_EVERIFY
 * (a proof, note or record that does not check, with a message naming
 * what), KIX_EINVAL (bad arguments), KIX_ENOMEM.
 */
#ifndef KIX_VINDEX_H
#define KIX_VINDEX_H

#include "kix/api.h"

#include "kix/index.h"
#include "kix/note.h"
#include "kix/smt.h"

#define KIX_VINDEX_NOTE_HEADER "kix.index/v1"
/* "group/" + 64 hex + "/" + a run id, the longest key */
#define KIX_VINDEX_KEY_MAX (6 + 64 + 1 + KIX_RUN_ID_MAX)
/* record tags: the first byte of each value */
enum kix_vindex_tag {
    KIX_VINDEX_RUN = 0x01,
    KIX_VINDEX_GROUP = 0x02,
    KIX_VINDEX_KEY = 0x03,
    KIX_VINDEX_MANIFEST = 0x04,
    KIX_VINDEX_GROUP_PAGE = 0x05,
    KIX_VINDEX_WITHDRAWN = 0x07, /* (0x05 and 0x06 also tag selection records) */
};

/* ---- keys ------------------------------------------------------------------ */

KIX_API size_t kix_vindex_key_run(const char *run_id, size_t len, char out[KIX_VINDEX_KEY_MAX + 1]);
KIX_API size_t kix_vindex_key_group(const struct kix_digest *key, char out[KIX_VINDEX_KEY_MAX + 1]);
/* A group's page by the run that starts it; page_id "" for its first. */
KIX_API size_t kix_vindex_key_group_page(const struct kix_digest *key, const char *page_id,
                                         char out[KIX_VINDEX_KEY_MAX + 1]);
KIX_API size_t kix_vindex_key_key(const uint8_t key_id[32], char out[KIX_VINDEX_KEY_MAX + 1]);
KIX_API size_t kix_vindex_key_manifest(const struct kix_digest *d,
                                       char out[KIX_VINDEX_KEY_MAX + 1]);

/* ---- records ----------------------------------------------------------------- */

/* A run's record: kix_run_info's derived fields, its supersession links by
 * run id, and its entry list's count and chain. */
struct kix_vindex_run {
    struct kix_run_info info; /* run_id is the key's, not in the value */
    char predecessor[KIX_RUN_ID_MAX + 1];
    char successor[KIX_RUN_ID_MAX + 1];
};

/* The chain step over one entry (see above); out may alias chain. */
KIX_API void kix_vindex_chain(const struct kix_hash *chain, uint64_t index,
                              const struct kix_hash *leaf_hash, struct kix_hash *out);

KIX_API int kix_vindex_run_encode(const struct kix_vindex_run *r,
                                  struct kix_buf *out) KIX_MUST_CHECK;
/* Strict: exact length, known tag and evidence, grouped 0/1 with a zero
 * group when 0 (and 0 while withdrawn), run ids valid or empty.
 * KIX_EVERIFY otherwise. The record ends with the withdrawal in force
 * (u64, none when the run is not withdrawn; kix-index/5). */
KIX_API int kix_vindex_run_decode(const uint8_t *v, size_t len, const char *run_id,
                                  struct kix_vindex_run *out, struct kix_err *err) KIX_MUST_CHECK;

/* Groups are paged so that one page, or one run's rank, is proven
 * without the whole group. A group's ranked members, in rank order (value
 * ascending, then run id bytes), are cut before every member that starts
 * a page: one whose SHA-256(KIX_VINDEX_PAGE_TAG ‖ run id) is below
 * 256/KIX_VINDEX_PAGE_MEAN in its first byte (kix_vindex_page_starts, the
 * hash rule), or one that follows KIX_VINDEX_PAGE_MAX members of its page
 * (a full page). The hash cut depends on the members alone, so an insert
 * or a leave rewrites one page (two on a split or merge) and the
 * directory; the full-page cut bounds a page however a publisher grinds
 * its ids (at most KIX_VINDEX_PAGE_BYTES), at the price of recutting the
 * rest of an over-long hash segment on each change in it.
 *
 * Directory (group/<hex>): tag 0x02, comparison key(32), u64 count,
 * u64 pages, then per page in rank order: u64 members, u64 first value,
 * first run id (id; empty only for an empty first page). Page
 * (group/<hex>/<page id>): tag 0x05, comparison key(32), page id (id,
 * empty for the first page), u64 count, then per member: u64 value, id.
 * A page whose starting run left the group, or starts no page now, keeps
 * its key with no member (keys are never removed) and is not in the
 * directory. */
#define KIX_VINDEX_PAGE_TAG  "kix.group.page\n"
#define KIX_VINDEX_PAGE_MEAN 64
/* members of a page at most: with ids of KIX_RUN_ID_MAX bytes its record
 * is 1 + 32 + 129 + 8 + 448 × (8 + 129) = 61,546 bytes, under 64 KiB */
#define KIX_VINDEX_PAGE_MAX   448
#define KIX_VINDEX_PAGE_BYTES 65536u
KIX_API int kix_vindex_page_starts(const char *run_id, size_t len);

KIX_API int kix_vindex_group_begin(const struct kix_digest *key, uint64_t count, uint64_t pages,
                                   struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_vindex_group_page_add(uint64_t members, const char *first_run, uint64_t first_value,
                                      struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_vindex_page_begin(const struct kix_digest *key, const char *page_id, uint64_t count,
                                  struct kix_buf *out) KIX_MUST_CHECK;
/* A page's member. */
KIX_API int kix_vindex_group_add(const char *run_id, uint64_t value,
                                 struct kix_buf *out) KIX_MUST_CHECK;

/* A directory decoded: size, pages, best run (the first member). */
struct kix_vindex_dir {
    uint64_t count, pages;
    char best[KIX_RUN_ID_MAX + 1];
    uint64_t best_value;
};
/* One page as its directory lists it. */
struct kix_vindex_page {
    uint64_t index;      /* 0-based among the directory's pages */
    uint64_t first_rank; /* the rank of its first member (1-based) */
    uint64_t members, first_value;
    char first_run[KIX_RUN_ID_MAX + 1]; /* also its id, but for page 0 */
};
/* Decodes and checks a directory (its key is `key`, pages in rank order,
 * each but the first starting at a run that starts a page, the counts
 * adding up); fn (may be NULL) sees each page, non-zero stops it. */
typedef int (*kix_vindex_page_fn)(void *ctx, const struct kix_vindex_page *p);
KIX_API int kix_vindex_group_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                                    struct kix_vindex_dir *out, kix_vindex_page_fn fn, void *ctx,
                                    struct kix_err *err) KIX_MUST_CHECK;
/* The directory's page with that id ("" the first): KIX_EVERIFY if none. */
KIX_API int kix_vindex_group_find_page(const uint8_t *dir, size_t dir_len,
                                       const struct kix_digest *key, const char *page_id,
                                       struct kix_vindex_dir *d, struct kix_vindex_page *out,
                                       struct kix_err *err) KIX_MUST_CHECK;
/* Decodes and checks a page: its key, its id (into page_id), members
 * strictly in rank order, the first being the page's id, none after it
 * starting a page. With `want` (the directory's word on it) its count and
 * first member must be the directory's; fn sees each member with its rank
 * (want's first_rank on; 1 without want), non-zero stops it. */
typedef int (*kix_vindex_member_fn)(void *ctx, uint64_t rank, const char *run_id, uint64_t value);
KIX_API int kix_vindex_page_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                                   const struct kix_vindex_page *want,
                                   char page_id[KIX_RUN_ID_MAX + 1], kix_vindex_member_fn fn,
                                   void *ctx, struct kix_err *err) KIX_MUST_CHECK;
/* A run's rank from its group's directory and the page that holds it:
 * rank (0 when the page does not list it), size, best run and value. */
KIX_API int kix_vindex_group_rank(const uint8_t *dir, size_t dir_len, const uint8_t *page,
                                  size_t page_len, const struct kix_digest *key, const char *run_id,
                                  struct kix_rank *out, struct kix_err *err) KIX_MUST_CHECK;

/* Key: tag, key id(32), public key(32), roles(u8), added(u64), revoked(u64). */
KIX_API int kix_vindex_key_encode(const uint8_t key_id[32], const struct kix_key_info *k,
                                  struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_vindex_key_decode(const uint8_t *v, size_t len, const uint8_t key_id[32],
                                  struct kix_key_info *out, struct kix_err *err) KIX_MUST_CHECK;

/* Manifest: tag, digest(32), run id (u8 length, id), publication index. */
KIX_API int kix_vindex_manifest_encode(const struct kix_digest *d, const char *run_id,
                                       uint64_t publication_index,
                                       struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_vindex_manifest_decode(const uint8_t *v, size_t len, const struct kix_digest *d,
                                       char run_id[KIX_RUN_ID_MAX + 1], uint64_t *publication_index,
                                       struct kix_err *err) KIX_MUST_CHECK;

/* A group's withdrawn runs (withdrawn/<hex>, kix-index/5): those whose
 * manifest names the group and whose withdrawal is in force, so that a
 * group page can list them under its ranks, completely. Tag 0x07,
 * comparison key(32), u64 count, then per run in run id byte order (a
 * prefix first): id, u64 the withdrawal's log index, u8 its reason (enum
 * kix_withdraw_reason). The key is in the tree from the group's first
 * withdrawal on; when every run was reinstated its count is 0. */
KIX_API size_t kix_vindex_key_withdrawn(const struct kix_digest *key,
                                        char out[KIX_VINDEX_KEY_MAX + 1]);
KIX_API int kix_vindex_withdrawn_begin(const struct kix_digest *key, uint64_t count,
                                       struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_vindex_withdrawn_add(const char *run_id, uint64_t index, int reason,
                                     struct kix_buf *out) KIX_MUST_CHECK;
/* Strict decode; fn (may be NULL) sees each run until it returns non-zero;
 * *count (may be NULL) gets the count. KIX_EVERIFY when malformed. */
typedef int (*kix_vindex_withdrawn_fn)(void *ctx, const char *run_id, uint64_t index, int reason);
KIX_API int kix_vindex_withdrawn_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                                        kix_vindex_withdrawn_fn fn, void *ctx, uint64_t *count,
                                        struct kix_err *err) KIX_MUST_CHECK;

/* ---- the index note ------------------------------------------------------------ */

struct kix_vindex_note {
    char origin[KIX_NOTE_NAME_MAX + 1];
    uint64_t size;
    struct kix_hash log_root, index_root;
};

/* Appends the note text (to be signed by the log key). */
KIX_API int kix_vindex_note_text(const struct kix_vindex_note *n,
                                 struct kix_buf *out) KIX_MUST_CHECK;
/* Opens a signed index note with the log key and parses it strictly; when
 * cp is not NULL its origin, size and root must be the checkpoint's.
 * KIX_EVERIFY (or KIX_EINVAL for a malformed note) with the reason. */
KIX_API int kix_vindex_note_open(const char *note, size_t len, const struct kix_verifier *log_key,
                                 const struct kix_checkpoint *cp, struct kix_vindex_note *out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* The index root a signed index note names, read without checking the
 * signature (to pick the tiles a reader then verifies against the opened
 * note): KIX_OK, or KIX_EPROTO when the note names none. */
KIX_API int kix_vindex_note_root(const void *note, size_t len,
                                 struct kix_hash *root) KIX_MUST_CHECK;

/* Checks that under note->index_root `key` has `value` (membership) or,
 * with value NULL, is absent, by an SMT proof (kix_smt_verify). */
KIX_API int kix_vindex_verify(const struct kix_vindex_note *note, const char *key, size_t key_len,
                              const uint8_t *value, size_t value_len, const uint8_t *proof,
                              size_t proof_len, struct kix_err *err) KIX_MUST_CHECK;

/* ---- the server side: proofs from a snapshot (store/index) ------------------- */

/* Appends to `value` (empty on entry) the record of `key` in the snapshot
 * and to `proof` its SMT proof against the root in the snapshot's index
 * note (kix_log_reader_index_note); *present 0 (value left empty, proof of
 * absence) when the index holds no such key. The record comes from the
 * tables and the proof from the tree: on an altered store they disagree,
 * which the proof's verifier sees and kixd check names. */
KIX_API int kix_index_prove(struct kix_log_reader *r, const char *key, size_t len,
                            struct kix_buf *value, struct kix_buf *proof, int *present,
                            struct kix_err *err) KIX_MUST_CHECK;

/* Every key the index in t holds (runs and their manifests, groups with a
 * ranked run, registry keys) with the hash of its record, through fn,
 * until fn returns non-zero (1 stops with KIX_OK; a negative code stops
 * with it). For comparing two indexes key by key (kix audit's diagnosis). */
typedef int (*kix_vindex_key_fn)(void *ctx, const char *key, size_t len,
                                 const struct kix_hash *value_hash);
KIX_API int kix_index_each_key(struct kix_log_txn *t, kix_vindex_key_fn fn, void *ctx,
                               struct kix_err *err) KIX_MUST_CHECK;

/* ---- the index as files (store/index/vindex_files.c, PROTOCOL.md §3.2) ------ *
 *
 *   index/notes/<N>                 the index note at size N, cosigned
 *   index/tile/<hex key>/<hex top>  a tile of the tree (kix/smt.h's stored
 *                                   value) by its storage key and the hash
 *                                   of the subtree at its top
 *   index/value/<key>@<hex hash>    a key's record by the key and its hash
 *   index/pack/<size>.<chunk>       an export's tiles and records (below):
 *                                   the export writes no tile but the root
 *                                   and no record by name; kixd --http
 *                                   serves them all by name, no pack
 *
 * Every tile and value is named by its content, every pack by the export
 * that wrote it: immutable files. */

/* The stored tile at `key` (kix_smt_tile_key) of the snapshot's tree,
 * appended; KIX_ENOTFOUND when none. */
KIX_API int kix_index_tile(struct kix_log_reader *r, const uint8_t *key, size_t klen,
                           struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
/* The record of `key` in the snapshot, appended; KIX_ENOTFOUND when none. */
KIX_API int kix_index_value(struct kix_log_reader *r, const char *key, size_t len,
                            struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
/* The key a tile (kix_smt_tile_key: stratum ‖ prefix) is stored under in
 * the index's smt table since kix-index/6: prefix ‖ stratum, so that a
 * subtree's tiles are adjacent. Its length (klen), or 0 for a malformed key. */
KIX_API size_t kix_index_smt_store_key(const uint8_t *key, size_t klen,
                                       uint8_t out[KIX_SMT_TILE_KEY_MAX]);
/* The relative paths of a tile and of a value (KIX_ELIMIT when cap is short). */
KIX_API int kix_index_file_tile_path(const uint8_t *key, size_t klen, const struct kix_hash *top,
                                     char *out, size_t cap) KIX_MUST_CHECK;
KIX_API int kix_index_file_value_path(const char *key, size_t len,
                                      const struct kix_hash *value_hash, char *out,
                                      size_t cap) KIX_MUST_CHECK;

/* Index packs (PROTOCOL.md §3.2, "Index packs"): an export writes the
 * root tile as its own file (index/tile/00/<hex top>) and every other new
 * tile and record into packs, index/pack/<export size>.<chunk>, each a
 * run of items (kind: 1 byte, body length: 4 bytes big-endian, body) of at
 * most KIX_INDEX_PACK_CHUNK bytes (one larger item alone). A tile's body is
 * its key's length (1 byte), its key, the stored tile and its locators; a
 * record's its value hash (32 bytes) and the record. A tile, in a pack or
 * in its own file, is followed by locators of KIX_INDEX_LOC_LEN bytes:
 * what (0..15: the child tile across that nibble; 0x10 + slot: the record
 * of the leaf in that slot), the export size and the chunk of the pack
 * that holds it. What has no locator is read by its own name (index/tile/,
 * index/value/), as kixd --http serves it and older exports wrote it.
 * Nothing there is believed: a tile is checked against the hash its
 * parent gives, a record against its leaf's value hash. */
#define KIX_INDEX_PACK_CHUNK (16u * 1024u)
#define KIX_INDEX_PACK_MAX   (64u * 1024u * 1024u) /* what a reader fetches at most */
#define KIX_INDEX_PACK_TILE  1u
#define KIX_INDEX_PACK_VALUE 2u
/* a tile whose interior records of its top three levels are said by
 * their type byte alone (each is the hashes of the two records below it in
 * the tile, zeros for an empty one): what an export writes since round
 * three's fourth part, about 30% fewer bytes a pack */
#define KIX_INDEX_PACK_TILE_LEAN 3u
#define KIX_INDEX_LOC_LEN        13u
/* a tile with its locators: 16 children and 15 records at most */
#define KIX_SMT_TILE_ITEM_MAX (KIX_SMT_TILE_MAX + (16u + KIX_SMT_TILE_SLOTS) * KIX_INDEX_LOC_LEN)
struct kix_index_ref {
    uint64_t size;  /* the export that wrote the pack */
    uint32_t chunk; /* its number among that export's packs */
};
/* The length of the stored tile at the start of v (the rest its
 * locators), or 0 when v is not a tile followed by whole locators. */
KIX_API size_t kix_index_tile_len(const uint8_t *v, size_t len);
/* The locator `what` of a tile with locators: KIX_ENOTFOUND when it has
 * none (read that by name), KIX_EINVAL for a malformed tile. */
KIX_API int kix_index_tile_locator(const uint8_t *v, size_t len, unsigned what,
                                   struct kix_index_ref *ref) KIX_MUST_CHECK;
/* The slot (0..14) of the leaf record of path in a stored tile, or -1. */
KIX_API int kix_index_tile_leaf_slot(const uint8_t *v, size_t len, const struct kix_hash *path);
/* index/pack/<size>.<chunk> (KIX_ELIMIT when cap is short). */
KIX_API int kix_index_file_pack_path(const struct kix_index_ref *ref, char *out,
                                     size_t cap) KIX_MUST_CHECK;
/* In a pack: the tile at key whose top record hashes to top (appended to
 * out: the stored tile, a lean one's derived records computed, and its
 * locators), or the record whose value hash the pack says is vh (*out: a
 * view into pack, unchecked: the caller hashes it). KIX_ENOTFOUND when the
 * pack holds none, KIX_ECORRUPT when it is cut, KIX_ENOMEM. */
KIX_API int kix_index_pack_tile(const uint8_t *pack, size_t len, const uint8_t *key, size_t klen,
                                const struct kix_hash *top, struct kix_buf *out) KIX_MUST_CHECK;
KIX_API int kix_index_pack_value(const uint8_t *pack, size_t len, const struct kix_hash *vh,
                                 struct kix_bytes *out) KIX_MUST_CHECK;

struct kix_index_export_stats {
    uint64_t size;  /* the snapshot's size (its note is index/notes/<size>) */
    uint64_t tiles; /* tiles written: only those not in dir yet */
    uint64_t values;
    uint64_t packs; /* index/pack/ files written */
    uint64_t files, bytes;
};
/* Writes into dir the index files of the snapshot's tree that the last
 * export there does not hold: its new tiles and records into packs
 * (index/pack/<size>.<chunk>, each record before its tile, each tile after
 * those below it), the root tile by name, then index/notes/<size> last,
 * each new file written as kix_file_write_batched does, then syncs dir.
 * What did not change since the last export (found through its root tile,
 * by the highest index/notes/<M> below size) is located where that export
 * located it. A log without an index writes nothing. Cost: the tiles on
 * the routes of the keys changed since the last export and their records,
 * and one pass over every key when a record is new (found by key). While
 * it writes, dir/index/exporting (made durable first, removed after the
 * sync) marks the export unfinished: the next export after a power cut
 * then locates nothing in it and writes the whole tree again. */
KIX_API int kix_index_export(struct kix_log_reader *r, const char *dir,
                             struct kix_index_export_stats *st, struct kix_err *err) KIX_MUST_CHECK;

#endif
