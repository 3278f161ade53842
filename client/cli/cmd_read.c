/* kix get, resolve, cite, verify-citation, log: reading the log, verified. */
#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_log.h"
#include "kix/cite.h"
#include "kix/receipt.h"
#include "kix/trust.h"

static void b64(const uint8_t *data, size_t len, char *out, size_t cap)
{
    sodium_bin2base64(out, cap, data, len, sodium_base64_VARIANT_ORIGINAL);
}

static const struct kix_opt get_opts[] = {
    KIX_NOTE("\n"
             "Writes the canonical bytes of an object after checking that they hash to\n"
             "DIGEST (sha256:<hex>, or an objects permalink); with --json,\n"
             "{\"digest\": DIGEST, \"object\": OBJECT} on one line.\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd get_cmd = {
    .prog = "kix get", .usage = "DIGEST [options]", KIX_CMD_OPTS(get_opts)};

int cmd_get(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_buf out = KIX_BUF_INIT;
    struct kix_digest d;
    struct kix_err err = {0};
    char run_id[KIX_RUN_ID_MAX + 1];
    int is_digest = 0, rc;
    int status = cli_parse(&get_cmd, argc, argv, &common, NULL, NULL, NULL);

    if (status >= 0)
        return status;
    if (argc - optind != 1)
        return cli_usage_error("get", "expected one DIGEST");
    rc = kix_ref_parse(argv[optind], strlen(argv[optind]), NULL, run_id, &is_digest, &d, &err);
    if (rc == KIX_OK && !is_digest)
        rc = kix_err_set(&err, KIX_EINVAL, "%s is a run, not a digest; use kix resolve",
                         argv[optind]);
    if (rc)
        return cli_fail("get", rc, &err);
    if ((status = cli_connect("get", &common, &c)))
        return status;
    if ((status = cli_contact("get", &common, c, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(c);
        return status;
    }
    rc = kix_client_get_object(c, &d, &out, &err);
    if (rc == KIX_OK && common.json) {
        char text[KIX_DIGEST_TEXT_LEN + 1];
        json_t *object = json_loadb((const char *)out.ptr, out.len, 0, NULL);
        if (!object) /* not JSON: as text */
            object = json_stringn((const char *)out.ptr, out.len);
        kix_digest_format(&d, text);
        /* canonical JSON: it embeds as JSON */
        rc = cli_doc("get", json_pack("{s:s,s:o}", "digest", text, "object", object), 1, NULL);
        kix_buf_release(&out);
        kix_client_close(c);
        return rc;
    } else if (rc == KIX_OK) {
        fwrite(out.ptr, 1, out.len, stdout);
    }
    kix_buf_release(&out);
    kix_client_close(c);
    return rc ? cli_fail("get", rc, &err) : 0;
}

/* ---- resolve ------------------------------------------------------------ */

static const struct kix_opt resolve_opts[] = {
    KIX_NOTE("\n"
             "Shows a run and everything the log says about it: its manifest and the\n"
             "objects it references, its evidence level and every entry about it\n"
             "(publication, attestations, reruns, supersessions). Every entry's inclusion\n"
             "proof, every digest and the checkpoint signature are verified here against\n"
             "the log key, and the checkpoint must be consistent with the one this client\n"
             "verified before. The evidence level is derived from the verified entries.\n"
             "\n"
             "--json prints one document, kix.resolve/1 (its \"view\"): runId, digest,\n"
             "permalink, evidence, evidenceText, manifest, objects, entries (index, type,\n"
             "signer, proof) and checkpoint; the text above is written from it.\n"
             "\n"),
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 verified, 1 not found or does not verify, 2 usage, 3 I/O or\n"
             "server error, 4 the log contradicts what this client verified before, 5 a\n"
             "copy behind it (stale: verified as of its size)\n"),
};
static const struct kix_cmd resolve_cmd = {.prog = "kix resolve",
                                           .usage = "PERMALINK|RUN_ID|DIGEST [--json] [options]",
                                           KIX_CMD_OPTS(resolve_opts)};

int cmd_resolve(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_resolution res;
    struct kix_checkpoint cp;
    int status = cli_parse(&resolve_cmd, argc, argv, &common, NULL, NULL, NULL);

    if (status >= 0)
        return status;
    if (argc - optind != 1)
        return cli_usage_error("resolve", "expected one PERMALINK, RUN_ID or DIGEST");
    kix_resolution_init(&res);
    if ((status = cli_connect_ref("resolve", &common, argv[optind], &c)) == 0 &&
        (status = cli_log_key("resolve", &common, c, &key)) == 0 &&
        (status = cli_resolve_verified("resolve", c, &key, argv[optind], &res, &cp)) == 0) {
        /* one document (kix/doc.h): the JSON, or its text */
        status = cli_doc("resolve", kix_doc_resolve(&res, key.name, &cp), common.json,
                         kix_doc_resolve_text);
    }
    kix_resolution_release(&res);
    kix_client_close(c);
    return status;
}

/* ---- cite / verify-citation ------------------------------------------------ */

static const struct kix_opt cite_opts[] = {
    KIX_NOTE("\n"
             "Prints a citation of a run, after verifying it: permalink, digest, access\n"
             "date, the log index of its publication and the checkpoint seen (origin,\n"
             "size, root). --format picks the form: text (default, one line a paper can\n"
             "carry), bibtex (a @misc entry) or csl-json (an array of one CSL item, for\n"
             "Zotero, pandoc and citeproc). --json prints the document 'kix\n"
             "verify-citation' checks later (with the signed checkpoint text); it\n"
             "cannot be combined with another --format. Citing a run that has been\n"
             "superseded prints a warning naming the successor on stderr (and says so\n"
             "in the citation's note); the citation is still of the run asked for.\n"
             "\n"),
    {.kind = KIX_OPT_ID,
     .name = "format",
     .arg = "FORMAT",
     .id = 'F',
     .complete = "text bibtex csl-json",
     .help = "text (default), bibtex or csl-json"},
    CLI_COMMON_OPTS,
};
static const struct kix_cmd cite_cmd = {
    .prog = "kix cite",
    .usage = "PERMALINK|RUN_ID|DIGEST [--format text|bibtex|csl-json] [--json]\n"
             "[options]",
    KIX_CMD_OPTS(cite_opts)};

enum cite_format { CITE_TEXT, CITE_BIBTEX, CITE_CSL };

int cmd_cite(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_resolution res;
    struct kix_checkpoint cp;
    struct kix_buf form = KIX_BUF_INIT;
    char root[64], date[16];
    struct cli_opts o;
    enum cite_format format = CITE_TEXT;
    const char *format_name = NULL;
    struct kix_cite cite;
    time_t now = time(NULL);
    struct tm tm;
    int ch, status;

    memset(&cite, 0, sizeof(cite)); /* released at out whatever happened */
    cli_start(&o, &cite_cmd, argc, argv, &common);
    while ((ch = cli_next(&o)) >= 0)
        format_name = o.p.value; /* --format, cite's own option */
    if (ch == CLI_OPTS_STOP)
        return o.status;
    if (argc - optind != 1)
        return cli_usage_error("cite", "expected one PERMALINK, RUN_ID or DIGEST");
    if (format_name && strcmp(format_name, "bibtex") == 0)
        format = CITE_BIBTEX;
    else if (format_name && strcmp(format_name, "csl-json") == 0)
        format = CITE_CSL;
    else if (format_name && strcmp(format_name, "text") != 0)
        return cli_usage_error("cite", "unknown --format '%s' (text, bibtex or csl-json)",
                               format_name);
    if (common.json && format != CITE_TEXT)
        return cli_usage_error("cite", "--json is the verify-citation document; drop --format");
    kix_resolution_init(&res);
    if ((status = cli_connect("cite", &common, &c)) ||
        (status = cli_log_key("cite", &common, c, &key)) ||
        (status = cli_resolve_verified("cite", c, &key, argv[optind], &res, &cp)))
        goto out;
    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%Y-%m-%d", &tm);
    b64(cp.root, 32, root, sizeof(root));
    /* the one citation (kix/cite.h), as the run page's cite box gives it */
    if (kix_cite_init(&cite, &res, cp.origin, cp.size, root, date) != KIX_OK) {
        status = cli_fail("cite", KIX_ENOMEM, NULL);
        goto out;
    }
    if (res.successor[0])
        fprintf(stderr,
                "kix cite: warning: run %s was superseded by run %s (log entry %llu); cite %s "
                "for the corrected result\n",
                res.run.run_id, res.successor, (unsigned long long)res.run.superseded_by_index,
                (const char *)cite.successor.ptr);
    if (format == CITE_BIBTEX || format == CITE_CSL) {
        if ((format == CITE_BIBTEX ? kix_cite_bibtex(&cite, &form) : kix_cite_csl(&cite, &form)) !=
            KIX_OK)
            status = cli_fail("cite", KIX_ENOMEM, NULL);
        else
            fwrite(form.ptr, 1, form.len, stdout);
        goto out;
    }
    if (kix_cite_text(&cite, &form) != KIX_OK || kix_buf_addc(&form, 0) != KIX_OK) {
        status = cli_fail("cite", KIX_ENOMEM, NULL);
        goto out;
    }
    /* one document (kix/doc.h): the JSON, or its text (the citation's line) */
    status = cli_doc("cite", kix_doc_cite(&cite, &res, &cp, date, (const char *)form.ptr),
                     common.json, kix_doc_cite_text);
out:
    kix_cite_release(&cite);
    kix_buf_release(&form);
    kix_resolution_release(&res);
    kix_client_close(c);
    return status;
}

static const struct kix_opt verify_citation_opts[] = {
    KIX_NOTE("\n"
             "Checks a citation written by 'kix cite --json': the cited checkpoint is\n"
             "signed by the log key, the cited run's publication (digest and run id) was\n"
             "in the log at the cited size, and today's log is consistent with the cited\n"
             "checkpoint. Then lists what was added about the run since: attestations,\n"
             "reruns and supersessions.\n"
             "\n"),
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 verified, 1 does not verify or the citation file is not found,\n"
             "2 usage, 3 I/O or server error, 4 the log contradicts the citation or what\n"
             "this client verified before, 5 a copy behind the citation or what this\n"
             "client verified (stale)\n"),
};
static const struct kix_cmd verify_citation_cmd = {.prog = "kix verify-citation",
                                                   .usage = "FILE [--json] [options]",
                                                   KIX_CMD_OPTS(verify_citation_opts)};

struct citation {
    const char *run_id, *digest, *note;
    uint64_t index;
};

static int load_citation(const char *path, json_t **doc, struct citation *cit, struct kix_err *err)
{
    struct kix_buf raw = KIX_BUF_INIT;
    json_error_t je;
    json_t *cp;
    int rc = kix_file_read(path, 1 << 20, &raw, err);

    if (rc)
        return rc;
    *doc = json_loadb(raw.ptr ? (const char *)raw.ptr : "", raw.len, JSON_REJECT_DUPLICATES, &je);
    kix_buf_release(&raw);
    if (!*doc)
        return kix_err_set(err, KIX_EINVAL, "%s is not JSON: %s (line %d)", path, je.text, je.line);
    cp = json_object_get(*doc, "checkpoint");
    cit->run_id = json_string_value(json_object_get(*doc, "runId"));
    cit->digest = json_string_value(json_object_get(*doc, "digest"));
    cit->note = json_string_value(json_object_get(cp, "note"));
    if (!cit->run_id || !cit->digest || !cit->note ||
        !json_is_integer(json_object_get(*doc, "logIndex")))
        return kix_err_set(err, KIX_EINVAL,
                           "%s is not a kix citation (needs runId, digest, logIndex and "
                           "checkpoint.note; make one with kix cite --json)",
                           path);
    cit->index = (uint64_t)json_integer_value(json_object_get(*doc, "logIndex"));
    return KIX_OK;
}

/* The server's proof that the entry at cit->index is in the cited tree:
 * *entry gets the entry. Any failure here is the log's: the cited root is
 * signed and the tree today was proven to extend it. */
static int take_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    (void)index;
    return kix_buf_add(ctx, leaf, len);
}

