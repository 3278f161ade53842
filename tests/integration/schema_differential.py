#!/usr/bin/env python3
"""Differential test of the record schemas: Debian's python3-jsonschema and
`kix validate` over a corpus of valid and mutated records must agree on
every one (valid or not), and, where both name a field, on its pointer.

usage: schema_differential.py KIX SCHEMA_DIR EXAMPLES_DIR WORK_DIR

The corpus: the example pages' records, records of every kind and every
predicate built from templates with random optional fields, then each
mutated many ways (a required field dropped, a wrong type, a negative
duration, a float where an integer goes, a value out of its closed set, a
bad timestamp, an extra property, ...). Seeded: the same corpus each run.
"""
import base64
import copy
import datetime
import json
import os
import random
import re
import subprocess
import sys

import jsonschema

KIX, SCHEMAS, EXAMPLES, WORK = sys.argv[1:5]
rng = random.Random(16)
rng2 = random.Random(41)  # what was added after the corpus was fixed


def digest():
    return "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64))


def ts():
    t = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=rng.randrange(0, 80_000_000))
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    return s + rng.choice(["Z", ".000Z", ".5Z", ".123456789Z"])


def maybe(d, key, value, p=0.5):
    if rng.random() < p:
        d[key] = value


def meta(name):
    m = {"name": name}
    maybe(m, "title", "A title \u00b7 with a middle dot")
    maybe(m, "labels", {"liger_version": "0.6.3"})
    return m


def record(kind, spec, name):
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": kind, "metadata": meta(name), "spec": spec}


STATS = ["median", "mean", "min", "max", "p20", "p80", "p99"]


