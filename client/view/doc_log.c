/* The documents of kix audit, kix key list and kix info, and their text
 * (kix/doc.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kix/doc.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "view_internal.h"

#define set kix__json_set
#define S   kix__doc_str
#define U   kix__doc_u64
#define LL  unsigned long long

static json_t *u64(uint64_t v)
{
    return json_integer((json_int_t)v);
}

/* An entry index, or null for none. */
static json_t *index_or_null(uint64_t i)
{
    return i == KIX_NO_INDEX ? json_null() : u64(i);
}

static json_t *done(json_t *o, int bad)
{
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- kix audit -------------------------------------------------------- */

json_t *kix_doc_audit(const struct kix_doc_audit *a)
{
    json_t *o = json_object();
    double rate = a->seconds > 0 ? (double)(a->to - a->from) / a->seconds : 0.0;
    int bad = !o || set(o, "view", json_string(KIX_DOC_AUDIT)) ||
              set(o, "passed", json_boolean(a->passed));

    if (!a->reason) {
        /* the time to the millisecond, the rate to the entry */
        bad = bad || set(o, "from", u64(a->from)) || set(o, "to", u64(a->to)) ||
              set(o, "entries", u64(a->to - a->from)) ||
              set(o, "seconds", json_real(round(a->seconds * 1000) / 1000)) ||
              set(o, "entriesPerSecond", json_integer((json_int_t)llround(rate))) ||
              set(o, "strict", json_boolean(a->strict)) || set(o, "files", u64(a->files)) ||
              set(o, "findings", a->findings ? json_incref(a->findings) : json_array());
    } else {
        bad = bad || set(o, "verified", u64(a->to)) || set(o, "index", index_or_null(a->bad)) ||
              set(o, "reason", json_string(a->reason));
    }
    /* added in kix.audit/1: last, after the members scripts have always read */
    bad = bad || set(o, "log", json_string(a->log));
    return done(o, bad);
}

void kix_doc_audit_text(const json_t *doc, FILE *out)
{
    const json_t *findings = json_object_get(doc, "findings"), *f;
    double secs = json_number_value(json_object_get(doc, "seconds"));
    uint64_t to = U(doc, "to"), from = U(doc, "from");
    size_t i;

    if (kix__doc_has(doc, "reason"))
        return; /* a failed audit says why on stderr, as every failure */
    json_array_foreach(findings, i, f) fprintf(out, "finding: entry %llu (%s): %s\n",
                                               (LL)U(f, "index"), S(f, "rule"), S(f, "reason"));
    if (!json_is_true(json_object_get(doc, "passed")))
        return; /* --strict with findings: the failure is said on stderr */
    fprintf(out,
            "audit passed: all %llu entries of log %s verify (%llu checked now, %llu by "
            "earlier audits) in %.2f s, %llu entries/s%s\n",
            (LL)to, S(doc, "log"), (LL)(to - from), (LL)from, secs, (LL)U(doc, "entriesPerSecond"),
            json_array_size(findings)
                ? "; with the findings above (kix audit --strict fails on them)"
                : "");
    if (U(doc, "files"))
        fprintf(out,
                "and the %llu tiles, object packs and index files the copy serves are the "
                "log's\n",
                (LL)U(doc, "files"));
}

/* ---- kix key list ------------------------------------------------------ */

static json_t *roles_json(unsigned roles)
{
    static const char *const names[] = {"admin", "publish", "attest", "rerun", "curate"};
    json_t *a = json_array();

    for (int i = 0; a && i < 5; i++)
        if (roles & (1u << i) && json_array_append_new(a, json_string(names[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *kix_doc_keys(uint64_t size, const struct kix_doc_key *keys, size_t n)
{
    json_t *o = json_object(), *list, *k;
    int bad = !o || set(o, "view", json_string(KIX_DOC_KEYS)) || set(o, "size", u64(size)) ||
              set(o, "keys", list = json_array());

    for (size_t i = 0; !bad && i < n; i++) {
        const struct kix_doc_key *r = &keys[i];
        char hex[65], shortid[KIX_SHORT_ID_LEN + 1], hash[9];
        kix_hex_encode(r->id, 32, hex);
        kix_hex_short_id(r->id, shortid);
        bad |= !(k = json_object()) || json_array_append_new(list, k) != 0 ||
               set(k, "keyId", json_string(hex)) || set(k, "shortId", json_string(shortid));
        /* a name and note key hash only when known */
        snprintf(hash, sizeof(hash), "%08" PRIx32, r->note_key_hash);
        if (!bad && r->name)
            bad |= set(k, "name", json_string(r->name)) || set(k, "noteKeyHash", json_string(hash));
        bad = bad || set(k, "live", json_boolean(r->revoked == KIX_NO_INDEX)) ||
              set(k, "roles", roles_json(r->roles)) || set(k, "added", index_or_null(r->added)) ||
              set(k, "rolesChanged", index_or_null(r->roles_changed)) ||
              set(k, "revoked", index_or_null(r->revoked));
    }
    return done(o, bad);
}

/* an index member: its number, or "-" when null */
static void print_index(FILE *out, const json_t *v)
{
    if (json_is_integer(v))
        fprintf(out, "%llu", (LL)json_integer_value(v));
    else
        fprintf(out, "-");
}

void kix_doc_keys_text(const json_t *doc, FILE *out)
{
    const json_t *k, *role;
    size_t i, j;

    json_array_foreach(json_object_get(doc, "keys"), i, k)
    {
        const json_t *roles = json_object_get(k, "roles");
        fprintf(out, "%s  %s  ", S(k, "shortId"),
                json_is_true(json_object_get(k, "live")) ? "live   " : "revoked");
        json_array_foreach(roles, j, role)
            fprintf(out, "%s%s", j ? "," : "", json_string_value(role));
        if (!json_array_size(roles))
            fprintf(out, "-");
        fprintf(out, "  added ");
        print_index(out, json_object_get(k, "added"));
        if (kix__doc_has(k, "rolesChanged"))
            fprintf(out, "  roles changed %llu", (LL)U(k, "rolesChanged"));
        if (kix__doc_has(k, "revoked"))
            fprintf(out, "  revoked %llu", (LL)U(k, "revoked"));
        if (kix__doc_has(k, "name"))
            fprintf(out, "  name %s note-hash %s", S(k, "name"), S(k, "noteKeyHash"));
        fprintf(out, "\n  id %s\n", S(k, "keyId"));
    }
}

/* ---- kix info ---------------------------------------------------------- */

json_t *kix_doc_info(const struct kix_doc_info *i)
{
    json_t *o = json_object();
    int bad = !o || set(o, "view", json_string(KIX_DOC_INFO)) ||
              set(o, "origin", json_string(i->origin)) ||
              set(o, "logKey", json_string(i->log_key)) || set(o, "size", u64(i->size)) ||
              set(o, "version", json_string(i->version)) ||
              set(o, "mirror", json_boolean(i->mirror));

    if (!bad && i->max_message)
        bad |=
            set(o, "limits",
                json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "maxMessage", (json_int_t)i->max_message,
                          "maxInFlight", (json_int_t)i->max_in_flight, "maxBatch",
                          (json_int_t)i->max_batch, "maxEntries", (json_int_t)i->max_entries,
                          "maxObjects", (json_int_t)i->max_objects, "maxCheckpoints",
                          (json_int_t)i->max_checkpoints, "maxRuns", (json_int_t)i->max_runs));
    if (!bad && i->upstream && i->upstream[0])
        bad |= set(o, "upstream", json_string(i->upstream)) ||
               set(o, "upstreamSize", u64(i->upstream_size)) ||
               set(o, "lagEntries", u64(i->lag_entries)) ||
               set(o, "lagSeconds", json_integer((json_int_t)llround(i->lag_seconds)));
    if (!bad && i->last_error && i->last_error[0])
        bad |= set(o, "lastError", json_string(i->last_error));
    if (!bad && i->committed)
        bad |= set(o, "committed", u64(i->committed));
    if (!bad && i->fork)
        bad |= set(o, "fork",
                   json_pack("{s:I,s:s,s:s}", "size", (json_int_t)i->fork_size, "reason",
                             i->fork_reason ? i->fork_reason : "", "evidence",
                             i->fork_evidence ? i->fork_evidence : ""));
    return done(o, bad);
}

void kix_doc_info_text(const json_t *doc, FILE *out)
{
    const json_t *l = json_object_get(doc, "limits"), *fork = json_object_get(doc, "fork");
    int mirror = json_is_true(json_object_get(doc, "mirror"));

    fprintf(out, "origin   %s\nlog key  %s\nsize     %llu\nversion  %s\n", S(doc, "origin"),
            S(doc, "logKey"), (LL)U(doc, "size"), S(doc, "version"));
    if (l)
        fprintf(out,
                "limits   message %llu bytes, %llu requests in flight, batch %llu, per call %llu "
                "entries, %llu objects, %llu checkpoints, %llu runs\n",
                (LL)U(l, "maxMessage"), (LL)U(l, "maxInFlight"), (LL)U(l, "maxBatch"),
                (LL)U(l, "maxEntries"), (LL)U(l, "maxObjects"), (LL)U(l, "maxCheckpoints"),
                (LL)U(l, "maxRuns"));
    if (mirror && kix__doc_has(doc, "upstream"))
        fprintf(out, "mirror   of %s (upstream size %llu, %llu entries behind)\n",
                S(doc, "upstream"), (LL)U(doc, "upstreamSize"), (LL)U(doc, "lagEntries"));
    else if (mirror)
        fprintf(out, "mirror   a read-only replica\n");
    if (kix__doc_has(doc, "committed"))
        fprintf(out,
                "pending  entries %llu to %llu are committed but not yet held by the mirrors this "
                "origin waits for (--ack-replicas): not shown yet\n",
                (LL)U(doc, "size"), (LL)U(doc, "committed") - 1);
    if (fork)
        fprintf(out, "FORK     found at size %llu: %s; evidence in %s\n", (LL)U(fork, "size"),
                S(fork, "reason"), S(fork, "evidence"));
}
