/* Crash-safe writes (kix/file.h) from several threads of one process: a
 * daemon's workers may write the same file at once (a page, a bundle, a
 * state file), and each write must stay whole, its temporary file its own. */
#include <dirent.h>
#include <pthread.h>

#include "fixture.h"
#include "kix/file.h"

#define WRITERS 4
#define WRITES  150
#define BYTES   (48 << 10)

struct writer {
    const char *path;
    int id, failures;
    char first_error[KIX_ERR_MSG_MAX];
};

static void *write_many(void *arg)
{
    struct writer *w = arg;
    static char data[WRITERS][BYTES];

    memset(data[w->id], 'a' + w->id, BYTES);
    for (int i = 0; i < WRITES; i++) {
        struct kix_err err = {0};
        if (kix_file_write_atomic(w->path, data[w->id], BYTES, 0644, &err) != KIX_OK &&
            w->failures++ == 0)
            snprintf(w->first_error, sizeof(w->first_error), "%s", err.msg);
    }
    return NULL;
}

KIX_TEST(threads_writing_one_file_each_write_it_whole)
{
    char *dir = temp_dir(), path[256];
    struct writer w[WRITERS];
    pthread_t t[WRITERS];
    struct kix_buf got = KIX_BUF_INIT;
    struct dirent *e;
    DIR *d;
    int others = 0;

    snprintf(path, sizeof(path), "%s/shared", dir);
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (struct writer){path, i, 0, ""};
        ASSERT_EQ_INT(0, pthread_create(&t[i], NULL, write_many, &w[i]));
    }
    for (int i = 0; i < WRITERS; i++)
        ASSERT_EQ_INT(0, pthread_join(t[i], NULL));
    for (int i = 0; i < WRITERS; i++) {
        if (w[i].failures)
            fprintf(stderr, "writer %d: %d failed writes, the first: %s\n", i, w[i].failures,
                    w[i].first_error);
        ASSERT_EQ_INT(0, w[i].failures);
    }
    /* one writer's bytes, all of them */
    ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 2 * BYTES, &got, NULL));
    ASSERT_EQ_U64(BYTES, got.len);
    for (size_t i = 1; i < got.len; i++)
        if (got.ptr[i] != got.ptr[0])
            ASSERT_EQ_U64(0, i); /* the first byte of another writer's */
    /* and no temporary file left beside it */
    ASSERT_TRUE((d = opendir(dir)) != NULL);
    while ((e = readdir(d)) != NULL)
        others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "shared");
    closedir(d);
    ASSERT_EQ_INT(0, others);
    kix_buf_release(&got);
    remove_dir(dir);
}

KIX_TEST_MAIN()
