/* kix store put|get|has|count|missing: the embedded object store, no daemon. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/store.h"

static const struct kix_opt store_opts[] = {
    KIX_NOTE("\n"
             "Works on an embedded store directory directly (no kixd).\n"
             "\n"
             "  put FILE...        canonicalize and store JSON objects; prints each digest\n"
             "  get DIGEST         write an object's canonical bytes to standard output\n"
             "  has DIGEST         print yes or no; exit 0 when present, 1 when absent\n"
             "  count              print the number of stored objects\n"
             "  missing FILE       print the references of FILE that are not stored\n"
             "\n"),
    KIX_ID("store", "DIR", 's', "the store directory (created by put if absent)"),
    KIX_ID("json", NULL, 'j',
           "one object: put {\"objects\": [{\"file\", \"digest\",\n"
           "\"created\"}]}, get {\"digest\", \"object\"}, has {\"digest\",\n"
           "\"present\"}, count {\"objects\": N}, missing {\"missing\": [...]}"),
    KIX_NOTE("\n"
             "exit status: 0 ok, 1 rejected input / not found, 2 usage, 3 I/O error\n"),
};
static const struct kix_cmd store_cmd = {.prog = "kix store",
                                         .usage = "SUBCOMMAND --store DIR [--json] ARGS",
                                         KIX_CMD_OPTS(store_opts),
                                         .column = 21};

struct store_args {
    const char *dir;
    int json;
};

static int open_store(const struct store_args *a, int create, struct kix_store **s,
                      struct kix_err *err)
{
    struct kix_store_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.read_only = !create;
    return kix_store_open(a->dir, &opts, s, err);
}

static int store_put(const struct store_args *a, int n, char **files)
{
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    int rc, status = 0;
    json_t *list = json_array();

    rc = open_store(a, 1, &s, &err);
    if (rc) {
        json_decref(list);
        return cli_fail("store put", rc, &err);
    }
    for (int i = 0; i < n; i++) {
        struct kix_buf in = KIX_BUF_INIT;
        struct kix_digest d;
        char text[KIX_DIGEST_TEXT_LEN + 1];
        int created = 0;

        rc = kix_file_read(files[i], KIX_CANON_DEFAULT_MAX_BYTES, &in, &err);
        if (rc == KIX_OK)
            rc =
                kix_store_put(s, in.ptr ? in.ptr : (const uint8_t *)"", in.len, &d, &created, &err);
        kix_buf_release(&in);
        if (rc) {
            kix_err_wrap(&err, "%s", files[i]);
            status = cli_fail("store put", rc, &err);
            break;
        }
        kix_digest_format(&d, text);
        if (a->json)
            json_array_append_new(list, json_pack("{s:o,s:s,s:b}", "file",
                                                  cli_jstr(files[i], strlen(files[i])), "digest",
                                                  text, "created", created));
        else
            printf("%s  %s\n", text, files[i]);
    }
    kix_store_close(s);
    if (a->json && status == 0)
        return cli_doc("store put", json_pack("{s:o}", "objects", list), 1, NULL);
    json_decref(list);
    return status;
}

static int parse_digest_arg(const char *cmd, int n, char **args, struct kix_digest *d)
{
    struct kix_err err = {0};
    int rc;

    if (n != 1)
        return cli_usage_error(cmd, "expected one DIGEST");
    rc = kix_digest_parse(args[0], strlen(args[0]), d, &err);
    if (rc)
        return cli_fail(cmd, rc, &err);
    return 0;
}

static int store_get(const struct store_args *a, int n, char **args, int has_only)
{
    const char *cmd = has_only ? "store has" : "store get";
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_digest d;
    int rc, status = parse_digest_arg(cmd, n, args, &d);

    if (status)
        return status;
    rc = open_store(a, 0, &s, &err);
    if (rc)
        return cli_fail(cmd, rc, &err);
    if (has_only) {
        rc = kix_store_has(s, &d);
        if (rc < 0)
            status = cli_fail(cmd, rc, NULL);
        else {
            int present = rc;
            if (a->json)
                status = cli_doc(cmd, json_pack("{s:s,s:b}", "digest", args[0], "present", present),
                                 1, NULL);
            else
                puts(present ? "yes" : "no");
            if (status == 0)
                status = present ? 0 : EXIT_REJECTED;
        }
    } else {
        rc = kix_store_get(s, &d, &out, &err);
        if (rc)
            status = cli_fail(cmd, rc, &err);
        else if (a->json) {
            /* canonical JSON: it embeds as JSON */
            json_t *object = json_loadb((const char *)out.ptr, out.len, 0, NULL);
            status = cli_doc(cmd,
                             json_pack("{s:s,s:o}", "digest", args[0], "object",
                                       object ? object : cli_jstr((const char *)out.ptr, out.len)),
                             1, NULL);
        } else
            fwrite(out.ptr, 1, out.len, stdout);
    }
    kix_buf_release(&out);
    kix_store_close(s);
    return status;
}

