#!/usr/bin/env bash
# kix-import kernelbench end to end, on local stores made with `kixd init`,
# with the bundled sample (tools/samples/kernelbench: 10 timing files, 50
# entries, 2 of them null) and its problems' digests:
#  - every timed row is one new run, each null entry is skipped with its
#    reason (--json skippedRows, the map, the text summary); the map line
#    names the file, level, problem and run id
#  - the same files again add nothing (48 duplicates; log size unchanged);
#    kix audit passes
#  - a file with malformed rows (a missing field, a string for a number, a
#    negative mean, num_trials 0) publishes nothing (exit 1), each row named
#    by its file and JSON pointer; with --skip-bad the other row imports
#  - an H100 group ranks the problem's 6 configurations, by mean (kix query,
#    its group page); the softmax kernel page, the home page and the search
#    index name the source of every group (Liger's and KernelBench's softmax
#    groups side by side)
#  - kix-import liger is kix-import-liger (same run ids)
#  - usage errors exit 2
set -euo pipefail

bin=${KIX_BIN:?set KIX_BIN to the build bin/ directory}
src=${KIX_SRC:?set KIX_SRC to the source directory}
sample=$src/tools/samples/kernelbench
tmp=$(mktemp -d /tmp/kix-test-import-kb-XXXXXX)
export KIX_STATE_DIR="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
field() { # field NAME JSON: an integer member of a compact JSON object
    python3 -c 'import json,sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"
}
expect() { # expect WANT GOT WHAT
    [ "$1" = "$2" ] || fail "$3: want $1, got $2"
}
log_size() {
    "$bin/kix" info --store "$1" | awk '$1 == "size" { print $2 }'
}
new_store() { # new_store DIR: a log with publisher key $tmp/pub registered
    "$bin/kixd" init --store "$1" --admin-key "$1/admin.key" --origin kix.test/log >"$1.vkey" 2>/dev/null
    "$bin/kix" key add --store "$1" --key "$1/admin.key" --role publish "$tmp/pub.pub" >/dev/null
}
files=("$sample"/results/timing/*/*.json)
expect 10 "${#files[@]}" "sample timing files"
"$bin/kix" keygen --name kernelbench-importer --out "$tmp/pub" >/dev/null 2>&1

# ---- the sample into a fresh store ------------------------------------------------
new_store "$tmp/a"
out=$("$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/a" \
    --problems "$sample/problems.json" --map "$tmp/a.map" --json "${files[@]}")
expect 50 "$(field rows "$out")" "rows"
expect 48 "$(field runs "$out")" "runs"
expect 48 "$(field new "$out")" "new"
expect 0 "$(field duplicates "$out")" "duplicates"
expect 2 "$(field skipped "$out")" "skipped"
expect kernelbench "$(field source "$out")" "source"
python3 - "$out" <<'PY' || fail "skippedRows: $out"
import json, sys
o = json.loads(sys.argv[1])
rows = o["skippedRows"]
assert len(rows) == 2, rows
for r in rows:
    assert r["status"] == "skipped" and r["pointer"] == "/level3/33_VanillaRNN.py", r
    assert "null" in r["reason"] and r["file"].endswith(".json"), r
    assert r["level"] == 3 and r["problem"] == "33_VanillaRNN.py", r
PY
expect 50 "$(log_size "$tmp/a")" "log size"
expect 50 "$(wc -l <"$tmp/a.map")" "map lines (48 runs, 2 skipped)"
python3 - "$tmp/a.map" <<'PY' || fail "map: $(head -2 "$tmp/a.map")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
new = [l for l in lines if l["status"] == "new"]
assert len(new) == 48 and len({l["runId"] for l in new}) == 48
for l in new:
    assert l["file"].endswith(".json") and l["level"] in (1, 3) and l["problem"].endswith(".py")
    assert l["externalId"].startswith("kernelbench/"), l
assert sum(l["status"] == "skipped" for l in lines) == 2
PY

# the text summary names the skipped rows
"$bin/kix-import" kernelbench --dry-run --problems "$sample/problems.json" "${files[@]}" >"$tmp/out"
grep -q "2 skipped by the source" "$tmp/out" || fail "summary: $(cat "$tmp/out")"
grep -q "reduce-overhead.json: /level3/33_VanillaRNN.py: null" "$tmp/out" ||
    fail "summary: $(cat "$tmp/out")"

# ---- again: nothing new ------------------------------------------------------------
out=$("$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/a" \
    --problems "$sample/problems.json" --json "${files[@]}")
expect 0 "$(field new "$out")" "new entries the second time"
expect 48 "$(field duplicates "$out")" "duplicates the second time"
expect 50 "$(log_size "$tmp/a")" "log size after the second import"
"$bin/kix" audit --store "$tmp/a" >"$tmp/audit" 2>&1 || fail "kix audit: $(cat "$tmp/audit")"

# ---- one group: softmax on the H100, its 6 configurations by mean -------------------
"$bin/kix" query --store "$tmp/a" --kernel softmax --gpu H100 --json >"$tmp/q" ||
    fail "kix query: $(cat "$tmp/q")"
python3 - "$tmp/q" <<'PY' || fail "query: $(head -c 2000 "$tmp/q")"
import json, sys
rows = json.load(open(sys.argv[1]))["runs"]
assert len(rows) == 6, len(rows)
assert sorted(r["rank"] for r in rows) == [1, 2, 3, 4, 5, 6], rows
assert all(r["groupSize"] == 6 for r in rows), rows
PY

# ---- pages: both sources' softmax groups side by side, each naming its source ----------
out=$("$bin/kix-import" liger --key "$tmp/pub.key" --store "$tmp/a" --json \
    "$src/tools/samples/liger/sample.csv")
hport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/kixd" serve --store "$tmp/a" --listen "unix://$tmp/a.sock" --http "tcp://127.0.0.1:$hport" \
    --log-level warn 2>"$tmp/kixd.log" &
kixd_pid=$!
trap 'kill -TERM $kixd_pid 2>/dev/null || true; wait $kixd_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
H="http://127.0.0.1:$hport"
for _ in $(seq 1 100); do curl -sf "$H/checkpoint" >/dev/null && break; sleep 0.05; done
curl -sf "$H/kernels/softmax" >"$tmp/kernel.html" || fail "no softmax kernel page"
grep -q "<td>kernelbench-baseline-time</td>" "$tmp/kernel.html" ||
    fail "the kernel page names no KernelBench group"
grep -q "<td>liger-kernel-bench</td>" "$tmp/kernel.html" || fail "the kernel page names no Liger group"
# the GPUs compared: one bar per KernelBench group of the kernel (H100, L40S
# on two hosts, A10G), never a Liger group's; each bar names its host, so
# the two L40S bars are told apart
expect 4 "$(grep -c '(mean)</title></rect>' "$tmp/kernel.html")" "bars of the softmax GPU chart"
curl -sf "$H/kernels/square_matrix_multiplication" >"$tmp/kernel2.html" || fail "no problem 1 page"
grep -q "KernelBench: the GPUs compared" "$tmp/kernel2.html" || fail "no GPU chart on problem 1's page"
expect "NVIDIA H100 (Together.ai),NVIDIA L40S (Stanford matx3),NVIDIA L40S (Modal),NVIDIA A10G (Modal)" \
    "$(grep -o 'text-anchor="end" fill="#1b1b1b">[^<]*' "$tmp/kernel2.html" | sed 's/.*>//' | paste -sd,)" \
    "the GPU chart's bars, fastest first"
grep -q "GPUs compared" <<<"$(curl -sf "$H/kernels/rope")" && fail "a Liger-only kernel page has a KernelBench chart"
# issue 40.4: a problem's page ranks its configurations on each GPU (a
# table per KernelBench group), each with its speed-up over eager, eager
# itself 1.00x; a Liger kernel page has none
grep -q "KernelBench: the configurations on each GPU" "$tmp/kernel2.html" ||
    fail "problem 1's page does not rank its configurations on each GPU"
expect 4 "$(grep -c '<table class="group configs">' "$tmp/kernel2.html")" "configuration tables on problem 1's page"
expect 4 "$(grep -o '<h3><a href="../groups/[^"]*">[^<]*</a>' "$tmp/kernel2.html" | sed 's/.*">//; s/<.*//' | sort -u | wc -l)" \
    "distinct GPU headings of problem 1's configuration tables (two L40S hosts)"
python3 - "$tmp/kernel2.html" <<'PY' || fail "problem 1's configuration tables"
import re, sys
page = open(sys.argv[1]).read()
tables = re.findall(r'<table class="group configs">.*?</table>', page, re.S)
for t in tables:
    rows = re.findall(r'<tr><td>(\d+)</td><td><a href="\.\./runs/[^"]+\.html">([^<]*)</a></td><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>', t)
    assert rows, t[:300]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)), rows
    eager = [r for r in rows if r[3] == "1.00\u00d7"]
    assert len(eager) >= 1, rows
    assert all(r[3].endswith("\u00d7") for r in rows), rows
