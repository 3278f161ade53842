/* tests/crash/crash_states.c — the crash-state explorer (tests/crash/README.md,
 * in the manner of ALICE and CrashMonkey): a workload runs with the
 * recorder fsrec.c preloaded, which traces every file-system operation it
 * makes under one directory; the driver marks in the same trace each
 * promise the workload made (a command that exited 0); then every state a
 * power loss may leave behind, under the two persistence models below, is
 * built in memory and checked against the last promise made before it.
 *
 * The weak model (what POSIX promises, and what a file system may do):
 *   - an operation persists for sure once a later sync covers it: data
 *     (write, truncate) by an fsync or fdatasync of the same file; a name
 *     (create, mkdir, unlink, rename, link) by an fsync of its directory
 *     (both directories of a rename); anything by syncfs or sync;
 *   - any operation not yet covered may be lost, persisted alone, out of
 *     order, and a write partly (its first half).
 *   At each crash point k the states are: the covered operations only;
 *   all of them; the covered plus each single uncovered one (and each
 *   uncovered write torn); all but each single uncovered one.
 * The ext4 data=ordered model: names persist in order, and a file's data
 * written before a later name operation persists with it; at each crash
 * point k the states are: the prefix k, and the prefix without the
 * uncovered data written after the last name operation.
 *
 * A state is the names (path -> inode) and the inodes' bytes; operations
 * apply to the inode they touched in the real run, so a rename that
 * persisted without the write before it gives the empty file a power cut
 * gives. Duplicate states are checked once.
 *
 * Usage: crash_states WORKLOAD [FULL]  (client, export, witness, fork, lmdb); FULL explores
 * every crash point (explore() says which reorderings at which), else a
 * bounded sample: every state of the crash points next to a promise or a
 * syncfs, then a seeded sample of the others up to KIX_CRASH_STATES_MAX
 * states (default 2000). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <lmdb.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash_common.h"
#include "kixd_fixture.h"
#include "kix/index.h"
#include "kix/note.h"
#include "kix/tlog_path.h"
#include "kix/tlog_tiles.h"

extern char **environ;

/* ---- the trace ------------------------------------------------------------------------ */

enum { NAME_OP = 1, DATA_OP = 2 };

struct op {
    char kind;     /* fsrec.c's letters, and P: a promise */
    char *a, *b;   /* paths (relative to the root) */
    long long num; /* write offset, truncate length, promise value */
    unsigned char *data;
    size_t len;
    int ino;        /* the inode a data op or create touches (forward run) */
    int sync_ino;   /* s: the inode synced, or -1 for a directory */
    size_t covered; /* index of the sync that makes it durable, or SIZE_MAX */
    int rel;        /* 1 when it may change a file the promise reads (cut_irrelevant()) */
};

struct trace {
    struct op *ops;
    size_t n;
    /* names that were there before the trace began (a store made by an
     * untraced kixd init): directories, and files first seen written */
    struct {
        char *path;
        int ino, dir;
    } pre[64];
    size_t npre;
};

static int hexval(int c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

static int trace_load(const char *path, struct trace *t)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    memset(t, 0, sizeof(*t));
    if (!f)
        return -1;
    while ((len = getline(&line, &cap, f)) > 0) {
        struct op o;
        char *fields[4] = {0};
        int nf = 0;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        for (char *s = line, *tab; nf < 4 && s; s = tab ? tab + 1 : NULL) {
            tab = strchr(s, '\t');
            if (tab && nf < 3)
                *tab = '\0';
            else
                tab = NULL;
            fields[nf++] = s;
        }
        memset(&o, 0, sizeof(o));
        o.kind = fields[0][0];
        o.covered = SIZE_MAX;
        o.ino = o.sync_ino = -1;
        o.rel = 1;
        if (o.kind == 'P') {
            o.num = atoll(fields[1]);
        } else if (o.kind == 'w' && nf == 4) {
            size_t hl = strlen(fields[3]);
            o.a = strdup(fields[1]);
            o.num = atoll(fields[2]);
            o.len = hl / 2;
            o.data = malloc(o.len + 1);
            for (size_t i = 0; i < o.len; i++)
                o.data[i] =
                    (unsigned char)(hexval(fields[3][2 * i]) << 4 | hexval(fields[3][2 * i + 1]));
        } else if (o.kind == 't' && nf >= 3) {
            o.a = strdup(fields[1]);
            o.num = atoll(fields[2]);
        } else if ((o.kind == 'r' || o.kind == 'l') && nf >= 3) {
            o.a = strdup(fields[1]);
            o.b = strdup(fields[2]);
        } else if (strchr("cdus", o.kind) && nf >= 2) {
            o.a = strdup(fields[1]);
        } else if (o.kind != 'S') {
            continue; /* m: nothing under the root is mapped but LMDB's lock file */
        }
        if (t->n % 256 == 0)
            t->ops = realloc(t->ops, (t->n + 256) * sizeof(*t->ops));
        t->ops[t->n++] = o;
    }
    free(line);
    fclose(f);
    return 0;
}

static void trace_free(struct trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->ops[i].a);
        free(t->ops[i].b);
        free(t->ops[i].data);
    }
    for (size_t i = 0; i < t->npre; i++)
        free(t->pre[i].path);
    free(t->ops);
}

static int op_class(const struct op *o)
{
    return strchr("cdurl", o->kind) ? NAME_OP : strchr("wt", o->kind) ? DATA_OP : 0;
}

/* ---- a state: names and inodes ------------------------------------------------------ */

struct inode {
    unsigned char *data;
    size_t len;
    int dir;
};

struct name {
    char *path;
    int ino;
};

struct state {
    struct inode *inodes;
    int ninodes;
    struct name *names;
    size_t nnames;
};

static void state_init(struct state *s, int ninodes)
{
    memset(s, 0, sizeof(*s));
    s->inodes = calloc((size_t)ninodes + 1, sizeof(*s->inodes));
    s->ninodes = ninodes;
}

static void state_free(struct state *s)
{
    for (int i = 0; i < s->ninodes; i++)
        free(s->inodes[i].data);
    for (size_t i = 0; i < s->nnames; i++)
        free(s->names[i].path);
    free(s->inodes);
    free(s->names);
}

static int state_lookup(const struct state *s, const char *path)
{
    if (strcmp(path, ".") == 0)
        return -2; /* the root */
    for (size_t i = 0; i < s->nnames; i++)
        if (strcmp(s->names[i].path, path) == 0)
            return s->names[i].ino;
    return -1;
}

static int parent_exists(const struct state *s, const char *path)
{
    char dir[4096];
    char *slash;
    int ino;

    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (!slash)
        return 1;
    *slash = '\0';
    ino = state_lookup(s, dir);
    return ino == -2 || (ino >= 0 && s->inodes[ino].dir);
}

static void state_unname(struct state *s, const char *path)
{
    for (size_t i = 0; i < s->nnames; i++) {
        if (strcmp(s->names[i].path, path) == 0) {
            free(s->names[i].path);
            s->names[i] = s->names[--s->nnames];
            return;
        }
    }
}

static void state_name(struct state *s, const char *path, int ino)
{
    state_unname(s, path);
    if (s->nnames % 64 == 0)
        s->names = realloc(s->names, (s->nnames + 64) * sizeof(*s->names));
    s->names[s->nnames].path = strdup(path);
    s->names[s->nnames++].ino = ino;
}

static void inode_write(struct inode *in, long long off, const unsigned char *d, size_t len)
{
    size_t end = (size_t)off + len;
    if (end > in->len) {
        in->data = realloc(in->data, end);
        memset(in->data + in->len, 0, end - in->len);
        in->len = end;
    }
    memcpy(in->data + off, d, len);
}

/* Applies op o (torn: only its first half of data) to the state. */
static void state_apply(struct state *s, const struct op *o, int torn)
{
    int ino;

    switch (o->kind) {
    case 'c':
    case 'd':
        if (parent_exists(s, o->a) && state_lookup(s, o->a) == -1) {
            s->inodes[o->ino].dir = o->kind == 'd';
            state_name(s, o->a, o->ino);
        }
        break;
    case 'w':
        if (o->ino >= 0)
            inode_write(&s->inodes[o->ino], o->num, o->data, torn ? o->len / 2 : o->len);
        break;
    case 't':
        if (o->ino >= 0 && (size_t)o->num < s->inodes[o->ino].len)
            s->inodes[o->ino].len = (size_t)o->num;
        else if (o->ino >= 0)
            inode_write(&s->inodes[o->ino], o->num, (const unsigned char *)"", 0);
        break;
    case 'u':
        state_unname(s, o->a);
        break;
    case 'r':
        ino = state_lookup(s, o->a);
        if (ino >= 0 && parent_exists(s, o->b)) {
            state_unname(s, o->a);
            state_name(s, o->b, ino);
        }
        break;
    case 'l':
        ino = state_lookup(s, o->a);
        if (ino >= 0 && parent_exists(s, o->b))
            state_name(s, o->b, ino);
        break;
    default:
        break;
    }
}

