/* kix_index_check: the index recomputed from the log and compared with the
 * one stored, so that an edited run record, entry list or group (a rank
 * that is the server's word) is named where it is. One pass over the
 * entries of one snapshot, the recomputed runs in memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/encoding.h"

struct run_slot {
    struct kix_run_info info;
    struct kix_run_entry *entries;
    size_t nentries, cap;
};

struct checker {
    struct kix_log_reader *r;
    const struct kix_check_opts *opts;
    struct kix_check_stats *stats;
    struct run_slot **table; /* open addressing by run id */
    size_t cap, nruns;
    uint64_t issues, max_issues;
    struct kix_err first;
};

static uint64_t hash_id(const char *id)
{
    uint64_t h = 1469598103934665603ull;
    for (; *id; id++)
        h = (h ^ (uint8_t)*id) * 1099511628211ull;
    return h;
}

static struct run_slot **slot_of(struct checker *c, const char *id)
{
    size_t i = (size_t)hash_id(id) & (c->cap - 1);
    while (c->table[i] && strcmp(c->table[i]->info.run_id, id) != 0)
        i = (i + 1) & (c->cap - 1);
    return &c->table[i];
}

static int grow(struct checker *c)
{
    struct run_slot **old = c->table;
    size_t oldcap = c->cap;

    c->cap = oldcap ? oldcap * 2 : 1024;
    c->table = calloc(c->cap, sizeof(*c->table));
    if (!c->table) {
        c->table = old;
        c->cap = oldcap;
        return KIX_ENOMEM;
    }
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            *slot_of(c, old[i]->info.run_id) = old[i];
    free(old);
    return KIX_OK;
}

static struct run_slot *find(struct checker *c, const char *id)
{
    return c->cap ? *slot_of(c, id) : NULL;
}

static int add_entry(struct run_slot *s, uint64_t index, int type)
{
    if (s->nentries == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        struct kix_run_entry *n = realloc(s->entries, cap * sizeof(*n));
        if (!n)
            return KIX_ENOMEM;
        s->entries = n;
        s->cap = cap;
    }
    s->entries[s->nentries].index = index;
    s->entries[s->nentries].type = type;
    s->nentries++;
    return KIX_OK;
}

/* Reports one problem; KIX_ECORRUPT once max_issues were reported (stop). */
static int report(struct checker *c, const char *table, uint64_t index, const char *where,
                  const char *fmt, ...) KIX_PRINTF(5, 6);

static int report(struct checker *c, const char *table, uint64_t index, const char *where,
                  const char *fmt, ...)
{
    struct kix_check_issue is;
    va_list ap;

    memset(&is, 0, sizeof(is));
    is.table = table;
    is.index = index;
    snprintf(is.where, sizeof(is.where), "%s", where);
    va_start(ap, fmt);
    vsnprintf(is.message, sizeof(is.message), fmt, ap);
    va_end(ap);
    if (c->issues++ == 0)
        kix_err_set(&c->first, KIX_ECORRUPT, "%s: %s", is.where, is.message);
    if (c->opts && c->opts->issue)
        c->opts->issue(c->opts->issue_ctx, &is);
    return c->issues >= c->max_issues ? KIX_ECORRUPT : KIX_OK;
}

/* The comparison group a publication's manifest puts its run in. */
static void group_of(struct checker *c, struct kix_run_info *run)
{
    struct kix_bytes m;

    if (kix_log_reader_object(c->r, &run->manifest, &m) == KIX_OK)
        kix__run_group_by_manifest(run, m.ptr, m.len);
}

