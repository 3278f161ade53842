/* kix query, kix group: ranked runs of the index. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"

static const char query_help[] =
    "usage: kix query [--kernel K] [--gpu G] [--provider P] [--mode forward|backward|full]\n"
    "                 [--metric latency|peak_memory]\n"
    "                 [--group KEY] [--offset N] [--limit N] [--json]\n"
    "                 [--store DIR | --server ADDR]\n"
    "\n"
    "Lists ranked runs, best first within each comparison group, with their\n"
    "rank, group size and median (latency or peak memory). --gpu matches part\n"
    "of the GPU's name (\"A100\"). Ranks are computed by the log from its\n"
    "entries; kix audit recomputes them. Pages with --offset and --limit\n"
    "(default 50).\n\n" CLI_COMMON_HELP;

static const char group_help[] =
    "usage: kix group KEY [--json] [--store DIR | --server ADDR]\n"
    "\n"
    "Shows one comparison group (the comparisonKey of kix resolve --json), best\n"
    "run first.\n\n" CLI_COMMON_HELP;

struct rows {
    int json, first;
};

static void value_text(const struct kix_query_row *row, char *out, size_t cap)
{
    if (strcmp(row->metric, "peak_memory") == 0)
        snprintf(out, cap, "%.1f MiB", (double)row->value / 1048576.0);
    else
        snprintf(out, cap, "%.3f us", (double)row->value / 1000.0);
}

static int print_row(void *ctx, const struct kix_query_row *row)
{
    struct rows *r = ctx;
    char digest[KIX_DIGEST_TEXT_LEN + 1], group[KIX_DIGEST_TEXT_LEN + 1], v[40];

    kix_digest_format(&row->manifest, digest);
    kix_digest_format(&row->group, group);
    if (r->json) {
        printf(
            "%s{\"runId\":\"%s\",\"digest\":\"%s\",\"group\":\"%s\",\"rank\":%llu,"
            "\"groupSize\":%llu,\"median\":%llu,\"metric\":\"%s\",\"evidence\":\"%s\",\"kernel\":",
            r->first ? "" : ",", row->run_id, digest, group, (unsigned long long)row->rank,
            (unsigned long long)row->group_size, (unsigned long long)row->value, row->metric,
            kix_evidence_name(row->evidence));
        cli_json_string(stdout, row->kernel, strlen(row->kernel));
        printf(",\"gpu\":");
        cli_json_string(stdout, row->gpu, strlen(row->gpu));
        printf(",\"provider\":");
        cli_json_string(stdout, row->provider, strlen(row->provider));
        printf(",\"mode\":");
        cli_json_string(stdout, row->mode, strlen(row->mode));
        printf("}");
    } else {
        value_text(row, v, sizeof(v));
        printf("%2llu/%-2llu %-14s %-24.24s %-18.18s %-8s %-28s %.19s...\n",
               (unsigned long long)row->rank, (unsigned long long)row->group_size, v, row->kernel,
               row->provider, row->mode, row->gpu, group + 7);
    }
    r->first = 0;
    return 0;
}

static int run_query(const char *cmd, const char *help, int argc, char **argv, int group_mode)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"kernel", required_argument, NULL, 'k'},
                                             {"gpu", required_argument, NULL, 'g'},
                                             {"provider", required_argument, NULL, 'p'},
                                             {"mode", required_argument, NULL, 'm'},
                                             {"metric", required_argument, NULL, 'M'},
                                             {"group", required_argument, NULL, 'G'},
                                             {"offset", required_argument, NULL, 'o'},
                                             {"limit", required_argument, NULL, 'l'},
                                             {NULL, 0, NULL, 0}};
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_query q;
    struct kix_digest group;
    struct kix_err err = {0};
    struct rows rows = {0, 1};
    const char *group_text = NULL;
    uint64_t matched = 0;
    int ch, rc, status;

    memset(&q, 0, sizeof(q));
    q.limit = 50;
    cli_common_init(&common);
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (cli_common_option(&common, ch, optarg))
            continue;
        switch (ch) {
        case 'k':
            q.kernel = optarg;
            break;
        case 'g':
            q.gpu = optarg;
            break;
        case 'p':
            q.provider = optarg;
            break;
        case 'm':
            q.mode = optarg;
            break;
        case 'M':
            q.metric = optarg;
            break;
        case 'G':
            group_text = optarg;
            break;
        case 'o':
        case 'l':
            if (cli_parse_u64(optarg, ch == 'o' ? &q.offset : &q.limit))
                return cli_usage_error(cmd, "--%s needs a number", ch == 'o' ? "offset" : "limit");
            break;
        case 'h':
            cli_print_help(stdout, help);
            return 0;
        default:
            return cli_usage_error(cmd, "unknown option");
        }
    }
    if (group_mode) {
        if (argc - optind != 1)
            return cli_usage_error(cmd, "expected one group KEY (sha256:...)");
        group_text = argv[optind];
    } else if (optind != argc) {
        return cli_usage_error(cmd, "unexpected argument %s", argv[optind]);
    }
    if (group_text) {
        rc = kix_digest_parse(group_text, strlen(group_text), &group, &err);
        if (rc)
            return cli_fail(cmd, rc, &err);
        q.group = &group;
    }
    if ((status = cli_connect(cmd, &common, &c)))
        return status;
    if ((status = cli_contact(cmd, &common, c, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(c);
        return status;
    }
    rows.json = common.json;
    if (rows.json)
        printf("{\"runs\":[");
    else
        printf("rank   median         kernel                   provider           pass     gpu "
               "                         group\n");
    rc = kix_client_query(c, &q, print_row, &rows, &matched, &err);
    if (rows.json)
        printf("],\"matched\":%llu}\n", (unsigned long long)matched);
    else if (rc == KIX_OK)
        printf("%llu matching runs%s\n", (unsigned long long)matched,
               matched > q.offset + q.limit ? " (more with --offset)" : "");
    kix_client_close(c);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

int cmd_query(int argc, char **argv)
{
    return run_query("query", query_help, argc, argv, 0);
}

int cmd_group(int argc, char **argv)
{
    return run_query("group", group_help, argc, argv, 1);
}
