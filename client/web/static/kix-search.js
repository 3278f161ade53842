/* kix-search.js: the home page's filter over every comparison group of the
 * log, by kernel, GPU, best provider, dtype, timed pass and free text.
 *
 * Shipped with kix and served by kixd at /kix-search.js (and written to
 * every export); no third-party code, no build step. Without JavaScript the
 * home page lists the groups in pages (home/<name>, each named by its first
 * group) and its form stays hidden; this script only adds the filter.
 *
 * What it reads: the search index named by the form's data-index
 * (search/index.json, "kix.search/2": the log's counts, the columns of a
 * row and each facet's values; a form marked data-options="index" gets its
 * choices from those values), when a filter runs the list of pages beside
 * it (search/pages.json, "kix.search-pages/1": each page's name and the
 * facet values its rows hold), and the shards a filter can match
 * (search/<name>.json, "kix.search-shard/2": a page's rows in home order,
 * one array per group). A filter on a kernel, GPU, provider, dtype or pass
 * skips every shard that does not hold that value, so a kernel's groups
 * cost a shard or two even at 10^5 groups; free text alone reads the
 * shards in order, showing the first page of matches as soon as it has
 * them and counting the rest after. Shards are fetched once per page view.
 * A static copy's home pages leave out the log's counts (#kix-counts, the
 * kernels table's count cells) and where a page is among the others (no
 * "page 2 of 41", no link to the last page: a new group before it would
 * move them): they are the search index's rankedRuns, kernels, groups,
 * treeSize, pages and lastPage, which this script writes there.
 *
 * What it writes: the groups table's body (#kix-group-rows), rebuilt from
 * the matching rows with text nodes only (never HTML from the data), the
 * status (#kix-search-status), the pager's visibility, and the address's
 * query (?kernel=…&q=…: a search is a link, and a page opened with one
 * runs it). An empty filter puts the page's own rows and pager back.
 *
 * Nothing here is verified: the index is the server's word, like the home
 * page itself; each row links to its group and run pages, which carry the
 * proofs kix-verify.js checks.
 *
 * Its pure functions (no DOM, no network) are exported to node for
 * tests/js/test_search.js when `module` exists; the page part runs only
 * when `document` does.
 */
