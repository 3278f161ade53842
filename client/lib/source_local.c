/* The local source (kix/source.h): a store directory read and written
 * through the store layers. A client's takes its own read snapshot for
 * every read, and a resolution keeps its snapshot open until released;
 * kixd's (kix_source_open_log) reads the snapshot it binds before each
 * request, so that kixd answers every read with this code; a snapshot
 * source (kix_source_open_snapshot: a server's pages) reads one snapshot
 * for all its ops, and borrows the log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/resolve.h"
#include "kix/source.h"
#include "kix/version.h"

struct local_source {
    struct kix_source base; /* first: the ops get &base */
    struct kix_log *log;
    int own_log;                  /* closed with the source (kix_source_open_store) */
    struct kix_log_reader *bound; /* the snapshot every op reads (kix_source_bind_reader, or a
                                     snapshot source's), or NULL: one per op */
    int owned;                    /* bound was begun by the source: ended at close */
    uint64_t resolve_max;         /* entries per resolution page, 0: all */
};

static struct local_source *local_of(struct kix_source *s)
{
    return (struct local_source *)s;
}

static struct kix_log *log_of(struct kix_source *s)
{
    return local_of(s)->log;
}

static int begin(struct kix_source *s, struct kix_log_reader **r, struct kix_err *err)
{
    int rc;

    if (local_of(s)->bound) {
        *r = local_of(s)->bound;
        return KIX_OK;
    }
    rc = kix_log_read_begin(log_of(s), r);
    if (rc)
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    return KIX_OK;
}

static void end(struct kix_source *s, struct kix_log_reader *r)
{
    if (r != local_of(s)->bound)
        kix_log_read_end(r);
}

/* Runs body with a read snapshot r of the store. */
#define WITH_READER(s, r, err, body)                                                               \
    do {                                                                                           \
        struct kix_log_reader *r = NULL;                                                           \
        int rc_ = begin((s), &r, (err));                                                           \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
        rc_ = (body);                                                                              \
        end((s), r);                                                                               \
        return rc_;                                                                                \
    } while (0)

static void local_close(struct kix_source *s)
{
    struct local_source *l = local_of(s);

    if (l->owned)
        kix_log_read_end(l->bound);
    if (l->own_log)
        kix_log_close(l->log);
    free(s);
}

static int info_of(struct kix_log_reader *r, struct kix_log *l, struct kix_client_info *out)
{
    struct kix_buf vkey = KIX_BUF_INIT;
    int rc = kix_verifier_format(kix_log_verifier(l), &vkey);
    if (rc)
        return rc;
    memset(out, 0, sizeof(*out));
    snprintf(out->origin, sizeof(out->origin), "%s", kix_log_origin(l));
    snprintf(out->log_key, sizeof(out->log_key), "%s", (const char *)vkey.ptr);
    snprintf(out->version, sizeof(out->version), "kix %s", KIX_VERSION_STRING);
    out->size = kix_log_reader_size(r);
    out->mirror = kix_log_is_replica(l);
    kix_buf_release(&vkey);
    return KIX_OK;
}

static int local_info(struct kix_source *s, struct kix_client_info *out, struct kix_err *err)
{
    WITH_READER(s, r, err, info_of(r, log_of(s), out));
}

/* The note at size, then the witness cosignatures of it. */
static int checkpoint_of(struct kix_log_reader *r, uint64_t size, struct kix_buf *note,
                         struct kix_err *err)
{
    struct kix_bytes b;
    int rc = kix_log_reader_checkpoint(r, size, &b);

    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, rc,
                           "no signed checkpoint at size %llu (the log has %llu entries; there is "
                           "one at each size the log was committed at)",
                           (unsigned long long)size, (unsigned long long)kix_log_reader_size(r));
    if (rc)
        return kix_err_set(err, rc, "reading the checkpoint: %s", kix_strerror(rc));
    return kix_log_reader_checkpoint_cosigned(r, size, note, err);
}

