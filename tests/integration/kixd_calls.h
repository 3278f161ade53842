/* tests/integration/kixd_calls.h — building requests and reading answers
 * in integration tests. */
#ifndef KIXD_CALLS_H
#define KIXD_CALLS_H

#include <stdarg.h>

#include "kixd_fixture.h"

/* One params field: kind 'u' u64, 'i' i64, 's' str, 'b' bin, 'n' nil,
 * 'a' an array of `n` str (strs). */
struct pv {
    const char *name;
    int kind;
    uint64_t u;
    int64_t i;
    const char *s;
    size_t len;
    const char *const *strs;
};

struct params {
    struct pv v[8];
    int n;
};

static inline int put_params(void *ctx, struct kix_proto_writer *w)
{
    const struct params *p = ctx;
    kix_proto_put_map(w, (size_t)p->n);
    for (int k = 0; k < p->n; k++) {
        const struct pv *v = &p->v[k];
        kix_proto_put_key(w, v->name);
        switch (v->kind) {
        case 'u':
            kix_proto_put_u64(w, v->u);
            break;
        case 'i':
            kix_proto_put_i64(w, v->i);
            break;
        case 's':
            kix_proto_put_str(w, v->s, v->len);
            break;
        case 'b':
            kix_proto_put_bin(w, v->s, v->len);
            break;
        case 'a':
            kix_proto_put_array(w, v->len);
            for (size_t j = 0; j < v->len; j++)
                kix_proto_put_cstr(w, v->strs[j]);
            break;
        default:
            kix_proto_put_nil(w);
        }
    }
    return KIX_OK;
}

/* spec: one char per field ('u', 'i', 's', 'b', 'n', 'a'); varargs per field:
 * name, then u64 / i64 / const char * (NUL-terminated) / (const char *, size_t)
 * for 'b' / nothing for 'n' / (const char *const *, size_t) for 'a'. */
static inline void params_build(struct params *p, const char *spec, va_list ap)
{
    memset(p, 0, sizeof(*p));
    for (; *spec && p->n < 8; spec++) {
        struct pv *v = &p->v[p->n++];
        v->kind = *spec;
        v->name = va_arg(ap, const char *);
        switch (*spec) {
        case 'u':
            v->u = va_arg(ap, uint64_t);
            break;
        case 'i':
            v->i = va_arg(ap, int64_t);
            break;
        case 's':
            v->s = va_arg(ap, const char *);
            v->len = strlen(v->s);
            break;
        case 'b':
            v->s = va_arg(ap, const char *);
            v->len = va_arg(ap, size_t);
            break;
        case 'a':
            v->strs = va_arg(ap, const char *const *);
            v->len = va_arg(ap, size_t);
            break;
        }
    }
}

/* Calls method with params from spec; returns KIX_OK with *m holding the
 * response, or the server's error code with err->msg its message. */
static inline int callv(struct kix_rpc *c, const char *method, struct kix_proto_msg *m,
                        struct kix_err *err, const char *spec, ...)
{
    struct params p;
    va_list ap;
    va_start(ap, spec);
    params_build(&p, spec, ap);
    va_end(ap);
    err->code = 0;
    err->msg[0] = '\0';
    return kix_rpc_call(c, method, put_params, &p, m, err);
}

/* Queues a request without waiting; returns its msgid (0 on failure). */
static inline uint32_t sendv(struct kix_rpc *c, const char *method, const char *spec, ...)
{
    struct params p;
    struct kix_err err;
    uint32_t id = 0;
    va_list ap;
    va_start(ap, spec);
    params_build(&p, spec, ap);
    va_end(ap);
    if (kix_rpc_send(c, method, put_params, &p, &id, &err) != KIX_OK)
        return 0;
    return id;
}

static inline const struct kix_proto_map *result_map(const struct kix_proto_msg *m)
{
    const struct kix_proto_map *map = NULL;
    if (kix_proto_value_map(m->result, &map, NULL) != KIX_OK)
        return NULL;
    return map;
}

static inline uint64_t field_u64(const struct kix_proto_map *m, const char *name)
{
    uint64_t v = UINT64_MAX;
    if (!m || kix_proto_map_get_u64(m, name, &v, NULL) != KIX_OK)
        return UINT64_MAX;
    return v;
}

/* A str or bin field as a view (ptr NULL when absent). */
static inline struct kix_bytes field_bytes(const struct kix_proto_map *m, const char *name)
{
    struct kix_bytes b = {NULL, 0};
    const struct kix_proto_value *v;
    if (!m || kix_proto_map_get(m, name, &v, NULL) != KIX_OK)
        return b;
    if (kix_proto_value_str(v, &b, NULL) != KIX_OK && kix_proto_value_bin(v, &b, NULL) != KIX_OK)
        b.ptr = NULL;
    return b;
}

/* Copies a view into a NUL-terminated static-size buffer. */
static inline const char *field_text(const struct kix_proto_map *m, const char *name, char *out,
                                     size_t cap)
{
    struct kix_bytes b = field_bytes(m, name);
    size_t n = b.len < cap - 1 ? b.len : cap - 1;
    if (!b.ptr)
        return NULL;
    memcpy(out, b.ptr, n);
    out[n] = '\0';
    return out;
}

#endif
