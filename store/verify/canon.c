/* RFC 8785 (JCS) canonical JSON: jansson parses, this file only writes;
 * and a one-pass recogniser of text that is canonical already
 * (kix_canon_is_canonical, at the end), which builds the document's tree
 * in the same pass when asked (kix_canon_recognise_tree).
 *
 * A pre-scan runs before jansson sees the bytes, for the checks jansson
 * cannot make or cannot place: nesting depth (so a hostile document never
 * reaches a recursive parser deep), integer literals beyond 2^53 (jansson
 * would quietly keep them as int64, which JSON numbers in JCS are not: one is
 * kept only when it is a double's exact value or its canonical form, so that
 * canonical output always reads back as itself, and rewritten as a real when
 * jansson could not hold it), and NUL bytes outside strings (jansson 2.14
 * skips one that follows a number or a literal). Every other number is the
 * double nearest its text, as in RFC 8785.
 */
#include "kix/canon.h"

#include <assert.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"
#include "kix/json.h"
#include "memo_internal.h"

#define MAX_SAFE_INTEGER 9007199254740992.0 /* 2^53 */

static size_t opt_max_bytes(const struct kix_canon_opts *o)
{
    return o && o->max_bytes ? o->max_bytes : KIX_CANON_DEFAULT_MAX_BYTES;
}

static unsigned opt_max_depth(const struct kix_canon_opts *o)
{
    return o && o->max_depth ? o->max_depth : KIX_CANON_DEFAULT_MAX_DEPTH;
}

/* An integer literal (no fraction, no exponent) starting at p: is its
 * magnitude beyond 2^53? Compared as digit strings, since the double
 * conversion itself would round the very values we look for. */
static int integer_literal_too_big(const char *p, size_t len)
{
    static const char limit[] = "9007199254740992";
    size_t i = 0, ndigits = 0;

    if (i < len && p[i] == '-')
        i++;
    while (i + 1 < len && p[i] == '0')
        i++; /* leading zeros are invalid JSON anyway; jansson reports them */
    while (i + ndigits < len && p[i + ndigits] >= '0' && p[i + ndigits] <= '9')
        ndigits++;
    if (ndigits != sizeof(limit) - 1)
        return ndigits > sizeof(limit) - 1;
    return memcmp(p + i, limit, ndigits) > 0;
}

/* An integer literal beyond 2^53 (sign, then digits without a leading zero)
 * is kept when it denotes a double without rounding it, or when it is the
 * canonical (ES6) form of a double: 333333333333333300000 is what JCS writes
 * for -3.333333333333333e+20's magnitude and must read back as itself.
 * Anything else (9007199254740993) would change value silently. Returns 1 to
 * keep it (with its double in *d), 0 to refuse it, -1 when out of memory. */
