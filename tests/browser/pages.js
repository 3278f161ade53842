/* pages.js: the pages in Debian's chromium (driven by puppeteer-core), for
 * test_pages.sh, which set up the log and gives, in order: kixd's HTTP
 * base, the export directory, a run that is ranked, attested and
 * reproduced, a superseded run, its successor, their group, the log's
 * size, the screenshot directory, the export of the same log at an
 * earlier size, and python3 -m http.server serving the export. It checks:
 *   - each kind of page at 1280x900 and 390x844: a screenshot, the
 *     verification result (#verify-status), the header words and the
 *     median with its unit inside the first viewport (bounding boxes);
 *   - axe-core: no serious or critical violation on any page;
 *   - the verifier from another origin (the page's copy on a second
 *     server, ?kix-base= naming kixd), from a local file, and the export's
 *     <page>.html served by python3 -m http.server, also a run page the
 *     log's growth left untouched (its proofs computed from the export's
 *     index tiles, verified at the latest size);
 *   - each tamper of issue 26 turns the page red (data-state "fail"),
 *     served from a copy of the export by a small static server here; a
 *     page whose visible text alone was edited shows the proven value.
 * Prints "N passed, M failed" and exits 1 on any failure. */
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const crypto = require('crypto');
const puppeteer = require('./node_modules/puppeteer-core');
const { LAUNCH, closeBrowser } = require('./chromium');
const { flippedRecord } = require('./index_records');

const [H, EXP, RUN, OLD, NEW, GROUP, SIZE, SHOTS, EXP_OLD, PYHTTP, EXP_OTHER] = process.argv.slice(2);
const AXE = fs.readFileSync(require.resolve('./node_modules/axe-core/axe.min.js'), 'utf8');
const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];
const MEDIAN = /^-?[0-9]+(\.[0-9]+)? (ns|\u00b5s|ms|s|B|KiB|MiB|GiB|TiB)$/;

let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) { passed++; console.log('ok: ' + what); } else { failed++; console.log('FAIL: ' + what); }
}

/* ---- a static server of an export directory, with edits ------------------------------ */

/* Content types as a web server configured as README.md says sends them. */
function typeOf(p) {
  if (p.endsWith('.json')) return 'application/json';
  if (p.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (p.endsWith('.css')) return 'text/css; charset=utf-8';
  if (p === 'checkpoint') return 'text/plain; charset=utf-8';
  if (p.startsWith('tile/')) return 'application/octet-stream';
  return 'text/html; charset=utf-8';
}

/* Serves `dir`; edits: path -> Buffer|string (null: 404). Resolves to
 * { url, close }. */
function serveDir(dir, edits) {
  edits = edits || {};
  const srv = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname).slice(1);
    if (p === '') p = 'index.html';
    let body = Object.prototype.hasOwnProperty.call(edits, p) ? edits[p] : undefined;
    if (body === undefined) {
      const f = path.join(dir, p);
      body = f.startsWith(dir) && fs.existsSync(f) && fs.statSync(f).isFile() ? fs.readFileSync(f) : null;
    }
    if (body === null) { res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }); return res.end('not found'); }
    res.writeHead(200, { 'Content-Type': typeOf(p), 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    res.end(body);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () =>
    resolve({ url: 'http://127.0.0.1:' + srv.address().port, close: () => closeServer(srv) })));
}

/* Stops a server now. close() alone waits for every open connection, and
 * chromium keeps sockets it opened ahead of a request (preconnects) that
 * node counts as busy until its 300 s request timeout: a run once spent
 * minutes there, the tabs long closed. */
function closeServer(srv) {
  const closed = new Promise((r) => srv.close(r));
  srv.closeAllConnections();
  return closed;
}

const VIEW = /(<script type="application\/json" id="kix-view">)([\s\S]*?)(<\/script>)/;

/* The view document of the exported page at path p (its HTML `html`):
 * its #kix-view, or for a page without one (an exported run or group
 * page) the <p>.json its verifier reads. */
function viewOf(p, html) {
  const m = VIEW.exec(html), shown = MANIFEST.exec(html);
  const v = JSON.parse(m ? m[2] : fs.readFileSync(path.join(EXP, p + '.json'), 'utf8'));
  /* a copy's run page says its manifest as #kix-manifest's text (layout 7) */
  if (shown) v.manifestCanonical = shown[2].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return v;
}
const MANIFEST = /(<pre hidden id="kix-manifest">)([^<]*)(<\/pre>)/;
/* text as element text: only & < > escaped (run.html's {{text}}) */
function asText(s) { return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'); }

/* viewOf, with what a copy's run view leaves out since layout 7 (PROTOCOL.md
 * section 3, "A leaner view") filled in as kix-verify.js does: the run id
 * from the pin, the log key from #log-vkey, the origin and size from its
 * checkpoint, the manifest's digest from its canonical text. */
function fullOf(p, html) {
  const v = viewOf(p, html);
  if (v.view !== 'kix.run/1' || v.runId !== undefined) return v;
  const lines = v.checkpoint.split('\n'), key = /<code id="log-vkey">([^<]*)<\/code>/.exec(html);
  return Object.assign({ reruns: [], attestationList: [], attestations: 0 }, v, {
    runId: /<div id="kix-verify"[^>]* data-run="([^"]*)"/.exec(html)[1], origin: lines[0],
    treeSize: Number(lines[1]), logKey: key ? key[1] : '',
    manifestDigest: 'sha256:' + crypto.createHash('sha256').update(v.manifestCanonical).digest('hex') });
}

/* The page at path p (its HTML `html`) with its view changed by fn(view):
 * the page's HTML with #kix-view edited, or for a page without one
 * { json: the edited <p>.json }. */
