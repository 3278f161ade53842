/* kix query, kix group: ranked runs of the index. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/encoding.h"
#include "kix/view.h"
#include "kix/vindex.h"

static const struct kix_opt query_opts[] = {
    KIX_NOTE("\n"
             "Lists ranked runs, best first within each comparison group. Each group\n"
             "starts with a line naming it once: kernel, workload (its shape: the\n"
             "parameters, dtype), GPU, timed pass, metric, runs ranked and group key;\n"
             "its rows give rank, median (latency or peak memory), provider, evidence\n"
             "and run id, in columns as wide as their longest value. Groups come in the\n"
             "order a reader looks for them: by kernel, workload (numbers as numbers:\n"
             "1024 before 8192), GPU, timed pass and metric, then group key.\n"
             "The page is computed here, not taken from the server: the client reads\n"
             "every match from the log's signed index (below), orders them itself and\n"
             "cuts the page --offset, --limit from that order, so no server can shift,\n"
             "repeat or skip rows between pages. What each row says is proven, not\n"
             "told: its kernel, workload, GPU, provider and pass come from objects\n"
             "checked by digest, its group and median from its manifest, its rank and\n"
             "group size from the group's record in the log's signed index, its\n"
             "evidence from the run's record there, all at a checkpoint checked\n"
             "against the one this client verified before. Which runs match is proven\n"
             "too: the index's selection records list, for each filter, its values and\n"
             "the groups (or, for --provider, the runs) each value selects; the client\n"
             "matches the filter against every value, intersects what they select and\n"
             "reads every selected group's record, and one run of each group (its run\n"
             "record, manifest and objects) says what the group is. With --group alone\n"
             "the server's page is proven to be exactly the group's, as with kix group.\n"
             "Text filters are case-insensitive:\n"
             "\n"),
    KIX_ID("gpu", "G", 'g',
           "G's words (cut at anything not a letter or digit) each equal\n"
           "a word of the GPU's name and form factor, in order: A100,\n"
           "a100-sxm4, \"A100 80GB\" and \"NVIDIA A100-SXM4-80GB\" match an\n"
           "NVIDIA A100 SXM4-80GB; A10 does not. The vendor word\n"
           "(nvidia, amd, intel) may be left out or put in."),
    KIX_ID("kernel", "K", 'k',
           "the kernel K and its family (K followed by _ - . or /:\n"
           "rms_norm matches rms_norm_backward); K* is a plain prefix"),
    KIX_ID("provider", "P", 'p', "exact"),
    {.kind = KIX_OPT_ID,
     .name = "mode",
     .arg = "M",
     .id = 'm',
     .complete = "forward backward full",
     .help = "exact: the timed pass"},
    {.kind = KIX_OPT_ID,
     .name = "metric",
     .arg = "M",
     .id = 'M',
     .complete = "latency peak_memory",
     .help = "exact"},
    KIX_ID("dtype", "D", 'd', "exact: the workload's, e.g. bfloat16"),
    KIX_ID("group", "KEY", 'G', "the one comparison group KEY (sha256:...)"),
    KIX_ID("param", "NAME=VALUE", 'P',
           "the workload's parameter NAME (in spec.parameters,\n"
           "or the swept spec.x) equals VALUE (numbers as numbers:\n"
           "8192 matches 8192.0); repeatable, all must hold; checked\n"
           "on each group's proven Workload"),
    KIX_ID("offset", "N", 'o', "skip the first N matching runs (paging)"),
    KIX_ID("limit", "N", 'l', "print at most N runs (default 50)"),
    KIX_NOTE("\n"
             "With --json, the document kix.query/1 (kix group: kix.ranks/1), from\n"
             "which the text is written: {\"view\": ..., \"runs\": [...], \"matched\": N,\n"
             "\"proven\": {...}}, each run\n"
             "with runId, digest, group, rank, groupSize, median, metric, evidence,\n"
             "kernel, workload (the same summary), gpu, provider and mode; \"proven\"\n"
             "says the index size the rows are proven at and how many group and\n"
             "selection records proved them.\n"
             "\n"
             "exit status: 0 listed, 1 a row is not what the log proves, a match missing,\n"
             "added, repeated or out of place, another count (or bad input),\n"
             "2 usage, 3 I/O or server error, 4 the log contradicts what this client\n"
             "verified before, 5 a copy behind it (stale: listed as of its size)\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd query_cmd = {
    .prog = "kix query",
    .usage = "[--kernel K] [--gpu G] [--provider P] [--mode forward|backward|full]\n"
             "[--metric latency|peak_memory] [--dtype D] [--param NAME=VALUE]...\n"
             "[--group KEY] [--offset N] [--limit N] [--json]\n"
             "[options]",
    KIX_CMD_OPTS(query_opts),
    .column = 15};

static const struct kix_opt group_opts[] = {
    KIX_NOTE("\n"
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
             "verified before, 5 a copy behind it (stale: listed as of its size)\n"
             "\n"),
    KIX_ID("offset", "N", 'o', "skip the group's first N runs (paging)"),
    KIX_ID("limit", "N", 'l', "print at most N runs (default and most 100)"),
    CLI_COMMON_OPTS,
    /* the filters of kix query: taken, to be refused with what to do */
    KIX_ID("kernel", NULL, 'k', NULL),
    KIX_ID("gpu", NULL, 'g', NULL),
    KIX_ID("provider", NULL, 'p', NULL),
    KIX_ID("mode", NULL, 'm', NULL),
    KIX_ID("metric", NULL, 'M', NULL),
    KIX_ID("dtype", NULL, 'd', NULL),
    KIX_ID("group", NULL, 'G', NULL),
    KIX_ID("param", NULL, 'P', NULL),
};
static const struct kix_cmd group_cmd = {.prog = "kix group",
                                         .usage = "KEY [--offset N] [--limit N] [--json]\n"
                                                  "[options]",
                                         KIX_CMD_OPTS(group_opts)};

