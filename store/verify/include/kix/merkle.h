/* kix/merkle.h — the RFC 9162 Merkle tree: hashing, proofs, verification,
 * and the tile layout in which the log stores its tree hashes.
 *
 * Hashing (RFC 9162 §2.1.1): leaf hash SHA-256(0x00 ‖ data), interior node
 * SHA-256(0x01 ‖ left ‖ right), root of the empty tree SHA-256(""). Proofs
 * are lists of hashes in the RFC's order, the one nearest the leaf first.
 *
 * Node coordinates: node (level l, index i) is the complete subtree over
 * leaves [i·2^l, (i+1)·2^l); level 0 holds the leaf hashes. A tree of size n
 * is made of complete nodes only; the hash of an incomplete right edge is
 * always computed from complete nodes, never stored.
 *
 * Memory: every function writes into caller-owned structs and arrays; none
 * allocates anything the caller must free. Proof arrays hold
 * KIX_MERKLE_MAX_PROOF hashes.
 *
 * Errors: verification returns KIX_EVERIFY with a message naming the cause
 * (index not below size, wrong proof length, root mismatch...). Proof
 * generation returns KIX_EINVAL for impossible arguments; the tile functions
 * return KIX_ECORRUPT when stored tiles are missing or malformed, and pass on
 * the codes of the read/write callbacks.
 */
#ifndef KIX_MERKLE_H
#define KIX_MERKLE_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_HASH_LEN 32

/* An inclusion proof has at most 64 hashes. A consistency proof can hold one
 * more: the seed node plus a 64-hash path (size1 = 2^64-3, size2 = 2^64-1
 * needs 65), so arrays are sized for that. */
#define KIX_MERKLE_MAX_PROOF 65

struct kix_hash {
    uint8_t b[KIX_HASH_LEN];
};

/* ---- Pure hashing ---------------------------------------------------- */

/* SHA-256(0x00 ‖ data). */
KIX_API void kix_merkle_leaf_hash(const void *data, size_t len, struct kix_hash *out);
/* SHA-256(0x01 ‖ left ‖ right); out may alias left or right. */
KIX_API void kix_merkle_node_hash(const struct kix_hash *left, const struct kix_hash *right,
                                  struct kix_hash *out);
/* SHA-256(""), the root of the empty tree. */
KIX_API void kix_merkle_empty_root(struct kix_hash *out);

/* ---- In-memory reference (RFC 9162 §2.1.1, §2.1.3.1, §2.1.4.1) -------- *
 * These follow the RFC's recursive definitions literally over an array of
 * leaf hashes and cost O(size) hashing per call: they are the reference the
 * tile code is tested against, and serve small trees. */

/* MTH(D[0:size]); size 0 gives the empty root. */
KIX_API void kix_merkle_root(const struct kix_hash *leaves, uint64_t size, struct kix_hash *out);

/* PATH(index, D[0:size]) into proof[], its length into *len.
 * KIX_EINVAL when index >= size. */
KIX_API int kix_merkle_inclusion_proof(const struct kix_hash *leaves, uint64_t size, uint64_t index,
                                       struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                       struct kix_err *err) KIX_MUST_CHECK;

/* PROOF(size1, D[0:size2]); empty when size1 == size2.
 * KIX_EINVAL when size1 == 0 or size1 > size2. */
KIX_API int kix_merkle_consistency_proof(const struct kix_hash *leaves, uint64_t size1,
                                         uint64_t size2,
                                         struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                         struct kix_err *err) KIX_MUST_CHECK;

/* ---- Verification (RFC 9162 §2.1.3.2, §2.1.4.2) ---------------------- *
 * The rules of transparency-dev/merkle proof/verify.go: the proof length
 * must be exactly the one the sizes imply. All return KIX_OK or KIX_EVERIFY.
 * The tree size is not bound into the hashes: a proof may also verify for
 * another size whose proof has the same shape. What pins the size is the
 * signed checkpoint the root came from. */

