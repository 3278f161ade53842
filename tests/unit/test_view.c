/* A run's view in words (kix/view.h): the header, the evidence, the
 * sections (never a JSON value in a cell), attestations with their text,
 * supersession both ways with its reason; and that the view document
 * (kix.run/1), kix show's text (kix/view_text.h) and the page (kix/pages.h)
 * say the same, with the cite box giving kix cite's forms (kix/cite.h). */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "pages_fixture.h"
#include "kix/doc.h"
#include "kix/cite.h"
#include "kix/file.h"
#include "kix/index.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/view_text.h"

static const char *const nested_workload =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":{\"name\":"
    "\"w\",\"title\":\"Rotary position embedding \xc2\xb7 seq = 2048\"},\"spec\":{\"kernel\":"
    "\"rope\",\"dtype\":\"bf16\",\"parameters\":{\"seq\":2048,\"causal\":true,\"eps\":1e-06},"
    "\"tensors\":[{\"name\":\"q\",\"dtype\":\"bf16\",\"shape\":[1,32,2048,16]}],\"config\":{"
    "\"a\":{\"b\":[1,2],\"c\":{\"d\":\"deep\"}},\"list\":[{\"k\":1},{\"k\":[\"x\",\"y\"]}],"
    /* a field too deep for a row's pointer: left out, never misnamed */
    "\"deep\":{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":{"
    "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\":"
    "{\"cccccccccccccccccccccccccccccccccccccccc\":{\"dddddddddddddddddddddddddddddddddddddddd\":{"
    "\"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\":{\"ffff\":\"hidden\"}}}}}}},"
    "\"definition\":{\"name\":\"rope\",\"comparator\":\"allclose\",\"tolerance\":0.01}}}";
static const char *const nested_environment =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"ExecutionEnvironment\",\"metadata\":"
    "{\"name\":\"e\"},\"spec\":{\"hardware\":{\"vendor\":\"nvidia\",\"product\":\"NVIDIA A100\","
    "\"architecture\":\"sm_80\",\"count\":8,\"memoryBytes\":85899345920},\"software\":{"
    "\"cudaVersion\":\"12.4\",\"frameworks\":{\"torch\":\"2.4.0\",\"triton\":\"3.0.0\"}}}}";
static const char *const nested_protocol =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkProtocol\",\"metadata\":{"
    "\"name\":\"p\"},\"spec\":{\"harness\":{\"name\":\"bench\",\"command\":\"python b.py\"},"
    "\"measurement\":{\"timer\":\"cuda_events\",\"primaryStatistic\":\"median\",\"pass\":"
    "\"forward\",\"iterations\":100}}}";
static const char *const nested_implementation =
    "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Implementation\",\"metadata\":{"
    "\"name\":\"i\"},\"spec\":{\"provider\":\"liger\",\"name\":\"Liger\"}}";

/* A run whose records nest: objects in objects, lists of objects, a shape. */
static int publish_nested(struct fixture *f, const char *run_id)
{
    char manifest[2048], w[KIX_DIGEST_TEXT_LEN + 1], e[KIX_DIGEST_TEXT_LEN + 1],
        p[KIX_DIGEST_TEXT_LEN + 1], i[KIX_DIGEST_TEXT_LEN + 1];
    const char *objects[5] = {manifest, nested_workload, nested_environment, nested_protocol,
                              nested_implementation};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_digest d;
    int rc;

    digest_text_of_json(nested_workload, w);
    digest_text_of_json(nested_environment, e);
    digest_text_of_json(nested_protocol, p);
    digest_text_of_json(nested_implementation, i);
    snprintf(
        manifest, sizeof(manifest),
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
        "{\"name\":\"r\",\"labels\":{\"v\":\"1\"}},\"spec\":{\"status\":\"passed\","
        "\"observedAt\":\"2026-01-02T03:04:05Z\",\"timing\":{\"latencyNs\":{\"median\":11360}},"
        "\"measurements\":[{\"metric\":\"latency\",\"statistic\":\"p20\",\"unit\":\"ns\","
        "\"value\":10336},{\"metric\":\"peak_memory\",\"statistic\":\"p80\",\"unit\":"
        "\"B\",\"value\":1048576}],\"correctness\":{\"policy\":\"allclose\",\"notes\":"
        "\"rtol 1e-2\"},\"artifacts\":[{\"name\":\"log.txt\",\"bytes\":2048,\"url\":"
        "\"https://x.test/log.txt\"}],\"workloadDigest\":\"%s\",\"environmentDigest\":\"%s\","
        "\"protocolDigest\":\"%s\",\"implementationDigest\":\"%s\"}}",
        w, e, p, i);
    digest_of_json(manifest, &d);
    rc = kix_entry_publication(f->publisher, run_id, &d, "2026-11-29T00:00:00Z", "test",
                               "BSD-2-Clause", &env, &err);
    if (rc == KIX_OK)
        rc = submit(f, &env, objects, 5, &res, &err);
    if (rc)
        fprintf(stderr, "publish %s: %s\n", run_id, err.msg);
    kix_buf_release(&env);
    return rc;
}

struct shown {
    struct kix_resolution res;
    struct kix_run_view v;
    struct kix_buf doc, page;
    char *text;
};

/* run_id's view from the store, its document, kix show's text, its page. */
static void show(struct fixture *f, const char *run_id, struct shown *s)
{
    struct kix_source *r = as_source(f->log, NULL);
    struct kix_run_text t = {0};
    struct kix_err err = {0};
    size_t len = 0;
    FILE *out = open_memstream(&s->text, &len);

    kix_resolution_init(&s->res);
    kix_buf_init(&s->doc);
    kix_buf_init(&s->page);
    t.cite_origin = ORIGIN;
    t.today = "2026-12-03";
    t.stale_days = 100000;
    if (!out || kix_run_view_from_source(r, run_id, strlen(run_id), &s->res, &s->v, &err) ||
        kix_run_view_json(&s->v, 0, &s->doc, &err) ||
        kix_page_run_html(r, run_id, strlen(run_id), &s->page, &err) || kix_buf_addc(&s->doc, 0) ||
        kix_buf_addc(&s->page, 0)) {
        fprintf(stderr, "show %s: %s\n", run_id, err.msg);
        abort();
    }
    kix_run_view_text(&s->v, &t, out);
    fclose(out);
    kix_source_close(r); /* the resolution owns what the view borrows */
}

static void shown_release(struct shown *s)
{
    kix_run_view_release(&s->v);
    kix_resolution_release(&s->res);
    kix_buf_release(&s->doc);
    kix_buf_release(&s->page);
    free(s->text);
}

/* The value at a JSON pointer without escapes (the test's data has none). */
static json_t *at(json_t *doc, const char *ptr)
{
    char key[256];

    while (doc && *ptr == '/') {
        size_t n = strcspn(ptr + 1, "/");
        snprintf(key, sizeof(key), "%.*s", (int)n, ptr + 1);
        doc = json_is_array(doc) ? json_array_get(doc, strtoul(key, NULL, 10))
                                 : json_object_get(doc, key);
        ptr += n + 1;
    }
    return *ptr ? NULL : doc;
}

/* The object a row names: the manifest, or the one its digest field names. */
static json_t *row_object(json_t *doc, const char *object)
{
    const char *digest;
    json_t *o;
    size_t i;

    if (strcmp(object, "manifest") == 0)
        return json_object_get(doc, "manifest");
    digest = json_string_value(
        at(doc, "/manifest/spec") ? json_object_get(at(doc, "/manifest/spec"), object) : NULL);
    json_array_foreach(json_object_get(doc, "objects"), i, o)
    {
        if (digest && strcmp(json_string_value(json_object_get(o, "digest")), digest) == 0)
            return json_object_get(o, "object");
    }
    return NULL;
}

/* s HTML-escaped as the template engine writes it. */
static char *escaped(const char *s)
{
    size_t n = 0;
    char *out = malloc(6 * strlen(s) + 1);

    for (; out && *s; s++) {
        const char *e = *s == '&'    ? "&amp;"
                        : *s == '<'  ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '"'  ? "&quot;"
                        : *s == '\'' ? "&#39;"
                                     : NULL;
        if (e) {
            memcpy(out + n, e, strlen(e));
            n += strlen(e);
        } else {
            out[n++] = *s;
        }
    }
    if (out)
        out[n] = '\0';
    return out;
}

KIX_TEST(every_section_row_is_words_and_the_three_renderings_agree)
{
    struct fixture f;
    struct shown s;
    json_t *doc, *sections, *sec, *row;
    size_t i, j, rows = 0;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_nested(&f, "nested"));
    show(&f, "nested", &s);
    doc = json_loads((const char *)s.doc.ptr, 0, NULL);
    ASSERT_TRUE(doc != NULL);
    sections = json_object_get(doc, "sections");
    ASSERT_EQ_U64(KIX_VIEW_SECTIONS, json_array_size(sections));
    json_array_foreach(sections, i, sec)
    {
        const struct kix_view_section *vs = &s.v.sections[i];
        ASSERT_EQ_STR(vs->title, json_string_value(json_object_get(sec, "title")));
        ASSERT_EQ_U64(vs->nrows, json_array_size(json_object_get(sec, "rows")));
        json_array_foreach(json_object_get(sec, "rows"), j, row)
        {
            const char *label = json_string_value(json_object_get(row, "label"));
            const char *value = json_string_value(json_object_get(row, "value"));
            const char *fmt = json_string_value(json_object_get(row, "fmt"));
            char line[1400], *cell, *ev;
            /* no JSON in a cell: only a shape is bracketed */
            if (strcmp(fmt, "shape") != 0 && (strchr(value, '{') || strchr(value, '['))) {
                fprintf(stderr, "%s: %s = %s\n", vs->title, label, value);
                ASSERT_TRUE(!"a section row holds JSON");
            }
            ASSERT_TRUE(!strchr(label, '{') && !strchr(label, '['));
            if (json_object_get(row, "ptr")) {
                /* a verifier recomputes the value from the field the row names */
                char again[1024];
                json_t *field =
                    at(row_object(doc, json_string_value(json_object_get(row, "object"))),
                       json_string_value(json_object_get(row, "ptr")));
                ASSERT_TRUE(field != NULL);
                kix_view_format(field, fmt, again, sizeof(again));
                ASSERT_EQ_STR(value, again);
            }
            /* the text prints the row, the page holds it in a cell */
            snprintf(line, sizeof(line), "  %s", label);
            ASSERT_CONTAINS(s.text, line);
            snprintf(line, sizeof(line), " %s\n", value);
            ASSERT_CONTAINS(s.text, line);
            ev = escaped(value);
            ASSERT_TRUE(ev != NULL);
            if (json_object_get(row, "ptr")) {
                char *ptr = escaped(json_string_value(json_object_get(row, "ptr")));
                const char *obj = json_string_value(json_object_get(row, "object"));
                char oattr[128] = "", fattr[64] = "";
                /* the defaults (the manifest, text) are left unsaid */
                if (strcmp(obj, "manifest") != 0)
                    snprintf(oattr, sizeof(oattr), " data-kix-object=\"%s\"", obj);
                if (strcmp(fmt, "text") != 0)
                    snprintf(fattr, sizeof(fattr), " data-kix-fmt=\"%s\"", fmt);
                cell = malloc(strlen(ev) + 512);
                sprintf(cell, "<td%s data-kix-ptr=\"%s\"%s>%s</td>", oattr, ptr, fattr, ev);
                /* or the object said once on the section's table, when
                 * every field cell of it names that object */
                if (oattr[0] && !strstr((const char *)s.page.ptr, cell)) {
                    char tbl[192];
                    snprintf(tbl, sizeof(tbl), "<table class=\"kv\"%s>", oattr);
                    ASSERT_CONTAINS((const char *)s.page.ptr, tbl);
                    sprintf(cell, "<td data-kix-ptr=\"%s\"%s>%s</td>", ptr, fattr, ev);
                }
                free(ptr);
            } else {
                cell = malloc(strlen(ev) + 16);
                sprintf(cell, "<td>%s</td>", ev);
                /* or a computed row the page's verifier writes again, in
                 * a cell named by its kind (data-kix-words) */
                if (!strstr((const char *)s.page.ptr, cell) &&
                    strstr((const char *)s.page.ptr, "data-kix-words=\""))
                    sprintf(cell, "\">%s</td>", ev);
            }
            ASSERT_CONTAINS((const char *)s.page.ptr, cell);
            free(cell);
            free(ev);
            rows++;
        }
    }
    ASSERT_TRUE(rows > 30);
    /* what nested is flattened into rows, by its path in words */
    ASSERT_CONTAINS(s.text, "  config a b             1, 2\n");
    ASSERT_CONTAINS(s.text, "  config a c d           deep\n");
    ASSERT_TRUE(strstr(s.text, "hidden") == NULL && strstr(s.text, "ffff") == NULL);
    ASSERT_CONTAINS(s.text, "  config list 2 k        x, y\n");
    ASSERT_CONTAINS(s.text, "  q                      bf16 [1, 32, 2048, 16]\n");
    ASSERT_CONTAINS(s.text, "  frameworks torch       2.4.0\n");
    ASSERT_CONTAINS(s.text, "  memory                 80.0 GiB\n");
    ASSERT_CONTAINS(s.text, "  artifact 1 size        2.00 KiB\n");
    ASSERT_CONTAINS(s.text, "  peak_memory \xc2\xb7 p80      1.00 MiB\n");
    ASSERT_CONTAINS(s.text, "  causal                 true\n");
    ASSERT_CONTAINS(s.text, "  eps                    0.000001\n");
    ASSERT_CONTAINS(s.text, "  policy                 allclose\n");
    ASSERT_CONTAINS(s.text, "  harness                bench\n");
    ASSERT_CONTAINS(s.text, "  harness command        python b.py\n");
    ASSERT_CONTAINS(s.text, "  timer                  cuda_events\n");
    /* the header in words: implementation · kernel · workload · pass · GPU · dtype */
    ASSERT_EQ_STR(
        "Liger \xc2\xb7 Rotary position embedding \xc2\xb7 causal = true \xc2\xb7 eps = "
        "0.000001 \xc2\xb7 seq = 2048 \xc2\xb7 forward \xc2\xb7 NVIDIA A100 \xc2\xb7 bf16",
        s.v.title);
    ASSERT_EQ_STR(s.v.title, json_string_value(json_object_get(doc, "title")));
    ASSERT_CONTAINS(s.text, s.v.title);
    ASSERT_CONTAINS((const char *)s.page.ptr, "<h1 data-kix-slot=\"title\">Liger \xc2\xb7 Rotary");
    ASSERT_EQ_STR("Reported evidence", json_string_value(json_object_get(doc, "evidenceText")));
    ASSERT_CONTAINS((const char *)s.page.ptr,
                    "data-kix-slot=\"median\" id=\"median\">11.4 \xc2\xb5s</span>");
    json_decref(doc);
    shown_release(&s);
    teardown(&f);
}

