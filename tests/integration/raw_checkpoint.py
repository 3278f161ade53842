#!/usr/bin/python3
"""Prints the signed checkpoint a kixd stores at SIZE, read with the
replication listing `checkpoints` (PROTOCOL.md §2.14), which an origin with
--ack-replicas answers at its committed size (a mirror replicates from it)
while readers are shown only what its mirrors hold. Speaks msgpack-RPC
itself (no kix code): what anyone who can connect can do.

usage: raw_checkpoint.py unix:///PATH SIZE
Exits 1 when there is no checkpoint at SIZE.
"""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from get_objects import Short, pack, unpack  # noqa: E402


def main(argv):
    addr, size = argv[1], int(argv[2])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr[len("unix://"):])
    s.sendall(pack([0, 1, "checkpoints", [{"after": size - 1, "limit": 1}]]))
    buf = b""
    while True:
        try:
            msg, _ = unpack(buf, 0)
            break
        except Short:
            chunk = s.recv(1 << 16)
            if not chunk:
                sys.exit("raw_checkpoint.py: connection closed")
            buf += chunk
    if msg[2] is not None:
        sys.exit("raw_checkpoint.py: %r" % (msg[2],))
    for cp in msg[3]["checkpoints"]:
        if cp["size"] == size:
            note = cp["checkpoint"]
            sys.stdout.write(note if isinstance(note, str) else note.decode())
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
