/* "Did you mean": the nearest known command or option to a mistyped one. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kix/canon.h"
#include "kix/cmdline.h"

const char *cli_suggest(const char *word, const char *const *known, size_t n)
{
    /* at most 2 edits, and fewer than half the word: "ls" is no "log" */
    size_t best = 3, len = strlen(word);
    const char *found = NULL;

    for (size_t i = 0; i < n; i++) {
        size_t d = kix_cmdline_distance(word, strlen(word), known[i]);
        if (d < best && 2 * d < len + (len & 1)) {
            best = d;
            found = known[i];
        }
    }
    return found;
}

/* The long option named by arg ("--name" or "--name=value"), or NULL. */
static const struct option *find_option(const char *arg, const struct option *longopts)
{
    size_t len = strcspn(arg + 2, "=");
    for (const struct option *o = longopts; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, arg + 2, len) == 0)
            return o;
    return NULL;
}

int cli_unknown(const char *cmd, enum cli_unknown_kind kind, const char *given, size_t len,
                const char *const *known, size_t n)
{
    /* an option is compared without its dashes, and suggested with them */
    int option = kind == CLI_UNKNOWN_OPTION, dashes = option && strncmp(given, "--", 2) == 0;
    const char *what = option ? "option" : kind == CLI_UNKNOWN_COMMAND ? "command" : "subcommand";
    char word[64], list[160] = "", suggestion[80];
    json_t *data, *word_json;
    const char *near;
    size_t at = 0;
    int status;

    if (len > 60)
        len = 60;
    snprintf(word, sizeof(word), "%.*s", (int)len, given);
    near = !option || dashes ? cli_suggest(word + (dashes ? 2 : 0), known, n) : NULL;
    /* the word given (cut short: "" when the cut split a character) */
    data = json_object();
    word_json = json_string(word);
    if (data)
        json_object_set_new(data, option ? "option" : "commandGiven",
                            word_json ? word_json : json_string(""));
    else
        json_decref(word_json);
    snprintf(suggestion, sizeof(suggestion), "%s%s", dashes ? "--" : "", near ? near : "");
    if (data && near)
        json_object_set_new(data, "suggestion", json_string(suggestion));
    for (size_t i = 0; kind == CLI_UNKNOWN_SUBCOMMAND && i < n && at < sizeof(list); i++)
        at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : " (", known[i]);
    if (at && at < sizeof(list) - 1)
        strcat(list, ")");
    if (near)
        status = cli_usage_error_data(cmd, option ? "unknownOption" : "unknownCommand", data,
                                      "unknown %s '%s'; did you mean '%s'?%s", what, word,
                                      suggestion, list);
    else
        status = cli_usage_error_data(cmd, option ? "unknownOption" : "unknownCommand", data,
                                      "unknown %s '%s'%s", what, word, list);
    json_decref(data);
    return status;
}

int cli_bad_option(const char *cmd, char **argv, const struct option *longopts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    const char *names[96];
    const struct option *o;
    size_t n = 0;

    if (!arg || strncmp(arg, "--", 2) != 0 || !arg[2]) {
        char shortopt[3] = {'-', (char)optopt, '\0'};
        if (optopt > ' ' && optopt < 0x7f)
            return cli_unknown(cmd, CLI_UNKNOWN_OPTION, shortopt, 2, NULL, 0);
        return cli_usage_error(cmd, "unknown option");
    }
    if ((o = find_option(arg, longopts))) {
        if (o->has_arg == no_argument && strchr(arg, '='))
            return cli_usage_error(cmd, "option '--%s' takes no value", o->name);
        return cli_usage_error(cmd, "option '--%s' needs a value", o->name);
    }
    for (o = longopts; o->name && n < sizeof(names) / sizeof(names[0]); o++)
        names[n++] = o->name;
    return cli_unknown(cmd, CLI_UNKNOWN_OPTION, arg, strcspn(arg, "="), names, n);
}
