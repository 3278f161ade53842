/* The documents of kix query and kix group, and their text (kix/doc.h). */
#include <stdlib.h>
#include <string.h>

#include "kix/doc.h"
#include "kix/entry.h"
#include "view_internal.h"

#define set kix__json_set
#define S   kix__doc_str
#define U   kix__doc_u64
#define LL  unsigned long long

static json_t *row_json(const struct kix_query_row *row, const char *words)
{
    char digest[KIX_DIGEST_TEXT_LEN + 1], group[KIX_DIGEST_TEXT_LEN + 1];

    kix_digest_format(&row->manifest, digest);
    kix_digest_format(&row->group, group);
    return json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "runId",
                     row->run_id, "digest", digest, "group", group, "rank", (json_int_t)row->rank,
                     "groupSize", (json_int_t)row->group_size, "median", (json_int_t)row->value,
                     "metric", row->metric, "evidence", kix_evidence_name(row->evidence), "kernel",
                     row->kernel, "workload", words, "gpu", row->gpu, "provider", row->provider,
                     "mode", row->mode, "statistic", row->statistic, "source", row->source);
}

static json_t *page_json(const char *view, const struct kix_doc_page *p)
{
    json_t *o = json_object(), *runs;
    int bad = !o || set(o, "view", json_string(view)) || set(o, "runs", runs = json_array());

    for (size_t i = 0; !bad && i < p->n; i++)
        bad |= json_array_append_new(runs, row_json(&p->rows[i], p->words + i * p->stride)) != 0;
    bad = bad || set(o, "matched", json_integer((json_int_t)p->matched)) ||
          set(o, "offset", json_integer((json_int_t)p->offset)) ||
          set(o, "wholeGroup", json_boolean(p->whole_group)) ||
          set(o, "proven",
              json_pack("{s:I,s:I,s:I,s:b,s:b,s:b,s:b}", "indexSize", (json_int_t)p->index_size,
                        "groups", (json_int_t)p->groups, "selections", (json_int_t)p->selections,
                        "ranks", 1, "descriptions", 1, "evidence", 1, "matches", 1));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *kix_doc_query(const struct kix_doc_page *p)
{
    return page_json(KIX_DOC_QUERY, p);
}

json_t *kix_doc_ranks(const struct kix_doc_page *p, json_t *withdrawn)
{
    json_t *o = page_json(KIX_DOC_RANKS, p);

    if (o && set(o, "withdrawn", withdrawn ? withdrawn : json_array())) {
        json_decref(o);
        return NULL;
    }
    if (!o)
        json_decref(withdrawn);
    return o;
}

/* A row's primary statistic for the listing: MiB or microseconds. */
static void value_text(const json_t *row, char *out, size_t cap)
{
    double v = (double)U(row, "median");

    if (strcmp(S(row, "metric"), "peak_memory") == 0)
        snprintf(out, cap, "%.1f MiB", v / 1048576.0);
    else
        snprintf(out, cap, "%.3f us", v / 1000.0);
}

static int width_of(const char *s, int w)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

static const char *or_dash(const char *s)
{
    return s[0] ? s : "-";
}

/* The listing: a line naming each group once (its kernel, workload, GPU,
 * pass, metric), then its rows, every column as wide as its longest value
 * on the page: nothing is cut. */
void kix_doc_query_text(const json_t *doc, FILE *out)
{
    const json_t *runs = json_object_get(doc, "runs"), *row, *w;
    int wrank = 4, wmed = 6, wprov = 8, wev = 8,
        whole = json_is_true(json_object_get(doc, "wholeGroup"));
    char v[40], rank[48];
    uint64_t matched = U(doc, "matched"), n = json_array_size(runs);
    size_t i;

    json_array_foreach(runs, i, row)
    {
        value_text(row, v, sizeof(v));
        snprintf(rank, sizeof(rank), "%llu/%llu", (LL)U(row, "rank"), (LL)U(row, "groupSize"));
        wrank = width_of(rank, wrank);
        wmed = width_of(v, wmed);
        wprov = width_of(S(row, "provider"), wprov);
        wev = width_of(S(row, "evidence"), wev);
    }
    if (n)
        fprintf(out, "  %-*s  %*s  %-*s  %-*s  %s\n", wrank, "rank", wmed, "median", wprov,
                "provider", wev, "evidence", "run");
    json_array_foreach(runs, i, row)
    {
        if (i == 0 || strcmp(S(row, "group"), S(json_array_get(runs, i - 1), "group")) != 0)
            /* the source last: one group never holds two sources' runs */
            fprintf(out,
                    "%s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %llu ranked%s "
                    "\xc2\xb7 group %s \xc2\xb7 source %s\n",
                    S(row, "kernel"), or_dash(S(row, "workload")), or_dash(S(row, "gpu")),
                    or_dash(S(row, "mode")), S(row, "metric"), (LL)U(row, "groupSize"),
                    strcmp(S(row, "statistic"), "mean") == 0 ? " by mean" : "", S(row, "group"),
                    S(row, "source")[0] ? S(row, "source") : "not named");
        value_text(row, v, sizeof(v));
        snprintf(rank, sizeof(rank), "%llu/%llu", (LL)U(row, "rank"), (LL)U(row, "groupSize"));
        fprintf(out, "  %-*s  %*s  %-*s  %-*s  %s\n", wrank, rank, wmed, v, wprov,
                S(row, "provider"), wev, S(row, "evidence"), S(row, "runId"));
    }
    if (n || whole)
        fprintf(out, "%llu matching runs%s; %s proven by the log's signed index at size %llu\n",
                (LL)matched, matched > U(doc, "offset") + n ? " (more with --offset)" : "",
                whole ? "the group's page, ranks and evidence" : "all matches, ranks and evidence",
                (LL)U(json_object_get(doc, "proven"), "indexSize"));
    else
        fprintf(out, "%llu matching runs\n", (LL)matched);
    w = json_object_get(doc, "withdrawn");
    if (json_array_size(w)) {
        fprintf(out, "withdrawn from ranking (%zu, proven by the same index):\n",
                json_array_size(w));
        json_array_foreach(w, i, row)
            fprintf(out, "  %-16s entry %-8llu run %s\n", S(row, "reason"), (LL)U(row, "entry"),
                    S(row, "runId"));
    }
}
