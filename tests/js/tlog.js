/* tlog.js: a C2SP tlog-tiles log built in memory for the node tests, with
 * node's own SHA-256 (not kix-verify.js's): level-0..N tiles, entry bundles,
 * the RFC 9162 root of every prefix. files: path -> Uint8Array. */
'use strict';
const crypto = require('crypto');
const { kv } = require('./lib.js');

function sha(...parts) {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function leafHash(leaf) { return sha(Buffer.from([0]), leaf); }

/* RFC 9162 MTH of the leaf hashes hs[lo, hi) */
function mth(hs, lo, hi) {
  const n = hi - lo;
  if (n === 0) return sha(Buffer.alloc(0));
  if (n === 1) return hs[lo];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return sha(Buffer.from([1]), mth(hs, lo, lo + k), mth(hs, lo + k, hi));
}

/* The tiles and bundles of the log of `leaves` (Uint8Arrays). */
function buildLog(leaves) {
  const size = leaves.length, files = new Map(), hs = leaves.map(leafHash);
  let level = hs, span = 1;
  for (let L = 0; level.length > 0; L++) {
    for (let t = 0; t * 256 < level.length; t++) {
      const part = level.slice(t * 256, t * 256 + 256);
      files.set(kv.tilePath(L, t, part.length), Buffer.concat(part));
    }
    /* the next level: the complete subtrees of 256^(L+1) leaves */
    span *= 256;
    const up = [];
    for (let i = 0; (i + 1) * span <= size; i++) up.push(mth(hs, i * span, (i + 1) * span));
    level = up;
  }
  for (let t = 0; t * 256 < size; t++) {
    const part = leaves.slice(t * 256, t * 256 + 256), chunks = [];
    for (const l of part) chunks.push(Buffer.from([l.length >> 8, l.length & 255]), l);
    files.set(kv.tilePath('entries', t, part.length), Buffer.concat(chunks));
  }
  return { size, files, hashes: hs, root: (n) => mth(hs, 0, n === undefined ? size : n) };
}

/* fetchBytes over the files, copies so a test may alter one */
function fetcher(files) {
  return async (path) => {
    if (!files.has(path)) throw new kv.Fail('cannot fetch ' + path + ': HTTP 404');
    return new Uint8Array(files.get(path));
  };
}

module.exports = { sha, leafHash, mth, buildLog, fetcher };
