/* A comparison group as the verifiable index commits it (kix/vindex.h):
 * a directory and pages cut before every member that starts a page, by
 * the hash rule or because the page before holds KIX_VINDEX_PAGE_MAX
 * members. The group table (groups.c) keeps, beside each member, whether
 * and why it starts a page, so deriving a page reads that page's members
 * and the directory reads the group's keys, with no hashing per member;
 * the starts table (KIX_TABLE_GROUP_STARTS) finds the page of a member
 * with one seek. A join or leave recuts the pages from the last start
 * before it to the end of its hash segment (reflow, below). */
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/vindex.h"

struct member {
    char id[KIX_RUN_ID_MAX + 1];
    uint64_t value;
    int starts; /* 0, or KIX_GROUP_STARTS_HASH or _FULL */
};

/* One member of the group table (group: its prefix); 0 past the group's
 * last. */
static int member_of(const uint8_t group[KIX__GROUP_PREFIX], const struct kix_bytes *key,
                     const struct kix_bytes *val, struct member *m)
{
    size_t n;
    if (key->len <= KIX__GROUP_ID_AT || key->len - KIX__GROUP_ID_AT > KIX_RUN_ID_MAX ||
        memcmp(key->ptr, group, KIX__GROUP_PREFIX) != 0)
        return 0;
    n = key->len - KIX__GROUP_ID_AT;
    memcpy(m->id, key->ptr + KIX__GROUP_ID_AT, n);
    m->id[n] = '\0';
    m->value = kix_u64be_get(key->ptr + KIX__GROUP_PREFIX);
    m->starts = val->len > 0 ? val->ptr[0] : 0;
    return 1;
}

/* ---- which page a member is on ----------------------------------------------------- */

#define START_KEY_MAX (32 + 8 + KIX_RUN_ID_MAX + 1)

/* A starting run's key in KIX_TABLE_GROUP_STARTS: descending rank order,
 * so that the first key at or after a member's is the last start at or
 * before it (an id's bytes are never 0, so never 0xff inverted). */
static size_t start_key(const struct kix_digest *group, uint64_t value, const char *run_id,
                        uint8_t out[START_KEY_MAX])
{
    size_t n = strlen(run_id);
    memcpy(out, group->b, 32);
    kix_u64be_put(out + 32, ~value);
    for (size_t i = 0; i < n; i++)
        out[40 + i] = (uint8_t)(0xff - (uint8_t)run_id[i]);
    out[40 + n] = 0xff;
    return 41 + n;
}

struct seek {
    const uint8_t *group;
    const uint8_t *skip; /* a key to pass over (the member itself), or NULL */
    size_t skip_len;
    char *page_id;
};

static int seek_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct seek *s = arg;
    size_t n;

    (void)val;
    if (key->len < 42 || memcmp(key->ptr, s->group, 32) != 0)
        return 1; /* past the group: the member is on its first page */
    if (s->skip && key->len == s->skip_len && memcmp(key->ptr, s->skip, key->len) == 0)
        return 0;
    n = key->len - 41;
    if (n > KIX_RUN_ID_MAX)
        return 1;
    for (size_t i = 0; i < n; i++)
        s->page_id[i] = (char)(0xff - key->ptr[40 + i]);
    s->page_id[n] = '\0';
    return 1;
}

/* The page that holds (inclusive) or precedes (not) the member value ‖
 * run_id of group: the last run at or before it that starts a page, ""
 * for the first page. One seek in the starts table. */
static int page_at(struct kix_log_txn *t, const struct kix_digest *group, uint64_t value,
                   const char *run_id, int inclusive, char page_id[KIX_RUN_ID_MAX + 1])
{
    uint8_t k[START_KEY_MAX];
    size_t n = start_key(group, value, run_id, k);
    struct seek s = {group->b, inclusive ? NULL : k, n, page_id};

    page_id[0] = '\0';
    return kix_log_txn_scan(t, KIX_TABLE_GROUP_STARTS, k, n, seek_step, &s);
}

int kix__group_page_of(struct kix_log_txn *t, const struct kix_run_info *run,
                       char page_id[KIX_RUN_ID_MAX + 1])
{
    return page_at(t, &run->comparison_key, run->value, run->run_id, 1, page_id);
}

