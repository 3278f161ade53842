/* Object packs: the file format (kix/object_pack.h). */
#include "kix/object_pack.h"

#include <stdio.h>

#include "kix/encoding.h"
#include "kix/tlog_path.h"

int kix_object_pack_path(uint64_t index, char *out, size_t cap)
{
    char n[KIX_TLOG_PATH_MAX];

    if (kix_tlog_index_format(index, n, sizeof(n)) != KIX_OK)
        return KIX_ELIMIT;
    if ((size_t)snprintf(out, cap, "objects/entries/%s", n) >= cap)
        return KIX_ELIMIT;
    return KIX_OK;
}

int kix_object_pack_add(struct kix_buf *pack, const uint8_t *bytes, size_t len)
{
    uint8_t head[4];

    if (len > KIX_OBJECT_PACK_OBJECT || pack->len > KIX_OBJECT_PACK_MAX - 4 ||
        len > KIX_OBJECT_PACK_MAX - 4 - pack->len)
        return KIX_ELIMIT;
    kix_u32be_put(head, (uint32_t)len);
    if (kix_buf_grow(pack, 4 + len) != KIX_OK || kix_buf_add(pack, head, 4) != KIX_OK ||
        kix_buf_add(pack, bytes, len) != KIX_OK)
        return KIX_ENOMEM; /* only the grow can fail: nothing was added */
    return KIX_OK;
}

int kix_object_pack_next(const uint8_t *pack, size_t len, size_t *off, const uint8_t **obj,
                         size_t *obj_len)
{
    size_t at = *off, n;

    if (at == len)
        return KIX_ENOTFOUND;
    if (at > len || len - at < 4)
        return KIX_EPROTO;
    n = kix_u32be_get(pack + at);
    at += 4;
    if (n > KIX_OBJECT_PACK_OBJECT || len - at < n)
        return KIX_EPROTO;
    *obj = pack + at;
    *obj_len = n;
    *off = at + n;
    return KIX_OK;
}