static int big_integer_is_double(const char *p, size_t len, double *d)
{
    struct kix_buf t = KIX_BUF_INIT;
    size_t sign = len && p[0] == '-', i;
    int keep = 0, rc;
    char *end;

    if (len <= sign || p[sign] == '0')
        return 0; /* not a JSON integer; the parser says why */
    for (i = sign; i < len; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    rc = kix_buf_add(&t, p + sign, len - sign);
    if (rc)
        goto out;
    *d = strtod((const char *)t.ptr, &end);
    if (end != (char *)t.ptr + t.len || !isfinite(*d))
        goto out;
    kix_buf_reset(&t);
    rc = kix_buf_addf(&t, "%.0f", *d); /* its exact decimal value */
    if (rc)
        goto out;
    keep = t.len == len - sign && memcmp(t.ptr, p + sign, t.len) == 0;
    kix_buf_reset(&t);
    rc = keep ? KIX_OK : kix_canon_number(*d, &t);
    if (rc)
        goto out;
    keep = keep || (t.len == len - sign && memcmp(t.ptr, p + sign, t.len) == 0);
out:
    kix_buf_release(&t);
    return rc ? -1 : keep;
}

/* Rewrites a kept integer literal of 19 or more digits, which jansson could
 * not hold as an int64, in place into the same double in exponent form
 * (digits "e" exponent, then spaces): 333333333333333300000 becomes
 * "3333333333333333e5   ", which jansson reads as a real. The shortest
 * digits number at most 17, so the exponent form is never longer. */
static void rewrite_as_real(char *p, size_t len, double d)
{
    char tmp[40], digits[24], *e, *q = p;
    size_t k = 0;
    int exp10;

    if (*q == '-')
        q++;
    for (int prec = 0; prec <= 16; prec++) { /* the shortest that reads back */
        snprintf(tmp, sizeof(tmp), "%.*e", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    e = strchr(tmp, 'e');
    for (char *c = tmp; c < e; c++)
        if (*c >= '0' && *c <= '9')
            digits[k++] = *c;
    exp10 = atoi(e + 1) - (int)(k - 1);
    k = (size_t)snprintf(tmp, sizeof(tmp), "%.*se%d", (int)k, digits, exp10);
    assert(k <= len - (size_t)(q - p));
    memcpy(q, tmp, k);
    memset(q + k, ' ', len - (size_t)(q - p) - k);
}

/* Depth and big-integer checks with byte offsets; everything else is left
 * to the parser. Strings are skipped with their escapes. A kept integer
 * literal that jansson cannot read is rewritten (rewrite_as_real) in a copy
 * of the text made on first need: *copy is NULL or that copy (the caller's
 * to free), of the same length. */
static int prescan(const char *s, size_t len, unsigned max_depth, char **copy, struct kix_err *err)
{
    unsigned depth = 0;
    size_t i = 0;

    *copy = NULL;
    while (i < len) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < len && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            i++;
            continue;
        }
        if (c == '\0') /* jansson 2.14 drops a NUL right after a number or literal */
            return kix_err_set(err, KIX_EINVAL, "invalid JSON: NUL byte at byte %zu", i);
        if (c == '[' || c == '{') {
            if (++depth > max_depth)
                return kix_err_set(
                    err, KIX_ELIMIT,
                    "nesting deeper than %u levels at byte %zu; flatten the document", max_depth,
                    i);
        } else if (c == ']' || c == '}') {
            if (depth)
                depth--;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i, end = i + 1;
            int is_integer = 1, keep;
            double d = 0;
            while (end < len && s[end] && strchr("0123456789+-.eE", s[end])) {
                if (s[end] == '.' || s[end] == 'e' || s[end] == 'E' || s[end] == '+' ||
                    s[end] == '-')
                    is_integer = 0;
                end++;
            }
            size_t neg = s[start] == '-';
            if (end - start > neg + 1 && s[start + neg] == '0')
                is_integer = 0; /* a leading zero: invalid JSON, the parser reports it */
            if (is_integer && integer_literal_too_big(s + start, end - start)) {
                keep = big_integer_is_double(s + start, end - start, &d);
                if (keep < 0)
                    return kix_err_set(err, KIX_ENOMEM, "out of memory reading a number");
                if (!keep)
                    return kix_err_set(
                        err, KIX_EINVAL,
                        "integer %.*s at byte %zu is beyond 2^53 and is not the value of a "
                        "double, nor the canonical form of one, so a JSON number cannot hold it "
                        "exactly; send it as a string",
                        (int)(end - start > 40 ? 40 : end - start), s + start, start);
                if (end - start - (s[start] == '-') >= 19) {
                    if (!*copy) {
                        *copy = malloc(len ? len : 1);
                        if (!*copy)
                            return kix_err_set(err, KIX_ENOMEM, "out of memory reading a number");
                        memcpy(*copy, s, len);
                    }
                    rewrite_as_real(*copy + start, end - start, d);
                }
            }
            i = end;
            continue;
        }
        i++;
    }
    return KIX_OK;
}

static int parse_error(const json_error_t *je, struct kix_err *err)
{
    const char *cause;

    switch (json_error_code(je)) {
    case json_error_invalid_utf8:
        cause = "invalid UTF-8";
        break;
    case json_error_duplicate_key:
        cause = "duplicate object key";
        break;
    case json_error_numeric_overflow:
        cause = "number out of range (NaN and Infinity are not JSON; send large integers as "
                "strings)";
        break;
    case json_error_null_byte_in_key:
        cause = "NUL character in an object key";
        break;
    default:
        cause = "invalid JSON";
        break;
    }
    return kix_err_set(err, KIX_EINVAL, "%s at byte %d (line %d, column %d): %s", cause,
                       je->position, je->line, je->column, je->text);
}

/* UTF-8 → next UTF-16 code unit pair of the code point (lo is 0 in the BMP). */
static void next_utf16(const unsigned char **p, const unsigned char *end, unsigned *hi,
                       unsigned *lo)
{
    const unsigned char *s = *p;
    unsigned cp;

    if (s[0] < 0x80) {
        cp = s[0];
        s += 1;
    } else if ((s[0] & 0xE0) == 0xC0 && s + 1 < end) {
        cp = ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        s += 2;
    } else if ((s[0] & 0xF0) == 0xE0 && s + 2 < end) {
        cp = ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        s += 3;
    } else if (s + 3 < end) {
        cp = ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
             (s[3] & 0x3Fu);
        s += 4;
    } else {
        cp = s[0];
        s = end;
    }
    *p = s;
    if (cp < 0x10000) {
        *hi = cp;
        *lo = 0;
    } else {
        cp -= 0x10000;
        *hi = 0xD800 + (cp >> 10);
        *lo = 0xDC00 + (cp & 0x3FF);
    }
}

struct member {
    const char *key;
    size_t key_len;
    json_t *value;
};

/* RFC 8785 §3.2.3: sort by UTF-16 code units, not by UTF-8 bytes. */
static int compare_utf16(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    const unsigned char *p = (const unsigned char *)x->key, *pe = p + x->key_len;
    const unsigned char *q = (const unsigned char *)y->key, *qe = q + y->key_len;
    unsigned ph = 0, pl = 0, qh = 0, ql = 0;
    int p_pending = 0, q_pending = 0;

    for (;;) {
        unsigned pu, qu;
        if (!p_pending && p == pe)
            return (!q_pending && q == qe) ? 0 : -1;
        if (!q_pending && q == qe)
            return 1;
        if (p_pending) {
            pu = pl;
            p_pending = 0;
        } else {
            next_utf16(&p, pe, &ph, &pl);
            pu = ph;
            p_pending = pl != 0;
        }
        if (q_pending) {
            qu = ql;
            q_pending = 0;
        } else {
            next_utf16(&q, qe, &qh, &ql);
            qu = qh;
            q_pending = ql != 0;
        }
        if (pu != qu)
            return pu < qu ? -1 : 1;
    }
}

int kix_canon_string(const char *s, size_t len, struct kix_buf *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    int rc = kix_buf_addc(out, '"');

    for (size_t i = 0; rc == KIX_OK && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[7];
        size_t esc_len = 2;

        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rc = kix_buf_add(out, s + run, i - run);
        if (rc)
            break;
        run = i + 1;
        esc[0] = '\\';
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc_len = 6;
            break;
        }
        rc = kix_buf_add(out, esc, esc_len);
    }
    if (rc == KIX_OK)
        rc = kix_buf_add(out, s + run, len - run);
    if (rc == KIX_OK)
        rc = kix_buf_addc(out, '"');
    return rc;
}

