/* kix-verify.js: checks a kix run or group page in the reader's browser
 * against the log itself, so that the page is no longer the server's word.
 *
 * Shipped with kix and served by kixd at /kix-verify.js (and written to
 * every export); no third-party code, no build step. It uses only WebCrypto
 * (crypto.subtle: SHA-256 and Ed25519), which browsers offer only on secure
 * pages (https://, or http://localhost / 127.0.0.1).
 *
 * What it reads: ONLY the page's view document, the JSON in
 * <script type="application/json" id="kix-view"> ("kix.run/1" or
 * "kix.group/1"), the page's kind (#kix-verify's data-page, "run" or
 * "group") and address, and the C2SP tlog-tiles next to the page
 * (checkpoint, tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>]). Never the
 * page's text.
 *
 * What it checks, on a run page (at runs/<runId>, the view's run):
 *   1. the latest checkpoint (../checkpoint, a C2SP signed note) and the
 *      view's `checkpoint` carry valid Ed25519 signatures by the view's
 *      `logKey` and name the view's origin; the view's is at `treeSize` and
 *      the latest tree extends it (recomputed from the tiles: no fork);
 *   2. every entry in `entries` is in the latest tree: its leaf comes from
 *      the entry bundle, its RFC 9162 leaf hash must equal the level-0
 *      tile's hash, and the root recomputed from it and the tiles' hashes
 *      (the inclusion proof a tlog-tiles client reads) must equal the
 *      checkpoint's root;
 *   3. SHA-256(`manifestCanonical`) is `manifestDigest`, JSON.parse of it
 *      equals `manifest` in value, and the publication entry (a DSSE
 *      envelope) names that digest and the run;
 *   4. the index proofs (`index`, PROTOCOL.md section 4): its checkpoint is
 *      signed and a prefix of the latest tree; the index note is signed and
 *      bound to it; the run's record and its group's record are in the
 *      signed index root by their sparse Merkle proofs; the run record names
 *      the manifest digest and the publication entry (which `entries` must
 *      list), and a ranked run is in its group's record at its own value;
 *   5. rank, group size, best run and evidence are derived from those proven
 *      records; the view's own `rank` and `evidence` must equal them.
 * On a group page (at groups/<group>, the view's group): the checkpoints
 * as in 1, and the group's record in the signed index (`index`); `size`
 * and every one of `rows` must be the proven record's.
 *
 * What it writes (from what it proved, never from the view's claims, and
 * also what was proven before a check failed): #verify-status (data-state
 * "ok"; "partial": no index proofs, so rank and evidence unproven; or
 * "fail", with what failed), and the elements with data-kix-slot: "rank"
 * ("Rank R of G", or "Unranked"), "evidence", "group-size", "group-rows"
 * (a <tbody> rebuilt from the proven group members: a <tr data-rank="R">
 * each, cells rank, link to ../runs/<runId>, value), and each
 * tr[data-kix-entry="I"]. Each gets data-verified="yes" when proven, else
 * data-verified="no" and the class "unproven" (its text left as it was).
 *
 * Its pure functions (no DOM, no network) are exported to node for the
 * tests in tests/js/ when `module` exists; the page part runs only when
 * `document` does.
 */