/* The cited entry and its inclusion proof at the cited size, asked apart
 * (a source that makes no receipts, such as a static tlog-tiles copy). */
static int prove_cited_entry_parts(struct kix_client *c, const struct citation *cit,
                                   const struct kix_checkpoint *cited, struct kix_buf *entry,
                                   struct kix_err *err)
{
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], leaf, root;
    struct kix_buf got = KIX_BUF_INIT;
    uint64_t n = 0;
    size_t np = 0;
    int rc = kix_client_entries(c, cit->index, 1, take_entry, &got, &n, err);

    if (rc == KIX_OK && n != 1)
        rc = kix_err_set(err, KIX_EVERIFY, "entry %llu is not there",
                         (unsigned long long)cit->index);
    if (rc == KIX_OK)
        rc = kix_client_inclusion(c, cit->index, cited->size, proof, &np, err);
    if (rc == KIX_OK) {
        kix_merkle_leaf_hash(got.ptr, got.len, &leaf);
        memcpy(root.b, cited->root, 32);
        rc = kix_merkle_verify_inclusion(cit->index, cited->size, &leaf, proof, np, &root, err);
    }
    if (rc == KIX_OK)
        rc = kix_buf_add(entry, got.ptr, got.len);
    kix_buf_release(&got);
    return rc;
}

