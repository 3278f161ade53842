/* The JSON body of an HTTP submission (kix/submit_body.h). */
#include "kix/submit_body.h"

#include <stdlib.h>
#include <string.h>

#include "kix/json.h"

/* the parser's own ceiling; kixd bounds a body by --max-message before it
 * gets here */
#define BODY_MAX ((size_t)80 << 20)

void kix_submit_body_init(struct kix_submit_body *b)
{
    memset(b, 0, sizeof(*b));
}

void kix_submit_body_release(struct kix_submit_body *b)
{
    for (size_t i = 0; b->bundles && i < b->n; i++) {
        struct kix_submit_bundle *s = &b->bundles[i];
        kix_buf_release(&s->envelope);
        for (size_t j = 0; j < s->nobjects; j++)
            kix_buf_release(&s->objects[j]);
        free(s->objects);
    }
    free(b->bundles);
    kix_submit_body_init(b);
}

static int only_members(const json_t *o, const char *where, struct kix_err *err)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)o, key, v)
    {
        (void)v;
        if (strcmp(key, "envelope") != 0 && strcmp(key, "objects") != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "%s/%s: is not a member of a submission (known: envelope, objects)",
                               where, key);
    }
    return KIX_OK;
}

static int canonical(const json_t *v, struct kix_buf *out, const char *where, struct kix_err *err)
{
    kix_buf_init(out);
    if (kix_canon_write_tree(v, out))
        return kix_err_set(err, KIX_ENOMEM, "%s: out of memory", where);
    return KIX_OK;
}

static int parse_bundle(const json_t *o, const char *where, struct kix_submit_bundle *s,
                        struct kix_err *err)
{
    const json_t *env = json_object_get(o, "envelope"), *objs = json_object_get(o, "objects");
    char at[64];
    int rc;

    if (!json_is_object(o))
        return kix_err_set(err, KIX_EINVAL, "%s: must be an object {envelope, objects}",
                           *where ? where : "/");
    rc = only_members(o, where, err);
    if (rc)
        return rc;
    if (!json_is_object(env))
        return kix_err_set(err, KIX_EINVAL, "%s/envelope: %s", where,
                           env ? "must be a DSSE envelope (a JSON object)" : "is required");
    if (objs && !json_is_array(objs))
        return kix_err_set(err, KIX_EINVAL, "%s/objects: must be an array of JSON objects", where);
    if (objs && json_array_size(objs) > KIX_SUBMIT_MAX_OBJECTS)
        return kix_err_set(err, KIX_ELIMIT, "%s/objects: %zu objects, more than the %u allowed",
                           where, json_array_size(objs), KIX_SUBMIT_MAX_OBJECTS);
    snprintf(at, sizeof(at), "%s/envelope", where);
    rc = canonical(env, &s->envelope, at, err);
    if (rc)
        return rc;
    if (!objs || json_array_size(objs) == 0)
        return KIX_OK;
    s->objects = calloc(json_array_size(objs), sizeof(*s->objects));
    if (!s->objects)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t j = 0; j < json_array_size(objs); j++) {
        const json_t *ob = json_array_get(objs, j);
        snprintf(at, sizeof(at), "%s/objects/%zu", where, j);
        if (!json_is_object(ob))
            return kix_err_set(err, KIX_EINVAL, "%s: must be a JSON object", at);
        rc = canonical(ob, &s->objects[j], at, err);
        s->nobjects = j + 1;
        if (rc)
            return rc;
    }
    return KIX_OK;
}

int kix_submit_body_parse(const uint8_t *json, size_t len, size_t max_bundles,
                          struct kix_submit_body *out, struct kix_err *err)
{
    struct kix_canon_opts opts = {BODY_MAX, 0, 0};
    const json_t *list;
    json_t *root = NULL;
    int rc;

    kix_submit_body_init(out);
    if (len > BODY_MAX)
        return kix_err_set(err, KIX_ELIMIT, "the body is %zu bytes, more than %zu", len, BODY_MAX);
    rc = kix_canon_parse_tree(json, len, &opts, &root, err);
    if (rc) {
        kix_err_wrap(err, "the submission is not JSON");
        return rc == KIX_ENOMEM ? rc : KIX_EINVAL;
    }
    list = json_object_get(root, "bundles");
    if (list) {
        if (json_object_size(root) != 1 || !json_is_array(list) || json_array_size(list) == 0) {
            rc = kix_err_set(err, KIX_EINVAL,
                             "/bundles: must be the only member, a non-empty array of bundles");
            goto out;
        }
        if (json_array_size(list) > max_bundles) {
            rc = kix_err_set(err, KIX_ELIMIT, "/bundles: %zu bundles, more than the %zu allowed",
                             json_array_size(list), max_bundles);
            goto out;
        }
    }
    out->n = list ? json_array_size(list) : 1;
    out->single = !list;
    out->bundles = calloc(out->n, sizeof(*out->bundles));
    if (!out->bundles) {
        out->n = 0;
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; rc == KIX_OK && i < out->n; i++) {
        char where[32] = "";
        if (list)
            snprintf(where, sizeof(where), "/bundles/%zu", i);
        kix_buf_init(&out->bundles[i].envelope);
        rc = parse_bundle(list ? json_array_get(list, i) : root, where, &out->bundles[i], err);
    }
out:
    json_decref(root);
    if (rc)
        kix_submit_body_release(out);
    return rc;
}

static int add_value(struct kix_buf *out, const struct kix_bytes *text, struct kix_err *err)
{
    json_t *v = NULL;
    int rc = kix_canon_parse_tree(text->ptr, text->len, NULL, &v, err);

    if (rc == KIX_OK && kix_canon_write_tree(v, out))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    json_decref(v);
    return rc;
}

int kix_submit_body_write(const struct kix_bytes *envelopes, const struct kix_bytes *const *objects,
                          const size_t *nobjects, size_t n, struct kix_buf *out,
                          struct kix_err *err)
{
    int rc = KIX_OK;

    if (n != 1 && kix_buf_adds(out, "{\"bundles\":["))
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        if ((i && kix_buf_addc(out, ',')) || kix_buf_adds(out, "{\"envelope\":"))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        rc = add_value(out, &envelopes[i], err);
        if (rc == KIX_OK && kix_buf_adds(out, ",\"objects\":["))
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        for (size_t j = 0; rc == KIX_OK && j < nobjects[i]; j++) {
            if (j && kix_buf_addc(out, ','))
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
            rc = add_value(out, &objects[i][j], err);
        }
        if (rc == KIX_OK && kix_buf_adds(out, "]}"))
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    if (rc == KIX_OK && n != 1 && kix_buf_adds(out, "]}"))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    return rc;
}
