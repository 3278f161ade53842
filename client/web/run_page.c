/* A run's page (kix/pages.h): its view (kix/view.h) as JSON, or as HTML
 * through templates/run.html. Every value the in-browser verifier proves
 * sits in a data-kix-slot element holding what the verifier would write
 * there (the slot names: proto/PROTOCOL.md "Run pages"). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kix/cite.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/pages.h"
#include "kix/template.h"
#include "pages_internal.h"
#include "web_internal.h"

/* Compiled in from templates/run.html (CMakeLists.txt, kix_embed). */
extern const unsigned char kix__run_html[];
extern const size_t kix__run_html_len;

#define STALE_DAYS 90 /* kix show's default --stale-days */

int kix_page_run_json(struct kix_source *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_run_view v;
    int rc;

    kix_resolution_init(&res);
    rc = kix_run_view_from_source(r, run_id, len, &res, &v, err);
    if (rc == KIX_OK)
        rc = kix_run_view_json(&v, 0, out, err);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return rc;
}

static int figure(struct kix_tpl *t, const char *name, int have, uint64_t v, int bytes)
{
    char h[KIX_HUMAN_MAX] = "";

    if (have)
        kix_human((int64_t)v, bytes, h, sizeof(h));
    return kix_tpl_set(t, name, h);
}

/* "10.3 µs – 11.5 µs": the spread slot's text, "" without both. */
static int spread(struct kix_tpl *t, const struct kix_figures *f)
{
    char lo[KIX_HUMAN_MAX], hi[KIX_HUMAN_MAX];

    if (!f->have || !f->have_p20 || !f->have_p80)
        return kix_tpl_set(t, "spread", "");
    kix_human((int64_t)f->p20, f->bytes, lo, sizeof(lo));
    kix_human((int64_t)f->p80, f->bytes, hi, sizeof(hi));
    return kix_tpl_setf(t, "spread", "%s \xe2\x80\x93 %s", lo, hi);
}

static int key_words(struct kix_tpl *row, const char *name, const uint8_t signer[32])
{
    char hex[65];

    kix_hex_encode(signer, 32, hex);
    return kix_tpl_setf(row, name, "key %.16s", hex);
}

static int run_reruns(struct kix_tpl *t, const struct kix_run_view *v)
{
    int rc = kix_tpl_section(t, "rerunRows");

    for (size_t i = 0; rc == KIX_OK && i < v->nreruns; i++) {
        const struct kix_rerun_view *x = &v->reruns[i];
        struct kix_tpl *row = kix_tpl_row(t, "rerunRows");
        char signer[65];
        kix_hex_encode(x->signer, 32, signer);
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "index", "%llu", (unsigned long long)x->index)) ||
            (rc = kix_tpl_setn(row, "observedDay", x->observed, strnlen(x->observed, 10))) ||
            (rc = kix_tpl_set(row, "outcome", kix_words_outcome(x->outcome))) ||
            (rc = kix_tpl_set(row, "status", x->status)) ||
            (rc = figure(row, "median", x->figures.have, x->figures.median, x->figures.bytes)) ||
            (rc = spread(row, &x->figures)) ||
            (rc = kix_tpl_set(row, "digest", x->manifest_digest)) ||
            (rc = kix_tpl_setf(row, "rerunBy", "key %.16s%s", signer,
                               x->self ? " (the publisher itself)" : "")))
            return rc;
    }
    if (rc == KIX_OK && v->res->run.reruns > v->nreruns)
        return kix_tpl_setf(t, "moreReruns", "%llu",
                            (unsigned long long)(v->res->run.reruns - v->nreruns));
    return rc ? rc : kix_tpl_set(t, "moreReruns", "");
}

static int run_attestations(struct kix_tpl *t, const struct kix_run_view *v)
{
    int rc = kix_tpl_section(t, "attestationRows");

    for (size_t i = 0; rc == KIX_OK && i < v->nattestations; i++) {
        const struct kix_attestation_view *a = &v->attestations[i];
        struct kix_tpl *row = kix_tpl_row(t, "attestationRows");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "index", "%llu", (unsigned long long)a->index)) ||
            (rc = kix_tpl_setn(row, "day", a->date, strnlen(a->date, 10))) ||
            (rc = key_words(row, "by", a->signer)) || (rc = kix_tpl_set(row, "text", a->text)))
            return rc;
        if (a->open_note) {
            char hex[65];
            kix_hex_encode(a->signer, 32, hex);
            rc = kix_tpl_setf(row, "by", "key %.16s (community, unregistered key)", hex);
        }
    }
    return rc;
}

