/* The run view and its JSON document (kix/view.h, VIEW-CONTRACT in
 * proto/PROTOCOL.md §"Run pages"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"
#include "kix/doc.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/note.h"
#include "kix/view.h"
#include "view_internal.h"

void kix__view_origin(const uint8_t *cp, size_t len, char *out, size_t cap)
{
    const uint8_t *nl = cp ? memchr(cp, '\n', len) : NULL;
    size_t n = nl ? (size_t)(nl - cp) : 0;

    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(out, cp, n);
    out[n] = '\0';
}

void kix__utf8_trim(char *s)
{
    size_t n = strlen(s), lead = n;

    /* back to the last sequence's lead byte; drop it when it is cut short */
    while (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80 && n - lead < 3)
        lead--;
    if (lead > 0 && ((unsigned char)s[lead - 1] & 0x80)) {
        unsigned char c = (unsigned char)s[lead - 1];
        size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (n - (lead - 1) < want)
            s[lead - 1] = '\0';
    }
}

static const char *str_at(json_t *o, const char *a, const char *b)
{
    const char *s = json_string_value(json_object_get(json_object_get(o, a), b));
    return s ? s : "";
}

static int read_rerun(struct kix_rerun_view *x, const struct kix_resolution_entry *e,
                      const struct kix_entry_summary *s, kix_view_get_object_fn get, void *ctx,
                      struct kix_err *err)
{
    struct kix_buf bytes = KIX_BUF_INIT;
    json_t *doc;
    int rc;

    x->index = e->index;
    x->outcome = s->outcome;
    memcpy(x->signer, s->signer, sizeof(x->signer));
    kix_digest_format(&s->rerun_digest, x->manifest_digest);
    snprintf(x->observed, sizeof(x->observed), "%s", s->time);
    rc = get(ctx, &s->rerun_digest, &bytes, err);
    if (rc) {
        kix_err_wrap(err, "reading the manifest of the rerun at entry %llu",
                     (unsigned long long)e->index);
        goto out;
    }
    doc = kix_json_tree_memo(bytes.ptr, bytes.len);
    if (*str_at(doc, "spec", "observedAt"))
        snprintf(x->observed, sizeof(x->observed), "%s", str_at(doc, "spec", "observedAt"));
    snprintf(x->status, sizeof(x->status), "%s", str_at(doc, "spec", "status"));
    kix_figures_of(doc, &x->figures);
    json_decref(doc);
    x->manifest = bytes; /* taken */
    kix_buf_init(&bytes);
out:
    kix_buf_release(&bytes);
    return rc;
}

/* "a · b" appended to out when piece is not empty. */
static void join(char *out, size_t cap, const char *piece)
{
    size_t n = strlen(out);

    if (*piece && n < cap)
        snprintf(out + n, cap - n, "%s%s", n ? " \xc2\xb7 " : "", piece);
}

