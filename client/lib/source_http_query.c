/* The HTTP source's queries (kix/source.h's query): the answer kixd
 * computes (kix_index_query), computed here from the copy's index records
 * at its checkpoint (source_http_index.c) and its objects: the selection
 * records for what the filters select (query_selection.c), each selected
 * group's directory and pages for its members (group_page_verify.c's reader),
 * and each run's record, manifest and the objects it names for the
 * groups' order and the page's rows (kix_query_row_describe, the code
 * kixd runs). Unverified, like everything a source answers:
 * kix_client_query_verify, then kix_client_query_complete or
 * kix_client_group_page_verify prove it against the signed index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/vindex.h"
#include "query_internal.h"
#include "source_http_internal.h"

/* kix__record_fn: a record under the index note read first (one root for
 * the whole answer). */
static int read_record(void *ctx, const char *ikey, int *present, struct kix_buf *record,
                       struct kix_err *err)
{
    struct http_source *h = ctx;
    struct kix_index_answer a;
    int rc;

    memset(&a, 0, sizeof(a));
    rc = http_index_prove(h, ikey, &a, err);
    *present = a.present;
    if (rc == KIX_OK && a.present && kix_buf_add(record, a.record.ptr, a.record.len) != KIX_OK)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    kix_index_answer_release(&a);
    return rc;
}

struct walk {
    const struct kix__selection *sel;
    const uint8_t *group;
    struct kix_query_row *rows;
    size_t nrows, cap;
};

static int member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct walk *w = ctx;
    struct kix_query_row *row;

    if (!kix__selection_has_run(w->sel, w->group, run_id))
        return 0;
    row = kix_array_grow(w->rows, &w->cap, w->nrows, 64, sizeof(*row));
    if (!row)
        return KIX_ENOMEM;
    w->rows = row;
    row = &w->rows[w->nrows++];
    memset(row, 0, sizeof(*row));
    snprintf(row->run_id, sizeof(row->run_id), "%s", run_id);
    memcpy(row->group.b, w->group, 32);
    row->rank = rank;
    row->value = value;
    return 0;
}

/* A row made whole: its run's record, its manifest and the objects it
 * names (each missing one leaves its words empty, as kixd's would). */
static int complete_row(struct http_source *h, struct kix_query_row *row, struct kix_err *err)
{
    static const struct kix_digest none;
    char ikey[KIX_VINDEX_KEY_MAX + 1], gpu_full[160];
    struct kix_buf record = KIX_BUF_INIT, manifest = KIX_BUF_INIT, obj[KIX_QUERY_NREFS];
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_bytes objs[KIX_QUERY_NREFS];
    struct kix_vindex_run run;
    int present = 0, rc;

    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        kix_buf_init(&obj[i]);
    kix_vindex_key_run(row->run_id, strlen(row->run_id), ikey);
    rc = read_record(h, ikey, &present, &record, err);
    if (rc == KIX_OK && !present)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "%s ranks run %s, which its index does not hold: a false copy",
                         h->base.where, row->run_id);
    if (rc == KIX_OK)
        rc = kix_vindex_run_decode(record.ptr, record.len, row->run_id, &run, err);
    if (rc == KIX_OK)
        rc = h->base.ops->object(&h->base, &run.info.manifest, &manifest, err);
    if (rc == KIX_OK) {
        kix_query_row_refs(manifest.ptr, manifest.len, refs);
        for (int i = 0; rc == KIX_OK && i < KIX_QUERY_NREFS; i++) {
            objs[i] = (struct kix_bytes){NULL, 0};
            if (memcmp(&refs[i], &none, sizeof(none)) == 0)
                continue;
            rc = h->base.ops->object(&h->base, &refs[i], &obj[i], err);
            if (rc == KIX_ENOTFOUND)
                rc = KIX_OK;
            else if (rc == KIX_OK)
                objs[i] =
                    (struct kix_bytes){obj[i].ptr ? obj[i].ptr : (const uint8_t *)"", obj[i].len};
        }
    }
    if (rc == KIX_OK) {
        kix_query_row_describe(manifest.ptr, manifest.len, objs, row, gpu_full, sizeof(gpu_full));
        row->manifest = run.info.manifest;
        row->evidence = run.info.evidence;
    }
    kix_buf_release(&record);
    kix_buf_release(&manifest);
    for (int i = 0; i < KIX_QUERY_NREFS; i++)
        kix_buf_release(&obj[i]);
    return rc;
}

/* Each selected group's matching members, the group's words (what the
 * order reads) from its first, copied to the rest. */
static int walk_groups(struct http_source *h, struct walk *w, struct kix_err *err)
{
    int rc = KIX_OK;

    for (size_t g = 0; rc == KIX_OK && g < w->sel->groups.n; g++) {
        struct kix_group_members got;
        struct kix_digest key;
        size_t first = w->nrows;

        memcpy(key.b, w->sel->groups.k[g], 32);
        w->group = w->sel->groups.k[g];
        rc = kix__group_read(read_record, h, &key, 1, UINT64_MAX, member, w, &got, err);
        if (rc == KIX_ENOMEM)
            rc = kix_err_set(err, rc, "out of memory");
        if (rc == KIX_OK && w->nrows > first)
            rc = complete_row(h, &w->rows[first], err);
        for (size_t i = first; rc == KIX_OK && i < w->nrows; i++) {
            struct kix_query_row *row = &w->rows[i];
            if (i > first) {
                memcpy(row->kernel, w->rows[first].kernel, sizeof(row->kernel));
                memcpy(row->gpu, w->rows[first].gpu, sizeof(row->gpu));
                memcpy(row->mode, w->rows[first].mode, sizeof(row->mode));
                memcpy(row->metric, w->rows[first].metric, sizeof(row->metric));
            }
            row->group_size = got.count;
        }
    }
    return rc;
}

int http_query(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
               uint64_t *matched, struct kix_err *err)
{
    struct http_source *h = http_of(s);
    struct kix_buf note = KIX_BUF_INIT;
    struct kix__selection sel;
    struct walk w;
    int filtered = q->kernel || q->gpu || q->provider || q->mode || q->metric || q->dtype;
    int rc = http_latest(h, 1, err);

    memset(&sel, 0, sizeof(sel));
    memset(&w, 0, sizeof(w));
    if (rc == KIX_OK)
        rc = http_index_note(h, &note, err);
    kix_buf_release(&note);
    if (rc == KIX_OK && q->group && !filtered) /* one group, as kixd reads it */
        rc = kix_sel_keys_add(&sel.groups, q->group->b) == KIX_OK
                 ? KIX_OK
                 : kix_err_set(err, KIX_ENOMEM, "out of memory");
    else if (rc == KIX_OK)
        rc = kix__selection_read(q, read_record, h, &sel, err);
    w.sel = &sel;
    if (rc == KIX_OK)
        rc = walk_groups(h, &w, err);
    if (rc == KIX_OK && w.nrows > 1)
        qsort(w.rows, w.nrows, sizeof(*w.rows), kix_query_row_order);
    for (uint64_t i = q->offset; rc == KIX_OK && i < w.nrows && i - q->offset < q->limit; i++) {
        rc = complete_row(h, &w.rows[i], err);
        if (rc == KIX_OK && fn(ctx, &w.rows[i]))
            break;
    }
    if (rc == KIX_OK && matched)
        *matched = w.nrows;
    kix__selection_release(&sel);
    free(w.rows);
    return rc;
}
