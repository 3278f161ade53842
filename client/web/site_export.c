/* The static-site writer (kix_pages_export, kix/pages.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kix/entry.h"
#include "kix/file.h"
#include "kix/parallel.h"
#include "kix/json.h"
#include "kix/pages.h"
#include "pages_internal.h"
#include "web_internal.h"

#define ULL unsigned long long

/* ---- export ---------------------------------------------------------------------------- */

struct idset {
    char (*id)[KIX_RUN_ID_MAX + 1];
    size_t n, cap;
};

static int idset_add(struct idset *s, const char *id)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        void *p = realloc(s->id, cap * sizeof(*s->id));
        if (!p)
            return KIX_ENOMEM;
        s->id = p;
        s->cap = cap;
    }
    snprintf(s->id[s->n++], KIX_RUN_ID_MAX + 1, "%s", id);
    return KIX_OK;
}

static int id_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Sorts and drops duplicates. */
static void idset_finish(struct idset *s)
{
    size_t k = 0;

    if (s->n == 0)
        return;
    qsort(s->id, s->n, sizeof(*s->id), id_cmp);
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->id[i], s->id[k]) != 0 && ++k != i)
            memcpy(s->id[k], s->id[i], sizeof(*s->id));
    s->n = k + 1;
}

struct pexport {
    struct kix_source *r;
    const char *dir;
    struct kix_buf body, json; /* a page's HTML and its JSON */
    struct idset runs, groups; /* groups: digest texts */
    struct kix_pages_export_stats *stats;
    struct kix_err *err;
    int upgrade; /* the copy's pages are another layout's: all written again */
    /* the run and group pages' threads: a source of the same snapshot
     * each (kix_pages_export_threads); srcs[0] is r */
    struct kix_source **srcs;
    int threads;
};

/* DIR/sub, where write_pages puts pages: fresh when this export made it.
 * A fresh directory held no page before, and runs/.size, which says the
 * pages of the log up to it are in place, is written only after the
 * pages and a syncfs: a power cut mid-export leaves the mark as it was,
 * and the next export writes every page of the entries after it again
 * (through the temporary file and rename, the names now taken). So a page
 * new in a fresh directory is created under its own name at once
 * (O_CREAT|O_EXCL, no temporary name, no rename) and its .html twin
 * linked to it: 4 system calls a page, not about 14. A page in a
 * directory an earlier export made may replace one a reader is fetching,
 * and goes through kix__export_page. */
struct outdir {
    const char *sub;
    int fd, fresh;
};

static int export_twin(const char *dir, const char *sub, const char *name,
                       const struct kix_buf *body, struct kix_pages_export_stats *stats,
                       struct kix_err *err);

static int outdir_open(struct pexport *x, const char *sub, struct outdir *od)
{
    char path[4400];

    od->sub = sub;
    od->fd = -1;
    od->fresh = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", x->dir, sub) >= sizeof(path))
        return kix_err_set(x->err, KIX_EINVAL, "page path too long");
    if (kix_dir_make(x->dir, 0755, x->err) != KIX_OK)
        return KIX_EIO;
    if (mkdir(path, 0755) == 0)
        od->fresh = 1;
    else if (errno != EEXIST)
        return kix_err_set(x->err, KIX_EIO, "cannot create %s: %s", path, strerror(errno));
    od->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (od->fd < 0)
        return kix_err_set(x->err, KIX_EIO, "cannot open %s: %s", path, strerror(errno));
    return KIX_OK;
}

static void outdir_close(struct outdir *od)
{
    if (od->fd >= 0)
        close(od->fd);
    od->fd = -1;
}

/* od/name holding body, created new (od fresh); 1: the name was taken
 * (written by the caller the old way), 0: written, <0: failed (-rc). */
