/* kix/pattern.h: the schemas' patterns decided as POSIX regexec decides
 * them (C locale), on random strings near and far from each pattern; every
 * pattern of proto/schema is in the fast subset; what is outside it is
 * refused so regex keeps it. */
#include <dirent.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/pattern.h"

#define SCHEMA_DIR KIX_TEST_DATA "/../proto/schema"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned next(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Strings made of the pattern's own bytes, of digits and letters, and of
 * any byte, at lengths around what the pattern wants. */
static size_t random_string(const char *pattern, char *out, size_t cap)
{
    static const char near[] = "0123456789abcdefABCDEFxyzXYZ:._-+/=T Z";
    size_t len = next(3) ? next(80) : next((unsigned)cap);
    unsigned mode = next(4);

    for (size_t i = 0; i < len; i++) {
        switch (mode) {
        case 0:
            out[i] = pattern[next((unsigned)strlen(pattern))];
            break;
        case 1:
            out[i] = near[next(sizeof(near) - 1)];
            break;
        case 2:
            out[i] = (char)(1 + next(255));
            break;
        default:
            out[i] =
                next(2) ? pattern[next((unsigned)strlen(pattern))] : near[next(sizeof(near) - 1)];
        }
    }
    out[len] = 0;
    return len;
}

/* Strings the pattern should match, by walking it: a digest, a time. */
static const char *const samples[] = {
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "2024-09-03T15:39:55Z",
    "2024-09-03T15:39:55.123456789Z",
    "2024-09-03T15:39:55.1234567890Z",
    "2024-09-03T15:39:55.Z",
    "rope-h100_1.x",
    "a",
    "",
    "AAAA=",
    "deadbeef",
    "Run:1.2-3_4",
};

static int agree(const char *pattern, struct kix_pattern *fast, const regex_t *re, const char *s,
                 size_t len)
{
    int want = strlen(s) == len && regexec(re, s, 0, NULL, 0) == 0;
    int got = kix_pattern_match(fast, s, len);
    if (want != got)
        fprintf(stderr, "pattern %s on \"%s\": regexec %d, kix_pattern %d\n", pattern, s, want,
                got);
    return want == got;
}

static void differential(const char *pattern, unsigned rounds, size_t *out)
{
    struct kix_pattern *fast = NULL;
    regex_t re;
    char s[300];
    size_t matched = 0;

    ASSERT_EQ_INT(0, regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB));
    ASSERT_EQ_INT(KIX_OK, kix_pattern_compile(pattern, &fast));
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        ASSERT_TRUE(agree(pattern, fast, &re, samples[i], strlen(samples[i])));
        matched += kix_pattern_match(fast, samples[i], strlen(samples[i]));
    }
    for (unsigned i = 0; i < rounds; i++) {
        size_t len = random_string(pattern, s, sizeof(s) - 1);
        ASSERT_TRUE(agree(pattern, fast, &re, s, len));
        matched += kix_pattern_match(fast, s, len);
    }
    /* a NUL inside never matches */
    memcpy(s, "sha256:0\0", 10);
    ASSERT_EQ_INT(0, kix_pattern_match(fast, s, 9));
    kix_pattern_free(fast);
    regfree(&re);
    *out = matched;
}

static void collect(const json_t *j, json_t *patterns)
{
    const char *k;
    json_t *v;
    size_t i;

    if (json_is_object(j)) {
        json_object_foreach((json_t *)j, k, v)
        {
            if (strcmp(k, "pattern") == 0 && json_is_string(v))
                json_array_append(patterns, v);
            else
                collect(v, patterns);
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v) collect(v, patterns);
    }
}

