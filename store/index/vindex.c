/* The verifiable index's keys, record encodings and index note
 * (kix/vindex.h): pure code shared by the index that commits records and
 * the readers that check them. */
#include "kix/vindex.h"

#include <stdio.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/sha256.h"

#define NONE KIX_NO_INDEX

/* ---- keys ------------------------------------------------------------------ */

static size_t key_hex(const char *prefix, const uint8_t b[32], char *out)
{
    size_t n = strlen(prefix);
    memcpy(out, prefix, n);
    kix_hex_encode(b, 32, out + n);
    return n + 64;
}

size_t kix_vindex_key_run(const char *run_id, size_t len, char out[KIX_VINDEX_KEY_MAX + 1])
{
    if (len > KIX_RUN_ID_MAX)
        len = KIX_RUN_ID_MAX;
    memcpy(out, "run/", 4);
    memcpy(out + 4, run_id, len);
    out[4 + len] = '\0';
    return 4 + len;
}

size_t kix_vindex_key_group(const struct kix_digest *key, char out[KIX_VINDEX_KEY_MAX + 1])
{
    return key_hex("group/", key->b, out);
}

size_t kix_vindex_key_key(const uint8_t key_id[32], char out[KIX_VINDEX_KEY_MAX + 1])
{
    return key_hex("key/", key_id, out);
}

size_t kix_vindex_key_manifest(const struct kix_digest *d, char out[KIX_VINDEX_KEY_MAX + 1])
{
    return key_hex("manifest/", d->b, out);
}

/* ---- a strict little reader ------------------------------------------------------ */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

static const uint8_t *take(struct rd *r, size_t n)
{
    const uint8_t *p = r->p;
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    r->p += n;
    return p;
}

static uint64_t take_u64(struct rd *r)
{
    const uint8_t *p = take(r, 8);
    return p ? kix_u64be_get(p) : 0;
}

static unsigned take_u8(struct rd *r)
{
    const uint8_t *p = take(r, 1);
    return p ? *p : 0;
}

static void take_hash(struct rd *r, uint8_t out[32])
{
    const uint8_t *p = take(r, 32);
    if (p)
        memcpy(out, p, 32);
}

/* A run id: u8 length, bytes; empty allowed only where `optional`. */
static void take_id(struct rd *r, char out[KIX_RUN_ID_MAX + 1], int optional)
{
    unsigned n = take_u8(r);
    const uint8_t *p = take(r, n);

    out[0] = '\0';
    if (!p)
        return;
    if (n == 0 ? !optional : !kix_run_id_valid((const char *)p, n)) {
        r->bad = 1;
        return;
    }
    memcpy(out, p, n);
    out[n] = '\0';
}

static int put_u64(struct kix_buf *b, uint64_t v)
{
    uint8_t x[8];
    kix_u64be_put(x, v);
    return kix_buf_add(b, x, 8);
}

static int put_id(struct kix_buf *b, const char *id)
{
    size_t n = strlen(id);
    int rc;
    if (n > KIX_RUN_ID_MAX)
        return KIX_EINVAL;
    rc = kix_buf_addc(b, (uint8_t)n);
    return rc ? rc : kix_buf_add(b, id, n);
}

static int malformed(struct kix_err *err, const char *what)
{
    return kix_err_set(err, KIX_EVERIFY, "malformed %s record in the verifiable index", what);
}

/* ---- runs ------------------------------------------------------------------ */

void kix_vindex_chain(const struct kix_hash *chain, uint64_t index,
                      const struct kix_hash *leaf_hash, struct kix_hash *out)
{
    uint8_t pre[1 + 32 + 8 + 32];
    struct kix_digest d;

    pre[0] = 0x04;
    memcpy(pre + 1, chain->b, 32);
    kix_u64be_put(pre + 33, index);
    memcpy(pre + 41, leaf_hash->b, 32);
    kix_digest_of(pre, sizeof(pre), &d);
    memcpy(out->b, d.b, 32);
}

