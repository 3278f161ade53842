/* kix verify: offline check of a tlog-proof receipt against the log key. */
#include <sodium.h>
#include <string.h>

#include "cli.h"
#include "kix/index.h"
#include "kix/receipt.h"

static const struct kix_opt verify_opts[] = {
    KIX_NOTE("\n"
             "Checks a receipt (C2SP tlog-proof) offline: its checkpoint is signed by the\n"
             "log key, and the entry is included at its index in that checkpoint's tree.\n"
             "The entry is the one the receipt carries, or FILE (which must then match).\n"
             "No server is contacted.\n"
             "\n"),
    KIX_ID("entry", "FILE", 'e', "the entry's bytes (as 'kix entry' writes them)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd verify_cmd = {.prog = "kix verify",
                                          .usage = "RECEIPT [--entry FILE] --log-key KEY [--json]",
                                          KIX_CMD_OPTS(verify_opts),
                                          .column = 19};

int cmd_verify(int argc, char **argv)
{
    struct cli_opts o;
    struct cli_common common;
    struct kix_verifier key;
    struct kix_buf text = KIX_BUF_INIT, entry = KIX_BUF_INIT;
    struct kix_receipt receipt;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    const char *entry_path = NULL;
    int c, rc, status = 0;

    cli_start(&o, &verify_cmd, argc, argv, &common);
    while ((c = cli_next(&o)) >= 0) {
        if (c == 'e') {
            entry_path = optarg;
            continue;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (argc - optind != 1)
        return cli_usage_error("verify", "expected one RECEIPT file");
    if (common.store || common.server)
        return cli_usage_error("verify", "verify works offline; give --log-key, not a log");
    if ((status = cli_log_key("verify", &common, NULL, &key)))
        return status;
    kix_receipt_init(&receipt);
    rc = kix_file_read(argv[optind], KIX_RECEIPT_MAX_BYTES, &text, &err);
    if (rc == KIX_OK && entry_path)
        rc = kix_file_read(entry_path, KIX_LEAF_MAX, &entry, &err);
    if (rc == KIX_OK)
        rc = kix_receipt_verify(text.ptr ? (const char *)text.ptr : "", text.len, &key,
                                entry_path ? (entry.ptr ? entry.ptr : (const uint8_t *)"") : NULL,
                                entry.len, &receipt, &cp, &err);
    if (rc == KIX_OK)
        rc = cli_witness_check(&key, (const char *)receipt.checkpoint.ptr, receipt.checkpoint.len,
                               NULL, &err);
    if (rc) {
        status = cli_fail("verify", rc, &err);
        goto out;
    }
    if (common.json) {
        char root[64];
        sodium_bin2base64(root, sizeof(root), cp.root, 32, sodium_base64_VARIANT_ORIGINAL);
        status =
            cli_doc("verify",
                    json_pack("{s:b,s:s,s:I,s:I,s:s}", "verified", 1, "origin", cp.origin, "index",
                              (json_int_t)receipt.index, "size", (json_int_t)cp.size, "root", root),
                    1, NULL);
    } else {
        printf("verified: entry %llu is in log %s at size %llu\n",
               (unsigned long long)receipt.index, cp.origin, (unsigned long long)cp.size);
    }
out:
    kix_receipt_release(&receipt);
    kix_buf_release(&text);
    kix_buf_release(&entry);
    return status;
}
