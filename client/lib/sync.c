/* Replaying an upstream log into a replica: fetch, verify in parallel,
 * commit whole upstream batches with their checkpoints. */
#include "kix/sync.h"
#include "kix/parallel.h"
#include "kix/tlog_path.h"
#include "kix/vindex.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_BATCH 1024
#define SMALL_BATCH       32 /* entries: the first and the last without packs (batch_size) */
#define ENTRIES_PER_CALL  1000
#define OBJECTS_PER_CALL  1024

struct leaf {
    uint8_t *bytes;
    size_t len;
};

/* One fetched object and the entry it is sent with. */
struct object {
    struct kix_digest digest;
    struct kix_buf bytes;
    size_t entry;
};

#define STORED_SEEN 64

struct batch {
    uint64_t first;
    struct leaf *leaves;
    size_t nleaves, cap_leaves;
    struct kix_buf notes; /* checkpoint notes, back to back */
    struct kix_replay_checkpoint *cps;
    size_t ncps;
    struct object *objects;
    size_t nobjects, cap_objects;
    size_t *slots; /* open-addressing set of object indexes + 1, by digest */
    size_t nslots;
    size_t *by_entry; /* first object of each entry, after sorting; nleaves + 1 */
    /* objects the replica was found to hold (direct-mapped by digest): the
     * shared ones most entries name are looked up in it once a batch */
    struct kix_digest stored[STORED_SEEN];
    unsigned char stored_set[STORED_SEEN];
    uint64_t replica_reads;
};

static void batch_release(struct batch *b)
{
    for (size_t i = 0; i < b->nleaves; i++)
        free(b->leaves[i].bytes);
    for (size_t i = 0; i < b->nobjects; i++)
        kix_buf_release(&b->objects[i].bytes);
    free(b->leaves);
    free(b->objects);
    free(b->slots);
    free(b->by_entry);
    free(b->cps);
    kix_buf_release(&b->notes);
    memset(b, 0, sizeof(*b));
}

/* ---- checkpoints --------------------------------------------------------- */

struct cp_collect {
    struct batch *b;
    uint64_t start;
    size_t max_batch;
    uint64_t target;
    size_t *offsets; /* note offsets into b->notes (pointers move on growth) */
    size_t cap;
};

static int collect_cp(void *arg, uint64_t size, const uint8_t *note, size_t len,
                      const uint8_t *index_note, size_t index_len)
{
    struct cp_collect *c = arg;
    struct batch *b = c->b;

    if (size > c->target || (b->ncps > 0 && size - c->start > c->max_batch))
        return 1; /* enough: stop */
    if (b->ncps == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        struct kix_replay_checkpoint *cps = realloc(b->cps, cap * sizeof(*cps));
        size_t *offsets = realloc(c->offsets, cap * sizeof(*offsets));
        if (cps)
            b->cps = cps;
        if (offsets)
            c->offsets = offsets;
        if (!cps || !offsets)
            return KIX_ENOMEM;
        c->cap = cap;
    }
    c->offsets[b->ncps] = b->notes.len;
    memset(&b->cps[b->ncps], 0, sizeof(b->cps[b->ncps])); /* not opened yet */
    b->cps[b->ncps].size = size;
    b->cps[b->ncps].note_len = len;
    b->cps[b->ncps].index_note_len = index_len;
    b->ncps++;
    /* the index note follows its checkpoint in b->notes */
    if (kix_buf_add(&b->notes, note, len))
        return KIX_ENOMEM;
    return index_len ? kix_buf_add(&b->notes, index_note, index_len) : KIX_OK;
}

static int fetch_checkpoints(struct kix_client *up, struct batch *b, uint64_t start,
                             uint64_t target, size_t max_batch, struct kix_err *err)
{
    struct cp_collect c = {b, start, max_batch, target, NULL, 0};
    int rc = kix_client_checkpoints(up, start, 256, collect_cp, &c, err);

    if (rc == 1)
        rc = KIX_OK;
    for (size_t i = 0; rc == KIX_OK && i < b->ncps; i++) {
        b->cps[i].note = (const char *)b->notes.ptr + c.offsets[i];
        if (b->cps[i].index_note_len)
            b->cps[i].index_note = b->cps[i].note + b->cps[i].note_len;
    }
    free(c.offsets);
    if (rc)
        return rc == KIX_ENOMEM ? kix_err_set(err, rc, "out of memory") : rc;
    if (b->ncps == 0)
        return kix_err_set(err, KIX_EPROTO,
                           "%s has no signed checkpoint beyond size %llu to sync to",
                           kix_client_where(up), (unsigned long long)start);
    return KIX_OK;
}

/* ---- entries ------------------------------------------------------------- */

