#!/usr/bin/python3
"""An independent verifier of kix's verifiable index (proto/PROTOCOL.md §4),
from the document alone: it shares no code with kix (Python standard
library, PyNaCl, and this folder's other independent checkers of the C2SP
note and the sparse Merkle tree).

    vindex_verify.py VKEY ANSWER.json [ANSWER.json ...] [--rank RUN=R/N]
    vindex_verify.py VKEY --doc PROTOCOL.md [--rank RUN=R/N]
    vindex_verify.py VKEY --selections KIX ADDR

An ANSWER is what `kix index KEY --json` prints: the key, whether it is
present, the record and proof in hex, the checkpoint and the index note.
With --doc the answers are the worked example of PROTOCOL.md §4.6 (the JSON
block after `<!-- example vindex -->`), whose log key is the VKEY given.

For every answer: the checkpoint is signed by the log key (C2SP signed
note); the index note is signed by the same key, has exactly the §4.3 text,
and names the checkpoint's origin, size and root; the proof (§4.4, the
encoding of store/verify/SMT.md) takes SHA-256(key) and SHA-256(record) (or
absence) to the note's index root; the record decodes strictly by §4.2
(exact length, known tag and evidence, members in rank order, a group's
pages cut where §4.2 says). A run given with its group's directory and the
page that lists it must agree with them: the run's comparison key is the
group's, the page is the directory's (count and first member), and the run
is a member with the run record's value. The rank (the page's first rank
plus the run's place in it) is printed; --rank requires it.

With --selections, the selection records (§4.2) and every comparison
group's directory and pages are recomputed from the log itself: every publication in log order (`KIX log --json`), its run
record (proven), its manifest and the objects it names (`KIX get`, each
hashed to its digest here); from them each run's comparison key (§5.6),
kernel, GPU, provider, timed pass, metric and dtype, and the lists the
rules append to. Every list's head and pages must be exactly the records
the log's signed index proves (`KIX index KEY --json`), and a value no run
has must be proven absent. A group's members are its publications' runs
less those superseded or withdrawn (a withdrawal, undone by a later
reinstatement: §5), each entry read from its own leaf (`KIX entry N`); the
directory and pages cut from them must be the signed index's, byte for
byte. KIX is used to fetch bytes, never to judge them.
Exit 0 when everything holds, 1 with the reason otherwise.
"""
import base64
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_verify as note  # noqa: E402  (C2SP signed notes)
import smt_verify as smt  # noqa: E402  (the sparse Merkle tree)

NONE = 2**64 - 1
EVIDENCE = ["reported", "reproduced", "not_reproduced", "failed"]


def fail(msg):
    print("vindex verifier: " + msg, file=sys.stderr)
    sys.exit(1)


class Reader:
    """Strict big-endian reader over a record's bytes."""

    def __init__(self, b, what):
        self.b, self.at, self.what = b, 0, what

    def take(self, n):
        if self.at + n > len(self.b):
            fail("%s: record too short" % self.what)
        out = self.b[self.at : self.at + n]
        self.at += n
        return out

    def u8(self):
        return self.take(1)[0]

    def u64(self):
        return int.from_bytes(self.take(8), "big")

    def run_id(self, may_be_empty):
        n = self.u8()
        rid = self.take(n)
        if n == 0 and not may_be_empty:
            fail("%s: empty run id" % self.what)
        if n and not re.fullmatch(rb"[A-Za-z0-9._:-]+", rid):
            fail("%s: run id %r is not one" % (self.what, rid))
        return rid.decode()

    def end(self):
        if self.at != len(self.b):
            fail("%s: %d bytes after the record" % (self.what, len(self.b) - self.at))


