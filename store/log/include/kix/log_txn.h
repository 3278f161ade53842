/* kix/log_txn.h — the log's storage, lent to the layer above it.
 *
 * The index (store/index) keeps its tables in the store beside the log's:
 * since store layout 3 in a second LMDB environment (index.mdb, committed
 * after the log's in the same write, without fsync, and derived again from
 * the log after a machine stop: store/log/split.c), and a read snapshot
 * sees both at the same tree size (the index's). It never sees LMDB: it reads and writes its tables
 * through struct kix_log_txn, and the log calls it back through struct kix_log_indexer for every
 * entry it appends or replays.
 *
 * A struct kix_log_txn is either the writer's transaction (inside the
 * indexer's callbacks) or a reader's snapshot (kix_log_reader_txn); writes
 * through a reader's fail with KIX_EREADONLY. Views (kix_bytes) returned by
 * get and scan live until the transaction ends: for callbacks, until they
 * return; for a reader, until kix_log_read_end().
 *
 * Errors: KIX_ENOTFOUND (no such key), KIX_EIO/KIX_ECORRUPT/KIX_EFULL from
 * the store (with a message naming what was being read or written),
 * KIX_EREADONLY, KIX_ENOMEM.
 */
#ifndef KIX_LOG_TXN_H
#define KIX_LOG_TXN_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/entry.h"
#include "kix/error.h"
#include "kix/log.h"

struct kix_log_txn;
struct kix_log_reader;
struct json_t; /* jansson's */

/* The layer above names its own tables (struct kix_log_indexer's
 * `tables`): the log keeps each as a table of its store under that name,
 * opened with the store, and the layer addresses it by its position in
 * that list. At most KIX_LOG_TABLES_MAX. A table the layer did not name
 * reads as empty (writes fail with KIX_EINVAL).
 *
 * flags: KIX_LOG_TABLE_SEALED marks a table whose contents the layer's
 * seal commits to in its index notes: where the store keeps no index
 * notes to read it against (a read-only open of a store made before them,
 * or of one whose tables were written under another indexer `name`, which
 * may lay them out otherwise), it reads as empty, as it does when a
 * read-only open finds it absent. Any other table a read-only open of a
 * store kept by an indexer does not find is a damaged store (KIX_ECORRUPT). */
#define KIX_LOG_TABLES_MAX   16u
#define KIX_LOG_TABLE_SEALED 1u
struct kix_log_table_spec {
    const char *name; /* its name in the store (an LMDB database) */
    unsigned flags;
};

KIX_API int kix_log_txn_get(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                            struct kix_bytes *val);
KIX_API int kix_log_txn_put(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                            const void *val, size_t vlen, struct kix_err *err) KIX_MUST_CHECK;
/* KIX_ENOTFOUND (err untouched) when there was no such key. */
KIX_API int kix_log_txn_del(struct kix_log_txn *t, unsigned table, const void *key, size_t klen,
                            struct kix_err *err) KIX_MUST_CHECK;

/* Calls fn with every record whose key is >= from, in key order, until fn
 * returns non-zero: 1 stops the scan with KIX_OK, a negative KIX_E* code
 * stops it with that code. */
typedef int (*kix_log_scan_fn)(void *ctx, const struct kix_bytes *key, const struct kix_bytes *val);
KIX_API int kix_log_txn_scan(struct kix_log_txn *t, unsigned table, const void *from,
                             size_t from_len, kix_log_scan_fn fn, void *ctx) KIX_MUST_CHECK;

/* The writer's scratch buffer: empty when a write transaction begins (and
 * when it is retried), kept across the indexer's calls within it, for its
 * own bookkeeping (keys a batch changed). NULL through a reader. */
KIX_API struct kix_buf *kix_log_txn_scratch(struct kix_log_txn *t);

/* A replay seals at each upstream checkpoint, all in one transaction: seal
 * may keep state from one of these seals to the next (the tree's tiles,
 * read once and written once a batch instead of once a checkpoint).
 * seal_more is 1 when another seal follows in this transaction: the seal
 * whose seal_more is 0 must leave nothing unwritten in the state. The log
 * frees the state with free_fn when the transaction ends (committed,
 * aborted or retried). seal_state is NULL when there is none, and always
 * outside a replay's seals, where set_seal_state fails with KIX_EINVAL. */
KIX_API int kix_log_txn_seal_more(struct kix_log_txn *t);
KIX_API void *kix_log_txn_seal_state(struct kix_log_txn *t);
KIX_API int kix_log_txn_set_seal_state(struct kix_log_txn *t, void *state,
                                       void (*free_fn)(void *)) KIX_MUST_CHECK;

/* What the layer above keeps of its tables from one write transaction to
 * the next (the index's tree tiles as it last read or wrote them): valid
 * only while every write of those tables went through the layer. The log
 * frees it with free_fn when a write transaction ends without committing
 * (aborted, retried, a failed commit), when a write transaction begins
 * after another writer's commit (another handle or process), when a table
 * is cleared, and at close. NULL through a reader and when none is kept;
 * set_writer_state replaces (and frees) the one kept, NULL drops it. */
KIX_API void *kix_log_txn_writer_state(struct kix_log_txn *t);
KIX_API int kix_log_txn_set_writer_state(struct kix_log_txn *t, void *state,
                                         void (*free_fn)(void *)) KIX_MUST_CHECK;

/* What the layer above noted about its tables for the rest of the
 * transaction (bits of its choosing), so that it need not read them again
 * at every record: 0 when the transaction begins (a reader's snapshot; the
 * writer's transaction, which spans every callback of one write, retried
 * or not) and again when the writer clears a table. A reader's snapshot
 * never changes; the writer's changes with its own writes, so note there
 * only what they cannot undo but by clearing a table. */
