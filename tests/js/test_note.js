/* js.note: kix-verify.js's C2SP signed notes, verifier keys and checkpoints
 * against the signed-note vectors of tests/vectors/note (golang.org/x/mod
 * and C2SP; README there): every valid note opens with its text and
 * signers, every invalid one is refused with Go's error, every bad key is
 * refused; and kix's checkpoint and index-note texts parse as
 * PROTOCOL.md section 4.3 says, malformed ones not. */
'use strict';
const { kv, check, refuses, readJson, main } = require('./lib.js');

main(async () => {
  const d = readJson('vectors/note/vectors.json');

  for (const k of d.keys) {
    const v = await kv.parseVkey(k.verifier_key);
    check(v.name === k.name && kv.hex(v.hash) === k.key_id_hex &&
          kv.hex(v.pub) === k.ed25519_public_key_hex, 'key ' + k.verifier_key);
  }
  for (const k of d.bad_verifier_keys)
    await refuses(() => kv.parseVkey(k.verifier_key), 'the log key', 'bad key ' + k.why);
  await refuses(() => kv.parseVkey('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'),
                'wrong key hash', 'a key with another key hash');
  await refuses(() => kv.parseVkey('Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'),
                'not a note verifier key', 'a key name with a space');

  let valid = 0, invalid = 0;
  for (const v of d.vectors) {
    const keys = [];
    for (const k of v.verifier_keys) keys.push(await kv.parseVkey(k));
    let got, err = null;
    try { got = await kv.openNote(kv.unhex(v.note_hex), keys); } catch (e) {
      if (!(e instanceof kv.Fail)) throw e;
      err = e.message;
    }
    if (v.expect_valid) {
      valid++;
      check(!err, v.id + ': refused: ' + err);
      if (err) continue;
      check(got.text === v.expected_text, v.id + ': text');
      const names = got.verified.map((s) => s.slice(0, s.lastIndexOf('+')));
      check(JSON.stringify(names) === JSON.stringify(v.expected_verified_signers),
            v.id + ': signers ' + names);
      /* the same note given as text (as a view holds it) opens the same */
      if (v.note_text !== null) {
        const t = await kv.openNote(v.note_text, keys);
        check(t.text === v.expected_text, v.id + ': as text');
      }
    } else {
      invalid++;
      check(err === v.expected_error, v.id + ': got "' + err + '", want "' + v.expected_error + '"');
    }
  }
  check(valid === 13 && invalid === 15, 'all 28 note vectors ran');

  /* notes no listed key signed: well formed, but unverified */
  for (const p of d.parse_only)
    await refuses(() => kv.openNote(p.note_text, []), 'note has no verifiable signatures', p.id);
  /* a note given as text with a lone surrogate is not UTF-8 */
  const peter = d.vectors.find((v) => v.id === 'golang-peter-valid');
  const pk = [await kv.parseVkey(peter.verifier_key)];
  await refuses(() => kv.openNote('\uD800' + peter.note_text, pk), 'malformed note', 'lone surrogate');
  /* what the page says for each kind of failure */
  await refuses(() => kv.verifyNote(peter.note_text.replace('If', 'Of'), pk[0], 'checkpoint'),
                'the checkpoint signature does not verify with the log key PeterNeumann', 'altered');
  await refuses(() => kv.verifyNote(peter.note_text, { name: 'Other', hash: pk[0].hash, pub: pk[0].pub }, 'index note'),
                'the index note has no signature by the log key Other', 'unsigned');
  await refuses(() => kv.verifyNote('text\n', pk[0], 'checkpoint'), 'the checkpoint is not a signed note',
                'no signature block');

  /* checkpoints (c2sp.org/tlog-checkpoint): the go.sum tree note format */
  const tree = d.tlog_tree_note;
  const cp = kv.parseCheckpoint(tree.text);
  check(cp.origin === 'go.sum database tree' && cp.size === tree.tree_size &&
        kv.b64encode(cp.root) === tree.root_hash_base64, 'tree note parses');
  for (const bad of tree.bad_texts.slice(1))
    await refuses(() => kv.parseCheckpoint(bad), 'checkpoint', 'bad tree note ' + JSON.stringify(bad));
  const root = tree.root_hash_base64;
  for (const [bad, why] of [['o\n012\n' + root + '\n', 'leading zero'],
                            ['o\n-1\n' + root + '\n', 'negative size'],
                            ['o\n1\n' + root, 'no final newline'],
                            ['\n1\n' + root + '\n', 'empty origin'],
                            ['o\n1\n' + root.slice(4) + '\n', 'short root'],
                            ['o\n99999999999999999\n' + root + '\n', 'size past 2^53']])
    await refuses(() => kv.parseCheckpoint(bad), 'checkpoint', 'checkpoint with ' + why);
  check(kv.parseCheckpoint('o\n0\n' + root + '\next\n').size === 0, 'an extension line is kept out');

  /* kix's index note (PROTOCOL.md section 4.3) */
  const good = 'kix.index/v1\norigin log.example\nsize 44\nlog ' + root + '\nindex ' + root + '\n';
  const n = kv.parseIndexNote(good);
  check(n.origin === 'log.example' && n.size === 44 && kv.equal(n.log, cp.root) &&
        kv.equal(n.index, cp.root), 'index note parses');
  for (const [bad, why] of [[good.replace('v1', 'v2'), 'another version'],
                            [good.replace('size 44', 'size 044'), 'leading zero'],
                            [good.replace('origin ', 'origin:'), 'no origin line'],
                            [good + 'more\n', 'an extra line'],
                            [good.replace('index ' + root, 'index ' + root.slice(4)), 'a short root']])
    await refuses(() => kv.parseIndexNote(bad), 'the index note is malformed', 'index note with ' + why);
});