def decode_run(b, key):
    r = Reader(b, key)
    if r.u8() != 0x01:
        fail("%s: not a run record" % key)
    rec = {
        "manifest": r.take(32).hex(),
        "publisher": r.take(32).hex(),
        "publication": r.u64(),
    }
    ev = r.u8()
    if ev >= len(EVIDENCE):
        fail("%s: unknown evidence level %d" % (key, ev))
    rec["evidence"] = EVIDENCE[ev]
    rec["evidenceIndex"] = r.u64()
    rec["attestations"] = r.u64()
    rec["reruns"] = r.u64()
    rec["supersedesIndex"] = r.u64()
    rec["predecessor"] = r.run_id(True)
    rec["supersededByIndex"] = r.u64()
    rec["successor"] = r.run_id(True)
    grouped = r.u8()
    rec["comparisonKey"] = r.take(32).hex()
    rec["value"] = r.u64()
    rec["entries"] = r.u64()
    rec["entriesChain"] = r.take(32).hex()
    rec["withdrawnIndex"] = r.u64()  # the withdrawal in force, kix-index/5
    r.end()
    if rec["withdrawnIndex"] != NONE and grouped:
        fail("%s: a withdrawn run is ranked" % key)
    if grouped not in (0, 1):
        fail("%s: grouped is %d" % (key, grouped))
    if not grouped and (rec["comparisonKey"] != "00" * 32 or rec["value"]):
        fail("%s: an unranked run with a group" % key)
    # a link and its id go together
    if (rec["supersedesIndex"] == NONE) != (rec["predecessor"] == ""):
        fail("%s: predecessor link without its run" % key)
    if (rec["supersededByIndex"] == NONE) != (rec["successor"] == ""):
        fail("%s: successor link without its run" % key)
    if (rec["evidence"] == "reported") != (rec["evidenceIndex"] == NONE):
        fail("%s: evidence without the rerun that set it" % key)
    if rec["entries"] < 1 + rec["attestations"] + rec["reruns"]:
        fail("%s: fewer entries than publication, attestations and reruns" % key)
    rec["grouped"] = bool(grouped)
    return rec


PAGE_TAG = b"kix.group.page\n"


PAGE_MAX = 448  # members of a full page (§4.2)
PAGE_BYTES = 65536  # the bound of a page record


def starts_page(rid):
    """A run starts a page of its group by the hash rule when SHA-256(tag || id) < 4 in its
    first byte (§4.2); any run also starts one after a full page."""
    return hashlib.sha256(PAGE_TAG + rid.encode()).digest()[0] < 4


def rank_key(value, rid):
    # rank order: value ascending, ties by run id bytes (a prefix first)
    return (value, rid.encode())


def decode_group(b, key):
    """A group's directory: its size and its pages in rank order."""
    r = Reader(b, key)
    if r.u8() != 0x02:
        fail("%s: not a group directory" % key)
    ck = r.take(32).hex()
    if key != "group/" + ck:
        fail("%s: the record is group %s's" % (key, ck))
    count, npages = r.u64(), r.u64()
    if npages == 0:
        fail("%s: a directory with no page" % key)
    pages, rank, last, last_members = [], 1, None, 0
    for i in range(npages):
        members, value = r.u64(), r.u64()
        rid = r.run_id(i == 0)
        if (members == 0) != (rid == "") or (members == 0 and value):
            fail("%s: page %d's first run and count disagree" % (key, i))
        if members > PAGE_MAX:
            fail("%s: page %d holds %d runs, over a full page's %d" % (key, i, members, PAGE_MAX))
        if i > 0 and last_members != PAGE_MAX and not starts_page(rid):
            fail("%s: page %d starts at %s, which does not start a page" % (key, i, rid))
        last_members = members
        if members and last is not None and not last < rank_key(value, rid):
            fail("%s: pages not in rank order at %s" % (key, rid))
        if members:
            last = rank_key(value, rid)
        pages.append({"id": rid if i else "", "firstRank": rank, "members": members,
                      "first": (rid, value)})
        rank += members
    r.end()
    if rank - 1 != count:
        fail("%s: count %d, its pages hold %d" % (key, count, rank - 1))
    best = next((p["first"] for p in pages if p["members"]), None)
    return {"comparisonKey": ck, "count": count, "pages": pages, "best": best}


