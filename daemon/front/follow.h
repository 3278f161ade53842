/* daemon/front/follow.h — follow streams (follow.c): every entry from `from` on,
 * in order, exactly once, as "entries" notifications on the connection
 * that asked (the follow method). Loop thread only; the stream's state
 * lives in its struct kixd_conn (following, follow_next). */
#ifndef KIXD_FOLLOW_H
#define KIXD_FOLLOW_H

#include "conn.h"

/* Starts the stream of request msgid at entry `from`; KIX_OK, or an error
 * in err (nothing started). */
int kixd_follow_start(struct kixd_conn *c, uint32_t msgid, uint64_t from, int replica,
                      struct kix_err *err);
/* Sends what the follower lacks, as far as its output budget allows. */
void kixd_follow_pump(struct kixd_conn *c);

#endif
