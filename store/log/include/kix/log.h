/* kix/log.h — the signed, append-only log kept in a kix store (LMDB).
 *
 * Every entry (leaf) is the RFC 8785 canonical JSON of a DSSE envelope whose
 * payload is an in-toto Statement v1 (kix/entry.h says what each predicate
 * means). The log enforces who may sign what: entry 0 registers the first
 * admin key and is signed by the log key itself; every later entry must be
 * signed by a registered, unrevoked key holding the role its type needs,
 * and every object it names must be stored or sent with it. What the
 * entries mean beyond that is the business of the index above (kix/index.h),
 * which the log keeps in step through struct kix_log_indexer (kix/log_txn.h).
 *
 * Appending is two steps so that the expensive, stateless part can run on
 * many threads: kix_log_prepare() parses, canonicalizes and verifies the
 * signature of one submission (any thread, concurrently); kix_log_commit()
 * then applies the policy to a batch of prepared submissions in order and
 * writes them, their objects, the tree tiles, every index (its own and the
 * indexer's) and one new signed
 * checkpoint in a single durable LMDB transaction (group commit). A rejected
 * submission in a batch does not stop the others; an I/O failure stores
 * nothing at all.
 *
 * A replica (a mirror, or an auditor's local copy) holds no log key: it
 * replays entries with kix_log_replay(), which applies exactly the same
 * policy, requires every entry to be accepted at its original index, and
 * stores the upstream's signed checkpoint only if the recomputed root
 * matches it. A replica is therefore always a verified prefix of the log.
 *
 * Reading happens through struct kix_log_reader, one LMDB read transaction:
 * a consistent snapshot that never blocks the writer; its views are valid
 * until kix_log_read_end().
 *
 * Errors: KIX_EPOLICY (a rule refused it; the message names the rule),
 * KIX_EVERIFY (a signature, proof or checkpoint did not verify), KIX_EINVAL
 * (malformed input), KIX_ELIMIT, KIX_ENOTFOUND, KIX_EFULL, KIX_ECORRUPT
 * (the stored log does not match its own checkpoint), KIX_EIO, KIX_ENOMEM.
 */
#ifndef KIX_LOG_H
#define KIX_LOG_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/entry.h"
#include "kix/error.h"
#include "kix/merkle.h"
#include "kix/note.h"
#include "kix/store.h"

#define KIX_BUNDLE_MAX_OBJECTS 64u /* objects sent with one submission */

struct kix_log;

struct kix_log_indexer; /* kix/log_txn.h */

struct kix_log_opts {
    struct kix_store_opts store;
    int replica; /* open a replica (no log key; kix_log_replay only) */
    /* The log key's file: kix_log_create writes it there, kix_log_open
     * reads it from there; NULL for DIR/log.key. Kept outside the store,
     * the key is not in the store's copies and backups. */
    const char *log_key_file;
    /* The layer above whose tables follow every append (the index:
     * kix_index_indexer()), or NULL for a plain log. A log created
     * with an indexer refuses to append when opened without one, so its
     * tables never fall behind. */
    const struct kix_log_indexer *indexer;
};

/* Creates a new log in `dir` (which must not hold one): the store, the log
 * key DIR/log.key (0600) named `origin`, and entry 0 registering `admin` as
 * the first admin key, signed by the log key, with its checkpoint.
 * *log_vkey (may be NULL) gets the log's verifier key text. */
KIX_API int kix_log_create(const char *dir, const char *origin, const uint8_t admin_pub[32],
                           const struct kix_log_opts *opts, struct kix_buf *log_vkey,
                           struct kix_err *err) KIX_MUST_CHECK;