def decode_page(b, key):
    """One page of a group: its members in rank order, the first its id, at most a full page."""
    if len(b) > PAGE_BYTES:
        fail("%s: a page record of %d bytes, over the %d-byte bound" % (key, len(b), PAGE_BYTES))
    r = Reader(b, key)
    if r.u8() != 0x05:
        fail("%s: not a group page" % key)
    ck = r.take(32).hex()
    pid = r.run_id(True)
    if key != "group/%s/%s" % (ck, pid):
        fail("%s: the record is page %s of group %s" % (key, pid, ck))
    count = r.u64()
    if count > PAGE_MAX:
        fail("%s: a page of %d runs, over a full page's %d" % (key, count, PAGE_MAX))
    members, last = [], None
    for i in range(count):
        value = r.u64()
        rid = r.run_id(False)
        here = rank_key(value, rid)
        if last is not None and not last < here:
            fail("%s: members not strictly in rank order at %s" % (key, rid))
        if i == 0 and pid and rid != pid:
            fail("%s: the page starts at %s, not its id" % (key, rid))
        if i > 0 and starts_page(rid):
            fail("%s: %s starts a page but is inside one" % (key, rid))
        last = here
        members.append((rid, value))
    r.end()
    return {"comparisonKey": ck, "id": pid, "members": members}


def decode_group_key(b, key):
    return decode_page(b, key) if key.count("/") == 2 else decode_group(b, key)


def decode_key(b, key):
    r = Reader(b, key)
    if r.u8() != 0x03:
        fail("%s: not a key record" % key)
    kid, pub = r.take(32), r.take(32)
    rec = {"roles": r.u8(), "registeredAt": r.u64(), "revokedAt": r.u64()}
    r.end()
    if "key/" + kid.hex() != key or hashlib.sha256(pub).digest() != kid:
        fail("%s: the key id is not SHA-256 of the public key" % key)
    if rec["roles"] & ~0x1F:
        fail("%s: unknown roles" % key)
    return rec


def decode_manifest(b, key):
    r = Reader(b, key)
    if r.u8() != 0x04:
        fail("%s: not a manifest record" % key)
    d = r.take(32).hex()
    rec = {"runId": r.run_id(False), "publication": r.u64()}
    r.end()
    if key != "manifest/" + d:
        fail("%s: the record is manifest %s's" % (key, d))
    return rec


def decode_selection(b, key):
    """A selection list's head (tag 5: its item count) or page (tag 6)."""
    r = Reader(b, key)
    tag = r.u8()
    if tag == 0x05:
        rec = {"items": r.u64()}
    elif tag == 0x06:
        rec = {"page": r.u64(), "items": []}
        for _ in range(r.u64()):
            n = r.take(2)
            rec["items"].append(r.take(n[0] << 8 | n[1]))
    else:
        fail("%s: not a selection record" % key)
    r.end()
    return rec


def decode_withdrawn(b, key):
    """A group's withdrawn runs: (run id, withdrawal index, reason) by id."""
    r = Reader(b, key)
    if r.u8() != 0x07:
        fail("%s: not a withdrawn record" % key)
    ck = r.take(32).hex()
    if key != "withdrawn/" + ck:
        fail("%s: the record is group %s's" % (key, ck))
    runs = []
    for _ in range(r.u64()):
        rid, index, reason = r.run_id(False), r.u64(), r.u8()
        if runs and not runs[-1][0].encode() < rid.encode():
            fail("%s: runs not in id order at %s" % (key, rid))
        if not 1 <= reason <= len(REASONS) or index == NONE:
            fail("%s: run %s has no withdrawal or reason" % (key, rid))
        runs.append((rid, index, REASONS[reason - 1]))
    r.end()
    return {"comparisonKey": ck, "runs": runs}


DECODERS = {"run/": decode_run, "group/": decode_group_key, "key/": decode_key,
            "manifest/": decode_manifest, "sel/": decode_selection,
            "withdrawn/": decode_withdrawn}


