/* withdrawn.js: moderation in the open (issue 41) in Debian's chromium, for
 * test_pages.sh, after a curator withdrew RUN, its group's #1. Arguments:
 * kixd's HTTP base, the export directory, RUN, its group, the screenshot
 * directory. It checks:
 *   - kixd's group page verifies, its ranks start at 1 without RUN (the
 *     rest closed up), and RUN is listed under the table, greyed, with its
 *     reason and entry, the list written from what was proven;
 *   - kixd's run page verifies and says "Withdrawn from ranking", proven;
 *   - the export's pages, tampered, turn red: the withdrawal left out of the
 *     group's document, another run listed as withdrawn, the withdrawal
 *     dropped from the run's document, the run page's sentence removed.
 * Prints "N passed, M failed" and exits 1 on any failure. */
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const puppeteer = require('./node_modules/puppeteer-core');
const { flippedRecord } = require('./index_records');
const { LAUNCH, closeBrowser } = require('./chromium');

const [H, EXP, RUN, GROUP, SHOTS] = process.argv.slice(2);
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) { passed++; console.log('ok: ' + what); } else { failed++; console.log('FAIL: ' + what); }
}

/* The export directory served, with edits (path -> text). */
function serveDir(dir, edits) {
  const srv = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname).slice(1);
    let body = Object.prototype.hasOwnProperty.call(edits, p) ? edits[p] : undefined;
    if (body === undefined) {
      const f = path.join(dir, p);
      body = f.startsWith(dir) && fs.existsSync(f) && fs.statSync(f).isFile() ? fs.readFileSync(f) : null;
    }
    if (body === null) { res.writeHead(404); return res.end('not found'); }
    const type = p.endsWith('.json') ? 'application/json' : p.endsWith('.js') ? 'text/javascript'
      : p.endsWith('.css') ? 'text/css' : p === 'checkpoint' ? 'text/plain'
      : p.startsWith('tile/') || p.startsWith('index/') ? 'application/octet-stream' : 'text/html; charset=utf-8';
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(body);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({
    url: 'http://127.0.0.1:' + srv.address().port,
    close: () => { const c = new Promise((r) => srv.close(r)); srv.closeAllConnections(); return c; }
  })));
}

async function verdict(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById('verify-status');
    return !s || !['none', 'running'].includes(s.getAttribute('data-state'));
  }, { timeout: 30000 });
  return page.evaluate(() => {
    const s = document.getElementById('verify-status');
    return s ? { state: s.getAttribute('data-state'), text: s.textContent } : { state: 'absent', text: '' };
  });
}

