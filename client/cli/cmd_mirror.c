/* kix mirror status: how far a mirror (kixd --mirror-of) is behind its
 * upstream, what went wrong last, and whether it found a fork. */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"

static const struct kix_opt mirror_opts[] = {
    KIX_NOTE("\n"
             "Reports a mirror's state as it gives it (kixd serve --mirror-of): the\n"
             "origin, its size, the upstream address and size, how far behind it is in\n"
             "entries and in seconds since it last synced, the last error (a failed sync,\n"
             "or else the upstream's refusal of this witness's last cosignature), and whether it\n"
             "found the upstream forked or rolled back (then it has stopped following and\n"
             "kept both signed checkpoints as evidence). A local replica store has no\n"
             "upstream state to report.\n"
             "\n"
             "exit status: 0 ok, 1 not a mirror, 2 usage, 3 cannot reach it, 4 the mirror\n"
             "found a fork\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd mirror_cmd = {
    .prog = "kix mirror", .usage = "status [options]", KIX_CMD_OPTS(mirror_opts)};

/* A string member, or null when empty. */
static json_t *or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static int print_json(const struct kix_client_info *info)
{
    json_t *fork = info->fork
                       ? json_pack("{s:I,s:s,s:s}", "size", (json_int_t)info->fork_size, "reason",
                                   info->fork_reason, "evidence", info->fork_evidence)
                       : json_null();

    return cli_doc("mirror status",
                   json_pack("{s:s,s:I,s:b,s:o,s:I,s:I,s:I,s:o,s:o}", "origin", info->origin,
                             "size", (json_int_t)info->size, "mirror", info->mirror, "upstream",
                             or_null(info->upstream), "upstreamSize",
                             (json_int_t)info->upstream_size, "lagEntries",
                             (json_int_t)info->lag_entries, "lagSeconds",
                             (json_int_t)llround(info->lag_seconds), "lastError",
                             or_null(info->last_error), "fork", fork),
                   1, NULL);
}

static void print_text(const struct kix_client_info *info)
{
    printf("origin         %s\n", info->origin);
    printf("size           %llu\n", (unsigned long long)info->size);
    if (info->upstream[0]) {
        printf("upstream       %s\n", info->upstream);
        printf("upstream size  %llu\n", (unsigned long long)info->upstream_size);
        printf("lag            %llu entries, %.0f s since the last sync\n",
               (unsigned long long)info->lag_entries, info->lag_seconds);
    }
    printf("last error     %s\n", info->last_error[0] ? info->last_error : "none");
    if (info->fork)
        printf("fork           FOUND at size %llu: %s; evidence in %s\n",
               (unsigned long long)info->fork_size, info->fork_reason, info->fork_evidence);
    else
        printf("fork           none found\n");
}

int cmd_mirror(int argc, char **argv)
{
    struct cli_common common;
    struct cli_opts o;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_client_info info;
    struct kix_err err = {0};
    int ch, status, rc;

    if (cli_dump_requested(argc, argv)) {
        kix_cmdline_dump(stdout, &mirror_cmd);
        return 0;
    }
    if (argc < 2 || cli_wants_help(argc, argv)) {
        cli_help(argc < 2 ? stderr : stdout, &mirror_cmd);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    static const char *const subcommands[] = {"status"};
    if (strcmp(argv[1], "status") != 0)
        return cli_unknown("mirror", CLI_UNKNOWN_SUBCOMMAND, argv[1], strlen(argv[1]), subcommands,
                           1);
    cli_start(&o, &mirror_cmd, argc - 1, argv + 1, &common);
    if ((ch = cli_next(&o)) != CLI_OPTS_END) /* mirror status has no options of its own */
        return o.status;
    if (optind != argc - 1)
        return cli_usage_error("mirror", "unexpected argument %s", argv[optind + 1]);
    if ((status = cli_connect("mirror", &common, &cl)))
        return status;
    if ((status = cli_contact("mirror", &common, cl, &key, CLI_CONTACT_STATUS, NULL))) {
        kix_client_close(cl);
        return status;
    }
    rc = kix_client_info(cl, &info, &err);
    if (rc == KIX_OK && !info.mirror)
        rc = kix_err_set(&err, KIX_EINVAL, "%s serves the log %s itself, not a mirror of it",
                         kix_client_where(cl), info.origin);
    kix_client_close(cl);
    if (rc)
        return cli_fail("mirror", rc, &err);
    if (common.json && (status = print_json(&info)) != 0)
        return status;
    if (!common.json)
        print_text(&info);
    return info.fork ? kix_err_exit_status(KIX_EFORK) : 0;
}