static int prove_cited_entry(struct kix_client *c, const struct citation *cit,
                             const struct kix_checkpoint *cited, struct kix_buf *receipt,
                             struct kix_buf *entry, struct kix_err *err)
{
    struct kix_hash leaf, root;
    struct kix_receipt rcpt;
    int rc = kix_client_receipt(c, cit->index, cited->size, receipt, err);

    if (rc == KIX_ENOTSUP) /* a static copy: the entry and its proof at that size */
        return prove_cited_entry_parts(c, cit, cited, entry, err);
    if (rc)
        return rc;
    /* the receipt at the cited size carries the entry and its proof */
    kix_receipt_init(&rcpt);
    rc = kix_receipt_parse((const char *)receipt->ptr, receipt->len, &rcpt, err);
    if (rc == KIX_OK && (rcpt.index != cit->index || !rcpt.entry.len))
        rc = kix_err_set(err, KIX_EVERIFY, "its receipt is not for entry %llu",
                         (unsigned long long)cit->index);
    if (rc == KIX_OK) {
        kix_merkle_leaf_hash(rcpt.entry.ptr, rcpt.entry.len, &leaf);
        memcpy(root.b, cited->root, 32);
        rc = kix_merkle_verify_inclusion(cit->index, cited->size, &leaf, rcpt.proof, rcpt.nproof,
                                         &root, err);
    }
    if (rc == KIX_OK)
        rc = kix_buf_add(entry, rcpt.entry.ptr, rcpt.entry.len);
    kix_receipt_release(&rcpt);
    return rc;
}