/* Creates an empty replica of the log whose verifier key is `log_key`. */
KIX_API int kix_log_create_replica(const char *dir, const struct kix_verifier *log_key,
                                   const struct kix_log_opts *opts,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* Opens a log (or replica). A log needs its key (opts->log_key_file, else
 * DIR/log.key) unless opts->replica or read-only: a missing key is
 * KIX_ENOTFOUND with cause KIX_CAUSE_NO_LOG_KEY. */
KIX_API int kix_log_open(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                         struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_log_close(struct kix_log *l);
/* kix_log_close, saying what the close could not do: writing index.mdb
 * again in key order (kix_store_opts.compact, or an index the open at
 * least doubled) fails with its cause and leaves the index whole as it
 * was; l is closed and freed either way. kix_log_close ignores it. */
KIX_API int kix_log_close_checked(struct kix_log *l, struct kix_err *err) KIX_MUST_CHECK;

KIX_API const char *kix_log_origin(const struct kix_log *l);
KIX_API const struct kix_verifier *kix_log_verifier(const struct kix_log *l);
KIX_API struct kix_store *kix_log_store(struct kix_log *l);
KIX_API int kix_log_is_replica(const struct kix_log *l);
/* The indexer format the store's index tables were written in (struct
 * kix_log_indexer's name, e.g. "kix-index/6") into out; "" for a log that
 * keeps no index or was never indexed. A writable open with an indexer of
 * another name rebuilds them. */
KIX_API int kix_log_index_format(struct kix_log *l, char *out, size_t cap) KIX_MUST_CHECK;

/* ---- appending ---------------------------------------------------------- */

struct kix_submission {
    struct kix_bytes envelope;       /* DSSE envelope JSON (any formatting) */
    const struct kix_bytes *objects; /* JSON objects the entry needs */
    size_t nobjects;
};

struct kix_prepared;

/* Parses and canonicalizes the envelope, its statement and objects, checks
 * that the subject and references are consistent, and verifies the
 * signature against the key registry as it stands now (rechecked in
 * commit). Thread-safe. *out is owned by the caller (kix_prepared_free). */
KIX_API int kix_log_prepare(struct kix_log *l, const struct kix_submission *sub,
                            struct kix_prepared **out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_prepared_free(struct kix_prepared *p);

/* kix_log_prepare in two steps, for a replica that learns from a leaf which
 * objects to fetch: kix_log_prepare_leaf parses the envelope and statement
 * (no objects, no signature check) and kix_prepared_needs lists the digests
 * the entry needs stored (a view into p); kix_log_prepare_objects then
 * canonicalizes the objects and verifies as kix_log_prepare does, except for
 * the record rules of a new submission (kix/record_rules.h): what an
 * upstream logged is replicated as it is. On its failure p is still the
 * caller's to free. */
KIX_API int kix_log_prepare_leaf(struct kix_log *l, const struct kix_bytes *envelope,
                                 struct kix_prepared **out, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_prepared_needs(const struct kix_prepared *p, const struct kix_digest **needs,
                                size_t *n);
KIX_API int kix_log_prepare_objects(struct kix_log *l, struct kix_prepared *p,
                                    const struct kix_bytes *objects, size_t nobjects,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* The type of a prepared entry; whether its signature was verified yet
 * (by prepare, or kix_log_verify_batch; else commit verifies it). */
KIX_API int kix_prepared_type(const struct kix_prepared *p);
KIX_API int kix_prepared_sig_checked(const struct kix_prepared *p);

/* For a batch prepared before any of it is committed (a replica replaying
 * an upstream batch): prepare could not verify the signatures made with a
 * key that a key entry earlier in the same batch registers, nor, when the
 * batch is prepared while the one before it is still being replayed, with a
 * key that batch registers; commit would verify those one at a time. This
 * verifies them now, on `threads` threads (0: one per CPU), with the keys
 * registered by `earlier` (the batch before, read only: NULL, 0 when none)
 * and by items before them. A signature that does not verify is left for
 * commit, which refuses it with its usual message; so is one whose key the
 * replay then does not register. KIX_OK or KIX_ENOMEM. */
KIX_API int kix_log_verify_batch(struct kix_log *l, struct kix_prepared *const *items, size_t n,
                                 struct kix_prepared *const *earlier, size_t nearlier,
                                 unsigned threads, struct kix_err *err) KIX_MUST_CHECK;

struct kix_append_result {
    int code;                      /* KIX_OK or why this submission was refused */
    char message[KIX_ERR_MSG_MAX]; /* the reason, when code != KIX_OK */
    uint64_t index;                /* its log index (the original one if duplicate) */
    struct kix_hash leaf_hash;
    int duplicate; /* 1: identical envelope already logged */
};

/* Applies a batch in order in one transaction with one new checkpoint.
 * results[i] says what happened to items[i]. Returns KIX_OK when the batch
 * was committed (even if some items were refused), or the error that
 * stopped it (nothing stored). *new_size (may be NULL) is the tree size. */
KIX_API int kix_log_commit(struct kix_log *l, struct kix_prepared *const *items, size_t n,
                           struct kix_append_result *results, uint64_t *new_size,
                           struct kix_err *err) KIX_MUST_CHECK;

/* An upstream's signed checkpoint, for replay. */
struct kix_replay_checkpoint {
    uint64_t size;
    const char *note;
    size_t note_len;
    /* the upstream's index note at that size (see struct kix_log_indexer):
     * required when the log keeps an index; its text must be the one the
     * replica derives, and its signature the log key's */
    const char *index_note;
    size_t index_note_len;
    /* Set only by kix_log_replay_checkpoint_open (zeroed otherwise): what
     * its notes say, once their signatures verified with the log key, so
     * that the replay's one thread does not verify them again. The replay
     * trusts them only under opened_seal, a hash keyed with a secret of
     * the handle that opened them over the notes' bytes and these facts:
     * facts set by hand, copied from another checkpoint, or notes changed
     * after opening are ignored, and the replay opens the notes itself. */
    int checkpoint_opened; /* 1: note verified; signed_size, signed_root */
    uint64_t signed_size;
    uint8_t signed_root[32];
    int index_opened;       /* 1: index_note verified; index_text its text */
    const char *index_text; /* a view into index_note */
    size_t index_text_len;
    uint8_t opened_seal[32];
};

/* Opens c's checkpoint note and index note as kix_log_replay would (the
 * log key's signature; the checkpoint's origin this log's) and keeps what
 * they say in c, so that a replica preparing an upstream batch verifies
 * them on all cores, beside its entries, instead of on the replay's one
 * thread. A note that does not open is left unmarked: the replay opens it
 * itself and refuses it with its usual message, in its usual order. Safe
 * from any thread (l is only read); c's notes must outlive the replay. */
KIX_API void kix_log_replay_checkpoint_open(struct kix_log *l, struct kix_replay_checkpoint *c);

/* What the indexer's seal (struct kix_log_indexer) has cost this handle,
 * summed over its commits: for measuring it (tools/bench). */
struct kix_log_seal_stats {
    uint64_t seals;   /* checkpoints sealed */
    uint64_t entries; /* entries appended by those commits */
    uint64_t ns;      /* wall time inside seal */
    /* a replay's seals that left state (the index's tree tiles) to the
     * next seal of the same transaction (kix_log_txn_seal_state) */
    uint64_t kept;
    /* records the writer read from the sealed tables (the index's tree)
     * in its transactions: what the layer keeps between them
     * (kix_log_txn_writer_state) it does not read again */
    uint64_t sealed_reads;
};
KIX_API void kix_log_seal_stats(const struct kix_log *l, struct kix_log_seal_stats *out);

/* CPU time an append costs, by phase: the calling thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) read at each phase's end, summed over this
 * handle's prepares (any number of threads at once) and its commits and
 * replays. Off until kix_log_phase_stats_enable (kixd serve
 * --phase-stats). The clock is a system call (~0.5-1 us), so the clocks
 * run once an entry are sampled (kix_log_phase_sample) and weighted: the
 * sums are exact for a short run and estimates after. */
enum kix_log_phase {
    KIX_LOG_PHASE_CANON,  /* prepare: parse envelope, statement, objects; canonical forms */
    KIX_LOG_PHASE_HASH,   /* prepare: leaf hash, statement hash (PAE), object digests */
    KIX_LOG_PHASE_VERIFY, /* prepare: the signer's key looked up, the Ed25519 verify */
    KIX_LOG_PHASE_POLICY, /* prepare's bundle check; commit: signer, role, duplicates, objects */
    KIX_LOG_PHASE_INDEX,  /* commit: the indexer's check and apply per entry, and its seal */
    KIX_LOG_PHASE_COMMIT, /* commit: the rest of the write transaction (the log's own writes,
                             tiles, the checkpoint and its signature, LMDB's commit; the fsync's
                             wait is not CPU) */
    KIX_LOG_PHASES
};
struct kix_log_phase_stats {
    uint64_t prepared;  /* entries prepared (kix_log_prepare_leaf succeeded) */
    uint64_t committed; /* entries kix_log_commit appended */
    uint64_t ns[KIX_LOG_PHASES];
};
/* "canonical", "hash", "verify", "policy", "index", "commit"; NULL past the last. */
KIX_API const char *kix_log_phase_name(enum kix_log_phase phase);
KIX_API void kix_log_phase_stats_enable(struct kix_log *l, int on);
KIX_API void kix_log_phase_stats(const struct kix_log *l, struct kix_log_phase_stats *out);
/* Whether the calling thread reads its CPU clock for the next sampled
 * phase, and with what weight: 1 for a thread's first 256 draws (a short
 * run's sums are exact), then 8 for one draw in 8 at random and 0 for the
 * rest (the clock is a system call). kixd's own phases use it too. */
KIX_API unsigned kix_log_phase_sample(void);

/* For replicas: appends `n` prepared entries that must land at indexes
 * first_index.. in order, every one accepted by the policy. cps lists the
 * upstream's signed checkpoints met on the way, by growing size, the last
 * at first_index + n; at each the recomputed root must be the signed one,
 * and so must the recomputed index note, and the notes are stored as the replica's checkpoint at
 * that size. All in one transaction: any failure stores nothing, and the message names the index or
 * checkpoint that failed. */
KIX_API int kix_log_replay(struct kix_log *l, uint64_t first_index,
                           struct kix_prepared *const *items, size_t n,
                           const struct kix_replay_checkpoint *cps, size_t ncps,
                           struct kix_err *err) KIX_MUST_CHECK;

/* For diagnosis, after kix_log_replay refused an upstream's index note:
 * replays the same entries in one transaction without comparing index
 * notes (the replica's own index as the entries make it), calls inspect
 * with that transaction (read it through kix/log_txn.h), then aborts it:
 * nothing is stored. Returns inspect's code, or the replay's. With inspect
 * NULL it is kix_log_replay (checks the notes, commits). */
struct kix_log_txn;
typedef int (*kix_log_inspect_fn)(void *ctx, struct kix_log_txn *t, struct kix_err *err);
KIX_API int kix_log_replay_inspect(struct kix_log *l, uint64_t first_index,
                                   struct kix_prepared *const *items, size_t n,
                                   const struct kix_replay_checkpoint *cps, size_t ncps,
                                   kix_log_inspect_fn inspect, void *ctx,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* ---- witness cosignatures ------------------------------------------------
 *
 * Witnesses (mirrors that verified the log) cosign its checkpoints
 * (c2sp.org/tlog-cosignature, kix_cosign). The store keeps, per checkpoint
 * size, at most one cosignature line per witness key (name and key hash),
 * the one with the newest timestamp, and serves them appended to the
 * checkpoint note (kix_log_reader_checkpoint_cosigned): a signed note with
 * more signature lines, which clients that do not know the witness keys
 * read as before. Raw notes (kix_log_reader_checkpoint, _checkpoints) stay
 * exactly as the log signed them, so replicas copy them byte for byte.
 * Origins and replicas alike may hold cosignatures. */

/* Verifies and stores one cosignature. `checkpoint` is the signed note the
 * witness cosigned (it must verify against the log key and its text must be
 * that of the stored checkpoint at its size); `line` is one signature line
 * "— <name> <base64>" (a final "\n" is allowed) that one of `witnesses`
 * (KIX_NOTE_ALG_COSIGN keys) made over it. *size (may be NULL) gets the
 * checkpoint's size, *stored (may be NULL) 1 when it was new or newer than
 * the one kept. Errors: KIX_EVERIFY (the checkpoint or the cosignature does
 * not verify, the witness is not one of `witnesses`, or the checkpoint
 * differs from the stored one at that size: the message says which),
 * KIX_ENOTFOUND (no stored checkpoint at that size), KIX_EINVAL (malformed),
 * KIX_EREADONLY (a read-only open), KIX_EIO, KIX_EFULL. Durable on return. */
KIX_API int kix_log_add_cosignature(struct kix_log *l, const char *checkpoint, size_t len,
                                    const char *line, size_t line_len,
                                    const struct kix_verifier *witnesses, size_t nwitnesses,
                                    uint64_t *size, int *stored,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* The same for the index note signed beside the checkpoint at `size`
 * (PROTOCOL.md §4.3): `index_note` must verify against the log key and its
 * text be that of the stored index note at that size (else KIX_EVERIFY: a
 * split view of the index); `line` is a witness's cosignature of that
 * text. The log does not read the note's lines: the caller says which size
 * it is for. Kept one per witness and size, with the hash of the text it
 * covers (a rebuilt index re-signs its notes; older cosignatures are then
 * not served). Errors as kix_log_add_cosignature's. */
KIX_API int kix_log_add_index_cosignature(struct kix_log *l, uint64_t size, const char *index_note,
                                          size_t len, const char *line, size_t line_len,
                                          const struct kix_verifier *witnesses, size_t nwitnesses,
                                          int *stored, struct kix_err *err) KIX_MUST_CHECK;

/* ---- reading -------------------------------------------------------------- */

struct kix_log_reader;

KIX_API int kix_log_read_begin(struct kix_log *l, struct kix_log_reader **out) KIX_MUST_CHECK;
KIX_API void kix_log_read_end(struct kix_log_reader *r);

/* The tree size of this snapshot (that of its latest checkpoint). */
KIX_API uint64_t kix_log_reader_size(const struct kix_log_reader *r);
/* The log's origin (kix_log_origin), valid while the reader is. */
KIX_API const char *kix_log_reader_origin(const struct kix_log_reader *r);
/* The log's verifier key (kix_log_verifier), valid while the reader is. */
KIX_API const struct kix_verifier *kix_log_reader_verifier(const struct kix_log_reader *r);
/* The signed checkpoint note at `size` (KIX_NO_INDEX: the latest). */
KIX_API int kix_log_reader_checkpoint(struct kix_log_reader *r, uint64_t size,
                                      struct kix_bytes *note);
/* The stored checkpoints with size > after, by growing size, at most
 * `limit`, through fn (views valid during the call). Every commit of an
 * origin stores one, so these are the sizes a replica can replay to. */
/* index_note: the index note signed beside the checkpoint (kix/vindex.h),
 * or NULL and 0 when the store has none at that size. */
typedef int (*kix_checkpoint_fn)(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                                 const uint8_t *index_note, size_t index_len);
KIX_API int kix_log_reader_checkpoints(struct kix_log_reader *r, uint64_t after, size_t limit,
                                       kix_checkpoint_fn fn, void *ctx) KIX_MUST_CHECK;
/* The stored cosignature lines of the checkpoint at `size` (KIX_NO_INDEX:
 * the latest), each ending in "\n", appended to out in witness key order;
 * *n (may be NULL) counts them (0 is not an error). */
KIX_API int kix_log_reader_cosignatures(struct kix_log_reader *r, uint64_t size,
                                        struct kix_buf *out, size_t *n) KIX_MUST_CHECK;
/* The checkpoint note at `size` (KIX_NO_INDEX: the latest) with its
 * cosignature lines after the log's signature, appended to out. What the
 * checkpoint, receipt and resolve answers carry. KIX_ENOTFOUND when there is
 * no checkpoint at that size. */
KIX_API int kix_log_reader_checkpoint_cosigned(struct kix_log_reader *r, uint64_t size,
                                               struct kix_buf *out,
                                               struct kix_err *err) KIX_MUST_CHECK;
/* The index note signed beside the checkpoint at `size` (KIX_NO_INDEX: the
 * snapshot's size): KIX_ENOTFOUND when there is none (a plain log, a store
 * older than the verifiable index, a size with no checkpoint). */
KIX_API int kix_log_reader_index_note(struct kix_log_reader *r, uint64_t size,
                                      struct kix_bytes *note);
/* The index note at `size` (KIX_NO_INDEX: the snapshot's size) with the
 * witness cosignature lines of its text after the log's signature,
 * appended to out: what every answer carrying an index note sends.
 * KIX_ENOTFOUND (err says why) when there is no index note at that size. */
KIX_API int kix_log_reader_index_note_cosigned(struct kix_log_reader *r, uint64_t size,
                                               struct kix_buf *out,
                                               struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_log_reader_entry(struct kix_log_reader *r, uint64_t index, struct kix_bytes *leaf);
KIX_API int kix_log_reader_object(struct kix_log_reader *r, const struct kix_digest *d,
                                  struct kix_bytes *out);
KIX_API int kix_log_reader_leaf_hash(struct kix_log_reader *r, uint64_t index, struct kix_hash *out,
                                     struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_log_reader_inclusion(struct kix_log_reader *r, uint64_t index, uint64_t size,
                                     struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                     struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_log_reader_consistency(struct kix_log_reader *r, uint64_t size1, uint64_t size2,
                                       struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *len,
                                       struct kix_err *err) KIX_MUST_CHECK;
KIX_API int kix_log_reader_root(struct kix_log_reader *r, uint64_t size, struct kix_hash *out,
                                struct kix_err *err) KIX_MUST_CHECK;
/* Appends the C2SP tlog-proof receipt of entry `index` against the
 * checkpoint at `size` (KIX_NO_INDEX: the latest), with its cosignatures. */
KIX_API int kix_log_reader_receipt(struct kix_log_reader *r, uint64_t index, uint64_t size,
                                   struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
/* Tile reads made by this reader so far (for the O(log n) test), and how
 * many of them the store's cache of full upper tiles answered (the rest
 * read LMDB). */
KIX_API uint64_t kix_log_reader_tile_reads(const struct kix_log_reader *r);
KIX_API uint64_t kix_log_reader_tile_cache_hits(const struct kix_log_reader *r);

struct kix_key_info {
    uint8_t pub[32];
    unsigned roles;
    uint64_t added_index;
    uint64_t revoked_index; /* KIX_NO_INDEX when in force */
};

/* The registry record of a key id (raw 32 bytes). */
KIX_API int kix_log_reader_key(struct kix_log_reader *r, const uint8_t key_id[32],
                               struct kix_key_info *out);

/* The admission policy in force (PROTOCOL.md §5.4): set by the latest
 * policy entry; before any, notes only from registered keys. */
struct kix_log_policy {
    int open_notes;     /* an attestation may come from an unregistered key */
    unsigned note_work; /* leading zero bits its statement hash needs */
    uint64_t index;     /* the policy entry; KIX_NO_INDEX when none */
};
KIX_API int kix_log_reader_policy(struct kix_log_reader *r, struct kix_log_policy *out);

/* ---- checking the stored log against itself --------------------------------- *
 *
 * kix_log_check() reads the whole store in one snapshot and recomputes what
 * can be recomputed, as `kixd check` does offline and `kixd serve` (quick)
 * before it serves:
 *
 *   checkpoints  every stored checkpoint is signed by the log key, names the
 *                log's origin and its size, and its root is the root of the
 *                tree recomputed from the stored entries at that size
 *   entries      entries 0 .. size-1 are all there, none beyond; each one's
 *                leaf hash is the one in the tree tiles and the leaf index
 *                maps it back to its index; the objects it needs are stored
 *   tiles        every hash in every tile is the node recomputed from the
 *                entries, each tile has the width the size implies, and no
 *                tile lies beyond the tree; the root folded from the tiles
 *                is the latest checkpoint's
 *   objects      every object's bytes hash to its digest, every digest points
 *                at a stored blob, and no blob is orphaned
 *
 * When an entry and the tree disagree, the leaf index decides which of the
 * two was altered, so one flipped byte is reported once, where it is, and
 * does not cascade. It does not re-verify entry signatures or the policy:
 * `kix audit` replays the log for that.
 *
 * Quick mode (opts.quick) checks only the latest checkpoint (signature,
 * root from the tiles, root recomputed) and the last opts.tail entries with
 * every tile hash above them, the objects they need, and their digests:
 * O(tail + log n) work, cheap enough for every start-up. The tree before the
 * tail is taken from the tiles.
 *
 * Each problem goes to opts.issue (may be NULL) as it is found, with the
 * table and record it concerns named as tests/tools/kix-tamper names them
 * (`where`). opts.progress (may be NULL) hears about every 4096 items.
 *
 * Returns KIX_OK when nothing is wrong, KIX_ECORRUPT when problems were
 * found (err: how many and the first; checking stops after
 * opts.max_issues), or KIX_EIO/KIX_ENOMEM when the check itself could not
 * run. stats (may be NULL) gets what was covered.
 */
struct kix_check_issue {
    const char *table; /* "checkpoints", "leaves", "tiles", "objects", "blobs";
                        "leaf_index" in a store of layout 1 */
    uint64_t index;    /* the entry index (checkpoints: the tree size) it concerns, or
                          KIX_NO_INDEX */
    char where[128];   /* the record: "leaves u64:37", "tiles 000000000000000001 (tile 0/1)" */
    char message[KIX_ERR_MSG_MAX];
};

typedef int (*kix_check_issue_fn)(void *ctx, const struct kix_check_issue *issue);
typedef void (*kix_check_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

struct kix_check_opts {
    int quick;         /* the start-up check (see above) */
    uint64_t tail;     /* quick: entries rechecked at the end of the log; 0 = 1024 */
    size_t max_issues; /* stop after this many problems; 0 = 100 */
    kix_check_issue_fn issue;
    void *issue_ctx;
    kix_check_progress_fn progress;
    void *progress_ctx;
    /* kix_index_check: each entry an older origin logged that today's
     * origin rules refuse (kix/index.h's findings), reported apart from
     * the problems: table "findings", where the rule's name. May be NULL. */
    kix_check_issue_fn finding;
    void *finding_ctx;
};

struct kix_check_stats {
    uint64_t size;        /* the tree size of the latest checkpoint */
    uint64_t entries;     /* entries rehashed */
    uint64_t checkpoints; /* checkpoint signatures verified */
    uint64_t roots;       /* checkpoint roots compared with the recomputed tree */
    uint64_t nodes;       /* tile hashes compared */
    uint64_t tiles;       /* tiles read */
    uint64_t objects;     /* objects whose digest was recomputed */
    uint64_t issues;
};

KIX_API int kix_log_check(struct kix_log *l, const struct kix_check_opts *opts,
                          struct kix_check_stats *stats, struct kix_err *err) KIX_MUST_CHECK;

#endif
