/* Run, group and home pages (kix/pages.h). */
#include "kix/pages.h"
#include "kix/vindex.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/file.h"
#include "kix/note.h"
#include "kix/resolve.h"
#include "kix/tlog_path.h"

#define ULL unsigned long long

/* Generated at configure time from web/kix-verify.js (CMakeLists.txt). */
extern const unsigned char kix__verify_js[];
extern const size_t kix__verify_js_len;

void kix_page_script(struct kix_bytes *out)
{
    out->ptr = kix__verify_js;
    out->len = kix__verify_js_len;
}

static const char style[] =
    "<style>body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;"
    "padding:0 1rem;color:#1b1b1b}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem;"
    "border-bottom:1px solid #ddd}table{border-collapse:collapse}td,th{padding:.15rem .8rem "
    ".15rem 0;text-align:left;vertical-align:top}pre{background:#f6f6f6;padding:.6rem;"
    "overflow-x:auto}.big{font-size:2rem;font-weight:600}.muted{color:#666}code{font-size:.9em}"
    "</style>";

/* ---- output helpers ------------------------------------------------------------------ */

struct out {
    struct kix_buf *b;
    int rc;
};

static void put(struct out *o, const char *s)
{
    if (o->rc == KIX_OK)
        o->rc = kix_buf_adds(o->b, s);
}

static void putf(struct out *o, const char *fmt, ...) KIX_PRINTF(2, 3);
static void putf(struct out *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp))
        o->rc = o->rc ? o->rc : KIX_ELIMIT;
    else
        put(o, tmp);
}

/* HTML-escaped text. */
static void esc(struct out *o, const char *s, size_t len)
{
    for (size_t i = 0; i < len && o->rc == KIX_OK; i++) {
        const char *e = s[i] == '<'    ? "&lt;"
                        : s[i] == '>'  ? "&gt;"
                        : s[i] == '&'  ? "&amp;"
                        : s[i] == '"'  ? "&quot;"
                        : s[i] == '\'' ? "&#39;"
                                       : NULL;
        o->rc = e ? kix_buf_adds(o->b, e) : kix_buf_addc(o->b, (uint8_t)s[i]);
    }
}

static void escs(struct out *o, const char *s)
{
    esc(o, s, strlen(s));
}

static void head(struct out *o, const char *title)
{
    put(o, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    escs(o, title);
    put(o, "</title>");
    put(o, style);
    put(o, "</head><body>\n");
}

/* ---- manifest fields ------------------------------------------------------------------- */

static json_t *path_get(json_t *o, const char *path)
{
    char key[64];

    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path += dot ? n + 1 : n;
    }
    return o;
}

static const char *jstr(json_t *o, const char *path)
{
    const char *s = json_string_value(path_get(o, path));
    return s ? s : "";
}

struct stats {
    int have, bytes;
    json_int_t median, p20, p80;
    int have_p20, have_p80;
};

static void read_stats(json_t *run, struct stats *st)
{
    json_t *t = path_get(run, "spec.timing.latencyNs.median");
    json_t *m = path_get(run, "spec.memory.peakBytes.median"), *x;
    size_t i;

    memset(st, 0, sizeof(*st));
    st->bytes = !t && m;
    if (!json_is_integer(t ? t : m))
        return;
    st->have = 1;
    st->median = json_integer_value(t ? t : m);
    json_array_foreach(path_get(run, "spec.measurements"), i, x)
    {
        const char *metric = jstr(x, "metric"), *stat = jstr(x, "statistic");
        json_t *v = json_object_get(x, "value");
        if (strcmp(metric, st->bytes ? "peak_memory" : "latency") != 0 || !json_is_integer(v))
            continue;
        if (strcmp(stat, "p20") == 0) {
            st->p20 = json_integer_value(v);
            st->have_p20 = 1;
        } else if (strcmp(stat, "p80") == 0) {
            st->p80 = json_integer_value(v);
            st->have_p80 = 1;
        }
    }
}

static void human(json_int_t v, int bytes, char *out, size_t cap)
{
    static const char *const t[] = {"ns", "µs", "ms", "s"}, *const b[] = {"B", "KiB", "MiB", "GiB"};
    double x = (double)v, step = bytes ? 1024.0 : 1000.0;
    int u = 0;

    while (x >= step && u < 3) {
        x /= step;
        u++;
    }
    snprintf(out, cap,
             u == 0 || x >= 100 ? "%.0f %s"
             : x >= 10          ? "%.1f %s"
                                : "%.2f %s",
             x, bytes ? b[u] : t[u]);
}

#define RERUNS_SHOWN 256 /* reruns a page lists */

/* A controlled rerun as a page lists it: its own date (its manifest's
 * spec.observedAt, else the entry's), outcome and figures. */
struct rerun_row {
    uint64_t index;
    int outcome;
    char observed[40], status[32], digest[KIX_DIGEST_TEXT_LEN + 1];
    struct stats st;
};

/* The reruns among the resolution's entries, with their manifests read
 * from the log (*rows malloc'ed, caller frees). */