function editView(p, html, fn) {
  const v = viewOf(p, html), shown = MANIFEST.exec(html);
  fn(v);
  if (shown && typeof v.manifestCanonical === 'string') { /* back into #kix-manifest */
    html = html.slice(0, shown.index) + shown[1] + asText(v.manifestCanonical) + shown[3] +
           html.slice(shown.index + shown[0].length);
    delete v.manifestCanonical;
  }
  const m = VIEW.exec(html);
  if (!m) return { json: JSON.stringify(v) };
  const text = JSON.stringify(v).replace(/\//g, '\\/').replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
  return html.slice(0, m.index) + m[1] + text + m[3] + html.slice(m.index + m[0].length);
}

/* A copy's run page whose view says its manifest too, beside #kix-manifest. */
function withManifestInView(html) {
  const m = VIEW.exec(html), v = JSON.parse(m[2]);
  v.manifestCanonical = viewOf('', html).manifestCanonical;
  const text = JSON.stringify(v).replace(/\//g, '\\/').replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
  return html.slice(0, m.index) + m[1] + text + m[3] + html.slice(m.index + m[0].length);
}

/* html with the view document v embedded as #kix-view, as kixd serves a page. */
function withView(html, v) {
  const text = JSON.stringify(v).replace(/\//g, '\\/').replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
  const at = html.indexOf('<script src="../kix-verify.js"');
  if (at < 0 || VIEW.test(html)) throw new Error('cannot embed a view');
  return html.slice(0, at) + '<script type="application/json" id="kix-view">' + text + '</script>\n' + html.slice(at);
}

/* fn over items, at most `n` at once; the checks' order in the output may vary */
async function inTurn(items, n, fn) {
  let next = 0;
  const worker = async () => { while (next < items.length) await fn(items[next++]); };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/* ---- the browser ------------------------------------------------------------------------- */

/* The page's verdict: {state, text} of #verify-status once it is neither
 * none nor running; state 'timeout' (a failed check, not an exception that
 * would end every other case too) when it is still running after 30 s,
 * with the requests still pending and the page's errors noted. */
async function verdict(page) {
  const t = Date.now();
  try {
    await page.waitForFunction(() => {
      const s = document.getElementById('verify-status');
      return !s || !['none', 'running'].includes(s.getAttribute('data-state'));
    }, { timeout: 30000 });
  } catch (e) {
    const pending = (page.kixRequests || []).filter((q) => !q.t1).map((q) => q.url.slice(0, 120));
    const state = await page.evaluate(() => {
      const s = document.getElementById('verify-status');
      return s ? s.getAttribute('data-state') + ': ' + s.textContent.slice(0, 200) : 'no #verify-status';
    }).catch((x) => 'unreadable: ' + x.message);
    console.log('note: no verdict in 30 s (' + e.message.slice(0, 80) + '), ' + page.url() + ': ' + state +
                '; pending requests: ' + JSON.stringify(pending) + '; page errors: ' + JSON.stringify(page.kixErrors || []));
    return { state: 'timeout', text: state };
  }
  if (Date.now() - t > 2000 && page.kixRequests) {
    const slow = page.kixRequests.map((q) => [(q.t1 || Date.now()) - q.t0, q.url.slice(0, 90), q.t0 - t]).sort((a, b) => b[0] - a[0]).slice(0, 4);
    console.log('note: slow verdict ' + (Date.now() - t) + ' ms, ' + page.kixRequests.length + ' requests; slowest: ' + JSON.stringify(slow));
  }
  return page.evaluate(() => {
    const s = document.getElementById('verify-status');
    return s ? { state: s.getAttribute('data-state'), text: s.textContent } : { state: 'absent', text: '' };
  });
}

/* the first element matching sel: its box and text, and whether the box
 * lies in the first viewport */
function firstScreen(page, sel) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return { found: false };
    const r = el.getBoundingClientRect();
    return { found: true, text: el.textContent.trim(), box: [r.left, r.top, r.width, r.height],
             inside: r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 &&
                     r.bottom <= window.innerHeight && r.right <= window.innerWidth };
  }, sel);
}

/* Table headings, and on a group page the figures and dates, whose words a
 * line break splits (each word's text must lie on one line). */
function splitWords(page) {
  return page.evaluate(() => {
    const cells = [...document.querySelectorAll('th, table.group td:nth-child(n+4):nth-child(-n+6), table.group td:nth-child(8)')];
    const split = [];
    for (const cell of cells) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        for (const m of t.data.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(t, m.index);
          r.setEnd(t, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
          if (tops.size > 1) split.push(m[0]);
        }
      }
    }
    return split;
  });
}

async function axe(page) {
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
  });
}

/* chromium under a loaded machine may lose a target now and then: the
 * browser is launched again and the page opened once more */
const chrome = { browser: null };
const note = (text) => console.log('note: ' + text);

async function newPage() {
  for (let tries = 0; ; tries++) {
    try {
      if (!chrome.browser || !chrome.browser.connected) chrome.browser = await puppeteer.launch(LAUNCH);
      return await chrome.browser.newPage();
    } catch (e) {
      if (tries >= 2) throw e;
      console.log('note: chromium lost a target (' + e.message + '); launching it again');
      await closeBrowser(chrome.browser, note);
      chrome.browser = null;
    }
  }
}

async function open(browser, url, viewport) {
  const t = Date.now();
  const page = await newPage();
  const opened = Date.now();
  await page.setViewport(viewport || VIEWPORTS[0]);
  page.kixRequests = [];
  page.kixErrors = [];
  page.on('pageerror', (e) => page.kixErrors.push(String(e && e.message || e).slice(0, 200)));
  page.on('console', (m) => { if (m.type() === 'error') page.kixErrors.push(m.text().slice(0, 200)); });
  page.on('request', (r) => page.kixRequests.push({ url: r.url(), t0: Date.now(), t1: 0 }));
  const done = (r) => { const x = page.kixRequests.find((q) => q.url === r.url() && !q.t1); if (x) x.t1 = Date.now(); };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  await page.goto(url, { waitUntil: 'load' });
  if (Date.now() - t > 3000)
    console.log('note: slow: a tab in ' + (opened - t) + ' ms, ' + url.slice(0, 100) + ' loaded in ' + (Date.now() - opened) + ' ms');
  return page;
}

/* ---- the checks ---------------------------------------------------------------------- */

async function pageKinds(browser) {
  const kinds = [
    { name: 'run', url: H + '/runs/' + RUN, verify: true, need: ['#verify-status', '[data-kix-slot="title"]', '[data-kix-slot="median"]'] },
    { name: 'run-superseded', url: H + '/runs/' + OLD, verify: true, need: ['#verify-status', '[data-kix-slot="title"]', '[data-kix-slot="median"]'] },
    { name: 'group', url: H + '/groups/' + GROUP, verify: true, need: ['#verify-status', 'h1'] },
    { name: 'home', url: H + '/', verify: false, need: ['h1'] }
  ];
  /* kernel pages, where this kixd has them */
  const k = await fetch(H + '/kernels/rope');
  if (k.ok) kinds.push({ name: 'kernel', url: H + '/kernels/rope', verify: false, need: ['h1'] });
  /* the export's page 1: the log's counts are search/index.json's, which
   * kix-search.js writes into it (#kix-counts, the kernels table) */
  const copy = await serveDir(EXP, {});
  kinds.push({ name: 'home-export', url: copy.url + '/', verify: false, need: ['h1', '#kix-counts'], counts: true });
  for (const kind of kinds) {
    for (const vp of VIEWPORTS) {
      const page = await open(browser, kind.url, vp), tag = kind.name + ' ' + vp.width + 'x' + vp.height;
      const v = await verdict(page);
      if (kind.verify)
        check(v.state === 'ok', tag + ': verified: ' + v.state + ': ' + v.text.slice(0, 160));
      if (kind.counts) {
        const shown = await page.waitForFunction(() => {
          const c = document.getElementById('kix-counts'), t = document.getElementById('kix-kernels');
          return c.textContent && t.tBodies[0].rows[0].cells[2].textContent ? c.textContent : false;
        }, { timeout: 10000 }).then((h) => h.jsonValue(), () => '');
        check(/^\d+ comparison groups? \u00b7 \d+ ranked runs? \u00b7 \d+ kernels? \u00b7 \d+ log entr(y|ies) \u00b7 $/.test(shown),
              tag + ': kix-search.js shows the log\'s counts: "' + shown + '"');
      }
      const shot = path.join(SHOTS, kind.name + '-' + vp.width + 'x' + vp.height + '.png');
      await page.screenshot({ path: shot });
      for (const sel of kind.need) {
        const s = await firstScreen(page, sel);
        check(s.found && s.inside, tag + ': ' + sel + ' in the first viewport: ' + JSON.stringify(s).slice(0, 200));
        if (sel.includes('median')) check(MEDIAN.test(s.text || ''), tag + ': the median has its unit: "' + s.text + '"');
        if (sel.includes('title')) check((s.text || '').split(' \u00b7 ').length >= 3, tag + ': the header is in words: "' + s.text + '"');
      }
      if (kind.verify && vp.width === 1280) {
        /* a verified page shows no value a script broke (issue 37) */
        const junk = await page.evaluate(() => (document.title + '\n' + document.body.innerText)
          .match(/\[object Object\]|\bundefined\b|\bNaN\b/g));
        check(!junk, tag + ': no [object Object], undefined or NaN on the verified page' + (junk ? ': ' + junk.join(', ') : ''));
      }
      if (kind.name === 'run' && vp.width === 1280) {
        const shapes = await page.evaluate(() => [...document.querySelectorAll('[data-kix-fmt="shape"]')].map((e) => e.textContent));
        check(shapes.length > 0 && shapes.every((t) => /^[a-z0-9]+ \[[0-9]+(, [0-9]+)*\]$/.test(t)),
              tag + ': tensors read like "bf16 [1, 8, 2048, 16]": ' + JSON.stringify(shapes));
      }
      if (vp.width === 1280) {
        const split = await splitWords(page);
        check(split.length === 0, tag + ': no heading, figure or date broken inside a word' + (split.length ? ': ' + split.join(', ') : ''));
        const bad = await axe(page);
        check(bad.length === 0, tag + ': axe-core finds no serious or critical violation' + (bad.length ? ': ' + bad.join('; ') : ''));
      }
      await page.close();
    }
  }
  await copy.close();
}

