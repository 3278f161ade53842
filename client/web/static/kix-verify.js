/* kix-verify.js: checks a kix run page (runs/<runId>) in the reader's
 * browser against the log itself, so that the page is no longer the
 * server's word.
 *
 * Shipped with kix and served by kixd at /kix-verify.js (and written to
 * every export); no third-party code, no build step. It uses only the
 * browser's WebCrypto (crypto.subtle: SHA-256 and Ed25519), which browsers
 * offer only on secure pages (https://, or http://localhost / 127.0.0.1).
 *
 * What it checks, reading only the C2SP tlog-tiles next to the page
 * (checkpoint, tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>]):
 *   1. the checkpoint (a C2SP signed note) carries a valid Ed25519
 *      signature by the log key printed on the page (#log-vkey), and names
 *      the page's origin;
 *   2. every log entry the page lists (#entries, data-index) is in the
 *      tree the checkpoint signs: its leaf comes from the entry bundle, its
 *      RFC 9162 leaf hash must equal the level-0 tile's hash, and the root
 *      recomputed from it and the tiles' hashes (the inclusion proof a
 *      tlog-tiles client reads) must equal the checkpoint's root;
 *   3. the canonical manifest shown on the page (#manifest) hashes to the
 *      digest the page prints (#manifest-digest), and the run's publication
 *      entry (a DSSE envelope) names that digest.
 *   4. the index proofs the page carries (#kix-index, PROTOCOL.md \u00a74):
 *      the checkpoint at the page's size, signed, and a prefix of the latest
 *      tree (recomputed from the tiles); the index note signed beside it;
 *      the run's record and its group's record, each with its sparse Merkle
 *      proof to the signed index root; the rank and evidence the page shows
 *      must be the ones these records prove.
 * On a group page (groups/<key>) it checks the checkpoint and, from the
 * group's record in the signed index (#kix-index), every row's rank, run
 * and median and the group's size.
 * It then shows "verified against <origin> at size N", or exactly what
 * failed. A page without index proofs has its rank and evidence marked
 * "not proven by the page", never verified.
 */
