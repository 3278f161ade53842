/* The pages' pieces that need no log: the template engine (kix/template.h),
 * the one number formatter and the primary statistic (kix/view.h). The
 * pages themselves are checked against a real kixd in
 * tests/integration/test_http_pages.sh. */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/template.h"
#include "kix/view.h"

/* tpl rendered with t into a NUL-terminated malloc'ed string, or NULL (err set). */
static char *fill(const char *tpl, const struct kix_tpl *t, struct kix_err *err)
{
    struct kix_buf out = KIX_BUF_INIT;
    char *s = NULL;

    if (kix_tpl_render(tpl, strlen(tpl), t, &out, err) == KIX_OK && kix_buf_addc(&out, 0) == KIX_OK)
        s = strdup((const char *)out.ptr);
    kix_buf_release(&out);
    return s;
}

KIX_TEST(template_escapes_every_special_character)
{
    struct kix_tpl *t = kix_tpl_new();
    struct kix_err err = {0};
    char *s;

    ASSERT_TRUE(t != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "x", "<a href=\"x\">Tom & Jerry's</a>"));
    s = fill("<p title=\"{{x}}\">{{x}}</p>", t, &err);
    ASSERT_TRUE(s != NULL);
    ASSERT_EQ_STR("<p title=\"&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;\">"
                  "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;</p>",
                  s);
    free(s);
    kix_tpl_free(t);
}

KIX_TEST(template_json_slot_cannot_close_its_script)
{
    struct kix_tpl *t = kix_tpl_new();
    struct kix_err err = {0};
    char *s;

    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "v", "{\"a\":\"</script><!--&x>\"}"));
    s = fill("<script type=\"application/json\">{{json v}}</script>", t, &err);
    ASSERT_TRUE(s != NULL);
    ASSERT_EQ_STR("<script type=\"application/json\">"
                  "{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026x\\u003e\"}</script>",
                  s);
    free(s);
    kix_tpl_free(t);
}

/* {{text v}}: element text (a run page's #kix-manifest) that reads back
 * byte for byte with only &lt; &gt; &amp; undone: its quotes as they are,
 * nothing in it can end the element */
KIX_TEST(template_text_slot_escapes_only_what_ends_its_element)
{
    struct kix_tpl *t = kix_tpl_new();
    struct kix_err err = {0};
    char *s;

    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "v", "{\"a\":\"</pre><!--&amp; 'x' \\/\"}"));
    s = fill("<pre hidden>{{text v}}</pre>", t, &err);
    ASSERT_TRUE(s != NULL);
    ASSERT_EQ_STR("<pre hidden>{\"a\":\"&lt;/pre&gt;&lt;!--&amp;amp; 'x' \\/\"}</pre>", s);
    free(s);
    kix_tpl_free(t);
}

KIX_TEST(template_missing_slot_is_an_error)
{
    struct kix_tpl *t = kix_tpl_new();
    struct kix_err err = {0};
    char *s;

    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "here", "x"));
    s = fill("{{here}} {{absent}}", t, &err);
    ASSERT_TRUE(s == NULL);
    ASSERT_EQ_INT(KIX_EINVAL, err.code);
    ASSERT_TRUE(strstr(err.msg, "absent") != NULL);
    ASSERT_TRUE(fill("{{#absent}}x{{/absent}}", t, &err) == NULL);
    ASSERT_TRUE(fill("{{?here}}x", t, &err) == NULL);          /* not closed */
    ASSERT_TRUE(fill("{{/here}}", t, &err) == NULL);           /* closes nothing */
    ASSERT_TRUE(fill("{{#here}}x{{/here}}", t, &err) == NULL); /* text, not a section */
    ASSERT_TRUE(fill("{{here", t, &err) == NULL);
    ASSERT_TRUE(fill("{{here}", t, &err) == NULL);
    ASSERT_TRUE(fill("{{>nope}}", t, &err) == NULL); /* no such partial */
    ASSERT_TRUE(strstr(err.msg, "nope") != NULL);
    /* a partial is rendered with the data at its place: this one's slots
     * are not here */
    ASSERT_TRUE(fill("{{>sweep_figure}}", t, &err) == NULL);
    ASSERT_TRUE(strstr(err.msg, "no slot") != NULL);
    {
        /* a length, not a string: "{{here}}" cut before its "}}" is unclosed */
        struct kix_buf out = KIX_BUF_INIT;
        ASSERT_EQ_INT(KIX_EINVAL, kix_tpl_render("{{here}}", 6, t, &out, &err));
        ASSERT_EQ_INT(KIX_OK, kix_tpl_render("{{here}}tail", 8, t, &out, &err));
        ASSERT_EQ_MEM("x", 1, out.ptr, out.len);
        kix_buf_release(&out);
    }
    kix_tpl_free(t);
}