static int read_reruns(struct kix_log_reader *r, const struct kix_resolution *res,
                       struct rerun_row **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    for (size_t i = 0; i < res->nentries && *n < RERUNS_SHOWN; i++) {
        struct kix_entry_summary s;
        struct kix_bytes b;
        struct rerun_row *x;
        json_t *doc = NULL;

        if (res->entries[i].type != KIX_ENTRY_RERUN ||
            kix_entry_describe(res->entries[i].leaf.ptr, res->entries[i].leaf.len, &s, NULL))
            continue;
        if (!*rows && !(*rows = calloc(RERUNS_SHOWN, sizeof(**rows))))
            return KIX_ENOMEM;
        x = &(*rows)[(*n)++];
        x->index = res->entries[i].index;
        x->outcome = s.outcome;
        snprintf(x->observed, sizeof(x->observed), "%s", s.time);
        kix_digest_format(&s.rerun_digest, x->digest);
        if (kix_log_reader_object(r, &s.rerun_digest, &b) == KIX_OK)
            doc = json_loadb((const char *)b.ptr, b.len, 0, NULL);
        if (*jstr(doc, "spec.observedAt"))
            snprintf(x->observed, sizeof(x->observed), "%s", jstr(doc, "spec.observedAt"));
        snprintf(x->status, sizeof(x->status), "%s", jstr(doc, "spec.status"));
        read_stats(doc, &x->st);
        json_decref(doc);
    }
    return KIX_OK;
}

/* The origin: a checkpoint's first line. */
static void origin_of(const struct kix_bytes *checkpoint, char *out, size_t cap)
{
    const uint8_t *nl = memchr(checkpoint->ptr, '\n', checkpoint->len);
    size_t n = nl ? (size_t)(nl - checkpoint->ptr) : 0;

    if (n >= cap)
        n = cap - 1;
    memcpy(out, checkpoint->ptr, n);
    out[n] = '\0';
}

static int resolve(struct kix_log_reader *r, const char *run_id, size_t len,
                   struct kix_resolution *res, json_t **manifest, struct kix_err *err)
{
    int rc;

    for (size_t i = 0; i < len; i++) {
        char c = run_id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return kix_err_set(err, KIX_EINVAL, "not a run id");
    }
    if (len == 0 || len > KIX_RUN_ID_MAX)
        return kix_err_set(err, KIX_EINVAL, "not a run id");
    rc = kix_index_resolve(r, run_id, len, res, err);
    if (rc)
        return rc;
    *manifest = json_loadb((const char *)res->manifest.ptr, res->manifest.len, 0, NULL);
    if (!*manifest)
        return kix_err_set(err, KIX_ECORRUPT, "the manifest of run %s does not parse",
                           res->run.run_id);
    return KIX_OK;
}

