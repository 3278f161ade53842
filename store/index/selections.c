/* Selection records (kix/selection.h, PROTOCOL.md §4.2): what the index
 * appends for each publication of a ranked run, once through the writer's
 * table (KIX_TABLE_SELECTIONS: the records by their index key, and a mark
 * per group already listed) and once in memory by the index check
 * (index_check.c), from one rule, kix__sel_publication. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/selection.h"

/* ---- the rule ---------------------------------------------------------------------- */

/* Appends item to the list of (dim, value), and the value to its
 * dimension's list when it is the value's first item. */
static int add(const struct kix__sel_sink *s, int dim, const char *value, const uint8_t *item,
               size_t len, struct kix_err *err)
{
    int created = 0;
    int rc = s->append(s->ctx, dim, value, item, len, &created, err);
    if (rc == KIX_OK && created)
        rc = s->append(s->ctx, dim, NULL, (const uint8_t *)value, strlen(value), &created, err);
    return rc;
}

/* The words of one object the manifest names, as the query shows them:
 * the values of dims KIX_SEL_KERNEL and _DTYPE (Workload), _GPU
 * (ExecutionEnvironment) or _PROVIDER (Implementation). */
void kix__sel_object_words(int dim, const uint8_t *bytes, size_t len, char *out, size_t cap)
{
    json_t *doc = bytes ? json_loadb((const char *)bytes, len, 0, NULL) : NULL;
    struct kix_query_row row;
    char gpu[KIX_SEL_VALUE_MAX + 1];
    const char *t;

    memset(&row, 0, sizeof(row));
    switch (dim) {
    case KIX_SEL_KERNEL:
        kix__query_words_object(KIX_QUERY_WORKLOAD, doc, &row, gpu, sizeof(gpu));
        snprintf(out, cap, "%s", row.kernel);
        break;
    case KIX_SEL_GPU:
        kix__query_words_object(KIX_QUERY_ENVIRONMENT, doc, &row, out, cap);
        break;
    case KIX_SEL_PROVIDER:
        kix__query_words_object(KIX_QUERY_IMPLEMENTATION, doc, &row, gpu, sizeof(gpu));
        snprintf(out, cap, "%s", row.provider);
        break;
    default: /* dtype: at most as long as a kernel's */
        t = json_string_value(json_object_get(json_object_get(doc, "spec"), "dtype"));
        snprintf(out, cap < sizeof(row.kernel) ? cap : sizeof(row.kernel), "%s", t ? t : "");
    }
    json_decref(doc);
}

int kix__sel_publication(const struct kix__sel_sink *s, const struct kix_run_info *run,
                         const struct kix_bytes *manifest, kix__sel_object_fn words, void *octx,
                         struct kix_err *err)
{
    struct kix_digest refs[KIX_QUERY_NREFS];
    struct kix_query_row row;
    json_t *doc;

    if (!run->grouped)
        return KIX_OK;
    memset(&row, 0, sizeof(row));
    doc = json_loadb((const char *)manifest->ptr, manifest->len, 0, NULL);
    kix__query_words_manifest(doc, &row, refs);
    json_decref(doc);
    return kix__sel_publication_words(s, run, &row, refs, words, octx, err);
}

