/* The pages' template engine (kix/template.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/template.h"

struct slot {
    char *name;
    size_t len;            /* strlen(name): compared first, a lookup a slot */
    char *text;            /* a text slot, or NULL for a section */
    struct kix_tpl **rows; /* a section's rows */
    size_t nrows, cap;
    struct slot *next;
};

/* Every slot, name, text and row of a tree is carved from its root's
 * chunks and freed with them: a run page's tree has about 270 slots, and
 * their three allocations each, freed one by one, were a tenth of an
 * export's instructions. */
struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
};

#define CHUNK_BYTES (16u << 10)

struct kix_tpl {
    struct slot *slots;
    const struct kix_tpl *parent; /* set while rendering a row */
    struct chunk **chunks;        /* the root's list, shared by its rows */
    struct chunk *own;            /* the root's: the list's head */
};

static void *carve(struct kix_tpl *t, size_t n)
{
    struct chunk *c = *t->chunks;
    const size_t align = sizeof(max_align_t);
    void *p;

    n = (n + align - 1) / align * align;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK_BYTES / 4 ? n : CHUNK_BYTES;
        struct chunk *fresh = malloc(sizeof(*fresh) + cap);
        if (!fresh)
            return NULL;
        fresh->used = 0;
        fresh->cap = cap;
        /* a large piece gets a chunk of its own behind the current one,
         * which keeps its room for the small pieces to come */
        if (c && cap != CHUNK_BYTES) {
            fresh->next = c->next;
            c->next = fresh;
        } else {
            fresh->next = c;
            *t->chunks = fresh;
        }
        c = fresh;
    }
    p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

struct kix_tpl *kix_tpl_new(void)
{
    struct kix_tpl *t = calloc(1, sizeof(struct kix_tpl));

    if (t)
        t->chunks = &t->own;
    return t;
}

void kix_tpl_free(struct kix_tpl *t)
{
    /* a row belongs to its root (kix/template.h): freed with it */
    if (!t || t->chunks != &t->own)
        return;
    while (t->own) {
        struct chunk *c = t->own;
        t->own = c->next;
        free(c);
    }
    free(t);
}

static struct slot *own_slot(const struct kix_tpl *t, const char *name, size_t len)
{
    for (struct slot *s = t->slots; s; s = s->next)
        if (s->len == len && memcmp(s->name, name, len) == 0)
            return s;
    return NULL;
}

/* The slot, here or in an enclosing tree. */
static const struct slot *find(const struct kix_tpl *t, const char *name, size_t len)
{
    for (; t; t = t->parent) {
        const struct slot *s = own_slot(t, name, len);
        if (s)
            return s;
    }
    return NULL;
}

static struct slot *slot_for(struct kix_tpl *t, const char *name)
{
    size_t len = strlen(name);
    struct slot *s = own_slot(t, name, len);

    if (s)
        return s;
    if (!(s = carve(t, sizeof(*s) + len + 1)))
        return NULL;
    memset(s, 0, sizeof(*s));
    s->name = (char *)(s + 1);
    memcpy(s->name, name, len + 1);
    s->len = len;
    s->next = t->slots;
    t->slots = s;
    return s;
}

int kix_tpl_setn(struct kix_tpl *t, const char *name, const char *text, size_t len)
{
    struct slot *s = slot_for(t, name);
    char *copy = s ? carve(t, len + 1) : NULL;

    if (!copy)
        return KIX_ENOMEM;
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    s->text = copy; /* a text set before stays in the chunks till the tree goes */
    return KIX_OK;
}

int kix_tpl_set(struct kix_tpl *t, const char *name, const char *text)
{
    return kix_tpl_setn(t, name, text, strlen(text));
}

int kix_tpl_setf(struct kix_tpl *t, const char *name, const char *fmt, ...)
{
    va_list ap;
    char small[256], *text;
    int n, rc;

    /* most slots set this way are numbers and short words: formatted
     * once, into the stack (a page sets about 30 of them) */
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof(small))
        return kix_tpl_setn(t, name, small, (size_t)n);
    if (n < 0 || !(text = malloc((size_t)n + 1)))
        return KIX_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rc = kix_tpl_setn(t, name, text, (size_t)n);
    free(text);
    return rc;
}