(function () {
  'use strict';

  var FACETS = ['kernel', 'gpu', 'provider', 'dtype', 'pass'];
  /* the search index's name for each facet's list */
  var FACET_LISTS = { kernel: 'kernels', gpu: 'gpus', provider: 'providers', dtype: 'dtypes',
                      pass: 'passes' };
  var TEXT_FIELDS = ['kernel', 'gpu', 'pass', 'metric', 'dtype', 'workload', 'provider',
                     'implementation', 'source'];
  var PAGE = 100;

  /* "seq = 2048" and "seq=2048" are one word; case does not matter. */
  function normalize(s) {
    return String(s).toLowerCase().replace(/\s*=\s*/g, '=');
  }

  /* A filter from the form's values: {kernel, gpu, provider, dtype, pass,
   * q}; empty values are no condition. */
  function makeFilter(values) {
    var f = { facets: {}, words: [] };
    FACETS.forEach(function (k) {
      if (values[k]) f.facets[k] = String(values[k]);
    });
    f.words = normalize(values.q || '').split(/\s+/).filter(function (w) { return w; });
    return f;
  }

  function isEmpty(f) {
    return Object.keys(f.facets).length === 0 && f.words.length === 0;
  }

  /* A shard row (an array in the index's column order) as an object. */
  function rowObject(columns, a) {
    var o = {};
    for (var i = 0; i < columns.length; i++) o[columns[i]] = a[i];
    return o;
  }

  function rowMatches(row, f) {
    for (var k in f.facets)
      if (row[k] !== f.facets[k]) return false;
    if (!f.words.length) return true;
    var hay = normalize(TEXT_FIELDS.map(function (k) { return row[k] || ''; }).join(' \u0000 '));
    return f.words.every(function (w) { return hay.indexOf(w) >= 0; });
  }

  /* The shards of a list of pages ("kix.search-pages/1"): each page's
   * facet values, and its shard's path from its name (64 hex digits; an
   * entry with any other name is skipped, so the list cannot send a fetch
   * elsewhere). */
  function shardsOf(pages) {
    if (!pages || pages.view !== 'kix.search-pages/1' || !Array.isArray(pages.pages))
      throw new Error('search/pages.json is no list of pages');
    return pages.pages.filter(function (p) {
      return p && typeof p.name === 'string' && /^[0-9a-f]{64}$/.test(p.name);
    }).map(function (p) {
      var s = { path: 'search/' + p.name + '.json' };
      FACETS.forEach(function (k) { s[FACET_LISTS[k]] = p[FACET_LISTS[k]]; });
      return s;
    });
  }

  /* Whether a shard (its entry in shardsOf's list) may hold a match. */
  function shardMayMatch(shard, f) {
    for (var k in f.facets) {
      var list = shard[FACET_LISTS[k]];
      if (!list || list.indexOf(f.facets[k]) < 0) return false;
    }
    return true;
  }

  /* Runs filter f over the index (index.shards: shardsOf's list):
   * fetchJson(path) returns a promise of a shard's JSON. onFirst(rows) (may be null) is called once with the first
   * `limit` matches, or fewer when there are no more; the promise resolves
   * to {rows (the first `limit`), matched (every match), shardsRead}.
   * isStale() (may be null) stops the search early (a newer one started):
   * the result then has stale: true. */
  function search(index, f, fetchJson, opts) {
    opts = opts || {};
    var limit = opts.limit || PAGE, rows = [], matched = 0, read = 0, told = false;
    var shards = (index.shards || []).filter(function (s) { return shardMayMatch(s, f); });
    var i = 0;
    function tell() {
      if (!told && opts.onFirst) { told = true; opts.onFirst(rows.slice()); }
    }
    function next() {
      if (opts.isStale && opts.isStale()) return Promise.resolve({ stale: true });
      if (i >= shards.length) {
        tell();
        return Promise.resolve({ rows: rows, matched: matched, shardsRead: read });
      }
      var s = shards[i++];
      return Promise.resolve(fetchJson(s.path)).then(function (doc) {
        read++;
        if (!doc || doc.view !== 'kix.search-shard/2' || !Array.isArray(doc.rows))
          throw new Error(s.path + ' is not a search shard');
        doc.rows.forEach(function (a) {
          var row = rowObject(index.columns, a);
          if (!rowMatches(row, f)) return;
          matched++;
          if (rows.length < limit) rows.push(row);
        });
        if (rows.length >= limit) tell();
        return next();
      });
    }
    return next();
  }

  var api = { makeFilter: makeFilter, isEmpty: isEmpty, rowMatches: rowMatches,
              shardMayMatch: shardMayMatch, search: search, rowObject: rowObject,
              normalize: normalize, shardsOf: shardsOf };

  /* ---- the page ------------------------------------------------------------------------- */

  function cell(doc, text, href, cls) {
    var td = doc.createElement('td');
    if (cls) td.className = cls;
    if (href) {
      var a = doc.createElement('a');
      a.setAttribute('href', href);
      a.textContent = text;
      td.appendChild(a);
    } else {
      td.textContent = text;
    }
    return td;
  }

  /* The name of run `id`'s files (PROTOCOL.md §3, kix_run_page_name): the
   * id when it follows the run-id grammar, else '_' and the id with '_',
   * '.' and ':' written _u, _d and _c. */
  function runPageName(id) {
    if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id) && !/\.(html|json)$/i.test(id)) return id;
    return '_' + id.replace(/[_.:]/g, function (c) { return c === '_' ? '_u' : c === '.' ? '_d' : '_c'; });
  }

  /* One tr like the server's (templates/home.html): links to the .html
   * names, which every static server types as pages. */
  function rowElement(doc, root, r) {
    var tr = doc.createElement('tr');
    tr.appendChild(cell(doc, r.kernel, root + 'kernels/' + encodeURIComponent(r.kernel) + '.html'));
    tr.appendChild(cell(doc, r.workload || '(no parameters)', root + 'groups/' + r.group + '.html',
                        'workload'));
    tr.appendChild(cell(doc, r.dtype));
    tr.appendChild(cell(doc, r.pass));
    tr.appendChild(cell(doc, r.gpu));
    var best = cell(doc, r.implementation,
                    root + 'runs/' + encodeURIComponent(runPageName(r.best)) + '.html');
    best.appendChild(doc.createTextNode(' (' + r.provider + ')'));
    tr.appendChild(best);
    tr.appendChild(cell(doc, r.median, null, 'num'));
    tr.appendChild(cell(doc, String(r.runs), null, 'num'));
    tr.appendChild(cell(doc, r.source || 'not named'));
    return tr;
  }

  function boot(doc, win) {
    var form = doc.getElementById('kix-search');
    var body = doc.getElementById('kix-group-rows');
    var status = doc.getElementById('kix-search-status');
    if (!form || !body) return;
    var root = form.getAttribute('data-root') || '';
    var pagers = Array.prototype.slice.call(doc.querySelectorAll('nav.pager'));
    var own = Array.prototype.slice.call(body.childNodes);
    var cache = {}, index = null, generation = 0, timer = null;
    function fetchJson(path) {
      if (!cache[path])
        cache[path] = win.fetch(root + path).then(function (r) {
          if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
          return r.json();
        });
      return cache[path];
    }
    function show(rows) {
      while (body.firstChild) body.removeChild(body.firstChild);
      rows.forEach(function (r) {
        body.appendChild(r.nodeType ? r : rowElement(doc, root, r));
      });
    }
    function say(text) { if (status) status.textContent = text; }
    function values() {
      var v = {};
      FACETS.concat(['q']).forEach(function (k) {
        var el = form.elements[k];
        v[k] = el ? el.value : '';
      });
      return v;
    }
    function run() {
      var f = makeFilter(values()), mine = ++generation;
      if (isEmpty(f)) {
        show(own);
        pagers.forEach(function (p) { p.hidden = false; });
        say('');
        return;
      }
      pagers.forEach(function (p) { p.hidden = true; });
      say('searching\u2026');
      var stale = function () { return mine !== generation; };
      (index && index.shards ? Promise.resolve(index) : fetchJson('search/index.json')
        .then(function (ix) {
          if (!ix || ix.view !== 'kix.search/2') throw new Error('search/index.json is no search index');
          return fetchJson('search/pages.json').then(function (pages) {
            index = Object.assign({}, ix, { shards: shardsOf(pages) });
            return index;
          });
        }))
        .then(function (ix) {
          return search(ix, f, fetchJson, {
            limit: PAGE, isStale: stale,
            onFirst: function (rows) {
              if (stale()) return;
              show(rows);
              say(rows.length < PAGE ? rows.length + ' matching groups'
                                     : 'the first ' + PAGE + ' matching groups (counting the rest\u2026)');
            }
          });
        })
        .then(function (res) {
          if (res.stale || stale()) return;
          say(res.matched > res.rows.length
                ? 'the first ' + res.rows.length + ' of ' + res.matched + ' matching groups'
                : res.matched + ' matching group' + (res.matched === 1 ? '' : 's'));
        })
        .catch(function (e) { if (!stale()) say('search failed: ' + e.message); });
    }
    /* the filter rides in the address (?kernel=rope&q=seq%3D2048), so a
     * search is a link; the server ignores the query */
    function remember() {
      if (!win.history || !win.history.replaceState || !win.URLSearchParams) return;
      var q = new win.URLSearchParams(), v = values();
      Object.keys(v).forEach(function (k) { if (v[k]) q.set(k, v[k]); });
      var s = q.toString();
      win.history.replaceState(null, '', (s ? '?' + s : win.location.pathname) + win.location.hash);
    }
    function later() {
      if (timer) win.clearTimeout(timer);
      timer = win.setTimeout(function () { remember(); run(); }, 150);
    }
    form.addEventListener('input', later);
    form.addEventListener('change', later);
    form.addEventListener('submit', function (e) { e.preventDefault(); remember(); run(); });
    function fromAddress() {
      form.hidden = false;
      if (win.location && win.location.search && win.URLSearchParams) {
        var given = new win.URLSearchParams(win.location.search), any = false;
        FACETS.concat(['q']).forEach(function (k) {
          var el = form.elements[k];
          if (el && given.get(k)) { el.value = given.get(k); any = true; }
        });
        if (any) run();
      }
    }
    /* a static copy's home pages from 2 on leave the choices out
     * (data-options="index"): they are the search index's facets, and a
     * new kernel, GPU, provider, dtype or pass would otherwise rewrite
     * every page */
    /* nor the log's counts (each new run would rewrite page 1) */
    if (doc.getElementById('kix-counts') || form.getAttribute('data-options') === 'index')
      fetchJson('search/index.json')
        .then(function (ix) {
          showCounts(doc, ix);
          if (form.getAttribute('data-options') === 'index') showPlace(doc, ix, root, pagers);
        })
        .catch(function () { /* no index: the page without its counts */ });
    if (form.getAttribute('data-options') !== 'index') return fromAddress();
    fetchJson('search/index.json')
      .then(function (ix) {
        if (!ix || ix.view !== 'kix.search/2') throw new Error('search/index.json is no search index');
        FACETS.forEach(function (k) {
          var el = form.elements[k], list = ix.facets && ix.facets[FACET_LISTS[k]];
          (el && list ? list : []).forEach(function (e) {
            var o = doc.createElement('option');
            o.textContent = e[0];
            el.appendChild(o);
          });
        });
        fromAddress();
      })
      .catch(function () { /* no index: the page's own rows and pager, no filter */ });
  }

  /* "1 kernel", "2 kernels" */
  function counted(n, one, many) {
    return n + ' ' + (n === 1 ? one : many);
  }

  /* A static copy's home page leaves out the log's counts (#kix-counts
   * empty) and its kernels table's (empty cells, GPUs without their
   * groups): they are the search index's, written at every export, so a
   * page is rewritten only when its rows change. Text nodes only. */
  function showCounts(doc, ix) {
    var span = doc.getElementById('kix-counts'), table = doc.getElementById('kix-kernels');
    if (!span || !ix || ix.view !== 'kix.search/2' || !Array.isArray(ix.kernels)) return;
    span.textContent = [counted(ix.groups, 'comparison group', 'comparison groups'),
                        counted(ix.rankedRuns, 'ranked run', 'ranked runs'),
                        counted(ix.kernels.length, 'kernel', 'kernels'),
                        counted(ix.treeSize, 'log entry', 'log entries')].join(' \u00b7 ') + ' \u00b7 ';
    var rows = table && table.tBodies[0] ? table.tBodies[0].rows : [];
    Array.prototype.forEach.call(rows, function (tr) {
      var name = tr.cells[0].textContent, k = ix.kernels.filter(function (x) { return x.kernel === name; })[0];
      if (!k || tr.cells.length < 4 || tr.cells[1].textContent !== '') return;
      tr.cells[1].textContent = String(k.groups);
      tr.cells[2].textContent = String(k.runs);
      Array.prototype.forEach.call(tr.cells[3].querySelectorAll('a'), function (a) {
        var g = (k.gpus || []).filter(function (x) { return x.gpu === a.textContent; })[0];
        if (g) a.parentNode.insertBefore(doc.createTextNode(' (' + g.groups + ')'), a.nextSibling);
      });
    });
  }

  /* A static copy's home page says how many groups it holds, not where it
   * is among the pages (#kix-page-at): the pages and groups in all, and a
   * link to the last page (the index's lastPage, a name of 64 hex digits),
   * are the search index's. Text nodes only. */
  function showPlace(doc, ix, root, pagers) {
    var at = doc.getElementById('kix-page-at');
    if (!at || !ix || ix.view !== 'kix.search/2' || typeof ix.pages !== 'number') return;
    at.appendChild(doc.createTextNode(' \u00b7 ' + counted(ix.pages, 'page', 'pages') + ', ' +
                                      counted(ix.groups, 'group', 'groups') + ' in all'));
    var bottom = pagers[pagers.length - 1], here = doc.querySelector('#kix-search');
    var mine = here && here.getAttribute('data-page');
    if (!bottom || typeof ix.lastPage !== 'string' || !/^[0-9a-f]{64}$/.test(ix.lastPage) ||
        ix.pages < 2 || mine === ix.lastPage || bottom.querySelector('a[data-kix-last]')) return;
    var a = doc.createElement('a');
    a.setAttribute('href', root + 'home/' + ix.lastPage + '.html');
    a.setAttribute('data-kix-last', '');
    a.textContent = 'last';
    bottom.appendChild(a);
  }

  api.showCounts = showCounts;
  api.showPlace = showPlace;
  api.boot = boot;
  if (typeof document !== 'undefined' && document.getElementById) {
    if (document.readyState === 'loading')
      document.addEventListener('DOMContentLoaded', function () { boot(document, window); });
    else boot(document, window);
  }
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})();
