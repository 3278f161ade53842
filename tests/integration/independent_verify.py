#!/usr/bin/python3
"""An independent verifier of what kix writes, from the public specs alone:
C2SP signed-note / tlog-checkpoint (Ed25519), C2SP tlog-proof receipts,
RFC 9162 inclusion and consistency proofs, DSSE PAE signatures, RFC 8785
canonical leaves. Shares no code with kix (Python stdlib + PyNaCl).

usage: independent_verify.py VKEY RECEIPT [RECEIPT...] [--consistency OLD NEW PROOF_FILE]
Exits 0 when everything verifies, 1 (with the reason) otherwise.
"""
import base64
import hashlib
import json
import sys

import nacl.exceptions
import nacl.signing


def fail(msg):
    print("independent verifier: " + msg, file=sys.stderr)
    sys.exit(1)


def parse_vkey(text):
    name, keyhash, b64 = text.strip().split("+", 2)
    raw = base64.b64decode(b64, validate=True)
    if len(raw) != 33 or raw[0] != 1:
        fail("vkey is not an Ed25519 note key")
    want = hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4]
    if want.hex() != keyhash:
        fail("vkey hash mismatch")
    return name, want, nacl.signing.VerifyKey(raw[1:])


def open_note(note, vkey, what):
    """The text of a C2SP signed note that the log key signed (other
    signers' lines, a witness's cosignature, are passed over)."""
    name, keyhash, key = vkey
    text, sep, sigs = note.rpartition("\n\n")
    if not sep:
        fail("%s has no signature block" % what)
    text += "\n"
    ok = False
    for line in sigs.splitlines():
        if not line.startswith("\u2014 "):
            fail("bad signature line %r" % line)
        signer, b64 = line[2:].split(" ")
        blob = base64.b64decode(b64, validate=True)
        if signer == name and blob[:4] == keyhash:
            try:
                key.verify(text.encode(), blob[4:])
            except nacl.exceptions.BadSignatureError:
                fail("%s signature does not verify" % what)
            ok = True
    if not ok:
        fail("no signature by the log key on the %s" % what)
    return text


def open_checkpoint(note, vkey):
    name = vkey[0]
    text = open_note(note, vkey, "checkpoint")
    lines = text.split("\n")
    origin, size, root = lines[0], int(lines[1]), base64.b64decode(lines[2], validate=True)
    if origin != name:
        fail("origin %r is not the key name %r" % (origin, name))
    if str(size) != lines[1] or len(root) != 32:
        fail("malformed checkpoint body")
    return size, root


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify_inclusion(index, size, leaf, proof, root):
    # RFC 9162 section 2.1.3.2
    if index >= size:
        fail("index beyond size")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            fail("inclusion proof too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0 or r != root:
        fail("inclusion proof does not reach the root")


def verify_consistency(size1, size2, root1, root2, proof):
    # RFC 9162 section 2.1.4.2
    if size1 == size2:
        if proof or root1 != root2:
            fail("equal sizes need equal roots and an empty proof")
        return
    if size1 & (size1 - 1) == 0:
        proof = [root1] + proof
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    if not proof:
        fail("empty consistency proof")
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            fail("consistency proof too long")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0 or fr != root1 or sr != root2:
        fail("consistency proof does not verify")


def jcs_check(raw):
    # The leaf must be RFC 8785 canonical: re-serialize and compare (an
    # envelope holds only strings, so key order and escaping decide it).
    doc = json.loads(raw)
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if canon.encode() != raw:
        fail("leaf is not canonical JSON")
    return doc


def pae(ptype, body):
    t = ptype.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def verify_receipt(text, vkey, registry):
    header, rest = text.split("\n", 1)
    if header != "c2sp.org/tlog-proof@v1":
        fail("not a tlog-proof")
    head, _, note = rest.partition("\n\n")
    lines = head.split("\n")
    entry = base64.b64decode(lines[0][len("extra "):], validate=True)
    index = int(lines[1][len("index "):])
    proof = [base64.b64decode(h, validate=True) for h in lines[2:]]
    size, root = open_checkpoint(note, vkey)
    verify_inclusion(index, size, leaf_hash(entry), proof, root)
    env = jcs_check(entry)
    payload = base64.b64decode(env["payload"], validate=True)
    stmt = json.loads(payload)
    sig = env["signatures"][0]
    key = registry.get(sig["keyid"])
    if key is None:
        fail("entry %d is signed by unknown key %s" % (index, sig["keyid"]))
    try:
        key.verify(pae(env["payloadType"], payload), base64.b64decode(sig["sig"]))
    except nacl.exceptions.BadSignatureError:
        fail("DSSE signature of entry %d does not verify" % index)
    if stmt["predicateType"] == "https://kernelindex.dev/key/v1":
        pub = base64.b64decode(stmt["predicate"]["publicKey"])
        registry[hashlib.sha256(pub).hexdigest()] = nacl.signing.VerifyKey(pub)
    return index, size, root


def main(argv):
    vkey = parse_vkey(open(argv[1]).read())
    # entry 0 is signed by the log key itself
    registry = {hashlib.sha256(bytes(vkey[2])).hexdigest(): vkey[2]}
    checked = 0
    args = argv[2:]
    while args:
        if args[0] == "--consistency":
            old, new, proof_file = open(args[1]).read(), open(args[2]).read(), open(args[3]).read()
            s1, r1 = open_checkpoint(old, vkey)
            s2, r2 = open_checkpoint(new, vkey)
            proof = [base64.b64decode(l) for l in proof_file.split()]
            verify_consistency(s1, s2, r1, r2, proof)
            checked += 1
            args = args[4:]
            continue
        verify_receipt(open(args[0]).read(), vkey, registry)
        checked += 1
        args = args[1:]
    print("independent verifier: %d items verified" % checked)


if __name__ == "__main__":
    main(sys.argv)