/* The entry proven at the cited index is the publication the citation
 * names: when not, the citation is wrong (exit 1), not the log. */
static int check_cited_entry(const struct citation *cit, const struct kix_buf *entry,
                             struct kix_err *err)
{
    struct kix_entry_summary s;
    struct kix_digest d;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_entry_describe(entry->ptr, entry->len, &s, err);

    if (rc)
        return rc;
    if (kix_digest_parse(cit->digest, strlen(cit->digest), &d, err))
        return KIX_EINVAL;
    kix_digest_format(&s.subject, text);
    if (s.type != KIX_ENTRY_PUBLICATION || strcmp(s.run_id, cit->run_id) != 0 ||
        memcmp(s.subject.b, d.b, 32) != 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "entry %llu is not the publication of run %s with digest %s (it is a "
                           "%s of %s, %s)",
                           (unsigned long long)cit->index, cit->run_id, cit->digest,
                           kix_words_entry_type(s.type), s.run_id, text);
    return KIX_OK;
}

/* Today's log (`now`, its signed note) must extend the cited checkpoint
 * and prove the cited entry in it (KIX_ESTALE when it is smaller: a copy
 * that lags): whatever it cannot prove contradicts a checkpoint the log
 * signed, the alarm (KIX_EFORK, the cited and presented
 * checkpoints, the citation and any receipt kept as evidence). */
