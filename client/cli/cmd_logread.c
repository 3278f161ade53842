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
             "per call.\n"
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
    if (rc == KIX_OK && common.json) {
        printf("{\"origin\":");
        cli_json_string(stdout, info.origin, strlen(info.origin));
        printf(",\"logKey\":");
        cli_json_string(stdout, info.log_key, strlen(info.log_key));
        printf(",\"size\":%llu,\"version\":", (unsigned long long)info.size);
        cli_json_string(stdout, info.version, strlen(info.version));
        printf(",\"mirror\":%s", info.mirror ? "true" : "false");
        if (info.limits.max_message)
            printf(",\"limits\":{\"maxMessage\":%llu,\"maxInFlight\":%llu,\"maxBatch\":%llu,"
                   "\"maxEntries\":%llu,\"maxObjects\":%llu,\"maxCheckpoints\":%llu,"
                   "\"maxRuns\":%llu}",
                   (unsigned long long)info.limits.max_message,
                   (unsigned long long)info.limits.max_in_flight,
                   (unsigned long long)info.limits.max_batch,
                   (unsigned long long)info.limits.max_entries,
                   (unsigned long long)info.limits.max_objects,
                   (unsigned long long)info.limits.max_checkpoints,
                   (unsigned long long)info.limits.max_runs);
        if (info.upstream[0]) {
            printf(",\"upstream\":");
            cli_json_string(stdout, info.upstream, strlen(info.upstream));
            printf(",\"upstreamSize\":%llu,\"lagEntries\":%llu,\"lagSeconds\":%.0f",
                   (unsigned long long)info.upstream_size, (unsigned long long)info.lag_entries,
                   info.lag_seconds);
        }
        if (info.last_error[0]) {
            printf(",\"lastError\":");
            cli_json_string(stdout, info.last_error, strlen(info.last_error));
        }
        if (info.committed)
            printf(",\"committed\":%llu", (unsigned long long)info.committed);
        if (info.fork) {
            printf(",\"fork\":{\"size\":%llu,\"reason\":", (unsigned long long)info.fork_size);
            cli_json_string(stdout, info.fork_reason, strlen(info.fork_reason));
            printf(",\"evidence\":");
            cli_json_string(stdout, info.fork_evidence, strlen(info.fork_evidence));
            printf("}");
        }
        printf("}\n");
    } else if (rc == KIX_OK) {
        printf("origin   %s\nlog key  %s\nsize     %llu\nversion  %s\n", info.origin, info.log_key,
               (unsigned long long)info.size, info.version);
        if (info.limits.max_message)
            printf("limits   message %llu bytes, %llu requests in flight, batch %llu, per "
                   "call %llu entries, %llu objects, %llu checkpoints, %llu runs\n",
                   (unsigned long long)info.limits.max_message,
                   (unsigned long long)info.limits.max_in_flight,
                   (unsigned long long)info.limits.max_batch,
                   (unsigned long long)info.limits.max_entries,
                   (unsigned long long)info.limits.max_objects,
                   (unsigned long long)info.limits.max_checkpoints,
                   (unsigned long long)info.limits.max_runs);
        if (info.mirror && info.upstream[0])
            printf("mirror   of %s (upstream size %llu, %llu entries behind)\n", info.upstream,
                   (unsigned long long)info.upstream_size, (unsigned long long)info.lag_entries);
        else if (info.mirror)
            printf("mirror   a read-only replica\n");
        if (info.committed)
            printf("pending  entries %llu to %llu are committed but not yet held by the "
                   "mirrors this origin waits for (--ack-replicas): not shown yet\n",
                   (unsigned long long)info.size, (unsigned long long)info.committed - 1);
        if (info.fork)
            printf("FORK     found at size %llu: %s; evidence in %s\n",
                   (unsigned long long)info.fork_size, info.fork_reason, info.fork_evidence);
    }
    kix_client_close(cl);
    return rc ? cli_fail("info", rc, &err) : 0;
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
        printf("{\"origin\":");
        cli_json_string(stdout, cp.origin, strlen(cp.origin));
        printf(",\"size\":%llu,\"root\":\"%s\",\"witnesses\":%zu,\"checkpoint\":",
               (unsigned long long)cp.size, root, witnessed);
        cli_json_string(stdout, (const char *)note.ptr, note.len);
        printf("}\n");
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

    if (common->json)
        printf("{\"index\":%llu,\"entry\":", (unsigned long long)index);
    fwrite(leaf, 1, len, stdout); /* canonical JSON: it embeds as is */
    if (common->json)
        printf("}\n");
    return 0;
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

static void print_proof(const struct cli_common *common, int inclusion, uint64_t a, uint64_t b,
                        const struct kix_hash *p, size_t n)
{
    char b64[64];
    if (common->json && inclusion && b != KIX_NO_INDEX)
        printf("{\"kind\":\"inclusion\",\"index\":%llu,\"size\":%llu,\"hashes\":[",
               (unsigned long long)a, (unsigned long long)b);
    else if (common->json && inclusion)
        printf("{\"kind\":\"inclusion\",\"index\":%llu,\"hashes\":[", (unsigned long long)a);
    else if (common->json)
        printf("{\"kind\":\"consistency\",\"old\":%llu,\"new\":%llu,\"hashes\":[",
               (unsigned long long)a, (unsigned long long)b);
    for (size_t i = 0; i < n; i++) {
        sodium_bin2base64(b64, sizeof(b64), p[i].b, 32, sodium_base64_VARIANT_ORIGINAL);
        if (common->json)
            printf("%s\"%s\"", i ? "," : "", b64);
        else
            printf("%s\n", b64);
    }
    if (common->json)
        printf("]}\n");
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
        print_proof(&common, inclusion, a, inclusion ? size : b, proof, n);
    kix_client_close(cl);
    return rc ? cli_fail("proof", rc, &err) : 0;
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
        printf("{\"index\":%llu,\"receipt\":", (unsigned long long)index);
        cli_json_string(stdout, (const char *)out.ptr, out.len);
        printf("}\n");
    } else if (rc == KIX_OK) {
        fwrite(out.ptr, 1, out.len, stdout);
    }
    kix_buf_release(&out);
    kix_client_close(cl);
    return rc ? cli_fail("receipt", rc, &err) : 0;
}
