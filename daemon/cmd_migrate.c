/* kixd migrate: backs up, converts and checks a store of an older layout
 * (cmd_migrate.h). The conversion itself is the log's (kix_log_open of a
 * writable store converts its layout and rebuilds an index of another
 * format, each in one LMDB transaction); this command makes the backup
 * first, holds the store's lock so no kixd serves it meanwhile, and runs
 * the full check on the result. */
#include "cmd_migrate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_check.h"
#include "diag.h"
#include "kix/doc.h"
#include "kixd_options.h"
#include "kix/file.h"
#include "kix/index.h"
#include "server.h"

static const char migrate_about[] =
    "\n"
    "Converts a store written by an older kixd to this version's layout, with kixd\n"
    "stopped: first a compacted copy of the store to DEST (default DIR.before-migrate;\n"
    "it must not exist; without DIR/index.mdb when that cannot be read, as after the\n"
    "machine stopped: it is derived from the log, and the conversion derives it\n"
    "again), then the conversion in place (the subject and statement\n"
    "records moved beside the objects, the index rebuilt in today's format and its\n"
    "notes signed again, byte for byte the ones it held, the tables derived from\n"
    "the log moved into DIR/index.mdb), then the checks 'kixd\n"
    "check' runs. Each conversion step is one transaction: a crash leaves the\n"
    "store as it was, and running kixd migrate again finishes it. kixd serve\n"
    "converts a store it is started on the same way, after the same copy to\n"
    "DIR.before-migrate (kixd serve --no-migrate-backup: none).\n"
    "A store already in this layout is left alone (exit 0).\n"
    "\n";

struct migrate_args {
    const char *store, *backup, *key_file;
    int no_backup, quick, json;
};

struct migrate_result {
    struct kixd_migrate_plan plan;
    int layout_after;
    char index_after[64];
    uint64_t size;
};

static int parse(int argc, char **argv, struct migrate_args *a)
{
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &a->store, "the store (a log, or a mirror: no log key needed)"),
        KIX_STRING("backup", "DEST", &a->backup, "where the copy goes (a new directory)"),
        KIX_FLAG("no-backup", &a->no_backup, "convert without a copy first"),
        KIX_STRING("log-key-file", "FILE", &a->key_file,
                   "the log key, to sign the rebuilt index notes again\n"
                   "(default DIR/log.key; a mirror has none)"),
        KIX_FLAG("quick", &a->quick, "check as kixd serve does at start, not in full"),
        KIX_FLAG("json", &a->json, "one JSON object on stdout"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd migrate",
        .usage = "--store DIR [--backup DEST | --no-backup] [--log-key-file FILE]\n"
                 "[--quick] [--json]",
        .about = migrate_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 converted and checked, or already current; 1 refused (kixd\n"
                "serves DIR, DEST exists) or the converted store failed its check; 2 usage;\n"
                "3 I/O error\n",
        .column = 23};
    int status;

    memset(a, 0, sizeof(*a));
    if ((status = kixd_store_options(&cmd, argc, argv, &a->store)) >= 0)
        return status;
    if (a->backup && a->no_backup)
        return kixd_usage(&cmd, "--backup DEST and --no-backup exclude each other");
    return -1;
}

int kixd_store_current(int layout, const char *index)
{
    return layout == KIX_STORE_LAYOUT &&
           (!index[0] || strcmp(index, kix_index_indexer()->name) == 0);
}

int kixd_store_look(const char *store, int *layout, char *index, size_t cap, struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    o.store.read_only = 1;
    /* the layout and the index's format are data.mdb's: an index that must
     * be derived again (the machine stopped while it was open, or it is
     * missing) is no reason not to convert, which derives it */
    o.store.log_only = 1;
    rc = kix_index_open(store, &o, &log, err);
    if (rc) {
        kix_err_wrap(err, "reading the log of %s (data.mdb: every entry, which cannot be derived)",
                     store);
        return rc;
    }
    *layout = kix_store_layout(kix_log_store(log));
    rc = kix_log_index_format(log, index, cap);
    if (rc)
        rc = kix_err_set(err, rc, "reading the store's metadata: %s", kix_strerror(rc));
    kix_log_close(log);
    return rc;
}

/* The compacted copy: DEST made new (refused when it exists), synced.
 *
 * What must be kept is what cannot be derived: data.mdb (every entry,
 * object, checkpoint and index note), and log.dat from layout 4 on.
 * index.mdb (layout 3 on) is derived from them. It is copied when it can
 * be read; when it cannot (the machine stopped while it was open to
 * write, so index.unsynced names another boot and its pages may be torn;
 * or it is missing, unreadable or ahead of the log), a read-only open
 * refuses the store, and the conversion derives the index again anyway.
 * Then the backup is the log alone, and its own first writable open
 * (kixd migrate or kixd serve on it) derives its index the same way,
 * which re-checks each index note the log keeps. Not rebuilt into the
 * backup here: that needs a writable open, which converts the layout the
 * backup is there to keep. *left_out gets why the index was left out, or
 * "" when it was copied. */
