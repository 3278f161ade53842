/* kix/doc.h — the documents the kix commands print, the one JSON writer
 * every document goes through, and the one table of words for evidence
 * levels, rerun outcomes and entry types.
 *
 * A command's --json is a named, versioned document (its "view" member,
 * as the run view's "kix.run/1"; proto/PROTOCOL.md "Command documents"),
 * built here from what the command verified; its text output is a
 * renderer over that same document (kix_doc_*_text), so text and --json
 * cannot say different things. Everything JSON the kix commands, the
 * views and the pages print is written by kix_doc_dumps: no other code
 * writes JSON text (tools/check-layers.py refuses a printf'd JSON key in
 * client/).
 *
 * Memory: a builder returns a new reference (NULL when out of memory);
 * the caller json_decref()s it. Renderers only read the document.
 */
#ifndef KIX_DOC_H
#define KIX_DOC_H

#include "kix/api.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/note.h"
#include "kix/resolve.h"

/* ---- the writer -------------------------------------------------------- */

#define KIX_DOC_HTML   1u /* escape '/' as "\/": the text can sit in a <script> */
#define KIX_DOC_SORTED 2u /* keys sorted (the view documents); else as built */
#define KIX_DOC_INDENT 4u /* two spaces a level, one member a line (CSL-JSON) */

/* Appends doc (any JSON value) to out: compact unless KIX_DOC_INDENT. */
KIX_API int kix_doc_dumps(const json_t *doc, unsigned flags, struct kix_buf *out,
                          struct kix_err *err) KIX_MUST_CHECK;
/* Writes doc and a newline to f (a command's one line of --json output):
 * KIX_OK, KIX_ENOMEM (doc NULL: a builder ran out of memory) or KIX_EIO. */
KIX_API int kix_doc_print(const json_t *doc, unsigned flags, FILE *f) KIX_MUST_CHECK;

/* ---- the words -------------------------------------------------------- */

/* An evidence level (enum kix_evidence) for people: "Reproduced by a
 * controlled rerun", "Not reproduced by a controlled rerun", "Controlled
 * rerun failed", "Reported evidence". */
KIX_API const char *kix_words_evidence(int evidence);
/* The same with the day of the rerun it rests on (the first 10 bytes of
 * day, "" for none): "Reproduced by a controlled rerun on 2026-10-01".
 * cap >= 64. */
KIX_API void kix_words_evidence_on(int evidence, const char *day, char *out, size_t cap);
/* A rerun's outcome as kix prints it (the wire's name: "reproduced",
 * "not_reproduced", "failed"). */
KIX_API const char *kix_words_outcome(int outcome);
/* An entry type as kix prints it (the wire's name: "publication", ...). */
KIX_API const char *kix_words_entry_type(int type);
/* The table itself, for the verifier's test (tests/tools/kix-js-vectors):
 * row i (0 <= i < KIX_WORDS_EVIDENCE) is evidence level i. */
#define KIX_WORDS_EVIDENCE 4
struct kix_words_row {
    int level;
    const char *name;    /* the wire's (kix_evidence_name) */
    const char *words;   /* kix_words_evidence */
    const char *outcome; /* kix_words_outcome: a rerun's outcome of this level */
};
KIX_API extern const struct kix_words_row kix_words_table[KIX_WORDS_EVIDENCE];

/* ---- the command documents -------------------------------------------- */

#define KIX_DOC_RESOLVE "kix.resolve/1" /* kix resolve */
#define KIX_DOC_CITE    "kix.cite/1"    /* kix cite --json, what verify-citation reads */
#define KIX_DOC_QUERY   "kix.query/1"   /* kix query */
#define KIX_DOC_RANKS   "kix.ranks/1"   /* kix group: one group's ranks */
#define KIX_DOC_AUDIT   "kix.audit/1"   /* kix audit */
#define KIX_DOC_KEYS    "kix.keys/1"    /* kix key list */
#define KIX_DOC_INFO    "kix.info/1"    /* kix info */

/* kix resolve: the verified resolution, read at checkpoint cp of log
 * `origin`. */
KIX_API json_t *kix_doc_resolve(const struct kix_resolution *res, const char *origin,
                                const struct kix_checkpoint *cp);
KIX_API void kix_doc_resolve_text(const json_t *doc, FILE *out);

/* kix cite --json: the citation (text: its one line, `text`), accessed on
 * `date` (YYYY-MM-DD). */
struct kix_cite;
KIX_API json_t *kix_doc_cite(const struct kix_cite *cite, const struct kix_resolution *res,
                             const struct kix_checkpoint *cp, const char *date, const char *text);
KIX_API void kix_doc_cite_text(const json_t *doc, FILE *out);

/* kix query and kix group: the proven page. words[i] is row i's workload
 * in words; whole_group: the page is proven exactly the group's. */
struct kix_doc_page {
    const struct kix_query_row *rows;
    const char *words; /* row i's at words + i * stride */
    size_t stride, n;
    uint64_t matched, offset, index_size;
    size_t groups, selections;
    int whole_group;
};
KIX_API json_t *kix_doc_query(const struct kix_doc_page *p);
/* kix group: the page and the group's withdrawn runs, `withdrawn` a JSON
 * array of {runId, entry, reason} (stolen). */
KIX_API json_t *kix_doc_ranks(const struct kix_doc_page *p, json_t *withdrawn);
/* Both: the columns, then the count and what proved it; kix group's
 * withdrawn runs after. */
KIX_API void kix_doc_query_text(const json_t *doc, FILE *out);

/* kix audit: passed (verdict), or the failure at entry `bad`
 * (KIX_NO_INDEX: not an entry's) with `reason`. */
struct kix_doc_audit {
    int passed, strict;
    uint64_t from, to, files, bad;
    double seconds;
    const char *log, *reason;
    json_t *findings; /* [{index, rule, reason}], borrowed; NULL when failed */
};
KIX_API json_t *kix_doc_audit(const struct kix_doc_audit *a);
KIX_API void kix_doc_audit_text(const json_t *doc, FILE *out);

/* kix key list: one key of the log. */
struct kix_doc_key {
    uint8_t id[32];
    const char *name; /* NULL: unknown (the log records no names) */
    uint32_t note_key_hash;
    unsigned roles;                         /* KIX_ROLE_* bits */
    uint64_t added, roles_changed, revoked; /* KIX_NO_INDEX: not */
};
KIX_API json_t *kix_doc_keys(uint64_t size, const struct kix_doc_key *keys, size_t n);
KIX_API void kix_doc_keys_text(const json_t *doc, FILE *out);

/* kix info: what the server says of itself (unverified). */
struct kix_doc_info {
    const char *origin, *log_key, *version, *upstream, *last_error;
    const char *fork_reason, *fork_evidence;
    uint64_t size, upstream_size, lag_entries, committed, fork_size;
    double lag_seconds;
    int mirror, fork;
    /* 0 when the server names no limits */
    uint64_t max_message, max_in_flight, max_batch, max_entries, max_objects, max_checkpoints,
        max_runs;
};
KIX_API json_t *kix_doc_info(const struct kix_doc_info *i);
KIX_API void kix_doc_info_text(const json_t *doc, FILE *out);

#endif
