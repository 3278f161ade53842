#!/usr/bin/env bash
# Field cells by position (PROTOCOL.md §3): an exported run page's section
# cells carry no JSON pointer; kix-verify.js derives each from the proven
# manifest and objects (sectionFields) as client/view/sections.c does. Held
# to C here: for runs of every kernel of the Liger CSV, kixd's own pages
# (which name each field cell's pointer, object and format) give, section
# by section and row by row, exactly what sectionFields gives from the
# run's manifest and objects; and the export's pages name none.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"
command -v node >/dev/null || { echo "node is missing"; exit 77; }

new_origin "$WORK/o"
# one row in seven of the CSV: every kernel and pass, many shapes
awk 'NR == 1 || NR % 7 == 0' "$CSV" >"$WORK/some.csv"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 100 --map "$WORK/some.map" \
  "$WORK/some.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
wait_export "$WORK/exp" "$(size_of o)"
python3 -c 'import json,sys
for l in open(sys.argv[1]): print(json.loads(l)["runId"])' "$WORK/some.map" >"$WORK/ids"
node - "$H" "$WORK/ids" "$KIX_SRC/client/web/static/kix-verify.js" "$WORK/exp" <<'JS' >"$WORK/out" 2>&1 || fail "$(tail -5 "$WORK/out")"
const fs = require('fs');
const [base, idsFile, script, exp] = process.argv.slice(2);
const kv = require(script);
const FIELDS = ['workloadDigest', 'implementationDigest', 'protocolDigest', 'environmentDigest'];
const IDS = ['identity', 'correctness', 'workload', 'measurements', 'protocol', 'environment', 'artifacts'];
const unesc = (x) => x.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
  .replace(/&#39;/g, "'").replace(/&amp;/g, '&');
(async () => {
  const get = async (p) => { const r = await fetch(base + '/' + p); if (!r.ok) throw new Error(p + ': ' + r.status); return r.text(); };
  let runs = 0, cells = 0;
  for (const id of fs.readFileSync(idsFile, 'utf8').split('\n').filter(Boolean)) {
    const html = await get('runs/' + id);
    const v = JSON.parse(/id="kix-view">([\s\S]*?)<\/script>/.exec(html)[1]);
    const m = JSON.parse(v.manifestCanonical), objects = {};
    for (const k of FIELDS)
      if (m.spec && typeof m.spec[k] === 'string') objects[k] = JSON.parse(await get('objects/' + m.spec[k]));
    const got = kv.sectionFields(m, objects);
    IDS.forEach((sid, i) => {
      const sec = new RegExp('<section id="' + sid + '">([\\s\\S]*?)</section>').exec(html), want = [];
      const shared = sec && ((/<table class="kv" data-kix-object="([^"]*)"/.exec(sec[1]) || [])[1] || 'manifest');
      for (const tr of sec ? sec[1].matchAll(/<tr><th>[^<]*<\/th><td([^>]*)>/g) : []) {
        if (/data-kix-words/.test(tr[1])) continue;
        const ptr = (/data-kix-ptr="([^"]*)"/.exec(tr[1]) || [])[1];
        want.push(ptr === undefined ? null : { object: (/data-kix-object="([^"]*)"/.exec(tr[1]) || [])[1] || shared,
          ptr: unesc(ptr), fmt: (/data-kix-fmt="([^"]*)"/.exec(tr[1]) || [])[1] || 'text' });
      }
      cells += want.length;
      if (JSON.stringify(want) !== JSON.stringify(got[i]))
        throw new Error('run ' + id + ', section ' + sid + ': kixd ' + JSON.stringify(want) + ', sectionFields ' + JSON.stringify(got[i]));
    });
    const page = fs.readFileSync(exp + '/runs/' + kv.runPageName(id) + '.html', 'utf8');
    if (/data-kix-ptr=|<table class="kv" data-kix-object=/.test(page)) throw new Error('the exported runs/' + id + ' names its field cells');
    runs++;
  }
  if (runs < 300 || cells < 10000) throw new Error('only ' + runs + ' runs, ' + cells + ' field rows');
  console.log(runs + ' runs, ' + cells + ' field rows');
})().catch((e) => { console.error(String(e)); process.exit(1); });
JS
pass "sectionFields gives every field row kixd's pages name, in order ($(cat "$WORK/out")); the exported pages name none"
