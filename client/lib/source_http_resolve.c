/* A run's resolution over HTTP (source_http_internal.h): the run's view
 * document (its page's #kix-view, or runs/<runId>.json) names its entries,
 * manifest, objects and the index proofs at the view's size (a static
 * copy's names the objects by the manifest alone: objects/<digest>); the leaves are read from the
 * entry bundles and their inclusion proofs computed from the hash tiles at that size. Nothing of
 * the view is believed: kix_resolution_verify checks the checkpoint's signature, each leaf against
 * the tiles, the manifest and object digests and the index records, and the entries against the
 * chain the signed run record commits (a view that leaves an entry out fails there); the caller
 * checks the checkpoint against the one it remembers. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/canon.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/vindex.h"
#include "source_http_internal.h"

/* What the resolution's views point into: one block per piece. */
struct pieces {
    size_t n, cap;
    void **p;
};

static void pieces_free(void *arg)
{
    struct pieces *ps = arg;
    for (size_t i = 0; i < ps->n; i++)
        free(ps->p[i]);
    free(ps->p);
    free(ps);
}

/* A copy of len bytes kept by ps, as a view in *out. */
static int keep(struct pieces *ps, const void *data, size_t len, struct kix_bytes *out)
{
    uint8_t *b;

    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        void **p = realloc(ps->p, cap * sizeof(*p));
        if (!p)
            return KIX_ENOMEM;
        ps->p = p;
        ps->cap = cap;
    }
    b = malloc(len ? len : 1);
    if (!b)
        return KIX_ENOMEM;
    if (len)
        memcpy(b, data, len);
    ps->p[ps->n++] = b;
    out->ptr = b;
    out->len = len;
    return KIX_OK;
}

static int bad_view(struct http_source *h, const char *id, const char *what, struct kix_err *err)
{
    return kix_err_set(err, KIX_EPROTO, "%s: the view of run %s has no valid %s", h->base.where, id,
                       what);
}

static int keep_text(struct pieces *ps, json_t *v, struct kix_bytes *out)
{
    if (!json_is_string(v))
        return KIX_EPROTO;
    return keep(ps, json_string_value(v), json_string_length(v), out);
}

/* An optional hex member (absent: out stays NULL). */
static int keep_hex(struct pieces *ps, json_t *v, struct kix_bytes *out)
{
    const char *hex = json_string_value(v);
    size_t n = json_string_length(v);
    uint8_t *b;
    int rc;

    if (!v)
        return KIX_OK;
    if (!hex || n % 2)
        return KIX_EPROTO;
    b = malloc(n / 2 + 1);
    if (!b)
        return KIX_ENOMEM;
    rc = kix_hex_decode(hex, n, b, n / 2) == KIX_OK ? keep(ps, b, n / 2, out) : KIX_EPROTO;
    free(b);
    return rc;
}

static int digest_of(json_t *v, struct kix_digest *out)
{
    const char *t = json_string_value(v);
    return t ? kix_digest_parse(t, json_string_length(v), out, NULL) : KIX_EPROTO;
}

static int entry_type(const char *name)
{
    for (int t = KIX_ENTRY_KEY; name && t <= KIX_ENTRY_TYPE_MAX; t++)
        if (strcmp(kix_entry_type_name(t), name) == 0)
            return t;
    return -1;
}

static int take_objects(struct pieces *ps, json_t *list, struct kix_resolution *res)
{
    size_t i;
    json_t *o;

    if (!json_is_array(list))
        return KIX_EPROTO;
    json_array_foreach(list, i, o)
    {
        struct kix_buf canon = KIX_BUF_INIT;
        json_t *obj = json_object_get(o, "object");
        char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        int rc;

        if (res->nobjects == KIX_RESOLVE_MAX_OBJECTS || !text ||
            digest_of(json_object_get(o, "digest"), &res->objects[res->nobjects].digest)) {
            free(text);
            return KIX_EPROTO;
        }
        /* the bytes whose digest the verifier checks */
        rc = kix_canon((const uint8_t *)text, strlen(text), NULL, &canon, NULL);
        free(text);
        if (rc == KIX_OK)
            rc = keep(ps, canon.ptr, canon.len, &res->objects[res->nobjects].bytes);
        kix_buf_release(&canon);
        if (rc)
            return rc == KIX_ENOMEM ? rc : KIX_EPROTO;
        res->nobjects++;
    }
    return KIX_OK;
}