static int backup(const char *store, const char *dest, char *left_out, size_t cap,
                  struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_err why = {0};
    int rc;

    left_out[0] = '\0';
    if (mkdir(dest, 0700) != 0)
        return kix_err_set(err, errno == EEXIST ? KIX_EEXIST : KIX_EIO,
                           "cannot create the backup directory %s: %s%s", dest, strerror(errno),
                           errno == EEXIST ? " (name another with --backup DEST, or move it away)"
                                           : "");
    memset(&o, 0, sizeof(o));
    o.store.read_only = 1;
    if (kix_index_open(store, &o, &log, &why) != KIX_OK) {
        snprintf(left_out, cap, "%s", why.msg[0] ? why.msg : "it cannot be read");
        o.store.log_only = 1;
        rc = kix_index_open(store, &o, &log, err);
    } else {
        rc = KIX_OK;
    }
    if (rc == KIX_OK)
        rc = kix_store_copy(kix_log_store(log), dest, err);
    kix_log_close(log);
    if (rc)
        kix_err_wrap(err, "backing up %s to %s", store, dest);
    return rc;
}

int kixd_migrate_prepare(const char *store, const char *dest, int no_backup,
                         struct kixd_migrate_plan *p, struct kix_err *err)
{
    int rc;

    memset(p, 0, sizeof(*p));
    rc = kixd_store_look(store, &p->layout_before, p->index_before, sizeof(p->index_before), err);
    if (rc)
        return rc;
    p->converted = !kixd_store_current(p->layout_before, p->index_before);
    if (!p->converted || no_backup)
        return KIX_OK;
    if (dest) {
        snprintf(p->backup, sizeof(p->backup), "%s", dest);
    } else {
        /* beside the store, not in it: "DIR/" names DIR too */
        size_t n = strlen(store);
        while (n > 1 && store[n - 1] == '/')
            n--;
        if ((size_t)snprintf(p->backup, sizeof(p->backup), "%.*s.before-migrate", (int)n, store) >=
            sizeof(p->backup))
            return kix_err_set(err, KIX_EINVAL,
                               "the store's path is too long for a backup beside it");
    }
    return backup(store, p->backup, p->index_left_out, sizeof(p->index_left_out), err);
}

static int migrate(const struct migrate_args *a, struct migrate_result *res, struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_check_opts co;
    struct kix_check_stats st;
    struct kix_index_check_stats ist = {0, 0, 0, 0, 0};
    int lock = -1, rc;

    rc = kixd_store_lock(a->store, &lock, err);
    if (rc) {
        kix_err_wrap(err, "stop the kixd serving %s before migrating it", a->store);
        return rc;
    }
    rc = kixd_migrate_prepare(a->store, a->backup, a->no_backup, &res->plan, err);
    if (rc)
        goto out;
    if (res->plan.index_left_out[0])
        fprintf(stderr,
                "kixd migrate: the index in %s/index.mdb is left out of the backup, since "
                "it cannot be read: %s. It is derived from the log, which %s holds whole: "
                "the conversion derives it again, and so does the backup's first writable "
                "open (kixd migrate or kixd serve on it)\n",
                a->store, res->plan.index_left_out, res->plan.backup);
    memset(&o, 0, sizeof(o));
    o.log_key_file = a->key_file;
    o.store.convert = 1;
    rc = kix_index_open_any(a->store, &o, &log, err); /* converts, rebuilds */
    if (rc)
        goto out;
    res->layout_after = kix_store_layout(kix_log_store(log));
    rc = kix_log_index_format(log, res->index_after, sizeof(res->index_after));
    if (rc) {
        rc = kix_err_set(err, rc, "reading the store's metadata: %s", kix_strerror(rc));
        goto out;
    }
    memset(&co, 0, sizeof(co));
    co.quick = a->quick;
    co.issue = kixd_check_issue_to_stderr;
    co.issue_ctx = (void *)"kixd migrate: problem in the converted store";
    rc = kixd_check_log(log, &co, &st, &ist, err);
    if (rc)
        kix_err_wrap(err, "the converted store %s failed its check", a->store);
    res->size = st.size;
out:
    kix_log_close(log);
    if (lock >= 0)
        close(lock);
    return rc;
}

int kixd_migrate_main(int argc, char **argv)
{
    struct migrate_args a;
    struct migrate_result res;
    struct kix_err err = {0};
    int rc = parse(argc, argv, &a);

    if (rc >= 0)
        return rc;
    memset(&res, 0, sizeof(res));
    rc = migrate(&a, &res, &err);
    if (rc) {
        fprintf(stderr, "kixd migrate: %s\n", err.msg);
        return rc == KIX_EIO ? 3 : 1;
    }
    if (a.json) {
        json_t *o = json_pack(
            "{s:o,s:b,s:i,s:i,s:o,s:o,s:o,s:I,s:s}", "store", kixd_jstr(a.store), "converted",
            res.plan.converted, "layoutBefore", res.plan.layout_before, "layout", res.layout_after,
            "indexBefore", kixd_jstr(res.plan.index_before), "index", kixd_jstr(res.index_after),
            "backup", res.plan.backup[0] ? kixd_jstr(res.plan.backup) : json_null(), "size",
            (json_int_t)res.size, "checked", a.quick ? "quick" : "full");
        rc = kix_doc_print(o, 0, stdout);
        json_decref(o);
        if (rc)
            fprintf(stderr, "kixd migrate: out of memory writing the --json report\n");
        return rc ? 3 : 0;
    }
    if (!res.plan.converted)
        printf("%s: already in layout %d with index %s; nothing to do (checked, %llu entries)\n",
               a.store, res.layout_after, res.index_after, (unsigned long long)res.size);
    else
        printf("%s: converted from layout %d (index %s) to layout %d (index %s) and checked, "
               "%llu entries%s%s\n",
               a.store, res.plan.layout_before,
               res.plan.index_before[0] ? res.plan.index_before : "none", res.layout_after,
               res.index_after, (unsigned long long)res.size,
               res.plan.backup[0] ? "; the store as it was is in " : "; no backup made",
               res.plan.backup);
    return 0;
}
