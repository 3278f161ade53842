#!/usr/bin/env bash
# Issue 18: the two progress bars (kix-import-liger, kix audit) are one bar
# (kix/progress.h): the same line on a terminal, and nothing at all when
# stdout or stderr is not a terminal.
. "$KIX_TESTS/integration/lib.sh"

head -n 41 "$KIX_TESTS/data/liger/all_benchmark_data.csv" >"$WORK/s.csv"
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.progress/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/imp.pub" >/dev/null

# on a terminal (stdout and stderr on one pty)
python3 - "$KIX_BIN" "$WORK" <<'PY' || fail "bars on a terminal"
import os, pty, re, subprocess, sys
bin, work = sys.argv[1], sys.argv[2]
def on_pty(argv):
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert p.wait() == 0, (argv, out)
    return out.decode()
BAR = re.compile(r"\r([a-z]+) +\[[#.]{30}\] +(\d+)%  (\d+)/(\d+) ([a-z]+)  \d+ \5/s\x1b\[K")
imp = on_pty([bin + "/kix-import-liger", "--key", work + "/imp.key", "--store", work + "/log",
              "--batch", "8", work + "/s.csv"])
aud = on_pty([bin + "/kix", "audit", "--store", work + "/log"])
bi, ba = BAR.findall(imp), BAR.findall(aud)
assert {b[0] for b in bi} >= {"importing"}, imp
assert {b[0] for b in ba} == {"audit"} and ba[-1][1] == "100", aud
assert {b[4] for b in bi if b[0] == "importing"} == {"rows"} and {b[4] for b in ba} == {"entries"}
# each erases its bar before its summary
for out in (imp, aud):
    end = out.rfind("/s\x1b[K") + 5
    assert out[end:end + 4] == "\r\x1b[K", repr(out[end - 20:end + 20])
print("import:", bi[-1], "audit:", ba[-1])
PY
pass "one progress bar, the same in kix-import-liger and kix audit"

# not a terminal: not a byte of bar
"$KIX" audit --store "$WORK/log" --restart >"$WORK/a.out" 2>"$WORK/a.err"
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" --batch 8 "$WORK/s.csv" \
  >"$WORK/i.out" 2>"$WORK/i.err"
python3 - "$WORK"/a.out "$WORK"/a.err "$WORK"/i.out "$WORK"/i.err <<'PY' || fail "bar bytes without a terminal"
import sys
for f in sys.argv[1:]:
    t = open(f, "rb").read()
    assert b"\r" not in t and b"\x1b" not in t and b"[####" not in t, (f, t[:200])
PY
# stderr a terminal but stdout not (kix audit --json > file): silent too
python3 - "$KIX_BIN" "$WORK" <<'PY' || fail "bar with stdout not a terminal"
import os, pty, subprocess, sys
bin, work = sys.argv[1], sys.argv[2]
master, slave = pty.openpty()
p = subprocess.Popen([bin + "/kix", "audit", "--restart", "--json", "--store", work + "/log"],
                     stdin=slave, stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
out = p.stdout.read()
err = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
assert p.wait() == 0
assert b"\x1b" not in err and b"[" not in err, err
PY
pass "no bar when stdout or stderr is not a terminal"