/* The file at path: 0 with *d, *len, or -1. */
static int state_read(const struct state *s, const char *path, const unsigned char **d, size_t *len)
{
    int ino = state_lookup(s, path);
    if (ino < 0 || s->inodes[ino].dir)
        return -1;
    *d = s->inodes[ino].data;
    *len = s->inodes[ino].len;
    return 0;
}

/* FNV-1a over 8 bytes a step (then the tail byte by byte): states hold
 * whole tiles and bundles, hashed once per state built. */
static uint64_t bytes_hash(uint64_t e, const unsigned char *d, size_t len)
{
    size_t j = 0;
    for (; j + 8 <= len; j += 8) {
        uint64_t w;
        memcpy(&w, d + j, 8);
        e = (e ^ w) * 1099511628211ULL;
    }
    for (; j < len; j++)
        e = (e ^ d[j]) * 1099511628211ULL;
    return e;
}

static uint64_t state_hash(const struct state *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < s->nnames; i++) {
        const struct inode *in = &s->inodes[s->names[i].ino];
        uint64_t e = bytes_hash(1469598103934665603ULL, (const unsigned char *)s->names[i].path,
                                strlen(s->names[i].path) + 1);
        e = bytes_hash(e, in->data, in->len);
        e = (e ^ in->len ^ (uint64_t)in->dir << 63) * 1099511628211ULL;
        h += e * 0x9e3779b97f4a7c15ULL; /* names in any order */
    }
    return h;
}

/* ---- the forward run: inodes and coverage --------------------------------------------- */

static void parent_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

/* Assigns inodes and, to every name and data op, the sync that covers it. */
static int forward(struct trace *t)
{
    struct state s;
    int next = 0;

    state_init(&s, (int)t->n + 64 + 1);
    for (size_t i = 0; i < t->n; i++) {
        struct op *o = &t->ops[i];
        char parent[4096];
        /* a parent directory the trace never made was there before it */
        for (int side = 0; side < 2; side++) {
            const char *p = side ? o->b : o->a;
            if (!p || o->kind == 'P' || o->kind == 'S')
                continue;
            parent_of(p, parent, sizeof(parent));
            if (strcmp(parent, ".") != 0 && state_lookup(&s, parent) == -1 && t->npre < 64) {
                s.inodes[next].dir = 1;
                state_name(&s, parent, next);
                t->pre[t->npre].path = strdup(parent);
                t->pre[t->npre].dir = 1;
                t->pre[t->npre++].ino = next++;
            }
        }
        if (o->kind == 'c' || o->kind == 'd') {
            o->ino = next++;
            s.inodes[o->ino].dir = o->kind == 'd';
            state_name(&s, o->a, o->ino);
        } else if (o->kind == 'w' || o->kind == 't') {
            o->ino = state_lookup(&s, o->a);
            if (o->ino == -1 && t->npre < 64) { /* a file made before the trace */
                o->ino = next++;
                state_name(&s, o->a, o->ino);
                t->pre[t->npre].path = strdup(o->a);
                t->pre[t->npre].dir = 0;
                t->pre[t->npre++].ino = o->ino;
            }
        } else if (o->kind == 's') {
            o->sync_ino = state_lookup(&s, o->a);
            if (o->sync_ino == -2 || (o->sync_ino >= 0 && s.inodes[o->sync_ino].dir))
                o->sync_ino = -1; /* a directory (-2: the root) */
        } else if (o->kind == 'r' || o->kind == 'l' || o->kind == 'u') {
            state_apply(&s, o, 0);
        }
    }
    state_free(&s);
    /* coverage: the first later sync of the file, of the directories */
    for (size_t i = 0; i < t->n; i++) {
        struct op *o = &t->ops[i];
        char pa[4096], pb[4096];
        size_t got_a = SIZE_MAX, got_b = SIZE_MAX;
        int cls = op_class(o);
        if (!cls)
            continue;
        if (cls == NAME_OP) {
            parent_of(o->kind == 'l' ? o->b : o->a, pa, sizeof(pa));
            if (o->kind == 'r')
                parent_of(o->b, pb, sizeof(pb));
            else
                snprintf(pb, sizeof(pb), "%s", pa);
        }
        for (size_t j = i + 1; j < t->n && (got_a == SIZE_MAX || got_b == SIZE_MAX); j++) {
            const struct op *y = &t->ops[j];
            if (y->kind == 'S') {
                if (got_a == SIZE_MAX)
                    got_a = j;
                if (got_b == SIZE_MAX)
                    got_b = j;
            } else if (y->kind == 's' && cls == DATA_OP && y->sync_ino == o->ino) {
                got_a = got_b = j;
            } else if (y->kind == 's' && cls == NAME_OP && y->sync_ino == -1) {
                if (got_a == SIZE_MAX && strcmp(y->a, pa) == 0)
                    got_a = j;
                if (got_b == SIZE_MAX && strcmp(y->a, pb) == 0)
                    got_b = j;
            }
        }
        o->covered = got_a > got_b ? got_a : got_b;
    }
    return next;
}

/* ---- cutting what no promise reads ---------------------------------------------------- */

/* A workload's check reads only some files (the predicate says which
 * paths, and every directory above them). An operation that can change
 * none of them is cut: it is never applied, and no reordering is built
 * around it. Why no distinct state is lost: the names the check reads are
 * R, the predicate's paths closed under "the source of a rename or link
 * to a path in R" and "the directory of a path in R". In any state, a path
 * in R names an inode created at a path in R or there before the trace
 * (by induction over renames: a rename into R moves what its source, in
 * R, named). So a write or truncate of any other inode, and a name
 * operation with no path in R (it changes only its own names, and no
 * parent of R), leaves every file in R as it was. A state that differs
 * from another only by such operations gives the check the same files:
 * "synced + one" of a cut operation is "synced only", "all but one" of
 * it is "everything". The ext4 model's "last name operation" still counts
 * every name operation, cut or not. */
typedef int (*relevant_fn)(void *ctx, const char *path);

struct pathset {
    char **p;
    size_t n;
};

static int in_set(const struct pathset *x, const char *path)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->p[i], path) == 0)
            return 1;
    return 0;
}

struct rset {
    relevant_fn relevant;
    void *ctx;
    struct pathset x;
};

static int in_r(const struct rset *r, const char *path)
{
    return path && (r->relevant(r->ctx, path) || in_set(&r->x, path));
}

/* Adds path and the directories above it to the set; 1 when it grew. */
static int add_path(struct rset *r, const char *path)
{
    struct pathset *x = &r->x;
    char dir[4096];
    int grew = 0;

    snprintf(dir, sizeof(dir), "%s", path);
    for (char *slash; dir[0];) {
        if (!in_r(r, dir)) {
            if (x->n % 64 == 0)
                x->p = realloc(x->p, (x->n + 64) * sizeof(*x->p));
            x->p[x->n++] = strdup(dir);
            grew = 1;
        }
        slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    return grew;
}

/* Marks each operation that may change a file the check reads; returns
 * how many are cut. With no predicate nothing is cut. */
static size_t cut_irrelevant(struct trace *t, int ninodes, relevant_fn relevant, void *ctx)
{
    struct rset r = {relevant, ctx, {NULL, 0}};
    char *ino_rel;
    size_t cut = 0;
    int grew = 1;

    if (!relevant)
        return 0;
    for (size_t i = 0; i < t->n; i++) /* the directories above the predicate's paths */
        for (const char *const *p = (const char *const[]){t->ops[i].a, t->ops[i].b, NULL}; *p; p++)
            if (relevant(ctx, *p))
                add_path(&r, *p);
    while (grew) { /* the sources of renames and links into R, to a fixed point */
        grew = 0;
        for (size_t i = 0; i < t->n; i++) {
            const struct op *o = &t->ops[i];
            if ((o->kind == 'r' || o->kind == 'l') && in_r(&r, o->b) && !in_r(&r, o->a))
                grew |= add_path(&r, o->a);
        }
    }
    ino_rel = calloc((size_t)ninodes + 1, 1);
    for (size_t i = 0; i < t->npre; i++)
        if (in_r(&r, t->pre[i].path))
            ino_rel[t->pre[i].ino] = 1;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *o = &t->ops[i];
        if ((o->kind == 'c' || o->kind == 'd') && in_r(&r, o->a))
            ino_rel[o->ino] = 1;
    }
    for (size_t i = 0; i < t->n; i++) {
        struct op *o = &t->ops[i];
        switch (op_class(o)) {
        case DATA_OP:
            o->rel = o->ino >= 0 && ino_rel[o->ino];
            break;
        case NAME_OP:
            o->rel = in_r(&r, o->a) || in_r(&r, o->b);
            break;
        default:
            o->rel = 1; /* syncs and promises */
        }
        cut += !o->rel;
    }
    for (size_t i = 0; i < r.x.n; i++)
        free(r.x.p[i]);
    free(r.x.p);
    free(ino_rel);
    return cut;
}

