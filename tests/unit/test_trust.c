/* What a client remembers about runs it verified (kix/trust.h): a run seen
 * published stays published, so a later proof of its absence at a larger
 * size is an alarm (KIX_EFORK) with the evidence kept; below the index it
 * was published at, or for a run never seen, an absence is believed. */
#include <dirent.h>
#include <stdlib.h>

#include "fixture.h"
#include "kix/trust.h"

static size_t count_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

KIX_TEST(a_run_seen_and_then_denied_is_an_alarm)
{
    struct kix_signer *log_key = new_key("trust.test/log");
    struct kix_verifier v;
    struct kix_err err = {0};
    char *state = temp_dir(), dir[4096], evidence[4200];
    const char note[] = "trust.test/log\n9\nAAAA\n\n— trust.test/log sig\n";

    setenv("KIX_STATE_DIR", state, 1);
    kix_verifier_from_signer(log_key, &v);
    /* never seen: an absence is believed */
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_denied(&v, "run-1", note, strlen(note), 9, &err));
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_seen(&v, "run-1", 5, &err));
    /* seen again later at another index: the first sighting is kept */
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_seen(&v, "run-1", 7, &err));
    /* proven absent at a size that holds its publication: an alarm */
    ASSERT_EQ_INT(KIX_EFORK, kix_trust_run_denied(&v, "run-1", note, strlen(note), 9, &err));
    ASSERT_CONTAINS(err.msg, "verified its publication at log index 5");
    ASSERT_CONTAINS(err.msg, "kept as evidence");
    ASSERT_EQ_INT(KIX_OK, kix_trust_dir(&v, dir, sizeof(dir), &err));
    snprintf(evidence, sizeof(evidence), "%s/evidence", dir);
    /* what was remembered, what was presented, the run's record, the reason */
    ASSERT_EQ_U64(4, count_files(evidence));
    /* absent at a size before its publication: consistent */
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_denied(&v, "run-1", note, strlen(note), 5, &err));
    /* denied without a proof of absence: never seen, the denial stands;
     * seen, an alarm whose evidence does not overwrite the first's */
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_unproven(&v, "run-2", note, strlen(note), "kixd",
                                                 "index proofs refused", &err));
    ASSERT_EQ_INT(KIX_EFORK, kix_trust_run_unproven(&v, "run-1", note, strlen(note), "kixd",
                                                    "index proofs refused", &err));
    ASSERT_CONTAINS(err.msg, "kixd says there is no run run-1 and cannot prove its absence");
    ASSERT_CONTAINS(err.msg, "kept as evidence");
    ASSERT_EQ_U64(8, count_files(evidence));
    /* a run id that is not one is refused, not written as a path */
    ASSERT_EQ_INT(KIX_EINVAL, kix_trust_run_seen(&v, "../x", 1, &err));
    unsetenv("KIX_STATE_DIR");
    kix_signer_free(log_key);
    remove_dir(state);
}

/* Ids a log may hold from before the run-id grammar (".", "..", ".size")
 * are remembered apart from each other and from every id of the grammar,
 * and never as the runs directory or its parent. */
KIX_TEST(a_run_id_from_before_the_grammar_is_remembered_under_its_hash)
{
    struct kix_signer *log_key = new_key("trust.test/log");
    struct kix_verifier v;
    struct kix_err err = {0};
    char *state = temp_dir(), dir[4096], runs[4200];
    const char note[] = "trust.test/log\n9\nAAAA\n\n— trust.test/log sig\n";
    const char *old_ids[] = {".", "..", ".size"};

    setenv("KIX_STATE_DIR", state, 1);
    kix_verifier_from_signer(log_key, &v);
    for (size_t i = 0; i < 3; i++)
        ASSERT_EQ_INT(KIX_OK, kix_trust_run_seen(&v, old_ids[i], 5, &err));
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_seen(&v, "run-1", 6, &err));
    ASSERT_EQ_INT(KIX_OK, kix_trust_dir(&v, dir, sizeof(dir), &err));
    snprintf(runs, sizeof(runs), "%s/runs", dir);
    /* one file each: "run-1" and three named '=' and a hash */
    ASSERT_EQ_U64(4, count_files(runs));
    /* each is remembered as its own: denied at a size past it, an alarm */
    for (size_t i = 0; i < 3; i++)
        ASSERT_EQ_INT(KIX_EFORK, kix_trust_run_denied(&v, old_ids[i], note, strlen(note), 9, &err));
    /* and "run-1"'s memory is untouched by theirs */
    ASSERT_EQ_INT(KIX_OK, kix_trust_run_denied(&v, "run-1", note, strlen(note), 6, &err));
    unsetenv("KIX_STATE_DIR");
    kix_signer_free(log_key);
    remove_dir(state);
}

KIX_TEST_MAIN()
