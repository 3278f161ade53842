/* kix new run: which of the log's comparison groups the new bundle comes
 * close to joining, and why it joins none. A bundle of its own files always
 * makes a new protocol and environment object, so it joins no group; what
 * is worth telling is the group it was probably meant for (the same kernel)
 * and what else differs: a parameter's name or value, the dtype, the pass,
 * the GPU. The rows are read as kix query reads them, each row's workload
 * proven by digest, the ranks by the signed index. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/doc.h"
#include "kix/vocabulary.h"
#include "new_near.h"

#define NEAR_ROWS 1000 /* the runs read: one page of kix query */

struct near_rows {
    struct kix_query_row *row;
    json_t **workload; /* row i's verified Workload, first row of a group only */
    size_t n, cap;
    int failed;
};

static int keep_row(void *ctx, const struct kix_query_row *row)
{
    struct near_rows *r = ctx;
    struct kix_query_row *grown = kix_array_grow(r->row, &r->cap, r->n, 64, sizeof(*grown));

    if (!grown)
        return r->failed = KIX_ENOMEM;
    r->row = grown;
    r->row[r->n++] = *row;
    return 0;
}

static int first_of_group(const struct near_rows *r, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (memcmp(r->row[j].group.b, r->row[i].group.b, 32) == 0)
            return 0;
    return 1;
}

static int got_workload(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct near_rows *r = ctx;

    if (i < r->n && !r->workload[i] && first_of_group(r, i))
        r->workload[i] = json_loadb((const char *)bytes, len, 0, NULL);
    return 0;
}

static void value_text(const json_t *v, char *out, size_t cap)
{
    struct kix_buf t = KIX_BUF_INIT;
    int ok = kix_doc_dumps(v, 0, &t, NULL) == KIX_OK && kix_buf_addc(&t, 0) == KIX_OK;
    snprintf(out, cap, "%s", ok ? (const char *)t.ptr : "?");
    kix_buf_release(&t);
}

