/* verify_offline — an example third-party program: checks kix output with
 * nothing but the log's verifier key and libkix-verify, the formats library
 * (no database, no network, no kix server).
 *
 *   verify_offline LOG.vkey RECEIPT [CITATION.json]
 *
 * LOG.vkey       the log's verifier key, as `kixd init` prints it
 * RECEIPT        a receipt as `kix receipt N` prints it (C2SP tlog-proof
 *                with the entry in its `extra` line)
 * CITATION.json  a citation as `kix cite --json` writes it; RECEIPT must
 *                then be the receipt of the cited publication at the cited
 *                size: `kix receipt LOGINDEX --size CHECKPOINT.SIZE`
 *
 * The receipt verifies when its checkpoint is signed by the log key and its
 * entry is included at its index in that checkpoint's tree. The citation
 * verifies when its checkpoint note is signed by the log key, the receipt's
 * entry sits at the cited logIndex of the cited tree (its inclusion proof
 * folds to the cited root), and that entry is the publication of the cited
 * runId whose subject is the cited digest.
 *
 * What this cannot know offline: whether the log still holds that tree
 * today (`kix verify-citation` asks the log for a consistency proof), and
 * whether the entry's signer was entitled to publish (the log checked that
 * when it appended the entry; `kix audit` replays it).
 *
 * Exit status: 0 verified, 1 does not verify, 2 usage or unreadable input.
 * Build: make (tools/examples/Makefile, pkg-config kix-verify jansson).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kix/digest.h>
#include <kix/dsse.h>
#include <kix/entry.h>
#include <kix/merkle.h>
#include <kix/note.h>
#include <kix/receipt.h>

#define PROG "verify_offline"

enum { VERIFIED = 0, NOT_VERIFIED = 1, USAGE = 2 };

static int usage(void)
{
    fprintf(stderr, "usage: " PROG " LOG.vkey RECEIPT [CITATION.json]\n"
                    "Verifies a kix receipt (kix receipt N) and, if given, a citation\n"
                    "(kix cite --json) offline against the log's verifier key.\n"
                    "exit status: 0 verified, 1 does not verify, 2 usage or unreadable input\n");
    return USAGE;
}

static int not_verified(const char *what, const char *why)
{
    printf("NOT VERIFIED: %s: %s\n", what, why);
    return NOT_VERIFIED;
}

/* Reads a whole file (at most max bytes) into a NUL-terminated heap buffer. */
static char *read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data;
    size_t n;

    if (!f) {
        fprintf(stderr, PROG ": cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    data = malloc(max + 1);
    if (!data) {
        fclose(f);
        fprintf(stderr, PROG ": out of memory\n");
        return NULL;
    }
    n = fread(data, 1, max + 1, f);
    if (ferror(f) || n > max) {
        fprintf(stderr, PROG ": %s: %s\n", path, ferror(f) ? strerror(errno) : "file too large");
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

/* Line n (from 0) of text, without its "\n"; its length in *len. */
static const char *nth_line(const char *text, int n, size_t *len)
{
    while (n-- > 0 && *text) {
        text += strcspn(text, "\n");
        if (*text)
            text++;
    }
    *len = strcspn(text, "\n");
    return text;
}

/* Checks that the leaf is the publication of run_id with digest_text:
 * kix_entry_parse_leaf reads an entry exactly as the log does. */
static int check_publication(const uint8_t *leaf, size_t len, const char *run_id,
                             const char *digest_text, char *why, size_t cap)
{
    struct kix_entry e;
    struct kix_digest cited;
    struct kix_err err = {0};
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int ok = 0;

    if (kix_digest_parse(digest_text, strlen(digest_text), &cited, &err) != KIX_OK) {
        snprintf(why, cap, "the cited digest: %s", err.msg);
        return 0;
    }
    if (kix_entry_parse_leaf(leaf, len, &e, &err) != KIX_OK) {
        snprintf(why, cap, "the entry is not a kix entry: %s", err.msg);
        return 0;
    }
    kix_digest_format(&e.subject, text);
    if (e.type != KIX_ENTRY_PUBLICATION)
        snprintf(why, cap, "the entry is not a publication but a %s", kix_entry_type_name(e.type));
    else if (strcmp(e.run_id, run_id) != 0)
        snprintf(why, cap, "the entry publishes run %s, not the cited run %s", e.run_id, run_id);
    else if (memcmp(e.subject.b, cited.b, KIX_DIGEST_LEN) != 0)
        snprintf(why, cap, "the entry publishes digest %s, not the cited %s", text, digest_text);
    else
        ok = 1;
    kix_entry_release(&e);
    return ok;
}

/* The citation against the (already verified) receipt r. */
static int verify_citation(const char *path, const struct kix_verifier *key,
                           const struct kix_receipt *r, const struct kix_checkpoint *rcp)
{
    struct kix_note *note = NULL;
    struct kix_checkpoint cited;
    struct kix_hash leaf, root;
    struct kix_err err = {0};
    json_error_t je;
    json_t *doc, *cp;
    const char *run_id, *digest, *note_text, *root_text, *origin, *root_line;
    char why[KIX_ERR_MSG_MAX + 256];
    size_t root_len;
    uint64_t index;
    int status = NOT_VERIFIED;

    doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        fprintf(stderr, PROG ": %s: %s (line %d)\n", path, je.text, je.line);
        return USAGE;
    }
    cp = json_object_get(doc, "checkpoint");
    run_id = json_string_value(json_object_get(doc, "runId"));
    digest = json_string_value(json_object_get(doc, "digest"));
    note_text = json_string_value(json_object_get(cp, "note"));
    root_text = json_string_value(json_object_get(cp, "root"));
    origin = json_string_value(json_object_get(cp, "origin"));
    if (!run_id || !digest || !note_text || !json_is_integer(json_object_get(doc, "logIndex")) ||
        json_integer_value(json_object_get(doc, "logIndex")) < 0) {
        fprintf(stderr, PROG ": %s is not a kix citation (kix cite --json writes one)\n", path);
        json_decref(doc);
        return USAGE;
    }
    index = (uint64_t)json_integer_value(json_object_get(doc, "logIndex"));

    /* 1. the cited checkpoint is signed by the log key */
    note = malloc(sizeof(*note)); /* a few KiB: keep it off the stack */
    if (!note) {
        fprintf(stderr, PROG ": out of memory\n");
        json_decref(doc);
        return USAGE;
    }
    if (kix_checkpoint_open(note_text, strlen(note_text), key, 1, key->name, note, &cited, &err) !=
        KIX_OK) {
        status = not_verified("the citation's checkpoint", err.msg);
        goto out;
    }
    /* the citation's plain fields must say what the signed note says */
    root_line = nth_line(note_text, 2, &root_len); /* origin, size, root */
    if ((origin && strcmp(origin, cited.origin) != 0) ||
        (json_object_get(cp, "size") &&
         (json_integer_value(json_object_get(cp, "size")) < 0 ||
          (uint64_t)json_integer_value(json_object_get(cp, "size")) != cited.size)) ||
        (root_text && (strlen(root_text) != root_len || memcmp(root_text, root_line, root_len)))) {
        status = not_verified("the citation",
                              "its origin, size or root differ from its signed checkpoint");
        goto out;
    }
    /* 2. the receipt is the cited entry's */
    if (r->index != index) {
        snprintf(why, sizeof(why), "the receipt is for entry %llu, the citation cites entry %llu",
                 (unsigned long long)r->index, (unsigned long long)index);
        status = not_verified("the citation", why);
        goto out;
    }
    /* 3. the entry is included at that index in the cited tree */
    kix_merkle_leaf_hash(r->entry.ptr, r->entry.len, &leaf);
    memcpy(root.b, cited.root, KIX_HASH_LEN);
    if (kix_merkle_verify_inclusion(index, cited.size, &leaf, r->proof, r->nproof, &root, &err) !=
        KIX_OK) {
        if (rcp->size != cited.size)
            snprintf(why, sizeof(why),
                     "the receipt proves inclusion at size %llu, the citation is at size %llu: "
                     "use the receipt at the cited size (kix receipt %llu --size %llu)",
                     (unsigned long long)rcp->size, (unsigned long long)cited.size,
                     (unsigned long long)index, (unsigned long long)cited.size);
        else
            snprintf(why, sizeof(why), "entry %llu is not in the cited tree: %s",
                     (unsigned long long)index, err.msg);
        status = not_verified("the citation", why);
        goto out;
    }
    /* 4. that entry is the publication of the cited run with the cited digest */
    if (!check_publication(r->entry.ptr, r->entry.len, run_id, digest, why, sizeof(why))) {
        status = not_verified("the citation", why);
        goto out;
    }
    printf("citation verified: run %s (%s) was published at entry %llu of log %s, in its "
           "signed tree of size %llu\n",
           run_id, digest, (unsigned long long)index, cited.origin, (unsigned long long)cited.size);
    status = VERIFIED;
out:
    free(note);
    json_decref(doc);
    return status;
}

int main(int argc, char **argv)
{
    struct kix_verifier key;
    struct kix_receipt r;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    char *vkey, *receipt;
    size_t vkey_len, receipt_len;
    int status;

    if (argc < 3 || argc > 4 || argv[1][0] == '-')
        return usage();
    vkey = read_file(argv[1], 4096, &vkey_len);
    if (!vkey)
        return USAGE;
    vkey_len = strcspn(vkey, "\r\n"); /* the key is the first line */
    if (kix_verifier_parse(vkey, vkey_len, &key, &err) != KIX_OK) {
        fprintf(stderr, PROG ": %s: %s\n", argv[1], err.msg);
        free(vkey);
        return USAGE;
    }
    free(vkey);
    receipt = read_file(argv[2], KIX_RECEIPT_MAX_BYTES, &receipt_len);
    if (!receipt)
        return USAGE;

    kix_receipt_init(&r);
    if (kix_receipt_verify(receipt, receipt_len, &key, NULL, 0, &r, &cp, &err) != KIX_OK) {
        status = not_verified("the receipt", err.msg);
        goto out;
    }
    printf("receipt verified: entry %llu is in log %s, in its signed tree of size %llu\n",
           (unsigned long long)r.index, cp.origin, (unsigned long long)cp.size);
    status = argc == 4 ? verify_citation(argv[3], &key, &r, &cp) : VERIFIED;
out:
    kix_receipt_release(&r);
    free(receipt);
    return status;
}
