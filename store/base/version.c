/* The library's version (kix/version.h). */
#include "kix/version.h"

const char *kix_version(void)
{
    return KIX_VERSION_STRING;
}
