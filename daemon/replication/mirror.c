/* Mirror mode: one thread replays the upstream into the replica store
 * (kix_sync), checks that the upstream never contradicts what was verified,
 * follows it, cosigns what it verified (witness), and reports its state to
 * the info method. See mirror.h. */
#include "mirror.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kix/clock.h"
#include "kix/messages.h"
#include "kix/rpc.h"
#include "kix/source.h"
#include "kix/sync.h"
#include "kix/file.h"
#include "kix/trust.h"
#include "diag.h"
#include "mirror.h"
#include "tlog_witness.h"
#include "witness.h"

#define TICK_MS        2000  /* a round at least this often, notification or not */
#define BACKOFF_MIN_MS 100   /* first retry after a failure */
#define BACKOFF_MAX_MS 5000  /* retries never wait longer */
#define UPSTREAM_MS    10000 /* per request to the upstream */
#define FORK_FOUND     1     /* a round's result: stopped following */
#define MIRROR_ID_LEN  32    /* hex digits of DIR/mirror.id */

struct kixd_mirror {
    struct kixd_server *srv;
    const struct kixd_config *cfg;
    struct kix_verifier upstream_key;
    char upstream_key_text[1024];
    struct kix_signer *witness; /* --witness-key, or NULL */
    struct kix_verifier witness_v;
    pthread_t thread;
    int started;
    int stop_pipe[2];
    atomic_int stop;
    /* mirror thread only */
    struct kix_client *up;              /* requests and kix_sync */
    struct kix_rpc *follow;             /* the follow stream (wake-ups) */
    uint64_t cosigned;                  /* the size last cosigned */
    uint64_t cosign_failed;             /* the size last failed to cosign (logged once) */
    char cosign_error[KIX_ERR_MSG_MAX]; /* the upstream's last refusal (mu) */
    uint64_t cosign_refused;            /* of the cosignature of this size */
    char id[MIRROR_ID_LEN + 1];         /* DIR/mirror.id: this mirror, to an origin */
    uint64_t reported;                  /* the size last reported on this follow stream */

    pthread_mutex_t mu; /* guards the state below */
    uint64_t upstream_size;
    int64_t last_ok_ms; /* monotonic time it last knew it was in sync */
    char last_error[KIX_ERR_MSG_MAX];
    int forked;
    uint64_t fork_size;
    char fork_reason[KIX_ERR_MSG_MAX];
    char fork_dir[4200];
};

/* The upstream sent something that does not verify (not a transport error). */
static int refused(int rc)
{
    return rc == KIX_EVERIFY || rc == KIX_EPOLICY || rc == KIX_EINVAL || rc == KIX_ELIMIT;
}

/* ---- the replica store ------------------------------------------------------ */

static int read_upstream_key(const struct kixd_config *cfg, struct kix_verifier *key,
                             struct kix_err *err)
{
    int rc = kixd_read_verifier(cfg->upstream_key, key, err);
    if (rc) {
        kix_err_wrap(err, "--upstream-key");
        if (err)
            err->code = KIX_EUSAGE;
        return KIX_EUSAGE;
    }
    if (key->alg != KIX_NOTE_ALG_ED25519)
        return kix_err_set(err, KIX_EUSAGE, "--upstream-key %s is a witness key, not a log's key",
                           key->name);
    return KIX_OK;
}

static int same_key(const struct kix_verifier *a, const struct kix_verifier *b)
{
    return a->alg == b->alg && a->key_hash == b->key_hash && strcmp(a->name, b->name) == 0 &&
           memcmp(a->pub, b->pub, 32) == 0;
}

/* DIR/mirror.id: made once (16 random bytes in hex), read after. Its
 * presence also marks DIR as a mirror's store: kixd serve refuses it as an
 * origin until kixd promote (cmd_promote.c) made it one. */
