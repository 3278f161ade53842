/* daemon/base/fd_limit.h — the file descriptors kixd needs (fd_limit.c) for
 * its configured connection count. */
#ifndef KIXD_FD_LIMIT_H
#define KIXD_FD_LIMIT_H

#include "config.h"

/* Raises the soft open-files limit to the hard one and warns when it
 * cannot hold cfg->max_connections connections. */
void kixd_raise_fd_limit(const struct kixd_config *cfg);

#endif