static int local_checkpoint(struct kix_source *s, uint64_t size, struct kix_buf *note,
                            struct kix_err *err)
{
    WITH_READER(s, r, err, checkpoint_of(r, size, note, err));
}

static int entries_of(struct kix_log_reader *r, uint64_t start, uint64_t count, kix_entry_fn fn,
                      void *ctx, uint64_t *got, struct kix_err *err)
{
    uint64_t size = kix_log_reader_size(r), n = 0;
    for (uint64_t i = start; i < size && i - start < count; i++) {
        struct kix_bytes leaf;
        int rc = kix_log_reader_entry(r, i, &leaf);
        if (rc)
            return kix_err_set(err, KIX_ECORRUPT, "entry %llu is missing from the store",
                               (unsigned long long)i);
        rc = fn(ctx, i, leaf.ptr, leaf.len);
        if (rc)
            return rc;
        n++;
    }
    if (got)
        *got = n;
    return KIX_OK;
}

static int local_entries(struct kix_source *s, uint64_t start, uint64_t count, kix_entry_fn fn,
                         void *ctx, uint64_t *got, struct kix_err *err)
{
    WITH_READER(s, r, err, entries_of(r, start, count, fn, ctx, got, err));
}

static int checkpoints_of(struct kix_log_reader *r, uint64_t after, size_t limit,
                          kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    int rc = kix_log_reader_checkpoints(r, after, limit, fn, ctx);
    if (rc < 0 && err && !err->msg[0])
        kix_err_set(err, rc, "reading checkpoints: %s", kix_strerror(rc));
    return rc;
}

static int local_checkpoints(struct kix_source *s, uint64_t after, size_t limit,
                             kix_checkpoint_fn fn, void *ctx, struct kix_err *err)
{
    WITH_READER(s, r, err, checkpoints_of(r, after, limit, fn, ctx, err));
}

static uint64_t latest(struct kix_log_reader *r, uint64_t size)
{
    return size == KIX_NO_INDEX ? kix_log_reader_size(r) : size;
}

static int local_inclusion(struct kix_source *s, uint64_t index, uint64_t size,
                           struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                           struct kix_err *err)
{
    WITH_READER(s, r, err, kix_log_reader_inclusion(r, index, latest(r, size), proof, n, err));
}

static int local_consistency(struct kix_source *s, uint64_t size1, uint64_t size2,
                             struct kix_hash proof[KIX_MERKLE_MAX_PROOF], size_t *n,
                             struct kix_err *err)
{
    WITH_READER(s, r, err, kix_log_reader_consistency(r, size1, latest(r, size2), proof, n, err));
}

/* Every proof of [from, to) from one snapshot, each with its leaf hash. */
static int proofs_of(struct kix_log_reader *r, uint64_t from, uint64_t to, uint64_t size,
                     kix_inclusion_fn fn, void *ctx, struct kix_err *err)
{
    int rc = KIX_OK;

    for (uint64_t i = from; rc == KIX_OK && i < to; i++) {
        struct kix_hash proof[KIX_MERKLE_MAX_PROOF], leaf;
        size_t n = 0;

        rc = kix_log_reader_inclusion(r, i, latest(r, size), proof, &n, err);
        if (rc == KIX_OK)
            rc = kix_log_reader_leaf_hash(r, i, &leaf, err);
        if (rc) {
            kix_err_wrap(err, "entry %llu", (unsigned long long)i);
            kix_err_cause(err, KIX_CAUSE_ENTRY, i, 0);
            break;
        }
        rc = fn(ctx, i, &leaf, proof, n);
    }
    return rc;
}

static int local_inclusion_proofs(struct kix_source *s, uint64_t from, uint64_t to, uint64_t size,
                                  kix_inclusion_fn fn, void *ctx, struct kix_err *err)
{
    WITH_READER(s, r, err, proofs_of(r, from, to, size, fn, ctx, err));
}

static int local_receipt(struct kix_source *s, uint64_t index, uint64_t size, struct kix_buf *out,
                         struct kix_err *err)
{
    WITH_READER(s, r, err, kix_log_reader_receipt(r, index, size, out, err));
}

