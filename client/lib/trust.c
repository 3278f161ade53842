/* The client's memory of each log: the newest verified checkpoint, and the
 * alarm when a server contradicts it. */
#include "kix/trust.h"

#include "kix/config.h"

#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/file.h"
#include "kix/sha256.h"
#include "kix/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int kix_trust_log_name(const struct kix_verifier *key, char *out, size_t cap)
{
    const char *origin = key->name;
    char safe[KIX_NOTE_NAME_MAX + 1];
    size_t i;
    int n;

    /* the origin names a directory: keep it one path component */
    for (i = 0; origin[i] && i < sizeof(safe) - 1; i++)
        safe[i] = origin[i] == '/' ? '_' : origin[i];
    safe[i] = '\0';
    if (strcmp(safe, ".") == 0 || strcmp(safe, "..") == 0)
        safe[0] = '_';
    /* one directory per log key: two logs may share an origin name */
    n = snprintf(out, cap, "%s+%08x", safe, key->key_hash);
    return n < 0 || (size_t)n >= cap ? KIX_EINVAL : KIX_OK;
}

int kix_trust_dir(const struct kix_verifier *key, char *out, size_t cap, struct kix_err *err)
{
    const char *base = getenv("KIX_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char name[KIX_NOTE_NAME_MAX + 16];
    int n;

    if (kix_trust_log_name(key, name, sizeof(name)) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "state directory path is too long");
    if (base && *base)
        n = snprintf(out, cap, "%s/logs/%s", base, name);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/kix/logs/%s", xdg, name);
    else
        n = snprintf(out, cap, "%s/.local/state/kix/logs/%s", home ? home : ".", name);
    if (n < 0 || (size_t)n >= cap)
        return kix_err_set(err, KIX_EINVAL, "state directory path is too long");
    return kix_dir_make(out, 0700, err);
}

/* A stamp no earlier alarm in evidence_dir used: two alarms in one second
 * keep both sets of evidence. */
static void evidence_stamp(const char *evidence_dir, char *stamp, size_t cap)
{
    char base[32], path[4400];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(base, sizeof(base), "%Y%m%dT%H%M%SZ", &tm);
    snprintf(stamp, cap, "%s", base);
    for (int i = 2; i < 1000; i++) {
        snprintf(path, sizeof(path), "%s/%s-alarm.txt", evidence_dir, stamp);
        if (access(path, F_OK) != 0)
            return;
        snprintf(stamp, cap, "%s.%d", base, i);
    }
}

/* Keeps the items and `what` (as STAMP-alarm.txt) in dir/evidence/ and
 * returns the alarm. */
static int alarm_keep(const char *dir, const struct kix_alarm_item *items, size_t n,
                      const char *what, struct kix_err *err)
{
    char path[4400], evidence[4200], stamp[48];
    struct kix_err ignore = {0};
    int saved;

    for (size_t i = 0; i < n; i++)
        if (strchr(items[i].name, '/'))
            return kix_err_set(err, KIX_EINVAL, "evidence name %s is not a file name",
                               items[i].name);
    snprintf(evidence, sizeof(evidence), "%s/evidence", dir);
    saved = kix_dir_make(evidence, 0700, &ignore) == KIX_OK;
    if (saved)
        evidence_stamp(evidence, stamp, sizeof(stamp));
    for (size_t i = 0; saved && i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s-%s", evidence, stamp, items[i].name);
        saved = kix_file_write_atomic(path, items[i].ptr, items[i].len, 0600, &ignore) == KIX_OK;
    }
    if (saved) {
        snprintf(path, sizeof(path), "%s/%s-alarm.txt", evidence, stamp);
        saved = kix_file_write_atomic(path, what, strlen(what), 0600, &ignore) == KIX_OK;
    }
    if (!saved)
        return kix_err_set(err, KIX_EFORK, "ALARM: %s. Saving the evidence failed: %s", what,
                           ignore.msg);
    /* the message has room for a shortened `what` and where the evidence
     * is; STAMP-alarm.txt holds all of it */
    return kix_err_set(err, KIX_EFORK,
                       "ALARM: %.*s%s. The signed checkpoints are kept as evidence in %s/ (%s-*); "
                       "report them to the log's operators and witnesses",
                       240, what, strlen(what) > 240 ? "..." : "", evidence, stamp);
}

/* Keeps both signed checkpoints and returns the alarm. */
static int alarm_fork(const char *dir, const struct kix_buf *remembered, const char *note,
                      size_t len, const char *what, struct kix_err *err)
{
    const struct kix_alarm_item items[] = {
        {"remembered.checkpoint", remembered->ptr, remembered->len},
        {"presented.checkpoint", note, len},
    };
    return alarm_keep(dir, items, 2, what, err);
}

int kix_trust_alarm(const struct kix_verifier *key, const struct kix_alarm_item *items, size_t n,
                    const char *what, struct kix_err *err)
{
    char dir[4096];
    int rc = kix_trust_dir(key, dir, sizeof(dir), err);
    return rc ? rc : alarm_keep(dir, items, n, what, err);
}

/* c proves that the tree of `newer` extends the tree of `older`. */
static int prove_extends(struct kix_client *c, const struct kix_checkpoint *older,
                         const struct kix_checkpoint *newer, struct kix_err *err)
{
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], r1, r2;
    size_t n = 0;
    int rc = kix_client_consistency(c, older->size, newer->size, proof, &n, err);

    memcpy(r1.b, older->root, 32);
    memcpy(r2.b, newer->root, 32);
    if (rc == KIX_OK)
        rc = kix_merkle_verify_consistency(older->size, newer->size, &r1, &r2, proof, n, err);
    return rc;
}