#define QUERY_PAGE_MAX 1000
#define GROUP_PAGE_MAX 100 /* kix group: one page, as the web's group page */

#define QUERY_PARAMS_MAX 16

struct rows {
    struct kix_query_row *row;
    char (*workload)[KIX_QUERY_WORDS_MAX];
    size_t n, cap;
    int failed;
};

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

/* --param NAME=VALUE: what a group's Workload must hold. */
struct params {
    const char *name[QUERY_PARAMS_MAX], *value[QUERY_PARAMS_MAX];
    size_t n;
};

/* A scalar equals the text asked for: numbers as numbers (8192 is
 * 8192.0), the rest as written. */
static int scalar_equal(const json_t *v, const char *want)
{
    char *end;
    double d;

    if (json_is_string(v))
        return strcmp(json_string_value(v), want) == 0;
    if (json_is_boolean(v))
        return strcmp(want, json_is_true(v) ? "true" : "false") == 0;
    if (!json_is_number(v) || !*want)
        return 0;
    d = strtod(want, &end);
    return *end == '\0' && d == json_number_value(v);
}

/* NAME is one of spec.parameters, or the swept spec.x, with VALUE. */
static int param_holds(const json_t *spec, const char *name, const char *value)
{
    const json_t *x = json_object_get(spec, "x");
    const json_t *v = json_object_get(json_object_get(spec, "parameters"), name);

    if (v && scalar_equal(v, value))
        return 1;
    return json_is_string(json_object_get(x, "name")) &&
           strcmp(json_string_value(json_object_get(x, "name")), name) == 0 &&
           scalar_equal(json_object_get(x, "value"), value);
}

/* kix_query_workload_fn: a group's words, and whether it holds every
 * --param (a group whose Workload the log lacks holds none). */
static int group_workload(void *ctx, const uint8_t *bytes, size_t len, int *keep, char *words,
                          size_t cap)
{
    const struct params *p = ctx;
    json_t *doc;

    kix_view_workload_words(bytes, len, words, cap);
    if (!p->n)
        return 0;
    doc = bytes ? json_loadb((const char *)bytes, len, 0, NULL) : NULL;
    for (size_t i = 0; i < p->n; i++)
        if (!param_holds(json_object_get(doc, "spec"), p->name[i], p->value[i]))
            *keep = 0;
    json_decref(doc);
    return 0;
}

/* The page computed and proven by the client (kix_client_query_page),
 * kept in rows. A growth of the log between two proofs: again, at most
 * three times. */
static int page_proven(struct kix_client *c, const struct kix_verifier *key,
                       const struct kix_query *q, struct params *params, struct rows *rows,
                       uint64_t *matched, struct kix_query_proof *proof, struct kix_err *err)
{
    struct kix_query_page page = {0};
    int rc = KIX_OK;

    for (int attempt = 0; attempt < 3; attempt++) {
        rc = kix_client_query_page(c, key, q, group_workload, params, &page, proof, err);
        if (rc != KIX_EUNAVAIL)
            break;
    }
    if (rc == KIX_OK && proof->checkpoint.len)
        rc = cli_trust_check(c, key, (const char *)proof->checkpoint.ptr, proof->checkpoint.len,
                             NULL, err);
    if (rc == KIX_OK) {
        rows->row = page.rows;
        rows->workload = page.words;
        rows->n = page.n;
        *matched = page.matched;
        page.rows = NULL;
        page.words = NULL;
    }
    kix_query_page_release(&page);
    return rc;
}

/* A group's withdrawn runs (withdrawn/<hex>), proven at the size its
 * page was: list holds the record's runs as "id\0" u64be index, u8 reason. */
struct withdrawn {
    struct kix_buf list;
    size_t n;
};

static int withdrawn_one(void *ctx, const char *run_id, uint64_t index, int reason)
{
    struct withdrawn *w = ctx;
    uint8_t tail[9];

    kix_u64be_put(tail, index);
    tail[8] = (uint8_t)reason;
    if (kix_buf_add(&w->list, run_id, strlen(run_id) + 1) || kix_buf_add(&w->list, tail, 9))
        return 1;
    w->n++;
    return 0;
}

