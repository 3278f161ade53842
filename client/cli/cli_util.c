/* Shared plumbing of the kix commands: input files, error reporting. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int cli_fail(const char *cmd, int code, const struct kix_err *err)
{
    fprintf(stderr, "kix %s: %s\n", cmd, kix_err_text(err, code));
    return kix_err_exit_status(code);
}

void cli_print_help(FILE *f, const char *help)
{
    fputs(help, f);
    if (!strstr(help, "exit status:"))
        fprintf(f, "\n%s", CLI_EXIT_HELP);
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
