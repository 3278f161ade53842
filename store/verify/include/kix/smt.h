/* kix/smt.h — a sparse Merkle tree over 256-bit key paths, with single-leaf
 * collapse: the authenticated key–value map that commits kix's derived index
 * (run records, group records, key records) at every checkpoint, with
 * O(log n) proofs of membership and of absence.
 *
 * Keys and values are byte strings. A key lives at the 256-bit path
 * SHA-256(key), read most significant bit first; bit i of the path picks the
 * child at depth i+1 (0 = left, 1 = right). A value is committed by its hash
 * SHA-256(value). The caller keeps the values themselves; the tree holds
 * (path, value hash) pairs only.
 *
 * Hashing (H = SHA-256, ‖ = concatenation), for the subtree at any position:
 *   no leaf:               32 zero bytes (the "empty hash")
 *   exactly one leaf:      H(0x02 ‖ path ‖ value_hash), wherever the leaf
 *                          sits: a lone leaf is collapsed to the highest
 *                          position whose subtree holds it alone
 *   two leaves or more:    H(0x03 ‖ left ‖ right), an empty child counting
 *                          as 32 zero bytes
 * The root of the empty tree is 32 zero bytes; of a one-key tree, that
 * key's leaf hash. The prefixes 0x02/0x03 keep both preimages 65 bytes long
 * and distinct from each other and from RFC 9162's 0x00/0x01, so no leaf can
 * pass for an interior node or a log node. A leaf hash binds the full path,
 * so a leaf cannot be moved to another position; the depth is not hashed
 * and need not be: the root binds the shape of the tree, and along any
 * path's route the first leaf or empty node ends it, so one root admits at
 * most one answer per path (present with one value hash, or absent).
 *
 * Proof encoding (bytes; what travels, as a msgpack bin, in kix's protocol):
 *
 *   kind      1 byte   0x00 empty: the route of the path ends in an empty
 *                           subtree (absence)
 *                      0x01 member: it ends in the leaf of the path itself
 *                      0x02 other leaf: it ends in the leaf of another path
 *                           (absence); that leaf's path and value hash follow
 *   depth     2 bytes  big-endian, 0..256: depth of the node that ends the
 *                      route (0: the root itself)
 *   bitmap    ceil(depth/8) bytes: bit i (byte i/8, mask 0x80 >> i%8) is set
 *                      when the sibling across path bit i (the other child
 *                      of the route node at depth i) is not empty; the
 *                      padding bits are zero
 *   leaf      64 bytes, kind 0x02 only: the other path, then its value hash
 *   siblings  32 bytes for each set bit, from the root down (depth 1 first)
 *
 * Every proof has exactly one encoding; kix_smt_proof_parse refuses any
 * other byte string: an unknown kind, depth > 256, nonzero padding bits, a
 * sibling marked non-empty that is 32 zero bytes, a length other than the
 * one the header implies (so a proof is at most KIX_SMT_PROOF_MAX bytes).
 * kix_smt_verify also refuses non-canonical shapes: a route that ends at
 * depth d > 0 next to an empty sibling (that node would have collapsed),
 * and an "other leaf" whose path equals the queried one or does not share
 * its first `depth` bits.
 *
 * Storage: the tree lives in records reached through struct kix_smt_io, so
 * this code knows nothing of LMDB (as struct kix_tile_io for the log tree).
 * A record sits at a position (depth, prefix): `prefix` is 32 bytes holding
 * the first `depth` path bits, the rest zero. Only non-empty subtrees have
 * records, and a record is exactly the preimage of its subtree's hash:
 *   leaf      0x02 ‖ path ‖ value_hash     (65 bytes)
 *   interior  0x03 ‖ left ‖ right          (65 bytes; the children's hashes)
 * so a subtree hash is SHA-256(record) and an update reads one record per
 * level (the siblings' hashes are in their parent). Keys are inserted or
 * their value hashes replaced, never deleted; records are only created or
 * replaced, never removed. kix_smt_tiles (below) is the io kixd uses: it
 * stores the records of four levels together, one stored tile for up to
 * 15 records. The store holds the current tree only: a proof at an older
 * root needs an older snapshot of the records (an LMDB read transaction
 * begun then).
 *
 * Memory: functions write into caller-owned structs and buffers; proofs are
 * appended to a caller's struct kix_buf. A parsed proof borrows the bytes
 * it was parsed from. Each call uses the io struct only during the call.
 *
 * Errors (kix/error.h): KIX_EVERIFY from verification, with a message that
 * names what failed; KIX_EINVAL for bad arguments (updates not strictly
 * sorted) and unparseable proofs; KIX_ECORRUPT when stored records are
 * missing or malformed; KIX_ENOMEM; and the codes of the io callbacks.
 */