enum about { ATTEST, RERUN, SUPERSEDE };

/* Logs an entry about run_id (published with `tag`): an attestation whose
 * note is text, a reproducing rerun, or its supersession by run text
 * ("fixed timer"). *index: the entry's. */
static int log_about(struct fixture *f, enum about what, const char *run_id, int tag,
                     const char *text, uint64_t *index)
{
    char manifest[512];
    struct kix_digest d, rd;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res = {0};
    struct kix_err err = {0};
    const char *objs[1] = {manifest};
    int rc;

    run_manifest(manifest, sizeof(manifest), tag);
    digest_of_json(manifest, &d);
    run_manifest(manifest, sizeof(manifest), 100 + tag); /* a rerun's own manifest */
    digest_of_json(manifest, &rd);
    if (what == ATTEST)
        rc = kix_entry_attestation_at(f->attester, run_id, &d, text, NULL, 0,
                                      "2026-11-30T10:00:00Z", &env, &err);
    else if (what == RERUN)
        rc = kix_entry_rerun(f->rerunner, run_id, &d, "reproduced", &rd, "2026-10-01T00:00:00Z",
                             &env, &err);
    else
        rc = kix_entry_supersession_at(f->publisher, run_id, &d, text, "fixed timer",
                                       "2026-12-01T00:00:00Z", &env, &err);
    if (rc == KIX_OK)
        rc = submit(f, &env, objs, what == RERUN, &res, &err);
    *index = res.index;
    kix_buf_release(&env);
    return rc;
}