static int collect_leaf(void *arg, uint64_t index, const uint8_t *bytes, size_t len)
{
    struct batch *b = arg;
    struct leaf *l;

    if (index != b->first + b->nleaves)
        return KIX_EPROTO;
    l = kix_array_grow(b->leaves, &b->cap_leaves, b->nleaves, 256, sizeof(*l));
    if (!l)
        return KIX_ENOMEM;
    b->leaves = l;
    l = &b->leaves[b->nleaves];
    l->bytes = malloc(len ? len : 1);
    if (!l->bytes)
        return KIX_ENOMEM;
    memcpy(l->bytes, bytes, len);
    l->len = len;
    b->nleaves++;
    return KIX_OK;
}

static int fetch_entries(struct kix_client *up, struct batch *b, uint64_t end, struct kix_err *err)
{
    while (b->first + b->nleaves < end) {
        uint64_t from = b->first + b->nleaves, got = 0;
        uint64_t want = end - from > ENTRIES_PER_CALL ? ENTRIES_PER_CALL : end - from;
        int rc = kix_client_entries(up, from, want, collect_leaf, b, &got, err);
        if (rc == KIX_EPROTO)
            return kix_err_set(err, rc, "%s answered entries out of order", kix_client_where(up));
        if (rc)
            return rc;
        if (got == 0)
            return kix_err_set(err, KIX_EPROTO, "%s signed size %llu but has no entry %llu",
                               kix_client_where(up), (unsigned long long)end,
                               (unsigned long long)from);
    }
    return KIX_OK;
}

/* ---- objects: each entry's needs and their references, not yet stored ---- */

/* d's slot in a table of n (a power of two) */
static size_t digest_slot(const struct kix_digest *d, size_t n)
{
    uint64_t h;
    memcpy(&h, d->b, sizeof(h));
    return (size_t)(h & (n - 1));
}

static size_t slot_of(const struct batch *b, const struct kix_digest *d)
{
    return digest_slot(d, b->nslots);
}

/* Index of the fetched object with digest d, or -1. */
static long find_object(const struct batch *b, const struct kix_digest *d)
{
    if (!b->nslots)
        return -1;
    for (size_t s = slot_of(b, d);; s = (s + 1) & (b->nslots - 1)) {
        if (!b->slots[s])
            return -1;
        if (memcmp(b->objects[b->slots[s] - 1].digest.b, d->b, 32) == 0)
            return (long)(b->slots[s] - 1);
    }
}

static int grow_slots(struct batch *b)
{
    size_t n = b->nslots ? 2 * b->nslots : 1024;
    size_t *slots = calloc(n, sizeof(*slots));
    if (!slots)
        return KIX_ENOMEM;
    free(b->slots);
    b->slots = slots;
    b->nslots = n;
    for (size_t i = 0; i < b->nobjects; i++) {
        size_t s = slot_of(b, &b->objects[i].digest);
        while (b->slots[s])
            s = (s + 1) & (n - 1);
        b->slots[s] = i + 1;
    }
    return KIX_OK;
}

static int want_object(struct batch *b, struct kix_log_reader *r, const struct kix_digest *d,
                       size_t entry)
{
    size_t seen = digest_slot(d, STORED_SEEN);
    struct kix_bytes v;
    struct object *o;
    size_t s;

    if (b->stored_set[seen] && memcmp(b->stored[seen].b, d->b, 32) == 0)
        return KIX_OK; /* r's snapshot holds it: nothing a replica holds goes */
    if (find_object(b, d) >= 0)
        return KIX_OK;
    b->replica_reads++;
    if (kix_log_reader_object(r, d, &v) == KIX_OK) {
        b->stored[seen] = *d;
        b->stored_set[seen] = 1;
        return KIX_OK;
    }
    if (b->nobjects == b->cap_objects) {
        size_t cap = b->cap_objects ? 2 * b->cap_objects : 64;
        struct object *p = realloc(b->objects, cap * sizeof(*p));
        if (!p)
            return KIX_ENOMEM;
        b->objects = p;
        b->cap_objects = cap;
    }
    if (2 * (b->nobjects + 1) > b->nslots && grow_slots(b))
        return KIX_ENOMEM;
    o = &b->objects[b->nobjects];
    memset(o, 0, sizeof(*o));
    o->digest = *d;
    o->entry = entry;
    for (s = slot_of(b, d); b->slots[s]; s = (s + 1) & (b->nslots - 1))
        ;
    b->slots[s] = ++b->nobjects;
    return KIX_OK;
}