/* The withdrawal in force ("wd..."; wdReason "" when none). */
static int run_withdrawal(struct kix_tpl *t, const struct kix_withdrawal_view *w)
{
    int on = w->index != KIX_NO_INDEX, rc;

    if ((rc = kix_tpl_set(t, "wdReason", on ? w->reason : "")) ||
        (rc = kix_tpl_setf(t, "wdIndex", "%llu", (unsigned long long)(on ? w->index : 0))) ||
        (rc = kix_tpl_setn(t, "wdDay", w->date, strnlen(w->date, 10))) ||
        (rc = kix_tpl_set(t, "wdBy", w->by_publisher ? "publisher" : "curator")) ||
        (rc = key_words(t, "wdKey", w->signer)) || (rc = kix_tpl_set(t, "wdNote", w->note)))
        return rc;
    return kix_tpl_set(t, "wdEvidence", w->evidence);
}

/* One end of a supersession: prefix "by" or "of" (supersededBy, supersedes). */
static int run_supersession(struct kix_tpl *t, const char *prefix,
                            const struct kix_supersession_view *x)
{
    char name[32];
    int rc;

    snprintf(name, sizeof(name), "%sRun", prefix);
    if ((rc = kix_tpl_set(t, name, x->run_id)))
        return rc;
    snprintf(name, sizeof(name), "%sHref", prefix);
    if ((rc = x->run_id[0] ? kix__tpl_run_href(t, name, x->run_id) : kix_tpl_set(t, name, "")))
        return rc;
    snprintf(name, sizeof(name), "%sIndex", prefix);
    if ((rc = x->run_id[0] && x->date[0]
                  ? kix_tpl_setf(t, name, "%llu", (unsigned long long)x->index)
                  : kix_tpl_set(t, name, "")))
        return rc;
    snprintf(name, sizeof(name), "%sDay", prefix);
    if ((rc = kix_tpl_setn(t, name, x->date, strnlen(x->date, 10))))
        return rc;
    snprintf(name, sizeof(name), "%sReason", prefix);
    return kix_tpl_set(t, name, x->reason);
}

/* named: field cells carry their JSON pointer (kixd's pages); else (an
 * exported page) they are plain cells, which kix-verify.js names by their
 * place from the manifest (PROTOCOL.md §3, "Field cells by position"):
 * about 1 KB a page */
static int run_sections(struct kix_tpl *t, const struct kix_run_view *v, int named)
{
    int rc = kix_tpl_section(t, "sections");

    for (int i = 0; rc == KIX_OK && i < KIX_VIEW_SECTIONS; i++) {
        const struct kix_view_section *s = &v->sections[i];
        struct kix_tpl *sec = kix_tpl_row(t, "sections");
        char id[32];
        snprintf(id, sizeof(id), "%s", s->title);
        for (char *p = id; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        if (!sec)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_set(sec, "sectionId", id)) ||
            (rc = kix_tpl_set(sec, "sectionTitle", s->title)) ||
            (rc = kix_tpl_set(sec, "note", s->note)) ||
            (rc = kix_tpl_set(sec, "empty", s->nrows || s->note[0] ? "" : s->empty)) ||
            (rc = kix_tpl_section(sec, "rows")))
            return rc;
        /* the object every field cell of the section names, when they
         * all name one other than the manifest, is said once on the
         * table (about 35 bytes a row of Workload, Protocol and
         * Environment, on every run page) */
        const char *shared = NULL;
        for (size_t j = 0; j < s->nrows; j++) {
            const struct kix_view_row *w = &s->rows[j];
            const char *o = w->object && *w->object ? w->object : "manifest";
            if (!w->ptr[0])
                continue;
            if (!shared)
                shared = o;
            else if (strcmp(shared, o)) {
                shared = "manifest";
                break;
            }
        }
        if (!shared || !strcmp(shared, "manifest") || !named)
            shared = "";
        if ((rc = kix_tpl_set(sec, "tableObject", shared)))
            return rc;
        for (size_t j = 0; j < s->nrows; j++) {
            const struct kix_view_row *w = &s->rows[j];
            struct kix_tpl *row = kix_tpl_row(sec, "rows");
            if (!row)
                return KIX_ENOMEM;
            /* the cell's defaults, the manifest and text, are left
             * unsaid (its data-kix-ptr alone makes it a field): about
             * half of a field cell's markup, in every row of every run
             * page (PROTOCOL.md, the pages' verifier) */
            const char *object =
                w->object && strcmp(w->object, "manifest") && strcmp(w->object, shared) ? w->object
                                                                                        : "";
            const char *fmt = w->fmt && strcmp(w->fmt, "text") ? w->fmt : "";
            if ((rc = kix_tpl_set(row, "label", w->label)) ||
                (rc = kix_tpl_set(row, "value", w->value)) ||
                (rc = kix_tpl_set(row, "object", object)) ||
                (rc = kix_tpl_set(row, "ptr", named ? w->ptr : "")) ||
                (rc = kix_tpl_set(row, "fmt", fmt)) ||
                (rc = kix_tpl_set(row, "words", w->words ? w->words : "")))
                return rc;
        }
    }
    return rc;
}