def run():
    spec = {"status": rng.choice(["passed", "failed", "error", "skipped"]),
            "protocolDigest": digest(), "workloadDigest": digest(),
            "environmentDigest": digest(), "implementationDigest": digest()}
    if rng.random() < 0.7:
        lat = {"median": rng.randrange(0, 10**9)}
        maybe(lat, "p20", rng.randrange(0, 10**9))
        maybe(lat, "p80", rng.randrange(0, 10**9))
        spec["timing"] = {"latencyNs": lat}
        maybe(spec["timing"], "primaryStatistic", "median")
    else:
        spec["memory"] = {"peakBytes": {"median": rng.randrange(0, 2**40)},
                          "primaryStatistic": "median", "sourceUnit": "MB",
                          "bytesPerSourceUnit": 1048576}
    maybe(spec, "observedAt", ts(), 0.8)
    if rng.random() < 0.6:
        spec["measurements"] = [{"unit": "ns", "value": rng.randrange(0, 10**6), "metric": "latency",
                                 "statistic": rng.choice(STATS)} for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.6:
        spec["sourceNative"] = {"source": "liger-kernel-bench", "benchmark": "rope/forward",
                                "externalId": "rope/forward/liger/x", "metrics": {"ms_50": 0.0113}}
    maybe(spec, "correctness", {"policy": "allclose(atol=1e-5)"}, 0.2)
    maybe(spec, "artifacts", [{"name": "log.txt", "bytes": 12, "sha256": "ab" * 32,
                               "url": "https://example.org/log.txt"}], 0.3)
    return record("BenchmarkRun", spec, "run-%d" % rng.randrange(10**6))


def workload():
    spec = {"kernel": rng.choice(["rope", "geglu", "rms_norm"])}
    maybe(spec, "x", {"name": "H", "label": "hidden size", "value": 512})
    maybe(spec, "parameters", {"seq": 2048, "hidden": 512, "dtype": "bf16", "causal": True})
    maybe(spec, "config", {"dtype": "torch.bfloat16", "nested": {"a": [1, 2]}})
    maybe(spec, "dtype", "bf16")
    maybe(spec, "tensors", [{"name": "q", "dtype": "bf16", "shape": [1, 32, 2048, 16]},
                            {"name": "k", "shape": [1, 8, 2048, 16]}])
    maybe(spec, "definition", {"comparator": "not_asserted", "tolerance": 0.001})
    return record("Workload", spec, "workload-%d" % rng.randrange(10**6))


def environment():
    hw = {"product": rng.choice(["NVIDIA A100", "AMD MI300X", "NVIDIA GeForce RTX 4090"])}
    maybe(hw, "vendor", rng.choice(["nvidia", "amd", "intel"]))
    maybe(hw, "architecture", "sm_80")
    maybe(hw, "formFactor", "SXM4-80GB")
    maybe(hw, "count", rng.randrange(1, 9))
    maybe(hw, "memoryBytes", 80 * 2**30)
    spec = {"hardware": hw}
    if rng.random() < 0.7:
        sw = {}
        maybe(sw, "driverVersion", "550.54.15")
        maybe(sw, "cudaVersion", "12.4")
        maybe(sw, "rocmVersion", "6.1")
        maybe(sw, "frameworks", {"torch": "2.4.0", "triton": "3.0.0"})
        spec["software"] = sw
    return record("ExecutionEnvironment", spec, "env-%d" % rng.randrange(10**6))


def implementation():
    spec = {"provider": rng.choice(["liger", "torch_compile", "deepspeed_tiled"])}
    maybe(spec, "name", "Liger")
    maybe(spec, "project", "Liger-Kernel")
    maybe(spec, "repository", "https://github.com/linkedin/Liger-Kernel")
    maybe(spec, "revision", "v0.6.3")
    maybe(spec, "source", "https://github.com/linkedin/Liger-Kernel/tree/v0.6.3")
    return record("Implementation", spec, "impl-%d" % rng.randrange(10**6))


def protocol():
    spec = {"harness": {"name": "Liger-Kernel benchmark scripts"},
            "measurement": {"primaryStatistic": "median"}}
    maybe(spec["harness"], "repository", "https://github.com/linkedin/Liger-Kernel")
    maybe(spec["measurement"], "timer", "cuda_events")
    maybe(spec["measurement"], "metric", rng.choice(["latency", "peak_memory"]))
    maybe(spec["measurement"], "iterations", rng.randrange(1, 1000))
    maybe(spec, "comparability", {"notes": "Comparable within one GPU.", "family": "liger_kernel_bench"})
    return record("BenchmarkProtocol", spec, "proto-%d" % rng.randrange(10**6))


def run_id():
    return rng.choice(["01a016ae-091a-7c3e-8f00-0123456789ab", "run-1", "a.b:c_d-e"])


def publication():
    p = {"runId": run_id(), "publishedAt": ts()}
    maybe(p, "source", "Liger-Kernel benchmarks")
    maybe(p, "license", "BSD-2-Clause")
    return p


def attestation():
    p = {"runId": run_id(), "note": rng.choice(["reproduced on my A100", ""])}
    maybe(p, "attestedAt", ts())
    maybe(p, "evidence", [digest() for _ in range(rng.randrange(0, 3))])
    # the open note's members from a generator of their own: the rest of
    # the corpus stays the one it was
    if rng2.random() < 0.5:
        p["signerKey"] = base64.b64encode(bytes(rng2.randrange(256) for _ in range(32))).decode()
    if rng2.random() < 0.5:
        p["work"] = rng2.choice(["0", "1f3a", "x" * 64])
    return p


def rerun():
    p = {"runId": run_id(), "outcome": rng.choice(["reproduced", "not_reproduced", "failed"]),
         "rerunDigest": digest()}
    maybe(p, "observedAt", ts())
    return p


def supersession():
    p = {"runId": run_id(), "newRunId": "run-2"}
    maybe(p, "supersededAt", ts())
    maybe(p, "reason", "the median was in microseconds")
    return p


def withdrawal():
    p = {"runId": run_id(),
         "reason": rng.choice(["invalid-timing", "incorrect-result", "duplicate", "other"])}
    maybe(p, "note", rng.choice(["timed calls batched into one launch", ""]))
    maybe(p, "withdrawnAt", ts())
    maybe(p, "evidence", digest())
    return p


def reinstatement():
    p = {"runId": run_id()}
    maybe(p, "note", "re-measured: the timing is sound")
    maybe(p, "reinstatedAt", ts())
    return p


def key():
    import base64
    p = {"action": rng.choice(["add", "revoke"]),
         "publicKey": base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()}
    if p["action"] == "add" or rng.random() < 0.3:
        p["roles"] = rng.sample(["admin", "publish", "attest", "rerun", "curate"],
                                rng.randrange(1, 6))
    return p


def policy():
    p = {"openNotes": rng2.choice([True, False]),
         "setAt": "2026-12-0%dT12:00:00Z" % rng2.randrange(1, 7)}
    if rng2.random() < 0.5:
        p["noteWork"] = rng2.randrange(0, 33)
    return p


MAKERS = {"BenchmarkRun": run, "Workload": workload, "ExecutionEnvironment": environment,
          "Implementation": implementation, "BenchmarkProtocol": protocol,
          "publication": publication, "attestation": attestation, "rerun": rerun,
          "supersession": supersession, "withdrawal": withdrawal,
          "reinstatement": reinstatement, "key": key, "policy": policy}


# ---- mutations ---------------------------------------------------------------

def paths(v, here=()):
    """Every (path, value) in v."""
    yield here, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, here + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, here + (i,))