/* The header in words, from the objects the manifest names. */
static void header_words(struct kix_run_view *v)
{
    json_t *impl = kix__view_object(v, "implementationDigest");
    json_t *work = kix__view_object(v, "workloadDigest");
    json_t *proto = kix__view_object(v, "protocolDigest");
    json_t *env = kix__view_object(v, "environmentDigest");
    const char *title = str_at(work, "metadata", "title"), *k,
               *impl_name = str_at(impl, "spec", "name");
    json_t *x;

    snprintf(v->implementation, sizeof(v->implementation), "%s",
             *impl_name ? impl_name : str_at(impl, "spec", "provider"));
    /* the workload's title starts with the kernel's name in words */
    if (*title && strstr(title, " \xc2\xb7 "))
        snprintf(v->kernel, sizeof(v->kernel), "%.*s", (int)(strstr(title, " \xc2\xb7 ") - title),
                 title);
    else
        snprintf(v->kernel, sizeof(v->kernel), "%s",
                 *title ? title : str_at(work, "spec", "kernel"));
    json_object_foreach(json_object_get(json_object_get(work, "spec"), "parameters"), k, x)
    {
        char value[128] = "", piece[256];
        if (json_is_string(x))
            snprintf(value, sizeof(value), "%s", json_string_value(x));
        else if (json_is_integer(x))
            snprintf(value, sizeof(value), "%" JSON_INTEGER_FORMAT, json_integer_value(x));
        else
            kix_view_format(x, "text", value, sizeof(value));
        snprintf(piece, sizeof(piece), "%s = %s", k, value);
        join(v->workload, sizeof(v->workload), piece);
    }
    snprintf(v->pass, sizeof(v->pass), "%s",
             str_at(json_object_get(proto, "spec"), "measurement", "pass"));
    snprintf(v->gpu, sizeof(v->gpu), "%s",
             str_at(json_object_get(env, "spec"), "hardware", "product"));
    snprintf(v->dtype, sizeof(v->dtype), "%s", str_at(work, "spec", "dtype"));
    join(v->title, sizeof(v->title), v->implementation);
    join(v->title, sizeof(v->title), v->kernel);
    join(v->title, sizeof(v->title), v->workload);
    join(v->title, sizeof(v->title), v->pass);
    join(v->title, sizeof(v->title), v->gpu);
    join(v->title, sizeof(v->title), v->dtype);
    if (!v->title[0])
        snprintf(v->title, sizeof(v->title), "%s", str_at(v->manifest, "metadata", "title"));
    kix__utf8_trim(v->implementation);
    kix__utf8_trim(v->kernel);
    kix__utf8_trim(v->workload);
    kix__utf8_trim(v->gpu);
    kix__utf8_trim(v->title);
}

/* The evidence level in words, with the date of the rerun it rests on. */
static void evidence_words(struct kix_run_view *v)
{
    const struct kix_resolution *res = v->res;
    const char *day = "";

    for (size_t i = 0; i < v->nreruns; i++)
        if (v->reruns[i].index == res->run.evidence_index)
            day = v->reruns[i].observed;
    kix_words_evidence_on(res->run.evidence, day, v->evidence_text, sizeof(v->evidence_text));
    snprintf(v->last_observed, sizeof(v->last_observed), "%s",
             v->reobserved[0] ? v->reobserved : v->observed);
}

static void supersession(struct kix_supersession_view *x, const char *run_id, uint64_t index,
                         const struct kix_resolution_entry *e, const struct kix_entry_summary *s)
{
    if (!*run_id || e->index != index)
        return;
    snprintf(x->run_id, sizeof(x->run_id), "%s", run_id);
    x->index = index;
    snprintf(x->date, sizeof(x->date), "%s", s->time);
    memcpy(x->signer, s->signer, sizeof(x->signer));
    snprintf(x->reason, sizeof(x->reason), "%s", s->note);
}

static void withdrawal(struct kix_withdrawal_view *w, const struct kix_resolution_entry *e,
                       const struct kix_entry_summary *s, const uint8_t publisher[32])
{
    struct kix_digest *needs = NULL;
    size_t n = 0;

    w->index = e->index;
    w->reason = kix_withdraw_reason_name(s->withdraw_reason);
    snprintf(w->date, sizeof(w->date), "%s", s->time);
    memcpy(w->signer, s->signer, sizeof(w->signer));
    w->by_publisher = memcmp(s->signer, publisher, 32) == 0;
    snprintf(w->note, sizeof(w->note), "%s", s->note);
    kix__utf8_trim(w->note);
    /* the evidence is the one object a withdrawal needs */
    if (kix_entry_needs(e->leaf.ptr, e->leaf.len, &needs, &n, NULL) == KIX_OK && n == 1)
        kix_digest_format(&needs[0], w->evidence);
    free(needs);
}

void kix_run_view_staleness(const struct kix_run_view *v, long stale_days, int64_t now, char *out,
                            size_t cap)
{
    int y, m, d, hh = 0, mm = 0, ss = 0;
    long days;
    int64_t t;

    out[0] = '\0';
    if (sscanf(v->last_observed, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &m, &d, &hh, &mm, &ss) < 3)
        return;
    /* days from the civil date (proleptic Gregorian), no time zone involved */
    y -= m <= 2;
    {
        int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
        int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        t = ((era * 146097 + doe - 719468) * 86400) + hh * 3600 + mm * 60 + ss;
    }
    days = (long)((now - t) / 86400);
    if (days > stale_days)
        snprintf(out, cap, "Not re-observed in %ld days.", days);
}