/* Shortest digits that round-trip (the correctly rounded %.*e of the least
 * precision that reads back exactly), as ES6 requires. Reading back is
 * monotonic in the precision (more correctly rounded digits are never
 * further from v), so the least one is found by bisection: 4-5 rounds of
 * snprintf and strtod instead of up to 17 for a 17-digit measurement.
 * Most numbers (a measurement typed or printed with at most 15 significant
 * digits) take one round: when 15 digits read back, their trailing zeros
 * stripped are the shortest, since two decimals of at most 15 significant
 * digits (DBL_DIG) never read as the same double. */
static int shortest_digits(double v, char *digits, int *ndigits, int *exp10)
{
    char tmp[40];
    int lo = 0, hi = 16, k = 0, fast = 0;
    char *e;

    if (v >= DBL_MIN) { /* not subnormal, where fewer digits are exact */
        snprintf(tmp, sizeof(tmp), "%.14e", v);
        fast = strtod(tmp, NULL) == v;
        /* else 15 digits are too few, and so is any fewer (monotonic) */
        lo = fast ? 14 : 15;
        hi = fast ? 14 : 16;
    }
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof(tmp), "%.*e", mid, v);
        if (strtod(tmp, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (!fast)
        snprintf(tmp, sizeof(tmp), "%.*e", lo, v);
    e = strchr(tmp, 'e');
    if (!e)
        return KIX_EINVAL;
    for (char *p = tmp; p < e; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    digits[k] = '\0';
    *ndigits = k;
    *exp10 = atoi(e + 1) + 1; /* value = 0.d1d2... x 10^exp10 */
    return KIX_OK;
}

int kix_canon_number(double v, struct kix_buf *out)
{
    char digits[24];
    int k, n, rc;

    if (!isfinite(v))
        return KIX_EINVAL;
    if (v == 0)
        return kix_buf_addc(out, '0');
    if (v < 0) {
        rc = kix_buf_addc(out, '-');
        if (rc)
            return rc;
        v = -v;
    }
    if (v < MAX_SAFE_INTEGER && v == floor(v))
        return kix_buf_addf(out, "%.0f", v);
    rc = shortest_digits(v, digits, &k, &n);
    if (rc)
        return rc;
    /* ECMA-262 Number::toString, steps for k digits with decimal exponent n. */
    if (k <= n && n <= 21) {
        rc = kix_buf_add(out, digits, (size_t)k);
        for (int i = 0; rc == KIX_OK && i < n - k; i++)
            rc = kix_buf_addc(out, '0');
    } else if (0 < n && n <= 21) {
        rc = kix_buf_addf(out, "%.*s.%s", n, digits, digits + n);
    } else if (-6 < n && n <= 0) {
        rc = kix_buf_adds(out, "0.");
        for (int i = 0; rc == KIX_OK && i < -n; i++)
            rc = kix_buf_addc(out, '0');
        if (rc == KIX_OK)
            rc = kix_buf_adds(out, digits);
    } else if (k == 1) {
        rc = kix_buf_addf(out, "%ce%c%d", digits[0], n - 1 >= 0 ? '+' : '-', abs(n - 1));
    } else {
        rc = kix_buf_addf(out, "%c.%se%c%d", digits[0], digits + 1, n - 1 >= 0 ? '+' : '-',
                          abs(n - 1));
    }
    return rc;
}

static int write_value(const json_t *v, struct kix_buf *out);

static int write_object(const json_t *obj, struct kix_buf *out)
{
    size_t n = json_object_size(obj), i = 0;
    struct member *members = NULL;
    const char *key;
    json_t *value;
    int rc;

    if (n == 0)
        return kix_buf_add(out, "{}", 2);
    members = malloc(n * sizeof(*members));
    if (!members)
        return KIX_ENOMEM;
    json_object_foreach((json_t *)obj, key, value)
    {
        members[i].key = key;
        members[i].key_len = json_object_iter_key_len(json_object_key_to_iter(key));
        members[i].value = value;
        i++;
    }
    qsort(members, n, sizeof(*members), compare_utf16);
    rc = kix_buf_addc(out, '{');
    for (i = 0; rc == KIX_OK && i < n; i++) {
        if (i)
            rc = kix_buf_addc(out, ',');
        if (rc == KIX_OK)
            rc = kix_canon_string(members[i].key, members[i].key_len, out);
        if (rc == KIX_OK)
            rc = kix_buf_addc(out, ':');
        if (rc == KIX_OK)
            rc = write_value(members[i].value, out);
    }
    if (rc == KIX_OK)
        rc = kix_buf_addc(out, '}');
    free(members);
    return rc;
}

static int write_value(const json_t *v, struct kix_buf *out)
{
    int rc;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return write_object(v, out);
    case JSON_ARRAY:
        rc = kix_buf_addc(out, '[');
        for (size_t i = 0; rc == KIX_OK && i < json_array_size(v); i++) {
            if (i)
                rc = kix_buf_addc(out, ',');
            if (rc == KIX_OK)
                rc = write_value(json_array_get(v, i), out);
        }
        return rc ? rc : kix_buf_addc(out, ']');
    case JSON_STRING:
        return kix_canon_string(json_string_value(v), json_string_length(v), out);
    case JSON_INTEGER:
        /* beyond 2^53 an integer is a double (prescan kept only those) */
        if (json_integer_value(v) > (json_int_t)MAX_SAFE_INTEGER ||
            json_integer_value(v) < -(json_int_t)MAX_SAFE_INTEGER)
            return kix_canon_number((double)json_integer_value(v), out);
        return kix_buf_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL:
        return kix_canon_number(json_real_value(v), out);
    case JSON_TRUE:
        return kix_buf_add(out, "true", 4);
    case JSON_FALSE:
        return kix_buf_add(out, "false", 5);
    case JSON_NULL:
        return kix_buf_add(out, "null", 4);
    }
    return KIX_EINVAL;
}

int kix_canon_write_tree(const json_t *value, struct kix_buf *out)
{
    return write_value(value, out);
}

int kix_canon_parse_tree(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                         json_t **value, struct kix_err *err)
{
    json_error_t je;
    char *copy = NULL;
    json_t *v;
    int rc;

    *value = NULL;
    if (len > opt_max_bytes(opts))
        return kix_err_set(err, KIX_ELIMIT, "document is %zu bytes, over the limit of %zu bytes",
                           len, opt_max_bytes(opts));
    rc = prescan((const char *)json, len, opt_max_depth(opts), &copy, err);
    if (rc) {
        free(copy);
        return rc;
    }
    v = json_loadb(copy ? copy : (const char *)json, len,
                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    free(copy);
    if (!v)
        return parse_error(&je, err);
    if (!json_is_object(v) && !(opts && opts->allow_any_top)) {
        json_decref(v);
        return kix_err_set(err, KIX_EINVAL,
                           "top level is not a JSON object; a manifest must be an object {...}");
    }
    *value = v;
    return KIX_OK;
}

/* ---- the one-pass recogniser, which builds the tree as it goes ------------------ */

/* kix_canon_is_canonical walks the bytes once; asked for the tree too
 * (kix_canon_recognise_tree), the same walk builds it, so a document is
 * never walked a second time to be read (the tree was built by a second
 * pass of its own: callgrind of an audit, 42k instructions a manifest on
 * top of the recogniser's 20k). The canonical grammar is small (no
 * whitespace, JCS escapes, numbers in kix_canon_number's form), and the
 * tree is json_loadb's of the same bytes: every string and key the same
 * bytes, an integer literal of up to 18 digits a JSON_INTEGER and any other
 * number a JSON_REAL of strtod's value (what prescan and jansson make of
 * them). When the tree leaves that subset (or memory runs out) the walk
 * goes on recognising without it, and the caller parses in full. */

#define REC_MAX_DEPTH 64 /* deeper documents go to kix_canon */

struct rec {
    const unsigned char *p, *end;
    unsigned depth, max_depth;
    int build;     /* building the tree: cleared when it cannot be built */
    int loadb;     /* json_loadb(flags 0)'s tree or none: no NUL in a string, no long integer */
    char *scratch; /* an escaped string's bytes (at most the document's length), on first need */
    size_t len;
};

/* A string literal in JCS escaping at r->p (the opening quote), valid
 * UTF-8. Sets *s, *n to its raw content and *escaped when it has an
 * escape; key: no \u0000 (the parser refuses a NUL in a key). */
static int rec_string(struct rec *r, int key, const unsigned char **s, size_t *n, int *escaped)
{
    const unsigned char *p = r->p + 1, *start = p;

    *escaped = 0;

    for (;;) {
        if (p == r->end)
            return 0;
        if (*p == '"')
            break;
        if (*p < 0x20)
            return 0;
        if (*p == '\\') {
            if (r->end - p < 2)
                return 0;
            *escaped = 1;
            switch (p[1]) {
            case '"':
            case '\\':
            case 'b':
            case 't':
            case 'n':
            case 'f':
            case 'r':
                p += 2;
                continue;
            case 'u': {
                /* \u00xx, lowercase, only for controls without a short escape */
                static const char hex[] = "0123456789abcdef";
                const char *hi, *lo;
                unsigned v;
                if (r->end - p < 6 || p[2] != '0' || p[3] != '0' || !p[4] || !p[5] ||
                    !(hi = strchr(hex, p[4])) || !(lo = strchr(hex, p[5])))
                    return 0;
                v = (unsigned)((hi - hex) << 4 | (lo - hex));
                if (v >= 0x20 || v == '\b' || v == '\t' || v == '\n' || v == '\f' || v == '\r' ||
                    (key && v == 0))
                    return 0;
                p += 6;
                continue;
            }
            default:
                return 0;
            }
        }
        p++;
    }
    /* escapes are ASCII, so the whole content is UTF-8 checked at once
     * (kix_utf8_valid refuses a raw NUL, which cannot occur here) */
    if (!kix_utf8_valid((const char *)start, (size_t)(p - start)))
        return 0;
    *s = start;
    *n = (size_t)(p - start);
    r->p = p + 1;
    return 1;
}

/* Whether the grammatical number literal [p, q) is -I.F as kix_canon_number
 * writes it, without formatting it: no exponent, F not ending in 0, at most
 * 15 significant digits (DBL_DIG: the double nearest to such a decimal
 * prints back as these very digits, and no shorter string reaches it, so
 * its shortest digits are these) and at least 10^-6 (below, ECMA-262
 * writes an exponent). Anything else is left to the formatter. */
static int plain_decimal_is_canonical(const unsigned char *p, const unsigned char *q)
{
    const unsigned char *dot, *f;
    size_t significant;

    if (*p == '-')
        p++;
    for (dot = p; dot < q && *dot >= '0' && *dot <= '9'; dot++)
        ;
    if (dot == q || *dot != '.' || q[-1] == '0')
        return 0;
    for (f = dot + 1; f < q; f++)
        if (*f < '0' || *f > '9')
            return 0;
    if (*p != '0') {
        significant = (size_t)(q - p) - 1;
    } else {
        for (f = dot + 1; f < q && *f == '0'; f++)
            ;
        if (f - (dot + 1) > 5)
            return 0;
        significant = (size_t)(q - f);
    }
    return significant <= 15;
}

#define REC_KEY_MAX 256 /* longer keys with escapes go to kix_canon */

/* The value of a string with escapes (rec_string checked them) into out. */
static size_t unescape(const unsigned char *s, size_t n, unsigned char *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            out[k++] = s[i];
            continue;
        }
        switch (s[++i]) {
        case 'b':
            out[k++] = '\b';
            break;
        case 't':
            out[k++] = '\t';
            break;
        case 'n':
            out[k++] = '\n';
            break;
        case 'f':
            out[k++] = '\f';
            break;
        case 'r':
            out[k++] = '\r';
            break;
        case 'u': /* \u00xx, lowercase hex */
            out[k++] =
                (unsigned char)((s[i + 3] <= '9' ? s[i + 3] - '0' : s[i + 3] - 'a' + 10) << 4 |
                                (s[i + 4] <= '9' ? s[i + 4] - '0' : s[i + 4] - 'a' + 10));
            i += 4;
            break;
        default: /* '"' and '\\' */
            out[k++] = s[i];
            break;
        }
    }
    return k;
}

