/* RFC 4180 record reader (see kix/csv.h). */
#include "kix/csv.h"

#include <stdlib.h>
#include <string.h>

void kix_csv_init(struct kix_csv *c, const char *data, size_t len)
{
    memset(c, 0, sizeof(*c));
    c->start = c->p = data;
    c->end = data + len;
    c->line = 1;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        c->p += 3;
}

void kix_csv_release(struct kix_csv *c)
{
    kix_buf_release(&c->cells);
    free(c->offs);
    free(c->lens);
    free(c->fields);
    c->offs = c->lens = NULL;
    c->fields = NULL;
    c->cap = 0;
}

size_t kix_csv_line(const struct kix_csv *c)
{
    return c->line;
}

size_t kix_csv_offset(const struct kix_csv *c)
{
    return (size_t)(c->p - c->start);
}

/* After an error: go on at the line after the bad byte. */
static int fail(struct kix_csv *c, int code)
{
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (nl) {
        c->p = nl + 1;
        c->line++;
    } else {
        c->p = c->end;
    }
    return code;
}

/* Ends the field that started at cells offset `start`: NUL, offset, length. */
static int record_field(struct kix_csv *c, size_t *n, size_t start, struct kix_err *err)
{
    if (*n >= KIX_CSV_MAX_FIELDS)
        return kix_err_set(err, KIX_ELIMIT, "line %zu: record has more than %d fields", c->line,
                           KIX_CSV_MAX_FIELDS);
    if (c->cells.len > KIX_CSV_MAX_RECORD)
        return kix_err_set(err, KIX_ELIMIT, "line %zu: record longer than %u bytes", c->line,
                           KIX_CSV_MAX_RECORD);
    if (*n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        size_t *o = realloc(c->offs, cap * sizeof(*o));
        if (o)
            c->offs = o;
        size_t *l = realloc(c->lens, cap * sizeof(*l));
        if (l)
            c->lens = l;
        const char **f = realloc(c->fields, cap * sizeof(*f));
        if (f)
            c->fields = f;
        if (!o || !l || !f)
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        c->cap = cap;
    }
    c->offs[*n] = start;
    c->lens[*n] = c->cells.len - start;
    if (kix_buf_addc(&c->cells, 0))
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    (*n)++;
    return KIX_OK;
}

/* A quoted field: c->p is just past the opening quote. */
static int quoted(struct kix_csv *c, size_t nfield, struct kix_err *err)
{
    size_t open_line = c->line;
    for (;;) {
        const char *q = c->p;
        while (q < c->end && *q != '"') {
            if (*q == '\n')
                c->line++;
            q++;
        }
        if (kix_buf_add(&c->cells, c->p, (size_t)(q - c->p)))
            return kix_err_set(err, KIX_ENOMEM, "out of memory");
        if (c->cells.len > KIX_CSV_MAX_RECORD) {
            c->p = q;
            return fail(c, kix_err_set(err, KIX_ELIMIT, "line %zu: record longer than %u bytes",
                                       c->line, KIX_CSV_MAX_RECORD));
        }
        if (q == c->end) {
            c->p = c->end;
            return kix_err_set(err, KIX_EINVAL,
                               "line %zu: field %zu opens a quote that is never closed (the input "
                               "ends inside it); close it with '\"'",
                               open_line, nfield);
        }
        if (q + 1 < c->end && q[1] == '"') {
            if (kix_buf_addc(&c->cells, '"'))
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
            c->p = q + 2;
            continue;
        }
        c->p = q + 1;
        return KIX_OK;
    }
}

int kix_csv_next(struct kix_csv *c, struct kix_csv_record *rec, struct kix_err *err)
{
    size_t n = 0;
    int rc;

    memset(rec, 0, sizeof(*rec));
    if (c->p >= c->end)
        return 0;
    kix_buf_reset(&c->cells);
    rec->line = c->line;
    for (;;) {
        size_t start = c->cells.len;
        if (c->p < c->end && *c->p == '"') {
            c->p++;
            rc = quoted(c, n + 1, err);
            if (rc)
                return rc;
            if (c->p < c->end && *c->p != ',' && *c->p != '\n' &&
                !(*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n'))
                return fail(c, kix_err_set(err, KIX_EINVAL,
                                           "line %zu: field %zu has '%c' after its closing quote; "
                                           "a quoted field must end at a comma or the line end "
                                           "(write a quote inside it as '\"\"')",
                                           c->line, n + 1, *c->p));
        } else {
            const char *q = c->p;
            while (q < c->end && *q != ',' && *q != '\n' && *q != '\r' && *q != '"')
                q++;
            if (kix_buf_add(&c->cells, c->p, (size_t)(q - c->p)))
                return kix_err_set(err, KIX_ENOMEM, "out of memory");
            c->p = q;
            if (q < c->end && *q == '"')
                return fail(c, kix_err_set(err, KIX_EINVAL,
                                           "line %zu: field %zu has a quote inside an unquoted "
                                           "field; quote the whole field and double the quotes "
                                           "inside it",
                                           c->line, n + 1));
            if (q < c->end && *q == '\r' && !(q + 1 < c->end && q[1] == '\n'))
                return fail(c, kix_err_set(err, KIX_EINVAL,
                                           "line %zu: field %zu has a carriage return not "
                                           "followed by a line feed; records end in CRLF or LF",
                                           c->line, n + 1));
        }
        rc = record_field(c, &n, start, err);
        if (rc)
            return rc == KIX_ENOMEM ? rc : fail(c, rc);
        if (c->p >= c->end)
            break;
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        c->p += *c->p == '\r' ? 2 : 1; /* CRLF or LF */
        c->line++;
        break;
    }
    for (size_t i = 0; i < n; i++)
        c->fields[i] = (const char *)c->cells.ptr + c->offs[i];
    rec->nfields = n;
    rec->fields = c->fields;
    rec->lens = c->lens;
    return 1;
}