/* The objects the manifest references, read from the copy's
 * objects/<digest> (a static copy's view, layout 4, carries none: they
 * are files of the copy): each kept as fetched, for
 * kix_resolution_verify to check by its digest. An object the copy lacks
 * is left out (the verify then names the field whose object is missing). */
struct copy_fetch {
    struct pieces *ps;
    struct kix_resolution *res;
    const struct kix_digest *refs;
};

static int copy_object(void *ctx, size_t i, const uint8_t *bytes, size_t len)
{
    struct copy_fetch *f = ctx;
    struct kix_resolution_object *o = &f->res->objects[f->res->nobjects];

    if (!bytes)
        return KIX_OK;
    if (keep(f->ps, bytes, len, &o->bytes))
        return KIX_ENOMEM;
    o->digest = f->refs[i];
    f->res->nobjects++;
    return KIX_OK;
}

static int copy_objects(struct http_source *h, struct pieces *ps, struct kix_resolution *res,
                        struct kix_err *err)
{
    struct kix_digest *refs = NULL;
    size_t n = 0;
    int rc = kix_refs_canonical(res->manifest.ptr, res->manifest.len, &refs, &n);
    struct copy_fetch f = {ps, res, refs};

    if (rc)
        return kix_err_set(err, rc, "out of memory");
    if (n > KIX_RESOLVE_MAX_OBJECTS)
        n = KIX_RESOLVE_MAX_OBJECTS;
    rc = h->base.ops->objects(&h->base, refs, n, copy_object, &f, err);
    free(refs);
    return rc;
}

static int take_entries(struct http_source *h, struct pieces *ps, json_t *list, uint64_t from,
                        struct kix_resolution *res, struct kix_err *err)
{
    size_t n = json_array_size(list), i;

    if (!json_is_array(list))
        return bad_view(h, res->run.run_id, "entries", err);
    res->entries = calloc(n ? n : 1, sizeof(*res->entries));
    if (!res->entries)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (i = from; i < n && res->nentries < KIX_RESOLVE_MAX_ENTRIES; i++) {
        json_t *e = json_array_get(list, i);
        json_t *index = json_object_get(e, "index");
        struct kix_resolution_entry *out = &res->entries[res->nentries];
        struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
        struct kix_bytes leaf;
        size_t np = 0;
        int rc;

        if (!json_is_integer(index) || json_integer_value(index) < 0 ||
            (out->type = entry_type(json_string_value(json_object_get(e, "type")))) < 0)
            return bad_view(h, res->run.run_id, "entries", err);
        out->index = (uint64_t)json_integer_value(index);
        rc = http_bundle(h, out->index, res->size, err);
        if (rc == KIX_OK) {
            http_bundle_leaf(h, out->index, &leaf);
            rc = keep(ps, leaf.ptr, leaf.len, &out->leaf);
            if (rc)
                return kix_err_set(err, rc, "out of memory");
            rc = http_inclusion_at(h, out->index, res->size, proof, &np, err);
        }
        if (rc == KIX_OK && kix_resolution_entry_set_proof(out, proof, np) != KIX_OK)
            rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        if (rc)
            return rc;
        res->nentries++;
    }
    return KIX_OK;
}

/* The directory's page that holds (value, run_id), in rank order (value
 * ascending, ties by run id as bytes): the last page whose first member
 * does not come after it. */
struct page_pick {
    uint64_t value;
    const char *run_id;
    char page_id[KIX_RUN_ID_MAX + 1];
};

