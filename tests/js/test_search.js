/* js.search: kix-search.js, the home page's filter, under node. Over a
 * made-up index of 5,000 groups in 5 shards: each facet filters exactly,
 * free text matches every word ("seq = 2048" as "seq=2048"), a facet filter
 * reads only the shards that hold its value, the first page arrives before
 * the count, a stale search stops. Then over the search index a real
 * `kixd export` of Liger rows writes: every filter's answer equals a scan
 * of every shard, and the home pages' rows are the shards' rows. */
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');
const { execFileSync } = require('child_process');
const { src, tests, check, main } = require('./lib.js');
const ks = require(path.join(src, 'client', 'web', 'static', 'kix-search.js'));

const COLUMNS = ['kernel', 'gpu', 'pass', 'metric', 'dtype', 'workload', 'provider',
                 'implementation', 'median', 'value', 'unit', 'runs', 'group', 'best'];
const LISTS = { kernel: 'kernels', gpu: 'gpus', provider: 'providers', dtype: 'dtypes',
                pass: 'passes' };

/* An index and its shards (path -> JSON) from rows in home order. */
function makeIndex(rows, per) {
  const files = {}, shards = [];
  for (let s = 0; s * per < rows.length; s++) {
    const part = rows.slice(s * per, (s + 1) * per), p = 'search/' + s + '.json';
    files[p] = { view: 'kix.search-shard/1', shard: s, firstRow: s * per,
                 rows: part.map((r) => COLUMNS.map((c) => r[c])) };
    const entry = { path: p, firstRow: s * per, rows: part.length };
    for (const k in LISTS) entry[LISTS[k]] = [...new Set(part.map((r) => r[k]))];
    shards.push(entry);
  }
  return { index: { view: 'kix.search/1', columns: COLUMNS, shards }, files };
}

function counter(files) {
  const f = (p) => { f.reads.push(p); return Promise.resolve(files[p]); };
  f.reads = [];
  return f;
}

const brute = (rows, values) => rows.filter((r) => ks.rowMatches(r, ks.makeFilter(values)));

async function madeUp() {
  const kernels = ['cross_entropy', 'embedding', 'geglu', 'rope', 'swiglu'];
  const rows = [];
  for (const k of kernels)
    for (let i = 0; i < 1000; i++)
      rows.push({ kernel: k, gpu: i % 2 ? 'NVIDIA H100' : 'NVIDIA A100',
                  pass: ['forward', 'backward', 'full'][i % 3], metric: 'latency',
                  dtype: i % 5 ? 'bf16' : 'fp32', workload: 'seq = ' + (512 << (i % 4)) + ' \u00b7 hidden = ' + i,
                  provider: i % 7 ? 'liger' : 'torch', implementation: i % 7 ? 'Liger' : 'PyTorch',
                  median: i + ' \u00b5s', value: i * 1000, unit: 'ns', runs: 1 + (i % 3),
                  group: 'sha256:' + k + i, best: 'run-' + k + '-' + i });
  const { index, files } = makeIndex(rows, 1000);

  // each facet alone, exactly
  for (const [k, v] of [['kernel', 'rope'], ['gpu', 'NVIDIA H100'], ['provider', 'torch'],
                        ['dtype', 'fp32'], ['pass', 'backward']]) {
    const fetch = counter(files), want = brute(rows, { [k]: v });
    const res = await ks.search(index, ks.makeFilter({ [k]: v }), fetch, { limit: 100 });
    check(res.matched === want.length && want.length > 0 &&
          res.rows.length === Math.min(100, want.length) &&
          res.rows.every((r, i) => r.group === want[i].group && r[k] === v),
          'filter ' + k + '=' + v + ': ' + res.matched + ' of ' + want.length);
    if (k === 'kernel')
      check(fetch.reads.length === 1 && fetch.reads[0] === 'search/3.json',
            'a kernel filter reads only its shard: ' + fetch.reads);
  }
  // a kernel is never matched by a prefix of its name
  const none = await ks.search(index, ks.makeFilter({ kernel: 'rop' }), counter(files), {});
  check(none.matched === 0 && none.shardsRead === 0, 'kernel "rop" matches nothing, reads nothing');

  // free text: every word, anywhere, any case; "seq = 2048" is "seq=2048"
  for (const q of ['seq = 2048', 'SEQ=2048 Torch', 'geglu h100 fp32', 'hidden=12 liger']) {
    const want = brute(rows, { q }), fetch = counter(files);
    const res = await ks.search(index, ks.makeFilter({ q }), fetch, { limit: 50 });
    check(res.matched === want.length && want.length > 0 &&
          res.rows.every((r, i) => r.group === want[i].group),
          'text "' + q + '": ' + res.matched + ' of ' + want.length);
    check(fetch.reads.length === 5, 'free text alone reads every shard');
  }
  check(ks.rowMatches(rows[0], ks.makeFilter({ q: 'cross_entropy  seq  =  512' })) &&
        !ks.rowMatches(rows[0], ks.makeFilter({ q: 'seq=5120' })),
        'spaces around "=" do not matter');
  check(!ks.rowMatches(rows[1], ks.makeFilter({ q: 'xyzzy' })), 'an absent word matches nothing');
  check(ks.isEmpty(ks.makeFilter({ q: '   ', kernel: '' })), 'an empty form is no filter');

  // facets and text together
  const both = { kernel: 'geglu', dtype: 'fp32', q: 'seq=4096' }, want = brute(rows, both);
  const res = await ks.search(index, ks.makeFilter(both), counter(files), { limit: 1000 });
  check(res.matched === want.length && res.rows.length === want.length &&
        res.rows.every((r) => r.kernel === 'geglu' && r.dtype === 'fp32' &&
                              r.workload.startsWith('seq = 4096')),
        'kernel, dtype and text together: ' + res.matched);

  // the first page comes before the count
  let first = null, readsAtFirst = -1;
  const fetch = counter(files);
  const all = await ks.search(index, ks.makeFilter({ provider: 'liger' }), fetch, {
    limit: 100, onFirst: (r) => { first = r; readsAtFirst = fetch.reads.length; } });
  check(first && first.length === 100 && readsAtFirst === 1 && all.matched > 4000,
        'the first 100 after one shard, then the count: ' + readsAtFirst + ', ' + all.matched);

  // a newer search makes this one stale: it stops reading
  let stale = false;
  const f2 = counter(files);
  const st = await ks.search(index, ks.makeFilter({ q: 'liger' }), (p) => {
    stale = true; return f2(p); }, { isStale: () => stale });
  check(st.stale === true && f2.reads.length === 1, 'a stale search stops after its shard');

  // a shard that is no shard fails the search
  let failed = null;
  await ks.search(index, ks.makeFilter({ kernel: 'rope' }), () => Promise.resolve({ rows: 1 }), {})
    .catch((e) => { failed = e; });
  check(failed && /not a search shard/.test(failed.message), 'a bad shard fails the search');
}