KIX_TEST(schema_patterns_agree_with_regexec)
{
    json_t *patterns = json_array();
    DIR *d = opendir(SCHEMA_DIR);
    struct dirent *e;
    size_t i, files = 0;
    json_t *p;

    ASSERT_TRUE(d != NULL);
    while ((e = readdir(d))) {
        char path[512];
        json_t *doc;
        if (!strstr(e->d_name, ".schema.json"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", SCHEMA_DIR, e->d_name);
        doc = json_load_file(path, 0, NULL);
        ASSERT_TRUE(doc != NULL);
        collect(doc, patterns);
        json_decref(doc);
        files++;
    }
    closedir(d);
    ASSERT_TRUE(files >= 10);
    ASSERT_TRUE(json_array_size(patterns) >= 7);
    json_array_foreach(patterns, i, p)
    {
        /* each one matches something, so the comparison is not all "no" */
        size_t matched = 0;
        differential(json_string_value(p), 20000, &matched);
        ASSERT_TRUE(matched > 0);
    }
    json_decref(patterns);
}

KIX_TEST(the_subset_agrees_with_regexec)
{
    static const char *const more[] = {
        "^a*b$",   "^(ab)?c?b$", "^[a-c]{2,3}d$", "^x{0}y$",  "^[0-9]{1,}$", "^(x[0-9]*)?y[0-9]+$",
        "^[-a]+$", "^[a-]?b*$",  "^((a)?b)?c$",   "^[ -~]*$",
    };
    size_t matched;
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        differential(more[i], 20000, &matched);
}

/* A pattern the matcher could read two ways ("a*a": which a ends the
 * run?) is left to regex: tried count by count, "a+a+a+...a+" would take
 * exponential time on a long enough string of a's (fuzz_pattern found it). */
/* "+" and "*" have no upper bound: a run longer than any {n,m} may write
 * (1024) still matches, as regexec decides (the matcher capped it at 1024
 * once, refusing a long hex string regexec accepted). */
KIX_TEST(long_runs_match_as_regexec_does)
{
    static const char *const patterns[] = {"^[0-9a-f]+$", "^[A-Za-z0-9][A-Za-z0-9._-]*$",
                                           "^a{2,}$"};
    static char s[5001];
    regex_t re;
    struct kix_pattern *p = NULL;

    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        ASSERT_EQ_INT(0, regcomp(&re, patterns[i], REG_EXTENDED | REG_NOSUB));
        ASSERT_EQ_INT(KIX_OK, kix_pattern_compile(patterns[i], &p));
        for (size_t len = 1020; len <= 5000; len += 995) {
            memset(s, 'a', len);
            s[len] = '\0';
            ASSERT_EQ_INT(regexec(&re, s, 0, NULL, 0) == 0, kix_pattern_match(p, s, len));
            ASSERT_EQ_INT(1, kix_pattern_match(p, s, len));
        }
        kix_pattern_free(p);
        regfree(&re);
    }
}

KIX_TEST(ambiguous_patterns_are_left_to_regex)
{
    static const char *const ambiguous[] = {
        "^a*a$",    "^(ab)?a?b$",       "^[a-c]{2,3}c$", "^(x[0-9]*)?[0-9]+$", "^a+a+a+a+a+a+a+a+$",
        "^(a?)?b$", "^[ -~]*[a-z]{3}$", "^(a)?[a-c]$",
    };
    struct kix_pattern *p = NULL;
    char s[4097];

    for (size_t i = 0; i < sizeof(ambiguous) / sizeof(ambiguous[0]); i++) {
        ASSERT_EQ_INT(KIX_EINVAL, kix_pattern_compile(ambiguous[i], &p));
        ASSERT_TRUE(p == NULL);
    }
    /* the unambiguous form of the same thing: linear on 4096 a's */
    ASSERT_EQ_INT(KIX_OK, kix_pattern_compile("^a+b*c?$", &p));
    memset(s, 'a', sizeof(s) - 1);
    s[sizeof(s) - 1] = 'x';
    ASSERT_EQ_INT(0, kix_pattern_match(p, s, sizeof(s)));
    ASSERT_EQ_INT(1, kix_pattern_match(p, s, sizeof(s) - 1));
    kix_pattern_free(p);
}

KIX_TEST(outside_the_subset_is_left_to_regex)
{
    static const char *const outside[] = {
        "abc$",   "^abc",     "^a|b$", "^.*$",      "^[^a]$",   "^[[:digit:]]$", "^a\\.b$",
        "^(a)+$", "^(a){2}$", "^()$",  "^[]a]$",    "^a{2,1}$", "^a{99999}$",    "^[z-a]$",
        "^(a$",   "^a)$",     "^a$b",  "^[a-c-e]$", "^[--/]$",  "^[!--]$",
    };
    struct kix_pattern *p = NULL;

    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
        ASSERT_EQ_INT(KIX_EINVAL, kix_pattern_compile(outside[i], &p));
        ASSERT_TRUE(p == NULL);
    }
}

/* What regcomp is given is bounded: glibc copies a subexpression once per
 * repetition, so stacked and nested repeats are refused before it sees
 * them (a fuzzed schema with "6+++...+" took regcomp past 2 GB). */
KIX_TEST(regex_is_given_only_tame_patterns)
{
    static const char *const tame[] = {
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,9})?Z$",
        "^sha256:[0-9a-f]+$",
        "^[[:digit:]]+$",
        "^a\\++$",
        "^(a|b)*c{0,255}$",
        "^[]a-]*$",
        "(((((a)))))",
        "x{10}(y{10}){10}",
        /* malformed but harmless: regcomp refuses them in its own words */
        "*a",
        "(*a)",
        "^*",
        "a)",
        "(a",
        "[a",
        "a\\",
        "([a-z",
    };
    static const char *const wild[] = {
        "^sha256++$", "^a**$",    "^a{2}{2}$",     "((a{200}){200}){200}",
        "a{256}",     "a{1,256}", "(a{100}){100}", "((((((((((((((((((a))))))))))))))))))",
        "(*+a)",
    };
    char big[5000];

    for (size_t i = 0; i < sizeof(tame) / sizeof(tame[0]); i++)
        if (!kix_pattern_regex_tame(tame[i])) {
            fprintf(stderr, "refused %s\n", tame[i]);
            ASSERT_TRUE(0);
        }
    for (size_t i = 0; i < sizeof(wild) / sizeof(wild[0]); i++)
        if (kix_pattern_regex_tame(wild[i])) {
            fprintf(stderr, "accepted %s\n", wild[i]);
            ASSERT_TRUE(0);
        }
    memset(big, 'a', sizeof(big) - 1); /* 4999 atoms: past the expanded size */
    big[sizeof(big) - 1] = '\0';
    ASSERT_EQ_INT(0, kix_pattern_regex_tame(big));
}

KIX_TEST_MAIN()
