"""page_view.py PAGE: the view document PAGE (an HTML file) embeds as
<script type="application/json" id="kix-view">, printed as JSON (a static
copy's run page carries its view so since layout 4, PROTOCOL.md §3), with
what a copy's leaves out since layout 7 filled in (full). As a module:
load(PAGE) (the view as embedded), full(PAGE), copy_view(kixd's view) and
store(PAGE, view), for tests that tamper with a copy's view (store escapes
it as kixd does)."""
import hashlib
import html as htmlmod
import json
import re
import sys

VIEW = re.compile(r'(<script type="application/json" id="kix-view">)(.*?)(</script>)', re.S)
MANIFEST = re.compile(r'(<pre hidden id="kix-manifest">)([^<]*)(</pre>)')


def manifest_text(text):
    """A manifest as a copy's page says it in #kix-manifest (layout 7):
    element text, only & < > escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _match(page):
    html = open(page, encoding="utf-8").read()
    m = VIEW.search(html)
    if not m:
        sys.exit("page_view.py: %s embeds no #kix-view" % page)
    return html, m


def load(page):
    """The view with the page's #kix-manifest text as its
    manifestCanonical (a view before layout 7 said it so)."""
    html, m = _match(page)
    view = json.loads(m.group(2))
    shown = MANIFEST.search(html)
    if shown:
        view["manifestCanonical"] = (shown.group(2).replace("&lt;", "<").replace("&gt;", ">")
                                     .replace("&amp;", "&"))
    return view


def full(page):
    """The view with what a static copy's leaves out since layout 7
    (PROTOCOL.md §3, "A leaner view") filled in as kix-verify.js and kix's
    HTTP source do: the run id from the pin, the log key from #log-vkey,
    the origin and size from its checkpoint, the manifest's digest from
    its canonical text."""
    html, m = _match(page)
    view = load(page)
    if view.get("view") != "kix.run/1" or "runId" in view:
        return view
    run = re.search(r'<div id="kix-verify"[^>]* data-run="([^"]*)"', html)
    key = re.search(r'<code id="log-vkey">([^<]*)</code>', html)
    origin, size = view["checkpoint"].split("\n")[:2]
    view.update(runId=htmlmod.unescape(run.group(1)), origin=origin, treeSize=int(size),
                logKey=htmlmod.unescape(key.group(1)) if key else "",
                manifestDigest="sha256:" + hashlib.sha256(
                    view["manifestCanonical"].encode()).hexdigest())
    view.setdefault("reruns", [])
    view.setdefault("attestationList", [])
    view.setdefault("attestations", 0)
    return view


def copy_view(view):
    """kixd's run view as a static copy's page embeds it (PROTOCOL.md §3):
    without `manifest`, `sections`, `objects` and `index` (layout 4), what
    the page's HTML says (a lean view, layout 5), what its pin, checkpoint
    and manifest say, its rank, and reruns and attestations when there are
    none and its manifest, the text of #kix-manifest (a leaner view, layout
    7), and the entries' paths."""
    v = dict(view)
    for k in ("manifest", "sections", "objects", "index", "observedAt", "primary", "evidence",
              "title", "header", "evidenceText", "lastObserved", "runId", "permalink", "origin",
              "treeSize", "logKey", "manifestDigest", "rank", "manifestCanonical"):
        v.pop(k, None)
    for k in ("reruns", "attestationList"):
        if not v[k]:
            del v[k]
    if not v["attestations"] and "attestationList" not in v:
        del v["attestations"]
    v["entries"] = [{k: e[k] for k in e if k not in ("tile", "entryBundle")} for e in v["entries"]]
    return v


def store(page, view):
    """The page with view as its #kix-view, its manifestCanonical as the
    text of #kix-manifest when the page has one (layout 7)."""
    html, m = _match(page)
    shown = MANIFEST.search(html)
    if shown and "manifestCanonical" in view:
        view = dict(view)
        canon = view.pop("manifestCanonical")
        html = html[:shown.start(2)] + manifest_text(canon) + html[shown.end(2):]
        m = VIEW.search(html)
    text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    text = (text.replace("/", "\\/").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))
    with open(page, "w", encoding="utf-8") as f:
        f.write(html[:m.start(2)] + text + html[m.end(2):])


if __name__ == "__main__":
    print(json.dumps(full(sys.argv[1]), ensure_ascii=False))
