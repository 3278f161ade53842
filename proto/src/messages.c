/* The messages of every method (kix/messages.h): one encoder and one
 * decoder per message, written with the generic writer and accessors of
 * kix/proto.h. The field names of PROTOCOL.md section 2 appear here only. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kix/messages.h"

/* ---- reading helpers ---------------------------------------------------------- */

/* A required field that is absent is EINVAL ("missing field" is set). */
static int required(int rc, struct kix_err *err)
{
    if (rc == KIX_ENOTFOUND) {
        if (err)
            err->code = KIX_EINVAL;
        return KIX_EINVAL;
    }
    return rc;
}

/* A result decoder's shape errors become EPROTO: the peer misbehaved. */
static int answer(int rc, struct kix_err *err)
{
    if (rc == KIX_OK || rc == KIX_ENOMEM)
        return rc;
    if (err)
        err->code = KIX_EPROTO;
    return KIX_EPROTO;
}

static int get_u64(const struct kix_proto_map *m, const char *name, uint64_t *out,
                   struct kix_err *err)
{
    return required(kix_proto_map_get_u64(m, name, out, err), err);
}

static int opt_u64(const struct kix_proto_map *m, const char *name, uint64_t *out,
                   struct kix_err *err)
{
    int rc = kix_proto_map_get_u64(m, name, out, err);
    if (rc == KIX_ENOTFOUND) {
        *out = KIX_MSG_ABSENT;
        return KIX_OK;
    }
    if (rc == KIX_OK && *out == KIX_MSG_ABSENT) /* never read as "not given" (latest, all) */
        return kix_err_set(err, KIX_EINVAL,
                           "field \"%s\": 18446744073709551615 (2^64-1) is out of range; leave "
                           "the field out instead",
                           name);
    return rc;
}

static int get_str(const struct kix_proto_map *m, const char *name, struct kix_bytes *out,
                   struct kix_err *err)
{
    return required(kix_proto_map_get_str(m, name, out, err), err);
}

static int opt_str(const struct kix_proto_map *m, const char *name, struct kix_bytes *out,
                   struct kix_err *err)
{
    int rc = kix_proto_map_get_str(m, name, out, err);
    if (rc == KIX_ENOTFOUND) {
        out->ptr = NULL;
        out->len = 0;
        return KIX_OK;
    }
    return rc;
}

static int get_bin(const struct kix_proto_map *m, const char *name, struct kix_bytes *out,
                   struct kix_err *err)
{
    return required(kix_proto_map_get_bin(m, name, out, err), err);
}

static int opt_bin(const struct kix_proto_map *m, const char *name, struct kix_bytes *out,
                   struct kix_err *err)
{
    int rc = kix_proto_map_get_bin(m, name, out, err);
    if (rc == KIX_ENOTFOUND) {
        out->ptr = NULL;
        out->len = 0;
        return KIX_OK;
    }
    return rc;
}

static int get_bool(const struct kix_proto_map *m, const char *name, bool *out, struct kix_err *err)
{
    return required(kix_proto_map_get_bool(m, name, out, err), err);
}

/* An array field of at most max elements; over is `over` (ELIMIT for a
 * server's limit, EINVAL otherwise). */
static int get_array(const struct kix_proto_map *m, const char *name, size_t max, int over,
                     const struct kix_proto_array **a, size_t *n, struct kix_err *err)
{
    int rc = required(kix_proto_map_get_array(m, name, a, n, err), err);
    if (rc)
        return rc;
    if (*n > max)
        return kix_err_set(err, over, "field \"%s\": %zu elements, over the limit of %zu", name, *n,
                           max);
    return KIX_OK;
}

static int value_hash(const struct kix_proto_value *v, uint8_t out[32], struct kix_err *err)
{
    struct kix_bytes b;
    int rc = kix_proto_value_bin(v, &b, err);
    if (rc)
        return rc;
    if (b.len != 32)
        return kix_err_set(err, KIX_EINVAL, "a hash of %zu bytes, not 32", b.len);
    memcpy(out, b.ptr, 32);
    return KIX_OK;
}

static int get_hash(const struct kix_proto_map *m, const char *name, uint8_t out[32],
                    struct kix_err *err)
{
    const struct kix_proto_value *v;
    int rc = required(kix_proto_map_get(m, name, &v, err), err);
    if (rc)
        return rc;
    rc = value_hash(v, out, err);
    if (rc)
        kix_err_wrap(err, "field \"%s\"", name);
    return rc;
}

static int get_proof(const struct kix_proto_map *m, const char *name,
                     uint8_t proof[KIX_MSG_MAX_PROOF][32], size_t *n, struct kix_err *err)
{
    const struct kix_proto_array *a;
    size_t count;
    int rc = get_array(m, name, KIX_MSG_MAX_PROOF, KIX_EINVAL, &a, &count, err);

    if (rc)
        return rc;
    for (size_t i = 0; i < count; i++) {
        rc = value_hash(kix_proto_array_at(a, i), proof[i], err);
        if (rc) {
            kix_err_wrap(err, "%s[%zu]", name, i);
            return rc;
        }
    }
    *n = count;
    return KIX_OK;
}

/* lowercase hex digit values + 1 (0: not a digit), so a digest parses
 * with one load and no branch a byte: it is on every read's path */