static int pick_page(void *ctx, const struct kix_vindex_page *p)
{
    struct page_pick *pp = ctx;

    if (p->index == 0) {
        pp->page_id[0] = '\0';
        return 0;
    }
    if (p->first_value > pp->value ||
        (p->first_value == pp->value && strcmp(p->first_run, pp->run_id) > 0))
        return 1; /* pages are in rank order: none later holds it */
    snprintf(pp->page_id, sizeof(pp->page_id), "%s", p->first_run);
    return 0;
}

/* The run's and its group's records proven at the copy's latest
 * checkpoint from the index's tiles, in place of the view's (proven at the
 * size the view was written): a view that went stale (a later rerun,
 * supersession or rank) then fails the chain of the latest record instead
 * of being shown. KIX_ENOTSUP: the copy has no index files (the view's
 * proofs stay). */
static int latest_index(struct http_source *h, struct pieces *ps, struct kix_resolution *res,
                        int own, struct kix_err *err)
{
    struct kix_index_answer run, group, page;
    struct kix_vindex_run rec;
    struct kix_vindex_dir dir;
    char key[KIX_VINDEX_KEY_MAX + 1];
    uint64_t latest = h->latest_size;
    int rc;

    memset(&run, 0, sizeof(run));
    memset(&group, 0, sizeof(group));
    memset(&page, 0, sizeof(page));
    /* own: at the view's own size (res->size, its checkpoint in
     * res->checkpoint), from index/notes/<that size>: a static copy's view
     * (layout 4) carries no proofs of its own */
    rc = own ? KIX_OK : http_latest(h, 1, err);
    if (own)
        h->latest_size = res->size;
    if (rc == KIX_OK)
        rc = http_index_note(h, &run.index_note, err);
    if (rc)
        goto out;
    kix_vindex_key_run(res->run.run_id, strlen(res->run.run_id), key);
    rc = http_index_prove(h, key, &run, err);
    if (rc == KIX_OK && !run.present)
        rc = kix_err_set(err, KIX_ENOTFOUND, "run %s is not in the index of %s", res->run.run_id,
                         h->base.where);
    /* which group: the record's word, proven by the caller's verify */
    if (rc == KIX_OK &&
        kix_vindex_run_decode(run.record.ptr, run.record.len, res->run.run_id, &rec, NULL) ==
            KIX_OK &&
        rec.info.grouped) {
        struct page_pick pp = {rec.info.value, res->run.run_id, ""};
        struct kix_err ignored = {0};
        kix_vindex_key_group(&rec.info.comparison_key, key);
        rc = http_index_prove(h, key, &group, err);
        /* and the page of the group that holds the run, for its rank (the
         * directory is the server's word here; the caller's verify proves
         * it and the page) */
        if (rc == KIX_OK && group.present &&
            kix_vindex_group_decode(group.record.ptr, group.record.len, &rec.info.comparison_key,
                                    &dir, pick_page, &pp, &ignored) == KIX_OK) {
            kix_vindex_key_group_page(&rec.info.comparison_key, pp.page_id, key);
            rc = http_index_prove(h, key, &page, err);
        }
    }
    if (rc == KIX_OK &&
        ((!own && keep(ps, h->latest.ptr, h->latest.len, &res->checkpoint)) ||
         keep(ps, run.index_note.ptr, run.index_note.len, &res->index_note) ||
         keep(ps, run.record.ptr, run.record.len, &res->run_record) ||
         keep(ps, run.proof.ptr, run.proof.len, &res->run_proof) ||
         (group.proof.len && (keep(ps, group.record.ptr, group.record.len, &res->group_record) ||
                              keep(ps, group.proof.ptr, group.proof.len, &res->group_proof))) ||
         (page.proof.len && (keep(ps, page.record.ptr, page.record.len, &res->group_page) ||
                             keep(ps, page.proof.ptr, page.proof.len, &res->group_page_proof)))))
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK && !own)
        res->size = h->latest_size;
out:
    if (own) /* the source's latest again, whatever the way out */
        h->latest_size = latest;
    kix_index_answer_release(&run);
    kix_index_answer_release(&group);
    kix_index_answer_release(&page);
    return rc;
}

