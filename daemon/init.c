/* kixd init: create a store with its log key and entry 0 (init.h). */
#include "init.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "kix/index.h"
#include "kix/note.h"

static const char init_help[] =
    "usage: kixd init --store DIR --origin ORIGIN [--log-key-file FILE]\n"
    "                 [--admin-pub FILE | --admin-key FILE]\n"
    "\n"
    "Creates a new log in DIR: the LMDB store, the log's signing key DIR/log.key\n"
    "(mode 0600) named ORIGIN, and entry 0, signed by the log key, registering\n"
    "the first admin key. Without --admin-pub an admin key pair is created as\n"
    "DIR/admin.key (0600) and DIR/admin.pub, or where --admin-key says. Prints the\n"
    "log's verifier key on a line of its own: give it to everyone who will verify\n"
    "this log. Keys kept outside DIR are in none of its copies (kixd backup copies\n"
    "the log key only when asked, an admin key never): an admin key belongs with\n"
    "its admin, not on the server.\n"
    "\n"
    "  --store DIR          the store directory (must not hold a store yet)\n"
    "  --origin ORIGIN      the log's name, e.g. kix.example.org/log\n"
    "  --log-key-file FILE  write the log key to FILE instead of DIR/log.key\n"
    "                       (then serve with kixd serve --log-key-file FILE)\n"
    "  --admin-pub FILE     the first admin's verifier key (from kix keygen)\n"
    "  --admin-key FILE     write the new admin key pair to FILE and FILE.pub\n"
    "\n"
    "exit status: 0 ok, 1 refused (store exists, bad origin or key), 2 usage,\n"
    "3 I/O error\n";

int kixd_init_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"store", required_argument, NULL, 's'},
                                             {"origin", required_argument, NULL, 'o'},
                                             {"admin-pub", required_argument, NULL, 'a'},
                                             {"admin-key", required_argument, NULL, 'k'},
                                             {"log-key-file", required_argument, NULL, 'l'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *dir = NULL, *origin = NULL, *admin_pub = NULL, *admin_key = NULL;
    const char *log_key_file = NULL;
    struct kix_log_opts opts;
    struct kix_signer *admin = NULL;
    struct kix_verifier admin_v;
    struct kix_buf vkey = KIX_BUF_INIT;
    struct kix_err err = {0};
    char path[4096];
    int c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            dir = optarg;
            break;
        case 'o':
            origin = optarg;
            break;
        case 'a':
            admin_pub = optarg;
            break;
        case 'k':
            admin_key = optarg;
            break;
        case 'l':
            log_key_file = optarg;
            break;
        case 'h':
            fputs(init_help, stdout);
            return 0;
        default:
            fprintf(stderr, "kixd init: unknown option\nTry 'kixd init --help'.\n");
            return 2;
        }
    }
    if (!dir || !origin || optind != argc) {
        fprintf(stderr, "kixd init: --store DIR and --origin ORIGIN are required\n"
                        "Try 'kixd init --help'.\n");
        return 2;
    }
    if (admin_pub && admin_key) {
        fprintf(stderr, "kixd init: --admin-pub names an admin key that exists, --admin-key "
                        "where to write a new one: give one\n");
        return 2;
    }
    memset(&opts, 0, sizeof(opts));
    opts.log_key_file = log_key_file;
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
        if (admin_key)
            snprintf(path, sizeof(path), "%s", admin_key);
        else
            snprintf(path, sizeof(path), "%s/admin.key", dir);
        rc = kix_keyfile_write(path, admin, &err);
        if (rc)
            goto out;
        if (admin_key)
            snprintf(path, sizeof(path), "%s.pub", admin_key);
        else
            snprintf(path, sizeof(path), "%s/admin.pub", dir);
        rc = kix_pubfile_write(path, &admin_v, &err);
        if (rc)
            goto out;
    }
    fprintf(stderr, "created log %s in %s (log key: %s%s)%s%s%s; its verifier key:\n", origin, dir,
            log_key_file ? log_key_file : dir, log_key_file ? "" : "/log.key",
            admin ? " (admin key pair: " : "",
            admin ? (admin_key ? admin_key : "admin.key, admin.pub in the store") : "",
            admin ? ")" : "");
    printf("%s\n", (const char *)vkey.ptr);
out:
    if (rc)
        fprintf(stderr, "kixd init: %s\n", kix_err_text(&err, rc));
    kix_signer_free(admin);
    kix_buf_release(&vkey);
    return rc ? kix_err_exit_status(rc) : 0;
}
