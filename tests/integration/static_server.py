"""A static file server for the HTTP tests: serves ROOT on 127.0.0.1:PORT
over HTTP/1.1 (kept alive, threaded), 404 for what is not a file.

  static_server.py ROOT PORT [--record FILE] [--fail-first]

--record FILE   appends each GET's path to FILE, one a line (what a client asked)
--fail-first    answers 503 to the first GET of each path (a flaky CDN), and
                always to paths under /always503
"""
import argparse
import http.server
import os
import threading

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("port", type=int)
ap.add_argument("--record")
ap.add_argument("--fail-first", action="store_true")
args = ap.parse_args()
lock, seen = threading.Lock(), set()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, code, body=b""):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        with lock:
            first = path not in seen
            seen.add(path)
            if args.record:
                with open(args.record, "a") as f:
                    f.write(path + "\n")
        if args.fail_first and (first or path.startswith("/always503")):
            return self.answer(503)
        f = os.path.join(args.root, path.lstrip("/"))
        if not os.path.isfile(f):
            return self.answer(404)
        with open(f, "rb") as body:
            self.answer(200, body.read())

    def log_message(self, *a):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