static const uint8_t hex_value[256] = {
    ['0'] = 1, ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* 64 lowercase hex digits → 32 bytes; -1 when malformed. */
static int hex32_parse(const uint8_t *text, uint8_t out[32])
{
    unsigned bad = 0;

    for (size_t i = 0; i < 32; i++) {
        unsigned hi = hex_value[text[2 * i]], lo = hex_value[text[2 * i + 1]];
        bad |= (hi - 1) >> 8 | (lo - 1) >> 8; /* a 0 wraps to a huge value */
        out[i] = (uint8_t)((hi - 1) << 4 | (lo - 1));
    }
    return bad ? -1 : 0;
}

#define DIGEST_PREFIX     "sha256:"
#define DIGEST_PREFIX_LEN 7
#define DIGEST_TEXT_LEN   (DIGEST_PREFIX_LEN + 64)

/* "sha256:<64 lowercase hex>" → 32 bytes (the store's kix_digest_parse). */
static int digest_parse(const struct kix_bytes *t, uint8_t out[32], struct kix_err *err)
{
    if (t->len != DIGEST_TEXT_LEN || memcmp(t->ptr, DIGEST_PREFIX, DIGEST_PREFIX_LEN) != 0 ||
        hex32_parse(t->ptr + DIGEST_PREFIX_LEN, out) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "malformed digest \"%.*s\": expected sha256: followed by 64 lowercase "
                           "hex digits",
                           (int)(t->len > 80 ? 80 : t->len), (const char *)t->ptr);
    return KIX_OK;
}

static int value_digest(const struct kix_proto_value *v, uint8_t out[32], struct kix_err *err)
{
    struct kix_bytes t;
    int rc = kix_proto_value_str(v, &t, err);
    return rc ? rc : digest_parse(&t, out, err);
}

static int get_digest(const struct kix_proto_map *m, const char *name, uint8_t out[32],
                      struct kix_err *err)
{
    struct kix_bytes t;
    int rc = get_str(m, name, &t, err);
    if (rc)
        return rc;
    rc = digest_parse(&t, out, err);
    if (rc)
        kix_err_wrap(err, "field \"%s\"", name);
    return rc;
}

static int opt_digest(const struct kix_proto_map *m, const char *name, bool *has, uint8_t out[32],
                      struct kix_err *err)
{
    const struct kix_proto_value *v;
    int rc = kix_proto_map_get(m, name, &v, err);
    *has = false;
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    *has = rc == KIX_OK;
    return rc ? rc : get_digest(m, name, out, err);
}

static int get_keyid(const struct kix_proto_map *m, const char *name, uint8_t out[32],
                     struct kix_err *err)
{
    struct kix_bytes t;
    int rc = get_str(m, name, &t, err);
    if (rc)
        return rc;
    if (t.len != 64 || hex32_parse(t.ptr, out) != 0)
        return kix_err_set(err, KIX_EINVAL, "field \"%s\": expected 64 lowercase hex digits", name);
    return KIX_OK;
}

/* Text under cap bytes without a NUL byte, optional. */
static int opt_text(const struct kix_proto_map *m, const char *name, size_t cap,
                    struct kix_bytes *out, struct kix_err *err)
{
    int rc = opt_str(m, name, out, err);
    if (rc || !out->ptr)
        return rc;
    if (out->len >= cap || memchr(out->ptr, 0, out->len))
        return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be under %zu bytes", name, cap);
    return KIX_OK;
}

/* One block for n elements of size each (n already bounded). */
static int alloc_block(size_t n, size_t size, void **out, struct kix_err *err)
{
    *out = calloc(n ? n : 1, size);
    return *out ? KIX_OK : kix_err_set(err, KIX_ENOMEM, "out of memory");
}

void kix_msg_free(void *owned)
{
    free(owned);
}

/* ---- writing helpers -------------------------------------------------------------- */

static const char hexd[] = "0123456789abcdef";

static void hex32(const uint8_t in[32], char out[64])
{
    for (size_t i = 0; i < 32; i++) {
        out[2 * i] = hexd[in[i] >> 4];
        out[2 * i + 1] = hexd[in[i] & 15];
    }
}

static int put_digest(struct kix_proto_writer *w, const char *name, const uint8_t d[32])
{
    char text[DIGEST_TEXT_LEN];
    memcpy(text, DIGEST_PREFIX, DIGEST_PREFIX_LEN);
    hex32(d, text + DIGEST_PREFIX_LEN);
    if (name)
        kix_proto_put_key(w, name);
    return kix_proto_put_str(w, text, sizeof(text));
}

static int put_bytes_str(struct kix_proto_writer *w, const char *name, struct kix_bytes b)
{
    kix_proto_put_key(w, name);
    return kix_proto_put_str(w, b.ptr ? (const void *)b.ptr : "", b.len);
}

static int put_bytes_bin(struct kix_proto_writer *w, const char *name, struct kix_bytes b)
{
    kix_proto_put_key(w, name);
    return kix_proto_put_bin(w, b.ptr ? (const void *)b.ptr : "", b.len);
}

static int put_u64(struct kix_proto_writer *w, const char *name, uint64_t v)
{
    kix_proto_put_key(w, name);
    return kix_proto_put_u64(w, v);
}

static int put_opt_u64(struct kix_proto_writer *w, const char *name, uint64_t v)
{
    return v == KIX_MSG_ABSENT ? KIX_OK : put_u64(w, name, v);
}

static int put_opt_str(struct kix_proto_writer *w, const char *name, struct kix_bytes b)
{
    return b.ptr ? put_bytes_str(w, name, b) : KIX_OK;
}

static int put_hash(struct kix_proto_writer *w, const char *name, const uint8_t h[32])
{
    if (name)
        kix_proto_put_key(w, name);
    return kix_proto_put_bin(w, h, 32);
}

static int put_proof(struct kix_proto_writer *w, const uint8_t proof[][32], size_t n)
{
    kix_proto_put_key(w, "proof");
    kix_proto_put_array(w, n);
    for (size_t i = 0; i < n; i++)
        put_hash(w, NULL, proof[i]);
    return w->rc;
}

/* The map of a result value; EPROTO when the result is not a map. */
static int result_map(const struct kix_proto_value *v, const struct kix_proto_map **m,
                      struct kix_err *err)
{
    int rc = kix_proto_value_map(v, m, err);
    if (rc)
        kix_err_wrap(err, "result");
    return rc;
}

/* ---- info ---------------------------------------------------------------------- */

static const char *const limit_names[] = {"maxMessage", "maxInFlight",    "maxBatch", "maxEntries",
                                          "maxObjects", "maxCheckpoints", "maxRuns"};
#define NLIMITS (sizeof(limit_names) / sizeof(limit_names[0]))

static uint64_t *limit_slot(struct kix_msg_limits *l, size_t i)
{
    uint64_t *slots[NLIMITS] = {&l->max_message, &l->max_in_flight, &l->max_batch,
                                &l->max_entries, &l->max_objects,   &l->max_checkpoints,
                                &l->max_runs};
    return slots[i];
}

void kix_msg_limits_init(struct kix_msg_limits *l)
{
    for (size_t i = 0; i < NLIMITS; i++)
        *limit_slot(l, i) = KIX_MSG_ABSENT;
}

void kix_msg_info_init(struct kix_msg_info *m)
{
    memset(m, 0, sizeof(*m));
    kix_msg_limits_init(&m->limits);
    m->upstream_size = m->lag_entries = m->lag_seconds = KIX_MSG_ABSENT;
    m->committed = KIX_MSG_ABSENT;
}

int kix_msg_put_info_result(struct kix_proto_writer *w, const struct kix_msg_info *m)
{
    struct kix_msg_limits lim = m->limits;
    size_t nlim = 0;
    size_t n = 4 + (m->version.ptr != NULL) + m->has_limits + (m->upstream.ptr != NULL) +
               (m->upstream_size != KIX_MSG_ABSENT) + (m->lag_entries != KIX_MSG_ABSENT) +
               (m->lag_seconds != KIX_MSG_ABSENT) + (m->last_error.ptr != NULL) + m->has_fork +
               (m->committed != KIX_MSG_ABSENT);

    for (size_t i = 0; i < NLIMITS; i++)
        nlim += *limit_slot(&lim, i) != KIX_MSG_ABSENT;
    kix_proto_put_map(w, n);
    put_bytes_str(w, "origin", m->origin);
    put_bytes_str(w, "logKey", m->log_key);
    put_u64(w, "size", m->size);
    put_opt_str(w, "version", m->version);
    kix_proto_put_key(w, "mirror");
    kix_proto_put_bool(w, m->mirror);
    if (m->has_limits) {
        kix_proto_put_key(w, "limits");
        kix_proto_put_map(w, nlim);
        for (size_t i = 0; i < NLIMITS; i++)
            put_opt_u64(w, limit_names[i], *limit_slot(&lim, i));
    }
    put_opt_str(w, "upstream", m->upstream);
    put_opt_u64(w, "upstreamSize", m->upstream_size);
    put_opt_u64(w, "lagEntries", m->lag_entries);
    put_opt_u64(w, "lagSeconds", m->lag_seconds);
    put_opt_str(w, "lastError", m->last_error);
    if (m->has_fork) {
        kix_proto_put_key(w, "fork");
        kix_proto_put_map(w, 3);
        put_u64(w, "size", m->fork_size);
        put_bytes_str(w, "reason", m->fork_reason);
        put_bytes_str(w, "evidence", m->fork_evidence);
    }
    put_opt_u64(w, "committed", m->committed);
    return w->rc;
}

static int get_limits(const struct kix_proto_map *m, struct kix_msg_limits *out,
                      struct kix_err *err)
{
    for (size_t i = 0; i < NLIMITS; i++) {
        uint64_t *v = limit_slot(out, i);
        int rc = opt_u64(m, limit_names[i], v, err);
        if (rc)
            return rc;
        if (*v == 0)
            return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be at least 1", limit_names[i]);
    }
    return KIX_OK;
}

static int get_fork(const struct kix_proto_map *m, struct kix_msg_info *out, struct kix_err *err)
{
    const struct kix_proto_map *f;
    int rc = kix_proto_map_get_map(m, "fork", &f, err);

    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc)
        return rc;
    out->has_fork = true;
    rc = get_u64(f, "size", &out->fork_size, err);
    if (rc == KIX_OK)
        rc = get_str(f, "reason", &out->fork_reason, err);
    if (rc == KIX_OK)
        rc = get_str(f, "evidence", &out->fork_evidence, err);
    if (rc)
        kix_err_wrap(err, "field \"fork\"");
    return rc;
}

