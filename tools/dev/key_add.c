/* kix-dev-key-add: registers a key with roles in a log, signed by an admin.
 *
 * A small set-up and test tool over the public API (kix_entry_key +
 * kix_client_submit) until the kix command line has its own key commands.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "kix/client.h"
#include "kix/entries.h"
#include "kix/note.h"

#define PROG "kix-dev-key-add"

static const char help[] =
    "usage: " PROG " --admin KEY --pub FILE --roles ROLES [--server ADDR | --store DIR]\n"
    "\n"
    "Appends a key entry registering the verifier key in FILE (from kix keygen)\n"
    "with ROLES (comma-separated: admin, publish, attest, rerun), signed by the\n"
    "admin's private key KEY (e.g. DIR/admin.key from kixd init).\n"
    "\n"
    "exit status: 0 ok, 1 refused (e.g. already registered), 2 usage, 3 I/O error\n";

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"admin", required_argument, NULL, 'a'},
                                             {"pub", required_argument, NULL, 'p'},
                                             {"roles", required_argument, NULL, 'r'},
                                             {"server", required_argument, NULL, 's'},
                                             {"store", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *admin_path = NULL, *pub_path = NULL, *roles_text = NULL;
    const char *server = KIX_DEFAULT_SERVER, *store = NULL;
    struct kix_signer *admin = NULL;
    struct kix_verifier pub;
    struct kix_client *client = NULL;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_bundle bundle;
    struct kix_submit_result res;
    struct kix_err err = {0, ""};
    int c, rc, roles;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
            admin_path = optarg;
            break;
        case 'p':
            pub_path = optarg;
            break;
        case 'r':
            roles_text = optarg;
            break;
        case 's':
            server = optarg;
            break;
        case 'S':
            store = optarg;
            break;
        case 'h':
            fputs(help, stdout);
            return 0;
        default:
            fprintf(stderr, PROG ": unknown option\nTry '" PROG " --help'.\n");
            return 2;
        }
    }
    if (!admin_path || !pub_path || !roles_text || optind != argc) {
        fprintf(stderr, PROG ": --admin, --pub and --roles are required\nTry '" PROG " --help'.\n");
        return 2;
    }
    roles = kix_roles_parse(roles_text, strlen(roles_text));
    if (roles <= 0) {
        fprintf(stderr, PROG ": unknown role in '%s' (admin, publish, attest, rerun)\n",
                roles_text);
        return 2;
    }
    memset(&res, 0, sizeof(res));
    rc = kix_keyfile_read(admin_path, &admin, &err);
    if (rc == KIX_OK)
        rc = kix_pubfile_read(pub_path, &pub, &err);
    if (rc == KIX_OK)
        rc = kix_entry_key(admin, 0, pub.pub, (unsigned)roles, &env, &err);
    if (rc == KIX_OK)
        rc = store ? kix_client_open_store(store, &client, &err)
                   : kix_client_connect(server, NULL, &client, &err);
    if (rc == KIX_OK) {
        bundle.envelope = kix_buf_bytes(&env);
        bundle.objects = NULL;
        bundle.nobjects = 0;
        rc = kix_client_submit(client, &bundle, 1, &res, &err);
    }
    if (rc == KIX_OK && res.code != KIX_OK) {
        rc = res.code;
        kix_err_set(&err, rc, "%s", res.message);
    }
    if (rc == KIX_OK)
        printf("registered %s (%s) at log index %llu%s\n", pub.name, roles_text,
               (unsigned long long)res.index, res.duplicate ? " (already there)" : "");
    else
        fprintf(stderr, PROG ": %s\n", kix_err_text(&err, rc));
    kix_submit_result_release(&res);
    kix_buf_release(&env);
    kix_client_close(client);
    kix_signer_free(admin);
    return kix_err_exit_status(rc);
}
