/* in-toto Statement v1: canonical building with one subject, strict parsing. */
#include "kix/dsse.h"

#include <jansson.h>
#include <sodium.h>
#include <stdatomic.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/json.h"
#include "kix/canon.h"
#include "memo_internal.h"

void kix_statement_init(struct kix_statement *st)
{
    st->n_subjects = 0;
    st->predicate_type[0] = '\0';
    st->predicate_type_len = 0;
    kix_buf_init(&st->predicate);
    kix_buf_init(&st->names);
}

void kix_statement_release(struct kix_statement *st)
{
    kix_buf_release(&st->predicate);
    kix_buf_release(&st->names);
    kix_statement_init(st);
}

/* Strict lowercase hex of exactly 64 characters into 32 bytes. */
static int sha256_hex_decode(const char *hex, size_t len, uint8_t out[32])
{
    if (len != 64)
        return KIX_EINVAL;
    for (size_t i = 0; i < 32; i++) {
        int v = 0;
        for (size_t j = 0; j < 2; j++) {
            char c = hex[2 * i + j];
            int d;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
            else
                return KIX_EINVAL;
            v = v * 16 + d;
        }
        out[i] = (uint8_t)v;
    }
    return KIX_OK;
}

static int check_name(size_t len, struct kix_err *err)
{
    if (len == 0)
        return kix_err_set(err, KIX_EINVAL, "statement subject name is empty");
    if (len > KIX_STATEMENT_MAX_NAME)
        return kix_err_set(err, KIX_ELIMIT,
                           "statement subject name is %zu bytes, over the %u-byte limit", len,
                           KIX_STATEMENT_MAX_NAME);
    return KIX_OK;
}

static int check_predicate_type(size_t len, struct kix_err *err)
{
    if (len == 0)
        return kix_err_set(err, KIX_EINVAL, "statement predicateType is empty");
    if (len > KIX_STATEMENT_MAX_PREDICATE_TYPE)
        return kix_err_set(err, KIX_ELIMIT,
                           "statement predicateType is %zu bytes, over the %u-byte limit", len,
                           KIX_STATEMENT_MAX_PREDICATE_TYPE);
    return KIX_OK;
}

/* ---- building ----------------------------------------------------------- */

int kix_statement_build(const char *subject_name, const uint8_t digest[32],
                        const char *predicate_type, const char *predicate_json,
                        size_t predicate_len, struct kix_buf *out, struct kix_err *err)
{
    size_t name_len = strlen(subject_name), type_len = strlen(predicate_type);
    size_t start = out->len;
    char hex[65];
    json_error_t jerr;
    json_t *pred;
    const char *nul;
    int rc;

    if ((rc = check_name(name_len, err)))
        return rc;
    if (!kix_utf8_valid(subject_name, name_len))
        return kix_err_set(err, KIX_EINVAL, "statement subject name is not valid UTF-8");
    if ((rc = check_predicate_type(type_len, err)))
        return rc;
    if (!kix_utf8_valid(predicate_type, type_len))
        return kix_err_set(err, KIX_EINVAL, "statement predicateType is not valid UTF-8");
    if (predicate_len > KIX_STATEMENT_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT,
                           "statement predicate is %zu bytes, over the %u-byte statement limit",
                           predicate_len, KIX_STATEMENT_MAX_BYTES);
    /* Canonical JSON has no whitespace around the object. */
    if (predicate_len < 2 || predicate_json[0] != '{' || predicate_json[predicate_len - 1] != '}')
        return kix_err_set(err, KIX_EINVAL,
                           "statement predicate must be canonical JSON of an object (starting "
                           "with '{' and ending with '}'); canonicalize it with kix_canon first");
    /* JSON text never holds a raw NUL; jansson 2.14 skips one after a number. */
    nul = memchr(predicate_json, '\0', predicate_len);
    if (nul)
        return kix_err_set(err, KIX_EINVAL, "statement predicate has a NUL byte at byte %zu",
                           (size_t)(nul - predicate_json));
    pred = json_loadb(predicate_json, predicate_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!pred)
        return kix_err_set(err, KIX_EINVAL, "statement predicate is not valid JSON at byte %d: %s",
                           jerr.position, jerr.text);
    rc = json_is_object(pred) ? KIX_OK : KIX_EINVAL;
    json_decref(pred);
    if (rc)
        return kix_err_set(err, rc, "statement predicate is not a JSON object");

    sodium_bin2hex(hex, sizeof(hex), digest, 32);
    rc = kix_buf_grow(out, 160 + predicate_len + type_len + name_len);
    if (rc == KIX_OK &&
        ((rc = kix_buf_adds(out, "{\"_type\":\"" KIX_STATEMENT_TYPE "\",\"predicate\":")) ||
         (rc = kix_buf_add(out, predicate_json, predicate_len)) ||
         (rc = kix_buf_adds(out, ",\"predicateType\":")) ||
         (rc = kix_canon_string(predicate_type, type_len, out)) ||
         (rc = kix_buf_adds(out, ",\"subject\":[{\"digest\":{\"sha256\":\"")) ||
         (rc = kix_buf_add(out, hex, 64)) || (rc = kix_buf_adds(out, "\"},\"name\":")) ||
         (rc = kix_canon_string(subject_name, name_len, out)) || (rc = kix_buf_adds(out, "}]}"))))
        kix_err_set(err, rc, "out of memory building a statement");
    if (rc == KIX_OK && out->len - start > KIX_STATEMENT_MAX_BYTES)
        rc = kix_err_set(err, KIX_ELIMIT, "statement would be %zu bytes, over the %u-byte limit",
                         out->len - start, KIX_STATEMENT_MAX_BYTES);
    if (rc) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return rc;
}

