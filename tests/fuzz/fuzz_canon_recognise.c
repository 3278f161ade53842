/* The one-pass recogniser against the canonicaliser on every input:
 * kix_canon_is_canonical says 1 only for bytes kix_canon accepts and
 * returns unchanged, and says 1 for every such document but those it
 * leaves to kix_canon (a key over 256 bytes written with escapes). The
 * first byte picks the options (any top level, a small depth limit). On
 * recognised bytes, the tree kix_canon_parse_canonical builds without
 * jansson's parser is the parser's tree, value for value and type for type
 * (audit and mirror replays read manifests through it); and
 * kix_canon_recognise_tree, which recognises and builds in one walk, says
 * what the recogniser says and builds that tree, or none. */
#include "fuzz.h"
#include "kix/json.h"
#include "kix/manifest.h"

/* What kixd reads off recognised bytes (the comparison group of a run
 * manifest) is what the tree of the same bytes gives. */
static void same_group(const uint8_t *data, size_t size, const struct kix_canon_opts *opts)
{
    struct kix_digest k1, k2;
    uint64_t v1 = 0, v2 = 0;
    char m1[16] = "", m2[16] = "";
    json_t *tree = NULL;
    int r1, r2;

    if (kix_canon_parse_tree(data, size, opts, &tree, NULL) != KIX_OK)
        abort();
    r1 = kix_run_comparison_key_tree(tree, &k1, &v1, m1);
    r2 = kix_run_comparison_key_canonical(data, size, &k2, &v2, m2);
    json_decref(tree);
    if (r1 != r2 ||
        (r1 == KIX_OK && (memcmp(k1.b, k2.b, 32) != 0 || v1 != v2 || strcmp(m1, m2) != 0)))
        abort();
}

static void same_tree(const uint8_t *data, size_t size, const struct kix_canon_opts *opts)
{
    json_t *parsed = NULL, *built = NULL;

    if (kix_canon_parse_tree(data, size, opts, &parsed, NULL) != KIX_OK ||
        kix_canon_parse_canonical(data, size, opts, &built, NULL) != KIX_OK ||
        !json_equal(parsed, built))
        abort();
    json_decref(parsed);
    json_decref(built);
}

/* One walk that recognises and builds: the recogniser's answer, and the
 * parser's tree exactly when the bytes are canonical. */
static void same_walk(const uint8_t *data, size_t size, const struct kix_canon_opts *opts, int rec)
{
    json_t *parsed = NULL, *built = NULL;
    int canonical = -1;

    if (kix_canon_recognise_tree(data, size, opts, &canonical, &built, NULL) != KIX_OK ||
        canonical != rec || (!rec && built))
        abort();
    if (rec && (kix_canon_parse_tree(data, size, opts, &parsed, NULL) != KIX_OK ||
                !json_equal(parsed, built)))
        abort();
    json_decref(built);
    /* the same walk in an arena (prepare's): the same answer and tree */
    {
        static struct kix_json_arena arena;
        int opened = kix_json_arena_open(&arena), rc;
        built = NULL;
        rc = kix_canon_recognise_tree(data, size, opts, &canonical, &built, NULL);
        kix_json_arena_stop(&arena);
        if (!opened || rc != KIX_OK || canonical != rec || (!rec && built) ||
            (rec && !json_equal(parsed, built)))
            abort();
        kix_json_arena_release(&arena);
    }
    json_decref(parsed);
}

/* Whether an object key of v is long and needs an escape in JCS. */
static int key_escaped(const json_t *v)
{
    const char *key;
    json_t *child;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, child)
        {
            size_t n = json_object_iter_key_len(json_object_key_to_iter(key));
            for (size_t k = 0; n > 42 && k < n; k++) /* 256 bytes written: 43 \u00xx */
                if ((unsigned char)key[k] < 0x20 || key[k] == '"' || key[k] == '\\')
                    return 1;
            if (key_escaped(child))
                return 1;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, child)
        {
            if (key_escaped(child))
                return 1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kix_canon_opts opts = {0, 0, 0};
    struct kix_buf out = KIX_BUF_INIT;
    int rec, same;

    if (size == 0)
        return 0;
    opts.allow_any_top = data[0] & 1;
    opts.max_depth = data[0] & 2 ? 3 : 0;
    data++, size--;
    rec = kix_canon_is_canonical(data, size, &opts);
    same_walk(data, size, &opts, rec);
    same = kix_canon(data, size, &opts, &out, NULL) == KIX_OK && out.len == size &&
           memcmp(out.ptr, data, size) == 0;
    if (rec && !same)
        abort(); /* recognised bytes that are not canonical */
    if (rec) {
        same_group(data, size, &opts);
        same_tree(data, size, &opts);
    }
    if (same && !rec) {
        /* missed: allowed only for a long key with escapes */
        json_t *tree = NULL;
        if (kix_canon_parse_tree(data, size, &opts, &tree, NULL) != KIX_OK || !key_escaped(tree))
            abort();
        json_decref(tree);
    }
    kix_buf_release(&out);
    return 0;
}