int kix_vindex_run_encode(const struct kix_vindex_run *r, struct kix_buf *out)
{
    const struct kix_run_info *i = &r->info;
    static const uint8_t zero[32];
    int rc = kix_buf_addc(out, KIX_VINDEX_RUN);

    if (!rc)
        rc = kix_buf_add(out, i->manifest.b, 32);
    if (!rc)
        rc = kix_buf_add(out, i->publisher, 32);
    if (!rc)
        rc = put_u64(out, i->publication_index);
    if (!rc)
        rc = kix_buf_addc(out, (uint8_t)i->evidence);
    if (!rc)
        rc = put_u64(out, i->evidence_index);
    if (!rc)
        rc = put_u64(out, i->attestations);
    if (!rc)
        rc = put_u64(out, i->reruns);
    if (!rc)
        rc = put_u64(out, i->supersedes_index);
    if (!rc)
        rc = put_id(out, r->predecessor);
    if (!rc)
        rc = put_u64(out, i->superseded_by_index);
    if (!rc)
        rc = put_id(out, r->successor);
    if (!rc)
        rc = kix_buf_addc(out, i->grouped ? 1 : 0);
    if (!rc)
        rc = kix_buf_add(out, i->grouped ? i->comparison_key.b : zero, 32);
    if (!rc)
        rc = put_u64(out, i->grouped ? i->value : 0);
    if (!rc)
        rc = put_u64(out, i->entries);
    if (!rc)
        rc = kix_buf_add(out, i->entries_chain.b, 32);
    if (!rc)
        rc = put_u64(out, i->withdrawn_index);
    return rc;
}

int kix_vindex_run_decode(const uint8_t *v, size_t len, const char *run_id,
                          struct kix_vindex_run *out, struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    struct kix_run_info *i = &out->info;
    static const uint8_t zero[32];

    memset(out, 0, sizeof(*out));
    snprintf(i->run_id, sizeof(i->run_id), "%s", run_id);
    if (take_u8(&r) != KIX_VINDEX_RUN)
        return malformed(err, "run");
    take_hash(&r, i->manifest.b);
    take_hash(&r, i->publisher);
    i->publication_index = take_u64(&r);
    i->evidence = (int)take_u8(&r);
    i->evidence_index = take_u64(&r);
    i->attestations = take_u64(&r);
    i->reruns = take_u64(&r);
    i->supersedes_index = take_u64(&r);
    take_id(&r, out->predecessor, 1);
    i->superseded_by_index = take_u64(&r);
    take_id(&r, out->successor, 1);
    i->grouped = (int)take_u8(&r);
    take_hash(&r, i->comparison_key.b);
    i->value = take_u64(&r);
    i->entries = take_u64(&r);
    take_hash(&r, i->entries_chain.b);
    i->withdrawn_index = take_u64(&r);
    if (r.bad || r.p != r.end || i->evidence > KIX_EVIDENCE_FAILED || i->grouped > 1 ||
        (i->withdrawn_index != NONE && i->grouped) ||
        (!i->grouped && (i->value != 0 || memcmp(i->comparison_key.b, zero, 32) != 0)) ||
        (i->supersedes_index == NONE) != (out->predecessor[0] == '\0') ||
        (i->superseded_by_index == NONE) != (out->successor[0] == '\0') ||
        (i->evidence_index != NONE && i->reruns == 0) ||
        (i->evidence_index == NONE && i->evidence != KIX_EVIDENCE_REPORTED) ||
        i->publication_index == NONE)
        return malformed(err, "run");
    return KIX_OK;
}

/* ---- groups: a directory and its pages ------------------------------------------ */

