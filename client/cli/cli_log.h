/* client/cli/cli_log.h — steps shared by the commands that use a log. */
#ifndef KIX_CLI_LOG_H
#define KIX_CLI_LOG_H

#include "kix/canon.h"
#include "kix/client.h"
#include "kix/note.h"
#include "kix/resolve.h"

/* Resolves ref, verifies the answer against key and checks its checkpoint
 * against what this client remembers. Returns an exit status (0 ok). */
int cli_resolve_verified(const char *cmd, struct kix_client *c, const struct kix_verifier *key,
                         const char *ref, struct kix_resolution *res, struct kix_checkpoint *cp);

/* Reads and canonicalizes a JSON object file; its digest into d. */
int cli_read_json_object(const char *cmd, const char *path, struct kix_buf *canon,
                         struct kix_digest *d);

struct cli_submitted {
    uint64_t index; /* of the last bundle */
    int duplicate;
    uint64_t size;
    char receipt_path[4400];
};

/* Submits bundles, requires every one accepted, verifies each receipt
 * proves its envelope under key, checks consistency with the remembered
 * checkpoint, and saves the last receipt (to receipt_path, or the state
 * directory). Returns an exit status. */
int cli_submit(const char *cmd, struct kix_client *c, const struct kix_verifier *key,
               const struct kix_bundle *bundles, size_t n, const char *receipt_path,
               struct cli_submitted *out);

/* Reads a private key file (refusing loose permissions). */
int cli_signer(const char *cmd, const char *path, struct kix_signer **out);

#endif
