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
  - the policy entry: its subject is the log key's id;
  - the open note (section 5.4): its signerKey is the note key, whose
    SHA-256 is the envelope's keyid, its log is the example log's origin,
    the PAE shown is the one signed, and the statement hash (SHA-256 of the
    PAE) has the leading zero bits shown, at least the policy's noteWork;
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
for who in ("log-key", "publisher-key", "rerunner-key", "note-key"):
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
    elif ptype == "policy":  # for one log: its log key's id
        name, hexd = "policy", keys["log-key"][2]
    else:  # about a run: its run id and the digest it was published with
        run = {"example-run-1": "run", "example-run-2": "corrected-run"}[predicate["runId"]]
        name, hexd = predicate["runId"], digests[run][len("sha256:"):]
    return jcs({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": name, "digest": {"sha256": hexd}}],
        "predicateType": "https://kernelindex.dev/%s/v1" % ptype,
        "predicate": predicate,
    })


# each example: its name, its predicate type and who signs it (a run's
# controlled rerun is never signed by the key that published the run)
signers = {"key": ("key", "log-key"), "rerunner-key-entry": ("key", "publisher-key"),
           "publication": ("publication", "publisher-key"),
           "attestation": ("attestation", "publisher-key"), "rerun": ("rerun", "rerunner-key"),
           "supersession": ("supersession", "publisher-key"),
           "policy": ("policy", "publisher-key"), "open-note": ("attestation", "note-key")}
for name, (ptype, who) in signers.items():
    predicate = json.loads(blocks[name + ".predicate"])
    stmt = statement(ptype, predicate)
    check(name + ".statement", blocks[name + ".statement"], stmt)
    sk, pub, keyid = keys[who]
    payload = stmt.encode("utf-8")
    sig = sk.sign(pae(PAYLOAD_TYPE, payload)).signature
    env = jcs({
        "payload": base64.b64encode(payload).decode(),
        "payloadType": PAYLOAD_TYPE,
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}],
    })
    check(name + ".envelope", blocks[name + ".envelope"], env)
    check(name + ".leaf-hash", blocks[name + ".leaf-hash"],
          hashlib.sha256(b"\x00" + env.encode("utf-8")).hexdigest())
    # the document's envelope verifies with the signer's public key
    d = json.loads(blocks[name + ".envelope"])
    nacl.signing.VerifyKey(pub).verify(
        pae(d["payloadType"], base64.b64decode(d["payload"])),
        base64.b64decode(d["signatures"][0]["sig"]))
    if ptype == "rerun":
        check("rerunDigest", digests["rerun-run"], predicate["rerunDigest"])
    if name == "key":
        check("entry 0's publicKey", blocks["publisher-key.public"], predicate["publicKey"])
    if name == "rerunner-key-entry":
        check("entry 1's publicKey", blocks["rerunner-key.public"], predicate["publicKey"])
    if name == "open-note":
        signed = pae(PAYLOAD_TYPE, payload)
        check("open-note.pae", blocks["open-note.pae"], signed.decode("utf-8"))
        h = hashlib.sha256(signed).digest()
        check("open-note.statement-hash", blocks["open-note.statement-hash"], h.hex())
        bits = 0
        for byte in h:  # leading zero bits, most significant first
            if byte:
                bits += 8 - byte.bit_length()
                break
            bits += 8
        check("open-note.work-bits", blocks["open-note.work-bits"], str(bits))
        want = json.loads(blocks["policy.predicate"])["noteWork"]
        if bits < want:
            failures.append("open-note: %d bits of work, the policy asks %d" % (bits, want))
        # the key id is SHA-256 of the key the note carries
        note_pub = base64.b64decode(predicate["signerKey"])
        check("open-note signerKey", blocks["note-key.public"], predicate["signerKey"])
        check("open-note keyid = SHA-256(signerKey)", d["signatures"][0]["keyid"],
              hashlib.sha256(note_pub).hexdigest())
        check("open-note log", blocks["log-key.origin"], predicate["log"])

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