/* The integer literal [p, q) of at most 18 digits (strtoll's value: no
 * overflow). */
static json_int_t integer_value(const unsigned char *p, const unsigned char *q)
{
    int negative = *p == '-';
    json_int_t v = 0;

    for (p += negative; p < q; p++)
        v = v * 10 + (*p - '0');
    return negative ? -v : v;
}

/* The tree's value of the recognised number token [p, q): digits only
 * (plain) or not; tmp holds its text when not plain. */
static json_t *number_value(struct rec *r, const unsigned char *p, const unsigned char *q,
                            int plain, const char *tmp, const double *real)
{
    size_t digits = (size_t)(q - p) - (*p == '-');

    if (plain && digits < 19)
        return json_integer(integer_value(p, q));
    /* an integer literal of 19 digits or more is a real (prescan); to
     * json_loadb an integer, or too big: not for this walk to say */
    if (plain && r->loadb)
        return NULL;
    return json_real(real ? *real : strtod(tmp, NULL));
}

/* A number token that is exactly kix_canon_number of the double it reads
 * as: plain safe integers directly, anything else through strtod and the
 * writer (so the rules cannot drift apart). */
static int rec_number(struct rec *r, json_t **out)
{
    const unsigned char *p = r->p, *q = p;
    int plain = 1;
    char tmp[400];
    double d;
    const double *real = NULL;
    size_t n;

    if (q < r->end && *q == '-')
        q++;
    if (q == r->end || *q < '0' || *q > '9')
        return 0;
    if (*q == '0' && q + 1 < r->end && q[1] >= '0' && q[1] <= '9')
        return 0; /* a leading zero */
    while (q < r->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
                          *q == '+' || *q == '-')) {
        if (*q < '0' || *q > '9')
            plain = 0;
        q++;
    }
    n = (size_t)(q - p);
    if (plain && n - (*p == '-') <= 15 && !(n == 2 && p[0] == '-' && p[1] == '0')) {
        r->p = q; /* |v| < 10^15 < 2^53: "%.0f" writes these very digits */
        if (r->build)
            *out = json_integer(integer_value(p, q));
        return 1;
    }
    if (n >= sizeof(tmp))
        return 0;
    {
        /* strict JSON grammar first: strtod accepts more (hex, inf, ".5") */
        const unsigned char *g = p + (*p == '-');
        if (*g == '0')
            g++;
        else
            while (g < q && *g >= '0' && *g <= '9')
                g++;
        if (g < q && *g == '.') {
            const unsigned char *f = ++g;
            while (g < q && *g >= '0' && *g <= '9')
                g++;
            if (g == f)
                return 0;
        }
        if (g < q && (*g == 'e' || *g == 'E')) {
            const unsigned char *x;
            g++;
            if (g < q && (*g == '+' || *g == '-'))
                g++;
            x = g;
            while (g < q && *g >= '0' && *g <= '9')
                g++;
            if (g == x)
                return 0;
        }
        if (g != q)
            return 0;
    }
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    if (!plain_decimal_is_canonical(p, q)) {
        struct kix_buf b = KIX_BUF_INIT;
        int same;
        d = strtod(tmp, NULL);
        same = kix_canon_number(d, &b) == KIX_OK && b.len == n && memcmp(b.ptr, p, n) == 0;
        kix_buf_release(&b);
        if (!same)
            return 0;
        real = &d; /* the node's value: strtod once */
    }
    r->p = q;
    if (r->build)
        *out = number_value(r, p, q, plain, tmp, real);
    return 1;
}

