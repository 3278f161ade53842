/* tests/harness.h — a tiny test harness: each KIX_TEST is its own CTest entry.
 *
 *   KIX_TEST(name) { ASSERT_EQ_INT(1, 1); }
 *   KIX_TEST_MAIN()
 *
 * tests/CMakeLists.txt reads the KIX_TEST(...) lines of each file and adds
 * one CTest entry per case, run as `test_FILE CASE`. Without an argument
 * the binary runs every case. Assertions print both values and fail the case.
 * KIX_TEST_DATA points at tests/ (vectors live under tests/vectors/).
 */
#ifndef KIX_TEST_HARNESS_H
#define KIX_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*kix_test_fn)(void);
struct kix_test_case {
    const char *name;
    kix_test_fn fn;
};

#define KIX_TEST_MAX 256
static struct kix_test_case kix_test_cases[KIX_TEST_MAX];
static int kix_test_ncases;
static int kix_test_failed;
__attribute__((unused)) static int kix_test_skipped; /* KIX_SKIP */

#define KIX_TEST(case_)                                                                            \
    static void test_##case_(void);                                                                \
    __attribute__((constructor)) static void register_##case_(void)                                \
    {                                                                                              \
        if (kix_test_ncases < KIX_TEST_MAX) {                                                      \
            kix_test_cases[kix_test_ncases].name = #case_;                                         \
            kix_test_cases[kix_test_ncases].fn = test_##case_;                                     \
            kix_test_ncases++;                                                                     \
        }                                                                                          \
    }                                                                                              \
    static void test_##case_(void)

#define KIX_FAIL_AT(...)                                                                           \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        kix_test_failed = 1;                                                                       \
        return;                                                                                    \
    } while (0)

#define ASSERT_TRUE(c)                                                                             \
    do {                                                                                           \
        if (!(c))                                                                                  \
            KIX_FAIL_AT("assertion failed: %s", #c);                                               \
    } while (0)

#define ASSERT_EQ_INT(want, got)                                                                   \
    do {                                                                                           \
        long long w_ = (long long)(want), g_ = (long long)(got);                                   \
        if (w_ != g_)                                                                              \
            KIX_FAIL_AT("%s == %s: want %lld, got %lld", #want, #got, w_, g_);                     \
    } while (0)

#define ASSERT_EQ_U64(want, got)                                                                   \
    do {                                                                                           \
        uint64_t w_ = (uint64_t)(want), g_ = (uint64_t)(got);                                      \
        if (w_ != g_)                                                                              \
            KIX_FAIL_AT("%s == %s: want %" PRIu64 ", got %" PRIu64, #want, #got, w_, g_);          \
    } while (0)

#define ASSERT_EQ_STR(want, got)                                                                   \
    do {                                                                                           \
        const char *w_ = (want), *g_ = (got);                                                      \
        if (!w_ || !g_ || strcmp(w_, g_) != 0)                                                     \
            KIX_FAIL_AT("%s == %s:\n  want \"%s\"\n  got  \"%s\"", #want, #got,                    \
                        w_ ? w_ : "(null)", g_ ? g_ : "(null)");                                   \
    } while (0)

#define ASSERT_EQ_MEM(want, wlen, got, glen)                                                       \
    do {                                                                                           \
        size_t wl_ = (size_t)(wlen), gl_ = (size_t)(glen);                                         \
        if (wl_ != gl_ || memcmp((want), (got), wl_) != 0)                                         \
            KIX_FAIL_AT("%s == %s: lengths %zu / %zu\n  want \"%.*s\"\n  got  \"%.*s\"", #want,    \
                        #got, wl_, gl_, (int)(wl_ > 400 ? 400 : wl_), (const char *)(want),        \
                        (int)(gl_ > 400 ? 400 : gl_), (const char *)(got));                        \
    } while (0)

/* The case cannot run in this build: says why and ends it, neither passed
 * nor failed; a run whose every case skipped exits 77 (CTest: skipped). */
#define KIX_SKIP(...)                                                                              \
    do {                                                                                           \
        fprintf(stderr, "skipped: ");                                                              \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        kix_test_skipped = 1;                                                                      \
        return;                                                                                    \
    } while (0)

/* Contains: the message must mention `needle`. */
#define ASSERT_CONTAINS(hay, needle)                                                               \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!h_ || !strstr(h_, n_))                                                                \
            KIX_FAIL_AT("%s should contain \"%s\", got \"%s\"", #hay, n_, h_ ? h_ : "(null)");     \
    } while (0)

#define KIX_TEST_MAIN()                                                                            \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        int ran = 0, failed = 0, skipped = 0;                                                      \
        for (int i = 0; i < kix_test_ncases; i++) {                                                \
            if (argc > 1 && strcmp(argv[1], kix_test_cases[i].name) != 0)                          \
                continue;                                                                          \
            kix_test_failed = 0;                                                                   \
            kix_test_skipped = 0;                                                                  \
            kix_test_cases[i].fn();                                                                \
            ran++;                                                                                 \
            if (kix_test_failed) {                                                                 \
                failed++;                                                                          \
                fprintf(stderr, "FAIL %s\n", kix_test_cases[i].name);                              \
            } else if (kix_test_skipped) {                                                         \
                skipped++;                                                                         \
                fprintf(stderr, "SKIP %s\n", kix_test_cases[i].name);                              \
            }                                                                                      \
        }                                                                                          \
        if (ran == 0) {                                                                            \
            fprintf(stderr, "no test case named %s\n", argc > 1 ? argv[1] : "(any)");              \
            return 2;                                                                              \
        }                                                                                          \
        return failed ? 1 : skipped == ran ? 77 : 0;                                               \
    }

/* Runs argv (no shell) with its standard output on a pipe we read from;
 * kix_test_pipe_close waits for it and returns its exit status (-1 when it
 * did not exit normally). */
static inline FILE *kix_test_pipe_open(char *const argv[], pid_t *pid)
{
    int fds[2];

    if (pipe(fds) != 0)
        return NULL;
    *pid = fork();
    if (*pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    if (*pid < 0) {
        close(fds[0]);
        return NULL;
    }
    return fdopen(fds[0], "r");
}

static inline int kix_test_pipe_close(FILE *f, pid_t pid)
{
    int st;
    fclose(f);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* Reads a whole file under tests/ into a malloc'ed NUL-terminated buffer. */
static inline char *kix_test_read_file(const char *rel, size_t *len)
{
    char path[4096];
    FILE *f;
    char *data = NULL;
    long n;

    snprintf(path, sizeof(path), "%s/%s", KIX_TEST_DATA, rel);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)n + 1);
        if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
        if (data) {
            data[n] = '\0';
            if (len)
                *len = (size_t)n;
        }
    }
    fclose(f);
    return data;
}

#endif
