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
 * "kix.group/1"; without one, <page>.json from the log's site), the page's
 * kind and subject (#kix-verify's data-page and data-run / data-group), its
 * pin (#kix-verify's data-log-key, data-origin, data-size, data-root: the
 * log it was written from, which every fetched view and checkpoint must
 * be of: another key is red, an older size "stale", a later one must
 * extend data-root) and address, the C2SP tlog-tiles of the log's site (checkpoint,
 * tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>]) and, for a page whose
 * index proofs are old, its index files. Never the page's text.
 * The log's site: ?kix-base=<URL> in the page's address, else #kix-verify's
 * data-kix-base, else the page's parent directory; so the script works
 * from another origin or a file against any mirror (SECURITY.md: whoever
 * serves the script decides what it says; load it from a source you trust).
 *
 * What it checks, on a run page (at runs/<runId>, or ?run=<runId> for a
 * file; data-run must name the same run, and so must the view):
 *   1. the latest checkpoint and the view's `checkpoint` carry valid Ed25519
 *      signatures by the view's `logKey` and name its origin; the latest
 *      tree extends the view's (recomputed from the tiles: no fork);
 *   2. the index proofs are at the latest checkpoint (else <page>.json is
 *      fetched again for fresh ones, or else they are computed here from
 *      the site's index files, index/notes/<size>, index/tile/... and
 *      index/value/... (PROTOCOL.md section 3.2), as kix's HTTP source
 *      does; without them it fails); the index note is signed
 *      and bound to that checkpoint; the run's and its group's records are
 *      in the signed index root by their sparse Merkle proofs; the run
 *      record names the view's manifest digest;
 *   3. SHA-256(`manifestCanonical`) is `manifestDigest` and `manifest`
 *      (absent from a static copy's view, which holds the manifest once)
 *      is that text parsed; every object hashes (RFC 8785) to its digest and
 *      every object the manifest names is there; each listed rerun's
 *      `manifestCanonical` hashes to the digest its signed entry names,
 *      and its median is read from those bytes;
 *   4. every entry in `entries` is in the latest tree (its leaf from the
 *      entry bundle, RFC 9162 leaf hash equal to the level-0 tile's, the
 *      root recomputed from it and the tiles' hashes); together they are
 *      exactly the entries about the run the run record commits (count and
 *      chain hash, PROTOCOL.md section 4.2), read as publication, reruns,
 *      attestations and supersessions, and consistent with the record;
 *   5. rank, group size and best run come from the proven group record;
 *      the view's own claims (rank, evidence, primary, reruns, supersession,
 *      attestations) must equal what was proven;
 *   6. every fact it proved has its slot on the page, visible.
 * On a group page (at groups/<group>): 1 and 2 for the group's record;
 * `size` and every one of `rows` must be the proven record's; each row's
 * run record is proven by the same index root, its manifest hashes to the
 * record's digest and its implementation object to the manifest's, and
 * the row's provider, spread, evidence and date must be theirs.
 *
 * What it writes (from what it proved, never from the view's claims, and
 * also what was proven before a check failed): #verify-status (data-state
 * "ok", its proven facts first; "stale" for a copy older than the page;
 * or "fail" with what failed: a red banner), the window's title, and the elements with
 * data-kix-slot (PROTOCOL.md, "The pages' verifier", lists them and their
 * formats; numbers as C's kix_human writes them). Each gets
 * data-verified="yes" when proven, else data-verified="no" and the class
 * "unproven" (its text left as it was).
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

  /* RFC 8785 (JCS) canonical JSON of a parsed value: keys sorted by UTF-16
   * code units (JavaScript's own string order), numbers and strings as
   * ECMAScript writes them, which is what JCS prescribes; an object's
   * digest is SHA-256 of these bytes (PROTOCOL.md section 5.1). */
  function jcs(v) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return '[' + v.map(jcs).join(',') + ']';
    return '{' + Object.keys(v).sort().map(function (k) {
      return JSON.stringify(k) + ':' + jcs(v[k]);
    }).join(',') + '}';
  }

  /* ---- numbers for people: C's kix_human (client/view/figures.c) ---------------------- */

  /* The non-negative double x with d decimals, exactly as glibc's printf
   * "%.<d>f" writes it: from x's exact binary value, an exact tie to even. */
  function fixed(x, d) {
    var dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, x);
    var hi = dv.getUint32(0), lo = dv.getUint32(4), exp = hi >>> 20 & 0x7ff;
    var m = BigInt(hi & 0xfffff) << 32n | BigInt(lo), q;
    if (exp === 0) exp = 1;
    else m |= 1n << 52n;
    var e = exp - 1075, n = m * 10n ** BigInt(d); /* x = m * 2^e */
    if (e >= 0) {
      q = n << BigInt(e);
    } else {
      var sh = BigInt(-e), r, half = 1n << (sh - 1n);
      q = n >> sh;
      r = n - (q << sh);
      if (r > half || (r === half && (q & 1n))) q++;
    }
    var t = q.toString();
    if (!d) return t;
    while (t.length <= d) t = '0' + t;
    return t.slice(0, -d) + '.' + t.slice(-d);
  }

  /* A value for people, as kix_human (kix/view.h): 11360 ns -> "11.4 µs",
   * 1610612736 bytes -> "1.50 GiB". v: a Number or a BigInt (an int64). */
  function human(v, bytes) {
    var big = BigInt(v), neg = big < 0n, x = Number(neg ? -big : big);
    var step = bytes ? 1024 : 1000, max = bytes ? 4 : 3, u = 0;
    var units = bytes ? ['B', 'KiB', 'MiB', 'GiB', 'TiB'] : ['ns', '\u00b5s', 'ms', 's'];
    while (x >= step && u < max) {
      x /= step;
      u++;
    }
    return (neg ? '-' : '') + fixed(x, x >= 100 || u === 0 ? 0 : x >= 10 ? 1 : 2) + ' ' + units[u];
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
        if (unverified.indexOf(name + '+' + id) < 0) unverified.push(name + '+' + id);
        continue;
      }
      if (seen[name + '+' + id]) continue;
      seen[name + '+' + id] = true;
      if (!(await ed25519Verify(key.pub, raw.slice(4), enc.encode(body))))
        throw new Fail('invalid signature for key ' + name + '+' + id, 'invalid');
      verified.push(name + '+' + id);
    }
    if (!verified.length) {
      var none = new Fail('note has no verifiable signatures', 'unverified');
      none.signers = unverified; /* "name+keyid" of each key that did sign */
      throw none;
    }
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
        /* both keys named, as kix does: the page's and the note's signers */
        throw new Fail('the ' + what + ' has no signature by the log key ' + vkey.name + '+' +
                       hex(vkey.hash) + (e.signers && e.signers.length ?
                         ' (it is signed by ' + e.signers.slice(0, 3).join(', ') + ')' : ''));
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

  /* ---- proofs computed from a static copy's index tiles (PROTOCOL.md section 3.2) ---- */

  /* The slot of the record at `depth` in its tile (stratum depth / 4) on
   * `path`, as kix_smt_tiles stores it (store/verify/smt_tiles.c): slot 0
   * the tile's top, then each of its next three levels left to right. */
  function tileSlot(depth, path) {
    var s = depth >> 2, l = depth & 3;
    if (l === 0) return 0;
    var nibble = s % 2 ? path[s >> 1] & 15 : path[s >> 1] >> 4;
    return (1 << l) - 1 + (nibble >> (4 - l));
  }

  /* The storage key of the tile of stratum s on `path`: s, then the
   * ceil(4s / 8) bytes holding the path's first 4s bits (kix_smt_tile_key). */
  function tileKey(s, path) {
    var nb = (s + 1) >> 1, key = new Uint8Array(1 + nb);
    key[0] = s;
    key.set(path.slice(0, nb), 1);
    if (s % 2) key[nb] &= 0xf0;
    return key;
  }

  /* The 65-byte record in slot `slot` of a stored tile (2 bytes of slot
   * bitmap, most significant bit slot 0, then the present records in slot
   * order), or null; a tile that is not of that form fails. */
  function tileRecord(tile, stratum, slot, name) {
    var bits = tile.length >= 2 ? tile[0] << 8 | tile[1] : 0, n = 0, at = -1;
    var allowed = stratum === 64 ? 0x8000 : 0xfffe;
    for (var i = 0; i < 16; i++) {
      if (!(bits & 0x8000 >> i)) continue;
      if (i === slot) at = n;
      n++;
    }
    /* after the tile, its locators: 13 bytes each (index packs, below) */
    if (!bits || bits & ~allowed || tile.length < 2 + 65 * n || (tile.length - 2 - 65 * n) % 13)
      throw new Fail('the index tile ' + name + ' is malformed');
    return at < 0 ? null : tile.slice(2 + 65 * at, 2 + 65 * (at + 1));
  }

  /* Index packs (PROTOCOL.md section 3.2, "Index packs"): a tile of an
   * export is followed by locators, 13 bytes each: what (0..15: the child
   * tile across that nibble; 16 + slot: the record of the leaf in that
   * slot), the export size (8 bytes) and the chunk (4 bytes) of the pack
   * index/pack/<size>.<chunk> that holds it. What has none is read by its
   * own name. Nothing located is believed: a tile is checked against the
   * hash its parent gives, a record against its leaf's value hash. */
  function packLocator(tile, what) {
    var bits = tile[0] << 8 | tile[1], n = 0;
    for (var i = 0; i < 16; i++) if (bits & 0x8000 >> i) n++;
    for (var at = 2 + 65 * n; at + 13 <= tile.length; at += 13) {
      if (tile[at] !== what) continue;
      var size = 0;
      for (var j = 1; j <= 8; j++) size = size * 256 + tile[at + j];
      var chunk = ((tile[at + 9] << 24) >>> 0) + (tile[at + 10] << 16) + (tile[at + 11] << 8) +
                  tile[at + 12];
      return 'index/pack/' + size + '.' + chunk;
    }
    return null;
  }

  /* A lean tile (pack item kind 3) whole: its bitmap, then each present
   * slot's record type and, but for an interior record of the top three
   * levels (slots 0..6, type 3), the record's other 64 bytes, then its
   * locators. Such a record is computed: the hashes of the records in
   * slots 2i + 1 and 2i + 2, zeros for an empty one, from the bottom up. */
  async function tileUnlean(b, name) {
    var bits = b.length >= 2 ? b[0] << 8 | b[1] : 0, recs = [], at = 2, zero = new Uint8Array(32);
    if (!bits || bits & 1) throw new Fail('the index tile ' + name + ' is malformed');
    for (var i = 0; i < 15; i++) {
      if (!(bits & 0x8000 >> i)) continue;
      if (at >= b.length) throw new Fail('the index tile ' + name + ' is malformed');
      var n = i < 7 && b[at] === 3 ? 1 : 65;
      if (b.length - at < n) throw new Fail('the index tile ' + name + ' is malformed');
      recs[i] = b.slice(at, at + n);
      at += n;
    }
    for (var j = 6; j >= 0; j--) {
      if (!recs[j] || recs[j].length !== 1) continue;
      var l = recs[2 * j + 1] ? await sha256(recs[2 * j + 1]) : zero;
      var r = recs[2 * j + 2] ? await sha256(recs[2 * j + 2]) : zero;
      recs[j] = cat(new Uint8Array([3]), l, r);
    }
    return cat.apply(null, [b.subarray(0, 2)].concat(recs.filter(function (x) { return x; }),
                                                     [b.subarray(at)]));
  }

  /* The items of a pack: [{kind, body}], kind 1 a tile (key length, key,
   * the tile and its locators; kind 3 the same with a lean tile, above),
   * 2 a record (value hash, record). */
  function packItems(pack, name) {
    var items = [], at = 0;
    while (at < pack.length) {
      if (pack.length - at < 5) throw new Fail('the index pack ' + name + ' is cut short');
      var len = ((pack[at + 1] << 24) >>> 0) + (pack[at + 2] << 16) + (pack[at + 3] << 8) +
                pack[at + 4];
      if (pack.length - at - 5 < len) throw new Fail('the index pack ' + name + ' is cut short');
      items.push({ kind: pack[at], body: pack.subarray(at + 5, at + 5 + len) });
      at += 5 + len;
    }
    return items;
  }

  /* A static copy's verifiable index at one signed root, read as files
   * (fetchBytes(path)): index/tile/<hex key>/<hex top> and
   * index/value/<key>@<hex value hash>. Tiles are kept for the next proof. */
  function IndexFiles(root, fetchBytes) {
    this.root = root;
    this.fetchBytes = fetchBytes;
    this.tiles = {};
    this.packs = {};
  }

  /* The items of the pack `name`, fetched once. */
  IndexFiles.prototype.pack = function (name) {
    if (!this.packs[name]) {
      var self = this;
      this.packs[name] = this.fetchBytes(name).then(function (p) { return packItems(p, name); });
      this.packs[name].catch(function () { delete self.packs[name]; });
    }
    return this.packs[name];
  };

  /* The tile of stratum s on `path` whose top record hashes to `top`: its
   * name is its content, so a tile whose top does not hash to it is not
   * the tree's (altered, or of another root). From the pack the tile above
   * (`parent`) locates it in, else by its name. */
  IndexFiles.prototype.tile = async function (s, path, top, parent) {
    var key = tileKey(s, path), name = 'index/tile/' + hex(key) + '/' + hex(top);
    var nibble = s > 0 ? ((s - 1) % 2 ? path[(s - 1) >> 1] & 15 : path[(s - 1) >> 1] >> 4) : 0;
    var packed = s > 0 && parent ? packLocator(parent, nibble) : null;
    if (!this.tiles[name]) {
      var self = this;
      var got = !packed ? this.fetchBytes(name) : this.pack(packed).then(async function (items) {
        for (var i = 0; i < items.length; i++) {
          var b = items[i].body;
          if ((items[i].kind !== 1 && items[i].kind !== 3) || b.length < 1 + key.length ||
              b[0] !== key.length || !equal(b.subarray(1, 1 + key.length), key))
            continue;
          var t = b.slice(1 + key.length);
          if (items[i].kind === 3) t = await tileUnlean(t, name);
          var r0 = tileRecord(t, s, 0, name);
          if (r0 && equal(await sha256(r0), top)) return t;
        }
        throw new Fail('the index pack ' + packed + ' does not hold the tile ' + name +
                       ' its locator names (altered, or of another index)');
      });
      this.tiles[name] = got.then(async function (t) {
        var rec = tileRecord(t, s, 0, name);
        if (!rec || !equal(await sha256(rec), top))
          throw new Fail('the index tile ' + name + ' is not the one its name gives (altered, ' +
                         'or of another index)');
        return t;
      });
      this.tiles[name].catch(function () { delete self.tiles[name]; });
    }
    return this.tiles[name];
  };

  /* The proof of `key` under this.root, computed as kix_smt_prove does
   * (store/verify/smt.c) over the tiles, and its record when present:
   * { proof, record (null: absent) }. Nothing is believed: the caller
   * checks the proof against the signed root (smtRoot). */
  IndexFiles.prototype.prove = async function (key) {
    var path = await sha256(enc.encode(key)), zero = new Uint8Array(32);
    var depth = 0, sibs = [], bitmap = new Uint8Array(32), kind = 0, other = null, rec = null;
    var want = this.root;
    if (!equal(want, zero)) {
      var tile = await this.tile(0, path, want);
      rec = tileRecord(tile, 0, 0, 'of the root');
      for (;;) {
        if (!rec || !equal(await sha256(rec), want))
          throw new Fail('the index tiles do not hold the route of ' + key + ' at depth ' + depth);
        if (rec[0] !== 3) break;
        if (depth >= 256) throw new Fail('the index tiles hold a route past depth 256');
        var b = bit(path, depth), mine = rec.slice(1 + 32 * b, 33 + 32 * b),
            sib = rec.slice(33 - 32 * b, 65 - 32 * b);
        if (!equal(sib, zero)) {
          bitmap[depth >> 3] |= 0x80 >> (depth & 7);
          sibs.push(sib);
        }
        depth++;
        if (equal(mine, zero)) { rec = null; break; }
        want = mine;
        if (depth % 4 === 0) tile = await this.tile(depth >> 2, path, want, tile);
        rec = tileRecord(tile, depth >> 2, tileSlot(depth, path), 'on the route of ' + key);
      }
      if (rec && rec[0] !== 2) throw new Fail('the index tiles hold a malformed record');
      if (rec) kind = equal(rec.slice(1, 33), path) ? 1 : 2;
      if (kind === 2) other = rec.slice(1, 65);
    }
    var proof = cat(new Uint8Array([kind, depth >> 8, depth & 255]),
                    bitmap.slice(0, Math.ceil(depth / 8)), other || new Uint8Array(0));
    for (var i = 0; i < sibs.length; i++) proof = cat(proof, sibs[i]);
    if (kind !== 1) return { proof: proof, record: null };
    var vh = rec.slice(33, 65), file = 'index/value/' + key + '@' + hex(vh), record = null;
    var packed = packLocator(tile, 16 + tileSlot(depth, path));
    if (packed) {
      var items = await this.pack(packed);
      for (var i = 0; i < items.length && !record; i++)
        if (items[i].kind === 2 && items[i].body.length >= 32 &&
            equal(items[i].body.subarray(0, 32), vh))
          record = items[i].body.slice(32);
      if (!record)
        throw new Fail('the index pack ' + packed + ' does not hold the record of ' + key +
                       ' its locator names');
      file = packed;
    } else {
      record = await this.fetchBytes(file);
    }
    if (!equal(await sha256(record), vh))
      throw new Fail('the index record ' + file + ' does not hash to its name');
    return { proof: proof, record: record };
  };

  /* The record of `key` and its proof as a view carries them (hex), or
   * fails naming the size when the signed index holds no such key. */
  async function filesRecord(files, key, size) {
    var got = await files.prove(key);
    if (!got.record) throw new Fail('the signed index at size ' + size + ' holds no ' + key);
    return { record: hex(got.record), proof: hex(got.proof) };
  }

  /* The page of group directory `dir` (decodeGroupDir) that holds the
   * member (runId, value): the last non-empty page whose first run is not
   * after it in rank order, else the first page. */
  function pageHolding(dir, runId, value) {
    var me = { runId: runId, value: value }, at = dir.pages[0];
    dir.pages.forEach(function (p) {
      if (p.members > 0n && (p.first.runId === runId || beforeInRank(p.first, me))) at = p;
    });
    return at;
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
    x.withdrawnIndex = r.u64(); /* the withdrawal in force (kix-index/5) */
    if (r.o !== rec.length || x.evidenceCode > 3 || x.grouped > 1 ||
        (x.withdrawnIndex !== NONE && x.grouped) ||
        (!x.grouped && (x.value !== 0n || !/^0{64}$/.test(x.comparisonKey))) ||
        (x.supersedesIndex === NONE) !== (x.predecessor === '') ||
        (x.supersededByIndex === NONE) !== (x.successor === '') ||
        (x.evidenceIndex !== NONE && x.reruns === 0n) ||
        (x.evidenceIndex === NONE && x.evidenceCode !== 0) || x.publication === NONE)
      throw new Fail('the run record is malformed');
    x.grouped = x.grouped === 1;
    return x;
  }

  /* A group's withdrawn runs (withdrawn/<hex>, kix_vindex_withdrawn_decode):
   * [{ runId, index (BigInt), reason }] by run id bytes. */
  var REASONS = ['invalid-timing', 'incorrect-result', 'duplicate', 'other'];
  function decodeWithdrawn(rec, keyHex) {
    var r = new Reader(rec, 'withdrawn'), out = [];
    if (r.u8() !== 7 || hex(r.take(32)) !== keyHex)
      throw new Fail('the group’s withdrawn record is not its group’s');
    for (var n = r.u64(), i = 0n; i < n; i++) {
      var w = { runId: r.id(false), index: r.u64(), reason: REASONS[r.u8() - 1] };
      if (!w.reason || w.index === NONE ||
          (out.length && compareBytes(enc.encode(out[out.length - 1].runId), enc.encode(w.runId)) >= 0))
        throw new Fail('the group’s withdrawn record is malformed');
      out.push(w);
    }
    if (r.o !== rec.length) throw new Fail('the group’s withdrawn record is malformed');
    return out;
  }

  /* Groups are paged (PROTOCOL.md section 4.2): a member starts a page when
   * SHA-256("kix.group.page\n" || run id) is below 4 in its first byte, or
   * when the page before it is full (PAGE_MAX members), so that no page
   * record passes PAGE_BYTES however a publisher picks its ids. */
  var PAGE_MAX = 448n, PAGE_BYTES = 65536;
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
    var r = new Reader(rec, 'group'), pages = [], rank = 1n, last = null, lastMembers = 0n;
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
      if (members > PAGE_MAX)
        throw new Fail('the group directory lists a page of ' + members + ' runs, over the ' +
                       PAGE_MAX + ' of a full page');
      if (i > 0n && lastMembers !== PAGE_MAX && !(await startsPage(runId)))
        throw new Fail('the group directory starts a page at a run that does not start one');
      if (members > 0n && last && !beforeInRank(last, first))
        throw new Fail('the group directory is not in rank order');
      if (members > 0n) last = first;
      pages.push({ index: Number(i), firstRank: rank, members: members, first: first });
      rank += members;
      lastMembers = members;
    }
    if (r.o !== rec.length || rank - 1n !== count) throw new Fail('the group directory is malformed');
    var best = pages.filter(function (p) { return p.members > 0n; })[0];
    return { count: count, pages: pages, best: best ? best.first : null };
  }

  /* One page (group/<hex>/<page id>), checked as kix_vindex_page_decode
   * does; with `want` (its directory entry) its count, first member and
   * kind; members ranked from want's first rank (1 without). */
  async function decodeGroupPage(rec, keyHex, want) {
    if (rec.length > PAGE_BYTES)
      throw new Fail('a group page record of ' + rec.length + ' bytes is over the ' + PAGE_BYTES +
                     '-byte bound of a page');
    var r = new Reader(rec, 'group page'), members = [], last = null;
    if (r.u8() !== 5) throw new Fail('the group page has the wrong tag');
    if (hex(r.take(32)) !== keyHex) throw new Fail('the group page is another group\u2019s');
    var pageId = r.id(true), count = r.u64(), rank = want ? want.firstRank : 1n;
    /* each member takes at least 10 bytes: a count past that is a lie */
    if (count > BigInt(rec.length - r.o) / 10n) throw new Fail('the group page is truncated');
    if (count > PAGE_MAX) throw new Fail('the group page holds more runs than a full page');
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
    /* signed at a size the copy has not reached: the copy lags (a page
     * without a pin, a copy's since layout 7, is pinned by its view's) */
    if (cp.origin === latest.origin && cp.size > latest.size && size !== undefined)
      throw staleCopy(latest.size, cp.size);
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

  /* ---- the entries about a run (PROTOCOL.md sections 4.2, 5.3, 5.5) ------------------- */

  var PREDICATE = /^https:\/\/kernelindex\.dev\/([a-z]+)\/v1$/;

  /* A log leaf as the statement it carries: type, subject, predicate and
   * the signer's key id (the one unsigned field, which the log spells once). */
  function entryStatement(leaf, index) {
    var env, st;
    try {
      env = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(leaf));
      st = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b64(env.payload)));
    } catch (e) {
      throw new Fail('entry ' + index + ' is not a DSSE envelope of a statement');
    }
    var m = PREDICATE.exec(str(st && st.predicateType) || ''), sub = st && st.subject;
    var sig = env.signatures && env.signatures[0];
    if (!m || !Array.isArray(sub) || sub.length !== 1 || !sub[0] || !sub[0].digest ||
        typeof st.predicate !== 'object' || st.predicate === null || !sig ||
        !/^[0-9a-f]{64}$/.test(str(sig.keyid) || ''))
      throw new Fail('entry ' + index + ' is not a kix statement');
    return { index: index, type: m[1], name: str(sub[0].name), digest: str(sub[0].digest.sha256),
             predicate: st.predicate, signer: sig.keyid };
  }

  /* c' = SHA-256(0x04 || c || u64(index) || leaf hash) */
  async function chainStep(c, index, lh) {
    var u = new Uint8Array(8), v = BigInt(index);
    for (var i = 7; i >= 0; i--, v >>= 8n) u[i] = Number(v & 255n);
    return sha256(cat(new Uint8Array([4]), c, u, lh));
  }

  /* The entries about run `runId` (`list`: {index, leaf, leafHash}, any
   * order) checked complete against its proven record `run` (their count
   * and chain hash) and read: publication, reruns, attestations, the
   * supersession of the run and the one that names it as successor, each
   * consistent with the record. `digest`: the manifest's ("sha256:..."). */
  async function runEntries(runId, run, list, digest) {
    var sorted = list.slice().sort(function (a, b) { return a.index - b.index; });
    var chain = new Uint8Array(32), hexDigest = digest.slice(7), x = {
      publication: null, reruns: [], attestations: [], supersededBy: null, supersedes: null,
      evidence: 'reported', evidenceEntry: null, withdrawn: null
    };
    for (var i = 0; i < sorted.length; i++) {
      if (i && sorted[i].index === sorted[i - 1].index)
        throw new Fail('the page lists entry ' + sorted[i].index + ' twice');
      chain = await chainStep(chain, sorted[i].index, sorted[i].leafHash);
    }
    if (BigInt(sorted.length) !== run.entries || hex(chain) !== run.entriesChain)
      throw new Fail('the page lists ' + sorted.length + ' entries about the run; the signed ' +
                     'index commits ' + run.entries + (BigInt(sorted.length) === run.entries
                                                        ? ' others' : '') +
                     ' (an entry withheld, added or altered)');
    for (var k = 0; k < sorted.length; k++) {
      var e = entryStatement(sorted[k].leaf, sorted[k].index), p = e.predicate;
      var about = e.name === runId && p.runId === runId;
      if (e.type === 'supersession' && p.newRunId === runId && e.name !== runId) {
        x.supersedes = { index: e.index, runId: e.name, reason: str(p.reason) || '',
                         at: str(p.supersededAt) || '' };
        continue;
      }
      if (!about || e.digest !== hexDigest)
        throw new Fail('entry ' + e.index + ' (' + e.type + ') is not about run ' + runId +
                       ' and its manifest ' + digest);
      if (e.type === 'publication') {
        x.publication = { index: e.index, signer: e.signer, at: str(p.publishedAt) || '',
                          source: str(p.source) || '', license: str(p.license) || '' };
      } else if (e.type === 'rerun') {
        var r = { index: e.index, outcome: str(p.outcome) || '', observedAt: str(p.observedAt) || '',
                  digest: str(p.rerunDigest) || '', signer: e.signer };
        if (EVIDENCE.indexOf(r.outcome) < 1)
          throw new Fail('rerun entry ' + e.index + ' has no valid outcome');
        x.reruns.push(r);
        /* the publisher's own rerun is listed, never evidence (PROTOCOL.md 5.3; the
         * publication, at the lowest index, came first) */
        if (!x.publication || r.signer !== x.publication.signer) {
          x.evidence = r.outcome;
          x.evidenceEntry = r;
        }
      } else if (e.type === 'attestation') {
        /* an open note (PROTOCOL.md 5.4) names its signer's key, which the
         * log took only because no registration named it: its SHA-256 is
         * the signer's key id, or the entry is no note the log could take */
        var open = p.signerKey !== undefined;
        if (open) {
          var pub = null;
          try { pub = b64(str(p.signerKey) || ''); } catch (err) { pub = null; }
          if (!pub || pub.length !== 32 || hex(await sha256(pub)) !== e.signer)
            throw new Fail('attestation entry ' + e.index + ' names a signerKey that is not ' +
                           'the key that signed it');
        }
        x.attestations.push({ index: e.index, note: str(p.note) || '', at: str(p.attestedAt) || '',
                              signer: e.signer, open: open });
      } else if (e.type === 'supersession') {
        x.supersededBy = { index: e.index, runId: str(p.newRunId) || '', reason: str(p.reason) || '',
                           at: str(p.supersededAt) || '' };
      } else if (e.type === 'withdrawal') {
        /* in log order: the last withdrawal or reinstatement rules */
        x.withdrawn = { index: e.index, reason: str(p.reason) || '', note: str(p.note) || '',
                        at: str(p.withdrawnAt) || '', signer: e.signer,
                        evidence: str(p.evidence) || '' };
      } else if (e.type === 'reinstatement') {
        x.withdrawn = null;
      } else {
        throw new Fail('entry ' + e.index + ' is a ' + e.type + ' entry, not one about a run');
      }
    }
    var idx = function (o) { return o ? BigInt(o.index) : NONE; };
    var lies = [];
    if (!x.publication || BigInt(x.publication.index) !== run.publication ||
        x.publication.signer !== run.publisher) lies.push('publication');
    if (x.evidence !== run.evidence || idx(x.evidenceEntry) !== run.evidenceIndex) lies.push('evidence');
    if (BigInt(x.reruns.length) !== run.reruns) lies.push('reruns');
    if (BigInt(x.attestations.length) !== run.attestations) lies.push('attestations');
    if (idx(x.supersededBy) !== run.supersededByIndex ||
        (x.supersededBy ? x.supersededBy.runId : '') !== run.successor) lies.push('successor');
    if (idx(x.supersedes) !== run.supersedesIndex ||
        (x.supersedes ? x.supersedes.runId : '') !== run.predecessor) lies.push('predecessor');
    if (idx(x.withdrawn) !== run.withdrawnIndex) lies.push('withdrawal');
    if (lies.length)
      throw new Fail('the run\u2019s entries disagree with its signed record on: ' + lies.join(', '));
    x.reruns.forEach(function (r) { r.self = r.signer === run.publisher; });
    return x;
  }

  /* Each listed rerun's figures, from its own manifest: the view's
   * `reruns[i].manifestCanonical` must hash to the digest its signed rerun
   * entry names (`proven`: runEntries' reruns, in log order), and its
   * figures are read from those bytes alone (figuresOf). Sets
   * proven[i].figures for the reruns the view lists (at most 256). */
  async function provenRerunFigures(listed, proven) {
    listed = Array.isArray(listed) ? listed : [];
    for (var i = 0; i < listed.length && i < proven.length; i++) {
      var r = proven[i], canon = str((listed[i] || {}).manifestCanonical), parsed;
      if (canon === undefined)
        throw new Fail('the page does not carry the manifest of the rerun at entry ' + r.index);
      var got = 'sha256:' + hex(await sha256(enc.encode(canon)));
      if (got !== r.digest)
        throw new Fail('the manifest shown for the rerun at entry ' + r.index + ' hashes to ' +
                       got + ', not the ' + r.digest + ' its signed entry names');
      try { parsed = JSON.parse(canon); } catch (e) {
        throw new Fail('the manifest of the rerun at entry ' + r.index + ' is not JSON');
      }
      r.figures = figuresOf(parsed);
    }
  }

  /* ---- the run manifest and its objects ------------------------------------------------ */

  /* The manifest fields that name an object by its digest (x-kix-kind in
   * benchmark-run.schema.json). */
  var OBJECT_FIELDS = ['workloadDigest', 'implementationDigest', 'protocolDigest',
                       'environmentDigest'];

  /* The view's objects, each hashed (JCS) to its digest; returns
   * {field: object} for every object field of the proven manifest. */
  async function provenObjects(objects, manifest) {
    var byDigest = {}, out = {}, spec = (manifest && manifest.spec) || {};
    for (var i = 0; i < (Array.isArray(objects) ? objects.length : 0); i++) {
      var o = objects[i] || {}, d = str(o.digest) || '';
      var got = 'sha256:' + hex(await sha256(enc.encode(jcs(o.object))));
      if (got !== d) throw new Fail('the page\u2019s object ' + d + ' hashes to ' + got);
      byDigest[d] = o.object;
    }
    for (var k = 0; k < OBJECT_FIELDS.length; k++) {
      var f = OBJECT_FIELDS[k], want = spec[f];
      if (typeof want !== 'string') continue;
      if (!byDigest[want])
        throw new Fail('the page does not carry the run\u2019s ' + f + ' object ' + want);
      out[f] = byDigest[want];
    }
    return out;
  }

  /* The manifest's primary statistic, as kix_figures_of (client/view/figures.c):
   * a timing's median, or its mean when it says "primaryStatistic": "mean". */
  function figuresOf(manifest) {
    var spec = (manifest && manifest.spec) || {};
    var stat = spec.timing && spec.timing.primaryStatistic === 'mean' ? 'mean' : 'median';
    var t = spec.timing && spec.timing.latencyNs && spec.timing.latencyNs[stat];
    var m = spec.memory && spec.memory.peakBytes && spec.memory.peakBytes.median;
    var f = { have: false, bytes: t === undefined && m !== undefined };
    var median = t !== undefined ? t : m;
    var nat = function (v) { return Number.isSafeInteger(v) && v >= 0; };
    if (!nat(median)) return f;
    f.have = true;
    f.median = median;
    var metric = f.bytes ? 'peak_memory' : 'latency';
    (Array.isArray(spec.measurements) ? spec.measurements : []).forEach(function (x) {
      if (!x || x.metric !== metric || !nat(x.value)) return;
      if (x.statistic === 'p20') f.p20 = x.value;
      else if (x.statistic === 'p80') f.p80 = x.value;
    });
    return f;
  }

  /* RFC 6901 JSON pointer into v; undefined where it leads nowhere. */
  function pointer(v, ptr) {
    if (ptr === '') return v;
    if (typeof ptr !== 'string' || ptr[0] !== '/') return undefined;
    var parts = ptr.slice(1).split('/');
    for (var i = 0; i < parts.length; i++) {
      var k = parts[i].replace(/~1/g, '/').replace(/~0/g, '~');
      if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, k))
        return undefined;
      v = v[k];
    }
    return v;
  }

  /* A run's section rows that read one field, in order, as
   * client/view/sections.c writes them: for each section (Identity,
   * Correctness, Workload, Measurements, Protocol, Environment, Artifacts)
   * the rows of its table that are not computed (no data-kix-words), each
   * { object, ptr, fmt }, or null for a row that names no field (a
   * measurement in a unit kix has no words for). An exported page names
   * its field cells by position alone (PROTOCOL.md section 3, "Field
   * cells by position"): this gives each its pointer. Keys are taken in
   * the canonical order (the order C reads the canonical bytes in). */
  function sectionFields(manifest, objects) {
    var isObj = function (x) { return x !== null && typeof x === 'object' && !Array.isArray(x); };
    var isInt = function (x) { return typeof x === 'number' && Number.isInteger(x); };
    var keys = function (x) { return isObj(x) ? Object.keys(x).sort() : []; };
    /* ptr + "/" + key escaped, "?" (no field) past cap bytes (ptr_append) */
    var append = function (ptr, key, cap) {
      var n = enc.encode(ptr).length, k = enc.encode(key);
      if (ptr[0] === '?' || n + 2 > cap) return '?';
      n++;
      for (var i = 0; i < k.length; i++) {
        if (n + 3 > cap) return '?';
        n += k[i] === 0x7e || k[i] === 0x2f ? 2 : 1;
      }
      return ptr + '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
    };
    /* "primaryStatistic" → "primary statistic" (words(), for the fmt rules) */
    var words = function (key) {
      var out = '';
      for (var i = 0; i < key.length; i++) {
        var c = key[i], up = c >= 'A' && c <= 'Z', prevUp = i && key[i - 1] >= 'A' && key[i - 1] <= 'Z';
        var nextUp = key[i + 1] >= 'A' && key[i + 1] <= 'Z';
        if (up && i && !prevUp) out += ' ';
        out += up && !nextUp && i + 1 < key.length ? c.toLowerCase() : c;
      }
      return out;
    };
    var sections = [[], [], [], [], [], [], []], s;
    var field = function (object, doc, ptr, fmt) {
      var v = pointer(doc, ptr);
      if (v !== undefined && v !== null) { s.push({ object: object, ptr: ptr, fmt: fmt }); return true; }
      return false;
    };
    var flatten = function (object, doc, v, ptr) {
      if (isObj(v)) {
        keys(v).forEach(function (k) {
          var sub = append(ptr, k, 192), x = v[k], kw = words(k), fmt = isInt(x) ? 'count' : 'text';
          if (x !== null && typeof x === 'object') return flatten(object, doc, x, sub);
          if (isInt(x) && (kw === 'bytes' || (kw.length > 6 && / bytes$/.test(kw)))) fmt = 'bytes';
          else if (isInt(x) && kw.length > 3 && / ns$/.test(kw)) fmt = 'ns';
          field(object, doc, sub, fmt);
        });
        return;
      }
      if (!Array.isArray(v)) return;
      if (v.every(function (x) { return x === null || typeof x !== 'object'; })) {
        if (v.length) field(object, doc, ptr, 'list');
        return;
      }
      v.forEach(function (x, i) {
        var sub = ptr[0] === '?' || enc.encode(ptr + '/' + i).length >= 192 ? '?' : ptr + '/' + i;
        flatten(object, doc, x, sub);
      });
    };
    var spec = isObj(manifest) && isObj(manifest.spec) ? manifest.spec : {};
    var impl = objects.implementationDigest, work = objects.workloadDigest;
    var proto = objects.protocolDigest, env = objects.environmentDigest;
    s = sections[0]; /* Identity */
    if (impl) {
      field('implementationDigest', impl, '/spec/name', 'text');
      keys(impl.spec).forEach(function (k) {
        if (k !== 'name') field('implementationDigest', impl, append('/spec', k, 192), 'text');
      });
    }
    if (work) field('workloadDigest', work, '/metadata/title', 'text');
    keys(pointer(manifest, '/metadata/labels')).forEach(function (k) {
      field('manifest', manifest, append('/metadata/labels', k, 192), 'text');
    });
    if (typeof spec.observedAt === 'string' && spec.observedAt) field('manifest', manifest, '/spec/observedAt', 'text');
    field('manifest', manifest, '/spec/sourceNative/benchmark', 'text');
    field('manifest', manifest, '/spec/sourceNative/url', 'text');
    field('manifest', manifest, '/spec/sourceNative/externalId', 'text');
    flatten('manifest', manifest, pointer(manifest, '/spec/sourceNative/config'), '/spec/sourceNative/config');
    s = sections[1]; /* Correctness */
    flatten('manifest', manifest, spec.correctness, '/spec/correctness');
    s = sections[2]; /* Workload */
    var ws = work && isObj(work.spec) ? work.spec : {};
    field('workloadDigest', work, '/spec/kernel', 'text');
    keys(ws.parameters).forEach(function (k) {
      field('workloadDigest', work, append('/spec/parameters', k, 192), isInt(ws.parameters[k]) ? 'count' : 'text');
    });
    field('workloadDigest', work, '/spec/dtype', 'text');
    (Array.isArray(ws.tensors) ? ws.tensors : []).forEach(function (x, i) {
      field('workloadDigest', work, '/spec/tensors/' + i, 'shape');
    });
    flatten('workloadDigest', work, ws.definition, '/spec/definition');
    flatten('workloadDigest', work, ws.config, '/spec/config');
    s = sections[3]; /* Measurements */
    var f = figuresOf(manifest), timing = isObj(spec.timing) ? spec.timing : {};
    if (f.have) {
      var stat = !f.bytes && timing.primaryStatistic === 'mean' ? 'mean' : 'median';
      field('manifest', manifest, (f.bytes ? '/spec/memory/peakBytes/' : '/spec/timing/latencyNs/') + stat,
            f.bytes ? 'bytes' : 'ns');
    }
    (Array.isArray(spec.measurements) ? spec.measurements : []).forEach(function (m, i) {
      var unit = isObj(m) && typeof m.unit === 'string' ? m.unit : undefined;
      var fmt = unit === 'ns' ? 'ns' : unit === 'B' || unit === 'bytes' ? 'bytes' : 'text';
      /* a unit kix has no words for: said after the value, no field */
      if (field('manifest', manifest, '/spec/measurements/' + i + '/value', fmt) && fmt === 'text' && unit)
        s[s.length - 1] = null;
    });
    keys(pointer(manifest, '/spec/sourceNative/metrics')).forEach(function (k) {
      field('manifest', manifest, append('/spec/sourceNative/metrics', k, 192), 'text');
    });
    s = sections[4]; /* Protocol */
    flatten('protocolDigest', proto, proto && proto.spec, '/spec');
    s = sections[5]; /* Environment */
    if (env) {
      var hw = pointer(env, '/spec/hardware'), sw = pointer(env, '/spec/software');
      if (hw && typeof hw.product === 'string' && hw.product) field('environmentDigest', env, '/spec/hardware', 'gpu');
      keys(hw).forEach(function (k) {
        if (k === 'product' || k === 'architecture') return;
        var ptr = append('/spec/hardware', k, 192), x = hw[k];
        if (x !== null && typeof x === 'object') flatten('environmentDigest', env, x, ptr);
        else field('environmentDigest', env, ptr, k === 'memoryBytes' ? 'bytes' : isInt(x) ? 'count' : 'text');
      });
      if (keys(sw).length) flatten('environmentDigest', env, sw, '/spec/software');
      field('environmentDigest', env, '/spec/notes', 'text');
    }
    s = sections[6]; /* Artifacts */
    flatten('manifest', manifest, pointer(manifest, '/spec/artifacts'), '/spec/artifacts');
    return sections;
  }
  /* The ids a static copy's run page (layout 7, PROTOCOL.md section 3, "A
   * leaner view") names its slots by, each [id, slot]: short, for they are
   * on every page of the copy; kixd's own pages say data-kix-slot. */
  var COPY_SLOT_IDS = [['k', 'kernel-link'], ['t', 'title'], ['i', 'run-id'], ['s', 'status'],
                       ['evidence', 'evidence'], ['a', 'staleness'], ['median', 'median'],
                       ['w', 'spread'], ['rank', 'rank'], ['g', 'group-link'], ['observed', 'observed'],
                       ['b', 'best'], ['rn', 'reruns-none'], ['an', 'attestations-none'],
                       ['citation', 'cite-text'], ['z', 'tree-size'], ['f', 'published']];
  /* A copy's computed rows (data-w, layout 7) by their label: the kinds of
   * client/view/sections.c's words_row (and "x (swept)": swept-run in
   * Identity, swept in Workload) */
  var COPY_WORDS = { 'revision': 'revision', 'observed at': 'observed', 'comparison key': 'comparison-key',
                     'source': 'source', 'digest': 'digest', 'software': 'software' };
  var SECTION_IDS = ['identity', 'correctness', 'workload', 'measurements', 'protocol', 'environment',
                     'artifacts'];

  /* Names each field cell of an exported page's section tables (cells
   * without data-kix-ptr or data-kix-words) by the pointer, object and
   * format sectionFields gives its position; a table whose rows are not
   * the manifest's in number is left unnamed (its cells stay unproven).
   * Returns the cells left so. */
  function nameFieldCells(doc, manifest, objects) {
    var all = sectionFields(manifest, objects), bad = [];
    SECTION_IDS.forEach(function (id, i) {
      var sec = doc.getElementById(id), t = sec && sec.querySelector('table');
      if (!t) return;
      var cells = [];
      t.querySelectorAll('tr').forEach(function (tr) {
        var td = tr.querySelector('td');
        if (td && !td.hasAttribute('data-kix-words')) cells.push(td);
      });
      if (cells.some(function (td) { return td.hasAttribute('data-kix-ptr'); })) return; /* kixd's */
      if (cells.length !== all[i].length) { bad = bad.concat(cells); return; }
      cells.forEach(function (td, j) {
        var r = all[i][j];
        if (!r) return;
        td.setAttribute('data-kix-ptr', r.ptr);
        if (r.object !== 'manifest') td.setAttribute('data-kix-object', r.object);
        if (r.fmt !== 'text') td.setAttribute('data-kix-fmt', r.fmt);
      });
    });
    return bad;
  }

  /* An object field's value for people, by data-kix-fmt (PROTOCOL.md,
   * "The view documents"): text, bytes, ns, count, list, shape, gpu, date. A
   * value that is not there is "not recorded". */
  function formatField(v, fmt) {
    if (v === undefined || v === null || v === '') return 'not recorded';
    var n = function (x) { return Number.isSafeInteger(x); };
    switch (fmt) {
    case 'bytes': return n(v) ? human(v, true) : String(v);
    case 'ns': return n(v) ? human(v, false) : String(v);
    case 'count': return n(v) ? v.toLocaleString('en-US') : String(v);
    case 'date': return typeof v === 'string' ? v.slice(0, 10) : String(v);
    case 'list': return Array.isArray(v) ? v.map(function (x) { return formatField(x, 'text'); }).join(', ')
                                          : formatField(v, 'text');
    case 'shape': return shapeText(v);
    case 'gpu': return v && typeof v === 'object' && typeof v.product === 'string'
      ? v.product + (typeof v.architecture === 'string' ? ' (' + v.architecture + ')' : '')
      : 'not recorded';
    default:
      if (typeof v === 'string') return v;
      if (typeof v === 'object') return Array.isArray(v) ? formatField(v, 'list') :
        Object.keys(v).map(function (k) { return k + ' ' + formatField(v[k], 'text'); }).join(', ');
      return String(v);
    }
  }

  /* A tensor ({name, dtype, shape}) as C's kix_view_format writes it,
   * "bf16 [1, 8, 2048, 16]"; a bare shape array as "[1, 8]". Never an
   * object's default string ("[object Object]"). */
  function shapeText(v) {
    var dims = Array.isArray(v) ? v : v && typeof v === 'object' ? v.shape : undefined;
    var dtype = v && typeof v === 'object' && !Array.isArray(v) ? str(v.dtype) : undefined;
    if (!Array.isArray(dims)) return typeof v === 'object' ? 'not recorded' : String(v);
    return (dtype ? dtype + ' ' : '') + '[' + dims.map(function (d) {
      return Number.isSafeInteger(d) ? String(d) : formatField(d, 'text');
    }).join(', ') + ']';
  }

  /* The run's kernel as C's run view names it (client/view/run_view.c):
   * the workload title's first part, else its spec.kernel. */
  function kernelName(objects) {
    var work = objects.workloadDigest || {}, dot = ' \u00b7 ';
    var title = typeof (work.metadata || {}).title === 'string' ? work.metadata.title : '';
    return title ? (title.indexOf(dot) >= 0 ? title.slice(0, title.indexOf(dot)) : title)
                 : str((work.spec || {}).kernel) || '';
  }

  /* The page's header in words: implementation · kernel · workload
   * parameters · pass · GPU · dtype, each from the proven objects, the
   * ones a run does not record left out. */
  function runTitle(manifest, objects) {
    /* the header in words as C's header_words (client/view/run_view.c) writes it */
    var work = objects.workloadDigest || {}, w = work.spec || {};
    var impl = (objects.implementationDigest || {}).spec || {};
    var proto = (objects.protocolDigest || {}).spec || {}, env = (objects.environmentDigest || {}).spec || {};
    var str = function (x) { return typeof x === 'string' ? x : ''; };
    var dot = ' \u00b7 ', kernel = kernelName(objects);
    var params = w.parameters && typeof w.parameters === 'object' ? w.parameters : {};
    var workload = Object.keys(params).map(function (k) {
      return k + ' = ' + formatField(params[k], 'text');
    }).join(dot);
    var words = [str(impl.name) || str(impl.provider), kernel, workload,
                 str((proto.measurement || {}).pass), str((env.hardware || {}).product), str(w.dtype)];
    var t = words.filter(function (x) { return x; }).join(dot);
    return t || str((manifest.metadata || {}).title);
  }

  /* The run's GPU and implementation in words, from the proven objects. */
  function runNames(objects) {
    var impl = ((objects.implementationDigest || {}).spec) || {};
    var env = ((objects.environmentDigest || {}).spec) || {};
    return { implementation: str(impl.name) || str(impl.provider) || 'not recorded',
             gpu: str((env.hardware || {}).product) || 'not recorded' };
  }

  /* The citation in kix cite's three forms (client/view/cite.c), from what
   * was proven: the run, its manifest (digest and title), its publication
   * entry and the latest checkpoint; accessed today (UTC). */
  function citeForms(runId, digest, manifest, x, cp, today) {
    var link = 'https://' + cp.origin + '/runs/' + runId, root = b64encode(cp.root);
    var title = str((manifest.metadata || {}).title) || '', pub = x.publication || {};
    var published = /^\d{4}-\d{2}-\d{2}/.test(pub.at || '') ? pub.at.slice(0, 10) : '';
    var succ = x.supersededBy ? 'https://' + cp.origin + '/runs/' + x.supersededBy.runId : '';
    var at = 'checkpoint ' + cp.size + '/' + root;
    var bib = function (t) { return t.replace(/[{}\\]/g, ''); };
    var text = link + ' (' + digest + '), kix log ' + cp.origin + ' entry ' + pub.index + ', ' + at +
               ', accessed ' + today;
    var bibtex = '@misc{kix:' + runId.split(/[{},\\ ]/)[0] + ',\n  title = {' +
                 (title ? bib(title) : 'Benchmark run ' + runId) + '},\n  howpublished = {kix ' +
                 'transparency log ' + bib(cp.origin) + ', entry ' + pub.index + '},\n' +
                 (published ? '  year = {' + published.slice(0, 4) + '},\n  month = {' +
                              published.slice(5, 7) + '},\n  date = {' + published + '},\n' : '') +
                 '  url = {' + link + '},\n  urldate = {' + today + '},\n  note = {Manifest ' +
                 digest + '; verified at ' + at + (succ ? '; superseded by ' + succ : '') + '},\n}\n';
    var parts = function (d) { return { 'date-parts': [d.split('-').map(Number)] }; };
    var item = { URL: link, accessed: parts(today), id: runId, note: 'Manifest ' + digest + '; kix log ' +
                 cp.origin + ', entry ' + pub.index + '; verified at ' + at +
                 (succ ? '; superseded by ' + succ : ''), number: runId, publisher: cp.origin,
                 title: title || 'Benchmark run ' + runId, type: 'dataset' };
    if (published) item.issued = parts(published);
    var sorted = {};
    Object.keys(item).sort().forEach(function (k) { sorted[k] = item[k]; });
    return { link: link, text: text, bibtex: bibtex, csl: JSON.stringify([sorted], null, 2) + '\n' };
  }

  /* "Not re-observed in N days." when the run's last observation (its
   * latest rerun's, else its own) is more than 90 days (kix show's default
   * --stale-days) before `now` (ms), else "" (C's kix_run_view_staleness,
   * client/view/run_view.c, as the run page's server writes it). */
  function staleness(manifest, reruns, now) {
    var last = reruns.map(function (r) { return r.observedAt; }).filter(function (t) { return t; })
      .sort().pop() || str((manifest.spec || {}).observedAt) || '';
    var d = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?/.exec(last);
    if (!d) return '';
    var t = Date.UTC(+d[1], +d[2] - 1, +d[3], +(d[4] || 0), +(d[5] || 0), +(d[6] || 0));
    var days = Math.floor((now - t) / 86400000);
    return days > 90 ? 'Not re-observed in ' + days + ' days.' : '';
  }

  /* A computed row of the run page's sections (data-kix-words: C's
   * words_row kinds, client/view/sections.c) from what was proven (p: the
   * verifier's `proven`); null for a kind it does not know. */
  function computedRow(kind, p) {
    var spec = p.manifest.value.spec || {}, f = p.facts, x = p.run;
    var o = function (field) { return (p.objects[field] || {}).spec || {}; };
    switch (kind) {
    case 'revision':
      return o('implementationDigest').revision !== undefined
        ? formatField(o('implementationDigest').revision, 'text') : 'unknown';
    case 'observed': return str(spec.observedAt) || 'not recorded';
    case 'comparison-key': return f && f.rank ? f.rank.group : '(not ranked)';
    case 'source': return x.publication ? x.publication.source : '';
    case 'digest': return p.digest;
    case 'swept':
    case 'swept-run': {
      /* the sweep a row came from: the run's sourceNative.x (imports since
       * issue 37.5), or an older import's workload x */
      var sx = (kind === 'swept-run' ? (spec.sourceNative || {}).x : o('workloadDigest').x) || {};
      var name = formatField(sx.name, 'text');
      var label = sx.label === undefined ? '' : formatField(sx.label, 'text');
      var value = sx.value === undefined ? '' : formatField(sx.value, 'text');
      return (sx.name === undefined ? '' : name) + (label ? ' (' + label + ')' : '') +
             (value ? ' = ' + value : '');
    }
    case 'software': {
      var sw = o('environmentDigest').software;
      return sw && typeof sw === 'object' && Object.keys(sw).length ? formatField(sw, 'text')
                                                                      : 'not recorded';
    }
    default: return null;
    }
  }

  /* The evidence line (kix show's, client/view/text.c, with the rerun's date). */
  function evidenceText(x) {
    var on = x.evidenceEntry && x.evidenceEntry.observedAt
      ? ' on ' + x.evidenceEntry.observedAt.slice(0, 10) : '';
    switch (x.evidence) {
    case 'reproduced': return 'Reproduced by a controlled rerun' + on;
    case 'not_reproduced': return 'Not reproduced by a controlled rerun' + on;
    case 'failed': return 'Controlled rerun failed' + on;
    default: return 'Reported evidence';
    }
  }

  /* A u64 (BigInt) as the JSON number a view holds for it. */
  function sameNumber(big, n) { return typeof n === 'number' && Number(big) === n; }

  /* The view's claims against the proven facts; fails on the first that differs. */
  function compareRunView(view, facts) {
    var r = view.rank, p = facts.rank;
    var shown = r ? 'rank ' + r.rank + ' of ' + r.groupSize : 'unranked';
    var proven = p ? 'rank ' + p.rank + ' of ' + p.groupSize : 'unranked';
    /* a copy's view says no rank since layout 7 (its page does, and the
     * proven one is written over it) */
    if (shown !== proven && !view.rankUnsaid)
      throw new Fail('the view says ' + shown + '; the signed index proves ' + proven);
    if (p && r && (r.group !== p.group || r.best !== p.best || !sameNumber(p.bestValue, r.bestValue)))
      throw new Fail('the view says group ' + r.group + ', best ' + r.best + ' (' + r.bestValue +
                     '); the signed index proves group ' + p.group + ', best ' + p.best + ' (' +
                     p.bestValue + ')');
    /* a static copy's view says no evidence (its page does): what it does say is held */
    if (view.evidence !== undefined && view.evidence !== facts.evidence)
      throw new Fail('the view says evidence "' + view.evidence + '"; the signed index proves "' +
                     facts.evidence + '"');
  }

  /* The view's other claims against what its entries, manifest and
   * records prove (x: runEntries, fig: figuresOf): a server whose JSON says
   * otherwise than its proofs is caught, not only its page. */
  function compareRunClaims(view, x, fig) {
    var p = view.primary, lies = [];
    /* a static copy's view claims no figures (its page shows them, and the
     * verifier writes the proven ones over them) */
    if (p !== undefined && (!fig.have || !p || p.median !== fig.median || p.p20 !== fig.p20 ||
                            p.p80 !== fig.p80 || p.unit !== (fig.bytes ? 'bytes' : 'ns')))
      lies.push('its primary measurement');
    if ((view.supersededBy || '') !== (x.supersededBy ? x.supersededBy.runId : ''))
      lies.push('its successor');
    if ((view.supersedes || '') !== (x.supersedes ? x.supersedes.runId : ''))
      lies.push('its predecessor');
    var w = view.withdrawn, xw = x.withdrawn;
    if (w ? !xw || w.index !== xw.index || w.reason !== xw.reason || w.signer !== xw.signer ||
            (w.evidence || '') !== xw.evidence
          : xw) lies.push('its withdrawal');
    var reruns = Array.isArray(view.reruns) ? view.reruns : [];
    if (reruns.length !== Math.min(x.reruns.length, 256) || reruns.some(function (r, i) {
      return !r || r.index !== x.reruns[i].index || r.outcome !== x.reruns[i].outcome;
    })) lies.push('its reruns');
    else if (reruns.some(function (r, i) {
      var f = x.reruns[i].figures, q = r.primary;
      return f && (f.have ? !q || q.median !== f.median || q.p20 !== f.p20 || q.p80 !== f.p80 ||
                            q.unit !== (f.bytes ? 'bytes' : 'ns')
                          : q !== undefined);
    })) lies.push('a rerun\u2019s figures');
    if (typeof view.attestations === 'number' && view.attestations !== x.attestations.length)
      lies.push('its attestations');
    if (lies.length)
      throw new Fail('the view\u2019s claims differ from what its proofs show: ' + lies.join(', '));
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

  /* "name+keyhash" of a vkey's text, to name a key in a message. */
  function keyName(text) {
    return typeof text === 'string' ? text.trim().split('+').slice(0, 2).join('+') : 'none';
  }

  /* The log a page was written from, as its template pinned it on
   * #kix-verify (PROTOCOL.md, "The pages' verifier"): data-log-key (the
   * vkey), data-origin, data-size and data-root (base64) of the checkpoint
   * it was written at. null for a page that pins nothing (an older
   * page's). Whatever the log's site (?kix-base=, a mirror) sends must be
   * signed by exactly that key for that origin, and be at that size or
   * later, extending that root. */
  function pagePin(root) {
    var key = root && root.getAttribute('data-log-key');
    if (!key) return null;
    var size = root.getAttribute('data-size') || '', r = root.getAttribute('data-root') || '';
    if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
      throw new Fail('the page pins its log key but no size it was written at (#kix-verify ' +
                     'data-size)');
    var pin = { logKey: key, origin: root.getAttribute('data-origin') || undefined,
                size: Number(size), root: undefined };
    if (r) {
      try { pin.root = b64(r); } catch (e) { pin.root = null; }
      if (!pin.root || pin.root.length !== 32)
        throw new Fail('the page\u2019s pinned root (#kix-verify data-root) is not 32 bytes');
    }
    return pin;
  }

  /* A copy at size `have`, older than the size `want` a page was written from. */
  function staleCopy(have, want) {
    return new Fail('this copy of the log is at size ' + have + ', older than the size ' + want +
                    ' this page was written from: a copy that lags behind the log (or was ' +
                    'rolled back) proves nothing the page shows; load the page against the log ' +
                    'itself or a fresher copy', 'stale');
  }

  /* The latest checkpoint `cp` against the page's pin: the same origin,
   * not older than the page (else a Fail of code "stale", naming both
   * sizes) and extending the tree the page was written at. */
  async function checkPin(pin, cp, tiles) {
    if (pin.origin !== undefined && cp.origin !== pin.origin)
      throw new Fail('the log\u2019s site gives a checkpoint of "' + cp.origin + '"; this page was ' +
                     'written from "' + pin.origin + '"');
    if (cp.size < pin.size) throw staleCopy(cp.size, pin.size);
    if (pin.root && !equal(cp.size === pin.size ? cp.root
                                                : await tiles.root(0, pin.size, -1, null), pin.root))
      throw new Fail('the log at size ' + cp.size + ' does not extend the tree at size ' +
                     pin.size + ' this page was written from (a fork)');
  }

  /* The log key, the latest checkpoint and the view's own, checked; with
   * the page's pin (io.pin), against the key, origin and size it names. */
  async function verifyLog(view, io, proven) {
    if (typeof crypto === 'undefined' || !crypto.subtle)
      throw new Fail('this page is not a secure context (https:// or localhost), so the ' +
                     'browser offers no WebCrypto; verify with a tlog-tiles client instead');
    if (typeof view.logKey !== 'string') throw new Fail('the view carries no log key');
    var pin = io.pin || null;
    if (pin && view.logKey.trim() !== pin.logKey.trim())
      throw new Fail('this page was written from the log whose key is ' + keyName(pin.logKey) +
                     ', but the log\u2019s site gives a view under the key ' +
                     keyName(view.logKey) + ': another log\u2019s copy, not this page\u2019s');
    if (pin && pin.origin !== undefined && view.origin !== pin.origin)
      throw new Fail('this page was written from the log "' + pin.origin + '", but the log\u2019s ' +
                     'site gives a view of "' + view.origin + '"');
    var vkey = await parseVkey(pin ? pin.logKey : view.logKey);
    var note = new TextDecoder().decode(await io.fetchBytes('checkpoint'));
    var cp = await verifyCheckpoint(note, vkey);
    cp.text = note;
    if (cp.origin !== view.origin)
      throw new Fail('the checkpoint is for the log "' + cp.origin + '", not "' + view.origin +
                     '"');
    var tiles = new Tiles(cp.size, io.fetchBytes);
    if (pin) await checkPin(pin, cp, tiles);
    await viewCheckpoint(view.checkpoint, 'view\u2019s checkpoint', vkey, cp, tiles,
                         view.treeSize);
    proven.cp = cp;
    return { vkey: vkey, cp: cp, tiles: tiles };
  }

  /* The size of the index proofs' checkpoint (unverified: only to decide
   * whether to ask for fresher ones). */
  function indexSize(view) {
    var t = view && view.index && str(view.index.checkpoint);
    var m = t && /^[^\n]*\n(0|[1-9][0-9]*)\n/.exec(t);
    return m ? Number(m[1]) : -1;
  }

  /* The log and a view whose index proofs are at the latest checkpoint.
   * When the page's are older, io.fetchView() (the page's JSON, fetched
   * again from the log's site: kixd's are always fresh) may give fresher
   * ones; the log may grow meanwhile, so the checkpoint is read again, a
   * few times at most. When the site gives none fresher (a static export
   * rewrites only the pages of runs and groups with new entries), the
   * proofs are computed here from the copy's index files at the latest
   * checkpoint (refreshedView). Returns { log, view, stale, own } (when
   * the proofs were replaced so, stale: the size of the page's own, own:
   * the page's view as it came). A view without index proofs fails:
   * nothing it claims about ranks, evidence or entries could be proven. */
  async function freshLog(view, io, proven) {
    for (var tries = 0; ; tries++) {
      var log = await verifyLog(view, io, proven);
      /* a static copy's view (layout 4) carries no proofs: its own, at its
       * size, are computed from the copy's index files */
      if (!view.index && tries === 0 && io.fetchBytes) {
        view = await ownProofs(view, log, io);
        io = Object.assign({}, io, { fetchView: null }); /* and no JSON beside it */
      }
      if (!view.index)
        throw new Fail('the page carries no index proofs, so its rank, evidence and entries ' +
                       'cannot be proven');
      var have = indexSize(view);
      if (have === log.cp.size) return { log: log, view: view };
      if (have > log.cp.size) { /* a checkpoint older than the proofs (a cache): read it again */
        if (tries < 3) continue;
        throw new Fail('the index proofs are at size ' + have + ', past the log\u2019s latest ' +
                       'checkpoint at size ' + log.cp.size);
      }
      var next = tries < 3 && io.fetchView ? await io.fetchView() : null;
      if (next && next.view !== view.view)
        throw new Fail('the site\u2019s fresh JSON of this page is not a ' + view.view + ' view');
      if (next && indexSize(next) > have) {
        view = next;
        continue;
      }
      return { log: log, view: await refreshedView(view, log, io, have), stale: have, own: view };
    }
  }

  /* What an old page's failure means, said with it. */
  function staleWords(stale, size) {
    return ' (the page\u2019s own index proofs are at size ' + stale + ', older than the log\u2019s ' +
           'latest checkpoint at size ' + size + ': an old copy of the page?)';
  }

  /* `view` with its index proofs (and a group's rows' run proofs) replaced
   * by proofs at the latest checkpoint, computed from the log's site's
   * index files (PROTOCOL.md section 3.2) as kix's HTTP source does
   * (client/lib/source_http_index.c): the index note index/notes/<size>,
   * signed and bound to the latest checkpoint, names the root; the tiles
   * below it give each proof. The caller verifies them as any view's. */
  async function refreshedView(view, log, io, have, own) {
    var cp = own || log.cp, size = cp.size, at = 'index/notes/' + size, text;
    try {
      text = new TextDecoder().decode(await io.fetchBytes(at));
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      if (own)
        throw new Fail('the page carries no index proofs, and the site gives not the index ' +
                       'files to compute them at its size ' + size + ' (' + e.message + ')');
      throw new Fail('the index proofs are at size ' + have + ', older than the log\u2019s ' +
                     'latest checkpoint at size ' + size + ', and the site gives none fresher, ' +
                     'nor the index files to compute them (' + e.message + '): an old copy of ' +
                     'the page?');
    }
    var note = parseIndexNote(await verifyNote(text, log.vkey, 'index note'));
    if (note.origin !== cp.origin || note.size !== size || !equal(note.log, cp.root))
      throw new Fail(at + ' is not bound to the ' + (own ? 'view\u2019s' : 'log\u2019s latest') +
                     ' checkpoint');
    var files = new IndexFiles(note.index, io.fetchBytes), out = JSON.parse(JSON.stringify(view));
    var x = { checkpoint: cp.text, indexNote: text }, got;
    if (view.view === 'kix.run/1') {
      got = await filesRecord(files, 'run/' + view.runId, size);
      x.runRecord = got.record;
      x.runProof = got.proof;
      var run = decodeRunRecord(unhex(got.record));
      if (run.grouped) {
        var gkey = 'group/' + run.comparisonKey, g = await filesRecord(files, gkey, size);
        var dir = await decodeGroupDir(unhex(g.record), run.comparisonKey);
        var p = pageHolding(dir, view.runId, run.value);
        var page = await filesRecord(files, gkey + '/' + (p.index === 0 ? '' : p.first.runId), size);
        x.groupKey = gkey;
        x.groupRecord = g.record;
        x.groupProof = g.proof;
        x.groupPage = page.record;
        x.groupPageProof = page.proof;
      }
    } else {
      var hexKey = (str(view.group) || '').slice(7), key = 'group/' + hexKey;
      var d = await filesRecord(files, key, size), gd = await decodeGroupDir(unhex(d.record), hexKey);
      var ok = Number.isSafeInteger(view.offset) && Number.isSafeInteger(view.limit);
      var first = ok ? BigInt(view.offset) + 1n : 1n, last = ok ? first + BigInt(view.limit) - 1n : 0n;
      x.groupKey = key;
      x.groupRecord = d.record;
      x.groupProof = d.proof;
      var wk = 'withdrawn/' + hexKey, wp = await files.prove(wk);
      x.withdrawn = { key: wk, proof: hex(wp.proof) };
      if (wp.record) x.withdrawn.record = hex(wp.record);
      x.pages = [];
      for (var i = 0; i < gd.pages.length; i++) {
        var q = gd.pages[i], k = key + '/' + (q.index === 0 ? '' : q.first.runId);
        if (q.members === 0n || q.firstRank > last || q.firstRank + q.members <= first) continue;
        got = await filesRecord(files, k, size);
        x.pages.push({ key: k, record: got.record, proof: got.proof });
      }
      /* the rows' routes side by side: the tiles near the root are fetched once */
      await Promise.all((Array.isArray(out.rows) ? out.rows : []).map(async function (row) {
        if (!row || !RUN_ID.test(str(row.runId) || '')) return;
        var rec = await filesRecord(files, 'run/' + row.runId, size);
        row.runRecord = rec.record;
        row.runProof = rec.proof;
        if (typeof row.manifestCanonical !== 'string') await rowObjects(row, rec.record, io, size);
      }));
    }
    out.index = x;
    return out;
  }

  /* A static copy's view (layout 4, PROTOCOL.md section 3) with the index
   * proofs at its own size, which the copy holds as files rather than in
   * the view: index/notes/<treeSize>, bound to the view's checkpoint
   * (verified by verifyLog), and the tiles below its root. Nothing here is
   * believed: the proofs are checked as any view's. */
  async function ownProofs(view, log, io) {
    var cp = await verifyCheckpoint(str(view.checkpoint) || '', log.vkey);
    cp.text = view.checkpoint;
    return refreshedView(view, log, io, cp.size, cp);
  }

  /* An object of the copy by its digest (objects/<digest>, immutable), as
   * UTF-8 text: the caller hashes it to the digest that names it. */
  async function copyObject(io, digest, what) {
    if (!/^sha256:[0-9a-f]{64}$/.test(digest || ''))
      throw new Fail(what + ' names no object digest');
    return new TextDecoder().decode(await io.fetchBytes('objects/' + digest));
  }

  /* A static copy's run view since layout 7 (PROTOCOL.md section 3, "A
   * leaner view") leaves out what its page and its own checkpoint and
   * manifest say: the run id (#kix-verify's data-run), the log key (the
   * page's #log-vkey), the origin and size (its checkpoint's), the
   * manifest's digest (its canonical text hashed), its rank (the page's;
   * the proven one is written over it) and empty reruns and attestations.
   * Filled in here, so what follows reads one view whatever the layout;
   * all of it is proven after, as any view's. */
  async function fullView(view, root, doc) {
    if (!view || view.view !== 'kix.run/1' || view.runId !== undefined || !root) return view;
    var v = Object.assign({}, view), key = doc.getElementById('log-vkey');
    var m = /^([^\n]*)\n(0|[1-9][0-9]*)\n/.exec(str(v.checkpoint) || '');
    v.runId = root.getAttribute('data-run') || '';
    v.logKey = key ? key.textContent : '';
    if (m) {
      v.origin = m[1];
      v.treeSize = Number(m[2]);
    }
    if (v.rank === undefined) v.rankUnsaid = true;
    /* its manifest, the text of #kix-manifest: one such element, of text
     * alone, and not said by the view too */
    var shown = doc.querySelectorAll ? doc.querySelectorAll('[id="kix-manifest"]') : [];
    if (shown.length > 1) throw new Fail('the page says id="kix-manifest" more than once');
    if (shown.length) {
      if (v.manifestCanonical !== undefined)
        throw new Fail('the page says its manifest twice (#kix-manifest and its view)');
      if (shown[0].children && shown[0].children.length)
        throw new Fail('the page\u2019s manifest (#kix-manifest) holds markup, not text alone');
      v.manifestCanonical = shown[0].textContent;
    }
    if (typeof v.manifestCanonical === 'string' && typeof crypto !== 'undefined' && crypto.subtle)
      v.manifestDigest = 'sha256:' + hex(await sha256(enc.encode(v.manifestCanonical)));
    if (v.reruns === undefined) v.reruns = [];
    if (v.attestationList === undefined) v.attestationList = [];
    if (v.attestations === undefined) v.attestations = 0;
    return v;
  }

  /* The canonical manifest a copy's run page (its HTML text, html; its
   * #kix-view's text at [view, viewEnd)) carries as the text of <pre hidden
   * id="kix-manifest"> (layout 7, PROTOCOL.md section 3, "A leaner view"),
   * read as kix's HTTP source reads it (client/lib/source_http_resolve.c,
   * page_manifest): only &lt; &gt; &amp; undone. null: the page has none;
   * undefined: it says it otherwise (another entity, markup, the id
   * again outside it and the view), which no page of kixd's does. */
  function pageManifest(html, view, viewEnd) {
    var open = '<pre hidden id="kix-manifest">', start = html.indexOf(open);
    var said = function (from, to) {
      var k = html.indexOf('kix-manifest', from);
      return k >= 0 && (to < 0 || k < to);
    };
    if (start < 0) return said(0, view) || said(viewEnd, -1) ? undefined : null;
    if (said(0, start) || start > view) return undefined;
    var end = html.indexOf('<', start + open.length), text = html.slice(start + open.length, end);
    if (end < 0 || html.slice(end, end + 6) !== '</pre>' || said(end + 6, view) || said(viewEnd, -1) ||
        /&(?!(?:lt|gt|amp);)/.test(text))
      return undefined;
    return text.replace(/&(lt|gt|amp);/g, function (m, e) { return { lt: '<', gt: '>', amp: '&' }[e]; });
  }

  /* A run's manifest in a static copy (PROTOCOL.md section 3, "One
   * manifest a run"): a run published in a bundle that was full when the
   * copy was exported has no objects/<digest>; its page's view
   * (runs/<name>.html, #kix-view) carries it as manifestCanonical, as do
   * the bundle's pack. The other runs' manifests are objects/ files. Read
   * from where it should be, then the other place; the caller hashes it to
   * the digest the run's signed record names, so neither is believed. */
  async function runManifest(io, runId, run, size, at) {
    var digest = 'sha256:' + run.manifest, full = BigInt(Math.floor(size / 256) * 256);
    var fromPage = async function () {
      var html = new TextDecoder().decode(await io.fetchBytes(
        'runs/' + encodeURIComponent(runPageName(runId)) + '.html'));
      var open = '<script type="application/json" id="kix-view">', i = html.indexOf(open);
      var j = i < 0 ? -1 : html.indexOf('</script>', i), v;
      if (j < 0) throw new Fail('the page of run ' + runId + ' carries no view');
      try { v = JSON.parse(html.slice(i + open.length, j)); } catch (e) {
        throw new Fail('the page of run ' + runId + ' carries a view that is not JSON');
      }
      var shown = pageManifest(html, i, j);
      if (shown !== null && (v || {}).manifestCanonical !== undefined)
        throw new Fail('the page of run ' + runId + ' says its manifest twice');
      if (shown === undefined || (shown === null && typeof (v || {}).manifestCanonical !== 'string'))
        throw new Fail('the page of run ' + runId + ' carries no manifest, or one not as ' +
                       'one element\u2019s text with only &lt; &gt; &amp;');
      return shown !== null ? shown : v.manifestCanonical;
    };
    var fromFile = function () { return copyObject(io, digest, at); };
    var first = run.publication < full ? fromPage : fromFile, why;
    try {
      return await first();
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      why = e.message;
    }
    try {
      return await (first === fromPage ? fromFile : fromPage)();
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      throw new Fail('the copy holds the manifest ' + digest + ' of run ' + runId +
                     ' neither as objects/' + digest + ' nor in the run\u2019s page (' + why +
                     '; ' + e.message + ')');
    }
  }

  /* A copy's group row (layout 4) names its run alone: its manifest (by
   * the digest its index record gives) and the Implementation object the
   * manifest names are the copy's files. provenRow checks both by hash. */
  async function rowObjects(row, record, io, size) {
    var run = decodeRunRecord(unhex(record)), at = 'the run ' + row.runId + '\u2019s record';
    row.manifestCanonical = await runManifest(io, row.runId, run, size, at);
    var m;
    try { m = JSON.parse(row.manifestCanonical); } catch (e) { return; }
    var want = ((m && m.spec) || {}).implementationDigest;
    if (typeof want === 'string')
      row.implementationCanonical = await copyObject(io, want, 'the run ' + row.runId + '\u2019s manifest');
  }

  /* A copy's run view (layout 4) carries none of the objects its manifest
   * names: each read from objects/<digest>; provenObjects hashes them. */
  async function copyObjects(manifest, io) {
    var spec = (manifest && manifest.spec) || {}, out = [];
    for (var k = 0; k < OBJECT_FIELDS.length; k++) {
      var want = spec[OBJECT_FIELDS[k]], text, obj;
      if (typeof want !== 'string') continue;
      text = await copyObject(io, want, 'the manifest\u2019s ' + OBJECT_FIELDS[k]);
      try { obj = JSON.parse(text); } catch (e) {
        throw new Fail('the copy\u2019s object ' + want + ' is not JSON');
      }
      out.push({ digest: want, object: obj });
    }
    return out;
  }

  /* Verifies a run view (kix.run/1). io.fetchBytes(path) reads the tiles
   * relative to the log's site; io.fetchView() (optional) reads the page's
   * JSON again for index proofs at the latest checkpoint. Fills `proven`
   * as it goes (so that a caller can show what was proven before a
   * failure): cp, view (the one verified), entries {index: true}, digest,
   * manifest, figures, publication, index {size}, facts (runFacts), run
   * (runEntries: reruns, attestations, supersession), objects. Fails with
   * a Fail. */
  async function verifyRunView(view, io, proven) {
    if (!view || view.view !== 'kix.run/1') throw new Fail('the page carries no run view');
    var runId = str(view.runId) || '';
    if (!RUN_ID.test(runId)) throw new Fail('the view names no valid run id');
    var fresh = await freshLog(view, io, proven);
    try {
      fresh.io = io;
      return await verifyRunAt(runId, fresh, proven);
    } catch (e) {
      throw staleFail(e, fresh);
    }
  }

  /* A failure of a page whose proofs were computed here says the page is old. */
  function staleFail(e, fresh) {
    if (e instanceof Fail && fresh.stale !== undefined)
      e.message += staleWords(fresh.stale, fresh.log.cp.size);
    return e;
  }

  /* verifyRunView once the log and fresh index proofs are had. */
  async function verifyRunAt(runId, fresh, proven) {
    var log = fresh.log, cp = log.cp, tiles = log.tiles, view = fresh.view;
    if (view.runId !== runId) throw new Fail('the fresh view is of run ' + view.runId);
    proven.view = view;

    var digest = str(view.manifestDigest) || '', canon = str(view.manifestCanonical);
    if (canon === undefined) throw new Fail('the view carries no canonical manifest');
    var got = 'sha256:' + hex(await sha256(enc.encode(canon)));
    if (got !== digest)
      throw new Fail('the manifest shown hashes to ' + got + ', not the view\u2019s ' + digest);
    var parsed;
    try { parsed = JSON.parse(canon); } catch (e) {
      throw new Fail('the canonical manifest is not JSON');
    }
    /* a static copy's view carries the manifest once, as its text */
    if (view.manifest !== undefined && !deepEqual(parsed, view.manifest))
      throw new Fail('the view\u2019s manifest is not its canonical manifest ' + digest);

    var at = await indexFacts(runId, view.index, log, digest), run = at.run, facts = at.facts;
    proven.digest = digest;
    proven.manifest = { canonical: canon, value: parsed };
    proven.figures = figuresOf(parsed);
    proven.index = { size: at.size, pageSize: fresh.stale };
    proven.facts = facts;
    /* an old page's claims are held to its own proofs, at their size (the
     * page shows, and is checked against, the fresh ones) */
    var claimed = fresh.own ? (await indexFacts(runId, fresh.own.index, log, digest)).facts : facts;

    var entries = Array.isArray(view.entries) ? view.entries : [], list = [];
    proven.entries = {};
    for (var r = 0; r < entries.length; r++) {
      var i = entries[r].index, leaf = await provenLeaf(tiles, i, cp.root, entries[r].type);
      list.push({ index: i, leaf: leaf.leaf, leafHash: leaf.leafHash });
      proven.entries[i] = true;
    }
    proven.run = await runEntries(runId, run, list, digest);
    await provenRerunFigures(view.reruns, proven.run.reruns);
    proven.publication = true;
    var objects = view.objects;
    if (objects === undefined && fresh.io && fresh.io.fetchBytes)
      objects = await copyObjects(parsed, fresh.io); /* a static copy's files */
    proven.objects = await provenObjects(objects, parsed);
    compareRunView(view, claimed);
    compareRunClaims(view, proven.run, proven.figures);
    return proven;
  }

  /* What index proofs `x` (a view's `index`) prove about run `runId` whose
   * manifest is `digest`: its record and facts (runFacts), at the size of
   * their note, signed and bound to a checkpoint the latest tree extends. */
  async function indexFacts(runId, x, log, digest) {
    var signed = await verifyIndexNote(x, log.vkey, log.cp, log.tiles);
    var rec = unhex(x.runRecord || '');
    if (!equal(await smtRoot('run/' + runId, rec, unhex(x.runProof || '')), signed.root))
      throw new Fail('the run\u2019s record is not in the signed index');
    var run = decodeRunRecord(rec);
    if ('sha256:' + run.manifest !== digest)
      throw new Fail('the signed index gives run ' + runId + ' the manifest sha256:' +
                     run.manifest + ', not the page\u2019s ' + digest);
    return { size: signed.cp.size, run: run,
             facts: runFacts(runId, run, x.groupRecord ? await provenGroup(x, signed.root) : null) };
  }

  /* A group row's own cells, proven (PROTOCOL.md, the kix.group/1
   * document): the run's record against the index root, the manifest it
   * names, and the Implementation object that manifest names. m: the
   * member the group's page proves at that rank. Returns { evidence,
   * provider, figures, observed }. */
  async function provenRow(row, m, groupHex, root) {
    var at = 'row ' + m.rank + ' (run ' + m.runId + ')';
    if (typeof row.runRecord !== 'string' || typeof row.runProof !== 'string')
      throw new Fail(at + ': the view carries no index record of the run');
    var rec = unhex(row.runRecord);
    if (!equal(await smtRoot('run/' + m.runId, rec, unhex(row.runProof)), root))
      throw new Fail(at + ': the run’s record is not in the signed index');
    var run = decodeRunRecord(rec);
    if (!run.grouped || run.comparisonKey !== groupHex || run.value !== m.value)
      throw new Fail(at + ': the signed index does not rank the run in this group at ' + m.value);
    var canon = str(row.manifestCanonical);
    if (canon === undefined) throw new Fail(at + ': the view carries no manifest of the run');
    var got = hex(await sha256(enc.encode(canon)));
    if (got !== run.manifest)
      throw new Fail(at + ': the manifest shown hashes to sha256:' + got + ', not the sha256:' +
                     run.manifest + ' the signed index gives the run');
    var manifest;
    try { manifest = JSON.parse(canon); } catch (e) {
      throw new Fail(at + ': the canonical manifest is not JSON');
    }
    var spec = (manifest && manifest.spec) || {}, want = spec.implementationDigest, provider = '';
    var name = '';
    if (want !== undefined) {
      var text = str(row.implementationCanonical), impl;
      if (text === undefined || 'sha256:' + hex(await sha256(enc.encode(text))) !== want)
        throw new Fail(at + ': the view does not carry the implementation ' + want +
                       ' the run’s manifest names');
      try { impl = JSON.parse(text); } catch (e) {
        throw new Fail(at + ': the implementation object is not JSON');
      }
      provider = str(((impl && impl.spec) || {}).provider) || '';
      name = str(((impl && impl.spec) || {}).name) || '';
    }
    var observed = str(spec.observedAt);
    return { evidence: run.evidence, implementation: name, provider: provider, manifest: manifest,
             figures: figuresOf(manifest), source: str((spec.sourceNative || {}).source) || '',
             observed: observed ? observed.slice(0, 10) : '' };
  }

  /* The row's other claims (implementation, provider, spread, evidence, date) against
   * what its proofs show: a server whose JSON says otherwise is caught. */
  function compareGroupRow(row, m, p) {
    var lies = [], fig = p.figures;
    if ((row.implementation || '') !== p.implementation) lies.push('its implementation');
    if ((row.provider || '') !== p.provider) lies.push('its provider');
    if (row.evidence !== p.evidence) lies.push('its evidence');
    if (row.p20 !== fig.p20 || row.p80 !== fig.p80) lies.push('its spread');
    if ((row.observedAt || '') !== p.observed) lies.push('its observed date');
    if (lies.length)
      throw new Fail('row ' + m.rank + ' (run ' + m.runId + '): the view’s claims differ ' +
                     'from what its proofs show: ' + lies.join(', '));
  }

  /* Verifies a group view (kix.group/1); fills `proven`: cp, index {size},
   * members, rows ({runId: provenRow}, as far as they verified). */
  async function verifyGroupView(view, io, proven) {
    if (!view || view.view !== 'kix.group/1') throw new Fail('the page carries no group view');
    var group = str(view.group) || '';
    if (!/^sha256:[0-9a-f]{64}$/.test(group)) throw new Fail('the view names no valid group');
    /* a static copy's view (layout 4) carries no proofs and no title
     * objects: those are the copy's objects/ files */
    var copy = !view.index && io.fetchBytes ? io : null;
    var fresh = await freshLog(view, io, proven);
    fresh.copy = copy;
    try {
      return await verifyGroupAt(group, fresh, proven);
    } catch (e) {
      throw staleFail(e, fresh);
    }
  }

  /* verifyGroupView once the log and fresh index proofs are had. */
  async function verifyGroupAt(group, fresh, proven) {
    var log = fresh.log, view = fresh.view;
    if (view.group !== group) throw new Fail('the fresh view is of group ' + view.group);
    proven.view = view;
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
    /* the runs withdrawn from the group, all of them: the record, or its
     * absence, proven; the view must list exactly those */
    var wx = view.index.withdrawn, wd = [];
    if (!wx || wx.key !== 'withdrawn/' + g.key.slice(6))
      throw new Fail('the view carries no proof of the group’s withdrawn runs');
    var wrec = typeof wx.record === 'string' ? unhex(wx.record) : null;
    if (!equal(await smtRoot(wx.key, wrec, unhex(wx.proof || '')), signed.root))
      throw new Fail('the group’s withdrawn runs are not what the signed index holds');
    if (wrec) wd = decodeWithdrawn(wrec, g.key.slice(6));
    var claimed = Array.isArray(view.withdrawn) ? view.withdrawn : [];
    if (claimed.length !== wd.length || claimed.some(function (c, j) {
      return !c || c.runId !== wd[j].runId || !sameNumber(wd[j].index, c.entry) ||
             c.reason !== wd[j].reason;
    })) throw new Fail('the view lists other withdrawn runs than the signed index: ' +
                       claimed.length + ' listed, ' + wd.length + ' proven');
    proven.withdrawn = wd;
    proven.index = { size: signed.cp.size, pageSize: fresh.stale };
    proven.members = members;
    proven.size = Number(g.dir.count);
    proven.best = g.dir.best ? g.dir.best.value : null;
    proven.offset = offset;
    proven.rows = {};
    compareGroupView(view, members, g.dir.count);
    for (var k = 0; k < members.length; k++) {
      var row = await provenRow(view.rows[k], members[k], g.key.slice(6), signed.root);
      compareGroupRow(view.rows[k], members[k], row);
      proven.rows[members[k].runId] = row;
    }
    if (members.length)
      proven.title = await groupTitle(view, proven.rows[members[0].runId].manifest, fresh.copy);
    return proven;
  }

  /* The group in words (kernel · workload · pass · GPU, as C's group view
   * writes them: client/view/site_views.c), from the Workload and
   * ExecutionEnvironment objects the view carries, each hashing to the
   * digest a proven member's manifest names (every member names the same:
   * the comparison key holds them). null when the view does not carry
   * them (the title then stays unproven). A static copy's view (copy:
   * its io) carries neither: they are read from its objects/ files. */
  async function groupTitle(view, manifest, copy) {
    var spec = (manifest && manifest.spec) || {}, objs = {};
    var fields = [['workloadCanonical', 'workloadDigest'], ['environmentCanonical', 'environmentDigest']];
    for (var i = 0; i < fields.length; i++) {
      var text = str(view[fields[i][0]]), want = spec[fields[i][1]];
      if (text === undefined && copy && typeof want === 'string')
        text = await copyObject(copy, want, 'the group\u2019s runs\u2019 manifest');
      if (text === undefined || typeof want !== 'string') return null;
      if ('sha256:' + hex(await sha256(enc.encode(text))) !== want)
        throw new Fail('the group\u2019s ' + fields[i][1].replace('Digest', '') + ' object shown ' +
                       'is not the one its runs\u2019 manifests name (' + want + ')');
      try { objs[fields[i][1]] = JSON.parse(text); } catch (e) {
        throw new Fail('the group\u2019s ' + fields[i][1].replace('Digest', '') + ' object is not JSON');
      }
    }
    var w = (objs.workloadDigest || {}).spec || {}, hw = ((objs.environmentDigest || {}).spec || {}).hardware || {};
    var dot = ' \u00b7 ', params = w.parameters && typeof w.parameters === 'object' ? w.parameters : {};
    var work = Object.keys(params).sort().map(function (k) {
      return k + ' = ' + formatField(params[k], 'text');
    }).join(dot);
    if (str(w.dtype)) work += (work ? dot : '') + w.dtype;
    var bench = str((spec.sourceNative || {}).benchmark) || '', at = bench.indexOf('/');
    var pass = at >= 0 ? bench.slice(at + 1).split('/')[0] : '';
    return [str(w.kernel) || '', work, pass, str(hw.product) || ''].join(dot);
  }

  /* What a page at `pathname` is about, by its place in the site
   * (runs/<runId> or groups/<group>, as kixd and the export name them):
   * { page, id }, or null for a path that names neither. */
  function pageSubject(pathname, search) {
    var m = /\/(runs|groups)\/([^\/]+?)(?:\.html)?$/.exec(pathname);
    if (!m) return null;
    try {
      var subject = { page: m[1] === 'runs' ? 'run' : 'group', id: decodeURIComponent(m[2]) };
      /* runs/sha256:<hex> (kixd's permalink in digest form) is the run of
       * that manifest, whatever its id; runs/_<escaped> is a run logged
       * outside the run-id grammar (runPageName) */
      if (subject.page === 'run' && /^sha256:[0-9a-f]{64}$/.test(subject.id))
        subject.digest = subject.id;
      else if (subject.page === 'run' && subject.id.charAt(0) === '_')
        subject.id = runPageId(subject.id);
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

  /* The name of run `id`'s files (PROTOCOL.md §3, kix_run_page_name): the
   * id itself when it follows the run-id grammar, else '_' and the id with
   * '_', '.' and ':' written _u, _d and _c. */
  function runPageName(id) {
    if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id) && !/\.(html|json)$/i.test(id)) return id;
    return '_' + id.replace(/[_.:]/g, function (c) { return c === '_' ? '_u' : c === '.' ? '_d' : '_c'; });
  }

  /* The run id of an escaped page name (its inverse), or the name itself
   * when it is none. */
  function runPageId(name) {
    if (!/^_(?:[A-Za-z0-9-]|_[udc])+$/.test(name)) return name;
    var id = name.slice(1).replace(/_([udc])/g, function (m, c) {
      return c === 'u' ? '_' : c === 'd' ? '.' : ':';
    });
    return runPageName(id) === name ? id : name;
  }

  /* A view shown at another run's or group's address proves nothing about
   * the page the reader asked for. */
  function checkSubject(subject, view) {
    if (!subject) return;
    if (subject.digest) { /* the digest's run, whatever its id */
      if (view.manifestDigest !== subject.digest)
        throw new Fail('this page is at runs/' + subject.digest + ', but its view is of manifest ' +
                       view.manifestDigest);
      return;
    }
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

  /* "rows a\u2013b of n" of a proven group page. */
  function pageWords(proven) {
    var n = proven.members.length;
    if (!n) return 'no rows from rank ' + (proven.offset + 1) + ' of ' + proven.size;
    return 'rows ' + proven.members[0].rank + '\u2013' + proven.members[n - 1].rank + ' of ' +
           proven.size;
  }

  /* What the status line says once verification ends (state, text). */
  function summary(page, proven, failure) {
    if (failure && failure.code === 'stale')
      return { state: 'stale', text: 'NOT verified, a stale copy: ' + failure.message + '.' };
    if (failure) return { state: 'fail', text: 'verification FAILED: ' + failure.message };
    var head = 'verified against ' + proven.cp.origin + ' at size ' + proven.cp.size + ': ';
    if (page === 'group')
      return { state: 'ok', text: head + 'checkpoint signature; ' + pageWords(proven) +
                                  ' proven by the log\u2019s signed index at size ' +
                                  proven.index.size + tileWords(proven) + '.' };
    var ids = Object.keys(proven.entries).map(Number).sort(function (a, b) { return a - b; });
    /* the facts first, so that a reader of this line alone reads only what was proven */
    var names = runNames(proven.objects || {}), fig = proven.figures, f = proven.facts;
    head += 'run ' + proven.view.runId + ' \u00b7 ' + names.implementation + ' \u00b7 ' + names.gpu +
            ' \u00b7 median ' + (fig.have ? human(fig.median, fig.bytes) : 'not recorded') + ' \u00b7 ' +
            (f.rank ? 'rank ' + f.rank.rank + ' of ' + f.rank.groupSize : 'not ranked') + ' \u00b7 ' +
            evidenceText(proven.run) + '. Proven: ';
    return { state: 'ok', text: head + 'checkpoint signature, inclusion of ' + ids.length + ' entr' +
                                (ids.length === 1 ? 'y' : 'ies') + ' (' + ids.join(', ') +
                                '), manifest digest ' + proven.digest + ' (named by the ' +
                                'publication entry) and its objects; rank and evidence proven by ' +
                                'the log\u2019s signed index at size ' + proven.index.size +
                                tileWords(proven) + ', with every entry about the run.' };
  }

  /* Says where the index proofs came from when the page's own were old. */
  function tileWords(proven) {
    var from = proven.index.pageSize;
    return from === undefined ? '' : ' (proofs computed from its index tiles; the page\u2019s ' +
                                     'own were at size ' + from + ')';
  }

  /* ---- the page ------------------------------------------------------------------------ */

  /* Where the log's site is (its checkpoint, tiles and pages' JSON): the
   * reader's own choice first, ?kix-base=URL in the page's address, then
   * the page's #kix-verify data-kix-base, else the directory above the page
   * (runs/<id> and groups/<key> sit one level down). */
  function siteBase(href, root) {
    var u = new URL(href), q = u.searchParams.get('kix-base');
    var attr = root && root.getAttribute('data-kix-base');
    return new URL(q || attr || '../', href);
  }

  /* The run or group the page must be about: its address (runs/<id>,
   * groups/<key>), else ?run= or ?group= in it (a page saved to a file).
   * #kix-verify's data-run (data-group) must name the same. */
  function pageTarget(href, root, page) {
    /* a saved file's name says nothing: there only ?run= (?group=) does */
    var u = new URL(href), subject = u.protocol === 'file:' ? null : pageSubject(u.pathname, u.search);
    var param = u.searchParams.get(page);
    if (subject && subject.page !== page)
      throw new Fail('this page is at a ' + subject.page + '\u2019s address, not a ' + page + '\u2019s');
    var id = subject ? subject.id : param;
    /* at runs/sha256:<hex> the page names its run; checkSubject holds the
     * proven manifest to the digest */
    if (subject && subject.digest) id = root.getAttribute('data-run');
    if (!id) throw new Fail('the page\u2019s address names no ' + page + ' (runs/<id>, or ?' + page + '=)');
    if (param && param !== id)
      throw new Fail('the address names ' + page + ' ' + param + ' and ' + id);
    var attr = root.getAttribute('data-' + page);
    /* a group page may name its group by its index key, group/<hex> */
    if (page === 'group' && attr && attr.startsWith('group/')) attr = 'sha256:' + attr.slice(6);
    if (attr === null)
      throw new Fail('the page does not say which ' + page + ' it shows (#kix-verify data-' + page + ')');
    if (attr !== id)
      throw new Fail('the page says it shows ' + page + ' ' + attr + ', but its address is of ' + id);
    return id;
  }

  function startPage(doc) {
    var root = doc.getElementById('kix-verify');
    var status = doc.getElementById('verify-status');
    if (!root || !status) return;
    var page = root.getAttribute('data-page') === 'group' ? 'group' : 'run';
    var base = siteBase(doc.location.href, root), target = null;

    async function fetchBytes(path) {
      var res, url = new URL(path, base);
      try {
        res = await fetch(url, { cache: 'no-cache' });
      } catch (e) {
        throw new Fail('cannot fetch ' + url + ': ' + e);
      }
      if (!res.ok) throw new Fail('cannot fetch ' + url + ': HTTP ' + res.status);
      return new Uint8Array(await res.arrayBuffer());
    }

    /* the page's JSON (runs/<id>.json, groups/<key>.json) at the log's site */
    async function fetchView() {
      /* an exported later page of a group, groups/<key>-N, has its own
       * view beside it: groups/<key>-N.json */
      var u = new URL(doc.location.href);
      var s = u.protocol === 'file:' ? null : pageSubject(u.pathname, u.search);
      var later = page === 'group' && s && s.groupPage > 1 &&
                  /-[1-9][0-9]*(?:\.html)?$/.test(u.pathname) ? '-' + s.groupPage : '';
      var path = (page === 'run' ? 'runs/' + encodeURIComponent(runPageName(target))
                                 : 'groups/' + encodeURIComponent(target)) + later + '.json';
      try {
        return JSON.parse(new TextDecoder().decode(await fetchBytes(path)));
      } catch (e) {
        throw e instanceof Fail ? e : new Fail(path + ' is not JSON');
      }
    }

    function show(state, text) {
      /* the proven facts first and plain; the checks behind them after,
       * smaller (the text is the same either way) */
      var at = state === 'ok' ? text.indexOf(' Proven: ') : -1;
      if (at < 0 || !doc.createTextNode) {
        status.textContent = text;
      } else {
        clear(status);
        var facts = doc.createElement('span'), how = doc.createElement('span');
        facts.className = 'facts';
        how.className = 'proofs';
        facts.textContent = text.slice(0, at + 1);
        how.textContent = text.slice(at + 1);
        status.appendChild(facts);
        status.appendChild(how);
      }
      status.setAttribute('data-state', state);
      if (state === 'fail') status.setAttribute('role', 'alert');
      if (status.hidden) status.hidden = false;
    }

    function mark(el, ok) {
      /* what the verifier proved is shown as it writes it: a style the
       * page's text gave the slot (display:none, a colour) is dropped */
      if (ok && el.removeAttribute) el.removeAttribute('style');
      el.setAttribute('data-verified', ok ? 'yes' : 'no');
      if (ok) el.classList.remove('unproven');
      else el.classList.add('unproven');
    }

    function slots(name) {
      return doc.querySelectorAll('[data-kix-slot="' + name + '"]');
    }

    function clear(el) {
      while (el.firstChild) el.removeChild(el.firstChild);
    }

    /* el's content: text, or nodes (an array of strings and elements) */
    function put(el, content) {
      clear(el);
      if (typeof content === 'string') el.textContent = content;
      else content.forEach(function (c) {
        el.appendChild(typeof c === 'string' ? textNode(c) : c);
      });
    }

    function textNode(t) {
      if (doc.createTextNode) return doc.createTextNode(t);
      var span = doc.createElement('span');
      span.textContent = t;
      return span;
    }

    function link(href, text) {
      var a = doc.createElement('a');
      a.setAttribute('href', href);
      a.textContent = text;
      return a;
    }

    function textBreak() { return doc.createElement('br'); }
    function code(t) {
      var c = doc.createElement('code');
      c.textContent = t;
      return c;
    }

    /* the .html name every static server types (PROTOCOL.md §3, the copy's layout) */
    function runHref(id) { return new URL('runs/' + encodeURIComponent(runPageName(id)) + '.html', base).href; }
    function siteHref(path) { return new URL(path, base).href; }

    /* Fills slot `name` with content (null: unproven, its text left). */
    function fill(name, content) {
      slots(name).forEach(function (el) {
        if (content !== null) put(el, content);
        mark(el, content !== null);
      });
    }

    /* rows of cells into each slot `name` (a tbody, or a list: one li each) */
    function table(name, rows) {
      slots(name).forEach(function (el) {
        if (!rows) return mark(el, false);
        clear(el);
        var list = el.tagName === 'UL' || el.tagName === 'OL';
        rows.forEach(function (cells) {
          var tr = doc.createElement(list ? 'li' : 'tr');
          cells.forEach(function (c) {
            var td = list ? doc.createElement('span') : doc.createElement('td');
            if (list && tr.children && tr.children.length) tr.appendChild(textNode(' \u00b7 '));
            put(td, Array.isArray(c) ? c : [c]);
            tr.appendChild(td);
          });
          el.appendChild(tr);
        });
        mark(el, true);
      });
    }

    /* A slot a proven fact needs: present, and not hidden from the reader. */
    function required(name, what) {
      var els = slots(name);
      if (!els.length)
        throw new Fail('the page does not show ' + what + ' (no data-kix-slot="' + name + '")');
      els.forEach(function (el) {
        if (el.hidden) el.hidden = false;
        if (typeof el.checkVisibility === 'function' && !el.checkVisibility())
          throw new Fail('the page hides ' + what + ' (data-kix-slot="' + name + '")');
      });
    }

    /* Every row the verifier wrote into these slots is one the reader can
     * see: a stylesheet of the page's that hides rows (tr:not(:last-child))
     * would show a proven table with rows left out. */
    function visibleRows(names) {
      names.forEach(function (name) {
        slots(name).forEach(function (el) {
          var rows = el.children || [];
          for (var i = 0; i < rows.length; i++)
            if (typeof rows[i].checkVisibility === 'function' && !rows[i].checkVisibility() &&
                !(el.closest && el.closest('[hidden]')))
              throw new Fail('the page hides row ' + (i + 1) + ' of the proven ' + name +
                             ' (data-kix-slot="' + name + '")');
        });
      });
    }

    function key(k) { return 'key ' + k.slice(0, 16); }
    function day(t) { return t ? t.slice(0, 10) : 'not recorded'; }

    /* the run page's slots from what was proven, whatever failed after it */
    function writeRun(p) {
      var v = p.view, f = p.facts, x = p.run, m = p.manifest, fig = p.figures;
      fill('run-id', p.facts ? v.runId : null);
      fill('checkpoint', p.cp ? p.cp.text : null);
      fill('manifest', m ? m.canonical : null);
      fill('manifest-digest', m ? p.digest : null);
      fill('status', m ? str((m.value.spec || {}).status) || 'unknown' : null);
      /* its colour too: the class the server named it by */
      if (m) slots('status').forEach(function (el) {
        if (el.classList && /\bstatus\b/.test(el.className || ''))
          el.className = 'status status-' + (str((m.value.spec || {}).status) || 'unknown').replace(/[^a-z_-]/gi, '') +
                         (el.classList.contains('unproven') ? ' unproven' : '');
      });
      fill('observed', m ? day(str((m.value.spec || {}).observedAt)) : null);
      fill('median', m ? (fig.have ? human(fig.median, fig.bytes) : 'not recorded') : null);
      fill('spread', m ? (fig.p20 !== undefined && fig.p80 !== undefined
        ? human(fig.p20, fig.bytes) + ' \u2013 ' + human(fig.p80, fig.bytes) : 'not recorded') : null);
      fill('rank', f ? (f.rank ? 'Rank ' + f.rank.rank + ' of ' + f.rank.groupSize : 'Not ranked')
                     : null);
      fill('best', f ? (f.rank ? [link(runHref(f.rank.best), f.rank.best === v.runId
        ? 'this run is #1' : 'Compare with #1 \u2192')] : 'not ranked') : null);
      fill('evidence', x ? evidenceText(x) : null);
      fill('title', p.objects ? runTitle(m.value, p.objects) : null);
      /* the window's title too: the header's words, proven, or the page's
       * own words marked unproven */
      if (p.objects && 'title' in doc) doc.title = runTitle(m.value, p.objects) + ' \u00b7 run ' + v.runId;
      else if ('title' in doc && !/^\(unproven\) /.test(doc.title)) doc.title = '(unproven) ' + doc.title;
      fill('tree-size', p.cp ? String(p.cp.size) : null);
      slots('kernel-link').forEach(function (el) {
        var k = p.objects ? str(((p.objects.workloadDigest || {}).spec || {}).kernel) : null;
        if (k) {
          el.setAttribute('href', siteHref('kernels/' + encodeURIComponent(k) + '.html'));
          el.textContent = 'kernel ' + k;
        }
        mark(el, !!k);
      });
      fill('published', x && x.publication ? 'Published ' + day(x.publication.at) +
        (x.publication.source ? ' \u00b7 ' + x.publication.source : '') + ' \u00b7 ' +
        (x.publication.license || 'license not stated') : null);
      /* "none yet" or the table, by what was proven */
      [['reruns', x && x.reruns.length], ['attestations', x && x.attestations.length]].forEach(function (t) {
        if (!x) return;
        slots(t[0] + '-none').forEach(function (el) { el.hidden = !!t[1]; mark(el, true); });
        slots(t[0] + '-table').forEach(function (el) { el.hidden = !t[1]; mark(el, true); });
      });
      var cite = x && p.cp && m ? citeForms(v.runId, p.digest, m.value, x, p.cp,
                                            new Date().toISOString().slice(0, 10)) : null;
      fill('cite-about', cite ? ['Permalink ', link(cite.link, cite.link), textBreak(), 'Manifest digest ',
        code(p.digest), textBreak(), 'Accessed ' + cite.text.slice(-10) + ' \u00b7 log ' + p.cp.origin +
        ' at size ' + p.cp.size] : null);
      fill('cite-text', cite ? cite.text : null);
      fill('cite-bibtex', cite ? cite.bibtex : null);
      fill('cite-csl', cite ? cite.csl : null);
      slots('cite-bibtex-file').forEach(function (el) {
        if (cite) el.setAttribute('href', 'data:application/x-bibtex;charset=utf-8,' +
                                          encodeURIComponent(cite.bibtex));
        mark(el, !!cite);
      });
      slots('cite-csl-file').forEach(function (el) {
        if (cite) el.setAttribute('href', 'data:application/vnd.citationstyles.csl+json;' +
                                          'charset=utf-8,' + encodeURIComponent(cite.csl));
        mark(el, !!cite);
      });
      table('reruns', x ? x.reruns.map(function (r) {
        var f = r.figures;
        return [String(r.index), day(r.observedAt), r.outcome,
                f ? (f.have ? human(f.median, f.bytes) : 'not recorded') : 'not proven',
                key(r.signer) + (r.self ? ' (the publisher itself)' : ''), r.digest];
      }) : null);
      table('attestations', x ? x.attestations.map(function (a) {
        return [String(a.index), day(a.at),
                key(a.signer) + (a.open ? ' (community, unregistered key)' : ''), a.note];
      }) : null);
      fill('superseded-by', x ? (x.supersededBy ? ['Superseded by ', link(runHref(x.supersededBy.runId),
        x.supersededBy.runId), ' (entry ' + x.supersededBy.index + ')' +
        (x.supersededBy.reason ? ': ' + x.supersededBy.reason : '')] : '') : null);
      fill('supersedes', x ? (x.supersedes ? ['Supersedes ', link(runHref(x.supersedes.runId),
        x.supersedes.runId), ' (entry ' + x.supersedes.index + ')' +
        (x.supersedes.reason ? ': ' + x.supersedes.reason : '')] : '') : null);
      fill('withdrawn', x ? (x.withdrawn ? 'Withdrawn from ranking (log entry ' + x.withdrawn.index +
        ', ' + day(x.withdrawn.at) + ', by the ' +
        (x.publication && x.withdrawn.signer === x.publication.signer ? 'publisher' : 'curator') + ', ' +
        key(x.withdrawn.signer) + '): ' + x.withdrawn.reason +
        (x.withdrawn.note ? ': ' + x.withdrawn.note : '') +
        (x.withdrawn.evidence ? '; evidence ' + x.withdrawn.evidence : '') + '.' : '') : null);
      var ids = p.entries ? Object.keys(p.entries).map(Number).sort(function (a, b) { return a - b; })
                          : [];
      table('entries', x ? ids.map(function (i) {
        var e = (v.entries || []).filter(function (y) { return y.index === i; })[0];
        var w = Math.min(256, p.cp.size - Math.floor(i / 256) * 256);
        var tile = tilePath(0, Math.floor(i / 256), w), bundle = tilePath('entries', Math.floor(i / 256), w);
        return [String(i), e.type, [link(siteHref(tile), tile)], [link(siteHref(bundle), bundle)]];
      }) : null);
      doc.querySelectorAll('tr[data-kix-entry]').forEach(function (tr) {
        mark(tr, !!(p.entries && p.entries[tr.getAttribute('data-kix-entry')] && x));
      });
      slots('group-link').forEach(function (el) {
        if (f && f.rank) el.setAttribute('href', siteHref('groups/' + f.rank.group + '.html'));
        mark(el, !!(f && f.rank));
      });
      fill('staleness', m && x ? staleness(m.value, x.reruns, Date.now()) : null);
      /* a section's note: only Correctness has one (client/view/sections.c) */
      slots('section-note').forEach(function (el) {
        var spec = m ? m.value.spec || {} : null, ok = spec && el.getAttribute('data-kix-section') === 'correctness';
        if (ok) put(el, 'Marked ' + (str(spec.status) || 'unknown') + ' by the source; ' +
                        (spec.correctness && typeof spec.correctness === 'object' &&
                         spec.correctness.policy !== undefined ? 'its correctness policy is below.'
                                                               : 'the correctness policy was not published.'));
        mark(el, !!ok);
      });
      doc.querySelectorAll('[data-kix-words]').forEach(function (el) {
        var t = m && x && p.objects ? computedRow(el.getAttribute('data-kix-words') || '', p) : null;
        if (t !== null) put(el, t);
        mark(el, t !== null);
      });
      /* a field cell is named by its JSON pointer (pages before 2026-12-07
       * also said data-kix-slot="field"); no data-kix-object: the
       * manifest; no data-kix-fmt: text */
      /* an exported page's field cells are named by their place (PROTOCOL.md
       * section 3, "Field cells by position"): named here, then proven */
      if (m && p.objects)
        nameFieldCells(doc, m.value, p.objects).forEach(function (el) { mark(el, false); });
      doc.querySelectorAll('[data-kix-ptr]').forEach(function (el) {
        /* the object a cell's table names for all its cells (run_page.c) */
        var shared = el.closest && el.closest('table[data-kix-object]');
        var name = el.getAttribute('data-kix-object') ||
                   (shared && shared.getAttribute('data-kix-object')) || 'manifest', obj = name === 'manifest'
          ? (m && m.value) : p.objects && p.objects[name];
        if (!p.objects || (!obj && name !== 'manifest' && OBJECT_FIELDS.indexOf(name) < 0))
          return mark(el, false);
        put(el, formatField(obj ? pointer(obj, el.getAttribute('data-kix-ptr') || '') : undefined,
                            el.getAttribute('data-kix-fmt') || 'text'));
        mark(el, true);
      });
    }

    /* the run page's facts the page must show (checked once all is proven) */
    function requireRun(p) {
      var x = p.run;
      required('run-id', 'the run id');
      required('title', 'the run\u2019s header');
      required('status', 'the run\u2019s status');
      required('evidence', 'the run\u2019s evidence');
      required('rank', 'the run\u2019s rank');
      required('entries', 'the entries about the run');
      if (p.figures.have) required('median', 'the run\u2019s median');
      /* a page written before the run's first rerun (attestation) shows
       * "none yet" and hides the table: the proven rows are shown instead */
      [['reruns', x.reruns.length], ['attestations', x.attestations.length]].forEach(function (t) {
        slots(t[0] + '-none').forEach(function (el) { el.hidden = !!t[1]; });
        slots(t[0] + '-table').forEach(function (el) { el.hidden = !t[1]; });
      });
      if (x.reruns.length) required('reruns', 'the run\u2019s ' + x.reruns.length + ' reruns');
      if (x.attestations.length)
        required('attestations', 'the run\u2019s ' + x.attestations.length + ' attestations');
      if (x.supersededBy) required('superseded-by', 'that the run is superseded');
      if (x.supersedes) required('supersedes', 'the run it supersedes');
      if (x.withdrawn) required('withdrawn', 'that the run is withdrawn from ranking');
    }

    /* a group page's row, every cell from what was proven: rank, run and
     * value by the group's page; implementation, provider, spread, evidence and date by the
     * run's record, manifest and implementation (blank where a row failed) */
    /* KernelBench's groups: the value of the page's eager row (provider
     * torch), for each row's speed-up over it (group_page.c's rule) */
    function eagerValue(members) {
      for (var i = 0; i < (members || []).length; i++) {
        var e = (proven.rows || {})[members[i].runId];
        if (e && e.provider === 'torch' && e.source === 'kernelbench-baseline-time')
          return members[i].value;
      }
      return undefined;
    }

    function groupCells(m, eager) {
      var r = (proven.rows || {})[m.runId], fig = r ? r.figures : {};
      var bytes = !!fig.bytes, best = proven.best;
      var spread = fig.p20 !== undefined && fig.p80 !== undefined
        ? human(fig.p20, bytes) + '\u2013' + human(fig.p80, bytes) : r ? 'not recorded' : '';
      var cells = [String(m.rank), r ? r.implementation || 'not recorded' : '',
                   r ? r.provider || 'not recorded' : '', human(m.value, bytes), spread,
                   best && m.value ? (Number(best) / Number(m.value)).toFixed(2) + '\u00d7' : ''];
      if (eager !== undefined)
        cells.push(m.value ? (Number(eager) / Number(m.value)).toFixed(2) + '\u00d7' : '');
      return cells.concat([r ? evidenceText({ evidence: r.evidence }) : '',
                           r ? r.observed || 'not recorded' : '', null]);
    }

    function writeGroup(p) {
      var members = p.members;
      fill('group-size', members ? String(p.size) : null);
      fill('group-title', p.title || null);
      if ('title' in doc && p.title) doc.title = p.title + ' \u2014 comparison group';
      fill('group-page', members ? pageWords(p) : null);
      slots('group-rows').forEach(function (tbody) {
        if (!members) return mark(tbody, false);
        clear(tbody);
        var eager = eagerValue(members);
        members.forEach(function (m) {
          var tr = doc.createElement('tr');
          var cells = groupCells(m, eager);
          tr.setAttribute('data-rank', String(m.rank));
          tr.setAttribute('data-run', m.runId);
          cells.forEach(function (c) {
            var td = doc.createElement('td');
            if (c === null) td.appendChild(link('../runs/' + encodeURIComponent(runPageName(m.runId)) + '.html', m.runId));
            else td.textContent = c;
            tr.appendChild(td);
          });
          tbody.appendChild(tr);
        });
        mark(tbody, true);
      });
      slots('group-withdrawn').forEach(function (tbody) {
        if (!p.withdrawn) return mark(tbody, false);
        clear(tbody);
        p.withdrawn.forEach(function (w) {
          var tr = doc.createElement('tr');
          tr.className = 'withdrawn';
          tr.setAttribute('data-run', w.runId);
          tr.setAttribute('data-entry', String(w.index));
          [w.reason, 'log entry ' + w.index, null].forEach(function (c) {
            var td = doc.createElement('td');
            if (c === null) td.appendChild(link('../runs/' + encodeURIComponent(runPageName(w.runId)) + '.html', w.runId));
            else td.textContent = c;
            tr.appendChild(td);
          });
          tbody.appendChild(tr);
        });
        mark(tbody, true);
      });
    }

    function write(p) {
      if (page === 'group') writeGroup(p);
      else writeRun(p);
    }

    /* A run page's parts of use only with this script, the same on every
     * page, are built here rather than written into each page (the static
     * copy's run page carries its values alone, PROTOCOL.md §3, "A run
     * page's shell"): the note on trusting the script, the rerun and
     * attestation tables a later checkpoint may fill, the checkpoint's,
     * BibTeX, CSL-JSON and manifest boxes, the line above the cite text
     * (its permalink, digest and size, which the cite text says), and the
     * sentences that explain attestations, the cite text and the tiles. A
     * page that has them (kixd's own, an older copy's) keeps its own. */
    function el(tag, attrs, kids) {
      var e = doc.createElement(tag);
      Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      (kids || []).forEach(function (c) { e.appendChild(typeof c === 'string' ? textNode(c) : c); });
      return e;
    }
    function after(ref, node) {
      if (ref.nextSibling) ref.parentNode.insertBefore(node, ref.nextSibling);
      else ref.parentNode.appendChild(node);
    }
    function scaffoldRun() {
      /* a copy's page (layout 7) names its slots by ids alone (COPY_SLOT_IDS),
       * its entries by their table's id and its sections' notes by their
       * section; an id said twice names no slot and the page fails */
      COPY_SLOT_IDS.forEach(function (s) {
        var e = doc.getElementById && doc.getElementById(s[0]);
        if (e && doc.querySelectorAll && doc.querySelectorAll('[id="' + s[0] + '"]').length > 1)
          twice.push(s[0]);
        else if (e && e.getAttribute && !e.getAttribute('data-kix-slot')) e.setAttribute('data-kix-slot', s[1]);
      });
      if (doc.querySelectorAll && doc.querySelectorAll('[id="entries"]').length > 1) twice.push('entries');
      var entries = doc.getElementById && doc.getElementById('entries');
      var body = entries && entries.querySelector && entries.querySelector('tbody');
      if (body && !body.getAttribute('data-kix-slot')) body.setAttribute('data-kix-slot', 'entries');
      if (doc.querySelectorAll)
        doc.querySelectorAll('[data-kix-section]').forEach(function (e) {
          if (!e.getAttribute('data-kix-slot')) e.setAttribute('data-kix-slot', 'section-note');
        });
      /* its computed rows (data-w) by their label and section: sections.c's
       * words_row kinds (an unknown label names none: the cell stays unproven) */
      if (doc.querySelectorAll)
        doc.querySelectorAll('td[data-w]').forEach(function (td) {
          var th = td.parentNode && td.parentNode.querySelector && td.parentNode.querySelector('th');
          var sec = td.closest && td.closest('section'), label = th ? th.textContent : '';
          var kind = label === 'x (swept)' ? (sec && sec.id === 'workload' ? 'swept' : 'swept-run')
              : Object.prototype.hasOwnProperty.call(COPY_WORDS, label) ? COPY_WORDS[label] : '';
          if (!td.hasAttribute('data-kix-words')) td.setAttribute('data-kix-words', kind || '');
        });
      if (!doc.createElement || !doc.querySelector) return;
      if (!doc.getElementById('verify-trust'))
        root.appendChild(el('p', { class: 'muted', id: 'verify-trust' }, [
          'With JavaScript, this page checks the checkpoint\u2019s signature with the log key, the ' +
          'inclusion of every log entry and the manifest\u2019s digest, reading only the tiles, and ' +
          'the rank and evidence against the log\u2019s signed index. This check runs the script ' +
          'this site sent, and a hostile site can send its own: to rely on it, load kix-verify.js ' +
          'from a source you trust (SECURITY.md, "The pages\u2019 verifier").']));
      [['reruns', ['entry', 'observed', 'outcome', 'median', 'rerun by', 'manifest']],
       ['attestations', ['entry', 'date', 'by', 'attestation']]].forEach(function (t) {
        var none = slots(t[0] + '-none')[0];
        if (!none || slots(t[0] + '-table').length || !none.parentNode) return;
        var div = el('div', { class: 'scroll', 'data-kix-slot': t[0] + '-table' }, [
          el('table', { id: t[0], class: 'list' }, [
            el('thead', {}, [el('tr', {}, t[1].map(function (h) { return el('th', {}, [h]); }))]),
            el('tbody', { 'data-kix-slot': t[0] })])]);
        div.hidden = true;
        after(none, div);
      });
      var notes = slots('attestations-table'), anchor = notes[0] || slots('attestations-none')[0];
      if (anchor && anchor.parentNode && !doc.getElementById('attestations-note'))
        after(anchor, el('p', { class: 'muted', id: 'attestations-note' }, [
          'Community attestations never change the evidence level; only a controlled rerun does.']));
      var cite = slots('cite-text')[0], id = root.getAttribute('data-run') || '';
      if (cite && cite.parentNode && !doc.getElementById('cite-how'))
        after(cite, el('p', { class: 'muted', id: 'cite-how' }, ['As ', el('code', {}, ['kix cite']),
          ' prints it (', el('code', {}, ['--format bibtex']), ', ', el('code', {}, ['csl-json']), ').']));
      if (cite && cite.parentNode && !slots('cite-about').length)
        cite.parentNode.insertBefore(el('p', { 'data-kix-slot': 'cite-about' }), cite);
      if (cite && cite.parentNode && !slots('cite-bibtex').length)
        [['csl', 'CSL-JSON', '.csl.json'], ['bibtex', 'BibTeX', '.bib']].forEach(function (f) {
          after(cite, el('details', {}, [el('summary', {}, [f[1]]),
            el('pre', { id: 'cite-' + f[0], class: 'cite', 'data-kix-slot': 'cite-' + f[0] }),
            el('p', {}, [el('a', { download: 'kix-' + id + f[2], 'data-kix-slot': 'cite-' + f[0] + '-file' },
                            ['Download ' + f[1]])])]));
        });
      var size = slots('tree-size')[0];
      if (size && size.parentNode && !doc.getElementById('tiles-note'))
        after(size, el('span', { id: 'tiles-note' }, [
          '; the tiles and entry bundles are C2SP tlog-tiles, checked against the signed ',
          el('a', { href: '../checkpoint' }, ['checkpoint']), '.']));
      if (size && size.parentNode && !slots('checkpoint').length)
        after(size.parentNode, el('details', {}, [el('summary', {}, ['Checkpoint']),
          el('pre', { 'data-kix-slot': 'checkpoint' })]));
      var log = doc.getElementById('log');
      if (log && log.parentNode && !doc.getElementById('manifest-section'))
        after(log, el('section', { id: 'manifest-section' }, [el('h2', {}, ['Canonical manifest']),
          el('p', {}, ['Digest ', el('code', { 'data-kix-slot': 'manifest-digest', id: 'manifest-digest' })])]));
      var digest = slots('manifest-digest')[0];
      if (digest && digest.parentNode && digest.parentNode.parentNode && !slots('manifest').length)
        digest.parentNode.parentNode.appendChild(el('details', {}, [el('summary', {}, ['Show the manifest']),
          el('pre', { 'data-kix-slot': 'manifest', id: 'manifest' })]));
    }

    var proven = {}, twice = [];
    if (page === 'run') scaffoldRun();
    show('running', 'verifying against the log\u2019s tiles\u2026');
    (async function () {
      target = pageTarget(doc.location.href, root, page);
      if (twice.length)
        throw new Fail('the page says id="' + twice[0] + '" more than once: which one is the run\u2019s?');
      var el = doc.getElementById('kix-view'), view;
      if (el) {
        try { view = JSON.parse(el.textContent); } catch (e) {
          throw new Fail('the page\u2019s view (#kix-view) is not JSON');
        }
        view = await fullView(view, root, doc);
      } else {
        view = await fetchView(); /* a bare page: the view from the log's site */
      }
      var here = new URL(doc.location.href);
      var subject = here.protocol === 'file:' ? null : pageSubject(here.pathname, here.search);
      checkSubject({ page: page, id: target, groupPage: subject ? subject.groupPage : undefined,
                     digest: subject ? subject.digest : undefined }, view);
      var io = { fetchBytes: fetchBytes, fetchView: fetchView, pin: pagePin(root) };
      await (page === 'group' ? verifyGroupView(view, io, proven)
                              : verifyRunView(view, io, proven));
      if (page === 'run') requireRun(proven);
      else {
        required('group-rows', 'the group\u2019s rows');
        if (proven.withdrawn.length)
          required('group-withdrawn', 'the group\u2019s ' + proven.withdrawn.length +
                   ' withdrawn runs');
      }
    })().then(function () {
      var s = summary(page, proven, null);
      write(proven);
      try {
        visibleRows(page === 'group' ? ['group-rows'] : ['reruns', 'attestations', 'entries']);
      } catch (e) {
        s = summary(page, proven, e instanceof Fail ? e : new Fail(String(e)));
      }
      show(s.state, s.text);
    }, function (e) {
      write(proven);
      var s = summary(page, proven, e instanceof Fail ? e : new Fail(String(e)));
      show(s.state, s.text);
    });
  }

  var api = {
    Fail: Fail, hex: hex, unhex: unhex, b64: b64, b64encode: b64encode, cat: cat, equal: equal,
    compareBytes: compareBytes, deepEqual: deepEqual, sha256: sha256, leafHash: leafHash,
    nodeHash: nodeHash, parseVkey: parseVkey, openNote: openNote, verifyNote: verifyNote,
    parseCheckpoint: parseCheckpoint, verifyCheckpoint: verifyCheckpoint,
    parseIndexNote: parseIndexNote, smtRoot: smtRoot, IndexFiles: IndexFiles, tileKey: tileKey,
    tileSlot: tileSlot, pageHolding: pageHolding, decodeRunRecord: decodeRunRecord,
    decodeGroupDir: decodeGroupDir, decodeGroupPage: decodeGroupPage, decodeWithdrawn: decodeWithdrawn, startsPage: startsPage, tileIndex: tileIndex, pageSubject: pageSubject,
    tilePath: tilePath, Tiles: Tiles, provenLeaf: provenLeaf, runFacts: runFacts,
    compareRunView: compareRunView, compareGroupView: compareGroupView, provenRow: provenRow,
    verifyRunView: verifyRunView, verifyGroupView: verifyGroupView, summary: summary,
    jcs: jcs, fixed: fixed, human: human, entryStatement: entryStatement, runEntries: runEntries,
    provenObjects: provenObjects, provenRerunFigures: provenRerunFigures, figuresOf: figuresOf, pointer: pointer, formatField: formatField,
    runTitle: runTitle, evidenceText: evidenceText, siteBase: siteBase, pageTarget: pageTarget,
    pagePin: pagePin, checkPin: checkPin, shapeText: shapeText
  };
  /* the layout's run page names (PROTOCOL.md §3), for the node tests */
  api.sectionFields = sectionFields; /* held to client/view/sections.c by js.render's vectors */
  api.runPageName = runPageName;
  api.runPageId = runPageId;

  if (typeof document !== 'undefined' && document.getElementById) {
    var doc = document;
    if (doc.readyState === 'loading')
      doc.addEventListener('DOMContentLoaded', function () { startPage(doc); });
    else startPage(doc);
  }
  if (typeof window !== 'undefined') window.kixVerify = api; /* for kix-write.js */
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})();
