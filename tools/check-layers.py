#!/usr/bin/env python3
"""Fails when a file includes, or a layer's library links, a layer above it.

The layers (ARCHITECTURE.md), lowest first; each may use those before it:

  base    store/base     errors, buffers, files, encodings   libsodium, libcrypto (SHA-256)
  verify  store/verify   formats and their verification      + jansson
  log     store/log      the signed log in LMDB              + lmdb
  index   store/index    the benchmark index                 (no lmdb.h)
  proto   proto          msgpack-RPC messages                base + msgpack
  cmdline client/cmdline the option tables of kix and kixd   libc only
  client  client/lib     the client library                  all of the above
  view    client/view    what a reader is shown: the view     base, verify, log, index,
                         model, its JSON, kix show's text     client (kix/source.h)
  web     client/web     templates, HTML pages, static site  view and what it uses
  cli     client/cli     the kix commands                    client, view, cmdline and below
  daemon  daemon         kixd                                client, web, cmdline and below,
                                                             never cli

Inside daemon, kixd's floors (DAEMON_FLOORS below; ARCHITECTURE.md), a
folder each, lowest first: base, loop, writer, replication, front, and
kixd's commands in daemon/ itself. A daemon file's quoted include names a
header of its own floor or one below, never above, and no two of kixd's
headers share a name (all the floors' folders are one include path).

Also: no system() or popen() anywhere, no string compare on an error's
message outside tests, no file includes another folder's private header (a quoted include
that is not kix/NAME.h must live beside the file, or be a test helper in
tests/), and each layer's CMake library links only layers below it.

And the log knows no benchmarks: nothing in store/log (code, comments,
strings, its CMakeLists.txt) says what the index makes of the entries, so
that a new index dimension never means editing the log. The words
(LOG_VOCABULARY below): run id (run_id, runId, RUN_ID, "run id"),
named_run/run_named, run_entries, RUNS/RUN as an upper-case name part
(T_RUNS, KIX_TABLE_RUNS), comparison, comparable, group/groups (but "group
commit", which is the log's: many submissions, one transaction), rank,
ranks, ranked, ranking(s), benchmark. Not "run" or "runs" in lower case,
which mostly means to execute, nor "manifest", the name kix/store.h gives
the JSON objects it stores.

JSON is written in one place: under client/ and daemon/ no code but the writer
(client/view/doc.c, kix_doc_dumps) writes JSON text, so every document a
command, a view or a page prints goes through it: no format string or
literal holds a compact JSON key (\"key\": followed by a value, as a
printf'd object has; help text writes "key": with a space), and no
json_dumps/json_dumpf/json_dumpb outside doc.c (client/lib, below the
view, prints nothing: it may serialise to parse; kixd's log lines, diag.c,
are written by hand, JSON_BY_HAND below says why).

Views only from sources: client/view reaches storage through a struct
kix_source alone (kix/source.h; a server's pages read its store as one,
kix_source_open_snapshot): it includes no kix/log*.h, kix/store.h nor kix/index.h, and
of the client layer only kix/source.h. client/web renders views and reads
nothing else: no kix/log*.h, kix/store.h, kix/index.h nor kix/source.h. Neither calls
the log's or the index's readers (kix_log_*, kix_index_*) in its code,
whatever header brought them in.

Storage renders nothing: no HTML or CSS under store/ (no .html/.css file,
no tag such as "<html", "<div", "<table" or a closing "</x" in a source).
"""
import os
import re
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LAYERS = [  # name, folder, may use (layer names), third-party headers it may include
    ("base", "store/base", [], {"sodium.h", "openssl/sha.h"}),
    ("verify", "store/verify", ["base"], {"sodium.h", "jansson.h"}),
    ("log", "store/log", ["base", "verify"], {"sodium.h", "jansson.h", "lmdb.h"}),
    ("index", "store/index", ["base", "verify", "log"], {"jansson.h"}),
    ("proto", "proto", ["base"], {"msgpack.h"}),
    ("cmdline", "client/cmdline", [], set()),
    ("client", "client/lib", ["base", "verify", "log", "index", "proto"],
     {"sodium.h", "jansson.h", "curl/curl.h"}),
    ("view", "client/view", ["base", "verify", "log", "index", "client"], {"jansson.h"}),
    ("web", "client/web", ["base", "verify", "log", "index", "view"], {"jansson.h"}),
    ("cli", "client/cli", ["base", "verify", "log", "index", "proto", "client", "view", "cmdline"],
     {"sodium.h", "jansson.h"}),
    ("daemon", "daemon", ["base", "verify", "log", "index", "proto", "client", "view", "web",
                          "cmdline"],
     {"sodium.h", "jansson.h", "uv.h", "curl/curl.h"}),
]
LIBRARY = {"base": "kix_base", "verify": "kix_verify", "log": "kix_log", "index": "kix_index",
           "proto": "kix_proto", "cmdline": "kix_cmdline", "client": "kix_client", "view": "kix_view", "web": "kix_web"}
