/* kix — the client: dispatches to one command per verb. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kix/parallel.h"
#include "kix/version.h"

static const struct cli_command commands[] = {
    {"canon", cmd_canon, "write the RFC 8785 canonical form of a JSON object"},
    {"digest", cmd_digest, "print the sha256: digest of a JSON object's canonical form"},
    {"validate", cmd_validate, "check records against the schemas the log enforces, offline"},
    {"store", cmd_store, "put, get and check objects in an embedded store"},
    {"keygen", cmd_keygen, "generate an Ed25519 key pair (C2SP text forms)"},
    {"info", cmd_info, "show a log's origin, key and size"},
    {"checkpoint", cmd_checkpoint, "print the latest signed checkpoint, verified"},
    {"entry", cmd_entry, "write the raw bytes of one log entry"},
    {"proof", cmd_proof, "print an inclusion or consistency proof"},
    {"receipt", cmd_receipt, "print the tlog-proof receipt of an entry"},
    {"verify", cmd_verify, "check a receipt offline against the log key"},
    {"trust", cmd_trust, "fetch a server's log key once, to check and pin"},
    {"new", cmd_new, "write a run bundle skeleton to edit and publish (kix new run)"},
    {"publish", cmd_publish, "sign and publish a benchmark run"},
    {"attest", cmd_attest, "add a community note or reproduction about a run"},
    {"rerun", cmd_rerun, "record a controlled rerun's outcome"},
    {"supersede", cmd_supersede, "publish a corrected run and point the old one at it"},
    {"withdraw", cmd_withdraw, "withdraw a run from ranking, with a reason (curate)"},
    {"reinstate", cmd_reinstate, "undo a run's withdrawal (curate)"},
    {"submit", cmd_submit, "submit a body signed before (--sign-only, a browser)"},
    {"key", cmd_key, "register or revoke a key (admin)"},
    {"policy", cmd_policy, "set the log's policy: open notes from unregistered keys (admin)"},
    {"get", cmd_get, "fetch an object by digest, checked"},
    {"resolve", cmd_resolve, "show a run with every entry about it, verified"},
    {"show", cmd_show, "print the run page, verified"},
    {"query", cmd_query, "list ranked runs by kernel, GPU, provider, pass"},
    {"group", cmd_group, "show one comparison group, best first"},
    {"index", cmd_index, "prove one record (or absence) of the verifiable index"},
    {"cite", cmd_cite, "print a citation of a run"},
    {"verify-citation", cmd_verify_citation, "check a citation against today's log"},
    {"log", cmd_log, "list log entries"},
    {"audit", cmd_audit, "replay and verify the whole log"},
    {"mirror", cmd_mirror, "show a mirror's lag, last error and fork state"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The global options, before the command: the common options of every
 * command's table (cli.h), taken as cli_common_option takes them after it. */
static const struct kix_opt global_opts[] = {CLI_COMMON_OPTS};
static const struct kix_cmd global_cmd = {
    .prog = "kix", .usage = "[GLOBAL OPTIONS] COMMAND [ARGS]", KIX_CMD_OPTS(global_opts)};
#define NGLOBAL (sizeof(global_opts) / sizeof(global_opts[0]))

static void usage(FILE *to)
{
    fprintf(to, "usage: kix [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
                "kix publishes, resolves and verifies records of a signed,\n"
                "append-only log of GPU-kernel benchmark runs.\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(to, "  %-16s %s\n", commands[i].name, commands[i].summary);
    fputs("\nglobal options, before the command, act as the same options after it\n"
          "(one after it wins):",
          to);
    for (size_t i = 0, col = 20; i < NGLOBAL; i++) {
        char one[64];
        int n = snprintf(
            one, sizeof(one), " --%s%s%s%s", global_opts[i].name, global_opts[i].arg ? " " : "",
            global_opts[i].arg ? global_opts[i].arg : "", i + 1 < NGLOBAL ? "," : "\n");
        if (col + (size_t)n > 78) {
            fputs("\n", to);
            col = 0;
            n = fprintf(to, "%s", one + 1);
        } else {
            fputs(one, to);
        }
        col += (size_t)n;
    }
    fprintf(to,
            "\n'kix help COMMAND' (or 'kix COMMAND --help') describes one command; 'kix "
            "--version'\nprints the version. With --json every command prints one JSON "
            "object,\nan error too: {\"error\": {\"code\": ..., \"exitCode\": ...}} on stdout.\n"
            "exit status: 0 ok, 1 rejected input or failed verification, 2 usage,\n"
            "3 internal, I/O or server error, 4 the log contradicts what this client\n"
            "verified before (a fork proven, or a consistency proof refused; evidence\n"
            "kept in the state directory), 5 stale: the copy is behind what this client\n"
            "verified (the answer is as of its size) or older than --max-age\n");
}

/* kix --json help [COMMAND]: the commands (or one) with their summaries,
 * the global options and what each exit status means, for scripts and
 * shell completions. */
static int usage_json(const struct cli_command *only)
{
    static const char *const status[] = {
        "ok",
        "rejected input or failed verification",
        "usage",
        "internal, I/O or server error",
        "the log contradicts what this client verified before (a fork proven, or a consistency "
        "proof refused)",
        "stale: the copy is behind what this client verified (the answer is as of its size) or "
        "older than --max-age"};

    json_t *cmds = json_array(), *opts = json_array(), *codes = json_array();

    for (size_t i = 0; cmds && i < NCOMMANDS; i++)
        if (!only || only == &commands[i])
            json_array_append_new(cmds, json_pack("{s:s,s:s}", "name", commands[i].name, "summary",
                                                  commands[i].summary));
    for (size_t i = 0; opts && i < NGLOBAL; i++)
        json_array_append_new(opts, json_sprintf("--%s", global_opts[i].name));
    for (size_t i = 0; codes && i < sizeof(status) / sizeof(status[0]); i++)
        json_array_append_new(codes,
                              json_pack("{s:I,s:s}", "code", (json_int_t)i, "meaning", status[i]));
    return cli_doc(
        "",
        json_pack("{s:o,s:o,s:o}", "commands", cmds, "globalOptions", opts, "exitStatuses", codes),
        1, NULL);
}

static const struct cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

/* "kix: unknown command 'shwo'; did you mean 'show'?" */
static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    size_t n = 0;

    for (size_t i = 0; i < NCOMMANDS; i++)
        names[n++] = commands[i].name;
    names[n++] = "help";
    return cli_unknown("", CLI_UNKNOWN_COMMAND, name, strlen(name), names, n);
}

