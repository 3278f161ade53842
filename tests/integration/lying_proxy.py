#!/usr/bin/python3
"""A lying server for tests: a msgpack-RPC proxy between kix and a kixd
(PROTOCOL.md §2), written with no kix code, that forwards every message as
it came except the answers to `resolve` (§2.12), whose objects it edits:

  add   appends OBJECT (a file of canonical JSON) to the objects: an object
        the run's manifest does not reference, with its true digest
  swap  puts OBJECT in place of the first object of the same kind: another
        object of that kind, with its true digest

usage: lying_proxy.py LISTEN_PATH UPSTREAM_PATH add|swap OBJECT
Serves until killed; prints "ready" once listening.
"""
import hashlib
import json
import os
import socket
import struct
import sys
import threading

from get_objects import Short, unpack


def pack(v):
    """msgpack of v, keeping str (str) and bytes (bin) apart."""
    if v is None:
        return b"\xc0"
    if v is True or v is False:
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if v >= 0:
            return b"\xcf" + struct.pack(">Q", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, str):
        b = v.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(v, bytes):
        return b"\xc6" + struct.pack(">I", len(v)) + v
    if isinstance(v, list):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return b"\xdf" + struct.pack(">I", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


def messages(sock):
    """(raw bytes, decoded message) of each message read from sock."""
    buf = b""
    while True:
        try:
            msg, end = unpack(buf, 0)
        except Short:
            chunk = sock.recv(1 << 16)
            if not chunk:
                return
            buf += chunk
            continue
        yield buf[:end], msg
        buf = buf[end:]


def kind_of(obj):
    try:
        return json.loads(obj).get("kind")
    except ValueError:
        return None


def lie(result, mode, obj):
    digest = "sha256:" + hashlib.sha256(obj).hexdigest()
    objects = result.get("objects", [])
    if mode == "add":
        objects.append({"digest": digest, "object": obj})
    else:
        for o in objects:
            if kind_of(o["object"]) == kind_of(obj):
                o["digest"], o["object"] = digest, obj
                break
    result["objects"] = objects


def serve(client, upstream_path, mode, obj):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(upstream_path)
    resolves = set()

    def requests():
        try:
            for raw, msg in messages(client):
                if isinstance(msg, list) and len(msg) == 4 and msg[0] == 0 and msg[2] == "resolve":
                    resolves.add(msg[1])
                up.sendall(raw)
        except OSError:
            pass
        up.close()

    threading.Thread(target=requests, daemon=True).start()
    try:
        for raw, msg in messages(up):
            if (isinstance(msg, list) and len(msg) == 4 and msg[0] == 1 and msg[1] in resolves and
                    msg[2] is None and isinstance(msg[3], dict)):
                resolves.discard(msg[1])
                lie(msg[3], mode, obj)
                raw = pack(msg)
            client.sendall(raw)
    except OSError:
        pass
    client.close()


def main(argv):
    listen_path, upstream_path, mode, path = argv[1:5]
    if mode not in ("add", "swap"):
        sys.exit("lying_proxy.py: mode is add or swap")
    obj = open(path, "rb").read()
    if os.path.exists(listen_path):
        os.unlink(listen_path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(listen_path)
    srv.listen(16)
    print("ready", flush=True)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=serve, args=(client, upstream_path, mode, obj), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv)