KIX_TEST(template_sections_repeat_and_conditions_choose)
{
    struct kix_tpl *t = kix_tpl_new(), *row;
    struct kix_err err = {0};
    char *s;

    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "page", "P"));
    ASSERT_EQ_INT(KIX_OK, kix_tpl_set(t, "empty", ""));
    ASSERT_EQ_INT(KIX_OK, kix_tpl_section(t, "none"));
    for (int i = 1; i <= 3; i++) {
        ASSERT_TRUE((row = kix_tpl_row(t, "rows")) != NULL);
        ASSERT_EQ_INT(KIX_OK, kix_tpl_setf(row, "n", "%d<", i));
    }
    s = fill("{{#rows}}[{{n}}{{page}}]{{/rows}}{{?empty}}no{{/empty}}{{^empty}}yes{{/empty}}"
             "{{?none}}no{{/none}}{{^none}}none{{/none}}{{?rows}}some{{/rows}}",
             t, &err);
    ASSERT_TRUE(s != NULL);
    ASSERT_EQ_STR("[1&lt;P][2&lt;P][3&lt;P]yesnonesome", s);
    free(s);
    kix_tpl_free(t);
}

KIX_TEST(human_has_one_rule)
{
    char h[KIX_HUMAN_MAX];

    kix_human(11360, 0, h, sizeof(h));
    ASSERT_EQ_STR("11.4 \xc2\xb5s", h);
    kix_human(999, 0, h, sizeof(h));
    ASSERT_EQ_STR("999 ns", h);
    kix_human(1500, 0, h, sizeof(h));
    ASSERT_EQ_STR("1.50 \xc2\xb5s", h);
    kix_human(-1500, 0, h, sizeof(h)); /* a sign kept, never a wrapped huge number */
    ASSERT_EQ_STR("-1.50 \xc2\xb5s", h);
    kix_human(3600000000000LL, 0, h, sizeof(h)); /* the largest time unit is s */
    ASSERT_EQ_STR("3600 s", h);
    kix_human(1610612736, 1, h, sizeof(h));
    ASSERT_EQ_STR("1.50 GiB", h);
    kix_human(5LL << 40, 1, h, sizeof(h)); /* the largest byte unit is TiB */
    ASSERT_EQ_STR("5.00 TiB", h);
    kix_human(5LL << 50, 1, h, sizeof(h));
    ASSERT_EQ_STR("5120 TiB", h);
    kix_human(INT64_MIN, 1, h, sizeof(h));
    ASSERT_EQ_STR("-8388608 TiB", h);
}

static void figures(const char *manifest, struct kix_figures *f)
{
    json_t *doc = json_loads(manifest, 0, NULL);
    kix_figures_of(doc, f);
    json_decref(doc);
}

KIX_TEST(primary_statistic_decided_once)
{
    struct kix_figures f;

    figures("{\"spec\":{\"timing\":{\"latencyNs\":{\"median\":11360}},"
            "\"memory\":{\"peakBytes\":{\"median\":7}},\"measurements\":["
            "{\"metric\":\"latency\",\"statistic\":\"p20\",\"value\":10336},"
            "{\"metric\":\"peak_memory\",\"statistic\":\"p80\",\"value\":9},"
            "{\"metric\":\"latency\",\"statistic\":\"p80\",\"value\":-1}]}}",
            &f);
    ASSERT_TRUE(f.have && !f.bytes);
    ASSERT_EQ_U64(11360, f.median);
    ASSERT_TRUE(f.have_p20 && f.p20 == 10336);
    ASSERT_TRUE(!f.have_p80); /* a negative figure is none, the other metric's p80 not ours */
    ASSERT_EQ_STR("latency", kix_figures_metric(&f));
    figures("{\"spec\":{\"memory\":{\"peakBytes\":{\"median\":4096}}}}", &f);
    ASSERT_TRUE(f.have && f.bytes && f.median == 4096);
    ASSERT_EQ_STR("bytes", kix_figures_unit(&f));
    figures("{\"spec\":{\"timing\":{\"latencyNs\":{\"median\":-5}}}}", &f);
    ASSERT_TRUE(!f.have);
    figures("{\"spec\":{\"timing\":{\"latencyNs\":{\"median\":1.5}}}}", &f);
    ASSERT_TRUE(!f.have);
}

