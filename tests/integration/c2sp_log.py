#!/usr/bin/env python3
"""An outside C2SP log and witness client, sharing no code with kix.

A small transparency log of its own (RFC 9162 Merkle tree, Ed25519
c2sp.org/signed-note checkpoints, its own key and origin) that asks a
c2sp.org/tlog-witness witness for cosignatures over HTTP, and checks every
answer against the spec: status codes, the 409 body and content type, and
each cosignature as a c2sp.org/tlog-cosignature (key ID, timestamp,
Ed25519 over "cosignature/v1\\ntime T\\n" + the checkpoint body).

  c2sp_log.py init DIR                  make the log's key; print its vkey
  c2sp_log.py scenario DIR URL WKEY     the witness protocol, case by case
  c2sp_log.py restarted DIR URL WKEY    after the witness restarted
  c2sp_log.py once DIR URL WKEY         one first cosignature, from old size 0
  c2sp_log.py again DIR URL WKEY N      the checkpoint of size N again, from old size N
  c2sp_log.py cosigned-note NOTE WKEY   verify the WKEY cosignature of a note file

URL is the witness's submission prefix, WKEY its verifier key text.
Needs python3-nacl. Exits 1 naming the first check that failed.
"""
import base64
import hashlib
import os
import struct
import sys
import time
import urllib.error
import urllib.request

import nacl.signing

ORIGIN = "example.test/outside-log"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


# ---- RFC 9162 Merkle tree -------------------------------------------------

def leaf_hash(b):
    return hashlib.sha256(b"\x00" + b).digest()


def node_hash(l, r):
    return hashlib.sha256(b"\x01" + l + r).digest()


