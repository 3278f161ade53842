/* kix canon / kix digest: canonical bytes and digests of JSON files. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/canon.h"
#include "kix/digest.h"

static const char canon_help[] =
    "usage: kix canon [--max-bytes N] [--json] [FILE|-]\n"
    "\n"
    "Writes the RFC 8785 (JCS) canonical form of a JSON object: sorted keys,\n"
    "shortest numbers, no whitespace and no trailing newline. Reads standard\n"
    "input when FILE is - or absent.\n"
    "\n"
    "  --max-bytes N  refuse input larger than N bytes (default 1048576)\n"
    "  --json         print {\"canonical\": the canonical text as a JSON string,\n"
    "                 \"bytes\": its length}\n"
    "Any JSON value is accepted at the top level (kix digest and the store\n"
    "take objects only).\n"
    "\n"
    "exit status: 0 ok, 1 input rejected (the message says why and where) or\n"
    "FILE not found, 2 usage, 3 I/O error\n";

static const char digest_help[] =
    "usage: kix digest [--max-bytes N] [--json] [FILE|-]\n"
    "\n"
    "Prints sha256:<hex> of the canonical form of a JSON object: the name it\n"
    "is stored and cited under. With --json: {\"digest\": \"sha256:...\"}.\n"
    "\n"
    "exit status: 0 ok, 1 input rejected or FILE not found, 2 usage, 3 I/O error\n";

static int canon_main(int argc, char **argv, int digest_only)
{
    static const struct option longopts[] = {{"max-bytes", required_argument, NULL, 'm'},
                                             {"any", no_argument, NULL, 'a'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *cmd = digest_only ? "digest" : "canon";
    /* canon is the generic JCS tool; digest names objects, as the store does. */
    struct kix_canon_opts opts = {0, 0, !digest_only};
    struct kix_buf in = KIX_BUF_INIT, out = KIX_BUF_INIT;
    struct kix_err err = {0};
    const char *path = "-";
    int c, rc, status = 0, json = cli_global.json;

    if ((status = cli_global_check(cmd, 0)))
        return status;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
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
        case 'h':
            cli_print_help(stdout, digest_only ? digest_help : canon_help);
            return 0;
        default:
            return cli_bad_option(cmd, argv, longopts);
        }
    }
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
