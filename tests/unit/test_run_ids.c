/* The run-id grammar (PROTOCOL.md §5.3, kix_run_id_check in kix/entry.h):
 * the rule itself, its refusal at submit, run references, and a store
 * logged before the rule, whose pages' export skips the ids it breaks. */
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "fixture.h"
#include "pages_fixture.h"
#include "kix/pages.h"
#include "kix/source.h"
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
    char path[8192];
    struct stat st;
    /* a path that does not fit is no file of the test's */
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
        return 0;
    return stat(path, &st) == 0 && (S_ISDIR(st.st_mode) != 0) == want_dir;
}

/* Files under dir (every name) and the bytes of their distinct inodes (a
 * hard link's bytes are stored once). */
static uint64_t tree_files, tree_bytes;
static ino_t tree_inodes[8192];
static size_t tree_ninodes;
static void tree_walk(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    while (d && (e = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        int seen = 0;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            tree_walk(path);
            continue;
        }
        tree_files++;
        for (size_t i = 0; i < tree_ninodes && !seen; i++)
            seen = tree_inodes[i] == st.st_ino;
        if (!seen && tree_ninodes < sizeof(tree_inodes) / sizeof(tree_inodes[0]))
            tree_inodes[tree_ninodes++] = st.st_ino;
        if (!seen)
            tree_bytes += (uint64_t)st.st_size;
    }
    if (d)
        closedir(d);
}

static int file_has(const char *dir, const char *name, const char *text)
{
    char path[512];
    struct kix_buf b = KIX_BUF_INIT;
    int has;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    has = kix_file_read(path, 1 << 22, &b, NULL) == KIX_OK &&
          kix_buf_add(&b, (const uint8_t *)"", 1) == 0 && strstr((const char *)b.ptr, text) != NULL;
    kix_buf_release(&b);
    return has;
}

KIX_TEST(a_page_name_is_the_id_of_the_grammar_or_an_escape_no_other_id_gives)
{
    static const char *const ids[] = {"run-1",  "..",     ".size",   "v.json",
                                      "v.html", "V.HTML", "a_b.c:d", "sha256:00ff"};
    static const char *const names[] = {"run-1",    "__d_d",    "__dsize",     "_v_djson",
                                        "_v_dhtml", "_V_dHTML", "_a_ub_dc_cd", "_sha256_c00ff"};
    char name[KIX_RUN_PAGE_NAME_MAX + 1], id[KIX_RUN_ID_MAX + 1], longest[KIX_RUN_ID_MAX + 1];
    struct kix_err err = {0};
    int escaped;

    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        ASSERT_EQ_INT(KIX_OK,
                      kix_run_page_name(ids[i], strlen(ids[i]), name, sizeof(name), &escaped));
        ASSERT_EQ_STR(names[i], name);
        ASSERT_EQ_INT(i > 0, escaped);
        if (i > 0) {
            ASSERT_EQ_INT(KIX_OK, kix_run_page_id(name, strlen(name), id));
            ASSERT_EQ_STR(ids[i], id);
        }
    }
    /* one spelling per id: an id of the grammar is never escaped */
    ASSERT_EQ_INT(KIX_EINVAL, kix_run_page_id("_run-1", 6, id));
    ASSERT_EQ_INT(KIX_EINVAL, kix_run_page_id("_a_x", 4, id));
    /* a new id never ends in a suffix of another run's files */
    for (size_t i = 3; i < 6; i++) {
        ASSERT_EQ_INT(KIX_EINVAL, kix_run_id_check(ids[i], strlen(ids[i]), &err));
        ASSERT_CONTAINS(err.msg, "ends in .html or .json");
    }
    ASSERT_EQ_INT(KIX_OK, kix_run_id_check("v.jsonx", 7, &err));
    /* too long to be a file name once escaped: no name */
    memset(longest, '.', KIX_RUN_ID_MAX);
    ASSERT_EQ_INT(KIX_ELIMIT,
                  kix_run_page_name(longest, KIX_RUN_ID_MAX, name, sizeof(name), &escaped));
}

/* A store logged before the grammar and its suffix rule (an older origin,
 * replayed: the log's own rules only, the index's run rules added later),
 * then opened with the index, which rebuilds its tables from every entry.
 * Its runs "v.json" and "v.html" would name run v's view and page, and
 * "sha256:<v's manifest>" v's digest: the export writes each under an
 * escaped name and says so, v's files stay v's, and a digest always means
 * the digest. */