/* ---- exploring ------------------------------------------------------------------------- */

typedef int (*check_fn)(void *ctx, const struct state *s, long long promise, char *why, size_t cap);

struct explore {
    struct trace *t;
    int ninodes;
    check_fn check;
    void *ctx;
    int full;
    uint64_t seed;
    unsigned long max_states;
    relevant_fn relevant; /* the paths the check reads (NULL: all) */
    /* results */
    unsigned long states, distinct, failures;
    unsigned long cut_states; /* equal to a state built, on every file the check reads */
    size_t cut_ops, merged_points;
    uint64_t *seen;
    size_t nseen, capseen;
    char first_failure[2048];
};

/* 1 when a state with hash h was checked already (an open-addressing set). */
static int seen_before(struct explore *e, uint64_t h)
{
    size_t i;

    h |= 1; /* 0 marks an empty slot */
    if (2 * (e->nseen + 1) > e->capseen) {
        uint64_t *old = e->seen;
        size_t oldcap = e->capseen;
        e->capseen = oldcap ? 2 * oldcap : 4096;
        e->seen = calloc(e->capseen, sizeof(*e->seen));
        for (size_t j = 0; j < oldcap; j++)
            for (i = old[j] % e->capseen; old[j]; i = (i + 1) % e->capseen)
                if (!e->seen[i]) {
                    e->seen[i] = old[j];
                    break;
                }
        free(old);
    }
    for (i = h % e->capseen; e->seen[i]; i = (i + 1) % e->capseen)
        if (e->seen[i] == h)
            return 1;
    e->seen[i] = h;
    e->nseen++;
    return 0;
}

#define SAMPLE_WINDOW 16

enum variant { ALL_COVERED, ALL, ONLY_ONE, ONLY_ONE_TORN, ALL_BUT_ONE, EXT4_PREFIX, EXT4_NO_TAIL };

static const char *variant_name[] = {"weak: synced only",
                                     "weak: everything",
                                     "weak: synced + one",
                                     "weak: synced + one torn write",
                                     "weak: all but one",
                                     "ext4-ordered: prefix",
                                     "ext4-ordered: unsynced tail data lost"};

/* Builds the state of crash point k (ops [0, k) issued) for a variant and
 * checks it. */
static void explore_one(struct explore *e, size_t k, enum variant v, size_t one)
{
    struct state s;
    long long promise = -1;
    size_t last_name = 0;
    char why[1024];
    int have_name = 0;

    for (size_t i = 0; i < k; i++) {
        if (e->t->ops[i].kind == 'P')
            promise = e->t->ops[i].num;
        if (op_class(&e->t->ops[i]) == NAME_OP) {
            last_name = i;
            have_name = 1;
        }
    }
    /* KIX_CRASH_STATES_LIE: promise one more than was made, so that every
     * state after a promise must fail (the checks are seen to bite) */
    if (promise >= 0 && getenv("KIX_CRASH_STATES_LIE"))
        promise++;
    state_init(&s, e->ninodes);
    for (size_t i = 0; i < e->t->npre; i++) {
        s.inodes[e->t->pre[i].ino].dir = e->t->pre[i].dir;
        state_name(&s, e->t->pre[i].path, e->t->pre[i].ino);
    }
    for (size_t i = 0; i < k; i++) {
        const struct op *o = &e->t->ops[i];
        int durable = o->covered < k, keep;
        if (!op_class(o) || !o->rel)
            continue;
        switch (v) {
        case ALL_COVERED:
            keep = durable;
            break;
        case ALL:
        case EXT4_PREFIX:
            keep = 1;
            break;
        case ONLY_ONE:
        case ONLY_ONE_TORN:
            keep = durable || i == one;
            break;
        case ALL_BUT_ONE:
            keep = durable || i != one;
            break;
        case EXT4_NO_TAIL:
            keep = durable || op_class(o) == NAME_OP || (have_name && i < last_name);
            break;
        default:
            keep = 1;
        }
        if (keep)
            state_apply(&s, o, v == ONLY_ONE_TORN && i == one);
    }
    e->states++;
    if (!seen_before(e, state_hash(&s) ^ (uint64_t)(promise + 1) * 0x100000001b3ULL)) {
        e->distinct++;
        why[0] = '\0';
        if (e->check(e->ctx, &s, promise, why, sizeof(why)) != 0) {
            if (e->failures++ == 0)
                snprintf(e->first_failure, sizeof(e->first_failure),
                         "crash after op %zu of %zu (%s), promise %lld: %s", k, e->t->n,
                         variant_name[v], promise, why);
            if (e->failures <= 5)
                fprintf(stderr, "  state fails: crash after op %zu, %s (op %zu: %c %s): %s\n", k,
                        variant_name[v], one < k ? one : 0, one < k ? e->t->ops[one].kind : '-',
                        one < k && e->t->ops[one].a ? e->t->ops[one].a : "", why);
        }
    }
    state_free(&s);
}

/* The variants of crash point k: the three whole ones, and with singles
 * the one-operation reorderings too. */
static void explore_point(struct explore *e, size_t k, int singles)
{
    explore_one(e, k, ALL_COVERED, SIZE_MAX);
    explore_one(e, k, ALL, SIZE_MAX);
    explore_one(e, k, EXT4_NO_TAIL, SIZE_MAX);
    size_t first = 0, uncovered = 0;

    /* a sample reorders the last SAMPLE_WINDOW uncovered operations only */
    for (size_t j = k; !e->full && j-- > 0 && uncovered < SAMPLE_WINDOW;)
        if (op_class(&e->t->ops[j]) && e->t->ops[j].covered >= k && ++uncovered == SAMPLE_WINDOW)
            first = j;
    for (size_t j = first; singles && j < k; j++) {
        const struct op *o = &e->t->ops[j];
        if (!op_class(o) || o->covered < k)
            continue;
        if (!o->rel) { /* "synced only" and "everything" again (cut_irrelevant) */
            e->cut_states += 2 + (o->kind == 'w' && o->len >= 2);
            continue;
        }
        explore_one(e, k, ONLY_ONE, j);
        explore_one(e, k, ALL_BUT_ONE, j);
        if (o->kind == 'w' && o->len >= 2)
            explore_one(e, k, ONLY_ONE_TORN, j);
    }
}

/* Crash points. Full: every point with its whole variants, and the
 * one-operation reorderings at the points next to a promise or a sync
 * (between two syncs the uncovered set only grows, so those points hold
 * the others' reorderings but the last few operations) and at every 16th
 * point. Sample: the points next to a promise or a syncfs always, then a
 * quarter of the rest, drawn from the seed, until max_states; reorderings
 * of the last SAMPLE_WINDOW uncovered operations. */
static void explore(struct explore *e)
{
    size_t n = e->t->n;
    char *pick = calloc(n + 1, 1);

    for (size_t k = 0; k <= n; k++) {
        const struct op *prev = k ? &e->t->ops[k - 1] : NULL;
        if ((prev && strchr("PS", prev->kind)) || (k < n && e->t->ops[k].kind == 'S'))
            pick[k] = 3;
        else if (e->full)
            pick[k] =
                (k % 16 == 0 || (prev && prev->kind == 's') || (k < n && e->t->ops[k].kind == 's'))
                    ? 2
                    : 1;
        else if (crash_rand(&e->seed) % 4 == 0)
            pick[k] = 2;
    }
    /* a crash right after a cut write or truncate leaves what a crash
     * right before it leaves, in every variant (no sync, no name
     * operation, nothing the check reads): one point stands for the run */
    for (size_t k = n, rep; k > 0; k = rep) {
        rep = k;
        while (rep > 0 && !e->t->ops[rep - 1].rel && op_class(&e->t->ops[rep - 1]) == DATA_OP)
            rep--;
        for (size_t j = rep + 1; j <= k; j++) {
            if (pick[j] > pick[rep])
                pick[rep] = pick[j];
            e->merged_points += pick[j] != 0;
            pick[j] = 0;
        }
        if (rep == k)
            rep--;
    }
    /* the points next to promises and syncs first: a sample never skips them */
    for (size_t k = 0; k <= n; k++)
        if (pick[k] == 3)
            explore_point(e, k, 1);
    for (size_t k = 0; k <= n; k++) {
        if (!pick[k] || pick[k] == 3)
            continue;
        if (!e->full && e->states >= e->max_states)
            break;
        explore_point(e, k, pick[k] == 2);
    }
    free(pick);
}

