/* js.smt: kix-verify.js's sparse Merkle proof checking (store/verify/SMT.md)
 * held to kix's C tree: every proof of tests/tools/kix-js-vectors.c (real
 * and tampered: wrong record, key or kind, a flipped, zeroed or missing
 * byte, a moved other leaf) leads to the signed root exactly when C's
 * kix_smt_verify accepts it; and for the trees of kix-smt-dump (0 to 300
 * keys), every membership and absence proof leads to the root and stops
 * doing so when a byte of it changes. */
'use strict';
const { kv, check, program, main } = require('./lib.js');

/* does the proof lead to root (false when kix-verify.js refuses it) */
async function leads(key, record, proof, root) {
  try {
    return kv.equal(await kv.smtRoot(key, record, proof), root);
  } catch (e) {
    if (!(e instanceof kv.Fail)) throw e;
    return false;
  }
}

main(async () => {
  const v = program('kix-js-vectors').smt, root = kv.unhex(v.root);
  let yes = 0, no = 0;
  for (const p of v.proofs) {
    const got = await leads(p.key, p.record && kv.unhex(p.record), kv.unhex(p.proof), root);
    check(got === p.valid, p.name + ' ' + p.key + ': JS ' + got + ', C ' + p.valid);
    if (p.valid) yes++; else no++;
  }
  check(yes >= 9 && no >= 30, 'C vectors: ' + yes + ' valid, ' + no + ' tampered');

  for (const n of [0, 1, 2, 3, 17, 300]) {
    const d = program('kix-smt-dump', [String(n), '20']), r = kv.unhex(d.root);
    let flips = 0;
    for (const [i, p] of d.proofs.entries()) {
      const key = kv.unhex(p.key), rec = p.value === null ? null : kv.unhex(p.value);
      const proof = kv.unhex(p.proof);
      check(await leads(key, rec, proof, r), n + ' keys: proof ' + i);
      if (i % 7) continue;
      for (let at = 0; at < proof.length; at += Math.max(1, proof.length >> 3)) {
        const bad = proof.slice();
        bad[at] ^= 0x04;
        check(!(await leads(key, rec, bad, r)), n + ' keys: proof ' + i + ' with byte ' + at + ' changed');
        flips++;
      }
      check(!(await leads(key, rec ? null : new Uint8Array([1]), proof, r)), n + ' keys: proof ' + i +
            ' of the other kind');
    }
    check(n === 0 || flips > 0, n + ' keys: proofs were altered');
  }
});
