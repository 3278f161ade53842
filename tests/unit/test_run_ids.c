/* The run-id grammar (PROTOCOL.md §5.3, kix_run_id_check in kix/entry.h):
 * the rule itself, its refusal at submit, run references, and a store
 * logged before the rule, whose pages' export skips the ids it breaks. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "kix/pages.h"
#include "kix/resolve.h"

KIX_TEST(the_grammar_takes_names_a_path_and_a_url_both_take)
{
    static const char *const good[] = {"run-1", "A", "0", "a.b_c-d", "x..y", "run.", "Z9"};
    static const char *const bad[] = {".",   "..",  ".size", ".x",   "-x", "_x",  "a:b",
                                      "a/b", "a b", "a%2e",  "a\\b", "",   "a?b", "a#b"};
    char digest_like[KIX_DIGEST_TEXT_LEN + 1], longest[KIX_RUN_ID_MAX + 2];
    struct kix_err err = {0};

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ASSERT_EQ_INT(KIX_OK, kix_run_id_check(good[i], strlen(good[i]), &err));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(KIX_EINVAL, kix_run_id_check(bad[i], strlen(bad[i]), &err));
        ASSERT_CONTAINS(err.msg, KIX_RUN_ID_GRAMMAR);
    }
    ASSERT_EQ_INT(KIX_EINVAL, kix_run_id_check("..", 2, &err));
    ASSERT_CONTAINS(err.msg, "begins with a dot");
    digest_text_of_json(workload, digest_like);
    ASSERT_EQ_INT(KIX_EINVAL, kix_run_id_check(digest_like, strlen(digest_like), &err));
    ASSERT_CONTAINS(err.msg, "never parses as a digest");
    memset(longest, 'a', sizeof(longest));
    ASSERT_EQ_INT(KIX_OK, kix_run_id_check(longest, KIX_RUN_ID_MAX, &err));
    ASSERT_EQ_INT(KIX_EINVAL, kix_run_id_check(longest, KIX_RUN_ID_MAX + 1, &err));
    ASSERT_CONTAINS(err.msg, "too long");
}

KIX_TEST(a_run_id_outside_the_grammar_is_refused_at_submit_and_nothing_stored)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    char manifest[512], other[KIX_DIGEST_TEXT_LEN + 1];
    const char *bad[] = {".", "..", ".size", other, "-x", "a:b"};
    uint64_t size;

    setup(&f);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    run_manifest(manifest, sizeof(manifest), 1);
    digest_text_of_json(manifest, other); /* the other run's manifest digest */
    size = log_size(&f);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(KIX_EPOLICY, publish(&f, f.publisher, bad[i], 10 + (int)i, &res, &err));
        ASSERT_CONTAINS(err.msg, "is refused");
        ASSERT_CONTAINS(err.msg, KIX_RUN_ID_GRAMMAR);
        ASSERT_EQ_U64(size, log_size(&f));
    }
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    teardown(&f);
}

KIX_TEST(a_reference_is_a_digest_or_a_run_id_of_the_grammar)
{
    char run_id[KIX_RUN_ID_MAX + 1], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_digest d, want;
    struct kix_err err = {0};
    int is_digest;

    digest_of_json(workload, &want);
    kix_digest_format(&want, text);
    ASSERT_EQ_INT(KIX_OK, kix_ref_parse(text, strlen(text), NULL, run_id, &is_digest, &d, &err));
    ASSERT_TRUE(is_digest);
    ASSERT_EQ_MEM(want.b, 32, d.b, 32);
    ASSERT_EQ_INT(KIX_EINVAL, kix_ref_parse("..", 2, NULL, run_id, &is_digest, &d, &err));
    ASSERT_CONTAINS(err.msg, "begins with a dot");
    ASSERT_EQ_INT(KIX_EINVAL, kix_ref_parse("https://kix.test/log/runs/.size", 31, "kix.test/log",
                                            run_id, &is_digest, &d, &err));
    ASSERT_CONTAINS(err.msg, KIX_RUN_ID_GRAMMAR);
    ASSERT_EQ_INT(KIX_OK, kix_ref_parse("https://kix.test/log/runs/run-1", 31, "kix.test/log",
                                        run_id, &is_digest, &d, &err));
    ASSERT_EQ_STR("run-1", run_id);
}

static int file_is(const char *dir, const char *name, int want_dir)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &st) == 0 && (S_ISDIR(st.st_mode) != 0) == want_dir;
}

/* A store logged before the grammar: the log's own rules only (the index,
 * whose run rules include the grammar, added later), then opened with the
 * index, which rebuilds its tables from every entry. Its pages' export
 * skips the runs whose ids are no file name, on every pass. */
KIX_TEST(the_export_skips_a_run_id_logged_before_the_grammar)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf vkey = KIX_BUF_INIT, mark = KIX_BUF_INIT;
    struct kix_pages_export_stats st;
    struct kix_index_check_stats cs;
    char *out = temp_dir(), path[512];
    int rc;

    setup_keys(&f);
    ASSERT_EQ_INT(KIX_OK,
                  kix_log_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), NULL, &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, f.publisher, KIX_ROLE_PUBLISH, 0));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, ".size", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "..", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-ok", 3, &res, &err));
    kix_log_close(f.log);
    as_written_by_an_older_index(f.dir);
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    rc = kix_index_check(f.log, NULL, &cs, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
    ASSERT_EQ_U64(3, cs.runs);

    for (int pass = 0; pass < 2; pass++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(KIX_OK, kix_pages_export(f.log, out, &st, &err));
        ASSERT_EQ_U64(pass ? 0 : 1, st.runs);
        ASSERT_EQ_U64(pass ? 0 : 2, st.skipped);
        if (!pass)
            ASSERT_CONTAINS(st.skipped_reason, "begins with a dot");
        ASSERT_TRUE(file_is(out, "runs/run-ok", 0));
        ASSERT_TRUE(file_is(out, "runs/run-ok.json", 0));
        /* the export's mark is its own, not a run's page */
        snprintf(path, sizeof(path), "%s/runs/.size", out);
        kix_buf_reset(&mark);
        ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 64, &mark, &err));
        ASSERT_EQ_MEM("5\n", 2, mark.ptr, mark.len); /* the log size */
    }
    /* a new entry: the next pass rewrites pages and still skips them */
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 4, &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_pages_export(f.log, out, &st, &err));
    ASSERT_TRUE(file_is(out, "runs/run-2", 0));
    kix_buf_release(&mark);
    kix_buf_release(&vkey);
    remove_dir(out);
    teardown(&f);
}

KIX_TEST_MAIN()
