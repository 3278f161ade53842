/* Internal to the index layer: run records and the group index, shared by
 * the indexer (indexer.c), the readers (runs.c, groups.c, query.c) and
 * resolve.c. Everything goes through the log's kix/log_txn.h. */
#ifndef KIX_INDEX_INTERNAL_H
#define KIX_INDEX_INTERNAL_H

#include <jansson.h>

#include "kix/encoding.h"
#include "kix/index.h"
#include "kix/selection.h"
#include "kix/smt.h"

/* The index's tables, as it names them to the log (indexer.c), by their
 * position in that list (kix/log_txn.h). */
enum kix__index_table {
    /* run id text → run record; and since kix-index/6, beside it,
     * run id text ‖ 0 ‖ u64be index → entry type (u8): the run's entries;
     * since kix-index/9, under 0 ‖ kind, the numbers run records name
     * their publisher key and comparison group by (numbers.c) */
    KIX_TABLE_RUNS,
    KIX_TABLE_RUN_ENTRIES, /* kix-index/5 and older only: emptied by the rebuild */
    KIX_TABLE_GROUPS, /* group prefix (its number, kix-index/9) ‖ u64be value ‖ run id → page start
                       */
    KIX_TABLE_SMT, /* the verifiable index's tree: position key → record */
    /* the runs that start a page of their group (group_pages.c), in
     * descending rank order: comparison key(32) ‖ u64be ~value ‖ each id
     * byte b as 0xff - b ‖ 0xff → empty; one seek finds a run's page */
    KIX_TABLE_GROUP_STARTS,
    KIX_TABLE_SELECTIONS, /* selection records by index key (sel/...); 'g' ‖ key: listed */
    /* withdrawn runs by group (kix-index/5): comparison key(32) ‖ run id →
     * u64be the withdrawal's index ‖ u8 its reason */
    KIX_TABLE_WITHDRAWN,
    /* entries an older origin logged that today's origin rules refuse
     * (findings.c): u64be index → rule (u8) ‖ message text */
    KIX_TABLE_FINDINGS,
    KIX_INDEX_TABLES
};

/* numbers.c: the number of the name whose record is name_key (→ u32be) in
 * table, KIX_ENOTFOUND when it has none and not make; made, the next
 * number (count_key → u32be, the next one), when make, with *made 1.
 * what names the kind of name in an error. */
int kix__number_of(struct kix_log_txn *t, unsigned table, const void *name_key, size_t nlen,
                   const void *count_key, size_t clen, const char *what, int make, uint32_t *num,
                   int *made, struct kix_err *err);
/* A publisher key's or a comparison group's number (kix-index/9, in
 * KIX_TABLE_RUNS), and back (KIX_ECORRUPT for a number never given);
 * numbers_kept: 1 when the store numbers them, i.e. its run records are
 * kix-index/9's (every one names a numbered publisher). */
enum { KIX__NUMBER_PUBLISHER = 'p', KIX__NUMBER_GROUP = 'g' };
int kix__name_number(struct kix_log_txn *t, int kind, const uint8_t name[32], int make,
                     uint32_t *num, struct kix_err *err);
int kix__number_name(struct kix_log_txn *t, int kind, uint64_t num, uint8_t name[32]);
int kix__numbers_kept(struct kix_log_txn *t);
/* The index's bits of kix_log_txn_memo: numbers_kept's answer, once known
 * in the transaction. */
enum { KIX__MEMO_NUMBERS_KNOWN = 1u, KIX__MEMO_NUMBERS_KEPT = 2u };
/* Every name of kind with its number, in the names' order, through fn
 * (which returns as for kix_log_txn_scan). */
typedef int (*kix__number_fn)(void *ctx, const uint8_t name[32], uint32_t num);
int kix__numbers_each(struct kix_log_txn *t, int kind, kix__number_fn fn, void *ctx);

/* manifest_memo.c: what the index reads of an object while the log
 * prepares it (kix_log_indexer.prepare), so the writer parses no manifest:
 * whether it is a comparable run and its group (kix/manifest.h), and its
 * metadata.runId: KIX__RUN_NAMED_UNKNOWN (not read: read the stored
 * manifest), _NONE, _STRING (named_run, a run id's length at most: a
 * longer one is _OTHER) or _OTHER. */