static int rec_value(struct rec *r, json_t **out);

/* A string value's node: its bytes in the document, or decoded into the
 * scratch when it has escapes. */
static json_t *string_value(struct rec *r, const unsigned char *s, size_t n, int escaped)
{
    if (!escaped)
        return json_stringn_nocheck((const char *)s, n);
    if (!r->scratch && !(r->scratch = malloc(r->len)))
        return NULL;
    n = unescape(s, n, (unsigned char *)r->scratch);
    if (r->loadb && memchr(r->scratch, 0, n))
        return NULL; /* json_loadb refuses "\u0000" without JSON_ALLOW_NUL */
    return json_stringn_nocheck(r->scratch, n);
}

static int rec_object(struct rec *r, json_t **out)
{
    unsigned char bufs[2][REC_KEY_MAX];
    const unsigned char *prev = NULL, *key;
    size_t prev_len = 0, key_len;
    int escaped, which = 0, ok = 0;
    json_t *obj = NULL;

    if (r->build && !(obj = json_object()))
        r->build = 0;
    r->p++;
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        ok = 1;
        goto out;
    }
    for (;;) {
        json_t *v = NULL;
        if (r->p == r->end || *r->p != '"' || !rec_string(r, 1, &key, &key_len, &escaped))
            goto out;
        if (escaped) {
            /* compare the key's value: into the buffer prev does not use */
            if (key_len > REC_KEY_MAX)
                goto out;
            key_len = unescape(key, key_len, bufs[which]);
            key = bufs[which];
            which ^= 1;
        }
        if (prev) {
            /* strictly increasing in UTF-16 code units: sorted, no duplicate */
            struct member a = {(const char *)prev, prev_len, NULL};
            struct member b = {(const char *)key, key_len, NULL};
            if (compare_utf16(&a, &b) >= 0)
                goto out;
        }
        prev = key;
        prev_len = key_len;
        if (r->p == r->end || *r->p != ':')
            goto out;
        r->p++;
        if (!rec_value(r, &v))
            goto out;
        /* (a key holds no NUL: rec_string refused \u0000 in it) */
        if (r->build && json_object_setn_new_nocheck(obj, (const char *)key, key_len, v) != 0)
            r->build = 0;
        if (r->p == r->end)
            goto out;
        if (*r->p == '}') {
            r->p++;
            ok = 1;
            goto out;
        }
        if (*r->p != ',')
            goto out;
        r->p++;
    }
