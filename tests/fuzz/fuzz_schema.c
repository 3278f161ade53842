/* The record schemas' validator (kix/schema.h): any JSON validates, or not,
 * against every built-in schema the same way twice, naming a pointer into
 * the document when it does not; the digests a valid record's annotated
 * fields hold are among its references. With the first byte 's', the rest
 * is compiled as a schema instead (refused cleanly, or compiled and freed).
 * Every violation, and their order, is the same with every object's members
 * inserted in the reverse order (the validator meets members by name: the
 * already-sorted merge and the sort must agree). */
#include "fuzz.h"
#include "kix/json.h"
#include "kix/schema.h"

/* doc with every object's members inserted in the reverse order. */
static json_t *reversed(const json_t *doc)
{
    json_t *out;
    size_t i;

    if (json_is_array(doc)) {
        json_t *x;
        out = json_array();
        json_array_foreach(doc, i, x)
        {
            if (!out || json_array_append_new(out, reversed(x)))
                abort();
        }
        return out;
    }
    if (!json_is_object(doc))
        return json_incref((json_t *)doc);
    {
        size_t n = json_object_size(doc), k = 0;
        const char **keys = calloc(n ? n : 1, sizeof(*keys));
        const char *key;
        json_t *x;
        if (!keys || !(out = json_object()))
            abort();
        json_object_foreach((json_t *)doc, key, x) keys[k++] = key;
        while (k--)
            if (json_object_set_new(out, keys[k], reversed(json_object_get(doc, keys[k]))))
                abort();
        free(keys);
    }
    return out;
}

static void same_violations(const struct kix_schema *s, const json_t *doc, const json_t *rev)
{
    static struct kix_schema_violation a[8], b[8];
    struct kix_schema_result ra, rb;
    size_t na = 0, nb = 0;

    if (kix_schema_validate_all(s, doc, &ra, a, 8, &na) != KIX_OK ||
        kix_schema_validate_all(s, rev, &rb, b, 8, &nb) != KIX_OK || na != nb ||
        ra.valid != rb.valid || ra.nrefs != rb.nrefs || strcmp(ra.pointer, rb.pointer) != 0 ||
        strcmp(ra.message, rb.message) != 0)
        abort();
    for (size_t i = 0; i < na && i < 8; i++)
        if (strcmp(a[i].pointer, b[i].pointer) != 0 || strcmp(a[i].message, b[i].message) != 0)
            abort();
    kix_schema_result_release(&ra);
    kix_schema_result_release(&rb);
}

static void validate_all(const json_t *doc, const struct kix_digest *refs, size_t nrefs)
{
    json_t *rev = reversed(doc);
    const struct kix_schema *s;

    for (size_t i = 0; (s = kix_schema_builtin_at(i)) != NULL; i++) {
        struct kix_schema_result a, b;
        if (kix_schema_validate(s, doc, &a) != KIX_OK)
            abort();
        if (kix_schema_validate(s, doc, &b) != KIX_OK || a.valid != b.valid ||
            strcmp(a.pointer, b.pointer) != 0 || strcmp(a.message, b.message) != 0 ||
            a.nrefs != b.nrefs)
            abort();
        if (!a.valid && a.pointer[0] && a.pointer[0] != '/')
            abort();
        for (size_t r = 0; r < a.nrefs; r++) {
            int found = 0;
            for (size_t k = 0; k < nrefs; k++)
                found |= memcmp(refs[k].b, a.refs[r].digest.b, 32) == 0;
            if (!found || !kix_record_kind_known(a.refs[r].kind))
                abort();
        }
        kix_schema_result_release(&a);
        kix_schema_result_release(&b);
        same_violations(s, doc, rev);
    }
    json_decref(rev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = NULL;
    struct kix_digest *refs = NULL;
    size_t nrefs = 0;

    if (size && data[0] == 's') {
        struct kix_schema *s = NULL;
        if (kix_schema_compile((const char *)data + 1, size - 1, &s, NULL) == KIX_OK && !s)
            abort();
        kix_schema_free(s);
        return 0;
    }
    if (kix_canon_parse_tree(data, size, NULL, &doc, NULL) != KIX_OK)
        return 0;
    if (kix_refs_collect_tree(doc, &refs, &nrefs) == KIX_OK)
        validate_all(doc, refs, nrefs);
    free(refs);
    json_decref(doc);
    return 0;
}
