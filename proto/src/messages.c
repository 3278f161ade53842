/* The one codec of every message (kix/messages.h): kix_msg_encode and
 * kix_msg_decode walk a message's table (message_table.c) for both
 * directions, so a field's name, kind, bounds and optionality are written
 * once. The rules of PROTOCOL.md section 2.1 live here: unknown fields are
 * ignored, a missing required field is EINVAL naming it, every count from
 * the network is bounded before memory is sized from it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kix/messages.h"

/* ---- bytes of a struct ------------------------------------------------------------ */

#define AT(base, off, type)  ((type *)(void *)((char *)(base) + (off)))
#define CAT(base, off, type) ((const type *)(const void *)((const char *)(base) + (off)))

/* ---- the arrays a decoder allocates: one chain kept in `owned` -------------------- */

struct block {
    struct block *next;
    max_align_t data[];
};

void kix_msg_free(void *owned)
{
    struct block *b = owned;
    while (b) {
        struct block *next = b->next;
        free(b);
        b = next;
    }
}

/* n elements of size (n already bounded), zeroed, chained to *owned. */
static int alloc_array(void **owned, size_t n, size_t size, void **out, struct kix_err *err)
{
    struct block *b;

    if (n && size > (SIZE_MAX - sizeof(*b)) / n)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    b = calloc(1, sizeof(*b) + (n ? n * size : 1));
    if (!b)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    b->next = *owned;
    *owned = b;
    *out = b->data;
    return KIX_OK;
}

void *kix_msg_alloc(void **owned, size_t n, size_t size)
{
    void *out = NULL;
    return alloc_array(owned, n, size, &out, NULL) == KIX_OK ? out : NULL;
}

/* ---- digests and key ids as text --------------------------------------------------- */

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

static const char hexd[] = "0123456789abcdef";

