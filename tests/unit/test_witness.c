/* Witness cosignatures kept by a log (kix_log_add_cosignature), served
 * with its checkpoints and receipts, and counted by clients
 * (kix_witness_check); the same for the index notes beside the checkpoints
 * (kix_log_add_index_cosignature, kix_witness_check_index). */
#include "fixture.h"
#include "harness.h"
#include "kix/receipt.h"
#include "kix/resolve.h"
#include "kix/trust.h"
#include "kix/vindex.h"

static struct kix_signer *new_witness(const char *name)
{
    struct kix_signer *s = NULL;
    if (kix_signer_generate(name, KIX_NOTE_ALG_COSIGN, &s, NULL) != KIX_OK)
        abort();
    return s;
}

/* The raw checkpoint note at `size` (KIX_NO_INDEX: latest), copied. */
static uint64_t note_at(struct kix_log *l, uint64_t size, struct kix_buf *out)
{
    struct kix_log_reader *r;
    struct kix_bytes note;
    if (kix_log_read_begin(l, &r))
        abort();
    if (size == KIX_NO_INDEX)
        size = kix_log_reader_size(r);
    if (kix_log_reader_checkpoint(r, size, &note) || kix_buf_add(out, note.ptr, note.len))
        abort();
    kix_log_read_end(r);
    return size;
}

/* A cosignature line by w over a signed note (its text), at `time`. */
static void cosign_note(const struct kix_signer *w, const struct kix_buf *note, uint64_t time,
                        struct kix_buf *line)
{
    struct kix_note opened;
    if (kix_note_open((const char *)note->ptr, note->len, NULL, 0, &opened, NULL) != KIX_EVERIFY ||
        kix_cosign(w, (const char *)opened.text.ptr, opened.text.len, time, line, NULL))
        abort();
}

static int add(struct fixture *f, const struct kix_buf *note, const struct kix_buf *line,
               const struct kix_verifier *ws, size_t n, int *stored, struct kix_err *err)
{
    uint64_t size = 0;
    return kix_log_add_cosignature(f->log, (const char *)note->ptr, note->len,
                                   (const char *)line->ptr, line->len, ws, n, &size, stored, err);
}

KIX_TEST(cosignature_is_kept_and_served_with_the_checkpoint)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test");
    struct kix_verifier wv, known[2];
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT, served = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_note opened;
    struct kix_err err = {0};
    int stored = -1;
    size_t n = 9;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    note_at(f.log, KIX_NO_INDEX, &note);
    cosign_note(w, &note, 1700000000, &line);
    ASSERT_EQ_INT(KIX_OK, add(&f, &note, &line, &wv, 1, &stored, &err));
    ASSERT_EQ_INT(1, stored);
    /* the note, then exactly the witness's line */
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_checkpoint_cosigned(r, KIX_NO_INDEX, &served, &err));
    kix_log_read_end(r);
    ASSERT_EQ_U64(note.len + line.len, served.len);
    ASSERT_EQ_MEM(note.ptr, note.len, served.ptr, note.len);
    ASSERT_EQ_MEM(line.ptr, line.len, served.ptr + note.len, line.len);
    known[0] = f.vkey;
    known[1] = wv;
    ASSERT_EQ_INT(KIX_OK,
                  kix_note_open((const char *)served.ptr, served.len, known, 2, &opened, &err));
    ASSERT_TRUE(kix_note_verified_by(&opened, 0));
    ASSERT_TRUE(kix_note_verified_by(&opened, 1));
    ASSERT_EQ_U64(1700000000, opened.sigs[1].timestamp);
    /* the raw note stays as the log signed it (replicas copy it) */
    kix_buf_reset(&served);
    note_at(f.log, KIX_NO_INDEX, &served);
    ASSERT_EQ_MEM(note.ptr, note.len, served.ptr, served.len);
    /* the same cosignature again: kept once */
    ASSERT_EQ_INT(KIX_OK, add(&f, &note, &line, &wv, 1, &stored, &err));
    ASSERT_EQ_INT(0, stored);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    kix_buf_reset(&served);
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_cosignatures(r, KIX_NO_INDEX, &served, &n));
    kix_log_read_end(r);
    ASSERT_EQ_U64(1, n);
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_buf_release(&served);
    kix_signer_free(w);
    teardown(&f);
}