static int check_against_citation(struct kix_client *c, const struct kix_verifier *key,
                                  const char *path, const struct citation *cit,
                                  const struct kix_checkpoint *cited, const struct kix_buf *note,
                                  const struct kix_checkpoint *now, struct kix_buf *entry,
                                  struct kix_err *err)
{
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], r1, r2;
    struct kix_buf receipt = KIX_BUF_INIT, file = KIX_BUF_INIT;
    struct kix_err perr = {0};
    char what[1024];
    size_t n = 0;
    int rc = KIX_OK;

    memcpy(r1.b, cited->root, 32);
    memcpy(r2.b, now->root, 32);
    if (now->size < cited->size) {
        /* a copy that lags behind the citation contradicts nothing: it
         * cannot prove the cited tree, which a current copy can */
        return kix_err_set(err, KIX_ESTALE,
                           "%s serves log %s at size %llu, behind the cited checkpoint's size "
                           "%llu: a stale copy; verify the citation against the log's origin or "
                           "a current copy",
                           kix_client_where(c), now->origin, (unsigned long long)now->size,
                           (unsigned long long)cited->size);
    } else if (now->size == cited->size && memcmp(now->root, cited->root, 32) != 0) {
        snprintf(what, sizeof(what),
                 "%s presents a different root for size %llu than the cited checkpoint: the log "
                 "forked",
                 kix_client_where(c), (unsigned long long)now->size);
        rc = KIX_EFORK;
    } else if (now->size > cited->size) {
        rc = kix_client_consistency(c, cited->size, now->size, proof, &n, &perr);
        if (rc == KIX_OK)
            rc = kix_merkle_verify_consistency(cited->size, now->size, &r1, &r2, proof, n, &perr);
        if (rc && rc != KIX_ENOMEM)
            snprintf(what, sizeof(what),
                     "%s cannot prove its size %llu extends the cited checkpoint at size %llu "
                     "(%s): the log was rewritten since it was cited",
                     kix_client_where(c), (unsigned long long)now->size,
                     (unsigned long long)cited->size, perr.msg);
    }
    if (rc == KIX_OK) {
        rc = prove_cited_entry(c, cit, cited, &receipt, entry, &perr);
        if (rc && rc != KIX_ENOMEM)
            snprintf(what, sizeof(what),
                     "%s cannot prove the cited entry %llu in the cited checkpoint at size %llu "
                     "(%s): the citation's proof no longer verifies",
                     kix_client_where(c), (unsigned long long)cit->index,
                     (unsigned long long)cited->size, perr.msg);
    }
    if (rc == KIX_ENOMEM) {
        *err = perr;
    } else if (rc) {
        if (kix_file_read(path, 1 << 20, &file, NULL) != KIX_OK)
            kix_buf_reset(&file);
        const struct kix_alarm_item items[] = {
            {"cited.checkpoint", cit->note, strlen(cit->note)},
            {"presented.checkpoint", note->ptr, note->len},
            {"citation.json", file.ptr, file.len},
            {"receipt.tlog-proof", receipt.ptr, receipt.len},
        };
        rc = kix_trust_alarm(key, items, receipt.len ? 4 : 3, what, err);
    }
    kix_buf_release(&receipt);
    kix_buf_release(&file);
    return rc;
}

