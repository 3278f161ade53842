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
#include "kix/vindex.h"

struct run_slot {
    struct kix_run_info info;
    int damaged;         /* an entry about it does not hash as logged (kix_log_check names it) */
    int withdraw_reason; /* of the withdrawal in force */
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
    /* for the verifiable index: registry keys met, groups ever joined,
     * groups a run of which was ever withdrawn */
    struct kix_hash *keys, *groups, *wgroups;
    size_t nkeys, ngroups, cap_keys, cap_groups, nwgroups, cap_wgroups;
    uint64_t damaged;
    struct kix__sel_memory *sel; /* the selection lists, replayed */
    uint64_t findings;
};

/* An entry today's origin rules refuse, which an older origin logged (and
 * a replica or rebuild took): a finding, reported apart from problems. */
static int finding(struct checker *c, uint64_t index, const struct kix_entry *e,
                   const struct kix_run_info *run)
{
    struct kix_check_issue is;
    struct kix_err why = {0};
    int rule = kix__origin_finding(e, run, &why);

    if (!rule)
        return KIX_OK;
    c->findings++;
    if (!c->opts || !c->opts->finding)
        return KIX_OK;
    memset(&is, 0, sizeof(is));
    is.table = "findings";
    is.index = index;
    snprintf(is.where, sizeof(is.where), "%s", kix_finding_rule_name(rule));
    snprintf(is.message, sizeof(is.message), "%s", why.msg);
    c->opts->finding(c->opts->finding_ctx, &is);
    return KIX_OK;
}

static int push_hash(struct kix_hash **a, size_t *n, size_t *cap, const uint8_t h[32])
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct kix_hash *g = realloc(*a, c * sizeof(*g));
        if (!g)
            return KIX_ENOMEM;
        *a = g;
        *cap = c;
    }
    memcpy((*a)[(*n)++].b, h, 32);
    return KIX_OK;
}

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
    struct kix_run_entry *n = kix_array_grow(s->entries, &s->cap, s->nentries, 4, sizeof(*n));
    if (!n)
        return KIX_ENOMEM;
    s->entries = n;
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

