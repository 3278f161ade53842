/* kix/cite.h — a run's citation, in the forms `kix cite` prints and a run
 * page's cite box offers: one line of text, a BibTeX @misc entry and
 * CSL-JSON (an array of one item, for Zotero, pandoc and citeproc). Written
 * here once, so the terminal and the page cite alike.
 *
 * Memory: struct kix_cite owns its strings (kix_cite_release); the forms go
 * into caller-owned struct kix_buf. Errors: KIX_ENOMEM.
 */
#ifndef KIX_CITE_H
#define KIX_CITE_H

#include "kix/api.h"

#include "kix/resolve.h"

struct kix_cite {
    struct kix_buf link;      /* the run's permalink */
    struct kix_buf successor; /* superseded: the successor's permalink; len 0 when not */
    char run_id[KIX_RUN_ID_MAX + 1];
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    char origin[256];   /* the log the checkpoint is of */
    char root[64];      /* the checkpoint's root hash, base64 */
    char accessed[16];  /* YYYY-MM-DD */
    char published[11]; /* YYYY-MM-DD of the publication entry, or "" */
    char title[512];    /* the manifest's metadata.title, or "" */
    uint64_t index;     /* the publication entry */
    uint64_t size;      /* the checkpoint's tree size */
};

/* The citation of res's run at the checkpoint (origin, size, root_b64) a
 * reader verified, accessed on `accessed` (YYYY-MM-DD). Permalinks are
 * https://<origin>/runs/<id>. */
KIX_API int kix_cite_init(struct kix_cite *c, const struct kix_resolution *res, const char *origin,
                          uint64_t size, const char *root_b64, const char *accessed) KIX_MUST_CHECK;
/* The same from the signed checkpoint note res carries (its own size). */
KIX_API int kix_cite_init_at_res(struct kix_cite *c, const struct kix_resolution *res,
                                 const char *accessed) KIX_MUST_CHECK;
KIX_API void kix_cite_release(struct kix_cite *c);

/* "<permalink> (<digest>), kix log <origin> entry I, checkpoint S/<root>, accessed D" (no newline)
 */
KIX_API int kix_cite_text(const struct kix_cite *c, struct kix_buf *out) KIX_MUST_CHECK;
/* A @misc entry, ending in a newline. */
KIX_API int kix_cite_bibtex(const struct kix_cite *c, struct kix_buf *out) KIX_MUST_CHECK;
/* [ {one CSL item} ], indented by 2, keys sorted, ending in a newline. */
KIX_API int kix_cite_csl(const struct kix_cite *c, struct kix_buf *out) KIX_MUST_CHECK;

#endif
