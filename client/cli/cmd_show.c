/* kix show: the run page — what a reader of the index sees, verified. */
#define _XOPEN_SOURCE 700 /* strptime */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_log.h"

#define DOT "\xc2\xb7" /* the page's separator, U+00B7 */

static const char show_help[] =
    "usage: kix show PERMALINK|RUN_ID|DIGEST [--stale-days N] [--json]\n"
    "                [--store DIR | --server ADDR]\n"
    "\n"
    "Prints the run page: identity, the primary measurement with p20/p80, rank in\n"
    "its comparison group and the group's best run, correctness, workload,\n"
    "protocol, environment, evidence level (with 'not re-observed in N days' once\n"
    "the last observation is older than --stale-days, default 90), attestations\n"
    "(which never change the evidence level), supersession and a 'cite this\n"
    "record' block. Everything shown is verified against the log key first.\n"
    "--json exports the same as one document.\n\n" CLI_COMMON_HELP;

#define RERUNS_SHOWN 256 /* reruns listed one by one */

/* A controlled rerun as the page lists it: its own date, outcome and
 * figures, from its entry and its own run manifest. */
struct rerun_row {
    uint64_t index;
    int outcome;
    char observed[40]; /* the rerun manifest's spec.observedAt, else the entry's */
    char status[32];
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    uint8_t signer[32];
    int have, bytes, have_p20, have_p80;
    uint64_t median, p20, p80;
};

struct page {
    json_t *run, *protocol, *workload, *environment, *implementation;
    struct rerun_row *reruns;
    size_t nreruns;
    const struct kix_resolution *res;
    const char *origin;
    struct kix_checkpoint cp;
    long stale_days, age_days;
    const char *observed; /* the run's own observation: never a rerun's */
    char published[40], source[128], license[64], reobserved[40];
};

static json_t *get(json_t *v, const char *path)
{
    char part[64];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, path);
        v = json_object_get(v, part);
        path += n + (path[n] == '.');
    }
    return v;
}

static const char *str(json_t *v, const char *path)
{
    const char *s = json_string_value(get(v, path));
    return s ? s : "";
}

/* 11360 ns → "11.4 µs"; bytes → "1.50 GiB". */
static void human(uint64_t v, int bytes, char *out, size_t cap)
{
    static const char *const time_units[] = {"ns", "\xc2\xb5s", "ms", "s"};
    static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v, step = bytes ? 1024 : 1000;
    int u = 0, max = bytes ? 4 : 3;
    while (x >= step && u < max) {
        x /= step;
        u++;
    }
    snprintf(out, cap,
             x >= 100 || u == 0 ? "%.0f %s"
             : x >= 10          ? "%.1f %s"
                                : "%.2f %s",
             x, bytes ? byte_units[u] : time_units[u]);
}

static long days_since(const char *rfc3339)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!rfc3339 || !*rfc3339 || !strptime(rfc3339, "%Y-%m-%dT%H:%M:%S", &tm))
        return -1;
    return (long)((time(NULL) - timegm(&tm)) / 86400);
}

static void find_objects(struct page *p)
{
    for (size_t i = 0; i < p->res->nobjects; i++) {
        json_t *o = json_loadb((const char *)p->res->objects[i].bytes.ptr,
                               p->res->objects[i].bytes.len, 0, NULL);
        const char *kind = str(o, "kind");
        json_t **slot = strcmp(kind, "BenchmarkProtocol") == 0      ? &p->protocol
                        : strcmp(kind, "Workload") == 0             ? &p->workload
                        : strcmp(kind, "ExecutionEnvironment") == 0 ? &p->environment
                        : strcmp(kind, "Implementation") == 0       ? &p->implementation
                                                                    : NULL;
        if (slot && !*slot)
            *slot = o;
        else
            json_decref(o);
    }
}

static int primary(const struct page *p, uint64_t *v, int *bytes)
{
    json_t *t = get(p->run, "spec.timing.latencyNs.median");
    json_t *m = get(p->run, "spec.memory.peakBytes.median");
    *bytes = !t && m;
    if (!t && !m)
        return 0;
    *v = (uint64_t)json_integer_value(t ? t : m);
    return 1;
}