/* ---- running a workload under the recorder ------------------------------------------ */

struct run {
    char work[128], root[200], trace[220], log[220], fsrec[1024];
};

static void trace_mark(const struct run *r, long long promise)
{
    FILE *f = fopen(r->trace, "a");
    if (f) {
        fprintf(f, "P\t%lld\n", promise);
        fclose(f);
    }
}

/* Starts argv, with the recorder preloaded when recorded, and extra
 * "NAME=VALUE" settings; stdout to out (may be NULL), stderr to the
 * work directory's log. The pid, or -1. */
static pid_t spawn_with(const struct run *r, char *const argv[], const char *const *env_extra,
                        const char *out, int recorded)
{
    char **envp;
    size_t n = 0, m = 0;
    char pre[1200], rootv[300], tracev[300], asan[256];
    posix_spawn_file_actions_t fa;
    pid_t pid;

    while (environ[n])
        n++;
    envp = calloc(n + 16, sizeof(*envp));
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "ASAN_OPTIONS=", 13))
            envp[m++] = environ[i];
    snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", r->fsrec);
    snprintf(rootv, sizeof(rootv), "KIX_FSREC_ROOT=%s", r->root);
    snprintf(tracev, sizeof(tracev), "KIX_FSREC_TRACE=%s", r->trace);
    /* the sanitizers' runtime is not first when a library is preloaded */
    snprintf(asan, sizeof(asan), "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0");
    if (recorded) {
        envp[m++] = pre;
        envp[m++] = rootv;
        envp[m++] = tracev;
        envp[m++] = asan;
    }
    for (; env_extra && *env_extra; env_extra++)
        envp[m++] = (char *)*env_extra;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&fa, 2, r->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, envp) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    return pid;
}

