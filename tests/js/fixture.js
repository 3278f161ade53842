/* fixture.js: run and group views (VIEW-CONTRACT: "kix.run/1",
 * "kix.group/1") over a log built here, for the node tests of kix-verify.js:
 * a fresh Ed25519 log key signs the checkpoints and the index note; the
 * index records, their proofs and the index root are kix's own
 * (tests/tools/kix-js-vectors.c): run "run-b", ranked 2 of 4 in its group,
 * reproduced, published at entry 1. The view is at size 280, the log (its
 * ../checkpoint) at 300. */
'use strict';
const { kv, program } = require('./lib.js');
const { buildLog, sha } = require('./tlog.js');

const ORIGIN = 'js.test/log';
const enc = new TextEncoder();

async function logKey(name) {
  const k = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const pub = new Uint8Array(await crypto.subtle.exportKey('raw', k.publicKey));
  const key = Buffer.concat([Buffer.from([1]), pub]);
  const hash = sha(enc.encode(name + '\n'), key).slice(0, 4);
  return { name, hash, priv: k.privateKey, vkey: name + '+' + kv.hex(hash) + '+' + key.toString('base64') };
}

async function sign(key, text) {
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key.priv, enc.encode(text)));
  return text + '\n\u2014 ' + key.name + ' ' + Buffer.concat([key.hash, sig]).toString('base64') + '\n';
}

function checkpointText(origin, size, root) {
  return origin + '\n' + size + '\n' + Buffer.from(root).toString('base64') + '\n';
}

/* The log's leaves: entry 1 the publication of run-b (a DSSE envelope
 * whose payload names the manifest digest), entry 2 its rerun. */
function leaves(digest, publication) {
  const out = [];
  for (let i = 0; i < 300; i++) out.push(enc.encode('{"entry":' + i + '}'));
  const payload = publication || JSON.stringify({ predicateType: 'kix.run/v1', subject: [{ name: 'run-b', digest: { sha256: digest.slice(7) } }] });
  out[1] = enc.encode(JSON.stringify({ payloadType: 'application/vnd.in-toto+json', payload: Buffer.from(payload).toString('base64'), signatures: [] }));
  out[2] = enc.encode('{"rerun":"run-b"}');
  return out;
}

/* { key, files (the site's tiles and checkpoint), run (view), group (view), vectors } */
async function build(opts) {
  opts = opts || {};
  const v = program('kix-js-vectors');
  const key = await logKey(ORIGIN), log = buildLog(leaves(v.manifestDigest, opts.publication));
  const files = new Map(log.files);
  files.set('checkpoint', Buffer.from(await sign(key, checkpointText(ORIGIN, 300, log.root(300)))));
  const cp = await sign(key, checkpointText(ORIGIN, 280, log.root(280)));
  const indexNote = await sign(key, 'kix.index/v1\norigin ' + ORIGIN + '\nsize 280\nlog ' +
                               Buffer.from(log.root(280)).toString('base64') + '\nindex ' +
                               Buffer.from(kv.unhex(v.smt.root)).toString('base64') + '\n');
  const proof = (k) => v.smt.proofs.find((p) => p.name === 'member' && p.key === k);
  const run = proof('run/run-b'), group = proof(v.groupKey), page = proof(v.groupPageKey);
  const gk = v.groupKey.slice(6);
  const members = v.groupRecords.find((g) => g.name === 'four').members;
  const common = { origin: ORIGIN, treeSize: 280, checkpoint: cp, logKey: key.vkey };
  const runView = Object.assign({
    view: 'kix.run/1', runId: 'run-b', permalink: 'https://js.test/runs/run-b',
    manifestDigest: v.manifestDigest, manifestCanonical: v.manifestCanonical,
    manifest: JSON.parse(v.manifestCanonical),
    primary: { metric: 'latency', unit: 'ns', median: 700 },
    rank: { group: 'sha256:' + gk, rank: 2, groupSize: 4, best: 'run-a', bestValue: 500 },
    evidence: 'reproduced', reruns: [], attestations: 0, objects: [],
    entries: [{ index: 1, type: 'publication', tile: 'tile/0/001.p/44', entryBundle: 'tile/entries/001.p/44' },
              { index: 2, type: 'rerun', tile: 'tile/0/001.p/44', entryBundle: 'tile/entries/001.p/44' }],
    index: { checkpoint: cp, indexNote, runRecord: run.record, runProof: run.proof,
             groupKey: v.groupKey, groupRecord: group.record, groupProof: group.proof,
             groupPage: page.record, groupPageProof: page.proof }
  }, common);
  const groupView = Object.assign({
    view: 'kix.group/1', group: 'sha256:' + gk, size: 4, offset: 0, limit: 100,
    rows: members.map((m) => ({ rank: m.rank, runId: m.runId, value: Number(m.value), unit: 'ns' })),
    index: { checkpoint: cp, indexNote, groupKey: v.groupKey, groupRecord: group.record, groupProof: group.proof,
             pages: [{ key: v.groupPageKey, record: page.record, proof: page.proof }] }
  }, common);
  return { key, log, files, run: runView, group: groupView, vectors: v, sign, checkpointText, logKey };
}

module.exports = { ORIGIN, build };