static void hex32(const uint8_t in[32], char out[64])
{
    for (size_t i = 0; i < 32; i++) {
        out[2 * i] = hexd[in[i] >> 4];
        out[2 * i + 1] = hexd[in[i] & 15];
    }
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

static int put_digest(struct kix_proto_writer *w, const uint8_t d[32])
{
    char text[DIGEST_TEXT_LEN];
    memcpy(text, DIGEST_PREFIX, DIGEST_PREFIX_LEN);
    hex32(d, text + DIGEST_PREFIX_LEN);
    return kix_proto_put_str(w, text, sizeof(text));
}

static int value_digest(const struct kix_proto_value *v, uint8_t out[32], struct kix_err *err)
{
    struct kix_bytes t;
    int rc = kix_proto_value_str(v, &t, err);
    return rc ? rc : digest_parse(&t, out, err);
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

/* ---- which fields a message carries --------------------------------------------------- */

static bool holds(const struct kix_msg_field *f, const void *base)
{
    switch (f->when) {
    case KIX_MSG_WHEN_BOOL:
        return *CAT(base, f->when_off, bool);
    case KIX_MSG_WHEN_PTR:
        return CAT(base, f->when_off, struct kix_bytes)->ptr != NULL;
    case KIX_MSG_WHEN_ZERO:
        return *CAT(base, f->when_off, int64_t) == 0;
    default:
        return true;
    }
}

/* Whether the encoder writes f of base. */
static bool written(const struct kix_msg_field *f, const void *base)
{
    if (f->kind == KIX_MSG_FLAG || !holds(f, base))
        return false;
    if (!(f->flags & KIX_MSG_OPT) || (f->flags & KIX_MSG_ALWAYS))
        return true;
    switch (f->kind) {
    case KIX_MSG_U64: {
        uint64_t v = *CAT(base, f->off, uint64_t);
        return v != KIX_MSG_ABSENT && !((f->flags & KIX_MSG_ZERO) && v == 0);
    }
    case KIX_MSG_BOOL:
        return *CAT(base, f->off, bool);
    case KIX_MSG_STR:
    case KIX_MSG_BIN:
        return CAT(base, f->off, struct kix_bytes)->ptr != NULL;
    case KIX_MSG_BINS:
    case KIX_MSG_DIGESTS:
    case KIX_MSG_LIST:
        return *CAT(base, f->aux, size_t) != 0;
    case KIX_MSG_MAP:
        /* its own flag, or (an error map) its first field, a nonzero code */
        if (f->aux != KIX_MSG_NO_AUX)
            return *CAT(base, f->aux, bool);
        return *CAT(base, f->off + f->sub->fields[0].off, int64_t) != 0;
    default: /* HASH, DIGEST: their bool */
        return *CAT(base, f->aux, bool);
    }
}

/* ---- encoding ----------------------------------------------------------------------- */

static int put_bytes(struct kix_proto_writer *w, bool bin, const struct kix_bytes *b)
{
    const void *p = b->ptr ? (const void *)b->ptr : "";
    return bin ? kix_proto_put_bin(w, p, b->len) : kix_proto_put_str(w, p, b->len);
}

static int encode_at(struct kix_proto_writer *w, const struct kix_msg_table *t, const void *base);

static int put_field(struct kix_proto_writer *w, const struct kix_msg_field *f, const void *base)
{
    const void *v = (const char *)base + f->off;
    size_t n = f->kind >= KIX_MSG_PROOF && f->kind <= KIX_MSG_LIST ? *CAT(base, f->aux, size_t) : 0;
    char keyid[64];

    switch (f->kind) {
    case KIX_MSG_U64:
        return kix_proto_put_u64(w, *(const uint64_t *)v);
    case KIX_MSG_I64:
        return kix_proto_put_i64(w, *(const int64_t *)v);
    case KIX_MSG_BOOL:
        return kix_proto_put_bool(w, *(const bool *)v);
    case KIX_MSG_STR:
    case KIX_MSG_BIN:
        return put_bytes(w, f->kind == KIX_MSG_BIN, v);
    case KIX_MSG_HASH:
        return kix_proto_put_bin(w, v, 32);
    case KIX_MSG_DIGEST:
        return put_digest(w, v);
    case KIX_MSG_KEYID:
        hex32(v, keyid);
        return kix_proto_put_str(w, keyid, sizeof(keyid));
    case KIX_MSG_PROOF:
        kix_proto_put_array(w, n);
        for (size_t i = 0; i < n; i++)
            kix_proto_put_bin(w, (const uint8_t(*)[32])v + i, 32);
        return w->rc;
    case KIX_MSG_BINS: {
        const struct kix_bytes *a = *(const struct kix_bytes *const *)v;
        kix_proto_put_array(w, n);
        for (size_t i = 0; i < n; i++) {
            if (!a[i].ptr && (f->flags & KIX_MSG_NIL))
                kix_proto_put_nil(w);
            else
                put_bytes(w, true, &a[i]);
        }
        return w->rc;
    }
    case KIX_MSG_DIGESTS: {
        const uint8_t(*d)[32] = *(const uint8_t(*const *)[32])v;
        kix_proto_put_array(w, n);
        for (size_t i = 0; i < n; i++)
            put_digest(w, d[i]);
        return w->rc;
    }
    case KIX_MSG_LIST: {
        const char *a = *(const char *const *)v;
        kix_proto_put_array(w, n);
        for (size_t i = 0; i < n; i++)
            encode_at(w, f->sub, a + i * f->sub->size);
        return w->rc;
    }
    case KIX_MSG_MAP:
        return encode_at(w, f->sub, v);
    default:
        return w->rc;
    }
}

static int encode_at(struct kix_proto_writer *w, const struct kix_msg_table *t, const void *base)
{
    size_t n = 0;

    for (size_t i = 0; i < t->nfields; i++)
        n += written(&t->fields[i], base);
    kix_proto_put_map(w, n);
    for (size_t i = 0; i < t->nfields; i++) {
        const struct kix_msg_field *f = &t->fields[i];
        if (!written(f, base))
            continue;
        kix_proto_put_key(w, f->name);
        put_field(w, f, base);
    }
    return w->rc;
}

int kix_msg_encode(struct kix_proto_writer *w, const struct kix_msg_table *t, const void *in)
{
    return encode_at(w, t, in);
}

/* ---- decoding ----------------------------------------------------------------------- */

/* Absent values: 0, except an optional u64's KIX_MSG_ABSENT. */
static void clear_at(const struct kix_msg_table *t, void *base)
{
    for (size_t i = 0; i < t->nfields; i++) {
        const struct kix_msg_field *f = &t->fields[i];
        if (f->kind == KIX_MSG_U64 && (f->flags & KIX_MSG_OPT) && !(f->flags & KIX_MSG_ZERO))
            *AT(base, f->off, uint64_t) = KIX_MSG_ABSENT;
        else if (f->kind == KIX_MSG_MAP)
            clear_at(f->sub, (char *)base + f->off);
    }
}

struct dec {
    const size_t *max;
    void **owned;
    void *scratch; /* a chain when the struct keeps none */
};

static int decode_at(struct dec *d, const struct kix_proto_map *m, const struct kix_msg_table *t,
                     void *base, struct kix_err *err);

/* An array field's count, bounded. */
static int bounded(struct dec *d, const struct kix_msg_field *f, size_t n, struct kix_err *err)
{
    size_t max = f->max_arg ? d->max[f->max_arg - 1] : (size_t)f->max;

    if (n < f->min)
        return kix_err_set(err, KIX_EINVAL, "field \"%s\" is empty; send %llu to %zu", f->name,
                           (unsigned long long)f->min, max);
    if ((f->max || f->max_arg) && n > max) {
        if (f->flags & KIX_MSG_LIMIT)
            return kix_err_set(err, KIX_ELIMIT, "%zu %s, over the limit of %zu", n, f->noun, max);
        return kix_err_set(err, KIX_EINVAL, "field \"%s\": %zu elements, over the limit of %zu",
                           f->name, n, max);
    }
    return KIX_OK;
}

static int bytes_bounds(const struct kix_msg_field *f, const struct kix_bytes *b,
                        struct kix_err *err)
{
    if (f->flags & KIX_MSG_TEXT) {
        if (b->len > f->max || memchr(b->ptr, 0, b->len))
            return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be under %llu bytes", f->name,
                               (unsigned long long)f->max + 1);
        return KIX_OK;
    }
    if (b->len < f->min || (f->max && b->len > f->max))
        return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be %llu to %llu bytes, not %zu",
                           f->name, (unsigned long long)f->min, (unsigned long long)f->max, b->len);
    return KIX_OK;
}

