/* A thread's memo of parsed documents (kix_json_memo_*, kix/json.h).
 *
 * An export renders each run's page, its group's rows and its citation
 * from the same stored manifest and the objects many runs share, and each
 * renderer parsed them again: json_loadb was about 40% of `kixd export`'s
 * user CPU (tools/bench/RESULTS.md, "Export: each document parsed once").
 * The memo keys a tree by the document's bytes themselves (a hash, then
 * the length and every byte compared), so it can never hand out the tree
 * of other bytes, whatever store, snapshot or export the bytes came from:
 * there is nothing to go stale. It lives in thread-local storage, so the
 * export's threads share no tree (jansson's reference counts stay on the
 * thread that made them) and callers deep in the renderers need no new
 * argument. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"
#include "memo_internal.h"

#define MEMO_SETS  128
#define MEMO_WAYS  4
#define MEMO_SLOTS (MEMO_SETS * MEMO_WAYS)

struct memo_slot {
    uint64_t used; /* the memo's clock when last handed out (0: empty) */
    size_t len;
    int kind;       /* enum kix__memo_kind */
    uint8_t *bytes; /* a copy of the document, compared on every hit */
    void *value;    /* a json_t * (KIX__MEMO_TREE), else malloc'ed */
};

struct memo {
    uint64_t hash[MEMO_SLOTS]; /* apart from the slots: a set's 4 in one cache line */
    struct memo_slot slot[MEMO_SLOTS];
    uint64_t clock;
    size_t bytes, max_bytes; /* the documents' bytes kept, and their bound */
    unsigned depth;          /* nested kix_json_memo_begin calls */
};

static _Thread_local struct memo *memo;

/* 64-bit FNV-1a over 8-byte words (then the tail), with the kind: about a
 * byte a cycle, a small fraction of a parse; a collision only costs a
 * memcmp. */
static uint64_t memo_hash(int kind, const uint8_t *p, size_t len)
{
    uint64_t h = (0xcbf29ce484222325ull ^ len) + (uint64_t)kind;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 32);
}

static void slot_clear(struct memo *m, size_t i)
{
    struct memo_slot *s = &m->slot[i];

    if (!s->used)
        return;
    m->bytes -= s->len;
    if (s->kind == KIX__MEMO_TREE)
        json_decref(s->value);
    else
        free(s->value);
    free(s->bytes);
    memset(s, 0, sizeof(*s));
    m->hash[i] = 0;
}

void kix_json_memo_begin(size_t max_bytes)
{
    if (memo) {
        memo->depth++;
        return;
    }
    memo = calloc(1, sizeof(*memo));
    if (memo) /* without memory for it, documents are parsed each time */
        memo->max_bytes = max_bytes ? max_bytes : KIX_JSON_MEMO_BYTES;
}

void kix_json_memo_end(void)
{
    if (!memo)
        return;
    if (memo->depth) {
        memo->depth--;
        return;
    }
    for (size_t i = 0; i < MEMO_SLOTS; i++)
        slot_clear(memo, i);
    free(memo);
    memo = NULL;
}

/* A document's set: its hash picks one of MEMO_SETS sets of MEMO_WAYS
 * slots, so a lookup compares 4 hashes, not 512 (a whole scan was 2% of an
 * export's instructions). */
static size_t set_of(uint64_t h)
{
    return (size_t)(h % MEMO_SETS) * MEMO_WAYS;
}

const void *kix__memo_find(int kind, const uint8_t *bytes, size_t len)
{
    struct memo *m = memo;
    uint64_t h;
    size_t first;

    if (!m || !bytes || len > m->max_bytes / 4)
        return NULL;
    h = memo_hash(kind, bytes, len);
    first = set_of(h);
    for (size_t i = first; i < first + MEMO_WAYS; i++) {
        struct memo_slot *s = &m->slot[i];
        if (m->hash[i] == h && s->used && s->kind == kind && s->len == len &&
            memcmp(s->bytes, bytes, len) == 0) {
            s->used = ++m->clock;
            return s->value;
        }
    }
    return NULL;
}

int kix__memo_keep(int kind, const uint8_t *bytes, size_t len, void *value)
{
    struct memo *m = memo;
    uint64_t h;
    size_t first, victim;

    if (!m || !bytes || len > m->max_bytes / 4)
        return 0;
    h = memo_hash(kind, bytes, len);
    first = victim = set_of(h);
    for (size_t i = first; i < first + MEMO_WAYS; i++)
        if (m->slot[i].used < m->slot[victim].used)
            victim = i; /* an empty slot of the set, else its least recently used */
    slot_clear(m, victim);
    /* past the bound, the least recently used of all go until it fits */
    while (m->bytes + len > m->max_bytes) {
        size_t old = MEMO_SLOTS;
        for (size_t i = 0; i < MEMO_SLOTS; i++)
            if (m->slot[i].used && (old == MEMO_SLOTS || m->slot[i].used < m->slot[old].used))
                old = i;
        if (old == MEMO_SLOTS)
            break;
        slot_clear(m, old);
    }
    if (!(m->slot[victim].bytes = malloc(len ? len : 1)))
        return 0;
    memcpy(m->slot[victim].bytes, bytes, len);
    m->slot[victim].len = len;
    m->slot[victim].kind = kind;
    m->slot[victim].value = value;
    m->slot[victim].used = ++m->clock;
    m->hash[victim] = h;
    m->bytes += len;
    return 1;
}

json_t *kix_json_tree_memo(const uint8_t *json, size_t len)
{
    const json_t *kept = kix__memo_find(KIX__MEMO_TREE, json, len);
    json_t *tree;

    if (kept)
        return json_incref((json_t *)kept);
    if (!json)
        return NULL;
    /* stored documents are canonical: built without jansson's parser */
    if (!(tree = kix__json_tree_canonical(json, len)))
        tree = json_loadb((const char *)json, len, 0, NULL);
    /* not JSON: nothing worth keeping */
    if (tree && kix__memo_keep(KIX__MEMO_TREE, json, len, tree))
        json_incref(tree);
    return tree;
}
