/* kix show's page (kix/view_text.h). */
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/view_text.h"

#define DOT "\xc2\xb7" /* the page's separator, U+00B7 */

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

/* The object the manifest names at spec.<field> (kix_run_object_fields),
 * by its digest, or NULL: never the first object of some kind, so that an
 * object the manifest does not name is never shown in its place. */
static json_t *object(const struct kix_run_view *v, const char *field)
{
    const char *digest = json_string_value(json_object_get(get(v->manifest, "spec"), field));

    for (size_t i = 0; digest && i < v->nobjects; i++)
        if (v->objects[i].json && strcmp(v->objects[i].digest, digest) == 0)
            return v->objects[i].json;
    return NULL;
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

static void field(FILE *out, const char *k, const char *v)
{
    fprintf(out, "  %-22s %s\n", k, v);
}

static void print_params(FILE *out, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        field(out, k, text ? text : json_string_value(v));
        free(text);
    }
}

static void print_head(const struct kix_run_view *v, const struct kix_run_text *t, FILE *out)
{
    const struct kix_resolution *res = v->res;
    json_t *impl = object(v, "implementationDigest");
    char h[KIX_HUMAN_MAX];

    fprintf(out, "%s\n",
            str(impl, "metadata.title")[0] ? str(impl, "metadata.title")
                                           : str(impl, "spec.provider"));
    fprintf(out, "%s " DOT " run %s\n", str(v->manifest, "metadata.title"), res->run.run_id);
    fprintf(out, "\xe2\x97\x8f %s   %s\n", str(v->manifest, "spec.status"),
            evidence_line(res->run.evidence));
    if (t->age_days > t->stale_days)
        fprintf(out, "Not re-observed in %ld days.\n", t->age_days);
    if (res->successor[0])
        fprintf(out, "SUPERSEDED by run %s (entry %llu): this record was corrected%s%s.\n",
                res->successor, (unsigned long long)res->run.superseded_by_index,
                t->supersession[0] ? ": " : "", t->supersession);
    if (res->predecessor[0])
        fprintf(out, "Supersedes run %s.\n", res->predecessor);

    fprintf(out, "\nPrimary measurement\n");
    if (v->primary.have) {
        kix_human((int64_t)v->primary.median, v->primary.bytes, h, sizeof(h));
        fprintf(out, "  %s %s\n", h, v->primary.bytes ? "peak memory, median" : "median");
    }
    if (v->ranked)
        fprintf(out,
                "  Rank %llu of %llu in its comparison group " DOT " best: run %s " DOT
                " observed %.10s\n  (rank proven by the log's signed index at size %llu)\n",
                (unsigned long long)res->rank.rank, (unsigned long long)res->rank.group_size,
                res->rank.best, v->observed, (unsigned long long)res->size);
    else if (res->run.grouped == 0 && res->successor[0])
        fprintf(out, "  Not ranked: superseded (its successor is ranked instead).\n");
    {
        const char *k;
        json_t *m;
        int first = 1;
        fprintf(out, "  ");
        json_object_foreach(get(v->manifest, "spec.sourceNative.metrics"), k, m)
        {
            /* the source's own figures, in their shortest exact form */
            struct kix_buf num = KIX_BUF_INIT;
            if (json_is_number(m) && kix_canon_number(json_number_value(m), &num) == KIX_OK)
                fprintf(out, "%s%s %s", first ? "" : " " DOT " ", k, (const char *)num.ptr);
            kix_buf_release(&num);
            first = 0;
        }
        fprintf(out, "\n");
    }
}

static void print_identity(const struct kix_run_view *v, FILE *out)
{
    json_t *impl = object(v, "implementationDigest"), *workload = object(v, "workloadDigest");
    const char *k;
    json_t *x;

    fprintf(out, "\nIdentity\n");
    field(out, "implementation",
          str(impl, "spec.name")[0] ? str(impl, "spec.name") : str(impl, "spec.provider"));
    field(out, "provider", str(impl, "spec.provider"));
    field(out, "project", str(impl, "spec.project"));
    field(out, "revision", str(impl, "spec.revision")[0] ? str(impl, "spec.revision") : "unknown");
    if (str(impl, "spec.repository")[0])
        field(out, "repository", str(impl, "spec.repository"));
    if (str(workload, "metadata.title")[0])
        field(out, "workload", str(workload, "metadata.title"));
    json_object_foreach(get(v->manifest, "metadata.labels"), k, x)
    {
        if (json_is_string(x))
            fprintf(out, "  %-22s %s %s\n", "label", k, json_string_value(x));
    }
    field(out, "observed at", v->observed[0] ? v->observed : "not recorded");
    if (str(v->manifest, "spec.sourceNative.benchmark")[0])
        field(out, "benchmark", str(v->manifest, "spec.sourceNative.benchmark"));
    field(out, "comparison key", v->res->rank.group_size ? v->group : "(not ranked)");
    field(out, "source", v->source);
    field(out, "external id", str(v->manifest, "spec.sourceNative.externalId"));
    field(out, "digest", v->manifest_digest);
}

