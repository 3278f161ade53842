/* A kernel's view (kix/view.h): where it was measured, and its sweeps.
 * A sweep is derived from the groups' parameters, never from how a
 * workload was produced: groups of one GPU, pass, metric and dtype whose
 * workloads differ in exactly one parameter form a sweep over it, so a
 * group is in as many sweeps as it has parameters along which another
 * group differs from it alone (Liger's hidden = 8192, seq = 2048 is in
 * its H sweep and in its T sweep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/json.h"
#include "kix/view.h"
#include "view_internal.h"

#define DOT " \xc2\xb7 "

/* A group of the kernel, by its best run's workload. */
struct kgroup {
    const struct kix_home_row *row;
    json_t *workload; /* owned */
    struct kix__workload_words w;
};

/* A group's place in a would-be sweep: over parameter `name`, at x. */
struct member {
    size_t group;
    const char *name; /* borrows the group's workload */
    json_t *x;        /* too */
    char key[512];    /* GPU, pass, metric, dtype, name, the other parameters */
    char fixed[160];
    size_t sweep; /* in v->sweeps; SIZE_MAX: no sweep (no other x) */
};

struct kpoint {
    size_t sweep;
    char implementation[64], provider[64];
    struct kix_kernel_point p;
    int numeric;
};

struct impl_name {
    struct kix_digest digest;
    char implementation[64], provider[64];
};

struct kbuild {
    struct kix_source *src;
    struct kix_buf scratch; /* an object's bytes, while it is parsed */
    struct kgroup *groups;
    size_t ngroups;
    struct member *members;
    size_t nmembers, members_cap;
    struct kpoint *points;
    size_t npoints, points_cap;
    struct impl_name *impls;
    size_t nimpls, impls_cap;
    struct kix_kernel_view *v;
    /* the group being read, and its first point */
    size_t group_first_point;
};

static json_t *object_json(struct kbuild *b, const char *digest_text)
{
    struct kix_digest d;

    if (!digest_text || kix_digest_parse(digest_text, strlen(digest_text), &d, NULL) != KIX_OK ||
        kix__src_object(b->src, &d, &b->scratch, NULL) != KIX_OK)
        return NULL;
    return kix_json_tree_memo(b->scratch.ptr, b->scratch.len);
}

static json_t *manifest_json(struct kbuild *b, const char *run_id)
{
    struct kix_run_info run;

    if (kix__src_manifest(b->src, run_id, &run, &b->scratch) != KIX_OK)
        return NULL;
    return kix_json_tree_memo(b->scratch.ptr, b->scratch.len);
}

static const char *spec_string(json_t *doc, const char *key)
{
    return json_string_value(json_object_get(json_object_get(doc, "spec"), key));
}

/* The parameters but `name`, in one line. */
static void fixed_text(const struct kix__workload_words *w, const char *name, char *out, size_t cap)
{
    const char *k;
    json_t *x;
    size_t len = 0;

    out[0] = '\0';
    json_object_foreach(w->parameters, k, x)
    {
        char value[64];
        int n;
        if (strcmp(k, name) == 0)
            continue;
        kix__scalar_text(x, value, sizeof(value));
        n = snprintf(out + len, cap - len, "%s%s = %s", len ? DOT : "", k, value);
        if (n < 0 || (size_t)n >= cap - len) {
            out[len] = '\0';
            break;
        }
        len += (size_t)n;
    }
}

/* kix_array_grow for *p: KIX_ENOMEM leaves it as it was. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    void *q = kix_array_grow(*p, cap, n, 16, size);

    if (!q)
        return KIX_ENOMEM;
    *p = q;
    return KIX_OK;
}

/* Every (group, parameter) pair as a would-be sweep member. */
static int add_members(struct kbuild *b, size_t gi)
{
    struct kgroup *g = &b->groups[gi];
    const char *name;
    json_t *x;

    json_object_foreach(g->w.parameters, name, x)
    {
        struct member *m;
        if (!json_is_number(x) && !json_is_string(x) && !json_is_boolean(x))
            continue;
        if (grow((void **)&b->members, &b->members_cap, b->nmembers, sizeof(*b->members)))
            return KIX_ENOMEM;
        m = &b->members[b->nmembers++];
        memset(m, 0, sizeof(*m));
        m->group = gi;
        m->name = name;
        m->x = x;
        m->sweep = SIZE_MAX;
        fixed_text(&g->w, name, m->fixed, sizeof(m->fixed));
        snprintf(m->key, sizeof(m->key), "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", g->row->gpu,
                 g->row->mode, g->row->metric, g->row->dtype, name, m->fixed);
    }
    return KIX_OK;
}

