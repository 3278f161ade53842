/* Signed notes, checkpoints, verifier and signer keys: kix_note_open against
 * fixed keys (the seed log's, its witness's, two golang.org/x/mod test keys),
 * then strict parses whose output must format back to the input exactly. */
#include "fuzz.h"

static struct kix_verifier known[4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct kix_note note;
    struct kix_checkpoint cp;
    struct kix_verifier v;
    struct kix_signer *s = NULL;
    struct kix_buf out = KIX_BUF_INIT;

    if (!known[0].alg) {
        known[0] = fuzz_verifier(FUZZ_LOG_VKEY);
        known[1] = fuzz_verifier(FUZZ_WITNESS_VKEY);
        known[2] =
            fuzz_verifier("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
        known[3] =
            fuzz_verifier("sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8");
    }
    if (kix_note_open(text, size, known, 4, &note, NULL) == KIX_OK) {
        if (note.nverified == 0 || note.text.ptr != data || note.text.len >= size)
            abort();
        if (kix_checkpoint_parse((const char *)note.text.ptr, note.text.len, &cp, NULL)) {
        }
    }
    if (kix_checkpoint_parse(text, size, &cp, NULL) == KIX_OK &&
        (kix_checkpoint_format(&cp, &out, NULL) != KIX_OK || out.len != size ||
         memcmp(out.ptr, data, size) != 0))
        abort();
    kix_buf_reset(&out);
    if (kix_verifier_parse(text, size, &v, NULL) == KIX_OK &&
        (kix_verifier_format(&v, &out) != KIX_OK || out.len != size ||
         memcmp(out.ptr, data, size) != 0))
        abort();
    kix_buf_reset(&out);
    if (kix_signer_parse(text, size, &s, NULL) == KIX_OK &&
        (kix_signer_format_private(s, &out) != KIX_OK ||
         out.len + (text[size - 1] == '\n') != size || memcmp(out.ptr, data, out.len) != 0))
        abort();
    if (out.ptr)
        memset(out.ptr, 0, out.cap); /* held a private key */
    kix_signer_free(s);
    kix_buf_release(&out);
    return 0;
}
