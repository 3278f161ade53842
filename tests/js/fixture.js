/* fixture.js: run and group views (VIEW-CONTRACT: "kix.run/1",
 * "kix.group/1") over a log built here, for the node tests of kix-verify.js:
 * a fresh Ed25519 log key signs the checkpoints and the index note; the
 * index records, their proofs and the index root are kix's own
 * (tests/tools/kix-js-vectors.c, given the chain hash of the entries about
 * run-b here): run "run-b", ranked 2 of 4 in its group, reproduced by the
 * rerun at entry 2, published at entry 1. The view's checkpoint is at size
 * 280, its index proofs and the log (its ../checkpoint) at 300; `stale`
 * holds index proofs at 280 (older than the log); `indexFiles` the index
 * at 300 as files, from which kix-verify.js computes fresh proofs;
 * `olderRun` a page of run-b from 280, when its group had 3 runs and it
 * ranked first (kix-js-vectors' "older" index). */
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

const PUBLISHER = '5a'.repeat(32), RERUNNER = 'b7'.repeat(32);
/* the rerun's own manifest (canonical), whose digest its entry names */
const RERUN_MANIFEST = '{"kind":"BenchmarkRun","spec":{"measurements":[{"metric":"latency","statistic":"p20","value":11200},' +
  '{"metric":"latency","statistic":"p80","value":11900}],"timing":{"latencyNs":{"median":11530}}}}';
const RERUN_DIGEST = 'sha256:' + Buffer.from(sha(enc.encode(RERUN_MANIFEST))).toString('hex');

/* A DSSE envelope of a kix statement (PROTOCOL.md section 5.2); the
 * signature is not read by the verifier (the log checked it). */
function envelope(type, name, digest, predicate, keyid) {
  const st = { _type: 'https://in-toto.io/Statement/v1', predicate, predicateType: 'https://kernelindex.dev/' + type + '/v1',
               subject: [{ digest: { sha256: digest }, name }] };
  return enc.encode(JSON.stringify({ payload: Buffer.from(JSON.stringify(st)).toString('base64'),
                                     payloadType: 'application/vnd.in-toto+json', signatures: [{ keyid, sig: 'AA==' }] }));
}

/* The log's leaves: entry 1 the publication of run-b (by PUBLISHER), entry
 * 2 its rerun (by RERUNNER, reproduced). `publication`: another payload
 * for entry 1. */
function leaves(digest, publication) {
  const out = [], d = digest.slice(7);
  for (let i = 0; i < 300; i++) out.push(enc.encode('{"entry":' + i + '}'));
  out[1] = publication
    ? enc.encode(JSON.stringify({ payloadType: 'application/vnd.in-toto+json', payload: Buffer.from(publication).toString('base64'), signatures: [{ keyid: PUBLISHER, sig: 'AA==' }] }))
    : envelope('publication', 'run-b', d, { publishedAt: '2026-11-01T00:00:00Z', runId: 'run-b' }, PUBLISHER);
  out[2] = envelope('rerun', 'run-b', d, { observedAt: '2026-11-02T09:00:00Z', outcome: 'reproduced', rerunDigest: RERUN_DIGEST, runId: 'run-b' }, RERUNNER);
  return out;
}

/* The chain hash of entries `ids` of `leaves` (PROTOCOL.md section 4.2). */
function entriesChain(all, ids) {
  let c = new Uint8Array(32);
  for (const i of ids) {
    const u = Buffer.alloc(8);
    u.writeBigUInt64BE(BigInt(i));
    c = sha(Buffer.from([4]), c, u, sha(Buffer.from([0]), all[i]));
  }
  return Buffer.from(c).toString('hex');
}

/* A group view's row as kix_group_view_json writes it: its cells and
 * what proves them (the run's record and proof, manifest, implementation). */
function groupRow(m, r) {
  const manifest = JSON.parse(r.manifestCanonical), spec = manifest.spec || {};
  const at = (s) => ((spec.measurements || []).find((x) => x.statistic === s) || {}).value;
  const row = { rank: m.rank, runId: m.runId, value: Number(m.value), unit: 'ns',
                implementation: r.implementationCanonical ? JSON.parse(r.implementationCanonical).spec.name || '' : '',
                provider: r.implementationCanonical ? JSON.parse(r.implementationCanonical).spec.provider : '',
                evidence: kv.decodeRunRecord(kv.unhex(r.record)).evidence,
                observedAt: (spec.observedAt || '').slice(0, 10),
                runRecord: r.record, runProof: r.proof, manifestCanonical: r.manifestCanonical };
  if (r.implementationCanonical) row.implementationCanonical = r.implementationCanonical;
  if (at('p20') !== undefined) row.p20 = at('p20');
  if (at('p80') !== undefined) row.p80 = at('p80');
  return row;
}

/* { key, files (the site's tiles and checkpoint), indexFiles (its index
 * files at 300), run (view), group (view), vectors } */