out:
    if (ok && r->build)
        *out = obj;
    else
        json_decref(obj);
    return ok;
}

static int rec_array(struct rec *r, json_t **out)
{
    json_t *arr = NULL;
    int ok = 0;

    if (r->build && !(arr = json_array()))
        r->build = 0;
    r->p++;
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        ok = 1;
        goto out;
    }
    for (;;) {
        json_t *v = NULL;
        if (!rec_value(r, &v))
            goto out;
        if (r->build && json_array_append_new(arr, v) != 0)
            r->build = 0;
        if (r->p == r->end)
            goto out;
        if (*r->p == ']') {
            r->p++;
            ok = 1;
            goto out;
        }
        if (*r->p != ',')
            goto out;
        r->p++;
    }
out:
    if (ok && r->build)
        *out = arr;
    else
        json_decref(arr);
    return ok;
}

static int rec_literal(struct rec *r, const char *word, size_t n)
{
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return 0;
    r->p += n;
    return 1;
}

/* One value at r->p: 1 when it is canonical. Building, *out is its new
 * node, or NULL with r->build cleared when it has none. */
static int rec_value(struct rec *r, json_t **out)
{
    const unsigned char *s;
    size_t n;
    int ok, escaped;

    *out = NULL;
    if (r->p == r->end)
        return 0;
    switch (*r->p) {
    case '{':
    case '[':
        if (++r->depth > r->max_depth)
            return 0;
        ok = *r->p == '{' ? rec_object(r, out) : rec_array(r, out);
        r->depth--;
        return ok;
    case '"':
        ok = rec_string(r, 0, &s, &n, &escaped);
        if (ok && r->build && !(*out = string_value(r, s, n, escaped)))
            r->build = 0;
        return ok;
    case 't':
        ok = rec_literal(r, "true", 4);
        if (ok && r->build)
            *out = json_true();
        return ok;
    case 'f':
        ok = rec_literal(r, "false", 5);
        if (ok && r->build)
            *out = json_false();
        return ok;
    case 'n':
        ok = rec_literal(r, "null", 4);
        if (ok && r->build)
            *out = json_null();
        return ok;
    default:
        ok = rec_number(r, out);
        if (ok && r->build && !*out)
            r->build = 0;
        return ok;
    }
}

