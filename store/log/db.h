/* Internal to kix_store: the LMDB environment, its tables and the write
 * retry loop. The only header that includes lmdb.h. */
#ifndef KIX_DB_H
#define KIX_DB_H

#include <lmdb.h>
#include <pthread.h>

#include "kix/log_txn.h"
#include "kix/store.h"
#include "tile_cache.h"

/* Tables (named LMDB databases). Keys that grow in order use MDB_APPEND. */
enum kix_table {
    T_META,  /* text key → value: origin, log vkey, ... */
    T_BLOBS, /* u64be sequence → canonical object bytes (append-only; a locator in layout 4) */
    /* digest(32) → u64be blob sequence; since layout 2 also, beside it
     * (kix__subject_key, kix__statement_key): the subject records
     * digest ‖ u64be index → type and the statement records
     * subject ‖ 0xff ‖ statement hash(32) → u64be index ‖ leaf hash(32),
     * so that the
     * records one entry adds under its subject share one B-tree page */
    T_OBJECTS,
    T_LEAVES,      /* u64be log index → leaf bytes (canonical DSSE envelope; a locator in
                      layout 4) */
    T_LEAF_INDEX,  /* layout 1 only (empty since): leaf hash(32) → u64be log index */
    T_TILES,       /* u8 level ‖ u64be index → Merkle tile */
    T_CHECKPOINTS, /* u64be tree size → signed checkpoint note */
    T_KEYS,        /* key id(32) → key record */
    T_SUBJECTS,    /* layout 1 only (empty since): digest(32) ‖ u64be index → type */
    T_SIGNERS,     /* key id(32) ‖ u64be index → empty */
    T_COSIGS,      /* u64be size ‖ u32be witness key hash ‖ name → cosignature line */
    T_STATEMENTS,  /* layout 1 only (empty since): statement hash → u64be log index */
    T_INDEX_NOTES, /* u64be tree size → the index note signed beside its checkpoint (append,
                      but for the rebuild's re-signing) */
    T_INDEX_COSIGS, /* u64be size ‖ u32be witness key hash ‖ name → u64be time ‖ SHA-256 of the
                       index note's text ‖ cosignature line */
    T_COUNT
};

/* The store's layout (meta "layout"): 1, stores written before
 * 2026-12-06, kept subjects and statements in tables of their own; 2 keeps
 * them in T_OBJECTS under the subject's digest; 3 ("durable log, derived
 * index") moves every table that can be derived again from the log's
 * (kix__derived: T_OBJECTS, T_SIGNERS, and every table of the layer above)
 * into a second environment, KIX__INDEX_FILE, committed after data.mdb
 * and never fsynced on commit: an acknowledged write is durable through
 * data.mdb alone, and the index is caught up or rebuilt from it on open
 * (split.c). A writable open of a log converts 1 to 2 in one transaction
 * (log.c, migrate_fn), then 2 to 3 (split.c, kix__split_convert). */
#define KIX__LAYOUT            KIX_STORE_LAYOUT
#define KIX__STATEMENT_TAG     0xff
#define KIX__SUBJECT_KEY_LEN   40
#define KIX__STATEMENT_KEY_LEN 65
#define KIX__STATEMENT_VAL_LEN 40

/* Layout 3's index environment (one file, MDB_NOSUBDIR, beside data.mdb;
 * LMDB adds KIX__INDEX_FILE "-lock") and the marker that says it holds
 * commits not yet synced: written (and synced, with its directory) before
 * the first unsynced index commit of an open, holding the boot id; removed
 * after a clean close synced the index. */
#define KIX__INDEX_FILE  "index.mdb"
#define KIX__MARKER_FILE "index.unsynced"

/* Layout 4's data file (segment.c): every leaf's and blob's bytes,
 * appended once; T_LEAVES and T_BLOBS hold a locator (u64be offset ‖
 * u32be length) into it. */
#define KIX__SEGMENT_FILE "log.dat"
#define KIX__LOCATOR_LEN  12

/* Whether table t of the log's own is derived again from the others
 * (layout 3 keeps it in the index environment). */
