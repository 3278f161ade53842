/* kixd check (the full offline check of a store) and the quick check that
 * kixd serve runs before it serves (kix_log_check in kix/log.h; cmd_check.h). */
#include "cmd_check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "kixd_options.h"
#include "kix/clock.h"
#include "kix/doc.h"

#define START_ISSUES_LOGGED 10 /* problems kixd serve logs before refusing */

static const char check_about[] =
    "Checks a kix store against itself, offline (a running kixd may keep serving\n"
    "it: the check reads one snapshot):\n"
    "  - every stored checkpoint is signed by the log key and its root is the root\n"
    "    of the tree recomputed from the stored entries at its size\n"
    "  - every entry is there, its leaf hash is the one in the tree tiles and the\n"
    "    statement index, and the objects it needs are stored\n"
    "  - every hash in every tile is the node recomputed from the entries\n"
    "  - every object's bytes hash to its digest\n"
    "  - (full check) the index: every run's record, entry list and comparison\n"
    "    group recomputed from the entries, and every group record, so a rank or\n"
    "    an evidence level the store was edited to claim is named\n"
    "Each problem is printed with its table and record (as kix-tamper names them)\n"
    "and the entry index it concerns. Signatures of entries and the log policy are\n"
    "not rechecked here: run kix audit for that.\n"
    "The full check also lists findings: entries an older origin logged that\n"
    "today's origin rules refuse (a run id outside the grammar, a controlled rerun\n"
    "signed by the run's own publisher, which is never evidence). They are not\n"
    "problems of the store, unless --strict.\n";

/* ---- output ------------------------------------------------------------------------ */

struct report {
    int json;
    unsigned long long count;
    int tty;
    time_t last_progress;
    /* --json: the problems and the findings, printed in one object at the end */
    json_t *problems, *findings;
    unsigned long long nfindings;
};

int kixd_check_issue_to_stderr(void *ctx, const struct kix_check_issue *is)
{
    fprintf(stderr, "%s: %s: %s\n", (const char *)ctx, is->where, is->message);
    return 0;
}

static int print_issue(void *ctx, const struct kix_check_issue *is)
{
    struct report *r = ctx;

    if (r->tty)
        fputs("\r\033[K", stderr);
    if (r->json) {
        json_array_append_new(
            r->problems,
            json_pack("{s:o,s:o,s:o,s:o}", "table", kixd_jstr(is->table), "index",
                      is->index == KIX_NO_INDEX ? json_null() : json_integer((json_int_t)is->index),
                      "where", kixd_jstr(is->where), "message", kixd_jstr(is->message)));
    } else if (is->index != KIX_NO_INDEX && strcmp(is->table, "checkpoints") != 0) {
        printf("problem: %s (entry %llu): %s\n", is->where, (unsigned long long)is->index,
               is->message);
    } else {
        printf("problem: %s: %s\n", is->where, is->message);
    }
    fflush(stdout);
    r->count++;
    return 0;
}

static int print_finding(void *ctx, const struct kix_check_issue *is)
{
    struct report *r = ctx;

    if (r->tty)
        fputs("\r\033[K", stderr);
    if (!r->json) {
        printf("finding: entry %llu (%s): %s\n", (unsigned long long)is->index, is->where,
               is->message);
        fflush(stdout);
        r->nfindings++;
        return 0;
    }
    if (json_array_append_new(
            r->findings, json_pack("{s:I,s:o,s:o}", "index", (json_int_t)is->index, "rule",
                                   kixd_jstr(is->where), "reason", kixd_jstr(is->message))) == 0)
        r->nfindings++;
    return 0;
}

static void show_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    struct report *r = ctx;
    time_t now = time(NULL);

    if (!r->tty || (now == r->last_progress && done < total))
        return;
    r->last_progress = now;
    fprintf(stderr, "\r\033[Kchecking %s: %llu/%llu", phase, (unsigned long long)done,
            (unsigned long long)total);
}

static double seconds_since(uint64_t t0_ns)
{
    return (double)(kix_clock_ns() - t0_ns) / 1e9;
}

/* ---- kixd check ----------------------------------------------------------------- */

int kixd_check_log(struct kix_log *log, const struct kix_check_opts *o, struct kix_check_stats *st,
                   struct kix_index_check_stats *ist, struct kix_err *err)
{
    char format[64];
    int rc = kix_log_check(log, o, st, err);

