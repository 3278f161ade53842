/* The log: creation, opening, and the group-commit writer. */
#include <errno.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kix/clock.h"
#include "kix/assert.h"
#include "kix/entries.h"
#include "kix/json.h"
#include "kix/file.h"
#include "kix/sha256.h"
#include "kix/note.h"
#include "log_internal.h"

#define META_ORIGIN "origin"
#define META_VKEY   "log_vkey"
/* present in a log created without an indexer (a plain log); a log without
 * it keeps an index, as every log made before indexers had */
#define META_PLAIN "plain"
/* the indexer format (struct kix_log_indexer.name) its tables were written in */
#define META_INDEX "index"

/* ---- meta ---------------------------------------------------------------- */

static int meta_put(MDB_txn *txn, struct kix_store *s, const char *name, const void *v, size_t len,
                    struct kix_err *err)
{
    MDB_val key = {strlen(name), (void *)name}, val = {len, (void *)v};
    int rc = mdb_put(txn, s->dbi[T_META], &key, &val, 0);
    return rc ? kix__db_error(rc, err, "writing store metadata") : KIX_OK;
}

static int meta_get(struct kix_store *s, const char *name, char *out, size_t cap,
                    struct kix_err *err)
{
    struct kix_reader *r;
    MDB_val key = {strlen(name), (void *)name}, val;
    int rc = kix_store_read_begin(s, &r);

    if (rc)
        return kix_err_set(err, rc, "reading store metadata: %s", kix_strerror(rc));
    rc = mdb_get(r->txn, s->dbi[T_META], &key, &val);
    if (rc == 0 && val.mv_size < cap) {
        memcpy(out, val.mv_data, val.mv_size);
        out[val.mv_size] = '\0';
    }
    kix_store_read_end(r);
    if (rc == MDB_NOTFOUND)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "the store holds no log (%s missing); create one with kixd init", name);
    if (rc == 0 && val.mv_size >= cap)
        return kix_err_set(err, KIX_ECORRUPT, "store metadata %s is too long", name);
    return rc ? kix__db_error(rc, err, "reading store metadata") : KIX_OK;
}

/* ---- checkpoints ---------------------------------------------------------- */

/* Whether the leaves table ends exactly at size: the checkpoint's commit
 * order is leaves and tiles first, then the checkpoint that names them. */
static int leaves_end_at(struct kix_store *s, MDB_txn *txn, uint64_t size)
{
    struct kix_bytes leaf;

    return (size == 0 || kix__db_get_u64(s, txn, T_LEAVES, size - 1, &leaf) == KIX_OK) &&
           kix__db_get_u64(s, txn, T_LEAVES, size, &leaf) == KIX_ENOTFOUND;
}

static int put_checkpoint(struct kix_store *s, MDB_txn *txn, uint64_t size, const void *note,
                          size_t len, struct kix_err *err)
{
    uint8_t k[8];
    MDB_val key = {8, k}, val = {len, (void *)note};
    int rc;

    KIX_ASSERT(kix__db_writing(s) && len > 0);
    KIX_ASSERT(leaves_end_at(s, txn, size));
    kix_u64be_put(k, size);
    rc = mdb_put(txn, s->dbi[T_CHECKPOINTS], &key, &val, MDB_APPEND);
    return rc ? kix__db_error(rc, err, "writing a checkpoint") : KIX_OK;
}

/* flags: MDB_APPEND where size is past every stored note (a commit, a
 * replay: pages fill completely), 0 where the rebuild re-signs the notes
 * of checkpoints the store already has. */
static int put_index_note(struct kix_store *s, MDB_txn *txn, uint64_t size, const void *note,
                          size_t len, unsigned flags, struct kix_err *err)
{
    uint8_t k[8];
    MDB_val key = {8, k}, val = {len, (void *)note};
    int rc;

    KIX_ASSERT(kix__db_writing(s));
    kix_u64be_put(k, size);
    rc = mdb_put(txn, s->dbi[T_INDEX_NOTES], &key, &val, flags);
    return rc ? kix__db_error(rc, err, "writing an index note") : KIX_OK;
}

/* The indexer's note text at a checkpoint (empty without an indexer). */
/* Frees what a replay's seals kept between them (kix_log_txn_seal_state). */
static void seal_keep_drop(struct kix_log *l)
{
    if (l->seal_keep.state && l->seal_keep.free_fn)
        l->seal_keep.free_fn(l->seal_keep.state);
    memset(&l->seal_keep, 0, sizeof(l->seal_keep));
}

/* keep: a replay's seals (each but the last with keep->more set), which
 * may keep state from one to the next; NULL for any other seal. */
static int seal_text_kept(struct kix_log *l, struct kix_store *s, MDB_txn *txn, uint64_t size,
                          const struct kix_hash *root, struct kix_buf *text,
                          struct kix__seal_keep *keep, struct kix_err *err)
{
    struct kix_log_txn t = {s, txn, kix__witxn(s), 1, &l->scratch, keep, 0};
    struct kix__clock clk;
    uint64_t t0;
    int rc;

    if (!l->indexer || !l->indexer->seal)
        return KIX_OK;
    kix__clock_start(&clk, &l->phases, KIX__CLOCK_EXACT_TXN);
    t0 = kix_clock_ns();
    rc = l->indexer->seal(&t, l->origin, size, root, text, err);
    l->seal_stats.ns += kix_clock_ns() - t0;
    l->seal_stats.seals++;
    if (rc == KIX_OK && keep && keep->more && keep->state)
        l->seal_stats.kept++;
    kix__clock_mark(&clk, KIX_LOG_PHASE_INDEX);
    return rc;
}

static int seal_text(struct kix_log *l, struct kix_store *s, MDB_txn *txn, uint64_t size,
                     const struct kix_hash *root, struct kix_buf *text, struct kix_err *err)
{
    return seal_text_kept(l, s, txn, size, root, text, NULL, err);
}

void kix_log_seal_stats(const struct kix_log *l, struct kix_log_seal_stats *out)
{
    *out = l->seal_stats;
    out->sealed_reads = l->store->sealed_reads;
}

void kix_log_phase_stats_enable(struct kix_log *l, int on)
{
    l->phases.on = on;
}

void kix_log_phase_stats(const struct kix_log *l, struct kix_log_phase_stats *out)
{
    kix__phases_read(&l->phases, out);
}

/* Origin: signs and keeps the indexer's note beside the checkpoint. */
static int seal_and_sign(struct kix_log *l, struct kix_store *s, MDB_txn *txn, uint64_t size,
                         const struct kix_hash *root, unsigned flags, struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT, note = KIX_BUF_INIT;
    struct kix_signer *signer = l->signer;
    int rc = seal_text(l, s, txn, size, root, &text, err);

    if (rc == KIX_OK && text.len > 0) {
        if (!signer) {
            rc = KIX_OK; /* a replica's own rebuild: its notes come from upstream */
        } else {
            rc = kix_note_sign((const char *)text.ptr, text.len, &signer, 1, &note, err);
            if (rc == KIX_OK)
                rc = put_index_note(s, txn, size, note.ptr, note.len, flags, err);
        }
    }
    kix_buf_release(&text);
    kix_buf_release(&note);
    return rc;
}

static int replay_checkpoint_sealed(const struct kix_log *l, const struct kix_replay_checkpoint *c);

/* Replica: the upstream's index note must be signed by the log key and
 * say exactly what this store derived from the same entries. */
