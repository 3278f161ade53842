/* The command documents (kix/doc.h): each names itself and its version,
 * each command's text is rendered from its document alone (a field
 * changed in the document shows in the text), the evidence words are one
 * table, and the one JSON writer writes reals as canonical objects hold
 * them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/cite.h"
#include "kix/doc.h"
#include "kix/entry.h"

/* The text `render` gives for doc, malloc'ed. */
static char *text_of(void (*render)(const json_t *, FILE *), const json_t *doc)
{
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);

    if (!f)
        return NULL;
    render(doc, f);
    fclose(f);
    return t;
}

/* doc names `view`; its text holds `before`; with `key` (of doc or of
 * doc[sub] / doc[sub][0]) set to `after`, the text holds `after`, not
 * `before`. */
static int derived(json_t *doc, const char *view, void (*render)(const json_t *, FILE *),
                   const char *sub, const char *key, const char *before, const char *after)
{
    json_t *at = sub ? json_object_get(doc, sub) : doc;
    char *t1, *t2;
    int ok;

    if (json_is_array(at))
        at = json_array_get(at, 0);
    t1 = text_of(render, doc);
    json_object_set_new(at, key, json_string(after));
    t2 = text_of(render, doc);
    ok = doc && strcmp(json_string_value(json_object_get(doc, "view")), view) == 0 && t1 && t2 &&
         strstr(t1, before) && !strstr(t1, after) && strstr(t2, after) && !strstr(t2, before);
    if (!ok)
        fprintf(stderr, "%s: before:\n%s\nafter (%s = %s):\n%s\n", view, t1 ? t1 : "(none)", key,
                after, t2 ? t2 : "(none)");
    free(t1);
    free(t2);
    json_decref(doc);
    return ok;
}

KIX_TEST(each_text_is_rendered_from_its_document)
{
    static const char note[] = "kix.test/log\n3\nAAAA\n";
    struct kix_resolution res;
    struct kix_checkpoint cp;
    struct kix_cite cite;
    struct kix_query_row row;
    struct kix_doc_info info = {"kix.test/log",
                                "kix.test/log+0a0b0c0d+AAAA",
                                "0.9",
                                "",
                                "",
                                "",
                                "",
                                3,
                                0,
                                0,
                                0,
                                0,
                                0.0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0};
    struct kix_doc_key key = {
        {1, 2, 3}, "alice",      0x0a0b0c0d,  KIX_ROLE_PUBLISH | KIX_ROLE_ATTEST,
        1,         KIX_NO_INDEX, KIX_NO_INDEX};
    struct kix_doc_audit audit = {1, 0, 0, 12, 0, KIX_NO_INDEX, 0.5, "kix.test/log", NULL, NULL};
    struct kix_doc_page page = {&row, "seq = 1", 8, 1, 1, 0, 12, 1, 2, 0};

    kix_resolution_init(&res);
    snprintf(res.run.run_id, sizeof(res.run.run_id), "run-1");
    res.run.evidence = KIX_EVIDENCE_REPRODUCED;
    res.run.evidence_index = 9;
    res.run.superseded_by_index = KIX_NO_INDEX;
    res.run.withdrawn_index = KIX_NO_INDEX;
    res.manifest = (struct kix_bytes){(const uint8_t *)"{\"x\":0.1}", 9};
    res.checkpoint = (struct kix_bytes){(const uint8_t *)note, sizeof(note) - 1};
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "kix.test/log");
    cp.size = 3;
    ASSERT_TRUE(derived(kix_doc_resolve(&res, "kix.test/log", &cp), KIX_DOC_RESOLVE,
                        kix_doc_resolve_text, NULL, "evidenceText",
                        "evidence   Reproduced by a controlled rerun (entry 9)",
                        "in the document's words"));
    ASSERT_TRUE(derived(kix_doc_resolve(&res, "kix.test/log", &cp), KIX_DOC_RESOLVE,
                        kix_doc_resolve_text, "checkpoint", "origin", "checkpoint kix.test/log",
                        "another.example/log"));

    memset(&cite, 0, sizeof(cite));
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&cite.link, "https://kix.test/log/runs/run-1"));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&cite.link, 0));
    ASSERT_TRUE(derived(kix_doc_cite(&cite, &res, &cp, "2026-12-06", "one line"), KIX_DOC_CITE,
                        kix_doc_cite_text, NULL, "text", "one line", "another line"));
    kix_cite_release(&cite);
    kix_resolution_release(&res);

    memset(&row, 0, sizeof(row));
    snprintf(row.run_id, sizeof(row.run_id), "run-1");
    snprintf(row.kernel, sizeof(row.kernel), "rope");
    snprintf(row.provider, sizeof(row.provider), "liger");
    snprintf(row.metric, sizeof(row.metric), "latency");
    snprintf(row.statistic, sizeof(row.statistic), "median");
    row.rank = row.group_size = 1;
    row.value = 11360;
    ASSERT_TRUE(derived(kix_doc_query(&page), KIX_DOC_QUERY, kix_doc_query_text, "runs", "provider",
                        "liger", "triton-ref"));
    ASSERT_TRUE(derived(kix_doc_query(&page), KIX_DOC_QUERY, kix_doc_query_text, "runs", "evidence",
                        "reported", "reproduced"));
    page.whole_group = 1;
    ASSERT_TRUE(derived(kix_doc_ranks(&page, json_pack("[{s:s,s:i,s:s}]", "runId", "run-0", "entry",
                                                       5, "reason", "duplicate")),
                        KIX_DOC_RANKS, kix_doc_query_text, "withdrawn", "reason", "duplicate",
                        "invalid-timing"));

    ASSERT_TRUE(derived(kix_doc_audit(&audit), KIX_DOC_AUDIT, kix_doc_audit_text, NULL, "log",
                        "of log kix.test/log verify", "another.example/log"));
    ASSERT_TRUE(derived(kix_doc_keys(3, &key, 1), KIX_DOC_KEYS, kix_doc_keys_text, "keys", "name",
                        "name alice note-hash 0a0b0c0d", "bob"));
    ASSERT_TRUE(derived(kix_doc_info(&info), KIX_DOC_INFO, kix_doc_info_text, NULL, "version",
                        "version  0.9\n", "1.0"));
}

