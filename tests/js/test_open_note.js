/* js.open_note: kix-verify.js reads an open note (PROTOCOL.md 5.4) from the
 * run's committed entries: an attestation carrying signerKey is labeled
 * "community, unregistered key" (open: true), a plain one is not, and a
 * signerKey that is not the signer's (a log that took what no log may
 * take) turns the run red. Entries built here, their chain hash as the
 * run record commits it. */
'use strict';
const { kv, check, refuses, main } = require('./lib.js');

const enc = new TextEncoder();
const NONE = 18446744073709551615n;
const RUN = 'rope-open', DIGEST = 'ab'.repeat(32);

function leaf(type, predicate, signer) {
  const st = { _type: 'https://in-toto.io/Statement/v1', predicate: predicate,
               predicateType: 'https://kernelindex.dev/' + type + '/v1',
               subject: [{ digest: { sha256: DIGEST }, name: RUN }] };
  return enc.encode(kv.jcs({ payload: kv.b64encode(enc.encode(kv.jcs(st))),
                             payloadType: 'application/vnd.in-toto+json',
                             signatures: [{ keyid: signer, sig: 'AA==' }] }));
}

/* The entries and the run record that commits them (count, chain hash). */
async function entries(list) {
  let chain = new Uint8Array(32);
  const out = [];
  for (const [i, l] of list.entries()) {
    const lh = await kv.leafHash(l);
    const u = new Uint8Array(8);
    let v = BigInt(i + 3);
    for (let k = 7; k >= 0; k--, v >>= 8n) u[k] = Number(v & 255n);
    chain = await kv.sha256(kv.cat(new Uint8Array([4]), chain, u, lh));
    out.push({ index: i + 3, leaf: l, leafHash: lh });
  }
  return { list: out, chain: kv.hex(chain) };
}

function record(n, chain, publisher, attestations) {
  return { entries: BigInt(n), entriesChain: chain, publication: 3n, publisher: publisher,
           evidence: 'reported', evidenceIndex: NONE, reruns: 0n, attestations: BigInt(attestations),
           supersededByIndex: NONE, successor: '', supersedesIndex: NONE, predecessor: '',
           withdrawnIndex: NONE };
}

main(async () => {
  const pub = 'cd'.repeat(32);
  const strangerKey = new Uint8Array(32).fill(7);
  const stranger = kv.hex(await kv.sha256(strangerKey));
  const registered = 'ef'.repeat(32);
  const publication = leaf('publication', { runId: RUN, publishedAt: '2026-12-01T00:00:00Z' }, pub);
  const plain = leaf('attestation', { runId: RUN, note: 'registered note' }, registered);
  const open = leaf('attestation', { runId: RUN, note: 'open note', log: 'kix.test/log',
                                     signerKey: kv.b64encode(strangerKey) }, stranger);

  let e = await entries([publication, plain, open]);
  const x = await kv.runEntries(RUN, record(3, e.chain, pub, 2), e.list, 'sha256:' + DIGEST);
  check(x.attestations.length === 2 && x.attestations[0].open === false &&
        x.attestations[1].open === true && x.attestations[1].signer === stranger,
        'an attestation with signerKey is an open note, a plain one is not: ' +
        JSON.stringify(x.attestations));
  check(x.evidence === 'reported', 'an open note changes no evidence');

  /* signerKey naming another key than the signer's: refused */
  const forged = leaf('attestation', { runId: RUN, note: 'posing', log: 'kix.test/log',
                                       signerKey: kv.b64encode(strangerKey) }, registered);
  e = await entries([publication, forged]);
  await refuses(() => kv.runEntries(RUN, record(2, e.chain, pub, 1), e.list, 'sha256:' + DIGEST),
                'names a signerKey that is not the key that signed it',
                'an open note whose signerKey is not its signer');
  const junk = leaf('attestation', { runId: RUN, note: 'junk key', signerKey: 'not base64!' }, stranger);
  e = await entries([publication, junk]);
  await refuses(() => kv.runEntries(RUN, record(2, e.chain, pub, 1), e.list, 'sha256:' + DIGEST),
                'signerKey', 'an open note whose signerKey is no key');
});