#ifndef KIX_SMT_H
#define KIX_SMT_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/merkle.h"

#define KIX_SMT_DEPTH      256 /* path bits; leaves sit at depth 0..256 */
#define KIX_SMT_RECORD_LEN 65
/* kind + depth + bitmap + other leaf + one sibling per level */
#define KIX_SMT_PROOF_MAX (3 + KIX_SMT_DEPTH / 8 + 2 * KIX_HASH_LEN + KIX_SMT_DEPTH * KIX_HASH_LEN)
/* kix_smt_pos_key: 2 bytes of depth, then the prefix bytes */
#define KIX_SMT_POS_KEY_MAX (2 + KIX_HASH_LEN)

enum kix_smt_kind {
    KIX_SMT_EMPTY = 0x00,  /* proof: the route ends in an empty subtree */
    KIX_SMT_MEMBER = 0x01, /* proof: it ends in the leaf of the path */
    KIX_SMT_OTHER = 0x02,  /* proof: it ends in another path's leaf */
};

/* One key to set: its path (kix_smt_path) and its value hash. */
struct kix_smt_update {
    struct kix_hash path;
    struct kix_hash value_hash;
};

/* ---- Pure hashing ------------------------------------------------------ */

/* SHA-256(key): the path of a key. */
KIX_API void kix_smt_path(const void *key, size_t len, struct kix_hash *out);
/* SHA-256(value): what the tree holds for a value. */
KIX_API void kix_smt_value_hash(const void *value, size_t len, struct kix_hash *out);
/* SHA-256(0x02 ‖ path ‖ value_hash). */
KIX_API void kix_smt_leaf_hash(const struct kix_hash *path, const struct kix_hash *value_hash,
                               struct kix_hash *out);
/* SHA-256(0x03 ‖ left ‖ right); out may alias left or right. */
KIX_API void kix_smt_node_hash(const struct kix_hash *left, const struct kix_hash *right,
                               struct kix_hash *out);

/* ---- Proofs: parsing and verification (pure) --------------------------- */

/* A parsed proof. `siblings` points into the parsed bytes (nsiblings hashes
 * of 32 bytes, root side first): valid as long as they are. */
struct kix_smt_proof {
    int kind; /* enum kix_smt_kind */
    unsigned depth;
    uint8_t bitmap[KIX_SMT_DEPTH / 8];          /* bits past depth are zero */
    struct kix_hash leaf_path, leaf_value_hash; /* KIX_SMT_OTHER only, else zero */
    const uint8_t *siblings;
    size_t nsiblings;
};

/* Parses proof bytes, refusing every non-canonical encoding (see above).
 * KIX_EINVAL with a message on any malformed input; reads nothing past
 * data[len-1]. */
KIX_API int kix_smt_proof_parse(const uint8_t *data, size_t len, struct kix_smt_proof *out,
                                struct kix_err *err) KIX_MUST_CHECK;

/* Appends the encoding of a proof to out (the exact bytes it was parsed
 * from). KIX_EINVAL for a struct no parse could produce; KIX_ENOMEM. */
