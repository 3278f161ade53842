/* Before an origin signs: is any mirror ahead of its store? (peers.h) */
#include "peers.h"

#include <string.h>

#include "diag.h"
#include "kix/client.h"
#include "kix/note.h"

/* The peer's latest checkpoint, verified with the log key, into *cp. */
static int peer_checkpoint(const char *addr, const struct kix_verifier *key,
                           struct kix_checkpoint *cp, struct kix_err *err)
{
    struct kix_client_opts o = {5000};
    struct kix_client *c = NULL;
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_note opened;
    int rc = kix_client_connect(addr, &o, &c, err);

    if (rc == KIX_OK)
        rc = kix_client_checkpoint(c, KIX_NO_INDEX, &note, err);
    if (rc == KIX_OK)
        rc = kix_checkpoint_open((const char *)note.ptr, note.len, key, 1, key->name, &opened, cp,
                                 err);
    kix_buf_release(&note);
    kix_client_close(c);
    return rc;
}

int kixd_peers_check(const struct kixd_config *cfg, struct kix_log *log, struct kix_err *err)
{
    struct kix_log_reader *r = NULL;
    uint64_t size;
    int rc = kix_log_read_begin(log, &r);

    if (rc)
        return kix_err_set(err, rc, "reading the log");
    size = kix_log_reader_size(r);
    for (size_t i = 0; rc == KIX_OK && i < cfg->npeers; i++) {
        struct kix_checkpoint cp;
        struct kix_hash ours;
        struct kix_err perr = {0};

        if (peer_checkpoint(cfg->peers[i], kix_log_verifier(log), &cp, &perr) != KIX_OK) {
            kixd_log(KIXD_WARN, "peer %s not asked whether it is ahead of this store: %s",
                     cfg->peers[i], perr.msg);
            continue;
        }
        if (cp.size > size) {
            rc = kix_err_set(err, KIX_EFORK,
                             "REFUSING TO SERVE %s AS THE ORIGIN: it holds the log to size %llu "
                             "but the peer %s holds a checkpoint of it signed at size %llu (a "
                             "restored copy?). Signing here would fork the log: catch up first "
                             "(serve this store without its key with --mirror-of %s until it has "
                             "size %llu), then start again",
                             cfg->store, (unsigned long long)size, cfg->peers[i],
                             (unsigned long long)cp.size, cfg->peers[i],
                             (unsigned long long)cp.size);
        } else if (cp.size > 0 && (rc = kix_log_reader_root(r, cp.size, &ours, err)) == KIX_OK &&
                   memcmp(ours.b, cp.root, 32) != 0) {
            rc = kix_err_set(err, KIX_EFORK,
                             "REFUSING TO SERVE %s AS THE ORIGIN: the peer %s holds another root "
                             "at size %llu than this store: the log forked",
                             cfg->store, cfg->peers[i], (unsigned long long)cp.size);
        } else if (rc == KIX_OK) {
            kixd_log(KIXD_INFO, "peer %s holds size %llu, this store %llu: not behind",
                     cfg->peers[i], (unsigned long long)cp.size, (unsigned long long)size);
        }
    }
    kix_log_read_end(r);
    return rc;
}