/* Runs argv under the recorder; its exit status, or -1. */
static int run_recorded(const struct run *r, char *const argv[], const char *const *env_extra,
                        const char *out)
{
    pid_t pid = spawn_with(r, argv, env_extra, out, 1);
    int st;

    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run_setup(struct run *r)
{
    const char *bin = getenv("KIX_BIN");
    snprintf(r->work, sizeof(r->work), "/tmp/kix-states-XXXXXX");
    if (!mkdtemp(r->work))
        return -1;
    snprintf(r->root, sizeof(r->root), "%s/root", r->work);
    snprintf(r->trace, sizeof(r->trace), "%s/trace", r->work);
    snprintf(r->log, sizeof(r->log), "%s/stderr.log", r->work);
    snprintf(r->fsrec, sizeof(r->fsrec), "%s/libkix_fsrec.so", bin && *bin ? bin : KIX_BIN_DIR);
    return mkdir(r->root, 0700);
}

static void run_cleanup(struct run *r)
{
    if (!getenv("KIX_KEEP_TEST_DIRS") && kix_dir_remove_tree(r->work, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", r->work);
}

static const char *bin_path(const char *name)
{
    static char path[4][1024];
    static int i;
    const char *bin = getenv("KIX_BIN");
    i = (i + 1) % 4;
    snprintf(path[i], sizeof(path[i]), "%s/%s", bin && *bin ? bin : KIX_BIN_DIR, name);
    return path[i];
}

static uint64_t log_size(const struct fx *f)
{
    struct kix_client *c = fx_client(f);
    struct kix_client_info info;
    uint64_t size = 0;
    if (c && kix_client_info(c, &info, NULL) == KIX_OK)
        size = info.size;
    kix_client_close(c);
    return size;
}

/* ---- a checkpoint kept in a file (the client's, the witness's, the export's) ---------- */

/* The checkpoint file at path in the state (what: how messages name it)
 * is absent only while nothing was promised; else it opens with the log
 * key, whole, at the promised size or later. 0 with *cp (size 0 when
 * absent), or 1 with why. */
static int check_checkpoint_file(const struct state *s, const char *path,
                                 const struct kix_verifier *key, const char *what,
                                 long long promise, struct kix_checkpoint *cp, char *why,
                                 size_t cap)
{
    const unsigned char *d;
    size_t len;
    struct kix_note note;
    struct kix_err err = {0};

    memset(cp, 0, sizeof(*cp));
    if (state_read(s, path, &d, &len) != 0) {
        if (promise < 0)
            return 0;
        snprintf(why, cap, "%s %s is gone (size %lld was promised)", what, path, promise);
        return 1;
    }
    if (kix_checkpoint_open((const char *)d, len, key, 1, key->name, &note, cp, &err) != KIX_OK) {
        snprintf(why, cap, "%s (%zu bytes) does not open: %s", what, len, err.msg);
        return 1;
    }
    if ((long long)cp->size < promise) {
        snprintf(why, cap, "%s is at size %llu, older than the %lld promised", what,
                 (unsigned long long)cp->size, promise);
        return 1;
    }
    return 0;
}

/* The client's remembered checkpoint and the witness's state: one file
 * holding the latest checkpoint. */
struct cpfile_ctx {
    struct kix_verifier key;
    char path[512]; /* relative to the root */
    const char *what;
};

static int check_cpfile(void *ctx, const struct state *s, long long promise, char *why, size_t cap)
{
    struct cpfile_ctx *c = ctx;
    struct kix_checkpoint cp;
    return check_checkpoint_file(s, c->path, &c->key, c->what, promise, &cp, why, cap);
}

/* ---- workload: the client's remembered checkpoint -------------------------------------- */

/* The remembered checkpoint is never lost, torn, or older than the last
 * one a command that exited 0 verified. */
static int workload_client(struct run *r, struct fx *f, struct cpfile_ctx *c)
{
    char state[300], keyenv[1400], out[300];
    struct kix_buf vkey = KIX_BUF_INIT;
    const char *env[3];
    /* two rounds keep CI's sample under a minute on 2 cores (ASan); the
     * full exploration (explore-all.sh) may ask for more */
    int rounds = (int)crash_env("KIX_CRASH_STATES_ROUNDS", 2);

    snprintf(state, sizeof(state), "KIX_STATE_DIR=%s/state", r->root);
    if (kix_verifier_format(&f->log_key, &vkey) != KIX_OK)
        return -1;
    snprintf(keyenv, sizeof(keyenv), "KIX_LOG_KEY=%s", (const char *)vkey.ptr);
    kix_buf_release(&vkey);
    env[0] = state;
    env[1] = keyenv;
    env[2] = NULL;
    snprintf(out, sizeof(out), "%s/out", r->work);
    c->key = f->log_key;
    c->what = "the remembered checkpoint";
    for (int i = 0; i < rounds; i++) {
        char prefix[32];
        char *argv[] = {(char *)bin_path("kix"), "checkpoint", "--server", f->addr, NULL};
        uint64_t size;
        snprintf(prefix, sizeof(prefix), "c%d", i);
        if (fx_publish_many(f, prefix, 3, 100 * i) != KIX_OK)
            return -1;
        size = log_size(f);
        if (run_recorded(r, argv, env, out) != 0) {
            fprintf(stderr, "kix checkpoint failed in round %d\n", i);
            return -1;
        }
        trace_mark(r, (long long)size);
    }
    {
        char safe[256];
        size_t i;
        for (i = 0; f->log_key.name[i] && i < sizeof(safe) - 1; i++)
            safe[i] = f->log_key.name[i] == '/' ? '_' : f->log_key.name[i];
        safe[i] = '\0';
        snprintf(c->path, sizeof(c->path), "state/logs/%s+%08x/checkpoint", safe,
                 f->log_key.key_hash);
    }
    return 0;
}

/* ---- workload: kixd export ----------------------------------------------------------- */

struct export_ctx {
    struct kix_verifier key;
    struct kix_log *log;
    struct kix_log_reader *r; /* a snapshot at the final size */
    unsigned long resources;
};

static int check_resource(struct export_ctx *x, const struct state *s,
                          const struct kix_tlog_path *p, char *why, size_t cap)
{
    char path[KIX_TLOG_PATH_MAX];
    const unsigned char *d;
    size_t len;
    struct kix_buf want = KIX_BUF_INIT;
    struct kix_err err = {0};
    int rc = 0;

    if (kix_tlog_path_format(p, path, sizeof(path)) != KIX_OK)
        return snprintf(why, cap, "bad path"), 1;
    x->resources++;
    if (state_read(s, path, &d, &len) != 0) {
        snprintf(why, cap, "%s, named by the checkpoint, is missing", path);
        return 1;
    }
    if (kix_log_reader_tlog(x->r, p, &want, &err) != KIX_OK) {
        snprintf(why, cap, "reading %s from the store: %s", path, err.msg);
        rc = 1;
    } else if (want.len != len || memcmp(want.ptr, d, len) != 0) {
        snprintf(why, cap, "%s holds %zu bytes that are not the log's (%zu)", path, len, want.len);
        rc = 1;
    }
    kix_buf_release(&want);
    return rc;
}

/* The directory is a tlog-tiles tree at its checkpoint's size: every tile
 * and bundle the checkpoint needs is there with the log's bytes; the
 * checkpoint is never older than the last export that exited 0. */
static int check_export(void *ctx, const struct state *s, long long promise, char *why, size_t cap)
{
    struct export_ctx *x = ctx;
    struct kix_checkpoint cp;

    if (check_checkpoint_file(s, "checkpoint", &x->key, "the exported checkpoint", promise, &cp,
                              why, cap) != 0)
        return 1;
    for (uint32_t level = 0; level <= KIX_TLOG_MAX_LEVEL && (cp.size >> (8 * level)) > 0; level++) {
        for (uint64_t i = 0;; i++) {
            struct kix_tlog_path p = {KIX_TLOG_TILE, level, i, 0};
            unsigned w = kix_tlog_tile_width(cp.size, level, i);
            if (!w)
                break;
            p.width = w;
            if (check_resource(x, s, &p, why, cap))
                return 1;
            if (level == 0) {
                p.kind = KIX_TLOG_ENTRIES;
                if (check_resource(x, s, &p, why, cap))
                    return 1;
            }
        }
    }
    return 0;
}

static int workload_export(struct run *r, struct fx *f, struct export_ctx *x)
{
    char out[300], store[200];
    /* two rounds keep CI's sample under a minute on 2 cores (ASan); the
     * full exploration (explore-all.sh) may ask for more */
    int rounds = (int)crash_env("KIX_CRASH_STATES_ROUNDS", 2);

    snprintf(out, sizeof(out), "%s/exp", r->root);
    snprintf(store, sizeof(store), "%s", f->dir);
    x->key = f->log_key;
    for (int i = 0; i < rounds; i++) {
        char prefix[32];
        char *argv[] = {(char *)bin_path("kixd"), "export", "--store", store, out, NULL};
        uint64_t size;
        /* round 1 crosses a full tile (256 entries) */
        snprintf(prefix, sizeof(prefix), "e%d", i);
        if (fx_publish_many(f, prefix, i == 1 ? 240 : 30, 1000 * i) != KIX_OK)
            return -1;
        size = log_size(f);
        if (run_recorded(r, argv, NULL, NULL) != 0) {
            fprintf(stderr, "kixd export failed in round %d\n", i);
            return -1;
        }
        trace_mark(r, (long long)size);
    }
    return 0;
}

/* The export's paths are under exp/: the checker reads them from there. */
static int check_export_under(void *ctx, const struct state *s, long long promise, char *why,
                              size_t cap)
{
    /* names under exp/ seen as the export directory's own */
    struct state v = *s;
    struct name *names = calloc(s->nnames + 1, sizeof(*names));
    size_t n = 0;
    int rc;

    for (size_t i = 0; i < s->nnames; i++)
        if (strncmp(s->names[i].path, "exp/", 4) == 0) {
            names[n].path = s->names[i].path + 4;
            names[n++].ino = s->names[i].ino;
        }
    v.names = names;
    v.nnames = n;
    rc = check_export(ctx, &v, promise, why, cap);
    free(names);
    return rc;
}

/* What check_export_under reads: the checkpoint and the tiles and bundles
 * (kix/tlog_path.h names them all under tile/). */
static int export_reads(void *ctx, const char *path)
{
    (void)ctx;
    return strcmp(path, "exp/checkpoint") == 0 || strncmp(path, "exp/tile/", 9) == 0;
}

/* ---- workload: the witness's state --------------------------------------------------- */

/* The witness's state holds the latest checkpoint it cosigned: never lost,
 * torn or older than one it answered with a cosignature, so after a
 * restart it cannot cosign a second checkpoint of a size it cosigned
 * (check_cpfile). */

/* The size in the state file the witness wrote (the real one), or -1. */
static long long witness_size_on_disk(const char *dir, char *name, size_t cap)
{
    DIR *dd = opendir(dir);
    struct dirent *de;
    long long size = -1;

    while (dd && (de = readdir(dd))) {
        char path[1024], text[4096];
        FILE *f;
        if (strlen(de->d_name) != 64)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "r");
        if (f && fgets(text, sizeof(text), f) && fgets(text, sizeof(text), f))
            size = atoll(text);
        if (f)
            fclose(f);
        snprintf(name, cap, "%s", de->d_name);
    }
    if (dd)
        closedir(dd);
    return size;
}

static int workload_witness(struct run *r, struct fx *f, struct cpfile_ctx *w)
{
    char wkey[300], wpub[300], wstore[300], wdir[320], http[64], vkey_text[1200], url[400],
        sock[300], name[128] = "";
    struct kix_buf vkey = KIX_BUF_INIT;
    int port = fx_free_port(), rounds = (int)crash_env("KIX_CRASH_STATES_ROUNDS", 4), rc = -1;
    pid_t wpid = -1;

    snprintf(wkey, sizeof(wkey), "%s/w", r->work);
    snprintf(wpub, sizeof(wpub), "%s/w.pub", r->work);
    snprintf(wstore, sizeof(wstore), "%s/w", r->root);
    snprintf(wdir, sizeof(wdir), "%s/witness", wstore);
    snprintf(http, sizeof(http), "tcp://127.0.0.1:%d", port);
    snprintf(sock, sizeof(sock), "unix://%s/w.sock", r->work);
    if (kix_verifier_format(&f->log_key, &vkey) != KIX_OK)
        return -1;
    snprintf(vkey_text, sizeof(vkey_text), "%s", (const char *)vkey.ptr);
    kix_buf_release(&vkey);
    w->key = f->log_key;
    w->what = "the witness state";
    {
        char *keygen[] = {(char *)bin_path("kix"), "keygen", "--witness", "--name",
                          "witness.test",          "--out",  wkey,        NULL};
        char wadmin[320];
        char *init[] = {(char *)bin_path("kixd"), "init",        "--store", wstore, "--origin",
                        "witness.test/log",       "--admin-key", wadmin,    NULL};
        pid_t p1, p2;
        int st1 = -1, st2 = -1;
        snprintf(wadmin, sizeof(wadmin), "%s/w-admin.key", r->work);
        p1 = spawn_with(r, keygen, NULL, NULL, 0);
        if (p1 > 0)
            waitpid(p1, &st1, 0);
        p2 = spawn_with(r, init, NULL, NULL, 0);
        if (p2 > 0)
            waitpid(p2, &st2, 0);
        if (st1 != 0 || st2 != 0) {
            fprintf(stderr, "witness setup failed (see %s)\n", r->log);
            return -1;
        }
    }
    snprintf(wkey, sizeof(wkey), "%s/w.key", r->work);
    {
        char *serve[] = {(char *)bin_path("kixd"),
                         "serve",
                         "--store",
                         wstore,
                         "--listen",
                         sock,
                         "--witness-key",
                         wkey,
                         "--witness-log",
                         vkey_text,
                         "--http",
                         http,
                         "--threads",
                         "1",
                         NULL};
        wpid = spawn_with(r, serve, NULL, NULL, 1);
    }
    fx_sleep_ms(500);
    /* the origin asks the witness after each commit */
    if (fx_stop(f, SIGTERM) != 0)
        goto out;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d %s", port, wpub);
    fx_add_arg(f, "--http-witness");
    fx_add_arg(f, url);
    if (fx_serve(f) != 0)
        goto out;
    for (int i = 0; i < rounds; i++) {
        char prefix[32];
        uint64_t size;
        long long got = -1;
        snprintf(prefix, sizeof(prefix), "w%d", i);
        if (fx_publish_many(f, prefix, 3, 10 * i) != KIX_OK)
            goto out;
        size = log_size(f);
        for (int t = 0; t < 200 && got < (long long)size; t++) {
            fx_sleep_ms(50);
            got = witness_size_on_disk(wdir, name, sizeof(name));
        }
        if (got < (long long)size) {
            fprintf(stderr, "the witness did not cosign size %llu (see %s)\n",
                    (unsigned long long)size, r->log);
            goto out;
        }
        fx_sleep_ms(300); /* its answer went out after the state was synced: trace it first */
        trace_mark(r, got);
    }
    snprintf(w->path, sizeof(w->path), "w/witness/%s", name);
    rc = 0;
out:
    if (wpid > 0) {
        int st;
        kill(wpid, SIGTERM);
        waitpid(wpid, &st, 0);
    }
    return rc;
}

/* ---- stores of layouts 3 and 4: data.mdb, index.mdb and the marker, log.dat -------------- */

/* Writes the state's file at `rel` (relative to the root) to dir/name, or
 * removes dir/name when the state has none: 1 written, 0 none, -1 error. */
static int state_to_file(const struct state *s, const char *rel, const char *dir, const char *name)
{
    const unsigned char *d;
    size_t len;
    char path[700];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
    if (state_read(s, rel, &d, &len) != 0)
        return 0;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, d, len) != (ssize_t)len) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 1;
}

