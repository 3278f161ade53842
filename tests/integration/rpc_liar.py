#!/usr/bin/python3
"""A lying server: a msgpack-RPC proxy (PROTOCOL.md §1) in front of a kixd
that forwards every message as it is, except requests for the methods
named on the command line, which it answers itself with an error of the
code given, as a server that will not give a proof would. Speaks the
framing itself (no kix code); one thread per direction per connection.

usage: rpc_liar.py LISTEN_SOCKET UPSTREAM_SOCKET METHOD=CODE...
e.g.   rpc_liar.py liar.sock kixd.sock consistency_proof=-12
Creates LISTEN_SOCKET when ready; runs until killed.
"""
import os
import socket
import struct
import sys
import threading


class Short(Exception):
    pass


def skip(b, i):
    """The index after the msgpack value at b[i]; raises Short when b ends
    before it does."""
    if i >= len(b):
        raise Short()
    t = b[i]
    i += 1

    def need(n):
        if i + n > len(b):
            raise Short()

    def length(w):
        need(w)
        return int.from_bytes(b[i:i + w], "big")

    if t < 0x80 or t >= 0xE0 or t in (0xC0, 0xC2, 0xC3):
        return i
    if t <= 0x8F:
        n, items = t & 0x0F, 2
    elif t <= 0x9F:
        n, items = t & 0x0F, 1
    elif t <= 0xBF:
        need(t & 0x1F)
        return i + (t & 0x1F)
    elif t in (0xC4, 0xC5, 0xC6, 0xD9, 0xDA, 0xDB):
        w = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}[t]
        n = length(w)
        need(w + n)
        return i + w + n
    elif t in (0xC7, 0xC8, 0xC9):
        w = {0xC7: 1, 0xC8: 2, 0xC9: 4}[t]
        n = length(w)
        need(w + 1 + n)
        return i + w + 1 + n
    elif t in (0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3):
        w = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
             0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}[t]
        need(w)
        return i + w
    elif t in (0xD4, 0xD5, 0xD6, 0xD7, 0xD8):
        w = 1 + {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}[t]
        need(w)
        return i + w
    elif t in (0xDC, 0xDD, 0xDE, 0xDF):
        w = 2 if t in (0xDC, 0xDE) else 4
        n, items = length(w), (1 if t in (0xDC, 0xDD) else 2)
        i += w
    else:
        raise ValueError("byte 0x%02x is no msgpack" % t)
    for _ in range(n * items):
        i = skip(b, i)
    return i


def scalar(b, i):
    """(an unsigned int or str at b[i], the index after it)."""
    t = b[i]
    if t < 0x80:
        return t, i + 1
    if t in (0xCC, 0xCD, 0xCE, 0xCF):
        w = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}[t]
        return int.from_bytes(b[i + 1:i + 1 + w], "big"), i + 1 + w
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return bytes(b[i + 1:i + 1 + n]).decode(), i + 1 + n
    if t == 0xD9:
        n = b[i + 1]
        return bytes(b[i + 2:i + 2 + n]).decode(), i + 2 + n
    return None, skip(b, i)


def error_response(msgid, code, message):
    m = message.encode()
    return (b"\x94\x01\xce" + struct.pack(">I", msgid) + b"\x82\xa4code\xd3" +
            struct.pack(">q", code) + b"\xa7message\xd9" + bytes([len(m)]) + m + b"\xc0")


def messages(sock):
    """Yields each whole message read from sock, as bytes."""
    buf = b""
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return
        buf += chunk
        while buf:
            try:
                end = skip(buf, 0)
            except Short:
                break
            yield buf[:end]
            buf = buf[end:]


def serve(client, upstream_path, lies):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.connect(upstream_path)
    lock = threading.Lock()

    def to_client():
        try:
            for msg in messages(upstream):
                with lock:
                    client.sendall(msg)
        except OSError:
            pass
        client.close()

    threading.Thread(target=to_client, daemon=True).start()
    try:
        for msg in messages(client):
            # a request is [0, msgid, method, params]
            if msg[0] == 0x94 and msg[1] == 0x00:
                msgid, i = scalar(msg, 2)
                method, _ = scalar(msg, i)
                if method in lies:
                    sys.stderr.write("rpc_liar: refused %s\n" % method)
                    with lock:
                        client.sendall(error_response(msgid, lies[method],
                                                      "not now (a lying server)"))
                    continue
            upstream.sendall(msg)
    except OSError:
        pass
    upstream.close()


def main(argv):
    listen, upstream, lies = argv[1], argv[2], {}
    for arg in argv[3:]:
        method, code = arg.split("=")
        lies[method] = int(code)
    tmp = listen + ".tmp"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(tmp)
    s.listen(16)
    os.rename(tmp, listen)
    while True:
        client, _ = s.accept()
        threading.Thread(target=serve, args=(client, upstream, lies), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv)