HEADERS = {"client": "client", "cli": "-"}  # where a layer's include/kix lives, if not its folder
THIRD_PARTY = {"sodium.h", "jansson.h", "lmdb.h", "msgpack.h", "uv.h", "curl/curl.h",
               "openssl/sha.h", "openssl/evp.h"}
LOG_VOCABULARY = [
    re.compile(r"run[_ ]?id|named_run|run_named|run_entries|compar(?:ison|able)|benchmark"
               r"|\bgroups?\b(?![- ]commit)|\brank(?:s|ed|ings?)?\b", re.I),
    re.compile(r"\b(?:[A-Z0-9]+_)*RUNS?(?:_[A-Z0-9]+)*\b"),  # T_RUNS, KIX_TABLE_RUN_ENTRIES
]
# kixd's floors (ARCHITECTURE.md), lowest first: a folder each under daemon/,
# its commands and their wiring in daemon/ itself, on top. Every floor's
# folder is on kixd's include path, so a quoted include names a header of
# any floor.
DAEMON_FLOORS = [("base", "daemon/base"), ("loop", "daemon/loop"), ("writer", "daemon/writer"),
                 ("replication", "daemon/replication"), ("front", "daemon/front"),
                 ("kixd", "daemon")]

# Views only from sources (see the top): the headers each may not include,
# and the storage calls neither makes.
STORAGE_HEADERS = re.compile(r"^kix/(log[^/]*|index|store)\.h$")
SOURCE_ONLY = {"client/view": {"kix/source.h"},  # of the client layer, only this
               "client/web": set()}
STORAGE_CALL = re.compile(r"\b(kix_log_\w+|kix_index_\w+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def public_headers():
    """kix/NAME.h -> the layer that owns it."""
    owner = {}
    for name, folder, _, _ in LAYERS:
        d = os.path.join(ROOT, HEADERS.get(name, folder), "include", "kix")
        if os.path.isdir(d):
            for h in os.listdir(d):
                owner["kix/" + h] = name
    owner["kix/version.h"] = "base"  # generated from store/base/version.h.in
    for h in os.listdir(os.path.join(ROOT, "tools/liger/include/kix")):
        owner["kix/" + h] = "tools"  # the importer's own library, used by tools and tests
    return owner


def sources(folder):
    for dirpath, dirs, files in os.walk(os.path.join(ROOT, folder)):
        # npm's test-only packages (tests/browser/node_modules) are not kix
        dirs[:] = [d for d in dirs if d != "node_modules"]
        for f in files:
            if f.endswith((".c", ".h")):
                yield os.path.join(dirpath, f)


MARKUP = re.compile(r"<(html|head|body|div|table|tr|td|th|span|p|a|h[1-6]|script|style|pre|code)[\s>]"
                    r"|</[a-z][a-z0-9]*>", re.I)


def markup_in_store():
    """Storage only returns data: pages, templates and styles live in client/web."""
    problems = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "store")):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
            if f.endswith((".html", ".htm", ".css")):
                problems.append(f"{rel}: HTML or CSS in store/ (pages belong in client/web)")
            elif f.endswith((".c", ".h", ".js")):
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                m = MARKUP.search(text)
                if m:
                    problems.append(f"{rel}: HTML markup {m.group(0)!r} in store/ "
                                    f"(pages belong in client/web)")
    return problems


