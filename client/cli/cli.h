/* client/cli.h — shared plumbing of the kix commands (not a library API).
 *
 * Each command is `int cmd_NAME(int argc, char **argv)` returning a process
 * exit status: 0 ok, 1 rejected input or failed verification, 2 usage,
 * 3 internal or I/O error (see kix/error.h). Commands print results on
 * stdout and errors on stderr as "kix NAME: message".
 */
#ifndef KIX_CLI_H
#define KIX_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "kix/buf.h"
#include "kix/error.h"
#include "kix/file.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE    2
#define EXIT_INTERNAL 3

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

/* Prints "kix CMD: message" for an error and returns its exit status. */
int cli_fail(const char *cmd, int code, const struct kix_err *err);

/* The exit statuses every command keeps (kix_err_exit_status). */
#define CLI_EXIT_HELP                                                                              \
    "exit status: 0 ok, 1 rejected (bad input; a file, record or key not found; a\n"               \
    "failed verification), 2 usage, 3 internal, I/O or server error, 4 the log\n"                  \
    "contradicts what this client verified before (fork, rollback, or a consistency\n"             \
    "proof refused; evidence kept)\n"

/* Prints a command's help to f, with CLI_EXIT_HELP when the text does not
 * list its exit statuses itself. */
void cli_print_help(FILE *f, const char *help);

/* Prints a usage error and a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) KIX_PRINTF(2, 3);

/* True when argv holds -h or --help (before any "--"). */
int cli_wants_help(int argc, char **argv);

/* Options every log command takes: where the log is and how to trust it. */
#define CLI_WITNESSES_MAX 32

struct cli_common {
    const char *store;   /* --store DIR: a local store */
    const char *server;  /* --server ADDR (KIX_SERVER; default tcp://127.0.0.1:7420) */
    const char *log_key; /* --log-key FILE|TEXT (KIX_LOG_KEY) */
    int json;            /* --json */
    const char *witness[CLI_WITNESSES_MAX]; /* --witness FILE|TEXT, repeatable */
    size_t nwitness;                        /* how many were given (may exceed the max) */
    const char *min_witnesses;              /* --min-witnesses N */
    const char *cacert;                     /* --cacert FILE: CAs for https:// servers */
};

#define CLI_COMMON_LONGOPTS                                                                        \
    {"store", required_argument, NULL, 0x101}, {"server", required_argument, NULL, 0x102},         \
        {"log-key", required_argument, NULL, 0x103}, {"json", no_argument, NULL, 0x104},           \
        {"witness", required_argument, NULL, 0x105},                                               \
        {"min-witnesses", required_argument, NULL, 0x106},                                         \
        {"cacert", required_argument, NULL, 0x107},                                                \
    {                                                                                              \
        "help", no_argument, NULL, 'h'                                                             \
    }

#define CLI_COMMON_HELP                                                                            \
    "  --store DIR       use a local store directory instead of a server\n"                        \
    "  --server ADDR     kixd address, tcp://HOST:PORT or unix:///PATH, or a static copy\n"        \
    "                    of the log (tlog-tiles), https://HOST/PREFIX/ (default: a\n"              \
    "                    permalink's own, then $KIX_SERVER, server in\n"                           \
    "                    ~/.config/kix/config, or tcp://127.0.0.1:7420)\n"                         \
    "  --cacert FILE     CA certificates (PEM) for https:// instead of the system's\n"             \
    "  --log-key KEY     the log's verifier key, a file or the key text\n"                         \
    "                    (default $KIX_LOG_KEY, then ~/.config/kix/config); every\n"               \
    "                    command checks the server's latest checkpoint against it\n"               \
    "                    and against the one it verified before (exit 4: fork,\n"                  \
    "                    rollback or consistency proof refused, both checkpoints\n"                \
    "                    kept as evidence)\n"                                                      \
    "  --witness KEY     a witness's verifier key (file or text); repeat for more\n"               \
    "  --min-witnesses N believe a checkpoint only when N of the --witness keys\n"                 \
    "                    cosigned it (default 0; without either option, the\n"                     \
    "                    witnesses and quorum of ~/.config/kix/config)\n"                          \
    "  --json            machine-readable output\n"

/* Takes a common option (returns 1) or not (returns 0). */
int cli_common_option(struct cli_common *c, int opt, const char *arg);
void cli_common_init(struct cli_common *c);

struct kix_client;
struct kix_verifier;
/* Opens the store or connects to the server; prints the error and returns
 * the exit status on failure, 0 on success. */
