/* kix audit, second half: the server's tree hashes against the replica's.
 *
 * The replay (kix_sync) recomputes the tree from the entries and checks it
 * against every signed root; it never reads the server's stored tree
 * hashes. Those are what the server builds every proof from, so here each
 * entry's inclusion proof (and its leaf hash, when the source gives it) is
 * asked for (kix_client_inclusion_proofs: a kixd's are pipelined) and
 * compared, hash by hash, with the replica's: a difference names the node
 * and the tile it is stored in (tile layout: kix/merkle.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"

struct span {
    uint64_t a, b; /* entries [a, b) */
};

/* The subtrees whose hashes make up the inclusion proof of `index` in a
 * tree of `size`, in proof order (the leaf's sibling first). */
static size_t proof_spans(uint64_t index, uint64_t size, struct span out[KIX_MERKLE_MAX_PROOF])
{
    struct span top[KIX_MERKLE_MAX_PROOF];
    uint64_t lo = 0, hi = size;
    size_t n = 0;

    while (hi - lo > 1) {
        uint64_t k = 1; /* the largest power of two below hi - lo */
        while (k * 2 < hi - lo)
            k *= 2;
        if (index < lo + k) {
            top[n].a = lo + k;
            top[n].b = hi;
            hi = lo + k;
        } else {
            top[n].a = lo;
            top[n].b = lo + k;
            lo = lo + k;
        }
        n++;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = top[n - 1 - i];
    return n;
}

/* Where the hash of entries [a, b) lives: a stored node, or a right edge. */
static void describe_span(const struct span *s, char *out, size_t cap)
{
    uint64_t w = s->b - s->a;
    unsigned level = 0;

    while (((uint64_t)1 << level) < w)
        level++;
    if (((uint64_t)1 << level) == w && s->a % w == 0) {
        uint64_t index = s->a >> level;
        snprintf(out, cap,
                 "node (level %u, index %llu) over entries %llu to %llu, stored in tile %u/%llu",
                 level, (unsigned long long)index, (unsigned long long)s->a,
                 (unsigned long long)(s->b - 1), level / 8,
                 (unsigned long long)(index >> (8 - level % 8)));
    } else {
        snprintf(out, cap, "the right edge over entries %llu to %llu (folded from stored nodes)",
                 (unsigned long long)s->a, (unsigned long long)(s->b - 1));
    }
}

struct compare {
    struct kix_log_reader *rd;
    uint64_t size;
    const char *where;
    struct kix_err *err;
};

/* One entry's answer against the replica. leaf NULL: not asked for. */
static int compare_one(struct compare *c, uint64_t index, const struct kix_hash *leaf,
                       const struct kix_hash *proof, size_t n)
{
    struct kix_hash want[KIX_MERKLE_MAX_PROOF], want_leaf;
    struct span spans[KIX_MERKLE_MAX_PROOF];
    char hex_got[65], hex_want[65], node[200];
    size_t wn = 0;
    int rc = kix_log_reader_inclusion(c->rd, index, c->size, want, &wn, c->err);

    if (rc == KIX_OK)
        rc = kix_log_reader_leaf_hash(c->rd, index, &want_leaf, c->err);
    if (rc) {
        kix_err_wrap(c->err, "reading the replica's proof of entry %llu",
                     (unsigned long long)index);
        return rc;
    }
    if (leaf && memcmp(leaf->b, want_leaf.b, 32) != 0) {
        kix_hex_encode(leaf->b, 32, hex_got);
        kix_hex_encode(want_leaf.b, 32, hex_want);
        return kix_err_set(c->err, KIX_EVERIFY,
                           "entry %llu: %s holds %s as its leaf hash (tile 0/%llu), but the entry "
                           "hashes to %s: the server's tree hashes were altered",
                           (unsigned long long)index, c->where, hex_got,
                           (unsigned long long)(index >> 8), hex_want);
    }
    if (n != wn)
        return kix_err_set(c->err, KIX_EVERIFY,
                           "entry %llu: %s answered an inclusion proof of %zu hashes at size %llu, "
                           "not %zu",
                           (unsigned long long)index, c->where, n, (unsigned long long)c->size, wn);
    proof_spans(index, c->size, spans);
    for (size_t k = 0; k < n; k++) {
        if (memcmp(proof[k].b, want[k].b, 32) == 0)
            continue;
        describe_span(&spans[k], node, sizeof(node));
        kix_hex_encode(proof[k].b, 32, hex_got);
        kix_hex_encode(want[k].b, 32, hex_want);
        return kix_err_set(c->err, KIX_EVERIFY,
                           "entry %llu: hash %zu of %s's inclusion proof at size %llu is %s, but "
                           "%s recomputes to %s: the server's tree hashes were altered",
                           (unsigned long long)index, k, c->where, (unsigned long long)c->size,
                           hex_got, node, hex_want);
    }
    return KIX_OK;
}

/* One entry's answer from the source, against the replica. */
static int compare_answer(void *ctx, uint64_t index, const struct kix_hash *leaf,
                          const struct kix_hash *proof, size_t n)
{
    struct compare *c = ctx;
    int rc = compare_one(c, index, leaf, proof, n);

    if (rc)
        kix_err_cause(c->err, KIX_CAUSE_ENTRY, index, 0);
    return rc;
}

int audit_proofs(struct kix_client *c, struct kix_log *replica, uint64_t from, uint64_t to,
                 uint64_t size, struct kix_err *err)
{
    struct compare cmp = {NULL, size, kix_client_where(c), err};
    int rc;

    if (from >= to)
        return KIX_OK;
    rc = kix_log_read_begin(replica, &cmp.rd);
    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    rc = kix_client_inclusion_proofs(c, from, to, size, compare_answer, &cmp, err);
    kix_log_read_end(cmp.rd);
    return rc;
}
