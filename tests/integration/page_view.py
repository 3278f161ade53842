"""page_view.py PAGE: the view document PAGE (an HTML file) embeds as
<script type="application/json" id="kix-view">, printed as JSON (a static
copy's run page carries its view so since layout 4, PROTOCOL.md §3). As a
module: load(PAGE) and store(PAGE, view), for tests that tamper with a
copy's view (store escapes it as kixd does)."""
import json
import re
import sys

VIEW = re.compile(r'(<script type="application/json" id="kix-view">)(.*?)(</script>)', re.S)


def _match(page):
    html = open(page, encoding="utf-8").read()
    m = VIEW.search(html)
    if not m:
        sys.exit("page_view.py: %s embeds no #kix-view" % page)
    return html, m


def load(page):
    return json.loads(_match(page)[1].group(2))


def store(page, view):
    html, m = _match(page)
    text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    text = (text.replace("/", "\\/").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))
    with open(page, "w", encoding="utf-8") as f:
        f.write(html[:m.start(2)] + text + html[m.end(2):])


if __name__ == "__main__":
    print(_match(sys.argv[1])[1].group(2))
