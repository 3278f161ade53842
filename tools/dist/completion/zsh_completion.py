#!/usr/bin/env python3
"""Writes the zsh completion of kix or kixd from the option tables.

    zsh_completion.py PROGRAM < dump > _PROGRAM

The dump is what `kix --dump-options` or `kixd --dump-options` prints
(kix/cmdline.h): "PROG" on a line of its own, then one tab-separated line
per option, PROG --NAME -S ARG COMPLETE CONFIG HELP. The files this makes
(tools/dist/completion/_kix and _kixd) are checked in, and
integration.options checks that they are what the tables give today.
"""
import sys


def quote(text):
    """Text inside '...' of an _arguments spec: no ' [ ] or :."""
    return (text.replace("'", "'\\''").replace("[", "(").replace("]", ")")
            .replace(":", "\\:"))


def action(arg, complete):
    if arg == "-":
        return ""
    if complete == "file":
        return ":%s:_files" % quote(arg)
    if complete == "dir":
        return ":%s:_files -/" % quote(arg)
    if complete != "-":
        return ":%s:(%s)" % (quote(arg), quote(complete))
    return ":%s: " % quote(arg)


def specs(options):
    out = []
    for name, short, arg, complete, help_ in options:
        desc = quote(help_ if help_ != "-" else name[2:])
        if short != "-":
            out.append("'(%s %s)'{%s,%s}'[%s]%s'" % (short, name, short, name, desc,
                                                      action(arg, complete)))
        elif arg != "-" and help_ != "-":
            # a value option may repeat (--witness, --param): zsh offers it again
            out.append("'*%s[%s]%s'" % (name, desc, action(arg, complete)))
        else:
            out.append("'%s[%s]%s'" % (name, desc, action(arg, complete)))
    return out


def main():
    program = sys.argv[1]
    tables, order = {}, []
    for line in sys.stdin.read().splitlines():
        fields = line.split("\t")
        if len(fields) == 1:
            tables.setdefault(fields[0], [])
            if fields[0] not in order:
                order.append(fields[0])
            continue
        prog, name, short, arg, complete, _config, help_ = fields
        if help_ == "-":
            continue  # hidden from --help: not offered either
        tables[prog].append((name, short, arg, complete, help_))
    commands = [p[len(program) + 1:] for p in order if p.startswith(program + " ")]
    top = [c for c in commands if " " not in c]
    fn = "_" + program.replace("-", "_")
    w = ["#compdef %s" % program,
         "# zsh completion for %s, generated from '%s --dump-options' by" % (program, program),
         "# tools/dist/completion/zsh_completion.py: do not edit (integration.options",
         "# checks that it is what the option tables give).", "",
         "%s() {" % fn,
         "    local curcontext=\"$curcontext\" state line",
         "    typeset -A opt_args",
         "    _arguments -C \\"]
    for s in specs(tables.get(program, [])):
        w.append("        %s \\" % s)
    w += ["        '1:command:->command' \\",
          "        '*::arg:->args'",
          "    case $state in",
          "    command)",
          "        compadd -- %s" % " ".join(top + (["help"] if program == "kix" else [])),
          "        ;;",
          "    args)",
          "        local cmd=$words[1]",
          "        [[ -n $words[2] && -n ${(M)${:-%s}:#$cmd $words[2]} ]] && cmd=\"$cmd $words[2]\""
          % " ".join("'%s'" % c for c in commands if " " in c).replace("'", ""),
          "        case $cmd in"]
    for c in commands:
        w.append("        '%s')" % c)
        w.append("            _arguments \\")
        for s in specs(tables[program + " " + c]):
            w.append("                %s \\" % s)
        w.append("                '*:argument:_files'")
        w.append("            ;;")
    w += ["        esac",
          "        ;;",
          "    esac",
          "}",
          "",
          "%s \"$@\"" % fn]
    sys.stdout.write("\n".join(w) + "\n")


if __name__ == "__main__":
    main()