static int member_group_order(const void *a, const void *c)
{
    const struct member *x = a, *y = c;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->sweep > y->sweep) - (x->sweep < y->sweep);
}

static int member_order(const void *a, const void *c)
{
    const struct member *x = a, *y = c;
    int d = strcmp(x->key, y->key);
    return d ? d : (x->group > y->group) - (x->group < y->group);
}

/* Members of one key with two x values or more make a sweep. */
static int make_sweeps(struct kbuild *b)
{
    struct kix_kernel_view *v = b->v;
    size_t cap = 0;

    if (b->nmembers > 1)
        qsort(b->members, b->nmembers, sizeof(*b->members), member_order);
    for (size_t i = 0, end; i < b->nmembers; i = end) {
        const struct member *m = &b->members[i];
        const struct kgroup *g = &b->groups[m->group];
        struct kix_kernel_sweep *s;
        int varies = 0, numeric = 1;
        for (end = i; end < b->nmembers && strcmp(b->members[end].key, m->key) == 0; end++) {
            varies |= !json_equal(b->members[end].x, m->x);
            numeric &= json_is_number(b->members[end].x);
        }
        if (!varies)
            continue;
        if (grow((void **)&v->sweeps, &cap, v->nsweeps, sizeof(*v->sweeps)))
            return KIX_ENOMEM;
        s = &v->sweeps[v->nsweeps];
        memset(s, 0, sizeof(*s));
        memcpy(s->gpu, g->row->gpu, sizeof(s->gpu));
        memcpy(s->mode, g->row->mode, sizeof(s->mode));
        memcpy(s->metric, g->row->metric, sizeof(s->metric));
        memcpy(s->dtype, g->row->dtype, sizeof(s->dtype));
        memcpy(s->fixed, m->fixed, sizeof(s->fixed));
        kix__text_copy(s->x_name, sizeof(s->x_name), m->name);
        s->bytes = g->row->bytes;
        s->numeric_x = numeric;
        for (size_t k = i; k < end; k++)
            b->members[k].sweep = v->nsweeps;
        v->nsweeps++;
    }
    return KIX_OK;
}

/* The implementation a run's manifest names, read once per digest. */
static const struct impl_name *implementation(struct kbuild *b, json_t *manifest)
{
    const char *text = spec_string(manifest, "implementationDigest");
    struct kix_digest d;
    struct impl_name *n;
    json_t *impl;
    const char *s;

    memset(&d, 0, sizeof(d));
    if (text && kix_digest_parse(text, strlen(text), &d, NULL) != KIX_OK)
        memset(&d, 0, sizeof(d));
    for (size_t i = 0; i < b->nimpls; i++)
        if (memcmp(&b->impls[i].digest, &d, sizeof(d)) == 0)
            return &b->impls[i];
    if (grow((void **)&b->impls, &b->impls_cap, b->nimpls, sizeof(*b->impls)))
        return NULL;
    n = &b->impls[b->nimpls++];
    memset(n, 0, sizeof(*n));
    n->digest = d;
    impl = object_json(b, text);
    s = spec_string(impl, "provider");
    kix__text_copy(n->provider, sizeof(n->provider), s ? s : "");
    s = spec_string(impl, "name");
    kix__text_copy(n->implementation, sizeof(n->implementation),
                   s              ? s
                   : *n->provider ? n->provider
                                  : "unnamed");
    json_decref(impl);
    return n;
}

/* The group op (kix/source.h): each run of the group, best first; the first run of
 * each implementation is its point. */
static int add_run(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct kbuild *b = ctx;
    json_t *m = manifest_json(b, run_id);
    const struct impl_name *impl = implementation(b, m);
    struct kpoint *p;

    (void)rank;
    json_decref(m);
    if (!impl)
        return KIX_ENOMEM;
    b->v->runs++;
    for (size_t i = b->group_first_point; i < b->npoints; i++)
        if (strcmp(b->points[i].implementation, impl->implementation) == 0)
            return KIX_OK; /* a slower run of the same implementation */
    if (grow((void **)&b->points, &b->points_cap, b->npoints, sizeof(*b->points)))
        return KIX_ENOMEM;
    p = &b->points[b->npoints++];
    memset(p, 0, sizeof(*p));
    p->sweep = SIZE_MAX; /* placed in each of the group's sweeps after */
    memcpy(p->implementation, impl->implementation, sizeof(p->implementation));
    memcpy(p->provider, impl->provider, sizeof(p->provider));
    p->p.value = value;
    snprintf(p->p.run_id, sizeof(p->p.run_id), "%s", run_id);
    return KIX_OK;
}