static int touch_page(struct kix_log_txn *t, const struct kix_digest *group, const char *page_id,
                      struct kix_err *err)
{
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = kix_vindex_key_group_page(group, page_id, key);
    return kix__vindex_touch(t, key, n, NULL, 0, err);
}

int kix__group_unstart(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err)
{
    uint8_t k[START_KEY_MAX];
    size_t n = start_key(&run->comparison_key, run->value, run->run_id, k);
    int rc = kix_log_txn_del(t, KIX_TABLE_GROUP_STARTS, k, n, err);
    if (rc == KIX_ENOTFOUND)
        rc = KIX_OK;
    /* its page stays in the tree, with no member */
    return rc ? rc : touch_page(t, &run->comparison_key, run->run_id, err);
}

/* One member whose page start changes: applied after the walk, which a
 * write under its cursor would disturb. */
struct recut {
    uint64_t value;
    uint8_t was, now;
    char id[KIX_RUN_ID_MAX + 1];
};

struct reflow {
    const uint8_t *group; /* its prefix */
    const uint8_t *at;    /* the group key of the run that joined or left */
    size_t at_len;
    uint64_t count; /* members of the page being walked, so far */
    int begun;      /* past the walk's first member */
    int from_start; /* the walk begins at the group's best run */
    struct recut *cuts;
    size_t ncuts, cap;
    struct kix_buf pages; /* the ids of the pages walked, NUL-separated */
    int rc;
};

/* Whether group-table key a sorts after key b (LMDB's order: bytes, a
 * prefix first). */
static int key_after(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c > 0 || (c == 0 && an > bn);
}

static int reflow_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct reflow *w = arg;
    struct member m;
    int after, hash;
    uint8_t now;

    if (!member_of(w->group, key, val, &m))
        return 1;
    after = key_after(key->ptr, key->len, w->at, w->at_len);
    hash = kix_vindex_page_starts(m.id, strlen(m.id));
    /* past the run and at the next hash start, the pages are as before */
    if (after && hash && w->begun)
        return 1;
    if (!w->begun && !w->from_start) {
        now = (uint8_t)m.starts; /* the last start before the run: unchanged */
        w->count = 1;
    } else {
        now = hash                              ? KIX_GROUP_STARTS_HASH
              : w->count == KIX_VINDEX_PAGE_MAX ? KIX_GROUP_STARTS_FULL
                                                : 0;
        w->count = now ? 1 : w->count + 1;
    }
    /* the recut never lets a page pass its bound (kix/vindex.h) */
    KIX_ASSERT(w->count >= 1 && w->count <= KIX_VINDEX_PAGE_MAX);
    w->begun = 1;
    if (now != m.starts) {
        struct recut *c = kix_array_grow(w->cuts, &w->cap, w->ncuts, 16, sizeof(*c));
        if (!c) {
            w->rc = KIX_ENOMEM;
            return 1;
        }
        w->cuts = c;
        c = &w->cuts[w->ncuts++];
        c->value = m.value;
        c->was = (uint8_t)m.starts;
        c->now = now;
        memcpy(c->id, m.id, sizeof(c->id));
    }
    /* every page from the walk's first on may have changed */
    if (now || m.starts)
        w->rc = kix_buf_add(&w->pages, m.id, strlen(m.id) + 1);
    return w->rc ? 1 : 0;
}

