# tests/integration/lib.sh — shared helpers of the shell integration tests.
# Sourced; expects KIX_BIN (the build's bin dir) and KIX_TESTS in the environment.
set -euo pipefail
# With pipefail, "producer | grep -q" fails when grep matches and exits
# before the producer's last write, which then dies of SIGPIPE (status
# 141): match what may take more than one write as grep -q P <<<"$(cmd)".

: "${KIX_BIN:?set KIX_BIN to the bin directory of a build}"
KIX="$KIX_BIN/kix"
KIXD="$KIX_BIN/kixd"
WORK=$(mktemp -d /tmp/kix-it-XXXXXX)
export KIX_STATE_DIR="$WORK/state"
export KIX_CACHE_DIR="$WORK/cache" # the HTTP source's disk cache: one per test, never ~/.cache
export XDG_CONFIG_HOME="$WORK/config"
unset KIX_LOG_KEY KIX_SERVER
KIXD_PIDS=()
KIXD_EXTRA=() # more kixd serve arguments for start_kixd

cleanup() {
  local pid
  for pid in "${KIXD_PIDS[@]}"; do
    { kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true
  done
  # KIX_TEST_KEEP=1 keeps the work directory for a look after a failure
  if [ -n "${KIX_TEST_KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# Prints a script's output (the file $1) with its failures first: CI shows a
# long output's start and end only, and a browser check's FAIL or ERROR line
# would fall in the cut-out middle.
failures_first() {
  if grep -qE '^(FAIL|ERROR)' "$1"; then
    echo "failures first (the whole output follows):"
    grep -E '^(FAIL|ERROR)' "$1" | head -20
    echo "----"
  fi
  cat "$1"
}
# wait_log FILE PATTERN WHAT [CONTEXT]: waits up to 10 s for a line of FILE
# matching PATTERN (grep), else fails saying WHAT and FILE's last 3 lines
# matching CONTEXT (grep -i; default: any)
wait_log() {
  local file=$1 pattern=$2 what=$3 context=${4:-.}
  for _ in $(seq 1 100); do
    grep -q -- "$pattern" "$file" && return 0
    sleep 0.1
  done
  grep -q -- "$pattern" "$file" || fail "$what: $(grep -i -- "$context" "$file" | tail -3)"
}
pass() { echo "ok: $*"; }

# expect_status N CMD...: runs CMD, fails unless it exits with N.
expect_status() {
  local want=$1; shift
  local got=0
  "$@" >"$WORK/out" 2>"$WORK/err" || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "--- stdout"; cat "$WORK/out"; echo "--- stderr"; cat "$WORK/err"
    fail "'$*' exited $got, want $want"
  fi
}

# release_bin NAME...: the bin directory of tools/test.sh's Release build
# (build/bin) when it holds every NAME, else $KIX_BIN (this build). The
# scale tests run Release binaries (the ASan build would take minutes); it
# says which on stderr, with their age: a build/ older than the sources
# (only this build rebuilt) runs the old code.
release_bin() {
  local dir="$KIX_SRC/build/bin" name
  for name in "$@"; do
    [ -x "$dir/$name" ] || { echo "$KIX_BIN"; return 0; }
  done
  echo "using $dir ($* built $(date -r "$dir/$1" '+%F %T'))" >&2
  echo "$dir"
}

# json_get FILE EXPR: prints a value from a JSON file (python3).
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# summary_is_tree SUMMARY DIR: the export summary in file SUMMARY (kixd
# export --json) counts what DIR holds: each name in "files", each inode's
# bytes once (a hard link is no second file) in "bytes".
summary_is_tree() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
said, root = json.load(open(sys.argv[1])), sys.argv[2]
names, total, seen = 0, 0, set()
for d, _, files in os.walk(root):
    for f in files:
        st = os.lstat(os.path.join(d, f))
        names += 1
        if st.st_ino not in seen:
            seen.add(st.st_ino)
            total += st.st_size
assert said["ok"] and said["files"] == names and said["bytes"] == total, \
    (said["files"], names, said["bytes"], total)
PY
}

# page_view PAGE: the view document a page embeds (#kix-view; a static
# copy's run page since layout 4, PROTOCOL.md §3), as JSON on stdout.
page_view() { python3 "$KIX_TESTS/integration/page_view.py" "$1"; }

# A free TCP port on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# make_manifests DIR TAG: a workload and a run manifest referencing it.
make_manifests() {
  local dir=$1 tag=$2
  mkdir -p "$dir"
  printf '{"apiVersion":"kernelindex.dev/v1alpha1","kind":"Workload","metadata":{"name":"rope"},"spec":{"kernel":"rope","parameters":{"seq":%s}}}' \
    "$tag" >"$dir/workload.json"
  local wd; wd=$("$KIX" digest "$dir/workload.json")
  printf '{"apiVersion":"kernelindex.dev/v1alpha1","kind":"BenchmarkRun","metadata":{"name":"run"},"spec":{"status":"passed","timing":{"latencyNs":{"median":%s}},"workloadDigest":"%s"}}' \
    "$((11000 + tag))" "$wd" >"$dir/run.json"
}

# fill_bundle DIR [MEDIAN]: what a publisher does to a `kix new run` bundle
# before publishing it: real figures (MEDIAN ns, default 11360, p20 and p80
# around it), the template's marker label and placeholder texts replaced.
fill_bundle() {
  python3 - "$1" "${2:-11360}" <<'PY'
import json, sys
d, median = sys.argv[1], int(sys.argv[2])
run = json.load(open(d + "/run.json"))
run["spec"]["timing"]["latencyNs"]["median"] = median
for m in run["spec"].get("measurements", []):
    m["value"] = {"p20": median * 9 // 10, "p80": median * 11 // 10}.get(m["statistic"], median)
run["metadata"].get("labels", {}).pop("kix-template", None)
if not run["metadata"].get("labels", True):
    del run["metadata"]["labels"]
json.dump(run, open(d + "/run.json", "w"), indent=2)
proto = json.load(open(d + "/protocol.json"))
proto["spec"]["harness"]["name"] = "test harness"
proto["spec"]["comparability"]["notes"] = "timed by the test suite"
json.dump(proto, open(d + "/protocol.json", "w"), indent=2)
PY
}

# make_rerun RUN_DIR DIR TAG: a rerun of the run in RUN_DIR (its workload,
# another median) in DIR/run.json, with the workload beside it.
make_rerun() {
  local run=$1 dir=$2 tag=$3
  mkdir -p "$dir"
  cp "$run/workload.json" "$dir/workload.json"
  local wd; wd=$("$KIX" digest "$dir/workload.json")
  printf '{"apiVersion":"kernelindex.dev/v1alpha1","kind":"BenchmarkRun","metadata":{"name":"run"},"spec":{"status":"passed","timing":{"latencyNs":{"median":%s}},"workloadDigest":"%s"}}' \
    "$((11000 + tag))" "$wd" >"$dir/run.json"
}

# start_kixd STORE: serves STORE on a temp Unix socket; sets KIXD_ADDR and KIXD_PID.
start_kixd() {
  local store=$1 sock="$WORK/kixd-$RANDOM.sock" i
  "$KIXD" serve --store "$store" --listen "unix://$sock" --log-level warn "${KIXD_EXTRA[@]}" \
    2>>"$WORK/kixd.log" &
  KIXD_PID=$!
  KIXD_PIDS+=("$KIXD_PID")
  KIXD_ADDR="unix://$sock"
  for i in $(seq 1 100); do
    # up is all we ask here: no log key, nothing verified or remembered
    KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$KIX" info --server "$KIXD_ADDR" >/dev/null 2>&1 && return 0
    kill -0 "$KIXD_PID" 2>/dev/null || { cat "$WORK/kixd.log" >&2; fail "kixd exited"; }
    sleep 0.05
  done
  fail "kixd did not come up on $KIXD_ADDR"
}

# stop_kixd: SIGTERM and wait (kixd drains and exits 0).
stop_kixd() {
  kill -TERM "$KIXD_PID" 2>/dev/null || true
  wait "$KIXD_PID" 2>/dev/null || true
}

# readme_block HEADING: README.md's sh block under HEADING, as written
# (tests/integration/readme_block.py; integration.readme_session checks
# that every such block is run by a test that names its heading this way).
readme_block() { python3 "$KIX_TESTS/integration/readme_block.py" "$KIX_SRC/README.md" "$1"; }
# readme_root DIR: DIR made to look like the source root to a README block
# run in it: tools/ is the source's, build/ the build KIX_BIN belongs to,
# and what the block writes (var/, ...) stays in DIR.
readme_root() {
  mkdir -p "$1"
  ln -s "$KIX_SRC/tools" "$1/tools"
  ln -s "$(cd "$KIX_BIN/.." && pwd)" "$1/build"
}

# meta NAME KEY: the metadata value KEY (text) of the store $WORK/NAME
meta() {
  python3 - "$WORK/$1" "$2" <<'EOF'
import subprocess, sys
out = subprocess.run(["mdb_dump", "-p", "-s", "meta", sys.argv[1]], capture_output=True, text=True).stdout
lines = out.split("HEADER=END\n", 1)[1].splitlines()
for k, v in zip(lines[0::2], lines[1::2]):
    if k.strip() == sys.argv[2]:
        print(v.strip())
EOF
}
