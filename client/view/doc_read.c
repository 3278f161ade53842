/* The documents of kix resolve and kix cite, and their text (kix/doc.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kix/cite.h"
#include "kix/doc.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "view_internal.h"

#define set kix__json_set

static json_t *u64(uint64_t v)
{
    return json_integer((json_int_t)v);
}

/* A stored object: canonical JSON embeds as JSON, anything else as text. */
static json_t *object_json(const struct kix_bytes *b)
{
    json_t *o =
        b->len && b->ptr[0] == '{' ? json_loadb((const char *)b->ptr, b->len, 0, NULL) : NULL;
    return o ? o : json_stringn(b->ptr ? (const char *)b->ptr : "", b->len);
}

static json_t *b64(const uint8_t h[32])
{
    struct kix_buf out = KIX_BUF_INIT;
    json_t *s = kix_base64_encode(h, 32, &out) == KIX_OK
                    ? json_stringn((const char *)out.ptr, out.len)
                    : NULL;

    kix_buf_release(&out);
    return s;
}

static json_t *entry_json(const struct kix_resolution_entry *e)
{
    struct kix_entry_summary s;
    char signer[65];
    json_t *o, *proof;
    int bad;

    if (kix_entry_describe(e->leaf.ptr, e->leaf.len, &s, NULL) != KIX_OK)
        memset(&s, 0, sizeof(s));
    kix_hex_encode(s.signer, 32, signer);
    o = json_object();
    bad = !o || set(o, "index", u64(e->index)) ||
          set(o, "type", json_string(kix_words_entry_type(e->type))) ||
          set(o, "signer", json_string(signer)) || set(o, "time", json_string(s.time));
    if (!bad && e->type == KIX_ENTRY_RERUN)
        bad |= set(o, "outcome", json_string(kix_words_outcome(s.outcome)));
    if (!bad && e->type == KIX_ENTRY_ATTESTATION)
        bad |= set(o, "note", json_string(s.note));
    if (!bad && e->type == KIX_ENTRY_ATTESTATION && s.open_note) /* PROTOCOL.md §5.4 */
        bad |= set(o, "unregistered", json_true());
    if (!bad && e->type == KIX_ENTRY_SUPERSESSION)
        bad |= set(o, "reason", json_string(s.note)) || set(o, "runId", json_string(s.run_id)) ||
               set(o, "newRunId", json_string(s.new_run_id));
    if (!bad && e->type == KIX_ENTRY_WITHDRAWAL)
        bad |= set(o, "reason", json_string(kix_withdraw_reason_name(s.withdraw_reason)));
    if (!bad && (e->type == KIX_ENTRY_WITHDRAWAL || e->type == KIX_ENTRY_REINSTATEMENT))
        bad |= set(o, "note", json_string(s.note));
    bad |= !o || set(o, "proof", proof = json_array());
    for (size_t k = 0; !bad && k < e->nproof; k++)
        bad |= json_array_append_new(proof, b64(e->proof[k].b)) != 0;
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *checkpoint_json(const struct kix_checkpoint *cp, const struct kix_bytes *note)
{
    json_t *o = json_object();

    if (!o || set(o, "origin", json_string(cp->origin)) || set(o, "size", u64(cp->size)) ||
        set(o, "root", b64(cp->root)) ||
        set(o, "note", json_stringn(note->ptr ? (const char *)note->ptr : "", note->len))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The reason the supersession entry at `index` gives, or "". */
static const char *supersession_reason(const struct kix_resolution *res, uint64_t index,
                                       struct kix_entry_summary *s)
{
    for (size_t i = 0; i < res->nentries; i++)
        if (res->entries[i].index == index && res->entries[i].type == KIX_ENTRY_SUPERSESSION &&
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, s, NULL) ==
                KIX_OK)
            return s->note;
    return "";
}

json_t *kix_doc_resolve(const struct kix_resolution *res, const char *origin,
                        const struct kix_checkpoint *cp)
{
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_buf link = KIX_BUF_INIT;
    struct kix_entry_summary s;
    json_t *o = json_object(), *list;
    int bad = !o;

    kix_digest_format(&res->run.manifest, digest);
    if (kix_permalink(origin, res->run.run_id, &link) != KIX_OK)
        kix_buf_reset(&link);
    bad = bad || set(o, "view", json_string(KIX_DOC_RESOLVE)) ||
          set(o, "runId", json_string(res->run.run_id)) || set(o, "digest", json_string(digest)) ||
          set(o, "permalink", json_stringn(link.ptr ? (const char *)link.ptr : "", link.len)) ||
          set(o, "evidence", json_string(kix_evidence_name(res->run.evidence))) ||
          set(o, "evidenceText", json_string(kix_words_evidence(res->run.evidence)));
    kix_buf_release(&link);
    if (!bad && res->run.evidence_index != KIX_NO_INDEX)
        bad |= set(o, "evidenceEntry", u64(res->run.evidence_index));
    bad = bad || set(o, "attestations", u64(res->run.attestations)) ||
          set(o, "reruns", u64(res->run.reruns));
    if (!bad && res->successor[0])
        bad |= set(o, "supersessionReason",
                   json_string(supersession_reason(res, res->run.superseded_by_index, &s))) ||
               set(o, "supersededBy", json_string(res->successor)) ||
               set(o, "supersededAt", u64(res->run.superseded_by_index));
    if (!bad && res->predecessor[0])
        bad |= set(o, "supersedes", json_string(res->predecessor));
    if (!bad && res->run.withdrawn_index != KIX_NO_INDEX)
        bad |= set(o, "withdrawnAt", u64(res->run.withdrawn_index));
    bad = bad || set(o, "manifest", object_json(&res->manifest)) ||
          set(o, "objects", list = json_array());
    for (size_t i = 0; !bad && i < res->nobjects; i++) {
        json_t *x = json_object();
        kix_digest_format(&res->objects[i].digest, digest);
        bad |= !x || json_array_append_new(list, x) != 0 || set(x, "digest", json_string(digest)) ||
               set(x, "object", object_json(&res->objects[i].bytes));
    }
    bad = bad || set(o, "entries", list = json_array());
    for (size_t i = 0; !bad && i < res->nentries; i++)
        bad |= json_array_append_new(list, entry_json(&res->entries[i])) != 0;
    bad = bad || set(o, "checkpoint", checkpoint_json(cp, &res->checkpoint));
    /* what the log's signed index proved (kix_resolution_verify) */
    bad = bad ||
          set(o, "proven",
              json_pack("{s:I,s:b,s:I,s:s%}", "indexSize", (json_int_t)res->size, "entriesComplete",
                        res->complete, "entries", (json_int_t)res->chained, "indexNote",
                        res->index_note.ptr ? (const char *)res->index_note.ptr : "",
                        res->index_note.len));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- reading a document back, for its text ------------------------------ */

const char *kix__doc_str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

uint64_t kix__doc_u64(const json_t *o, const char *k)
{
    json_int_t v = json_integer_value(json_object_get(o, k));
    return v < 0 ? 0 : (uint64_t)v;
}

int kix__doc_has(const json_t *o, const char *k)
{
    return json_object_get(o, k) != NULL && !json_is_null(json_object_get(o, k));
}

#define S  kix__doc_str
#define U  kix__doc_u64
#define LL unsigned long long

void kix_doc_resolve_text(const json_t *doc, FILE *out)
{
    const json_t *entries = json_object_get(doc, "entries"), *e;
    const json_t *cp = json_object_get(doc, "checkpoint");
    const char *reason = S(doc, "supersessionReason");
    size_t i;

    fprintf(out, "run        %s\npermalink  %s\ndigest     %s\n", S(doc, "runId"),
            S(doc, "permalink"), S(doc, "digest"));
    fprintf(out, "evidence   %s", S(doc, "evidenceText"));
    if (kix__doc_has(doc, "evidenceEntry"))
        fprintf(out, " (entry %llu)", (LL)U(doc, "evidenceEntry"));
    fprintf(out, "\n");
    if (kix__doc_has(doc, "supersededBy"))
        fprintf(out, "SUPERSEDED by run %s (entry %llu)%s%s\n", S(doc, "supersededBy"),
                (LL)U(doc, "supersededAt"), reason[0] ? ": " : "", reason);
    if (kix__doc_has(doc, "supersedes"))
        fprintf(out, "supersedes run %s\n", S(doc, "supersedes"));
    if (kix__doc_has(doc, "withdrawnAt"))
        fprintf(out, "WITHDRAWN from ranking (entry %llu)\n", (LL)U(doc, "withdrawnAt"));
    fprintf(out, "objects    %zu, each one the manifest references, checked against its digest\n",
            json_array_size(json_object_get(doc, "objects")));
    fprintf(out,
            "entries    %zu, each proven in the checkpoint below; all of them, as the log's "
            "signed index commits at size %llu\n",
            json_array_size(entries), (LL)U(json_object_get(doc, "proven"), "indexSize"));
    json_array_foreach(entries, i, e)
    {
        const char *type = S(e, "type"), *note = S(e, "note");
        fprintf(out, "  #%-8llu %-13s signer %.*s  %s", (LL)U(e, "index"), type, KIX_SHORT_ID_LEN,
                S(e, "signer"), S(e, "time"));
        if (strcmp(type, "rerun") == 0)
            fprintf(out, "  %s", S(e, "outcome"));
        if (strcmp(type, "attestation") == 0)
            fprintf(out, "%s  \"%s\"",
                    json_is_true(json_object_get(e, "unregistered"))
                        ? "  (community, unregistered key)"
                        : "",
                    note);
        if (strcmp(type, "supersession") == 0) {
            const char *why = S(e, "reason");
            fprintf(out, "  %s -> %s%s%s%s", S(e, "runId"), S(e, "newRunId"), why[0] ? "  \"" : "",
                    why, why[0] ? "\"" : "");
        }
        if (strcmp(type, "withdrawal") == 0)
            fprintf(out, "  %s", S(e, "reason"));
        if ((strcmp(type, "withdrawal") == 0 || strcmp(type, "reinstatement") == 0) && note[0])
            fprintf(out, "  \"%s\"", note);
        fprintf(out, "\n");
    }
    fprintf(out, "checkpoint %s size %llu root %s (signature verified)\n", S(cp, "origin"),
            (LL)U(cp, "size"), S(cp, "root"));
}

json_t *kix_doc_cite(const struct kix_cite *cite, const struct kix_resolution *res,
                     const struct kix_checkpoint *cp, const char *date, const char *text)
{
    json_t *o = json_object();
    int bad = !o || set(o, "view", json_string(KIX_DOC_CITE)) ||
              set(o, "permalink", json_string((const char *)cite->link.ptr)) ||
              set(o, "runId", json_string(res->run.run_id)) ||
              set(o, "digest", json_string(cite->digest)) ||
              set(o, "accessed", json_string(date)) ||
              set(o, "logIndex", u64(res->run.publication_index)) ||
              set(o, "checkpoint", checkpoint_json(cp, &res->checkpoint));

    if (!bad && res->successor[0])
        bad |= set(o, "supersededBy", json_string((const char *)cite->successor.ptr));
    if (bad || set(o, "text", json_string(text))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void kix_doc_cite_text(const json_t *doc, FILE *out)
{
    fprintf(out, "%s\n", S(doc, "text"));
}
