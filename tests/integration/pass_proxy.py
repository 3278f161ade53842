#!/usr/bin/python3
"""A msgpack-RPC proxy that forwards everything as it came (rpc_proxy.py),
for tests that cut a connection on purpose: killing it is a network
partition between its two sides (integration.ack_forged_witness cuts a
mirror off its origin this way while the mirror's HTTP port stays up).

usage: pass_proxy.py LISTEN_PATH UPSTREAM_PATH
Serves until killed; prints "ready" once listening.
"""
import sys

from rpc_proxy import serve


class Pass:
    def request(self, msg, raw):
        return raw, None

    def response(self, msg, raw):
        return raw


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2], Pass)