KIX_TEST(the_export_escapes_ids_logged_before_the_grammar)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf vkey = KIX_BUF_INIT, mark = KIX_BUF_INIT, page = KIX_BUF_INIT;
    struct kix_pages_export_stats st;
    struct kix_index_check_stats cs;
    struct kix_resolution rs;
    struct kix_log_reader *r;
    struct kix_source *src;
    char *out = temp_dir(), path[512], manifest[512], victim[KIX_DIGEST_TEXT_LEN + 1];
    char shadow[KIX_DIGEST_TEXT_LEN + 1], name[KIX_RUN_PAGE_NAME_MAX + 1];
    int rc, escaped;

    run_manifest(manifest, sizeof(manifest), 3);
    digest_text_of_json(manifest, victim); /* run v's manifest */
    setup_keys(&f);
    ASSERT_EQ_INT(KIX_OK,
                  kix_log_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), NULL, &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(KIX_OK, add_key(&f, f.admin, f.publisher, KIX_ROLE_PUBLISH, 0));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, ".size", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "..", 2, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "v", 3, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "v.json", 4, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "v.html", 5, &res, &err));
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, victim, 6, &res, &err));
    run_manifest(manifest, sizeof(manifest), 6);
    digest_text_of_json(manifest, shadow); /* the run named by v's digest */
    kix_log_close(f.log);
    as_written_by_an_older_index(f.dir);
    ASSERT_EQ_INT(KIX_OK, open_converting(f.dir, &f.log, &err));
    rc = kix_index_check(f.log, NULL, &cs, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
    ASSERT_EQ_U64(6, cs.runs);

    for (int pass = 0; pass < 2; pass++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(KIX_OK, export_pages(f.log, out, &st, &err));
        ASSERT_EQ_U64(pass ? 0 : 6, st.runs);
        ASSERT_EQ_U64(pass ? 0 : 5, st.escaped);
        ASSERT_EQ_U64(0, st.skipped);
        if (!pass) {
            ASSERT_CONTAINS(st.escaped_example, "is written as runs/_");
            /* the summary counts every file and byte: here the whole tree */
            tree_files = tree_bytes = 0;
            tree_ninodes = 0;
            tree_walk(out);
            ASSERT_EQ_U64(tree_files, st.files);
            ASSERT_EQ_U64(tree_bytes, st.bytes);
        }
        /* v's files are v's */
        /* (a page pins its run: its view names none since layout 7) */
        ASSERT_TRUE(file_has(out, "runs/v.html", "data-run=\"v\""));
        ASSERT_TRUE(file_has(out, "runs/v.html", "run v</title>"));
        ASSERT_TRUE(file_has(out, "runs/v", "run v</title>"));
        /* the others under escaped names, their pages naming them so */
        ASSERT_TRUE(file_has(out, "runs/_v_djson.html", "data-run=\"v.json\""));
        ASSERT_TRUE(file_has(out, "runs/_v_djson.html", "run v.json</title>"));
        ASSERT_TRUE(file_has(out, "runs/_v_dhtml.html", "run v.html</title>"));
        ASSERT_TRUE(file_has(out, "runs/__dsize.html", "data-run=\".size\""));
        ASSERT_TRUE(file_has(out, "runs/__d_d.html", "run ..</title>"));
        ASSERT_EQ_INT(KIX_OK,
                      kix_run_page_name(victim, strlen(victim), name, sizeof(name), &escaped));
        snprintf(path, sizeof(path), "runs/%s.html", name);
        ASSERT_TRUE(file_has(out, path, shadow)); /* its own manifest */
        snprintf(path, sizeof(path), "runs/%s.json", victim);
        ASSERT_TRUE(!file_is(out, path, 0));
        snprintf(path, sizeof(path), "%s/runs/.size", out);
        kix_buf_reset(&mark);
        ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 64, &mark, &err));
        ASSERT_EQ_MEM("8\n", 2, mark.ptr, mark.len); /* the log size */
    }

    /* a digest always means the digest: v's, not the run logged as it */
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    src = as_source(f.log, r);
    kix_resolution_init(&rs);
    ASSERT_EQ_INT(KIX_OK, kix_index_resolve(r, victim, strlen(victim), &rs, &err));
    ASSERT_EQ_STR("v", rs.run.run_id);
    kix_resolution_release(&rs);
    ASSERT_EQ_INT(KIX_OK, kix_page_run_html(src, victim, strlen(victim), &page, &err));
    ASSERT_EQ_INT(0, kix_buf_add(&page, (const uint8_t *)"", 1));
    ASSERT_CONTAINS((const char *)page.ptr, "run v</title>");
    /* and the escaped name is that run's page (kixd's runs/<name>) */
    kix_buf_reset(&page);
    ASSERT_EQ_INT(KIX_OK, kix_page_run_html(src, name, strlen(name), &page, &err));
    ASSERT_EQ_INT(0, kix_buf_add(&page, (const uint8_t *)"", 1));
    ASSERT_CONTAINS((const char *)page.ptr, shadow);
    kix_source_close(src);
    kix_log_read_end(r);

    /* a new entry: the next pass rewrites pages and escapes them still */
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 7, &res, &err));
    ASSERT_EQ_INT(KIX_OK, export_pages(f.log, out, &st, &err));
    ASSERT_TRUE(file_is(out, "runs/run-2.html", 0));
    /* pages an older kixd wrote (no runs/.layout: links to extensionless
     * names, kernel pages without .html) are all written again */
    snprintf(path, sizeof(path), "%s/runs/.layout", out);
    ASSERT_EQ_INT(0, unlink(path));
    ASSERT_EQ_INT(KIX_OK, export_pages(f.log, out, &st, &err));
    ASSERT_EQ_U64(7, st.runs);
    ASSERT_TRUE(file_is(out, "runs/.layout", 0));
    ASSERT_EQ_INT(KIX_OK, export_pages(f.log, out, &st, &err));
    ASSERT_EQ_U64(0, st.runs);
    kix_buf_release(&page);
    kix_buf_release(&mark);
    kix_buf_release(&vkey);
    remove_dir(out);
    teardown(&f);
}

