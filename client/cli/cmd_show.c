/* kix show: the run page — what a reader of the index sees, verified. */
#define _XOPEN_SOURCE 700 /* strptime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_log.h"
#include "kix/view_text.h"

static const struct kix_opt show_opts[] = {
    KIX_NOTE("\n"
             "Prints the run page: a header in words (implementation, kernel, workload,\n"
             "pass, GPU, dtype), the primary measurement with p20/p80, rank in its\n"
             "comparison group and the group's best run, then identity, correctness,\n"
             "workload (parameters, tensor shapes), measurements, protocol, environment\n"
             "and artifacts as rows in words (the rows of the web page), evidence level\n"
             "(with 'not re-observed in N days' once the last observation is older than\n"
             "--stale-days, default 90), controlled reruns, attestations with their text\n"
             "(which never change the evidence level), supersession with its reason and\n"
             "a 'cite this record' block. Everything shown is verified against the log\n"
             "key first.\n"
             "--json prints the run's view document, the one its web page serves\n"
             "(runs/<id>.json).\n"
             "\n"),
    KIX_ID("stale-days", "N", 's', "say 'not re-observed in N days' past N days (default 90)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd show_cmd = {.prog = "kix show",
                                        .usage =
                                            "PERMALINK|RUN_ID|DIGEST [--stale-days N] [options]",
                                        KIX_CMD_OPTS(show_opts)};

static long days_since(const char *rfc3339)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!rfc3339 || !*rfc3339 || !strptime(rfc3339, "%Y-%m-%dT%H:%M:%S", &tm))
        return -1;
    return (long)((time(NULL) - timegm(&tm)) / 86400);
}

/* A rerun's manifest, from the log, its digest checked by the client. */
static int get_object(void *ctx, const struct kix_digest *d, struct kix_buf *out,
                      struct kix_err *err)
{
    return kix_client_get_object(ctx, d, out, err);
}

/* The page (kix/view_text.h) or the view document (kix/view.h). */
static int print_view(const char *cmd, const struct kix_run_view *v,
                      const struct kix_checkpoint *cp, long stale_days, int json)
{
    struct kix_run_text t;
    struct kix_buf doc = KIX_BUF_INIT;
    struct kix_err err = {0};
    char today[16];
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    if (json) {
        rc = kix_run_view_json(v, 0, &doc, &err);
        if (rc == KIX_OK)
            printf("%.*s\n", (int)doc.len, (const char *)doc.ptr);
        kix_buf_release(&doc);
        return rc ? cli_fail(cmd, rc, &err) : 0;
    }
    gmtime_r(&now, &tm);
    strftime(today, sizeof(today), "%Y-%m-%d", &tm);
    t.stale_days = stale_days;
    t.age_days = days_since(v->reobserved[0] ? v->reobserved : v->observed);
    t.cite_origin = cp->origin;
    t.cite_size = cp->size;
    t.today = today;
    kix_run_view_text(v, &t, stdout);
    return 0;
}

int cmd_show(int argc, char **argv)
{
    struct cli_common common;
    struct cli_opts o;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_resolution res;
    struct kix_run_view v;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    uint64_t stale = 90;
    int ch, status, rc;

    cli_start(&o, &show_cmd, argc, argv, &common);
    while ((ch = cli_next(&o)) >= 0) /* 's': --stale-days, show's own option */
        if (cli_parse_u64(o.p.value, &stale))
            return cli_usage_error("show", "--stale-days needs a number of days");
    if (ch == CLI_OPTS_STOP)
        return o.status;
    if (argc - optind != 1)
        return cli_usage_error("show", "expected one PERMALINK, RUN_ID or DIGEST");
    memset(&v, 0, sizeof(v));
    kix_resolution_init(&res);
    if ((status = cli_connect_ref("show", &common, argv[optind], &c)) ||
        (status = cli_log_key("show", &common, c, &key)) ||
        (status = cli_resolve_verified("show", c, &key, argv[optind], &res, &cp)))
        goto out;
    /* built from the resolution just verified, reruns' manifests checked by digest */
    if ((rc = kix_run_view_build(&v, &res, &key, get_object, c, &err))) {
        status = cli_fail("show", rc, &err);
        goto out;
    }
    status = print_view("show", &v, &cp, (long)stale, common.json);
out:
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    kix_client_close(c);
    return status;
}