    /* an index an older kixd wrote is read as none until it is rebuilt
     * (kix_log_open): checking it would name every record */
    if (!o->quick && (rc == KIX_OK || rc == KIX_ECORRUPT) &&
        kix_index_current(log, format, sizeof(format))) {
        /* the index, recomputed from the entries: ranks and evidence are
         * the log's, not the store's word */
        struct kix_err ierr = {0};
        int irc = kix_index_check(log, o, ist, &ierr);
        if (irc && rc == KIX_OK) {
            rc = irc;
            *err = ierr;
        }
    }
    return rc;
}

int kixd_check_main(int argc, char **argv)
{
    const char *dir = NULL;
    struct kix_log_opts lopts;
    struct kix_check_opts copts;
    struct kix_check_stats st;
    struct kix_index_check_stats ist = {0, 0, 0, 0, 0};
    struct kix_log *log = NULL;
    struct kix_err err = {0};
    struct report rep;
    uint64_t t0;
    char path[4200];
    struct stat sb;
    double secs;
    int rc, strict = 0;

    const char *tail = NULL, *max_problems = NULL;
    unsigned long long count;
    const struct kix_opt options[] = {
        KIX_STRING("store", "DIR", &dir, "the store directory (a log or a mirror)"),
        KIX_FLAG("quick", &copts.quick,
                 "only what kixd serve checks at start: the latest\n"
                 "checkpoint, the root folded from the tiles, and the\n"
                 "last --tail entries with their tiles and objects"),
        KIX_STRING("tail", "N", &tail, "with --quick: the entries checked (default 1024)"),
        KIX_STRING("max-problems", "N", &max_problems, "stop after N problems (default 100)"),
        KIX_FLAG("strict", &strict, "any finding fails the check (exit 1)"),
        KIX_FLAG("json", &rep.json, "one JSON object on stdout instead of lines"),
    };
    const struct kix_cmd cmd = {
        .prog = "kixd check",
        .usage = "--store DIR [--quick [--tail N]] [--max-problems N] [--strict] [--json]",
        .about = check_about,
        KIX_CMD_OPTS(options),
        .tail = "\nexit status: 0 nothing wrong, 1 problems found (or findings, under --strict),\n"
                "2 usage, 3 the store cannot be read\n",
        .column = 23};

    memset(&copts, 0, sizeof(copts));
    memset(&rep, 0, sizeof(rep));
    if ((rc = kixd_options(&cmd, argc, argv, NULL, NULL)) >= 0)
        return rc;
    /* counts: checked here, so that one message says what both need */
    for (int i = 0; i < 2; i++) {
        const char *v = i ? max_problems : tail;
        if (!v)
            continue;
        if (kixd_parse_count(v, 1, ULLONG_MAX, &count) != 0)
            return kixd_usage(&cmd, "%s needs a positive number", i ? "--max-problems" : "--tail");
        if (i)
            copts.max_issues = (size_t)count;
        else
            copts.tail = count;
    }
    if (optind != argc)
        return kixd_usage(&cmd, "unexpected argument '%s'", argv[optind]);
    if (!dir)
        return kixd_usage(&cmd, "--store DIR is required");
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "kixd check: no kix store in %s\n", dir);
        return 3;
    }
    memset(&lopts, 0, sizeof(lopts));
    lopts.store.read_only = 1; /* no log key needed, nothing written */
    rc = kix_index_open(dir, &lopts, &log, &err);
    if (rc) {
        fprintf(stderr, "kixd check: cannot open %s: %s\n", dir, kix_err_text(&err, rc));
        return 3;
    }
    rep.tty = isatty(STDERR_FILENO);
    copts.issue = print_issue;
    copts.issue_ctx = &rep;
    copts.progress = show_progress;
    copts.progress_ctx = &rep;
    copts.finding = print_finding;
    copts.finding_ctx = &rep;
    if (rep.json && (!(rep.problems = json_array()) || !(rep.findings = json_array()))) {
        kix_log_close(log);
        fprintf(stderr, "kixd check: out of memory\n");
        return 3;
    }
    t0 = kix_clock_ns();
    rc = kixd_check_log(log, &copts, &st, &ist, &err);
    secs = seconds_since(t0);
    if (rep.tty)
        fputs("\r\033[K", stderr);
    if (rc == KIX_OK && strict && rep.nfindings)
        rc = kix_err_set(&err, KIX_ECORRUPT,
                         "--strict: %llu entr%s the log holds break%s today's origin rules "
                         "(the findings above); an older origin logged them",
                         rep.nfindings, rep.nfindings == 1 ? "y" : "ies",
                         rep.nfindings == 1 ? "s" : "");
    if (rep.json) {
        char format[64];
        /* the time to the millisecond */
        json_t *o = json_pack(
            "{s:O,s:O,s:b,s:b,s:b,s:b,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "problems",
            rep.problems, "findings", rep.findings, "strict", strict, "ok", rc == KIX_OK, "quick",
            copts.quick, "indexChecked",
            !copts.quick && kix_index_current(log, format, sizeof(format)), "origin",
            kixd_jstr(kix_log_origin(log)), "size", (json_int_t)st.size, "entries",
            (json_int_t)st.entries, "checkpoints", (json_int_t)st.checkpoints, "roots",
            (json_int_t)st.roots, "treeHashes", (json_int_t)st.nodes, "tiles", (json_int_t)st.tiles,
            "objects", (json_int_t)st.objects, "runs", (json_int_t)ist.runs, "ranked",
            (json_int_t)ist.ranked, "seconds", (double)(long long)(secs * 1000 + 0.5) / 1000);
        if (kix_doc_print(o, 0, stdout) != KIX_OK)
            fprintf(stderr, "kixd check: out of memory writing the --json report\n");
        json_decref(o);
    } else if (rc == KIX_OK || rc == KIX_ECORRUPT) {
        char format[64];
        if (!copts.quick && !kix_index_current(log, format, sizeof(format)))
            printf("index not checked: it is in the format %s, another kixd's (this one writes "
                   "%s); kixd migrate --store %s rebuilds it (kixd serve does on start)\n",
                   format, kix_index_indexer()->name, dir);
        printf("%s%s check of %s (log %s, size %llu): %llu entries, %llu checkpoints "
               "(%llu roots recomputed), %llu tree hashes in %llu tiles, %llu objects, "
               "%llu runs (%llu ranked) recomputed in %.2f s%s\n",
               rc == KIX_OK ? "passed: " : "FAILED: ", copts.quick ? "quick" : "full", dir,
               kix_log_origin(log), (unsigned long long)st.size, (unsigned long long)st.entries,
               (unsigned long long)st.checkpoints, (unsigned long long)st.roots,
               (unsigned long long)st.nodes, (unsigned long long)st.tiles,
               (unsigned long long)st.objects, (unsigned long long)ist.runs,
               (unsigned long long)ist.ranked, secs,
               rep.nfindings && !strict ? "; with the findings above (--strict fails on them)"
                                        : "");
    }
    json_decref(rep.problems);
    json_decref(rep.findings);
    kix_log_close(log);
    if (rc == KIX_OK)
        return 0;
    fprintf(stderr, "kixd check: %s\n", kix_err_text(&err, rc));
    return rc == KIX_ECORRUPT ? 1 : 3;
}

