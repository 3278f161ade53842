/* kix trust: fetch a server's log key once, for the user to check and pin. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"

static const struct kix_opt trust_opts[] = {
    KIX_NOTE("\n"
             "Asks the log at ADDR (a kixd's tcp://HOST:PORT or unix:///PATH, or a\n"
             "static copy's http(s)://HOST/PREFIX/, as --server takes) for its origin\n"
             "and verifier key, checks that its latest checkpoint is signed by that key,\n"
             "and prints the key for you to pin. This is trust on first use: kix cannot\n"
             "tell whether the server is the log it claims to be. Compare the key with\n"
             "one the log's operators publish.\n"
             "\n"),
    KIX_ID("server", "ADDR", 0x102, "the server to ask, instead of ADDR"),
    KIX_ID("cacert", "FILE", 0x107, "the CA certificates for https:// (default: the system's)"),
    KIX_ID("json", NULL, 0x104, "print {\"server\", \"origin\", \"size\", \"logKey\"}"),
};
static const struct kix_cmd trust_cmd = {.prog = "kix trust",
                                         .usage = "[--json] [--cacert FILE] ADDR | --server ADDR",
                                         KIX_CMD_OPTS(trust_opts),
                                         .column = 17};

int cmd_trust(int argc, char **argv)
{
    struct kix_client *c = NULL;
    char log_key[sizeof(((struct kix_client_info *)0)->log_key)];
    struct kix_verifier key;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    int rc;

    struct cli_opts o;
    const char *addr = cli_global.server;
    struct cli_common common;
    int json = cli_global.json, ch;

    if ((rc = cli_global_check("trust", CLI_TAKES_SERVER)))
        return rc;
    cli_common_init(&common); /* trust takes --server, --cacert and --json itself */
    cli_start(&o, &trust_cmd, argc, argv, NULL);
    while ((ch = cli_next(&o)) >= 0) {
        if (ch == 0x102) {
            addr = optarg;
        } else if (ch == 0x104) {
            json = 1;
        } else if (ch == 0x107) {
            common.cacert = optarg;
        }
    }
    if (ch == CLI_OPTS_STOP)
        return o.status;
    if (argc - optind == 1)
        addr = argv[optind];
    else if (argc - optind > 1 || !addr)
        return cli_usage_error("trust", "expected one ADDR (tcp://HOST:PORT, unix:///PATH or "
                                        "https://HOST/PREFIX/)");
    /* the addresses --server takes, a static copy's http(s):// included */
    common.server = addr;
    common.store = NULL;
    if ((rc = cli_connect("trust", &common, &c)))
        return rc;
    /* a kixd's info, a static copy's log.vkey */
    rc = kix_client_log_key(c, log_key, sizeof(log_key), &err);
    if (rc == KIX_OK)
        rc = kix_verifier_parse(log_key, strlen(log_key), &key, &err);
    if (rc == KIX_OK)
        rc = kix_client_checkpoint(c, KIX_NO_INDEX, &note, &err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)note.ptr, note.len, &key, 1, key.name, &opened, &cp,
                                 &err);
    kix_buf_release(&note);
    kix_client_close(c);
    if (rc)
        return cli_fail("trust", rc, &err);
    if (json) {
        int status =
            cli_doc("trust",
                    json_pack("{s:o,s:s,s:I,s:s,s:b}", "server", cli_jstr(addr, strlen(addr)),
                              "origin", cp.origin, "size", (json_int_t)cp.size, "logKey", log_key,
                              "trustOnFirstUse", 1),
                    1, NULL);
        if (status)
            return status;
    } else {
        printf("%s\n", log_key);
    }
    fprintf(stderr,
            "\nThe server at %s says its log is %s (size %llu), signed by the key above;\n"
            "its latest checkpoint verifies with it. This is TRUST ON FIRST USE: compare\n"
            "the key with one the log's operators publish, then pin it:\n"
            "  export KIX_LOG_KEY='%s'\n"
            "or add this line to ~/.config/kix/config:\n"
            "  log-key = %s\n",
            addr, cp.origin, (unsigned long long)cp.size, log_key, log_key);
    return 0;
}
