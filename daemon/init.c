/* kixd init: create a store with its log key and entry 0 (init.h). */
#include "init.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "kixd_options.h"
#include "kix/index.h"
#include "kix/note.h"

static const char init_about[] =
    "Creates a new log in DIR: the LMDB store, the log's signing key DIR/log.key\n"
    "(mode 0600) named ORIGIN, and entry 0, signed by the log key, registering\n"
    "the first admin key. Say where that key is: --admin-key FILE creates a new\n"
    "pair, FILE (0600) and FILE.pub, never overwriting either; --admin-pub FILE\n"
    "registers one made with kix keygen. There is no default: an admin key\n"
    "belongs with its admin, not in the store, whose copies carry what it holds.\n"
    "Prints the log's verifier key on a line of its own: give it to everyone who\n"
    "will verify this log. Keys kept outside DIR are in none of its copies (kixd\n"
    "backup copies the log key only when asked, an admin key never).\n";

/* Strips trailing slashes from a copy of path into out. */
static void without_slashes(const char *path, char *out, size_t cap)
{
    size_t n;

    snprintf(out, cap, "%s", path);
    for (n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
        out[n - 1] = '\0';
}

/* Before the store is made: the admin key pair's files must not exist,
 * and their directory must (or be the store directory, made by init). */
static int admin_files_free(const char *dir, const char *key, struct kix_err *err)
{
    char pub[4096], parent[4096], store[4096], *slash;
    struct stat st;

    if ((size_t)snprintf(pub, sizeof(pub), "%s.pub", key) >= sizeof(pub))
        return kix_err_set(err, KIX_EINVAL, "--admin-key %.200s... is too long", key);
    for (const char *p = key; p; p = p == key ? pub : NULL)
        if (lstat(p, &st) == 0)
            return kix_err_set(err, KIX_EEXIST,
                               "%s already exists; refusing to overwrite it (move it away or "
                               "choose another --admin-key)",
                               p);
    without_slashes(key, parent, sizeof(parent));
    slash = strrchr(parent, '/');
    if (!slash)
        return KIX_OK; /* the current directory */
    if (slash == parent)
        slash[1] = '\0'; /* the root */
    else
        *slash = '\0';
    without_slashes(dir, store, sizeof(store));
    if (strcmp(parent, store) == 0 || (stat(parent, &st) == 0 && S_ISDIR(st.st_mode)))
        return KIX_OK;
    return kix_err_set(err, KIX_ENOTFOUND, "the directory %s of --admin-key does not exist",
                       parent);
}

int kixd_init_main(int argc, char **argv)
{
    const char *dir = NULL, *origin = NULL, *admin_pub = NULL, *admin_key = NULL;
    const char *log_key_file = NULL;
    struct kix_log_opts opts;
    struct kix_signer *admin = NULL;
    struct kix_verifier admin_v;
    struct kix_buf vkey = KIX_BUF_INIT;
    struct kix_err err = {0};
    char path[4096];
    int rc;
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &dir, "the store directory (must not hold a store yet)"),
        KIX_STRING("origin", "ORIGIN", &origin, "the log's name, e.g. kix.example.org/log"),
        KIX_STRING("log-key-file", "FILE", &log_key_file,
                   "write the log key to FILE instead of DIR/log.key\n"
                   "(then serve with kixd serve --log-key-file FILE)"),
        KIX_STRING("admin-key", "FILE", &admin_key,
                   "write the new admin key pair to FILE and FILE.pub"),
        KIX_STRING("admin-pub", "FILE", &admin_pub,
                   "the first admin's verifier key (from kix keygen)"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd init",
        .usage = "--store DIR --origin ORIGIN [--log-key-file FILE]\n"
                 "(--admin-key FILE | --admin-pub FILE)",
        .about = init_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 ok, 1 refused (store or key file exists, bad origin or key),\n"
                "2 usage, 3 I/O error\n",
        .column = 23};

    if ((rc = kixd_options(&cmd, argc, argv, NULL, NULL)) >= 0)
        return rc;
    if (optind != argc)
        return kixd_usage(&cmd, "unexpected argument '%s'", argv[optind]);
    if (!dir || !origin)
        return kixd_usage(&cmd, "--store DIR and --origin ORIGIN are required");
    if (!admin_pub == !admin_key) {
        return kixd_usage(&cmd, "say where the first admin key is: --admin-key FILE writes a "
                                "new pair to FILE (0600) and FILE.pub, --admin-pub FILE "
                                "registers one made with kix keygen (give one; an admin key "
                                "belongs with its admin, not in the store)");
    }
    memset(&opts, 0, sizeof(opts));
    opts.log_key_file = log_key_file;
    if (admin_key) {
        rc = admin_files_free(dir, admin_key, &err);
        if (rc)
            goto out;
    }
    if (admin_pub) {
        rc = kix_pubfile_read(admin_pub, &admin_v, &err);
        if (rc)
            goto out;
    } else {
        rc = kix_signer_generate("admin", KIX_NOTE_ALG_ED25519, &admin, &err);
        if (rc)
            goto out;
        kix_verifier_from_signer(admin, &admin_v);
    }
    rc = kix_index_create(dir, origin, admin_v.pub, &opts, &vkey, &err);
    if (rc)
        goto out;
    if (admin) {
        rc = kix_keyfile_write(admin_key, admin, &err);
        if (rc)
            goto out;
        snprintf(path, sizeof(path), "%s.pub", admin_key);
        rc = kix_pubfile_write(path, &admin_v, &err);
        if (rc)
            goto out;
    }
    fprintf(stderr, "created log %s in %s (log key: %s%s)", origin, dir,
            log_key_file ? log_key_file : dir, log_key_file ? "" : "/log.key");
    if (admin)
        fprintf(stderr, "; admin key: %s (0600; keep it with its admin), %s", admin_key, path);
    fprintf(stderr, "; its verifier key:\n");
    printf("%s\n", (const char *)vkey.ptr);
out:
    if (rc)
        fprintf(stderr, "kixd init: %s\n", kix_err_text(&err, rc));
    kix_signer_free(admin);
    kix_buf_release(&vkey);
    return rc ? kix_err_exit_status(rc) : 0;
}