static int run_entries(struct kix_tpl *t, const struct kix_run_view *v)
{
    const struct kix_resolution *res = v->res;
    int rc = kix_tpl_section(t, "entries");

    for (size_t i = 0; rc == KIX_OK && i < res->nentries; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "entries");
        char tile[KIX_TLOG_PATH_MAX + 1], bundle[KIX_TLOG_PATH_MAX + 1];
        kix_view_entry_paths(res->entries[i].index, res->size, tile, bundle);
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "index", "%llu", (unsigned long long)res->entries[i].index)) ||
            (rc = kix_tpl_set(row, "type", kix_words_entry_type(res->entries[i].type))) ||
            (rc = kix_tpl_set(row, "tile", tile)) || (rc = kix_tpl_set(row, "bundle", bundle)))
            return rc;
    }
    return rc;
}

/* s percent-encoded for a data: URI (RFC 3986 unreserved kept). */
static int uri_encode(struct kix_tpl *t, const char *name, const struct kix_buf *s)
{
    static const char hexd[] = "0123456789ABCDEF";
    struct kix_buf out = KIX_BUF_INIT;
    int rc = kix_buf_grow(&out, 3 * s->len + 1);

    /* by hand, not kix_buf_addf a byte: this ran for every byte of two
     * citations of every run page an export writes (6% of its CPU) */
    for (size_t i = 0; rc == KIX_OK && i < s->len; i++) {
        uint8_t c = s->ptr[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out.ptr[out.len++] = c;
        } else {
            out.ptr[out.len++] = '%';
            out.ptr[out.len++] = (uint8_t)hexd[c >> 4];
            out.ptr[out.len++] = (uint8_t)hexd[c & 15];
        }
    }
    if (rc == KIX_OK)
        rc = kix_tpl_setn(t, name, out.len ? (const char *)out.ptr : "", out.len);
    kix_buf_release(&out);
    return rc;
}

/* The cite box: kix cite's three forms (kix/cite.h) at the page's
 * checkpoint. Not full (an exported page): the text alone, as the page
 * shows no other; its verifier builds BibTeX and CSL-JSON from what it
 * proves (PROTOCOL.md §3, "A run page's shell"). */
static int run_cite(struct kix_tpl *t, const struct kix_run_view *v, const char *today, int full)
{
    struct kix_cite c;
    struct kix_buf text = KIX_BUF_INIT, bib = KIX_BUF_INIT, csl = KIX_BUF_INIT;
    int rc = kix_cite_init_at_res(&c, v->res, today);

    if (rc == KIX_OK && (rc = kix_cite_text(&c, &text)) == KIX_OK)
        rc = kix_tpl_setn(t, "citeText", (const char *)text.ptr, text.len);
    if (rc == KIX_OK && full && (rc = kix_cite_bibtex(&c, &bib)) == KIX_OK &&
        (rc = kix_cite_csl(&c, &csl)) == KIX_OK &&
        (rc = kix_tpl_setn(t, "bibtex", (const char *)bib.ptr, bib.len)) == KIX_OK &&
        (rc = kix_tpl_setn(t, "csl", (const char *)csl.ptr, csl.len)) == KIX_OK &&
        (rc = uri_encode(t, "bibtexUri", &bib)) == KIX_OK)
        rc = uri_encode(t, "cslUri", &csl);
    kix_cite_release(&c);
    kix_buf_release(&text);
    kix_buf_release(&bib);
    kix_buf_release(&csl);
    return rc;
}