static inline int kix__derived(int t)
{
    return t == T_OBJECTS || t == T_SIGNERS;
}

struct kix_store;
typedef int (*kix__write_fn_ptr)(struct kix_store *s, MDB_txn *txn, void *ctx, struct kix_err *err);

struct kix_store {
    MDB_env *env;
    int layout; /* 1, 2 or KIX__LAYOUT, read at open */
    MDB_dbi dbi[T_COUNT];
    /* layout 3: the index environment (KIX__INDEX_FILE) with the derived
     * tables (idbi, for kix__derived tables; table_dbi) and its state
     * (istate: "size", the tree size it reflects; "blobs", the blobs whose
     * digests it holds). NULL in layouts 1 and 2: they are all in env. */
    MDB_env *ienv;
    MDB_dbi idbi[T_COUNT];
    MDB_dbi istate;
    /* the writer's index transaction during kix__db_write (its log
     * transaction when there is no ienv) */
    MDB_txn *w_itxn;
    /* writable open: the index must be rebuilt from the log (lost, torn by
     * an OS crash, ahead of the log), and the state it was read in */
    int index_lost;
    uint64_t index_size, index_blobs;
    /* the state's size follows the log's at each commit: the index is in
     * step (kix_log_open caught it up, or it was current) */
    int index_in_step;
    int marked;                           /* this open wrote KIX__MARKER_FILE */
    int index_failed;                     /* an index commit failed after its log commit */
    uint64_t pending_size, pending_blobs; /* the state a commit puts */
    int pending_chunk;  /* a derivation's part commits: its state, not the log's */
    uint64_t igrowth;   /* the most pages one commit added to the index */
    uint64_t ireserved; /* bytes of index.mdb held on disk (fallocate) */
    /* the index's pages at open (0 when it is derived from scratch):
     * kix_store_close compacts an index that at least doubled since */
    uint64_t ipages_at_open;
    int opened; /* kix__store_open succeeded: a failed open's close compacts nothing */
    /* a writable open found no other process holding the store (db.c,
     * store_lock): it may remove the index marker another one left */
    int alone_at_open;
    int compact;     /* kix_store_opts.compact */
    int log_only;    /* kix_store_opts.log_only: no ienv, read-only */
    int large_pages; /* kix_store_opts.large_pages (large_pages.c) */
    /* what catches the index up from the log after index_failed (the
     * log's, kix_log_open), run before the next write */
    kix__write_fn_ptr catch_up;
    void *catch_up_ctx;
    size_t map_size, map_max;
    struct kix_canon_opts canon;
    int read_only;
    int no_cosigs;     /* read-only open of a store made before T_COSIGS existed */
    int no_statements; /* read-only open of a store made before T_STATEMENTS existed */
    /* read-only open of a store with no index notes to read: made before
     * them, or its indexer's tables written in another format (log.c) */
    int no_index_notes;
    int no_index_cosigs; /* read-only open of a store made before T_INDEX_COSIGS existed */
    /* the tables the layer above named (struct kix_log_indexer's), opened
     * with the store's own; absent: a read-only open found none */
    size_t ntables;
    const struct kix_log_table_spec *table_specs;
    MDB_dbi table_dbi[KIX_LOG_TABLES_MAX];
    unsigned table_flags[KIX_LOG_TABLES_MAX];
    unsigned char table_absent[KIX_LOG_TABLES_MAX];
    /* Readers hold it shared for their transaction's life; only a map
     * resize (rare) takes it exclusively, as LMDB requires no live txn. */
    pthread_rwlock_t resize_lock;
    pthread_mutex_t write_lock;
    char *dir;
    /* layout 4: the data file (segment.c). seg_fd -1 before layout 4;
     * seg_map the largest mapping, older ones kept until close (a reader's
     * pointer stays valid); the writer's end, what data.mdb's last commit
     * names, and what was fdatasynced */
    int seg_fd;
    struct kix__seg_map *_Atomic seg_map;
    pthread_mutex_t seg_mu;
    uint64_t seg_end, seg_committed, seg_synced;
    /* the writer's appends not yet written to the file, which holds
     * [0, seg_flushed) (segment.c) */
    struct kix__seg_pending *seg_pending;
    _Atomic uint64_t seg_flushed;
    /* bytes known to be in the file (its size when last looked at, or what
     * the writer wrote since): a locator past it is checked against the
     * file before its bytes are touched, since a mapping past the file's
     * end is only address space (SIGBUS) */
    _Atomic uint64_t seg_known;
    /* full tiles above level 0 as read from committed snapshots
     * (tile_cache.h): immutable once full, few, and on every proof's path */
    struct kix__tile_cache *tile_cache;
    /* the layer above's state kept between write transactions
     * (kix_log_txn_writer_state) */
    struct kix__writer_keep {
        void *state;
        void (*free_fn)(void *);
    } writer_keep;
    /* the transaction ids the next write of each environment has when no
     * other process wrote since this handle's last commit (0: none yet).
     * Another process may write the same store (kix publish --store beside
     * kixd serve; LMDB's write lock orders them): on a change the write
     * reloads what the handle keeps of the committed state (db.c,
     * write_reload) before it appends anything. */
    size_t next_txnid, next_itxnid;
    uint64_t sealed_reads; /* the writer's gets of sealed tables (kix_log_seal_stats) */
    /* kix_log_txn_memo of the write transaction under way: 0 when each
     * begins (write_once) and when a table is cleared */
    unsigned w_memo;
};

