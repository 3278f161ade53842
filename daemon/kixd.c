/* kixd — the kix log server: its subcommands (each in its own file) and
 * serve, whose options are serve_options.c's. */
#include <stdio.h>
#include <errno.h>
#include <string.h>

#include "cmd_backup.h"
#include "cmd_check.h"
#include "cmd_compact.h"
#include "cmd_migrate.h"
#include "cmd_promote.h"
#include "config.h"
#include "diag.h"
#include "export.h"
#include "init.h"
#include "kix/parallel.h"
#include "kix/version.h"
#include "server.h"

/* Every subcommand, once: main() dispatches through it and --help lists
 * it, so a command cannot be reachable and unlisted. */
struct kixd_command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *summary;
};

static int serve_main(int argc, char **argv);

static const struct kixd_command commands[] = {
    {"init", kixd_init_main, "create a new log (store, log key, entry 0)"},
    {"serve", serve_main, "serve a log (the default when the first argument is an option)"},
    {"check", kixd_check_main, "check a store against itself: checkpoints, tree, entries, objects"},
    {"export", kixd_export_main, "write a store's log into a directory as C2SP tlog-tiles"},
    {"backup", kixd_backup_main, "a checked, compacted copy of a store, made while kixd serves it"},
    {"promote", kixd_promote_main, "make a mirror's store the origin, with the log's key"},
    {"migrate", kixd_migrate_main, "back up, convert and check a store an older kixd wrote"},
    {"compact", kixd_compact_main, "write a stopped store's index again in key order, pages full"},
};

static void print_help(FILE *out)
{
    fputs("usage: kixd COMMAND [ARGS]\n\nkixd is the kix log server.\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-9s%s\n", commands[i].name, commands[i].summary);
    fputs("\n'kixd COMMAND --help' describes one command; 'kixd --version' prints the version.\n",
          out);
}

/* kixd --dump-options: every command's table (kix/cmdline.h), each
 * printed by the command itself from the table it parses with, so the
 * dump cannot differ from what is parsed. integration.options checks the
 * man page, the completions and --help against it. */
static int dump_options(void)
{
    fputs("kixd\n", stdout);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        char dump[] = "--dump-options", *argv[] = {(char *)commands[i].name, dump, NULL};
        int status;
        fflush(stdout);
        if ((status = commands[i].main(2, argv)) != 0)
            return status;
    }
    return 0;
}

static int serve_main(int argc, char **argv)
{
    struct kixd_config cfg;
    int status = kixd_config_parse(&cfg, argc, argv);

    if (status >= 0)
        return status;
    if (cfg.log_file[0] && kixd_log_open_file(cfg.log_file) != 0) {
        fprintf(stderr, "kixd: --log-file %s: %s\n", cfg.log_file, strerror(errno));
        return 3;
    }
    kixd_log_set_level(cfg.log_level);
    kixd_log_set_format(cfg.log_json);
    kixd_log_set_slow_ms(cfg.log_slow_ms);
    return kixd_server_run(&cfg);
}

int main(int argc, char **argv)
{
    kix_parallel_heap_pad();
    for (size_t i = 0; argc >= 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].main(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        print_help(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--dump-options") == 0)
        return dump_options();
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        puts("kixd " KIX_VERSION_STRING);
        return 0;
    }
    if (argc >= 2 && argv[1][0] != '-') {
        fprintf(stderr, "kixd: unknown command '%s'\nTry 'kixd --help'.\n", argv[1]);
        return 2;
    }
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    return serve_main(argc, argv);
}