PY
grep -q "configurations on each GPU" <<<"$(curl -sf "$H/kernels/rope")" && fail "a Liger-only kernel page ranks configurations"
curl -sf "$H/" >"$tmp/home.html" || fail "no home page"
# and the pages after it (home/<k>: the k-th page), where the rows may be
for k in $(seq 2 20); do curl -sf "$H/home/$k" >>"$tmp/home.html" || break; done
grep -q "<td>kernelbench-baseline-time$" "$tmp/home.html" || fail "the home page names no source"
grep -q '(mean)<td' "$tmp/home.html" || fail "a mean-ranked group's figure does not say so"
grep -q '"source"' <<<"$(curl -sf "$H/search/index.json")" || fail "the search index has no source column"
# every search row, through the list of pages (search/pages.json)
python3 - "$H" >"$tmp/rows.json" <<'PY' || fail "the search shards"
import json, sys, urllib.request
get = lambda p: json.loads(urllib.request.urlopen(sys.argv[1] + "/" + p).read())
print(json.dumps([r for p in get("search/pages.json")["pages"] for r in get("search/%s.json" % p["name"])["rows"]]))
PY
grep -q '"kernelbench-baseline-time"' "$tmp/rows.json" || fail "search rows name no source"
group=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["group"])' "$tmp/q")
curl -sf "$H/groups/$group" >"$tmp/group.html" || fail "no page for group $group"
grep -q 'source <span data-kix-slot="group-source">kernelbench-baseline-time</span>' "$tmp/group.html" ||
    fail "the group page names no source"
