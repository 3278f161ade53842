/* kix — the client: dispatches to one command per verb. */
#include <string.h>

#include "cli.h"
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
    {"key", cmd_key, "register or revoke a key (admin)"},
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

static void usage(FILE *to)
{
    fprintf(to, "usage: kix COMMAND [ARGS]\n\n"
                "kix publishes, resolves and verifies records of a signed,\n"
                "append-only log of GPU-kernel benchmark runs.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(to, "  %-16s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n'kix help COMMAND' (or 'kix COMMAND --help') describes one command; 'kix "
                "--version'\nprints the version.\n"
                "exit status: 0 ok, 1 rejected input or failed verification, 2 usage,\n"
                "3 internal, I/O or server error, 4 the log contradicts what this client\n"
                "verified before (fork, rollback or consistency proof refused; evidence kept\n"
                "in the state directory)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "help") == 0 && argc == 3) {
        /* kix help CMD: the command's own --help */
        char help_opt[] = "--help";
        char *sub[] = {argv[2], help_opt, NULL};
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].run(2, sub);
        fprintf(stderr, "kix help: unknown command '%s'\nTry 'kix --help'.\n", argv[2]);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts("kix " KIX_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kix: unknown command '%s'\nTry 'kix --help'.\n", argv[1]);
    return EXIT_USAGE;
}
