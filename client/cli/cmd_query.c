/* kix query, kix group: ranked runs of the index. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/view.h"

static const char query_help[] =
    "usage: kix query [--kernel K] [--gpu G] [--provider P] [--mode forward|backward|full]\n"
    "                 [--metric latency|peak_memory] [--dtype D]\n"
    "                 [--group KEY] [--offset N] [--limit N] [--json]\n"
    "                 [--store DIR | --server ADDR]\n"
    "\n"
    "Lists ranked runs, best first within each comparison group, with their\n"
    "rank, group size, median (latency or peak memory), kernel, workload, GPU,\n"
    "provider, timed pass and run id. Groups come in a stable order: by kernel,\n"
    "GPU, timed pass and metric, then group key; each starts with a line\n"
    "naming it. What each row says is proven, not told: its kernel, workload,\n"
    "GPU, provider and pass come from objects checked by digest, its group and\n"
    "median from its manifest, its rank and group size from the group's record\n"
    "in the log's signed index (one proof per group), its evidence from the\n"
    "run's record there (one proof per run), all at a checkpoint checked\n"
    "against the one this client verified before. Which runs match is proven\n"
    "too: the index's selection records list, for each filter, its values and\n"
    "the groups (or, for --provider, the runs) each value selects; the client\n"
    "matches the filter against every value, intersects what they select and\n"
    "reads every selected group's record, so a dropped, added, repeated or\n"
    "misplaced row, or another count, is refused. With --group alone the page\n"
    "is proven to be exactly the group's, as with kix group.\n"
    "Text filters are case-insensitive:\n"
    "\n"
    "  --gpu G      G's words (cut at anything not a letter or digit) each equal\n"
    "               a word of the GPU's name and form factor, in order: A100,\n"
    "               a100-sxm4, \"A100 80GB\" and \"NVIDIA A100-SXM4-80GB\" match an\n"
    "               NVIDIA A100 SXM4-80GB; A10 does not. The vendor word\n"
    "               (nvidia, amd, intel) may be left out or put in.\n"
    "  --kernel K   the kernel K and its family (K followed by _ - . or /:\n"
    "               rms_norm matches rms_norm_backward); K* is a plain prefix\n"
    "  --provider P, --mode M, --metric M, --dtype D   exact (dtype: the\n"
    "               workload's, e.g. bfloat16)\n"
    "  --offset N   skip the first N matching runs (paging)\n"
    "  --limit N    print at most N runs (default 50)\n"
    "\n"
    "With --json: {\"runs\": [...], \"matched\": N, \"proven\": {...}}, each run\n"
    "with runId, workload (the same summary) and the fields above; \"proven\"\n"
    "says the index size the rows are proven at and how many group and\n"
    "selection records proved them.\n"
    "\n"
    "exit status: 0 listed, 1 a row is not what the log proves, a match missing,\n"
    "added, repeated or out of place, another count (or bad input),\n"
    "2 usage, 3 I/O or server error, 4 the log contradicts what this client\n"
    "verified before, 5 a copy behind it (stale: listed as of its size)\n\n" CLI_COMMON_HELP;

static const char group_help[] =
    "usage: kix group KEY [--offset N] [--limit N] [--json]\n"
    "                 [--store DIR | --server ADDR]\n"
    "\n"
    "Shows one comparison group (the comparisonKey of kix resolve --json), best\n"
    "run first, proven against the group's records in the log's signed index\n"
    "(its directory and the pages that hold the ranks asked for): the page\n"
    "shown is exactly the group's members at ranks N+1 to N+limit (limit at\n"
    "most 100, the default), in their order, and the count is the group's;\n"
    "every column is proven as kix query --help says.\n"
    "\n"
    "exit status: 0 listed, 1 a row is not what the log proves, a row missing,\n"
    "added, repeated or moved, or another page (or bad input),\n"
    "2 usage, 3 I/O or server error, 4 the log contradicts what this client\n"
    "verified before, 5 a copy behind it (stale: listed as of its size)\n\n" CLI_COMMON_HELP;

#define QUERY_PAGE_MAX 1000
#define GROUP_PAGE_MAX 100 /* kix group: one page, as the web's group page */

