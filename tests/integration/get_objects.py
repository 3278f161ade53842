#!/usr/bin/python3
"""Asks a kixd for objects with one get_objects request (PROTOCOL.md §2.6),
speaking msgpack-RPC itself (no kix code), and prints one line per digest:
the digest, then the SHA-256 of the bytes returned, or "missing".
Exits 1 when the answer is an error or bytes do not hash to their digest.

usage: get_objects.py unix:///PATH DIGEST...
"""
import hashlib
import socket
import struct
import sys


def pack(v):
    if isinstance(v, int):
        return bytes([v]) if 0 <= v < 128 else b"\xcf" + struct.pack(">Q", v)
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xA0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(v, list):
        return b"\xdc" + struct.pack(">H", len(v)) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return bytes([0x80 | len(v)]) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


class Short(Exception):
    pass


def unpack(b, i):
    """(value, next index); raises Short when b ends early."""
    if i >= len(b):
        raise Short()
    t = b[i]
    i += 1

    def take(n):
        if i + n > len(b):
            raise Short()
        return b[i:i + n]

    if t < 0x80:
        return t, i
    if t >= 0xE0:
        return t - 0x100, i
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        n, i = (t & 0x0F, i) if t <= 0x8F else ((struct.unpack(">H", take(2))[0], i + 2)
                                               if t == 0xDE else (struct.unpack(">I", take(4))[0], i + 4))
        d = {}
        for _ in range(n):
            k, i = unpack(b, i)
            d[k], i = unpack(b, i)
        return d, i
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        n, i = (t & 0x0F, i) if t <= 0x9F else ((struct.unpack(">H", take(2))[0], i + 2)
                                               if t == 0xDC else (struct.unpack(">I", take(4))[0], i + 4))
        a = []
        for _ in range(n):
            x, i = unpack(b, i)
            a.append(x)
        return a, i
    if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB, 0xC4, 0xC5, 0xC6):
        if 0xA0 <= t <= 0xBF:
            n = t & 0x1F
        else:
            w = {0xD9: 1, 0xC4: 1, 0xDA: 2, 0xC5: 2, 0xDB: 4, 0xC6: 4}[t]
            n = int.from_bytes(take(w), "big")
            i += w
        if i + n > len(b):
            raise Short()
        raw = bytes(b[i:i + n])
        return (raw if t in (0xC4, 0xC5, 0xC6) else raw.decode()), i + n
    if t == 0xC0:
        return None, i
    if t in (0xC2, 0xC3):
        return t == 0xC3, i
    if t in (0xCC, 0xCD, 0xCE, 0xCF):
        w = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}[t]
        return int.from_bytes(take(w), "big"), i + w
    if t in (0xD0, 0xD1, 0xD2, 0xD3):
        w = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}[t]
        return int.from_bytes(take(w), "big", signed=True), i + w
    raise ValueError("unexpected msgpack byte 0x%02x" % t)


def main(argv):
    addr, digests = argv[1], argv[2:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr[len("unix://"):])
    s.sendall(pack([0, 7, "get_objects", [{"digests": digests}]]))
    buf = b""
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            sys.exit("get_objects.py: connection closed")
        buf += chunk
        try:
            msg, _ = unpack(buf, 0)
            break
        except Short:
            continue
    if msg[0] != 1 or msg[1] != 7 or msg[2] is not None:
        sys.exit("get_objects.py: error answer %r" % (msg[2],))
    for d, obj in zip(digests, msg[3]["objects"]):
        if obj is None:
            print(d, "missing")
            continue
        got = "sha256:" + hashlib.sha256(obj).hexdigest()
        if got != d:
            sys.exit("get_objects.py: %s came back as %s" % (d, got))
        print(d, hashlib.sha256(obj).hexdigest())


if __name__ == "__main__":
    main(sys.argv)