/* Frees the layer's writer state (kix_log_txn_writer_state), if any. */
void kix__writer_keep_drop(struct kix_store *s);

/* kix_store_open, also opening (creating, unless read-only) the tables of
 * the layer above: KIX_EINVAL when there are more than KIX_LOG_TABLES_MAX. */
/* fsync of path (a file, or a directory with O_DIRECTORY): 0 or errno. */
int kix__sync_path(const char *path, int flags);

/* Asks for huge pages on the store's LMDB maps when s->large_pages (again
 * after LMDB maps a file anew), and on a log.dat map (large_pages.c). */
void kix__store_large_pages(struct kix_store *s);
void kix__map_large_pages(void *addr, size_t len);
int kix__store_open(const char *dir, const struct kix_store_opts *opts,
                    const struct kix_log_table_spec *tables, size_t ntables, struct kix_store **out,
                    struct kix_err *err);

struct kix_reader {
    struct kix_store *store;
    MDB_txn *txn;  /* the log's (data.mdb) */
    MDB_txn *itxn; /* the index's, begun before txn (== txn without ienv) */
};

/* The dbi of table t: in the index environment when it is derived and the
 * store has one. */
static inline MDB_dbi kix__dbi(const struct kix_store *s, int t)
{
    return s->ienv && kix__derived(t) ? s->idbi[t] : s->dbi[t];
}

/* The writer's index transaction (inside kix__db_write of s). */
MDB_txn *kix__witxn(const struct kix_store *s);

/* split.c: opens (creating, when writable) the index environment of a
 * layout-3 store, deciding whether its contents can be trusted (the
 * marker's boot id, the state against the log): sets index_lost,
 * index_size, index_blobs. */
int kix__split_open(struct kix_store *s, struct kix_err *err);
/* split.c: converts a layout-2 store to 3: the derived tables copied into
 * a new index environment (synced), then dropped from data.mdb with the
 * layout mark set, in one durable transaction. */
int kix__split_convert(struct kix_store *s, struct kix_err *err);
/* split.c: the index state written beside each commit (kix__db_write). */
int kix__split_state_put(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, struct kix_err *err);
/* split.c: before the log's commit: fails (KIX_EFULL, or map full)
 * unless the index's map and disk hold room for its commit, which comes
 * after the log's; *last_pgno for kix__split_committed. */
int kix__split_reserve(struct kix_store *s, uint64_t *last_pgno, struct kix_err *err);
/* split.c: a derivation of the index cut in parts puts the state its
 * part reaches (a size the log has a checkpoint at). */
int kix__split_state_set(struct kix_store *s, MDB_txn *itxn, uint64_t size, uint64_t blobs,
                         struct kix_err *err);
