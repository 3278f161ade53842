/* kix canon / kix digest: canonical bytes and digests of JSON files. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/canon.h"
#include "kix/digest.h"

static const struct kix_opt canon_opts[] = {
    KIX_NOTE("\n"
             "Writes the RFC 8785 (JCS) canonical form of a JSON object: sorted keys,\n"
             "shortest numbers, no whitespace and no trailing newline. Reads standard\n"
             "input when FILE is - or absent.\n"
             "\n"),
    KIX_ID("max-bytes", "N", 'm', "refuse input larger than N bytes (default 1048576)"),
    KIX_ID("json", NULL, 'j',
           "print {\"canonical\": the canonical text as a JSON string,\n"
           "\"bytes\": its length}"),
    KIX_NOTE("Any JSON value is accepted at the top level (kix digest and the store\n"
             "take objects only).\n"
             "\n"
             "exit status: 0 ok, 1 input rejected (the message says why and where) or\n"
             "FILE not found, 2 usage, 3 I/O error\n"),
    KIX_ID("any", NULL, 'a', NULL), /* any top-level value, for kix's own tests */
};
static const struct kix_cmd canon_cmd = {.prog = "kix canon",
                                         .usage = "[--max-bytes N] [--json] [FILE|-]",
                                         KIX_CMD_OPTS(canon_opts),
                                         .column = 17};

static const struct kix_opt digest_opts[] = {
    KIX_NOTE("\n"
             "Prints sha256:<hex> of the canonical form of a JSON object: the name it\n"
             "is stored and cited under.\n"
             "\n"),
    KIX_ID("max-bytes", "N", 'm', "refuse input larger than N bytes (default 1048576)"),
    KIX_ID("json", NULL, 'j', "print {\"digest\": \"sha256:...\"}"),
    KIX_ID("any", NULL, 'a', NULL), /* as kix canon's */
    KIX_NOTE("\nexit status: 0 ok, 1 input rejected or FILE not found, 2 usage, 3 I/O error\n"),
};
static const struct kix_cmd digest_cmd = {
    .prog = "kix digest", .usage = "[--max-bytes N] [--json] [FILE|-]", KIX_CMD_OPTS(digest_opts)};

static int canon_main(int argc, char **argv, int digest_only)
{
    struct cli_opts o;
    const char *cmd = digest_only ? "digest" : "canon";
    /* canon is the generic JCS tool; digest names objects, as the store does. */
    struct kix_canon_opts opts = {0, 0, !digest_only};
    struct kix_buf in = KIX_BUF_INIT, out = KIX_BUF_INIT;
    struct kix_err err = {0};
    const char *path = "-";
    int c, rc, status = 0, json = cli_global.json;

    if ((status = cli_global_check(cmd, 0)))
        return status;
    cli_start(&o, digest_only ? &digest_cmd : &canon_cmd, argc, argv, NULL);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 'm':
            opts.max_bytes = strtoull(optarg, NULL, 10);
            if (!opts.max_bytes)
                return cli_usage_error(cmd, "--max-bytes needs a positive number");
            break;
        case 'a':
            opts.allow_any_top = 1;
            break;
        case 'j':
            json = 1;
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (argc - optind > 1)
        return cli_usage_error(cmd, "expected one FILE, got %d", argc - optind);
    if (optind < argc)
        path = argv[optind];
    rc = kix_file_read(path, opts.max_bytes ? opts.max_bytes : KIX_CANON_DEFAULT_MAX_BYTES, &in,
                       &err);
    if (rc == KIX_OK)
        rc = kix_canon(in.ptr ? in.ptr : (const uint8_t *)"", in.len, &opts, &out, &err);
    if (rc) {
        if (rc != KIX_ENOTFOUND && rc != KIX_EIO)
            kix_err_wrap(&err, "%s", strcmp(path, "-") ? path : "standard input");
        status = cli_fail(cmd, rc, &err);
        goto out;
    }
    if (digest_only) {
        struct kix_digest d;
        char text[KIX_DIGEST_TEXT_LEN + 1];
        kix_digest_of(out.ptr, out.len, &d);
        kix_digest_format(&d, text);
        if (json)
            status = cli_doc(cmd, json_pack("{s:s}", "digest", text), 1, NULL);
        else
            puts(text);
    } else if (json) {
        status =
            cli_doc(cmd,
                    json_pack("{s:o,s:I}", "canonical", cli_jstr((const char *)out.ptr, out.len),
                              "bytes", (json_int_t)out.len),
                    1, NULL);
    } else {
        fwrite(out.ptr, 1, out.len, stdout);
    }
    if (fflush(stdout) != 0)
        status = EXIT_INTERNAL;
out:
    kix_buf_release(&in);
    kix_buf_release(&out);
    return status;
}

int cmd_canon(int argc, char **argv)
{
    return canon_main(argc, argv, 0);
}

int cmd_digest(int argc, char **argv)
{
    return canon_main(argc, argv, 1);
}
