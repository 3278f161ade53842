/* RFC 8785 (JCS) canonical JSON: jansson parses, this file only writes.
 *
 * A pre-scan runs before jansson sees the bytes, for the checks jansson
 * cannot make or cannot place: nesting depth (so a hostile document never
 * reaches a recursive parser deep), and integer literals beyond 2^53 (jansson
 * would quietly keep them as int64, which JSON numbers in JCS are not), and
 * so that canonical output always reads back as itself, other numbers whose
 * value is an integer beyond 2^53 below 1e21 (JCS would write them as such
 * integer literals), and NUL bytes outside strings (jansson 2.14 skips one
 * that follows a number or a literal).
 */
#include "kix/canon.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"

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

/* A number written with a fraction or an exponent whose double value is
 * beyond 2^53 and below 1e21 (1e17, 1.5e20, 290071992547409922.5): JCS
 * writes such a value as an integer literal beyond 2^53, which
 * integer_literal_too_big refuses, so its canonical form could not be read
 * back. Returns 1 for such a number, 0 otherwise (also for a malformed one,
 * which the parser reports), -1 when out of memory. */
static int real_literal_too_big(const char *p, size_t len)
{
    char small[64], *copy = len < sizeof(small) ? small : malloc(len + 1), *end;
    double v;

    if (!copy)
        return -1;
    memcpy(copy, p, len);
    copy[len] = '\0';
    v = fabs(strtod(copy, &end));
    if (copy != small)
        free(copy);
    return end == copy + len && v > MAX_SAFE_INTEGER && v < 1e21;
}

/* Depth and big-integer checks with byte offsets; everything else is left
 * to the parser. Strings are skipped with their escapes. */
static int prescan(const char *s, size_t len, unsigned max_depth, struct kix_err *err)
{
    unsigned depth = 0;
    size_t i = 0;

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
            int is_integer = 1;
            while (end < len && s[end] && strchr("0123456789+-.eE", s[end])) {
                if (s[end] == '.' || s[end] == 'e' || s[end] == 'E')
                    is_integer = 0;
                end++;
            }
            if (is_integer && integer_literal_too_big(s + start, end - start))
                return kix_err_set(err, KIX_EINVAL,
                                   "integer %.*s at byte %zu is beyond 2^53 and cannot be held "
                                   "exactly by a JSON number; send it as a string",
                                   (int)(end - start > 40 ? 40 : end - start), s + start, start);
            if (!is_integer) {
                int big = real_literal_too_big(s + start, end - start);
                if (big < 0)
                    return kix_err_set(err, KIX_ENOMEM, "out of memory reading a number");
                if (big)
                    return kix_err_set(err, KIX_EINVAL,
                                       "number %.*s at byte %zu is an integer beyond 2^53 as a "
                                       "double, whose canonical form could not be read back "
                                       "exactly; send it as a string",
                                       (int)(end - start > 40 ? 40 : end - start), s + start,
                                       start);
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
 * snprintf and strtod instead of up to 17 for a 17-digit measurement. */
static int shortest_digits(double v, char *digits, int *ndigits, int *exp10)
{
    char tmp[40];
    int lo = 0, hi = 16, k = 0;
    char *e;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof(tmp), "%.*e", mid, v);
        if (strtod(tmp, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
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
    json_t *v;
    int rc;

    *value = NULL;
    if (len > opt_max_bytes(opts))
        return kix_err_set(err, KIX_ELIMIT, "document is %zu bytes, over the limit of %zu bytes",
                           len, opt_max_bytes(opts));
    rc = prescan((const char *)json, len, opt_max_depth(opts), err);
    if (rc)
        return rc;
    v = json_loadb((const char *)json, len,
                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
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