int kix__group_reflow(struct kix_log_txn *t, const struct kix_run_info *run, struct kix_err *err)
{
    struct reflow w;
    uint8_t at[KIX__GROUP_ID_AT + KIX_RUN_ID_MAX], from[KIX__GROUP_ID_AT + KIX_RUN_ID_MAX];
    char before[KIX_RUN_ID_MAX + 1];
    size_t from_len = KIX__GROUP_PREFIX, n = strlen(run->run_id);
    int rc;

    memset(&w, 0, sizeof(w));
    kix_buf_init(&w.pages);
    before[0] = '\0';
    /* numbered when the run joined it */
    rc = kix__group_prefix(t, &run->comparison_key, 0, at, err);
    w.group = at;
    kix_u64be_put(at + KIX__GROUP_PREFIX, run->value);
    memcpy(at + KIX__GROUP_ID_AT, run->run_id, n);
    w.at = at;
    w.at_len = KIX__GROUP_ID_AT + n;
    memcpy(from, at, KIX__GROUP_PREFIX);
    if (rc == KIX_OK)
        rc = page_at(t, &run->comparison_key, run->value, run->run_id, 0, before);
    if (rc == KIX_OK && before[0]) {
        struct kix_run_info b;
        size_t bn = strlen(before);
        rc = kix__run_get(t, before, bn, &b);
        if (rc == KIX_OK) {
            kix_u64be_put(from + KIX__GROUP_PREFIX, b.value);
            memcpy(from + KIX__GROUP_ID_AT, before, bn);
            from_len = KIX__GROUP_ID_AT + bn;
        }
    } else {
        w.from_start = 1;
    }
    if (rc == KIX_OK)
        rc = kix_log_txn_scan(t, KIX_TABLE_GROUPS, from, from_len, reflow_step, &w);
    if (rc == KIX_OK)
        rc = w.rc;
    for (size_t i = 0; rc == KIX_OK && i < w.ncuts; i++) {
        struct kix_run_info c;
        uint8_t k[KIX__GROUP_ID_AT + KIX_RUN_ID_MAX], sk[START_KEY_MAX];
        size_t cn = strlen(w.cuts[i].id), skn;

        memset(&c, 0, sizeof(c));
        c.comparison_key = run->comparison_key;
        c.value = w.cuts[i].value;
        memcpy(k, at, KIX__GROUP_PREFIX);
        kix_u64be_put(k + KIX__GROUP_PREFIX, c.value);
        memcpy(k + KIX__GROUP_ID_AT, w.cuts[i].id, cn);
        rc = kix_log_txn_put(t, KIX_TABLE_GROUPS, k, KIX__GROUP_ID_AT + cn, &w.cuts[i].now,
                             w.cuts[i].now ? 1 : 0, err);
        skn = start_key(&run->comparison_key, c.value, w.cuts[i].id, sk);
        if (rc == KIX_OK && w.cuts[i].now)
            rc = kix_log_txn_put(t, KIX_TABLE_GROUP_STARTS, sk, skn, "", 0, err);
        else if (rc == KIX_OK) {
            rc = kix_log_txn_del(t, KIX_TABLE_GROUP_STARTS, sk, skn, err);
            rc = rc == KIX_ENOTFOUND ? KIX_OK : rc;
        }
    }
    /* the first page is in the tree with its group, however empty */
    if (rc == KIX_OK)
        rc = touch_page(t, &run->comparison_key, "", err);
    if (rc == KIX_OK && before[0])
        rc = touch_page(t, &run->comparison_key, before, err);
    for (size_t at_ = 0; rc == KIX_OK && at_ < w.pages.len;
         at_ += strlen((char *)w.pages.ptr + at_) + 1)
        rc = touch_page(t, &run->comparison_key, (const char *)w.pages.ptr + at_, err);
    free(w.cuts);
    kix_buf_release(&w.pages);
    if (rc && !err->code)
        kix_err_set(err, rc, "recutting a comparison group's pages: %s", kix_strerror(rc));
    return rc;
}

/* ---- the directory ------------------------------------------------------------------- */

struct dir_walk {
    const uint8_t *group; /* its prefix */
    struct kix_buf pages;
    uint64_t count, npages, members;
    struct member first;
    int rc;
};

static int close_page(struct dir_walk *d)
{
    if (d->npages == 0)
        return KIX_OK;
    return kix_vindex_group_page_add(d->members, d->members ? d->first.id : "",
                                     d->members ? d->first.value : 0, &d->pages);
}

static int dir_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct dir_walk *d = arg;
    struct member m;

    if (!member_of(d->group, key, val, &m))
        return 1;
    if (d->npages == 0 || m.starts) {
        /* the first page, empty when the best run starts a page itself */
        if (d->npages == 0 && m.starts) {
            d->npages = 1;
            d->members = 0;
        }
        d->rc = close_page(d);
        d->npages++;
        d->members = 0;
    }
    if (d->members++ == 0)
        d->first = m;
    if (d->members > KIX_VINDEX_PAGE_MAX) { /* stored starts a recut never writes */
        d->rc = KIX_ECORRUPT;
        return 1;
    }
    d->count++;
    return d->rc ? 1 : 0;
}

int kix__group_directory(struct kix_log_txn *t, const struct kix_digest *group, struct kix_buf *out,
                         struct kix_err *err)
{
    struct dir_walk d;
    uint8_t prefix[KIX__GROUP_PREFIX];
    int rc;