/* ---- parsing ------------------------------------------------------------ */

static int parse_subject(json_t *js, size_t i, struct kix_statement_subject *sub, json_t **name_out,
                         struct kix_err *err)
{
    const char *key;
    json_t *val, *jname, *jdigest, *jsha;
    size_t n;

    if (!json_is_object(js))
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu] is not an object", i);
    json_object_foreach(js, key, val)
    {
        if (strcmp(key, "name") != 0 && strcmp(key, "digest") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "statement subject[%zu] has unknown field \"%.64s\"; only name "
                               "and digest are allowed",
                               i, key);
    }
    jname = json_object_get(js, "name");
    if (!jname)
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu] has no name", i);
    if (!json_is_string(jname))
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu].name is not a string", i);
    n = json_string_length(jname);
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu].name is empty", i);
    if (n > KIX_STATEMENT_MAX_NAME)
        return kix_err_set(err, KIX_ELIMIT,
                           "statement subject[%zu].name is %zu bytes, over the %u-byte limit", i, n,
                           KIX_STATEMENT_MAX_NAME);
    *name_out = jname;

    jdigest = json_object_get(js, "digest");
    if (!jdigest)
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu] has no digest", i);
    if (!json_is_object(jdigest))
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu].digest is not an object", i);
    json_object_foreach(jdigest, key, val)
    {
        if (strcmp(key, "sha256") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "statement subject[%zu].digest has unknown algorithm \"%.64s\"; "
                               "kix digests are sha256 only",
                               i, key);
    }
    jsha = json_object_get(jdigest, "sha256");
    if (!jsha)
        return kix_err_set(err, KIX_EINVAL, "statement subject[%zu].digest has no sha256", i);
    if (!json_is_string(jsha) ||
        sha256_hex_decode(json_string_value(jsha), json_string_length(jsha), sub->sha256))
        return kix_err_set(err, KIX_EINVAL,
                           "statement subject[%zu].digest.sha256 is not 64 lowercase hex digits",
                           i);
    return KIX_OK;
}

static int dump_cb(const char *buffer, size_t size, void *data)
{
    return kix_buf_add(data, buffer, size) ? -1 : 0;
}

static int parse_root(json_t *root, struct kix_statement *st, json_t **pred_out,
                      struct kix_err *err)
{
    json_t *names[KIX_STATEMENT_MAX_SUBJECTS];
    const char *key;
    json_t *val, *jtype, *jsubs, *jptype, *jpred;
    size_t n, total = 0;
    int rc;

    if (!json_is_object(root))
        return kix_err_set(err, KIX_EINVAL, "statement is not a JSON object");
    json_object_foreach(root, key, val)
    {
        if (strcmp(key, "_type") != 0 && strcmp(key, "subject") != 0 &&
            strcmp(key, "predicateType") != 0 && strcmp(key, "predicate") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "statement has unknown field \"%.64s\"; only _type, subject, "
                               "predicateType and predicate are allowed",
                               key);
    }

    jtype = json_object_get(root, "_type");
    if (!jtype)
        return kix_err_set(err, KIX_EINVAL, "statement has no _type");
    if (!json_is_string(jtype) || strcmp(json_string_value(jtype), KIX_STATEMENT_TYPE) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "statement _type is not \"" KIX_STATEMENT_TYPE
                           "\"; only in-toto Statement v1 is accepted");