int kix_run_view_build(struct kix_run_view *v, const struct kix_resolution *res,
                       const struct kix_verifier *log_key, kix_view_get_object_fn get, void *ctx,
                       struct kix_err *err)
{
    uint8_t publisher[32]; /* who published the run: a rerun it signs is its own */
    int rc = KIX_OK;

    memcpy(publisher, res->run.publisher, sizeof(publisher));
    memset(v, 0, sizeof(*v));
    v->withdrawn.index = KIX_NO_INDEX;
    v->withdrawn.reason = "";
    kix_buf_init(&v->permalink);
    kix_buf_init(&v->log_key);
    v->res = res;
    v->observed = "";
    kix__view_origin(res->checkpoint.ptr, res->checkpoint.len, v->origin, sizeof(v->origin));
    kix_digest_format(&res->run.manifest, v->manifest_digest);
    v->manifest = kix_json_tree_memo(res->manifest.ptr, res->manifest.len);
    if (!v->manifest)
        return kix_err_set(err, KIX_ECORRUPT, "the manifest of run %s does not parse",
                           res->run.run_id);
    v->observed = str_at(v->manifest, "spec", "observedAt");
    kix_figures_of(v->manifest, &v->primary);
    v->ranked = res->run.grouped && res->rank.rank;
    kix_digest_format(&res->run.comparison_key, v->group);
    if ((rc = kix_permalink(v->origin, res->run.run_id, &v->permalink)) ||
        (log_key && (rc = kix_verifier_format(log_key, &v->log_key))))
        return kix_err_set(err, rc, "out of memory");
    for (size_t i = 0; i < res->nobjects; i++) {
        struct kix_view_object *o = &v->objects[v->nobjects++];
        kix_digest_format(&res->objects[i].digest, o->digest);
        o->json = kix_json_tree_memo(res->objects[i].bytes.ptr, res->objects[i].bytes.len);
        o->kind = json_string_value(json_object_get(o->json, "kind"));
        o->kind = o->kind ? o->kind : "";
    }
    for (size_t i = 0; i < res->nentries; i++) {
        struct kix_entry_summary s;
        if (kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        if (s.type == KIX_ENTRY_PUBLICATION) {
            memcpy(publisher, s.signer, sizeof(publisher)); /* the verified entry's word */
            snprintf(v->published, sizeof(v->published), "%s", s.time);
            snprintf(v->source, sizeof(v->source), "%s", s.source);
            snprintf(v->license, sizeof(v->license), "%s", s.license);
        }
        if (s.type == KIX_ENTRY_WITHDRAWAL && res->entries[i].index == res->run.withdrawn_index)
            withdrawal(&v->withdrawn, &res->entries[i], &s, publisher);
        if (s.type == KIX_ENTRY_SUPERSESSION) {
            supersession(&v->superseded_by, res->successor, res->run.superseded_by_index,
                         &res->entries[i], &s);
            supersession(&v->supersedes, res->predecessor, res->run.supersedes_index,
                         &res->entries[i], &s);
        }
        if (s.type == KIX_ENTRY_ATTESTATION && v->nattestations < KIX_VIEW_RERUNS_MAX) {
            struct kix_attestation_view *a;
            if (!v->attestations &&
                !(v->attestations = calloc(KIX_VIEW_RERUNS_MAX, sizeof(*v->attestations))))
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
            a = &v->attestations[v->nattestations++];
            a->index = res->entries[i].index;
            snprintf(a->date, sizeof(a->date), "%s", s.time);
            memcpy(a->signer, s.signer, sizeof(a->signer));
            snprintf(a->text, sizeof(a->text), "%s", s.note);
            a->open_note = s.open_note;
        }
        if (s.type != KIX_ENTRY_RERUN || v->nreruns == KIX_VIEW_RERUNS_MAX)
            continue;
        if (!v->reruns && !(v->reruns = calloc(KIX_VIEW_RERUNS_MAX, sizeof(*v->reruns))))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        rc = read_rerun(&v->reruns[v->nreruns], &res->entries[i], &s, get, ctx, err);
        if (rc)
            return rc;
        v->reruns[v->nreruns].self = memcmp(s.signer, publisher, sizeof(publisher)) == 0;
        /* the latest re-observation: for staleness, never the run's own date */
        if (strcmp(v->reruns[v->nreruns].observed, v->reobserved) > 0)
            snprintf(v->reobserved, sizeof(v->reobserved), "%s", v->reruns[v->nreruns].observed);
        v->nreruns++;
    }
    /* a supersession whose entry is not in this answer's page: the run only */
    if (res->successor[0] && !v->superseded_by.run_id[0])
        snprintf(v->superseded_by.run_id, sizeof(v->superseded_by.run_id), "%s", res->successor);
    if (res->predecessor[0] && !v->supersedes.run_id[0])
        snprintf(v->supersedes.run_id, sizeof(v->supersedes.run_id), "%s", res->predecessor);
    v->superseded_by.index = res->run.superseded_by_index;
    v->supersedes.index = res->run.supersedes_index;
    header_words(v);
    evidence_words(v);
    for (size_t i = 0; i < v->nattestations; i++)
        kix__utf8_trim(v->attestations[i].text);
    kix__utf8_trim(v->superseded_by.reason);
    kix__utf8_trim(v->supersedes.reason);
    return kix_run_view_sections(v, err);
}

void kix_run_view_release(struct kix_run_view *v)
{
    kix_buf_release(&v->permalink);
    kix_buf_release(&v->log_key);
    json_decref(v->manifest);
    for (size_t i = 0; i < v->nobjects; i++)
        json_decref(v->objects[i].json);
    for (size_t i = 0; i < v->nreruns; i++)
        kix_buf_release(&v->reruns[i].manifest);
    free(v->reruns);
    free(v->attestations);
    kix__view_sections_release(v);
    memset(v, 0, sizeof(*v));
}

static int get_from_source(void *ctx, const struct kix_digest *d, struct kix_buf *out,
                           struct kix_err *err)
{
    struct kix_source *src = ctx;
    struct kix_buf b = KIX_BUF_INIT;
    int rc = kix__src_object(src, d, &b, NULL);