/* The size a signed checkpoint's second line says (0: none). */
static uint64_t checkpoint_size(json_t *v)
{
    const char *t = json_string_value(v), *nl = t ? strchr(t, '\n') : NULL;
    char *end;
    uint64_t n;

    if (!nl || nl[1] < '1' || nl[1] > '9')
        return 0;
    n = strtoull(nl + 1, &end, 10);
    return *end == '\n' ? n : 0;
}

/* A static copy's view since layout 7 (PROTOCOL.md §3, "A leaner view")
 * leaves out its run id (the page's name says it), its tree size (its
 * checkpoint's) and its manifest digest (its manifestCanonical's); an
 * older one's must be the same. All are proven after, as any view's. */
static int take_view(struct http_source *h, json_t *v, const char *id, uint64_t from,
                     struct pieces *ps, struct kix_resolution *res, struct kix_err *err)
{
    json_t *size = json_object_get(v, "treeSize"), *ix = json_object_get(v, "index");
    json_t *run_id = json_object_get(v, "runId"), *digest = json_object_get(v, "manifestDigest");
    json_t *canon = json_object_get(v, "manifestCanonical");
    int rc;

    if (run_id && (!json_is_string(run_id) || strcmp(json_string_value(run_id), id) != 0))
        return bad_view(h, id, "runId", err);
    snprintf(res->run.run_id, sizeof(res->run.run_id), "%s", id);
    res->size = size ? (json_is_integer(size) && json_integer_value(size) > 0
                            ? (uint64_t)json_integer_value(size)
                            : 0)
                     : checkpoint_size(json_object_get(v, "checkpoint"));
    if (!res->size)
        return bad_view(h, id, "treeSize", err);
    if (keep_text(ps, canon, &res->manifest))
        return bad_view(h, id, "manifestCanonical", err);
    if (!digest)
        kix_digest_of(res->manifest.ptr, res->manifest.len, &res->run.manifest);
    else if (digest_of(digest, &res->run.manifest))
        return bad_view(h, id, "manifestDigest", err);
    if (keep_text(ps, json_object_get(v, "checkpoint"), &res->checkpoint))
        return bad_view(h, id, "checkpoint", err);
    if (!json_object_get(v, "objects"))
        rc = copy_objects(h, ps, res, err); /* a static copy's: objects/<digest> */
    else
        rc = take_objects(ps, json_object_get(v, "objects"), res) ? bad_view(h, id, "objects", err)
                                                                  : KIX_OK;
    if (rc)
        return rc;
    rc = latest_index(h, ps, res, 0, err);
    /* none at the copy's latest checkpoint (an older one served, say):
     * a view without proofs of its own has them at its size */
    if (rc == KIX_ENOTSUP && !ix)
        rc = latest_index(h, ps, res, 1, err);
    if (rc == KIX_ENOTSUP && !ix)
        return kix_err_set(err, KIX_EVERIFY,
                           "%s holds no index files (index/notes/%llu) to prove the view of run "
                           "%s, which carries no proofs of its own (a static copy's, layout 4): "
                           "copy the export's index/ with its pages",
                           h->base.where, (unsigned long long)res->size, id);
    if (rc != KIX_ENOTSUP)
        goto entries;
    /* no index files: the view's proofs, at its size (none: kix_resolution_verify says so) */
    if (ix && (keep_text(ps, json_object_get(ix, "indexNote"), &res->index_note) ||
               keep_hex(ps, json_object_get(ix, "runRecord"), &res->run_record) ||
               keep_hex(ps, json_object_get(ix, "runProof"), &res->run_proof) ||
               keep_hex(ps, json_object_get(ix, "groupRecord"), &res->group_record) ||
               keep_hex(ps, json_object_get(ix, "groupProof"), &res->group_proof) ||
               keep_hex(ps, json_object_get(ix, "groupPage"), &res->group_page) ||
               keep_hex(ps, json_object_get(ix, "groupPageProof"), &res->group_page_proof)))
        return bad_view(h, id, "index", err);
    rc = KIX_OK;
entries:
    if (rc)
        return rc;
    res->entries_from = from;
    return take_entries(h, ps, json_object_get(v, "entries"), from, res, err);
}

