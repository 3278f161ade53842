/* The witness side of c2sp.org/tlog-witness: add-checkpoint (tlog_witness.h). */
#include "tlog_witness.h"

#include <pthread.h>
#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kix/encoding.h"
#include "kix/file.h"
#include "diag.h"
#include "kix/merkle.h"
#include "witness.h"

#define MAX_LOGS        (KIXD_MAX_WITNESSES + 1)
#define MAX_PROOF_LINES 63
#define STATE_MAX       (KIX_NOTE_MAX_BYTES)

struct wlog {
    char origin[KIX_NOTE_NAME_MAX + 1];
    struct kix_verifier key;
    char refused[KIX_ERR_MSG_MAX]; /* why the replica contradicts it; "" while it does not */
};

struct kixd_tlogw {
    struct kix_signer *signer;
    struct kix_verifier self;
    struct wlog logs[MAX_LOGS];
    size_t nlogs;
    char dir[4200];
    pthread_mutex_t mu; /* every check-and-update of the state */
};

/* "[ORIGIN ]KEY": the key is the text after the last space (a verifier key
 * has none), the origin what is before it, or the key's name. */
static int parse_log(const char *given, struct wlog *out, struct kix_err *err)
{
    const char *sp = strrchr(given, ' ');
    size_t olen;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = kixd_read_verifier(sp ? sp + 1 : given, &out->key, err);
    if (rc) {
        kix_err_wrap(err, "--witness-log %s", given);
        return rc == KIX_EINVAL || rc == KIX_ENOTFOUND ? KIX_EUSAGE : rc;
    }
    if (out->key.alg != KIX_NOTE_ALG_ED25519)
        return kix_err_set(err, KIX_EUSAGE,
                           "--witness-log %s: key %s is not a log key (algorithm 0x01)", given,
                           out->key.name);
    olen = sp ? (size_t)(sp - given) : strlen(out->key.name);
    if (olen == 0 || olen > KIX_NOTE_NAME_MAX || memchr(sp ? given : out->key.name, '\n', olen))
        return kix_err_set(err, KIX_EUSAGE, "--witness-log %s: the origin must be 1 to %d bytes",
                           given, KIX_NOTE_NAME_MAX);
    memcpy(out->origin, sp ? given : out->key.name, olen);
    out->origin[olen] = '\0';
    return KIX_OK;
}

int kixd_tlogw_open(const struct kixd_config *cfg, const struct kix_verifier *upstream,
                    struct kixd_tlogw **out, struct kix_err *err)
{
    struct kixd_tlogw *t = calloc(1, sizeof(*t));
    int rc = KIX_OK;

    *out = NULL;
    if (!t)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    pthread_mutex_init(&t->mu, NULL);
    rc = kix_keyfile_read(cfg->witness_key, &t->signer, err);
    if (rc) {
        kix_err_wrap(err, "--witness-key");
        rc = rc == KIX_EINVAL || rc == KIX_ENOTFOUND ? KIX_EUSAGE : rc;
        goto out;
    }
    if (kix_signer_alg(t->signer) != KIX_NOTE_ALG_COSIGN) {
        rc = kix_err_set(err, KIX_EUSAGE,
                         "--witness-key %s is not a witness key (make one with kix keygen "
                         "--witness)",
                         cfg->witness_key);
        goto out;
    }
    kix_verifier_from_signer(t->signer, &t->self);
    if (upstream) {
        snprintf(t->logs[0].origin, sizeof(t->logs[0].origin), "%s", upstream->name);
        t->logs[0].key = *upstream;
        t->nlogs = 1;
    }
    for (size_t i = 0; i < cfg->nwitness_logs && rc == KIX_OK; i++)
        rc = parse_log(cfg->witness_logs[i], &t->logs[t->nlogs++], err);
    if (rc)
        goto out;
    snprintf(t->dir, sizeof(t->dir), "%s/witness", cfg->store);
out:
    if (rc) {
        kixd_tlogw_close(t);
        return rc;
    }
    *out = t;
    return KIX_OK;
}

void kixd_tlogw_close(struct kixd_tlogw *t)
{
    if (!t)
        return;
    kix_signer_free(t->signer);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* The keys trusted for `origin`; 0 when it is not a log this witness knows. */
static size_t keys_of(const struct kixd_tlogw *t, const char *origin, size_t len,
                      struct kix_verifier *keys)
{
    size_t n = 0;

    for (size_t i = 0; i < t->nlogs; i++)
        if (strlen(t->logs[i].origin) == len && memcmp(t->logs[i].origin, origin, len) == 0)
            keys[n++] = t->logs[i].key;
    return n;
}

/* Under t->mu: why this witness cosigns nothing more of `origin` (its
 * replica found that log inconsistent), or NULL. */
static const char *refusal_of(const struct kixd_tlogw *t, const char *origin)
{
    for (size_t i = 0; i < t->nlogs; i++)
        if (t->logs[i].refused[0] && strcmp(t->logs[i].origin, origin) == 0)
            return t->logs[i].refused;
    return NULL;
}

void kixd_tlogw_refuse(struct kixd_tlogw *t, const char *origin, uint64_t size, const char *reason)
{
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->nlogs; i++)
        if (strcmp(t->logs[i].origin, origin) == 0)
            snprintf(t->logs[i].refused, sizeof(t->logs[i].refused),
                     "this witness's replica found the log inconsistent at size %llu (%s): it "
                     "cosigns none of its checkpoints",
                     (unsigned long long)size, reason);
    pthread_mutex_unlock(&t->mu);
}

