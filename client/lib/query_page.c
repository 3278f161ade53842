/* kix_client_query_page: a query's page computed by the client from proven
 * records, never taken from the server's answer. The selection records
 * (query_selection.c) say which groups (and, with a provider, which runs)
 * match; every selected group's record (group_page_verify.c) gives its members
 * and ranks; one member of each group, proven by its run record and its
 * objects, describes the group (kernel, workload, GPU, pass and metric are
 * functions of the comparison key, PROTOCOL.md §4.7). The client orders
 * the groups itself and cuts the page [offset, offset + limit) from that
 * order, so a server that shifts, repeats or skips rows between pages has
 * nothing to shift: it is never asked for a page (issue 42, item 5). The
 * page's own rows are then proven like any row: run record, manifest,
 * objects. See kix/client.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kix/client.h"
#include "kix/manifest.h"
#include "kix/vindex.h"
#include "query_internal.h"

#define OBJECTS_PER_CALL 1024 /* kix_client_get_objects' bound */

/* One matching member of a selected group. */
struct member {
    uint64_t rank, value;
    char run_id[KIX_RUN_ID_MAX + 1];
};

/* One selected group: its matching members, rank order, and what one of
 * them proves it is. */
struct pgroup {
    struct kix_digest key;
    uint64_t count; /* the directory's: ranked runs in the group */
    struct member *m;
    size_t n, cap;
    struct kix_query_row desc; /* kernel, gpu, mode, metric (provider: not the group's) */
    char words[KIX_QUERY_WORDS_MAX];
    int keep;
};

struct collect {
    const struct kix__selection *sel;
    struct pgroup *g;
    int failed;
};

static int collect_member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct collect *c = ctx;
    struct pgroup *g = c->g;
    struct member *grown;

    if (!kix__selection_has_run(c->sel, g->key.b, run_id))
        return 0;
    if (!(grown = kix_array_grow(g->m, &g->cap, g->n, 16, sizeof(*grown))))
        return c->failed = KIX_ENOMEM;
    g->m = grown;
    g->m[g->n].rank = rank;
    g->m[g->n].value = value;
    snprintf(g->m[g->n].run_id, sizeof(g->m[g->n].run_id), "%s", run_id);
    g->n++;
    return 0;
}

/* Text compared as people read it: runs of digits by their number (8192
 * after 1024), the rest case-insensitively. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *x = a, *y = b;
            size_t lx, ly;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            for (lx = 0; x[lx] >= '0' && x[lx] <= '9'; lx++)
                ;
            for (ly = 0; y[ly] >= '0' && y[ly] <= '9'; ly++)
                ;
            if (lx != ly)
                return lx < ly ? -1 : 1;
            int d = memcmp(x, y, lx);
            if (d)
                return d;
            a = x + lx;
            b = y + ly;
            continue;
        }
        int ca = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a, cb = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (ca != cb)
            return (unsigned char)ca < (unsigned char)cb ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* Groups by kernel, workload, GPU, pass, metric, then key: a reader
 * finds one kernel's shapes together, each shape's GPUs side by side. */
static int group_order(const void *pa, const void *pb)
{
    const struct pgroup *a = pa, *b = pb;
    int d = strcasecmp(a->desc.kernel, b->desc.kernel);

    if (!d)
        d = natural_cmp(a->words, b->words);
    if (!d)
        d = natural_cmp(a->desc.gpu, b->desc.gpu);
    if (!d)
        d = strcasecmp(a->desc.mode, b->desc.mode);
    if (!d)
        d = strcasecmp(a->desc.metric, b->desc.metric);
    return d ? d : memcmp(a->key.b, b->key.b, 32);
}

/* A run's record, proven at proof->size: its manifest, which must be
 * ranked in group at value; its evidence. */
static int prove_run(struct kix_client *c, const struct kix_verifier *key, const char *run_id,
                     const struct kix_digest *group, uint64_t value, struct kix_query_proof *proof,
                     struct kix_digest *manifest, int *evidence, struct kix_err *err)
{
    char ikey[KIX_VINDEX_KEY_MAX + 1], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_index_answer a;
    struct kix_vindex_run r;
    int rc;

