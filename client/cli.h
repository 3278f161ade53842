/* client/cli.h — shared plumbing of the kix commands (not a library API).
 *
 * Each command is `int cmd_NAME(int argc, char **argv)` returning a process
 * exit status: 0 ok, 1 rejected input or failed verification, 2 usage,
 * 3 internal or I/O error (see kix/error.h). Commands print results on
 * stdout and errors on stderr as "kix NAME: message".
 */
#ifndef KIX_CLI_H
#define KIX_CLI_H

#include <stdio.h>

#include "kix/buf.h"
#include "kix/error.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE    2
#define EXIT_INTERNAL 3

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

/* Reads a whole file ("-" = stdin) into out, refusing more than max bytes. */
int cli_read_file(const char *path, size_t max, struct kix_buf *out, struct kix_err *err);

/* Prints "kix CMD: message" for an error and returns its exit status. */
int cli_fail(const char *cmd, int code, const struct kix_err *err);

/* Prints a usage error and a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) KIX_PRINTF(2, 3);

/* True when argv holds -h or --help (before any "--"). */
int cli_wants_help(int argc, char **argv);

int cmd_canon(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_store(int argc, char **argv);

#endif