struct rows {
    struct kix_query_row *row;
    char (*workload)[96];
    size_t n, cap;
    int failed;
};

static void value_text(const struct kix_query_row *row, char *out, size_t cap)
{
    if (strcmp(row->metric, "peak_memory") == 0)
        snprintf(out, cap, "%.1f MiB", (double)row->value / 1048576.0);
    else
        snprintf(out, cap, "%.3f us", (double)row->value / 1000.0);
}

static int keep_row(void *ctx, const struct kix_query_row *row)
{
    struct rows *r = ctx;

    struct kix_query_row *grown = kix_array_grow(r->row, &r->cap, r->n, 64, sizeof(*grown));
    if (!grown)
        return r->failed = KIX_ENOMEM;
    r->row = grown;
    r->row[r->n++] = *row;
    return 0;
}

static int got_workload(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct rows *r = ctx;
    kix_view_workload_words(bytes, len, r->workload[i], sizeof(r->workload[i]));
    return 0;
}

/* Queries and proves the page (kix_client_query_verify). A mismatch at a
 * size other than the last attempt's may be the log's growth between the
 * query and the proofs: query again, at most three times. */
static int query_proven(struct kix_client *c, const struct kix_verifier *key,
                        const struct kix_query *q, int whole_group, struct rows *rows,
                        uint64_t *matched, struct kix_query_proof *proof, struct kix_err *err)
{
    uint64_t last = 0;
    int rc = KIX_OK;

    for (int attempt = 0; attempt < 3; attempt++) {
        free(rows->row);
        free(rows->workload);
        memset(rows, 0, sizeof(*rows));
        rc = kix_client_query(c, q, keep_row, rows, matched, err);
        if (rc == KIX_OK && rows->failed)
            rc = kix_err_set(err, rows->failed, "out of memory keeping the query's rows");
        if (rc == KIX_OK &&
            !(rows->workload = calloc(rows->n ? rows->n : 1, sizeof(*rows->workload))))
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        if (rc == KIX_OK)
            rc =
                kix_client_query_verify(c, key, rows->row, rows->n, got_workload, rows, proof, err);
        if (rc == KIX_OK && whole_group)
            rc = kix_client_group_page_verify(c, key, q->group, q->offset, q->limit, rows->row,
                                              rows->n, *matched, proof, err);
        else if (rc == KIX_OK)
            rc = kix_client_query_complete(c, key, q, rows->row, rows->n, *matched, proof, err);
        if (!((rc == KIX_EVERIFY && proof->size && proof->size != last) || rc == KIX_EUNAVAIL))
            break;
        last = proof->size;
    }
    if (rc == KIX_OK && proof->checkpoint.len)
        rc = cli_trust_check(c, key, (const char *)proof->checkpoint.ptr, proof->checkpoint.len,
                             NULL, err);
    return rc;
}

