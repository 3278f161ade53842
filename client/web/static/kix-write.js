/* kix-write.js: "Add a reproduction or note" on a run page (issue 41).
 *
 * The reader's browser holds an Ed25519 key of its own (WebCrypto), kept
 * non-extractable in IndexedDB; the key file (kix's PRIVATE+KEY+... text)
 * can be saved once, when the key is made. The page builds the attestation
 * exactly as `kix attest` does (an in-toto statement in a DSSE envelope,
 * PROTOCOL.md §5), signs it here, and POSTs it to the log's /submit
 * (§3.4). A reproduction is the run's own manifest with the reader's
 * figures, sent as the attestation's evidence. A body signed elsewhere
 * (`kix attest --sign-only`) can be pasted and sent as it is.
 *
 * Who may write what (PROTOCOL.md §5.4): a note from a key the log's admin
 * registered, or, where the log's policy allows (GET /policy), an open note
 * from any key: it carries the key's public half and, when the policy asks,
 * a proof of work ground here; every reader shows it as "community,
 * unregistered key". A reproduction can also go as a controlled rerun, which
 * only a key registered with the rerun role may sign: the log refuses it
 * from any other, whatever its policy.
 *
 * Nothing here is trusted by the log: it checks the signature, the key's
 * role and every record, as for the CLI; the receipt it answers is shown,
 * and after a reload the new row is verified like every other row.
 */
