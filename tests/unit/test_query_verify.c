/* kix_client_query_verify: a query's rows proven against objects and the
 * signed index. A real log of Liger rows; the server's rows are then edited
 * as a lying server would send them (rank, group size, value, words,
 * manifest, group), and each edit must be refused with the run named. */
#include "fixture.h"
#include "kix/client.h"
#include "liger_sample.h"

#define ROWS 40

/* Commits one row to the fixture's log. */
static int commit_row(void *ctx, size_t row, const char *run_id, const struct kix_buf *envelope,
                      const struct kix_bytes *objects)
{
    struct fixture *f = ctx;
    struct kix_submission sub = {kix_buf_bytes(envelope), objects, KIX_LIGER_NOBJECTS};
    struct kix_prepared *p = NULL;
    struct kix_append_result res;
    struct kix_err err = {0};

    (void)run_id;
    if (kix_log_prepare(f->log, &sub, &p, &err) ||
        kix_log_commit(f->log, &p, 1, &res, NULL, &err) || res.code) {
        fprintf(stderr, "publishing row %zu: %s %s\n", row, err.msg, res.message);
        abort();
    }
    kix_prepared_free(p);
    return 0;
}

static void publish_liger_rows(struct fixture *f, size_t n)
{
    if (liger_sample_publish(f->publisher, n, commit_row, f))
        abort();
}

struct rows {
    struct kix_query_row row[ROWS];
    size_t n;
};

static int keep(void *ctx, const struct kix_query_row *row)
{
    struct rows *r = ctx;
    if (r->n < ROWS)
        r->row[r->n++] = *row;
    return 0;
}

/* The first two rows of one group, best first. */
static void two_of_a_group(const struct rows *r, size_t *a, size_t *b)
{
    for (size_t i = 0; i + 1 < r->n; i++)
        if (memcmp(r->row[i].group.b, r->row[i + 1].group.b, 32) == 0 && r->row[i].rank == 1) {
            *a = i;
            *b = i + 1;
            return;
        }
    abort();
}

static int verify(struct kix_client *c, const struct fixture *f, const struct rows *r,
                  struct kix_err *err)
{
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT};
    int rc = kix_client_query_verify(c, &f->vkey, r->row, r->n, NULL, NULL, &proof, err);
    kix_buf_release(&proof.checkpoint);
    return rc;
}

KIX_TEST(query_rows_are_proven_and_lies_refused)
{
    struct fixture f;
    struct kix_client *c = NULL;
    struct kix_query q;
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT};
    struct kix_err err = {0};
    static struct rows honest, r;
    uint64_t matched = 0;
    size_t a = 0, b = 0;

    setup(&f);
    publish_liger_rows(&f, ROWS);
    kix_log_close(f.log);
    f.log = NULL;
    ASSERT_EQ_INT(KIX_OK, kix_client_open_store(f.dir, &c, &err));
    memset(&q, 0, sizeof(q));
    q.limit = ROWS;
    ASSERT_EQ_INT(KIX_OK, kix_client_query(c, &q, keep, &honest, &matched, &err));
    ASSERT_TRUE(honest.n >= 2);
    two_of_a_group(&honest, &a, &b);

    /* the honest page is proven: every group, at the log's size */
    ASSERT_EQ_INT(KIX_OK, kix_client_query_verify(c, &f.vkey, honest.row, honest.n, NULL, NULL,
                                                  &proof, &err));
    ASSERT_TRUE(proof.groups >= 1);
    ASSERT_EQ_U64(4 + ROWS, proof.size); /* entry 0, three keys, then the rows */
    ASSERT_TRUE(proof.checkpoint.len > 0);
    kix_buf_release(&proof.checkpoint);

    /* two runs of a group with their ranks swapped */
    r = honest;
    r.row[a].rank = 2;
    r.row[b].rank = 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "are not the log's signed index");
    /* a group said to be larger */
    r = honest;
    r.row[a].group_size++;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, r.row[a].run_id);
    /* the second run said to be the first, with the first's value */
    r = honest;
    snprintf(r.row[a].run_id, sizeof(r.row[a].run_id), "%s", honest.row[b].run_id);
    r.row[a].manifest = honest.row[b].manifest;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* a better median than the manifest's */
    r = honest;
    r.row[b].value /= 2;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "its manifest puts it in group");
    /* another kernel or GPU than the objects say */
    r = honest;
    snprintf(r.row[b].gpu, sizeof(r.row[b].gpu), "NVIDIA H100");
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "its objects say");
    /* the manifests of the two runs swapped */
    r = honest;
    r.row[a].manifest = honest.row[b].manifest;
    r.row[b].manifest = honest.row[a].manifest;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* a manifest the server does not hold */
    r = honest;
    r.row[a].manifest.b[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    ASSERT_CONTAINS(err.msg, "which it does not hold");
    /* a group that does not exist, with the manifest's other fields */
    r = honest;
    r.row[a].group.b[0] ^= 1;
    ASSERT_EQ_INT(KIX_EVERIFY, verify(c, &f, &r, &err));
    /* and the honest page still verifies */
    ASSERT_EQ_INT(KIX_OK, verify(c, &f, &honest, &err));
    kix_client_close(c);
    teardown(&f);
}

KIX_TEST_MAIN()