/* Remembers note, and who presented it (checkpoint.from: who may prove
 * later that an older copy is a prefix of it). */
static int remember(struct kix_client *c, const char *dir, const char *note, size_t len,
                    struct kix_err *err)
{
    char path[4200], from[sizeof(((struct kix_source *)0)->where) + 2];
    int n, rc;

    snprintf(path, sizeof(path), "%s/checkpoint", dir);
    rc = kix_file_write_atomic(path, note, len, 0600, err);
    if (rc)
        return rc;
    n = snprintf(from, sizeof(from), "%s\n", kix_client_where(c));
    snprintf(path, sizeof(path), "%s/checkpoint.from", dir);
    /* only a hint (the checkpoint is what is trusted): a failure to keep
     * it costs a stale copy its proof later, nothing else */
    if (kix_file_write_atomic(path, from, (size_t)n, 0600, NULL) != KIX_OK)
        return KIX_OK;
    return KIX_OK;
}

/* The stale result of the last older checkpoint this process checked:
 * every check of one command sees the same checkpoint again (its index
 * note, a proof's checkpoint), and the prefix is proven once. */
static struct {
    int have;
    uint32_t key_hash;
    uint64_t size;
    uint8_t root[32];
    struct kix_trust_stale st;
} stale_memo;

/* A client of addr: a store ("store DIR", as kix_client_where names one)
 * or any address kix_client_open_addr takes. */
static int open_prover(const char *addr, const struct kix_trust_read *opts, struct kix_client **out,
                       struct kix_err *err)
{
    if (strncmp(addr, "store ", 6) == 0)
        return kix_client_open_store(addr + 6, out, err);
    return kix_client_open_addr(addr, NULL, opts ? opts->http : NULL, out, err);
}

/* Appends "; WHERE: WHY" to st->by (why no one proved it). */
static void add_why(struct kix_trust_stale *st, const char *where, const char *why)
{
    size_t at = strlen(st->by);
    if (at < sizeof(st->by) - 1)
        snprintf(st->by + at, sizeof(st->by) - at, "%s%s: %s", at ? "; " : "", where, why);
}

/* One prover p: KIX_OK proven (st filled), KIX_EFORK its proof does not
 * verify (the alarm, evidence kept), else not proven by it (why added). */
static int try_prover(struct kix_client *p, const char *dir, const struct kix_checkpoint *cp,
                      const struct kix_checkpoint *old, const struct kix_buf *remembered,
                      const char *note, size_t len, const char *presenter,
                      struct kix_trust_stale *st, struct kix_err *err)
{
    struct kix_err perr = {0};
    char what[1024];
    int rc = prove_extends(p, cp, old, &perr);

    if (rc == KIX_OK) {
        snprintf(st->by, sizeof(st->by), "%s", kix_client_where(p));
        st->proven = 1;
        return KIX_OK;
    }
    if (rc == KIX_ENOMEM) {
        if (err)
            *err = perr;
        return rc;
    }
    if (rc == KIX_EVERIFY) {
        /* a proof was given and it fails: the two signed trees are not one
         * log's (or the prover lies, which the evidence shows too) */
        snprintf(what, sizeof(what),
                 "%s presents log %s at size %llu, and the consistency proof %s gives from it "
                 "to the size %llu this client verified before does not verify (%s): the log "
                 "forked or was rewritten",
                 presenter, cp->origin, (unsigned long long)cp->size, kix_client_where(p),
                 (unsigned long long)old->size, perr.msg);
        return alarm_fork(dir, remembered, note, len, what, err);
    }
    add_why(st, kix_client_where(p), perr.msg);
    return KIX_ENOTFOUND;
}

