/* The error table's lookups and message formatting. */
#include "kix/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kix_err_set(struct kix_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->cause = KIX_CAUSE_NONE;
        err->entry = 0;
        err->size = 0;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int kix_err_wrap(struct kix_err *err, const char *fmt, ...)
{
    char old[KIX_ERR_MSG_MAX];
    size_t n;
    va_list ap;

    if (!err)
        return KIX_EINVAL; /* the code is unknown here, but never success */
    if (!err->msg[0])
        snprintf(err->msg, sizeof(err->msg), "%s", kix_strerror(err->code));
    memcpy(old, err->msg, sizeof(old));
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    /* Truncation is fine: the start of the message carries the context. */
    n = strlen(err->msg);
    for (const char *p = ": "; *p && n + 1 < sizeof(err->msg); p++)
        err->msg[n++] = *p;
    for (size_t i = 0; old[i] && n + 1 < sizeof(err->msg); i++)
        err->msg[n++] = old[i];
    err->msg[n] = '\0';
    return err->code;
}

int kix_err_cause(struct kix_err *err, int cause, uint64_t entry, uint64_t size)
{
    if (!err)
        return KIX_EINVAL;
    err->cause = cause;
    err->entry = entry;
    err->size = size;
    return err->code;
}

void kix_err_clear(struct kix_err *err)
{
    if (err) {
        err->code = KIX_OK;
        err->msg[0] = '\0';
        err->cause = KIX_CAUSE_NONE;
        err->entry = 0;
        err->size = 0;
    }
}

const char *kix_err_name(int code)
{
    switch (code) {
#define KIX__ERR_NAME(name, value, exit_status, text)                                              \
    case value:                                                                                    \
        return #name;
        KIX_ERR_MAP(KIX__ERR_NAME)
#undef KIX__ERR_NAME
    }
    return "unknown";
}

const char *kix_err_word(int code)
{
    switch (code) {
    case KIX_ENOMEM:
        return "outOfMemory";
    case KIX_EINVAL:
        return "invalidInput";
    case KIX_EIO:
        return "io";
    case KIX_ENOTFOUND:
        return "notFound";
    case KIX_EFULL:
        return "storeFull";
    case KIX_ECORRUPT:
        return "storeCorrupt";
    case KIX_EVERIFY:
        return "verificationFailed";
    case KIX_EPOLICY:
        return "refusedByPolicy";
    case KIX_ELIMIT:
        return "limitExceeded";
    case KIX_EPROTO:
        return "protocol";
    case KIX_EUSAGE:
        return "usage";
    case KIX_EUNAVAIL:
        return "unavailable";
    case KIX_EREADONLY:
        return "readOnly";
    case KIX_EFORK:
        return "inconsistentLog";
    case KIX_EEXIST:
        return "alreadyExists";
    case KIX_ENOTSUP:
        return "notSupported";
    case KIX_ESTALE:
        return "staleCopy";
    }
    return "internal";
}

const char *kix_strerror(int code)
{
    switch (code) {
#define KIX__ERR_TEXT(name, value, exit_status, text)                                              \
    case value:                                                                                    \
        return text;
        KIX_ERR_MAP(KIX__ERR_TEXT)
#undef KIX__ERR_TEXT
    }
    return "unknown error";
}

int kix_err_exit_status(int code)
{
    switch (code) {
#define KIX__ERR_EXIT(name, value, exit_status, text)                                              \
    case value:                                                                                    \
        return exit_status;
        KIX_ERR_MAP(KIX__ERR_EXIT)
#undef KIX__ERR_EXIT
    }
    return 3;
}

const char *kix_err_text(const struct kix_err *err, int code)
{
    if (err && err->msg[0])
        return err->msg;
    return kix_strerror(code);
}