static int object_of(struct kix_log_reader *r, const struct kix_digest *d, struct kix_buf *out,
                     struct kix_err *err)
{
    struct kix_bytes v;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_log_reader_object(r, d, &v);

    if (rc == KIX_ENOTFOUND) {
        kix_digest_format(d, text);
        return kix_err_set(err, rc, "object %s is not in this log", text);
    }
    if (rc) {
        kix_digest_format(d, text);
        return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
    }
    return kix_buf_add(out, v.ptr, v.len);
}

static int local_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                        struct kix_err *err)
{
    WITH_READER(s, r, err, object_of(r, d, out, err));
}

static int objects_of(struct kix_log_reader *r, const struct kix_digest *digests, size_t n,
                      kix_object_fn fn, void *ctx, struct kix_err *err)
{
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes v;
        int rc = kix_log_reader_object(r, &digests[i], &v);
        if (rc && rc != KIX_ENOTFOUND) {
            char text[KIX_DIGEST_TEXT_LEN + 1];
            kix_digest_format(&digests[i], text);
            return kix_err_set(err, rc, "reading object %s: %s", text, kix_strerror(rc));
        }
        rc = rc ? fn(ctx, i, NULL, 0) : fn(ctx, i, v.ptr, v.len);
        if (rc)
            return rc;
    }
    return KIX_OK;
}

static int local_objects(struct kix_source *s, const struct kix_digest *digests, size_t n,
                         kix_object_fn fn, void *ctx, struct kix_err *err)
{
    WITH_READER(s, r, err, objects_of(r, digests, n, fn, ctx, err));
}

static int local_submit(struct kix_source *s, const struct kix_bundle *bundles, size_t n,
                        struct kix_submit_result *results, struct kix_err *err)
{
    struct kix_log *log = log_of(s);
    struct kix_prepared **items = calloc(n ? n : 1, sizeof(*items));
    struct kix_append_result *res = calloc(n ? n : 1, sizeof(*res));
    size_t *slot = calloc(n ? n : 1, sizeof(*slot)), nitems = 0;
    int rc = KIX_OK;

    if (!items || !res || !slot) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        struct kix_submission sub = {bundles[i].envelope, bundles[i].objects, bundles[i].nobjects};
        struct kix_err item_err = {0};
        memset(&results[i], 0, sizeof(results[i]));
        results[i].code = kix_log_prepare(log, &sub, &items[nitems], &item_err);
        if (results[i].code) {
            snprintf(results[i].message, sizeof(results[i].message), "%s", item_err.msg);
            continue;
        }
        slot[nitems++] = i;
    }
    if (nitems)
        rc = kix_log_commit(log, items, nitems, res, NULL, err);
    if (rc)
        goto out;
    for (size_t k = 0; k < nitems; k++) {
        struct kix_submit_result *r = &results[slot[k]];
        r->code = res[k].code;
        r->index = res[k].index;
        r->duplicate = res[k].duplicate;
        snprintf(r->message, sizeof(r->message), "%s", res[k].message);
        if (r->code == KIX_OK) {
            struct kix_err rerr = {0};
            r->code = local_receipt(s, r->index, KIX_NO_INDEX, &r->receipt, &rerr);
            if (r->code)
                snprintf(r->message, sizeof(r->message), "%s", rerr.msg);
        }
    }
out:
    for (size_t k = 0; items && k < nitems; k++)
        kix_prepared_free(items[k]);
    free(items);
    free(res);
    free(slot);
    return rc;
}

static int query_of(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn, void *ctx,
                    uint64_t *matched, struct kix_err *err)
{
    int rc = kix_index_query(r, q, fn, ctx, matched);
    if (rc < 0 && err && !err->msg[0])
        kix_err_set(err, rc, "querying: %s", kix_strerror(rc));
    return rc;
}

static int local_query(struct kix_source *s, const struct kix_query *q, kix_query_fn fn, void *ctx,
                       uint64_t *matched, struct kix_err *err)
{
    WITH_READER(s, r, err, query_of(r, q, fn, ctx, matched, err));
}

