#!/usr/bin/env python3
"""A server that lies about a query's page: a proxy between kix and kixd
(unix sockets, msgpack-RPC, proto/PROTOCOL.md section 1) that passes every
message through as it is, except `query` answers (and, for `page1`,
`shift-N`, `shift+N` and `ignore-offset`, the query's offset), which it
edits as LIE says. Everything else, index proofs
included, is kixd's honest answer. Used by test_query_lies.sh.

usage: lying_query_proxy.py LISTEN_PATH UPSTREAM_PATH LIE
LIE: drop-best drop-last duplicate reversed foreign page1 matched evidence,
and, each with the match count made to agree: drop-middle (a run from the
middle), drop-group (every row of the page's last group), other-kernel (a
row of another kernel in place of the last); shift-N, shift+N (the
query's offset moved by N, never below 0), ignore-offset (every page is
the first), each with the answer otherwise kixd's (issue 42, item 5)
"""
import sys

from rpc_proxy import is_request, is_response, pack, serve

LIE = sys.argv[3]
seen_rows = []  # rows of earlier answers: another group's row to mix in


def lie(result):
    runs = result["runs"]
    foreign = [r for r in seen_rows if runs and r["group"] != runs[0]["group"]]
    seen_rows.extend(runs)
    if LIE == "drop-best" and runs:
        del runs[0]
    elif LIE == "drop-middle" and len(runs) > 2:
        del runs[len(runs) // 2]
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
    elif LIE == "drop-middle" and len(runs) > 2:
        del runs[len(runs) // 2]
        result["matched"] -= 1
    elif LIE == "drop-group" and runs:
        last = runs[-1]["group"]
        kept = [r for r in runs if r["group"] != last]
        result["matched"] -= len(runs) - len(kept)
        runs[:] = kept
    elif LIE == "other-kernel" and runs:
        other = [r for r in seen_rows if r["kernel"] != runs[0]["kernel"]]
        if other:  # in place of the page's last row: the page keeps its size
            runs[-1] = other[0]


class QueryLie:
    """Edits the answers to this connection's query requests (and, for
    page1, the request's offset)."""

    def __init__(self):
        self.queries = set()

    def request(self, msg, raw):
        if is_request(msg, "query"):
            self.queries.add(msg[1])
            if LIE == "page1" and msg[3] and msg[3][0].get("offset"):
                msg[3][0]["offset"] = 0
                return pack(msg), None
            if LIE.startswith("shift") and msg[3]:
                offset = msg[3][0].get("offset", 0) + int(LIE[len("shift"):])
                msg[3][0]["offset"] = max(offset, 0)
                return pack(msg), None
            if LIE == "ignore-offset" and msg[3]:
                msg[3][0].pop("offset", None)
                return pack(msg), None
        return raw, None

    def response(self, msg, raw):
        if is_response(msg) and msg[1] in self.queries and msg[2] is None:
            lie(msg[3])
            return pack(msg)
        return raw


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2], QueryLie)
