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
import sys

from rpc_proxy import error_response, is_request, serve


class Refusals:
    """Answers the requests for the methods in lies itself, with an error."""

    def __init__(self, lies):
        self.lies = lies

    def request(self, msg, raw):
        if is_request(msg) and msg[2] in self.lies:
            sys.stderr.write("rpc_liar: refused %s\n" % msg[2])
            return None, error_response(msg[1], self.lies[msg[2]], "not now (a lying server)")
        return raw, None

    def response(self, msg, raw):
        return raw


def main(argv):
    listen, upstream, lies = argv[1], argv[2], {}
    for arg in argv[3:]:
        method, code = arg.split("=")
        lies[method] = int(code)
    serve(listen, upstream, lambda: Refusals(lies))


if __name__ == "__main__":
    main(sys.argv)