static void print_measurements(const struct page *p, int bytes)
{
    size_t i;
    json_t *m;
    char h[32];
    json_array_foreach(get(p->run, "spec.measurements"), i, m)
    {
        human((uint64_t)json_integer_value(json_object_get(m, "value")), bytes, h, sizeof(h));
        printf("  %s " DOT " %-8s %s\n", str(m, "metric"), str(m, "statistic"), h);
    }
}

static void print_params(json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        printf("  %-22s %s\n", k, text ? text : json_string_value(v));
        free(text);
    }
}

/* The median (and p20/p80) of a run manifest's primary statistic. */
static void read_figures(json_t *run, struct rerun_row *r)
{
    json_t *t = get(run, "spec.timing.latencyNs.median");
    json_t *m = get(run, "spec.memory.peakBytes.median"), *x;
    size_t i;

    r->bytes = !t && m;
    if (!json_is_integer(t ? t : m) || json_integer_value(t ? t : m) < 0)
        return;
    r->have = 1;
    r->median = (uint64_t)json_integer_value(t ? t : m);
    json_array_foreach(get(run, "spec.measurements"), i, x)
    {
        json_t *v = json_object_get(x, "value");
        if (strcmp(str(x, "metric"), r->bytes ? "peak_memory" : "latency") != 0 ||
            !json_is_integer(v) || json_integer_value(v) < 0)
            continue;
        if (strcmp(str(x, "statistic"), "p20") == 0) {
            r->p20 = (uint64_t)json_integer_value(v);
            r->have_p20 = 1;
        } else if (strcmp(str(x, "statistic"), "p80") == 0) {
            r->p80 = (uint64_t)json_integer_value(v);
            r->have_p80 = 1;
        }
    }
}