/* cp, older than the remembered old: a stale copy (st filled, KIX_OK),
 * proven a prefix where someone can prove it, or the alarm. */
static int stale_prefix(struct kix_client *c, const struct kix_verifier *key,
                        const struct kix_trust_read *opts, const char *dir,
                        const struct kix_checkpoint *cp, const struct kix_checkpoint *old,
                        const struct kix_buf *remembered, const char *note, size_t len,
                        struct kix_trust_stale *st, struct kix_err *err)
{
    const char *asked[2 + 8];
    struct kix_buf from = KIX_BUF_INIT;
    char path[4200], addr[1024];
    size_t nasked = 0;
    int rc;

    if (stale_memo.have && stale_memo.key_hash == key->key_hash && stale_memo.size == cp->size &&
        memcmp(stale_memo.root, cp->root, 32) == 0 && stale_memo.st.remembered == old->size) {
        *st = stale_memo.st;
        return KIX_OK;
    }
    memset(st, 0, sizeof(*st));
    st->stale = 1;
    st->size = cp->size;
    st->remembered = old->size;
    /* the copy itself (a mirror that keeps older sizes cannot prove a
     * larger one, but a server behind a cache may), then whoever presented
     * the remembered checkpoint, then the given sources */
    asked[nasked++] = kix_client_where(c);
    rc = try_prover(c, dir, cp, old, remembered, note, len, kix_client_where(c), st, err);
    snprintf(path, sizeof(path), "%s/checkpoint.from", dir);
    addr[0] = '\0';
    if (rc == KIX_ENOTFOUND && kix_file_read(path, sizeof(addr) - 1, &from, NULL) == KIX_OK)
        snprintf(addr, sizeof(addr), "%.*s",
                 (int)strcspn(from.ptr ? (const char *)from.ptr : "", "\n"),
                 from.ptr ? (const char *)from.ptr : "");
    kix_buf_release(&from);
    for (size_t i = 0; rc == KIX_ENOTFOUND && i < 1 + (opts ? opts->nprovers : 0); i++) {
        const char *a = i == 0 ? addr : opts->provers[i - 1];
        struct kix_client *p = NULL;
        struct kix_err oerr = {0};
        int seen = !a || !*a || nasked >= sizeof(asked) / sizeof(asked[0]);

        for (size_t j = 0; !seen && j < nasked; j++)
            seen = strcmp(asked[j], a) == 0;
        if (seen)
            continue;
        asked[nasked++] = a;
        if (open_prover(a, opts, &p, &oerr) != KIX_OK) {
            add_why(st, a, oerr.msg);
            continue;
        }
        rc = try_prover(p, dir, cp, old, remembered, note, len, kix_client_where(c), st, err);
        kix_client_close(p);
    }
    if (rc == KIX_ENOTFOUND)
        rc = KIX_OK; /* unproven: stale, said so */
    if (rc == KIX_OK) {
        stale_memo.have = 1;
        stale_memo.key_hash = key->key_hash;
        stale_memo.size = cp->size;
        memcpy(stale_memo.root, cp->root, 32);
        stale_memo.st = *st;
    }
    return rc;
}

/* Whether c's latest signed checkpoint is smaller than size: a copy that
 * cannot prove what it has not reached (a server that has it and will not
 * prove it is another matter). */
static int serves_less(struct kix_client *c, const struct kix_verifier *key, uint64_t size)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp;
    int less = kix_client_checkpoint(c, KIX_NO_INDEX, &note, NULL) == KIX_OK &&
               kix_checkpoint_open((const char *)note.ptr, note.len, key, 1, key->name, &opened,
                                   &cp, NULL) == KIX_OK &&
               cp.size < size;

    kix_buf_release(&note);
    return less;
}

/* How an older checkpoint than the remembered one is taken. */
enum older { OLDER_IS_ROLLBACK, OLDER_IS_PROVEN, OLDER_IS_STALE };

/* OLDER_IS_ROLLBACK: the server's latest must not be older than what this
 * client verified. OLDER_IS_PROVEN: a checkpoint asked for by size may be,
 * and is then proven a prefix of it. OLDER_IS_STALE: a status look at a
 * server that may lag (a mirror) and cannot prove a size it does not have:
 * older is reported as it is, a fork at the same or a larger size is not. */
