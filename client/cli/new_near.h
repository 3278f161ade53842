/* client/cli/new_near.h — kix new run without --like: the log's existing
 * comparison groups the new run comes close to joining, and why it joins
 * none of them (issue 37: a parameter spelled seq_len where the group says
 * seq lands in a group of one, silently). */
#ifndef KIX_CLI_NEW_NEAR_H
#define KIX_CLI_NEW_NEAR_H

#include <jansson.h>
#include <stdint.h>

#include "cli.h"
#include "kix/digest.h"
#include "kix/entry.h"

#define NEW_NEAR_MAX  3 /* groups shown */
#define NEW_NEAR_DIFF 8 /* differences kept per group */

struct new_near_group {
    char group[KIX_DIGEST_TEXT_LEN + 1]; /* its comparison key */
    char run_id[KIX_RUN_ID_MAX + 1];     /* its best run */
    char provider[64], gpu[64], mode[16];
    uint64_t size;                     /* runs ranked in it */
    size_t ndiff;                      /* differences found (may exceed the kept) */
    char diff[NEW_NEAR_DIFF][192];     /* each: what differs, for people */
    char diff_kind[NEW_NEAR_DIFF][16]; /* parameter, dtype, pass, gpu */
};

struct new_near {
    struct new_near_group g[NEW_NEAR_MAX];
    size_t n;      /* groups kept, closest first */
    size_t groups; /* latency groups of the kernel the log ranks (of the runs read) */
    int checked;   /* the log was read */
};

/* What kix new run is about to write: its kernel, GPU product (as the
 * environment names it), pass, dtype (the vocabulary's) and parameters. */
struct new_near_run {
    const char *kernel, *gpu, *pass, *dtype;
    const json_t *params;
};

/* Reads the ranked latency runs of run->kernel from the log of common
 * (proven as kix query proves its rows: each row's workload by digest) and
 * keeps the groups closest to run, each with what differs. Returns an exit
 * status (0 ok; else a message was printed and out->checked is 0). */
int cli_new_near(const char *cmd, const struct cli_common *common, const struct new_near_run *run,
                 struct new_near *out);

#endif
