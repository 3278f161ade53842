/* client/cli.h — shared plumbing of the kix commands (not a library API).
 *
 * Each command is `int cmd_NAME(int argc, char **argv)` returning a process
 * exit status: 0 ok, 1 rejected input or failed verification, 2 usage,
 * 3 internal or I/O error (see kix/error.h). Commands print results on
 * stdout and errors on stderr as "kix NAME: message"; with --json, one
 * JSON object on stdout either way (cli_report; docs/REFERENCE.md, "Output for
 * scripts").
 */
#ifndef KIX_CLI_H
#define KIX_CLI_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "kix/buf.h"
#include "kix/cmdline.h"
#include "kix/doc.h"
#include "kix/error.h"
#include "kix/file.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE    2
#define EXIT_INTERNAL 3
#define EXIT_STALE    5 /* KIX_ESTALE: a copy behind what this client verified */

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

/* Prints "kix CMD: message" for an error and returns its exit status.
 * Under --json (cli_json_errors) it also prints one object on stdout,
 * {"error":{"code","exitCode","command","message","cause","fix",...data}}
 * (docs/REFERENCE.md, "Output for scripts"). */
int cli_fail(const char *cmd, int code, const struct kix_err *err);
/* cli_fail with what to do (fix, or NULL) and more members of the error
 * object (data: a JSON object whose members are added, borrowed, or NULL). */
int cli_fail_with(const char *cmd, int code, const struct kix_err *err, const char *fix,
                  json_t *data);

/* One error as cli_report prints it: code is the machine code (camelCase),
 * message the sentence for people, cause what kind of failure it is, fix
 * what to do (NULL: none known), hint a second line of prose for stderr
 * only (NULL: none), data more members of the JSON object (or NULL). */
struct cli_error {
    const char *code;
    const char *message;
    const char *cause;
    const char *fix;
    const char *hint;
    json_t *data; /* members added to the --json error object (borrowed), or NULL */
};
int cli_report(const char *cmd, int status, const struct cli_error *e);

/* --json anywhere on the command line before "--" (set by main): errors
 * are JSON objects on stdout too. */
extern int cli_json_errors;
/* the code of the last failure cli_fail reported (KIX_OK: none) */
extern int cli_last_code;

/* The exit statuses every command keeps (kix_err_exit_status). */
#define CLI_EXIT_HELP                                                                              \
    "exit status: 0 ok, 1 rejected (bad input; a file, record or key not found; a\n"               \
    "failed verification), 2 usage, 3 internal, I/O or server error, 4 the log\n"                  \
    "contradicts what this client verified before (a fork proven, or a consistency\n"              \
    "proof refused; evidence kept), 5 stale: the copy is behind what this client\n"                \
    "verified (the answer is as of its size; both sizes named) or too old for the\n"               \
    "maximum age asked for\n"

/* Prints a usage error and a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) KIX_PRINTF(2, 3);

/* cli_usage_error with a machine code other than "usage" and data members. */
int cli_usage_error_data(const char *cmd, const char *code, json_t *data, const char *fmt, ...)
    KIX_PRINTF(4, 5);

/* The known word nearest to word (at most 2 edits), or NULL. */
const char *cli_suggest(const char *word, const char *const *known, size_t n);
/* "unknown command 'shwo'; did you mean 'show'?" (an option: given with its
 * dashes, known without), with the given word and the suggestion as data
 * of the --json error; a subcommand lists the known ones. EXIT_USAGE. */
enum cli_unknown_kind { CLI_UNKNOWN_COMMAND, CLI_UNKNOWN_SUBCOMMAND, CLI_UNKNOWN_OPTION };
int cli_unknown(const char *cmd, enum cli_unknown_kind kind, const char *given, size_t len,
                const char *const *known, size_t n);
/* getopt_long returned '?' (main sets opterr 0): says which option of
 * argv is unknown, with the nearest of longopts ("did you mean"), or that
 * it needs a value; returns EXIT_USAGE. */
struct option;
int cli_bad_option(const char *cmd, char **argv, const struct option *longopts);

/* True for argv {NAME, "--dump-options"}: a command that reads a
 * subcommand first dumps its tables itself (kix/cmdline.h). */
int cli_dump_requested(int argc, char **argv);
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
    int no_cache;                           /* --no-cache: keep nothing read over HTTP(S) */
    const char *max_age;                    /* --max-age DURATION: witnessed freshness */
    int witness_global;                     /* witness[] came from before the command */
};

/* The common options as entries of a command's table (kix/cmdline.h),
 * declared once: every command, the global options before the command and
 * kix --dump-options read them from here. Their ids are
 * cli_common_option's; config: the key of ~/.config/kix/config that gives
 * the default (kix/config.h). */