int kix__sel_publication_words(const struct kix__sel_sink *s, const struct kix_run_info *run,
                               const struct kix_query_row *row,
                               const struct kix_digest refs[KIX_QUERY_NREFS],
                               kix__sel_object_fn words, void *octx, struct kix_err *err)
{
    static const struct kix_digest none;
    /* which object each dimension's value comes from, in the rule's order */
    static const int from[KIX_SEL_DIMS] = {
        KIX_QUERY_WORKLOAD, KIX_QUERY_ENVIRONMENT, KIX_QUERY_IMPLEMENTATION, -1, -1,
        KIX_QUERY_WORKLOAD};
    char v[KIX_SEL_DIMS][KIX_SEL_VALUE_MAX + 1];
    uint8_t item[32 + KIX_RUN_ID_MAX];
    size_t idlen = strlen(run->run_id);
    int is_new = 0, rc = KIX_OK;

    if (!run->grouped)
        return KIX_OK;
    snprintf(v[KIX_SEL_MODE], sizeof(v[0]), "%s", row->mode);
    snprintf(v[KIX_SEL_METRIC], sizeof(v[0]), "%s", row->metric);
    for (int d = 0; rc == KIX_OK && d < KIX_SEL_DIMS; d++)
        if (from[d] >= 0) {
            const struct kix_digest *ref = &refs[from[d]];
            int wrc = memcmp(ref, &none, sizeof(none)) == 0
                          ? KIX_ENOTFOUND
                          : words(octx, d, ref, v[d], sizeof(v[d]));
            if (wrc == KIX_ENOTFOUND)
                kix__sel_object_words(d, NULL, 0, v[d], sizeof(v[d]));
            else if (wrc)
                rc = kix_err_set(err, wrc, "reading the words of an object the run names");
        }
    rc = s->new_group(s->ctx, &run->comparison_key, &is_new, err);
    /* what the group holds constant: listed once, when it forms */
    for (int d = 0; rc == KIX_OK && is_new && d < KIX_SEL_DIMS; d++)
        if (d != KIX_SEL_PROVIDER)
            rc = add(s, d, v[d], run->comparison_key.b, 32, err);
    memcpy(item, run->comparison_key.b, 32);
    memcpy(item + 32, run->run_id, idlen);
    return rc ? rc : add(s, KIX_SEL_PROVIDER, v[KIX_SEL_PROVIDER], item, 32 + idlen, err);
}

/* ---- the writer: lists in KIX_TABLE_SELECTIONS --------------------------------- */

/* The table holds, by key: 'n' ‖ a list's index key ("sel/...") → its
 * number, u32be, given once when the list is made ('c' → the next
 * number); the list's items under 'i' ‖ number ‖ u64be position, from
 * which a page's record is made when the seal asks for it (an append
 * writes one item and the head, whatever the page's size), and its head
 * record right after them, at position 2^64 - 1, so that an append
 * rewrites the one page holding its list's tail and head; 'g' ‖ group key
 * when the group is listed; 'o' ‖ dim ‖ object digest: that object's
 * words for dim, so each object is parsed once. (kix-index/6 keyed the
 * items by the list's key itself, ~80 bytes an item more.) Since
 * kix-index/9 an item of a value's list, which begins with a comparison
 * group's key, is stored with the group's number (numbers.c) in its place,
 * a uvarint: 28 to 30 bytes an item less; the records read the key back. */
#define NAME_KEY_MAX (1 + KIX_SEL_KEY_MAX)
#define ITEM_KEY_LEN (1 + 4 + 8)
#define LIST_PREFIX  (1 + 4)

static size_t name_key(uint8_t out[NAME_KEY_MAX], const char *list, size_t n)
{
    KIX_ASSERT(n <= KIX_SEL_KEY_MAX); /* kix_sel_key's bound */
    out[0] = 'n';
    memcpy(out + 1, list, n);
    return 1 + n;
}

static size_t item_key(uint8_t out[ITEM_KEY_LEN], uint32_t list, uint64_t pos)
{
    out[0] = 'i';
    kix_u32be_put(out + 1, list);
    kix_u64be_put(out + LIST_PREFIX, pos);
    return ITEM_KEY_LEN;
}

/* Where a list's head record is stored: after its items. */
static size_t head_key(uint8_t out[ITEM_KEY_LEN], uint32_t list)
{
    return item_key(out, list, UINT64_MAX);
}

/* An item of a value's list (a group's key, then maybe a run id) as
 * stored: the group's number for its key. */
#define GROUP_ITEM_MAX  (32 + KIX_RUN_ID_MAX)
#define STORED_ITEM_MAX (KIX_UVARINT_MAX + KIX_RUN_ID_MAX)

