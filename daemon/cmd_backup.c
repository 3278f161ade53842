/* kixd backup: a hot, compacted, checked copy of a store (cmd_backup.h). */
#include "cmd_backup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_check.h"
#include "diag.h"
#include "kixd_options.h"
#include "kix/file.h"
#include "kix/index.h"
#include "kix/note.h"

static const char backup_about[] =
    "Writes a consistent, compacted copy of the store in DIR to the new directory\n"
    "DEST while kixd goes on serving DIR (one read snapshot of LMDB: writers are\n"
    "not stopped), syncs it to disk, then opens the copy and runs on it the checks\n"
    "'kixd check' runs. The copy is written as DEST.partial and renamed to DEST only\n"
    "once it passed: a directory named DEST is a checked backup.\n"
    "\n"
    "What the backup holds:\n"
    "  data.mdb   the whole log: entries, checkpoints, cosignatures, objects and\n"
    "             the index (always; store layout 3 on: the index in index.mdb,\n"
    "             layout 4 on: the entries' and objects' bytes in log.dat)\n"
    "  log.key    the log's signing key, only with --with-log-key (read from\n"
    "             --log-key-file FILE, else DIR/log.key; mode 0600). Without it,\n"
    "             keep the key apart from the backups: a restored store serves as\n"
    "             the origin only with its key (kixd serve --log-key-file)\n"
    "Never copied: admin.key (an admin's signing key, not the server's),\n"
    "kixd.lock and lock.mdb (made again at need), the export directory of serve\n"
    "('kixd export' writes it again from the store), bundles/ (the entry bundles\n"
    "and object packs serve keeps for HTTP readers, a cache written again at need).\n"
    "Restore: stop kixd, move the backup to the store's place (or serve it with\n"
    "--store DEST), give it its log key, start kixd naming its mirrors (OPERATING.md).\n";

struct backup_args {
    const char *store, *dest, *key_file;
    int with_key, quick;
};

/* The log key into dir/log.key, after checking it is this log's. */
static int copy_log_key(const struct backup_args *a, struct kix_log *copy, const char *dir,
                        struct kix_err *err)
{
    struct kix_signer *key = NULL;
    char from[4200], to[4200];
    int rc;

    if ((size_t)snprintf(from, sizeof(from), a->key_file ? "%s" : "%s/log.key",
                         a->key_file ? a->key_file : a->store) >= sizeof(from) ||
        (size_t)snprintf(to, sizeof(to), "%s/log.key", dir) >= sizeof(to))
        return kix_err_set(err, KIX_EINVAL, "the path of the log key is too long");
    rc = kix_keyfile_read(from, &key, err);
    if (rc == KIX_OK && memcmp(kix_signer_public_key(key), kix_log_verifier(copy)->pub, 32) != 0)
        rc = kix_err_set(err, KIX_EINVAL, "%s is not the key of the log %s", from,
                         kix_log_origin(copy));
    if (rc == KIX_OK)
        rc = kix_keyfile_write(to, key, err);
    kix_signer_free(key);
    return rc;
}

/* Copies, then checks the copy (its own handle, read-only: what a restore
 * would open) and adds the key; fills *size with the copy's log size. */
static int backup(const struct backup_args *a, const char *partial, uint64_t *size,
                  struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *src = NULL, *copy = NULL;
    struct kix_check_opts co;
    struct kix_check_stats st;
    struct kix_index_check_stats ist = {0, 0, 0, 0, 0};
    char lock[4200];
    int rc;

    memset(&o, 0, sizeof(o));
    o.store.read_only = 1; /* no key needed; kixd may serve the store meanwhile */
    rc = kix_index_open(a->store, &o, &src, err);
    if (rc) {
        kix_err_wrap(err, "opening %s", a->store);
        return rc;
    }
    if (mkdir(partial, 0700) != 0) {
        rc = kix_err_set(err, errno == EEXIST ? KIX_EEXIST : KIX_EIO, "cannot create %s: %s%s",
                         partial, strerror(errno),
                         errno == EEXIST ? " (left by a backup that failed? remove it)" : "");
        goto out;
    }
    rc = kix_store_copy(kix_log_store(src), partial, err);
    if (rc)
        goto out;
    rc = kix_index_open(partial, &o, &copy, err);
    if (rc) {
        kix_err_wrap(err, "opening the copy %s", partial);
        goto out;
    }
    memset(&co, 0, sizeof(co));
    co.quick = a->quick;
    co.issue = kixd_check_issue_to_stderr;
    co.issue_ctx = (void *)"kixd backup: problem in the copy";
    rc = kixd_check_log(copy, &co, &st, &ist, err);
    if (rc) {
        kix_err_wrap(err, "the copy %s failed its check", partial);
        goto out;
    }
    *size = st.size;
    if (a->with_key)
        rc = copy_log_key(a, copy, partial, err);
out:
    kix_log_close(copy);
    kix_log_close(src);
    /* the check's reader made a lock file; a backup holds data only */
    if ((size_t)snprintf(lock, sizeof(lock), "%s/lock.mdb", partial) < sizeof(lock))
        unlink(lock);
    return rc;
}

