#!/usr/bin/env python3
"""Writes a linker version script that exports exactly the functions and
data the public headers declare (kix_* in include/kix/*.h, never the
kix__ internals), for libkix and libkix-verify.

usage: exports.py OUT.map HEADER_DIR...

Everything else in the library (kix__ internals, the HTTP source's http_*
helpers, static data of the templates) stays local: a program linked
against libkix can use only what a header documents.
"""
import pathlib
import re
import sys

DECL = re.compile(r"\b(kix_[A-Za-z0-9]\w*)\s*(\(|\[)")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared(dirs):
    names = set()
    for d in dirs:
        for h in sorted(pathlib.Path(d).glob("*.h")):
            text = strip_comments(h.read_text())
            # a macro's body names functions it calls, not ones it declares
            text = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)
            for m in DECL.finditer(text):
                names.add(m.group(1))
    return names


def main():
    out, dirs = sys.argv[1], sys.argv[2:]
    names = sorted(declared(dirs))
    text = "{\n  global:\n" + "".join(f"    {n};\n" for n in names) + "  local:\n    *;\n};\n"
    p = pathlib.Path(out)
    if not p.exists() or p.read_text() != text:
        p.write_text(text)


if __name__ == "__main__":
    main()
