/* Shared plumbing of the kix commands: input files, error reporting. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int cli_read_file(const char *path, size_t max, struct kix_buf *out, struct kix_err *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    const char *name = f == stdin ? "standard input" : path;
    int rc = KIX_OK;

    if (!f)
        return kix_err_set(err, errno == ENOENT ? KIX_ENOTFOUND : KIX_EIO, "cannot open %s: %s",
                           path, strerror(errno));
    for (;;) {
        size_t n;
        rc = kix_buf_grow(out, 65536);
        if (rc) {
            kix_err_set(err, rc, "reading %s: out of memory", name);
            break;
        }
        n = fread(out->ptr + out->len, 1, 65536, f);
        out->len += n;
        out->ptr[out->len] = '\0';
        if (out->len > max) {
            rc =
                kix_err_set(err, KIX_ELIMIT, "%s is larger than the limit of %zu bytes", name, max);
            break;
        }
        if (n < 65536) {
            if (ferror(f))
                rc = kix_err_set(err, KIX_EIO, "reading %s: %s", name, strerror(errno));
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    return rc;
}

int cli_fail(const char *cmd, int code, const struct kix_err *err)
{
    fprintf(stderr, "kix %s: %s\n", cmd, kix_err_text(err, code));
    return kix_err_exit_status(code);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "kix %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'kix %s --help'.\n", cmd);
    return EXIT_USAGE;
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