static int replay_one(struct checker *c, uint64_t index, const struct kix_entry *e)
{
    struct run_slot *run = NULL, *next = NULL;
    struct kix_run_info scratch;
    char where[64 + KIX_RUN_ID_MAX];
    int rc;

    if (e->type == KIX_ENTRY_KEY)
        return KIX_OK;
    snprintf(where, sizeof(where), "leaves u64:%llu", (unsigned long long)index);
    if (e->type == KIX_ENTRY_PUBLICATION) {
        if (find(c, e->run_id))
            return report(c, "leaves", index, where, "run %s is published twice", e->run_id);
        if (2 * (c->nruns + 1) > c->cap && (rc = grow(c)) != KIX_OK)
            return rc;
        run = calloc(1, sizeof(*run));
        if (!run)
            return KIX_ENOMEM;
        kix__run_step(e, index, &run->info, &scratch);
        group_of(c, &run->info);
        *slot_of(c, e->run_id) = run;
        c->nruns++;
        return add_entry(run, index, e->type);
    }
    run = find(c, e->run_id);
    if (e->type == KIX_ENTRY_SUPERSESSION)
        next = find(c, e->new_run_id);
    if (!run || (e->type == KIX_ENTRY_SUPERSESSION && !next))
        return report(c, "leaves", index, where, "entry %llu is about a run never published",
                      (unsigned long long)index);
    kix__run_step(e, index, &run->info, next ? &next->info : &scratch);
    rc = add_entry(run, index, e->type);
    if (rc == KIX_OK && next)
        rc = add_entry(next, index, e->type);
    return rc;
}

/* The stored record and entry list of one recomputed run. */
static int compare_run(struct checker *c, struct run_slot *s)
{
    struct kix_run_info stored;
    struct kix_run_entry *list = NULL;
    uint8_t want[RUN_RECORD_LEN], got[RUN_RECORD_LEN];
    char where[16 + KIX_RUN_ID_MAX];
    size_t n = 0;
    int rc = kix_index_run(c->r, s->info.run_id, strlen(s->info.run_id), &stored);

    snprintf(where, sizeof(where), "runs %s", s->info.run_id);
    if (rc == KIX_ENOTFOUND)
        return report(c, "runs", s->info.publication_index, where,
                      "run %s is published at entry %llu but has no record", s->info.run_id,
                      (unsigned long long)s->info.publication_index);
    if (rc)
        return report(c, "runs", s->info.publication_index, where,
                      "the record of run %s does not decode", s->info.run_id);
    kix__run_record_encode(&s->info, want);
    kix__run_record_encode(&stored, got);
    if (memcmp(want, got, sizeof(want)) != 0)
        rc = report(c, "runs", s->info.publication_index, where,
                    "the record of run %s is not what its entries make: evidence %s (want %s), "
                    "%llu attestations (want %llu), %llu reruns (want %llu), %s (want %s), "
                    "value %llu (want %llu)",
                    s->info.run_id, kix_evidence_name(stored.evidence),
                    kix_evidence_name(s->info.evidence), (unsigned long long)stored.attestations,
                    (unsigned long long)s->info.attestations, (unsigned long long)stored.reruns,
                    (unsigned long long)s->info.reruns, stored.grouped ? "ranked" : "unranked",
                    s->info.grouped ? "ranked" : "unranked", (unsigned long long)stored.value,
                    (unsigned long long)s->info.value);
    if (rc)
        return rc;
    rc = kix_index_run_entries(c->r, s->info.run_id, strlen(s->info.run_id), &list, &n);
    /* field by field: the struct's padding is not part of the list */
    int differ = n != s->nentries;
    for (size_t i = 0; rc == KIX_OK && !differ && i < n; i++)
        differ = list[i].index != s->entries[i].index || list[i].type != s->entries[i].type;
    if (rc == KIX_OK && differ) {
        snprintf(where, sizeof(where), "run_entries %s", s->info.run_id);
        rc = report(c, "run_entries", s->info.publication_index, where,
                    "run %s lists %zu entries, its entries make %zu (or others)", s->info.run_id, n,
                    s->nentries);
    }
    free(list);
    return rc;
}

struct scan {
    struct checker *c;
    uint64_t records;
    int rc;
};

/* Every stored group record belongs to a ranked run with that group and
 * value; a record for anything else is an edit. */
static int group_record(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct scan *sc = arg;
    struct run_slot *s;
    char id[KIX_RUN_ID_MAX + 1], where[200];
    size_t n;

    (void)val;
    if (key->len <= 40 || key->len - 40 > KIX_RUN_ID_MAX)
        return 0;
    n = key->len - 40;
    memcpy(id, key->ptr + 40, n);
    id[n] = '\0';
    sc->records++;
    s = find(sc->c, id);
    if (s && s->info.grouped && memcmp(s->info.comparison_key.b, key->ptr, 32) == 0 &&
        s->info.value == kix_u64be_get(key->ptr + 32))
        return 0;
    snprintf(where, sizeof(where), "groups %s", id);
    sc->rc = report(sc->c, "groups", s ? s->info.publication_index : KIX_NO_INDEX, where,
                    "the group index ranks run %s with value %llu where the log %s", id,
                    (unsigned long long)kix_u64be_get(key->ptr + 32),
                    !s                 ? "has no such run"
                    : !s->info.grouped ? "ranks it nowhere"
                                       : "puts it in another group or with another value");
    return sc->rc ? sc->rc : 0;
}