/* split.c: after the index's commit: its state taken as committed. */
void kix__split_committed(struct kix_store *s, uint64_t last_pgno_before);
/* split.c: before the first unsynced index commit of an open. */
int kix__split_mark(struct kix_store *s, struct kix_err *err);
/* split.c: at a clean close: syncs the index and, alone with the store
 * (kix__store_alone), removes the marker (another process's commits may
 * be unsynced otherwise). */
void kix__split_close(struct kix_store *s, int alone);
/* split.c: the index state (size, blobs, in step) read again in the
 * writer's transactions (db.c, write_reload). */
int kix__split_reload(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn);
/* db.c: at close: whether no other process holds the store (its flock on
 * data.mdb taken exclusively). Gives up this handle's shared lock when
 * another holds it: call it only when the close writes nothing more but
 * what it may write alone. */
int kix__store_alone(const struct kix_store *s);
/* compact.c: writes the snapshot of the index a read transaction sees to
 * path (a new file, MDB_NOSUBDIR), its tables in key order with
 * MDB_APPEND (pages full, none free), and syncs it. */
int kix__index_copy_sorted(struct kix_store *s, const char *path, struct kix_err *err);
/* compact.c: table src of from copied into dst of to in key order
 * (MDB_APPEND: pages filled whole): 0 or an LMDB error. */
int kix__copy_table_sorted(MDB_txn *from, MDB_dbi src, MDB_txn *to, MDB_dbi dst);
/* compact.c: at close: whether the index is worth compacting (writable,
 * at least doubled since the open); prepare writes the copy beside it
 * (synced), install, once the environment is closed, renames it over
 * index.mdb and syncs the directory; a writable open removes a copy a
 * crash left. */
/* kix_store_close, returning what the close could not do: writing the
 * index again in key order (the index is then left whole as it was). */
int kix__store_close(struct kix_store *s, struct kix_err *err);
int kix__compact_worth(const struct kix_store *s);
int kix__compact_prepare(struct kix_store *s, struct kix_err *err);
int kix__compact_install(struct kix_store *s, struct kix_err *err);
void kix__compact_remove_leftover(const struct kix_store *s);
/* split.c: the boot id (/proc/sys/kernel/random/boot_id, or the test
 * hook KIX_TEST_BOOT_ID). */
void kix__boot_id(char out[64]);
/* objects.c: the next blob sequence number of the log (data.mdb). */
int kix__next_blob_seq(struct kix_store *s, MDB_txn *txn, uint64_t *seq);
/* split.c: the digests of the blobs from sequence `from` on, put in the
 * index (a rebuild or catch-up, inside kix__db_write). */
int kix__split_blobs(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, uint64_t from,
                     struct kix_err *err);
/* split.c: the tree size a reader serves: the index's (layout 3), else
 * the log's. */
int kix__reader_size(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, uint64_t *size);
/* split.c: the blobs whose digests the index holds (layout 3; else
 * KIX_ENOTFOUND: all of them). */
int kix__reader_blobs(struct kix_store *s, MDB_txn *itxn, uint64_t *blobs);
/* split.c: the log's size and next blob in txn (data.mdb). */
int kix__log_extent(struct kix_store *s, MDB_txn *txn, uint64_t *size, uint64_t *blobs);

/* segment.c: opens a layout-4 store's data file (made when a new store
 * has none yet), cutting a writable store's to what data.mdb names. */
int kix__seg_open(struct kix_store *s, struct kix_err *err);
void kix__seg_close(struct kix_store *s);
/* segment.c: the end of the data file's bytes that txn's locators name. */
int kix__seg_committed_end(struct kix_store *s, MDB_txn *txn, uint64_t *end);
/* segment.c: turns a T_LEAVES or T_BLOBS value (a locator in layout 4)
 * into a view of its bytes, valid until the store closes; KIX_ECORRUPT
 * when it names bytes the file lacks. Before layout 4: unchanged. */
int kix__seg_view(struct kix_store *s, MDB_val *v);
/* segment.c: appends a leaf (T_LEAVES) or blob (T_BLOBS) under key: its
 * bytes to the data file and its locator to the table (before layout 4,
 * the bytes to the table). */