(function () {
  'use strict';

  var kv = typeof module !== 'undefined' && module.exports
    ? require('./kix-verify.js')
    : (typeof window !== 'undefined' ? window.kixVerify : null);
  var subtle = (typeof crypto !== 'undefined' && crypto.subtle) ||
               (typeof require === 'function' ? require('crypto').webcrypto.subtle : null);
  var enc = new TextEncoder();

  var STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
  var ATTESTATION = 'https://kernelindex.dev/attestation/v1';
  var RERUN = 'https://kernelindex.dev/rerun/v1';
  var WORK_MAX = 24; /* bits of work a page grinds (about 2^24 hashes at most) */
  var PAYLOAD_TYPE = 'application/vnd.in-toto+json';
  var NOTE_MAX = 1000; /* characters of a note written here */
  var ALG_ED25519 = 1;

  function now() { return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'); }

  /* ---- keys --------------------------------------------------------------------- */

  /* C2SP signed-note key text: name+hash+base64(alg ‖ key), hash the first
   * 4 bytes of SHA-256(name ‖ "\n" ‖ alg ‖ public key) in hex. */
  async function keyHash(name, pub) {
    var h = await kv.sha256(kv.cat(enc.encode(name + '\n'), new Uint8Array([ALG_ED25519]), pub));
    return kv.hex(h.slice(0, 4));
  }

  async function publicKeyText(name, pub) {
    return name + '+' + (await keyHash(name, pub)) + '+' +
           kv.b64encode(kv.cat(new Uint8Array([ALG_ED25519]), pub));
  }

  async function privateKeyText(name, pub, seed) {
    return 'PRIVATE+KEY+' + name + '+' + (await keyHash(name, pub)) + '+' +
           kv.b64encode(kv.cat(new Uint8Array([ALG_ED25519]), seed));
  }

  /* A new key: {name, pub (32 bytes), privateKey (non-extractable
   * CryptoKey), keyFile (the PRIVATE+KEY text: offered once, never stored)}. */
  async function makeKey(name) {
    var pair = await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    var pub = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
    var pkcs8 = new Uint8Array(await subtle.exportKey('pkcs8', pair.privateKey));
    var seed = pkcs8.slice(pkcs8.length - 32); /* RFC 8410: the seed ends the DER */
    var kept = await subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
    var key = { name: name, pub: pub, privateKey: kept,
                keyFile: await privateKeyText(name, pub, seed) };
    pkcs8.fill(0);
    seed.fill(0);
    return key;
  }

  /* The key's id as kix names a signer: hex SHA-256 of the public key. */
  async function keyId(pub) { return kv.hex(await kv.sha256(pub)); }

  /* ---- entries ------------------------------------------------------------------ */

  /* The statement `kix attest` signs, canonical (RFC 8785); `open`: the
   * signer's public key (32 bytes) for an open note (`kix attest --open`),
   * the nonce of its proof of work, if any, and the origin of the log it is
   * for. */
  function attestationStatement(runId, manifestHex, note, evidence, attestedAt, open, work, log) {
    var pred = { runId: runId, note: note, attestedAt: attestedAt || now() };
    if (evidence && evidence.length) pred.evidence = evidence;
    if (open) { pred.signerKey = kv.b64encode(open); pred.log = log; }
    if (work !== undefined) pred.work = work;
    return kv.jcs({ _type: STATEMENT_TYPE, predicate: pred, predicateType: ATTESTATION,
                    subject: [{ digest: { sha256: manifestHex }, name: runId }] });
  }

  /* The statement `kix rerun` signs: a controlled rerun of the run. */
  function rerunStatement(runId, manifestHex, outcome, rerunDigest, observedAt) {
    return kv.jcs({ _type: STATEMENT_TYPE, predicate: { runId: runId, outcome: outcome,
                    rerunDigest: rerunDigest, observedAt: observedAt || now() },
                    predicateType: RERUN, subject: [{ digest: { sha256: manifestHex }, name: runId }] });
  }

  /* Leading zero bits of a hash. */
  function zeroBits(h) {
    var n = 0;
    for (var i = 0; i < h.length; i++) {
      if (h[i] === 0) { n += 8; continue; }
      for (var b = h[i]; !(b & 0x80); b <<= 1) n++;
      break;
    }
    return n;
  }

  /* Hashcash as the log checks it: a "work" nonce in the open note until
   * SHA-256 of the statement's PAE has `bits` leading zero bits. */
  async function grind(make, bits) {
    if (!(bits > 0)) return make(undefined);
    if (bits > WORK_MAX) throw new kv.Fail('the log asks ' + bits + ' bits of work; a page grinds at most ' + WORK_MAX);
    for (var i = 0; ; i++) {
      var st = make(i.toString(16));
      if (zeroBits(await kv.sha256(pae(PAYLOAD_TYPE, enc.encode(st)))) >= bits) return st;
    }
  }

  /* DSSE v1 pre-authentication encoding. */
  function pae(type, body) {
    return kv.cat(enc.encode('DSSEv1 ' + enc.encode(type).length + ' ' + type + ' ' +
                             body.length + ' '), body);
  }

  async function envelope(key, statement) {
    var body = enc.encode(statement);
    var sig = new Uint8Array(await subtle.sign({ name: 'Ed25519' }, key.privateKey,
                                               pae(PAYLOAD_TYPE, body)));
    return { payload: kv.b64encode(body), payloadType: PAYLOAD_TYPE,
             signatures: [{ keyid: await keyId(key.pub), sig: kv.b64encode(sig) }] };
  }

  /* A reproduction: the run's manifest with the reader's figures (ns) and
   * date, as a record of its own. Throws a kv.Fail naming the field. */
  function reproduction(manifest, figures) {
    var m = JSON.parse(JSON.stringify(manifest)), spec = m.spec || (m.spec = {});
    var median = figures.median, p20 = figures.p20, p80 = figures.p80;
    function whole(x, what) {
      if (!(Number.isInteger(x) && x > 0))
        throw new kv.Fail(what + ': a whole number of nanoseconds above 0');
    }
    whole(median, '/spec/timing/latencyNs/median');
    if (p20 !== undefined || p80 !== undefined) {
      whole(p20, 'p20');
      whole(p80, 'p80');
      if (!(p20 <= median && median <= p80))
        throw new kv.Fail('the quantiles are out of order: p20 ≤ median ≤ p80');
    }
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(figures.observedAt || '') ||
        figures.observedAt < '2000-01-01' || Date.parse(figures.observedAt) > Date.now() + 3e5)
      throw new kv.Fail('/spec/observedAt: a UTC time such as 2026-11-30T12:00:00Z, not in the future');
    spec.timing = { latencyNs: { median: median }, primaryStatistic: 'median' };
    spec.observedAt = figures.observedAt;
    spec.measurements = p20 === undefined ? [] : [
      { metric: 'latency', statistic: 'p20', unit: 'ns', value: p20 },
      { metric: 'latency', statistic: 'p80', unit: 'ns', value: p80 }];
    if (!spec.measurements.length) delete spec.measurements;
    if (m.metadata) delete m.metadata.runId;
    return m;
  }

  /* The body POST /submit takes for a note (and a reproduction's record).
   * opts.open: an open note (from an unregistered key) for the log whose
   * origin is opts.log, opts.work the bits of work its policy asks. */
  async function noteBody(key, run, note, record, opts) {
    opts = opts || {};
    note = String(note || '').trim();
    if (!note) throw new kv.Fail('write a note first');
    if (opts.open && !opts.log) throw new kv.Fail('an open note names its log: the page gives no origin');
    if (note.length > NOTE_MAX) throw new kv.Fail('a note is at most ' + NOTE_MAX + ' characters');
    var objects = [], evidence = [];
    if (record) {
      var text = kv.jcs(record);
      objects.push(record);
      evidence.push('sha256:' + kv.hex(await kv.sha256(enc.encode(text))));
    }
    var at = now();
    var st = await grind(function (work) {
      return attestationStatement(run.runId, run.manifestHex, note, evidence, at,
                                  opts.open ? key.pub : null, opts.open ? work : undefined,
                                  opts.log);
    }, opts.open ? opts.work : 0);
    return { envelope: await envelope(key, st), objects: objects };
  }

  /* The body of a controlled rerun: the reproduction record as the rerun's
   * manifest, with its outcome. */
  async function rerunBody(key, run, record, outcome) {
    var text = kv.jcs(record);
    var d = 'sha256:' + kv.hex(await kv.sha256(enc.encode(text)));
    var st = rerunStatement(run.runId, run.manifestHex, outcome || 'reproduced', d,
                            (record.spec || {}).observedAt);
    return { envelope: await envelope(key, st), objects: [record] };
  }

  /* The log's policy (GET /policy beside /submit): {openNotes, noteWork};
   * closed when it cannot be read. What the page offers, never trusted:
   * the log decides each entry by the policy in force. */
  async function policy(submitUrl, fetchFn) {
    try {
      var r = await (fetchFn || fetch)(submitUrl.replace(/submit$/, 'policy'));
      var p = r.ok ? await r.json() : {};
      return { openNotes: p.openNotes === true,
               noteWork: Number.isInteger(p.noteWork) ? p.noteWork : 0 };
    } catch (e) {
      return { openNotes: false, noteWork: 0 };
    }
  }

  /* ---- the log ------------------------------------------------------------------ */

  /* POSTs a body; resolves to {status, answer} (the answer's JSON). */
  async function submit(url, body, fetchFn) {
    var r = await (fetchFn || fetch)(url, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body) });
    var text = await r.text(), answer;
    try { answer = JSON.parse(text); } catch (e) { answer = { error: { message: text.slice(0, 200) } }; }
    return { status: r.status, answer: answer };
  }

  function said(res) {
    if (res.status === 201)
      return 'Logged at entry ' + res.answer.index + '. Reload to see it verified. Receipt:';
    if (res.status === 409)
      return 'Already logged, at entry ' + res.answer.index + '.';
    var e = res.answer.error || {};
    return 'Refused (' + res.status + (e.code ? ', ' + e.code : '') + '): ' + (e.message || '');
  }

  /* ---- IndexedDB: the browser's key --------------------------------------------- */

  function db() {
    return new Promise(function (ok, no) {
      var req = indexedDB.open('kix-keys', 1);
      req.onupgradeneeded = function () { req.result.createObjectStore('keys'); };
      req.onsuccess = function () { ok(req.result); };
      req.onerror = function () { no(req.error); };
    });
  }

  async function stored(op, value) {
    var d = await db();
    return new Promise(function (ok, no) {
      var tx = d.transaction('keys', op === 'get' ? 'readonly' : 'readwrite');
      var req = op === 'get' ? tx.objectStore('keys').get('key')
        : tx.objectStore('keys').put(value, 'key');
      req.onsuccess = function () { ok(req.result); };
      req.onerror = function () { no(req.error); };
    });
  }

  /* ---- the page ----------------------------------------------------------------- */

  function start(doc) {
    var sec = doc.getElementById('contribute');
    if (!sec || !kv || !subtle) return;
    var status = doc.getElementById('kix-write-status');
    var receipt = doc.getElementById('kix-write-receipt');
    var keyLine = doc.getElementById('kix-write-key');
    var url = new URL(sec.getAttribute('data-submit'), doc.location.href).href;
    var run = { runId: sec.getAttribute('data-run'),
                manifestHex: (sec.getAttribute('data-manifest') || '').replace(/^sha256:/, '') };
    var key = null, pol = { openNotes: false, noteWork: 0 };
    var openBox = doc.getElementById('kix-write-open');

    function say(text, state) {
      status.textContent = text;
      status.setAttribute('data-state', state || 'none');
    }
    async function showKey(k, fresh) {
      key = k;
      keyLine.textContent = '';
      var p = doc.createElement('p');
      p.textContent = 'Your key in this browser: ';
      var code = doc.createElement('code');
      code.textContent = await publicKeyText(k.name, k.pub);
      p.appendChild(code);
      keyLine.appendChild(p);
      var q = doc.createElement('p');
      q.className = 'muted';
      q.textContent = (pol.openNotes
        ? 'This log takes open notes from any key, shown as "community, unregistered key"; ' +
          'for a registered note or a rerun, send this line to its admin '
        : 'The log takes notes only from keys its admin registered: send this line to them ') +
        '(kix key add --role attest FILE).';
      keyLine.appendChild(q);
      if (fresh) {
        var a = doc.createElement('a');
        a.href = URL.createObjectURL(new Blob([k.keyFile + '\n'], { type: 'text/plain' }));
        a.download = k.name + '.key';
        a.textContent = 'Save the key file now (kix can sign with it; the browser will not show it again)';
        keyLine.appendChild(a);
      }
    }
    policy(url).then(function (p) {
      pol = p;
      if (openBox) openBox.hidden = !p.openNotes;
      return stored('get');
    }).then(function (k) { if (k) showKey(k, false); }).catch(function () {});
    doc.getElementById('kix-write-make').addEventListener('click', async function () {
      try {
        var k = await makeKey('browser-' + Date.now().toString(36));
        var kept = { name: k.name, pub: k.pub, privateKey: k.privateKey };
        await stored('put', kept);
        await showKey(k, true);
        k.keyFile = '';
      } catch (e) { say('Cannot make a key in this browser: ' + e, 'fail'); }
    });
    async function send(body) {
      say('Sending…');
      var res = await submit(url, body);
      say(said(res), res.status === 201 || res.status === 409 ? 'ok' : 'fail');
      receipt.textContent = res.answer.receipt || '';
    }
    doc.getElementById('kix-write-note').addEventListener('submit', async function (ev) {
      ev.preventDefault();
      var f = ev.target;
      try {
        if (!key) throw new kv.Fail('make a key first (and have the log\'s admin register it)');
        var record = null;
        if (f.median.value) {
          /* an exported page's manifest slot is empty until its verifier
           * has proven the manifest and written it there (PROTOCOL.md
           * section 3, layout 3): a reproduction is built from that alone */
          var shown = doc.querySelector('[data-kix-slot="manifest"]').textContent;
          if (!shown.trim())
            throw new kv.Fail('the page has not shown the run\'s manifest yet: its verifier ' +
                              'writes it there once it has proven it (wait for the check above)');
          var manifest = JSON.parse(shown);
          var num = function (x) { return x === '' ? undefined : Number(x); };
          record = reproduction(manifest, { median: num(f.median.value), p20: num(f.p20.value),
                                            p80: num(f.p80.value), observedAt: f.observed.value });
        }
        if (f.as && f.as.value === 'rerun') {
          if (!record) throw new kv.Fail('a controlled rerun needs your figures (median and date)');
          await send(await rerunBody(key, run, record, f.outcome ? f.outcome.value : 'reproduced'));
          return;
        }
        var open = !!(pol.openNotes && openBox && !openBox.hidden && f.open && f.open.checked);
        if (open && pol.noteWork) say('Working (' + pol.noteWork + ' bits the log asks of an open note)…');
        await send(await noteBody(key, run, f.note.value, record,
                                  { open: open, work: pol.noteWork,
                                    log: sec.getAttribute('data-origin') }));
      } catch (e) { say(e instanceof kv.Fail ? e.message : String(e), 'fail'); }
    });
    doc.getElementById('kix-write-paste').addEventListener('submit', async function (ev) {
      ev.preventDefault();
      try { JSON.parse(ev.target.body.value); } catch (e) { say('That is not JSON: ' + e.message, 'fail'); return; }
      try { await send(ev.target.body.value); } catch (e) { say(String(e), 'fail'); }
    });
  }

  var api = { publicKeyText: publicKeyText, privateKeyText: privateKeyText, makeKey: makeKey,
              keyId: keyId, attestationStatement: attestationStatement, pae: pae,
              envelope: envelope, reproduction: reproduction, noteBody: noteBody, submit: submit,
              rerunBody: rerunBody, policy: policy, zeroBits: zeroBits, NOTE_MAX: NOTE_MAX };
  if (typeof document !== 'undefined' && document.getElementById) {
    if (document.readyState === 'loading')
      document.addEventListener('DOMContentLoaded', function () { start(document); });
    else start(document);
  }
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})();