size_t kix_vindex_key_group_page(const struct kix_digest *key, const char *page_id,
                                 char out[KIX_VINDEX_KEY_MAX + 1])
{
    size_t n = key_hex("group/", key->b, out), m = strlen(page_id);
    if (m > KIX_RUN_ID_MAX)
        m = KIX_RUN_ID_MAX;
    out[n++] = '/';
    memcpy(out + n, page_id, m);
    out[n + m] = '\0';
    return n + m;
}

int kix_vindex_page_starts(const char *run_id, size_t len)
{
    static const char tag[] = KIX_VINDEX_PAGE_TAG;
    uint8_t h[KIX_SHA256_LEN];
    kix_sha256_2(tag, sizeof(tag) - 1, run_id, len, h);
    return h[0] < 256 / KIX_VINDEX_PAGE_MEAN;
}

int kix_vindex_group_begin(const struct kix_digest *key, uint64_t count, uint64_t pages,
                           struct kix_buf *out)
{
    int rc = kix_buf_addc(out, KIX_VINDEX_GROUP);
    if (!rc)
        rc = kix_buf_add(out, key->b, 32);
    if (!rc)
        rc = put_u64(out, count);
    return rc ? rc : put_u64(out, pages);
}

int kix_vindex_group_page_add(uint64_t members, const char *first_run, uint64_t first_value,
                              struct kix_buf *out)
{
    int rc = put_u64(out, members);
    if (!rc)
        rc = put_u64(out, first_value);
    return rc ? rc : put_id(out, first_run);
}

int kix_vindex_page_begin(const struct kix_digest *key, const char *page_id, uint64_t count,
                          struct kix_buf *out)
{
    int rc = kix_buf_addc(out, KIX_VINDEX_GROUP_PAGE);
    if (!rc)
        rc = kix_buf_add(out, key->b, 32);
    if (!rc)
        rc = put_id(out, page_id);
    return rc ? rc : put_u64(out, count);
}

int kix_vindex_group_add(const char *run_id, uint64_t value, struct kix_buf *out)
{
    int rc = put_u64(out, value);
    return rc ? rc : put_id(out, run_id);
}

/* rank order: value ascending, then run id bytes (shorter first on a tie
 * of the common prefix), as the group table's keys sort */
static int before(uint64_t v1, const char *id1, uint64_t v2, const char *id2)
{
    size_t n1 = strlen(id1), n2 = strlen(id2);
    int c;
    if (v1 != v2)
        return v1 < v2;
    c = memcmp(id1, id2, n1 < n2 ? n1 : n2);
    return c < 0 || (c == 0 && n1 < n2);
}

int kix_vindex_group_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                            struct kix_vindex_dir *out, kix_vindex_page_fn fn, void *ctx,
                            struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    struct kix_digest k;
    struct kix_vindex_page p, prev;
    uint64_t count, pages, rank = 1, last_members = 0;
    int stopped = 0;

    memset(out, 0, sizeof(*out));
    if (take_u8(&r) != KIX_VINDEX_GROUP)
        return malformed(err, "group");
    take_hash(&r, k.b);
    count = take_u64(&r);
    pages = take_u64(&r);
    if (r.bad || memcmp(k.b, key->b, 32) != 0)
        return malformed(err, "group");
    /* each page takes at least 17 bytes and holds a member but the first:
     * a count past that is a lie */
    if (pages == 0 || pages > (uint64_t)(r.end - r.p) / 17 || count < pages - 1)
        return malformed(err, "group");
    memset(&prev, 0, sizeof(prev));
    for (uint64_t i = 0; i < pages; i++) {
        memset(&p, 0, sizeof(p));
        p.index = i;
        p.first_rank = rank;
        p.members = take_u64(&r);
        p.first_value = take_u64(&r);
        take_id(&r, p.first_run, i == 0);
        if (r.bad || p.members > count - (rank - 1) || (p.members == 0) != (p.first_run[0] == 0))
            return malformed(err, "group");
        /* the first page starts at the best run; every other at a run
         * that starts a page by the hash rule or after a full page, in
         * rank order after the page before; none holds more than a full
         * page */
        if (p.members > KIX_VINDEX_PAGE_MAX ||
            (i > 0 && ((!kix_vindex_page_starts(p.first_run, strlen(p.first_run)) &&
                        last_members != KIX_VINDEX_PAGE_MAX) ||
                       (prev.members &&
                        !before(prev.first_value, prev.first_run, p.first_value, p.first_run)))))
            return malformed(err, "group");
        if (i == 0 && p.members == 0 && p.first_value != 0)
            return malformed(err, "group");
        if (i == 1 && prev.members == 0) {
            out->best_value = p.first_value;
            memcpy(out->best, p.first_run, sizeof(out->best));
        } else if (i == 0 && p.members) {
            out->best_value = p.first_value;
            memcpy(out->best, p.first_run, sizeof(out->best));
        }
        if (fn && !stopped && fn(ctx, &p))
            stopped = 1;
        rank += p.members;
        last_members = p.members;
        if (p.members)
            prev = p;
    }
    if (r.p != r.end || rank - 1 != count)
        return malformed(err, "group");
    out->count = count;
    out->pages = pages;
    return KIX_OK;
}