def open_index_note(text, vkey, cp_origin, cp_size, cp_root):
    """The §4.3 note: signed by the log key, exact text, bound to the checkpoint."""
    body = note.open_note(text, vkey, "index note")
    m = re.fullmatch(r"kix\.index/v1\norigin (.+)\nsize (0|[1-9][0-9]*)\nlog (\S+)\nindex (\S+)\n",
                     body)
    if not m:
        fail("index note text is not kix.index/v1: %r" % body)
    origin, size = m.group(1), int(m.group(2))
    log_root = base64.b64decode(m.group(3), validate=True)
    index_root = base64.b64decode(m.group(4), validate=True)
    if base64.b64encode(log_root).decode() != m.group(3) or len(index_root) != 32:
        fail("index note roots are not canonical base64 of 32 bytes")
    if (origin, size, log_root) != (cp_origin, cp_size, cp_root):
        fail("index note is for %s at %d, not the checkpoint's %s at %d (or another root)"
             % (origin, size, cp_origin, cp_size))
    return index_root


def verify_answer(a, vkey):
    size, root = note.open_checkpoint(a["checkpoint"], vkey)
    index_root = open_index_note(a["indexNote"], vkey, vkey[0], size, root)
    if a.get("size", size) != size:
        fail("answer size %s is not the checkpoint's %d" % (a.get("size"), size))
    key = a["key"]
    path = hashlib.sha256(key.encode()).digest()
    record = bytes.fromhex(a["record"]) if a["present"] else None
    vh = hashlib.sha256(record).digest() if record is not None else None
    if not smt.verify(index_root, path, vh, bytes.fromhex(a["proof"])):
        fail("%s: the proof of %s does not reach the signed index root at size %d"
             % (key, "membership" if record is not None else "absence", size))
    if record is None:
        return key, size, None
    for prefix, decode in DECODERS.items():
        if key.startswith(prefix):
            return key, size, decode(record, key)
    fail("%s: not an index key" % key)


def doc_example(path):
    text = open(path).read()
    m = re.search(r"<!-- example vindex -->\s*```json\n(.*?)\n```", text, re.S)
    if not m:
        fail("%s has no `<!-- example vindex -->` JSON block" % path)
    answers = json.loads(m.group(1))["answers"]
    # the field-by-field tables of the example must be the records' bytes
    tail = text[m.end() :]
    run_hex = "".join(re.findall(r"^       [a-zA-Z]+ +([0-9a-f]+)\b", tail, re.M))
    members = re.findall(r"^       ([0-9a-f]{16}) ([0-9a-f]{2}) (\S+)", tail, re.M)
    group_tail = "".join(v + n + rid.encode().hex() for v, n, rid in members)
    for a in answers:
        if a["key"].startswith("run/") and a["record"] != run_hex:
            fail("the document's run record table is not the record's bytes")
        if a["key"].count("/") == 2 and not a["record"].endswith(group_tail):
            fail("the document's group member table is not the page's bytes")
    return answers


SEL_PAGE = 256
GROUP_DIMS = ["kernel", "gpu", "mode", "metric", "dtype"]


