#!/usr/bin/python3
"""What the tests' lying servers share: a msgpack-RPC proxy (PROTOCOL.md §1)
between kix and a real kixd, written with no kix code, that forwards every
message as it came unless the lie in front of it edits or answers it.

A lie is a factory called once per client connection (so each connection
has its own state, e.g. the ids of the requests it wants to edit the answers
of); what it returns has two methods:

  request(msg, raw)  -> (bytes for kixd or None, bytes for the client or None)
  response(msg, raw) -> bytes for the client

msg is the decoded message ([type, msgid, ...]), raw its bytes as they came;
pack(msg) re-encodes an edited one. serve() binds LISTEN_PATH (created by a
rename once listening, and "ready" printed), then serves until killed.
"""
import os
import socket
import struct
import threading

from get_objects import Short, unpack

__all__ = ["Short", "unpack", "pack", "error_response", "is_request", "is_response", "serve"]


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


def error_response(msgid, code, message):
    """The answer of a server that refuses: [1, msgid, {code, message}, nil]."""
    return pack([1, msgid, {"code": code, "message": message}, None])


def is_request(msg, method=None):
    return (isinstance(msg, list) and len(msg) == 4 and msg[0] == 0 and
            (method is None or msg[2] == method))


def is_response(msg):
    return isinstance(msg, list) and len(msg) == 4 and msg[0] == 1


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


def _connection(client, upstream_path, lie):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(upstream_path)
    lock = threading.Lock()  # the answers to the client come from two threads

    def to_client(data):
        with lock:
            client.sendall(data)

    def requests():
        try:
            for raw, msg in messages(client):
                to_up, answer = lie.request(msg, raw)
                if to_up:
                    up.sendall(to_up)
                if answer:
                    to_client(answer)
        except OSError:
            pass
        up.close()

    threading.Thread(target=requests, daemon=True).start()
    try:
        for raw, msg in messages(up):
            to_client(lie.response(msg, raw))
    except OSError:
        pass
    client.close()


def serve(listen_path, upstream_path, new_lie):
    tmp = listen_path + ".tmp"
    for p in (tmp, listen_path):
        if os.path.exists(p):
            os.unlink(p)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(tmp)
    srv.listen(16)
    os.rename(tmp, listen_path)
    print("ready", flush=True)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=_connection, args=(client, upstream_path, new_lie()),
                         daemon=True).start()