/* The run page's slots show the proven values. */
async function provenSlots(browser) {
  const page = await open(browser, H + '/runs/' + RUN);
  check((await verdict(page)).state === 'ok', 'the run page verifies');
  const slots = await page.evaluate(() => {
    const t = (n) => { const e = document.querySelector('[data-kix-slot="' + n + '"]'); return e ? e.textContent.trim() : null; };
    const rows = (n) => [...document.querySelectorAll('[data-kix-slot="' + n + '"] tr')].map((r) => [...r.cells].map((c) => c.textContent.trim()));
    return { rank: t('rank'), evidence: t('evidence'), reruns: rows('reruns'), attestations: rows('attestations'),
             entries: rows('entries'), fields: document.querySelectorAll('[data-kix-ptr]').length,
             verified: [...document.querySelectorAll('[data-kix-slot], [data-kix-ptr]')].every((e) => e.getAttribute('data-verified') === 'yes') };
  });
  check(slots.rank === 'Rank 1 of 2', 'rank: ' + slots.rank);
  check(slots.evidence === 'Reproduced by a controlled rerun on 2026-11-20', 'evidence: ' + slots.evidence);
  check(slots.reruns.length === 1 && slots.reruns[0][2] === 'reproduced' && MEDIAN.test(slots.reruns[0][3]),
        'the rerun row, with its own median and unit: ' + JSON.stringify(slots.reruns));
  check(slots.attestations.length === 1 && slots.attestations[0][3] === 'Checked the harness: the forward pass is timed alone.',
        'the attestation with its text: ' + JSON.stringify(slots.attestations));
  check(slots.entries.length === 3, 'three entries about the run: ' + JSON.stringify(slots.entries.map((r) => r[1])));
  check(slots.verified && slots.fields > 10, 'every slot and field cell (' + slots.fields + ') marked data-verified="yes"');
  await page.close();
  const old = await open(browser, H + '/runs/' + OLD);
  check((await verdict(old)).state === 'ok', 'the superseded run verifies');
  const sup = await firstScreen(old, '[data-kix-slot="superseded-by"]');
  check(sup.text === 'Superseded by ' + NEW + ' (entry ' + (Number(SIZE) - 1) + '): the first import read the wrong column',
        'supersession with its reason: ' + sup.text);
  await old.close();
}

/* The verifier from another origin and from a local file. */
async function elsewhere(browser) {
  const html = fs.readFileSync(path.join(EXP, 'runs', RUN), 'utf8');
  /* another origin serves the page and the script; the log is kixd's */
  const other = await serveDir(EXP, {});
  let page = await open(browser, other.url + '/runs/' + RUN + '?kix-base=' + encodeURIComponent(H + '/'));
  let v = await verdict(page);
  check(v.state === 'ok' && v.text.includes('size ' + SIZE), 'loaded from another origin, verified against kixd\'s tiles: ' + v.text.slice(0, 120));
  /* the sentences the exported page leaves to the script (PROTOCOL.md §3,
   * "A run page's shell"), each once and in its place */
  const notes = await page.evaluate(() => ['attestations-note', 'cite-how', 'tiles-note'].map((id) => {
    const e = document.getElementById(id);
    return e ? [e.parentNode.closest('section').id, e.textContent] : null;
  }));
  check(!/id="(attestations-note|cite-how|tiles-note)"/.test(html) && notes[0] && notes[0][0] === 'evidence-section' &&
        /never change the evidence level/.test(notes[0][1]) && notes[1] && notes[1][0] === 'cite' &&
        notes[1][1] === 'As kix cite prints it (--format bibtex, csl-json).' && notes[2] && notes[2][0] === 'log' &&
        /C2SP tlog-tiles, checked against the signed checkpoint\.$/.test(notes[2][1]),
        'the exported run page\'s explaining sentences are built by kix-verify.js: ' + JSON.stringify(notes));
  await page.close();
  await other.close();
  if (PYHTTP) {
    page = await open(browser, PYHTTP + '/runs/' + RUN + '.html');
    v = await verdict(page);
    check(v.state === 'ok', 'the export\'s runs/<id>.html from python3 -m http.server verifies: ' + v.text.slice(0, 120));
    await page.close();
    /* a run the log's growth left untouched: its exported page keeps its
     * proofs at the older size; the verifier computes fresh ones from the
     * export's index tiles */
    const untouched = fs.readdirSync(path.join(EXP, 'runs')).filter((n) => n.endsWith('.html')).find((n) => {
      const x = viewOf('runs/' + n, fs.readFileSync(path.join(EXP, 'runs', n), 'utf8'));
      return String(fullOf('runs/' + n, fs.readFileSync(path.join(EXP, 'runs', n), 'utf8')).treeSize) !== SIZE;
    });
    check(!!untouched, 'the export holds a run page the log\'s growth left untouched');
    if (untouched) {
      page = await open(browser, PYHTTP + '/runs/' + untouched);
      v = await verdict(page);
      check(v.state === 'ok' && v.text.includes('at size ' + SIZE + ':') && v.text.includes('proofs computed from its index tiles'),
            'an untouched run page of the export verifies at the latest size: ' + v.text.slice(0, 400));
      await page.close();
    }
  }
  /* a local file (the page and the script saved side by side) */
  const dir = fs.mkdtempSync(path.join(path.dirname(EXP), 'local-'));
  fs.mkdirSync(path.join(dir, 'runs'));
  fs.writeFileSync(path.join(dir, 'runs', 'page.html'), html);
  fs.copyFileSync(path.join(EXP, 'kix-verify.js'), path.join(dir, 'kix-verify.js'));
  fs.copyFileSync(path.join(EXP, 'style.css'), path.join(dir, 'style.css'));
  page = await open(browser, 'file://' + path.join(dir, 'runs', 'page.html') + '?run=' + RUN + '&kix-base=' + encodeURIComponent(H + '/'));
  v = await verdict(page);
  check(v.state === 'ok', 'a page saved to a file verifies against kixd: ' + v.text.slice(0, 120));
  await page.close();
  page = await open(browser, 'file://' + path.join(dir, 'runs', 'page.html') + '?run=' + OLD + '&kix-base=' + encodeURIComponent(H + '/'));
  v = await verdict(page);
  check(v.state === 'fail', 'a saved page opened as another run\'s is red: ' + v.text.slice(0, 120));
  await page.close();
}