    kix_vindex_key_run(run_id, strlen(run_id), ikey);
    if ((rc = kix_client_index_proof(c, key, ikey, &a, err)))
        return rc;
    if (a.cp.size != proof->size)
        rc = kix_err_set(err, KIX_EUNAVAIL,
                         "the log grew from size %llu to %llu while the answer was proven; try "
                         "again",
                         (unsigned long long)proof->size, (unsigned long long)a.cp.size);
    else if (!a.present)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the log's signed index at size %llu ranks run %s in its group's record "
                         "but proves its run record absent",
                         (unsigned long long)proof->size, run_id);
    else if ((rc = kix_vindex_run_decode(a.record.ptr, a.record.len, run_id, &r, err)) == KIX_OK &&
             (!r.info.grouped || memcmp(r.info.comparison_key.b, group->b, 32) != 0 ||
              r.info.value != value)) {
        kix_digest_format(group, text);
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the log's signed index at size %llu ranks run %s in group %s, but its "
                         "run record says another group or value",
                         (unsigned long long)proof->size, run_id, text);
    }
    if (rc == KIX_OK) {
        *manifest = r.info.manifest;
        *evidence = r.info.evidence;
    }
    kix_index_answer_release(&a);
    return rc;
}

struct fetched {
    struct kix_buf *bytes;
    int *have;
};

static int keep_object(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct fetched *f = ctx;
    if (!bytes)
        return 0;
    f->have[i] = 1;
    return kix_buf_add(&f->bytes[i], bytes, len);
}

static void fetched_release(struct fetched *f, size_t n)
{
    for (size_t i = 0; f->bytes && i < n; i++)
        kix_buf_release(&f->bytes[i]);
    free(f->bytes);
    free(f->have);
    f->bytes = NULL;
    f->have = NULL;
}

static int digest_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct kix_digest));
}

static int digest_zero(const struct kix_digest *d)
{
    static const struct kix_digest zero;
    return memcmp(d, &zero, sizeof(zero)) == 0;
}

/* n objects by digest (each checked against it by the client), each
 * asked once: the groups of one kernel share environments and workloads,
 * and a zero digest (none named) is not asked. */
static int fetch_all(struct kix_client *c, const struct kix_digest *d, size_t n, struct fetched *f,
                     struct kix_err *err)
{
    struct kix_digest *u = malloc((n ? n : 1) * sizeof(*u));
    struct fetched uf = {NULL, NULL};
    size_t m = 0;
    int rc = KIX_OK;

    f->bytes = calloc(n ? n : 1, sizeof(*f->bytes));
    f->have = calloc(n ? n : 1, sizeof(*f->have));
    if (u)
        for (size_t i = 0; i < n; i++)
            if (!digest_zero(&d[i]))
                u[m++] = d[i];
    if (m > 1) {
        size_t k = 1;
        qsort(u, m, sizeof(*u), digest_cmp);
        for (size_t i = 1; i < m; i++)
            if (digest_cmp(&u[i], &u[k - 1]) != 0)
                u[k++] = u[i];
        m = k;
    }
    uf.bytes = calloc(m ? m : 1, sizeof(*uf.bytes));
    uf.have = calloc(m ? m : 1, sizeof(*uf.have));
    if (!u || !f->bytes || !f->have || !uf.bytes || !uf.have)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory fetching objects");
    for (size_t at = 0; rc == KIX_OK && at < m; at += OBJECTS_PER_CALL) {
        size_t k = m - at < OBJECTS_PER_CALL ? m - at : OBJECTS_PER_CALL;
        struct fetched part = {uf.bytes + at, uf.have + at};
        rc = kix_client_get_objects(c, u + at, k, keep_object, &part, err);
    }
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        const struct kix_digest *j =
            digest_zero(&d[i]) ? NULL : bsearch(&d[i], u, m, sizeof(*u), digest_cmp);
        if (j && uf.have[j - u]) {
            f->have[i] = 1;
            if (kix_buf_add(&f->bytes[i], uf.bytes[j - u].ptr, uf.bytes[j - u].len) != KIX_OK)
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        }
    }
    fetched_release(&uf, m);
    free(u);
    return rc;
}

/* Runs proven by their records and manifests, each described from its
 * objects into rows[i] (rows[i] holds run_id, group, value on entry, and
 * its manifest and evidence too where known[i], from a run record proven
 * before at this size; known may be NULL). With groups (describing a
 * group, whose provider is not the group's) the Implementation is not
 * fetched: its words stay empty. workload (may be NULL) gets each row's
 * Workload. */