int kix_msg_get_info_result(const struct kix_proto_value *v, struct kix_msg_info *out,
                            struct kix_err *err)
{
    const struct kix_proto_map *m, *lim;
    int rc = result_map(v, &m, err);

    kix_msg_info_init(out);
    if (rc == KIX_OK)
        rc = get_str(m, "origin", &out->origin, err);
    if (rc == KIX_OK)
        rc = get_str(m, "logKey", &out->log_key, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = opt_str(m, "version", &out->version, err);
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_bool(m, "mirror", &out->mirror, err);
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
    }
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_map(m, "limits", &lim, err);
        if (rc == KIX_OK) {
            out->has_limits = true;
            rc = get_limits(lim, &out->limits, err);
            if (rc)
                kix_err_wrap(err, "field \"limits\"");
        } else if (rc == KIX_ENOTFOUND) {
            rc = KIX_OK;
        }
    }
    if (rc == KIX_OK)
        rc = opt_str(m, "upstream", &out->upstream, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "upstreamSize", &out->upstream_size, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "lagEntries", &out->lag_entries, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "lagSeconds", &out->lag_seconds, err);
    if (rc == KIX_OK)
        rc = opt_str(m, "lastError", &out->last_error, err);
    if (rc == KIX_OK)
        rc = get_fork(m, out, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "committed", &out->committed, err);
    return answer(rc, err);
}

/* ---- submit ------------------------------------------------------------------- */

int kix_msg_put_submit_params(struct kix_proto_writer *w, const struct kix_msg_submit_params *p)
{
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, p->nbundles);
    for (size_t i = 0; i < p->nbundles; i++) {
        const struct kix_msg_bundle *b = &p->bundles[i];
        kix_proto_put_map(w, b->nobjects ? 2 : 1);
        put_bytes_bin(w, "envelope", b->envelope);
        if (!b->nobjects)
            continue;
        kix_proto_put_key(w, "objects");
        kix_proto_put_array(w, b->nobjects);
        for (size_t k = 0; k < b->nobjects; k++)
            kix_proto_put_bin(w, b->objects[k].ptr ? (const void *)b->objects[k].ptr : "",
                              b->objects[k].len);
    }
    return w->rc;
}

/* One bundle; objs NULL counts only. */
static int read_bundle(const struct kix_proto_value *v, struct kix_msg_bundle *b,
                       struct kix_bytes *objs, size_t *nobjs, struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a = NULL;
    struct kix_bytes env;
    size_t n = 0;
    int rc = kix_proto_value_map(v, &m, err);

    if (rc == KIX_OK)
        rc = get_bin(m, "envelope", &env, err);
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_array(m, "objects", &a, &n, err);
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
    }
    for (size_t j = 0; rc == KIX_OK && j < n; j++) {
        struct kix_bytes o;
        rc = kix_proto_value_bin(kix_proto_array_at(a, j), &o, err);
        if (rc)
            kix_err_wrap(err, "objects[%zu]", j);
        else if (objs)
            objs[j] = o;
    }
    if (rc)
        return rc;
    if (b) {
        b->envelope = env;
        b->nobjects = n;
        b->objects = objs;
    }
    *nobjs = n;
    return KIX_OK;
}

int kix_msg_get_submit_params(const struct kix_proto_map *m, size_t max,
                              struct kix_msg_submit_params *out, struct kix_err *err)
{
    const struct kix_proto_array *a;
    struct kix_msg_bundle *bundles;
    struct kix_bytes *objs;
    size_t n, total = 0, used = 0, nobjs;
    int rc = required(kix_proto_map_get_array(m, "bundles", &a, &n, err), err);

    memset(out, 0, sizeof(*out));
    if (rc)
        return rc;
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "field \"bundles\" is empty; send 1 to %zu bundles",
                           max);
    if (n > max)
        return kix_err_set(err, KIX_ELIMIT, "%zu bundles in one submit, over the limit of %zu", n,
                           max);
    /* check and count every bundle first, then one block for all views */
    for (size_t i = 0; i < n; i++) {
        rc = read_bundle(kix_proto_array_at(a, i), NULL, NULL, &nobjs, err);
        if (rc) {
            kix_err_wrap(err, "bundles[%zu]", i);
            return rc;
        }
        total += nobjs;
    }
    rc = alloc_block(1, n * sizeof(*bundles) + total * sizeof(*objs), &out->owned, err);
    if (rc)
        return rc;
    bundles = out->owned;
    objs = (struct kix_bytes *)(void *)(bundles + n);
    for (size_t i = 0; i < n; i++) {
        (void)read_bundle(kix_proto_array_at(a, i), &bundles[i], objs + used, &nobjs, NULL);
        used += nobjs;
    }
    out->bundles = bundles;
    out->nbundles = n;
    return KIX_OK;
}

int kix_msg_put_submit_result(struct kix_proto_writer *w, const struct kix_msg_submit_result *r)
{
    kix_proto_put_map(w, 2);
    kix_proto_put_key(w, "results");
    kix_proto_put_array(w, r->nresults);
    for (size_t i = 0; i < r->nresults; i++) {
        const struct kix_msg_submit_item *it = &r->results[i];
        if (it->code) {
            kix_proto_put_map(w, 1);
            kix_proto_put_key(w, "error");
            kix_proto_put_map(w, 2);
            kix_proto_put_key(w, "code");
            kix_proto_put_i64(w, it->code);
            put_bytes_str(w, "message", it->message);
            continue;
        }
        kix_proto_put_map(w, 4);
        put_u64(w, "index", it->index);
        put_hash(w, "leafHash", it->leaf_hash);
        kix_proto_put_key(w, "duplicate");
        kix_proto_put_bool(w, it->duplicate);
        put_bytes_str(w, "receipt", it->receipt);
    }
    return put_u64(w, "size", r->size);
}

static int read_submit_item(const struct kix_proto_value *v, struct kix_msg_submit_item *it,
                            struct kix_err *err)
{
    const struct kix_proto_map *m, *e;
    int rc = kix_proto_value_map(v, &m, err);

