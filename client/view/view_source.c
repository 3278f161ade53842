/* The view's one way to storage: the ops of a struct kix_source
 * (kix/source.h). A server's pages read its store as a source
 * (kix_source_open_snapshot), a client's views read a verified resolution
 * it got through one; no view reads the log or the index itself
 * (tools/check-layers.py). An op a source does not offer is KIX_ENOTSUP,
 * naming the source. */
#include <stdio.h>
#include <string.h>

#include "kix/note.h"
#include "kix/source.h"
#include "kix/view.h"
#include "view_internal.h"

static int unsupported(struct kix_source *s, const char *what, struct kix_err *err)
{
    return kix_err_set(err, KIX_ENOTSUP,
                       "%.200s does not offer %s (the pages of a log are built "
                       "from its own store)",
                       s->where, what);
}

int kix__src_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                    struct kix_err *err)
{
    kix_buf_reset(out);
    if (!s->ops->object)
        return unsupported(s, "objects", err);
    return s->ops->object(s, d, out, err);
}

int kix__src_run(struct kix_source *s, const char *ref, size_t len, struct kix_run_info *out,
                 struct kix_err *err)
{
    if (!s->ops->run)
        return unsupported(s, "runs' index records", err);
    return s->ops->run(s, ref, len, out, err);
}

int kix__src_manifest(struct kix_source *s, const char *run_id, struct kix_run_info *info,
                      struct kix_buf *out)
{
    int rc = kix__src_run(s, run_id, strlen(run_id), info, NULL);
    return rc ? rc : kix__src_object(s, &info->manifest, out, NULL);
}

int kix__src_group(struct kix_source *s, const struct kix_digest *key, uint64_t offset,
                   uint64_t limit, kix_group_fn fn, void *ctx, uint64_t *size, struct kix_err *err)
{
    if (!s->ops->group)
        return unsupported(s, "groups' ranks", err);
    return s->ops->group(s, key, offset, limit, fn, ctx, size, err);
}

int kix__src_groups(struct kix_source *s, kix_groups_fn fn, void *ctx, struct kix_err *err)
{
    if (!s->ops->groups)
        return unsupported(s, "a list of groups", err);
    return s->ops->groups(s, fn, ctx, err);
}

int kix__src_prove(struct kix_source *s, const char *key, struct kix_buf *record,
                   struct kix_buf *proof, int *present, struct kix_err *err)
{
    if (!s->ops->index_record)
        return unsupported(s, "index records", err);
    return s->ops->index_record(s, key, record, proof, present, err);
}

int kix__src_state(struct kix_source *s, uint64_t *size, struct kix_buf *checkpoint,
                   struct kix_buf *index_note, struct kix_err *err)
{
    if (!s->ops->state)
        return unsupported(s, "its state as signed", err);
    return s->ops->state(s, size, checkpoint, index_note, err);
}

int kix__src_log_key(struct kix_source *s, struct kix_buf *out, struct kix_err *err)
{
    struct kix_client_info info;
    int rc;

    if (s->ops->log_key)
        return s->ops->log_key(s, out, err);
    rc = s->ops->info(s, &info, err);
    if (rc == KIX_OK && (rc = kix_buf_add(out, info.log_key, strlen(info.log_key))) != KIX_OK)
        rc = kix_err_set(err, rc, "out of memory");
    return rc;
}

/* The last key parsed on this thread, by its text: kixd renders pages on
 * a pool of threads, each page asks for the one log key, and a parse
 * checks an Ed25519 point (tens of microseconds a page otherwise). */
static _Thread_local struct {
    char text[KIX_VIEW_ORIGIN_MAX + 128];
    size_t len;
    struct kix_verifier key;
} last_key;

int kix__src_verifier(struct kix_source *s, struct kix_verifier *out, struct kix_err *err)
{
    struct kix_buf text = KIX_BUF_INIT;
    int rc = kix__src_log_key(s, &text, err);

    if (rc == KIX_OK && last_key.len && text.len == last_key.len &&
        memcmp(text.ptr, last_key.text, text.len) == 0) {
        *out = last_key.key;
    } else if (rc == KIX_OK) {
        if (kix_verifier_parse((const char *)text.ptr, text.len, out, err) != KIX_OK)
            rc = kix_err_set(err, KIX_ECORRUPT, "the store's log key does not parse");
        else if (text.len < sizeof(last_key.text)) {
            memcpy(last_key.text, text.ptr, text.len);
            last_key.len = text.len;
            last_key.key = *out;
        }
    }
    kix_buf_release(&text);
    return rc;
}

int kix__src_resolve(struct kix_source *s, const char *ref, size_t len, struct kix_resolution *out,
                     struct kix_err *err)
{
    char text[KIX_RUN_ID_MAX + KIX_DIGEST_TEXT_LEN + 1];

    if (!s->ops->resolve)
        return unsupported(s, "resolutions", err);
    if (len >= sizeof(text))
        return kix_err_set(err, KIX_EINVAL, "a run id of %zu bytes is too long", len);
    memcpy(text, ref, len);
    text[len] = '\0';
    return s->ops->resolve(s, text, 0, out, err);
}

/* ---- the log's state and what changed, for the pages (kix/view.h) ---------------------- */

int kix_view_log_state(struct kix_source *src, uint64_t *size, struct kix_buf *checkpoint,
                       struct kix_err *err)
{
    struct kix_buf note = KIX_BUF_INIT;
    int rc = kix__src_state(src, size, checkpoint, &note, err);

    kix_buf_release(&note);
    return rc;
}

int kix_view_log_key(struct kix_source *src, struct kix_buf *out, struct kix_err *err)
{
    return kix__src_log_key(src, out, err);
}

int kix_view_entries(struct kix_source *src, uint64_t start, uint64_t count, kix_entry_fn fn,
                     void *ctx, struct kix_err *err)
{
    return src->ops->entries(src, start, count, fn, ctx, NULL, err);
}

int kix_view_run(struct kix_source *src, const char *run_id, struct kix_run_info *out)
{
    return kix__src_run(src, run_id, strlen(run_id), out, NULL);
}

int kix_view_group_runs(struct kix_source *src, const struct kix_digest *key, uint64_t offset,
                        uint64_t limit, kix_group_fn fn, void *ctx, uint64_t *size)
{
    return kix__src_group(src, key, offset, limit, fn, ctx, size, NULL);
}
