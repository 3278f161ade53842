/* js.search: kix-search.js, the home page's filter, under node. Over a
 * made-up index of 5,000 groups in 5 pages: each facet filters exactly,
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

/* A page's name: 64 hex digits, made up from its number. */
const nameOf = (s) => String(s).padStart(64, '0');

/* An index, its list of pages and their shards (path -> JSON) from rows in
 * home order, `per` a page; index.shards is what shardsOf makes of the
 * list, as kix-search.js does before a search. */
function makeIndex(rows, per) {
  const files = {}, pages = [];
  for (let s = 0; s * per < rows.length; s++) {
    const part = rows.slice(s * per, (s + 1) * per), p = 'search/' + nameOf(s) + '.json';
    files[p] = { view: 'kix.search-shard/2', rows: part.map((r) => COLUMNS.map((c) => r[c])) };
    const entry = { name: nameOf(s) };
    for (const k in LISTS) entry[LISTS[k]] = [...new Set(part.map((r) => r[k]))];
    pages.push(entry);
  }
  files['search/pages.json'] = { view: 'kix.search-pages/1', pages };
  const shards = ks.shardsOf(files['search/pages.json']);
  return { index: { view: 'kix.search/2', columns: COLUMNS, shards }, files };
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
      check(fetch.reads.length === 1 && fetch.reads[0] === 'search/' + nameOf(3) + '.json',
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
  failed = null;
  await ks.search(index, ks.makeFilter({ kernel: 'rope' }), () => Promise.resolve(
    { view: 'kix.search-shard/1', rows: [] }), {}).catch((e) => { failed = e; });
  check(failed && /not a search shard/.test(failed.message), 'a shard of the older format fails the search');

  // the list of pages names shards by the pages' names alone: an entry
  // whose name is not 64 hex digits (a path, a URL) is no shard to fetch
  const lied = ks.shardsOf({ view: 'kix.search-pages/1', pages: [
    { name: nameOf(1), kernels: ['rope'] }, { name: '//evil.example/x', kernels: ['rope'] },
    { name: '../../etc/passwd', kernels: ['rope'] }, { name: nameOf(2).toUpperCase() + 'A', kernels: ['rope'] },
    { path: 'https://evil.example/s.json', kernels: ['rope'] }, null] });
  check(lied.length === 1 && lied[0].path === 'search/' + nameOf(1) + '.json',
        'a list of pages sends no fetch outside search/<name>.json: ' + JSON.stringify(lied.map((x) => x.path)));
  let bad = null;
  try { ks.shardsOf({ view: 'kix.search/1', shards: [] }); } catch (e) { bad = e; }
  check(bad && /no list of pages/.test(bad.message), 'an older index is no list of pages');
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
    const pages = read('search/pages.json');
    index.shards = ks.shardsOf(pages);
    const fetch = counter(new Proxy({}, { get: (_, p) => read(p) }));
    check(index.view === 'kix.search/2' && index.shards.length >= 2 && index.groups > 1000 &&
          index.pages === index.shards.length && index.lastPage === pages.pages[pages.pages.length - 1].name,
          'the export has a sharded index: ' + index.groups + ' groups, ' +
          index.shards.length + ' pages and shards');

    // every row of every shard, in home order, equals the home pages' rows;
    // each shard's first row names it
    const rows = [];
    for (const [k, s] of index.shards.entries()) {
      const d = read(s.path);
      check(d.rows.length >= 1 && d.rows.length <= 256 &&
            d.rows[0][index.columns.indexOf('group')] === 'sha256:' + pages.pages[k].name,
            s.path + ': its page\u2019s rows, the first its name');
      for (const a of d.rows) rows.push(ks.rowObject(index.columns, a));
    }
    // a copy has no home JSON (PROTOCOL.md §3, "Home rows twice"): each
    // home page's rows are its shard's, in order, and its JSON link names it
    const home = [];
    for (const [p, entry] of pages.pages.entries()) {
      const f = p === 0 ? 'index.html' : 'home/' + entry.name + '.html';
      const html = fs.readFileSync(path.join(dir, 'exp', f), 'utf8');
      const shard = 'search/' + entry.name + '.json';
      check(html.includes('href="' + (p === 0 ? '' : '../') + shard + '">JSON</a>'), f + ' links ' + shard);
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