/* "Add a reproduction or note" (kix-write.js), where the pages have an
 * address to send to: one from the site's root is written from the run
 * page's folder (runs/), an absolute one as it is. */
static int submit_slots(struct kix_tpl *t)
{
    const char *url = kix__pages_submit_url();

    if (!*url)
        return kix_tpl_set(t, "submitUrl", "");
    if (strstr(url, "://"))
        return kix_tpl_set(t, "submitUrl", url);
    return kix_tpl_setf(t, "submitUrl", "../%s", url);
}

/* The run's kernel as its kernel page is named (kernels/<kernel>): the
 * workload's spec.kernel, "" without one. */
static const char *kernel_id(const struct kix_run_view *v)
{
    const char *want =
        json_string_value(json_object_get(json_object_get(v->manifest, "spec"), "workloadDigest"));
    const char *k;

    for (size_t i = 0; want && i < v->nobjects; i++)
        if (strcmp(v->objects[i].digest, want) == 0 &&
            (k = json_string_value(
                 json_object_get(json_object_get(v->objects[i].json, "spec"), "kernel"))) != NULL)
            return k;
    return "";
}

static int run_slots(struct kix_tpl *t, const struct kix_run_view *v, const struct kix_buf *doc,
                     int64_t now, int full)
{
    const struct kix_resolution *res = v->res;
    const struct kix_figures *f = &v->primary;
    const char *status =
        json_string_value(json_object_get(json_object_get(v->manifest, "spec"), "status"));
    char today[16], stale[96];
    struct tm tm;
    time_t tnow = (time_t)now;
    int rc;

    gmtime_r(&tnow, &tm);
    strftime(today, sizeof(today), "%Y-%m-%d", &tm);
    kix_run_view_staleness(v, STALE_DAYS, now, stale, sizeof(stale));
    char name[KIX_RUN_PAGE_NAME_MAX + 1];
    int escaped;

    /* the page's own files: runs/<name>.json beside runs/<name>.html */
    if (kix_run_page_name(res->run.run_id, strlen(res->run.run_id), name, sizeof(name), &escaped) !=
        KIX_OK)
        snprintf(name, sizeof(name), "%s", res->run.run_id);
    if ((rc = kix_tpl_set(t, "runId", res->run.run_id)) || (rc = kix_tpl_set(t, "runName", name)) ||
        (rc = res->rank.best[0] ? kix__tpl_run_href(t, "bestHref", res->rank.best)
                                : kix_tpl_set(t, "bestHref", "")) ||
        (rc = kix_tpl_set(t, "origin", v->origin)) || (rc = kix_tpl_set(t, "title", v->title)) ||
        (rc = kix_tpl_set(t, "implementation", v->implementation)) ||
        (rc = kix_tpl_set(t, "kernel", v->kernel)) ||
        (rc = kix_tpl_set(t, "kernelId", kernel_id(v))) ||
        (rc = kix_tpl_set(t, "status", status && *status ? status : "unknown")) ||
        (rc = kix_tpl_set(t, "evidenceText", v->evidence_text)) ||
        (rc = kix_tpl_set(t, "stale", stale)) ||
        (rc = kix_tpl_setf(t, "reruns", "%llu", (unsigned long long)res->run.reruns)) ||
        (rc = kix_tpl_setf(t, "attestations", "%llu", (unsigned long long)res->run.attestations)) ||
        (rc = figure(t, "median", f->have, f->median, f->bytes)) ||
        (rc = kix_tpl_set(t, "metric", f->bytes ? "peak memory" : "latency")) ||
        (rc = spread(t, f)) ||
        (rc = v->ranked
                  ? kix_tpl_setf(t, "rank", "Rank %llu of %llu", (unsigned long long)res->rank.rank,
                                 (unsigned long long)res->rank.group_size)
                  : kix_tpl_set(t, "rank", "")) ||
        (rc = kix_tpl_set(t, "notBest", v->ranked && res->rank.rank != 1 ? "yes" : "")) ||
        (rc = kix_tpl_set(t, "group", v->group)) || (rc = kix_tpl_set(t, "best", res->rank.best)) ||
        (rc = run_supersession(t, "by", &v->superseded_by)) ||
        (rc = run_supersession(t, "of", &v->supersedes)) ||
        (rc = run_withdrawal(t, &v->withdrawn)) ||
        (rc = kix_tpl_setn(t, "observedDay", v->observed, strnlen(v->observed, 10))) ||
        (rc = kix_tpl_setf(t, "treeSize", "%llu", (unsigned long long)res->size)) ||
        (rc = kix_tpl_setn(t, "permalink", (const char *)v->permalink.ptr, v->permalink.len)) ||
        (rc = kix_tpl_set(t, "manifestDigest", v->manifest_digest)) || (rc = submit_slots(t)) ||
        (rc = kix_tpl_setn(t, "manifestCanonical", (const char *)res->manifest.ptr,
                           res->manifest.len)) ||
        (rc = kix_tpl_setn(t, "checkpoint", (const char *)res->checkpoint.ptr,
                           res->checkpoint.len)) ||
        (rc = kix_tpl_setn(t, "logKey", (const char *)v->log_key.ptr, v->log_key.len)) ||
        (rc = kix__page_pin(t, res->checkpoint.ptr, res->checkpoint.len)) ||
        (rc = kix_tpl_set(t, "accessed", today)) ||
        (rc = kix_tpl_setf(t, "published", "%.10s", v->published)) ||
        (rc = kix_tpl_set(t, "source", v->source)) ||
        (rc = kix_tpl_set(t, "license", v->license[0] ? v->license : "license not stated")) ||
        (rc = kix_tpl_setn(t, "view", (const char *)doc->ptr, doc->len)))
        return rc;
    if ((rc = run_reruns(t, v)) || (rc = run_attestations(t, v)) ||
        (rc = run_sections(t, v, full)) || (rc = run_cite(t, v, today, full)))
        return rc;
    return run_entries(t, v);
}

