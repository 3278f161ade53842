/* kix/config.h — the client's config file: $XDG_CONFIG_HOME/kix/config
 * (default ~/.config/kix/config), "key = value" lines and # comments.
 *
 *   server         = ADDR   the log when no --server or $KIX_SERVER is given
 *   log-key        = KEY    its verifier key (text or file) after --log-key
 *                           and $KIX_LOG_KEY
 *   witness        = KEY    a witness key (text or file); repeatable
 *   min-witnesses  = N      how many of them must cosign a checkpoint
 *   witness-policy = FILE   the witnesses and quorum in a file of their own,
 *                           to share (as sigsum's policy file): lines
 *                           "witness KEY" and "quorum N", # comments; a
 *                           relative FILE is beside the config file
 *
 * The command line wins: with --witness or --min-witnesses the config's
 * witnesses are not used. A line that is not one of these is not ignored
 * silently: it is a warning (with the nearest key, "did you mean"), and the
 * rest of the file still applies.
 *
 * Memory: struct kix_config is the caller's, filled in place; nothing to
 * free. Errors: KIX_OK also when there is no file; KIX_EUSAGE a value too
 * long, a bad min-witnesses or quorum, a policy file that cannot be read
 * (err names file and line).
 */
#ifndef KIX_CONFIG_H
#define KIX_CONFIG_H

#include "kix/api.h"

#include <stddef.h>

#include "kix/error.h"

#define KIX_CONFIG_WITNESSES 32

struct kix_config {
    char path[4096]; /* the file read ("" when none was found) */
    char server[1024];
    char log_key[2048];
    char witness[KIX_CONFIG_WITNESSES][2048];
    size_t nwitness;
    char min_witnesses[32]; /* "" when not set */
};

/* Called once per warning: "FILE:LINE: unknown setting 'x' (did you mean 'y'?)". */
typedef void (*kix_config_warn_fn)(void *ctx, const char *message);

/* Reads the config file (and its witness policy) into cfg. warn may be NULL. */
KIX_API int kix_config_load(struct kix_config *cfg, kix_config_warn_fn warn, void *ctx,
                            struct kix_err *err) KIX_MUST_CHECK;

#endif
