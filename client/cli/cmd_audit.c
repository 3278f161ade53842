/* kix audit: replay the whole log into a local replica, verifying all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/encoding.h"
#include "kix/progress.h"
#include "kix/sha256.h"
#include "kix/sync.h"
#include "kix/trust.h"

static const struct kix_opt audit_opts[] = {
    KIX_NOTE("\n"
             "Replays the whole log from the server into a local replica and checks\n"
             "everything: every envelope's signature against the key registry as it stood\n"
             "at that index, every policy rule, every object's digest and references, and\n"
             "the tree recomputed at each signed checkpoint; then it compares the\n"
             "server's own tree hashes with the recomputed tree (every new entry's leaf\n"
             "hash and inclusion proof), naming the node and tile that differ. Reports the\n"
             "first violation by index and reason. Resumable: a later audit continues\n"
             "where the last one stopped, also after a crash or kill (the replica lives in\n"
             "the state directory, one per log and per source: each --store directory and\n"
             "each --server address has its own; --restart discards that one). Shows\n"
             "progress on stderr when stdout and stderr are both terminals (the same bar\n"
             "as kix-import-liger's), and the rate at the end. Of a static copy\n"
             "(http(s)://) it then compares every file the copy serves others with the\n"
             "log it replayed: every hash tile of every level (full and partial), every\n"
             "object pack and every index file, naming the first that differs (entry\n"
             "bundles are checked by the replay itself).\n"
             "\n"
             "Entries an older origin logged under the rules of its time, which today's\n"
             "origin rules refuse (a run id outside the grammar, a controlled rerun signed\n"
             "by the run's own publisher), are replayed, never counted as evidence, and\n"
             "listed as findings, each with its index and reason. --json prints the\n"
             "document kix.audit/1 the text is written from.\n"
             "\n"),
    KIX_ID("restart", NULL, 'r', "discard the local replica and audit from entry 0"),
    KIX_ID("batch", "N", 'b', "entries per replica transaction, at most (default 1024)"),
    KIX_ID("strict", NULL, 's', "any finding fails the audit (exit 1)"),
    CLI_COMMON_OPTS,
    KIX_NOTE("exit status: 0 the log verifies, 1 a violation (its index and reason are\n"
             "printed), a finding under --strict, or no such store, 2 usage, 3 I/O or\n"
             "server error, 4 the log contradicts what this client verified before, 5 a\n"
             "copy behind it (stale: audited as of its size)\n"),
};
static const struct kix_cmd audit_cmd = {
    .prog = "kix audit",
    .usage = "[--restart] [--batch N] [--strict] [--json] [options]",
    KIX_CMD_OPTS(audit_opts)};

/* One finding, into the document's list. */
static int keep_finding(void *ctx, const struct kix_finding *f)
{
    return json_array_append_new(ctx, json_pack("{s:I,s:s,s:s}", "index", (json_int_t)f->index,
                                                "rule", f->name, "reason", f->text)) != 0;
}