/* The run a manifest digest was published as, from its proven record
 * manifest/<hex> (the caller proves the run's own record names the same
 * manifest). */
static int run_of_manifest(struct http_source *h, const struct kix_digest *d,
                           char id[KIX_RUN_ID_MAX + 1], struct kix_err *err)
{
    struct kix_index_answer a;
    char key[KIX_VINDEX_KEY_MAX + 1], text[KIX_DIGEST_TEXT_LEN + 1];
    uint64_t publication;
    int rc;

    memset(&a, 0, sizeof(a));
    kix_vindex_key_manifest(d, key);
    rc = http_index_proof(&h->base, key, &a, err);
    if (rc == KIX_ENOTSUP)
        kix_err_set(err, rc, "%s resolves runs by run id or permalink: it has no index files",
                    h->base.where);
    if (rc == KIX_OK && !a.present) {
        kix_digest_format(d, text);
        rc = kix_err_set(err, KIX_ENOTFOUND, "no run of manifest %s in %s", text, h->base.where);
    }
    if (rc == KIX_OK &&
        kix_vindex_manifest_decode(a.record.ptr, a.record.len, d, id, &publication, NULL) != KIX_OK)
        rc = kix_err_set(err, KIX_EPROTO, "%s: the index record %s is malformed", h->base.where,
                         key);
    kix_index_answer_release(&a);
    return rc;
}

/* The run's view document: the #kix-view its page runs/<name>.html embeds
 * (kixd's pages, and a static copy's since layout 4, whose view is in its
 * page alone), else runs/<name>.json (a copy of an older layout, whose
 * pages carry none). Into body; the JSON text is body from *at on, up to
 * its end (a page's script element is cut off there: the JSON inside it
 * escapes '/', so no "</script>" is in it). */
/* Whether needle is in [from, to). */
static int said_in(const char *from, const char *to, const char *needle)
{
    const char *at = strstr(from, needle);
    return at && at < to;
}

/* The canonical manifest a static copy's run page carries as the text of
 * <pre hidden id="kix-manifest"> (layout 7, PROTOCOL.md §3, "A leaner
 * view"), into out (*has: 1), read as kix-verify.js reads it: the text
 * with &lt; &gt; &amp; undone. Any other entity or markup in it, the id
 * said again outside it and the view, or said in another form, and the
 * page is refused (KIX_EPROTO): a page names its manifest one way. None:
 * *has 0. view, view_end: the page's #kix-view text, where the id may be
 * said as any text may. */
static int page_manifest(const char *page, const char *view, const char *view_end,
                         struct kix_buf *out, int *has)
{
    static const char open_tag[] = "<pre hidden id=\"kix-manifest\">";
    const char *start = strstr(page, open_tag), *p, *end;
    int rc = KIX_OK;

    *has = 0;
    if (!start)
        return said_in(page, view, "kix-manifest") || strstr(view_end, "kix-manifest") ? KIX_EPROTO
                                                                                       : KIX_OK;
    if (said_in(page, start, "kix-manifest") || start > view)
        return KIX_EPROTO;
    for (p = start + sizeof(open_tag) - 1; rc == KIX_OK && *p && *p != '<'; p++) {
        size_t plain = strcspn(p, "<&");
        rc = kix_buf_add(out, p, plain);
        p += plain;
        if (rc != KIX_OK || *p != '&')
            break;
        rc = strncmp(p, "&lt;", 4) == 0    ? kix_buf_addc(out, '<')
             : strncmp(p, "&gt;", 4) == 0  ? kix_buf_addc(out, '>')
             : strncmp(p, "&amp;", 5) == 0 ? kix_buf_addc(out, '&')
                                           : KIX_EPROTO;
        p += p[1] == 'a' ? 4 : 3;
    }
    end = p + 6;
    if (rc == KIX_OK && (strncmp(p, "</pre>", 6) != 0 || said_in(end, view, "kix-manifest") ||
                         strstr(view_end, "kix-manifest")))
        rc = KIX_EPROTO;
    *has = rc == KIX_OK;
    return rc;
}