static int check(struct kix_client *c, const struct kix_verifier *key, const char *note, size_t len,
                 enum older past, const struct kix_trust_read *ropts, struct kix_trust_stale *stale,
                 struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_buf remembered = KIX_BUF_INIT;
    struct kix_note opened, old_opened;
    struct kix_checkpoint cp, old;
    char dir[4096], path[4200], what[1024];
    int rc;

    rc = kix_checkpoint_open(note, len, key, 1, key->name, &opened, &cp, err);
    if (rc) {
        kix_err_wrap(err, "checkpoint from %s", kix_client_where(c));
        return rc;
    }
    if (cp_out)
        *cp_out = cp;
    rc = kix_trust_dir(key, dir, sizeof(dir), err);
    if (rc)
        return rc;
    snprintf(path, sizeof(path), "%s/checkpoint", dir);
    rc = kix_file_read(path, 1u << 20, &remembered, NULL);
    if (rc == KIX_ENOTFOUND)
        return remember(c, dir, note, len, err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)remembered.ptr, remembered.len, key, 1, key->name,
                                 &old_opened, &old, err);
    if (rc) {
        kix_err_wrap(err, "the remembered checkpoint %s (delete it to start over)", path);
        goto out;
    }
    if (cp.size < old.size && past == OLDER_IS_STALE) {
        rc = KIX_OK;
    } else if (cp.size < old.size && past == OLDER_IS_PROVEN) {
        struct kix_err perr = {0};
        rc = prove_extends(c, &cp, &old, &perr);
        if (rc == KIX_ENOMEM) {
            if (err)
                *err = perr;
        } else if (rc && rc != KIX_EVERIFY && serves_less(c, key, old.size)) {
            /* no proof from a copy that has not reached the size this
             * client verified: a copy that lags, as a latest checkpoint
             * older than the remembered one is, unless a proof shows it is
             * no prefix (issue 37.9: the alarm only for a contradiction) */
            rc = stale_prefix(c, key, ropts, dir, &cp, &old, &remembered, note, len, stale, err);
        } else if (rc) {
            snprintf(what, sizeof(what),
                     "%s cannot prove that the size %llu this client verified before extends its "
                     "checkpoint at size %llu (%s): the log forked or was rewritten",
                     kix_client_where(c), (unsigned long long)old.size, (unsigned long long)cp.size,
                     perr.msg);
            rc = alarm_fork(dir, &remembered, note, len, what, err);
        }
    } else if (cp.size < old.size) {
        /* a copy that lags, unless a proof shows it is no prefix */
        rc = stale_prefix(c, key, ropts, dir, &cp, &old, &remembered, note, len, stale, err);
    } else if (cp.size == old.size) {
        if (memcmp(cp.root, old.root, 32) != 0) {
            snprintf(what, sizeof(what),
                     "%s presents a different root for size %llu than this client verified "
                     "before: the log forked",
                     kix_client_where(c), (unsigned long long)cp.size);
            rc = alarm_fork(dir, &remembered, note, len, what, err);
        }
    } else {
        struct kix_err perr = {0};
        rc = prove_extends(c, &old, &cp, &perr);
        if (rc == KIX_OK) {
            rc = remember(c, dir, note, len, err);
        } else if (rc == KIX_ENOMEM) {
            if (err)
                *err = perr;
        } else if (rc != KIX_EVERIFY) {
            /* a server that signs a larger tree and will not prove it grew
             * from ours may be hiding a fork: the unproven checkpoint is
             * evidence, and it is not remembered */
            snprintf(what, sizeof(what),
                     "%s presents a signed checkpoint at size %llu but cannot prove consistency "
                     "with the size %llu this client verified before (%s): the log may have "
                     "forked",
                     kix_client_where(c), (unsigned long long)cp.size, (unsigned long long)old.size,
                     perr.msg);
            rc = alarm_fork(dir, &remembered, note, len, what, err);
        } else {
            snprintf(what, sizeof(what),
                     "%s cannot prove its size %llu extends the size %llu this client verified "
                     "before (%s): the log forked or was rewritten",
                     kix_client_where(c), (unsigned long long)cp.size, (unsigned long long)old.size,
                     perr.msg);
            rc = alarm_fork(dir, &remembered, note, len, what, err);
        }
    }
out:
    kix_buf_release(&remembered);
    return rc;
}