static void state_path(const struct kixd_tlogw *t, const char *origin, char *path, size_t cap)
{
    uint8_t h[32];
    char hex[65];

    crypto_hash_sha256(h, (const uint8_t *)origin, strlen(origin));
    kix_hex_encode(h, sizeof(h), hex);
    hex[64] = '\0';
    snprintf(path, cap, "%s/%s", t->dir, hex);
}

/* The latest cosigned checkpoint of `origin` (size 0, empty root when
 * none). Under t->mu. */
static int state_load(struct kixd_tlogw *t, const char *origin, const struct kix_verifier *keys,
                      size_t nkeys, struct kix_checkpoint *cp, struct kix_err *err)
{
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_note *note = NULL;
    char path[4400];
    int rc;

    memset(cp, 0, sizeof(*cp));
    kix_merkle_empty_root((struct kix_hash *)cp->root);
    state_path(t, origin, path, sizeof(path));
    if (access(path, F_OK) != 0)
        return KIX_OK;
    rc = kix_file_read(path, STATE_MAX, &b, err);
    if (rc)
        goto out;
    note = malloc(sizeof(*note));
    if (!note) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    rc = kix_checkpoint_open((const char *)b.ptr, b.len, keys, nkeys, origin, note, cp, err);
out:
    if (rc)
        kix_err_wrap(err, "the witness state %s", path);
    cp->extensions.ptr = NULL;
    cp->extensions.len = 0;
    free(note);
    kix_buf_release(&b);
    return rc;
}

static unsigned say(struct kix_buf *out, const char **type, unsigned code, const char *fmt, ...)
    KIX_PRINTF(4, 5);
static unsigned say(struct kix_buf *out, const char **type, unsigned code, const char *fmt, ...)
{
    char line[600];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    kix_buf_reset(out);
    if (kix_buf_addf(out, "%s\n", line) != KIX_OK)
        kix_buf_reset(out);
    *type = "text/plain; charset=utf-8";
    return code;
}

/* "old N\n" with N decimal without leading zeroes; the rest in *next. */
static int parse_old(const char *s, size_t len, uint64_t *old, size_t *next)
{
    size_t i = 4;
    uint64_t v = 0;

    if (len < 6 || memcmp(s, "old ", 4) != 0)
        return -1;
    if (s[i] == '0' && i + 1 < len && s[i + 1] != '\n')
        return -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 4 || i >= len || s[i] != '\n')
        return -1;
    *old = v;
    *next = i + 1;
    return 0;
}

/* 1 when the state file holds the checkpoint text of `note` already. */
static int same_text(const char *path, const struct kix_note *note)
{
    struct kix_buf b = KIX_BUF_INIT;
    int same = 0;

    if (access(path, F_OK) == 0 && kix_file_read(path, STATE_MAX, &b, NULL) == KIX_OK)
        same = b.len > note->text.len && memcmp(b.ptr, note->text.ptr, note->text.len) == 0 &&
               b.ptr[note->text.len] == '\n';
    kix_buf_release(&b);
    return same;
}

/* Under t->mu: cosigns the opened checkpoint, then stores it as the latest
 * of its origin: its text, the log's signatures that verified (not lines of
 * unknown keys, this witness's older ones included), and the new cosignature (what GET /<origin
 * hash>/checkpoint serves). The line is appended to `line` only once the state is durable. The same
 * checkpoint again is cosigned without rewriting the state, so that
 * replaying a valid request costs no fsync. */
static int store_and_cosign(struct kixd_tlogw *t, const char *origin, const struct kix_note *note,
                            struct kix_buf *line, struct kix_err *err)
{
    struct kix_buf state = KIX_BUF_INIT, sig = KIX_BUF_INIT;
    uint64_t now = (uint64_t)time(NULL);
    char path[4400];
    int rc;

