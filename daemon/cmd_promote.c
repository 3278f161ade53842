/* kixd promote: a verified mirror becomes the origin (cmd_promote.h). */
#include "cmd_promote.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd_check.h"
#include "kixd_options.h"
#include "kix/file.h"
#include "kix/index.h"
#include "kix/note.h"
#include "mirror.h"
#include "server.h"

static const char promote_about[] =
    "Makes the mirror's store in DIR the origin of its log, when the origin is\n"
    "lost: 'kixd serve --store DIR --log-key-file KEY' then appends to the same\n"
    "log, extending the latest checkpoint the mirror verified (no fork).\n"
    "\n"
    "Stop the mirror first. kixd promote refuses a store that is not a mirror's\n"
    "(DIR/mirror.id), is empty, was promoted already or holds a fork's evidence\n"
    "(DIR/fork/); a KEY that is not the log's key; and a store that fails the\n"
    "checks 'kixd check' runs. It then records the promotion in DIR/promoted: from\n"
    "then on kixd serves DIR only as the origin, never again with --mirror-of.\n"
    "\n"
    "Entries the lost origin acknowledged after the mirror's last sync are not in\n"
    "DIR unless the origin ran with --ack-replicas (OPERATING.md).\n";

struct promote_args {
    const char *store, *key_file;
    int quick;
};

static int parse(int argc, char **argv, struct promote_args *a)
{
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &a->store,
                   "the mirror's store (kixd serve --mirror-of made it)"),
        {.kind = KIX_OPT_STRING,
         .name = "log-key-file",
         .arg = "KEY",
         .target = &a->key_file,
         .help = "the log's signing key (kept apart from the origin)",
         .complete = "file"},
        KIX_FLAG("quick", &a->quick,
                 "check as kixd serve does at start (the latest\n"
                 "checkpoint and the last 1024 entries), not in full"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd promote",
        .usage = "--store DIR --log-key-file KEY [--quick]",
        .about = promote_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 promoted, 1 refused (nothing changed), 2 usage, 3 I/O error\n",
        .column = 23};
    int status;

    memset(a, 0, sizeof(*a));
    if ((status = kixd_options(&cmd, argc, argv, NULL, NULL)) >= 0)
        return status;
    if (!a->store || !a->key_file || optind != argc)
        return kixd_usage(&cmd, "--store DIR and --log-key-file KEY are required, and nothing "
                                "else");
    return -1;
}

static int exists(const char *store, const char *name)
{
    char path[4200];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", store, name);
    return stat(path, &st) == 0;
}

/* What the store's files say before it is opened: a mirror's, not yet
 * promoted, with no fork found. */
static int check_files(const char *store, struct kix_err *err)
{
    if (!exists(store, "data.mdb"))
        return kix_err_set(err, KIX_ENOTFOUND, "%s holds no store: nothing to promote", store);
    if (exists(store, KIXD_PROMOTED_FILE))
        return kix_err_set(err, KIX_EEXIST,
                           "%s was promoted already (%s/" KIXD_PROMOTED_FILE
                           "): serve it with kixd serve --store %s --log-key-file KEY",
                           store, store, store);
    if (!exists(store, KIXD_MIRROR_ID_FILE))
        return kix_err_set(err, KIX_EINVAL,
                           "%s is not a mirror's store (no %s/" KIXD_MIRROR_ID_FILE ")%s: only a "
                           "store that kixd serve --mirror-of made and verified can take over",
                           store, store,
                           exists(store, "log.key") ? "; it holds log.key: an origin's store" : "");
    if (exists(store, "fork"))
        return kix_err_set(
            err, KIX_EINVAL,
            "the mirror in %s found a fork of the log (the evidence is in %s/fork/): "
            "report it to the log's operators; promoting it would continue one "
            "side of the fork",
            store, store);
    return KIX_OK;
}

