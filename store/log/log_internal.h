/* Internal to kix_log: the log's in-memory types shared by prepare
 * (prepare.c), admission (admission.c), writing (log.c) and reading
 * (log_read.c). */
#ifndef KIX_LOG_INTERNAL_H
#define KIX_LOG_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "db.h"
#include "phase_clock.h"
#include "tile_io.h"
#include "kix/dsse.h"
#include "kix/log.h"
#include "kix/log_txn.h"
#include "kix/schema.h"

/* What the layer keeps from one seal to the next of one replay
 * transaction (kix_log_txn_seal_state): freed when the transaction ends. */
struct kix__seal_keep {
    void *state;
    void (*free_fn)(void *);
    int more; /* another seal follows in this transaction */
};

struct kix_log {
    struct kix_store *store;
    char origin[KIX_NOTE_NAME_MAX + 1];
    struct kix_verifier verifier; /* the log key's public half */
    uint8_t log_key_id[32];       /* SHA-256 of the log's public key */
    struct kix_signer *signer;    /* NULL for replicas */
    int replica;
    /* the layer whose tables follow the log (opts.indexer), and whether the
     * store was made with one (then every write needs it) */
    const struct kix_log_indexer *indexer;
    int indexed;
    int rebuild;            /* during open: the index must be rebuilt */
    struct kix_buf scratch; /* the indexer's, for one write transaction */
    struct kix_log_seal_stats seal_stats;
    struct kix__seal_keep seal_keep; /* a replay's, between its seals */
    struct kix__phases phases;       /* kix_log_phase_stats */
    /* registered keys' public halves by key id, as prepare found them in
     * the registry (a key id is the SHA-256 of its public key, and a record
     * is never removed): one read transaction a bundle fewer on every
     * prepare thread. Only what prepare verifies with; commit decides with
     * the registry as it stands at the entry's index (admission.c). */
    pthread_mutex_t keys_mu;
    struct kix__key_slot {
        uint8_t id[32];
        uint8_t pub[32];
        int set;
    } keys[64];
    /* the record kinds of stored objects the writer scanned, by digest (a
     * digest names its bytes: its kind never changes), for the kind checks
     * of entries naming shared objects (admission.c); the writer's only */
    struct kix__kind_memo {
        uint8_t digest[32];
        char kind[KIX_SCHEMA_KIND_MAX];
        int set;
    } kinds[64];
    /* keys kix_log_replay_checkpoint_open's seal: what this handle opened
     * ahead is told from what a caller merely claims */
    uint8_t opened_seal_key[32];
    /* the right edge of the latest size proven, shared by readers */
    pthread_mutex_t edge_mu;
    struct kix_tile_edge edge;
};

struct kix_log_txn {
    struct kix_store *store;
    MDB_txn *txn;  /* the log's (data.mdb) */
    MDB_txn *itxn; /* the index's: the layer's tables and the derived ones */
    int writable;
    struct kix_buf *scratch;     /* the writer's: kix_log_txn_scratch */
    struct kix__seal_keep *keep; /* a replay's seals: kix_log_txn_seal_state */
    unsigned memo; /* kix_log_txn_memo of a reader (the writer's: the store's w_memo) */
};

struct prepared_object {
    struct kix_buf canon;
    struct kix_digest digest;
    struct kix_digest *refs;
    size_t nrefs;
    /* its record kind ("" for an object without one), validated against
     * its schema in prepare, and the kinds its digest fields require
     * (checked in the writer's transaction: the objects may be stored) */
    char kind[KIX_SCHEMA_KIND_MAX];
    struct kix_schema_ref *kind_refs;
    size_t nkind_refs;
    /* what the indexer's prepare read of it (kix_log_item_memo), from the
     * same parse, so the writer parses it no more; memoed: it ran */
    int memoed;
    unsigned char memo[KIX_LOG_MEMO_MAX];
    /* sent canonical but already stored: its references found, nothing
     * else (no parse, no schema check: it passed them when stored); the
     * writer reads it from the store like an object not sent */
    int stored_before;
};

struct kix_prepared {
    struct kix_entry entry; /* what the statement says; entry.signer from the keyid */
    struct kix_buf leaf;    /* canonical envelope bytes */
    struct kix_hash leaf_hash;
    struct kix_hash statement_hash; /* SHA-256 of PAE(payloadType, payload): what was signed */
    uint8_t signer_pub[32];         /* the key the signature verified with */
    int sig_checked;                /* 1: verified with signer_pub during prepare */

    struct prepared_object *objects;
    size_t nobjects;
    /* the kinds the predicate requires of the objects it names (a
     * publication's subject, a rerun's rerunDigest: kix/schema.h) */
    struct kix_schema_ref *kind_refs;
    size_t nkind_refs;
    /* last: its 5.7 KB (eight signature slots) the parse writes before
     * anything reads them, so prepare zeroes only what comes before
     * (offsetof: 0.9 KB) instead of calloc's 6.6 KB */
    struct kix_dsse_envelope env;
};

/* Key registry record: pub(32) roles(1) added(8) revoked(8). */
#define KEY_RECORD_LEN 49
void kix__key_record_encode(const struct kix_key_info *k, uint8_t out[KEY_RECORD_LEN]);
int kix__key_record_decode(const uint8_t *data, size_t len, struct kix_key_info *k);

int kix__key_get(struct kix_store *s, MDB_txn *txn, const uint8_t id[32], struct kix_key_info *k);

/* The log's admission policy, from its latest policy entry (T_META
 * "policy": open(1) work(1) index(8)); none yet: closed, index
 * KIX_NO_INDEX. */
#define POLICY_META       "policy"
#define POLICY_RECORD_LEN 10
int kix__policy_get(struct kix_store *s, MDB_txn *txn, struct kix_log_policy *out);
/* admission.c: whether p's signer may append it at `index` (registered, in
 * force, holding the role, and the signature verifies with that key).
 * Checked before anything else, duplicates included: an already logged
 * statement is answered as a duplicate only to a signer who may append it. */
int kix__policy_signer(struct kix_log *l, MDB_txn *txn, uint64_t index,
                       const struct kix_prepared *p, struct kix_err *err);

/* admission.c: checks p (its signer already checked) against the state in txn
 * (at log index `index`) and, when it passes, writes it: objects, leaf,
 * indexes, registry, and the indexer's tables.
 * KIX_EPOLICY/KIX_EVERIFY refuse only this entry; other codes abort all. */
int kix__policy_apply(struct kix_log *l, MDB_txn *txn, uint64_t index, const struct kix_prepared *p,
                      struct kix__clock *clk, struct kix_err *err);

/* prepare.c: SHA-256 of PAE(payloadType, payload), the identity of an
 * entry: one statement is logged once, whatever its envelope looks like. */
int kix__statement_hash(const struct kix_dsse_envelope *env, struct kix_hash *out);

/* records.c: the committed tree size (that of the latest checkpoint). */
int kix__log_size(struct kix_store *s, MDB_txn *txn, uint64_t *size);

/* The log a reader reads (to prepare the leaves it reads). */
struct kix_log *kix__log_reader_log(struct kix_log_reader *r);

/* cosign.c: the T_COSIGS key u64be size ‖ u32be key hash ‖ name; values
 * are u64be cosignature time ‖ the signature line (no "\n"). */
size_t kix__cosig_key(uint8_t *out, uint64_t size, uint32_t key_hash, const char *name,
                      size_t name_len);

#endif