/* The tlog-tiles paths of entry `index`'s level-0 tile and bundle at `size`. */
static void entry_paths(uint64_t index, uint64_t size, char tile[KIX_TLOG_PATH_MAX + 1],
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

/* ---- JSON -------------------------------------------------------------------------------- */

static int set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

int kix_page_run_json(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    json_t *manifest = NULL, *o = NULL, *entries, *objects;
    char digest[KIX_DIGEST_TEXT_LEN + 1], origin[256], *text = NULL;
    struct stats st;
    int rc, bad = 0;

    kix_resolution_init(&res);
    rc = resolve(r, run_id, len, &res, &manifest, err);
    if (rc)
        goto out;
    origin_of(&res.checkpoint, origin, sizeof(origin));
    read_stats(manifest, &st);
    o = json_object();
    entries = json_array();
    objects = json_array();
    kix_digest_format(&res.run.manifest, digest);
    bad |= !o || !entries || !objects;
    bad |= set(o, "runId", json_string(res.run.run_id));
    {
        struct kix_buf link = KIX_BUF_INIT;
        bad |= kix_permalink(origin, res.run.run_id, &link) != KIX_OK;
        bad |= set(o, "permalink", json_stringn((const char *)link.ptr, link.len));
        kix_buf_release(&link);
    }
    bad |= set(o, "origin", json_string(origin));
    bad |= set(o, "treeSize", json_integer((json_int_t)res.size));
    bad |= set(o, "manifestDigest", json_string(digest));
    bad |= set(o, "manifest", json_incref(manifest));
    if (st.have) {
        json_t *m = json_object();
        bad |= set(o, "primary", m);
        bad |= set(m, "metric", json_string(st.bytes ? "peak_memory" : "latency"));
        bad |= set(m, "unit", json_string(st.bytes ? "bytes" : "ns"));
        bad |= set(m, "median", json_integer(st.median));
        if (st.have_p20)
            bad |= set(m, "p20", json_integer(st.p20));
        if (st.have_p80)
            bad |= set(m, "p80", json_integer(st.p80));
    }
    if (res.run.grouped) {
        json_t *g = json_object();
        char key[KIX_DIGEST_TEXT_LEN + 1];
        kix_digest_format(&res.run.comparison_key, key);
        bad |= set(o, "rank", g);
        bad |= set(g, "group", json_string(key));
        bad |= set(g, "rank", json_integer((json_int_t)res.rank.rank));
        bad |= set(g, "groupSize", json_integer((json_int_t)res.rank.group_size));
        bad |= set(g, "best", json_string(res.rank.best));
        bad |= set(g, "bestValue", json_integer((json_int_t)res.rank.best_value));
    }
    bad |= set(o, "evidence", json_string(kix_evidence_name(res.run.evidence)));
    bad |= set(o, "reruns", json_integer((json_int_t)res.run.reruns));
    bad |= set(o, "observedAt", json_string(jstr(manifest, "spec.observedAt")));
    {
        struct rerun_row *rows = NULL;
        size_t n = 0;
        json_t *list = json_array();
        bad |= !list || read_reruns(r, &res, &rows, &n) != KIX_OK;
        for (size_t i = 0; list && i < n; i++) {
            json_t *x = json_object();
            bad |= set(x, "index", json_integer((json_int_t)rows[i].index));
            bad |= set(x, "observedAt", json_string(rows[i].observed));
            bad |= set(x, "outcome", json_string(kix_evidence_name(rows[i].outcome)));
            bad |= set(x, "manifestDigest", json_string(rows[i].digest));
            if (rows[i].status[0])
                bad |= set(x, "status", json_string(rows[i].status));
            if (rows[i].st.have) {
                json_t *m = json_object();
                bad |= set(x, "primary", m);
                bad |= set(m, "metric", json_string(rows[i].st.bytes ? "peak_memory" : "latency"));
                bad |= set(m, "unit", json_string(rows[i].st.bytes ? "bytes" : "ns"));
                bad |= set(m, "median", json_integer(rows[i].st.median));
                if (rows[i].st.have_p20)
                    bad |= set(m, "p20", json_integer(rows[i].st.p20));
                if (rows[i].st.have_p80)
                    bad |= set(m, "p80", json_integer(rows[i].st.p80));
            }
            bad |= json_array_append_new(list, x) != 0;
        }
        free(rows);
        bad |= set(o, "rerunList", list);
    }
    bad |= set(o, "attestations", json_integer((json_int_t)res.run.attestations));
    if (res.successor[0])
        bad |= set(o, "supersededBy", json_string(res.successor));
    if (res.predecessor[0])
        bad |= set(o, "supersedes", json_string(res.predecessor));
    for (size_t i = 0; i < res.nobjects; i++) {
        char d[KIX_DIGEST_TEXT_LEN + 1];
        json_t *obj = json_loadb((const char *)res.objects[i].bytes.ptr, res.objects[i].bytes.len,
                                 0, NULL),
               *e = json_object();
        kix_digest_format(&res.objects[i].digest, d);
        bad |= set(e, "digest", json_string(d));
        bad |= set(e, "kind", json_string(jstr(obj, "kind")));
        bad |= set(e, "object", obj ? obj : json_null());
        bad |= json_array_append_new(objects, e) != 0;
    }
    bad |= set(o, "objects", objects);
    for (size_t i = 0; i < res.nentries; i++) {
        char tile[KIX_TLOG_PATH_MAX + 1], bundle[KIX_TLOG_PATH_MAX + 1];
        json_t *e = json_object();
        entry_paths(res.entries[i].index, res.size, tile, bundle);
        bad |= set(e, "index", json_integer((json_int_t)res.entries[i].index));
        bad |= set(e, "type", json_string(kix_entry_type_name(res.entries[i].type)));
        bad |= set(e, "tile", json_string(tile));
        bad |= set(e, "entryBundle", json_string(bundle));
        bad |= json_array_append_new(entries, e) != 0;
    }
    bad |= set(o, "entries", entries);
    bad |= set(o, "checkpoint", json_stringn((const char *)res.checkpoint.ptr, res.checkpoint.len));
    text = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    if (!text)
        rc = kix_err_set(err, KIX_ENOMEM, "out of memory");
    else if ((rc = kix_buf_adds(out, text)) != KIX_OK)
        kix_err_set(err, rc, "out of memory");
out:
    free(text);
    json_decref(o);
    json_decref(manifest);
    kix_resolution_release(&res);
    return rc;
}

/* ---- HTML ---------------------------------------------------------------------------------- */

static void row(struct out *o, const char *k, const char *v)
{
    put(o, "<tr><th>");
    escs(o, k);
    put(o, "</th><td>");
    escs(o, v);
    put(o, "</td></tr>\n");
}

static void object_section(struct out *o, const char *title, json_t *obj, const char *digest)
{
    const char *k;
    json_t *v;

    put(o, "<h2>");
    escs(o, title);
    put(o, "</h2>\n<table>\n");
    json_object_foreach(json_object_get(obj, "spec"), k, v)
    {
        char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        row(o, k, s ? s : json_string_value(v));
        free(s);
    }
    row(o, "digest", digest);
    put(o, "</table>\n");
}

/* The log key, the verifier's status line (what it says without
 * JavaScript: how to check by hand) and the script (kix/pages.h). */
/* The index proofs of the run at the page's size, as JSON the page's script
 * reads (#kix-index): the checkpoint and index note of that size, the run's
 * and its group's records with their proofs (PROTOCOL.md §4). '/' is
 * escaped, so no "</script>" can close the element early. */
static void index_proofs(struct out *o, const struct kix_resolution *res)
{
    json_t *x;
    char *text, *hexbuf;
    char key[KIX_VINDEX_KEY_MAX + 1];
    const struct kix_bytes *parts[] = {&res->run_record, &res->run_proof, &res->group_record,
                                       &res->group_proof};
    const char *names[] = {"runRecord", "runProof", "groupRecord", "groupProof"};

    if (o->rc || !res->index_note.ptr)
        return;
    /* the whole note: the script finds the log key's line among the
     * witnesses' cosignature lines */
    x = json_pack("{s:s%,s:s%}", "checkpoint", (const char *)res->checkpoint.ptr,
                  res->checkpoint.len, "indexNote", (const char *)res->index_note.ptr,
                  res->index_note.len);
    for (size_t i = 0; x && i < 4; i++) {
        if (!parts[i]->ptr)
            continue;
        hexbuf = malloc(2 * parts[i]->len + 1);
        if (!hexbuf) {
            o->rc = KIX_ENOMEM;
            break;
        }
        kix_hex_encode(parts[i]->ptr, parts[i]->len, hexbuf);
        json_object_set_new(x, names[i], json_string(hexbuf));
        free(hexbuf);
    }
    if (x && res->group_record.ptr) {
        kix_vindex_key_group(&res->run.comparison_key, key);
        json_object_set_new(x, "groupKey", json_string(key));
    }
    text = x ? json_dumps(x, JSON_COMPACT | JSON_ESCAPE_SLASH) : NULL;
    if (!text) {
        o->rc = o->rc ? o->rc : KIX_ENOMEM;
    } else {
        put(o, "<script type=\"application/json\" id=\"kix-index\">");
        put(o, text);
        put(o, "</script>\n");
    }
    free(text);
    json_decref(x);
}

static void verify_section(struct out *o, struct kix_log_reader *r, const char *origin,
                           const struct kix_resolution *res)
{
    struct kix_buf vkey = KIX_BUF_INIT;

    if (o->rc == KIX_OK)
        o->rc = kix_verifier_format(kix_log_reader_verifier(r), &vkey);
    put(o, "<h2>Verification</h2>\n<div id=\"kix-verify\" data-origin=\"");
    escs(o, origin);
    put(o, "\" data-run=\"");
    escs(o, res->run.run_id);
    put(o, "\">\n<p>Log key <code id=\"log-vkey\">");
    esc(o, (const char *)vkey.ptr, vkey.len);
    put(o, "</code></p>\n<p id=\"verify-status\" data-state=\"none\"><b>Not verified by this "
           "page</b>: with JavaScript, the page checks the checkpoint's signature with this key, "
           "the inclusion of every entry above and the manifest's digest, reading only the "
           "tiles; without it, check them with any C2SP tlog-tiles client (and "
           "<code>sha256sum</code> of the manifest). With JavaScript it also checks the rank "
           "and evidence against the log's signed index (the proofs below); without it, "
           "<code>kix show</code> does.</p>\n</div>\n");
    index_proofs(o, res);
    put(o, "<script src=\"../" KIX_PAGE_SCRIPT_PATH "\" defer></script>\n");
    kix_buf_release(&vkey);
}

int kix_page_run_html(struct kix_log_reader *r, const char *run_id, size_t len, struct kix_buf *out,
                      struct kix_err *err)
{
    struct kix_resolution res;
    struct out o = {out, KIX_OK};
    json_t *manifest = NULL;
    char digest[KIX_DIGEST_TEXT_LEN + 1], origin[256], h[48], title[KIX_RUN_ID_MAX + 64];
    struct kix_buf link = KIX_BUF_INIT;
    struct stats st;
    const char *kernel;
    int rc;

    kix_resolution_init(&res);
    rc = resolve(r, run_id, len, &res, &manifest, err);
    if (rc)
        goto out;
    origin_of(&res.checkpoint, origin, sizeof(origin));
    kix_digest_format(&res.run.manifest, digest);
    read_stats(manifest, &st);
    rc = kix_permalink(origin, res.run.run_id, &link);
    if (rc)
        goto out;
    kernel = jstr(manifest, "spec.kernel");
    snprintf(title, sizeof(title), "run %s", res.run.run_id);
    head(&o, title);
    put(&o, "<p class=\"muted\"><a href=\"../\">");
    escs(&o, origin);
    put(&o, "</a> · <a href=\"");
    escs(&o, res.run.run_id);
    put(&o, ".json\">JSON</a></p>\n<h1>");
    escs(&o, title);
    put(&o, "</h1>\n");
    if (*kernel) {
        put(&o, "<p>");
        escs(&o, kernel);
        put(&o, "</p>\n");
    }
    put(&o, "<p>status <b>");
    escs(&o, *jstr(manifest, "spec.status") ? jstr(manifest, "spec.status") : "unknown");
    putf(&o, "</b> · evidence <b id=\"evidence\">%s</b> (%llu reruns, %llu attestations)</p>\n",
         kix_evidence_name(res.run.evidence), (ULL)res.run.reruns, (ULL)res.run.attestations);
    put(&o, "<h2>Primary measurement</h2>\n");
    if (st.have) {
        human(st.median, st.bytes, h, sizeof(h));
        put(&o, "<p><span class=\"big\" id=\"median\">");
        escs(&o, h);
        putf(&o, "</span> %s median", st.bytes ? "peak memory" : "latency");
        if (st.have_p20) {
            human(st.p20, st.bytes, h, sizeof(h));
            put(&o, " · p20 <span id=\"p20\">");
            escs(&o, h);
            put(&o, "</span>");
        }
        if (st.have_p80) {
            human(st.p80, st.bytes, h, sizeof(h));
            put(&o, " · p80 <span id=\"p80\">");
            escs(&o, h);
            put(&o, "</span>");
        }
        put(&o, "</p>\n");
    } else {
        put(&o, "<p>No primary statistic in the manifest.</p>\n");
    }
    if (res.run.grouped && res.rank.rank) {
        char key[KIX_DIGEST_TEXT_LEN + 1];
        kix_digest_format(&res.run.comparison_key, key);
        putf(&o, "<p id=\"rank\">Rank <b>%llu</b> of %llu in its <a href=\"../groups/",
             (ULL)res.rank.rank, (ULL)res.rank.group_size);
        escs(&o, key);
        put(&o, "\">comparison group</a>; best: <a href=\"");
        escs(&o, res.rank.best);
        put(&o, "\">");
        escs(&o, res.rank.best);
        put(&o, "</a></p>\n");
    } else {
        put(&o, "<p id=\"rank\">Not ranked (not a comparable run, or superseded).</p>\n");
    }
    if (res.successor[0]) {
        put(&o, "<p>Superseded by <a href=\"");
        escs(&o, res.successor);
        put(&o, "\">");
        escs(&o, res.successor);
        put(&o, "</a> (the supersession entry below gives the reason).</p>\n");
    }
    if (res.predecessor[0]) {
        put(&o, "<p>Supersedes <a href=\"");
        escs(&o, res.predecessor);
        put(&o, "\">");
        escs(&o, res.predecessor);
        put(&o, "</a>.</p>\n");
    }
    if (*jstr(manifest, "spec.observedAt")) {
        put(&o, "<p>Observed <span id=\"observed\">");
        esc(&o, jstr(manifest, "spec.observedAt"), strnlen(jstr(manifest, "spec.observedAt"), 10));
        put(&o, "</span> (the run's own measurement; reruns below carry their own dates).</p>\n");
    }
    {
        struct rerun_row *rows = NULL;
        size_t n = 0;
        if (o.rc == KIX_OK)
            o.rc = read_reruns(r, &res, &rows, &n);
        put(&o, "<h2>Controlled reruns</h2>\n");
        if (n == 0)
            put(&o, "<p>No controlled reruns yet.</p>\n");
        else
            put(&o,
                "<table id=\"reruns\">\n<tr><th>entry</th><th>observed</th><th>outcome</th>"
                "<th>status</th><th>median</th><th>p20</th><th>p80</th><th>manifest</th></tr>\n");
        for (size_t i = 0; i < n; i++) {
            const struct rerun_row *x = &rows[i];
            putf(&o, "<tr data-index=\"%llu\"><td>%llu</td><td>", (ULL)x->index, (ULL)x->index);
            esc(&o, x->observed, strnlen(x->observed, 10));
            putf(&o, "</td><td>%s</td><td>", kix_evidence_name(x->outcome));
            escs(&o, x->status);
            put(&o, "</td>");
            {
                const json_int_t v[3] = {x->st.median, x->st.p20, x->st.p80};
                const int have[3] = {x->st.have, x->st.have && x->st.have_p20,
                                     x->st.have && x->st.have_p80};
                for (int k = 0; k < 3; k++) {
                    human(v[k], x->st.bytes, h, sizeof(h));
                    put(&o, "<td>");
                    escs(&o, have[k] ? h : "");
                    put(&o, "</td>");
                }
            }
            put(&o, "<td><code>");
            escs(&o, x->digest);
            put(&o, "</code></td></tr>\n");
        }
        if (n)
            put(&o, "</table>\n");
        if (res.run.reruns > n)
            putf(&o, "<p>... and %llu more (the log entries below list every one).</p>\n",
                 (ULL)(res.run.reruns - n));
        free(rows);
    }
    for (size_t i = 0; i < res.nobjects; i++) {
        char d[KIX_DIGEST_TEXT_LEN + 1];
        json_t *obj =
            json_loadb((const char *)res.objects[i].bytes.ptr, res.objects[i].bytes.len, 0, NULL);
        kix_digest_format(&res.objects[i].digest, d);
        if (obj && strcmp(jstr(obj, "kind"), "BenchmarkRun") != 0)
            object_section(&o, *jstr(obj, "kind") ? jstr(obj, "kind") : "object", obj, d);
        json_decref(obj);
    }
    put(&o,
        "<h2>Log entries</h2>\n<table id=\"entries\">\n<tr><th>index</th><th>type</th><th>tile</th>"
        "<th>entry bundle</th></tr>\n");
    for (size_t i = 0; i < res.nentries; i++) {
        char tile[KIX_TLOG_PATH_MAX + 1], bundle[KIX_TLOG_PATH_MAX + 1];
        entry_paths(res.entries[i].index, res.size, tile, bundle);
        putf(&o,
             "<tr data-index=\"%llu\" data-type=\"%s\"><td>%llu</td><td>%s</td>"
             "<td><a href=\"../%s\">%s</a></td><td><a href=\"../%s\">%s</a></td></tr>\n",
             (ULL)res.entries[i].index, kix_entry_type_name(res.entries[i].type),
             (ULL)res.entries[i].index, kix_entry_type_name(res.entries[i].type), tile, tile,
             bundle, bundle);
    }
    putf(&o,
         "</table>\n<p class=\"muted\">Tree size %llu. The tiles and entry bundles are "
         "C2SP tlog-tiles: any tlog-tiles client verifies them against the signed "
         "<a href=\"../checkpoint\">checkpoint</a>.</p>\n",
         (ULL)res.size);
    put(&o, "<h2>Citation</h2>\n<pre id=\"citation\">");
    esc(&o, (const char *)link.ptr, link.len);
    put(&o, "\nmanifest ");
    escs(&o, digest);
    put(&o, "\nlog ");
    escs(&o, origin);
    putf(&o, " at size %llu</pre>\n", (ULL)res.size);
    put(&o, "<h2>Canonical manifest</h2>\n<p><code id=\"manifest-digest\">");
    escs(&o, digest);
    put(&o, "</code></p>\n<pre id=\"manifest\">");
    esc(&o, (const char *)res.manifest.ptr, res.manifest.len);
    put(&o, "</pre>\n<h2>Checkpoint</h2>\n<pre>");
    esc(&o, (const char *)res.checkpoint.ptr, res.checkpoint.len);
    put(&o, "</pre>\n");
    verify_section(&o, r, origin, &res);
    put(&o, "</body></html>\n");
    rc = o.rc;
    if (rc)
        kix_err_set(err, rc, "rendering the page of run %s: %s", res.run.run_id, kix_strerror(rc));
out:
    kix_buf_release(&link);
    json_decref(manifest);
    kix_resolution_release(&res);
    return rc;
}

/* ---- group and home --------------------------------------------------------------------- */

struct group_ctx {
    struct out *o;
};

static int group_row(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct group_ctx *g = ctx;
    putf(g->o, "<tr data-rank=\"%llu\" data-value=\"%llu\" data-run=\"", (ULL)rank, (ULL)value);
    escs(g->o, run_id);
    putf(g->o, "\"><td>%llu</td><td><a href=\"../runs/", (ULL)rank);
    escs(g->o, run_id);
    put(g->o, "\">");
    escs(g->o, run_id);
    putf(g->o, "</a></td><td>%llu</td></tr>\n", (ULL)value);
    return g->o->rc;
}

/* The group's record with its proof, the latest checkpoint and the index
 * note beside it, for the page's script (#kix-index), and the
 * verification section a group page shares with run pages. */
static void group_verify_section(struct out *o, struct kix_log_reader *r,
                                 const struct kix_digest *group)
{
    struct kix_buf vkey = KIX_BUF_INIT, record = KIX_BUF_INIT, proof = KIX_BUF_INIT;
    struct kix_bytes cp = {NULL, 0}, note = {NULL, 0};
    char key[KIX_VINDEX_KEY_MAX + 1], origin[256];
    char *rec_hex = NULL, *proof_hex = NULL, *text = NULL;
    json_t *x = NULL;
    int present = 0;

    if (o->rc)
        return;
    kix_vindex_key_group(group, key);
    if (kix_verifier_format(kix_log_reader_verifier(r), &vkey) != KIX_OK ||
        kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) != KIX_OK ||
        kix_log_reader_index_note(r, KIX_NO_INDEX, &note) != KIX_OK ||
        kix_index_prove(r, key, strlen(key), &record, &proof, &present, NULL) != KIX_OK || !present)
        goto out; /* no signed index here: the page says it is not verified */
    origin_of(&cp, origin, sizeof(origin));
    rec_hex = malloc(2 * record.len + 1);
    proof_hex = malloc(2 * proof.len + 1);
    if (!rec_hex || !proof_hex) {
        o->rc = KIX_ENOMEM;
        goto out;
    }
    kix_hex_encode(record.ptr, record.len, rec_hex);
    kix_hex_encode(proof.ptr, proof.len, proof_hex);
    x = json_pack("{s:s%,s:s%,s:s,s:s,s:s}", "checkpoint", (const char *)cp.ptr, cp.len,
                  "indexNote", (const char *)note.ptr, note.len, "groupKey", key, "groupRecord",
                  rec_hex, "groupProof", proof_hex);
    text = x ? json_dumps(x, JSON_COMPACT | JSON_ESCAPE_SLASH) : NULL;
    if (!text) {
        o->rc = KIX_ENOMEM;
        goto out;
    }
    put(o, "<h2>Verification</h2>\n<div id=\"kix-verify\" data-origin=\"");
    escs(o, origin);
    put(o, "\" data-group=\"");
    escs(o, key);
    put(o, "\">\n<p>Log key <code id=\"log-vkey\">");
    esc(o, (const char *)vkey.ptr, vkey.len);
    put(o, "</code></p>\n<p id=\"verify-status\" data-state=\"none\"><b>Not verified by this "
           "page</b>: with JavaScript, the page checks the checkpoint's signature with this key "
           "and every rank above against the group's record in the log's signed index (the "
           "proof below); without it, <code>kix group</code> does.</p>\n</div>\n");
    put(o, "<script type=\"application/json\" id=\"kix-index\">");
    put(o, text);
    put(o, "</script>\n<script src=\"../" KIX_PAGE_SCRIPT_PATH "\" defer></script>\n");
out:
    free(text);
    json_decref(x);
    free(rec_hex);
    free(proof_hex);
    kix_buf_release(&vkey);
    kix_buf_release(&record);
    kix_buf_release(&proof);
}

