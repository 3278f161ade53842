/* Process limits kixd needs for its configured connection count (fd_limit.h). */
#include "fd_limit.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "diag.h"

/* Descriptors kixd needs besides connections: the store, listeners, the
 * event loops' own, stderr and a margin. */
#define FD_RESERVE 64

void kixd_raise_fd_limit(const struct kixd_config *cfg)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)cfg->max_connections + FD_RESERVE +
                  (rlim_t)cfg->threads * KIXD_BUNDLE_FDS; /* the bundle files kept open */

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
        rlim_t old = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            kixd_log(KIXD_DEBUG, "raised the open-files limit from %llu to %llu",
                     (unsigned long long)old, (unsigned long long)rl.rlim_cur);
        else if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
            return;
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
        kixd_log(KIXD_WARN,
                 "the open-files limit is %llu, too low for --max-connections %u: connections "
                 "past about %llu will be refused by the system (raise it with ulimit -n or "
                 "LimitNOFILE=)",
                 (unsigned long long)rl.rlim_cur, cfg->max_connections,
                 (unsigned long long)(rl.rlim_cur > FD_RESERVE ? rl.rlim_cur - FD_RESERVE : 0));
}