    rc = kix_cosign(t->signer, (const char *)note->text.ptr, note->text.len, now > 0 ? now : 1,
                    &sig, err);
    if (rc)
        goto out;
    if (kix_buf_add(&state, note->text.ptr, note->text.len) != KIX_OK ||
        kix_buf_addc(&state, '\n') != KIX_OK)
        goto out_of_memory;
    for (size_t i = 0; i < note->nsigs; i++) {
        const struct kix_note_sig *s = &note->sigs[i];
        if (s->verifier < 0)
            continue; /* only the log's signatures that verified */
        if (kix_buf_add(&state, s->line.ptr, s->line.len) != KIX_OK ||
            kix_buf_addc(&state, '\n') != KIX_OK)
            goto out_of_memory;
    }
    if (kix_buf_add(&state, sig.ptr, sig.len) != KIX_OK)
        goto out_of_memory;
    state_path(t, origin, path, sizeof(path));
    if (same_text(path, note)) {
        kixd_log(KIXD_DEBUG, "witness: %s again at the size it holds: state kept", origin);
    } else {
        rc = kix_dir_make(t->dir, 0700, err);
        if (rc) {
            kix_err_wrap(err, "storing the witness state %s", path);
            goto out;
        }
        rc = kix_file_write_atomic(path, state.ptr, state.len, 0600, err);
        if (rc) {
            kix_err_wrap(err, "storing the witness state %s", path);
            goto out;
        }
    }
    if (kix_buf_add(line, sig.ptr, sig.len) != KIX_OK)
        goto out_of_memory;
    goto out;
out_of_memory:
    rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
out:
    kix_buf_release(&state);
    kix_buf_release(&sig);
    return rc;
}

int kixd_tlogw_monitor(struct kixd_tlogw *t, const char *hex, struct kix_buf *out,
                       struct kix_err *err)
{
    char path[4400];

    for (size_t i = 0; i < 64; i++)
        if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
            return kix_err_set(err, KIX_ENOTFOUND, "not an origin hash");
    snprintf(path, sizeof(path), "%s/%.64s", t->dir, hex);
    if (access(path, F_OK) != 0)
        return kix_err_set(err, KIX_ENOTFOUND, "this witness never cosigned that log");
    return kix_file_read(path, STATE_MAX, out, err);
}

unsigned kixd_tlogw_add_checkpoint(struct kixd_tlogw *t, const char *body, size_t len,
                                   struct kix_buf *out, const char **type)
{
    struct kix_verifier keys[MAX_LOGS];
    struct kix_hash proof[MAX_PROOF_LINES], empty;
    struct kix_checkpoint cp, have;
    struct kix_note *note = NULL;
    struct kix_err err = {0};
    const char *origin, *nl;
    size_t at = 0, nkeys, nproof = 0, olen;
    uint64_t old;
    unsigned code;
    int rc;