static int replay_one(struct checker *c, uint64_t index, const struct kix_hash *leaf_hash,
                      int damaged, const struct kix_entry *e)
{
    struct run_slot *run = NULL, *next = NULL;
    struct kix_run_info scratch;
    char where[64 + KIX_RUN_ID_MAX];
    int rc;

    if (e->type == KIX_ENTRY_KEY)
        return push_hash(&c->keys, &c->nkeys, &c->cap_keys, e->subject.b);
    if (e->type == KIX_ENTRY_POLICY)
        return KIX_OK; /* about no run */
    snprintf(where, sizeof(where), "leaves u64:%llu", (unsigned long long)index);
    if ((e->type == KIX_ENTRY_PUBLICATION || e->type == KIX_ENTRY_RERUN) &&
        (rc = finding(c, index, e,
                      e->type == KIX_ENTRY_RERUN && find(c, e->run_id) ? &find(c, e->run_id)->info
                                                                       : NULL)) != KIX_OK)
        return rc;
    if (e->type == KIX_ENTRY_PUBLICATION) {
        if (find(c, e->run_id))
            return report(c, "leaves", index, where, "run %s is published twice", e->run_id);
        if (2 * (c->nruns + 1) > c->cap && (rc = grow(c)) != KIX_OK)
            return rc;
        run = calloc(1, sizeof(*run));
        if (!run)
            return KIX_ENOMEM;
        kix__run_step(e, index, leaf_hash, &run->info, &scratch);
        group_of(c, &run->info);
        if (run->info.grouped &&
            push_hash(&c->groups, &c->ngroups, &c->cap_groups, run->info.comparison_key.b))
            return KIX_ENOMEM;
        if ((rc = kix__sel_memory_add(c->sel, c->r, &run->info, NULL)) != KIX_OK) {
            free(run);
            return rc;
        }
        *slot_of(c, e->run_id) = run;
        c->nruns++;
        run->damaged |= damaged;
        return add_entry(run, index, e->type);
    }
    run = find(c, e->run_id);
    if (e->type == KIX_ENTRY_SUPERSESSION)
        next = find(c, e->new_run_id);
    if (!run || (e->type == KIX_ENTRY_SUPERSESSION && !next))
        return report(c, "leaves", index, where, "entry %llu is about a run never published",
                      (unsigned long long)index);
    kix__run_step(e, index, leaf_hash, &run->info, next ? &next->info : &scratch);
    run->damaged |= damaged;
    if (e->type == KIX_ENTRY_WITHDRAWAL) {
        static const uint8_t no_group[32];
        run->withdraw_reason = e->withdraw_reason;
        if (memcmp(run->info.comparison_key.b, no_group, 32) != 0 &&
            push_hash(&c->wgroups, &c->nwgroups, &c->cap_wgroups, run->info.comparison_key.b))
            return KIX_ENOMEM;
    }
    if (next)
        next->damaged |= damaged;
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
    uint8_t want[RUN_RECORD_MAX], got[RUN_RECORD_MAX];
    char where[16 + KIX_RUN_ID_MAX];
    size_t n = 0, wlen, glen;
    int rc = kix_index_run(c->r, s->info.run_id, strlen(s->info.run_id), &stored);

    snprintf(where, sizeof(where), "runs %s", s->info.run_id);
    if (rc == KIX_ENOTFOUND)
        return report(c, "runs", s->info.publication_index, where,
                      "run %s is published at entry %llu but has no record", s->info.run_id,
                      (unsigned long long)s->info.publication_index);
    if (rc)
        return report(c, "runs", s->info.publication_index, where,
                      "the record of run %s does not decode", s->info.run_id);
    wlen = kix__run_record_encode(&s->info, want);
    glen = kix__run_record_encode(&stored, got);
    if (wlen != glen || memcmp(want, got, wlen) != 0)
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
    uint8_t prefix[KIX__GROUP_PREFIX];
    uint64_t value;
    size_t n;
    int same_group;

    if (key->len <= KIX__GROUP_ID_AT || key->len - KIX__GROUP_ID_AT > KIX_RUN_ID_MAX)
        return 0;
    n = key->len - KIX__GROUP_ID_AT;
    memcpy(id, key->ptr + KIX__GROUP_ID_AT, n);
    id[n] = '\0';
    value = kix_u64be_get(key->ptr + KIX__GROUP_PREFIX);
    sc->records++;
    s = find(sc->c, id);
    /* the prefix is the number the store gave the run's group */
    same_group = s &&
                 kix__group_prefix(kix_log_reader_txn(sc->c->r), &s->info.comparison_key, 0, prefix,
                                   NULL) == KIX_OK &&
                 memcmp(prefix, key->ptr, KIX__GROUP_PREFIX) == 0;
    if (s && s->info.grouped && same_group && s->info.value == value && val->len <= 1 &&
        (val->len == 1 && val->ptr[0] == KIX_GROUP_STARTS_HASH) == kix_vindex_page_starts(id, n) &&
        (val->len == 0 || val->ptr[0] == KIX_GROUP_STARTS_HASH ||
         val->ptr[0] == KIX_GROUP_STARTS_FULL))
        return 0;
    snprintf(where, sizeof(where), "groups %s", id);
    sc->rc = report(sc->c, "groups", s ? s->info.publication_index : KIX_NO_INDEX, where,
                    "the group index ranks run %s with value %llu where the log %s", id,
                    (unsigned long long)value,
                    !s                 ? "has no such run"
                    : !s->info.grouped ? "ranks it nowhere"
                    : !same_group || s->info.value != value
                        ? "puts it in another group or with another value"
                        : "says otherwise whether it starts a page");
    return sc->rc ? sc->rc : 0;
}

