/* Crash-safe writes (kix/file.h) from several threads of one process: a
 * daemon's workers may write the same file at once (a page, a bundle, a
 * state file), and each write must stay whole, its temporary file its own. */
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

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

/* kix_file_tree_link: a store's file goes into an export's tree as a hard
 * link only when it holds exactly the bytes given; anything else (a byte
 * changed, a longer or shorter file, none) is left for the caller to
 * write, and linking again over the tree's own name leaves no temporary. */
KIX_TEST(a_tree_links_only_a_file_of_exactly_the_bytes)
{
    char *dir = temp_dir(), src[256], tree_dir[256], rel_path[300];
    static const char bytes[] = "a full bundle's bytes";
    struct kix_file_tree t = {.dir = tree_dir, .mode = 0644};
    struct kix_err err = {0};
    struct stat a, b;
    struct dirent *e;
    DIR *d;
    int others = 0;

    snprintf(src, sizeof(src), "%s/store.0", dir);
    snprintf(tree_dir, sizeof(tree_dir), "%s/copy", dir);
    snprintf(rel_path, sizeof(rel_path), "%s/tile/entries/000", tree_dir);
    ASSERT_EQ_INT(0, kix_file_tree_link(&t, "tile/entries/000", src, bytes, sizeof(bytes)));
    ASSERT_EQ_INT(KIX_OK, kix_file_write_atomic(src, bytes, sizeof(bytes), 0644, &err));
    /* other bytes of the same length, fewer, more: not linked */
    {
        char other[sizeof(bytes)];
        memcpy(other, bytes, sizeof(bytes));
        other[3] ^= 1;
        ASSERT_EQ_INT(0, kix_file_tree_link(&t, "tile/entries/000", src, other, sizeof(other)));
    }
    ASSERT_EQ_INT(0, kix_file_tree_link(&t, "tile/entries/000", src, bytes, sizeof(bytes) - 1));
    ASSERT_EQ_INT(KIX_OK, kix_file_write_atomic(src, bytes, sizeof(bytes) - 1, 0644, &err));
    ASSERT_EQ_INT(0, kix_file_tree_link(&t, "tile/entries/000", src, bytes, sizeof(bytes)));
    ASSERT_TRUE(stat(rel_path, &a) != 0);
    /* the same bytes: one inode, twice over (the second a no-op rename) */
    ASSERT_EQ_INT(KIX_OK, kix_file_write_atomic(src, bytes, sizeof(bytes), 0644, &err));
    for (int i = 0; i < 2; i++) {
        ASSERT_EQ_INT(1, kix_file_tree_link(&t, "tile/entries/000", src, bytes, sizeof(bytes)));
        ASSERT_EQ_INT(0, stat(src, &a));
        ASSERT_EQ_INT(0, stat(rel_path, &b));
        ASSERT_TRUE(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    }
    snprintf(rel_path, sizeof(rel_path), "%s/tile/entries", tree_dir);
    ASSERT_TRUE((d = opendir(rel_path)) != NULL);
    while ((e = readdir(d)) != NULL)
        others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "000");
    closedir(d);
    ASSERT_EQ_INT(0, others);
    remove_dir(dir);
}

KIX_TEST_MAIN()
