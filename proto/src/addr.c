/* The one parser of kix's network addresses (kix/addr.h). */
#include "kix/addr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kix_split_host_port(const char *hp, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon;
    unsigned long value = 0;
    size_t hl, digits = 0;

    if (hp[0] == '[') {
        const char *end = strchr(hp, ']');
        if (!end || end[1] != ':')
            return -1;
        hl = (size_t)(end - hp - 1);
        colon = end + 1;
        hp++;
    } else {
        colon = strrchr(hp, ':');
        if (!colon)
            return -1;
        hl = (size_t)(colon - hp);
    }
    if (hl == 0 || hl >= hcap || !colon[1] || strlen(colon + 1) >= pcap)
        return -1;
    for (const char *p = colon + 1; *p; p++, digits++) {
        if (*p < '0' || *p > '9' || digits == 5)
            return -1;
        value = value * 10 + (unsigned long)(*p - '0');
    }
    if (value > 65535)
        return -1;
    memcpy(host, hp, hl);
    host[hl] = '\0';
    snprintf(port, pcap, "%s", colon + 1);
    return 0;
}

int kix_addr_validate(const char *addr, struct kix_err *err)
{
    char host[256], port[16];
    const char *hp, *colon;
    size_t digits = 0;

    if (strncmp(addr, "unix://", 7) == 0) {
        if (addr[7] != '/')
            return kix_err_set(err, KIX_EUSAGE,
                               "bad address %s: a Unix socket is unix:///ABSOLUTE/PATH", addr);
        if (strlen(addr + 7) >= KIX_ADDR_UNIX_PATH_MAX)
            return kix_err_set(err, KIX_EUSAGE,
                               "bad address %.80s...: a Unix socket path has at most %d bytes",
                               addr, KIX_ADDR_UNIX_PATH_MAX - 1);
        return KIX_OK;
    }
    if (strncmp(addr, "tcp://", 6) != 0)
        return kix_err_set(err, KIX_EUSAGE,
                           "bad address %s: expected tcp://HOST:PORT or unix:///PATH", addr);
    hp = addr + 6;
    colon = hp[0] == '[' ? strchr(hp, ']') : strrchr(hp, ':');
    if (colon && hp[0] == '[')
        colon = colon[1] == ':' ? colon + 1 : NULL;
    if (!colon || !colon[1])
        return kix_err_set(err, KIX_EUSAGE, "bad address %s: no port (tcp://HOST:PORT)", addr);
    for (const char *p = colon + 1; *p; p++, digits++)
        if (*p < '0' || *p > '9')
            return kix_err_set(err, KIX_EUSAGE,
                               "bad address %s: the port must be a number from 0 to 65535", addr);
    if (digits > 5 || strtoul(colon + 1, NULL, 10) > 65535)
        return kix_err_set(err, KIX_EUSAGE, "bad address %s: port %s is out of range (0 to 65535)",
                           addr, colon + 1);
    if (kix_split_host_port(hp, host, sizeof(host), port, sizeof(port)) != 0)
        return kix_err_set(err, KIX_EUSAGE,
                           "bad address %s: expected tcp://HOST:PORT (HOST a name, an IPv4 "
                           "address or [IPv6])",
                           addr);
    return KIX_OK;
}
