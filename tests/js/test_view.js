/* js.view: kix-verify.js's verification of whole view documents
 * (VIEW-CONTRACT: kix.run/1, kix.group/1) against a log's tiles, with no
 * browser: a run view whose claims are the proven ones verifies ("ok");
 * one without index proofs, or with proofs older than the log's latest
 * checkpoint and no fresher ones from the site, fails; so does each claim
 * that differs from the proofs (rank, best run, evidence, manifest, group
 * size, a row), each entry about the run withheld or added, and each
 * altered proof, note, key, checkpoint, object or tile, naming it. */
'use strict';
const { kv, check, refuses, main } = require('./lib.js');
const { build } = require('./fixture.js');
const { fetcher } = require('./tlog.js');

const copy = (x) => JSON.parse(JSON.stringify(x));
const attempt = (fn) => { try { return { ok: true, value: fn() }; } catch (e) { return { ok: false, error: e }; } };
const flipHex = (h) => h.slice(0, -1) + (h.slice(-1) === '0' ? '1' : '0');

main(async () => {
  const f = await build(), io = { fetchBytes: fetcher(f.files) };

  const proven = await kv.verifyRunView(f.run, io, {});
  const s = kv.summary('run', proven, null);
  /* the proven facts first (issue 37: a reader of this line alone reads only proven facts) */
  check(s.state === 'ok' && s.text === 'verified against js.test/log at size 300: run run-b \u00b7 ' +
        'not recorded \u00b7 not recorded \u00b7 median not recorded \u00b7 rank 2 of 4 \u00b7 Reproduced by a ' +
        'controlled rerun on 2026-11-02. Proven: checkpoint ' +
        'signature, inclusion of 2 entries (1, 2), manifest digest ' + f.run.manifestDigest +
        ' (named by the publication entry) and its objects; rank and evidence proven by the ' +
        'log\u2019s signed index at size 300, with every entry about the run.',
        'the run view verifies: ' + s.text);
  check(proven.run.reruns.length === 1 && proven.run.reruns[0].outcome === 'reproduced' &&
        proven.run.reruns[0].signer === f.RERUNNER && !proven.run.reruns[0].self &&
        proven.run.publication.signer === f.PUBLISHER && proven.run.attestations.length === 0 &&
        kv.evidenceText(proven.run) === 'Reproduced by a controlled rerun on 2026-11-02' &&
        proven.run.reruns[0].figures.median === 11530 && proven.run.reruns[0].figures.p80 === 11900,
        'the entries about the run, read: ' + JSON.stringify(proven.run));
  check(proven.facts.rank.rank === 2 && proven.facts.rank.groupSize === 4 &&
        proven.facts.evidence === 'reproduced' && proven.facts.members.length === 4 &&
        proven.entries[1] && proven.entries[2], 'what the run view proves');

  const runFails = async (edit, want, what, files) => {
    const view = copy(f.run);
    edit(view);
    await refuses(() => kv.verifyRunView(view, { fetchBytes: fetcher(files || f.files) }, {}), want, what);
  };
  await runFails((v) => { v.rank.rank = 1; }, 'the view says rank 1 of 4; the signed index proves rank 2 of 4', 'another rank');
  await runFails((v) => { v.rank.groupSize = 5; }, 'the signed index proves rank 2 of 4', 'another group size');
  await runFails((v) => { delete v.rank; }, 'the view says unranked; the signed index proves rank 2 of 4', 'no rank');
  await runFails((v) => { v.rank.best = 'run-c'; }, 'best run-a (500)', 'another best run');
  await runFails((v) => { v.rank.bestValue = 499; }, 'best run-a (500)', 'another best value');
  await runFails((v) => { v.rank.group = 'sha256:' + '0'.repeat(64); }, 'the signed index proves group', 'another group');
  await runFails((v) => { v.evidence = 'reported'; }, 'the view says evidence "reported"; the signed index proves "reproduced"', 'another evidence');
  await runFails((v) => { v.manifest.kind = 'Other'; }, 'is not its canonical manifest', 'a manifest unlike its canonical text');
  await runFails((v) => { v.manifestCanonical = v.manifestCanonical.replace('run-b', 'run-c'); }, 'the manifest shown hashes to', 'an altered canonical manifest');
  await runFails((v) => { v.index.runRecord = flipHex(v.index.runRecord); }, 'the run\u2019s record is not in the signed index', 'an altered run record');
  await runFails((v) => { v.index.runProof = flipHex(v.index.runProof); }, 'the run\u2019s record is not in the signed index', 'an altered run proof');
  await runFails((v) => { v.index.groupRecord = flipHex(v.index.groupRecord); }, 'the group\u2019s record is not in the signed index', 'an altered group record');
  await runFails((v) => { v.index.groupKey = 'group/' + '1'.repeat(64); }, 'not in the signed index', 'another group key');
  await runFails((v) => { delete v.index.groupRecord; }, 'the view carries no proof of its group', 'a ranked run without its group');
  await runFails((v) => { v.runId = 'run-a'; }, 'the run\u2019s record is not in the signed index', 'another run id');
  await runFails((v) => { v.entries = [v.entries[1]]; }, 'the page lists 1 entries about the run; the signed index commits 2', 'no publication entry');
  await runFails((v) => { v.entries = [v.entries[0]]; }, 'the page lists 1 entries about the run; the signed index commits 2', 'the rerun row removed');
  await runFails((v) => { v.entries.push({ index: 5, type: 'attestation' }); }, 'the page lists 3 entries about the run; the signed index commits 2', 'an entry added');
  await runFails((v) => { v.entries.push(v.entries[0]); }, 'the page lists entry 1 twice', 'an entry listed twice');
  await runFails((v) => { v.entries.push({ index: 300, type: 'x' }); }, 'entry 300 is past the checkpoint (size 300)', 'an entry past the log');
  await runFails((v) => { v.origin = 'other/log'; }, 'the checkpoint is for the log "js.test/log", not "other/log"', 'another origin');
  await runFails((v) => { v.treeSize = 281; }, 'the view\u2019s checkpoint is at size 280, the view says 281', 'another tree size');
  await runFails((v) => { v.primary = { metric: 'latency', unit: 'ns', median: 700 }; }, 'the view\u2019s claims differ from what its proofs show: its primary measurement', 'a median the manifest does not hold');
  await runFails((v) => { v.reruns = []; }, 'differ from what its proofs show: its reruns', 'the view\u2019s rerun list emptied');
  await runFails((v) => { v.reruns[0].outcome = 'failed'; }, 'its reruns', 'a rerun\u2019s outcome changed');
  /* a rerun's median: proven from its own manifest, whose digest its signed entry names */
  await runFails((v) => { v.reruns[0].manifestCanonical = v.reruns[0].manifestCanonical.replace('11530', '9530'); },
                 'the manifest shown for the rerun at entry 2 hashes to', 'a rerun\u2019s manifest with another median');
  await runFails((v) => { v.reruns[0].primary.median = 9530; }, 'differ from what its proofs show: a rerun\u2019s figures',
                 'a rerun\u2019s median claim changed');
  await runFails((v) => { delete v.reruns[0].primary; }, 'a rerun\u2019s figures', 'a rerun\u2019s median claim removed');
  await runFails((v) => { delete v.reruns[0].manifestCanonical; }, 'the page does not carry the manifest of the rerun at entry 2',
                 'a rerun without its manifest');
  await runFails((v) => { v.reruns[0].manifestCanonical = v.manifestCanonical; }, 'not the ' + f.RERUN_DIGEST,
                 'the run\u2019s own manifest shown as its rerun\u2019s');
  await runFails((v) => { v.supersededBy = 'run-c'; }, 'its successor', 'a successor the entries do not show');
  await runFails((v) => { v.attestations = 3; }, 'its attestations', 'attestations the entries do not show');
  await runFails((v) => { v.index.indexNote = v.index.indexNote.replace('size 300', 'size 299'); }, 'the index note signature does not verify', 'an altered index note');
  await runFails((v) => { delete v.index; }, 'the page carries no index proofs', 'no index proofs');
  await runFails((v) => { v.view = 'kix.group/1'; }, 'the page carries no run view', 'a group view on a run page');
  await runFails((v) => { delete v.logKey; }, 'the view carries no log key', 'no log key');
  const other = await f.logKey('js.test/log');
  await runFails((v) => { v.logKey = other.vkey; }, 'the checkpoint has no signature by the log key js.test/log', 'another log key (same name)');
  /* both keys named: the page's (that it expects) and the checkpoint's signer */
  await runFails((v) => { v.logKey = other.vkey; },
                 other.vkey.split('+').slice(0, 2).join('+') + ' (it is signed by ' + f.key.vkey.split('+').slice(0, 2).join('+') + ')',
                 'another log key: both named');
  /* the view's checkpoint signed, but of another tree at 280: a fork */
  const forked = await f.sign(f.key, f.checkpointText('js.test/log', 280, new Uint8Array(32).fill(7)));
  await runFails((v) => { v.checkpoint = forked; }, 'does not extend the view\u2019s checkpoint at size 280 (a fork)', 'a forked checkpoint');
  const forked300 = await f.sign(f.key, f.checkpointText('js.test/log', 300, new Uint8Array(32).fill(7)));
  await runFails((v) => { v.index.checkpoint = forked300; }, '(a fork)', 'a forked index checkpoint');
  /* the index note bound to another checkpoint */
  const note299 = await f.sign(f.key, f.run.index.indexNote.split('\n\n')[0].replace('size 300', 'size 299') + '\n');
  await runFails((v) => { v.index.indexNote = note299; }, 'the index note is not bound to the view\u2019s checkpoint', 'an index note of another size');
  /* index proofs older than the log: fresh ones from the site, or a failure */
  await refuses(() => kv.verifyRunView(f.staleRun, io, {}), 'the index proofs are at size 280, older than the log\u2019s latest checkpoint at size 300', 'stale index proofs, no fresher');
  await refuses(() => kv.verifyRunView(f.staleRun, { fetchBytes: io.fetchBytes, fetchView: async () => copy(f.staleRun) }, {}),
                'the index proofs are at size 280', 'stale index proofs, the site\u2019s as stale');
  const fresh = await kv.verifyRunView(f.staleRun, { fetchBytes: io.fetchBytes, fetchView: async () => copy(f.run) }, {});
  check(fresh.index.size === 300 && fresh.view.index.checkpoint === f.run.index.checkpoint, 'stale index proofs replaced by the site\u2019s fresh ones');
  await refuses(() => kv.verifyRunView(f.staleRun, { fetchBytes: io.fetchBytes, fetchView: async () => Object.assign(copy(f.run), { runId: 'run-a' }) }, {}),
                'the fresh view is of run run-a', 'fresh proofs of another run');
  await refuses(() => kv.verifyGroupView(f.staleGroup, io, {}), 'older than the log', 'a group view with stale proofs');
  /* proofs past the checkpoint the site serves: read again, then refused */
  let reads = 0;
  const files280 = new Map(f.files);
  files280.set('old-checkpoint', Buffer.from(f.run.checkpoint));
  await refuses(() => kv.verifyRunView(f.run, { fetchBytes: async (p) => { if (p === 'checkpoint') reads++; return fetcher(files280)(p === 'checkpoint' ? 'old-checkpoint' : p); } }, {}),
                'the index proofs are at size 300, past the log\u2019s latest checkpoint at size 280', 'proofs newer than the checkpoint served');
  check(reads === 4, 'the checkpoint read again before refusing: ' + reads);
  /* a tile altered on the server */
  const bad = new Map(f.files), b = Buffer.from(bad.get('tile/entries/000'));
  b[2 + 14 + 2 + 40] ^= 1; /* in entry 1, after entry 0's 14 bytes */
  bad.set('tile/entries/000', b);
  await runFails(() => {}, 'entry 1: its leaf in tile/entries/000 does not hash', 'an altered entry bundle', bad);
  const bad1 = new Map(f.files), b1 = Buffer.from(bad1.get('tile/entries/001.p/44'));
  b1[30] ^= 1; /* an entry the view does not list: not read */
  bad1.set('tile/entries/001.p/44', b1);
  check((await kv.verifyRunView(f.run, { fetchBytes: fetcher(bad1) }, {})).facts.rank.rank === 2,
        'an entry the view does not list is not read');
  const bad2 = new Map(f.files), t = Buffer.from(bad2.get('tile/0/000'));
  t[32 * 1 + 3] ^= 1;
  bad2.set('tile/0/000', t);
  await runFails(() => {}, 'entry 1: its leaf in tile/entries/000 does not hash', 'an altered level-0 tile', bad2);
  const bad3 = new Map(f.files), t3 = Buffer.from(bad3.get('tile/0/001.p/44'));
  t3[32 * 34 + 5] ^= 1; /* entry 290's hash: in the latest tree, after the view's 280 */
  bad3.set('tile/0/001.p/44', t3);
  await runFails(() => {}, 'entry 1 (publication): inclusion fails', 'an altered partial tile', bad3);
  /* the publication entry must name the digest and the run */
  const g = await build({ publication: '{"subject":"run-b"}' });
  await refuses(() => kv.verifyRunView(g.run, { fetchBytes: fetcher(g.files) }, {}),
                'entry 1 is not a kix statement', 'a publication that is no statement');

  /* a group view */
  const pg = await kv.verifyGroupView(f.group, io, {});
  const sg = kv.summary('group', pg, null);
  check(sg.state === 'ok' && sg.text === 'verified against js.test/log at size 300: checkpoint ' +
        'signature; rows 1\u20134 of 4 proven by the log\u2019s signed index at size 300.',
        'the group view verifies: ' + sg.text);
  check(pg.members.map((m) => m.runId).join() === 'run-a,run-b,run-b2,run-c', 'its members');
  const groupFails = async (edit, want, what) => {
    const view = copy(f.group);
    edit(view);
    await refuses(() => kv.verifyGroupView(view, io, {}), want, what);
  };
  await groupFails((v) => { v.size = 5; }, 'the view says 5 runs; the signed index proves 4', 'another size');
  await groupFails((v) => { v.rows.pop(); }, 'the view lists 3 runs from rank 1; the signed index proves 4 there', 'a row left out');
  await groupFails((v) => { v.rows.push(v.rows[3]); }, 'the view lists 5 runs from rank 1', 'a row repeated');
  await groupFails((v) => { v.rows.reverse(); }, 'row 1 shows run run-c', 'rows reversed');
  await groupFails((v) => { v.offset = 1; }, 'the view lists 4 runs from rank 2; the signed index proves 3 there', 'another page claimed');
  await groupFails((v) => { v.index.pages = []; }, 'the view carries no proof of the group\u2019s page', 'a page proof left out');
  await groupFails((v) => { v.index.pages[0].record = flipHex(v.index.pages[0].record); }, 'is not in the signed index', 'an altered page record');
  await groupFails((v) => { [v.rows[0], v.rows[1]] = [v.rows[1], v.rows[0]]; }, 'row 1 shows run run-b', 'two rows swapped');
  await groupFails((v) => { v.rows[2].value = 350; }, 'row 3 shows run run-b2 (350)', 'a value halved');
  await groupFails((v) => { v.rows[3].rank = 3; }, 'row 4', 'a rank changed');
  await groupFails((v) => { v.group = 'sha256:' + 'a'.repeat(64); }, 'the view\u2019s proof is for', 'another group');
  await groupFails((v) => { v.index.groupRecord = flipHex(v.index.groupRecord); }, 'the group\u2019s record is not in the signed index', 'an altered group record');
  /* every cell of a row proven: its run's record, manifest and implementation */
  check(pg.rows['run-a'].provider === 'liger' && pg.rows['run-a'].evidence === 'reproduced' &&
        pg.rows['run-a'].figures.p20 === 480 && pg.rows['run-a'].figures.p80 === 530 &&
        pg.rows['run-a'].observed === '2026-10-30' && pg.rows['run-b'].provider === '',
        'each row\'s provider, evidence, spread and date proven');
  await groupFails((v) => { v.rows[0].evidence = 'reported'; }, 'row 1 (run run-a): the view\u2019s claims differ from what its proofs show: its evidence', 'a row\'s evidence edited');
  await groupFails((v) => { v.rows[2].provider = 'liger'; }, 'row 3 (run run-b2): the view\u2019s claims differ from what its proofs show: its provider', 'a row\'s provider edited');
  await groupFails((v) => { v.rows[3].p80 = 700; }, 'row 4 (run run-c): the view\u2019s claims differ from what its proofs show: its spread', 'a row\'s spread edited');
  await groupFails((v) => { v.rows[3].observedAt = '2026-12-01'; }, 'its observed date', 'a row\'s date edited');
  await groupFails((v) => { v.rows[0].manifestCanonical = v.rows[2].manifestCanonical; }, 'row 1 (run run-a): the manifest shown hashes to', 'a row\'s manifest swapped for another run\'s');
  await groupFails((v) => { v.rows[0].manifestCanonical = v.rows[0].manifestCanonical.replace('"median":500', '"median":400'); }, 'row 1 (run run-a): the manifest shown hashes to', 'a row\'s manifest edited');
  await groupFails((v) => { delete v.rows[1].manifestCanonical; }, 'row 2 (run run-b): the view carries no manifest of the run', 'a row\'s manifest left out');
  await groupFails((v) => { v.rows[0].implementationCanonical = v.rows[2].implementationCanonical; }, 'row 1 (run run-a): the view does not carry the implementation', 'a row\'s implementation swapped');
  await groupFails((v) => { delete v.rows[3].implementationCanonical; }, 'row 4 (run run-c): the view does not carry the implementation', 'a row\'s implementation left out');
  await groupFails((v) => { delete v.rows[2].runRecord; }, 'row 3 (run run-b2): the view carries no index record of the run', 'a row\'s run record left out');
  await groupFails((v) => { v.rows[2].runRecord = flipHex(v.rows[2].runRecord); }, 'row 3 (run run-b2): the run\u2019s record is not in the signed index', 'a row\'s run record altered');
  await groupFails((v) => { [v.rows[2].runRecord, v.rows[3].runRecord] = [v.rows[3].runRecord, v.rows[2].runRecord]; [v.rows[2].runProof, v.rows[3].runProof] = [v.rows[3].runProof, v.rows[2].runProof]; }, 'row 3 (run run-b2): the run\u2019s record is not in the signed index', 'two rows\' run records swapped');
  await groupFails((v) => { v.rows[3].manifestCanonical = v.rows[2].manifestCanonical; v.rows[3].implementationCanonical = v.rows[2].implementationCanonical; v.rows[3].provider = 'triton'; v.rows[3].p20 = 690; v.rows[3].p80 = 720; v.rows[3].observedAt = '2026-10-31'; }, 'row 4 (run run-c): the manifest shown hashes to', 'a row shown wholly as another run of the same value');
  /* the group's withdrawn runs (kix-index/5): exactly the signed index's */
  check(Array.isArray(pg.withdrawn) && pg.withdrawn.length === 0, 'no run of the group withdrawn, proven');
  await groupFails((v) => { v.withdrawn = [{ runId: 'run-x', entry: 13, reason: 'invalid-timing' }]; },
                   'the view lists other withdrawn runs than the signed index: 1 listed, 0 proven',
                   'a withdrawal the index does not hold');
  await groupFails((v) => { delete v.index.withdrawn; }, 'the view carries no proof of the group\u2019s withdrawn runs',
                   'the withdrawn runs\' proof left out');
  await groupFails((v) => { v.index.withdrawn.record = f.vectors.runRecords.find((r) => r.name === 'withdrawn').record; },
                   'a proof of absence was given for a record', 'a withdrawn record where the index has none');
  const wrec = '07' + f.group.group.slice(7) + '0000000000000001' + '05' + Buffer.from('run-x').toString('hex') +
               '000000000000000d' + '01';
  const wd = kv.decodeWithdrawn(kv.unhex(wrec), f.group.group.slice(7));
  check(wd.length === 1 && wd[0].runId === 'run-x' && wd[0].index === 13n && wd[0].reason === 'invalid-timing',
        'a withdrawn record decodes');
  check(!attempt(() => kv.decodeWithdrawn(kv.unhex(wrec.slice(0, -2) + '05'), f.group.group.slice(7))).ok,
        'a withdrawn record with an unknown reason is refused');
  check(!attempt(() => kv.decodeWithdrawn(kv.unhex(wrec + '00'), f.group.group.slice(7))).ok,
        'a withdrawn record with a trailing byte is refused');
  /* a run view's withdrawal must be its entries' */
  await refuses(() => kv.verifyRunView(Object.assign(copy(f.run), { withdrawn: { index: 2, reason: 'other', signer: f.PUBLISHER, date: '', by: 'publisher', note: '' } }), io, {}),
                'its withdrawal', 'a run view claiming a withdrawal its entries do not make');
  const ng = copy(f.group);
  delete ng.index;
  await refuses(() => kv.verifyGroupView(ng, io, {}), 'the page carries no index proofs', 'a group view without index proofs');
  check(kv.summary('run', {}, new kv.Fail('x')).text === 'verification FAILED: x', 'a failure\'s text');
});