int kix_vindex_page_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                           const struct kix_vindex_page *want, char page_id[KIX_RUN_ID_MAX + 1],
                           kix_vindex_member_fn fn, void *ctx, struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    struct kix_digest k;
    char prev[KIX_RUN_ID_MAX + 1] = "", id[KIX_RUN_ID_MAX + 1];
    uint64_t n, prev_value = 0;
    int stopped = 0;

    /* a page is bounded however its ids were chosen (kix/vindex.h) */
    if (len > KIX_VINDEX_PAGE_BYTES)
        return kix_err_set(err, KIX_EVERIFY,
                           "a group page record of %zu bytes is over the %u-byte bound of a page",
                           len, KIX_VINDEX_PAGE_BYTES);
    if (take_u8(&r) != KIX_VINDEX_GROUP_PAGE)
        return malformed(err, "group page");
    take_hash(&r, k.b);
    take_id(&r, page_id, 1);
    n = take_u64(&r);
    if (r.bad || memcmp(k.b, key->b, 32) != 0)
        return malformed(err, "group page");
    if (n > (uint64_t)(r.end - r.p) / 10 || n > KIX_VINDEX_PAGE_MAX)
        return malformed(err, "group page");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t value = take_u64(&r);
        take_id(&r, id, 0);
        if (r.bad || (i > 0 && !before(prev_value, prev, value, id)))
            return malformed(err, "group page");
        /* a page runs from its first run to the next run that starts one */
        if (i == 0 && page_id[0] && strcmp(id, page_id) != 0)
            return malformed(err, "group page");
        if (i > 0 && kix_vindex_page_starts(id, strlen(id)))
            return malformed(err, "group page");
        if (want && i == 0 && (value != want->first_value || strcmp(id, want->first_run) != 0))
            return malformed(err, "group page");
        if (fn && !stopped && fn(ctx, (want ? want->first_rank : 1) + i, id, value))
            stopped = 1;
        prev_value = value;
        memcpy(prev, id, sizeof(prev));
    }
    if (r.p != r.end || (page_id[0] && n == 0 && want))
        return malformed(err, "group page");
    if (want && (n != want->members || (want->index == 0) != (page_id[0] == '\0')))
        return malformed(err, "group page");
    return KIX_OK;
}

struct page_find {
    const char *page_id;
    struct kix_vindex_page *out;
    int found;
};

static int find_page(void *ctx, const struct kix_vindex_page *p)
{
    struct page_find *f = ctx;
    if ((p->index == 0) != (f->page_id[0] == '\0') ||
        (p->index > 0 && strcmp(p->first_run, f->page_id) != 0))
        return 0;
    *f->out = *p;
    f->found = 1;
    return 1;
}

