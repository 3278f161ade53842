/* C2SP tlog-tiles: resource paths (kix/tlog_path.h), the resources read
 * from a log snapshot and the static export (kix/tlog_tiles.h). */
#include <dirent.h>
#include "fixture.h"
#include "kix/object_pack.h"
#include "kix/tlog_tiles.h"

static void path_of(enum kix_tlog_kind kind, uint32_t level, uint64_t index, unsigned width,
                    char *out, size_t cap)
{
    struct kix_tlog_path p = {kind, level, index, width};
    if (kix_tlog_path_format(&p, out, cap) != KIX_OK)
        out[0] = '\0';
}

KIX_TEST(path_examples)
{
    char s[KIX_TLOG_PATH_MAX + 1];
    struct kix_tlog_path p;

    ASSERT_EQ_INT(KIX_OK, kix_tlog_index_format(1234067, s, sizeof(s)));
    ASSERT_EQ_STR("x001/x234/067", s);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_index_format(5, s, sizeof(s)));
    ASSERT_EQ_STR("005", s);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_index_format(1000, s, sizeof(s)));
    ASSERT_EQ_STR("x001/000", s);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_index_format(UINT64_MAX, s, sizeof(s)));
    ASSERT_EQ_STR("x018/x446/x744/x073/x709/x551/615", s);
    path_of(KIX_TLOG_TILE, 0, 1234067, 256, s, sizeof(s));
    ASSERT_EQ_STR("tile/0/x001/x234/067", s);
    path_of(KIX_TLOG_TILE, 2, 0, 1, s, sizeof(s));
    ASSERT_EQ_STR("tile/2/000.p/1", s);
    path_of(KIX_TLOG_ENTRIES, 0, 2, 190, s, sizeof(s));
    ASSERT_EQ_STR("tile/entries/002.p/190", s);
    path_of(KIX_TLOG_CHECKPOINT, 0, 0, 0, s, sizeof(s));
    ASSERT_EQ_STR("checkpoint", s);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_path_parse("tile/63/x001/x234/067.p/255", 27, &p));
    ASSERT_EQ_INT(KIX_TLOG_TILE, p.kind);
    ASSERT_EQ_INT(63, p.level);
    ASSERT_EQ_U64(1234067, p.index);
    ASSERT_EQ_INT(255, p.width);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_path_parse("tile/entries/000", 16, &p));
    ASSERT_EQ_INT(KIX_TLOG_ENTRIES, p.kind);
    ASSERT_EQ_INT(256, p.width);
    ASSERT_EQ_INT(KIX_OK, kix_tlog_path_parse("checkpoint", 10, &p));
    ASSERT_EQ_INT(KIX_TLOG_CHECKPOINT, p.kind);
    {
        struct kix_tlog_path bad = {KIX_TLOG_TILE, 64, 0, 256};
        ASSERT_EQ_INT(KIX_EINVAL, kix_tlog_path_format(&bad, s, sizeof(s)));
        bad.level = 0;
        bad.width = 0;
        ASSERT_EQ_INT(KIX_EINVAL, kix_tlog_path_format(&bad, s, sizeof(s)));
        bad.width = 1;
        ASSERT_EQ_INT(KIX_ELIMIT, kix_tlog_path_format(&bad, s, 8));
    }
}

/* Every other spelling of a resource is refused: one name each. */
KIX_TEST(path_rejects)
{
    static const char *const bad[] = {"",
                                      "checkpoint/",
                                      "Checkpoint",
                                      "tile",
                                      "tile/",
                                      "tile/0",
                                      "tile/0/",
                                      "tile/0/1",
                                      "tile/0/01",
                                      "tile/0/0000",
                                      "tile/0/x000/001",
                                      "tile/0/x1/001",
                                      "tile/0/x001",
                                      "tile/0/x001/",
                                      "tile/0/001/",
                                      "tile/0/001.p/",
                                      "tile/0/001.p/0",
                                      "tile/0/001.p/256",
                                      "tile/0/001.p/01",
                                      "tile/0/001.p/1x",
                                      "tile/0/001.p1",
                                      "tile/00/001",
                                      "tile/64/001",
                                      "tile/-1/001",
                                      "tile/ 1/001",
                                      "tile/entries",
                                      "tile/entries/",
                                      "tile/entries/1",
                                      "tile/entries/001/002",
                                      "tile/0/x018/x446/x744/x073/x709/x551/616",
                                      "tile/0/x999/x999/x999/x999/x999/x999/x999/999",
                                      "tile/0/000?x",
                                      "/checkpoint",
                                      "tile/0/+01",
                                      "tile/0/x001/x002/x003"};
    struct kix_tlog_path p;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (kix_tlog_path_parse(bad[i], strlen(bad[i]), &p) != KIX_EINVAL)
            KIX_FAIL_AT("\"%s\" was accepted", bad[i]);
    }
    /* a NUL inside is not the end */
    ASSERT_EQ_INT(KIX_EINVAL, kix_tlog_path_parse("tile/0/000\0", 11, &p));
}