    if (rc)
        return rc;
    rc = kix_proto_map_get_map(m, "error", &e, err);
    if (rc == KIX_OK) {
        rc = required(kix_proto_map_get_i64(e, "code", &it->code, err), err);
        if (rc == KIX_OK)
            rc = get_str(e, "message", &it->message, err);
        if (rc == KIX_OK && (it->code >= 0 || it->code < INT_MIN))
            rc = kix_err_set(err, KIX_EINVAL, "field \"code\" must be a negative error code");
        if (rc)
            kix_err_wrap(err, "field \"error\"");
        return rc;
    }
    if (rc != KIX_ENOTFOUND)
        return rc;
    rc = get_u64(m, "index", &it->index, err);
    if (rc == KIX_OK)
        rc = get_hash(m, "leafHash", it->leaf_hash, err);
    if (rc == KIX_OK)
        rc = get_bool(m, "duplicate", &it->duplicate, err);
    if (rc == KIX_OK)
        rc = get_str(m, "receipt", &it->receipt, err);
    return rc;
}

int kix_msg_get_submit_result(const struct kix_proto_value *v, size_t max,
                              struct kix_msg_submit_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    struct kix_msg_submit_item *items;
    size_t n = 0;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_array(m, "results", max, KIX_EINVAL, &a, &n, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = alloc_block(n, sizeof(*items), &out->owned, err);
    items = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        rc = read_submit_item(kix_proto_array_at(a, i), &items[i], err);
        if (rc)
            kix_err_wrap(err, "results[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->results = items;
        out->nresults = n;
    }
    return answer(rc, err);
}

/* ---- get_object(s) --------------------------------------------------------------- */

int kix_msg_put_get_object_params(struct kix_proto_writer *w,
                                  const struct kix_msg_get_object_params *p)
{
    kix_proto_put_map(w, 1);
    return put_digest(w, "digest", p->digest);
}

int kix_msg_get_get_object_params(const struct kix_proto_map *m,
                                  struct kix_msg_get_object_params *out, struct kix_err *err)
{
    return get_digest(m, "digest", out->digest, err);
}

int kix_msg_put_get_object_result(struct kix_proto_writer *w,
                                  const struct kix_msg_get_object_result *r)
{
    kix_proto_put_map(w, 1);
    return put_bytes_bin(w, "object", r->object);
}

int kix_msg_get_get_object_result(const struct kix_proto_value *v,
                                  struct kix_msg_get_object_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_bin(m, "object", &out->object, err);
    return answer(rc, err);
}

int kix_msg_put_get_objects_params(struct kix_proto_writer *w,
                                   const struct kix_msg_get_objects_params *p)
{
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "digests");
    kix_proto_put_array(w, p->ndigests);
    for (size_t i = 0; i < p->ndigests; i++)
        put_digest(w, NULL, p->digests[i]);
    return w->rc;
}

int kix_msg_get_get_objects_params(const struct kix_proto_map *m, size_t max,
                                   struct kix_msg_get_objects_params *out, struct kix_err *err)
{
    const struct kix_proto_array *a;
    uint8_t(*d)[32];
    size_t n;
    int rc = required(kix_proto_map_get_array(m, "digests", &a, &n, err), err);

    memset(out, 0, sizeof(*out));
    if (rc)
        return rc;
    if (n > max)
        return kix_err_set(err, KIX_ELIMIT,
                           "%zu digests asked for, over the limit of %zu per request", n, max);
    rc = alloc_block(n, 32, &out->owned, err);
    d = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        rc = value_digest(kix_proto_array_at(a, i), d[i], err);
        if (rc)
            kix_err_wrap(err, "digests[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->digests = (const uint8_t(*)[32])d;
        out->ndigests = n;
    }
    return rc;
}

int kix_msg_put_get_objects_result(struct kix_proto_writer *w,
                                   const struct kix_msg_get_objects_result *r)
{
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "objects");
    kix_proto_put_array(w, r->nobjects);
    for (size_t i = 0; i < r->nobjects; i++) {
        if (r->objects[i].ptr)
            kix_proto_put_bin(w, r->objects[i].ptr, r->objects[i].len);
        else
            kix_proto_put_nil(w);
    }
    return w->rc;
}

int kix_msg_get_get_objects_result(const struct kix_proto_value *v, size_t max,
                                   struct kix_msg_get_objects_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    struct kix_bytes *objs;
    size_t n = 0;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_array(m, "objects", max, KIX_EINVAL, &a, &n, err);
    if (rc == KIX_OK)
        rc = alloc_block(n, sizeof(*objs), &out->owned, err);
    objs = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        const struct kix_proto_value *o = kix_proto_array_at(a, i);
        if (kix_proto_value_is_nil(o))
            continue; /* ptr stays NULL */
        rc = kix_proto_value_bin(o, &objs[i], err);
        if (rc)
            kix_err_wrap(err, "objects[%zu]", i);
        else if (!objs[i].ptr)
            objs[i].ptr = (const uint8_t *)""; /* present, empty */
    }
    if (rc == KIX_OK) {
        out->objects = objs;
        out->nobjects = n;
    }
    return answer(rc, err);
}

/* ---- get_entries, entries notification ------------------------------------------------ */

int kix_msg_put_get_entries_params(struct kix_proto_writer *w,
                                   const struct kix_msg_get_entries_params *p)
{
    kix_proto_put_map(w, 2);
    put_u64(w, "start", p->start);
    return put_u64(w, "count", p->count);
}

int kix_msg_get_get_entries_params(const struct kix_proto_map *m,
                                   struct kix_msg_get_entries_params *out, struct kix_err *err)
{
    int rc = get_u64(m, "start", &out->start, err);
    return rc ? rc : get_u64(m, "count", &out->count, err);
}

static int put_entries(struct kix_proto_writer *w, const struct kix_msg_entries *e, bool with_cp)
{
    kix_proto_put_map(w, 2 + (with_cp && e->checkpoint.ptr));
    put_u64(w, "start", e->start);
    kix_proto_put_key(w, "entries");
    kix_proto_put_array(w, e->nentries);
    for (size_t i = 0; i < e->nentries; i++)
        kix_proto_put_bin(w, e->entries[i].ptr ? (const void *)e->entries[i].ptr : "",
                          e->entries[i].len);
    if (with_cp)
        put_opt_str(w, "checkpoint", e->checkpoint);
    return w->rc;
}

static int get_entries(const struct kix_proto_map *m, size_t max, bool with_cp,
                       struct kix_msg_entries *out, struct kix_err *err)
{
    const struct kix_proto_array *a;
    struct kix_bytes *leaves;
    size_t n = 0;
    int rc = get_u64(m, "start", &out->start, err);

    if (rc == KIX_OK)
        rc = get_array(m, "entries", max, KIX_EINVAL, &a, &n, err);
    if (rc == KIX_OK && with_cp)
        rc = opt_str(m, "checkpoint", &out->checkpoint, err);
    if (rc == KIX_OK)
        rc = alloc_block(n, sizeof(*leaves), &out->owned, err);
    leaves = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        rc = kix_proto_value_bin(kix_proto_array_at(a, i), &leaves[i], err);
        if (rc)
            kix_err_wrap(err, "entries[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->entries = leaves;
        out->nentries = n;
    }
    return answer(rc, err);
}