    *type = "text/plain; charset=utf-8";
    if (parse_old(body, len, &old, &at) != 0)
        return say(out, type, 400,
                   "the body must begin with \"old <size>\\n\" (c2sp.org/tlog-witness)");
    while (at < len && body[at] != '\n') {
        const char *end = memchr(body + at, '\n', len - at);
        size_t got = 0;
        if (!end)
            return say(out, type, 400, "a proof line does not end in a newline");
        if (nproof == MAX_PROOF_LINES)
            return say(out, type, 400, "more than %d consistency proof lines", MAX_PROOF_LINES);
        if (kix_base64_decode_std(body + at, (size_t)(end - body - (long)at), proof[nproof].b,
                                  sizeof(proof[0].b), &got) != 0 ||
            got != sizeof(proof[0].b))
            return say(out, type, 400, "consistency proof line %zu is not a base64 SHA-256 hash",
                       nproof + 1);
        nproof++;
        at = (size_t)(end - body) + 1;
    }
    if (at >= len)
        return say(out, type, 400, "no blank line before the checkpoint");
    at++;
    origin = body + at;
    nl = memchr(origin, '\n', len - at);
    olen = nl ? (size_t)(nl - origin) : 0;
    if (olen == 0 || olen > KIX_NOTE_NAME_MAX)
        return say(out, type, 400, "the checkpoint has no origin line");
    nkeys = keys_of(t, origin, olen, keys);
    if (nkeys == 0)
        return say(out, type, 404, "this witness does not witness the log %.*s", (int)olen, origin);
    note = malloc(sizeof(*note));
    if (!note)
        return say(out, type, 500, "out of memory");
    rc = kix_checkpoint_open(body + at, len - at, keys, nkeys, NULL, note, &cp, &err);
    if (rc == KIX_OK && (strlen(cp.origin) != olen || memcmp(cp.origin, origin, olen) != 0))
        rc = kix_err_set(&err, KIX_EINVAL, "origin mismatch");
    if (rc) {
        code = say(out, type, rc == KIX_EVERIFY ? 403 : 400, "checkpoint refused: %s",
                   kix_err_text(&err, rc));
        goto done;
    }
    if (old > cp.size) {
        code = say(out, type, 400, "old size %llu is past the checkpoint's size %llu",
                   (unsigned long long)old, (unsigned long long)cp.size);
        goto done;
    }
    kix_merkle_empty_root(&empty);
    pthread_mutex_lock(&t->mu);
    rc = state_load(t, cp.origin, keys, nkeys, &have, &err);
    if (rc) {
        kixd_log(KIXD_ERROR, "witness: %s", kix_err_text(&err, rc));
        code = say(out, type, 500, "the witness cannot read its state (see its log)");
    } else if (refusal_of(t, cp.origin)) {
        /* the log's own proofs may all hold (a lying index note beside an
         * honest tree): what the replica saw decides, as for a fork */
        code = say(out, type, 422, "%s", refusal_of(t, cp.origin));
    } else if (old != have.size) {
        kix_buf_reset(out);
        code = kix_buf_addf(out, "%llu\n", (unsigned long long)have.size) == KIX_OK ? 409 : 500;
        *type = "text/x.tlog.size";
    } else if (cp.size == 0 && (nproof != 0 || memcmp(cp.root, empty.b, 32) != 0)) {
        code = say(out, type, 422, "a checkpoint of size 0 has the empty tree's root and no proof");
    } else if (old == 0 && nproof != 0) {
        code = say(out, type, 422, "old size 0 takes no consistency proof");
    } else if (old == cp.size && (nproof != 0 || memcmp(have.root, cp.root, 32) != 0)) {
        code = say(out, type, 422,
                   "a checkpoint of size %llu with another root than the one this witness "
                   "cosigned: refused (a fork)",
                   (unsigned long long)old);
    } else if (old > 0 && old < cp.size &&
               kix_merkle_verify_consistency(old, cp.size, (const struct kix_hash *)have.root,
                                             (const struct kix_hash *)cp.root, proof, nproof,
                                             &err) != KIX_OK) {
        code = say(out, type, 422,
                   "the consistency proof from size %llu to %llu does not verify against the "
                   "checkpoint this witness cosigned: refused",
                   (unsigned long long)old, (unsigned long long)cp.size);
    } else {
        kix_buf_reset(out);
        rc = store_and_cosign(t, cp.origin, note, out, &err);
        if (rc) {
            kixd_log(KIXD_ERROR, "witness: %s", kix_err_text(&err, rc));
            code = say(out, type, 500, "the witness cannot store its state (see its log)");
        } else {
            code = 200;
            *type = "text/plain; charset=utf-8";
            kixd_log(KIXD_DEBUG, "witness %s cosigned %s at size %llu", t->self.name, cp.origin,
                     (unsigned long long)cp.size);
        }
    }
    pthread_mutex_unlock(&t->mu);
done:
    if (code != 200 && code != 409)
        kixd_log(KIXD_INFO, "witness: add-checkpoint for %.*s refused (%u): %.*s", (int)olen,
                 origin, code, (int)(out->len > 0 ? out->len - 1 : 0), (const char *)out->ptr);
    free(note);
    return code;
}

int kixd_tlogw_cosign_verified(struct kixd_tlogw *t, struct kix_log_reader *r, const char *note,
                               size_t len, struct kix_buf *line, struct kix_err *err)
{
    const struct kix_verifier *v = kix_log_reader_verifier(r);
    struct kix_checkpoint cp, have;
    struct kix_note *opened = malloc(sizeof(*opened));
    struct kix_hash root;
    int rc;

    if (!opened)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = kix_checkpoint_open(note, len, v, 1, kix_log_reader_origin(r), opened, &cp, err);
    if (rc)
        goto out_free;
    pthread_mutex_lock(&t->mu);
    if (refusal_of(t, cp.origin)) {
        rc = kix_err_set(err, KIX_EFORK, "%s", refusal_of(t, cp.origin));
        goto out_unlock;
    }
    rc = state_load(t, cp.origin, v, 1, &have, err);
    if (rc)
        goto out_unlock;
    if (have.size > cp.size) {
        rc = kix_err_set(err, KIX_EEXIST, "the witness already cosigned size %llu",
                         (unsigned long long)have.size);
        goto out_unlock;
    }
    if (have.size > 0) {
        rc = kix_log_reader_root(r, have.size, &root, err);
        if (rc)
            goto out_unlock;
        if (memcmp(root.b, have.root, 32) != 0) {
            rc = kix_err_set(err, KIX_EFORK,
                             "the witness cosigned a checkpoint of size %llu whose root is not "
                             "the verified replica's: it will not cosign this log further",
                             (unsigned long long)have.size);
            goto out_unlock;
        }
    }
    rc = store_and_cosign(t, cp.origin, opened, line, err);
out_unlock:
    pthread_mutex_unlock(&t->mu);
out_free:
    free(opened);
    return rc;
}
