#!/usr/bin/env bash
# kix-bench --quick: the shape of its output (every figure and ratio there,
# numbers positive, the targets judged), never its speed. Once as README.md's
# Performance block runs it (with Redis when redis-server is installed; with
# nginx when /usr/sbin/nginx is: every resource kind against it, audit and
# mirror over HTTP and msgpack, a cold, a warm and a warm-after-growth
# verification of one run over HTTP, the warm ones fetching less), with the
# Release build when tools/test.sh has built it into build/ (as a reader of
# the README would; under ASan the block takes minutes of CI), and once with
# this build (ASan in the suite) without Redis, with fewer appends and
# shorter loads: kixd and the client under load, HTTP part included.
set -euo pipefail
: "${KIX_BIN:?set KIX_BIN to the bin directory of a build}"
WORK=$(mktemp -d /tmp/kix-bench-test-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

check() { # json-file mode(full|noredis)
    python3 - "$1" "$2" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
redis = d["machine"]["redis"]
need = {
    "machine": ["cpus", "load_start", "load_end"],
    "limits": ["ed25519_verify_1core", "ed25519_verify_all", "sha256_node", "sha256_node_evp",
               "sha256_node_sodium",
               "lmdb_batched_puts", "echo_1x1", "echo_1x1_p50_us", "echo_16x16",
               "echo_16x16_p99_us"],
    "append": ["entries_per_s", "ack_p50_ms", "ack_p99_ms", "ack_max_ms", "entries",
               "kixd_cpu_us_per_entry", "phase_sum_us", "entries_per_commit",
               "kixd_write_bytes_per_entry", "kixd_wchar_per_entry"] +
              ["d%d_%s" % (k, f) for k in (1, 4, 16)
               for f in ("entries_per_s", "ack_p99_ms", "verify_all_around")] +
              ["phase_%s_us" % p for p in ("receive", "canonical", "hash", "verify", "policy",
                                            "index", "commit", "answer")],
    "read": ["get_1x1", "get_1x1_p50_us", "get_1x1_p99_us", "get_16x16", "get_16x16_p99_us",
             "resolve_1x1", "resolve_1x1_p50_us", "resolve_16x16", "resolve_16x16_p99_us",
             "query_rows_p50_ms", "query_rows_proofs", "query_complete_p50_ms",
             "query_complete_proofs", "query_matched"],
    "audit": ["entries_per_s", "entries"],
    "mirror": ["entries_per_s", "entries"],
    "disk": ["append_bytes", "append_canonical_bytes", "append_vs_canonical"],
    "ratios": ["append_vs_verify_all", "audit_vs_verify_all", "mirror_vs_verify_all",
               "get_vs_echo", "resolve_vs_get", "append_ack_p99_ms",
               "append_d1_vs_verify_all", "append_d4_vs_verify_all", "append_d16_vs_verify_all"],
}
# issue 38's targets, each on the figure it was judged on (item 4)
issue38 = {"write_bytes_per_entry": "append.kixd_write_bytes_per_entry",
           "disk_vs_canonical": "disk.append_vs_canonical",
           "append_d1_vs_verify_all": "ratios.append_d1_vs_verify_all",
           "append_d4_vs_verify_all": "ratios.append_d4_vs_verify_all",
           "append_d16_vs_verify_all": "ratios.append_d16_vs_verify_all",
           "ack_p99_ms_d1": "append.d1_ack_p99_ms", "ack_p99_ms_d4": "append.d4_ack_p99_ms",
           "ack_p99_ms_d16": "append.d16_ack_p99_ms",
           "audit_vs_verify_all": "ratios.audit_vs_verify_all",
           "mirror_vs_verify_all": "ratios.mirror_vs_verify_all"}
targets = ["append_vs_verify_all", "append_ack_p99_ms", "audit_vs_verify_all",
           "mirror_vs_verify_all", "resolve_vs_get"]
if mode == "full":
    need["scale"] = ["small_entries", "big_entries", "proof_small_p50_us", "proof_big_p50_us",
                     "proof_big_p99_us", "resolve_small_p50_us", "resolve_big_p50_us",
                     "proof_small_tiles", "proof_small_stored_tiles", "proof_big_tiles",
                     "proof_big_stored_tiles",
                     "wire_proof_small_p50_us", "wire_proof_big_p50_us",
                     "wire_resolve_small_p50_us", "wire_resolve_big_p50_us",
                     "wire_resolve_big_p99_us", "wire_resolve_small_start_p50_us",
                     "wire_resolve_big_start_p50_us"]
    need["disk"] += ["big_bytes", "big_canonical_bytes", "big_vs_canonical"]
    need["ratios"] += ["proof_1e6_vs_1e3", "proof_1e6_vs_1e3_served", "resolve_1e6_vs_1e3",
                       "disk_vs_canonical", "wire_resolve_1e6_vs_1e3",
                       "wire_resolve_start_1e6_vs_1e3"]
    issue38["disk_vs_canonical"] = "ratios.disk_vs_canonical"
    issue38["wire_resolve_1e6_vs_1e3"] = "ratios.wire_resolve_1e6_vs_1e3"
    targets += ["proof_1e6_vs_1e3", "proof_1e6_vs_1e3_served", "disk_vs_canonical"]
    assert d["machine"]["quick"] is True
    assert d["scale"]["big_entries"] == 10000, "--quick builds a 10^4-entry big log"
    assert d["scale"]["small_entries"] == 1000
    need["browse"] = ["groups", "view_cold_ms", "view_update_ms", "home_cold_ms", "home_p99_us",
                      "home_pages_p99_us", "search_index_p99_us", "search_shard_p99_us",
                      "kernel_p99_us"]
    assert d["browse"]["groups"] == 10000, "--quick browses 10^4 groups"
if redis:
    need["limits"] += ["redis_get_1x1", "redis_get_16x16"]
    need["ratios"].append("get_vs_redis")
    targets.append("get_vs_redis")
else:
    assert "get_vs_redis" not in d["ratios"], "no Redis, yet a Redis ratio"
    assert not any(k.startswith("redis") for k in d["limits"]), "no Redis, yet Redis figures"
    targets.append("get_vs_echo")
import os
nginx = d["machine"]["nginx"]
assert nginx == os.access("/usr/sbin/nginx", os.X_OK), "nginx installed but not run, or the reverse"
http_ratios = ["http_tile_kixd_vs_nginx", "http_bundle_kixd_vs_nginx",
               "http_checkpoint_kixd_vs_nginx", "http_run_json_kixd_vs_nginx",
               "http_object_kixd_vs_nginx", "http_pack_kixd_vs_nginx", "audit_http_vs_rpc",
               "mirror_http_vs_rpc"]
if nginx:
    need["http"] = ["export_s", "export_bytes", "export_entries_per_s", "full_tiles",
                    "bundle_bytes"]
    for who in ("kixd", "nginx"):
        for what in ("tile", "bundle", "checkpoint", "run_json", "object", "pack"):
            k = "%s_%s_16x1" % (who, what)
            need["http"] += [k, k + "_p50_us", k + "_p99_us"]
    need["ratios"] += http_ratios + ["export_s_per_1e6"]
    need["sync"] = ["entries", "rounds", "audit_rpc_per_s", "audit_http_per_s", "mirror_rpc_per_s",
                    "mirror_http_per_s"]
    need["verify"] = ["%s_%s_%s" % (c, w, f) for c in ("show", "verify_citation")
                      for w in ("cold", "warm", "grown") for f in ("requests", "bytes", "ms")]
    # the static copy a run (issue 38.2): bytes, files (inodes) and names,
    # and what exporting again after the growth wrote a new entry
    need["static"] = ["runs", "bytes_per_run", "files_per_run", "names_per_run",
                      "runs_bytes_per_run", "grow_entries", "grow_files_per_entry",
                      "grow_names_per_entry", "grow_bytes_per_entry", "grow_s"]
    issue38.update({"static_bytes_per_run": "static.bytes_per_run",
                    "static_files_per_run": "static.files_per_run",
                    "export_again_bytes_per_entry": "static.grow_bytes_per_entry",
                    "export_again_files_per_entry": "static.grow_files_per_entry",
                    "export_summary_ok": "static.summary_ok",
                    "export_s_per_1e6": "ratios.export_s_per_1e6"})
    st = d.get("static", {})
    assert st.get("names_per_run", 0) >= st.get("files_per_run", 1) and "summary_ok" in st, st
    # exporting again: files counted as inodes, a page's .html twin no second file
    assert 0 < st["grow_files_per_entry"] < st["grow_names_per_entry"], st
    targets += ["http_tile_kixd_vs_nginx", "http_bundle_kixd_vs_nginx",
                "http_object_kixd_vs_nginx", "http_pack_kixd_vs_nginx", "audit_http_vs_rpc",
                "mirror_http_vs_rpc"]
    # the log was synced whole, both ways; a cold kix show fetched something
    assert d["sync"]["entries"] >= d["append"]["entries"], d["sync"]
    assert d["verify"]["show_cold_bytes"] > d["verify"]["show_cold_requests"] > 1, d["verify"]
    # the disk cache: a warm reader, and one back after the log grew, fetch less than a cold one
    for c in ("show", "verify_citation"):
        for w in ("warm", "grown"):
            for f in ("requests", "bytes"):
                assert d["verify"]["%s_%s_%s" % (c, w, f)] < d["verify"]["%s_cold_%s" % (c, f)], d["verify"]
else:
    assert "http" not in d, "no nginx, yet HTTP figures"
    assert "sync" not in d and "verify" not in d and "static" not in d, "no nginx, yet figures from it"
    assert not any(k in d["ratios"] for k in http_ratios), "no nginx, yet an nginx ratio"
for section, keys in need.items():
    for k in keys:
        assert k in d[section], "missing %s.%s" % (section, k)
        v = d[section][k]
        assert isinstance(v, (int, float)) and not isinstance(v, bool), "%s.%s: %r" % (section, k, v)
        assert math.isfinite(v) and v > 0, "%s.%s is not positive: %r" % (section, k, v)
appends = 3000 if mode == "full" else 600  # --quick, or the --appends given
assert d["append"]["entries"] == appends, d["append"]["entries"]
# kixd's per-phase CPU (serve --phase-stats) is part of its process CPU, and most of it
a = d["append"]
phases = sum(a["phase_%s_us" % p] for p in ("receive", "canonical", "hash", "verify", "policy",
                                            "index", "commit", "answer"))
# (--json writes 6 significant digits: nine roundings apart)
assert abs(phases - a["phase_sum_us"]) < 1e-4 * max(1, phases), "phase_sum_us is not the sum"
assert 0.3 * a["kixd_cpu_us_per_entry"] < phases <= 1.05 * a["kixd_cpu_us_per_entry"], \
    "phases %.1f us against kixd's %.1f us an entry" % (phases, a["kixd_cpu_us_per_entry"])
assert d["audit"]["entries"] == d["mirror"]["entries"] >= appends
for t in targets:
    assert t in d["targets"], "target %s not judged" % t
    tt = d["targets"][t]
    assert isinstance(tt["met"], bool) and tt["value"] > 0 and tt["bound"] > 0, t
assert set(d["targets"]) == set(targets), "targets %s, want %s" % (sorted(d["targets"]), sorted(targets))
assert set(d["issue38"]) == set(issue38), "issue 38 rows %s, want %s" % (sorted(d["issue38"]), sorted(issue38))
for t, fig in issue38.items():
    r = d["issue38"][t]
    sec, key = fig.split(".")
    assert r["figure"] == fig and r["value"] == d[sec][key], (t, r)
    assert r["met"] == (r["value"] <= r["bound"] if r["at_most"] else r["value"] >= r["bound"]), (t, r)
    # a figure that grows with the log is judged by a full run alone
    scaled = t in ("disk_vs_canonical", "export_again_bytes_per_entry",
                   "export_again_files_per_entry", "export_s_per_1e6", "wire_resolve_1e6_vs_1e3")
    assert r["judged"] is (not d["machine"]["quick"] or not scaled), (t, r)
print("ok: %s (%d sections, redis %s, nginx %s)" % (mode, len(d), redis, nginx))
EOF
}

# The first run is README.md's "Performance" block as written, from a root
# whose build/ is the Release build, else this build (the 10^4 log cached
# in $WORK/cache).
python3 "$KIX_TESTS/integration/readme_block.py" "$KIX_SRC/README.md" "Performance" >"$WORK/bench.sh"
bin="$KIX_BIN"
if [ -x "$KIX_SRC/build/bin/kix-bench" ] && [ -x "$KIX_SRC/build/bin/kixd" ]; then
  bin="$KIX_SRC/build/bin"
fi
mkdir "$WORK/root" && ln -s "$(cd "$bin/.." && pwd)" "$WORK/root/build"
(cd "$WORK/root" && KIX_BENCH_CACHE="$WORK/cache" bash -euo pipefail "$WORK/bench.sh") 2>"$WORK/full.err" ||
    { cat "$WORK/bench.sh" "$WORK/full.err" >&2; echo "FAIL: README's kix-bench block" >&2; exit 1; }
cp "$WORK/root/bench.json" "$WORK/full.json"
check "$WORK/full.json" full
grep -q "^targets" "$WORK/full.err" || { echo "FAIL: no table on stderr" >&2; exit 1; }
grep -q "not 10^6: --quick" "$WORK/full.err" || { echo "FAIL: the table hides the 10^4 big log" >&2; exit 1; }
grep -q "^Issue 38 targets (--quick: the big log is 10^4" "$WORK/full.err" ||
    { echo "FAIL: no issue 38 table, or it hides the 10^4 big log" >&2; exit 1; }

# (fewer appends and shorter loads: the shape is the same)
"$KIX_BIN/kix-bench" --quick --no-redis --only limits,kix,http --appends 600 --seconds 0.2 --json \
    --work "$WORK/w2" \
    >"$WORK/noredis.json" 2>"$WORK/noredis.err" ||
    { cat "$WORK/noredis.err" >&2; echo "FAIL: kix-bench --no-redis" >&2; exit 1; }
check "$WORK/noredis.json" noredis

# usage errors exit 2
rc=0; "$KIX_BIN/kix-bench" --clients 0 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a bad option exited $rc, want 2" >&2; exit 1; }
echo "ok: kix-bench --quick"