int kix_page_group_html(struct kix_log_reader *r, const char *key, size_t len, struct kix_buf *out,
                        struct kix_err *err)
{
    struct out o = {out, KIX_OK};
    struct group_ctx g = {&o};
    struct kix_digest d;
    char text[KIX_DIGEST_TEXT_LEN + 1], title[KIX_DIGEST_TEXT_LEN + 32];
    uint64_t size = 0;
    int rc;

    if (kix_digest_parse(key, len, &d, NULL) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "not a group key");
    kix_digest_format(&d, text);
    snprintf(title, sizeof(title), "comparison group %s", text);
    head(&o, title);
    put(&o, "<p class=\"muted\"><a href=\"../\">home</a></p>\n<h1>");
    escs(&o, title);
    put(&o, "</h1>\n<table>\n<tr><th>rank</th><th>run</th><th>median</th></tr>\n");
    rc = kix_index_group(r, &d, 0, 1000, group_row, &g, &size);
    if (rc == KIX_OK && size == 0)
        return kix_err_set(err, KIX_ENOTFOUND, "no such group");
    if (rc == KIX_OK) {
        putf(&o,
             "</table>\n<p><span id=\"group-size\">%llu</span> runs, best first (lower is "
             "better).</p>\n",
             (ULL)size);
        group_verify_section(&o, r, &d);
        put(&o, "</body></html>\n");
    }
    rc = rc ? rc : o.rc;
    return rc ? kix_err_set(err, rc, "rendering a group page: %s", kix_strerror(rc)) : KIX_OK;
}