JSON_WRITER = "client/view/doc.c"
# kixd's log lines (--log-format json) are written by hand, one per request
# on the event loop, into a stack buffer: a json_t tree per line would
# allocate on every request for a line of five fixed members.
JSON_BY_HAND = {"daemon/base/diag.c"}
JSON_KEY = re.compile(r'\\"(?:[A-Za-z_][A-Za-z0-9_]*|%s)\\":(?! )')
JSON_DUMP = re.compile(r"\bjson_dump[sfb]\s*\(")


def json_writers():
    """Every JSON document under client/ comes from the one writer."""
    problems = []
    for path in sorted(list(sources("client")) + list(sources("daemon"))):
        rel = os.path.relpath(path, ROOT)
        if rel == JSON_WRITER or rel.startswith("client/lib/") or rel in JSON_BY_HAND:
            continue  # the client library, below the view, prints nothing
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            if JSON_KEY.search(line):
                problems.append(f"{rel}:{n}: writes a JSON key by hand: build a json_t and print "
                                f"it with kix_doc_print (kix/doc.h), the one JSON writer")
            elif JSON_DUMP.search(line):
                problems.append(f"{rel}:{n}: json_dump*: write JSON with kix_doc_dumps "
                                f"(kix/doc.h), the one JSON writer")
    return problems


def views_from_sources(owner):
    """client/view reads storage through a source only; client/web reads
    nothing but views."""
    problems = []
    for folder, allowed in SOURCE_ONLY.items():
        for path in sources(folder):
            rel = os.path.relpath(path, ROOT)
            text = open(path, encoding="utf-8").read()
            for kind, inc in INCLUDE.findall(text):
                if STORAGE_HEADERS.match(inc) or (owner.get(inc) == "client" and inc not in allowed):
                    problems.append(f"{rel}: includes {inc}: {folder} reads storage only "
                                    + ("through a struct kix_source (kix/source.h)"
                                       if allowed else "through the views (kix/view.h)"))
            code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
            code = re.sub(r'"(\\.|[^"\\\n])*"', '""', code)
            for m in STORAGE_CALL.finditer(code):
                problems.append(f"{rel}: calls {m.group(1)}(): {folder} reads storage only "
                                + ("through a struct kix_source (kix/source.h)"
                                   if allowed else "through the views (kix/view.h)"))
    return problems


def shared_names():
    """Two source files of one name make a stack trace, a log line or a
    grep ambiguous: every .c outside tests/ has a name of its own."""
    seen, problems = {}, []
    for folder in ("store", "proto", "client", "daemon", "tools"):
        for path in sorted(sources(folder)):
            if path.endswith(".c"):
                seen.setdefault(os.path.basename(path), []).append(os.path.relpath(path, ROOT))
    # a quoted include names a header of any of kixd's floors (one include
    # path), so each name must be one file
    for path in sorted(sources("daemon")):
        if path.endswith(".h"):
            seen.setdefault(os.path.basename(path), []).append(os.path.relpath(path, ROOT))
    for name, paths in sorted(seen.items()):
        if len(paths) > 1:
            problems.append(f"{', '.join(paths)}: two source files named {name}; give each a "
                            f"name of its own")
    return problems


def daemon_floor(path):
    """The index in DAEMON_FLOORS of the floor a daemon file stands on."""
    rel = os.path.relpath(os.path.dirname(path), ROOT)
    return next(i for i, (_, d) in enumerate(DAEMON_FLOORS) if rel == d or
                rel.startswith(d + os.sep) and d != "daemon")


def daemon_include(path, inc):
    """None when a daemon file's quoted include is not a header of a floor;
    else "" when the header stands on the file's floor or one below, else
    the problem."""
    if not os.path.relpath(path, ROOT).startswith("daemon" + os.sep) or "/" in inc:
        return None
    at = next((i for i, (_, d) in enumerate(DAEMON_FLOORS)
               if os.path.exists(os.path.join(ROOT, d, inc))), None)
    if at is None:
        return None
    mine = daemon_floor(path)
    if at <= mine:
        return ""
    return (f'{os.path.relpath(path, ROOT)}: includes "{inc}" of kixd\'s floor '
            f'{DAEMON_FLOORS[at][0]}, above its floor {DAEMON_FLOORS[mine][0]} (call up '
            f"through a lower floor's interface, e.g. struct kixd_handlers in server.h)")


