/* write.js: "Add a reproduction or note" in Chromium, on a run page kixd
 * serves with --http-submit (test_http_write_browser.sh starts it).
 *   node write.js URL REGISTER OPEN
 * URL: the run page. REGISTER: a shell script run with the browser's
 * public key line as $1 (the admin's kix key add). OPEN: a shell script
 * that sets the log's policy to take open notes (the admin's kix policy).
 * Prints "ok: ..." lines, "FAIL: ..." lines, and exits 1 on any failure. */
'use strict';
const { execFileSync } = require('child_process');
const puppeteer = require('./node_modules/puppeteer-core');
const { LAUNCH, closeBrowser } = require('./chromium');

let failed = 0;
function check(ok, what) {
  console.log((ok ? 'ok: ' : 'FAIL: ') + what);
  if (!ok) failed++;
}

async function verdict(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById('verify-status');
    return s && !['none', 'running'].includes(s.getAttribute('data-state'));
  }, { timeout: 60000 });
  return page.evaluate(() => document.getElementById('verify-status').getAttribute('data-state'));
}

async function written(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById('kix-write-status');
    return s && ['ok', 'fail'].includes(s.getAttribute('data-state'));
  }, { timeout: 60000 });
  return page.evaluate(() => ({ state: document.getElementById('kix-write-status').getAttribute('data-state'),
                               text: document.getElementById('kix-write-status').textContent,
                               receipt: document.getElementById('kix-write-receipt').textContent }));
}

/* opts: as ('note' or 'rerun'), open (the open-note box) */
async function send(page, note, figures, opts) {
  await page.evaluate((note, figures, opts) => {
    const f = document.getElementById('kix-write-note');
    f.note.value = note;
    for (const k of ['median', 'p20', 'p80', 'observed']) f[k].value = (figures || {})[k] || '';
    for (const r of f.querySelectorAll('input[name="as"]')) r.checked = r.value === (opts.as || 'note');
    f.open.checked = !!opts.open;
    document.getElementById('kix-write-status').setAttribute('data-state', 'none');
    f.requestSubmit();
  }, note, figures || null, opts || {});
  return written(page);
}

const FIGURES = { median: '11200', p20: '10900', p80: '11600', observed: '2026-11-30T12:00:00Z' };
const openBox = (page) => page.$eval('#kix-write-open', (p) => !p.hidden);

(async () => {
  const [url, register, openNotes] = process.argv.slice(2);
  const browser = await puppeteer.launch(LAUNCH);
  try {
    const page = await browser.newPage();
    await page.goto(url, { waitUntil: 'load' });
    check(await verdict(page) === 'ok', 'the run page verifies');
    check(await page.$('#contribute') !== null, 'the page offers "Add a reproduction or note"');

    /* a key made in this browser, kept in IndexedDB */
    await page.click('#kix-write-make');
    await page.waitForSelector('#kix-write-key code', { timeout: 30000 });
    const pub = await page.$eval('#kix-write-key code', (c) => c.textContent);
    const save = await page.$eval('#kix-write-key a[download]', (a) => a.getAttribute('download'));
    check(/^browser-[0-9a-z]+\+[0-9a-f]{8}\+/.test(pub) && /\.key$/.test(save),
          'a key made in the browser, its key file offered once: ' + pub);

    /* before the admin registers it: refused, with the log's reason */
    let w = await send(page, 'first try, unregistered');
    check(w.state === 'fail' && /not registered/.test(w.text), 'an unregistered key is refused: ' + w.text);

    /* a reproduction from the form by this unregistered key: refused as a
     * controlled rerun always, and as a note while the log's policy takes
     * no open notes (the page offers none) */
    w = await send(page, 'rerun by a stranger', FIGURES, { as: 'rerun' });
    check(w.state === 'fail' && /403/.test(w.text) && /only a note/.test(w.text),
          'a reproduction sent as a rerun by an unregistered key is refused: ' + w.text);
    check(!(await openBox(page)), 'the page offers no open note while the policy takes none');
    w = await send(page, 'reproduced, unregistered', FIGURES, { open: true });
    check(w.state === 'fail' && /not registered/.test(w.text),
          'the reproduction as a note is refused too, before the policy: ' + w.text);

    /* the admin's policy opens notes (with a little proof of work): the
     * page offers an open note, logged and labeled; a rerun still refused */
    execFileSync('/bin/sh', [openNotes], { stdio: 'inherit' });
    await page.reload({ waitUntil: 'load' });
    await verdict(page);
    await page.waitForFunction(() => !document.getElementById('kix-write-open').hidden, { timeout: 30000 });
    check(await openBox(page), 'after kix policy --open-notes on the page offers an open note');
    w = await send(page, 'reproduced as a stranger', FIGURES, { open: true });
    check(w.state === 'ok' && /Logged at entry \d+/.test(w.text),
          'the reproduction from an unregistered key is logged as an open note: ' + w.text);
    w = await send(page, 'rerun by a stranger again', FIGURES, { as: 'rerun' });
    check(w.state === 'fail' && /only a note/.test(w.text),
          'as a controlled rerun it is still refused under the policy: ' + w.text);
    await page.reload({ waitUntil: 'load' });
    check(await verdict(page) === 'ok', 'the page verifies with the open note');
    const open = await page.$$eval('[data-kix-slot="attestations"] tr', (trs) => trs.map((t) => t.textContent));
    check(open.some((r) => r.includes('(community, unregistered key)') && r.includes('reproduced as a stranger')),
          'the verified row says "community, unregistered key": ' + JSON.stringify(open));

    execFileSync('/bin/sh', [register, pub], { stdio: 'inherit' });

    /* after a reload the key is still there (IndexedDB), and a note is logged */
    await page.reload({ waitUntil: 'load' });
    await verdict(page);
    await page.waitForSelector('#kix-write-key code', { timeout: 30000 });
    check(await page.$eval('#kix-write-key code', (c) => c.textContent) === pub,
          'the key survives a reload (IndexedDB), not offered for saving again: ' +
          (await page.$('#kix-write-key a[download]') === null));
    w = await send(page, 'measured 11.2 µs on our A100');
    check(w.state === 'ok' && /Logged at entry \d+/.test(w.text) &&
          w.receipt.startsWith('c2sp.org/tlog-proof@v1'), 'the note is logged, its receipt shown: ' + w.text);

    /* a reproduction from the form: the run's manifest, the reader's figures */
    w = await send(page, 'reproduced with our harness',
                   { median: '11200', p20: '10900', p80: '11600', observed: '2026-11-30T12:00:00Z' });
    check(w.state === 'ok', 'a reproduction is logged as the note\'s evidence: ' + w.text);
    w = await send(page, 'bad figures', { median: '0', observed: '2026-11-30T12:00:00Z' });
    check(w.state === 'fail' && /median/.test(w.text), 'bad figures are refused before signing: ' + w.text);

    /* after a reload, the new rows are verified like every other row */
    await page.reload({ waitUntil: 'load' });
    check(await verdict(page) === 'ok', 'the page verifies with the new rows');
    const rows = await page.$$eval('[data-kix-slot="attestations"] tr', (trs) => trs.map((t) => t.textContent));
    check(rows.some((r) => r.includes('measured 11.2 µs on our A100')) &&
          rows.some((r) => r.includes('reproduced with our harness')),
          'both rows are on the page after a reload: ' + JSON.stringify(rows));
  } catch (e) {
    check(false, 'error: ' + (e && e.stack || e));
  } finally {
    await closeBrowser(browser);
  }
  process.exit(failed ? 1 : 0);
})();
