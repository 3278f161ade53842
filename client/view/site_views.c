/* The group and home views (kix/view.h), from the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/note.h"
#include "kix/view.h"

static int add_row(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct kix_group_view *v = ctx;
    struct kix_group_row *row;

    if (v->nrows == KIX_VIEW_GROUP_MAX)
        return KIX_OK;
    if (!v->rows && !(v->rows = calloc(KIX_VIEW_GROUP_MAX, sizeof(*v->rows))))
        return KIX_ENOMEM;
    row = &v->rows[v->nrows++];
    row->rank = rank;
    row->value = value;
    snprintf(row->run_id, sizeof(row->run_id), "%s", run_id);
    return KIX_OK;
}

static char *hex_of(const struct kix_buf *b)
{
    char *h = malloc(2 * b->len + 1);

    if (h)
        kix_hex_encode(b->ptr, b->len, h);
    return h;
}

/* The members' unit: the best run's primary statistic. */
static void group_unit(struct kix_log_reader *r, struct kix_group_view *v)
{
    struct kix_run_info info;
    struct kix_bytes b;
    struct kix_figures f;
    json_t *doc;

    if (!v->nrows ||
        kix_index_run(r, v->rows[0].run_id, strlen(v->rows[0].run_id), &info) != KIX_OK ||
        kix_log_reader_object(r, &info.manifest, &b) != KIX_OK)
        return;
    doc = json_loadb((const char *)b.ptr, b.len, 0, NULL);
    kix_figures_of(doc, &f);
    v->bytes = f.bytes;
    json_decref(doc);
}

/* The signed index's proof of the group record, when the store has one. */
static int group_proof(struct kix_log_reader *r, struct kix_group_view *v)
{
    struct kix_buf record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_bytes note;
    int present = 0, rc = KIX_OK;

    kix_vindex_key_group(&v->key, v->group_key);
    if (kix_log_reader_index_note(r, KIX_NO_INDEX, &note) != KIX_OK ||
        kix_index_prove(r, v->group_key, strlen(v->group_key), &record, &proof, &present, NULL) !=
            KIX_OK ||
        !present)
        goto out; /* no signed index here: the document has no "index" */
    rc = kix_buf_add(&v->index_note, note.ptr, note.len);
    if (rc == KIX_OK &&
        (!(v->group_record = hex_of(&record)) || !(v->group_proof = hex_of(&proof))))
        rc = KIX_ENOMEM;
out:
    kix_buf_release(&record);
    kix_buf_release(&proof);
    return rc;
}

int kix_group_view_from_store(struct kix_log_reader *r, const char *key, size_t len,
                              struct kix_group_view *v, struct kix_err *err)
{
    struct kix_bytes cp = {NULL, 0};
    int rc;

    memset(v, 0, sizeof(*v));
    kix_buf_init(&v->checkpoint);
    kix_buf_init(&v->log_key);
    kix_buf_init(&v->index_note);
    if (kix_digest_parse(key, len, &v->key, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "not a group key");
    kix_digest_format(&v->key, v->group);
    rc = kix_index_group(r, &v->key, 0, KIX_VIEW_GROUP_MAX, add_row, v, &v->size);
    if (rc == KIX_OK && v->size == 0)
        return kix_err_set(err, KIX_ENOTFOUND, "no such group");
    if (rc == KIX_OK && kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) == KIX_OK) {
        const uint8_t *nl = memchr(cp.ptr, '\n', cp.len);
        size_t n = nl ? (size_t)(nl - cp.ptr) : 0;
        snprintf(v->origin, sizeof(v->origin), "%.*s", (int)n, (const char *)cp.ptr);
        rc = kix_buf_add(&v->checkpoint, cp.ptr, cp.len);
    }
    v->tree_size = kix_log_reader_size(r);
    if (rc == KIX_OK)
        rc = kix_verifier_format(kix_log_reader_verifier(r), &v->log_key);
    if (rc == KIX_OK)
        rc = group_proof(r, v);
    group_unit(r, v);
    return rc ? kix_err_set(err, rc, "the group %s: %s", v->group, kix_strerror(rc)) : KIX_OK;
}

void kix_group_view_release(struct kix_group_view *v)
{
    kix_buf_release(&v->checkpoint);
    kix_buf_release(&v->log_key);
    kix_buf_release(&v->index_note);
    free(v->group_record);
    free(v->group_proof);
    free(v->rows);
    memset(v, 0, sizeof(*v));
}