static int seal_and_check(struct kix_log *l, struct kix_store *s, MDB_txn *txn,
                          const struct kix_replay_checkpoint *c, int sealed,
                          const struct kix_hash *root, struct kix__seal_keep *keep,
                          struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_note note;
    int rc = seal_text_kept(l, s, txn, c->size, root, &text, keep, err);

    if (rc || text.len == 0)
        goto out;
    if (!c->index_note) {
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the upstream sent no index note for size %llu; a log that keeps an "
                         "index signs one at every checkpoint",
                         (unsigned long long)c->size);
        goto out;
    }
    if (c->index_opened && sealed) {
        note.text.ptr = (const uint8_t *)c->index_text; /* opened ahead, on all cores */
        note.text.len = c->index_text_len;
    } else {
        rc = kix_note_open(c->index_note, c->index_note_len, &l->verifier, 1, &note, err);
    }
    if (rc) {
        kix_err_wrap(err, "upstream index note at size %llu", (unsigned long long)c->size);
        goto out;
    }
    if (note.text.len != text.len || memcmp(note.text.ptr, text.ptr, text.len) != 0) {
        /* one line: the recomputed root is the text's last line */
        const char *last = (const char *)text.ptr + text.len - 1;
        while (last > (const char *)text.ptr && last[-1] != '\n')
            last--;
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the upstream's signed index at size %llu is not the index of its "
                         "entries (recomputed here: %.*s); the upstream lies about what its "
                         "entries say (or it is a kixd of index format kix-index/4 or older, "
                         "which commits other run records: upgrade it, OPERATING.md)",
                         (unsigned long long)c->size,
                         (int)((const char *)text.ptr + text.len - 1 - last), last);
        kix_err_cause(err, KIX_CAUSE_INDEX_MISMATCH, 0, c->size);
        goto out;
    }
    rc = put_index_note(s, txn, c->size, c->index_note, c->index_note_len, MDB_APPEND, err);
out:
    kix_buf_release(&text);
    return rc;
}

static int sign_checkpoint(struct kix_log *l, uint64_t size, const struct kix_hash *root,
                           struct kix_buf *note, struct kix_err *err)
{
    struct kix_checkpoint cp;
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "%s", l->origin);
    cp.size = size;
    memcpy(cp.root, root->b, 32);
    return kix_checkpoint_sign(&cp, l->signer, note, err);
}

/* ---- create / open ----------------------------------------------------- */

static int open_handle(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                       struct kix_err *err)
{
    struct kix_log *l = calloc(1, sizeof(*l));
    int rc;

    *out = NULL;
    if (!l)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* prepare's record trees come from arenas: jansson's allocator set
     * before the prepare threads start (kix/json.h) */
    kix_json_arena_install();
    l->indexer = opts ? opts->indexer : NULL;
    rc = kix__store_open(dir, opts ? &opts->store : NULL, l->indexer ? l->indexer->tables : NULL,
                         l->indexer ? l->indexer->ntables : 0, &l->store, err);
    if (rc) {
        free(l);
        return rc;
    }
    l->replica = opts ? opts->replica : 0;
    l->indexed = l->indexer != NULL;
    pthread_mutex_init(&l->edge_mu, NULL);
    pthread_mutex_init(&l->keys_mu, NULL);
    randombytes_buf(l->opened_seal_key, sizeof(l->opened_seal_key));
    *out = l;
    return KIX_OK;
}

/* Where the log key is: opts->log_key_file, else DIR/log.key. */
static void log_key_path(const char *dir, const struct kix_log_opts *opts, char *out, size_t n)
{
    if (opts && opts->log_key_file && opts->log_key_file[0])
        snprintf(out, n, "%s", opts->log_key_file);
    else
        snprintf(out, n, "%s/log.key", dir);
}

static int set_verifier(struct kix_log *l, const struct kix_verifier *v)
{
    l->verifier = *v;
    snprintf(l->origin, sizeof(l->origin), "%s", v->name);
    kix_sha256(v->pub, 32, l->log_key_id);
    return KIX_OK;
}

static int store_identity(struct kix_log *l, MDB_txn *txn, struct kix_err *err)
{
    struct kix_buf vkey = KIX_BUF_INIT;
    int rc = kix_verifier_format(&l->verifier, &vkey);

    if (rc == KIX_OK)
        rc = meta_put(txn, l->store, META_ORIGIN, l->origin, strlen(l->origin), err);
    if (rc == KIX_OK)
        rc = meta_put(txn, l->store, META_VKEY, vkey.ptr, vkey.len, err);
    if (rc == KIX_OK && !l->indexer)
        rc = meta_put(txn, l->store, META_PLAIN, "1", 1, err);
    if (rc == KIX_OK && l->indexer)
        rc = meta_put(txn, l->store, META_INDEX, l->indexer->name, strlen(l->indexer->name), err);
    kix_buf_release(&vkey);
    return rc;
}

static int refuse_existing(const char *dir, struct kix_err *err)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    if (stat(path, &st) == 0)
        return kix_err_set(err, KIX_EEXIST, "%s already holds a store; choose an empty directory",
                           dir);
    return KIX_OK;
}

/* A new store's directory: created with its parents (0700), and an
 * existing one narrowed to 0700 (SECURITY.md: only the log's owner reads
 * its keys and data). */
static int make_store_dir(const char *dir, struct kix_err *err)
{
    int rc = kix_dir_make(dir, 0700, err);

    if (rc)
        return rc;
    if (chmod(dir, 0700) != 0)
        return kix_err_set(err, KIX_EIO, "cannot make %s private (chmod 0700): %s", dir,
                           strerror(errno));
    return KIX_OK;
}

/* Opening never creates: the store must be one kixd init made (a non-empty
 * data.mdb), so that a typo or a stray empty file is refused, not turned
 * into a new empty log. */
static int require_store(const char *dir, struct kix_err *err)
{
    char path[4096];
    struct stat st;

    if ((size_t)snprintf(path, sizeof(path), "%s/data.mdb", dir) >= sizeof(path))
        return kix_err_set(err, KIX_EINVAL, "store path %.200s... is too long", dir);
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && stat(dir, &st) != 0 && errno == ENOENT)
            return kix_err_set(err, KIX_ENOTFOUND,
                               "no kix store at %s: no such directory (check the path, or "
                               "create a store with kixd init --store %s)",
                               dir, dir);
        if (errno == ENOENT || errno == ENOTDIR)
            return kix_err_set(err, KIX_ENOTFOUND,
                               "no kix store in %s (no data.mdb; check the path, or create a "
                               "store with kixd init --store %s)",
                               dir, dir);
        return kix_err_set(err, KIX_EIO, "cannot read the store %s: %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0)
        return kix_err_set(err, KIX_ECORRUPT,
                           "%s is %s, not a store that kixd init made; move it away and "
                           "restore the store (or create one with kixd init)",
                           path, S_ISREG(st.st_mode) ? "empty" : "not a regular file");
    return KIX_OK;
}

struct identity_ctx {
    struct kix_log *log;
};

static int identity_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    (void)s;
    return store_identity(((struct identity_ctx *)arg)->log, txn, err);
}