static int describe_runs(struct kix_client *c, const struct kix_verifier *key,
                         struct kix_query_row *rows, size_t n, const int *known, int groups,
                         struct kix_buf *workload, struct kix_query_proof *proof,
                         struct kix_err *err)
{
    struct fetched man = {NULL, NULL}, objs = {NULL, NULL};
    struct kix_digest *d = calloc(n * KIX_QUERY_NREFS + 1, sizeof(*d));
    int rc = d ? KIX_OK : kix_err_set(err, KIX_ENOMEM, "out of memory");

    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        if (!known || !known[i])
            rc = prove_run(c, key, rows[i].run_id, &rows[i].group, rows[i].value, proof,
                           &rows[i].manifest, &rows[i].evidence, err);
        d[i] = rows[i].manifest;
    }
    if (rc == KIX_OK)
        rc = fetch_all(c, d, n, &man, err);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        struct kix_digest ck;
        uint64_t value;
        char metric[16], text[KIX_DIGEST_TEXT_LEN + 1];

        kix_digest_format(&rows[i].manifest, text);
        if (!man.have[i])
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the server does not hold manifest %s of run %s, which the log's "
                             "signed index at size %llu ranks",
                             text, rows[i].run_id, (unsigned long long)proof->size);
        else if (kix_run_comparison_key(man.bytes[i].ptr, man.bytes[i].len, &ck, &value, metric) !=
                     KIX_OK ||
                 memcmp(ck.b, rows[i].group.b, 32) != 0 || value != rows[i].value)
            rc = kix_err_set(err, KIX_EVERIFY,
                             "manifest %s of run %s does not put it in the group and value the "
                             "log's signed index at size %llu ranks it with",
                             text, rows[i].run_id, (unsigned long long)proof->size);
        else
            kix_query_row_refs(man.bytes[i].ptr, man.bytes[i].len, &d[i * KIX_QUERY_NREFS]);
        if (rc == KIX_OK && groups) /* a zero digest is absent everywhere: not asked for */
            memset(&d[i * KIX_QUERY_NREFS + KIX_QUERY_IMPLEMENTATION], 0, sizeof(*d));
    }
    if (rc == KIX_OK)
        rc = fetch_all(c, d, n * KIX_QUERY_NREFS, &objs, err);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        struct kix_bytes views[KIX_QUERY_NREFS];
        char gpu_full[160];

        for (int k = 0; k < KIX_QUERY_NREFS; k++)
            views[k] = objs.have[i * KIX_QUERY_NREFS + k]
                           ? kix_buf_bytes(&objs.bytes[i * KIX_QUERY_NREFS + k])
                           : (struct kix_bytes){NULL, 0};
        kix_query_row_describe(man.bytes[i].ptr, man.bytes[i].len, views, &rows[i], gpu_full,
                               sizeof(gpu_full));
        if (workload && views[KIX_QUERY_WORKLOAD].ptr &&
            kix_buf_add(&workload[i], views[KIX_QUERY_WORKLOAD].ptr,
                        views[KIX_QUERY_WORKLOAD].len) != KIX_OK)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    fetched_release(&man, n);
    fetched_release(&objs, n * KIX_QUERY_NREFS);
    free(d);
    return rc;
}

/* Each selected group with a match, described by its best matching
 * member; the caller's workload_fn keeps it or not and names its shape. */
static int describe_groups(struct kix_client *c, const struct kix_verifier *key, struct pgroup *g,
                           size_t n, kix_query_workload_fn workload_fn, void *ctx,
                           struct kix_query_proof *proof, struct kix_err *err)
{
    struct kix_query_row *rows = calloc(n ? n : 1, sizeof(*rows));
    struct kix_buf *wl = calloc(n ? n : 1, sizeof(*wl));
    int rc = rows && wl ? KIX_OK : kix_err_set(err, KIX_ENOMEM, "out of memory");

    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        snprintf(rows[i].run_id, sizeof(rows[i].run_id), "%s", g[i].m[0].run_id);
        rows[i].group = g[i].key;
        rows[i].value = g[i].m[0].value;
    }
    if (rc == KIX_OK)
        rc = describe_runs(c, key, rows, n, NULL, 1, wl, proof, err);
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        g[i].desc = rows[i];
        g[i].keep = 1;
        g[i].words[0] = '\0';
        if (workload_fn)
            rc = workload_fn(ctx, wl[i].ptr, wl[i].len, &g[i].keep, g[i].words, sizeof(g[i].words));
    }
    for (size_t i = 0; wl && i < n; i++)
        kix_buf_release(&wl[i]);
    free(wl);
    free(rows);
    return rc;
}

