#!/usr/bin/env python3
"""A server that lies about a query's page: a proxy between kix and kixd
(unix sockets, msgpack-RPC, proto/PROTOCOL.md section 1) that passes every
message through as it is, except `query` answers (and, for `page1`, the
query's offset), which it edits as LIE says. Everything else, index proofs
included, is kixd's honest answer. Used by test_query_lies.sh.

usage: lying_query_proxy.py LISTEN_PATH UPSTREAM_PATH LIE
LIE: drop-best drop-last duplicate reversed foreign page1 matched evidence
"""
import os
import socket
import struct
import sys
import threading


class Incomplete(Exception):
    pass


def decode(b, i):
    """The msgpack value at b[i:] and where it ends (Incomplete if cut)."""
    if i >= len(b):
        raise Incomplete()
    t = b[i]

    def need(n):
        if i + n > len(b):
            raise Incomplete()

    def sized(hdr, n):
        need(hdr + n)
        return b[i + hdr:i + hdr + n], i + hdr + n

    def items(n, at, pairs):
        out = {} if pairs else []
        for _ in range(n):
            k, at = decode(b, at)
            if pairs:
                v, at = decode(b, at)
                out[k] = v
            else:
                out.append(k)
        return out, at

    if t <= 0x7F:
        return t, i + 1
    if t >= 0xE0:
        return t - 0x100, i + 1
    if 0x80 <= t <= 0x8F:
        return items(t & 0x0F, i + 1, True)
    if 0x90 <= t <= 0x9F:
        return items(t & 0x0F, i + 1, False)
    if 0xA0 <= t <= 0xBF:
        s, e = sized(1, t & 0x1F)
        return s.decode(), e
    if t == 0xC0:
        return None, i + 1
    if t in (0xC2, 0xC3):
        return t == 0xC3, i + 1
    lens = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}
    if t in lens:
        w = lens[t]
        need(1 + w)
        n = int.from_bytes(b[i + 1:i + 1 + w], "big")
        s, e = sized(1 + w, n)
        return (s.decode() if t >= 0xD9 else bytes(s)), e
    ints = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
            0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q", 0xCA: ">f", 0xCB: ">d"}
    if t in ints:
        n = struct.calcsize(ints[t])
        need(1 + n)
        return struct.unpack(ints[t], b[i + 1:i + 1 + n])[0], i + 1 + n
    if t in (0xDC, 0xDD, 0xDE, 0xDF):
        w = 2 if t in (0xDC, 0xDE) else 4
        need(1 + w)
        n = int.from_bytes(b[i + 1:i + 1 + w], "big")
        return items(n, i + 1 + w, t in (0xDE, 0xDF))
    fixext = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
    if t in fixext:
        need(2 + fixext[t])
        return None, i + 2 + fixext[t]
    if t in (0xC7, 0xC8, 0xC9):
        w = {0xC7: 1, 0xC8: 2, 0xC9: 4}[t]
        need(1 + w)
        n = int.from_bytes(b[i + 1:i + 1 + w], "big")
        need(2 + w + n)
        return None, i + 2 + w + n
    raise ValueError("byte 0x%02x is no msgpack" % t)


def encode(v):
    if v is None:
        return b"\xc0"
    if v is True or v is False:
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 0x80:
            return bytes([v])
        if v >= 0:
            return b"\xcf" + struct.pack(">Q", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, str):
        s = v.encode()
        return (bytes([0xA0 | len(s)]) if len(s) < 32 else b"\xdb" + struct.pack(">I", len(s))) + s
    if isinstance(v, bytes):
        return b"\xc6" + struct.pack(">I", len(v)) + v
    if isinstance(v, list):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(encode(x) for x in v)
    if isinstance(v, dict):
        return b"\xdf" + struct.pack(">I", len(v)) + b"".join(
            encode(k) + encode(x) for k, x in v.items())
    raise TypeError(type(v))


LIE = sys.argv[3]
seen_rows = []  # rows of earlier answers: another group's row to mix in


def lie(result):
    runs = result["runs"]
    foreign = [r for r in seen_rows if runs and r["group"] != runs[0]["group"]]
    seen_rows.extend(runs)
    if LIE == "drop-best" and runs:
        del runs[0]
    elif LIE == "drop-last" and runs:
        del runs[-1]
    elif LIE == "duplicate" and runs:
        runs.append(dict(runs[0]))
    elif LIE == "reversed":
        runs.reverse()
    elif LIE == "foreign" and foreign:
        runs.append(foreign[0])
    elif LIE == "matched":
        result["matched"] = 7 if result["matched"] != 7 else 8
    elif LIE == "evidence" and runs:
        runs[0]["evidence"] = "reproduced"


def pump(src, dst, edit):
    buf = b""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            buf += data
            out = b""
            while buf:
                try:
                    msg, end = decode(buf, 0)
                except Incomplete:
                    break
                out += edit(msg, buf[:end])
                buf = buf[end:]
            dst.sendall(out)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(conn):
    up = socket.socket(socket.AF_UNIX)
    up.connect(sys.argv[2])
    queries = set()

    def request(msg, raw):
        if isinstance(msg, list) and len(msg) == 4 and msg[0] == 0 and msg[2] == "query":
            queries.add(msg[1])
            if LIE == "page1" and msg[3] and msg[3][0].get("offset"):
                msg[3][0]["offset"] = 0
                return encode(msg)
        return raw

    def response(msg, raw):
        if isinstance(msg, list) and len(msg) == 4 and msg[0] == 1 and msg[1] in queries \
                and msg[2] is None:
            lie(msg[3])
            return encode(msg)
        return raw

    threading.Thread(target=pump, args=(conn, up, request), daemon=True).start()
    pump(up, conn, response)


def main():
    if os.path.exists(sys.argv[1]):
        os.unlink(sys.argv[1])
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(sys.argv[1])
    ls.listen(16)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