KIX_TEST(newer_cosignature_replaces_older_one_never_the_reverse)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test");
    struct kix_verifier wv;
    struct kix_buf note = KIX_BUF_INIT, old = KIX_BUF_INIT, newer = KIX_BUF_INIT,
                   got = KIX_BUF_INIT;
    struct kix_log_reader *r;
    struct kix_err err = {0};
    int stored = -1;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    note_at(f.log, KIX_NO_INDEX, &note);
    cosign_note(w, &note, 100, &old);
    cosign_note(w, &note, 200, &newer);
    ASSERT_EQ_INT(KIX_OK, add(&f, &note, &newer, &wv, 1, &stored, &err));
    ASSERT_EQ_INT(1, stored);
    ASSERT_EQ_INT(KIX_OK, add(&f, &note, &old, &wv, 1, &stored, &err));
    ASSERT_EQ_INT(0, stored);
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_cosignatures(r, KIX_NO_INDEX, &got, NULL));
    kix_log_read_end(r);
    ASSERT_EQ_MEM(newer.ptr, newer.len, got.ptr, got.len);
    kix_buf_release(&note);
    kix_buf_release(&old);
    kix_buf_release(&newer);
    kix_buf_release(&got);
    kix_signer_free(w);
    teardown(&f);
}

KIX_TEST(cosignature_of_an_unknown_witness_is_refused)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test"), *other = new_witness("other.test");
    struct kix_verifier ov;
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT;
    struct kix_err err = {0};

    setup(&f);
    kix_verifier_from_signer(other, &ov);
    note_at(f.log, KIX_NO_INDEX, &note);
    cosign_note(w, &note, 1, &line);
    ASSERT_EQ_INT(KIX_EVERIFY, add(&f, &note, &line, &ov, 1, NULL, &err));
    ASSERT_CONTAINS(err.msg, "witness.test is not by a witness this log accepts");
    ASSERT_EQ_INT(KIX_EVERIFY, add(&f, &note, &line, NULL, 0, NULL, &err));
    ASSERT_CONTAINS(err.msg, "0 witness keys configured");
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_signer_free(w);
    kix_signer_free(other);
    teardown(&f);
}

KIX_TEST(forged_cosignature_is_refused)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test");
    struct kix_verifier wv;
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT;
    struct kix_err err = {0};
    char *p;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    note_at(f.log, KIX_NO_INDEX, &note);
    cosign_note(w, &note, 1, &line);
    /* one base64 digit of the signature changed */
    p = (char *)line.ptr + line.len - 10;
    *p = *p == 'A' ? 'B' : 'A';
    ASSERT_EQ_INT(KIX_EVERIFY, add(&f, &note, &line, &wv, 1, NULL, &err));
    ASSERT_CONTAINS(err.msg, "invalid signature for key witness.test");
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_signer_free(w);
    teardown(&f);
}