static int item_store(struct kix_log_txn *t, const uint8_t *item, size_t len,
                      uint8_t out[STORED_ITEM_MAX], size_t *stored, struct kix_err *err)
{
    uint32_t group = 0;
    int rc;

    KIX_ASSERT(len >= 32 && len <= GROUP_ITEM_MAX); /* kix__sel_publication_words' */
    rc = kix__name_number(t, KIX__NUMBER_GROUP, item, 1, &group, err);
    if (rc)
        return rc;
    *stored = kix_uvarint_put(out, group);
    memcpy(out + *stored, item + 32, len - 32);
    *stored += len - 32;
    return KIX_OK;
}

static int item_read(struct kix_log_txn *t, const struct kix_bytes *stored,
                     uint8_t out[GROUP_ITEM_MAX], size_t *len)
{
    const uint8_t *p = stored->ptr, *end = stored->ptr + stored->len;
    uint64_t group;
    int rc = kix_uvarint_get(&p, end, &group) == KIX_OK && (size_t)(end - p) <= KIX_RUN_ID_MAX
                 ? kix__number_name(t, KIX__NUMBER_GROUP, group, out)
                 : KIX_ECORRUPT;

    if (rc)
        return rc;
    memcpy(out + 32, p, (size_t)(end - p));
    *len = 32 + (size_t)(end - p);
    return KIX_OK;
}

/* An item as a list's record holds it: a value's list's read back. */
static int item_of(struct kix_log_txn *t, int valued, const struct kix_bytes *stored,
                   uint8_t buf[GROUP_ITEM_MAX], struct kix_bytes *item)
{
    int rc = KIX_OK;

    *item = *stored;
    if (valued) {
        rc = item_read(t, stored, buf, &item->len);
        item->ptr = buf;
    }
    return rc;
}

/* The number of the list whose index key is key[0..n): KIX_ENOTFOUND when
 * there is none (and not `make`); made, the next number, when `make`. */
static int list_number(struct kix_log_txn *t, const char *key, size_t n, int make, uint32_t *list,
                       struct kix_err *err)
{
    uint8_t nk[NAME_KEY_MAX];
    int made;

    return kix__number_of(t, KIX_TABLE_SELECTIONS, nk, name_key(nk, key, n), "c", 1,
                          "a selection list", make, list, &made, err);
}

static int table_new_group(void *ctx, const struct kix_digest *g, int *is_new, struct kix_err *err)
{
    struct kix_log_txn *t = ctx;
    uint8_t mark[1 + 32] = {'g'};
    struct kix_bytes v;
    int rc;

    memcpy(mark + 1, g->b, 32);
    rc = kix_log_txn_get(t, KIX_TABLE_SELECTIONS, mark, sizeof(mark), &v);
    *is_new = rc == KIX_ENOTFOUND;
    if (*is_new)
        return kix_log_txn_put(t, KIX_TABLE_SELECTIONS, mark, sizeof(mark), "", 0, err);
    return rc ? kix_err_set(err, rc, "reading whether a group is listed") : KIX_OK;
}

static int head_items(struct kix_log_txn *t, uint32_t list, uint64_t *items, struct kix_err *err)
{
    struct kix_bytes v;
    uint8_t hk[ITEM_KEY_LEN];
    int rc = kix_log_txn_get(t, KIX_TABLE_SELECTIONS, hk, head_key(hk, list), &v);

    *items = 0;
    if (rc == KIX_OK)
        return kix_sel_head_decode(v.ptr, v.len, items, err);
    return rc == KIX_ENOTFOUND ? rc : kix_err_set(err, rc, "reading a selection list's head");
}

