/* js.encoding: kix-verify.js's byte helpers against node's own Buffer
 * (hex, base64 both ways, strict base64 refusals), the tlog-tiles paths
 * (c2sp.org/tlog-tiles' examples), byte order and JSON value equality. */
'use strict';
const crypto = require('crypto');
const { kv, check, refuses, main } = require('./lib.js');

main(async () => {
  for (let n = 0; n < 70; n++) {
    const b = new Uint8Array(crypto.randomBytes(n));
    const h = Buffer.from(b).toString('hex'), s = Buffer.from(b).toString('base64');
    check(kv.hex(b) === h && kv.equal(kv.unhex(h), b), 'hex of ' + n + ' bytes');
    check(kv.b64encode(b) === s && kv.equal(kv.b64(s), b), 'base64 of ' + n + ' bytes: ' + s);
  }
  for (const bad of ['YQ', 'YQ=', 'YWI', 'YWJj=', 'Y Q==', 'YQ==\n', 'a===', '====', 'YQ==YQ==', 'Y-_=', '*AAA'])
    await refuses(() => kv.b64(bad), 'bad base64', 'base64 ' + JSON.stringify(bad));
  for (const bad of ['0', 'AB', 'zz', '0g', null])
    await refuses(() => kv.unhex(bad), 'bad hex', 'hex ' + JSON.stringify(bad));

  /* c2sp.org/tlog-tiles: "tile/0/x001/x234/067" for index 1234067 */
  check(kv.tileIndex(1234067) === 'x001/x234/067', 'tile index 1234067');
  check(kv.tileIndex(0) === '000' && kv.tileIndex(999) === '999' &&
        kv.tileIndex(1000) === 'x001/000', 'tile indexes 0, 999, 1000');
  check(kv.tilePath(0, 1234067, 256) === 'tile/0/x001/x234/067', 'a full tile');
  check(kv.tilePath(1, 2, 17) === 'tile/1/002.p/17', 'a partial tile');
  check(kv.tilePath('entries', 2, 255) === 'tile/entries/002.p/255', 'a partial bundle');

  const e = new TextEncoder();
  check(kv.compareBytes(e.encode('run-b'), e.encode('run-b2')) < 0 &&
        kv.compareBytes(e.encode('run-c'), e.encode('run-b2')) > 0 &&
        kv.compareBytes(e.encode('a'), e.encode('a')) === 0 &&
        kv.compareBytes(new Uint8Array([0x7f]), new Uint8Array([0x80])) < 0, 'byte order');

  const m = { a: 1, b: [1, { c: null, d: 'x' }], e: true };
  check(kv.deepEqual(m, JSON.parse('{"e":true,"b":[1,{"d":"x","c":null}],"a":1.0}')),
        'equal JSON values, keys in another order');
  for (const other of [{ a: 1, b: [1, { c: null, d: 'x' }] },
                       { a: 1, b: [1, { c: null, d: 'x' }], e: true, f: 0 },
                       { a: '1', b: [1, { c: null, d: 'x' }], e: true },
                       { a: 1, b: [{ c: null, d: 'x' }, 1], e: true },
                       { a: 1, b: { 0: 1, 1: { c: null, d: 'x' } }, e: true },
                       { a: 1, b: [1, { c: 0, d: 'x' }], e: true }])
    check(!kv.deepEqual(m, other), 'unequal JSON ' + JSON.stringify(other));
});