grep -q "runs ranked by mean latency" "$tmp/group.html" || fail "the group page does not say mean"
expect 6 "$(grep -c '<tr data-rank=' "$tmp/group.html")" "rows of the H100 softmax group page"
grep -q '<th>vs eager</th>' "$tmp/group.html" || fail "the KernelBench group page has no speed-up over eager"
expect 1 "$(grep -o '<td>torch<td>[^<]*<td><td>[^<]*<td>1.00×' "$tmp/group.html" | wc -l)" \
    "the eager row's speed-up over eager"
liger_group=$(python3 -c 'import json,sys
print([r[12] for r in json.load(open(sys.argv[1])) if r[14] == "liger-kernel-bench"][0])' "$tmp/rows.json")
curl -sf "$H/groups/$liger_group" >"$tmp/lgroup.html" || fail "no Liger group page"
grep -q "vs eager" "$tmp/lgroup.html" && fail "a Liger group page has a KernelBench speed-up column"
kill -TERM $kixd_pid
wait $kixd_pid 2>/dev/null || true
trap 'rm -rf "$tmp"' EXIT

# ---- malformed rows --------------------------------------------------------------------
mkdir -p "$tmp/bad/H100_together"
python3 - "$sample/results/timing/H100_together/baseline_time_torch.json" \
    "$tmp/bad/H100_together/baseline_time_torch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l1 = d["level1"]
del l1["1_Square_matrix_multiplication_.py"]["mean"]
l1["2_Standard_matrix_multiplication_.py"]["mean"] = "0.39"
l1["23_Softmax.py"]["mean"] = -0.5
l1["40_LayerNorm.py"]["num_trials"] = 0
json.dump(d, open(sys.argv[2], "w"))
PY
bad=$tmp/bad/H100_together/baseline_time_torch.json
new_store "$tmp/c"
set +e
"$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/c" \
    --problems "$sample/problems.json" "$bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 1 "$rc" "exit status for a file with malformed rows"
for want in "1_Square_matrix_multiplication_.py/mean: missing" \
    "2_Standard_matrix_multiplication_.py/mean: must be a number of milliseconds, not a string" \
    "/level1/23_Softmax.py/mean: -0.5 is negative" \
    "/level1/40_LayerNorm.py/num_trials: must be a whole number"; do
    grep -qF "$bad, row" "$tmp/err" || fail "no file named: $(cat "$tmp/err")"
    grep -qF "$want" "$tmp/err" || fail "'$want' not reported: $(cat "$tmp/err")"
done
grep -q "nothing was published" "$tmp/err" || fail "report: $(cat "$tmp/err")"
expect 2 "$(log_size "$tmp/c")" "log size after a refused file (nothing half-published)"
out=$("$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/c" --skip-bad --json \
    --problems "$sample/problems.json" --map "$tmp/c.map" "$bad" 2>"$tmp/err")
expect 1 "$(field new "$out")" "new with --skip-bad (the one good row)"
expect 4 "$(field skipped "$out")" "skipped with --skip-bad"
expect 3 "$(log_size "$tmp/c")" "log size with --skip-bad"
grep '"problem":"23_Softmax.py"' "$tmp/c.map" | grep -q '"status":"skipped"' ||
    fail "map line of a malformed row: $(cat "$tmp/c.map")"
"$bin/kix" audit --store "$tmp/c" >"$tmp/audit" 2>&1 || fail "kix audit: $(cat "$tmp/audit")"

# ---- kix-import liger is kix-import-liger ---------------------------------------------------
liger=$src/tools/samples/liger/sample.csv
"$bin/kix-import" liger --dry-run --map "$tmp/l1.map" "$liger" >/dev/null
"$bin/kix-import-liger" --dry-run --map "$tmp/l2.map" "$liger" >/dev/null
cmp -s "$tmp/l1.map" "$tmp/l2.map" || fail "kix-import liger and kix-import-liger differ"

# ---- usage ------------------------------------------------------------------------------------
grep -q "^usage: kix-import SOURCE" <<<"$("$bin/kix-import" --help)" || fail "--help"
for args in "" "jax $liger" "kernelbench --dry-run ${files[0]}" \
    "liger --problems $sample/problems.json --dry-run $liger" "kernelbench --problems $sample/problems.json"; do
    set +e
    # shellcheck disable=SC2086
    "$bin/kix-import" $args >/dev/null 2>&1
    rc=$?
    set -e
    expect 2 "$rc" "exit status of kix-import $args"
done
out=$("$bin/kix-import" --json kernelbench --dry-run "${files[0]}" 2>/dev/null || true)
python3 -c 'import json,sys; e=json.loads(sys.argv[1])["error"]; assert e["code"]=="usage" and "--problems" in e["message"], e' "$out" ||
    fail "--json usage error: $out"
echo "ok: kix-import kernelbench"