static int run_view_text(struct http_source *h, const char *name, const char *id,
                         struct kix_buf *body, size_t *at, struct kix_buf *manifest, int *has,
                         struct kix_err *err)
{
    static const char open_tag[] = "<script type=\"application/json\" id=\"kix-view\">";
    char path[KIX_RUN_PAGE_NAME_MAX + 16];
    const char *start, *end;
    int rc;

    *at = 0;
    *has = 0;
    snprintf(path, sizeof(path), "runs/%s.html", name);
    rc = http_get(h->get, path, HTTP_VIEW_MAX, body, err);
    if (rc == KIX_OK && kix_buf_addc(body, '\0') != KIX_OK)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK && (start = strstr((const char *)body->ptr, open_tag)) != NULL &&
        (end = strstr(start, "</script>")) != NULL) {
        *at = (size_t)(start - (const char *)body->ptr) + sizeof(open_tag) - 1;
        rc = page_manifest((const char *)body->ptr, start, end, manifest, has);
        if (rc == KIX_ENOMEM)
            return kix_err_set(err, rc, "out of memory");
        if (rc)
            return kix_err_set(err, KIX_EVERIFY,
                               "%s: the page of run %s (runs/%s.html) says its manifest "
                               "(#kix-manifest) other than as one element's text with only "
                               "&lt; &gt; &amp;: a false copy",
                               h->base.where, id, name);
        body->len = (size_t)(end - (const char *)body->ptr);
        return KIX_OK;
    }
    if (rc != KIX_OK && rc != KIX_ENOTFOUND)
        return rc;
    kix_buf_reset(body);
    snprintf(path, sizeof(path), "runs/%s.json", name);
    rc = http_get(h->get, path, HTTP_VIEW_MAX, body, err);
    if (rc == KIX_ENOTFOUND)
        kix_err_set(err, rc, "run %s is not in %s", id, h->base.where);
    return rc;
}

/* The view *v (NULL: not JSON) with the page's manifest text (has: the
 * page carried #kix-manifest) as its manifestCanonical, as a view before
 * layout 7 said it. A view that says it too is a false copy (KIX_EVERIFY,
 * *v released); text that is not UTF-8 leaves *v NULL. */
static int with_manifest(json_t **v, const struct kix_buf *canon, int has)
{
    json_t *text;

    if (!*v || !has)
        return KIX_OK;
    if (json_object_get(*v, "manifestCanonical")) {
        json_decref(*v);
        *v = NULL;
        return KIX_EVERIFY;
    }
    text = json_stringn(canon->len ? (const char *)canon->ptr : "", canon->len);
    if (!text || json_object_set_new(*v, "manifestCanonical", text) != 0) {
        json_decref(*v);
        *v = NULL;
    }
    return KIX_OK;
}

/* The error of a page whose view says its manifest beside #kix-manifest. */
static int said_twice(struct http_source *h, const char *id, struct kix_err *err)
{
    return kix_err_set(err, KIX_EVERIFY,
                       "%s: the page of run %s says its manifest twice (#kix-manifest and its "
                       "view): a false copy",
                       h->base.where, id);
}