KIX_TEST(attestations_reruns_and_supersession_both_ways_in_words)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct shown old, fixed;
    uint64_t sup = 0;
    char want[512];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK,
                  log_about(&f, ATTEST, "run-1", 1, "Same figure on our A100 <b>& co</b>", &sup));
    ASSERT_EQ_INT(KIX_OK, log_about(&f, RERUN, "run-1", 1, NULL, &sup));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, log_about(&f, SUPERSEDE, "run-1", 1, "run-2", &sup));

    show(&f, "run-1", &old);
    ASSERT_EQ_U64(1, old.v.nattestations);
    ASSERT_EQ_STR("Same figure on our A100 <b>& co</b>", old.v.attestations[0].text);
    ASSERT_EQ_STR("Reproduced by a controlled rerun on 2026-10-01", old.v.evidence_text);
    ASSERT_EQ_STR("run-2", old.v.superseded_by.run_id);
    ASSERT_EQ_STR("fixed timer", old.v.superseded_by.reason);
    ASSERT_EQ_U64(sup, old.v.superseded_by.index);
    /* the document */
    ASSERT_CONTAINS((const char *)old.doc.ptr,
                    "\"attestationList\":[{\"attestedAt\":\"2026-11-30T10:00:00Z\",\"index\":");
    ASSERT_CONTAINS((const char *)old.doc.ptr,
                    "\"text\":\"Same figure on our A100 <b>& co</b>\"}]");
    snprintf(want, sizeof(want),
             "\"supersededByEntry\":{\"date\":\"2026-12-01T00:00:00Z\",\"index\":%llu,\"reason\":"
             "\"fixed timer\",\"runId\":\"run-2\",\"signer\":\"",
             (unsigned long long)sup);
    ASSERT_CONTAINS((const char *)old.doc.ptr, want);
    ASSERT_CONTAINS((const char *)old.doc.ptr,
                    "\"evidenceText\":\"Reproduced by a controlled rerun on 2026-10-01\"");
    /* the text */
    ASSERT_CONTAINS(old.text, ": Same figure on our A100 <b>& co</b>\n");
    snprintf(want, sizeof(want),
             "SUPERSEDED by run run-2 (entry %llu, 2026-12-01): this record was corrected: fixed "
             "timer.\n",
             (unsigned long long)sup);
    ASSERT_CONTAINS(old.text, want);
    ASSERT_CONTAINS(old.text, "Reproduced by a controlled rerun on 2026-10-01");
    /* the page: escaped, in its slots */
    ASSERT_CONTAINS((const char *)old.page.ptr,
                    "<td>Same figure on our A100 &lt;b&gt;&amp; co&lt;/b&gt;</td>");
    ASSERT_CONTAINS((const char *)old.page.ptr,
                    "<p class=\"alert\" data-kix-slot=\"superseded-by\">Superseded by <a "
                    "href=\"run-2.html\">run run-2</a>");
    ASSERT_CONTAINS((const char *)old.page.ptr, "<q>fixed timer</q>");
    ASSERT_CONTAINS((const char *)old.page.ptr, "<tbody data-kix-slot=\"attestations\">");
    ASSERT_CONTAINS((const char *)old.page.ptr, "<td>reproduced</td>");
    ASSERT_CONTAINS((const char *)old.page.ptr,
                    "data-kix-slot=\"evidence\" id=\"evidence\">Reproduced by a controlled rerun "
                    "on 2026-10-01</span>");
    shown_release(&old);

    show(&f, "run-2", &fixed);
    ASSERT_EQ_STR("run-1", fixed.v.supersedes.run_id);
    ASSERT_EQ_STR("fixed timer", fixed.v.supersedes.reason);
    snprintf(want, sizeof(want),
             "\"supersedesEntry\":{\"date\":\"2026-12-01T00:00:00Z\",\"index\":%llu,\"reason\":"
             "\"fixed timer\",\"runId\":\"run-1\"",
             (unsigned long long)sup);
    ASSERT_CONTAINS((const char *)fixed.doc.ptr, want);
    snprintf(want, sizeof(want), "Supersedes run run-1 (entry %llu, 2026-12-01): fixed timer.\n",
             (unsigned long long)sup);
    ASSERT_CONTAINS(fixed.text, want);
    ASSERT_CONTAINS((const char *)fixed.page.ptr,
                    "<p class=\"note\" data-kix-slot=\"supersedes\">Supersedes <a "
                    "href=\"run-1.html\">run run-1</a>");
    ASSERT_CONTAINS((const char *)fixed.page.ptr, "<q>fixed timer</q>");
    ASSERT_CONTAINS((const char *)fixed.doc.ptr, "\"attestationList\":[]");
    shown_release(&fixed);
    teardown(&f);
}

