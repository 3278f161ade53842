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
import sys

from rpc_proxy import is_request, is_response, pack, serve


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


class ResolveLie:
    """Edits the answers to this connection's resolve requests."""

    def __init__(self, mode, obj):
        self.mode, self.obj, self.resolves = mode, obj, set()

    def request(self, msg, raw):
        if is_request(msg, "resolve"):
            self.resolves.add(msg[1])
        return raw, None

    def response(self, msg, raw):
        if is_response(msg) and msg[1] in self.resolves and msg[2] is None and \
                isinstance(msg[3], dict):
            self.resolves.discard(msg[1])
            lie(msg[3], self.mode, self.obj)
            return pack(msg)
        return raw


def main(argv):
    listen_path, upstream_path, mode, path = argv[1:5]
    if mode not in ("add", "swap"):
        sys.exit("lying_proxy.py: mode is add or swap")
    obj = open(path, "rb").read()
    serve(listen_path, upstream_path, lambda: ResolveLie(mode, obj))


if __name__ == "__main__":
    main(sys.argv)
