/* chromium.js: how the browser tests start and stop Debian's chromium
 * through puppeteer-core (pages.js, dom.js). */
'use strict';

const LAUNCH = {
  executablePath: process.env.KIX_CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  /* a wedged chromium fails a call in a minute, not puppeteer's three */
  protocolTimeout: 60000
};

/* Closes a browser, or kills it: a chromium that lost a target can leave
 * close() waiting forever, which once ran a test out of its time after
 * every check had passed. note(text) hears of a kill. */
async function closeBrowser(b, note) {
  if (!b) return;
  const proc = b.process();
  let timer;
  const closed = await Promise.race([
    b.close().then(() => true, () => false),
    new Promise((r) => { timer = setTimeout(() => r(false), 15000); })
  ]);
  clearTimeout(timer);
  if (!closed && proc && proc.exitCode === null && proc.signalCode === null) {
    if (note) note('chromium did not close within 15 s; killed');
    proc.kill('SIGKILL');
  }
}

module.exports = { LAUNCH, closeBrowser };