/* Takes the global options of argv from *at on; returns -1 at the first
 * word that is no option (the command), else the exit status. */
static int parse_global(int argc, char **argv, int *at)
{
    while (*at < argc && argv[*at][0] == '-' && strcmp(argv[*at], "-h") != 0 &&
           strcmp(argv[*at], "--help") != 0 && strcmp(argv[*at], "--version") != 0 &&
           strcmp(argv[*at], "--dump-options") != 0) {
        const char *arg = argv[*at], *value = NULL;
        size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
        size_t i;

        for (i = 0; len && i < NGLOBAL; i++)
            if (strlen(global_opts[i].name) == len &&
                strncmp(global_opts[i].name, arg + 2, len) == 0)
                break;
        if (!len || i == NGLOBAL) {
            const char *names[NGLOBAL + 2];
            size_t n = 0;

            for (size_t j = 0; j < NGLOBAL; j++)
                names[n++] = global_opts[j].name;
            names[n++] = "help";
            names[n++] = "version";
            return cli_unknown("", CLI_UNKNOWN_OPTION, arg, len ? len + 2 : strlen(arg), names, n);
        }
        if (arg[2 + len] == '=') {
            if (!global_opts[i].arg)
                return cli_usage_error("", "option '--%s' takes no value", global_opts[i].name);
            value = arg + 3 + len;
        } else if (global_opts[i].arg) {
            if (*at + 1 >= argc)
                return cli_usage_error("", "option '--%s' needs a value (--%s %s)",
                                       global_opts[i].name, global_opts[i].name,
                                       global_opts[i].arg);
            value = argv[++*at];
        }
        cli_common_option(&cli_global, global_opts[i].id, value);
        ++*at;
    }
    return -1;
}

/* kix --dump-options: the global options, then every command's table
 * (kix/cmdline.h), each printed by the command itself from the table it
 * parses with. integration.options checks the man page, the completions
 * and each --help against it. */
static int dump_options(void)
{
    kix_cmdline_dump(stdout, &global_cmd);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char dump[] = "--dump-options", *sub[] = {(char *)commands[i].name, dump, NULL};
        int status;
        fflush(stdout);
        if ((status = commands[i].run(2, sub)) != 0)
            return status;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct cli_command *cmd;
    int at = 1, status;

    kix_parallel_heap_pad();
    opterr = 0; /* cli_bad_option says what is wrong, with "did you mean" */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            cli_json_errors = 1;
    if ((status = parse_global(argc, argv, &at)) >= 0)
        return status;
    if (at >= argc) {
        if (at > 1)
            return cli_usage_error("", "expected a COMMAND after the global options");
        usage(stderr);
        return EXIT_USAGE;
    }
    argc -= at - 1;
    argv += at - 1;
    if (strcmp(argv[1], "help") == 0) {
        /* kix help [--json] [COMMAND] [--json]: --json after it too, as after any command */
        int kept = 2;
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--json") == 0)
                cli_global.json = 1;
            else if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0)
                argv[kept++] = argv[i];
        argc = kept;
        if (argc > 3)
            return cli_usage_error("help", "expected at most one COMMAND");
    }
    if (strcmp(argv[1], "help") == 0 && argc == 3) {
        /* kix help CMD: the command's own --help */
        char help_opt[] = "--help";
        char *sub[] = {argv[2], help_opt, NULL};
        if ((cmd = find_command(argv[2])))
            return cli_global.json ? usage_json(cmd) : cmd->run(2, sub);
        return unknown_command(argv[2]);
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (cli_global.json)
            return usage_json(NULL);
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--dump-options") == 0 && argc == 2)
        return dump_options();
    if (strcmp(argv[1], "--version") == 0) {
        if (cli_global.json)
            return cli_doc("", json_pack("{s:s}", "version", KIX_VERSION_STRING), 1, NULL);
        else
            puts("kix " KIX_VERSION_STRING);
        return 0;
    }
    if ((cmd = find_command(argv[1])))
        return cli_stale_status(cmd->name, cmd->run(argc - 1, argv + 1));
    return unknown_command(argv[1]);
}