int kix_msg_put_get_entries_result(struct kix_proto_writer *w, const struct kix_msg_entries *r)
{
    return put_entries(w, r, false);
}

int kix_msg_get_get_entries_result(const struct kix_proto_value *v, size_t max,
                                   struct kix_msg_entries *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    return rc ? answer(rc, err) : get_entries(m, max, false, out, err);
}

int kix_msg_put_entries_notification(struct kix_proto_writer *w, const struct kix_msg_entries *n)
{
    return put_entries(w, n, true);
}

int kix_msg_get_entries_notification(const struct kix_proto_map *m, size_t max,
                                     struct kix_msg_entries *out, struct kix_err *err)
{
    memset(out, 0, sizeof(*out));
    return get_entries(m, max, true, out, err);
}

/* ---- checkpoint ------------------------------------------------------------------ */

int kix_msg_put_checkpoint_params(struct kix_proto_writer *w,
                                  const struct kix_msg_checkpoint_params *p)
{
    kix_proto_put_map(w, p->size != KIX_MSG_ABSENT);
    return put_opt_u64(w, "size", p->size);
}

int kix_msg_get_checkpoint_params(const struct kix_proto_map *m,
                                  struct kix_msg_checkpoint_params *out, struct kix_err *err)
{
    return opt_u64(m, "size", &out->size, err);
}

int kix_msg_put_checkpoint_result(struct kix_proto_writer *w,
                                  const struct kix_msg_checkpoint_result *r)
{
    kix_proto_put_map(w, 2);
    put_bytes_str(w, "checkpoint", r->checkpoint);
    return put_u64(w, "size", r->size);
}

int kix_msg_get_checkpoint_result(const struct kix_proto_value *v,
                                  struct kix_msg_checkpoint_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_str(m, "checkpoint", &out->checkpoint, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    return answer(rc, err);
}

/* ---- proofs, receipt -------------------------------------------------------------- */

int kix_msg_put_index_params(struct kix_proto_writer *w, const struct kix_msg_index_params *p)
{
    kix_proto_put_map(w, 1 + (p->size != KIX_MSG_ABSENT));
    put_u64(w, "index", p->index);
    return put_opt_u64(w, "size", p->size);
}

int kix_msg_get_index_params(const struct kix_proto_map *m, struct kix_msg_index_params *out,
                             struct kix_err *err)
{
    int rc = get_u64(m, "index", &out->index, err);
    return rc ? rc : opt_u64(m, "size", &out->size, err);
}

int kix_msg_put_inclusion_result(struct kix_proto_writer *w,
                                 const struct kix_msg_inclusion_result *r)
{
    kix_proto_put_map(w, 4);
    put_u64(w, "index", r->index);
    put_u64(w, "size", r->size);
    put_hash(w, "leafHash", r->leaf_hash);
    return put_proof(w, r->proof, r->nproof);
}

int kix_msg_get_inclusion_result(const struct kix_proto_value *v,
                                 struct kix_msg_inclusion_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "index", &out->index, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = get_hash(m, "leafHash", out->leaf_hash, err);
    if (rc == KIX_OK)
        rc = get_proof(m, "proof", out->proof, &out->nproof, err);
    return answer(rc, err);
}

int kix_msg_put_consistency_params(struct kix_proto_writer *w,
                                   const struct kix_msg_consistency_params *p)
{
    kix_proto_put_map(w, 1 + (p->size2 != KIX_MSG_ABSENT));
    put_u64(w, "size1", p->size1);
    return put_opt_u64(w, "size2", p->size2);
}

int kix_msg_get_consistency_params(const struct kix_proto_map *m,
                                   struct kix_msg_consistency_params *out, struct kix_err *err)
{
    int rc = get_u64(m, "size1", &out->size1, err);
    return rc ? rc : opt_u64(m, "size2", &out->size2, err);
}

int kix_msg_put_consistency_result(struct kix_proto_writer *w,
                                   const struct kix_msg_consistency_result *r)
{
    kix_proto_put_map(w, 3);
    put_u64(w, "size1", r->size1);
    put_u64(w, "size2", r->size2);
    return put_proof(w, r->proof, r->nproof);
}

int kix_msg_get_consistency_result(const struct kix_proto_value *v,
                                   struct kix_msg_consistency_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size1", &out->size1, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size2", &out->size2, err);
    if (rc == KIX_OK)
        rc = get_proof(m, "proof", out->proof, &out->nproof, err);
    return answer(rc, err);
}

int kix_msg_put_receipt_result(struct kix_proto_writer *w, const struct kix_msg_receipt_result *r)
{
    kix_proto_put_map(w, 1);
    return put_bytes_str(w, "receipt", r->receipt);
}

int kix_msg_get_receipt_result(const struct kix_proto_value *v, struct kix_msg_receipt_result *out,
                               struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_str(m, "receipt", &out->receipt, err);
    return answer(rc, err);
}

/* ---- resolve ------------------------------------------------------------------------ */

int kix_msg_put_resolve_params(struct kix_proto_writer *w, const struct kix_msg_resolve_params *p)
{
    kix_proto_put_map(w, 1 + (p->from != KIX_MSG_ABSENT && p->from != 0));
    put_bytes_str(w, "ref", p->ref);
    return p->from != 0 ? put_opt_u64(w, "from", p->from) : w->rc;
}

int kix_msg_get_resolve_params(const struct kix_proto_map *m, struct kix_msg_resolve_params *out,
                               struct kix_err *err)
{
    int rc = get_str(m, "ref", &out->ref, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "from", &out->from, err);
    if (rc)
        return rc;
    if (out->from == KIX_MSG_ABSENT)
        out->from = 0;
    if (out->ref.len == 0 || out->ref.len > KIX_MSG_REF_MAX)
        return kix_err_set(err, KIX_EINVAL,
                           "field \"ref\" must be 1 to %d bytes: a permalink, a run id or a digest",
                           KIX_MSG_REF_MAX);
    return KIX_OK;
}