KIX_TEST(path_round_trip)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;

    for (int i = 0; i < 20000; i++) {
        struct kix_tlog_path p, q;
        char s[KIX_TLOG_PATH_MAX + 1];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p.kind = (x & 1) ? KIX_TLOG_TILE : KIX_TLOG_ENTRIES;
        p.level = p.kind == KIX_TLOG_TILE ? (uint32_t)((x >> 1) % 64) : 0;
        p.index = x >> ((x >> 8) % 64);
        p.width = (unsigned)((x >> 20) % 256) + 1;
        ASSERT_EQ_INT(KIX_OK, kix_tlog_path_format(&p, s, sizeof(s)));
        ASSERT_EQ_INT(KIX_OK, kix_tlog_path_parse(s, strlen(s), &q));
        ASSERT_TRUE(p.kind == q.kind && p.level == q.level && p.index == q.index &&
                    p.width == q.width);
    }
}

/* The spec's example: a tree of 70,000 entries. */
KIX_TEST(widths_of_the_spec_example)
{
    ASSERT_EQ_INT(256, kix_tlog_tile_width(70000, 0, 272));
    ASSERT_EQ_INT(112, kix_tlog_tile_width(70000, 0, 273));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(70000, 0, 274));
    ASSERT_EQ_INT(256, kix_tlog_tile_width(70000, 1, 0));
    ASSERT_EQ_INT(17, kix_tlog_tile_width(70000, 1, 1));
    ASSERT_EQ_INT(1, kix_tlog_tile_width(70000, 2, 0));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(70000, 3, 0));
    /* 256: one full level-0 tile and a level-1 tile of width 1 */
    ASSERT_EQ_INT(256, kix_tlog_tile_width(256, 0, 0));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(256, 0, 1));
    ASSERT_EQ_INT(1, kix_tlog_tile_width(256, 1, 0));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(0, 0, 0));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(UINT64_MAX, 63, 0));
    ASSERT_EQ_INT(0, kix_tlog_tile_width(UINT64_MAX, 0, UINT64_MAX));
    ASSERT_EQ_INT(255, kix_tlog_tile_width(UINT64_MAX, 7, 0));
}

/* A log of `n` entries (entry 0, three keys, publications). */
static void grow(struct fixture *f, int from, uint64_t n)
{
    for (int i = from; log_size(f) < n; i++) {
        char id[32];
        struct kix_append_result res;
        snprintf(id, sizeof(id), "run-%d", i);
        if (publish(f, f->publisher, id, i, &res, NULL) != KIX_OK || res.code != KIX_OK)
            abort();
    }
}

KIX_TEST(resources_from_a_snapshot)
{
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_err err = {0};
    const uint8_t *p;

    setup(&f);
    grow(&f, 0, 300);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    /* level 0: the leaf hashes */
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_tlog_tile(r, 0, 0, 256, &b, &err));
    ASSERT_EQ_U64(8192, b.len);
    for (uint64_t i = 0; i < 256; i += 17) {
        struct kix_hash h;
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_leaf_hash(r, i, &h, &err));
        ASSERT_EQ_MEM(h.b, 32, b.ptr + 32 * i, 32);
    }
    /* the partial tile at 300 and every narrower one (older checkpoints) */
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_tlog_tile(r, 0, 1, 44, &b, &err));
    ASSERT_EQ_U64(44 * 32, b.len);
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_tlog_tile(r, 0, 1, 3, &b, &err));
    ASSERT_EQ_U64(3 * 32, b.len);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_tlog_tile(r, 0, 1, 45, &b, &err));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_tlog_tile(r, 0, 1, 256, &b, &err));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_tlog_tile(r, 0, 2, 1, &b, &err));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_tlog_tile(r, 1, 0, 2, &b, &err));
    /* level 1, width 1: the root of the first 256 leaves */
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_tlog_tile(r, 1, 0, 1, &b, &err));
    {
        struct kix_hash root;
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_root(r, 256, &root, &err));
        ASSERT_EQ_MEM(root.b, 32, b.ptr, 32);
    }
    /* a bundle: length-prefixed leaves */
    kix_buf_reset(&b);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_tlog_bundle(r, 1, 44, &b, &err));
    p = b.ptr;
    for (uint64_t i = 256; i < 300; i++) {
        struct kix_bytes leaf;
        size_t len = (size_t)p[0] << 8 | p[1];
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_entry(r, i, &leaf));
        ASSERT_EQ_MEM(leaf.ptr, leaf.len, p + 2, len);
        p += 2 + len;
    }
    ASSERT_TRUE(p == b.ptr + b.len);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_tlog_bundle(r, 1, 45, &b, &err));
    kix_log_read_end(r);
    kix_buf_release(&b);
    teardown(&f);
}

