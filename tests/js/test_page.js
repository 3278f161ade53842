/* js.page: kix-verify.js's page part under a minimal DOM (dom.js), with
 * no browser: it reads only #kix-view (or, without one, the page's JSON at
 * the log's site), the page's address and the tiles, writes the status
 * (data-state ok / fail) and the data-kix-slot elements from what it
 * proved (ROUND3 slot contract): the proven values replace whatever the
 * page showed there; unproven slots are marked data-verified="no" and
 * "unproven". A page that does not say which run it shows (data-run), is
 * at another run's address, or has no slot for a proven fact fails. */
'use strict';
const path = require('path');
const { kv, src, check, main } = require('./lib.js');
const { build } = require('./fixture.js');
const { h, documentOf, fetchOf } = require('./dom.js');

const SCRIPT = path.join(src, 'client', 'web', 'static', 'kix-verify.js');

/* Runs the script on a page of `view` (null: none) at `href`; returns the
 * document once the status line has its verdict. */
async function load(page, view, files, href, extra, opts) {
  opts = opts || {};
  const attrs = { id: 'kix-verify', 'data-page': page };
  if (opts.subject !== null) attrs['data-' + page] = opts.subject || (page === 'run' ? 'run-b' : view && view.group);
  if (opts.base) attrs['data-kix-base'] = opts.base;
  /* the pin a page's template writes (PROTOCOL.md, "The pages' verifier") */
  if (opts.pin) {
    attrs['data-log-key'] = opts.pin.key;
    attrs['data-origin'] = opts.pin.origin;
    attrs['data-size'] = String(opts.pin.size);
    if (opts.pin.root) attrs['data-root'] = opts.pin.root;
  }
  const runSlots = (opts.drop ? ['run-id', 'title', 'status', 'evidence', 'median', 'spread', 'best', 'observed',
                                 'checkpoint', 'manifest', 'manifest-digest', 'superseded-by', 'supersedes']
    .filter((n) => !opts.drop.includes(n)) : ['run-id', 'title', 'status', 'evidence', 'median', 'spread',
                                             'best', 'observed', 'checkpoint', 'manifest', 'manifest-digest',
                                             'superseded-by', 'supersedes'])
    .map((n) => h('span', { 'data-kix-slot': n }, 'page text of ' + n));
  const tbody = (n) => (opts.drop || []).includes(n) ? [] :
    [h('table', {}, h('tbody', { 'data-kix-slot': n }, h('tr', {}, h('td', {}, 'page row of ' + n))))];
  const body = h('body', {},
    h('div', attrs, h('p', { id: 'verify-status', 'data-state': 'none' }, 'Not verified by this page')),
    ...runSlots,
    h('p', {}, 'Rank ', ...((opts.drop || []).includes('rank') ? [] : [h('span', { 'data-kix-slot': 'rank' }, 'Rank 1 of 9')]), ' of ',
      h('span', { 'data-kix-slot': 'group-size' }, '9'), ' ',
      h('span', { 'data-kix-slot': 'group-page' }, 'rows 1\u20139 of 9')),
    h('table', {}, h('tbody', { 'data-kix-slot': 'group-rows' },
      h('tr', { 'data-rank': '1' }, h('td', {}, '1'), h('td', {}, 'run-z'), h('td', {}, '1')))),
    ...tbody('entries'), ...tbody('reruns'), ...tbody('attestations'),
    h('table', { id: 'fields' }, h('tr', {}, h('td', { 'data-kix-slot': 'field', 'data-kix-object': 'manifest', 'data-kix-ptr': '/runId', 'data-kix-fmt': 'text' }, 'run-z'))),
    h('table', { id: 'old-entries' }, h('tr', { 'data-kix-entry': '1' }, h('td', {}, 'entry 1')),
      h('tr', { 'data-kix-entry': '2' }, h('td', {}, 'entry 2')),
      h('tr', { 'data-kix-entry': '7' }, h('td', {}, 'entry 7'))),
    ...(view ? [h('script', { type: 'application/json', id: 'kix-view' },
                  JSON.stringify(view).replace(/\//g, '\\/'))] : []),
    ...(extra || []));
  const doc = documentOf(body, href);
  globalThis.document = doc;
  globalThis.fetch = fetchOf(files, opts.origin || new URL(href).origin);
  delete require.cache[require.resolve(SCRIPT)];
  require(SCRIPT);
  delete globalThis.document;
  const status = doc.getElementById('verify-status');
  for (let i = 0; i < 500 && ['none', 'running'].includes(status.getAttribute('data-state')); i++)
    await new Promise((r) => setTimeout(r, 10));
  return doc;
}

/* load, the log's files served at `origin` (a mirror), not the page's */
function loadAt(page, view, files, href, origin, opts) {
  return load(page, view, files, href, [], Object.assign({ origin: new URL(origin).origin }, opts));
}

function slot(doc, name) { return doc.querySelectorAll('[data-kix-slot="' + name + '"]')[0]; }
function state(doc) { return doc.getElementById('verify-status').getAttribute('data-state'); }
function text(doc) { return doc.getElementById('verify-status').textContent; }
function proven(el) { return el.getAttribute('data-verified') === 'yes' && !el.classList.contains('unproven'); }
function unproven(el) { return el.getAttribute('data-verified') === 'no' && el.classList.contains('unproven'); }

main(async () => {
  const f = await build();
  const RUN = 'https://js.test/runs/run-b';
  const GROUP = 'https://js.test/groups/' + encodeURIComponent(f.group.group);
  const withJson = (files, view, name) => {
    const m = new Map(files);
    m.set(name || 'runs/run-b.json', Buffer.from(JSON.stringify(view)));
    return m;
  };

  let d = await load('run', f.run, f.files, RUN);
  check(state(d) === 'ok' && text(d).startsWith('verified against js.test/log at size 300: '),
        'a run page verifies: ' + state(d) + ': ' + text(d));
  const shows = (n, want) => check(slot(d, n).textContent === want && proven(slot(d, n)),
                                   'the proven ' + n + ': "' + slot(d, n).textContent + '", want "' + want + '"');
  shows('rank', 'Rank 2 of 4');
  shows('evidence', 'Reproduced by a controlled rerun on 2026-11-02');
  shows('run-id', 'run-b');
  shows('status', 'unknown');
  shows('median', 'not recorded');
  shows('manifest', f.run.manifestCanonical);
  shows('manifest-digest', f.run.manifestDigest);
  shows('superseded-by', '');
  check(slot(d, 'checkpoint').textContent.startsWith('js.test/log\n300\n') && proven(slot(d, 'checkpoint')),
        'the checkpoint slot: the latest signed checkpoint');
  check(slot(d, 'best').querySelector('a').getAttribute('href') === 'https://js.test/runs/run-a.html', 'best links run-a.html (the name any static server types)');
  const reruns = slot(d, 'reruns').querySelectorAll('tr');
  check(reruns.length === 1 && reruns[0].querySelectorAll('td').map((c) => c.textContent).join('|') ===
        '2|2026-11-02|reproduced|11.5 \u00b5s|key ' + 'b7'.repeat(8) + '|' + f.RERUN_DIGEST,
        'the rerun row, proven, with the median its own manifest gives');
  check(slot(d, 'attestations').querySelectorAll('tr').length === 0 && proven(slot(d, 'attestations')),
        'no attestations: the page\'s row replaced by none');
  const er = slot(d, 'entries').querySelectorAll('tr');
  check(er.length === 2 && er[0].querySelectorAll('td')[1].textContent === 'publication' &&
        er[1].querySelectorAll('td')[2].textContent === 'tile/0/000' &&
        er[1].querySelector('a').getAttribute('href') === 'https://js.test/tile/0/000', 'the entries table from the proven entries');
  check(slot(d, 'field').textContent === 'run-b' && proven(slot(d, 'field')), 'an object field cell recomputed from the manifest');
  const entries = d.querySelectorAll('tr[data-kix-entry]');
  check(proven(entries[0]) && proven(entries[1]) && unproven(entries[2]),
        'the listed entries proven, a row the view does not list not');

  /* the view claims another rank: FAILED, the slots show what was proven */
  const lie = JSON.parse(JSON.stringify(f.run));
  lie.rank.rank = 1;
  d = await load('run', lie, f.files, RUN);
  check(state(d) === 'fail' && text(d) === 'verification FAILED: the view says rank 1 of 4; the ' +
        'signed index proves rank 2 of 4', 'a view with another rank fails: ' + text(d));
  check(slot(d, 'rank').textContent === 'Rank 2 of 4', 'and the rank slot shows the proven rank');

  /* a checkpoint altered: nothing of the index proven, every slot unproven */
  const bad = new Map(f.files), cp = Buffer.from(bad.get('checkpoint'));
  cp[cp.indexOf('\n') + 1] ^= 1; /* the size line */
  bad.set('checkpoint', cp);
  d = await load('run', f.run, bad, RUN);
  check(state(d) === 'fail' && text(d).includes('checkpoint'), 'an altered checkpoint fails: ' + text(d));
  check(['rank', 'evidence', 'median', 'reruns', 'entries', 'field'].every((n) => unproven(slot(d, n))) &&
        d.querySelectorAll('tr[data-kix-entry]').every(unproven) &&
        slot(d, 'rank').textContent === 'Rank 1 of 9', 'every slot unproven, its text left');

  /* no index proofs: red, not a downgrade */
  const noIndex = JSON.parse(JSON.stringify(f.run));
  delete noIndex.index;
  d = await load('run', noIndex, f.files, RUN);
  check(state(d) === 'fail' && text(d).includes('the page carries no index proofs') && unproven(slot(d, 'rank')),
        'a run page without index proofs fails: ' + text(d));
  /* stale index proofs: the page's JSON at the site gives fresh ones, or it fails */
  d = await load('run', f.staleRun, withJson(f.files, f.run), RUN);
  check(state(d) === 'ok', 'stale index proofs, fresh ones from runs/run-b.json: ' + text(d));
  /* ... or the site's index files, from which the page computes them */
  d = await load('run', f.staleRun, new Map([...withJson(f.files, f.staleRun), ...f.indexFiles]), RUN);
  check(state(d) === 'ok' && text(d).includes('(proofs computed from its index tiles; the page\u2019s own were at size 280)') &&
        slot(d, 'rank').textContent === 'Rank 2 of 4' && slot(d, 'checkpoint').textContent.startsWith('js.test/log\n300\n'),
        'stale index proofs, fresh ones from the index tiles: ' + text(d));
  /* a page from when run-b ranked 1 of 3: the rank it shows is today's */
  d = await load('run', f.olderRun, new Map([...withJson(f.files, f.olderRun), ...f.indexFiles]), RUN);
  check(state(d) === 'ok' && slot(d, 'rank').textContent === 'Rank 2 of 4' &&
        slot(d, 'best').textContent === 'Compare with #1 \u2192', 'an older page shows the fresh rank: ' + text(d));
  d = await load('run', f.staleRun, withJson(f.files, f.staleRun), RUN);
  check(state(d) === 'fail' && text(d).includes('older than the log\u2019s latest checkpoint at size 300'),
        'stale index proofs and a stale JSON: ' + text(d));
  /* no data-run, another data-run */
  d = await load('run', f.run, f.files, RUN, [], { subject: null });
  check(state(d) === 'fail' && text(d).includes('data-run'), 'a page without data-run fails: ' + text(d));
  d = await load('run', f.run, f.files, RUN, [], { subject: 'run-a' });
  check(state(d) === 'fail' && text(d).includes('says it shows run run-a'), 'a page whose data-run is another: ' + text(d));
  /* a proven fact without its slot */
  for (const n of ['reruns', 'rank', 'run-id', 'entries']) {
    d = await load('run', f.run, f.files, RUN, [], { drop: [n] });
    check(state(d) === 'fail' && text(d).includes('data-kix-slot="' + n + '"'), 'a page without the ' + n + ' slot: ' + text(d));
  }

  /* a view shown at another run's address */
  d = await load('run', f.run, f.files, 'https://js.test/runs/run-a', [], { subject: 'run-a' });
  check(state(d) === 'fail' && text(d).includes('this page is at runs/run-a, but its view is of run-b') &&
        unproven(slot(d, 'rank')), 'a run view at another run\'s address fails: ' + text(d));
  d = await load('run', f.run, f.files, 'https://js.test/runs/run-b.html?q=1');
  check(state(d) === 'ok', 'a run page as .html, with a query: ' + text(d));
  check(JSON.stringify(kv.pageSubject('/groups/sha256%3Aab')) === '{"page":"group","id":"sha256:ab"}' &&
        kv.pageSubject('/') === null && kv.pageSubject('/runs/') === null &&
        kv.pageSubject('/runs/%E0%A4%A') === null, 'what a page\'s path names');
  /* run page names (PROTOCOL.md §3): the same as kix_run_page_name
   * (unit.run_ids), escaped ids read back, a digest is the digest */
  const names = { 'run-1': 'run-1', '..': '__d_d', '.size': '__dsize', 'v.json': '_v_djson',
                  'v.html': '_v_dhtml', 'V.HTML': '_V_dHTML', 'a_b.c:d': '_a_ub_dc_cd',
                  'sha256:00ff': '_sha256_c00ff' };
  for (const id of Object.keys(names))
    check(kv.runPageName(id) === names[id] && (id === 'run-1' || kv.runPageId(names[id]) === id),
          'run ' + id + '\'s page name is ' + names[id] + ': ' + kv.runPageName(id));
  check(kv.runPageId('_run-1') === '_run-1' && kv.runPageId('_a_x') === '_a_x',
        'a name no id escapes to reads as itself');
  check(JSON.stringify(kv.pageSubject('/runs/_v_djson.html')) === '{"page":"run","id":"v.json"}',
        'an escaped page name names its run');
  const dg = 'sha256:' + 'ab'.repeat(32);
  check(kv.pageSubject('/runs/' + dg).digest === dg, 'runs/sha256:<hex> names a manifest digest');

  /* a page saved to a file, the log at a mirror (?kix-base=, ?run=) */
  const mirror = 'https://mirror.test/';
  const mfiles = new Map([...f.files].map(([k, v]) => [k, v]));
  d = await load('run', f.run, new Map(), 'file:///home/r/page.html?run=run-b&kix-base=' + encodeURIComponent(mirror));
  check(state(d) === 'fail' && text(d).includes('cannot fetch https://mirror.test/checkpoint'), 'a file page reads the mirror (none here): ' + text(d));
  d = await loadAt('run', f.run, mfiles, 'file:///home/r/page.html?run=run-b&kix-base=' + encodeURIComponent(mirror), mirror);
  check(state(d) === 'ok', 'a page saved to a file verifies against a mirror\'s tiles: ' + text(d));
  d = await loadAt('run', null, withJson(mfiles, f.run), 'file:///home/r/page.html?run=run-b&kix-base=' + encodeURIComponent(mirror), mirror);
  check(state(d) === 'ok' && slot(d, 'rank').textContent === 'Rank 2 of 4', 'a bare page: its view from the mirror\'s JSON: ' + text(d));
  d = await loadAt('run', null, withJson(mfiles, f.run), 'file:///home/r/page.html', mirror, { base: mirror });
  check(state(d) === 'fail' && text(d).includes('names no run'), 'a file page that names no run: ' + text(d));

  /* no view and no JSON */
  d = await load('run', null, f.files, RUN);
  check(state(d) === 'fail' && text(d).includes('runs/run-b.json: HTTP 404'), 'no view: ' + text(d));

  /* a group page */
  d = await load('group', f.group, f.files, GROUP);
  check(state(d) === 'ok' && text(d).includes('rows 1\u20134 of 4 proven'), 'a group page verifies: ' + text(d));
  check(slot(d, 'group-rows').querySelectorAll('tr').length === 4 && slot(d, 'group-size').textContent === '4',
        'its rows and size proven');
  d = await load('group', f.group, f.files, 'https://js.test/groups/sha256:' + 'f'.repeat(64), [], { subject: 'sha256:' + 'f'.repeat(64) });
  check(state(d) === 'fail' && text(d).includes('this page is at groups/sha256:fff'), 'a group view at another group\'s address');
  const rowLie = JSON.parse(JSON.stringify(f.group));
  rowLie.rows[0].runId = 'run-c';
  d = await load('group', rowLie, f.files, GROUP);
  check(state(d) === 'fail' && text(d).includes('row 1 shows run run-c'), 'a group view with another row fails: ' + text(d));
  /* a bare group page (as exported): its view from groups/<key>.json, a
   * later page's, groups/<key>-N, from groups/<key>-N.json */
  const gjson = 'groups/' + encodeURIComponent(f.group.group);
  d = await load('group', null, withJson(f.files, f.group, gjson + '.json'), GROUP, [], { subject: f.group.group });
  check(state(d) === 'ok' && text(d).includes('rows 1\u20134 of 4 proven'), 'a bare group page: its view from groups/<key>.json: ' + text(d));
  d = await load('group', null, withJson(f.files, f.group, gjson + '.json'), GROUP + '-2', [], { subject: f.group.group });
  check(state(d) === 'fail' && text(d).includes(gjson + '-2.json: HTTP 404'), 'a bare page 2 of a group reads groups/<key>-2.json: ' + text(d));
  d = await load('group', null, withJson(f.files, f.group, gjson + '-2.json'), GROUP + '-2', [], { subject: f.group.group });
  check(state(d) === 'fail' && text(d).includes('this is page 2 of the group'), 'page 1\'s view as groups/<key>-2.json: ' + text(d));
  const firstRow = slot(d = await load('group', f.group, f.files, GROUP), 'group-rows').querySelector('tr');
  check(firstRow.querySelectorAll('td').length === 9 && firstRow.querySelectorAll('td')[3].textContent === '500 ns' &&
        firstRow.querySelectorAll('td')[5].textContent === '1.00\u00d7', 'a proven row: rank, implementation, provider, median with its unit, spread, vs #1, evidence, date, run');
  check(slot(d, 'group-page').textContent === 'rows 1\u20134 of 4' && proven(slot(d, 'group-page')), 'the proven "rows a\u2013b of n"');
  const cells = (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent);
  const rows = [...slot(d, 'group-rows').querySelectorAll('tr')].map(cells);
  check(JSON.stringify(rows[0].slice(0, 8)) === JSON.stringify(['1', 'liger-kernel', 'liger', '500 ns', '480 ns\u2013530 ns', '1.00\u00d7',
        'Reproduced by a controlled rerun', '2026-10-30']) &&
        JSON.stringify(rows[3].slice(0, 8)) === JSON.stringify(['4', 'torch-kernel', 'torch', '700 ns', '650 ns\u2013900 ns', '0.71\u00d7',
        'Reported evidence', '2026-11-03']) && rows[1][1] === 'not recorded' && rows[1][2] === 'not recorded',
        'every cell of a row written from what was proven: ' + JSON.stringify(rows));
  for (const [edit, want, what] of [
    [(v) => { v.rows[0].evidence = 'reported'; }, 'its evidence', 'a row\'s evidence edited'],
    [(v) => { v.rows[1].provider = 'liger'; }, 'its provider', 'a row\'s provider edited'],
    [(v) => { v.rows[0].implementation = 'FastKern'; }, 'its implementation', 'a row\'s implementation edited'],
    [(v) => { v.rows[2].p20 = 1; }, 'its spread', 'a row\'s spread edited'],
    [(v) => { v.rows[0].manifestCanonical = v.rows[3].manifestCanonical; }, 'the manifest shown hashes to', 'a row\'s manifest swapped for another run\'s'],
    [(v) => { delete v.rows[3].implementationCanonical; }, 'does not carry the implementation', 'a row\'s implementation left out']]) {
    const lie = JSON.parse(JSON.stringify(f.group));
    edit(lie);
    const dl = await load('group', lie, f.files, GROUP);
    const shown = [...slot(dl, 'group-rows').querySelectorAll('tr')].map(cells);
    check(state(dl) === 'fail' && text(dl).includes(want) && !shown.some((r) => r[2] === 'liger' && r[0] !== '1'),
          what + ' turns the group page red: ' + text(dl));
  }
  check(JSON.stringify(kv.pageSubject('/groups/sha256%3Aab-3')) === '{"page":"group","id":"sha256:ab","groupPage":3}' &&
        JSON.stringify(kv.pageSubject('/groups/sha256%3Aab', '?page=2')) === '{"page":"group","id":"sha256:ab","groupPage":2}',
        'a group page\'s number, from the export\'s file name or kixd\'s ?page=N');
  d = await load('group', f.group, f.files, GROUP + '-2');
  check(state(d) === 'fail' && text(d).includes('this is page 2 of the group'), 'the first page served as the export\'s page 2 fails: ' + text(d));
  d = await load('group', f.group, f.files, GROUP + '?page=2');
  check(state(d) === 'fail' && text(d).includes('this is page 2 of the group, but its view starts at rank 1'),
        'the first page served for ?page=2 fails: ' + text(d));
  const dropped = JSON.parse(JSON.stringify(f.group));
  dropped.rows.splice(1, 1);
  d = await load('group', dropped, f.files, GROUP);
  check(state(d) === 'fail' && text(d).includes('the view lists 3 runs from rank 1; the signed index proves 4 there'),
        'a group page with a row dropped fails: ' + text(d));

  /* ---- the page's pin: the log key, origin and size it was written from ---------------- */
  const rootAt = (n) => Buffer.from(f.log.root(n)).toString('base64');
  const pin = (o) => Object.assign({ key: f.run.logKey, origin: 'js.test/log', size: 300, root: rootAt(300) }, o);
  d = await load('run', f.run, f.files, RUN, [], { pin: pin() });
  check(state(d) === 'ok', 'a page pinned at the log\'s size verifies: ' + text(d));
  d = await load('run', f.run, f.files, RUN, [], { pin: pin({ size: 280, root: rootAt(280) }) });
  check(state(d) === 'ok', 'a page pinned at 280, the log at 300: fresher is fine, its tree extended: ' + text(d));
  d = await load('group', f.group, f.files, GROUP, [], { pin: pin({ size: 280, root: rootAt(280) }) });
  check(state(d) === 'ok', 'a group page pinned at 280 verifies at 300: ' + text(d));
  /* the copy is older than the page: "stale", never green, both sizes said */
  d = await load('run', f.run, f.files, RUN, [], { pin: pin({ size: 302, root: null }) });
  check(state(d) === 'stale' && text(d).includes('size 300, older than the size 302 this page was written from') &&
        unproven(slot(d, 'rank')), 'a copy older than the page is stale: ' + state(d) + ': ' + text(d));
  d = await load('group', f.group, f.files, GROUP, [], { pin: pin({ size: 301, root: null }) });
  check(state(d) === 'stale' && text(d).includes('older than the size 301'), 'a group page on an older copy is stale: ' + text(d));
  /* a fork: the log does not extend the root the page was written at */
  d = await load('run', f.run, f.files, RUN, [], { pin: pin({ size: 280, root: rootAt(279) }) });
  check(state(d) === 'fail' && text(d).includes('does not extend the tree at size 280 this page was written from'),
        'a log that does not extend the page\'s tree: ' + text(d));
  /* another log: the same origin name, another key, its own signed
   * checkpoint and view: green without the pin, red with it, both keys named */
  const other = await f.logKey('js.test/log');
  const ofiles = new Map(f.files);
  ofiles.set('checkpoint', Buffer.from(await f.sign(other, f.checkpointText('js.test/log', 300, f.log.root(300)))));
  const oview = JSON.parse(JSON.stringify(f.run));
  const resign = (t) => f.sign(other, t.slice(0, t.lastIndexOf('\n\n') + 1));
  oview.logKey = other.vkey;
  oview.checkpoint = await resign(oview.checkpoint);
  oview.index.checkpoint = await resign(oview.index.checkpoint);
  oview.index.indexNote = await resign(oview.index.indexNote);
  d = await load('run', oview, ofiles, RUN);
  check(state(d) === 'ok', 'another log\'s copy verifies on its own key (a page that pins nothing): ' + text(d));
  d = await load('run', oview, ofiles, RUN, [], { pin: pin() });
  const name = (k) => k.split('+').slice(0, 2).join('+');
  check(state(d) === 'fail' && text(d).includes(name(f.run.logKey)) && text(d).includes(name(other.vkey)) &&
        name(f.run.logKey) !== name(other.vkey) && unproven(slot(d, 'rank')),
        'another log\'s view, the same origin, another key: red, both keys named: ' + text(d));
  /* the view under the page's key, the checkpoint under another's */
  d = await load('run', f.run, ofiles, RUN, [], { pin: pin() });
  check(state(d) === 'fail' && text(d).includes('no signature by the log key ' + name(f.run.logKey)) &&
        text(d).includes(name(other.vkey)), 'another log\'s checkpoint: red, both keys named: ' + text(d));
  d = await load('run', f.run, f.files, RUN, [], { pin: pin({ origin: 'js.test/other' }) });
  check(state(d) === 'fail' && text(d).includes('js.test/other'), 'a page pinned to another origin: ' + text(d));
  d = await load('run', f.run, f.files, RUN, [], { pin: pin({ size: 'x' }) });
  check(state(d) === 'fail' && text(d).includes('data-size'), 'a pin without its size: ' + text(d));

  /* ---- what a verified page never shows: [object Object], undefined, NaN --------------- */
  check(kv.formatField({ name: 'k', dtype: 'bf16', shape: [1, 8, 2048, 16] }, 'shape') === 'bf16 [1, 8, 2048, 16]' &&
        kv.formatField([4, 2], 'shape') === '[4, 2]' && kv.formatField({ name: 'q' }, 'shape') === 'not recorded',
        'a tensor field as C writes it: ' + kv.formatField({ name: 'k', dtype: 'bf16', shape: [1, 8, 2048, 16] }, 'shape'));
  check(kv.verifyRunView, 'the module still exports under a document');
});
