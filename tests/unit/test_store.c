/* The LMDB object store: round trips, idempotence, map growth, reopen. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kix/file.h"
#include "kix/store.h"

static char *temp_dir(void)
{
    char *d = strdup("/tmp/kix-test-store-XXXXXX");
    return mkdtemp(d);
}

static void remove_dir(char *d)
{
    if (kix_dir_remove_tree(d, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", d);
    free(d);
}

static int put_text(struct kix_store *s, const char *json, struct kix_digest *d, int *created,
                    struct kix_err *err)
{
    return kix_store_put(s, (const uint8_t *)json, strlen(json), d, created, err);
}

KIX_TEST(put_get_roundtrip)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_digest d, want;
    struct kix_buf out = KIX_BUF_INIT;
    int created = -1;
    const char *canon = "{\"a\":[1,2],\"b\":\"x\"}";

    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{ \"b\": \"x\", \"a\": [1, 2.0] }", &d, &created, &err));
    ASSERT_EQ_INT(1, created);
    kix_digest_of(canon, strlen(canon), &want);
    ASSERT_EQ_MEM(want.b, 32, d.b, 32);
    ASSERT_EQ_INT(KIX_OK, kix_store_get(s, &d, &out, &err));
    ASSERT_EQ_MEM(canon, strlen(canon), out.ptr, out.len);
    ASSERT_EQ_INT(1, kix_store_has(s, &d));
    /* idempotent: the same object (any formatting) is stored once */
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{\"a\":[1,2],\"b\":\"x\"}", &d, &created, &err));
    ASSERT_EQ_INT(0, created);
    uint64_t n = 0;
    ASSERT_EQ_INT(KIX_OK, kix_store_count(s, &n));
    ASSERT_EQ_U64(1, n);
    kix_buf_release(&out);
    kix_store_close(s);
    remove_dir(dir);
}

KIX_TEST(missing_object_and_bad_input)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_digest d;
    struct kix_buf out = KIX_BUF_INIT;
    uint64_t n = 9;

    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    memset(d.b, 0xab, 32);
    ASSERT_EQ_INT(0, kix_store_has(s, &d));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_store_get(s, &d, &out, &err));
    ASSERT_CONTAINS(err.msg, "sha256:abab");
    ASSERT_EQ_INT(KIX_EINVAL, put_text(s, "{\"a\":1,\"a\":2}", &d, NULL, &err));
    ASSERT_CONTAINS(err.msg, "duplicate object key");
    ASSERT_EQ_INT(KIX_EINVAL, put_text(s, "[1]", &d, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_count(s, &n));
    ASSERT_EQ_U64(0, n); /* nothing stored by a rejected put */
    kix_buf_release(&out);
    kix_store_close(s);
    remove_dir(dir);
}

KIX_TEST(missing_references)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_digest d, *missing = NULL;
    size_t n = 0;
    char doc[512], text[KIX_DIGEST_TEXT_LEN + 1];

    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{\"kind\":\"Workload\"}", &d, NULL, &err));
    kix_digest_format(&d, text);
    snprintf(doc, sizeof(doc),
             "{\"w\":\"%s\",\"p\":\"sha256:00000000000000000000000000000000000000000000000000"
             "00000000000001\"}",
             text);
    ASSERT_EQ_INT(KIX_OK,
                  kix_store_missing_refs(s, (const uint8_t *)doc, strlen(doc), &missing, &n, &err));
    ASSERT_EQ_INT(1, n);
    ASSERT_EQ_INT(1, missing[0].b[31]);
    free(missing);
    kix_store_close(s);
    remove_dir(dir);
}

static void put_many(struct kix_store *s, int from, int to, size_t pad, int *failed_rc,
                     struct kix_err *err)
{
    char *doc = malloc(pad + 64);
    *failed_rc = KIX_OK;
    for (int i = from; i < to; i++) {
        struct kix_digest d;
        int n = snprintf(doc, 64, "{\"i\":%d,\"pad\":\"", i);
        memset(doc + n, 'x', pad);
        memcpy(doc + n + pad, "\"}", 3);
        int rc = kix_store_put(s, (const uint8_t *)doc, strlen(doc), &d, NULL, err);
        if (rc) {
            *failed_rc = rc;
            break;
        }
    }
    free(doc);
}

KIX_TEST(map_growth_and_reopen)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_store_opts opts;
    uint64_t n = 0;
    int rc;

    memset(&opts, 0, sizeof(opts));
    /* 64 KiB, below what the records of 1,000 objects need (layout 4
     * keeps their bytes in log.dat, outside the map: a locator and a
     * digest record each, with the pages copy on write frees) */
    opts.map_initial = 64 << 10;
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, &opts, &s, &err));
    put_many(s, 0, 1000, 4000, &rc, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    ASSERT_EQ_INT(KIX_OK, rc);
    ASSERT_TRUE(kix_store_map_size(s) > (size_t)(64 << 10)); /* it grew */
    kix_store_close(s);

    /* reopen with the default size: everything is there */
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_count(s, &n));
    ASSERT_EQ_U64(1000, n);
    const char *probe = "{\"i\":999,\"pad\":\"";
    (void)probe;
    kix_store_close(s);
    remove_dir(dir);
}