static int by_entry(const void *x, const void *y)
{
    const struct object *a = x, *b = y;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Groups the objects by the entry they travel with. */
static int group_objects(struct batch *b)
{
    size_t k = 0;
    if (b->nobjects)
        qsort(b->objects, b->nobjects, sizeof(*b->objects), by_entry);
    free(b->slots); /* indexes changed; lookups are over */
    b->slots = NULL;
    b->nslots = 0;
    b->by_entry = malloc((b->nleaves + 1) * sizeof(*b->by_entry));
    if (!b->by_entry)
        return KIX_ENOMEM;
    for (size_t i = 0; i <= b->nleaves; i++) {
        while (k < b->nobjects && b->objects[k].entry < i)
            k++;
        b->by_entry[i] = k;
    }
    return KIX_OK;
}

struct fill {
    struct batch *b;
    const size_t *index; /* the objects asked for, by their index in b->objects */
    size_t done;         /* objects received so far in this call */
    struct kix_err *err;
};

static int fill_object(void *arg, size_t i, const uint8_t *bytes, size_t len)
{
    struct fill *f = arg;
    struct object *o = &f->b->objects[f->index[i]];
    char text[KIX_DIGEST_TEXT_LEN + 1];

    if (!bytes) {
        /* kix_err_cause's return is not the code when err is NULL: keep it */
        int rc;
        kix_digest_format(&o->digest, text);
        rc = kix_err_set(f->err, KIX_EVERIFY, "the upstream lacks object %s, needed by entry %llu",
                         text, (unsigned long long)(f->b->first + o->entry));
        kix_err_cause(f->err, KIX_CAUSE_ENTRY, f->b->first + o->entry, 0);
        return rc;
    }
    f->done++;
    return kix_buf_add(&o->bytes, bytes, len);
}

/* ---- object packs: a full bundle's objects in one read (kix/object_pack.h) ---- */

#define PACK_MIN_WANTED 16                    /* fewer objects wanted: one GET each is cheaper */
#define PACKS_MAX_BYTES (64u * 1024u * 1024u) /* kept per batch; past it, objects one by one */

struct pack_object {
    struct kix_digest digest;
    size_t off, len; /* in packs.bytes */
};

/* The objects of the packs read for a batch, by digest once sorted. A
 * pack's objects are hashed as read (kix_client_object_pack), so each is
 * the object its digest names; which objects a pack holds is its server's
 * word, so only the digests the batch wants are taken from it. */
struct packs {
    struct kix_buf bytes;
    struct pack_object *objects;
    size_t n, cap;
};

static int keep_pack_object(void *arg, const struct kix_digest *d, const uint8_t *bytes, size_t len)
{
    struct packs *p = arg;
    struct pack_object *o = kix_array_grow(p->objects, &p->cap, p->n, 256, sizeof(*o));

    if (!o)
        return KIX_ENOMEM;
    p->objects = o; /* moved, maybe */
    /* what is kept, bytes and index: a pack of empty objects costs too */
    if (p->bytes.len + len + (p->n + 1) * sizeof(*o) > PACKS_MAX_BYTES)
        return KIX_ELIMIT;
    o = &p->objects[p->n];
    o->digest = *d;
    o->off = p->bytes.len;
    o->len = len;
    if (kix_buf_add(&p->bytes, bytes, len))
        return KIX_ENOMEM;
    p->n++;
    return KIX_OK;
}

static int by_digest(const void *x, const void *y)
{
    return memcmp(((const struct pack_object *)x)->digest.b,
                  ((const struct pack_object *)y)->digest.b, 32);
}

/* Reads the pack of each full bundle of the batch whose entries want at
 * least PACK_MIN_WANTED objects. A source without packs, a pack missing,
 * malformed or unreadable only means those objects are fetched one by one:
 * no pack is needed for the replay, nor believed by it. */
static int read_packs(struct kix_client *up, const struct batch *b, struct packs *p)
{
    uint64_t first = b->first / KIX_TLOG_WIDTH, end = (b->first + b->nleaves) / KIX_TLOG_WIDTH;
    size_t *wanted;
    int rc = KIX_OK;

    if (end <= first)
        return KIX_OK; /* no bundle of the batch is full */
    wanted = calloc((size_t)(end - first), sizeof(*wanted));
    if (!wanted)
        return KIX_ENOMEM;
    for (size_t i = 0; i < b->nobjects; i++) {
        uint64_t n = (b->first + b->objects[i].entry) / KIX_TLOG_WIDTH;
        if (n < end)
            wanted[n - first]++;
    }
    for (uint64_t n = first; rc == KIX_OK && n < end; n++) {
        if (wanted[n - first] < PACK_MIN_WANTED)
            continue;
        size_t had = p->n, had_bytes = p->bytes.len;
        rc = kix_client_object_pack(up, n, keep_pack_object, p, NULL);
        if (rc == KIX_ENOTSUP || rc == KIX_ELIMIT) {
            /* no packs here, or no room for more: this one is dropped whole */
            p->n = had;
            p->bytes.len = had_bytes;
            rc = KIX_OK;
            break;
        }
        if (rc != KIX_ENOMEM)
            rc = KIX_OK;
    }
    free(wanted);
    if (rc == KIX_OK && p->n)
        qsort(p->objects, p->n, sizeof(*p->objects), by_digest);
    return rc;
}

/* o's bytes from the packs: KIX_OK, KIX_ENOTFOUND (not in them), KIX_ENOMEM. */
static int from_packs(const struct packs *p, struct object *o)
{
    struct pack_object key, *hit;

    if (!p->n)
        return KIX_ENOTFOUND;
    key.digest = o->digest;
    hit = bsearch(&key, p->objects, p->n, sizeof(*p->objects), by_digest);
    if (!hit)
        return KIX_ENOTFOUND;
    return kix_buf_add(&o->bytes, p->bytes.ptr + hit->off, hit->len) ? KIX_ENOMEM : KIX_OK;
}

/* ---- work on all cores: the batch's entries in small chunks ------------- */

#define CHUNK 8 /* entries a thread takes at a time */

/* One step of prepare for entry i of the batch; scratch is the thread's. */
typedef int (*step_fn)(struct kix_log *replica, struct batch *b, struct kix_prepared **items,
                       size_t i, struct kix_bytes *scratch, struct kix_err *err);

struct all_cores {
    step_fn step;
    struct kix_log *replica;
    struct batch *b;
    struct kix_prepared **items;
    size_t n;
    atomic_size_t next;   /* the first entry no thread has taken */
    atomic_size_t failed; /* the lowest entry that failed (SIZE_MAX: none) */
};

/* One thread's share, and the first entry it failed. */
struct core_job {
    struct all_cores *all;
    int rc;
    size_t failed;
    struct kix_err err;
};

/* Takes chunks in order until none is left, or none is below a failure:
 * every entry below the lowest failure is done by whichever thread took
 * it, so that failure is the one a single thread going in order finds,
 * however the threads are scheduled (the replay of the batch before runs
 * beside them). */
static void *core_worker(void *arg)
{
    struct core_job *j = arg;
    struct all_cores *a = j->all;
    struct kix_bytes *scratch = malloc(KIX_BUNDLE_MAX_OBJECTS * sizeof(*scratch));

    if (!scratch) {
        j->rc = KIX_ENOMEM;
        j->failed = atomic_load(&a->next);
    }
    while (j->rc == KIX_OK) {
        size_t from = atomic_fetch_add(&a->next, CHUNK), to;
        if (from >= a->n || from > atomic_load(&a->failed))
            break;
        to = a->n - from > CHUNK ? from + CHUNK : a->n;
        for (size_t i = from; i < to; i++) {
            size_t low;
            j->rc = a->step(a->replica, a->b, a->items, i, scratch, &j->err);
            if (j->rc == KIX_OK)
                continue;
            j->failed = i;
            for (low = atomic_load(&a->failed);
                 i < low && !atomic_compare_exchange_weak(&a->failed, &low, i);)
                ;
            break;
        }
    }
    free(scratch);
    return NULL;
}

static unsigned thread_count(const struct kix_sync_opts *opts)
{
    long n = opts && opts->threads ? (long)opts->threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
}

/* Runs step for each of the batch's n entries on nthreads threads (this
 * one among them); the error is the one at the lowest failing entry. */
static int on_all_cores(step_fn step, struct kix_log *replica, struct batch *b,
                        struct kix_prepared **items, size_t n, unsigned nthreads, unsigned *used,
                        struct kix_err *err)
{
    struct all_cores a;
    struct core_job jobs[16];
    size_t low = SIZE_MAX;
    int rc = KIX_OK;

    if (nthreads > 16)
        nthreads = 16;
    /* a few entries are not worth a thread */
    while (nthreads > 1 && n / nthreads < 2 * CHUNK)
        nthreads--;
    if (*used < nthreads)
        *used = nthreads;
    a.step = step;
    a.replica = replica;
    a.b = b;
    a.items = items;
    a.n = n;
    atomic_init(&a.next, 0);
    atomic_init(&a.failed, SIZE_MAX);
    for (unsigned t = 0; t < nthreads; t++) {
        jobs[t].all = &a;
        jobs[t].rc = KIX_OK;
        jobs[t].failed = SIZE_MAX;
        kix_err_clear(&jobs[t].err);
    }
    kix_parallel_run(jobs, sizeof(jobs[0]), nthreads, core_worker);
    for (unsigned t = 0; t < nthreads; t++) {
        struct core_job *j = &jobs[t];
        if (j->rc && j->failed < low) {
            rc = j->rc;
            low = j->failed;
            kix_err_set(err, j->rc, "entry %llu: %s", (unsigned long long)(b->first + j->failed),
                        kix_err_text(&j->err, j->rc));
            kix_err_cause(err, KIX_CAUSE_ENTRY, b->first + j->failed, 0);
        }
    }
    return rc;
}

/* The first half of prepare (kix_log_prepare_leaf: parse the envelope and
 * statement, hash the leaf) of leaf i. */
static int prepare_leaf_step(struct kix_log *replica, struct batch *b, struct kix_prepared **items,
                             size_t i, struct kix_bytes *scratch, struct kix_err *err)
{
    struct kix_bytes leaf = {b->leaves[i].bytes, b->leaves[i].len};

    (void)scratch;
    return kix_log_prepare_leaf(replica, &leaf, &items[i], err);
}

/* The second half (kix_log_prepare_objects: the objects' canonical forms,
 * schemas and references, and the signature when its key is known) of
 * entry i, with the objects fetched for it. */
static int prepare_objects_step(struct kix_log *replica, struct batch *b,
                                struct kix_prepared **items, size_t i, struct kix_bytes *objs,
                                struct kix_err *err)
{
    size_t n = 0;

    if (i >= b->nleaves) {
        /* past the entries, the batch's checkpoints: their notes' two
         * signatures verified here, on all cores, not on the replay's one
         * thread (one that fails is left to the replay, which names it) */
        kix_log_replay_checkpoint_open(replica, &b->cps[i - b->nleaves]);
        return KIX_OK;
    }
    for (size_t k = b->by_entry[i]; k < b->by_entry[i + 1]; k++) {
        if (n == KIX_BUNDLE_MAX_OBJECTS)
            return kix_err_set(err, KIX_ELIMIT, "needs more than %u new objects",
                               KIX_BUNDLE_MAX_OBJECTS);
        objs[n].ptr = b->objects[k].bytes.ptr;
        objs[n].len = b->objects[k].bytes.len;
        n++;
    }
    return kix_log_prepare_objects(replica, items[i], objs, n, err);
}

/* Parses each leaf (the first half of prepare, into items, on all cores)
 * for the objects it needs, then fetches them and what they reference. */
static int fetch_objects(struct kix_client *up, struct kix_log *replica, struct batch *b,
                         struct kix_prepared **items, unsigned nthreads, unsigned *used,
                         struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    struct packs packs = {KIX_BUF_INIT, NULL, 0, 0};
    size_t fetched = 0;
    int rc = on_all_cores(prepare_leaf_step, replica, b, items, b->nleaves, nthreads, used, err);

    if (rc)
        return rc;
    rc = kix_log_read_begin(replica, &r);
    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    for (size_t i = 0; rc == KIX_OK && i < b->nleaves; i++) {
        const struct kix_digest *needs = NULL;
        size_t n = 0;
        kix_prepared_needs(items[i], &needs, &n);
        for (size_t k = 0; rc == KIX_OK && k < n; k++)
            rc = want_object(b, r, &needs[k], i);
    }
    if (rc == KIX_OK)
        rc = read_packs(up, b, &packs);
    /* fetch in rounds until the reference closure is complete */
    while (rc == KIX_OK && fetched < b->nobjects) {
        size_t round_end = b->nobjects, nmissing = 0;
        size_t *missing = malloc((round_end - fetched) * sizeof(*missing));
        if (!missing) {
            rc = KIX_ENOMEM;
            break;
        }
        for (size_t k = fetched; rc == KIX_OK && k < round_end; k++) {
            rc = from_packs(&packs, &b->objects[k]);
            if (rc == KIX_ENOTFOUND) {
                missing[nmissing++] = k;
                rc = KIX_OK;
            }
        }
        for (size_t first = 0; rc == KIX_OK && first < nmissing;) {
            size_t n = nmissing - first > OBJECTS_PER_CALL ? OBJECTS_PER_CALL : nmissing - first;
            struct kix_digest *digests = malloc(n * sizeof(*digests));
            struct fill f = {b, missing + first, 0, err};
            if (!digests) {
                rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
                break;
            }
            for (size_t k = 0; k < n; k++)
                digests[k] = b->objects[missing[first + k]].digest;
            rc = kix_client_get_objects(up, digests, n, fill_object, &f, err);
            free(digests);
            /* bytes that do not match their digest: name the entry they are for */
            if (rc == KIX_EVERIFY && f.done < n && err && err->cause != KIX_CAUSE_ENTRY) {
                uint64_t at = b->first + b->objects[missing[first + f.done]].entry;
                kix_err_wrap(err, "entry %llu", (unsigned long long)at);
                kix_err_cause(err, KIX_CAUSE_ENTRY, at, 0);
            }
            first += n;
        }
        free(missing);
        for (size_t k = fetched; rc == KIX_OK && k < round_end; k++) {
            struct kix_digest *refs = NULL;
            size_t nrefs = 0;
            struct object *o = &b->objects[k];
            size_t entry = o->entry;
            /* the bytes hash to a digest the log names, so an honest log
             * stored them canonical and a scan finds their references; other
             * bytes are refused when prepare canonicalizes them */
            rc = kix_refs_canonical(o->bytes.ptr, o->bytes.len, &refs, &nrefs);
            if (rc)
                kix_err_set(err, rc, "out of memory");
            for (size_t j = 0; rc == KIX_OK && j < nrefs; j++)
                rc = want_object(b, r, &refs[j], entry); /* may move b->objects */
            free(refs);
        }
        fetched = round_end;
    }
    kix_log_read_end(r);
    kix_buf_release(&packs.bytes);
    free(packs.objects);
    if (rc == KIX_OK)
        rc = group_objects(b);
    if (rc == KIX_ENOMEM)
        return kix_err_set(err, rc, "out of memory");
    return rc;
}

/* ---- one replay ---------------------------------------------------------- */

static int replica_size(struct kix_log *replica, uint64_t *size, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    int rc = kix_log_read_begin(replica, &r);
    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    *size = kix_log_reader_size(r);
    kix_log_read_end(r);
    return KIX_OK;
}

/* One upstream batch, fetched and prepared, waiting for its replay. */
struct stage {
    struct kix_client *up;
    struct kix_log *replica;
    const struct kix_sync_opts *opts;
    uint64_t start, target, end;
    struct batch b;
    struct kix_prepared **items;
    /* the batch replayed while this one is prepared (NULL when none): the
     * keys it registers verify this one's signatures */
    struct kix_prepared *const *earlier;
    size_t nearlier;
    size_t max_batch;        /* entries it takes at most (batch_size) */
    int ahead;               /* filled while the batch before was replayed */
    unsigned threads;        /* threads each step of its prepare ran on, the fewest */
    uint64_t verified_ahead; /* entries whose signature it verified */
    uint64_t opened_ahead;   /* checkpoints whose notes it verified */
    int rc;
    struct kix_err err;
};

static void stage_release(struct stage *s)
{
    for (size_t i = 0; s->items && i < s->b.nleaves; i++)
        kix_prepared_free(s->items[i]);
    free(s->items);
    s->items = NULL;
    batch_release(&s->b);
}

/* Entries of the batch from start, after one of prev (0: the first).
 * Batches overlap one another's replay but for the first's fetch and
 * prepare and the last's replay, which nothing overlaps: so the first is
 * small and each next one twice the size, up to the most per transaction,
 * and near the end each takes at most half of what is left, so the last is
 * small too. When the source serves object packs, the first is one bundle
 * and each ends on a bundle's end where it can, so that a bundle's objects
 * come from one read of its pack (read_packs); without packs nothing is
 * gained by that, and the first and the last are SMALL_BATCH entries (a
 * first batch of a bundle kept a core idle for its fetch and prepare, and
 * the other one for the last's replay: kix-bench's audit, ~25 ms of ~280).
 * A batch ends at an upstream checkpoint, so it may be shorter. */
static size_t batch_size(const struct kix_sync_opts *opts, uint64_t start, uint64_t target,
                         size_t prev, int packs)
{
    size_t most = opts && opts->max_batch ? opts->max_batch : DEFAULT_MAX_BATCH;
    size_t unit = packs ? KIX_TLOG_WIDTH : SMALL_BATCH;
    /* with packs, half the way in whole bundles */
    uint64_t half = packs ? (target - start) / 2 / unit * unit : (target - start) / 2, end;
    size_t n = prev ? 2 * prev : unit;

    if (most < KIX_TLOG_WIDTH)
        return most; /* small batches, as asked */
    if (n > half)
        n = (size_t)half;
    n = n < unit ? unit : n > most ? most : n;
    if (!packs)
        return n;
    end = (start + n) / KIX_TLOG_WIDTH * KIX_TLOG_WIDTH;
    /* a start just short of a bundle's end: on to the next one's */
    if (end < start + KIX_TLOG_WIDTH / 2 && end + KIX_TLOG_WIDTH - start <= most)
        end += KIX_TLOG_WIDTH;
    return end > start ? (size_t)(end - start) : n;
}

static void stage_init(struct stage *s, struct kix_client *up, struct kix_log *replica,
                       const struct kix_sync_opts *opts, uint64_t start, uint64_t target,
                       size_t prev)
{
    memset(s, 0, sizeof(*s));
    s->max_batch = batch_size(opts, start, target, prev, kix_client_has_object_packs(up));
    s->up = up;
    s->replica = replica;
    s->opts = opts;
    s->start = start;
    s->target = target;
}

/* Fetch and verify everything of one batch that needs no replica state. */
static void *stage_fill(void *arg)
{
    struct stage *s = arg;
    size_t max_batch = s->max_batch;
    unsigned leaf_threads = 0, object_threads = 0;
    int rc;

    s->b.first = s->start; /* the rest of s was zeroed by stage_init */
    rc = fetch_checkpoints(s->up, &s->b, s->start, s->target, max_batch, &s->err);
    if (rc == KIX_OK) {
        s->end = s->b.cps[s->b.ncps - 1].size;
        rc = fetch_entries(s->up, &s->b, s->end, &s->err);
    }
    if (rc == KIX_OK) {
        s->items = calloc(s->b.nleaves ? s->b.nleaves : 1, sizeof(*s->items));
        if (!s->items)
            rc = kix_err_set(&s->err, KIX_ENOMEM, "out of memory");
    }
    if (rc == KIX_OK)
        rc = fetch_objects(s->up, s->replica, &s->b, s->items, thread_count(s->opts), &leaf_threads,
                           &s->err);
    if (rc == KIX_OK)
        rc =
            on_all_cores(prepare_objects_step, s->replica, &s->b, s->items,
                         s->b.nleaves + s->b.ncps, thread_count(s->opts), &object_threads, &s->err);
    s->threads = leaf_threads < object_threads ? leaf_threads : object_threads;
    /* keys the batch itself registers: verify with them now, in parallel */
    if (rc == KIX_OK)
        rc = kix_log_verify_batch(s->replica, s->items, s->b.nleaves, s->earlier, s->nearlier,
                                  thread_count(s->opts), &s->err);
    for (size_t i = 0; rc == KIX_OK && i < s->b.nleaves; i++)
        s->verified_ahead += (uint64_t)kix_prepared_sig_checked(s->items[i]);
    for (size_t i = 0; rc == KIX_OK && i < s->b.ncps; i++)
        s->opened_ahead += (uint64_t)(s->b.cps[i].checkpoint_opened &&
                                      (s->b.cps[i].index_opened || !s->b.cps[i].index_note));
    s->rc = rc;
    return NULL;
}

/* ---- naming the record an upstream lies about ------------------------------------ */

#define DIAGNOSE_MAX_KEYS 100000 /* a diagnosis, not a second audit */

struct diagnosis {
    struct kix_client *up;
    const struct kix_verifier *key;
    uint64_t size, compared;
    char found[KIX_VINDEX_KEY_MAX + 1];
    int differs; /* 1 another record upstream, 2 none upstream */
};

/* One key of the replica's own index against the upstream's proven record. */
static int diagnose_key(void *ctx, const char *key, size_t len, const struct kix_hash *vh)
{
    struct diagnosis *d = ctx;
    struct kix_index_answer a;
    struct kix_hash theirs;
    struct kix_err err = {0};
    char text[KIX_VINDEX_KEY_MAX + 1];

    if (d->differs || len > KIX_VINDEX_KEY_MAX || d->compared++ >= DIAGNOSE_MAX_KEYS)
        return 1;
    memcpy(text, key, len);
    text[len] = '\0';
    if (kix_client_index_proof(d->up, d->key, text, &a, &err) != KIX_OK)
        return 1; /* nothing more to learn from this upstream */
    if (a.cp.size != d->size) {
        kix_index_answer_release(&a);
        return 1; /* it moved on: its proofs are for another size */
    }
    if (a.present)
        kix_smt_value_hash(a.record.ptr, a.record.len, &theirs);
    d->differs = !a.present ? 2 : memcmp(theirs.b, vh->b, 32) != 0 ? 1 : 0;
    kix_index_answer_release(&a);
    if (!d->differs)
        return 0;
    memcpy(d->found, text, len + 1);
    return 1;
}

static int diagnose(void *ctx, struct kix_log_txn *t, struct kix_err *err)
{
    return kix_index_each_key(t, diagnose_key, ctx, err);
}

/* The replay refused the upstream's index note at size err->size: replay
 * the batch again without that check, its index as the entries make it, and
 * compare it key by key with what the upstream proves at that size (when
 * that is still its latest), to name the first record it lies about. */
static void name_the_lie(struct stage *s, struct kix_err *err)
{
    struct diagnosis d;
    struct kix_err ignore = {0};

    memset(&d, 0, sizeof(d));
    d.up = s->up;
    d.key = kix_log_verifier(s->replica);
    d.size = err->size;
    if (kix_log_replay_inspect(s->replica, s->start, s->items, s->b.nleaves, s->b.cps, s->b.ncps,
                               diagnose, &d, &ignore) != KIX_OK ||
        !d.differs)
        return;
    kix_err_wrap(err, "%s %s", d.found,
                 d.differs == 2 ? "is in the index its entries make but the upstream proves it "
                                  "absent"
                                : "has another record in the upstream's signed index than its "
                                  "entries make");
}

static int stage_replay(struct stage *s, struct kix_err *err)
{
    int rc = s->rc;

    if (rc) {
        /* the stage's error, with its cause */
        if (err) {
            *err = s->err;
            err->code = rc;
            if (!err->msg[0])
                kix_err_set(err, rc, "%s", kix_strerror(rc));
        }
        return rc;
    }
    rc = kix_log_replay(s->replica, s->start, s->items, s->b.nleaves, s->b.cps, s->b.ncps, err);
    if (rc == KIX_EVERIFY && err && err->cause == KIX_CAUSE_INDEX_MISMATCH) {
        struct kix_err keep = *err;
        name_the_lie(s, err);
        err->cause = keep.cause; /* kix_err_wrap keeps them; say so */
        err->size = keep.size;
    }
    return rc;
}

static int cancelled(const struct kix_sync_opts *opts)
{
    return opts && opts->cancel && opts->cancel(opts->progress_ctx);
}

/* Batches are pipelined: while batch N is replayed (one thread: policy,
 * tree, commit), batch N+1 is fetched and verified on the others, and
 * batch N-1 freed. Its prepare may not see keys or objects batch N adds:
 * it then fetches an object twice, or verifies the signature with the key
 * batch N registers (kix_log_verify_batch); the outcome is the same as one
 * batch after the other. */
int kix_sync(struct kix_client *up, struct kix_log *replica, uint64_t target,
             const struct kix_sync_opts *opts, uint64_t *synced, struct kix_err *err)
{
    struct stage stages[3], *cur = &stages[0], *next = &stages[1], *done = &stages[2], *swap;
    struct kix_sync_stats *st = opts ? opts->stats : NULL;
    uint64_t size = 0;
    int rc, have_cur = 0, have_done = 0;

    if (st)
        memset(st, 0, sizeof(*st));

    if (target == KIX_NO_INDEX) {
        struct kix_client_info info;
        rc = kix_client_info(up, &info, err);
        if (rc)
            return rc;
        target = info.size;
    }
    rc = replica_size(replica, &size, err);
    if (rc == KIX_OK && size < target && !cancelled(opts)) {
        stage_init(cur, up, replica, opts, size, target, 0);
        stage_fill(cur);
        have_cur = 1;
    }
    while (have_cur) {
        pthread_t tid;
        int have_next = 0, ahead = 0;

        if (cur->rc == KIX_OK && cur->end < target && !cancelled(opts)) {
            stage_init(next, up, replica, opts, cur->end, target, cur->b.nleaves);
            next->earlier = cur->items;
            next->nearlier = cur->b.nleaves;
            have_next = 1;
            next->ahead = 1; /* read only after the join */
            ahead = pthread_create(&tid, NULL, stage_fill, next) == 0;
            next->ahead = ahead;
        }
        /* the batch replayed last, freed while the next one is fetched
         * (not before: its keys verified cur's signatures) */
        if (have_done) {
            stage_release(done);
            have_done = 0;
        }
        rc = stage_replay(cur, err);
        if (rc == KIX_OK && st) {
            st->batches++;
            st->overlapped += (uint64_t)cur->ahead;
            st->entries += cur->b.nleaves;
            st->verified_ahead += cur->verified_ahead;
            st->checkpoints_ahead += cur->opened_ahead;
            st->replica_reads += cur->b.replica_reads;
            if (st->batches == 1)
                st->first_batch = cur->b.nleaves;
            st->last_batch = cur->b.nleaves;
            if (st->threads < cur->threads)
                st->threads = cur->threads;
        }
        if (rc == KIX_OK)
            rc = replica_size(replica, &size, err);
        if (rc == KIX_OK && opts && opts->progress)
            opts->progress(opts->progress_ctx, size, target);
        if (ahead)
            pthread_join(tid, NULL);
        else if (have_next && rc == KIX_OK)
            stage_fill(next); /* no thread to spare: one after the other */
        if (have_next && rc != KIX_OK) {
            stage_release(next);
            have_next = 0;
        }
        /* cur's items are next's earlier ones: kept for one more round */
        swap = done;
        done = cur;
        have_done = 1;
        cur = next;
        next = swap;
        have_cur = have_next;
    }
    if (have_done)
        stage_release(done);
    if (synced)
        *synced = size;
    return rc;
}