enum {
    KIX__RUN_NAMED_UNKNOWN = -1,
    KIX__RUN_NAMED_NONE,
    KIX__RUN_NAMED_STRING,
    KIX__RUN_NAMED_OTHER
};
struct kix__manifest_memo {
    int comparable;
    struct kix_digest comparison_key;
    uint64_t value;
    int run_named;
    char named_run[KIX_RUN_ID_MAX + 1];
    /* the selection rule's words of the manifest (kix__query_words_manifest
     * on prepare's parse), so that the writer parses no manifest for them:
     * has_words 0 when prepare made no parse */
    int has_words;
    struct kix_digest refs[KIX_QUERY_NREFS];
    char mode[16], metric[16]; /* kix_query_row's */
};
int kix__manifest_memo_prepare(const struct kix_log_object *o, void *memo, struct kix_err *err);
/* The memo of the item's subject when its submission carried it: 1, *out
 * filled; 0 when it did not (read the stored manifest). */
int kix__manifest_memo_of(const struct kix_log_item *item, struct kix__manifest_memo *out);
/* One more manifest the writer parsed (kix_index_writer_manifest_parses). */
void kix__writer_parsed_manifest(void);

/* indexer.c: the origin rule entry e breaks (enum kix_finding_rule, why
 * says how) or 0; run: the record of the run a rerun is about, before it. */
int kix__origin_finding(const struct kix_entry *e, const struct kix_run_info *run,
                        struct kix_err *why);

/* findings.c: notes that replayed entry item breaks today's origin rule
 * (message: what and why), for kix audit, mirrors and kixd check. */
int kix__finding_put(struct kix_log_txn *t, uint64_t index, int rule, const char *message,
                     struct kix_err *err) KIX_MUST_CHECK;

/* Run record (runs.c): since kix-index/7 a variable layout, at most
 * RUN_RECORD_MAX bytes; the fixed layouts of kix-index/6 and older
 * (RUN_RECORD_LEN_V1..V3 bytes, which the variable one never is) are read. */
#define RUN_RECORD_LEN_V1 (32 + 32 + 8 * 7 + 1 + 32 + 8 + 1)
#define RUN_RECORD_LEN_V2 (RUN_RECORD_LEN_V1 + 32)
#define RUN_RECORD_LEN_V3 (RUN_RECORD_LEN_V2 + 8) /* kix-index/5: withdrawn_index */
#define RUN_RECORD_MAX    (32 + 32 + 2 + 9 * KIX_UVARINT_MAX + 32 + 32 + 1)
/* kix-index/7's layout, every key in full: what the index check compares */
size_t kix__run_record_encode(const struct kix_run_info *r, uint8_t out[RUN_RECORD_MAX]);
/* Any stored layout; kix-index/9's names its keys by number (numbers.c)
 * and may leave the entries chain to be computed, both read through t. */
int kix__run_record_decode(struct kix_log_txn *t, const uint8_t *data, size_t len,
                           struct kix_run_info *r);

/* A run's record by id: KIX_ENOTFOUND when unknown (or not a run id). */
int kix__run_get(struct kix_log_txn *t, const char *run_id, size_t len, struct kix_run_info *r);
int kix__run_put(struct kix_log_txn *t, const struct kix_run_info *r, struct kix_err *err);
/* Notes that entry `index` of type `type` is about run_id (a publication
 * is not stored: since kix-index/9 the run's record says its index). */
int kix__run_entry_put(struct kix_log_txn *t, const char *run_id, size_t len, uint64_t index,
                       int type, struct kix_err *err);

/* indexer.c: what entry e at `index` does to the record of the run it is
 * about (run; zeroed and filled for a publication) and, for a
 * supersession, of its successor (new_run). Pure: the writer and the index
 * check (index_check.c) share it. A publication's comparison group is the
 * caller's to set (it needs the manifest); a supersession ungroups run. */
void kix__run_step(const struct kix_entry *e, uint64_t index, const struct kix_hash *leaf_hash,
                   struct kix_run_info *run, struct kix_run_info *new_run);

/* vindex_build.c: the verifiable index kept beside the tables. */
/* Notes that `key` changed in this batch: seal derives its record from
 * the tables, or takes `record` (may be NULL) when the caller has it and
 * it cannot change later in the batch (a manifest's). */
int kix__vindex_touch(struct kix_log_txn *t, const char *key, size_t len, const uint8_t *record,
                      size_t record_len, struct kix_err *err) KIX_MUST_CHECK;
/* The record of any index key derived from the tables in t, appended to
 * out: KIX_ENOTFOUND when the key has none (absent from the tree). */
