/* kix/schema.h — the record schemas (proto/schema/NAME.schema.json) and the
 * validator that enforces them.
 *
 * The JSON Schema (draft 2020-12) files in proto/schema/ are the contract
 * for publishers: one per record kind (BenchmarkRun, BenchmarkProtocol,
 * Workload, ExecutionEnvironment, Implementation) and one per predicate
 * (publication, attestation, rerun, supersession, withdrawal,
 * reinstatement, key). They are compiled
 * into this library at build time; the log checks every submitted object
 * and predicate against them, and `kix validate` runs the same checks
 * offline.
 *
 * The validator interprets exactly the keywords those files use: type,
 * properties, required, additionalProperties, enum, const, minimum,
 * maximum, minLength, maxLength (in code points), pattern (POSIX extended
 * regular expressions, unanchored as in JSON Schema), format "date-time"
 * (RFC 3339, checked strictly: real calendar dates), items, minItems,
 * maxItems, anyOf, $ref to "#/$defs/NAME", and the annotations $schema,
 * $id, $defs, $comment, title, description. Its own annotations, which
 * other JSON Schema validators ignore: "x-kix-kind" on a digest field (the
 * kind of the object it must name), "x-kix-unit" (the unit of a number)
 * and "x-kix-subject-kind" on a predicate (the kind of the statement's
 * subject). kix_schema_compile refuses a schema using any other keyword,
 * so the files and the validator cannot drift apart silently.
 *
 * Validation stops at the first violation (kix_schema_validate_all goes
 * on to every one) and reports it as the JSON
 * pointer (RFC 6901) of the offending value and a message for people:
 * "/spec/timing/latencyNs/median: must be a non-negative integer". A
 * missing member is reported at the pointer it would have, an extra one at
 * its own.
 *
 * Pure: no database, no I/O. Compiled schemas are immutable and may be
 * used from several threads at once; the built-in ones live for the
 * process.
 *
 * Memory: kix_schema_compile's schema is the caller's (kix_schema_free);
 * a result's refs array is malloc'ed (kix_schema_result_release, safe on a
 * zeroed or failed result).
 * Errors: KIX_EINVAL invalid (the message is "pointer: what is wrong"), or
 * a schema that does not compile; KIX_ENOTFOUND no schema of that name;
 * KIX_ECORRUPT the built-in schemas did not compile (a build defect);
 * KIX_ENOMEM.
 */
#ifndef KIX_SCHEMA_H
#define KIX_SCHEMA_H

#include "kix/api.h"

#include <jansson.h>
#include <stddef.h>

#include "kix/digest.h"
#include "kix/error.h"

#define KIX_SCHEMA_POINTER_MAX 512
#define KIX_SCHEMA_KIND_MAX    32

struct kix_schema; /* opaque: one compiled schema */

/* A digest field annotated with "x-kix-kind": the object it names must be
 * of that kind (checked by whoever can read the object: the log on
 * submit, kix validate among the files it is given). */
struct kix_schema_ref {
    char pointer[KIX_SCHEMA_POINTER_MAX];
    struct kix_digest digest;
    char kind[KIX_SCHEMA_KIND_MAX];
};

struct kix_schema_result {
    int valid;
    char pointer[KIX_SCHEMA_POINTER_MAX]; /* the offending value ("" the root), when !valid */
    char message[256];                    /* "must be a non-negative integer", when !valid */
    struct kix_schema_ref *refs;          /* when valid: the annotated digests, in order */
    size_t nrefs;
};

KIX_API void kix_schema_result_release(struct kix_schema_result *r);

/* Compiles a schema's text. KIX_EINVAL (the message names the keyword and
 * where) for a keyword the validator does not implement, a malformed
 * value, a pattern regcomp refuses, a $ref to a missing $defs entry. */
KIX_API int kix_schema_compile(const char *text, size_t len, struct kix_schema **out,
                               struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_schema_free(struct kix_schema *s);

/* The schema's name: the record kind its "kind" member must be
 * ("BenchmarkRun"), else its file's base name ("publication"). */
KIX_API const char *kix_schema_name(const struct kix_schema *s);
/* A predicate schema's "x-kix-subject-kind", or NULL. */
KIX_API const char *kix_schema_subject_kind(const struct kix_schema *s);

/* The built-in schemas: by record kind or predicate name. KIX_ENOTFOUND
 * when there is none of that name (*out NULL). */
KIX_API int kix_schema_builtin(const char *name, const struct kix_schema **out,
                               struct kix_err *err) KIX_MUST_CHECK;
/* The i-th built-in schema (0 ..), NULL past the last: for listings. */
KIX_API const struct kix_schema *kix_schema_builtin_at(size_t i);
/* The i-th built-in schema file's base name and text, NULL past the last. */
KIX_API const char *kix_schema_builtin_file(size_t i, const char **text, size_t *len);

/* Validates doc. KIX_OK with res->valid set either way; KIX_ENOMEM. */
KIX_API int kix_schema_validate(const struct kix_schema *s, const json_t *doc,
                                struct kix_schema_result *res) KIX_MUST_CHECK;

/* One violation: the JSON pointer of the offending value and what is wrong. */
struct kix_schema_violation {
    char pointer[KIX_SCHEMA_POINTER_MAX];
    char message[256];
};

/* kix_schema_validate reporting every violation, not only the first: up to
 * cap of them into out (in the order a validation meets them: members by
 * name, items by index), their count in *n; res as kix_schema_validate (its
 * pointer and message the first). What kix validate shows. */
KIX_API int kix_schema_validate_all(const struct kix_schema *s, const json_t *doc,
                                    struct kix_schema_result *res, struct kix_schema_violation *out,
                                    size_t cap, size_t *n) KIX_MUST_CHECK;

/* A record: its "kind" chooses the built-in schema (a missing or unknown
 * kind is itself the violation, at "/kind"). KIX_OK valid; KIX_EINVAL
 * invalid, with err's message "pointer: message" and res filled; refs as
 * kix_schema_validate. res may be NULL. */
KIX_API int kix_record_validate(const json_t *doc, struct kix_schema_result *res,
                                struct kix_err *err) KIX_MUST_CHECK;

/* base + "/" + key as a JSON pointer (RFC 6901: "~" as ~0, "/" as ~1), cut
 * to fit cap. */
KIX_API void kix_schema_pointer_join(char *out, size_t cap, const char *base, const char *key);

/* Is this one of the record kinds that have a schema? */
KIX_API int kix_record_kind_known(const char *kind);

/* RFC 3339 date-time, strictly (a real date, hours < 24, an offset or Z). */
KIX_API int kix_rfc3339_valid(const char *s, size_t len);

/* The earliest timestamp a record or statement may carry: the schemas'
 * date-time format refuses anything before it, with the pointer. */
#define KIX_TIMESTAMP_MIN "2000-01-01T00:00:00Z"

#endif