#define HOME_MAX 20000 /* ranked runs read for the home page */

struct home_ctx {
    struct out *o;
    struct kix_digest last;
    int have_last;
    uint64_t shown;
};

static int home_row(void *ctx, const struct kix_query_row *q)
{
    struct home_ctx *h = ctx;
    char key[KIX_DIGEST_TEXT_LEN + 1];

    if (h->have_last && memcmp(h->last.b, q->group.b, sizeof(q->group.b)) == 0)
        return KIX_OK; /* one line per group: its best run */
    h->last = q->group;
    h->have_last = 1;
    kix_digest_format(&q->group, key);
    put(h->o, "<tr><td>");
    escs(h->o, q->kernel);
    put(h->o, "</td><td>");
    escs(h->o, q->gpu);
    put(h->o, "</td><td>");
    escs(h->o, q->provider);
    put(h->o, "</td><td><a href=\"groups/");
    escs(h->o, key);
    putf(h->o, "\">%llu runs</a></td><td><a href=\"runs/", (ULL)q->group_size);
    escs(h->o, q->run_id);
    put(h->o, "\">");
    escs(h->o, q->run_id);
    put(h->o, "</a></td></tr>\n");
    h->shown++;
    return h->o->rc;
}

int kix_page_home_html(struct kix_log_reader *r, struct kix_buf *out, struct kix_err *err)
{
    struct out o = {out, KIX_OK};
    struct home_ctx h;
    struct kix_query q;
    struct kix_bytes cp;
    uint64_t matched = 0;
    int rc;

    memset(&h, 0, sizeof(h));
    memset(&q, 0, sizeof(q));
    h.o = &o;
    q.limit = HOME_MAX;
    head(&o, "kix log");
    put(&o, "<h1>");
    if (kix_log_reader_checkpoint(r, KIX_NO_INDEX, &cp) == KIX_OK) {
        const uint8_t *nl = memchr(cp.ptr, '\n', cp.len);
        esc(&o, (const char *)cp.ptr, nl ? (size_t)(nl - cp.ptr) : 0);
    }
    putf(&o,
         "</h1>\n<p>%llu log entries · <a href=\"checkpoint\">checkpoint</a> (C2SP "
         "tlog-tiles under <code>tile/</code>)</p>\n",
         (ULL)kix_log_reader_size(r));
    put(&o, "<h2>Kernels and GPUs</h2>\n<table>\n<tr><th>kernel</th><th>GPU</th><th>provider</th>"
            "<th>group</th><th>best run</th></tr>\n");
    rc = kix_index_query(r, &q, home_row, &h, &matched);
    putf(&o, "</table>\n<p class=\"muted\">%llu groups, %llu ranked runs.</p>\n</body></html>\n",
         (ULL)h.shown, (ULL)matched);
    rc = rc ? rc : o.rc;
    return rc ? kix_err_set(err, rc, "rendering the home page: %s", kix_strerror(rc)) : KIX_OK;
}