/* kixd export's `elsewhere` (kix_pages_manifest_in_page): a run's
 * manifest is exactly in its page when the snapshot's index names it as
 * the run's (then a partial bundle's copy writes no objects/ file for
 * it); a publication of the same id whose manifest the page does not
 * show (here another log's, as a refused one would be) only maybe. */
KIX_TEST(a_run_page_holds_exactly_the_manifest_the_index_names)
{
    struct fixture a, b;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_log_reader *ra, *rb;
    struct kix_source *src;
    struct kix_bytes leaf;
    struct kix_digest m, want;
    char manifest[512];
    uint64_t at_a, at_b;

    setup(&a);
    setup(&b);
    ASSERT_EQ_INT(KIX_OK, publish(&a, a.publisher, "r", 1, &res, &err));
    at_a = res.index;
    ASSERT_EQ_INT(KIX_OK, publish(&b, b.publisher, "r", 2, &res, &err));
    at_b = res.index;
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(a.log, &ra));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(b.log, &rb));
    src = as_source(a.log, ra);

    run_manifest(manifest, sizeof(manifest), 1);
    digest_of_json(manifest, &want);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(ra, at_a, &leaf));
    ASSERT_EQ_INT(KIX_TLOG_KEPT_EXACTLY, kix_pages_manifest_in_page(src, leaf.ptr, leaf.len, &m));
    ASSERT_EQ_MEM(want.b, 32, m.b, 32);
    /* not asked: maybe */
    ASSERT_EQ_INT(KIX_TLOG_KEPT_MAYBE, kix_pages_manifest_in_page(NULL, leaf.ptr, leaf.len, &m));
    /* run r of another manifest: a's page for r does not hold it */
    run_manifest(manifest, sizeof(manifest), 2);
    digest_of_json(manifest, &want);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(rb, at_b, &leaf));
    ASSERT_EQ_INT(KIX_TLOG_KEPT_MAYBE, kix_pages_manifest_in_page(src, leaf.ptr, leaf.len, &m));
    ASSERT_EQ_MEM(want.b, 32, m.b, 32);

    kix_source_close(src);
    kix_log_read_end(ra);
    kix_log_read_end(rb);
    teardown(&a);
    teardown(&b);
}

KIX_TEST_MAIN()
