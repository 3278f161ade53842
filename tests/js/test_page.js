/* js.page: kix-verify.js's page part under a minimal DOM (dom.js), with
 * no browser: it reads only #kix-view and the tiles, writes the status
 * (data-state ok / partial / fail) and the data-kix-slot elements from what
 * it proved (VIEW-CONTRACT.md): the proven rank, evidence, group size and
 * group rows replace whatever the page showed there; unproven slots are
 * marked data-verified="no" and "unproven". */
'use strict';
const path = require('path');
const { kv, src, check, main } = require('./lib.js');
const { build } = require('./fixture.js');
const { h, documentOf, fetchOf } = require('./dom.js');

const SCRIPT = path.join(src, 'client', 'web', 'static', 'kix-verify.js');

/* Runs the script on a page of `view` (null: none) at `href`; returns the
 * document once the status line has its verdict. */
async function load(page, view, files, href, extra) {
  const body = h('body', {},
    h('p', {}, 'Rank ', h('span', { 'data-kix-slot': 'rank' }, 'Rank 1 of 9'), ' evidence ',
      h('span', { 'data-kix-slot': 'evidence' }, 'failed'), ' of ',
      h('span', { 'data-kix-slot': 'group-size' }, '9'), ' ',
      h('span', { 'data-kix-slot': 'group-page' }, 'rows 1\u20139 of 9')),
    h('table', {}, h('tbody', { 'data-kix-slot': 'group-rows' },
      h('tr', { 'data-rank': '1' }, h('td', {}, '1'), h('td', {}, 'run-z'), h('td', {}, '1')))),
    h('table', { id: 'entries' }, h('tr', { 'data-kix-entry': '1' }, h('td', {}, 'entry 1')),
      h('tr', { 'data-kix-entry': '2' }, h('td', {}, 'entry 2')),
      h('tr', { 'data-kix-entry': '7' }, h('td', {}, 'entry 7'))),
    h('div', { id: 'kix-verify', 'data-page': page },
      h('p', { id: 'verify-status', 'data-state': 'none' }, 'Not verified by this page')),
    ...(view ? [h('script', { type: 'application/json', id: 'kix-view' },
                  JSON.stringify(view).replace(/\//g, '\\/'))] : []),
    ...(extra || []));
  const doc = documentOf(body, href);
  globalThis.document = doc;
  globalThis.fetch = fetchOf(files, new URL(href).origin);
  delete require.cache[require.resolve(SCRIPT)];
  require(SCRIPT);
  delete globalThis.document;
  const status = doc.getElementById('verify-status');
  for (let i = 0; i < 500 && ['none', 'running'].includes(status.getAttribute('data-state')); i++)
    await new Promise((r) => setTimeout(r, 10));
  return doc;
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

  let d = await load('run', f.run, f.files, RUN);
  check(state(d) === 'ok' && text(d).startsWith('verified against js.test/log at size 300: '),
        'a run page verifies: ' + state(d) + ': ' + text(d));
  check(slot(d, 'rank').textContent === 'Rank 2 of 4' && proven(slot(d, 'rank')), 'the proven rank replaces the page\'s');
  check(slot(d, 'evidence').textContent === 'reproduced' && proven(slot(d, 'evidence')), 'the proven evidence');
  check(slot(d, 'group-size').textContent === '4' && proven(slot(d, 'group-size')), 'the proven group size');
  const rows = slot(d, 'group-rows').querySelectorAll('tr');
  check(rows.length === 4 && proven(slot(d, 'group-rows')), 'the group rows rebuilt: ' + rows.length);
  check(rows.map((r) => r.getAttribute('data-rank') + ':' + r.querySelectorAll('td').map((c) => c.textContent).join('|')).join(' ') ===
        '1:1|run-a|500 2:2|run-b|700 3:3|run-b2|700 4:4|run-c|700', 'the rows\' cells');
  check(rows[1].querySelector('a').getAttribute('href') === '../runs/run-b', 'a row links its run');
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

  /* a tile altered: nothing of the index proven, every slot unproven */
  const bad = new Map(f.files), cp = Buffer.from(bad.get('checkpoint'));
  cp[cp.indexOf('\n') + 1] ^= 1; /* the size line */
  bad.set('checkpoint', cp);
  d = await load('run', f.run, bad, RUN);
  check(state(d) === 'fail' && text(d).includes('checkpoint'), 'an altered checkpoint fails: ' + text(d));
  check(['rank', 'evidence', 'group-size', 'group-rows'].every((n) => unproven(slot(d, n))) &&
        d.querySelectorAll('tr[data-kix-entry]').every(unproven) &&
        slot(d, 'rank').textContent === 'Rank 1 of 9', 'every slot unproven, its text left');

  /* no index proofs: partial */
  const noIndex = JSON.parse(JSON.stringify(f.run));
  delete noIndex.index;
  d = await load('run', noIndex, f.files, RUN);
  check(state(d) === 'partial' && unproven(slot(d, 'rank')) && unproven(slot(d, 'evidence')) &&
        proven(d.querySelectorAll('tr[data-kix-entry]')[0]), 'a run page without index proofs is partial');

  /* a view shown at another run's address */
  d = await load('run', f.run, f.files, 'https://js.test/runs/run-a');
  check(state(d) === 'fail' && text(d).includes('this page is at runs/run-a, but its view is of run-b') &&
        unproven(slot(d, 'rank')), 'a run view at another run\'s address fails: ' + text(d));
  d = await load('run', f.run, f.files, 'https://js.test/runs/run-b.html?q=1');
  check(state(d) === 'ok', 'a run page as .html, with a query: ' + text(d));
  check(JSON.stringify(kv.pageSubject('/groups/sha256%3Aab')) === '{"page":"group","id":"sha256:ab"}' &&
        kv.pageSubject('/') === null && kv.pageSubject('/runs/') === null &&
        kv.pageSubject('/runs/%E0%A4%A') === null, 'what a page\'s path names');

  /* no view at all */
  d = await load('run', null, f.files, RUN);
  check(state(d) === 'fail' && text(d).includes('the page carries no view (#kix-view)'), 'no view: ' + text(d));

  /* a group page */
  d = await load('group', f.group, f.files, GROUP);
  check(state(d) === 'ok' && text(d).includes('rows 1\u20134 of 4 proven'), 'a group page verifies: ' + text(d));
  check(slot(d, 'group-rows').querySelectorAll('tr').length === 4 && slot(d, 'group-size').textContent === '4' &&
        unproven(slot(d, 'rank')), 'its rows and size proven, no rank on a group page');
  d = await load('group', f.group, f.files, 'https://js.test/groups/sha256:' + 'f'.repeat(64));
  check(state(d) === 'fail' && text(d).includes('this page is at groups/sha256:fff'), 'a group view at another group\'s address');
  const rowLie = JSON.parse(JSON.stringify(f.group));
  rowLie.rows[0].runId = 'run-c';
  d = await load('group', rowLie, f.files, GROUP);
  check(state(d) === 'fail' && text(d).includes('row 1 shows run run-c'), 'a group view with another row fails: ' + text(d));
  const firstRow = slot(d = await load('group', f.group, f.files, GROUP), 'group-rows').querySelector('tr');
  check(firstRow.querySelectorAll('td').length === 8 && firstRow.querySelectorAll('td')[2].textContent === '500 ns' &&
        firstRow.querySelectorAll('td')[4].textContent === '1.00\u00d7', 'a proven row: rank, provider, median with its unit, spread, vs #1, evidence, date, run');
  check(slot(d, 'group-page').textContent === 'rows 1\u20134 of 4' && proven(slot(d, 'group-page')), 'the proven "rows a\u2013b of n"');
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
  check(kv.verifyRunView, 'the module still exports under a document');
});