static int store_count(const struct store_args *a)
{
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    uint64_t n = 0;
    int rc = open_store(a, 0, &s, &err);

    if (rc)
        return cli_fail("store count", rc, &err);
    rc = kix_store_count(s, &n);
    kix_store_close(s);
    if (rc)
        return cli_fail("store count", rc, NULL);
    if (a->json)
        return cli_doc("store count", json_pack("{s:I}", "objects", (json_int_t)n), 1, NULL);
    printf("%llu\n", (unsigned long long)n);
    return 0;
}

static int store_missing(const struct store_args *a, int n, char **args)
{
    struct kix_store *s = NULL;
    struct kix_err err = {0};
    struct kix_buf in = KIX_BUF_INIT;
    struct kix_digest *missing = NULL;
    json_t *list;
    size_t nmissing = 0;
    int rc, status = 0;

    if (n != 1)
        return cli_usage_error("store missing", "expected one FILE");
    rc = kix_file_read(args[0], KIX_CANON_DEFAULT_MAX_BYTES, &in, &err);
    if (rc == KIX_OK)
        rc = open_store(a, 0, &s, &err);
    if (rc == KIX_OK)
        rc = kix_store_missing_refs(s, in.ptr ? in.ptr : (const uint8_t *)"", in.len, &missing,
                                    &nmissing, &err);
    if (rc) {
        status = cli_fail("store missing", rc, &err);
        goto out;
    }
    list = a->json ? json_array() : NULL;
    for (size_t i = 0; i < nmissing; i++) {
        char text[KIX_DIGEST_TEXT_LEN + 1];
        kix_digest_format(&missing[i], text);
        if (a->json)
            json_array_append_new(list, json_string(text));
        else
            puts(text);
    }
    if (a->json &&
        (status = cli_doc("store missing", json_pack("{s:o}", "missing", list), 1, NULL)) != 0)
        goto out;
    status = nmissing ? EXIT_REJECTED : 0;
out:
    free(missing);
    kix_buf_release(&in);
    kix_store_close(s);
    return status;
}

int cmd_store(int argc, char **argv)
{
    static const char *const subcommands[] = {"put", "get", "has", "count", "missing"};
    struct store_args a = {cli_global.store, cli_global.json};
    const char *sub;
    struct cli_opts o;
    int c;

    if ((c = cli_global_check("store", CLI_TAKES_STORE)))
        return c;
    if (cli_dump_requested(argc, argv)) {
        kix_cmdline_dump(stdout, &store_cmd);
        return 0;
    }
    if (argc < 2 || cli_wants_help(argc, argv)) {
        cli_help(argc < 2 ? stderr : stdout, &store_cmd);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    sub = argv[1];
    /* the options after the subcommand: argv[1] is the table's argv[0] */
    cli_start(&o, &store_cmd, argc - 1, argv + 1, NULL);
    while ((c = cli_next(&o)) >= 0) {
        switch (c) {
        case 's':
            a.dir = optarg;
            break;
        case 'j':
            a.json = 1;
            break;
        }
    }
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (!a.dir)
        a.dir = getenv("KIX_STORE");
    if (!a.dir)
        return cli_usage_error("store", "--store DIR is required (or set KIX_STORE)");
    argc -= optind + 1;
    argv += optind + 1;
    if (strcmp(sub, "put") == 0) {
        if (argc < 1)
            return cli_usage_error("store put", "expected at least one FILE");
        return store_put(&a, argc, argv);
    }
    if (strcmp(sub, "get") == 0)
        return store_get(&a, argc, argv, 0);
    if (strcmp(sub, "has") == 0)
        return store_get(&a, argc, argv, 1);
    if (strcmp(sub, "count") == 0)
        return store_count(&a);
    if (strcmp(sub, "missing") == 0)
        return store_missing(&a, argc, argv);
    return cli_unknown("store", CLI_UNKNOWN_SUBCOMMAND, sub, strlen(sub), subcommands,
                       sizeof(subcommands) / sizeof(subcommands[0]));
}