int kix__vindex_value(struct kix_log_txn *t, const char *key, size_t len, struct kix_buf *out,
                      struct kix_err *err) KIX_MUST_CHECK;
/* The committed record of a run (its links read from the entries in t). */
int kix__vindex_run_record(struct kix_log_txn *t, const struct kix_run_info *run,
                           struct kix_buf *out, struct kix_err *err) KIX_MUST_CHECK;
int kix__vindex_seal(struct kix_log_txn *t, const char *origin, uint64_t size,
                     const struct kix_hash *log_root, struct kix_buf *note, struct kix_err *err);
int kix__vindex_reset(struct kix_log_txn *t, struct kix_err *err);
/* The tree's storage through t: tiles (kix_smt_tiles) in KIX_TABLE_SMT.
 * Use tiles->io; a writer flushes after kix_smt_apply; release after. */
void kix__smt_tiles(struct kix_smt_tiles *tiles, struct kix_log_txn *t);

/* tile_keep.c: the tree's tiles (unpacked, by store key) kept between the
 * writer's transactions, each with the slots whose hash in their parent
 * this process computed (kix_smt_tile_vouched when it was kept). get:
 * NULL when not kept (and through a reader); put: after the tile was read
 * from or written to the store in t. */
const uint8_t *kix__tile_keep_get(struct kix_log_txn *t, const uint8_t *key, size_t klen,
                                  size_t *len, unsigned *vouched);
void kix__tile_keep_put(struct kix_log_txn *t, const uint8_t *key, size_t klen, const uint8_t *val,
                        size_t len, unsigned vouched);

/* groups.c: puts run in the comparison group its manifest names, if it
 * names one (kix/manifest.h): grouped, comparison_key and value are set
 * together or not at all. The writer and the index check share it. */
void kix__run_group_by_manifest(struct kix_run_info *run, const uint8_t *manifest, size_t len);

/* group_pages.c: the group as the verifiable index pages it (kix/vindex.h).
 * page_of: the id of the page holding run ("" the first page); reflow:
 * after run joined or left the group table, recuts the pages from the
 * last start before it to the next hash start after it (the group-table
 * flags and the starts table) and notes every page that may have changed;
 * directory and page: the records (a page whose starting run is no
 * member, or starts no page now: empty). */
int kix__group_page_of(struct kix_log_txn *t, const struct kix_run_info *run,
                       char page_id[KIX_RUN_ID_MAX + 1]);
int kix__group_reflow(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err);
/* A run that started a page left the group table: out of the starts
 * table, its page noted (it stays, empty). */
int kix__group_unstart(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err);
int kix__group_directory(struct kix_log_txn *t, const struct kix_digest *group, struct kix_buf *out,
                         struct kix_err *err);
int kix__group_page(struct kix_log_txn *t, const struct kix_digest *group, const char *page_id,
                    size_t id_len, struct kix_buf *out, struct kix_err *err);

/* indexer.c: a group's withdrawn runs as the index commits them
 * (withdrawn/<hex>, kix/vindex.h), from KIX_TABLE_WITHDRAWN: always a
 * record (count 0 when none). */
int kix__withdrawn_record(struct kix_log_txn *t, const struct kix_digest *group,
                          struct kix_buf *out, struct kix_err *err);

/* groups.c: a comparison group's prefix in the group index since
 * kix-index/9: its number (numbers.c), u32be, made when make; else
 * KIX_ENOTFOUND for a group never numbered, which has no member. */
#define KIX__GROUP_PREFIX 4
#define KIX__GROUP_ID_AT  (KIX__GROUP_PREFIX + 8) /* where a member's run id begins */
int kix__group_prefix(struct kix_log_txn *t, const struct kix_digest *g, int make,
                      uint8_t out[KIX__GROUP_PREFIX], struct kix_err *err);
/* *ranks: 1 when the group of prefix has a member in the group index. */
int kix__group_ranks(struct kix_log_txn *t, const uint8_t prefix[KIX__GROUP_PREFIX], int *ranks);

/* groups.c: the group index (group prefix ‖ u64be value ‖ run id →
 * KIX_GROUP_STARTS_HASH when the run starts a page of the group by the
 * hash rule, KIX_GROUP_STARTS_FULL when it starts one because the page
 * before it is full, else empty). */
enum { KIX_GROUP_STARTS_HASH = 1, KIX_GROUP_STARTS_FULL = 2 };
int kix__group_insert(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err);
int kix__group_remove(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err);