/* One item onto the list: the item, the head, and both keys touched. */
static int table_append(void *ctx, int dim, const char *value, const uint8_t *item, size_t len,
                        int *created, struct kix_err *err)
{
    struct kix_log_txn *t = ctx;
    char key[KIX_SEL_KEY_MAX + 1];
    uint8_t ik[ITEM_KEY_LEN], hk[ITEM_KEY_LEN], head[9], stored[STORED_ITEM_MAX];
    size_t vlen = value ? strlen(value) : 0, n = kix_sel_key(dim, value, vlen, UINT64_MAX, key);
    uint64_t count = 0;
    uint32_t list = 0;
    int rc = list_number(t, key, n, 1, &list, err);

    if (rc == KIX_OK && value) {
        rc = item_store(t, item, len, stored, &len, err);
        item = stored;
    }

    if (rc == KIX_OK)
        rc = head_items(t, list, &count, err);
    if (rc == KIX_ENOTFOUND)
        rc = KIX_OK;
    *created = count == 0;
    /* a list only grows: one item a call, at the next position */
    KIX_ASSERT(count < UINT64_MAX);
    head[0] = KIX_SEL_HEAD;
    kix_u64be_put(head + 1, count + 1);
    if (rc == KIX_OK)
        rc =
            kix_log_txn_put(t, KIX_TABLE_SELECTIONS, ik, item_key(ik, list, count), item, len, err);
    if (rc == KIX_OK)
        rc = kix_log_txn_put(t, KIX_TABLE_SELECTIONS, hk, head_key(hk, list), head, sizeof(head),
                             err);
    if (rc == KIX_OK)
        rc = kix__vindex_touch(t, key, n, NULL, 0, err); /* may grow again in the batch */
    if (rc == KIX_OK) {
        n = kix_sel_key(dim, value, vlen, count / KIX_SEL_PAGE, key);
        rc = kix__vindex_touch(t, key, n, NULL, 0, err);
    }
    return rc;
}

/* A key of the list whose items' keys begin with prefix (LIST_PREFIX
 * bytes): 1 for an item, 0 for its head, -1 for a key past the list. */
static int list_key_kind(const struct kix_bytes *key, const uint8_t *prefix)
{
    if (key->len != ITEM_KEY_LEN || memcmp(key->ptr, prefix, LIST_PREFIX) != 0)
        return -1;
    return kix_u64be_get(key->ptr + LIST_PREFIX) != UINT64_MAX;
}

struct page_walk {
    struct kix_log_txn *t;
    int valued;            /* a value's list (not a dimension's values) */
    const uint8_t *prefix; /* 'i' ‖ the list's number */
    uint64_t left;
    struct kix_buf items;
    int rc;
};

static int page_item(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct page_walk *w = arg;
    uint8_t buf[GROUP_ITEM_MAX];
    struct kix_bytes item;

    if (w->left == 0 || list_key_kind(key, w->prefix) != 1)
        return 1; /* past the list, or its head after the items */
    w->left--;
    w->rc = item_of(w->t, w->valued, val, buf, &item);
    if (w->rc == KIX_OK)
        w->rc = kix_sel_item_add(&w->items, item.ptr, item.len);
    return w->rc ? -w->rc : 0;
}

/* Key "sel/<dim>[/<hex>]/<n>": the head's length, and n. */
static int page_of(const char *key, size_t len, size_t *head_len, uint64_t *page)
{
    size_t i = len, digits;

    while (i > 0 && key[i - 1] >= '0' && key[i - 1] <= '9')
        i--;
    digits = len - i;
    if (digits == 0 || digits > 19 || (digits > 1 && key[i] == '0') || i < 5 || key[i - 1] != '/')
        return 0;
    *head_len = i - 1;
    *page = 0;
    for (; i < len; i++)
        *page = *page * 10 + (uint64_t)(key[i] - '0');
    return 1;
}

int kix__sel_value(struct kix_log_txn *t, const char *key, size_t len, struct kix_buf *out,
                   struct kix_err *err)
{
    struct page_walk w = {t, 0, NULL, 0, KIX_BUF_INIT, KIX_OK};
    uint8_t ik[ITEM_KEY_LEN];
    size_t head_len = len;
    uint64_t page = 0, items = 0, n;
    uint32_t list = 0;
    int is_page, rc;

