/* kix/pages.h — the index on the web: a run's permalink page
 * (https://<origin>/runs/<runId>) as static HTML and as JSON, a comparison
 * group's page and a home page, rendered server side from one read
 * snapshot. The HTML needs no JavaScript and no third-party resource; its
 * links are relative to the site's root (runs/…, groups/…, tile/…), so the
 * same pages work from kixd --http and from a static copy.
 *
 * What a run page shows: the run id, median with p20/p80 (the manifest's
 * measurements), rank in its group with links to the best run and the
 * group, evidence with the rerun count, attestations, supersession, the
 * workload/protocol/environment/implementation objects it references, a
 * citation block (permalink, manifest digest, log origin and size), the
 * canonical manifest and its digest, and every log entry about the run with
 * links to its level-0 tile and entry bundle (C2SP tlog-tiles paths), so a
 * reader can check it with any tlog-tiles client. Nothing here is verified
 * for the reader: the page is the server's word until checked against the
 * tiles, which the page's script (KIX_PAGE_SCRIPT_PATH, below) does in the
 * reader's browser with the log key the page prints (#log-vkey): the
 * checkpoint's signature, the inclusion of each listed entry (#entries
 * rows, data-index) and the manifest's digest (#manifest, #manifest-digest).
 * Without JavaScript the page reads the same and says how to verify.
 *
 * Memory: output is appended to a caller-owned struct kix_buf.
 * Errors: KIX_ENOTFOUND (no such run or group), KIX_EINVAL (a malformed
 * run id or group key), KIX_ECORRUPT (a stored manifest does not parse),
 * KIX_ENOMEM, and the reader's errors.
 */
#ifndef KIX_PAGES_H
#define KIX_PAGES_H

#include "kix/index.h"

/* The run `run_id` (len bytes) as JSON (one object) or HTML. */
int kix_page_run_json(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err) KIX_MUST_CHECK;
int kix_page_run_html(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err) KIX_MUST_CHECK;

/* The comparison group whose key is the digest text `key` ("sha256:…"):
 * its runs best first (at most 1000). */
int kix_page_group_html(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err) KIX_MUST_CHECK;

/* The home page: the log's size and the kernels and GPUs it ranks, each
 * with its groups. */
int kix_page_home_html(struct kix_log_reader *r, struct kix_buf *out,
                       struct kix_err *err) KIX_MUST_CHECK;

/* Writes the pages into `dir` (created if missing) as files, for a static
 * web server next to the tlog-tiles export: runs/<runId> (HTML),
 * runs/<runId>.json, groups/<key>, index.html. Incremental: DIR/runs/.size
 * remembers the log size the pages were written for (written last), and
 * only the runs that entries since then are about are rewritten, with every
 * run of their comparison groups (whose ranks may have moved) and those
 * groups' pages; the first export writes every run's page. Each file is
 * written atomically. stats (may be NULL): what was written. */
struct kix_pages_export_stats {
    uint64_t from_size, size; /* the log sizes before and after */
    uint64_t runs, groups;    /* pages written */
};

/* The in-browser verifier every run page references (store/index/web/
 * kix-verify.js, compiled in): served and exported at the site root as
 * KIX_PAGE_SCRIPT_PATH. *out borrows static storage. */
#define KIX_PAGE_SCRIPT_PATH "kix-verify.js"
void kix_page_script(struct kix_bytes *out);

int kix_pages_export(struct kix_log *l, const char *dir, struct kix_pages_export_stats *stats,
                     struct kix_err *err) KIX_MUST_CHECK;

#endif
