/* Shared steps of the commands that talk to a log: verified resolution,
 * submitting signed bundles and checking their receipts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_log.h"
#include "kix/entry.h"
#include "kix/receipt.h"
#include "kix/resolve.h"
#include "kix/trust.h"
#include "kix/vindex.h"

/* The server says there is no such run: it must prove the absence from
 * its signed index, at a checkpoint consistent with the remembered one,
 * and the run must not be one this client saw published (a run it saw and
 * the server denies, proven or not, is the alarm: `latest`, the server's
 * checkpoint, is kept as evidence). Returns KIX_ENOTFOUND (proven absent,
 * or unproven for a run never seen here) or why the denial does not hold. */
static int prove_absent(struct kix_client *c, const struct kix_verifier *key, const char *ref,
                        const struct kix_buf *latest, struct kix_err *err)
{
    char run_id[KIX_RUN_ID_MAX + 1], ikey[KIX_VINDEX_KEY_MAX + 1];
    struct kix_index_answer a;
    struct kix_digest d;
    struct kix_err perr = {0};
    int is_digest = 0;
    int rc = kix_ref_parse(ref, strlen(ref), key->name, run_id, &is_digest, &d, &perr);

    if (rc)
        return KIX_ENOTFOUND; /* the server's message stands */
    if (is_digest)
        kix_vindex_key_manifest(&d, ikey);
    else
        kix_vindex_key_run(run_id, strlen(run_id), ikey);
    rc = kix_client_index_proof(c, key, ikey, &a, &perr);
    if (rc == KIX_OK)
        rc = cli_trust_check(c, key, (const char *)a.checkpoint.ptr, a.checkpoint.len, NULL, &perr);
    if (rc == KIX_OK && a.present)
        rc = kix_err_set(&perr, KIX_EVERIFY,
                         "%s says there is no %s, but its signed index holds it at size %llu",
                         kix_client_where(c), ref, (unsigned long long)a.cp.size);
    if (rc == KIX_OK && !is_digest)
        rc = kix_trust_run_denied(key, run_id, (const char *)a.checkpoint.ptr, a.checkpoint.len,
                                  a.cp.size, &perr);
    if (rc != KIX_OK && rc != KIX_EFORK && rc != KIX_ENOMEM && !is_digest) {
        struct kix_err alarm = {0};
        if (kix_trust_run_unproven(key, run_id, (const char *)latest->ptr, latest->len,
                                   kix_client_where(c), perr.msg, &alarm) == KIX_EFORK) {
            perr = alarm;
            rc = KIX_EFORK;
        }
    }
    if (rc == KIX_OK) {
        kix_err_wrap(err, "absence proven by the log's signed index at size %llu",
                     (unsigned long long)a.cp.size);
        rc = KIX_ENOTFOUND;
    } else if (rc != KIX_EFORK && rc != KIX_EVERIFY) {
        /* no proof to be had: say so, beside the server's answer */
        kix_err_wrap(err, "not proven absent: %s", perr.msg);
        rc = KIX_ENOTFOUND;
    } else {
        *err = perr;
    }
    kix_index_answer_release(&a);
    return rc;
}

/* The rest of a run's entries, page after page, each verified and its
 * checkpoint checked against the remembered one. */
static int resolve_pages(struct kix_client *c, const struct kix_verifier *key,
                         struct kix_resolution *res, struct kix_checkpoint *cp, struct kix_err *err)
{
    int rc = KIX_OK;

    while (rc == KIX_OK && !res->complete) {
        struct kix_resolution page;
        uint64_t before = res->chained;
        rc = kix_client_resolve_from(c, res->run.run_id, res->chained, &page, err);
        if (rc == KIX_OK)
            rc = kix_resolution_merge(res, &page, key, cp, err);
        kix_resolution_release(&page);
        if (rc == KIX_OK)
            rc = cli_trust_check(c, key, (const char *)res->checkpoint.ptr, res->checkpoint.len, cp,
                                 err);
        if (rc == KIX_OK && res->index_note.ptr)
            rc = cli_witness_check_index(key, (const char *)res->index_note.ptr,
                                         res->index_note.len, err);
        if (rc == KIX_OK && !res->complete && res->chained == before)
            rc = kix_err_set(err, KIX_EVERIFY,
                             "the server withheld entries about run %s: it sent %llu of the %llu "
                             "the signed index commits",
                             res->run.run_id, (unsigned long long)before,
                             (unsigned long long)res->record.info.entries);
    }
    return rc;
}

