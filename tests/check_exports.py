#!/usr/bin/env python3
"""style.exports: libkix exports exactly what its public headers declare
(issue 39 item 7), by two mechanisms that must agree:

- every object of libkix.a is compiled with -fvisibility=hidden, so its
  global symbols of default visibility are those a header marks KIX_API
  (kix/api.h): they must be exactly the header's kix_* declarations;
- libkix.so exports (nm -D) exactly that set too, and no kix__ internal.

usage: check_exports.py LIBKIX.a LIBKIX.so HEADER_DIR...
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "dist"))
import exports  # noqa: E402  (tools/dist/exports.py: the headers' declarations)


def default_globals(archive):
    """Defined GLOBAL symbols of default visibility in the archive's objects."""
    out = subprocess.run(["readelf", "-sW", archive], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[4] == "GLOBAL" and f[5] == "DEFAULT" and f[6] != "UND":
            names.add(f[7])
    return names


def dynamic(shared):
    out = subprocess.run(["nm", "-D", "--defined-only", shared], check=True,
                         capture_output=True, text=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines()) if len(f) == 3}


def main():
    archive, shared, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    want = exports.declared(dirs)
    problems = []
    visible = {n for n in default_globals(archive) if not n.startswith("__")}
    for name in sorted(visible - want):
        problems.append(f"libkix.a: {name} is visible (default visibility) but no header "
                        f"declares it: make it static, or declare it in kix/*.h with KIX_API")
    for name in sorted(want - visible):
        problems.append(f"libkix.a: {name} is declared in a header without KIX_API "
                        f"(hidden by -fvisibility=hidden)")
    exported = {n for n in dynamic(shared) if n.startswith("kix")}
    for name in sorted(exported ^ want):
        problems.append(f"libkix.so: {name} " + ("is exported but no header declares it"
                                                   if name in exported else "is not exported"))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"exports ok: libkix exports {len(want)} symbols, each declared KIX_API in kix/*.h; "
          f"nothing else is visible")
    return 0


if __name__ == "__main__":
    sys.exit(main())
