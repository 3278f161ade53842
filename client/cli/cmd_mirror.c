/* kix mirror status: how far a mirror (kixd --mirror-of) is behind its
 * upstream, what went wrong last, and whether it found a fork. */
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

static void print_json(const struct kix_client_info *info)
{
    printf("{\"origin\":");
    cli_json_string(stdout, info->origin, strlen(info->origin));
    printf(",\"size\":%llu,\"mirror\":%s,\"upstream\":", (unsigned long long)info->size,
           info->mirror ? "true" : "false");
    if (info->upstream[0])
        cli_json_string(stdout, info->upstream, strlen(info->upstream));
    else
        printf("null");
    printf(",\"upstreamSize\":%llu,\"lagEntries\":%llu,\"lagSeconds\":%.0f,\"lastError\":",
           (unsigned long long)info->upstream_size, (unsigned long long)info->lag_entries,
           info->lag_seconds);
    if (info->last_error[0])
        cli_json_string(stdout, info->last_error, strlen(info->last_error));
    else
        printf("null");
    printf(",\"fork\":");
    if (info->fork) {
        printf("{\"size\":%llu,\"reason\":", (unsigned long long)info->fork_size);
        cli_json_string(stdout, info->fork_reason, strlen(info->fork_reason));
        printf(",\"evidence\":");
        cli_json_string(stdout, info->fork_evidence, strlen(info->fork_evidence));
        printf("}");
    } else {
        printf("null");
    }
    printf("}\n");
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
    if (common.json)
        print_json(&info);
    else
        print_text(&info);
    return info.fork ? kix_err_exit_status(KIX_EFORK) : 0;
}
