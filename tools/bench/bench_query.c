/* kix-bench: kix query as a reader runs it against kixd, with its proofs:
 * the rows (kix_client_query), what each row says (kix_client_query_verify)
 * and, with `complete`, that they are all the matches
 * (kix_client_query_page: the page computed by the client from the
 * selection and group records, as kix query does). */
#include <string.h>

#include "bench.h"
#include "kix/client.h"

struct page {
    struct kix_query_row row[BENCH_QUERY_LIMIT];
    size_t n;
};

static int keep(void *ctx, const struct kix_query_row *row)
{
    struct page *p = ctx;
    if (p->n < BENCH_QUERY_LIMIT)
        p->row[p->n++] = *row;
    return 0;
}

int bench_query(struct kix_client *c, const struct kix_query *q, int complete, int reps,
                struct bench_query_figs *out, struct kix_err *err)
{
    static struct page page;
    struct kix_client_info info;
    struct kix_verifier key;
    struct bench_lat lat = {NULL, 0, 0};
    int rc = kix_client_info(c, &info, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = kix_verifier_parse(info.log_key, strlen(info.log_key), &key, err);
    for (int i = 0; rc == KIX_OK && i < reps; i++) {
        struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
        uint64_t matched = 0;
        double t0 = bench_now();

        page.n = 0;
        if (complete) { /* what kix query runs: the page computed from the index */
            struct kix_query_page p;
            rc = kix_client_query_page(c, &key, q, NULL, NULL, &p, &proof, err);
            if (rc == KIX_OK) {
                page.n = p.n;
                matched = p.matched;
            }
            kix_query_page_release(&p);
        } else {
            rc = kix_client_query(c, q, keep, &page, &matched, err);
            if (rc == KIX_OK)
                rc = kix_client_query_verify(c, &key, page.row, page.n, NULL, NULL, &proof, err);
        }
        bench_lat_add(&lat, (uint64_t)((bench_now() - t0) * 1e9));
        out->matched = matched;
        out->rows = page.n;
        /* complete: a group's record and its describing run's record each
         * (a group's pages beyond the first not counted) */
        out->proofs = page.n + proof.groups * (complete ? 2 : 1) + proof.selections;
        kix_buf_release(&proof.checkpoint);
    }
    out->p50_ms = bench_lat_quantile(&lat, 0.5) / 1e6;
    bench_lat_release(&lat);
    return rc;
}