def main():
    owner = public_headers()
    problems = []
    for name, folder, uses, third in LAYERS:
        allowed = set(uses) | {name}
        for path in sources(folder):
            rel = os.path.relpath(path, ROOT)
            for kind, inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
                if inc in owner:
                    if owner[inc] not in allowed:
                        problems.append(f"{rel}: includes {inc} of layer {owner[inc]}, "
                                        f"above or beside layer {name}")
                elif kind == "<" and inc in THIRD_PARTY and inc not in third:
                    problems.append(f"{rel}: includes <{inc}>, which layer {name} may not use")
                elif kind == '"' and daemon_include(path, inc) is not None:
                    if daemon_include(path, inc):
                        problems.append(daemon_include(path, inc))
                elif kind == '"' and ("/" in inc or
                                      not os.path.exists(os.path.join(os.path.dirname(path), inc))):
                    problems.append(f'{rel}: includes "{inc}", a private header of another folder')
        cmake = os.path.join(ROOT, folder, "CMakeLists.txt")
        if name in LIBRARY and os.path.exists(cmake):
            text = open(cmake, encoding="utf-8").read()
            for m in re.finditer(r"target_link_libraries\(\s*" + LIBRARY[name] + r"\b([^)]*)\)",
                                 text):
                for lib in re.findall(r"\bkix_\w+", m.group(1)):
                    layer = next((k for k, v in LIBRARY.items() if v == lib), None)
                    if layer and layer not in uses:
                        problems.append(f"{os.path.relpath(cmake, ROOT)}: {LIBRARY[name]} links "
                                        f"{lib}, above or beside it")
    # tests and tools use public headers only (plus their own helpers)
    for folder in ("tests", "tools"):
        for path in sources(folder):
            rel = os.path.relpath(path, ROOT)
            if rel.startswith("tests/vectors"):
                continue
            for kind, inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
                if kind != '"' or inc in owner:
                    continue
                here = os.path.join(os.path.dirname(path), inc)
                helpers = [os.path.join(ROOT, "tests", inc), os.path.join(ROOT, "tests/integration", inc)]
                found = [os.path.realpath(c) for c in [here] + helpers if os.path.exists(c)]
                own = os.path.realpath(os.path.join(ROOT, folder)) + os.sep
                if not inc.startswith("kix/") and not any(f.startswith(own) for f in found):
                    problems.append(f'{rel}: includes "{inc}", a private header of another folder')
                elif inc.startswith("kix/"):
                    problems.append(f'{rel}: includes "{inc}", which no layer publishes')
    # no shell, and no decision taken on an error's words (kix_err.cause)
    for folder in ("store", "proto", "client", "daemon", "tests", "tools"):
        for path in sources(folder):
            rel = os.path.relpath(path, ROOT)
            text = open(path, encoding="utf-8").read()
            code = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)  # not inside string literals
            for m in re.finditer(r"\b(system|popen)\s*\(", code):
                problems.append(f"{rel}: calls {m.group(1)}(): spawn argv without a shell")
            if not rel.startswith("tests/"):
                for m in re.finditer(r"\b(strstr|strncmp|strcmp)\s*\([^;]*\bmsg\b", text):
                    problems.append(f"{rel}: {m.group(1)} on an error message: act on "
                                    f"err->cause, not its text")
    # the log knows no benchmarks (see the top)
    log_files = list(sources("store/log")) + [os.path.join(ROOT, "store/log/CMakeLists.txt")]
    for path in log_files:
        if not os.path.exists(path):
            continue
        rel = os.path.relpath(path, ROOT)
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            for word in (m.group(0) for r in LOG_VOCABULARY for m in r.finditer(line)):
                problems.append(f"{rel}:{n}: \"{word}\": the log knows entries, objects and the "
                                f"indexer's tables, not what the index (store/index) makes of them")
    problems += markup_in_store()
    problems += views_from_sources(owner)
    problems += shared_names()
    problems += json_writers()
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s); see ARCHITECTURE.md")
        return 1
    print(f"layers ok: {sum(1 for l in LAYERS for _ in sources(l[1]))} files in "
          f"{len(LAYERS)} layers, tests and tools include public headers only")
    return 0


def main_quiet():
    with open(os.devnull, "w") as null:
        out, sys.stdout = sys.stdout, null
        try:
            return main()
        finally:
            sys.stdout = out