/* ---- export ---------------------------------------------------------------------------- */

struct idset {
    char (*id)[KIX_RUN_ID_MAX + 1];
    size_t n, cap;
};

static int idset_add(struct idset *s, const char *id)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        void *p = realloc(s->id, cap * sizeof(*s->id));
        if (!p)
            return KIX_ENOMEM;
        s->id = p;
        s->cap = cap;
    }
    snprintf(s->id[s->n++], KIX_RUN_ID_MAX + 1, "%s", id);
    return KIX_OK;
}

static int id_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Sorts and drops duplicates. */
static void idset_finish(struct idset *s)
{
    size_t k = 0;

    if (s->n == 0)
        return;
    qsort(s->id, s->n, sizeof(*s->id), id_cmp);
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->id[i], s->id[k]) != 0 && ++k != i)
            memcpy(s->id[k], s->id[i], sizeof(*s->id));
    s->n = k + 1;
}

struct pexport {
    struct kix_log_reader *r;
    const char *dir;
    struct kix_buf body;
    struct idset runs, groups; /* groups: digest texts */
    struct kix_err *err;
};

static int write_page(struct pexport *x, const char *sub, const char *name, const char *ext)
{
    char path[4400];

    if ((size_t)snprintf(path, sizeof(path), "%s/%s", x->dir, sub) >= sizeof(path))
        return kix_err_set(x->err, KIX_EINVAL, "page path too long");
    if (kix_dir_make(path, 0755, x->err) != KIX_OK)
        return KIX_EIO;
    snprintf(path, sizeof(path), "%s/%s/%s%s", x->dir, sub, name, ext);
    return kix_file_write_batched(path, x->body.ptr, x->body.len, 0644, x->err);
}

