#!/usr/bin/python3
"""Claims to be a mirror holding SIZE entries with tree root ROOT (hex) to
a kixd, speaking msgpack-RPC itself (no kix code): follow, then the
replicated report (PROTOCOL.md §2.13.1), with the line LINE in the field
"cosignature" (what mirrors sent before issue 42) or "held" when given. Prints "ok QUORUM" or "error CODE MESSAGE" for the report's
answer (integration.promote checks that a report the origin's log
contradicts is refused, not counted; integration.ack_mirror_key that an
unsigned or wrongly cosigned one is, with --ack-mirror-key).

usage: fake_mirror.py unix:///PATH SIZE ROOT_HEX ID [--no-follow] [--cosignature LINE] [--held LINE]
"""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from get_objects import Short, pack, unpack  # noqa: E402


def answer(s, buf, msgid):
    """The response to msgid (notifications and other answers dropped)."""
    while True:
        try:
            msg, used = unpack(buf, 0)
        except Short:
            chunk = s.recv(1 << 16)
            if not chunk:
                sys.exit("fake_mirror.py: connection closed")
            buf += chunk
            continue
        buf = buf[used:]
        if msg[0] == 1 and msg[1] == msgid:
            return msg, buf


def main(argv):
    addr, size, root, mid = argv[1], int(argv[2]), bytes.fromhex(argv[3]), argv[4]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr[len("unix://"):])
    buf = b""
    if "--no-follow" not in argv:
        s.sendall(pack([0, 1, "follow", [{"from": 0}]]))
        msg, buf = answer(s, buf, 1)
        if msg[2] is not None:
            sys.exit("fake_mirror.py: follow refused: %r" % (msg[2],))
    # [0, 2, "replicated", [{size, root, mirror, cosignature?, held?}]], the
    # root a bin (which pack() does not write)
    extra = [(f, argv[argv.index("--" + f) + 1]) for f in ("cosignature", "held")
             if "--" + f in argv]
    params = bytes([0x83 + len(extra)]) + pack("size") + pack(size) + pack("root") + \
        b"\xc4\x20" + root + pack("mirror") + pack(mid)
    for f, line in extra:
        params += pack(f) + pack(line)
    report = b"\x94\x00\x02" + pack("replicated") + b"\x91"
    s.sendall(report + params)
    msg, buf = answer(s, buf, 2)
    if msg[2] is not None:
        print("error", msg[2])
    else:
        print("ok", msg[3]["size"])


if __name__ == "__main__":
    main(sys.argv)