/* KernelBench's sample beside Liger's (issue 40): the group of one problem
 * on the H100 ranks its 6 configurations by mean, verified in the browser,
 * naming its source; a mean-ranked run page verifies too. */
async function kernelBench(browser) {
  const group = process.env.KIX_KB_GROUP, run = process.env.KIX_KB_RUN;
  if (!group || !run) return;
  let page = await open(browser, H + '/groups/' + group);
  let v = await verdict(page);
  check(v.state === 'ok', 'the KernelBench H100 softmax group verifies: ' + v.state + ': ' + v.text.slice(0, 160));
  const g = await page.evaluate(() => ({
    ranks: [...document.querySelectorAll('[data-kix-slot="group-rows"] tr')].map((r) => r.getAttribute('data-rank')),
    source: (document.querySelector('[data-kix-slot="group-source"]') || {}).textContent,
    text: document.body.textContent
  }));
  check(g.ranks.join(',') === '1,2,3,4,5,6', 'the group ranks its 6 configurations: ' + g.ranks.join(','));
  check(g.source === 'kernelbench-baseline-time', 'the group page names its source: ' + g.source);
  check(g.text.includes('ranked by mean latency'), 'the group page says it ranks by the mean');
  /* the speed-up over eager, after verification rewrote the rows */
  const eager = await page.evaluate(() => {
    const head = [...document.querySelectorAll('table.group th')].map((th) => th.textContent);
    const col = head.indexOf('vs eager');
    return { col, cells: col < 0 ? [] : [...document.querySelectorAll('[data-kix-slot="group-rows"] tr')].map((r) => [r.cells[2].textContent, r.cells[col].textContent]) };
  });
  check(eager.col >= 0 && eager.cells.length === 6 && eager.cells.some((c) => c[0] === 'torch' && c[1] === '1.00\u00d7') &&
        eager.cells.every((c) => /^[0-9.]+\u00d7$/.test(c[1])), 'each configuration\'s speed-up over eager: ' + JSON.stringify(eager));
  await page.screenshot({ path: path.join(SHOTS, 'group-kernelbench-1280x900.png') });
  await page.close();
  page = await open(browser, H + '/runs/' + run);
  v = await verdict(page);
  check(v.state === 'ok', 'a KernelBench run page (its mean the primary figure) verifies: ' + v.state + ': ' + v.text.slice(0, 160));
  await page.close();
}