int kix_log_create(const char *dir, const char *origin, const uint8_t admin_pub[32],
                   const struct kix_log_opts *opts, struct kix_buf *log_vkey, struct kix_err *err)
{
    struct kix_log *l = NULL;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_verifier v;
    struct kix_prepared *p = NULL;
    struct kix_append_result res;
    struct kix_submission sub;
    struct identity_ctx ictx;
    char keypath[4096];
    int rc = refuse_existing(dir, err);

    if (rc)
        return rc;
    if (!kix_note_name_valid(origin, strlen(origin)))
        return kix_err_set(err, KIX_EINVAL,
                           "origin \"%s\" is not a valid key name (no spaces or '+'), e.g. "
                           "kix.example.org/log",
                           origin);
    rc = make_store_dir(dir, err);
    if (rc)
        return rc;
    rc = open_handle(dir, opts, &l, err);
    if (rc)
        return rc;
    rc = kix_signer_generate(origin, KIX_NOTE_ALG_ED25519, &l->signer, err);
    if (rc)
        goto out;
    log_key_path(dir, opts, keypath, sizeof(keypath));
    rc = kix_keyfile_write(keypath, l->signer, err);
    if (rc)
        goto out;
    kix_verifier_from_signer(l->signer, &v);
    set_verifier(l, &v);
    ictx.log = l;
    rc = kix__db_write(l->store, identity_fn, &ictx, err);
    if (rc == KIX_OK)
        rc = kix_entry_key(l->signer, 0, admin_pub, KIX_ROLE_ADMIN, &env, err);
    if (rc)
        goto out;
    sub.envelope = kix_buf_bytes(&env);
    sub.objects = NULL;
    sub.nobjects = 0;
    rc = kix_log_prepare(l, &sub, &p, err);
    if (rc == KIX_OK)
        rc = kix_log_commit(l, &p, 1, &res, NULL, err);
    if (rc == KIX_OK && res.code)
        rc = kix_err_set(err, res.code, "writing entry 0: %s", res.message);
    if (rc == KIX_OK && log_vkey)
        rc = kix_verifier_format(&v, log_vkey);
out:
    kix_prepared_free(p);
    kix_buf_release(&env);
    kix_log_close(l);
    return rc;
}

int kix_log_create_replica(const char *dir, const struct kix_verifier *log_key,
                           const struct kix_log_opts *opts, struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *l = NULL;
    struct identity_ctx ictx;
    int rc = refuse_existing(dir, err);

    if (rc == KIX_OK)
        rc = make_store_dir(dir, err);
    if (rc)
        return rc;
    memset(&o, 0, sizeof(o));
    if (opts)
        o = *opts;
    o.replica = 1;
    rc = open_handle(dir, &o, &l, err);
    if (rc)
        return rc;
    set_verifier(l, log_key);
    ictx.log = l;
    rc = kix__db_write(l->store, identity_fn, &ictx, err);
    kix_log_close(l);
    return rc;
}

/* Layout 1 -> 2 (db.h), in one transaction the first time a store of
 * layout 1 is opened to write: the subject and statement records of every
 * entry, derived again from the leaves (so a store made before statements
 * were indexed gets them too), put under their subjects in the objects
 * table; the old tables (subjects, statements, leaf index) emptied; the
 * mark set. LMDB commits it whole or
 * not at all, so a crash leaves layout 1 to convert again. */
static int migrate_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    static const char mark[] = "layout";
    MDB_val mk = {sizeof(mark) - 1, (void *)mark}, mv = {1, "2"};
    MDB_cursor *cur;
    MDB_val key, val;
    int rc = mdb_cursor_open(txn, s->dbi[T_LEAVES], &cur);

    (void)arg;
    if (rc)
        return kix__db_error(rc, err, "reading the log");
    for (rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT)) {
        struct kix_dsse_envelope env;
        struct kix_entry e;
        struct kix_hash h;
        struct kix_hash lh;
        uint8_t sk[KIX__STATEMENT_KEY_LEN], sv[KIX__STATEMENT_VAL_LEN], subk[KIX__SUBJECT_KEY_LEN],
            type;
        MDB_val k1 = {sizeof(sk), sk}, v1 = {sizeof(sv), sv}, k2 = {sizeof(subk), subk},
                tv = {1, &type};
        int prc;

        if (key.mv_size != 8)
            continue; /* kixd check names it */
        memset(&e, 0, sizeof(e));
        kix_dsse_envelope_init(&env);
        prc = kix_dsse_parse(val.mv_data, val.mv_size, &env, NULL);
        if (prc == KIX_OK)
            prc = kix__statement_hash(&env, &h);
        if (prc == KIX_OK)
            prc = kix_entry_parse_statement(&e, env.payload.ptr, env.payload.len, NULL);
        kix_dsse_envelope_release(&env);
        kix_entry_release(&e);
        if (prc)
            continue; /* kixd check names a leaf that does not parse */
        type = (uint8_t)e.type;
        kix__statement_key(sk, e.subject.b, h.b);
        kix__subject_key(subk, e.subject.b, kix_u64be_get(key.mv_data));
        kix_merkle_leaf_hash(val.mv_data, val.mv_size, &lh);
        kix__statement_val(sv, kix_u64be_get(key.mv_data), &lh);
        rc = mdb_put(txn, s->dbi[T_OBJECTS], &k1, &v1, MDB_NOOVERWRITE);
        if (rc && rc != MDB_KEYEXIST)
            break;
        rc = mdb_put(txn, s->dbi[T_OBJECTS], &k2, &tv, 0);
        if (rc)
            break;
    }
    mdb_cursor_close(cur);
    if (rc && rc != MDB_NOTFOUND)
        return kix__db_error(rc, err, "converting the store to layout 2");
    rc = mdb_drop(txn, s->dbi[T_SUBJECTS], 0);
    if (rc == 0)
        rc = mdb_drop(txn, s->dbi[T_LEAF_INDEX], 0);
    if (rc == 0 && !s->no_statements)
        rc = mdb_drop(txn, s->dbi[T_STATEMENTS], 0);
    if (rc == 0)
        rc = mdb_put(txn, s->dbi[T_META], &mk, &mv, 0);
    return rc ? kix__db_error(rc, err, "converting the store to layout 2") : KIX_OK;
}

/* The leaves and the checkpoints, walked in step by rebuild_fn and
 * derive_fn. */
static int walk_open(struct kix_store *s, MDB_txn *txn, MDB_cursor **leaves, MDB_cursor **cps,
                     struct kix_err *err)
{
    int mrc = mdb_cursor_open(txn, s->dbi[T_LEAVES], leaves);

    if (mrc == 0)
        mrc = mdb_cursor_open(txn, s->dbi[T_CHECKPOINTS], cps);
    return mrc ? kix__db_error(mrc, err, "reading the log") : KIX_OK;
}

/* The next leaf of the walk, its bytes (layout 4: from the data file). */
static int leaf_get(struct kix_store *s, MDB_cursor *leaves, MDB_val *k, MDB_val *v,
                    MDB_cursor_op op)
{
    int mrc = mdb_cursor_get(leaves, k, v, op);

    if (mrc == 0 && kix__seg_view(s, v) != KIX_OK)
        mrc = MDB_CORRUPTED;
    return mrc;
}

static void walk_close(MDB_cursor *leaves, MDB_cursor *cps)
{
    if (leaves)
        mdb_cursor_close(leaves);
    if (cps)
        mdb_cursor_close(cps);
}

/* Hands entry `index` (its leaf, parsed as e) to the indexer. */
static int index_entry(struct kix_log *l, struct kix_log_txn *t, uint64_t index,
                       const MDB_val *leaf, struct kix_entry *e, struct kix_err *err)
{
    struct kix_log_item item;

    memset(&item, 0, sizeof(item));
    item.index = index;
    kix_merkle_leaf_hash(leaf->mv_data, leaf->mv_size, &item.leaf_hash);
    item.entry = e;
    return l->indexer->apply(t, &item, err);
}

/* An index written in another format (or none) is rebuilt from every
 * entry, sealed at every stored checkpoint as it had been on append. */