/* Expected proof lengths (0 for arguments the verifiers reject outright). */
KIX_API size_t kix_merkle_inclusion_len(uint64_t index, uint64_t size);
KIX_API size_t kix_merkle_consistency_len(uint64_t size1, uint64_t size2);

/* The root that `proof` implies for `leaf` at `index` in a tree of `size`.
 * KIX_EVERIFY when index >= size or the proof length is wrong; *root is then
 * zeroed. */
KIX_API int kix_merkle_root_from_inclusion(uint64_t index, uint64_t size,
                                           const struct kix_hash *leaf,
                                           const struct kix_hash *proof, size_t proof_len,
                                           struct kix_hash *root,
                                           struct kix_err *err) KIX_MUST_CHECK;

/* Checks that `leaf` is at `index` in the tree of `size` with `root`. */
KIX_API int kix_merkle_verify_inclusion(uint64_t index, uint64_t size, const struct kix_hash *leaf,
                                        const struct kix_hash *proof, size_t proof_len,
                                        const struct kix_hash *root,
                                        struct kix_err *err) KIX_MUST_CHECK;

/* Checks that the tree of size1 with root1 is a prefix of the tree of size2
 * with root2. size1 == 0 is an error (nothing to prove); size1 == size2
 * needs an empty proof and equal roots; size1 > size2 is an error. */
KIX_API int kix_merkle_verify_consistency(uint64_t size1, uint64_t size2,
                                          const struct kix_hash *root1,
                                          const struct kix_hash *root2,
                                          const struct kix_hash *proof, size_t proof_len,
                                          struct kix_err *err) KIX_MUST_CHECK;

/* ---- Tile storage ------------------------------------------------------ *
 * The log keeps its tree hashes in tiles of height 8, so that appending
 * costs amortized O(1) hashing per leaf and any proof, at any size up to the
 * current one, costs O(log n) tile reads (at most two tiles per tile level).
 *
 * Tile (L, N) holds hash levels 8L..8L+7. Its bottom row is the level-8L
 * nodes [256N, 256N+256); above them it holds every complete node those
 * cover, up to level 8L+7. Record format (bytes):
 *
 *   W            2 bytes, big-endian, 1..256: bottom-row nodes present
 *   row 0        W hashes of level 8L       (nodes 256N .. 256N+W-1)
 *   row 1        W/2 hashes of level 8L+1   (integer division: complete only)
 *   ...
 *   row 7        W/128 hashes of level 8L+7
 *
 * so a record is 2 + 32·(W + W/2 + ... + W/128) bytes, at most
 * KIX_TILE_MAX_BYTES (W = 256, 510 hashes). A tile is full at W = 256; its
 * root (a level 8L+8 node) is not stored in it but in the bottom row of tile
 * (L+1, N/256), at position N % 256. Every complete node thus lives in
 * exactly one place, and never changes once written: a tile only grows.
 * In a tree of n leaves tile (L, N) exists iff (n >> 8L) > 256N, and then
 * W = min(256, (n >> 8L) - 256N).
 *
 * The bottom row (bytes 2 .. 2+32W) is exactly the C2SP tlog-tiles tile
 * `tile/L/N` (or `.p/W`), so a static export copies it out unchanged.
 *
 * Storage is reached through callbacks, so this code knows nothing of LMDB.
 * Each call takes the io struct and uses it only during the call. The
 * functions that read the tree (all but append) never write, read each tile
 * at most once per call, and trust the caller that `size` is at most the
 * number of leaves appended so far: a larger size usually fails with
 * KIX_ECORRUPT (missing tile) but the tiles cannot always tell.
 */

#define KIX_TILE_HEIGHT    8
#define KIX_TILE_WIDTH     256
#define KIX_TILE_MAX_BYTES (2 + KIX_HASH_LEN * 510)