/* A local resolution borrows from a read snapshot kept open until release,
 * and owns what the index made for it. */
struct local_backing {
    struct kix_log_reader *r; /* NULL: the snapshot source's, not ours to end */
    void *inner;
    void (*inner_free)(void *);
};

static void end_reader(void *p)
{
    struct local_backing *b = p;
    if (!b)
        return;
    if (b->inner_free)
        b->inner_free(b->inner);
    if (b->r) /* NULL: the caller's bound snapshot */
        kix_log_read_end(b->r);
    free(b);
}

static int local_resolve(struct kix_source *s, const char *ref, uint64_t from,
                         struct kix_resolution *out, struct kix_err *err)
{
    struct local_backing *b;
    int rc;

    kix_resolution_init(out);
    b = calloc(1, sizeof(*b));
    if (!b)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    rc = begin(s, &b->r, err);
    if (rc) {
        free(b);
        return rc;
    }
    rc = kix_index_resolve_from(b->r, ref, strlen(ref), from, local_of(s)->resolve_max, out, err);
    if (b->r == local_of(s)->bound)
        b->r = NULL;
    if (rc) {
        if (b->r)
            kix_log_read_end(b->r);
        free(b);
        return rc;
    }
    b->inner = out->backing;
    b->inner_free = out->backing_free;
    out->backing = b;
    out->backing_free = end_reader;
    return KIX_OK;
}

static int index_proof_of(struct kix_log_reader *r, const char *ikey, struct kix_index_answer *a,
                          struct kix_err *err)
{
    struct kix_bytes b;
    int rc;

    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &b) != KIX_OK)
        return kix_err_set(err, KIX_ENOTFOUND, "the log has no checkpoint yet");
    /* with the cosignatures the store holds, as source_rpc's kixd sends it */
    rc = kix_log_reader_checkpoint_cosigned(r, kix_log_reader_size(r), &a->checkpoint, err);
    if (rc)
        return rc;
    if (kix_log_reader_index_note(r, KIX_NO_INDEX, &b) != KIX_OK ||
        kix_log_reader_index_note_cosigned(r, KIX_NO_INDEX, &a->index_note, err) != KIX_OK)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "this store keeps no verifiable index (a plain log, or one of an "
                           "older index format opened read-only: open it once with kixd to "
                           "rebuild it)");
    return kix_index_prove(r, ikey, strlen(ikey), &a->record, &a->proof, &a->present, err);
}

static int local_index_proof(struct kix_source *s, const char *ikey, struct kix_index_answer *a,
                             struct kix_err *err)
{
    WITH_READER(s, r, err, index_proof_of(r, ikey, a, err));
}

static int state_of(struct kix_log_reader *r, uint64_t *size, struct kix_buf *checkpoint,
                    struct kix_buf *index_note, struct kix_err *err)
{
    struct kix_bytes b;
    int rc = KIX_OK;

    *size = kix_log_reader_size(r);
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &b) == KIX_OK)
        rc = kix_buf_add(checkpoint, b.ptr, b.len);
    if (rc == KIX_OK && kix_log_reader_index_note(r, KIX_NO_INDEX, &b) == KIX_OK)
        rc = kix_buf_add(index_note, b.ptr, b.len);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

static int local_state(struct kix_source *s, uint64_t *size, struct kix_buf *checkpoint,
                       struct kix_buf *index_note, struct kix_err *err)
{
    WITH_READER(s, r, err, state_of(r, size, checkpoint, index_note, err));
}

static int run_of(struct kix_log_reader *r, const char *ref, size_t len, struct kix_run_info *out,
                  struct kix_err *err)
{
    int rc = kix_index_run(r, ref, len, out);
    return rc ? kix_err_set(err, rc, "no run %.*s in this log", (int)(len > 200 ? 200 : len), ref)
              : KIX_OK;
}

static int local_run(struct kix_source *s, const char *ref, size_t len, struct kix_run_info *out,
                     struct kix_err *err)
{
    WITH_READER(s, r, err, run_of(r, ref, len, out, err));
}

