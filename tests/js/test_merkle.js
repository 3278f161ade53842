/* js.merkle: kix-verify.js's RFC 9162 hashing and its tlog-tiles reading
 * (the inclusion of an entry recomputed from the tiles, a tree's root and a
 * prefix's root for the fork check) against the transparency-dev/merkle
 * vectors (tests/vectors/merkle: leaf, node and root hashes) and against
 * logs built here with node's SHA-256 up to level-2 tiles; an altered
 * bundle, tile or root must be named. */
'use strict';
const { kv, check, refuses, readJson, main } = require('./lib.js');
const { buildLog, fetcher } = require('./tlog.js');

main(async () => {
  const d = readJson('vectors/merkle/merkle_vectors.json');
  const leaves = d.leaves_hex.map(kv.unhex);
  for (let i = 0; i < leaves.length; i++)
    check(kv.hex(await kv.leafHash(leaves[i])) === d.leaf_hashes_hex[i], 'leaf hash ' + i);
  for (const x of d.extra_leaf_hashes)
    check(kv.hex(await kv.leafHash(new TextEncoder().encode(x.leaf_input_utf8))) ===
          x.leaf_hash_hex, 'leaf hash of ' + x.leaf_input_utf8);

  /* the tiles of the 8-leaf tree: every node, every prefix root, every inclusion */
  const log8 = buildLog(leaves), t8 = new kv.Tiles(8, fetcher(log8.files));
  for (const n of d.node_hashes) {
    const width = n.covers_leaves[1] - n.covers_leaves[0];
    if (width & (width - 1)) continue;
    check(kv.hex(await t8.node(n.level, n.index)) === n.hash_hex, 'node ' + n.level + '/' + n.index);
  }
  for (const r of d.roots) {
    check(kv.hex(await t8.root(0, r.size, -1, null)) === r.root_hex, 'prefix root ' + r.size);
    if (r.size === 0) continue;
    const log = buildLog(leaves.slice(0, r.size)), t = new kv.Tiles(r.size, fetcher(log.files));
    check(kv.hex(await t.root(0, r.size, -1, null)) === r.root_hex, 'root of ' + r.size);
    for (let i = 0; i < r.size; i++) {
      const p = await kv.provenLeaf(t, i, kv.unhex(r.root_hex), 'x');
      check(kv.equal(p.leaf, leaves[i]) && kv.hex(p.leafHash) === d.leaf_hashes_hex[i],
            'inclusion of ' + i + ' in ' + r.size);
    }
  }

  /* a log past one level-2 tile hash: 65536 + 700 leaves */
  const many = [];
  for (let i = 0; i < 65536 + 700; i++) many.push(new TextEncoder().encode('entry ' + i));
  const big = buildLog(many), root = big.root();
  check(big.files.has('tile/2/000.p/1') && big.files.has('tile/1/001.p/2') &&
        big.files.has('tile/0/258.p/188') && big.files.has('tile/entries/258.p/188'),
        'the log has level-2, partial level-1, level-0 tiles and bundles');
  const tb = new kv.Tiles(big.size, fetcher(big.files));
  check(kv.equal(await tb.root(0, big.size, -1, null), root), 'root of the big log');
  for (const n of [0, 1, 255, 256, 511, 65535, 65536, 66000])
    check(kv.equal(await tb.root(0, n, -1, null), big.root(n)), 'prefix root ' + n);
  for (const i of [0, 300, 65535, 65536, 66235]) {
    const p = await kv.provenLeaf(tb, i, root, 'x');
    check(kv.equal(p.leaf, many[i]), 'inclusion of ' + i);
  }
  await refuses(() => kv.provenLeaf(tb, big.size, root, 'x'), 'past the checkpoint', 'an index past the tree');

  /* alterations */
  const alter = (path, at) => {
    const files = new Map(big.files), b = Buffer.from(files.get(path));
    b[at] ^= 1;
    files.set(path, b);
    return new kv.Tiles(big.size, fetcher(files));
  };
  await refuses(() => kv.provenLeaf(alter('tile/entries/258.p/188', 10), 66048, root, 'publication'),
                'entry 66048: its leaf in tile/entries/258.p/188 does not hash', 'a bundle byte');
  await refuses(() => kv.provenLeaf(alter('tile/0/258.p/188', 32 + 5), 66048, root, 'publication'),
                'entry 66048 (publication): inclusion fails', 'a neighbour\'s hash');
  await refuses(() => kv.provenLeaf(alter('tile/1/001.p/2', 7), 66048, root, 'publication'),
                'inclusion fails', 'a level-1 tile byte');
  await refuses(() => kv.provenLeaf(alter('tile/2/000.p/1', 0), 66048, root, 'publication'),
                'tile/2/000.p/1', 'the level-2 tile, named among the tiles read');
  await refuses(() => kv.provenLeaf(tb, 66048, new Uint8Array(32), 'publication'),
                'is not the checkpoint\'s root', 'another root');
  const cut = new Map(big.files);
  cut.set('tile/0/258.p/188', big.files.get('tile/0/258.p/188').subarray(0, 32 * 187));
  await refuses(() => kv.provenLeaf(new kv.Tiles(big.size, fetcher(cut)), 66048, root, 'x'),
                'tile/0/258.p/188 is 5984 bytes, not 6016', 'a short tile');
  const bundle = new Map(big.files);
  bundle.set('tile/entries/258.p/188', Buffer.concat([big.files.get('tile/entries/258.p/188'), Buffer.from([0, 0])]));
  await refuses(() => kv.provenLeaf(new kv.Tiles(big.size, fetcher(bundle)), 66048, root, 'x'),
                'entry bundle tile/entries/258.p/188 is malformed', 'a bundle with an extra entry');
  check(!kv.equal(await alter('tile/1/000', 7).root(0, 512, -1, null), big.root(512)),
        'a prefix root from an altered tile differs');
});