static int withdrawn_proven(struct kix_client *c, const struct kix_verifier *key,
                            const struct kix_digest *group, uint64_t size, struct withdrawn *w,
                            struct kix_err *err)
{
    struct kix_index_answer a;
    char ikey[KIX_VINDEX_KEY_MAX + 1];
    int rc;

    memset(&a, 0, sizeof(a));
    kix_vindex_key_withdrawn(group, ikey);
    rc = kix_client_index_proof(c, key, ikey, &a, err);
    if (rc == KIX_OK && a.cp.size != size)
        rc = kix_err_set(err, KIX_EUNAVAIL,
                         "the log grew while the group was proven (size %llu, then %llu); ask "
                         "again",
                         (unsigned long long)size, (unsigned long long)a.cp.size);
    if (rc == KIX_OK && a.present)
        rc = kix_vindex_withdrawn_decode(a.record.ptr, a.record.len, group, withdrawn_one, w, NULL,
                                         err);
    kix_index_answer_release(&a);
    return rc;
}

/* Each withdrawn run: its id, withdrawal entry and reason. */
static const uint8_t *withdrawn_next(const struct withdrawn *w, const uint8_t *p, const char **id,
                                     uint64_t *index, const char **reason)
{
    size_t n = strlen((const char *)p);
    *id = (const char *)p;
    *index = kix_u64be_get(p + n + 1);
    *reason = kix_withdraw_reason_name(p[n + 9]);
    (void)w;
    return p + n + 10;
}

/* The group's withdrawn runs as the document lists them. */
static json_t *withdrawn_json(const struct withdrawn *w)
{
    const uint8_t *p = w->list.ptr;
    json_t *list = json_array();

    for (size_t i = 0; list && i < w->n; i++) {
        const char *id, *reason;
        uint64_t index;
        p = withdrawn_next(w, p, &id, &index, &reason);
        if (json_array_append_new(list, json_pack("{s:s,s:I,s:s}", "runId", id, "entry",
                                                  (json_int_t)index, "reason", reason)) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static int run_query(const char *cmd, const struct kix_cmd *table, int argc, char **argv,
                     int group_mode)
{
    struct cli_opts o;
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_query q;
    struct kix_digest group;
    struct kix_err err = {0};
    struct rows rows = {0};
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    const char *group_text = NULL;
    struct withdrawn wd = {KIX_BUF_INIT, 0};
    struct params params = {{NULL}, {NULL}, 0};
    uint64_t matched = 0;
    int ch, rc, status, whole_group, filtered;

    memset(&q, 0, sizeof(q));
    q.limit = group_mode ? GROUP_PAGE_MAX : 50;
    cli_start(&o, table, argc, argv, &common);
    while ((ch = cli_next(&o)) >= 0) {
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
        case 'P': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg)
                return cli_usage_error(cmd, "--param takes NAME=VALUE, not '%s'", optarg);
            if (params.n == QUERY_PARAMS_MAX)
                return cli_usage_error(cmd, "at most %d --param", QUERY_PARAMS_MAX);
            *eq = '\0';
            params.name[params.n] = optarg;
            params.value[params.n++] = eq + 1;
            break;
        }
        case 'o':
        case 'l':
            if (cli_parse_u64(optarg, ch == 'o' ? &q.offset : &q.limit))
                return cli_usage_error(cmd, "--%s needs a number", ch == 'o' ? "offset" : "limit");
            break;
        }
    }
    if (ch == CLI_OPTS_STOP)
        return o.status;
    filtered = q.kernel || q.gpu || q.provider || q.mode || q.metric || q.dtype || params.n;
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
    /* kix group and --group alone: the server's page, proven exactly the
     * group's; any other query: the page the client computes itself */
    if (group_mode || whole_group)
        rc = query_proven(c, &key, &q, whole_group, &rows, &matched, &proof, &err);
    else
        rc = page_proven(c, &key, &q, &params, &rows, &matched, &proof, &err);
    if (rc == KIX_OK && group_mode)
        rc = withdrawn_proven(c, &key, &group, proof.size, &wd, &err);
    if (rc == KIX_OK) {
        /* one document (kix/doc.h): the JSON, or its text */
        struct kix_doc_page page = {rows.row,
                                    rows.workload ? rows.workload[0] : "",
                                    sizeof(rows.workload[0]),
                                    rows.n,
                                    matched,
                                    q.offset,
                                    proof.size,
                                    proof.groups,
                                    proof.selections,
                                    whole_group};
        status = cli_doc(
            cmd, group_mode ? kix_doc_ranks(&page, withdrawn_json(&wd)) : kix_doc_query(&page),
            common.json, kix_doc_query_text);
    }
    kix_buf_release(&wd.list);
    kix_buf_release(&proof.checkpoint);
    free(rows.row);
    free(rows.workload);
    kix_client_close(c);
    return rc ? cli_fail(cmd, rc, &err) : status;
}

int cmd_query(int argc, char **argv)
{
    return run_query("query", &query_cmd, argc, argv, 0);
}

int cmd_group(int argc, char **argv)
{
    return run_query("group", &group_cmd, argc, argv, 1);
}
