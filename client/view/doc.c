/* The one JSON writer (every document kix prints: the commands', the
 * views', the pages'), and the one table of words for evidence levels,
 * rerun outcomes and entry types (kix/doc.h). */
#include <stdlib.h>
#include <string.h>

#include "kix/canon.h"
#include "kix/doc.h"
#include "kix/entry.h"

/* Where the writer writes: a buffer, emptied into f (when not NULL) as it
 * fills, so that printing a large document (a resolution of 100,000
 * entries) never holds all its text at once. */
struct sink {
    struct kix_buf *b;
    FILE *f;
};

static int spill(struct sink *out)
{
    if (!out->f || out->b->len < 65536)
        return KIX_OK;
    if (fwrite(out->b->ptr, 1, out->b->len, out->f) != out->b->len)
        return KIX_EIO;
    kix_buf_reset(out->b);
    return KIX_OK;
}

/* A string as RFC 8785 writes one: the two-character escapes, \u00xx for
 * the other controls, UTF-8 as it is, '/' escaped only for HTML. */
static int write_string(const char *s, size_t len, unsigned flags, struct sink *out)
{
    int rc = kix_buf_addc(out->b, '"');
    size_t run = 0; /* bytes since the last escape, added at once */

    for (size_t i = 0; rc == KIX_OK && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'                             ? "\\\""
                          : c == '\\'                          ? "\\\\"
                          : c == '\b'                          ? "\\b"
                          : c == '\f'                          ? "\\f"
                          : c == '\n'                          ? "\\n"
                          : c == '\r'                          ? "\\r"
                          : c == '\t'                          ? "\\t"
                          : c == '/' && (flags & KIX_DOC_HTML) ? "\\/"
                                                               : NULL;
        if (!esc && c >= 0x20) {
            run++;
            continue;
        }
        rc = kix_buf_add(out->b, s + i - run, run);
        run = 0;
        if (rc == KIX_OK)
            rc = esc ? kix_buf_adds(out->b, esc)
                     : kix_buf_addf(out->b, "\\u%04x", c); /* lower case, as RFC 8785 */
    }
    if (rc == KIX_OK)
        rc = kix_buf_add(out->b, s + len - run, run);
    return rc ? rc : kix_buf_addc(out->b, '"');
}

static int newline(unsigned flags, int depth, struct sink *out)
{
    int rc = KIX_OK;

    if (flags & KIX_DOC_INDENT) {
        rc = kix_buf_addc(out->b, '\n');
        for (int i = 0; rc == KIX_OK && i < depth; i++)
            rc = kix_buf_adds(out->b, "  ");
    }
    return rc;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int write_value(const json_t *v, unsigned flags, int depth, struct sink *out);

static int write_object(const json_t *o, unsigned flags, int depth, struct sink *out)
{
    size_t n = json_object_size(o), i = 0;
    const char **keys = n ? malloc(n * sizeof(*keys)) : NULL;
    const char *k;
    json_t *v;
    int rc = n && !keys ? KIX_ENOMEM : kix_buf_addc(out->b, '{');

    json_object_foreach((json_t *)o, k, v)
    {
        if (keys && i < n)
            keys[i++] = k;
    }
    if (flags & KIX_DOC_SORTED && keys)
        qsort(keys, n, sizeof(*keys), by_key);
    for (i = 0; rc == KIX_OK && i < n; i++) {
        if (i)
            rc = kix_buf_addc(out->b, ',');
        if (rc == KIX_OK)
            rc = newline(flags, depth + 1, out);
        if (rc == KIX_OK)
            rc = write_string(keys[i], strlen(keys[i]), flags, out);
        if (rc == KIX_OK)
            rc = kix_buf_adds(out->b, flags & KIX_DOC_INDENT ? ": " : ":");
        if (rc == KIX_OK)
            rc = write_value(json_object_get(o, keys[i]), flags, depth + 1, out);
        if (rc == KIX_OK)
            rc = spill(out);
    }
    if (rc == KIX_OK && n)
        rc = newline(flags, depth, out);
    free(keys);
    return rc ? rc : kix_buf_addc(out->b, '}');
}

/* Every JSON value kix prints is written here. Numbers as a reader's
 * parser takes them back: integers as they are, a real in the shortest
 * form that reads back as the same double (ES6, kix_canon_number: 11.36,
 * not jansson's 11.359999999999999), as canonical objects hold them. */
static int write_value(const json_t *v, unsigned flags, int depth, struct sink *out)
{
    int rc = KIX_OK;

    if (depth > 256)
        return KIX_ELIMIT;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return write_object(v, flags, depth, out);
    case JSON_ARRAY:
        rc = kix_buf_addc(out->b, '[');
        for (size_t i = 0; rc == KIX_OK && i < json_array_size(v); i++) {
            if (i)
                rc = kix_buf_addc(out->b, ',');
            if (rc == KIX_OK)
                rc = newline(flags, depth + 1, out);
            if (rc == KIX_OK)
                rc = write_value(json_array_get(v, i), flags, depth + 1, out);
            if (rc == KIX_OK)
                rc = spill(out);
        }
        if (rc == KIX_OK && json_array_size(v))
            rc = newline(flags, depth, out);
        return rc ? rc : kix_buf_addc(out->b, ']');
    case JSON_STRING:
        return write_string(json_string_value(v), json_string_length(v), flags, out);
    case JSON_INTEGER: {
        char n[24];
        int len = snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return kix_buf_add(out->b, n, (size_t)len);
    }
    case JSON_REAL:
        return kix_canon_number(json_real_value(v), out->b) == KIX_OK
                   ? KIX_OK
                   : kix_buf_adds(out->b, "null");
    case JSON_TRUE:
        return kix_buf_adds(out->b, "true");
    case JSON_FALSE:
        return kix_buf_adds(out->b, "false");
    default:
        return kix_buf_adds(out->b, "null");
    }
}