KIX_TEST(cosignature_of_a_checkpoint_the_log_did_not_store_is_refused)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test"), *logkey = NULL;
    struct kix_verifier wv;
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT, forged = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    char path[512];
    uint64_t size;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    size = note_at(f.log, KIX_NO_INDEX, &note);
    /* a checkpoint the log key signed for this size with another root (a fork) */
    snprintf(path, sizeof(path), "%s/log.key", f.dir);
    ASSERT_EQ_INT(KIX_OK, kix_keyfile_read(path, &logkey, &err));
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "%s", ORIGIN);
    cp.size = size;
    memset(cp.root, 0x42, 32);
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_sign(&cp, logkey, &forged, &err));
    cosign_note(w, &forged, 1, &line);
    ASSERT_EQ_INT(KIX_EVERIFY, add(&f, &forged, &line, &wv, 1, NULL, &err));
    ASSERT_CONTAINS(err.msg, "is not this log's checkpoint at size");
    /* a size the log was never committed at */
    kix_buf_reset(&forged);
    kix_buf_reset(&line);
    cp.size = size + 5;
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_sign(&cp, logkey, &forged, &err));
    cosign_note(w, &forged, 1, &line);
    ASSERT_EQ_INT(KIX_ENOTFOUND, add(&f, &forged, &line, &wv, 1, NULL, &err));
    ASSERT_CONTAINS(err.msg, "no checkpoint at size");
    /* a note the log key did not sign */
    kix_buf_reset(&line);
    cosign_note(w, &note, 1, &line);
    ASSERT_EQ_INT(KIX_EINVAL, kix_log_add_cosignature(f.log, "x\n", 2, (const char *)line.ptr,
                                                      line.len, &wv, 1, NULL, NULL, &err));
    /* not one signature line */
    ASSERT_EQ_INT(KIX_EINVAL, kix_log_add_cosignature(f.log, (const char *)note.ptr, note.len,
                                                      "nonsense", 8, &wv, 1, NULL, NULL, &err));
    ASSERT_CONTAINS(err.msg, "one signature line");
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_buf_release(&forged);
    kix_signer_free(w);
    kix_signer_free(logkey);
    teardown(&f);
}

KIX_TEST(receipts_and_resolutions_carry_the_cosignatures)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test");
    struct kix_verifier wv;
    struct kix_buf note = KIX_BUF_INIT, line = KIX_BUF_INIT, receipt = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_witness_policy policy = {&wv, 1, 1, 0};
    struct kix_resolution resn;
    struct kix_log_reader *r;
    struct kix_receipt parsed;
    struct kix_err err = {0};
    size_t found = 0;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    note_at(f.log, KIX_NO_INDEX, &note);
    cosign_note(w, &note, 5, &line);
    ASSERT_EQ_INT(KIX_OK, add(&f, &note, &line, &wv, 1, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_receipt(r, res.index, KIX_NO_INDEX, &receipt, &err));
    ASSERT_EQ_INT(KIX_OK, kix_index_resolve(r, "run-1", 5, &resn, &err));
    kix_log_read_end(r);
    /* the receipt verifies as before, and its checkpoint has the witness */
    kix_receipt_init(&parsed);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)receipt.ptr, receipt.len, &f.vkey, NULL,
                                             0, &parsed, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_witness_check((const char *)parsed.checkpoint.ptr,
                                            parsed.checkpoint.len, &f.vkey, &policy, &found, &err));
    ASSERT_EQ_U64(1, found);
    kix_receipt_release(&parsed);
    /* the resolution owns its cosigned checkpoint and still verifies */
    ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&resn, &f.vkey, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_witness_check((const char *)resn.checkpoint.ptr, resn.checkpoint.len,
                                            &f.vkey, &policy, &found, &err));
    ASSERT_EQ_U64(1, found);
    kix_resolution_release(&resn);
    kix_buf_release(&note);
    kix_buf_release(&line);
    kix_buf_release(&receipt);
    kix_signer_free(w);
    teardown(&f);
}