int kix_trust_check_read(struct kix_client *c, const struct kix_verifier *key, const char *note,
                         size_t len, const struct kix_trust_read *opts,
                         struct kix_trust_stale *stale, struct kix_checkpoint *cp_out,
                         struct kix_err *err)
{
    struct kix_trust_stale local;

    stale = stale ? stale : &local;
    memset(stale, 0, sizeof(*stale));
    return check(c, key, note, len, OLDER_IS_ROLLBACK, opts, stale, cp_out, err);
}

int kix_trust_check(struct kix_client *c, const struct kix_verifier *key, const char *note,
                    size_t len, struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_trust_stale st;
    int rc = kix_trust_check_read(c, key, note, len, NULL, &st, cp_out, err);

    if (rc == KIX_OK && st.stale)
        rc = kix_err_set(
            err, KIX_ESTALE,
            "%s serves the log at size %llu, behind the size %llu this client "
            "verified before (%s %s): a stale copy; use a copy that is current, or "
            "the log's origin",
            kix_client_where(c), (unsigned long long)st.size, (unsigned long long)st.remembered,
            st.proven ? "proven a prefix of it by" : "not proven a prefix of it:", st.by);
    return rc;
}

int kix_trust_check_past(struct kix_client *c, const struct kix_verifier *key, const char *note,
                         size_t len, struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_trust_stale stale; /* a copy that lags: its caller's contact said so */

    memset(&stale, 0, sizeof(stale));
    return check(c, key, note, len, OLDER_IS_PROVEN, NULL, &stale, cp_out, err);
}

int kix_trust_check_status(struct kix_client *c, const struct kix_verifier *key, const char *note,
                           size_t len, struct kix_checkpoint *cp_out, struct kix_err *err)
{
    return check(c, key, note, len, OLDER_IS_STALE, NULL, NULL, cp_out, err);
}

int kix_trust_latest(struct kix_client *c, const struct kix_verifier *key, struct kix_buf *note,
                     struct kix_checkpoint *cp_out, struct kix_err *err)
{
    size_t start = note->len;
    int rc = kix_client_checkpoint(c, KIX_NO_INDEX, note, err);
    if (rc)
        return rc;
    return kix_trust_check(c, key, (const char *)note->ptr + start, note->len - start, cp_out, err);
}

/* ---- witnesses ------------------------------------------------------------ */

/* known[0] the log key, then the policy's witness keys, checked. */
static int known_keys(const struct kix_verifier *log_key, const struct kix_witness_policy *policy,
                      struct kix_verifier *known, struct kix_err *err)
{
    size_t nkeys = policy ? policy->nkeys : 0, min = policy ? policy->min : 0;

    if (nkeys > KIX_WITNESSES_MAX)
        return kix_err_set(err, KIX_ELIMIT, "at most %d witness keys, not %zu", KIX_WITNESSES_MAX,
                           nkeys);
    if (min > nkeys)
        return kix_err_set(err, KIX_EINVAL,
                           "%zu witness cosignatures required but only %zu witness keys given", min,
                           nkeys);
    known[0] = *log_key;
    for (size_t i = 0; i < nkeys; i++) {
        if (policy->keys[i].alg != KIX_NOTE_ALG_COSIGN)
            return kix_err_set(err, KIX_EINVAL,
                               "witness key %s is not a cosignature (0x04) key (kix keygen "
                               "--witness makes one)",
                               policy->keys[i].name);
        known[1 + i] = policy->keys[i];
    }
    return KIX_OK;
}

/* Opens `note` with the log key and the policy's witness keys (as a
 * checkpoint into *cp, or any signed note when cp is NULL) and counts the
 * witnesses whose cosignature verifies. */
static int count_witnesses(const char *note, size_t len, const struct kix_verifier *log_key,
                           const struct kix_witness_policy *policy, struct kix_checkpoint *cp,
                           size_t *count, uint64_t *newest, struct kix_err *err)
{
    struct kix_verifier known[1 + KIX_WITNESSES_MAX];
    struct kix_note *opened;
    size_t nkeys = policy ? policy->nkeys : 0;
    int rc = known_keys(log_key, policy, known, err);

    *count = 0;
    if (rc)
        return rc;
    opened = malloc(sizeof(*opened));
    if (!opened)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* a known witness's line that does not verify is KIX_EVERIFY here */
    rc = cp ? kix_checkpoint_open(note, len, known, 1 + nkeys, log_key->name, opened, cp, err)
            : kix_note_open(note, len, known, 1 + nkeys, opened, err);
    if (rc == KIX_OK && !kix_note_verified_by(opened, 0))
        rc = kix_err_set(err, KIX_EVERIFY, "the %s is not signed by the log key %s",
                         cp ? "checkpoint" : "note", log_key->name);
    for (size_t i = 1; rc == KIX_OK && i <= nkeys; i++)
        *count += kix_note_verified_by(opened, i) != 0;
    /* the newest cosignature time of a trusted witness: how fresh the
     * checkpoint is known to be */
    if (newest)
        *newest = 0;
    for (size_t i = 0; rc == KIX_OK && newest && i < opened->nsigs; i++)
        if (opened->sigs[i].verifier >= 1 && opened->sigs[i].timestamp > *newest)
            *newest = opened->sigs[i].timestamp;
    free(opened);
    return rc;
}