static void print_rows(const struct rows *r, int json, uint64_t matched,
                       const struct kix_query_proof *proof)
{
    char digest[KIX_DIGEST_TEXT_LEN + 1], group[KIX_DIGEST_TEXT_LEN + 1], v[40];

    if (json)
        printf("{\"runs\":[");
    for (size_t i = 0; i < r->n; i++) {
        const struct kix_query_row *row = &r->row[i];
        kix_digest_format(&row->manifest, digest);
        kix_digest_format(&row->group, group);
        if (json) {
            printf("%s{\"runId\":", i ? "," : "");
            cli_json_string(stdout, row->run_id, strlen(row->run_id));
            printf(",\"digest\":\"%s\",\"group\":\"%s\",\"rank\":%llu,"
                   "\"groupSize\":%llu,\"median\":%llu,\"metric\":\"%s\",\"evidence\":\"%s\","
                   "\"kernel\":",
                   digest, group, (unsigned long long)row->rank,
                   (unsigned long long)row->group_size, (unsigned long long)row->value, row->metric,
                   kix_evidence_name(row->evidence));
            cli_json_string(stdout, row->kernel, strlen(row->kernel));
            printf(",\"workload\":");
            cli_json_string(stdout, r->workload[i], strlen(r->workload[i]));
            printf(",\"gpu\":");
            cli_json_string(stdout, row->gpu, strlen(row->gpu));
            printf(",\"provider\":");
            cli_json_string(stdout, row->provider, strlen(row->provider));
            printf(",\"mode\":");
            cli_json_string(stdout, row->mode, strlen(row->mode));
            printf("}");
            continue;
        }
        if (i == 0 || memcmp(row->group.b, r->row[i - 1].group.b, 32) != 0)
            printf("group %s  %llu ranked\n", group, (unsigned long long)row->group_size);
        value_text(row, v, sizeof(v));
        printf("  %3llu/%-3llu %-13s %-20.20s %-32.32s %-16.16s %-10.10s %-8s %s\n",
               (unsigned long long)row->rank, (unsigned long long)row->group_size, v, row->kernel,
               r->workload[i][0] ? r->workload[i] : "-", row->gpu, row->provider,
               row->mode[0] ? row->mode : "-", row->run_id);
    }
    if (json)
        printf("],\"matched\":%llu,\"proven\":{\"indexSize\":%llu,\"groups\":%zu,"
               "\"selections\":%zu,\"ranks\":true,\"descriptions\":true,\"evidence\":true,"
               "\"matches\":true}}\n",
               (unsigned long long)matched, (unsigned long long)proof->size, proof->groups,
               proof->selections);
}

static int run_query(const char *cmd, const char *help, int argc, char **argv, int group_mode)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"kernel", required_argument, NULL, 'k'},
                                             {"gpu", required_argument, NULL, 'g'},
                                             {"provider", required_argument, NULL, 'p'},
                                             {"mode", required_argument, NULL, 'm'},
                                             {"metric", required_argument, NULL, 'M'},
                                             {"dtype", required_argument, NULL, 'd'},
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
    struct rows rows = {0};
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    const char *group_text = NULL;
    uint64_t matched = 0;
    int ch, rc, status, whole_group, filtered;

    memset(&q, 0, sizeof(q));
    q.limit = group_mode ? GROUP_PAGE_MAX : 50;
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
        case 'd':
            q.dtype = optarg;
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
            return cli_bad_option(cmd, argv, longopts);
        }
    }
    filtered = q.kernel || q.gpu || q.provider || q.mode || q.metric || q.dtype;
    if (group_mode) {
        if (filtered || group_text)
            return cli_usage_error(cmd,
                                   "kix group shows a whole group: no filters (see kix query)");
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
    whole_group = q.group && !filtered;
    if ((status = cli_connect(cmd, &common, &c)))
        return status;
    if ((status = cli_contact(cmd, &common, c, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(c);
        return status;
    }
    if (q.limit > (group_mode ? GROUP_PAGE_MAX : QUERY_PAGE_MAX)) {
        kix_client_close(c);
        return cli_usage_error(cmd, "--limit is at most %d; page with --offset",
                               group_mode ? GROUP_PAGE_MAX : QUERY_PAGE_MAX);
    }
    rc = query_proven(c, &key, &q, whole_group, &rows, &matched, &proof, &err);
    if (rc == KIX_OK) {
        if (!common.json)
            printf(
                "  rank    median        kernel               workload                         gpu "
                "             provider   pass     run\n");
        print_rows(&rows, common.json, matched, &proof);
        if (!common.json && (rows.n || whole_group))
            printf("%llu matching runs%s; %s proven by the log's signed index at size %llu\n",
                   (unsigned long long)matched,
                   matched > q.offset + rows.n ? " (more with --offset)" : "",
                   whole_group ? "the group's page, ranks and evidence"
                               : "all matches, ranks and evidence",
                   (unsigned long long)proof.size);
        else if (!common.json)
            printf("%llu matching runs\n", (unsigned long long)matched);
    }
    kix_buf_release(&proof.checkpoint);
    free(rows.row);
    free(rows.workload);
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