KIX_TEST(the_cite_box_gives_kix_cites_three_forms)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct shown s;
    struct kix_cite c;
    struct kix_buf bib = KIX_BUF_INIT, csl = KIX_BUF_INIT, text = KIX_BUF_INIT;
    char today[16], *want;
    time_t now = time(NULL);
    struct tm tm;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    show(&f, "run-1", &s);
    gmtime_r(&now, &tm);
    strftime(today, sizeof(today), "%Y-%m-%d", &tm);
    ASSERT_EQ_INT(KIX_OK, kix_cite_init_at_res(&c, &s.res, today));
    ASSERT_EQ_STR(ORIGIN, c.origin);
    ASSERT_EQ_U64(s.res.size, c.size);
    ASSERT_EQ_INT(44, (int)strlen(c.root)); /* the checkpoint's root, base64 */
    ASSERT_EQ_INT(KIX_OK, kix_cite_bibtex(&c, &bib));
    ASSERT_EQ_INT(KIX_OK, kix_cite_csl(&c, &csl));
    ASSERT_EQ_INT(KIX_OK, kix_cite_text(&c, &text));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&bib, 0));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&csl, 0));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&text, 0));
    ASSERT_CONTAINS((const char *)bib.ptr, "@misc{kix:run-1,\n");
    ASSERT_CONTAINS((const char *)bib.ptr, "  url = {https://kix.test/log/runs/run-1},\n");
    ASSERT_CONTAINS((const char *)csl.ptr, "\"URL\": \"https://kix.test/log/runs/run-1\"");
    /* the page carries each form, escaped, whole */
    want = escaped((const char *)bib.ptr);
    ASSERT_CONTAINS((const char *)s.page.ptr, want);
    free(want);
    want = escaped((const char *)csl.ptr);
    ASSERT_CONTAINS((const char *)s.page.ptr, want);
    free(want);
    want = escaped((const char *)text.ptr);
    ASSERT_CONTAINS((const char *)s.page.ptr, want);
    free(want);
    ASSERT_CONTAINS((const char *)s.page.ptr,
                    "download=\"kix-run-1.bib\" data-kix-slot=\"cite-bibtex-file\" "
                    "href=\"data:application/x-bibtex;charset=utf-8,"
                    "%40misc%7Bkix%3Arun-1%2C%0A");
    kix_cite_release(&c);
    kix_buf_release(&bib);
    kix_buf_release(&csl);
    kix_buf_release(&text);
    shown_release(&s);
    teardown(&f);
}

KIX_TEST(formats_and_staleness_have_one_rule)
{
    static const struct {
        const char *key, *fmt, *want;
    } cases[] = {
        {"a", "ns", "11.4 \xc2\xb5s"},
        {"b", "bytes", "1.50 GiB"},
        {"a", "count", "11360"},
        {"l", "list", "1, two, true, 0.5"},
        {"t", "shape", "bf16 [1, 32, 2048, 16]"},
        {"u", "shape", "[3]"},
        {"d", "date", "2024-09-03"},
        {"r", "text", "0.000001"},
        {"s", "text", "<x>"},
        {"s", "ns", ""}, /* not a number: nothing */
    };
    struct kix_run_view v;
    char out[128];
    json_t *x;

    x = json_loads("{\"a\":11360,\"b\":1610612736,\"l\":[1,\"two\",true,0.5],\"t\":{\"name\":"
                   "\"q\",\"dtype\":\"bf16\",\"shape\":[1,32,2048,16]},\"u\":{\"shape\":[3]},"
                   "\"d\":\"2024-09-03T15:39:55Z\",\"r\":1e-06,\"s\":\"<x>\"}",
                   0, NULL);
    ASSERT_TRUE(x != NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kix_view_format(json_object_get(x, cases[i].key), cases[i].fmt, out, sizeof(out));
        ASSERT_EQ_STR(cases[i].want, out);
    }
    json_decref(x);

    memset(&v, 0, sizeof(v));
    snprintf(v.last_observed, sizeof(v.last_observed), "2024-09-03T15:39:55.000Z");
    /* 2024-12-12T15:39:55Z is 100 days later */
    kix_run_view_staleness(&v, 90, 1734017995, out, sizeof(out));
    ASSERT_EQ_STR("Not re-observed in 100 days.", out);
    kix_run_view_staleness(&v, 100, 1734017995, out, sizeof(out));
    ASSERT_EQ_STR("", out);
    v.last_observed[0] = '\0'; /* never observed: nothing said */
    kix_run_view_staleness(&v, 0, 1734017995, out, sizeof(out));
    ASSERT_EQ_STR("", out);
}

