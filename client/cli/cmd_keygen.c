/* kix keygen: a new Ed25519 key pair in the C2SP text forms. */
#include <string.h>

#include "cli.h"
#include "kix/note.h"

static const struct kix_opt keygen_opts[] = {
    KIX_NOTE("\n"
             "Generates an Ed25519 key pair: PREFIX.key holds the private key\n"
             "(PRIVATE+KEY+NAME+..., created with mode 0600, never overwritten) and\n"
             "PREFIX.pub the verifier key (NAME+HASH+BASE64) to hand to a log admin or\n"
             "to pin. The private key is never printed.\n"
             "\n"),
    KIX_ID("name", "NAME", 'n', "the key's name (no spaces or '+'), e.g. alice@example.org"),
    KIX_ID("out", "PREFIX", 'o', "where to write PREFIX.key and PREFIX.pub"),
    KIX_ID("witness", NULL, 'w', "a witness key for cosigning checkpoints (tlog-cosignature)"),
    KIX_ID("json", NULL, 'j',
           "print {\"name\", \"verifierKey\", \"keyId\", \"shortId\",\n"
           "\"privateKeyFile\", \"publicKeyFile\", \"witness\"}"),
    KIX_NOTE("\n"
             "exit status: 0 ok, 1 a file exists or the name is invalid, 2 usage, 3 I/O error\n"),
};
static const struct kix_cmd keygen_cmd = {.prog = "kix keygen",
                                          .usage = "--name NAME --out PREFIX [--witness] [--json]",
                                          KIX_CMD_OPTS(keygen_opts),
                                          .column = 16};

int cmd_keygen(int argc, char **argv)
{
    struct cli_opts o;
    const char *name = NULL, *prefix = NULL;
    char keypath[4096], pubpath[4096];
    struct kix_signer *s = NULL;
    struct kix_verifier v;
    struct kix_err err = {0};
    uint8_t alg = KIX_NOTE_ALG_ED25519;
    int c, rc, json = cli_global.json, status = 0;

    if ((rc = cli_global_check("keygen", 0)))
        return rc;
    cli_start(&o, &keygen_cmd, argc, argv, NULL);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 'n':
            name = optarg;
            break;
        case 'o':
            prefix = optarg;
            break;
        case 'w':
            alg = KIX_NOTE_ALG_COSIGN;
            break;
        case 'j':
            json = 1;
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (!name || !prefix || optind != argc)
        return cli_usage_error("keygen", "--name NAME and --out PREFIX are required");
    snprintf(keypath, sizeof(keypath), "%s.key", prefix);
    snprintf(pubpath, sizeof(pubpath), "%s.pub", prefix);
    rc = kix_signer_generate(name, alg, &s, &err);
    if (rc == KIX_OK)
        rc = kix_keyfile_write(keypath, s, &err);
    if (rc == KIX_OK) {
        kix_verifier_from_signer(s, &v);
        rc = kix_pubfile_write(pubpath, &v, &err);
        if (rc)
            remove(keypath); /* no half key pair */
    }
    if (rc == KIX_OK) {
        struct kix_buf text = KIX_BUF_INIT;
        char id[KIX_KEY_ID_HEX_LEN + 1];
        kix_key_id(v.pub, id);
        if (kix_signer_format_verifier(s, &text) == KIX_OK && kix_buf_addc(&text, 0) == KIX_OK) {
            if (json) {
                char shortid[17];
                snprintf(shortid, sizeof(shortid), "%.16s", id);
                status = cli_doc("keygen",
                                 json_pack("{s:o,s:s,s:s,s:s,s:o,s:o,s:b}", "name",
                                           cli_jstr(name, strlen(name)), "verifierKey",
                                           (const char *)text.ptr, "keyId", id, "shortId", shortid,
                                           "privateKeyFile", cli_jstr(keypath, strlen(keypath)),
                                           "publicKeyFile", cli_jstr(pubpath, strlen(pubpath)),
                                           "witness", alg == KIX_NOTE_ALG_COSIGN),
                                 1, NULL);
            } else {
                printf("%s\n", (const char *)text.ptr);
            }
        }
        kix_buf_release(&text);
        fprintf(stderr, "wrote %s (private, mode 0600) and %s\n", keypath, pubpath);
        /* the log's form of this key, as kix key list and every message show it */
        fprintf(stderr, "key id %.16s (full %s)\n", id, id);
    }
    kix_signer_free(s);
    return rc ? cli_fail("keygen", rc, &err) : status;
}