/* Each element of array a through one reader; errors name "name[i]". */
static int each(const struct kix_msg_field *f, const struct kix_proto_array *a, size_t n,
                int (*fn)(const struct kix_msg_field *, const struct kix_proto_value *, void *,
                          size_t, struct dec *, struct kix_err *),
                void *out, struct dec *d, struct kix_err *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = fn(f, kix_proto_array_at(a, i), out, i, d, err);
        if (rc) {
            kix_err_wrap(err, "%s[%zu]", f->name, i);
            return rc;
        }
    }
    return KIX_OK;
}

static int elem_hash(const struct kix_msg_field *f, const struct kix_proto_value *v, void *out,
                     size_t i, struct dec *d, struct kix_err *err)
{
    (void)f, (void)d;
    return value_hash(v, ((uint8_t(*)[32])out)[i], err);
}

static int elem_digest(const struct kix_msg_field *f, const struct kix_proto_value *v, void *out,
                       size_t i, struct dec *d, struct kix_err *err)
{
    (void)f, (void)d;
    return value_digest(v, ((uint8_t(*)[32])out)[i], err);
}

static int elem_bin(const struct kix_msg_field *f, const struct kix_proto_value *v, void *out,
                    size_t i, struct dec *d, struct kix_err *err)
{
    struct kix_bytes *b = (struct kix_bytes *)out + i;
    int rc;

    (void)d;
    if ((f->flags & KIX_MSG_NIL) && kix_proto_value_is_nil(v))
        return KIX_OK; /* ptr stays NULL */
    rc = kix_proto_value_bin(v, b, err);
    if (rc == KIX_OK && !b->ptr && (f->flags & KIX_MSG_NIL))
        b->ptr = (const uint8_t *)""; /* present, empty */
    return rc;
}

static int elem_map(const struct kix_msg_field *f, const struct kix_proto_value *v, void *out,
                    size_t i, struct dec *d, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = kix_proto_value_map(v, &m, err);
    return rc ? rc : decode_at(d, m, f->sub, (char *)out + i * f->sub->size, err);
}

