/* Issue 42.4: evidence no replay can raise. A log an older origin wrote
 * (the log's own rules only: no run-id grammar, no refusal of a run's
 * publisher rerunning it) holds a controlled rerun signed by the run's own
 * publisher and a run id outside the grammar. Opened by today's index (a
 * rebuild, as a replica replays), the headline never says "Reproduced" in
 * kix show, kix resolve --json or the exported page; kix audit and kixd
 * check list each entry as a finding, and --strict fails on them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fixture.h"

static char bin[4096], state[512];

/* Runs a binary of the build with args (NULL-terminated); its stdout into
 * *out (malloc'ed); returns its exit status. */
static int run(char **out, const char *prog, ...)
{
    char path[4200], *argv[16], buf[4096];
    size_t n = 0, len = 0, cap = 0;
    va_list ap;
    pid_t pid;
    FILE *p;
    int st;

    snprintf(path, sizeof(path), "%s/%s", bin, prog);
    argv[n++] = path;
    va_start(ap, prog);
    while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    *out = NULL;
    p = kix_test_pipe_open(argv, &pid);
    if (!p)
        return -1;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            *out = realloc(*out, cap);
            if (!*out)
                abort();
        }
        memcpy(*out + len, buf, n);
        len += n;
    }
    if (!*out)
        *out = calloc(1, 1);
    else
        (*out)[len] = '\0';
    st = kix_test_pipe_close(p, pid);
    return st;
}

/* The store an older origin wrote, opened (and so rebuilt) by today's
 * index: entry 2 publishes run-self, entry 3 is its publisher's own rerun,
 * entry 4 publishes run id "..". */
static void older_store(struct fixture *f)
{
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf vkey = KIX_BUF_INIT;
    struct kix_signer *both = new_key("both");

    setup_keys(f);
    ASSERT_EQ_INT(
        KIX_OK, kix_log_create(f->dir, ORIGIN, kix_signer_public_key(f->admin), NULL, &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_open(f->dir, NULL, &f->log, &err));
    ASSERT_EQ_INT(KIX_OK, add_key(f, f->admin, both, KIX_ROLE_PUBLISH | KIX_ROLE_RERUN, 0));
    ASSERT_EQ_INT(KIX_OK, publish(f, both, "run-self", 1, &res, &err));
    ASSERT_EQ_INT(KIX_OK, rerun_reproduced(f, both, "run-self", 1));
    ASSERT_EQ_INT(KIX_OK, publish(f, both, "..", 2, &res, &err));
    kix_log_close(f->log);
    f->log = NULL;
    as_written_by_an_older_index(f->dir);
    ASSERT_EQ_INT(KIX_OK, open_converting(f->dir, &f->log, &err));
    kix_log_close(f->log);
    f->log = NULL;
    kix_buf_release(&vkey);
    kix_signer_free(both);
}

static void env_setup(const char *dir)
{
    const char *b = getenv("KIX_BIN");
    if (!b)
        exit(77);
    snprintf(bin, sizeof(bin), "%s", b);
    snprintf(state, sizeof(state), "%s.state", dir);
    setenv("KIX_STATE_DIR", state, 1);
    setenv("XDG_CONFIG_HOME", state, 1);
    unsetenv("KIX_LOG_KEY");
}

KIX_TEST(the_headline_never_says_reproduced)
{
    struct fixture f;
    char *out = NULL, outdir[600], page[700];
    struct kix_buf html = KIX_BUF_INIT;
    struct kix_err err = {0};

    older_store(&f);
    env_setup(f.dir);
    ASSERT_EQ_INT(0, run(&out, "kix", "show", "run-self", "--store", f.dir, NULL));
    ASSERT_TRUE(strstr(out, "Reproduced") == NULL);
    ASSERT_CONTAINS(out, "Reported evidence");
    ASSERT_CONTAINS(out, "the publisher's own key: the publisher reran its own run, which is "
                         "never evidence");
    free(out);
    ASSERT_EQ_INT(0, run(&out, "kix", "resolve", "run-self", "--store", f.dir, "--json", NULL));
    ASSERT_CONTAINS(out, "\"evidence\":\"reported\"");
    ASSERT_TRUE(strstr(out, "\"evidence\":\"reproduced\"") == NULL);
    free(out);
    snprintf(outdir, sizeof(outdir), "%s.export", f.dir);
    ASSERT_EQ_INT(0, run(&out, "kixd", "export", "--store", f.dir, outdir, NULL));
    free(out);
    snprintf(page, sizeof(page), "%s/runs/run-self.html", outdir);
    ASSERT_EQ_INT(KIX_OK, kix_file_read(page, 1 << 22, &html, &err));
    ASSERT_EQ_INT(KIX_OK, kix_buf_addc(&html, '\0'));
    ASSERT_TRUE(strstr((const char *)html.ptr, "Reproduced by a controlled rerun") == NULL);
    ASSERT_CONTAINS((const char *)html.ptr, "Reported evidence");
    kix_buf_release(&html);
    {
        char *d = strdup(outdir);
        remove_dir(d);
        d = strdup(state);
        remove_dir(d);
    }
    teardown(&f);
}

KIX_TEST(audit_and_check_report_findings_and_strict_fails)
{
    struct fixture f;
    char *out = NULL;

    older_store(&f);
    env_setup(f.dir);
    /* findings are reported, and are no failure by default */
    ASSERT_EQ_INT(0, run(&out, "kix", "audit", "--store", f.dir, NULL));
    ASSERT_CONTAINS(out, "finding: entry 3 (self-rerun)");
    ASSERT_CONTAINS(out, "finding: entry 4 (run-id)");
    free(out);
    ASSERT_EQ_INT(1, run(&out, "kix", "audit", "--strict", "--store", f.dir, NULL));
    ASSERT_CONTAINS(out, "finding: entry 3 (self-rerun)");
    free(out);
    ASSERT_EQ_INT(1, run(&out, "kix", "audit", "--strict", "--json", "--store", f.dir, NULL));
    ASSERT_CONTAINS(out, "\"passed\":false");
    ASSERT_CONTAINS(out, "\"index\":3,\"rule\":\"self-rerun\"");
    free(out);
    ASSERT_EQ_INT(0, run(&out, "kixd", "check", "--store", f.dir, NULL));
    ASSERT_CONTAINS(out, "finding: entry 3 (self-rerun)");
    ASSERT_CONTAINS(out, "finding: entry 4 (run-id)");
    free(out);
    ASSERT_EQ_INT(1, run(&out, "kixd", "check", "--strict", "--store", f.dir, NULL));
    free(out);
    ASSERT_EQ_INT(1, run(&out, "kixd", "check", "--strict", "--json", "--store", f.dir, NULL));
    ASSERT_CONTAINS(out, "\"findings\":[{\"index\":3,\"rule\":\"self-rerun\"");
    ASSERT_CONTAINS(out, "\"ok\":false");
    free(out);
    {
        char *d = strdup(state);
        remove_dir(d);
    }
    teardown(&f);
}

KIX_TEST_MAIN()