int kix_msg_put_resolve_result(struct kix_proto_writer *w, const struct kix_msg_resolve_result *r)
{
    char keyid[64];
    size_t fields = 13 + (r->evidence_index != KIX_MSG_ABSENT) + (r->successor.ptr != NULL) +
                    (r->predecessor.ptr != NULL) + (r->superseded_by_index != KIX_MSG_ABSENT) +
                    (r->supersedes_index != KIX_MSG_ABSENT) + (r->ranked ? 4 : 0) +
                    (r->index_note.ptr ? 4 : 0) + (r->group_record.ptr ? 4 : 0);

    kix_proto_put_map(w, fields);
    put_bytes_str(w, "runId", r->run_id);
    put_digest(w, "digest", r->digest);
    put_bytes_str(w, "permalink", r->permalink);
    put_bytes_str(w, "evidence", r->evidence);
    put_opt_u64(w, "evidenceIndex", r->evidence_index);
    put_opt_str(w, "successor", r->successor);
    put_opt_str(w, "predecessor", r->predecessor);
    put_opt_u64(w, "supersededByIndex", r->superseded_by_index);
    put_opt_u64(w, "supersedesIndex", r->supersedes_index);
    if (r->ranked) {
        put_digest(w, "comparisonKey", r->comparison_key);
        put_u64(w, "rank", r->rank);
        put_u64(w, "groupSize", r->group_size);
        put_bytes_str(w, "best", r->best);
    }
    hex32(r->publisher, keyid);
    kix_proto_put_key(w, "publisher");
    kix_proto_put_str(w, keyid, sizeof(keyid));
    put_u64(w, "publicationIndex", r->publication_index);
    put_u64(w, "attestations", r->attestations);
    put_u64(w, "reruns", r->reruns);
    put_bytes_bin(w, "manifest", r->manifest);
    kix_proto_put_key(w, "objects");
    kix_proto_put_array(w, r->nobjects);
    for (size_t i = 0; i < r->nobjects; i++) {
        kix_proto_put_map(w, 2);
        put_digest(w, "digest", r->objects[i].digest);
        put_bytes_bin(w, "object", r->objects[i].object);
    }
    kix_proto_put_key(w, "entries");
    kix_proto_put_array(w, r->nentries);
    for (size_t i = 0; i < r->nentries; i++) {
        const struct kix_msg_resolve_entry *e = &r->entries[i];
        kix_proto_put_map(w, 4);
        put_u64(w, "index", e->index);
        put_bytes_str(w, "type", e->type);
        put_bytes_bin(w, "leaf", e->leaf);
        put_proof(w, e->proof, e->nproof);
    }
    put_bytes_str(w, "checkpoint", r->checkpoint);
    if (r->index_note.ptr) {
        put_bytes_str(w, "indexNote", r->index_note);
        put_bytes_bin(w, "runRecord", r->run_record);
        put_bytes_bin(w, "runProof", r->run_proof);
        put_u64(w, "entriesFrom", r->entries_from);
        if (r->group_record.ptr) {
            put_bytes_bin(w, "groupRecord", r->group_record);
            put_bytes_bin(w, "groupProof", r->group_proof);
            put_bytes_bin(w, "groupPage", r->group_page);
            put_bytes_bin(w, "groupPageProof", r->group_page_proof);
        }
    }
    return put_u64(w, "size", r->size);
}

static int read_resolve_lists(const struct kix_proto_map *m, size_t max_objects, size_t max_entries,
                              struct kix_msg_resolve_result *out, struct kix_err *err)
{
    const struct kix_proto_array *ao, *ae;
    struct kix_msg_resolve_object *objs;
    struct kix_msg_resolve_entry *ents;
    size_t no, ne;
    int rc = get_array(m, "objects", max_objects, KIX_EINVAL, &ao, &no, err);

