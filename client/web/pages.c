/* What every page shares (kix/pages.h): the verifier script, the style
 * sheet and the template renderer. The pages themselves: run_page.c,
 * group_page.c, home_page.c and kernel_page.c. */
#include <stdio.h>
#include <string.h>

#include "kix/entry.h"
#include "kix/pages.h"
#include "kix/template.h"
#include "pages_internal.h"
#include "web_internal.h"

/* Compiled in from static/kix-verify.js and style.css (CMakeLists.txt,
 * kix_embed): NUL-terminated, _len without the NUL. */
extern const unsigned char kix__verify_js[], kix__style_css[];
extern const size_t kix__verify_js_len, kix__style_css_len;

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

int kix__tpl_run_href(struct kix_tpl *t, const char *slot, const char *run_id)
{
    char name[KIX_RUN_PAGE_NAME_MAX + 1];
    int escaped;

    /* an id with no name (longer than a file name takes once escaped) has
     * no page: the link says its id, and finds nothing */
    if (kix_run_page_name(run_id, strlen(run_id), name, sizeof(name), &escaped) != KIX_OK)
        return kix_tpl_setf(t, slot, "%s.html", run_id);
    return kix_tpl_setf(t, slot, "%s.html", name);
}

int kix__page_render(const unsigned char *tpl, size_t len, const struct kix_tpl *t,
                     struct kix_buf *out, struct kix_err *err)
{
    return kix_tpl_render((const char *)tpl, len, t, out, err);
}

int kix__page_pin(struct kix_tpl *t, const void *cp, size_t len)
{
    /* a checkpoint note: origin, size, root (base64), each on its line */
    const char *p = cp, *end = p + len, *l[4] = {p, NULL, NULL, NULL};
    int rc;

    for (int i = 1; i < 4 && p; i++) {
        const char *nl = l[i - 1] ? memchr(l[i - 1], '\n', (size_t)(end - l[i - 1])) : NULL;
        l[i] = nl ? nl + 1 : NULL;
    }
    if (!p || !l[3]) /* no checkpoint: a page that pins nothing fails in the browser */
        return (rc = kix_tpl_set(t, "pinSize", "")) ? rc : kix_tpl_set(t, "pinRoot", "");
    rc = kix_tpl_setn(t, "pinSize", l[1], (size_t)(l[2] - l[1] - 1));
    return rc ? rc : kix_tpl_setn(t, "pinRoot", l[2], (size_t)(l[3] - l[2] - 1));
}
