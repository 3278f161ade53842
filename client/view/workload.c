/* A Workload object in words, for the home and kernel views (view_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/view.h"
#include "view_internal.h"

#define DOT " \xc2\xb7 "

void kix__scalar_text(json_t *v, char *out, size_t cap)
{
    out[0] = '\0';
    if (json_is_integer(v))
        snprintf(out, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(out, cap, "%.6g", json_real_value(v));
    else if (json_is_string(v))
        kix__text_copy(out, cap, json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
}

void kix__text_copy(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s), lead;

    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    /* the last lead byte and the length its sequence needs */
    for (lead = n; lead > 0 && ((unsigned char)out[lead - 1] & 0xC0) == 0x80; lead--)
        ;
    if (lead > 0 && ((unsigned char)out[lead - 1] & 0x80)) {
        unsigned char b = (unsigned char)out[lead - 1];
        size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
        if (n - (lead - 1) < need)
            out[lead - 1] = '\0';
    }
}

static void copy(char *out, size_t cap, json_t *s)
{
    kix__text_copy(out, cap, json_is_string(s) ? json_string_value(s) : "");
}

void kix__workload_words(json_t *workload, struct kix__workload_words *out)
{
    json_t *spec = json_object_get(workload, "spec"), *v;
    const char *k;
    size_t len = 0;

    memset(out, 0, sizeof(*out));
    copy(out->dtype, sizeof(out->dtype), json_object_get(spec, "dtype"));
    out->parameters = json_object_get(spec, "parameters");
    /* jansson keeps an object's keys in insertion order; a canonical
     * manifest's are sorted, so the summary is by name */
    json_object_foreach(out->parameters, k, v)
    {
        char value[64];
        int n;
        kix__scalar_text(v, value, sizeof(value));
        n = snprintf(out->summary + len, sizeof(out->summary) - len, "%s%s = %s", len ? DOT : "", k,
                     value);
        if (n < 0 || (size_t)n >= sizeof(out->summary) - len) {
            out->summary[len] = '\0'; /* whole parameters or none */
            break;
        }
        len += (size_t)n;
    }
}

int kix__json_set(json_t *o, const char *k, json_t *v)
{
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}

int kix__view_dump(json_t *o, int bad, unsigned flags, struct kix_buf *out, struct kix_err *err)
{
    int rc = bad ? kix_err_set(err, KIX_ENOMEM, "out of memory")
                 : kix_doc_dumps(o, KIX_DOC_SORTED | (flags & KIX_VIEW_JSON_HTML), out, err);

    json_decref(o);
    return rc;
}
