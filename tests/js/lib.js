/* lib.js: what the node tests of client/web/static/kix-verify.js share: the
 * module under test, the project's paths, the programs of the build (KIX_BIN),
 * and checks that count, name what failed, and set the exit code. */
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');

const src = process.env.KIX_SRC || path.join(__dirname, '..', '..');
const tests = process.env.KIX_TESTS || path.join(src, 'tests');
const kv = require(path.join(src, 'client', 'web', 'static', 'kix-verify.js'));

let passed = 0, failed = 0;

function check(ok, what) {
  if (ok) passed++;
  else { failed++; console.log('FAIL: ' + what); }
}

/* fn() must fail with a kix-verify Fail whose message holds `want` (a
 * string, or '' for any message). */
async function refuses(fn, want, what) {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof kv.Fail)) { check(false, what + ': threw ' + e); return; }
    check(e.message.includes(want), what + ': failed with "' + e.message + '", want "' +
          want + '"');
    return;
  }
  check(false, what + ': accepted');
}

/* JSON a program of the build prints (no shell). */
function program(name, args) {
  const bin = process.env.KIX_BIN;
  if (!bin) throw new Error('KIX_BIN is not set (run under ctest)');
  return JSON.parse(execFileSync(path.join(bin, name), args || [],
                                 { maxBuffer: 256 << 20, encoding: 'utf8' }));
}

function readJson(rel) { return JSON.parse(fs.readFileSync(path.join(tests, rel), 'utf8')); }

/* Runs the async test body, prints the tally, exits 1 on any failure (or
 * when nothing was checked). */
function main(body) {
  body().then(() => {
    console.log(passed + ' checks passed, ' + failed + ' failed');
    process.exit(failed || !passed ? 1 : 0);
  }, (e) => {
    console.log('ERROR: ' + (e && e.stack || e));
    process.exit(1);
  });
}

module.exports = { kv, src, tests, check, refuses, program, readJson, main };
