/* C2SP tlog-tiles resource paths (kix/tlog_path.h). */
#include "kix/tlog_path.h"

#include <stdio.h>
#include <string.h>

unsigned kix_tlog_tile_width(uint64_t size, uint32_t level, uint64_t index)
{
    uint64_t n, first;

    if (level > KIX_TLOG_MAX_LEVEL || 8u * level >= 64u)
        return 0;
    n = size >> (8u * level); /* nodes of tree level 8L */
    if (index > (UINT64_MAX >> 8))
        return 0;
    first = index << 8;
    if (n <= first)
        return 0;
    return n - first >= KIX_TLOG_WIDTH ? KIX_TLOG_WIDTH : (unsigned)(n - first);
}

int kix_tlog_index_format(uint64_t index, char *out, size_t cap)
{
    unsigned groups[7];
    size_t ng = 0, off = 0;

    do {
        groups[ng++] = (unsigned)(index % 1000);
        index /= 1000;
    } while (index > 0);
    for (size_t i = ng; i-- > 0;) {
        int n = snprintf(out + off, cap - off, i ? "x%03u/" : "%03u", groups[i]);
        if (n < 0 || (size_t)n >= cap - off)
            return KIX_ELIMIT;
        off += (size_t)n;
    }
    return KIX_OK;
}

int kix_tlog_path_format(const struct kix_tlog_path *p, char *out, size_t cap)
{
    char n[40];
    int w;

    if (cap == 0)
        return KIX_ELIMIT;
    if (p->kind == KIX_TLOG_CHECKPOINT) {
        w = snprintf(out, cap, "checkpoint");
        return w < 0 || (size_t)w >= cap ? KIX_ELIMIT : KIX_OK;
    }
    if ((p->kind != KIX_TLOG_TILE && p->kind != KIX_TLOG_ENTRIES) || p->width < 1 ||
        p->width > KIX_TLOG_WIDTH || (p->kind == KIX_TLOG_TILE && p->level > KIX_TLOG_MAX_LEVEL))
        return KIX_EINVAL;
    if (kix_tlog_index_format(p->index, n, sizeof(n)) != KIX_OK)
        return KIX_ELIMIT;
    if (p->kind == KIX_TLOG_ENTRIES)
        w = snprintf(out, cap, "tile/entries/%s", n);
    else
        w = snprintf(out, cap, "tile/%u/%s", (unsigned)p->level, n);
    if (w < 0 || (size_t)w >= cap)
        return KIX_ELIMIT;
    if (p->width < KIX_TLOG_WIDTH) {
        size_t off = (size_t)w;
        w = snprintf(out + off, cap - off, ".p/%u", p->width);
        if (w < 0 || (size_t)w >= cap - off)
            return KIX_ELIMIT;
    }
    return KIX_OK;
}

/* A decimal in [lo, hi] without leading zeroes, exactly s[0..len). */
static int parse_small(const char *s, size_t len, unsigned lo, unsigned hi, unsigned *out)
{
    unsigned v = 0;

    if (len == 0 || len > 3 || (len > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parses N ("x001/x234/067") and an optional ".p/W" at s[0..len). */
static int parse_index(const char *s, size_t len, uint64_t *index, unsigned *width)
{
    uint64_t v = 0;
    size_t i = 0, groups = 0;

    *width = KIX_TLOG_WIDTH;
    for (;;) {
        int last = s[i] != 'x';
        unsigned g = 0;

        if (!last)
            i++;
        if (len - i < 3)
            return -1;
        for (int k = 0; k < 3; k++) {
            char c = s[i + (size_t)k];
            if (c < '0' || c > '9')
                return -1;
            g = g * 10 + (unsigned)(c - '0');
        }
        i += 3;
        /* a leading group of zeroes would give the index a second name */
        if (!last && groups == 0 && g == 0)
            return -1;
        if (v > (UINT64_MAX - g) / 1000)
            return -1;
        v = v * 1000 + g;
        groups++;
        if (last)
            break;
        if (i >= len || s[i] != '/')
            return -1;
        i++;
        if (i >= len)
            return -1;
    }
    if (i < len) {
        if (len - i < 4 || memcmp(s + i, ".p/", 3) != 0 ||
            parse_small(s + i + 3, len - i - 3, 1, KIX_TLOG_WIDTH - 1, width) != 0)
            return -1;
    }
    *index = v;
    return 0;
}

int kix_tlog_path_parse(const char *path, size_t len, struct kix_tlog_path *out)
{
    static const char tile[] = "tile/", entries[] = "entries/";
    const char *s;
    size_t rest, l;
    unsigned level;

    memset(out, 0, sizeof(*out));
    if (len == 10 && memcmp(path, "checkpoint", 10) == 0) {
        out->kind = KIX_TLOG_CHECKPOINT;
        return KIX_OK;
    }
    if (len < sizeof(tile) - 1 || memcmp(path, tile, sizeof(tile) - 1) != 0)
        return KIX_EINVAL;
    s = path + sizeof(tile) - 1;
    rest = len - (sizeof(tile) - 1);
    if (rest > sizeof(entries) - 1 && memcmp(s, entries, sizeof(entries) - 1) == 0) {
        out->kind = KIX_TLOG_ENTRIES;
        s += sizeof(entries) - 1;
        rest -= sizeof(entries) - 1;
    } else {
        for (l = 0; l < rest && s[l] != '/'; l++)
            ;
        if (l == rest || parse_small(s, l, 0, KIX_TLOG_MAX_LEVEL, &level) != 0)
            return KIX_EINVAL;
        out->kind = KIX_TLOG_TILE;
        out->level = level;
        s += l + 1;
        rest -= l + 1;
    }
    if (rest == 0 || parse_index(s, rest, &out->index, &out->width) != 0) {
        memset(out, 0, sizeof(*out));
        return KIX_EINVAL;
    }
    return KIX_OK;
}
