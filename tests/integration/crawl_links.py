#!/usr/bin/env python3
"""crawl_links.py BASE_URL [--per-kind N]: follows every <a href> of every
page reachable from BASE_URL (the site's root) on that host, as a reader
clicking through a static copy would (issue 37 point 2). Every link to a
page must answer 200 with Content-Type text/html; a link to a data file
(the checkpoint, a tile or entry bundle, a .json view, a data: URI) must
answer 200 (its type is the server's business). Prints one line per page
kind with how many pages of it were opened, then "ok"; exits 1 naming
every broken link and the page it is on. --per-kind N opens at most N
pages of each kind (kixd renders each page: a sample is enough there)."""
import html.parser
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

DATA = re.compile(r"(/checkpoint|/tile/.*|\.json)$")


def kind_of(path):
    if path in ("/", "/index.html"):
        return "home"
    for k, pat in (("home-page", r"^/home/([0-9a-f]{64}|[0-9]+)(\.html)?$"),
                   ("group-page", r"^/groups/sha256:[0-9a-f]{64}-[0-9]+(\.html)?$"),
                   ("group", r"^/groups/sha256:[0-9a-f]{64}(\.html)?$"),
                   ("kernel", r"^/kernels/[^/]+$"),
                   ("run", r"^/runs/[^/]+$")):
        if re.match(pat, path):
            return k
    return "other"


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            for k, v in attrs:
                if k == "href" and v is not None:
                    self.hrefs.append(v)


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), b""


def main():
    base = sys.argv[1].rstrip("/") + "/"
    per_kind = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--per-kind" else 0
    host = urllib.parse.urlsplit(base).netloc
    todo, seen, checked = [base], {base}, {}
    opened, broken, links = {}, [], 0
    while todo:
        page = todo.pop(0)
        status, ctype, body = fetch(page)
        kind = kind_of(urllib.parse.urlsplit(page).path)
        if status != 200 or not ctype.startswith("text/html"):
            continue  # said where the link to it was checked
        opened[kind] = opened.get(kind, 0) + 1
        parser = Links()
        parser.feed(body.decode("utf-8"))
        for href in parser.hrefs:
            if href.startswith("data:") or href.startswith("#"):
                continue
            url = urllib.parse.urljoin(page, href)
            u = urllib.parse.urlsplit(url)
            if u.netloc != host:
                continue  # the permalink names the log's origin, not this copy
            url = urllib.parse.urlunsplit((u.scheme, u.netloc, u.path, u.query, ""))
            links += 1
            if url not in checked:
                checked[url] = fetch(url)[:2]
            status, ctype = checked[url]
            data = DATA.search(u.path) is not None
            if status != 200 or (not data and not ctype.startswith("text/html")):
                broken.append("%s -> %s: HTTP %s, %s" % (page, href, status, ctype or "no type"))
                continue
            k = kind_of(u.path)
            if not data and url not in seen and (not per_kind or sum(
                    1 for s in seen if kind_of(urllib.parse.urlsplit(s).path) == k) < per_kind):
                seen.add(url)
                todo.append(url)
    for k in sorted(opened):
        print("%s %d" % (k, opened[k]))
    print("links %d" % links)
    if broken:
        print("\n".join(broken[:40]), file=sys.stderr)
        print("%d broken links" % len(broken), file=sys.stderr)
        sys.exit(1)
    print("ok")


main()