struct kix_tile_io {
    /* Finds tile (level, index): sets *out to a view of its record, valid
     * until the next write; returns KIX_OK, KIX_ENOTFOUND when absent, or
     * another code (then err may say why). */
    int (*read)(void *ctx, uint32_t level, uint64_t index, struct kix_bytes *out,
                struct kix_err *err);
    /* Stores (replaces) tile (level, index). data is valid only during the
     * call. Returns KIX_OK or a code (err may say why). */
    int (*write)(void *ctx, uint32_t level, uint64_t index, const uint8_t *data, size_t len,
                 struct kix_err *err);
    void *ctx;
    uint64_t reads; /* incremented once per read call, for accounting */
};

/* Appends `count` leaf hashes to the tree of `old_size` leaves and sets
 * *new_root to the root at old_size + count (count may be 0). Writes each
 * changed tile exactly once, with its final content. Reads at most one tile
 * per tile level, never one twice: the partial tile it extends (copied
 * before any write) or, above the levels it changed, the tile holding the
 * right edge needed for the root. Hashing is one node hash per new complete
 * node plus O(log n) to fold the root.
 * KIX_ELIMIT when the size would pass 2^64-1; KIX_ECORRUPT when a partial
 * tile is missing or does not match old_size; KIX_ENOMEM. On error some
 * tiles may have been written: the caller aborts its transaction. */
KIX_API int kix_tiles_append(struct kix_tile_io *io, uint64_t old_size,
                             const struct kix_hash *leaf_hashes, size_t count,
                             struct kix_hash *new_root, struct kix_err *err) KIX_MUST_CHECK;

/* Hash of complete node (level, index) in the tree of `size`.
 * KIX_EINVAL when that node is not complete at `size`. */
KIX_API int kix_tiles_hash(struct kix_tile_io *io, uint64_t size, uint32_t level, uint64_t index,
                           struct kix_hash *out, struct kix_err *err) KIX_MUST_CHECK;

/* The leaf hash at `index` (one tile read). */
KIX_API int kix_tiles_leaf_hash(struct kix_tile_io *io, uint64_t index, struct kix_hash *out,
                                struct kix_err *err) KIX_MUST_CHECK;

/* Root of the tree of `size` leaves (the empty root for 0, no reads). */
KIX_API int kix_tiles_root(struct kix_tile_io *io, uint64_t size, struct kix_hash *out,
                           struct kix_err *err) KIX_MUST_CHECK;

/* Inclusion proof of leaf `index` in the tree of `size`, the same hashes as
 * kix_merkle_inclusion_proof. KIX_EINVAL when index >= size. */
KIX_API int kix_tiles_inclusion_proof(struct kix_tile_io *io, uint64_t index, uint64_t size,
                                      struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* The partial nodes on the right edge of the tree of one size, which every
 * inclusion proof at that size folds from up to log2(size) complete nodes:
 * the caller keeps one per size it serves, so each is hashed once. The
 * caller owns it and shares it between threads as it sees fit. */
struct kix_tile_edge {
    uint64_t size; /* the tree size the hashes belong to */
    uint64_t have; /* bit i: node[i] is the partial node of level i */
    uint8_t node[64][KIX_HASH_LEN];
};

/* kix_tiles_inclusion_proof that reads and fills `edge` (reset first when
 * it belongs to another size; NULL: none). */
KIX_API int kix_tiles_inclusion_proof_edge(struct kix_tile_io *io, struct kix_tile_edge *edge,
                                           uint64_t index, uint64_t size,
                                           struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                           struct kix_err *err) KIX_MUST_CHECK;

/* Consistency proof from size1 to size2, the same hashes as
 * kix_merkle_consistency_proof (empty, with no reads, when equal).
 * KIX_EINVAL when size1 == 0 or size1 > size2. */
KIX_API int kix_tiles_consistency_proof(struct kix_tile_io *io, uint64_t size1, uint64_t size2,
                                        struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                        struct kix_err *err) KIX_MUST_CHECK;

#endif