KIX_TEST(the_evidence_words_are_one_table)
{
    char on[160];

    for (int i = 0; i < KIX_WORDS_EVIDENCE; i++) {
        ASSERT_EQ_INT(i, kix_words_table[i].level);
        ASSERT_EQ_STR(kix_evidence_name(i), kix_words_table[i].name);
        ASSERT_EQ_STR(kix_words_table[i].words, kix_words_evidence(i));
        ASSERT_EQ_STR(kix_words_table[i].outcome, kix_words_outcome(i));
    }
    /* every dated level ends in its day: the failed one too, as the
     * browser verifier writes it (tests/js/test_words.js) */
    kix_words_evidence_on(KIX_EVIDENCE_FAILED, "2026-10-01T12:00:00Z", on, sizeof(on));
    ASSERT_EQ_STR("Controlled rerun failed on 2026-10-01", on);
    kix_words_evidence_on(KIX_EVIDENCE_REPRODUCED, "", on, sizeof(on));
    ASSERT_EQ_STR("Reproduced by a controlled rerun", on);
    kix_words_evidence_on(KIX_EVIDENCE_REPORTED, "2026-10-01", on, sizeof(on));
    ASSERT_EQ_STR("Reported evidence", on);
    ASSERT_EQ_STR("not_reproduced", kix_words_outcome(KIX_EVIDENCE_NOT_REPRODUCED));
    ASSERT_EQ_STR("supersession", kix_words_entry_type(KIX_ENTRY_SUPERSESSION));
}

KIX_TEST(the_writer_writes_reals_as_canonical_objects_hold_them)
{
    json_t *o = json_pack("{s:f,s:f,s:[i,b,n],s:s,s:{}}", "b", 11.36, "a", 0.1, "c", 1, 1, "d",
                          "x/y\n\x01", "e");
    struct kix_buf out = KIX_BUF_INIT;

    ASSERT_EQ_INT(KIX_OK, kix_doc_dumps(o, 0, &out, NULL));
    ASSERT_EQ_MEM("{\"b\":11.36,\"a\":0.1,\"c\":[1,true,null],\"d\":\"x/y\\n\\u0001\",\"e\":{}}",
                  strlen("{\"b\":11.36,\"a\":0.1,\"c\":[1,true,null],\"d\":\"x/y\\n\\u0001\","
                         "\"e\":{}}"),
                  out.ptr, out.len);
    kix_buf_reset(&out);
    ASSERT_EQ_INT(KIX_OK, kix_doc_dumps(o, KIX_DOC_SORTED | KIX_DOC_HTML, &out, NULL));
    ASSERT_EQ_MEM("{\"a\":0.1,\"b\":11.36,\"c\":[1,true,null],\"d\":\"x\\/y\\n\\u0001\",\"e\":{}}",
                  strlen("{\"a\":0.1,\"b\":11.36,\"c\":[1,true,null],\"d\":\"x\\/y\\n\\u0001\","
                         "\"e\":{}}"),
                  out.ptr, out.len);
    kix_buf_reset(&out);
    json_object_del(o, "d");
    json_object_del(o, "a");
    ASSERT_EQ_INT(KIX_OK, kix_doc_dumps(o, KIX_DOC_INDENT, &out, NULL));
    ASSERT_EQ_MEM(
        "{\n  \"b\": 11.36,\n  \"c\": [\n    1,\n    true,\n    null\n  ],\n  \"e\": {}\n}",
        strlen("{\n  \"b\": 11.36,\n  \"c\": [\n    1,\n    true,\n    null\n  ],\n  "
               "\"e\": {}\n}"),
        out.ptr, out.len);
    kix_buf_release(&out);
    json_decref(o);
}

KIX_TEST_MAIN()