/* The rename of DEST, on disk: a sync of DEST's file system through its
 * parent (kix_dir_sync syncs the whole file system). */
static int sync_parent(const char *path, struct kix_err *err)
{
    char parent[4200];
    snprintf(parent, sizeof(parent), "%s/..", path);
    return kix_dir_sync(parent, err);
}

static int parse(int argc, char **argv, struct backup_args *a)
{
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &a->store, "the store to copy (a log or a mirror)"),
        KIX_FLAG("with-log-key", &a->with_key, "copy the log key into the backup too"),
        KIX_STRING("log-key-file", "FILE", &a->key_file,
                   "where the log key is (default DIR/log.key)"),
        KIX_FLAG("quick", &a->quick,
                 "check the copy as kixd serve does at start (the latest\n"
                 "checkpoint and the last 1024 entries), not in full"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd backup",
        .usage = "--store DIR [--with-log-key] [--log-key-file FILE] [--quick] DEST",
        .about = backup_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 backup written and checked, 1 refused or the copy failed its\n"
                "check (DEST not made), 2 usage, 3 I/O error\n",
        .column = 23};
    int status;

    memset(a, 0, sizeof(*a));
    if ((status = kixd_options(&cmd, argc, argv, NULL, NULL)) >= 0)
        return status;
    if (!a->store || optind != argc - 1)
        return kixd_usage(&cmd, "--store DIR and one DEST are required");
    if (a->key_file && !a->with_key)
        return kixd_usage(&cmd, "--log-key-file says where the key to copy is; it needs "
                                "--with-log-key");
    a->dest = argv[optind];
    return -1;
}

int kixd_backup_main(int argc, char **argv)
{
    struct backup_args a;
    struct kix_err err = {0};
    struct stat sb;
    char partial[4200];
    uint64_t size = 0;
    int rc, status = parse(argc, argv, &a);

    if (status >= 0)
        return status;
    if (stat(a.dest, &sb) == 0 || errno != ENOENT) {
        fprintf(stderr, "kixd backup: %s exists; a backup goes to a new directory\n", a.dest);
        return 1;
    }
    snprintf(partial, sizeof(partial), "%s.partial", a.dest);
    rc = backup(&a, partial, &size, &err);
    if (rc == KIX_OK && rename(partial, a.dest) != 0)
        rc = kix_err_set(&err, KIX_EIO, "renaming %s to %s: %s", partial, a.dest, strerror(errno));
    if (rc == KIX_OK)
        rc = sync_parent(a.dest, &err); /* the rename, on disk */
    if (rc == KIX_OK) {
        printf("backed up %s at size %llu to %s (checked%s); log key %s\n", a.store,
               (unsigned long long)size, a.dest, a.quick ? ", quick" : "",
               a.with_key ? "copied (log.key, 0600)" : "NOT copied: keep it apart");
        return 0;
    }
    fprintf(stderr, "kixd backup: %s\n", kix_err_text(&err, rc));
    if (rc != KIX_EEXIST && kix_dir_remove_tree(partial, NULL) != KIX_OK)
        fprintf(stderr, "kixd backup: could not remove %s\n", partial);
    return rc == KIX_EIO || rc == KIX_ENOMEM ? 3 : 1;
}