static int exists(const char *dir, const char *rel)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    return access(path, F_OK) == 0;
}

KIX_TEST(export_grows_and_keeps_partials)
{
    struct fixture f;
    struct kix_tlog_export_stats st;
    struct kix_err err = {0};
    struct kix_buf have = KIX_BUF_INIT, want = KIX_BUF_INIT;
    struct kix_log_reader *r;
    char *out = temp_dir(), path[4200];

    setup(&f);
    grow(&f, 0, 250);
    ASSERT_EQ_INT(KIX_OK, kix_log_export_tlog(f.log, out, &st, &err));
    ASSERT_EQ_U64(0, st.from_size);
    ASSERT_EQ_U64(250, st.size);
    ASSERT_TRUE(exists(out, "tile/0/000.p/250") && exists(out, "tile/entries/000.p/250"));
    /* every commit made a checkpoint: each one's partial tile is there */
    ASSERT_TRUE(exists(out, "tile/0/000.p/1") && exists(out, "tile/0/000.p/137"));
    grow(&f, 1000, 260);
    ASSERT_EQ_INT(KIX_OK, kix_log_export_tlog(f.log, out, &st, &err));
    ASSERT_EQ_U64(250, st.from_size);
    ASSERT_EQ_U64(260, st.size);
    ASSERT_TRUE(exists(out, "tile/0/000") && exists(out, "tile/entries/000"));
    ASSERT_TRUE(exists(out, "tile/0/001.p/4") && exists(out, "tile/1/000.p/1"));
    ASSERT_TRUE(exists(out, "tile/0/000.p/250")); /* never deleted */
    snprintf(path, sizeof(path), "%s/checkpoint", out);
    ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 1 << 20, &have, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint_cosigned(r, KIX_NO_INDEX, &want, &err));
    kix_log_read_end(r);
    ASSERT_EQ_MEM(want.ptr, want.len, have.ptr, have.len);
    /* up to date: nothing written */
    ASSERT_EQ_INT(KIX_OK, kix_log_export_tlog(f.log, out, &st, &err));
    ASSERT_EQ_U64(0, st.files);
    /* a checkpoint that is not this log's at its size: everything again */
    ASSERT_EQ_INT(KIX_OK, kix_file_write_atomic(path, "other.log\n100\nAAAA\n", 19, 0644, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_export_tlog(f.log, out, &st, &err));
    ASSERT_EQ_U64(0, st.from_size);
    ASSERT_TRUE(st.files > 4);
    kix_buf_release(&have);
    kix_buf_release(&want);
    teardown(&f);
    remove_dir(out);
}

/* Batched writes (an export's): new files and replaced ones hold exactly
 * their bytes, no temporary file is left, and the one sync reports a
 * directory it cannot open. */
KIX_TEST(batched_writes_and_one_sync)
{
    char *dir = temp_dir(), path[4200], missing[4200];
    struct kix_buf have = KIX_BUF_INIT;
    struct kix_err err = {0};
    DIR *d;
    struct dirent *de;
    size_t files = 0;

    snprintf(path, sizeof(path), "%s/tile", dir);
    ASSERT_EQ_INT(KIX_OK, kix_file_write_batched(path, "new", 3, 0644, &err));
    ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 64, &have, &err));
    ASSERT_EQ_MEM("new", 3, have.ptr, have.len);
    ASSERT_EQ_INT(KIX_OK, kix_file_write_batched(path, "replaced", 8, 0644, &err));
    kix_buf_reset(&have);
    ASSERT_EQ_INT(KIX_OK, kix_file_read(path, 64, &have, &err));
    ASSERT_EQ_MEM("replaced", 8, have.ptr, have.len);
    ASSERT_EQ_INT(KIX_OK, kix_dir_sync(dir, &err));
    d = opendir(dir);
    ASSERT_TRUE(d != NULL);
    while ((de = readdir(d)) != NULL)
        files += de->d_name[0] != '.';
    closedir(d);
    ASSERT_EQ_U64(1, files);
    snprintf(missing, sizeof(missing), "%s/no-such-dir", dir);
    ASSERT_EQ_INT(KIX_EIO, kix_dir_sync(missing, &err));
    ASSERT_CONTAINS(err.msg, "no-such-dir");
    snprintf(path, sizeof(path), "%s/no-such-dir/x", dir);
    ASSERT_EQ_INT(KIX_EIO, kix_file_write_batched(path, "x", 1, 0644, &err));
    kix_buf_release(&have);
    remove_dir(dir);
}