int cmd_verify_citation(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_note opened;
    struct kix_checkpoint cited, now;
    struct kix_buf note = KIX_BUF_INIT, entry = KIX_BUF_INIT;
    struct kix_resolution res;
    struct citation cit = {NULL, NULL, NULL, 0};
    struct kix_err err = {0};
    json_t *doc = NULL, *since = NULL;
    int rc, status = cli_parse(&verify_citation_cmd, argc, argv, &common, NULL, NULL, NULL);

    if (status >= 0)
        return status;
    if (argc - optind != 1)
        return cli_usage_error("verify-citation", "expected one citation FILE");
    kix_resolution_init(&res);
    rc = load_citation(argv[optind], &doc, &cit, &err);
    if (rc) {
        status = cli_fail("verify-citation", rc, &err);
        goto out;
    }
    if ((status = cli_connect("verify-citation", &common, &c)) ||
        (status = cli_log_key("verify-citation", &common, c, &key)))
        goto out;
    /* the pin first: a log that contradicts what this client verified
     * before is the alarm whatever the citation says */
    rc = kix_checkpoint_open(cit.note, strlen(cit.note), &key, 1, key.name, &opened, &cited, &err);
    if (rc)
        kix_err_wrap(&err, "the cited checkpoint");
    if (rc == KIX_OK && cit.index >= cited.size)
        rc = kix_err_set(&err, KIX_EVERIFY,
                         "the cited entry %llu is not in the cited checkpoint "
                         "(size %llu)",
                         (unsigned long long)cit.index, (unsigned long long)cited.size);
    if (rc == KIX_OK)
        rc = cli_trust_latest(c, &key, &note, &now, &err);
    if (rc == KIX_OK)
        rc = check_against_citation(c, &key, argv[optind], &cit, &cited, &note, &now, &entry, &err);
    if (rc == KIX_OK)
        rc = check_cited_entry(&cit, &entry, &err);
    if (rc) {
        status = cli_fail("verify-citation", rc, &err);
        goto out;
    }
    if ((status = cli_resolve_verified("verify-citation", c, &key, cit.run_id, &res, &now)))
        goto out;
    if (common.json)
        since = json_pack("{s:b,s:s,s:I,s:I,s:s,s:[]}", "verified", 1, "runId", cit.run_id,
                          "citedSize", (json_int_t)cited.size, "size", (json_int_t)now.size,
                          "evidence", kix_evidence_name(res.run.evidence), "since");
    else
        printf("citation verified: run %s (%s) was published at entry %llu of log %s at size "
               "%llu,\nand today's log (size %llu) is consistent with that checkpoint.\n",
               cit.run_id, cit.digest, (unsigned long long)cit.index, key.name,
               (unsigned long long)cited.size, (unsigned long long)now.size);
    {
        int first = 1;
        for (size_t i = 0; i < res.nentries; i++) {
            const struct kix_resolution_entry *e = &res.entries[i];
            struct kix_entry_summary s;
            if (e->index < cited.size ||
                kix_entry_describe(e->leaf.ptr, e->leaf.len, &s, NULL) != KIX_OK)
                continue;
            if (common.json) {
                json_t *x = json_pack("{s:I,s:s}", "index", (json_int_t)e->index, "type",
                                      kix_words_entry_type(e->type));
                if (x && e->type == KIX_ENTRY_RERUN)
                    json_object_set_new(x, "outcome", json_string(kix_words_outcome(s.outcome)));
                if (x && e->type == KIX_ENTRY_SUPERSESSION)
                    json_object_set_new(x, "newRunId", json_string(s.new_run_id));
                if (!x || json_array_append_new(json_object_get(since, "since"), x) != 0) {
                    json_decref(since);
                    since = NULL;
                }
            } else {
                if (first)
                    printf("added about the run since it was cited:\n");
                printf("  #%llu %s", (unsigned long long)e->index, kix_words_entry_type(e->type));
                if (e->type == KIX_ENTRY_RERUN)
                    printf(": %s", kix_words_outcome(s.outcome));
                if (e->type == KIX_ENTRY_SUPERSESSION)
                    printf(": superseded by run %s", s.new_run_id);
                if (e->type == KIX_ENTRY_ATTESTATION)
                    printf(": \"%s\"", s.note);
                printf("\n");
            }
            first = 0;
        }
        if (common.json)
            status = cli_doc("verify-citation", since, 1, NULL);
        else if (first)
            printf("nothing was added about the run since it was cited.\n");
        else
            printf("evidence now: %s\n", kix_words_evidence(res.run.evidence));
    }
out:
    json_decref(doc);
    kix_resolution_release(&res);
    kix_buf_release(&note);
    kix_buf_release(&entry);
    kix_client_close(c);
    return status;
}