int kix__seg_put(struct kix_store *s, MDB_txn *txn, int table, const uint8_t key[8],
                 const uint8_t *data, size_t len, struct kix_err *err);
/* segment.c: the write protocol (db.c): begin resets the writer's end to
 * the committed one; sync (fdatasync: 0 or errno) before data.mdb's
 * commit; committed after it. */
void kix__seg_begin(struct kix_store *s);
int kix__seg_sync(struct kix_store *s);
void kix__seg_committed(struct kix_store *s);
/* segment.c: the committed end read again in the writer's transaction txn
 * (another process appended and committed since: db.c, write_reload),
 * before kix__seg_begin. */
int kix__seg_reload(struct kix_store *s, MDB_txn *txn);
/* segment.c: converts a layout-3 store to 4 (data file written and
 * synced, then the tables' values turned into locators with the mark, in
 * one durable transaction). */
int kix__seg_convert(struct kix_store *s, struct kix_err *err);
/* segment.c: kix_store_copy's copy of the data file into dir (after
 * data.mdb's). */
int kix__seg_copy(struct kix_store *s, const char *dir, struct kix_err *err);

/* The codes a write's function and kix__db_write pass each other, below
 * every KIX_E* and one number each (two layers that picked the same one
 * once made an inspection retry forever). Never returned to a caller.
 * KIX__EMAPFULL: MDB_MAP_FULL inside a write; kix__db_write grows the map
 * and retries, or turns it into KIX_EFULL at the ceiling. KIX__EBEHIND:
 * the index is behind the log and is caught up before the write again
 * (write_reload). KIX__EINSPECTED: the log's write function aborts after
 * an inspection that succeeded (log.c). */
#define KIX__EMAPFULL   (-100)
#define KIX__EBEHIND    (-101)
#define KIX__EINSPECTED (-102)

/* Opens (creating, unless read-only) the layer's tables in txn's environment. */
int kix__open_layer_tables(struct kix_store *s, MDB_txn *txn,
                           const struct kix_log_table_spec *tables, struct kix_err *err);

/* Translates an LMDB return code. */
int kix__db_error(int mdb_rc, struct kix_err *err, const char *what);

/* Runs fn inside one write transaction and commits it durably. On a full
 * map it aborts, grows the map and runs fn again, so fn must do all its
 * writes through txn and keep no state across attempts except via ctx
 * fields it resets itself. fn's own errors abort the transaction. */
typedef int (*kix__write_fn)(struct kix_store *s, MDB_txn *txn, void *ctx, struct kix_err *err);
int kix__db_write(struct kix_store *s, kix__write_fn fn, void *ctx, struct kix_err *err);
/* Whether this thread is inside kix__db_write of s (holds its write lock):
 * for KIX_ASSERT on every put. */
int kix__db_writing(const struct kix_store *s);

/* The record under a u64be key of `table`: KIX_ENOTFOUND, or a view. */
int kix__db_get_u64(struct kix_store *s, MDB_txn *txn, int table, uint64_t k,
                    struct kix_bytes *out);

/* Object lookups inside any transaction: a view of the canonical bytes. */
int kix__object_get(struct kix_store *s, MDB_txn *txn, MDB_txn *itxn, const uint8_t digest[32],
                    MDB_val *out);
/* Stores canonical bytes under their digest inside a write transaction. */
int kix__object_put(struct kix_store *s, MDB_txn *txn, const uint8_t *canon, size_t len,
                    const uint8_t digest[32], int *created, struct kix_err *err);

/* The keys of layout 2's records under a subject (T_OBJECTS). */
void kix__subject_key(uint8_t k[KIX__SUBJECT_KEY_LEN], const uint8_t subject[32], uint64_t index);
void kix__statement_key(uint8_t k[KIX__STATEMENT_KEY_LEN], const uint8_t subject[32],
                        const uint8_t statement_hash[32]);
void kix__statement_val(uint8_t v[KIX__STATEMENT_VAL_LEN], uint64_t index,
                        const struct kix_hash *leaf_hash);
/* The table holding subject records in s's layout, and their key prefix
 * ends at 32 bytes in both. */
MDB_dbi kix__subjects_dbi(const struct kix_store *s);

#endif