/* The index of layout 3 and its marker, from the state, beside the
 * data.mdb written in dir (data is the state's data.mdb path): the open
 * after a power cut sees them as the next boot does. Its boot id is
 * another one (KIX_TEST_BOOT_ID): a marker the state kept means the index
 * may have lost what it wrote unsynced, and is derived again from the
 * log. Counts the states whose marker made the open rebuild. */
static unsigned long index_rebuilds;

static int state_index_files(const struct state *s, const char *data, const char *dir)
{
    char rel[600], path[700];
    size_t n = strlen(data) - strlen("data.mdb");
    int m;

    snprintf(path, sizeof(path), "%s/index.mdb-lock", dir);
    unlink(path);
    snprintf(rel, sizeof(rel), "%.*sindex.mdb", (int)n, data);
    if (state_to_file(s, rel, dir, "index.mdb") < 0)
        return -1;
    /* layout 4's data file: the leaves' and blobs' bytes, fdatasynced
     * before each data.mdb commit that names them */
    snprintf(rel, sizeof(rel), "%.*slog.dat", (int)n, data);
    if (state_to_file(s, rel, dir, "log.dat") < 0)
        return -1;
    snprintf(rel, sizeof(rel), "%.*sindex.unsynced", (int)n, data);
    m = state_to_file(s, rel, dir, "index.unsynced");
    if (m > 0)
        index_rebuilds++;
    setenv("KIX_TEST_BOOT_ID", "the-boot-after-the-power-cut", 1);
    return m < 0 ? -1 : 0;
}

/* Whether path is one of a layout-3 or 4 store's files beside data (what
 * the open after a crash reads). */
static int store_file(const char *data, const char *path)
{
    size_t n = strlen(data) - strlen("data.mdb");
    return strcmp(path, data) == 0 ||
           (strncmp(path, data, n) == 0 &&
            (strcmp(path + n, "index.mdb") == 0 || strcmp(path + n, "index.unsynced") == 0 ||
             strcmp(path + n, "log.dat") == 0));
}

/* ---- workload: kixd under publishing load (LMDB's commit) --------------------------- */

struct lmdb_ctx {
    char dir[300];  /* where a state's data.mdb is written to be opened */
    char data[512]; /* the store's data.mdb, relative to the root */
};

/* The store opens, passes the quick check kixd serve runs at start, and
 * holds every entry acknowledged before the crash. */
static int check_lmdb(void *ctx, const struct state *s, long long promise, char *why, size_t cap)
{
    struct lmdb_ctx *l = ctx;
    const unsigned char *d;
    size_t len;
    char path[400];
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_check_opts co;
    struct kix_check_stats st;
    struct kix_err err = {0};
    uint64_t size = 0;
    int fd, rc;

    if (state_read(s, l->data, &d, &len) != 0) {
        if (promise < 0)
            return 0;
        snprintf(why, cap, "data.mdb is gone (%lld entries were acknowledged)", promise);
        return 1;
    }
    if (promise < 0 && len == 0)
        return 0; /* kixd init had not written it yet */
    snprintf(path, sizeof(path), "%s/data.mdb", l->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", l->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/data.mdb", l->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, d, len) != (ssize_t)len) {
        snprintf(why, cap, "cannot write %s", path);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    close(fd);
    if (state_index_files(s, l->data, l->dir) != 0) {
        snprintf(why, cap, "cannot write the index to %s", l->dir);
        return 1;
    }
    /* opened as kixd serve opens it at start: to write, so that an index
     * the power cut may have torn is derived again from the log */
    memset(&o, 0, sizeof(o));
    o.store.convert = 1;
    rc = kix_index_open(l->dir, &o, &log, &err);
    if (rc != KIX_OK) {
        if (promise < 0)
            return 0; /* before kixd init finished, nothing was promised */
        snprintf(why, cap, "the store does not open: %s", err.msg);
        return 1;
    }
    memset(&co, 0, sizeof(co));
    co.quick = 1;
    rc = kix_log_check(log, &co, &st, &err);
    if (rc == KIX_OK && kix_log_read_begin(log, &r) == KIX_OK) {
        size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    kix_log_close(log);
    if (rc != KIX_OK) {
        snprintf(why, cap, "the start-up check fails: %s", err.msg);
        return 1;
    }
    if ((long long)size < promise) {
        snprintf(why, cap, "the log has %llu entries, %lld were acknowledged",
                 (unsigned long long)size, promise);
        return 1;
    }
    return 0;
}

/* What check_lmdb reads: data.mdb, index.mdb and its marker (LMDB's lock
 * files hold nothing a reader keeps; the log key is copied once, the rest
 * of the store is not opened). */
static int lmdb_reads(void *ctx, const char *path)
{
    const struct lmdb_ctx *l = ctx;
    return store_file(l->data, path);
}

/* from/log.key to to/log.key (0600). */
static int copy_key(const char *from, const char *to)
{
    char a[700], b[700];
    FILE *in, *out;
    int c, rc = 0;

    snprintf(a, sizeof(a), "%s/log.key", from);
    snprintf(b, sizeof(b), "%s/log.key", to);
    if (!(in = fopen(a, "r")))
        return -1;
    out = fopen(b, "w");
    while (out && (c = fgetc(in)) != EOF)
        fputc(c, out);
    fclose(in);
    if (!out || fclose(out) != 0 || chmod(b, 0600) != 0)
        rc = -1;
    return rc;
}

/* kixd init and serve run under the recorder (the fixture execs them with
 * this process's environment); the root is the fixture's directory's
 * parent, /tmp. */
static int workload_lmdb_start(struct run *r, struct fx *f)
{
    char pre[1200], tmproot[200];
    snprintf(pre, sizeof(pre), "%s", r->fsrec);
    /* the fixture's kixd-test-* directory, made in /tmp, is the root's child */
    snprintf(tmproot, sizeof(tmproot), "/tmp");
    snprintf(r->root, sizeof(r->root), "%s", tmproot);
    setenv("KIX_FSREC_ROOT", r->root, 1);
    setenv("KIX_FSREC_TRACE", r->trace, 1);
    setenv("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0", 1);
    setenv("LD_PRELOAD", pre, 1);
    return fx_start(f);
}

static int workload_lmdb(struct run *r, struct fx *f, struct lmdb_ctx *l)
{
    /* two rounds keep CI's sample under a minute on 2 cores (ASan); the
     * full exploration (explore-all.sh) may ask for more */
    int rounds = (int)crash_env("KIX_CRASH_STATES_ROUNDS", 2);

    for (int i = 0; i < rounds; i++) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "l%d", i);
        if (fx_publish_many(f, prefix, 20, 100 * i) != KIX_OK)
            return -1;
        trace_mark(r, (long long)log_size(f)); /* every one acknowledged */
    }
    fx_stop(f, SIGTERM);
    unsetenv("LD_PRELOAD");
    snprintf(l->data, sizeof(l->data), "%s/data.mdb", f->dir + strlen("/tmp/"));
    snprintf(l->dir, sizeof(l->dir), "%s/st", r->work);
    if (mkdir(l->dir, 0700) != 0)
        return -1;
    return copy_key(f->dir, l->dir); /* the open to write signs the rebuilt notes */
}

