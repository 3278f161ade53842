/* dom.js: one chromium for a shell test that reads many pages
 * (test_http_verify_browser.sh), instead of one chromium --dump-dom each
 * (about 2 s of CPU a start). Reads lines "URL<TAB>FILE" on stdin; opens
 * each URL in a new tab, waits for the page's verifier to reach a verdict
 * (#verify-status neither "none" nor "running"; a page without one: once
 * loaded), writes the DOM to FILE and prints "ok", or "error: WHY", a line.
 * A chromium that lost its target is launched again for the next line. */
'use strict';
const fs = require('fs');
const readline = require('readline');
const puppeteer = require('./node_modules/puppeteer-core');
const { LAUNCH, closeBrowser } = require('./chromium');

const VERDICT_MS = 60000;

/* each page in a context of its own: no cache, storage or connection
 * shared with the pages before, as a chromium started for it would have */
async function dump(browser, url, file) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: 'load', timeout: VERDICT_MS });
    await page.waitForFunction(() => {
      const s = document.getElementById('verify-status');
      return !s || !['none', 'running'].includes(s.getAttribute('data-state'));
    }, { timeout: VERDICT_MS });
    fs.writeFileSync(file, await page.content());
  } finally {
    await context.close().catch(() => {});
  }
}

(async () => {
  let browser = null;
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const tab = line.indexOf('\t');
    try {
      if (tab < 0) throw new Error('expected URL<TAB>FILE');
      if (!browser || !browser.connected) {
        await closeBrowser(browser, (text) => console.error('note: ' + text));
        browser = await puppeteer.launch(LAUNCH);
      }
      await dump(browser, line.slice(0, tab), line.slice(tab + 1));
      console.log('ok');
    } catch (e) {
      console.log('error: ' + String(e && e.message).replace(/\s+/g, ' '));
    }
  }
  await closeBrowser(browser, (text) => console.error('note: ' + text));
})();
