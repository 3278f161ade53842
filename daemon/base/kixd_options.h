/* kixd's subcommands read their options from one table each
 * (kix/cmdline.h); this is how kixd reports what is wrong with them. */
#ifndef KIXD_OPTIONS_H
#define KIXD_OPTIONS_H

#include "kix/cmdline.h"
#include "kix/error.h"

/* Reads cmd's options from argv. Returns -1 to go on (the operands at
 * argv[optind..], ID options handed to on_id, which returns -1 to go on or
 * an exit status), 0 after --help or --dump-options, 2 after a usage error
 * it printed ("kixd init: unknown option '--x'" and "Try 'kixd init --help'."). */
int kixd_options(const struct kix_cmd *cmd, int argc, char **argv,
                 int (*on_id)(void *ctx, const struct kix_opt *o, const char *value), void *ctx);
/* kixd_options for a command on one store and no operand: also a usage
 * error (2) unless *store was given. -1 to go on, else the exit status. */
int kixd_store_options(const struct kix_cmd *cmd, int argc, char **argv, const char *const *store);
/* "PROG: message\nTry 'PROG --help'.\n" on stderr; returns 2. */
int kixd_usage(const struct kix_cmd *cmd, const char *fmt, ...) KIX_PRINTF(2, 3);

#endif
