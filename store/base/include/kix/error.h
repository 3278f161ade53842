/* kix/error.h — one error table for every kix module.
 *
 * Every fallible kix function returns an int: KIX_OK (0) or one of the
 * negative KIX_E* codes below. Where a caller wants the reason in words it
 * passes a `struct kix_err *` (may be NULL); the callee fills `msg` with a
 * lowercase sentence that says what failed, with what, and what to do.
 * Codes of LMDB, libsodium, msgpack-c and libuv are translated at the module
 * edge and never leak through this table.
 *
 * The CLI maps codes to exit statuses with kix_err_exit_status():
 * 0 ok, 1 rejected input (the user's data or a verification failed),
 * 2 usage, 3 internal or I/O error, 4 the log is inconsistent with what this
 * client verified before (a fork or rollback; evidence kept).
 */
#ifndef KIX_ERROR_H
#define KIX_ERROR_H

#include "kix/api.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define KIX_MUST_CHECK   __attribute__((warn_unused_result))
#define KIX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KIX_MUST_CHECK
#define KIX_PRINTF(f, a)
#endif

/* X(NAME, value, exit status, default message) */
#define KIX_ERR_MAP(X)                                                                             \
    X(OK, 0, 0, "ok")                                                                              \
    X(ENOMEM, -1, 3, "out of memory")                                                              \
    X(EINVAL, -2, 1, "invalid input")                                                              \
    X(EIO, -3, 3, "i/o error")                                                                     \
    X(ENOTFOUND, -4, 1, "not found")                                                               \
    X(EFULL, -5, 3, "store is full")                                                               \
    X(ECORRUPT, -6, 3, "store is corrupt")                                                         \
    X(EVERIFY, -7, 1, "verification failed")                                                       \
    X(EPOLICY, -8, 1, "refused by log policy")                                                     \
    X(ELIMIT, -9, 1, "limit exceeded")                                                             \
    X(EPROTO, -10, 3, "protocol error")                                                            \
    X(EUSAGE, -11, 2, "usage error")                                                               \
    X(EUNAVAIL, -12, 3, "service unavailable")                                                     \
    X(EREADONLY, -13, 1, "read-only")                                                              \
    X(EFORK, -14, 4, "inconsistent log (fork or rollback)")                                        \
    X(EEXIST, -15, 1, "already exists")                                                            \
    X(ENOTSUP, -16, 1, "not supported")                                                            \
    X(ESTALE, -17, 5, "stale copy of the log")

enum kix_err_code {
#define KIX__ERR_ENUM(name, value, exit_status, text) KIX_##name = value,
    KIX_ERR_MAP(KIX__ERR_ENUM)
#undef KIX__ERR_ENUM
};

#define KIX_ERR_MSG_MAX 512

/* What an error is about, for callers that act on it. A caller reads these
 * fields, never the message text. */
enum kix_err_cause {
    KIX_CAUSE_NONE = 0,
    /* entry `entry` of a batch or log was refused or is at fault (code says how) */
    KIX_CAUSE_ENTRY,
    /* the entries up to tree size `size` do not hash to the root signed for
     * that size: a fork, or entries rewritten after signing */
    KIX_CAUSE_ROOT_MISMATCH,
    /* the upstream's signed index note at `size` is not the index its
     * entries make (a log that signs a lie about runs or groups) */
    KIX_CAUSE_INDEX_MISMATCH,
    /* a log opened to append has no log key (DIR/log.key): it is a replica */
    KIX_CAUSE_NO_LOG_KEY,
    /* line `entry` of an input file (a CSV row, ...) is at fault */
    KIX_CAUSE_LINE,
};

struct kix_err {
    int code;
    char msg[KIX_ERR_MSG_MAX];
    int cause;      /* enum kix_err_cause; KIX_CAUSE_NONE unless set by kix_err_cause */
    uint64_t entry; /* KIX_CAUSE_ENTRY: the log index; KIX_CAUSE_LINE: the line */
    uint64_t size;  /* KIX_CAUSE_ROOT_MISMATCH, _INDEX_MISMATCH: the tree size */
};

/* Sets err (if not NULL) to code and a formatted message, and clears its
 * cause; returns code so callers can write
 * `return kix_err_set(err, KIX_EINVAL, "...")`. */
KIX_API int kix_err_set(struct kix_err *err, int code, const char *fmt, ...) KIX_PRINTF(3, 4);

/* Records what the error held in err is about (err may be NULL); returns
 * err->code (KIX_EINVAL when err is NULL), like kix_err_wrap. Wrapping
 * keeps the cause. */
KIX_API int kix_err_cause(struct kix_err *err, int cause, uint64_t entry, uint64_t size);

/* Prefixes an existing message with context ("reading run.json: ").
 * Returns err->code, or KIX_EINVAL when err is NULL (err is optional, so
 * the code may be unknown here): on a failure path keep the code you hold,
 * `if (rc) { kix_err_wrap(err, "..."); return rc; }`, rather than
 * `return kix_err_wrap(...)`. */
KIX_API int kix_err_wrap(struct kix_err *err, const char *fmt, ...) KIX_PRINTF(2, 3);

KIX_API void kix_err_clear(struct kix_err *err);

/* Static strings: "EINVAL", "invalid input"; "unknown" for a foreign code. */
KIX_API const char *kix_err_name(int code);
KIX_API const char *kix_strerror(int code);
/* The code as one camelCase word for programs ("refusedByPolicy",
 * "invalidInput", ...; "internal" for an unknown code): the `code` member
 * of the JSON error objects kix --json prints and kixd's HTTP writes answer. */
KIX_API const char *kix_err_word(int code);

/* The CLI exit status of a code (see the table above). */
KIX_API int kix_err_exit_status(int code);

/* The message to show: err->msg when set, else kix_strerror(code). */
KIX_API const char *kix_err_text(const struct kix_err *err, int code);

#endif
