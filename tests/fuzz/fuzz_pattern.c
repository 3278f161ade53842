/* kix_pattern_match against POSIX regexec (REG_EXTENDED, C locale) on every
 * input: the first byte picks a pattern (the schemas' own, then harder ones
 * of the same subset), the rest is the string. Both must decide alike.
 * With the first byte 0xff the input is a pattern of its own, a NUL, then
 * the string: what kix_pattern_compile accepts regcomp must accept too (the
 * schema validator then compiles no regex for it) and decide alike. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kix/pattern.h"

static const char *const patterns[] = {
    /* proto/schema/ (unit.pattern.schema_patterns_agree_with_regexec reads
     * them from the files themselves) */
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,9})?Z$",
    "^[0-9a-f]+$",
    "^[A-Za-z0-9+/]+=$",
    "^[A-Za-z0-9._:-]+$",
    "^[A-Za-z0-9][A-Za-z0-9._-]*$",
    "^[a-z0-9][a-z0-9._-]*$",
    "^sha256:[0-9a-f]+$",
    /* repeats, bounds and groups */
    "^a*b$",
    "^(ab)?c?b$",
    "^[a-c]{2,3}d$",
    "^(x[0-9]*)?y[0-9]+$",
    "^((a)?b)?c$",
    "^[ -@]*[a-z]{3}[0-9]?$",
};
#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

static struct kix_pattern *fast[NPATTERNS];
static regex_t re[NPATTERNS];

static int own_pattern(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    struct kix_pattern *p = NULL;
    size_t plen, len;
    regex_t own;
    char *pat, *s;

    if (!nul)
        return 0;
    plen = (size_t)(nul - data);
    len = size - plen - 1;
    pat = malloc(plen + 1);
    s = malloc(len + 1);
    if (!pat || !s)
        abort();
    memcpy(pat, data, plen);
    pat[plen] = 0;
    memcpy(s, nul + 1, len);
    s[len] = 0;
    if (kix_pattern_compile(pat, &p) == KIX_OK) {
        if (regcomp(&own, pat, REG_EXTENDED | REG_NOSUB) != 0)
            abort();
        if ((strlen(s) == len && regexec(&own, s, 0, NULL, 0) == 0) != kix_pattern_match(p, s, len))
            abort();
        regfree(&own);
        kix_pattern_free(p);
    }
    free(pat);
    free(s);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    size_t which, len;
    char *s;
    int want, got;

    if (!ready) {
        for (size_t i = 0; i < NPATTERNS; i++)
            if (kix_pattern_compile(patterns[i], &fast[i]) != KIX_OK ||
                regcomp(&re[i], patterns[i], REG_EXTENDED | REG_NOSUB) != 0)
                abort();
        ready = 1;
    }
    if (size == 0)
        return 0;
    if (data[0] == 0xff)
        return own_pattern(data + 1, size - 1);
    which = data[0] % NPATTERNS;
    len = size - 1;
    s = malloc(len + 1);
    if (!s)
        abort();
    memcpy(s, data + 1, len);
    s[len] = 0;
    want = strlen(s) == len && regexec(&re[which], s, 0, NULL, 0) == 0;
    got = kix_pattern_match(fast[which], s, len);
    if (want != got)
        abort();
    free(s);
    return 0;
}
