/* RFC 8785 canonical JSON (in progress). */
#include "kix/canon.h"
