/* js.words: the browser verifier's evidence words (kix-verify.js's
 * evidenceText, its own copy in JS) are the C table's (kix/doc.h,
 * kix_words_table), level by level, with a rerun's day and without, as
 * tests/tools/kix-js-vectors.c prints them: the page a reader verifies
 * says what kix show, kix resolve and the run view say. */
'use strict';
const { kv, check, program, main } = require('./lib.js');

main(async () => {
  const v = program('kix-js-vectors');
  check(v.evidenceWords.length === 8, 'kix-js-vectors prints 4 levels, dated and not: ' + v.evidenceWords.length);
  for (const w of v.evidenceWords) {
    const got = kv.evidenceText({ evidence: w.evidence,
                                  evidenceEntry: w.observedAt ? { observedAt: w.observedAt } : undefined });
    check(got === w.text, 'evidence ' + w.evidence + (w.observedAt ? ' on ' + w.observedAt : '') +
          ': C says "' + w.text + '", JS "' + got + '"');
    /* a rerun's outcome: the verified page writes the entry's own word */
    check(w.outcome === w.evidence, 'the outcome ' + w.evidence + ' reads "' + w.outcome + '" in C');
  }
});
