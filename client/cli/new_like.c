/* kix new run --like RUN / --group KEY: what a new run must reuse to land in
 * an existing comparison group (PROTOCOL.md §5.6): the benchmark, the
 * workload, protocol and environment by digest, and the metric. Read from
 * a run the log resolves and this client verifies (kix show's checks), so
 * a lying server cannot steer the new run into another group unnoticed. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_log.h"
#include "kix/manifest.h"
#include "new_like.h"

struct first_row {
    char run_id[KIX_RUN_ID_MAX + 1];
};

static int take_first(void *ctx, const struct kix_query_row *row)
{
    struct first_row *f = ctx;
    if (!f->run_id[0])
        snprintf(f->run_id, sizeof(f->run_id), "%s", row->run_id);
    return 0;
}

/* "sha256:HEX", "group/HEX" or "HEX" */
static int parse_group(const char *text, struct kix_digest *d)
{
    char buf[KIX_DIGEST_TEXT_LEN + 1];

    if (strncmp(text, "group/", 6) == 0)
        text += 6;
    if (strncmp(text, "sha256:", 7) != 0) {
        snprintf(buf, sizeof(buf), "sha256:%.64s", text);
        if (strlen(text) != 64)
            return KIX_EINVAL;
        text = buf;
    }
    return kix_digest_parse(text, strlen(text), d, NULL);
}

/* A member run of the group (the best), as the log ranks it. */
static int group_member(const char *cmd, struct kix_client *c, const char *group, char *run_id,
                        size_t cap)
{
    struct kix_digest d;
    struct kix_query q;
    struct first_row first = {{0}};
    struct kix_err err = {0};
    uint64_t matched = 0;
    int rc;

    if (parse_group(group, &d) != KIX_OK)
        return cli_usage_error(cmd,
                               "--group takes a comparison key (sha256:HEX, as kix show and "
                               "kix query print it), not '%s'",
                               group);
    memset(&q, 0, sizeof(q));
    q.group = &d;
    q.limit = 1;
    rc = kix_client_query(c, &q, take_first, &first, &matched, &err);
    if (rc)
        return cli_fail(cmd, rc, &err);
    if (!first.run_id[0]) {
        fprintf(stderr,
                "kix %s: the log ranks no run in the comparison group %s; kix query lists the "
                "groups (with --json, their keys)\n",
                cmd, group);
        return EXIT_REJECTED;
    }
    snprintf(run_id, cap, "%s", first.run_id);
    return 0;
}

static void copy_string(char *out, size_t cap, const json_t *v)
{
    snprintf(out, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

int cli_new_like(const char *cmd, const struct cli_common *common, const char *like,
                 const char *group, struct new_like *out)
{
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_resolution res;
    struct kix_checkpoint cp;
    struct kix_digest gkey;
    uint64_t value;
    char run_ref[KIX_RUN_ID_MAX + 1] = "";
    json_t *doc = NULL, *spec;
    int status;

    memset(out, 0, sizeof(*out));
    kix_resolution_init(&res);
    if ((status = cli_connect(cmd, common, &c)) || (status = cli_log_key(cmd, common, c, &key)))
        goto out;
    if (group && (status = group_member(cmd, c, group, run_ref, sizeof(run_ref))))
        goto out;
    if ((status = cli_resolve_verified(cmd, c, &key, group ? run_ref : like, &res, &cp)))
        goto out;
    if (kix_run_comparison_key(res.manifest.ptr, res.manifest.len, &gkey, &value, out->metric) !=
        KIX_OK) {
        fprintf(stderr,
                "kix %s: run %s is in no comparison group (its manifest lacks a benchmark, a "
                "workload, protocol or environment digest, or a median): there is nothing to "
                "join\n",
                cmd, res.run.run_id);
        status = EXIT_REJECTED;
        goto out;
    }
    kix_digest_format(&gkey, out->group);
    if (group) {
        struct kix_digest want;
        if (parse_group(group, &want) != KIX_OK || memcmp(want.b, gkey.b, 32) != 0) {
            fprintf(stderr,
                    "kix %s: %s answered run %s for the group %s, but that run's verified "
                    "manifest is in the group %s\n",
                    cmd, kix_client_where(c), res.run.run_id, group, out->group);
            status = EXIT_REJECTED;
            goto out;
        }
    }
    doc = json_loadb((const char *)res.manifest.ptr, res.manifest.len, 0, NULL);
    spec = json_object_get(doc, "spec");
    copy_string(out->workload, sizeof(out->workload), json_object_get(spec, "workloadDigest"));
    copy_string(out->protocol, sizeof(out->protocol), json_object_get(spec, "protocolDigest"));
    copy_string(out->environment, sizeof(out->environment),
                json_object_get(spec, "environmentDigest"));
    copy_string(out->benchmark, sizeof(out->benchmark),
                json_object_get(json_object_get(spec, "sourceNative"), "benchmark"));
    snprintf(out->run_id, sizeof(out->run_id), "%s", res.run.run_id);
    out->group_size = res.rank.group_size;
    status = 0;
out:
    json_decref(doc);
    kix_resolution_release(&res);
    kix_client_close(c);
    return status;
}