/* Each tamper of issue 26, served from the export with one edit. */
async function tampers(browser) {
  const run = fs.readFileSync(path.join(EXP, 'runs', RUN), 'utf8');
  const old = fs.readFileSync(path.join(EXP, 'runs', OLD), 'utf8');
  const group = fs.readFileSync(path.join(EXP, 'groups', GROUP), 'utf8');
  const runPath = 'runs/' + RUN, oldPath = 'runs/' + OLD, groupPath = 'groups/' + GROUP;
  /* the copy's run view names its objects by the manifest alone (layout 4) */
  const envDigest = JSON.parse(viewOf(runPath, run).manifestCanonical).spec.environmentDigest;
  const envFile = 'objects/' + envDigest;
  const envText = fs.readFileSync(path.join(EXP, envFile), 'utf8');
  /* in its pack or its own file */
  const recEdits = flippedRecord(EXP, 'group/' + GROUP.slice(7));
  /* RUN is its group's #1: a group page's first row */
  const runManifest = viewOf(runPath, run).manifestCanonical;
  const manifestFile = 'objects/sha256:' + crypto.createHash('sha256').update(runManifest).digest('hex');
  const implFile = 'objects/' + JSON.parse(runManifest).spec.implementationDigest;
  const implText = fs.readFileSync(path.join(EXP, implFile), 'utf8');
  const workFile = 'objects/' + JSON.parse(runManifest).spec.workloadDigest;
  const workText = fs.readFileSync(path.join(EXP, workFile), 'utf8');
  const runRecEdits = flippedRecord(EXP, 'run/' + RUN);
  /* its bundle partial, the run's manifest is in its page alone: no
   * objects/ file (PROTOCOL.md section 3, "One manifest a run") */
  check(Object.keys(runRecEdits).length > 0 && !fs.existsSync(path.join(EXP, manifestFile)),
        'the copy holds the #1 row\'s index record, and its manifest in its run page alone');
  const drop = (html, slot) => {
    /* (an exported page names some slots by their ids alone: layout 7) */
    let re = new RegExp('<(\\w+)([^>]*)data-kix-slot="' + slot + '"[^>]*>[\\s\\S]*?</\\1>');
    if (!re.test(html)) re = new RegExp('<(\\w+)([^>]*) id="' + slot + '"[^>]*>[\\s\\S]*?</\\1>');
    if (!re.test(html)) throw new Error('no ' + slot + ' slot');
    return html.replace(re, '');
  };
  const red = [
    /* (a copy's lean view claims no figures: one put in must be the proven ones) */
    ['the view\'s median changed', runPath, editView(runPath, run, (v) => {
      v.primary = { metric: 'latency', unit: 'ns', median: 1, p20: 1, p80: 1 };
    }), 'its primary measurement'],
    ['the canonical manifest\'s median changed', runPath, editView(runPath, run, (v) => {
      v.manifestCanonical = v.manifestCanonical.replace(/"median":(\d)/, (m, d) => '"median":' + (d === '9' ? '8' : '9'));
    }), 'the signed index gives run ' + RUN + ' the manifest'], /* a copy's view names no digest but its text's (layout 7) */
    /* its manifest is #kix-manifest's text (layout 7): one such element,
     * text alone, not said by the view too; its slots' ids said once */
    ['the manifest element\'s text edited', runPath, run.replace(/(<pre hidden id="kix-manifest">[^<]*"median":)(\d)/,
      (m, a, d) => a + (d === '9' ? '8' : '9')), 'the signed index gives run ' + RUN + ' the manifest'],
    ['a second #kix-manifest before the page\'s', runPath, run.replace('<pre hidden id="kix-manifest">',
      '<pre hidden id="kix-manifest">{}</pre>\n<pre hidden id="kix-manifest">'), 'id="kix-manifest" more than once'],
    ['the manifest in the view and in #kix-manifest', runPath, withManifestInView(run), 'says its manifest twice'],
    ['markup in #kix-manifest', runPath, run.replace('<pre hidden id="kix-manifest">{', '<pre hidden id="kix-manifest"><b>{</b>'),
      'holds markup'],
    ['a slot\'s id said twice (a second title)', runPath, run.replace('<h1 id="t">', '<p id="t">Fast</p><h1 id="t">'),
      'id="t" more than once'],
    ['the best run changed', runPath, editView(runPath, run, (v) => { v.rank = { group: GROUP, rank: 1, groupSize: 2, best: OLD, bestValue: 1 }; }), 'the signed index proves group'],
    ['the copy\'s environment object changed', runPath, run, 'hashes to', { [envFile]: envText.replace('"product":"', '"product":"NVIDIA H100 ') }],
    ['the copy\'s environment object missing', runPath, run, envFile, { [envFile]: null }],
    ['objects put back in the view, the environment changed', runPath, editView(runPath, run, (v) => {
      const o = JSON.parse(envText); o.spec.hardware.product = 'NVIDIA H100';
      v.objects = [{ digest: envDigest, kind: 'ExecutionEnvironment', object: o }];
    }), 'hashes to'],
    ['the view\'s checkpoint changed', runPath, editView(runPath, run, (v) => { v.checkpoint = v.checkpoint.replace(/\n(\d+)\n/, (m, n) => '\n' + (Number(n) + 1) + '\n'); }), 'signature'],
    ['the rerun entry removed', runPath, editView(runPath, run, (v) => { v.entries = v.entries.filter((e) => e.type !== 'rerun'); v.reruns = []; }), 'the signed index commits 3'],
    ['the attestation entry removed', runPath, editView(runPath, run, (v) => { v.entries = v.entries.filter((e) => e.type !== 'attestation'); }), 'the signed index commits 3'],
    ['the reruns table removed', runPath, drop(run, 'reruns'), 'data-kix-slot="reruns"'],
    ['a rerun\'s manifest with another median', runPath, editView(runPath, run, (v) => {
      v.reruns[0].manifestCanonical = v.reruns[0].manifestCanonical.replace(/"median":(\d)/, (m, d) => '"median":' + (d === '9' ? '8' : '9'));
    }), 'the manifest shown for the rerun at entry'],
    ['a rerun\'s median claim changed', runPath, editView(runPath, run, (v) => { v.reruns[0].primary.median += 1000; }), 'a rerun\u2019s figures'],
    ['a rerun without its manifest', runPath, editView(runPath, run, (v) => { delete v.reruns[0].manifestCanonical; }), 'does not carry the manifest of the rerun'],
    ['the attestations table removed', runPath, drop(run, 'attestations'), 'data-kix-slot="attestations"'],
    ['the median removed', runPath, drop(run, 'median'), 'data-kix-slot="median"'],
    ['"Superseded by" removed', oldPath, drop(old, 'superseded-by'), 'data-kix-slot="superseded-by"'],
    ['"Superseded by" hidden', oldPath, old.replace('data-kix-slot="superseded-by"', 'data-kix-slot="superseded-by" style="display:none"'), 'the page hides'],
    ['the supersession left out of the view', oldPath, editView(oldPath, old, (v) => { delete v.supersededBy; v.entries = v.entries.filter((e) => e.type !== 'supersession'); }), 'the signed index commits 2'],
    ['another run\'s whole page at /runs/' + RUN, runPath, old, 'the page says it shows run ' + OLD],
    /* the exported page reads the view at its own address; kixd's carries one */
    /* (a copy's view is of the run its pin names since layout 7: the other run's manifest is not this run's) */
    ['another run\'s page (its view embedded) with its data-run changed', runPath,
      (VIEW.test(old) ? old : withView(old, viewOf(oldPath, old))).replace('data-run="' + OLD + '"', 'data-run="' + RUN + '"'), 'the signed index gives run ' + RUN + ' the manifest'],
    ['the copy\'s index note at the page\'s size missing', runPath, run, 'the index files', { ['index/notes/' + fullOf(runPath, run).treeSize]: null }],
    ['the copy\'s record of the run\'s group changed', runPath, run, 'does not hash to its name', recEdits],
    ['data-run removed', runPath, run.replace(/ data-run="[^"]*"/, ''), 'data-run'],
    ['another manifest (digest and text) in the view', runPath, editView(runPath, run, (v) => {
      const o = viewOf(oldPath, old);
      v.manifestDigest = o.manifestDigest; v.manifestCanonical = o.manifestCanonical; v.manifest = o.manifest;
    }), 'the signed index gives run ' + RUN + ' the manifest'],
    ['a group\'s last row dropped', groupPath, editView(groupPath, group, (v) => { v.rows.pop(); }), 'the signed index proves'],
    ['a fake row in a group', groupPath, editView(groupPath, group, (v) => { v.rows.push(Object.assign({}, v.rows[0], { rank: v.rows.length + 1, runId: 'fake' })); }), 'fake'],
    ['a group\'s size edited', groupPath, editView(groupPath, group, (v) => { v.size += 90; }), 'the signed index proves'],
    ['a group page without its rows', groupPath, drop(group, 'group-rows'), 'data-kix-slot="group-rows"'],
    ['a group page without index proofs, nor the copy\'s index note', groupPath, editView(groupPath, group, (v) => { delete v.index; }), 'the index files', { ['index/notes/' + fullOf(groupPath, group).treeSize]: null }],
    ['a group row\'s provider edited', groupPath, editView(groupPath, group, (v) => { v.rows[0].provider += ' (edited)'; }), 'its provider'],
    ['a group row\'s implementation edited', groupPath, editView(groupPath, group, (v) => { v.rows[0].implementation += ' (edited)'; }), 'its implementation'],
    ['a group row\'s evidence edited', groupPath, editView(groupPath, group, (v) => {
      v.rows[0].evidence = v.rows[0].evidence === 'reported' ? 'reproduced' : 'reported';
    }), 'its evidence'],
    /* the copy's group view (layout 4) names each row's run: its manifest
     * and Implementation object are the copy's objects/, its record and
     * proof its index/ files */
    ['a group row\'s manifest put back in the view, edited', groupPath, editView(groupPath, group, (v) => {
      v.rows[0].manifestCanonical = runManifest.replace('"observedAt":"2', '"observedAt":"1');
    }), 'the manifest shown hashes to'],
    ['the copy\'s manifest object of a group row changed', groupPath, group, 'hashes to',
      { [manifestFile]: runManifest.replace('"observedAt":"2', '"observedAt":"1') }],
    /* a row's manifest is objects/<digest> or its run's page's (PROTOCOL.md
     * section 3, "One manifest a run"): missing from both, or changed in the
     * page when the file is missing, is red */
    ['the copy\'s manifest object of a group row missing, and its run page', groupPath, group, manifestFile,
      { [manifestFile]: null, [runPath]: null, [runPath + '.html']: null }],
    ['the copy\'s manifest object of a group row missing, its run page\'s manifest changed', groupPath, group,
      'the manifest shown hashes to', { [manifestFile]: null, [runPath + '.html']: editView(runPath, run, (v) => {
        v.manifestCanonical = v.manifestCanonical.replace('"observedAt":"2', '"observedAt":"1');
      }) }],
    /* read from the run's page text, as kix's HTTP source reads it: only
     * &lt; &gt; &amp; in #kix-manifest */
    ['the copy\'s manifest object of a group row missing, its run page\'s manifest with &quot;', groupPath, group,
      'carries no manifest, or one not as one element', { [manifestFile]: null, [runPath + '.html']: run.replace(
        /(<pre hidden id="kix-manifest">[^<]*?)"/, (m, a) => a + '&quot;') }],
    ['the copy\'s manifest object of a group row missing, a second #kix-manifest in its run page', groupPath, group,
      'carries no manifest, or one not as one element', { [manifestFile]: null, [runPath + '.html']: run.replace(
        '<script type="application/json" id="kix-view">', '<pre hidden id="kix-manifest">{}</pre>\n<script type="application/json" id="kix-view">') }],
    ['the copy\'s implementation object of a group row changed', groupPath, group, 'the implementation ' + implFile.slice(8),
      { [implFile]: implText.replace('"name":"', '"name":"Fast ') }],
    ['the copy\'s implementation object of a group row missing', groupPath, group, implFile, { [implFile]: null }],
    ['the copy\'s index record of a group row changed', groupPath, group, 'does not hash to its name', runRecEdits],
    ['the copy\'s workload object of the group (its title) changed', groupPath, group, 'object shown is not the one',
      { [workFile]: workText.replace('"kernel":"', '"kernel":"x') }],
    ['the copy\'s environment object of the group (its title) missing', groupPath, group, 'objects/' + envDigest, { [envFile]: null }],
    ['a group\'s rows reordered in its view', groupPath, editView(groupPath, group, (v) => {
      v.rows.reverse();
    }), 'row 1'],
    ['a group\'s rows reordered in its view, their ranks kept in order', groupPath, editView(groupPath, group, (v) => {
      v.rows.reverse(); v.rows.forEach((r, i) => { r.rank = i + 1; });
    }), 'row 1'],
    ['a group\'s first row dropped from its view', groupPath, editView(groupPath, group, (v) => { v.rows.shift(); }), 'the signed index proves']
  ];
  if (EXP_OLD) {
    const stale = fs.readFileSync(path.join(EXP_OLD, 'runs', RUN), 'utf8');
    red.push(['the page (its view embedded) of an older export, the tiles of today\'s', runPath, stale, 'older than the log\u2019s latest checkpoint']);
  }
  /* each tamper on its own server and tab, three at a time: a page spends
   * most of its time waiting on its fetches, so they overlap well */
  await inTurn(red, 3, async ([what, p, body, want, more]) => {
    /* { json }: the page as exported, its <p>.json edited */
    const edit = body && body.json !== undefined ? { [p + '.json']: body.json } : { [p]: body };
    const srv = await serveDir(EXP, Object.assign(edit, more || {}));
    let page = await open(browser, srv.url + '/' + p);
    let v = await verdict(page);
    if (v.state === 'timeout') { /* once more in a new tab: a tab stuck twice fails */
      note('opening ' + p + ' (' + what + ') again after its timeout');
      await page.close();
      page = await open(browser, srv.url + '/' + p);
      v = await verdict(page);
    }
    const banner = await firstScreen(page, '#verify-status');
    check(v.state === 'fail' && v.text.includes(want) && banner.inside,
          'red, at the top: ' + what + ': ' + v.state + ': ' + v.text.slice(0, 200));
    await page.close();
    await srv.close();
  });

  /* visible text alone edited: the verifier writes the proven values over it */
  const shown = [
    ['the displayed median', 'median', '1.00 ns'],
    ['the displayed rank', 'rank', 'Rank 1 of 1'],
    ['the printed checkpoint', 'checkpoint', 'kix.test/log\n1\nAAAA\n'],
    ['the displayed evidence', 'evidence', 'Reproduced by a controlled rerun on 2030-01-01']
  ];
  for (const [what, slot, lie] of shown) {
    const re = new RegExp('(<(\\w+)[^>]*data-kix-slot="' + slot + '"[^>]*>)[\\s\\S]*?(</\\2>)');
    const srv = await serveDir(EXP, { [runPath]: run.replace(re, (m, a, t, b) => a + lie + b) });
    const page = await open(browser, srv.url + '/' + runPath);
    const v = await verdict(page);
    const s = await firstScreen(page, '[data-kix-slot="' + slot + '"]');
    check(v.state === 'ok' && s.text !== lie.trim() && s.text.length > 0,
          'text edited, proven value shown: ' + what + ': "' + s.text.slice(0, 60) + '"');
    await page.close();
    await srv.close();
  }
  /* an environment table's cell edited: recomputed from the proven object.
   * An exported page's field cells are plain cells, named by their place:
   * the script gives each its pointer from the manifest (PROTOCOL.md
   * section 3, "Field cells by position"), then proves it */
  {
    check(!run.includes('data-kix-ptr=') && run.includes('<table class="kv">'),
          'the exported run page names no field cell and no table object');
    const sel = '<tr><th>form factor<td>';
    const at = run.indexOf(sel);
    check(at > 0, 'the run page has an environment cell for the GPU form factor');
    const end = run.indexOf('\n', at);
    const proven = run.slice(at + sel.length, end);
    const srv = await serveDir(EXP, { [runPath]: run.slice(0, at + sel.length) + 'PCIe-made-up' + run.slice(end) });
    const page = await open(browser, srv.url + '/' + runPath);
    const v = await verdict(page);
    const s = await page.evaluate((q) => { const e = document.querySelector('[' + q + ']');
      return [e.textContent, e.getAttribute('data-kix-object'), e.getAttribute('data-verified')]; },
                                  'data-kix-ptr="/spec/hardware/formFactor"');
    check(v.state === 'ok' && s[0] === proven && s[0] !== 'PCIe-made-up' && s[1] === 'environmentDigest' && s[2] === 'yes',
          'text edited, proven value shown: the environment table\'s form factor: "' + s[0] + '"');
    await page.close();
    await srv.close();
  }
  /* a manifest cell edited: recomputed from the proven manifest, as text */
  {
    const sel = '<tr><th>observed at<td>';
    const at = run.indexOf(sel);
    check(at > 0, 'the run page has an observed-at cell');
    const end = run.indexOf('\n', at);
    const proven = JSON.parse(viewOf(runPath, run).manifestCanonical).spec.observedAt;
    const srv = await serveDir(EXP, { [runPath]: run.slice(0, at + sel.length) + '1999-01-01T00:00:00Z' + run.slice(end) });
    const page = await open(browser, srv.url + '/' + runPath);
    const v = await verdict(page);
    const s = await page.evaluate(() => { const e = document.querySelector('[data-kix-ptr="/spec/observedAt"]'); return [e.textContent, e.getAttribute('data-verified')]; });
    check(v.state === 'ok' && s[0] === proven && s[1] === 'yes',
          'text edited, proven value shown: a manifest cell named by its place: "' + s[0] + '"');
    await page.close();
    await srv.close();
  }
  /* a field row added to an exported page's table: its rows are not the
   * manifest's, its cells are left unproven (not named, not filled) */
  {
    const sel = '<tr><th>form factor<td>';
    const at = run.indexOf(sel);
    const srv = await serveDir(EXP, { [runPath]: run.slice(0, at) + '<tr><th>extra</th><td>made up</td></tr>\n' + run.slice(at) });
    const page = await open(browser, srv.url + '/' + runPath);
    await verdict(page);
    const s = await page.evaluate(() => [...document.querySelectorAll('#environment td')].filter((e) => e.getAttribute('data-verified') === 'no').length);
    check(s > 0, 'a row added to a section table: its cells are marked unproven (' + s + ')');
    await page.close();
    await srv.close();
  }
  /* an older page beside today's JSON (layout 3) has no counterpart in
   * layout 4: the view is the page's own and there is no JSON beside it.
   * An older page of a run whose entries grew is red (tampers, "the page
   * (its view embedded) of an older export"); one the log's growth left
   * untouched verifies at the latest size (elsewhere). */
}

/* Issue 37, "labels the reader has to guess": each page says what its
 * figures are, links its kernel's page, shows "none yet" instead of an
 * empty table, counts in the right number, and the kernel's charts keep a
 * readable size on a phone (the chart scrolls sideways). */
async function labels(browser) {
  const look = async (url, vp, fn) => {
    const page = await open(browser, url, vp);
    await verdict(page);
    const r = await page.evaluate(fn);
    await page.close();
    return r;
  };
  const home = await look(H + '/', VIEWPORTS[0], () => document.body.innerText);
  check(!/\b1 (kernels|comparison groups|ranked runs)\b/.test(home) && /\b(1 kernel|\d+ kernels)\b/.test(home) &&
        !/\b([02-9]|\d\d+) kernel\b/.test(home),
        'the home page counts in the right number: ' + home.split('\n').find((l) => /kernel/.test(l)));
  const kernelLink = () => [...document.querySelectorAll('a')].some((a) => /\/kernels\/rope\.html$/.test(a.href) && a.checkVisibility());
  check(await look(H + '/runs/' + RUN, VIEWPORTS[0], kernelLink), 'the run page links its kernel\'s page');
  check(await look(H + '/groups/' + GROUP, VIEWPORTS[0], kernelLink), 'the group page links its kernel\'s page');
  const vs = await look(H + '/groups/' + GROUP, VIEWPORTS[0], () => {
    const th = [...document.querySelectorAll('th')].find((t) => t.textContent.trim() === 'vs #1');
    const legend = document.body.innerText.split('\n').find((l) => l.startsWith('vs #1:'));
    return { title: th && th.querySelector('[title]') ? th.querySelector('[title]').title : '', legend };
  });
  check(/median/.test(vs.title) && /divided by this run/.test(vs.legend || ''), '"vs #1" is explained: ' + JSON.stringify(vs));
  const none = await look(H + '/runs/' + OLD, VIEWPORTS[0], () => ['reruns', 'attestations'].map((id) => ({
    table: document.getElementById(id).checkVisibility(),
    message: document.body.innerText.includes('No ' + (id === 'reruns' ? 'controlled reruns' : 'attestations') + ' yet.') })));
  check(none.every((x) => x.message && !x.table), 'a run without reruns or attestations says so, with no empty table: ' + JSON.stringify(none));
  const k = await fetch(H + '/kernels/rope');
  if (k.ok) {
    const metric = await look(H + '/kernels/rope', VIEWPORTS[0], () => {
      const t = [...document.querySelectorAll('h3 + .table-wrap table')][0];
      const heads = [...t.querySelectorAll('th')].map((h) => h.textContent);
      const col = heads.indexOf('metric');
      return { heads, cells: [...t.querySelectorAll('tbody tr')].map((r) => r.cells[col] && r.cells[col].textContent) };
    });
    check(metric.heads.includes('metric') && metric.cells.length && metric.cells.every((c) => c === 'latency' || c === 'peak memory'),
          'the kernel page names each group\'s metric: ' + JSON.stringify(metric).slice(0, 200));
    const charts = await look(H + '/kernels/rope', VIEWPORTS[1], () => [...document.querySelectorAll('figure.sweep svg')]
      .map((svg) => Math.round(svg.getBoundingClientRect().width)));
    check(charts.length && charts.every((w) => w >= 600), 'the kernel page\'s charts keep their drawn size at 390 px (scrolling): ' + JSON.stringify(charts));
  }
}

/* Issue 37, "the page shows things it did not prove", and issue 42, "every
 * page pins its log": the page's own script unchanged, each edit either
 * turns the page red or is written over by what was proven. */
async function reader(browser) {
  const run = fs.readFileSync(path.join(EXP, 'runs', RUN), 'utf8');
  const group = fs.readFileSync(path.join(EXP, 'groups', GROUP), 'utf8');
  const view = fullOf('runs/' + RUN, fs.readFileSync(path.join(EXP, 'runs', RUN), 'utf8'));
  const named = JSON.parse(view.manifestCanonical).spec;
  const KINDS = { Workload: 'workloadDigest', ExecutionEnvironment: 'environmentDigest', Implementation: 'implementationDigest', Protocol: 'protocolDigest' };
  const obj = (kind) => JSON.parse(fs.readFileSync(path.join(EXP, 'objects', named[KINDS[kind]]), 'utf8')).spec;
  const gpu = obj('ExecutionEnvironment').hardware.product, impl = obj('Implementation').name;
  const runPath = 'runs/' + RUN, groupPath = 'groups/' + GROUP;
  const visible = (p) => p.evaluate(() => document.title + '\n' + document.body.innerText);
  const cases = [
    ['the GPU name edited in the page\'s text', runPath, run.split(gpu).join('NVIDIA H100 (edited)'), async (p, v) => {
      const t = await visible(p);
      if (t.includes('(edited)')) console.log('note: shown: ' + t.split('\n').filter((l) => l.includes('(edited)')).join(' | '));
      return v.state === 'fail' || (!t.includes('(edited)') && t.includes(gpu) && v.text.includes(gpu));
    }],
    ['the implementation name edited in the page\'s text', runPath, run.split('>' + impl).join('>FastKern (edited)')
      .split(impl + ' \u00b7').join('FastKern (edited) \u00b7').split('{' + impl).join('{FastKern (edited)'), async (p, v) => {
      const t = await visible(p);
      return v.state === 'fail' || (!t.includes('(edited)') && v.text.includes(impl));
    }],
    ['the GPU name edited in the group page\'s text', groupPath, group.split(gpu).join('NVIDIA H100 (edited)'), async (p, v) => {
      const t = await visible(p);
      const h1 = await p.evaluate(() => document.querySelector('[data-kix-slot="group-title"]').getAttribute('data-verified'));
      return v.state === 'fail' || (!t.includes('(edited)') && t.includes(gpu) && h1 === 'yes');
    }],
    ['the computed rows (comparison key, digest, source) and the correctness note edited', runPath,
      run.replace(/(<th>(comparison key|digest|source)<td data-w>)[^<\n]*/g, '$1edited').replace(/Marked passed by the source/, 'Marked edited by the source'), async (p, v) => {
        const rows = await p.evaluate(() => [...document.querySelectorAll('[data-kix-words], [data-kix-slot="section-note"]')].map((e) => [e.getAttribute('data-kix-words'), e.textContent, e.getAttribute('data-verified')]));
        if (!rows.some((r) => /^Marked passed/.test(r[1]))) return false;
        const by = Object.fromEntries(rows.map((r) => [r[0], r]));
        return v.state === 'fail' || (rows.length >= 3 && rows.every((r) => r[1] !== 'edited' && r[2] === 'yes') &&
                                      by.digest[1] === view.manifestDigest && by['comparison-key'][1] === GROUP);
      }],
    ['the attestation\'s log-entries row removed', runPath, run.replace(/<tr [^>]*data-type="attestation"[^>]*>[^\n]*\n?/, ''), async (p, v) => {
      const types = await p.evaluate(() => [...document.querySelectorAll('[data-kix-slot="entries"] tr')].map((r) => r.cells[1].textContent));
      return v.state === 'fail' || types.includes('attestation');
    }],
    ['every group row but the last hidden by a style attribute', groupPath, (() => {
      const n = (group.match(/<tr data-rank=/g) || []).length;
      let i = 0;
      return group.replace(/<tr data-rank=/g, (m) => (++i < n ? '<tr style="display:none" data-rank=' : m));
    })(), async (p, v) => {
      const shown = await p.evaluate(() => [...document.querySelectorAll('[data-kix-slot="group-rows"] tr')].map((r) => r.checkVisibility()));
      return v.state === 'fail' || (shown.length > 1 && shown.every((x) => x));
    }],
    ['the group page\'s rows reordered in its HTML', groupPath, (() => {
      const rows = group.match(/<tr data-rank=[^\n]*\n/g) || [];
      return rows.length < 2 ? '' : group.replace(rows.join(''), rows.slice().reverse().join(''));
    })(), async (p, v) => groupRowsProven(p, v)],
    ['the group page\'s first row dropped from its HTML', groupPath, group.replace(/<tr data-rank=[^\n]*\n/, ''),
      async (p, v) => groupRowsProven(p, v)],
    ['a row added to the group page\'s HTML', groupPath, group.replace(/(<tr data-rank=[^\n]*\n)/, (m) => m + m.replace(/data-rank="1"/, 'data-rank="2"')),
      async (p, v) => groupRowsProven(p, v)],
    ['every group row but the last hidden by the page\'s stylesheet', groupPath,
      group.replace('</head>', '<style>tbody tr:not(:last-child){display:none}</style></head>'), async (p, v) => v.state === 'fail' && v.text.includes('hides row')]
  ];
  if (EXP_OLD)
    cases.push(['the page of an older export beside today\'s JSON, tiles and checkpoint', runPath,
      fs.readFileSync(path.join(EXP_OLD, 'runs', RUN), 'utf8'), async (p, v) => {
        const t = await visible(p);
        const size = await p.evaluate(() => (document.querySelector('[data-kix-slot="tree-size"]') || {}).textContent);
        return v.state === 'fail' || (!t.includes('No controlled reruns yet.') && !t.includes('No attestations yet.') &&
                                      size === SIZE && t.includes('Reproduced by a controlled rerun'));
      }]);
  /* a group page whose rows were edited in its HTML: red, or the rows
   * shown are the proven ones, in the proven order, each marked proven */
  async function groupRowsProven(p, v) {
    if (v.state === 'fail') return true;
    const r = await p.evaluate(() => {
      const t = document.querySelector('[data-kix-slot="group-rows"]');
      return { ok: t.getAttribute('data-verified'), runs: [...t.querySelectorAll('tr')].map((tr) => tr.getAttribute('data-run')) };
    });
    const want = viewOf(groupPath, group).rows.map((x) => x.runId);
    return v.state === 'ok' && r.ok === 'yes' && JSON.stringify(r.runs) === JSON.stringify(want);
  }
  await inTurn(cases, 3, async ([what, p, body, ok]) => {
    const srv = await serveDir(EXP, { [p]: body });
    const page = await open(browser, srv.url + '/' + p);
    const v = await verdict(page);
    check(await ok(page, v), what + ': red, or every value the page shows proven: ' + v.state + ': ' + v.text.slice(0, 240));
    await page.close();
    await srv.close();
  });
  /* the green line names what it proved */
  {
    const page = await open(browser, H + '/' + runPath);
    const v = await verdict(page);
    check(v.state === 'ok' && ['run ' + RUN, gpu, impl, 'median ', 'rank 1 of 2', 'Reproduced by a controlled rerun'].every((w) => v.text.includes(w)),
          'the green line names the run, GPU, implementation, median, rank and evidence: ' + v.text.slice(0, 300));
    await page.close();
  }
  /* the staleness line and the links to the run's group: written by the verifier */
  {
    const oldHtml = fs.readFileSync(path.join(EXP, 'runs', OLD), 'utf8');
    /* (an exported page names them by their ids: a, g; layout 7) */
    const server = /(?:data-kix-slot="staleness"|id="a")>([^<]*)</.exec(oldHtml);
    const srv = await serveDir(EXP, { [runPath]: run.replace(/id="a">[^<]*</, 'id="a">Re-observed yesterday.<')
      .replace(/href="\.\.\/groups\/[^"]*" id="g"/g, 'href="../groups/sha256:' + '0'.repeat(64) + '" id="g"') });
    let page = await open(browser, srv.url + '/' + runPath);
    let v = await verdict(page);
    const got = await page.evaluate(() => ({ stale: document.querySelector('[data-kix-slot="staleness"]').textContent,
      links: [...document.querySelectorAll('[data-kix-slot="group-link"]')].map((a) => a.getAttribute('href')) }));
    const runStale = /id="a">([^<]*)</.exec(run);
    check(v.state === 'ok' && runStale && got.stale === runStale[1] && got.stale !== 'Re-observed yesterday.' && got.links.length === 1 && got.links.every((h) => h.endsWith('/groups/' + GROUP + '.html')),
          'an edited staleness line and group links are written over by the proven ones: ' + JSON.stringify(got));
    await page.close();
    await srv.close();
    page = await open(browser, H + '/runs/' + OLD);
    v = await verdict(page);
    const stale = await page.evaluate(() => { const e = document.querySelector('[data-kix-slot="staleness"]'); return [e.textContent, e.getAttribute('data-verified')]; });
    check(v.state === 'ok' && server && /^Not re-observed in \d+ days\.$/.test(stale[0]) && stale[0] === server[1] && stale[1] === 'yes',
          'the staleness of a run last observed long ago, proven, as the server wrote it: ' + JSON.stringify(stale) + ' vs ' + (server && server[1]));
    await page.close();
  }
  /* the group's words the verifier writes are the server's, proven, from
   * kixd's view and from the copy's (its title objects read from objects/) */
  const copySrv = await serveDir(EXP, {});
  for (const base of [H, copySrv.url]) {
    const page = await open(browser, base + '/' + groupPath);
    const v = await verdict(page);
    const h1 = await page.evaluate(() => { const e = document.querySelector('[data-kix-slot="group-title"]'); return [e.textContent, e.getAttribute('data-verified')]; });
    const server = /data-kix-slot="group-title">([^<]*)</.exec(group)[1];
    check(v.state === 'ok' && h1[0] === server && h1[1] === 'yes', 'the group\'s title, proven, reads as the server wrote it (' + (base === H ? 'kixd' : 'the copy') + '): ' + JSON.stringify(h1) + ' vs ' + server);
    await page.close();
  }
  await copySrv.close();
  /* ?kix-base= at a copy rolled back to an older size, and at another log's copy */
  const here = await serveDir(EXP, {});
  const keyName = (k) => k.split('+').slice(0, 2).join('+');
  for (const [what, dir, ok, shot] of [
    ['a copy rolled back to an older size', EXP_OLD, (v, old) => v.state === 'stale' &&
      v.text.includes('size ' + old.treeSize + ', older than the size ' + SIZE), 'run-stale'],
    ['another log\'s copy (the same origin, another key)', EXP_OTHER, (v, other) => v.state === 'fail' &&
      v.text.includes(keyName(view.logKey)) && v.text.includes(keyName(other.logKey)) && keyName(view.logKey) !== keyName(other.logKey), 'run-another-key']]) {
    if (!dir) continue;
    const copy = await serveDir(dir, {});
    const theirs = fullOf('runs/' + RUN, fs.readFileSync(path.join(dir, 'runs', RUN), 'utf8'));
    for (const p of [runPath, groupPath]) {
      if (p === groupPath && !fs.existsSync(path.join(dir, 'groups', GROUP + '.json'))) continue;
      const page = await open(browser, here.url + '/' + p + '?kix-base=' + encodeURIComponent(copy.url + '/'));
      const v = await verdict(page);
      check(ok(v, theirs), p.split('/')[0] + ' page, ?kix-base= at ' + what + ': ' + v.state + ': ' + v.text.slice(0, 300));
      /* what the reader sees of it, at both sizes */
      if (p === runPath)
        for (const vp of VIEWPORTS) {
          await page.setViewport(vp);
          await page.screenshot({ path: path.join(SHOTS, shot + '-' + vp.width + 'x' + vp.height + '.png') });
        }
      await page.close();
    }
    await copy.close();
  }
  await here.close();
}

(async () => {
  const browser = null; /* newPage() launches and relaunches chromium */
  const t0 = Date.now();
  try {
    /* each part's time, so a slow run shows where it went */
    for (const part of [pageKinds, provenSlots, kernelBench, elsewhere, tampers, reader, labels]) {
      const t = Date.now();
      await part(browser);
      console.log('time: ' + part.name + ' ' + ((Date.now() - t) / 1000).toFixed(1) + ' s');
    }
  } finally {
    await closeBrowser(chrome.browser, note);
  }
  console.log('time: all ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed || !passed ? 1 : 0);
})().catch((e) => { console.log('ERROR: ' + (e && e.stack || e)); process.exit(1); });