/* query.c: a row's words (kix_query_row_describe) in parts, from parsed
 * documents (NULL: missing): the manifest's timed pass and metric (row may
 * be NULL) and the objects it names (refs may be NULL); then each object's
 * (which: KIX_QUERY_WORKLOAD etc.; gpu_full for the environment). */
void kix__query_words_manifest(const json_t *doc, struct kix_query_row *row,
                               struct kix_digest refs[KIX_QUERY_NREFS]);
void kix__query_words_object(int which, const json_t *obj, struct kix_query_row *row,
                             char *gpu_full, size_t gpu_cap);

/* query.c: a row's words from its run's manifest and objects (KIX_ECORRUPT
 * when the manifest is missing). query_selected.c: kix_index_query for a
 * query with filters, from the selection records. */
int kix__query_describe(struct kix_log_reader *r, const struct kix_run_info *run,
                        struct kix_query_row *row, char *gpu_full, size_t gpu_cap);
int kix__query_selected(struct kix_log_reader *r, const struct kix_query *q, kix_query_fn fn,
                        void *ctx, uint64_t *matched);

/* selections.c: the selection records (kix/selection.h). One rule for
 * the writer and the check: what a ranked run's publication appends, given
 * its manifest and a way to its objects. */
/* The words for dim of the object d names (kix__sel_object_words) into
 * out: KIX_ENOTFOUND when the object is missing (its words are empty). */
typedef int (*kix__sel_object_fn)(void *ctx, int dim, const struct kix_digest *d, char *out,
                                  size_t cap);
void kix__sel_object_words(int dim, const uint8_t *bytes, size_t len, char *out, size_t cap);
struct kix__sel_sink {
    /* *is_new: the group was not listed before (it is now) */
    int (*new_group)(void *ctx, const struct kix_digest *g, int *is_new, struct kix_err *err);
    /* item onto the list of (dim, value), or of dim's values (value NULL);
     * *created: the list was empty */
    int (*append)(void *ctx, int dim, const char *value, const uint8_t *item, size_t len,
                  int *created, struct kix_err *err);
    void *ctx;
};
int kix__sel_publication(const struct kix__sel_sink *s, const struct kix_run_info *run,
                         const struct kix_bytes *manifest, kix__sel_object_fn object, void *octx,
                         struct kix_err *err);
/* The same rule given the manifest's words (mode and metric of row, and
 * refs: kix__query_words_manifest's) instead of its bytes. */
int kix__sel_publication_words(const struct kix__sel_sink *s, const struct kix_run_info *run,
                               const struct kix_query_row *row,
                               const struct kix_digest refs[KIX_QUERY_NREFS],
                               kix__sel_object_fn object, void *octx, struct kix_err *err);
/* The writer's: a publication's appends to KIX_TABLE_SELECTIONS (keys
 * touched for the seal), and a key's stored record (KIX_ENOTFOUND). */
int kix__sel_apply(struct kix_log_txn *t, const struct kix_log_item *item,
                   const struct kix_run_info *run, struct kix_err *err);
int kix__sel_value(struct kix_log_txn *t, const char *key, size_t len, struct kix_buf *out,
                   struct kix_err *err);
/* Every item of the list of (dim, value) (value NULL: dim's values) as the
 * writer stored it, in order, through fn (non-zero stops with that code). */
int kix__sel_items(struct kix_log_txn *t, int dim, const char *value, kix_sel_item_fn fn,
                   void *ctx);
/* Every stored list, in the order of its index key ("sel/..."), with its
 * item count, through fn (non-zero stops the walk; a negative value is
 * returned as the code). */
typedef int (*kix__sel_list_fn)(void *ctx, const char *key, size_t len, uint64_t items);
int kix__sel_each_list(struct kix_log_txn *t, kix__sel_list_fn fn, void *ctx);
/* The check's: the same lists in memory, then every record they make. */
struct kix__sel_memory;
struct kix__sel_memory *kix__sel_memory_new(void);
void kix__sel_memory_free(struct kix__sel_memory *m);
int kix__sel_memory_add(struct kix__sel_memory *m, struct kix_log_reader *r,
                        const struct kix_run_info *run, struct kix_err *err);
typedef int (*kix__sel_record_fn)(void *ctx, const char *key, size_t len,
                                  const struct kix_buf *record);
int kix__sel_memory_each(struct kix__sel_memory *m, kix__sel_record_fn fn, void *ctx);

#endif
