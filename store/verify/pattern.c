/* The schemas' anchored patterns matched by a small backtracking matcher
 * over byte classes (kix/pattern.h). */
#include "kix/pattern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATOMS 64u
#define MAX_COUNT 1024u /* the largest n or m of a {n,m} */

/* One atom: a byte class (a literal is a class of one byte) or a group,
 * whose body is the `body` atoms after it; repeated min..max times. */
struct atom {
    uint8_t set[32]; /* class: bit b of byte b/8 */
    unsigned min, max;
    size_t body; /* group: its atoms; 0 for a class */
    int group;
};

struct kix_pattern {
    size_t n;
    struct atom a[MAX_ATOMS];
};

static void add(uint8_t set[32], unsigned c)
{
    set[c / 8] |= (uint8_t)(1u << (c % 8));
}

static int has(const uint8_t set[32], unsigned char c)
{
    return set[c / 8] >> (c % 8) & 1;
}

static int number(const char **p, unsigned *out)
{
    unsigned v = 0;

    if (**p < '0' || **p > '9')
        return 0;
    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (unsigned)(**p - '0');
        if (v > MAX_COUNT)
            return 0;
        (*p)++;
    }
    *out = v;
    return 1;
}

/* A bracket class after its '[': ranges and bytes, a '-' only first, last
 * or between a range's two ends; no negation, no [:name:], no ']' or '\\'
 * inside (regex then). */
static int bracket(const char **p, uint8_t set[32])
{
    const unsigned char *first = (const unsigned char *)*p, *q = first;

    if (*q == '^' || *q == ']')
        return 0;
    while (*q && *q != ']') {
        unsigned lo = *q, hi = lo;
        if (lo == '[' || lo == '\\')
            return 0;
        /* '-' stands for itself only first or last: anywhere else (after
         * a range, "a-c-e") POSIX leaves it undefined and glibc refuses it */
        if (lo == '-' && q != first && q[1] != ']')
            return 0;
        if (q[1] == '-' && q[2] && q[2] != ']') {
            hi = q[2];
            if (hi < lo || hi == '[' || hi == '\\' || lo == '-' || hi == '-')
                return 0;
            q += 3;
        } else {
            q++;
        }
        for (unsigned c = lo; c <= hi; c++)
            add(set, c);
    }
    if (*q != ']')
        return 0;
    *p = (const char *)q + 1;
    return 1;
}

#define UNBOUNDED (~0u) /* "*", "+" and "{n,}": longer than any string kix takes */

/* A bound's text after its '{': "n}", "n,}" or "n,m}". Sets *lo and *hi
 * (UNBOUNDED for "n,") and moves past the '}'; 0 when malformed or a
 * number is over MAX_COUNT. Both readers of quantifiers below use it. */
static int braces(const char **p, unsigned *lo, unsigned *hi)
{
    if (!number(p, lo))
        return 0;
    *hi = *lo;
    if (**p == ',') {
        (*p)++;
        *hi = UNBOUNDED;
        if (**p != '}' && !number(p, hi))
            return 0;
    }
    if (**p != '}')
        return 0;
    (*p)++;
    return 1;
}

static int quantifier(const char **p, struct atom *a)
{
    a->min = a->max = 1;
    switch (**p) {
    case '?':
        a->min = 0, (*p)++;
        return 1;
    case '*':
        a->min = 0, a->max = UNBOUNDED, (*p)++;
        return 1;
    case '+':
        a->max = UNBOUNDED, (*p)++;
        return 1;
    case '{':
        (*p)++;
        if (!braces(p, &a->min, &a->max))
            return 0;
        return a->max >= a->min; /* "{n,}": UNBOUNDED, as "*" and "+" */
    default:
        return 1;
    }
}

/* Atoms up to the end of a group (')') or of the pattern ('$'). */
static int sequence(const char **p, struct kix_pattern *out, int in_group)
{
    while (**p && **p != ')' && **p != '$') {
        struct atom *a;
        size_t at = out->n;
        char c = **p;

        if (out->n == MAX_ATOMS)
            return 0;
        a = &out->a[out->n++];
        memset(a, 0, sizeof(*a));
        if (c == '[') {
            (*p)++;
            if (!bracket(p, a->set))
                return 0;
        } else if (c == '(') {
            (*p)++;
            a->group = 1;
            if (!sequence(p, out, 1) || **p != ')')
                return 0;
            (*p)++;
            a = &out->a[at];
            a->body = out->n - at - 1;
        } else if (strchr(".*+?{}]^|\\", c)) {
            return 0;
        } else {
            add(a->set, (unsigned char)c);
            (*p)++;
        }
        if (!quantifier(p, a))
            return 0;
        /* a group repeated otherwise than once or not at all is regex's */
        if (a->group && (a->max != 1 || a->body == 0))
            return 0;
    }
    return in_group ? **p == ')' : **p == '$';
}

static int meets(const uint8_t a[32], const uint8_t b[32])
{
    for (unsigned i = 0; i < 32; i++)
        if (a[i] & b[i])
            return 1;
    return 0;
}

/* Whether a[0..n) can match the empty string. */
static int nullable(const struct atom *a, size_t n)
{
    for (size_t i = 0; i < n; i += 1 + a[i].body)
        if (a[i].min > 0 && !(a[i].group && nullable(a + i + 1, a[i].body)))
            return 0;
    return 1;
}

/* Sets follow, the bytes that may begin what comes after a[0..n), to
 * those that may begin a[0..n) and then that. 0 when a choice of the
 * matcher could go two ways: a repeat whose class meets what may follow
 * it, or an optional group whose body may be empty or meets what follows
 * the group. The matcher tries every count, so on such a pattern ("a+a+a+")
 * it could take exponential time; without them a wrong count fails at the
 * next byte, and a match costs the string's length times the pattern's. */
