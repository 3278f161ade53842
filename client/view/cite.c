/* A run's citation in its three forms (kix/cite.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"
#include "kix/cite.h"
#include "kix/doc.h"
#include "kix/entry.h"
#include "view_internal.h"

int kix_cite_init(struct kix_cite *c, const struct kix_resolution *res, const char *origin,
                  uint64_t size, const char *root_b64, const char *accessed)
{
    struct kix_entry_summary s;
    json_t *doc;
    const char *title;
    int rc;

    memset(c, 0, sizeof(*c));
    kix_buf_init(&c->link);
    kix_buf_init(&c->successor);
    snprintf(c->run_id, sizeof(c->run_id), "%s", res->run.run_id);
    kix_digest_format(&res->run.manifest, c->digest);
    snprintf(c->origin, sizeof(c->origin), "%s", origin);
    snprintf(c->root, sizeof(c->root), "%s", root_b64);
    snprintf(c->accessed, sizeof(c->accessed), "%s", accessed);
    c->index = res->run.publication_index;
    c->size = size;
    /* the publication's date and the manifest's title, from verified bytes */
    doc = kix_json_tree_memo(res->manifest.ptr, res->manifest.len);
    title = json_string_value(json_object_get(json_object_get(doc, "metadata"), "title"));
    snprintf(c->title, sizeof(c->title), "%s", title ? title : "");
    kix__utf8_trim(c->title);
    json_decref(doc);
    for (size_t i = 0; i < res->nentries; i++)
        if (res->entries[i].type == KIX_ENTRY_PUBLICATION &&
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL) ==
                KIX_OK &&
            strlen(s.time) >= 10)
            snprintf(c->published, sizeof(c->published), "%.10s", s.time);
    rc = kix_permalink(origin, res->run.run_id, &c->link);
    if (rc == KIX_OK && res->successor[0])
        rc = kix_permalink(origin, res->successor, &c->successor);
    if (rc == KIX_OK)
        rc = kix_buf_addc(&c->link, '\0'); /* read as strings below */
    if (rc == KIX_OK && c->successor.len)
        rc = kix_buf_addc(&c->successor, '\0');
    return rc;
}

int kix_cite_init_at_res(struct kix_cite *c, const struct kix_resolution *res, const char *accessed)
{
    char origin[256] = "", root[64] = "";
    const char *p = (const char *)res->checkpoint.ptr, *end = p + res->checkpoint.len;
    const char *nl1 = p ? memchr(p, '\n', res->checkpoint.len) : NULL;
    const char *nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(end - nl1 - 1)) : NULL;
    const char *nl3 = nl2 ? memchr(nl2 + 1, '\n', (size_t)(end - nl2 - 1)) : NULL;

    /* a checkpoint note: origin, size, root (base64), each on its line */
    kix__view_origin(res->checkpoint.ptr, res->checkpoint.len, origin, sizeof(origin));
    if (nl3 && (size_t)(nl3 - nl2 - 1) < sizeof(root))
        snprintf(root, sizeof(root), "%.*s", (int)(nl3 - nl2 - 1), nl2 + 1);
    return kix_cite_init(c, res, origin, res->size, root, accessed);
}

void kix_cite_release(struct kix_cite *c)
{
    kix_buf_release(&c->link);
    kix_buf_release(&c->successor);
}

static const char *link_of(const struct kix_cite *c)
{
    return c->link.len ? (const char *)c->link.ptr : "";
}

int kix_cite_text(const struct kix_cite *c, struct kix_buf *out)
{
    return kix_buf_addf(out, "%s (%s), kix log %s entry %llu, checkpoint %llu/%s, accessed %s",
                        link_of(c), c->digest, c->origin, (unsigned long long)c->index,
                        (unsigned long long)c->size, c->root, c->accessed);
}

/* BibTeX-safe: braces and backslashes dropped, the rest as is (UTF-8). */
static int bib_text(struct kix_buf *out, const char *s)
{
    int rc = KIX_OK;

    for (; rc == KIX_OK && *s; s++)
        if (*s != '{' && *s != '}' && *s != '\\')
            rc = kix_buf_addc(out, (uint8_t)*s);
    return rc;
}

int kix_cite_bibtex(const struct kix_cite *c, struct kix_buf *out)
{
    int rc = kix_buf_addf(out, "@misc{kix:%.*s,\n  title = {", (int)strcspn(c->run_id, "{},\\ "),
                          c->run_id);

    if (rc == KIX_OK)
        rc = c->title[0] ? bib_text(out, c->title)
                         : kix_buf_addf(out, "Benchmark run %s", c->run_id);
    if (rc == KIX_OK)
        rc = kix_buf_adds(out, "},\n  howpublished = {kix transparency log ");
    if (rc == KIX_OK)
        rc = bib_text(out, c->origin);
    if (rc == KIX_OK)
        rc = kix_buf_addf(out, ", entry %llu},\n", (unsigned long long)c->index);
    if (rc == KIX_OK && c->published[0])
        rc = kix_buf_addf(out, "  year = {%.4s},\n  month = {%.2s},\n  date = {%s},\n",
                          c->published, c->published + 5, c->published);
    if (rc == KIX_OK)
        rc = kix_buf_addf(out,
                          "  url = {%s},\n  urldate = {%s},\n  note = {Manifest %s; verified at "
                          "checkpoint %llu/%s",
                          link_of(c), c->accessed, c->digest, (unsigned long long)c->size, c->root);
    if (rc == KIX_OK && c->successor.len)
        rc = kix_buf_addf(out, "; superseded by %s", (const char *)c->successor.ptr);
    if (rc == KIX_OK)
        rc = kix_buf_adds(out, "},\n}\n");
    return rc;
}

static json_t *date_parts(const char *ymd)
{
    int y = 0, m = 0, d = 0;
    if (sscanf(ymd, "%4d-%2d-%2d", &y, &m, &d) != 3)
        return NULL;
    return json_pack("{s:[[i,i,i]]}", "date-parts", y, m, d);
}

int kix_cite_csl(const struct kix_cite *c, struct kix_buf *out)
{
    struct kix_buf note = KIX_BUF_INIT;
    json_t *item, *issued, *list = NULL;
    int rc = kix_buf_addf(
        &note, "Manifest %s; kix log %s, entry %llu; verified at checkpoint %llu/%s", c->digest,
        c->origin, (unsigned long long)c->index, (unsigned long long)c->size, c->root);

    if (rc == KIX_OK && c->successor.len)
        rc = kix_buf_addf(&note, "; superseded by %s", (const char *)c->successor.ptr);
    if (rc == KIX_OK)
        rc = kix_buf_addc(&note, '\0');
    item =
        rc ? NULL
           : json_pack("{s:s, s:s, s:s, s:s, s:s, s:o*, s:s}", "id", c->run_id, "type", "dataset",
                       "URL", link_of(c), "publisher", c->origin, "note", (const char *)note.ptr,
                       "accessed", date_parts(c->accessed), "number", c->run_id);
    if (item)
        json_object_set_new(item, "title",
                            c->title[0] ? json_string(c->title)
                                        : json_sprintf("Benchmark run %s", c->run_id));
    if (item && c->published[0] && (issued = date_parts(c->published)))
        json_object_set_new(item, "issued", issued);
    list = item ? json_pack("[o]", item) : NULL;
    rc = list ? kix_doc_dumps(list, KIX_DOC_INDENT | KIX_DOC_SORTED, out, NULL) : KIX_ENOMEM;
    json_decref(list);
    if (rc == KIX_OK)
        rc = kix_buf_addc(out, '\n');
    kix_buf_release(&note);
    return rc;
}