/* The search index of a real export (the same bytes kixd serves). */
async function exported() {
  const bin = process.env.KIX_BIN;
  if (!bin) throw new Error('KIX_BIN is not set (run under ctest)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kix-js-search-'));
  try {
    const csv = fs.readFileSync(path.join(tests, 'data', 'liger', 'all_benchmark_data.csv'), 'utf8')
      .split('\n');
    fs.writeFileSync(path.join(dir, 'rows.csv'), csv.slice(0, 2251).join('\n') + '\n');
    const run = (name, args) => execFileSync(path.join(bin, name), args,
                                             { stdio: ['ignore', 'pipe', 'pipe'] });
    run('kixd', ['init', '--store', path.join(dir, 'o'), '--origin', 'js.test/search',
                 '--admin-key', path.join(dir, 'admin.key')]);
    run('kix', ['keygen', '--name', 'p', '--out', path.join(dir, 'pub')]);
    run('kix', ['key', 'add', '--store', path.join(dir, 'o'), '--key',
                path.join(dir, 'admin.key'), '--role', 'publish', path.join(dir, 'pub.pub')]);
    run('kix-import-liger', ['--key', path.join(dir, 'pub.key'), '--store', path.join(dir, 'o'),
                             '--batch', '2250', path.join(dir, 'rows.csv')]);
    run('kixd', ['export', '--store', path.join(dir, 'o'), path.join(dir, 'exp')]);
    const read = (p) => JSON.parse(fs.readFileSync(path.join(dir, 'exp', p), 'utf8'));
    const index = read('search/index.json');
    const fetch = counter(new Proxy({}, { get: (_, p) => read(p) }));
    check(index.view === 'kix.search/1' && index.shards.length >= 2 && index.groups > 1000,
          'the export has a sharded index: ' + index.groups + ' groups, ' +
          index.shards.length + ' shards');

    // every row of every shard, in home order, equals the home pages' rows
    const rows = [];
    for (const s of index.shards) {
      const d = read(s.path);
      check(d.firstRow === rows.length && d.rows.length === s.rows, s.path + ' in order');
      for (const a of d.rows) rows.push(ks.rowObject(index.columns, a));
    }
    // a copy has no home JSON (PROTOCOL.md §3, "Home rows twice"): each
    // home page's rows are its shard's, in order, and its JSON link names it
    const home = [];
    for (let p = 1; ; p++) {
      const f = p === 1 ? 'index.html' : 'home/' + p + '.html';
      if (!fs.existsSync(path.join(dir, 'exp', f))) break;
      const html = fs.readFileSync(path.join(dir, 'exp', f), 'utf8');
      const shard = 'search/' + Math.floor((p - 1) * 100 / 1000) + '.json';
      check(html.includes('href="' + (p === 1 ? '' : '../') + shard + '">JSON</a>'), f + ' links ' + shard);
      for (const m of html.matchAll(/<tr><td><a [^>]*>[^<]*<\/a><td><a href="(?:\.\.\/)?groups\/([^"]+)\.html">/g))
        home.push(m[1]);
    }
    check(!fs.existsSync(path.join(dir, 'exp', 'index.json')), 'the copy has no home JSON');
    check(home.length === rows.length && home.every((g, i) => g === rows[i].group),
          'the search rows are the home pages\u2019 rows (' + home.length + ')');

    // each facet value, and some text: the filtered answer is the scan's
    for (const k in LISTS)
      for (const [v] of index.facets[LISTS[k]]) {
        const want = brute(rows, { [k]: v });
        fetch.reads = [];
        const res = await ks.search(index, ks.makeFilter({ [k]: v }), fetch, { limit: 1e9 });
        check(res.matched === want.length && res.rows.every((r, i) => r.group === want[i].group),
              k + '=' + v + ': ' + res.matched + ' of ' + want.length);
        check(res.matched === index.facets[LISTS[k]].find((x) => x[0] === v)[1],
              'the facet count of ' + k + '=' + v);
      }
    for (const q of ['rope seq=2048', 'swiglu fp32', 'h100 liger backward', 'torch_compile']) {
      const want = brute(rows, { q });
      const res = await ks.search(index, ks.makeFilter({ q }), fetch, { limit: 1e9 });
      check(res.matched === want.length, 'text "' + q + '": ' + res.matched);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main(async () => {
  await madeUp();
  await exported();
});