static int mirror_id(const char *store, char id[MIRROR_ID_LEN + 1], struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    unsigned char raw[MIRROR_ID_LEN / 2];
    char path[4200];
    int rc;

    snprintf(path, sizeof(path), "%s/" KIXD_MIRROR_ID_FILE, store);
    rc = kix_file_read(path, 256, &text, NULL);
    if (rc == KIX_OK && text.len >= MIRROR_ID_LEN) {
        snprintf(id, MIRROR_ID_LEN + 1, "%.*s", MIRROR_ID_LEN, (const char *)text.ptr);
        goto out;
    }
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        rc = kix_err_set(err, KIX_EIO, "cannot draw a mirror id: %s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(id + 2 * i, 3, "%02x", raw[i]);
    kix_buf_reset(&text);
    rc = kix_buf_addf(&text, "%s\n", id);
    if (rc == KIX_OK)
        rc = kix_file_write_atomic(path, text.ptr, text.len, 0644, err);
out:
    kix_buf_release(&text);
    return rc;
}

int kixd_mirror_prepare(const struct kixd_config *cfg, struct kix_err *err)
{
    char id[MIRROR_ID_LEN + 1];
    struct kix_verifier key;
    struct kix_log_opts opts;
    struct kix_log *l = NULL;
    char path[4200];
    struct stat st;
    int rc = read_upstream_key(cfg, &key, err);

    if (rc)
        return rc;
    memset(&opts, 0, sizeof(opts));
    opts.replica = 1;
    snprintf(path, sizeof(path), "%s/" KIXD_PROMOTED_FILE, cfg->store);
    if (stat(path, &st) == 0)
        return kix_err_set(err, KIX_EUSAGE,
                           "%s was promoted to the origin of its log (%s): it follows no other "
                           "server any more. Serve it as the origin (--log-key-file, no "
                           "--mirror-of), or give the mirror a directory of its own",
                           cfg->store, path);
    snprintf(path, sizeof(path), "%s/log.key", cfg->store);
    if (stat(path, &st) == 0)
        return kix_err_set(err, KIX_EUSAGE,
                           "%s holds a log of its own (it has log.key); a mirror needs a "
                           "directory of its own. To serve this store (a backup, say) as a "
                           "mirror, move %s out of it first (keep it safe: it signs the log), "
                           "then serve it with --mirror-of",
                           cfg->store, path);
    snprintf(path, sizeof(path), "%s/data.mdb", cfg->store);
    if (stat(path, &st) != 0) {
        rc = kix_index_create_replica(cfg->store, &key, &opts, err);
        if (rc) {
            kix_err_wrap(err, "creating the replica store %s", cfg->store);
            return rc;
        }
        kixd_log(KIXD_INFO, "created %s as an empty replica of %s", cfg->store, key.name);
        return mirror_id(cfg->store, id, err);
    }
    rc = kix_index_open(cfg->store, &opts, &l, err);
    if (rc)
        return rc;
    if (!same_key(kix_log_verifier(l), &key))
        rc = kix_err_set(err, KIX_EUSAGE,
                         "%s is a replica of the log %s with another key than --upstream-key "
                         "(%s); give it a directory of its own",
                         cfg->store, kix_log_verifier(l)->name, key.name);
    kix_log_close(l);
    return rc ? rc : mirror_id(cfg->store, id, err);
}

static uint64_t local_size(struct kixd_mirror *m)
{
    struct kix_log_reader *r = NULL;
    uint64_t size = 0;
    if (kix_log_read_begin(m->srv->log, &r) == KIX_OK) {
        size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    return size;
}

struct finding_log {
    const char *upstream;
    uint64_t to; /* log only those below (a later round reports the rest) */
};

static int log_finding(void *ctx, const struct kix_finding *f)
{
    const struct finding_log *l = ctx;

    if (f->index >= l->to)
        return 1;
    kixd_log(KIXD_WARN,
             "mirror of %s: finding: entry %llu (%s) breaks today's origin rules: %s (replicated "
             "as logged, never counted as evidence; kixd check --strict fails on it)",
             l->upstream, (unsigned long long)f->index, f->name, f->text);
    return 0;
}

/* The findings (kix/index.h) among the entries [from, to) the mirror
 * took: entries its upstream logged that today's origin rules refuse. */
static void report_findings(struct kixd_mirror *m, uint64_t from, uint64_t to)
{
    struct finding_log l = {m->cfg->mirror_of, to};
    struct kix_log_reader *r = NULL;

    if (kix_log_read_begin(m->srv->log, &r) != KIX_OK)
        return;
    if (kix_index_findings(r, from, log_finding, &l, NULL) != KIX_OK)
        kixd_log(KIXD_WARN, "mirror of %s: cannot read the findings of entries %llu to %llu",
                 m->cfg->mirror_of, (unsigned long long)from, (unsigned long long)to);
    kix_log_read_end(r);
}

/* Our signed checkpoint at `size` (KIX_NO_INDEX: the latest), appended. */
static int local_checkpoint(struct kixd_mirror *m, uint64_t size, struct kix_buf *note,
                            uint64_t *got, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    struct kix_bytes v;
    int rc = kix_log_read_begin(m->srv->log, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    if (size == KIX_NO_INDEX)
        size = kix_log_reader_size(r);
    rc = kix_log_reader_checkpoint(r, size, &v);
    if (rc)
        goto out;
    rc = kix_buf_add(note, v.ptr, v.len);
out:
    kix_log_read_end(r);
    if (got)
        *got = size;
    return rc ? kix_err_set(err, rc, "reading the replica's checkpoint at size %llu: %s",
                            (unsigned long long)size, kix_strerror(rc))
              : KIX_OK;
}

/* ---- state -------------------------------------------------------------------- */

void kixd_mirror_status(struct kixd_mirror *m, struct kixd_mirror_status *out)
{
    int64_t now = (int64_t)kix_clock_ms();

    memset(out, 0, sizeof(*out));
    snprintf(out->upstream, sizeof(out->upstream), "%s", m->cfg->mirror_of);
    pthread_mutex_lock(&m->mu);
    out->upstream_size = m->upstream_size;
    out->lag_seconds = now > m->last_ok_ms ? (uint64_t)(now - m->last_ok_ms) / 1000 : 0;
    snprintf(out->last_error, sizeof(out->last_error), "%s", m->last_error);
    /* a refused cosignature is an error of this mirror too (the sync's own
     * error, when there is one, comes first) */
    if (!out->last_error[0] && m->cosign_error[0])
        snprintf(out->last_error, sizeof(out->last_error),
                 "the upstream refused this witness's cosignature of size %llu: %.*s",
                 (unsigned long long)m->cosign_refused, (int)sizeof(out->last_error) - 96,
                 m->cosign_error);
    out->fork = m->forked;
    out->fork_size = m->fork_size;
    snprintf(out->fork_reason, sizeof(out->fork_reason), "%s", m->fork_reason);
    snprintf(out->fork_evidence, sizeof(out->fork_evidence), "%.*s",
             (int)sizeof(out->fork_evidence) - 1, m->fork_dir);
    pthread_mutex_unlock(&m->mu);
}

static void set_upstream_size(struct kixd_mirror *m, uint64_t size)
{
    pthread_mutex_lock(&m->mu);
    m->upstream_size = size;
    pthread_mutex_unlock(&m->mu);
}

/* A round failed: remember why; log when the reason changes. */
static void note_error(struct kixd_mirror *m, int rc, const struct kix_err *err, unsigned retry_ms)
{
    const char *text = kix_err_text(err, rc);
    int changed;

    pthread_mutex_lock(&m->mu);
    changed = strcmp(m->last_error, text) != 0;
    if (changed)
        snprintf(m->last_error, sizeof(m->last_error), "%s", text);
    pthread_mutex_unlock(&m->mu);
    kixd_log(!changed      ? KIXD_DEBUG
             : refused(rc) ? KIXD_ERROR
                           : KIXD_WARN,
             "mirror of %s: %s (%s); serving what was verified, retrying in %u ms",
             m->cfg->mirror_of, text, kix_err_name(rc), retry_ms);
}

static void note_ok(struct kixd_mirror *m)
{
    int had_error;

    pthread_mutex_lock(&m->mu);
    had_error = m->last_error[0] != 0;
    m->last_error[0] = '\0';
    m->last_ok_ms = (int64_t)kix_clock_ms();
    pthread_mutex_unlock(&m->mu);
    if (had_error)
        kixd_log(KIXD_INFO, "mirror of %s: in sync again at size %llu", m->cfg->mirror_of,
                 (unsigned long long)local_size(m));
}

/* ---- forks --------------------------------------------------------------------- */

static void fork_path(const struct kixd_mirror *m, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/fork%s%s", m->cfg->store, name ? "/" : "", name ? name : "");
}

/* Keeps both signed checkpoints and the reason in DIR/fork/, stops following. */
static int found_fork(struct kixd_mirror *m, uint64_t size, const struct kix_buf *ours,
                      const struct kix_buf *theirs, const char *reason)
{
    struct kix_err ferr = {0};
    struct kix_buf text = KIX_BUF_INIT;
    char dir[4200], path[4300];
    int rc = KIX_OK;

    fork_path(m, NULL, dir, sizeof(dir));
    /* kix_dir_make syncs the new directory's name: the evidence must
     * survive a power cut (crash.states_fork) */
    rc = kix_dir_make(dir, 0700, &ferr);
    if (rc)
        goto out;
    fork_path(m, "local.checkpoint", path, sizeof(path));
    rc = kix_file_write_atomic(path, ours->ptr, ours->len, 0644, &ferr);
    if (rc)
        goto out;
    fork_path(m, "upstream.checkpoint", path, sizeof(path));
    rc = kix_file_write_atomic(path, theirs->ptr, theirs->len, 0644, &ferr);
    if (rc)
        goto out;
    /* out of memory for the reason: the log line below still says it */
    if (kix_buf_addf(&text, "%llu\n%s\n", (unsigned long long)size, reason) == KIX_OK) {
        fork_path(m, "reason", path, sizeof(path));
        rc = kix_file_write_atomic(path, text.ptr, text.len, 0644, &ferr);
    }
out:
    kix_buf_release(&text);
    pthread_mutex_lock(&m->mu);
    m->forked = 1;
    m->fork_size = size;
    snprintf(m->fork_reason, sizeof(m->fork_reason), "%s", reason);
    snprintf(m->last_error, sizeof(m->last_error), "%s", reason);
    snprintf(m->fork_dir, sizeof(m->fork_dir), "%s", dir);
    pthread_mutex_unlock(&m->mu);
    if (m->srv->tlogw)
        kixd_tlogw_refuse(m->srv->tlogw, m->upstream_key.name, size, reason);
    kixd_log(KIXD_ERROR,
             "FORK: %s. The mirror stopped following %s and keeps serving what it verified; "
             "both signed checkpoints are in %s/ (%s). Report them to the log's operators; "
             "remove %s to follow again",
             reason, m->cfg->mirror_of, dir,
             rc ? ferr.msg : "local.checkpoint, upstream.checkpoint", dir);
    if (m->cfg->fail_on_fork)
        kixd_server_stop(m->srv, kix_err_exit_status(KIX_EFORK),
                         "the upstream forked (--fail-on-fork)");
    return FORK_FOUND;
}

/* Evidence of an earlier fork, kept across restarts. */
static int load_fork(struct kixd_mirror *m)
{
    char path[4300], line[KIX_ERR_MSG_MAX + 64];
    FILE *f;
    unsigned long long size = 0;

    fork_path(m, "reason", path, sizeof(path));
    f = fopen(path, "r");
    if (!f)
        return 0;
    if (fgets(line, sizeof(line), f))
        size = strtoull(line, NULL, 10);
    if (!fgets(line, sizeof(line), f))
        snprintf(line, sizeof(line), "(reason unreadable)");
    line[strcspn(line, "\n")] = '\0';
    fclose(f);
    m->forked = 1;
    m->fork_size = size;
    snprintf(m->fork_reason, sizeof(m->fork_reason), "%.*s", (int)sizeof(m->fork_reason) - 1, line);
    fork_path(m, NULL, m->fork_dir, sizeof(m->fork_dir));
    if (m->srv->tlogw)
        kixd_tlogw_refuse(m->srv->tlogw, m->upstream_key.name, size, m->fork_reason);
    return 1;
}

/* Fetches and verifies the upstream's checkpoint at `size` (KIX_NO_INDEX:
 * the latest); *cp gets it parsed. */
struct one_checkpoint {
    uint64_t size;
    struct kix_buf *note;
    int found;
};

static int take_checkpoint(void *ctx, uint64_t size, const uint8_t *note, size_t len,
                           const uint8_t *index_note, size_t index_len)
{
    struct one_checkpoint *one = ctx;

    (void)index_note;
    (void)index_len;
    if (size != one->size)
        return KIX_OK;
    one->found = 1;
    return kix_buf_add(one->note, note, len);
}

static int upstream_checkpoint(struct kixd_mirror *m, uint64_t size, struct kix_buf *note,
                               struct kix_checkpoint *cp, struct kix_err *err)
{
    struct kix_note *opened = malloc(sizeof(*opened));
    int rc;

    if (!opened)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_client_checkpoint(m->up, size, note, err);
    if (rc == KIX_EUNAVAIL && size != KIX_NO_INDEX && size > 0) {
        /* an origin with --ack-replicas shows readers only what its mirrors
         * hold; this mirror may hold more: the replication listing has it */
        struct one_checkpoint one = {size, note, 0};
        rc = kix_client_checkpoints(m->up, size - 1, 1, take_checkpoint, &one, err);
        if (rc == KIX_OK && !one.found)
            rc = kix_err_set(err, KIX_ENOTFOUND, "the upstream has no checkpoint at size %llu",
                             (unsigned long long)size);
    }
    if (rc)
        goto out;
    rc = kix_checkpoint_open((const char *)note->ptr, note->len, &m->upstream_key, 1,
                             m->upstream_key.name, opened, cp, err);
    if (rc && size == KIX_NO_INDEX)
        kix_err_wrap(err, "the upstream's latest checkpoint");
    else if (rc)
        kix_err_wrap(err, "the upstream's checkpoint at size %llu", (unsigned long long)size);
    else if (size != KIX_NO_INDEX && cp->size != size)
        rc = kix_err_set(err, KIX_EVERIFY, "asked the upstream for size %llu, got %llu",
                         (unsigned long long)size, (unsigned long long)cp->size);
out:
    free(opened);
    return rc;
}

static int parse_cp(const struct kix_buf *note, struct kix_checkpoint *cp)
{
    struct kix_note *opened = malloc(sizeof(*opened));
    int rc = opened ? kix_checkpoint_open((const char *)note->ptr, note->len, NULL, 0, NULL, opened,
                                          cp, NULL)
                    : KIX_ENOMEM;
    /* our own notes were verified when stored: only the text is read */
    if (rc == KIX_EVERIFY && opened)
        rc = kix_checkpoint_parse((const char *)opened->text.ptr, opened->text.len, cp, NULL);
    free(opened);
    return rc;
}

/* Does the upstream still agree with the `size` entries we verified? */
static int check_consistent(struct kixd_mirror *m, uint64_t size, uint64_t upstream,
                            struct kix_err *err)
{
    struct kix_buf ours = KIX_BUF_INIT, theirs = KIX_BUF_INIT;
    struct kix_checkpoint mine, cp;
    char reason[KIX_ERR_MSG_MAX];
    int rc;

    if (size == 0)
        return KIX_OK;
    rc = local_checkpoint(m, size, &ours, NULL, err);
    if (rc)
        goto out;
    if (parse_cp(&ours, &mine) != KIX_OK) {
        rc = kix_err_set(err, KIX_ECORRUPT, "the replica's checkpoint at size %llu is unreadable",
                         (unsigned long long)size);
        goto out;
    }
    if (upstream < size) {
        rc = upstream_checkpoint(m, KIX_NO_INDEX, &theirs, &cp, err);
        if (rc)
            goto out;
        if (cp.size < size) {
            snprintf(reason, sizeof(reason),
                     "the upstream went back from size %llu, which this mirror verified, to "
                     "size %llu (a rollback)",
                     (unsigned long long)size, (unsigned long long)cp.size);
            rc = found_fork(m, size, &ours, &theirs, reason);
        }
        goto out; /* else it grew meanwhile: the next round looks again */
    }
    rc = upstream_checkpoint(m, size, &theirs, &cp, err);
    if (rc == KIX_OK) {
        if (memcmp(cp.root, mine.root, 32) != 0) {
            snprintf(reason, sizeof(reason),
                     "the upstream signed a different root for size %llu than the one this mirror "
                     "verified (a fork)",
                     (unsigned long long)size);
            rc = found_fork(m, size, &ours, &theirs, reason);
        }
        goto out;
    }
    if (rc != KIX_ENOTFOUND)
        goto out;
    /* no checkpoint at our size up there: prove consistency with its latest */
    kix_buf_reset(&theirs);
    kix_err_clear(err);
    rc = upstream_checkpoint(m, KIX_NO_INDEX, &theirs, &cp, err);
    if (rc)
        goto out;
    if (cp.size > size) {
        struct kix_hash proof[KIX_MERKLE_MAX_PROOF], r1, r2;
        struct kix_err perr = {0};
        size_t n = 0;
        memcpy(r1.b, mine.root, 32);
        memcpy(r2.b, cp.root, 32);
        rc = kix_client_consistency(m->up, size, cp.size, proof, &n, &perr);
        if (rc == KIX_OK)
            rc = kix_merkle_verify_consistency(size, cp.size, &r1, &r2, proof, n, &perr);
        if (rc == KIX_EVERIFY || rc == KIX_EINVAL) {
            snprintf(reason, sizeof(reason),
                     "the upstream cannot prove its size %llu extends the size %llu this mirror "
                     "verified (%.200s): a fork",
                     (unsigned long long)cp.size, (unsigned long long)size, perr.msg);
            rc = found_fork(m, size, &ours, &theirs, reason);
        } else if (rc && err) {
            *err = perr;
        }
    }
out:
    kix_buf_release(&ours);
    kix_buf_release(&theirs);
    return rc;
}

/* ---- syncing --------------------------------------------------------------------- */

static void on_batch(void *ctx, uint64_t size, uint64_t target)
{
    struct kixd_mirror *m = ctx;
    kixd_log(KIXD_DEBUG, "mirror of %s: verified and stored up to %llu of %llu", m->cfg->mirror_of,
             (unsigned long long)size, (unsigned long long)target);
    kixd_server_grew(m->srv); /* wake this server's own followers */
}

static int on_cancel(void *ctx)
{
    struct kixd_mirror *m = ctx;
    return atomic_load(&m->stop);
}

/* kix_sync failed on a root that does not match the signed one. */
static int root_mismatch(struct kixd_mirror *m, const struct kix_err *serr)
{
    struct kix_buf ours = KIX_BUF_INIT, theirs = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    char reason[KIX_ERR_MSG_MAX];
    unsigned long long size;
    uint64_t mine = 0;
    int rc;

    if (serr->cause != KIX_CAUSE_ROOT_MISMATCH && serr->cause != KIX_CAUSE_INDEX_MISMATCH)
        return 0;
    size = serr->size;
    rc = local_checkpoint(m, KIX_NO_INDEX, &ours, &mine, &err);
    /* a lying index can show at the first sync, before any checkpoint here */
    if (rc && !(serr->cause == KIX_CAUSE_INDEX_MISMATCH && mine == 0))
        goto out;
    rc = upstream_checkpoint(m, size, &theirs, &cp, &err);
    if (rc)
        goto out;
    if (serr->cause == KIX_CAUSE_INDEX_MISMATCH)
        snprintf(reason, sizeof(reason), "%s", serr->msg);
    else
        snprintf(reason, sizeof(reason),
                 "the upstream's entries up to size %llu do not hash to the root it signed for "
                 "that size (a fork, or entries rewritten after signing)",
                 size);
    found_fork(m, size, &ours, &theirs, reason);
out:
    kix_buf_release(&ours);
    kix_buf_release(&theirs);
    return rc == KIX_OK;
}

/* The upstream sent a bad entry `bad` in a batch: keep the verified part
 * before it (up to the last upstream checkpoint at or below it). */
static void salvage(struct kixd_mirror *m, uint64_t bad)
{
    struct kix_sync_opts opts;
    struct kix_err err = {0};
    uint64_t before = local_size(m), synced = 0;
    int rc;

    if (bad <= before)
        return;
    memset(&opts, 0, sizeof(opts));
    opts.max_batch = m->cfg->mirror_batch;
    opts.progress = on_batch;
    opts.progress_ctx = m;
    opts.cancel = on_cancel;
    /* it stops with an error after the last checkpoint below `bad` */
    rc = kix_sync(m->up, m->srv->log, bad, &opts, &synced, &err);
    if (rc == KIX_OK || synced > before)
        kixd_log(KIXD_INFO, "mirror of %s: kept the %llu entries verified before entry %llu",
                 m->cfg->mirror_of, (unsigned long long)(synced - before), (unsigned long long)bad);
}

/* Cosigns `note`, a checkpoint this mirror verified, into `line` and keeps
 * the cosignature in the replica: through the witness state when this kixd
 * is a C2SP witness too (one state with the HTTP add-checkpoint,
 * tlog_witness.h), where KIX_EEXIST says the state is past it. */
static int cosign_and_keep(struct kixd_mirror *m, const struct kix_buf *note,
                           struct kix_note *opened, struct kix_buf *line, struct kix_err *err)
{
    struct kix_log_reader *r;
    int rc;

    if (m->srv->tlogw) {
        rc = kix_log_read_begin(m->srv->log, &r);
        if (rc)
            return rc;
        rc = kixd_tlogw_cosign_verified(m->srv->tlogw, r, (const char *)note->ptr, note->len, line,
                                        err);
        kix_log_read_end(r);
    } else {
        rc = kix_note_open((const char *)note->ptr, note->len, &m->upstream_key, 1, opened, err);
        if (rc)
            return rc;
        rc = kix_cosign(m->witness, (const char *)opened->text.ptr, opened->text.len,
                        (uint64_t)time(NULL), line, err);
    }
    if (rc)
        return rc;
    return kix_log_add_cosignature(m->srv->log, (const char *)note->ptr, note->len,
                                   (const char *)line->ptr, line->len, &m->witness_v, 1, NULL, NULL,
                                   err);
}

/* Cosigns the replica's index note at `size`, which the replay required to
 * be byte for byte the one it derived (PROTOCOL.md §4.3): keeps the
 * cosignature and sends it up, so that readers who require this witness
 * hold the upstream to this index root. Nothing when the log keeps no index. */
static void cosign_index(struct kixd_mirror *m, uint64_t size)
{
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT;
    struct kix_note *opened = malloc(sizeof(*opened));
    struct kix_log_reader *r = NULL;
    struct kix_bytes v;
    struct kix_err err = {0};
    int rc = opened ? kix_log_read_begin(m->srv->log, &r) : KIX_ENOMEM;

    if (rc)
        goto out;
    rc = kix_log_reader_index_note(r, size, &v);
    if (rc == KIX_OK)
        rc = kix_buf_add(&note, v.ptr, v.len);
    kix_log_read_end(r);
    if (rc == KIX_ENOTFOUND) {
        rc = KIX_OK; /* a plain log: no index to cosign */
        goto out;
    }
    if (rc == KIX_OK)
        rc = kix_note_open((const char *)note.ptr, note.len, &m->upstream_key, 1, opened, &err);
    if (rc == KIX_OK)
        rc = kix_cosign_text(m->witness, (const char *)opened->text.ptr, opened->text.len,
                             (uint64_t)time(NULL), &line, &err);
    if (rc == KIX_OK)
        rc = kix_log_add_index_cosignature(m->srv->log, size, (const char *)note.ptr, note.len,
                                           (const char *)line.ptr, line.len, &m->witness_v, 1, NULL,
                                           &err);
    if (rc)
        goto out;
    rc = kix_client_add_cosignature(m->up, (const char *)note.ptr, note.len, (const char *)line.ptr,
                                    line.len, &err);
    if (rc)
        kixd_log(KIXD_DEBUG,
                 "mirror of %s: the upstream did not take the index note's cosignature of size "
                 "%llu: %s",
                 m->cfg->mirror_of, (unsigned long long)size, kix_err_text(&err, rc));
    rc = KIX_OK;
out:
    if (rc)
        kixd_log(KIXD_ERROR, "mirror of %s: cannot cosign the index note of size %llu: %s",
                 m->cfg->mirror_of, (unsigned long long)size, kix_err_text(&err, rc));
    free(opened);
    kix_buf_release(&note);
    kix_buf_release(&line);
}

/* Cosigns the latest checkpoint verified (witness), keeps it and sends it up. */
static void cosign(struct kixd_mirror *m)
{
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT;
    struct kix_note *opened = malloc(sizeof(*opened));
    struct kix_err err = {0};
    uint64_t size = 0;
    int rc = opened ? local_checkpoint(m, KIX_NO_INDEX, &note, &size, &err) : KIX_ENOMEM;

    if (rc || size == 0 || size == m->cosigned)
        goto out;
    rc = cosign_and_keep(m, &note, opened, &line, &err);
    if (rc == KIX_EEXIST && m->srv->tlogw) {
        kixd_log(KIXD_DEBUG, "mirror of %s: not cosigning size %llu: %s", m->cfg->mirror_of,
                 (unsigned long long)size, kix_err_text(&err, rc));
        m->cosigned = size;
        goto out;
    }
    if (rc) {
        kixd_log(m->cosign_failed == size ? KIXD_DEBUG : KIXD_ERROR,
                 "mirror of %s: cannot cosign size %llu: %s", m->cfg->mirror_of,
                 (unsigned long long)size, kix_err_text(&err, rc));
        m->cosign_failed = size;
        goto out;
    }
    m->cosigned = size;
    kixd_log(KIXD_DEBUG, "witness %s cosigned size %llu", m->witness_v.name,
             (unsigned long long)size);
    cosign_index(m, size);
    rc = kix_client_add_cosignature(m->up, (const char *)note.ptr, note.len, (const char *)line.ptr,
                                    line.len, &err);
    if (rc) {
        const char *text = kix_err_text(&err, rc);
        kixd_log(m->cosign_error[0] ? KIXD_DEBUG : KIXD_WARN,
                 "mirror of %s: the upstream did not take the cosignature of size %llu: %s",
                 m->cfg->mirror_of, (unsigned long long)size, text);
        pthread_mutex_lock(&m->mu);
        snprintf(m->cosign_error, sizeof(m->cosign_error), "%s", text);
        m->cosign_refused = size;
        pthread_mutex_unlock(&m->mu);
    } else {
        pthread_mutex_lock(&m->mu);
        m->cosign_error[0] = '\0';
        pthread_mutex_unlock(&m->mu);
    }
out:
    free(opened);
    kix_buf_release(&note);
    kix_buf_release(&line);
}

/* One round: look at the upstream, check it agrees, catch up (the
 * witness cosigns in mirror_turn, after the report). */
static int mirror_round(struct kixd_mirror *m, struct kix_err *err)
{
    struct kix_client_info info;
    struct kix_sync_opts opts;
    uint64_t size = local_size(m), synced = 0;
    int64_t t0;
    int rc = kix_client_info(m->up, &info, err);

    if (rc)
        return rc;
    /* a static copy names no key (its checkpoints are checked by ours) */
    if (info.log_key[0] && strcmp(info.log_key, m->upstream_key_text) != 0)
        return kix_err_set(err, KIX_EVERIFY, "%s serves the log %s, not the --upstream-key log %s",
                           m->cfg->mirror_of, info.log_key, m->upstream_key_text);
    /* an origin with --ack-replicas shows readers the size its mirrors
     * hold; a mirror replicates what it committed */
    if (info.committed > info.size)
        info.size = info.committed;
    set_upstream_size(m, info.size);
    rc = check_consistent(m, size, info.size, err);
    if (rc)
        return rc;
    if (info.size > size) {
        memset(&opts, 0, sizeof(opts));
        opts.max_batch = m->cfg->mirror_batch;
        opts.progress = on_batch;
        opts.progress_ctx = m;
        opts.cancel = on_cancel;
        t0 = (int64_t)kix_clock_ms();
        rc = kix_sync(m->up, m->srv->log, info.size, &opts, &synced, err);
        if (synced > size)
            report_findings(m, size, synced);
        if (rc == KIX_EVERIFY && err && root_mismatch(m, err))
            return FORK_FOUND;
        if (rc && refused(rc) && err && err->cause == KIX_CAUSE_ENTRY)
            salvage(m, err->entry);
        if (rc)
            return rc;
        if (synced - size > 1000 || kixd_log_enabled(KIXD_DEBUG))
            kixd_log(KIXD_INFO, "mirror of %s: verified %llu entries up to size %llu in %lld ms",
                     m->cfg->mirror_of, (unsigned long long)(synced - size),
                     (unsigned long long)synced, (long long)((int64_t)kix_clock_ms() - t0));
        if (synced < info.size)
            return KIX_OK; /* stopping */
    }
    note_ok(m);
    return KIX_OK;
}

/* ---- the thread ---------------------------------------------------------------------- */

/* Waits for fd (if >= 0) to be readable, the stop pipe, or ms: 1 readable,
 * 0 timeout, -1 stop. */
static int wait_for(struct kixd_mirror *m, int fd, int ms)
{
    struct pollfd p[2] = {{m->stop_pipe[0], POLLIN, 0}, {fd, POLLIN, 0}};
    int n;

    if (atomic_load(&m->stop))
        return -1;
    do
        n = poll(p, fd >= 0 ? 2 : 1, ms);
    while (n < 0 && errno == EINTR);
    if (atomic_load(&m->stop) || (n > 0 && p[0].revents))
        return -1;
    return n > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : 0;
}

static void drop_upstream(struct kixd_mirror *m)
{
    kix_rpc_close(m->follow);
    m->follow = NULL;
    kix_client_close(m->up);
    m->up = NULL;
}

static int put_from(void *ctx, struct kix_proto_writer *w)
{
    return kix_msg_put_follow_params(w, ctx);
}

static int open_follow(struct kixd_mirror *m, struct kix_err *err)
{
    struct kix_rpc_opts opts = {UPSTREAM_MS, 0};
    struct kix_proto_msg resp;
    struct kix_msg_follow_params from = {local_size(m), true};
    int rc = kix_rpc_connect(m->cfg->mirror_of, &opts, &m->follow, err);

    if (rc)
        goto out;
    rc = kix_rpc_call(m->follow, "follow", put_from, &from, &resp, err);
    if (rc)
        goto out;
    kix_proto_msg_release(&resp);
out:
    if (rc) {
        kix_rpc_close(m->follow);
        m->follow = NULL;
    }
    return rc;
}

static int put_replicated(void *ctx, struct kix_proto_writer *w)
{
    return kix_msg_put_replicated_params(w, ctx);
}

/* Tells the upstream, on the follow stream, the size this mirror holds
 * durably (each replayed batch is an LMDB commit, synced), for its
 * --ack-replicas (replicas.h). With a witness key, its held statement
 * (kix_mirror_held_sign) of the checkpoint at that size, which an origin
 * with --ack-mirror-key requires: made here, from a snapshot of the
 * committed replica, so only ever for entries this mirror holds (never
 * the witness cosignature, which add-checkpoint also hands out for
 * checkpoints the replica has not reached). One signature per report, and
 * one report per round that moved the replica: a batch of commits costs
 * one. The answer comes back on the stream and is dropped with the
 * notifications; an upstream that does not count mirrors (a mirror, an
 * older kixd) answers an error, dropped the same way. */
static int report_replicated(struct kixd_mirror *m, struct kix_err *err)
{
    struct kix_msg_replicated_params p;
    struct kix_log_reader *r = NULL;
    struct kix_buf held = KIX_BUF_INIT;
    struct kix_bytes note;
    struct kix_hash root;
    int rc = kix_log_read_begin(m->srv->log, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    memset(&p, 0, sizeof(p));
    p.size = kix_log_reader_size(r);
    rc = p.size > 0 && p.size != m->reported ? kix_log_reader_root(r, p.size, &root, err)
                                             : KIX_ENOTFOUND;
    if (rc == KIX_OK && m->witness) {
        size_t text_len = 0;
        rc = kix_log_reader_checkpoint(r, p.size, &note);
        /* the checkpoint's text ends at its first blank line */
        for (size_t i = 1; rc == KIX_OK && i < note.len && !text_len; i++)
            if (note.ptr[i] == '\n' && note.ptr[i - 1] == '\n')
                text_len = i;
        if (rc == KIX_OK && !text_len)
            rc =
                kix_err_set(err, KIX_ECORRUPT, "the replica's checkpoint at size %llu is malformed",
                            (unsigned long long)p.size);
        else if (rc)
            rc = kix_err_set(err, rc, "reading the replica's checkpoint at size %llu: %s",
                             (unsigned long long)p.size, kix_strerror(rc));
        if (rc == KIX_OK)
            rc = kix_mirror_held_sign(m->witness, (const char *)note.ptr, text_len,
                                      (uint64_t)time(NULL), &held, err);
        if (rc == KIX_OK && held.len <= KIX_MSG_COSIGNATURE_MAX) {
            p.held.ptr = held.ptr;
            p.held.len = held.len;
        }
    }
    kix_log_read_end(r);
    if (rc == KIX_ENOTFOUND) {
        kix_buf_release(&held);
        return KIX_OK; /* nothing new to say */
    }
    if (rc)
        goto out;
    memcpy(p.root, root.b, 32);
    p.mirror.ptr = (const uint8_t *)m->id;
    p.mirror.len = strlen(m->id);
    rc = kix_rpc_send(m->follow, "replicated", put_replicated, &p, NULL, err);
    if (rc == KIX_OK)
        rc = kix_rpc_flush(m->follow, err);
    if (rc == KIX_OK)
        m->reported = p.size;
out:
    kix_buf_release(&held);
    return rc;
}

/* One turn of the mirror thread: connects when it must, runs a round,
 * then makes sure a follow stream will wake the next. */
static int mirror_turn(struct kixd_mirror *m, const struct kix_client_opts *copts,
                       struct kix_err *err)
{
    int rc;

    if (!m->up) {
        /* a kixd, or a static tlog-tiles copy over HTTP(S) (the system's
         * CAs, or $KIX_CACERT's), verified the same */
        rc = kix_client_open_addr(m->cfg->mirror_of, copts, NULL, &m->up, err);
        if (rc)
            return rc;
    }
    rc = mirror_round(m, err);
    if (rc)
        return rc;
    /* a static copy notifies nobody: polled every TICK_MS */
    if (!m->follow && !atomic_load(&m->stop) && !kix_source_is_http(m->cfg->mirror_of)) {
        rc = open_follow(m, err);
        m->reported = 0;
    }
    if (rc == KIX_OK && m->follow)
        rc = report_replicated(m, err);
    /* the witness cosigns after the report: its cosignature (and the
     * index note's, each stored with an fsync and sent up) is not what an
     * origin's --ack-replicas waits for, the held statement is */
    if (m->witness && !atomic_load(&m->stop))
        cosign(m);
    return rc;
}

static void *mirror_main(void *arg)
{
    struct kixd_mirror *m = arg;
    struct kix_client_opts copts = {UPSTREAM_MS};
    unsigned backoff = 0;

    while (!atomic_load(&m->stop)) {
        struct kix_err err = {0};
        struct kix_proto_msg msg;
        int rc;

        if (m->forked) {
            drop_upstream(m);
            wait_for(m, -1, 60000);
            continue;
        }
        rc = mirror_turn(m, &copts, &err);
        if (rc == FORK_FOUND || atomic_load(&m->stop))
            continue;
        if (rc) {
            backoff = backoff ? (backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2)
                              : BACKOFF_MIN_MS;
            note_error(m, rc, &err, backoff);
            drop_upstream(m);
            wait_for(m, -1, (int)backoff);
            continue;
        }
        backoff = 0;
        /* a notification (or the tick) starts the next round */
        if (wait_for(m, m->follow ? kix_rpc_fd(m->follow) : -1, TICK_MS) == 1) {
            rc = kix_rpc_recv(m->follow, &msg, &err);
            if (rc) {
                kixd_log(KIXD_DEBUG, "mirror of %s: follow stream ended: %s", m->cfg->mirror_of,
                         kix_err_text(&err, rc));
                kix_rpc_close(m->follow);
                m->follow = NULL;
            } else {
                kix_proto_msg_release(&msg);
            }
        }
    }
    drop_upstream(m);
    return NULL;
}

int kixd_mirror_start(struct kixd_server *srv, struct kixd_mirror **out, struct kix_err *err)
{
    struct kixd_mirror *m = calloc(1, sizeof(*m));
    struct kix_buf text = KIX_BUF_INIT;
    int rc;

    *out = NULL;
    if (!m)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    m->srv = srv;
    m->cfg = srv->cfg;
    m->stop_pipe[0] = m->stop_pipe[1] = -1;
    atomic_init(&m->stop, 0);
    pthread_mutex_init(&m->mu, NULL);
    m->last_ok_ms = (int64_t)kix_clock_ms();
    rc = read_upstream_key(m->cfg, &m->upstream_key, err);
    if (rc)
        goto out;
    if (kix_verifier_format(&m->upstream_key, &text) != KIX_OK) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(m->upstream_key_text, sizeof(m->upstream_key_text), "%s", (const char *)text.ptr);
    rc = mirror_id(m->cfg->store, m->id, err);
    if (rc)
        goto out;
    if (m->cfg->witness_key[0]) {
        rc = kix_keyfile_read(m->cfg->witness_key, &m->witness, err);
        if (rc) {
            kix_err_wrap(err, "--witness-key");
            goto out;
        }
        if (kix_signer_alg(m->witness) != KIX_NOTE_ALG_COSIGN) {
            rc = kix_err_set(err, KIX_EUSAGE,
                             "--witness-key %s is not a witness key (make one with kix keygen "
                             "--witness)",
                             m->cfg->witness_key);
            goto out;
        }
        kix_verifier_from_signer(m->witness, &m->witness_v);
    }
    if (pipe(m->stop_pipe) != 0) {
        rc = kix_err_set(err, KIX_EIO, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    for (int i = 0; i < 2; i++)
        fcntl(m->stop_pipe[i], F_SETFD, FD_CLOEXEC);
    if (load_fork(m)) {
        kixd_log(KIXD_ERROR,
                 "mirror of %s: a fork was found earlier (%s); not following it. The evidence "
                 "is in %s/; remove that directory to follow again",
                 m->cfg->mirror_of, m->fork_reason, m->fork_dir);
        if (m->cfg->fail_on_fork) {
            rc = kix_err_set(err, KIX_EFORK,
                             "the upstream %s forked (found earlier, evidence in %s/) and "
                             "--fail-on-fork is set",
                             m->cfg->mirror_of, m->fork_dir);
            goto out;
        }
    }
    if (pthread_create(&m->thread, NULL, mirror_main, m) != 0) {
        rc = kix_err_set(err, KIX_EIO, "cannot start the mirror thread");
        goto out;
    }
    m->started = 1;
out:
    kix_buf_release(&text);
    if (rc) {
        kixd_mirror_stop(m);
        return rc;
    }
    kixd_log(KIXD_INFO, "mirroring %s (%s)%s%s", m->cfg->mirror_of, m->upstream_key.name,
             m->witness ? " as witness " : "", m->witness ? m->witness_v.name : "");
    /* what earlier rounds (or a rebuild of an older index) took */
    report_findings(m, 0, local_size(m));
    *out = m;
    return KIX_OK;
}

void kixd_mirror_stop(struct kixd_mirror *m)
{
    if (!m)
        return;
    atomic_store(&m->stop, 1);
    if (m->stop_pipe[1] >= 0 && write(m->stop_pipe[1], "x", 1) < 0)
        kixd_log(KIXD_DEBUG, "mirror: cannot signal the thread: %s", strerror(errno));
    if (m->started)
        pthread_join(m->thread, NULL);
    drop_upstream(m);
    if (m->stop_pipe[0] >= 0)
        close(m->stop_pipe[0]);
    if (m->stop_pipe[1] >= 0)
        close(m->stop_pipe[1]);
    kix_signer_free(m->witness);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