static int create_new(struct pexport *x, struct outdir *od, const char *name,
                      const struct kix_buf *body)
{
    const uint8_t *p = body->ptr;
    size_t done = 0;
    int fd = openat(od->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

    if (fd < 0 && errno == EEXIST)
        return 1;
    if (fd < 0)
        return -kix_err_set(x->err, KIX_EIO, "cannot create %s/%s/%s: %s", x->dir, od->sub, name,
                            strerror(errno));
    while (done < body->len) {
        ssize_t n = write(fd, p + done, body->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            (void)unlinkat(od->fd, name, 0);
            return -kix_err_set(x->err, KIX_EIO, "cannot write %s/%s/%s: %s", x->dir, od->sub, name,
                                strerror(n < 0 ? e : ENOSPC));
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        (void)unlinkat(od->fd, name, 0);
        return -kix_err_set(x->err, KIX_EIO, "cannot write %s/%s/%s: %s", x->dir, od->sub, name,
                            strerror(errno));
    }
    x->stats->files++;
    x->stats->bytes += body->len;
    return 0;
}

/* A page (twin: and its .html name) or a file into od. */
static int put_file(struct pexport *x, struct outdir *od, const char *name,
                    const struct kix_buf *body, int twin)
{
    char html[KIX_RUN_PAGE_NAME_MAX + 80];
    int rc;

    if (!od->fresh || (rc = create_new(x, od, name, body)) == 1)
        return twin ? kix__export_page(x->dir, od->sub, name, body, x->stats, x->err)
                    : kix__export_file(x->dir, od->sub, name, body, x->stats, x->err);
    if (rc < 0 || !twin)
        return -rc;
    snprintf(html, sizeof(html), "%s.html", name);
    if (linkat(od->fd, name, od->fd, html, 0) == 0) {
        x->stats->files++; /* a name, no bytes */
        return KIX_OK;
    }
    /* no hard links here, or the name taken: kix__export_page's way */
    return export_twin(x->dir, od->sub, name, body, x->stats, x->err);
}

/* DIR/sub (made when missing) and the path DIR/sub/<name><ext> in path. */
static int page_path(const char *dir, const char *sub, const char *name, const char *ext,
                     char *path, size_t cap, struct kix_err *err)
{
    if ((size_t)snprintf(path, cap, "%s%s%s", dir, *sub ? "/" : "", sub) >= cap)
        return kix_err_set(err, KIX_EINVAL, "page path too long");
    if (*sub && kix_dir_make(path, 0755, err) != KIX_OK)
        return KIX_EIO;
    if ((size_t)snprintf(path, cap, "%s%s%s/%s%s", dir, *sub ? "/" : "", sub, name, ext) >= cap)
        return kix_err_set(err, KIX_EINVAL, "page path too long");
    return KIX_OK;
}

int kix__export_file(const char *dir, const char *sub, const char *name, const struct kix_buf *body,
                     struct kix_pages_export_stats *stats, struct kix_err *err)
{
    char path[4400];
    int rc = page_path(dir, sub, name, "", path, sizeof(path), err);

    if (rc == KIX_OK)
        rc = kix_file_write_batched(path, body->ptr, body->len, 0644, err);
    if (rc == KIX_OK) {
        stats->files++;
        stats->bytes += body->len;
    }
    return rc;
}

int kix__export_remove(const char *dir, const char *sub, const char *name, struct kix_err *err)
{
    char path[4400];

    snprintf(path, sizeof(path), "%s%s%s/%s", dir, *sub ? "/" : "", sub, name);
    if (unlink(path) != 0 && errno != ENOENT)
        return kix_err_set(err, KIX_EIO, "cannot remove %s (an older export's file): %s", path,
                           strerror(errno));
    return KIX_OK;
}

/* DIR/sub/<name>.html: the page DIR/sub/<name> again, the name the pages
 * link to, for static servers that type a file by its extension alone
 * (python3 -m http.server, object stores); <name> stays for permalinks.
 * A hard link, so no byte is stored twice, put in place by rename (readers
 * see the old page or the new one); a copy where the file system has no
 * hard links. The temporary name begins with a dot: no page's name does. */
static int export_twin(const char *dir, const char *sub, const char *name,
                       const struct kix_buf *body, struct kix_pages_export_stats *stats,
                       struct kix_err *err)
{
    char from[4400], tmp[4420], to[4420];
    int rc;

    snprintf(from, sizeof(from), "%s%s%s/%s", dir, *sub ? "/" : "", sub, name);
    snprintf(to, sizeof(to), "%s.html", from);
    snprintf(tmp, sizeof(tmp), "%s%s%s/.%s.html.tmp", dir, *sub ? "/" : "", sub, name);
    (void)unlink(tmp); /* left by a crash between link and rename */
    if (link(from, tmp) == 0) {
        if (rename(tmp, to) == 0) {
            stats->files++; /* a name, no bytes */
            return KIX_OK;
        }
        (void)unlink(tmp);
        return kix_err_set(err, KIX_EIO, "cannot rename %s to %s: %s", tmp, to, strerror(errno));
    }
    if (errno != EPERM && errno != ENOTSUP && errno != EXDEV && errno != EMLINK)
        return kix_err_set(err, KIX_EIO, "cannot link %s as %s: %s", from, tmp, strerror(errno));
    rc = kix_file_write_batched(to, body->ptr, body->len, 0644, err);
    if (rc == KIX_OK) {
        stats->files++;
        stats->bytes += body->len;
    }
    return rc;
}

int kix__export_page(const char *dir, const char *sub, const char *name, const struct kix_buf *body,
                     struct kix_pages_export_stats *stats, struct kix_err *err)
{
    int rc = kix__export_file(dir, sub, name, body, stats, err);

    return rc == KIX_OK ? export_twin(dir, sub, name, body, stats, err) : rc;
}

static int write_page(struct pexport *x, const char *sub, const char *name, const char *ext,
                      const struct kix_buf *bytes)
{
    char file[KIX_RUN_PAGE_NAME_MAX + 80];

    snprintf(file, sizeof(file), "%s%s", name, ext);
    return kix__export_file(x->dir, sub, file, bytes, x->stats, x->err);
}

static int add_group_run(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    (void)rank;
    (void)value;
    return idset_add(&((struct pexport *)ctx)->runs, run_id);
}

/* DIR/name holding `bytes`, rewritten only when it differs. */
static int write_static(struct pexport *x, const char *name, const struct kix_bytes *bytes)
{
    struct kix_buf old = KIX_BUF_INIT;
    char path[4400];
    int have, rc = KIX_OK;

    snprintf(path, sizeof(path), "%s/%s", x->dir, name);
    have = kix_file_read(path, 1 << 20, &old, NULL) == KIX_OK;
    if (!have && kix_dir_make(x->dir, 0755, x->err) != KIX_OK)
        rc = KIX_EIO;
    else if (!have || old.len != bytes->len || memcmp(old.ptr, bytes->ptr, bytes->len) != 0) {
        rc = kix_file_write_atomic(path, bytes->ptr, bytes->len, 0644, x->err);
        if (rc == KIX_OK) {
            x->stats->files++;
            x->stats->bytes += bytes->len;
        }
    }
    kix_buf_release(&old);
    return rc;
}

/* The pages' layout (PROTOCOL.md §3, "The static copy's layout"), in
 * DIR/runs/.layout: pages written in another (an older kixd's links name
 * extensionless files, and its kernel pages have no .html twin; layout 2's
 * run pages and views repeat the manifest; layout 3's run views are a
 * second file and repeat the objects and index proofs; layout 4's name
 * each field cell's pointer and embed views that repeat the page; layout
 * 5's write the sentences explaining attestations, the cite text and the
 * tiles into every run page, and its home pages link a home JSON; layout
 * 6's run views repeat their pin, checkpoint and manifest digest) are all
 * written again, so that no page links a file the copy lacks and each
 * run's bytes are there once. */
#define LAYOUT "7\n"

static int layout_current(const char *dir)
{
    struct kix_buf mark = KIX_BUF_INIT;
    char path[4200];
    int same;

    snprintf(path, sizeof(path), "%s/runs/.layout", dir);
    same = kix_file_read(path, 64, &mark, NULL) == KIX_OK && mark.len == strlen(LAYOUT) &&
           memcmp(mark.ptr, LAYOUT, mark.len) == 0;
    kix_buf_release(&mark);
    return same;
}

/* The log size DIR's pages were written for (0: none, or unreadable). */
static uint64_t exported_size(const char *dir)
{
    struct kix_buf mark = KIX_BUF_INIT;
    char path[4200], *end;
    uint64_t from = 0;

    snprintf(path, sizeof(path), "%s/runs/.size", dir);
    if (kix_file_read(path, 64, &mark, NULL) == KIX_OK && mark.len) {
        from = strtoull((const char *)mark.ptr, &end, 10);
        if (end == (const char *)mark.ptr || *end != '\n')
            from = 0;
    }
    kix_buf_release(&mark);
    return from;
}

/* Whether a group has a member now (a run withdrawn or superseded from it
 * leaves its page to rewrite, unless none is left). */
static int group_has_members(struct kix_source *r, const struct kix_digest *key)
{
    uint64_t n = 0;
    return kix_view_group_runs(r, key, 0, 0, NULL, NULL, &n) == KIX_OK && n > 0;
}

/* What an entry is about: its runs, into the export's set. */
static int entry_runs(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct pexport *x = ctx;
    struct kix_entry_summary e;
    int rc = KIX_OK;

    (void)index;
    if (kix_entry_describe(leaf, len, &e, NULL) == KIX_OK) {
        if (e.run_id[0])
            rc = idset_add(&x->runs, e.run_id);
        if (rc == KIX_OK && e.new_run_id[0])
            rc = idset_add(&x->runs, e.new_run_id);
    }
    return rc;
}

/* Every run an entry in [from, size) is is about (ranked or not) and
 * their groups (the group a run's manifest names, also when it left it: a
 * withdrawal closes up its ranks and lists it under them). The other runs
 * of those groups keep their pages: their ranks move, but a page's rank
 * and proofs are what its verifier proves from the index files at the
 * latest checkpoint (kix-verify.js), so an export writes O(new entries)
 * run pages, not O(group size) (ARCHITECTURE.md, "Byte budget per entry:
 * static copy"). */
static int find_pages(struct pexport *x, uint64_t from, uint64_t size)
{
    int rc = kix_view_entries(x->r, from, size - from, entry_runs, x, NULL);

    idset_finish(&x->runs);
    for (size_t i = 0; rc == KIX_OK && i < x->runs.n; i++) {
        struct kix_run_info info;
        char key[KIX_DIGEST_TEXT_LEN + 1];
        static const uint8_t no_group[32];
        if (kix_view_run(x->r, x->runs.id[i], &info) != KIX_OK ||
            memcmp(info.comparison_key.b, no_group, 32) == 0 ||
            /* a withdrawn run's group is written even when it ranks no
             * run any more: its page lists the withdrawals */
            (!info.grouped && info.withdrawn_index == KIX_NO_INDEX &&
             !group_has_members(x->r, &info.comparison_key)))
            continue;
        kix_digest_format(&info.comparison_key, key);
        rc = idset_add(&x->groups, key);
    }
    idset_finish(&x->groups);
    return rc ? kix_err_set(x->err, rc, "finding the pages to write: %s", kix_strerror(rc))
              : KIX_OK;
}

/* A page's HTML and JSON from one view (pages_internal.h). */
typedef int (*page_fn)(struct kix_source *r, const char *id, size_t len, struct kix_buf *html,
                       struct kix_buf *json, struct kix_err *err);

static int group_first_page(struct kix_source *r, const char *key, size_t len, struct kix_buf *html,
                            struct kix_buf *json, struct kix_err *err)
{
    return kix__page_group_both(r, key, len, 1, KIX_PAGE_EXPORTED, html, json, err);
}

/* The name of run `id`'s files (kix_run_page_name) into name; for an id
 * outside the grammar (an older log's), the reference its page is
 * rendered from into ref: its manifest digest, which names it alone (its
 * id may name another run's digest, "sha256:...", or nothing). 1: it has
 * files; 0: none (the id is too long once escaped), said in the stats. */
static int run_files(struct pexport *x, const char *id, char *name, size_t cap, char *ref,
                     size_t ref_cap)
{
    struct kix_run_info info;
    int escaped, rc = kix_run_page_name(id, strlen(id), name, cap, &escaped);

    snprintf(ref, ref_cap, "%s", id);
    if (rc == KIX_OK && !escaped)
        return 1;
    if (rc != KIX_OK) {
        if (x->stats->skipped++ == 0)
            snprintf(x->stats->skipped_reason, sizeof(x->stats->skipped_reason),
                     "run id \"%.160s\" names no file, even escaped (it is too long)", id);
        return 0;
    }
    if (kix_view_run(x->r, id, &info) != KIX_OK)
        return 0; /* the index refused it: an entry about it, no run, no page */
    if (ref_cap > KIX_DIGEST_TEXT_LEN)
        kix_digest_format(&info.manifest, ref);
    if (x->stats->escaped++ == 0)
        snprintf(x->stats->escaped_example, sizeof(x->stats->escaped_example),
                 "run \"%.128s\" (an id outside the run-id grammar, logged by an older origin) "
                 "is written as runs/%.240s[.html]",
                 id, name);
    return 1;
}

/* DIR/sub/<name>.json of a page an older layout wrote beside its page
 * (x->upgrade: the copy's runs/.layout is not this one's). */
static int drop_old_view(struct pexport *x, const char *sub, const char *name)
{
    char file[KIX_RUN_PAGE_NAME_MAX + 80];

    if (!x->upgrade)
        return KIX_OK;
    snprintf(file, sizeof(file), "%s.json", name);
    return kix__export_remove(x->dir, sub, file, x->err);
}

/* DIR/sub/<name> (and <name>.html, the same file), and for a group
 * DIR/sub/<name>.json, for ids [lo, hi), <name> the id (a group's key, a
 * run's page name); *written counts them. A run the index refused (an
 * entry about it, no page) is skipped. */
static int write_range(struct pexport *x, const struct idset *ids, int runs, size_t lo, size_t hi,
                       struct outdir *od, page_fn pages, uint64_t *written)
{
    int rc = KIX_OK;

    for (size_t i = lo; rc == KIX_OK && i < hi; i++) {
        const char *id = ids->id[i];
        char name[KIX_RUN_PAGE_NAME_MAX + 1], ref[KIX_RUN_ID_MAX + KIX_DIGEST_TEXT_LEN + 1];
        char file[KIX_RUN_PAGE_NAME_MAX + 80];
        /* a run id logged before the run-id grammar ("..", ".size",
         * "<another's id>.json", "sha256:<another's manifest>") is written
         * under an escaped name no other id gives, and said in the stats */
        if (runs) {
            if (!run_files(x, id, name, sizeof(name), ref, sizeof(ref)))
                continue;
        } else {
            snprintf(name, sizeof(name), "%s", id);
            snprintf(ref, sizeof(ref), "%s", id);
        }
        kix_buf_reset(&x->body);
        kix_buf_reset(&x->json);
        rc = pages(x->r, ref, strlen(ref), &x->body, &x->json, x->err);
        if (rc == KIX_ENOTFOUND) {
            rc = KIX_OK;
            continue;
        }
        if (rc == KIX_OK)
            rc = put_file(x, od, name, &x->body, 1);
        /* a run's view is in its page (layout 4): runs/<name>.json, left by
         * an older layout, would be a stale second copy; it goes */
        if (rc == KIX_OK && runs) { /* (a fresh runs/ holds none) */
            rc = od->fresh ? KIX_OK : drop_old_view(x, od->sub, name);
        } else if (rc == KIX_OK) {
            snprintf(file, sizeof(file), "%s.json", name);
            rc = put_file(x, od, file, &x->json, 0);
        }
        if (rc == KIX_OK)
            (*written)++;
    }
    return rc;
}

/* One thread's part of write_pages: its own source, buffers, stats and
 * error, merged in shard order, so the stats and the first error are
 * those of a one-thread export. */
struct shard {
    struct pexport x;
    struct kix_pages_export_stats stats;
    struct kix_err err;
    const struct idset *ids;
    int runs, rc;
    size_t lo, hi;
    struct outdir *od;
    page_fn pages;
    uint64_t written;
};

static void *shard_main(void *arg)
{
    struct shard *sh = arg;

    /* this thread's trees, its own (kix/json.h): freed when its shard ends */
    kix_json_memo_begin(0);
    sh->rc =
        write_range(&sh->x, sh->ids, sh->runs, sh->lo, sh->hi, sh->od, sh->pages, &sh->written);
    kix_json_memo_end();
    return NULL;
}

static void shard_merge(struct pexport *x, const struct shard *sh, uint64_t *written)
{
    struct kix_pages_export_stats *t = x->stats;
    const struct kix_pages_export_stats *f = &sh->stats;

    t->files += f->files;
    t->bytes += f->bytes;
    if (f->escaped && !t->escaped)
        memcpy(t->escaped_example, f->escaped_example, sizeof(t->escaped_example));
    if (f->skipped && !t->skipped)
        memcpy(t->skipped_reason, f->skipped_reason, sizeof(t->skipped_reason));
    t->escaped += f->escaped;
    t->skipped += f->skipped;
    *written += sh->written;
}

/* The pages of every id, on x->threads threads: contiguous shards of the
 * sorted ids, each page the same bytes whichever thread renders it. */
static int write_pages(struct pexport *x, const struct idset *ids, const char *sub, page_fn pages,
                       uint64_t *written)
{
    struct outdir od;
    struct shard *sh;
    int n = x->threads, rc;

    if (ids->n == 0)
        return KIX_OK;
    if ((rc = outdir_open(x, sub, &od)) != KIX_OK) {
        outdir_close(&od);
        return rc;
    }
    if ((size_t)n > ids->n / 16 + 1)
        n = (int)(ids->n / 16 + 1); /* a thread is worth a few pages */
    if (n <= 1 || !(sh = calloc((size_t)n, sizeof(*sh)))) {
        rc = write_range(x, ids, ids == &x->runs, 0, ids->n, &od, pages, written);
        outdir_close(&od);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        sh[i].x = *x;
        sh[i].x.r = x->srcs[i];
        kix_buf_init(&sh[i].x.body);
        kix_buf_init(&sh[i].x.json);
        sh[i].x.stats = &sh[i].stats;
        sh[i].x.err = &sh[i].err;
        sh[i].ids = ids;
        sh[i].runs = ids == &x->runs;
        sh[i].lo = ids->n * (size_t)i / (size_t)n;
        sh[i].hi = ids->n * (size_t)(i + 1) / (size_t)n;
        sh[i].od = &od;
        sh[i].pages = pages;
    }
    kix_parallel_run(sh, sizeof(*sh), (size_t)n, shard_main);
    rc = KIX_OK;
    for (int i = 0; i < n; i++) {
        shard_merge(x, &sh[i], written);
        if (rc == KIX_OK && sh[i].rc != KIX_OK) {
            rc = sh[i].rc;
            if (x->err)
                *x->err = sh[i].err;
        }
        kix_buf_release(&sh[i].x.body);
        kix_buf_release(&sh[i].x.json);
    }
    free(sh);
    outdir_close(&od);
    return rc;
}

/* The home pages, the search index and the kernel pages of the groups
 * written (browse_export.c). */
static int browse_pages(struct pexport *x, int all)
{
    const char **keys = malloc((x->groups.n ? x->groups.n : 1) * sizeof(*keys));
    int rc;

    if (!keys)
        return kix_err_set(x->err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; i < x->groups.n; i++)
        keys[i] = x->groups.id[i];
    rc = kix__browse_export(x->r, x->dir, keys, x->groups.n, all, x->stats, x->err);
    free(keys);
    return rc;
}

/* A group's pages after its first: DIR/groups/<key>-N[.json] for N from 2
 * (kixd serves them as groups/<key>?page=N). */
static int write_later_group_pages(struct pexport *x)
{
    int rc = KIX_OK;

    for (size_t i = 0; rc == KIX_OK && i < x->groups.n; i++) {
        const char *id = x->groups.id[i];
        struct kix_digest d;
        uint64_t size = 0;
        char name[KIX_DIGEST_TEXT_LEN + 24];

        if (kix_digest_parse(id, strlen(id), &d, NULL) != KIX_OK ||
            kix_view_group_runs(x->r, &d, 0, 0, add_group_run, x, &size) != KIX_OK)
            continue;
        for (uint64_t page = 2; rc == KIX_OK && (page - 1) * KIX_VIEW_GROUP_MAX < size; page++) {
            snprintf(name, sizeof(name), "%s-%llu", id, (unsigned long long)page);
            kix_buf_reset(&x->body);
            kix_buf_reset(&x->json);
            rc = kix__page_group_both(x->r, id, strlen(id), page, KIX_PAGE_EXPORTED, &x->body,
                                      &x->json, x->err);
            if (rc == KIX_OK)
                rc = kix__export_page(x->dir, "groups", name, &x->body, x->stats, x->err);
            if (rc == KIX_OK)
                rc = write_page(x, "groups", name, ".json", &x->json);
        }
    }
    return rc;
}

/* Sources of src's snapshot for up to `threads` threads into x->srcs
 * (x->threads of them, src first): one of another log size (the store
 * grew between two read transactions) or that cannot be opened ends the
 * list, and the export renders on the threads it has. */
static void open_sources(struct pexport *x, kix_pages_source_fn more, void *ctx, int threads,
                         uint64_t size)
{
    struct kix_buf state = KIX_BUF_INIT;

    x->threads = 1;
    if (threads > 64)
        threads = 64;
    if (!more || threads <= 1 || !(x->srcs = calloc((size_t)threads, sizeof(*x->srcs)))) {
        x->srcs = &x->r;
        return;
    }
    x->srcs[0] = x->r;
    while (x->threads < threads) {
        struct kix_source *s = NULL;
        uint64_t n = 0;
        kix_buf_reset(&state);
        if (more(ctx, &s, NULL) != KIX_OK || kix_view_log_state(s, &n, &state, NULL) != KIX_OK ||
            n != size) {
            kix_source_close(s);
            break;
        }
        x->srcs[x->threads++] = s;
    }
    kix_buf_release(&state);
}

static void close_sources(struct pexport *x)
{
    if (x->srcs == &x->r || !x->srcs)
        return;
    for (int i = 1; i < x->threads; i++)
        kix_source_close(x->srcs[i]);
    free(x->srcs);
}

int kix_pages_export(struct kix_source *src, const char *dir, struct kix_pages_export_stats *stats,
                     struct kix_err *err)
{
    return kix_pages_export_threads(src, NULL, NULL, 1, dir, stats, err);
}

int kix_pages_manifest_in_page(struct kix_source *src, const uint8_t *leaf, size_t len,
                               struct kix_digest *manifest)
{
    struct kix_entry_summary e;
    struct kix_run_info info;
    char name[KIX_RUN_PAGE_NAME_MAX + 1];
    int escaped = 1;

    if (kix_entry_describe(leaf, len, &e, NULL) != KIX_OK || e.type != KIX_ENTRY_PUBLICATION ||
        kix_run_page_name(e.run_id, strlen(e.run_id), name, sizeof(name), &escaped) != KIX_OK ||
        escaped)
        return 0;
    *manifest = e.subject;
    /* the page shows the manifest the index holds for the id: this one
     * unless the index refused the publication (the id taken before) */
    if (src && kix_view_run(src, e.run_id, &info) == KIX_OK &&
        memcmp(info.manifest.b, e.subject.b, sizeof(e.subject.b)) == 0)
        return KIX_TLOG_KEPT_EXACTLY;
    return KIX_TLOG_KEPT_MAYBE;
}

int kix_pages_export_threads(struct kix_source *src, kix_pages_source_fn more, void *ctx,
                             int threads, const char *dir, struct kix_pages_export_stats *stats,
                             struct kix_err *err)
{
    struct kix_pages_export_stats local;
    struct pexport x;
    struct kix_bytes script, style, search, write, vkey;
    char path[4200], text[32];
    int current = layout_current(dir), rc;
    uint64_t from = current ? exported_size(dir) : 0, size = 0;

    memset(&x, 0, sizeof(x));
    /* each manifest and shared object parsed once an export, not once a
     * renderer (run page, citation, group row, kernel and home pages):
     * kix/json.h's memo, on this thread and each shard's, freed at the end
     * (keyed by the bytes themselves: nothing kept can go stale) */
    kix_json_memo_begin(0);
    x.threads = 1;
    x.upgrade = !current;
    stats = stats ? stats : &local;
    memset(stats, 0, sizeof(*stats));
    x.dir = dir;
    x.stats = stats;
    x.err = err;
    kix_buf_init(&x.body);
    kix_buf_init(&x.json);
    x.r = src;
    rc = kix_view_log_state(src, &size, &x.json, err);
    kix_buf_reset(&x.json);
    if (rc)
        goto out;
    if (from > size)
        from = 0; /* another log's pages, or a log started over */
    if (from < size)
        open_sources(&x, more, ctx, threads, size);
    stats->from_size = from;
    stats->size = size;
    kix_page_script(&script);
    kix_page_style(&style);
    kix_page_search_script(&search);
    kix_page_write_script(&write);
    /* the log's verifier key, which a tlog-tiles copy does not otherwise
     * carry: kix trust reads it (trust on first use, as from a kixd) */
    rc = kix_view_log_key(src, &x.body, err);
    if (rc == KIX_OK)
        rc = kix_buf_addc(&x.body, '\n');
    if (rc == KIX_OK) {
        vkey.ptr = x.body.ptr;
        vkey.len = x.body.len;
        rc = write_static(&x, KIX_PAGE_VKEY_PATH, &vkey);
    } else if (rc == KIX_ENOMEM) {
        kix_err_set(err, rc, "out of memory");
    }
    kix_buf_reset(&x.body);
    if (rc)
        goto out;
    if ((rc = write_static(&x, KIX_PAGE_SCRIPT_PATH, &script)) ||
        (rc = write_static(&x, KIX_PAGE_WRITE_PATH, &write)) ||
        (rc = write_static(&x, KIX_PAGE_SEARCH_PATH, &search)) ||
        (rc = write_static(&x, KIX_PAGE_STYLE_PATH, &style)) || from == size ||
        (rc = find_pages(&x, from, size)) ||
        (rc = write_pages(&x, &x.runs, "runs", kix__page_run_both, &stats->runs)) ||
        (rc = write_pages(&x, &x.groups, "groups", group_first_page, &stats->groups)) ||
        (rc = write_later_group_pages(&x)))
        goto out;
    /* every kernel page on a first export, or into pages written before
     * there were kernel pages */
    snprintf(path, sizeof(path), "%s/kernels", dir);
    rc = browse_pages(&x, from == 0 || access(path, F_OK) != 0);
    /* runs/ holds the marks below even when the log has no run yet */
    snprintf(path, sizeof(path), "%s/runs", dir);
    if (rc == KIX_OK && kix_dir_make(path, 0755, err) != KIX_OK)
        rc = KIX_EIO;
    if (rc == KIX_OK) /* the new pages durable before the mark that says they are there */
        rc = kix_dir_sync(dir, err);
    if (rc == KIX_OK && !layout_current(dir)) {
        snprintf(path, sizeof(path), "%s/runs/.layout", dir);
        rc = kix_file_write_atomic(path, LAYOUT, strlen(LAYOUT), 0644, err);
        if (rc == KIX_OK) {
            stats->files++;
            stats->bytes += strlen(LAYOUT);
        }
    }
    if (rc == KIX_OK) {
        int n = snprintf(text, sizeof(text), "%llu\n", (ULL)size);
        snprintf(path, sizeof(path), "%s/runs/.size", dir);
        rc = kix_file_write_atomic(path, text, (size_t)n, 0644, err);
        if (rc == KIX_OK) {
            stats->files++;
            stats->bytes += (uint64_t)n;
        }
    }
out:
    kix_buf_release(&x.body);
    kix_buf_release(&x.json);
    free(x.runs.id);
    free(x.groups.id);
    close_sources(&x);
    kix_json_memo_end();
    return rc;
}