static int set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

int kix_group_view_json(const struct kix_group_view *v, unsigned flags, struct kix_buf *out,
                        struct kix_err *err)
{
    json_t *o = json_object(), *rows = json_array();
    char *text = NULL;
    int bad = !o || !rows, rc;

    bad |= set(o, "view", json_string(KIX_VIEW_GROUP));
    bad |= set(o, "group", json_string(v->group));
    bad |= set(o, "origin", json_string(v->origin));
    bad |= set(o, "treeSize", json_integer((json_int_t)v->tree_size));
    bad |= set(o, "checkpoint", json_stringn((const char *)v->checkpoint.ptr, v->checkpoint.len));
    if (v->log_key.len)
        bad |= set(o, "logKey", json_stringn((const char *)v->log_key.ptr, v->log_key.len));
    bad |= set(o, "size", json_integer((json_int_t)v->size));
    for (size_t i = 0; rows && i < v->nrows; i++) {
        json_t *x = json_pack("{s:I,s:s,s:I,s:s}", "rank", (json_int_t)v->rows[i].rank, "runId",
                              v->rows[i].run_id, "value", (json_int_t)v->rows[i].value, "unit",
                              v->bytes ? "bytes" : "ns");
        bad |= !x || json_array_append_new(rows, x) != 0;
    }
    bad |= set(o, "rows", rows);
    if (v->group_record)
        bad |=
            set(o, "index",
                json_pack("{s:s%,s:s%,s:s,s:s,s:s}", "checkpoint", (const char *)v->checkpoint.ptr,
                          v->checkpoint.len, "indexNote", (const char *)v->index_note.ptr,
                          v->index_note.len, "groupKey", v->group_key, "groupRecord",
                          v->group_record, "groupProof", v->group_proof));
    text = bad ? NULL
               : json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS |
                                   (flags & KIX_VIEW_JSON_HTML ? JSON_ESCAPE_SLASH : 0));
    rc = text ? kix_buf_adds(out, text) : KIX_ENOMEM;
    free(text);
    json_decref(o);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* ---- home ----------------------------------------------------------------------------- */

#define HOME_MAX 20000 /* ranked runs read for the home page */

static int home_row(void *ctx, const struct kix_query_row *q)
{
    struct kix_home_view *v = ctx;
    struct kix_home_row *row;
    char key[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(&q->group, key);
    if (v->nrows && strcmp(v->rows[v->nrows - 1].group, key) == 0)
        return KIX_OK; /* one line per group: its best run */
    if (v->nrows % 64 == 0) {
        void *p = realloc(v->rows, (v->nrows + 64) * sizeof(*v->rows));
        if (!p)
            return KIX_ENOMEM;
        v->rows = p;
    }
    row = &v->rows[v->nrows++];
    memset(row, 0, sizeof(*row));
    snprintf(row->kernel, sizeof(row->kernel), "%s", q->kernel);
    snprintf(row->gpu, sizeof(row->gpu), "%s", q->gpu);
    snprintf(row->provider, sizeof(row->provider), "%s", q->provider);
    snprintf(row->group, sizeof(row->group), "%s", key);
    snprintf(row->best, sizeof(row->best), "%s", q->run_id);
    row->group_size = q->group_size;
    return KIX_OK;
}

int kix_home_view_from_store(struct kix_log_reader *r, struct kix_home_view *v, struct kix_err *err)
{
    struct kix_query q;
    struct kix_bytes cp;
    int rc;

    memset(v, 0, sizeof(*v));
    memset(&q, 0, sizeof(q));
    q.limit = HOME_MAX;
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) == KIX_OK) {
        const uint8_t *nl = memchr(cp.ptr, '\n', cp.len);
        size_t n = nl ? (size_t)(nl - cp.ptr) : 0;
        snprintf(v->origin, sizeof(v->origin), "%.*s", (int)n, (const char *)cp.ptr);
    }
    v->tree_size = kix_log_reader_size(r);
    rc = kix_index_query(r, &q, home_row, v, &v->ranked_runs);
    return rc ? kix_err_set(err, rc, "the home page: %s", kix_strerror(rc)) : KIX_OK;
}

void kix_home_view_release(struct kix_home_view *v)
{
    free(v->rows);
    memset(v, 0, sizeof(*v));
}
