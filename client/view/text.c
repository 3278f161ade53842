/* kix show's page (kix/view_text.h). */
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/canon.h"
#include "kix/view_text.h"
#include "view_internal.h"

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

/* "  label<padding> value", the label padded to 22 columns (not bytes). */
static void field(FILE *out, const char *k, const char *v)
{
    size_t cols = 0;

    for (const char *p = k; *p; p++)
        cols += ((unsigned char)*p & 0xc0) != 0x80;
    fprintf(out, "  %s%*s %s\n", k, cols < 22 ? (int)(22 - cols) : 0, "", v);
}

static void print_head(const struct kix_run_view *v, const struct kix_run_text *t, FILE *out)
{
    const struct kix_resolution *res = v->res;
    const struct kix_supersession_view *by = &v->superseded_by, *of = &v->supersedes;
    char h[KIX_HUMAN_MAX];

    /* the title starts with the implementation's name: no line of its own */
    fprintf(out, "%s%s" DOT " run %s\n", v->title, v->title[0] ? " " : "", res->run.run_id);
    fprintf(out, "\xe2\x97\x8f %s   %s\n", str(v->manifest, "spec.status"), v->evidence_text);
    if (t->age_days > t->stale_days)
        fprintf(out, "Not re-observed in %ld days.\n", t->age_days);
    if (by->run_id[0])
        fprintf(out, "SUPERSEDED by run %s (entry %llu%s%.10s): this record was corrected%s%s.\n",
                by->run_id, (unsigned long long)by->index, by->date[0] ? ", " : "", by->date,
                by->reason[0] ? ": " : "", by->reason);
    if (v->withdrawn.index != KIX_NO_INDEX)
        fprintf(out, "WITHDRAWN from ranking (entry %llu%s%.10s, by the %s): %s%s%s%s%s.\n",
                (unsigned long long)v->withdrawn.index, v->withdrawn.date[0] ? ", " : "",
                v->withdrawn.date, v->withdrawn.by_publisher ? "publisher" : "curator",
                v->withdrawn.reason, v->withdrawn.note[0] ? ": " : "", v->withdrawn.note,
                v->withdrawn.evidence[0] ? "; evidence " : "", v->withdrawn.evidence);
    if (of->run_id[0])
        fprintf(out, "Supersedes run %s (entry %llu%s%.10s)%s%s.\n", of->run_id,
                (unsigned long long)of->index, of->date[0] ? ", " : "", of->date,
                of->reason[0] ? ": " : "", of->reason);

    fprintf(out, "\nPrimary measurement\n");
    if (v->primary.have) {
        kix_human((int64_t)v->primary.median, v->primary.bytes, h, sizeof(h));
        fprintf(out, "  %s %s\n", h,
                v->primary.bytes ? "peak memory, median" : v->primary.statistic);
    }
    if (v->ranked)
        fprintf(out,
                "  Rank %llu of %llu in its comparison group " DOT " best: run %s " DOT
                " observed %.10s\n  (rank proven by the log's signed index at size %llu)\n",
                (unsigned long long)res->rank.rank, (unsigned long long)res->rank.group_size,
                res->rank.best, v->observed, (unsigned long long)res->size);
    if (v->ranked && res->rank.rank != 1)
        fprintf(out, "  Compare with #1: run %s\n", res->rank.best);
    else if (res->run.grouped == 0 && res->successor[0])
        fprintf(out, "  Not ranked: superseded (its successor is ranked instead).\n");
    else if (v->withdrawn.index != KIX_NO_INDEX)
        fprintf(out, "  Not ranked: withdrawn from ranking (%s).\n", v->withdrawn.reason);
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

/* The sections (kix/view.h), each row "label  value". */
static void print_sections(const struct kix_run_view *v, FILE *out)
{
    for (int i = 0; i < KIX_VIEW_SECTIONS; i++) {
        const struct kix_view_section *s = &v->sections[i];
        fprintf(out, "\n%s\n", s->title);
        if (s->note[0])
            fprintf(out, "  %s\n", s->note);
        else if (!s->nrows)
            fprintf(out, "  %s\n", s->empty);
        for (size_t j = 0; j < s->nrows; j++)
            field(out, s->rows[j].label, s->rows[j].value);
    }
}

static void print_rerun(const struct kix_rerun_view *r, FILE *out)
{
    const struct kix_figures *f = &r->figures;
    char signer[65], h[KIX_HUMAN_MAX];

    kix_hex_encode(r->signer, 32, signer);
    fprintf(out, "  #%llu observed %.10s " DOT " %s", (unsigned long long)r->index, r->observed,
            kix_words_outcome(r->outcome));
    if (r->status[0])
        fprintf(out, " " DOT " status %s", r->status);
    if (f->have) {
        kix_human((int64_t)f->median, f->bytes, h, sizeof(h));
        fprintf(out, " " DOT " %s %s", h, f->statistic);
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
            r->self ? " (the publisher's own key: the publisher reran its own run, which is "
                      "never evidence)"
                    : "",
            r->manifest_digest);
}

static void print_evidence(const struct kix_run_view *v, FILE *out)
{
    const struct kix_resolution *res = v->res;

    fprintf(out, "\nEvidence\n  %s", v->evidence_text);
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
    for (size_t i = 0; i < v->nattestations; i++) {
        const struct kix_attestation_view *a = &v->attestations[i];
        char signer[65];
        kix_hex_encode(a->signer, 32, signer);
        fprintf(out, "  #%llu %.10s by key %.16s%s: %s\n", (unsigned long long)a->index, a->date,
                signer, a->open_note ? " (community, unregistered key)" : "", a->text);
    }
    if (res->run.attestations > v->nattestations)
        fprintf(out, "  ... and %llu more (kix resolve lists every entry)\n",
                (unsigned long long)(res->run.attestations - v->nattestations));
    fprintf(out, "  Community attestations never change the evidence level; only a controlled\n"
                 "  rerun does.\n");
}

void kix_run_view_text(const struct kix_run_view *v, const struct kix_run_text *t, FILE *out)
{
    print_head(v, t, out);
    print_sections(v, out);
    print_evidence(v, out);
    fprintf(out,
            "\nCite this record\n  %.*s\n  %s\n  accessed %s " DOT " log %s " DOT
            " checkpoint size %llu\n",
            (int)v->permalink.len, (const char *)v->permalink.ptr, v->manifest_digest, t->today,
            t->cite_origin, (unsigned long long)t->cite_size);
    /* a field the entry left empty (no --source) is left out, not shown
     * as an empty slot between separators */
    fprintf(out, "\nPublished %.10s", v->published[0] ? v->published : "(date not stated)");
    if (v->source[0])
        fprintf(out, " " DOT " %s", v->source);
    fprintf(out, " " DOT " %s\n", v->license[0] ? v->license : "license not stated");
}
