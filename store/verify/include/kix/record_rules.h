/* kix/record_rules.h — the publishing rules a record must pass on top of
 * its schema (kix/schema.h): the figures make sense, the measurement is not
 * from the future, and it is not the `kix new run` template unedited.
 *
 * One implementation for the three places that apply them: the log on
 * submit (kix_log_prepare; a replica does not re-apply them to what its
 * upstream logged), `kix validate` and `kix publish --dry-run`. The rules
 * (PROTOCOL.md §5.3, "Record rules"):
 *
 *  - a BenchmarkRun's primary median (spec.timing.latencyNs.median or
 *    spec.memory.peakBytes.median) is above 0;
 *  - the quantiles it gives are in order, min <= p5 <= ... <= median <=
 *    ... <= p99 <= max, in latencyNs/peakBytes and in spec.measurements (one
 *    order per metric, the measurements' median and p50 the same point);
 *  - spec.observedAt is no later than the clock plus KIX_RECORD_CLOCK_SKEW
 *    seconds;
 *  - no record carries the template's marker (the label
 *    KIX_TEMPLATE_LABEL) or one of its placeholder texts.
 *
 * Each violation is reported with the JSON pointer of the offending value
 * and a reason, all of them (kix validate shows every one; the log refuses
 * with the first).
 *
 * Pure: no I/O; the caller says what time it is.
 * Errors: KIX_EPOLICY a rule is broken (message "pointer: reason").
 */
#ifndef KIX_RECORD_RULES_H
#define KIX_RECORD_RULES_H

#include "kix/api.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "kix/error.h"
#include "kix/schema.h"

/* How far ahead of the log's clock an observedAt may be: clocks differ. */
#define KIX_RECORD_CLOCK_SKEW 600

/* The label `kix new run` puts on run.json; the publisher removes it once
 * the figures are real. */
#define KIX_TEMPLATE_LABEL "kix-template"

/* The violations of doc (a record already valid against its schema) at
 * time now (seconds since 1970, UTC): up to cap of them in issues, their
 * total count in *n. */
KIX_API void kix_record_rules(const json_t *doc, int64_t now, struct kix_schema_violation *issues,
                              size_t cap, size_t *n);

/* The same, as an error: KIX_OK when doc breaks no rule, else KIX_EPOLICY
 * with the first violation as "pointer: reason". */
KIX_API int kix_record_rules_check(const json_t *doc, int64_t now,
                                   struct kix_err *err) KIX_MUST_CHECK;

/* The placeholder texts of the `kix new run` template, NULL-terminated:
 * the template writes them and the rules refuse them. */
KIX_API extern const char *const kix_template_placeholders[];

#endif