/* The file `name` under dir holds exactly want (want_len bytes). */
static int file_holds(const char *dir, const char *name, const struct kix_buf *want)
{
    struct kix_buf have = KIX_BUF_INIT;
    char path[1024];
    int same;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    same = kix_file_read(path, 1 << 24, &have, NULL) == KIX_OK && have.len == want->len &&
           memcmp(have.ptr, want->ptr, want->len) == 0;
    if (!same)
        fprintf(stderr, "%s: %zu bytes, want %zu\n", path, have.len, want->len);
    kix_buf_release(&have);
    return same;
}

/* page (a run or group page kixd renders) without its #kix-view element
 * and the line it is on; 0 if it has none. */
static int without_view(struct kix_buf *page)
{
    static const char open[] = "<script type=\"application/json\" id=\"kix-view\">",
                      close[] = "</script>\n";
    char *text, *from, *to;

    if (kix_buf_addc(page, 0) != KIX_OK)
        return 0;
    page->len--;
    text = (char *)page->ptr;
    if (!(from = strstr(text, open)) || !(to = strstr(from, close)) || strstr(to, open))
        return 0;
    to += strlen(close);
    memmove(from, to, strlen(to) + 1);
    page->len -= (size_t)(to - from);
    return 1;
}

/* An exported run page's slots named by their ids alone (layout 7:
 * kix-verify.js's COPY_SLOT_IDS), its entries by their table, its cite
 * text by its id and its sections' notes by their section, named as
 * kix-verify.js names them before it reads the page. */
static int ids_as_slots(struct kix_buf *page)
{
    static const char *const names[][2] = {
        {" id=\"evidence\"", " data-kix-slot=\"evidence\" id=\"evidence\""},
        {" id=\"median\"", " data-kix-slot=\"median\" id=\"median\""},
        {" id=\"rank\"", " data-kix-slot=\"rank\" id=\"rank\""},
        {" id=\"observed\"", " data-kix-slot=\"observed\" id=\"observed\""},
        {" id=\"k\"", " data-kix-slot=\"kernel-link\""},
        {" id=\"t\"", " data-kix-slot=\"title\""},
        {" id=\"i\"", " data-kix-slot=\"run-id\""},
        {" id=\"s\"", " data-kix-slot=\"status\""},
        {" id=\"a\"", " data-kix-slot=\"staleness\""},
        {" id=\"w\"", " data-kix-slot=\"spread\""},
        {" id=\"g\"", " data-kix-slot=\"group-link\""},
        {" id=\"b\"", " data-kix-slot=\"best\""},
        {" id=\"rn\"", " data-kix-slot=\"reruns-none\""},
        {" id=\"an\"", " data-kix-slot=\"attestations-none\""},
        {" id=\"z\"", " data-kix-slot=\"tree-size\""},
        {" id=\"f\"", " data-kix-slot=\"published\""},
        {"<tbody>", "<tbody data-kix-slot=\"entries\">"},
        {"class=\"cite\">", "class=\"cite\" data-kix-slot=\"cite-text\">"},
        {"<p data-kix-section=", "<p data-kix-slot=\"section-note\" data-kix-section="}};
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < sizeof(names) / sizeof(names[0]); i++) {
        const char *id = names[i][0], *slot = names[i][1];
        struct kix_buf out = KIX_BUF_INIT;
        const char *p, *at, *end;
        rc = kix_buf_addc(page, 0);
        page->len--;
        p = (const char *)page->ptr;
        end = p + page->len;
        while (rc == KIX_OK && (at = strstr(p, id)) != NULL) {
            rc = kix_buf_add(&out, p, (size_t)(at - p));
            if (rc == KIX_OK)
                rc = kix_buf_add(&out, slot, strlen(slot));
            p = at + strlen(id);
        }
        if (rc == KIX_OK)
            rc = kix_buf_add(&out, p, (size_t)(end - p));
        if (rc == KIX_OK) {
            kix_buf_release(page);
            *page = out;
        } else {
            kix_buf_release(&out);
        }
    }
    return rc;
}

/* The data-kix-slot names of a page, in order, one a line; but for the
 * boxes an exported run page leaves to its verifier to build (the
 * checkpoint, BibTeX, CSL-JSON and manifest boxes kixd's own page has
 * filled, and since layout 7 the manifest's section with its digest) and
 * the group's links (an exported page links its group once: the caller
 * counts them). */
static int slot_names(const struct kix_buf *page, struct kix_buf *out)
{
    static const char at[] = "data-kix-slot=\"";
    static const char *const built[] = {"checkpoint",    "cite-about",      "manifest",
                                        "cite-bibtex",   "cite-csl",        "cite-bibtex-file",
                                        "cite-csl-file", "manifest-digest", "group-link"};
    char *text = strndup((const char *)page->ptr, page->len);
    const char *p = text;
    int rc = text ? KIX_OK : KIX_ENOMEM;

    while (rc == KIX_OK && (p = strstr(p, at)) != NULL) {
        const char *end = strchr(p += strlen(at), '"');
        int skip = 0;
        if (!end)
            break;
        for (size_t i = 0; i < sizeof(built) / sizeof(built[0]); i++)
            skip |=
                strlen(built[i]) == (size_t)(end - p) && !memcmp(p, built[i], (size_t)(end - p));
        if (skip) {
            p = end;
            continue;
        }
        rc = kix_buf_add(out, p, (size_t)(end - p));
        if (rc == KIX_OK)
            rc = kix_buf_addc(out, '\n');
        p = end;
    }
    free(text);
    return rc;
}

/* Whether `page` (NUL-terminated) carries canon as the text of its one
 * <pre hidden id="kix-manifest"> (layout 7), with & < > and nothing else
 * escaped, before its view. */
static int shows_manifest(const struct kix_buf *page, const char *canon)
{
    static const char open[] = "<pre hidden id=\"kix-manifest\">";
    const char *text = (const char *)page->ptr, *at = strstr(text, open), *c = canon;

    if (!at || !canon || strstr(at + strlen(open), "id=\"kix-manifest\"") ||
        strstr(at, "id=\"kix-view\"") == NULL)
        return 0;
    for (at += strlen(open); *c; c++) {
        const char *want = *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : *c == '&' ? "&amp;" : NULL;
        if (want ? strncmp(at, want, strlen(want)) != 0 : *at != *c)
            return 0;
        at += want ? strlen(want) : 1;
    }
    return strncmp(at, "</pre>\n", 7) == 0;
}