void kix_query_page_release(struct kix_query_page *p)
{
    free(p->rows);
    free(p->words);
    memset(p, 0, sizeof(*p));
}

int kix_client_query_page(struct kix_client *c, const struct kix_verifier *key,
                          const struct kix_query *q, kix_query_workload_fn workload_fn, void *ctx,
                          struct kix_query_page *out, struct kix_query_proof *proof,
                          struct kix_err *err)
{
    struct kix__prover reader = {c, key, proof, &proof->selections};
    struct kix__selection sel;
    struct pgroup *g = NULL;
    size_t ng = 0, nkept = 0;
    int *known = NULL;
    uint64_t skip = q->offset, want;
    int rc;

    memset(out, 0, sizeof(*out));
    proof->size = 0;
    proof->groups = 0;
    proof->selections = 0;
    kix_buf_reset(&proof->checkpoint);
    if ((rc = kix__query_filters_check(q, err)))
        return rc;
    if ((rc = kix__selection_read(q, kix__read_proven, &reader, &sel, err)))
        return rc;
    if (!(g = calloc(sel.groups.n ? sel.groups.n : 1, sizeof(*g))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    /* every selected group's record: its matching members */
    for (size_t i = 0; rc == KIX_OK && i < sel.groups.n; i++) {
        struct collect col = {&sel, &g[ng], 0};
        struct kix_group_members gm;

        memcpy(g[ng].key.b, sel.groups.k[i], 32);
        rc = kix_client_group_members(c, key, &g[ng].key, 1, UINT64_MAX, collect_member, &col,
                                      proof, &gm, err);
        if (rc == KIX_OK && col.failed)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        if (rc != KIX_OK)
            break;
        proof->groups++;
        g[ng].count = gm.count;
        if (g[ng].n)
            ng++;
        else
            free(g[ng].m);
    }
    if (rc == KIX_OK)
        rc = describe_groups(c, key, g, ng, workload_fn, ctx, proof, err);
    if (rc == KIX_OK) {
        for (size_t i = 0; i < ng; i++) {
            if (!g[i].keep)
                continue;
            out->matched += g[i].n;
            if (nkept != i) {
                struct pgroup t = g[nkept];
                g[nkept] = g[i];
                g[i] = t;
            }
            nkept++;
        }
        if (nkept > 1)
            qsort(g, nkept, sizeof(*g), group_order);
        want = kix__page_size(out->matched, q->offset, q->limit);
        out->rows = calloc(want ? want : 1, sizeof(*out->rows));
        out->words = calloc(want ? want : 1, sizeof(*out->words));
        known = calloc(want ? want : 1, sizeof(*known));
        if (!out->rows || !out->words || !known)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        /* the page, cut from the client's own order */
        for (size_t i = 0; rc == KIX_OK && i < nkept && out->n < want; i++) {
            if (skip >= g[i].n) {
                skip -= g[i].n;
                continue;
            }
            for (size_t k = (size_t)skip; k < g[i].n && out->n < want; k++) {
                struct kix_query_row *r = &out->rows[out->n];
                snprintf(r->run_id, sizeof(r->run_id), "%s", g[i].m[k].run_id);
                r->group = g[i].key;
                r->rank = g[i].m[k].rank;
                r->group_size = g[i].count;
                r->value = g[i].m[k].value;
                if (k == 0) { /* the group's describing run: its record is proven */
                    r->manifest = g[i].desc.manifest;
                    r->evidence = g[i].desc.evidence;
                    known[out->n] = 1;
                }
                snprintf(out->words[out->n], sizeof(out->words[0]), "%s", g[i].words);
                out->n++;
            }
            skip = 0;
        }
    }
    if (rc == KIX_OK)
        rc = describe_runs(c, key, out->rows, out->n, known, 0, NULL, proof, err);
    free(known);
    for (size_t i = 0; g && i < sel.groups.n; i++)
        free(g[i].m);
    free(g);
    kix__selection_release(&sel);
    if (rc)
        kix_query_page_release(out);
    return rc;
}