    if (len > KIX_SEL_KEY_MAX)
        return KIX_ENOTFOUND;
    is_page = page_of(key, len, &head_len, &page); /* head_len stays len when not */
    rc = list_number(t, key, head_len, 0, &list, err);
    if (rc == KIX_OK)
        rc = head_items(t, list, &items, err);
    if (rc)
        return rc;
    if (!is_page)
        return kix_sel_head_encode(items, out) ? kix_err_set(err, KIX_ENOMEM, "out of memory")
                                               : KIX_OK;
    if (page >= (items + KIX_SEL_PAGE - 1) / KIX_SEL_PAGE)
        return KIX_ENOTFOUND;
    n = items - page * KIX_SEL_PAGE < KIX_SEL_PAGE ? items - page * KIX_SEL_PAGE : KIX_SEL_PAGE;
    /* "sel/<dim>/<hex>": a value's list */
    w.valued = memchr(key + 4, '/', head_len - 4) != NULL;
    w.prefix = ik;
    w.left = n;
    rc = kix_log_txn_scan(t, KIX_TABLE_SELECTIONS, ik, item_key(ik, list, page * KIX_SEL_PAGE),
                          page_item, &w);
    if (rc == KIX_OK && w.rc == KIX_OK && w.left)
        rc = KIX_ECORRUPT; /* the head counts items the table lacks */
    if (rc == KIX_OK)
        rc = w.rc;
    if (rc == KIX_OK)
        rc = kix_sel_page_encode(page, n, w.items.ptr, w.items.len, out);
    kix_buf_release(&w.items);
    return rc ? kix_err_set(err, rc, "reading selection list %.*s: %s", (int)head_len, key,
                            kix_strerror(rc))
              : KIX_OK;
}

struct item_walk {
    struct kix_log_txn *t;
    int valued;
    const uint8_t *prefix;
    uint64_t pos;
    kix_sel_item_fn fn;
    void *ctx;
    int rc;
};

static int each_item(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct item_walk *w = arg;
    uint8_t buf[GROUP_ITEM_MAX];
    struct kix_bytes item;

    if (list_key_kind(key, w->prefix) != 1)
        return 1; /* past the list, or its head after the items */
    w->rc = item_of(w->t, w->valued, val, buf, &item);
    if (w->rc == KIX_OK)
        w->rc = w->fn(w->ctx, w->pos++, item.ptr, item.len);
    return w->rc ? 1 : 0;
}

int kix__sel_items(struct kix_log_txn *t, int dim, const char *value, kix_sel_item_fn fn, void *ctx)
{
    char key[KIX_SEL_KEY_MAX + 1];
    uint8_t ik[ITEM_KEY_LEN];
    size_t n = kix_sel_key(dim, value, value ? strlen(value) : 0, UINT64_MAX, key);
    struct item_walk w = {t, value != NULL, ik, 0, fn, ctx, KIX_OK};
    uint32_t list;
    int rc = list_number(t, key, n, 0, &list, NULL);

    if (rc == KIX_ENOTFOUND)
        return KIX_OK; /* no such list: no items */
    if (rc == KIX_OK)
        rc = kix_log_txn_scan(t, KIX_TABLE_SELECTIONS, ik, item_key(ik, list, 0), each_item, &w);
    return rc ? rc : w.rc;
}

struct list_walk {
    struct kix_log_txn *t;
    kix__sel_list_fn fn;
    void *ctx;
    int rc;
};

static int each_list(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct list_walk *w = arg;
    uint64_t items = 0;
    int rc;

    if (k->len < 5 || memcmp(k->ptr, "nsel/", 5) != 0)
        return 1; /* past the lists */
    if (k->len - 1 > KIX_SEL_KEY_MAX || v->len != 4)
        return 0;
    rc = head_items(w->t, kix_u32be_get(v->ptr), &items, NULL);
    if (rc && rc != KIX_ENOTFOUND) {
        w->rc = rc;
        return 1;
    }
    rc = w->fn(w->ctx, (const char *)k->ptr + 1, k->len - 1, items);
    if (rc < 0)
        w->rc = rc;
    return rc != 0;
}

int kix__sel_each_list(struct kix_log_txn *t, kix__sel_list_fn fn, void *ctx)
{
    struct list_walk w = {t, fn, ctx, KIX_OK};
    int rc = kix_log_txn_scan(t, KIX_TABLE_SELECTIONS, "nsel/", 5, each_list, &w);

    return rc ? rc : w.rc;
}