    jsubs = json_object_get(root, "subject");
    if (!jsubs)
        return kix_err_set(err, KIX_EINVAL, "statement has no subject");
    if (!json_is_array(jsubs))
        return kix_err_set(err, KIX_EINVAL, "statement subject is not an array");
    n = json_array_size(jsubs);
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "statement subject is empty; name at least one");
    if (n > KIX_STATEMENT_MAX_SUBJECTS)
        return kix_err_set(err, KIX_ELIMIT,
                           "statement subject has %zu entries, over the limit of %u", n,
                           KIX_STATEMENT_MAX_SUBJECTS);
    for (size_t i = 0; i < n; i++) {
        rc = parse_subject(json_array_get(jsubs, i), i, &st->subjects[i], &names[i], err);
        if (rc)
            return rc;
        total += json_string_length(names[i]) + 1;
    }

    jptype = json_object_get(root, "predicateType");
    if (!jptype)
        return kix_err_set(err, KIX_EINVAL, "statement has no predicateType");
    if (!json_is_string(jptype))
        return kix_err_set(err, KIX_EINVAL, "statement predicateType is not a string");
    rc = check_predicate_type(json_string_length(jptype), err);
    if (rc)
        return rc;

    jpred = json_object_get(root, "predicate");
    if (!jpred)
        return kix_err_set(err, KIX_EINVAL, "statement has no predicate");
    if (!json_is_object(jpred))
        return kix_err_set(err, KIX_EINVAL, "statement predicate is not a JSON object");

    /* Everything is valid: copy out. The names share one allocation, sized
     * first so the pointers into it stay put. */
    if (kix_buf_grow(&st->names, total) ||
        (!pred_out &&
         json_dump_callback(jpred, dump_cb, &st->predicate, JSON_COMPACT | JSON_SORT_KEYS) != 0))
        return kix_err_set(err, KIX_ENOMEM, "out of memory copying a statement");
    if (pred_out)
        *pred_out = json_incref(jpred);
    for (size_t i = 0; i < n; i++) {
        size_t len = json_string_length(names[i]);
        char *dst = (char *)st->names.ptr + st->names.len;

        memcpy(dst, json_string_value(names[i]), len);
        dst[len] = '\0';
        st->names.len += len + 1;
        st->subjects[i].name = dst;
        st->subjects[i].name_len = len;
    }
    st->n_subjects = n;
    n = json_string_length(jptype);
    memcpy(st->predicate_type, json_string_value(jptype), n);
    st->predicate_type[n] = '\0';
    st->predicate_type_len = n;
    return KIX_OK;
}

static atomic_uint_fast64_t jansson_parses;

uint64_t kix_statement_jansson_parses(void)
{
    return (uint64_t)atomic_load_explicit(&jansson_parses, memory_order_relaxed);
}

int kix_statement_parse_tree(const uint8_t *json, size_t len, struct kix_statement *st,
                             json_t **predicate, struct kix_err *err)
{
    json_error_t jerr;
    json_t *root;
    const uint8_t *nul;
    int rc;

    kix_statement_init(st);
    if (predicate)
        *predicate = NULL;
    if (len > KIX_STATEMENT_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT, "statement is %zu bytes, over the %u-byte limit", len,
                           KIX_STATEMENT_MAX_BYTES);
    /* JSON text never holds a raw NUL; jansson 2.14 skips one after a number. */
    nul = memchr(json, '\0', len);
    if (nul)
        return kix_err_set(err, KIX_EINVAL, "statement is not valid JSON: NUL byte at byte %zu",
                           (size_t)(nul - json));
    /* a canonical statement (what kix_statement_build writes, and what
     * PROTOCOL.md asks of clients) gets its tree in one pass without
     * jansson's parser; the rest, and canonical bytes jansson reads
     * otherwise (a \u0000 escape, an integer of 19 digits or more), go
     * through that parser, its errors */
    root = kix__json_tree_canonical(json, len);
    if (!root) {
        atomic_fetch_add_explicit(&jansson_parses, 1, memory_order_relaxed);
        root = json_loadb((const char *)json, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!root)
            return kix_err_set(err, KIX_EINVAL, "statement is not valid JSON at byte %d: %s",
                               jerr.position, jerr.text);
    }
    rc = parse_root(root, st, predicate, err);
    json_decref(root);
    if (rc)
        kix_statement_release(st);
    return rc;
}

int kix_statement_parse(const uint8_t *json, size_t len, struct kix_statement *st,
                        struct kix_err *err)
{
    return kix_statement_parse_tree(json, len, st, NULL, err);
}
