/* js.write: kix-write.js, the run page's "Add a reproduction or note",
 * against the real kix and a real store: a key made with WebCrypto is a
 * kix key (its .pub registers with kix key add, its key file signs with
 * kix attest); the note it signs is the entry kix attest makes, accepted
 * by the log through kix submit and shown by kix show; a reproduction is
 * a record kix validate accepts, sent as the note's evidence; a forged or
 * unregistered body is refused; bad figures are refused before signing;
 * an open note (signerKey, the policy's proof of work) is logged once the
 * log's policy allows it and labeled, a rerun from the same key refused. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { kv, src, check, refuses, main } = require('./lib.js');
const kw = require(path.join(src, 'client', 'web', 'static', 'kix-write.js'));

const bin = process.env.KIX_BIN;
function run(name, args, opts) {
  return spawnSync(path.join(bin, name), args, Object.assign({ encoding: 'utf8' }, opts || {}));
}

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kix-js-write-'));
  const env = Object.assign({}, process.env, { KIX_STATE_DIR: dir + '/state', XDG_CONFIG_HOME: dir + '/cfg' });
  const store = dir + '/log';
  try {
    const vkey = execFileSync(path.join(bin, 'kixd'), ['init', '--store', store, '--admin-key', dir + '/admin.key',
      '--origin', 'js.write/log'], { encoding: 'utf8', env: env, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    env.KIX_LOG_KEY = vkey;
    const k = (args) => run('kix', args, { env: env });

    /* a run to write about */
    execFileSync(path.join(bin, 'kix'), ['keygen', '--name', 'pub', '--out', dir + '/pub'], { env: env, stdio: 'ignore' });
    k(['key', 'add', '--store', store, '--key', dir + '/admin.key', '--role', 'publish', dir + '/pub.pub']);
    k(['new', 'run', '--kernel', 'rope', '--gpu', 'NVIDIA A100-SXM4-80GB', '--param', 'seq=2048',
       '--median', '11000', '--p20', '10500', '--p80', '11800', dir + '/m']);
    const proto = JSON.parse(fs.readFileSync(dir + '/m/protocol.json', 'utf8'));
    proto.spec.harness.name = 'js test harness';
    proto.spec.comparability.notes = 'timed by the js test';
    fs.writeFileSync(dir + '/m/protocol.json', JSON.stringify(proto));
    const pub = k(['publish', '--store', store, '--key', dir + '/pub.key', '--run-id', 'rope-w', '--json', dir + '/m/run.json']);
    check(pub.status === 0, 'a run to write about: ' + pub.stdout + pub.stderr);
    const digest = JSON.parse(pub.stdout).digest;

    /* the browser's key is a kix key */
    const key = await kw.makeKey('browser-test');
    const pubText = await kw.publicKeyText(key.name, key.pub);
    check(/^browser-test\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/.test(pubText), 'public key text: ' + pubText);
    fs.writeFileSync(dir + '/b.pub', pubText + '\n');
    fs.writeFileSync(dir + '/b.key', key.keyFile + '\n', { mode: 0o600 });
    const parsed = await kv.parseVkey(pubText);
    check(kv.equal(parsed.pub, key.pub), 'kix-verify.js reads the key text back');
    check(key.privateKey.extractable === false, 'the key kept is not extractable');

    /* not yet registered: refused */
    const run0 = { runId: 'rope-w', manifestHex: digest.replace(/^sha256:/, '') };
    let body = await kw.noteBody(key, run0, 'seen on our A100 too');
    fs.writeFileSync(dir + '/n0.json', JSON.stringify(body));
    let r = k(['submit', '--store', store, dir + '/n0.json']);
    check(r.status === 1 && /not registered/.test(r.stderr), 'an unregistered browser key is refused: ' + r.stderr);

    /* registered with kix key add, the same body is logged */
    r = k(['key', 'add', '--store', store, '--key', dir + '/admin.key', '--role', 'attest', dir + '/b.pub']);
    check(r.status === 0, 'kix key add takes the browser key\'s .pub: ' + r.stderr);
    r = k(['submit', '--store', store, '--json', dir + '/n0.json']);
    check(r.status === 0 && JSON.parse(r.stdout).entry === 'attestation', 'the note is logged: ' + r.stdout + r.stderr);
    r = k(['show', '--store', store, 'rope-w']);
    check(/seen on our A100 too/.test(r.stdout), 'kix show lists the note');

    /* the key file signs with kix attest */
    r = k(['attest', '--store', store, '--key', dir + '/b.key', '--note', 'signed by kix with the saved key file', 'rope-w']);
    check(r.status === 0, 'kix attest signs with the key file the browser offered: ' + r.stderr);

    /* a reproduction: the run's manifest with the reader's figures */
    const manifest = JSON.parse(fs.readFileSync(dir + '/m/run.json', 'utf8'));
    const canonRun = JSON.parse(run('kix', ['get', '--store', store, digest], { env: env }).stdout);
    const rec = kw.reproduction(canonRun, { median: 11100, p20: 10600, p80: 11900, observedAt: '2026-11-30T12:00:00Z' });
    fs.writeFileSync(dir + '/rep.json', JSON.stringify(rec));
    r = k(['validate', '--store', store, dir + '/rep.json']);
    check(r.status === 0, 'kix validate accepts the reproduction record: ' + r.stdout + r.stderr);
    body = await kw.noteBody(key, run0, 'reproduced: 11.1 µs', rec);
    fs.writeFileSync(dir + '/n1.json', JSON.stringify(body));
    r = k(['submit', '--store', store, dir + '/n1.json']);
    check(r.status === 0, 'a note with its reproduction is logged: ' + r.stderr);
    const res = JSON.parse(k(['resolve', '--store', store, '--json', 'rope-w']).stdout);
    check(JSON.stringify(res).includes('reproduced: 11.1'), 'kix resolve proves the reproduction note');
    check(manifest.kind === 'BenchmarkRun', 'the bundle manifest');

    /* bad figures never reach a signature */
    await refuses(async () => kw.reproduction(canonRun, { median: 0, observedAt: '2026-11-30T12:00:00Z' }),
                  'median', 'a median of 0');
    await refuses(async () => kw.reproduction(canonRun, { median: 100, p20: 200, p80: 300, observedAt: '2026-11-30T12:00:00Z' }),
                  'out of order', 'quantiles out of order');
    await refuses(async () => kw.reproduction(canonRun, { median: 100, observedAt: '0000-01-01T00:00:00Z' }),
                  'observedAt', 'a date before 2000');
    await refuses(async () => kw.noteBody(key, run0, ''), 'write a note', 'an empty note');
    await refuses(async () => kw.noteBody(key, run0, 'x'.repeat(kw.NOTE_MAX + 1)), 'at most', 'a note too long');

    /* a forged body: the note changed after signing */
    const forged = JSON.parse(fs.readFileSync(dir + '/n0.json', 'utf8'));
    const p = Buffer.from(forged.envelope.payload, 'base64').toString().replace('seen on', 'SEEN ON');
    forged.envelope.payload = Buffer.from(p).toString('base64');
    fs.writeFileSync(dir + '/forged.json', JSON.stringify(forged));
    r = k(['submit', '--store', store, dir + '/forged.json']);
    check(r.status === 1 && /signature|verif/i.test(r.stderr), 'a forged note is refused: ' + r.stderr);

    /* an open note (PROTOCOL.md 5.4) from a key nobody registered: refused
     * until the log's policy allows them, then logged with the proof of work
     * it asks, and labeled; a rerun from that key is refused whatever the
     * policy */
    const stranger = await kw.makeKey('browser-stranger');
    const on = await kw.noteBody(stranger, run0, 'open note from a browser', rec, { open: true, log: 'js.write/log' });
    fs.writeFileSync(dir + '/o0.json', JSON.stringify(on));
    r = k(['submit', '--store', store, dir + '/o0.json']);
    check(r.status === 1 && /no open notes/.test(r.stderr), 'an open note before the policy is refused: ' + r.stderr);
    r = k(['policy', '--store', store, '--key', dir + '/admin.key', '--open-notes', 'on', '--note-work', '8']);
    check(r.status === 0, 'kix policy --open-notes on --note-work 8: ' + r.stderr);
    r = k(['submit', '--store', store, dir + '/o0.json']);
    check(r.status === 1 && /asks 8/.test(r.stderr), 'an open note without the work is refused: ' + r.stderr);
    const worked = await kw.noteBody(stranger, run0, 'open note from a browser', rec,
                                     { open: true, work: 8, log: 'js.write/log' });
    const st = Buffer.from(worked.envelope.payload, 'base64');
    check(kw.zeroBits(new Uint8Array(require('crypto').createHash('sha256').update(kw.pae('application/vnd.in-toto+json', st)).digest())) >= 8,
          'the page ground 8 bits of work');
    fs.writeFileSync(dir + '/o1.json', JSON.stringify(worked));
    r = k(['submit', '--store', store, dir + '/o1.json']);
    check(r.status === 0, 'the open note with its work is logged: ' + r.stderr);
    r = k(['show', '--store', store, 'rope-w']);
    check(/\(community, unregistered key\): open note from a browser/.test(r.stdout),
          'kix show labels it "community, unregistered key": ' + r.stdout.split('Replications')[1]);
    const elsewhere = await kw.noteBody(stranger, run0, 'for another log', null,
                                        { open: true, work: 8, log: 'other.example/log' });
    fs.writeFileSync(dir + '/o2.json', JSON.stringify(elsewhere));
    r = k(['submit', '--store', store, dir + '/o2.json']);
    check(r.status === 1 && /not this one/.test(r.stderr), 'an open note signed for another log is refused: ' + r.stderr);
    const rr = await kw.rerunBody(stranger, run0, rec, 'reproduced');
    fs.writeFileSync(dir + '/rr.json', JSON.stringify(rr));
    r = k(['submit', '--store', store, dir + '/rr.json']);
    check(r.status === 1 && /only a note/.test(r.stderr), 'the same reproduction as a rerun is refused: ' + r.stderr);

    r = k(['audit', '--store', store]);
    check(r.status === 0, 'kix audit passes: ' + r.stdout + r.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