static void print_setup(const struct kix_run_view *v, FILE *out)
{
    json_t *protocol = object(v, "protocolDigest"), *env = object(v, "environmentDigest"), *m;
    char h[KIX_HUMAN_MAX];
    const char *k;
    size_t i;
    int any = 0;

    fprintf(out,
            "\nCorrectness\n  Marked %s by the source; the correctness policy was not "
            "published.\n",
            str(v->manifest, "spec.status"));
    fprintf(out, "\nWorkload\n");
    print_params(out, get(object(v, "workloadDigest"), "spec"));
    fprintf(out, "\nMeasurements\n");
    if (v->primary.have) {
        kix_human((int64_t)v->primary.median, v->primary.bytes, h, sizeof(h));
        fprintf(out, "  %s " DOT " %-8s %s\n", kix_figures_metric(&v->primary), "median", h);
    }
    json_array_foreach(get(v->manifest, "spec.measurements"), i, m)
    {
        kix_human(json_integer_value(json_object_get(m, "value")), v->primary.bytes, h, sizeof(h));
        fprintf(out, "  %s " DOT " %-8s %s\n", str(m, "metric"), str(m, "statistic"), h);
    }
    fprintf(out, "\nProtocol\n");
    field(out, "harness", str(protocol, "spec.harness.name"));
    field(out, "timer",
          str(protocol, "spec.measurement.timer")[0] ? str(protocol, "spec.measurement.timer")
                                                     : str(protocol, "spec.measurement.tool"));
    field(out, "primaryStatistic", str(protocol, "spec.measurement.primaryStatistic"));
    if (str(protocol, "spec.measurement.metric")[0])
        field(out, "metric", str(protocol, "spec.measurement.metric"));
    if (str(protocol, "spec.measurement.pass")[0])
        field(out, "pass", str(protocol, "spec.measurement.pass"));
    field(out, "comparabilityFamily", str(protocol, "spec.comparability.family"));
    fprintf(out, "  %s\n", str(protocol, "spec.comparability.notes"));
    fprintf(out, "\nEnvironment\n  %-22s %s (%s)\n", "gpu", str(env, "spec.hardware.product"),
            str(env, "spec.hardware.architecture"));
    if (str(env, "spec.hardware.formFactor")[0])
        field(out, "form factor", str(env, "spec.hardware.formFactor"));
    json_object_foreach(get(env, "spec.software"), k, m)
    {
        if (json_is_string(m)) {
            field(out, k, json_string_value(m));
            any = 1;
        }
    }
    if (!any)
        field(out, "software", "not recorded");
}

static void print_rerun(const struct kix_rerun_view *r, FILE *out)
{
    const struct kix_figures *f = &r->figures;
    char signer[65], h[KIX_HUMAN_MAX];

    kix_hex_encode(r->signer, 32, signer);
    fprintf(out, "  #%llu observed %.10s " DOT " %s", (unsigned long long)r->index, r->observed,
            kix_evidence_name(r->outcome));
    if (r->status[0])
        fprintf(out, " " DOT " status %s", r->status);
    if (f->have) {
        kix_human((int64_t)f->median, f->bytes, h, sizeof(h));
        fprintf(out, " " DOT " %s median", h);
        if (f->have_p20) {
            kix_human((int64_t)f->p20, f->bytes, h, sizeof(h));
            fprintf(out, " " DOT " p20 %s", h);
        }
        if (f->have_p80) {
            kix_human((int64_t)f->p80, f->bytes, h, sizeof(h));
            fprintf(out, " " DOT " p80 %s", h);
        }
    }
    fprintf(out, " " DOT " by key %.16s%s\n    manifest %s\n", signer,
            r->self ? " (the publisher's own key: the publisher reran its own run)" : "",
            r->manifest_digest);
}

static void print_evidence(const struct kix_run_view *v, FILE *out)
{
    const struct kix_resolution *res = v->res;

    fprintf(out, "\nEvidence\n  %s", evidence_line(res->run.evidence));
    if (res->run.evidence_index != KIX_NO_INDEX)
        fprintf(out, " (controlled rerun, entry %llu)",
                (unsigned long long)res->run.evidence_index);
    fprintf(out, ". Observed %.10s", v->observed);
    if (v->reobserved[0])
        fprintf(out, "; last re-observed %.10s by a controlled rerun", v->reobserved);
    fprintf(out, ".\n\nControlled reruns\n");
    if (!res->run.reruns)
        fprintf(out, "  No controlled reruns yet.\n");
    for (size_t i = 0; i < v->nreruns; i++)
        print_rerun(&v->reruns[i], out);
    if (res->run.reruns > v->nreruns)
        fprintf(out, "  ... and %llu more (kix resolve lists every entry)\n",
                (unsigned long long)(res->run.reruns - v->nreruns));
    fprintf(out, "\nReplications and notes\n");
    if (!res->run.attestations)
        fprintf(out, "  No attestations yet.\n");
    for (size_t i = 0; i < res->nentries; i++) {
        struct kix_entry_summary s;
        char signer[65];
        if (res->entries[i].type != KIX_ENTRY_ATTESTATION ||
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        kix_hex_encode(s.signer, 32, signer);
        fprintf(out, "  #%llu %.10s by key %.16s: %s\n", (unsigned long long)res->entries[i].index,
                s.time, signer, s.note);
    }
    fprintf(out, "  Community attestations never change the evidence level; only a controlled\n"
                 "  rerun does.\n");
}

void kix_run_view_text(const struct kix_run_view *v, const struct kix_run_text *t, FILE *out)
{
    print_head(v, t, out);
    print_identity(v, out);
    print_setup(v, out);
    print_evidence(v, out);
    fprintf(out,
            "\nCite this record\n  %.*s\n  %s\n  accessed %s " DOT " log %s " DOT
            " checkpoint size %llu\n",
            (int)v->permalink.len, (const char *)v->permalink.ptr, v->manifest_digest, t->today,
            t->cite_origin, (unsigned long long)t->cite_size);
    fprintf(out, "\nPublished %.10s " DOT " %s " DOT " %s\n", v->published, v->source,
            v->license[0] ? v->license : "license not stated");
}
