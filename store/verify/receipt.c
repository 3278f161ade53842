/* C2SP tlog-proof receipts: format, strict parse, offline verification. */
#include "kix/receipt.h"

#include <stdlib.h>
#include <string.h>

#include "kix/encoding.h"

void kix_receipt_init(struct kix_receipt *r)
{
    memset(r, 0, sizeof(*r));
    kix_buf_init(&r->entry);
}

void kix_receipt_release(struct kix_receipt *r)
{
    kix_buf_release(&r->entry);
    kix_receipt_init(r);
}

int kix_receipt_format(uint64_t index, const struct kix_hash *proof, size_t nproof,
                       const uint8_t *entry, size_t entry_len, const char *note, size_t note_len,
                       struct kix_buf *out)
{
    int rc = kix_buf_adds(out, KIX_RECEIPT_HEADER "\n");
    if (rc == KIX_OK && entry) {
        rc = kix_buf_adds(out, "extra ");
        if (rc == KIX_OK)
            rc = kix_base64_encode(entry, entry_len, out);
        if (rc == KIX_OK)
            rc = kix_buf_addc(out, '\n');
    }
    if (rc == KIX_OK)
        rc = kix_buf_addf(out, "index %llu\n", (unsigned long long)index);
    for (size_t i = 0; rc == KIX_OK && i < nproof; i++) {
        rc = kix_base64_encode(proof[i].b, 32, out);
        if (rc == KIX_OK)
            rc = kix_buf_addc(out, '\n');
    }
    if (rc == KIX_OK)
        rc = kix_buf_addc(out, '\n');
    if (rc == KIX_OK)
        rc = kix_buf_add(out, note, note_len);
    return rc;
}

/* The next "\n"-terminated line of [*pos, end); NULL at a missing newline. */
static const char *next_line(const char **pos, const char *end, size_t *len)
{
    const char *start = *pos, *nl = memchr(start, '\n', (size_t)(end - start));
    if (!nl)
        return NULL;
    *len = (size_t)(nl - start);
    *pos = nl + 1;
    return start;
}

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
        return KIX_EINVAL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return KIX_EINVAL;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return KIX_OK;
}

int kix_receipt_parse(const char *text, size_t len, struct kix_receipt *out, struct kix_err *err)
{
    const char *pos = text, *end = text + len, *line;
    size_t n;
    int rc;

    kix_receipt_release(out);
    if (len > KIX_RECEIPT_MAX_BYTES)
        return kix_err_set(err, KIX_ELIMIT, "receipt is over %u bytes", KIX_RECEIPT_MAX_BYTES);
    line = next_line(&pos, end, &n);
    if (!line || n != strlen(KIX_RECEIPT_HEADER) || memcmp(line, KIX_RECEIPT_HEADER, n) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "malformed receipt: the first line must be " KIX_RECEIPT_HEADER);
    line = next_line(&pos, end, &n);
    if (line && n > 6 && memcmp(line, "extra ", 6) == 0) {
        size_t cap = (n - 6) / 4 * 3 + 3, dec = 0;
        rc = kix_buf_grow(&out->entry, cap);
        if (rc)
            return kix_err_set(err, rc, "out of memory");
        if (kix_base64_decode_std((const char *)line + 6, n - 6, out->entry.ptr, cap, &dec) != 0 ||
            dec > cap)
            return kix_err_set(err, KIX_EINVAL, "malformed receipt: bad base64 in the extra line");
        out->entry.len = dec;
        line = next_line(&pos, end, &n);
    }
    if (!line || n < 7 || memcmp(line, "index ", 6) != 0 ||
        parse_u64(line + 6, n - 6, &out->index) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL, "malformed receipt: expected \"index N\"");
    for (;;) {
        size_t dec = 0;
        line = next_line(&pos, end, &n);
        if (!line)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed receipt: no blank line before the checkpoint");
        if (n == 0)
            break;
        if (out->nproof == KIX_MERKLE_MAX_PROOF)
            return kix_err_set(err, KIX_ELIMIT, "malformed receipt: more than %d proof hashes",
                               KIX_MERKLE_MAX_PROOF);
        if (n != 44 ||
            kix_base64_decode_std((const char *)line, n, out->proof[out->nproof].b, 32, &dec) !=
                0 ||
            dec != 32)
            return kix_err_set(err, KIX_EINVAL,
                               "malformed receipt: proof line %zu is not a base64 SHA-256 hash",
                               out->nproof + 1);
        out->nproof++;
    }
    out->checkpoint.ptr = (const uint8_t *)pos;
    out->checkpoint.len = (size_t)(end - pos);
    if (out->checkpoint.len == 0)
        return kix_err_set(err, KIX_EINVAL, "malformed receipt: the checkpoint is missing");
    return KIX_OK;
}

int kix_receipt_verify(const char *text, size_t len, const struct kix_verifier *log_key,
                       const uint8_t *entry, size_t entry_len, struct kix_receipt *out,
                       struct kix_checkpoint *cp_out, struct kix_err *err)
{
    struct kix_note note;
    struct kix_checkpoint cp;
    struct kix_hash leaf, root;
    int rc = kix_receipt_parse(text, len, out, err);

    if (rc)
        return rc;
    if (!entry && out->entry.len == 0)
        return kix_err_set(err, KIX_EINVAL,
                           "the receipt carries no entry; give the entry with --entry FILE");
    if (entry && out->entry.len &&
        (entry_len != out->entry.len || memcmp(entry, out->entry.ptr, entry_len) != 0))
        return kix_err_set(err, KIX_EVERIFY,
                           "the given entry differs from the one the receipt carries");
    if (!entry) {
        entry = out->entry.ptr;
        entry_len = out->entry.len;
    }
    rc = kix_checkpoint_open((const char *)out->checkpoint.ptr, out->checkpoint.len, log_key, 1,
                             log_key->name, &note, &cp, err);
    if (rc) {
        kix_err_wrap(err, "receipt checkpoint");
        return rc;
    }
    kix_merkle_leaf_hash(entry, entry_len, &leaf);
    memcpy(root.b, cp.root, 32);
    rc = kix_merkle_verify_inclusion(out->index, cp.size, &leaf, out->proof, out->nproof, &root,
                                     err);
    if (rc) {
        kix_err_wrap(err, "entry %llu is not proven in the checkpoint of size %llu",
                     (unsigned long long)out->index, (unsigned long long)cp.size);
        return rc;
    }
    if (cp_out)
        *cp_out = cp;
    return KIX_OK;
}