struct item_ctx {
    struct kix_log_txn *t;
    const struct kix_log_item *item;
};

/* An object's words for dim, parsed once and kept by digest. */
static int item_words(void *ctx, int dim, const struct kix_digest *d, char *out, size_t cap)
{
    struct item_ctx *c = ctx;
    uint8_t key[2 + 32] = {'o', (uint8_t)dim};
    struct kix_bytes v;
    int rc;

    memcpy(key + 2, d->b, 32);
    if (kix_log_txn_get(c->t, KIX_TABLE_SELECTIONS, key, sizeof(key), &v) == KIX_OK &&
        v.len < cap) {
        memcpy(out, v.ptr, v.len);
        out[v.len] = '\0';
        return KIX_OK;
    }
    rc = kix_log_item_object(c->t, c->item, d, &v);
    if (rc)
        return rc;
    kix__sel_object_words(dim, v.ptr, v.len, out, cap);
    return kix_log_txn_put(c->t, KIX_TABLE_SELECTIONS, key, sizeof(key), out, strlen(out), NULL);
}

int kix__sel_apply(struct kix_log_txn *t, const struct kix_log_item *item,
                   const struct kix_run_info *run, struct kix_err *err)
{
    struct kix__sel_sink s = {table_new_group, table_append, t};
    struct item_ctx ic = {t, item};
    struct kix__manifest_memo memo;
    struct kix_bytes m;
    int rc;

    if (!run->grouped)
        return KIX_OK;
    /* the words prepare read off its parse, when the submission carried
     * the manifest (join_group's memo: the same subject) */
    if (kix__manifest_memo_of(item, &memo) && memo.has_words &&
        memcmp(item->entry->subject.b, run->manifest.b, 32) == 0) {
        struct kix_query_row row;
        memcpy(row.mode, memo.mode, sizeof(row.mode));
        memcpy(row.metric, memo.metric, sizeof(row.metric));
        return kix__sel_publication_words(&s, run, &row, memo.refs, item_words, &ic, err);
    }
    rc = kix_log_item_object(t, item, &run->manifest, &m);
    if (rc)
        return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                           "reading the run manifest");
    kix__writer_parsed_manifest();
    return kix__sel_publication(&s, run, &m, item_words, &ic, err);
}

/* ---- the check: lists in memory ---------------------------------------------------- */

struct sel_list {
    char key[KIX_SEL_KEY_MAX + 1];
    size_t key_len;
    uint64_t n;
    struct kix_buf items;
};

struct kix__sel_memory {
    struct sel_list *lists;
    size_t nlists, cap;
    uint8_t *groups; /* 32 bytes each, open addressing; all zero: empty */
    size_t ngroups, gcap;
};

struct kix__sel_memory *kix__sel_memory_new(void)
{
    return calloc(1, sizeof(struct kix__sel_memory));
}

void kix__sel_memory_free(struct kix__sel_memory *m)
{
    for (size_t i = 0; m && i < m->nlists; i++)
        kix_buf_release(&m->lists[i].items);
    if (m) {
        free(m->lists);
        free(m->groups);
    }
    free(m);
}

static uint8_t *group_slot(struct kix__sel_memory *m, const uint8_t g[32])
{
    static const uint8_t zero[32];
    uint64_t h;
    size_t i;

    memcpy(&h, g, sizeof(h));
    for (i = (size_t)(h % m->gcap);; i = (i + 1) % m->gcap) {
        uint8_t *s = m->groups + 32 * i;
        if (memcmp(s, zero, 32) == 0 || memcmp(s, g, 32) == 0)
            return s;
    }
}