KIX_API int kix_smt_proof_encode(const struct kix_smt_proof *proof, struct kix_buf *out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* Checks that under `root` the key at `path` has `value_hash` (membership)
 * or, with value_hash NULL, that it is absent. KIX_OK, or KIX_EVERIFY with a
 * message naming what failed: malformed proof, a membership proof given for
 * absence or the reverse, a leaf off the route, a non-canonical shape, or
 * the root the proof leads to differing from `root` (which is also what a
 * wrong value hash gives). Allocates nothing. */
KIX_API int kix_smt_verify(const struct kix_hash *root, const struct kix_hash *path,
                           const struct kix_hash *value_hash, const uint8_t *proof, size_t len,
                           struct kix_err *err) KIX_MUST_CHECK;

/* ---- Storage ------------------------------------------------------------ */

struct kix_smt_io {
    /* Finds the record at (depth, prefix): sets *out to a view of it, valid
     * until the next write; returns KIX_OK, KIX_ENOTFOUND when there is
     * none, or another code (then err may say why). */
    int (*read)(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                struct kix_bytes *out, struct kix_err *err);
    /* Stores (creates or replaces) the record at (depth, prefix); rec is
     * valid only during the call. Returns KIX_OK or a code. */
    int (*write)(void *ctx, unsigned depth, const uint8_t prefix[KIX_HASH_LEN], const uint8_t *rec,
                 size_t len, struct kix_err *err);
    void *ctx;
    /* Accounting, incremented by this code: read and write calls, and
     * SHA-256 computations. */
    uint64_t reads, writes, hashes;
};

/* A compact storage key for one record's position (for an ordered table of
 * one record per node, as kix-index/2 kept them; kix now keeps tiles, see
 * below): depth as 2 bytes big-endian, then the ceil(depth/8) prefix bytes
 * that hold its bits. Returns the length (2..34). */
KIX_API size_t kix_smt_pos_key(unsigned depth, const uint8_t prefix[KIX_HASH_LEN],
                               uint8_t out[KIX_SMT_POS_KEY_MAX]);

/* The root of the stored tree (one read; 32 zero bytes when empty). */
KIX_API int kix_smt_root(struct kix_smt_io *io, struct kix_hash *root,
                         struct kix_err *err) KIX_MUST_CHECK;

/* Sets the value hashes of `count` keys, whose paths must be strictly
 * increasing (sorted by memcmp, no path twice: else KIX_EINVAL before any
 * read or write), and sets *new_root. A new path is inserted, a present one
 * has its value hash replaced. Reads each record on the routes of the
 * updated paths once, writes each changed record exactly once, children
 * before parents: for k random paths in a tree of n keys, O(k log n) reads,
 * writes and hashes. count 0 only reads the root. On error some records may
 * have been written: the caller aborts its transaction. */
KIX_API int kix_smt_apply(struct kix_smt_io *io, const struct kix_smt_update *updates, size_t count,
                          struct kix_hash *new_root, struct kix_err *err) KIX_MUST_CHECK;

/* The root of the tree holding exactly `count` keys, computed in memory
 * (no storage; recursion depth at most 256): the same root kix_smt_apply
 * reaches from an empty tree. Paths strictly sorted, else KIX_EINVAL. */
KIX_API int kix_smt_root_of(const struct kix_smt_update *updates, size_t count,
                            struct kix_hash *root, struct kix_err *err) KIX_MUST_CHECK;

/* The value hash stored for `path`: KIX_OK, or KIX_ENOTFOUND when absent. */
KIX_API int kix_smt_get(struct kix_smt_io *io, const struct kix_hash *path,
                        struct kix_hash *value_hash, struct kix_err *err) KIX_MUST_CHECK;

/* Appends to `proof` the proof for `path` in the stored tree (membership
 * when present, absence otherwise; one read per level of its route). Sets
 * *present, and *value_hash when present and value_hash is not NULL. */
KIX_API int kix_smt_prove(struct kix_smt_io *io, const struct kix_hash *path, struct kix_buf *proof,
                          int *present, struct kix_hash *value_hash,
                          struct kix_err *err) KIX_MUST_CHECK;

/* ---- Tiled storage ------------------------------------------------------ *
 *
 * struct kix_smt_tiles keeps the records of a struct kix_smt_io in tiles of
 * four levels, for a store with a cost per stored record (LMDB's: a B-tree
 * lookup per read, some 20 bytes and a share of half-full pages per record):
 * a proof then reads one tile per four levels of its route, and the store
 * holds a few records per tile instead of one per node. It changes only
 * where the records are kept: the tree, its hashes and its proofs are the
 * same as over any other io.
 *
 * Tile (stratum s, prefix), s = 0..64, holds the records at depths 4s..4s+3
 * whose positions share the first 4s bits of prefix, in 15 slots: the record
 * at depth 4s + l whose l path bits after the first 4s read b (a number,
 * most significant first) is in slot 2^l - 1 + b, so slot 0 is the tile's
 * top, then each level left to right. Stratum 64 holds depth 256 only
 * (slot 0). A tile is stored as
 *   key    1 byte s, then the ceil(4s/8) bytes holding the first 4s prefix
 *          bits, the bits past them zero (kix_smt_tile_key: 1..33 bytes)
 *   value  2 bytes of bitmap, bit i (byte i/8, mask 0x80 >> i%8) set when
 *          slot i holds a record (bit 15, and past bit 0 for stratum 64,
 *          zero; never all zero), then the 65-byte record of each set slot
 *          in slot order: 2 + 65 x (set bits) bytes, at most
 *          KIX_SMT_TILE_MAX (977, which fits an ordinary LMDB page)
 * A read checks exactly that; any other value is refused.
 *
 * The caller gives two callbacks over the stored tiles and uses `io`. Every
 * tile read or written is kept in memory until kix_smt_tiles_flush or
 * kix_smt_tiles_reset: reads are answered from there first (a walk reads
 * each tile from the store once), and writes change only that copy (one
 * kix_smt_apply rewrites a tile's records several times; the store sees
 * the tile once). So a writer flushes after kix_smt_apply and before its
 * transaction commits; nothing else changes the stored tiles between two
 * flushes (or resets). A write to a tile not in memory that the tiles in
 * memory show to be out of reach of the stored root (below a stored leaf or
 * empty position, so never read by a walk from the root) does not read it
 * first: the flush stores the new tile whole.
 *
 * Memory: the struct owns its cache (release frees it; a struct that was
 * released or only initialised holds no memory). A view from io.read is
 * valid until the next io.write, flush, reset or release. The view that
 * get returns is copied at once: it need only live until the next call of
 * a callback (as LMDB's mdb_get, whose views a put invalidates). Neither
 * the struct nor its io may be copied once initialised (io.ctx is it).
 *
 * Errors: KIX_ECORRUPT for a stored tile that is malformed (its message
 * says the index store is damaged and is to be rebuilt from the log),
 * KIX_EINVAL for a record other than 65 bytes or a depth past 256,
 * KIX_ENOMEM, and the callbacks' codes (get: KIX_ENOTFOUND when there is no
 * such tile, another code on failure; err may say why).
 */
#define KIX_SMT_TILE_LEVELS  4
#define KIX_SMT_TILE_SLOTS   15 /* 1 + 2 + 4 + 8 */
#define KIX_SMT_TILE_KEY_MAX (1 + KIX_HASH_LEN)
#define KIX_SMT_TILE_MAX     (2 + KIX_SMT_TILE_SLOTS * KIX_SMT_RECORD_LEN)

typedef int (*kix_smt_tile_get_fn)(void *ctx, const uint8_t *key, size_t klen,
                                   struct kix_bytes *out, struct kix_err *err);
typedef int (*kix_smt_tile_put_fn)(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val,
                                   size_t vlen, struct kix_err *err);

struct kix__smt_tile;

struct kix_smt_tiles {
    struct kix_smt_io io; /* for kix_smt_*: its ctx is this struct */
    kix_smt_tile_get_fn get;
    kix_smt_tile_put_fn put;
    void *ctx; /* the callbacks' */
    /* Accounting, incremented here: get and put calls. */
    uint64_t gets, puts;
    /* The cache (private): an open-addressing table of cap slots (a power
     * of two, or 0) holding count tiles. */
    struct kix__smt_tile **table;
    size_t cap, count;
};

/* Sets up t over get/put and ctx; allocates nothing. */
KIX_API void kix_smt_tiles_init(struct kix_smt_tiles *t, kix_smt_tile_get_fn get,
                                kix_smt_tile_put_fn put, void *ctx);
/* Stores each tile changed since the last flush or reset, once, in key
 * order, then empties the cache. On error (a put's code) some tiles may
 * have been stored, and the cache is emptied too: the caller aborts its
 * transaction. */
KIX_API int kix_smt_tiles_flush(struct kix_smt_tiles *t, struct kix_err *err) KIX_MUST_CHECK;
/* Empties the cache, dropping the changes not flushed: after an error, or
 * between the lookups of a long read-only walk to bound its memory. */
KIX_API void kix_smt_tiles_reset(struct kix_smt_tiles *t);
/* Frees the cache (the changes not flushed are dropped). */
KIX_API void kix_smt_tiles_release(struct kix_smt_tiles *t);
/* The storage key of tile (stratum, first 4 x stratum bits of prefix);
 * returns its length (1..33). */
KIX_API size_t kix_smt_tile_key(unsigned stratum, const uint8_t prefix[KIX_HASH_LEN],
                                uint8_t out[KIX_SMT_TILE_KEY_MAX]);

/* For a reader of tiles served as files (proto/PROTOCOL.md §3.2), which
 * names each tile by the hash of the subtree at its top: that hash for a
 * stored tile value (SHA-256 of its slot 0 record; KIX_EINVAL for a
 * malformed value), and the hash of the subtree at the top of the child
 * tile on prefix (stratum + 1, prefix holding at least its first
 * 4 x (stratum + 1) bits) from the tile of stratum `stratum` above it:
 * KIX_ENOTFOUND when no interior record of that tile leads there (the
 * route ends inside the tile), KIX_EINVAL for a malformed value. Pure. */
KIX_API int kix_smt_tile_top_hash(const uint8_t *v, size_t len,
                                  struct kix_hash *out) KIX_MUST_CHECK;
KIX_API int kix_smt_tile_child_hash(const uint8_t *v, size_t len, unsigned stratum,
                                    const uint8_t prefix[KIX_HASH_LEN],
                                    struct kix_hash *out) KIX_MUST_CHECK;

/* A tile value packed for a store that keeps tiles on disk (the index's
 * `smt` table since kix-index/7), and back. Packed: 2 bytes of the value's
 * bitmap with bit 15 set (the mark: a tile value never sets it), 2 bytes
 * marking the slots that hold a leaf record (same bit order; bit 15 set
 * since kix-index/8), then 64 bytes for each leaf (path ‖ value hash) and
 * for each interior record of level 3 (slots 7..14), in slot order. An
 * interior record of levels 0 to 2 (slots 0..6) is not kept: its children
 * are in the tile, so it is 0x03 ‖ the hash of each child's record (32
 * zero bytes for an empty child) and unpack computes it (at most 14
 * SHA-256). Packed by kix-index/7 (bit 15 of the leaf marks clear), the
 * interior records of level 2 (slots 3..6) are kept too and only slots
 * 0..2 computed; unpack reads both. A value whose records are not so (not
 * a consistent tree), that would not be shorter packed (one record), or
 * that is full (all 15 slots: the top strata, read by every proof) is kept
 * as it is; unpack gives back such a value as it is too.
 *
 * kix_smt_tile_packed: whether p is packed (else a tile value kept as it
 * is). kix_smt_tile_pack: the packed bytes in out (never longer than v), their
 * length returned; v must be a well-formed tile value (KIX_SMT_TILE_MAX at
 * most). kix_smt_tile_unpack: the tile value in out (KIX_SMT_TILE_MAX
 * bytes of room), its length in *len; KIX_ECORRUPT for packed bytes that
 * are malformed (lengths, marks, a computed interior record with no
 * child). Pure, but for the hashes this process computed (below):
 * kix_smt_tile_pack does not hash again a child vouched for in v, and
 * when v was vouched for, vouches for every child of the records it
 * drops. */
KIX_API int kix_smt_tile_packed(const uint8_t *p, size_t plen);
/* What both forms that leave a tile's upper interior records out
 * (kix_smt_tile_pack here, an export's lean pack tiles: kix/vindex.h) do
 * to get them back: each slot i set in `derive` (bit 15 - i, as a tile's
 * bitmap) becomes 0x03 ‖ the SHA-256 of the record in slot 2i + 1 ‖ that
 * of slot 2i + 2 (32 zero bytes for a slot `bits` leaves empty), from
 * the bottom up, so a derived record's derived children come first.
 * recs holds the tile's records by slot. Pure. */
KIX_API void kix_smt_tile_derive(uint8_t recs[KIX_SMT_TILE_SLOTS][KIX_SMT_RECORD_LEN],
                                 unsigned bits, unsigned derive);
KIX_API size_t kix_smt_tile_pack(const uint8_t *v, size_t len, uint8_t out[KIX_SMT_TILE_MAX]);
/* The hashes this process computed, so that packing does not compute them
 * again (kixd's writer packed each tile it stored hashing up to 14 records
 * the tree code had just hashed). kix_smt_tile_vouch says, for the tile
 * value at v (by address and length: these bytes, unchanged since), that
 * the records in `children` (slots 1..14, wire bits as a tile's bitmap)
 * hash to their halves in their parents because this process computed
 * those halves from them; NULL forgets. One value a thread; what was
 * vouched for is read back by kix_smt_tile_vouched (0 for any other
 * bytes). kix_smt_tiles vouches for each value its flush hands a put (the
 * records kix_smt_apply wrote under parents it wrote, and those a get
 * vouched for and nothing rewrote) until the put returns, and takes a
 * get's vouch for the value it returns (forgetting it then). Never vouch
 * for bytes read from a store or the network: a record read is hashed
 * and checked. kix_smt_tile_derived: the children whose hashes
 * kix_smt_tile_unpack computes for packed value p (those of the records
 * it derives; 0 for a value kept as it is), for a get that unpacks to
 * vouch for. */
KIX_API void kix_smt_tile_vouch(const uint8_t *v, size_t len, unsigned children);
KIX_API unsigned kix_smt_tile_vouched(const uint8_t *v, size_t len);
KIX_API unsigned kix_smt_tile_derived(const uint8_t *p, size_t plen);
KIX_API int kix_smt_tile_unpack(const uint8_t *p, size_t plen, uint8_t out[KIX_SMT_TILE_MAX],
                                size_t *len) KIX_MUST_CHECK;

#endif