/* The JSON file dir/name is the document want without the members the
 * export leaves out of a run's view (KIX_VIEW_JSON_EXPORT). */
/* Whether `page` (NUL-terminated) embeds as #kix-view kixd's view `want`
 * without `manifest`, `sections`, `objects` and `index` (a static copy's
 * since layout 4: the page's one file) and what its HTML says (a lean
 * view: PROTOCOL.md §3), as the same JSON value. */
static int page_embeds_lean(const struct kix_buf *page, const struct kix_buf *want)
{
    static const char open[] = "<script type=\"application/json\" id=\"kix-view\">";
    json_t *w = json_loadb((const char *)want->ptr, want->len, 0, NULL), *h = NULL;
    const char *from = strstr((const char *)page->ptr, open), *to = NULL;
    int same;

    if (from && (to = strstr(from += strlen(open), "</script>")) != NULL)
        h = json_loadb(from, (size_t)(to - from), JSON_REJECT_DUPLICATES, NULL);
    /* its manifest is the text of #kix-manifest, only & < > escaped */
    if (!shows_manifest(page, json_string_value(json_object_get(w, "manifestCanonical")))) {
        json_decref(w);
        json_decref(h);
        return 0;
    }
    static const char *const gone[] = {
        "manifest",         "sections",  "objects",  "index",        "observedAt",     "primary",
        "evidence",         "title",     "header",   "evidenceText", "lastObserved",   "runId",
        "origin",           "permalink", "treeSize", "logKey",       "manifestDigest", "rank",
        "manifestCanonical"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        json_object_del(w, gone[i]);
    /* and, since layout 7, what its page, checkpoint and manifest say and
     * the reruns and attestations when there are none */
    if (!json_array_size(json_object_get(w, "reruns")))
        json_object_del(w, "reruns");
    if (!json_array_size(json_object_get(w, "attestationList")) &&
        !json_integer_value(json_object_get(w, "attestations"))) {
        json_object_del(w, "attestationList");
        json_object_del(w, "attestations");
    }
    /* and the entries' paths, which a reader computes from index and size */
    for (size_t i = 0; i < json_array_size(json_object_get(w, "entries")); i++) {
        json_object_del(json_array_get(json_object_get(w, "entries"), i), "tile");
        json_object_del(json_array_get(json_object_get(w, "entries"), i), "entryBundle");
    }
    same = w && h && json_equal(w, h);
    json_decref(w);
    json_decref(h);
    return same;
}

/* The export renders a page's HTML and JSON from one view (site_export.c,
 * pages_internal.h). A group's page is byte for byte what kixd renders
 * without the view embedded (the verifier reads it from the JSON beside
 * the page, which is kixd's JSON), also for text with slashes, backslashes
 * and what would close a script element. A run's page embeds kixd's view
 * without `manifest`, `sections`, `objects` and `index`, and has every slot
 * kixd's has, in order, but not the canonical manifest's text (the view
 * holds it once; PROTOCOL.md §3, "The static copy's layout"); there is no
 * runs/<id>.json; <id>.html is the run page's own file (a hard link). */
KIX_TEST(the_export_writes_kixds_pages_without_their_embedded_view)
{
    static const char *const ids[] = {"nested", "tricky"};
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_source *src;
    struct kix_pages_export_stats st;
    struct kix_err err = {0};
    struct kix_buf page = KIX_BUF_INIT, env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_digest d;
    char manifest[1024], name[256], group[KIX_DIGEST_TEXT_LEN + 1], *out = temp_dir();
    char protocol[512], environment[512], w[KIX_DIGEST_TEXT_LEN + 1], p[KIX_DIGEST_TEXT_LEN + 1],
        e[KIX_DIGEST_TEXT_LEN + 1];
    const char *objects[4] = {manifest, workload, protocol, environment};
    struct kix_run_info info;
    struct stat a, b;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_nested(&f, "nested"));
    /* ranked (a protocol with a median, an environment): it has a group page */
    protocol_record(protocol, sizeof(protocol), 1);
    environment_record(environment, sizeof(environment), 1);
    digest_text_of_json(workload, w);
    digest_text_of_json(protocol, p);
    digest_text_of_json(environment, e);
    snprintf(
        manifest, sizeof(manifest),
        "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
        "\"name\":\"t\",\"labels\":{\"note\":\"a/b \\\\/ \\\\\\\\/ </script> & \\\\u003c //\"}},"
        "\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{\"median\":1234}},"
        "\"sourceNative\":{\"source\":\"test\",\"benchmark\":\"rope/forward\"},"
        "\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\",\"environmentDigest\":\"%s\"}}",
        w, p, e);
    digest_of_json(manifest, &d);
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(f.publisher, "tricky", &d, "2026-11-29T00:00:00Z",
                                                "test", "BSD-2-Clause", &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objects, 4, &res, &err));
    ASSERT_EQ_INT(KIX_OK, export_pages(f.log, out, &st, &err));
    ASSERT_EQ_U64(2, st.runs);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    src = as_source(f.log, r);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        const char *id = ids[i];
        struct kix_buf have = KIX_BUF_INIT, want_slots = KIX_BUF_INIT, have_slots = KIX_BUF_INIT;
        kix_buf_reset(&page);
        ASSERT_EQ_INT(KIX_OK, kix_page_run_html(src, id, strlen(id), &page, &err));
        ASSERT_TRUE(without_view(&page));
        snprintf(name, sizeof(name), "%s/runs/%s", out, id);
        ASSERT_EQ_INT(KIX_OK, kix_file_read(name, 1 << 24, &have, NULL));
        ASSERT_EQ_INT(KIX_OK, ids_as_slots(&have));
        ASSERT_EQ_INT(KIX_OK, slot_names(&page, &want_slots));
        ASSERT_EQ_INT(KIX_OK, slot_names(&have, &have_slots));
        ASSERT_TRUE(want_slots.len > 0 && want_slots.len == have_slots.len &&
                    memcmp(want_slots.ptr, have_slots.ptr, want_slots.len) == 0);
        {
            /* the group linked once (in the rank's line), not also in the crumbs */
            const char *link = "data-kix-slot=\"group-link\"", *at;
            int n = 0;
            ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&have, 0));
            have.len--;
            for (at = (const char *)have.ptr; (at = strstr(at, link)) != NULL; at++)
                n++;
            ASSERT_TRUE(n <= 1);
            ASSERT_TRUE(strstr((const char *)have.ptr, "id=\"manifest-digest\"") == NULL);
            ASSERT_TRUE(strstr((const char *)have.ptr, "data-log-key=") == NULL);
        }
        kix_buf_reset(&page);
        ASSERT_EQ_INT(KIX_OK, kix_page_run_json(src, id, strlen(id), &page, &err));
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&have, 0));
        ASSERT_TRUE(page_embeds_lean(&have, &page));
        /* one file a run: no runs/<id>.json beside the page */
        snprintf(name, sizeof(name), "%s/runs/%s.json", out, id);
        ASSERT_TRUE(access(name, F_OK) != 0);
        /* the canonical manifest, as kixd's page shows it, is not there */
        ASSERT_TRUE(strstr((const char *)have.ptr, "{&quot;apiVersion&quot;:") == NULL);
        kix_buf_reset(&page);
        ASSERT_EQ_INT(KIX_OK, kix_page_run_html(src, id, strlen(id), &page, &err));
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&page, 0));
        ASSERT_CONTAINS((const char *)page.ptr, "{&quot;apiVersion&quot;:");
        kix_buf_release(&have);
        kix_buf_release(&want_slots);
        kix_buf_release(&have_slots);
        snprintf(name, sizeof(name), "%s/runs/%s", out, id);
        ASSERT_EQ_INT(0, stat(name, &a));
        snprintf(name, sizeof(name), "%s/runs/%s.html", out, id);
        ASSERT_EQ_INT(0, stat(name, &b));
        ASSERT_TRUE(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    }
    /* the tricky run's text is in its page as the document says it */
    kix_buf_reset(&page);
    ASSERT_EQ_INT(KIX_OK, kix_page_run_html(src, "tricky", 6, &page, &err));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&page, 0));
    ASSERT_CONTAINS((const char *)page.ptr, "a\\/b \\\\\\/ \\\\\\\\\\/ \\u003c\\/script\\u003e");
    /* a group's first page likewise */
    ASSERT_EQ_INT(KIX_OK, kix_index_run(r, "tricky", 6, &info));
    ASSERT_TRUE(info.grouped);
    kix_digest_format(&info.comparison_key, group);
    ASSERT_EQ_U64(1, st.groups);
    kix_buf_reset(&page);
    ASSERT_EQ_INT(KIX_OK, kix_page_group_html(src, group, strlen(group), &page, &err));
    ASSERT_TRUE(without_view(&page));
    snprintf(name, sizeof(name), "groups/%s", group);
    ASSERT_TRUE(file_holds(out, name, &page));
    /* and its JSON the copy's group view: kixd's rows name their runs
     * alone there, without the manifests and proofs the copy holds as
     * files (layout 4) */
    {
        struct kix_group_view gv;
        struct kix_buf live = KIX_BUF_INIT;
        kix_buf_reset(&page);
        ASSERT_EQ_INT(KIX_OK, kix_group_view_from_source(src, group, strlen(group), 0, &gv, &err));
        ASSERT_EQ_INT(KIX_OK, kix_group_view_json(&gv, KIX_VIEW_JSON_EXPORT, &page, &err));
        kix_group_view_release(&gv);
        snprintf(name, sizeof(name), "groups/%s.json", group);
        ASSERT_TRUE(file_holds(out, name, &page));
        ASSERT_EQ_INT(KIX_OK, kix_page_group_json(src, group, strlen(group), &live, &err));
        ASSERT_TRUE(live.len > page.len);
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&live, 0));
        ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&page, 0));
        ASSERT_CONTAINS((const char *)live.ptr, "\"manifestCanonical\"");
        ASSERT_CONTAINS((const char *)live.ptr, "\"runProof\"");
        ASSERT_TRUE(strstr((const char *)page.ptr, "\"manifestCanonical\"") == NULL);
        ASSERT_TRUE(strstr((const char *)page.ptr, "\"runRecord\"") == NULL);
        ASSERT_TRUE(strstr((const char *)page.ptr, "\"index\"") == NULL);
        ASSERT_TRUE(strstr((const char *)page.ptr, "\"workloadCanonical\"") == NULL);
        ASSERT_CONTAINS((const char *)page.ptr, "\"runId\":\"tricky\"");
        kix_buf_release(&live);
    }
    kix_source_close(src);
    kix_log_read_end(r);
    kix_buf_release(&page);
    kix_buf_release(&env);
    remove_dir(out);
    teardown(&f);
}

