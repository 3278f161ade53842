/* js.render: what kix-verify.js writes into a page, against kix's C:
 * numbers for people equal kix_human's text for every vector that
 * tests/tools/kix-js-vectors.c prints (each unit boundary, rounding step and
 * exact tie, both signs, ns and bytes); objects are hashed as RFC 8785
 * canonical JSON to the digests the manifest names; object field cells are
 * formatted by data-kix-fmt from a JSON pointer; the header in words. */
'use strict';
const crypto = require('crypto');
const { kv, check, refuses, program, main } = require('./lib.js');

const digest = (o) => 'sha256:' + crypto.createHash('sha256').update(kv.jcs(o)).digest('hex');

main(async () => {
  const v = program('kix-js-vectors');
  check(v.human.length > 100, 'kix-js-vectors prints human vectors: ' + v.human.length);
  for (const h of v.human) {
    const got = kv.human(BigInt(h.value), h.bytes);
    check(got === h.text, 'kix_human(' + h.value + ', ' + h.bytes + ') is "' + h.text + '", JS "' + got + '"');
  }
  check(kv.human(11360, false) === '11.4 \u00b5s' && kv.human(10250, false) === '10.2 \u00b5s',
        'a Number as a BigInt; an exact tie to even as printf');

  check(kv.jcs({ b: [1, 'x', null, true], a: { d: 1.5, c: -0 }, '\u00e9': 1, Z: 2 }) ===
        '{"Z":2,"a":{"c":0,"d":1.5},"b":[1,"x",null,true],"\u00e9":1}', 'JCS: keys sorted, numbers as ECMAScript');

  const env = { kind: 'ExecutionEnvironment', spec: { hardware: { product: 'NVIDIA A100', memoryBytes: 85899345920 } } };
  const wl = { kind: 'Workload', spec: { kernel: 'rope', dtype: 'bf16', parameters: { hidden: 512, seq: 2048 },
               tensors: [{ name: 'q', shape: [1, 32, 2048, 16] }], 'a/b': { '~c': 'x' } } };
  const impl = { kind: 'Implementation', spec: { name: 'Liger', provider: 'liger' } };
  const proto = { kind: 'BenchmarkProtocol', spec: { measurement: { pass: 'forward' } } };
  const manifest = { kind: 'BenchmarkRun', spec: { environmentDigest: digest(env), workloadDigest: digest(wl),
                     implementationDigest: digest(impl), protocolDigest: digest(proto) } };
  const objects = [env, wl, impl, proto].map((o) => ({ digest: digest(o), kind: o.kind, object: o }));
  const got = await kv.provenObjects(objects, manifest);
  check(got.environmentDigest === env && got.workloadDigest === wl, 'objects by the manifest\'s digest fields');
  check(kv.runTitle(manifest, got) === 'Liger \u00b7 rope \u00b7 hidden = 512 \u00b7 seq = 2048 \u00b7 forward \u00b7 NVIDIA A100 \u00b7 bf16',
        'the header in words: ' + kv.runTitle(manifest, got));
  const altered = JSON.parse(JSON.stringify(objects));
  altered[0].object.spec.hardware.product = 'NVIDIA H100';
  await refuses(() => kv.provenObjects(altered, manifest), 'hashes to', 'an altered object');
  await refuses(() => kv.provenObjects(objects.slice(1), manifest), 'the page does not carry the run\u2019s environmentDigest object', 'a withheld object');
  const swapped = objects.slice(1).concat([{ digest: digest(env), kind: 'ExecutionEnvironment', object: wl }]);
  await refuses(() => kv.provenObjects(swapped, manifest), 'hashes to', 'another object under the environment\'s digest');

  const cell = (o, p, f) => kv.formatField(kv.pointer(o, p), f);
  check(cell(env, '/spec/hardware/product', 'text') === 'NVIDIA A100', 'text');
  check(cell(env, '/spec/hardware/memoryBytes', 'bytes') === '80.0 GiB', 'bytes');
  check(cell(wl, '/spec/parameters/seq', 'count') === '2,048', 'count');
  check(cell(wl, '/spec/tensors/0/shape', 'shape') === '[1, 32, 2048, 16]', 'shape');
  check(cell(wl, '/spec/parameters', 'text') === 'hidden 512, seq 2048', 'an object as words');
  check(cell(wl, '/spec/a~1b/~0c', 'text') === 'x', 'a pointer with ~1 and ~0');
  check(cell(wl, '/spec/nothing', 'text') === 'not recorded' && cell(wl, 'spec', 'text') === 'not recorded', 'nowhere');
  check(kv.formatField(11360, 'ns') === '11.4 \u00b5s' && kv.formatField('2024-09-03T15:39:55Z', 'date') === '2024-09-03' &&
        kv.formatField(['a', 'b'], 'list') === 'a, b', 'ns, date, list');
  const fig = kv.figuresOf({ spec: { timing: { latencyNs: { median: 11360 } }, measurements: [
    { metric: 'latency', statistic: 'p20', value: 10336 }, { metric: 'latency', statistic: 'p80', value: 11456 },
    { metric: 'peak_memory', statistic: 'p20', value: 5 }] } });
  check(fig.have && !fig.bytes && fig.median === 11360 && fig.p20 === 10336 && fig.p80 === 11456, 'figures as kix_figures_of');
  const mem = kv.figuresOf({ spec: { memory: { peakBytes: { median: 1610612736 } } } });
  check(mem.have && mem.bytes && kv.human(mem.median, true) === '1.50 GiB', 'peak memory in bytes');
  check(!kv.figuresOf({ spec: { timing: { latencyNs: { median: -1 } } } }).have, 'a negative median is none');
  const mean = kv.figuresOf({ spec: { timing: { latencyNs: { mean: 13400, min: 12800 }, primaryStatistic: 'mean' } } });
  check(mean.have && !mean.bytes && mean.median === 13400, 'a timing that names the mean: its mean, as kix_figures_of');
  check(!kv.figuresOf({ spec: { timing: { latencyNs: { mean: 13400 } } } }).have, 'a mean without primaryStatistic mean is no figure');
});
