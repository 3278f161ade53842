/* kix_pattern_match against POSIX regexec (REG_EXTENDED, C locale) on every
 * input: the first byte picks a pattern (the schemas' own, then harder ones
 * of the same subset), the rest is the string. Both must decide alike. */
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
    /* backtracking and groups */
    "^a*a$",
    "^(ab)?a?b$",
    "^[a-c]{2,3}c$",
    "^(x[0-9]*)?[0-9]+$",
    "^((a)?b)?c$",
    "^[ -~]*[a-z]{3}[0-9]?$",
};
#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

static struct kix_pattern *fast[NPATTERNS];
static regex_t re[NPATTERNS];

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
