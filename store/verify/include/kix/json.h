/* kix/json.h — the formats layer's JSON trees, for the layers above it.
 *
 * kix parses JSON with jansson. These calls hand out the trees the formats
 * functions work on, so a caller that needs several things of one document
 * (its canonical bytes, references, comparison group, a statement's
 * predicate) parses it once. Everything here is also reachable through the
 * byte-level calls of kix/canon.h, kix/digest.h, kix/manifest.h and
 * kix/dsse.h; this header only saves the repeated parse.
 *
 * Memory: returned json_t values are new references (the caller decrefs);
 * *refs arrays are malloc'ed (the caller frees). Errors as the byte-level
 * calls they mirror.
 */
#ifndef KIX_JSON_H
#define KIX_JSON_H

#include "kix/api.h"

#include <jansson.h>

#include "kix/canon.h"
#include "kix/digest.h"
#include "kix/dsse.h"
#include "kix/entry.h"

/* Strict parse (every check of kix_canon); *value is a new reference. */
KIX_API int kix_canon_parse_tree(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                                 json_t **value, struct kix_err *err) KIX_MUST_CHECK;

/* kix_canon_parse_tree of bytes kix_canon_is_canonical accepted with the
 * same opts (the caller checks that first: this checks no more than it
 * needs to build, so other bytes may give another tree), built without
 * jansson's parser at a fraction of its cost: the same tree, each string
 * the same bytes, an integer literal of at most 18 digits a JSON_INTEGER
 * and other numbers JSON_REAL. */
KIX_API int kix_canon_parse_canonical(const uint8_t *json, size_t len,
                                      const struct kix_canon_opts *opts, json_t **value,
                                      struct kix_err *err) KIX_MUST_CHECK;

/* kix_canon_is_canonical into *canonical and, when it is 1,
 * kix_canon_parse_canonical's tree into *value, from one walk over the
 * bytes (the recogniser builds the tree as it goes): for bytes whose tree
 * is needed only when they are canonical. *value is NULL when they are
 * not; the return is kix_canon_parse_canonical's. */
KIX_API int kix_canon_recognise_tree(const uint8_t *json, size_t len,
                                     const struct kix_canon_opts *opts, int *canonical,
                                     json_t **value, struct kix_err *err) KIX_MUST_CHECK;

/* Appends the canonical form of a jansson value. */
KIX_API int kix_canon_write_tree(const json_t *value, struct kix_buf *out) KIX_MUST_CHECK;

/* kix_refs_extract over a parsed document. */
KIX_API int kix_refs_collect_tree(const json_t *value, struct kix_digest **refs,
                                  size_t *n) KIX_MUST_CHECK;

/* kix_run_comparison_key over a parsed manifest. */
KIX_API int kix_run_comparison_key_tree(const json_t *doc, struct kix_digest *key, uint64_t *value,
                                        char metric[16]);

/* kix_statement_parse that hands out the predicate as a tree instead of
 * copying it out as text. */
KIX_API int kix_statement_parse_tree(const uint8_t *json, size_t len, struct kix_statement *st,
                                     json_t **predicate, struct kix_err *err) KIX_MUST_CHECK;

/* kix_entry_parse_statement that also hands out the predicate's tree
 * (*predicate, a new reference, on success; may be NULL). */
KIX_API int kix_entry_parse_statement_tree(struct kix_entry *e, const uint8_t *payload, size_t len,
                                           json_t **predicate, struct kix_err *err) KIX_MUST_CHECK;

/* An arena for one document's tree on one thread (prepare's record
 * trees): between kix_json_arena_open and kix_json_arena_stop, the jansson
 * values this thread makes are carved from a (16 KiB in it, then blocks of
 * at least that much) and freeing them is nothing; kix_json_arena_release
 * frees them all at once. So a tree made in it is never decref'd: it is
 * read (not changed: a value added to it would be leaked) and dropped by
 * the release, on the thread that made it, and nothing made in it outlives
 * the release. Values made elsewhere, or on this thread outside the window,
 * are malloc'ed and freed as usual. kix_json_arena_open returns 0, and
 * values come from malloc, when an arena is open on this thread already or
 * the program gave jansson an allocator of its own (the arena is jansson's
 * allocator, set once, by kix_json_arena_install or the first open: call
 * that before threads use jansson).
 *
 * Built with ASan, the arena's bytes are poisoned but for the values it
 * has handed out, and the release poisons those too: reading a value after
 * the release, or past its end, is reported as use-after-poison. The
 * poison on the 16 KiB inside the arena stays after the release, until
 * kix_json_arena_end lifts it; it must be lifted before those bytes are
 * used for anything else, above all before the frame holding an arena on
 * the stack returns (GCC's code for the return leaves it, and ASan then
 * reports the next use of that stack). So an arena on the stack is
 * declared KIX_JSON_ARENA_SCOPED (which calls kix_json_arena_end as it
 * goes out of scope), and one elsewhere calls kix_json_arena_end before
 * its memory is reused or freed. kix_json_arena_end reads nothing of the
 * arena (it may never have been opened) and, without ASan, does nothing. */
struct kix__arena_block;
struct kix_json_arena {
    unsigned char *at, *end; /* the free bytes of the current block */
    struct kix__arena_block *more;
    _Alignas(16) unsigned char first[16384];
};
KIX_API void kix_json_arena_install(void);
KIX_API int kix_json_arena_open(struct kix_json_arena *a);
KIX_API void kix_json_arena_stop(struct kix_json_arena *a);
KIX_API void kix_json_arena_release(struct kix_json_arena *a);
KIX_API void kix_json_arena_end(struct kix_json_arena *a);
#if defined(__GNUC__) || defined(__clang__)
#define KIX_JSON_ARENA_SCOPED __attribute__((cleanup(kix_json_arena_end)))
#else
#define KIX_JSON_ARENA_SCOPED /* such a build never poisons the arena (json_arena.c) */
#endif

/* A thread's memo of parsed documents, for a caller that renders many
 * pages from the same stored bytes (kixd export: a run's page, its
 * citation and its group's row read one manifest, and most runs share their
 * objects). Between kix_json_memo_begin and kix_json_memo_end on a
 * thread, kix_json_tree_memo keeps the trees it parses (512 documents, in
 * 128 sets of 4 by their hash, the least recently used of a set replaced;
 * past max_bytes of documents, 0: KIX_JSON_MEMO_BYTES, the least recently
 * used of all dropped) and hands out the kept tree of the very same bytes again
 * (keyed by the bytes, compared whole: never another document's tree).
 * Calls nest; the outermost end frees the trees. */
#define KIX_JSON_MEMO_BYTES (8u << 20)
KIX_API void kix_json_memo_begin(size_t max_bytes);
KIX_API void kix_json_memo_end(void);

/* json_loadb(json, len, 0) (NULL when the bytes are not JSON), a new
 * reference the caller decrefs and must not change (it may be the memo's
 * and be handed out again): from the thread's memo when one is begun. */
KIX_API json_t *kix_json_tree_memo(const uint8_t *json, size_t len);

#endif