static int read_array(struct dec *d, const struct kix_msg_field *f, const struct kix_proto_map *m,
                      void *base, struct kix_err *err)
{
    const struct kix_proto_array *a;
    size_t n, size;
    void *out = NULL;
    int rc = kix_proto_map_get_array(m, f->name, &a, &n, err);

    if (rc)
        return rc;
    rc = bounded(d, f, n, err);
    if (rc)
        return rc;
    switch (f->kind) {
    case KIX_MSG_PROOF:
        rc = each(f, a, n, elem_hash, AT(base, f->off, void), d, err);
        break;
    default:
        size = f->kind == KIX_MSG_LIST   ? f->sub->size
               : f->kind == KIX_MSG_BINS ? sizeof(struct kix_bytes)
                                         : 32;
        rc = alloc_array(d->owned, n, size, &out, err);
        if (rc == KIX_OK)
            rc = each(f, a, n,
                      f->kind == KIX_MSG_LIST   ? elem_map
                      : f->kind == KIX_MSG_BINS ? elem_bin
                                                : elem_digest,
                      out, d, err);
        if (rc == KIX_OK)
            *AT(base, f->off, void *) = out;
        break;
    }
    if (rc == KIX_OK)
        *AT(base, f->aux, size_t) = n;
    return rc;
}

static int read_field(struct dec *d, const struct kix_msg_field *f, const struct kix_proto_map *m,
                      void *base, struct kix_err *err)
{
    void *v = (char *)base + f->off;
    const struct kix_proto_value *val;
    const struct kix_proto_map *sub;
    struct kix_bytes t;
    int rc;

    switch (f->kind) {
    case KIX_MSG_U64:
        rc = kix_proto_map_get_u64(m, f->name, v, err);
        if (rc == KIX_OK && (f->flags & KIX_MSG_OPT) && *(uint64_t *)v == KIX_MSG_ABSENT)
            /* never read as "not given" (latest, all) */
            return kix_err_set(err, KIX_EINVAL,
                               "field \"%s\": 18446744073709551615 (2^64-1) is out of range; "
                               "leave the field out instead",
                               f->name);
        if (rc == KIX_OK && *(uint64_t *)v < f->min)
            return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be at least %llu", f->name,
                               (unsigned long long)f->min);
        return rc;
    case KIX_MSG_I64:
        rc = kix_proto_map_get_i64(m, f->name, v, err);
        if (rc == KIX_OK && (f->flags & KIX_MSG_NEG) &&
            (*(int64_t *)v >= 0 || *(int64_t *)v < INT_MIN))
            return kix_err_set(err, KIX_EINVAL, "field \"%s\" must be a negative error code",
                               f->name);
        return rc;
    case KIX_MSG_BOOL:
        return kix_proto_map_get_bool(m, f->name, v, err);
    case KIX_MSG_FLAG:
        rc = kix_proto_map_get(m, f->name, &val, err);
        *(bool *)v = rc == KIX_OK;
        return rc;
    case KIX_MSG_STR:
    case KIX_MSG_BIN:
        rc = f->kind == KIX_MSG_STR ? kix_proto_map_get_str(m, f->name, v, err)
                                    : kix_proto_map_get_bin(m, f->name, v, err);
        return rc ? rc : bytes_bounds(f, v, err);
    case KIX_MSG_HASH:
        rc = kix_proto_map_get(m, f->name, &val, err);
        if (rc)
            return rc;
        rc = value_hash(val, v, err);
        break;
    case KIX_MSG_DIGEST:
        rc = kix_proto_map_get_str(m, f->name, &t, err);
        if (rc)
            return rc;
        rc = digest_parse(&t, v, err);
        break;
    case KIX_MSG_KEYID:
        rc = kix_proto_map_get_str(m, f->name, &t, err);
        if (rc == KIX_OK && (t.len != 64 || hex32_parse(t.ptr, v) != 0))
            return kix_err_set(err, KIX_EINVAL, "field \"%s\": expected 64 lowercase hex digits",
                               f->name);
        return rc;
    case KIX_MSG_MAP:
        rc = kix_proto_map_get_map(m, f->name, &sub, err);
        if (rc)
            return rc;
        rc = decode_at(d, sub, f->sub, v, err);
        break;
    default:
        return read_array(d, f, m, base, err);
    }
    if (rc == KIX_ENOTFOUND) /* inside: a missing field of the map */
        rc = KIX_EINVAL;
    if (rc)
        kix_err_wrap(err, "field \"%s\"", f->name);
    return rc;
}

