/* Run and group pages (kix/pages.h): the views of kix/view.h, as
 * their JSON documents or through the templates in templates/. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/pages.h"
#include "kix/template.h"

/* Compiled in from static/kix-verify.js, style.css and templates/
 * (CMakeLists.txt, kix_embed): NUL-terminated, _len without the NUL. */
extern const unsigned char kix__verify_js[], kix__style_css[], kix__group_html[];
extern const size_t kix__verify_js_len, kix__style_css_len, kix__group_html_len;

void kix_page_script(struct kix_bytes *out)
{
    out->ptr = kix__verify_js;
    out->len = kix__verify_js_len;
}

void kix_page_style(struct kix_bytes *out)
{
    out->ptr = kix__style_css;
    out->len = kix__style_css_len;
}

static int render(const unsigned char *tpl, size_t len, const struct kix_tpl *t,
                  struct kix_buf *out, struct kix_err *err)
{
    return kix_tpl_render((const char *)tpl, len, t, out, err);
}

/* The run page: run_page.c. */

/* ---- group ----------------------------------------------------------------------------- */

int kix_page_group_json(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    struct kix_group_view v;
    int rc = kix_group_view_from_store(r, key, len, &v, err);

    if (rc == KIX_OK)
        rc = kix_group_view_json(&v, 0, out, err);
    kix_group_view_release(&v);
    return rc;
}

static int group_slots(struct kix_tpl *t, const struct kix_group_view *v, const struct kix_buf *doc)
{
    int rc;

    if ((rc = kix_tpl_set(t, "group", v->group)) || (rc = kix_tpl_set(t, "origin", v->origin)) ||
        (rc = kix_tpl_set(t, "groupKey", v->group_key)) ||
        (rc = kix_tpl_setf(t, "size", "%llu", (unsigned long long)v->size)) ||
        (rc = kix_tpl_setn(t, "logKey", (const char *)v->log_key.ptr, v->log_key.len)) ||
        (rc = kix_tpl_setn(t, "view", (const char *)doc->ptr, doc->len)) ||
        (rc = kix_tpl_section(t, "rows")))
        return rc;
    for (size_t i = 0; i < v->nrows; i++) {
        struct kix_tpl *row = kix_tpl_row(t, "rows");
        if (!row)
            return KIX_ENOMEM;
        if ((rc = kix_tpl_setf(row, "rank", "%llu", (unsigned long long)v->rows[i].rank)) ||
            (rc = kix_tpl_set(row, "runId", v->rows[i].run_id)) ||
            (rc = kix_tpl_setf(row, "value", "%llu", (unsigned long long)v->rows[i].value)))
            return rc;
    }
    return KIX_OK;
}

int kix_page_group_html(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    struct kix_group_view v;
    struct kix_buf doc = KIX_BUF_INIT;
    struct kix_tpl *t = NULL;
    int rc = kix_group_view_from_store(r, key, len, &v, err);

    if (rc == KIX_OK)
        rc = kix_group_view_json(&v, KIX_VIEW_JSON_HTML, &doc, err);
    if (rc == KIX_OK && (!(t = kix_tpl_new()) || (rc = group_slots(t, &v, &doc)) != KIX_OK))
        rc = kix_err_set(err, rc ? rc : KIX_ENOMEM, "out of memory");
    if (rc == KIX_OK)
        rc = render(kix__group_html, kix__group_html_len, t, out, err);
    kix_tpl_free(t);
    kix_buf_release(&doc);
    kix_group_view_release(&v);
    return rc;
}