/* ---- log -------------------------------------------------------------------- */

static const struct kix_opt log_opts[] = {
    KIX_NOTE("\n"
             "Lists log entries (default: the last 20): index, type, subject (run id or\n"
             "key id), signer key id and time. --json prints one object {\"size\": the log\n"
             "size, \"from\": N, \"entries\": [...]}, an entry each with those field names.\n"
             "Entries are listed as served; kix audit verifies them.\n"
             "\n"),
    KIX_ID("from", "N", CLI_OPT_FROM, "the first entry listed (default: the last 20)"),
    KIX_ID("limit", "K", CLI_OPT_LIMIT, "list at most K entries (default 20)"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd log_cmd = {.prog = "kix log",
                                       .usage = "[--from N] [--limit K] [--json] [options]",
                                       KIX_CMD_OPTS(log_opts)};

struct log_ctx {
    int json;
    json_t *entries; /* --json: the document's entries */
};

static int print_log_entry(void *arg, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct log_ctx *l = arg;
    struct kix_entry_summary s;
    char subject[65], signer[65];

    if (kix_entry_describe(leaf, len, &s, NULL) != KIX_OK) {
        memset(&s, 0, sizeof(s));
        snprintf(s.run_id, sizeof(s.run_id), "(unreadable)");
    }
    if (s.type == KIX_ENTRY_KEY)
        kix_hex_encode(s.subject.b, 32, subject);
    else
        snprintf(subject, sizeof(subject), "%.64s", s.run_id);
    kix_hex_encode(s.signer, 32, signer);
    if (l->json)
        return json_array_append_new(l->entries,
                                     json_pack("{s:I,s:s,s:s,s:s,s:s}", "index", (json_int_t)index,
                                               "type", kix_words_entry_type(s.type), "subject",
                                               subject, "signer", signer, "time", s.time)) != 0;
    printf("%-8llu %-13s %-40.64s %.16s  %s\n", (unsigned long long)index,
           kix_words_entry_type(s.type), subject, signer, s.time);
    return 0;
}

int cmd_log(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_client_info info;
    struct kix_err err = {0};
    struct log_ctx l = {0, NULL};
    json_t *doc = NULL;
    uint64_t from = KIX_NO_INDEX, limit = 20, done = 0;
    int rc, status = cli_parse(&log_cmd, argc, argv, &common, NULL, &from, &limit);

    if (status >= 0)
        return status;
    if (argc != optind)
        return cli_usage_error("log", "unexpected argument %s", argv[optind]);
    if ((status = cli_connect("log", &common, &c)))
        return status;
    if ((status = cli_contact("log", &common, c, &key, CLI_CONTACT_READ, NULL))) {
        kix_client_close(c);
        return status;
    }
    l.json = common.json;
    rc = kix_client_info(c, &info, &err);
    if (rc == KIX_OK && from == KIX_NO_INDEX)
        from = info.size > limit ? info.size - limit : 0;
    if (l.json && rc == KIX_OK) {
        doc = json_pack("{s:I,s:I,s:[]}", "size", (json_int_t)info.size, "from", (json_int_t)from,
                        "entries");
        l.entries = json_object_get(doc, "entries");
        if (!doc)
            rc = kix_err_set(&err, KIX_ENOMEM, "out of memory");
    }
    while (rc == KIX_OK && done < limit && from + done < info.size) {
        uint64_t got = 0, want = limit - done > 1000 ? 1000 : limit - done;
        rc = kix_client_entries(c, from + done, want, print_log_entry, &l, &got, &err);
        if (got == 0)
            break;
        done += got;
    }
    kix_client_close(c);
    if (rc) {
        json_decref(doc);
        return cli_fail("log", rc, &err);
    }
    return l.json ? cli_doc("log", doc, 1, NULL) : 0;
}