int http_manifest_in_page(struct http_source *h, const struct kix_digest *d, struct kix_buf *out,
                          struct kix_err *err)
{
    char id[KIX_RUN_ID_MAX + 1], name[KIX_RUN_PAGE_NAME_MAX + 1], text[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_buf body = KIX_BUF_INIT, page_canon = KIX_BUF_INIT;
    struct kix_digest got;
    const char *canon;
    json_t *v = NULL;
    size_t at = 0;
    int escaped, has = 0, rc = run_of_manifest(h, d, id, err);

    kix_digest_format(d, text);
    if (rc == KIX_ENOTSUP)
        rc = KIX_ENOTFOUND;
    if (rc == KIX_OK && kix_run_page_name(id, strlen(id), name, sizeof(name), &escaped) != KIX_OK)
        rc = KIX_ENOTFOUND;
    if (rc == KIX_OK)
        rc = run_view_text(h, name, id, &body, &at, &page_canon, &has, err);
    if (rc == KIX_ENOTFOUND) {
        rc = kix_err_set(err, KIX_ENOTFOUND,
                         "object %s is not in %s: neither objects/%s nor a run page holds it", text,
                         h->base.where, text);
        goto out;
    }
    if (rc)
        goto out;
    v = json_loadb((const char *)body.ptr + at, body.len - at, JSON_REJECT_DUPLICATES, NULL);
    if (with_manifest(&v, &page_canon, has) != KIX_OK) {
        rc = said_twice(h, id, err);
        goto out;
    }
    canon = json_string_value(json_object_get(v, "manifestCanonical"));
    if (canon)
        kix_digest_of((const uint8_t *)canon, strlen(canon), &got);
    if (!canon || memcmp(got.b, d->b, 32) != 0) {
        rc = kix_err_set(err, KIX_EVERIFY,
                         "%s: the page of run %s (runs/%s.html), which the signed index gives "
                         "the manifest %s, carries another manifest: a false copy",
                         h->base.where, id, name, text);
        goto out;
    }
    rc = kix_buf_add(out, canon, strlen(canon)) ? kix_err_set(err, KIX_ENOMEM, "out of memory")
                                                : KIX_OK;
out:
    json_decref(v);
    kix_buf_release(&body);
    kix_buf_release(&page_canon);
    return rc;
}

int http_resolve(struct kix_source *s, const char *ref, uint64_t from, struct kix_resolution *out,
                 struct kix_err *err)
{
    struct http_source *h = http_of(s);
    char id[KIX_RUN_ID_MAX + 1], name[KIX_RUN_PAGE_NAME_MAX + 1];
    int escaped;
    struct kix_digest digest;
    struct kix_buf body = KIX_BUF_INIT, page_canon = KIX_BUF_INIT;
    struct pieces *ps = NULL;
    json_t *v = NULL;
    size_t at = 0;
    int is_digest = 0, has = 0, rc;

    kix_resolution_init(out);
    /* a permalink names the run by what follows runs/, whichever host
     * serves it (a mirror, a CDN, a test's http://) */
    if (kix_source_is_http(ref) && strstr(ref, "/runs/"))
        ref = strstr(ref, "/runs/") + 6;
    rc = kix_ref_parse(ref, strlen(ref), NULL, id, &is_digest, &digest, err);
    if (rc)
        return rc;
    if (is_digest) {
        rc = run_of_manifest(h, &digest, id, err);
        if (rc)
            return rc;
    }
    /* the run's files are named by its page name: an id logged outside
     * the grammar (found by its digest) is escaped (PROTOCOL.md §3) */
    if (kix_run_page_name(id, strlen(id), name, sizeof(name), &escaped) != KIX_OK)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "run %s has no files in %s: its id, escaped, is too long for a "
                           "file name (kix show its manifest digest on the origin)",
                           id, s->where);
    rc = run_view_text(h, name, id, &body, &at, &page_canon, &has, err);
    if (rc)
        goto out;
    v = json_loadb((const char *)body.ptr + at, body.len - at, JSON_REJECT_DUPLICATES, NULL);
    if (with_manifest(&v, &page_canon, has) != KIX_OK) {
        rc = said_twice(h, id, err);
        goto out;
    }
    ps = calloc(1, sizeof(*ps));
    if (!ps) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
        goto out;
    }
    out->backing = ps;
    out->backing_free = pieces_free;
    rc = v ? take_view(h, v, id, from, ps, out, err) : bad_view(h, id, "JSON", err);
out:
    json_decref(v);
    kix_buf_release(&body);
    kix_buf_release(&page_canon);
    if (rc)
        kix_resolution_release(out);
    return rc;
}