int cli_resolve_verified(const char *cmd, struct kix_client *c, const struct kix_verifier *key,
                         const char *ref, struct kix_resolution *res, struct kix_checkpoint *cp)
{
    struct kix_buf latest = KIX_BUF_INIT;
    struct kix_err err = {0}, ignore = {0};
    /* first the server's latest checkpoint against the one this client
     * verified before: a rollback or fork that hides the run is exit 4,
     * not "no such run" */
    int rc = cli_trust_latest(c, key, &latest, cp, &err);

    if (rc) {
        kix_buf_release(&latest);
        return cli_fail(cmd, rc, &err);
    }
    rc = kix_client_resolve(c, ref, res, &err);
    if (rc == KIX_ENOTFOUND)
        rc = prove_absent(c, key, ref, &latest, &err);
    kix_buf_release(&latest);
    if (rc == KIX_OK)
        rc = kix_resolution_verify(res, key, cp, &err);
    if (rc == KIX_OK)
        rc = cli_trust_check(c, key, (const char *)res->checkpoint.ptr, res->checkpoint.len, cp,
                             &err);
    if (rc == KIX_OK && res->index_note.ptr)
        rc = cli_witness_check_index(key, (const char *)res->index_note.ptr, res->index_note.len,
                                     &err);
    if (rc == KIX_OK)
        rc = resolve_pages(c, key, res, cp, &err);
    if (rc == KIX_OK &&
        kix_trust_run_seen(key, res->run.run_id, res->run.publication_index, &ignore) != KIX_OK)
        fprintf(stderr, "kix %s: warning: %s\n", cmd, ignore.msg);
    if (rc) {
        if (rc == KIX_EVERIFY)
            kix_err_wrap(&err, "%s answered a resolution of %s that does not verify",
                         kix_client_where(c), ref);
        kix_resolution_release(res);
        return cli_fail(cmd, rc, &err);
    }
    return 0;
}

int cli_read_json_object(const char *cmd, const char *path, struct kix_buf *canon,
                         struct kix_digest *d)
{
    struct kix_buf raw = KIX_BUF_INIT;
    struct kix_err err = {0};
    int rc = kix_file_read(path, KIX_CANON_DEFAULT_MAX_BYTES, &raw, &err);

    if (rc == KIX_OK)
        rc = kix_canon(raw.ptr ? raw.ptr : (const uint8_t *)"", raw.len, NULL, canon, &err);
    kix_buf_release(&raw);
    if (rc) {
        if (rc != KIX_ENOTFOUND && rc != KIX_EIO)
            kix_err_wrap(&err, "%s", path);
        return cli_fail(cmd, rc, &err);
    }
    kix_digest_of(canon->ptr, canon->len, d);
    return 0;
}

static int save_receipt(const struct kix_verifier *key, const char *path, uint64_t index,
                        const struct kix_buf *receipt, char *saved, size_t cap, struct kix_err *err)
{
    char dir[4096];
    int rc;

    if (path) {
        snprintf(saved, cap, "%s", path);
        return kix_file_write_atomic(path, receipt->ptr, receipt->len, 0644, err);
    }
    rc = kix_trust_dir(key, dir, sizeof(dir), err);
    if (rc)
        return rc;
    snprintf(saved, cap, "%s/receipt-%llu.tlog-proof", dir, (unsigned long long)index);
    return kix_file_write_atomic(saved, receipt->ptr, receipt->len, 0644, err);
}

/* A publication the log refused: the run the log already holds under its
 * manifest digest or its run id, as members of the --json error object
 * ("existingRunId", "existingEntry", "existingDigest"), verified as kix
 * resolve does; NULL when there is none or it does not verify. The message
 * (the log's) says why it refused and what to do. */