#define CLI_OPT_STORE   0x101
#define CLI_OPT_SERVER  0x102
#define CLI_OPT_LOG_KEY 0x103
#define CLI_OPT_JSON    0x104
#define CLI_OPT_WITNESS 0x105
#define CLI_OPT_MIN_WIT 0x106
#define CLI_OPT_CACERT  0x107
#define CLI_OPT_NOCACHE 0x108
#define CLI_OPT_MAX_AGE 0x109
#define CLI_OPT_STORE_ENTRY                                                                        \
    KIX_ID("store", "DIR", CLI_OPT_STORE, "use a local store directory instead of a server")
#define CLI_OPT_SERVER_ENTRY                                                                       \
    {                                                                                              \
        .kind = KIX_OPT_ID, .name = "server", .arg = "ADDR", .id = CLI_OPT_SERVER,                 \
        .config = "server", .complete = "tcp://127.0.0.1:7420 unix://",                            \
        .help = "kixd address, tcp://HOST:PORT or unix:///PATH, or a static copy\n"                \
                "of the log (tlog-tiles), https://HOST/PREFIX/ (default: a\n"                      \
                "permalink's own, then $KIX_SERVER, server in\n"                                   \
                "~/.config/kix/config, or tcp://127.0.0.1:7420)"                                   \
    }
#define CLI_OPT_CACERT_ENTRY                                                                       \
    KIX_ID("cacert", "FILE", CLI_OPT_CACERT,                                                       \
           "CA certificates (PEM) for https:// instead of the system's")
#define CLI_OPT_JSON_ENTRY KIX_ID("json", NULL, CLI_OPT_JSON, "machine-readable output")
#define CLI_COMMON_OPTS                                                                            \
    CLI_OPT_STORE_ENTRY, CLI_OPT_SERVER_ENTRY, CLI_OPT_CACERT_ENTRY,                               \
        KIX_ID("no-cache", NULL, CLI_OPT_NOCACHE,                                                  \
               "keep no tiles, entries or objects read over http(s):// on disk\n"                  \
               "(default: kept, once verified, in $KIX_CACHE_DIR, else\n"                          \
               "~/.cache/kix, at most $KIX_CACHE_MAX_MB, default 256, MiB)"),                      \
        {.kind = KIX_OPT_ID,                                                                       \
         .name = "log-key",                                                                        \
         .arg = "KEY",                                                                             \
         .id = CLI_OPT_LOG_KEY,                                                                    \
         .config = "log-key",                                                                      \
         .complete = "file",                                                                       \
         .help = "the log's verifier key, a file or the key text\n"                                \
                 "(default $KIX_LOG_KEY, then ~/.config/kix/config); every\n"                      \
                 "command checks the server's latest checkpoint against it\n"                      \
                 "and against the one it verified before (exit 4: fork,\n"                         \
                 "rollback or consistency proof refused, both checkpoints\n"                       \
                 "kept as evidence)"},                                                             \
        {.kind = KIX_OPT_ID,                                                                       \
         .name = "witness",                                                                        \
         .arg = "KEY",                                                                             \
         .id = CLI_OPT_WITNESS,                                                                    \
         .config = "witness",                                                                      \
         .complete = "file",                                                                       \
         .help = "a witness's verifier key (file or text); repeat for more"},                      \
        {.kind = KIX_OPT_ID,                                                                       \
         .name = "min-witnesses",                                                                  \
         .arg = "N",                                                                               \
         .id = CLI_OPT_MIN_WIT,                                                                    \
         .config = "min-witnesses",                                                                \
         .help = "believe a checkpoint only when N of the --witness keys\n"                        \
                 "cosigned it (default 0; without either option, the\n"                            \
                 "witnesses and quorum of ~/.config/kix/config)"},                                 \
        KIX_ID("max-age", "AGE", CLI_OPT_MAX_AGE,                                                  \
               "believe a checkpoint only when a --witness key cosigned it\n"                      \
               "at most AGE ago (90s, 15m, 2h, 1d; exit 5 when older)"),                           \
        CLI_OPT_JSON_ENTRY

/* Reading a command's options from its table: cli_start, then cli_next
 * until it returns less than 0. It takes the common options into common
 * (if not NULL), prints --help (with CLI_EXIT_HELP when the table says no
 * exit statuses) and --dump-options, and reports unknown options and
 * missing values ("did you mean", exit 2). */
struct cli_opts {
    struct kix_cmdline p;
    struct cli_common *common;
    const char *name; /* the command as errors name it: "show", "key add" */
    int status;       /* once cli_next returned CLI_OPTS_STOP: the exit status */
};
#define CLI_OPTS_END  (-1) /* the operands are argv[optind..] */
#define CLI_OPTS_STOP (-2) /* return cli_opts.status (0 after --help) */
void cli_start(struct cli_opts *o, const struct kix_cmd *cmd, int argc, char **argv,
               struct cli_common *common);
/* A command's --help (kix/cmdline.h) and, unless it says them, the exit
 * statuses every command keeps (CLI_EXIT_HELP). */