static int rebuild_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct kix_log *l = arg;
    struct kix_log_txn t = {s, txn, kix__witxn(s), 1, &l->scratch, NULL, 0};
    MDB_cursor *leaves = NULL, *cps = NULL;
    MDB_val lk, lv, ck, cv;
    uint64_t next = 0;
    int rc, mrc, crc;

    kix_buf_reset(&l->scratch); /* a retried attempt starts afresh */
    rc = l->indexer->reset(&t, err);

    if (rc)
        return rc;
    rc = walk_open(s, txn, &leaves, &cps, err);
    if (rc)
        goto out;
    crc = mdb_cursor_get(cps, &ck, &cv, MDB_FIRST);
    for (mrc = leaf_get(s, leaves, &lk, &lv, MDB_FIRST); rc == KIX_OK;
         mrc = leaf_get(s, leaves, &lk, &lv, MDB_NEXT)) {
        /* seal at each checkpoint the entries so far reach */
        while (rc == KIX_OK && crc == 0 && ck.mv_size == 8 && kix_u64be_get(ck.mv_data) <= next) {
            struct kix_note note;
            struct kix_checkpoint cp;
            struct kix_hash root;
            if (kix_u64be_get(ck.mv_data) == next && next > 0) {
                rc = kix_checkpoint_open(cv.mv_data, cv.mv_size, &l->verifier, 1, NULL, &note, &cp,
                                         err);
                memcpy(root.b, cp.root, 32);
                if (rc == KIX_OK)
                    rc = seal_and_sign(l, s, txn, next, &root, 0, err);
            }
            crc = mdb_cursor_get(cps, &ck, &cv, MDB_NEXT);
        }
        if (rc || mrc)
            break;
        {
            struct kix_entry e;
            if (lk.mv_size != 8 || kix_u64be_get(lk.mv_data) != next ||
                kix_entry_parse_leaf(lv.mv_data, lv.mv_size, &e, NULL) != KIX_OK) {
                rc = kix_err_set(err, KIX_ECORRUPT,
                                 "entry %llu does not parse; run kixd check --store DIR",
                                 (unsigned long long)next);
                break;
            }
            rc = index_entry(l, &t, next, &lv, &e, err);
            kix_entry_release(&e);
            if (rc)
                kix_err_wrap(err, "rebuilding the index at entry %llu", (unsigned long long)next);
            next++;
        }
    }
    if (rc == KIX_OK && mrc != MDB_NOTFOUND)
        rc = kix__db_error(mrc, err, "reading the log");
    if (rc == KIX_OK)
        rc = meta_put(txn, s, META_INDEX, l->indexer->name, strlen(l->indexer->name), err);
out:
    walk_close(leaves, cps);
    return rc;
}

/* ---- layout 3: the index derived again from the log ----------------------- */

/* The records write_entry (admission.c) puts in the index for the entry
 * at `index`: its statement and subject records, its signer record; and
 * the entry itself (e) for the indexer. */
static int derive_entry(struct kix_store *s, MDB_txn *itxn, uint64_t index, const MDB_val *leaf,
                        struct kix_entry *e, struct kix_err *err)
{
    struct kix_dsse_envelope env;
    struct kix_hash h, lh;
    uint8_t sk[KIX__STATEMENT_KEY_LEN], sv[KIX__STATEMENT_VAL_LEN], k40[KIX__SUBJECT_KEY_LEN], type;
    MDB_val k1 = {sizeof(sk), sk}, v1 = {sizeof(sv), sv}, k2 = {sizeof(k40), k40}, tv = {1, &type};
    int rc;

    memset(e, 0, sizeof(*e));
    kix_dsse_envelope_init(&env);
    rc = kix_dsse_parse(leaf->mv_data, leaf->mv_size, &env, NULL);
    if (rc == KIX_OK)
        rc = kix__statement_hash(&env, &h);
    if (rc == KIX_OK)
        rc = kix_entry_parse_statement(e, env.payload.ptr, env.payload.len, NULL);
    if (rc == KIX_OK)
        rc = kix_entry_signer(e, &env, NULL);
    kix_dsse_envelope_release(&env);
    if (rc) {
        kix_entry_release(e);
        return kix_err_set(err, KIX_ECORRUPT,
                           "entry %llu does not parse; run kixd check --store DIR",
                           (unsigned long long)index);
    }
    type = (uint8_t)e->type;
    kix__statement_key(sk, e->subject.b, h.b);
    kix_merkle_leaf_hash(leaf->mv_data, leaf->mv_size, &lh);
    kix__statement_val(sv, index, &lh);
    rc = mdb_put(itxn, kix__dbi(s, T_OBJECTS), &k1, &v1, MDB_NOOVERWRITE);
    if (rc == MDB_KEYEXIST)
        rc = 0; /* a repeated statement: the first index stays */
    kix__subject_key(k40, e->subject.b, index);
    if (rc == 0)
        rc = mdb_put(itxn, kix__dbi(s, T_OBJECTS), &k2, &tv, 0);
    memcpy(k40, e->signer, 32);
    if (rc == 0)
        rc = mdb_put(itxn, kix__dbi(s, T_SIGNERS), &k2, &tv, 0);
    if (rc) {
        kix_entry_release(e);
        return kix__db_error(rc, err, "writing the index");
    }
    return KIX_OK;
}

/* At a checkpoint the derived index reaches: the indexer's seal, whose
 * text must be the one of the index note the log kept (durably, in
 * data.mdb) beside it, byte for byte; one missing (a store made before
 * index notes) is signed now, as the rebuild does. */
static int derive_seal(struct kix_log *l, struct kix_store *s, MDB_txn *txn, uint64_t size,
                       const MDB_val *cp, struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_note note, cpnote;
    struct kix_checkpoint c;
    struct kix_hash root;
    struct kix_bytes stored;
    int rc = kix_checkpoint_open(cp->mv_data, cp->mv_size, &l->verifier, 1, NULL, &cpnote, &c, err);

    if (rc)
        return rc;
    memcpy(root.b, c.root, 32);
    rc = seal_text(l, s, txn, size, &root, &text, err);
    if (rc || text.len == 0)
        goto out;
    rc = s->no_index_notes ? KIX_ENOTFOUND : kix__db_get_u64(s, txn, T_INDEX_NOTES, size, &stored);
    if (rc == KIX_ENOTFOUND) {
        kix_buf_release(&text);
        return seal_and_sign(l, s, txn, size, &root, 0, err);
    }
    if (rc == KIX_OK)
        rc = kix_note_open((const char *)stored.ptr, stored.len, &l->verifier, 1, &note, err);
    if (rc == KIX_OK &&
        (note.text.len != text.len || memcmp(note.text.ptr, text.ptr, text.len) != 0)) {
        rc = kix_err_set(err, KIX_ECORRUPT,
                         "the index derived again from the log at size %llu is not the one its "
                         "signed index note holds; run kixd check --store DIR",
                         (unsigned long long)size);
    }
out:
    kix_buf_release(&text);
    return rc;
}

/* Entries a transaction of derive_fn derives at most (to the next
 * checkpoint): LMDB keeps a write transaction's dirty pages in memory
 * (spilling past 512 MiB), so a rebuild of 10^6 entries in one would hold
 * gigabytes; parts bound it, each committed with the state it reached. */
#define DERIVE_PART 65536

static uint64_t derive_part(void)
{
    /* test hook (docs/REFERENCE.md): small parts, so that a test of a few
     * entries derives in several */
    const char *v = getenv("KIX_TEST_DERIVE_PART");
    long long n = v ? atoll(v) : 0;
    return n > 0 ? (uint64_t)n : DERIVE_PART;
}