async function build(opts) {
  opts = opts || {};
  const digest = 'sha256:' + Buffer.from(sha(enc.encode('{"kind":"BenchmarkRun","runId":"run-b"}'))).toString('hex');
  const all = leaves(digest, opts.publication);
  const v = program('kix-js-vectors', ['--entries-chain', entriesChain(all, [1, 2])]);
  if (v.manifestDigest !== digest) throw new Error('fixture.js: the vectors\' manifest is another');
  const key = await logKey(ORIGIN), log = buildLog(all);
  const files = new Map(log.files);
  files.set('checkpoint', Buffer.from(await sign(key, checkpointText(ORIGIN, 300, log.root(300)))));
  const cp = await sign(key, checkpointText(ORIGIN, 280, log.root(280)));
  const cp300 = await sign(key, checkpointText(ORIGIN, 300, log.root(300)));
  const note = (n) => sign(key, 'kix.index/v1\norigin ' + ORIGIN + '\nsize ' + n + '\nlog ' +
                               Buffer.from(log.root(n)).toString('base64') + '\nindex ' +
                               Buffer.from(kv.unhex(v.smt.root)).toString('base64') + '\n');
  const indexNote = await note(300), indexNote280 = await note(280);
  /* the index at 280 before run-a joined the group: run-b ranked 1 of 3 */
  const olderNote = await sign(key, 'kix.index/v1\norigin ' + ORIGIN + '\nsize 280\nlog ' +
                               Buffer.from(log.root(280)).toString('base64') + '\nindex ' +
                               Buffer.from(kv.unhex(v.older.root)).toString('base64') + '\n');
  const older = (k) => v.older.proofs.find((p) => p.key === k);
  const proof = (k) => v.smt.proofs.find((p) => p.name === 'member' && p.key === k);
  const run = proof('run/run-b'), group = proof(v.groupKey), page = proof(v.groupPageKey);
  /* no run of the group is withdrawn: the key's absence, proven */
  const noneWithdrawn = v.smt.proofs.find((p) => p.name === 'withdrawn-absent');
  const gk = v.groupKey.slice(6);
  const members = v.groupRecords.find((g) => g.name === 'four').members;
  const common = { origin: ORIGIN, treeSize: 280, checkpoint: cp, logKey: key.vkey };
  const runView = Object.assign({
    view: 'kix.run/1', runId: 'run-b', permalink: 'https://js.test/runs/run-b',
    manifestDigest: v.manifestDigest, manifestCanonical: v.manifestCanonical,
    manifest: JSON.parse(v.manifestCanonical),
    rank: { group: 'sha256:' + gk, rank: 2, groupSize: 4, best: 'run-a', bestValue: 500 },
    evidence: 'reproduced', attestations: 0, objects: [],
    reruns: [{ index: 2, outcome: 'reproduced', observedAt: '2026-11-02T09:00:00Z', manifestDigest: RERUN_DIGEST,
               signer: RERUNNER, self: false, manifestCanonical: RERUN_MANIFEST,
               primary: { metric: 'latency', unit: 'ns', median: 11530, p20: 11200, p80: 11900 } }],
    entries: [{ index: 1, type: 'publication', tile: 'tile/0/001.p/44', entryBundle: 'tile/entries/001.p/44' },
              { index: 2, type: 'rerun', tile: 'tile/0/001.p/44', entryBundle: 'tile/entries/001.p/44' }],
    index: { checkpoint: cp300, indexNote, runRecord: run.record, runProof: run.proof,
             groupKey: v.groupKey, groupRecord: group.record, groupProof: group.proof,
             groupPage: page.record, groupPageProof: page.proof }
  }, common);
  const groupView = Object.assign({
    view: 'kix.group/1', group: 'sha256:' + gk, size: 4, offset: 0, limit: 100,
    rows: members.map((m) => groupRow(m, v.groupRuns.find((r) => r.runId === m.runId))),
    index: { checkpoint: cp300, indexNote, groupKey: v.groupKey, groupRecord: group.record, groupProof: group.proof,
             pages: [{ key: v.groupPageKey, record: page.record, proof: page.proof }],
             withdrawn: { key: noneWithdrawn.key, proof: noneWithdrawn.proof } }
  }, common);
  const stale = (view) => Object.assign(JSON.parse(JSON.stringify(view)), {
    index: Object.assign({}, view.index, { checkpoint: cp, indexNote: indexNote280 }) });
  /* the index as the export writes it (PROTOCOL.md section 3.2): the note
   * at the latest checkpoint, the tree's tiles and the records */
  const indexFiles = new Map([['index/notes/300', Buffer.from(indexNote)]]);
  for (const x of v.indexFiles) indexFiles.set(x.path, Buffer.from(kv.unhex(x.bytes)));
  /* a page of run-b written at 280, when it was ranked 1 of 3, its proofs of then */
  const olderRun = Object.assign(JSON.parse(JSON.stringify(runView)), {
    rank: { group: 'sha256:' + gk, rank: 1, groupSize: 3, best: 'run-b', bestValue: 700 },
    index: { checkpoint: cp, indexNote: olderNote, runRecord: older('run/run-b').record, runProof: older('run/run-b').proof,
             groupKey: v.groupKey, groupRecord: older(v.groupKey).record, groupProof: older(v.groupKey).proof,
             groupPage: older(v.groupPageKey).record, groupPageProof: older(v.groupPageKey).proof } });
  return { key, log, files, indexFiles, olderRun, run: runView, group: groupView, staleRun: stale(runView), staleGroup: stale(groupView),
           vectors: v, sign, checkpointText, logKey, envelope, PUBLISHER, RERUNNER, RERUN_MANIFEST, RERUN_DIGEST };
}

module.exports = { ORIGIN, build };