int kix_witness_check(const char *note, size_t len, const struct kix_verifier *log_key,
                      const struct kix_witness_policy *policy, size_t *found, struct kix_err *err)
{
    struct kix_checkpoint cp;
    size_t nkeys = policy ? policy->nkeys : 0, min = policy ? policy->min : 0, count = 0;
    uint64_t newest = 0, now = (uint64_t)time(NULL);
    int rc = count_witnesses(note, len, log_key, policy, &cp, &count, &newest, err);

    if (found)
        *found = 0;
    if (rc)
        return rc;
    if (found)
        *found = count;
    if (policy && policy->max_age) {
        char when[32] = "never";
        time_t t = (time_t)newest;
        struct tm tm;
        if (newest && gmtime_r(&t, &tm))
            strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
        if (!newest)
            return kix_err_set(err, KIX_ESTALE,
                               "the checkpoint of %s at size %llu has no cosignature of a trusted "
                               "witness, so how old it is cannot be known (--max-age needs "
                               "--witness keys of witnesses that cosign this log)",
                               cp.origin, (unsigned long long)cp.size);
        if (now > newest && now - newest > policy->max_age)
            return kix_err_set(err, KIX_ESTALE,
                               "the checkpoint of %s at size %llu was last cosigned by a trusted "
                               "witness at %s (%llu s ago), longer ago than the %llu s allowed "
                               "(--max-age): a stale copy; read a fresher copy or the log's "
                               "origin",
                               cp.origin, (unsigned long long)cp.size, when,
                               (unsigned long long)(now - newest),
                               (unsigned long long)policy->max_age);
    }
    if (count < min)
        return kix_err_set(err, KIX_EVERIFY,
                           "the checkpoint of %s at size %llu has %zu of the %zu witness "
                           "cosignatures required (from %zu witness keys); wait for the "
                           "witnesses to cosign it, or ask a server they cosign for",
                           cp.origin, (unsigned long long)cp.size, count, min, nkeys);
    return KIX_OK;
}

int kix_witness_check_index(const char *note, size_t len, const struct kix_verifier *log_key,
                            const struct kix_witness_policy *policy, size_t *found,
                            struct kix_err *err)
{
    size_t nkeys = policy ? policy->nkeys : 0, min = policy ? policy->min : 0, count = 0;
    int rc;

    if (found)
        *found = 0;
    if (min == 0)
        return KIX_OK;
    /* a known witness's line that does not verify over this text: it
     * cosigned another index note of this size */
    rc = count_witnesses(note, len, log_key, policy, NULL, &count, NULL, err);
    if (rc) {
        kix_err_wrap(err, "the index note");
        return rc;
    }
    if (found)
        *found = count;
    if (count < min)
        return kix_err_set(err, KIX_EVERIFY,
                           "the index note of %s has %zu of the %zu witness cosignatures "
                           "required (from %zu witness keys): the witnesses did not recompute "
                           "this index root (a split view of the index, or witnesses that do not "
                           "replay the index: only a kix mirror-witness cosigns index notes)",
                           log_key->name, count, min, nkeys);
    return KIX_OK;
}

int kix_trust_check_witnessed(struct kix_client *c, const struct kix_verifier *key,
                              const struct kix_witness_policy *policy, const char *note, size_t len,
                              struct kix_checkpoint *cp_out, struct kix_err *err)
{
    int rc = kix_witness_check(note, len, key, policy, NULL, err);
    if (rc) {
        kix_err_wrap(err, "checkpoint from %s", kix_client_where(c));
        return rc;
    }
    return kix_trust_check(c, key, note, len, cp_out, err);
}

/* ---- the log key -------------------------------------------------------------- */