/* Derives the index (layout 3) from the log: everything from scratch when
 * it was lost (the machine stopped with it unsynced, or it is missing or
 * unreadable), else what the log holds beyond it (the process died
 * between the two commits of a write). Sealed at every checkpoint on the
 * way, each seal checked against the index note kept beside it. */
static int derive_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct kix_log *l = arg;
    MDB_txn *itxn = kix__witxn(s);
    struct kix_log_txn t = {s, txn, itxn, 1, &l->scratch, NULL, 0};
    int indexer = l->indexed && l->indexer && !l->rebuild; /* a format change rebuilds after */
    uint64_t from = s->index_lost ? 0 : s->index_size, size, blobs, next, part_end = 0,
             part = derive_part();
    MDB_cursor *leaves = NULL, *cps = NULL;
    uint8_t kb[8], cb[8];
    MDB_val lk = {8, kb}, lv, ck = {8, cb}, cv;
    int rc, mrc, crc;

    kix_buf_reset(&l->scratch); /* a retried attempt starts afresh */
    rc = kix__log_extent(s, txn, &size, &blobs);
    if (rc)
        return kix_err_set(err, rc, "reading the log's size: %s", kix_strerror(rc));
    if (s->index_lost) {
        mrc = mdb_drop(itxn, kix__dbi(s, T_OBJECTS), 0);
        if (mrc == 0)
            mrc = mdb_drop(itxn, kix__dbi(s, T_SIGNERS), 0);
        if (mrc)
            return kix__db_error(mrc, err, "emptying the index");
        if (indexer && l->indexer->reset)
            rc = l->indexer->reset(&t, err);
    }
    if (rc == KIX_OK)
        rc = kix__split_blobs(s, txn, itxn, s->index_lost ? 0 : s->index_blobs, err);
    if (rc)
        return rc;
    rc = walk_open(s, txn, &leaves, &cps, err);
    if (rc)
        goto out;
    kix_u64be_put(kb, from);
    kix_u64be_put(cb, from + 1);
    crc = mdb_cursor_get(cps, &ck, &cv, MDB_SET_RANGE);
    mrc = leaf_get(s, leaves, &lk, &lv, MDB_SET_RANGE);
    for (next = from; rc == KIX_OK && next < size; next++) {
        struct kix_entry e;
        if (mrc || lk.mv_size != 8 || kix_u64be_get(lk.mv_data) != next) {
            rc = kix_err_set(err, KIX_ECORRUPT, "entry %llu is missing; run kixd check --store DIR",
                             (unsigned long long)next);
            break;
        }
        rc = derive_entry(s, itxn, next, &lv, &e, err);
        if (rc)
            break;
        if (indexer) {
            rc = index_entry(l, &t, next, &lv, &e, err);
            if (rc)
                kix_err_wrap(err, "deriving the index at entry %llu", (unsigned long long)next);
        }
        kix_entry_release(&e);
        /* the checkpoints this entry completes */
        while (rc == KIX_OK && crc == 0 && ck.mv_size == 8 &&
               kix_u64be_get(ck.mv_data) <= next + 1) {
            if (kix_u64be_get(ck.mv_data) == next + 1) {
                if (indexer)
                    rc = derive_seal(l, s, txn, next + 1, &cv, err);
                if (next + 1 - from >= part && next + 1 < size)
                    part_end = next + 1;
            }
            crc = mdb_cursor_get(cps, &ck, &cv, MDB_NEXT);
        }
        if (part_end)
            break;
        mrc = leaf_get(s, leaves, &lk, &lv, MDB_NEXT);
    }
    if (rc == KIX_OK && part_end)
        /* a part ends at a checkpoint, where readers may stand */
        rc = kix__split_state_set(s, itxn, part_end, blobs, err);
    else if (rc == KIX_OK)
        s->index_in_step = 1; /* kix__db_write puts the state: size and blobs */
out:
    walk_close(leaves, cps);
    return rc;
}

/* A store kept by an indexer holds its tables, but for the sealed ones
 * (kix/log_txn.h), which stores made before them lack. */
static int require_tables(struct kix_log *l, struct kix_err *err)
{
    const struct kix_store *s = l->store;

    for (size_t i = 0; i < s->ntables; i++)
        if (s->table_absent[i] && !(s->table_flags[i] & KIX_LOG_TABLE_SEALED))
            return kix_err_set(err, KIX_ECORRUPT,
                               "table %s is missing; this is not a kix store (run kixd init)",
                               l->indexer->tables[i].name);
    return KIX_OK;
}

static int index_current(struct kix_log *l, int *current, struct kix_err *err)
{
    char name[64];
    int rc = meta_get(l->store, META_INDEX, name, sizeof(name), NULL);

    *current = rc == KIX_OK && strcmp(name, l->indexer->name) == 0;
    if (rc == KIX_ENOTFOUND || rc == KIX_ECORRUPT)
        rc = KIX_OK;
    return rc ? kix_err_set(err, rc, "reading store metadata: %s", kix_strerror(rc)) : KIX_OK;
}

int kix_log_index_format(struct kix_log *l, char *out, size_t cap)
{
    int rc = meta_get(l->store, META_INDEX, out, cap, NULL);

    if (rc == KIX_ENOTFOUND && cap > 0)
        out[0] = '\0';
    return rc == KIX_ENOTFOUND ? KIX_OK : rc;
}

