/* The record schemas' validator (kix/schema.h): any JSON validates, or not,
 * against every built-in schema the same way twice, naming a pointer into
 * the document when it does not; the digests a valid record's annotated
 * fields hold are among its references. With the first byte 's', the rest
 * is compiled as a schema instead (refused cleanly, or compiled and freed). */
#include "fuzz.h"
#include "kix/json.h"
#include "kix/schema.h"

static void validate_all(const json_t *doc, const struct kix_digest *refs, size_t nrefs)
{
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
    }
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