KIX_TEST(witness_check_counts_distinct_verified_witnesses)
{
    struct fixture f;
    struct kix_signer *w1 = new_witness("w1.test"), *w2 = new_witness("w2.test");
    struct kix_verifier ws[2];
    struct kix_buf note = KIX_BUF_INIT, cosigned = KIX_BUF_INIT;
    struct kix_witness_policy policy = {ws, 2, 2, 0};
    struct kix_err err = {0};
    size_t found = 9;

    setup(&f);
    kix_verifier_from_signer(w1, &ws[0]);
    kix_verifier_from_signer(w2, &ws[1]);
    note_at(f.log, KIX_NO_INDEX, &note);
    /* none yet: 0 of 2 */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_witness_check((const char *)note.ptr, note.len, &f.vkey, &policy,
                                                 &found, &err));
    ASSERT_CONTAINS(err.msg, "has 0 of the 2 witness cosignatures required");
    /* one of them: 1 of 2, and enough when 1 is required */
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&cosigned, note.ptr, note.len));
    cosign_note(w1, &note, 7, &cosigned);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_witness_check((const char *)cosigned.ptr, cosigned.len, &f.vkey,
                                                 &policy, &found, &err));
    ASSERT_CONTAINS(err.msg, "has 1 of the 2");
    policy.min = 1;
    ASSERT_EQ_INT(KIX_OK, kix_witness_check((const char *)cosigned.ptr, cosigned.len, &f.vkey,
                                            &policy, &found, &err));
    ASSERT_EQ_U64(1, found);
    /* both */
    cosign_note(w2, &note, 8, &cosigned);
    policy.min = 2;
    ASSERT_EQ_INT(KIX_OK, kix_witness_check((const char *)cosigned.ptr, cosigned.len, &f.vkey,
                                            &policy, &found, &err));
    ASSERT_EQ_U64(2, found);
    /* more required than keys given; a log key given as a witness */
    policy.min = 3;
    ASSERT_EQ_INT(KIX_EINVAL, kix_witness_check((const char *)cosigned.ptr, cosigned.len, &f.vkey,
                                                &policy, NULL, &err));
    ASSERT_CONTAINS(err.msg, "3 witness cosignatures required but only 2");
    policy.keys = &f.vkey;
    policy.nkeys = 1;
    policy.min = 1;
    ASSERT_EQ_INT(KIX_EINVAL, kix_witness_check((const char *)cosigned.ptr, cosigned.len, &f.vkey,
                                                &policy, NULL, &err));
    ASSERT_CONTAINS(err.msg, "is not a cosignature (0x04) key");
    /* no policy: the log's signature alone */
    ASSERT_EQ_INT(KIX_OK,
                  kix_witness_check((const char *)note.ptr, note.len, &f.vkey, NULL, &found, &err));
    ASSERT_EQ_U64(0, found);
    kix_buf_release(&note);
    kix_buf_release(&cosigned);
    kix_signer_free(w1);
    kix_signer_free(w2);
    teardown(&f);
}

/* The index note at `size`, copied. */
static void index_note_at(struct kix_log *l, uint64_t size, struct kix_buf *out)
{
    struct kix_log_reader *r;
    struct kix_bytes note;
    if (kix_log_read_begin(l, &r) || kix_log_reader_index_note(r, size, &note) ||
        kix_buf_add(out, note.ptr, note.len))
        abort();
    kix_log_read_end(r);
}

/* A cosignature line by w over any signed note's text. */
static void cosign_text(const struct kix_signer *w, const struct kix_buf *note, uint64_t time,
                        struct kix_buf *line)
{
    struct kix_note opened;
    if (kix_note_open((const char *)note->ptr, note->len, NULL, 0, &opened, NULL) != KIX_EVERIFY ||
        kix_cosign_text(w, (const char *)opened.text.ptr, opened.text.len, time, line, NULL))
        abort();
}

