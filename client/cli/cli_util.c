/* Shared plumbing of the kix commands: error reporting, in prose on stderr
 * and, under --json, as one object on stdout (docs/REFERENCE.md, "Output for
 * scripts"). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

struct cli_common cli_global;
int cli_json_errors;

/* The machine code of a KIX_E* code: the error table's name in camelCase. */
static const char *cause_word(int cause)
{
    switch (cause) {
    case KIX_CAUSE_ENTRY:
        return "entry";
    case KIX_CAUSE_ROOT_MISMATCH:
        return "rootMismatch";
    case KIX_CAUSE_INDEX_MISMATCH:
        return "indexMismatch";
    case KIX_CAUSE_NO_LOG_KEY:
        return "noLogKey";
    case KIX_CAUSE_LINE:
        return "line";
    }
    return NULL;
}

int cli_report(const char *cmd, int status, const struct cli_error *e)
{
    json_t *o, *x;

    fprintf(stderr, "kix%s%s: %s\n", *cmd ? " " : "", cmd, e->message);
    if (e->hint)
        fprintf(stderr, "%s\n", e->hint);
    if (!cli_json_errors)
        return status;
    fflush(stdout);
    /* {"error": {code, exitCode, command, message, cause, fix, data's members}} */
    o = json_pack("{s:s,s:i}", "code", e->code, "exitCode", status);
    if (o && *cmd)
        json_object_set_new(o, "command", json_string(cmd));
    if (o && e->message)
        json_object_set_new(o, "message", json_string(e->message));
    if (o && e->cause)
        json_object_set_new(o, "cause", json_string(e->cause));
    if (o && e->fix)
        json_object_set_new(o, "fix", json_string(e->fix));
    if (o && e->data)
        json_object_update(o, e->data);
    x = o ? json_pack("{s:o}", "error", o) : NULL;
    if (kix_doc_print(x, 0, stdout) != KIX_OK)
        fprintf(stderr, "kix: out of memory writing the error object\n");
    json_decref(x);
    fflush(stdout);
    return status;
}

/* What to do about a checkpoint signed by another key than the log key. */
#define KEY_MISMATCH_FIX                                                                           \
    "give this log's key with --log-key (else $KIX_LOG_KEY, else log-key in "                      \
    "~/.config/kix/config); 'kix trust ADDR' prints the key the server signs with"

/* The code of the last failure reported (cli_stale_status reads it). */
int cli_last_code;

int cli_fail_with(const char *cmd, int code, const struct kix_err *err, const char *fix,
                  json_t *data)
{
    cli_last_code = code;
    if (code == KIX_EVERIFY && cli_key_mismatch() && !fix && !data) {
        struct cli_error e = {"keyMismatch",
                              kix_err_text(err, code),
                              kix_strerror(code),
                              KEY_MISMATCH_FIX,
                              "Is --log-key (else $KIX_LOG_KEY, else log-key in "
                              "~/.config/kix/config) this log's key? 'kix trust ADDR' prints the "
                              "key the server signs with.",
                              cli_key_mismatch()};
        return cli_report(cmd, kix_err_exit_status(code), &e);
    }
    struct cli_error e = {
        kix_err_word(code), kix_err_text(err, code), kix_strerror(code), fix, NULL, data};
    int cause = err ? err->cause : KIX_CAUSE_NONE;
    json_t *members = json_object();
    int status;

    /* the cause's members, then the caller's */
    if (members && cause_word(cause)) {
        json_object_set_new(members, "reason", json_string(cause_word(cause)));
        if (cause == KIX_CAUSE_LINE)
            json_object_set_new(members, "line", json_integer((json_int_t)err->entry));
        else if (cause == KIX_CAUSE_ENTRY)
            json_object_set_new(members, "entry", json_integer((json_int_t)err->entry));
        else if (cause == KIX_CAUSE_ROOT_MISMATCH || cause == KIX_CAUSE_INDEX_MISMATCH)
            json_object_set_new(members, "size", json_integer((json_int_t)err->size));
    }
    if (members && data)
        json_object_update(members, data);
    e.data = members && json_object_size(members) ? members : NULL;
    status = cli_report(cmd, kix_err_exit_status(code), &e);
    json_decref(members);
    return status;
}

int cli_doc(const char *cmd, json_t *doc, int json, void (*text)(const json_t *doc, FILE *out))
{
    int rc = doc ? KIX_OK : KIX_ENOMEM;

    if (rc == KIX_OK && json)
        rc = kix_doc_print(doc, 0, stdout);
    else if (rc == KIX_OK && text)
        text(doc, stdout);
    else if (rc == KIX_OK)
        rc = kix_doc_print(doc, 0, stdout);
    json_decref(doc);
    return rc ? cli_fail(cmd, rc, NULL) : 0;
}

int cli_fail(const char *cmd, int code, const struct kix_err *err)
{
    return cli_fail_with(cmd, code, err, NULL, NULL);
}

/* A usage error: its message, a pointer to --help, the code and data. */
static int usage_report(const char *cmd, const char *code, json_t *data, const char *fmt,
                        va_list ap) KIX_PRINTF(4, 0);
static int usage_report(const char *cmd, const char *code, json_t *data, const char *fmt,
                        va_list ap)
{
    char message[1024], hint[256], fix[256];
    struct cli_error e = {code, message, "usage error", fix, hint, data};

    vsnprintf(message, sizeof(message), fmt, ap);
    snprintf(hint, sizeof(hint), "Try 'kix%s%s --help'.", *cmd ? " " : "", cmd);
    snprintf(fix, sizeof(fix), "see 'kix%s%s --help'", *cmd ? " " : "", cmd);
    return cli_report(cmd, EXIT_USAGE, &e);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    int status;
    va_start(ap, fmt);
    status = usage_report(cmd, "usage", NULL, fmt, ap);
    va_end(ap);
    return status;
}

int cli_usage_error_data(const char *cmd, const char *code, json_t *data, const char *fmt, ...)
{
    va_list ap;
    int status;
    va_start(ap, fmt);
    status = usage_report(cmd, code, data, fmt, ap);
    va_end(ap);
    return status;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int cli_global_check(const char *cmd, unsigned takes)
{
    const char *extra = NULL;

    if (cli_global.store && !(takes & CLI_TAKES_STORE))
        extra = "--store";
    else if (cli_global.server && !(takes & CLI_TAKES_SERVER))
        extra = "--server";
    else if (cli_global.log_key)
        extra = "--log-key";
    else if (cli_global.nwitness)
        extra = "--witness";
    else if (cli_global.min_witnesses)
        extra = "--min-witnesses";
    else if (cli_global.cacert && !(takes & CLI_TAKES_SERVER)) /* a server may be https:// */
        extra = "--cacert";
    else if (cli_global.max_age)
        extra = "--max-age";
    if (!extra)
        return 0;
    return cli_usage_error(cmd, "option %s does not apply to kix %s", extra, cmd);
}
