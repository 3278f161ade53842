/* The object pack of a full entry bundle, as the log fixes it
 * (kix/tlog_tiles.h, format in kix/object_pack.h). */
#include <stdlib.h>
#include <string.h>

#include "kix/object_pack.h"
#include "kix/tlog_tiles.h"
#include "log_internal.h"

struct pack_builder {
    struct kix_log_reader *r;
    struct kix_buf *out;
    struct kix_digest *seen; /* open addressing; all-zero: empty (no object hashes to it) */
    size_t cap, n;
};

static int is_empty(const uint8_t d[32])
{
    static const uint8_t zero[32];
    return memcmp(d, zero, 32) == 0;
}

static size_t slot_of(const struct pack_builder *b, const struct kix_digest *d)
{
    size_t s;

    memcpy(&s, d->b, sizeof(s)); /* a digest's bytes are already uniform */
    s &= b->cap - 1;
    while (!is_empty(b->seen[s].b) && memcmp(b->seen[s].b, d->b, 32) != 0)
        s = (s + 1) & (b->cap - 1);
    return s;
}

/* 1 when d was added before; else adds it and returns 0 (KIX_ENOMEM: -1). */
static int seen_before(struct pack_builder *b, const struct kix_digest *d)
{
    size_t s;

    if (2 * (b->n + 1) > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        struct kix_digest *old = b->seen;
        size_t old_cap = b->cap;
        b->seen = calloc(cap, sizeof(*b->seen));
        if (!b->seen) {
            b->seen = old;
            return -1;
        }
        b->cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (!is_empty(old[i].b))
                b->seen[slot_of(b, &old[i])] = old[i];
        free(old);
    }
    s = slot_of(b, d);
    if (!is_empty(b->seen[s].b))
        return 1;
    b->seen[s] = *d;
    b->n++;
    return 0;
}

/* d after what it references, each once (the order of an export's object
 * files: kix_log_export_tlog); an object the log does not hold (what a key
 * entry names) is left out. */
static int pack_object(struct pack_builder *b, const struct kix_digest *d, unsigned depth)
{
    struct kix_digest *refs = NULL;
    struct kix_bytes v;
    size_t n = 0;
    int rc = seen_before(b, d);

    if (rc)
        return rc < 0 ? KIX_ENOMEM : KIX_OK;
    rc = kix_log_reader_object(b->r, d, &v);
    if (rc == KIX_ENOTFOUND)
        return KIX_OK;
    if (rc)
        return rc;
    /* stored objects are canonical: one scan finds their references */
    if (depth < 16 && kix_refs_canonical(v.ptr, v.len, &refs, &n) != KIX_OK)
        return KIX_ENOMEM;
    for (size_t i = 0; rc == KIX_OK && i < n; i++)
        rc = pack_object(b, &refs[i], depth + 1);
    free(refs);
    return rc ? rc : kix_object_pack_add(b->out, v.ptr, v.len);
}

int kix_log_reader_object_pack(struct kix_log_reader *r, uint64_t index, struct kix_buf *out,
                               struct kix_err *err)
{
    struct pack_builder b = {r, out, NULL, 0, 0};
    size_t start = out->len;
    int rc = KIX_OK;

    if (kix_tlog_tile_width(kix_log_reader_size(r), 0, index) != KIX_TLOG_WIDTH)
        return kix_err_set(err, KIX_ENOTFOUND, "entry bundle %llu is not full at size %llu",
                           (unsigned long long)index, (unsigned long long)kix_log_reader_size(r));
    for (unsigned i = 0; rc == KIX_OK && i < KIX_TLOG_WIDTH; i++) {
        uint64_t e = index * KIX_TLOG_WIDTH + i;
        struct kix_digest *needs = NULL;
        struct kix_bytes leaf;
        size_t n = 0;

        rc = kix_log_reader_entry(r, e, &leaf);
        if (rc) {
            rc = kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                             "entry %llu cannot be read: %s", (unsigned long long)e,
                             kix_strerror(rc));
            break;
        }
        /* what a logged leaf needs, from the leaf alone (it was verified
         * when it was appended: preparing it again is not needed) */
        rc = kix_entry_needs(leaf.ptr, leaf.len, &needs, &n, err);
        for (size_t k = 0; rc == KIX_OK && k < n; k++)
            rc = pack_object(&b, &needs[k], 0);
        free(needs);
        if (rc == KIX_ELIMIT)
            kix_err_set(err, rc, "the objects of entry bundle %llu are over the %u bytes of a pack",
                        (unsigned long long)index, KIX_OBJECT_PACK_MAX);
        else if (rc == KIX_ENOMEM || rc == KIX_EIO)
            kix_err_set(err, rc, "packing the objects of entry %llu: %s", (unsigned long long)e,
                        kix_strerror(rc));
    }
    free(b.seen);
    if (rc)
        out->len = start;
    return rc;
}
