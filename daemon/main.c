/* kixd — the kix log server: its subcommands (each in its own file) and
 * serve, whose options are config.c's. */
#include <stdio.h>
#include <errno.h>
#include <string.h>

#include "cmd_backup.h"
#include "cmd_check.h"
#include "cmd_promote.h"
#include "config.h"
#include "diag.h"
#include "export.h"
#include "init.h"
#include "kix/version.h"
#include "server.h"

static const char main_help[] =
    "usage: kixd COMMAND [ARGS]\n"
    "\n"
    "kixd is the kix log server.\n"
    "\n"
    "commands:\n"
    "  init    create a new log (store, log key, entry 0)\n"
    "  serve   serve a log (the default when the first argument is an option)\n"
    "  check   check a store against itself: checkpoints, tree, entries, objects\n"
    "  export  write a store's log into a directory as C2SP tlog-tiles\n"
    "  backup  a checked, compacted copy of a store, made while kixd serves it\n"
    "\n"
    "'kixd COMMAND --help' describes one command; 'kixd --version' prints the version.\n";

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
    if (argc >= 2 && strcmp(argv[1], "init") == 0)
        return kixd_init_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return kixd_check_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "backup") == 0)
        return kixd_backup_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "promote") == 0)
        return kixd_promote_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return kixd_export_main(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        fputs(main_help, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        puts("kixd " KIX_VERSION_STRING);
        return 0;
    }
    if (argc >= 2 && argv[1][0] != '-') {
        fprintf(stderr, "kixd: unknown command '%s'\nTry 'kixd --help'.\n", argv[1]);
        return 2;
    }
    if (argc < 2) {
        fputs(main_help, stderr);
        return 2;
    }
    return serve_main(argc, argv);
}
