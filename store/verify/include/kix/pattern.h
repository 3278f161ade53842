/* kix/pattern.h: the record schemas' "pattern"s matched without regex.
 *
 * The schemas (proto/schema/) use anchored patterns of one simple kind:
 * ^...$ around literals, bracket classes ([a-z0-9._-]) and groups, each
 * with an optional ?, *, +, {n} or {n,m} (a group only with ?), and
 * unambiguous: a class repeated a varying number of times meets nothing
 * that may follow it, and an optional group's body is never empty and
 * meets nothing after the group (so a match takes time linear in the
 * string, times the pattern).
 * kix_pattern_compile accepts exactly that subset and refuses anything else
 * with KIX_EINVAL, so a caller keeps POSIX regcomp/regexec for those; on
 * the subset it decides the same strings as regexec with REG_EXTENDED in
 * the C locale, byte by byte whatever the process's locale (the
 * validator's hot path, where glibc's regexec was most of a record check).
 *
 * Memory: kix_pattern_compile allocates *out; kix_pattern_free releases it.
 * kix_pattern_match allocates nothing and may be called from many threads
 * on one compiled pattern.
 */
#ifndef KIX_PATTERN_H
#define KIX_PATTERN_H

#include "kix/api.h"

#include <stddef.h>

#include "kix/error.h"

struct kix_pattern;

/* KIX_OK, KIX_EINVAL (outside the subset: use regex), KIX_ENOMEM. */
KIX_API int kix_pattern_compile(const char *pattern, struct kix_pattern **out) KIX_MUST_CHECK;

/* 1 when the len bytes at s match the whole pattern, else 0. */
KIX_API int kix_pattern_match(const struct kix_pattern *p, const char *s, size_t len);

KIX_API void kix_pattern_free(struct kix_pattern *p);

/* Whether a pattern outside that subset is safe to give to glibc's
 * regcomp: it copies a subexpression once per repetition, so stacked
 * quantifiers ("a++") or nested bounds ("((a{200}){200}){200}") make it
 * allocate exponentially. 0 for a quantifier on a quantifier, a bound over
 * 255, groups nested over 16 deep, or an expanded size (each atom times
 * its repetitions, summed) over 4096; else 1 (other syntax errors are left
 * to regcomp to refuse). */
KIX_API int kix_pattern_regex_tame(const char *pattern);

#endif
