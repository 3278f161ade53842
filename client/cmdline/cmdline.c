/* One table per command (kix/cmdline.h): getopt_long's view of it, the
 * --help text and the --dump-options lines, all from the same entries. */
#include "kix/cmdline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define VAL_HELP 0x1000
#define VAL_DUMP 0x1001
#define VAL_BASE 0x100 /* an entry's val is its index + VAL_BASE */

void kix_cmdline_start(struct kix_cmdline *p, const struct kix_cmd *cmd, int argc, char **argv)
{
    size_t n = 0, ns = 0;

    memset(p, 0, sizeof(*p));
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    for (size_t i = 0; i < cmd->nopts && n < KIX_CMDLINE_MAX; i++) {
        const struct kix_opt *o = &cmd->opts[i];
        if (o->kind == KIX_OPT_NOTE)
            continue;
        p->longopts[n].name = o->name;
        p->longopts[n].has_arg = o->arg ? required_argument : no_argument;
        p->longopts[n].val = VAL_BASE + (int)i;
        n++;
        if (o->short_name) {
            p->shorts[ns++] = o->short_name;
            if (o->arg)
                p->shorts[ns++] = ':';
        }
    }
    /* every command has --help (-h) and the hidden --dump-options */
    p->longopts[n++] = (struct option){"help", no_argument, NULL, VAL_HELP};
    p->longopts[n++] = (struct option){"dump-options", no_argument, NULL, VAL_DUMP};
    p->shorts[ns++] = 'h';
    p->shorts[ns] = '\0';
    optind = 1;
    opterr = 0; /* the caller says what is wrong, naming the option */
}

int kix_cmdline_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v == UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

enum kix_cmdline_status kix_cmdline_next(struct kix_cmdline *p)
{
    int c;

    while ((c = getopt_long(p->argc, p->argv, p->shorts, p->longopts, NULL)) != -1) {
        const struct kix_opt *o = NULL;

        if (c == 'h' || c == VAL_HELP) {
            kix_cmdline_help(stdout, p->cmd);
            return KIX_CMDLINE_HELP;
        }
        if (c == VAL_DUMP) {
            kix_cmdline_dump(stdout, p->cmd);
            return KIX_CMDLINE_DUMP;
        }
        if (c >= VAL_BASE && (size_t)(c - VAL_BASE) < p->cmd->nopts)
            o = &p->cmd->opts[c - VAL_BASE];
        for (size_t i = 0; !o && c > 0 && c < 0x80 && i < p->cmd->nopts; i++)
            if (p->cmd->opts[i].kind != KIX_OPT_NOTE && p->cmd->opts[i].short_name == c)
                o = &p->cmd->opts[i];
        if (!o)
            return KIX_CMDLINE_BAD;
        p->opt = o;
        p->value = o->arg ? optarg : NULL;
        switch (o->kind) {
        case KIX_OPT_FLAG:
            *(int *)o->target = 1;
            break;
        case KIX_OPT_STRING:
            *(const char **)o->target = optarg;
            break;
        case KIX_OPT_U64:
            if (kix_cmdline_u64(optarg, o->target) != 0)
                return KIX_CMDLINE_BAD_U64;
            break;
        case KIX_OPT_ID:
            return KIX_CMDLINE_OPTION;
        case KIX_OPT_NOTE:
            break;
        }
    }
    return KIX_CMDLINE_END;
}

const struct kix_opt *kix_cmdline_find(const struct kix_cmd *cmd, const char *name)
{
    for (size_t i = 0; i < cmd->nopts; i++)
        if (cmd->opts[i].kind != KIX_OPT_NOTE && strcmp(cmd->opts[i].name, name) == 0)
            return &cmd->opts[i];
    return NULL;
}

/* Prints text with every line after the first indented by indent; in a
 * usage (prog not NULL), a line naming the program again ("kix key revoke
 * ...", another form of the command) by the width of "usage: " alone. */
static void indented(FILE *f, const char *text, int indent, const char *prog)
{
    size_t word = prog ? strcspn(prog, " ") : 0;

    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (line != text && len)
            fprintf(f, "%*s",
                    prog && strncmp(line, prog, word) == 0 && line[word] == ' '
                        ? (int)strlen("usage: ")
                        : indent,
                    "");
        fprintf(f, "%.*s\n", (int)len, line);
        line += len + (nl != NULL);
    }
}

