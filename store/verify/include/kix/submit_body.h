/* kix/submit_body.h — the JSON body of an HTTP submission (POST /submit,
 * PROTOCOL.md §3.4), and what `kix publish|attest|rerun --sign-only` print.
 *
 * One bundle is {"envelope": DSSE, "objects": [JSON, ...]}: the DSSE
 * envelope (kix/dsse.h) and the objects it needs stored, each as JSON
 * values, not strings. Several are {"bundles": [bundle, ...]}. The same
 * content as a msgpack `submit` (§2.4), which carries each as JSON text.
 *
 * Parsing is strict (kix_canon's checks: no duplicate keys, bounded depth
 * and size) and bounded: at most max_bundles bundles and
 * KIX_SUBMIT_MAX_OBJECTS objects each; no member but those named. Each
 * envelope and object comes out in its RFC 8785 canonical form, the bytes
 * the log stores, so the digests are those the statement names.
 *
 * Memory: kix_submit_body_parse fills *out with buffers it owns; release
 * them with kix_submit_body_release (also after a failed parse). Errors:
 * KIX_EINVAL (not JSON, a missing or unknown member, a wrong type; the
 * message names the member by JSON pointer), KIX_ELIMIT (too many bundles
 * or objects, too large), KIX_ENOMEM.
 */
#ifndef KIX_SUBMIT_BODY_H
#define KIX_SUBMIT_BODY_H

#include "kix/api.h"

#include <stddef.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_SUBMIT_MAX_OBJECTS 64u /* as a msgpack submit's bundle */

struct kix_submit_bundle {
    struct kix_buf envelope; /* canonical JSON */
    struct kix_buf *objects; /* canonical JSON each */
    size_t nobjects;
};

struct kix_submit_body {
    struct kix_submit_bundle *bundles;
    size_t n;
    int single; /* written as one bundle, not {"bundles": [...]} */
};

KIX_API void kix_submit_body_init(struct kix_submit_body *b);
KIX_API void kix_submit_body_release(struct kix_submit_body *b);

KIX_API int kix_submit_body_parse(const uint8_t *json, size_t len, size_t max_bundles,
                                  struct kix_submit_body *out, struct kix_err *err) KIX_MUST_CHECK;

/* Appends the body of n bundles (one bundle's form when n is 1): each
 * envelope and object is JSON text, written out canonical. KIX_EINVAL when
 * one is not JSON. */
KIX_API int kix_submit_body_write(const struct kix_bytes *envelopes,
                                  const struct kix_bytes *const *objects, const size_t *nobjects,
                                  size_t n, struct kix_buf *out,
                                  struct kix_err *err) KIX_MUST_CHECK;

#endif