/* "log-key = TEXT" from the config file (kix/config.h). */
static int config_log_key(char *out, size_t cap)
{
    struct kix_config cfg;

    if (kix_config_load(&cfg, NULL, NULL, NULL) != KIX_OK || !cfg.log_key[0])
        return 0;
    snprintf(out, cap, "%s", cfg.log_key);
    return 1;
}

static int key_text(const char *text, const char *kind, const char *from, struct kix_verifier *out,
                    struct kix_err *err)
{
    int rc = kix_verifier_parse(text, strcspn(text, "\r\n"), out, err);
    if (rc)
        kix_err_wrap(err, "%s key from %s", kind, from);
    return rc;
}

int kix_trust_key_arg(const char *arg, const char *kind, const char *option,
                      struct kix_verifier *out, struct kix_err *err)
{
    struct kix_buf file = KIX_BUF_INIT;
    char from[4200];
    int rc;

    if (access(arg, F_OK) != 0)
        return key_text(arg, kind, option, out, err);
    rc = kix_file_read(arg, 4096, &file, err);
    if (rc)
        goto out;
    /* a log key file is named by itself; a witness by its option too */
    snprintf(from, sizeof(from), "%s%s", strcmp(kind, "log") == 0 ? "" : "--witness ", arg);
    rc = key_text(file.ptr ? (const char *)file.ptr : "", kind, from, out, err);
out:
    kix_buf_release(&file);
    return rc;
}

int kix_trust_log_key_given(const char *given)
{
    char text[2048];
    if (!given)
        given = getenv("KIX_LOG_KEY");
    return (given && *given) || config_log_key(text, sizeof(text));
}

int kix_trust_log_key(const char *given, struct kix_client *store, struct kix_verifier *out,
                      struct kix_err *err)
{
    const char *option = given ? "--log-key" : "$KIX_LOG_KEY";
    struct kix_client_info info;
    char text[2048];
    int rc;

    if (!given)
        given = getenv("KIX_LOG_KEY");
    if (given && !*given) /* e.g. KIX_LOG_KEY="$(cat log.vkey)" after kixd init failed */
        return kix_err_set(err, KIX_EUSAGE,
                           "%s is set but empty; set it to the log's verifier key (what kixd "
                           "init\nprinted) or unset it",
                           option[0] == '$' ? option + 1 : option);
    if (given)
        return kix_trust_key_arg(given, "log", option, out, err);
    if (config_log_key(text, sizeof(text)))
        return key_text(text, "log", "the config file", out, err);
    if (store) {
        /* our own store: its key is as trusted as the files themselves */
        rc = kix_client_info(store, &info, err);
        if (rc)
            return rc;
        return key_text(info.log_key, "log", kix_client_where(store), out, err);
    }
    return kix_err_set(err, KIX_EUSAGE,
                       "no log key to verify against. Pass --log-key KEY, set KIX_LOG_KEY, or "
                       "add\n'log-key = KEY' to ~/.config/kix/config. 'kix trust ADDR' fetches a "
                       "server's key\nfor you to check and pin (trust on first use).");
}

/* ---- runs this client saw ---------------------------------------------- */

static int run_path(const struct kix_verifier *key, const char *run_id, char *dir, size_t dcap,
                    char *path, size_t cap, struct kix_err *err)
{
    int rc = kix_trust_dir(key, dir, dcap, err);

    if (rc)
        return rc;
    if (!kix_run_id_valid(run_id, strlen(run_id)))
        return kix_err_set(err, KIX_EINVAL, "invalid run id");
    if ((size_t)snprintf(path, cap, "%s/runs", dir) >= cap)
        return kix_err_set(err, KIX_EINVAL, "state directory path is too long");
    rc = kix_dir_make(path, 0700, err);
    if (rc)
        return rc;
    /* An id of the grammar is a safe file name as it is. One a log holds
     * from before the grammar ("..", ".size") is named by its SHA-256
     * after '=', which no id of the grammar starts with, so that no run id
     * can name the runs directory, its parent or another run's file. */
    if (kix_run_id_check(run_id, strlen(run_id), NULL) == KIX_OK) {
        if ((size_t)snprintf(path, cap, "%s/runs/%s", dir, run_id) >= cap)
            rc = kix_err_set(err, KIX_EINVAL, "state directory path is too long");
    } else {
        uint8_t h[KIX_SHA256_LEN];
        char hexid[2 * KIX_SHA256_LEN + 1];
        kix_sha256(run_id, strlen(run_id), h);
        kix_hex_encode(h, sizeof(h), hexid);
        if ((size_t)snprintf(path, cap, "%s/runs/=%s", dir, hexid) >= cap)
            rc = kix_err_set(err, KIX_EINVAL, "state directory path is too long");
    }
    return rc;
}

