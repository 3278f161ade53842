#!/usr/bin/env python3
"""An independent check of kix's sparse Merkle tree (store/verify/SMT.md),
sharing no code with kix: Python standard library only.

    smt_verify.py DUMP.json        (the output of tests/tools/kix-smt-dump)

Recomputes every path and value hash from the key and value bytes, the root
from the leaf list (the recursive definition), and for every key the proof
this script would write itself; each must equal kix's byte for byte. Then it
verifies each proof as a client would, and checks that a flipped bit, a
truncation, the wrong claim (present/absent) or a wrong value is refused.
Exit 0 when all holds, 1 with a message otherwise.
"""
import hashlib
import json
import sys

ZERO = bytes(32)


def sha(b):
    return hashlib.sha256(b).digest()


def bit(path, i):
    return (path[i // 8] >> (7 - i % 8)) & 1


def subtree(leaves, depth):
    """Hash of the subtree holding `leaves` (sorted (path, value_hash)) at depth."""
    if not leaves:
        return ZERO
    if len(leaves) == 1:
        return sha(b"\x02" + leaves[0][0] + leaves[0][1])
    left = [l for l in leaves if not bit(l[0], depth)]
    right = [l for l in leaves if bit(l[0], depth)]
    return sha(b"\x03" + subtree(left, depth + 1) + subtree(right, depth + 1))


def make_proof(leaves, path):
    """The proof bytes for path, from the definition: follow the route while
    the subtree on it holds two leaves or more."""
    depth, siblings, bitmap = 0, [], bytearray(32)
    here = leaves
    while len(here) >= 2:
        b = bit(path, depth)
        mine = [l for l in here if bit(l[0], depth) == b]
        other = [l for l in here if bit(l[0], depth) != b]
        if other:
            bitmap[depth // 8] |= 0x80 >> (depth % 8)
            siblings.append(subtree(other, depth + 1))
        here = mine
        depth += 1
    head = depth.to_bytes(2, "big") + bytes(bitmap[: (depth + 7) // 8])
    if not here:
        return b"\x00" + head + b"".join(siblings)
    if here[0][0] == path:
        return b"\x01" + head + b"".join(siblings)
    return b"\x02" + head + here[0][0] + here[0][1] + b"".join(siblings)


def verify(root, path, value_hash, proof):
    """True when proof shows path -> value_hash (or absence, value_hash None)
    under root. Parses strictly; any malformed input is False."""
    if len(proof) < 3 or proof[0] > 2:
        return False
    kind, depth = proof[0], int.from_bytes(proof[1:3], "big")
    if depth > 256:
        return False
    nb = (depth + 7) // 8
    bitmap = proof[3 : 3 + nb]
    if len(bitmap) != nb:
        return False
    if depth % 8 and bitmap[-1] & (0xFF >> (depth % 8)):
        return False
    flags = [(bitmap[i // 8] >> (7 - i % 8)) & 1 for i in range(depth)]
    rest = proof[3 + nb :]
    if kind == 2:
        if len(rest) < 64:
            return False
        other_path, other_value, rest = rest[:32], rest[32:64], rest[64:]
    if len(rest) != 32 * sum(flags):
        return False
    sibs = [rest[i : i + 32] for i in range(0, len(rest), 32)]
    if any(s == ZERO for s in sibs):
        return False
    if kind == 1:
        if value_hash is None:
            return False
        h = sha(b"\x02" + path + value_hash)
    elif kind == 2:
        if value_hash is not None or other_path == path:
            return False
        if any(bit(other_path, i) != bit(path, i) for i in range(depth)):
            return False
        h = sha(b"\x02" + other_path + other_value)
    else:
        if value_hash is not None:
            return False
        h = ZERO
    if depth > 0 and not flags[depth - 1]:
        return False  # non-canonical: would have collapsed
    it = iter(sibs)
    full = [next(it) if f else ZERO for f in flags]
    for i in reversed(range(depth)):
        h = sha(b"\x03" + (full[i] + h if bit(path, i) else h + full[i]))
    return h == root


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: smt_verify.py DUMP.json")
    with open(sys.argv[1]) as f:
        dump = json.load(f)
    leaves = sorted(
        (sha(bytes.fromhex(l["key"])), sha(bytes.fromhex(l["value"]))) for l in dump["leaves"]
    )
    if len({p for p, _ in leaves}) != len(leaves):
        sys.exit("FAIL: duplicate key in the leaf list")
    root = subtree(leaves, 0)
    if root.hex() != dump["root"]:
        sys.exit("FAIL: root %s, kix says %s" % (root.hex(), dump["root"]))
    kinds = [0, 0, 0]
    for n, p in enumerate(dump["proofs"]):
        path = sha(bytes.fromhex(p["key"]))
        vh = sha(bytes.fromhex(p["value"])) if p["value"] is not None else None
        proof = bytes.fromhex(p["proof"])
        mine = make_proof(leaves, path)
        if mine != proof:
            sys.exit("FAIL: proof %d differs:\n  mine %s\n  kix  %s" % (n, mine.hex(), proof.hex()))
        kinds[proof[0]] += 1
        if not verify(root, path, vh, proof):
            sys.exit("FAIL: proof %d does not verify" % n)
        if verify(root, path, None if vh else sha(b"x"), proof):
            sys.exit("FAIL: proof %d verifies the opposite claim" % n)
        if vh and verify(root, path, sha(b"another value"), proof):
            sys.exit("FAIL: proof %d verifies a wrong value" % n)
        if verify(root, path, vh, proof[:-1]) or verify(root, path, vh, proof + b"\0"):
            sys.exit("FAIL: proof %d verifies truncated or extended" % n)
        if n < 40:  # every bit flip of the first proofs
            for i in range(len(proof) * 8):
                bad = bytearray(proof)
                bad[i // 8] ^= 1 << (i % 8)
                if verify(root, path, vh, bytes(bad)):
                    sys.exit("FAIL: proof %d verifies with bit %d flipped" % (n, i))
    print(
        "ok: root of %d leaves and %d proofs (%d member, %d empty, %d other leaf) match"
        % (len(leaves), len(dump["proofs"]), kinds[1], kinds[0], kinds[2])
    )


if __name__ == "__main__":
    main()