int kix_vindex_group_find_page(const uint8_t *dir, size_t dir_len, const struct kix_digest *key,
                               const char *page_id, struct kix_vindex_dir *d,
                               struct kix_vindex_page *out, struct kix_err *err)
{
    struct page_find f = {page_id, out, 0};
    int rc = kix_vindex_group_decode(dir, dir_len, key, d, find_page, &f, err);
    if (rc == KIX_OK && !f.found)
        rc = kix_err_set(err, KIX_EVERIFY,
                         "the group's signed directory lists no page starting at run %s",
                         page_id[0] ? page_id : "(the first)");
    return rc;
}

struct rank_find {
    const char *run_id;
    struct kix_rank *out;
};

static int rank_member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct rank_find *f = ctx;
    (void)value;
    if (strcmp(run_id, f->run_id) == 0) {
        f->out->rank = rank;
        return 1;
    }
    return 0;
}

int kix_vindex_group_rank(const uint8_t *dir, size_t dir_len, const uint8_t *page, size_t page_len,
                          const struct kix_digest *key, const char *run_id, struct kix_rank *out,
                          struct kix_err *err)
{
    struct rank_find f = {run_id, out};
    struct kix_vindex_dir d;
    struct kix_vindex_page p;
    char page_id[KIX_RUN_ID_MAX + 1] = "";
    struct kix_err ignored;
    int rc;

    memset(out, 0, sizeof(*out));
    /* the page's own id first, to find it in the directory */
    rc = kix_vindex_page_decode(page, page_len, key, NULL, page_id, NULL, NULL,
                                err ? err : &ignored);
    if (rc == KIX_OK)
        rc = kix_vindex_group_find_page(dir, dir_len, key, page_id, &d, &p, err);
    if (rc == KIX_OK)
        rc = kix_vindex_page_decode(page, page_len, key, &p, page_id, rank_member, &f, err);
    if (rc)
        return rc;
    out->group_size = d.count;
    out->best_value = d.best_value;
    snprintf(out->best, sizeof(out->best), "%s", d.best);
    return KIX_OK;
}

/* ---- keys and manifests ---------------------------------------------------------- */

int kix_vindex_key_encode(const uint8_t key_id[32], const struct kix_key_info *k,
                          struct kix_buf *out)
{
    int rc = kix_buf_addc(out, KIX_VINDEX_KEY);
    if (!rc)
        rc = kix_buf_add(out, key_id, 32);
    if (!rc)
        rc = kix_buf_add(out, k->pub, 32);
    if (!rc)
        rc = kix_buf_addc(out, (uint8_t)k->roles);
    if (!rc)
        rc = put_u64(out, k->added_index);
    return rc ? rc : put_u64(out, k->revoked_index);
}

int kix_vindex_key_decode(const uint8_t *v, size_t len, const uint8_t key_id[32],
                          struct kix_key_info *out, struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    uint8_t id[32];

    memset(out, 0, sizeof(*out));
    if (take_u8(&r) != KIX_VINDEX_KEY)
        return malformed(err, "key");
    take_hash(&r, id);
    take_hash(&r, out->pub);
    out->roles = take_u8(&r);
    out->added_index = take_u64(&r);
    out->revoked_index = take_u64(&r);
    if (r.bad || r.p != r.end || memcmp(id, key_id, 32) != 0)
        return malformed(err, "key");
    return KIX_OK;
}

int kix_vindex_manifest_encode(const struct kix_digest *d, const char *run_id,
                               uint64_t publication_index, struct kix_buf *out)
{
    int rc = kix_buf_addc(out, KIX_VINDEX_MANIFEST);
    if (!rc)
        rc = kix_buf_add(out, d->b, 32);
    if (!rc)
        rc = put_id(out, run_id);
    return rc ? rc : put_u64(out, publication_index);
}