/* The replica's findings into *list (a new array); how many in *n. */
static int list_findings(struct kix_log *replica, json_t **list, uint64_t *n, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    int rc = kix_log_read_begin(replica, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the replica: %s", kix_strerror(rc));
    if (!(*list = json_array()))
        rc = KIX_ENOMEM;
    if (rc == KIX_OK)
        rc = kix_index_findings(r, 0, keep_finding, *list, n);
    kix_log_read_end(r);
    return rc ? kix_err_set(err, rc, "reading the findings: %s", kix_strerror(rc)) : KIX_OK;
}

/* The replica of this log for this source: "<state>/audit-<16 hex>", the
 * hex of SHA-256 of "store:<real path>" or "server:<address>", so that an
 * audit of a store and an audit through a server keep separate replicas
 * (each resumes only its own). */
static int replica_path(const struct cli_common *common, struct kix_client *c, const char *dir,
                        char *out, size_t cap, struct kix_err *err)
{
    char source[4200], real[4096], hex[65];
    uint8_t h[KIX_SHA256_LEN];

    if (common->store && !realpath(common->store, real))
        return kix_err_set(err, KIX_EIO, "cannot resolve %s: %s", common->store, strerror(errno));
    if (common->store)
        snprintf(source, sizeof(source), "store:%s", real);
    else
        snprintf(source, sizeof(source), "server:%s", kix_client_where(c));
    kix_sha256((const uint8_t *)source, strlen(source), h);
    kix_hex_encode(h, 8, hex);
    if ((size_t)snprintf(out, cap, "%s/audit-%s", dir, hex) >= cap)
        return kix_err_set(err, KIX_ELIMIT, "the state directory path %s is too long", dir);
    return KIX_OK;
}

static double now_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void show_progress(void *arg, uint64_t size, uint64_t target)
{
    char line[KIX_PROGRESS_LINE_MAX];
    size_t n = kix_progress_line(arg, size, target, line, sizeof(line));

    if (n) {
        fwrite(line, 1, n, stderr);
        fflush(stderr);
    }
}

/* How far the server's proofs were compared (PATH/proofs-checked), kept
 * beside the replica so that a killed audit resumes them too. */
static uint64_t checked_to(const char *replica, const char *what)
{
    char file[4300], text[32] = "";
    uint64_t n = 0;
    FILE *f;

    snprintf(file, sizeof(file), "%s/%s", replica, what);
    f = fopen(file, "r");
    if (!f)
        return 0;
    if (!fgets(text, sizeof(text), f) || cli_parse_u64(strtok(text, "\n"), &n) != 0)
        n = 0;
    fclose(f);
    return n;
}

static void checked_record(const char *replica, const char *what, uint64_t n)
{
    char file[4300], text[32];
    int len = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)n);

    snprintf(file, sizeof(file), "%s/%s", replica, what);
    /* a lost record costs only comparing those proofs again */
    if (kix_file_write_atomic(file, text, (size_t)len, 0600, NULL) != KIX_OK)
        return;
}

