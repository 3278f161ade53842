/* kix/assert.h — invariants the store checks in every build.
 *
 * KIX_ASSERT(expr) states something the code above it guarantees (a count
 * that cannot exceed its array, a tile written at the size it was built
 * for, a write made under the store's write lock). It is not error
 * handling: input from a user, a file or the network is refused with a
 * KIX_E* code (kix/error.h), never asserted. When an invariant is broken
 * the store's state can no longer be trusted, so, as LMDB's mdb_tassert
 * does, kix stops at once: the message names the expression and the place,
 * and abort() ends the process before the open write transaction can
 * commit, so nothing of the broken write reaches the disk.
 *
 * Unlike assert(3), NDEBUG does not turn these off: a Release kixd holds
 * the same evidence as a Debug one. Keep the expressions cheap.
 */
#ifndef KIX_ASSERT_H
#define KIX_ASSERT_H

#if defined(__GNUC__) || defined(__clang__)
#define KIX__NORETURN  __attribute__((noreturn))
#define KIX__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define KIX__NORETURN
#define KIX__LIKELY(x) (x)
#endif

#define KIX_ASSERT(expr)                                                                           \
    (KIX__LIKELY(expr) ? (void)0 : kix__assert_fail(#expr, __FILE__, __LINE__, __func__))

/* Prints "kix: invariant broken …" to stderr and aborts. */
KIX__NORETURN void kix__assert_fail(const char *expr, const char *file, int line, const char *func);

#endif
