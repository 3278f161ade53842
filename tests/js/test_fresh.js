/* js.fresh: a page whose index proofs are older than the log's latest
 * checkpoint, on a static copy that gives no fresher JSON (kixd export
 * rewrites only the pages of runs and groups with new entries):
 * kix-verify.js computes fresh proofs itself from the copy's index files
 * (PROTOCOL.md section 3.2, as client/lib/source_http_index.c does), and
 * the page verifies at the latest size with the values those prove (a
 * page from when its run ranked 1 of 3 shows rank 2 of 4; its own claims
 * are held to its own proofs). Its
 * proofs are byte for byte kix_smt_prove's (tests/tools/kix-js-vectors.c).
 * An index tile altered, rolled back to another tile's content, or
 * missing, a record altered, or the note of another size, turns the page
 * red; and the same from index packs (a packed record or tile altered, or
 * the pack missing: red). */
'use strict';
const { kv, check, refuses, main } = require('./lib.js');
const { build } = require('./fixture.js');
const { fetcher } = require('./tlog.js');

const copy = (x) => JSON.parse(JSON.stringify(x));

main(async () => {
  const f = await build(), v = f.vectors, root = kv.unhex(v.smt.root);
  const site = (edit) => {
    const m = new Map([...f.files, ...f.indexFiles]);
    if (edit) edit(m);
    return { fetchBytes: fetcher(m) };
  };

  /* the proofs computed from the tiles are kix_smt_prove's, for members
   * and for absent keys alike */
  const files = new kv.IndexFiles(root, site().fetchBytes);
  for (const p of v.smt.proofs.filter((x) => x.name === 'member' || x.name === 'absent')) {
    const got = await files.prove(p.key);
    check(kv.hex(got.proof) === p.proof, p.name + ' ' + p.key + ': the proof from the tiles is C\u2019s');
    check(p.name === 'absent' ? got.record === null : kv.hex(got.record) === p.record,
          p.name + ' ' + p.key + ': its record from index/value/');
  }
  check(kv.tileKey(3, new Uint8Array(32).fill(0xab)).join(',') === '3,171,160',
        'a tile key keeps the first 4s bits of the path');

  /* a stale run page: fresh proofs from the tiles, verified at 300 */
  const run = await kv.verifyRunView(copy(f.staleRun), site(), {});
  check(run.index.size === 300 && run.index.pageSize === 280 && run.cp.size === 300,
        'a stale run page is proven at the latest size: ' + JSON.stringify(run.index));
  check(run.facts.rank.rank === 2 && run.facts.rank.groupSize === 4 && run.facts.rank.best === 'run-a' &&
        run.facts.evidence === 'reproduced' && run.run.reruns.length === 1,
        'the fresh proofs\u2019 rank, best run, evidence and reruns');
  check(run.view.index.checkpoint === f.run.index.checkpoint && run.view.index.runProof === f.run.index.runProof,
        'the fresh proofs are those kixd gives at 300');
  const words = kv.summary('run', run, null);
  check(words.state === 'ok' && words.text.includes('signed index at size 300 (proofs computed from its ' +
        'index tiles; the page\u2019s own were at size 280)'), 'the summary says where the proofs came from: ' + words.text);
  /* the site's JSON as stale as the page: the tiles still prove it */
  const again = await kv.verifyRunView(copy(f.staleRun), Object.assign(site(), { fetchView: async () => copy(f.staleRun) }), {});
  check(again.index.size === 300, 'a stale page whose JSON at the site is as stale');

  /* a page from 280, when run-b ranked 1 of 3: its claims held to its own
   * proofs, what it shows from the fresh ones (rank 2 of 4, best run-a) */
  const older = await kv.verifyRunView(copy(f.olderRun), site(), {});
  check(older.index.size === 300 && older.index.pageSize === 280 && older.facts.rank.rank === 2 &&
        older.facts.rank.groupSize === 4 && older.facts.rank.best === 'run-a' && Number(older.facts.rank.bestValue) === 500,
        'an older page shows the fresh rank: ' + JSON.stringify(older.facts.rank, (k, x) => typeof x === 'bigint' ? String(x) : x));
  await refuses(() => kv.verifyRunView(Object.assign(copy(f.olderRun), { rank: copy(f.run.rank) }), site(), {}),
                'the view says rank 2 of 4; the signed index proves rank 1 of 3', 'an older page claiming today\u2019s rank its own proofs do not give');
  const liar = copy(f.olderRun);
  liar.index.groupRecord = f.run.index.groupRecord;
  await refuses(() => kv.verifyRunView(liar, site(), {}), 'the group\u2019s record is not in the signed index',
                'an older page whose own group proof is altered');
  check(!(await kv.verifyRunView(copy(f.olderRun), site(), {}).then(() => false, () => true)), 'the older page verifies again');

  /* a stale group page: the directory, its page and every row's run record */
  const group = await kv.verifyGroupView(copy(f.staleGroup), site(), {});
  check(group.index.size === 300 && group.members.length === 4 && Object.keys(group.rows).length === 4 &&
        group.rows['run-a'].provider === 'liger', 'a stale group page is proven at the latest size');

  /* the index files lie: red, and the page said to be old */
  const routeTile = [...f.indexFiles.keys()].find((k) => k.startsWith('index/tile/00/'));
  const deeper = [...f.indexFiles.keys()].filter((k) => k.startsWith('index/tile/01'));
  check(routeTile && deeper.length >= 2, 'the fixture\u2019s tree has a root tile and tiles below it');
  const flip = (m, k, at) => { const b = Buffer.from(m.get(k)); b[at] ^= 1; m.set(k, b); };
  const stale = (edit, want, what) =>
    refuses(() => kv.verifyRunView(copy(f.staleRun), site(edit), {}), want, what);
  await stale((m) => flip(m, routeTile, 2 + 65 + 10), 'the index tiles do not hold the route of', 'an altered record in the root tile');
  await stale((m) => flip(m, routeTile, 2 + 30), 'is not the one its name gives', 'an altered top of the root tile');
  /* every tile below the root on the page's routes swapped with another's
   * content (an older or another route's tile under its name) */
  const read = new Set(), logged = site();
  await kv.verifyRunView(copy(f.staleRun), { fetchBytes: (p) => { read.add(p); return logged.fetchBytes(p); } }, {});
  const onRoute = deeper.filter((k) => read.has(k));
  check(onRoute.length >= 1, 'the run\u2019s proofs read tiles below the root: ' + onRoute.length);
  for (const k of onRoute) {
    const other = deeper.find((o) => o !== k);
    await stale((m) => m.set(k, m.get(other)), '', 'tile ' + k + ' rolled back to another tile\u2019s content');
  }
  await stale((m) => { for (const k of deeper) m.delete(k); }, 'HTTP 404', 'the tiles below the root missing');
  const runValue = [...f.indexFiles.keys()].find((k) => k.startsWith('index/value/run/run-b@'));
  await stale((m) => flip(m, runValue, 5), 'does not hash to its name', 'an altered run record file');
  await stale((m) => m.delete('index/notes/300'), 'the index proofs are at size 280, older than the log\u2019s latest checkpoint at size 300, and the site gives none fresher, nor the index files', 'no index note at 300');
  await stale((m) => m.set('index/notes/300', Buffer.from(f.staleRun.index.indexNote)), 'is not bound to the log\u2019s latest checkpoint', 'the index note of 280 served as 300\u2019s');
  await stale((m) => m.set('index/notes/300', Buffer.from(f.run.index.indexNote.replace('size 300', 'size 299'))), 'the index note signature does not verify', 'an altered index note');
  /* the stale page's own claims still held to the proofs */
  const lied = copy(f.staleRun);
  lied.entries = [lied.entries[0]];
  await refuses(() => kv.verifyRunView(lied, site(), {}), 'older than the log\u2019s latest checkpoint at size 300: an old copy',
                'a stale page missing an entry the fresh record commits');
  const groupRow = kv.hex(kv.unhex(f.staleGroup.rows[0].runRecord));
  const g2 = copy(f.staleGroup);
  g2.rows[1].evidence = 'failed';
  await refuses(() => kv.verifyGroupView(g2, site(), {}), 'its evidence', 'a stale group page\u2019s row claim');
  check(groupRow.length > 0, 'the group rows carry run records');
  const tileRed = copy(f.staleGroup);
  await refuses(() => kv.verifyGroupView(tileRed, site((m) => flip(m, routeTile, 2 + 65 + 10)), {}),
                'index tile', 'a stale group page over an altered tile');

  /* the same index as an export packs it (PROTOCOL.md section 3.2, "Index
   * packs"): the root tile by name with locators, every other tile and
   * record in index/pack/300.0; each tile locates all it may hold there */
  const item = (kind, body) => {
    const h = Buffer.alloc(5);
    h[0] = kind;
    h.writeUInt32BE(body.length, 1);
    return Buffer.concat([h, body]);
  };
  const locs = Buffer.concat(Array.from({ length: 31 }, (_, i) => {
    const l = Buffer.alloc(13);
    l[0] = i; /* 0..15: a child tile; 16 + slot: a leaf's record */
    l.writeUInt32BE(300, 5); /* size 300 (8 bytes, big-endian), chunk 0 */
    return l;
  }));
  const packed = (edit) => {
    const m = new Map([...f.files]), items = [];
    for (const [k, b] of f.indexFiles) {
      const t = k.match(/^index\/tile\/([0-9a-f]+)\/[0-9a-f]+$/), val = k.match(/@([0-9a-f]{64})$/);
      if (t && t[1] === '00') m.set(k, Buffer.concat([b, locs]));
      else if (t) items.push(item(1, Buffer.concat([Buffer.from([t[1].length / 2]), Buffer.from(t[1], 'hex'), b, locs])));
      else if (val && k.startsWith('index/value/')) items.push(item(2, Buffer.concat([Buffer.from(val[1], 'hex'), b])));
      else m.set(k, b);
    }
    m.set('index/pack/300.0', Buffer.concat(items));
    if (edit) edit(m);
    return { fetchBytes: fetcher(m) };
  };
  const fromPack = await kv.verifyRunView(copy(f.staleRun), packed(), {});
  check(fromPack.index.size === 300 && fromPack.facts.rank.rank === 2 &&
        fromPack.view.index.runProof === f.run.index.runProof, 'a stale run page proven from index packs');
  const packedGroup = await kv.verifyGroupView(copy(f.staleGroup), packed(), {});
  check(packedGroup.index.size === 300 && packedGroup.members.length === 4, 'a stale group page proven from index packs');
  const runRecord = Buffer.from(f.indexFiles.get(runValue));
  const flipIn = (m, needle, delta) => {
    const b = Buffer.from(m.get('index/pack/300.0')), at = b.indexOf(needle);
    check(at >= 0, 'the pack holds what is altered');
    b[at + delta] ^= 1;
    m.set('index/pack/300.0', b);
  };
  await refuses(() => kv.verifyRunView(copy(f.staleRun), packed((m) => flipIn(m, runRecord, 5)), {}),
                'does not hash to its name', 'a changed record in an index pack');
  const below = Buffer.from(f.indexFiles.get(onRoute[0]));
  await refuses(() => kv.verifyRunView(copy(f.staleRun), packed((m) => flipIn(m, below, 2 + 10)), {}),
                'does not hold the tile', 'a changed tile in an index pack');
  await refuses(() => kv.verifyRunView(copy(f.staleRun), packed((m) => m.delete('index/pack/300.0')), {}),
                'HTTP 404', 'an index pack missing');
});
