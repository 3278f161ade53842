#!/usr/bin/env python3
"""The README's shell blocks, for the tests that run them as written.

  readme_block.py README.md "HEADING"   the ```sh block under that heading
  readme_block.py README.md --list      the heading of every ```sh block
  readme_block.py README.md --check DIR every ```sh block is run by a test:
                                        its heading is quoted in a
                                        readme_block.py call in DIR/test_*.sh

A block belongs to the nearest heading above it; a heading with two shell
blocks is an error (a test could run only one of them).
"""
import glob
import os
import re
import sys


def blocks(path):
    heading, found = None, {}
    fence = None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if fence is not None:
            if line == "```":
                if fence is not False:
                    if heading in found:
                        sys.exit("%s: two sh blocks under '%s'" % (path, heading))
                    found[heading] = "".join(l + "\n" for l in fence)
                fence = None
            elif fence is not False:
                fence.append(line)
        elif line.startswith("```"):
            fence = [] if line.strip() == "```sh" else False
        elif line.startswith("#"):
            heading = line.lstrip("#").strip()
    return found


def main():
    path, what = sys.argv[1], sys.argv[2]
    found = blocks(path)
    if what == "--list":
        print("\n".join(found))
    elif what == "--check":
        tests = ""
        for t in sorted(glob.glob(os.path.join(sys.argv[3], "test_*.sh"))):
            tests += open(t, encoding="utf-8").read()
        missing = [h for h in found if not re.search(r'readme_block(\.py"?)? [^\n]*"%s"' % re.escape(h), tests)]
        if missing:
            sys.exit("README sh blocks no test runs: %s" % "; ".join(missing))
    elif what in found:
        sys.stdout.write(found[what])
    else:
        sys.exit("%s has no sh block under the heading '%s'" % (path, what))


main()
