/* Internal to kix_web: what the page writers (pages.c, run_page.c,
 * group_page.c) and the export (site_export.c) share. */
#ifndef KIX_PAGES_INTERNAL_H
#define KIX_PAGES_INTERNAL_H

#include "kix/pages.h"
#include "kix/template.h"

/* Renders a compiled-in template (kix_embed in CMakeLists.txt). */
int kix__page_render(const unsigned char *tpl, size_t len, const struct kix_tpl *t,
                     struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;

/* The pin every run and group page carries on its #kix-verify element
 * (proto/PROTOCOL.md, "The pages' verifier"): the size and the root
 * (base64) of the checkpoint `cp` (len bytes) the page was written from, set as
 * "pinSize" and "pinRoot" in t, so that the page's verifier refuses
 * another log's proofs and says "stale" of a copy older than the page. */
int kix__page_pin(struct kix_tpl *t, const void *cp, size_t len) KIX_MUST_CHECK;

/* A run's page as the export writes it, from one view: its HTML with the
 * copy's view (KIX_VIEW_JSON_EXPORT: no objects, no index proofs, which
 * the copy holds as files) embedded as #kix-view, the one file of the run
 * (layout 4, proto/PROTOCOL.md §3), and that view's JSON in json (the
 * escaped text the page embeds), each appended to its buffer. */
int kix__page_run_both(struct kix_source *r, const char *run_id, size_t len, struct kix_buf *html,
                       struct kix_buf *json, struct kix_err *err) KIX_MUST_CHECK;
/* The same for page `page` of a group (kix_page_group_html_at's flags):
 * its HTML without #kix-view, whose verifier reads the JSON (page 1:
 * groups/<key>.json, page N: groups/<key>-N.json), the copy's group view
 * (KIX_VIEW_JSON_EXPORT: rows name their runs, no objects or proofs). */
int kix__page_group_both(struct kix_source *r, const char *key, size_t len, uint64_t page,
                         unsigned flags, struct kix_buf *html, struct kix_buf *json,
                         struct kix_err *err) KIX_MUST_CHECK;

/* kix_pages_set_submit_url's text ("" when the pages offer no writing). */
const char *kix__pages_submit_url(void);

#endif