def kix_out(kix, *args):
    import subprocess
    p = subprocess.run([kix] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        fail("%s %s: %s" % (kix, " ".join(args), p.stderr.decode(errors="replace")))
    return p.stdout


def kix_object(kix, addr, digest):
    b = kix_out(kix, "get", "--server", addr, digest)
    if "sha256:" + hashlib.sha256(b).hexdigest() != digest:
        fail("object %s does not hash to its digest" % digest)
    return json.loads(b)


def comparison_key(m):
    """§5.6: the comparison key and value of a run manifest, or None."""
    spec = m.get("spec") if isinstance(m, dict) else None
    if m.get("kind") != "BenchmarkRun" or not isinstance(spec, dict):
        return None
    def median(*path):
        v = spec
        for p in path:
            v = v.get(p) if isinstance(v, dict) else None
        ok = (isinstance(v, int) and not isinstance(v, bool) and v >= 0) or \
             (isinstance(v, float) and v.is_integer() and 0 <= v < 2**53)
        return int(v) if ok else None
    value, metric = median("timing", "latencyNs", "median"), "latency"
    if value is None:
        value, metric = median("memory", "peakBytes", "median"), "peak_memory"
    names = {"benchmark": (spec.get("sourceNative") or {}).get("benchmark"),
             "environmentDigest": spec.get("environmentDigest"),
             "protocolDigest": spec.get("protocolDigest"),
             "workloadDigest": spec.get("workloadDigest")}
    if value is None or not all(isinstance(v, str) for v in names.values()):
        return None
    names["metric"] = metric
    canon = json.dumps(names, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()


def cut(text, n):
    """A C field of n bytes with its NUL: at most n - 1 bytes of text."""
    b = text.encode() if isinstance(text, str) else b""
    return b[: n - 1]


def describe(m, objs):
    """What kix shows of a run and the selection lists file it under."""
    spec = m.get("spec") or {}
    w, e, i = ((o or {}).get("spec") or {} for o in objs)
    bench = (spec.get("sourceNative") or {}).get("benchmark")
    mode = ""
    if isinstance(bench, str) and "/" in bench:
        mode = bench.split("/", 2)[1]
    hw = e.get("hardware") or {}
    form = hw.get("formFactor")
    gpu = cut(hw.get("product"), 64) + b" " + (form.encode() if isinstance(form, str) else b"")
    return {"kernel": cut(w.get("kernel"), 64), "gpu": gpu[:159],
            "provider": cut(i.get("provider"), 64), "mode": cut(mode, 16),
            "metric": b"peak_memory" if "memory" in spec else b"latency",
            "dtype": cut(w.get("dtype"), 64)}


def check_selections(vkey, kix, addr):
    entries = json.loads(kix_out(kix, "log", "--json", "--server", addr, "--from", "0",
                                 "--limit", "1000000"))["entries"]
    lists, listed, sizes = {}, set(), set()

    def add(dim, value, item):
        key = "sel/%s/%s" % (dim, hashlib.sha256(value).hexdigest())
        if key not in lists:
            lists[key] = []
            lists.setdefault("sel/" + dim, []).append(value)
        lists[key].append(item)

    members, gone, withdrawn, ever, published = {}, set(), {}, set(), []
    for e in entries:
        # the entry's own statement, not kix's word on it; in log order, so
        # the last withdrawal or reinstatement of a run rules
        kind, pred = leaf_statement(kix_out(kix, "entry", "--server", addr, str(e["index"])))
        rid = pred.get("runId")
        if kind == "supersession":
            gone.add(rid)
        elif kind == "withdrawal":
            withdrawn[rid] = (e["index"], REASONS.index(pred["reason"]) + 1)
            ever.add(rid)
        elif kind == "reinstatement":
            withdrawn.pop(rid, None)
        elif kind == "publication":
            published.append((e, rid))
    for e, rid in published:
        a = json.loads(kix_out(kix, "index", "--json", "--server", addr, "run/" + e["subject"]))
        _, size, run = verify_answer(a, vkey)
        sizes.add(size)
        m = kix_object(kix, addr, "sha256:" + run["manifest"])
        ck = comparison_key(m)
        if ck is None:
            continue
        if run["grouped"] and run["comparisonKey"] != ck:
            fail("run %s: the index groups it in %s, its manifest in %s"
                 % (e["subject"], run["comparisonKey"], ck))
        members.setdefault(ck, []).append((rid, run["value"] if run["grouped"] else None))
        if run["grouped"] == (rid in gone or rid in withdrawn) or \
                (run["withdrawnIndex"] != NONE) != (rid in withdrawn):
            fail("run %s: the index says %s, its entries %s"
                 % (rid, "ranked" if run["grouped"] else "unranked",
                    "withdrawn" if rid in withdrawn else "superseded" if rid in gone else "ranked"))
        spec = m["spec"]
        objs = [kix_object(kix, addr, spec[f]) if isinstance(spec.get(f), str) else None
                for f in ("workloadDigest", "environmentDigest", "implementationDigest")]
        v = describe(m, objs)
        if ck not in listed:
            listed.add(ck)
            for dim in GROUP_DIMS:
                add(dim, v[dim], bytes.fromhex(ck))
        add("provider", v["provider"], bytes.fromhex(ck) + e["subject"].encode())
    proven = 0
    for key, items in sorted(lists.items()):
        want = [("", bytes([5]) + len(items).to_bytes(8, "big"))]
        for p in range(0, len(items), SEL_PAGE):
            page = items[p : p + SEL_PAGE]
            want.append(("/%d" % (p // SEL_PAGE), bytes([6]) + (p // SEL_PAGE).to_bytes(8, "big")
                         + len(page).to_bytes(8, "big")
                         + b"".join(len(x).to_bytes(2, "big") + x for x in page)))
        for tail, record in want:
            a = json.loads(kix_out(kix, "index", "--json", "--server", addr, key + tail))
            k, size, _ = verify_answer(a, vkey)
            sizes.add(size)
            if not a["present"] or bytes.fromhex(a["record"]) != record:
                fail("%s: the signed index's record is not the one its entries make" % k)
            proven += 1
    ngroups = check_groups(vkey, kix, addr, members, gone | set(withdrawn), sizes)
    check_withdrawn(vkey, kix, addr, members, withdrawn, ever, sizes)
    absent = "sel/kernel/" + hashlib.sha256(b"no such kernel").hexdigest()
    a = json.loads(kix_out(kix, "index", "--json", "--server", addr, absent))
    verify_answer(a, vkey)
    if a["present"]:
        fail("%s: a kernel no run has is in the index" % absent)
    if len(sizes) != 1:
        fail("the log grew while its selections were checked")
    print("selections: %d lists, %d records recomputed from %d entries and proven"
          % (len(lists), proven, len(entries)))
    print("groups: %d recomputed from the entries and proven, %d withdrawn"
          % (ngroups, len(withdrawn)))


def leaf_statement(leaf):
    """(predicate name, the run id it is about) of a log leaf's statement."""
    env = json.loads(leaf)
    st = json.loads(base64.b64decode(env["payload"]))
    m = re.fullmatch(r"https://kernelindex\.dev/([a-z]+)/v1", st.get("predicateType", ""))
    if not m:
        fail("an entry whose statement is not a kix predicate")
    return m.group(1), st["predicate"]


REASONS = ["invalid-timing", "incorrect-result", "duplicate", "other"]


def check_withdrawn(vkey, kix, addr, members, withdrawn, ever, sizes):
    """withdrawn/<hex> (§4.2) of every group a run of which was ever
    withdrawn: its runs withdrawn now, by run id bytes, each with its
    withdrawal's index and reason; byte for byte the signed index's."""
    for ck, runs in sorted(members.items()):
        if not any(r in ever for r, _ in runs):
            continue
        listed = sorted((r for r, _ in runs if r in withdrawn), key=lambda r: r.encode())
        record = bytes([7]) + bytes.fromhex(ck) + len(listed).to_bytes(8, "big") + b"".join(
            bytes([len(r)]) + r.encode() + withdrawn[r][0].to_bytes(8, "big")
            + bytes([withdrawn[r][1]]) for r in listed)
        a = json.loads(kix_out(kix, "index", "--json", "--server", addr, "withdrawn/" + ck))
        k, size, _ = verify_answer(a, vkey)
        sizes.add(size)
        if not a["present"] or bytes.fromhex(a["record"]) != record:
            fail("%s: the signed index's record is not the one its entries make" % k)


def check_groups(vkey, kix, addr, members, unranked, sizes):
    """Every group's directory and pages (§4.2) from its members: the runs
    of its publications not superseded or withdrawn, ranked by value then
    run id bytes, cut before each run that starts a page."""
    def u64(n):
        return n.to_bytes(8, "big")

    def rid_bytes(rid):
        return bytes([len(rid)]) + rid.encode()

    for ck, runs in sorted(members.items()):
        ranked = sorted(((v, r) for r, v in runs if r not in unranked),
                        key=lambda x: rank_key(*x))
        # the first page ("") holds the runs before the first that starts
        # one (none, when the best run starts one); each other page starts
        # at such a run
        pages = [[]]
        for v, r in ranked:
            if starts_page(r):
                pages.append([])
            pages[-1].append((v, r))
        want, directory = [], b""
        for i, pg in enumerate(pages):
            pid = pg[0][1] if i else ""
            want.append(("group/%s/%s" % (ck, pid), bytes([5]) + bytes.fromhex(ck) + rid_bytes(pid)
                         + u64(len(pg)) + b"".join(u64(v) + rid_bytes(r) for v, r in pg)))
            directory += u64(len(pg)) + u64(pg[0][0] if pg else 0) + rid_bytes(pg[0][1] if pg else "")
        want.append(("group/" + ck, bytes([2]) + bytes.fromhex(ck) + u64(len(ranked))
                     + u64(len(pages)) + directory))
        for key, record in want:
            a = json.loads(kix_out(kix, "index", "--json", "--server", addr, key))
            k, size, _ = verify_answer(a, vkey)
            sizes.add(size)
            if not a["present"] or bytes.fromhex(a["record"]) != record:
                fail("%s: the signed index's record is not the one its entries make" % k)
    return len(members)


def main(argv):
    args = argv[2:]
    if args[:1] == ["--selections"]:
        check_selections(note.parse_vkey(open(argv[1]).read()), args[1], args[2])
        return
    want_rank = None
    if "--rank" in args:
        i = args.index("--rank")
        want_rank = args[i + 1]
        del args[i : i + 2]
    vkey = note.parse_vkey(open(argv[1]).read())
    if args[:1] == ["--doc"]:
        answers = doc_example(args[1])
    else:
        answers = [json.load(open(p)) for p in args]
    if not answers:
        fail("no answers to verify")
    records, sizes = {}, set()
    for a in answers:
        key, size, rec = verify_answer(a, vkey)
        sizes.add(size)
        records[key] = rec
        print("%s: %s at size %d" % (key, "present" if rec is not None else "absent", size))
    runs = [(k[4:], r) for k, r in records.items() if k.startswith("run/") and r]
    for rid, run in runs:
        gkey = "group/" + run["comparisonKey"]
        if not run["grouped"] or gkey not in records:
            withdrawn = "" if run["withdrawnIndex"] == NONE else \
                ", withdrawn at %d" % run["withdrawnIndex"]
            print("%s: evidence %s, %d entries%s, not ranked here" % (rid, run["evidence"],
                                                                      run["entries"], withdrawn))
            continue
        if len(sizes) != 1:
            fail("the run and its group are proven at different sizes")
        directory = records[gkey]
        # the page that lists the run, one the directory lists
        held = [(k, p) for k, p in records.items()
                if p and k.startswith(gkey + "/") and any(m == rid for m, _ in p["members"])]
        if not held:
            fail("run %s says it is ranked in %s, and no page given lists it" % (rid, gkey))
        page = held[0][1]
        listed = [d for d in directory["pages"] if d["id"] == page["id"]
                  and (d["id"] or d is directory["pages"][0])]
        if not listed:
            fail("page %s of %s is not in its directory" % (held[0][0], gkey))
        entry = listed[0]
        if entry["members"] != len(page["members"]) or \
                (page["members"] and entry["first"] != page["members"][0]):
            fail("page %s is not what the directory says of it" % held[0][0])
        at = [i for i, (m, _) in enumerate(page["members"]) if m == rid][0]
        if page["members"][at][1] != run["value"]:
            fail("run %s has value %d, its group says %d" % (rid, run["value"],
                                                             page["members"][at][1]))
        got = "%d/%d" % (entry["firstRank"] + at, directory["count"])
        print("%s: evidence %s, %d entries, rank %s, best %s" % (rid, run["evidence"],
                                                                run["entries"], got,
                                                                directory["best"][0]))
        if want_rank and want_rank == "%s=%s" % (rid, got):
            want_rank = None
    if want_rank:
        fail("rank %s is not what the proven records say" % want_rank)
    print("vindex verifier: %d answers verified" % len(answers))


if __name__ == "__main__":
    main(sys.argv)