void cli_help(FILE *f, const struct kix_cmd *cmd);
/* The id of the next option of the command's own (o->p.value its value),
 * or CLI_OPTS_END or CLI_OPTS_STOP. */
int cli_next(struct cli_opts *o);

/* The options given before the command (kix --json --server S show RUN),
 * set once by main. cli_common_init starts every command from them; the
 * same option after the command wins (a --witness after it replaces every
 * --witness before it). */
extern struct cli_common cli_global;
/* For commands that take only some of the global options (kix keygen
 * takes --json alone): a usage error for any other one given before the
 * command, as after it. */
#define CLI_TAKES_STORE  1u
#define CLI_TAKES_SERVER 2u
int cli_global_check(const char *cmd, unsigned takes);

/* Takes a common option (returns 1) or not (returns 0). */
int cli_common_option(struct cli_common *c, int opt, const char *arg);
void cli_common_init(struct cli_common *c);

/* A usage error (exit 2, code "badAddress") unless addr is
 * a well-formed server address: tcp://HOST:PORT (or HOST:PORT), unix:///PATH
 * (or /PATH) or http(s)://HOST[:PORT]/PATH. Whether it can be reached is not
 * checked. */
int cli_check_addr(const char *cmd, const char *addr);

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
int cli_parse(const struct kix_cmd *cmd, int argc, char **argv, struct cli_common *common,
              uint64_t *size, uint64_t *from, uint64_t *limit);
/* The entries of --size, --from and --limit, for the tables of commands
 * that give cli_parse their pointers. */
#define CLI_OPT_SIZE  's'
#define CLI_OPT_FROM  'f'
#define CLI_OPT_LIMIT 'l'
/* kix help COMMAND and kix --dump-options: every command's table printed
 * by the command itself (argv {NAME, "--dump-options"}). */
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
/* What --no-cache does, for a command that reads each file once (kix
 * audit): cli_trust_check then enables no disk cache (kix_client_cache_verified). */
void cli_cache_off(void);
/* After cli_trust_check failed (KIX_EVERIFY) on a checkpoint none of whose
 * signature lines names the log key: {expectedKey: "NAME+HASH", signedBy:
 * [...]} (borrowed), which cli_fail reports as code "keyMismatch" naming
 * --log-key; else NULL. */
json_t *cli_key_mismatch(void);
/* The index note's witness cosignatures, by the same rules. */
int cli_witness_check_index(const struct kix_verifier *key, const char *note, size_t len,
                            struct kix_err *err);
int cli_witness_check(const struct kix_verifier *key, const char *note, size_t len, size_t *found,
                      struct kix_err *err);

/* After the command ran (status 0): when a checkpoint it read was older
 * than the one this client verified (a copy that lags), says so on stderr,
 * naming both sizes, and returns EXIT_STALE; else status. */
int cli_stale_status(const char *cmd, int status);
/* For a write, after cli_contact: a server behind what this client
 * verified is refused (EXIT_STALE, an error naming both sizes), since what
 * it appends would fork the log; else 0. */
int cli_stale_refuse(const char *cmd);

/* Parses a non-negative decimal; returns 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);
/* A JSON string of len bytes of s (NULL: ""); bytes that are not UTF-8
 * (a file name can hold any) give "" rather than a document that does not
 * parse. */
json_t *cli_jstr(const char *s, size_t len);
/* A command's output: its document (kix/doc.h; consumed) as one line of
 * JSON when json, else as `text` renders it (NULL: as JSON too). 0, or
 * the failure to print it (a NULL doc: out of memory). */
int cli_doc(const char *cmd, json_t *doc, int json, void (*text)(const json_t *doc, FILE *out));

/* kix audit: compares the server's leaf hashes and inclusion proofs of
 * entries [from, to) at `size` with the replica's (audit_proofs.c). */
struct kix_log;
int audit_proofs(struct kix_client *c, struct kix_log *replica, uint64_t from, uint64_t to,
                 uint64_t size, struct kix_err *err);

/* kix audit of a static copy: every hash tile, object pack and index file
 * it serves, for entries from `first` on, against the replica at `size`
 * (audit_files.c); scratch is a directory it may use. KIX_OK at once for a
 * source without files. *files counts those compared. */
int audit_files(struct kix_client *c, struct kix_log *replica, const char *scratch, uint64_t first,
                uint64_t size, uint64_t *files, struct kix_err *err);

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
int cmd_withdraw(int argc, char **argv);
int cmd_reinstate(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_supersede(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_policy(int argc, char **argv);
/* the enrolment queue (cmd_keys.c): kix key pending, kix key reject, and
 * the request of a key id prefix (its path without .json) */
int cmd_key_pending(int argc, char **argv);
int cmd_key_reject(int argc, char **argv);
int cli_enroll_find(const char *queue, const char *id, char *out, size_t cap, struct kix_err *err);
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