/* Every stored run record belongs to a published run. */
static int run_record(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct scan *sc = arg;
    char id[KIX_RUN_ID_MAX + 1], where[200];

    (void)val;
    /* run ids hold no NUL: a key with one is an entry record (runs.c) */
    if (key->len == 0 || key->len > KIX_RUN_ID_MAX || memchr(key->ptr, 0, key->len))
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

/* ---- the verifiable index, recomputed ------------------------------------------ */

struct tree_check {
    struct checker *c;
    struct kix_smt_tiles tiles;
    struct kix_smt_update *up;
    size_t n, cap;
    struct kix_buf value;
};

/* One recomputed record: compared with what the stored tree commits for
 * its key (naming the key), and kept for the root. */
static int tree_add(struct tree_check *tc, const char *key, size_t len)
{
    struct kix_hash vh, stored;
    char where[32 + KIX_VINDEX_KEY_MAX];
    int rc;

    struct kix_smt_update *u = kix_array_grow(tc->up, &tc->cap, tc->n, 256, sizeof(*u));
    if (!u)
        return KIX_ENOMEM;
    tc->up = u;
    kix_smt_path(key, len, &tc->up[tc->n].path);
    kix_smt_value_hash(tc->value.ptr, tc->value.len, &vh);
    tc->up[tc->n++].value_hash = vh;
    rc = kix_smt_get(&tc->tiles.io, &tc->up[tc->n - 1].path, &stored, NULL);
    /* one lookup's tiles in memory at a time, however large the tree */
    kix_smt_tiles_reset(&tc->tiles);
    if (rc == KIX_OK && memcmp(stored.b, vh.b, 32) == 0)
        return KIX_OK;
    if (rc && rc != KIX_ENOTFOUND)
        return rc;
    snprintf(where, sizeof(where), "smt %.*s", (int)len, key);
    return report(tc->c, "smt", KIX_NO_INDEX, where,
                  "the verifiable index %s for %.*s than the log's entries make",
                  rc ? "has no record" : "commits another record", (int)len, key);
}

/* The page a run started while it was ranked, its key kept with no member. */
static int left_page(struct tree_check *tc, const struct kix_run_info *run)
{
    char key[KIX_VINDEX_KEY_MAX + 1];
    int rc;

    kix_buf_reset(&tc->value);
    rc = kix_vindex_page_begin(&run->comparison_key, run->run_id, 0, &tc->value);
    return rc ? rc
              : tree_add(tc, key,
                         kix_vindex_key_group_page(&run->comparison_key, run->run_id, key));
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The pages a group's runs started at some size of the log and start no
 * more: each is in the tree with no member. A run starts a page while it
 * is ranked and its id starts one (the hash rule), or, in a group that
 * ever held more than a full page, when it followed a full page after
 * some entry: which depends on the order runs joined and left, so the
 * group's history is replayed, one state after each entry that changed
 * it, as the index kept it. e: every run the group ever ranked, in rank
 * order. Costs entries × runs of the group, only for a group over a page. */
static int left_pages(struct tree_check *tc, const struct kix_run_info *const *e, size_t n)
{
    uint64_t *events = NULL;
    uint8_t *ever = NULL, *now = NULL, *hash = NULL;
    size_t nev = 0;
    int rc = KIX_OK;

    if (n == 0)
        return KIX_OK;
    ever = calloc(n, 1);
    now = calloc(n, 1);
    hash = malloc(n);
    if (!ever || !now || !hash)
        rc = KIX_ENOMEM;
    for (size_t i = 0; hash && i < n; i++) /* once a run, not once a state */
        hash[i] = (uint8_t)kix_vindex_page_starts(e[i]->run_id, strlen(e[i]->run_id));
    if (rc == KIX_OK && n > KIX_VINDEX_PAGE_MAX) {
        events = malloc(2 * n * sizeof(*events));
        if (!events)
            rc = KIX_ENOMEM;
        for (size_t i = 0; rc == KIX_OK && i < n; i++) {
            events[nev++] = e[i]->publication_index;
            if (e[i]->superseded_by_index != KIX_NO_INDEX)
                events[nev++] = e[i]->superseded_by_index;
        }
        if (rc == KIX_OK)
            qsort(events, nev, sizeof(*events), by_u64);
    }
    /* with at most a page of runs ever, only the hash rule cuts */
    for (size_t v = 0; rc == KIX_OK && v < (events ? nev : 1); v++) {
        uint64_t count = 0;
        if (events && v > 0 && events[v] == events[v - 1])
            continue;
        for (size_t i = 0; i < n; i++) {
            int alive = events ? e[i]->publication_index <= events[v] &&
                                     (e[i]->superseded_by_index == KIX_NO_INDEX ||
                                      events[v] < e[i]->superseded_by_index)
                               : 1;
            int start;
            now[i] = 0;
            if (!alive)
                continue;
            start = hash[i] || count == KIX_VINDEX_PAGE_MAX;
            count = start ? 1 : count + 1;
            ever[i] |= (uint8_t)start;
            now[i] = (uint8_t)start;
        }
    }
    /* the last state is today's: a start then is a page with members */
    for (size_t i = 0; rc == KIX_OK && i < n; i++) {
        int today = e[i]->grouped && (events ? now[i] : 1);
        if (ever[i] && !today)
            rc = left_page(tc, e[i]);
    }
    free(events);
    free(ever);
    free(now);
    free(hash);
    return rc;
}

/* A group's directory and pages from its ranked runs, best first: a page
 * starts at the best run, at every run that starts one by the hash rule
 * and after every full page. */
static int group_pages(struct tree_check *tc, const struct kix_digest *gk,
                       const struct kix_run_info *const *m, size_t n)
{
    struct kix_buf dir = KIX_BUF_INIT;
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t npages = 0;
    int rc = KIX_OK;

    for (size_t at = 0, end; rc == KIX_OK && (at < n || npages == 0); at = end) {
        /* the first page ends at the first run that starts one, any other
         * at the next */
        int first = npages == 0;
        const char *id = first ? "" : m[at]->run_id;
        end = at + (!first && at < n); /* past the run that starts it */
        while (end < n && end - at < KIX_VINDEX_PAGE_MAX &&
               !kix_vindex_page_starts(m[end]->run_id, strlen(m[end]->run_id)))
            end++;
        kix_buf_reset(&tc->value);
        rc = kix_vindex_page_begin(gk, id, end - at, &tc->value);
        for (size_t i = at; rc == KIX_OK && i < end; i++)
            rc = kix_vindex_group_add(m[i]->run_id, m[i]->value, &tc->value);
        if (rc == KIX_OK)
            rc = tree_add(tc, key, kix_vindex_key_group_page(gk, id, key));
        if (rc == KIX_OK)
            rc = kix_vindex_group_page_add(end - at, end > at ? m[at]->run_id : "",
                                           end > at ? m[at]->value : 0, &dir);
        npages++;
    }
    kix_buf_reset(&tc->value);
    if (rc == KIX_OK)
        rc = kix_vindex_group_begin(gk, n, npages, &tc->value);
    if (rc == KIX_OK)
        rc = kix_buf_add(&tc->value, dir.ptr, dir.len);
    if (rc == KIX_OK)
        rc = tree_add(tc, key, kix_vindex_key_group(gk, key));
    kix_buf_release(&dir);
    return rc;
}

static int tree_add_record(void *ctx, const char *key, size_t len, const struct kix_buf *record)
{
    struct tree_check *tc = ctx;
    kix_buf_reset(&tc->value);
    if (kix_buf_add(&tc->value, record->ptr, record->len))
        return KIX_ENOMEM;
    return tree_add(tc, key, len);
}

static int by_group(const void *a, const void *b)
{
    const struct kix_run_info *x = *(const struct kix_run_info *const *)a;
    const struct kix_run_info *y = *(const struct kix_run_info *const *)b;
    int k = memcmp(x->comparison_key.b, y->comparison_key.b, 32);
    size_t nx = strlen(x->run_id), ny = strlen(y->run_id);
    int c;

    if (k)
        return k;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    c = memcmp(x->run_id, y->run_id, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

static int by_hash(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static int by_path(const void *a, const void *b)
{
    return memcmp(((const struct kix_smt_update *)a)->path.b,
                  ((const struct kix_smt_update *)b)->path.b, 32);
}

static size_t unique(struct kix_hash *a, size_t n)
{
    size_t k = 0;
    if (n == 0)
        return 0;
    qsort(a, n, sizeof(*a), by_hash);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || memcmp(a[k - 1].b, a[i].b, 32) != 0)
            a[k++] = a[i];
    return k;
}

static int by_group_id(const void *a, const void *b)
{
    const struct run_slot *x = *(const struct run_slot *const *)a;
    const struct run_slot *y = *(const struct run_slot *const *)b;
    size_t nx = strlen(x->info.run_id), ny = strlen(y->info.run_id);
    int k = memcmp(x->info.comparison_key.b, y->info.comparison_key.b, 32), d;

    if (k)
        return k;
    d = memcmp(x->info.run_id, y->info.run_id, nx < ny ? nx : ny);
    return d ? d : (nx > ny) - (nx < ny);
}

/* withdrawn/<hex> of every group a run of which was ever withdrawn: its
 * runs withdrawn now, by run id. */
static int withdrawn_records(struct tree_check *tc)
{
    struct checker *c = tc->c;
    const struct run_slot **w = malloc((c->nruns ? c->nruns : 1) * sizeof(*w));
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = 0, at = 0;
    int rc = KIX_OK;

    if (!w)
        return KIX_ENOMEM;
    for (size_t i = 0; i < c->cap; i++)
        if (c->table[i] && c->table[i]->info.withdrawn_index != KIX_NO_INDEX)
            w[n++] = c->table[i];
    if (n)
        qsort(w, n, sizeof(*w), by_group_id);
    c->nwgroups = unique(c->wgroups, c->nwgroups);
    for (size_t g = 0; rc == KIX_OK && g < c->nwgroups; g++) {
        const struct kix_digest *gk = (const struct kix_digest *)c->wgroups[g].b;
        size_t first;
        while (at < n && memcmp(w[at]->info.comparison_key.b, gk->b, 32) < 0)
            at++;
        first = at;
        while (at < n && memcmp(w[at]->info.comparison_key.b, gk->b, 32) == 0)
            at++;
        kix_buf_reset(&tc->value);
        rc = kix_vindex_withdrawn_begin(gk, at - first, &tc->value);
        for (size_t i = first; rc == KIX_OK && i < at; i++)
            rc = kix_vindex_withdrawn_add(w[i]->info.run_id, w[i]->info.withdrawn_index,
                                          w[i]->withdraw_reason, &tc->value);
        if (rc == KIX_OK)
            rc = tree_add(tc, key, kix_vindex_key_withdrawn(gk, key));
    }
    free(w);
    return rc;
}

static int check_tree(struct checker *c, struct kix_log *l)
{
    struct tree_check tc;
    struct kix_log_txn *t = kix_log_reader_txn(c->r);
    static const uint8_t no_group[32];
    const struct kix_run_info **ranked = NULL, **ever = NULL;
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t nranked = 0, g = 0, never = 0, ge = 0;
    struct kix_bytes note, cpb;
    struct kix_hash root;
    int rc = KIX_OK;

    memset(&tc, 0, sizeof(tc));
    tc.c = c;
    kix__smt_tiles(&tc.tiles, t);
    ranked = malloc((c->nruns ? c->nruns : 1) * sizeof(*ranked));
    ever = malloc((c->nruns ? c->nruns : 1) * sizeof(*ever));
    if (!ranked || !ever) {
        free(ranked);
        free(ever);
        return KIX_ENOMEM;
    }
    for (size_t i = 0; rc == KIX_OK && i < c->cap; i++) {
        const struct kix_run_info *run = c->table[i] ? &c->table[i]->info : NULL;
        if (!run || c->table[i]->damaged)
            continue;
        if (run->grouped)
            ranked[nranked++] = run;
        if (memcmp(run->comparison_key.b, no_group, 32) != 0)
            ever[never++] = run; /* ranked now, or once and superseded since */
        kix_buf_reset(&tc.value);
        if (rc == KIX_OK)
            rc = kix__vindex_run_record(t, run, &tc.value, NULL);
        if (rc == KIX_OK)
            rc = tree_add(&tc, key, kix_vindex_key_run(run->run_id, strlen(run->run_id), key));
        kix_buf_reset(&tc.value);
        if (rc == KIX_OK)
            rc = kix_vindex_manifest_encode(&run->manifest, run->run_id, run->publication_index,
                                            &tc.value);
        if (rc == KIX_OK)
            rc = tree_add(&tc, key, kix_vindex_key_manifest(&run->manifest, key));
    }
    /* groups: every group a run ever joined, its ranked runs best first */
    if (nranked)
        qsort(ranked, nranked, sizeof(*ranked), by_group);
    if (never)
        qsort(ever, never, sizeof(*ever), by_group);
    c->ngroups = unique(c->groups, c->ngroups);
    for (size_t i = 0; rc == KIX_OK && i < c->ngroups; i++) {
        const struct kix_digest *gk = (const struct kix_digest *)c->groups[i].b;
        size_t first;
        while (g < nranked && memcmp(ranked[g]->comparison_key.b, gk->b, 32) < 0)
            g++;
        first = g;
        while (g < nranked && memcmp(ranked[g]->comparison_key.b, gk->b, 32) == 0)
            g++;
        rc = group_pages(&tc, gk, ranked + first, g - first);
        while (ge < never && memcmp(ever[ge]->comparison_key.b, gk->b, 32) < 0)
            ge++;
        first = ge;
        while (ge < never && memcmp(ever[ge]->comparison_key.b, gk->b, 32) == 0)
            ge++;
        if (rc == KIX_OK)
            rc = left_pages(&tc, ever + first, ge - first);
    }
    if (rc == KIX_OK)
        rc = kix__sel_memory_each(c->sel, tree_add_record, &tc);
    if (rc == KIX_OK)
        rc = withdrawn_records(&tc);
    c->nkeys = unique(c->keys, c->nkeys);
    for (size_t i = 0; rc == KIX_OK && i < c->nkeys; i++) {
        struct kix_key_info k;
        kix_buf_reset(&tc.value);
        if (kix_log_reader_key(c->r, c->keys[i].b, &k) != KIX_OK)
            continue; /* kix_log_check names a registry that lacks a logged key */
        rc = kix_vindex_key_encode(c->keys[i].b, &k, &tc.value);
        if (rc == KIX_OK)
            rc = tree_add(&tc, key, kix_vindex_key_key(c->keys[i].b, key));
    }
    if (tc.n)
        qsort(tc.up, tc.n, sizeof(*tc.up), by_path);
    if (rc == KIX_OK)
        rc = kix_smt_root_of(tc.up, tc.n, &root, NULL);
    /* the root the log key signed at this size must be the recomputed one */
    if (rc == KIX_OK && kix_log_reader_size(c->r) > 0 && c->damaged == 0 &&
        kix_log_reader_index_note(c->r, KIX_NO_INDEX, &note) == KIX_OK &&
        kix_log_reader_checkpoint(c->r, KIX_NO_INDEX, &cpb) == KIX_OK) {
        struct kix_vindex_note vn;
        struct kix_checkpoint cp;
        struct kix_note cpn;
        struct kix_err e = {0};
        if (kix_checkpoint_open((const char *)cpb.ptr, cpb.len, kix_log_verifier(l), 1, NULL, &cpn,
                                &cp, &e) != KIX_OK ||
            kix_vindex_note_open((const char *)note.ptr, note.len, kix_log_verifier(l), &cp, &vn,
                                 &e) != KIX_OK)
            rc = report(c, "index_notes", kix_log_reader_size(c->r), "index_notes",
                        "the index note at size %llu does not verify: %s",
                        (unsigned long long)kix_log_reader_size(c->r), e.msg);
        else if (memcmp(vn.index_root.b, root.b, 32) != 0)
            rc = report(c, "index_notes", kix_log_reader_size(c->r), "index_notes",
                        "the index root signed at size %llu is not the root of the index its "
                        "entries make",
                        (unsigned long long)kix_log_reader_size(c->r));
    }
    kix_smt_tiles_release(&tc.tiles);
    kix_buf_release(&tc.value);
    free(tc.up);
    free(ranked);
    free(ever);
    return rc;
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
    if (!(c.sel = kix__sel_memory_new()))
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    c.max_issues = opts && opts->max_issues ? opts->max_issues : 100;
    if (stats)
        memset(stats, 0, sizeof(*stats));
    rc = kix_log_read_begin(l, &c.r);
    if (rc) {
        kix__sel_memory_free(c.sel);
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    }
    size = kix_log_reader_size(c.r);
    for (uint64_t i = 0; rc == KIX_OK && i < size; i++) {
        struct kix_bytes leaf;
        struct kix_entry e;
        if (kix_log_reader_entry(c.r, i, &leaf) != KIX_OK ||
            kix_entry_parse_leaf(leaf.ptr, leaf.len, &e, NULL) != KIX_OK)
            continue; /* kix_log_check names entries that are missing or do not parse */
        /* an entry or tile altered since it was logged is kix_log_check's
         * to name: the runs it is about are not compared a second time */
        struct kix_hash lh, logged;
        int damaged;
        kix_merkle_leaf_hash(leaf.ptr, leaf.len, &lh);
        damaged = kix_log_reader_leaf_hash(c.r, i, &logged, NULL) != KIX_OK ||
                  memcmp(lh.b, logged.b, 32) != 0;
        c.damaged += (uint64_t)damaged;
        rc = replay_one(&c, i, &lh, damaged, &e);
        kix_entry_release(&e);
        if (opts && opts->progress && (i & 4095) == 0)
            opts->progress(opts->progress_ctx, "index", i, size);
    }
    for (size_t i = 0; rc == KIX_OK && i < c.cap; i++)
        if (c.table[i]) {
            grouped += c.table[i]->info.grouped;
            if (!c.table[i]->damaged)
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
    if (rc == KIX_OK && sc.rc == KIX_OK)
        rc = check_tree(&c, l);
    if (stats) {
        stats->entries = size;
        stats->runs = c.nruns;
        stats->ranked = grouped;
        stats->issues = c.issues;
        stats->findings = c.findings;
    }
    for (size_t i = 0; i < c.cap; i++)
        if (c.table[i]) {
            free(c.table[i]->entries);
            free(c.table[i]);
        }
    free(c.table);
    free(c.keys);
    free(c.groups);
    free(c.wgroups);
    kix__sel_memory_free(c.sel);
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