/* ---- workload: kixd migrate of a store of layout 1 ------------------------------------ */

struct migrate_ctx {
    char dir[300]; /* where a state's data.mdb is written to be opened */
    uint64_t size; /* the fixture's entries */
};

#define MIGRATE_DATA "m/data.mdb"

/* The text of data.mdb's meta record `name` in dir, read with LMDB alone. */
static int raw_meta(const char *dir, const char *name, char *out, size_t cap)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val k = {strlen(name), (void *)name}, v;
    int rc = mdb_env_create(&env);

    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 32);
    if (rc == 0)
        rc = mdb_env_open(env, dir, MDB_RDONLY, 0600);
    if (rc == 0 && (rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) == 0) {
        rc = mdb_dbi_open(txn, "meta", 0, &dbi);
        if (rc == 0)
            rc = mdb_get(txn, dbi, &k, &v);
        if (rc == 0)
            snprintf(out, cap, "%.*s", (int)v.mv_size, (const char *)v.mv_data);
        mdb_txn_abort(txn);
    }
    mdb_env_close(env);
    return rc;
}

/* Promise 0: mdb_load made the layout-1 store of the fixture; 1: kixd
 * migrate exited 0. From 0 on, every state opens, passes the start-up
 * check and holds every entry of the fixture, in layout 1 or 2 (each step
 * of the conversion is one transaction); from 1 on, in layout 2 with
 * today's index. */
static int check_migrate(void *ctx, const struct state *s, long long promise, char *why, size_t cap)
{
    struct migrate_ctx *m = ctx;
    const unsigned char *d;
    size_t len;
    char path[400], index[64] = "";
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_log_reader *r = NULL;
    struct kix_check_opts co;
    struct kix_check_stats st;
    struct kix_err err = {0};
    uint64_t size = 0;
    int fd, rc, layout;

    if (state_read(s, MIGRATE_DATA, &d, &len) != 0 || len == 0) {
        if (promise < 0)
            return 0;
        snprintf(why, cap, "data.mdb is gone or empty");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/lock.mdb", m->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/data.mdb", m->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, d, len) != (ssize_t)len) {
        snprintf(why, cap, "cannot write %s", path);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    close(fd);
    if (state_index_files(s, MIGRATE_DATA, m->dir) != 0) {
        snprintf(why, cap, "cannot write the index to %s", m->dir);
        return 1;
    }
    /* the layout and index format the crash left, before an open that may
     * convert them */
    layout = raw_meta(m->dir, "layout", index, sizeof(index)) == 0 ? atoi(index) : 1;
    if (raw_meta(m->dir, "index", index, sizeof(index)) != 0)
        index[0] = '\0';
    /* opened as kixd serve opens it at start: to write (converting what is
     * left to convert, deriving a torn index again) */
    memset(&o, 0, sizeof(o));
    o.store.convert = 1;
    rc = kix_index_open(m->dir, &o, &log, &err);
    if (rc != KIX_OK) {
        if (promise < 0)
            return 0; /* mdb_load had not finished */
        snprintf(why, cap, "the store does not open (layout %d): %s", layout, err.msg);
        return 1;
    }
    memset(&co, 0, sizeof(co));
    co.quick = 1;
    rc = kix_log_check(log, &co, &st, &err);
    if (rc == KIX_OK && kix_log_read_begin(log, &r) == KIX_OK) {
        size = kix_log_reader_size(r);
        kix_log_read_end(r);
    }
    kix_log_close(log);
    if (promise < 0)
        return 0;
    if (rc != KIX_OK) {
        snprintf(why, cap, "the start-up check fails (layout %d): %s", layout, err.msg);
        return 1;
    }
    if (size != m->size) {
        snprintf(why, cap, "the log has %llu entries, the fixture %llu (layout %d)",
                 (unsigned long long)size, (unsigned long long)m->size, layout);
        return 1;
    }
    if (promise >= 1 &&
        (layout != KIX_STORE_LAYOUT || strcmp(index, kix_index_indexer()->name) != 0)) {
        snprintf(why, cap, "kixd migrate exited 0, but the store is in layout %d, index %s", layout,
                 index);
        return 1;
    }
    return 0;
}

static int migrate_reads(void *ctx, const char *path)
{
    (void)ctx;
    return store_file(MIGRATE_DATA, path);
}

/* mdb_load of tests/data/layout1 (the log key put beside it untraced: it is
 * there before the trace begins), then kixd migrate --no-backup, both
 * under the recorder. 77 without mdb_load. */
static int workload_migrate(struct run *r, struct migrate_ctx *m)
{
    char store[300], dump[600], key[600], keyto[400];
    char *kixd = (char *)bin_path("kixd");
    char *load[] = {"/usr/bin/mdb_load", "-f", dump, store, NULL};
    char *mig[] = {kixd, "migrate", "--store", store, "--no-backup", NULL};
    char *sync[] = {"/bin/sync", NULL};
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_log_reader *lr = NULL;
    FILE *in, *out;
    int c;

    if (access(load[0], X_OK) != 0) {
        printf("skipped: no %s (lmdb-utils)\n", load[0]);
        return 77;
    }
    snprintf(store, sizeof(store), "%s/m", r->root);
    snprintf(dump, sizeof(dump), "%s/data/layout1/origin.dump", KIX_TEST_DATA);
    snprintf(key, sizeof(key), "%s/data/layout1/log.key", KIX_TEST_DATA);
    snprintf(keyto, sizeof(keyto), "%s/log.key", store);
    if (mkdir(store, 0700) != 0 || !(in = fopen(key, "r")))
        return -1;
    out = fopen(keyto, "w");
    while (out && (c = fgetc(in)) != EOF)
        fputc(c, out);
    fclose(in);
    if (!out || fclose(out) != 0 || chmod(keyto, 0600) != 0)
        return -1;
    /* mdb_load syncs data.mdb but not the directory that names it (nor
     * does LMDB): sync(1) makes the fixture durable, as a store kixd init
     * made is, before anything is promised of it */
    if (run_recorded(r, load, NULL, NULL) != 0 || run_recorded(r, sync, NULL, NULL) != 0)
        return -1;
    trace_mark(r, 0);
    if (run_recorded(r, mig, NULL, NULL) != 0)
        return -1;
    trace_mark(r, 1);
    memset(&o, 0, sizeof(o));
    o.store.read_only = 1;
    if (kix_index_open(store, &o, &log, NULL) != KIX_OK || kix_log_read_begin(log, &lr) != KIX_OK) {
        kix_log_close(log);
        return -1;
    }
    m->size = kix_log_reader_size(lr);
    kix_log_read_end(lr);
    kix_log_close(log);
    snprintf(m->dir, sizeof(m->dir), "%s/st", r->work);
    if (mkdir(m->dir, 0700) != 0)
        return -1;
    return copy_key(store, m->dir); /* the open to write signs the rebuilt notes */
}

/* ---- workload: a mirror's fork evidence ---------------------------------------------- */

struct fork_ctx {
    struct kix_verifier key;
};

/* Once the mirror reported a fork (or a rollback), the checkpoint it had
 * verified (at least the size it reported), the upstream's that
 * contradicts it, and the reason survive in DIR/fork/. */
static int check_fork(void *ctx, const struct state *s, long long promise, char *why, size_t cap)
{
    struct fork_ctx *x = ctx;
    struct kix_checkpoint ours, theirs;
    const unsigned char *d;
    size_t len;

    if (check_checkpoint_file(s, "m/fork/local.checkpoint", &x->key, "the fork's local checkpoint",
                              promise, &ours, why, cap) ||
        check_checkpoint_file(s, "m/fork/upstream.checkpoint", &x->key,
                              "the fork's upstream checkpoint", promise < 0 ? -1 : 0, &theirs, why,
                              cap))
        return 1;
    if (promise >= 0 && (state_read(s, "m/fork/reason", &d, &len) != 0 || len == 0)) {
        snprintf(why, cap, "the fork's reason is gone");
        return 1;
    }
    return 0;
}

static uint64_t size_at(const char *addr)
{
    struct kix_client_opts o = {5000};
    struct kix_client *c = NULL;
    struct kix_client_info info;
    uint64_t size = 0;
    if (kix_client_connect(addr, &o, &c, NULL) == KIX_OK &&
        kix_client_info(c, &info, NULL) == KIX_OK)
        size = info.size;
    kix_client_close(c);
    return size;
}

/* A log served from one address, then a copy of it that went another way
 * (the same size, other entries): the mirror following the address finds
 * the fork and keeps the evidence. */
