/* kix/log_txn.h — the log's storage, lent to the layer above it.
 *
 * The benchmark index (store/index) keeps its tables in the log's own LMDB
 * environment so that an entry and everything derived from it commit in one
 * durable transaction, and a read snapshot sees both at the same tree size.
 * It never sees LMDB: it reads and writes its tables through struct
 * kix_log_txn, and the log calls it back through struct kix_log_indexer for
 * every entry it appends or replays.
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

#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/digest.h"
#include "kix/entry.h"
#include "kix/error.h"
#include "kix/log.h"

struct kix_log_txn;
struct kix_log_reader;

/* The tables the log keeps for the index above it; opened with the store. */
enum kix_log_table {
    KIX_TABLE_RUNS,        /* run id text → run record */
    KIX_TABLE_RUN_ENTRIES, /* run id text ‖ 0 ‖ u64be index → entry type (u8) */
    KIX_TABLE_GROUPS,      /* comparison key(32) ‖ u64be value ‖ run id → empty */
    KIX_TABLE_SMT,         /* the verifiable index's tree: position key → record */
    KIX_TABLE_KEYS,        /* the log's key registry, to read: key id(32) → record */
};

int kix_log_txn_get(struct kix_log_txn *t, enum kix_log_table table, const void *key, size_t klen,
                    struct kix_bytes *val);
int kix_log_txn_put(struct kix_log_txn *t, enum kix_log_table table, const void *key, size_t klen,
                    const void *val, size_t vlen, struct kix_err *err) KIX_MUST_CHECK;
/* KIX_ENOTFOUND (err untouched) when there was no such key. */
int kix_log_txn_del(struct kix_log_txn *t, enum kix_log_table table, const void *key, size_t klen,
                    struct kix_err *err) KIX_MUST_CHECK;

/* Calls fn with every record whose key is >= from, in key order, until fn
 * returns non-zero: 1 stops the scan with KIX_OK, a negative KIX_E* code
 * stops it with that code. */
typedef int (*kix_log_scan_fn)(void *ctx, const struct kix_bytes *key, const struct kix_bytes *val);
int kix_log_txn_scan(struct kix_log_txn *t, enum kix_log_table table, const void *from,
                     size_t from_len, kix_log_scan_fn fn, void *ctx) KIX_MUST_CHECK;

/* The writer's scratch buffer: empty when a write transaction begins (and
 * when it is retried), kept across the indexer's calls within it, for its
 * own bookkeeping (keys a batch changed). NULL through a reader. */
struct kix_buf *kix_log_txn_scratch(struct kix_log_txn *t);

/* Empties a table (writer only). */
int kix_log_txn_clear(struct kix_log_txn *t, enum kix_log_table table,
                      struct kix_err *err) KIX_MUST_CHECK;

/* The key registry's record of a key id (raw 32 bytes): KIX_ENOTFOUND. */
int kix_log_txn_key(struct kix_log_txn *t, const uint8_t key_id[32], struct kix_key_info *out);

/* The canonical bytes of a stored object, and the leaf at a log index. */
int kix_log_txn_object(struct kix_log_txn *t, const struct kix_digest *d, struct kix_bytes *out);
int kix_log_txn_entry(struct kix_log_txn *t, uint64_t index, struct kix_bytes *leaf);

/* The log indexes (in order) of the entries whose subject is d, with their
 * types, through fn (which returns as for kix_log_txn_scan). */
typedef int (*kix_log_subject_fn)(void *ctx, uint64_t index, int type);
int kix_log_txn_subject_entries(struct kix_log_txn *t, const struct kix_digest *d,
                                kix_log_subject_fn fn, void *ctx) KIX_MUST_CHECK;

/* A reader's snapshot as a transaction (valid until kix_log_read_end). */
struct kix_log_txn *kix_log_reader_txn(struct kix_log_reader *r);

enum { KIX_RUN_NAMED_UNKNOWN = -1, KIX_RUN_NAMED_NONE, KIX_RUN_NAMED_STRING, KIX_RUN_NAMED_OTHER };

/* One entry being appended, as the indexer sees it. */
struct kix_log_item {
    uint64_t index;
    struct kix_hash leaf_hash;     /* RFC 9162 leaf hash of the entry */
    const struct kix_entry *entry; /* what its statement says; entry->signer verified */
    /* the subject manifest, when the submission carried it: whether it is
     * a comparable run, and its group (kix/manifest.h), found by prepare */
    int manifest_sent;
    int comparable;
    struct kix_digest comparison_key;
    uint64_t value;
    /* and its metadata.runId: KIX_RUN_NAMED_UNKNOWN (not sent, or not read
     * by prepare: read the stored manifest), _NONE, _STRING (named_run, a
     * run id's length at most: a longer one is _OTHER) or _OTHER */
    int run_named;
    const char *named_run;
    const void *prepared; /* the log's own view, for kix_log_item_object */
};

/* The canonical bytes of object d as the item's submission carried it, or
 * else as stored before (views valid during the callback). KIX_ENOTFOUND
 * when neither has it. */
int kix_log_item_object(struct kix_log_txn *t, const struct kix_log_item *item,
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
 * entry, in one transaction, when it is opened to write. */
struct kix_log_indexer {
    const char *name;
    int (*check)(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err);
    int (*apply)(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err);
    int (*seal)(struct kix_log_txn *t, const char *origin, uint64_t size,
                const struct kix_hash *log_root, struct kix_buf *note, struct kix_err *err);
    int (*reset)(struct kix_log_txn *t, struct kix_err *err);
};

#endif