/* Marks an optional field as present (its bool, for the kinds that have one). */
static void mark_present(const struct kix_msg_field *f, void *base)
{
    if ((f->kind == KIX_MSG_HASH || f->kind == KIX_MSG_DIGEST || f->kind == KIX_MSG_MAP) &&
        f->aux != KIX_MSG_NO_AUX)
        *AT(base, f->aux, bool) = true;
}

static int decode_at(struct dec *d, const struct kix_proto_map *m, const struct kix_msg_table *t,
                     void *base, struct kix_err *err)
{
    for (size_t i = 0; i < t->nfields; i++) {
        const struct kix_msg_field *f = &t->fields[i];
        int rc;

        if (!holds(f, base))
            continue;
        rc = read_field(d, f, m, base, err);
        if (rc == KIX_ENOTFOUND) {
            if (f->kind == KIX_MSG_FLAG || (f->flags & KIX_MSG_OPT))
                continue;
            if (err)
                err->code = KIX_EINVAL; /* "missing field" is set */
            return KIX_EINVAL;
        }
        if (rc)
            return rc;
        mark_present(f, base);
    }
    return KIX_OK;
}

int kix_msg_decode(const struct kix_proto_map *m, const struct kix_msg_table *t, const size_t *max,
                   void *out, struct kix_err *err)
{
    struct dec d = {max, NULL, NULL};
    int rc;

    memset(out, 0, t->size);
    clear_at(t, out);
    d.owned = t->owned != KIX_MSG_NO_AUX ? AT(out, t->owned, void *) : &d.scratch;
    rc = decode_at(&d, m, t, out, err);
    kix_msg_free(d.scratch);           /* a message without arrays allocates nothing */
    if (rc && d.owned != &d.scratch) { /* a refused message holds nothing */
        kix_msg_free(*d.owned);
        *d.owned = NULL;
    }
    return rc;
}

int kix_msg_decode_result(const struct kix_proto_value *v, const struct kix_msg_table *t,
                          const size_t *max, void *out, struct kix_err *err)
{
    const struct kix_proto_map *m;
    int rc = kix_proto_value_map(v, &m, err);

    if (rc) {
        memset(out, 0, t->size);
        kix_err_wrap(err, "result");
    } else {
        rc = kix_msg_decode(m, t, max, out, err);
    }
    /* a result's faults are the peer's: EPROTO */
    if (rc == KIX_OK || rc == KIX_ENOMEM)
        return rc;
    if (err)
        err->code = KIX_EPROTO;
    return KIX_EPROTO;
}

const struct kix_msg_method *kix_msg_method_find(const char *name, size_t len)
{
    for (size_t i = 0; i < kix_msg_nmethods; i++)
        if (strlen(kix_msg_methods[i].name) == len &&
            memcmp(kix_msg_methods[i].name, name, len) == 0)
            return &kix_msg_methods[i];
    return NULL;
}

/* ---- the functions of kix/messages.h: the codec over one table each ---------------------- */

#include "message_table.h"

void kix_msg_limits_init(struct kix_msg_limits *l)
{
    clear_at(&kix_msg_limits_table, l);
}

void kix_msg_info_init(struct kix_msg_info *m)
{
    memset(m, 0, sizeof(*m));
    clear_at(&kix_msg_info_table, m);
}

void kix_msg_query_params_init(struct kix_msg_query_params *p)
{
    memset(p, 0, sizeof(*p));
    clear_at(&kix_msg_query_params_table, p);
}

#define PUT(fn, type, table)                                                                       \
    int kix_msg_put_##fn(struct kix_proto_writer *w, const type *p)                                \
    {                                                                                              \
        return kix_msg_encode(w, &(table), p);                                                     \
    }