/* 2048 and 2048.0 are one value */
static int same_value(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

static void add_diff(struct new_near_group *g, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_diff(struct new_near_group *g, const char *kind, const char *fmt, ...)
{
    va_list ap;

    if (g->ndiff < NEW_NEAR_DIFF) {
        va_start(ap, fmt);
        vsnprintf(g->diff[g->ndiff], sizeof(g->diff[0]), fmt, ap);
        va_end(ap);
        snprintf(g->diff_kind[g->ndiff], sizeof(g->diff_kind[0]), "%s", kind);
    }
    g->ndiff++;
}

/* What differs between the run and the group whose best row is row. A
 * parameter the run names that the group lacks, beside one the group names
 * with the same value that the run lacks, is one parameter spelled two
 * ways (seq_len here, seq there): said as such. */
static void compare(const struct new_near_run *run, const struct kix_query_row *row,
                    const json_t *workload, struct new_near_group *g)
{
    const json_t *spec = json_object_get(workload, "spec");
    const json_t *theirs = json_object_get(spec, "parameters"), *v, *w;
    const char *name, *oname, *dtype = json_string_value(json_object_get(spec, "dtype"));
    char a[64], b[64], dshort[32];
    json_t *paired = json_object();

    if (!json_is_object(theirs))
        theirs = NULL;
    json_object_foreach((json_t *)run->params, name, v)
    {
        if ((w = json_object_get(theirs, name))) {
            if (!same_value(v, w)) {
                value_text(v, a, sizeof(a));
                value_text(w, b, sizeof(b));
                add_diff(g, "parameter", "parameter %s is %s here, %s in the group", name, a, b);
            }
            continue;
        }
        oname = NULL;
        json_object_foreach((json_t *)theirs, oname, w)
        {
            if (!json_object_get(run->params, oname) && !json_object_get(paired, oname) &&
                same_value(v, w))
                break;
        }
        value_text(v, a, sizeof(a));
        if (oname && paired) {
            json_object_set_new(paired, oname, json_true());
            add_diff(g, "parameter", "parameter %s=%s is named %s in the group (%s=%s)", name, a,
                     oname, oname, a);
        } else {
            add_diff(g, "parameter", "parameter %s=%s is not in the group's workload", name, a);
        }
    }
    json_object_foreach((json_t *)theirs, name, w)
    {
        if (json_object_get(run->params, name) || json_object_get(paired, name))
            continue;
        value_text(w, b, sizeof(b));
        add_diff(g, "parameter", "the group's workload has %s=%s, this run none (--param %s=%s)",
                 name, b, name, b);
    }
    json_decref(paired);
    if (!dtype || !kix_vocab_dtype(dtype, dshort, sizeof(dshort)))
        snprintf(dshort, sizeof(dshort), "%s", dtype ? dtype : "none");
    if (strcmp(dshort, run->dtype) != 0)
        add_diff(g, "dtype", "dtype %s here, %s in the group", run->dtype, dshort);
    if (strcasecmp(row->mode, run->pass) != 0)
        add_diff(g, "pass", "pass %s here, %s in the group", run->pass,
                 row->mode[0] ? row->mode : "none");
    if (strcasecmp(row->gpu, run->gpu) != 0)
        add_diff(g, "gpu", "GPU %s here, %s in the group", run->gpu,
                 row->gpu[0] ? row->gpu : "none");
}

static int closer(const void *pa, const void *pb)
{
    const struct new_near_group *a = pa, *b = pb;

    if (a->ndiff != b->ndiff)
        return a->ndiff < b->ndiff ? -1 : 1;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return strcmp(a->group, b->group);
}

int cli_new_near(const char *cmd, const struct cli_common *common, const struct new_near_run *run,
                 struct new_near *out)
{
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_query q;
    struct kix_query_proof proof = {0, 0, KIX_BUF_INIT, 0};
    struct kix_err err = {0};
    struct near_rows rows = {0};
    struct new_near_group *all = NULL;
    size_t nall = 0;
    uint64_t matched = 0;
    int rc = KIX_OK, status;

    memset(out, 0, sizeof(*out));
    if ((status = cli_connect(cmd, common, &c)))
        goto out;
    if ((status = cli_contact(cmd, common, c, &key, CLI_CONTACT_READ, NULL)))
        goto out;
    memset(&q, 0, sizeof(q));
    q.kernel = run->kernel;
    q.metric = "latency"; /* what the template measures */
    q.limit = NEAR_ROWS;
    rc = kix_client_query(c, &q, keep_row, &rows, &matched, &err);
    if (rc == KIX_OK && rows.failed)
        rc = kix_err_set(&err, rows.failed, "out of memory keeping the query's rows");
    if (rc == KIX_OK && !(rows.workload = calloc(rows.n ? rows.n : 1, sizeof(*rows.workload))))
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = kix_client_query_verify(c, &key, rows.row, rows.n, got_workload, &rows, &proof, &err);
    if (rc == KIX_OK && proof.checkpoint.len)
        rc = cli_trust_check(c, &key, (const char *)proof.checkpoint.ptr, proof.checkpoint.len,
                             NULL, &err);
    if (rc == KIX_OK && !(all = calloc(rows.n ? rows.n : 1, sizeof(*all))))
        rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    if (rc) {
        status = cli_fail(cmd, rc, &err);
        goto out;
    }
    for (size_t i = 0; i < rows.n; i++) {
        const struct kix_query_row *row = &rows.row[i];
        struct new_near_group *g;

        /* the family of --kernel (rope_backward) is another kernel */
        if (!rows.workload[i] || strcasecmp(row->kernel, run->kernel) != 0)
            continue;
        g = &all[nall++];
        kix_digest_format(&row->group, g->group);
        snprintf(g->run_id, sizeof(g->run_id), "%s", row->run_id);
        snprintf(g->provider, sizeof(g->provider), "%s", row->provider);
        snprintf(g->gpu, sizeof(g->gpu), "%s", row->gpu);
        snprintf(g->mode, sizeof(g->mode), "%s", row->mode);
        g->size = row->group_size;
        compare(run, row, rows.workload[i], g);
    }
    qsort(all, nall, sizeof(*all), closer);
    out->groups = nall;
    out->n = nall < NEW_NEAR_MAX ? nall : NEW_NEAR_MAX;
    memcpy(out->g, all, out->n * sizeof(*all));
    out->checked = 1;
    status = 0;
out:
    for (size_t i = 0; rows.workload && i < rows.n; i++)
        json_decref(rows.workload[i]);
    free(rows.workload);
    free(rows.row);
    free(all);
    kix_buf_release(&proof.checkpoint);
    kix_client_close(c);
    return status;
}
