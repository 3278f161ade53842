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
    T_BLOBS, /* u64be sequence → canonical object bytes (append-only) */
    /* digest(32) → u64be blob sequence; since layout 2 also, beside it
     * (kix__subject_key, kix__statement_key): the subject records
     * digest ‖ u64be index → type and the statement records
     * subject ‖ 0xff ‖ statement hash(32) → u64be index ‖ leaf hash(32),
     * so that the
     * records one entry adds under its subject share one B-tree page */
    T_OBJECTS,
    T_LEAVES,      /* u64be log index → leaf bytes (canonical DSSE envelope) */
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
 * them in T_OBJECTS under the subject's digest. A writable open of a log
 * converts 1 to 2 in one transaction (log.c, migrate_fn). */
#define KIX__LAYOUT            KIX_STORE_LAYOUT
#define KIX__STATEMENT_TAG     0xff
#define KIX__SUBJECT_KEY_LEN   40
#define KIX__STATEMENT_KEY_LEN 65
#define KIX__STATEMENT_VAL_LEN 40

struct kix_store {
    MDB_env *env;
    int layout; /* 1 or KIX__LAYOUT, read at open */
    MDB_dbi dbi[T_COUNT];
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
    MDB_dbi table_dbi[KIX_LOG_TABLES_MAX];
    unsigned table_flags[KIX_LOG_TABLES_MAX];
    unsigned char table_absent[KIX_LOG_TABLES_MAX];
    /* Readers hold it shared for their transaction's life; only a map
     * resize (rare) takes it exclusively, as LMDB requires no live txn. */
    pthread_rwlock_t resize_lock;
    pthread_mutex_t write_lock;
    char *dir;
    /* full tiles above level 0 as read from committed snapshots
     * (tile_cache.h): immutable once full, few, and on every proof's path */
    struct kix__tile_cache *tile_cache;
};

/* kix_store_open, also opening (creating, unless read-only) the tables of
 * the layer above: KIX_EINVAL when there are more than KIX_LOG_TABLES_MAX. */
int kix__store_open(const char *dir, const struct kix_store_opts *opts,
                    const struct kix_log_table_spec *tables, size_t ntables, struct kix_store **out,
                    struct kix_err *err);

struct kix_reader {
    struct kix_store *store;
    MDB_txn *txn;
};

/* MDB_MAP_FULL inside a write: internal only, kix__db_write grows the map
 * and retries, or turns it into KIX_EFULL at the ceiling. */
#define KIX__EMAPFULL (-100)

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
int kix__object_get(struct kix_store *s, MDB_txn *txn, const uint8_t digest[32], MDB_val *out);
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
