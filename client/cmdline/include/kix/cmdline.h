/* kix/cmdline.h — a command's options declared once, in one table: the
 * parse loop, --help and --dump-options (what the man pages, the shell
 * completions and the config files are checked against) all read it, so an
 * option cannot be parsed and undocumented, or documented and not
 * completed (issue 39 item 5; after Redis's standardConfig table).
 *
 * Used by kix (client/cli) and kixd (daemon); not part of libkix. */
#ifndef KIX_CMDLINE_H
#define KIX_CMDLINE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum kix_opt_kind {
    KIX_OPT_NOTE,   /* no option: help is a block of --help text printed as is */
    KIX_OPT_FLAG,   /* --NAME: *(int *)target = 1 */
    KIX_OPT_STRING, /* --NAME VALUE: *(const char **)target = VALUE (the last wins) */
    KIX_OPT_U64,    /* --NAME N: *(uint64_t *)target, a decimal from 0 to 2^64-2 */
    KIX_OPT_ID,     /* handed back to the caller's loop as its id (repeatable,
                       checked or shared options) */
};

struct kix_opt {
    enum kix_opt_kind kind;
    const char *name;     /* the long name, without "--" */
    char short_name;      /* -C, or 0 */
    const char *arg;      /* the value's name in --help (DIR, N); NULL: takes none */
    void *target;         /* FLAG, STRING, U64: where the value goes */
    int id;               /* ID: what the caller's loop switches on */
    const char *help;     /* lines split by '\n'; NULL: not in --help */
    const char *complete; /* a shell completes the value with: "file", "dir", or
                             words "a b c"; NULL: from arg (FILE: file, DIR: dir) */
    const char *config;   /* its key in the program's config file, or NULL */
};

#define KIX_NOTE(text)                                                                             \
    {                                                                                              \
        .kind = KIX_OPT_NOTE, .help = (text)                                                       \
    }
#define KIX_FLAG(name_, target_, help_)                                                            \
    {                                                                                              \
        .kind = KIX_OPT_FLAG, .name = (name_), .target = (target_), .help = (help_)                \
    }
#define KIX_STRING(name_, arg_, target_, help_)                                                    \
    {                                                                                              \
        .kind = KIX_OPT_STRING, .name = (name_), .arg = (arg_), .target = (target_),               \
        .help = (help_)                                                                            \
    }
#define KIX_U64(name_, arg_, target_, help_)                                                       \
    {                                                                                              \
        .kind = KIX_OPT_U64, .name = (name_), .arg = (arg_), .target = (target_), .help = (help_)  \
    }
#define KIX_ID(name_, arg_, id_, help_)                                                            \
    {                                                                                              \
        .kind = KIX_OPT_ID, .name = (name_), .arg = (arg_), .id = (id_), .help = (help_)           \
    }
/* A value taken from a list of words: the completions offer them. */
#define KIX_CHOICE(name_, arg_, target_, words_, help_)                                            \
    {                                                                                              \
        .kind = KIX_OPT_STRING, .name = (name_), .arg = (arg_), .target = (target_),               \
        .help = (help_), .complete = (words_)                                                      \
    }

/* One command: "usage: PROG USAGE [options]", the text about it, its
 * options (with the notes between them), then tail (exit statuses). */
struct kix_cmd {
    const char *prog;  /* "kix show", "kixd init" */
    const char *usage; /* the operands and the options it needs; '\n' starts
                          a continued line */
    const char *about; /* prose after the usage line, or NULL */
    const struct kix_opt *opts;
    size_t nopts;
    const char *tail; /* after the options, or NULL */
    int column;       /* where an option's help starts (0: 20) */
};

/* .opts and .nopts of a kix_cmd from an array of entries */
#define KIX_CMD_OPTS(array) .opts = (array), .nopts = sizeof(array) / sizeof((array)[0])

#define KIX_CMDLINE_MAX 96 /* options in one table */

enum kix_cmdline_status {
    KIX_CMDLINE_OPTION,  /* an ID option: p->opt, p->value */
    KIX_CMDLINE_END,     /* no more options: the operands are argv[optind..] */
    KIX_CMDLINE_HELP,    /* --help: printed on stdout (exit 0) */
    KIX_CMDLINE_DUMP,    /* --dump-options: printed on stdout (exit 0) */
    KIX_CMDLINE_BAD,     /* an unknown option or a missing value: p->longopts and
                            optind, optopt as getopt_long left them */
    KIX_CMDLINE_BAD_U64, /* a U64 option's value is no number: p->opt, p->value */
};

struct kix_cmdline {
    const struct kix_cmd *cmd;
    int argc;
    char **argv;
    const struct kix_opt *opt; /* the option just read */
    const char *value;         /* its value (NULL: a flag) */
    struct option longopts[KIX_CMDLINE_MAX + 3];
    char shorts[2 * KIX_CMDLINE_MAX + 4];
};

/* Starts reading argv[1..] (argv[0] is the command's name) against
 * cmd's table; resets optind. */
void kix_cmdline_start(struct kix_cmdline *p, const struct kix_cmd *cmd, int argc, char **argv);
/* Reads the next option, storing FLAG, STRING and U64 values in their
 * targets; returns at the first ID option, the end, or what the caller
 * reports (kix_cmdline_status). */
enum kix_cmdline_status kix_cmdline_next(struct kix_cmdline *p);

/* What is wrong after KIX_CMDLINE_BAD or KIX_CMDLINE_BAD_U64, as one
 * sentence naming the option ("unknown option '--sotre'; did you mean
 * '--store'?", "option '--store' needs a value (--store DIR)"). Returns 1
 * when the option is unknown, else 0 (a known one used wrong). */
int kix_cmdline_explain(const struct kix_cmdline *p, enum kix_cmdline_status st, char *out,
                        size_t cap);
/* The --help text of cmd. */
void kix_cmdline_help(FILE *f, const struct kix_cmd *cmd);
/* "PROG" alone, then one line per option of cmd, tab-separated (what
 * integration.options and the zsh completion generator read):
 *   PROG --NAME -S ARG COMPLETE CONFIG HELP
 * "-" for none; COMPLETE is file, dir or words; HELP the first line of
 * its help ("-": hidden from --help). */
void kix_cmdline_dump(FILE *f, const struct kix_cmd *cmd);
/* One such line (kixd serve prints its own table with it). */
void kix_cmdline_dump_option(FILE *f, const char *prog, const char *name, char short_name,
                             const char *arg, const char *complete, const char *config,
                             const char *help);
/* The table entry of a long option's name, or NULL. */
const struct kix_opt *kix_cmdline_find(const struct kix_cmd *cmd, const char *name);
/* Reads a decimal from 0 to 2^64-2; 0 on success. */
int kix_cmdline_u64(const char *s, uint64_t *out);

/* The optimal string alignment distance (Levenshtein plus adjacent swaps, as
 * git's help.c weighs a typo) of a's first la bytes and b, words up to 63
 * bytes; (size_t)-1 for longer ones. What "did you mean" ranks by. */
size_t kix_cmdline_distance(const char *a, size_t la, const char *b);

#endif