KIX_API unsigned kix_log_txn_memo(const struct kix_log_txn *t);
KIX_API void kix_log_txn_set_memo(struct kix_log_txn *t, unsigned memo);

/* Empties a table (writer only). */
KIX_API int kix_log_txn_clear(struct kix_log_txn *t, unsigned table,
                              struct kix_err *err) KIX_MUST_CHECK;

/* The key registry's record of a key id (raw 32 bytes): KIX_ENOTFOUND. */
KIX_API int kix_log_txn_key(struct kix_log_txn *t, const uint8_t key_id[32],
                            struct kix_key_info *out);
/* Every record of the key registry (key id(32) → its stored record), in key
 * order, through fn (which returns as for kix_log_txn_scan). */
KIX_API int kix_log_txn_scan_keys(struct kix_log_txn *t, kix_log_scan_fn fn,
                                  void *ctx) KIX_MUST_CHECK;

/* The canonical bytes of a stored object, and the leaf at a log index. */
KIX_API int kix_log_txn_object(struct kix_log_txn *t, const struct kix_digest *d,
                               struct kix_bytes *out);
KIX_API int kix_log_txn_entry(struct kix_log_txn *t, uint64_t index, struct kix_bytes *leaf);

/* The log indexes (in order) of the entries whose subject is d, with their
 * types, through fn (which returns as for kix_log_txn_scan). */
typedef int (*kix_log_subject_fn)(void *ctx, uint64_t index, int type);
KIX_API int kix_log_txn_subject_entries(struct kix_log_txn *t, const struct kix_digest *d,
                                        kix_log_subject_fn fn, void *ctx) KIX_MUST_CHECK;

/* A reader's snapshot as a transaction (valid until kix_log_read_end). */
KIX_API struct kix_log_txn *kix_log_reader_txn(struct kix_log_reader *r);

/* One object of a submission, as the indexer's prepare sees it. */
struct kix_log_object {
    struct kix_bytes canon;    /* its canonical bytes */
    const struct json_t *tree; /* its parse, when prepare made one (a record, or an
                                  object not sent canonical), else NULL */
    int sent_canonical;        /* 1: it arrived canonical: canon is what was sent */
};

/* The bytes an indexer keeps about one object (kix_log_indexer.prepare). */
#define KIX_LOG_MEMO_MAX 384u

/* One entry being appended, as the indexer sees it. */
struct kix_log_item {
    uint64_t index;
    struct kix_hash leaf_hash;     /* RFC 9162 leaf hash of the entry */
    const struct kix_entry *entry; /* what its statement says; entry->signer verified */
    const void *prepared;          /* the log's own view, for kix_log_item_object/_memo */
    /* 1: replayed into a replica from its upstream, which logged it under
     * the rules of its time; a rule an indexer adds later for new
     * submissions only (grandfathering what logs already hold) skips it */
    int replayed;
};

/* The memo the indexer's prepare wrote about object d, when the item's
 * submission carried it (and it was not stored before, when prepare reads
 * no more of it than its references): a view of KIX_LOG_MEMO_MAX bytes,
 * valid during the callback. NULL otherwise: no such object was sent, or
 * the item is replayed from the stored log (a rebuild). */
KIX_API const void *kix_log_item_memo(const struct kix_log_item *item, const struct kix_digest *d);

/* The canonical bytes of object d as the item's submission carried it, or
 * else as stored before (views valid during the callback). KIX_ENOTFOUND
 * when neither has it. */
KIX_API int kix_log_item_object(struct kix_log_txn *t, const struct kix_log_item *item,
                                const struct kix_digest *d, struct kix_bytes *out);

/* What keeps a layer's tables in step with the log. For each entry the
 * log checks its own rules (signer and role, key registry, objects), then
 * calls check (no writes: KIX_EPOLICY refuses only this entry, with the
 * message in err; other codes abort the batch), then writes the entry and
 * calls apply (writes; any error aborts the batch). Both run in the
 * writer's transaction, so earlier entries of the same batch are seen.
 *
 * At every checkpoint (the end of a batch, or each upstream checkpoint of
 * a replay) the log calls seal with the tree's size and root; seal appends
 * to `note` the text of a note the log signs with its key and keeps beside
 * that checkpoint (the origin), or that must equal, byte for byte, the
 * upstream's note at that size (a replica): the layer's commitment to what
 * it derived from the entries so far. Any error aborts the batch.
 *
 * `name` names the tables' format: a store whose index was written under
 * another name has its tables emptied (reset) and rebuilt from every
 * entry, in one transaction, when it is opened to write.
 *
 * prepare (may be NULL) reads what the layer needs of each object a
 * submission carries while kix_log_prepare has it parsed, so the writer
 * need not parse it again: it writes up to KIX_LOG_MEMO_MAX bytes to
 * `memo` (zeroed before the call), which the log keeps with the object and
 * hands back to check and apply (kix_log_item_memo) without reading them.
 * It runs on the threads that prepare, many at once: it may keep no state
 * but the memo. An error refuses the submission (KIX_EINVAL, ...). */
struct kix_log_indexer {
    const char *name;
    const struct kix_log_table_spec *tables; /* its tables (see above) */
    size_t ntables;
    int (*prepare)(const struct kix_log_object *o, void *memo, struct kix_err *err);
    int (*check)(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err);
    int (*apply)(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err);
    int (*seal)(struct kix_log_txn *t, const char *origin, uint64_t size,
                const struct kix_hash *log_root, struct kix_buf *note, struct kix_err *err);
    int (*reset)(struct kix_log_txn *t, struct kix_err *err);
};

#endif
