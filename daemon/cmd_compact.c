/* kixd compact: writes a store's index (index.mdb) again in key order
 * (cmd_compact.h). kix_store_close does the writing (store/log/compact.c:
 * a synced copy renamed over the file); it does so by itself when an open
 * at least doubled the index, and this command asks for it on a store
 * whose index grew slowly (a long-running kixd: split pages, free pages). */
#include "cmd_compact.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_migrate.h"
#include "diag.h"
#include "kix/doc.h"
#include "kix/index.h"
#include "kixd_options.h"
#include "server.h"

static const char compact_about[] =
    "\n"
    "Writes the store's index (DIR/index.mdb) again, every table in key order:\n"
    "its pages full and none free. kixd must be stopped. The copy is made beside\n"
    "it, synced and renamed over it: a crash leaves the old index or the new one.\n"
    "kixd does the same by itself when it closes a store whose index at least\n"
    "doubled while it was open (a rebuild, a migration, a bulk import).\n"
    "\n";

struct compact_args {
    const char *store, *key_file;
    int json;
};

static int parse(int argc, char **argv, struct compact_args *a)
{
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &a->store, "the store (a log, or a mirror)"),
        KIX_STRING("log-key-file", "FILE", &a->key_file,
                   "the log key, should the index need a rebuild\n"
                   "(default DIR/log.key; a mirror has none)"),
        KIX_FLAG("json", &a->json, "one JSON object on stdout"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd compact",
        .usage = "--store DIR [--log-key-file FILE] [--json]",
        .about = compact_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 compacted; 1 refused (kixd serves DIR) or the store did not\n"
                "open; 2 usage; 3 I/O error\n",
        .column = 23};

    memset(a, 0, sizeof(*a));
    return kixd_store_options(&cmd, argc, argv, &a->store);
}

static long long index_bytes(const char *store)
{
    char path[4200];
    struct stat st;

    snprintf(path, sizeof(path), "%s/index.mdb", store);
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static int compact(const struct compact_args *a, long long *before, long long *after,
                   struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    const char *want = kix_index_indexer()->name;
    char format[64];
    int lock = -1, layout = 0, rc = kixd_store_lock(a->store, &lock, err);

    if (rc) {
        kix_err_wrap(err, "stop the kixd serving %s before compacting it", a->store);
        return rc;
    }
    rc = kixd_store_look(a->store, &layout, format, sizeof(format), err);
    if (rc == KIX_OK && !kixd_store_current(layout, format))
        rc = kix_err_set(err, KIX_EINVAL,
                         "%s is in layout %d with index %s, not %d and %s: convert it with kixd "
                         "migrate --store %s first",
                         a->store, layout, format[0] ? format : "none", KIX_STORE_LAYOUT, want,
                         a->store);
    if (rc) {
        close(lock);
        return rc;
    }
    *before = index_bytes(a->store);
    memset(&o, 0, sizeof(o));
    o.log_key_file = a->key_file;
    o.store.compact = 1;
    rc = kix_index_open_any(a->store, &o, &log, err); /* catches the index up first */
    if (rc == KIX_OK)
        rc = kix_log_close_checked(log, err); /* compacts */
    *after = index_bytes(a->store);
    close(lock);
    return rc;
}

int kixd_compact_main(int argc, char **argv)
{
    struct compact_args a;
    struct kix_err err = {0};
    long long before = 0, after = 0;
    int rc = parse(argc, argv, &a);

    if (rc >= 0)
        return rc;
    rc = compact(&a, &before, &after, &err);
    if (rc) {
        fprintf(stderr, "kixd compact: %s\n", err.msg);
        return rc == KIX_EIO ? 3 : 1;
    }
    if (a.json) {
        json_t *o = json_pack("{s:o,s:I,s:I}", "store", kixd_jstr(a.store), "indexBytesBefore",
                              (json_int_t)before, "indexBytes", (json_int_t)after);
        rc = kix_doc_print(o, 0, stdout);
        json_decref(o);
        if (rc)
            fprintf(stderr, "kixd compact: out of memory writing the --json report\n");
        return rc ? 3 : 0;
    }
    printf("%s: index.mdb %lld -> %lld bytes\n", a.store, before, after);
    return 0;
}