    memset(&d, 0, sizeof(d));
    d.group = prefix;
    kix_buf_init(&d.pages);
    rc = kix__group_prefix(t, group, 0, prefix, NULL);
    if (rc == KIX_OK)
        rc = kix_log_txn_scan(t, KIX_TABLE_GROUPS, prefix, sizeof(prefix), dir_step, &d);
    else if (rc == KIX_ENOTFOUND) /* never numbered: no member */
        rc = KIX_OK;
    if (rc == KIX_OK)
        rc = d.rc;
    if (rc == KIX_OK && d.npages == 0) { /* no member: one empty first page */
        d.npages = 1;
        d.members = 0;
    }
    if (rc == KIX_OK)
        rc = close_page(&d);
    if (rc == KIX_OK)
        rc = kix_vindex_group_begin(group, d.count, d.npages, out);
    if (rc == KIX_OK)
        rc = kix_buf_add(out, d.pages.ptr, d.pages.len);
    kix_buf_release(&d.pages);
    return rc ? kix_err_set(err, rc, "reading a comparison group: %s", kix_strerror(rc)) : KIX_OK;
}

/* ---- one page ---------------------------------------------------------------------- */

struct page_walk {
    const uint8_t *group; /* its prefix */
    struct kix_buf members;
    uint64_t count;
    int first_page; /* the group's first page: it ends at the first starting run */
    int rc;
};

static int page_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct page_walk *p = arg;
    struct member m;

    if (!member_of(p->group, key, val, &m) || (m.starts && (p->count > 0 || p->first_page)))
        return 1;
    if (p->count == KIX_VINDEX_PAGE_MAX) { /* a full page is followed by a start */
        p->rc = KIX_ECORRUPT;
        return 1;
    }
    p->rc = kix_vindex_group_add(m.id, m.value, &p->members);
    p->count++;
    return p->rc ? 1 : 0;
}

int kix__group_page(struct kix_log_txn *t, const struct kix_digest *group, const char *page_id,
                    size_t id_len, struct kix_buf *out, struct kix_err *err)
{
    struct page_walk p;
    uint8_t from[KIX__GROUP_ID_AT + KIX_RUN_ID_MAX];
    size_t from_len = KIX__GROUP_PREFIX;
    char id[KIX_RUN_ID_MAX + 1];
    int rc = kix__group_prefix(t, group, 0, from, NULL);

    memset(&p, 0, sizeof(p));
    p.group = from;
    kix_buf_init(&p.members);
    memcpy(id, page_id, id_len);
    id[id_len] = '\0';
    if (rc == KIX_ENOTFOUND) { /* never numbered: no member */
        rc = KIX_OK;
        from_len = 0;
    } else if (rc == KIX_OK && id_len) {
        /* a page is there while its starting run is a member that
         * starts a page (by the hash rule or a full page before it) */
        struct kix_run_info run;
        struct kix_bytes flag;
        rc = kix__run_get(t, id, id_len, &run);
        from_len = 0; /* not a page now: none of the members */
        if (rc == KIX_ENOTFOUND) {
            rc = KIX_OK;
        } else if (rc == KIX_OK && run.grouped && memcmp(run.comparison_key.b, group->b, 32) == 0) {
            kix_u64be_put(from + KIX__GROUP_PREFIX, run.value);
            memcpy(from + KIX__GROUP_ID_AT, id, id_len);
            if (kix_log_txn_get(t, KIX_TABLE_GROUPS, from, KIX__GROUP_ID_AT + id_len, &flag) ==
                    KIX_OK &&
                flag.len > 0 && flag.ptr[0] != 0)
                from_len = KIX__GROUP_ID_AT + id_len;
        }
    } else if (rc == KIX_OK) {
        p.first_page = 1;
    }
    if (rc == KIX_OK && from_len)
        rc = kix_log_txn_scan(t, KIX_TABLE_GROUPS, from, from_len, page_step, &p);
    if (rc == KIX_OK)
        rc = p.rc;
    if (rc == KIX_OK)
        rc = kix_vindex_page_begin(group, id, p.count, out);
    if (rc == KIX_OK)
        rc = kix_buf_add(out, p.members.ptr, p.members.len);
    kix_buf_release(&p.members);
    return rc ? kix_err_set(err, rc, "reading a comparison group: %s", kix_strerror(rc)) : KIX_OK;
}