KIX_TEST(index_note_cosignature_covers_only_the_stored_note)
{
    struct fixture f;
    struct kix_signer *w = new_witness("witness.test");
    struct kix_verifier wv;
    struct kix_buf note = KIX_BUF_INIT, early = KIX_BUF_INIT, cp = KIX_BUF_INIT,
                   line = KIX_BUF_INIT, cp_line = KIX_BUF_INIT, served = KIX_BUF_INIT,
                   forged = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_witness_policy policy = {&wv, 1, 1, 0};
    struct kix_vindex_note vn;
    struct kix_log_reader *r;
    struct kix_err err = {0};
    uint64_t size, first;
    size_t found = 9;
    int stored = -1;

    setup(&f);
    kix_verifier_from_signer(w, &wv);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-1", 1, &res, &err));
    first = note_at(f.log, KIX_NO_INDEX, &cp);
    index_note_at(f.log, first, &early);
    ASSERT_EQ_INT(KIX_OK, publish(&f, f.publisher, "run-2", 2, &res, &err));
    kix_buf_reset(&cp);
    size = note_at(f.log, KIX_NO_INDEX, &cp);
    index_note_at(f.log, size, &note);
    /* unwitnessed: 0 of 1 */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_witness_check_index((const char *)note.ptr, note.len, &f.vkey,
                                                       &policy, &found, &err));
    ASSERT_CONTAINS(err.msg, "has 0 of the 1 witness cosignatures required");
    cosign_text(w, &note, 1700000000, &line);
    ASSERT_EQ_INT(KIX_OK, kix_log_add_index_cosignature(f.log, size, (const char *)note.ptr,
                                                        note.len, (const char *)line.ptr, line.len,
                                                        &wv, 1, &stored, &err));
    ASSERT_EQ_INT(1, stored);
    /* served after the log's signature; a reader counts it, and the note
     * still opens for one that requires no witness */
    ASSERT_EQ_INT(KIX_OK, kix_log_read_begin(f.log, &r));
    ASSERT_EQ_INT(KIX_OK, kix_log_reader_index_note_cosigned(r, size, &served, &err));
    kix_log_read_end(r);
    ASSERT_EQ_U64(note.len + line.len, served.len);
    ASSERT_EQ_INT(KIX_OK, kix_witness_check_index((const char *)served.ptr, served.len, &f.vkey,
                                                  &policy, &found, &err));
    ASSERT_EQ_U64(1, found);
    ASSERT_EQ_INT(KIX_OK, kix_vindex_note_open((const char *)served.ptr, served.len, &f.vkey, NULL,
                                               &vn, &err));
    ASSERT_EQ_U64(size, vn.size);
    /* another index note named as this size's (a split view): refused */
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_add_index_cosignature(f.log, size, (const char *)early.ptr,
                                                             early.len, (const char *)line.ptr,
                                                             line.len, &wv, 1, &stored, &err));
    kix_buf_reset(&line);
    cosign_text(w, &early, 1700000001, &line);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_add_index_cosignature(f.log, size, (const char *)early.ptr,
                                                             early.len, (const char *)line.ptr,
                                                             line.len, &wv, 1, &stored, &err));
    ASSERT_CONTAINS(err.msg, "split view of the index");
    /* the checkpoint's cosignature is not the index note's: the line does
     * not verify over the note, by the store or by a reader */
    cosign_note(w, &cp, 5, &cp_line);
    ASSERT_EQ_INT(KIX_EVERIFY, kix_log_add_index_cosignature(f.log, size, (const char *)note.ptr,
                                                             note.len, (const char *)cp_line.ptr,
                                                             cp_line.len, &wv, 1, &stored, &err));
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&forged, note.ptr, note.len));
    ASSERT_EQ_INT(KIX_OK, kix_buf_add(&forged, cp_line.ptr, cp_line.len));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_witness_check_index((const char *)forged.ptr, forged.len,
                                                       &f.vkey, &policy, &found, &err));
    /* no witnesses required: nothing counted */
    policy.min = 0;
    ASSERT_EQ_INT(KIX_OK, kix_witness_check_index((const char *)note.ptr, note.len, &f.vkey,
                                                  &policy, NULL, &err));
    kix_buf_release(&note);
    kix_buf_release(&early);
    kix_buf_release(&cp);
    kix_buf_release(&line);
    kix_buf_release(&cp_line);
    kix_buf_release(&served);
    kix_buf_release(&forged);
    kix_signer_free(w);
    teardown(&f);
}

KIX_TEST_MAIN()