/* Whether every map of DIR/name in this process is advised huge pages
 * (VmFlags "hg" in /proc/self/smaps): 1 yes, 0 no, -1 no map of it. */
static int maps_advised(const char *dir, const char *name)
{
    char want[4200], line[4600];
    int in = 0, seen = 0, all = 1;
    FILE *f = fopen("/proc/self/smaps", "r");

    snprintf(want, sizeof(want), "%s/%s\n", dir, name);
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        const char *path = strchr(line, '/');
        if (strspn(line, "0123456789abcdef-") > 8 && line[strspn(line, "0123456789abcdef-")] == ' ')
            in = path && strcmp(path, want) == 0; /* a map's first line */
        else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            seen = 1;
            all &= strstr(line, " hg") != NULL;
        }
    }
    fclose(f);
    return seen ? all : -1;
}

/* kix_store_opts.large_pages: every map of data.mdb and log.dat is advised
 * huge pages, a map LMDB made anew when it grew too; without it none is. */
KIX_TEST(large_pages_advise_every_map)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_store_opts opts;
    struct kix_digest d;
    struct kix_buf out = KIX_BUF_INIT;
    int created, rc;

    if (access("/sys/kernel/mm/transparent_hugepage", F_OK) != 0) {
        fprintf(stderr, "skip: this kernel has no transparent huge pages\n");
        remove_dir(dir);
        return;
    }
    memset(&opts, 0, sizeof(opts));
    opts.map_initial = 64 << 10; /* grows below: LMDB maps the file anew */
    opts.large_pages = 1;
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, &opts, &s, &err));
    put_many(s, 0, 1000, 4000, &rc, &err);
    ASSERT_EQ_INT(KIX_OK, rc);
    ASSERT_TRUE(kix_store_map_size(s) > (size_t)(64 << 10));
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{\"large\":1}", &d, &created, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_get(s, &d, &out, &err)); /* log.dat mapped */
    ASSERT_EQ_INT(1, maps_advised(dir, "data.mdb"));
    ASSERT_EQ_INT(1, maps_advised(dir, "log.dat"));
    kix_store_close(s);
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_get(s, &d, &out, &err));
    ASSERT_EQ_INT(0, maps_advised(dir, "data.mdb"));
    ASSERT_EQ_INT(0, maps_advised(dir, "log.dat"));
    kix_store_close(s);
    kix_buf_release(&out);
    remove_dir(dir);
}

KIX_TEST(map_ceiling_leaves_store_intact)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_store_opts opts;
    uint64_t before = 0, after = 0;
    int rc;

    memset(&opts, 0, sizeof(opts));
    opts.map_initial = 1 << 20;
    opts.map_max = 2 << 20;
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, &opts, &s, &err));
    put_many(s, 0, 100000, 4000, &rc, &err);
    ASSERT_EQ_INT(KIX_EFULL, rc);
    ASSERT_CONTAINS(err.msg, "ceiling");
    ASSERT_EQ_INT(KIX_OK, kix_store_count(s, &before));
    ASSERT_TRUE(before > 100);
    kix_store_close(s);
    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_count(s, &after));
    ASSERT_EQ_U64(before, after);
    /* with room again, writes resume */
    put_many(s, 200000, 200010, 4000, &rc, &err);
    ASSERT_EQ_INT(KIX_OK, rc);
    kix_store_close(s);
    remove_dir(dir);
}

KIX_TEST(reader_sees_snapshot_while_writer_commits)
{
    char *dir = temp_dir();
    struct kix_store *s = NULL;
    struct kix_reader *r = NULL;
    struct kix_err err = {0};
    struct kix_digest d1, d2;
    struct kix_bytes v;

    ASSERT_EQ_INT(KIX_OK, kix_store_open(dir, NULL, &s, &err));
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{\"n\":1}", &d1, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_store_read_begin(s, &r));
    /* the writer is not blocked by the open read transaction */
    ASSERT_EQ_INT(KIX_OK, put_text(s, "{\"n\":2}", &d2, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_reader_get(r, &d1, &v));
    ASSERT_EQ_MEM("{\"n\":1}", 7, v.ptr, v.len);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_reader_get(r, &d2, &v));
    kix_store_read_end(r);
    ASSERT_EQ_INT(1, kix_store_has(s, &d2));
    kix_store_close(s);
    remove_dir(dir);
}

KIX_TEST(open_errors)
{
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_store_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.read_only = 1;
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_store_open("/nonexistent/kix/store", &opts, &s, &err));
    ASSERT_CONTAINS(err.msg, "/nonexistent/kix/store");
    ASSERT_TRUE(s == NULL);
}

KIX_TEST_MAIN()