/* The HTML of the built view v, whose document for the page (kix_run_view_json
 * with KIX_VIEW_JSON_HTML) is doc, embedded as #kix-view. Not full: an
 * exported page, whose copies of what its view holds (the canonical
 * manifest) or of what the verifier derives (BibTeX, CSL-JSON and their
 * download links) are left for the verifier to fill, so that the static
 * copy holds them once (the slot "full", PROTOCOL.md §3). */
static int run_html_of(const struct kix_run_view *v, const struct kix_buf *doc, int full,
                       struct kix_buf *out, struct kix_err *err)
{
    struct kix_tpl *t = kix_tpl_new();
    int rc = t ? run_slots(t, v, doc, (int64_t)time(NULL), full) : KIX_ENOMEM;

    if (rc == KIX_OK)
        rc = kix_tpl_set(t, "full", full ? "yes" : "");

    if (rc != KIX_OK)
        rc = kix_err_set(err, rc, "out of memory");
    else
        rc = kix_tpl_render((const char *)kix__run_html, kix__run_html_len, t, out, err);
    kix_tpl_free(t);
    return rc;
}

int kix_page_run_html(struct kix_source *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_run_view v;
    struct kix_buf doc = KIX_BUF_INIT;
    int rc;

    kix_resolution_init(&res);
    rc = kix_run_view_from_source(r, run_id, len, &res, &v, err);
    if (rc == KIX_OK)
        rc = kix_run_view_json(&v, KIX_VIEW_JSON_HTML, &doc, err);
    if (rc == KIX_OK)
        rc = run_html_of(&v, &doc, 1, out, err);
    kix_buf_release(&doc);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return rc;
}

int kix__page_run_both(struct kix_source *r, const char *run_id, size_t len, struct kix_buf *html,
                       struct kix_buf *json, struct kix_err *err)
{
    struct kix_resolution res;
    struct kix_run_view v;
    int rc;

    kix_resolution_init(&res);
    rc = kix_run_view_from_source(r, run_id, len, &res, &v, err);
    if (rc == KIX_OK)
        rc = kix_run_view_json(&v, KIX_VIEW_JSON_EXPORT | KIX_VIEW_JSON_HTML, json, err);
    if (rc == KIX_OK)
        rc = run_html_of(&v, json, 0, html, err);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return rc;
}
