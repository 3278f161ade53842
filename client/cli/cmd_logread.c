/* kix info, checkpoint, entry, proof, receipt: reading a log, local or remote. */
#include <sodium.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/trust.h"

/* Parses argv with the common options plus --size; returns exit status or -1. */

static const struct kix_opt info_opts[] = {
    KIX_NOTE("\n"
             "Prints the log's origin, verifier key and size as the server reports them\n"
             "(unverified; kix checkpoint verifies), and a server's limits per message and\n"
             "per call. --json prints the document kix.info/1 the text is written from.\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd info_cmd = {
    .prog = "kix info", .usage = "[options] [--json]", KIX_CMD_OPTS(info_opts)};

int cmd_info(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_client_info info;
    struct kix_err err = {0};
    int status = cli_parse(&info_cmd, argc, argv, &common, NULL, NULL, NULL), rc;

    if (status >= 0)
        return status;
    if (optind != argc)
        return cli_usage_error("info", "unexpected argument %s", argv[optind]);
    if ((status = cli_connect("info", &common, &cl)))
        return status;
    if ((status = cli_contact("info", &common, cl, &key, CLI_CONTACT_STATUS, NULL))) {
        kix_client_close(cl);
        return status;
    }
    rc = kix_client_info(cl, &info, &err);
    if (rc == KIX_OK) {
        /* one document (kix/doc.h): the JSON, or its text */
        struct kix_doc_info d = {info.origin,
                                 info.log_key,
                                 info.version,
                                 info.upstream,
                                 info.last_error,
                                 info.fork_reason,
                                 info.fork_evidence,
                                 info.size,
                                 info.upstream_size,
                                 info.lag_entries,
                                 info.committed,
                                 info.fork_size,
                                 info.lag_seconds,
                                 info.mirror,
                                 info.fork,
                                 info.limits.max_message,
                                 info.limits.max_in_flight,
                                 info.limits.max_batch,
                                 info.limits.max_entries,
                                 info.limits.max_objects,
                                 info.limits.max_checkpoints,
                                 info.limits.max_runs};
        status = cli_doc("info", kix_doc_info(&d), common.json, kix_doc_info_text);
    }
    kix_client_close(cl);
    return rc ? cli_fail("info", rc, &err) : status;
}

static const struct kix_opt checkpoint_opts[] = {
    KIX_NOTE("\n"
             "Prints the latest signed checkpoint (or the one at size N) after verifying\n"
             "its signature against the log key.\n"
             "\n"),
    KIX_ID("size", "N", CLI_OPT_SIZE, "the checkpoint at size N (default: the latest)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd checkpoint_cmd = {
    .prog = "kix checkpoint", .usage = "[--size N] [options]", KIX_CMD_OPTS(checkpoint_opts)};

int cmd_checkpoint(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note opened;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    uint64_t size = KIX_NO_INDEX;
    size_t witnessed = 0;
    int status = cli_parse(&checkpoint_cmd, argc, argv, &common, &size, NULL, NULL), rc;

    if (status >= 0)
        return status;
    if (optind != argc)
        return cli_usage_error("checkpoint", "unexpected argument %s", argv[optind]);
    if ((status = cli_connect("checkpoint", &common, &cl)))
        return status;
    if ((status = cli_contact("checkpoint", &common, cl, &key, CLI_CONTACT_READ, NULL)))
        goto out;
    rc = kix_client_checkpoint(cl, size, &note, &err);
    if (rc == KIX_OK)
        rc = cli_witness_check(&key, (const char *)note.ptr, note.len, &witnessed, &err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)note.ptr, note.len, &key, 1, key.name, &opened, &cp,
                                 &err);
    /* an older checkpoint must be a prefix of what this client verified */
    if (rc == KIX_OK)
        rc = kix_trust_check_past(cl, &key, (const char *)note.ptr, note.len, NULL, &err);
    if (rc == KIX_OK && size != KIX_NO_INDEX && cp.size != size)
        rc = kix_err_set(&err, KIX_EVERIFY, "asked for size %llu, got a checkpoint of size %llu",
                         (unsigned long long)size, (unsigned long long)cp.size);
    if (rc) {
        status = cli_fail("checkpoint", rc, &err);
        goto out;
    }
    if (common.json) {
        char root[64];
        sodium_bin2base64(root, sizeof(root), cp.root, 32, sodium_base64_VARIANT_ORIGINAL);
        status =
            cli_doc("checkpoint",
                    json_pack("{s:s,s:I,s:s,s:I,s:o}", "origin", cp.origin, "size",
                              (json_int_t)cp.size, "root", root, "witnesses", (json_int_t)witnessed,
                              "checkpoint", cli_jstr((const char *)note.ptr, note.len)),
                    1, NULL);
    } else {
        fwrite(note.ptr, 1, note.len, stdout);
    }
out:
    kix_buf_release(&note);
    kix_client_close(cl);
    return status;
}

static const struct kix_opt entry_opts[] = {
    KIX_NOTE("\n"
             "Writes the raw leaf bytes of log entry INDEX (the canonical DSSE envelope);\n"
             "with --json, {\"index\": INDEX, \"entry\": ENVELOPE} on one line. Use kix\n"
             "receipt to get it with its proof.\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd entry_cmd = {
    .prog = "kix entry", .usage = "INDEX [options]", KIX_CMD_OPTS(entry_opts)};

static int write_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    const struct cli_common *common = ctx;

    json_t *entry;

    if (!common->json) {
        fwrite(leaf, 1, len, stdout);
        return 0;
    }
    /* canonical JSON: it embeds as JSON */
    entry = json_loadb((const char *)leaf, len, 0, NULL);
    return cli_doc("entry",
                   json_pack("{s:I,s:o}", "index", (json_int_t)index, "entry",
                             entry ? entry : cli_jstr((const char *)leaf, len)),
                   1, NULL);
}

int cmd_entry(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_err err = {0};
    uint64_t index, got = 0;
    int status = cli_parse(&entry_cmd, argc, argv, &common, NULL, NULL, NULL), rc;

    if (status >= 0)
        return status;
    if (argc - optind != 1 || cli_parse_u64(argv[optind], &index))
        return cli_usage_error("entry", "expected one INDEX");
    if ((status = cli_connect("entry", &common, &cl)))
        return status;
    if ((status = cli_contact("entry", &common, cl, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(cl);
        return status;
    }
    rc = kix_client_entries(cl, index, 1, write_entry, &common, &got, &err);
    if (rc == KIX_OK && got == 0)
        rc = kix_err_set(&err, KIX_ENOTFOUND, "no entry %llu in the log at %s",
                         (unsigned long long)index, kix_client_where(cl));
    kix_client_close(cl);
    return rc ? cli_fail("entry", rc, &err) : 0;
}

static const struct kix_opt proof_opts[] = {
    KIX_NOTE("\n"
             "Prints an RFC 9162 proof, one base64 hash per line in the RFC's order:\n"
             "the inclusion of entry INDEX in the tree of size N (default: the latest),\n"
             "or the consistency of the tree of size OLD with the tree of size NEW.\n"
             "With --json, one object: {\"kind\": \"inclusion\", \"index\", \"size\" (when\n"
             "given), \"hashes\": [...]} or {\"kind\": \"consistency\", \"old\", \"new\",\n"
             "\"hashes\": [...]}.\n"
             "\n"),
    KIX_ID("size", "N", CLI_OPT_SIZE,
           "the tree size the inclusion proof is for (default: the latest)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd proof_cmd = {.prog = "kix proof",
                                         .usage = "inclusion INDEX [--size N] [options]\n"
                                                  "kix proof consistency OLD NEW [options]",
                                         KIX_CMD_OPTS(proof_opts)};

static int print_proof(const struct cli_common *common, int inclusion, uint64_t a, uint64_t b,
                       const struct kix_hash *p, size_t n)
{
    char b64[64];
    json_t *o = NULL, *hashes = json_array();

    if (common->json && inclusion && b != KIX_NO_INDEX)
        o = json_pack("{s:s,s:I,s:I}", "kind", "inclusion", "index", (json_int_t)a, "size",
                      (json_int_t)b);
    else if (common->json && inclusion)
        o = json_pack("{s:s,s:I}", "kind", "inclusion", "index", (json_int_t)a);
    else if (common->json)
        o = json_pack("{s:s,s:I,s:I}", "kind", "consistency", "old", (json_int_t)a, "new",
                      (json_int_t)b);
    for (size_t i = 0; i < n; i++) {
        sodium_bin2base64(b64, sizeof(b64), p[i].b, 32, sodium_base64_VARIANT_ORIGINAL);
        if (common->json)
            json_array_append_new(hashes, json_string(b64));
        else
            printf("%s\n", b64);
    }
    if (!common->json) {
        json_decref(hashes);
        return 0;
    }
    if (o && json_object_set_new(o, "hashes", hashes) != 0) {
        json_decref(o);
        o = NULL;
    } else if (!o) {
        json_decref(hashes);
    }
    return cli_doc("proof", o, 1, NULL);
}

int cmd_proof(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF];
    struct kix_err err = {0};
    uint64_t size = KIX_NO_INDEX, a, b;
    size_t n = 0;
    int status, rc, inclusion;

    if (cli_dump_requested(argc, argv)) {
        kix_cmdline_dump(stdout, &proof_cmd);
        return 0;
    }
    if (argc < 2 || cli_wants_help(argc, argv)) {
        cli_help(argc < 2 ? stderr : stdout, &proof_cmd);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    static const char *const kinds[] = {"inclusion", "consistency"};
    inclusion = strcmp(argv[1], "inclusion") == 0;
    if (!inclusion && strcmp(argv[1], "consistency") != 0)
        return cli_unknown("proof", CLI_UNKNOWN_SUBCOMMAND, argv[1], strlen(argv[1]), kinds, 2);
    status = cli_parse(&proof_cmd, argc - 1, argv + 1, &common, &size, NULL, NULL);
    if (status >= 0)
        return status;
    argc -= 1;
    argv += 1;
    if (inclusion && (argc - optind != 1 || cli_parse_u64(argv[optind], &a)))
        return cli_usage_error("proof", "expected one INDEX");
    if (!inclusion && (argc - optind != 2 || cli_parse_u64(argv[optind], &a) ||
                       cli_parse_u64(argv[optind + 1], &b)))
        return cli_usage_error("proof", "expected OLD and NEW sizes");
    if ((status = cli_connect("proof", &common, &cl)))
        return status;
    if ((status = cli_contact("proof", &common, cl, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(cl);
        return status;
    }
    rc = inclusion ? kix_client_inclusion(cl, a, size, proof, &n, &err)
                   : kix_client_consistency(cl, a, b, proof, &n, &err);
    if (rc == KIX_OK)
        status = print_proof(&common, inclusion, a, inclusion ? size : b, proof, n);
    kix_client_close(cl);
    return rc ? cli_fail("proof", rc, &err) : status;
}

static const struct kix_opt receipt_opts[] = {
    KIX_NOTE("\n"
             "Prints the C2SP tlog-proof receipt of entry INDEX: the entry, its inclusion\n"
             "proof and the signed checkpoint. 'kix verify' checks it offline. With\n"
             "--json, {\"index\": INDEX, \"receipt\": TEXT} on one line.\n"
             "\n"),
    KIX_ID("size", "N", CLI_OPT_SIZE,
           "prove inclusion in the tree of size N (default: the latest)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd receipt_cmd = {
    .prog = "kix receipt", .usage = "INDEX [--size N] [options]", KIX_CMD_OPTS(receipt_opts)};

int cmd_receipt(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_err err = {0};
    uint64_t index, size = KIX_NO_INDEX;
    int status = cli_parse(&receipt_cmd, argc, argv, &common, &size, NULL, NULL), rc;

    if (status >= 0)
        return status;
    if (argc - optind != 1 || cli_parse_u64(argv[optind], &index))
        return cli_usage_error("receipt", "expected one INDEX");
    if ((status = cli_connect("receipt", &common, &cl)))
        return status;
    if ((status = cli_contact("receipt", &common, cl, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(cl);
        return status;
    }
    rc = kix_client_receipt(cl, index, size, &out, &err);
    if (rc == KIX_OK && common.json) {
        status = cli_doc("receipt",
                         json_pack("{s:I,s:o}", "index", (json_int_t)index, "receipt",
                                   cli_jstr((const char *)out.ptr, out.len)),
                         1, NULL);
    } else if (rc == KIX_OK) {
        fwrite(out.ptr, 1, out.len, stdout);
    }
    kix_buf_release(&out);
    kix_client_close(cl);
    return rc ? cli_fail("receipt", rc, &err) : status;
}