int kix_tpl_section(struct kix_tpl *t, const char *name)
{
    struct slot *s = slot_for(t, name);

    if (!s)
        return KIX_ENOMEM;
    s->text = NULL;
    return KIX_OK;
}

struct kix_tpl *kix_tpl_row(struct kix_tpl *t, const char *name)
{
    struct slot *s = slot_for(t, name);
    struct kix_tpl *row, **rows;

    if (!s || s->text)
        return NULL;
    if (s->nrows == s->cap) { /* doubled: the old array stays in the chunks */
        size_t cap = s->cap ? 2 * s->cap : 8;
        if (!(rows = carve(t, cap * sizeof(*rows))))
            return NULL;
        if (s->nrows)
            memcpy(rows, s->rows, s->nrows * sizeof(*rows));
        s->rows = rows;
        s->cap = cap;
    }
    if (!(row = carve(t, sizeof(*row))))
        return NULL;
    memset(row, 0, sizeof(*row));
    row->chunks = t->chunks;
    s->rows[s->nrows++] = row;
    return row;
}

/* ---- rendering ------------------------------------------------------------------------- */

struct render {
    const char *tpl, *end;
    struct kix_buf *out;
    struct kix_err *err;
};

/* s with each byte in `special` replaced by escape(byte); the bytes
 * between them copied in runs (pages are mostly plain text). */
static int put_escaped(struct kix_buf *out, const char *s, const char *special,
                       const char *(*escape)(char))
{
    int rc = KIX_OK;

    while (rc == KIX_OK && *s) {
        size_t plain = strcspn(s, special);
        rc = kix_buf_add(out, s, plain);
        s += plain;
        if (rc == KIX_OK && *s)
            rc = kix_buf_adds(out, escape(*s++));
    }
    return rc;
}

static const char *html_escape(char c)
{
    return c == '<'   ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '&' ? "&amp;"
           : c == '"' ? "&quot;"
                      : "&#39;";
}

static int put_html(struct kix_buf *out, const char *s)
{
    return put_escaped(out, s, "<>&\"'", html_escape);
}

/* element text (a <pre>'s): quotes need no escaping there, so that the
 * text reads back byte for byte with only &lt; &gt; &amp; undone */
static int put_text(struct kix_buf *out, const char *s)
{
    return put_escaped(out, s, "<>&", html_escape);
}

static const char *json_escape(char c)
{
    return c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026";
}

static int put_json(struct kix_buf *out, const char *s)
{
    return put_escaped(out, s, "<>&", json_escape);
}

/* The first "{{" or "}}" (two) in [p, end), or NULL: templates are bytes
 * with a length, not strings. */
static const char *find2(const char *p, const char *end, char c)
{
    /* memchr for the first byte: a template is mostly markup between tags */
    while (p + 1 < end && (p = memchr(p, c, (size_t)(end - p - 1))) != NULL) {
        if (p[1] == c)
            return p;
        p++;
    }
    return NULL;
}

/* The end of the section opened with tag `name`: the position of its
 * "{{/name}}", counting nested sections of the same name. */
static const char *section_end(const char *p, const char *end, const char *name, size_t len)
{
    int depth = 1;

    while ((p = find2(p, end, '{'))) {
        const char *n = p + 3;
        if (p + 2 < end && (p[2] == '#' || p[2] == '?' || p[2] == '^' || p[2] == '/') &&
            n + len + 2 <= end && memcmp(n, name, len) == 0 && memcmp(n + len, "}}", 2) == 0) {
            depth += p[2] == '/' ? -1 : 1;
            if (depth == 0)
                return p;
        }
        p += 2;
    }
    return NULL;
}

/* The partials ({{>name}}): templates/<name>.html, compiled in. */
extern const unsigned char kix__sweep_figure_html[];
extern const size_t kix__sweep_figure_html_len;

static const struct partial {
    const char *name;
    const unsigned char *text;
    const size_t *len;
} partials[] = {
    {"sweep_figure", kix__sweep_figure_html, &kix__sweep_figure_html_len},
};