/* params: the server's side (EINVAL, ELIMIT) */
#define GET_PARAMS(fn, type, table)                                                                \
    int kix_msg_get_##fn(const struct kix_proto_map *m, type *out, struct kix_err *err)            \
    {                                                                                              \
        return kix_msg_decode(m, &(table), NULL, out, err);                                        \
    }
#define GET_PARAMS_MAX(fn, type, table)                                                            \
    int kix_msg_get_##fn(const struct kix_proto_map *m, size_t max, type *out,                     \
                         struct kix_err *err)                                                      \
    {                                                                                              \
        return kix_msg_decode(m, &(table), &max, out, err);                                        \
    }
/* results: the client's side (EPROTO) */
#define GET_RESULT(fn, type, table)                                                                \
    int kix_msg_get_##fn(const struct kix_proto_value *v, type *out, struct kix_err *err)          \
    {                                                                                              \
        return kix_msg_decode_result(v, &(table), NULL, out, err);                                 \
    }
#define GET_RESULT_MAX(fn, type, table)                                                            \
    int kix_msg_get_##fn(const struct kix_proto_value *v, size_t max, type *out,                   \
                         struct kix_err *err)                                                      \
    {                                                                                              \
        return kix_msg_decode_result(v, &(table), &max, out, err);                                 \
    }

PUT(info_result, struct kix_msg_info, kix_msg_info_table)
GET_RESULT(info_result, struct kix_msg_info, kix_msg_info_table)

PUT(submit_params, struct kix_msg_submit_params, kix_msg_submit_params_table)
GET_PARAMS_MAX(submit_params, struct kix_msg_submit_params, kix_msg_submit_params_table)
PUT(submit_result, struct kix_msg_submit_result, kix_msg_submit_result_table)
GET_RESULT_MAX(submit_result, struct kix_msg_submit_result, kix_msg_submit_result_table)

PUT(get_object_params, struct kix_msg_get_object_params, kix_msg_get_object_params_table)
GET_PARAMS(get_object_params, struct kix_msg_get_object_params, kix_msg_get_object_params_table)
PUT(get_object_result, struct kix_msg_get_object_result, kix_msg_get_object_result_table)
GET_RESULT(get_object_result, struct kix_msg_get_object_result, kix_msg_get_object_result_table)

PUT(get_objects_params, struct kix_msg_get_objects_params, kix_msg_get_objects_params_table)
GET_PARAMS_MAX(get_objects_params, struct kix_msg_get_objects_params,
               kix_msg_get_objects_params_table)
PUT(get_objects_result, struct kix_msg_get_objects_result, kix_msg_get_objects_result_table)
GET_RESULT_MAX(get_objects_result, struct kix_msg_get_objects_result,
               kix_msg_get_objects_result_table)

PUT(get_entries_params, struct kix_msg_get_entries_params, kix_msg_get_entries_params_table)
GET_PARAMS(get_entries_params, struct kix_msg_get_entries_params, kix_msg_get_entries_params_table)
PUT(get_entries_result, struct kix_msg_entries, kix_msg_entries_table)
GET_RESULT_MAX(get_entries_result, struct kix_msg_entries, kix_msg_entries_table)
PUT(entries_notification, struct kix_msg_entries, kix_msg_entries_notification_table)

/* a notification comes from the server: its faults are EPROTO */
int kix_msg_get_entries_notification(const struct kix_proto_map *m, size_t max,
                                     struct kix_msg_entries *out, struct kix_err *err)
{
    int rc = kix_msg_decode(m, &kix_msg_entries_notification_table, &max, out, err);
    if (rc == KIX_OK || rc == KIX_ENOMEM)
        return rc;
    if (err)
        err->code = KIX_EPROTO;
    return KIX_EPROTO;
}

PUT(checkpoint_params, struct kix_msg_checkpoint_params, kix_msg_checkpoint_params_table)
GET_PARAMS(checkpoint_params, struct kix_msg_checkpoint_params, kix_msg_checkpoint_params_table)
PUT(checkpoint_result, struct kix_msg_checkpoint_result, kix_msg_checkpoint_result_table)
GET_RESULT(checkpoint_result, struct kix_msg_checkpoint_result, kix_msg_checkpoint_result_table)