def split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaf_hash(leaves[0])
    k = split(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def subproof(m, leaves, complete):
    n = len(leaves)
    if m == n:
        return [] if complete else [mth(leaves)]
    k = split(n)
    if m <= k:
        return subproof(m, leaves[:k], complete) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def consistency(m, leaves):
    """PROOF(m, D[0:n]) of RFC 9162 section 2.1.4."""
    return [] if m == 0 or m == len(leaves) else subproof(m, leaves, True)


# ---- keys, notes, checkpoints ---------------------------------------------

def key_hash(name, alg, pub):
    return hashlib.sha256(name.encode() + b"\n" + bytes([alg]) + pub).digest()[:4]


def vkey(name, alg, pub):
    return "%s+%s+%s" % (name, key_hash(name, alg, pub).hex(),
                         base64.b64encode(bytes([alg]) + pub).decode())


def parse_vkey(text):
    name, h, b64 = text.strip().split("+", 2)
    raw = base64.b64decode(b64)
    if key_hash(name, raw[0], raw[1:]).hex() != h:
        fail("bad witness vkey " + text)
    return name, raw[0], raw[1:]


def load_key(d):
    seed = open(os.path.join(d, "seed"), "rb").read()
    return nacl.signing.SigningKey(seed)


def checkpoint(sk, size, root, origin=ORIGIN, name=None):
    body = "%s\n%d\n%s\n" % (origin, size, base64.b64encode(root).decode())
    name = name or origin
    pub = bytes(sk.verify_key)
    sig = sk.sign(body.encode()).signature
    line = "\u2014 %s %s\n" % (name, base64.b64encode(key_hash(name, 1, pub) + sig).decode())
    return body, body + "\n" + line


def leaves_of(n, fork_at=None):
    return [(b"fork %d" if fork_at is not None and i >= fork_at else b"leaf %d") % i
            for i in range(n)]


# ---- the witness over HTTP ------------------------------------------------

def post(url, data, method="POST"):
    req = urllib.request.Request(url.rstrip("/") + "/add-checkpoint", data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def add(url, old, proof, note):
    data = ("old %d\n" % old).encode()
    data += b"".join(base64.b64encode(h) + b"\n" for h in proof)
    return post(url, data + b"\n" + note.encode())


def get(url, path):
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/" + path, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def monitored(url, sk, body, wkey):
    """GET <prefix>/<hex SHA-256 of the origin>/checkpoint: the checkpoint
    cosigned last, with the log's signature and the witness's cosignature."""
    got = get(url, hashlib.sha256(ORIGIN.encode()).hexdigest() + "/checkpoint")
    expect(got, 200, "monitoring checkpoint")
    text = got[2].decode("utf-8")
    if not text.startswith(body + "\n"):
        fail("monitoring checkpoint %r is not %r" % (text, body))
    sigs = text[len(body) + 1:]
    if "stranger" in sigs:
        fail("the monitoring checkpoint keeps a line of an unknown key: %r" % text)
    name = ORIGIN
    pub = bytes(sk.verify_key)
    mine = [l for l in sigs.splitlines() if l.startswith("\u2014 %s " % name)]
    if len(mine) != 1:
        fail("monitoring checkpoint without the log's signature: %r" % text)
    raw = base64.b64decode(mine[0].split(" ")[2])
    nacl.signing.VerifyKey(pub).verify(body.encode(), raw[4:])
    others = "".join(l + "\n" for l in sigs.splitlines() if not l.startswith("\u2014 %s " % name))
    if len(verify_cosignatures(others.encode(), body, wkey)) != 1:
        fail("monitoring checkpoint: want one cosignature of the witness: %r" % text)


def verify_cosignatures(answer, body, wkey):
    """Every line of the witness key in `answer` (bytes) must verify; returns their times."""
    name, alg, pub = parse_vkey(wkey)
    if alg != 4:
        fail("witness key algorithm %d, want 4 (tlog-cosignature Ed25519)" % alg)
    times = []
    text = answer.decode("utf-8")
    if not text.endswith("\n"):
        fail("answer does not end in a newline: %r" % text)
    for line in text[:-1].split("\n"):
        if not line.startswith("\u2014 "):
            fail("not a note signature line: %r" % line)
        lname, b64 = line[2:].split(" ")
        raw = base64.b64decode(b64, validate=True)
        if lname != name or raw[:4] != key_hash(name, 4, pub):
            continue  # another key: ignored, as the spec says
        if len(raw) != 4 + 8 + 64:
            fail("cosignature of %d bytes, want 76" % len(raw))
        (t,) = struct.unpack(">Q", raw[4:12])
        msg = ("cosignature/v1\ntime %d\n" % t).encode() + body.encode()
        try:
            nacl.signing.VerifyKey(pub).verify(msg, raw[12:])
        except Exception:
            fail("cosignature does not verify: %r" % line)
        if t == 0 or abs(t - time.time()) > 300:
            fail("cosignature time %d is not now" % t)
        times.append(t)
    if not times:
        fail("no cosignature by %s in %r" % (name, text))
    return times


def expect(got, code, what):
    if got[0] != code:
        fail("%s: HTTP %d %r, want %d" % (what, got[0], got[2][:200], code))


def scenario(d, url, wkey):
    sk = load_key(d)
    honest = leaves_of(20)
    # an origin the witness does not know: 404
    other = nacl.signing.SigningKey.generate()
    _, note = checkpoint(other, 3, mth(honest[:3]), origin="example.test/unknown")
    expect(add(url, 0, [], note), 404, "unknown origin")
    ok("a checkpoint of an unknown origin gets 404")

    # signed by another key under the log's name, or a bad signature: 403
    _, note = checkpoint(other, 3, mth(honest[:3]))
    expect(add(url, 0, [], note), 403, "unknown key")
    body, note = checkpoint(sk, 3, mth(honest[:3]))
    bad = note[:-10] + ("A" if note[-10] != "A" else "B") + note[-9:]
    expect(add(url, 0, [], bad), 403, "bad signature")
    ok("a checkpoint without a valid signature of the log's key gets 403")

    # malformed: 400
    expect(post(url, b"old 01\n\n" + note.encode()), 400, "leading zero")
    expect(post(url, b"new 0\n\n" + note.encode()), 400, "no old line")
    expect(post(url, b"old 0\nnot base64!\n\n" + note.encode()), 400, "bad proof line")
    expect(add(url, 4, [], note), 400, "old size past the checkpoint")
    ok("malformed requests get 400")

    # the first cosignature, from old size 0
    got = add(url, 0, [], note)
    expect(got, 200, "first checkpoint")
    verify_cosignatures(got[2], body, wkey)
    ok("size 3 cosigned from old 0; the cosignature verifies as a C2SP tlog-cosignature")

    # a stale old size: 409 with the witness's size as text/x.tlog.size
    got = add(url, 0, [], note)
    expect(got, 409, "old size 0 again")
    if not got[1].startswith("text/x.tlog.size") or got[2] != b"3\n":
        fail("409 body %r type %r, want b'3\\n' text/x.tlog.size" % (got[2], got[1]))
    ok("a stale old size gets 409 with the witness's size (text/x.tlog.size)")

    # the same checkpoint again (old == size): cosigned again
    expect(add(url, 3, [], note), 200, "same checkpoint again")
    # a consistent extension with a good proof
    body, note7 = checkpoint(sk, 7, mth(honest[:7]))
    got = add(url, 3, consistency(3, honest[:7]), note7)
    expect(got, 200, "3 -> 7")
    verify_cosignatures(got[2], body, wkey)
    ok("size 7 cosigned with a consistency proof from 3")

    # a bad proof: 422, and nothing changed
    _, note9 = checkpoint(sk, 9, mth(honest[:9]))
    proof = consistency(7, honest[:9])
    tampered = [bytes([proof[0][0] ^ 1]) + proof[0][1:]] + proof[1:]
    expect(add(url, 7, tampered, note9), 422, "tampered proof")
    expect(add(url, 7, proof[:-1], note9), 422, "short proof")
    expect(add(url, 0, [], note9), 409, "state after a bad proof")
    ok("a consistency proof that does not verify gets 422; the witness stays at 7")

    # forks: another root at the size it cosigned, or an extension of another tree
    forked = leaves_of(20, fork_at=5)
    _, fnote7 = checkpoint(sk, 7, mth(forked[:7]))
    expect(add(url, 7, [], fnote7), 422, "forked checkpoint of size 7")
    _, fnote12 = checkpoint(sk, 12, mth(forked[:12]))
    expect(add(url, 7, consistency(7, forked[:12]), fnote12), 422, "forked extension")
    ok("a forked checkpoint is refused (422): same size with another root, or not an extension")

    body, note12 = checkpoint(sk, 12, mth(honest[:12]))
    # a line of a key the witness does not know is ignored, and not kept
    stranger = "\u2014 stranger.example %s\n" % base64.b64encode(b"\x01\x02\x03\x04" + b"\x00" * 64).decode()
    expect(add(url, 7, consistency(7, honest[:12]), note12 + stranger), 200, "7 -> 12")
    expect(add(url, 12, [], fnote12), 422, "forked checkpoint of size 12")
    got = add(url, 0, [], note12)
    if got[0] != 409 or got[2] != b"12\n":
        fail("after 12: %r" % (got,))
    ok("the honest log goes on (12); its fork at 12 is refused")

    monitored(url, sk, body, wkey)
    expect(get(url, "0" * 64 + "/checkpoint"), 404, "monitoring an unknown origin")
    ok("GET <origin hash>/checkpoint serves the checkpoint cosigned last, both signatures valid")

    # HTTP itself
    expect(post(url, None, method="GET"), 405, "GET /add-checkpoint")
    expect(post(url, b"old 0\n\n" + b"x" * (70 * 1024)), 413, "oversize body")
    ok("GET gets 405, a body over 64 KiB gets 413")


def restarted(d, url, wkey):
    sk = load_key(d)
    honest = leaves_of(20)
    got = add(url, 0, [], checkpoint(sk, 12, mth(honest[:12]))[1])
    if got[0] != 409 or got[2] != b"12\n":
        fail("after the restart the witness should be at 12: %r" % (got,))
    body, note = checkpoint(sk, 15, mth(honest[:15]))
    got = add(url, 12, consistency(12, honest[:15]), note)
    expect(got, 200, "12 -> 15 after the restart")
    verify_cosignatures(got[2], body, wkey)
    monitored(url, sk, body, wkey)
    ok("the witness kept its state across a restart (409 says 12) and cosigns 15")


def once(d, url, wkey):
    sk = load_key(d)
    honest = leaves_of(20)
    body, note = checkpoint(sk, 3, mth(honest[:3]))
    got = add(url, 0, [], note)
    expect(got, 200, "size 3 from old 0")
    verify_cosignatures(got[2], body, wkey)
    ok("size 3 cosigned from old 0 by a fresh witness")


def again(d, url, wkey, size):
    sk = load_key(d)
    size = int(size)
    body, note = checkpoint(sk, size, mth(leaves_of(20)[:size]))
    got = add(url, size, [], note)
    expect(got, 200, "size %d again" % size)
    verify_cosignatures(got[2], body, wkey)
    ok("size %d cosigned again" % size)


def cosigned_note(path, wkey):
    text = open(path, encoding="utf-8").read().rstrip("\n") + "\n"
    body, sigs = text.split("\n\n", 1)
    verify_cosignatures(sigs.encode(), body + "\n", wkey)
    ok("the checkpoint carries a valid tlog-cosignature by " + parse_vkey(wkey)[0])


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "init":
        os.makedirs(sys.argv[2], exist_ok=True)
        sk = nacl.signing.SigningKey.generate()
        open(os.path.join(sys.argv[2], "seed"), "wb").write(bytes(sk))
        print(vkey(ORIGIN, 1, bytes(sk.verify_key)))
    elif len(sys.argv) == 5 and sys.argv[1] == "scenario":
        scenario(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "restarted":
        restarted(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "once":
        once(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == "again":
        again(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "cosigned-note":
        cosigned_note(*sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
