/* kix index: one key of the verifiable index, proven against the log key. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/encoding.h"
#include "kix/trust.h"

static const struct kix_opt index_opts[] = {
    KIX_NOTE(
        "\n"
        "Proves one key of the log's verifiable index (the records kix derives from\n"
        "the log and the log key signs beside every checkpoint) at the latest\n"
        "checkpoint: its record and a proof of membership, or a proof that the key\n"
        "is absent. Keys: run/<runId>, group/<64 hex comparison key> (its directory),\n"
        "group/<64 hex>/<runId that starts a page, or nothing for the first page>, key/<64 hex\n"
        "key id>, manifest/<64 hex digest>. The checkpoint is checked against the\n"
        "one this client verified before. With --json: the key, presence, size,\n"
        "roots, the record and proof in hex, and both signed notes, for an outside\n"
        "verifier (proto/PROTOCOL.md, \"The verifiable index\").\n"
        "\n"),
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 proven (present or absent), 1 the proof does not verify or\n"
             "bad key, 2 usage, 3 I/O or server error, 4 the log contradicts what this\n"
             "client verified before, 5 a copy behind it (stale: proven as of its size)\n"),
};
static const struct kix_cmd index_cmd = {
    .prog = "kix index", .usage = "KEY [--json] [options]", KIX_CMD_OPTS(index_opts)};

static void hex_field(json_t *o, const char *name, const uint8_t *p, size_t n)
{
    char *hex = malloc(2 * n + 1);
    if (!hex || !o)
        return;
    kix_hex_encode(p, n, hex);
    json_object_set_new(o, name, json_string(hex));
    free(hex);
}

static int count_member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    (void)rank;
    (void)run_id;
    (void)value;
    ++*(uint64_t *)ctx;
    return 0;
}

static void print_record(const char *ikey, const struct kix_index_answer *a)
{
    struct kix_vindex_run run;
    struct kix_vindex_dir dir;
    struct kix_digest d;
    char page_id[KIX_RUN_ID_MAX + 1];
    uint64_t members = 0;

    if (strncmp(ikey, "run/", 4) == 0 &&
        kix_vindex_run_decode(a->record.ptr, a->record.len, ikey + 4, &run, NULL) == KIX_OK) {
        char m[KIX_DIGEST_TEXT_LEN + 1];
        kix_digest_format(&run.info.manifest, m);
        printf("  manifest      %s\n  published at  %llu\n  evidence      %s\n"
               "  attestations  %llu\n  reruns        %llu\n  entries       %llu\n",
               m, (unsigned long long)run.info.publication_index,
               kix_evidence_name(run.info.evidence), (unsigned long long)run.info.attestations,
               (unsigned long long)run.info.reruns, (unsigned long long)run.info.entries);
        if (run.predecessor[0])
            printf("  supersedes    %s\n", run.predecessor);
        if (run.successor[0])
            printf("  superseded by %s\n", run.successor);
        return;
    }
    if (strncmp(ikey, "group/", 6) == 0 && strlen(ikey) == 70 &&
        kix_hex_decode(ikey + 6, 64, d.b, 32) == KIX_OK &&
        kix_vindex_group_decode(a->record.ptr, a->record.len, &d, &dir, NULL, NULL, NULL) ==
            KIX_OK) {
        printf("  runs ranked   %llu\n  pages         %llu\n", (unsigned long long)dir.count,
               (unsigned long long)dir.pages);
        if (dir.count)
            printf("  best          %s (%llu)\n", dir.best, (unsigned long long)dir.best_value);
        return;
    }
    if (strncmp(ikey, "group/", 6) == 0 && strlen(ikey) > 70 &&
        kix_hex_decode(ikey + 6, 64, d.b, 32) == KIX_OK &&
        kix_vindex_page_decode(a->record.ptr, a->record.len, &d, NULL, page_id, count_member,
                               &members, NULL) == KIX_OK) {
        printf("  page of       %llu runs\n", (unsigned long long)members);
        return;
    }
    printf("  record        %zu bytes\n", a->record.len);
}

int cmd_index(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key;
    struct kix_index_answer a;
    struct kix_err err = {0};
    const char *ikey;
    char root[64];
    int status = cli_parse(&index_cmd, argc, argv, &common, NULL, NULL, NULL), rc;

    memset(&a, 0, sizeof(a));
    if (status >= 0)
        return status;
    if (optind != argc - 1)
        return cli_usage_error("index", optind < argc ? "unexpected argument %s" : "%s",
                               optind < argc ? argv[optind + 1] : "give one KEY");
    ikey = argv[optind];
    if ((status = cli_connect("index", &common, &cl)))
        return status;
    if ((status = cli_contact("index", &common, cl, &key, CLI_CONTACT_READ, NULL)))
        goto out;
    rc = kix_client_index_proof(cl, &key, ikey, &a, &err);
    if (rc == KIX_OK)
        rc =
            cli_trust_check(cl, &key, (const char *)a.checkpoint.ptr, a.checkpoint.len, NULL, &err);
    if (rc) {
        status = cli_fail("index", rc, &err);
        goto out;
    }
    {
        struct kix_buf b = KIX_BUF_INIT;
        if (kix_base64_encode(a.note.index_root.b, 32, &b) == KIX_OK && b.len < sizeof(root)) {
            memcpy(root, b.ptr, b.len);
            root[b.len] = '\0';
        } else {
            root[0] = '\0';
        }
        kix_buf_release(&b);
    }
    if (common.json) {
        json_t *o = json_pack("{s:o,s:b,s:I,s:s}", "key", cli_jstr(ikey, strlen(ikey)), "present",
                              a.present, "size", (json_int_t)a.cp.size, "indexRoot", root);
        if (a.present)
            hex_field(o, "record", a.record.ptr, a.record.len);
        hex_field(o, "proof", a.proof.ptr, a.proof.len);
        if (o)
            json_object_update_new(
                o,
                json_pack("{s:o,s:o}", "checkpoint",
                          cli_jstr((const char *)a.checkpoint.ptr, a.checkpoint.len), "indexNote",
                          cli_jstr((const char *)a.index_note.ptr, a.index_note.len)));
        status = cli_doc("index", o, 1, NULL);
    } else {
        printf("%s: %s at size %llu (index root %s), proof %zu bytes, verified\n", ikey,
               a.present ? "present" : "absent", (unsigned long long)a.cp.size, root, a.proof.len);
        if (a.present)
            print_record(ikey, &a);
    }
out:
    kix_index_answer_release(&a);
    kix_client_close(cl);
    return status;
}