def get(v, path):
    for p in path:
        v = v[p]
    return v


BAD_TIMES = ["2024-02-30T00:00:00Z", "2024-09-03 15:39:55Z", "2024-09-03T15:39:55+01:00",
             "2024-09-03T15:39:55", "2024-09-03T25:00:00Z", "2023-02-29T12:00:00Z",
             "2024-09-03T15:39:55.Z", "yesterday", "2024-09-03t15:39:55z"]


def mutate(doc):
    """One random mutation of a copy of doc, and its name."""
    d = copy.deepcopy(doc)
    all_paths = [p for p, _ in paths(d)]
    objects = [p for p in all_paths if isinstance(get(d, p), dict)]
    leaves = [p for p in all_paths if p and not isinstance(get(d, p), (dict, list))]
    ints = [p for p in leaves if isinstance(get(d, p), int) and not isinstance(get(d, p), bool)]
    strings = [p for p in leaves if isinstance(get(d, p), str)]
    times = [p for p in strings if re.match(r"^\d{4}-\d\d-\d\dT", get(d, p))]
    arrays = [p for p in all_paths if p and isinstance(get(d, p), list)]
    kinds = ["drop", "type", "extra", "enum", "empty", "long"]
    if ints:
        kinds += ["negative", "float", "float_integral", "huge"]
    if times:
        kinds += ["time", "time"]
    if arrays:
        kinds += ["array_empty", "array_long"]
    kind = rng.choice(kinds)
    if kind == "drop":
        p = rng.choice([p for p in all_paths if p and isinstance(p[-1], str)] or [("x",)])
        if len(p) and p != ("x",):
            del get(d, p[:-1])[p[-1]]
    elif kind == "type" and leaves:
        p = rng.choice(leaves)
        v = get(d, p)
        new = rng.choice([123, "123", True, None, 1.5, [], {}])
        if type(new) is type(v):
            new = [v]
        get(d, p[:-1])[p[-1]] = new
    elif kind == "extra":
        p = rng.choice(objects)
        get(d, p)["unexpected" + str(rng.randrange(10))] = rng.choice([1, "x", {}])
    elif kind == "enum" and strings:
        p = rng.choice(strings)
        get(d, p[:-1])[p[-1]] = rng.choice(["exploded", "MEDIAN", "p42", "nvidia ", "Passed"])
    elif kind == "empty" and strings:
        p = rng.choice(strings)
        get(d, p[:-1])[p[-1]] = ""
    elif kind == "long" and strings:
        p = rng.choice(strings)
        get(d, p[:-1])[p[-1]] = rng.choice(["x", "\u00e9", "\U0001F600"]) * rng.choice([65, 129, 257, 1025, 4097])
    elif kind == "negative":
        p = rng.choice(ints)
        get(d, p[:-1])[p[-1]] = -rng.choice([1, 5, 10**6])
    elif kind == "float":
        p = rng.choice(ints)
        get(d, p[:-1])[p[-1]] = get(d, p) + 0.5
    elif kind == "float_integral":
        p = rng.choice(ints)
        get(d, p[:-1])[p[-1]] = float(get(d, p))
    elif kind == "huge":
        p = rng.choice(ints)
        get(d, p[:-1])[p[-1]] = 2**52
    elif kind == "time":
        p = rng.choice(times)
        get(d, p[:-1])[p[-1]] = rng.choice(BAD_TIMES)
    elif kind == "array_empty":
        p = rng.choice(arrays)
        get(d, p[:-1])[p[-1]] = []
    elif kind == "array_long":
        p = rng.choice(arrays)
        v = get(d, p)
        get(d, p[:-1])[p[-1]] = (v or [1]) * 40
    return kind, d