int kix_vindex_manifest_decode(const uint8_t *v, size_t len, const struct kix_digest *d,
                               char run_id[KIX_RUN_ID_MAX + 1], uint64_t *publication_index,
                               struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    uint8_t got[32];

    if (take_u8(&r) != KIX_VINDEX_MANIFEST)
        return malformed(err, "manifest");
    take_hash(&r, got);
    take_id(&r, run_id, 0);
    *publication_index = take_u64(&r);
    if (r.bad || r.p != r.end || memcmp(got, d->b, 32) != 0)
        return malformed(err, "manifest");
    return KIX_OK;
}

/* ---- the index note ------------------------------------------------------------- */

static int add_b64_line(struct kix_buf *out, const char *label, const struct kix_hash *h)
{
    int rc = kix_buf_adds(out, label);
    if (!rc)
        rc = kix_base64_encode(h->b, 32, out);
    return rc ? rc : kix_buf_addc(out, '\n');
}

int kix_vindex_note_text(const struct kix_vindex_note *n, struct kix_buf *out)
{
    int rc = kix_buf_addf(out, "%s\norigin %s\nsize %llu\n", KIX_VINDEX_NOTE_HEADER, n->origin,
                          (unsigned long long)n->size);
    if (!rc)
        rc = add_b64_line(out, "log ", &n->log_root);
    return rc ? rc : add_b64_line(out, "index ", &n->index_root);
}

/* One line "<label><value>\n" at *p; sets value and vlen to the value. */
static int line(const char **p, const char *end, const char *label, const char **value,
                size_t *vlen)
{
    size_t n = strlen(label);
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));

    if (!nl || (size_t)(nl - *p) < n || memcmp(*p, label, n) != 0)
        return 0;
    *value = *p + n;
    *vlen = (size_t)(nl - *value);
    *p = nl + 1;
    return 1;
}

static int parse_hash(const char *b64, size_t len, struct kix_hash *out)
{
    size_t n = 0;
    return kix_base64_decode_std(b64, len, out->b, 32, &n) == KIX_OK && n == 32;
}

int kix_vindex_note_open(const char *text, size_t len, const struct kix_verifier *log_key,
                         const struct kix_checkpoint *cp, struct kix_vindex_note *out,
                         struct kix_err *err)
{
    struct kix_note note;
    const char *p, *end, *v;
    size_t vl;
    char num[24];
    struct kix_buf again = KIX_BUF_INIT;
    int rc = kix_note_open(text, len, log_key, 1, &note, err);

    if (rc) {
        kix_err_wrap(err, "the index note");
        return rc;
    }
    memset(out, 0, sizeof(*out));
    p = (const char *)note.text.ptr;
    end = p + note.text.len;
    if (!line(&p, end, KIX_VINDEX_NOTE_HEADER, &v, &vl) || vl != 0 ||
        !line(&p, end, "origin ", &v, &vl) || vl == 0 || vl > KIX_NOTE_NAME_MAX)
        goto bad;
    memcpy(out->origin, v, vl);
    if (!line(&p, end, "size ", &v, &vl) || vl == 0 || vl >= sizeof(num))
        goto bad;
    memcpy(num, v, vl);
    num[vl] = '\0';
    for (size_t i = 0; i < vl; i++) {
        unsigned d = (unsigned)(num[i] - '0');
        if (d > 9 || out->size > (UINT64_MAX - d) / 10)
            goto bad;
        out->size = out->size * 10 + d;
    }
    if (!line(&p, end, "log ", &v, &vl) || !parse_hash(v, vl, &out->log_root) ||
        !line(&p, end, "index ", &v, &vl) || !parse_hash(v, vl, &out->index_root) || p != end)
        goto bad;
    /* one spelling: the text must be exactly what kix_vindex_note_text writes */
    rc = kix_vindex_note_text(out, &again);
    if (rc || again.len != note.text.len || memcmp(again.ptr, note.text.ptr, again.len) != 0) {
        kix_buf_release(&again);
        goto bad;
    }
    kix_buf_release(&again);
    if (strcmp(out->origin, log_key->name) != 0)
        return kix_err_set(err, KIX_EVERIFY, "the index note is for log %s, not %s", out->origin,
                           log_key->name);
    if (cp && (cp->size != out->size || memcmp(cp->root, out->log_root.b, 32) != 0))
        return kix_err_set(err, KIX_EVERIFY,
                           "the index note is for size %llu with another log root than the "
                           "checkpoint at size %llu",
                           (unsigned long long)out->size, (unsigned long long)cp->size);
    return KIX_OK;
bad:
    return kix_err_set(err, KIX_EVERIFY, "malformed index note (want %s text)",
                       KIX_VINDEX_NOTE_HEADER);
}

