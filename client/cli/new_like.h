/* client/cli/new_like.h — kix new run --like / --group: the comparison
 * group a new run joins, read from a verified run of the log. */
#ifndef KIX_CLI_NEW_LIKE_H
#define KIX_CLI_NEW_LIKE_H

#include <stdint.h>

#include "cli.h"
#include "kix/digest.h"
#include "kix/entry.h"

struct new_like {
    char run_id[KIX_RUN_ID_MAX + 1];     /* the run the group was read from */
    char group[KIX_DIGEST_TEXT_LEN + 1]; /* its comparisonKey */
    uint64_t group_size;                 /* runs ranked in it now */
    char metric[16];                     /* latency | peak_memory */
    char benchmark[257];                 /* spec.sourceNative.benchmark */
    char workload[KIX_DIGEST_TEXT_LEN + 1], protocol[KIX_DIGEST_TEXT_LEN + 1],
        environment[KIX_DIGEST_TEXT_LEN + 1]; /* the digests to reuse */
};

/* Resolves `like` (a run id, permalink or manifest digest), or the best run
 * of the group `group` (sha256:HEX), through the log of `common` and
 * verifies it; fills out. Returns an exit status (0 ok; messages printed). */
int cli_new_like(const char *cmd, const struct cli_common *common, const char *like,
                 const char *group, struct new_like *out);

#endif
