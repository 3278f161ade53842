/* Who reran: every rerun row of a run's view (kix/view.h) names the key
 * that signed it and says when that is the key that published the run,
 * in the view document (kix.run/1 `reruns[].signer`, `self`), the text of
 * `kix show` (kix/view_text.h) and the page (kix/pages.h); and each shows
 * the rerun's own median with its unit, the document with the rerun's
 * manifest bytes that prove it. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "pages_fixture.h"
#include "kix/note.h"
#include "kix/pages.h"
#include "kix/source.h"
#include "kix/view_text.h"

/* The run's view from the store: its document, its text and its page. */
static void show(struct fixture *f, const char *run_id, struct kix_buf *doc, char **text,
                 struct kix_buf *page, struct kix_run_view *v)
{
    struct kix_source *r = as_source(f->log, NULL);
    struct kix_resolution res;
    struct kix_run_text t = {0};
    struct kix_err err = {0};
    size_t len = 0;
    FILE *out = open_memstream(text, &len);

    kix_resolution_init(&res);
    t.cite_origin = ORIGIN;
    t.today = "2026-12-03";
    if (!out || kix_run_view_from_source(r, run_id, strlen(run_id), &res, v, &err) ||
        kix_run_view_json(v, 0, doc, &err) ||
        kix_page_run_html(r, run_id, strlen(run_id), page, &err)) {
        fprintf(stderr, "show %s: %s\n", run_id, err.msg);
        abort();
    }
    kix_run_view_text(v, &t, out);
    fclose(out);
    v->res = NULL; /* released below: the caller reads only the rows */
    kix_resolution_release(&res);
    kix_source_close(r);
}

/* The rerun's own median, with its unit, the same in the document, the
 * text and the page; the document carries the rerun's manifest bytes
 * (whose digest the rerun entry names), from which a page's verifier
 * proves it. */
static void expect_rerun_median(const struct kix_run_view *v, const char *doc, const char *text,
                                const char *page)
{
    const struct kix_rerun_view *r = &v->reruns[0];
    char h[KIX_HUMAN_MAX], want[256];
    const char *canon;
    struct kix_digest d;
    json_t *j, *rerun, *primary;

    ASSERT_TRUE(r->figures.have);
    kix_digest_of(r->manifest.ptr, r->manifest.len, &d);
    kix_digest_format(&d, want);
    ASSERT_EQ_STR(r->manifest_digest, want);
    kix_human((int64_t)r->figures.median, r->figures.bytes, h, sizeof(h));
    snprintf(want, sizeof(want), " %s median", h);
    ASSERT_CONTAINS(text, want);
    snprintf(want, sizeof(want), "<td>reproduced</td><td>%s</td>", h);
    ASSERT_CONTAINS(page, want);
    j = json_loads(doc, 0, NULL);
    ASSERT_TRUE(j != NULL);
    rerun = json_array_get(json_object_get(j, "reruns"), 0);
    primary = json_object_get(rerun, "primary");
    ASSERT_EQ_U64(r->figures.median,
                  (uint64_t)json_integer_value(json_object_get(primary, "median")));
    ASSERT_EQ_STR("ns", json_string_value(json_object_get(primary, "unit")));
    canon = json_string_value(json_object_get(rerun, "manifestCanonical"));
    ASSERT_TRUE(canon && strlen(canon) == r->manifest.len &&
                memcmp(canon, r->manifest.ptr, r->manifest.len) == 0);
    json_decref(j);
}

/* run_id's one rerun, signed by key: named in the document, the text and
 * the page, and marked the publisher's own when self. */
static void expect_rerun_by(struct fixture *f, const char *run_id, struct kix_signer *key, int self)
{
    struct kix_buf doc = KIX_BUF_INIT, page = KIX_BUF_INIT;
    struct kix_run_view v;
    char *text = NULL, id[KIX_KEY_ID_HEX_LEN + 1], want[160];

    show(f, run_id, &doc, &text, &page, &v);
    ASSERT_EQ_U64(1, v.nreruns);
    ASSERT_EQ_INT(self, v.reruns[0].self);
    kix_key_id(kix_signer_public_key(key), id);
    snprintf(want, sizeof(want), "\"self\":%s,\"signer\":\"%s\"", self ? "true" : "false", id);
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&doc, '\0'));
    ASSERT_CONTAINS((const char *)doc.ptr, want);
    snprintf(want, sizeof(want), "by key %.16s%s", id, self ? " (the publisher's own key" : "\n");
    ASSERT_CONTAINS(text, want);
    snprintf(want, sizeof(want), "<td>key %.16s%s</td>", id, self ? " (the publisher itself)" : "");
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&page, '\0'));
    ASSERT_CONTAINS((const char *)page.ptr, want);
    expect_rerun_median(&v, (const char *)doc.ptr, text, (const char *)page.ptr);
    kix_run_view_release(&v);
    free(text);
    kix_buf_release(&doc);
    kix_buf_release(&page);
}

/* Another key's rerun is shown with its key; the publisher's own is
 * refused, nothing stored (PROTOCOL.md 5.3). */
KIX_TEST(a_rerun_names_its_key_and_the_publisher_cannot_rerun_its_own_run)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_signer *both = new_key("both");
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_digest d, rd;
    char manifest[512];
    const char *objs[1] = {manifest};
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, both, KIX_ROLE_PUBLISH | KIX_ROLE_RERUN, 0));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, rerun_reproduced(&f, f.rerunner, "run-1", 1));
    expect_rerun_by(&f, "run-1", f.rerunner, 0);
    ASSERT_EQ_INT(KIX_OK, publish(&f, both, "run-2", 2, &res, &err));
    size = log_size(&f);
    run_manifest(manifest, sizeof(manifest), 2);
    digest_of_json(manifest, &d);
    run_manifest(manifest, sizeof(manifest), 102);
    digest_of_json(manifest, &rd);
    ASSERT_EQ_INT(KIX_OK, kix_entry_rerun(both, "run-2", &d, "reproduced", &rd, NULL, &env, &err));
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, objs, 1, &res, &err));
    ASSERT_CONTAINS(err.msg, "on the publisher's own word");
    ASSERT_EQ_U64(size, log_size(&f));
    kix_buf_release(&env);
    kix_signer_free(both);
    teardown(&f);
}

/* A log written before the rule may hold the publisher's own rerun: the
 * reader is told whose it is. */
KIX_TEST(a_publishers_own_rerun_logged_before_the_rule_is_shown_as_its_own)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf vkey = KIX_BUF_INIT;
    struct kix_signer *both = new_key("both");

    setup_keys(&f);
    ASSERT_EQ_INT(KIX_OK,
                  kix_log_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), NULL, &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, both, KIX_ROLE_PUBLISH | KIX_ROLE_RERUN, 0));
    ASSERT_EQ_INT(KIX_OK, publish(&f, both, "run-2", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, rerun_reproduced(&f, both, "run-2", 2));
    kix_log_close(f.log);
    as_written_by_an_older_index(f.dir);
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    expect_rerun_by(&f, "run-2", both, 1);
    kix_buf_release(&vkey);
    kix_signer_free(both);
    teardown(&f);
}

KIX_TEST_MAIN()