/* Sweep, implementation, then x: numbers by value, text by text. */
static int point_order(const void *a, const void *c)
{
    const struct kpoint *x = a, *y = c;
    int d;

    if (x->sweep != y->sweep)
        return x->sweep < y->sweep ? -1 : 1;
    if ((d = strcmp(x->implementation, y->implementation)))
        return d;
    if (x->numeric != y->numeric)
        return x->numeric ? -1 : 1;
    if (x->numeric && x->p.x != y->p.x)
        return x->p.x < y->p.x ? -1 : 1;
    return strcmp(x->p.x_text, y->p.x_text);
}

static int text_cmp(const void *a, const void *c)
{
    return strcmp(*(const char *const *)a, *(const char *const *)c);
}

/* A sweep whose x is not every time a number: each point's x is the
 * position of its text among the sweep's texts. */
static int place_text_x(struct kix_kernel_view *v, struct kix_kernel_sweep *s)
{
    size_t n = 0, first = v->lines[s->first_line].first_point, count = 0;
    const char **texts;

    for (size_t l = 0; l < s->nlines; l++)
        count += v->lines[s->first_line + l].npoints;
    if (!(texts = malloc((count ? count : 1) * sizeof(*texts))))
        return KIX_ENOMEM;
    for (size_t i = 0; i < count; i++)
        texts[i] = v->points[first + i].x_text;
    qsort(texts, count, sizeof(*texts), text_cmp);
    for (size_t i = 0; i < count; i++)
        if (n == 0 || strcmp(texts[n - 1], texts[i]) != 0)
            texts[n++] = texts[i];
    for (size_t i = 0; i < count; i++) {
        struct kix_kernel_point *p = &v->points[first + i];
        const char *const key = p->x_text;
        const char **at = bsearch(&key, texts, n, sizeof(*texts), text_cmp);
        p->x = at ? (double)(at - texts) : 0;
    }
    free(texts);
    return KIX_OK;
}

/* The sorted points cut into lines, and lines into their sweeps. */
static int make_lines(struct kbuild *b)
{
    struct kix_kernel_view *v = b->v;
    size_t lines_cap = 0;
    int rc = KIX_OK;

    if (b->npoints > 1)
        qsort(b->points, b->npoints, sizeof(*b->points), point_order);
    if (b->npoints && !(v->points = calloc(b->npoints, sizeof(*v->points))))
        return KIX_ENOMEM;
    for (size_t i = 0; i < b->npoints; i++) {
        const struct kpoint *p = &b->points[i];
        struct kix_kernel_sweep *s = &v->sweeps[p->sweep];
        struct kix_kernel_line *line = v->nlines ? &v->lines[v->nlines - 1] : NULL;
        if (!line || i == 0 || p->sweep != b->points[i - 1].sweep ||
            strcmp(p->implementation, b->points[i - 1].implementation) != 0) {
            if (grow((void **)&v->lines, &lines_cap, v->nlines, sizeof(*v->lines)))
                return KIX_ENOMEM;
            line = &v->lines[v->nlines++];
            memset(line, 0, sizeof(*line));
            memcpy(line->implementation, p->implementation, sizeof(line->implementation));
            memcpy(line->provider, p->provider, sizeof(line->provider));
            line->first_point = i;
            if (s->nlines++ == 0)
                s->first_line = v->nlines - 1;
        }
        line->npoints++;
        v->points[v->npoints++] = p->p;
    }
    for (size_t i = 0; rc == KIX_OK && i < v->nsweeps; i++)
        if (!v->sweeps[i].numeric_x && v->sweeps[i].nlines)
            rc = place_text_x(v, &v->sweeps[i]);
    return rc;
}

int kix_kernel_view_build(struct kix_source *src, const struct kix_home_view *home,
                          const char *kernel, size_t len, struct kix_kernel_view *v,
                          struct kix_err *err)
{
    struct kbuild b;
    const struct kix_home_count *k = NULL;
    int rc = KIX_OK;