int kix_log_open(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                 struct kix_err *err)
{
    struct kix_log *l = NULL;
    struct kix_verifier v;
    char vkey[1024], keypath[4096];
    int rc;

    *out = NULL;
    rc = require_store(dir, err);
    if (rc == KIX_OK)
        rc = open_handle(dir, opts, &l, err);
    if (rc)
        return rc;
    rc = meta_get(l->store, META_VKEY, vkey, sizeof(vkey), err);
    if (rc == KIX_OK)
        rc = kix_verifier_parse(vkey, strlen(vkey), &v, err);
    if (rc)
        goto fail;
    set_verifier(l, &v);
    {
        char plain[8];
        rc = meta_get(l->store, META_PLAIN, plain, sizeof(plain), NULL);
        if (rc && rc != KIX_ENOTFOUND)
            goto fail;
        l->indexed = rc == KIX_ENOTFOUND;
        rc = l->indexed ? require_tables(l, err) : KIX_OK;
        if (rc)
            goto fail;
    }
    if (!(opts && opts->store.read_only) && l->store->layout < KIX__LAYOUT) {
        if (!(opts && opts->store.convert))
            rc = kix_err_set(err, KIX_ENOTSUP,
                             "%s was written by an older kix (store layout %d; this one writes "
                             "%d) and opening it to write would convert it in place: stop what "
                             "serves it, then run 'kixd migrate --store %s', which copies it "
                             "before converting it (kixd serve on it does the same)",
                             dir, l->store->layout, KIX__LAYOUT, dir);
        /* a conversion rewrites what another process reads or writes in
         * the old layout (log.dat made afresh, tables moved) */
        else if (!l->store->alone_at_open)
            rc = kix_err_set(err, KIX_EEXIST,
                             "%s is in layout %d, which opening it to write converts to layout "
                             "%d, but another process has it open (or its file system has no "
                             "flock): stop that process, then open the store again (or convert "
                             "it with kixd migrate)",
                             dir, l->store->layout, KIX__LAYOUT);
        if (rc)
            goto fail;
    }
    if (!(opts && opts->store.read_only) && l->store->layout < 2) {
        rc = kix__db_write(l->store, migrate_fn, NULL, err);
        if (rc)
            goto fail;
        l->store->layout = 2;
    }
    if (!(opts && opts->store.read_only) && l->store->layout < 3) {
        rc = kix__split_convert(l->store, err);
        if (rc)
            goto fail;
    }
    if (!(opts && opts->store.read_only) && l->store->layout < 4) {
        rc = kix__seg_convert(l->store, err);
        if (rc)
            goto fail;
    }
    if (!(opts && opts->store.read_only) && l->indexed && l->indexer && l->indexer->reset) {
        int current = 0;
        rc = index_current(l, &current, err);
        if (rc == KIX_OK && !current) {
            /* the signer is needed to sign the rebuilt notes: read below,
             * so rebuild after it is loaded */
            l->rebuild = 1;
        }
        if (rc)
            goto fail;
    }
    if (opts && opts->store.read_only && l->indexed && l->indexer && l->indexer->reset) {
        int current = 0;
        rc = index_current(l, &current, err);
        /* an index of another format cannot be rebuilt without writing: its
         * tree may be laid out otherwise (kix-index/2 kept one record per
         * node), so it is read as none, with no index notes, rather than
         * misread until a writable open rebuilds it */
        if (rc == KIX_OK && !current)
            l->store->no_index_notes = 1;
        if (rc)
            goto fail;
    }
    if (!l->replica && !(opts && opts->store.read_only)) {
        log_key_path(dir, opts, keypath, sizeof(keypath));
        rc = kix_keyfile_read(keypath, &l->signer, err);
        if (rc == KIX_ENOTFOUND)
            kix_err_cause(err, KIX_CAUSE_NO_LOG_KEY, 0, 0);
        if (rc == KIX_OK && memcmp(kix_signer_public_key(l->signer), v.pub, 32) != 0)
            rc = kix_err_set(err, KIX_ECORRUPT,
                             "%s does not match the log's verifier key; restore the right key",
                             keypath);
        if (rc)
            goto fail;
    }
    if (l->store->ienv && !l->store->read_only &&
        (l->store->index_lost || !l->store->index_in_step) && (!l->indexed || l->indexer)) {
        uint64_t before = (uint64_t)-1;
        /* in parts (DERIVE_PART), each one further */
        while (rc == KIX_OK && !l->store->index_in_step && l->store->index_size != before) {
            before = l->store->index_lost ? (uint64_t)-1 : l->store->index_size;
            rc = kix__db_write(l->store, derive_fn, l, err);
        }
        if (rc == KIX_OK && !l->store->index_in_step)
            rc = kix_err_set(err, KIX_ECORRUPT, "the index stopped at size %llu",
                             (unsigned long long)l->store->index_size);
        if (rc) {
            kix_err_wrap(err, "deriving the index of %s from its log", dir);
            goto fail;
        }
        l->store->index_lost = 0;
    }
    if (l->store->ienv && (!l->indexed || l->indexer)) {
        l->store->catch_up = derive_fn;
        l->store->catch_up_ctx = l;
    }
    if (l->rebuild) {
        rc = kix__db_write(l->store, rebuild_fn, l, err);
        if (rc)
            goto fail;
        l->rebuild = 0;
    }
    *out = l;
    return KIX_OK;
fail:
    kix_log_close(l);
    return rc;
}

int kix_log_close_checked(struct kix_log *l, struct kix_err *err)
{
    int rc;

    if (!l)
        return KIX_OK;
    kix_signer_free(l->signer);
    kix_buf_release(&l->scratch);
    rc = kix__store_close(l->store, err);
    pthread_mutex_destroy(&l->edge_mu);
    pthread_mutex_destroy(&l->keys_mu);
    free(l);
    return rc;
}

void kix_log_close(struct kix_log *l)
{
    struct kix_err ignored = {0};

    if (kix_log_close_checked(l, &ignored) != KIX_OK)
        return; /* closed all the same: the index stays as it was, whole */
}

const char *kix_log_origin(const struct kix_log *l)
{
    return l->origin;
}

const struct kix_verifier *kix_log_verifier(const struct kix_log *l)
{
    return &l->verifier;
}

struct kix_store *kix_log_store(struct kix_log *l)
{
    return l->store;
}

int kix_log_is_replica(const struct kix_log *l)
{
    return l->replica;
}

/* ---- commit ---------------------------------------------------------------- */

struct commit_ctx {
    struct kix_log *log;
    struct kix_prepared *const *items;
    size_t n;
    struct kix_append_result *results;
    /* replay: where the items must land, and the upstream's checkpoints */
    uint64_t first_index;
    const struct kix_replay_checkpoint *cps;
    size_t ncps;
    uint64_t size;
    struct kix_hash *hashes; /* scratch: leaf hashes of accepted items */
    size_t accepted;         /* commit: items appended (not duplicates or refused) */
    /* kix_log_replay_inspect: no index note compared; inspect, then abort */
    kix_log_inspect_fn inspect;
    void *inspect_ctx;
    int inspect_rc;
};

static void seal_part(crypto_generichash_state *st, const void *p, size_t n)
{
    uint8_t len[8];
    kix_u64be_put(len, (uint64_t)n);
    crypto_generichash_update(st, len, sizeof(len));
    if (n)
        crypto_generichash_update(st, p, n);
}

/* The keyed hash over c's notes and what opening them found. */
static void replay_checkpoint_seal(const struct kix_log *l, const struct kix_replay_checkpoint *c,
                                   uint8_t out[32])
{
    crypto_generichash_state st;
    uint8_t facts[2 + 8 + 32 + 8 + 8];
    uint64_t text_at = 0;

    if (c->index_opened)
        text_at = (uint64_t)(c->index_text - c->index_note);
    facts[0] = (uint8_t)(c->checkpoint_opened != 0);
    facts[1] = (uint8_t)(c->index_opened != 0);
    kix_u64be_put(facts + 2, c->signed_size);
    memcpy(facts + 10, c->signed_root, 32);
    kix_u64be_put(facts + 42, text_at);
    kix_u64be_put(facts + 50, (uint64_t)c->index_text_len);
    crypto_generichash_init(&st, l->opened_seal_key, sizeof(l->opened_seal_key), 32);
    seal_part(&st, c->note, c->note_len);
    seal_part(&st, c->index_note, c->index_note ? c->index_note_len : 0);
    seal_part(&st, facts, sizeof(facts));
    crypto_generichash_final(&st, out, 32);
}

static int replay_checkpoint_sealed(const struct kix_log *l, const struct kix_replay_checkpoint *c)
{
    uintptr_t note = (uintptr_t)c->index_note, text = (uintptr_t)c->index_text;
    uint8_t want[32];

    /* the text a view into the note it was opened from */
    if (c->index_opened &&
        (!c->index_note || text < note || c->index_text_len > c->index_note_len ||
         text - note > c->index_note_len - c->index_text_len))
        return 0;
    replay_checkpoint_seal(l, c, want);
    return crypto_verify_32(want, c->opened_seal) == 0;
}

void kix_log_replay_checkpoint_open(struct kix_log *l, struct kix_replay_checkpoint *c)
{
    struct kix_note note;
    struct kix_checkpoint cp;

    c->checkpoint_opened = 0;
    c->index_opened = 0;
    if (kix_checkpoint_open(c->note, c->note_len, &l->verifier, 1, l->origin, &note, &cp, NULL) ==
        KIX_OK) {
        c->signed_size = cp.size;
        memcpy(c->signed_root, cp.root, 32);
        c->checkpoint_opened = 1;
    }
    if (c->index_note &&
        kix_note_open(c->index_note, c->index_note_len, &l->verifier, 1, &note, NULL) == KIX_OK) {
        c->index_text = (const char *)note.text.ptr;
        c->index_text_len = note.text.len;
        c->index_opened = 1;
    }
    replay_checkpoint_seal(l, c, c->opened_seal);
}