    if (rc == KIX_OK)
        rc = get_array(m, "entries", max_entries, KIX_EINVAL, &ae, &ne, err);
    if (rc == KIX_OK)
        rc = alloc_block(1, no * sizeof(*objs) + ne * sizeof(*ents), &out->owned, err);
    if (rc)
        return rc;
    ents = out->owned;
    objs = (struct kix_msg_resolve_object *)(void *)(ents + ne);
    for (size_t i = 0; rc == KIX_OK && i < no; i++) {
        const struct kix_proto_map *o;
        rc = kix_proto_value_map(kix_proto_array_at(ao, i), &o, err);
        if (rc == KIX_OK)
            rc = get_digest(o, "digest", objs[i].digest, err);
        if (rc == KIX_OK)
            rc = get_bin(o, "object", &objs[i].object, err);
        if (rc)
            kix_err_wrap(err, "objects[%zu]", i);
    }
    for (size_t i = 0; rc == KIX_OK && i < ne; i++) {
        const struct kix_proto_map *o;
        rc = kix_proto_value_map(kix_proto_array_at(ae, i), &o, err);
        if (rc == KIX_OK)
            rc = get_u64(o, "index", &ents[i].index, err);
        if (rc == KIX_OK)
            rc = get_str(o, "type", &ents[i].type, err);
        if (rc == KIX_OK)
            rc = get_bin(o, "leaf", &ents[i].leaf, err);
        if (rc == KIX_OK)
            rc = get_proof(o, "proof", ents[i].proof, &ents[i].nproof, err);
        if (rc)
            kix_err_wrap(err, "entries[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->objects = objs;
        out->nobjects = no;
        out->entries = ents;
        out->nentries = ne;
    }
    return rc;
}

int kix_msg_get_resolve_result(const struct kix_proto_value *v, size_t max_objects,
                               size_t max_entries, struct kix_msg_resolve_result *out,
                               struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_value *rank;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_str(m, "runId", &out->run_id, err);
    if (rc == KIX_OK)
        rc = get_digest(m, "digest", out->digest, err);
    if (rc == KIX_OK)
        rc = get_str(m, "permalink", &out->permalink, err);
    if (rc == KIX_OK)
        rc = get_str(m, "evidence", &out->evidence, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "evidenceIndex", &out->evidence_index, err);
    if (rc == KIX_OK)
        rc = opt_str(m, "successor", &out->successor, err);
    if (rc == KIX_OK)
        rc = opt_str(m, "predecessor", &out->predecessor, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "supersededByIndex", &out->superseded_by_index, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "supersedesIndex", &out->supersedes_index, err);
    if (rc == KIX_OK) {
        /* the four ranking fields come together or not at all */
        rc = kix_proto_map_get(m, "rank", &rank, err);
        out->ranked = rc == KIX_OK;
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
    }
    if (rc == KIX_OK && out->ranked) {
        rc = get_digest(m, "comparisonKey", out->comparison_key, err);
        if (rc == KIX_OK)
            rc = get_u64(m, "rank", &out->rank, err);
        if (rc == KIX_OK)
            rc = get_u64(m, "groupSize", &out->group_size, err);
        if (rc == KIX_OK)
            rc = get_str(m, "best", &out->best, err);
    }
    if (rc == KIX_OK)
        rc = get_keyid(m, "publisher", out->publisher, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "publicationIndex", &out->publication_index, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "attestations", &out->attestations, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "reruns", &out->reruns, err);
    if (rc == KIX_OK)
        rc = get_bin(m, "manifest", &out->manifest, err);
    if (rc == KIX_OK)
        rc = get_str(m, "checkpoint", &out->checkpoint, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = opt_str(m, "indexNote", &out->index_note, err);
    if (rc == KIX_OK && out->index_note.ptr) {
        rc = get_bin(m, "runRecord", &out->run_record, err);
        if (rc == KIX_OK)
            rc = get_bin(m, "runProof", &out->run_proof, err);
        if (rc == KIX_OK)
            rc = get_u64(m, "entriesFrom", &out->entries_from, err);
        if (rc == KIX_OK)
            rc = opt_bin(m, "groupRecord", &out->group_record, err);
        if (rc == KIX_OK && out->group_record.ptr)
            rc = get_bin(m, "groupProof", &out->group_proof, err);
        if (rc == KIX_OK && out->group_record.ptr)
            rc = get_bin(m, "groupPage", &out->group_page, err);
        if (rc == KIX_OK && out->group_record.ptr)
            rc = get_bin(m, "groupPageProof", &out->group_page_proof, err);
    }
    if (rc == KIX_OK)
        rc = read_resolve_lists(m, max_objects, max_entries, out, err);
    return answer(rc, err);
}

/* ---- index_proof: one key of the verifiable index -------------------------------- */

int kix_msg_put_vindex_params(struct kix_proto_writer *w, const struct kix_msg_vindex_params *p)
{
    kix_proto_put_map(w, 1);
    return put_bytes_str(w, "key", p->key);
}

int kix_msg_get_vindex_params(const struct kix_proto_map *m, struct kix_msg_vindex_params *out,
                              struct kix_err *err)
{
    int rc = get_str(m, "key", &out->key, err);
    if (rc)
        return rc;
    if (out->key.len == 0 || out->key.len > KIX_MSG_REF_MAX)
        return kix_err_set(err, KIX_EINVAL, "field \"key\" must be 1 to %d bytes", KIX_MSG_REF_MAX);
    return KIX_OK;
}

int kix_msg_put_vindex_result(struct kix_proto_writer *w, const struct kix_msg_vindex_result *r)
{
    kix_proto_put_map(w, 6 + (r->present ? 1 : 0));
    put_bytes_str(w, "key", r->key);
    kix_proto_put_key(w, "present");
    kix_proto_put_bool(w, r->present);
    if (r->present)
        put_bytes_bin(w, "record", r->record);
    put_bytes_bin(w, "proof", r->proof);
    put_bytes_str(w, "checkpoint", r->checkpoint);
    put_bytes_str(w, "indexNote", r->index_note);
    return put_u64(w, "size", r->size);
}

int kix_msg_get_vindex_result(const struct kix_proto_value *v, struct kix_msg_vindex_result *out,
                              struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_str(m, "key", &out->key, err);
    if (rc == KIX_OK)
        rc = get_bool(m, "present", &out->present, err);
    if (rc == KIX_OK && out->present)
        rc = get_bin(m, "record", &out->record, err);
    if (rc == KIX_OK)
        rc = get_bin(m, "proof", &out->proof, err);
    if (rc == KIX_OK)
        rc = get_str(m, "checkpoint", &out->checkpoint, err);
    if (rc == KIX_OK)
        rc = get_str(m, "indexNote", &out->index_note, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    return answer(rc, err);
}

/* ---- checkpoints ------------------------------------------------------------------- */

int kix_msg_put_checkpoints_params(struct kix_proto_writer *w,
                                   const struct kix_msg_checkpoints_params *p)
{
    kix_proto_put_map(w, 1 + (p->limit != KIX_MSG_ABSENT));
    put_u64(w, "after", p->after);
    return put_opt_u64(w, "limit", p->limit);
}

int kix_msg_get_checkpoints_params(const struct kix_proto_map *m,
                                   struct kix_msg_checkpoints_params *out, struct kix_err *err)
{
    int rc = get_u64(m, "after", &out->after, err);
    return rc ? rc : opt_u64(m, "limit", &out->limit, err);
}

int kix_msg_put_checkpoints_result(struct kix_proto_writer *w,
                                   const struct kix_msg_checkpoints_result *r)
{
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "checkpoints");
    kix_proto_put_array(w, r->ncheckpoints);
    for (size_t i = 0; i < r->ncheckpoints; i++) {
        kix_proto_put_map(w, r->checkpoints[i].index_note.ptr ? 3 : 2);
        put_u64(w, "size", r->checkpoints[i].size);
        put_bytes_str(w, "checkpoint", r->checkpoints[i].checkpoint);
        put_opt_str(w, "indexNote", r->checkpoints[i].index_note);
    }
    return w->rc;
}

int kix_msg_get_checkpoints_result(const struct kix_proto_value *v, size_t max,
                                   struct kix_msg_checkpoints_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    struct kix_msg_checkpoint_item *items;
    size_t n = 0;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_array(m, "checkpoints", max, KIX_EINVAL, &a, &n, err);
    if (rc == KIX_OK)
        rc = alloc_block(n, sizeof(*items), &out->owned, err);
    items = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        const struct kix_proto_map *o;
        rc = kix_proto_value_map(kix_proto_array_at(a, i), &o, err);
        if (rc == KIX_OK)
            rc = get_u64(o, "size", &items[i].size, err);
        if (rc == KIX_OK)
            rc = get_str(o, "checkpoint", &items[i].checkpoint, err);
        if (rc == KIX_OK)
            rc = opt_str(o, "indexNote", &items[i].index_note, err);
        if (rc)
            kix_err_wrap(err, "checkpoints[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->checkpoints = items;
        out->ncheckpoints = n;
    }
    return answer(rc, err);
}

/* ---- query ------------------------------------------------------------------------- */

void kix_msg_query_params_init(struct kix_msg_query_params *p)
{
    memset(p, 0, sizeof(*p));
    p->offset = p->limit = KIX_MSG_ABSENT;
}

int kix_msg_put_query_params(struct kix_proto_writer *w, const struct kix_msg_query_params *p)
{
    size_t n = (p->kernel.ptr != NULL) + (p->gpu.ptr != NULL) + (p->provider.ptr != NULL) +
               (p->mode.ptr != NULL) + (p->metric.ptr != NULL) + (p->dtype.ptr != NULL) +
               p->has_group + (p->offset != KIX_MSG_ABSENT) + (p->limit != KIX_MSG_ABSENT);

    kix_proto_put_map(w, n);
    put_opt_str(w, "kernel", p->kernel);
    put_opt_str(w, "gpu", p->gpu);
    put_opt_str(w, "provider", p->provider);
    put_opt_str(w, "mode", p->mode);
    put_opt_str(w, "metric", p->metric);
    put_opt_str(w, "dtype", p->dtype);
    if (p->has_group)
        put_digest(w, "group", p->group);
    put_opt_u64(w, "offset", p->offset);
    return put_opt_u64(w, "limit", p->limit);
}

int kix_msg_get_query_params(const struct kix_proto_map *m, struct kix_msg_query_params *out,
                             struct kix_err *err)
{
    int rc;

    kix_msg_query_params_init(out);
    rc = opt_text(m, "kernel", KIX_MSG_QUERY_TEXT_MAX + 1, &out->kernel, err);
    if (rc == KIX_OK)
        rc = opt_text(m, "gpu", KIX_MSG_QUERY_TEXT_MAX + 1, &out->gpu, err);
    if (rc == KIX_OK)
        rc = opt_text(m, "provider", KIX_MSG_QUERY_TEXT_MAX + 1, &out->provider, err);
    if (rc == KIX_OK)
        rc = opt_text(m, "mode", KIX_MSG_QUERY_SHORT_MAX + 1, &out->mode, err);
    if (rc == KIX_OK)
        rc = opt_text(m, "metric", KIX_MSG_QUERY_SHORT_MAX + 1, &out->metric, err);
    if (rc == KIX_OK)
        rc = opt_text(m, "dtype", KIX_MSG_QUERY_TEXT_MAX + 1, &out->dtype, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "offset", &out->offset, err);
    if (rc == KIX_OK)
        rc = opt_u64(m, "limit", &out->limit, err);
    if (rc == KIX_OK)
        rc = opt_digest(m, "group", &out->has_group, out->group, err);
    return rc;
}

int kix_msg_put_query_result(struct kix_proto_writer *w, const struct kix_msg_query_result *r)
{
    kix_proto_put_map(w, 2);
    put_u64(w, "matched", r->matched);
    kix_proto_put_key(w, "runs");
    kix_proto_put_array(w, r->nruns);
    for (size_t i = 0; i < r->nruns; i++) {
        const struct kix_msg_query_run *run = &r->runs[i];
        kix_proto_put_map(w, 12);
        put_bytes_str(w, "runId", run->run_id);
        put_digest(w, "digest", run->digest);
        put_digest(w, "group", run->group);
        put_u64(w, "rank", run->rank);
        put_u64(w, "groupSize", run->group_size);
        put_u64(w, "value", run->value);
        put_bytes_str(w, "evidence", run->evidence);
        put_bytes_str(w, "kernel", run->kernel);
        put_bytes_str(w, "gpu", run->gpu);
        put_bytes_str(w, "provider", run->provider);
        put_bytes_str(w, "mode", run->mode);
        put_bytes_str(w, "metric", run->metric);
    }
    return w->rc;
}

static int read_run(const struct kix_proto_value *v, struct kix_msg_query_run *run,
                    struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = kix_proto_value_map(v, &m, err);

    if (rc == KIX_OK)
        rc = get_str(m, "runId", &run->run_id, err);
    if (rc == KIX_OK)
        rc = get_digest(m, "digest", run->digest, err);
    if (rc == KIX_OK)
        rc = get_digest(m, "group", run->group, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "rank", &run->rank, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "groupSize", &run->group_size, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "value", &run->value, err);
    if (rc == KIX_OK)
        rc = get_str(m, "evidence", &run->evidence, err);
    if (rc == KIX_OK)
        rc = get_str(m, "kernel", &run->kernel, err);
    if (rc == KIX_OK)
        rc = get_str(m, "gpu", &run->gpu, err);
    if (rc == KIX_OK)
        rc = get_str(m, "provider", &run->provider, err);
    if (rc == KIX_OK)
        rc = get_str(m, "mode", &run->mode, err);
    if (rc == KIX_OK)
        rc = get_str(m, "metric", &run->metric, err);
    return rc;
}

int kix_msg_get_query_result(const struct kix_proto_value *v, size_t max,
                             struct kix_msg_query_result *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    const struct kix_proto_array *a;
    struct kix_msg_query_run *runs;
    size_t n = 0;
    int rc = result_map(v, &m, err);

    memset(out, 0, sizeof(*out));
    if (rc == KIX_OK)
        rc = get_u64(m, "matched", &out->matched, err);
    if (rc == KIX_OK)
        rc = get_array(m, "runs", max, KIX_EINVAL, &a, &n, err);
    if (rc == KIX_OK)
        rc = alloc_block(n, sizeof(*runs), &out->owned, err);
    runs = out->owned;
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        rc = read_run(kix_proto_array_at(a, i), &runs[i], err);
        if (rc)
            kix_err_wrap(err, "runs[%zu]", i);
    }
    if (rc == KIX_OK) {
        out->runs = runs;
        out->nruns = n;
    }
    return answer(rc, err);
}

/* ---- follow, add_cosignature -------------------------------------------------------- */

int kix_msg_put_follow_params(struct kix_proto_writer *w, const struct kix_msg_follow_params *p)
{
    kix_proto_put_map(w, 1 + p->replica);
    put_u64(w, "from", p->from);
    if (p->replica) {
        kix_proto_put_key(w, "replica");
        kix_proto_put_bool(w, true);
    }
    return w->rc;
}

int kix_msg_get_follow_params(const struct kix_proto_map *m, struct kix_msg_follow_params *out,
                              struct kix_err *err)
{
    int rc = get_u64(m, "from", &out->from, err);