    memset(v, 0, sizeof(*v));
    memset(&b, 0, sizeof(b));
    b.src = src;
    kix_buf_init(&b.scratch);
    b.v = v;
    v->home = home;
    for (size_t i = 0; !k && i < home->nkernels; i++)
        if (strlen(home->kernels[i].name) == len && memcmp(home->kernels[i].name, kernel, len) == 0)
            k = &home->kernels[i];
    if (!k)
        return kix_err_set(err, KIX_ENOTFOUND, "no ranked run of kernel %.*s",
                           (int)(len > 64 ? 64 : len), kernel);
    memcpy(v->kernel, k->name, sizeof(v->kernel));
    v->first_row = k->first_row;
    v->nrows = (size_t)k->groups;
    if (!(b.groups = calloc(v->nrows ? v->nrows : 1, sizeof(*b.groups)))) {
        rc = KIX_ENOMEM;
        goto out;
    }
    /* each group's workload first: the sweeps are the groups' together */
    for (size_t i = 0; rc == KIX_OK && i < v->nrows; i++) {
        struct kgroup *g = &b.groups[b.ngroups++];
        json_t *m = manifest_json(&b, home->rows[v->first_row + i].best);
        g->row = &home->rows[v->first_row + i];
        g->workload = object_json(&b, spec_string(m, "workloadDigest"));
        json_decref(m);
        kix__workload_words(g->workload, &g->w);
        rc = add_members(&b, i);
    }
    if (rc == KIX_OK)
        rc = make_sweeps(&b);
    /* the sweeps made, each group's members together (at = its first) */
    if (rc == KIX_OK && b.nmembers > 1)
        qsort(b.members, b.nmembers, sizeof(*b.members), member_group_order);
    for (size_t i = 0, at = 0; rc == KIX_OK && i < b.ngroups; i++) {
        struct kgroup *g = &b.groups[i];
        struct kix_digest key;
        uint64_t size;
        size_t first, n, swept = 0, from = at, end;
        for (end = at; end < b.nmembers && b.members[end].group == i; end++)
            swept += b.members[end].sweep != SIZE_MAX;
        at = end;
        if (!swept) {
            v->runs += g->row->group_size; /* counted, in no sweep */
            continue;
        }
        if ((rc = kix_digest_parse(g->row->group, strlen(g->row->group), &key, NULL)) != KIX_OK)
            break;
        b.group_first_point = first = b.npoints;
        rc = kix__src_group(src, &key, 0, KIX_VIEW_GROUP_MAX, add_run, &b, &size, NULL);
        if (rc == KIX_OK && size > KIX_VIEW_GROUP_MAX)
            v->runs += size - KIX_VIEW_GROUP_MAX;
        /* the group's best run per implementation, once in each sweep */
        n = b.npoints - first;
        for (size_t k = from, placed = 0; rc == KIX_OK && k < end; k++) {
            const struct member *mb = &b.members[k];
            if (mb->sweep == SIZE_MAX)
                continue;
            for (size_t j = 0; rc == KIX_OK && j < n; j++) {
                struct kpoint *p;
                if (placed && (rc = grow((void **)&b.points, &b.points_cap, b.npoints,
                                         sizeof(*b.points))) != KIX_OK)
                    break;
                p = placed ? &b.points[b.npoints++] : &b.points[first + j];
                if (placed)
                    *p = b.points[first + j];
                p->sweep = mb->sweep;
                p->numeric = json_is_number(mb->x);
                p->p.x = p->numeric ? json_number_value(mb->x) : 0;
                kix__scalar_text(mb->x, p->p.x_text, sizeof(p->p.x_text));
            }
            placed = 1;
        }
    }
    if (rc == KIX_OK)
        rc = make_lines(&b);
out:
    for (size_t i = 0; i < b.ngroups; i++)
        json_decref(b.groups[i].workload);
    free(b.groups);
    free(b.members);
    free(b.points);
    free(b.impls);
    kix_buf_release(&b.scratch);
    if (rc)
        kix_kernel_view_release(v);
    return rc ? kix_err_set(err, rc, "the kernel page: %s", kix_strerror(rc)) : KIX_OK;
}

void kix_kernel_view_release(struct kix_kernel_view *v)
{
    free(v->sweeps);
    free(v->lines);
    free(v->points);
    memset(v, 0, sizeof(*v));
}