/* kix/object_pack.h: what a reader takes from a pack it cannot trust */
KIX_TEST(object_pack_format)
{
    static const uint8_t cut[] = {0, 0, 0, 9, '{', '}'}, short_head[] = {0, 0, 1};
    static const uint8_t too_big[] = {0x01, 0x00, 0x00, 0x01, 'x'}; /* 16 MiB + 1 */
    struct kix_buf pack = KIX_BUF_INIT;
    char path[KIX_OBJECT_PACK_PATH_MAX];
    const uint8_t *obj;
    size_t off = 0, len, had;

    ASSERT_EQ_INT(KIX_OK, kix_object_pack_path(1234067, path, sizeof(path)));
    ASSERT_EQ_STR("objects/entries/x001/x234/067", path);
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_path(UINT64_MAX, path, sizeof(path)));
    ASSERT_EQ_INT(KIX_ELIMIT, kix_object_pack_path(0, path, 10));
    /* round trip, an empty object included; the end is KIX_ENOTFOUND */
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_add(&pack, (const uint8_t *)"{}", 2));
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_add(&pack, (const uint8_t *)"", 0));
    ASSERT_EQ_U64(10, pack.len);
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_next(pack.ptr, pack.len, &off, &obj, &len));
    ASSERT_EQ_MEM("{}", 2, obj, len);
    ASSERT_EQ_INT(KIX_OK, kix_object_pack_next(pack.ptr, pack.len, &off, &obj, &len));
    ASSERT_EQ_U64(0, len);
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_object_pack_next(pack.ptr, pack.len, &off, &obj, &len));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_object_pack_next(NULL, 0, &(size_t){0}, &obj, &len));
    /* a length past the end, a cut length, an object over its bound */
    off = 0;
    ASSERT_EQ_INT(KIX_EPROTO, kix_object_pack_next(cut, sizeof(cut), &off, &obj, &len));
    ASSERT_EQ_U64(0, off);
    ASSERT_EQ_INT(KIX_EPROTO,
                  kix_object_pack_next(short_head, sizeof(short_head), &off, &obj, &len));
    ASSERT_EQ_INT(KIX_EPROTO, kix_object_pack_next(too_big, sizeof(too_big), &off, &obj, &len));
    /* the writer's bounds leave the pack as it was */
    had = pack.len;
    ASSERT_EQ_INT(KIX_ELIMIT,
                  kix_object_pack_add(&pack, pack.ptr, (size_t)KIX_OBJECT_PACK_OBJECT + 1));
    pack.len = KIX_OBJECT_PACK_MAX - 5; /* as if nearly full: only the length is looked at */
    ASSERT_EQ_INT(KIX_ELIMIT, kix_object_pack_add(&pack, (const uint8_t *)"{}", 2));
    ASSERT_EQ_U64(KIX_OBJECT_PACK_MAX - 5, pack.len);
    pack.len = had;
    kix_buf_release(&pack);
}

/* kix_log_reader_object_pack: only full bundles; the objects in the
 * order of an export, each once */
KIX_TEST(object_pack_of_a_bundle)
{
    struct fixture f;
    struct kix_log_reader *r;
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_err err = {0};
    size_t off = 0, n = 0, len;
    const uint8_t *obj;
    int rc;

    setup(&f);
    grow(&f, 0, 300);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_ENOTFOUND, kix_log_reader_object_pack(r, 1, &b, &err));
    ASSERT_CONTAINS(err.msg, "not full");
    ASSERT_EQ_U64(0, b.len);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_object_pack(r, 0, &b, &err));
    while ((rc = kix_object_pack_next(b.ptr, b.len, &off, &obj, &len)) == KIX_OK) {
        struct kix_digest d;
        struct kix_bytes v;
        kix_digest_of(obj, len, &d);
        ASSERT_EQ_INT(KIX_OK, kix_log_reader_object(r, &d, &v));
        ASSERT_EQ_MEM(v.ptr, v.len, obj, len);
        n++;
    }
    ASSERT_EQ_INT(KIX_ENOTFOUND, rc);
    ASSERT_TRUE(n >= 1);
    kix_log_read_end(r);
    kix_buf_release(&b);
    teardown(&f);
}

KIX_TEST_MAIN()
