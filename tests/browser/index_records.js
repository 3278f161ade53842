/* A static copy's index record with its last byte changed, wherever the
 * copy keeps it: its own file (index/value/KEY@HASH) or an item of a pack
 * (index/pack/N.K, PROTOCOL.md section 3.2 "Index packs"). Found as a
 * reader finds it, by walking KEY's route from the latest index note's
 * root: tests/integration/index_files.py does the walk. Returns
 * { 'index/...': Buffer } for a tamper map that serves the copy with the
 * one file changed. */
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const FILES = path.join(__dirname, '..', 'integration', 'index_files.py');

function flippedRecord(copy, key) {
  const out = execFileSync('python3', [FILES, copy, key, 'show'], { encoding: 'utf8' });
  const m = /^\('([^']+)', (\d+), (\d+), (None|\d+)\)\s*$/.exec(out);
  if (!m) throw new Error('index_files.py: ' + out);
  const [file, off, n] = [m[1], Number(m[2]), Number(m[3])];
  const b = Buffer.from(fs.readFileSync(file));
  b[off + n - 1] ^= 1;
  return { [path.relative(copy, file)]: b };
}

module.exports = { flippedRecord };