# ---- the outside validator ---------------------------------------------------

checker = jsonschema.FormatChecker(formats=())
RFC3339 = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")


@checker.checks("date-time")
def is_datetime(s):
    if not isinstance(s, str):
        return True
    m = RFC3339.match(s)
    if not m:
        return False
    try:
        datetime.datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]))
    except ValueError:
        return False
    off = m[8]
    return off in "Zz" or (int(off[1:3]) <= 23 and int(off[4:6]) <= 59)


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


schemas = {}
for f in sorted(os.listdir(SCHEMAS)):
    if f.endswith(".schema.json"):
        s = json.load(open(os.path.join(SCHEMAS, f)))
        jsonschema.Draft202012Validator.check_schema(s)
        name = s["properties"]["kind"]["const"] if "kind" in s["properties"] else f[:-len(".schema.json")]
        schemas[name] = jsonschema.Draft202012Validator(s, format_checker=checker)
assert sorted(schemas) == sorted(MAKERS), sorted(schemas)

# ---- the corpus ----------------------------------------------------------------

corpus = []  # (schema name, kind of case, document)
for f in sorted(os.listdir(EXAMPLES)):
    if f.endswith(".manifest.json"):
        for v in json.load(open(os.path.join(EXAMPLES, f))).values():
            corpus.append((v["kind"], "example", v))
for name, make in sorted(MAKERS.items()):
    for _ in range(12):
        corpus.append((name, "valid", make()))
bases = list(corpus)
for name, _, doc in bases:
    for _ in range(10):
        kind, d = mutate(doc)
        corpus.append((name, kind, d))

os.makedirs(WORK, exist_ok=True)
by_schema = {}
for i, (name, kind, doc) in enumerate(corpus):
    path = os.path.join(WORK, "%04d.json" % i)
    with open(path, "w") as fh:
        json.dump(doc, fh, ensure_ascii=False)
    by_schema.setdefault(name, []).append((i, path))

kix_says = {}
for name, items in sorted(by_schema.items()):
    out = subprocess.run([KIX, "validate", "--schema-only", "--json", "--kind", name] + [p for _, p in items],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), (name, out.returncode, out.stderr)
    res = json.loads(out.stdout)
    assert len(res["files"]) == len(items)
    for (i, _), r in zip(items, res["files"]):
        kix_says[i] = r

disagree = 0
pointer_checked = pointer_agree = 0
valid = invalid = 0
kinds_seen = {}
for i, (name, kind, doc) in enumerate(corpus):
    errors = list(schemas[name].iter_errors(doc))
    py_valid = not errors
    k = kix_says[i]
    kinds_seen.setdefault(kind, [0, 0])[0 if py_valid else 1] += 1
    valid += py_valid
    invalid += not py_valid
    if py_valid != k["valid"]:
        disagree += 1
        print("DISAGREE %04d %s (%s): jsonschema %s, kix %s" % (
            i, name, kind, "valid" if py_valid else [e.message for e in errors][:3],
            "valid" if k["valid"] else k["pointer"] + ": " + k["message"]))
        continue
    if not py_valid:
        # kix names one field; jsonschema lists every violation at the
        # instance it is found (a missing or extra member at its parent)
        py_paths = {pointer(e.absolute_path) for e in errors}
        for e in errors:
            for sub in e.context or ():
                py_paths.add(pointer(sub.absolute_path))
        kp = k["pointer"]
        parent = kp.rsplit("/", 1)[0] if kp else kp
        pointer_checked += 1
        if kp in py_paths or parent in py_paths:
            pointer_agree += 1
        else:
            print("POINTER %04d %s (%s): kix %s, jsonschema %s" % (i, name, kind, kp, sorted(py_paths)))

print("corpus: %d records (%d valid, %d invalid), %d schemas" % (len(corpus), valid, invalid, len(schemas)))
for kind, (v, iv) in sorted(kinds_seen.items()):
    print("  %-15s %4d valid %4d invalid" % (kind, v, iv))
print("agree on validity: %d/%d; pointers agree on %d/%d invalid records" % (
    len(corpus) - disagree, len(corpus), pointer_agree, pointer_checked))
ok = disagree == 0 and pointer_agree == pointer_checked and valid >= 100 and invalid >= 300
sys.exit(0 if ok else 1)
