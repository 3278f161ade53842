/* kix/addr.h — the one parser of kix's network addresses.
 *
 * kix and kixd name a TCP endpoint "tcp://HOST:PORT" (HOST may be "[v6]")
 * and a Unix socket "unix:///PATH"; both sides split the TCP form with
 * kix_split_host_port, so the client connects where kixd listens and a bad
 * address is refused the same way everywhere.
 */
#ifndef KIX_ADDR_H
#define KIX_ADDR_H

#include "kix/api.h"

#include <stddef.h>

#include "kix/error.h"

/* sizeof(sockaddr_un.sun_path) on Linux: a socket path's bytes plus NUL */
#define KIX_ADDR_UNIX_PATH_MAX 108

/* Splits "HOST:PORT" into host and port, both NUL-terminated. The port is
 * 1 to 5 decimal digits worth at most 65535 (0 lets a listener take any
 * free port). Returns 0, or -1 when malformed, out of range, or a part does
 * not fit its buffer. */
KIX_API int kix_split_host_port(const char *hp, char *host, size_t hcap, char *port, size_t pcap);

/* Checks a whole address, "tcp://HOST:PORT" or "unix:///PATH", as kixd
 * --listen and kix --server take it. Returns KIX_OK, or KIX_EUSAGE with a
 * message naming what is wrong (scheme, missing port, a port past 65535, a
 * relative or too long socket path). Nothing is resolved or opened. */
KIX_API int kix_addr_validate(const char *addr, struct kix_err *err) KIX_MUST_CHECK;

#endif