int cmd_audit(int argc, char **argv)
{
    struct cli_opts o;
    struct cli_common common;
    struct kix_client *c = NULL;
    struct kix_verifier key;
    struct kix_log *replica = NULL;
    struct kix_log_opts opts;
    struct kix_sync_opts sopts;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    struct kix_progress prog;
    char dir[4096], path[4200];
    uint64_t first = 0, synced = 0, batch = 0, files = 0, nfindings = 0;
    int restart = 0, strict = 0, ch, rc, status;
    json_t *findings = NULL;
    double secs;

    cli_start(&o, &audit_cmd, argc, argv, &common);
    while ((ch = cli_next(&o)) >= 0) {
        if (ch == 'r') {
            restart = 1;
            continue;
        }
        if (ch == 's') {
            strict = 1;
            continue;
        }
        if (ch == 'b') {
            if (cli_parse_u64(optarg, &batch) != 0 || batch == 0 || batch > (1u << 24))
                return cli_usage_error("audit", "--batch needs a number from 1 to %u", 1u << 24);
            continue;
        }
    }
    if (ch == CLI_OPTS_STOP)
        return o.status;
    if (optind != argc)
        return cli_usage_error("audit", "unexpected argument %s", argv[optind]);
    if ((status = cli_connect("audit", &common, &c)) ||
        (status = cli_log_key("audit", &common, c, &key)))
        goto out;
    /* the whole log, each file read once: kept, it would only push what
     * readers reuse out of the disk cache */
    cli_cache_off();
    /* the server's latest checkpoint must agree with what we saw before */
    rc = cli_trust_latest(c, &key, &note, &cp, &err);
    if (rc == KIX_OK)
        rc = kix_trust_dir(&key, dir, sizeof(dir), &err);
    if (rc) {
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    if ((rc = replica_path(&common, c, dir, path, sizeof(path), &err)) != KIX_OK) {
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    if (restart && (rc = kix_dir_remove_tree(path, &err)) != KIX_OK) {
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    memset(&opts, 0, sizeof(opts));
    opts.replica = 1;
    opts.store.no_sync = 1; /* a cache: a crash at worst costs a re-audit */
    if (access(path, F_OK) != 0) {
        /* made aside and renamed into place: a kill while creating it
         * leaves no half-made replica behind */
        char tmp[4300];
        snprintf(tmp, sizeof(tmp), "%s.new", path);
        rc = kix_dir_remove_tree(tmp, &err);
        if (rc == KIX_OK)
            rc = kix_index_create_replica(tmp, &key, &opts, &err);
        if (rc == KIX_OK && rename(tmp, path) != 0)
            rc = kix_err_set(&err, KIX_EIO, "cannot rename %s to %s: %s", tmp, path,
                             strerror(errno));
    }
    if (rc == KIX_OK)
        rc = kix_index_open(path, &opts, &replica, &err);
    if (rc) {
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    if (strcmp(kix_log_verifier(replica)->name, key.name) != 0 ||
        memcmp(kix_log_verifier(replica)->pub, key.pub, 32) != 0) {
        status = cli_usage_error("audit",
                                 "the local replica %s is of another log key; run "
                                 "kix audit --restart",
                                 path);
        goto out;
    }
    {
        struct kix_log_reader *r = NULL;
        if (kix_log_read_begin(replica, &r) == KIX_OK) {
            first = kix_log_reader_size(r);
            kix_log_read_end(r);
        }
    }
    memset(&sopts, 0, sizeof(sopts));
    kix_progress_init(&prog, "audit", "entries", kix_progress_wanted(), first);
    sopts.progress = show_progress;
    sopts.progress_ctx = &prog;
    sopts.max_batch = (size_t)batch;
    rc = kix_sync(c, replica, cp.size, &sopts, &synced, &err);
    if (rc == KIX_OK) {
        /* the proofs of entries a killed audit replayed but did not reach */
        uint64_t from = checked_to(path, "proofs-checked");
        for (from = from < synced ? from : synced; rc == KIX_OK && from < synced;) {
            uint64_t to = synced - from > 8192 ? from + 8192 : synced;
            rc = audit_proofs(c, replica, from, to, cp.size, &err);
            if (rc == KIX_OK)
                checked_record(path, "proofs-checked", from = to);
        }
    }
    if (rc == KIX_OK) {
        /* a static copy: every file it serves others, all of them at each
         * audit (a copy's files can change after an audit saw them) */
        char scratch[4300];
        snprintf(scratch, sizeof(scratch), "%s.files", path);
        rc = audit_files(c, replica, scratch, 0, synced, &files, &err);
    }
    secs = now_seconds() - prog.start;
    fputs(kix_progress_clear(&prog), stderr);
    if (rc) {
        struct kix_doc_audit a = {0,    strict,   first,   synced, files, KIX_NO_INDEX,
                                  secs, key.name, err.msg, NULL};
        a.bad = err.cause == KIX_CAUSE_ENTRY ? err.entry : KIX_NO_INDEX;
        if (common.json) /* the verdict: the one object on stdout */
            (void)cli_doc("audit", kix_doc_audit(&a), 1, NULL);
        kix_err_wrap(&err, "AUDIT FAILED after %llu verified entries", (unsigned long long)synced);
        if (common.json)
            cli_json_errors = 0;
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    rc = list_findings(replica, &findings, &nfindings, &err);
    if (rc) {
        status = cli_fail("audit", rc, &err);
        goto out;
    }
    {
        /* one document (kix/doc.h): the JSON, or its text */
        struct kix_doc_audit a = {!(strict && nfindings), strict, first,    synced, files,
                                  KIX_NO_INDEX,           secs,   key.name, NULL,   findings};
        status = cli_doc("audit", kix_doc_audit(&a), common.json, kix_doc_audit_text);
    }
    if (status == 0 && strict && nfindings) {
        fprintf(stderr,
                "kix audit: AUDIT FAILED (--strict): %llu entr%s the log holds break%s today's "
                "origin rules (listed above); an older origin logged them\n",
                (unsigned long long)nfindings, nfindings == 1 ? "y" : "ies",
                nfindings == 1 ? "s" : "");
        status = 1;
    }
out:
    json_decref(findings);
    kix_buf_release(&note);
    kix_log_close(replica);
    kix_client_close(c);
    return status;
}