/* A resolution of run "r/1" with manifest m and no entries, at size 7. */
static void small_resolution(struct kix_resolution *res, const char *m)
{
    static const char cp[] = "example.test/log\n7\nAAAA\n\n\xe2\x80\x94 example.test/log x\n";

    kix_resolution_init(res);
    snprintf(res->run.run_id, sizeof(res->run.run_id), "r-1");
    res->manifest = (struct kix_bytes){(const uint8_t *)m, strlen(m)};
    res->checkpoint = (struct kix_bytes){(const uint8_t *)cp, sizeof(cp) - 1};
    res->size = 7;
    res->run.evidence = KIX_EVIDENCE_REPORTED;
}

static json_t *view_of(const char *manifest, unsigned flags, struct kix_buf *text)
{
    struct kix_resolution res;
    struct kix_run_view v;
    struct kix_err err = {0};
    json_t *doc = NULL;

    small_resolution(&res, manifest);
    if (kix_run_view_build(&v, &res, NULL, NULL, NULL, &err) == KIX_OK &&
        kix_run_view_json(&v, flags, text, &err) == KIX_OK)
        doc = json_loadb((const char *)text->ptr, text->len, 0, NULL);
    kix_run_view_release(&v);
    kix_resolution_release(&res);
    return doc;
}

KIX_TEST(run_view_leaves_out_what_it_does_not_have)
{
    struct kix_buf text = KIX_BUF_INIT;
    json_t *d = view_of("{\"kind\":\"BenchmarkRun\",\"spec\":{\"note\":\"a/b\"}}", 0, &text);

    ASSERT_TRUE(d != NULL);
    ASSERT_EQ_STR("kix.run/1", json_string_value(json_object_get(d, "view")));
    ASSERT_EQ_STR("https://example.test/log/runs/r-1",
                  json_string_value(json_object_get(d, "permalink")));
    ASSERT_EQ_INT(7, json_integer_value(json_object_get(d, "treeSize")));
    ASSERT_TRUE(json_is_array(json_object_get(d, "reruns")));
    ASSERT_EQ_INT(0, json_array_size(json_object_get(d, "reruns")));
    /* no figure, no rank, no observation, no index, no key: absent, not empty */
    ASSERT_TRUE(!json_object_get(d, "primary") && !json_object_get(d, "rank") &&
                !json_object_get(d, "observedAt") && !json_object_get(d, "index") &&
                !json_object_get(d, "logKey") && !json_object_get(d, "rerunList"));
    ASSERT_EQ_STR("{\"kind\":\"BenchmarkRun\",\"spec\":{\"note\":\"a/b\"}}",
                  json_string_value(json_object_get(d, "manifestCanonical")));
    ASSERT_TRUE(strstr((const char *)text.ptr, "a/b") != NULL);
    json_decref(d);
    kix_buf_release(&text);
    /* for a page: '/' escaped, the same value */
    d = view_of("{\"kind\":\"BenchmarkRun\",\"spec\":{\"note\":\"</script>\"}}", KIX_VIEW_JSON_HTML,
                &text);
    ASSERT_TRUE(d != NULL);
    ASSERT_TRUE(memmem(text.ptr, text.len, "</", 2) == NULL);
    ASSERT_EQ_STR("</script>",
                  json_string_value(json_object_get(
                      json_object_get(json_object_get(d, "manifest"), "spec"), "note")));
    json_decref(d);
    kix_buf_release(&text);
}

KIX_TEST_MAIN()