int kix_vindex_verify(const struct kix_vindex_note *note, const char *key, size_t key_len,
                      const uint8_t *value, size_t value_len, const uint8_t *proof,
                      size_t proof_len, struct kix_err *err)
{
    struct kix_hash path, vh;
    int rc;

    kix_smt_path(key, key_len, &path);
    if (value)
        kix_smt_value_hash(value, value_len, &vh);
    rc = kix_smt_verify(&note->index_root, &path, value ? &vh : NULL, proof, proof_len, err);
    if (rc)
        kix_err_wrap(err, "%s %.*s at size %llu", value ? "the index record of" : "the absence of",
                     (int)key_len, key, (unsigned long long)note->size);
    return rc;
}

/* ---- a group's withdrawn runs ---------------------------------------------------- */

size_t kix_vindex_key_withdrawn(const struct kix_digest *key, char out[KIX_VINDEX_KEY_MAX + 1])
{
    return key_hex("withdrawn/", key->b, out);
}

int kix_vindex_withdrawn_begin(const struct kix_digest *key, uint64_t count, struct kix_buf *out)
{
    int rc = kix_buf_addc(out, KIX_VINDEX_WITHDRAWN);
    if (!rc)
        rc = kix_buf_add(out, key->b, 32);
    return rc ? rc : put_u64(out, count);
}

int kix_vindex_withdrawn_add(const char *run_id, uint64_t index, int reason, struct kix_buf *out)
{
    int rc = put_id(out, run_id);
    if (!rc)
        rc = put_u64(out, index);
    return rc ? rc : kix_buf_addc(out, (uint8_t)reason);
}

/* Run ids in byte order, a prefix first (the table's order). */
static int id_before(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    int c = memcmp(a, b, na < nb ? na : nb);
    return c < 0 || (c == 0 && na < nb);
}

int kix_vindex_withdrawn_decode(const uint8_t *v, size_t len, const struct kix_digest *key,
                                kix_vindex_withdrawn_fn fn, void *ctx, uint64_t *count,
                                struct kix_err *err)
{
    struct rd r = {v, v + len, 0};
    uint8_t k[32];
    char prev[KIX_RUN_ID_MAX + 1] = "", id[KIX_RUN_ID_MAX + 1];
    uint64_t n;

    if (take_u8(&r) != KIX_VINDEX_WITHDRAWN)
        return malformed(err, "withdrawn");
    take_hash(&r, k);
    n = take_u64(&r);
    if (r.bad || memcmp(k, key->b, 32) != 0 || n > len)
        return malformed(err, "withdrawn");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t index;
        unsigned reason;
        take_id(&r, id, 0);
        index = take_u64(&r);
        reason = take_u8(&r);
        if (r.bad || index == NONE || !*kix_withdraw_reason_name((int)reason) ||
            (i && !id_before(prev, id)))
            return malformed(err, "withdrawn");
        if (fn && fn(ctx, id, index, (int)reason))
            fn = NULL; /* stop calling, go on checking */
        memcpy(prev, id, sizeof(prev));
    }
    if (r.p != r.end)
        return malformed(err, "withdrawn");
    if (count)
        *count = n;
    return KIX_OK;
}