/* ---- a server's pages read their store through its source alone ---- */

/* A source over another, counting what the views ask of it; with
 * store_ops 0 it offers only what any source may (a kixd, a static copy):
 * not the store-only state, run, group, groups and index_record. */
struct counted {
    struct kix_source base;
    struct kix_source *inner;
    unsigned calls;
};

#define INNER(s) (((struct counted *)(s))->calls++, ((struct counted *)(s))->inner)
static void c_close(struct kix_source *s)
{
    (void)s;
}
static int c_info(struct kix_source *s, struct kix_client_info *o, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->info(in, o, e);
}
static int c_checkpoint(struct kix_source *s, uint64_t n, struct kix_buf *o, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->checkpoint(in, n, o, e);
}
static int c_entries(struct kix_source *s, uint64_t a, uint64_t n, kix_entry_fn fn, void *ctx,
                     uint64_t *got, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->entries(in, a, n, fn, ctx, got, e);
}
static int c_inclusion(struct kix_source *s, uint64_t i, uint64_t n,
                       struct kix_hash p[KIX_MERKLE_MAX_PROOF], size_t *np, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->inclusion(in, i, n, p, np, e);
}
static int c_consistency(struct kix_source *s, uint64_t a, uint64_t b,
                         struct kix_hash p[KIX_MERKLE_MAX_PROOF], size_t *np, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->consistency(in, a, b, p, np, e);
}
static int c_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *o,
                    struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->object(in, d, o, e);
}
static int c_resolve(struct kix_source *s, const char *ref, uint64_t from, struct kix_resolution *o,
                     struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->resolve(in, ref, from, o, e);
}
static int c_log_key(struct kix_source *s, struct kix_buf *o, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->log_key(in, o, e);
}
static int c_state(struct kix_source *s, uint64_t *n, struct kix_buf *cp, struct kix_buf *note,
                   struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->state(in, n, cp, note, e);
}
static int c_run(struct kix_source *s, const char *ref, size_t len, struct kix_run_info *o,
                 struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->run(in, ref, len, o, e);
}
static int c_group(struct kix_source *s, const struct kix_digest *k, uint64_t off, uint64_t lim,
                   kix_group_fn fn, void *ctx, uint64_t *n, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->group(in, k, off, lim, fn, ctx, n, e);
}
static int c_groups(struct kix_source *s, kix_groups_fn fn, void *ctx, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->groups(in, fn, ctx, e);
}
static int c_index_record(struct kix_source *s, const char *k, struct kix_buf *r, struct kix_buf *p,
                          int *present, struct kix_err *e)
{
    struct kix_source *in = INNER(s);
    return in->ops->index_record(in, k, r, p, present, e);
}