(function () {
  'use strict';

  var enc = new TextEncoder();

  function Fail(msg, code) {
    this.message = msg;
    this.code = code || 'fail';
  }
  Fail.prototype.toString = function () { return 'Fail: ' + this.message; };

  /* ---- bytes ------------------------------------------------------------------------- */

  function hex(b) {
    var s = '';
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
    return s;
  }

  function unhex(s) {
    if (typeof s !== 'string' || !/^([0-9a-f]{2})*$/.test(s)) throw new Fail('bad hex: ' +
                                                                            String(s).slice(0, 40));
    var b = new Uint8Array(s.length / 2);
    for (var i = 0; i < b.length; i++) b[i] = parseInt(s.substr(2 * i, 2), 16);
    return b;
  }

  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  /* Standard base64 with its padding, nothing else (as Go's StdEncoding and
   * kix's decoder: no whitespace, no missing '='). */
  function b64(s) {
    if (typeof s !== 'string' ||
        !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s))
      throw new Fail('bad base64: ' + String(s).slice(0, 40));
    var n = s.length / 4 * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
    var out = new Uint8Array(n), o = 0;
    for (var i = 0; i < s.length; i += 4) {
      var v = 0;
      for (var j = 0; j < 4; j++) v = v << 6 | (s[i + j] === '=' ? 0 : B64.indexOf(s[i + j]));
      if (o < n) out[o++] = v >> 16 & 255;
      if (o < n) out[o++] = v >> 8 & 255;
      if (o < n) out[o++] = v & 255;
    }
    return out;
  }

  function b64encode(b) {
    var s = '';
    for (var i = 0; i < b.length; i += 3) {
      var v = b[i] << 16 | (i + 1 < b.length ? b[i + 1] << 8 : 0) | (i + 2 < b.length ? b[i + 2] : 0);
      s += B64[v >> 18 & 63] + B64[v >> 12 & 63] + (i + 1 < b.length ? B64[v >> 6 & 63] : '=') +
           (i + 2 < b.length ? B64[v & 63] : '=');
    }
    return s;
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

  /* -1, 0, 1: a before, equal to, after b as bytes (a prefix first) */
  function compareBytes(a, b) {
    for (var i = 0; i < a.length && i < b.length; i++)
      if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  /* Two JSON values equal in value (objects by their keys, in any order). */
  function deepEqual(a, b) {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    var ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (var i = 0; i < ka.length; i++)
      if (!Object.prototype.hasOwnProperty.call(b, ka[i]) || !deepEqual(a[ka[i]], b[ka[i]]))
        return false;
    return true;
  }

  /* ---- hashes (RFC 9162: leaf SHA-256(0x00 || leaf), node SHA-256(0x01 || l || r)) ------ */

  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  }

  function leafHash(leaf) { return sha256(cat(new Uint8Array([0]), leaf)); }
  function nodeHash(l, r) { return sha256(cat(new Uint8Array([1]), l, r)); }

  /* ---- C2SP signed notes ------------------------------------------------------------- */

  /* A key or signature name: non-empty, no white space, no '+'. */
  function validName(s) { return s.length > 0 && !/[\s+]/.test(s); }

  /* vkey "<name>+<8 hex key hash>+<base64(0x01 || 32-byte Ed25519 public key)>" */
  async function parseVkey(text) {
    if (typeof text !== 'string') throw new Fail('there is no log key', 'vkey');
    var parts = text.trim().split('+');
    /* the name has no '+'; the base64 key may */
    if (parts.length < 3) throw new Fail('the log key is not a note verifier key', 'vkey');
    var name = parts[0], hash = parts[1], key64 = parts.slice(2).join('+'), key;
    try { key = b64(key64); } catch (e) { key = null; }
    if (!validName(name) || !/^[0-9a-fA-F]{8}$/.test(hash) || !key || !key.length)
      throw new Fail('the log key is not a note verifier key', 'vkey');
    if (key.length !== 33 || key[0] !== 1)
      throw new Fail('the log key is not an Ed25519 key', 'vkey');
    /* key hash: the first 4 bytes of SHA-256(name || "\n" || 0x01 || pub) */
    var h = await sha256(cat(enc.encode(name + '\n'), key));
    if (hex(h.slice(0, 4)) !== hash.toLowerCase())
      throw new Fail('the log key has a wrong key hash', 'vkey');
    return { name: name, hash: h.slice(0, 4), pub: key.slice(1) };
  }

  async function ed25519Verify(pub, sig, msg) {
    var key;
    try {
      key = await crypto.subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']);
    } catch (e) {
      throw new Fail('this browser cannot check Ed25519 signatures (WebCrypto: ' + e +
                     '); verify with a tlog-tiles client instead', 'crypto');
    }
    return sig.length === 64 && crypto.subtle.verify({ name: 'Ed25519' }, key, sig, msg);
  }

  var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  /* Opens a signed note (text or bytes) as golang.org/x/mod/sumdb/note's
   * Open does: valid UTF-8, no control character but '\n', the text up to
   * its last blank line, then signature lines "— <name> <base64(4-byte key
   * hash || signature)>"; signatures by keys not in `vkeys` are ignored, a
   * bad one by a listed key refuses the note, and one listed key must sign.
   * Fails with code "malformed", "invalid" or "unverified". */
  async function openNote(note, vkeys) {
    var text = note;
    if (typeof note !== 'string') {
      try { text = new TextDecoder('utf-8', { fatal: true }).decode(note); } catch (e) {
        throw new Fail('malformed note', 'malformed');
      }
    } else if (LONE_SURROGATE.test(note)) {
      throw new Fail('malformed note', 'malformed');
    }
    if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) throw new Fail('malformed note', 'malformed');
    var split = text.lastIndexOf('\n\n');
    if (split < 0) throw new Fail('malformed note', 'malformed');
    var body = text.slice(0, split + 1), sigs = text.slice(split + 2);
    if (!sigs.length || sigs[sigs.length - 1] !== '\n') throw new Fail('malformed note', 'malformed');
    var lines = sigs.slice(0, -1).split('\n'), seen = {}, verified = [], unverified = [];
    for (var i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith('\u2014 ')) throw new Fail('malformed note', 'malformed');
      var line = lines[i].slice(2), sp = line.indexOf(' ');
      var name = sp < 0 ? line : line.slice(0, sp), b = sp < 0 ? '' : line.slice(sp + 1), raw;
      try { raw = b64(b); } catch (e) { raw = null; }
      if (!raw || !validName(name) || b === '' || raw.length < 5)
        throw new Fail('malformed note', 'malformed');
      if (i >= 100) throw new Fail('malformed note', 'malformed');
      var id = hex(raw.slice(0, 4)), key = null;
      for (var k = 0; k < vkeys.length; k++)
        if (vkeys[k].name === name && hex(vkeys[k].hash) === id) key = vkeys[k];
      if (!key) {
        if (unverified.indexOf(line) < 0) unverified.push(line);
        continue;
      }
      if (seen[name + '+' + id]) continue;
      seen[name + '+' + id] = true;
      if (!(await ed25519Verify(key.pub, raw.slice(4), enc.encode(body))))
        throw new Fail('invalid signature for key ' + name + '+' + id, 'invalid');
      verified.push(name + '+' + id);
    }
    if (!verified.length) throw new Fail('note has no verifiable signatures', 'unverified');
    return { text: body, verified: verified, unverified: unverified.length };
  }

  /* A note's text once the log key signed it; failures say which note. */
  async function verifyNote(text, vkey, what) {
    try {
      return (await openNote(text, [vkey])).text;
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      if (e.code === 'invalid')
        throw new Fail('the ' + what + ' signature does not verify with the log key ' + vkey.name);
      if (e.code === 'unverified')
        throw new Fail('the ' + what + ' has no signature by the log key ' + vkey.name);
      if (e.code === 'malformed') throw new Fail('the ' + what + ' is not a signed note');
      throw e;
    }
  }

  /* A checkpoint's text (c2sp.org/tlog-checkpoint): origin, size, root, extensions. */
  function parseCheckpoint(text) {
    var lines = text.split('\n');
    if (lines.length < 4 || lines[lines.length - 1] !== '' || !lines[0] ||
        !/^(0|[1-9][0-9]*)$/.test(lines[1]) || !Number.isSafeInteger(Number(lines[1])))
      throw new Fail('the checkpoint body is malformed');
    var root = b64(lines[2]);
    if (root.length !== 32) throw new Fail('the checkpoint root is not 32 bytes');
    return { origin: lines[0], size: Number(lines[1]), root: root };
  }

  async function verifyCheckpoint(text, vkey) {
    return parseCheckpoint(await verifyNote(text, vkey, 'checkpoint'));
  }

  /* The index note's text (PROTOCOL.md section 4.3). */
  function parseIndexNote(text) {
    var l = text.split('\n'), log, index;
    if (l.length !== 6 || l[0] !== 'kix.index/v1' || !l[1].startsWith('origin ') ||
        !/^size (0|[1-9][0-9]*)$/.test(l[2]) || !l[3].startsWith('log ') ||
        !l[4].startsWith('index ') || l[5] !== '')
      throw new Fail('the index note is malformed');
    log = b64(l[3].slice(4));
    index = b64(l[4].slice(6));
    if (log.length !== 32 || index.length !== 32) throw new Fail('the index note is malformed');
    return { origin: l[1].slice(7), size: Number(l[2].slice(5)), log: log, index: index };
  }

  /* ---- the sparse Merkle tree (store/verify/SMT.md) ------------------------------------ */

  function bit(p, i) { return (p[i >> 3] >> (7 - (i & 7))) & 1; }

  /* The root an SMT proof leads to for `key` (a string or bytes) holding
   * `record` (bytes; null: absent). Fails on a malformed proof or one of
   * the wrong kind. */
  async function smtRoot(key, record, proof) {
    var path = await sha256(typeof key === 'string' ? enc.encode(key) : key);
    var zero = new Uint8Array(32);
    if (proof.length < 3) throw new Fail('an index proof is truncated');
    var kind = proof[0], depth = proof[1] << 8 | proof[2], o = 3 + Math.ceil(depth / 8);
    var bitmap = proof.slice(3, o), h, ones = 0;
    if (depth > 256 || kind > 2) throw new Fail('an index proof is malformed');
    for (var i = 0; i < depth; i++) ones += bit(bitmap, i);
    if (proof.length !== o + (kind === 2 ? 64 : 0) + 32 * ones)
      throw new Fail('an index proof has the wrong length');
    /* unused bits of the bitmap's last byte are zero */
    for (var u = depth; u < bitmap.length * 8; u++)
      if (bit(bitmap, u)) throw new Fail('an index proof is malformed');
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
      if (bit(bitmap, d)) {
        s = proof.slice(end - 32, end);
        end -= 32;
        if (equal(s, zero)) throw new Fail('an index proof is malformed'); /* marked non-empty */
      }
      h = await sha256(bit(path, d) ? cat(new Uint8Array([3]), s, h)
                                    : cat(new Uint8Array([3]), h, s));
    }
    return h;
  }

  /* ---- index records (PROTOCOL.md section 4.2) -------------------------------------- */

  var EVIDENCE = ['reported', 'reproduced', 'not_reproduced', 'failed'];
  var NONE = 18446744073709551615n; /* 2^64 - 1 */
  var RUN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

  function Reader(rec, what) {
    this.rec = rec;
    this.o = 0;
    this.what = what;
  }
  Reader.prototype.take = function (n) {
    if (this.o + n > this.rec.length) throw new Fail('the ' + this.what + ' record is truncated');
    this.o += n;
    return this.rec.slice(this.o - n, this.o);
  };
  Reader.prototype.u8 = function () { return this.take(1)[0]; };
  Reader.prototype.u64 = function () {
    var b = this.take(8), v = 0n;
    for (var i = 0; i < 8; i++) v = v << 8n | BigInt(b[i]);
    return v;
  };
  /* a run id: a length byte and its bytes, empty only where `optional` */
  Reader.prototype.id = function (optional) {
    var n = this.u8(), s = String.fromCharCode.apply(null, this.take(n));
    if (n === 0 ? !optional : !RUN_ID.test(s))
      throw new Fail('the ' + this.what + ' record holds a malformed run id');
    return s;
  };

  /* A run record's fields, refused where kix_vindex_run_decode
   * (store/index/vindex.c) refuses it. u64 fields are BigInt. */
  function decodeRunRecord(rec) {
    var r = new Reader(rec, 'run'), x = {};
    if (r.u8() !== 1) throw new Fail('the run record has the wrong tag');
    x.manifest = hex(r.take(32));
    x.publisher = hex(r.take(32));
    x.publication = r.u64();
    x.evidenceCode = r.u8();
    x.evidence = EVIDENCE[x.evidenceCode];
    x.evidenceIndex = r.u64();
    x.attestations = r.u64();
    x.reruns = r.u64();
    x.supersedesIndex = r.u64();
    x.predecessor = r.id(true);
    x.supersededByIndex = r.u64();
    x.successor = r.id(true);
    x.grouped = r.u8();
    x.comparisonKey = hex(r.take(32));
    x.value = r.u64();
    x.entries = r.u64();
    x.entriesChain = hex(r.take(32));
    if (r.o !== rec.length || x.evidenceCode > 3 || x.grouped > 1 ||
        (!x.grouped && (x.value !== 0n || !/^0{64}$/.test(x.comparisonKey))) ||
        (x.supersedesIndex === NONE) !== (x.predecessor === '') ||
        (x.supersededByIndex === NONE) !== (x.successor === '') ||
        (x.evidenceIndex === NONE) !== (x.reruns === 0n) || x.publication === NONE)
      throw new Fail('the run record is malformed');
    x.grouped = x.grouped === 1;
    return x;
  }

  /* Groups are paged (PROTOCOL.md section 4.2): a member starts a page when
   * SHA-256("kix.group.page\n" || run id) is below 4 in its first byte. */
  async function startsPage(runId) {
    return (await sha256(enc.encode('kix.group.page\n' + runId)))[0] < 4;
  }

  function beforeInRank(a, b) {
    return a.value < b.value || (a.value === b.value &&
                                 compareBytes(enc.encode(a.runId), enc.encode(b.runId)) < 0);
  }

  /* A group's directory (group/<hex>), checked as kix_vindex_group_decode
   * does: { count, pages: [{ index, firstRank, members, first: {runId,
   * value} }], best }. */
  async function decodeGroupDir(rec, keyHex) {
    var r = new Reader(rec, 'group'), pages = [], rank = 1n, last = null;
    if (r.u8() !== 2) throw new Fail('the group directory has the wrong tag');
    if (hex(r.take(32)) !== keyHex) throw new Fail('the group directory is another group\u2019s');
    var count = r.u64(), n = r.u64();
    /* each page takes at least 17 bytes */
    if (n === 0n || n > BigInt(rec.length - r.o) / 17n) throw new Fail('the group directory is malformed');
    for (var i = 0n; i < n; i++) {
      var members = r.u64(), value = r.u64(), runId = r.id(i === 0n);
      if ((members === 0n) !== (runId === '') || (members === 0n && value !== 0n) ||
          members > count - (rank - 1n))
        throw new Fail('the group directory is malformed');
      var first = { runId: runId, value: value };
      if (i > 0n && !(await startsPage(runId)))
        throw new Fail('the group directory starts a page at a run that does not start one');
      if (members > 0n && last && !beforeInRank(last, first))
        throw new Fail('the group directory is not in rank order');
      if (members > 0n) last = first;
      pages.push({ index: Number(i), firstRank: rank, members: members, first: first });
      rank += members;
    }
    if (r.o !== rec.length || rank - 1n !== count) throw new Fail('the group directory is malformed');
    var best = pages.filter(function (p) { return p.members > 0n; })[0];
    return { count: count, pages: pages, best: best ? best.first : null };
  }

  /* One page (group/<hex>/<page id>), checked as kix_vindex_page_decode
   * does; with `want` (its directory entry) its count, first member and
   * kind; members ranked from want's first rank (1 without). */
  async function decodeGroupPage(rec, keyHex, want) {
    var r = new Reader(rec, 'group page'), members = [], last = null;
    if (r.u8() !== 5) throw new Fail('the group page has the wrong tag');
    if (hex(r.take(32)) !== keyHex) throw new Fail('the group page is another group\u2019s');
    var pageId = r.id(true), count = r.u64(), rank = want ? want.firstRank : 1n;
    /* each member takes at least 10 bytes: a count past that is a lie */
    if (count > BigInt(rec.length - r.o) / 10n) throw new Fail('the group page is truncated');
    for (var n = 0n; n < count; n++) {
      var value = r.u64();
      members.push({ rank: Number(rank + n), runId: r.id(false), value: value });
    }
    if (r.o !== rec.length) throw new Fail('the group page is malformed');
    return checkPage(pageId, members, want);
  }

  async function checkPage(pageId, members, want) {
    for (var i = 0; i < members.length; i++) {
      if (i > 0 && !beforeInRank(members[i - 1], members[i]))
        throw new Fail('the group page is not in rank order');
      if (i === 0 && pageId !== '' && members[i].runId !== pageId)
        throw new Fail('the group page does not start at its id');
      if (i > 0 && await startsPage(members[i].runId))
        throw new Fail('the group page holds a run that starts another page');
    }
    if (want && (BigInt(members.length) !== want.members || (want.index === 0) !== (pageId === '') ||
                 (members.length && (members[0].runId !== want.first.runId ||
                                     members[0].value !== want.first.value))))
      throw new Fail('the group page is not the one its signed directory lists');
    return { pageId: pageId, members: members };
  }

  /* ---- tiles (c2sp.org/tlog-tiles) -------------------------------------------------- */

  /* N as 3-digit groups, all but the last prefixed with "x": 1234067 -> x001/x234/067 */
  function tileIndex(n) {
    var s = String(n);
    while (s.length % 3) s = '0' + s;
    var g = s.match(/.../g);
    return g.map(function (x, i) { return i < g.length - 1 ? 'x' + x : x; }).join('/');
  }

  /* tile/<level>/<index>[.p/<width>]; level "entries" for entry bundles */
  function tilePath(level, index, width) {
    return 'tile/' + level + '/' + tileIndex(index) + (width < 256 ? '.p/' + width : '');
  }

  /* The tiles of a tree of `size`, read through fetchBytes(path) (an async
   * function returning a Uint8Array or failing). */
  function Tiles(size, fetchBytes) {
    this.size = size;
    this.fetchBytes = fetchBytes;
    this.cache = {};
    this.used = [];  /* the tiles the current proof read, to name them on failure */
  }

  /* Width of tile `index` at `level` (hashes at tree level 8*level) in a tree of `size`. */
  Tiles.prototype.width = function (level, index) {
    var n = Math.floor(this.size / Math.pow(256, level)) - index * 256;
    return n >= 256 ? 256 : n;
  };

  Tiles.prototype.get = async function (path, check) {
    if (!this.cache[path]) this.cache[path] = this.fetchBytes(path).then(function (b) {
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
    var path = tilePath(level, t, w);
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
    var path = tilePath('entries', t, w);
    var b = await this.get(path, function (b) {
      var o = 0, n = 0;
      while (o + 2 <= b.length) {
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
   * is checking the inclusion proof of `target` (-1: none, the tree's root). */
  Tiles.prototype.root = async function (lo, hi, target, th) {
    var n = hi - lo;
    if (n === 0) return sha256(new Uint8Array(0));
    if (n === 1 && lo === target) return th;
    if ((n & (n - 1)) === 0 && (target < lo || target >= hi))
      return this.node(Math.log2(n), lo / n);
    var k = 1;
    while (k * 2 < n) k *= 2;
    return nodeHash(await this.root(lo, lo + k, target, th),
                    await this.root(lo + k, hi, target, th));
  };

  /* Entry i's leaf, proven in the tree of tiles.size whose root is `root`. */
  async function provenLeaf(tiles, i, root, type) {
    if (!(Number.isSafeInteger(i) && i >= 0 && i < tiles.size))
      throw new Fail('entry ' + i + ' is past the checkpoint (size ' + tiles.size + ')');
    tiles.used = [];
    var e = await tiles.leaf(i);
    var lh = await leafHash(e.leaf);
    if (!equal(lh, await tiles.node(0, i)))
      throw new Fail('entry ' + i + ': its leaf in ' + e.path +
                     ' does not hash to the level-0 tile\'s hash (tile or bundle altered)');
    if (!equal(await tiles.root(0, tiles.size, i, lh), root))
      throw new Fail('entry ' + i + ' (' + type + '): inclusion fails: the root recomputed ' +
                     'from ' + e.path + ' and the tiles it read (' + tiles.used.join(', ') +
                     ') is not the checkpoint\'s root');
    return { leaf: e.leaf, leafHash: lh };
  }

  /* ---- the view: what it claims, checked against what the proofs say ------------------ */

  function str(x) { return typeof x === 'string' ? x : undefined; }

  /* A signed checkpoint of the view (at `size` when given) that the latest
   * tree extends. */
  async function viewCheckpoint(text, what, vkey, latest, tiles, size) {
    if (typeof text !== 'string') throw new Fail('the view carries no ' + what);
    var cp = await verifyCheckpoint(text, vkey);
    if (cp.origin !== latest.origin || cp.size > latest.size)
      throw new Fail('the ' + what + ' is not one of this log at or before size ' + latest.size);
    if (size !== undefined && cp.size !== size)
      throw new Fail('the ' + what + ' is at size ' + cp.size + ', the view says ' + size);
    if (cp.size < latest.size ? !equal(await tiles.root(0, cp.size, -1, null), cp.root)
                              : !equal(cp.root, latest.root))
      throw new Fail('the log at size ' + latest.size + ' does not extend the ' + what +
                     ' at size ' + cp.size + ' (a fork)');
    return cp;
  }

  /* The view's index proofs' note: its checkpoint signed and extended by
   * the latest tree, the index note signed beside it and bound to it.
   * Returns that checkpoint and the signed index root. */
  async function verifyIndexNote(x, vkey, latest, tiles) {
    var cp = await viewCheckpoint(x.checkpoint, 'index proofs\u2019 checkpoint', vkey, latest,
                                  tiles);
    var n = parseIndexNote(await verifyNote(str(x.indexNote) || '', vkey, 'index note'));
    if (n.origin !== cp.origin || n.size !== cp.size || !equal(n.log, cp.root))
      throw new Fail('the index note is not bound to the view\u2019s checkpoint');
    return { cp: cp, root: n.index };
  }

  /* The group's directory the index proves (x: the view's `index`). */
  async function provenDir(x, root) {
    var key = str(x.groupKey) || '';
    if (!/^group\/[0-9a-f]{64}$/.test(key)) throw new Fail('the view names no group key');
    var rec = unhex(x.groupRecord || '');
    if (!equal(await smtRoot(key, rec, unhex(x.groupProof || '')), root))
      throw new Fail('the group\u2019s record is not in the signed index');
    return { key: key, dir: await decodeGroupDir(rec, key.slice(6)) };
  }

  /* A page of the group the index proves, checked against its directory:
   * the directory's entry for it is the one its own id names. */
  async function provenPage(group, pageKey, record, proof, root) {
    var rec = unhex(record || '');
    if (typeof pageKey !== 'string' || pageKey.indexOf(group.key + '/') !== 0)
      throw new Fail('the view\u2019s group page is not of its group');
    if (!equal(await smtRoot(pageKey, rec, unhex(proof || '')), root))
      throw new Fail('the group\u2019s page ' + pageKey + ' is not in the signed index');
    var id = pageKey.slice(group.key.length + 1);
    var want = group.dir.pages.filter(function (p) {
      return p.index === 0 ? id === '' : p.first.runId === id;
    })[0];
    if (!want) throw new Fail('the group\u2019s signed directory lists no page ' + id);
    var page = await decodeGroupPage(rec, group.key.slice(6), want);
    if (page.pageId !== id) throw new Fail('the group page ' + pageKey + ' holds another page');
    return page;
  }

  /* The group of a run view: its directory and the page that holds the run. */
  async function provenGroup(x, root) {
    var g = await provenDir(x, root), rec = unhex(x.groupPage || '');
    var r = new Reader(rec, 'group page'), id = '';
    try { r.u8(); r.take(32); id = r.id(true); } catch (e) { /* decodeGroupPage names it */ }
    var page = await provenPage(g, g.key + '/' + id, x.groupPage, x.groupPageProof, root);
    return { key: g.key, dir: g.dir, members: page.members };
  }

  /* What the run's records prove about run `runId`: its record, evidence,
   * and when ranked its rank, group size, best run and the members of its
   * page of the group. */
  function runFacts(runId, run, group) {
    var f = { run: run, evidence: run.evidence, rank: null, members: null };
    if (!run.grouped) return f; /* a superseded run keeps no rank, whatever its group holds */
    if (!group) throw new Fail('the run is ranked, and the view carries no proof of its group');
    if (group.key !== 'group/' + run.comparisonKey)
      throw new Fail('the view\u2019s group record is not the run\u2019s group');
    var me = group.members.filter(function (m) { return m.runId === runId; })[0];
    if (!me || me.value !== run.value)
      throw new Fail('the run is not a member of its group\u2019s signed record');
    f.members = group.members;
    f.rank = { group: 'sha256:' + run.comparisonKey, rank: me.rank,
               groupSize: Number(group.dir.count), best: group.dir.best.runId,
               bestValue: group.dir.best.value };
    return f;
  }

  /* A u64 (BigInt) as the JSON number a view holds for it. */
  function sameNumber(big, n) { return typeof n === 'number' && Number(big) === n; }

  /* The view's claims against the proven facts; fails on the first that differs. */
  function compareRunView(view, facts) {
    var r = view.rank, p = facts.rank;
    var shown = r ? 'rank ' + r.rank + ' of ' + r.groupSize : 'unranked';
    var proven = p ? 'rank ' + p.rank + ' of ' + p.groupSize : 'unranked';
    if (shown !== proven)
      throw new Fail('the view says ' + shown + '; the signed index proves ' + proven);
    if (p && (r.group !== p.group || r.best !== p.best || !sameNumber(p.bestValue, r.bestValue)))
      throw new Fail('the view says group ' + r.group + ', best ' + r.best + ' (' + r.bestValue +
                     '); the signed index proves group ' + p.group + ', best ' + p.best + ' (' +
                     p.bestValue + ')');
    if (view.evidence !== facts.evidence)
      throw new Fail('the view says evidence "' + view.evidence + '"; the signed index proves "' +
                     facts.evidence + '"');
  }

  /* The view's rows must be exactly the proven members at ranks offset + 1
   * on, as many as the page holds (limit, at most the group's rest). */
  function compareGroupView(view, members, count) {
    if (view.size !== Number(count))
      throw new Fail('the view says ' + view.size + ' runs; the signed index proves ' + count);
    var rows = Array.isArray(view.rows) ? view.rows : [];
    if (rows.length !== members.length)
      throw new Fail('the view lists ' + rows.length + ' runs from rank ' + (view.offset + 1) +
                     '; the signed index proves ' + members.length + ' there');
    for (var i = 0; i < rows.length; i++) {
      var m = members[i], row = rows[i] || {};
      if (row.rank !== m.rank || row.runId !== m.runId || !sameNumber(m.value, row.value))
        throw new Fail('row ' + (i + 1) + ' shows run ' + row.runId + ' (' + row.value +
                       ') at rank ' + row.rank + '; the signed index proves ' + m.runId + ' (' +
                       m.value + ') there');
    }
  }

  /* The log key, the latest checkpoint and the view's own, checked. */
  async function verifyLog(view, io, proven) {
    if (typeof crypto === 'undefined' || !crypto.subtle)
      throw new Fail('this page is not a secure context (https:// or localhost), so the ' +
                     'browser offers no WebCrypto; verify with a tlog-tiles client instead');
    if (typeof view.logKey !== 'string') throw new Fail('the view carries no log key');
    var vkey = await parseVkey(view.logKey);
    var cp = await verifyCheckpoint(new TextDecoder().decode(await io.fetchBytes('checkpoint')),
                                    vkey);
    if (cp.origin !== view.origin)
      throw new Fail('the checkpoint is for the log "' + cp.origin + '", not "' + view.origin +
                     '"');
    var tiles = new Tiles(cp.size, io.fetchBytes);
    await viewCheckpoint(view.checkpoint, 'view\u2019s checkpoint', vkey, cp, tiles,
                         view.treeSize);
    proven.cp = cp;
    return { vkey: vkey, cp: cp, tiles: tiles };
  }

  /* Verifies a run view (kix.run/1). io.fetchBytes(path) reads the tiles
   * relative to the site root. Fills `proven` as it goes (so that a caller
   * can show what was proven before a failure): cp, entries {index: true},
   * digest, publication, index {size}, facts (runFacts). Fails with a Fail. */
  async function verifyRunView(view, io, proven) {
    if (!view || view.view !== 'kix.run/1') throw new Fail('the page carries no run view');
    var runId = str(view.runId) || '';
    if (!RUN_ID.test(runId)) throw new Fail('the view names no valid run id');
    var log = await verifyLog(view, io, proven), cp = log.cp, tiles = log.tiles;
    var entries = Array.isArray(view.entries) ? view.entries : [], leaves = {};
    proven.entries = {};
    for (var r = 0; r < entries.length; r++) {
      var i = entries[r].index;
      leaves[i] = await provenLeaf(tiles, i, cp.root, entries[r].type);
      proven.entries[i] = true;
    }

    var digest = str(view.manifestDigest) || '', canon = str(view.manifestCanonical);
    if (canon === undefined) throw new Fail('the view carries no canonical manifest');
    var got = 'sha256:' + hex(await sha256(enc.encode(canon)));
    if (got !== digest)
      throw new Fail('the manifest shown hashes to ' + got + ', not the view\u2019s ' + digest);
    var parsed;
    try { parsed = JSON.parse(canon); } catch (e) {
      throw new Fail('the canonical manifest is not JSON');
    }
    if (!deepEqual(parsed, view.manifest))
      throw new Fail('the view\u2019s manifest is not its canonical manifest ' + digest);
    proven.digest = digest;

    var facts = null, pubIndex;
    if (view.index) {
      var x = view.index, signed = await verifyIndexNote(x, log.vkey, cp, tiles);
      var rec = unhex(x.runRecord || '');
      if (!equal(await smtRoot('run/' + runId, rec, unhex(x.runProof || '')), signed.root))
        throw new Fail('the run\u2019s record is not in the signed index');
      var run = decodeRunRecord(rec);
      if ('sha256:' + run.manifest !== digest)
        throw new Fail('the signed index gives the run the manifest sha256:' + run.manifest +
                       ', not ' + digest);
      facts = runFacts(runId, run, x.groupRecord ? await provenGroup(x, signed.root) : null);
      proven.index = { size: signed.cp.size };
      proven.facts = facts;
      pubIndex = Number(run.publication);
      if (!leaves[pubIndex])
        throw new Fail('the view does not list the run\u2019s publication (entry ' + pubIndex +
                       ')');
    } else {
      for (var e = 0; e < entries.length && pubIndex === undefined; e++)
        if (entries[e].type === 'publication') pubIndex = entries[e].index;
    }
    if (pubIndex !== undefined) {
      var payload;
      try {
        var env = JSON.parse(new TextDecoder().decode(leaves[pubIndex].leaf));
        payload = new TextDecoder().decode(b64(env.payload));
      } catch (err) {
        throw new Fail('the publication entry is not a DSSE envelope');
      }
      if (payload.indexOf(digest.slice(7)) < 0)
        throw new Fail('the publication entry does not name the manifest digest ' + digest);
      if (payload.indexOf('"' + runId + '"') < 0)
        throw new Fail('the publication entry is not about run ' + runId);
      proven.publication = true;
    }
    if (facts) compareRunView(view, facts);
    return proven;
  }

  /* Verifies a group view (kix.group/1); fills `proven`: cp, index {size},
   * members (when the view carries index proofs). */
  async function verifyGroupView(view, io, proven) {
    if (!view || view.view !== 'kix.group/1') throw new Fail('the page carries no group view');
    var group = str(view.group) || '';
    if (!/^sha256:[0-9a-f]{64}$/.test(group)) throw new Fail('the view names no valid group');
    var log = await verifyLog(view, io, proven);
    if (!view.index) return proven;
    if (view.index.groupKey !== 'group/' + group.slice(7))
      throw new Fail('the view\u2019s proof is for ' + view.index.groupKey + ', not ' + group);
    var signed = await verifyIndexNote(view.index, log.vkey, log.cp, log.tiles);
    var g = await provenDir(view.index, signed.root);
    var offset = view.offset, limit = view.limit;
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 1)
      throw new Fail('the view names no page of its group (offset, limit)');
    /* the members at ranks offset + 1 .. offset + limit, from every page
     * of the directory that holds one of them: each must be in the view */
    var first = BigInt(offset) + 1n, last = BigInt(offset) + BigInt(limit);
    var given = Array.isArray(view.index.pages) ? view.index.pages : [], members = [];
    for (var i = 0; i < g.dir.pages.length; i++) {
      var p = g.dir.pages[i];
      if (p.members === 0n || p.firstRank > last || p.firstRank + p.members <= first) continue;
      var key = g.key + '/' + (p.index === 0 ? '' : p.first.runId);
      var x = given.filter(function (q) { return q && q.key === key; })[0];
      if (!x) throw new Fail('the view carries no proof of the group’s page ' + key);
      var page = await provenPage(g, key, x.record, x.proof, signed.root);
      page.members.forEach(function (m) {
        if (BigInt(m.rank) >= first && BigInt(m.rank) <= last) members.push(m);
      });
    }
    proven.index = { size: signed.cp.size };
    proven.members = members;
    proven.size = Number(g.dir.count);
    proven.best = g.dir.best ? g.dir.best.value : null;
    proven.offset = offset;
    compareGroupView(view, members, g.dir.count);
    return proven;
  }

  /* What a page at `pathname` is about, by its place in the site
   * (runs/<runId> or groups/<group>, as kixd and the export name them):
   * { page, id }, or null for a path that names neither. */
  function pageSubject(pathname, search) {
    var m = /\/(runs|groups)\/([^\/]+?)(?:\.html)?$/.exec(pathname);
    if (!m) return null;
    try {
      var subject = { page: m[1] === 'runs' ? 'run' : 'group', id: decodeURIComponent(m[2]) };
      /* page N of a group: groups/<key>?page=N (kixd) or groups/<key>-N (the export) */
      var p = /[?&]page=([1-9][0-9]{0,8})(?:&|$)/.exec(search || '');
      var f = subject.page === 'group' ? /^(.*)-([1-9][0-9]{0,8})$/.exec(subject.id) : null;
      if (f) {
        subject.id = f[1];
        subject.groupPage = Number(f[2]);
      } else if (subject.page === 'group' && p) {
        subject.groupPage = Number(p[1]);
      }
      return subject;
    } catch (e) {
      return null;
    }
  }

  /* A view shown at another run's or group's address proves nothing about
   * the page the reader asked for. */
  function checkSubject(subject, view) {
    if (!subject) return;
    var id = subject.page === 'run' ? view.runId : view.group;
    if (subject.id !== id)
      throw new Fail('this page is at ' + (subject.page === 'run' ? 'runs/' : 'groups/') +
                     subject.id + ', but its view is of ' + id);
    /* a group page asked as ?page=N shows the ranks from (N - 1) * limit + 1 */
    if (subject.page === 'group' && subject.groupPage !== undefined &&
        view.offset !== (subject.groupPage - 1) * view.limit)
      throw new Fail('this is page ' + subject.groupPage + ' of the group, but its view starts ' +
                     'at rank ' + (Number(view.offset) + 1));
  }

  /* A figure for people, as C's kix_human (client/view/figures.c) writes it. */
  function humanValue(v, bytes) {
    var x = Math.abs(Number(v)), step = bytes ? 1024 : 1000, u = 0, max = bytes ? 4 : 3;
    var units = bytes ? ['B', 'KiB', 'MiB', 'GiB', 'TiB'] : ['ns', '\u00b5s', 'ms', 's'];
    while (x >= step && u < max) { x /= step; u++; }
    var digits = x >= 100 || u === 0 ? 0 : x >= 10 ? 1 : 2;
    return (Number(v) < 0 ? '-' : '') + x.toFixed(digits) + ' ' + units[u];
  }

  /* "rows a\u2013b of n" of a proven group page. */
  function pageWords(proven) {
    var n = proven.members.length;
    if (!n) return 'no rows from rank ' + (proven.offset + 1) + ' of ' + proven.size;
    return 'rows ' + proven.members[0].rank + '\u2013' + proven.members[n - 1].rank + ' of ' +
           proven.size;
  }

  /* What the status line says once verification ends (state, text). */
  function summary(page, proven, failure) {
    if (failure) return { state: 'fail', text: 'verification FAILED: ' + failure.message };
    var head = 'verified against ' + proven.cp.origin + ' at size ' + proven.cp.size + ': ';
    if (page === 'group') {
      if (!proven.members)
        return { state: 'partial', text: head + 'checkpoint signature. The ranks: not proven ' +
                                         'by the page (it carries no index proofs).' };
      return { state: 'ok', text: head + 'checkpoint signature; ' + pageWords(proven) +
                                  ' proven by the log\u2019s signed index at size ' +
                                  proven.index.size + '.' };
    }
    var ids = Object.keys(proven.entries).map(Number).sort(function (a, b) { return a - b; });
    var text = head + 'checkpoint signature, inclusion of ' + ids.length + ' entr' +
               (ids.length === 1 ? 'y' : 'ies') + ' (' + ids.join(', ') + '), manifest digest ' +
               proven.digest + (proven.publication ? ' (named by the publication entry)' : '');
    if (!proven.index)
      return { state: 'partial', text: text + '. Rank and evidence: not proven by the page (it ' +
                                       'carries no index proofs).' };
    return { state: 'ok', text: text + '; rank and evidence proven by the log\u2019s signed ' +
                                'index at size ' + proven.index.size + '.' };
  }

  /* ---- the page ------------------------------------------------------------------------ */

  function startPage(doc) {
    var root = doc.getElementById('kix-verify');
    var status = doc.getElementById('verify-status');
    if (!root || !status) return;
    var page = root.getAttribute('data-page') === 'group' ? 'group' : 'run';
    var base = new URL('../', doc.location.href); /* the site root */

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

    function show(state, text) {
      status.textContent = text;
      status.setAttribute('data-state', state);
      status.style.color = state === 'ok' ? '#146c2e' : state === 'fail' ? '#b00020' : '';
    }

    function mark(el, ok) {
      el.setAttribute('data-verified', ok ? 'yes' : 'no');
      if (ok) el.classList.remove('unproven');
      else el.classList.add('unproven');
    }

    function slots(name) {
      return doc.querySelectorAll('[data-kix-slot="' + name + '"]');
    }

    function fill(name, text) {
      slots(name).forEach(function (el) {
        if (text !== null) el.textContent = text;
        mark(el, text !== null);
      });
    }

    /* a group page's row: rank, run and value proven; provider, spread,
     * evidence and date are the view's (the group's records do not hold
     * them; the run's page proves its own) */
    function groupCells(m) {
      var w = (view && Array.isArray(view.rows) ? view.rows : []).filter(function (x) {
        return x && x.runId === m.runId;
      })[0] || {};
      var bytes = w.unit === 'bytes', best = proven.best;
      var spread = typeof w.p20 === 'number' && typeof w.p80 === 'number'
        ? humanValue(w.p20, bytes) + '\u2013' + humanValue(w.p80, bytes) : '';
      return [String(m.rank), String(w.provider || ''), humanValue(m.value, bytes), spread,
              best && m.value ? (Number(best) / Number(m.value)).toFixed(2) + '\u00d7' : '',
              String(w.evidence || ''), String(w.observedAt || ''), null];
    }

    function rows(members) {
      slots('group-rows').forEach(function (tbody) {
        if (!members) return mark(tbody, false);
        while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
        members.forEach(function (m) {
          var tr = doc.createElement('tr'), a = doc.createElement('a');
          var cells = page === 'group' ? groupCells(m) : [String(m.rank), null, String(m.value)];
          tr.setAttribute('data-rank', String(m.rank));
          tr.setAttribute('data-run', m.runId);
          a.setAttribute('href', '../runs/' + encodeURIComponent(m.runId));
          a.textContent = m.runId;
          cells.forEach(function (c) {
            var td = doc.createElement('td');
            if (c === null) td.appendChild(a);
            else td.textContent = c;
            tr.appendChild(td);
          });
          tbody.appendChild(tr);
        });
        mark(tbody, true);
      });
    }

    /* the DOM from what was proven, whatever failed after it */
    function write(proven) {
      var f = proven.facts, members = page === 'group' ? proven.members : f && f.members;
      doc.querySelectorAll('tr[data-kix-entry]').forEach(function (tr) {
        mark(tr, !!(proven.entries && proven.entries[tr.getAttribute('data-kix-entry')]));
      });
      fill('rank', f ? (f.rank ? 'Rank ' + f.rank.rank + ' of ' + f.rank.groupSize
                               : 'Unranked') : null);
      fill('evidence', f ? f.evidence : null);
      fill('group-size', page === 'group' ? (proven.members ? String(proven.size) : null)
                                          : (f && f.rank ? String(f.rank.groupSize) : null));
      if (page === 'group') fill('group-page', proven.members ? pageWords(proven) : null);
      rows(members || null);
    }

    var view, proven = {};
    show('running', 'verifying against the log\u2019s tiles\u2026');
    (async function () {
      var el = doc.getElementById('kix-view');
      if (!el) throw new Fail('the page carries no view (#kix-view) to verify');
      try { view = JSON.parse(el.textContent); } catch (e) {
        throw new Fail('the page\u2019s view (#kix-view) is not JSON');
      }
      var here = new URL(doc.location.href);
      checkSubject(pageSubject(here.pathname, here.search), view);
      var io = { fetchBytes: fetchBytes };
      return page === 'group' ? verifyGroupView(view, io, proven)
                              : verifyRunView(view, io, proven);
    })().then(function () {
      var s = summary(page, proven, null);
      write(proven);
      show(s.state, s.text);
    }, function (e) {
      write(proven);
      show('fail', summary(page, proven, e instanceof Fail ? e : new Fail(String(e))).text);
    });
  }

  var api = {
    Fail: Fail, hex: hex, unhex: unhex, b64: b64, b64encode: b64encode, cat: cat, equal: equal,
    compareBytes: compareBytes, deepEqual: deepEqual, sha256: sha256, leafHash: leafHash,
    nodeHash: nodeHash, parseVkey: parseVkey, openNote: openNote, verifyNote: verifyNote,
    parseCheckpoint: parseCheckpoint, verifyCheckpoint: verifyCheckpoint,
    parseIndexNote: parseIndexNote, smtRoot: smtRoot, decodeRunRecord: decodeRunRecord,
    decodeGroupDir: decodeGroupDir, decodeGroupPage: decodeGroupPage, startsPage: startsPage, tileIndex: tileIndex, pageSubject: pageSubject,
    tilePath: tilePath, Tiles: Tiles, provenLeaf: provenLeaf, runFacts: runFacts,
    compareRunView: compareRunView, compareGroupView: compareGroupView,
    verifyRunView: verifyRunView, verifyGroupView: verifyGroupView, summary: summary
  };

  if (typeof document !== 'undefined' && document.getElementById) {
    var doc = document;
    if (doc.readyState === 'loading')
      doc.addEventListener('DOMContentLoaded', function () { startPage(doc); });
    else startPage(doc);
  }
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})();