void kix_cmdline_help(FILE *f, const struct kix_cmd *cmd)
{
    int column = cmd->column ? cmd->column : 20, n;
    int in_list = 0;

    n = fprintf(f, "usage: %s ", cmd->prog);
    indented(f, cmd->usage && *cmd->usage ? cmd->usage : "[options]", n, cmd->prog);
    if (cmd->about && *cmd->about)
        fprintf(f, "\n%s", cmd->about);
    for (size_t i = 0; i < cmd->nopts; i++) {
        const struct kix_opt *o = &cmd->opts[i];
        if (!o->help)
            continue;
        if (o->kind == KIX_OPT_NOTE) {
            fputs(o->help, f);
            in_list = 0;
            continue;
        }
        if (!in_list && i == 0)
            fputs("\n", f);
        in_list = 1;
        n = o->short_name ? fprintf(f, "  -%c, --%s", o->short_name, o->name)
                          : fprintf(f, "  --%s", o->name);
        if (o->arg)
            n += fprintf(f, " %s", o->arg);
        /* an option too wide for the column has its help on the next line */
        if (n < column - 1)
            fprintf(f, "%*s", column - n, "");
        else
            fprintf(f, "\n%*s", column, "");
        indented(f, o->help, column, NULL);
    }
    if (cmd->tail)
        fputs(cmd->tail, f);
}

static const char *completion_of(const struct kix_opt *o)
{
    if (o->complete)
        return o->complete;
    if (!o->arg)
        return "-";
    if (strstr(o->arg, "DIR"))
        return "dir";
    if (strstr(o->arg, "FILE"))
        return "file";
    return "-";
}

void kix_cmdline_dump_option(FILE *f, const char *prog, const char *name, char short_name,
                             const char *arg, const char *complete, const char *config,
                             const char *help)
{
    fprintf(f, "%s\t--%s\t", prog, name);
    if (short_name)
        fprintf(f, "-%c", short_name);
    else
        fputs("-", f);
    fprintf(f, "\t%s\t%s\t%s\t", arg ? arg : "-", complete ? complete : "-", config ? config : "-");
    /* the first line of the help, tabs made spaces; "-": not in --help */
    if (!help || !*help)
        fputs("-", f);
    for (const char *c = help; c && *c && *c != '\n'; c++)
        fputc(*c == '\t' ? ' ' : *c, f);
    fputs("\n", f);
}

void kix_cmdline_dump(FILE *f, const struct kix_cmd *cmd)
{
    fprintf(f, "%s\n", cmd->prog);
    for (size_t i = 0; i < cmd->nopts; i++) {
        const struct kix_opt *o = &cmd->opts[i];
        if (o->kind != KIX_OPT_NOTE)
            kix_cmdline_dump_option(f, cmd->prog, o->name, o->short_name, o->arg, completion_of(o),
                                    o->config, o->help);
    }
    kix_cmdline_dump_option(f, cmd->prog, "help", 'h', NULL, NULL, NULL, "print this help");
}

size_t kix_cmdline_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b), d[64][64];

    if (la > 63 || lb > 63)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

int kix_cmdline_explain(const struct kix_cmdline *p, enum kix_cmdline_status st, char *out,
                        size_t cap)
{
    const char *arg = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    const struct option *o, *near = NULL;
    size_t len, best = 3;

    if (st == KIX_CMDLINE_BAD_U64) {
        snprintf(out, cap, "--%s needs a whole number (--%s %s), not \"%s\"", p->opt->name,
                 p->opt->name, p->opt->arg ? p->opt->arg : "N", p->value ? p->value : "");
        return 0;
    }
    if (!arg || strncmp(arg, "--", 2) != 0 || !arg[2]) {
        if (optopt > ' ' && optopt < 0x7f && strchr(p->shorts, optopt)) {
            snprintf(out, cap, "option '-%c' needs a value", optopt);
            return 0;
        }
        if (optopt > ' ' && optopt < 0x7f)
            snprintf(out, cap, "unknown option '-%c'", optopt);
        else
            snprintf(out, cap, "unknown option '%.60s'", arg ? arg : "");
        return 1;
    }
    len = strcspn(arg + 2, "=");
    for (o = p->longopts; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, arg + 2, len) == 0) {
            const struct kix_opt *k = kix_cmdline_find(p->cmd, o->name);
            if (o->has_arg == no_argument)
                snprintf(out, cap, "option '--%s' takes no value", o->name);
            else
                snprintf(out, cap, "option '--%s' needs a value (--%s %s)", o->name, o->name,
                         k && k->arg ? k->arg : "VALUE");
            return 0;
        }
    for (o = p->longopts; o->name; o++) {
        size_t d = kix_cmdline_distance(arg + 2, len, o->name);
        if (strcmp(o->name, "dump-options") != 0 && d < best && 2 * d < len + (len & 1)) {
            best = d;
            near = o;
        }
    }
    if (near)
        snprintf(out, cap, "unknown option '%.*s'; did you mean '--%s'?",
                 (int)(len + 2 > 62 ? 62 : len + 2), arg, near->name);
    else
        snprintf(out, cap, "unknown option '%.*s'", (int)(len + 2 > 62 ? 62 : len + 2), arg);
    return 1;
}