static int workload_fork(struct run *r, struct fx *f, struct fork_ctx *x)
{
    char a_dir[128], b_dir[128], mstore[300], msock[300], vkey_text[1200], reason[400];
    struct kix_buf vkey = KIX_BUF_INIT;
    uint64_t size;
    pid_t mpid = -1;
    int rc = -1, st;

    snprintf(a_dir, sizeof(a_dir), "%s", f->dir);
    if ((size_t)snprintf(b_dir, sizeof(b_dir), "%.100s-b", f->dir) >= sizeof(b_dir))
        return -1;
    snprintf(mstore, sizeof(mstore), "%s/m", r->root);
    snprintf(msock, sizeof(msock), "unix://%s/m.sock", r->work);
    snprintf(reason, sizeof(reason), "%s/fork/reason", mstore);
    if (kix_verifier_format(&f->log_key, &vkey) != KIX_OK)
        return -1;
    snprintf(vkey_text, sizeof(vkey_text), "%s", (const char *)vkey.ptr);
    kix_buf_release(&vkey);
    x->key = f->log_key;
    if (fx_publish_many(f, "fork-common", 3, 0) != KIX_OK || fx_stop(f, SIGTERM) != 0)
        return -1;
    {
        char *cp[] = {"/bin/cp", "-a", a_dir, b_dir, NULL};
        pid_t p = spawn_with(r, cp, NULL, NULL, 0);
        if (p < 0 || waitpid(p, &st, 0) != p || st != 0)
            return -1;
    }
    if (fx_serve(f) != 0 || fx_publish_many(f, "fork-a", 3, 100) != KIX_OK)
        goto out;
    size = log_size(f);
    {
        char *serve[] = {(char *)bin_path("kixd"),
                         "serve",
                         "--store",
                         mstore,
                         "--listen",
                         msock,
                         "--mirror-of",
                         f->addr,
                         "--upstream-key",
                         vkey_text,
                         "--threads",
                         "1",
                         NULL};
        mpid = spawn_with(r, serve, NULL, NULL, 1);
    }
    for (int t = 0; t < 200 && size_at(msock) < size; t++)
        fx_sleep_ms(50);
    if (size_at(msock) < size || fx_stop(f, SIGTERM) != 0)
        goto out;
    /* the same address now serves the copy, grown another way */
    snprintf(f->dir, sizeof(f->dir), "%s", b_dir);
    if (fx_serve(f) != 0 || fx_publish_many(f, "fork-b", 3, 200) != KIX_OK)
        goto out;
    for (int t = 0; t < 200 && access(reason, F_OK) != 0; t++)
        fx_sleep_ms(50);
    if (access(reason, F_OK) != 0) {
        fprintf(stderr, "the mirror found no fork (see %s)\n", r->log);
        goto out;
    }
    fx_sleep_ms(300); /* its log line went out after the evidence was synced: traced first */
    trace_mark(r, (long long)size);
    rc = 0;
out:
    if (mpid > 0) {
        kill(mpid, SIGTERM);
        waitpid(mpid, &st, 0);
    }
    fx_stop(f, SIGTERM);
    snprintf(f->dir, sizeof(f->dir), "%s", a_dir); /* fx_cleanup removes its parent */
    if (kix_dir_remove_tree(b_dir, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", b_dir);
    return rc;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "client";
    struct explore e;
    struct run r;
    struct fx f;
    struct trace t;
    struct cpfile_ctx cc;
    struct export_ctx xc;
    struct cpfile_ctx wc;
    struct lmdb_ctx lc;
    struct fork_ctx fc;
    struct migrate_ctx mc;
    int rc = 1, started;

    /* the fixture comes with the test harness; its table is unused here */
    (void)kix_test_cases;
    (void)kix_test_ncases;
    (void)kix_test_failed;
    memset(&e, 0, sizeof(e));
    memset(&cc, 0, sizeof(cc));
    memset(&xc, 0, sizeof(xc));
    memset(&wc, 0, sizeof(wc));
    memset(&lc, 0, sizeof(lc));
    memset(&fc, 0, sizeof(fc));
    memset(&mc, 0, sizeof(mc));
    e.full = (argc > 2 && strcmp(argv[2], "FULL") == 0) || getenv("KIX_CRASH_STATES_FULL");
    e.seed = crash_seed();
    e.max_states = crash_env("KIX_CRASH_STATES_MAX", 2000);
    if (run_setup(&r) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    memset(&f, 0, sizeof(f));
    started = strcmp(which, "lmdb") == 0      ? workload_lmdb_start(&r, &f)
              : strcmp(which, "migrate") == 0 ? 0 /* no kixd serves: it is converted */
                                              : fx_start(&f);
    if (started != 0) {
        fprintf(stderr, "starting kixd failed\n");
        return 1;
    }
    if (strcmp(which, "client") == 0) {
        if (workload_client(&r, &f, &cc) != 0)
            goto out;
        e.check = check_cpfile;
        e.ctx = &cc;
    } else if (strcmp(which, "export") == 0) {
        struct kix_log_opts o;
        struct kix_err err = {0};
        if (workload_export(&r, &f, &xc) != 0)
            goto out;
        memset(&o, 0, sizeof(o));
        o.store.read_only = 1;
        if (kix_index_open(f.dir, &o, &xc.log, &err) != KIX_OK ||
            kix_log_read_begin(xc.log, &xc.r) != KIX_OK) {
            fprintf(stderr, "opening the store: %s\n", err.msg);
            goto out;
        }
        e.check = check_export_under;
        e.ctx = &xc;
        e.relevant = export_reads;
    } else if (strcmp(which, "witness") == 0) {
        if (workload_witness(&r, &f, &wc) != 0)
            goto out;
        e.check = check_cpfile;
        e.ctx = &wc;
    } else if (strcmp(which, "fork") == 0) {
        if (workload_fork(&r, &f, &fc) != 0)
            goto out;
        e.check = check_fork;
        e.ctx = &fc;
    } else if (strcmp(which, "lmdb") == 0) {
        if (workload_lmdb(&r, &f, &lc) != 0)
            goto out;
        e.check = check_lmdb;
        e.ctx = &lc;
        e.relevant = lmdb_reads;
        if (!e.full && !getenv("KIX_CRASH_STATES_MAX"))
            e.max_states = 300; /* each state is a store opened and checked */
    } else if (strcmp(which, "migrate") == 0) {
        int w = workload_migrate(&r, &mc);
        if (w == 77) {
            rc = 77;
            goto out;
        }
        if (w != 0) {
            fprintf(stderr, "the workload failed (see %s)\n", r.log);
            goto out;
        }
        e.check = check_migrate;
        e.ctx = &mc;
        e.relevant = migrate_reads;
        if (!e.full && !getenv("KIX_CRASH_STATES_MAX"))
            e.max_states = 300; /* each state is a store opened and checked */
    } else {
        fprintf(stderr, "usage: crash_states client|export|witness|fork|lmdb|migrate [FULL]\n");
        rc = 2;
        goto out;
    }
    if (trace_load(r.trace, &t) != 0 || t.n == 0) {
        fprintf(stderr, "no trace in %s (is %s built?)\n", r.trace, r.fsrec);
        goto out;
    }
    e.t = &t;
    e.ninodes = forward(&t);
    e.cut_ops = cut_irrelevant(&t, e.ninodes, e.relevant, e.ctx);
    explore(&e);
    {
        unsigned long syncs = 0, promises = 0;
        for (size_t i = 0; i < t.n; i++) {
            syncs += strchr("sS", t.ops[i].kind) != NULL;
            promises += t.ops[i].kind == 'P';
        }
        printf("crash_states %s (%s, seed %llu): %zu operations traced (%lu syncs, %lu promises, "
               "%zu touching no file the check reads); %lu states built, %lu distinct checked, "
               "%lu failed; not built, as equal to one built on every file the check reads: %lu "
               "states, %zu crash points\n",
               which, e.full ? "full" : "sample", (unsigned long long)e.seed, t.n, syncs, promises,
               e.cut_ops, e.states, e.distinct, e.failures, e.cut_states, e.merged_points);
    }
    if (index_rebuilds)
        printf("%lu of them kept the index's marker: the open after the power cut (another boot) "
               "derived the index again from the log\n",
               index_rebuilds);
    if (e.failures)
        printf("first failure: %s\n", e.first_failure);
    rc = e.failures ? 1 : 0;
    trace_free(&t);
out:
    if (xc.r)
        kix_log_read_end(xc.r);
    kix_log_close(xc.log);
    free(e.seen);
    fx_cleanup(&f);
    run_cleanup(&r);
    return rc;
}