async function open(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

(async () => {
  const browser = await puppeteer.launch(LAUNCH);
  try {
    /* kixd's group page: re-ranked, the withdrawn run listed under the table */
    let page = await open(browser, H + '/groups/' + GROUP);
    let v = await verdict(page);
    check(v.state === 'ok', 'the re-ranked group page verifies: ' + v.text.slice(0, 140));
    const g = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('[data-kix-slot="group-rows"] tr')];
      const wd = document.querySelector('[data-kix-slot="group-withdrawn"]');
      const cs = wd && wd.querySelector('tr.withdrawn') && getComputedStyle(wd.querySelector('tr.withdrawn'));
      return {
        ranks: rows.map((tr) => [tr.getAttribute('data-rank'), tr.getAttribute('data-run')]),
        withdrawn: wd ? [...wd.querySelectorAll('tr.withdrawn')].map((tr) =>
          [tr.getAttribute('data-run'), tr.cells[0].textContent, tr.cells[1].textContent]) : null,
        verified: wd && wd.getAttribute('data-verified'),
        grey: cs ? cs.color : '', visible: !!(wd && wd.checkVisibility())
      };
    });
    check(g.ranks.length > 0 && g.ranks[0][0] === '1' && !g.ranks.some((r) => r[1] === RUN),
          'its ranks start at 1 without the withdrawn run: ' + JSON.stringify(g.ranks));
    check(g.withdrawn && g.withdrawn.length === 1 && g.withdrawn[0][0] === RUN &&
          g.withdrawn[0][1] === 'invalid-timing' && /^log entry \d+$/.test(g.withdrawn[0][2]) &&
          g.verified === 'yes' && g.visible,
          'the withdrawn run under the table, with its reason and entry, proven: ' + JSON.stringify(g));
    check(g.grey === 'rgb(102, 102, 102)', 'the withdrawn row is greyed: ' + g.grey);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'group-withdrawn-1280.png'), fullPage: true });
    await page.close();

    /* kixd's run page: stays, marked withdrawn */
    page = await open(browser, H + '/runs/' + RUN);
    v = await verdict(page);
    const w = await page.evaluate(() => {
      const el = document.querySelector('[data-kix-slot="withdrawn"]');
      return el ? { text: el.textContent, verified: el.getAttribute('data-verified') } : null;
    });
    const rank = await page.evaluate(() => document.getElementById('rank').textContent);
    check(v.state === 'ok' && w && w.verified === 'yes' &&
          /^Withdrawn from ranking \(log entry \d+, \d{4}-\d\d-\d\d, by the curator, key [0-9a-f]{16}\): invalid-timing: the timed calls were batched into one launch\.$/.test(w.text) &&
          rank === 'Not ranked',
          'the run page verifies and says it is withdrawn: ' + JSON.stringify(w) + ' ' + rank);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'run-withdrawn-1280.png') });
    await page.close();

    /* the export, tampered: each turns the page red */
    const groupJson = JSON.parse(fs.readFileSync(path.join(EXP, 'groups', GROUP + '.json'), 'utf8'));
    const runHtml = fs.readFileSync(path.join(EXP, 'runs', RUN), 'utf8');
    /* the run's view is in its page (layout 4) */
    const VIEW = /(<script type="application\/json" id="kix-view">)([\s\S]*?)(<\/script>)/;
    const runJson = JSON.parse(VIEW.exec(runHtml)[2]);
    const edit = (doc, fn) => { const x = JSON.parse(JSON.stringify(doc)); fn(x); return JSON.stringify(x); };
    const inPage = (text) => runHtml.replace(VIEW, (m, a, b, c) => a + text.replace(/\//g, '\\/').replace(/</g, '\\u003c') + c);
    /* in its pack or its own file */
    const withdrawnRec = flippedRecord(EXP, 'withdrawn/' + GROUP.slice(7));
    check(Object.keys(withdrawnRec).length === 1, 'the copy holds the group\'s withdrawn record');
    const red = [
      ['the withdrawal left out of the group\'s document', 'groups/' + GROUP,
        { ['groups/' + GROUP + '.json']: edit(groupJson, (x) => { x.withdrawn = []; }) }, 'other withdrawn runs'],
      ['another run listed as withdrawn', 'groups/' + GROUP,
        { ['groups/' + GROUP + '.json']: edit(groupJson, (x) => { x.withdrawn[0].runId = x.rows[0].runId; }) }, 'other withdrawn runs'],
      /* the copy's group view carries no proofs (layout 4): its withdrawn
       * record is the copy's index/ file, the proof computed from the tiles */
      ['the copy\'s withdrawn record of the group changed', 'groups/' + GROUP, withdrawnRec, 'does not hash to its name'],
      ['the withdrawal dropped from the run\'s document', 'runs/' + RUN,
        { ['runs/' + RUN]: inPage(edit(runJson, (x) => { delete x.withdrawn; })) }, 'its withdrawal'],
      ['the run page\'s withdrawal sentence removed', 'runs/' + RUN,
        { ['runs/' + RUN]: runHtml.replace(/<p class="alert withdrawn" data-kix-slot="withdrawn">[\s\S]*?<\/p>/, '') },
        'data-kix-slot="withdrawn"']
    ];
    for (const [what, p, edits, want] of red) {
      const srv = await serveDir(EXP, edits);
      page = await open(browser, srv.url + '/' + p);
      v = await verdict(page);
      check(v.state === 'fail' && v.text.includes(want), what + ': red: ' + v.text.slice(0, 160));
      await page.close();
      await srv.close();
    }
  } finally {
    await closeBrowser(browser);
  }
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed || !passed ? 1 : 0);
})().catch((e) => { console.log('ERROR: ' + (e && e.stack || e)); process.exit(1); });