int kix_doc_dumps(const json_t *doc, unsigned flags, struct kix_buf *out, struct kix_err *err)
{
    struct sink to = {out, NULL};
    int rc = doc ? write_value(doc, flags, 0, &to) : KIX_ENOMEM;

    if (rc == KIX_ELIMIT)
        return kix_err_set(err, rc, "a JSON document nested deeper than 256 levels");
    return rc ? kix_err_set(err, rc, "out of memory writing a JSON document") : KIX_OK;
}

int kix_doc_print(const json_t *doc, unsigned flags, FILE *f)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct sink to = {&text, f};
    int rc = doc ? write_value(doc, flags, 0, &to) : KIX_ENOMEM;

    if (rc == KIX_OK)
        rc = kix_buf_addc(&text, '\n');
    if (rc == KIX_OK && fwrite(text.ptr, 1, text.len, f) != text.len)
        rc = KIX_EIO;
    kix_buf_release(&text);
    return rc == KIX_ELIMIT ? KIX_EINVAL : rc;
}

/* The words kix shows people for each evidence level, in the CLI's text,
 * kix show, the run view's evidenceText, the pages, and (a copy the test
 * js.words holds to this one) the browser verifier's evidenceText. */
const struct kix_words_row kix_words_table[KIX_WORDS_EVIDENCE] = {
    /* a rerun's outcome reads as the wire names it (the run page's reruns
     * table, kix show, kix resolve; the verified page writes the same) */
    {KIX_EVIDENCE_REPORTED, "reported", "Reported evidence", "reported"},
    {KIX_EVIDENCE_REPRODUCED, "reproduced", "Reproduced by a controlled rerun", "reproduced"},
    {KIX_EVIDENCE_NOT_REPRODUCED, "not_reproduced", "Not reproduced by a controlled rerun",
     "not_reproduced"},
    {KIX_EVIDENCE_FAILED, "failed", "Controlled rerun failed", "failed"},
};

const char *kix_words_evidence(int evidence)
{
    return evidence > 0 && evidence < KIX_WORDS_EVIDENCE ? kix_words_table[evidence].words
                                                         : kix_words_table[0].words;
}

void kix_words_evidence_on(int evidence, const char *day, char *out, size_t cap)
{
    /* "reported" rests on no rerun: no day */
    int dated = day && *day && evidence > 0 && evidence < KIX_WORDS_EVIDENCE;

    snprintf(out, cap, "%s%s%.10s", kix_words_evidence(evidence), dated ? " on " : "",
             dated ? day : "");
}

const char *kix_words_outcome(int outcome)
{
    return outcome >= 0 && outcome < KIX_WORDS_EVIDENCE ? kix_words_table[outcome].outcome
                                                        : kix_evidence_name(outcome);
}

const char *kix_words_entry_type(int type)
{
    return kix_entry_type_name(type);
}