static int replay_check_checkpoint(struct kix_log *l, const struct kix_replay_checkpoint *c,
                                   int sealed, const struct kix_hash *root, struct kix_err *err)
{
    struct kix_note note;
    struct kix_checkpoint cp;
    int rc = KIX_OK;

    if (c->checkpoint_opened && sealed) {
        cp.size = c->signed_size; /* opened ahead, on all cores */
        memcpy(cp.root, c->signed_root, 32);
    } else {
        rc = kix_checkpoint_open(c->note, c->note_len, &l->verifier, 1, l->origin, &note, &cp, err);
    }
    if (rc) {
        kix_err_wrap(err, "upstream checkpoint at size %llu", (unsigned long long)c->size);
        return rc;
    }
    if (cp.size != c->size)
        return kix_err_set(err, KIX_EVERIFY, "upstream checkpoint is for size %llu, not %llu",
                           (unsigned long long)cp.size, (unsigned long long)c->size);
    if (memcmp(cp.root, root->b, 32) != 0) {
        kix_err_set(err, KIX_EVERIFY,
                    "the entries up to size %llu do not hash to the upstream's signed root "
                    "(a fork or tampered entries)",
                    (unsigned long long)c->size);
        kix_err_cause(err, KIX_CAUSE_ROOT_MISMATCH, 0, c->size);
        return KIX_EVERIFY;
    }
    return KIX_OK;
}

/* Applies one item at index `next`: KIX_OK (accepted), a refusal code with
 * res filled, or a fatal code. *dup set when it repeats an entry. */
static int lookup_duplicate(struct kix_store *s, const struct kix_digest *subject,
                            const struct kix_hash *h, uint64_t *index);

static int apply_item(struct kix_store *s, MDB_txn *txn, struct kix_log *l, uint64_t next,
                      const struct kix_prepared *p, struct kix_append_result *res, int *dup,
                      struct kix_err *item_err)
{
    uint64_t dup_index = 0;
    struct kix__clock clk;
    int rc;

    kix__clock_start(&clk, &l->phases, KIX__CLOCK_ENTRY_TXN);
    memset(res, 0, sizeof(*res));
    res->leaf_hash = p->leaf_hash;
    *dup = 0;
    rc = kix__policy_signer(l, txn, next, p, item_err);
    if (rc)
        return rc;
    rc = lookup_duplicate(s, &p->entry.subject, &p->statement_hash, &dup_index);
    if (rc == KIX_OK && p->entry.type == KIX_ENTRY_KEY && !p->entry.key_revoke) {
        /* the same registration again: not "already logged" when the key
         * has since been revoked */
        struct kix_key_info key;
        char id[KIX_SHORT_ID_LEN + 1];
        if (kix__key_get(s, txn, p->entry.subject.b, &key) == KIX_OK &&
            key.revoked_index != KIX_NO_INDEX) {
            kix_hex_short_id(p->entry.subject.b, id);
            return kix_err_set(item_err, KIX_EPOLICY,
                               "key %s was registered at log index %llu and revoked at %llu; a "
                               "revoked key stays revoked: generate a new key",
                               id, (unsigned long long)dup_index,
                               (unsigned long long)key.revoked_index);
        }
        /* nor when its roles have changed since: the statement is logged
         * once, so the earlier roles cannot come back by repeating it */
        if (kix__key_get(s, txn, p->entry.subject.b, &key) == KIX_OK &&
            key.roles != p->entry.key_roles) {
            kix_hex_short_id(p->entry.subject.b, id);
            return kix_err_set(item_err, KIX_EPOLICY,
                               "key %s had these roles from log index %llu and its roles have "
                               "changed since; the log holds each registration once, so earlier "
                               "roles cannot be restored: generate a new key",
                               id, (unsigned long long)dup_index);
        }
    }
    if (rc == KIX_OK && p->entry.type == KIX_ENTRY_POLICY) {
        /* a policy logged before is in force again only by a new entry */
        struct kix_log_policy pol;
        if (kix__policy_get(s, txn, &pol) == KIX_OK && pol.index != dup_index)
            return kix_err_set(item_err, KIX_EPOLICY,
                               "this policy was logged at index %llu and another is in force "
                               "since %llu; sign it again (a new setAt)",
                               (unsigned long long)dup_index, (unsigned long long)pol.index);
    }
    if (rc == KIX_OK) {
        res->index = dup_index;
        res->duplicate = 1;
        *dup = 1;
        return KIX_OK;
    }
    if (rc != KIX_ENOTFOUND)
        return kix_err_set(item_err, rc, "reading the statement index: %s", kix_strerror(rc));
    kix__clock_mark(&clk, KIX_LOG_PHASE_POLICY);
    rc = kix__policy_apply(l, txn, next, p, &clk, item_err);
    if (rc == KIX_OK)
        res->index = next;
    return rc;
}

static int is_refusal(int rc)
{
    return rc == KIX_EPOLICY || rc == KIX_EVERIFY || rc == KIX_EINVAL;
}

static int commit_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct commit_ctx *c = arg;
    struct kix__tile_ctx tctx = {s, txn, 0, 0}; /* a write: no cached tiles */
    struct kix_tile_io io;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_hash root;
    uint64_t size, next;
    size_t accepted = 0;
    int rc = kix__log_size(s, txn, &size);

    kix_buf_reset(&c->log->scratch); /* a retried attempt starts afresh */
    c->accepted = 0;
    if (rc)
        return kix_err_set(err, rc, "reading the log size: %s", kix_strerror(rc));
    next = size;
    for (size_t i = 0; i < c->n; i++) {
        struct kix_append_result *res = &c->results[i];
        struct kix_err item_err = {0};
        int dup;

        rc = apply_item(s, txn, c->log, next, c->items[i], res, &dup, &item_err);
        if (is_refusal(rc)) {
            res->code = rc;
            res->index = KIX_NO_INDEX;
            snprintf(res->message, sizeof(res->message), "%s", item_err.msg);
            continue;
        }
        if (rc) {
            if (err)
                *err = item_err;
            return rc;
        }
        if (!dup) {
            c->hashes[accepted++] = c->items[i]->leaf_hash;
            next++;
        }
    }
    /* each accepted item took the next index, and no other did */
    KIX_ASSERT(accepted <= c->n && next == size + accepted);
    c->size = next;
    c->accepted = accepted;
    if (accepted == 0)
        return KIX_OK; /* nothing new: no new checkpoint */
    kix__tile_io_init(&io, &tctx);
    rc = kix_tiles_append(&io, size, c->hashes, accepted, &root, err);
    if (rc == KIX_OK)
        rc = sign_checkpoint(c->log, next, &root, &note, err);
    if (rc == KIX_OK)
        rc = put_checkpoint(s, txn, next, note.ptr, note.len, err);
    if (rc == KIX_OK)
        rc = seal_and_sign(c->log, s, txn, next, &root, MDB_APPEND, err);
    if (rc == KIX_OK)
        c->log->seal_stats.entries += accepted;
    kix_buf_release(&note);
    return rc;
}

/* Replay: every item must be accepted at its index, and the root at each
 * upstream checkpoint's size must be the one it signed. */