static json_t *sweep_json(const struct kix_kernel_view *v, const struct kix_kernel_sweep *s)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s,s:s,s:b},s:s}", "gpu", s->gpu, "pass", s->mode,
                  "metric", s->metric, "dtype", s->dtype, "fixed", s->fixed, "x", "name", s->x_name,
                  "label", s->x_label, "numeric", s->numeric_x, "unit", s->bytes ? "bytes" : "ns");
    json_t *lines = json_array();
    int bad = !o || !lines;

    for (size_t l = 0; !bad && l < s->nlines; l++) {
        const struct kix_kernel_line *line = &v->lines[s->first_line + l];
        json_t *pts = json_array();
        for (size_t i = 0; pts && !bad && i < line->npoints; i++) {
            const struct kix_kernel_point *p = &v->points[line->first_point + i];
            char human[KIX_HUMAN_MAX];
            kix_human((int64_t)p->value, s->bytes, human, sizeof(human));
            bad |= json_array_append_new(pts, json_pack("{s:s,s:I,s:s,s:s}", "x", p->x_text,
                                                        "value", (json_int_t)p->value, "median",
                                                        human, "runId", p->run_id)) != 0;
        }
        bad |= json_array_append_new(lines, json_pack("{s:s,s:s,s:o}", "implementation",
                                                      line->implementation, "provider",
                                                      line->provider, "points", pts)) != 0;
    }
    bad |= kix__json_set(o, "lines", lines);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int kix_kernel_view_json(const struct kix_kernel_view *v, unsigned flags, struct kix_buf *out,
                         struct kix_err *err)
{
    const struct kix_home_view *h = v->home;
    json_t *o = json_object(), *groups = json_array(), *sweeps = json_array(), *gpus = json_array();
    int bad = !o || !groups || !sweeps || !gpus, lean = (flags & KIX_VIEW_JSON_EXPORT) != 0;
    const struct kix_home_count *k = NULL;

    for (size_t i = 0; !k && i < h->nkernels; i++)
        if (h->kernels[i].first_row == v->first_row && h->nrows)
            k = &h->kernels[i];
    bad |= kix__json_set(o, "view", json_string(KIX_VIEW_KERNEL));
    bad |= kix__json_set(o, "origin", json_string(h->origin));
    bad |= kix__json_set(o, "treeSize", json_integer((json_int_t)h->tree_size));
    bad |= kix__json_set(o, "checkpoint",
                         json_stringn((const char *)h->checkpoint.ptr, h->checkpoint.len));
    bad |= kix__json_set(o, "kernel", json_string(v->kernel));
    bad |= kix__json_set(o, "runs", json_integer((json_int_t)v->runs));
    for (size_t g = 0; k && !bad && g < k->ngpus; g++) {
        const struct kix_home_count *c = &h->gpus[k->first_gpu + g];
        json_t *passes = json_array();
        for (size_t i = c->first_row; passes && i < c->first_row + c->groups; i++)
            if (i == c->first_row || strcmp(h->rows[i].mode, h->rows[i - 1].mode) != 0)
                bad |= json_array_append_new(passes, json_string(h->rows[i].mode)) != 0;
        bad |= json_array_append_new(gpus, json_pack("{s:s,s:I,s:I,s:o}", "gpu", c->name, "groups",
                                                     (json_int_t)c->groups, "runs",
                                                     (json_int_t)c->runs, "passes", passes)) != 0;
    }
    bad |= kix__json_set(o, "gpus", gpus);
    /* a static copy's kernel view (KIX_VIEW_JSON_EXPORT) lists no groups,
     * only their number: they are the home view's rows whose kernel is this
     * one, which the copy's home pages and search shards hold; so a new run
     * rewrites its group's row once in the copy, not in the kernel's files
     * too, and those stay O(GPUs and sweeps) */
    if (lean) {
        bad |= kix__json_set(o, "groupCount", json_integer((json_int_t)v->nrows));
        json_decref(groups);
        groups = NULL;
    }
    for (size_t i = 0; !bad && !lean && i < v->nrows; i++) {
        const struct kix_home_row *x = &h->rows[v->first_row + i];
        char human[KIX_HUMAN_MAX];
        kix_human((int64_t)x->value, x->bytes, human, sizeof(human));
        bad |= json_array_append_new(
                   groups,
                   json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:s,s:I,s:s,s:s}", "gpu",
                             x->gpu, "pass", x->mode, "metric", x->metric, "dtype", x->dtype,
                             "workload", x->workload, "group", x->group, "best", x->best,
                             "implementation", x->implementation, "provider", x->provider, "value",
                             (json_int_t)x->value, "unit", x->bytes ? "bytes" : "ns", "median",
                             human, "runs", (json_int_t)x->group_size, "statistic", x->statistic,
                             "source", x->source)) != 0;
    }
    if (!lean)
        bad |= kix__json_set(o, "groups", groups);
    for (size_t i = 0; !bad && i < v->nsweeps; i++)
        if (v->sweeps[i].nlines)
            bad |= json_array_append_new(sweeps, sweep_json(v, &v->sweeps[i])) != 0;
    bad |= kix__json_set(o, "sweeps", sweeps);
    return kix__view_dump(o, bad, flags, out, err);
}