static const struct kix_source_ops counted_store_ops = {
    .close = c_close,
    .info = c_info,
    .checkpoint = c_checkpoint,
    .entries = c_entries,
    .inclusion = c_inclusion,
    .consistency = c_consistency,
    .object = c_object,
    .resolve = c_resolve,
    .log_key = c_log_key,
    .state = c_state,
    .run = c_run,
    .group = c_group,
    .groups = c_groups,
    .index_record = c_index_record,
};
static const struct kix_source_ops counted_copy_ops = {
    .close = c_close,
    .info = c_info,
    .checkpoint = c_checkpoint,
    .entries = c_entries,
    .inclusion = c_inclusion,
    .consistency = c_consistency,
    .object = c_object,
    .resolve = c_resolve,
    .log_key = c_log_key,
};

/* A run with a group (a protocol with a median, an environment), so
 * that it has a group page. */
static int publish_ranked(struct fixture *f, const char *run_id)
{
    char manifest[1024], protocol[512], environment[512], w[KIX_DIGEST_TEXT_LEN + 1],
        p[KIX_DIGEST_TEXT_LEN + 1], e[KIX_DIGEST_TEXT_LEN + 1];
    const char *objects[4] = {manifest, workload, protocol, environment};
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_digest d;
    int rc;

    protocol_record(protocol, sizeof(protocol), 1);
    environment_record(environment, sizeof(environment), 1);
    digest_text_of_json(workload, w);
    digest_text_of_json(protocol, p);
    digest_text_of_json(environment, e);
    snprintf(manifest, sizeof(manifest),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
             "{\"name\":\"t\"},\"spec\":{\"status\":\"passed\",\"timing\":{\"latencyNs\":{"
             "\"median\":1234}},\"sourceNative\":{\"source\":\"test\",\"benchmark\":\"rope/"
             "forward\"},\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\","
             "\"environmentDigest\":\"%s\"}}",
             w, p, e);
    digest_of_json(manifest, &d);
    rc = kix_entry_publication(f->publisher, run_id, &d, "2026-11-29T00:00:00Z", "test",
                               "BSD-2-Clause", &env, &err);
    if (rc == KIX_OK)
        rc = submit(f, &env, objects, 4, &res, &err);
    kix_buf_release(&env);
    return rc;
}

KIX_TEST(a_servers_pages_read_its_store_through_its_source_alone)
{
    struct fixture f;
    struct shown s;
    struct kix_source *store;
    struct counted store_only = {{&counted_store_ops, "a counted store"}, NULL, 0};
    struct counted copy = {{&counted_copy_ops, "a test copy"}, NULL, 0};
    struct kix_buf direct = KIX_BUF_INIT, through = KIX_BUF_INIT;
    struct kix_err err = {0};
    char group[KIX_DIGEST_TEXT_LEN + 1];

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish_nested(&f, "nested"));
    ASSERT_EQ_INT(KIX_OK, publish_ranked(&f, "ranked"));
    show(&f, "ranked", &s);
    ASSERT_TRUE(s.v.ranked);
    snprintf(group, sizeof(group), "%s", s.v.group);
    store = as_source(f.log, NULL);
    store_only.inner = copy.inner = store;
    /* every page, the same bytes read through the wrapper: what the views
     * read, they read through the source */
    ASSERT_EQ_INT(KIX_OK, kix_page_run_html(store, "ranked", 6, &direct, &err));
    ASSERT_EQ_INT(KIX_OK, kix_page_run_html(&store_only.base, "ranked", 6, &through, &err));
    ASSERT_EQ_MEM(direct.ptr, direct.len, through.ptr, through.len);
    ASSERT_TRUE(store_only.calls > 0);
    store_only.calls = 0;
    kix_buf_reset(&direct);
    kix_buf_reset(&through);
    ASSERT_EQ_INT(KIX_OK, kix_page_group_json(store, group, strlen(group), &direct, &err));
    ASSERT_EQ_INT(KIX_OK,
                  kix_page_group_json(&store_only.base, group, strlen(group), &through, &err));
    ASSERT_EQ_MEM(direct.ptr, direct.len, through.ptr, through.len);
    ASSERT_TRUE(store_only.calls > 0);
    store_only.calls = 0;
    kix_buf_reset(&direct);
    kix_buf_reset(&through);
    ASSERT_EQ_INT(KIX_OK, kix_page_home_json(store, 1, &direct, &err));
    ASSERT_EQ_INT(KIX_OK, kix_page_home_json(&store_only.base, 1, &through, &err));
    ASSERT_EQ_MEM(direct.ptr, direct.len, through.ptr, through.len);
    /* a run's view is one path, a resolution read through a source: any
     * source that resolves gives the same document */
    kix_buf_reset(&direct);
    kix_buf_reset(&through);
    ASSERT_EQ_INT(KIX_OK, kix_page_run_json(store, "ranked", 6, &direct, &err));
    ASSERT_EQ_INT(KIX_OK, kix_page_run_json(&copy.base, "ranked", 6, &through, &err));
    ASSERT_EQ_MEM(direct.ptr, direct.len, through.ptr, through.len);
    ASSERT_TRUE(copy.calls > 0);
    /* what only a store answers, a copy refuses by name */
    kix_buf_reset(&through);
    ASSERT_EQ_INT(KIX_ENOTSUP,
                  kix_page_group_json(&copy.base, group, strlen(group), &through, &err));
    ASSERT_CONTAINS(err.msg, "a test copy does not offer");
    kix_source_close(store);
    kix_buf_release(&direct);
    kix_buf_release(&through);
    shown_release(&s);
    teardown(&f);
}

KIX_TEST_MAIN()
