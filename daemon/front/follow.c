/* Follow streams: every entry from `from` on, in order, exactly once, as
 * "entries" notifications that end at signed checkpoints where they can.
 *
 * A follower is caught up from the store in chunks and then fed after each
 * commit (the writer wakes every worker). A chunk is sent only while the
 * connection has less than max_output bytes waiting: a follower that does
 * not read is paused, and closed by the idle sweep if it stays stuck. The
 * stream continues from write callbacks (pump flushes with a write request,
 * never uv_try_write, so there always is one) and from commit wake-ups.
 * (follow.h) */
#include "follow.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "kix/messages.h"
#include "replicas.h"

#define CHUNKS_PER_PUMP 8                 /* then yield to other connections */
#define CHUNK_BYTES     ((size_t)4 << 20) /* of leaves in one notification */

/* The size a stream is fed to: what is committed for a mirror's, and for
 * a reader's what N mirrors hold with --ack-replicas (replicas.h: a reader
 * never gets an entry a promotion could lose; 0 before they hold any). */
static uint64_t stream_size(struct kixd_conn *c, struct kix_log_reader *r)
{
    uint64_t size = kix_log_reader_size(r), held;

    if (c->follow_replica)
        return size;
    if (kixd_replicas_reader_size(c->w->srv, size, &held, NULL) != KIX_OK)
        return 0;
    return held;
}

int kixd_follow_start(struct kixd_conn *c, uint32_t msgid, uint64_t from, int replica,
                      struct kix_err *err)
{
    struct kix_proto_writer pw;
    struct kix_msg_size_result res;
    struct kix_log_reader *r;
    uint64_t size;
    int rc;

    KIXD_ASSERT_LOOP(c->w);
    assert(!c->closing);
    if (c->following)
        return kix_err_set(err, KIX_EINVAL,
                           "this connection already follows the log; open another connection "
                           "for a second stream");
    rc = kixd_worker_reader(c->w, &r, err);
    if (rc)
        return rc;
    c->follow_replica = replica;
    size = stream_size(c, r);
    if (from > size)
        return kix_err_set(err, KIX_EINVAL,
                           "field \"from\" is %llu, beyond the end of the log (size %llu)",
                           (unsigned long long)from, (unsigned long long)size);
    res.size = size;
    kix_proto_writer_init(&pw, &c->out);
    kix_proto_begin_response(&pw, msgid);
    kix_msg_put_follow_result(&pw, &res);
    rc = kix_proto_writer_end(&pw, err);
    if (rc)
        return rc;
    c->following = 1;
    c->follow_next = from;
    kixd_log(KIXD_DEBUG, "connection %s follows the log from %llu (size %llu)", c->peer,
             (unsigned long long)from, (unsigned long long)size);
    kixd_follow_pump(c);
    return KIX_OK;
}

/* Writes one notification [2, "entries", [{start, entries, checkpoint?}]]
 * for entries from c->follow_next, ending at the last signed checkpoint
 * within the chunk's bounds (without a checkpoint only when one commit
 * alone is bigger than a chunk). */
static int write_chunk(struct kixd_conn *c, struct kix_log_reader *r, uint64_t size)
{
    const struct kixd_config *cfg = c->w->srv->cfg;
    uint64_t start = c->follow_next, n = 0, max = size - start, end;
    size_t bytes = 0,
           budget = cfg->max_message / 2 < CHUNK_BYTES ? cfg->max_message / 2 : CHUNK_BYTES;
    struct kix_bytes note = {NULL, 0}, *leaves;
    struct kix_proto_writer pw;
    struct kix_msg_entries msg;
    struct kix_err err = {0};
    int found = 0, rc = KIX_OK;

    if (max > cfg->max_entries)
        max = cfg->max_entries;
    leaves = calloc(max ? (size_t)max : 1, sizeof(*leaves));
    if (!leaves)
        return KIX_ENOMEM;
    for (; n < max; n++) {
        if (kix_log_reader_entry(r, start + n, &leaves[n]) != KIX_OK) {
            rc = KIX_ECORRUPT;
            goto out;
        }
        if (n > 0 && bytes + leaves[n].len + 5 > budget)
            break;
        bytes += leaves[n].len + 5;
    }
    for (end = start + n; end > start; end--) {
        if (kix_log_reader_checkpoint(r, end, &note) == KIX_OK) {
            found = 1;
            break;
        }
    }
    if (found)
        n = end - start;
    memset(&msg, 0, sizeof(msg));
    kix_proto_writer_init(&pw, &c->out);
    pw.max_message = cfg->max_message;
    kix_proto_begin_notification(&pw, "entries");
    msg.start = start;
    msg.nentries = (size_t)n;
    msg.entries = leaves;
    if (found)
        msg.checkpoint = note;
    kix_msg_put_entries_notification(&pw, &msg);
    rc = kix_proto_writer_end(&pw, &err);
    if (rc)
        goto out;
    c->follow_next = start + n;
out:
    free(leaves);
    return rc;
}

void kixd_follow_pump(struct kixd_conn *c)
{
    const struct kixd_config *cfg = c->w->srv->cfg;
    struct kix_log_reader *r;
    struct kix_err err = {0};
    uint64_t size;
    char why[128];
    int rc;

    KIXD_ASSERT_LOOP(c->w);
    if (!c->following || c->closing)
        return;
    if (kixd_worker_reader(c->w, &r, &err) != KIX_OK) {
        kixd_log(KIXD_ERROR, "follow stream of %s: %s", c->peer, err.msg);
        return;
    }
    size = stream_size(c, r);
    for (int i = 0; i < CHUNKS_PER_PUMP && c->follow_next < size; i++) {
        if (c->queued + c->out.len >= cfg->max_output)
            break; /* paused until the follower reads */
        rc = write_chunk(c, r, size);
        if (rc) {
            snprintf(why, sizeof(why), "follow stream failed at entry %llu: %s",
                     (unsigned long long)c->follow_next, kix_strerror(rc));
            kixd_conn_close(c, KIXD_ERROR, why);
            return;
        }
    }
    kixd_conn_flush(c, 0);
}
