/* C2SP tlog-checkpoint note bodies: origin, tree size, root hash, extensions. */
#include "kix/note.h"

#include <inttypes.h>
#include <string.h>

#include "kix/encoding.h"
#include "note_impl.h"

#define ROOT_B64_LEN 44 /* base64 of 32 bytes */

/* Valid UTF-8 without control characters (the line's "\n" excluded). */
static int line_chars_ok(const uint8_t *s, size_t len)
{
    size_t i = 0, n;
    uint32_t c;

    while (i < len) {
        n = kix__utf8_next(s + i, len - i, &c);
        if (n == 0 || c < 0x20)
            return 0;
        i += n;
    }
    return 1;
}

/* Extension lines: each non-empty, valid, ending in "\n". Returns the bad
 * line's number (1-based) or 0 when all are fine. */
static size_t bad_extension_line(const uint8_t *p, size_t len)
{
    size_t pos = 0, lineno = 0;

    while (pos < len) {
        const uint8_t *nl = memchr(p + pos, '\n', len - pos);
        size_t n;
        lineno++;
        if (!nl)
            return lineno;
        n = (size_t)(nl - (p + pos));
        if (n == 0 || !line_chars_ok(p + pos, n))
            return lineno;
        pos += n + 1;
    }
    return 0;
}

int kix_checkpoint_format(const struct kix_checkpoint *cp, struct kix_buf *out, struct kix_err *err)
{
    size_t olen = strnlen(cp->origin, sizeof(cp->origin)), start = out->len, bad;
    int rc;

    if (olen == 0 || olen > KIX_NOTE_NAME_MAX)
        return kix_err_set(err, KIX_EINVAL, "checkpoint origin must be 1 to %d bytes",
                           KIX_NOTE_NAME_MAX);
    if (!line_chars_ok((const uint8_t *)cp->origin, olen))
        return kix_err_set(err, KIX_EINVAL,
                           "checkpoint origin must be UTF-8 without control characters");
    if (cp->extensions.len && (bad = bad_extension_line(cp->extensions.ptr, cp->extensions.len)))
        return kix_err_set(err, KIX_EINVAL,
                           "checkpoint extension line %zu must be non-empty UTF-8 without control "
                           "characters, ending in a newline",
                           bad);
    rc = kix_buf_add(out, cp->origin, olen);
    if (!rc)
        rc = kix_buf_addf(out, "\n%" PRIu64 "\n", cp->size);
    if (!rc)
        rc = kix_base64_encode(cp->root, sizeof(cp->root), out);
    if (!rc)
        rc = kix_buf_addc(out, '\n');
    if (!rc && cp->extensions.len)
        rc = kix_buf_add(out, cp->extensions.ptr, cp->extensions.len);
    if (rc) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
        return kix_err_set(err, rc, "out of memory formatting a checkpoint");
    }
    return KIX_OK;
}

/* Next line of [*pos, len): sets *line and *n (without "\n"); -1 when no "\n". */
static int next_line(const uint8_t *p, size_t len, size_t *pos, const uint8_t **line, size_t *n)
{
    const uint8_t *nl;

    if (*pos >= len)
        return -1;
    nl = memchr(p + *pos, '\n', len - *pos);
    if (!nl)
        return -1;
    *line = p + *pos;
    *n = (size_t)(nl - *line);
    *pos += *n + 1;
    return 0;
}

int kix_checkpoint_parse(const char *text, size_t len, struct kix_checkpoint *out,
                         struct kix_err *err)
{
    const uint8_t *p = (const uint8_t *)text, *line;
    size_t pos = 0, n, root_len = 0, bad;
    uint64_t size = 0;

    if (len > KIX_NOTE_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT, "checkpoint of %zu bytes is over the %u-byte limit",
                           len, KIX_NOTE_MAX_BYTES);
    if (next_line(p, len, &pos, &line, &n) != 0)
        return kix_err_set(err, KIX_EINVAL, "malformed checkpoint: no origin line");
    if (n == 0)
        return kix_err_set(err, KIX_EINVAL, "malformed checkpoint: empty origin");
    if (n > KIX_NOTE_NAME_MAX)
        return kix_err_set(err, KIX_EINVAL, "malformed checkpoint: origin longer than %d bytes",
                           KIX_NOTE_NAME_MAX);
    if (!line_chars_ok(line, n))
        return kix_err_set(err, KIX_EINVAL,
                           "malformed checkpoint: origin is not UTF-8 without control characters");
    memcpy(out->origin, line, n);
    out->origin[n] = '\0';

    if (next_line(p, len, &pos, &line, &n) != 0)
        return kix_err_set(err, KIX_EINVAL, "malformed checkpoint: no tree size line");
    if (n == 0 || (n > 1 && line[0] == '0'))
        return kix_err_set(err, KIX_EINVAL,
                           "malformed checkpoint: tree size must be decimal without leading zeros");
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)line[i] - '0';
        if (d > 9)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed checkpoint: tree size must be decimal digits");
        if (size > (UINT64_MAX - d) / 10)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed checkpoint: tree size does not fit in 64 bits");
        size = size * 10 + d;
    }
    out->size = size;

    if (next_line(p, len, &pos, &line, &n) != 0)
        return kix_err_set(err, KIX_EINVAL, "malformed checkpoint: no root hash line");
    if (n != ROOT_B64_LEN ||
        kix_base64_decode_std((const char *)line, n, out->root, sizeof(out->root), &root_len) !=
            0 ||
        root_len != sizeof(out->root))
        return kix_err_set(err, KIX_EINVAL,
                           "malformed checkpoint: root hash must be 32 bytes in standard base64");

    out->extensions.ptr = p + pos;
    out->extensions.len = len - pos;
    if (out->extensions.len && (bad = bad_extension_line(p + pos, len - pos)))
        return kix_err_set(err, KIX_EINVAL,
                           "malformed checkpoint: extension line %zu must be non-empty UTF-8 "
                           "without control characters, ending in a newline",
                           bad);
    return KIX_OK;
}

int kix_checkpoint_sign(const struct kix_checkpoint *cp, const struct kix_signer *log_key,
                        struct kix_buf *out, struct kix_err *err)
{
    size_t start = out->len;
    int rc;

    rc = kix_checkpoint_format(cp, out, err);
    if (!rc)
        rc = kix__note_sign_in_place(out, start, log_key, err);
    if (rc) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return rc;
}

int kix_checkpoint_open(const char *note, size_t len, const struct kix_verifier *known,
                        size_t nknown, const char *origin, struct kix_note *note_out,
                        struct kix_checkpoint *cp_out, struct kix_err *err)
{
    int rc;

    rc = kix_note_open(note, len, known, nknown, note_out, err);
    if (rc)
        return rc;
    rc = kix_checkpoint_parse((const char *)note_out->text.ptr, note_out->text.len, cp_out, err);
    if (rc)
        return rc;
    if (origin && strcmp(origin, cp_out->origin) != 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "checkpoint origin \"%s\" is not the expected log \"%s\"",
                           cp_out->origin, origin);
    return KIX_OK;
}
