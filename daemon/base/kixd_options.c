/* kixd's usage errors for the option tables (kixd_options.h). */
#include "kixd_options.h"

#include <stdarg.h>
#include <unistd.h>

int kixd_usage(const struct kix_cmd *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", cmd->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", cmd->prog);
    return 2;
}

int kixd_options(const struct kix_cmd *cmd, int argc, char **argv,
                 int (*on_id)(void *ctx, const struct kix_opt *o, const char *value), void *ctx)
{
    struct kix_cmdline p;
    enum kix_cmdline_status st;
    char why[256];

    kix_cmdline_start(&p, cmd, argc, argv);
    while ((st = kix_cmdline_next(&p)) != KIX_CMDLINE_END) {
        int status;
        switch (st) {
        case KIX_CMDLINE_HELP:
        case KIX_CMDLINE_DUMP:
            return 0;
        case KIX_CMDLINE_OPTION:
            if (on_id && (status = on_id(ctx, p.opt, p.value)) >= 0)
                return status;
            break;
        default:
            kix_cmdline_explain(&p, st, why, sizeof(why));
            return kixd_usage(cmd, "%s", why);
        }
    }
    return -1;
}

int kixd_store_options(const struct kix_cmd *cmd, int argc, char **argv, const char *const *store)
{
    int status = kixd_options(cmd, argc, argv, NULL, NULL);

    if (status >= 0)
        return status;
    if (!*store || optind != argc)
        return kixd_usage(cmd, "--store DIR is required, and nothing else");
    return -1;
}