def self_test():
    """Each kind of violation, planted in a copy of the tree, is caught."""
    global ROOT
    plants = [
        ("store/verify/digest.c", '#include "kix/log.h"\n'),       # formats using the log
        ("store/index/runs.c", "#include <lmdb.h>\n"),             # the index touching LMDB
        ("proto/src/frame.c", '#include "kix/digest.h"\n'),        # proto above base
        ("daemon/loop/server.c", '#include "../client/cli/cli.h"\n'),  # kixd using the CLI
        ("tests/unit/test_log.c", '#include "log_internal.h"\n'),  # a test's private include
        ("store/verify/CMakeLists.txt", "target_link_libraries(kix_verify PUBLIC kix_log)\n"),
        ("client/cli/cmd_audit.c", 'static int f(void) { return system("rm -rf x"); }\n'),
        ("daemon/replication/mirror.c", 'static int g(struct kix_err *e) { return !!strstr(e->msg, "x"); }\n'),
        ("store/log/txn.c", "/* a comparable run joins its group */\n"),  # the log knowing runs
        ("store/log/db.h", "enum { T_RUNS };\n"),                          # ... or their table
        ("store/log/log.c", 'static const char *k = "metadata.runId";\n'),  # ... or their names
        ("store/index/query.c", 'static const char page[] = "<table><tr></tr></table>";\n'),
        ("store/index/web/page.css", "body{margin:0}\n"),                # a style sheet in store/
        ("client/view/figures.c", '#include "kix/pages.h"\n'),            # the view using the web
        ("client/view/figures.c", '#include "kix/index.h"\n'),            # the view under its source
        ("client/view/text.c", '#include "kix/log.h"\n'),                 # ... or the log
        ("client/view/cite.c", '#include "kix/client.h"\n'),              # ... or a client's verifier
        ("client/view/workload.c", "static int h(void *r) { return kix_index_run(r, 0, 0, 0); }\n"),
        ("client/web/home_page.c", '#include "kix/log_txn.h"\n'),       # pages reading the log
        ("client/web/run_page.c", '#include "kix/index.h"\n'),            # ... or the index
        ("client/web/pages.c", '#include "kix/source.h"\n'),              # ... or a source
        ("client/web/site_export.c", "static int k(void *r) { return kix_log_read_begin(r, 0); }\n"),
        ("client/web/CMakeLists.txt", "target_link_libraries(kix_web PUBLIC kix_client)\n"),
        ("daemon/log.c", "/* a second log.c */\n"),                      # a name taken twice
        ("daemon/base/diag.c", '#include "server.h"\n'),      # kixd's base floor using the loop
        ("daemon/loop/conn.c", '#include "dispatch.h"\n'),    # the loop calling the RPC front end
        ("daemon/front/server.h", "/* a second server.h */\n"),  # a header on two floors
        ("client/cli/cmd_canon.c", 'static void j(void) { printf("{\\"digest\\":%d}", 1); }\n'),
        ("client/web/home_page.c", "static char *d(json_t *o) { return json_dumps(o, 0); }\n"),
    ]
    # One copy of the tree; each plant is appended, checked and taken out
    # again, so the test costs one copy rather than one per plant.
    real, failures = ROOT, 0
    tmp = tempfile.mkdtemp(prefix="kix-layers-")
    try:
        for d in ("store", "proto", "client", "daemon", "tests", "tools"):
            shutil.copytree(os.path.join(real, d), os.path.join(tmp, d),
                            ignore=shutil.ignore_patterns("vectors", "corpus", "samples",
                                                          "node_modules", "data"))
        ROOT = tmp
        for rel, line in plants:
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            before = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            with open(path, "a", encoding="utf-8") as f:
                f.write(line)
            try:
                with open(os.devnull, "w") as null:
                    out, sys.stdout = sys.stdout, null
                    try:
                        caught = main() != 0
                    finally:
                        sys.stdout = out
            finally:
                if before is None:
                    os.remove(path)
                else:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(before)
            print(("ok: caught " if caught else "MISSED: ") + f"{line.strip()} in {rel}")
            failures += not caught
        if main_quiet() != 0:
            print("MISSED: the clean copy itself fails the check")
            failures += 1
    finally:
        ROOT = real
        shutil.rmtree(tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