static int memory_new_group(void *ctx, const struct kix_digest *g, int *is_new, struct kix_err *err)
{
    struct kix__sel_memory *m = ctx;
    uint8_t *s;

    if (2 * (m->ngroups + 1) > m->gcap) {
        struct kix__sel_memory grown = *m;
        grown.gcap = m->gcap ? 2 * m->gcap : 1024;
        if (!(grown.groups = calloc(grown.gcap, 32)))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        for (size_t i = 0; i < m->gcap; i++)
            for (int k = 0; k < 32; k++)
                if (m->groups[32 * i + k]) {
                    memcpy(group_slot(&grown, m->groups + 32 * i), m->groups + 32 * i, 32);
                    break;
                }
        free(m->groups);
        m->groups = grown.groups;
        m->gcap = grown.gcap;
    }
    s = group_slot(m, g->b);
    *is_new = memcmp(s, g->b, 32) != 0;
    if (*is_new) {
        memcpy(s, g->b, 32);
        m->ngroups++;
    }
    return KIX_OK;
}

static int memory_append(void *ctx, int dim, const char *value, const uint8_t *item, size_t len,
                         int *created, struct kix_err *err)
{
    struct kix__sel_memory *m = ctx;
    char key[KIX_SEL_KEY_MAX + 1];
    size_t n = kix_sel_key(dim, value, value ? strlen(value) : 0, UINT64_MAX, key), i;

    for (i = 0; i < m->nlists; i++)
        if (m->lists[i].key_len == n && memcmp(m->lists[i].key, key, n) == 0)
            break;
    if (i == m->nlists) {
        struct sel_list *grown = kix_array_grow(m->lists, &m->cap, m->nlists, 64, sizeof(*grown));
        if (!grown)
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        m->lists = grown;
        memset(&m->lists[i], 0, sizeof(m->lists[i]));
        memcpy(m->lists[i].key, key, n + 1);
        m->lists[i].key_len = n;
        kix_buf_init(&m->lists[i].items);
        m->nlists++;
    }
    *created = m->lists[i].n == 0;
    m->lists[i].n++;
    return kix_sel_item_add(&m->lists[i].items, item, len)
               ? kix_err_set(err, KIX_ENOMEM, "out of memory")
               : KIX_OK;
}

static int reader_words(void *ctx, int dim, const struct kix_digest *d, char *out, size_t cap)
{
    struct kix_bytes v;
    int rc = kix_log_reader_object(ctx, d, &v);
    if (rc == KIX_OK)
        kix__sel_object_words(dim, v.ptr, v.len, out, cap);
    return rc;
}

int kix__sel_memory_add(struct kix__sel_memory *m, struct kix_log_reader *r,
                        const struct kix_run_info *run, struct kix_err *err)
{
    struct kix__sel_sink s = {memory_new_group, memory_append, m};
    struct kix_bytes man;

    if (!run->grouped || kix_log_reader_object(r, &run->manifest, &man) != KIX_OK)
        return KIX_OK;
    return kix__sel_publication(&s, run, &man, reader_words, r, err);
}

/* Each list's head, then its pages, through fn. */
int kix__sel_memory_each(struct kix__sel_memory *m, kix__sel_record_fn fn, void *ctx)
{
    struct kix_buf rec = KIX_BUF_INIT;
    char key[KIX_SEL_KEY_MAX + 1];
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < m->nlists; i++) {
        const struct sel_list *l = &m->lists[i];
        const uint8_t *p = l->items.ptr;
        size_t at = 0;

        kix_buf_reset(&rec);
        rc = kix_sel_head_encode(l->n, &rec);
        if (rc == KIX_OK)
            rc = fn(ctx, l->key, l->key_len, &rec);
        for (uint64_t page = 0; rc == KIX_OK && page * KIX_SEL_PAGE < l->n; page++) {
            uint64_t k = l->n - page * KIX_SEL_PAGE < KIX_SEL_PAGE ? l->n - page * KIX_SEL_PAGE
                                                                   : KIX_SEL_PAGE;
            size_t start = at;
            for (uint64_t j = 0; j < k; j++)
                at += 2 + ((size_t)p[at] << 8 | p[at + 1]);
            kix_buf_reset(&rec);
            rc = kix_sel_page_encode(page, k, p + start, at - start, &rec);
            if (rc == KIX_OK) {
                size_t n =
                    (size_t)snprintf(key, sizeof(key), "%s/%llu", l->key, (unsigned long long)page);
                rc = fn(ctx, key, n, &rec);
            }
        }
    }
    kix_buf_release(&rec);
    return rc;
}