/* Each rerun entry with its own manifest (fetched, digest checked). */
static int read_reruns(const char *cmd, struct kix_client *c, struct page *p)
{
    const struct kix_resolution *res = p->res;

    for (size_t i = 0; i < res->nentries && p->nreruns < RERUNS_SHOWN; i++) {
        struct kix_entry_summary s;
        struct kix_buf bytes = KIX_BUF_INIT;
        struct kix_err err = {0};
        struct rerun_row *r;
        json_t *doc;
        int rc;

        if (res->entries[i].type != KIX_ENTRY_RERUN ||
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        if (!p->reruns && !(p->reruns = calloc(RERUNS_SHOWN, sizeof(*p->reruns)))) {
            fprintf(stderr, "kix %s: out of memory\n", cmd);
            return EXIT_INTERNAL;
        }
        r = &p->reruns[p->nreruns++];
        r->index = res->entries[i].index;
        r->outcome = s.outcome;
        memcpy(r->signer, s.signer, 32);
        kix_digest_format(&s.rerun_digest, r->digest);
        snprintf(r->observed, sizeof(r->observed), "%s", s.time);
        rc = kix_client_get_object(c, &s.rerun_digest, &bytes, &err);
        if (rc) {
            kix_err_wrap(&err, "reading the manifest of the rerun at entry %llu",
                         (unsigned long long)r->index);
            kix_buf_release(&bytes);
            return cli_fail(cmd, rc, &err);
        }
        doc = json_loadb((const char *)bytes.ptr, bytes.len, 0, NULL);
        kix_buf_release(&bytes);
        if (str(doc, "spec.observedAt")[0])
            snprintf(r->observed, sizeof(r->observed), "%s", str(doc, "spec.observedAt"));
        snprintf(r->status, sizeof(r->status), "%s", str(doc, "spec.status"));
        read_figures(doc, r);
        json_decref(doc);
    }
    return 0;
}

static const char *evidence_line(int e)
{
    switch (e) {
    case KIX_EVIDENCE_REPRODUCED:
        return "Reproduced by a controlled rerun";
    case KIX_EVIDENCE_NOT_REPRODUCED:
        return "Not reproduced";
    case KIX_EVIDENCE_FAILED:
        return "Controlled rerun failed";
    default:
        return "Reported evidence";
    }
}

static void print_page(struct page *p)
{
    const struct kix_resolution *res = p->res;
    char digest[KIX_DIGEST_TEXT_LEN + 1], key[KIX_DIGEST_TEXT_LEN + 1], h[32], date[16];
    uint64_t v = 0;
    int bytes = 0;
    time_t now = time(NULL);
    struct tm tm;

    kix_digest_format(&res->run.manifest, digest);
    kix_digest_format(&res->run.comparison_key, key);
    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%Y-%m-%d", &tm);
    printf("%s\n", str(p->implementation, "metadata.title")[0]
                       ? str(p->implementation, "metadata.title")
                       : str(p->implementation, "spec.provider"));
    printf("%s " DOT " run %s\n", str(p->run, "metadata.title"), res->run.run_id);
    printf("\xe2\x97\x8f %s   %s\n", str(p->run, "spec.status"), evidence_line(res->run.evidence));
    if (p->age_days > p->stale_days)
        printf("Not re-observed in %ld days.\n", p->age_days);
    if (res->successor[0]) {
        char reason[256];
        cli_supersession_reason(res, res->run.superseded_by_index, reason, sizeof(reason));
        printf("SUPERSEDED by run %s (entry %llu): this record was corrected%s%s.\n",
               res->successor, (unsigned long long)res->run.superseded_by_index,
               reason[0] ? ": " : "", reason);
    }
    if (res->predecessor[0])
        printf("Supersedes run %s.\n", res->predecessor);

    printf("\nPrimary measurement\n");
    if (primary(p, &v, &bytes)) {
        human(v, bytes, h, sizeof(h));
        printf("  %s %s\n", h, bytes ? "peak memory, median" : "median");
    }
    if (res->rank.rank)
        printf("  Rank %llu of %llu in its comparison group " DOT " best: run %s " DOT
               " observed %.10s\n  (rank proven by the log's signed index at size %llu)\n",
               (unsigned long long)res->rank.rank, (unsigned long long)res->rank.group_size,
               res->rank.best, p->observed, (unsigned long long)res->size);
    else if (res->run.grouped == 0 && res->successor[0])
        printf("  Not ranked: superseded (its successor is ranked instead).\n");
    {
        const char *k;
        json_t *m;
        int first = 1;
        printf("  ");
        json_object_foreach(get(p->run, "spec.sourceNative.metrics"), k, m)
        {
            /* the source's own figures, in their shortest exact form */
            struct kix_buf t = KIX_BUF_INIT;
            if (json_is_number(m) && kix_canon_number(json_number_value(m), &t) == KIX_OK)
                printf("%s%s %s", first ? "" : " " DOT " ", k, (const char *)t.ptr);
            kix_buf_release(&t);
            first = 0;
        }
        printf("\n");
    }

    printf("\nIdentity\n");
    printf("  %-22s %s\n", "implementation",
           str(p->implementation, "spec.name")[0] ? str(p->implementation, "spec.name")
                                                  : str(p->implementation, "spec.provider"));
    printf("  %-22s %s\n", "provider", str(p->implementation, "spec.provider"));
    printf("  %-22s %s\n", "project", str(p->implementation, "spec.project"));
    printf("  %-22s %s\n", "revision",
           str(p->implementation, "spec.revision")[0] ? str(p->implementation, "spec.revision")
                                                      : "unknown");
    if (str(p->implementation, "spec.repository")[0])
        printf("  %-22s %s\n", "repository", str(p->implementation, "spec.repository"));
    if (str(p->workload, "metadata.title")[0])
        printf("  %-22s %s\n", "workload", str(p->workload, "metadata.title"));
    {
        const char *k;
        json_t *v;
        json_object_foreach(get(p->run, "metadata.labels"), k, v)
        {
            if (json_is_string(v))
                printf("  %-22s %s %s\n", "label", k, json_string_value(v));
        }
    }
    printf("  %-22s %s\n", "observed at", p->observed[0] ? p->observed : "not recorded");
    if (str(p->run, "spec.sourceNative.benchmark")[0])
        printf("  %-22s %s\n", "benchmark", str(p->run, "spec.sourceNative.benchmark"));
    printf("  %-22s %s\n", "comparison key", res->rank.group_size ? key : "(not ranked)");
    printf("  %-22s %s\n", "source", p->source);
    printf("  %-22s %s\n", "external id", str(p->run, "spec.sourceNative.externalId"));
    printf("  %-22s %s\n", "digest", digest);
    printf("\nCorrectness\n  Marked %s by the source; the correctness policy was not published.\n",
           str(p->run, "spec.status"));
    printf("\nWorkload\n");
    print_params(get(p->workload, "spec"));
    printf("\nMeasurements\n");
    if (primary(p, &v, &bytes)) {
        human(v, bytes, h, sizeof(h));
        printf("  %s " DOT " %-8s %s\n", bytes ? "peak_memory" : "latency", "median", h);
    }
    print_measurements(p, bytes);
    printf("\nProtocol\n");
    printf("  %-22s %s\n", "harness", str(p->protocol, "spec.harness.name"));
    printf("  %-22s %s\n", "timer",
           str(p->protocol, "spec.measurement.timer")[0]
               ? str(p->protocol, "spec.measurement.timer")
               : str(p->protocol, "spec.measurement.tool"));
    printf("  %-22s %s\n", "primaryStatistic",
           str(p->protocol, "spec.measurement.primaryStatistic"));
    if (str(p->protocol, "spec.measurement.metric")[0])
        printf("  %-22s %s\n", "metric", str(p->protocol, "spec.measurement.metric"));
    if (str(p->protocol, "spec.measurement.pass")[0])
        printf("  %-22s %s\n", "pass", str(p->protocol, "spec.measurement.pass"));
    printf("  %-22s %s\n", "comparabilityFamily", str(p->protocol, "spec.comparability.family"));
    printf("  %s\n", str(p->protocol, "spec.comparability.notes"));
    printf("\nEnvironment\n  %-22s %s (%s)\n", "gpu", str(p->environment, "spec.hardware.product"),
           str(p->environment, "spec.hardware.architecture"));
    if (str(p->environment, "spec.hardware.formFactor")[0])
        printf("  %-22s %s\n", "form factor", str(p->environment, "spec.hardware.formFactor"));
    {
        const char *k;
        json_t *v;
        int any = 0;
        json_object_foreach(get(p->environment, "spec.software"), k, v)
        {
            if (json_is_string(v)) {
                printf("  %-22s %s\n", k, json_string_value(v));
                any = 1;
            }
        }
        if (!any)
            printf("  %-22s %s\n", "software", "not recorded");
    }

    printf("\nEvidence\n  %s", evidence_line(res->run.evidence));
    if (res->run.evidence_index != KIX_NO_INDEX)
        printf(" (controlled rerun, entry %llu)", (unsigned long long)res->run.evidence_index);
    printf(". Observed %.10s", p->observed);
    if (p->reobserved[0])
        printf("; last re-observed %.10s by a controlled rerun", p->reobserved);
    printf(".\n");
    printf("\nControlled reruns\n");
    if (!res->run.reruns)
        printf("  No controlled reruns yet.\n");
    for (size_t i = 0; i < p->nreruns; i++) {
        const struct rerun_row *r = &p->reruns[i];
        char signer[65];
        kix_hex_encode(r->signer, 32, signer);
        printf("  #%llu observed %.10s " DOT " %s", (unsigned long long)r->index, r->observed,
               kix_evidence_name(r->outcome));
        if (r->status[0])
            printf(" " DOT " status %s", r->status);
        if (r->have) {
            human(r->median, r->bytes, h, sizeof(h));
            printf(" " DOT " %s median", h);
            if (r->have_p20) {
                human(r->p20, r->bytes, h, sizeof(h));
                printf(" " DOT " p20 %s", h);
            }
            if (r->have_p80) {
                human(r->p80, r->bytes, h, sizeof(h));
                printf(" " DOT " p80 %s", h);
            }
        }
        printf(" " DOT " by key %.16s\n    manifest %s\n", signer, r->digest);
    }
    if (res->run.reruns > p->nreruns)
        printf("  ... and %llu more (kix resolve lists every entry)\n",
               (unsigned long long)(res->run.reruns - p->nreruns));
    printf("\nReplications and notes\n");
    if (!res->run.attestations)
        printf("  No attestations yet.\n");
    for (size_t i = 0; i < res->nentries; i++) {
        struct kix_entry_summary s;
        char signer[65];
        if (res->entries[i].type != KIX_ENTRY_ATTESTATION ||
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        kix_hex_encode(s.signer, 32, signer);
        printf("  #%llu %.10s by key %.16s: %s\n", (unsigned long long)res->entries[i].index,
               s.time, signer, s.note);
    }
    printf("  Community attestations never change the evidence level; only a controlled\n"
           "  rerun does.\n");

    printf("\nCite this record\n  https://%s/runs/%s\n  %s\n  accessed %s " DOT " log %s " DOT
           " checkpoint size %llu\n",
           p->origin, res->run.run_id, digest, date, p->cp.origin, (unsigned long long)p->cp.size);
    printf("\nPublished %.10s " DOT " %s " DOT " %s\n", p->published, p->source,
           p->license[0] ? p->license : "license not stated");
}

static void print_page_json(struct page *p)
{
    const struct kix_resolution *res = p->res;
    char digest[KIX_DIGEST_TEXT_LEN + 1], key[KIX_DIGEST_TEXT_LEN + 1];
    json_t *doc = json_object(), *atts = json_array();
    char *text;

    kix_digest_format(&res->run.manifest, digest);
    kix_digest_format(&res->run.comparison_key, key);
    json_object_set_new(doc, "runId", json_string(res->run.run_id));
    json_object_set_new(doc, "digest", json_string(digest));
    json_object_set_new(doc, "permalink",
                        json_sprintf("https://%s/runs/%s", p->origin, res->run.run_id));
    json_object_set_new(doc, "evidence", json_string(kix_evidence_name(res->run.evidence)));
    json_object_set_new(doc, "evidenceText", json_string(evidence_line(res->run.evidence)));
    json_object_set_new(doc, "stale", json_boolean(p->age_days > p->stale_days));
    json_object_set_new(doc, "daysSinceObserved", json_integer(p->age_days));
    if (res->rank.rank) {
        json_object_set_new(doc, "comparisonKey", json_string(key));
        json_object_set_new(doc, "rank", json_integer((json_int_t)res->rank.rank));
        json_object_set_new(doc, "groupSize", json_integer((json_int_t)res->rank.group_size));
        json_object_set_new(doc, "best", json_string(res->rank.best));
    }
    /* what the signed index proved (kix_resolution_verify refuses less) */
    json_object_set_new(doc, "proven",
                        json_pack("{s:I,s:b,s:b,s:I}", "indexSize", (json_int_t)res->size, "rank",
                                  1, "entriesComplete", res->complete, "entries",
                                  (json_int_t)res->chained));
    if (res->successor[0]) {
        char reason[256];
        cli_supersession_reason(res, res->run.superseded_by_index, reason, sizeof(reason));
        json_object_set_new(doc, "supersededBy", json_string(res->successor));
        json_object_set_new(doc, "supersessionReason", json_string(reason));
    }
    if (res->predecessor[0])
        json_object_set_new(doc, "supersedes", json_string(res->predecessor));
    json_object_set(doc, "run", p->run);
    if (p->workload)
        json_object_set(doc, "workload", p->workload);
    if (p->protocol)
        json_object_set(doc, "protocol", p->protocol);
    if (p->environment)
        json_object_set(doc, "environment", p->environment);
    if (p->implementation)
        json_object_set(doc, "implementation", p->implementation);
    for (size_t i = 0; i < res->nentries; i++) {
        struct kix_entry_summary s;
        if (res->entries[i].type != KIX_ENTRY_ATTESTATION ||
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        json_array_append_new(atts, json_pack("{s:I, s:s, s:s}", "index",
                                              (json_int_t)res->entries[i].index, "time", s.time,
                                              "note", s.note));
    }
    json_object_set_new(doc, "attestations", atts);
    json_object_set_new(doc, "observedAt", json_string(p->observed));
    if (p->reobserved[0])
        json_object_set_new(doc, "lastReobservedAt", json_string(p->reobserved));
    {
        json_t *list = json_array();
        for (size_t i = 0; i < p->nreruns; i++) {
            const struct rerun_row *r = &p->reruns[i];
            json_t *x = json_pack("{s:I, s:s, s:s, s:s}", "index", (json_int_t)r->index,
                                  "observedAt", r->observed, "outcome",
                                  kix_evidence_name(r->outcome), "manifestDigest", r->digest);
            if (x && r->status[0])
                json_object_set_new(x, "status", json_string(r->status));
            if (x && r->have) {
                json_t *m =
                    json_pack("{s:s, s:s, s:I}", "metric", r->bytes ? "peak_memory" : "latency",
                              "unit", r->bytes ? "bytes" : "ns", "median", (json_int_t)r->median);
                if (m && r->have_p20)
                    json_object_set_new(m, "p20", json_integer((json_int_t)r->p20));
                if (m && r->have_p80)
                    json_object_set_new(m, "p80", json_integer((json_int_t)r->p80));
                json_object_set_new(x, "primary", m);
            }
            json_array_append_new(list, x);
        }
        json_object_set_new(doc, "reruns", list);
    }
    json_object_set_new(doc, "published",
                        json_pack("{s:s, s:s, s:s}", "at", p->published, "source", p->source,
                                  "license", p->license));
    json_object_set_new(
        doc, "checkpoint",
        json_pack("{s:s, s:I}", "origin", p->cp.origin, "size", (json_int_t)p->cp.size));
    text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (text)
        printf("%s\n", text);
    free(text);
    json_decref(doc);
}

int cmd_show(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, {"stale-days", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_resolution res;
    struct page p;
    uint64_t stale = 90;
    int ch, status;

    cli_common_init(&common);
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (cli_common_option(&common, ch, optarg))
            continue;
        if (ch == 's') {
            if (cli_parse_u64(optarg, &stale))
                return cli_usage_error("show", "--stale-days needs a number of days");
            continue;
        }
        if (ch == 'h') {
            cli_print_help(stdout, show_help);
            return 0;
        }
        return cli_usage_error("show", "unknown option");
    }
    if (argc - optind != 1)
        return cli_usage_error("show", "expected one PERMALINK, RUN_ID or DIGEST");
    memset(&p, 0, sizeof(p));
    kix_resolution_init(&res);
    if ((status = cli_connect("show", &common, &c)) ||
        (status = cli_log_key("show", &common, c, &key)) ||
        (status = cli_resolve_verified("show", c, &key, argv[optind], &res, &p.cp)))
        goto out;
    p.res = &res;
    p.origin = key.name;
    p.stale_days = (long)stale;
    p.run = json_loadb((const char *)res.manifest.ptr, res.manifest.len, 0, NULL);
    find_objects(&p);
    p.observed = str(p.run, "spec.observedAt");
    if ((status = read_reruns("show", c, &p)))
        goto out;
    /* the latest re-observation: for staleness, never the run's own date */
    for (size_t i = 0; i < p.nreruns; i++)
        if (strcmp(p.reruns[i].observed, p.reobserved) > 0)
            snprintf(p.reobserved, sizeof(p.reobserved), "%s", p.reruns[i].observed);
    for (size_t i = 0; i < res.nentries; i++) {
        struct kix_entry_summary s;
        if (kix_entry_describe(res.entries[i].leaf.ptr, res.entries[i].leaf.len, &s, NULL))
            continue;
        if (s.type == KIX_ENTRY_PUBLICATION) {
            snprintf(p.published, sizeof(p.published), "%s", s.time);
            snprintf(p.source, sizeof(p.source), "%s", s.source);
            snprintf(p.license, sizeof(p.license), "%s", s.license);
        }
    }
    p.age_days = days_since(p.reobserved[0] ? p.reobserved : p.observed);
    if (common.json)
        print_page_json(&p);
    else
        print_page(&p);
out:
    free(p.reruns);
    json_decref(p.run);
    json_decref(p.protocol);
    json_decref(p.workload);
    json_decref(p.environment);
    json_decref(p.implementation);
    kix_resolution_release(&res);
    kix_client_close(c);
    return status;
}
