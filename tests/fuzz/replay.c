/* tests/fuzz/replay.c — runs a fuzz target without libFuzzer.
 *
 *   fuzz_NAME_replay PATH...
 *
 * Calls LLVMFuzzerTestOneInput once per file: each PATH is a file or a
 * directory whose regular files are taken in name order (a corpus). Each
 * input is copied into a buffer of exactly its size, so the sanitizers see
 * overreads as they would under libFuzzer. A target signals a bug by
 * crashing or aborting; replay exits 0 after the last input, and 2 when a
 * path cannot be read or holds no input at all (an empty corpus would
 * otherwise pass unnoticed). CTest runs it as fuzz.replay.NAME.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long len;
    int rc = -1;

    if (!f)
        goto out;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    data = malloc(len ? (size_t)len : 1);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len)
        goto out;
    LLVMFuzzerTestOneInput(data, (size_t)len);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "replay: cannot read %s\n", path);
    free(data);
    if (f)
        fclose(f);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir in name order; returns the count or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    char **names = NULL, **grown, path[4096];
    size_t n = 0, cap = 0;
    long done = 0;

    if (!d) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            grown = realloc(names, cap * sizeof(*names));
            if (!grown)
                abort();
            names = grown;
        }
        if (!(names[n++] = strdup(e->d_name)))
            abort();
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (done >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            done = replay_file(path) ? -1 : done + 1;
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    struct stat st;
    long total = 0, n;

    for (int i = 1; i < argc; i++) {
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 2;
        }
        n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) ? -1 : 1;
        if (n < 0)
            return 2;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no input found; give corpus directories or files\n");
        return 2;
    }
    printf("replayed %ld inputs\n", total);
    return 0;
}
