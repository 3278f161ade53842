/* The JSON body of POST /submit (kix/submit_body.h), which kixd reads from
 * anyone: a parse either fails cleanly or yields bundles whose envelopes
 * and objects are canonical; written out again (kix_submit_body_write, what
 * --sign-only prints) and parsed again, they come back byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kix/canon.h"
#include "kix/submit_body.h"

static int same(const struct kix_buf *a, const struct kix_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

/* kix_canon gives these bytes back unchanged (kix_canon_is_canonical may
 * say "ask kix_canon" of a canonical document: long escaped keys) */
static int canonical(const struct kix_buf *b)
{
    struct kix_buf again = KIX_BUF_INIT;
    int ok = kix_canon(b->ptr, b->len, NULL, &again, NULL) == KIX_OK && same(b, &again);

    kix_buf_release(&again);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kix_submit_body body, again;
    struct kix_bytes env[4];
    const struct kix_bytes *objs[4];
    struct kix_bytes views[4][KIX_SUBMIT_MAX_OBJECTS];
    size_t nobjs[4];
    struct kix_buf text = KIX_BUF_INIT;

    if (kix_submit_body_parse(data, size, 4, &body, NULL) != KIX_OK) {
        if (body.n != 0 || body.bundles != NULL)
            abort(); /* a failed parse leaves nothing behind */
        return 0;
    }
    if (body.n < 1 || body.n > 4)
        abort();
    for (size_t i = 0; i < body.n; i++) {
        const struct kix_submit_bundle *b = &body.bundles[i];
        if (!canonical(&b->envelope))
            abort();
        for (size_t j = 0; j < b->nobjects; j++) {
            if (!canonical(&b->objects[j]))
                abort();
            views[i][j] = kix_buf_bytes(&b->objects[j]);
        }
        env[i] = kix_buf_bytes(&b->envelope);
        objs[i] = views[i];
        nobjs[i] = b->nobjects;
    }
    if (kix_submit_body_write(env, objs, nobjs, body.n, &text, NULL) != KIX_OK ||
        kix_submit_body_parse(text.ptr, text.len, 4, &again, NULL) != KIX_OK || again.n != body.n)
        abort();
    for (size_t i = 0; i < body.n; i++) {
        if (!same(&body.bundles[i].envelope, &again.bundles[i].envelope) ||
            body.bundles[i].nobjects != again.bundles[i].nobjects)
            abort();
        for (size_t j = 0; j < body.bundles[i].nobjects; j++)
            if (!same(&body.bundles[i].objects[j], &again.bundles[i].objects[j]))
                abort();
    }
    kix_submit_body_release(&again);
    kix_submit_body_release(&body);
    kix_buf_release(&text);
    return 0;
}
