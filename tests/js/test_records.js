/* js.records: kix-verify.js's decoding of the verifiable index's run and
 * group records (PROTOCOL.md section 4.2) held to kix's C decoder: the
 * records tests/tools/kix-js-vectors.c makes with kix_vindex_*_encode, valid
 * and mutated, must be accepted or refused as kix_vindex_*_decode does,
 * with the same fields and members; and PROTOCOL.md's worked example
 * (section 4.6) decodes to its documented fields and rank. */
'use strict';
const fs = require('fs');
const path = require('path');
const { kv, src, check, program, main } = require('./lib.js');

function attempt(fn) {
  try { return { ok: true, value: fn() }; } catch (e) {
    if (!(e instanceof kv.Fail)) throw e;
    return { ok: false, error: e.message };
  }
}

async function attemptAsync(fn) {
  try { return { ok: true, value: await fn() }; } catch (e) {
    if (!(e instanceof kv.Fail)) throw e;
    return { ok: false, error: e.message };
  }
}

main(async () => {
  const v = program('kix-js-vectors');
  let accepted = 0, refused = 0;
  for (const r of v.runRecords) {
    const got = attempt(() => kv.decodeRunRecord(kv.unhex(r.record)));
    check(got.ok === r.valid, 'run record ' + r.name + ': JS ' + (got.ok ? 'accepts' : 'refuses (' +
          got.error + ')') + ', C ' + (r.valid ? 'accepts' : 'refuses'));
    if (!got.ok || !r.valid) { refused += !r.valid; continue; }
    accepted++;
    const x = got.value, f = r.fields;
    for (const k of ['manifest', 'publisher', 'comparisonKey', 'entriesChain', 'evidenceCode',
                     'grouped', 'predecessor', 'successor'])
      check(x[k] === f[k], 'run record ' + r.name + ': ' + k + ' ' + x[k] + ', C ' + f[k]);
    for (const k of ['publication', 'evidenceIndex', 'attestations', 'reruns', 'supersedesIndex',
                     'supersededByIndex', 'withdrawnIndex', 'value', 'entries'])
      check(String(x[k]) === f[k], 'run record ' + r.name + ': ' + k + ' ' + x[k] + ', C ' + f[k]);
    check(x.evidence === ['reported', 'reproduced', 'not_reproduced', 'failed'][f.evidenceCode],
          'run record ' + r.name + ': evidence name');
  }
  check(accepted >= 3 && refused >= 10, 'run vectors: ' + accepted + ' valid, ' + refused + ' invalid');

  accepted = refused = 0;
  for (const g of v.groupRecords) {
    const got = await attemptAsync(() => kv.decodeGroupPage(kv.unhex(g.record), g.key, null));
    check(got.ok === g.valid, 'group page ' + g.name + ': JS ' + (got.ok ? 'accepts' : 'refuses (' +
          got.error + ')') + ', C ' + (g.valid ? 'accepts' : 'refuses'));
    if (!got.ok || !g.valid) { refused += !g.valid; continue; }
    accepted++;
    const mine = got.value.members.map((m) => ({ rank: m.rank, runId: m.runId, value: String(m.value) }));
    check(JSON.stringify(mine) === JSON.stringify(g.members), 'group page ' + g.name + ' members');
    check(got.value.pageId === g.pageId, 'group page ' + g.name + ' id');
  }
  check(accepted >= 2 && refused >= 10, 'group page vectors: ' + accepted + ' valid, ' + refused + ' invalid');

  accepted = refused = 0;
  for (const g of v.groupDirs) {
    const got = await attemptAsync(() => kv.decodeGroupDir(kv.unhex(g.record), g.key));
    check(got.ok === g.valid, 'group directory ' + g.name + ': JS ' + (got.ok ? 'accepts' : 'refuses (' +
          got.error + ')') + ', C ' + (g.valid ? 'accepts' : 'refuses'));
    if (!got.ok || !g.valid) { refused += !g.valid; continue; }
    accepted++;
    const d = got.value;
    const pages = d.pages.map((p) => ({ firstRank: Number(p.firstRank), members: Number(p.members),
                                        firstRun: p.first.runId, firstValue: String(p.first.value) }));
    check(JSON.stringify(pages) === JSON.stringify(g.pages) && String(d.count) === String(g.count) &&
          (d.best ? d.best.runId : '') === g.best, 'group directory ' + g.name + ' pages');
  }
  check(accepted >= 2 && refused >= 8, 'group directory vectors: ' + accepted + ' valid, ' + refused + ' invalid');

  /* the run "run-b" and its group: ranked 2 of 4 behind run-a */
  const b = kv.decodeRunRecord(kv.unhex(v.runRecords[0].record));
  const four = v.groupRecords.find((g) => g.name === 'four');
  const fourDir = v.groupDirs.find((g) => g.name === 'four');
  const dir4 = await kv.decodeGroupDir(kv.unhex(fourDir.record), fourDir.key);
  const facts = kv.runFacts('run-b', b, { key: v.groupKey, dir: dir4,
                                          members: (await kv.decodeGroupPage(kv.unhex(four.record), four.key, dir4.pages[0])).members });
  check(facts.evidence === 'reproduced' && facts.rank.rank === 2 && facts.rank.groupSize === 4 &&
        facts.rank.best === 'run-a' && facts.rank.bestValue === 500n &&
        facts.rank.group === 'sha256:' + four.key, 'run-b ranks 2 of 4 behind run-a');
  check(kv.runFacts('run-x', kv.decodeRunRecord(kv.unhex(v.runRecords[1].record)), null).rank === null,
        'a superseded run is unranked');
  check(!attempt(() => kv.runFacts('run-b', b, null)).ok, 'a ranked run needs its group');
  check(!attempt(() => kv.runFacts('run-z', b, facts.members && { key: v.groupKey, dir: dir4, members: facts.members })).ok,
        'a run missing from its group record');

  /* PROTOCOL.md section 4.6, byte for byte */
  const doc = fs.readFileSync(path.join(src, 'proto', 'PROTOCOL.md'), 'utf8');
  const m = /<!-- example vindex -->\n```json\n([\s\S]*?)\n```/.exec(doc);
  check(!!m, 'PROTOCOL.md has its worked example');
  const [run, group, page] = JSON.parse(m[1]).answers;
  const vkey = await kv.parseVkey(/<!-- example vindex\.vkey -->\n\n {4}(\S+)/.exec(doc)[1]);
  const cp = await kv.verifyCheckpoint(run.checkpoint, vkey);
  const note = kv.parseIndexNote(await kv.verifyNote(run.indexNote, vkey, 'index note'));
  check(cp.origin === 'log.example' && cp.size === 44 && note.size === 44 && kv.equal(note.log, cp.root) &&
        kv.b64encode(note.index) === run.indexRoot, 'the example\'s checkpoint and index note');
  for (const a of [run, group, page])
    check(kv.equal(await kv.smtRoot(a.key, kv.unhex(a.record), kv.unhex(a.proof)), note.index),
          'the example\'s ' + a.key + ' is in the signed index root');
  const rr = kv.decodeRunRecord(kv.unhex(run.record));
  check(rr.publication === 13n && rr.evidence === 'reported' && rr.attestations === 1n &&
        rr.value === 10615104n && rr.entries === 2n && rr.grouped &&
        rr.manifest === '20deeb0e6d6507b01ed2595a2b7c0a5f8b6ccd525c0fc5748cb71384587c0a56',
        'the example\'s run record fields');
  const runId = run.key.slice(4);
  const gdir = await kv.decodeGroupDir(kv.unhex(group.record), group.key.slice(6));
  const ef = kv.runFacts(runId, rr, { key: group.key, dir: gdir,
                                      members: (await kv.decodeGroupPage(kv.unhex(page.record), group.key.slice(6),
                                                                         gdir.pages[0])).members });
  const verdict = /<!-- example vindex\.verdict: (\S+): evidence (\S+), \d+ entries, rank (\d+)\/(\d+), best (\S+) -->/.exec(doc);
  check(verdict && verdict[1] === runId && ef.evidence === verdict[2] && ef.rank.rank === +verdict[3] &&
        ef.rank.groupSize === +verdict[4] && ef.rank.best === verdict[5],
        'the example\'s verdict: ' + (verdict && verdict[0]));
});
