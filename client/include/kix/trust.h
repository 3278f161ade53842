/* kix/trust.h — what this client remembers about each log it verified.
 *
 * Per log (origin and key), kix keeps the newest checkpoint it verified, in
 * $XDG_STATE_HOME/kix/logs/<origin>+<keyhash>/checkpoint (default
 * ~/.local/state),
 * written atomically, with the address that presented it in .../checkpoint.from.
 * Every later contact must prove consistency with it: a newer checkpoint
 * needs a valid consistency proof from the server, an equal size needs the
 * same root; a newer one whose consistency proof the server will not give
 * ("cannot prove consistency") is not remembered. A smaller size is a copy
 * that lags (a mirror, a CDN, an export: "stale", KIX_ESTALE, exit 5, or
 * an answer as of its size through kix_trust_check_read), unless a
 * consistency proof from it to the remembered size fails, which proves a
 * fork. An inconsistency is KIX_EFORK (exit 4), the alarm: both signed checkpoints (the unproven
 * one included) and the reason are kept as evidence in .../evidence/ as
 * STAMP-remembered.checkpoint, STAMP-presented.checkpoint and
 * STAMP-alarm.txt, and the message says where.
 * KIX_STATE_DIR overrides the state directory (tests).
 */
#ifndef KIX_TRUST_H
#define KIX_TRUST_H

#include "kix/api.h"

#include "kix/client.h"
#include "kix/note.h"

/* A log's one directory name, <origin>+<key hash as 8 hex digits> (a '/'
 * of the origin read as '_'), shared by its state directory and the HTTP
 * source's cache: KIX_EINVAL when it does not fit cap. */
KIX_API int kix_trust_log_name(const struct kix_verifier *key, char *out, size_t cap);
/* The state directory of a log (created on demand). */
KIX_API int kix_trust_dir(const struct kix_verifier *key, char *out, size_t cap,
                          struct kix_err *err) KIX_MUST_CHECK;

/* Evidence of an alarm: a file's name (no '/') and content. */
struct kix_alarm_item {
    const char *name;
    const void *ptr;
    size_t len;
};

/* The alarm about something that contradicts what a client holds signed (a
 * citation's checkpoint, say): keeps each item as STAMP-NAME, and `what` as
 * STAMP-alarm.txt, in the log's evidence directory, and returns KIX_EFORK
 * with a message saying what and where (or that saving failed). */
KIX_API int kix_trust_alarm(const struct kix_verifier *key, const struct kix_alarm_item *items,
                            size_t n, const char *what, struct kix_err *err) KIX_MUST_CHECK;

/* Verifies `note` (a signed checkpoint from `c`) against key, checks it is
 * consistent with the remembered one (fetching a consistency proof from c
 * when it is newer), and remembers it when it is newer. cp_out (may be
 * NULL) gets the parsed checkpoint (its extensions view points into note).
 * An older one is KIX_ESTALE naming both sizes (kix_trust_check_read says
 * how it is proven a prefix), or KIX_EFORK when proven not a prefix. */
KIX_API int kix_trust_check(struct kix_client *c, const struct kix_verifier *key, const char *note,
                            size_t len, struct kix_checkpoint *cp_out,
                            struct kix_err *err) KIX_MUST_CHECK;

/* kix_trust_check of a checkpoint the caller asked for by size, which may
 * be older than the remembered one: then c must prove the remembered one
 * extends it (KIX_EFORK with both kept as evidence when it does not). A
 * newer or equal one is checked as kix_trust_check does. */