    out->replica = false;
    if (rc == KIX_OK) {
        rc = kix_proto_map_get_bool(m, "replica", &out->replica, err);
        if (rc == KIX_ENOTFOUND)
            rc = KIX_OK;
    }
    return rc;
}

int kix_msg_put_follow_result(struct kix_proto_writer *w, const struct kix_msg_size_result *r)
{
    kix_proto_put_map(w, 1);
    return put_u64(w, "size", r->size);
}

int kix_msg_get_follow_result(const struct kix_proto_value *v, struct kix_msg_size_result *out,
                              struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    return answer(rc, err);
}

int kix_msg_put_replicated_params(struct kix_proto_writer *w,
                                  const struct kix_msg_replicated_params *p)
{
    kix_proto_put_map(w, 3 + (p->cosignature.ptr != NULL) + (p->held.ptr != NULL));
    put_u64(w, "size", p->size);
    put_hash(w, "root", p->root);
    put_bytes_str(w, "mirror", p->mirror);
    put_opt_str(w, "cosignature", p->cosignature);
    return put_opt_str(w, "held", p->held);
}

int kix_msg_get_replicated_params(const struct kix_proto_map *m,
                                  struct kix_msg_replicated_params *out, struct kix_err *err)
{
    int rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = get_hash(m, "root", out->root, err);
    if (rc == KIX_OK)
        rc = get_str(m, "mirror", &out->mirror, err);
    if (rc == KIX_OK && (out->mirror.len == 0 || out->mirror.len > 64))
        rc = kix_err_set(err, KIX_EINVAL, "field \"mirror\" must be 1 to 64 bytes, not %zu",
                         out->mirror.len);
    if (rc == KIX_OK)
        rc = opt_str(m, "cosignature", &out->cosignature, err);
    if (rc == KIX_OK && out->cosignature.ptr &&
        (out->cosignature.len == 0 || out->cosignature.len > KIX_MSG_COSIGNATURE_MAX))
        rc = kix_err_set(err, KIX_EINVAL, "field \"cosignature\" must be 1 to %d bytes, not %zu",
                         KIX_MSG_COSIGNATURE_MAX, out->cosignature.len);
    if (rc == KIX_OK)
        rc = opt_str(m, "held", &out->held, err);
    if (rc == KIX_OK && out->held.ptr &&
        (out->held.len == 0 || out->held.len > KIX_MSG_COSIGNATURE_MAX))
        rc = kix_err_set(err, KIX_EINVAL, "field \"held\" must be 1 to %d bytes, not %zu",
                         KIX_MSG_COSIGNATURE_MAX, out->held.len);
    return rc;
}

int kix_msg_put_add_cosignature_params(struct kix_proto_writer *w,
                                       const struct kix_msg_add_cosignature_params *p)
{
    kix_proto_put_map(w, 2);
    put_bytes_str(w, "checkpoint", p->checkpoint);
    return put_bytes_str(w, "cosignature", p->cosignature);
}

int kix_msg_get_add_cosignature_params(const struct kix_proto_map *m,
                                       struct kix_msg_add_cosignature_params *out,
                                       struct kix_err *err)
{
    int rc = get_str(m, "checkpoint", &out->checkpoint, err);
    return rc ? rc : get_str(m, "cosignature", &out->cosignature, err);
}

int kix_msg_put_add_cosignature_result(struct kix_proto_writer *w,
                                       const struct kix_msg_add_cosignature_result *r)
{
    kix_proto_put_map(w, 2);
    put_u64(w, "size", r->size);
    kix_proto_put_key(w, "stored");
    return kix_proto_put_bool(w, r->stored);
}

int kix_msg_get_add_cosignature_result(const struct kix_proto_value *v,
                                       struct kix_msg_add_cosignature_result *out,
                                       struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = result_map(v, &m, err);
    if (rc == KIX_OK)
        rc = get_u64(m, "size", &out->size, err);
    if (rc == KIX_OK)
        rc = get_bool(m, "stored", &out->stored, err);
    return answer(rc, err);
}