static int replay_body(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct commit_ctx *c = arg;
    struct kix__tile_ctx tctx = {s, txn, 0, 0}; /* a write: no cached tiles */
    struct kix_tile_io io;
    struct kix_hash root;
    uint64_t size, next;
    size_t i = 0;
    int rc = kix__log_size(s, txn, &size);

    kix_buf_reset(&c->log->scratch); /* a retried attempt starts afresh */
    if (rc)
        return kix_err_set(err, rc, "reading the log size: %s", kix_strerror(rc));
    if (c->first_index != size)
        return kix_err_set(err, KIX_EINVAL, "replay starts at index %llu but the log has %llu",
                           (unsigned long long)c->first_index, (unsigned long long)size);
    kix__tile_io_init(&io, &tctx);
    next = size;
    for (size_t k = 0; k < c->ncps; k++) {
        size_t pending = 0;
        int sealed;
        if (c->cps[k].size <= next || c->cps[k].size - c->first_index > c->n)
            return kix_err_set(err, KIX_EINVAL,
                               "replay checkpoints must grow and end at the last item");
        while (next < c->cps[k].size) {
            struct kix_append_result res;
            KIX_ASSERT(i < c->n && next - c->first_index == i); /* bounded by the check above */
            struct kix_err item_err = {0};
            int dup;
            rc = apply_item(s, txn, c->log, next, c->items[i], &res, &dup, &item_err);
            if (rc == KIX_OK && dup)
                rc = kix_err_set(&item_err, KIX_EVERIFY, "it repeats entry %llu",
                                 (unsigned long long)res.index);
            if (rc) {
                kix_err_set(err, rc, "entry %llu: %s", (unsigned long long)next, item_err.msg);
                kix_err_cause(err, KIX_CAUSE_ENTRY, next, 0);
                return rc;
            }
            c->hashes[pending++] = c->items[i++]->leaf_hash;
            next++;
        }
        rc = kix_tiles_append(&io, next - pending, c->hashes, pending, &root, err);
        /* what was opened ahead is taken under its seal, checked once here
         * for both notes */
        sealed = (c->cps[k].checkpoint_opened || c->cps[k].index_opened) &&
                 replay_checkpoint_sealed(c->log, &c->cps[k]);
        if (rc == KIX_OK)
            rc = replay_check_checkpoint(c->log, &c->cps[k], sealed, &root, err);
        if (rc == KIX_OK)
            rc = put_checkpoint(s, txn, next, c->cps[k].note, c->cps[k].note_len, err);
        /* every checkpoint's index note is sealed and compared; the tree's
         * tiles are written once, at the last */
        c->log->seal_keep.more = k + 1 < c->ncps;
        if (rc == KIX_OK && !c->inspect)
            rc = seal_and_check(c->log, s, txn, &c->cps[k], sealed, &root, &c->log->seal_keep, err);
        if (rc == KIX_OK && c->inspect) {
            struct kix_buf text = KIX_BUF_INIT;
            rc = seal_text_kept(c->log, s, txn, next, &root, &text, &c->log->seal_keep, err);
            kix_buf_release(&text);
        }
        if (rc)
            return rc;
    }
    KIX_ASSERT(next == c->first_index + i);
    if (i != c->n)
        return kix_err_set(err, KIX_EINVAL, "%zu replayed entries lie beyond the last checkpoint",
                           c->n - i);
    c->size = next;
    if (c->inspect) {
        struct kix_log_txn t = {s, txn, kix__witxn(s), 0, NULL, NULL, 0};
        c->inspect_rc = c->inspect(c->inspect_ctx, &t, err);
        return KIX__EINSPECTED; /* never commit what was only replayed to be looked at */
    }
    return KIX_OK;
}

static int replay_fn(struct kix_store *s, MDB_txn *txn, void *arg, struct kix_err *err)
{
    struct commit_ctx *c = arg;
    int rc;

    seal_keep_drop(c->log); /* a retried attempt starts afresh */
    rc = replay_body(s, txn, arg, err);
    seal_keep_drop(c->log); /* written by the last seal, or aborted */
    return rc;
}

static int lookup_duplicate(struct kix_store *s, const struct kix_digest *subject,
                            const struct kix_hash *h, uint64_t *index)
{
    uint8_t k[KIX__STATEMENT_KEY_LEN];
    MDB_val key = {sizeof(k), k}, val;
    int rc;

    kix__statement_key(k, subject->b, h->b);
    rc = mdb_get(kix__witxn(s), kix__dbi(s, T_OBJECTS), &key, &val);
    if (rc == MDB_NOTFOUND)
        return KIX_ENOTFOUND;
    if (rc || val.mv_size != KIX__STATEMENT_VAL_LEN)
        return rc ? kix__db_error(rc, NULL, "reading the statement index") : KIX_ECORRUPT;
    *index = kix_u64be_get(val.mv_data);
    return KIX_OK;
}

static int run_commit(struct commit_ctx *c, kix__write_fn fn, struct kix_err *err)
{
    int rc;
    if (c->log->indexed && !c->log->indexer)
        return kix_err_set(err, KIX_EINVAL,
                           "this log keeps an index: open it with its indexer (kix_index_open) "
                           "so that the index follows every append");
    c->hashes = malloc((c->n ? c->n : 1) * sizeof(*c->hashes));
    if (!c->hashes)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix__db_write(c->log->store, fn, c, err);
    free(c->hashes);
    return rc;
}

int kix_log_commit(struct kix_log *l, struct kix_prepared *const *items, size_t n,
                   struct kix_append_result *results, uint64_t *new_size, struct kix_err *err)
{
    struct commit_ctx c;
    int rc;

    if (l->replica || !l->signer)
        return kix_err_set(err, KIX_EREADONLY,
                           "this store is a replica of %s; submit to the origin", l->origin);
    uint64_t t0 = kix__phases_write_begin(&l->phases);

    memset(&c, 0, sizeof(c));
    c.log = l;
    c.items = items;
    c.n = n;
    c.results = results;
    rc = run_commit(&c, commit_fn, err);
    if (rc == KIX_OK && new_size)
        *new_size = c.size;
    kix__phases_write_end(&l->phases, t0, rc == KIX_OK, c.accepted);
    return rc;
}

int kix_log_replay_inspect(struct kix_log *l, uint64_t first_index,
                           struct kix_prepared *const *items, size_t n,
                           const struct kix_replay_checkpoint *cps, size_t ncps,
                           kix_log_inspect_fn inspect, void *ctx, struct kix_err *err)
{
    struct commit_ctx c;
    int rc;

    if (ncps == 0 || cps[ncps - 1].size != first_index + n)
        return kix_err_set(err, KIX_EINVAL,
                           "a replay must end at an upstream checkpoint (size %llu)",
                           (unsigned long long)(first_index + n));
    memset(&c, 0, sizeof(c));
    c.log = l;
    c.items = items;
    c.n = n;
    c.first_index = first_index;
    c.cps = cps;
    c.ncps = ncps;
    c.inspect = inspect;
    c.inspect_ctx = ctx;
    rc = run_commit(&c, replay_fn, err);
    return rc == KIX__EINSPECTED ? c.inspect_rc : rc;
}

int kix_log_replay(struct kix_log *l, uint64_t first_index, struct kix_prepared *const *items,
                   size_t n, const struct kix_replay_checkpoint *cps, size_t ncps,
                   struct kix_err *err)
{
    /* the same replay with no inspection: it commits */
    return kix_log_replay_inspect(l, first_index, items, n, cps, ncps, NULL, NULL, err);
}