/* The walk: 1 when canonical; building (tree not NULL), *tree its tree or
 * NULL when it has none in the subset. */
static int recognise(const uint8_t *json, size_t len, const struct kix_canon_opts *opts, int loadb,
                     json_t **tree)
{
    struct rec r;
    json_t *v = NULL;
    int ok;

    if (tree)
        *tree = NULL;
    if (len == 0 || len > opt_max_bytes(opts) || (json[0] != '{' && !(opts && opts->allow_any_top)))
        return 0;
    r.p = json;
    r.end = json + len;
    r.depth = 0;
    r.max_depth = opt_max_depth(opts) < REC_MAX_DEPTH ? opt_max_depth(opts) : REC_MAX_DEPTH;
    r.build = tree && json[0] == '{'; /* the tree of an object alone */
    r.loadb = loadb;
    r.scratch = NULL;
    r.len = len;
    ok = rec_value(&r, &v) && r.p == r.end;
    free(r.scratch);
    if (ok && tree)
        *tree = v;
    else
        json_decref(v);
    return ok;
}

int kix_canon_is_canonical(const uint8_t *json, size_t len, const struct kix_canon_opts *opts)
{
    return recognise(json, len, opts, 0, NULL);
}

int kix_canon_recognise_tree(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                             int *canonical, json_t **value, struct kix_err *err)
{
    *value = NULL;
    *canonical = recognise(json, len, opts, 0, value);
    if (*canonical && !*value) /* not the one-pass subset: the full parse, its errors */
        return kix_canon_parse_tree(json, len, opts, value, err);
    return KIX_OK;
}

int kix_canon_parse_canonical(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
                              json_t **value, struct kix_err *err)
{
    int canonical;
    int rc = kix_canon_recognise_tree(json, len, opts, &canonical, value, err);

    /* the caller's promise (what makes this tree json_loadb's), checked
     * where the tests run */
    assert(canonical);
    if (rc == KIX_OK && !canonical)
        rc = kix_canon_parse_tree(json, len, opts, value, err);
    return rc;
}

json_t *kix__json_tree_canonical(const uint8_t *json, size_t len)
{
    /* canonical bytes (sorted keys: no duplicate), whose tree is built
     * here as json_loadb builds it, or nothing: the caller parses them */
    json_t *tree = NULL;

    if (json)
        recognise(json, len, NULL, 1, &tree);
    return tree;
}

int kix_canon(const uint8_t *json, size_t len, const struct kix_canon_opts *opts,
              struct kix_buf *out, struct kix_err *err)
{
    json_t *v;
    int rc = kix_canon_parse_tree(json, len, opts, &v, err);

    if (rc)
        return rc;
    rc = write_value(v, out);
    json_decref(v);
    if (rc)
        return kix_err_set(err, rc, "writing canonical form: %s", kix_strerror(rc));
    return KIX_OK;
}
