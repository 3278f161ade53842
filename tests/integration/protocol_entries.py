#!/usr/bin/env python3
"""Recomputes the worked entry examples of proto/PROTOCOL.md section 5 from
the document's text alone: no kix code, Python's standard library and
PyNaCl (Ed25519). For each `<!-- entry-example NAME -->` block it checks:

  - keys: the public key and key id follow from the seed;
  - objects: each block is its own RFC 8785 canonical form, its digest is
    SHA-256 of those bytes, and the run references the objects shown;
  - entries: from the predicate as written (any formatting) and the rules
    of section 5.2/5.3 (subject, predicateType), the statement, the DSSE
    envelope (PAE, Ed25519 signature, keyid) and the leaf hash are exactly
    the document's bytes;
  - comparisonKey: the object of section 5.6 built from the run manifest,
    canonical, and its digest.

tests/unit/test_protocol_entries.c checks that kix builds the same bytes.
Usage: protocol_entries.py PROTOCOL.md"""
import base64
import hashlib
import json
import re
import sys

import nacl.signing

doc = open(sys.argv[1], encoding="utf-8").read()
blocks = dict(re.findall(r"<!-- entry-example (\S+) -->\n\n```[a-z]*\n(.*?)\n```", doc, re.S))
failures = []


def check(what, want, got):
    if want != got:
        failures.append("%s:\n  document: %s\n  computed: %s" % (what, want, got))


def jcs(value):
    """RFC 8785 for the values the examples use (strings, integers,
    objects, arrays): keys sorted by UTF-16 code units (ASCII here),
    no whitespace, UTF-8, JSON string escapes."""
    if isinstance(value, float):
        raise ValueError("the examples hold no floats")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- keys (section 5.8: seeds) ----------------------------------------------------
keys = {}
for who in ("log-key", "publisher-key"):
    sk = nacl.signing.SigningKey(bytes.fromhex(blocks[who + ".seed"]))
    pub = bytes(sk.verify_key)
    check(who + ".public", blocks[who + ".public"], base64.b64encode(pub).decode())
    check(who + ".keyid", blocks[who + ".keyid"], hashlib.sha256(pub).hexdigest())
    keys[who] = (sk, pub, hashlib.sha256(pub).hexdigest())

# ---- objects (section 5.1) --------------------------------------------------------
objects = ("workload", "protocol", "environment", "implementation", "run", "rerun-run",
           "corrected-run")
digests = {}
for name in objects:
    text = blocks[name]
    check(name + " is canonical", text, jcs(json.loads(text)))
    digests[name] = digest(text)
    check(name + ".digest", blocks[name + ".digest"], digests[name])
for name in ("run", "rerun-run", "corrected-run"):
    spec = json.loads(blocks[name])["spec"]
    for kind in ("workload", "protocol", "environment", "implementation"):
        check(name + " references the " + kind, digests[kind], spec[kind + "Digest"])

# ---- entries (sections 5.2, 5.3) --------------------------------------------------
PAYLOAD_TYPE = "application/vnd.in-toto+json"


def pae(payload_type, payload):
    t = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def statement(ptype, predicate):
    if ptype == "key":
        pub = base64.b64decode(predicate["publicKey"])
        name = hexd = hashlib.sha256(pub).hexdigest()
    else:  # about a run: its run id and the digest it was published with
        name, hexd = predicate["runId"], digests["run"][len("sha256:"):]
    return jcs({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": name, "digest": {"sha256": hexd}}],
        "predicateType": "https://kernelindex.dev/%s/v1" % ptype,
        "predicate": predicate,
    })


signers = {"key": "log-key", "publication": "publisher-key", "attestation": "publisher-key",
           "rerun": "publisher-key", "supersession": "publisher-key"}
for ptype, who in signers.items():
    predicate = json.loads(blocks[ptype + ".predicate"])
    stmt = statement(ptype, predicate)
    check(ptype + ".statement", blocks[ptype + ".statement"], stmt)
    sk, pub, keyid = keys[who]
    payload = stmt.encode("utf-8")
    sig = sk.sign(pae(PAYLOAD_TYPE, payload)).signature
    env = jcs({
        "payload": base64.b64encode(payload).decode(),
        "payloadType": PAYLOAD_TYPE,
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}],
    })
    check(ptype + ".envelope", blocks[ptype + ".envelope"], env)
    check(ptype + ".leaf-hash", blocks[ptype + ".leaf-hash"],
          hashlib.sha256(b"\x00" + env.encode("utf-8")).hexdigest())
    # the document's envelope verifies with the signer's public key
    d = json.loads(blocks[ptype + ".envelope"])
    nacl.signing.VerifyKey(pub).verify(
        pae(d["payloadType"], base64.b64decode(d["payload"])),
        base64.b64decode(d["signatures"][0]["sig"]))
    if ptype == "rerun":
        check("rerunDigest", digests["rerun-run"], predicate["rerunDigest"])
    if ptype == "key":
        check("entry 0's publicKey", blocks["publisher-key.public"], predicate["publicKey"])

# ---- comparisonKey (section 5.6) --------------------------------------------------
spec = json.loads(blocks["run"])["spec"]
median = spec.get("timing", {}).get("latencyNs", {}).get("median")
metric = "latency" if isinstance(median, int) and median >= 0 else "peak_memory"
key_object = jcs({
    "benchmark": spec["sourceNative"]["benchmark"],
    "environmentDigest": spec["environmentDigest"],
    "metric": metric,
    "protocolDigest": spec["protocolDigest"],
    "workloadDigest": spec["workloadDigest"],
})
check("comparison-key.object", blocks["comparison-key.object"], key_object)
check("comparison-key", blocks["comparison-key"], digest(key_object))

if failures:
    print("FAIL: the worked examples of PROTOCOL.md section 5 do not recompute:", file=sys.stderr)
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print("ok: %d example blocks of PROTOCOL.md section 5 recomputed without kix" % len(blocks))