/* Every stored run record belongs to a published run. */
static int run_record(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct scan *sc = arg;
    char id[KIX_RUN_ID_MAX + 1], where[200];

    (void)val;
    if (key->len == 0 || key->len > KIX_RUN_ID_MAX)
        return 0;
    memcpy(id, key->ptr, key->len);
    id[key->len] = '\0';
    sc->records++;
    if (find(sc->c, id))
        return 0;
    snprintf(where, sizeof(where), "runs %s", id);
    sc->rc = report(sc->c, "runs", KIX_NO_INDEX, where,
                    "run %s has a record but no publication in the log", id);
    return sc->rc ? sc->rc : 0;
}

int kix_index_check(struct kix_log *l, const struct kix_check_opts *opts,
                    struct kix_index_check_stats *stats, struct kix_err *err)
{
    struct checker c;
    struct scan sc = {&c, 0, KIX_OK};
    uint64_t size, grouped = 0;
    int rc;

    memset(&c, 0, sizeof(c));
    c.opts = opts;
    c.max_issues = opts && opts->max_issues ? opts->max_issues : 100;
    if (stats)
        memset(stats, 0, sizeof(*stats));
    rc = kix_log_read_begin(l, &c.r);
    if (rc)
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    size = kix_log_reader_size(c.r);
    for (uint64_t i = 0; rc == KIX_OK && i < size; i++) {
        struct kix_bytes leaf;
        struct kix_entry e;
        if (kix_log_reader_entry(c.r, i, &leaf) != KIX_OK ||
            kix_entry_parse_leaf(leaf.ptr, leaf.len, &e, NULL) != KIX_OK)
            continue; /* kix_log_check names entries that are missing or do not parse */
        rc = replay_one(&c, i, &e);
        kix_entry_release(&e);
        if (opts && opts->progress && (i & 4095) == 0)
            opts->progress(opts->progress_ctx, "index", i, size);
    }
    for (size_t i = 0; rc == KIX_OK && i < c.cap; i++)
        if (c.table[i]) {
            grouped += c.table[i]->info.grouped;
            rc = compare_run(&c, c.table[i]);
        }
    if (rc == KIX_OK)
        rc =
            kix_log_txn_scan(kix_log_reader_txn(c.r), KIX_TABLE_GROUPS, NULL, 0, group_record, &sc);
    if (rc == KIX_OK && sc.rc == KIX_OK && sc.records != grouped)
        rc = report(&c, "groups", KIX_NO_INDEX, "groups",
                    "the group index holds %llu records for %llu ranked runs",
                    (unsigned long long)sc.records, (unsigned long long)grouped);
    sc.records = 0;
    if (rc == KIX_OK && sc.rc == KIX_OK)
        rc = kix_log_txn_scan(kix_log_reader_txn(c.r), KIX_TABLE_RUNS, NULL, 0, run_record, &sc);
    if (stats) {
        stats->entries = size;
        stats->runs = c.nruns;
        stats->ranked = grouped;
        stats->issues = c.issues;
    }
    for (size_t i = 0; i < c.cap; i++)
        if (c.table[i]) {
            free(c.table[i]->entries);
            free(c.table[i]);
        }
    free(c.table);
    kix_log_read_end(c.r);
    if (rc == KIX_ECORRUPT || (rc == KIX_OK && c.issues)) {
        if (err) {
            *err = c.first;
            kix_err_wrap(err, "%llu index problem%s found", (unsigned long long)c.issues,
                         c.issues == 1 ? "" : "s");
        }
        return KIX_ECORRUPT;
    }
    return rc ? kix_err_set(err, rc, "checking the index: %s", kix_strerror(rc)) : KIX_OK;
}
