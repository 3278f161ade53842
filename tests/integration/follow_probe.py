#!/usr/bin/python3
"""Follows a kixd's log (PROTOCOL.md §2.13) from FROM for SECONDS and
prints the size the stream reached (the end of the last "entries"
notification, FROM when none came), speaking msgpack-RPC itself (no kix
code). With --replica, as a mirror's stream (follow's "replica": true).
With --until N, it stops as soon as the stream reaches N. Once kixd
answered the follow call, it says "following SIZE" on stderr (a test
waits for that line before it makes the log grow).

usage: follow_probe.py unix:///PATH FROM SECONDS [--replica] [--until N]
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from get_objects import Short, pack, unpack  # noqa: E402


def main(argv):
    addr, start, seconds = argv[1], int(argv[2]), float(argv[3])
    until_size = int(argv[argv.index("--until") + 1]) if "--until" in argv else None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr[len("unix://"):])
    # the bool written by hand (pack() writes no bools)
    params = (b"\x82" + pack("from") + pack(start) + pack("replica") + b"\xc3"
              if "--replica" in argv else b"\x81" + pack("from") + pack(start))
    s.sendall(b"\x94\x00\x01" + pack("follow") + b"\x91" + params)
    reached, buf, until = start, b"", time.time() + seconds
    while time.time() < until and (until_size is None or reached < until_size):
        s.settimeout(max(0.01, until - time.time()))
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        while True:
            try:
                msg, used = unpack(buf, 0)
            except Short:
                break
            buf = buf[used:]
            if msg[0] == 1 and msg[2] is not None:
                sys.exit("follow_probe.py: follow refused: %r" % (msg[2],))
            if msg[0] == 1:
                print("following %d" % msg[3]["size"], file=sys.stderr, flush=True)
            if msg[0] == 2 and msg[1] == "entries":
                n = msg[2][0]
                reached = max(reached, n["start"] + len(n["entries"]))
    print(reached)


if __name__ == "__main__":
    main(sys.argv)