int kix_trust_run_seen(const struct kix_verifier *key, const char *run_id, uint64_t index,
                       struct kix_err *err)
{
    char dir[4096], path[4400], text[32];
    struct kix_buf old = KIX_BUF_INIT;
    int n, rc = run_path(key, run_id, dir, sizeof(dir), path, sizeof(path), err);

    if (rc)
        return rc;
    n = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)index);
    /* written once: what was seen first is what is kept */
    if (kix_file_read(path, 64, &old, NULL) == KIX_OK) {
        kix_buf_release(&old);
        return KIX_OK;
    }
    return kix_file_write_atomic(path, text, (size_t)n, 0600, err);
}

/* The alarm about a run this client saw published (`seen` its record) and
 * the server now denies: keeps the remembered checkpoint, the server's
 * `note` and the record. */
static int alarm_run(const char *dir, const char *run_id, const struct kix_buf *seen,
                     const char *note, size_t len, const char *what, struct kix_err *err)
{
    struct kix_buf remembered = KIX_BUF_INIT, record = KIX_BUF_INIT;
    char path[4200];
    int rc;

    snprintf(path, sizeof(path), "%s/checkpoint", dir);
    if (kix_file_read(path, 1u << 20, &remembered, NULL) != KIX_OK)
        kix_buf_reset(&remembered);
    rc = kix_buf_addf(&record, "run %s\npublished at log index %.*s", run_id, (int)seen->len,
                      seen->ptr ? (const char *)seen->ptr : "");
    if (rc == KIX_OK) {
        const struct kix_alarm_item items[] = {
            {"remembered.checkpoint", remembered.ptr, remembered.len},
            {"seen-run.txt", record.ptr, record.len},
            {"presented.checkpoint", note, len},
        };
        rc = alarm_keep(dir, items, note ? 3 : 2, what, err);
    } else {
        rc = kix_err_set(err, rc, "out of memory");
    }
    kix_buf_release(&remembered);
    kix_buf_release(&record);
    return rc;
}

int kix_trust_run_denied(const struct kix_verifier *key, const char *run_id, const char *note,
                         size_t len, uint64_t size, struct kix_err *err)
{
    char dir[4096], path[4400], what[512];
    struct kix_buf seen = KIX_BUF_INIT;
    unsigned long long index;
    int rc = run_path(key, run_id, dir, sizeof(dir), path, sizeof(path), err);

    if (rc)
        return rc;
    if (kix_file_read(path, 64, &seen, NULL) != KIX_OK)
        return KIX_OK; /* never seen here: nothing contradicts the proof */
    rc = kix_buf_addc(&seen, '\0');
    if (rc == KIX_OK && sscanf((const char *)seen.ptr, "%llu", &index) == 1 && index < size) {
        snprintf(what, sizeof(what),
                 "the log's signed index proves run %s absent at size %llu, but this client "
                 "verified its publication at log index %llu",
                 run_id, (unsigned long long)size, index);
        seen.len--;
        rc = alarm_run(dir, run_id, &seen, note, len, what, err);
    }
    kix_buf_release(&seen);
    return rc;
}

int kix_trust_run_unproven(const struct kix_verifier *key, const char *run_id, const char *note,
                           size_t len, const char *where, const char *why, struct kix_err *err)
{
    char dir[4096], path[4400], what[1024];
    struct kix_buf seen = KIX_BUF_INIT;
    unsigned long long index = 0;
    int rc = run_path(key, run_id, dir, sizeof(dir), path, sizeof(path), err);

    if (rc)
        return rc;
    if (kix_file_read(path, 64, &seen, NULL) != KIX_OK)
        return KIX_OK; /* never seen here: the denial stands, unproven */
    rc = kix_buf_addc(&seen, '\0');
    if (rc == KIX_OK) {
        if (sscanf((const char *)seen.ptr, "%llu", &index) != 1)
            index = 0;
        seen.len--;
        /* the run is in the remembered tree, which the server's latest
         * checkpoint was proven to extend: the denial is a lie */
        snprintf(what, sizeof(what),
                 "%s says there is no run %s and cannot prove its absence (%s), but this client "
                 "verified its publication at log index %llu",
                 where, run_id, why, index);
        rc = alarm_run(dir, run_id, &seen, note, len, what, err);
    }
    kix_buf_release(&seen);
    return rc;
}
