/* The one parser of kix's network addresses (kix/addr.h). */
#include "kix/addr.h"

#include <stdio.h>
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