    if (rc == KIX_OK && (rc = kix_buf_add(out, b.ptr, b.len)) != KIX_OK)
        rc = kix_err_set(err, rc, "out of memory");
    else if (rc)
        rc = kix_err_set(err, rc, "the object is not in the store");
    kix_buf_release(&b);
    return rc;
}

int kix_run_view_from_source(struct kix_source *src, const char *run_id, size_t len,
                             struct kix_resolution *res, struct kix_run_view *v,
                             struct kix_err *err)
{
    char legacy[KIX_RUN_ID_MAX + 1], digest[KIX_DIGEST_TEXT_LEN + 1];
    struct kix_run_info info;
    struct kix_verifier key;
    int rc;

    memset(v, 0, sizeof(*v));
    /* a run logged outside the grammar (by an older origin) is named by its
     * escaped page name (kix_run_page_name) and resolved by its manifest
     * digest: its id may read as another run's digest, or name nothing */
    if (len > 1 && run_id[0] == '_' && kix_run_page_id(run_id, len, legacy) == KIX_OK) {
        if (kix__src_run(src, legacy, strlen(legacy), &info, NULL) != KIX_OK)
            return kix_err_set(err, KIX_ENOTFOUND, "no run %s in this log", legacy);
        kix_digest_format(&info.manifest, digest);
        run_id = digest;
        len = strlen(digest);
    }
    /* else a run id of the grammar, or a manifest digest, which always
     * means the digest (runs/sha256:<hex>) */
    rc = kix_digest_is_text(run_id, len) ? KIX_OK : kix_run_id_check(run_id, len, err);
    if (rc == KIX_OK)
        rc = kix__src_resolve(src, run_id, len, res, err);
    /* the log key as the source gives it; then the one path a client's
     * view takes too (kix_run_view_build) */
    if (rc == KIX_OK)
        rc = kix__src_verifier(src, &key, err);
    if (rc == KIX_OK)
        rc = kix_run_view_build(v, res, &key, get_from_source, src, err);
    return rc;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static int set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

static json_t *bytes_string(const struct kix_bytes *b)
{
    return json_stringn((const char *)b->ptr, b->len);
}

static json_t *figures_json(const struct kix_figures *f)
{
    json_t *m = json_pack("{s:s,s:s,s:I}", "metric", kix_figures_metric(f), "unit",
                          kix_figures_unit(f), "median", (json_int_t)f->median);
    int bad = !m;

    if (m && f->have_p20)
        bad |= set(m, "p20", json_integer((json_int_t)f->p20));
    if (m && f->have_p80)
        bad |= set(m, "p80", json_integer((json_int_t)f->p80));
    if (bad) {
        json_decref(m);
        return NULL;
    }
    return m;
}

static json_t *hex_string(const struct kix_bytes *b)
{
    char *h = malloc(2 * b->len + 1);
    json_t *s;

    if (!h)
        return NULL;
    kix_hex_encode(b->ptr, b->len, h);
    s = json_string(h);
    free(h);
    return s;
}

/* The index proofs at the view's size (PROTOCOL.md §4). */
static int index_json(const struct kix_resolution *res, json_t *o)
{
    const struct kix_bytes *parts[] = {&res->run_record,  &res->run_proof,  &res->group_record,
                                       &res->group_proof, &res->group_page, &res->group_page_proof};
    const char *names[] = {"runRecord",  "runProof",  "groupRecord",
                           "groupProof", "groupPage", "groupPageProof"};
    char key[KIX_VINDEX_KEY_MAX + 1];
    json_t *x = json_object();
    int bad = !x;

    bad |= set(x, "checkpoint", bytes_string(&res->checkpoint));
    bad |= set(x, "indexNote", bytes_string(&res->index_note));
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (parts[i]->ptr)
            bad |= set(x, names[i], hex_string(parts[i]));
    if (res->group_record.ptr) {
        kix_vindex_key_group(&res->run.comparison_key, key);
        bad |= set(x, "groupKey", json_string(key));
    }
    bad |= set(o, "index", x);
    return bad;
}

void kix_view_entry_paths(uint64_t index, uint64_t size, char tile[KIX_TLOG_PATH_MAX + 1],
                          char bundle[KIX_TLOG_PATH_MAX + 1])
{
    struct kix_tlog_path p = {KIX_TLOG_TILE, 0, index / KIX_TLOG_WIDTH, 0};

    p.width = kix_tlog_tile_width(size, 0, p.index);
    if (kix_tlog_path_format(&p, tile, KIX_TLOG_PATH_MAX + 1) != KIX_OK)
        tile[0] = '\0';
    p.kind = KIX_TLOG_ENTRIES;
    if (kix_tlog_path_format(&p, bundle, KIX_TLOG_PATH_MAX + 1) != KIX_OK)
        bundle[0] = '\0';
}

static int dump(json_t *o, unsigned flags, struct kix_buf *out, struct kix_err *err)
{
    return kix_doc_dumps(o, KIX_DOC_SORTED | (flags & KIX_VIEW_JSON_HTML), out, err);
}

static json_t *withdrawal_json(const struct kix_withdrawal_view *w)
{
    char signer[65];
    json_t *o;

    kix_hex_encode(w->signer, 32, signer);
    o = json_pack("{s:I,s:s,s:s,s:s,s:s,s:s}", "index", (json_int_t)w->index, "reason", w->reason,
                  "date", w->date, "signer", signer, "by",
                  w->by_publisher ? "publisher" : "curator", "note", w->note);
    if (o && w->evidence[0] && set(o, "evidence", json_string(w->evidence))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *supersession_json(const struct kix_supersession_view *x)
{
    char signer[65];
    json_t *o = json_pack("{s:s}", "runId", x->run_id);

    if (o && x->index != KIX_NO_INDEX && x->date[0]) {
        kix_hex_encode(x->signer, 32, signer);
        if (set(o, "index", json_integer((json_int_t)x->index)) ||
            set(o, "date", json_string(x->date)) || set(o, "signer", json_string(signer)) ||
            set(o, "reason", json_string(x->reason))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *sections_json(const struct kix_run_view *v)
{
    json_t *list = json_array(), *rows, *sec, *r;
    int bad = !list;

    for (int i = 0; !bad && i < KIX_VIEW_SECTIONS; i++) {
        const struct kix_view_section *s = &v->sections[i];
        sec = json_pack("{s:s,s:o}", "title", s->title, "rows", rows = json_array());
        bad |= !sec || json_array_append_new(list, sec) != 0;
        if (!bad && s->note[0])
            bad |= set(sec, "note", json_string(s->note));
        if (!bad && !s->nrows && !s->note[0])
            bad |= set(sec, "empty", json_string(s->empty));
        for (size_t j = 0; !bad && j < s->nrows; j++) {
            const struct kix_view_row *w = &s->rows[j];
            r = json_pack("{s:s,s:s,s:s}", "label", w->label, "value", w->value, "fmt", w->fmt);
            bad |= !r || json_array_append_new(rows, r) != 0;
            if (!bad && w->ptr[0])
                bad |=
                    set(r, "object", json_string(w->object)) || set(r, "ptr", json_string(w->ptr));
        }
    }
    if (bad) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static int run_json(const struct kix_run_view *v, unsigned flags, json_t *o)
{
    int lean = (flags & KIX_VIEW_JSON_EXPORT) != 0;
    const struct kix_resolution *res = v->res;
    json_t *list = NULL, *x;
    int bad = 0;

    bad |= set(o, "view", json_string(KIX_VIEW_RUN));
    /* a copy's view leaves out what its page's pin (#kix-verify: run id,
     * origin, log key), its checkpoint (the size) and its manifest (the
     * digest, hashed) say, and the permalink kix_permalink makes from
     * them: about 0.3 KB a page (PROTOCOL.md §3, "A leaner view") */
    if (!lean) {
        bad |= set(o, "runId", json_string(res->run.run_id));
        bad |= set(o, "permalink", json_stringn((const char *)v->permalink.ptr, v->permalink.len));
        bad |= set(o, "origin", json_string(v->origin));
        bad |= set(o, "treeSize", json_integer((json_int_t)res->size));
    }
    bad |= set(o, "checkpoint", bytes_string(&res->checkpoint));
    if (v->log_key.len && !lean)
        bad |= set(o, "logKey", json_stringn((const char *)v->log_key.ptr, v->log_key.len));
    if (!lean)
        bad |= set(o, "manifestDigest", json_string(v->manifest_digest));
    /* a copy's page carries its manifest as the text of #kix-manifest,
     * without a JSON string's escapes (PROTOCOL.md §3, "A leaner view") */
    if (!lean)
        bad |= set(o, "manifestCanonical", bytes_string(&res->manifest));
    if (!lean) /* a copy's readers parse the canonical text */
        bad |= set(o, "manifest", json_incref(v->manifest));
    /* a copy's view leaves out what its page's HTML says and its readers
     * derive from the manifest, objects and records they prove (the
     * observed date, figures, evidence, title, header, the entries'
     * paths): about 0.5 KB a page (PROTOCOL.md §3, "A lean view") */
    if (*v->observed && !lean)
        bad |= set(o, "observedAt", json_string(v->observed));
    if (v->primary.have && !lean)
        bad |= set(o, "primary", figures_json(&v->primary));
    if (v->ranked && !lean) /* a copy's page says it, and its verifier proves it */
        bad |=
            set(o, "rank",
                json_pack("{s:s,s:I,s:I,s:s,s:I}", "group", v->group, "rank",
                          (json_int_t)res->rank.rank, "groupSize", (json_int_t)res->rank.group_size,
                          "best", res->rank.best, "bestValue", (json_int_t)res->rank.best_value));
    if (!lean)
        bad |= set(o, "evidence", json_string(kix_evidence_name(res->run.evidence)));
    /* none: said by leaving them out, in a copy's view */
    if (!lean || v->nreruns)
        bad |= set(o, "reruns", list = json_array());
    else
        list = NULL;
    for (size_t i = 0; list && i < v->nreruns; i++) {
        const struct kix_rerun_view *r = &v->reruns[i];
        char signer[65];
        kix_hex_encode(r->signer, 32, signer);
        x = json_pack("{s:I,s:s,s:s,s:s,s:s,s:b}", "index", (json_int_t)r->index, "observedAt",
                      r->observed, "outcome", kix_evidence_name(r->outcome), "manifestDigest",
                      r->manifest_digest, "signer", signer, "self", r->self);
        bad |= !x || json_array_append_new(list, x) != 0;
        if (x && r->status[0])
            bad |= set(x, "status", json_string(r->status));
        if (x && r->figures.have)
            bad |= set(x, "primary", figures_json(&r->figures));
        if (x)
            bad |= set(x, "manifestCanonical",
                       json_stringn((const char *)r->manifest.ptr, r->manifest.len));
    }
    if (!lean || res->run.attestations || v->nattestations) {
        bad |= set(o, "attestations", json_integer((json_int_t)res->run.attestations));
        bad |= set(o, "attestationList", list = json_array());
    } else {
        list = NULL;
    }
    for (size_t i = 0; list && i < v->nattestations; i++) {
        const struct kix_attestation_view *a = &v->attestations[i];
        char signer[65];
        kix_hex_encode(a->signer, 32, signer);
        x = json_pack("{s:I,s:s,s:s,s:s}", "index", (json_int_t)a->index, "attestedAt", a->date,
                      "signer", signer, "text", a->text);
        /* only on an open note: every other view stays byte for byte */
        if (x && a->open_note)
            bad |= set(x, "unregistered", json_true());
        bad |= !x || json_array_append_new(list, x) != 0;
    }
    if (res->successor[0])
        bad |= set(o, "supersededBy", json_string(res->successor));
    if (res->predecessor[0])
        bad |= set(o, "supersedes", json_string(res->predecessor));
    if (v->superseded_by.run_id[0])
        bad |= set(o, "supersededByEntry", supersession_json(&v->superseded_by));
    if (v->supersedes.run_id[0])
        bad |= set(o, "supersedesEntry", supersession_json(&v->supersedes));
    if (v->withdrawn.index != KIX_NO_INDEX)
        bad |= set(o, "withdrawn", withdrawal_json(&v->withdrawn));
    if (!lean)
        bad |= set(o, "title", json_string(v->title));
    if (!lean)
        bad |= set(o, "header",
                   json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "implementation", v->implementation,
                             "kernel", v->kernel, "workload", v->workload, "pass", v->pass, "gpu",
                             v->gpu, "dtype", v->dtype));
    if (!lean)
        bad |= set(o, "evidenceText", json_string(v->evidence_text));
    if (v->last_observed[0] && !lean)
        bad |= set(o, "lastObserved", json_string(v->last_observed));
    if (!lean) /* a copy's page beside it shows them */
        bad |= set(o, "sections", sections_json(v));
    if (!lean) /* a copy's readers read objects/<digest> */
        bad |= set(o, "objects", list = json_array());
    for (size_t i = 0; !lean && list && i < v->nobjects; i++) {
        const struct kix_view_object *ob = &v->objects[i];
        x = json_pack("{s:s,s:s,s:O}", "digest", ob->digest, "kind", ob->kind, "object",
                      ob->json ? ob->json : json_null());
        bad |= !x || json_array_append_new(list, x) != 0;
    }
    bad |= set(o, "entries", list = json_array());
    for (size_t i = 0; list && i < res->nentries; i++) {
        char tile[KIX_TLOG_PATH_MAX + 1], bundle[KIX_TLOG_PATH_MAX + 1];
        kix_view_entry_paths(res->entries[i].index, res->size, tile, bundle);
        x = lean ? json_pack("{s:I,s:s}", "index", (json_int_t)res->entries[i].index, "type",
                             kix_entry_type_name(res->entries[i].type))
                 : json_pack("{s:I,s:s,s:s,s:s}", "index", (json_int_t)res->entries[i].index,
                             "type", kix_entry_type_name(res->entries[i].type), "tile", tile,
                             "entryBundle", bundle);
        bad |= !x || json_array_append_new(list, x) != 0;
    }
    if (res->index_note.ptr && !lean) /* a copy's readers prove from index/ */
        bad |= index_json(res, o);
    return bad;
}

int kix_run_view_json(const struct kix_run_view *v, unsigned flags, struct kix_buf *out,
                      struct kix_err *err)
{
    json_t *o = json_object();
    int rc = !o || run_json(v, flags, o) ? kix_err_set(err, KIX_ENOMEM, "out of memory")
                                         : dump(o, flags, out, err);

    json_decref(o);
    return rc;
}