int cli_connect(const char *cmd, const struct cli_common *c, struct kix_client **out);
/* cli_connect for a command given ref (a permalink, run id or digest): a
 * permalink URL names its own log (its prefix before runs/), read over
 * HTTP(S) unless --server or --store says otherwise. */
int cli_connect_ref(const char *cmd, const struct cli_common *c, const char *ref,
                    struct kix_client **out);
/* The log key to verify against: --log-key, $KIX_LOG_KEY, the config file,
 * or (for a local store only) the store's own key. Returns an exit status. */
int cli_log_key(const char *cmd, const struct cli_common *c, struct kix_client *client,
                struct kix_verifier *out);

/* The first thing every command that reads a log does: take the log key
 * (cli_log_key) and check the server's latest checkpoint against the one
 * this client verified before, remembering it when newer. A fork or a
 * rollback, or a larger checkpoint whose consistency proof the server will
 * not give, is exit 4 with both checkpoints kept as evidence.
 * CLI_CONTACT_STATUS is for status looks (kix info, kix mirror status): a
 * server behind what this client verified is stale, not rolled back, and
 * with no log key configured anywhere nothing is checked (*have_key 0:
 * kix info is how a key is first looked at). */
enum cli_contact_mode { CLI_CONTACT_READ, CLI_CONTACT_STATUS };
int cli_contact(const char *cmd, const struct cli_common *c, struct kix_client *client,
                struct kix_verifier *key, enum cli_contact_mode mode, int *have_key);
/* Parses the common options plus, where the pointer is given, --size,
 * --from and --limit. Returns -1 to go on (optind at the operands), or the
 * exit status to return (0 after --help). */
int cli_parse(const char *cmd, const char *help, int argc, char **argv, struct cli_common *common,
              uint64_t *size, uint64_t *from, uint64_t *limit);
struct kix_buf;
struct kix_checkpoint;
/* The witness rules of the command line (set by cli_log_key from --witness
 * and --min-witnesses), applied to every checkpoint the command believes:
 * kix_trust_check / kix_trust_latest / kix_witness_check with them. These
 * return KIX_* codes with err set, as the library calls do. */
int cli_trust_check(struct kix_client *c, const struct kix_verifier *key, const char *note,
                    size_t len, struct kix_checkpoint *cp, struct kix_err *err);
int cli_trust_latest(struct kix_client *c, const struct kix_verifier *key, struct kix_buf *note,
                     struct kix_checkpoint *cp, struct kix_err *err);
/* The index note's witness cosignatures, by the same rules. */
int cli_witness_check_index(const struct kix_verifier *key, const char *note, size_t len,
                            struct kix_err *err);
int cli_witness_check(const struct kix_verifier *key, const char *note, size_t len, size_t *found,
                      struct kix_err *err);

/* Parses a non-negative decimal; returns 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);
/* Prints a JSON string literal (escaped) to f. */
void cli_json_string(FILE *f, const char *s, size_t len);

/* kix audit: compares the server's leaf hashes and inclusion proofs of
 * entries [from, to) at `size` with the replica's (audit_proofs.c). */
struct kix_log;
int audit_proofs(struct kix_client *c, struct kix_log *replica, uint64_t from, uint64_t to,
                 uint64_t size, struct kix_err *err);

int cmd_keygen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_entry(int argc, char **argv);
int cmd_proof(int argc, char **argv);
int cmd_receipt(int argc, char **argv);
int cmd_verify(int argc, char **argv);

int cmd_trust(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_new(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_supersede(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_key_list(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_cite(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_group(int argc, char **argv);
int cmd_verify_citation(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_audit(int argc, char **argv);

int cmd_mirror(int argc, char **argv);

int cmd_canon(int argc, char **argv);
int cmd_validate(int argc, char **argv);
/* kix validate's checks of FILEs (force: a schema name, or NULL to choose by
 * content); bundle adds kix publish --dry-run's rules (the first file a
 * BenchmarkRun, every other one referenced). data (or NULL: read each path)
 * holds each file's bytes as publish would send them, the paths naming
 * them. Returns the exit status. */
/* log (or NULL: offline): where the references not among the files are
 * looked up, each an error when it names no stored object. */
int cli_validate_files(const char *cmd, char **paths, const struct kix_bytes *data, size_t n,
                       const char *force, int json, int bundle, const struct cli_common *log);
int cmd_digest(int argc, char **argv);
int cmd_store(int argc, char **argv);

#endif