static int deterministic(const struct atom *a, size_t n, uint8_t follow[32])
{
    uint8_t after[32];
    size_t skip;

    if (n == 0)
        return 1;
    skip = 1 + a->body;
    if (!deterministic(a + skip, n - skip, follow))
        return 0;
    if (!a->group) {
        if (a->min < a->max && meets(a->set, follow))
            return 0;
        for (unsigned i = 0; i < 32; i++)
            follow[i] = (uint8_t)(a->min ? a->set[i] : a->set[i] | follow[i]);
        return 1;
    }
    memcpy(after, follow, sizeof(after));
    if (!deterministic(a + 1, a->body, follow))
        return 0;
    if (a->min == 0) {
        /* not nullable: follow is now exactly what may begin the body */
        if (nullable(a + 1, a->body) || meets(follow, after))
            return 0;
        for (unsigned i = 0; i < 32; i++)
            follow[i] |= after[i];
    }
    return 1;
}

int kix_pattern_compile(const char *pattern, struct kix_pattern **out)
{
    uint8_t follow[32] = {0};
    struct kix_pattern *p;
    const char *q = pattern;

    *out = NULL;
    if (*q++ != '^')
        return KIX_EINVAL;
    p = calloc(1, sizeof(*p));
    if (!p)
        return KIX_ENOMEM;
    if (!sequence(&q, p, 0) || strcmp(q, "$") != 0 || !deterministic(p->a, p->n, follow)) {
        free(p);
        return KIX_EINVAL;
    }
    *out = p;
    return KIX_OK;
}

/* What is left to match after the current atoms: the rest of the
 * enclosing sequences. */
struct cont {
    const struct atom *a;
    size_t n;
    const struct cont *next;
};

static int match(const struct atom *a, size_t n, const struct cont *k, const unsigned char *s,
                 size_t len, size_t pos)
{
    size_t run = 0;

    if (n == 0)
        return k ? match(k->a, k->n, k->next, s, len, pos) : pos == len;
    if (a->group) {
        struct cont rest = {a + 1 + a->body, n - 1 - a->body, k};
        return match(a + 1, a->body, &rest, s, len, pos) ||
               (a->min == 0 && match(rest.a, rest.n, rest.next, s, len, pos));
    }
    while (run < a->max && pos + run < len && has(a->set, s[pos + run]))
        run++;
    if (run < a->min)
        return 0;
    /* the last atom of the whole pattern takes all it can or fails */
    if (n == 1 && !k)
        return pos + run == len;
    for (size_t c = run + 1; c-- > a->min;)
        if (match(a + 1, n - 1, k, s, len, pos + c))
            return 1;
    return 0;
}

int kix_pattern_match(const struct kix_pattern *p, const char *s, size_t len)
{
    return match(p->a, p->n, NULL, (const unsigned char *)s, len, 0);
}

void kix_pattern_free(struct kix_pattern *p)
{
    free(p);
}

/* ---- what regcomp may be given -------------------------------------------- */

#define TAME_DEPTH 16
#define TAME_BOUND 255
#define TAME_SIZE  4096

/* The repetitions a quantifier at *p allows (1 when there is none) and
 * moves past it; 0 when it is malformed or over the bound. */
static size_t repetitions(const char **p)
{
    unsigned lo, hi;

    switch (**p) {
    case '*':
    case '+':
    case '?':
        (*p)++;
        return 2; /* regcomp writes "a+" as "aa*" */
    case '{':
        (*p)++;
        if (!braces(p, &lo, &hi))
            return 0;
        if (hi == UNBOUNDED)
            hi = lo + 1;
        if (lo > TAME_BOUND || hi > TAME_BOUND)
            return 0;
        return (size_t)(hi > lo ? hi : lo) + 1;
    default:
        return 1;
    }
}

static int quantifier_at(char c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

int kix_pattern_regex_tame(const char *pattern)
{
    size_t size[TAME_DEPTH + 1] = {0};
    unsigned depth = 0;
    const char *p = pattern;

    /* Only the repetitions are judged; a pattern malformed otherwise (an
     * unclosed bracket or group) is regcomp's to refuse, in its words. */
    while (*p) {
        size_t atom = 1, times;
        char c = *p++;

        if (c == '(') {
            if (++depth > TAME_DEPTH)
                return 0;
            size[depth] = 0;
            continue;
        }
        if (c == '|' || c == '^' || c == '$')
            continue;
        if (quantifier_at(c)) {
            /* after nothing to repeat (no copy is made), unless stacked */
            if (quantifier_at(*p))
                return 0;
            continue;
        }
        if (c == ')') {
            if (depth == 0)
                return 1;
            atom = size[depth--] + 1;
        } else if (c == '\\') {
            if (!*p++)
                return 1;
        } else if (c == '[') {
            if (*p == '^')
                p++;
            if (*p == ']')
                p++;
            while (*p && *p != ']') {
                if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                    char close = p[1];
                    p += 2;
                    while (*p && !(p[0] == close && p[1] == ']'))
                        p++;
                    if (!*p)
                        return 1;
                    p += 2;
                } else {
                    p++;
                }
            }
            if (*p++ != ']')
                return 1;
        }
        times = repetitions(&p);
        if (times == 0 || quantifier_at(*p))
            return 0;
        size[depth] += atom * times;
        if (size[depth] > TAME_SIZE)
            return 0;
    }
    return 1;
}