/* ---- the start-up check ------------------------------------------------------------- */

struct start_report {
    unsigned logged;
};

static int log_issue(void *ctx, const struct kix_check_issue *is)
{
    struct start_report *r = ctx;
    if (r->logged++ < START_ISSUES_LOGGED)
        kixd_log(KIXD_ERROR, "store check: %s: %s", is->where, is->message);
    return 0;
}

int kixd_check_at_start(struct kix_log *log, const char *store, struct kix_err *err)
{
    struct kix_check_opts o;
    struct kix_check_stats st;
    struct start_report rep = {0};
    struct kix_err e = {0};
    uint64_t t0;
    int rc;

    memset(&o, 0, sizeof(o));
    o.quick = 1;
    o.max_issues = START_ISSUES_LOGGED;
    o.issue = log_issue;
    o.issue_ctx = &rep;
    t0 = kix_clock_ns();
    rc = kix_log_check(log, &o, &st, &e);
    if (rc == KIX_ECORRUPT)
        return kix_err_set(err, rc,
                           "refusing to serve %s: the store does not match its latest signed "
                           "checkpoint; run 'kixd check --store %s' for the full report, then "
                           "restore the store from a mirror or a backup (%s)",
                           store, store, e.msg);
    if (rc)
        return kix_err_set(err, rc, "start-up check of %s: %s", store, kix_err_text(&e, rc));
    kixd_log(KIXD_INFO,
             "start-up check passed: the checkpoint at size %llu verifies and matches the tree "
             "(last %llu entries rehashed) in %.1f ms",
             (unsigned long long)st.size, (unsigned long long)st.entries, seconds_since(t0) * 1e3);
    return KIX_OK;
}