(function () {
  'use strict';

  var enc = new TextEncoder();
  var base = new URL('../', document.location.href); /* the site root */

  function Fail(msg) { this.message = msg; }

  function hex(b) {
    var s = '';
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
    return s;
  }

  function b64(s) {
    var bin;
    try { bin = atob(s); } catch (e) { throw new Fail('bad base64: ' + s.slice(0, 40)); }
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function cat() {
    var n = 0, i, o = 0;
    for (i = 0; i < arguments.length; i++) n += arguments[i].length;
    var out = new Uint8Array(n);
    for (i = 0; i < arguments.length; i++) { out.set(arguments[i], o); o += arguments[i].length; }
    return out;
  }

  function equal(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  }

  /* RFC 9162: leaf hash SHA-256(0x00 || leaf), node SHA-256(0x01 || l || r). */
  function leafHash(leaf) { return sha256(cat(new Uint8Array([0]), leaf)); }
  function nodeHash(l, r) { return sha256(cat(new Uint8Array([1]), l, r)); }

  async function fetchBytes(path) {
    var res;
    try {
      res = await fetch(new URL(path, base), { cache: 'no-cache' });
    } catch (e) {
      throw new Fail('cannot fetch ' + path + ': ' + e);
    }
    if (!res.ok) throw new Fail('cannot fetch ' + path + ': HTTP ' + res.status);
    return new Uint8Array(await res.arrayBuffer());
  }

  /* ---- the checkpoint: a C2SP signed note ---------------------------------------- */

  /* vkey "<name>+<hash hex>+<base64(0x01 || 32-byte public key)>" */
  async function parseVkey(text) {
    /* the name has no '+'; the base64 key may */
    var m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text.trim());
    var parts = m ? m.slice(1) : null;
    if (!parts)
      throw new Fail('the log key printed on the page is not a note verifier key');
    var key = b64(parts[2]);
    if (key.length !== 33 || key[0] !== 1)
      throw new Fail('the log key printed on the page is not an Ed25519 key');
    /* key hash: the first 4 bytes of SHA-256(name || "\n" || 0x01 || pub) */
    var h = await sha256(cat(enc.encode(parts[0] + '\n'), key));
    if (hex(h.slice(0, 4)) !== parts[1])
      throw new Fail('the log key printed on the page has a wrong key hash');
    return { name: parts[0], hash: h.slice(0, 4), pub: key.slice(1) };
  }

  /* A C2SP signed note's text, once its signature by the log key verifies. */
  async function verifyNote(text, vkey, what) {
    var cut = text.indexOf('\n\n');
    if (cut < 0) throw new Fail('the ' + what + ' is not a signed note (no blank line)');
    var body = text.slice(0, cut + 1); /* the signed message: the text and its last newline */
    var sigs = text.slice(cut + 2).split('\n'), sig = null;
    for (var i = 0; i < sigs.length; i++) {
      var m = /^\u2014 (\S+) (\S+)$/.exec(sigs[i]);
      if (!m || m[1] !== vkey.name) continue;
      var raw = b64(m[2]);
      if (raw.length === 68 && equal(raw.slice(0, 4), vkey.hash)) sig = raw.slice(4);
    }
    if (!sig) throw new Fail('the ' + what + ' has no signature by the log key ' + vkey.name);
    var key, ok;
    try {
      key = await crypto.subtle.importKey('raw', vkey.pub, { name: 'Ed25519' }, false,
                                          ['verify']);
    } catch (e) {
      throw new Fail('this browser cannot check Ed25519 signatures (WebCrypto: ' + e +
                     '); verify with a tlog-tiles client instead');
    }
    ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, sig, enc.encode(body));
    if (!ok) throw new Fail('the ' + what + ' signature does not verify with the log key ' +
                            vkey.name);
    return body;
  }

  async function verifyCheckpoint(text, vkey) {
    var lines = (await verifyNote(text, vkey, 'checkpoint')).split('\n');
    if (lines.length < 4 || !/^[0-9]+$/.test(lines[1]))
      throw new Fail('the checkpoint body is malformed');
    var root = b64(lines[2]);
    if (root.length !== 32) throw new Fail('the checkpoint root is not 32 bytes');
    return { origin: lines[0], size: Number(lines[1]), root: root };
  }

  /* ---- the verifiable index (PROTOCOL.md \u00a74, store/verify/SMT.md) ------------- */

  function unhex(s) {
    if (!/^([0-9a-f]{2})*$/.test(s)) throw new Fail('bad hex in the index proofs');
    var b = new Uint8Array(s.length / 2);
    for (var i = 0; i < b.length; i++) b[i] = parseInt(s.substr(2 * i, 2), 16);
    return b;
  }

  function bit(p, i) { return (p[i >> 3] >> (7 - (i & 7))) & 1; }

  /* The root an SMT proof leads to for `key` holding `record` (null: absent). */
  async function smtRoot(key, record, proof) {
    var path = await sha256(enc.encode(key)), zero = new Uint8Array(32);
    if (proof.length < 3) throw new Fail('an index proof is truncated');
    var kind = proof[0], depth = proof[1] << 8 | proof[2], o = 3 + Math.ceil(depth / 8);
    var bitmap = proof.slice(3, o), h, ones = 0;
    if (depth > 256 || kind > 2) throw new Fail('an index proof is malformed');
    for (var i = 0; i < depth; i++) ones += bit(bitmap, i);
    if (proof.length !== o + (kind === 2 ? 64 : 0) + 32 * ones)
      throw new Fail('an index proof has the wrong length');
    if (kind === 1) {
      if (!record) throw new Fail('a proof of membership was given for an absence');
      h = await sha256(cat(new Uint8Array([2]), path, await sha256(record)));
    } else {
      if (record) throw new Fail('a proof of absence was given for a record');
      if (kind === 2) {
        var other = proof.slice(o, o + 32);
        for (var j = 0; j < depth; j++)
          if (bit(other, j) !== bit(path, j)) throw new Fail('an absence proof is off its route');
        if (equal(other, path)) throw new Fail('an absence proof names the key itself');
        h = await sha256(cat(new Uint8Array([2]), proof.slice(o, o + 64)));
        o += 64;
      } else {
        h = zero;
      }
    }
    if (depth > 0 && !bit(bitmap, depth - 1)) throw new Fail('an index proof is not canonical');
    var end = proof.length;
    for (var d = depth - 1; d >= 0; d--) {
      var s = zero;
      if (bit(bitmap, d)) { s = proof.slice(end - 32, end); end -= 32; }
      h = await sha256(bit(path, d) ? cat(new Uint8Array([3]), s, h)
                                    : cat(new Uint8Array([3]), h, s));
    }
    return h;
  }

  var EVIDENCE = ['reported', 'reproduced', 'not_reproduced', 'failed'];

  /* A group record's members, checked as PROTOCOL.md \u00a74.2 says: its tag,
   * its key, strictly in rank order (value, then run id bytes), exact length. */
  function groupMembers(rec, keyHex) {
    var o = 33, members = [], count, last = null;
    function u64() {
      var v = 0;
      for (var i = 0; i < 8; i++) v = v * 256 + rec[o + i];
      o += 8;
      return v;
    }
    if (rec.length < 41 || rec[0] !== 2) throw new Fail('the group record has the wrong tag');
    if (hex(rec.slice(1, 33)) !== keyHex) throw new Fail('the group record is another group\u2019s');
    count = u64();
    for (var n = 0; n < count; n++) {
      if (o + 9 > rec.length) throw new Fail('the group record is truncated');
      var value = u64(), len = rec[o], raw = rec.slice(o + 1, o + 1 + len);
      o += 1 + len;
      if (len === 0 || o > rec.length) throw new Fail('the group record is malformed');
      if (last && !(last.value < value || (last.value === value && hex(last.raw) < hex(raw))))
        throw new Fail('the group record is not in rank order');
      last = { value: value, raw: raw };
      members.push({ runId: new TextDecoder().decode(raw), value: value });
    }
    if (o !== rec.length) throw new Fail('the group record is malformed');
    return members;
  }

  /* The index note of the page's embedded proofs (x: #kix-index): the
   * checkpoint at the page's size, signed and a prefix of the latest tree,
   * and the index note signed beside it. Returns that checkpoint and the
   * signed index root. */
  async function verifyIndexNote(x, vkey, origin, latest, tiles) {
    var cp = await verifyCheckpoint(x.checkpoint, vkey);
    if (cp.origin !== origin || cp.size > latest.size)
      throw new Fail('the page\u2019s checkpoint is not one of this log at or before size ' +
                     latest.size);
    if (cp.size < latest.size && !equal(await tiles.root(0, cp.size, -1, null), cp.root))
      throw new Fail('the log at size ' + latest.size + ' does not extend the page\u2019s ' +
                     'checkpoint at size ' + cp.size + ' (a fork)');
    var lines = (await verifyNote(x.indexNote, vkey, 'index note')).split('\n');
    if (lines.length !== 6 || lines[0] !== 'kix.index/v1' || lines[1] !== 'origin ' + origin ||
        lines[2] !== 'size ' + cp.size || !equal(b64(lines[3].slice(4)), cp.root) ||
        lines[3].slice(0, 4) !== 'log ' || lines[4].slice(0, 6) !== 'index ')
      throw new Fail('the index note is not bound to the page\u2019s checkpoint');
    return { cp: cp, root: b64(lines[4].slice(6)) };
  }

  /* Checks a run page's embedded index proofs (#kix-index): the run's and
   * its group's records in the signed index root. Returns what they prove,
   * or null when the page carries none. */
  async function verifyIndex(vkey, origin, latest, tiles, runId) {
    var el = document.getElementById('kix-index');
    if (!el) return null;
    var x = JSON.parse(el.textContent);
    var signed = await verifyIndexNote(x, vkey, origin, latest, tiles);
    var cp = signed.cp, root = signed.root;
    var rec = unhex(x.runRecord);
    if (!equal(await smtRoot('run/' + runId, rec, unhex(x.runProof)), root))
      throw new Fail('the run\u2019s record is not in the signed index');
    var out = { size: cp.size, evidence: EVIDENCE[rec[1 + 32 + 32 + 8]], rank: 0, groupSize: 0 };
    if (x.groupRecord) {
      var g = unhex(x.groupRecord);
      if (!equal(await smtRoot(x.groupKey, g, unhex(x.groupProof)), root))
        throw new Fail('the group\u2019s record is not in the signed index');
      var members = groupMembers(g, x.groupKey.slice(6));
      out.rank = members.findIndex(function (m) { return m.runId === runId; }) + 1;
      out.groupSize = members.length;
    }
    return out;
  }

  /* ---- tiles (c2sp.org/tlog-tiles) ---------------------------------------------------- */

  /* N as 3-digit groups, all but the last prefixed with "x": 1234067 -> x001/x234/067 */
  function tileIndex(n) {
    var s = String(n);
    while (s.length % 3) s = '0' + s;
    var g = s.match(/.../g);
    return g.map(function (x, i) { return i < g.length - 1 ? 'x' + x : x; }).join('/');
  }

  function Tiles(size) {
    this.size = size;
    this.cache = {};
    this.used = [];  /* the tiles the current proof read, to name them on failure */
  }

  /* Width of tile `index` at `level` (hashes at tree level 8*level) in a tree of `size`. */
  Tiles.prototype.width = function (level, index) {
    var n = Math.floor(this.size / Math.pow(256, level)) - index * 256;
    return n >= 256 ? 256 : n;
  };

  Tiles.prototype.path = function (prefix, index, w) {
    return prefix + tileIndex(index) + (w < 256 ? '.p/' + w : '');
  };

  Tiles.prototype.get = async function (path, check) {
    if (!this.cache[path]) this.cache[path] = fetchBytes(path).then(function (b) {
      check(b);
      return b;
    });
    return this.cache[path];
  };

  /* The hash of the complete subtree at tree level h, index k. */
  Tiles.prototype.node = async function (h, k) {
    var level = Math.floor(h / 8), r = h - level * 8;
    var start = k * Math.pow(2, r), count = Math.pow(2, r);
    var t = Math.floor(start / 256), off = start - t * 256, w = this.width(level, t);
    if (w < off + count) throw new Fail('internal: a tile too short for node ' + h + '/' + k);
    var path = this.path('tile/' + level + '/', t, w);
    if (this.used.indexOf(path) < 0) this.used.push(path);
    var tile = await this.get(path, function (b) {
      if (b.length !== w * 32)
        throw new Fail(path + ' is ' + b.length + ' bytes, not ' + w * 32);
    });
    var hs = [];
    for (var i = 0; i < count; i++) hs.push(tile.slice((off + i) * 32, (off + i + 1) * 32));
    while (hs.length > 1) {
      var up = [];
      for (var j = 0; j < hs.length; j += 2) up.push(await nodeHash(hs[j], hs[j + 1]));
      hs = up;
    }
    return hs[0];
  };

  /* Entry `i`'s leaf from its bundle (each entry: 2-byte big-endian length, leaf). */
  Tiles.prototype.leaf = async function (i) {
    var t = Math.floor(i / 256), w = Math.min(256, this.size - t * 256);
    var path = this.path('tile/entries/', t, w);
    var b = await this.get(path, function (b) {
      var o = 0, n = 0;
      while (o < b.length) {
        if (o + 2 > b.length) break;
        o += 2 + (b[o] << 8 | b[o + 1]);
        n++;
      }
      if (o !== b.length || n !== w)
        throw new Fail('entry bundle ' + path + ' is malformed (expected ' + w + ' entries)');
    });
    var o = 0;
    for (var n = 0; n < i - t * 256; n++) o += 2 + (b[o] << 8 | b[o + 1]);
    return { leaf: b.slice(o + 2, o + 2 + (b[o] << 8 | b[o + 1])), path: path };
  };

  /* RFC 9162 MTH of leaves [lo, hi), taking entry `target`'s hash as given and
   * every other complete subtree from the tiles: recomputing the root this way
   * is checking the inclusion proof of `target`. */
  Tiles.prototype.root = async function (lo, hi, target, th) {
    var n = hi - lo;
    if (n === 1 && lo === target) return th;
    if ((n & (n - 1)) === 0 && (target < lo || target >= hi))
      return this.node(Math.log2(n), lo / n);
    var k = 1;
    while (k * 2 < n) k *= 2;
    return nodeHash(await this.root(lo, lo + k, target, th),
                    await this.root(lo + k, hi, target, th));
  };

  /* ---- the page --------------------------------------------------------------------- */

  function show(state, text) {
    var el = document.getElementById('verify-status');
    el.textContent = text;
    el.setAttribute('data-state', state);
    el.style.color = state === 'verified' ? '#146c2e' : state === 'failed' ? '#b00020' : '';
  }

  function unproven(id) {
    var el = document.getElementById(id);
    if (!el) return;
    var s = document.createElement('span');
    s.className = 'muted unproven';
    s.textContent = ' (not proven by the page)';
    el.appendChild(s);
  }

  /* A group page (groups/<key>): every row's rank, run and median must be
   * the member at that rank of the group's record in the signed index, and
   * the page's group size the record's. */
  async function verifyGroupPage(vkey, origin, cp, tiles) {
    var el = document.getElementById('kix-index');
    if (!el) throw new Fail('the page carries no index proof of its group');
    var x = JSON.parse(el.textContent);
    var key = document.getElementById('kix-verify').getAttribute('data-group');
    if (x.groupKey !== key || !/^group\/[0-9a-f]{64}$/.test(key))
      throw new Fail('the page\u2019s proof is for ' + x.groupKey + ', not ' + key);
    var signed = await verifyIndexNote(x, vkey, origin, cp, tiles);
    var rec = unhex(x.groupRecord);
    if (!equal(await smtRoot(key, rec, unhex(x.groupProof)), signed.root))
      throw new Fail('the group\u2019s record is not in the signed index');
    var members = groupMembers(rec, key.slice(6));
    var rows = document.querySelectorAll('tr[data-rank]');
    var sizeEl = document.getElementById('group-size');
    if (!sizeEl || Number(sizeEl.textContent) !== members.length)
      throw new Fail('the page says ' + (sizeEl ? sizeEl.textContent : '?') + ' runs; the ' +
                     'signed index proves ' + members.length);
    if (rows.length > members.length)
      throw new Fail('the page lists ' + rows.length + ' runs; the signed index proves ' +
                     members.length);
    for (var i = 0; i < rows.length; i++) {
      /* what the reader sees (the cells and the link), and what scripts read */
      var m = members[i], row = rows[i], td = row.querySelectorAll('td');
      var link = td.length === 3 ? td[1].querySelector('a') : null;
      if (Number(row.getAttribute('data-rank')) !== i + 1 ||
          row.getAttribute('data-run') !== m.runId ||
          Number(row.getAttribute('data-value')) !== m.value || td.length !== 3 ||
          td[0].textContent !== String(i + 1) || td[1].textContent !== m.runId ||
          td[2].textContent !== String(m.value) || !link ||
          link.getAttribute('href') !== '../runs/' + m.runId)
        throw new Fail('row ' + (i + 1) + ' shows run ' +
                       (td.length > 1 ? td[1].textContent : '?') + ' at rank ' +
                       (td.length ? td[0].textContent : '?') + '; the signed index proves ' +
                       m.runId + ' (' + m.value + ') there');
    }
    return { size: signed.cp.size, runs: rows.length, groupSize: members.length };
  }

  async function run() {
    var vkeyEl = document.getElementById('log-vkey');
    var rows = document.querySelectorAll('#entries tr[data-index]');
    var manifestEl = document.getElementById('manifest');
    var digestEl = document.getElementById('manifest-digest');
    var pageOrigin = document.getElementById('kix-verify').getAttribute('data-origin');
    if (!window.crypto || !crypto.subtle)
      throw new Fail('this page is not a secure context (https:// or localhost), so the ' +
                     'browser offers no WebCrypto; verify with a tlog-tiles client instead');
    var vkey = await parseVkey(vkeyEl.textContent);
    var cpText = new TextDecoder().decode(await fetchBytes('checkpoint'));
    var cp = await verifyCheckpoint(cpText, vkey);
    if (cp.origin !== pageOrigin)
      throw new Fail('the checkpoint is for the log "' + cp.origin + '", not "' + pageOrigin +
                     '"');
    var tiles = new Tiles(cp.size), checked = [], publication = null;
    if (document.getElementById('kix-verify').hasAttribute('data-group'))
      return { cp: cp, group: await verifyGroupPage(vkey, pageOrigin, cp, tiles) };
    for (var r = 0; r < rows.length; r++) {
      var i = Number(rows[r].getAttribute('data-index'));
      var type = rows[r].getAttribute('data-type');
      if (!(i < cp.size))
        throw new Fail('entry ' + i + ' is past the checkpoint (size ' + cp.size + ')');
      tiles.used = [];
      var e = await tiles.leaf(i);
      var lh = await leafHash(e.leaf);
      var t0 = await tiles.node(0, i);
      if (!equal(lh, t0))
        throw new Fail('entry ' + i + ': its leaf in ' + e.path +
                       ' does not hash to the level-0 tile\'s hash (tile or bundle altered)');
      var root = await tiles.root(0, cp.size, i, lh);
      if (!equal(root, cp.root))
        throw new Fail('entry ' + i + ' (' + type + '): inclusion fails: the root recomputed ' +
                       'from ' + e.path + ' and the tiles it read (' + tiles.used.join(', ') +
                       ') is not the checkpoint\'s root');
      if (type === 'publication' && !publication) publication = e.leaf;
      checked.push(i);
    }
    var digest = digestEl.textContent.trim();
    var got = 'sha256:' + hex(await sha256(enc.encode(manifestEl.textContent)));
    if (got !== digest)
      throw new Fail('the manifest shown hashes to ' + got + ', not the page\'s ' + digest);
    if (publication) {
      var env, payload;
      try {
        env = JSON.parse(new TextDecoder().decode(publication));
        payload = new TextDecoder().decode(b64(env.payload));
      } catch (x) {
        throw new Fail('the publication entry is not a DSSE envelope');
      }
      if (payload.indexOf(digest.slice(7)) < 0)
        throw new Fail('the publication entry does not name the manifest digest ' + digest);
    }
    var runId = document.getElementById('kix-verify').getAttribute('data-run');
    if (publication && runId && payload.indexOf('"' + runId + '"') < 0)
      throw new Fail('the publication entry is not about run ' + runId);
    var index = runId ? await verifyIndex(vkey, pageOrigin, cp, tiles, runId) : null;
    if (index) {
      var rankEl = document.getElementById('rank'), evEl = document.getElementById('evidence');
      var m = rankEl ? /Rank (\d+) of (\d+)/.exec(rankEl.textContent) : null;
      var shown = m ? Number(m[1]) + ' of ' + Number(m[2]) : 'unranked';
      var proven = index.rank ? index.rank + ' of ' + index.groupSize : 'unranked';
      if (shown !== proven)
        throw new Fail('the page shows rank ' + shown + '; the signed index proves ' + proven);
      if (evEl && evEl.textContent.trim() !== index.evidence)
        throw new Fail('the page shows evidence "' + evEl.textContent.trim() +
                       '"; the signed index proves "' + index.evidence + '"');
    }
    return { cp: cp, checked: checked, digest: digest, publication: !!publication, index: index };
  }

  function start() {
    if (!document.getElementById('kix-verify')) return;
    show('running', 'verifying against the log\u2019s tiles\u2026');
    run().then(function (v) {
      if (v.group) {
        show('verified', 'verified against ' + v.cp.origin + ' at size ' + v.cp.size +
             ': checkpoint signature; the ranks of ' + v.group.runs + ' of ' +
             v.group.groupSize + ' runs proven by the log\u2019s signed index at size ' +
             v.group.size + '.');
        return;
      }
      show('verified', 'verified against ' + v.cp.origin + ' at size ' + v.cp.size +
           ': checkpoint signature, inclusion of ' + v.checked.length + ' entr' +
           (v.checked.length === 1 ? 'y' : 'ies') + ' (' + v.checked.join(', ') +
           '), manifest digest ' + v.digest +
           (v.publication ? ' (named by the publication entry)' : '') +
           (v.index ? '; rank and evidence proven by the log\u2019s signed index at size ' +
                      v.index.size + '.'
                    : '. Rank and evidence: not proven by the page (it carries no index ' +
                      'proofs).'));
      if (!v.index) {
        unproven('rank');
        unproven('evidence');
      }
    }, function (e) {
      show('failed', 'verification FAILED: ' + (e instanceof Fail ? e.message : String(e)));
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