static json_t *existing_run(struct kix_client *c, const struct kix_verifier *key,
                            const struct kix_bytes *envelope)
{
    struct kix_entry_summary s;
    struct kix_resolution res;
    struct kix_checkpoint cp;
    char digest[KIX_DIGEST_TEXT_LEN + 1];
    json_t *data = NULL;
    int rc = KIX_ENOTFOUND;

    if (kix_entry_describe(envelope->ptr, envelope->len, &s, NULL) != KIX_OK ||
        s.type != KIX_ENTRY_PUBLICATION)
        return NULL;
    kix_digest_format(&s.subject, digest);
    kix_resolution_init(&res);
    for (int by_id = 0; by_id < 2 && rc == KIX_ENOTFOUND; by_id++) {
        kix_resolution_release(&res);
        kix_resolution_init(&res);
        rc = kix_client_resolve(c, by_id ? s.run_id : digest, &res, NULL);
    }
    if (rc == KIX_OK && kix_resolution_verify(&res, key, &cp, NULL) == KIX_OK) {
        kix_digest_format(&res.run.manifest, digest);
        data = json_pack("{s:s,s:I,s:s}", "existingRunId", res.run.run_id, "existingEntry",
                         (json_int_t)res.run.publication_index, "existingDigest", digest);
    }
    kix_resolution_release(&res);
    return data;
}

int cli_submit(const char *cmd, struct kix_client *c, const struct kix_verifier *key,
               const struct kix_bundle *bundles, size_t n, const char *receipt_path,
               struct cli_submitted *out)
{
    struct kix_submit_result *results = calloc(n, sizeof(*results));
    struct kix_err err = {0};
    int rc, status = 0;

    if (!results)
        return cli_fail(cmd, KIX_ENOMEM, NULL);
    rc = kix_client_submit(c, bundles, n, results, &err);
    if (rc) {
        status = cli_fail(cmd, rc, &err);
        goto out;
    }
    for (size_t i = 0; i < n && status == 0; i++) {
        struct kix_receipt receipt;
        struct kix_checkpoint cp;
        if (results[i].code) {
            json_t *data;
            kix_err_set(&err, results[i].code, "%s refused it: %s", kix_client_where(c),
                        results[i].message);
            data = existing_run(c, key, &bundles[i].envelope);
            status = cli_fail_with(cmd, results[i].code, &err, NULL, data);
            json_decref(data);
            break;
        }
        /* the receipt must prove exactly our envelope, under the log key */
        kix_receipt_init(&receipt);
        rc = kix_receipt_verify((const char *)results[i].receipt.ptr, results[i].receipt.len, key,
                                bundles[i].envelope.ptr, bundles[i].envelope.len, &receipt, &cp,
                                &err);
        if (rc == KIX_OK && receipt.index != results[i].index)
            rc = kix_err_set(&err, KIX_EVERIFY, "the receipt is for entry %llu, not %llu",
                             (unsigned long long)receipt.index,
                             (unsigned long long)results[i].index);
        if (rc == KIX_OK)
            rc = cli_trust_check(c, key, (const char *)receipt.checkpoint.ptr,
                                 receipt.checkpoint.len, &cp, &err);
        if (rc == KIX_OK && i == n - 1) {
            out->index = results[i].index;
            out->duplicate = results[i].duplicate;
            out->size = cp.size;
            rc = save_receipt(key, receipt_path, results[i].index, &results[i].receipt,
                              out->receipt_path, sizeof(out->receipt_path), &err);
        }
        kix_receipt_release(&receipt);
        if (rc) {
            if (rc == KIX_EVERIFY)
                kix_err_wrap(&err, "the receipt from %s does not verify", kix_client_where(c));
            status = cli_fail(cmd, rc, &err);
        }
    }
out:
    for (size_t i = 0; i < n; i++)
        kix_submit_result_release(&results[i]);
    free(results);
    return status;
}

int cli_signer(const char *cmd, const char *path, struct kix_signer **out)
{
    struct kix_err err = {0};
    int rc;

    if (!path)
        return cli_usage_error(cmd, "--key KEYFILE is required (create one with kix keygen)");
    rc = kix_keyfile_read(path, out, &err);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}