static int add_group_run(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    (void)rank;
    (void)value;
    return idset_add(&((struct pexport *)ctx)->runs, run_id);
}

/* DIR/kix-verify.js, in path. */
static const char *path_js(const struct pexport *x, char *path, size_t cap)
{
    snprintf(path, cap, "%s/" KIX_PAGE_SCRIPT_PATH, x->dir);
    return path;
}

int kix_pages_export(struct kix_log *l, const char *dir, struct kix_pages_export_stats *stats,
                     struct kix_err *err)
{
    struct kix_pages_export_stats local;
    struct pexport x;
    struct kix_buf mark = KIX_BUF_INIT;
    char path[4200], text[32];
    uint64_t from = 0, size, ngroups;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(&local, 0, sizeof(local));
    stats = stats ? stats : &local;
    memset(stats, 0, sizeof(*stats));
    x.dir = dir;
    x.err = err;
    kix_buf_init(&x.body);
    snprintf(path, sizeof(path), "%s/runs/.size", dir);
    if (kix_file_read(path, 64, &mark, NULL) == KIX_OK) {
        char *end;
        from = strtoull((const char *)mark.ptr, &end, 10);
        if (end == (const char *)mark.ptr || *end != '\n')
            from = 0;
    }
    rc = kix_log_read_begin(l, &x.r);
    if (rc) {
        kix_err_set(err, rc, "cannot read the log: %s", kix_strerror(rc));
        goto out;
    }
    size = kix_log_reader_size(x.r);
    if (from > size)
        from = 0; /* another log's pages, or a log started over */
    stats->from_size = from;
    stats->size = size;
    {
        struct kix_bytes js;
        int have;
        kix_buf_reset(&mark);
        have = kix_file_read(path_js(&x, path, sizeof(path)), 1 << 20, &mark, NULL) == KIX_OK;
        kix_page_script(&js);
        if (!have && kix_dir_make(dir, 0755, err) != KIX_OK)
            rc = KIX_EIO;
        else if (!have || mark.len != js.len || memcmp(mark.ptr, js.ptr, js.len) != 0)
            rc = kix_file_write_atomic(path, js.ptr, js.len, 0644, err);
        snprintf(path, sizeof(path), "%s/runs/.size", dir);
        if (rc)
            goto out;
    }
    if (from == size)
        goto out;
    /* every run an entry since `from` is about (ranked or not) */
    for (uint64_t i = from; rc == KIX_OK && i < size; i++) {
        struct kix_bytes leaf;
        struct kix_entry_summary e;
        rc = kix_log_reader_entry(x.r, i, &leaf);
        if (rc == KIX_OK && kix_entry_describe(leaf.ptr, leaf.len, &e, NULL) == KIX_OK) {
            if (e.run_id[0])
                rc = idset_add(&x.runs, e.run_id);
            if (rc == KIX_OK && e.new_run_id[0])
                rc = idset_add(&x.runs, e.new_run_id);
        }
    }
    idset_finish(&x.runs);
    /* their groups, and every run in those (ranks move) */
    for (size_t i = 0; rc == KIX_OK && i < x.runs.n; i++) {
        struct kix_run_info info;
        char key[KIX_DIGEST_TEXT_LEN + 1];
        if (kix_index_run(x.r, x.runs.id[i], strlen(x.runs.id[i]), &info) != KIX_OK ||
            !info.grouped)
            continue;
        kix_digest_format(&info.comparison_key, key);
        rc = idset_add(&x.groups, key);
    }
    idset_finish(&x.groups);
    ngroups = x.groups.n;
    for (size_t i = 0; rc == KIX_OK && i < ngroups; i++) {
        struct kix_digest d;
        uint64_t n;
        if (kix_digest_parse(x.groups.id[i], strlen(x.groups.id[i]), &d, NULL) == KIX_OK)
            rc = kix_index_group(x.r, &d, 0, UINT64_MAX, add_group_run, &x, &n);
    }
    idset_finish(&x.runs);
    if (rc) {
        kix_err_set(err, rc, "finding the pages to write: %s", kix_strerror(rc));
        goto out;
    }
    for (size_t i = 0; rc == KIX_OK && i < x.runs.n; i++) {
        const char *id = x.runs.id[i];
        kix_buf_reset(&x.body);
        rc = kix_page_run_html(x.r, id, strlen(id), &x.body, err);
        if (rc == KIX_ENOTFOUND) { /* an entry about a run the index refused */
            rc = KIX_OK;
            continue;
        }
        if (rc == KIX_OK)
            rc = write_page(&x, "runs", id, "");
        kix_buf_reset(&x.body);
        if (rc == KIX_OK)
            rc = kix_page_run_json(x.r, id, strlen(id), &x.body, err);
        if (rc == KIX_OK)
            rc = write_page(&x, "runs", id, ".json");
        if (rc == KIX_OK)
            stats->runs++;
    }
    for (size_t i = 0; rc == KIX_OK && i < x.groups.n; i++) {
        kix_buf_reset(&x.body);
        rc = kix_page_group_html(x.r, x.groups.id[i], strlen(x.groups.id[i]), &x.body, err);
        if (rc == KIX_OK)
            rc = write_page(&x, "groups", x.groups.id[i], "");
        if (rc == KIX_OK)
            stats->groups++;
    }
    kix_buf_reset(&x.body);
    if (rc == KIX_OK)
        rc = kix_page_home_html(x.r, &x.body, err);
    if (rc == KIX_OK)
        rc = write_page(&x, ".", "index", ".html");
    if (rc == KIX_OK) /* the new pages durable before the mark that says they are there */
        rc = kix_dir_sync(dir, err);
    if (rc == KIX_OK) {
        int n = snprintf(text, sizeof(text), "%llu\n", (ULL)size);
        rc = kix_file_write_atomic(path, text, (size_t)n, 0644, err);
    }
out:
    if (x.r)
        kix_log_read_end(x.r);
    kix_buf_release(&x.body);
    kix_buf_release(&mark);
    free(x.runs.id);
    free(x.groups.id);
    return rc;
}