KIX_API int kix_trust_check_past(struct kix_client *c, const struct kix_verifier *key,
                                 const char *note, size_t len, struct kix_checkpoint *cp_out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* kix_trust_check for a status look at a server that may lag behind what
 * this client verified (a mirror): an older checkpoint is accepted as
 * stale, unproven (the server cannot prove a size it does not have); a
 * fork at the same or a larger size is still KIX_EFORK. */
KIX_API int kix_trust_check_status(struct kix_client *c, const struct kix_verifier *key,
                                   const char *note, size_t len, struct kix_checkpoint *cp_out,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* ---- a copy that lags ----------------------------------------------------
 *
 * A reader may meet a copy of the log (a mirror, a CDN, an export) whose
 * latest checkpoint is older than the one it verified before. That is a
 * stale copy, not an attack, when its tree is a prefix of the remembered
 * one. The prefix is proven by a consistency proof from its size to the
 * remembered size, asked of the copy itself, then of the address that
 * presented the remembered checkpoint (checkpoint.from), then of `provers`
 * (a permalink's own log, say). A proof that does not verify proves a fork
 * (KIX_EFORK, with evidence); none to be had leaves it unproven. */
struct kix_trust_read {
    const char *const *provers; /* more addresses that may prove the prefix */
    size_t nprovers;
    const struct kix_http_opts *http; /* for http(s):// provers (NULL: defaults) */
};

struct kix_trust_stale {
    int stale;           /* 1: the checkpoint is older than the remembered one */
    int proven;          /* 1: proven a prefix of it, by `by` */
    uint64_t size;       /* the checkpoint's size */
    uint64_t remembered; /* the size this client verified before */
    char by[768];        /* proven: who proved it; else why no one could */
};

/* kix_trust_check, but an older checkpoint that is not proven a fork is
 * KIX_OK with *stale filled (stale->stale 1; 0 otherwise): the caller
 * answers as of its size and says so. Nothing is remembered then. The
 * result for one checkpoint is kept for the process: later checks of the
 * same size and root ask no one again. */
KIX_API int kix_trust_check_read(struct kix_client *c, const struct kix_verifier *key,
                                 const char *note, size_t len, const struct kix_trust_read *opts,
                                 struct kix_trust_stale *stale, struct kix_checkpoint *cp_out,
                                 struct kix_err *err) KIX_MUST_CHECK;

/* Fetches the latest checkpoint from c and kix_trust_check()s it; the note
 * is appended to `note`. */
KIX_API int kix_trust_latest(struct kix_client *c, const struct kix_verifier *key,
                             struct kix_buf *note, struct kix_checkpoint *cp_out,
                             struct kix_err *err) KIX_MUST_CHECK;

/* ---- runs this client saw ------------------------------------------------
 *
 * A run whose record this client verified stays published: the index is
 * derived from the log, which only grows. kix keeps, per log, the runs it
 * resolved (.../runs/<runId>: the log index of the publication), so that a
 * server that later proves a run absent (with an index it signed over a
 * lie, at a checkpoint consistent with the remembered one) is caught. */
KIX_API int kix_trust_run_seen(const struct kix_verifier *key, const char *run_id, uint64_t index,
                               struct kix_err *err) KIX_MUST_CHECK;
/* Call after an absence of run_id was proven at the signed checkpoint
 * `note` of tree size `size`: KIX_EFORK, with the checkpoint and what was
 * remembered kept as evidence, when this client saw the run published at an
 * index below size; else KIX_OK. */
KIX_API int kix_trust_run_denied(const struct kix_verifier *key, const char *run_id,
                                 const char *note, size_t len, uint64_t size,
                                 struct kix_err *err) KIX_MUST_CHECK;
/* Call when `where` (a server) says there is no run run_id and its absence
 * could not be proven (`why`): KIX_EFORK, with the remembered checkpoint,
 * the server's latest signed checkpoint `note` (may be NULL) and what was
 * remembered of the run kept as evidence, when this client saw the run
 * published (it is in the remembered tree, which the server's latest
 * checkpoint must have been proven to extend); else KIX_OK. */
KIX_API int kix_trust_run_unproven(const struct kix_verifier *key, const char *run_id,
                                   const char *note, size_t len, const char *where, const char *why,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* ---- the log key ----------------------------------------------------------
 *
 * Every client finds the key it verifies a log against in one order (kix
 * and kix-import-liger alike): `given` (the --log-key option, NULL when
 * absent), else $KIX_LOG_KEY, each the name of a file holding the key or the
 * key text itself; else "log-key = KEY" in $XDG_CONFIG_HOME/kix/config
 * (default ~/.config/kix/config); else, when `store` is a client of a log on
 * this machine (NULL for a server), that store's own key (as trusted as the
 * files themselves). An empty option or variable, or no key anywhere, is
 * KIX_EUSAGE with a message naming the three ways to give one; a key that
 * does not parse is the parser's code, the message naming where it came
 * from. */
KIX_API int kix_trust_log_key(const char *given, struct kix_client *store, struct kix_verifier *out,
                              struct kix_err *err) KIX_MUST_CHECK;

/* 1 when --log-key (`given`), $KIX_LOG_KEY or the config file names a log
 * key (not checked), else 0. */
KIX_API int kix_trust_log_key_given(const char *given);

/* A verifier key given as a file name or as the key text itself; `kind`
 * ("log", "witness") and `option` name it in messages. */
KIX_API int kix_trust_key_arg(const char *arg, const char *kind, const char *option,
                              struct kix_verifier *out, struct kix_err *err) KIX_MUST_CHECK;

/* ---- witnesses ------------------------------------------------------------
 *
 * A client may also require that independent witnesses (mirrors started with
 * --witness-key) cosigned a checkpoint before it believes it: a log that
 * shows different views to different clients then needs its witnesses to
 * collude. Witness keys are KIX_NOTE_ALG_COSIGN verifier keys. */

#define KIX_WITNESSES_MAX 32

struct kix_witness_policy {
    const struct kix_verifier *keys; /* the witnesses trusted */
    size_t nkeys;
    size_t min; /* cosignatures required from distinct keys of `keys` */
    /* freshness: when non-zero, the newest cosignature by one of `keys`
     * must be at most this many seconds old (its tlog-cosignature
     * timestamp), else KIX_ESTALE */
    uint64_t max_age;
};

/* Opens `note` (a signed checkpoint) with the log key and the policy's
 * witness keys, and counts the witnesses whose cosignature verifies.
 * *found (may be NULL) gets the count. Fewer than policy->min is KIX_EVERIFY
 * "the checkpoint at size N has K of the M witness cosignatures required
 * ..."; a bad signature by a known key is KIX_EVERIFY too; a witness key
 * that is not a cosignature key is KIX_EINVAL. A NULL policy or min 0 with
 * no keys checks the log signature only. With policy->max_age, a newest
 * verified witness cosignature older than that (or none) is KIX_ESTALE
 * naming its time. */
KIX_API int kix_witness_check(const char *note, size_t len, const struct kix_verifier *log_key,
                              const struct kix_witness_policy *policy, size_t *found,
                              struct kix_err *err) KIX_MUST_CHECK;

/* The same count for an index note (PROTOCOL.md §4.3), whose cosignatures
 * only witnesses that recomputed the index make (kix mirrors with
 * --witness-key): so a log that shows two index roots at one size needs
 * its witnesses to collude, as for two checkpoints. KIX_OK at once when the
 * policy requires none; KIX_EVERIFY when fewer than policy->min verify, or
 * a known witness's line does not verify over this text. */
KIX_API int kix_witness_check_index(const char *note, size_t len,
                                    const struct kix_verifier *log_key,
                                    const struct kix_witness_policy *policy, size_t *found,
                                    struct kix_err *err) KIX_MUST_CHECK;

/* kix_witness_check, then kix_trust_check. */
KIX_API int kix_trust_check_witnessed(struct kix_client *c, const struct kix_verifier *key,
                                      const struct kix_witness_policy *policy, const char *note,
                                      size_t len, struct kix_checkpoint *cp_out,
                                      struct kix_err *err) KIX_MUST_CHECK;

#endif