PUT(index_params, struct kix_msg_index_params, kix_msg_index_params_table)
GET_PARAMS(index_params, struct kix_msg_index_params, kix_msg_index_params_table)
PUT(inclusion_result, struct kix_msg_inclusion_result, kix_msg_inclusion_result_table)
GET_RESULT(inclusion_result, struct kix_msg_inclusion_result, kix_msg_inclusion_result_table)
PUT(consistency_params, struct kix_msg_consistency_params, kix_msg_consistency_params_table)
GET_PARAMS(consistency_params, struct kix_msg_consistency_params, kix_msg_consistency_params_table)
PUT(consistency_result, struct kix_msg_consistency_result, kix_msg_consistency_result_table)
GET_RESULT(consistency_result, struct kix_msg_consistency_result, kix_msg_consistency_result_table)
PUT(receipt_result, struct kix_msg_receipt_result, kix_msg_receipt_result_table)
GET_RESULT(receipt_result, struct kix_msg_receipt_result, kix_msg_receipt_result_table)

PUT(resolve_params, struct kix_msg_resolve_params, kix_msg_resolve_params_table)
GET_PARAMS(resolve_params, struct kix_msg_resolve_params, kix_msg_resolve_params_table)
PUT(resolve_result, struct kix_msg_resolve_result, kix_msg_resolve_result_table)

int kix_msg_get_resolve_result(const struct kix_proto_value *v, size_t max_objects,
                               size_t max_entries, struct kix_msg_resolve_result *out,
                               struct kix_err *err)
{
    const size_t max[2] = {max_objects, max_entries};
    return kix_msg_decode_result(v, &kix_msg_resolve_result_table, max, out, err);
}

PUT(vindex_params, struct kix_msg_vindex_params, kix_msg_vindex_params_table)
GET_PARAMS(vindex_params, struct kix_msg_vindex_params, kix_msg_vindex_params_table)
PUT(vindex_result, struct kix_msg_vindex_result, kix_msg_vindex_result_table)
GET_RESULT(vindex_result, struct kix_msg_vindex_result, kix_msg_vindex_result_table)

PUT(checkpoints_params, struct kix_msg_checkpoints_params, kix_msg_checkpoints_params_table)
GET_PARAMS(checkpoints_params, struct kix_msg_checkpoints_params, kix_msg_checkpoints_params_table)
PUT(checkpoints_result, struct kix_msg_checkpoints_result, kix_msg_checkpoints_result_table)
GET_RESULT_MAX(checkpoints_result, struct kix_msg_checkpoints_result,
               kix_msg_checkpoints_result_table)

PUT(query_params, struct kix_msg_query_params, kix_msg_query_params_table)
GET_PARAMS(query_params, struct kix_msg_query_params, kix_msg_query_params_table)
PUT(query_result, struct kix_msg_query_result, kix_msg_query_result_table)
GET_RESULT_MAX(query_result, struct kix_msg_query_result, kix_msg_query_result_table)

PUT(follow_params, struct kix_msg_follow_params, kix_msg_follow_params_table)
GET_PARAMS(follow_params, struct kix_msg_follow_params, kix_msg_follow_params_table)
PUT(follow_result, struct kix_msg_size_result, kix_msg_size_result_table)
GET_RESULT(follow_result, struct kix_msg_size_result, kix_msg_size_result_table)
PUT(replicated_params, struct kix_msg_replicated_params, kix_msg_replicated_params_table)
GET_PARAMS(replicated_params, struct kix_msg_replicated_params, kix_msg_replicated_params_table)

PUT(add_cosignature_params, struct kix_msg_add_cosignature_params,
    kix_msg_add_cosignature_params_table)
GET_PARAMS(add_cosignature_params, struct kix_msg_add_cosignature_params,
           kix_msg_add_cosignature_params_table)
PUT(add_cosignature_result, struct kix_msg_add_cosignature_result,
    kix_msg_add_cosignature_result_table)
GET_RESULT(add_cosignature_result, struct kix_msg_add_cosignature_result,
           kix_msg_add_cosignature_result_table)