static int render(const char *p, const char *end, const struct kix_tpl *t, struct kix_buf *out,
                  int in_partial, struct kix_err *err);

/* {{>name}}: the partial rendered in place, with the data at this point
 * (a section's row inside one); a partial names no other. */
static int render_partial(const char *name, size_t len, const struct kix_tpl *t,
                          struct kix_buf *out, int in_partial, struct kix_err *err)
{
    if (in_partial)
        return kix_err_set(err, KIX_EINVAL, "template: partial {{>%.*s}} inside a partial",
                           (int)len, name);
    for (size_t i = 0; i < sizeof(partials) / sizeof(partials[0]); i++)
        if (strlen(partials[i].name) == len && memcmp(partials[i].name, name, len) == 0)
            return render((const char *)partials[i].text,
                          (const char *)partials[i].text + *partials[i].len, t, out, 1, err);
    return kix_err_set(err, KIX_EINVAL, "template: no partial \"%.*s\"", (int)len, name);
}

static int render(const char *p, const char *end, const struct kix_tpl *t, struct kix_buf *out,
                  int in_partial, struct kix_err *err)
{
    while (p < end) {
        const char *open = find2(p, end, '{'), *close, *name, *body_end;
        const struct slot *s;
        size_t len;
        char kind;
        int rc;

        if (!open)
            open = end;
        if ((rc = kix_buf_add(out, p, (size_t)(open - p))) != KIX_OK)
            return kix_err_set(err, rc, "out of memory");
        if (open == end)
            break;
        if (!(close = find2(open + 2, end, '}')))
            return kix_err_set(err, KIX_EINVAL, "template: an unclosed {{");
        kind = open + 2 < close && strchr("#?^/>", open[2]) ? open[2] : 0;
        name = open + 2 + (kind ? 1 : 0);
        if (!kind && close - name > 5 && memcmp(name, "json ", 5) == 0) {
            kind = 'j';
            name += 5;
        } else if (!kind && close - name > 5 && memcmp(name, "text ", 5) == 0) {
            kind = 't';
            name += 5;
        }
        len = (size_t)(close - name);
        if (kind == '/')
            return kix_err_set(err, KIX_EINVAL, "template: {{/%.*s}} closes no section", (int)len,
                               name);
        if (kind == '>') {
            p = close + 2;
            if ((rc = render_partial(name, len, t, out, in_partial, err)) != KIX_OK)
                return rc;
            continue;
        }
        if (!(s = find(t, name, len)))
            return kix_err_set(err, KIX_EINVAL, "template: no slot \"%.*s\"", (int)len, name);
        p = close + 2;
        if (!kind || kind == 'j' || kind == 't') {
            if (!s->text)
                return kix_err_set(err, KIX_EINVAL, "template: \"%.*s\" is a section", (int)len,
                                   name);
            if ((rc = kind == 'j'   ? put_json(out, s->text)
                      : kind == 't' ? put_text(out, s->text)
                                    : put_html(out, s->text)) != KIX_OK)
                return kix_err_set(err, rc, "out of memory");
            continue;
        }
        if (!(body_end = section_end(p, end, name, len)))
            return kix_err_set(err, KIX_EINVAL, "template: section \"%.*s\" is not closed",
                               (int)len, name);
        if (kind == '#') {
            if (s->text)
                return kix_err_set(err, KIX_EINVAL, "template: \"%.*s\" is not a section", (int)len,
                                   name);
            for (size_t i = 0; i < s->nrows; i++) {
                struct kix_tpl *row = s->rows[i];
                row->parent = t;
                rc = render(p, body_end, row, out, in_partial, err);
                row->parent = NULL;
                if (rc)
                    return rc;
            }
        } else {
            int full = s->text ? s->text[0] != '\0' : s->nrows > 0;
            if (full == (kind == '?') &&
                (rc = render(p, body_end, t, out, in_partial, err)) != KIX_OK)
                return rc;
        }
        p = body_end + len + 5;
    }
    return KIX_OK;
}

int kix_tpl_render(const char *tpl, size_t len, const struct kix_tpl *t, struct kix_buf *out,
                   struct kix_err *err)
{
    return render(tpl, tpl + len, t, out, 0, err);
}