/* The key in key_file must be the log's: the same name and public key. */
static int check_key(const struct promote_args *a, struct kix_log *log, struct kix_err *err)
{
    const struct kix_verifier *want = kix_log_verifier(log);
    struct kix_signer *key = NULL;
    struct kix_verifier got;
    struct kix_buf wtext = KIX_BUF_INIT, gtext = KIX_BUF_INIT;
    int rc = kix_keyfile_read(a->key_file, &key, err);

    if (rc) {
        kix_err_wrap(err, "--log-key-file");
        return rc;
    }
    kix_verifier_from_signer(key, &got);
    kix_signer_free(key);
    if (got.alg == want->alg && strcmp(got.name, want->name) == 0 &&
        memcmp(got.pub, want->pub, 32) == 0)
        return KIX_OK;
    rc = kix_verifier_format(want, &wtext);
    if (rc == KIX_OK)
        rc = kix_verifier_format(&got, &gtext);
    if (rc == KIX_OK)
        rc = kix_err_set(err, KIX_EINVAL,
                         "%s is not the key of the log this mirror verified: the log's key is "
                         "%s, the file's is %s",
                         a->key_file, (const char *)wtext.ptr, (const char *)gtext.ptr);
    kix_buf_release(&wtext);
    kix_buf_release(&gtext);
    return rc;
}

/* DIR/promoted: when, from which size and root, under which key. Written
 * atomically and synced: the promotion survives a power cut. */
static int record(const char *store, struct kix_log *log, uint64_t size, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    struct kix_buf text = KIX_BUF_INIT, key = KIX_BUF_INIT;
    struct kix_hash root;
    char path[4200], hex[65];
    int rc = kix_log_read_begin(log, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the store: %s", kix_strerror(rc));
    rc = kix_log_reader_root(r, size, &root, err);
    kix_log_read_end(r);
    if (rc == KIX_OK)
        rc = kix_verifier_format(kix_log_verifier(log), &key);
    for (int i = 0; rc == KIX_OK && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", root.b[i]);
    if (rc == KIX_OK)
        rc = kix_buf_addf(
            &text, "kix promoted mirror\nsize %llu\nroot %s\nkey %s\npromoted-at %lld\n",
            (unsigned long long)size, hex, (const char *)key.ptr, (long long)time(NULL));
    snprintf(path, sizeof(path), "%s/" KIXD_PROMOTED_FILE, store);
    if (rc == KIX_OK)
        rc = kix_file_write_atomic(path, text.ptr, text.len, 0644, err);
    kix_buf_release(&text);
    kix_buf_release(&key);
    return rc;
}

static int promote(const struct promote_args *a, uint64_t *size, struct kix_err *err)
{
    struct kix_log_opts o;
    struct kix_log *log = NULL;
    struct kix_check_opts co;
    struct kix_check_stats st;
    struct kix_index_check_stats ist = {0, 0, 0, 0, 0};
    int lock = -1, rc = check_files(a->store, err);

    if (rc)
        return rc;
    rc = kixd_store_lock(a->store, &lock, err);
    if (rc) {
        kix_err_wrap(err, "stop the mirror before promoting it");
        return rc;
    }
    memset(&o, 0, sizeof(o));
    o.replica = 1; /* opened as what it is until the promotion is recorded */
    rc = kix_index_open(a->store, &o, &log, err);
    if (rc) {
        kix_err_wrap(err, "opening %s", a->store);
        goto out;
    }
    rc = check_key(a, log, err);
    if (rc)
        goto out;
    memset(&co, 0, sizeof(co));
    co.quick = a->quick;
    co.issue = kixd_check_issue_to_stderr;
    co.issue_ctx = (void *)"kixd promote: problem in the store";
    rc = kixd_check_log(log, &co, &st, &ist, err);
    if (rc) {
        kix_err_wrap(err, "%s failed its check; it is not promoted", a->store);
        goto out;
    }
    if (st.size == 0) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "%s holds no entries: this mirror verified nothing it could continue",
                         a->store);
        goto out;
    }
    *size = st.size;
    rc = record(a->store, log, st.size, err);
out:
    kix_log_close(log);
    if (lock >= 0)
        close(lock);
    return rc;
}

int kixd_promote_main(int argc, char **argv)
{
    struct promote_args a;
    struct kix_err err = {0};
    uint64_t size = 0;
    int rc, status = parse(argc, argv, &a);

    if (status >= 0)
        return status;
    rc = promote(&a, &size, &err);
    if (rc == KIX_OK) {
        printf("promoted %s to the origin of its log at size %llu (checked%s; recorded in "
               "%s/" KIXD_PROMOTED_FILE ").\n"
               "Serve it: kixd serve --store %s --log-key-file %s\n"
               "Then point clients and the other mirrors at it (OPERATING.md).\n",
               a.store, (unsigned long long)size, a.quick ? ", quick" : "", a.store, a.store,
               a.key_file);
        return 0;
    }
    fprintf(stderr, "kixd promote: %s\n", kix_err_text(&err, rc));
    return rc == KIX_EIO || rc == KIX_ENOMEM ? 3 : 1;
}
