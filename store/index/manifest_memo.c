/* What the index reads of each object a submission carries while the log
 * prepares it (kix_log_indexer.prepare), on the parse prepare makes anyway,
 * so that the writer parses no manifest: a run manifest's comparison group
 * (kix/manifest.h), the run its metadata.runId names and the words its
 * selection records list. Runs on the
 * log's prepare threads: it keeps nothing but the memo. */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <stdatomic.h>
#include <string.h>

#include "index_internal.h"
#include "kix/json.h"
#include "kix/manifest.h"

_Static_assert(sizeof(struct kix__manifest_memo) <= KIX_LOG_MEMO_MAX,
               "the memo fits the bytes the log keeps for it");

/* metadata.runId of a parsed object. */
static void note_named_run(const json_t *tree, struct kix__manifest_memo *m)
{
    const json_t *named = json_object_get(json_object_get(tree, "metadata"), "runId");

    m->run_named = KIX__RUN_NAMED_NONE;
    if (!named)
        return;
    m->run_named = KIX__RUN_NAMED_OTHER;
    if (json_is_string(named) && json_string_length(named) <= KIX_RUN_ID_MAX &&
        !memchr(json_string_value(named), 0, json_string_length(named))) {
        memcpy(m->named_run, json_string_value(named), json_string_length(named) + 1);
        m->run_named = KIX__RUN_NAMED_STRING;
    }
}

/* An object that arrived canonical was parsed only if it is a record: a
 * runId in one that was not leaves it to the writer. Its comparison group
 * is read off its bytes (kix_run_comparison_key_canonical) when its top
 * level's kind, if BenchmarkRun, is these very bytes. */
int kix__manifest_memo_prepare(const struct kix_log_object *o, void *memo, struct kix_err *err)
{
    static const char run_kind[] = "\"kind\":\"BenchmarkRun\"";
    struct kix__manifest_memo m;
    char metric[16];

    (void)err;
    memset(&m, 0, sizeof(m));
    if (o->tree)
        note_named_run(o->tree, &m);
    else
        m.run_named = memmem(o->canon.ptr, o->canon.len, "\"runId\":", 8) ? KIX__RUN_NAMED_UNKNOWN
                                                                          : KIX__RUN_NAMED_NONE;
    /* a record's tree is at hand (prepare built it for the schema check,
     * json_loadb's tree also for a canonical manifest): read the group from
     * it, not by walking the bytes again; the walk is for a canonical
     * object prepare built no tree for (none with a kind) */
    if (o->tree)
        m.comparable =
            kix_run_comparison_key_tree(o->tree, &m.comparison_key, &m.value, metric) == KIX_OK;
    else if (o->sent_canonical &&
             memmem(o->canon.ptr, o->canon.len, run_kind, sizeof(run_kind) - 1))
        m.comparable =
            kix_run_comparison_key_canonical(o->canon.ptr, o->canon.len, &m.comparison_key,
                                             &m.value, metric) == KIX_OK;
    /* a comparable run is listed in the selection records: their words
     * read here, on this thread, not on the writer's */
    if (m.comparable && o->tree) {
        struct kix_query_row row;
        memset(&row, 0, sizeof(row));
        kix__query_words_manifest(o->tree, &row, m.refs);
        memcpy(m.mode, row.mode, sizeof(m.mode));
        memcpy(m.metric, row.metric, sizeof(m.metric));
        m.has_words = 1;
    }
    memcpy(memo, &m, sizeof(m));
    return KIX_OK;
}

int kix__manifest_memo_of(const struct kix_log_item *item, struct kix__manifest_memo *out)
{
    const void *memo = kix_log_item_memo(item, &item->entry->subject);

    if (!memo)
        return 0;
    memcpy(out, memo, sizeof(*out));
    return 1;
}

static atomic_uint_fast64_t writer_parses;

void kix__writer_parsed_manifest(void)
{
    atomic_fetch_add_explicit(&writer_parses, 1, memory_order_relaxed);
}

uint64_t kix_index_writer_manifest_parses(void)
{
    return (uint64_t)atomic_load_explicit(&writer_parses, memory_order_relaxed);
}