static int local_group(struct kix_source *s, const struct kix_digest *key, uint64_t offset,
                       uint64_t limit, kix_group_fn fn, void *ctx, uint64_t *size,
                       struct kix_err *err)
{
    WITH_READER(s, r, err, kix_index_group(r, key, offset, limit, fn, ctx, size));
}

static int local_groups(struct kix_source *s, kix_groups_fn fn, void *ctx, struct kix_err *err)
{
    WITH_READER(s, r, err, kix_index_groups(r, fn, ctx));
}

static int local_index_record(struct kix_source *s, const char *key, struct kix_buf *record,
                              struct kix_buf *proof, int *present, struct kix_err *err)
{
    WITH_READER(s, r, err, kix_index_prove(r, key, strlen(key), record, proof, present, err));
}

static int local_log_key(struct kix_source *s, struct kix_buf *out, struct kix_err *err)
{
    int rc = kix_verifier_format(kix_log_verifier(log_of(s)), out);
    return rc ? kix_err_set(err, rc, "out of memory") : KIX_OK;
}

/* What every local source reads, store or snapshot. */
#define LOCAL_READS                                                                                \
    .close = local_close, .info = local_info, .checkpoint = local_checkpoint,                      \
    .entries = local_entries, .inclusion = local_inclusion, .consistency = local_consistency,      \
    .inclusion_proofs = local_inclusion_proofs, .checkpoints = local_checkpoints,                  \
    .receipt = local_receipt, .objects = local_objects, .object = local_object,                    \
    .index_proof = local_index_proof, .resolve = local_resolve, .query = local_query,              \
    .state = local_state, .run = local_run, .group = local_group, .groups = local_groups,          \
    .index_record = local_index_record

static const struct kix_source_ops local_ops = {
    LOCAL_READS, .submit = local_submit,
    /* add_cosignature: witness keys are a kixd's configuration, not a store's */
};

/* A snapshot source writes nothing: its pages show one state of the log. */
static const struct kix_source_ops snapshot_ops = {
    LOCAL_READS,
    .log_key = local_log_key,
};

int kix_source_open_snapshot(struct kix_log *l, struct kix_log_reader *r, struct kix_source **out,
                             struct kix_err *err)
{
    struct local_source *s = calloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    s->log = l;
    s->bound = r;
    if (!r) {
        rc = kix_log_read_begin(l, &s->bound);
        if (rc) {
            free(s);
            return kix_err_set(err, rc, "cannot read the log: %s", kix_strerror(rc));
        }
        s->owned = 1;
    }
    s->base.ops = &snapshot_ops;
    snprintf(s->base.where, sizeof(s->base.where), "the store of %s", kix_log_origin(l));
    *out = &s->base;
    return KIX_OK;
}

int kix_source_open_store(const char *dir, struct kix_source **out, struct kix_err *err)
{
    struct local_source *s = calloc(1, sizeof(*s));
    struct kix_log_opts opts;
    int rc;

    *out = NULL;
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    memset(&opts, 0, sizeof(opts));
    /* a store without a log key is a replica (mirror), readable as is */
    rc = kix_index_open_any(dir, &opts, &s->log, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->own_log = 1;
    s->base.ops = &local_ops;
    snprintf(s->base.where, sizeof(s->base.where), "store %s", dir);
    *out = &s->base;
    return KIX_OK;
}

int kix_source_open_log(struct kix_log *log, uint64_t resolve_max, struct kix_source **out,
                        struct kix_err *err)
{
    struct local_source *s = calloc(1, sizeof(*s));

    *out = NULL;
    if (!s)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    s->log = log;
    s->resolve_max = resolve_max;
    s->base.ops = &local_ops;
    snprintf(s->base.where, sizeof(s->base.where), "log %s", kix_log_origin(log));
    *out = &s->base;
    return KIX_OK;
}

void kix_source_bind_reader(struct kix_source *s, struct kix_log_reader *r)
{
    if (s && s->ops == &local_ops)
        local_of(s)->bound = r;
}
